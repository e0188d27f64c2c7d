//! Plain data types shared by every advisor crate.
//!
//! Nothing here knows a file format, polars, TOML or HTML: readers produce these types,
//! the normalizer turns them into the canonical frame, rules and reports read them.

mod analysis;
mod capture;
mod episode;
pub mod limits;
mod location;
mod metric;
mod rank;

pub use analysis::{
    Analysis, DiskCaps, Finding, InputSummary, MetricSummary, NotEvaluated, PercentileCurve,
    REPORT_SCHEMA, SampledSeries, SeriesOf, Severity, TargetSummary, ToolInfo, VmCaps,
};
pub use capture::{
    BenchSettings, CaptureMeta, Direction, Format, RawCapture, SourcePercentile, Table, Target,
    TargetKind, Warning,
};
pub use episode::{Episode, EpisodeKind, EpisodeWindow};
pub use location::Location;
pub use metric::{Metric, Unit};
pub use rank::{nearest_rank, nearest_ranks};
