//! One fio JSON document turned into plain numbers in canonical units: per job entry the
//! read/write/sync statistics (cumulative, as fio prints them), its options and depth.
//!
//! Units are decided by the keys present, never by the version string alone:
//! `*_ns` objects hold nanoseconds, `slat`/`clat`/`lat` microseconds (fio 2.x); `io_bytes`
//! holds bytes when `io_kbytes` or `bw_bytes` sit beside it, otherwise (fio <= 2.18) KiB,
//! which is checked against `bw` (KiB/s) x `runtime` when both are there.

use advisor_model::{CaptureMeta, Location};

use super::json::Node;
use super::options::Options;

/// Largest plausible values; anything above is a fio glitch (2.x prints 2^64-1 and -nan).
const MAX_IOPS: f64 = 1e9;
const MAX_BYTES_PER_S: f64 = 1e13;
const MAX_LATENCY_MS: f64 = 1e8;
const MAX_RUNTIME_MS: f64 = 1e11;
const MAX_COUNT: f64 = 1e16;
const MAX_BYTES: f64 = 1e19;

/// A field with the wrong JSON type: the record holding it is skipped.
#[derive(Debug)]
pub(crate) struct Bad {
    pub(crate) path: String,
    pub(crate) message: String,
}

fn bad(path: &str, expected: &str, found: &Node) -> Bad {
    Bad { path: path.to_owned(), message: format!("expected {expected}, found {}", found.kind()) }
}

/// Reads numbers with their JSON path, dropping absurd values with a counted warning.
pub(crate) struct Fields<'m> {
    pub(crate) meta: &'m mut CaptureMeta,
    /// `"document 3: "` in a multi-document file, else empty.
    pub(crate) doc: String,
}

impl Fields<'_> {
    /// A number, `None` when absent or null. Wrong type is an error for the record.
    pub(crate) fn num(
        &mut self,
        parent: &Node,
        key: &str,
        path: &str,
        max: f64,
    ) -> Result<Option<f64>, Bad> {
        let here = format!("{path}.{key}");
        match parent.get(key) {
            None | Some(Node::Null) => Ok(None),
            Some(Node::Num(v)) => {
                let v = *v;
                if v.is_finite() && (0.0..=max).contains(&v) {
                    Ok(Some(v))
                } else {
                    self.meta.warn(
                        format!("{}absurd value {v} dropped", self.doc),
                        Some(Location::json(here)),
                    );
                    Ok(None)
                }
            }
            Some(other) => Err(bad(&here, "a number", other)),
        }
    }

    pub(crate) fn warn_bad(&mut self, b: &Bad, what: &str) {
        self.meta.warn(
            format!("{}wrong type ({}): {what} skipped", self.doc, b.message),
            Some(Location::json(b.path.clone())),
        );
    }
}

/// Latency unit of a `clat`/`lat` object.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum TimeUnit {
    Ns,
    Us,
}

impl TimeUnit {
    fn to_ms(self) -> f64 {
        match self {
            TimeUnit::Ns => 1e-6,
            TimeUnit::Us => 1e-3,
        }
    }
}

/// A latency object's mean and count.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Lat {
    pub(crate) mean_ms: f64,
    /// `N` (fio 3.x); fio 2.x has none, the direction's `total_ios` is used instead.
    pub(crate) n: Option<f64>,
}

/// One direction (read or write) of one job entry, cumulative, canonical units.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct DirStats {
    pub(crate) io_bytes: Option<f64>,
    pub(crate) ios: Option<f64>,
    pub(crate) runtime_ms: Option<f64>,
    /// As fio states it (average over the runtime).
    pub(crate) iops: Option<f64>,
    /// Bytes per second as fio states it (`bw_bytes`, or `bw` KiB/s x 1024).
    pub(crate) bw: Option<f64>,
    /// Total latency (`lat`) when present, else completion latency (`clat`).
    pub(crate) lat: Option<Lat>,
    /// Source percentiles (percent, ms) of `clat` (or `lat` when only it has them).
    pub(crate) pct: Vec<(f64, f64)>,
}

