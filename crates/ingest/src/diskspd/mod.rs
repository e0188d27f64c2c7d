//! Microsoft DiskSpd readers: `-Rxml` results and text results (Windows and the Linux port).
//!
//! Both readers fill the same intermediate model ([`Run`]: one DiskSpd timespan or job, with
//! its settings and per-target sums over threads), and [`build`] turns the runs into one
//! summary row per target (`time_ms = None`), a Host row with the CPU figure, an Aggregate
//! `total` row when a run had several targets, bench settings and DiskSpd's own latency
//! percentiles.
//!
//! Rates are recomputed from the byte and I/O counts over the measured test time (DiskSpd's
//! printed per-thread rates are rounded, and its "MB/s" is MiB/s in every version).

mod text;
mod xml;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use advisor_model::{
    BenchSettings, CaptureMeta, Direction, Format, Location, Metric, RawCapture, SourcePercentile,
    Table, TargetKind,
};

use crate::IngestError;
use crate::formats::{CaptureFormat, Head, Read, Sniff};

pub const XML: Format = Format::new("diskspd-xml", "DiskSpd XML results (diskspd -Rxml)", true);
pub const TEXT: Format = Format::new("diskspd-text", "DiskSpd text results", true);

/// Microsoft DiskSpd `-Rxml` results.
#[derive(Debug)]
pub struct DiskspdXml;

impl CaptureFormat for DiskspdXml {
    fn format(&self) -> Format {
        XML
    }

    fn supported(&self) -> Option<&'static str> {
        Some("DiskSpd XML (-Rxml) or text")
    }

    fn sniff(&self, head: &Head<'_>) -> Sniff {
        if head.text.starts_with('<') && head.text.contains("<Results") {
            Sniff::Yes
        } else {
            Sniff::No
        }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        read_xml(file, &text).map(Read::Table)
    }
}

/// Microsoft DiskSpd text results (Windows, and the Linux port).
#[derive(Debug)]
pub struct DiskspdText;

impl CaptureFormat for DiskspdText {
    fn format(&self) -> Format {
        TEXT
    }

    /// Named with DiskSpd XML: "DiskSpd XML (-Rxml) or text".
    fn supported(&self) -> Option<&'static str> {
        None
    }

    fn sniff(&self, head: &Head<'_>) -> Sniff {
        let has = |s: &str| head.text.contains(s);
        if (has("Command Line:") && has("diskspd"))
            || (has("Input parameters:") && (has("timespan:") || has("Results for timespan")))
        {
            Sniff::Yes
        } else {
            Sniff::No
        }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        read_text(file, &text).map(Read::Table)
    }
}

/// Reads DiskSpd XML results (`diskspd -Rxml`).
///
/// Recovers the unescaped `<PowerScheme Name="<unknown>">` DiskSpd writes when the power
/// scheme is unknown (with a warning); any other malformed XML is an error at its line:column.
pub fn read_xml(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    xml::read(file, text)
}

/// Reads DiskSpd text results: Windows 2.0.x to 2.2 and the Linux port (diskspd-for-linux),
/// one or several runs per file, with prose and shell prompts around them.
pub fn read_text(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    text::read(file, text)
}

/// Bytes in a MiB.
const MIB: f64 = 1_048_576.0;
/// Values at or above this are treated as absurd and dropped.
const ABSURD: f64 = 1e12;

/// How a target was configured, as far as the capture tells.
#[derive(Debug, Clone, Default, PartialEq)]
struct TargetSettings {
    block_size: Option<u64>,
    /// Outstanding IOs per thread (`-o`, XML `RequestCount` under the profile's Target).
    outstanding: Option<u32>,
    threads_per_file: Option<u32>,
    write_pct: Option<f64>,
    random: Option<bool>,
    /// `using mixed random/sequential I/O (N% random)`, XML `RandomRatio`.
    random_ratio: Option<f64>,
    os_cache_disabled: Option<bool>,
    write_through: Option<bool>,
    file_size: Option<u64>,
    engine: Option<String>,
    think_time_ms: Option<f64>,
    burst_size: Option<u64>,
    /// `-g` throughput limit, bytes per millisecond per thread.
    throughput_limit: Option<f64>,
}

