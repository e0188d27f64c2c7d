//! How a target was run (`BenchSettings`), from the job options and the measured runtime.

use advisor_model::{BenchSettings, CaptureMeta};

use super::options::{Options, Size, parse_bs, parse_count, parse_flag, parse_size, parse_time_s};
use super::stats::{Entry, same, same_range};

/// The benchmark settings of a target, from the options (job over global) and the
/// measured runtime.
pub(super) fn settings_for(
    target: u32,
    entries: &[&Entry],
    per_entry: u32,
    name: &str,
    meta: &mut CaptureMeta,
) -> BenchSettings {
    let mut s = BenchSettings { target, tool: "fio".to_owned(), ..BenchSettings::default() };
    let Some(first) = entries.first() else { return s };
    let o = &first.options;
    let known = o.is_known();
    let kb = o.kb_base();

    pattern(&mut s, o, known);
    block_size(&mut s, o, known, name, meta);
    s.queue_depth_per_thread = match o.get("iodepth") {
        Some(v) => parse_count(v),
        None if known => Some(1),
        None => first.latency_depth.filter(|d| *d >= 1.0 && *d <= 1e6).map(|d| d as u32),
    };
    s.threads = u32::try_from(entries.len()).ok().map(|n| n.saturating_mul(per_entry));
    caching(&mut s, o, known);
    if let Some(v) = o.get_any(&["size", "filesize"]) {
        match parse_size(v, kb) {
            Some(Size::Bytes(b)) if (1.0..1.8e19).contains(&b) => {
                s.file_size_bytes = Some(b as u64)
            }
            Some(Size::Percent(p)) => {
                meta.notes.push(format!("{name}: size={v} ({p}% of the device or file)"))
            }
            _ => {}
        }
    }
    s.duration_s = measured_runtime_ms(entries)
        .filter(|ms| *ms > 0.0)
        .map(|ms| ms / 1000.0)
        .or_else(|| o.get("runtime").and_then(parse_time_s));
    s.warmup_s = o.get("ramp_time").and_then(parse_time_s);
    s.engine = o.get("ioengine").map(str::to_owned);
    let states: Vec<bool> = entries.iter().filter_map(|e| e.steady_state).collect();
    if !states.is_empty() {
        s.steady_state = Some(states.len() == entries.len() && states.iter().all(|a| *a));
    }
    if known {
        // `rate_iops=140,60`: a limit per direction; any non-zero one holds the run.
        let limit = |k: &str| {
            o.get(k).is_some_and(|v| {
                v.split(',')
                    .any(|p| matches!(parse_size(p.trim(), kb), Some(Size::Bytes(b)) if b > 0.0))
            })
        };
        s.rate_limited = Some(["rate", "rate_iops"].iter().any(|k| limit(k)));
    }
    if !known {
        meta.notes.push(format!(
            "{name}: this fio version prints no job options: queue depth per thread taken \
             from latency_depth; block size, pattern and caching are unknown"
        ));
    }
    note_filenames(o, name, meta);
    s
}

/// `rw`: random or sequential, the share of writes, and the pattern as written.
fn pattern(s: &mut BenchSettings, o: &Options, known: bool) {
    let rw =
        o.get_any(&["rw", "readwrite"]).map(str::to_owned).or(known.then(|| "read".to_owned()));
    let Some(rw) = rw else { return };
    let base = rw.split(':').next().unwrap_or_default().trim().to_ascii_lowercase();
    s.random = Some(base.contains("rand"));
    s.write_pct = match base.as_str() {
        "read" | "randread" => Some(0.0),
        "write" | "randwrite" => Some(100.0),
        "rw" | "readwrite" | "randrw" => {
            let num = |k: &str| o.get(k).and_then(|v| v.trim().parse::<f64>().ok());
            match (num("rwmixwrite"), num("rwmixread")) {
                (Some(w), _) if (0.0..=100.0).contains(&w) => Some(w),
                (_, Some(r)) if (0.0..=100.0).contains(&r) => Some(100.0 - r),
                _ => Some(50.0),
            }
        }
        "trimwrite" => Some(50.0),
        _ => None,
    };
    s.pattern = Some(rw);
}

