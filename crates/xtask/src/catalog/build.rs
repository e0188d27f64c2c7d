//! The snapshot's pages -> `vm_sizes.csv`: pages merged by precedence, each size's status,
//! every row's sources.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::cells::Col;
use super::extract::{Ignore, PageFacts, extract};
use super::page::parse;

/// The repositories in precedence order: a figure comes from the first page (in this order,
/// then by path) that states it; a later page stating another value is reported.
pub(crate) const PRECEDENCE: [&str; 2] = ["azure-compute-docs", "azure-docs"];

/// `manifest.toml`: the tables to skip and the sizes' lifecycle status.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    #[serde(default)]
    pub(crate) ignore: Vec<Ignore>,
    #[serde(default)]
    pub(crate) drop: Vec<Drop>,
    #[serde(default)]
    pub(crate) status: Vec<StatusRule>,
}

/// Cells of one size on one page read as garbled, with why.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Drop {
    pub(crate) file: String,
    pub(crate) size: String,
    /// CSV column names.
    pub(crate) columns: Vec<String>,
    pub(crate) reason: String,
}

/// The status of every size of the named families: family letters and version, whatever
/// the features (`Dv2` is D1_v2 ... D15_v2; DS2_v2 is family `DSv2`; B1s is `Bv1`).
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StatusRule {
    pub(crate) status: String,
    pub(crate) families: Vec<String>,
    /// `repository:path@commit` of the lifecycle page that says so.
    pub(crate) source: String,
}

/// The generator's result: the CSV and what it dropped, normalized or found disagreeing.
#[derive(Debug)]
pub(crate) struct Built {
    pub(crate) csv: String,
    pub(crate) notes: Vec<String>,
    /// (status, family) -> count.
    pub(crate) counts: BTreeMap<(String, String), usize>,
}

/// The family key of a size: its family letters and version (`Dv2` for D2_v2, `DSv2` for
/// DS2_v2, `Bv1` for B1s, `Mv2` for M416s_8_v2, `Basic_A` for Basic_A0).
pub(crate) fn family_key(name: &str) -> String {
    if let Some(rest) = name.strip_prefix("Basic_") {
        let letters: String = rest.chars().take_while(char::is_ascii_uppercase).collect();
        return format!("Basic_{letters}");
    }
    let short = name.strip_prefix("Standard_").unwrap_or(name);
    let (body, version) = match short.rsplit_once("_v") {
        Some((b, v)) if !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit()) => (b, v),
        _ => (short, "1"),
    };
    let family: String = body.chars().take_while(char::is_ascii_uppercase).collect();
    format!("{family}v{version}")
}

/// The order of the rows: by family and version, then by vCPU-like number, then by name.
fn sort_key(name: &str) -> (String, u32, String) {
    let short = name.strip_prefix("Standard_").unwrap_or(name);
    let digits: String = short
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    (family_key(name), digits.parse().unwrap_or(0), name.to_owned())
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v}") }
}

fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "no",
        None => "",
    }
}

/// The snapshot's pages in precedence order (paths relative to `dir`).
pub(crate) fn pages(dir: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for repo in PRECEDENCE {
        let mut files = Vec::new();
        collect(&dir.join(repo), &mut files)?;
        files.sort();
        for f in files {
            let rel = f.strip_prefix(dir).unwrap_or(&f).to_string_lossy().replace('\\', "/");
            out.push(rel);
        }
    }
    Ok(out)
}

