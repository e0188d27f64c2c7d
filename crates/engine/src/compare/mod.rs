//! Two runs side by side (`advisor compare BEFORE... --with AFTER...`): each side is read
//! and analysed as `analyze` would, then its storage targets are paired with the other
//! side's (by name, then by the topology's disk: its LUN, or the only disk of a role), the
//! VM's budgets and the pools are summed at full resolution, the findings are matched by
//! rule and subject, and the differences that make a change not mean what it seems are
//! listed. Numbers only: the report words the verdict and the tables.

use std::collections::BTreeMap;

use advisor_model::limits::Cache;
use advisor_model::{
    Analysis, BudgetChange, COMPARE_SCHEMA, COMPARED_METRICS, CapUse, Comparison, Delta, Finding,
    FindingChanges, Metric, MetricChange, PersistingFinding, Quantiles, SideSeries, SideSummary,
    TargetChange, TargetKind, ToolInfo, nearest_ranks,
};
use advisor_normalize::Capture;
use advisor_rules::eval::{DiskInfo, TargetId};
use advisor_topology::{Topology, normalize_name};

use crate::bind::{Bound, bind};
use advisor_model::reduce_points;

use crate::series::add_on_common_times;

mod comparability;
mod verdict;

use comparability::comparability;
use verdict::{bench_runs, pair_runs, verdict};

/// One side of a comparison: its inputs (captures, bundles), its topology, and the labels
/// of its inputs for the benchmark table (by position; a missing one is the file's name).
#[derive(Debug, Clone, Default)]
pub struct CompareSide {
    pub inputs: Vec<crate::Input>,
    pub topology: crate::TopologySources,
    pub labels: Vec<String>,
}

/// A side read and analysed.
pub(crate) struct SideData {
    pub(crate) captures: Vec<Capture>,
    pub(crate) topology: Option<Topology>,
    pub(crate) analysis: Analysis,
    pub(crate) labels: Vec<String>,
    /// The input names, in order, for labels (a bundle's captures carry the bundle's).
    pub(crate) files: Vec<String>,
}

/// MiB/s to Azure's MB/s (10^6 bytes): caps are published in MB/s.
const MB_PER_MIB: f64 = 1_048_576.0 / 1e6;

/// A target counts as carrying IO (for the verdict) at this median IOPS on both sides.
const ACTIVE_IOPS: f64 = 1.0;

fn is_storage(k: TargetKind) -> bool {
    matches!(k, TargetKind::Disk | TargetKind::Volume | TargetKind::Device | TargetKind::Aggregate)
}

/// Nearest-rank percentiles of the finite values, with the max, the mean and the count.
pub(crate) fn quantiles(values: &[f64]) -> Option<Quantiles> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    let n = v.len();
    let mean = v.iter().sum::<f64>() / n as f64;
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ps = nearest_ranks(&mut v, &[50.0, 95.0, 99.0]);
    Some(Quantiles {
        p50: ps[0].unwrap_or(0.0),
        p95: ps[1].unwrap_or(0.0),
        p99: ps[2].unwrap_or(0.0),
        max,
        mean,
        count: n as u64,
    })
}

fn delta(before: f64, after: f64) -> Delta {
    Delta { diff: after - before, ratio: (before != 0.0).then(|| after / before) }
}

fn change(before: Option<Quantiles>, after: Option<Quantiles>) -> MetricChange {
    let mut change = BTreeMap::new();
    if let (Some(b), Some(a)) = (before, after) {
        change.insert("p50".to_owned(), delta(b.p50, a.p50));
        change.insert("p95".to_owned(), delta(b.p95, a.p95));
        change.insert("p99".to_owned(), delta(b.p99, a.p99));
        change.insert("max".to_owned(), delta(b.max, a.max));
    }
    MetricChange { before, after, change }
}

/// A storage target of one side: where it is, its name, and the topology disk it stands
/// for.
struct SideTarget {
    id: TargetId,
    name: String,
    kind: TargetKind,
    /// Index into the side's `facts.disks`.
    disk: Option<usize>,
    /// The topology name it was matched to (a disk or a pool).
    matched: Option<String>,
}

struct Side<'a> {
    data: &'a SideData,
    bound: Bound,
    targets: Vec<SideTarget>,
}

