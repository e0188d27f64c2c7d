//! The cells of Microsoft's size tables: what a column header means, the numbers a cell
//! holds, and the size name a first cell gives.
//!
//! Every header of the snapshot must be known here: an unknown one stops the generator, so a
//! new page shape is read on purpose, never guessed.

use std::fmt;

/// A catalog column a figure goes to. The remote-storage ones are split by controller when
/// the figure is stored (see `extract`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Col {
    Vcpu,
    MemoryGib,
    TempGib,
    MaxDataDisks,
    CachedIops,
    CachedMbps,
    CacheGib,
    UncIops,
    UncMbps,
    UncBurstIops,
    UncBurstMbps,
    V2Iops,
    V2Mbps,
    V2BurstIops,
    V2BurstMbps,
    NvmeIops,
    NvmeMbps,
    NvmeBurstIops,
    NvmeBurstMbps,
    NvmeV2Iops,
    NvmeV2Mbps,
    NvmeV2BurstIops,
    NvmeV2BurstMbps,
    TempDisks,
    TempIops,
    TempMbps,
    TempWriteIops,
    TempWriteMbps,
    LocalNvmeDisks,
    LocalNvmeDiskGb,
    LocalNvmeIops,
    LocalNvmeMbps,
}

impl Col {
    /// Every figure column, in the CSV's order.
    pub(crate) const ALL: [Col; 32] = [
        Col::Vcpu,
        Col::MemoryGib,
        Col::TempGib,
        Col::MaxDataDisks,
        Col::CachedIops,
        Col::CachedMbps,
        Col::CacheGib,
        Col::UncIops,
        Col::UncMbps,
        Col::UncBurstIops,
        Col::UncBurstMbps,
        Col::V2Iops,
        Col::V2Mbps,
        Col::V2BurstIops,
        Col::V2BurstMbps,
        Col::NvmeIops,
        Col::NvmeMbps,
        Col::NvmeBurstIops,
        Col::NvmeBurstMbps,
        Col::NvmeV2Iops,
        Col::NvmeV2Mbps,
        Col::NvmeV2BurstIops,
        Col::NvmeV2BurstMbps,
        Col::TempDisks,
        Col::TempIops,
        Col::TempMbps,
        Col::TempWriteIops,
        Col::TempWriteMbps,
        Col::LocalNvmeDisks,
        Col::LocalNvmeDiskGb,
        Col::LocalNvmeIops,
        Col::LocalNvmeMbps,
    ];