/// `bs`: the block size of the direction(s) the job does, when it is one size (fio's
/// default 4 KiB when the options are known and say nothing).
fn block_size(s: &mut BenchSettings, o: &Options, known: bool, name: &str, meta: &mut CaptureMeta) {
    let Some(v) = o.get_any(&["bs", "blocksize", "bsrange", "blocksize_range"]) else {
        if known {
            s.block_size_kib = Some(4.0);
        }
        return;
    };
    let Some((r, w)) = parse_bs(v, o.kb_base()) else {
        meta.warn(format!("{name}: block size {v:?} not understood"), None);
        return;
    };
    let pick = match s.write_pct {
        Some(p) if p <= 0.0 => Some(r),
        Some(p) if p >= 100.0 => Some(w),
        _ => same_range(r, w).then_some(r),
    };
    match pick {
        Some((lo, hi)) if same(lo, hi) => s.block_size_kib = Some(lo / 1024.0),
        _ => meta.notes.push(format!(
            "{name}: block size {v:?} varies (range or per direction): \
             block_size_kib left empty, see the measured read/write_io_kib"
        )),
    }
}

/// `direct`/`buffered`, `sync` and `fsync`/`fdatasync`.
fn caching(s: &mut BenchSettings, o: &Options, known: bool) {
    if known {
        let direct = o.get("direct").and_then(parse_flag);
        let buffered = o.get("buffered").and_then(parse_flag);
        s.os_cache_disabled = Some(direct.or(buffered.map(|b| !b)).unwrap_or(false));
        s.write_through =
            Some(o.get_any(&["sync", "o_sync"]).and_then(parse_flag).unwrap_or(false));
    }
    s.sync_every = o
        .get("fsync")
        .and_then(parse_count)
        .filter(|n| *n > 0)
        .or_else(|| o.get("fdatasync").and_then(parse_count).filter(|n| *n > 0));
}

/// The measured runtime in ms: the longest direction of any entry, else `job_runtime`.
fn measured_runtime_ms(entries: &[&Entry]) -> Option<f64> {
    entries
        .iter()
        .filter_map(|e| {
            let dirs = [e.read.as_ref(), e.write.as_ref()];
            let dir_max = dirs
                .iter()
                .flatten()
                .filter_map(|d| d.runtime_ms)
                .fold(None, |a: Option<f64>, b| Some(a.map_or(b, |a| a.max(b))));
            // `job_runtime` is summed over the jobs of a group_reporting entry: last resort.
            dir_max.filter(|r| *r > 0.0).or(e.job_runtime_ms.filter(|r| *r > 0.0))
        })
        .fold(None, |a: Option<f64>, b| Some(a.map_or(b, |a| a.max(b))))
}

/// A note when `filename` is given more than once.
fn note_filenames(o: &Options, name: &str, meta: &mut CaptureMeta) {
    let files = o.all("filename");
    if files.len() <= 1 {
        return;
    }
    let distinct = files
        .iter()
        .enumerate()
        .filter(|(i, f)| !files.get(..*i).is_some_and(|s| s.contains(f)))
        .count();
    meta.notes.push(if distinct > 1 {
        format!(
            "{name}: `filename` is given {} times in the options; fio uses every file, so \
             the target lists them all",
            files.len()
        )
    } else {
        format!("{name}: `filename` is given {} times with the same value", files.len())
    });
}

pub(super) fn errno_name(code: i64) -> Option<&'static str> {
    Some(match code {
        1 => "EPERM, operation not permitted",
        2 => "ENOENT, no such file or directory",
        4 => "EINTR, interrupted",
        5 => "EIO, input/output error",
        12 => "ENOMEM, out of memory",
        13 => "EACCES, permission denied",
        16 => "EBUSY, device busy",
        22 => "EINVAL, invalid argument",
        27 => "EFBIG, file too large",
        28 => "ENOSPC, no space left on device",
        30 => "EROFS, read-only file system",
        95 => "EOPNOTSUPP, operation not supported",
        _ => return None,
    })
}
