//! The binding step: every capture target, tied to the topology's disks, pools and VM,
//! as the [`Facts`] the rules read. Built once per analysis by [`bind`]; the report reads
//! the same binding (which topology name each target matched, which disk it stands for).

use std::collections::HashMap;
use std::sync::Arc;

use advisor_model::limits::{BurstModel, Cache, DiskLimits, FigureOrigin, Role, VmLimits};
use advisor_model::{DbFileKind, Metric, TargetKind};
use advisor_normalize::{Capture, TargetStats, metric_stats};
use advisor_rules::eval::{
    BenchInfo, CatalogCaps, DiskInfo, Facts, FileInfo, PoolInfo, TargetId, TargetInfo, VmInfo,
    percentile_of,
};
use advisor_topology::{
    CaptureTarget, Limits, Matching, Subject, Topology, match_targets, matches, name_keys,
    normalize_name,
};

/// The facts the rules read, and what the report needs from the same binding.
pub(crate) struct Bound {
    pub(crate) facts: Facts,
    /// Capture targets matched to topology disks, pools and the temp disk, and the
    /// warnings of the match.
    pub(crate) matching: Matching,
    /// Per entry of `facts.targets`: the topology name it was matched to.
    pub(crate) matched: Vec<Option<String>>,
    /// Per entry of `facts.targets`: the disk it stands for (index into `facts.disks`).
    pub(crate) disk_of: Vec<Option<usize>>,
    /// What the binding assumed (a disk's role read from the database files on it), for
    /// the report's warnings.
    pub(crate) notes: Vec<String>,
}

/// The percentile of a target's IOPS the busy test reads.
pub(crate) const BUSY_PERCENTILE: f64 = 95.0;

/// Binds the captures' targets, and the topology when there is one, into the facts.
/// A target is busy (matched more eagerly) when its p95 IOPS is over `busy_iops`.
pub(crate) fn bind(captures: &[Capture], topology: Option<&Topology>, busy_iops: f64) -> Bound {
    bind_known(captures, topology, busy_iops, &[], None)
}

/// [`bind`], with each capture's summaries when they were taken already (their IOPS with
/// its [`BUSY_PERCENTILE`]): the busy test reads them instead of selecting again; and with
/// the catalog's caps the rules read (`disk_caps_near`). The facts are finished when it
/// returns: nothing patches them afterwards.
pub(crate) fn bind_known(
    captures: &[Capture],
    topology: Option<&Topology>,
    busy_iops: f64,
    stats: &[Vec<TargetStats>],
    catalog: Option<&Arc<CatalogCaps>>,
) -> Bound {
    let targets = capture_targets(captures);
    let facts = Facts {
        topology: topology.is_some(),
        host: host_target(captures, &targets),
        benches: bench_targets(captures),
        cpus: capture_cpus(captures),
        targets,
        ..Facts::default()
    };
    let n = facts.targets.len();
    let mut bound = Bound {
        facts,
        matching: Matching::default(),
        matched: vec![None; n],
        disk_of: vec![None; n],
        notes: Vec::new(),
    };
    if let Some(t) = topology {
        let busy = busy_targets(captures, busy_iops, stats);
        bind_topology(&mut bound, t, &busy);
    }
    bind_files(&mut bound, captures);
    crate::platform::name_by_lun(&mut bound.facts.targets, topology);
    bound.facts.catalog = catalog.cloned();
    bound
}

