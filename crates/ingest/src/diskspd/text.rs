//! DiskSpd text results: Windows 2.0.x to 2.2 and the Linux port (diskspd-for-linux).
//!
//! A file may hold several runs with prose and shell prompts around them. Each
//! `Results for timespan N:` / `Results for job N:` block is one run; its settings come from
//! the `Input parameters:` block before it (and the `Command Line:` flags when present).
//! Columns are mapped by their header names, never by position.

use advisor_model::{CaptureMeta, Direction, Location, RawCapture};

use super::{
    DirStats, Run, SpanSettings, TargetSettings, build, parse_size, percentile_of_label, sane,
};
use crate::{ErrorKind, IngestError};

/// Flags of a `Command Line:` line, used where the input parameters say nothing.
#[derive(Debug, Clone, Default)]
struct Cmd {
    settings: TargetSettings,
    duration_s: Option<f64>,
    warmup_s: Option<f64>,
    cooldown_s: Option<f64>,
    bucket_ms: Option<f64>,
    total_threads: Option<u32>,
}

fn num_prefix(s: &str) -> Option<f64> {
    let s = s.trim();
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    s.get(..end).and_then(|n| n.parse::<f64>().ok()).filter(|v| sane(*v))
}

fn u32_prefix(s: &str) -> Option<u32> {
    num_prefix(s).filter(|v| *v <= f64::from(u32::MAX)).map(|v| v.round() as u32)
}

fn parse_cmd(rest: &str) -> Cmd {
    let mut c = Cmd::default();
    let s = &mut c.settings;
    for tok in rest.split_whitespace() {
        let Some(flag) = tok.strip_prefix('-') else { continue };
        let mut chars = flag.chars();
        let Some(key) = chars.next() else { continue };
        let v = chars.as_str();
        match key {
            'b' => s.block_size = parse_size(v),
            'o' => s.outstanding = u32_prefix(v),
            't' => s.threads_per_file = u32_prefix(v),
            'F' => c.total_threads = u32_prefix(v),
            'w' => s.write_pct = if v.is_empty() { Some(0.0) } else { num_prefix(v) },
            'r' => {
                if let Some(ratio) = v.strip_prefix('s') {
                    s.random_ratio = num_prefix(ratio);
                    s.random = Some(true);
                } else {
                    s.random = Some(true);
                }
            }
            's' if s.random.is_none() => s.random = Some(false),
            'S' => {
                if v.is_empty() {
                    s.os_cache_disabled = Some(true);
                }
                for m in v.chars() {
                    match m {
                        'h' => {
                            s.os_cache_disabled = Some(true);
                            s.write_through = Some(true);
                        }
                        'u' | 'd' | 'r' => s.os_cache_disabled = Some(true),
                        'w' | 's' => s.write_through = Some(true),
                        'b' => s.os_cache_disabled = Some(false),
                        _ => {}
                    }
                }
            }
            'h' if v.is_empty() => {
                s.os_cache_disabled = Some(true);
                s.write_through = Some(true);
            }
            'W' => c.warmup_s = num_prefix(v),
            'd' => c.duration_s = num_prefix(v),
            'C' => c.cooldown_s = num_prefix(v),
            'D' => c.bucket_ms = if v.is_empty() { Some(1000.0) } else { num_prefix(v) },
            'c' => s.file_size = parse_size(v),
            'g' => s.throughput_limit = num_prefix(v),
            'x' => {
                s.engine = match v {
                    "p" => Some("POSIX AIO".to_owned()),
                    "k" => Some("libaio".to_owned()),
                    _ => None,
                }
            }
            _ => {}
        }
    }
    c
}

/// One timespan/job of an `Input parameters:` block.
#[derive(Debug, Clone, Default)]
struct InputSpan {
    number: Option<u32>,
    settings: SpanSettings,
    /// Linux port (`job:`, `using O_DIRECT`).
    linux: bool,
}

fn is_block_end(t: &str) -> bool {
    t.starts_with("System information:")
        || t.starts_with("System info:")
        || t.starts_with("Results for ")
        || t.starts_with("Command Line:")
        || t == "Input parameters:"
}

