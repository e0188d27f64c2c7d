//! The canonical frame: every capture, whatever its format, becomes one polars
//! [`DataFrame`] with fixed metric names and units, plus its [`CaptureMeta`].
//!
//! This is the only crate that touches polars. Everything downstream asks through
//! [`Capture`]'s methods and gets plain numbers back.

mod build;
mod capture;
mod derive;
mod frame;
mod parts;
mod perfmon;
mod series;
mod summary;

pub use capture::{
    Capture, join_snapshots, read_bytes, read_bytes_with, read_path, read_path_with,
};
pub use series::AxisOrPoints;
pub use summary::{Stats, TargetStats, metric_stats};

pub use polars::prelude::DataFrame;
