//! fio `--output-format=json` / `json+` reader (fio 2.1 to 3.x).
//!
//! What it copes with (see `docs/formats.md`, "fio JSON"):
//! - fio 2.x units (`slat`/`clat`/`lat` in microseconds; `io_bytes` in KiB up to 2.18) and
//!   3.x (`*_ns` in nanoseconds, `bw_bytes`), decided by the keys present;
//! - text before, between and after the JSON (fio's warnings, `fio: terminating on signal 2`,
//!   `--output-format=json,normal`), duplicate keys, fio 2.x's bare `-nan`;
//! - `--status-interval` streams (cumulative documents back to back): one row per interval
//!   from the difference of consecutive documents;
//! - `numjobs` clones without `group_reporting`: merged into one target per (job, group);
//! - the `sync` object (fsync/fdatasync cost) and the `clat` percentiles;
//! - `json+` histograms (`bins`) are accepted and not used (fio's own percentiles are).
//!
//! Targets are Benchmark targets named after the job's `filename` option (with its
//! `directory` when the name is relative), else the job name.

mod json;
mod metrics;
mod options;
mod settings;
mod stats;
mod stream;
mod sums;
mod targets;
#[cfg(test)]
mod tests;
mod text;

use std::borrow::Cow;

use advisor_model::{CaptureMeta, Format, Location, Metric, RawCapture, Table, TargetKind};

pub use self::targets::ReadOptions;

use self::json::SyntaxError;
use self::metrics::{Row, add_percentiles, busy_for, metrics, report_disks};
use self::settings::{errno_name, settings_for};
use self::stats::{Doc, Entry};
use self::stream::{check_stream, delta, describe_units, interval_of, read_documents, utc_offset};
use self::targets::{Group, make_groups};
use self::text::{outside_lines, report_outside_text};
use crate::formats::{CaptureFormat, Head, Read, Sniff};
use crate::{ErrorKind, IngestError};

pub const FORMAT: Format =
    Format::new("fio-json", "fio JSON (fio --output-format=json or json+)", true);

/// fio `--output-format=json` or `json+`.
#[derive(Debug)]
pub struct FioJson;

impl CaptureFormat for FioJson {
    fn format(&self) -> Format {
        FORMAT
    }

    fn supported(&self) -> Option<&'static str> {
        Some("fio JSON (--output-format=json)")
    }

    /// fio's JSON, possibly after its warnings or normal output; or only fio's error lines
    /// (`fio: engine libaio not loadable`), refused with that error.
    fn sniff(&self, head: &Head<'_>) -> Sniff {
        if is_fio_json(head.text) {
            return Sniff::Yes;
        }
        match fio_error_only(head.text) {
            Some(message) => Sniff::Refuse(ErrorKind::FioError { message }),
            None => Sniff::No,
        }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        read(file, &text).map(Read::Table)
    }
}

/// A JSON document whose opening brace starts a line and whose first keys include
/// `"fio version"`; fio may print warnings or its normal output before it.
fn is_fio_json(text: &str) -> bool {
    let mut lines = text.lines().map(str::trim);
    while let Some(l) = lines.by_ref().find(|l| l.starts_with('{')) {
        let rest = l.trim_start_matches('{').trim();
        if rest.starts_with("\"fio version\"") {
            return true;
        }
        if rest.is_empty() && lines.clone().take(3).any(|l| l.starts_with("\"fio version\"")) {
            return true;
        }
    }
    false
}

/// fio wrote only its own error lines (`fio: engine libaio not loadable`), no JSON.
fn fio_error_only(text: &str) -> Option<String> {
    if text.contains('{') {
        return None;
    }
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let fio_lines: Vec<&str> = lines.iter().copied().filter(|l| l.starts_with("fio: ")).collect();
    if fio_lines.is_empty() || lines.len() > 20 || fio_lines.len() * 2 < lines.len() {
        return None;
    }
    Some(fio_lines.join("; "))
}

/// Reads fio JSON output (one document, a `--status-interval` stream, or JSON inside
/// `--output-format=json,normal` text), merging `numjobs` clones.
pub fn read(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    read_with(file, text, ReadOptions::default())
}