impl TargetSettings {
    /// Fills what `self` lacks from `other`.
    fn fill_from(&mut self, other: &TargetSettings) {
        macro_rules! fill {
            ($($f:ident),*) => { $( if self.$f.is_none() { self.$f = other.$f.clone(); } )* };
        }
        fill!(
            block_size,
            outstanding,
            threads_per_file,
            write_pct,
            random,
            random_ratio,
            os_cache_disabled,
            write_through,
            file_size,
            engine,
            think_time_ms,
            burst_size,
            throughput_limit
        );
    }
}

/// Settings of one timespan (Windows) or job (Linux port).
#[derive(Debug, Clone, Default)]
struct SpanSettings {
    duration_s: Option<f64>,
    warmup_s: Option<f64>,
    cooldown_s: Option<f64>,
    /// `-D` interval in milliseconds.
    bucket_ms: Option<f64>,
    /// Thread pool (`-F`, `-O`): outstanding IOs per thread for every target.
    pool_outstanding: Option<u32>,
    /// `-F` / `total threads:`.
    total_threads: Option<u32>,
    targets: Vec<(String, TargetSettings)>,
}

impl SpanSettings {
    fn target(&self, path: &str, only_one_result: bool) -> Option<&TargetSettings> {
        let found = self.targets.iter().find(|(p, _)| p == path).map(|(_, s)| s);
        // One configured target and one result target: the same, whatever the spelling.
        found.or(match (only_one_result, self.targets.as_slice()) {
            (true, [(_, s)]) => Some(s),
            _ => None,
        })
    }
}

/// Sums over threads for one direction (read, write, or all IO).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct DirStats {
    bytes: f64,
    count: f64,
    /// Sum of (average latency x IO count) over threads that reported a latency.
    lat_sum: f64,
    lat_weight: f64,
}

impl DirStats {
    fn add(&mut self, bytes: f64, count: f64, latency_ms: Option<f64>) {
        self.bytes += bytes;
        self.count += count;
        if let Some(lat) = latency_ms.filter(|l| l.is_finite() && *l >= 0.0)
            && count > 0.0
        {
            self.lat_sum += lat * count;
            self.lat_weight += count;
        }
    }

    fn merge(&mut self, other: &DirStats) {
        self.bytes += other.bytes;
        self.count += other.count;
        self.lat_sum += other.lat_sum;
        self.lat_weight += other.lat_weight;
    }

    fn latency(&self) -> Option<f64> {
        (self.count > 0.0 && self.lat_weight > 0.0).then(|| self.lat_sum / self.lat_weight)
    }
}

/// One target of one run: results summed over its threads, with its settings.
#[derive(Debug, Clone, Default)]
struct TargetResult {
    path: String,
    settings: TargetSettings,
    threads: BTreeSet<u64>,
    read: Option<DirStats>,
    write: Option<DirStats>,
    /// All IO, when the source gives it apart (text "Total IO", XML IOCount/BytesCount).
    total: Option<DirStats>,
    percentiles: Vec<(Direction, f64, f64)>,
    /// `-D` interval buckets: sample end (ms since the measured start) -> IOs, summed over threads.
    buckets: BTreeMap<u64, f64>,
}

impl TargetResult {
    fn new(path: &str) -> Self {
        Self { path: path.to_owned(), ..Self::default() }
    }

    /// Read + write + total as three DirStats; all IO derived from read + write when the
    /// source gave no total of its own.
    fn all(&self) -> Option<DirStats> {
        if let Some(t) = self.total {
            let mut t = t;
            if t.lat_weight == 0.0 {
                // No total latency given: IO-weighted mix of the read and write averages.
                for d in [self.read, self.write].into_iter().flatten() {
                    t.lat_sum += d.lat_sum;
                    t.lat_weight += d.lat_weight;
                }
            }
            return Some(t);
        }
        match (self.read, self.write) {
            (None, None) => None,
            (r, w) => {
                let mut t = DirStats::default();
                for d in [r, w].into_iter().flatten() {
                    t.merge(&d);
                }
                Some(t)
            }
        }
    }

    /// Threads that ran on this target: as seen in the results, else as configured.
    fn thread_count(&self) -> Option<u32> {
        if self.threads.is_empty() {
            self.settings.threads_per_file
        } else {
            u32::try_from(self.threads.len()).ok()
        }
    }
}

