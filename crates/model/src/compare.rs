//! What a comparison of two runs produces (`advisor compare BEFORE... --with AFTER...`):
//! per target and per budget the percentiles before and after with the change, the share of
//! each cap used on each side, the findings resolved, new and persisting, the benchmark runs
//! side by side, the comparability warnings and a verdict. This is the shape of the JSON
//! document `advisor.compare/v1` and what the compare templates render.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::{Finding, InputSummary, Severity, ToolInfo};

/// The schema identifier of the comparison document.
pub const COMPARE_SCHEMA: &str = "advisor.compare/v1";

/// The metrics a comparison reads per target, in the canonical frame's units (IO/s, MiB/s,
/// ms, IOs).
pub const COMPARED_METRICS: [&str; 4] = ["iops", "mbps", "latency_ms", "queue_depth"];

/// Better, worse, mixed, or no change that counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Better,
    Worse,
    Mixed,
    Unchanged,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Better => "better",
            Self::Worse => "worse",
            Self::Mixed => "mixed",
            Self::Unchanged => "unchanged",
        }
    }
}

/// One fact the verdict rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Signal {
    /// Whether this fact counts for (`true`) or against (`false`) the change.
    pub improved: bool,
    /// What it is about: `findings`, a target's name, or a budget's name.
    pub subject: String,
    /// `findings`, or the metric and statistic (`latency_ms.p95`, `iops.mean`).
    pub measure: String,
    /// Before and after, in the measure's unit (finding counts for `findings`).
    pub before: f64,
    pub after: f64,
    /// The sentence people read ("p95 latency on E: 37.2 ms -> 2.1 ms (-94%)").
    pub text: String,
}

/// The verdict: better, worse or mixed, in one sentence, with what decides it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Verdict {
    pub outcome: Outcome,
    /// One sentence with the deciding numbers, as the report's first line says it.
    pub sentence: String,
    /// Every fact weighed, the deciding ones (largest change) first.
    pub signals: Vec<Signal>,
}

/// Percentiles of one metric on one side (nearest rank over every sample).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Quantiles {
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
    pub mean: f64,
    /// Samples the statistics are computed from.
    pub count: u64,
}

/// The change of one statistic: after minus before, and after divided by before.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Delta {
    pub diff: f64,
    /// Absent when the before value is zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
}

/// One metric before and after. A side without the metric leaves its part out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MetricChange {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Quantiles>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Quantiles>,
    /// Per statistic (`p50`, `p95`, `p99`, `max`), when both sides have the metric.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub change: BTreeMap<String, Delta>,
}

/// How much of a cap was used on each side. The cap may differ between the sides (a
/// resized VM, a disk moved to another tier). Caps in IOPS or MB/s of 10^6 bytes as Azure
/// publishes them; shares in percent, the capture's MiB/s converted to MB/s first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CapUse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap_before: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap_after: Option<f64>,
    /// p95 as a share of the side's cap, percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p95_before_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p95_after_pct: Option<f64>,
    /// The peak as a share of the side's cap, percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_before_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_after_pct: Option<f64>,
}

/// One target present on both sides, or on one only (then one name is absent and the
/// metrics carry one side).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TargetChange {
    /// The name the comparison shows: the before side's, or the after side's when the target
    /// is new.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_name: Option<String>,
    /// `disk`, `volume`, `device`, `aggregate`.
    pub kind: String,
    /// How the two were paired: `name`, `lun N` (the topology's disk at that LUN),
    /// `role ROLE` (the only disk of that role on each side); absent when unmatched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_by: Option<String>,
    /// The topology disk or pool each side's target stands for, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_before: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_after: Option<String>,
    /// Metric name (`iops`, `mbps`, `latency_ms`, `queue_depth`) to its change.
    pub metrics: BTreeMap<String, MetricChange>,
    /// `iops` and `mbps` to the share of the disk's cap used (when a topology gives it).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub caps: BTreeMap<String, CapUse>,
    /// Share of reads (percent of IOs) and mean IO size (KiB), before and after: the
    /// workload mix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_pct_before: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_pct_after: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_kib_before: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_kib_after: Option<f64>,
}