/// Reads an `Input parameters:` block from line `from`; returns the spans and the index of
/// the first line after the block.
fn parse_input(lines: &[&str], from: usize, meta: &mut CaptureMeta) -> (Vec<InputSpan>, usize) {
    let mut spans: Vec<InputSpan> = Vec::new();
    let mut i = from;
    while let Some(line) = lines.get(i) {
        let t = line.trim();
        if is_block_end(t) {
            break;
        }
        i += 1;
        if t.is_empty() || t.chars().all(|c| c == '-' || c == '_') {
            continue;
        }
        let lower = t.to_ascii_lowercase();
        let (key, value) = match lower.split_once(':') {
            Some((k, v)) => (k.trim().to_owned(), v.trim().to_owned()),
            None => (lower.clone(), String::new()),
        };
        if key == "timespan" || key == "job" {
            spans.push(InputSpan {
                number: u32_prefix(&value),
                linux: key == "job",
                ..InputSpan::default()
            });
            continue;
        }
        if spans.is_empty() {
            spans.push(InputSpan::default());
        }
        let Some(span) = spans.last_mut() else { continue };
        if key == "path" {
            // The path keeps its case: take it from the original line, between the quotes.
            let raw = t.get(t.find('\'').map_or(0, |p| p + 1)..).unwrap_or("");
            let path = raw.rfind('\'').and_then(|p| raw.get(..p)).unwrap_or(raw);
            span.settings.targets.push((path.to_owned(), TargetSettings::default()));
            continue;
        }
        let s = &mut span.settings;
        if span_setting(s, &key, &value, &lower) {
            continue;
        }
        let Some((_, ts)) = s.targets.last_mut() else {
            meta.ignore(format!("input parameter '{key}'"));
            continue;
        };
        if !target_setting(ts, &mut span.linux, &key, &value, &lower) {
            meta.ignore(format!("input parameter '{key}'"));
        }
    }
    (spans, i)
}

/// A setting of the whole span (`key: value`, or the whole line in lower case); false
/// when the line is not one.
fn span_setting(s: &mut SpanSettings, key: &str, value: &str, lower: &str) -> bool {
    match key {
        "duration" => s.duration_s = num_prefix(value),
        "warm up time" => s.warmup_s = num_prefix(value),
        "cool down time" => s.cooldown_s = num_prefix(value),
        "total threads" => s.total_threads = u32_prefix(value),
        _ if lower == "measuring latency" => {}
        _ => {
            if let Some(ms) =
                lower.strip_prefix("gathering iops at intervals of ").and_then(num_prefix)
            {
                s.bucket_ms = Some(ms);
            } else if let Some(n) = lower.strip_prefix("thread pool with ").and_then(u32_prefix) {
                s.total_threads = Some(n);
            } else if key.starts_with("number of outstanding i/o operations")
                && s.targets.is_empty()
            {
                // Thread-pool form: one figure for every target.
                s.pool_outstanding = u32_prefix(value.trim_end_matches(')'));
            } else {
                return false;
            }
        }
    }
    true
}

