//! One analysis: the captures tied to the topology, every rule evaluated, and what a report
//! shows (per-target statistics, sampled series, percentile curves).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use advisor_model::{
    Analysis, Direction, Finding, InputSummary, Metric, MetricSummary, NotEvaluated,
    PercentileCurve, REPORT_SCHEMA, TargetSummary, ToolInfo,
};
use advisor_normalize::{Capture, Stats, TargetStats};
use advisor_rules::Registry;
use advisor_rules::eval::{CatalogCaps, TargetId};
use advisor_topology::Topology;

use crate::bind::{BUSY_PERCENTILE, Bound, bind_known};
use crate::capture_series::CaptureSeries;
use crate::{platform, series};

/// Seconds spent in each part of an analysis: what the benchmark reports.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timings {
    /// Binding targets to the topology into the rules' facts (with the busy test: each
    /// target's p95 IOPS, read from the summaries).
    pub context_s: f64,
    /// Evaluating the rules.
    pub rules_s: f64,
    /// Per-target percentiles of every metric, taken first: with them, in the same
    /// selections, the percentiles the rules take of a metric itself and the busy test's.
    pub summaries_s: f64,
    /// Chart series and percentile curves.
    pub charts_s: f64,
}

/// What an analysis needs besides the captures and the topology.
pub(crate) struct Settings<'a> {
    pub(crate) registry: &'a Registry,
    pub(crate) only: &'a [String],
    pub(crate) busy_iops: f64,
    pub(crate) chart_points: usize,
    pub(crate) catalog: &'a Arc<CatalogCaps>,
}

/// Analyzes captures already read, timing its parts. `beside` is given the findings once
/// the rules are done (and the summaries), and runs on a thread of its own while the
/// charts are made; what it returns comes back with the analysis.
pub(crate) fn run<R: Send>(
    captures: &[Capture],
    topology: Option<&Topology>,
    settings: &Settings<'_>,
    beside: impl FnOnce(&[advisor_model::Finding], &[Vec<TargetStats>]) -> R + Send,
) -> (Analysis, Timings, R) {
    let mut timings = Timings::default();
    let only = settings.only;
    let rules: Vec<_> =
        settings.registry.rules().filter(|r| only.is_empty() || only.contains(&r.id)).collect();
    // The summaries first: every metric's percentiles of every target, with those the rules
    // take of a metric itself (`p95(iops)`) and the busy test's p95 IOPS in the same
    // selections, so neither selects them again.
    let t = Instant::now();
    let mut more = advisor_rules::eval::metric_percentiles(rules.iter().copied());
    match more.iter_mut().find(|(m, _)| *m == Metric::Iops) {
        Some((_, ps)) if ps.iter().any(|p| p.to_bits() == BUSY_PERCENTILE.to_bits()) => {}
        Some((_, ps)) => ps.push(BUSY_PERCENTILE),
        None => more.push((Metric::Iops, vec![BUSY_PERCENTILE])),
    }
    let stats: Vec<Vec<TargetStats>> = captures.iter().map(|c| c.summary_with(&more)).collect();
    timings.summaries_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let bound = bind_known(captures, topology, settings.busy_iops, &stats, Some(settings.catalog));
    let platform = platform::join(captures, &bound.facts.targets, &bound.facts.disks, topology);
    let source =
        platform::PlatformSeries { captures: CaptureSeries(captures, &stats), platform: &platform };
    timings.context_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let outcome = advisor_rules::evaluate(rules, &bound.facts, &source);
    timings.rules_s = t.elapsed().as_secs_f64();

    let mut warnings: Vec<String> = Vec::new();
    if let Some(t) = topology {
        warnings.extend(t.warnings.iter().map(ToString::to_string));
        warnings.extend(bound.matching.warnings.iter().map(ToString::to_string));
    }
    warnings.extend(bound.notes.iter().cloned());
    warnings.extend(platform.notes.iter().cloned());
    warnings.extend(captures.iter().filter_map(coarse_interval));
    let verdict = crate::verdict::judge(&outcome.findings, captures, &stats, settings.registry);
    let findings = &outcome.findings;
    let (series, curves, targets, beside) = std::thread::scope(|s| {
        let stats = &stats;
        let job = s.spawn(move || beside(findings, stats));
        let t = Instant::now();
        let series = series::sampled(&bound, &source, settings.chart_points);
        let curves = curves(captures);
        timings.charts_s = t.elapsed().as_secs_f64();
        let targets = target_summaries(captures, stats, &bound);
        let beside = job.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (series, curves, targets, beside)
    });
    let analysis = Analysis {
        schema: REPORT_SCHEMA.to_owned(),
        tool: ToolInfo {
            name: "advisor".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        },
        verdict,
        inputs: captures.iter().map(input_summary).collect(),
        findings: outcome.findings,
        not_evaluated: outcome.not_evaluated,
        targets,
        vm: bound.facts.vm.as_ref().map(|v| v.limits.size.clone()),
        warnings,
        series,
        curves,
    };
    (analysis, timings, beside)
}

