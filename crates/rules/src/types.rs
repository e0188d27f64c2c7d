//! Dimensions and types: what the checker gives every expression, and the vocabulary
//! (scopes, objects, fields, constants) names resolve to.
//!
//! Numeric dimensions follow a small algebra over bytes and seconds, IOs counting as
//! dimensionless: rate = 1/s, throughput = B/s, time = s, size = B, ratio and count = 1.
//! So `iops * latency_ms` is a count, `mbps / iops` a size, `1 / latency_ms` a rate, and
//! `io_kib * iops` a throughput.

use std::fmt;

use serde::Serialize;

/// The dimension of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dim {
    /// IO/s.
    Rate,
    /// bytes/s.
    Throughput,
    /// seconds.
    Time,
    /// bytes.
    Size,
    /// a fraction (`95%` is 0.95).
    Ratio,
    /// a number of things (IOs outstanding, disks, threads).
    Count,
    /// a plain number literal: fits a ratio or a count.
    Number,
    Bool,
    Text,
    /// a host caching mode: `none`, `readonly`, `readwrite`.
    Cache,
    /// a disk role: `os`, `data`, `log`, `tempdb`, `temp`, `other`.
    Role,
    /// a collection element itself (`disk` in `count(disk) over disks`, `vm.temp_disk`).
    Element(ElementKind),
}

impl Dim {
    /// Exponents of bytes and seconds, for numeric dimensions.
    fn exps(self) -> Option<(i8, i8)> {
        Some(match self {
            Self::Rate => (0, -1),
            Self::Throughput => (1, -1),
            Self::Time => (0, 1),
            Self::Size => (1, 0),
            Self::Ratio | Self::Count | Self::Number => (0, 0),
            _ => return None,
        })
    }

    fn from_exps(e: (i8, i8)) -> Option<Dim> {
        Some(match e {
            (0, -1) => Self::Rate,
            (1, -1) => Self::Throughput,
            (0, 1) => Self::Time,
            (1, 0) => Self::Size,
            (0, 0) => Self::Count,
            _ => return None,
        })
    }

    pub fn is_numeric(self) -> bool {
        self.exps().is_some()
    }

    pub fn is_dimensionless(self) -> bool {
        matches!(self, Self::Ratio | Self::Count | Self::Number)
    }

    /// Ratio, count and plain numbers combined: count wins over ratio over plain.
    fn dimensionless_join(a: Dim, b: Dim) -> Dim {
        if a == Self::Count || b == Self::Count {
            Self::Count
        } else if a == Self::Ratio || b == Self::Ratio {
            Self::Ratio
        } else {
            Self::Number
        }
    }

    /// `a * b`, or `None` when the product has no known dimension (`iops * iops`).
    pub fn product(a: Dim, b: Dim) -> Option<Dim> {
        let (ea, eb) = (a.exps()?, b.exps()?);
        match (a.is_dimensionless(), b.is_dimensionless()) {
            (true, true) => Some(Self::dimensionless_join(a, b)),
            (true, false) => Some(b),
            (false, true) => Some(a),
            (false, false) => Self::from_exps((ea.0 + eb.0, ea.1 + eb.1)),
        }
    }

    /// `a / b`: a dimension over itself is a ratio; over a plain number, itself.
    pub fn quotient(a: Dim, b: Dim) -> Option<Dim> {
        let (ea, eb) = (a.exps()?, b.exps()?);
        match (a.is_dimensionless(), b.is_dimensionless()) {
            (true, true) => Some(Self::dimensionless_join(a, b)),
            (false, true) => Some(a),
            (true, false) => Self::from_exps((-eb.0, -eb.1)),
            (false, false) if a == b => Some(Self::Ratio),
            (false, false) => Self::from_exps((ea.0 - eb.0, ea.1 - eb.1)),
        }
    }

    /// The dimension of `a + b`, `a - b`, `a < b`'s operands, when they agree: equal, or
    /// a plain number beside a ratio or a count.
    pub fn unify(a: Dim, b: Dim) -> Option<Dim> {
        if a == b {
            return Some(a);
        }
        match (a, b) {
            (Self::Number, x) | (x, Self::Number) if x.is_dimensionless() => Some(x),
            _ => None,
        }
    }

