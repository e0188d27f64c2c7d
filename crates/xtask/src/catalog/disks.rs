//! The snapshot's disk pages -> `disk_skus.csv`. Three table shapes are read, each by its
//! header, and anything else on a disk page is an error naming the file and line:
//! - a size table laid on its side (`| Premium SSD sizes | P1 | P2 ...`, then one row per
//!   figure: size, base and expanded ("performance plus") IOPS and throughput, burst);
//! - the Ultra Disk table (`Disk Size (GiB) | IOPS Cap | Throughput Cap (MB/s)`);
//! - the Premium SSD v2 summary (`Disk Size | Maximum available IOPS | Maximum available
//!   throughput (MB/s)`), one row of ranges, read as a baseline row and a maximum row.
//!
//! Rows come out by kind (Premium SSD, Standard SSD, Standard HDD, each followed by its
//! performance-plus rows, then Premium SSD v2, then Ultra Disk), current pages before the
//! pages `manifest.toml` names as superseded, whose rows keep a suffix and a tier note.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::page::{Item, Table, parse};

/// `disks/manifest.toml`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    #[serde(default)]
    pub(crate) superseded: Vec<Superseded>,
}

/// A page whose figures a newer page replaced: its rows stay, told apart by name and tier.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Superseded {
    pub(crate) file: String,
    /// Added to the tier in parentheses: `Ultra Disk (superseded 2022 doc)`.
    pub(crate) label: String,
    /// Added to the names of its Ultra Disk rows (`Ultra_4GiB_2022`).
    pub(crate) suffix: String,
    /// Added to the names of its Premium SSD v2 rows (`PremiumV2_max_2022preview`).
    pub(crate) premium_v2_suffix: String,
    pub(crate) reason: String,
}

/// The generator's result for the disks: the CSV and what it noted.
#[derive(Debug)]
pub(crate) struct Built {
    pub(crate) csv: String,
    pub(crate) notes: Vec<String>,
}

pub(crate) const HEADER: [&str; 8] =
    ["sku", "tier", "size_gib", "iops", "mbps", "burst_iops", "burst_mbps", "source"];

/// The kinds in the order their rows are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Premium,
    PremiumPlus,
    StandardSsd,
    StandardSsdPlus,
    StandardHdd,
    StandardHddPlus,
    PremiumV2,
    Ultra,
}

impl Kind {
    fn tier(self) -> &'static str {
        match self {
            Kind::Premium => "Premium SSD",
            Kind::PremiumPlus => "Premium SSD (performance plus)",
            Kind::StandardSsd => "Standard SSD",
            Kind::StandardSsdPlus => "Standard SSD (performance plus)",
            Kind::StandardHdd => "Standard HDD",
            Kind::StandardHddPlus => "Standard HDD (performance plus)",
            Kind::PremiumV2 => "Premium SSD v2",
            Kind::Ultra => "Ultra Disk",
        }
    }

    fn plus(self) -> Kind {
        match self {
            Kind::Premium => Kind::PremiumPlus,
            Kind::StandardSsd => Kind::StandardSsdPlus,
            Kind::StandardHdd => Kind::StandardHddPlus,
            k => k,
        }
    }
}

/// One row of the CSV.
#[derive(Debug, Clone, PartialEq)]
struct Sku {
    kind: Kind,
    name: String,
    tier: String,
    size_gib: String,
    iops: Option<f64>,
    mbps: Option<f64>,
    burst_iops: Option<f64>,
    burst_mbps: Option<f64>,
    source: String,
    /// On a superseded page: the name of the current row it was replaced by.
    replaces: Option<String>,
}

/// What a row of a size table laid on its side holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Figure {
    Size,
    Iops,
    Mbps,
    PlusIops,
    PlusMbps,
    BurstIops,
    BurstMbps,
    /// Burst duration, reservation: not a limit.
    Other,
}

