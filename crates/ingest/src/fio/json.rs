//! The JSON layer of the fio reader: a tree that keeps duplicate keys, the repair of fio's
//! bare `nan`/`inf` tokens, and the search for the documents inside a file that may also
//! hold fio's own messages or its normal text output.

use std::borrow::Cow;
use std::fmt;

use advisor_model::Location;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A JSON value whose objects keep every entry in order, duplicates included (fio writes
/// `"0.00"` percentile keys three times, and `filename` twice when given twice).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Node>),
    Obj(Vec<(String, Node)>),
}

impl Node {
    /// The last entry named `key` (what a plain JSON map would keep), when this is an object.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Obj(entries) => entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn entries(&self) -> &[(String, Node)] {
        match self {
            Node::Obj(e) => e,
            _ => &[],
        }
    }

    pub(crate) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// What kind of value this is, for messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool(_) => "a boolean",
            Node::Num(_) => "a number",
            Node::Str(_) => "a string",
            Node::Arr(_) => "an array",
            Node::Obj(_) => "an object",
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Num(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Num(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Num(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element::<Node>()? {
            advisor_model::work::checkpoint_every(out.len());
            out.push(v);
        }
        Ok(Node::Arr(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut out = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Node>()? {
            out.push((k, v));
        }
        Ok(Node::Obj(out))
    }
}

/// fio 2.x prints non-finite floats with `printf("%f")`: `-nan`, `nan`, `inf`, `-inf`, which
/// is not JSON. Such a token in a value position (after `:`, `,` or `[`, outside string
/// literals) is replaced by `null` (read as missing); text around the JSON (`minf=42` in
/// fio's normal output) is left alone. Returns
/// the repaired text, how many tokens were replaced and the 1-based line of the first.
pub(crate) fn repair_non_finite(text: &str) -> (Cow<'_, str>, usize, Option<u64>) {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0usize;
    let mut count = 0usize;
    let mut first_line = None;
    let mut line = 1u64;
    let mut in_str = false;
    let mut escaped = false;
    let mut prev = b'\0';
    let mut i = 0usize;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            line += 1;
        }
        if in_str {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_str = true;
            prev = b;
            i += 1;
            continue;
        }
        let len = if matches!(prev, b':' | b',' | b'[') {
            non_finite_len(bytes.get(i..).unwrap_or_default())
        } else {
            0
        };
        if len > 0 {
            let buf = out.get_or_insert_with(|| String::with_capacity(text.len() + 16));
            // Token boundaries are ASCII, so these are char boundaries.
            buf.push_str(text.get(copied..i).unwrap_or_default());
            buf.push_str("null");
            copied = i + len;
            count += 1;
            first_line.get_or_insert(line);
            prev = b'0';
            i += len;
            continue;
        }
        if !b.is_ascii_whitespace() {
            prev = b;
        }
        i += 1;
    }
    match out {
        Some(mut buf) => {
            buf.push_str(text.get(copied..).unwrap_or_default());
            (Cow::Owned(buf), count, first_line)
        }
        None => (Cow::Borrowed(text), 0, None),
    }
}

/// Length of a `nan`/`-nan`/`inf`/`-inf`/`infinity` token at the start of `s`, else 0.
fn non_finite_len(s: &[u8]) -> usize {
    let (sign, rest) = match s.first() {
        Some(b'-') | Some(b'+') => (1, s.get(1..).unwrap_or_default()),
        _ => (0, s),
    };
    for word in [&b"infinity"[..], b"nan", b"inf"] {
        if rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word) {
            // Not part of a longer word (there is none in valid JSON, but stay strict).
            let next = rest.get(word.len()).copied().unwrap_or(b' ');
            if !next.is_ascii_alphanumeric() {
                return sign + word.len();
            }
        }
    }
    0
}

/// One JSON document found in the file: its byte range and parsed tree.
#[derive(Debug)]
pub(crate) struct Document {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) root: Node,
}

/// A syntax error inside a document, located in the whole file.
#[derive(Debug)]
pub(crate) struct SyntaxError {
    pub(crate) location: Location,
    pub(crate) message: String,
    /// Byte offset of the document that failed.
    pub(crate) start: usize,
}