impl<'a> Side<'a> {
    fn new(data: &'a SideData) -> Self {
        let bound = bind(&data.captures, data.topology.as_ref(), crate::BUSY_IOPS);
        let targets = bound
            .facts
            .targets
            .iter()
            .enumerate()
            .filter(|(_, t)| is_storage(t.kind))
            .map(|(i, t)| SideTarget {
                id: t.id,
                name: t.name.clone(),
                kind: t.kind,
                disk: bound.disk_of.get(i).copied().flatten(),
                matched: bound.matched.get(i).cloned().flatten(),
            })
            .collect();
        Side { data, bound, targets }
    }

    fn values(&self, id: TargetId, metric: Metric) -> Vec<f64> {
        self.data.captures.get(id.capture).map(|c| c.values(id.target, metric)).unwrap_or_default()
    }

    fn quantiles(&self, id: TargetId, metric: Metric) -> Option<Quantiles> {
        quantiles(&self.values(id, metric))
    }

    fn timed(&self, id: TargetId, metric: Metric) -> Vec<(i64, f64)> {
        self.data
            .captures
            .get(id.capture)
            .map(|c| c.series(id.target, metric))
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(t, v)| t.map(|t| (t, v)))
            .collect()
    }

    fn disk(&self, t: &SideTarget) -> Option<&DiskInfo> {
        t.disk.and_then(|d| self.bound.facts.disks.get(d))
    }

    /// The topology disk's LUN, when the topology gives one.
    fn lun(&self, t: &SideTarget) -> Option<u32> {
        let d = self.disk(t)?;
        self.data.topology.as_ref()?.disk(&d.limits.name)?.lun
    }

    fn role(&self, t: &SideTarget) -> Option<&'static str> {
        self.disk(t).map(|d| d.limits.role.name())
    }

    /// The first sample's time over every capture of the side.
    fn start(&self) -> Option<i64> {
        self.data.captures.iter().filter_map(Capture::time_range).map(|r| r.0).min()
    }
}

/// Pairs of (before index, after index, how); unpaired indexes are left out.
fn pair_targets(before: &Side<'_>, after: &Side<'_>) -> Vec<(usize, usize, String)> {
    let mut pairs = Vec::new();
    let mut used_b = vec![false; before.targets.len()];
    let mut used_a = vec![false; after.targets.len()];
    // 1. By name (forgivingly: `1 E:` and `E:` are one name).
    for (bi, b) in before.targets.iter().enumerate() {
        let key = normalize_name(&b.name);
        if let Some(ai) =
            after.targets.iter().enumerate().position(|(ai, a)| {
                !used_a[ai] && a.kind == b.kind && normalize_name(&a.name) == key
            })
        {
            used_b[bi] = true;
            used_a[ai] = true;
            pairs.push((bi, ai, "name".to_owned()));
        }
    }
    // 2. By the topology disk's LUN (E: became F:, the disk is the same).
    for (bi, b) in before.targets.iter().enumerate() {
        if used_b[bi] {
            continue;
        }
        let Some(lun) = before.lun(b) else { continue };
        if let Some(ai) = (0..after.targets.len()).find(|&ai| {
            !used_a[ai]
                && after.targets[ai].kind == b.kind
                && after.lun(&after.targets[ai]) == Some(lun)
        }) {
            used_b[bi] = true;
            used_a[ai] = true;
            pairs.push((bi, ai, format!("lun {lun}")));
        }
    }
    // 3. By role, when one disk on each side still unpaired has it (the log disk).
    for (bi, b) in before.targets.iter().enumerate() {
        if used_b[bi] {
            continue;
        }
        let Some(role) = before.role(b) else { continue };
        let same_b: Vec<usize> = (0..before.targets.len())
            .filter(|&i| !used_b[i] && before.role(&before.targets[i]) == Some(role))
            .filter(|&i| before.targets[i].kind == b.kind)
            .collect();
        let same_a: Vec<usize> = (0..after.targets.len())
            .filter(|&i| !used_a[i] && after.role(&after.targets[i]) == Some(role))
            .filter(|&i| after.targets[i].kind == b.kind)
            .collect();
        if let ([_], [ai]) = (same_b.as_slice(), same_a.as_slice()) {
            used_b[bi] = true;
            used_a[*ai] = true;
            pairs.push((bi, *ai, format!("role {role}")));
        }
    }
    pairs.sort_by_key(|p| p.0);
    pairs
}

