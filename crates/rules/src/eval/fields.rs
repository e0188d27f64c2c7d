//! Reading the topology's facts: `vm.*`, `disk.*`, `pool.*`, `bench.*` and `target.*` fields.

use super::*;
use advisor_model::limits;

/// A Premium SSD v2 / Ultra remote figure of the VM, or why there is none.
fn v2(l: &limits::VmLimits, x: Option<f64>, factor: f64, what: &str) -> OrMissing<Value> {
    match x {
        Some(x) if x.is_finite() => Ok(Value::Num(x * factor)),
        _ => missing(format!(
            "{} publishes no Premium SSD v2 / Ultra {what} limit of its own: its uncached limits apply to those disks",
            l.size
        )),
    }
}

/// A temp-disk figure of the VM, or why there is none.
fn temp(l: &limits::VmLimits, x: Option<f64>, factor: f64, what: &str) -> OrMissing<Value> {
    match x {
        Some(x) if x.is_finite() => Ok(Value::Num(x * factor)),
        _ if l.temp_gib == Some(0.0) => missing(format!("{} has no temp disk", l.size)),
        _ => missing(format!(
            "{} has no published temp disk {what} (older sizes share the cached limit instead)",
            l.size
        )),
    }
}

/// A local NVMe figure of the VM, or why there is none.
fn local_nvme(l: &limits::VmLimits, x: Option<f64>, factor: f64, what: &str) -> OrMissing<Value> {
    match x {
        Some(x) if x.is_finite() => Ok(Value::Num(x * factor)),
        _ => missing(format!("{} has no local NVMe data disks with a published {what}", l.size)),
    }
}

