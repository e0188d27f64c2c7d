//! `xtask catalog`: builds `crates/topology/catalog/vm_sizes.csv` from the committed snapshot
//! of Microsoft's VM size pages (`crates/topology/catalog/snapshot`). The generator is the only
//! writer of that file; `--check` (and this module's test) proves the committed file is its
//! output byte for byte.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

mod build;
mod cells;
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
    let out = dir.join("vm_sizes.csv");
    if check {
        let committed = std::fs::read_to_string(&out)?;
        if committed != built.csv {
            bail!(
                "{} is not the generator's output: run `cargo run -p xtask -- catalog`",
                out.display()
            );
        }
    } else {
        std::fs::write(&out, &built.csv)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_catalog_is_the_generators_output() {
        let dir = catalog_dir();
        let built = build::build(&dir.join("snapshot")).unwrap();
        let committed = std::fs::read_to_string(dir.join("vm_sizes.csv")).unwrap();
        if committed != built.csv {
            let diff = committed
                .lines()
                .zip(built.csv.lines())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .map(|(i, (a, b))| format!("line {}:\n  committed: {a}\n  generated: {b}", i + 1))
                .unwrap_or_else(|| "the line counts differ".to_owned());
            panic!(
                "vm_sizes.csv is not the generator's output ({diff}); run `cargo run -p xtask -- catalog`"
            );
        }
    }
}
