//! One snapshot page -> the facts it states for each size.
//!
//! The shapes handled, all met on Microsoft's pages (see the snapshot's README):
//! - tabbed pages (Basics / Local storage / Remote storage) and old single tables whose cells
//!   hold several numbers (`4000/32 (43)`, `3000/46/23`);
//! - remote figures per controller under headings marked `(NVMe)` / `(SCSI)`, at any level
//!   (`## Sizes in series (NVMe)` covers the whole page);
//! - feature statements before the tables (per section on old pages) or after them (the
//!   feature table at the end of newer pages), `Supported (except for L96s_v4)`;
//! - footnotes glued to names (`Standard_L80s_v26`), duplicated rows, a leading empty cell;
//! - rows of a storage table that name a size the page's Basics table does not have (a table
//!   pasted from another series): dropped;
//! - a local-storage table with a cache-size column: its read figures are the cached limit
//!   (Dsv3, the M series);
//! - a remote-storage group (IOPS and MB/s) that repeats the size's own local figures (the
//!   temp-disk numbers pasted into the uncached columns of E192ids_v6, the local NVMe numbers
//!   in the Premium SSD v2 columns of Lsv2): dropped as garbled.
//!
//! What was dropped or normalized is returned as notes, which `xtask catalog` prints.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Result, anyhow, bail};

use super::cells::{Col, Header, Slot, Unit, classify, numbers, size_name};
use super::page::{Feature, Item, Page, Table};

/// Which controller a table's remote figures are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Controller {
    /// Not said: the size's only published figures (SCSI on sizes that publish both).
    Unmarked,
    Scsi,
    Nvme,
}

/// A table the manifest tells the generator to skip, with why.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Ignore {
    /// The page, relative to the snapshot folder.
    pub(crate) file: String,
    /// The tab the table sits under, as its heading names it (`Local Storage`).
    pub(crate) tab: String,
    /// Columns (CSV names) still read from the table: those the garbling spares.
    #[serde(default)]
    pub(crate) keep: Vec<String>,
    pub(crate) reason: String,
}

/// What one page states for one size.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SizeFacts {
    pub(crate) figures: BTreeMap<Col, f64>,
    pub(crate) premium_storage: Option<bool>,
    pub(crate) host_caching: Option<bool>,
}

/// What one page states, by size name.
#[derive(Debug, Clone, Default)]
pub(crate) struct PageFacts {
    pub(crate) source: String,
    pub(crate) sizes: BTreeMap<String, SizeFacts>,
    /// What was dropped or normalized, one line each.
    pub(crate) notes: Vec<String>,
}

/// Per size and controller, while a page is read.
#[derive(Debug, Default)]
struct Raw {
    common: BTreeMap<Col, f64>,
    remote: BTreeMap<Controller, BTreeMap<Col, f64>>,
    premium_storage: Option<bool>,
    host_caching: Option<bool>,
}

fn tab_of(heading: &str) -> Option<&str> {
    let rest = heading.strip_prefix('[')?;
    let (name, link) = rest.split_once(']')?;
    link.contains("#tab").then_some(name.trim())
}

fn controller_of(heading: &str) -> Option<Controller> {
    let h = heading.to_ascii_lowercase();
    if h.contains("(nvme)") {
        Some(Controller::Nvme)
    } else if h.contains("(scsi)") {
        Some(Controller::Scsi)
    } else {
        None
    }
}

/// `Supported`, `Not Supported`, `Supported (except for L96s_v4)` for one size.
fn feature_value(value: &str, size: &str) -> Result<bool> {
    let short = size.strip_prefix("Standard_").unwrap_or(size);
    match value {
        "Supported" => Ok(true),
        "Not Supported" => Ok(false),
        v => {
            let inner = v
                .strip_prefix("Supported (except for ")
                .and_then(|r| r.strip_suffix(')'))
                .ok_or_else(|| anyhow!("cannot read the feature value `{v}`"))?;
            let except = inner.split(',').map(str::trim).any(|n| n == short || n == size);
            Ok(!except)
        }
    }
}

