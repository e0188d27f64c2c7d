//! DiskSpd `-Rxml` results.
//!
//! The document is small (kilobytes to a few MB), so it is read into a little tree first.
//! `Results/Profile/TimeSpans/TimeSpan` holds the settings, `Results/TimeSpan` the results
//! (same element name, different parents); `Bucket` means a latency percentile under
//! `Latency` and an IOPS interval (attributes) under `Iops`.

use std::borrow::Cow;

use advisor_model::{CaptureMeta, Direction, Location, RawCapture};
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

use super::{DirStats, Run, SpanSettings, TargetSettings, build, line_col, sane};
use crate::IngestError;

/// Deeper nesting than DiskSpd ever writes means the input is not DiskSpd's.
const MAX_DEPTH: usize = 64;

#[derive(Debug, Default)]
struct Node {
    name: String,
    attrs: Vec<(String, String)>,
    text: String,
    children: Vec<Node>,
}

impl Node {
    fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }

    fn children<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    fn text_of(&self, name: &str) -> Option<&str> {
        self.child(name).map(|c| c.text.trim()).filter(|t| !t.is_empty())
    }

    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.trim())
    }
}

/// Escapes `<` and `>` inside quoted attribute values, which DiskSpd leaves raw in
/// `<PowerScheme Name="<unknown>">`. Returns the repaired text and the byte offsets (in the
/// original) of every character replaced.
fn escape_attribute_values(text: &str) -> (Cow<'_, str>, Vec<usize>) {
    let bytes = text.as_bytes();
    let mut fixed: Vec<usize> = Vec::new();
    let mut i = 0;
    let n = bytes.len();
    let find = |from: usize, pat: &[u8]| -> usize {
        memchr::memmem::find(bytes.get(from..).unwrap_or(&[]), pat)
            .map_or(n, |p| from + p + pat.len())
    };
    while i < n {
        let Some(p) = memchr::memchr(b'<', bytes.get(i..).unwrap_or(&[])) else { break };
        i += p;
        let rest = bytes.get(i..).unwrap_or(&[]);
        if rest.starts_with(b"<!--") {
            i = find(i + 4, b"-->");
            continue;
        }
        if rest.starts_with(b"<![CDATA[") {
            i = find(i + 9, b"]]>");
            continue;
        }
        if rest.starts_with(b"<?") {
            i = find(i + 2, b"?>");
            continue;
        }
        // A tag: walk to its closing '>' outside quotes.
        i += 1;
        let mut quote: Option<u8> = None;
        while i < n {
            let c = bytes.get(i).copied().unwrap_or(b'>');
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) if c == b'<' || c == b'>' => fixed.push(i),
                Some(_) => {}
                None if c == b'"' || c == b'\'' => quote = Some(c),
                None if c == b'>' || c == b'<' => break,
                None => {}
            }
            i += 1;
        }
        if bytes.get(i) == Some(&b'>') {
            i += 1;
        }
    }
    if fixed.is_empty() {
        return (Cow::Borrowed(text), fixed);
    }
    let mut out = String::with_capacity(text.len() + fixed.len() * 3);
    let mut last = 0;
    for &pos in &fixed {
        out.push_str(text.get(last..pos).unwrap_or(""));
        out.push_str(if bytes.get(pos) == Some(&b'<') { "&lt;" } else { "&gt;" });
        last = pos + 1;
    }
    out.push_str(text.get(last..).unwrap_or(""));
    (Cow::Owned(out), fixed)
}

/// Maps a byte offset in the repaired text back to the original.
fn original_offset(pos: usize, fixed: &[usize]) -> usize {
    let mut shift = 0;
    for &orig in fixed {
        let new = orig + shift;
        if pos <= new {
            break;
        }
        if pos < new + 4 {
            return orig;
        }
        shift += 3;
    }
    pos.saturating_sub(shift)
}

