//! What an analysis produces: findings, rules not evaluated, per-target statistics, and
//! the inputs they came from. This is the shape of the JSON report (`advisor.report/v1`)
//! and what every report format renders.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The schema identifier of the JSON report.
pub const REPORT_SCHEMA: &str = "advisor.report/v1";

/// How bad a finding is. Ordered: `Info < Warning < Critical`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Critical => "critical",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Severity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "info" => Ok(Self::Info),
            "warning" => Ok(Self::Warning),
            "critical" => Ok(Self::Critical),
            _ => Err(format!("unknown severity `{s}` (expected critical, warning or info)")),
        }
    }
}

/// A rule that fired, with the numbers that prove it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Finding {
    /// The rule's stable id, e.g. `vm-cached-throughput-cap`.
    pub rule: String,
    pub severity: Severity,
    /// `vm`, or the disk, pool or benchmark target's name as in the topology or capture.
    pub subject: String,
    pub title: String,
    /// The evidence sentence, numbers interpolated.
    pub evidence: String,
    /// What to change.
    pub fix: String,
    /// The numbers the rule used, by name, in display units (MB/s, ms, IOPS, KiB, %).
    pub metrics: BTreeMap<String, f64>,
    pub refs: Vec<String>,
    /// This finding's id in the report, `RULE@SUBJECT` (`vm-cached-throughput-cap@vm`):
    /// what `causes` and `explained_by` refer to.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// For a finding about a cap: when the series sat at the cap, oldest first (empty when
    /// it never reached the rule's threshold sample by sample, e.g. a p95 near the cap).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub episodes: Vec<crate::Episode>,
    /// The window and thresholds the episodes were computed with; absent for findings that
    /// are not about a cap, and for benchmarks (one summary row, no time axis).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub episode_window: Option<crate::EpisodeWindow>,
    /// Ids of the findings this one explains (its effects: "because of this"). Its rule
    /// declares them with `explains` (docs/rule-language.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<String>,
    /// Ids of the findings that explain this one (its root cause); at most one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub explained_by: Vec<String>,
    /// On a cap finding: what `advisor recommend` proposes with its defaults (95th percentile
    /// of demand, 1.2 headroom), with its confidence, when the topology gives a VM size and
    /// the proposal changes the size or a disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommendation: Option<String>,
}

/// A rule whose inputs were missing: never silently dropped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NotEvaluated {
    pub rule: String,
    /// The subject it could not be evaluated for, when the rule is per disk/pool/target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// What is missing and how to provide it.
    pub reason: String,
}

/// One input capture as the report lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InputSummary {
    pub file: String,
    /// `perfmon-csv`, `iostat-text`, `iostat-json`, `diskspd-xml`, `diskspd-text`, `fio-json`,
    /// `azure-monitor-json`, `sar-text`, `sadf-csv`, `sadf-json`, `sadf-xml`; for the other
    /// files of a collector bundle (`bundle.tgz!imds.json`): `collector-manifest` (the
    /// collector's manifest.json: host, start and end of the collection), `topology` (a
    /// document the topology was read from) or `ignored` (not read; `reason` says why).
    pub format: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The host, or several joined by `, `.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// First and last sample, wall clock as the capture wrote it (ISO 8601, no zone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    pub samples: u64,
    pub targets: Vec<String>,
    /// Counters or fields present but not used.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<String>,
    /// Reader warnings, one line each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Why a file of a bundle was not read, or what it was read as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Percentiles of one metric over the capture, in the metric's unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MetricSummary {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
    pub avg: f64,
    /// Values the statistics are computed from.
    pub count: u64,
}

/// The checklist row of one target: every metric's percentiles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TargetSummary {
    pub name: String,
    /// `disk`, `volume`, `device`, `benchmark`, `aggregate`, `host`.
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The capture file it comes from.
    pub file: String,
    /// The topology disk or pool it was matched to, when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched: Option<String>,
    /// Metric name (`iops`, `read_latency_ms`, ...) to its percentiles.
    pub metrics: BTreeMap<String, MetricSummary>,
}

/// The tool that wrote a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolInfo {
    pub name: String,
    pub version: String,
}

/// A time series sampled for drawing (at most a few hundred points, each bucket keeping
/// its maximum so peaks stay visible), with the limits it is measured against. Plain data:
/// the report turns it into a chart (titles, cap lines, their labels and units). Not part
/// of the JSON report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampledSeries {
    /// What the series is of: a capture target, or the sum over a VM budget's disks.
    pub of: SeriesOf,
    /// The capture file it comes from (for a budget sum: its first member's).
    pub file: String,
    /// `iops`, `mbps`, `latency_ms`, ...
    pub metric: String,
    /// (ms since 1970, wall clock as written, value in the metric's unit).
    pub points: Vec<(i64, f64)>,
}

