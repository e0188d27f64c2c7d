//! The index of a batch triage run (`advisor batch`): one entry per input, in the order the
//! inputs were given, whether it was analysed or not.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Severity, ToolInfo};

/// Schema id of the batch index (`index.json`).
pub const BATCH_SCHEMA: &str = "advisor.batch/v1";

/// `index.json` of a batch run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatchIndex {
    /// Always [`BATCH_SCHEMA`].
    pub schema: String,
    pub tool: ToolInfo,
    /// Inputs analysed (a report was written).
    pub analyzed: usize,
    /// Inputs that could not be analysed (see each entry's `error`).
    pub failed: usize,
    /// Analyses run at once, at most.
    pub jobs: usize,
    /// The memory budget the scheduler kept to, in bytes.
    pub memory_budget_bytes: u64,
    /// Wall-clock seconds of the whole run.
    pub elapsed_seconds: f64,
    /// One per input, in the order given.
    pub entries: Vec<BatchEntry>,
}

/// One input of a batch run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatchEntry {
    /// The input as found: a capture file, a collector bundle (a folder, a .tar.gz, a .zip).
    pub input: String,
    /// `analyzed` or `failed`.
    pub status: BatchStatus,
    /// The report's verdict line (its verdict's headline), when analysed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// The report's verdict status (`critical`, `warning`, `info`, `healthy`,
    /// `insufficient-data`), when analysed: a queue sorts and filters by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict_status: Option<crate::VerdictStatus>,
    /// The VM size analysed against, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vm: Option<String>,
    /// The most severe finding (the report's first), when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst: Option<WorstFinding>,
    /// Findings by severity.
    pub critical: usize,
    pub warning: usize,
    pub info: usize,
    /// Checks not evaluated (a fact the input lacks).
    pub not_evaluated: usize,
    /// The report files written for it, relative to the index.
    pub reports: Vec<String>,
    /// Why it could not be analysed (the message `advisor analyze` would print).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The estimate of its peak memory the scheduler used, in bytes.
    pub memory_estimate_bytes: u64,
    /// Wall-clock seconds of its analysis.
    pub seconds: f64,
}

/// Whether an input of a batch was analysed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum BatchStatus {
    Analyzed,
    Failed,
}

/// The finding a queue sorts by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorstFinding {
    pub rule: String,
    pub severity: Severity,
    pub subject: String,
    pub title: String,
}