impl DirStats {
    /// Whether the direction did any IO.
    pub(crate) fn has_io(&self) -> bool {
        self.ios.unwrap_or(0.0) > 0.0
            || self.io_bytes.unwrap_or(0.0) > 0.0
            || self.iops.unwrap_or(0.0) > 0.0
    }
}

/// The `sync` object (fsync/fdatasync calls) of fio 3.x.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct SyncStats {
    pub(crate) ios: f64,
    pub(crate) lat: Option<Lat>,
    pub(crate) pct: Vec<(f64, f64)>,
}

/// One entry of `jobs`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub(crate) path: String,
    pub(crate) jobname: String,
    pub(crate) groupid: i64,
    pub(crate) error: i64,
    pub(crate) options: Options,
    pub(crate) read: Option<DirStats>,
    pub(crate) write: Option<DirStats>,
    pub(crate) trim_ios: f64,
    pub(crate) sync: Option<SyncStats>,
    /// `job_runtime` (fio >= 3.13), ms.
    pub(crate) job_runtime_ms: Option<f64>,
    /// usr_cpu + sys_cpu: share of one CPU used by the job's process(es).
    pub(crate) cpu_pct: Option<f64>,
    /// Average depth from `iodepth_level` (None when the distribution is all zero).
    pub(crate) depth_avg: Option<f64>,
    pub(crate) latency_depth: Option<f64>,
    pub(crate) has_bins: bool,
    /// The `steadystate` block (fio's `steadystate=` option): whether the job reached
    /// the steady state it was told to wait for.
    pub(crate) steady_state: Option<bool>,
    /// `job_start` (fio >= 3.35): when the job started, ms since the epoch.
    pub(crate) job_start_ms: Option<f64>,
}

/// A `disk_util` entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DiskUtil {
    pub(crate) name: String,
    pub(crate) util: Option<f64>,
    /// `aggr_util`: the average of an md/dm device's member disks.
    pub(crate) aggr_util: Option<f64>,
    pub(crate) read_ios: Option<f64>,
    pub(crate) write_ios: Option<f64>,
}

/// One parsed document.
#[derive(Debug, Clone)]
pub(crate) struct Doc {
    pub(crate) version: Option<String>,
    pub(crate) timestamp_ms: Option<i64>,
    pub(crate) time: Option<String>,
    pub(crate) entries: Vec<Entry>,
    pub(crate) disk_util: Vec<DiskUtil>,
    /// `io_bytes` held KiB (fio <= 2.18).
    pub(crate) io_kib: bool,
    pub(crate) latency_units: Vec<TimeUnit>,
    /// Keys of job entries present but not mapped.
    pub(crate) ignored_job: Vec<String>,
    /// Keys of read/write objects present but not mapped.
    pub(crate) ignored_dir: Vec<String>,
}

/// Major and minor of `fio-2.2.10`, `fio-3.14-6-g97134`.
pub(crate) fn version_number(v: &str) -> Option<(u32, u32)> {
    let rest = v.trim().strip_prefix("fio-").unwrap_or(v.trim());
    let mut it = rest.split(['.', '-']);
    let major = it.next()?.parse().ok()?;
    let minor = it.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    Some((major, minor))
}

const JOB_KEYS: &[&str] = &[
    "jobname",
    "groupid",
    "error",
    "job options",
    "read",
    "write",
    "trim",
    "sync",
    "job_runtime",
    "usr_cpu",
    "sys_cpu",
    "iodepth_level",
    "latency_depth",
    "steadystate",
    "job_start",
];
const DIR_KEYS: &[&str] = &[
    "io_bytes",
    "io_kbytes",
    "bw_bytes",
    "bw",
    "iops",
    "runtime",
    "total_ios",
    "clat_ns",
    "lat_ns",
    "clat",
    "lat",
];