/// A setting of the span's last target; false when the line is not one. `linux` is set
/// by the Linux port's own lines.
fn target_setting(
    ts: &mut TargetSettings,
    linux: &mut bool,
    key: &str,
    value: &str,
    lower: &str,
) -> bool {
    match key {
        "think time" => ts.think_time_ms = num_prefix(value),
        "burst size" => ts.burst_size = num_prefix(value).map(|v| v.round() as u64),
        "block size" => ts.block_size = parse_size(value),
        "threads per file" => ts.threads_per_file = u32_prefix(value),
        "size" => ts.file_size = parse_size(value),
        k if k.starts_with("number of outstanding i/o operations") => {
            ts.outstanding = u32_prefix(value.trim_end_matches(')'));
        }
        _ => match lower {
            "using software cache" => ts.os_cache_disabled = Some(false),
            "software cache disabled" | "local software cache disabled, remote cache enabled" => {
                ts.os_cache_disabled = Some(true);
            }
            "hardware write cache disabled, writethrough on"
            | "hardware and software write caches disabled, writethrough on" => {
                ts.write_through = Some(true);
            }
            "using hardware write cache, writethrough off" => ts.write_through = Some(false),
            "using o_direct" => {
                ts.os_cache_disabled = Some(true);
                *linux = true;
            }
            "using o_sync" => {
                ts.write_through = Some(true);
                *linux = true;
            }
            "performing read test" => ts.write_pct = Some(0.0),
            "performing write test" => ts.write_pct = Some(100.0),
            "using i/o completion ports" => ts.engine = Some("IOCP".to_owned()),
            l if l.starts_with("using completion routines") => {
                ts.engine = Some("completion routines".to_owned());
            }
            l if l.starts_with("performing mix test") => {
                // "(read/write ratio: 70/30)"
                ts.write_pct =
                    l.rsplit_once('/').and_then(|(_, w)| num_prefix(w.trim_end_matches(')')));
            }
            l if l.starts_with("using random i/o") => ts.random = Some(true),
            l if l.starts_with("using mixed random/sequential i/o") => {
                ts.random = Some(true);
                ts.random_ratio = l.split_once('(').and_then(|(_, r)| num_prefix(r));
            }
            l if l.starts_with("using sequential i/o")
                || l.starts_with("using interlocked sequential i/o") =>
            {
                ts.random = Some(false);
            }
            _ => return false,
        },
    }
    true
}

fn is_dashes(t: &str) -> bool {
    !t.is_empty() && t.chars().all(|c| c == '-')
}

fn percent(cell: &str) -> Option<f64> {
    cell.trim().trim_end_matches('%').trim().parse::<f64>().ok().filter(|v| sane(*v))
}