    /// What a person calls it, with an article: "a rate (IO/s)".
    pub fn describe(self) -> String {
        match self {
            Self::Rate => "a rate (IO/s)".into(),
            Self::Throughput => "a throughput (MB/s)".into(),
            Self::Time => "a time".into(),
            Self::Size => "a size".into(),
            Self::Ratio => "a ratio".into(),
            Self::Count => "a count".into(),
            Self::Number => "a plain number".into(),
            Self::Bool => "a bool".into(),
            Self::Text => "text".into(),
            Self::Cache => "a cache mode".into(),
            Self::Role => "a disk role".into(),
            Self::Element(k) => format!("a {} (the element itself)", k.name()),
        }
    }

    /// The unit a number of this dimension is shown in, and how many stored units make one
    /// (`Time` shows in ms: 0.001 s; throughput in Azure's MB/s of 10^6 bytes/s). Sizes above 1 GiB show in GiB ([`Dim::display`]).
    pub fn display_unit(self) -> (&'static str, f64) {
        match self {
            Self::Rate => ("IOPS", 1.0),
            Self::Throughput => ("MB/s", 1e6),
            Self::Time => ("ms", 1e-3),
            Self::Size => ("KiB", 1024.0),
            Self::Ratio => ("%", 0.01),
            _ => ("", 1.0),
        }
    }

    /// A value of this dimension in its display unit: `(number, unit)`.
    pub fn display(self, stored: f64) -> (f64, &'static str) {
        const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
        if self == Self::Size && stored.abs() >= GIB {
            return (stored / GIB, "GiB");
        }
        let (unit, factor) = self.display_unit();
        (stored / factor, unit)
    }

    /// A literal unit to suggest for this dimension (`5000 iops`).
    pub fn literal_unit(self) -> Option<&'static str> {
        match self {
            Self::Rate => Some("iops"),
            Self::Throughput => Some("MB/s"),
            Self::Time => Some("ms"),
            Self::Size => Some("KiB"),
            Self::Ratio => Some("%"),
            _ => None,
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Self::Rate => "rate",
            Self::Throughput => "throughput",
            Self::Time => "time",
            Self::Size => "size",
            Self::Ratio => "ratio",
            Self::Count => "count",
            Self::Number => "number",
            Self::Bool => "bool",
            Self::Text => "text",
            Self::Cache => "cache",
            Self::Role => "role",
            Self::Element(k) => k.name(),
        };
        f.write_str(s)
    }
}

/// The type of an expression: its dimension and whether it varies over time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ty {
    pub dim: Dim,
    /// A series (a value per sample time) rather than one value.
    pub series: bool,
}

impl Ty {
    pub fn scalar(dim: Dim) -> Ty {
        Ty { dim, series: false }
    }

    pub fn series(dim: Dim) -> Ty {
        Ty { dim, series: true }
    }

    /// "a bool series", "a throughput (MB/s)".
    pub fn describe(self) -> String {
        if self.series {
            let d = self.dim.describe();
            let d = d.strip_prefix("a ").unwrap_or(&d).to_owned();
            format!("a {d} series")
        } else {
            self.dim.describe()
        }
    }
}

macro_rules! word_enum {
    ($(#[$m:meta])* $name:ident { $( $(#[$vm:meta])* $v:ident = $s:literal ),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $( $(#[$vm])* $v ),* }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$v),*];
            /// As written in rule text.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$v => $s),* }
            }
            /// From rule text.
            pub fn parse(s: &str) -> Option<$name> {
                match s { $($s => Some($name::$v),)* _ => None }
            }
            /// Every spelling.
            pub fn names() -> impl Iterator<Item = &'static str> {
                Self::ALL.iter().map(|x| x.as_str())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(self.as_str())
            }
        }
    };
}

word_enum!(
    /// How bad a finding is.
    Severity { Critical = "critical", Warning = "warning", Info = "info" }
);

