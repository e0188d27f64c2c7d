//! When a cap was reached: the episodes of a finding about a cap, and the window they were
//! looked for in. Part of the JSON report (`advisor.report/v1`).

use serde::{Deserialize, Serialize};

/// Whether an episode was a short spike or a sustained stretch at the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EpisodeKind {
    /// Shorter than the rule's `episode_sustained` parameter.
    Spike,
    /// At least the rule's `episode_sustained` parameter long.
    Sustained,
}

impl EpisodeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Spike => "spike",
            Self::Sustained => "sustained",
        }
    }
}

/// One stretch of time the finding's series sat at its cap: consecutive samples at or
/// above the rule's threshold, with stretches closer than the rule's `episode_gap`
/// merged into one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Episode {
    /// First sample at the cap (wall clock as the capture wrote it, ISO 8601, no zone;
    /// UTC for Azure Monitor metrics and guest captures aligned to them).
    pub start: String,
    /// End of the last sample at the cap (its time stamp plus one sampling interval).
    pub end: String,
    /// `end - start`, in seconds.
    pub duration_s: f64,
    pub kind: EpisodeKind,
    /// Samples inside the episode (those merged across a gap included).
    pub samples: u64,
    /// The highest sample inside, as a percentage of the cap (100 = at the cap).
    pub peak_pct: f64,
    /// The mean of the samples inside, as a percentage of the cap.
    pub mean_pct: f64,
    /// Mean latency (ms) of the finding's latency series inside the episode, when the rule
    /// names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
}

/// The window episodes were looked for in, and the rule's thresholds, so a reader can tell
/// "no episode" from "not looked at" and draw a timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EpisodeWindow {
    /// What was compared with the cap, in words (`sum(mbps) over disks where ...`).
    pub series: String,
    /// The cap, in display units (MB/s of 10^6 bytes, IOPS, %).
    pub cap: f64,
    /// `MB/s`, `IOPS`, `%`, ...
    pub unit: String,
    /// The share of the cap a sample must reach to count as at the cap, in percent.
    pub threshold_pct: f64,
    /// Episodes closer than this many seconds were merged.
    pub gap_s: f64,
    /// An episode at least this many seconds long is sustained; a shorter one a spike.
    pub sustained_s: f64,
    /// First and last sample of the series (as [`Episode::start`]).
    pub start: String,
    pub end: String,
    /// Seconds at the cap in all (the episodes' durations summed).
    pub at_cap_s: f64,
    /// Mean latency (ms) outside every episode, to set against each episode's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_outside_ms: Option<f64>,
}