/// The share of `cap` a value uses, percent; throughput converted from MiB/s to MB/s.
fn share(value: f64, cap: Option<f64>, metric: &str) -> Option<f64> {
    let cap = cap.filter(|c| *c > 0.0)?;
    let v = if metric == "mbps" { value * MB_PER_MIB } else { value };
    Some(100.0 * v / cap)
}

fn cap_use(
    metric: &str,
    before: Option<&Quantiles>,
    after: Option<&Quantiles>,
    cap_before: Option<f64>,
    cap_after: Option<f64>,
) -> Option<CapUse> {
    if cap_before.is_none() && cap_after.is_none() {
        return None;
    }
    Some(CapUse {
        cap_before,
        cap_after,
        p95_before_pct: before.and_then(|q| share(q.p95, cap_before, metric)),
        p95_after_pct: after.and_then(|q| share(q.p95, cap_after, metric)),
        max_before_pct: before.and_then(|q| share(q.max, cap_before, metric)),
        max_after_pct: after.and_then(|q| share(q.max, cap_after, metric)),
    })
}

fn disk_cap(d: Option<&DiskInfo>, metric: &str) -> Option<f64> {
    let d = d.filter(|d| !d.temp)?;
    if metric == "iops" { d.limits.iops } else { d.limits.mbps }
}

/// Share of reads (percent of IOs) and mean IO size (KiB) of a target over the capture.
fn mix(side: &Side<'_>, id: TargetId) -> (Option<f64>, Option<f64>) {
    let sum = |m| side.values(id, m).iter().filter(|v| v.is_finite()).sum::<f64>();
    let (r, w) = (sum(Metric::ReadIops), sum(Metric::WriteIops));
    let read_pct = (r + w > 0.0).then(|| 100.0 * r / (r + w));
    let (rb, wb) = (sum(Metric::ReadMbps), sum(Metric::WriteMbps));
    let io_kib = (r + w > 0.0 && rb + wb > 0.0).then(|| (rb + wb) * 1024.0 / (r + w));
    (read_pct, io_kib)
}

