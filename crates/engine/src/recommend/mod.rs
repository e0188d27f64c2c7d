//! `advisor recommend`: the VM size and the disks that carry the workload the captures
//! show, each choice with the demand figure, the cap that decides it and the margin.
//!
//! Demand is a percentile of each disk's IOPS and MB/s (Azure Migrate sizes the same way:
//! a percentile of observed use times a comfort factor), split by the host caching the
//! rules approve into the VM's cached budget (host-cached disks and the temp disk) and its
//! uncached budget (uncached disks, and the writes of cached disks).

mod confidence;
mod demand;
mod disks;
pub mod prices;
mod vm;

use advisor_model::limits::{Cache, DiskKind, Role};
use advisor_model::{
    Configuration, ConfiguredDisk, CostBasis, Demand, DemandBasis, DiskAdvice, Figure, Metric,
    RECOMMEND_SCHEMA, Recommendation, ToolInfo,
};
use advisor_normalize::{Capture, TargetStats, metric_stats};
use advisor_rules::eval::DiskInfo;
use advisor_topology::{Catalog, Topology, fmt_num};

use demand::{Sum, figure, median_of, series, total_of};
use disks::Need;
pub use prices::{HOURS_PER_MONTH, PriceError, PriceList};

/// What a recommendation is asked for.
#[derive(Debug, Clone)]
pub struct RecommendOptions {
    /// Percentile of samples (or per-interval peaks) taken as demand: 95 by default.
    pub percentile: f64,
    /// Factor demand is multiplied by: 1.2 by default.
    pub headroom: f64,
    /// With samples finer than this (seconds), each interval's peak is one value.
    pub interval_s: Option<f64>,
    /// Series to consider after the current one (`Edsv5`, `Ev5`).
    pub families: Vec<String>,
    /// Accept sizes with fewer vCPUs or less memory than today's.
    pub any_vcpu_memory: bool,
    pub prices: Option<PriceList>,
}

impl Default for RecommendOptions {
    fn default() -> Self {
        Self {
            percentile: 95.0,
            headroom: 1.2,
            interval_s: None,
            families: Vec::new(),
            any_vcpu_memory: false,
            prices: None,
        }
    }
}

/// `--percentile`: a number above 0 and at most 100 (a trailing `%` allowed).
pub fn parse_percentile(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok(p),
        _ => Err(format!("`{s}`: a percentile is a number above 0 and at most 100 (95, 99)")),
    }
}

/// `--headroom`: a factor from 1 to 10.
pub fn parse_headroom(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(h) if (1.0..=10.0).contains(&h) => Ok(h),
        _ => Err(format!("`{s}`: headroom is a factor from 1 to 10 (1.2 = 20% spare)")),
    }
}

/// `--interval`: seconds above 0 (a trailing `s` allowed).
pub fn parse_interval(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('s').parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!("`{s}`: an interval is a number of seconds above 0")),
    }
}

impl RecommendOptions {
    /// Whether the options are ones the command line would take: the percentile, headroom
    /// and interval in their ranges (as [`parse_percentile`], [`parse_headroom`] and
    /// [`parse_interval`] check them), and every `--family` a series of `catalog`. For
    /// front ends that take numbers rather than text (the Python package, the MCP tools).
    pub fn check(&self, catalog: &Catalog) -> Result<(), String> {
        parse_percentile(&self.percentile.to_string())?;
        parse_headroom(&self.headroom.to_string())?;
        if let Some(i) = self.interval_s {
            parse_interval(&i.to_string())?;
        }
        for f in &self.families {
            if !catalog.vm_sizes().iter().any(|v| v.in_series(f)) {
                return Err(format!(
                    "--family {f}: no such series in the catalog (see `advisor catalog list`)"
                ));
            }
        }
        Ok(())
    }
}