/// [`read`] with options.
pub fn read_with(file: &str, text: &str, opts: ReadOptions) -> Result<RawCapture, IngestError> {
    if text.trim().is_empty() {
        return Err(IngestError::new(file, None, ErrorKind::Empty));
    }
    let mut meta = CaptureMeta::new(FORMAT);
    let (fixed, replaced, first_line) = json::repair_non_finite(text);
    if replaced > 0 {
        meta.warn(
            format!(
                "fio wrote {replaced} non-number(s) (nan/inf), which JSON cannot hold: \
                 read as missing values"
            ),
            first_line.map(|l| Location::line(l, 1)),
        );
    }
    let (docs, fio_said) = documents(file, fixed.as_ref(), &mut meta)?;
    let (docs, stream) = check_stream(docs, &mut meta);
    let Some(last) = docs.last() else {
        return Err(IngestError::invalid(file, None, "no fio JSON document with a `jobs` array"));
    };
    let offset_min = describe_run(last, &mut meta);
    let job_errors = job_errors(last, &mut meta);

    let groups = make_groups(last, opts);
    let mut out = Targets::default();
    let mut made: Vec<sums::Made<'_>> = Vec::new();
    for g in &groups {
        let entries: Vec<&Entry> = g.idx.iter().filter_map(|&i| last.entries.get(i)).collect();
        let Some(first) = entries.first() else { continue };
        let job = Job {
            group: g,
            label: format!("job {:?} (group {})", first.jobname, first.groupid),
            per_entry: g.jobs_per_entry(first),
            path: first.path.clone(),
            entries,
        };
        let rows = if stream {
            interval_rows(&job, &docs, offset_min, &mut meta)
        } else {
            summary_rows(&job, &groups, last, &mut out.used_disks, &mut meta)
        };
        if rows.is_empty() {
            meta.warn(
                format!("{} did no IO (runtime 0): no target made for it", job.label),
                Some(Location::json(job.path.clone())),
            );
            continue;
        }
        add_target(&mut out, &job, &rows, &mut meta);
        // Clones kept apart are one job's parts, not jobs beside each other.
        if let [(None, values)] = rows.as_slice()
            && !g.clone
        {
            made.push(sums::Made {
                group: g,
                entries: job.entries.clone(),
                values: values.clone(),
            });
        }
    }
    if !stream {
        sums::add(&made, &mut out.table, &mut meta);
    }
    if out.table.is_empty() {
        return Err(no_results(file, &job_errors, &fio_said));
    }
    if !out.cpu_notes.is_empty() {
        meta.notes.push(format!(
            "usr_cpu + sys_cpu (share of ONE CPU used by fio's own processes, summed over \
             clones; not machine CPU, so not mapped to cpu_pct): {}",
            out.cpu_notes.join(", ")
        ));
    }
    if stream {
        stream_notes(&docs, offset_min, &mut meta);
    }
    report_disks(last, &out.used_disks, &mut meta);
    record_ignored(&docs, last, &mut meta);
    Ok(RawCapture { meta, table: out.table, since_boot: None })
}

/// The fio documents of the text (text around them and a broken last one noted in
/// `meta`), and what fio said outside them.
fn documents(
    file: &str,
    text: &str,
    meta: &mut CaptureMeta,
) -> Result<(Vec<Doc>, Vec<String>), IngestError> {
    let (raw_docs, syntax) = json::parse_documents(text);
    let outside = outside_lines(text, &raw_docs, syntax.as_ref().map(|s| s.start));
    if raw_docs.is_empty() {
        return Err(no_document(file, syntax, &outside));
    }
    if let Some(e) = &syntax {
        meta.warn(
            format!(
                "JSON document {} is broken ({}), probably cut short: kept the {} complete \
                 document(s) before it",
                raw_docs.len() + 1,
                e.message,
                raw_docs.len()
            ),
            Some(e.location.clone()),
        );
    }
    let fio_said = report_outside_text(meta, &outside);
    let docs = read_documents(file, &raw_docs, meta)?;
    Ok((docs, fio_said))
}

