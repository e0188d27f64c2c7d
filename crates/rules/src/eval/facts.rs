//! What the evaluator reads: [`Facts`], one plain struct of the VM, its disks and pools,
//! benchmark runs and capture targets (the engine binds them once from the captures and
//! the topology), and a [`SeriesSource`] for each target's series. This crate never sees
//! polars: the engine implements [`SeriesSource`] over its captures, tests use
//! [`MemorySeries`].

use std::collections::HashMap;
use std::sync::Arc;

use advisor_model::limits::{DiskLimits, PoolLimits, VmLimits};
use advisor_model::{BenchSettings, DbFile, Direction, Metric, Reduced, Scale, TargetKind};

/// A capture target: which capture (the caller's numbering) and which target in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TargetId {
    pub capture: usize,
    pub target: u32,
}

/// A time-ordered series in the frame's units (MiB/s, ms, KiB, %): `(time_ms, value)`,
/// time `None` for a benchmark's one summary row.
pub type Series = Vec<(Option<i64>, f64)>;

/// A capture target as rules see it (`target.name`, `target.kind`).
#[derive(Debug, Clone, PartialEq)]
pub struct TargetInfo {
    pub id: TargetId,
    pub name: String,
    pub kind: TargetKind,
    /// The capture file it comes from.
    pub file: String,
}

/// The VM: its limits and what the rules read beside them.
#[derive(Debug, Clone, PartialEq)]
pub struct VmInfo {
    pub limits: VmLimits,
    pub memory_gib: Option<f64>,
    /// The remote disks' summed caps (Azure MB/s), `None` without described disks.
    pub provisioned_iops: Option<f64>,
    pub provisioned_mbps: Option<f64>,
}

/// A topology disk (or the temp disk, `temp`), with the capture targets matched to it, the
/// preferred first (a physical disk before a volume).
#[derive(Debug, Clone, PartialEq)]
pub struct DiskInfo {
    pub limits: DiskLimits,
    /// `disk.tier`: the catalog's tier (`Premium SSD`), when known.
    pub tier: Option<String>,
    /// The local temp disk: in the `disks` collection with role `temp`, not a `disk` scope
    /// subject (it has no caps of its own).
    pub temp: bool,
    pub targets: Vec<TargetId>,
}

/// A striped pool: its limits, its members (indexes into [`Facts::disks`]) and the
/// capture targets of its volume.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolInfo {
    pub limits: PoolLimits,
    pub members: Vec<usize>,
    pub targets: Vec<TargetId>,
}

/// A database file of SQL Server's file statistics: its capture target, what it is, and the
/// topology disk it sits on (by drive letter or mount path).
#[derive(Debug, Clone, PartialEq)]
pub struct FileInfo {
    pub target: TargetId,
    /// As the capture names the file: its path.
    pub name: String,
    pub file: DbFile,
    /// The drive letter or mount path the file is under (`E:`, `/var/opt/mssql`), when its
    /// path says.
    pub drive: Option<String>,
    /// Index into [`Facts::disks`] of the disk it sits on (the temp disk too), when the
    /// topology describes it.
    pub disk: Option<usize>,
    /// Index into [`Facts::pools`] of the striped volume it sits on, when it does.
    pub pool: Option<usize>,
}

/// A benchmark target (a fio job, a DiskSpd target) and how it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchInfo {
    pub target: TargetId,
    pub name: String,
    pub settings: BenchSettings,
}

/// The catalog's published caps (`crates/topology/catalog`, plus `--catalog` rows), for
/// matching a ceiling read from the data: `disk_caps_near`, `vm_sizes_near`. Figures in
/// IO/s and Azure MB/s (10^6 bytes/s); each row keeps its `source`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CatalogCaps {
    pub disks: Vec<SkuCaps>,
    pub vms: Vec<SizeCaps>,
}

/// A disk SKU's caps (a row of `disk_skus.csv`).
#[derive(Debug, Clone, PartialEq)]
pub struct SkuCaps {
    pub sku: String,
    pub tier: String,
    pub iops: Option<f64>,
    pub mbps: Option<f64>,
    pub burst_iops: Option<f64>,
    pub burst_mbps: Option<f64>,
    /// A figure from a superseded document: never matched.
    pub superseded: bool,
    /// Performance set per disk (Ultra Disk, Premium SSD v2 beyond its baseline): never
    /// matched, any figure in its range would.
    pub provisioned: bool,
    pub source: Vec<String>,
}

/// A VM size's storage caps (a row of `vm_sizes.csv`).
#[derive(Debug, Clone, PartialEq)]
pub struct SizeCaps {
    pub size: String,
    /// As `vm.family`: `DS` for Standard_DS13_v2.
    pub family: String,
    pub cached_iops: Option<f64>,
    pub cached_mbps: Option<f64>,
    pub uncached_iops: Option<f64>,
    pub uncached_mbps: Option<f64>,
    pub uncached_burst_iops: Option<f64>,
    pub uncached_burst_mbps: Option<f64>,
    /// vCPUs, when the catalog gives them: a capture that states its CPU count matches only
    /// sizes with that many.
    pub vcpu: Option<u32>,
    pub source: Vec<String>,
}

