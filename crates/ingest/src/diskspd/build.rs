//! The capture from DiskSpd runs, as the XML and text readers find them: per run, a row
//! per target, DiskSpd's all-target total and the CPU; the settings of each target, and
//! notes on what the numbers are.

use std::collections::HashSet;

use advisor_model::{
    BenchSettings, CaptureMeta, Direction, Metric, RawCapture, SourcePercentile, Table, TargetKind,
};

use super::{ABSURD, DirStats, MIB, Run, TargetResult, TargetSettings};
use crate::IngestError;

/// Turns the runs into the capture. `meta` already holds format, version and warnings.
pub(super) fn build(
    file: &str,
    meta: CaptureMeta,
    runs: Vec<Run>,
) -> Result<RawCapture, IngestError> {
    let runs: Vec<Run> = runs.into_iter().filter(Run::has_results).collect();
    if runs.is_empty() {
        return Err(IngestError::invalid(
            file,
            None,
            "no DiskSpd results found (no target with byte or I/O counts)",
        ));
    }
    let mut b =
        Builder { meta, table: Table::default(), used: HashSet::new(), renamed: Vec::new() };
    for run in &runs {
        b.run(run);
    }
    let Builder { mut meta, table, renamed, .. } = b;
    closing_notes(&runs, &renamed, &mut meta);
    Ok(RawCapture { meta, table, since_boot: None })
}

/// The capture being built.
struct Builder {
    meta: CaptureMeta,
    table: Table,
    /// Target names given so far, and those renamed after their run.
    used: HashSet<(String, TargetKind)>,
    renamed: Vec<String>,
}

/// Sums over a run's targets, for its total.
#[derive(Default)]
struct Totals {
    read: DirStats,
    write: DirStats,
    all: DirStats,
    have_read: bool,
    have_write: bool,
    queue_depth: f64,
    /// A target's queue depth is unknown, so the total's is.
    queue_depth_unknown: bool,
}

impl Builder {
    /// `name`, or `name (run N)` when an earlier run used it: runs stay apart.
    fn unique(&mut self, name: &str, kind: TargetKind, run: usize) -> String {
        let mut out = name.to_owned();
        if self.used.contains(&(out.clone(), kind)) {
            out = format!("{name} (run {run})");
            self.renamed.push(out.clone());
        }
        self.used.insert((out.clone(), kind));
        out
    }

    fn run(&mut self, run: &Run) {
        let host = run.host.as_deref();
        if let Some(h) = host {
            self.meta.add_host(h);
        }
        let secs = run.test_time_s.filter(|s| *s > 0.0 && s.is_finite());
        if secs.is_none() {
            self.meta.warn(
                format!(
                    "run {}: no usable test time; IOPS and MB/s cannot be computed",
                    run.number
                ),
                run.location.clone(),
            );
        }
        let mut totals = Totals::default();
        for t in &run.targets {
            self.target(run, t, secs, &mut totals);
        }
        if run.targets.len() > 1 {
            self.total(run, secs, &totals);
        }
        if let Some(cpu) = run.cpu_pct {
            let name = self.unique(host.unwrap_or("host"), TargetKind::Host, run.number);
            let idx = self.meta.target_index(&name, TargetKind::Host, host);
            let mut values = Vec::new();
            put(&mut values, &mut self.meta, Metric::CpuPct, cpu, &name);
            self.table.push_row(idx, None, &values);
        }
    }

    /// A target's row, percentiles, settings and notes; its counts go to `totals`.
    fn target(&mut self, run: &Run, t: &TargetResult, secs: Option<f64>, totals: &mut Totals) {
        let Some(all) = t.all() else { return };
        let host = run.host.as_deref();
        let name = self.unique(&t.path, TargetKind::Benchmark, run.number);
        let meta = &mut self.meta;
        let idx = meta.target_index(&name, TargetKind::Benchmark, host);
        let mut values = Vec::new();
        push_rates(&mut values, meta, &name, secs, t.read, t.write, Some(all));
        let s = &t.settings;
        let threads = t.thread_count();
        let outstanding = s.outstanding.or(run.span.pool_outstanding);
        if let Some(bs) = s.block_size.filter(|b| *b > 0) {
            let kib = bs as f64 / 1024.0;
            put(&mut values, meta, Metric::IoKib, kib, &name);
            if t.read.is_some_and(|r| r.count > 0.0) {
                put(&mut values, meta, Metric::ReadIoKib, kib, &name);
            }
            if t.write.is_some_and(|w| w.count > 0.0) {
                put(&mut values, meta, Metric::WriteIoKib, kib, &name);
            }
        } else if all.count > 0.0 {
            put(&mut values, meta, Metric::IoKib, all.bytes / all.count / 1024.0, &name);
        }
        match (outstanding, threads) {
            (Some(o), Some(n)) => {
                let qd = f64::from(o) * f64::from(n);
                put(&mut values, meta, Metric::QueueDepth, qd, &name);
                totals.queue_depth += qd;
            }
            _ => totals.queue_depth_unknown = true,
        }
        self.table.push_row(idx, None, &values);

        if let Some(r) = t.read {
            totals.read.merge(&r);
            totals.have_read = true;
        }
        if let Some(w) = t.write {
            totals.write.merge(&w);
            totals.have_write = true;
        }
        totals.all.merge(&all);

        let single = run.targets.len() == 1;
        let own = if t.percentiles.is_empty() && single {
            &run.total_percentiles
        } else {
            &t.percentiles
        };
        add_percentiles(meta, idx, own, &name);
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
            steady_state: None,
            rate_limited: s.throughput_limit.map(|g| g > 0.0),
        });
        let bucket_ms = run.span.bucket_ms.unwrap_or(1000.0);
        target_notes(t, &name, bucket_ms, meta);
    }

    /// DiskSpd's all-target total of a run: the home of the run-wide percentiles.
    fn total(&mut self, run: &Run, secs: Option<f64>, totals: &Totals) {
        let host = run.host.as_deref();
        let name = self.unique("total", TargetKind::Aggregate, run.number);
        let meta = &mut self.meta;
        let idx = meta.target_index(&name, TargetKind::Aggregate, host);
        let mut values = Vec::new();
        let read = totals.have_read.then_some(totals.read);
        let write = totals.have_write.then_some(totals.write);
        push_rates(&mut values, meta, &name, secs, read, write, Some(totals.all));
        if totals.all.count > 0.0 {
            let kib = totals.all.bytes / totals.all.count / 1024.0;
            put(&mut values, meta, Metric::IoKib, kib, &name);
        }
        if !totals.queue_depth_unknown {
            put(&mut values, meta, Metric::QueueDepth, totals.queue_depth, &name);
        }
        self.table.push_row(idx, None, &values);
        add_percentiles(meta, idx, &run.total_percentiles, &name);
    }
}

/// Notes on a target's IOPS per interval, think time and throughput limit.
fn target_notes(t: &TargetResult, name: &str, bucket_ms: f64, meta: &mut CaptureMeta) {
    let s = &t.settings;
    if let Some(note) = interval_note(t, name, bucket_ms) {
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

/// The notes on the runs of the file and on what the numbers are.
fn closing_notes(runs: &[Run], renamed: &[String], meta: &mut CaptureMeta) {
    if runs.len() > 1 {
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
    )
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