/// The error for a text without a complete fio document: its JSON error, else what fio
/// said, else that there is none.
fn no_document(file: &str, syntax: Option<SyntaxError>, outside: &[(u64, &str)]) -> IngestError {
    if let Some(e) = syntax {
        return IngestError::invalid(
            file,
            Some(e.location),
            if e.message.starts_with("EOF while parsing") {
                format!(
                    "the JSON stops before its end (cut short while fio wrote it, or by a \
                     copy?): {}",
                    e.message
                )
            } else {
                format!("broken JSON: {}", e.message)
            },
        );
    }
    let fio: Vec<&str> =
        outside.iter().map(|(_, l)| *l).filter(|l| l.starts_with("fio: ")).collect();
    if !fio.is_empty() {
        let message = fio.join("; ");
        return IngestError::new(file, None, ErrorKind::FioError { message });
    }
    IngestError::invalid(
        file,
        None,
        "no fio JSON document (a `{` followed by \"fio version\") found",
    )
}

/// The run's version, units, time zone and end time, from its last document; the UTC
/// offset in minutes, when fio's `time` gives it.
fn describe_run(last: &Doc, meta: &mut CaptureMeta) -> Option<i32> {
    meta.version = last.version.clone();
    describe_units(last, meta);
    let offset_min = utc_offset(last);
    if let Some(off) = offset_min {
        meta.utc_offset_min = Some(off);
    }
    if let Some(t) = &last.time {
        meta.notes.push(format!("fio finished at {t} (local time of the machine)"));
    }
    offset_min
}

/// A warning for each job that ended with an error; their messages.
fn job_errors(last: &Doc, meta: &mut CaptureMeta) -> Vec<String> {
    let mut job_errors = Vec::new();
    for e in &last.entries {
        if e.error != 0 {
            let msg = format!(
                "job {:?} (group {}) ended with error {}{}",
                e.jobname,
                e.groupid,
                e.error,
                errno_name(e.error).map(|n| format!(" ({n})")).unwrap_or_default()
            );
            meta.warn(msg.clone(), Some(Location::json(format!("{}.error", e.path))));
            job_errors.push(msg);
        }
    }
    job_errors
}

/// One target to be: a group of the last document's entries (one job, or its clones).
struct Job<'a> {
    group: &'a Group,
    entries: Vec<&'a Entry>,
    /// `job "name" (group N)`, for messages.
    label: String,
    /// Processes one entry stands for ([`Group::jobs_per_entry`]).
    per_entry: u32,
    /// The JSON path of the first entry.
    path: String,
}

/// What the jobs add up to.
#[derive(Default)]
struct Targets {
    table: Table,
    /// Disks of `disk_util` given to a job's busy_pct.
    used_disks: Vec<String>,
    /// `target N%` of fio's own CPU use.
    cpu_notes: Vec<String>,
}

/// A `--status-interval` stream's rows of a job: one per interval with IO.
fn interval_rows(
    job: &Job<'_>,
    docs: &[Doc],
    offset_min: Option<i32>,
    meta: &mut CaptureMeta,
) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut idle = 0usize;
    for (k, doc) in docs.iter().enumerate() {
        let prev = k.checked_sub(1).and_then(|p| docs.get(p));
        let deltas: Vec<Entry> = job
            .group
            .idx
            .iter()
            .filter_map(|&i| {
                let cur = doc.entries.get(i)?;
                Some(delta(cur, prev.and_then(|p| p.entries.get(i))))
            })
            .collect();
        let refs: Vec<&Entry> = deltas.iter().collect();
        let values = metrics(&refs, job.per_entry, &job.label, meta, false);
        if values.is_empty() {
            idle += 1;
            continue;
        }
        let time = doc.timestamp_ms.map(|t| t + i64::from(offset_min.unwrap_or(0)) * 60_000);
        rows.push((time, values));
    }
    if idle > 0 {
        meta.notes.push(format!(
            "{}: {idle} interval(s) with no IO left out of the time series",
            job.group.name
        ));
    }
    rows
}

/// A single document's row of a job (none when it did no IO), with the busy_pct of its
/// disk when `disk_util` tells it.
fn summary_rows(
    job: &Job<'_>,
    groups: &[Group],
    last: &Doc,
    used_disks: &mut Vec<String>,
    meta: &mut CaptureMeta,
) -> Vec<Row> {
    let mut values = metrics(&job.entries, job.per_entry, &job.label, meta, true);
    if values.is_empty() {
        return Vec::new();
    }
    if let Some((busy, note)) = busy_for(job.group, groups, last, used_disks) {
        values.push((Metric::BusyPct, busy));
        meta.notes.push(note);
    }
    vec![(None, values)]
}

