//! `iostat -o JSON`: `{"sysstat": {"hosts": [{"nodename", "date", "statistics": [{
//! "timestamp"?, "avg-cpu"?, "disk": [{"disk_device", ...}]}]}]}}`.
//!
//! A document cut short (iostat killed mid-write) keeps its complete `statistics` entries:
//! the text is trimmed after the last complete entry and the open brackets are closed.

use advisor_model::{CaptureMeta, Location, RawCapture, Warning};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::columns::{self, Column, Number};
use super::json_stream::{self, key_path};
use super::time;
use super::{Assembler, DevRow, Report, Run};
use crate::IngestError;

pub(crate) fn read(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    read_with(file, text, true)
}

/// Reads a document; `stream` tries [`json_stream`] first (the general reader only reads
/// what it gives up on).
fn read_with(file: &str, text: &str, stream: bool) -> Result<RawCapture, IngestError> {
    let mut meta = CaptureMeta::new(super::JSON);
    if text.trim().is_empty() {
        return Err(IngestError::new(file, None, crate::ErrorKind::Empty));
    }
    let Some(start) = text.find('{') else {
        return Err(IngestError::invalid(
            file,
            Some(Location::line(1, 1)),
            "no JSON object in the file (expected `iostat -o JSON` output)",
        ));
    };
    let (line0, col0) = line_col(text, start);
    let relocate = |line: usize, column: usize| {
        if line <= 1 {
            Location::line(line0, col0 + column.saturating_sub(1) as u64)
        } else {
            Location::line(line0 + line as u64 - 1, column as u64)
        }
    };
    if !text[..start].trim().is_empty() {
        meta.warn("ignored text before the JSON document", Some(Location::line(1, 1)));
    }
    let body = &text[start..];
    if stream {
        match json_stream::read(body, &meta) {
            Ok(s) => {
                // Where the general reader notes text after the document: before the
                // warnings of the walk.
                let at = meta.warnings.len();
                return finish_stream(file, s, |l, c| (at, relocate(l, c)));
            }
            // Both readers parse the same text the same way: the general one would stop at
            // the same end.
            Err(e) if e.is_eof() => {
                let at = relocate(e.line(), e.column());
                let Some(repaired) = repair(body) else {
                    return Err(cut_short(file, at));
                };
                meta.warn(CUT_SHORT, Some(at.clone()));
                if let Ok(mut s) = json_stream::read(&repaired, &meta) {
                    // Nothing follows the repaired document.
                    s.trailing = None;
                    return finish_stream(file, s, |l, c| (0, relocate(l, c)));
                }
                let Ok(root) = serde_json::from_str::<Value>(&repaired) else {
                    return Err(cut_short(file, at));
                };
                let (runs, first_location) = walk(file, &root, &mut meta)?;
                return assemble(file, meta, &runs, first_location);
            }
            Err(_) => {}
        }
    }
    let root = match parse_first(body) {
        Ok((v, trailing)) => {
            if let Some(e) = trailing {
                meta.warn("ignored text after the JSON document", Some(relocate(e.0, e.1)));
            }
            v
        }
        Err(e) if e.is_eof() => {
            let at = relocate(e.line(), e.column());
            match recover_truncated(body) {
                Some(v) => {
                    meta.warn(CUT_SHORT, Some(at));
                    v
                }
                None => return Err(cut_short(file, at)),
            }
        }
        Err(e) => {
            return Err(IngestError::invalid(
                file,
                Some(relocate(e.line(), e.column())),
                format!("invalid JSON: {}", message_without_position(&e)),
            ));
        }
    };
    let (runs, first_location) = walk(file, &root, &mut meta)?;
    assemble(file, meta, &runs, first_location)
}

const CUT_SHORT: &str = "the JSON document is cut short (capture killed?): kept the complete \
                         statistics entries before the cut";

fn cut_short(file: &str, at: Location) -> IngestError {
    IngestError::invalid(
        file,
        Some(at),
        "the JSON document is cut short before its first complete statistics entry",
    )
}

