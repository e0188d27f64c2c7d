use std::fmt;

use serde::Serialize;

use crate::{Location, Metric};

/// A capture format: the identity a reader stamps on what it reads.
///
/// The formats themselves are not listed here: each reader declares its own (`id`, the
/// name people know it by, whether it is a benchmark's summary), and the reader registry
/// (`advisor_ingest::FORMATS`) lists every reader once. Serialized as its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Format {
    id: &'static str,
    name: &'static str,
    benchmark: bool,
}

impl Format {
    /// `id`: stable, kebab-case, used in JSON reports (`perfmon-csv`); `name`: what a person
    /// calls it, with the command that produces it; `benchmark`: the format carries a
    /// benchmark's summary rather than a time series.
    pub const fn new(id: &'static str, name: &'static str, benchmark: bool) -> Self {
        Self { id, name, benchmark }
    }

    /// Stable identifier used in JSON reports (`perfmon-csv`, ...).
    pub fn id(self) -> &'static str {
        self.id
    }

    /// What a person calls it, with the command that produces it.
    pub fn describe(self) -> &'static str {
        self.name
    }

    /// Whether the format carries a benchmark's summary rather than a time series.
    pub fn is_benchmark(self) -> bool {
        self.benchmark
    }
}

impl Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// What a target of a capture is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// A physical disk as Windows sees it (PerfMon PhysicalDisk: `1 E:`, `3`).
    Disk,
    /// A volume or partition (PerfMon LogicalDisk `E:`, iostat `sda1`).
    Volume,
    /// A Linux block device (iostat `sdc`, `nvme0n1`, `dm-0`, `md0`).
    Device,
    /// A benchmark's target (a DiskSpd target file, a fio job).
    Benchmark,
    /// A sum the source itself computed (`_Total`, iostat `-g` groups, fio `aggr_*`).
    Aggregate,
    /// The machine as a whole (CPU, memory).
    Host,
    /// A budget the Azure platform meters (Azure Monitor): the VM's cached or uncached
    /// budget, or one disk (`LUN 0`, `OS disk`, a managed disk's name).
    Platform,
    /// A database file (SQL Server's file statistics: one data, log or tempdb file, named by
    /// its path); what it is, is in [`CaptureMeta::files`].
    File,
}

impl TargetKind {
    /// Every kind, in declaration order.
    pub const ALL: [TargetKind; 8] = [
        TargetKind::Disk,
        TargetKind::Volume,
        TargetKind::Device,
        TargetKind::Benchmark,
        TargetKind::Aggregate,
        TargetKind::Host,
        TargetKind::Platform,
        TargetKind::File,
    ];

    /// The kind as reports, the rule language (`target.kind`) and the JSON documents spell
    /// it: the same word serde writes.
    pub const fn as_str(self) -> &'static str {
        match self {
            TargetKind::Disk => "disk",
            TargetKind::Volume => "volume",
            TargetKind::Device => "device",
            TargetKind::Benchmark => "benchmark",
            TargetKind::Aggregate => "aggregate",
            TargetKind::Host => "host",
            TargetKind::Platform => "platform",
            TargetKind::File => "file",
        }
    }
}

impl std::fmt::Display for TargetKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing a capture measured, named as the capture spells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Target {
    pub name: String,
    pub kind: TargetKind,
    /// The host the capture says this target belongs to, when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

impl Target {
    pub fn new(name: impl Into<String>, kind: TargetKind, host: Option<String>) -> Self {
        Self { name: name.into(), kind, host }
    }
}

/// Read, write or both, for a source's own latency percentiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Read,
    Write,
    Total,
    /// fio's explicit `fsync`/`fdatasync` calls.
    Sync,
}

/// A latency percentile computed by the benchmark tool itself (fio clat percentiles,
/// DiskSpd `-L` buckets): finer than anything recomputable from a one-row summary.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourcePercentile {
    /// Index into [`CaptureMeta::targets`].
    pub target: u32,
    pub direction: Direction,
    /// 0 to 100, e.g. 99.99.
    pub percentile: f64,
    pub latency_ms: f64,
}