/// One DiskSpd timespan (Windows) or job (Linux port) and its results.
#[derive(Debug, Clone, Default)]
struct Run {
    /// 1-based position of the run in the file.
    number: usize,
    host: Option<String>,
    span: SpanSettings,
    test_time_s: Option<f64>,
    thread_count: Option<u32>,
    cpu_pct: Option<f64>,
    targets: Vec<TargetResult>,
    /// Percentiles over every target of the run.
    total_percentiles: Vec<(Direction, f64, f64)>,
    /// Where the run's results start, for messages.
    location: Option<Location>,
}

impl Run {
    fn target_mut(&mut self, path: &str) -> &mut TargetResult {
        let idx = match self.targets.iter().position(|t| t.path == path) {
            Some(i) => i,
            None => {
                self.targets.push(TargetResult::new(path));
                self.targets.len() - 1
            }
        };
        // `idx` is in range: found above or just pushed.
        let len = self.targets.len();
        &mut self.targets[idx.min(len - 1)]
    }

    fn has_results(&self) -> bool {
        self.targets.iter().any(|t| t.all().is_some())
    }
}

/// Adds a metric value when it is sane; drops it with a warning otherwise.
fn put(
    values: &mut Vec<(Metric, f64)>,
    meta: &mut CaptureMeta,
    metric: Metric,
    value: f64,
    what: &str,
) {
    if value.is_finite() && (0.0..ABSURD).contains(&value) {
        values.push((metric, value));
    } else {
        meta.warn(
            format!("dropped an impossible {} value ({value}) for {what}", metric.name()),
            None,
        );
    }
}

/// Sanity check for a number read from the file that will be summed.
fn sane(value: f64) -> bool {
    value.is_finite() && (0.0..ABSURD * 1e6).contains(&value)
}

/// Percentile label of the text tables (`min`, `25th`, `3-nines`, `max`).
fn percentile_of_label(label: &str) -> Option<f64> {
    let label = label.trim();
    match label {
        "min" => return Some(0.0),
        "max" => return Some(100.0),
        _ => {}
    }
    if let Some(n) = label.strip_suffix("-nines") {
        let n: usize = n.trim().parse().ok()?;
        if !(2..=12).contains(&n) {
            return None;
        }
        // Build the literal ("99.9", "99.99" ...) so it equals what the XML spells.
        let text = format!("99.{}", "9".repeat(n - 2));
        return text.parse().ok();
    }
    let n = label.strip_suffix("th").or_else(|| label.strip_suffix("st"))?;
    let n = n.strip_suffix("nd").unwrap_or(n);
    let v: f64 = n.trim().parse().ok()?;
    (0.0..=100.0).contains(&v).then_some(v)
}

/// Size with an optional unit: `4096`, `8KiB`, `8192MB`, `496GiB`, `67108864B`, `64M`.
/// DiskSpd's units are all powers of 1024 (its old "MB" is MiB).
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let num: f64 = num.parse().ok()?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => MIB,
        "g" | "gb" | "gib" => MIB * 1024.0,
        "t" | "tb" | "tib" => MIB * MIB,
        _ => return None,
    };
    let bytes = num * mult;
    (0.0..1.8e19).contains(&bytes).then(|| bytes.round() as u64)
}

/// `random 70/30 read/write`, `sequential write`.
fn pattern(s: &TargetSettings) -> Option<String> {
    let access = match (s.random_ratio, s.random) {
        (Some(r), _) if r > 0.0 && r < 100.0 => Some(format!("{r}% random")),
        (_, Some(true)) => Some("random".to_owned()),
        (_, Some(false)) => Some("sequential".to_owned()),
        _ => None,
    };
    let mix = s.write_pct.map(|w| {
        if w <= 0.0 {
            "read".to_owned()
        } else if w >= 100.0 {
            "write".to_owned()
        } else {
            format!("{}/{} read/write", 100.0 - w, w)
        }
    });
    match (access, mix) {
        (Some(a), Some(m)) => Some(format!("{a} {m}")),
        (Some(a), None) => Some(a),
        (None, Some(m)) => Some(m),
        (None, None) => None,
    }
}