impl Evaluation<'_> {
    pub(super) fn vm_field(&mut self, f: VmField) -> OrMissing<Value> {
        if f == VmField::TempDisk {
            return Ok(Value::Element(self.temp_disk()?));
        }
        let Some(vm) = self.facts.vm.as_ref() else {
            return missing(NEEDS_VM);
        };
        let l = &vm.limits;
        let num = |x: Option<f64>, factor: f64, what: &str, key: &str| -> OrMissing<Value> {
            match x {
                Some(x) if x.is_finite() => Ok(Value::Num(x * factor)),
                _ if !l.in_catalog => missing(format!(
                    "VM size {} is not in advisor's catalog, so its {what} is unknown: add the \
                     size with --catalog FILE, or set {key} in the topology's [vm] section",
                    l.size
                )),
                _ => missing(format!(
                    "{} has no published {what}: set {key} in the topology's [vm] section",
                    l.size
                )),
            }
        };
        match f {
            VmField::Size => Ok(Value::Text(l.size.clone())),
            // The series' leading capitals: `Mms` -> `M`, `DSv2` -> `DS`.
            VmField::Family => {
                let fam: String = l.series.chars().take_while(char::is_ascii_uppercase).collect();
                if fam.is_empty() {
                    missing(format!("the family of {} is unknown", l.size))
                } else {
                    Ok(Value::Text(fam))
                }
            }
            VmField::CachedIops => num(l.cached_iops, 1.0, "cached IOPS limit", "cached_iops"),
            VmField::CachedMbps => {
                num(l.cached_mbps, AZURE_MB, "cached throughput limit", "cached_mbps")
            }
            VmField::UncachedIops => {
                num(l.uncached_iops, 1.0, "uncached IOPS limit", "uncached_iops")
            }
            VmField::UncachedMbps => {
                num(l.uncached_mbps, AZURE_MB, "uncached throughput limit", "uncached_mbps")
            }
            VmField::UncachedBurstIops => {
                num(l.uncached_burst_iops, 1.0, "uncached burst IOPS limit", "uncached_burst_iops")
            }
            VmField::UncachedBurstMbps => num(
                l.uncached_burst_mbps,
                AZURE_MB,
                "uncached burst throughput limit",
                "uncached_burst_mbps",
            ),
            VmField::UncachedV2Iops | VmField::UncachedV2BurstIops => {
                let (x, what) = if f == VmField::UncachedV2Iops {
                    (l.uncached_v2_iops, "IOPS")
                } else {
                    (l.uncached_v2_burst_iops, "burst IOPS")
                };
                v2(l, x, 1.0, what)
            }
            VmField::UncachedV2Mbps | VmField::UncachedV2BurstMbps => {
                let (x, what) = if f == VmField::UncachedV2Mbps {
                    (l.uncached_v2_mbps, "throughput")
                } else {
                    (l.uncached_v2_burst_mbps, "burst throughput")
                };
                v2(l, x, AZURE_MB, what)
            }
            VmField::Controller => match l.controller {
                Some(c) => Ok(Value::Text(c.name().to_owned())),
                None => missing(format!(
                    "the disk controller of {} is not known: set controller = \"scsi\" or \"nvme\" on the disks in --topology",
                    l.size
                )),
            },
            VmField::UncachedBasis => Ok(Value::Text(l.uncached_basis.clone())),
            VmField::Status => Ok(Value::Text(l.status.clone())),
            VmField::TempIops => temp(l, l.temp_iops, 1.0, "read IOPS"),
            VmField::TempMbps => temp(l, l.temp_mbps, AZURE_MB, "read throughput"),
            VmField::TempWriteIops => temp(l, l.temp_write_iops, 1.0, "write IOPS"),
            VmField::TempWriteMbps => temp(l, l.temp_write_mbps, AZURE_MB, "write throughput"),
            VmField::LocalNvmeIops => local_nvme(l, l.local_nvme_iops, 1.0, "IOPS"),
            VmField::LocalNvmeMbps => local_nvme(l, l.local_nvme_mbps, AZURE_MB, "throughput"),
            VmField::CacheSize => num(l.cache_gib, GIB, "host cache size", "cache_gib"),
            VmField::TempSize => num(l.temp_gib, GIB, "temp disk size", "temp_gib"),
            VmField::MaxDataDisks => {
                num(l.max_data_disks.map(f64::from), 1.0, "data disk count", "max_data_disks")
            }
            VmField::Vcpu => num(l.vcpu.map(f64::from), 1.0, "vCPU count", "vcpu"),
            VmField::Memory => num(vm.memory_gib, GIB, "memory size", "memory_gib"),
            VmField::ProvisionedIops | VmField::ProvisionedMbps => {
                let (x, factor) = if f == VmField::ProvisionedIops {
                    (vm.provisioned_iops, 1.0)
                } else {
                    (vm.provisioned_mbps, AZURE_MB)
                };
                match x {
                    Some(x) => Ok(Value::Num(x * factor)),
                    None if self.facts.disks.iter().all(|d| d.temp) => missing(NO_DISKS),
                    None => missing(
                        "no disk's caps are known: give each disk's sku (or iops and mbps) in --topology",
                    ),
                }
            }
            VmField::TempDisk => Ok(Value::Element(self.temp_disk()?)),
            VmField::Generation => Ok(Value::Num(f64::from(generation(&l.size)))),
        }
    }

    pub(super) fn field(&self, e: Element, f: Field) -> OrMissing<Value> {
        let c = self.facts;
        match (e, f) {
            (Element::Disk(i), Field::Disk(f)) => {
                let Some(d) = c.disks.get(i) else { return missing("internal: disk") };
                let l = &d.limits;
                let what = self.label(e);
                let need =
                    |x: Option<f64>, factor: f64, desc: &str, how: &str| -> OrMissing<Value> {
                        match x {
                            Some(x) if x.is_finite() => Ok(Value::Num(x * factor)),
                            _ => missing(format!(
                                "the {desc} of {what} is unknown: {how} in --topology"
                            )),
                        }
                    };
                const CAPS: &str = "give its sku (or iops and mbps)";
                match f {
                    DiskField::Name => Ok(Value::Text(l.name.clone())),
                    DiskField::Sku => match &l.sku {
                        Some(s) => Ok(Value::Text(s.clone())),
                        None => missing(format!(
                            "the SKU of {what} is unknown: give its sku in --topology"
                        )),
                    },
                    DiskField::Tier => match &d.tier {
                        Some(s) => Ok(Value::Text(s.clone())),
                        None => missing(format!(
                            "the tier of {what} is unknown: give its sku in --topology"
                        )),
                    },
                    DiskField::Cache => Ok(Value::Cache(cache_mode(l.cache))),
                    DiskField::CacheSetting => Ok(Value::Cache(cache_mode(l.cache_setting))),
                    DiskField::CanCache => match l.can_cache {
                        Some(b) => Ok(Value::Bool(b)),
                        None if l.kind.is_none() => missing(format!(
                            "whether {what} can use host caching is unknown: give its sku in --topology"
                        )),
                        None => missing(format!(
                            "whether {what} can use host caching depends on the VM size: {NEEDS_VM}"
                        )),
                    },
                    DiskField::WriteAccelerator => match l.write_accelerator {
                        Some(b) => Ok(Value::Bool(b)),
                        None => missing(format!(
                            "whether Write Accelerator is on for {what} is unknown: set write_accelerator = true or false in its [[disk]] in --topology"
                        )),
                    },
                    DiskField::Role => Ok(Value::Role(role(l.role))),
                    DiskField::Size => need(l.size_gib, GIB, "size", "give its sku"),
                    DiskField::IopsCap => need(l.iops, 1.0, "IOPS cap", CAPS),
                    DiskField::MbpsCap => need(l.mbps, AZURE_MB, "throughput cap", CAPS),
                    DiskField::BurstIops => need(
                        l.burst_iops,
                        1.0,
                        "burst IOPS cap",
                        "give a SKU that bursts (and bursting = true for on-demand)",
                    ),
                    DiskField::BurstMbps => need(
                        l.burst_mbps,
                        AZURE_MB,
                        "burst throughput cap",
                        "give a SKU that bursts (and bursting = true for on-demand)",
                    ),
                    DiskField::BurstModel => Ok(Value::Text(
                        match l.burst {
                            limits::BurstModel::Credit => "credit",
                            limits::BurstModel::OnDemand => "on-demand",
                            limits::BurstModel::None => "none",
                        }
                        .to_owned(),
                    )),
                    DiskField::LatencyNorm => match (d.temp, l.kind) {
                        (true, _) => Ok(Value::Num(limits::TEMP_DISK_LATENCY_NORM_MS / 1000.0)),
                        (false, Some(k)) => Ok(Value::Num(k.latency_norm_ms() / 1000.0)),
                        (false, None) => missing(format!(
                            "the disk type of {what} is unknown: give its sku in --topology"
                        )),
                    },
                    DiskField::IsStandard => match l.kind {
                        Some(_) => Ok(Value::Bool(l.is_standard())),
                        None => missing(format!(
                            "the disk type of {what} is unknown: give its sku in --topology"
                        )),
                    },
                    DiskField::InPool => Ok(Value::Bool(l.pool.is_some())),
                    DiskField::DataFiles
                    | DiskField::LogFiles
                    | DiskField::TempdbFiles
                    | DiskField::Files => self.disk_files(i, f),
                    DiskField::VmUncachedIops
                    | DiskField::VmUncachedMbps
                    | DiskField::VmUncachedBurstIops
                    | DiskField::VmUncachedBurstMbps
                    | DiskField::VmUncachedBasis => {
                        let Some(u) = &l.vm_uncached else { return missing(NEEDS_VM) };
                        let (x, factor, desc) = match f {
                            DiskField::VmUncachedIops => (u.iops, 1.0, "uncached IOPS limit"),
                            DiskField::VmUncachedMbps => {
                                (u.mbps, AZURE_MB, "uncached throughput limit")
                            }
                            DiskField::VmUncachedBurstIops => {
                                (u.burst_iops, 1.0, "uncached burst IOPS limit")
                            }
                            DiskField::VmUncachedBurstMbps => {
                                (u.burst_mbps, AZURE_MB, "uncached burst throughput limit")
                            }
                            _ => return Ok(Value::Text(u.basis.clone())),
                        };
                        match x {
                            Some(x) if x.is_finite() => Ok(Value::Num(x * factor)),
                            _ => missing(format!(
                                "the VM's {desc} for {what} is not published ({})",
                                u.basis
                            )),
                        }
                    }
                }
            }
            (Element::Pool(i), Field::Pool(f)) => {
                let Some(p) = c.pools.get(i) else { return missing("internal: pool") };
                let l = &p.limits;
                let what = self.label(e);
                let caps = |x: Option<f64>, factor: f64| -> OrMissing<Value> {
                    match x {
                        Some(x) if l.unknown_members.is_empty() => Ok(Value::Num(x * factor)),
                        _ => missing(format!(
                            "the caps of {what}'s members {} are unknown: describe each member disk with its sku in --topology",
                            l.unknown_members.join(", ")
                        )),
                    }
                };
                match f {
                    PoolField::Name => Ok(Value::Text(l.name.clone())),
                    PoolField::Disks => Ok(Value::Num(l.members.len() as f64)),
                    PoolField::Columns => match l.columns {
                        Some(n) => Ok(Value::Num(f64::from(n))),
                        None => missing(format!(
                            "the column count of {what} is unknown: set columns in its [[pool]]"
                        )),
                    },
                    PoolField::Interleave => match l.interleave_kib {
                        Some(n) => Ok(Value::Num(f64::from(n) * 1024.0)),
                        None => missing(format!(
                            "the interleave of {what} is unknown: set interleave_kib in its [[pool]]"
                        )),
                    },
                    PoolField::IopsCap => caps(l.sum_iops, 1.0),
                    PoolField::MbpsCap => caps(l.sum_mbps, AZURE_MB),
                }
            }
            (Element::Bench(i), Field::Bench(BenchField::HostCache)) => {
                let Some(b) = c.benches.get(i) else { return missing("internal: bench") };
                // The topology disk whose capture targets include the run's target (a
                // DiskSpd file under `E:\`, fio's filename `/dev/sdc`).
                // A striped volume (`F:` over its members) goes through its members' caches:
                // the first cached member's, else None.
                let pool_cache = || {
                    let p = c.pools.iter().find(|p| p.targets.contains(&b.target))?;
                    let caches = p.members.iter().filter_map(|m| c.disks.get(*m));
                    Some(
                        caches
                            .map(|d| d.limits.cache)
                            .find(|x| x.is_cached())
                            .unwrap_or(limits::Cache::None),
                    )
                };
                let disk_cache =
                    c.disks.iter().find(|d| d.targets.contains(&b.target)).map(|d| d.limits.cache);
                match disk_cache.or_else(pool_cache) {
                    Some(cache) => Ok(Value::Cache(cache_mode(cache))),
                    None => missing(format!(
                        "the disk {} ran on is not in the topology: name its disk or pool in --topology as the benchmark does (DiskSpd E:\\..., fio filename /dev/sdc)",
                        self.label(e)
                    )),
                }
            }
            (Element::Bench(i), Field::Bench(f)) => {
                let Some(b) = c.benches.get(i) else { return missing("internal: bench") };
                bench_field(b, f, &self.label(e))
            }
            (
                Element::Target(i),
                Field::Target(
                    f @ (TargetField::Tier | TargetField::LatencyNorm | TargetField::Local),
                ),
            ) => {
                let Some(t) = c.targets.get(i) else { return missing("internal: target") };
                self.target_disk(t.id, f, &self.label(e))
            }
            (
                Element::Target(i),
                Field::Target(
                    f @ (TargetField::Disks | TargetField::MbpsCap | TargetField::IopsCap),
                ),
            ) => {
                let Some(t) = c.targets.get(i) else { return missing("internal: target") };
                self.target_topology(t.id, f, &self.label(e))
            }
            (Element::Target(i), Field::Target(TargetField::Budget)) => {
                let Some(t) = c.targets.get(i) else { return missing("internal: target") };
                match platform_budget(t) {
                    Some(b) => Ok(Value::Text(b.to_owned())),
                    None => missing(format!("{} is not an Azure Monitor budget", t.name)),
                }
            }
            (Element::File(i), Field::File(f)) => {
                let Some(x) = c.files.get(i) else { return missing("internal: file") };
                file_field(x, f)
            }
            (Element::Target(i), Field::Target(f)) => {
                let Some(t) = c.targets.get(i) else { return missing("internal: target") };
                Ok(Value::Text(match f {
                    TargetField::Name => t.name.clone(),
                    TargetField::Disks
                    | TargetField::MbpsCap
                    | TargetField::IopsCap
                    | TargetField::Budget
                    | TargetField::Tier
                    | TargetField::LatencyNorm
                    | TargetField::Local => String::new(),
                    TargetField::Kind => t.kind.as_str().to_owned(),
                }))
            }
            _ => missing("internal: a field of another kind of element"),
        }
    }

    /// `target.tier`, `target.latency_norm` and `target.local`: the topology disk (or the
    /// temp disk) a capture target stands for; a pool's volume is its first member's tier.
    pub(super) fn target_disk(&self, id: TargetId, f: TargetField, what: &str) -> OrMissing<Value> {
        let c = self.facts;
        let disk = c.disks.iter().find(|d| d.targets.contains(&id)).or_else(|| {
            let p = c.pools.iter().find(|p| p.targets.contains(&id))?;
            p.members.first().and_then(|m| c.disks.get(*m))
        });
        let Some(d) = disk else {
            return missing(format!(
                "{what} matches no topology disk: name it in --topology as the capture does"
            ));
        };
        match f {
            TargetField::Local => Ok(Value::Bool(d.temp)),
            TargetField::Tier if d.temp => Ok(Value::Text("temp disk".to_owned())),
            TargetField::Tier => match &d.tier {
                Some(t) => Ok(Value::Text(t.clone())),
                None => missing(format!(
                    "the tier of the disk behind {what} is unknown: give its sku in --topology"
                )),
            },
            _ if d.temp => Ok(Value::Num(limits::TEMP_DISK_LATENCY_NORM_MS / 1000.0)),
            _ => match d.limits.kind {
                Some(k) => Ok(Value::Num(k.latency_norm_ms() / 1000.0)),
                None => missing(format!(
                    "the tier of the disk behind {what} is unknown: give its sku in --topology"
                )),
            },
        }
    }

    /// `target.disks` and `target.mbps_cap`: the topology disks a capture target stands
    /// for (a pool's members when it is the pool's volume, else the one disk it matches).
    pub(super) fn target_topology(
        &self,
        id: TargetId,
        f: TargetField,
        what: &str,
    ) -> OrMissing<Value> {
        let c = self.facts;
        let (n, mbps, iops) = if let Some(p) = c.pools.iter().find(|p| p.targets.contains(&id)) {
            let known = p.limits.unknown_members.is_empty();
            (
                p.members.len(),
                p.limits.sum_mbps.filter(|_| known),
                p.limits.sum_iops.filter(|_| known),
            )
        } else if let Some(d) = c.disks.iter().find(|d| !d.temp && d.targets.contains(&id)) {
            (1, d.limits.mbps, d.limits.iops)
        } else {
            return missing(format!(
                "{what} matches no topology disk or pool: name it in --topology as the capture does"
            ));
        };
        match f {
            TargetField::Disks => Ok(Value::Num(n as f64)),
            TargetField::IopsCap => match iops {
                Some(x) => Ok(Value::Num(x)),
                None => missing(format!(
                    "the IOPS cap behind {what} is unknown: give the disks' sku in --topology"
                )),
            },
            _ => match mbps {
                Some(m) => Ok(Value::Num(m * AZURE_MB)),
                None => missing(format!(
                    "the MB/s cap behind {what} is unknown: give the disks' sku in --topology"
                )),
            },
        }
    }
}