fn figure(label: &str) -> Option<Figure> {
    let l = label.trim_start_matches('*').trim().to_ascii_lowercase();
    Some(match l.as_str() {
        "disk size in gib" => Figure::Size,
        "base provisioned iops per disk" | "base iops per disk" | "iops per disk" => Figure::Iops,
        "base provisioned throughput per disk"
        | "base throughput per disk"
        | "throughput per disk" => Figure::Mbps,
        "expanded provisioned iops per disk" | "expanded iops per disk" => Figure::PlusIops,
        "expanded provisioned throughput per disk" | "expanded throughput per disk" => {
            Figure::PlusMbps
        }
        "max burst iops per disk" => Figure::BurstIops,
        "max burst throughput per disk" => Figure::BurstMbps,
        "max burst duration" | "eligible for reservation" => Figure::Other,
        _ => return None,
    })
}

/// The figure of one cell: `Up to 1,500`, `30,000*`, `1,000 MB/s*`, `Up to 60 MB/sec`;
/// `None` for `N/A` and an empty cell. A unit other than MB/s (MiB/s, say) is an error: the
/// catalog's throughput is Azure's MB/s.
fn cell(raw: &str, throughput: bool) -> Result<Option<f64>, String> {
    let t = raw.trim().trim_end_matches('*').trim();
    if t.is_empty() || t.eq_ignore_ascii_case("n/a") {
        return Ok(None);
    }
    let t = t.strip_prefix("Up to ").unwrap_or(t).trim();
    let (number, unit) = match t.find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.')) {
        Some(i) => (&t[..i], t[i..].trim()),
        None => (t, ""),
    };
    let ok_unit = if throughput { matches!(unit, "MB/s" | "MB/sec" | "") } else { unit.is_empty() };
    if !ok_unit {
        return Err(format!("cannot read `{raw}`: the unit `{unit}` is not expected here"));
    }
    number_of(number).map(Some).ok_or_else(|| format!("cannot read `{raw}`"))
}

/// `1,024` -> 1024; thousands separators only between groups of three digits.
fn number_of(s: &str) -> Option<f64> {
    let mut groups = s.split(',');
    let first = groups.next()?;
    if first.is_empty() || (s.contains(',') && first.len() > 3) {
        return None;
    }
    let mut digits = first.to_owned();
    for g in groups {
        if g.len() != 3 || !g.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.push_str(g);
    }
    digits.parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0)
}

/// `2,048-65,536` or `1,024-65,536 (sizes in this range ...)` -> `2048-65536`; `4` -> `4`.
fn size_range(raw: &str) -> Option<String> {
    let t = raw.split('(').next()?.trim();
    let parts: Option<Vec<String>> =
        t.split('-').map(|p| number_of(p.trim()).filter(|v| v.fract() == 0.0).map(fmt)).collect();
    let parts = parts?;
    (parts.len() <= 2 && !parts.is_empty()).then(|| parts.join("-"))
}

/// `1 GiB`, `64 TiBs` -> GiB.
fn gib(raw: &str) -> Option<f64> {
    let t = raw.trim();
    let (n, unit) = t.split_once(' ')?;
    let v = number_of(n.trim())?;
    match unit.trim().trim_end_matches('s') {
        "GiB" => Some(v),
        "TiB" => Some(v * 1024.0),
        _ => None,
    }
}

fn fmt(v: f64) -> String {
    if v.fract() == 0.0 { format!("{}", v as i64) } else { format!("{v}") }
}

fn opt(v: Option<f64>) -> String {
    v.map(fmt).unwrap_or_default()
}

/// The disk pages of the snapshot (paths relative to `dir`), sorted.
fn pages(dir: &Path) -> Result<Vec<String>> {
    let mut files = Vec::new();
    super::build::collect(dir, &mut files)?;
    let mut out: Vec<String> = files
        .iter()
        .map(|f| f.strip_prefix(dir).unwrap_or(f).to_string_lossy().replace('\\', "/"))
        .collect();
    out.sort();
    Ok(out)
}