/// The job's target: its rows, percentiles, settings, and notes on merged clones and CPU.
fn add_target(out: &mut Targets, job: &Job<'_>, rows: &[Row], meta: &mut CaptureMeta) {
    let name = &job.group.name;
    let target = meta.target_index(name, TargetKind::Benchmark, None);
    for (time, values) in rows {
        out.table.push_row(target, *time, values);
    }
    add_percentiles(meta, target, &job.entries);
    let settings = settings_for(target, &job.entries, job.per_entry, name, meta);
    meta.bench.push(settings);
    if job.entries.len() > 1 {
        meta.notes.push(format!(
            "{name}: {} entries of {} merged (numjobs clones without group_reporting): \
             IOPS and MB/s summed, latency weighted by IOs, queue depth summed, \
             percentiles are the IO-weighted average of the clones' (approximate)",
            job.entries.len(),
            job.label
        ));
    }
    let cpu: Vec<f64> = job.entries.iter().filter_map(|e| e.cpu_pct).collect();
    if !cpu.is_empty() {
        out.cpu_notes.push(format!("{name} {:.1}%", cpu.iter().sum::<f64>()));
    }
}

/// The error when no job has results: the jobs' errors (and what fio said) if any failed.
fn no_results(file: &str, job_errors: &[String], fio_said: &[String]) -> IngestError {
    if !job_errors.is_empty() {
        let mut message = job_errors.join("; ");
        if !fio_said.is_empty() {
            message = format!("{message}; fio said: {}", fio_said.join("; "));
        }
        return IngestError::new(file, None, ErrorKind::FioError { message });
    }
    IngestError::invalid(
        file,
        Some(Location::json("$.jobs")),
        "no job has results: each ran for 0 ms or did no IO (fio's runtime is 0 in every \
         direction), so there are no rates to read; rerun fio with a runtime, e.g. \
         --runtime=60 --time_based",
    )
}

/// The notes of a `--status-interval` stream, and its interval.
fn stream_notes(docs: &[Doc], offset_min: Option<i32>, meta: &mut CaptureMeta) {
    meta.notes.push(format!(
        "{} cumulative --status-interval reports: one row per interval from the \
         difference of consecutive reports (IOs, bytes, runtime, latency sums), stamped \
         with the time of the report that closes it; busy_pct is not split per interval; \
         settings and percentiles come from the final report",
        docs.len()
    ));
    meta.interval_s = interval_of(docs);
    meta.notes.push(match offset_min {
        Some(off) => format!(
            "interval times are fio's timestamp_ms (UTC) shifted by {off} min to the wall \
             clock of its `time` field"
        ),
        None => "interval times are fio's timestamp_ms (UTC)".to_owned(),
    });
}

/// The keys of the documents that are not read, json+ histograms and trims.
fn record_ignored(docs: &[Doc], last: &Doc, meta: &mut CaptureMeta) {
    let mut job_keys: Vec<&str> = Vec::new();
    let mut dir_keys: Vec<&str> = Vec::new();
    for d in docs {
        for k in &d.ignored_job {
            if !job_keys.contains(&k.as_str()) {
                job_keys.push(k);
            }
        }
        for k in &d.ignored_dir {
            if !dir_keys.contains(&k.as_str()) {
                dir_keys.push(k);
            }
        }
    }
    if !job_keys.is_empty() {
        meta.ignore(format!("jobs[]: {}", job_keys.join(", ")));
    }
    if !dir_keys.is_empty() {
        meta.ignore(format!("jobs[].read/write: {}", dir_keys.join(", ")));
    }
    if last.entries.iter().any(|e| e.has_bins) {
        meta.ignore("clat_ns.bins / lat_ns.bins (json+ latency histograms)");
        meta.notes.push(
            "json+ histograms (bins) are not used: fio's own percentiles are read instead"
                .to_owned(),
        );
    }
    let trims: f64 = last.entries.iter().map(|e| e.trim_ios).sum();
    if trims > 0.0 {
        meta.ignore(format!("trim ({trims} trims: advisor has no trim metric)"));
    }
}