fn start_node(e: &BytesStart<'_>) -> Result<Node, String> {
    let name = e.name().0.to_owned();
    let mut attrs = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|err| format!("malformed attribute in <{name}>: {err}"))?;
        let key = a.key.0.to_owned();
        let value = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|err| format!("bad attribute value in <{name}>: {err}"))?;
        attrs.push((key, value.into_owned()));
    }
    Ok(Node { name, attrs, ..Node::default() })
}

/// Parses the document into a tree; errors carry the line:column in the original text.
fn parse_tree(file: &str, text: &str, meta: &mut CaptureMeta) -> Result<Node, IngestError> {
    let (repaired, fixed) = escape_attribute_values(text);
    if let Some(&first) = fixed.first() {
        meta.warn(
            format!(
                "repaired {} unescaped '<'/'>' inside XML attribute values (DiskSpd writes \
                 <PowerScheme Name=\"<unknown>\"> when the power scheme is unknown, which is not \
                 well-formed XML); the values are not used",
                fixed.len()
            ),
            Some(line_col(text, first)),
        );
    }
    let err_at = |pos: u64, msg: String| {
        let pos = usize::try_from(pos).unwrap_or(usize::MAX);
        IngestError::invalid(file, Some(line_col(text, original_offset(pos, &fixed))), msg)
    };
    let mut reader = Reader::from_str(&repaired);
    let mut stack: Vec<Node> = Vec::new();
    let mut root: Option<Node> = None;
    for n in 0usize.. {
        advisor_model::work::checkpoint_every(n);
        let pos = reader.buffer_position();
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(e) => {
                return Err(err_at(reader.error_position(), format!("malformed XML: {e}")));
            }
        };
        match event {
            Event::Start(e) => {
                if root.is_some() {
                    meta.warn("ignored content after the end of <Results>", None);
                    break;
                }
                let node = start_node(&e).map_err(|m| err_at(pos, m))?;
                stack.push(node);
                if stack.len() > MAX_DEPTH {
                    return Err(err_at(pos, "XML nested deeper than DiskSpd ever writes".into()));
                }
            }
            Event::Empty(e) => {
                let node = start_node(&e).map_err(|m| err_at(pos, m))?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(node),
                    None if root.is_none() => root = Some(node),
                    None => {}
                }
            }
            Event::End(_) => {
                if let Some(node) = stack.pop() {
                    match stack.last_mut() {
                        Some(parent) => parent.children.push(node),
                        None => root = Some(node),
                    }
                }
            }
            Event::Text(t) => {
                if let Some(node) = stack.last_mut() {
                    node.text.push_str(&t);
                }
            }
            Event::CData(t) => {
                if let Some(node) = stack.last_mut() {
                    node.text.push_str(&t);
                }
            }
            Event::GeneralRef(r) => {
                let resolved: Option<String> = if r.is_char_ref() {
                    r.resolve_char_ref().ok().flatten().map(String::from)
                } else {
                    quick_xml::escape::resolve_predefined_entity(&r).map(str::to_owned)
                };
                let Some(s) = resolved else {
                    return Err(err_at(pos, format!("unknown XML entity &{};", &*r)));
                };
                if let Some(node) = stack.last_mut() {
                    node.text.push_str(&s);
                }
            }
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    if let Some(open) = stack.last() {
        return Err(IngestError::invalid(
            file,
            Some(line_col(text, text.len())),
            format!("the XML ends inside <{}> (the file is truncated)", open.name),
        ));
    }
    root.ok_or_else(|| IngestError::invalid(file, None, "no XML element found"))
}

fn num(meta: &mut CaptureMeta, node: &Node, name: &str, path: &str) -> Option<f64> {
    let t = node.text_of(name)?;
    match t.parse::<f64>() {
        Ok(v) if sane(v) => Some(v),
        _ => {
            meta.warn(
                format!("ignored <{name}> that is not a usable number ({t:?})"),
                Some(Location::xml(format!("{path}/{name}"))),
            );
            None
        }
    }
}