/// How a benchmark was run, per target, as far as its output tells.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BenchSettings {
    /// Index into [`CaptureMeta::targets`].
    pub target: u32,
    /// `DiskSpd`, `fio`.
    pub tool: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_size_kib: Option<f64>,
    /// Outstanding IOs per thread (DiskSpd `-o`, fio `iodepth`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_depth_per_thread: Option<u32>,
    /// Threads (DiskSpd `-t`) or processes (fio `numjobs`) on this target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// Share of writes, 0 to 100.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub random: Option<bool>,
    /// True when the OS page cache was bypassed (DiskSpd `-Sh`/`-Su`, fio `direct=1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os_cache_disabled: Option<bool>,
    /// Writes through to stable media (DiskSpd `-Sw`/`-Sh`, fio `sync=1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_through: Option<bool>,
    /// fio `fsync=N`/`fdatasync=N`: a sync every N writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync_every: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_size_bytes: Option<u64>,
    /// Measured duration in seconds (excluding warm-up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// Warm-up (DiskSpd `-W`, fio `ramp_time`) in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warmup_s: Option<f64>,
    /// fio `ioengine`, DiskSpd's IO engine where it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// fio `rw`, or a DiskSpd description such as `random 30% write`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// fio's `steadystate` check: true when every job of the target reached the steady
    /// state it waited for (its measurement is then settled, whatever its length).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<bool>,
    /// The run held itself to a rate (fio `rate`/`rate_iops`, DiskSpd `-g`): a flat
    /// result is that limit, not a cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_limited: Option<bool>,
}

/// Something a reader noticed and worked around. `count` says how many times; the
/// location is the first place it happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Warning {
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    pub count: u64,
}

impl Warning {
    pub fn new(message: impl Into<String>, location: Option<Location>) -> Self {
        Self { message: message.into(), location, count: 1 }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(loc) = &self.location {
            write!(f, "{loc}: ")?;
        }
        f.write_str(&self.message)?;
        if self.count > 1 {
            write!(f, " ({} times)", self.count)?;
        }
        Ok(())
    }
}

/// Everything a reader learned about a capture, except the samples themselves.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaptureMeta {
    pub format: Format,
    /// Tool or format version as the file states it (`PDH-CSV 4.0`, `fio-3.33`,
    /// `sysstat 12.3+ layout`, `DiskSpd 2.0.21a`), when it does.
    pub version: Option<String>,
    pub hosts: Vec<String>,
    pub targets: Vec<Target>,
    /// Sampling interval in seconds, when the source states it or it can be inferred.
    pub interval_s: Option<f64>,
    /// Local time = UTC + this many minutes (India: +330), when the source says.
    pub utc_offset_min: Option<i32>,
    /// The time zone's name as the source wrote it, possibly truncated.
    pub timezone: Option<String>,
    pub bench: Vec<BenchSettings>,
    pub percentiles: Vec<SourcePercentile>,
    /// Counters, columns or fields present in the source but not mapped to a metric.
    pub ignored: Vec<String>,
    pub warnings: Vec<Warning>,
    /// Facts worth telling the reader that are not problems (e.g. "first report is the
    /// since-boot average; kept apart from the time series").
    pub notes: Vec<String>,
    /// The only samples are averages since boot (iostat's first report, with nothing
    /// after it): they say what the disks did on average, not whether they were ever
    /// throttled or slow.
    pub since_boot_only: bool,
    /// The source has no clock: sample times are offsets from its first sample (ms from
    /// 0), not wall-clock times (iostat without `-t`, one second apart).
    pub relative_time: bool,
    /// The machine's CPU count, when the capture states it (iostat's banner `(8 CPU)`,
    /// DiskSpd's processor topology).
    pub cpus: Option<u32>,
    /// What each database file target is (SQL Server's file statistics), one per target of
    /// kind [`TargetKind::File`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<DbFile>,
    /// A capture that holds one snapshot of cumulative counters (SQL Server's file
    /// statistics taken once): the counters, so that a snapshot of the same source taken
    /// later, in another file, gives rates over the time between ([`Snapshot::rates`]).
    #[serde(skip)]
    pub snapshot: Option<Snapshot>,
}

/// The kind of a database file, as `sys.master_files.type_desc` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DbFileKind {
    /// `ROWS`: a data file (`.mdf`, `.ndf`).
    Rows,
    /// `LOG`: a transaction log (`.ldf`).
    Log,
    /// `FILESTREAM` containers.
    Filestream,
    /// `FULLTEXT` catalogs of SQL Server 2005 and earlier.
    Fulltext,
    /// The capture does not say.
    Unknown,
}

impl DbFileKind {
    /// `type_desc` as SQL Server writes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rows => "ROWS",
            Self::Log => "LOG",
            Self::Filestream => "FILESTREAM",
            Self::Fulltext => "FULLTEXT",
            Self::Unknown => "unknown",
        }
    }
}

