//! `xtask catalog`: builds `crates/topology/catalog/vm_sizes.csv` and `disk_skus.csv` from the
//! committed snapshot of Microsoft's VM size and disk pages (`crates/topology/catalog/snapshot`,
//! the disk pages under its `disks` folder). The generator is the only writer of those files;
//! `--check` (and this module's test) proves the committed files are its output byte for byte.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

mod build;
mod cells;
mod disks;
mod extract;
mod page;

/// The catalog folder of the topology crate.
pub(crate) fn catalog_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../topology/catalog")
}

pub(crate) fn run(check: bool, quiet: bool) -> Result<()> {
    let dir = catalog_dir();
    let built = build::build(&dir.join("snapshot"))?;
    if !quiet {
        for n in &built.notes {
            println!("note: {n}");
        }
        let mut total = 0;
        for ((status, family), n) in &built.counts {
            println!("{status:>8} {family:<8} {n}");
            total += n;
        }
        println!("{total} sizes");
    }
    let disks = disks::build(&dir.join("snapshot/disks"))?;
    if !quiet {
        for n in &disks.notes {
            println!("note: {n}");
        }
        println!("{} disk SKUs", disks.csv.lines().count().saturating_sub(1));
    }
    for (name, text) in [("vm_sizes.csv", &built.csv), ("disk_skus.csv", &disks.csv)] {
        let out = dir.join(name);
        if check {
            let committed = std::fs::read_to_string(&out)?;
            if committed != *text {
                bail!(
                    "{} is not the generator's output: run `cargo run -p xtask -- catalog`",
                    out.display()
                );
            }
        } else {
            std::fs::write(&out, text)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first line where `committed` and `built` differ.
    fn first_difference(committed: &str, built: &str) -> String {
        committed
            .lines()
            .zip(built.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .map(|(i, (a, b))| format!("line {}:\n  committed: {a}\n  generated: {b}", i + 1))
            .unwrap_or_else(|| "the line counts differ".to_owned())
    }

    #[test]
    fn the_committed_catalog_is_the_generators_output() {
        let dir = catalog_dir();
        let built = build::build(&dir.join("snapshot")).unwrap();
        let disks = disks::build(&dir.join("snapshot/disks")).unwrap();
        for (name, text) in [("vm_sizes.csv", &built.csv), ("disk_skus.csv", &disks.csv)] {
            let committed = std::fs::read_to_string(dir.join(name)).unwrap();
            if committed != *text {
                panic!(
                    "{name} is not the generator's output ({}); run `cargo run -p xtask -- catalog`",
                    first_difference(&committed, text)
                );
            }
        }
    }
}