word_enum!(
    /// What a rule is evaluated for.
    Scope {
        /// once.
        Vm = "vm",
        /// once per topology disk.
        Disk = "disk",
        /// once per striped pool.
        Pool = "pool",
        /// once per benchmark target.
        Bench = "bench",
        /// once per capture target of kind disk, volume or device.
        Target = "target",
        /// once per platform budget in Azure Monitor metrics (VM cached, VM uncached, each disk).
        Platform = "platform",
        /// once per database file in SQL Server's file statistics.
        File = "file",
    }
);

word_enum!(
    /// A host caching mode constant.
    CacheMode { None = "none", ReadOnly = "readonly", ReadWrite = "readwrite" }
);

word_enum!(
    /// A disk role constant.
    Role {
        Os = "os",
        Data = "data",
        Log = "log",
        Tempdb = "tempdb",
        Temp = "temp",
        Other = "other",
    }
);

word_enum!(
    /// The kinds of collection element (and of per-element scope).
    ElementKind { Disk = "disk", Pool = "pool", Bench = "bench", Target = "target", File = "file" }
);

impl ElementKind {
    pub fn name(self) -> &'static str {
        self.as_str()
    }

    /// The fields an element of this kind has.
    pub fn field_names(self) -> Vec<&'static str> {
        match self {
            Self::Disk => DiskField::names().collect(),
            Self::Pool => PoolField::names().collect(),
            Self::Bench => BenchField::names().collect(),
            Self::Target => TargetField::names().collect(),
            Self::File => FileField::names().collect(),
        }
    }

    /// A field by name.
    pub fn field(self, name: &str) -> Option<Field> {
        match self {
            Self::Disk => DiskField::parse(name).map(Field::Disk),
            Self::Pool => PoolField::parse(name).map(Field::Pool),
            Self::Bench => BenchField::parse(name).map(Field::Bench),
            Self::Target => TargetField::parse(name).map(Field::Target),
            Self::File => FileField::parse(name).map(Field::File),
        }
    }
}

impl Scope {
    /// The element a per-element scope is evaluated for.
    pub fn element(self) -> Option<ElementKind> {
        match self {
            Self::Vm => None,
            Self::Disk => Some(ElementKind::Disk),
            Self::Pool => Some(ElementKind::Pool),
            Self::Bench => Some(ElementKind::Bench),
            Self::Target | Self::Platform => Some(ElementKind::Target),
            Self::File => Some(ElementKind::File),
        }
    }
}

word_enum!(
    /// `vm.*`: the VM size's limits (catalog, topology overrides) and settings.
    VmField {
        Size = "size",
        /// the size's family: `M` for Standard_M64ms, `DS` for Standard_DS13_v2.
        Family = "family",
        CachedIops = "cached_iops",
        CachedMbps = "cached_mbps",
        UncachedIops = "uncached_iops",
        UncachedMbps = "uncached_mbps",
        UncachedBurstIops = "uncached_burst_iops",
        UncachedBurstMbps = "uncached_burst_mbps",
        /// Premium SSD v2 / Ultra remote limits, where the size's page publishes them apart.
        UncachedV2Iops = "uncached_v2_iops",
        UncachedV2Mbps = "uncached_v2_mbps",
        UncachedV2BurstIops = "uncached_v2_burst_iops",
        UncachedV2BurstMbps = "uncached_v2_burst_mbps",
        /// `scsi` or `nvme`: the controller whose remote figures `vm.uncached_*` are.
        Controller = "controller",
        /// which remote figures `vm.uncached_*` are, and why (text for evidence).
        UncachedBasis = "uncached_basis",
        /// the temp disk's own limits (v4+ sizes): read, and write where published.
        TempIops = "temp_iops",
        TempMbps = "temp_mbps",
        TempWriteIops = "temp_write_iops",
        TempWriteMbps = "temp_write_mbps",
        /// the local NVMe data disks' figures together (Lsv2, Lsv3, Lasv3).
        LocalNvmeIops = "local_nvme_iops",
        LocalNvmeMbps = "local_nvme_mbps",
        /// `current`, `previous` or `retired`.
        Status = "status",
        CacheSize = "cache_size",
        TempSize = "temp_size",
        MaxDataDisks = "max_data_disks",
        Vcpu = "vcpu",
        Memory = "memory",
        /// the disks' summed provisioned IOPS.
        ProvisionedIops = "provisioned_iops",
        /// the disks' summed provisioned MB/s.
        ProvisionedMbps = "provisioned_mbps",
        /// the temp disk as a disk element: `vm.temp_disk.iops`, `exists(vm.temp_disk)`.
        TempDisk = "temp_disk",
        /// the size's version: 6 for Standard_D8ds_v6, 1 for a size without `_vN`.
        Generation = "generation",
    }
);

