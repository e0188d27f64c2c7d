//! The series the report draws, sampled from the captures: each storage target's IOPS,
//! throughput and latency, and the VM's two budgets as time-aligned sums over their disks,
//! with the plain limits each is measured against. The report makes the charts (titles,
//! cap lines, labels); the sampling stays here, next to the captures, so that no full
//! day of samples is held for the page.

use advisor_model::limits::Cache;
use advisor_model::{DiskCaps, Metric, SampledSeries, SeriesOf, TargetKind, VmCaps, reduce_points};
use advisor_rules::eval::{DiskInfo, Facts, SeriesSource, TargetId, VmInfo};

use crate::bind::Bound;

fn vm_caps(vm: &VmInfo) -> VmCaps {
    let l = &vm.limits;
    VmCaps {
        size: l.size.clone(),
        cached_iops: l.cached_iops,
        cached_mbps: l.cached_mbps,
        uncached_iops: l.uncached_iops,
        uncached_mbps: l.uncached_mbps,
    }
}

fn disk_caps(d: &DiskInfo) -> DiskCaps {
    DiskCaps {
        name: d.limits.name.clone(),
        iops: d.limits.iops,
        burst_iops: d.limits.burst_iops,
        mbps: d.limits.mbps,
    }
}

/// Every storage target's series, then the VM budgets', each at most `n` points.
pub(crate) fn sampled(bound: &Bound, source: &dyn SeriesSource, n: usize) -> Vec<SampledSeries> {
    let facts = &bound.facts;
    // Target by target on every core, the VM's budgets as one more item, taken first: it
    // sums every disk's series (the largest item), and taken last it ran alone at the end
    // while the other cores had nothing left. Given back after the targets', as before.
    let targets = facts.targets.len();
    let mut made = advisor_model::par::map_indexed(targets + 1, 8, |i| match i.checked_sub(1) {
        Some(t) => target_series(bound, source, t, n),
        None => budgets(facts, source, n),
    });
    made.rotate_left(1);
    made.into_iter().flatten().collect()
}

/// The charts of target `i`: its IOPS, MB/s and latency (a platform target's budgets).
fn target_series(
    bound: &Bound,
    source: &dyn SeriesSource,
    i: usize,
    n: usize,
) -> Vec<SampledSeries> {
    let facts = &bound.facts;
    let Some(t) = facts.targets.get(i) else { return Vec::new() };
    let storage = matches!(
        t.kind,
        TargetKind::Disk | TargetKind::Volume | TargetKind::Device | TargetKind::Aggregate
    );
    // Azure Monitor's budgets: the share of the cap consumed, each minute.
    let metrics: &[Metric] = match t.kind {
        TargetKind::Platform => &[Metric::IopsConsumedPct, Metric::MbpsConsumedPct],
        _ if storage => &[Metric::Iops, Metric::Mbps, Metric::LatencyMs],
        _ => return Vec::new(),
    };
    let disk = bound
        .disk_of
        .get(i)
        .copied()
        .flatten()
        .and_then(|d| facts.disks.get(d))
        .filter(|d| !d.temp)
        .map(disk_caps);
    let vm = facts.vm.as_ref().filter(|_| t.kind == TargetKind::Aggregate).map(vm_caps);
    let mut out = Vec::new();
    for &metric in metrics {
        let Some(reduced) = source.reduced(t.id, metric, n) else { continue };
        if reduced.timed < 2 {
            continue;
        }
        out.push(SampledSeries {
            of: SeriesOf::Target { name: t.name.clone(), disk: disk.clone(), vm: vm.clone() },
            file: t.file.clone(),
            metric: metric.name().to_owned(),
            points: reduced.points,
        });
    }
    out
}

