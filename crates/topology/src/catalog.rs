//! The built-in catalog of Azure VM sizes and managed-disk SKUs.
//!
//! The data are the CSV files in `crates/topology/catalog/`, embedded at build time. Every
//! row keeps the documents it was read from (`source`). An empty cell is a figure Microsoft
//! does not publish for that row: it is `None` here and shown as "not published", never 0.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use advisor_model::limits::{BurstModel, DiskKind};
use rust_embed::RustEmbed;
use serde::Serialize;

use crate::suggest::did_you_mean;

mod csv_cells;
mod vm_size;

use csv_cells::{DISK_COLUMNS, VM_COLUMNS, apply_source, parse_size, set_bool, set_f64, set_u32};
pub(crate) use vm_size::storage_class_of;
pub use vm_size::{CachedGap, RemoteFigures, SizeStatus, VmSize};

#[derive(RustEmbed)]
#[folder = "catalog/"]
#[include = "*.csv"]
struct Embedded;

const VM_FILE: &str = "vm_sizes.csv";
const DISK_FILE: &str = "disk_skus.csv";

/// The built-in catalog files, as `../shared/catalog` names them.
pub const BUILTIN_FILES: [&str; 2] = [VM_FILE, DISK_FILE];

/// The text of a built-in catalog file (`vm_sizes.csv`, `disk_skus.csv`) exactly as it is
/// compiled into the binary; `None` for another name.
pub fn builtin_csv(file: &str) -> Option<String> {
    Embedded::get(file).map(|f| String::from_utf8_lossy(&f.data).into_owned())
}

/// Disks of this size or larger cannot use host caching.
pub const HOST_CACHE_MAX_GIB: f64 = 4096.0;
/// The largest Premium SSD that uses credit-based bursting (P20); larger ones burst on demand.
pub const CREDIT_BURST_MAX_PREMIUM_GIB: f64 = 512.0;

/// The kind a catalog row's tier column names (`Premium SSD v2`, `Standard HDD`, ...).
fn kind_from_tier(tier: &str) -> Option<DiskKind> {
    let t = tier.to_ascii_lowercase();
    if t.starts_with("premium ssd v2") {
        Some(DiskKind::PremiumSsdV2)
    } else if t.starts_with("premium ssd") {
        Some(DiskKind::PremiumSsd)
    } else if t.starts_with("standard ssd") {
        Some(DiskKind::StandardSsd)
    } else if t.starts_with("standard hdd") {
        Some(DiskKind::StandardHdd)
    } else if t.starts_with("ultra") {
        Some(DiskKind::Ultra)
    } else {
        None
    }
}

/// A disk size in GiB, or a range of sizes for the Premium SSD v2 / Ultra rule rows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SizeRange {
    pub min_gib: u32,
    pub max_gib: u32,
}

impl fmt::Display for SizeRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.min_gib == self.max_gib {
            write!(f, "{} GiB", self.min_gib)
        } else {
            write!(f, "{}-{} GiB", self.min_gib, self.max_gib)
        }
    }
}

/// One managed-disk SKU row (or a Premium SSD v2 / Ultra rule row).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiskSku {
    /// `P30`, `E10`, `S4`, `P30_PerfPlus`, `PremiumV2_max`, `Ultra_64GiB`, ...
    pub name: String,
    /// The tier as the CSV states it (`Premium SSD (performance plus)`).
    pub tier: String,
    pub kind: DiskKind,
    /// Limits with performance plus enabled.
    pub perf_plus: bool,
    /// A figure from a superseded document, kept for reference only.
    pub superseded: bool,
    pub size: Option<SizeRange>,
    pub iops: Option<f64>,
    pub mbps: Option<f64>,
    pub burst_iops: Option<f64>,
    pub burst_mbps: Option<f64>,
    pub source: Vec<String>,
}

impl DiskSku {
    /// How this SKU bursts: a fact of its kind and size (disk-bursting.md).
    pub fn burst_model(&self) -> BurstModel {
        if self.burst_iops.is_none() && self.burst_mbps.is_none() {
            return BurstModel::None;
        }
        match (self.kind, self.size) {
            (DiskKind::PremiumSsd, Some(s))
                if f64::from(s.max_gib) > CREDIT_BURST_MAX_PREMIUM_GIB =>
            {
                BurstModel::OnDemand
            }
            (DiskKind::PremiumSsd | DiskKind::StandardSsd, _) => BurstModel::Credit,
            _ => BurstModel::None,
        }
    }

