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
mod options;
mod stats;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

use advisor_model::{
    BenchSettings, CaptureMeta, Direction, Format, Location, Metric, RawCapture, SourcePercentile,
    Table, TargetKind,
};

use self::json::Document;
use self::options::{Size, parse_bs, parse_count, parse_flag, parse_size, parse_time_s};
use self::stats::{DirStats, Doc, Entry, Fields, Lat, SyncStats};
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

const MIB: f64 = 1_048_576.0;

/// How [`read_with`] reads a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Merge the entries of `numjobs` clones (same job name and group, printed one by one
    /// without `group_reporting`) into one target. When false each clone is its own target,
    /// named `<target>#<n>`.
    pub merge_clones: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self { merge_clones: true }
    }
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

/// Lines of the file outside the JSON documents, with their 1-based numbers.
fn outside_lines<'a>(
    text: &'a str,
    docs: &[Document],
    broken: Option<usize>,
) -> Vec<(u64, &'a str)> {
    let mut ranges = Vec::new();
    let mut pos = 0usize;
    for d in docs {
        ranges.push((pos, d.start));
        pos = d.end;
    }
    ranges.push((pos, broken.unwrap_or(text.len()).max(pos)));
    let mut out = Vec::new();
    for (a, b) in ranges {
        let Some(seg) = text.get(a..b) else { continue };
        let first = json::line_of(text, a);
        for (n, line) in seg.lines().enumerate() {
            let line = line.trim();
            if !line.is_empty() {
                out.push((first + n as u64, line));
            }
        }
    }
    out
}

/// Turns fio's own messages into warnings and summarizes normal text output. Returns the
/// lines made warnings (fio's messages).
fn report_outside_text(meta: &mut CaptureMeta, lines: &[(u64, &str)]) -> Vec<String> {
    let normal = lines.iter().any(|(_, l)| {
        l.starts_with("Run status group") || l.contains("(groupid=") || l.starts_with("Starting ")
    });
    let mut fio_said = Vec::new();
    let mut others = 0usize;
    for &(n, line) in lines {
        if let Some(msg) = line.strip_prefix("fio: ") {
            meta.warn(format!("fio said: {msg}"), Some(Location::line(n, 1)));
            fio_said.push(line.to_owned());
            if let Some(sig) = msg.strip_prefix("terminating on signal ") {
                meta.notes.push(format!(
                    "the run was interrupted (signal {sig}): the results cover the time before"
                ));
            }
        } else if !normal && lines.len() <= 10 {
            meta.warn(format!("text outside the JSON: {line}"), Some(Location::line(n, 1)));
            fio_said.push(line.to_owned());
        } else {
            others += 1;
        }
    }
    if others > 0 {
        meta.notes.push(if normal {
            format!(
                "{others} line(s) of fio's normal text output around the JSON skipped \
                 (--output-format=json,normal); the JSON was read"
            )
        } else {
            format!("{others} line(s) of text outside the JSON skipped")
        });
    }
    fio_said
}

fn read_documents(
    file: &str,
    raw: &[Document],
    meta: &mut CaptureMeta,
) -> Result<Vec<Doc>, IngestError> {
    let multi = raw.len() > 1;
    let mut docs = Vec::new();
    let mut first_bad = None;
    for (i, d) in raw.iter().enumerate() {
        let prefix = if multi { format!("document {}: ", i + 1) } else { String::new() };
        let mut f = Fields { meta: &mut *meta, doc: prefix };
        match stats::read_doc(&d.root, &mut f) {
            Ok(doc) => docs.push(doc),
            Err(b) => {
                if !multi {
                    return Err(IngestError::invalid(
                        file,
                        Some(Location::json(b.path)),
                        b.message,
                    ));
                }
                f.warn_bad(&b, "document");
                first_bad.get_or_insert(b);
            }
        }
    }
    if docs.is_empty() {
        let (loc, msg) = match first_bad {
            Some(b) => (Some(Location::json(b.path)), b.message),
            None => (None, "no fio JSON document".to_owned()),
        };
        return Err(IngestError::invalid(file, loc, msg));
    }
    Ok(docs)
}

