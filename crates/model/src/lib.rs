//! Plain data types shared by every advisor crate.
//!
//! Nothing here knows a file format, polars, TOML or HTML: readers produce these types,
//! the normalizer turns them into the canonical frame, rules and reports read them.

mod analysis;
mod batch;
mod capture;
mod compare;
mod episode;
pub mod limits;
mod location;
mod metric;
pub mod par;
mod points;
mod rank;
mod recommend;
pub mod work;

/// The most characters of a name or text field from the input that a report, an error or
/// a problem document echoes: past it, the first 254 and an ellipsis.
pub const MAX_ECHO: usize = 255;

/// `s` as echoed back to a user: whole when it has at most [`MAX_ECHO`] characters, else
/// its first `MAX_ECHO - 1` and `…` (a 1 MiB file name must not make a 1 GB report).
pub fn bounded(s: &str) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(MAX_ECHO) {
        None => std::borrow::Cow::Borrowed(s),
        Some(_) => {
            let cut = s.char_indices().nth(MAX_ECHO - 1).map_or(s.len(), |(i, _)| i);
            std::borrow::Cow::Owned(format!("{}…", &s[..cut]))
        }
    }
}

pub use analysis::{
    Analysis, DiskCaps, Finding, InputSummary, Insufficient, MetricSummary, NotEvaluated,
    PercentileCurve, REPORT_SCHEMA, ReportVerdict, SampledSeries, SeriesOf, Severity,
    TargetSummary, ToolInfo, VerdictStatus, VmCaps,
};
pub use batch::{BATCH_SCHEMA, BatchEntry, BatchIndex, BatchStatus, WorstFinding};
pub use capture::{
    BenchSettings, CaptureMeta, Counters, DbFile, DbFileKind, Direction, Format, RawCapture,
    Snapshot, SourcePercentile, Table, Target, TargetKind, Warning,
};
pub use compare::{
    BenchRun, BudgetChange, COMPARE_SCHEMA, COMPARED_METRICS, CapUse, CompareWarning, Comparison,
    Delta, FindingChanges, MetricChange, Outcome, PersistingFinding, Quantiles, SideSeries,
    SideSummary, Signal, TargetChange, Verdict,
};
pub use episode::{Episode, EpisodeKind, EpisodeWindow};
pub use location::Location;
pub use metric::{Metric, Scale, Unit};
pub use points::{Reduced, Reducer, reduce_points};
pub use rank::{all_finite, all_of, nearest_rank, nearest_ranks, nearest_ranks_of_numbers};
pub use recommend::{
    Confidence, Configuration, ConfiguredDisk, CostBasis, Demand, DemandBasis, DiskAdvice,
    DiskOption, Figure, RECOMMEND_SCHEMA, Recommendation, VmAdvice, VmOption,
};