fn flag(node: &Node, name: &str) -> Option<bool> {
    node.text_of(name).map(|t| t.eq_ignore_ascii_case("true"))
}

fn to_u32(v: f64) -> Option<u32> {
    (v >= 0.0 && v <= f64::from(u32::MAX)).then(|| v.round() as u32)
}

/// `Profile/TimeSpans/TimeSpan[i]`.
fn span_settings(meta: &mut CaptureMeta, span: &Node, path: &str) -> SpanSettings {
    let mut s = SpanSettings {
        duration_s: num(meta, span, "Duration", path),
        warmup_s: num(meta, span, "Warmup", path),
        cooldown_s: num(meta, span, "Cooldown", path),
        bucket_ms: num(meta, span, "IoBucketDuration", path),
        ..SpanSettings::default()
    };
    // A thread pool (-F/-O) sets ThreadCount and RequestCount here; 0 means per target.
    if let Some(n) = num(meta, span, "ThreadCount", path).and_then(to_u32).filter(|n| *n > 0) {
        s.total_threads = Some(n);
        s.pool_outstanding =
            num(meta, span, "RequestCount", path).and_then(to_u32).filter(|n| *n > 0);
    }
    let Some(targets) = span.child("Targets") else { return s };
    for (k, t) in targets.children("Target").enumerate() {
        let tpath = format!("{path}/Targets/Target[{}]", k + 1);
        let Some(p) = t.text_of("Path") else { continue };
        // DiskSpd writes these elements only when set: absent means cached / no write-through.
        let on = |name: &str| flag(t, name) == Some(true);
        let os = Some(on("DisableOSCache") || on("DisableAllCache") || on("DisableLocalCache"));
        let wt = Some(on("WriteThrough") || on("DisableAllCache"));
        // <Random> (the alignment) is present for random IO; <RandomAccess> is only the
        // FILE_FLAG_RANDOM_ACCESS hint and may say false for a random test.
        let random_ratio = num(meta, t, "RandomRatio", &tpath);
        let random = Some(t.child("Random").is_some() || random_ratio.is_some_and(|r| r > 0.0));
        let settings = TargetSettings {
            block_size: num(meta, t, "BlockSize", &tpath).map(|v| v.round() as u64),
            outstanding: num(meta, t, "RequestCount", &tpath).and_then(to_u32),
            threads_per_file: num(meta, t, "ThreadsPerFile", &tpath).and_then(to_u32),
            write_pct: num(meta, t, "WriteRatio", &tpath),
            random,
            random_ratio,
            os_cache_disabled: os,
            write_through: wt,
            file_size: num(meta, t, "FileSize", &tpath)
                .map(|v| v.round() as u64)
                .filter(|v| *v > 0),
            engine: None,
            think_time_ms: num(meta, t, "ThinkTime", &tpath),
            burst_size: num(meta, t, "BurstSize", &tpath).map(|v| v.round() as u64),
            throughput_limit: num(meta, t, "Throughput", &tpath),
        };
        s.targets.push((p.to_owned(), settings));
    }
    let engine = match flag(span, "CompletionRoutines") {
        Some(true) => Some("completion routines"),
        Some(false) => Some("IOCP"),
        None => None,
    };
    for (_, t) in &mut s.targets {
        t.engine = engine.map(str::to_owned);
    }
    s
}