/// Several documents must be one cumulative `--status-interval` stream: same entries in the
/// same order, counters never going back, times increasing. Otherwise only the last is read.
fn check_stream(mut docs: Vec<Doc>, meta: &mut CaptureMeta) -> (Vec<Doc>, bool) {
    if docs.len() < 2 {
        return (docs, false);
    }
    let why = stream_problem(&docs);
    match why {
        None => (docs, true),
        Some(why) => {
            meta.warn(
                format!(
                    "the file holds {} JSON documents that are not one cumulative \
                     --status-interval stream ({why}): only the last one is read",
                    docs.len()
                ),
                None,
            );
            let last = docs.pop();
            (last.into_iter().collect(), false)
        }
    }
}

fn stream_problem(docs: &[Doc]) -> Option<String> {
    let keys = |d: &Doc| -> Vec<(String, i64)> {
        d.entries.iter().map(|e| (e.jobname.clone(), e.groupid)).collect()
    };
    let first = docs.first().map(keys)?;
    for (k, pair) in docs.windows(2).enumerate() {
        let [a, b] = pair else { continue };
        if keys(b) != first {
            return Some(format!("document {} lists other jobs", k + 2));
        }
        match (a.timestamp_ms, b.timestamp_ms) {
            (Some(ta), Some(tb)) if tb > ta => {}
            _ => return Some(format!("document {} has no later timestamp", k + 2)),
        }
        for (ea, eb) in a.entries.iter().zip(&b.entries) {
            for (da, db) in [(&ea.read, &eb.read), (&ea.write, &eb.write)] {
                let (Some(da), Some(db)) = (da, db) else { continue };
                let back = |x: Option<f64>, y: Option<f64>| match (x, y) {
                    (Some(x), Some(y)) => y + 1e-9 < x,
                    _ => false,
                };
                if back(da.ios, db.ios)
                    || back(da.io_bytes, db.io_bytes)
                    || back(da.runtime_ms, db.runtime_ms)
                {
                    return Some(format!("counters go back in document {}", k + 2));
                }
            }
        }
    }
    None
}

/// Median spacing of the documents' timestamps, in seconds.
fn interval_of(docs: &[Doc]) -> Option<f64> {
    let mut gaps: Vec<i64> = docs
        .windows(2)
        .filter_map(|w| match w {
            [a, b] => Some(b.timestamp_ms? - a.timestamp_ms?),
            _ => None,
        })
        .filter(|g| *g > 0)
        .collect();
    gaps.sort_unstable();
    let mid = gaps.get(gaps.len() / 2)?;
    Some((*mid as f64 / 1000.0 * 10.0).round() / 10.0)
}

/// Minutes to add to UTC to reach the machine's wall clock, from `time` (ctime, local) and
/// `timestamp_ms` (UTC epoch).
fn utc_offset(doc: &Doc) -> Option<i32> {
    let utc_ms = doc.timestamp_ms?;
    let text = doc.time.as_deref()?;
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let local = chrono::NaiveDateTime::parse_from_str(&text, "%a %b %d %H:%M:%S %Y").ok()?;
    let local_s = local.and_utc().timestamp();
    let diff_s = local_s - utc_ms.div_euclid(1000);
    let minutes = (diff_s as f64 / 60.0).round();
    // Real zones sit on 15-minute steps within +-14 h.
    let quarter = (minutes / 15.0).round() * 15.0;
    if minutes.abs() > 14.0 * 60.0 || (minutes - quarter).abs() > 1.0 {
        return None;
    }
    i32::try_from(quarter as i64).ok()
}

