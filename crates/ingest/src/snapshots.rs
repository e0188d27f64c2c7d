//! Captures that each hold one snapshot of cumulative counters (SQL Server's file
//! statistics taken once, [`CaptureMeta::snapshot`]), joined when several of one source are
//! given together: the rates between consecutive snapshots, as the reader gives them for
//! snapshots in one file. Nothing here knows the format: only the counters and clocks.

use std::collections::BTreeMap;

use advisor_model::{CaptureMeta, DbFile, RawCapture, Table, TargetKind};

/// How a reader's note on a lone snapshot begins: it is dropped from a joined capture.
pub const ONE_SNAPSHOT: &str = "one snapshot of";

/// Joins captures that each hold one snapshot of the same source (SQL Server's file
/// statistics taken once per file, the files given together): consecutive snapshots, by
/// the source's clock or their times, give the rates between them. Returns each joined
/// capture with the indexes (into `metas`) of the captures it stands for, in time order;
/// a snapshot with no partner of its source is left out (it stands as it was read).
pub fn join(metas: &[&CaptureMeta]) -> Vec<(RawCapture, Vec<usize>)> {
    let mut out: Vec<(RawCapture, Vec<usize>)> = Vec::new();
    // Groups of one source (server and format), in clock order.
    let mut groups: BTreeMap<(String, &'static str), Vec<usize>> = BTreeMap::new();
    for (i, m) in metas.iter().enumerate() {
        if let Some(s) = &m.snapshot {
            let source = s.source.clone().unwrap_or_default().to_ascii_lowercase();
            groups.entry((source, m.format.id())).or_default().push(i);
        }
    }
    for (_, mut idx) in groups {
        if idx.len() < 2 {
            continue;
        }
        idx.sort_by_key(|&i| {
            let s = metas[i].snapshot.as_ref();
            (s.and_then(|s| s.clock_ms), s.and_then(|s| s.time_ms), i)
        });
        if let Some(joined) = join_group(metas, &idx) {
            out.push((joined, idx));
        }
    }
    out.sort_by_key(|(_, idx)| idx.iter().min().copied().unwrap_or(usize::MAX));
    out
}

/// One capture of the rates between the snapshots `idx` (in time order), on the targets of
/// the first, or `None` when no interval between them can be used.
fn join_group(metas: &[&CaptureMeta], idx: &[usize]) -> Option<RawCapture> {
    let first = metas[*idx.first()?];
    let mut meta = first.clone();
    meta.snapshot = None;
    meta.since_boot_only = false;
    meta.notes.retain(|n| !n.starts_with(ONE_SNAPSHOT));
    let mut table = Table::default();
    let base_clock = first.snapshot.as_ref().and_then(|s| s.clock_ms);
    let mut relative = false;
    let mut gaps = Vec::new();
    // Targets by name across the captures: each capture numbers its own.
    let name_in = |m: &CaptureMeta, t: u32| m.targets.get(t as usize).map(|x| x.name.clone());
    for w in idx.windows(2) {
        let (ma, mb) = (metas[w[0]], metas[w[1]]);
        let (Some(sa), Some(sb)) = (&ma.snapshot, &mb.snapshot) else { continue };
        let by_clock = sa.clock_ms.zip(sb.clock_ms).map(|(x, y)| y - x).filter(|d| *d > 0);
        let by_time = sa.time_ms.zip(sb.time_ms).map(|(x, y)| y - x).filter(|d| *d > 0);
        let Some(ms) = by_clock.or(by_time) else {
            meta.warn(
                "two snapshots in separate files are not one after the other (neither sample_ms \
                 nor the sample time advanced): that interval is left out",
                None,
            );
            continue;
        };
        let seconds = ms as f64 / 1000.0;
        gaps.push(seconds);
        for (tb, cnt_b) in &sb.counters {
            let Some(name) = name_in(mb, *tb) else { continue };
            let Some((_, cnt_a)) =
                sa.counters.iter().find(|(ta, _)| name_in(ma, *ta).as_deref() == Some(&name))
            else {
                continue;
            };
            let Some(delta) = cnt_a.delta(cnt_b) else {
                meta.warn(
                    format!(
                        "{name}: the counters went back between the two files' snapshots (SQL \
                         Server restarted?): that interval is left out for it"
                    ),
                    None,
                );
                continue;
            };
            let host = mb.targets.get(*tb as usize).and_then(|t| t.host.clone());
            let t = meta.target_index(&name, TargetKind::File, host.as_deref());
            if let Some(f) = mb.files.iter().find(|f| f.target == *tb)
                && !meta.files.iter().any(|x| x.target == t)
            {
                meta.files.push(DbFile { target: t, ..f.clone() });
            }
            let at = match (sb.time_ms, sb.clock_ms, base_clock) {
                (Some(x), _, _) => x,
                (None, Some(c), Some(b)) => {
                    relative = true;
                    c - b
                }
                _ => {
                    relative = true;
                    gaps.len() as i64 * ms
                }
            };
            table.push_row(t, Some(at), &delta.rates(seconds));
        }
    }
    if table.is_empty() {
        return None;
    }
    for f in &mut meta.files {
        f.since_start = false;
    }
    meta.relative_time = relative;
    gaps.sort_by(f64::total_cmp);
    meta.interval_s = gaps.get(gaps.len() / 2).copied();
    meta.notes.push(format!(
        "{} snapshots of the file statistics, one per file, joined: rates and latencies per \
         interval between them",
        idx.len()
    ));
    Some(RawCapture { meta, table, since_boot: None })
}