/// Read share (of IOs) at or above which a data disk counts as read-heavy, and the median
/// read size above which its reads are scans: the `read-heavy-disk-uncached` rule's
/// defaults (`rules/cache/read-heavy-disk-uncached.rule`).
const READ_HEAVY_PCT: f64 = 70.0;
const MAX_CACHED_READ_KIB: f64 = 64.0;
/// Write share at or above which a disk counts as write-heavy (`write-heavy-disk-cached`).
const WRITE_HEAVY_PCT: f64 = 70.0;
/// A disk is latency-bound when it mostly writes, small, with at most this many IOs
/// outstanding, each taking at least `LATENCY_FLOOR_MS`: then IOPS = QD / latency and a
/// bigger IOPS cap changes nothing (domain notes: synchronous IO is bound by latency).
const SYNC_MAX_QD: f64 = 2.0;
const LATENCY_FLOOR_MS: f64 = 1.0;
const SYNC_MAX_KIB: f64 = 64.0;
/// A write latency this high is not a disk's own service time (Premium SSD is about 2 ms,
/// Standard SSD single-digit ms: domain notes) but queueing behind a cap.
const THROTTLED_MS: f64 = 10.0;
/// Disks of this size or more cannot use host caching.
const HOST_CACHE_MAX_GIB: f64 = 4096.0;

/// One disk's measurements, before the choice.
struct Measured {
    info: DiskInfo,
    target: Option<String>,
    total: Option<Demand>,
    /// The capture target whose series are this disk's (they are read again when the disk
    /// is counted in a budget, not kept).
    id: Option<advisor_rules::eval::TargetId>,
    read_pct: Option<f64>,
    read_kib: Option<f64>,
    write_kib: Option<f64>,
    write_latency_ms: Option<f64>,
    queue_depth: Option<f64>,
}

fn measure(
    captures: &[Capture],
    stats: &[Vec<TargetStats>],
    names: &[(advisor_rules::eval::TargetId, String)],
    d: &DiskInfo,
    o: &RecommendOptions,
) -> Measured {
    let id = d.targets.first().copied();
    let get = |m: Metric| id.map(|id| series(captures, id, m)).unwrap_or_default();
    // The analysis' summary of a metric of the disk's target, when it took one.
    let known = |m: Metric| id.and_then(|id| metric_stats(stats.get(id.capture)?, id.target, m));
    // A median needs the values alone, in any order: no time stamps to pair them with.
    let mid = |m: Metric| {
        let c = id.and_then(|id| captures.get(id.capture).map(|c| (c, id.target)));
        let own = || c.and_then(|(c, t)| median_of(c.values(t, m)));
        match known(m) {
            Some(s) => {
                debug_assert_eq!(own().map(f64::to_bits), Some(s.p50.to_bits()), "{m:?}");
                Some(s.p50)
            }
            None => own(),
        }
    };
    // A demand figure of all samples, from the summary when it took that percentile (the
    // series' values are the column's scaled, an order-keeping product, so its rank and
    // peak are the summary's scaled).
    let demand = |m: Metric| {
        let from_stats =
            (o.interval_s.is_none_or(|iv| iv <= 0.0)).then(|| known(m)).flatten().and_then(|s| {
                let scale = if m == Metric::Mbps { demand::MB_PER_MIB } else { 1.0 };
                let rank = s.rank(o.percentile)?;
                let (observed, peak) = (rank * scale, s.max * scale);
                (peak.is_finite() && (s.min * scale).is_finite()).then_some(Figure {
                    observed,
                    peak,
                    needed: observed * o.headroom,
                })
            });
        match from_stats {
            Some(f) => {
                debug_assert_eq!(
                    figure(&get(m), o.percentile, o.headroom, o.interval_s),
                    Some(f),
                    "{m:?}"
                );
                Some(f)
            }
            None => figure(&get(m), o.percentile, o.headroom, o.interval_s),
        }
    };
    let total_demand = match (demand(Metric::Iops), demand(Metric::Mbps)) {
        (Some(iops), Some(mbps)) => Some(Demand { iops, mbps }),
        _ => None,
    };
    let total = |m: Metric| id.map_or(0.0, |id| total_of(captures, id, m));
    let (r, w) = (total(Metric::ReadIops), total(Metric::WriteIops));
    Measured {
        info: d.clone(),
        target: id.and_then(|id| names.iter().find(|(t, _)| *t == id).map(|(_, n)| n.clone())),
        total: total_demand,
        read_pct: (r + w > 0.0).then(|| r / (r + w) * 100.0),
        read_kib: mid(Metric::ReadIoKib),
        write_kib: mid(Metric::WriteIoKib),
        write_latency_ms: mid(Metric::WriteLatencyMs),
        queue_depth: mid(Metric::QueueDepth),
        id,
    }
}

