//! The figures rules compare a capture with, worked out from a topology: per disk, per
//! pool, and the VM's cached and uncached budgets. The per-item types are
//! `advisor_model::limits`' (the rules crate reads them without this crate).
//!
//! Units: IOPS, and MB/s exactly as Azure publishes them (the model reads capture
//! throughput in MiB/s and compares the numbers directly, as Azure's own metrics do).

use serde::Serialize;

use advisor_model::limits::{
    BurstModel, Controller, DiskKind, DiskLimits, FigureOrigin, PoolLimits, Role, VmLimits,
};

use crate::catalog::{DiskSku, VmSize};
use crate::topology::{Disk, Topology};

/// Everything a rule may compare with, built by [`Topology::limits`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Limits {
    /// `None` without a VM size (rules that need it are *not evaluated*).
    pub vm: Option<VmLimits>,
    pub disks: Vec<DiskLimits>,
    pub pools: Vec<PoolLimits>,
    /// Names of the local temp disk.
    pub temp_disks: Vec<String>,
    /// Disks whose *effective* host caching is on, plus the temp disk, share the VM's
    /// cached limit (a disk that cannot be cached counts as uncached whatever its setting).
    pub cached: Budget,
    /// Every remote disk shares the VM's uncached limit (cache misses and writes to cached
    /// disks count here too).
    pub uncached: Budget,
}

/// Which VM limit a budget is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetKind {
    Cached,
    Uncached,
}

/// A VM-level limit and the disks that share it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Budget {
    pub kind: BudgetKind,
    /// The VM's cap (`None` without a VM or when not published).
    pub iops: Option<f64>,
    pub mbps: Option<f64>,
    pub burst_iops: Option<f64>,
    pub burst_mbps: Option<f64>,
    /// Which VM figures `iops` / `mbps` are and why (the uncached budget of disks that are
    /// all Premium SSD v2 or Ultra takes the figures a size publishes for them).
    pub basis: Option<String>,
    /// Names (as in the topology) of everything whose IO counts against it.
    pub members: Vec<String>,
    /// Sum of the members' disk caps (known ones; the temp disk has none).
    pub provisioned_iops: Option<f64>,
    pub provisioned_mbps: Option<f64>,
    /// Members whose caps are unknown.
    pub unknown: Vec<String>,
}

/// A measure a cap is expressed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    Iops,
    Mbps,
}

/// The disks' summed caps above the VM's: performance paid for that the VM cannot deliver.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Excess {
    pub budget: BudgetKind,
    pub measure: Measure,
    pub provisioned: f64,
    pub vm_cap: f64,
    pub members: Vec<String>,
}

impl Budget {
    /// Where the members' summed caps exceed the VM's cap.
    pub fn excess(&self) -> Vec<Excess> {
        let mut v = Vec::new();
        for (measure, prov, cap) in [
            (Measure::Iops, self.provisioned_iops, self.iops),
            (Measure::Mbps, self.provisioned_mbps, self.mbps),
        ] {
            if let (Some(p), Some(c)) = (prov, cap)
                && p > c
            {
                v.push(Excess {
                    budget: self.kind,
                    measure,
                    provisioned: p,
                    vm_cap: c,
                    members: self.members.clone(),
                });
            }
        }
        v
    }
}

impl Limits {
    /// A disk by its topology name, matched forgivingly (`e:` finds `E:`).
    pub fn disk(&self, name: &str) -> Option<&DiskLimits> {
        let key = crate::normalize_name(name);
        self.disks.iter().find(|d| crate::normalize_name(&d.name) == key)
    }

    pub fn pool(&self, name: &str) -> Option<&PoolLimits> {
        let key = crate::normalize_name(name);
        self.pools.iter().find(|p| crate::normalize_name(&p.name) == key)
    }

    /// Whether a name is the local temp disk.
    pub fn is_temp_disk(&self, name: &str) -> bool {
        let key = crate::normalize_name(name);
        self.temp_disks.iter().any(|t| crate::normalize_name(t) == key)
    }

    /// Both budgets' excesses (`vm-provisioned-exceeds-vm-cap`).
    pub fn provisioned_excess(&self) -> Vec<Excess> {
        let mut v = self.cached.excess();
        v.extend(self.uncached.excess());
        v
    }
}

