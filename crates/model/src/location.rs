use std::fmt;

use serde::Serialize;

/// Where in an input something was found: a line and column of a text file, a JSON path,
/// or a named column of a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Location {
    /// 1-based line and column (column in characters).
    Line { line: u64, column: u64 },
    /// A path into a JSON document, e.g. `$.jobs[3].read.clat_ns`.
    JsonPath { path: String },
    /// A column of a CSV file, named as the header spells it.
    Column { name: String },
    /// An XML element path, e.g. `Results/TimeSpan/Thread[2]/Target`.
    XmlPath { path: String },
}

impl Location {
    pub fn line(line: u64, column: u64) -> Self {
        Self::Line { line, column }
    }
    pub fn json(path: impl Into<String>) -> Self {
        Self::JsonPath { path: path.into() }
    }
    pub fn column(name: impl Into<String>) -> Self {
        Self::Column { name: name.into() }
    }
    pub fn xml(path: impl Into<String>) -> Self {
        Self::XmlPath { path: path.into() }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Line { line, column } => write!(f, "{line}:{column}"),
            Self::JsonPath { path } => write!(f, "{path}"),
            Self::Column { name } => write!(f, "column \"{name}\""),
            Self::XmlPath { path } => write!(f, "<{path}>"),
        }
    }
}