impl Evaluation<'_> {
    /// `disk.data_files`, `log_files`, `tempdb_files` and `files`: the database files of
    /// SQL Server's file statistics that sit on disk `i`. Data and log files count those of
    /// user databases (master, model and msdb stay where setup put them, with little IO).
    fn disk_files(&self, i: usize, f: DiskField) -> OrMissing<Value> {
        let c = self.facts;
        if c.files.is_empty() {
            return missing(NO_FILES);
        }
        let on: Vec<&FileInfo> = c.files.iter().filter(|x| x.disk == Some(i)).collect();
        let count = |p: &dyn Fn(&FileInfo) -> bool| {
            Ok(Value::Num(on.iter().filter(|x| p(x)).count() as f64))
        };
        let user = |x: &FileInfo| !x.file.is_system() && !x.file.is_tempdb();
        match f {
            DiskField::DataFiles => {
                count(&|x| user(x) && x.file.kind == advisor_model::DbFileKind::Rows)
            }
            DiskField::LogFiles => {
                count(&|x| user(x) && x.file.kind == advisor_model::DbFileKind::Log)
            }
            DiskField::TempdbFiles => count(&|x| x.file.is_tempdb()),
            _ => Ok(Value::Text(file_list(&on))),
        }
    }
}

/// The files on a disk for evidence: `sales_log.ldf (sales, log)`, `tempdb.mdf (tempdb,
/// data)`, the first five by role (logs, tempdb, data, other), then how many more.
fn file_list(files: &[&FileInfo]) -> String {
    if files.is_empty() {
        return "none".to_owned();
    }
    let mut v: Vec<&FileInfo> = files.to_vec();
    let rank = |x: &FileInfo| match x.file.role() {
        limits::Role::Log => 0,
        limits::Role::Tempdb => 1,
        limits::Role::Data => 2,
        _ => 3,
    };
    v.sort_by_key(|x| (rank(x), x.name.to_lowercase()));
    let shown: Vec<String> = v
        .iter()
        .take(5)
        .map(|x| {
            let base = x.name.rsplit(['\\', '/']).next().unwrap_or(&x.name);
            let kind = match x.file.kind {
                advisor_model::DbFileKind::Rows => "data",
                advisor_model::DbFileKind::Log => "log",
                advisor_model::DbFileKind::Filestream => "FILESTREAM",
                advisor_model::DbFileKind::Fulltext => "full-text",
                advisor_model::DbFileKind::Unknown => "type unknown",
            };
            format!("{base} ({}, {kind})", x.file.database_label())
        })
        .collect();
    let more = v.len().saturating_sub(5);
    if more > 0 { format!("{} and {more} more", shown.join(", ")) } else { shown.join(", ") }
}

