//! The verdict's numbers: its status, the finding it rests on, and whether the inputs
//! could show a problem at all. The report words the headline from them
//! (`advisor_report::word_verdict`).

use std::collections::{HashMap, HashSet};

use advisor_model::{
    Finding, Insufficient, Metric, ReportVerdict, Severity, TargetKind, VerdictStatus,
};
use advisor_normalize::{Capture, TargetStats};
use advisor_rules::{Registry, Scope};

/// Samples a time series needs before it can show a problem: fewer seconds than this at
/// iostat's or PerfMon's usual 1 s say nothing about a cap held or a stall (the shortest
/// stall the rules call is 3 s, the shortest hold of a ceiling 5 busy samples).
pub(crate) const MIN_SAMPLES: u64 = 5;

/// Rules about how a benchmark was run, not about what it met: a cap or latency finding
/// heads the verdict before them. Every `bench` rule is one, but `bench-hit-vm-cap`, whose
/// finding is a cap the run met.
const BENCH_CAP_RULES: &[&str] = &["bench-hit-vm-cap"];

/// The verdict of an analysis, without its headline.
pub(crate) fn judge(
    findings: &[Finding],
    captures: &[Capture],
    stats: &[Vec<TargetStats>],
    registry: &Registry,
) -> ReportVerdict {
    let insufficient = sufficiency(captures, stats);
    let worst = findings.iter().map(|f| f.severity).max();
    let cause = cause(findings, registry);
    let status = match (worst, &insufficient) {
        // A warning or worse stands on its own (a topology's setting needs no capture).
        (Some(w), _) if w >= Severity::Warning => w.into(),
        (_, Some(_)) => VerdictStatus::InsufficientData,
        (Some(w), None) => w.into(),
        (None, None) => VerdictStatus::Healthy,
    };
    let cause = cause.filter(|_| status != VerdictStatus::InsufficientData);
    ReportVerdict { status, headline: String::new(), cause, insufficient }
}

/// The id of the finding the verdict rests on: the head of a story (a finding no present
/// finding explains) ranked by whether it is a cap or latency finding at warning or worse,
/// then by its story's severity (its own and its effects'), then by the analysis' order.
fn cause(findings: &[Finding], registry: &Registry) -> Option<String> {
    // Looked up, not searched: an analysis of thousands of targets has thousands of
    // findings.
    let present: HashSet<&str> =
        findings.iter().map(|f| f.id.as_str()).filter(|id| !id.is_empty()).collect();
    let mut story_of: HashMap<&str, Severity> = HashMap::new();
    for e in findings {
        for c in &e.explained_by {
            let s = story_of.entry(c.as_str()).or_insert(e.severity);
            *s = (*s).max(e.severity);
        }
    }
    let methodology = |f: &Finding| {
        registry.get(&f.rule).is_some_and(|r| r.scope == Scope::Bench)
            && !BENCH_CAP_RULES.contains(&f.rule.as_str())
    };
    let mut best: Option<((bool, Severity), &Finding)> = None;
    for f in findings {
        if f.explained_by.iter().any(|id| present.contains(id.as_str())) {
            continue;
        }
        let effects = if f.id.is_empty() { None } else { story_of.get(f.id.as_str()) };
        let story = effects.map_or(f.severity, |s| f.severity.max(*s));
        let key = (!methodology(f) && story >= Severity::Warning, story);
        if best.as_ref().is_none_or(|(k, _)| key > *k) {
            best = Some((key, f));
        }
    }
    best.map(
        |(_, f)| if f.id.is_empty() { format!("{}@{}", f.rule, f.subject) } else { f.id.clone() },
    )
}

/// Why the captures cannot show a problem, or `None` when one of them can: a disk,
/// volume, device, benchmark or platform target with an IOPS, throughput or latency
/// series (Azure Monitor: a consumed percentage), in a benchmark summary or over at least
/// [`MIN_SAMPLES`] samples that are not only a since-boot average.
pub(crate) fn sufficiency(
    captures: &[Capture],
    stats: &[Vec<TargetStats>],
) -> Option<Insufficient> {
    const MEASURES: &[Metric] = &[
        Metric::Iops,
        Metric::ReadIops,
        Metric::WriteIops,
        Metric::Mbps,
        Metric::ReadMbps,
        Metric::WriteMbps,
        Metric::LatencyMs,
        Metric::ReadLatencyMs,
        Metric::WriteLatencyMs,
        Metric::IopsConsumedPct,
        Metric::MbpsConsumedPct,
    ];
    let mut formats: Vec<String> = Vec::new();
    let mut measured_formats: Vec<String> = Vec::new();
    let mut most_samples = 0u64;
    let mut since_boot_only = true;
    for (c, st) in captures.iter().zip(stats) {
        let id = c.format().id().to_owned();
        if !formats.contains(&id) {
            formats.push(id.clone());
        }
        let measured = st.iter().any(|t| {
            let storage = c
                .targets()
                .get(t.target as usize)
                .is_some_and(|x| !matches!(x.kind, TargetKind::Host));
            storage && t.metrics.iter().any(|(m, s)| MEASURES.contains(m) && s.count > 0)
        });
        if !measured {
            continue;
        }
        if !measured_formats.contains(&id) {
            measured_formats.push(id);
        }
        if c.meta.since_boot_only {
            continue;
        }
        since_boot_only = false;
        let samples = c.samples() as u64;
        if c.format().is_benchmark() || samples >= MIN_SAMPLES {
            return None;
        }
        most_samples = most_samples.max(samples);
    }
    if measured_formats.is_empty() {
        return Some(Insufficient::NoMeasures { formats });
    }
    if since_boot_only {
        return Some(Insufficient::SinceBootOnly);
    }
    Some(Insufficient::TooFewSamples {
        samples: most_samples,
        needed: MIN_SAMPLES,
        formats: measured_formats,
    })
}