/// Reads the fields of a document. `Err` when the document has no `jobs` array.
pub(crate) fn read_doc(root: &Node, f: &mut Fields<'_>) -> Result<Doc, Bad> {
    let version = root.get("fio version").and_then(Node::as_str).map(str::to_owned);
    let timestamp_ms = match root.get("timestamp_ms") {
        Some(Node::Num(v)) if v.is_finite() && *v > 0.0 && *v < 1e15 => Some(*v as i64),
        _ => match root.get("timestamp") {
            Some(Node::Num(v)) if v.is_finite() && *v > 0.0 && *v < 1e12 => Some(*v as i64 * 1000),
            _ => None,
        },
    };
    let time = root.get("time").and_then(Node::as_str).map(str::to_owned);
    let jobs = match root.get("jobs") {
        Some(Node::Arr(a)) => a,
        Some(other) => return Err(bad("$.jobs", "an array", other)),
        None => {
            let message = if root.has("client_stats") {
                "no `jobs` array: fio client/server output (`client_stats`) is not read; \
                 run fio locally with --output-format=json"
            } else {
                "no `jobs` array"
            };
            return Err(Bad { path: "$".into(), message: message.into() });
        }
    };
    let global = root.get("global options");
    let io_kib = io_bytes_in_kib(jobs, version.as_deref());
    let mut doc = Doc {
        version,
        timestamp_ms,
        time,
        entries: Vec::new(),
        disk_util: Vec::new(),
        io_kib,
        latency_units: Vec::new(),
        ignored_job: Vec::new(),
        ignored_dir: Vec::new(),
    };
    for (i, job) in jobs.iter().enumerate() {
        let path = format!("$.jobs[{i}]");
        match read_entry(job, &path, global, io_kib, f, &mut doc) {
            Ok(e) => doc.entries.push(e),
            Err(b) => f.warn_bad(&b, "job entry"),
        }
    }
    if let Some(Node::Arr(disks)) = root.get("disk_util") {
        for (i, d) in disks.iter().enumerate() {
            let path = format!("$.disk_util[{i}]");
            let Some(name) = d.get("name").and_then(Node::as_str) else {
                f.meta.warn(
                    format!("{}disk_util entry without a name skipped", f.doc),
                    Some(Location::json(path)),
                );
                continue;
            };
            let mut read = || -> Result<DiskUtil, Bad> {
                Ok(DiskUtil {
                    name: name.to_owned(),
                    util: f.num(d, "util", &path, 1e4)?,
                    aggr_util: f.num(d, "aggr_util", &path, 1e4)?,
                    read_ios: f.num(d, "read_ios", &path, MAX_COUNT)?,
                    write_ios: f.num(d, "write_ios", &path, MAX_COUNT)?,
                })
            };
            match read() {
                Ok(du) => doc.disk_util.push(du),
                Err(b) => f.warn_bad(&b, "disk_util entry"),
            }
        }
    }
    Ok(doc)
}

/// Whether `io_bytes` holds KiB. `io_kbytes` / `bw_bytes` beside it mean bytes; otherwise
/// compare with `bw` (KiB/s) x `runtime` (ms); the version decides only when nothing else can.
fn io_bytes_in_kib(jobs: &[Node], version: Option<&str>) -> bool {
    let mut evidence = None;
    'outer: for job in jobs {
        for dir in ["read", "write", "trim"] {
            let Some(d) = job.get(dir) else { continue };
            if d.has("io_kbytes") || d.has("bw_bytes") {
                evidence = Some(false);
                break 'outer;
            }
            let num = |k: &str| match d.get(k) {
                Some(Node::Num(v)) if v.is_finite() && *v > 0.0 => Some(*v),
                _ => None,
            };
            if let (Some(io), Some(bw), Some(rt)) = (num("io_bytes"), num("bw"), num("runtime")) {
                let ratio = io / (bw * rt / 1000.0);
                if (0.5..=2.0).contains(&ratio) {
                    evidence = Some(true);
                    break 'outer;
                }
                if (512.0..=2048.0).contains(&ratio) {
                    evidence = Some(false);
                    break 'outer;
                }
            }
        }
    }
    evidence.unwrap_or_else(|| match version.and_then(version_number) {
        Some((major, minor)) => major < 2 || (major == 2 && minor <= 18),
        None => false,
    })
}