/// Byte offsets where a fio JSON document starts: a `{` whose first key is `"fio version"`.
/// When there is none, the first `{` that opens a line (older or edited output).
pub(crate) fn document_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = Vec::new();
    for pos in memchr::memchr_iter(b'{', bytes) {
        let rest = bytes.get(pos + 1..).unwrap_or_default();
        let skip = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if rest.get(skip..).is_some_and(|r| r.starts_with(b"\"fio version\"")) {
            starts.push(pos);
        }
    }
    if starts.is_empty() {
        let mut line_start = true;
        for (pos, &b) in bytes.iter().enumerate() {
            if b == b'{' && line_start {
                starts.push(pos);
                break;
            }
            if b == b'\n' {
                line_start = true;
            } else if !b.is_ascii_whitespace() {
                line_start = false;
            }
        }
    }
    starts
}

/// Parses every document in `text` (already repaired). Stops at the first document that
/// fails: the documents before it are returned with the error.
pub(crate) fn parse_documents(text: &str) -> (Vec<Document>, Option<SyntaxError>) {
    let mut docs = Vec::new();
    let mut next_free = 0usize;
    for start in document_starts(text) {
        if start < next_free {
            continue; // a `{` inside the previous document
        }
        let Some(slice) = text.get(start..) else { break };
        let mut stream = serde_json::Deserializer::from_str(slice).into_iter::<Node>();
        match stream.next() {
            Some(Ok(root)) => {
                let end = start + stream.byte_offset();
                next_free = end;
                docs.push(Document { start, end, root });
            }
            Some(Err(e)) => {
                let mut message = e.to_string();
                // serde_json appends " at line L column C" relative to the document; the
                // location (in the whole file) says it instead.
                if let Some(cut) = message.rfind(" at line ") {
                    message.truncate(cut);
                }
                let err = SyntaxError {
                    location: locate(text, start, e.line(), e.column()),
                    message,
                    start,
                };
                return (docs, Some(err));
            }
            None => break,
        }
    }
    (docs, None)
}

/// Turns a serde_json line/column inside the document starting at `start` into a location
/// in the whole file.
fn locate(text: &str, start: usize, line: usize, column: usize) -> Location {
    let before = text.get(..start).unwrap_or_default();
    let base_line = before.bytes().filter(|&b| b == b'\n').count() as u64;
    let base_col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) as u64;
    let line = line.max(1) as u64;
    let column = column as u64;
    if line == 1 {
        Location::line(base_line + 1, base_col + column.max(1))
    } else {
        Location::line(base_line + line, column.max(1))
    }
}

/// 1-based line number of a byte offset.
pub(crate) fn line_of(text: &str, offset: usize) -> u64 {
    let upto = text.get(..offset).unwrap_or(text);
    upto.bytes().filter(|&b| b == b'\n').count() as u64 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_kept_and_get_returns_the_last() {
        let v: Node = serde_json::from_str(r#"{"a": 1, "a": 2, "b": "x"}"#).unwrap_or(Node::Null);
        assert_eq!(v.get("a"), Some(&Node::Num(2.0)));
        assert_eq!(v.entries().iter().filter(|(k, _)| k == "a").count(), 2);
        assert_eq!(v.get("b").and_then(Node::as_str), Some("x"));
    }

    #[test]
    fn non_finite_tokens_become_null_outside_strings() {
        let (t, n, line) =
            repair_non_finite("{\"nan\": -nan,\n \"b\": inf, \"c\": \"-nan\", \"d\": NaN}");
        assert_eq!(n, 3);
        assert_eq!(line, Some(1));
        assert_eq!(t, "{\"nan\": null,\n \"b\": null, \"c\": \"-nan\", \"d\": null}");
        let (t, n, _) = repair_non_finite("cpu : usr=5.54%, minf=42\n{\"a\": null, \"b\": true}");
        assert_eq!(n, 0);
        assert!(matches!(t, Cow::Borrowed(_)));
    }

    #[test]
    fn documents_are_found_after_text_and_back_to_back() {
        let text =
            "fio: warning {x}\n{\n\"fio version\": \"fio-3.33\"}\n{\"fio version\": \"b\"}\ntail";
        let (docs, err) = parse_documents(text);
        assert!(err.is_none());
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].start, 17);
        assert_eq!(line_of(text, docs[1].start), 4);
    }

    #[test]
    fn syntax_errors_are_located_in_the_whole_file() {
        let text = "junk\n{\"fio version\": \"x\",\n \"jobs\": [1,}";
        let (docs, err) = parse_documents(text);
        assert!(docs.is_empty());
        let err = err.map(|e| e.location);
        assert_eq!(err, Some(Location::line(3, 13)));
        let text = "ab {\"fio version\": x}";
        let (_, err) = parse_documents(text);
        assert_eq!(err.map(|e| e.location), Some(Location::line(1, 20)));
    }
}
