//! A VM size row of the catalog: its figures, lifecycle status and what its name says
//! (series, family, storage class), and why it has no cached limit when it has none.

use schemars::JsonSchema;
use serde::Serialize;

use super::{strip_standard, vm_key};

/// Where a size stands in Microsoft's lifecycle (`status` in `vm_sizes.csv`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SizeStatus {
    /// On a current size page.
    #[default]
    Current,
    /// On Microsoft's previous-generation list (retirement may be announced, not reached).
    Previous,
    /// Retired: no longer runs in Azure (still met in old captures).
    Retired,
}

impl SizeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Current => "current",
            Self::Previous => "previous",
            Self::Retired => "retired",
        }
    }

    pub(super) fn parse(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "current" => Ok(Self::Current),
            "previous" => Ok(Self::Previous),
            "retired" => Ok(Self::Retired),
            _ => Err(format!("`status`: `{s}` is not current, previous or retired")),
        }
    }
}

/// Remote-storage figures of one controller (or of the size's only published set).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, JsonSchema)]
pub struct RemoteFigures {
    /// Premium SSD (and Standard) disks, uncached.
    pub iops: Option<f64>,
    pub mbps: Option<f64>,
    pub burst_iops: Option<f64>,
    pub burst_mbps: Option<f64>,
    /// Premium SSD v2 and Ultra disks, where the page publishes their own figures.
    pub v2_iops: Option<f64>,
    pub v2_mbps: Option<f64>,
    pub v2_burst_iops: Option<f64>,
    pub v2_burst_mbps: Option<f64>,
}

impl RemoteFigures {
    /// Whether any figure is published.
    pub fn any(&self) -> bool {
        [
            self.iops,
            self.mbps,
            self.burst_iops,
            self.burst_mbps,
            self.v2_iops,
            self.v2_mbps,
            self.v2_burst_iops,
            self.v2_burst_mbps,
        ]
        .iter()
        .any(Option::is_some)
    }
}

/// One Azure VM size and its storage limits. Throughput in MB/s as Azure publishes it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct VmSize {
    /// Canonical name, e.g. `Standard_DS13_v2`, `Basic_A0`, or `Standard_E2bs_v5:nvme` for
    /// the view of a size's NVMe-controller figures (see `Catalog::vm`).
    pub name: String,
    pub status: SizeStatus,
    pub vcpu: Option<u32>,
    pub memory_gib: Option<f64>,
    /// Local temp disk size (all temp disks together); `Some(0)` when the size has none.
    pub temp_gib: Option<f64>,
    pub max_data_disks: Option<u32>,
    /// Cached and temp storage limit (host cache + temp disk). None (null) where Microsoft
    /// publishes none: `cached_gap` says why.
    pub cached_iops: Option<f64>,
    pub cached_mbps: Option<f64>,
    pub cache_gib: Option<f64>,
    /// Remote (uncached) disk limit: the SCSI figures of a size that publishes both
    /// controllers, else the only figures published.
    pub uncached_iops: Option<f64>,
    pub uncached_mbps: Option<f64>,
    /// VM-level credit burst for uncached IO (up to 30 minutes).
    pub uncached_burst_iops: Option<f64>,
    pub uncached_burst_mbps: Option<f64>,
    /// Remote limits for Premium SSD v2 and Ultra disks, where the page publishes them.
    pub uncached_v2_iops: Option<f64>,
    pub uncached_v2_mbps: Option<f64>,
    pub uncached_v2_burst_iops: Option<f64>,
    pub uncached_v2_burst_mbps: Option<f64>,
    /// The NVMe controller's remote figures, where the page publishes them per controller.
    pub nvme: RemoteFigures,
    /// The temp disk's own limits (v4+ pages): read, and write where published.
    pub temp_disks: Option<u32>,
    pub temp_iops: Option<f64>,
    pub temp_mbps: Option<f64>,
    pub temp_write_iops: Option<f64>,
    pub temp_write_mbps: Option<f64>,
    /// Local NVMe data disks (Lsv2, Lsv3, Lasv3): count, size of each (GB as published),
    /// and their figures together.
    pub local_nvme_disks: Option<u32>,
    pub local_nvme_disk_gb: Option<f64>,
    pub local_nvme_iops: Option<f64>,
    pub local_nvme_mbps: Option<f64>,
    /// "Premium Storage" and "Premium Storage caching" as the size's page states them
    /// (None, null: not stated; `premium_storage` then reads the name).
    pub premium_storage_stated: Option<bool>,
    pub premium_caching_stated: Option<bool>,
    /// Where the figures come from: `repo:path@commit` entries, and `file:line` for user rows.
    pub source: Vec<String>,
}