/// `Results/TimeSpan[i]`.
fn read_span(meta: &mut CaptureMeta, span: &Node, number: usize, settings: SpanSettings) -> Run {
    let path = format!("Results/TimeSpan[{number}]");
    let mut run = Run {
        number,
        span: settings,
        location: Some(Location::xml(path.clone())),
        ..Run::default()
    };
    run.test_time_s = num(meta, span, "TestTimeSeconds", &path);
    run.thread_count = num(meta, span, "ThreadCount", &path).and_then(to_u32);
    if meta.cpus.is_none() {
        meta.cpus = num(meta, span, "ProcCount", &path).and_then(to_u32).filter(|n| *n > 0);
    }
    if let Some(cpu) = span.child("CpuUtilization") {
        run.cpu_pct = span_cpu(meta, cpu, &format!("{path}/CpuUtilization"));
    }
    if let Some(lat) = span.child("Latency") {
        run.total_percentiles = span_percentiles(meta, lat, &format!("{path}/Latency"));
    }
    if span.child("Iops").is_some() {
        meta.ignore("Iops: IopsStdDev, per-interval latency attributes of Iops/Bucket");
    }
    let only_one = one_target_path(span);
    for (k, thread) in span.children("Thread").enumerate() {
        let tid = thread.text_of("Id").and_then(|t| t.parse::<u64>().ok()).unwrap_or(k as u64);
        for (m, target) in thread.children("Target").enumerate() {
            let tpath = format!("{path}/Thread[{}]/Target[{}]", k + 1, m + 1);
            read_thread_target(meta, &mut run, target, tid, &tpath, only_one);
        }
    }
    run
}

/// `CpuUtilization`: the average usage, else the mean of the CPUs'.
fn span_cpu(meta: &mut CaptureMeta, cpu: &Node, cpath: &str) -> Option<f64> {
    let mut pct = cpu.child("Average").and_then(|a| num(meta, a, "UsagePercent", cpath));
    if pct.is_none() {
        let all: Vec<f64> =
            cpu.children("CPU").filter_map(|c| num(meta, c, "UsagePercent", cpath)).collect();
        if !all.is_empty() {
            pct = Some(all.iter().sum::<f64>() / all.len() as f64);
        }
    }
    meta.ignore("CpuUtilization: UserPercent, KernelPercent, IdlePercent, per-CPU rows");
    pct
}

/// `Latency/Bucket`s: the run-wide percentiles, per direction.
fn span_percentiles(meta: &mut CaptureMeta, lat: &Node, lpath: &str) -> Vec<(Direction, f64, f64)> {
    let mut out = Vec::new();
    for b in lat.children("Bucket") {
        let Some(p) = num(meta, b, "Percentile", lpath) else { continue };
        for (el, dir) in [
            ("ReadMilliseconds", Direction::Read),
            ("WriteMilliseconds", Direction::Write),
            ("TotalMilliseconds", Direction::Total),
        ] {
            if let Some(ms) = num(meta, b, el, lpath) {
                out.push((dir, p, ms));
            }
        }
    }
    meta.ignore("Latency: run-wide averages and standard deviations (per-target figures used)");
    out
}

/// Whether every thread's targets have one path.
fn one_target_path(span: &Node) -> bool {
    let mut paths: Vec<&str> = span
        .children("Thread")
        .flat_map(|t| t.children("Target"))
        .filter_map(|t| t.text_of("Path"))
        .collect();
    paths.sort_unstable();
    paths.dedup();
    paths.len() == 1
}

