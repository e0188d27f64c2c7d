//! The rules' view of the captures and the topology: every capture target, tied to the
//! topology's disks, pools and VM (`tie`), and the series the rules read.

use std::sync::Arc;

use advisor_model::{Direction, Metric, TargetKind};
use advisor_normalize::Capture;
use advisor_rules::eval::{
    BenchInfo, CatalogCaps, Context, DiskInfo, PoolInfo, Series, SizeCaps, SkuCaps, TargetId,
    TargetInfo, VmInfo,
};
use advisor_topology::{
    BurstModel, Cache, CaptureTarget, Catalog, DiskLimits, FigureOrigin, Matching, Role, Subject,
    Topology, match_targets,
};

/// The rules' view of the captures and topology.
pub(crate) struct EngineContext<'a> {
    pub(crate) captures: &'a [Capture],
    pub(crate) has_topology: bool,
    pub(crate) vm: Option<VmInfo>,
    pub(crate) disks: Vec<DiskInfo>,
    pub(crate) pools: Vec<PoolInfo>,
    pub(crate) benches: Vec<BenchInfo>,
    pub(crate) targets: Vec<TargetInfo>,
    pub(crate) host: Option<TargetId>,
    pub(crate) matching: Matching,
    /// Per entry of `targets`: the topology name it was matched to.
    pub(crate) matched: Vec<Option<String>>,
    /// Per entry of `targets`: the disk it stands for (index into `disks`).
    pub(crate) disk_of: Vec<Option<usize>>,
    /// The catalog's caps, for ceilings read from the data.
    pub(crate) catalog: Option<Arc<CatalogCaps>>,
}