pub(crate) fn extract(page: &Page, file: &str, ignores: &[Ignore]) -> Result<PageFacts> {
    let mut notes = Vec::new();
    let ctx = |line: usize| format!("{file}:{line}");

    // The sizes of the page: the names of its tables with a vCPU column.
    let mut basics: BTreeSet<String> = BTreeSet::new();
    for item in &page.items {
        if let Item::Table(t) = item {
            let headers: Vec<Header> = t
                .header
                .iter()
                .map(|h| classify(h).map_err(|e| anyhow!("{}: {e}", ctx(t.line))))
                .collect::<Result<_>>()?;
            if headers.contains(&Header::Slots(vec![Slot::Fig(Col::Vcpu)])) {
                for r in &t.rows {
                    if let Some(n) =
                        r.cells.iter().find(|c| !c.is_empty()).and_then(|c| size_name(c))
                    {
                        basics.insert(n);
                    }
                }
            }
        }
    }

    let mut raw: BTreeMap<String, Raw> = BTreeMap::new();
    // Open headings (level, text) above the current item.
    let mut open: Vec<(usize, String)> = Vec::new();
    let no_local = page.items.iter().any(|i| matches!(i, Item::NoLocalStorage));
    for (k, item) in page.items.iter().enumerate() {
        let t = match item {
            Item::Heading { level, text } => {
                open.retain(|(l, _)| l < level);
                open.push((*level, text.clone()));
                continue;
            }
            Item::Table(t) => t,
            _ => continue,
        };
        let tab = open.iter().rev().find_map(|(_, h)| tab_of(h)).unwrap_or("");
        let ignore = ignores.iter().find(|i| i.file == file && i.tab.eq_ignore_ascii_case(tab));
        let keep: Option<Vec<Col>> = match ignore {
            Some(ig) if ig.keep.is_empty() => {
                notes.push(format!("{}: table under `{tab}` skipped: {}", ctx(t.line), ig.reason));
                continue;
            }
            Some(ig) => {
                notes.push(format!(
                    "{}: table under `{tab}` read for {} only: {}",
                    ctx(t.line),
                    ig.keep.join(", "),
                    ig.reason
                ));
                Some(
                    ig.keep
                        .iter()
                        .map(|k| {
                            Col::ALL
                                .into_iter()
                                .find(|c| c.name() == k)
                                .ok_or_else(|| anyhow!("manifest: no column `{k}`"))
                        })
                        .collect::<Result<_>>()?,
                )
            }
            None => None,
        };
        let controller =
            open.iter().rev().find_map(|(_, h)| controller_of(h)).unwrap_or(Controller::Unmarked);
        let premium = feature_for(page, k, Feature::PremiumStorage);
        let caching = feature_for(page, k, Feature::PremiumCaching);
        read_table(
            t,
            file,
            controller,
            &basics,
            premium,
            caching,
            keep.as_deref(),
            &mut raw,
            &mut notes,
        )?;
    }

    let mut sizes = BTreeMap::new();
    for (name, r) in raw {
        let mut figures = r.common.clone();
        let plain = r.remote.get(&Controller::Scsi).or_else(|| r.remote.get(&Controller::Unmarked));
        if r.remote.contains_key(&Controller::Scsi) && r.remote.contains_key(&Controller::Unmarked)
        {
            bail!("{file}: {name} has remote figures both for SCSI and without a controller");
        }
        let nvme = r.remote.get(&Controller::Nvme);
        if let Some(p) = plain.or(nvme) {
            figures.extend(p.iter().map(|(c, v)| (*c, *v)));
        }
        if let Some(n) = nvme {
            for (c, v) in n {
                if let Some(nc) = c.nvme() {
                    figures.insert(nc, *v);
                }
            }
        }
        if no_local && !figures.contains_key(&Col::TempGib) {
            figures.insert(Col::TempGib, 0.0);
        }
        drop_garbled(&name, file, &mut figures, &mut notes);
        sizes.insert(
            name,
            SizeFacts { figures, premium_storage: r.premium_storage, host_caching: r.host_caching },
        );
    }
    Ok(PageFacts { source: page.source.clone(), sizes, notes })
}

/// The feature statement that covers the item at `k`: the last one before it, else the
/// first one after it (a feature table at the end of the page).
fn feature_for(page: &Page, k: usize, which: Feature) -> Option<(String, usize)> {
    let pick = |item: &Item| match item {
        Item::Feature { feature, value, line } if *feature == which => Some((value.clone(), *line)),
        _ => None,
    };
    page.items[..k].iter().rev().find_map(pick).or_else(|| page.items[k..].iter().find_map(pick))
}