/// Whether a disk's IO is synchronous and small enough that latency limits it.
fn latency_bound(m: &Measured) -> Option<String> {
    let (lat, qd) = (m.write_latency_ms?, m.queue_depth?);
    let writes = 100.0 - m.read_pct?;
    let small = m.write_kib.is_none_or(|k| k <= SYNC_MAX_KIB);
    (writes >= WRITE_HEAVY_PCT && small && qd <= SYNC_MAX_QD && lat >= LATENCY_FLOOR_MS).then(
        || {
            let elsewhere = if lat >= THROTTLED_MS {
                format!(
                    "; {lat:.0} ms is far above any managed disk's own service time, so a cap \
                 (the VM's, or the disk's) adds to it: advisor analyze says which"
                )
            } else {
                String::new()
            };
            format!(
                "{:.0}% writes{} at a median queue depth of {:.1} and {:.2} ms: synchronous IO, \
             at most {} IOPS per outstanding IO whatever the cap; a lower-latency disk \
             (Premium SSD v2, Ultra Disk: about 0.3-0.5 ms) is what raises it{}",
                writes,
                m.write_kib.map(|k| format!(" of {} KiB", fmt_num(k.round()))).unwrap_or_default(),
                qd,
                lat,
                fmt_num((1000.0 / lat).floor()),
                elsewhere,
            )
        },
    )
}

/// The host caching the rules approve for a disk, and why.
fn cache_for(m: &Measured, kind: Option<DiskKind>) -> (Cache, String) {
    let l = &m.info.limits;
    if kind.is_some_and(|k| !k.supports_host_cache()) {
        return (
            Cache::None,
            format!("{} has no host caching", kind.map(DiskKind::label).unwrap_or_default()),
        );
    }
    if l.size_gib.is_some_and(|g| g >= HOST_CACHE_MAX_GIB) {
        return (Cache::None, "disks of 4 TiB or more have no host caching".to_owned());
    }
    if l.can_cache == Some(false) {
        return (Cache::None, "this VM size cannot host-cache this disk".to_owned());
    }
    match l.role {
        Role::Os => {
            return (
                l.cache_setting,
                format!("the OS disk keeps its setting ({})", l.cache_setting),
            );
        }
        Role::Log => {
            return (
                Cache::None,
                "a log disk writes synchronously: host caching only adds to each commit and \
                 spends the cached budget (rule log-disk-host-cache)"
                    .to_owned(),
            );
        }
        _ => {}
    }
    let Some(read_pct) = m.read_pct else {
        return (l.cache_setting, "no IO measured: the setting is kept".to_owned());
    };
    if 100.0 - read_pct >= WRITE_HEAVY_PCT {
        return (
            Cache::None,
            format!(
                "{:.0}% of its IOs are writes: they go to the disk whatever the cache and count \
                 against both budgets (rule write-heavy-disk-cached)",
                100.0 - read_pct
            ),
        );
    }
    if read_pct >= READ_HEAVY_PCT && m.read_kib.is_none_or(|k| k <= MAX_CACHED_READ_KIB) {
        return (
            Cache::ReadOnly,
            format!(
                "{read_pct:.0}% of its IOs are reads{}: ReadOnly serves repeats from the host \
                 cache (rule read-heavy-disk-uncached)",
                m.read_kib
                    .map(|k| format!(", median {} KiB", fmt_num(k.round())))
                    .unwrap_or_default()
            ),
        );
    }
    if l.cache_setting == Cache::ReadWrite {
        return (
            Cache::None,
            "ReadWrite on a data disk risks losing writes the application thinks are stored \
             (rule readwrite-cache-data-disk)"
                .to_owned(),
        );
    }
    (
        l.cache_setting,
        format!(
            "a mixed workload ({read_pct:.0}% reads): the setting ({}) is kept",
            l.cache_setting
        ),
    )
}

fn tier_rank(kind: &str) -> usize {
    disks::TIER_ORDER.iter().position(|k| k.label() == kind).unwrap_or(usize::MAX)
}

/// Builds the recommendation from captures already read and the topology.
pub(crate) fn recommend(
    captures: &[Capture],
    topology: Option<&Topology>,
    catalog: &Catalog,
    o: &RecommendOptions,
) -> Recommendation {
    recommend_known(captures, &[], topology, catalog, o)
}