    /// The CSV header of the column.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Col::Vcpu => "vcpu",
            Col::MemoryGib => "memory_gib",
            Col::TempGib => "temp_gib",
            Col::MaxDataDisks => "max_data_disks",
            Col::CachedIops => "cached_iops",
            Col::CachedMbps => "cached_mbps",
            Col::CacheGib => "cache_gib",
            Col::UncIops => "uncached_iops",
            Col::UncMbps => "uncached_mbps",
            Col::UncBurstIops => "uncached_burst_iops",
            Col::UncBurstMbps => "uncached_burst_mbps",
            Col::V2Iops => "uncached_v2_iops",
            Col::V2Mbps => "uncached_v2_mbps",
            Col::V2BurstIops => "uncached_v2_burst_iops",
            Col::V2BurstMbps => "uncached_v2_burst_mbps",
            Col::NvmeIops => "nvme_uncached_iops",
            Col::NvmeMbps => "nvme_uncached_mbps",
            Col::NvmeBurstIops => "nvme_uncached_burst_iops",
            Col::NvmeBurstMbps => "nvme_uncached_burst_mbps",
            Col::NvmeV2Iops => "nvme_uncached_v2_iops",
            Col::NvmeV2Mbps => "nvme_uncached_v2_mbps",
            Col::NvmeV2BurstIops => "nvme_uncached_v2_burst_iops",
            Col::NvmeV2BurstMbps => "nvme_uncached_v2_burst_mbps",
            Col::TempDisks => "temp_disks",
            Col::TempIops => "temp_iops",
            Col::TempMbps => "temp_mbps",
            Col::TempWriteIops => "temp_write_iops",
            Col::TempWriteMbps => "temp_write_mbps",
            Col::LocalNvmeDisks => "local_nvme_disks",
            Col::LocalNvmeDiskGb => "local_nvme_disk_gb",
            Col::LocalNvmeIops => "local_nvme_iops",
            Col::LocalNvmeMbps => "local_nvme_mbps",
        }
    }

    /// The NVMe-controller twin of a remote-storage column (`None` for the others).
    pub(crate) fn nvme(self) -> Option<Col> {
        Some(match self {
            Col::UncIops => Col::NvmeIops,
            Col::UncMbps => Col::NvmeMbps,
            Col::UncBurstIops => Col::NvmeBurstIops,
            Col::UncBurstMbps => Col::NvmeBurstMbps,
            Col::V2Iops => Col::NvmeV2Iops,
            Col::V2Mbps => Col::NvmeV2Mbps,
            Col::V2BurstIops => Col::NvmeV2BurstIops,
            Col::V2BurstMbps => Col::NvmeV2BurstMbps,
            _ => return None,
        })
    }

    /// The remote-storage groups (base and burst, Premium SSD and v2 / Ultra, per controller):
    /// an IOPS column and its MB/s twin. A garbled group is dropped whole.
    pub(crate) const REMOTE_GROUPS: [(Col, Col); 8] = [
        (Col::UncIops, Col::UncMbps),
        (Col::UncBurstIops, Col::UncBurstMbps),
        (Col::V2Iops, Col::V2Mbps),
        (Col::V2BurstIops, Col::V2BurstMbps),
        (Col::NvmeIops, Col::NvmeMbps),
        (Col::NvmeBurstIops, Col::NvmeBurstMbps),
        (Col::NvmeV2Iops, Col::NvmeV2Mbps),
        (Col::NvmeV2BurstIops, Col::NvmeV2BurstMbps),
    ];

    /// The local figures a garbled remote group repeats (IOPS ones, MB/s ones).
    pub(crate) const LOCAL_IOPS: [Col; 3] = [Col::TempIops, Col::TempWriteIops, Col::LocalNvmeIops];
    pub(crate) const LOCAL_MBPS: [Col; 3] = [Col::TempMbps, Col::TempWriteMbps, Col::LocalNvmeMbps];
}

impl fmt::Display for Col {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one number of a cell is, as its column header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A figure for a column.
    Fig(Col),
    /// The size of one temp disk (the catalog's `temp_gib` is that times the disk count).
    TempDiskSize,
    /// Temp (or cached, in a table with a cache-size column) read IOPS / MB/s.
    TempReadIops,
    TempReadMbps,
    /// Temp write IOPS / MB/s (the headline temp figure when the table has no read column).
    TempWriteIops,
    TempWriteMbps,
    /// A number the catalog does not carry (per-disk IOPS of old tables, cached burst).
    Skip,
}

/// What a whole column is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Header {
    Name,
    Slots(Vec<Slot>),
}