/// The VM's two budgets: the time-aligned sum over the disks that draw on each
/// (host-cached disks plus the temp disk; every remote disk). This is where VM-level
/// throttling shows, which no single disk's series can show.
fn budgets(facts: &Facts, source: &dyn SeriesSource, n: usize) -> Vec<SampledSeries> {
    let Some(vm) = &facts.vm else { return Vec::new() };
    let caps = vm_caps(vm);
    let mut out = Vec::new();
    for cached in [true, false] {
        let member = |d: &DiskInfo| {
            if cached { d.temp || d.limits.cache != Cache::None } else { !d.temp }
        };
        let members: Vec<&DiskInfo> = facts.disks.iter().filter(|d| member(d)).collect();
        if members.is_empty() {
            continue;
        }
        for metric in [Metric::Iops, Metric::Mbps] {
            // One time series per member disk (its first target that has one); the sum
            // keeps only the times every member has.
            let mut sum: Option<Vec<(i64, f64)>> = None;
            let mut file = String::new();
            let mut counted = 0usize;
            let one_axis = sum_on_one_axis(&members, source, metric);
            // Merged pair by pair only when the columns would not do.
            let to_merge = if one_axis.is_some() { &[][..] } else { &members[..] };
            if let Some((first, n, pts)) = one_axis {
                if let Some(t) = first.and_then(|id| facts.targets.iter().find(|t| t.id == id)) {
                    file = t.file.clone();
                }
                counted = n;
                sum = first.map(|_| pts);
            }
            for d in to_merge {
                let Some((id, s)) = d.targets.iter().find_map(|id| {
                    source
                        .series(*id, metric)
                        .filter(|s| s.iter().filter(|p| p.0.is_some()).count() > 1)
                        .map(|s| (*id, s))
                }) else {
                    continue;
                };
                if file.is_empty()
                    && let Some(t) = facts.targets.iter().find(|t| t.id == id)
                {
                    file = t.file.clone();
                }
                counted += 1;
                let timed = s.iter().filter_map(|(t, v)| t.map(|t| (t, *v)));
                sum = Some(match sum {
                    None => timed.map(|(t, v)| (t, 0.0 + v)).collect(),
                    Some(acc) => add_on_common_times(&acc, timed),
                });
            }
            let pts = sum.unwrap_or_default();
            if pts.len() < 2 {
                continue;
            }
            out.push(SampledSeries {
                of: SeriesOf::Budget { cached, counted, members: members.len(), vm: caps.clone() },
                file,
                metric: metric.name().to_owned(),
                points: reduce_points(&pts, n),
            });
        }
    }
    out
}

/// The first member's target, how many members have a series, and their sum.
type OneAxisSum = (Option<TargetId>, usize, Vec<(i64, f64)>);

/// [`budgets`]' sum when every member's series lies on one time axis with a value at each
/// time (one capture, the usual case): added position by position from the columns,
/// member by member in the same order, so the same values as the merge of (time, value)
/// pairs, without making the pairs or merging. `None` when some member's series is not
/// on that axis (the merge then).
fn sum_on_one_axis(
    members: &[&DiskInfo],
    source: &dyn SeriesSource,
    metric: Metric,
) -> Option<OneAxisSum> {
    let mut axis: Option<Vec<Option<i64>>> = None;
    let mut first: Option<TargetId> = None;
    let mut acc: Vec<f64> = Vec::new();
    let mut counted = 0usize;
    for d in members {
        // Its first target with more than one timed point, as `budgets` picks it.
        let mut picked = None;
        for id in &d.targets {
            let vals = match source.axis_or_points(*id, metric) {
                None => continue,
                Some(Ok(vals)) => vals,
                Some(Err(_)) => return None,
            };
            if vals.len() > 1 {
                picked = Some((*id, vals));
                break;
            }
        }
        let Some((id, vals)) = picked else { continue };
        let times = source.axis(id)?;
        match &axis {
            None if times.len() == vals.len() => {
                acc = vals.iter().map(|v| 0.0 + v).collect();
                axis = Some(times);
                first = Some(id);
            }
            Some(a) if *a == times && acc.len() == vals.len() => {
                acc.iter_mut().zip(&vals).for_each(|(x, v)| *x += v);
            }
            _ => return None,
        }
        counted += 1;
    }
    let times = axis.unwrap_or_default();
    let pts = times.iter().zip(acc).map(|(t, v)| t.map(|t| (t, v))).collect::<Option<Vec<_>>>()?;
    Some((first, counted, pts))
}