/// A database file a capture measured (SQL Server's file statistics): what it is, beside its
/// target's series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DbFile {
    /// Index into [`CaptureMeta::targets`].
    pub target: u32,
    /// The database's name (`DB_NAME(database_id)`), when the capture gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database_id: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_id: Option<u32>,
    /// The file's logical name (`sys.master_files.name`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logical_name: Option<String>,
    /// The operating system's path (`sys.master_files.physical_name`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub kind: DbFileKind,
    /// Bytes on disk (`size_on_disk_bytes`) at the last snapshot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<f64>,
    /// The figures are averages since SQL Server started (one snapshot), not rates over an
    /// interval.
    pub since_start: bool,
}

impl DbFile {
    /// `tempdb`'s files: database id 2, or the name.
    pub fn is_tempdb(&self) -> bool {
        self.database_id == Some(2)
            || self.database.as_deref().is_some_and(|d| d.eq_ignore_ascii_case("tempdb"))
    }

    /// `master`, `model` and `msdb` (ids 1, 3, 4): placed by setup, light IO.
    pub fn is_system(&self) -> bool {
        matches!(self.database_id, Some(1 | 3 | 4))
            || self.database.as_deref().is_some_and(|d| {
                ["master", "model", "msdb"].iter().any(|s| d.eq_ignore_ascii_case(s))
            })
    }

    /// What the file is for, in the topology's words: `tempdb` (any of tempdb's files),
    /// `log`, `data`, or `other` (FILESTREAM, full-text, unknown).
    pub fn role(&self) -> crate::limits::Role {
        use crate::limits::Role;
        if self.is_tempdb() {
            return Role::Tempdb;
        }
        match self.kind {
            DbFileKind::Rows => Role::Data,
            DbFileKind::Log => Role::Log,
            _ => Role::Other,
        }
    }

    /// How a report names the database: its name, else `database N`.
    pub fn database_label(&self) -> String {
        match (&self.database, self.database_id) {
            (Some(d), _) => d.clone(),
            (None, Some(id)) => format!("database {id}"),
            (None, None) => "a database".to_owned(),
        }
    }
}

/// Cumulative IO counters of one target at one instant, as SQL Server's file statistics
/// count them since the instance started: operations, bytes and the time users waited.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counters {
    pub reads: f64,
    pub bytes_read: f64,
    /// Milliseconds users waited for the reads, in all.
    pub read_stall_ms: Option<f64>,
    pub writes: f64,
    pub bytes_written: f64,
    pub write_stall_ms: Option<f64>,
}

impl Counters {
    /// Each counter of `later` less this one's; `None` when any went back (the counters
    /// were reset: the instance restarted, the database was detached or reattached).
    pub fn delta(&self, later: &Counters) -> Option<Counters> {
        let d = |a: f64, b: f64| (b >= a).then_some(b - a);
        let stall = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => d(a, b).map(Some),
            _ => Some(None),
        };
        Some(Counters {
            reads: d(self.reads, later.reads)?,
            bytes_read: d(self.bytes_read, later.bytes_read)?,
            read_stall_ms: stall(self.read_stall_ms, later.read_stall_ms)?,
            writes: d(self.writes, later.writes)?,
            bytes_written: d(self.bytes_written, later.bytes_written)?,
            write_stall_ms: stall(self.write_stall_ms, later.write_stall_ms)?,
        })
    }

    /// The averages these counters give per operation: read and write latency (ms) and IO
    /// size (KiB), each only when the direction had operations.
    pub fn averages(&self) -> Vec<(Metric, f64)> {
        let mut out = Vec::new();
        for (n, bytes, stall, lat, size) in [
            (
                self.reads,
                self.bytes_read,
                self.read_stall_ms,
                Metric::ReadLatencyMs,
                Metric::ReadIoKib,
            ),
            (
                self.writes,
                self.bytes_written,
                self.write_stall_ms,
                Metric::WriteLatencyMs,
                Metric::WriteIoKib,
            ),
        ] {
            if n > 0.0 {
                if let Some(s) = stall {
                    out.push((lat, s / n));
                }
                out.push((size, bytes / n / 1024.0));
            }
        }
        out
    }

    /// The rates these counters (a [`Counters::delta`]) give over `seconds`, with the
    /// averages per operation: IOPS and MiB/s by direction, latency and IO size.
    pub fn rates(&self, seconds: f64) -> Vec<(Metric, f64)> {
        const MIB: f64 = 1_048_576.0;
        let mut out = vec![
            (Metric::ReadIops, self.reads / seconds),
            (Metric::WriteIops, self.writes / seconds),
            (Metric::ReadMbps, self.bytes_read / seconds / MIB),
            (Metric::WriteMbps, self.bytes_written / seconds / MIB),
        ];
        out.extend(self.averages());
        out
    }
}