impl VmSize {
    /// An empty row of that name.
    pub fn named(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            status: SizeStatus::Current,
            vcpu: None,
            memory_gib: None,
            temp_gib: None,
            max_data_disks: None,
            cached_iops: None,
            cached_mbps: None,
            cache_gib: None,
            uncached_iops: None,
            uncached_mbps: None,
            uncached_burst_iops: None,
            uncached_burst_mbps: None,
            uncached_v2_iops: None,
            uncached_v2_mbps: None,
            uncached_v2_burst_iops: None,
            uncached_v2_burst_mbps: None,
            nvme: RemoteFigures::default(),
            temp_disks: None,
            temp_iops: None,
            temp_mbps: None,
            temp_write_iops: None,
            temp_write_mbps: None,
            local_nvme_disks: None,
            local_nvme_disk_gb: None,
            local_nvme_iops: None,
            local_nvme_mbps: None,
            premium_storage_stated: None,
            premium_caching_stated: None,
            source: Vec::new(),
        }
    }

    /// The remote figures of the default set: SCSI where both controllers are published,
    /// else the only ones.
    pub fn remote(&self) -> RemoteFigures {
        RemoteFigures {
            iops: self.uncached_iops,
            mbps: self.uncached_mbps,
            burst_iops: self.uncached_burst_iops,
            burst_mbps: self.uncached_burst_mbps,
            v2_iops: self.uncached_v2_iops,
            v2_mbps: self.uncached_v2_mbps,
            v2_burst_iops: self.uncached_v2_burst_iops,
            v2_burst_mbps: self.uncached_v2_burst_mbps,
        }
    }

    /// The view of the NVMe-controller figures as the default set (`name:nvme`).
    pub(super) fn nvme_view(&self) -> Self {
        let n = self.nvme;
        Self {
            name: format!("{}:nvme", self.name),
            uncached_iops: n.iops,
            uncached_mbps: n.mbps,
            uncached_burst_iops: n.burst_iops,
            uncached_burst_mbps: n.burst_mbps,
            uncached_v2_iops: n.v2_iops,
            uncached_v2_mbps: n.v2_mbps,
            uncached_v2_burst_iops: n.v2_burst_iops,
            uncached_v2_burst_mbps: n.v2_burst_mbps,
            ..self.clone()
        }
    }

    /// The family the size belongs to, for counting: its family letters (`D`, `DS`, `E`,
    /// `FX`, `M`, `Basic_A`).
    pub fn family(&self) -> String {
        if let Some(rest) = self.name.strip_prefix("Basic_") {
            let letters: String = rest.chars().take_while(char::is_ascii_uppercase).collect();
            return format!("Basic_{letters}");
        }
        let short = self.short_name();
        short.chars().take_while(char::is_ascii_uppercase).collect()
    }

    /// The name without `Standard_` and without a `:nvme` suffix.
    pub fn short_name(&self) -> &str {
        let n = strip_standard(&self.name);
        n.split(':').next().unwrap_or(n)
    }

    /// `nvme` for the NVMe-controller row of a size that publishes both.
    pub fn controller(&self) -> Option<&str> {
        self.name.split_once(':').map(|(_, c)| c)
    }

    fn parts(&self) -> Option<NameParts<'_>> {
        NameParts::parse(self.short_name())
    }

    /// The series as Azure names it: `DSv2`, `Dsv3`, `Easv5`, `Ebdsv5`, `DS` (v1), `M`,
    /// `Basic_A`.
    pub fn series(&self) -> String {
        if self.name.starts_with("Basic_") {
            return self.family();
        }
        match self.parts() {
            Some(p) => {
                let features: String = p.features.chars().filter(|c| *c != 'i').collect();
                let mut s = format!("{}{}", p.family, features);
                if let Some(v) = p.version {
                    s.push('v');
                    s.push_str(v);
                }
                s
            }
            None => self.short_name().to_owned(),
        }
    }

    fn family_version(&self) -> String {
        if self.name.starts_with("Basic_") {
            return self.family();
        }
        match self.parts() {
            Some(p) => match p.version {
                Some(v) => format!("{}v{v}", p.family),
                None => p.family.to_owned(),
            },
            None => self.short_name().to_owned(),
        }
    }

    /// Whether the size can attach Premium SSD (and v2 / Ultra) disks: as its page states
    /// ("Premium Storage: Supported"), else by Azure's naming: an `s` among the additive
    /// features (`D2s_v3`, `E16as_v5`), the older `DS`/`GS` families, and the M series,
    /// whose every size supports it.
    pub fn premium_storage(&self) -> bool {
        if let Some(stated) = self.premium_storage_stated {
            return stated;
        }
        self.premium_storage_by_name()
    }

    /// [`VmSize::premium_storage`] by the name alone: the storage class the name says.
    pub fn premium_storage_by_name(&self) -> bool {
        if self.name.starts_with("Basic_") {
            return false;
        }
        match self.parts() {
            Some(p) => {
                p.features.contains('s')
                    || matches!(p.family, "DS" | "GS")
                    || p.family.starts_with('M')
            }
            None => true,
        }
    }

    /// Whether disks on this size can use host caching: as its page states ("Premium
    /// Storage caching"), else not on the L series (v1, v2, v3) nor on B v1 (their feature
    /// tables say so). A size without Premium Storage attaches only Standard disks, whose
    /// host caching that statement is not about: they keep it.
    pub fn host_caching(&self) -> bool {
        if !self.premium_storage() {
            return true;
        }
        if let Some(stated) = self.premium_caching_stated {
            return stated;
        }
        match self.parts() {
            Some(p) => {
                let b_v1 = p.family == "B" && p.version.is_none();
                p.family != "L" && !b_v1
            }
            None => true,
        }
    }

    /// Why the catalog has no cached limit for this size (`None` when it has one). Both
    /// cached figures are missing together for every built-in row.
    pub fn cached_gap(&self) -> Option<CachedGap> {
        if self.cached_iops.is_some() || self.cached_mbps.is_some() {
            return None;
        }
        Some(if !self.host_caching() {
            CachedGap::NoHostCaching
        } else {
            match self.temp_gib {
                Some(t) if t > 0.0 => CachedGap::TempOnly,
                Some(_) => CachedGap::NoTempDisk,
                None => CachedGap::NotPublished,
            }
        })
    }

    /// [`VmSize::cached_gap`] as the sentence a user reads, naming the series as people
    /// know it (`B-series v1` rather than `Bms`).
    pub fn cached_gap_reason(&self) -> Option<String> {
        let gap = self.cached_gap()?;
        let label = match self.parts() {
            Some(p) if p.family == "B" && p.version.is_none() => "B-series v1".to_owned(),
            _ => self.series(),
        };
        Some(gap.reason(&label))
    }

    /// Whether `--series X` selects this size: the series (`Easv5`), or the family and
    /// version (`Ev5`, `DS`), case-insensitively.
    pub fn in_series(&self, series: &str) -> bool {
        self.series().eq_ignore_ascii_case(series)
            || self.family_version().eq_ignore_ascii_case(series)
    }
}