/// [`recommend`], with the captures' summaries when an analysis took them already (the
/// busy test reads its p95 IOPS there).
pub(crate) fn recommend_known(
    captures: &[Capture],
    stats: &[Vec<TargetStats>],
    topology: Option<&Topology>,
    catalog: &Catalog,
    o: &RecommendOptions,
) -> Recommendation {
    let bound = crate::bind::bind_known(captures, topology, crate::BUSY_IOPS, stats, None);
    let names: Vec<_> = bound.facts.targets.iter().map(|t| (t.id, t.name.clone())).collect();
    let vm_info = bound.facts.vm.clone();
    let mut notes = Vec::new();
    if topology.is_none() {
        notes.push(
            "No topology: the disks are not known, so nothing can be sized; pass --topology (or \
             --vm SIZE for the VM alone)"
                .to_owned(),
        );
    }
    let premium_vm = vm_info.as_ref().is_none_or(|v| v.limits.premium_storage);
    // Disk by disk on every core: each is a few selections in a day of samples.
    let disks = &bound.facts.disks;
    let measured: Vec<Measured> = advisor_model::par::map_indexed(disks.len(), 8, |i| {
        measure(captures, stats, &names, &disks[i], o)
    });

    let mut advice = Vec::new();
    // What counts against the VM's two budgets, disk by disk: (disk, IOPS, MB/s).
    let mut cached: Vec<(usize, Metric, Metric)> = Vec::new();
    let mut uncached: Vec<(usize, Metric, Metric)> = Vec::new();
    let mut data_disks = 0u32;
    for (mi, m) in measured.iter().enumerate() {
        let l = &m.info.limits;
        let mut why = Vec::new();
        if let Some(d) = &m.total {
            why.push(format!(
                "demand: p{} {} IOPS and {} MB/s (peak {} IOPS, {} MB/s), x{} headroom = {} IOPS and {} MB/s",
                fmt_num(o.percentile),
                fmt_num(d.iops.observed.round()),
                fmt_num(d.mbps.observed.round()),
                fmt_num(d.iops.peak.round()),
                fmt_num(d.mbps.peak.round()),
                fmt_num(o.headroom),
                fmt_num(d.iops.needed.ceil()),
                fmt_num(d.mbps.needed.ceil()),
            ));
        } else {
            why.push("no capture target matched this disk: its demand is unknown".to_owned());
        }
        if m.info.temp {
            why.push(
                "the temp disk is part of the VM size: its IO counts against the cached budget"
                    .to_owned(),
            );
            cached.push((mi, Metric::Iops, Metric::Mbps));
            advice.push(DiskAdvice {
                name: l.name.clone(),
                role: l.role.name().to_owned(),
                target: m.target.clone(),
                current_sku: None,
                current_cache: "n/a".to_owned(),
                size_gib: None,
                demand: m.total,
                read_pct: m.read_pct,
                write_latency_ms: m.write_latency_ms,
                queue_depth: m.queue_depth,
                latency_bound: false,
                cache: "n/a".to_owned(),
                cache_why: "the temp disk always counts in the cached budget".to_owned(),
                options: Vec::new(),
                chosen: None,
                why,
            });
            continue;
        }
        let lat = latency_bound(m);
        if let Some(l) = &lat {
            why.push(format!("latency-bound: {l}"));
        }
        let need = Need::of(m.total.as_ref(), l.size_gib);
        let mut opts = disks::options(catalog, need, l.role, lat.is_some(), premium_vm, l.kind);
        if o.prices.is_none() {
            // Without prices: the capacity each type must be bought at (a lower tier that
            // has to grow to 16 TiB for its IOPS is no bargain), then the tier.
            opts.sort_by(|a, b| {
                (a.size_gib * f64::from(a.count))
                    .total_cmp(&(b.size_gib * f64::from(b.count)))
                    .then_with(|| tier_rank(&a.kind).cmp(&tier_rank(&b.kind)))
            });
        }
        if let Some(p) = &o.prices {
            for op in &mut opts {
                op.monthly_cost = disks::price(p, op);
            }
            // Cheapest first; unpriced options after the priced ones, in tier order.
            opts.sort_by(|a, b| match (a.monthly_cost, b.monthly_cost) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            });
        }
        let chosen = if m.total.is_some() { opts.iter().find(|x| x.suitable) } else { None };
        let kind = chosen.and_then(|c| match c.kind.as_str() {
            "Premium SSD v2" => Some(DiskKind::PremiumSsdV2),
            "Ultra Disk" => Some(DiskKind::Ultra),
            "Standard SSD" => Some(DiskKind::StandardSsd),
            "Premium SSD" => Some(DiskKind::PremiumSsd),
            _ => None,
        });
        let (cache, cache_why) = cache_for(m, kind.or(l.kind));
        if let Some(c) = chosen {
            why.push(format!("chosen: {}", c.why));
            data_disks += if l.role == Role::Os { 0 } else { c.count };
        } else if m.total.is_some() {
            why.push("no disk type carries this demand, even striped".to_owned());
            data_disks += u32::from(l.role != Role::Os);
        } else {
            data_disks += u32::from(l.role != Role::Os);
        }
        why.push(format!("host caching {cache}: {cache_why}"));
        if cache.is_cached() {
            cached.push((mi, Metric::Iops, Metric::Mbps));
            uncached.push((mi, Metric::WriteIops, Metric::WriteMbps));
        } else {
            uncached.push((mi, Metric::Iops, Metric::Mbps));
        }
        advice.push(DiskAdvice {
            name: l.name.clone(),
            role: l.role.name().to_owned(),
            target: m.target.clone(),
            current_sku: l.sku.clone(),
            current_cache: l.cache_setting.name().to_owned(),
            size_gib: l.size_gib,
            demand: m.total,
            read_pct: m.read_pct,
            write_latency_ms: m.write_latency_ms,
            queue_depth: m.queue_depth,
            latency_bound: lat.is_some(),
            cache: cache.name().to_owned(),
            cache_why,
            chosen: chosen.map(|c| c.sku.clone()),
            options: opts,
            why,
        });
    }

    // The four budget series (cached and uncached, IOPS and MB/s), each summed in the
    // disks' order on a core of its own, a disk's series read when it is added.
    let parts = [(&cached, true), (&cached, false), (&uncached, true), (&uncached, false)];
    let mut sums = advisor_model::par::map_indexed(parts.len(), 4, |j| {
        let (disks, iops) = parts[j];
        let mut sum = Sum::default();
        for &(mi, a, b) in disks {
            let metric = if iops { a } else { b };
            match measured[mi].id {
                Some(id) => sum.add_of(captures, id, metric),
                None => sum.add(&Vec::new()),
            }
        }
        sum
    })
    .into_iter();
    let mut next = || sums.next().unwrap_or_default();
    let (cached, uncached) = ((next(), next()), (next(), next()));
    let budget = |(iops, mbps): (Sum, Sum)| -> Option<Demand> {
        if iops.is_empty() {
            return None;
        }
        let (iops, mbps) = (iops.into_series(), mbps.into_series());
        Some(Demand {
            iops: figure(&iops, o.percentile, o.headroom, o.interval_s)?,
            mbps: figure(&mbps, o.percentile, o.headroom, o.interval_s)?,
        })
    };
    let cached_demand = budget(cached);
    let uncached_demand = budget(uncached);
    let needs_premium = advice.iter().any(|a| {
        a.options.iter().any(|x| Some(&x.sku) == a.chosen.as_ref() && x.kind != "Standard SSD")
    });
    let vm = vm::advise(
        catalog,
        vm_info.as_ref(),
        vm::Budgets {
            cached: cached_demand,
            uncached: uncached_demand,
            data_disks,
            needs_premium,
            needs_host_cache: advice
                .iter()
                .any(|a| a.cache == "ReadOnly" || a.cache == "ReadWrite"),
        },
        o,
    );
    if cached_demand.is_some() {
        notes.push(
            "The cached budget counts every IO of host-cached disks and of the temp disk; the \
             uncached budget counts uncached disks and the writes of cached disks, assuming \
             the reads of cached disks hit the cache (misses would add to it: check Azure \
             Monitor's VM Cached/Uncached Bandwidth Consumed Percentage)."
                .to_owned(),
        );
    }

    let current = Configuration {
        vm: vm_info.as_ref().map(|v| v.limits.size.clone()),
        disks: measured
            .iter()
            .map(|m| ConfiguredDisk {
                name: m.info.limits.name.clone(),
                sku: m.info.limits.sku.clone(),
                count: 1,
                iops: m.info.limits.kind.filter(|k| k.is_provisioned()).and(m.info.limits.iops),
                mbps: m.info.limits.kind.filter(|k| k.is_provisioned()).and(m.info.limits.mbps),
                size_gib: m.info.limits.size_gib,
                cache: if m.info.temp {
                    "n/a".to_owned()
                } else {
                    m.info.limits.cache_setting.name().to_owned()
                },
            })
            .collect(),
        monthly_cost: None,
        unpriced: Vec::new(),
    };
    let proposed = Configuration {
        vm: vm.chosen.clone().or_else(|| current.vm.clone()),
        disks: advice
            .iter()
            .map(|a| {
                let c = a.options.iter().find(|x| Some(&x.sku) == a.chosen.as_ref());
                let provisioned = c.is_some_and(|c| c.sku == "PremiumV2" || c.sku == "Ultra");
                ConfiguredDisk {
                    name: a.name.clone(),
                    sku: c.map(|c| c.sku.clone()).or_else(|| a.current_sku.clone()),
                    count: c.map_or(1, |c| c.count),
                    iops: c.filter(|_| provisioned).map(|c| c.iops / f64::from(c.count)),
                    mbps: c.filter(|_| provisioned).map(|c| c.mbps / f64::from(c.count)),
                    size_gib: c.map(|c| c.size_gib).or(a.size_gib),
                    cache: a.cache.clone(),
                }
            })
            .collect(),
        monthly_cost: None,
        unpriced: Vec::new(),
    };
    let (current, proposed, cost) = cost(current, proposed, o);
    let inputs = captures.iter().map(|c| c.file.clone()).collect();
    Recommendation {
        schema: RECOMMEND_SCHEMA.to_owned(),
        tool: ToolInfo {
            name: "advisor".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        },
        inputs,
        basis: DemandBasis {
            percentile: o.percentile,
            headroom: o.headroom,
            interval_s: o.interval_s,
        },
        confidence: confidence::of(captures),
        current,
        proposed,
        disks: advice,
        vm,
        cost,
        notes,
    }
}