fn fmt_time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.naive_utc().format("%Y-%m-%dT%H:%M:%S").to_string())
        .unwrap_or_else(|| format!("{ms} ms"))
}

/// A guest capture sampled every minute or slower (sar's daily files: 10 minutes) can show
/// load but not throttling: said once per capture in the report's warnings. Azure Monitor's
/// one-minute grain is the platform's own and its rules are written for it.
const COARSE_INTERVAL_S: f64 = 60.0;

fn coarse_interval(c: &Capture) -> Option<String> {
    let iv = c.meta.interval_s.filter(|iv| *iv >= COARSE_INTERVAL_S)?;
    if c.format().id() == "azure-monitor-json" || c.samples() < 2 {
        return None;
    }
    let every =
        if iv >= 120.0 { format!("{:.0} minutes", iv / 60.0) } else { format!("{iv:.0} s") };
    Some(format!(
        "{}: one sample every {every}: each is an average over that time, so it shows sustained \
         load but hides bursts and throttling (Azure holds IO at a cap in 50 ms windows); an \
         average at 80% of a cap means the load sat at the cap for most of the interval, and \
         peaks below a cap do not prove it was never reached. To see throttling, capture at 1 s \
         while the workload is slow: `collect/collect-linux.sh` (iostat every second), or \
         `sar -d -p -u 1` / `iostat -x -t 1`",
        c.file
    ))
}

fn input_summary(c: &Capture) -> InputSummary {
    // A source without a clock has offsets, not times, to show.
    let range = c.time_range().filter(|_| !c.meta.relative_time);
    InputSummary {
        file: advisor_model::bounded(&c.file).into_owned(),
        format: c.format().id().to_owned(),
        version: c.meta.version.clone(),
        host: (!c.meta.hosts.is_empty()).then(|| {
            let hosts: Vec<_> = c.meta.hosts.iter().map(|h| advisor_model::bounded(h)).collect();
            hosts.join(", ")
        }),
        start: range.map(|r| fmt_time(r.0)),
        end: range.map(|r| fmt_time(r.1)),
        samples: c.samples() as u64,
        targets: c.targets().iter().map(|t| t.name.clone()).collect(),
        ignored: c.meta.ignored.clone(),
        warnings: c.meta.warnings.iter().map(ToString::to_string).collect(),
        reason: None,
    }
}

fn metric_summary(s: &Stats) -> MetricSummary {
    MetricSummary {
        p50: s.p50,
        p90: s.p90,
        p99: s.p99,
        max: s.max,
        avg: s.avg,
        count: s.count as u64,
    }
}

fn target_summaries(
    captures: &[Capture],
    stats: &[Vec<TargetStats>],
    bound: &Bound,
) -> Vec<TargetSummary> {
    let mut out = Vec::new();
    for ((ci, c), stats) in captures.iter().enumerate().zip(stats) {
        for s in stats {
            let i = bound
                .facts
                .targets
                .iter()
                .position(|t| t.id == TargetId { capture: ci, target: s.target });
            let Some(t) = c.targets().get(s.target as usize) else { continue };
            out.push(TargetSummary {
                // The rules' name: an Azure Monitor LUN renamed by the topology's LUN map.
                name: i
                    .and_then(|i| bound.facts.targets.get(i))
                    .map_or_else(|| t.name.clone(), |x| x.name.clone()),
                kind: t.kind.as_str().to_owned(),
                host: t.host.clone(),
                file: c.file.clone(),
                matched: i.and_then(|i| bound.matched.get(i).cloned().flatten()),
                metrics: s
                    .metrics
                    .iter()
                    .map(|(m, st)| (m.name().to_owned(), metric_summary(st)))
                    .collect(),
            });
        }
    }
    beside_their_disks(out)
}

/// Database files listed right after the last target matched to the disk they sit on, so a
/// disk's series and its files' read together; files on no known disk stay last, in order.
fn beside_their_disks(all: Vec<TargetSummary>) -> Vec<TargetSummary> {
    let (files, mut out): (Vec<_>, Vec<_>) = all.into_iter().partition(|t| t.kind == "file");
    let mut rest = Vec::new();
    // In reverse, each inserted right after its disk's last target: they keep their order.
    for f in files.into_iter().rev() {
        let at = f.matched.as_ref().and_then(|m| {
            out.iter().rposition(|t| t.kind != "file" && t.matched.as_ref() == Some(m))
        });
        match at {
            Some(i) => out.insert(i + 1, f),
            None => rest.push(f),
        }
    }
    rest.reverse();
    out.extend(rest);
    out
}