fn read_entry(
    job: &Node,
    path: &str,
    global: Option<&Node>,
    io_kib: bool,
    f: &mut Fields<'_>,
    doc: &mut Doc,
) -> Result<Entry, Bad> {
    if !matches!(job, Node::Obj(_)) {
        return Err(bad(path, "an object", job));
    }
    let jobname = match job.get("jobname") {
        Some(Node::Str(s)) => s.clone(),
        Some(Node::Num(v)) => format!("{v}"),
        Some(other) => return Err(bad(&format!("{path}.jobname"), "a string", other)),
        None => format!("job{}", doc.entries.len() + 1),
    };
    let groupid = f.num(job, "groupid", path, 1e9)?.unwrap_or(0.0) as i64;
    let error = match job.get("error") {
        Some(Node::Num(v)) if v.is_finite() => *v as i64,
        _ => 0,
    };
    let job_opts = job.get("job options");
    let options = Options::new(job_opts, global);
    for (k, _) in job.entries() {
        if !JOB_KEYS.contains(&k.as_str()) && !doc.ignored_job.contains(k) {
            doc.ignored_job.push(k.clone());
        }
    }
    let mut has_bins = false;
    let mut dir = |name: &str, f: &mut Fields<'_>, doc: &mut Doc| -> Option<DirStats> {
        let node = job.get(name)?;
        let dpath = format!("{path}.{name}");
        match read_dir(node, &dpath, io_kib, f, doc, &mut has_bins) {
            Ok(d) => Some(d),
            Err(b) => {
                f.warn_bad(&b, &format!("{name} statistics of job {jobname:?}"));
                None
            }
        }
    };
    let read = dir("read", f, doc);
    let write = dir("write", f, doc);
    let trim_ios = job
        .get("trim")
        .and_then(|t| t.get("total_ios"))
        .and_then(|v| if let Node::Num(x) = v { Some(*x) } else { None })
        .filter(|x| x.is_finite())
        .unwrap_or(0.0);
    let sync = match job.get("sync") {
        Some(node @ Node::Obj(_)) => {
            match read_sync(node, &format!("{path}.sync"), f, &mut has_bins) {
                Ok(s) => s,
                Err(b) => {
                    f.warn_bad(&b, "sync statistics");
                    None
                }
            }
        }
        _ => None,
    };
    let job_runtime_ms = f.num(job, "job_runtime", path, MAX_RUNTIME_MS)?;
    let usr = f.num(job, "usr_cpu", path, 1e6)?;
    let sys = f.num(job, "sys_cpu", path, 1e6)?;
    let cpu_pct = match (usr, sys) {
        (None, None) => None,
        (u, s) => Some(u.unwrap_or(0.0) + s.unwrap_or(0.0)),
    };
    let depth_avg = job.get("iodepth_level").and_then(depth_from_levels);
    let latency_depth = f.num(job, "latency_depth", path, 1e9)?;
    let steady_state = match job.get("steadystate").and_then(|ss| ss.get("attained")) {
        Some(Node::Num(v)) if v.is_finite() => Some(*v != 0.0),
        Some(Node::Bool(b)) => Some(*b),
        _ => None,
    };
    let job_start_ms = f.num(job, "job_start", path, 1e15)?;
    Ok(Entry {
        path: path.to_owned(),
        jobname,
        groupid,
        error,
        options,
        read,
        write,
        trim_ios,
        sync,
        job_runtime_ms,
        cpu_pct,
        depth_avg,
        latency_depth,
        has_bins,
        steady_state,
        job_start_ms,
    })
}

/// Average depth from `iodepth_level`. fio files each submission under the largest bucket
/// label not above the depth at that moment (`"4"` holds depths 4-7, `">=64"` 64 and up),
/// so the labels are lower bounds and the average is a slight underestimate.
fn depth_from_levels(levels: &Node) -> Option<f64> {
    let mut total = 0.0;
    let mut weighted = 0.0;
    for (k, v) in levels.entries() {
        let Node::Num(pct) = v else { continue };
        let depth: f64 = match k.trim_start_matches(">=").parse() {
            Ok(d) => d,
            Err(_) => continue,
        };
        if pct.is_finite() && *pct > 0.0 && depth.is_finite() && depth > 0.0 {
            total += pct;
            weighted += pct * depth;
        }
    }
    (total > 0.0).then(|| weighted / total)
}