/// A configuration's monthly cost: VM and disks, or the parts without a price.
fn price_of(c: &mut Configuration, p: &PriceList) {
    let mut sum = 0.0;
    let mut missing = Vec::new();
    if let Some(vm) = &c.vm {
        match p.vm_monthly(vm) {
            Some(x) => sum += x,
            None => missing.push(vm.clone()),
        }
    }
    for d in &c.disks {
        let Some(sku) = &d.sku else { continue };
        let each = match sku.as_str() {
            "PremiumV2" => p.premium_v2_monthly(
                d.size_gib.unwrap_or(0.0),
                d.iops.unwrap_or(3000.0),
                d.mbps.unwrap_or(125.0),
            ),
            "Ultra" => p.ultra_monthly(
                d.size_gib.unwrap_or(0.0),
                d.iops.unwrap_or(0.0),
                d.mbps.unwrap_or(0.0),
            ),
            s => p.disk_monthly(s),
        };
        match each {
            Some(x) => sum += x * f64::from(d.count),
            None => missing.push(format!("{} ({sku})", d.name)),
        }
    }
    c.monthly_cost = missing.is_empty().then_some((sum * 100.0).round() / 100.0);
    c.unpriced = missing;
}

fn cost(
    mut current: Configuration,
    mut proposed: Configuration,
    o: &RecommendOptions,
) -> (Configuration, Configuration, CostBasis) {
    let Some(p) = &o.prices else {
        return (
            current,
            proposed,
            CostBasis {
                priced: false,
                order: "no prices given (--prices FILE): VM sizes are ordered by size within a \
                        family (the current family first); disks by the capacity each type must be \
                        bought at to carry the demand, then by tier (Standard SSD, Premium SSD, \
                        Premium SSD v2, Ultra Disk); the first that carries the demand is \
                        proposed, which is not necessarily the cheapest"
                    .to_owned(),
                currency: None,
                region: None,
                hours_per_month: HOURS_PER_MONTH,
                monthly_change: None,
            },
        );
    };
    price_of(&mut current, p);
    price_of(&mut proposed, p);
    let change = match (current.monthly_cost, proposed.monthly_cost) {
        (Some(a), Some(b)) => Some(((b - a) * 100.0).round() / 100.0),
        _ => None,
    };
    let basis = CostBasis {
        priced: true,
        order: format!(
            "by monthly cost from {} (region {}, pay-as-you-go Linux prices, {} hours a month); \
             options without a price come last",
            p.file,
            p.region,
            fmt_num(HOURS_PER_MONTH)
        ),
        currency: Some(p.currency.clone()),
        region: Some(p.region.clone()),
        hours_per_month: HOURS_PER_MONTH,
        monthly_change: change,
    };
    (current, proposed, basis)
}

#[cfg(test)]
mod tests;
