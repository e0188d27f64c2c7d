//! The figures rules compare a capture with, as plain data: a VM's caps, a disk's caps and
//! settings, a striped pool's caps, and the words they use (host cache, role, disk kind,
//! burst model). `advisor_topology` works them out from a topology and the catalog; the
//! rules read them. No TOML or CSV here.
//!
//! Units: IOPS, and MB/s exactly as Azure publishes them (the model reads capture
//! throughput in MiB/s and compares the numbers directly, as Azure's own metrics do).

use std::fmt;

use serde::Serialize;

/// A disk's host-cache setting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
pub enum Cache {
    #[default]
    None,
    ReadOnly,
    ReadWrite,
}

impl Cache {
    pub const ALL: [Cache; 3] = [Cache::None, Cache::ReadOnly, Cache::ReadWrite];

    pub fn name(self) -> &'static str {
        match self {
            Self::None => "None",
            Self::ReadOnly => "ReadOnly",
            Self::ReadWrite => "ReadWrite",
        }
    }

    /// IO through this disk counts against the VM's cached limit.
    pub fn is_cached(self) -> bool {
        self != Self::None
    }
}

/// What a disk is for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Os,
    #[default]
    Data,
    Log,
    Tempdb,
    Temp,
    Other,
}

impl Role {
    pub const ALL: [Role; 6] =
        [Role::Os, Role::Data, Role::Log, Role::Tempdb, Role::Temp, Role::Other];

    pub fn name(self) -> &'static str {
        match self {
            Self::Os => "os",
            Self::Data => "data",
            Self::Log => "log",
            Self::Tempdb => "tempdb",
            Self::Temp => "temp",
            Self::Other => "other",
        }
    }
}

impl fmt::Display for Cache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What kind of managed disk a SKU is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiskKind {
    PremiumSsd,
    StandardSsd,
    StandardHdd,
    PremiumSsdV2,
    Ultra,
}

impl DiskKind {
    pub fn label(self) -> &'static str {
        match self {
            Self::PremiumSsd => "Premium SSD",
            Self::StandardSsd => "Standard SSD",
            Self::StandardHdd => "Standard HDD",
            Self::PremiumSsdV2 => "Premium SSD v2",
            Self::Ultra => "Ultra Disk",
        }
    }

    /// Needs a VM size with premium storage support (the `s` sizes).
    pub fn needs_premium_vm(self) -> bool {
        matches!(self, Self::PremiumSsd | Self::PremiumSsdV2 | Self::Ultra)
    }

    /// Host caching is possible at all (not on Premium SSD v2 or Ultra).
    pub fn supports_host_cache(self) -> bool {
        !matches!(self, Self::PremiumSsdV2 | Self::Ultra)
    }

    /// Performance is provisioned per disk (IOPS and MB/s given by the user).
    pub fn is_provisioned(self) -> bool {
        matches!(self, Self::PremiumSsdV2 | Self::Ultra)
    }

    /// The time a small IO takes on this tier when it does not wait, in ms: what the
    /// rules measure latency against. Azure's disk types page
    /// (MicrosoftDocs/azure-compute-docs:articles/virtual-machines/disks-types.md@18c531eca4f6da59e2306519175269657b3a0e2c)
    /// promises submillisecond latency for Ultra Disk and Premium SSD v2 (0.3-0.5 ms in
    /// practice, ../shared/docs/domain.md), single-digit milliseconds for Premium SSD
    /// (about 2 ms for small IO) and Standard SSD, and writes under 10 ms (reads under
    /// 20 ms) for Standard HDD.
    pub fn latency_norm_ms(self) -> f64 {
        match self {
            Self::Ultra | Self::PremiumSsdV2 => 0.5,
            Self::PremiumSsd => 2.0,
            Self::StandardSsd => 5.0,
            Self::StandardHdd => 10.0,
        }
    }
}

/// A local temp disk's service time for a small IO, in ms: an SSD in the host (a local
/// NVMe device answers in about 0.1 ms; the rules read that from the data).
pub const TEMP_DISK_LATENCY_NORM_MS: f64 = 0.5;

impl fmt::Display for DiskKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// How a disk can exceed its provisioned figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BurstModel {
    /// No bursting.
    #[default]
    None,
    /// Credit-based, on by default, up to 30 minutes at the burst figures (Premium SSD up to
    /// P20, Standard SSD up to E30).
    Credit,
    /// On-demand, only when enabled on the disk (Premium SSD P30 and larger), billed.
    OnDemand,
}