fn direction_name(d: Direction) -> &'static str {
    match d {
        Direction::Read => "read",
        Direction::Write => "write",
        Direction::Total => "total",
        Direction::Sync => "sync",
    }
}

fn curves(captures: &[Capture]) -> Vec<PercentileCurve> {
    let mut out: Vec<PercentileCurve> = Vec::new();
    for c in captures {
        // Each (target, direction)'s points, gathered in one pass.
        let mut curves: BTreeMap<(u32, Direction), Vec<(f64, f64)>> = BTreeMap::new();
        for p in &c.meta.percentiles {
            let points = curves.entry((p.target, p.direction)).or_default();
            if p.percentile.is_finite() && p.latency_ms.is_finite() {
                points.push((p.percentile, p.latency_ms));
            }
        }
        for ((t, d), mut points) in curves {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            if points.is_empty() {
                continue;
            }
            out.push(PercentileCurve {
                target: c.targets().get(t as usize).map(|x| x.name.clone()).unwrap_or_default(),
                file: c.file.clone(),
                direction: direction_name(d).to_owned(),
                points,
            });
        }
    }
    out
}

/// Findings of one rule, for tests and callers that want one.
pub fn findings_of<'a>(a: &'a Analysis, rule: &'a str) -> impl Iterator<Item = &'a Finding> {
    a.findings.iter().filter(move |f| f.rule == rule)
}

/// Rules not evaluated, of one rule.
pub fn not_evaluated_of<'a>(
    a: &'a Analysis,
    rule: &'a str,
) -> impl Iterator<Item = &'a NotEvaluated> {
    a.not_evaluated.iter().filter(move |f| f.rule == rule)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use advisor_rules::SeriesSource;

    // The rules given the summaries' percentiles find what they find selecting their own,
    // on real scenarios with a topology; and the summaries' ranks are of the very series
    // the rules read (the same count), so they are read, not skipped.
    #[test]
    fn rules_with_the_summaries_ranks_find_what_they_find_without() {
        let (registry, shipped) = advisor_rules::Registry::shipped();
        shipped.unwrap_or_else(|e| panic!("{e:?}"));
        for case in ["ds13v2-temp-disk-throttles-cached-p30", "ds15v2-cache-hits-and-uncached"] {
            let (captures, topology) = crate::tests::scenario(case);
            let more = advisor_rules::eval::metric_percentiles(registry.rules());
            let stats: Vec<Vec<TargetStats>> =
                captures.iter().map(|c| c.summary_with(&more)).collect();
            let bound = bind_known(&captures, Some(&topology), 50.0, &stats, None);
            let plain = advisor_rules::evaluate(
                registry.rules(),
                &bound.facts,
                &CaptureSeries::new(&captures),
            );
            let known = CaptureSeries(&captures, &stats);
            assert_eq!(advisor_rules::evaluate(registry.rules(), &bound.facts, &known), plain);
            assert!(!plain.findings.is_empty(), "{case}: no finding to compare");
            let read = bound
                .facts
                .targets
                .iter()
                .filter_map(|t| known.known_ranks(t.id, Metric::Iops).map(|k| (t, k)))
                .filter(|(t, k)| {
                    let n = captures[0].values(t.id.target, Metric::Iops);
                    k.count == n.iter().filter(|x| x.is_finite()).count()
                })
                .count();
            assert!(read >= 2, "{case}: the summaries' IOPS ranks fit {read} targets");
            // Each target's axis is told in place as built, and moved by a clock offset
            // only as moved.
            let axes: Vec<_> =
                bound.facts.targets.iter().filter_map(|t| Some((t, known.axis(t.id)?))).collect();
            assert!(axes.len() >= 2, "{case}: {} targets with an axis", axes.len());
            for (t, axis) in axes {
                let axis: Vec<i64> = axis.iter().flatten().copied().collect();
                let later: Vec<i64> = axis.iter().map(|x| x + 60_000).collect();
                assert!(known.axis_is(t.id, &axis) && !known.axis_is(t.id, &later));
                assert!(known.axis_is_shifted(t.id, &later, 60_000));
                assert!(!known.axis_is_shifted(t.id, &axis, 60_000));
            }
        }
    }
}