fn assemble(
    file: &str,
    mut meta: CaptureMeta,
    runs: &[Run],
    first_location: Option<Location>,
) -> Result<RawCapture, IngestError> {
    let mut asm = Assembler::default();
    for run in runs {
        asm.begin_run(run.host.as_deref());
        for r in &run.reports {
            asm.report(&mut meta, r);
        }
        asm.end_run(&mut meta);
    }
    asm.finish(file, meta, first_location)
}

/// The capture from [`json_stream::read`]; `trailing` gives, from where text after the
/// document starts, the position of the general reader's warning about it and its location.
fn finish_stream(
    file: &str,
    s: json_stream::Streamed,
    trailing: impl Fn(usize, usize) -> (usize, Location),
) -> Result<RawCapture, IngestError> {
    let mut meta = s.meta;
    if let Some((line, column)) = s.trailing {
        let (at, loc) = trailing(line, column);
        let w = Warning::new("ignored text after the JSON document", Some(loc));
        meta.warnings.insert(at.min(meta.warnings.len()), w);
    }
    s.asm.finish(file, meta, s.first_location)
}

/// 1-based line and character column of a byte offset.
fn line_col(text: &str, offset: usize) -> (u64, u64) {
    let before = text.get(..offset).unwrap_or("");
    let line = before.matches('\n').count() as u64 + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() as u64 + 1;
    (line, col)
}

fn message_without_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    s.strip_suffix(&suffix).map(str::to_owned).unwrap_or(s)
}

/// Parses the first JSON value; reports where trailing text starts, if any.
#[allow(clippy::type_complexity)]
fn parse_first(body: &str) -> Result<(Value, Option<(usize, usize)>), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(body);
    let v = Value::deserialize(&mut de)?;
    let trailing = de.end().err().map(|e| (e.line(), e.column()));
    Ok((v, trailing))
}

/// Trims a cut document after its last complete `statistics` entry and closes what is open.
fn recover_truncated(body: &str) -> Option<Value> {
    serde_json::from_str(&repair(body)?).ok()
}

/// The text of a cut document up to its last complete `statistics` entry, with what is
/// open closed.
fn repair(body: &str) -> Option<String> {
    #[derive(Clone, Copy, PartialEq)]
    enum Open {
        Object,
        Array { statistics: bool },
    }
    let bytes = body.as_bytes();
    let mut stack: Vec<Open> = Vec::new();
    let mut in_string = false;
    let mut escape = false;
    let mut str_start = 0usize;
    let mut last_string: &str = "";
    let mut key: Option<&str> = None;
    let mut best: Option<(usize, Vec<Open>)> = None;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escape {
                escape = false;
            } else if b == b'\\' {
                escape = true;
            } else if b == b'"' {
                in_string = false;
                last_string = body.get(str_start..i).unwrap_or("");
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                str_start = i + 1;
            }
            b':' => key = Some(last_string),
            b',' => key = None,
            b'{' => {
                stack.push(Open::Object);
                key = None;
            }
            b'[' => {
                stack.push(Open::Array { statistics: key == Some("statistics") });
                key = None;
            }
            b'}' | b']' => {
                let closed = stack.pop()?;
                if closed == Open::Object && stack.last() == Some(&Open::Array { statistics: true })
                {
                    best = Some((i + 1, stack.clone()));
                }
                key = None;
            }
            _ => {}
        }
    }
    let (cut, open) = best?;
    let mut repaired = body.get(..cut)?.to_owned();
    for o in open.iter().rev() {
        repaired.push(if *o == Open::Object { '}' } else { ']' });
    }
    Some(repaired)
}

fn need_object<'v>(
    file: &str,
    v: Option<&'v Value>,
    path: &str,
) -> Result<&'v Map<String, Value>, IngestError> {
    match v {
        Some(Value::Object(m)) => Ok(m),
        Some(_) => {
            Err(IngestError::invalid(file, Some(Location::json(path)), "expected an object"))
        }
        None => Err(IngestError::invalid(
            file,
            Some(Location::json(path)),
            "missing (expected `iostat -o JSON` output: {\"sysstat\": {\"hosts\": [...]}})",
        )),
    }
}