impl Topology {
    /// The figures rules read.
    pub fn limits(&self) -> Limits {
        let controller = self.controller();
        let vm = self
            .vm
            .as_ref()
            .map(|v| vm_limits(&v.size, &v.overridden, v.in_catalog, controller.as_ref()));
        let mut disks: Vec<DiskLimits> = self
            .disks
            .iter()
            .filter(|d| d.role != Role::Temp)
            .map(|d| {
                let mut l = disk_limits(self, d);
                l.vm_uncached = vm.as_ref().map(|v| v.uncached_for(d.kind));
                l
            })
            .collect();
        for pool in &self.pools {
            for m in pool.members.iter().flatten() {
                let name = &self.disks[*m].name;
                if let Some(d) = disks.iter_mut().find(|d| &d.name == name) {
                    d.pool.get_or_insert_with(|| pool.name.clone());
                }
            }
        }
        let temp_disks: Vec<String> = self.temp_disks().into_iter().map(str::to_owned).collect();

        let cached_disks: Vec<&DiskLimits> = disks.iter().filter(|d| d.cache.is_cached()).collect();
        let mut cached = budget(BudgetKind::Cached, &cached_disks);
        cached.members.extend(temp_disks.iter().cloned());
        let all: Vec<&DiskLimits> = disks.iter().collect();
        let mut uncached = budget(BudgetKind::Uncached, &all);
        if let Some(vm) = &vm {
            (cached.iops, cached.mbps) = (vm.cached_iops, vm.cached_mbps);
            // Disks that are all Premium SSD v2 / Ultra meet the figures the size publishes
            // for them; any other disk among them keeps the Premium SSD ones.
            let all_v2 = !disks.is_empty()
                && disks.iter().all(|d| d.kind.is_some_and(DiskKind::is_provisioned));
            let u = vm.uncached_for(if all_v2 { Some(DiskKind::PremiumSsdV2) } else { None });
            (uncached.iops, uncached.mbps) = (u.iops, u.mbps);
            (uncached.burst_iops, uncached.burst_mbps) = (u.burst_iops, u.burst_mbps);
            uncached.basis = Some(u.basis);
        }
        let pools = self
            .pools
            .iter()
            .map(|p| {
                let members: Vec<&DiskLimits> = p
                    .members
                    .iter()
                    .flatten()
                    .filter_map(|m| disks.iter().find(|d| d.name == self.disks[*m].name))
                    .collect();
                let undescribed: Vec<String> = p
                    .disks
                    .iter()
                    .zip(&p.members)
                    .filter(|(_, m)| m.is_none())
                    .map(|(n, _)| n.clone())
                    .collect();
                let all_cached = !members.is_empty() && members.iter().all(|d| d.cache.is_cached());
                let (vm_iops, vm_mbps) = match &vm {
                    Some(v) if all_cached => (
                        min_opt(v.cached_iops, v.uncached_iops),
                        min_opt(v.cached_mbps, v.uncached_mbps),
                    ),
                    Some(v) => (v.uncached_iops, v.uncached_mbps),
                    None => (None, None),
                };
                let b = budget(BudgetKind::Uncached, &members);
                let mut unknown_members = b.unknown;
                unknown_members.extend(undescribed);
                let sum_burst = |f: fn(&DiskLimits) -> Option<f64>| -> Option<f64> {
                    let with: Vec<f64> = members.iter().filter_map(|d| f(d)).collect();
                    (!with.is_empty()).then(|| with.iter().sum())
                };
                let (eff_iops, bound_iops) = effective(b.provisioned_iops, vm_iops);
                let (eff_mbps, bound_mbps) = effective(b.provisioned_mbps, vm_mbps);
                PoolLimits {
                    name: p.name.clone(),
                    members: p.disks.clone(),
                    columns: p.columns,
                    interleave_kib: p.interleave_kib,
                    sum_iops: b.provisioned_iops,
                    sum_mbps: b.provisioned_mbps,
                    sum_burst_iops: sum_burst(DiskLimits::peak_iops),
                    sum_burst_mbps: sum_burst(DiskLimits::peak_mbps),
                    unknown_members,
                    vm_iops,
                    vm_mbps,
                    effective_iops: eff_iops,
                    effective_mbps: eff_mbps,
                    vm_bound_iops: bound_iops,
                    vm_bound_mbps: bound_mbps,
                }
            })
            .collect();
        Limits { vm, disks, pools, temp_disks, cached, uncached }
    }
}