fn target_change(
    before: Option<(&Side<'_>, &SideTarget)>,
    after: Option<(&Side<'_>, &SideTarget)>,
    matched_by: Option<String>,
) -> TargetChange {
    let mut metrics = BTreeMap::new();
    let mut caps = BTreeMap::new();
    for name in COMPARED_METRICS {
        let Ok(metric) = name.parse::<Metric>() else { continue };
        let qb = before.and_then(|(s, t)| s.quantiles(t.id, metric));
        let qa = after.and_then(|(s, t)| s.quantiles(t.id, metric));
        if qb.is_none() && qa.is_none() {
            continue;
        }
        if matches!(name, "iops" | "mbps")
            && let Some(c) = cap_use(
                name,
                qb.as_ref(),
                qa.as_ref(),
                before.and_then(|(s, t)| disk_cap(s.disk(t), name)),
                after.and_then(|(s, t)| disk_cap(s.disk(t), name)),
            )
        {
            caps.insert(name.to_owned(), c);
        }
        metrics.insert(name.to_owned(), change(qb, qa));
    }
    let (rb, kb) = before.map_or((None, None), |(s, t)| mix(s, t.id));
    let (ra, ka) = after.map_or((None, None), |(s, t)| mix(s, t.id));
    let shown = before.or(after).map(|(_, t)| t);
    TargetChange {
        name: shown.map(|t| t.name.clone()).unwrap_or_default(),
        before_name: before.map(|(_, t)| t.name.clone()),
        after_name: after.map(|(_, t)| t.name.clone()),
        kind: shown.map_or("disk", |t| t.kind.as_str()).to_owned(),
        matched_by,
        disk_before: before.and_then(|(_, t)| t.matched.clone()),
        disk_after: after.and_then(|(_, t)| t.matched.clone()),
        metrics,
        caps,
        read_pct_before: rb,
        read_pct_after: ra,
        io_kib_before: kb,
        io_kib_after: ka,
    }
}

/// A budget's time-aligned sum on one side: its members' names and the sum's series.
struct BudgetSum {
    members: Vec<String>,
    iops: Vec<(i64, f64)>,
    mbps: Vec<(i64, f64)>,
    cap_iops: Option<f64>,
    cap_mbps: Option<f64>,
}

fn sum_of(side: &Side<'_>, disks: &[&DiskInfo], metric: Metric) -> (Vec<String>, Vec<(i64, f64)>) {
    let mut sum: Option<Vec<(i64, f64)>> = None;
    let mut names = Vec::new();
    for d in disks {
        let Some(s) = d.targets.iter().map(|id| side.timed(*id, metric)).find(|s| s.len() > 1)
        else {
            continue;
        };
        names.push(d.limits.name.clone());
        sum = Some(match sum {
            None => s,
            Some(acc) => add_on_common_times(&acc, s.into_iter()),
        });
    }
    (names, sum.unwrap_or_default())
}

/// The side's budgets by name: `VM cached`, `VM uncached`, each pool.
fn budgets(side: &Side<'_>) -> Vec<(String, &'static str, BudgetSum)> {
    let facts = &side.bound.facts;
    let mut out = Vec::new();
    if let Some(vm) = &facts.vm {
        for cached in [true, false] {
            let members: Vec<&DiskInfo> = facts
                .disks
                .iter()
                .filter(|d| if cached { d.temp || d.limits.cache != Cache::None } else { !d.temp })
                .collect();
            if members.is_empty() {
                continue;
            }
            let (names, iops) = sum_of(side, &members, Metric::Iops);
            let (_, mbps) = sum_of(side, &members, Metric::Mbps);
            let l = &vm.limits;
            let (name, kind, cap_iops, cap_mbps) = if cached {
                ("VM cached", "vm-cached", l.cached_iops, l.cached_mbps)
            } else {
                ("VM uncached", "vm-uncached", l.uncached_iops, l.uncached_mbps)
            };
            out.push((
                name.to_owned(),
                kind,
                BudgetSum { members: names, iops, mbps, cap_iops, cap_mbps },
            ));
        }
    }
    for p in &facts.pools {
        // The pool's own volume when the capture has it; else its members summed.
        let volume = p.targets.iter().find(|id| side.timed(**id, Metric::Iops).len() > 1);
        let (members, iops, mbps) = match volume {
            Some(id) => (
                vec![
                    facts
                        .targets
                        .iter()
                        .find(|t| t.id == *id)
                        .map_or_else(|| p.limits.name.clone(), |t| t.name.clone()),
                ],
                side.timed(*id, Metric::Iops),
                side.timed(*id, Metric::Mbps),
            ),
            None => {
                let disks: Vec<&DiskInfo> =
                    p.members.iter().filter_map(|m| facts.disks.get(*m)).collect();
                let (names, iops) = sum_of(side, &disks, Metric::Iops);
                (names, iops, sum_of(side, &disks, Metric::Mbps).1)
            }
        };
        out.push((
            p.limits.name.clone(),
            "pool",
            BudgetSum {
                members,
                iops,
                mbps,
                cap_iops: p.limits.effective_iops.or(p.limits.sum_iops),
                cap_mbps: p.limits.effective_mbps.or(p.limits.sum_mbps),
            },
        ));
    }
    out
}

fn values_of(points: &[(i64, f64)]) -> Vec<f64> {
    points.iter().map(|p| p.1).collect()
}

fn budget_change(
    name: String,
    kind: &str,
    b: Option<&BudgetSum>,
    a: Option<&BudgetSum>,
) -> BudgetChange {
    let mut metrics = BTreeMap::new();
    let mut caps = BTreeMap::new();
    for metric in ["iops", "mbps"] {
        let pick =
            |s: &BudgetSum| if metric == "iops" { values_of(&s.iops) } else { values_of(&s.mbps) };
        let cap = |s: &BudgetSum| if metric == "iops" { s.cap_iops } else { s.cap_mbps };
        let qb = b.and_then(|s| quantiles(&pick(s)));
        let qa = a.and_then(|s| quantiles(&pick(s)));
        if let Some(c) = cap_use(metric, qb.as_ref(), qa.as_ref(), b.and_then(cap), a.and_then(cap))
        {
            caps.insert(metric.to_owned(), c);
        }
        if qb.is_some() || qa.is_some() {
            metrics.insert(metric.to_owned(), change(qb, qa));
        }
    }
    BudgetChange {
        name,
        kind: kind.to_owned(),
        members_before: b.map(|s| s.members.clone()).unwrap_or_default(),
        members_after: a.map(|s| s.members.clone()).unwrap_or_default(),
        metrics,
        caps,
    }
}

fn elapsed(points: &[(i64, f64)], start: Option<i64>, n: usize) -> Vec<(f64, f64)> {
    let Some(t0) = start.or_else(|| points.first().map(|p| p.0)) else { return Vec::new() };
    reduce_points(points, n).into_iter().map(|(t, v)| ((t - t0) as f64 / 1000.0, v)).collect()
}

/// The side's summary: inputs, VM, interval, duration, counts.
fn side_summary(side: &str, data: &SideData) -> SideSummary {
    let series: Vec<&Capture> =
        data.captures.iter().filter(|c| !c.format().is_benchmark()).collect();
    let interval_s = series
        .iter()
        .filter_map(|c| c.meta.interval_s)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
    let duration_s = series
        .iter()
        .filter_map(|c| c.time_range())
        .map(|(a, b)| (b - a) as f64 / 1000.0)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
    SideSummary {
        side: side.to_owned(),
        inputs: data.analysis.inputs.clone(),
        vm: data.analysis.vm.clone(),
        interval_s,
        duration_s,
        findings: data.analysis.findings.len() as u64,
        not_evaluated: data.analysis.not_evaluated.len() as u64,
        warnings: data.analysis.warnings.clone(),
    }
}

/// Findings matched by rule and subject; an after-side subject renamed by a target pair is
/// read as its before-side name.
fn finding_changes(
    before: &[Finding],
    after: &[Finding],
    renamed: &BTreeMap<String, String>,
) -> FindingChanges {
    let key = |f: &Finding, map: Option<&BTreeMap<String, String>>| {
        let subject = map.and_then(|m| m.get(&normalize_name(&f.subject))).cloned();
        (f.rule.clone(), subject.unwrap_or_else(|| normalize_name(&f.subject)))
    };
    let mut used = vec![false; after.len()];
    let mut out = FindingChanges { resolved: Vec::new(), new: Vec::new(), persisting: Vec::new() };
    for b in before {
        let kb = key(b, None);
        match (0..after.len()).find(|&i| !used[i] && key(&after[i], Some(renamed)) == kb) {
            Some(i) => {
                used[i] = true;
                out.persisting.push(PersistingFinding {
                    rule: b.rule.clone(),
                    subject: b.subject.clone(),
                    title: after[i].title.clone(),
                    severity_before: b.severity,
                    severity_after: after[i].severity,
                    evidence_before: b.evidence.clone(),
                    evidence_after: after[i].evidence.clone(),
                });
            }
            None => out.resolved.push(b.clone()),
        }
    }
    out.new = after.iter().zip(&used).filter(|(_, u)| !**u).map(|(f, _)| f.clone()).collect();
    out
}

/// The storage metrics a side's captures carry (time series only).
/// Compares two sides already read and analysed.
pub(crate) fn compare(before: &SideData, after: &SideData, chart_points: usize) -> Comparison {
    let sb = Side::new(before);
    let sa = Side::new(after);
    let pairs = pair_targets(&sb, &sa);
    let mut targets = Vec::new();
    let mut renamed = BTreeMap::new();
    let mut series = Vec::new();
    let (start_b, start_a) = (sb.start(), sa.start());
    let mut push_series = |subject: &str, side: &Side<'_>, which: &str, id: TargetId, start| {
        for m in [Metric::Iops, Metric::Mbps, Metric::LatencyMs] {
            let pts = side.timed(id, m);
            if pts.len() > 1 {
                series.push(SideSeries {
                    subject: subject.to_owned(),
                    side: which.to_owned(),
                    metric: m.name().to_owned(),
                    points: elapsed(&pts, start, chart_points),
                });
            }
        }
    };
    for (bi, ai, how) in &pairs {
        let (b, a) = (&sb.targets[*bi], &sa.targets[*ai]);
        renamed.insert(normalize_name(&a.name), normalize_name(&b.name));
        let t = target_change(Some((&sb, b)), Some((&sa, a)), Some(how.clone()));
        push_series(&t.name, &sb, "before", b.id, start_b);
        push_series(&t.name, &sa, "after", a.id, start_a);
        targets.push(t);
    }
    for (bi, b) in sb.targets.iter().enumerate() {
        if !pairs.iter().any(|p| p.0 == bi) {
            targets.push(target_change(Some((&sb, b)), None, None));
            push_series(&b.name, &sb, "before", b.id, start_b);
        }
    }
    for (ai, a) in sa.targets.iter().enumerate() {
        if !pairs.iter().any(|p| p.1 == ai) {
            targets.push(target_change(None, Some((&sa, a)), None));
            push_series(&a.name, &sa, "after", a.id, start_a);
        }
    }

    let bb = budgets(&sb);
    let ba = budgets(&sa);
    let mut budget_changes = Vec::new();
    let pool_key = |n: &str| normalize_name(n);
    for (name, kind, sum) in &bb {
        let other = ba
            .iter()
            .find(|(n, k, _)| k == kind && (*kind != "pool" || pool_key(n) == pool_key(name)));
        budget_changes.push(budget_change(name.clone(), kind, Some(sum), other.map(|o| &o.2)));
    }
    for (name, kind, sum) in &ba {
        let had = bb
            .iter()
            .any(|(n, k, _)| k == kind && (*kind != "pool" || pool_key(n) == pool_key(name)));
        if !had {
            budget_changes.push(budget_change(name.clone(), kind, None, Some(sum)));
        }
    }
    for (which, list, start) in [("before", &bb, start_b), ("after", &ba, start_a)] {
        for (name, _, sum) in list.iter() {
            for (metric, pts) in [("iops", &sum.iops), ("mbps", &sum.mbps)] {
                if pts.len() > 1 {
                    series.push(SideSeries {
                        subject: name.clone(),
                        side: which.to_owned(),
                        metric: metric.to_owned(),
                        points: elapsed(pts, start, chart_points),
                    });
                }
            }
        }
    }

    let mut benchmarks = bench_runs("before", before);
    benchmarks.extend(bench_runs("after", after));
    // A benchmark's findings are about its target: runs paired by settings on two disks
    // (`/dev/sdc` before, `/dev/sdd` after) are the same test, so are their findings.
    for (bi, ai) in pair_runs(&benchmarks) {
        renamed
            .entry(normalize_name(&benchmarks[ai].target))
            .or_insert_with(|| normalize_name(&benchmarks[bi].target));
    }
    let findings = finding_changes(&before.analysis.findings, &after.analysis.findings, &renamed);
    let summary_b = side_summary("before", before);
    let summary_a = side_summary("after", after);
    let warnings = comparability(before, after, &summary_b, &summary_a, &targets);
    let coarse = warnings.iter().any(|w| w.kind == "interval");
    let verdict = verdict(&findings, &targets, &budget_changes, &benchmarks, coarse);
    Comparison {
        schema: COMPARE_SCHEMA.to_owned(),
        tool: ToolInfo {
            name: "advisor".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        },
        verdict,
        before: summary_b,
        after: summary_a,
        targets,
        budgets: budget_changes,
        findings,
        benchmarks,
        warnings,
        series,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_rank_over_finite_values() {
        let v: Vec<f64> = (1..=100).map(f64::from).chain([f64::NAN]).collect();
        let q = quantiles(&v).expect("values");
        assert_eq!((q.p50, q.p95, q.p99, q.max, q.count), (50.0, 95.0, 99.0, 100.0, 100));
        assert!((q.mean - 50.5).abs() < 1e-9);
        assert!(quantiles(&[f64::NAN]).is_none());
    }

    #[test]
    fn shares_convert_mib_to_azure_mb() {
        // 200 MiB/s is 209.7 MB/s: 104.9% of a P30's 200 MB/s.
        let s = share(200.0, Some(200.0), "mbps").expect("share");
        assert!((s - 104.8576).abs() < 1e-6, "{s}");
        assert_eq!(share(2500.0, Some(5000.0), "iops"), Some(50.0));
        assert_eq!(share(1.0, None, "iops"), None);
        assert_eq!(share(1.0, Some(0.0), "iops"), None);
    }

    #[test]
    fn a_ratio_needs_a_before_value() {
        assert_eq!(delta(0.0, 5.0), Delta { diff: 5.0, ratio: None });
        assert_eq!(delta(4.0, 2.0), Delta { diff: -2.0, ratio: Some(0.5) });
    }
}