/// CPU table from its header at `j`; returns the index after it.
fn parse_cpu(lines: &[&str], j: usize, end: usize, run: &mut Run, meta: &mut CaptureMeta) -> usize {
    let header: Vec<String> = lines
        .get(j)
        .map(|h| h.split('|').map(|c| c.trim().to_owned()).collect())
        .unwrap_or_default();
    let Some(usage) = header.iter().position(|c| c == "Usage") else { return j + 1 };
    for c in &header {
        if !matches!(c.as_str(), "Usage" | "CPU" | "Group" | "Node" | "Core" | "Socket" | "Class")
            && !c.is_empty()
        {
            meta.ignore(format!("CPU table column '{c}'"));
        }
    }
    let mut rows = Vec::new();
    let mut avg = None;
    let mut k = j + 1;
    while k < end {
        let t = lines.get(k).map_or("", |l| l.trim());
        k += 1;
        if is_dashes(t) {
            continue;
        }
        if t.is_empty() {
            break;
        }
        if let Some(rest) = t.strip_prefix("avg.").or_else(|| t.strip_prefix("avg:")) {
            let rest = rest.trim_start_matches(|c: char| c == '|' || c.is_whitespace());
            avg = percent(rest.split('|').next().unwrap_or(""));
            break;
        }
        match t.split('|').nth(usage).and_then(percent) {
            Some(v) => rows.push(v),
            None => {
                meta.warn(
                    "skipped a malformed row of the CPU table",
                    Some(Location::line(k as u64, 1)),
                );
            }
        }
    }
    run.cpu_pct =
        avg.or_else(|| (!rows.is_empty()).then(|| rows.iter().sum::<f64>() / rows.len() as f64));
    k
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum IoKind {
    Total,
    Read,
    Write,
}

/// `C:\testfile.foo (8192MB)` -> path and size.
fn split_file(cell: &str) -> (&str, Option<u64>) {
    let cell = cell.trim();
    if let Some(open) = cell.rfind(" (")
        && cell.ends_with(')')
        && let Some(size) = cell.get(open + 2..cell.len() - 1).and_then(parse_size)
    {
        return (cell.get(..open).unwrap_or(cell).trim_end(), Some(size));
    }
    (cell, None)
}

/// `Total IO` / `Read IO` / `Write IO` table whose header is at `j`.
fn parse_io(
    lines: &[&str],
    j: usize,
    end: usize,
    kind: IoKind,
    run: &mut Run,
    meta: &mut CaptureMeta,
) -> usize {
    let Some(header) = lines.get(j).filter(|h| h.contains('|') && h.contains("thread")) else {
        meta.warn(
            "an IO table without its header was skipped",
            Some(Location::line(j as u64 + 1, 1)),
        );
        return j;
    };
    let cols: Vec<String> = header
        .split('|')
        .map(|c| c.split_whitespace().collect::<String>().to_ascii_lowercase())
        .collect();
    let find = |f: &dyn Fn(&str) -> bool| cols.iter().position(|c| f(c));
    let thread = find(&|c| c == "thread");
    let bytes = find(&|c| c == "bytes");
    let ios = find(&|c| c == "i/os");
    let lat = find(&|c| c.starts_with("avglat"));
    let file = find(&|c| c == "file");
    for c in &cols {
        if !matches!(c.as_str(), "thread" | "bytes" | "i/os" | "file" | "")
            && !c.starts_with("avglat")
        {
            meta.ignore(format!("IO table column '{c}' (recomputed or not used)"));
        }
    }
    let (Some(thread), Some(bytes), Some(ios), Some(file)) = (thread, bytes, ios, file) else {
        meta.warn(
            "an IO table without thread, bytes, I/Os and file columns was skipped",
            Some(Location::line(j as u64 + 1, 1)),
        );
        return j + 1;
    };
    let mut k = j + 1;
    while k < end {
        let line = lines.get(k).copied().unwrap_or("");
        let t = line.trim();
        k += 1;
        if is_dashes(t) {
            continue;
        }
        if t.is_empty() || t.starts_with("total:") {
            break;
        }
        let cells: Vec<&str> = line.splitn(cols.len(), '|').collect();
        let get = |i: usize| cells.get(i).map(|c| c.trim());
        let tid = get(thread).and_then(|c| c.parse::<u64>().ok());
        let b = get(bytes).and_then(|c| c.parse::<f64>().ok()).filter(|v| sane(*v));
        let n = get(ios).and_then(|c| c.parse::<f64>().ok()).filter(|v| sane(*v));
        let l = lat.and_then(get).and_then(|c| c.parse::<f64>().ok());
        let f = get(file).filter(|c| !c.is_empty());
        let (Some(tid), Some(b), Some(n), Some(f)) = (tid, b, n, f) else {
            meta.warn("skipped a malformed row of an IO table", Some(Location::line(k as u64, 1)));
            continue;
        };
        let (path, size) = split_file(f);
        let target = run.target_mut(path);
        target.threads.insert(tid);
        if target.settings.file_size.is_none() {
            target.settings.file_size = size;
        }
        let stats = match kind {
            IoKind::Total => &mut target.total,
            IoKind::Read => &mut target.read,
            IoKind::Write => &mut target.write,
        };
        stats.get_or_insert_with(DirStats::default).add(b, n, l);
    }
    k
}

/// Latency percentile table whose header is at `j`, titled by the line before it.
fn parse_latency(
    lines: &[&str],
    start: usize,
    j: usize,
    end: usize,
    run: &mut Run,
    meta: &mut CaptureMeta,
) -> usize {
    let title = (start..j)
        .rev()
        .filter_map(|i| lines.get(i).map(|l| l.trim()))
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let target: Option<String> =
        if title == "total:" || title.starts_with("Total latency distribution") {
            None
        } else if let Some(p) = title.strip_prefix("Latency distribution:") {
            Some(p.trim().to_owned())
        } else if run.targets.iter().any(|t| t.path == title) {
            Some(title.to_owned())
        } else {
            // Untitled (DiskSpd <= 2.0.17): the table follows the Write IO table directly.
            None
        };
    let header: Vec<String> = lines
        .get(j)
        .map(|h| h.split('|').map(|c| c.trim().to_ascii_lowercase()).collect())
        .unwrap_or_default();
    let dirs: Vec<(usize, Direction)> = header
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            if c.starts_with("read") {
                Some((i, Direction::Read))
            } else if c.starts_with("write") {
                Some((i, Direction::Write))
            } else if c.starts_with("total") {
                Some((i, Direction::Total))
            } else {
                None
            }
        })
        .collect();
    let mut found = Vec::new();
    let mut k = j + 1;
    while k < end {
        let t = lines.get(k).map_or("", |l| l.trim());
        if is_dashes(t) {
            k += 1;
            continue;
        }
        let cells: Vec<&str> = t.split('|').collect();
        let Some(p) = cells.first().and_then(|c| percentile_of_label(c)) else { break };
        k += 1;
        for &(i, dir) in &dirs {
            let Some(cell) = cells.get(i).map(|c| c.trim()) else { continue };
            if cell == "N/A" {
                continue;
            }
            match cell.parse::<f64>() {
                Ok(ms) => found.push((dir, p, ms)),
                Err(_) => meta.warn(
                    "skipped a malformed cell of a latency percentile table",
                    Some(Location::line(k as u64, 1)),
                ),
            }
        }
    }
    match target {
        None => run.total_percentiles.extend(found),
        Some(path) => match run.targets.iter_mut().find(|t| t.path == path) {
            Some(t) => t.percentiles.extend(found),
            None => meta.warn(
                format!("a latency table for '{path}', which has no IO results, was skipped"),
                Some(Location::line(j as u64 + 1, 1)),
            ),
        },
    }
    k
}