/// The version a size's name ends in: 6 for `Standard_D8ds_v6`, 1 without `_vN`.
pub(super) fn generation(size: &str) -> u32 {
    size.rsplit_once("_v").and_then(|(_, v)| v.parse::<u32>().ok()).filter(|v| *v > 0).unwrap_or(1)
}

fn file_field(x: &FileInfo, f: FileField) -> OrMissing<Value> {
    let file = &x.file;
    Ok(match f {
        FileField::Name => Value::Text(x.name.clone()),
        FileField::Database => Value::Text(file.database_label()),
        FileField::Role => Value::Role(role(file.role())),
        FileField::Type => match file.kind {
            advisor_model::DbFileKind::Unknown => {
                return missing(format!(
                    "the type of {} is unknown: keep sys.master_files' type_desc in the query",
                    x.name
                ));
            }
            k => Value::Text(k.name().to_owned()),
        },
        FileField::System => Value::Bool(file.is_system()),
        FileField::SinceStart => Value::Bool(file.since_start),
        FileField::Drive => match &x.drive {
            Some(d) => Value::Text(d.clone()),
            None => {
                return missing(format!("the path of {} names no drive or mount", x.name));
            }
        },
    })
}

fn role(r: limits::Role) -> Role {
    match r {
        limits::Role::Os => Role::Os,
        limits::Role::Data => Role::Data,
        limits::Role::Log => Role::Log,
        limits::Role::Tempdb => Role::Tempdb,
        limits::Role::Temp => Role::Temp,
        limits::Role::Other => Role::Other,
    }
}

