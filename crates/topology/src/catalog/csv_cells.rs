//! Reading the catalog's CSV cells: the column lists, numbers, size ranges and `source` lists.

use std::collections::BTreeMap;

use super::SizeRange;

pub(super) const VM_COLUMNS: &[&str] = &[
    "size",
    "status",
    "vcpu",
    "memory_gib",
    "temp_gib",
    "max_data_disks",
    "cached_iops",
    "cached_mbps",
    "cache_gib",
    "uncached_iops",
    "uncached_mbps",
    "uncached_burst_iops",
    "uncached_burst_mbps",
    "uncached_v2_iops",
    "uncached_v2_mbps",
    "uncached_v2_burst_iops",
    "uncached_v2_burst_mbps",
    "nvme_uncached_iops",
    "nvme_uncached_mbps",
    "nvme_uncached_burst_iops",
    "nvme_uncached_burst_mbps",
    "nvme_uncached_v2_iops",
    "nvme_uncached_v2_mbps",
    "nvme_uncached_v2_burst_iops",
    "nvme_uncached_v2_burst_mbps",
    "temp_disks",
    "temp_iops",
    "temp_mbps",
    "temp_write_iops",
    "temp_write_mbps",
    "local_nvme_disks",
    "local_nvme_disk_gb",
    "local_nvme_iops",
    "local_nvme_mbps",
    "premium_storage",
    "premium_storage_caching",
    "source",
];
pub(super) const DISK_COLUMNS: &[&str] =
    &["sku", "tier", "size_gib", "iops", "mbps", "burst_iops", "burst_mbps", "source"];

pub(super) fn set_f64(
    row: &BTreeMap<&str, &str>,
    col: &str,
    slot: &mut Option<f64>,
) -> Result<(), String> {
    if let Some(v) = row.get(col) {
        let x: f64 =
            v.replace(',', "").parse().map_err(|_| format!("`{col}`: `{v}` is not a number"))?;
        if !x.is_finite() || x < 0.0 {
            return Err(format!("`{col}`: `{v}` is not a figure (finite, not negative)"));
        }
        *slot = Some(x);
    }
    Ok(())
}

pub(super) fn set_u32(
    row: &BTreeMap<&str, &str>,
    col: &str,
    slot: &mut Option<u32>,
) -> Result<(), String> {
    if let Some(v) = row.get(col) {
        *slot = Some(v.parse().map_err(|_| format!("`{col}`: `{v}` is not a whole number"))?);
    }
    Ok(())
}

pub(super) fn set_bool(
    row: &BTreeMap<&str, &str>,
    col: &str,
    slot: &mut Option<bool>,
) -> Result<(), String> {
    if let Some(v) = row.get(col) {
        *slot = Some(match v.to_ascii_lowercase().as_str() {
            "yes" | "true" => true,
            "no" | "false" => false,
            _ => return Err(format!("`{col}`: `{v}` is not yes or no")),
        });
    }
    Ok(())
}

pub(super) fn parse_size(s: &str) -> Result<SizeRange, String> {
    let num = |x: &str| {
        x.trim().parse::<u32>().map_err(|_| format!("`size_gib`: `{s}` is not a size or a range"))
    };
    match s.split_once('-') {
        Some((a, b)) => Ok(SizeRange { min_gib: num(a)?, max_gib: num(b)? }),
        None => {
            let x = num(s)?;
            Ok(SizeRange { min_gib: x, max_gib: x })
        }
    }
}

pub(super) fn apply_source(
    slot: &mut Vec<String>,
    given: Option<&str>,
    origin: Option<String>,
) -> Result<(), String> {
    let given: Vec<String> = given
        .map(|s| s.split(';').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect())
        .unwrap_or_default();
    match origin {
        // A user's row: its file and line first, then what it cites, then what it replaced.
        Some(o) => {
            let mut v = vec![o];
            v.extend(given);
            v.append(slot);
            *slot = v;
        }
        None if given.is_empty() => {
            return Err("empty `source`: every built-in row names its source".to_owned());
        }
        None => *slot = given,
    }
    Ok(())
}