/// The `clat`/`lat` object pair of a direction and its unit, by the keys present.
fn lat_object<'a>(node: &'a Node, base: &str) -> Option<(&'a Node, TimeUnit, String)> {
    if let Some(n) = node.get(&format!("{base}_ns")) {
        return Some((n, TimeUnit::Ns, format!("{base}_ns")));
    }
    node.get(base).map(|n| (n, TimeUnit::Us, base.to_owned()))
}

fn read_lat(
    obj: &Node,
    unit: TimeUnit,
    path: &str,
    f: &mut Fields<'_>,
) -> Result<Option<Lat>, Bad> {
    if !matches!(obj, Node::Obj(_)) {
        return Err(bad(path, "an object", obj));
    }
    let max = MAX_LATENCY_MS / unit.to_ms();
    let mean = f.num(obj, "mean", path, max)?;
    let n = f.num(obj, "N", path, MAX_COUNT)?;
    Ok(mean.map(|m| Lat { mean_ms: m * unit.to_ms(), n }))
}

/// Percentiles of a latency object: keys like `"99.000000"`; the bogus duplicate `"0.00"`
/// keys of fio 2.x are skipped.
fn read_percentiles(
    obj: &Node,
    unit: TimeUnit,
    path: &str,
    f: &mut Fields<'_>,
) -> Result<Vec<(f64, f64)>, Bad> {
    let Some(p) = obj.get("percentile") else { return Ok(Vec::new()) };
    let ppath = format!("{path}.percentile");
    if !matches!(p, Node::Obj(_)) {
        return Err(bad(&ppath, "an object", p));
    }
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (k, v) in p.entries() {
        let Ok(pct) = k.trim().parse::<f64>() else { continue };
        if !(pct > 0.0 && pct <= 100.0) {
            continue;
        }
        let here = format!("{ppath}[\"{k}\"]");
        let value = match v {
            Node::Num(x) => *x,
            Node::Null => continue,
            other => return Err(bad(&here, "a number", other)),
        };
        let ms = value * unit.to_ms();
        if !(ms.is_finite() && (0.0..=MAX_LATENCY_MS).contains(&ms)) {
            f.meta.warn(
                format!("{}absurd percentile {value} dropped", f.doc),
                Some(Location::json(here)),
            );
            continue;
        }
        if !out.iter().any(|(p, _)| (p - pct).abs() < 1e-9) {
            out.push((pct, ms));
        }
    }
    Ok(out)
}

fn read_dir(
    node: &Node,
    path: &str,
    io_kib: bool,
    f: &mut Fields<'_>,
    doc: &mut Doc,
    has_bins: &mut bool,
) -> Result<DirStats, Bad> {
    if !matches!(node, Node::Obj(_)) {
        return Err(bad(path, "an object", node));
    }
    for (k, _) in node.entries() {
        if !DIR_KEYS.contains(&k.as_str()) && !doc.ignored_dir.contains(k) {
            doc.ignored_dir.push(k.clone());
        }
    }
    let kbytes = node.has("io_kbytes") || node.has("bw_bytes");
    let io_bytes = f
        .num(node, "io_bytes", path, MAX_BYTES)?
        .map(|v| if io_kib && !kbytes { v * 1024.0 } else { v });
    let ios = f.num(node, "total_ios", path, MAX_COUNT)?;
    let runtime_ms = f.num(node, "runtime", path, MAX_RUNTIME_MS)?;
    let iops = f.num(node, "iops", path, MAX_IOPS)?;
    let bw = match f.num(node, "bw_bytes", path, MAX_BYTES_PER_S)? {
        Some(b) => Some(b),
        None => f.num(node, "bw", path, MAX_BYTES_PER_S / 1024.0)?.map(|k| k * 1024.0),
    };
    // Latency: fio's `lat` is the total time of an IO, submission included (slat + clat);
    // it is what the application waited, comparable to DiskSpd's latency. `clat` (from
    // submission to completion) is the fallback when `lat` is missing.
    let mut lat = None;
    for base in ["lat", "clat"] {
        if let Some((obj, unit, key)) = lat_object(node, base) {
            if !doc.latency_units.contains(&unit) {
                doc.latency_units.push(unit);
            }
            if let Some(l) = read_lat(obj, unit, &format!("{path}.{key}"), f)? {
                lat = Some(l);
                break;
            }
        }
    }
    // Percentiles: fio computes them for `clat` by default, for `lat` with lat_percentiles=1.
    let mut pct = Vec::new();
    for base in ["clat", "lat"] {
        if let Some((obj, unit, key)) = lat_object(node, base) {
            if obj.has("bins") {
                *has_bins = true;
            }
            pct = read_percentiles(obj, unit, &format!("{path}.{key}"), f)?;
            if !pct.is_empty() {
                break;
            }
        }
    }
    Ok(DirStats { io_bytes, ios, runtime_ms, iops, bw, lat, pct })
}

