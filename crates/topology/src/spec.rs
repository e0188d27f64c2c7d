//! The topology file as written (TOML, or JSON of the same shape), before the catalog is
//! consulted, and the locating of a key path in its source for errors found afterwards.

use std::ops::Range;

use serde::Deserialize;

use crate::error::{ErrorKind, Snippet, TopologyError};
use crate::suggest::did_you_mean;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileSpec {
    pub(crate) vm: Option<VmSpec>,
    #[serde(default)]
    pub(crate) disk: Vec<DiskSpec>,
    #[serde(default)]
    pub(crate) pool: Vec<PoolSpec>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct VmSpec {
    pub(crate) size: String,
    pub(crate) temp_disk: Option<String>,
    pub(crate) vcpu: Option<u32>,
    pub(crate) memory_gib: Option<f64>,
    pub(crate) temp_gib: Option<f64>,
    pub(crate) max_data_disks: Option<u32>,
    pub(crate) cached_iops: Option<f64>,
    pub(crate) cached_mbps: Option<f64>,
    pub(crate) cache_gib: Option<f64>,
    pub(crate) uncached_iops: Option<f64>,
    pub(crate) uncached_mbps: Option<f64>,
    pub(crate) uncached_burst_iops: Option<f64>,
    pub(crate) uncached_burst_mbps: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DiskSpec {
    pub(crate) name: String,
    pub(crate) sku: Option<String>,
    pub(crate) cache: Option<String>,
    pub(crate) role: Option<String>,
    pub(crate) iops: Option<f64>,
    pub(crate) mbps: Option<f64>,
    pub(crate) bursting: Option<bool>,
    pub(crate) write_accelerator: Option<bool>,
    /// The disk's LUN on the VM (Azure's slot number; platform metrics are per LUN).
    pub(crate) lun: Option<u32>,
    /// `scsi` or `nvme`: the controller the disk attaches through (picks the size's
    /// per-controller remote figures).
    pub(crate) controller: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PoolSpec {
    pub(crate) name: String,
    pub(crate) disks: Vec<String>,
    pub(crate) columns: Option<u32>,
    pub(crate) interleave_kib: Option<u32>,
}

/// The syntax a topology is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    Toml,
    Json,
}

impl SourceFormat {
    /// JSON when the file is named `*.json` or its text starts with `{`; TOML otherwise.
    pub fn detect(file: &str, text: &str) -> Self {
        if file.to_ascii_lowercase().ends_with(".json") || text.trim_start().starts_with('{') {
            Self::Json
        } else {
            Self::Toml
        }
    }
}

/// One step of a path into the document: a key or an array index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// The parsed file with what is needed to point at its parts later.
#[derive(Debug)]
pub(crate) struct Parsed<'s> {
    pub(crate) file: String,
    pub(crate) text: &'s str,
    pub(crate) format: SourceFormat,
    pub(crate) spec: FileSpec,
}

impl Parsed<'_> {
    /// An error pointing at the value at `path` (or at the nearest parent that exists).
    pub(crate) fn error(&self, path: &[Seg<'_>], kind: ErrorKind) -> TopologyError {
        let err = TopologyError::new(self.file.clone(), kind);
        match self.span(path) {
            Some(span) => err.at(Snippet::at(self.text, span)),
            None => err,
        }
    }

    /// `line:col` of the value at `path`.
    pub(crate) fn line_col(&self, path: &[Seg<'_>]) -> String {
        match self.span(path) {
            Some(span) => {
                let s = Snippet::at(self.text, span);
                format!("{}:{}", s.line, s.column)
            }
            None => self.file.clone(),
        }
    }

    fn span(&self, path: &[Seg<'_>]) -> Option<Range<usize>> {
        (0..=path.len()).rev().find_map(|n| match self.format {
            SourceFormat::Toml => toml_span(self.text, &path[..n]),
            SourceFormat::Json => json_span(self.text, &path[..n]).filter(|_| n > 0),
        })
    }
}

/// Parses the text; syntax, unknown keys and wrong types become located errors.
pub(crate) fn parse<'s>(
    file: &str,
    text: &'s str,
    format: SourceFormat,
) -> Result<Parsed<'s>, TopologyError> {
    let spec = match format {
        SourceFormat::Toml => toml::from_str::<FileSpec>(text).map_err(|e| {
            let (message, help) = explain(e.message());
            let err = TopologyError::new(file, ErrorKind::Syntax { message, help });
            match e.span() {
                Some(span) => err.at(Snippet::at(text, span)),
                None => err,
            }
        })?,
        SourceFormat::Json => serde_json::from_str::<FileSpec>(text).map_err(|e| {
            let full = e.to_string();
            let suffix = format!(" at line {} column {}", e.line(), e.column());
            let raw = full.strip_suffix(&suffix).unwrap_or(&full);
            let (message, help) = explain(raw);
            let err = TopologyError::new(file, ErrorKind::Syntax { message, help });
            if e.line() == 0 {
                return err;
            }
            // serde_json points after an unknown key; point at the key itself.
            let line_end: usize = text.split_inclusive('\n').take(e.line()).map(str::len).sum();
            let key = raw.strip_prefix("unknown field `").and_then(|r| r.split('`').next());
            match key.and_then(|k| {
                let quoted = format!("\"{k}\"");
                text[..line_end.min(text.len())].rfind(&quoted).map(|i| i..i + quoted.len())
            }) {
                Some(span) => err.at(Snippet::at(text, span)),
                None => err.at(Snippet::at_line_col(text, e.line(), e.column())),
            }
        })?,
    };
    Ok(Parsed { file: file.to_owned(), text, format, spec })
}

/// serde's messages, with a did-you-mean for unknown keys and a line of help for the
/// mistakes people make most.
fn explain(message: &str) -> (String, Option<String>) {
    let message = message.trim().trim_end_matches('\n').to_owned();
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((field, tail)) = rest.split_once('`')
    {
        let expected: Vec<&str> = tail.split('`').skip(1).step_by(2).collect();
        let help = match did_you_mean(field, expected.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None if expected.is_empty() => "remove this key".to_owned(),
            None => format!("the keys here are: {}", expected.join(", ")),
        };
        return (format!("unknown key `{field}`"), Some(help));
    }
    if let Some(field) = message.strip_prefix("missing field `").and_then(|r| r.split('`').next()) {
        let help = format!("add `{field} = ...`");
        return (format!("missing key `{field}`"), Some(help));
    }
    if message.starts_with("invalid type") || message.starts_with("invalid value") {
        let message = message
            .replace("expected f64", "expected a number")
            .replace("expected u32", "expected a whole number")
            .replace("expected a sequence", "expected a list");
        return (
            message,
            Some("check the value's type: names in quotes, figures as plain numbers".to_owned()),
        );
    }
    (message, None)
}

fn toml_span(text: &str, path: &[Seg<'_>]) -> Option<Range<usize>> {
    use toml::de::{DeTable, DeValue};
    let root = DeTable::parse(text).ok()?;
    let mut span = root.span();
    let mut table: Option<&DeTable<'_>> = Some(root.get_ref());
    let mut array: Option<&[toml::Spanned<DeValue<'_>>]> = None;
    for seg in path {
        let value = match (seg, table, array) {
            (Seg::Key(k), Some(t), _) => {
                t.iter().find(|(key, _)| key.get_ref() == k).map(|(_, v)| v)?
            }
            (Seg::Index(i), _, Some(a)) => a.get(*i)?,
            _ => return None,
        };
        span = value.span();
        table = None;
        array = None;
        match value.get_ref() {
            DeValue::Table(t) => table = Some(t),
            DeValue::Array(a) => array = Some(a),
            _ => {}
        }
    }
    // An array of tables spans from its header; point at the `[[disk]]` line.
    Some(span)
}

/// The byte span of the value at `path` in a JSON text already known to be valid.
pub(crate) fn json_span(text: &str, path: &[Seg<'_>]) -> Option<Range<usize>> {
    let b = text.as_bytes();
    let mut pos = skip_ws(b, 0);
    for seg in path {
        match (seg, b.get(pos)) {
            (Seg::Key(k), Some(b'{')) => {
                pos = skip_ws(b, pos + 1);
                loop {
                    if b.get(pos) != Some(&b'"') {
                        return None;
                    }
                    let key_end = string_end(b, pos)?;
                    let key: String = serde_json::from_str(&text[pos..key_end]).ok()?;
                    pos = skip_ws(b, key_end);
                    if b.get(pos) != Some(&b':') {
                        return None;
                    }
                    pos = skip_ws(b, pos + 1);
                    if key == *k {
                        break;
                    }
                    pos = skip_ws(b, value_end(b, pos)?);
                    match b.get(pos) {
                        Some(b',') => pos = skip_ws(b, pos + 1),
                        _ => return None,
                    }
                }
            }
            (Seg::Index(i), Some(b'[')) => {
                pos = skip_ws(b, pos + 1);
                for _ in 0..*i {
                    pos = skip_ws(b, value_end(b, pos)?);
                    match b.get(pos) {
                        Some(b',') => pos = skip_ws(b, pos + 1),
                        _ => return None,
                    }
                }
                if b.get(pos) == Some(&b']') {
                    return None;
                }
            }
            _ => return None,
        }
    }
    Some(pos..value_end(b, pos)?)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

/// Given `b[i] == '"'`, the index after the closing quote.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while let Some(&c) = b.get(j) {
        match c {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while let Some(&c) = b.get(j) {
                match c {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while b
                .get(j)
                .is_some_and(|c| !matches!(c, b',' | b'}' | b']') && !c.is_ascii_whitespace())
            {
                j += 1;
            }
            Some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_values_in_json_and_toml() {
        let json = "{\n  \"vm\": {\"size\": \"X\"},\n  \"disk\": [{\"name\": \"E:\"}, {\"name\": \"F:\", \"sku\": \"P3O\"}]\n}";
        let span = json_span(json, &[Seg::Key("disk"), Seg::Index(1), Seg::Key("sku")]);
        assert_eq!(span.map(|s| &json[s]), Some("\"P3O\""));
        assert_eq!(json_span(json, &[Seg::Key("pool")]), None);
        let toml = "[vm]\nsize = \"X\"\n\n[[disk]]\nname = \"E:\"\n\n[[disk]]\nname = \"F:\"\nsku = \"P3O\"\n";
        let span = toml_span(toml, &[Seg::Key("disk"), Seg::Index(1), Seg::Key("sku")]);
        assert_eq!(span.map(|s| &toml[s]), Some("\"P3O\""));
    }
}
