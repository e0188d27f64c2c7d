//! `iostat -o JSON`: `{"sysstat": {"hosts": [{"nodename", "date", "statistics": [{
//! "timestamp"?, "avg-cpu"?, "disk": [{"disk_device", ...}]}]}]}}`.
//!
//! One reader, in layers: [`values`] reads JSON values without building a tree of the
//! document, [`report`] reads one report (`statistics` entry), [`document`] walks the
//! document's layout (hosts, their reports) into the assembler, and this module deals
//! with the text around it: text before or after the document, and a document cut short
//! (iostat killed mid-write), which keeps its complete `statistics` entries: the text is
//! trimmed after the last complete entry and the open brackets are closed.

mod document;
mod report;
mod values;

use advisor_model::{CaptureMeta, Location, RawCapture, Warning};

use crate::IngestError;
use document::{Failed, Walked};

pub(crate) fn read(file: &str, text: &str) -> Result<RawCapture, IngestError> {
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
    match document::walk(file, body, &meta) {
        Ok(walked) => {
            // Text after the document is noted before what the walk noted.
            let trailing = walked.trailing.map(|(l, c)| (meta.warnings.len(), relocate(l, c)));
            finish(file, walked, trailing)
        }
        Err(Failed::Json(e)) if e.is_eof() => {
            let at = relocate(e.line(), e.column());
            let Some(repaired) = repair(body) else {
                return Err(cut_short(file, at));
            };
            meta.warn(CUT_SHORT, Some(at.clone()));
            match document::walk(file, &repaired, &meta) {
                // Nothing follows the repaired document.
                Ok(walked) => finish(file, walked, None),
                Err(Failed::Json(_)) => Err(cut_short(file, at)),
                Err(Failed::Shape(e)) => Err(e),
            }
        }
        Err(Failed::Json(e)) => Err(IngestError::invalid(
            file,
            Some(relocate(e.line(), e.column())),
            format!("invalid JSON: {}", message_without_position(&e)),
        )),
        Err(Failed::Shape(e)) => Err(e),
    }
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

/// The capture from a walk; `trailing` is where text after the document is noted (the
/// index among the warnings) and where it starts.
fn finish(
    file: &str,
    walked: Walked,
    trailing: Option<(usize, Location)>,
) -> Result<RawCapture, IngestError> {
    let mut meta = walked.meta;
    if let Some((at, loc)) = trailing {
        let w = Warning::new("ignored text after the JSON document", Some(loc));
        meta.warnings.insert(at.min(meta.warnings.len()), w);
    }
    walked.asm.finish(file, meta, walked.first_location)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_quote_odd_keys() {
        use report::key_path;
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
        let v = repair(doc).and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        let n = v
            .as_ref()
            .and_then(|v| v.pointer("/sysstat/hosts/0/statistics"))
            .and_then(serde_json::Value::as_array)
            .map(Vec::len);
        assert_eq!(n, Some(2));
        assert!(repair(r#"{"sysstat": {"hosts": [{"statistics": [{"di"#).is_none());
        // Brackets inside strings do not count.
        let tricky =
            r#"{"sysstat": {"hosts": [{"nodename": "x]}{", "statistics": [{"disk": []}, {"#;
        assert!(repair(tricky).is_some());
    }

    #[test]
    fn line_col_counts_chars() {
        assert_eq!(line_col("ab\ncé{", 6), (2, 3));
        assert_eq!(line_col("{", 0), (1, 1));
    }
}