/// Builds `disk_skus.csv` from the snapshot's `disks` folder.
pub(crate) fn build(dir: &Path) -> Result<Built> {
    let manifest: Manifest = {
        let p = dir.join("manifest.toml");
        let text =
            std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
        toml::from_str(&text).with_context(|| format!("reading {}", p.display()))?
    };
    let files = pages(dir)?;
    for s in &manifest.superseded {
        if !files.contains(&s.file) {
            bail!("disks/manifest.toml: superseded names `{}`, which is not a disk page", s.file);
        }
    }
    // Current pages first, then the superseded ones in the manifest's order.
    let mut ordered: Vec<(&String, Option<&Superseded>)> = files
        .iter()
        .filter(|f| !manifest.superseded.iter().any(|s| s.file == **f))
        .map(|f| (f, None))
        .collect();
    for s in &manifest.superseded {
        if let Some(f) = files.iter().find(|f| **f == s.file) {
            ordered.push((f, Some(s)));
        }
    }
    let mut skus: Vec<(usize, Sku)> = Vec::new();
    let mut notes = Vec::new();
    for (file, superseded) in ordered {
        if let Some(s) = superseded {
            notes.push(format!("disks/{file}: superseded ({}): {}", s.label, s.reason));
        }
        let text = std::fs::read_to_string(dir.join(file))?;
        let page = parse(&text).with_context(|| format!("disks/{file}"))?;
        for item in &page.items {
            let Item::Table(t) = item else { continue };
            let rows = table(t, &page.source, superseded)
                .with_context(|| format!("disks/{file}: the table at line {}", t.line))?;
            for r in rows {
                skus.push((skus.len(), r));
            }
        }
    }
    // A superseded row with the figures of the current row of its name adds nothing (the
    // Premium SSD v2 baseline did not change): it is left out, and said.
    let current: Vec<Sku> = skus.iter().map(|(_, s)| s.clone()).collect();
    skus.retain(|(_, s)| {
        let Some(base) = &s.replaces else { return true };
        let same = current.iter().any(|c| {
            c.name == *base
                && (&c.size_gib, c.iops, c.mbps, c.burst_iops, c.burst_mbps)
                    == (&s.size_gib, s.iops, s.mbps, s.burst_iops, s.burst_mbps)
        });
        if same {
            notes.push(format!(
                "{}: {} left out: the same figures as the current {base}",
                s.source, s.name
            ));
        }
        !same
    });
    // By kind, then in the order read.
    skus.sort_by_key(|(i, s)| (s.kind, *i));
    let mut seen = BTreeMap::new();
    let mut csv = HEADER.join(",");
    csv.push('\n');
    for (_, s) in &skus {
        if let Some(first) = seen.insert(s.name.clone(), s.source.clone()) {
            bail!("the disk SKU {} is stated twice: by {first} and by {}", s.name, s.source);
        }
        let cells = [
            s.name.clone(),
            s.tier.clone(),
            s.size_gib.clone(),
            opt(s.iops),
            opt(s.mbps),
            opt(s.burst_iops),
            opt(s.burst_mbps),
            s.source.clone(),
        ];
        csv.push_str(&cells.join(","));
        csv.push('\n');
    }
    Ok(Built { csv, notes })
}