fn describe_units(doc: &Doc, meta: &mut CaptureMeta) {
    use self::stats::TimeUnit;
    let major = doc.version.as_deref().and_then(stats::version_number).map(|v| v.0);
    let us = doc.latency_units.contains(&TimeUnit::Us);
    let ns = doc.latency_units.contains(&TimeUnit::Ns);
    if us {
        meta.notes
            .push("latencies read from slat/clat/lat in microseconds (fio 2.x layout)".to_owned());
    }
    if (us && major == Some(3)) || (ns && major == Some(2)) {
        meta.notes.push(
            "the fio version and the latency keys disagree: units taken from the keys".to_owned(),
        );
    }
    if doc.io_kib {
        meta.notes.push(
            "io_bytes holds KiB in this fio version (no io_kbytes key; consistent with \
             bw x runtime): converted to bytes"
                .to_owned(),
        );
    }
    meta.notes.push(
        "latency is fio's total `lat` mean (submission + completion, what the program \
         waited); source percentiles are fio's `clat` (completion) percentiles"
            .to_owned(),
    );
}

/// A target: job entries of one (job name, group), or one clone.
#[derive(Debug)]
struct Group {
    idx: Vec<usize>,
    name: String,
    files: Vec<String>,
    /// One clone of several, kept apart (`merge_clones: false`).
    clone: bool,
}

impl Group {
    /// Processes one entry stands for: `numjobs` for a lone entry (a `group_reporting`
    /// entry sums the group's jobs), 1 for clones printed one by one.
    fn jobs_per_entry(&self, first: &Entry) -> u32 {
        if self.clone || self.idx.len() > 1 {
            1
        } else {
            first.options.get("numjobs").and_then(parse_count).unwrap_or(1).max(1)
        }
    }
}

fn make_groups(doc: &Doc, opts: ReadOptions) -> Vec<Group> {
    let mut keyed: Vec<((String, i64), Vec<usize>)> = Vec::new();
    for (i, e) in doc.entries.iter().enumerate() {
        let key = (e.jobname.clone(), e.groupid);
        match keyed.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(i),
            None => keyed.push((key, vec![i])),
        }
    }
    let mut out: Vec<(Group, (String, i64))> = Vec::new();
    for (key, idx) in keyed {
        let Some(first) = idx.first().and_then(|&i| doc.entries.get(i)) else { continue };
        let (base, files) = base_name(first);
        if opts.merge_clones || idx.len() == 1 {
            out.push((Group { idx, name: base, files, clone: false }, key));
        } else {
            for (n, i) in idx.iter().enumerate() {
                let g = Group {
                    idx: vec![*i],
                    name: format!("{base}#{}", n + 1),
                    files: files.clone(),
                    clone: true,
                };
                out.push((g, key.clone()));
            }
        }
    }
    // Several jobs on the same file (or several groups of one job) get the job name added.
    let names: Vec<String> = out.iter().map(|(g, _)| g.name.clone()).collect();
    for (g, (job, gid)) in &mut out {
        if names.iter().filter(|n| **n == g.name).count() > 1 && g.name != *job {
            g.name = format!("{} ({job})", g.name);
        }
        let _ = gid;
    }
    let names: Vec<String> = out.iter().map(|(g, _)| g.name.clone()).collect();
    for (g, (_, gid)) in &mut out {
        if names.iter().filter(|n| **n == g.name).count() > 1 {
            g.name = format!("{} (group {gid})", g.name);
        }
    }
    out.into_iter().map(|(g, _)| g).collect()
}

