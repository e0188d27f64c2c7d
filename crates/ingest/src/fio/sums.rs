//! What a file (or device) carried when several jobs ran on it at the same time: read-only
//! jobs beside write-only ones, as Azure's published `fioreadwrite.ini` runs them. Each
//! job is its own target; their sum is one more, named after the file, so that a cap the
//! file meets shows in the total the disk saw (no single job reaches it).
//!
//! Jobs ran at the same time when fio started them together: the jobs of one reporting
//! group; jobs of different groups only when their start times show it (a `stonewall`ed
//! group waits for the one before, and fio does not say which boundaries are stonewalls).

use advisor_model::{CaptureMeta, Metric, Table, TargetKind};

use super::metrics::add_percentiles;
use super::stats::Entry;
use super::targets::Group;

/// One target the reader made from a single summary row.
pub(super) struct Made<'a> {
    pub(super) group: &'a Group,
    pub(super) entries: Vec<&'a Entry>,
    pub(super) values: Vec<(Metric, f64)>,
}

/// Adds, for each set of at least two targets on the same files that ran at the same time,
/// a target named after the files with their summed row and IO-weighted percentiles.
pub(super) fn add(made: &[Made<'_>], table: &mut Table, meta: &mut CaptureMeta) {
    let phases = phases(made);
    let mut done = vec![false; made.len()];
    for i in 0..made.len() {
        if done[i] || made[i].group.files.is_empty() {
            continue;
        }
        let together: Vec<usize> = (i..made.len())
            .filter(|&j| {
                !done[j] && phases[j] == phases[i] && made[j].group.files == made[i].group.files
            })
            .collect();
        for &j in &together {
            done[j] = true;
        }
        if together.len() < 2 {
            continue;
        }
        let members: Vec<&Made<'_>> = together.iter().map(|&j| &made[j]).collect();
        let name = made[i].group.files.join(":");
        if meta.targets.iter().any(|t| t.name == name) {
            continue;
        }
        let values = summed(&members);
        if values.is_empty() {
            continue;
        }
        let target = meta.target_index(&name, TargetKind::Benchmark, None);
        table.push_row(target, None, &values);
        let entries: Vec<&Entry> = members.iter().flat_map(|m| m.entries.iter().copied()).collect();
        add_percentiles(meta, target, &entries);
        let names: Vec<&str> = members.iter().map(|m| m.group.name.as_str()).collect();
        meta.notes.push(format!(
            "{name}: {} ran on it at the same time ({}): their sum is a target of its own \
             (IOPS, MB/s and queue depth added, latency weighted by IOPS, percentiles the \
             IO-weighted average of the jobs', approximate)",
            if names.len() == 2 { "two jobs".to_owned() } else { format!("{} jobs", names.len()) },
            names.join(", ")
        ));
    }
}

/// Per target: the phase of the run it belongs to (targets of one phase ran together).
/// fio's JSON does not print `stonewall` or `new_group`, so a new reporting group may or
/// may not have waited for the one before: groups are one phase only when their jobs'
/// `job_start` and `job_runtime` (fio 3.35 and later) show them overlapping.
fn phases(made: &[Made<'_>]) -> Vec<usize> {
    let mut gids: Vec<i64> =
        made.iter().filter_map(|m| m.entries.first().map(|e| e.groupid)).collect();
    gids.sort_unstable();
    gids.dedup();
    // When each group ran: the earliest start and latest end of its jobs, when known.
    let span = |gid: i64| -> Option<(f64, f64)> {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for e in made.iter().flat_map(|m| m.entries.iter()).filter(|e| e.groupid == gid) {
            let start = e.job_start_ms?;
            let run = e.job_runtime_ms?;
            lo = lo.min(start);
            hi = hi.max(start + run);
        }
        (lo <= hi).then_some((lo, hi))
    };
    let mut phase_of: Vec<(i64, usize)> = Vec::new();
    let mut phase = 0;
    let mut prev: Option<(f64, f64)> = None;
    for (k, gid) in gids.iter().enumerate() {
        let now = span(*gid);
        if k > 0 {
            let overlaps =
                matches!((prev, now), (Some((a0, a1)), Some((b0, b1))) if b0 < a1 && a0 < b1);
            if !overlaps {
                phase += 1;
            }
        }
        prev = now;
        phase_of.push((*gid, phase));
    }
    made.iter()
        .map(|m| {
            let gid = m.entries.first().map_or(0, |e| e.groupid);
            phase_of.iter().find(|(g, _)| *g == gid).map_or(0, |(_, p)| *p)
        })
        .collect()
}

/// The members' rows summed: rates and queue depths added, latencies and IO sizes
/// weighted by each direction's IOPS.
fn summed(members: &[&Made<'_>]) -> Vec<(Metric, f64)> {
    use Metric::*;
    let get =
        |m: &Made<'_>, metric: Metric| m.values.iter().find(|(x, _)| *x == metric).map(|(_, v)| *v);
    let mut out = Vec::new();
    for (iops, mbps, lat, kib) in [
        (ReadIops, ReadMbps, ReadLatencyMs, ReadIoKib),
        (WriteIops, WriteMbps, WriteLatencyMs, WriteIoKib),
    ] {
        let rates: Vec<f64> = members.iter().filter_map(|m| get(m, iops)).collect();
        if rates.is_empty() {
            continue;
        }
        let total: f64 = rates.iter().sum();
        out.push((iops, total));
        let bw: Vec<f64> = members.iter().filter_map(|m| get(m, mbps)).collect();
        if bw.len() == rates.len() {
            out.push((mbps, bw.iter().sum()));
        }
        for (metric, of) in [(lat, lat), (kib, kib)] {
            let (mut sum, mut w) = (0.0, 0.0);
            let mut all = true;
            for m in members {
                match (get(m, iops), get(m, of)) {
                    (Some(r), Some(v)) if r > 0.0 => {
                        sum += v * r;
                        w += r;
                    }
                    (Some(r), None) if r > 0.0 => all = false,
                    _ => {}
                }
            }
            if all && w > 0.0 {
                out.push((metric, sum / w));
            }
        }
    }
    let depths: Vec<f64> = members.iter().filter_map(|m| get(m, QueueDepth)).collect();
    if depths.len() == members.len() {
        out.push((QueueDepth, depths.iter().sum()));
    }
    if let Some(busy) = members.iter().find_map(|m| get(m, BusyPct)) {
        out.push((BusyPct, busy));
    }
    out
}