/// Why a VM size has no cached limit (the "cached and temp storage" IOPS and MB/s shared by
/// host-cached disks and the temp disk). See `../shared/catalog/NOTES.md`, sections 4, 8, 9.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CachedGap {
    /// The series cannot use host caching (B v1, the L series): what its pages publish for
    /// local storage is the local disks' own throughput, not a cached limit.
    NoHostCaching,
    /// Host caching works and the size has a temp disk, but its current page gives only
    /// temp-storage figures and no cached limit (Ddsv4 and Edsv4 since the 2020 "cached and
    /// temp storage" column was renamed "temp storage", Ddsv5, Edsv5, Ddsv6, ...).
    TempOnly,
    /// No cached limit on the size's page, and no temp disk beside the remote disks (most
    /// v5 and v6 sizes without a local disk).
    NoTempDisk,
    /// No cached limit, and the temp disk is not known either (a user's catalog row).
    NotPublished,
}

impl CachedGap {
    /// One sentence a user reads after "no cached limit": why the catalog has none.
    pub fn reason(self, series: &str) -> String {
        match self {
            Self::NoHostCaching => format!(
                "{series} does not support host caching; what Microsoft publishes for its local storage is the local disks' own throughput (the temp disk or local NVMe figures), not a cached limit"
            ),
            Self::TempOnly if matches!(series, "Ddsv4" | "Edsv4") => format!(
                "Microsoft publishes only temp-storage figures for {series}, no limit for host-cached disks: the 2020 pages' \"cached and temp storage\" column was renamed \"temp storage\" and no cached limit replaced it"
            ),
            Self::TempOnly => format!(
                "Microsoft publishes only temp-storage figures for {series}, no limit for host-cached disks"
            ),
            Self::NoTempDisk => format!(
                "Microsoft's size table for {series} gives no cached limit (the size has no temp disk; its remote disks are capped by the uncached figures)"
            ),
            Self::NotPublished => {
                format!("Microsoft's size table for {series} gives no cached limit")
            }
        }
    }
}

