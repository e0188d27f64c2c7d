//! `iostat -o JSON`: `{"sysstat": {"hosts": [{"nodename", "date", "statistics": [{
//! "timestamp"?, "avg-cpu"?, "disk": [{"disk_device", ...}]}]}]}}`.
//!
//! A document cut short (iostat killed mid-write) keeps its complete `statistics` entries:
//! the text is trimmed after the last complete entry and the open brackets are closed.

use advisor_model::{CaptureMeta, Format, Location, RawCapture};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::columns::{self, Column, Number};
use super::time;
use super::{Assembler, DevRow, Report, Run};
use crate::IngestError;

pub(crate) fn read(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    let mut meta = CaptureMeta::new(Format::IostatJson);
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
                    meta.warn(
                        "the JSON document is cut short (capture killed?): kept the complete \
                         statistics entries before the cut",
                        Some(at),
                    );
                    v
                }
                None => {
                    return Err(IngestError::invalid(
                        file,
                        Some(at),
                        "the JSON document is cut short before its first complete \
                         statistics entry",
                    ));
                }
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
    let mut asm = Assembler::default();
    for run in &runs {
        asm.begin_run(run.host.as_deref());
        for r in &run.reports {
            asm.report(&mut meta, r);
        }
        asm.end_run(&mut meta);
    }
    asm.finish(file, meta, first_location)
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
    serde_json::from_str(&repaired).ok()
}

/// `base.key`, or `base["key"]` for keys that are not identifiers (`r/s`, `avg-cpu`).
fn key_path(base: &str, key: &str) -> String {
    let ident = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ident { format!("{base}.{key}") } else { format!("{base}[{key:?}]") }
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
}