/// A header as compared: footnote marks and `**` gone, spaces collapsed, lower case.
pub(crate) fn normalize_header(h: &str) -> String {
    let mut s = strip_sup(h).replace("**", "").replace("&nbsp;", " ");
    // A footnote glued to a closing parenthesis: `Temp Disk Random Read (RR)1 IOPS`.
    while let Some(i) = s.find(")1").or_else(|| s.find(")2")).or_else(|| s.find(")3")) {
        s.replace_range(i + 1..i + 2, "");
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ").to_ascii_lowercase()
}

/// Removes `<sup>...</sup>` footnote marks.
pub(crate) fn strip_sup(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("<sup>") {
        out.push_str(&rest[..i]);
        match rest[i..].find("</sup>") {
            Some(j) => rest = &rest[i + j + "</sup>".len()..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// What a column header means; `Err` names a header no rule covers.
pub(crate) fn classify(raw: &str) -> Result<Header, String> {
    use Slot::{Fig, Skip};
    let h = normalize_header(raw);
    let has = |w: &str| h.contains(w);
    let one = |s: Slot| Ok(Header::Slots(vec![s]));
    let many = |v: Vec<Slot>| Ok(Header::Slots(v));
    let iops = has("iops");
    let mbps = has("throughput") || has("speed") || has("mb/s") || has("mbps");

    if matches!(h.as_str(), "size" | "size name" | "size – size\\name") {
        return Ok(Header::Name);
    }
    if h.starts_with("vcpu") {
        return one(Fig(Col::Vcpu));
    }
    if h.starts_with("memory") {
        return one(Fig(Col::MemoryGib));
    }
    // Old single tables: several numbers in one cell.
    if h.starts_with("max cached and temp storage throughput") {
        return many(vec![Fig(Col::CachedIops), Fig(Col::CachedMbps), Fig(Col::CacheGib)]);
    }
    if h.starts_with("max burst cached and temp storage throughput") {
        return many(vec![Skip, Skip]);
    }
    if h.starts_with("max temp storage throughput") {
        return if has("write mbps") {
            many(vec![Fig(Col::TempIops), Fig(Col::TempMbps), Fig(Col::TempWriteMbps)])
        } else {
            many(vec![Fig(Col::TempIops), Fig(Col::TempMbps)])
        };
    }
    if h == "max data disks/throughput: iops" {
        return many(vec![Fig(Col::MaxDataDisks), Skip]);
    }
    if matches!(h.as_str(), "max data disk throughput: iops" | "throughput: iops")
        || h.starts_with("max. iops")
    {
        // Per-disk figures of Standard HDD sizes (`4x500`), not a VM limit.
        return one(Skip);
    }
    if h.contains("throughput: iops") || h.contains("throughput (iops/mbps)") {
        let burst = has("burst");
        let v2 = has("ultra") || has("v2");
        if has("uncached") {
            let (i, m) = match (burst, v2) {
                (false, false) => (Col::UncIops, Col::UncMbps),
                (true, false) => (Col::UncBurstIops, Col::UncBurstMbps),
                (false, true) => (Col::V2Iops, Col::V2Mbps),
                (true, true) => (Col::V2BurstIops, Col::V2BurstMbps),
            };
            return many(vec![Fig(i), Fig(m)]);
        }
    }
    // Counts and sizes.
    if matches!(
        h.as_str(),
        "max data disks"
            | "max remote storage disks (qty.)"
            | "max remote storage disks"
            | "max remote storage (qty.)"
            | "max. data disks (1023 gb each)"
    ) {
        return one(Fig(Col::MaxDataDisks));
    }
    if matches!(
        h.as_str(),
        "max temp storage disks (qty.)" | "temp storage disks" | "max temp storage (qty.)"
    ) {
        return one(Fig(Col::TempDisks));
    }
    if matches!(
        h.as_str(),
        "temp disk size (gib)"
            | "temp disk size (gb)"
            | "temp storage size (gib)"
            | "temp storage (gib)"
            | "temp storage (ssd) gib"
            | "temp storage (hdd): gib"
            | "max temporary disk size"
    ) {
        return one(Slot::TempDiskSize);
    }
    if matches!(h.as_str(), "disk cache size (gib)" | "max temp disk cache size (gib)") {
        return one(Fig(Col::CacheGib));
    }
    if h == "max nvme disks (qty.)" {
        return one(Fig(Col::LocalNvmeDisks));
    }
    if h.starts_with("nvme disk size") {
        return one(Fig(Col::LocalNvmeDiskGb));
    }
    if h.starts_with("nvme disk") && iops {
        return one(Fig(Col::LocalNvmeIops));
    }
    if h.starts_with("nvme disk") && mbps {
        return one(Fig(Col::LocalNvmeMbps));
    }
    // Local storage tabs.
    if h.starts_with("cached disk random read") {
        if iops {
            return one(Fig(Col::CachedIops));
        }
        if mbps {
            return one(Fig(Col::CachedMbps));
        }
    }
    if h.starts_with("max temp disk burst") {
        // The cached-and-temp burst of the M series: no column for it.
        return one(Skip);
    }
    let temp = h.starts_with("temp ") || h.starts_with("max temp ");
    if temp {
        let write = has("write") && !has("readwrite");
        let readwrite = has("readwrite");
        let read = has("read") && !write && !readwrite;
        let slot = match (read, write || readwrite, iops, mbps) {
            (true, _, true, _) => Slot::TempReadIops,
            (true, _, false, true) => Slot::TempReadMbps,
            (false, true, true, _) => Slot::TempWriteIops,
            (false, true, false, true) => Slot::TempWriteMbps,
            _ => return Err(format!("unknown column `{raw}`")),
        };
        return one(slot);
    }
    // Remote storage tabs: one figure a column.
    if has("uncached") && (iops || mbps) {
        let burst = has("burst");
        let v2 = has("ultra") || has("v2");
        let col = match (burst, v2, iops) {
            (false, false, true) => Col::UncIops,
            (false, false, false) => Col::UncMbps,
            (true, false, true) => Col::UncBurstIops,
            (true, false, false) => Col::UncBurstMbps,
            (false, true, true) => Col::V2Iops,
            (false, true, false) => Col::V2Mbps,
            (true, true, true) => Col::V2BurstIops,
            (true, true, false) => Col::V2BurstMbps,
        };
        return one(Fig(col));
    }
    Err(format!("unknown column `{raw}`"))
}

/// A number of a cell, with the unit written after it (`768 MB`, `1.92`, `4x500`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Num {
    pub(crate) value: f64,
    pub(crate) unit: Unit,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Unit {
    None,
    Mb,
    Gb,
    /// `4x500`: a count times a per-disk figure.
    Times(f64),
}

/// The numbers of a cell, in order. Empty for `N/A`, `-` and empty cells. Thousands
/// separators (`1,488`, `2, 000`), millions (`1.5M`), units (`768 MB`, `1.75 GB`, `20 GB`,
/// `GiB`) and `NxM` products are read; separators between numbers are `/`, parentheses and
/// spaces. Anything else is an error naming the cell.
pub(crate) fn numbers(cell: &str) -> Result<Vec<Num>, String> {
    let s = strip_sup(cell).replace("&nbsp;", " ").replace("**", "");
    let t = s.trim();
    if matches!(t, "" | "-" | "–" | "—" | "N/A" | "NA" | "n/a") {
        return Ok(Vec::new());
    }
    let b = t.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let bad = || format!("cannot read the cell `{cell}`");
    while i < b.len() {
        let c = b[i];
        if c == b'/' || c == b'(' || c == b')' || c == b' ' {
            i += 1;
            continue;
        }
        if !c.is_ascii_digit() {
            return Err(bad());
        }
        // Digits with thousands separators (`,` or `, ` before exactly three digits).
        let mut digits = String::new();
        loop {
            while i < b.len() && b[i].is_ascii_digit() {
                digits.push(b[i] as char);
                i += 1;
            }
            if i < b.len() && b[i] == b',' {
                let mut j = i + 1;
                if j < b.len() && b[j] == b' ' {
                    j += 1;
                }
                let three = j + 3 <= b.len()
                    && b[j..j + 3].iter().all(u8::is_ascii_digit)
                    && (j + 3 == b.len() || !b[j + 3].is_ascii_digit());
                if three {
                    i = j;
                    continue;
                }
                return Err(bad());
            }
            break;
        }
        if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
            digits.push('.');
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                digits.push(b[i] as char);
                i += 1;
            }
        }
        let mut value: f64 = digits.parse().map_err(|_| bad())?;
        let mut unit = Unit::None;
        // Suffixes: `M` (millions), `xN`, units after an optional space.
        let rest = &t[i..];
        let trimmed = rest.trim_start();
        let skipped = rest.len() - trimmed.len();
        if rest.starts_with('M') && !rest.starts_with("MB") {
            value *= 1_000_000.0;
            i += 1;
        } else if let Some(r) = rest.strip_prefix('x') {
            let n: String = r.chars().take_while(char::is_ascii_digit).collect();
            let f: f64 = n.parse().map_err(|_| bad())?;
            unit = Unit::Times(f);
            i += 1 + n.len();
        } else if trimmed.starts_with("MB") {
            unit = Unit::Mb;
            i += skipped + 2;
        } else if trimmed.starts_with("GiB") {
            unit = Unit::Gb;
            i += skipped + 3;
        } else if trimmed.starts_with("GB") {
            unit = Unit::Gb;
            i += skipped + 2;
        }
        out.push(Num { value, unit });
    }
    Ok(out)
}

/// A size name as a first cell gives it: `Standard_L80s_v2` from `Standard_L80s_v26`
/// (footnote 6), `Standard_B1ls` from `Standard_B1ls2`, `Basic_A0` from `A0\Basic_A0`,
/// `Standard_E2a_v4` from `Standard\_E2a\_v4`. `None` when the cell names no size.
pub(crate) fn size_name(cell: &str) -> Option<String> {
    let s = strip_sup(cell).replace("\\_", "_").replace("&nbsp;", " ").replace("**", "");
    let s = s.trim();
    let s = match s.rsplit_once('\\') {
        Some((_, b)) => b.trim(),
        None => s,
    };
    if !(s.starts_with("Standard_") || s.starts_with("Basic_")) {
        return None;
    }
    if s.contains(char::is_whitespace) {
        return None;
    }
    let mut name = s.to_owned();
    // A footnote glued to the version: no series has a two-digit version.
    if let Some(i) = name.rfind("_v") {
        let v = &name[i + 2..];
        if v.len() > 1 && v.bytes().all(|c| c.is_ascii_digit()) {
            name.truncate(i + 3);
        }
    } else {
        // A footnote glued to a name without a version: digits after the feature letters.
        let b = name.as_bytes();
        let mut end = b.len();
        while end > 0 && b[end - 1].is_ascii_digit() {
            end -= 1;
        }
        if end < b.len() && end > 0 && b[end - 1].is_ascii_lowercase() {
            name.truncate(end);
        }
    }
    Some(name)
}

#[cfg(test)]
#[allow(clippy::float_cmp)]
mod tests {
    use super::*;

    fn n(cell: &str) -> Vec<f64> {
        numbers(cell).unwrap().iter().map(|x| x.value).collect()
    }

    #[test]
    fn cells_of_every_shape() {
        assert_eq!(n("4000/32 (43)"), [4000.0, 32.0, 43.0]);
        assert_eq!(n("3000/46/23"), [3000.0, 46.0, 23.0]);
        assert_eq!(n("96000 / 1000 (500)"), [96000.0, 1000.0, 500.0]);
        assert_eq!(n("5000/ 125"), [5000.0, 125.0]);
        assert_eq!(n("1,488"), [1488.0]);
        assert_eq!(n("2, 000"), [2000.0]);
        assert_eq!(n("160, 000"), [160_000.0]);
        assert_eq!(n("1.5M"), [1_500_000.0]);
        assert_eq!(n("218.75"), [218.75]);
        assert_eq!(n("N/A"), Vec::<f64>::new());
        assert_eq!(n(""), Vec::<f64>::new());
        let v = numbers("4/4x500").unwrap();
        assert_eq!(v[0].value, 4.0);
        assert_eq!(v[1].unit, Unit::Times(500.0));
        assert_eq!(numbers("768 MB").unwrap()[0].unit, Unit::Mb);
        assert_eq!(numbers("1.75 GB").unwrap()[0], Num { value: 1.75, unit: Unit::Gb });
        assert_eq!(numbers("20 GB").unwrap()[0].value, 20.0);
        assert!(numbers("16000+").is_err());
        assert!(numbers("about 5").is_err());
        assert!(numbers("1,50").is_err());
    }

    #[test]
    fn names_lose_footnotes_and_escapes() {
        assert_eq!(size_name("Standard_L80s_v26").as_deref(), Some("Standard_L80s_v2"));
        assert_eq!(size_name("Standard_E104id_v52").as_deref(), Some("Standard_E104id_v5"));
        assert_eq!(size_name("Standard_B1ls2").as_deref(), Some("Standard_B1ls"));
        assert_eq!(size_name("Standard_B1ls<sup>2</sup>").as_deref(), Some("Standard_B1ls"));
        assert_eq!(size_name("A0\\Basic_A0").as_deref(), Some("Basic_A0"));
        assert_eq!(size_name("Standard\\_E2a\\_v4").as_deref(), Some("Standard_E2a_v4"));
        assert_eq!(size_name("  Standard_M416s_8_v2 ").as_deref(), Some("Standard_M416s_8_v2"));
        assert_eq!(size_name("Standard_A11").as_deref(), Some("Standard_A11"));
        assert_eq!(size_name("Standard_M64").as_deref(), Some("Standard_M64"));
        assert_eq!(size_name("Feature name"), None);
    }

    #[test]
    fn headers_of_every_shape() {
        use Slot::*;
        let s = |h: &str| match classify(h).unwrap() {
            Header::Slots(v) => v,
            Header::Name => vec![],
        };
        assert_eq!(classify("Size Name").unwrap(), Header::Name);
        assert_eq!(
            s("Max cached and temp storage throughput: IOPS/MBps (cache size in GiB)"),
            [Fig(Col::CachedIops), Fig(Col::CachedMbps), Fig(Col::CacheGib)]
        );
        assert_eq!(
            s("Max temp storage throughput: IOPS / Read MBps / Write MBps"),
            [Fig(Col::TempIops), Fig(Col::TempMbps), Fig(Col::TempWriteMbps)]
        );
        assert_eq!(s("Max data disks/throughput: IOPS"), [Fig(Col::MaxDataDisks), Skip]);
        assert_eq!(
            s("Max burst uncached Ultra Disk and Premium SSD v2 throughput: IOPS/MBps"),
            [Fig(Col::V2BurstIops), Fig(Col::V2BurstMbps)]
        );
        assert_eq!(s("Uncached Premium SSD Burst<sup>1</sup> IOPS"), [Fig(Col::UncBurstIops)]);
        assert_eq!(
            s("Uncached Premium Uncached Premium SSD Burst<sup>1</sup> Throughput (MB/s)"),
            [Fig(Col::UncBurstMbps)]
        );
        assert_eq!(
            s("Uncached Burst<sup>1</sup> Ultra Disk and Premium SSD v2 Disk Throughput (MBps)"),
            [Fig(Col::V2BurstMbps)]
        );
        assert_eq!(s("Uncached Storage Speed (MBps)"), [Fig(Col::UncMbps)]);
        assert_eq!(s("Temp Disk Random Read (RR)1 IOPS"), [TempReadIops]);
        assert_eq!(s("Temp ReadOnly Disk Speed (MBps)<sup>2</sup>"), [TempReadMbps]);
        assert_eq!(s("Temp ReadWrite Disk IOPS"), [TempWriteIops]);
        assert_eq!(s("Temp Disk Sequential Write Throughpit (MBps)"), [TempWriteMbps]);
        assert_eq!(s("Temp Disk Sequential ReadThroughput (MBps)"), [TempReadMbps]);
        assert_eq!(s("Max Temp Disk Cache Size (GiB)"), [Fig(Col::CacheGib)]);
        assert_eq!(s("NVMe Disk Size (TiB)"), [Fig(Col::LocalNvmeDiskGb)]);
        assert_eq!(s("MAX Temp Storage Disks (Qty.)"), [Fig(Col::TempDisks)]);
        assert!(classify("Max NICs (Qty.)").is_err());
    }
}