/// The database files of SQL Server's file statistics, each placed on the topology disk
/// (or pool, or the temp disk) its path is on: by drive letter (`E:\data\x.mdf` on `E:`,
/// or on the disk whose PerfMon instance `2 E:` names the letter) or by the longest mount
/// path a disk is named by (`/var/opt/mssql/data/x.mdf` on `/var/opt/mssql`). A placed
/// file's target is matched to that disk's name, beside its series. A disk whose role the
/// topology does not write takes `log` or `tempdb` when only such files sit on it.
fn bind_files(bound: &mut Bound, captures: &[Capture]) {
    let mut files = Vec::new();
    for (ci, c) in captures.iter().enumerate() {
        for f in &c.meta.files {
            let id = TargetId { capture: ci, target: f.target };
            let Some(t) = bound.facts.targets.iter().find(|t| t.id == id) else { continue };
            files.push(FileInfo {
                target: id,
                name: t.name.clone(),
                file: f.clone(),
                drive: f.path.as_deref().and_then(drive_of),
                disk: None,
                pool: None,
            });
        }
    }
    let facts = &bound.facts;
    for f in &mut files {
        let Some(path) = f.file.path.as_deref() else { continue };
        let path = path.strip_prefix(r"\\?\").unwrap_or(path);
        f.disk =
            place(path, facts.disks.iter().map(|d| (d.limits.name.as_str(), &d.targets)), facts);
        if f.disk.is_none() {
            f.pool = place(
                path,
                facts.pools.iter().map(|p| (p.limits.name.as_str(), &p.targets)),
                facts,
            );
        }
        // On Linux the mount path the file was placed by is its drive.
        if f.drive.as_deref().is_some_and(|d| d.starts_with('/')) {
            let on = f
                .disk
                .map(|d| facts.disks[d].limits.name.as_str())
                .or_else(|| f.pool.map(|p| facts.pools[p].limits.name.as_str()));
            f.drive = on.filter(|n| n.starts_with('/')).map(str::to_owned).or(f.drive.take());
        }
    }
    for f in &files {
        let name = f
            .disk
            .map(|d| bound.facts.disks[d].limits.name.clone())
            .or_else(|| f.pool.map(|p| bound.facts.pools[p].limits.name.clone()));
        if let Some(i) = bound.facts.targets.iter().position(|t| t.id == f.target)
            && let Some(slot) = bound.matched.get_mut(i)
        {
            *slot = name;
        }
    }
    // Roles the topology leaves unsaid, from the files on each disk.
    for (di, d) in bound.facts.disks.iter_mut().enumerate() {
        if d.temp
            || !d.limits.role_assumed
            || name_keys(&d.limits.name).iter().any(|k| OS_NAMES.contains(&k.as_str()))
        {
            continue;
        }
        let on: Vec<&FileInfo> = files.iter().filter(|f| f.disk == Some(di)).collect();
        let user = |f: &&FileInfo| !f.file.is_system() && !f.file.is_tempdb();
        let logs = on.iter().filter(|f| user(f) && f.file.kind == DbFileKind::Log).count();
        let data = on.iter().filter(|f| user(f) && f.file.kind == DbFileKind::Rows).count();
        let tempdb = on.iter().filter(|f| f.file.is_tempdb()).count();
        let role = match (logs, data, tempdb) {
            (l, 0, 0) if l > 0 => Role::Log,
            (0, 0, t) if t > 0 => Role::Tempdb,
            _ => continue,
        };
        d.limits.role = role;
        let names: Vec<&str> = on
            .iter()
            .map(|f| f.name.rsplit(['\\', '/']).next().unwrap_or(&f.name))
            .take(3)
            .collect();
        let more = if on.len() > 3 { format!(" and {} more", on.len() - 3) } else { String::new() };
        bound.notes.push(format!(
            "{}: its role is taken as {} from the SQL Server files on it ({}{more}), as the \
             topology gives none (fix: write role = \"{}\" in its [[disk]] to keep it, or the \
             role it has)",
            d.limits.name,
            role.name(),
            names.join(", "),
            role.name()
        ));
    }
    bound.facts.files = files;
}

/// Names of the OS disk whose role is not read from files: it is the OS disk whatever it
/// holds (`os-disk-workload` says so).
const OS_NAMES: [&str; 2] = ["c:", "sda"];

/// The drive letter (`E:`) or the directory (`/var/opt/mssql/data`) of a file's path; a
/// share (`\\server\share\...`) has none.
fn drive_of(path: &str) -> Option<String> {
    let p = path.trim().strip_prefix(r"\\?\").unwrap_or(path.trim());
    let b = p.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Some(format!("{}:", (b[0] as char).to_ascii_uppercase()));
    }
    if p.starts_with('/') {
        return p
            .rsplit_once('/')
            .map(|(dir, _)| if dir.is_empty() { "/" } else { dir }.to_owned());
    }
    None
}

/// The subject (index) a file's path is on: one named by its drive letter or a mount path
/// above it (the longest), else one whose capture targets name the drive letter.
fn place<'a>(
    path: &str,
    subjects: impl Iterator<Item = (&'a str, &'a Vec<TargetId>)> + Clone,
    facts: &Facts,
) -> Option<usize> {
    let by_name = subjects
        .clone()
        .enumerate()
        .filter(|(_, (name, _))| matches(name, path, Some(TargetKind::Benchmark)))
        .max_by_key(|(_, (name, _))| name.len())
        .map(|(i, _)| i);
    if by_name.is_some() {
        return by_name;
    }
    // `disk2` matched to PerfMon's `2 E:`: the letter is the target's.
    let letter = drive_of(path).filter(|d| d.len() == 2)?;
    subjects.enumerate().find_map(|(i, (_, targets))| {
        targets
            .iter()
            .filter_map(|id| facts.targets.iter().find(|t| t.id == *id))
            .any(|t| name_keys(&t.name).iter().any(|k| k.eq_ignore_ascii_case(&letter)))
            .then_some(i)
    })
}