/// Every fact a rule reads beside the series: plain data, built once per analysis.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// Whether a topology (a file or `--vm`) was given.
    pub topology: bool,
    /// The VM size's limits; `None` without `--vm` or a `[vm]` section.
    pub vm: Option<VmInfo>,
    /// Topology disks, the temp disk included (`temp`).
    pub disks: Vec<DiskInfo>,
    pub pools: Vec<PoolInfo>,
    pub benches: Vec<BenchInfo>,
    /// Every capture target (all kinds; the evaluator picks disks, volumes and devices).
    pub targets: Vec<TargetInfo>,
    /// The database files of SQL Server's file statistics (the `file` scope).
    pub files: Vec<FileInfo>,
    /// The host target with CPU and memory counters, when a capture has one.
    pub host: Option<TargetId>,
    /// The machine's CPU count, when the captures state one (and agree on it): a ceiling is
    /// matched only against VM sizes with that many vCPUs.
    pub cpus: Option<u32>,
    /// The catalog's caps, for ceilings read from the data; `None` without a catalog.
    pub catalog: Option<Arc<CatalogCaps>>,
    /// Per disk (as `disks`): the first pool it is a member of (index into `pools`), so
    /// that a disk's pool is looked up, not searched among every pool's members (a search
    /// per disk grows with the square of a pool's size). [`Facts::index_pools`] fills it;
    /// while it does not cover every disk, [`Facts::pool_of`] searches.
    pub pool_of_disk: Vec<Option<usize>>,
}

impl Facts {
    /// Fills [`Facts::pool_of_disk`] from the pools' members.
    pub fn index_pools(&mut self) {
        let mut of = vec![None; self.disks.len()];
        for (pi, p) in self.pools.iter().enumerate() {
            for &d in &p.members {
                if let Some(slot) = of.get_mut(d) {
                    slot.get_or_insert(pi);
                }
            }
        }
        self.pool_of_disk = of;
    }

    /// The first pool disk `d` is a member of, and its index.
    pub fn pool_of(&self, d: usize) -> Option<(usize, &PoolInfo)> {
        if self.pool_of_disk.len() == self.disks.len() {
            let pi = (*self.pool_of_disk.get(d)?)?;
            return self.pools.get(pi).map(|p| (pi, p));
        }
        self.pools.iter().enumerate().find(|(_, p)| p.members.contains(&d))
    }

    /// Adds a target named `name` of `kind` to capture 0 (file `test`), and returns its id:
    /// for tests and callers without captures.
    pub fn add_target(&mut self, name: &str, kind: TargetKind) -> TargetId {
        let id = TargetId { capture: 0, target: self.targets.len() as u32 };
        self.targets.push(TargetInfo { id, name: name.to_owned(), kind, file: "test".to_owned() });
        id
    }
}

/// A metric's values on its target's axis, or its points: see
/// [`SeriesSource::axis_or_points`].
pub type AxisOrPoints = Result<Vec<f64>, (Vec<Option<i64>>, Vec<f64>)>;

/// A metric's values as a source holds them, read in place: see
/// [`SeriesSource::axis_values_in_place`].
pub type SourceValues = Arc<dyn AsRef<[f64]> + Send + Sync>;

/// Nearest-rank percentiles already taken of a target's metric (the summaries take them
/// of every metric; see [`SeriesSource::known_ranks`]): the evaluator reads them instead of
/// selecting the same ranks again. Values in the frame's unit, as the series is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KnownRanks {
    /// How many finite values they were taken of: the series' length, or they are not its.
    pub count: usize,
    /// The smallest and largest of those values.
    pub min: f64,
    pub max: f64,
    /// `(P, the P-th percentile)`.
    pub ranks: Vec<(f64, f64)>,
}