fn cache_mode(c: limits::Cache) -> CacheMode {
    match c {
        limits::Cache::None => CacheMode::None,
        limits::Cache::ReadOnly => CacheMode::ReadOnly,
        limits::Cache::ReadWrite => CacheMode::ReadWrite,
    }
}

fn bench_field(b: &BenchInfo, f: BenchField, label: &str) -> OrMissing<Value> {
    let s = &b.settings;
    let need = |x: Option<f64>, what: &str| -> OrMissing<Value> {
        match x {
            Some(x) if x.is_finite() => Ok(Value::Num(x)),
            _ => missing(format!("the benchmark output for {label} does not state its {what}")),
        }
    };
    let flag = |x: Option<bool>, what: &str| -> OrMissing<Value> {
        match x {
            Some(x) => Ok(Value::Bool(x)),
            None => missing(format!("the benchmark output for {label} does not state {what}")),
        }
    };
    match f {
        BenchField::Tool => Ok(Value::Text(s.tool.clone())),
        BenchField::Engine => match &s.engine {
            Some(e) => Ok(Value::Text(e.clone())),
            None => {
                missing(format!("the benchmark output for {label} does not state its IO engine"))
            }
        },
        BenchField::BlockSize => need(s.block_size_kib.map(|k| k * 1024.0), "block size"),
        BenchField::QueueDepth => need(s.queue_depth_per_thread.map(f64::from), "queue depth"),
        BenchField::Threads => need(s.threads.map(f64::from), "thread count"),
        BenchField::Outstanding => need(
            match (s.queue_depth_per_thread, s.threads) {
                (Some(q), Some(t)) => Some(f64::from(q) * f64::from(t)),
                _ => None,
            },
            "queue depth and thread count",
        ),
        BenchField::WriteRatio => need(s.write_pct.map(|p| p / 100.0), "write share"),
        BenchField::Random => flag(s.random, "whether IO was random"),
        BenchField::OsCache => {
            flag(s.os_cache_disabled.map(|d| !d), "whether the OS cache was bypassed")
        }
        BenchField::WriteThrough => flag(s.write_through, "whether writes went through"),
        // No `fsync=N` in the output means no explicit syncs.
        BenchField::SyncEvery => Ok(Value::Num(s.sync_every.map_or(0.0, f64::from))),
        BenchField::FileSize => need(s.file_size_bytes.map(|b| b as f64), "file size"),
        BenchField::Duration => need(s.duration_s, "duration"),
        // fio's ramp_time defaults to 0: a fio run that states none had no warm-up.
        BenchField::Warmup => {
            need(s.warmup_s.or(s.tool.eq_ignore_ascii_case("fio").then_some(0.0)), "warm-up")
        }
        // Answered by the caller, which knows the topology's disks.
        BenchField::HostCache => missing("internal: bench.host_cache"),
        BenchField::Name => Ok(Value::Text(b.name.clone())),
        BenchField::SteadyState => {
            flag(s.steady_state, "whether it reached a steady state (fio's steadystate option)")
        }
        BenchField::RateLimited => flag(s.rate_limited, "whether it held itself to a rate"),
    }
}

/// The budget a platform target meters, from the name the Azure Monitor reader gives it
/// (`VM cached`, `VM uncached`, `VM disks`, else a disk; scale sets prefix `NAME: `).
fn platform_budget(t: &super::TargetInfo) -> Option<&'static str> {
    if t.kind != TargetKind::Platform {
        return None;
    }
    let base = t.name.rsplit(": ").next().unwrap_or(&t.name);
    Some(match base {
        "VM cached" => "vm cached",
        "VM uncached" => "vm uncached",
        "VM disks" => "vm disks",
        _ => "disk",
    })
}