#[allow(clippy::too_many_arguments)]
fn read_table(
    t: &Table,
    file: &str,
    controller: Controller,
    basics: &BTreeSet<String>,
    premium: Option<(String, usize)>,
    caching: Option<(String, usize)>,
    keep: Option<&[Col]>,
    raw: &mut BTreeMap<String, Raw>,
    notes: &mut Vec<String>,
) -> Result<()> {
    let ctx = |line: usize| format!("{file}:{line}");
    let headers: Vec<Header> = t
        .header
        .iter()
        .map(|h| classify(h).map_err(|e| anyhow!("{}: {e}", ctx(t.line))))
        .collect::<Result<_>>()?;
    if headers.first() != Some(&Header::Name) {
        bail!("{}: the first column is not the size name", ctx(t.line));
    }
    let slots: Vec<&Slot> = headers
        .iter()
        .filter_map(|h| match h {
            Header::Slots(v) => Some(v.iter()),
            Header::Name => None,
        })
        .flatten()
        .collect();
    let cached = slots.contains(&&Slot::Fig(Col::CacheGib));
    let has_read = slots.iter().any(|s| matches!(s, Slot::TempReadIops | Slot::TempReadMbps));
    let is_basics = slots.contains(&&Slot::Fig(Col::Vcpu));

    for row in &t.rows {
        let mut cells = row.cells.clone();
        if cells.len() == headers.len() + 1 && cells[0].is_empty() {
            cells.remove(0);
        }
        while cells.len() > headers.len() && cells.last().is_some_and(String::is_empty) {
            cells.pop();
        }
        if cells.len() != headers.len() {
            bail!(
                "{}: {} cells where the header has {}",
                ctx(row.line),
                cells.len(),
                headers.len()
            );
        }
        let name = size_name(&cells[0])
            .ok_or_else(|| anyhow!("{}: `{}` is not a size name", ctx(row.line), cells[0]))?;
        if name != cells[0].trim() && !cells[0].contains("\\_") {
            notes.push(format!("{}: `{}` read as {name}", ctx(row.line), cells[0]));
        }
        if !is_basics && !basics.is_empty() && !basics.contains(&name) {
            notes.push(format!(
                "{}: {name} is not in the page's Basics table: row dropped",
                ctx(row.line)
            ));
            continue;
        }
        let mut figs: Vec<(Col, f64)> = Vec::new();
        let mut temp_size = None;
        for (h, cell) in headers.iter().zip(&cells).skip(1) {
            let Header::Slots(slots) = h else { continue };
            let nums = numbers(cell).map_err(|e| anyhow!("{}: {e}", ctx(row.line)))?;
            if nums.is_empty() {
                continue;
            }
            if nums.len() != slots.len() {
                bail!(
                    "{}: `{cell}` holds {} numbers where its column has {}",
                    ctx(row.line),
                    nums.len(),
                    slots.len()
                );
            }
            for (slot, num) in slots.iter().zip(nums) {
                let v = match num.unit {
                    Unit::Mb => num.value / 1024.0,
                    Unit::Times(_) if *slot != Slot::Skip => {
                        bail!("{}: `{cell}` is a per-disk product", ctx(row.line))
                    }
                    _ => num.value,
                };
                let col = match slot {
                    Slot::Skip => continue,
                    Slot::TempDiskSize => {
                        temp_size = Some(v);
                        continue;
                    }
                    Slot::Fig(Col::LocalNvmeDiskGb) => {
                        figs.push((Col::LocalNvmeDiskGb, (v * 1000.0).round()));
                        continue;
                    }
                    Slot::Fig(c) => *c,
                    Slot::TempReadIops if cached => Col::CachedIops,
                    Slot::TempReadMbps if cached => Col::CachedMbps,
                    Slot::TempReadIops => Col::TempIops,
                    Slot::TempReadMbps => Col::TempMbps,
                    Slot::TempWriteIops if has_read => Col::TempWriteIops,
                    Slot::TempWriteMbps if has_read => Col::TempWriteMbps,
                    Slot::TempWriteIops => Col::TempIops,
                    Slot::TempWriteMbps => Col::TempMbps,
                };
                figs.push((col, v));
            }
        }
        if let Some(size) = temp_size {
            let count = figs.iter().find(|(c, _)| *c == Col::TempDisks).map_or(1.0, |x| x.1);
            figs.push((Col::TempGib, size * count));
        }
        if let Some(keep) = keep {
            figs.retain(|(c, _)| keep.contains(c));
        }
        let entry = raw.entry(name.clone()).or_default();
        for (col, v) in figs {
            let remote = col.nvme().is_some();
            let slot = if remote {
                entry.remote.entry(controller).or_default()
            } else {
                &mut entry.common
            };
            match slot.get(&col) {
                Some(old) if (old - v).abs() > f64::EPSILON => notes.push(format!(
                    "{}: {name} {col} {v} disagrees with {old} earlier on the page: {old} kept",
                    ctx(row.line)
                )),
                Some(_) => {}
                None => {
                    slot.insert(col, v);
                }
            }
        }
        for (feature, stated, target) in [
            ("Premium Storage", &premium, &mut entry.premium_storage),
            ("Premium Storage caching", &caching, &mut entry.host_caching),
        ] {
            let Some((value, line)) = stated else { continue };
            let v = feature_value(value, &name).map_err(|e| anyhow!("{}: {e}", ctx(*line)))?;
            match target {
                Some(old) if *old != v => notes.push(format!(
                    "{}: {name} {feature} `{value}` disagrees with an earlier statement: kept {old}",
                    ctx(*line)
                )),
                Some(_) => {}
                None => *target = Some(v),
            }
        }
    }
    Ok(())
}