/// Every target of every capture, numbered by capture and position.
fn capture_targets(captures: &[Capture]) -> Vec<TargetInfo> {
    let mut targets = Vec::new();
    for (ci, c) in captures.iter().enumerate() {
        for (ti, t) in c.targets().iter().enumerate() {
            targets.push(TargetInfo {
                id: TargetId { capture: ci, target: ti as u32 },
                name: t.name.clone(),
                kind: t.kind,
                file: c.file.clone(),
            });
        }
    }
    targets
}

/// Per target, in the order of [`capture_targets`]: whether its p95 IOPS is over `busy_iops`.
///
/// On every core: each is a selection in a day of samples, worked out first where the
/// capture does not state the total (30 ms on one core for the 1 GB case's 32 targets, at
/// the start of every analysis).
///
/// From the capture's summaries when `stats` has them (a target without IOPS among its
/// stats has no finite IOPS value: not busy).
fn busy_targets(captures: &[Capture], busy_iops: f64, stats: &[Vec<TargetStats>]) -> Vec<bool> {
    let all: Vec<(usize, &Capture, u32)> = captures
        .iter()
        .enumerate()
        .flat_map(|(ci, c)| (0..c.targets().len()).map(move |ti| (ci, c, ti as u32)))
        .collect();
    advisor_model::par::map_indexed(all.len(), 8, |i| {
        let (ci, c, ti) = all[i];
        let known = stats
            .get(ci)
            .map(|st| metric_stats(st, ti, Metric::Iops).and_then(|s| s.rank(BUSY_PERCENTILE)));
        let p95 = match known {
            Some(Some(x)) => {
                debug_assert_eq!(
                    percentile_of(&c.values(ti, Metric::Iops), BUSY_PERCENTILE).map(f64::to_bits),
                    Some(x.to_bits()),
                    "the summary's p95 IOPS of target {ti} is not the series'"
                );
                Some(x)
            }
            _ => percentile_of(&c.values(ti, Metric::Iops), BUSY_PERCENTILE),
        };
        p95.is_some_and(|x| x > busy_iops)
    })
}

/// The CPU count the captures state, when they state one and agree (iostat's banner, a
/// DiskSpd run's processor count).
fn capture_cpus(captures: &[Capture]) -> Option<u32> {
    let mut counts = captures.iter().filter_map(|c| c.meta.cpus);
    let first = counts.next()?;
    counts.all(|n| n == first).then_some(first)
}

/// The first host target with CPU counters.
fn host_target(captures: &[Capture], targets: &[TargetInfo]) -> Option<TargetId> {
    targets
        .iter()
        .filter(|t| t.kind == TargetKind::Host)
        .find(|t| {
            captures
                .get(t.id.capture)
                .is_some_and(|c| !c.values(t.id.target, Metric::CpuPct).is_empty())
        })
        .map(|t| t.id)
}