/// A budget several disks share: the VM's cached budget (host-cached disks plus the temp
/// disk), its uncached budget (every remote disk), or a striped pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BudgetChange {
    /// `VM cached`, `VM uncached`, or the pool's name.
    pub name: String,
    /// `vm-cached`, `vm-uncached`, `pool`.
    pub kind: String,
    /// The disks summed on each side (those with a series, of those the topology counts).
    pub members_before: Vec<String>,
    pub members_after: Vec<String>,
    /// `iops` and `mbps` of the time-aligned sum over the members.
    pub metrics: BTreeMap<String, MetricChange>,
    /// `iops` and `mbps` against each side's cap.
    pub caps: BTreeMap<String, CapUse>,
}

/// A finding on both sides (matched by rule and subject), with each side's severity and
/// evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PersistingFinding {
    pub rule: String,
    pub subject: String,
    pub title: String,
    pub severity_before: Severity,
    pub severity_after: Severity,
    pub evidence_before: String,
    pub evidence_after: String,
}

/// Findings matched by rule and subject (a renamed target's subject follows its match).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FindingChanges {
    /// Before only: the change removed them.
    pub resolved: Vec<Finding>,
    /// After only.
    pub new: Vec<Finding>,
    pub persisting: Vec<PersistingFinding>,
}

/// One benchmark run (a fio job, a DiskSpd target) of either side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BenchRun {
    /// `--label`, or the file's name and the target.
    pub label: String,
    /// `before` or `after`.
    pub side: String,
    pub file: String,
    pub target: String,
    /// `fio`, `DiskSpd`.
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_size_kib: Option<f64>,
    /// Outstanding IOs: queue depth per thread times threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outstanding: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_pct: Option<f64>,
    /// IO/s, MiB/s, ms (the run's mean), ms (the tool's p99 latency, when it gives one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mbps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p99_ms: Option<f64>,
}

/// What a side is: its inputs and the facts that must agree for a difference to mean what
/// it seems.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SideSummary {
    /// `before` or `after`.
    pub side: String,
    pub inputs: Vec<InputSummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vm: Option<String>,
    /// Seconds between samples (the time-series captures'; the largest when they differ).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_s: Option<f64>,
    /// Seconds from the first sample to the last (the longest capture).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    pub findings: u64,
    pub not_evaluated: u64,
    /// The side's own warnings about its inputs (topology, alignment, coarse interval).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A difference between the sides that makes a change not mean what it seems.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CompareWarning {
    /// `interval`, `duration`, `counters`, `vm-size`, `disk-names`, `unmatched`,
    /// `read-share`, `io-size`, `format`.
    pub kind: String,
    pub message: String,
}

/// A sampled series of one side for the overlaid charts, on elapsed time from the side's
/// first sample. Not part of the JSON document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideSeries {
    /// The target's or the budget's name as the comparison shows it.
    pub subject: String,
    /// `before` or `after`.
    pub side: String,
    pub metric: String,
    /// (seconds since the side's first sample, value in the metric's unit).
    pub points: Vec<(f64, f64)>,
}

/// Everything a comparison found. Serialized as `advisor.compare/v1`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Comparison {
    /// Always [`COMPARE_SCHEMA`].
    pub schema: String,
    pub tool: ToolInfo,
    pub verdict: Verdict,
    pub before: SideSummary,
    pub after: SideSummary,
    /// Storage targets, matched ones first (in the before side's order), then the before
    /// side's unmatched, then the after side's.
    pub targets: Vec<TargetChange>,
    pub budgets: Vec<BudgetChange>,
    pub findings: FindingChanges,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub benchmarks: Vec<BenchRun>,
    pub warnings: Vec<CompareWarning>,
    #[serde(skip)]
    #[schemars(skip)]
    pub series: Vec<SideSeries>,
}
