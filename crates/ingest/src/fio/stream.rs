//! The documents of a file: one, or a `--status-interval` stream of cumulative documents,
//! whose intervals are the differences of consecutive documents.

use advisor_model::{CaptureMeta, Location};

use super::json::Document;
use super::stats::{self, DirStats, Doc, Entry, Fields, Lat, SyncStats};
use crate::IngestError;

pub(super) fn read_documents(
    file: &str,
    raw: &[Document],
    meta: &mut CaptureMeta,
) -> Result<Vec<Doc>, IngestError> {
    let multi = raw.len() > 1;
    let mut docs = Vec::new();
    let mut first_bad = None;
    for (i, d) in raw.iter().enumerate() {
        let prefix = if multi { format!("document {}: ", i + 1) } else { String::new() };
        let mut f = Fields { meta: &mut *meta, doc: prefix };
        match stats::read_doc(&d.root, &mut f) {
            Ok(doc) => docs.push(doc),
            Err(b) => {
                if !multi {
                    return Err(IngestError::invalid(
                        file,
                        Some(Location::json(b.path)),
                        b.message,
                    ));
                }
                f.warn_bad(&b, "document");
                first_bad.get_or_insert(b);
            }
        }
    }
    if docs.is_empty() {
        let (loc, msg) = match first_bad {
            Some(b) => (Some(Location::json(b.path)), b.message),
            None => (None, "no fio JSON document".to_owned()),
        };
        return Err(IngestError::invalid(file, loc, msg));
    }
    Ok(docs)
}

/// Several documents must be one cumulative `--status-interval` stream: same entries in the
/// same order, counters never going back, times increasing. Otherwise only the last is read.
pub(super) fn check_stream(mut docs: Vec<Doc>, meta: &mut CaptureMeta) -> (Vec<Doc>, bool) {
    if docs.len() < 2 {
        return (docs, false);
    }
    let why = stream_problem(&docs);
    match why {
        None => (docs, true),
        Some(why) => {
            meta.warn(
                format!(
                    "the file holds {} JSON documents that are not one cumulative \
                     --status-interval stream ({why}): only the last one is read",
                    docs.len()
                ),
                None,
            );
            let last = docs.pop();
            (last.into_iter().collect(), false)
        }
    }
}

pub(super) fn stream_problem(docs: &[Doc]) -> Option<String> {
    let keys = |d: &Doc| -> Vec<(String, i64)> {
        d.entries.iter().map(|e| (e.jobname.clone(), e.groupid)).collect()
    };
    let first = docs.first().map(keys)?;
    for (k, pair) in docs.windows(2).enumerate() {
        let [a, b] = pair else { continue };
        if keys(b) != first {
            return Some(format!("document {} lists other jobs", k + 2));
        }
        match (a.timestamp_ms, b.timestamp_ms) {
            (Some(ta), Some(tb)) if tb > ta => {}
            _ => return Some(format!("document {} has no later timestamp", k + 2)),
        }
        for (ea, eb) in a.entries.iter().zip(&b.entries) {
            for (da, db) in [(&ea.read, &eb.read), (&ea.write, &eb.write)] {
                let (Some(da), Some(db)) = (da, db) else { continue };
                let back = |x: Option<f64>, y: Option<f64>| match (x, y) {
                    (Some(x), Some(y)) => y + 1e-9 < x,
                    _ => false,
                };
                if back(da.ios, db.ios)
                    || back(da.io_bytes, db.io_bytes)
                    || back(da.runtime_ms, db.runtime_ms)
                {
                    return Some(format!("counters go back in document {}", k + 2));
                }
            }
        }
    }
    None
}

/// Median spacing of the documents' timestamps, in seconds.
pub(super) fn interval_of(docs: &[Doc]) -> Option<f64> {
    let mut gaps: Vec<i64> = docs
        .windows(2)
        .filter_map(|w| match w {
            [a, b] => Some(b.timestamp_ms? - a.timestamp_ms?),
            _ => None,
        })
        .filter(|g| *g > 0)
        .collect();
    gaps.sort_unstable();
    let mid = gaps.get(gaps.len() / 2)?;
    Some((*mid as f64 / 1000.0 * 10.0).round() / 10.0)
}