word_enum!(
    /// `disk.*`: a topology disk.
    DiskField {
        Name = "name",
        Sku = "sku",
        Tier = "tier",
        /// the effective host caching (none when the disk or VM cannot cache).
        Cache = "cache",
        /// the host caching setting as written (or Azure's default).
        CacheSetting = "cache_setting",
        /// whether this disk on this VM could use host caching.
        CanCache = "can_cache",
        /// whether Write Accelerator is on (M-series).
        WriteAccelerator = "write_accelerator",
        Role = "role",
        Size = "size",
        IopsCap = "iops_cap",
        MbpsCap = "mbps_cap",
        BurstIops = "burst_iops",
        BurstMbps = "burst_mbps",
        /// how the disk bursts: `credit` (P1-P20, E1-E30), `on-demand` (P30 and larger,
        /// when enabled) or `none`.
        BurstModel = "burst_model",
        /// the tier's service time for a small IO that does not wait (Premium SSD 2 ms).
        LatencyNorm = "latency_norm",
        IsStandard = "is_standard",
        InPool = "in_pool",
        /// the VM's uncached limits that apply to this disk: the Premium SSD v2 / Ultra
        /// figures for such a disk where the size publishes them, else `vm.uncached_*`.
        VmUncachedIops = "vm_uncached_iops",
        VmUncachedMbps = "vm_uncached_mbps",
        VmUncachedBurstIops = "vm_uncached_burst_iops",
        VmUncachedBurstMbps = "vm_uncached_burst_mbps",
        /// which VM figures `disk.vm_uncached_*` are, and why (text for evidence).
        VmUncachedBasis = "vm_uncached_basis",
        /// SQL Server data files (ROWS) of user databases on the disk.
        DataFiles = "data_files",
        /// SQL Server transaction logs of user databases on the disk.
        LogFiles = "log_files",
        /// tempdb's files (data and log) on the disk.
        TempdbFiles = "tempdb_files",
        /// the database files on the disk, named for evidence (`sales_log.ldf (sales, log)`).
        Files = "files",
    }
);

word_enum!(
    /// `pool.*`: a striped volume.
    PoolField {
        Name = "name",
        /// the number of member disks.
        Disks = "disks",
        Columns = "columns",
        Interleave = "interleave",
        IopsCap = "iops_cap",
        MbpsCap = "mbps_cap",
    }
);

word_enum!(
    /// `bench.*`: how a benchmark ran.
    BenchField {
        Tool = "tool",
        BlockSize = "block_size",
        QueueDepth = "queue_depth",
        Threads = "threads",
        /// queue depth x threads.
        Outstanding = "outstanding",
        WriteRatio = "write_ratio",
        Random = "random",
        /// true when the OS cache was NOT bypassed.
        OsCache = "os_cache",
        WriteThrough = "write_through",
        SyncEvery = "sync_every",
        FileSize = "file_size",
        Duration = "duration",
        Warmup = "warmup",
        Engine = "engine",
        /// the effective host caching of the topology disk the run targeted.
        HostCache = "host_cache",
        /// the run's target name, as its capture target's.
        Name = "name",
        /// fio's `steadystate` check: every job reached the steady state it waited for.
        SteadyState = "steady_state",
        /// the run held itself to a rate (fio `rate`/`rate_iops`, DiskSpd `-g`).
        RateLimited = "rate_limited",
    }
);

