//! Topology errors, located and rendered as a user sees them.

use std::fmt;
use std::ops::Range;

/// What is wrong with a topology. Holds no location: [`TopologyError`] adds it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    /// The file is not valid TOML / JSON, or a key, type or value is not what the format
    /// allows (unknown key, bad `cache`, a string where a number goes).
    #[error("{message}")]
    Syntax { message: String, help: Option<String> },
    #[error("unknown VM size \"{name}\"")]
    UnknownVmSize { name: String, help: String },
    #[error("unknown disk SKU \"{name}\"")]
    UnknownSku { name: String, help: String },
    #[error("the name \"{name}\" is used twice (also at {first})")]
    DuplicateName { name: String, first: String },
    #[error("{message}")]
    Invalid { message: String, help: Option<String> },
    #[error("cannot read the topology: {0}")]
    Io(String),
}

impl ErrorKind {
    /// The "help:" line, when there is one.
    pub fn help(&self) -> Option<&str> {
        match self {
            Self::Syntax { help, .. } | Self::Invalid { help, .. } => help.as_deref(),
            Self::UnknownVmSize { help, .. } | Self::UnknownSku { help, .. } => Some(help),
            Self::DuplicateName { .. } => {
                Some("give each disk, pool and the temp disk its own name")
            }
            Self::Io(_) => None,
        }
    }
}

/// The place in the source an error points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    /// 1-based line and column (column in characters).
    pub line: usize,
    pub column: usize,
    /// The whole source line.
    pub text: String,
    /// Width of the caret run, in characters (at least 1).
    pub width: usize,
}

impl Snippet {
    /// Locates a byte range of `src`.
    pub fn at(src: &str, span: Range<usize>) -> Self {
        let start = floor_char(src, span.start.min(src.len()));
        let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[start..].find('\n').map_or(src.len(), |i| start + i);
        let text = src[line_start..line_end].trim_end_matches('\r').to_owned();
        let line = src[..start].matches('\n').count() + 1;
        let column = src[line_start..start].chars().count() + 1;
        let end = floor_char(src, span.end.clamp(start, line_end));
        let width = src[start..end].chars().count().max(1);
        Self { line, column, text, width }
    }

    /// Locates a 1-based line and column (as serde_json reports them).
    pub fn at_line_col(src: &str, line: usize, column: usize) -> Self {
        let text = src.lines().nth(line.saturating_sub(1)).unwrap_or("").trim_end_matches('\r');
        Self { line, column: column.max(1), text: text.to_owned(), width: 1 }
    }
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A topology that cannot be used: where, what, and how to fix it.
///
/// `Display` renders it as a user sees it:
/// ```text
/// topology.toml:2:8: unknown VM size "Standard_DS13v2"
///   |
/// 2 | size = "Standard_DS13v2"
///   |        ^^^^^^^^^^^^^^^^^
///   help: did you mean "Standard_DS13_v2"?
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyError {
    /// The file as the user named it, or `--vm` for the command-line size.
    pub file: String,
    pub snippet: Option<Box<Snippet>>,
    pub kind: ErrorKind,
}

/// The rendered message already says everything `kind` says (and an IO error's text), so
/// there is no separate source: `{:#}` chains would print it twice.
impl std::error::Error for TopologyError {}

impl TopologyError {
    pub fn new(file: impl Into<String>, kind: ErrorKind) -> Self {
        Self { file: file.into(), snippet: None, kind }
    }

    /// Attaches the place in the source.
    pub fn at(mut self, snippet: Snippet) -> Self {
        self.snippet = Some(Box::new(snippet));
        self
    }

    /// `file:line:col`, or the file alone.
    pub fn location(&self) -> String {
        match &self.snippet {
            Some(s) => format!("{}:{}:{}", self.file, s.line, s.column),
            None => self.file.clone(),
        }
    }

    /// The first line only: `file:line:col: message`.
    pub fn headline(&self) -> String {
        format!("{}: {}", self.location(), self.kind)
    }
}

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.headline())?;
        if let Some(s) = &self.snippet {
            let num = s.line.to_string();
            let pad = " ".repeat(num.len());
            let indent: String = s
                .text
                .chars()
                .take(s.column - 1)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            write!(f, "\n{pad} |\n{num} | {}\n{pad} | {indent}{}", s.text, "^".repeat(s.width))?;
        }
        if let Some(h) = self.kind.help() {
            write!(f, "\n  help: {h}")?;
        }
        Ok(())
    }
}