fn table(t: &Table, source: &str, superseded: Option<&Superseded>) -> Result<Vec<Sku>> {
    let head: Vec<String> = t.header.iter().map(|h| h.trim().to_ascii_lowercase()).collect();
    let tier = |k: Kind| match superseded {
        Some(s) => format!("{} ({})", k.tier(), s.label),
        None => k.tier().to_owned(),
    };
    let sideways = match head.first().map(String::as_str) {
        Some("premium ssd sizes") => Some(Kind::Premium),
        Some("standard ssd sizes") => Some(Kind::StandardSsd),
        Some("standard disk type") => Some(Kind::StandardHdd),
        _ => None,
    };
    if let Some(kind) = sideways {
        if superseded.is_some() {
            bail!("a superseded page's size table: the manifest has no names for its rows");
        }
        return sideways_table(t, kind, source, &tier);
    }
    let cols: Vec<&str> = head.iter().map(String::as_str).collect();
    match cols.as_slice() {
        ["disk size (gib)", "iops cap", "throughput cap (mb/s)"] => {
            let suffix = superseded.map_or("", |s| s.suffix.as_str());
            let mut out = Vec::new();
            for r in &t.rows {
                let [size, iops, mbps] = r.cells.as_slice() else {
                    bail!("line {}: {} cells, 3 expected", r.line, r.cells.len());
                };
                let size = size_range(size)
                    .with_context(|| format!("line {}: the size `{size}`", r.line))?;
                let read = |c: &str, tp: bool| {
                    cell(c, tp).map_err(|e| anyhow::anyhow!("line {}: {e}", r.line))
                };
                out.push(Sku {
                    kind: Kind::Ultra,
                    replaces: superseded.map(|_| format!("Ultra_{size}GiB")),
                    name: format!("Ultra_{size}GiB{suffix}"),
                    tier: tier(Kind::Ultra),
                    size_gib: size,
                    iops: read(iops, false)?,
                    mbps: read(mbps, true)?,
                    burst_iops: None,
                    burst_mbps: None,
                    source: source.to_owned(),
                });
            }
            Ok(out)
        }
        ["disk size", "maximum available iops", "maximum available throughput (mb/s)"] => {
            let suffix = superseded.map_or("", |s| s.premium_v2_suffix.as_str());
            let [r] = t.rows.as_slice() else {
                bail!("{} rows, one expected (the ranges of every size)", t.rows.len());
            };
            premium_v2(r, source, &tier(Kind::PremiumV2), suffix, superseded.is_some())
                .with_context(|| format!("line {}", r.line))
        }
        _ => bail!("a table of no known shape (header `{}`)", t.header.join(" | ")),
    }
}

/// A size table laid on its side: names in the header, one row per figure.
fn sideways_table(
    t: &Table,
    kind: Kind,
    source: &str,
    tier: &dyn Fn(Kind) -> String,
) -> Result<Vec<Sku>> {
    let names: Vec<String> = t.header[1..].iter().map(|n| n.trim().to_owned()).collect();
    if names.iter().any(|n| n.is_empty() || !n.bytes().all(|b| b.is_ascii_alphanumeric())) {
        bail!("the header names no disk sizes: `{}`", t.header.join(" | "));
    }
    let mut by: BTreeMap<&'static str, Vec<Option<f64>>> = BTreeMap::new();
    let mut sizes: Vec<Option<String>> = vec![None; names.len()];
    for r in &t.rows {
        let Some((label, cells)) = r.cells.split_first() else { continue };
        let Some(f) = figure(label) else {
            bail!("line {}: a row of no known figure: `{label}`", r.line);
        };
        if cells.len() > names.len() {
            bail!("line {}: {} cells for {} sizes", r.line, cells.len(), names.len());
        }
        // A shorter row states the first sizes only (the Standard SSD burst rows end at E30).
        let key = match f {
            Figure::Other => continue,
            Figure::Size => {
                for (i, c) in cells.iter().enumerate() {
                    sizes[i] = Some(
                        size_range(c)
                            .with_context(|| format!("line {}: the size `{c}`", r.line))?,
                    );
                }
                continue;
            }
            Figure::Iops => "iops",
            Figure::Mbps => "mbps",
            Figure::PlusIops => "plus_iops",
            Figure::PlusMbps => "plus_mbps",
            Figure::BurstIops => "burst_iops",
            Figure::BurstMbps => "burst_mbps",
        };
        let throughput = matches!(f, Figure::Mbps | Figure::PlusMbps | Figure::BurstMbps);
        let mut values = vec![None; names.len()];
        for (i, c) in cells.iter().enumerate() {
            values[i] = cell(c, throughput).map_err(|e| anyhow::anyhow!("line {}: {e}", r.line))?;
        }
        if by.insert(key, values).is_some() {
            bail!("line {}: the figure `{label}` is stated twice", r.line);
        }
    }
    for need in ["iops", "mbps"] {
        if !by.contains_key(need) {
            bail!("the table states no {need} row");
        }
    }
    let get = |k: &str, i: usize| by.get(k).and_then(|v| v[i]);
    let mut out = Vec::new();
    let mut plus = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let Some(size) = sizes[i].clone() else {
            bail!("{name}: the table states no size");
        };
        out.push(Sku {
            kind,
            name: name.clone(),
            replaces: None,
            tier: tier(kind),
            size_gib: size.clone(),
            iops: get("iops", i),
            mbps: get("mbps", i),
            burst_iops: get("burst_iops", i),
            burst_mbps: get("burst_mbps", i),
            source: source.to_owned(),
        });
        match (get("plus_iops", i), get("plus_mbps", i)) {
            (None, None) => {}
            (Some(iops), Some(mbps)) => plus.push(Sku {
                kind: kind.plus(),
                name: format!("{name}_PerfPlus"),
                replaces: None,
                tier: tier(kind.plus()),
                size_gib: size,
                iops: Some(iops),
                mbps: Some(mbps),
                burst_iops: None,
                burst_mbps: None,
                source: source.to_owned(),
            }),
            _ => bail!("{name}: an expanded IOPS without an expanded throughput, or the reverse"),
        }
    }
    out.extend(plus);
    Ok(out)
}