/// One snapshot of cumulative counters, per target, with the clocks it was taken by.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    /// The source's own clock in ms (SQL Server's `sample_ms`: since the machine started).
    pub clock_ms: Option<i64>,
    /// Wall-clock time as written (ms since 1970, no zone applied), when the capture says.
    pub time_ms: Option<i64>,
    /// Who took it (the server), so that only snapshots of one source are joined.
    pub source: Option<String>,
    /// Per target (index into [`CaptureMeta::targets`]): its counters.
    pub counters: Vec<(u32, Counters)>,
}

impl CaptureMeta {
    pub fn new(format: Format) -> Self {
        Self {
            format,
            version: None,
            hosts: Vec::new(),
            targets: Vec::new(),
            interval_s: None,
            utc_offset_min: None,
            timezone: None,
            bench: Vec::new(),
            percentiles: Vec::new(),
            ignored: Vec::new(),
            warnings: Vec::new(),
            notes: Vec::new(),
            since_boot_only: false,
            relative_time: false,
            cpus: None,
            files: Vec::new(),
            snapshot: None,
        }
    }

    /// The index of a target, adding it when new (same name, kind and host).
    pub fn target_index(&mut self, name: &str, kind: TargetKind, host: Option<&str>) -> u32 {
        if let Some(i) = self
            .targets
            .iter()
            .position(|t| t.name == name && t.kind == kind && t.host.as_deref() == host)
        {
            return i as u32;
        }
        self.targets.push(Target::new(name, kind, host.map(str::to_owned)));
        (self.targets.len() - 1) as u32
    }

    /// Adds a host once.
    pub fn add_host(&mut self, host: &str) {
        if !self.hosts.iter().any(|h| h == host) {
            self.hosts.push(host.to_owned());
        }
    }

    /// Records a warning; the same message again only bumps its count.
    pub fn warn(&mut self, message: impl Into<String>, location: Option<Location>) {
        let message = message.into();
        if let Some(w) = self.warnings.iter_mut().find(|w| w.message == message) {
            w.count += 1;
        } else {
            self.warnings.push(Warning::new(message, location));
        }
    }

    /// Records a source field that is not mapped, once.
    pub fn ignore(&mut self, what: impl Into<String>) {
        let what = what.into();
        if !self.ignored.contains(&what) {
            self.ignored.push(what);
        }
    }
}

/// Samples in plain columns, as readers other than the CSV one produce them: one row per
/// (target, time). The normalizer turns this into the canonical polars frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    /// Index into [`CaptureMeta::targets`], one per row.
    pub target: Vec<u32>,
    /// Wall-clock time of the sample as the capture wrote it, in milliseconds since
    /// 1970-01-01T00:00:00 with no zone applied (see [`CaptureMeta::utc_offset_min`]).
    /// `None` for a summary with no time of its own.
    pub time_ms: Vec<Option<i64>>,
    /// One column per metric, each as long as `target`.
    pub columns: Vec<(Metric, Vec<Option<f64>>)>,
}

impl Table {
    pub fn len(&self) -> usize {
        self.target.len()
    }

    pub fn is_empty(&self) -> bool {
        self.target.is_empty()
    }

    /// The values of one metric, when the table has it.
    pub fn column(&self, metric: Metric) -> Option<&[Option<f64>]> {
        self.columns.iter().find(|(m, _)| *m == metric).map(|(_, v)| v.as_slice())
    }

    /// Appends a row. Metrics not seen before get a new column (earlier rows `None`);
    /// columns the row does not mention get `None`. A metric given twice keeps the last.
    pub fn push_row(&mut self, target: u32, time_ms: Option<i64>, values: &[(Metric, f64)]) {
        let row = self.target.len();
        self.target.push(target);
        self.time_ms.push(time_ms);
        for (_, col) in &mut self.columns {
            col.push(None);
        }
        for &(metric, value) in values {
            let idx = match self.columns.iter().position(|(m, _)| *m == metric) {
                Some(i) => i,
                None => {
                    self.columns.push((metric, vec![None; row + 1]));
                    self.columns.len() - 1
                }
            };
            self.columns[idx].1[row] = Some(value);
        }
    }

    /// Room for `rows` more rows in every column present now (and in the target and time
    /// vectors), so that a reader that knows its size does not grow them step by step.
    pub fn reserve(&mut self, rows: usize) {
        self.target.reserve(rows);
        self.time_ms.reserve(rows);
        for (_, col) in &mut self.columns {
            col.reserve(rows);
        }
    }