/// Drops a remote group (IOPS and MB/s) when both its figures repeat local figures of the
/// same size (its temp disk or local NVMe disks): cells pasted from the wrong table. One equal
/// figure is a coincidence of round numbers (80,000 IOPS is many sizes' burst and temp IOPS).
fn drop_garbled(name: &str, file: &str, figures: &mut BTreeMap<Col, f64>, notes: &mut Vec<String>) {
    let local = |cols: &[Col]| -> Vec<f64> {
        cols.iter().filter_map(|c| figures.get(c).copied()).filter(|v| *v >= 1000.0).collect()
    };
    let local_iops = local(&Col::LOCAL_IOPS);
    let local_mbps = local(&Col::LOCAL_MBPS);
    for (i, m) in Col::REMOTE_GROUPS {
        let iops = figures.get(&i).copied();
        let mbps = figures.get(&m).copied();
        let same = |x: Option<f64>, pool: &[f64]| {
            x.is_some_and(|x| pool.iter().any(|p| (p - x).abs() < f64::EPSILON))
        };
        if same(iops, &local_iops) && same(mbps, &local_mbps) {
            notes.push(format!(
                "{file}: {name} {i} / {m} = {} / {} repeat the size's local figures: dropped as garbled",
                iops.map_or("-".to_owned(), |v| v.to_string()),
                mbps.map_or("-".to_owned(), |v| v.to_string()),
            ));
            figures.remove(&i);
            figures.remove(&m);
        }
    }
}

#[cfg(test)]
#[allow(clippy::float_cmp)]
mod tests {
    use super::super::page::parse;
    use super::*;

    fn facts(text: &str) -> PageFacts {
        extract(&parse(text).unwrap(), "p.md", &[]).unwrap()
    }

    fn fig(f: &PageFacts, size: &str, col: Col) -> Option<f64> {
        f.sizes.get(size).and_then(|s| s.figures.get(&col).copied())
    }

    const TABBED: &str = "<!-- source: R/r:a.md@c1 -->
## Feature support
[Premium Storage](x): Supported <br>[Premium Storage caching](x): Supported (except for X4s_v9) <br>

### [Basics](#tab/sizebasic)

| Size Name | vCPUs (Qty.) | Memory (GB) |
| --- | --- | --- |
| Standard_X2s_v9 | 2 | 8 |
| Standard_X4s_v9<sup>2</sup> | 4 | 1,024 |

### [Local Storage](#tab/sizestoragelocal)

| Size Name | Max Temp Storage Disks (Qty.) | Temp Disk Size (GiB) | Temp Disk Random Read (RR)<sup>1</sup> IOPS | Temp Disk Random Read (RR)<sup>1</sup> Throughput (MB/s) | Temp Disk Random Write (RW)<sup>1</sup> IOPS | Temp Disk Random Write (RW)<sup>1</sup> Throughput (MB/s) |
| --- | --- | --- | --- | --- | --- | --- |
| Standard_X2s_v9 | 1 | 110 | 37500 | 180 | 15000 | 90 |
| Standard_X4s_v9 | 2 | 110 | 75,000 | 1440 | 30000 | 180 |
| Standard_Y8s_v9 | 2 | 110 | 75,000 | 360 | 30000 | 180 |

### [Remote Storage](#tab/sizestorageremote)

| Size Name | Max Remote Storage Disks (Qty.) | Uncached Premium SSD Disk IOPS | Uncached Premium SSD Throughput (MB/s) | Uncached Premium SSD Burst<sup>1</sup> IOPS | Uncached Premium SSD Burst<sup>1</sup> Throughput (MB/s) | Uncached Ultra Disk and Premium SSD v2 IOPS | Uncached Ultra Disk and Premium SSD v2 Throughput (MB/s) |
| --- | --- | --- | --- | --- | --- | --- | --- |
| Standard_X2s_v9 | 8 | 3750 | 106 | 40000 | 1250 | 4167 | 124 |
| Standard_X2s_v9 | 8 | 3750 | 106 | 40000 | 1250 | 4167 | 124 |
| Standard_X4s_v9 | 12 | 75000 | 1440 | 30000 | 1250 | 8333 | 248 |
";