/// The runs of a document, and where its first statistics entry is.
type Walked = (Vec<Run>, Option<Location>);

fn walk(file: &str, root: &Value, meta: &mut CaptureMeta) -> Result<Walked, IngestError> {
    let root = need_object(file, Some(root), "$")?;
    let sysstat = need_object(file, root.get("sysstat"), "$.sysstat")?;
    let hosts = match sysstat.get("hosts") {
        Some(Value::Array(a)) => a,
        _ => {
            return Err(IngestError::invalid(
                file,
                Some(Location::json("$.sysstat.hosts")),
                "expected an array of hosts",
            ));
        }
    };
    // Slash dates: month-first unless a field shows otherwise.
    let mut dates: Vec<&str> = Vec::new();
    for h in hosts {
        dates.extend(h.get("date").and_then(Value::as_str));
        if let Some(Value::Array(stats)) = h.get("statistics") {
            dates.extend(stats.iter().filter_map(|s| s.get("timestamp").and_then(Value::as_str)));
        }
    }
    let order = time::detect_order(dates);

    let mut runs = Vec::new();
    let mut first_location = None;
    let mut version_set = false;
    for (hi, h) in hosts.iter().enumerate() {
        let hpath = format!("$.sysstat.hosts[{hi}]");
        let Value::Object(h) = h else {
            meta.warn("skipped a host entry that is not an object", Some(Location::json(hpath)));
            continue;
        };
        let host = h.get("nodename").and_then(Value::as_str).map(str::to_owned);
        if let Some(d) = h.get("date").and_then(Value::as_str) {
            let note = format!("date: {d}");
            if !meta.notes.contains(&note) {
                meta.notes.push(note);
            }
        }
        let spath = format!("{hpath}.statistics");
        let stats = match h.get("statistics") {
            Some(Value::Array(a)) => a,
            _ => {
                meta.warn("skipped a host without a statistics array", Some(Location::json(spath)));
                continue;
            }
        };
        let mut run = Run { host, reports: Vec::new() };
        for (si, s) in stats.iter().enumerate() {
            let path = format!("{spath}[{si}]");
            let Value::Object(s) = s else {
                meta.warn(
                    "skipped a statistics entry that is not an object",
                    Some(Location::json(path)),
                );
                continue;
            };
            first_location.get_or_insert_with(|| Location::json(path.clone()));
            let mut report = Report { seen: true, ..Report::default() };
            match s.get("timestamp") {
                None => {}
                Some(Value::String(t)) => match time::parse_timestamp(t, order) {
                    Some(st) => report.time = Some(st),
                    None => meta.warn(
                        "unreadable timestamp; the report is kept without a time",
                        Some(Location::json(key_path(&path, "timestamp"))),
                    ),
                },
                Some(_) => meta.warn(
                    "a timestamp that is not a string; the report is kept without a time",
                    Some(Location::json(key_path(&path, "timestamp"))),
                ),
            }
            if let Some(cpu) = s.get("avg-cpu") {
                report.cpu_pct = cpu_pct(cpu, &key_path(&path, "avg-cpu"), meta);
            }
            match s.get("disk") {
                None => {}
                Some(Value::Array(disks)) => {
                    for (di, d) in disks.iter().enumerate() {
                        let dpath = format!("{}[{di}]", key_path(&path, "disk"));
                        if !version_set && let Value::Object(m) = d {
                            let keys: Vec<&str> = m.keys().map(String::as_str).collect();
                            meta.version = Some(columns::layout(&keys));
                            version_set = true;
                        }
                        if let Some(row) = disk(d, &dpath, meta) {
                            report.add_device(row);
                        }
                    }
                }
                Some(_) => meta.warn(
                    "skipped a disk list that is not an array",
                    Some(Location::json(key_path(&path, "disk"))),
                ),
            }
            run.reports.push(report);
        }
        runs.push(run);
    }
    if runs.iter().filter(|r| !r.reports.is_empty()).count() > 1 {
        meta.notes.push("several hosts in one document; targets carry their host".into());
    }
    Ok((runs, first_location))
}