/// The Premium SSD v2 summary row: `1 GiB-64 TiBs | 3,000-80,000 (Increases by 500 IOPS per
/// GiB) | 125-2,000 (...)`. The baseline row is the low end of each range at any size; the
/// maximum row the high ends, from the smallest size that may have the highest IOPS (its
/// IOPS over the IOPS per GiB: 80,000 / 500 = 160 GiB, as the page's prose says).
fn premium_v2(
    r: &super::page::Row,
    source: &str,
    tier: &str,
    suffix: &str,
    superseded: bool,
) -> Result<Vec<Sku>> {
    let [size, iops, mbps] = r.cells.as_slice() else {
        bail!("{} cells, 3 expected", r.cells.len());
    };
    let range = |c: &str| -> Result<(String, String)> {
        let t = c.split('(').next().unwrap_or_default().trim();
        match t.split_once('-') {
            Some((a, b)) => Ok((a.trim().to_owned(), b.trim().to_owned())),
            None => bail!("`{c}` is not a range"),
        }
    };
    let (lo, hi) = range(size)?;
    let (lo, hi) = match (gib(&lo), gib(&hi)) {
        (Some(a), Some(b)) => (a, b),
        _ => bail!("cannot read the sizes `{size}`"),
    };
    let num =
        |s: &str, what: &str| number_of(s).with_context(|| format!("cannot read the {what} `{s}`"));
    let (iops_lo, iops_hi) = range(iops)?;
    let (iops_lo, iops_hi) = (num(&iops_lo, "IOPS")?, num(&iops_hi, "IOPS")?);
    let (mbps_lo, mbps_hi) = range(mbps)?;
    let (mbps_lo, mbps_hi) = (num(&mbps_lo, "throughput")?, num(&mbps_hi, "throughput")?);
    let per_gib = iops
        .to_ascii_lowercase()
        .split_once("increases by ")
        .and_then(|(_, rest)| rest.split_once(" iops per gib").map(|(n, _)| n.to_owned()))
        .and_then(|n| number_of(&n))
        .filter(|v| *v > 0.0)
        .with_context(|| format!("`{iops}` does not say the IOPS per GiB"))?;
    let smallest = (iops_hi / per_gib).ceil().max(lo);
    let row = |name: &str, size: String, iops, mbps| Sku {
        kind: Kind::PremiumV2,
        replaces: superseded.then(|| name.to_owned()),
        name: format!("{name}{suffix}"),
        tier: tier.to_owned(),
        size_gib: size,
        iops: Some(iops),
        mbps: Some(mbps),
        burst_iops: None,
        burst_mbps: None,
        source: source.to_owned(),
    };
    Ok(vec![
        row("PremiumV2_baseline", format!("{}-{}", fmt(lo), fmt(hi)), iops_lo, mbps_lo),
        row("PremiumV2_max", format!("{}-{}", fmt(smallest), fmt(hi)), iops_hi, mbps_hi),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_of_every_shape_on_the_disk_pages() {
        assert_eq!(cell("Up to 1,500", false), Ok(Some(1500.0)));
        assert_eq!(cell("30,000*", false), Ok(Some(30000.0)));
        assert_eq!(cell("1,000 MB/s*", true), Ok(Some(1000.0)));
        assert_eq!(cell(" Up to 60 MB/sec ", true), Ok(Some(60.0)));
        assert_eq!(cell("N/A", true), Ok(None));
        assert!(cell("Up to 25 MiB/sec", true).is_err(), "MiB/s is not the catalog's unit");
        assert!(cell("25 MB/s", false).is_err(), "a throughput where IOPS belong");
        assert!(cell("1,00", false).is_err());
        assert_eq!(size_range("2,048-65,536"), Some("2048-65536".to_owned()));
        assert_eq!(
            size_range("1,024-65,536 (sizes in this range increasing in increments of 1 TiB)"),
            Some("1024-65536".to_owned())
        );
        assert_eq!(gib("64 TiBs"), Some(65536.0));
        assert_eq!(gib("1 GiB"), Some(1.0));
    }

    fn page_table(text: &str) -> Table {
        let page = parse(&format!("<!-- source: R/x:p.md@c -->\n\n{text}")).unwrap();
        page.items
            .into_iter()
            .find_map(|i| match i {
                Item::Table(t) => Some(t),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn a_sideways_table_with_a_short_burst_row_and_expanded_figures() {
        let t = page_table(
            "| Standard SSD sizes | E20 | E30 |\n|---|---|---|\n| Disk size in GiB | 512 | 1,024 |\n| Base IOPS per disk | Up to 500 | Up to 500 |\n| *Expanded IOPS per disk | N/A | Up to 1,500 |\n| Base throughput per disk | Up to 60 MB/s | Up to 60 MB/s |\n| *Expanded throughput per disk | N/A | Up to 150 MB/s |\n| Max burst IOPS per disk | 600 |\n| Max burst duration | 30 min |\n",
        );
        let rows = table(&t, "R/x:p.md@c", None).unwrap();
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["E20", "E30", "E30_PerfPlus"]);
        assert_eq!(rows[0].burst_iops, Some(600.0));
        assert_eq!(rows[1].burst_iops, None, "the short row states E20 only");
        assert_eq!((rows[2].iops, rows[2].mbps), (Some(1500.0), Some(150.0)));
        assert_eq!(rows[2].tier, "Standard SSD (performance plus)");
    }

    #[test]
    fn an_unknown_row_or_table_is_an_error_naming_it() {
        let t = page_table(
            "| Premium SSD sizes | P1 |\n|---|---|\n| Disk size in GiB | 4 |\n| IOPS per disk | 120 |\n| Throughput per disk | 25 MB/s |\n| Max latency | 2 ms |\n",
        );
        let e = format!("{:#}", table(&t, "s", None).unwrap_err());
        assert!(e.contains("Max latency") && e.contains("line"), "{e}");
        let t = page_table("| Size | IOPS |\n|---|---|\n| 4 | 100 |\n");
        let e = format!("{:#}", table(&t, "s", None).unwrap_err());
        assert!(e.contains("no known shape"), "{e}");
    }

    #[test]
    fn premium_ssd_v2_ranges_give_a_baseline_and_a_maximum() {
        let t = page_table(
            "|Disk Size  |Maximum available IOPS  |Maximum available throughput (MB/s)  |\n|---|---|---|\n|1 GiB-64 TiBs    |3,000-80,000 (Increases by 500 IOPS per GiB)        |125-2,000 (increases by 0.25 MB/s per set IOPS)         |\n",
        );
        let rows = table(&t, "s", None).unwrap();
        assert_eq!(rows[0].name, "PremiumV2_baseline");
        assert_eq!(
            (rows[0].size_gib.as_str(), rows[0].iops, rows[0].mbps),
            ("1-65536", Some(3000.0), Some(125.0))
        );
        assert_eq!(
            (rows[1].size_gib.as_str(), rows[1].iops, rows[1].mbps),
            ("160-65536", Some(80000.0), Some(2000.0))
        );
    }
}