fn min_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn effective(sum: Option<f64>, vm: Option<f64>) -> (Option<f64>, bool) {
    match (sum, vm) {
        (Some(s), Some(v)) if v < s => (Some(v), true),
        (Some(s), _) => (Some(s), false),
        (None, v) => (v, v.is_some()),
    }
}

fn budget(kind: BudgetKind, disks: &[&DiskLimits]) -> Budget {
    let sum = |f: fn(&DiskLimits) -> Option<f64>| -> Option<f64> {
        let known: Vec<f64> = disks.iter().filter_map(|d| f(d)).collect();
        (!known.is_empty()).then(|| known.iter().sum())
    };
    Budget {
        kind,
        iops: None,
        mbps: None,
        burst_iops: None,
        burst_mbps: None,
        basis: None,
        members: disks.iter().map(|d| d.name.clone()).collect(),
        provisioned_iops: sum(|d| d.iops),
        provisioned_mbps: sum(|d| d.mbps),
        unknown: disks
            .iter()
            .filter(|d| d.iops.is_none() || d.mbps.is_none())
            .map(|d| d.name.clone())
            .collect(),
    }
}

/// The VM's limits, the remote ones for the controller the disks use: the NVMe figures
/// when the topology (or the disk names) say NVMe and the size publishes them, else the
/// size's default set (SCSI where both are published). Figures the topology's `[vm]`
/// overrides stay as written.
fn vm_limits(
    s: &VmSize,
    overridden: &[String],
    in_catalog: bool,
    controller: Option<&(Controller, String)>,
) -> VmLimits {
    let both = s.nvme.any();
    let nvme_only = both && s.nvme == s.remote();
    let mut r = s.remote();
    let (chosen, basis) = match (controller, both) {
        (Some((Controller::Nvme, why)), true) => {
            let n = s.nvme;
            let keep = |key: &str, given: Option<f64>, nvme: Option<f64>| {
                if overridden.iter().any(|o| o == key) { given } else { nvme }
            };
            r.iops = keep("uncached_iops", r.iops, n.iops);
            r.mbps = keep("uncached_mbps", r.mbps, n.mbps);
            r.burst_iops = keep("uncached_burst_iops", r.burst_iops, n.burst_iops);
            r.burst_mbps = keep("uncached_burst_mbps", r.burst_mbps, n.burst_mbps);
            (r.v2_iops, r.v2_mbps, r.v2_burst_iops, r.v2_burst_mbps) =
                (n.v2_iops, n.v2_mbps, n.v2_burst_iops, n.v2_burst_mbps);
            (Some(Controller::Nvme), format!("its NVMe-controller figures: {why}"))
        }
        (_, true) if nvme_only => (
            Some(Controller::Nvme),
            "its NVMe-controller figures, the only ones its page publishes".to_owned(),
        ),
        (Some((Controller::Scsi, why)), true) => {
            (Some(Controller::Scsi), format!("its SCSI-controller figures: {why}"))
        }
        (None, true) => (
            None,
            "its SCSI-controller figures: its page publishes SCSI and NVMe figures and the topology does not say which controller the disks use (controller = \"nvme\" on a [[disk]] picks the NVMe ones)".to_owned(),
        ),
        (Some((c, why)), false) => (
            Some(*c),
            format!("the only remote figures its page publishes, not per controller ({why})"),
        ),
        (None, false) => (None, "the remote figures its page publishes".to_owned()),
    };
    VmLimits {
        size: s.name.clone(),
        series: s.series(),
        vcpu: s.vcpu,
        max_data_disks: s.max_data_disks,
        temp_gib: s.temp_gib,
        cache_gib: s.cache_gib,
        cached_iops: s.cached_iops,
        cached_mbps: s.cached_mbps,
        uncached_iops: r.iops,
        uncached_mbps: r.mbps,
        uncached_burst_iops: r.burst_iops,
        uncached_burst_mbps: r.burst_mbps,
        uncached_v2_iops: r.v2_iops,
        uncached_v2_mbps: r.v2_mbps,
        uncached_v2_burst_iops: r.v2_burst_iops,
        uncached_v2_burst_mbps: r.v2_burst_mbps,
        controller: chosen,
        uncached_basis: basis,
        temp_iops: s.temp_iops,
        temp_mbps: s.temp_mbps,
        temp_write_iops: s.temp_write_iops,
        temp_write_mbps: s.temp_write_mbps,
        local_nvme_disks: s.local_nvme_disks,
        local_nvme_iops: s.local_nvme_iops,
        local_nvme_mbps: s.local_nvme_mbps,
        status: s.status.as_str().to_owned(),
        premium_storage: s.premium_storage(),
        host_caching: s.host_caching(),
        overridden: overridden.to_vec(),
        source: s.source.clone(),
        in_catalog,
    }
}