/// One thread's `Target` (at `tpath`): its counts, latencies and IOPS buckets added to the
/// run's target of the same path.
fn read_thread_target(
    meta: &mut CaptureMeta,
    run: &mut Run,
    target: &Node,
    tid: u64,
    tpath: &str,
    only_one: bool,
) {
    let Some(p) = target.text_of("Path") else {
        meta.warn("skipped a thread's target without <Path>", Some(Location::xml(tpath)));
        return;
    };
    let rb = num(meta, target, "ReadBytes", tpath);
    let rc = num(meta, target, "ReadCount", tpath);
    let wb = num(meta, target, "WriteBytes", tpath);
    let wc = num(meta, target, "WriteCount", tpath);
    let tb = num(meta, target, "BytesCount", tpath);
    let tc = num(meta, target, "IOCount", tpath);
    let rl = num(meta, target, "AverageReadLatencyMilliseconds", tpath);
    let wl = num(meta, target, "AverageWriteLatencyMilliseconds", tpath);
    let tl = num(meta, target, "AverageLatencyMilliseconds", tpath);
    let rw = matches!((rb, rc, wb, wc), (Some(_), Some(_), Some(_), Some(_)));
    if !rw && (tb.is_none() || tc.is_none()) {
        meta.warn(
            "skipped a thread's target without byte and I/O counts",
            Some(Location::xml(tpath)),
        );
        return;
    }
    ignore_unread_elements(meta, target);
    let buckets = iops_buckets(meta, target, tpath);
    let file_size = num(meta, target, "FileSize", tpath).map(|v| v.round() as u64);
    let settings = run.span.target(p, only_one).cloned();
    let t = run.target_mut(p);
    if let Some(s) = settings
        && t.threads.is_empty()
    {
        t.settings.fill_from(&s);
    }
    if t.settings.file_size.is_none() {
        t.settings.file_size = file_size.filter(|v| *v > 0);
    }
    t.threads.insert(tid);
    if rw {
        let (rb, rc, wb, wc) =
            (rb.unwrap_or(0.0), rc.unwrap_or(0.0), wb.unwrap_or(0.0), wc.unwrap_or(0.0));
        t.read.get_or_insert_with(DirStats::default).add(rb, rc, rl);
        t.write.get_or_insert_with(DirStats::default).add(wb, wc, wl);
        // The total is read + write; its latency is the thread's own average when given.
        let mut total = DirStats::default();
        total.add(rb + wb, rc + wc, tl);
        t.total.get_or_insert_with(DirStats::default).merge(&total);
    } else {
        t.total.get_or_insert_with(DirStats::default).add(tb.unwrap_or(0.0), tc.unwrap_or(0.0), tl);
    }
    for (ms, total) in buckets {
        *t.buckets.entry(ms).or_insert(0.0) += total;
    }
}

/// Records the elements of a thread's `Target` that are not read.
fn ignore_unread_elements(meta: &mut CaptureMeta, target: &Node) {
    for c in &target.children {
        if !matches!(
            c.name.as_str(),
            "Path"
                | "ReadBytes"
                | "ReadCount"
                | "WriteBytes"
                | "WriteCount"
                | "BytesCount"
                | "IOCount"
                | "FileSize"
                | "AverageReadLatencyMilliseconds"
                | "AverageWriteLatencyMilliseconds"
                | "AverageLatencyMilliseconds"
                | "Iops"
        ) {
            meta.ignore(format!("Thread/Target/{}", c.name));
        }
    }
}

/// `Iops/Bucket`s (with -D): (sample millisecond, IOs).
fn iops_buckets(meta: &mut CaptureMeta, target: &Node, tpath: &str) -> Vec<(u64, f64)> {
    let bucket_path = format!("{tpath}/Iops");
    let mut buckets: Vec<(u64, f64)> = Vec::new();
    if let Some(iops) = target.child("Iops") {
        for b in iops.children("Bucket") {
            let ms = b.attr("SampleMillisecond").and_then(|v| v.parse::<u64>().ok());
            let total = b.attr("Total").and_then(|v| v.parse::<f64>().ok()).filter(|v| sane(*v));
            match (ms, total) {
                (Some(ms), Some(total)) => buckets.push((ms, total)),
                _ => meta.warn(
                    "skipped an <Iops> interval bucket without SampleMillisecond/Total",
                    Some(Location::xml(bucket_path.clone())),
                ),
            }
        }
    }
    buckets
}