/// The target name of a job: its `filename` (several values joined with `:` as fio lists
/// several files), prefixed by `directory` when relative; else the job name.
fn base_name(e: &Entry) -> (String, Vec<String>) {
    let mut names: Vec<&str> = Vec::new();
    for n in e.options.all("filename") {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    let dir = e.options.get("directory").map(|d| d.trim_end_matches('/').to_owned());
    if names.is_empty() {
        return (e.jobname.clone(), Vec::new());
    }
    let mut files: Vec<String> = Vec::new();
    for n in &names {
        for f in split_files(n) {
            let path = match &dir {
                Some(d) if !f.starts_with('/') && !f.contains('\\') && !d.is_empty() => {
                    format!("{d}/{f}")
                }
                _ => f,
            };
            files.push(path);
        }
    }
    let name = if names.len() == 1 && dir.is_none() {
        names.first().map(|s| (*s).to_owned()).unwrap_or_default()
    } else {
        files.join(":")
    };
    (name, files)
}

/// fio separates several files with `:`; `\:` is a literal colon (Windows drive letters).
fn split_files(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&':') {
            cur.push(':');
            chars.next();
        } else if c == ':' {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// One interval of an entry: the difference to the previous document (or the document
/// itself for the first interval).
fn delta(cur: &Entry, prev: Option<&Entry>) -> Entry {
    let mut out = cur.clone();
    out.read = cur.read.as_ref().map(|c| dir_delta(c, prev.and_then(|p| p.read.as_ref())));
    out.write = cur.write.as_ref().map(|c| dir_delta(c, prev.and_then(|p| p.write.as_ref())));
    out.sync = cur.sync.as_ref().map(|c| {
        let p = prev.and_then(|p| p.sync.as_ref());
        let p_ios = p.map(|p| p.ios).unwrap_or(0.0);
        SyncStats {
            ios: (c.ios - p_ios).max(0.0),
            lat: lat_delta(
                c.lat.as_ref(),
                Some(c.ios),
                p.and_then(|p| p.lat.as_ref()),
                Some(p_ios),
            ),
            pct: Vec::new(),
        }
    });
    out
}

fn dir_delta(c: &DirStats, p: Option<&DirStats>) -> DirStats {
    let sub = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => Some((x - y).max(0.0)),
        (Some(x), None) => Some(x),
        _ => None,
    };
    let p_ios = p.and_then(|p| p.ios).or(p.map(|_| 0.0));
    DirStats {
        io_bytes: sub(c.io_bytes, p.and_then(|p| p.io_bytes)),
        ios: sub(c.ios, p.and_then(|p| p.ios)),
        runtime_ms: sub(c.runtime_ms, p.and_then(|p| p.runtime_ms)),
        // Rates are recomputed from the differences.
        iops: None,
        bw: None,
        lat: lat_delta(c.lat.as_ref(), c.ios, p.and_then(|p| p.lat.as_ref()), p_ios),
        pct: Vec::new(),
    }
}

/// Mean of the IOs completed between two cumulative means: (m2 n2 - m1 n1) / (n2 - n1).
fn lat_delta(
    c: Option<&Lat>,
    c_ios: Option<f64>,
    p: Option<&Lat>,
    p_ios: Option<f64>,
) -> Option<Lat> {
    let c = c?;
    let cn = c.n.or(c_ios)?;
    let (pm, pn) = match p {
        Some(p) => (p.mean_ms, p.n.or(p_ios).unwrap_or(0.0)),
        None => (0.0, 0.0),
    };
    let dn = cn - pn;
    if dn <= 0.0 {
        return None;
    }
    let mean = (c.mean_ms * cn - pm * pn) / dn;
    (mean.is_finite() && mean >= 0.0).then_some(Lat { mean_ms: mean, n: Some(dn) })
}

/// Equal up to rounding (values parsed from the same text compare equal).
fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn same_range(a: (f64, f64), b: (f64, f64)) -> bool {
    same(a.0, b.0) && same(a.1, b.1)
}

/// Values of one row, and its time.
type Row = (Option<i64>, Vec<(Metric, f64)>);

/// Aggregated numbers of one direction over the entries of a target.
#[derive(Debug)]
struct DirAgg {
    iops: f64,
    mbps: Option<f64>,
    lat_ms: Option<f64>,
    io_kib: Option<f64>,
}

fn aggregate(dirs: &[&DirStats], bs_bytes: Option<f64>) -> Option<DirAgg> {
    let mut iops = 0.0;
    let mut bw = 0.0;
    let mut bw_known = true;
    let mut lat_sum = 0.0;
    let mut lat_w = 0.0;
    let mut bytes = 0.0;
    let mut ios = 0.0;
    let mut counted = true;
    let mut any = false;
    for d in dirs {
        let rt_s = d.runtime_ms? / 1000.0;
        if rt_s <= 0.0 {
            continue;
        }
        let i = match d.iops.filter(|v| *v > 0.0).or(d.ios.map(|n| n / rt_s)) {
            Some(i) => i,
            None => match (d.io_bytes, bs_bytes) {
                (Some(b), Some(bs)) if bs > 0.0 => b / bs / rt_s,
                _ => continue,
            },
        };
        any = true;
        iops += i;
        match d.bw.or(d.io_bytes.map(|b| b / rt_s)) {
            Some(b) => bw += b,
            None => bw_known = false,
        }
        if let Some(l) = &d.lat {
            let w = l.n.filter(|n| *n > 0.0).or(d.ios).unwrap_or(i * rt_s);
            if w > 0.0 {
                lat_sum += l.mean_ms * w;
                lat_w += w;
            }
        }
        match (d.io_bytes, d.ios) {
            (Some(b), Some(n)) => {
                bytes += b;
                ios += n;
            }
            _ => counted = false,
        }
    }
    if !any {
        return None;
    }
    let mbps = bw_known.then_some(bw / MIB);
    let io_kib = if counted && ios > 0.0 {
        Some(bytes / ios / 1024.0)
    } else if let Some(bs) = bs_bytes {
        Some(bs / 1024.0)
    } else if bw_known && iops > 0.0 {
        Some(bw / iops / 1024.0)
    } else {
        None
    };
    Some(DirAgg { iops, mbps, lat_ms: (lat_w > 0.0).then(|| lat_sum / lat_w), io_kib })
}

/// Block size of one direction from the options, in bytes, when fixed.
fn option_bs(e: &Entry, write: bool) -> Option<f64> {
    let kb = e.options.kb_base();
    let v = e.options.get_any(&["bs", "blocksize", "bsrange", "blocksize_range"])?;
    let (r, w) = parse_bs(v, kb)?;
    let (lo, hi) = if write { w } else { r };
    same(lo, hi).then_some(lo)
}

/// The metrics of one row: read and write parts, sync latency and queue depth.
fn metrics(
    entries: &[&Entry],
    per_entry: u32,
    label: &str,
    meta: &mut CaptureMeta,
    summary: bool,
) -> Vec<(Metric, f64)> {
    let mut out: Vec<(Metric, f64)> = Vec::new();
    let mut any_dir = false;
    for (write, name) in [(false, "read"), (true, "write")] {
        let mut dirs: Vec<&DirStats> = Vec::new();
        for e in entries {
            let d = if write { e.write.as_ref() } else { e.read.as_ref() };
            let Some(d) = d else { continue };
            if !d.has_io() {
                continue;
            }
            if d.runtime_ms.unwrap_or(0.0) <= 0.0 {
                if summary {
                    meta.warn(
                        format!("{label}: {name} IO with zero runtime: {name} skipped"),
                        Some(Location::json(format!("{}.{name}.runtime", e.path))),
                    );
                }
                continue;
            }
            dirs.push(d);
        }
        if dirs.is_empty() {
            continue;
        }
        let bs = entries.first().and_then(|e| option_bs(e, write));
        let Some(agg) = aggregate(&dirs, bs) else { continue };
        any_dir = true;
        let (m_iops, m_mbps, m_lat, m_kib) = if write {
            (Metric::WriteIops, Metric::WriteMbps, Metric::WriteLatencyMs, Metric::WriteIoKib)
        } else {
            (Metric::ReadIops, Metric::ReadMbps, Metric::ReadLatencyMs, Metric::ReadIoKib)
        };
        out.push((m_iops, agg.iops));
        if let Some(v) = agg.mbps {
            out.push((m_mbps, v));
        }
        if let Some(v) = agg.lat_ms {
            out.push((m_lat, v));
        }
        if let Some(v) = agg.io_kib {
            out.push((m_kib, v));
        }
    }
    if !any_dir {
        return Vec::new();
    }
    // fsync/fdatasync: their cost sits here while write clat stays small.
    let (mut s_sum, mut s_w) = (0.0, 0.0);
    for e in entries {
        let Some(s) = &e.sync else { continue };
        let Some(l) = &s.lat else { continue };
        let w = l.n.filter(|n| *n > 0.0).unwrap_or(s.ios);
        if w > 0.0 {
            s_sum += l.mean_ms * w;
            s_w += w;
        }
    }
    if s_w > 0.0 {
        out.push((Metric::SyncLatencyMs, s_sum / s_w));
    }
    let qd: f64 = entries.iter().map(|e| entry_depth(e) * f64::from(per_entry)).sum();
    if qd > 0.0 {
        out.push((Metric::QueueDepth, qd));
    }
    // Nothing absurd is stored.
    out.retain(|(m, v)| {
        let ok = v.is_finite() && *v >= 0.0 && *v < 1e13;
        if !ok {
            meta.warn(format!("{label}: absurd {m} = {v} dropped"), None);
        }
        ok
    });
    out
}

/// Outstanding IOs of one entry: the measured `iodepth_level` average, else the configured
/// `iodepth`, else `latency_depth`. Per job: a `group_reporting` entry's levels are the
/// distribution of one job, so the caller multiplies by the jobs the entry stands for.
fn entry_depth(e: &Entry) -> f64 {
    let configured = e.options.get("iodepth").and_then(parse_count).map(f64::from);
    e.depth_avg.or(configured).or(e.latency_depth).unwrap_or(0.0)
}

fn add_percentiles(meta: &mut CaptureMeta, target: u32, entries: &[&Entry]) {
    let mut push = |direction: Direction, lists: Vec<(&[(f64, f64)], f64)>| {
        for (p, ms) in merge_percentiles(&lists) {
            meta.percentiles.push(SourcePercentile {
                target,
                direction,
                percentile: p,
                latency_ms: ms,
            });
        }
    };
    let weight =
        |d: &DirStats| d.ios.or(d.lat.as_ref().and_then(|l| l.n)).or(d.iops).unwrap_or(1.0);
    let reads = entries
        .iter()
        .filter_map(|e| e.read.as_ref())
        .filter(|d| d.has_io() && !d.pct.is_empty())
        .map(|d| (d.pct.as_slice(), weight(d)))
        .collect();
    push(Direction::Read, reads);
    let writes = entries
        .iter()
        .filter_map(|e| e.write.as_ref())
        .filter(|d| d.has_io() && !d.pct.is_empty())
        .map(|d| (d.pct.as_slice(), weight(d)))
        .collect();
    push(Direction::Write, writes);
    let syncs = entries
        .iter()
        .filter_map(|e| e.sync.as_ref())
        .filter(|s| s.ios > 0.0 && !s.pct.is_empty())
        .map(|s| (s.pct.as_slice(), s.ios))
        .collect();
    push(Direction::Sync, syncs);
}

/// One list as is; several (clones) averaged per percentile, weighted by IOs.
fn merge_percentiles(lists: &[(&[(f64, f64)], f64)]) -> Vec<(f64, f64)> {
    let Some((first, _)) = lists.first() else { return Vec::new() };
    let mut out = Vec::new();
    for &(p, _) in first.iter() {
        let mut sum = 0.0;
        let mut w = 0.0;
        let mut everywhere = true;
        for (list, weight) in lists {
            match list.iter().find(|(q, _)| same(*q, p)) {
                Some((_, v)) => {
                    sum += v * weight;
                    w += weight;
                }
                None => everywhere = false,
            }
        }
        if everywhere && w > 0.0 {
            out.push((p, sum / w));
        }
    }
    out
}

/// busy_pct from `disk_util` when it names the target's device (`/dev/sdc` -> `sdc`), or
/// when the run had one target and fio measured one device (an md/dm device with its
/// members counts as one: the one with `aggr_*`).
fn busy_for(
    g: &Group,
    groups: &[Group],
    doc: &Doc,
    used: &mut Vec<String>,
) -> Option<(f64, String)> {
    let disks = &doc.disk_util;
    let devs: Vec<&str> = g.files.iter().filter_map(|f| f.strip_prefix("/dev/")).collect();
    let matched: Vec<&stats::DiskUtil> =
        disks.iter().filter(|d| devs.iter().any(|v| *v == d.name)).collect();
    let (disk, why) = match matched.as_slice() {
        [one] => (*one, "names the target's device"),
        [] => {
            let with_aggr: Vec<&stats::DiskUtil> =
                disks.iter().filter(|d| d.aggr_util.is_some()).collect();
            let roots = if with_aggr.is_empty() { disks.iter().collect() } else { with_aggr };
            match (groups.len(), roots.as_slice()) {
                (1, [one]) if devs.is_empty() => (*one, "the only device fio measured"),
                _ => return None,
            }
        }
        _ => return None,
    };
    let (value, field) = match (disk.aggr_util, disk.util) {
        (Some(a), _) => (a, "aggr_util, the average of its member disks"),
        (None, Some(u)) => (u, "util"),
        _ => return None,
    };
    used.push(disk.name.clone());
    let note =
        format!("{}: busy_pct {value:.1}% from disk_util {} {field} ({why})", g.name, disk.name);
    Some((value, note))
}

fn report_disks(doc: &Doc, used: &[String], meta: &mut CaptureMeta) {
    for d in &doc.disk_util {
        if used.contains(&d.name) {
            continue;
        }
        meta.ignore(format!("disk_util {}", d.name));
        let util = d.aggr_util.or(d.util).map(|u| format!("{u:.1}% busy")).unwrap_or_default();
        meta.notes.push(format!(
            "disk_util {}: {util}, {} reads, {} writes over the run; not tied to a target",
            d.name,
            d.read_ios.unwrap_or(0.0),
            d.write_ios.unwrap_or(0.0)
        ));
    }
}

/// The benchmark settings of a target, from the options (job over global) and the
/// measured runtime.
fn settings_for(
    target: u32,
    entries: &[&Entry],
    per_entry: u32,
    name: &str,
    meta: &mut CaptureMeta,
) -> BenchSettings {
    let mut s = BenchSettings { target, tool: "fio".to_owned(), ..BenchSettings::default() };
    let Some(first) = entries.first() else { return s };
    let o = &first.options;
    let known = o.is_known();
    let kb = o.kb_base();

    let rw =
        o.get_any(&["rw", "readwrite"]).map(str::to_owned).or(known.then(|| "read".to_owned()));
    if let Some(rw) = &rw {
        let base = rw.split(':').next().unwrap_or_default().trim().to_ascii_lowercase();
        s.random = Some(base.contains("rand"));
        s.write_pct = match base.as_str() {
            "read" | "randread" => Some(0.0),
            "write" | "randwrite" => Some(100.0),
            "rw" | "readwrite" | "randrw" => {
                let num = |k: &str| o.get(k).and_then(|v| v.trim().parse::<f64>().ok());
                match (num("rwmixwrite"), num("rwmixread")) {
                    (Some(w), _) if (0.0..=100.0).contains(&w) => Some(w),
                    (_, Some(r)) if (0.0..=100.0).contains(&r) => Some(100.0 - r),
                    _ => Some(50.0),
                }
            }
            "trimwrite" => Some(50.0),
            _ => None,
        };
        s.pattern = Some(rw.clone());
    }
    if let Some(v) = o.get_any(&["bs", "blocksize", "bsrange", "blocksize_range"]) {
        match parse_bs(v, kb) {
            Some((r, w)) => {
                let pick = match s.write_pct {
                    Some(p) if p <= 0.0 => Some(r),
                    Some(p) if p >= 100.0 => Some(w),
                    _ => same_range(r, w).then_some(r),
                };
                match pick {
                    Some((lo, hi)) if same(lo, hi) => s.block_size_kib = Some(lo / 1024.0),
                    _ => meta.notes.push(format!(
                        "{name}: block size {v:?} varies (range or per direction): \
                         block_size_kib left empty, see the measured read/write_io_kib"
                    )),
                }
            }
            None => meta.warn(format!("{name}: block size {v:?} not understood"), None),
        }
    } else if known {
        s.block_size_kib = Some(4.0);
    }
    s.queue_depth_per_thread = match o.get("iodepth") {
        Some(v) => parse_count(v),
        None if known => Some(1),
        None => first.latency_depth.filter(|d| *d >= 1.0 && *d <= 1e6).map(|d| d as u32),
    };
    s.threads = u32::try_from(entries.len()).ok().map(|n| n.saturating_mul(per_entry));
    if known {
        let direct = o.get("direct").and_then(parse_flag);
        let buffered = o.get("buffered").and_then(parse_flag);
        s.os_cache_disabled = Some(direct.or(buffered.map(|b| !b)).unwrap_or(false));
        s.write_through =
            Some(o.get_any(&["sync", "o_sync"]).and_then(parse_flag).unwrap_or(false));
    }
    s.sync_every = o
        .get("fsync")
        .and_then(parse_count)
        .filter(|n| *n > 0)
        .or_else(|| o.get("fdatasync").and_then(parse_count).filter(|n| *n > 0));
    if let Some(v) = o.get_any(&["size", "filesize"]) {
        match parse_size(v, kb) {
            Some(Size::Bytes(b)) if (1.0..1.8e19).contains(&b) => {
                s.file_size_bytes = Some(b as u64)
            }
            Some(Size::Percent(p)) => {
                meta.notes.push(format!("{name}: size={v} ({p}% of the device or file)"))
            }
            _ => {}
        }
    }
    // Measured runtime first (ms): the longest direction, else job_runtime.
    let measured = entries
        .iter()
        .filter_map(|e| {
            let dirs = [e.read.as_ref(), e.write.as_ref()];
            let dir_max = dirs
                .iter()
                .flatten()
                .filter_map(|d| d.runtime_ms)
                .fold(None, |a: Option<f64>, b| Some(a.map_or(b, |a| a.max(b))));
            // `job_runtime` is summed over the jobs of a group_reporting entry: last resort.
            dir_max.filter(|r| *r > 0.0).or(e.job_runtime_ms.filter(|r| *r > 0.0))
        })
        .fold(None, |a: Option<f64>, b| Some(a.map_or(b, |a| a.max(b))));
    s.duration_s = measured
        .filter(|ms| *ms > 0.0)
        .map(|ms| ms / 1000.0)
        .or_else(|| o.get("runtime").and_then(parse_time_s));
    s.warmup_s = o.get("ramp_time").and_then(parse_time_s);
    s.engine = o.get("ioengine").map(str::to_owned);
    if !known {
        meta.notes.push(format!(
            "{name}: this fio version prints no job options: queue depth per thread taken \
             from latency_depth; block size, pattern and caching are unknown"
        ));
    }
    let files = o.all("filename");
    if files.len() > 1 {
        let distinct = files
            .iter()
            .enumerate()
            .filter(|(i, f)| !files.get(..*i).is_some_and(|s| s.contains(f)))
            .count();
        meta.notes.push(if distinct > 1 {
            format!(
                "{name}: `filename` is given {} times in the options; fio uses every file, so \
                 the target lists them all",
                files.len()
            )
        } else {
            format!("{name}: `filename` is given {} times with the same value", files.len())
        });
    }
    s
}

fn errno_name(code: i64) -> Option<&'static str> {
    Some(match code {
        1 => "EPERM, operation not permitted",
        2 => "ENOENT, no such file or directory",
        4 => "EINTR, interrupted",
        5 => "EIO, input/output error",
        12 => "ENOMEM, out of memory",
        13 => "EACCES, permission denied",
        16 => "EBUSY, device busy",
        22 => "EINVAL, invalid argument",
        27 => "EFBIG, file too large",
        28 => "ENOSPC, no space left on device",
        30 => "EROFS, read-only file system",
        95 => "EOPNOTSUPP, operation not supported",
        _ => return None,
    })
}