fn disk_limits(t: &Topology, d: &Disk) -> DiskLimits {
    let rules = &t.provisioned_rules;
    // The row whose figures apply when the topology gives none.
    let base: Option<&DiskSku> = match d.kind {
        Some(DiskKind::PremiumSsdV2) => rules.v2_baseline.as_ref(),
        Some(DiskKind::Ultra) => None,
        _ => d.row.as_ref(),
    };
    let pick = |given: Option<f64>, row: Option<f64>| given.or(row);
    let iops = pick(d.iops, base.and_then(|b| b.iops));
    let mbps = pick(d.mbps, base.and_then(|b| b.mbps));
    let origin = match (d.iops.is_some() || d.mbps.is_some(), d.kind, base) {
        (true, _, _) => FigureOrigin::Topology,
        (false, Some(DiskKind::PremiumSsdV2), Some(_)) => FigureOrigin::Baseline,
        (false, _, Some(_)) => FigureOrigin::Catalog,
        _ => FigureOrigin::Unknown,
    };
    let model = match d.kind {
        Some(DiskKind::PremiumSsdV2 | DiskKind::Ultra) | None => BurstModel::None,
        _ => d.row.as_ref().map_or(BurstModel::None, DiskSku::burst_model),
    };
    let bursting = match model {
        BurstModel::Credit => d.bursting != Some(false),
        BurstModel::OnDemand => d.bursting == Some(true),
        BurstModel::None => false,
    };
    let row = d.row.as_ref();
    let (burst_iops, burst_mbps) = if bursting {
        (row.and_then(|r| r.burst_iops), row.and_then(|r| r.burst_mbps))
    } else {
        (None, None)
    };
    let mut source = Vec::new();
    // A merged topology names the document each figure came from.
    let from = |key: &str| {
        let key = format!("disk {}.{key}", d.name);
        t.sources.iter().find(|(k, _)| *k == key).map(|(_, s)| s.clone())
    };
    if origin == FigureOrigin::Topology {
        let figures: Vec<String> = ["iops", "mbps"].iter().filter_map(|k| from(k)).collect();
        if figures.is_empty() {
            source.push(format!("{}: [[disk]] {}", t.origin, d.name));
        } else {
            source.extend(figures);
        }
    }
    if base.is_some()
        && let Some(s) = from("sku")
    {
        source.push(s);
    }
    if let Some(b) = base {
        source.extend(b.source.iter().cloned());
    }
    DiskLimits {
        name: d.name.clone(),
        role: d.role,
        role_assumed: !d.role_written,
        cache: d.cache,
        cache_setting: d.cache_setting,
        cache_assumed: d.cache_written.is_none(),
        can_cache: d.can_cache,
        write_accelerator: d.write_accelerator,
        sku: d.sku.clone(),
        kind: d.kind,
        size_gib: row.and_then(DiskSku::size_gib),
        iops,
        mbps,
        origin,
        burst: model,
        burst_iops,
        burst_mbps,
        pool: None,
        controller: d.controller,
        vm_uncached: None,
        source,
    }
}
