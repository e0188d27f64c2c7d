//! The canonical frame: every capture, whatever its format, becomes one polars
//! [`DataFrame`] with fixed metric names and units, plus its [`CaptureMeta`].
//!
//! This is the only crate that touches polars. Everything downstream asks through
//! [`Capture`]'s methods and gets plain numbers back.

mod build;
mod capture;
mod derive;
mod file;
mod frame;
mod parts;
mod perfmon;
mod series;
mod summary;

/// Collector bundles (a folder, a tar.gz, a zip), opened in memory within limits.
pub use advisor_ingest::bundle;
/// PerfMon counter-name tables of other display languages (`--counters FILE`).
pub use advisor_ingest::perfmon::counters::names as counter_names;
pub use advisor_ingest::{ErrorKind, IngestError, supported_formats};
pub use capture::{
    Capture, join_snapshots, read_bytes, read_bytes_with, read_path, read_path_with,
};
pub use series::AxisOrPoints;
pub use summary::{Stats, TargetStats, metric_stats};

pub use polars::prelude::DataFrame;