fn read_sync(
    node: &Node,
    path: &str,
    f: &mut Fields<'_>,
    has_bins: &mut bool,
) -> Result<Option<SyncStats>, Bad> {
    let ios = f.num(node, "total_ios", path, MAX_COUNT)?;
    let Some((obj, unit, key)) = lat_object(node, "lat") else { return Ok(None) };
    let lpath = format!("{path}.{key}");
    if obj.has("bins") {
        *has_bins = true;
    }
    let lat = read_lat(obj, unit, &lpath, f)?;
    let ios = ios.or(lat.as_ref().and_then(|l| l.n)).unwrap_or(0.0);
    let pct = read_percentiles(obj, unit, &lpath, f)?;
    Ok(Some(SyncStats { ios, lat, pct }))
}

/// Equal up to rounding (values parsed from the same text compare equal).
pub(super) fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

pub(super) fn same_range(a: (f64, f64), b: (f64, f64)) -> bool {
    same(a.0, b.0) && same(a.1, b.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(version_number("fio-2.2.10"), Some((2, 2)));
        assert_eq!(version_number("fio-3.14-6-g97134"), Some((3, 14)));
        assert_eq!(version_number("fio-2.18-59-g618e"), Some((2, 18)));
        assert_eq!(version_number("fio-3.41"), Some((3, 41)));
        assert_eq!(version_number("weird"), None);
    }

    #[test]
    fn depth_levels_average_lower_bounds() {
        let n: Node = serde_json::from_str(
            r#"{"1": 0.1, "2": 0.1, "4": 0.1, "8": 0.1, "16": 99.6, "32": 0.0, ">=64": 0.0}"#,
        )
        .unwrap_or(Node::Null);
        let d = depth_from_levels(&n).unwrap_or(0.0);
        assert!((d - (0.1 + 0.2 + 0.4 + 0.8 + 99.6 * 16.0) / 100.0).abs() < 1e-9);
        let n: Node = serde_json::from_str(r#"{">=64": 100.0}"#).unwrap_or(Node::Null);
        assert_eq!(depth_from_levels(&n), Some(64.0));
        let n: Node = serde_json::from_str(r#"{"1": 0.0}"#).unwrap_or(Node::Null);
        assert_eq!(depth_from_levels(&n), None);
    }

    #[test]
    fn io_bytes_unit_is_decided_by_keys_then_by_bw() {
        let kib: Node = serde_json::from_str(
            r#"[{"read": {"io_bytes": 963660, "bw": 160583, "runtime": 6001}}]"#,
        )
        .unwrap_or(Node::Null);
        let Node::Arr(jobs) = kib else { return };
        // The version would say bytes; the numbers say KiB.
        assert!(io_bytes_in_kib(&jobs, Some("fio-3.0")));
        let bytes: Node = serde_json::from_str(
            r#"[{"read": {"io_bytes": 963660, "io_kbytes": 941, "bw": 160583, "runtime": 6001}}]"#,
        )
        .unwrap_or(Node::Null);
        let Node::Arr(jobs) = bytes else { return };
        assert!(!io_bytes_in_kib(&jobs, Some("fio-2.2.10")));
        assert!(io_bytes_in_kib(&[], Some("fio-2.17")));
        assert!(!io_bytes_in_kib(&[], Some("fio-2.21")));
    }
}