/// The `.md` files under `dir`, at any depth.
pub(crate) fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let p = e?.path();
        if p.is_dir() {
            collect(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
    Ok(())
}

pub(crate) const HEADER_HEAD: [&str; 2] = ["size", "status"];
pub(crate) const HEADER_TAIL: [&str; 3] = ["premium_storage", "premium_storage_caching", "source"];

/// Builds `vm_sizes.csv` from the snapshot folder.
pub(crate) fn build(dir: &Path) -> Result<Built> {
    let manifest: Manifest = {
        let p = dir.join("manifest.toml");
        let text =
            std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
        toml::from_str(&text).with_context(|| format!("reading {}", p.display()))?
    };
    for ig in &manifest.ignore {
        if !dir.join(&ig.file).is_file() {
            bail!("manifest.toml: ignore names `{}`, which is not in the snapshot", ig.file);
        }
    }
    let mut facts: Vec<(String, PageFacts)> = Vec::new();
    for file in pages(dir)? {
        let text = std::fs::read_to_string(dir.join(&file))?;
        let page = parse(&text).with_context(|| file.clone())?;
        let mut f = extract(&page, &file, &manifest.ignore)?;
        for d in manifest.drop.iter().filter(|d| d.file == file) {
            let Some(size) = f.sizes.get_mut(&d.size) else {
                bail!("manifest.toml: drop names {} on {file}, which does not state it", d.size);
            };
            for name in &d.columns {
                let col = Col::ALL.into_iter().find(|c| c.name() == name);
                let Some(v) = col.and_then(|c| size.figures.remove(&c)) else {
                    bail!(
                        "manifest.toml: drop names {} `{name}` on {file}: no such figure",
                        d.size
                    );
                };
                f.notes.push(format!(
                    "{file}: {} {name} = {} dropped: {}",
                    d.size,
                    fmt_num(v),
                    d.reason
                ));
            }
        }
        facts.push((file.clone(), f));
    }
    for d in &manifest.drop {
        if !facts.iter().any(|(f, _)| *f == d.file) {
            bail!("manifest.toml: drop names `{}`, which is not in the snapshot", d.file);
        }
    }
    let mut notes: Vec<String> = facts.iter().flat_map(|(_, f)| f.notes.clone()).collect();

    let mut status_of: BTreeMap<&str, (&str, &str)> = BTreeMap::new();
    for rule in &manifest.status {
        if !matches!(rule.status.as_str(), "current" | "previous" | "retired") {
            bail!("manifest.toml: status `{}` is not current, previous or retired", rule.status);
        }
        for f in &rule.families {
            if status_of.insert(f, (&rule.status, &rule.source)).is_some() {
                bail!("manifest.toml: the family `{f}` has two statuses");
            }
        }
    }

    let names: BTreeSet<&String> = facts.iter().flat_map(|(_, f)| f.sizes.keys()).collect();
    let mut names: Vec<&String> = names.into_iter().collect();
    names.sort_by_key(|n| sort_key(n));

    let mut csv = String::new();
    let header: Vec<&str> = HEADER_HEAD
        .into_iter()
        .chain(Col::ALL.iter().map(|c| c.name()))
        .chain(HEADER_TAIL)
        .collect();
    csv.push_str(&header.join(","));
    csv.push('\n');
    let mut counts = BTreeMap::new();
    let mut used_families = BTreeSet::new();
    for name in names {
        let mut figures: BTreeMap<Col, (f64, &str)> = BTreeMap::new();
        let mut premium: Option<(bool, &str)> = None;
        let mut caching: Option<(bool, &str)> = None;
        let mut sources: Vec<&str> = Vec::new();
        for (file, page) in &facts {
            let Some(s) = page.sizes.get(name) else { continue };
            let mut used = false;
            for (col, v) in &s.figures {
                match figures.get(col) {
                    None => {
                        figures.insert(*col, (*v, file));
                        used = true;
                    }
                    Some((old, from)) if (old - v).abs() > f64::EPSILON => notes.push(format!(
                        "{file}: {name} {col} = {} disagrees with {from} ({}): {} kept",
                        fmt_num(*v),
                        fmt_num(*old),
                        fmt_num(*old)
                    )),
                    Some(_) => {}
                }
            }
            for (what, stated, slot) in [
                ("premium_storage", s.premium_storage, &mut premium),
                ("premium_storage_caching", s.host_caching, &mut caching),
            ] {
                let Some(v) = stated else { continue };
                match slot {
                    None => {
                        *slot = Some((v, file));
                        used = true;
                    }
                    Some((old, from)) if *old != v => notes.push(format!(
                        "{file}: {name} {what} = {} disagrees with {from} ({}): {} kept",
                        yes_no(Some(v)),
                        yes_no(Some(*old)),
                        yes_no(Some(*old))
                    )),
                    Some(_) => {}
                }
            }
            if used {
                sources.push(&page.source);
            }
        }
        let family = family_key(name);
        let (status, status_source) = match status_of.get(family.as_str()) {
            Some((s, src)) => {
                used_families.insert(family.clone());
                (*s, Some(*src))
            }
            None => ("current", None),
        };
        *counts.entry((status.to_owned(), family.clone())).or_insert(0) += 1;
        let mut cells: Vec<String> = vec![name.clone(), status.to_owned()];
        for col in Col::ALL {
            cells.push(figures.get(&col).map(|(v, _)| fmt_num(*v)).unwrap_or_default());
        }
        cells.push(yes_no(premium.map(|x| x.0)).to_owned());
        cells.push(yes_no(caching.map(|x| x.0)).to_owned());
        let mut src: Vec<&str> = sources;
        if let Some(s) = status_source {
            src.push(s);
        }
        cells.push(src.join(";"));
        for c in &cells {
            if c.contains(',') || c.contains('"') {
                bail!("{name}: the cell `{c}` would need CSV quoting");
            }
        }
        csv.push_str(&cells.join(","));
        csv.push('\n');
    }
    for f in status_of.keys() {
        if !used_families.contains(*f) {
            bail!("manifest.toml: the family `{f}` has a status but no size in the snapshot");
        }
    }
    Ok(Built { csv, notes, counts })
}

#[cfg(test)]
#[allow(clippy::float_cmp)]
mod tests {
    use super::*;

    #[test]
    fn family_keys() {
        assert_eq!(family_key("Standard_D2_v2"), "Dv2");
        assert_eq!(family_key("Standard_DS13_v2"), "DSv2");
        assert_eq!(family_key("Standard_B1ls"), "Bv1");
        assert_eq!(family_key("Standard_M416s_8_v2"), "Mv2");
        assert_eq!(family_key("Standard_E4-2s_v3"), "Ev3");
        assert_eq!(family_key("Standard_FX4mds"), "FXv1");
        assert_eq!(family_key("Standard_A11"), "Av1");
        assert_eq!(family_key("Basic_A4"), "Basic_A");
    }

    #[test]
    fn numbers_as_written() {
        assert_eq!(fmt_num(4000.0), "4000");
        assert_eq!(fmt_num(218.75), "218.75");
        assert_eq!(fmt_num(0.75), "0.75");
    }

    #[test]
    fn a_small_snapshot_merged_by_precedence() {
        let dir = std::env::temp_dir().join(format!("xtask-catalog-{}", std::process::id()));
        let new = dir.join("azure-compute-docs/general-purpose");
        let old = dir.join("azure-docs");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::create_dir_all(&old).unwrap();
        std::fs::write(
            new.join("dv2.md"),
            "<!-- source: R/new:dv2.md@n1 -->
### [Basics](#tab/sizebasic)
| Size Name | vCPUs (Qty.) | Memory (GB) |
| --- | --- | --- |
| Standard_D1_v2 | 1 | 3.5 |
",
        )
        .unwrap();
        std::fs::write(
            old.join("dv2.md"),
            "<!-- source: R/old:dv2.md@o1 -->
## Dv2-series
Premium Storage: Not Supported
| Size | vCPU | Memory: GiB | Temp storage (SSD) GiB | Max data disks |
|---|---|---|---|---|
| Standard_D1_v2 | 1 | 4 | 50 | 4 |
| Standard_A1_v2 | 1 | 2 | 10 | 2 |
",
        )
        .unwrap();
        std::fs::write(
            dir.join("manifest.toml"),
            "[[status]]\nstatus = \"previous\"\nfamilies = [\"Dv2\"]\nsource = \"R/l:list.md@l1\"\n",
        )
        .unwrap();
        let b = build(&dir).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        let lines: Vec<&str> = b.csv.lines().collect();
        assert!(lines[0].starts_with("size,status,vcpu,memory_gib,temp_gib,max_data_disks,"));
        assert!(lines[0].ends_with(",premium_storage,premium_storage_caching,source"));
        assert_eq!(lines.len(), 3);
        // A1_v2 sorts before D1_v2; the new page's memory wins; the old one fills the gaps
        assert!(lines[1].starts_with("Standard_A1_v2,current,1,2,10,2,"), "{}", lines[1]);
        assert!(lines[2].starts_with("Standard_D1_v2,previous,1,3.5,50,4,"), "{}", lines[2]);
        assert!(lines[2].ends_with(",no,,R/new:dv2.md@n1;R/old:dv2.md@o1;R/l:list.md@l1"));
        assert!(b.notes.iter().any(|n| n.contains("memory_gib = 4 disagrees")), "{:?}", b.notes);
        assert_eq!(b.counts[&("previous".to_owned(), "Dv2".to_owned())], 1);
    }
}
