//! The metrics of a target's row from its entries, fio's own latency percentiles, and
//! `busy_pct` from `disk_util`.

use advisor_model::{CaptureMeta, Direction, Location, Metric, SourcePercentile};

use super::options::{parse_bs, parse_count};
use super::stats::{self, DirStats, Doc, Entry, same};
use super::targets::Group;

const MIB: f64 = 1_048_576.0;

/// Values of one row, and its time.
pub(super) type Row = (Option<i64>, Vec<(Metric, f64)>);

/// Aggregated numbers of one direction over the entries of a target.
#[derive(Debug)]
pub(super) struct DirAgg {
    iops: f64,
    mbps: Option<f64>,
    lat_ms: Option<f64>,
    io_kib: Option<f64>,
}

pub(super) fn aggregate(dirs: &[&DirStats], bs_bytes: Option<f64>) -> Option<DirAgg> {
    let mut iops = 0.0;
    let mut bw = 0.0;
    let mut bw_known = true;
    let mut lat_sum = 0.0;
    let mut lat_w = 0.0;
    let mut bytes = 0.0;
    let mut ios = 0.0;
    let mut counted = true;
    let mut any = false;
    for d in dirs {
        let rt_s = d.runtime_ms? / 1000.0;
        if rt_s <= 0.0 {
            continue;
        }
        let i = match d.iops.filter(|v| *v > 0.0).or(d.ios.map(|n| n / rt_s)) {
            Some(i) => i,
            None => match (d.io_bytes, bs_bytes) {
                (Some(b), Some(bs)) if bs > 0.0 => b / bs / rt_s,
                _ => continue,
            },
        };
        any = true;
        iops += i;
        match d.bw.or(d.io_bytes.map(|b| b / rt_s)) {
            Some(b) => bw += b,
            None => bw_known = false,
        }
        if let Some(l) = &d.lat {
            let w = l.n.filter(|n| *n > 0.0).or(d.ios).unwrap_or(i * rt_s);
            if w > 0.0 {
                lat_sum += l.mean_ms * w;
                lat_w += w;
            }
        }
        match (d.io_bytes, d.ios) {
            (Some(b), Some(n)) => {
                bytes += b;
                ios += n;
            }
            _ => counted = false,
        }
    }
    if !any {
        return None;
    }
    let mbps = bw_known.then_some(bw / MIB);
    let io_kib = if counted && ios > 0.0 {
        Some(bytes / ios / 1024.0)
    } else if let Some(bs) = bs_bytes {
        Some(bs / 1024.0)
    } else if bw_known && iops > 0.0 {
        Some(bw / iops / 1024.0)
    } else {
        None
    };
    Some(DirAgg { iops, mbps, lat_ms: (lat_w > 0.0).then(|| lat_sum / lat_w), io_kib })
}

/// Block size of one direction from the options, in bytes, when fixed.
pub(super) fn option_bs(e: &Entry, write: bool) -> Option<f64> {
    let kb = e.options.kb_base();
    let v = e.options.get_any(&["bs", "blocksize", "bsrange", "blocksize_range"])?;
    let (r, w) = parse_bs(v, kb)?;
    let (lo, hi) = if write { w } else { r };
    same(lo, hi).then_some(lo)
}

/// The metrics of one row: read and write parts, sync latency and queue depth.
pub(super) fn metrics(
    entries: &[&Entry],
    per_entry: u32,
    label: &str,
    meta: &mut CaptureMeta,
    summary: bool,
) -> Vec<(Metric, f64)> {
    let mut out: Vec<(Metric, f64)> = Vec::new();
    let mut any_dir = false;
    for (write, name) in [(false, "read"), (true, "write")] {
        let mut dirs: Vec<&DirStats> = Vec::new();
        for e in entries {
            let d = if write { e.write.as_ref() } else { e.read.as_ref() };
            let Some(d) = d else { continue };
            if !d.has_io() {
                continue;
            }
            if d.runtime_ms.unwrap_or(0.0) <= 0.0 {
                if summary {
                    meta.warn(
                        format!("{label}: {name} IO with zero runtime: {name} skipped"),
                        Some(Location::json(format!("{}.{name}.runtime", e.path))),
                    );
                }
                continue;
            }
            dirs.push(d);
        }
        if dirs.is_empty() {
            continue;
        }
        let bs = entries.first().and_then(|e| option_bs(e, write));
        let Some(agg) = aggregate(&dirs, bs) else { continue };
        any_dir = true;
        let (m_iops, m_mbps, m_lat, m_kib) = if write {
            (Metric::WriteIops, Metric::WriteMbps, Metric::WriteLatencyMs, Metric::WriteIoKib)
        } else {
            (Metric::ReadIops, Metric::ReadMbps, Metric::ReadLatencyMs, Metric::ReadIoKib)
        };
        out.push((m_iops, agg.iops));
        if let Some(v) = agg.mbps {
            out.push((m_mbps, v));
        }
        if let Some(v) = agg.lat_ms {
            out.push((m_lat, v));
        }
        if let Some(v) = agg.io_kib {
            out.push((m_kib, v));
        }
    }
    if !any_dir {
        return Vec::new();
    }
    // fsync/fdatasync: their cost sits here while write clat stays small.
    let (mut s_sum, mut s_w) = (0.0, 0.0);
    for e in entries {
        let Some(s) = &e.sync else { continue };
        let Some(l) = &s.lat else { continue };
        let w = l.n.filter(|n| *n > 0.0).unwrap_or(s.ios);
        if w > 0.0 {
            s_sum += l.mean_ms * w;
            s_w += w;
        }
    }
    if s_w > 0.0 {
        out.push((Metric::SyncLatencyMs, s_sum / s_w));
    }
    let qd: f64 = entries.iter().map(|e| entry_depth(e) * f64::from(per_entry)).sum();
    if qd > 0.0 {
        out.push((Metric::QueueDepth, qd));
    }
    // Nothing absurd is stored.
    out.retain(|(m, v)| {
        let ok = v.is_finite() && *v >= 0.0 && *v < 1e13;
        if !ok {
            meta.warn(format!("{label}: absurd {m} = {v} dropped"), None);
        }
        ok
    });
    out
}