word_enum!(
    /// `target.*`: a capture target.
    TargetField {
        Name = "name",
        /// `disk`, `volume` or `device`.
        Kind = "kind",
        /// the topology disks the target stands for: a pool's members, or 1.
        Disks = "disks",
        /// the summed MB/s cap of those disks.
        MbpsCap = "mbps_cap",
        /// the summed IOPS cap of those disks.
        IopsCap = "iops_cap",
        /// a platform target's budget: `vm cached`, `vm uncached`, `disk` or `vm disks`.
        Budget = "budget",
        /// the tier of the topology disk the target stands for (`Premium SSD`), or
        /// `temp disk` for the local temp disk.
        Tier = "tier",
        /// the service time of a small IO on that disk's tier.
        LatencyNorm = "latency_norm",
        /// whether the target is a local disk (the VM's temp disk).
        Local = "local",
    }
);

word_enum!(
    /// `file.*`: a database file of SQL Server's file statistics (`file.disk` is the disk
    /// it sits on, as an element: `file.disk.cache`, `file.disk.write_latency_ms`).
    FileField {
        /// the file's path (`physical_name`), as the capture names the file.
        Name = "name",
        /// the database's name (`database 7` when the capture gives only its id).
        Database = "database",
        /// `data`, `log`, `tempdb` (any of tempdb's files) or `other`.
        Role = "role",
        /// `ROWS`, `LOG`, `FILESTREAM`, `FULLTEXT` (sys.master_files' type_desc).
        Type = "type",
        /// a system database's file (master, model, msdb).
        System = "system",
        /// the figures are averages since SQL Server started (one snapshot), not rates over
        /// an interval.
        SinceStart = "since_start",
        /// the drive letter or mount path the file is under (`E:`, `/var/opt/mssql`).
        Drive = "drive",
    }
);

/// A field of some object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    Vm(VmField),
    Disk(DiskField),
    Pool(PoolField),
    Bench(BenchField),
    Target(TargetField),
    File(FileField),
}

impl Field {
    /// The field's dimension (every field is a scalar).
    pub fn dim(self) -> Dim {
        use Dim::*;
        match self {
            Self::Vm(f) => match f {
                VmField::Size
                | VmField::Family
                | VmField::Controller
                | VmField::UncachedBasis
                | VmField::Status => Text,
                VmField::CachedIops
                | VmField::UncachedIops
                | VmField::UncachedBurstIops
                | VmField::UncachedV2Iops
                | VmField::UncachedV2BurstIops
                | VmField::TempIops
                | VmField::TempWriteIops
                | VmField::LocalNvmeIops
                | VmField::ProvisionedIops => Rate,
                VmField::CachedMbps
                | VmField::UncachedMbps
                | VmField::UncachedBurstMbps
                | VmField::UncachedV2Mbps
                | VmField::UncachedV2BurstMbps
                | VmField::TempMbps
                | VmField::TempWriteMbps
                | VmField::LocalNvmeMbps
                | VmField::ProvisionedMbps => Throughput,
                VmField::CacheSize | VmField::TempSize | VmField::Memory => Size,
                VmField::MaxDataDisks | VmField::Vcpu | VmField::Generation => Count,
                VmField::TempDisk => Element(ElementKind::Disk),
            },
            Self::Disk(f) => match f {
                DiskField::Name
                | DiskField::Sku
                | DiskField::Tier
                | DiskField::BurstModel
                | DiskField::VmUncachedBasis
                | DiskField::Files => Text,
                DiskField::DataFiles | DiskField::LogFiles | DiskField::TempdbFiles => Count,
                DiskField::LatencyNorm => Time,
                DiskField::Cache | DiskField::CacheSetting => Cache,
                DiskField::Role => Role,
                DiskField::Size => Size,
                DiskField::IopsCap
                | DiskField::BurstIops
                | DiskField::VmUncachedIops
                | DiskField::VmUncachedBurstIops => Rate,
                DiskField::MbpsCap
                | DiskField::BurstMbps
                | DiskField::VmUncachedMbps
                | DiskField::VmUncachedBurstMbps => Throughput,
                DiskField::IsStandard
                | DiskField::InPool
                | DiskField::CanCache
                | DiskField::WriteAccelerator => Bool,
            },
            Self::Pool(f) => match f {
                PoolField::Name => Text,
                PoolField::Disks | PoolField::Columns => Count,
                PoolField::Interleave => Size,
                PoolField::IopsCap => Rate,
                PoolField::MbpsCap => Throughput,
            },
            Self::Bench(f) => match f {
                BenchField::Tool | BenchField::Engine | BenchField::Name => Text,
                BenchField::BlockSize | BenchField::FileSize => Size,
                BenchField::QueueDepth
                | BenchField::Threads
                | BenchField::Outstanding
                | BenchField::SyncEvery => Count,
                BenchField::WriteRatio => Ratio,
                BenchField::Random
                | BenchField::OsCache
                | BenchField::WriteThrough
                | BenchField::SteadyState
                | BenchField::RateLimited => Bool,
                BenchField::Duration | BenchField::Warmup => Time,
                BenchField::HostCache => Cache,
            },
            Self::Target(f) => match f {
                TargetField::Name | TargetField::Kind | TargetField::Budget | TargetField::Tier => {
                    Text
                }
                TargetField::Disks => Count,
                TargetField::MbpsCap => Throughput,
                TargetField::IopsCap => Rate,
                TargetField::LatencyNorm => Time,
                TargetField::Local => Bool,
            },
            Self::File(f) => match f {
                FileField::Name | FileField::Database | FileField::Type | FileField::Drive => Text,
                FileField::Role => Role,
                FileField::System | FileField::SinceStart => Bool,
            },
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Vm(f) => f.as_str(),
            Self::Disk(f) => f.as_str(),
            Self::Pool(f) => f.as_str(),
            Self::Bench(f) => f.as_str(),
            Self::Target(f) => f.as_str(),
            Self::File(f) => f.as_str(),
        }
    }
}