/// Every benchmark target (a fio job, a DiskSpd target) and how it ran.
fn bench_targets(captures: &[Capture]) -> Vec<BenchInfo> {
    captures
        .iter()
        .enumerate()
        .flat_map(|(ci, c)| {
            c.meta.bench.iter().map(move |b| BenchInfo {
                target: TargetId { capture: ci, target: b.target },
                name: c
                    .targets()
                    .get(b.target as usize)
                    .map(|t| t.name.clone())
                    .unwrap_or_default(),
                settings: b.clone(),
            })
        })
        .collect()
}

/// Matches the targets to the topology, then builds its disks, pools and VM.
fn bind_topology(bound: &mut Bound, t: &Topology, busy: &[bool]) {
    let matching = match_storage_targets(t, &bound.facts.targets, busy);
    for m in &matching.matches {
        if let Some(slot) = bound.matched.get_mut(m.target) {
            slot.get_or_insert_with(|| m.name.clone());
        }
    }
    let limits = t.limits();
    let facts = &mut bound.facts;
    facts.disks = topology_disks(t, &limits, &matching, &facts.targets);
    facts.disks.extend(temp_disks(t, &limits, &matching, &facts.targets));
    bound.disk_of = disk_of_targets(&facts.disks, &facts.targets);
    facts.pools = pools(&limits, &facts.disks, &matching, &facts.targets);
    facts.index_pools();
    facts.vm = vm_info(t, &limits);
    bound.matching = matching;
}

/// Matches the storage targets (benchmark targets too: a DiskSpd file under `F:\`, ranked
/// after the time series of the same disk) to the topology; the matches' `target` is an
/// index into `targets`.
fn match_storage_targets(t: &Topology, targets: &[TargetInfo], busy: &[bool]) -> Matching {
    let storage: Vec<usize> = (0..targets.len())
        .filter(|&i| {
            matches!(
                targets[i].kind,
                TargetKind::Disk | TargetKind::Volume | TargetKind::Device | TargetKind::Benchmark
            )
        })
        .collect();
    let cts: Vec<CaptureTarget<'_>> = storage
        .iter()
        .map(|&i| CaptureTarget {
            name: &targets[i].name,
            kind: targets[i].kind,
            busy: busy.get(i).copied().unwrap_or(false),
        })
        .collect();
    let mut matching = match_targets(t, &cts);
    for m in &mut matching.matches {
        m.target = storage.get(m.target).copied().unwrap_or(m.target);
    }
    matching
}

/// The order in which a disk's targets are preferred: the physical disk first.
fn kind_rank(k: TargetKind) -> u8 {
    match k {
        TargetKind::Disk => 0,
        TargetKind::Device => 1,
        TargetKind::Volume => 2,
        TargetKind::Benchmark => 3,
        _ => 4,
    }
}

/// Target indexes as ids, the preferred first, each once.
fn ranked(mut v: Vec<usize>, targets: &[TargetInfo]) -> Vec<TargetId> {
    v.sort_by_key(|&i| (kind_rank(targets[i].kind), i));
    v.dedup();
    v.into_iter().map(|i| targets[i].id).collect()
}

/// The topology's remote disks with their limits, tier and matched targets.
fn topology_disks(
    t: &Topology,
    limits: &Limits,
    matching: &Matching,
    targets: &[TargetInfo],
) -> Vec<DiskInfo> {
    let mut disks = Vec::new();
    // Looked up, not searched: a topology may describe thousands of disks.
    let mut position: HashMap<&str, usize> = HashMap::with_capacity(t.disks.len());
    for (i, x) in t.disks.iter().enumerate() {
        position.entry(x.name.as_str()).or_insert(i);
    }
    let of_subject = matching.targets_by_subject();
    for d in &limits.disks {
        let ti = position.get(d.name.as_str()).copied();
        let idx: Vec<usize> = match ti {
            Some(ti) => of_subject.get(&Subject::Disk(ti)).cloned().unwrap_or_default(),
            None => Vec::new(),
        };
        let tier = ti
            .and_then(|ti| t.disks[ti].row.as_ref().map(|r| r.tier.clone()))
            .or_else(|| d.kind.map(|k| k.label().to_owned()));
        disks.push(DiskInfo {
            limits: d.clone(),
            tier,
            temp: false,
            targets: ranked(idx, targets),
        });
    }
    disks
}