/// A `Results for ...` block spanning lines `start..end`.
fn parse_results(lines: &[&str], start: usize, end: usize, meta: &mut CaptureMeta) -> Run {
    let mut run = Run { location: Some(Location::line(start as u64 + 1, 1)), ..Run::default() };
    let mut j = start + 1;
    while j < end {
        let line = lines.get(j).copied().unwrap_or("");
        let t = line.trim();
        if let Some(v) =
            t.strip_prefix("actual test time:").or_else(|| t.strip_prefix("test time:"))
        {
            run.test_time_s = num_prefix(v);
        } else if let Some(v) = t.strip_prefix("thread count:") {
            run.thread_count = u32_prefix(v);
        } else if let Some(v) = t.strip_prefix("proc count:") {
            if meta.cpus.is_none() {
                meta.cpus = u32_prefix(v).filter(|n| *n > 0);
            }
        } else if t.contains('|') && t.contains("CPU") && t.contains("Usage") {
            j = parse_cpu(lines, j, end, &mut run, meta);
            continue;
        } else if let Some(kind) = match t {
            "Total IO" => Some(IoKind::Total),
            "Read IO" => Some(IoKind::Read),
            "Write IO" => Some(IoKind::Write),
            _ => None,
        } {
            j = parse_io(lines, j + 1, end, kind, &mut run, meta);
            continue;
        } else if t.contains("%-ile") && t.contains('|') {
            j = parse_latency(lines, start, j, end, &mut run, meta);
            continue;
        }
        j += 1;
    }
    run
}

fn layout(text: &str) -> &'static str {
    if text.contains("Results for job") {
        "diskspd-for-linux text"
    } else if text.contains("Total latency distribution:")
        || text.contains("I/O operations per thread:")
    {
        "DiskSpd text, 2.2 layout"
    } else if text.contains("MiB/s") || text.contains("MiB)") {
        "DiskSpd text, 2.0.18+ layout (MiB/s, 'total:' latency table)"
    } else {
        "DiskSpd text, 2.0.17 or older layout (MB/s meaning MiB/s, untitled latency table)"
    }
}