/// What a [`SampledSeries`] is of, and what it is compared with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SeriesOf {
    /// A capture target: its name; the topology disk it stands for (not the temp disk);
    /// the VM, for a target that sums every disk (`PhysicalDisk(_Total)`).
    Target { name: String, disk: Option<DiskCaps>, vm: Option<VmCaps> },
    /// The time-aligned sum over the disks that draw on one of the VM's budgets (cached:
    /// host-cached disks plus the temp disk; uncached: every remote disk): `counted` of the
    /// budget's `members` disks had a series.
    Budget { cached: bool, counted: usize, members: usize, vm: VmCaps },
}

/// A disk's caps as a chart draws them (IOPS; MB/s of 10^6 bytes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiskCaps {
    pub name: String,
    pub iops: Option<f64>,
    pub burst_iops: Option<f64>,
    pub mbps: Option<f64>,
}

/// The VM's two budgets as a chart draws them (IOPS; MB/s of 10^6 bytes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VmCaps {
    pub size: String,
    pub cached_iops: Option<f64>,
    pub cached_mbps: Option<f64>,
    pub uncached_iops: Option<f64>,
    pub uncached_mbps: Option<f64>,
}

/// A benchmark target's latency percentile curve (the tool's own percentiles).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PercentileCurve {
    pub target: String,
    pub file: String,
    /// `read`, `write`, `total`, `sync`.
    pub direction: String,
    /// (percentile 0-100, latency ms).
    pub points: Vec<(f64, f64)>,
}

/// What the report concludes, in one word.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum VerdictStatus {
    /// The inputs could not show a problem (no IOPS or latency counters, too few samples,
    /// only a since-boot average): the headline says what to capture.
    #[default]
    InsufficientData,
    /// The inputs could show a problem and none was found.
    Healthy,
    Info,
    Warning,
    Critical,
}

impl VerdictStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InsufficientData => "insufficient-data",
            Self::Healthy => "healthy",
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Critical => "critical",
        }
    }
}

impl From<Severity> for VerdictStatus {
    fn from(s: Severity) -> Self {
        match s {
            Severity::Info => Self::Info,
            Severity::Warning => Self::Warning,
            Severity::Critical => Self::Critical,
        }
    }
}

/// Why the inputs cannot show a problem. Not in the JSON report (its headline says it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Insufficient {
    /// No capture holds an IOPS, throughput or latency series of a disk, volume, device
    /// or benchmark: the formats of the captures, to say what to capture with.
    NoMeasures { formats: Vec<String> },
    /// The only samples are iostat's averages since boot.
    SinceBootOnly,
    /// The time series hold fewer samples than can show a problem: the most any capture
    /// has, and the least that can.
    TooFewSamples { samples: u64, needed: u64, formats: Vec<String> },
}

/// The report's verdict: its first line for machines (`verdict` in the JSON report) and
/// for people (the Markdown and HTML reports open with its headline).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReportVerdict {
    /// `critical`, `warning` or `info`: the most severe finding's severity; `healthy` when
    /// the inputs could show a problem and none was found; `insufficient-data` when they
    /// could not.
    pub status: VerdictStatus,
    /// One sentence a ticket can quote: the leading finding's cause and fix, "no problems
    /// found", or what to capture.
    pub headline: String,
    /// The id (`RULE@SUBJECT`) of the finding the headline rests on: the head of the most
    /// severe story, a cap or latency finding before one about how a benchmark was run;
    /// `null` when no finding leads.
    #[schemars(required)]
    pub cause: Option<String>,
    /// Why the inputs cannot show a problem, when they cannot (the headline words it).
    #[serde(skip)]
    #[schemars(skip)]
    pub insufficient: Option<Insufficient>,
}

/// Everything an analysis found. Serialized as the JSON report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Analysis {
    /// Always [`REPORT_SCHEMA`].
    pub schema: String,
    pub tool: ToolInfo,
    /// What the report concludes: its status, headline and leading cause.
    pub verdict: ReportVerdict,
    pub inputs: Vec<InputSummary>,
    /// Most severe first.
    pub findings: Vec<Finding>,
    pub not_evaluated: Vec<NotEvaluated>,
    pub targets: Vec<TargetSummary>,
    /// The VM size analysed against, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vm: Option<String>,
    /// Warnings about the inputs, one line each: the topology and its matching (a disk no
    /// capture mentions, a busy target the topology lacks, unsupported configurations,
    /// facts merged or assumed from documents), the platform metrics' time alignment, and
    /// captures sampled too coarsely to show throttling.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Series for the HTML report's charts; not in the JSON document.
    #[serde(skip)]
    #[schemars(skip)]
    pub series: Vec<SampledSeries>,
    #[serde(skip)]
    #[schemars(skip)]
    pub curves: Vec<PercentileCurve>,
}

impl Analysis {
    /// The most severe finding's severity.
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }
}