pub(super) fn read(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    let text = text.trim_start_matches('\u{feff}');
    if text.trim().is_empty() {
        return Err(IngestError::new(file, None, crate::ErrorKind::Empty));
    }
    let mut meta = CaptureMeta::new(super::XML);
    let root = parse_tree(file, text, &mut meta)?;
    if root.name != "Results" {
        return Err(IngestError::invalid(
            file,
            Some(Location::xml(root.name.clone())),
            format!("the root element is <{}>, not DiskSpd's <Results>", root.name),
        ));
    }
    let system = root.child("System");
    let host = system.and_then(|s| s.text_of("ComputerName")).map(str::to_owned);
    if let Some(v) = system.and_then(|s| s.child("Tool")).and_then(|t| t.text_of("Version")) {
        meta.version = Some(format!("DiskSpd {v}"));
    }
    if let Some(rt) = system.and_then(|s| s.text_of("RunTime")) {
        meta.notes.push(format!("DiskSpd run started {rt} (System/RunTime, before warm-up)"));
    }
    if system.is_some_and(|s| s.child("ProcessorTopology").is_some()) {
        meta.ignore("System/ProcessorTopology");
    }
    let profile_spans: Vec<SpanSettings> = root
        .child("Profile")
        .and_then(|p| p.child("TimeSpans"))
        .map(|ts| {
            ts.children("TimeSpan")
                .enumerate()
                .map(|(i, s)| {
                    span_settings(
                        &mut meta,
                        s,
                        &format!("Results/Profile/TimeSpans/TimeSpan[{}]", i + 1),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let mut runs = Vec::new();
    for (i, span) in root.children("TimeSpan").enumerate() {
        let settings = profile_spans.get(i).cloned().unwrap_or_default();
        let mut run = read_span(&mut meta, span, i + 1, settings);
        run.host = host.clone();
        runs.push(run);
    }
    if runs.is_empty() {
        return Err(IngestError::invalid(
            file,
            Some(Location::xml("Results")),
            "no <TimeSpan> results under <Results> (DiskSpd did not finish the run?)",
        ));
    }
    if runs.iter().all(|r| !r.has_results()) {
        return Err(IngestError::invalid(
            file,
            Some(Location::xml("Results/TimeSpan/Thread/Target")),
            "no thread reported byte and I/O counts",
        ));
    }
    build(file, meta, runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_only_inside_attribute_values() {
        let t = "<a>\n<PowerScheme Name=\"<unknown>\" Guid=\"\"/>\n<b x='1>2'>3 > 2</b></a>";
        let (fixed, at) = escape_attribute_values(t);
        assert_eq!(
            fixed,
            "<a>\n<PowerScheme Name=\"&lt;unknown&gt;\" Guid=\"\"/>\n<b x='1&gt;2'>3 > 2</b></a>"
        );
        assert_eq!(at.len(), 3);
        assert_eq!(line_col(t, at[0]), Location::line(2, 20));
        // Offsets after the repairs map back to the original.
        let orig = t.find("<b").unwrap_or(0);
        let new = fixed.find("<b").unwrap_or(0);
        assert_eq!(original_offset(new, &at), orig);
    }

    #[test]
    fn untouched_when_well_formed() {
        let t = "<!-- <x a=\"<\"> --><a b=\"c\"/>";
        let (fixed, at) = escape_attribute_values(t);
        assert!(at.is_empty());
        assert_eq!(fixed, t);
    }

    #[test]
    fn malformed_xml_reports_line_and_column() {
        let t = "<Results>\n  <System>\n    <ComputerName>vm</Computer>\n</Results>";
        let err = read("x.xml", t).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.starts_with("x.xml:3:"), "{err}");
        assert!(err.contains("malformed XML"), "{err}");
    }

    #[test]
    fn truncated_xml_is_an_error() {
        let t = "<Results>\n  <System>\n    <ComputerName>vm</ComputerName>\n";
        let err = read("t.xml", t).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("t.xml:4:1") && err.contains("truncated"), "{err}");
    }

    #[test]
    fn not_results_root() {
        let err = read("r.xml", "<Profile/>").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("not DiskSpd's <Results>"), "{err}");
    }
}
