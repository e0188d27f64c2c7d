//! What makes a difference between the two sides not mean what it seems: other counters,
//! other intervals, other lengths, other VM sizes or disks. Words here are facts about the
//! inputs, as the analysis's own input warnings are.

use std::collections::BTreeSet;

use advisor_model::{CompareWarning, Metric, MetricChange, SideSummary, TargetChange};

use super::{ACTIVE_IOPS, SideData, is_storage};

/// Sample intervals, durations and IO sizes differing by this factor are worth a warning.
const INTERVAL_FACTOR: f64 = 1.5;
const DURATION_FACTOR: f64 = 2.0;
const IO_SIZE_FACTOR: f64 = 1.5;
/// Mix warnings need the target's median IOPS within this factor on the two sides.
const MIX_LOAD_FACTOR: f64 = 10.0;
/// Read shares differing by this many points are a different workload.
const READ_SHARE_POINTS: f64 = 20.0;

fn counter_set(data: &SideData) -> BTreeSet<&'static str> {
    data.captures
        .iter()
        .filter(|c| !c.format().is_benchmark())
        .flat_map(|c| {
            let storage: Vec<u32> = (0..c.targets().len() as u32)
                .filter(|&i| c.targets().get(i as usize).is_some_and(|t| is_storage(t.kind)))
                .collect();
            c.metrics()
                .into_iter()
                .filter(move |m| storage.iter().any(|&t| !c.values(t, *m).is_empty()))
                .map(Metric::name)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn warn(out: &mut Vec<CompareWarning>, kind: &str, message: String) {
    out.push(CompareWarning { kind: kind.to_owned(), message });
}

fn secs(s: f64) -> String {
    if s >= 120.0 { format!("{:.0} min", s / 60.0) } else { format!("{s:.0} s") }
}

/// What makes a difference not mean what it seems. Words here are facts about the inputs
/// (names, seconds), as the analysis's own input warnings are.
pub(super) fn comparability(
    before: &SideData,
    after: &SideData,
    sb: &SideSummary,
    sa: &SideSummary,
    targets: &[TargetChange],
) -> Vec<CompareWarning> {
    let mut out = Vec::new();
    if let (Some(b), Some(a)) = (sb.interval_s, sa.interval_s)
        && b.max(a) / b.min(a).max(1e-9) >= INTERVAL_FACTOR
    {
        warn(
            &mut out,
            "interval",
            format!(
                "sampled every {} before and every {} after: each sample averages its interval, so \
             the coarser side's p95, p99 and peaks are lower and smoother for the same load, and \
             short stalls at a cap vanish from it; compare p50 and means, or capture both at the \
             same interval",
                secs(b),
                secs(a)
            ),
        );
    }
    if let (Some(b), Some(a)) = (sb.duration_s, sa.duration_s)
        && b.min(a) > 0.0
        && b.max(a) / b.min(a) >= DURATION_FACTOR
    {
        warn(
            &mut out,
            "duration",
            format!(
                "{} of samples before and {} after: the longer run holds more of the workload's \
             quiet and busy phases, so its tail percentiles are not the same measure",
                secs(b),
                secs(a)
            ),
        );
    }
    let (cb, ca) = (counter_set(before), counter_set(after));
    let only_b: Vec<&str> = cb.difference(&ca).copied().collect();
    let only_a: Vec<&str> = ca.difference(&cb).copied().collect();
    if !only_b.is_empty() || !only_a.is_empty() {
        let mut parts = Vec::new();
        if !only_b.is_empty() {
            parts.push(format!("only before: {}", only_b.join(", ")));
        }
        if !only_a.is_empty() {
            parts.push(format!("only after: {}", only_a.join(", ")));
        }
        warn(
            &mut out,
            "counters",
            format!(
                "the captures carry different counters ({}): those metrics are compared on one side only",
                parts.join("; ")
            ),
        );
    }
    let fb: BTreeSet<&str> = sb.inputs.iter().map(|i| i.format.as_str()).collect();
    let fa: BTreeSet<&str> = sa.inputs.iter().map(|i| i.format.as_str()).collect();
    if fb != fa {
        warn(
            &mut out,
            "format",
            format!(
                "captured with different tools ({} before, {} after): counters such as queue depth \
             and latency are measured differently by each",
                fb.into_iter().collect::<Vec<_>>().join(", "),
                fa.into_iter().collect::<Vec<_>>().join(", ")
            ),
        );
    }
    match (&sb.vm, &sa.vm) {
        (Some(b), Some(a)) if !b.eq_ignore_ascii_case(a) => warn(
            &mut out,
            "vm-size",
            format!(
                "the VM size changed from {b} to {a}: its caps differ, so shares of a cap are each \
             measured against their own side's cap"
            ),
        ),
        (Some(b), None) => warn(
            &mut out,
            "vm-size",
            format!(
                "the VM size is known before ({b}) but not after: pass --with-vm or --with-topology \
             for the after side's caps"
            ),
        ),
        (None, Some(a)) => warn(
            &mut out,
            "vm-size",
            format!(
                "the VM size is known after ({a}) but not before: pass --vm or --topology for the \
             before side's caps"
            ),
        ),
        _ => {}
    }
    for t in targets {
        if let (Some(b), Some(a), Some(how)) = (&t.before_name, &t.after_name, &t.matched_by)
            && how != "name"
        {
            warn(
                &mut out,
                "disk-names",
                format!("{b} before is {a} after: paired by the topology's disk ({how})"),
            );
        }
    }
    let only_before: Vec<&str> = targets
        .iter()
        .filter(|t| t.after_name.is_none())
        .filter_map(|t| t.before_name.as_deref())
        .collect();
    let only_after: Vec<&str> = targets
        .iter()
        .filter(|t| t.before_name.is_none())
        .filter_map(|t| t.after_name.as_deref())
        .collect();
    if !only_before.is_empty() || !only_after.is_empty() {
        let mut parts = Vec::new();
        if !only_before.is_empty() {
            parts.push(format!("only before: {}", only_before.join(", ")));
        }
        if !only_after.is_empty() {
            parts.push(format!("only after: {}", only_after.join(", ")));
        }
        warn(
            &mut out,
            "unmatched",
            format!(
                "targets on one side only ({}): listed with one side's numbers; name them the same, \
             or give both topologies the disk's lun, to pair them",
                parts.join("; ")
            ),
        );
    }
    for t in targets {
        let (Some(b), Some(a)) = (&t.before_name, &t.after_name) else { continue };
        let active = |m: &MetricChange| {
            m.before.is_some_and(|q| q.p50 >= ACTIVE_IOPS)
                && m.after.is_some_and(|q| q.p50 >= ACTIVE_IOPS)
        };
        // A target whose load moved away (the temp disk's, say) is not the same workload
        // run differently: only targets carrying comparable load get mix warnings.
        let comparable = |m: &MetricChange| match (m.before, m.after) {
            (Some(b), Some(a)) => b.p50.max(a.p50) <= MIX_LOAD_FACTOR * b.p50.min(a.p50),
            _ => false,
        };
        if !t.metrics.get("iops").is_some_and(|m| active(m) && comparable(m)) {
            continue;
        }
        if let (Some(rb), Some(ra)) = (t.read_pct_before, t.read_pct_after)
            && (rb - ra).abs() >= READ_SHARE_POINTS
        {
            warn(
                &mut out,
                "read-share",
                format!(
                    "on {b}, reads were {rb:.0}% of IOs before and {ra:.0}% after (as {a}): a \
                 different mix, so latency and throughput differ for that reason too"
                ),
            );
        }
        if let (Some(kb), Some(ka)) = (t.io_kib_before, t.io_kib_after)
            && kb.max(ka) / kb.min(ka).max(1e-9) >= IO_SIZE_FACTOR
        {
            warn(
                &mut out,
                "io-size",
                format!(
                    "on {b}, the mean IO was {kb:.1} KiB before and {ka:.1} KiB after (as {a}): larger IOs \
                 take longer each and move more MB/s per IO, so IOPS and latency are not like for \
                 like"
                ),
            );
        }
    }
    out
}