    /// The size in GiB when it is one figure.
    pub fn size_gib(&self) -> Option<f64> {
        self.size.filter(|s| s.min_gib == s.max_gib).map(|s| f64::from(s.max_gib))
    }
}

/// Where a catalog figure went wrong: a CSV cell of the built-in or a user's file.
#[derive(Debug, thiserror::Error)]
#[error("{file}{}: {message}", if *line > 0 { format!(":{line}") } else { String::new() })]
pub struct CatalogError {
    pub file: String,
    pub line: u64,
    pub message: String,
}

/// A name the catalog does not know, with the closest it does.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} \"{name}\"")]
pub struct UnknownName {
    /// `VM size` or `disk SKU`.
    pub what: &'static str,
    pub name: String,
    pub suggestion: Option<String>,
}

impl UnknownName {
    /// The help line a user sees.
    pub fn help(&self) -> String {
        match &self.suggestion {
            Some(s) => format!("did you mean \"{s}\"?"),
            None if self.what == "VM size" => {
                "see `advisor catalog list`, or add the size with --catalog FILE".to_owned()
            }
            None => "see `advisor catalog list`, or add the SKU with --catalog FILE".to_owned(),
        }
    }
}

/// What a disk SKU name in a topology resolves to.
#[derive(Debug, Clone, PartialEq)]
pub enum SkuRef<'a> {
    /// A catalog row with fixed figures (`P30`, `E10`, `S4`, `P30_PerfPlus`, `Ultra_64GiB`).
    Row(&'a DiskSku),
    /// Premium SSD v2 (`PremiumV2`, `PremiumV2_LRS`): figures provisioned per disk.
    PremiumV2,
    /// Ultra Disk (`Ultra`, `UltraSSD_LRS`): figures provisioned per disk.
    Ultra,
}

/// The VM sizes and disk SKUs, keyed case-insensitively.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    vms: BTreeMap<String, VmSize>,
    /// `name:nvme` views of the sizes that publish NVMe-controller figures.
    nvme_views: BTreeMap<String, VmSize>,
    disks: BTreeMap<String, DiskSku>,
}

fn strip_standard(name: &str) -> &str {
    match name.get(..9) {
        Some(p) if p.eq_ignore_ascii_case("standard_") => &name[9..],
        _ => name,
    }
}

/// The lookup key of a VM size: lower case, without `Standard_`. Underscores are kept:
/// `DS13v2` is not `DS13_v2` (and gets a did-you-mean instead).
pub fn vm_key(name: &str) -> String {
    strip_standard(name.trim()).to_ascii_lowercase()
}

/// The lookup key of a disk SKU: lower case, without spaces, `_`, `-` and a redundancy
/// suffix (`P30`, `p30`, `P30_LRS`, `P30 PerfPlus` are one).
pub fn sku_key(name: &str) -> String {
    let mut k: String = name
        .trim()
        .chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    for suffix in ["lrs", "zrs"] {
        if k.len() > suffix.len() && k.ends_with(suffix) {
            k.truncate(k.len() - suffix.len());
        }
    }
    k
}

const PREMIUM_V2_ALIASES: &[&str] = &["premiumv2", "premiumssdv2", "pv2", "premiumv2ssd"];
const ULTRA_ALIASES: &[&str] = &["ultra", "ultrassd", "ultradisk"];

impl Catalog {
    /// The catalog compiled into the binary.
    pub fn builtin() -> Result<Self, CatalogError> {
        let mut cat = Self::default();
        for file in [VM_FILE, DISK_FILE] {
            let data = Embedded::get(file).ok_or_else(|| CatalogError {
                file: file.to_owned(),
                line: 0,
                message: "missing from the built-in catalog".to_owned(),
            })?;
            let text = String::from_utf8_lossy(&data.data);
            cat.merge_csv(&format!("(built-in) {file}"), &text, false)?;
        }
        Ok(cat)
    }