/// The series a rule reads, by target. `Sync`: rules are evaluated on several threads.
pub trait SeriesSource: Sync {
    /// A metric of a target in the frame's unit, time-ordered, nulls dropped; `None` when
    /// the target has no value of it. Shared: several rules read the same series, and a
    /// day of samples is worth not copying for each.
    fn series(&self, target: TargetId, metric: Metric) -> Option<Arc<Series>>;
    /// [`SeriesSource::series`] as two columns, time stamps and values (what the evaluator
    /// works on); by default from `series`. `None` when the target has no value of it.
    fn series_columns(
        &self,
        target: TargetId,
        metric: Metric,
    ) -> Option<(Vec<Option<i64>>, Vec<f64>)> {
        self.series(target, metric).map(|s| s.iter().copied().unzip())
    }
    /// The time stamps of a target's rows, when every series [`SeriesSource::axis_or_points`]
    /// gives as `Ok` lies on them; by default `None`.
    fn axis(&self, _target: TargetId) -> Option<Vec<Option<i64>>> {
        None
    }
    /// Whether [`SeriesSource::axis`] of `target` is exactly `times` (an axis with no stamp
    /// missing, as plain numbers): told without taking the axis, so a consumer that keeps
    /// the axes it has seen shares one (the targets of one capture are usually sampled
    /// alike) without building another. By default the axis is taken and compared.
    fn axis_is(&self, target: TargetId, times: &[i64]) -> bool {
        self.axis(target).is_some_and(|a| {
            a.len() == times.len() && a.iter().zip(times).all(|(x, y)| *x == Some(*y))
        })
    }
    /// A metric's values at every time stamp of [`SeriesSource::axis`] (`Ok`) when it has
    /// a finite value at each: `series_columns` without the time stamps, which a consumer
    /// takes once per target. Else its points as `series_columns` gives them (`Err`), so a
    /// series worked out from others is worked out once. `None` when the target has no
    /// value of it. A source answers it in [`SeriesSource::axis_or_points_scaled`].
    fn axis_or_points(&self, target: TargetId, metric: Metric) -> Option<AxisOrPoints> {
        self.axis_or_points_scaled(target, metric, Scale::Keep)
    }
    /// [`SeriesSource::axis_or_points`] with the values on the axis (`Ok`) converted by `s`
    /// (the points of `Err` are not): a source that copies the values converts them in the
    /// copy. By default every series is points.
    fn axis_or_points_scaled(&self, t: TargetId, m: Metric, _s: Scale) -> Option<AxisOrPoints> {
        self.series_columns(t, m).map(Err)
    }
    /// [`SeriesSource::axis_or_points`]'s `Ok` values as the source holds them, shared
    /// instead of copied: when the metric is one the capture states (not worked out from
    /// others), none of its values is missing or not finite, and they lie on
    /// [`SeriesSource::axis`]. Read only for a metric whose frame unit is its stored unit
    /// (IOPS, queue depth: no conversion to make in a copy). By default `None` (then
    /// `axis_or_points_scaled` gives them).
    fn axis_values_in_place(&self, _target: TargetId, _metric: Metric) -> Option<SourceValues> {
        None
    }
    /// The timed points of [`SeriesSource::series`] reduced to at most `n` for a chart
    /// ([`advisor_model::reduce_points`]); by default from `series`. For the charts,
    /// which need the peaks, not the series. `None` when the target has no value of it.
    fn reduced(&self, target: TargetId, metric: Metric, n: usize) -> Option<Reduced> {
        Some(Reduced::of_series(&self.series(target, metric)?, n))
    }
    /// The tool's own latency percentile (ms), e.g. fio's clat p99.99.
    fn source_percentile(&self, target: TargetId, direction: Direction, pct: f64) -> Option<f64>;
    /// Seconds between samples, when known.
    fn interval_s(&self, target: TargetId) -> Option<f64>;
    /// Nearest-rank percentiles of the finite values of the series `axis_or_points` gives
    /// for `metric` of `target`, taken already; by default none. They must be exactly the
    /// ranks of that series' values (the evaluator checks the count and, in debug builds,
    /// every rank it is given).
    fn known_ranks(&self, _target: TargetId, _metric: Metric) -> Option<KnownRanks> {
        None
    }
}

/// A [`SeriesSource`] held in memory: for tests, and for callers without captures.
#[derive(Debug, Clone, Default)]
pub struct MemorySeries {
    pub series: HashMap<(TargetId, Metric), Arc<Series>>,
    /// Per target: `(direction, percentile, latency ms)`.
    pub percentiles: HashMap<TargetId, Vec<(Direction, f64, f64)>>,
    pub intervals: HashMap<TargetId, f64>,
}

impl MemorySeries {
    /// Sets a metric's series of a target, in the frame's unit.
    pub fn set_series(&mut self, target: TargetId, metric: Metric, series: Series) {
        self.series.insert((target, metric), Arc::new(series));
    }
}

impl SeriesSource for MemorySeries {
    fn series(&self, target: TargetId, metric: Metric) -> Option<Arc<Series>> {
        self.series.get(&(target, metric)).cloned()
    }
    fn source_percentile(&self, target: TargetId, direction: Direction, pct: f64) -> Option<f64> {
        self.percentiles
            .get(&target)?
            .iter()
            .find(|(d, p, _)| *d == direction && (p - pct).abs() < 1e-9)
            .map(|(_, _, v)| *v)
    }
    fn interval_s(&self, target: TargetId) -> Option<f64> {
        self.intervals.get(&target).copied()
    }
}