pub(super) fn read(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    let text = text.trim_start_matches('\u{feff}');
    if text.trim().is_empty() {
        return Err(IngestError::new(file, None, ErrorKind::Empty));
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut meta = CaptureMeta::new(super::TEXT);
    meta.version = Some(layout(text).to_owned());

    let mut cmd: Option<Cmd> = None;
    let mut spans: Vec<InputSpan> = Vec::new();
    let mut host: Option<String> = None;
    let mut runs: Vec<Run> = Vec::new();
    let mut first_input: Option<usize> = None;
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        advisor_model::work::checkpoint_every(i);
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Command Line:") {
            cmd = Some(parse_cmd(rest));
            spans.clear();
        } else if t == "Input parameters:" {
            first_input.get_or_insert(i);
            let (found, next) = parse_input(&lines, i + 1, &mut meta);
            spans = found;
            i = next;
            continue;
        } else if let Some(v) = t.strip_prefix("computer name:") {
            host = Some(v.trim().to_owned()).filter(|h| !h.is_empty());
        } else if let Some(rest) =
            t.strip_prefix("Results for timespan").or_else(|| t.strip_prefix("Results for job"))
        {
            let end = results_end(&lines, i);
            let mut run = parse_results(&lines, i, end, &mut meta);
            run.number = runs.len() + 1;
            run.host = host.clone();
            let number = u32_prefix(rest.trim_end_matches(':'));
            let span = spans
                .iter()
                .find(|s| s.number.is_some() && s.number == number)
                .or(if spans.len() == 1 { spans.first() } else { None });
            apply_settings(&mut run, span, cmd.as_ref());
            check_tables(&mut run, &mut meta);
            runs.push(run);
            i = end;
            continue;
        }
        i += 1;
    }
    if runs.is_empty() {
        let location = first_input.map(|l| Location::line(l as u64 + 1, 1));
        let message = if first_input.is_some() {
            "the file holds DiskSpd's input parameters but no 'Results for' block (the run was \
             interrupted, or the output was cut)"
        } else {
            "no DiskSpd 'Input parameters:' or 'Results for' block found"
        };
        return Err(IngestError::invalid(file, location, message));
    }
    if !runs.iter().any(|r| r.has_results()) {
        let location = runs.first().and_then(|r| r.location.clone());
        return Err(IngestError::invalid(
            file,
            location,
            "the 'Results for' block holds no usable Total/Read/Write IO table (the file is \
             truncated?)",
        ));
    }
    if meta.version.as_deref() == Some("diskspd-for-linux text") {
        meta.notes.push(
            "diskspd-for-linux: its 'MB/s' column is MiB/s and thread numbers continue across \
             targets; '-w100' is still called a mix test"
                .to_owned(),
        );
    }
    build(file, meta, runs)
}

/// The line after the `Results for` block starting at line `start`.
fn results_end(lines: &[&str], start: usize) -> usize {
    (start + 1..lines.len())
        .find(|&k| {
            let t = lines.get(k).map_or("", |l| l.trim());
            t.starts_with("Results for ")
                || t == "Input parameters:"
                || t.starts_with("Command Line:")
                || t == "Totals:"
        })
        .unwrap_or(lines.len())
}

/// Warns about a run without IO tables, or without its Read IO or Write IO table (then
/// only its totals are kept: a cut table would give partial figures).
fn check_tables(run: &mut Run, meta: &mut CaptureMeta) {
    if run.targets.is_empty() {
        meta.warn(
            format!("run {} has no IO table (the file is truncated?); skipped", run.number),
            run.location.clone(),
        );
    } else if run.targets.iter().any(|t| t.read.is_none() || t.write.is_none()) {
        for t in &mut run.targets {
            t.read = None;
            t.write = None;
        }
        meta.warn(
            format!(
                "run {} lacks its Read IO or Write IO table (the file is truncated?); \
                 only totals are given",
                run.number
            ),
            run.location.clone(),
        );
    }
}