/// The disk controller a VM's remote disks attach through (sizes of the newer series
/// publish other remote-storage figures for each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Controller {
    Scsi,
    Nvme,
}

impl Controller {
    pub const ALL: [Controller; 2] = [Controller::Scsi, Controller::Nvme];

    /// `scsi`, `nvme`: as the topology writes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Scsi => "scsi",
            Self::Nvme => "nvme",
        }
    }

    /// `SCSI`, `NVMe`: as people write it.
    pub fn label(self) -> &'static str {
        match self {
            Self::Scsi => "SCSI",
            Self::Nvme => "NVMe",
        }
    }
}

impl fmt::Display for Controller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The VM's caps. `None` = not published for this size (never 0).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VmLimits {
    /// `Standard_DS13_v2`.
    pub size: String,
    pub series: String,
    pub vcpu: Option<u32>,
    pub max_data_disks: Option<u32>,
    pub temp_gib: Option<f64>,
    pub cache_gib: Option<f64>,
    pub cached_iops: Option<f64>,
    pub cached_mbps: Option<f64>,
    pub uncached_iops: Option<f64>,
    pub uncached_mbps: Option<f64>,
    pub uncached_burst_iops: Option<f64>,
    pub uncached_burst_mbps: Option<f64>,
    /// The remote limits of Premium SSD v2 and Ultra disks, where the size's page publishes
    /// them apart from the Premium SSD ones (for the same controller as `uncached_*`).
    pub uncached_v2_iops: Option<f64>,
    pub uncached_v2_mbps: Option<f64>,
    pub uncached_v2_burst_iops: Option<f64>,
    pub uncached_v2_burst_mbps: Option<f64>,
    /// The controller whose remote figures `uncached_*` are (`None`: the size publishes one
    /// set, or the topology does not say and the disk names do not show it).
    pub controller: Option<Controller>,
    /// Which remote figures `uncached_*` are and why, in a sentence a report can quote.
    pub uncached_basis: String,
    /// The temp disk's own limits (v4+ pages): read, and write where published.
    pub temp_iops: Option<f64>,
    pub temp_mbps: Option<f64>,
    pub temp_write_iops: Option<f64>,
    pub temp_write_mbps: Option<f64>,
    /// Local NVMe data disks (Lsv2, Lsv3, Lasv3): count and their figures together.
    pub local_nvme_disks: Option<u32>,
    pub local_nvme_iops: Option<f64>,
    pub local_nvme_mbps: Option<f64>,
    /// `current`, `previous` (previous generation) or `retired`.
    pub status: String,
    pub premium_storage: bool,
    pub host_caching: bool,
    /// Figures the topology replaced.
    pub overridden: Vec<String>,
    pub source: Vec<String>,
    /// False for a size the catalog lacks: its figures are unknown unless the topology
    /// gave them, and the rules that need them say so.
    pub in_catalog: bool,
}

impl VmLimits {
    /// The VM's uncached limits for a disk of this kind: Premium SSD v2 and Ultra disks get
    /// the figures the size publishes for them, where it does; every other disk (and v2 /
    /// Ultra on sizes without their own figures) the uncached ones. With the sentence saying
    /// which.
    pub fn uncached_for(&self, kind: Option<DiskKind>) -> VmUncached {
        let v2 = kind.is_some_and(DiskKind::is_provisioned)
            && (self.uncached_v2_iops.is_some() || self.uncached_v2_mbps.is_some());
        if v2 {
            VmUncached {
                iops: self.uncached_v2_iops,
                mbps: self.uncached_v2_mbps,
                burst_iops: self.uncached_v2_burst_iops,
                burst_mbps: self.uncached_v2_burst_mbps,
                basis: format!(
                    "{}'s Premium SSD v2 and Ultra Disk limits, which its page publishes apart from the Premium SSD ones ({})",
                    self.size, self.uncached_basis
                ),
            }
        } else {
            let why = match kind {
                Some(k) if k.is_provisioned() => format!(
                    "{}'s uncached limits: its page publishes no separate {} figures ({})",
                    self.size,
                    k.label(),
                    self.uncached_basis
                ),
                _ => format!("{}'s uncached limits ({})", self.size, self.uncached_basis),
            };
            VmUncached {
                iops: self.uncached_iops,
                mbps: self.uncached_mbps,
                burst_iops: self.uncached_burst_iops,
                burst_mbps: self.uncached_burst_mbps,
                basis: why,
            }
        }
    }
}

