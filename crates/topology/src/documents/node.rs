//! A JSON value with the path that reached it, so that every fact keeps its source and every
//! error names the file, the JSON path and the line:column.

use std::fmt;

use serde_json::Value;

use crate::error::{ErrorKind, Snippet, TopologyError};
use crate::spec::{Seg, json_span};

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// Where a fact came from: the document and the JSON path (or line) in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Src {
    pub(crate) file: String,
    /// `$.compute.vmSize`, `line 3`.
    pub(crate) path: String,
}

impl fmt::Display for Src {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.path)
    }
}

#[derive(Clone)]
pub(crate) struct Node<'a> {
    pub(crate) file: &'a str,
    text: &'a str,
    pub(crate) v: &'a Value,
    path: Vec<Step>,
}

impl<'a> Node<'a> {
    pub(crate) fn root(file: &'a str, text: &'a str, v: &'a Value) -> Self {
        Self { file, text, v, path: Vec::new() }
    }

    pub(crate) fn get(&self, key: &str) -> Option<Node<'a>> {
        let v = self.v.get(key)?;
        if v.is_null() {
            return None;
        }
        let mut path = self.path.clone();
        path.push(Step::Key(key.to_owned()));
        Some(Node { file: self.file, text: self.text, v, path })
    }

    /// The first of several spellings (`diskSizeGB`, `diskSizeGb`).
    pub(crate) fn get_any(&self, keys: &[&str]) -> Option<Node<'a>> {
        keys.iter().find_map(|k| self.get(k))
    }

    /// The items of an array (a lone object is one item: `ConvertTo-Json` of one disk).
    pub(crate) fn items(&self) -> Vec<Node<'a>> {
        match self.v {
            Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let mut path = self.path.clone();
                    path.push(Step::Index(i));
                    Node { file: self.file, text: self.text, v, path }
                })
                .collect(),
            Value::Null => Vec::new(),
            _ => vec![self.clone()],
        }
    }

    pub(crate) fn path(&self) -> String {
        let mut s = String::from("$");
        for step in &self.path {
            match step {
                // A label's key (`node.kubernetes.io/instance-type`) in brackets, so that
                // its dots read as part of it.
                Step::Key(k)
                    if !k.is_empty()
                        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
                {
                    s.push('.');
                    s.push_str(k);
                }
                Step::Key(k) => s.push_str(&format!("[{}]", Value::String(k.clone()))),
                Step::Index(i) => s.push_str(&format!("[{i}]")),
            }
        }
        s
    }

    pub(crate) fn src(&self) -> Src {
        Src { file: self.file.to_owned(), path: self.path() }
    }

    /// An error at this value: `file:line:col: at $.path: message`.
    pub(crate) fn error(&self, message: String, help: Option<&str>) -> TopologyError {
        let err = TopologyError::new(
            self.file,
            ErrorKind::Invalid {
                message: format!("at {}: {message}", self.path()),
                help: help.map(str::to_owned),
            },
        );
        let segs: Vec<Seg<'_>> = self
            .path
            .iter()
            .map(|s| match s {
                Step::Key(k) => Seg::Key(k.as_str()),
                Step::Index(i) => Seg::Index(*i),
            })
            .collect();
        // The document was parsed from its text with leading blanks trimmed.
        let start = self.text.len() - self.text.trim_start_matches('\u{feff}').trim_start().len();
        match json_span(&self.text[start..], &segs) {
            Some(span) => err.at(Snippet::at(self.text, span.start + start..span.end + start)),
            None => err,
        }
    }

    /// An error at the value under `key` (or here when it is absent).
    pub(crate) fn key_error(
        &self,
        key: &str,
        message: String,
        help: Option<&str>,
    ) -> TopologyError {
        match self.get(key) {
            Some(n) => n.error(message, help),
            None => self.error(message, help),
        }
    }

    /// A string, or a number or bool written as one.
    pub(crate) fn text(&self) -> Result<String, TopologyError> {
        match self.v {
            Value::String(s) => Ok(s.trim().to_owned()),
            Value::Number(n) => Ok(n.to_string()),
            Value::Bool(b) => Ok(b.to_string()),
            other => Err(self.error(format!("expected a string, found {}", kind_of(other)), None)),
        }
    }

    /// A number, or a string holding one (IMDS writes every value as a string).
    pub(crate) fn number(&self) -> Result<Option<f64>, TopologyError> {
        let x = match self.v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) if s.trim().is_empty() => return Ok(None),
            Value::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        };
        match x {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(Some(x)),
            _ => Err(self.error(format!("expected a number of 0 or more, found {}", self.v), None)),
        }
    }

    /// A whole number (a LUN, a disk number), or a string holding one.
    pub(crate) fn whole(&self) -> Result<Option<u32>, TopologyError> {
        match self.number()? {
            None => Ok(None),
            Some(x) if x.fract() == 0.0 && x <= f64::from(u32::MAX) => Ok(Some(x as u32)),
            Some(_) => Err(self.error(format!("expected a whole number, found {}", self.v), None)),
        }
    }

    /// A bool, or a string `"true"`/`"false"`.
    pub(crate) fn flag(&self) -> Result<Option<bool>, TopologyError> {
        match self.v {
            Value::Bool(b) => Ok(Some(*b)),
            Value::String(s) if s.trim().is_empty() => Ok(None),
            Value::String(s) if s.trim().eq_ignore_ascii_case("true") => Ok(Some(true)),
            Value::String(s) if s.trim().eq_ignore_ascii_case("false") => Ok(Some(false)),
            other => Err(self.error(format!("expected true or false, found {other}"), None)),
        }
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
