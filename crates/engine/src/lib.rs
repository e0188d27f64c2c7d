//! The library entry points of advisor: the one crate that wires the readers, topology,
//! rules and reports together. The CLI and the server are thin layers over it.

mod analyze;
mod inspect;

pub use advisor_normalize::{Capture, ErrorKind, IngestError, read_bytes, read_path};
pub use analyze::{
    BUSY_IOPS, CHART_POINTS, EngineError, Input, Options, Timings, analyze, analyze_captures,
    analyze_captures_timed, findings_of, load_rules, not_evaluated_of, reduce_points,
};
pub use inspect::{
    Inspection, MetricStats, TargetInspection, inspect_bytes, inspect_capture, inspect_path,
};