    /// The position in [`Table::columns`] of a metric's column, adding the column (every
    /// row so far `None`) when the table does not have it yet.
    ///
    /// With [`Table::push_empty_row`] and [`Table::set`], a reader resolves each metric to
    /// its column once per layout instead of once per value, as [`Table::push_row`] does.
    pub fn column_index(&mut self, metric: Metric) -> usize {
        match self.columns.iter().position(|(m, _)| *m == metric) {
            Some(i) => i,
            None => {
                self.columns.push((metric, vec![None; self.target.len()]));
                self.columns.len() - 1
            }
        }
    }

    /// Appends a row whose cells are all `None`; returns its index.
    pub fn push_empty_row(&mut self, target: u32, time_ms: Option<i64>) -> usize {
        let row = self.target.len();
        self.target.push(target);
        self.time_ms.push(time_ms);
        for (_, col) in &mut self.columns {
            col.push(None);
        }
        row
    }

    /// Sets a cell; `column` is an index from [`Table::column_index`]. Out-of-range
    /// positions are ignored.
    pub fn set(&mut self, row: usize, column: usize, value: f64) {
        if let Some(cell) = self.columns.get_mut(column).and_then(|(_, v)| v.get_mut(row)) {
            *cell = Some(value);
        }
    }

    /// Appends every row of `other` (same targets numbering).
    pub fn append(&mut self, other: &Table) {
        for row in 0..other.len() {
            let values: Vec<(Metric, f64)> =
                other.columns.iter().filter_map(|(m, v)| v[row].map(|x| (*m, x))).collect();
            self.push_row(other.target[row], other.time_ms[row], &values);
        }
    }
}

/// What a reader whose samples are plain columns returns (every reader but PerfMon CSV's,
/// whose values `advisor-normalize` parses from the text straight into the frame).
#[derive(Debug, Clone, PartialEq)]
pub struct RawCapture {
    pub meta: CaptureMeta,
    pub table: Table,
    /// iostat's first report: the average since boot, not part of the time series.
    pub since_boot: Option<Table>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_is_spelt_as_serde_writes_it() {
        for k in TargetKind::ALL {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str(), "{k:?}");
            assert_eq!(k.to_string(), k.as_str());
        }
    }

    #[test]
    fn push_row_fills_missing_cells() {
        let mut t = Table::default();
        t.push_row(0, Some(1), &[(Metric::ReadIops, 1.0)]);
        t.push_row(1, None, &[(Metric::WriteIops, 2.0)]);
        t.push_row(0, Some(2), &[(Metric::ReadIops, 3.0), (Metric::WriteIops, 4.0)]);
        assert_eq!(t.len(), 3);
        assert_eq!(t.column(Metric::ReadIops), Some(&[Some(1.0), None, Some(3.0)][..]));
        assert_eq!(t.column(Metric::WriteIops), Some(&[None, Some(2.0), Some(4.0)][..]));
        assert_eq!(t.column(Metric::Mbps), None);
    }

    #[test]
    fn column_builder_matches_push_row() {
        type Row<'a> = (u32, Option<i64>, &'a [(Metric, f64)]);
        let rows: [Row<'_>; 4] = [
            (0, Some(1), &[(Metric::ReadIops, 1.0)]),
            (1, None, &[(Metric::WriteIops, 2.0), (Metric::ReadIops, 5.0)]),
            (0, Some(2), &[(Metric::ReadIops, 3.0), (Metric::ReadIops, 4.0)]),
            (2, Some(3), &[]),
        ];
        let mut want = Table::default();
        let mut got = Table::default();
        got.reserve(4);
        for (t, time, values) in rows {
            want.push_row(t, time, values);
            let row = got.push_empty_row(t, time);
            for &(m, v) in values {
                let c = got.column_index(m);
                got.set(row, c, v);
            }
        }
        assert_eq!(got, want);
    }

    #[test]
    fn warnings_are_counted_once_per_message() {
        let mut m = CaptureMeta::new(Format::new("iostat-text", "iostat text", false));
        m.warn("skipped a broken row", Some(Location::line(3, 1)));
        m.warn("skipped a broken row", Some(Location::line(9, 1)));
        assert_eq!(m.warnings.len(), 1);
        assert_eq!(m.warnings[0].count, 2);
        assert_eq!(m.warnings[0].to_string(), "3:1: skipped a broken row (2 times)");
    }
}