/// Outstanding IOs of one entry: the measured `iodepth_level` average, else the configured
/// `iodepth`, else `latency_depth`. Per job: a `group_reporting` entry's levels are the
/// distribution of one job, so the caller multiplies by the jobs the entry stands for.
pub(super) fn entry_depth(e: &Entry) -> f64 {
    let configured = e.options.get("iodepth").and_then(parse_count).map(f64::from);
    e.depth_avg.or(configured).or(e.latency_depth).unwrap_or(0.0)
}

pub(super) fn add_percentiles(meta: &mut CaptureMeta, target: u32, entries: &[&Entry]) {
    let mut push = |direction: Direction, lists: Vec<(&[(f64, f64)], f64)>| {
        for (p, ms) in merge_percentiles(&lists) {
            meta.percentiles.push(SourcePercentile {
                target,
                direction,
                percentile: p,
                latency_ms: ms,
            });
        }
    };
    let weight =
        |d: &DirStats| d.ios.or(d.lat.as_ref().and_then(|l| l.n)).or(d.iops).unwrap_or(1.0);
    let reads = entries
        .iter()
        .filter_map(|e| e.read.as_ref())
        .filter(|d| d.has_io() && !d.pct.is_empty())
        .map(|d| (d.pct.as_slice(), weight(d)))
        .collect();
    push(Direction::Read, reads);
    let writes = entries
        .iter()
        .filter_map(|e| e.write.as_ref())
        .filter(|d| d.has_io() && !d.pct.is_empty())
        .map(|d| (d.pct.as_slice(), weight(d)))
        .collect();
    push(Direction::Write, writes);
    let syncs = entries
        .iter()
        .filter_map(|e| e.sync.as_ref())
        .filter(|s| s.ios > 0.0 && !s.pct.is_empty())
        .map(|s| (s.pct.as_slice(), s.ios))
        .collect();
    push(Direction::Sync, syncs);
}

/// One list as is; several (clones) averaged per percentile, weighted by IOs.
pub(super) fn merge_percentiles(lists: &[(&[(f64, f64)], f64)]) -> Vec<(f64, f64)> {
    let Some((first, _)) = lists.first() else { return Vec::new() };
    let mut out = Vec::new();
    for &(p, _) in first.iter() {
        let mut sum = 0.0;
        let mut w = 0.0;
        let mut everywhere = true;
        for (list, weight) in lists {
            match list.iter().find(|(q, _)| same(*q, p)) {
                Some((_, v)) => {
                    sum += v * weight;
                    w += weight;
                }
                None => everywhere = false,
            }
        }
        if everywhere && w > 0.0 {
            out.push((p, sum / w));
        }
    }
    out
}

/// busy_pct from `disk_util` when it names the target's device (`/dev/sdc` -> `sdc`), or
/// when the run had one target and fio measured one device (an md/dm device with its
/// members counts as one: the one with `aggr_*`).
pub(super) fn busy_for(
    g: &Group,
    groups: &[Group],
    doc: &Doc,
    used: &mut Vec<String>,
) -> Option<(f64, String)> {
    let disks = &doc.disk_util;
    let devs: Vec<&str> = g.files.iter().filter_map(|f| f.strip_prefix("/dev/")).collect();
    let matched: Vec<&stats::DiskUtil> =
        disks.iter().filter(|d| devs.iter().any(|v| *v == d.name)).collect();
    let (disk, why) = match matched.as_slice() {
        [one] => (*one, "names the target's device"),
        [] => {
            let with_aggr: Vec<&stats::DiskUtil> =
                disks.iter().filter(|d| d.aggr_util.is_some()).collect();
            let roots = if with_aggr.is_empty() { disks.iter().collect() } else { with_aggr };
            match (groups.len(), roots.as_slice()) {
                (1, [one]) if devs.is_empty() => (*one, "the only device fio measured"),
                _ => return None,
            }
        }
        _ => return None,
    };
    let (value, field) = match (disk.aggr_util, disk.util) {
        (Some(a), _) => (a, "aggr_util, the average of its member disks"),
        (None, Some(u)) => (u, "util"),
        _ => return None,
    };
    used.push(disk.name.clone());
    let note =
        format!("{}: busy_pct {value:.1}% from disk_util {} {field} ({why})", g.name, disk.name);
    Some((value, note))
}

pub(super) fn report_disks(doc: &Doc, used: &[String], meta: &mut CaptureMeta) {
    for d in &doc.disk_util {
        if used.contains(&d.name) {
            continue;
        }
        meta.ignore(format!("disk_util {}", d.name));
        let util = d.aggr_util.or(d.util).map(|u| format!("{u:.1}% busy")).unwrap_or_default();
        meta.notes.push(format!(
            "disk_util {}: {util}, {} reads, {} writes over the run; not tied to a target",
            d.name,
            d.read_ios.unwrap_or(0.0),
            d.write_ios.unwrap_or(0.0)
        ));
    }
}
