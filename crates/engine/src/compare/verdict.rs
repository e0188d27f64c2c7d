//! The benchmark runs of both sides, paired by their settings, and the verdict: every
//! change weighed, the largest first.

use advisor_model::{
    BenchRun, BudgetChange, Direction, Finding, FindingChanges, Metric, Outcome, Quantiles,
    Severity, Signal, TargetChange, Verdict,
};
use advisor_normalize::Capture;

use super::{ACTIVE_IOPS, SideData};

/// A latency change counts for the verdict when p95 moves by this factor and by
/// [`LATENCY_FLOOR_MS`] at least: smaller moves are noise between two captures.
const LATENCY_FACTOR: f64 = 1.25;
const LATENCY_FLOOR_MS: f64 = 0.5;
/// A budget's p95 share of its cap counts when it moves by this many points and one side was
/// at least at [`PRESSURE_PCT`].
const SHARE_POINTS: f64 = 10.0;
const PRESSURE_PCT: f64 = 80.0;
/// Benchmark runs paired by settings count when IOPS or MB/s move by 10%.
const BENCH_FACTOR: f64 = 1.1;

pub(super) fn bench_runs(side: &str, data: &SideData) -> Vec<BenchRun> {
    let mut out = Vec::new();
    for (ci, c) in data.captures.iter().enumerate() {
        let label = file_label(data, ci, c);
        let several = c.meta.bench.len() > 1;
        for b in &c.meta.bench {
            let target =
                c.targets().get(b.target as usize).map(|t| t.name.clone()).unwrap_or_default();
            let mean = |m| {
                let v: Vec<f64> =
                    c.values(b.target, m).into_iter().filter(|x| x.is_finite()).collect();
                (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
            };
            // The tool's own p99: over all IOs when it gives one, else the slower direction's.
            let p99_of = |d: Direction| {
                c.meta
                    .percentiles
                    .iter()
                    .filter(|p| p.target == b.target && p.direction == d)
                    .find(|p| (p.percentile - 99.0).abs() < 1e-6)
                    .map(|p| p.latency_ms)
            };
            let p99 = p99_of(Direction::Total).or_else(|| {
                [Direction::Read, Direction::Write]
                    .into_iter()
                    .filter_map(p99_of)
                    .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
            });
            out.push(BenchRun {
                label: if several { format!("{label} {target}") } else { label.clone() },
                side: side.to_owned(),
                file: c.file.clone(),
                target,
                tool: b.tool.clone(),
                pattern: b.pattern.clone(),
                block_size_kib: b.block_size_kib,
                outstanding: b.queue_depth_per_thread.map(|q| q * b.threads.unwrap_or(1)),
                write_pct: b.write_pct,
                iops: mean(Metric::Iops),
                mbps: mean(Metric::Mbps),
                latency_ms: mean(Metric::LatencyMs),
                latency_p99_ms: p99,
            });
        }
    }
    out
}

/// The label of capture `ci`: the side's `--label` at the input's position, else the file
/// name without its folders.
fn file_label(data: &SideData, ci: usize, c: &Capture) -> String {
    let pos = data.files.iter().position(|f| *f == c.file).unwrap_or(ci);
    data.labels
        .get(pos)
        .cloned()
        .unwrap_or_else(|| c.file.rsplit(['/', '\\']).next().unwrap_or(&c.file).to_owned())
}

/// Benchmark runs of the two sides paired by settings (pattern, block size, outstanding
/// IOs), in the before side's order: (before index, after index) into `runs`.
pub(super) fn pair_runs(runs: &[BenchRun]) -> Vec<(usize, usize)> {
    let mut used = vec![false; runs.len()];
    let mut out = Vec::new();
    for (bi, b) in runs.iter().enumerate().filter(|(_, r)| r.side == "before") {
        if let Some(ai) = (0..runs.len()).find(|&ai| {
            let a = &runs[ai];
            !used[ai]
                && a.side == "after"
                && a.pattern == b.pattern
                && a.block_size_kib == b.block_size_kib
                && a.outstanding == b.outstanding
        }) {
            used[ai] = true;
            out.push((bi, ai));
        }
    }
    out
}

fn signal(improved: bool, subject: &str, measure: &str, before: f64, after: f64) -> Signal {
    Signal {
        improved,
        subject: subject.to_owned(),
        measure: measure.to_owned(),
        before,
        after,
        text: String::new(),
    }
}

/// How large a change is, for ordering: the log of the ratio (findings count as large).
fn weight(s: &Signal) -> f64 {
    if s.measure.starts_with("findings") {
        return 100.0 + s.before.max(s.after);
    }
    if s.measure.contains("share") {
        // 100 points of a cap weigh about as much as a 10-fold latency change.
        return (s.before - s.after).abs() / 40.0;
    }
    let (b, a) = (s.before.abs().max(1e-9), s.after.abs().max(1e-9));
    (a / b).ln().abs()
}

fn at_least_warning(f: &&Finding) -> bool {
    f.severity >= Severity::Warning
}

/// Every fact weighed for the verdict, and the verdict.
pub(super) fn verdict(
    findings: &FindingChanges,
    targets: &[TargetChange],
    budgets: &[BudgetChange],
    benches: &[BenchRun],
    intervals_differ: bool,
) -> Verdict {
    let mut signals = Vec::new();
    // Sampled at different intervals, the sides' tails and the findings read from them
    // (plateaus, seconds at a cap) are not the same measure: the verdict then weighs
    // medians only, and lists the findings without counting them.
    let (stat, pick): (&str, fn(&Quantiles) -> f64) =
        if intervals_differ { ("p50", |q| q.p50) } else { ("p95", |q| q.p95) };
    let (resolved, new) = if intervals_differ {
        (0, 0)
    } else {
        (
            findings.resolved.iter().filter(at_least_warning).count(),
            findings.new.iter().filter(at_least_warning).count(),
        )
    };
    // A new finding less severe than the worst one resolved is the next limit showing once
    // the worse one is gone (a log disk bound by its own latency once the cached budget no
    // longer starves it), not a regression: it is listed, and counts against the change
    // only when it is as severe as the worst resolved. The same holds the other way round.
    let worst_resolved = findings.resolved.iter().map(|f| f.severity).max();
    let worst_new = findings.new.iter().map(|f| f.severity).max();
    if resolved > 0 && worst_resolved.is_some_and(|r| worst_new.is_none_or(|n| r >= n)) {
        signals.push(signal(true, "findings", "findings.resolved", resolved as f64, 0.0));
    }
    if new > 0 && worst_new.is_some_and(|n| worst_resolved.is_none_or(|r| n >= r)) {
        signals.push(signal(false, "findings", "findings.new", 0.0, new as f64));
    }
    for p in findings.persisting.iter().filter(|_| !intervals_differ) {
        if p.severity_after != p.severity_before {
            signals.push(Signal {
                subject: format!("{} ({})", p.rule, p.subject),
                ..signal(
                    p.severity_after < p.severity_before,
                    "",
                    "findings.severity",
                    p.severity_before as u8 as f64,
                    p.severity_after as u8 as f64,
                )
            });
        }
    }
    for t in targets {
        if t.before_name.is_none() || t.after_name.is_none() {
            continue;
        }
        let active = t.metrics.get("iops").is_some_and(|m| {
            m.before.is_some_and(|q| q.p50 >= ACTIVE_IOPS)
                && m.after.is_some_and(|q| q.p50 >= ACTIVE_IOPS)
        });
        if !active {
            continue;
        }
        if let Some(m) = t.metrics.get("latency_ms")
            && let (Some(b), Some(a)) = (m.before.as_ref().map(pick), m.after.as_ref().map(pick))
            && (a - b).abs() >= LATENCY_FLOOR_MS
        {
            let ratio = a / b.max(1e-9);
            if ratio <= 1.0 / LATENCY_FACTOR || ratio >= LATENCY_FACTOR {
                signals.push(signal(a < b, &t.name, &format!("latency_ms.{stat}"), b, a));
            }
        }
    }
    for b in budgets.iter().filter(|_| !intervals_differ) {
        for metric in ["mbps", "iops"] {
            let Some(c) = b.caps.get(metric) else { continue };
            let (Some(sb), Some(sa)) = (c.p95_before_pct, c.p95_after_pct) else { continue };
            if sb.max(sa) >= PRESSURE_PCT && (sb - sa).abs() >= SHARE_POINTS {
                signals.push(signal(sa < sb, &b.name, &format!("{metric}.p95_share"), sb, sa));
            }
        }
    }
    // Benchmark runs paired by settings (the same pattern, block size and outstanding IOs).
    for (bi, ai) in pair_runs(benches) {
        let (b, a) = (&benches[bi], &benches[ai]);
        let (Some(ib), Some(ia)) = (b.iops, a.iops) else { continue };
        let ratio = ia / ib.max(1e-9);
        if ratio >= BENCH_FACTOR || ratio <= 1.0 / BENCH_FACTOR {
            signals.push(signal(ia > ib, &b.label, "bench.iops", ib, ia));
        }
    }
    signals.sort_by(|x, y| weight(y).total_cmp(&weight(x)));
    let better = signals.iter().any(|s| s.improved);
    let worse = signals.iter().any(|s| !s.improved);
    let outcome = match (better, worse) {
        (true, false) => Outcome::Better,
        (false, true) => Outcome::Worse,
        (true, true) => Outcome::Mixed,
        (false, false) => Outcome::Unchanged,
    };
    Verdict { outcome, sentence: String::new(), signals }
}