/// The VM's uncached limits that apply to one disk, and which they are.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VmUncached {
    pub iops: Option<f64>,
    pub mbps: Option<f64>,
    pub burst_iops: Option<f64>,
    pub burst_mbps: Option<f64>,
    pub basis: String,
}

/// Where a disk's figures come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureOrigin {
    /// The SKU's catalog row.
    Catalog,
    /// `iops` / `mbps` in the topology (provisioned v2 / Ultra, or an override).
    Topology,
    /// Premium SSD v2's free baseline, assumed because the topology gave no figures.
    Baseline,
    /// Not known (no SKU, or Ultra without figures).
    #[default]
    Unknown,
}

/// One remote disk's caps and settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DiskLimits {
    pub name: String,
    pub role: Role,
    /// True when the role is not written (`data` by default): the database files on the
    /// disk may give it (the engine's binding).
    #[serde(skip)]
    pub role_assumed: bool,
    /// The effective host caching: None when the disk or the VM size cannot use host
    /// caching, whatever the setting. The budgets count by it.
    pub cache: Cache,
    /// The setting as written (or Azure's default): what `disk.cache_setting` reads.
    pub cache_setting: Cache,
    /// True when the cache setting is Azure's default rather than written.
    pub cache_assumed: bool,
    /// Whether this disk on this VM could use host caching (`None`: unknown, for want of
    /// a SKU or a VM size).
    pub can_cache: Option<bool>,
    /// Write Accelerator (M-series), when the topology says.
    pub write_accelerator: Option<bool>,
    pub sku: Option<String>,
    pub kind: Option<DiskKind>,
    pub size_gib: Option<f64>,
    /// Sustained (provisioned) caps.
    pub iops: Option<f64>,
    pub mbps: Option<f64>,
    pub origin: FigureOrigin,
    /// How the SKU can burst, and the burst caps when bursting is on for this disk
    /// (credit bursting unless `bursting = false`; on-demand only with `bursting = true`).
    pub burst: BurstModel,
    pub burst_iops: Option<f64>,
    pub burst_mbps: Option<f64>,
    /// The pool the disk is a member of.
    pub pool: Option<String>,
    /// The controller the topology names for the disk (`controller = "nvme"`).
    pub controller: Option<Controller>,
    /// The VM's uncached limits that apply to this disk's kind (`None` without a VM size):
    /// Premium SSD v2 / Ultra figures where the size publishes them, else the uncached ones.
    pub vm_uncached: Option<VmUncached>,
    pub source: Vec<String>,
}

impl DiskLimits {
    /// Highest IOPS the disk can deliver now: the burst cap when bursting, else the cap.
    pub fn peak_iops(&self) -> Option<f64> {
        self.burst_iops.or(self.iops)
    }

    pub fn peak_mbps(&self) -> Option<f64> {
        self.burst_mbps.or(self.mbps)
    }

    /// A Standard HDD or SSD disk (the ~500 IOPS class).
    pub fn is_standard(&self) -> bool {
        matches!(self.kind, Some(DiskKind::StandardHdd | DiskKind::StandardSsd))
    }
}

/// A striped volume's caps: its members' sum, and what the VM lets through.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolLimits {
    pub name: String,
    pub members: Vec<String>,
    pub columns: Option<u32>,
    pub interleave_kib: Option<u32>,
    /// Sum of the members' caps (over the members whose caps are known).
    pub sum_iops: Option<f64>,
    pub sum_mbps: Option<f64>,
    pub sum_burst_iops: Option<f64>,
    pub sum_burst_mbps: Option<f64>,
    /// Members whose caps are unknown: the sums are then lower bounds.
    pub unknown_members: Vec<String>,
    /// The VM cap the pool's IO also counts against (uncached; cached when every member
    /// is host-cached, as hits and writes then meet the cached cap first).
    pub vm_iops: Option<f64>,
    pub vm_mbps: Option<f64>,
    /// `min(sum, VM cap)`: what the pool can deliver.
    pub effective_iops: Option<f64>,
    pub effective_mbps: Option<f64>,
    /// True when the VM, not the disks, sets the effective figure.
    pub vm_bound_iops: bool,
    pub vm_bound_mbps: bool,
}
