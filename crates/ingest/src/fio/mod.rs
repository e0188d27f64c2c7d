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
mod targets;
#[cfg(test)]
mod tests;
mod text;

use std::borrow::Cow;

use advisor_model::{CaptureMeta, Format, Location, Metric, RawCapture, Table, TargetKind};

pub use self::targets::ReadOptions;

use self::metrics::{Row, add_percentiles, busy_for, metrics, report_disks};
use self::settings::{errno_name, settings_for};
use self::stats::Entry;
use self::stream::{check_stream, delta, describe_units, interval_of, read_documents, utc_offset};
use self::targets::make_groups;
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
    let text = fixed.as_ref();
    let (raw_docs, syntax) = json::parse_documents(text);
    let outside = outside_lines(text, &raw_docs, syntax.as_ref().map(|s| s.start));
    if raw_docs.is_empty() {
        if let Some(e) = syntax {
            return Err(IngestError::invalid(
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
            ));
        }
        let fio: Vec<&str> =
            outside.iter().map(|(_, l)| *l).filter(|l| l.starts_with("fio: ")).collect();
        if !fio.is_empty() {
            let message = fio.join("; ");
            return Err(IngestError::new(file, None, ErrorKind::FioError { message }));
        }
        return Err(IngestError::invalid(
            file,
            None,
            "no fio JSON document (a `{` followed by \"fio version\") found",
        ));
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
    let fio_said = report_outside_text(&mut meta, &outside);

    let docs = read_documents(file, &raw_docs, &mut meta)?;
    let (docs, stream) = check_stream(docs, &mut meta);
    let Some(last) = docs.last() else {
        return Err(IngestError::invalid(file, None, "no fio JSON document with a `jobs` array"));
    };
    meta.version = last.version.clone();
    describe_units(last, &mut meta);
    let offset_min = utc_offset(last);
    if let Some(off) = offset_min {
        meta.utc_offset_min = Some(off);
    }
    if let Some(t) = &last.time {
        meta.notes.push(format!("fio finished at {t} (local time of the machine)"));
    }

    // Jobs that failed.
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

    let groups = make_groups(last, opts);
    let mut table = Table::default();
    let mut used_disks: Vec<String> = Vec::new();
    let mut cpu_notes = Vec::new();
    for g in &groups {
        let entries: Vec<&Entry> = g.idx.iter().filter_map(|&i| last.entries.get(i)).collect();
        let Some(first) = entries.first() else { continue };
        let label = format!("job {:?} (group {})", first.jobname, first.groupid);
        let per_entry = g.jobs_per_entry(first);
        let mut rows: Vec<Row> = Vec::new();
        if stream {
            let mut idle = 0usize;
            for (k, doc) in docs.iter().enumerate() {
                let prev = k.checked_sub(1).and_then(|p| docs.get(p));
                let deltas: Vec<Entry> = g
                    .idx
                    .iter()
                    .filter_map(|&i| {
                        let cur = doc.entries.get(i)?;
                        Some(delta(cur, prev.and_then(|p| p.entries.get(i))))
                    })
                    .collect();
                let refs: Vec<&Entry> = deltas.iter().collect();
                let values = metrics(&refs, per_entry, &label, &mut meta, false);
                if values.is_empty() {
                    idle += 1;
                    continue;
                }
                let time =
                    doc.timestamp_ms.map(|t| t + i64::from(offset_min.unwrap_or(0)) * 60_000);
                rows.push((time, values));
            }
            if idle > 0 {
                meta.notes.push(format!(
                    "{}: {idle} interval(s) with no IO left out of the time series",
                    g.name
                ));
            }
        } else {
            let mut values = metrics(&entries, per_entry, &label, &mut meta, true);
            if !values.is_empty() {
                if let Some((busy, note)) = busy_for(g, &groups, last, &mut used_disks) {
                    values.push((Metric::BusyPct, busy));
                    meta.notes.push(note);
                }
                rows.push((None, values));
            }
        }
        if rows.is_empty() {
            meta.warn(
                format!("{label} did no IO (runtime 0): no target made for it"),
                Some(Location::json(first.path.clone())),
            );
            continue;
        }
        let target = meta.target_index(&g.name, TargetKind::Benchmark, None);
        for (time, values) in &rows {
            table.push_row(target, *time, values);
        }
        add_percentiles(&mut meta, target, &entries);
        let settings = settings_for(target, &entries, per_entry, &g.name, &mut meta);
        meta.bench.push(settings);
        if entries.len() > 1 {
            meta.notes.push(format!(
                "{}: {} entries of {label} merged (numjobs clones without group_reporting): \
                 IOPS and MB/s summed, latency weighted by IOs, queue depth summed, \
                 percentiles are the IO-weighted average of the clones' (approximate)",
                g.name,
                entries.len()
            ));
        }
        let cpu: Vec<f64> = entries.iter().filter_map(|e| e.cpu_pct).collect();
        if !cpu.is_empty() {
            cpu_notes.push(format!("{} {:.1}%", g.name, cpu.iter().sum::<f64>()));
        }
    }
    if table.is_empty() {
        if !job_errors.is_empty() {
            let mut message = job_errors.join("; ");
            if !fio_said.is_empty() {
                message = format!("{message}; fio said: {}", fio_said.join("; "));
            }
            return Err(IngestError::new(file, None, ErrorKind::FioError { message }));
        }
        return Err(IngestError::invalid(
            file,
            Some(Location::json("$.jobs")),
            "no job has results: each ran for 0 ms or did no IO (fio's runtime is 0 in every \
             direction), so there are no rates to read; rerun fio with a runtime, e.g. \
             --runtime=60 --time_based",
        ));
    }
    if !cpu_notes.is_empty() {
        meta.notes.push(format!(
            "usr_cpu + sys_cpu (share of ONE CPU used by fio's own processes, summed over \
             clones; not machine CPU, so not mapped to cpu_pct): {}",
            cpu_notes.join(", ")
        ));
    }
    if stream {
        meta.notes.push(format!(
            "{} cumulative --status-interval reports: one row per interval from the \
             difference of consecutive reports (IOs, bytes, runtime, latency sums), stamped \
             with the time of the report that closes it; busy_pct is not split per interval; \
             settings and percentiles come from the final report",
            docs.len()
        ));
        meta.interval_s = interval_of(&docs);
        meta.notes.push(match offset_min {
            Some(off) => format!(
                "interval times are fio's timestamp_ms (UTC) shifted by {off} min to the wall \
                 clock of its `time` field"
            ),
            None => "interval times are fio's timestamp_ms (UTC)".to_owned(),
        });
    }
    report_disks(last, &used_disks, &mut meta);
    let mut job_keys: Vec<&str> = Vec::new();
    let mut dir_keys: Vec<&str> = Vec::new();
    for d in &docs {
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
    Ok(RawCapture { meta, table, since_boot: None })
}