/// Gives each result target its configured settings (input parameters first, then the
/// command line), and the span's durations to the run.
fn apply_settings(run: &mut Run, span: Option<&InputSpan>, cmd: Option<&Cmd>) {
    let only_one = run.targets.len() == 1;
    let linux = span.is_some_and(|s| s.linux);
    if let Some(s) = span {
        run.span = SpanSettings { targets: Vec::new(), ..s.settings.clone() };
    }
    if let Some(c) = cmd {
        let sp = &mut run.span;
        sp.duration_s = sp.duration_s.or(c.duration_s);
        sp.warmup_s = sp.warmup_s.or(c.warmup_s);
        sp.cooldown_s = sp.cooldown_s.or(c.cooldown_s);
        sp.bucket_ms = sp.bucket_ms.or(c.bucket_ms);
        sp.total_threads = sp.total_threads.or(c.total_threads);
    }
    for t in &mut run.targets {
        if let Some(s) = span.and_then(|s| s.settings.target(&t.path, only_one)) {
            t.settings.fill_from(s);
        }
        if let Some(c) = cmd {
            t.settings.fill_from(&c.settings);
        }
        if linux {
            // The port prints O_DIRECT / O_SYNC only when used; its default engine is libaio.
            t.settings.os_cache_disabled.get_or_insert(false);
            t.settings.write_through.get_or_insert(false);
            if t.settings.engine.is_none() {
                t.settings.engine = Some("libaio".to_owned());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_flags() {
        let c = parse_cmd(
            " C:\\Diskspd\\diskspd.exe -w50 -W5 -b4K -c8G -F2 -o32 -Sh -L -r -d600 C:\\f",
        );
        assert_eq!(c.settings.write_pct, Some(50.0));
        assert_eq!(c.settings.block_size, Some(4096));
        assert_eq!(c.settings.file_size, Some(8 << 30));
        assert_eq!(c.settings.outstanding, Some(32));
        assert_eq!(c.settings.random, Some(true));
        assert_eq!(c.settings.os_cache_disabled, Some(true));
        assert_eq!(c.settings.write_through, Some(true));
        assert_eq!(c.total_threads, Some(2));
        assert_eq!(c.warmup_s, Some(5.0));
        assert_eq!(c.duration_s, Some(600.0));
        let l = parse_cmd("diskspd -d5 -W1 -xp -Sd -c64M /mnt/x");
        assert_eq!(l.settings.engine.as_deref(), Some("POSIX AIO"));
        assert_eq!(l.settings.os_cache_disabled, Some(true));
        assert_eq!(l.settings.write_through, None);
    }

    #[test]
    fn file_cells() {
        assert_eq!(split_file(" C:\\testfile.foo (8192MB)"), ("C:\\testfile.foo", Some(8 << 30)));
        assert_eq!(split_file("/mnt/a b.dat (67108864B)"), ("/mnt/a b.dat", Some(67_108_864)));
        assert_eq!(split_file("E:\\x (y).dat"), ("E:\\x (y).dat", None));
    }

    #[test]
    fn node_group_core_cpu_header() {
        let t = "\
Input parameters:

\ttimespan:   1
\t-------------
\tduration: 10s
\tpath: 'F:\\t.dat'
\t\tperforming read test
\t\tblock size: 4KiB
\t\tusing random I/O (alignment: 4KiB)
\t\tnumber of outstanding I/O operations per thread: 4
\t\tthreads per file: 1

Results for timespan 1:
*******************************************************************************

actual test time:\t10.00s
thread count:\t\t1

Node | Group | Core | CPU |  Usage |  User  | Kernel |  Idle
-------------------------------------------------------------
    0|      0|     0|    0|  10.00%|   1.00%|   9.00%|  90.00%
    1|      1|     0|    0|  30.00%|   3.00%|  27.00%|  70.00%
-------------------------------------------------------------
                     avg.|  20.00%|   2.00%|  18.00%|  80.00%

Total IO
thread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  file
------------------------------------------------------------------------------
     0 |        40960000 |        10000 |       3.91 |    1000.00 | F:\\t.dat (1GiB)
------------------------------------------------------------------------------
total:          40960000 |        10000 |       3.91 |    1000.00
";
        let cap = read("n.txt", t);
        let cap = match cap {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        let host = cap.meta.targets.iter().position(|t| t.name == "host");
        assert!(host.is_some());
        let cpu = cap.table.column(advisor_model::Metric::CpuPct).map(|c| c.to_vec());
        assert_eq!(cpu.and_then(|c| c.into_iter().flatten().next()), Some(20.0));
        let iops = cap.table.column(advisor_model::Metric::Iops).map(|c| c.to_vec());
        assert_eq!(iops.and_then(|c| c.into_iter().flatten().next()), Some(1000.0));
        assert_eq!(cap.meta.bench.first().and_then(|b| b.queue_depth_per_thread), Some(4));
        assert_eq!(cap.meta.bench.first().and_then(|b| b.file_size_bytes), Some(1 << 30));
    }

    #[test]
    fn only_input_parameters_is_an_error() {
        let t = "\nInput parameters:\n\n\ttimespan:   1\n\tduration: 5s\n";
        let err = read("i.txt", t).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.starts_with("i.txt:2:1:"), "{err}");
        assert!(err.contains("no 'Results for' block"), "{err}");
    }
}