/// Pushes the metrics of one set of read/write/all sums.
#[allow(clippy::too_many_arguments)]
fn push_rates(
    values: &mut Vec<(Metric, f64)>,
    meta: &mut CaptureMeta,
    what: &str,
    secs: Option<f64>,
    read: Option<DirStats>,
    write: Option<DirStats>,
    all: Option<DirStats>,
) {
    if let Some(secs) = secs {
        if let Some(r) = read {
            put(values, meta, Metric::ReadIops, r.count / secs, what);
            put(values, meta, Metric::ReadMbps, r.bytes / MIB / secs, what);
        }
        if let Some(w) = write {
            put(values, meta, Metric::WriteIops, w.count / secs, what);
            put(values, meta, Metric::WriteMbps, w.bytes / MIB / secs, what);
        }
        if let Some(a) = all {
            put(values, meta, Metric::Iops, a.count / secs, what);
            put(values, meta, Metric::Mbps, a.bytes / MIB / secs, what);
        }
    }
    if let Some(l) = read.and_then(|r| r.latency()) {
        put(values, meta, Metric::ReadLatencyMs, l, what);
    }
    if let Some(l) = write.and_then(|w| w.latency()) {
        put(values, meta, Metric::WriteLatencyMs, l, what);
    }
    if let Some(l) = all.and_then(|a| a.latency()) {
        put(values, meta, Metric::LatencyMs, l, what);
    }
    if let (Some(r), Some(a)) = (read, all)
        && a.count > 0.0
    {
        put(values, meta, Metric::ReadPct, r.count / a.count * 100.0, what);
    }
}

fn add_percentiles(
    meta: &mut CaptureMeta,
    target: u32,
    list: &[(Direction, f64, f64)],
    what: &str,
) {
    for &(direction, percentile, latency_ms) in list {
        if latency_ms.is_finite()
            && (0.0..ABSURD).contains(&latency_ms)
            && (0.0..=100.0).contains(&percentile)
        {
            meta.percentiles.push(SourcePercentile { target, direction, percentile, latency_ms });
        } else {
            meta.warn(format!("dropped an impossible latency percentile for {what}"), None);
        }
    }
}

/// Interval IOPS (`-D`) of one target, as a sentence.
fn interval_note(t: &TargetResult, name: &str, bucket_ms: f64) -> Option<String> {
    if t.buckets.is_empty() || bucket_ms.is_nan() || bucket_ms <= 0.0 {
        return None;
    }
    let per_s: Vec<f64> = t.buckets.values().map(|c| c / (bucket_ms / 1000.0)).collect();
    let n = per_s.len() as f64;
    let mean = per_s.iter().sum::<f64>() / n;
    let min = per_s.iter().copied().fold(f64::INFINITY, f64::min);
    let max = per_s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let var = per_s.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    Some(format!(
        "{name}: IOPS per {bucket_ms} ms interval (-D, {} intervals after warm-up): \
         min {min:.0}, max {max:.0}, mean {mean:.1}, stddev {:.1}; kept as a note, the rows \
         are run summaries",
        per_s.len(),
        var.sqrt()
    ))
}