fn cpu_pct(cpu: &Value, path: &str, meta: &mut CaptureMeta) -> Option<f64> {
    let Value::Object(m) = cpu else {
        meta.warn("skipped an avg-cpu that is not an object", Some(Location::json(path)));
        return None;
    };
    for k in m.keys().filter(|k| *k != "idle") {
        meta.ignore(format!("avg-cpu {k}"));
    }
    let ipath = key_path(path, "idle");
    match m.get("idle") {
        None => {
            meta.warn("avg-cpu without idle: CPU not read", Some(Location::json(ipath)));
            None
        }
        Some(v) => match v.as_f64().map(|i| columns::check(100.0 - i)) {
            Some(Ok(v)) => Some((v * 1e6).round() / 1e6),
            Some(Err(why)) => {
                meta.warn(format!("dropped {why} in avg-cpu idle"), Some(Location::json(ipath)));
                None
            }
            None => {
                meta.warn("avg-cpu idle is not a number", Some(Location::json(ipath)));
                None
            }
        },
    }
}

fn disk(d: &Value, path: &str, meta: &mut CaptureMeta) -> Option<DevRow> {
    let Value::Object(m) = d else {
        meta.warn("skipped a disk entry that is not an object", Some(Location::json(path)));
        return None;
    };
    let Some(raw_name) = m.get("disk_device").and_then(Value::as_str) else {
        meta.warn(
            "skipped a disk entry without a disk_device name",
            Some(Location::json(key_path(path, "disk_device"))),
        );
        return None;
    };
    let name = raw_name.trim();
    if name.is_empty() {
        meta.warn("skipped a disk entry with an empty name", Some(Location::json(path)));
        return None;
    }
    // `-g` group summaries carry a leading space.
    let group = raw_name.starts_with(' ');
    let mut values = Vec::new();
    for (k, v) in m.iter().filter(|(k, _)| *k != "disk_device") {
        let col = columns::classify(k);
        match col {
            Column::Metric { .. } => {}
            Column::Ignored => {
                meta.ignore(k.clone());
                continue;
            }
            Column::Unknown => {
                meta.ignore(format!("{k} (unknown key)"));
                continue;
            }
        }
        let Some(x) = v.as_f64() else {
            meta.warn(
                format!("skipped a value of {k} that is not a number"),
                Some(Location::json(key_path(path, k))),
            );
            continue;
        };
        match columns::convert(col, Number { value: x, suffix_bytes: None }) {
            Ok(Some(mv)) => values.push(mv),
            Ok(None) => {}
            Err(why) => {
                meta.warn(format!("dropped {why} in {k}"), Some(Location::json(key_path(path, k))))
            }
        }
    }
    Some(DevRow::new(name, group, values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_quote_odd_keys() {
        assert_eq!(key_path("$.a", "r/s"), "$.a[\"r/s\"]");
        assert_eq!(key_path("$.a", "disk"), "$.a.disk");
        assert_eq!(key_path("$.a", "avg-cpu"), "$.a[\"avg-cpu\"]");
    }

    #[test]
    fn recovery_keeps_complete_entries() {
        let doc = r#"{"sysstat": {"hosts": [{"nodename": "h", "statistics": [
            {"disk": [{"disk_device": "a", "r/s": 1}]},
            {"disk": [{"disk_device": "a", "r/s": 2}]},
            {"disk": [{"disk_device": "a", "r/"#;
        let v = recover_truncated(doc);
        let n = v
            .as_ref()
            .and_then(|v| v.pointer("/sysstat/hosts/0/statistics"))
            .and_then(Value::as_array)
            .map(Vec::len);
        assert_eq!(n, Some(2));
        assert!(recover_truncated(r#"{"sysstat": {"hosts": [{"statistics": [{"di"#).is_none());
        // Brackets inside strings do not count.
        let tricky =
            r#"{"sysstat": {"hosts": [{"nodename": "x]}{", "statistics": [{"disk": []}, {"#;
        assert!(recover_truncated(tricky).is_some());
    }

    #[test]
    fn line_col_counts_chars() {
        assert_eq!(line_col("ab\ncé{", 6), (2, 3));
        assert_eq!(line_col("{", 0), (1, 1));
    }

    /// Both readers on the same text: results compared through `Debug` (errors included).
    fn both(text: &str) -> (String, String) {
        let stream = format!("{:?}", read_with("f.json", text, true));
        let general = format!("{:?}", read_with("f.json", text, false));
        (stream, general)
    }

    /// Whether the stream reader reads the text (without the general reader's help).
    fn streamed(text: &str) -> bool {
        let body = text.find('{').map(|i| &text[i..]).unwrap_or("");
        json_stream::read(body, &CaptureMeta::new(crate::iostat::JSON)).is_ok()
    }

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            // xorshift64*
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }
        fn chance(&mut self, percent: usize) -> bool {
            self.below(100) < percent
        }
    }

    fn object(pairs: &[(String, String)]) -> String {
        let body: Vec<String> = pairs.iter().map(|(k, v)| format!("{k:?}: {v}")).collect();
        format!("{{{}}}", body.join(", "))
    }

    /// Reorders, duplicates or drops a pair now and then: shapes sysstat does not write.
    fn shuffle(rng: &mut Rng, pairs: &mut Vec<(String, String)>, percent: usize) {
        if pairs.len() > 1 && rng.chance(percent) {
            let (a, b) = (rng.below(pairs.len()), rng.below(pairs.len()));
            pairs.swap(a, b);
        }
        if !pairs.is_empty() && rng.chance(3) {
            let p = pairs[rng.below(pairs.len())].clone();
            pairs.push(p);
        }
        if !pairs.is_empty() && rng.chance(3) {
            pairs.remove(rng.below(pairs.len()));
        }
    }

    /// An iostat JSON document, mostly as sysstat writes it, with odd values in places.
    fn document(rng: &mut Rng) -> String {
        let numbers = ["0.00", "12.5", "100", "-1.5", "1e13", "7", "0", "99.99"];
        let odd = ["null", "\"x\"", "true", "[]", "{}", "[1, {\"a\": 2}]", "\"12\""];
        let stamps = [
            "\"11/21/26 10:00:00\"",
            "\"21/11/26 10:00:00\"",
            "\"2026-11-21T10:00:00+0530\"",
            "\"2026-11-21T10:00:00-0700\"",
            "\"1606829600\"",
            "\"11/05/2026 01:30:00 PM\"",
            "\"garbage\"",
            "3",
        ];
        let keys = [
            "r/s",
            "w/s",
            "rkB/s",
            "wkB/s",
            "rrqm/s",
            "r_await",
            "w_await",
            "aqu-sz",
            "util",
            "rareq-sz",
            "f/s",
            "bogus",
            "tps",
            "kB_read/s",
            "avgrq-sz",
            "rkB",
        ];
        let devices =
            ["\"sda\"", "\"sda1\"", "\"nvme0n1\"", "\" data\"", "\"  \"", "4", "\"dm-0\""];
        let mut hosts = Vec::new();
        for h in 0..1 + rng.below(2) {
            let mut host = Vec::new();
            if rng.chance(90) {
                let name = if rng.chance(90) { format!("\"vm{h}\"") } else { "1".to_owned() };
                host.push(("nodename".to_owned(), name));
            }
            host.push(("sysname".to_owned(), "\"Linux\"".to_owned()));
            if rng.chance(90) {
                let date = rng.pick(&["\"11/21/26\"", "\"21/11/26\"", "\"2026-11-21\"", "null"]);
                host.push(("date".to_owned(), date.to_owned()));
            }
            let mut stats = Vec::new();
            for _ in 0..rng.below(4) {
                let mut stat = Vec::new();
                if rng.chance(85) {
                    stat.push(("timestamp".to_owned(), rng.pick(&stamps).to_owned()));
                }
                if rng.chance(80) {
                    let mut cpu = vec![
                        ("user".to_owned(), rng.pick(&numbers).to_owned()),
                        ("system".to_owned(), rng.pick(&numbers).to_owned()),
                    ];
                    if rng.chance(85) {
                        let idle = if rng.chance(85) { rng.pick(&numbers) } else { rng.pick(&odd) };
                        cpu.push(("idle".to_owned(), idle.to_owned()));
                    }
                    shuffle(rng, &mut cpu, 4);
                    stat.push(("avg-cpu".to_owned(), object(&cpu)));
                }
                if rng.chance(90) {
                    let mut disks = Vec::new();
                    // The same keys for every disk of a report, mostly (the stream reader
                    // reuses what it learned of the last disk's keys).
                    let n_keys = 1 + rng.below(6);
                    let chosen: Vec<&str> = (0..n_keys).map(|_| rng.pick(&keys)).collect();
                    for _ in 0..rng.below(4) {
                        let mut disk = Vec::new();
                        if rng.chance(92) {
                            disk.push(("disk_device".to_owned(), rng.pick(&devices).to_owned()));
                        }
                        for k in &chosen {
                            let v =
                                if rng.chance(90) { rng.pick(&numbers) } else { rng.pick(&odd) };
                            disk.push(((*k).to_owned(), v.to_owned()));
                        }
                        shuffle(rng, &mut disk, 4);
                        disks.push(if rng.chance(97) { object(&disk) } else { "7".to_owned() });
                    }
                    let list = if rng.chance(97) {
                        format!("[{}]", disks.join(", "))
                    } else {
                        "{}".to_owned()
                    };
                    stat.push(("disk".to_owned(), list));
                }
                shuffle(rng, &mut stat, 15);
                stats.push(if rng.chance(97) { object(&stat) } else { "[]".to_owned() });
            }
            if rng.chance(95) {
                host.push(("statistics".to_owned(), format!("[\n{}\n]", stats.join(",\n"))));
            }
            shuffle(rng, &mut host, 30);
            hosts.push(object(&host));
        }
        let mut sysstat = vec![("hosts".to_owned(), format!("[{}]", hosts.join(", ")))];
        shuffle(rng, &mut sysstat, 4);
        let mut doc = object(&[("sysstat".to_owned(), object(&sysstat))]);
        if rng.chance(5) {
            doc = format!("junk before\n{doc}");
        }
        if rng.chance(5) {
            doc.push_str("\n trailing junk");
        }
        if rng.chance(15) {
            // Cut short, as a killed iostat leaves it.
            let mut cut = rng.below(doc.len());
            while !doc.is_char_boundary(cut) {
                cut -= 1;
            }
            doc.truncate(cut);
        }
        doc
    }

    #[test]
    fn stream_reader_reads_the_fixtures() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/captures/iostat-json");
        let mut n = 0;
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let (stream, general) = both(&text);
            assert_eq!(stream, general, "{}", path.display());
            let cut = path.to_string_lossy().contains("truncated");
            assert!(cut || streamed(&text), "{} not streamed", path.display());
            // Every cut of the file, as the general reader reads it.
            for end in (0..text.len()).step_by(97).filter(|e| text.is_char_boundary(*e)) {
                let (stream, general) = both(&text[..end]);
                assert_eq!(stream, general, "{} cut at {end}", path.display());
            }
            n += 1;
        }
        assert!(n >= 5, "fixtures not found");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]

        /// The stream reader gives what the general reader gives (`Value`, `walk`), on
        /// documents as sysstat writes them and on odd ones (keys twice or out of order,
        /// values of other types, cuts, text around the document).
        #[test]
        fn stream_reader_equals_general_reader(seed in proptest::prelude::any::<u64>()) {
            let mut rng = Rng(seed | 1);
            let doc = document(&mut rng);
            let (stream, general) = both(&doc);
            proptest::prop_assert_eq!(stream, general, "{}", doc);
        }
    }
}