/// The dimension of a canonical metric. Metrics stored in % are ratios here (the
/// evaluator divides by 100); latencies are times, sizes in KiB/MiB are sizes.
pub fn metric_dim(m: advisor_model::Metric) -> Dim {
    use advisor_model::Unit;
    match m.unit() {
        Unit::PerSecond | Unit::PagesPerSecond => Dim::Rate,
        Unit::MibPerSecond => Dim::Throughput,
        Unit::Milliseconds => Dim::Time,
        Unit::Kib | Unit::Mib => Dim::Size,
        Unit::Ios => Dim::Count,
        Unit::Percent => Dim::Ratio,
    }
}

/// The metrics `host.` reaches.
pub const HOST_METRICS: &[advisor_model::Metric] = &[
    advisor_model::Metric::CpuPct,
    advisor_model::Metric::AvailableMemoryMib,
    advisor_model::Metric::PagesPerSec,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_algebra_of_the_reference() {
        assert_eq!(Dim::product(Dim::Rate, Dim::Time), Some(Dim::Count));
        assert_eq!(Dim::quotient(Dim::Throughput, Dim::Rate), Some(Dim::Size));
        assert_eq!(Dim::quotient(Dim::Number, Dim::Time), Some(Dim::Rate));
        assert_eq!(Dim::quotient(Dim::Count, Dim::Time), Some(Dim::Rate));
        assert_eq!(Dim::product(Dim::Size, Dim::Rate), Some(Dim::Throughput));
        assert_eq!(Dim::product(Dim::Throughput, Dim::Ratio), Some(Dim::Throughput));
        assert_eq!(Dim::quotient(Dim::Throughput, Dim::Throughput), Some(Dim::Ratio));
        assert_eq!(Dim::quotient(Dim::Count, Dim::Count), Some(Dim::Count));
        assert_eq!(Dim::product(Dim::Rate, Dim::Rate), None);
        assert_eq!(Dim::unify(Dim::Rate, Dim::Throughput), None);
        assert_eq!(Dim::unify(Dim::Number, Dim::Ratio), Some(Dim::Ratio));
        assert_eq!(Dim::unify(Dim::Ratio, Dim::Count), None);
        assert_eq!(Dim::product(Dim::Bool, Dim::Count), None);
    }

    #[test]
    fn display_units() {
        assert_eq!(Dim::Time.display(0.002), (2.0, "ms"));
        assert_eq!(Dim::Size.display(8192.0), (8.0, "KiB"));
        assert_eq!(Dim::Size.display(4.0 * 1024.0 * 1024.0 * 1024.0), (4.0, "GiB"));
        assert_eq!(Dim::Ratio.display(0.95).1, "%");
    }
}