/// The catalog's caps as the rules read them: every disk SKU and VM size row, with its
/// source (`crates/topology/catalog/*.csv`, `--catalog` files).
pub(crate) fn catalog_caps(catalog: &Catalog) -> CatalogCaps {
    let disks = catalog
        .disk_skus()
        .into_iter()
        .map(|d| SkuCaps {
            sku: d.name.clone(),
            tier: d.tier.clone(),
            iops: d.iops,
            mbps: d.mbps,
            burst_iops: d.burst_iops,
            burst_mbps: d.burst_mbps,
            superseded: d.superseded,
            // Premium SSD v2's free baseline (3,000 IOPS / 125 MB/s) is what a disk left
            // at its defaults holds; its other rows, and Ultra's, are ranges set per disk.
            provisioned: d.kind.is_provisioned() && !d.name.ends_with("_baseline"),
            source: d.source.clone(),
        })
        .collect();
    let vms = catalog
        .vm_sizes()
        .into_iter()
        .map(|v| SizeCaps {
            size: v.name.clone(),
            family: v.series().chars().take_while(char::is_ascii_uppercase).collect(),
            cached_iops: v.cached_iops,
            cached_mbps: v.cached_mbps,
            uncached_iops: v.uncached_iops,
            uncached_mbps: v.uncached_mbps,
            uncached_burst_iops: v.uncached_burst_iops,
            uncached_burst_mbps: v.uncached_burst_mbps,
            source: v.source.clone(),
        })
        .collect();
    CatalogCaps { disks, vms }
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

fn temp_limits(name: &str, cache: Cache) -> DiskLimits {
    DiskLimits {
        name: name.to_owned(),
        role: Role::Temp,
        cache,
        cache_setting: cache,
        cache_assumed: true,
        can_cache: Some(false),
        write_accelerator: None,
        sku: None,
        kind: None,
        size_gib: None,
        iops: None,
        mbps: None,
        origin: FigureOrigin::Unknown,
        burst: BurstModel::None,
        burst_iops: None,
        burst_mbps: None,
        pool: None,
        source: Vec::new(),
    }
}

impl<'a> EngineContext<'a> {
    pub(crate) fn new(
        captures: &'a [Capture],
        topology: Option<&Topology>,
        busy_iops: f64,
    ) -> Self {
        let mut targets = Vec::new();
        let mut busy = Vec::new();
        for (ci, c) in captures.iter().enumerate() {
            for (ti, t) in c.targets().iter().enumerate() {
                let id = TargetId { capture: ci, target: ti as u32 };
                targets.push(TargetInfo {
                    id,
                    name: t.name.clone(),
                    kind: t.kind,
                    file: c.file.clone(),
                });
                let p95 =
                    advisor_rules::eval::percentile_of(&c.values(ti as u32, Metric::Iops), 95.0);
                busy.push(p95.is_some_and(|x| x > busy_iops));
            }
        }
        let host = targets
            .iter()
            .filter(|t| t.kind == TargetKind::Host)
            .find(|t| {
                captures
                    .get(t.id.capture)
                    .is_some_and(|c| !c.values(t.id.target, Metric::CpuPct).is_empty())
            })
            .map(|t| t.id);
        let benches = captures
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
            .collect();

        let mut ctx = EngineContext {
            captures,
            has_topology: topology.is_some(),
            vm: None,
            disks: Vec::new(),
            pools: Vec::new(),
            benches,
            host,
            matching: Matching::default(),
            matched: vec![None; targets.len()],
            disk_of: vec![None; targets.len()],
            catalog: None,
            targets,
        };
        if let Some(t) = topology {
            ctx.tie(t, &busy);
        }
        ctx
    }

    /// Matches capture targets to the topology and builds disks, pools and the VM.
    fn tie(&mut self, t: &Topology, busy: &[bool]) {
        // Benchmark targets match too (a DiskSpd file under `F:\`), ranked after the time
        // series of the same disk.
        let storage: Vec<usize> = (0..self.targets.len())
            .filter(|&i| {
                matches!(
                    self.targets[i].kind,
                    TargetKind::Disk
                        | TargetKind::Volume
                        | TargetKind::Device
                        | TargetKind::Benchmark
                )
            })
            .collect();
        let cts: Vec<CaptureTarget<'_>> = storage
            .iter()
            .map(|&i| CaptureTarget {
                name: &self.targets[i].name,
                kind: self.targets[i].kind,
                busy: busy.get(i).copied().unwrap_or(false),
            })
            .collect();
        let mut matching = match_targets(t, &cts);
        for m in &mut matching.matches {
            m.target = storage.get(m.target).copied().unwrap_or(m.target);
        }
        for m in &matching.matches {
            if let Some(slot) = self.matched.get_mut(m.target) {
                slot.get_or_insert_with(|| m.name.clone());
            }
        }
        let limits = t.limits();
        let ranked = |mut v: Vec<usize>, targets: &[TargetInfo]| -> Vec<TargetId> {
            v.sort_by_key(|&i| (kind_rank(targets[i].kind), i));
            v.dedup();
            v.into_iter().map(|i| targets[i].id).collect()
        };
        for d in &limits.disks {
            let ti = t.disks.iter().position(|x| x.name == d.name);
            let idx: Vec<usize> = match ti {
                Some(ti) => matching.targets_of(Subject::Disk(ti)).collect(),
                None => Vec::new(),
            };
            let tier = ti
                .and_then(|ti| t.disks[ti].row.as_ref().map(|r| r.tier.clone()))
                .or_else(|| d.kind.map(|k| k.label().to_owned()));
            self.disks.push(DiskInfo {
                limits: d.clone(),
                tier,
                temp: false,
                targets: ranked(idx, &self.targets),
            });
        }
        for name in &limits.temp_disks {
            let idx: Vec<usize> = matching
                .matches
                .iter()
                .filter(|m| m.subject == Subject::TempDisk && m.name == *name)
                .map(|m| m.target)
                .collect();
            let cache = t.disk(name).map_or(Cache::None, |d| d.cache);
            self.disks.push(DiskInfo {
                limits: temp_limits(name, cache),
                tier: None,
                temp: true,
                targets: ranked(idx, &self.targets),
            });
        }
        for (di, d) in self.disks.iter().enumerate() {
            for id in &d.targets {
                if let Some(i) = self.targets.iter().position(|t| t.id == *id) {
                    self.disk_of[i].get_or_insert(di);
                }
            }
        }
        for (pi, p) in limits.pools.iter().enumerate() {
            let members = p
                .members
                .iter()
                .filter_map(|m| {
                    let key = advisor_topology::normalize_name(m);
                    self.disks
                        .iter()
                        .position(|d| advisor_topology::normalize_name(&d.limits.name) == key)
                })
                .collect();
            let idx: Vec<usize> = matching.targets_of(Subject::Pool(pi)).collect();
            self.pools.push(PoolInfo {
                limits: p.clone(),
                members,
                targets: ranked(idx, &self.targets),
            });
        }
        self.vm = limits.vm.as_ref().map(|v| VmInfo {
            limits: v.clone(),
            memory_gib: t.vm.as_ref().and_then(|x| x.size.memory_gib),
            provisioned_iops: limits.uncached.provisioned_iops,
            provisioned_mbps: limits.uncached.provisioned_mbps,
        });
        self.matching = matching;
    }

    fn capture(&self, id: TargetId) -> Option<&Capture> {
        self.captures.get(id.capture)
    }
}

impl Context for EngineContext<'_> {
    fn has_topology(&self) -> bool {
        self.has_topology
    }
    fn vm(&self) -> Option<&VmInfo> {
        self.vm.as_ref()
    }
    fn disks(&self) -> &[DiskInfo] {
        &self.disks
    }
    fn pools(&self) -> &[PoolInfo] {
        &self.pools
    }
    fn benches(&self) -> &[BenchInfo] {
        &self.benches
    }
    fn targets(&self) -> &[TargetInfo] {
        &self.targets
    }
    fn host(&self) -> Option<TargetId> {
        self.host
    }
    /// Not cached here: the evaluator keeps the series the rules read (in its own units)
    /// for as long as the rules run, and a second copy for the whole analysis would cost
    /// memory on a day of samples.
    fn series(&self, target: TargetId, metric: Metric) -> Option<Arc<Series>> {
        self.capture(target)
            .map(|c| c.series(target.target, metric))
            .filter(|s| !s.is_empty())
            .map(Arc::new)
    }
    fn series_columns(
        &self,
        target: TargetId,
        metric: Metric,
    ) -> Option<(Vec<Option<i64>>, Vec<f64>)> {
        let (times, vals) = self.capture(target)?.series_columns(target.target, metric);
        (!vals.is_empty()).then_some((times, vals))
    }
    fn source_percentile(&self, target: TargetId, direction: Direction, pct: f64) -> Option<f64> {
        let c = self.capture(target)?;
        let mut exact = None;
        let mut above: Option<(f64, f64)> = None;
        for p in &c.meta.percentiles {
            if p.target != target.target || p.direction != direction {
                continue;
            }
            if (p.percentile - pct).abs() < 1e-6 {
                exact = Some(p.latency_ms);
            } else if p.percentile > pct && above.is_none_or(|(q, _)| p.percentile < q) {
                above = Some((p.percentile, p.latency_ms));
            }
        }
        // The next percentile up bounds the asked one from above, when close.
        exact.or_else(|| above.filter(|(q, _)| *q - pct <= 0.5).map(|(_, v)| v))
    }
    fn interval_s(&self, target: TargetId) -> Option<f64> {
        self.capture(target)?.meta.interval_s
    }
    fn catalog(&self) -> Option<&CatalogCaps> {
        self.catalog.as_deref()
    }
}