/// The local temp disks, with their matched targets: their caps are the temp-disk figures
/// the size's page publishes (v4+ sizes), none on older sizes (whose temp disk shares the
/// cached budget).
fn temp_disks(
    t: &Topology,
    limits: &Limits,
    matching: &Matching,
    targets: &[TargetInfo],
) -> Vec<DiskInfo> {
    let mut disks = Vec::new();
    for name in &limits.temp_disks {
        let idx: Vec<usize> = matching
            .matches
            .iter()
            .filter(|m| m.subject == Subject::TempDisk && m.name == *name)
            .map(|m| m.target)
            .collect();
        let cache = t.disk(name).map_or(Cache::None, |d| d.cache);
        disks.push(DiskInfo {
            limits: temp_limits(name, cache, limits.vm.as_ref()),
            tier: None,
            temp: true,
            targets: ranked(idx, targets),
        });
    }
    disks
}

fn temp_limits(name: &str, cache: Cache, vm: Option<&VmLimits>) -> DiskLimits {
    // The size's temp figures are for all its temp disks together.
    let (iops, mbps) = vm.map_or((None, None), |v| (v.temp_iops, v.temp_mbps));
    let known = iops.is_some() || mbps.is_some();
    let source = match vm {
        Some(v) if known => {
            let mut s = vec![format!("the temp disk read limits {} publishes", v.size)];
            s.extend(v.source.iter().cloned());
            s
        }
        _ => Vec::new(),
    };
    DiskLimits {
        name: name.to_owned(),
        role: Role::Temp,
        role_assumed: false,
        cache,
        cache_setting: cache,
        cache_assumed: true,
        can_cache: Some(false),
        write_accelerator: None,
        sku: None,
        kind: None,
        size_gib: None,
        iops,
        mbps,
        origin: if known { FigureOrigin::Catalog } else { FigureOrigin::Unknown },
        burst: BurstModel::None,
        burst_iops: None,
        burst_mbps: None,
        pool: None,
        controller: None,
        vm_uncached: None,
        source,
    }
}

/// Per target: the first disk (index into `disks`) it was matched to.
fn disk_of_targets(disks: &[DiskInfo], targets: &[TargetInfo]) -> Vec<Option<usize>> {
    let mut disk_of = vec![None; targets.len()];
    let mut position: HashMap<TargetId, usize> = HashMap::with_capacity(targets.len());
    for (i, t) in targets.iter().enumerate() {
        position.entry(t.id).or_insert(i);
    }
    for (di, d) in disks.iter().enumerate() {
        for id in &d.targets {
            if let Some(&i) = position.get(id) {
                disk_of[i].get_or_insert(di);
            }
        }
    }
    disk_of
}

/// The striped pools: their limits, members (indexes into `disks`) and volume targets.
fn pools(
    limits: &Limits,
    disks: &[DiskInfo],
    matching: &Matching,
    targets: &[TargetInfo],
) -> Vec<PoolInfo> {
    let mut pools = Vec::new();
    if limits.pools.is_empty() {
        return pools;
    }
    // Each disk by its name's key, the first of a key, as a search from the start finds it.
    let mut by_key: HashMap<String, usize> = HashMap::with_capacity(disks.len());
    for (i, d) in disks.iter().enumerate() {
        by_key.entry(normalize_name(&d.limits.name)).or_insert(i);
    }
    let of_subject = matching.targets_by_subject();
    for (pi, p) in limits.pools.iter().enumerate() {
        let members =
            p.members.iter().filter_map(|m| by_key.get(&normalize_name(m)).copied()).collect();
        let idx: Vec<usize> = of_subject.get(&Subject::Pool(pi)).cloned().unwrap_or_default();
        pools.push(PoolInfo { limits: p.clone(), members, targets: ranked(idx, targets) });
    }
    pools
}

/// The VM's limits, memory and the remote disks' summed caps.
fn vm_info(t: &Topology, limits: &Limits) -> Option<VmInfo> {
    limits.vm.as_ref().map(|v| VmInfo {
        limits: v.clone(),
        memory_gib: t.vm.as_ref().and_then(|x| x.size.memory_gib),
        provisioned_iops: limits.uncached.provisioned_iops,
        provisioned_mbps: limits.uncached.provisioned_mbps,
    })
}