    #[test]
    fn a_tabbed_page() {
        let f = facts(TABBED);
        assert_eq!(f.source, "R/r:a.md@c1");
        assert_eq!(fig(&f, "Standard_X2s_v9", Col::MemoryGib), Some(8.0));
        assert_eq!(fig(&f, "Standard_X4s_v9", Col::MemoryGib), Some(1024.0));
        // temp size is per disk
        assert_eq!(fig(&f, "Standard_X4s_v9", Col::TempGib), Some(220.0));
        assert_eq!(fig(&f, "Standard_X2s_v9", Col::TempIops), Some(37500.0));
        assert_eq!(fig(&f, "Standard_X2s_v9", Col::TempWriteMbps), Some(90.0));
        assert_eq!(fig(&f, "Standard_X2s_v9", Col::UncIops), Some(3750.0));
        assert_eq!(fig(&f, "Standard_X2s_v9", Col::V2Iops), Some(4167.0));
        assert_eq!(fig(&f, "Standard_X2s_v9", Col::NvmeIops), None);
        assert_eq!(fig(&f, "Standard_X2s_v9", Col::MaxDataDisks), Some(8.0));
        // a row of another series is dropped
        assert!(!f.sizes.contains_key("Standard_Y8s_v9"));
        // a remote pair repeating the size's temp figures is garbled; one equal figure is not
        assert_eq!(fig(&f, "Standard_X4s_v9", Col::UncIops), None);
        assert_eq!(fig(&f, "Standard_X4s_v9", Col::UncMbps), None);
        assert_eq!(fig(&f, "Standard_X4s_v9", Col::UncBurstIops), Some(30000.0));
        assert_eq!(fig(&f, "Standard_X4s_v9", Col::V2Mbps), Some(248.0));
        // features, with an exception
        let x2 = &f.sizes["Standard_X2s_v9"];
        assert_eq!((x2.premium_storage, x2.host_caching), (Some(true), Some(true)));
        assert_eq!(f.sizes["Standard_X4s_v9"].host_caching, Some(false));
        assert!(f.notes.iter().any(|n| n.contains("Standard_Y8s_v9")), "{:?}", f.notes);
        assert!(f.notes.iter().any(|n| n.contains("garbled")), "{:?}", f.notes);
    }

    #[test]
    fn per_controller_tables_and_a_feature_table_at_the_end() {
        let f = facts(
            "<!-- source: R/r:b.md@c2 -->
## Sizes in series

### [Basics](#tab/sizebasic)

| Size Name | vCPUs (Qty.) | Memory (GiB) |
| --- | --- | --- |
| Standard_Z2bs_v9 | 2 | 16 |

### [Remote Storage](#tab/sizestorageremote)

#### Z series (NVMe)

| Size Name | Max Remote Storage Disks (Qty.) | Max Uncached Premium SSD IOPS | Max Uncached Premium SSD Throughput (MB/s) |
| --- | --- | --- | --- |
| Standard_Z2bs_v9 | 4 | 8000 | 230 |

#### Z series (SCSI)

| Size Name | Max Remote Storage Disks (Qty.) | Max Uncached Premium SSD IOPS | Max Uncached Premium SSD Throughput (MB/s) |
| --- | --- | --- | --- |
| Standard_Z2bs_v9 | 4 | 6000 | 170 |

### [Local Storage](#tab/sizestoragelocal)

> No local storage present in this series.

## Feature support

|Feature name | Support status |
| --- | --- |
|[Premium Storage](x)| Supported |
|[Premium Storage caching](x)| Not Supported |
",
        );
        assert_eq!(fig(&f, "Standard_Z2bs_v9", Col::UncIops), Some(6000.0));
        assert_eq!(fig(&f, "Standard_Z2bs_v9", Col::NvmeIops), Some(8000.0));
        assert_eq!(fig(&f, "Standard_Z2bs_v9", Col::NvmeMbps), Some(230.0));
        assert_eq!(fig(&f, "Standard_Z2bs_v9", Col::TempGib), Some(0.0));
        let z = &f.sizes["Standard_Z2bs_v9"];
        assert_eq!((z.premium_storage, z.host_caching), (Some(true), Some(false)));
    }

