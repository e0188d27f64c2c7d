//! `advisor inspect`: what was recognised in a capture.

use advisor_model::{BenchSettings, Metric, SourcePercentile, TargetKind, Unit, Warning};
use advisor_normalize::{Capture, Stats};
use serde::Serialize;

/// What advisor recognised in one capture.
#[derive(Debug, Clone, Serialize)]
pub struct Inspection {
    pub file: String,
    /// `perfmon-csv`, `iostat-text`, ...
    pub format: String,
    pub format_description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    pub hosts: Vec<String>,
    /// First and last sample, wall clock as the capture wrote it (`YYYY-MM-DD HH:MM:SS.mmm`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utc_offset_min: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// Samples in the time series (1 for a benchmark summary).
    pub samples: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_s: Option<f64>,
    /// Rows of the canonical frame (samples x targets).
    pub rows: usize,
    /// Metrics with at least one value, by canonical name.
    pub metrics: Vec<Metric>,
    pub targets: Vec<TargetInspection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bench: Vec<BenchInspection>,
    /// Counters or fields present in the file but not used.
    pub ignored: Vec<String>,
    pub warnings: Vec<Warning>,
    pub notes: Vec<String>,
    /// Rows of iostat's since-boot report, kept apart from the series.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since_boot_rows: Option<usize>,
    /// The collector bundle the capture came from (its manifest, where each file went).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundle: Option<crate::BundleSummary>,
}

/// One target of a capture and the statistics of its metrics.
#[derive(Debug, Clone, Serialize)]
pub struct TargetInspection {
    pub name: String,
    pub kind: TargetKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub rows: usize,
    pub metrics: Vec<MetricStats>,
}

/// A metric's percentiles over the capture, in the metric's unit.
#[derive(Debug, Clone, Serialize)]
pub struct MetricStats {
    pub metric: Metric,
    pub unit: Unit,
    #[serde(flatten)]
    pub stats: Stats,
}

/// A benchmark target's settings and the tool's own latency percentiles.
#[derive(Debug, Clone, Serialize)]
pub struct BenchInspection {
    pub target: String,
    pub settings: BenchSettings,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub percentiles: Vec<SourcePercentile>,
}

fn fmt_time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.naive_utc().format("%Y-%m-%d %H:%M:%S%.3f").to_string())
        .unwrap_or_else(|| format!("{ms} ms"))
}

/// Describes a capture already read.
pub(crate) fn inspect_capture(c: &Capture) -> Inspection {
    let meta = &c.meta;
    // A source without a clock has offsets, not times, to show.
    let range = c.time_range().filter(|_| !meta.relative_time);
    let rows = c.rows_per_target();
    let summary = c.summary();
    let targets = meta
        .targets
        .iter()
        .enumerate()
        .map(|(i, t)| TargetInspection {
            name: t.name.clone(),
            kind: t.kind,
            host: t.host.clone(),
            rows: rows.get(i).copied().unwrap_or(0),
            metrics: summary
                .iter()
                .find(|s| s.target as usize == i)
                .map(|s| {
                    s.metrics
                        .iter()
                        .map(|(m, st)| MetricStats {
                            metric: *m,
                            unit: m.unit(),
                            stats: st.clone(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect();
    let bench = meta
        .bench
        .iter()
        .map(|b| BenchInspection {
            target: meta.targets.get(b.target as usize).map(|t| t.name.clone()).unwrap_or_default(),
            settings: b.clone(),
            percentiles: meta
                .percentiles
                .iter()
                .filter(|p| p.target == b.target)
                .cloned()
                .collect(),
        })
        .collect();
    Inspection {
        file: c.file.clone(),
        format: meta.format.id().to_owned(),
        format_description: meta.format.describe().to_owned(),
        version: meta.version.clone(),
        hosts: meta.hosts.clone(),
        start: range.map(|r| fmt_time(r.0)),
        end: range.map(|r| fmt_time(r.1)),
        utc_offset_min: meta.utc_offset_min,
        timezone: meta.timezone.clone(),
        samples: c.samples(),
        interval_s: meta.interval_s,
        rows: c.rows(),
        metrics: c.metrics(),
        targets,
        bench,
        ignored: meta.ignored.clone(),
        warnings: meta.warnings.clone(),
        notes: meta.notes.clone(),
        since_boot_rows: c.since_boot.as_ref().map(|f| f.height()),
        bundle: None,
    }
}