/// `DS13_v2` -> family `DS`, features ``, version `2`; `E16as_v5` -> `E`, `as`, `5`;
/// `M64ms` -> `M`, `ms`, none; `E4-2s_v3` (constrained vCPU) -> `E`, `s`, `3`.
#[derive(Debug)]
struct NameParts<'a> {
    family: &'a str,
    features: &'a str,
    version: Option<&'a str>,
}

impl<'a> NameParts<'a> {
    fn parse(name: &'a str) -> Option<Self> {
        let (body, version) = match name.rsplit_once("_v") {
            Some((b, v)) if !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit()) => (b, Some(v)),
            _ => (name, None),
        };
        // The memory variant of the large M sizes: `M416s_8_v2`, `M832ids_16_v3`.
        let body = match body.rsplit_once('_') {
            Some((b, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => b,
            _ => body,
        };
        let fam_end = body.find(|c: char| !c.is_ascii_uppercase())?;
        let family = &body[..fam_end];
        let rest = &body[fam_end..];
        let feat_start =
            rest.find(|c: char| !(c.is_ascii_digit() || c == '-')).unwrap_or(rest.len());
        if feat_start == 0 || family.is_empty() {
            return None;
        }
        let features = &rest[feat_start..];
        if !features.bytes().all(|c| c.is_ascii_lowercase()) {
            return None;
        }
        Some(Self { family, features, version })
    }
}

/// Whether a size name, as a user wrote it (any case), names a size with Premium Storage,
/// by Azure's naming ([`VmSize::premium_storage_by_name`]); `None` when the name does not
/// read as a size name. The family is the letters before the first digit.
pub(crate) fn storage_class_of(name: &str) -> Option<bool> {
    let key = vm_key(name);
    let key = key.split(':').next().unwrap_or(&key);
    if key.starts_with("basic_") {
        return Some(false);
    }
    let family: String =
        key.chars().take_while(char::is_ascii_alphabetic).map(|c| c.to_ascii_uppercase()).collect();
    if family.is_empty() {
        return None;
    }
    let v = VmSize::named(&format!("Standard_{family}{}", &key[family.len()..]));
    v.parts().is_some().then(|| v.premium_storage_by_name())
}