    #[test]
    fn a_whole_page_for_nvme_fills_both_sets() {
        let f = facts(
            "<!-- source: R/r:c.md@c3 -->
## Sizes in series (NVMe)
### [Basics](#tab/sizebasic)
| Size Name | vCPUs (Qty.) | Memory (GiB) |
| --- | --- | --- |
| Standard_M64bs_v9 | 64 | 1000 |
### [Remote Storage](#tab/sizestorageremote)
| Size Name | Max Remote Storage Disks (Qty.) | Max Uncached Premium SSD IOPS | Max Uncached Premium SSD Throughput (MB/s) |
| --- | --- | --- | --- |
| Standard_M64bs_v9 | 64 | 40000 | 1000 |
",
        );
        assert_eq!(fig(&f, "Standard_M64bs_v9", Col::UncIops), Some(40000.0));
        assert_eq!(fig(&f, "Standard_M64bs_v9", Col::NvmeIops), Some(40000.0));
        // no statement: no feature figure
        assert_eq!(f.sizes["Standard_M64bs_v9"].premium_storage, None);
    }

    #[test]
    fn old_single_tables_per_section() {
        let f = facts(
            "<!-- source: R/r:d.md@c4 -->
## D-series

Premium Storage:  Not Supported

Premium Storage caching:  Not Supported

| Size | vCPU | Memory: GiB | Temp storage (SSD) GiB | Max temp storage throughput: IOPS/Read MBps/Write MBps | Max data disks/throughput: IOPS |
|---|---|---|---|---|---|
| Standard_D1 | 1 | 3.5 | 50 | 3000/46/23 | 4/4x500 |

### Basic A

Premium Storage:  Not Supported

| Size – Size\\Name | vCPU | Memory | Max temporary disk size | Max. data disks (1023 GB each)| Max. IOPS (300 per disk) |
|---|---|---|---|---|---|
| A0\\Basic_A0 | 1 | 768 MB  | 20 GB  | 1  | 1x300  |

## DS-series

Premium Storage:  Supported

Premium Storage caching:  Supported

| Size | vCPU | Memory: GiB | Temp storage (SSD) GiB | Max data disks | Max cached and temp storage throughput: IOPS/MBps (cache size in GiB) | Max uncached disk throughput: IOPS/MBps |
|---|---|---|---|---|---|---|
|| Standard_DS1 | 1 | 3.5 | 7 | 4 | 4000/32 (43) | 3200/32 |
",
        );
        assert_eq!(fig(&f, "Standard_D1", Col::TempMbps), Some(46.0));
        assert_eq!(fig(&f, "Standard_D1", Col::TempWriteMbps), Some(23.0));
        assert_eq!(fig(&f, "Standard_D1", Col::MaxDataDisks), Some(4.0));
        assert_eq!(fig(&f, "Standard_D1", Col::UncIops), None);
        assert_eq!(f.sizes["Standard_D1"].premium_storage, Some(false));
        assert_eq!(fig(&f, "Basic_A0", Col::MemoryGib), Some(0.75));
        assert_eq!(fig(&f, "Basic_A0", Col::TempGib), Some(20.0));
        // carried from the section above: the Basic A section states only premium storage
        assert_eq!(f.sizes["Basic_A0"].host_caching, Some(false));
        assert_eq!(fig(&f, "Standard_DS1", Col::CacheGib), Some(43.0));
        assert_eq!(fig(&f, "Standard_DS1", Col::CachedMbps), Some(32.0));
        assert_eq!(fig(&f, "Standard_DS1", Col::UncMbps), Some(32.0));
        assert_eq!(f.sizes["Standard_DS1"].host_caching, Some(true));
    }

