use std::fmt;

use advisor_model::Location;

/// A capture that could not be read. Carries the file and, where known, the place in it.
#[derive(Debug, thiserror::Error)]
pub struct IngestError {
    pub file: String,
    pub location: Option<Location>,
    pub kind: ErrorKind,
}

impl fmt::Display for IngestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(loc) = &self.location {
            match loc {
                Location::Line { .. } => write!(f, ":{loc}")?,
                _ => write!(f, " at {loc}")?,
            }
        }
        write!(f, ": {}", self.kind)
    }
}

impl IngestError {
    pub fn new(file: impl Into<String>, location: Option<Location>, kind: ErrorKind) -> Self {
        Self { file: file.into(), location, kind }
    }

    /// A malformed input at a known place.
    pub fn invalid(file: &str, location: Option<Location>, message: impl Into<String>) -> Self {
        Self::new(file, location, ErrorKind::Invalid(message.into()))
    }

    /// Input that is not one of the supported formats.
    pub fn not_supported(file: &str, looks_like: impl Into<String>, hint: Option<String>) -> Self {
        Self::new(file, None, ErrorKind::NotSupported { looks_like: looks_like.into(), hint })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ErrorKind {
    #[error("the file is empty")]
    Empty,
    #[error("this looks like {looks_like}, which advisor does not read{}. Supported: {}", hint.as_deref().map(|h| format!("; {h}")).unwrap_or_default(), crate::supported())]
    NotSupported { looks_like: String, hint: Option<String> },
    #[error("fio wrote no results, only its error: {message}")]
    FioError { message: String },
    #[error("{0}")]
    Invalid(String),
    #[error("cannot read the file: {0}")]
    Io(#[from] std::io::Error),
}

/// 1-based line and column (in characters) of a byte offset in `text`: where a reader
/// that works on offsets (XML, the repaired iostat JSON) says an error is.
pub(crate) fn line_col(text: &str, offset: usize) -> Location {
    let mut off = offset.min(text.len());
    while off > 0 && !text.is_char_boundary(off) {
        off -= 1;
    }
    let head = text.get(..off).unwrap_or("");
    let line = head.matches('\n').count() as u64 + 1;
    let line_start = head.rfind('\n').map_or(0, |i| i + 1);
    let column = head.get(line_start..).map_or(0, |s| s.chars().count()) as u64 + 1;
    Location::line(line, column)
}