    /// The built-in catalog with a user's file applied (`--catalog FILE`).
    pub fn with_overrides(path: Option<&Path>) -> Result<Self, CatalogError> {
        let mut cat = Self::builtin()?;
        if let Some(path) = path {
            cat.merge_file(path)?;
        }
        Ok(cat)
    }

    /// Reads a CSV of VM sizes (a `size` column) or disk SKUs (a `sku` column) and adds or
    /// overrides rows. Columns may be a subset of the built-in ones; a cell left empty, or a
    /// column left out, keeps the built-in figure of an existing row.
    pub fn merge_file(&mut self, path: &Path) -> Result<(), CatalogError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| CatalogError {
            file: name.clone(),
            line: 0,
            message: format!("cannot read the catalog file: {e}"),
        })?;
        self.merge_csv(&name, &text, true)
    }

    /// As [`Catalog::merge_file`], from text.
    pub fn merge_csv(&mut self, file: &str, text: &str, user: bool) -> Result<(), CatalogError> {
        let err =
            |line: u64, message: String| CatalogError { file: file.to_owned(), line, message };
        let mut rdr = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(text.as_bytes());
        let headers: Vec<String> = rdr
            .headers()
            .map_err(|e| err(1, format!("bad CSV header: {e}")))?
            .iter()
            .map(|h| h.to_ascii_lowercase())
            .collect();
        let is_vm = headers.iter().any(|h| h == "size");
        let is_disk = headers.iter().any(|h| h == "sku");
        let known: &[&str] = match (is_vm, is_disk) {
            (true, false) => VM_COLUMNS,
            (false, true) => DISK_COLUMNS,
            _ => {
                return Err(err(
                    1,
                    "the header needs a `size` column (VM sizes) or a `sku` column (disk SKUs)"
                        .to_owned(),
                ));
            }
        };
        if let Some(bad) = headers.iter().find(|h| !known.contains(&h.as_str())) {
            let hint = did_you_mean(bad, known.iter().copied())
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            return Err(err(
                1,
                format!("unknown column `{bad}`{hint}; known: {}", known.join(", ")),
            ));
        }
        for record in rdr.records() {
            let record = record.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line());
                err(line, format!("bad CSV row: {e}"))
            })?;
            let line = record.position().map_or(0, |p| p.line());
            let row: BTreeMap<&str, &str> = headers
                .iter()
                .map(String::as_str)
                .zip(record.iter())
                .filter(|(_, v)| !v.is_empty())
                .collect();
            let origin = user.then(|| format!("{file}:{line}"));
            let res = if is_vm {
                self.merge_vm_row(&row, origin)
            } else {
                self.merge_disk_row(&row, origin)
            };
            res.map_err(|m| err(line, m))?;
        }
        Ok(())
    }

    fn merge_vm_row(
        &mut self,
        row: &BTreeMap<&str, &str>,
        origin: Option<String>,
    ) -> Result<(), String> {
        let given = row.get("size").ok_or("empty `size`")?.trim().to_string();
        // `X:nvme` rows (the shared catalog's form) give the NVMe-controller figures of X.
        let (given, controller) = match given.split_once(':') {
            Some((n, c)) if c.eq_ignore_ascii_case("nvme") => (n.to_owned(), Some(true)),
            Some((n, c)) if c.eq_ignore_ascii_case("scsi") => (n.to_owned(), Some(false)),
            Some((_, c)) => {
                return Err(format!("`size`: `:{c}` is not a controller (nvme or scsi)"));
            }
            None => (given, None),
        };
        let name = if strip_standard(&given).len() != given.len() {
            given
        } else if given.len() > 6 && given[..6].eq_ignore_ascii_case("basic_") {
            format!("Basic_{}", &given[6..])
        } else {
            format!("Standard_{given}")
        };
        let key = vm_key(&name);
        let mut vm = self.vms.get(&key).cloned().unwrap_or_else(|| VmSize::named(&name));
        if let Some(s) = row.get("status") {
            vm.status = SizeStatus::parse(s)?;
        }
        set_u32(row, "vcpu", &mut vm.vcpu)?;
        set_f64(row, "memory_gib", &mut vm.memory_gib)?;
        set_f64(row, "temp_gib", &mut vm.temp_gib)?;
        set_u32(row, "max_data_disks", &mut vm.max_data_disks)?;
        set_f64(row, "cached_iops", &mut vm.cached_iops)?;
        set_f64(row, "cached_mbps", &mut vm.cached_mbps)?;
        set_f64(row, "cache_gib", &mut vm.cache_gib)?;
        {
            let n = &mut vm.nvme;
            let nvme_row = controller == Some(true);
            let (iops, mbps, biops, bmbps, v2i, v2m, v2bi, v2bm) = if nvme_row {
                (
                    &mut n.iops,
                    &mut n.mbps,
                    &mut n.burst_iops,
                    &mut n.burst_mbps,
                    &mut n.v2_iops,
                    &mut n.v2_mbps,
                    &mut n.v2_burst_iops,
                    &mut n.v2_burst_mbps,
                )
            } else {
                (
                    &mut vm.uncached_iops,
                    &mut vm.uncached_mbps,
                    &mut vm.uncached_burst_iops,
                    &mut vm.uncached_burst_mbps,
                    &mut vm.uncached_v2_iops,
                    &mut vm.uncached_v2_mbps,
                    &mut vm.uncached_v2_burst_iops,
                    &mut vm.uncached_v2_burst_mbps,
                )
            };
            set_f64(row, "uncached_iops", iops)?;
            set_f64(row, "uncached_mbps", mbps)?;
            set_f64(row, "uncached_burst_iops", biops)?;
            set_f64(row, "uncached_burst_mbps", bmbps)?;
            set_f64(row, "uncached_v2_iops", v2i)?;
            set_f64(row, "uncached_v2_mbps", v2m)?;
            set_f64(row, "uncached_v2_burst_iops", v2bi)?;
            set_f64(row, "uncached_v2_burst_mbps", v2bm)?;
        }
        let n = &mut vm.nvme;
        set_f64(row, "nvme_uncached_iops", &mut n.iops)?;
        set_f64(row, "nvme_uncached_mbps", &mut n.mbps)?;
        set_f64(row, "nvme_uncached_burst_iops", &mut n.burst_iops)?;
        set_f64(row, "nvme_uncached_burst_mbps", &mut n.burst_mbps)?;
        set_f64(row, "nvme_uncached_v2_iops", &mut n.v2_iops)?;
        set_f64(row, "nvme_uncached_v2_mbps", &mut n.v2_mbps)?;
        set_f64(row, "nvme_uncached_v2_burst_iops", &mut n.v2_burst_iops)?;
        set_f64(row, "nvme_uncached_v2_burst_mbps", &mut n.v2_burst_mbps)?;
        set_u32(row, "temp_disks", &mut vm.temp_disks)?;
        set_f64(row, "temp_iops", &mut vm.temp_iops)?;
        set_f64(row, "temp_mbps", &mut vm.temp_mbps)?;
        set_f64(row, "temp_write_iops", &mut vm.temp_write_iops)?;
        set_f64(row, "temp_write_mbps", &mut vm.temp_write_mbps)?;
        set_u32(row, "local_nvme_disks", &mut vm.local_nvme_disks)?;
        set_f64(row, "local_nvme_disk_gb", &mut vm.local_nvme_disk_gb)?;
        set_f64(row, "local_nvme_iops", &mut vm.local_nvme_iops)?;
        set_f64(row, "local_nvme_mbps", &mut vm.local_nvme_mbps)?;
        set_bool(row, "premium_storage", &mut vm.premium_storage_stated)?;
        set_bool(row, "premium_storage_caching", &mut vm.premium_caching_stated)?;
        apply_source(&mut vm.source, row.get("source").copied(), origin)?;
        if vm.nvme.any() {
            self.nvme_views.insert(format!("{key}:nvme"), vm.nvme_view());
        }
        self.vms.insert(key, vm);
        Ok(())
    }

    fn merge_disk_row(
        &mut self,
        row: &BTreeMap<&str, &str>,
        origin: Option<String>,
    ) -> Result<(), String> {
        let name = row.get("sku").ok_or("empty `sku`")?.to_string();
        let key = sku_key(&name);
        if PREMIUM_V2_ALIASES.contains(&key.as_str()) || ULTRA_ALIASES.contains(&key.as_str()) {
            return Err(format!(
                "`{name}` is the name of a disk type, not a SKU row; name rows like `PremiumV2_max` or `Ultra_64GiB`"
            ));
        }
        let existing = self.disks.get(&key).cloned();
        let tier = match (row.get("tier"), &existing) {
            (Some(t), _) => t.to_string(),
            (None, Some(d)) => d.tier.clone(),
            (None, None) => return Err(format!("new SKU `{name}` needs a `tier`")),
        };
        let kind = kind_from_tier(&tier).ok_or_else(|| {
            format!("unknown tier `{tier}`: expected Premium SSD, Standard SSD, Standard HDD, Premium SSD v2 or Ultra Disk")
        })?;
        let lower = tier.to_ascii_lowercase();
        let mut d = existing.unwrap_or_else(|| DiskSku {
            name: name.clone(),
            tier: tier.clone(),
            kind,
            perf_plus: false,
            superseded: false,
            size: None,
            iops: None,
            mbps: None,
            burst_iops: None,
            burst_mbps: None,
            source: Vec::new(),
        });
        d.tier = tier.clone();
        d.kind = kind;
        d.perf_plus = lower.contains("performance plus");
        d.superseded = lower.contains("superseded");
        if let Some(s) = row.get("size_gib") {
            d.size = Some(parse_size(s)?);
        }
        set_f64(row, "iops", &mut d.iops)?;
        set_f64(row, "mbps", &mut d.mbps)?;
        set_f64(row, "burst_iops", &mut d.burst_iops)?;
        set_f64(row, "burst_mbps", &mut d.burst_mbps)?;
        apply_source(&mut d.source, row.get("source").copied(), origin)?;
        self.disks.insert(key, d);
        Ok(())
    }

    /// A VM size, matched case-insensitively with or without `Standard_`. `X:nvme` is the
    /// view of X with its NVMe-controller figures as the remote ones (for a size that
    /// publishes them); `X:scsi` is X.
    pub fn vm(&self, name: &str) -> Result<&VmSize, UnknownName> {
        let key = vm_key(name);
        if let Some(v) = self.nvme_views.get(&key) {
            return Ok(v);
        }
        let key = match key.strip_suffix(":scsi") {
            Some(base) => base.to_owned(),
            None => key,
        };
        self.vms.get(&key).ok_or_else(|| UnknownName {
            what: "VM size",
            name: name.to_owned(),
            suggestion: self.suggest_vm(&key),
        })
    }

    /// The size a misspelt name most likely meant, of the same storage class as the name
    /// says (a size without Premium Storage is never "corrected" to one with it, whose
    /// cached and uncached figures would judge disks it cannot attach, nor the reverse).
    fn suggest_vm(&self, key: &str) -> Option<String> {
        let class = storage_class_of(key);
        let same = |v: &VmSize| class.is_none_or(|premium| v.premium_storage() == premium);
        // Same letters, other punctuation (`DS13v2`, `ds13-v2`): the likeliest slip.
        let squash = |s: &str| s.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>();
        let sq = squash(key);
        if let Some(vm) = self.vms.iter().find(|(k, v)| squash(k) == sq && same(v)).map(|(_, v)| v)
        {
            return Some(vm.name.clone());
        }
        let keys = self.vms.iter().filter(|(_, v)| same(v)).map(|(k, _)| k.as_str());
        let best = did_you_mean(key, keys)?;
        self.vms.get(best).map(|v| v.name.clone())
    }

    /// A disk SKU row by name (`P30`, `p30`, `P30_LRS`, `PremiumV2_max`).
    pub fn disk(&self, name: &str) -> Result<&DiskSku, UnknownName> {
        let key = sku_key(name);
        self.disks.get(&key).ok_or_else(|| self.unknown_sku(name, &key))
    }

    /// What a topology's `sku` means: a row, or Premium SSD v2 / Ultra whose figures the
    /// topology provisions.
    pub fn resolve_sku(&self, name: &str) -> Result<SkuRef<'_>, UnknownName> {
        let key = sku_key(name);
        if PREMIUM_V2_ALIASES.contains(&key.as_str()) {
            return Ok(SkuRef::PremiumV2);
        }
        if ULTRA_ALIASES.contains(&key.as_str()) {
            return Ok(SkuRef::Ultra);
        }
        match self.disks.get(&key) {
            Some(d) if d.kind == DiskKind::PremiumSsdV2 => Ok(SkuRef::PremiumV2),
            Some(d) => Ok(SkuRef::Row(d)),
            None => Err(self.unknown_sku(name, &key)),
        }
    }

    fn unknown_sku(&self, name: &str, key: &str) -> UnknownName {
        let mut keys: Vec<String> = self.disks.keys().cloned().collect();
        keys.push("premiumv2".to_owned());
        keys.push("ultra".to_owned());
        let suggestion =
            did_you_mean(key, keys.iter().map(String::as_str)).map(|k| match self.disks.get(k) {
                Some(d) => d.name.clone(),
                None if k == "ultra" => "Ultra".to_owned(),
                None => "PremiumV2".to_owned(),
            });
        UnknownName { what: "disk SKU", name: name.to_owned(), suggestion }
    }

    /// Every VM size, ordered by series then vCPUs.
    pub fn vm_sizes(&self) -> Vec<&VmSize> {
        let mut v: Vec<&VmSize> = self.vms.values().collect();
        v.sort_by(|a, b| {
            (a.series().to_ascii_lowercase(), a.vcpu, &a.name).cmp(&(
                b.series().to_ascii_lowercase(),
                b.vcpu,
                &b.name,
            ))
        });
        v
    }

    /// Every disk SKU row, ordered by kind then size.
    pub fn disk_skus(&self) -> Vec<&DiskSku> {
        let mut v: Vec<&DiskSku> = self.disks.values().collect();
        v.sort_by(|a, b| {
            let ka = (a.kind, a.perf_plus, a.superseded);
            let kb = (b.kind, b.perf_plus, b.superseded);
            ka.cmp(&kb).then_with(|| {
                let sa = a.size.map_or(0, |s| s.min_gib);
                let sb = b.size.map_or(0, |s| s.min_gib);
                sa.cmp(&sb).then_with(|| a.name.cmp(&b.name))
            })
        });
        v
    }

    /// The series names, each once, as `VmSize::series` spells them.
    pub fn series(&self) -> Vec<String> {
        let mut s: Vec<String> = self.vms.values().map(VmSize::series).collect();
        s.sort_by_key(|x| x.to_ascii_lowercase());
        s.dedup();
        s
    }

    /// Rows of one disk kind (for the Premium SSD v2 / Ultra rules).
    pub fn disks_of(&self, kind: DiskKind) -> Vec<&DiskSku> {
        self.disk_skus().into_iter().filter(|d| d.kind == kind).collect()
    }

    /// The current (not superseded) row of a kind with the highest IOPS: the documented
    /// per-disk maximum of Premium SSD v2 and Ultra.
    pub fn max_of(&self, kind: DiskKind) -> Option<&DiskSku> {
        self.disks_of(kind)
            .into_iter()
            .filter(|d| !d.superseded)
            .max_by(|a, b| a.iops.unwrap_or(0.0).total_cmp(&b.iops.unwrap_or(0.0)))
    }

    /// The current row of a kind with the lowest IOPS: Premium SSD v2's free baseline.
    pub fn baseline_of(&self, kind: DiskKind) -> Option<&DiskSku> {
        self.disks_of(kind)
            .into_iter()
            .filter(|d| !d.superseded)
            .min_by(|a, b| a.iops.unwrap_or(f64::MAX).total_cmp(&b.iops.unwrap_or(f64::MAX)))
    }
}

/// A figure as people read it: `25600`, `3.5`, or "not published".
pub fn fmt_opt(x: Option<f64>) -> String {
    x.map_or_else(|| "not published".to_owned(), fmt_num)
}

/// `25600`, `3.5`, `0.25`: no trailing `.0`.
pub fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{}", x as i64) } else { format!("{x}") }
}