    #[test]
    fn local_tables_with_a_cache_column_and_nvme_disks() {
        let f = facts(
            "<!-- source: R/r:e.md@c5 -->
### [Basics](#tab/sizebasic)
| Size Name | vCPUs (Qty.) | Memory (GiB) |
| --- | --- | --- |
| Standard_M8ms | 8 | 218.75 |
| Standard_L8s_v3 | 8 | 64 |
### [Local Storage](#tab/sizestoragelocal)
| Size Name | Max Temp Storage Disks (Qty.) | Temp Disk Size (GiB) | Max Temp Disk Random Read (RR)<sup>1</sup> IOPS | Max Temp Disk Random Read (RR)<sup>1</sup> Throughput (MB/s) | Max Temp Disk Cache Size (GiB) | Max Temp Disk Burst<sup>2</sup> IOPS | Max Temp Disk Burst<sup>2</sup> Throughput (MB/s) |
| --- | --- | --- | --- | --- | --- | --- | --- |
| Standard_M8ms | 1 | 256 | 10,000 | 100 | 793 | 10,000 | 250 |
### [Local storage 2](#tab/sizestoragelocal2)
| Size Name | Max Temp Storage Disks (Qty.) | Temp Disk Size (GiB) | Max NVMe Disks (Qty.) | NVMe Disk Size (TB) | NVMe Disk IOPS | NVMe Disk Throughput (MB/s) |
| --- | --- | --- | --- | --- | --- | --- |
| Standard_L8s_v3  | 1 | 80  | 1  | 1.92 | 1.5M | 2000 |
",
        );
        assert_eq!(fig(&f, "Standard_M8ms", Col::CachedIops), Some(10000.0));
        assert_eq!(fig(&f, "Standard_M8ms", Col::CacheGib), Some(793.0));
        assert_eq!(fig(&f, "Standard_M8ms", Col::TempIops), None);
        assert_eq!(fig(&f, "Standard_L8s_v3", Col::LocalNvmeDiskGb), Some(1920.0));
        assert_eq!(fig(&f, "Standard_L8s_v3", Col::LocalNvmeIops), Some(1_500_000.0));
        assert_eq!(fig(&f, "Standard_L8s_v3", Col::TempGib), Some(80.0));
    }

    #[test]
    fn ignored_tabs_and_errors() {
        let text = "<!-- source: R/r:f.md@c6 -->
### [Basics](#tab/sizebasic)
| Size Name | vCPUs (Qty.) | Memory (GiB) |
| --- | --- | --- |
| Standard_Q2 | 2 | 8 |
### [Local Storage](#tab/l)
| Size Name | Max Temp Storage Disks (Qty.) | Temp Disk Size (GiB) |
| --- | --- | --- |
| Standard_Q2 | 8 | 16 |
";
        let page = parse(text).unwrap();
        let ig = Ignore {
            file: "f.md".into(),
            tab: "local storage".into(),
            keep: vec![],
            reason: "r".into(),
        };
        let f = extract(&page, "f.md", &[ig]).unwrap();
        assert_eq!(fig(&f, "Standard_Q2", Col::TempGib), None);
        assert!(f.notes[0].contains("skipped: r"));
        let ig = Ignore {
            file: "f.md".into(),
            tab: "Local Storage".into(),
            keep: vec!["temp_disks".into()],
            reason: "r".into(),
        };
        let f = extract(&page, "f.md", &[ig]).unwrap();
        assert_eq!(fig(&f, "Standard_Q2", Col::TempDisks), Some(8.0));
        assert_eq!(fig(&f, "Standard_Q2", Col::TempGib), None);
        let bad =
            parse(&text.replace("| Standard_Q2 | 8 | 16 |", "| Standard_Q2 | 8 | 16 | 4 | 5 |"))
                .unwrap();
        assert!(extract(&bad, "f.md", &[]).is_err());
        let unknown = parse(&text.replace("Temp Disk Size (GiB)", "Max NICs")).unwrap();
        let e = extract(&unknown, "f.md", &[]).unwrap_err().to_string();
        assert!(e.contains("unknown column `Max NICs`"), "{e}");
    }
}