/// Turns the runs into the capture. `meta` already holds format, version and warnings.
fn build(file: &str, mut meta: CaptureMeta, runs: Vec<Run>) -> Result<RawCapture, IngestError> {
    let runs: Vec<Run> = runs.into_iter().filter(Run::has_results).collect();
    if runs.is_empty() {
        return Err(IngestError::invalid(
            file,
            None,
            "no DiskSpd results found (no target with byte or I/O counts)",
        ));
    }
    let multi = runs.len() > 1;
    let mut table = Table::default();
    let mut used: HashSet<(String, TargetKind)> = HashSet::new();
    let mut renamed: Vec<String> = Vec::new();

    for run in &runs {
        let host = run.host.as_deref();
        if let Some(h) = host {
            meta.add_host(h);
        }
        let mut unique = |name: &str, kind: TargetKind, renamed: &mut Vec<String>| -> String {
            let mut out = name.to_owned();
            if used.contains(&(out.clone(), kind)) {
                out = format!("{name} (run {})", run.number);
                renamed.push(out.clone());
            }
            used.insert((out.clone(), kind));
            out
        };
        let secs = run.test_time_s.filter(|s| *s > 0.0 && s.is_finite());
        if secs.is_none() {
            meta.warn(
                format!(
                    "run {}: no usable test time; IOPS and MB/s cannot be computed",
                    run.number
                ),
                run.location.clone(),
            );
        }
        let bucket_ms = run.span.bucket_ms.unwrap_or(1000.0);
        let single = run.targets.len() == 1;
        let mut sum_read = DirStats::default();
        let mut sum_write = DirStats::default();
        let mut sum_all = DirStats::default();
        let mut sum_qd = 0.0;
        let mut qd_known = true;
        let mut have_rw = (false, false);

        for t in &run.targets {
            let Some(all) = t.all() else { continue };
            let name = unique(&t.path, TargetKind::Benchmark, &mut renamed);
            let idx = meta.target_index(&name, TargetKind::Benchmark, host);
            let mut values = Vec::new();
            push_rates(&mut values, &mut meta, &name, secs, t.read, t.write, Some(all));
            let s = &t.settings;
            let threads = t.thread_count();
            let outstanding = s.outstanding.or(run.span.pool_outstanding);
            if let Some(bs) = s.block_size.filter(|b| *b > 0) {
                let kib = bs as f64 / 1024.0;
                put(&mut values, &mut meta, Metric::IoKib, kib, &name);
                if t.read.is_some_and(|r| r.count > 0.0) {
                    put(&mut values, &mut meta, Metric::ReadIoKib, kib, &name);
                }
                if t.write.is_some_and(|w| w.count > 0.0) {
                    put(&mut values, &mut meta, Metric::WriteIoKib, kib, &name);
                }
            } else if all.count > 0.0 {
                put(&mut values, &mut meta, Metric::IoKib, all.bytes / all.count / 1024.0, &name);
            }
            match (outstanding, threads) {
                (Some(o), Some(n)) => {
                    let qd = f64::from(o) * f64::from(n);
                    put(&mut values, &mut meta, Metric::QueueDepth, qd, &name);
                    sum_qd += qd;
                }
                _ => qd_known = false,
            }
            table.push_row(idx, None, &values);

            if let Some(r) = t.read {
                sum_read.merge(&r);
                have_rw.0 = true;
            }
            if let Some(w) = t.write {
                sum_write.merge(&w);
                have_rw.1 = true;
            }
            sum_all.merge(&all);

            let own = if t.percentiles.is_empty() && single {
                &run.total_percentiles
            } else {
                &t.percentiles
            };
            add_percentiles(&mut meta, idx, own, &name);

            meta.bench.push(BenchSettings {
                target: idx,
                tool: "DiskSpd".to_owned(),
                block_size_kib: s.block_size.map(|b| b as f64 / 1024.0),
                queue_depth_per_thread: outstanding,
                threads,
                write_pct: s.write_pct,
                random: s.random.or(s.random_ratio.map(|r| r > 0.0)),
                os_cache_disabled: s.os_cache_disabled,
                write_through: s.write_through,
                sync_every: None,
                file_size_bytes: s.file_size,
                duration_s: secs.or(run.span.duration_s),
                warmup_s: run.span.warmup_s,
                engine: s.engine.clone(),
                pattern: pattern(s),
            });
            if let Some(note) = interval_note(t, &name, bucket_ms) {
                meta.notes.push(note);
            }
            if let Some(tt) = s.think_time_ms.filter(|v| *v > 0.0) {
                meta.notes.push(format!(
                    "{name}: think time {tt} ms between IOs (burst size {}): the load was paced, \
                     not maximal",
                    s.burst_size.map_or("not stated".to_owned(), |b| b.to_string())
                ));
            }
            if let Some(g) = s.throughput_limit.filter(|v| *v > 0.0) {
                meta.notes.push(format!(
                    "{name}: throughput limited with -g to {g} bytes per ms per thread: the load \
                     was capped, not maximal"
                ));
            }
        }

        if run.targets.len() > 1 {
            // DiskSpd's own all-target total; the home of the run-wide percentiles.
            let name = unique("total", TargetKind::Aggregate, &mut renamed);
            let idx = meta.target_index(&name, TargetKind::Aggregate, host);
            let mut values = Vec::new();
            let read = have_rw.0.then_some(sum_read);
            let write = have_rw.1.then_some(sum_write);
            push_rates(&mut values, &mut meta, &name, secs, read, write, Some(sum_all));
            if sum_all.count > 0.0 {
                let kib = sum_all.bytes / sum_all.count / 1024.0;
                put(&mut values, &mut meta, Metric::IoKib, kib, &name);
            }
            if qd_known {
                put(&mut values, &mut meta, Metric::QueueDepth, sum_qd, &name);
            }
            table.push_row(idx, None, &values);
            add_percentiles(&mut meta, idx, &run.total_percentiles, &name);
        }

        if let Some(cpu) = run.cpu_pct {
            let hname = host.unwrap_or("host");
            let name = unique(hname, TargetKind::Host, &mut renamed);
            let idx = meta.target_index(&name, TargetKind::Host, host);
            let mut values = Vec::new();
            put(&mut values, &mut meta, Metric::CpuPct, cpu, &name);
            table.push_row(idx, None, &values);
        }
    }

    if multi {
        let list: Vec<String> = runs
            .iter()
            .map(|r| {
                let paths: Vec<&str> = r.targets.iter().map(|t| t.path.as_str()).collect();
                format!("run {}: {}", r.number, paths.join(", "))
            })
            .collect();
        meta.notes.push(format!(
            "{} DiskSpd runs in this file, each read as its own targets ({})",
            runs.len(),
            list.join("; ")
        ));
    }
    if !renamed.is_empty() {
        meta.notes.push(format!(
            "a path (or the host) seen in an earlier run is named with its run number, so \
             runs stay apart: {}",
            renamed.join(", ")
        ));
    }
    if runs.iter().any(|r| r.targets.len() > 1) {
        meta.notes.push(
            "'total' (kind aggregate) is DiskSpd's all-target total of a run; it carries the \
             run-wide latency percentiles"
                .to_owned(),
        );
    }
    meta.notes.push(
        "IOPS and MB/s are computed from DiskSpd's byte and I/O counts over the measured test \
         time (MiB/s); latency is the IO-weighted mean of the per-thread averages; queue depth \
         is outstanding IOs per thread x threads on the target (as configured)"
            .to_owned(),
    );
    Ok(RawCapture { meta, table, since_boot: None })
}