/// Minutes to add to UTC to reach the machine's wall clock, from `time` (ctime, local) and
/// `timestamp_ms` (UTC epoch).
pub(super) fn utc_offset(doc: &Doc) -> Option<i32> {
    let utc_ms = doc.timestamp_ms?;
    let text = doc.time.as_deref()?;
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let local = chrono::NaiveDateTime::parse_from_str(&text, "%a %b %d %H:%M:%S %Y").ok()?;
    let local_s = local.and_utc().timestamp();
    let diff_s = local_s - utc_ms.div_euclid(1000);
    let minutes = (diff_s as f64 / 60.0).round();
    // Real zones sit on 15-minute steps within +-14 h.
    let quarter = (minutes / 15.0).round() * 15.0;
    if minutes.abs() > 14.0 * 60.0 || (minutes - quarter).abs() > 1.0 {
        return None;
    }
    i32::try_from(quarter as i64).ok()
}

pub(super) fn describe_units(doc: &Doc, meta: &mut CaptureMeta) {
    use super::stats::TimeUnit;
    let major = doc.version.as_deref().and_then(stats::version_number).map(|v| v.0);
    let us = doc.latency_units.contains(&TimeUnit::Us);
    let ns = doc.latency_units.contains(&TimeUnit::Ns);
    if us {
        meta.notes
            .push("latencies read from slat/clat/lat in microseconds (fio 2.x layout)".to_owned());
    }
    if (us && major == Some(3)) || (ns && major == Some(2)) {
        meta.notes.push(
            "the fio version and the latency keys disagree: units taken from the keys".to_owned(),
        );
    }
    if doc.io_kib {
        meta.notes.push(
            "io_bytes holds KiB in this fio version (no io_kbytes key; consistent with \
             bw x runtime): converted to bytes"
                .to_owned(),
        );
    }
    meta.notes.push(
        "latency is fio's total `lat` mean (submission + completion, what the program \
         waited); source percentiles are fio's `clat` (completion) percentiles"
            .to_owned(),
    );
}

/// One interval of an entry: the difference to the previous document (or the document
/// itself for the first interval).
pub(super) fn delta(cur: &Entry, prev: Option<&Entry>) -> Entry {
    let mut out = cur.clone();
    out.read = cur.read.as_ref().map(|c| dir_delta(c, prev.and_then(|p| p.read.as_ref())));
    out.write = cur.write.as_ref().map(|c| dir_delta(c, prev.and_then(|p| p.write.as_ref())));
    out.sync = cur.sync.as_ref().map(|c| {
        let p = prev.and_then(|p| p.sync.as_ref());
        let p_ios = p.map(|p| p.ios).unwrap_or(0.0);
        SyncStats {
            ios: (c.ios - p_ios).max(0.0),
            lat: lat_delta(
                c.lat.as_ref(),
                Some(c.ios),
                p.and_then(|p| p.lat.as_ref()),
                Some(p_ios),
            ),
            pct: Vec::new(),
        }
    });
    out
}

pub(super) fn dir_delta(c: &DirStats, p: Option<&DirStats>) -> DirStats {
    let sub = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => Some((x - y).max(0.0)),
        (Some(x), None) => Some(x),
        _ => None,
    };
    let p_ios = p.and_then(|p| p.ios).or(p.map(|_| 0.0));
    DirStats {
        io_bytes: sub(c.io_bytes, p.and_then(|p| p.io_bytes)),
        ios: sub(c.ios, p.and_then(|p| p.ios)),
        runtime_ms: sub(c.runtime_ms, p.and_then(|p| p.runtime_ms)),
        // Rates are recomputed from the differences.
        iops: None,
        bw: None,
        lat: lat_delta(c.lat.as_ref(), c.ios, p.and_then(|p| p.lat.as_ref()), p_ios),
        pct: Vec::new(),
    }
}

/// Mean of the IOs completed between two cumulative means: (m2 n2 - m1 n1) / (n2 - n1).
pub(super) fn lat_delta(
    c: Option<&Lat>,
    c_ios: Option<f64>,
    p: Option<&Lat>,
    p_ios: Option<f64>,
) -> Option<Lat> {
    let c = c?;
    let cn = c.n.or(c_ios)?;
    let (pm, pn) = match p {
        Some(p) => (p.mean_ms, p.n.or(p_ios).unwrap_or(0.0)),
        None => (0.0, 0.0),
    };
    let dn = cn - pn;
    if dn <= 0.0 {
        return None;
    }
    let mean = (c.mean_ms * cn - pm * pn) / dn;
    (mean.is_finite() && mean >= 0.0).then_some(Lat { mean_ms: mean, n: Some(dn) })
}