/// `acc` plus a series, on the times both have: a merge of two time-ordered series, linear
/// (a day of samples per disk). A time repeated within a series (a clock set back) pairs
/// with the same time's repeats in the other, in order.
pub(crate) fn add_on_common_times(
    acc: &[(i64, f64)],
    other: impl Iterator<Item = (i64, f64)>,
) -> Vec<(i64, f64)> {
    let mut out = Vec::with_capacity(acc.len());
    let mut a = acc.iter().peekable();
    for (t, v) in other {
        while a.next_if(|(at, _)| *at < t).is_some() {}
        if let Some((_, av)) = a.next_if(|(at, _)| *at == t) {
            out.push((t, av + v));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source that gives every series as points (the trait's defaults): `budgets` then
    /// merges (time, value) pairs.
    struct AsPoints<'a>(&'a dyn SeriesSource);

    impl SeriesSource for AsPoints<'_> {
        fn series(
            &self,
            t: TargetId,
            m: Metric,
        ) -> Option<std::sync::Arc<advisor_rules::eval::Series>> {
            self.0.series(t, m)
        }
        fn source_percentile(
            &self,
            t: TargetId,
            d: advisor_model::Direction,
            p: f64,
        ) -> Option<f64> {
            self.0.source_percentile(t, d, p)
        }
        fn interval_s(&self, t: TargetId) -> Option<f64> {
            self.0.interval_s(t)
        }
    }

    // On one capture's axis the budgets are summed from the columns; they are the merge's
    // to the bit, on real PerfMon captures with cached, uncached and temp disks.
    #[test]
    fn budgets_from_the_columns_are_the_merges() {
        for case in ["ds13v2-temp-disk-throttles-cached-p30", "ds15v2-cache-hits-and-uncached"] {
            let (captures, topology) = crate::tests::scenario(case);
            let bound = crate::bind::bind(&captures, Some(&topology), 50.0);
            let source = crate::capture_series::CaptureSeries::new(&captures);
            let members: Vec<&DiskInfo> = bound.facts.disks.iter().filter(|d| !d.temp).collect();
            let (_, counted, pts) = sum_on_one_axis(&members, &source, Metric::Iops)
                .unwrap_or_else(|| panic!("{case}: one axis"));
            assert!(
                counted >= 2 && pts.len() > 10,
                "{case}: {counted} disks, {} points",
                pts.len()
            );
            let fast = budgets(&bound.facts, &source, 40);
            let merged = budgets(&bound.facts, &AsPoints(&source), 40);
            assert_eq!(fast.len(), 4, "{case}: two budgets, IOPS and MB/s");
            assert_eq!(fast, merged, "{case}");
        }
    }

    #[test]
    fn budget_sums_keep_only_the_times_every_member_has() {
        let a = [(1, 1.0), (2, 2.0), (3, 3.0), (5, 5.0)];
        let b = [(0, 9.0), (2, 20.0), (3, 30.0), (4, 40.0), (5, 50.0), (6, 60.0)];
        let got = add_on_common_times(&a, b.iter().copied());
        assert_eq!(got, vec![(2, 22.0), (3, 33.0), (5, 55.0)]);
        // A time repeated on both sides pairs in order; an extra repeat has no partner.
        let a = [(1, 1.0), (1, 2.0), (2, 3.0)];
        let b = [(1, 10.0), (1, 20.0), (1, 30.0), (2, 40.0)];
        let got = add_on_common_times(&a, b.iter().copied());
        assert_eq!(got, vec![(1, 11.0), (1, 22.0), (2, 43.0)]);
        assert!(add_on_common_times(&[], b.iter().copied()).is_empty());
    }
}