/// 1-based line and column (in characters) of a byte offset in `text`.
fn line_col(text: &str, offset: usize) -> Location {
    let mut off = offset.min(text.len());
    while off > 0 && !text.is_char_boundary(off) {
        off -= 1;
    }
    let head = text.get(..off).unwrap_or("");
    let line = head.matches('\n').count() as u64 + 1;
    let line_start = head.rfind('\n').map_or(0, |i| i + 1);
    let column = head.get(line_start..).map_or(0, |s| s.chars().count()) as u64 + 1;
    Location::line(line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_labels() {
        assert_eq!(percentile_of_label("min"), Some(0.0));
        assert_eq!(percentile_of_label(" 25th"), Some(25.0));
        assert_eq!(percentile_of_label("99th"), Some(99.0));
        assert_eq!(percentile_of_label("3-nines"), Some(99.9));
        assert_eq!(percentile_of_label("4-nines"), Some(99.99));
        assert_eq!(percentile_of_label("9-nines"), "99.9999999".parse().ok());
        assert_eq!(percentile_of_label("max"), Some(100.0));
        assert_eq!(percentile_of_label("total"), None);
        assert_eq!(percentile_of_label("99-nines"), None);
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("8KiB"), Some(8192));
        assert_eq!(parse_size("8192MB"), Some(8192 * 1_048_576));
        assert_eq!(parse_size("496GiB"), Some(496 * 1_073_741_824));
        assert_eq!(parse_size("67108864B"), Some(67_108_864));
        assert_eq!(parse_size("64M"), Some(64 * 1_048_576));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("12furlongs"), None);
    }

    #[test]
    fn line_col_counts_characters() {
        let t = "ab\nçd<e";
        assert_eq!(line_col(t, 0), Location::line(1, 1));
        assert_eq!(line_col(t, 3), Location::line(2, 1));
        // 'ç' is two bytes: '<' (byte 6) is the third character of line 2.
        assert_eq!(line_col(t, 6), Location::line(2, 3));
        assert_eq!(line_col(t, 999), Location::line(2, 5));
    }

    #[test]
    fn dirstats_latency_is_io_weighted() {
        let mut d = DirStats::default();
        d.add(0.0, 100.0, Some(1.0));
        d.add(0.0, 300.0, Some(3.0));
        d.add(0.0, 0.0, Some(50.0));
        assert_eq!(d.latency(), Some(2.5));
    }
}
