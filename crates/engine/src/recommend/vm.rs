//! The VM: the smallest sizes, the current family first and then the families asked,
//! whose cached and uncached caps cover the disks' summed demand.

use advisor_model::{Demand, VmAdvice, VmOption};
use advisor_rules::eval::VmInfo;
use advisor_topology::{Catalog, SizeStatus, VmSize, fmt_num};

use super::RecommendOptions;
use super::disks::margin;

/// Candidates listed per family.
const PER_FAMILY: usize = 3;

/// What the disks ask of a VM.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budgets {
    pub(crate) cached: Option<Demand>,
    pub(crate) uncached: Option<Demand>,
    pub(crate) data_disks: u32,
    pub(crate) needs_premium: bool,
    pub(crate) needs_host_cache: bool,
}

/// Why `size` cannot carry `b`, or its deciding figure and margin.
/// What a size that carries the demand is judged by: the deciding figure, its margin, and
/// the figures the size does not publish (so they could not be checked).
type Fit = (String, f64, Vec<&'static str>);

fn fit(
    size: &VmSize,
    b: &Budgets,
    min_vcpu: Option<u32>,
    min_mem: Option<f64>,
) -> Result<Fit, String> {
    if let (Some(want), Some(have)) = (min_vcpu, size.vcpu)
        && have < want
    {
        return Err(format!("{have} vCPUs, fewer than today's {want}"));
    }
    if let (Some(want), Some(have)) = (min_mem, size.memory_gib)
        && have < want
    {
        return Err(format!("{} GiB memory, less than today's {}", fmt_num(have), fmt_num(want)));
    }
    if b.needs_premium && !size.premium_storage() {
        return Err("no premium storage".to_owned());
    }
    if b.needs_host_cache && !size.host_caching() {
        return Err("no host caching".to_owned());
    }
    if let Some(max) = size.max_data_disks
        && max < b.data_disks
    {
        return Err(format!("{max} data disks at most, {} needed", b.data_disks));
    }
    let mut figs: Vec<(&str, f64, f64)> = Vec::new();
    let mut unchecked: Vec<&str> = Vec::new();
    let mut check = |name: &'static str, cap: Option<f64>, need: f64| -> Result<(), String> {
        if need <= 0.0 {
            return Ok(());
        }
        match cap {
            // Most v5 and v6 sizes publish no cached limit (catalog NOTES): not a reason
            // to refuse them, but the figure cannot be checked, and the option says so.
            None => {
                unchecked.push(name);
                Ok(())
            }
            Some(c) if c < need => {
                Err(format!("{name} {} < {} needed", fmt_num(c), fmt_num(need.ceil())))
            }
            Some(c) => {
                figs.push((name, c, need));
                Ok(())
            }
        }
    };
    if let Some(c) = b.cached {
        check("cached IOPS", size.cached_iops, c.iops.needed)?;
        check("cached MB/s", size.cached_mbps, c.mbps.needed)?;
    }
    if let Some(u) = b.uncached {
        check("uncached IOPS", size.uncached_iops, u.iops.needed)?;
        check("uncached MB/s", size.uncached_mbps, u.mbps.needed)?;
    }
    let (f, m) = figs
        .iter()
        .map(|(n, c, need)| ((*n).to_owned(), margin(*c, *need)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or_else(|| {
            let what = if unchecked.is_empty() { "no IO" } else { "not published" };
            (what.to_owned(), 100.0)
        });
    Ok((f, m, unchecked))
}

fn cap_of(v: &VmSize, figure: &str) -> Option<f64> {
    match figure {
        "cached IOPS" => v.cached_iops,
        "cached MB/s" => v.cached_mbps,
        "uncached IOPS" => v.uncached_iops,
        "uncached MB/s" => v.uncached_mbps,
        _ => None,
    }
}

fn need_of(b: &Budgets, figure: &str) -> f64 {
    match figure {
        "cached IOPS" => b.cached.map_or(0.0, |d| d.iops.needed),
        "cached MB/s" => b.cached.map_or(0.0, |d| d.mbps.needed),
        "uncached IOPS" => b.uncached.map_or(0.0, |d| d.iops.needed),
        "uncached MB/s" => b.uncached.map_or(0.0, |d| d.mbps.needed),
        _ => 0.0,
    }
}

pub(crate) fn advise(
    catalog: &Catalog,
    current: Option<&VmInfo>,
    b: Budgets,
    o: &RecommendOptions,
) -> VmAdvice {
    let cur = current.and_then(|v| catalog.vm(&v.limits.size).ok());
    let (min_vcpu, min_mem) = if o.any_vcpu_memory {
        (None, None)
    } else {
        (cur.and_then(|c| c.vcpu), cur.and_then(|c| c.memory_gib))
    };
    let mut why = Vec::new();
    let mut families: Vec<String> = cur.map(|c| vec![c.series()]).unwrap_or_default();
    for f in &o.families {
        if !families.iter().any(|x| x.eq_ignore_ascii_case(f)) {
            families.push(f.clone());
        }
    }
    for (label, d) in [("cached", b.cached), ("uncached", b.uncached)] {
        if let Some(d) = d {
            let caps = cur.map(|c| {
                let (i, m) = if label == "cached" {
                    (c.cached_iops, c.cached_mbps)
                } else {
                    (c.uncached_iops, c.uncached_mbps)
                };
                match (i, m) {
                    (Some(i), Some(m)) => format!(
                        "; {} allows {} IOPS ({:.0}% of it needed) and {} MB/s ({:.0}%)",
                        c.name,
                        fmt_num(i),
                        d.iops.needed / i * 100.0,
                        fmt_num(m),
                        d.mbps.needed / m * 100.0
                    ),
                    _ => format!("; {} publishes no {label} limit", c.name),
                }
            });
            why.push(format!(
                "{label} budget: p{} {} IOPS and {} MB/s, x{} = {} IOPS and {} MB/s needed{}",
                fmt_num(o.percentile),
                fmt_num(d.iops.observed.round()),
                fmt_num(d.mbps.observed.round()),
                fmt_num(o.headroom),
                fmt_num(d.iops.needed.ceil()),
                fmt_num(d.mbps.needed.ceil()),
                caps.unwrap_or_default(),
            ));
        }
    }
    if b.cached.is_none() && b.uncached.is_none() {
        // No disk of the topology matched a capture target: there is no demand to size
        // by, and "carries it" would claim what nobody measured.
        why.push(
            "no disk demand is known (no disk of the topology matched a capture target; pass \
             --topology with the disks): no size is judged"
                .to_owned(),
        );
        return VmAdvice {
            current: current.map(|v| v.limits.size.clone()),
            cached: None,
            uncached: None,
            data_disks: b.data_disks,
            min_vcpu,
            min_memory_gib: min_mem,
            candidates: Vec::new(),
            chosen: None,
            why,
        };
    }
    if let Some(c) = cur {
        match fit(c, &b, None, None) {
            Ok((f, m, _)) => {
                why.push(format!("{} carries it: {f} is the closest, {m:.0}% to spare", c.name))
            }
            Err(e) => why.push(format!("{} does not carry it: {e}", c.name)),
        }
    }
    let mut candidates = Vec::new();
    for fam in &families {
        let sizes: Vec<&VmSize> = catalog
            .vm_sizes()
            .into_iter()
            .filter(|v| {
                // A retired size cannot be deployed: never a candidate.
                v.in_series(fam) && v.controller().is_none() && v.status != SizeStatus::Retired
            })
            .collect();
        if sizes.is_empty() {
            why.push(format!("family {fam}: not in the catalog (advisor catalog list)"));
            continue;
        }
        let mut ok: Vec<(&VmSize, String, f64, Vec<&str>)> = Vec::new();
        let mut skipped: Vec<String> = Vec::new();
        for v in sizes {
            match fit(v, &b, min_vcpu, min_mem) {
                Ok((f, m, u)) => ok.push((v, f, m, u)),
                Err(e) => skipped.push(format!("{}: {e}", v.short_name())),
            }
        }
        ok.sort_by(|a, b| {
            (a.0.vcpu, a.0.memory_gib.map(|m| (m * 1000.0) as i64))
                .cmp(&(b.0.vcpu, b.0.memory_gib.map(|m| (m * 1000.0) as i64)))
        });
        if ok.is_empty() {
            why.push(format!("family {fam}: no size carries it ({})", skipped.join("; ")));
        }
        for (v, f, m, unchecked) in ok.into_iter().take(PER_FAMILY) {
            let cap = cap_of(v, &f);
            let mut reason = match cap {
                Some(c) => format!(
                    "{f} {} carries {} needed, {m:.0}% to spare",
                    fmt_num(c),
                    fmt_num(need_of(&b, &f).ceil())
                ),
                None => "no storage IO to carry".to_owned(),
            };
            if !unchecked.is_empty() {
                reason.push_str(&format!(
                    "; {} not published for {}, so not checked",
                    unchecked.join(" and "),
                    v.short_name()
                ));
            }
            candidates.push(VmOption {
                size: v.name.clone(),
                series: v.series(),
                vcpu: v.vcpu,
                memory_gib: v.memory_gib,
                cached_iops: v.cached_iops,
                cached_mbps: v.cached_mbps,
                uncached_iops: v.uncached_iops,
                uncached_mbps: v.uncached_mbps,
                deciding: f,
                margin_pct: m,
                monthly_cost: o.prices.as_ref().and_then(|p| p.vm_monthly(&v.name)),
                why: reason,
            });
        }
    }
    if o.prices.is_some() {
        candidates.sort_by(|a, b| match (a.monthly_cost, b.monthly_cost) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
    }
    let chosen = candidates.first().map(|c| c.size.clone());
    if let Some(c) = candidates.first() {
        why.push(format!("proposed: {}: {}", c.size, c.why));
    } else if cur.is_none() {
        why.push(
            "no VM size in the topology: pass --vm SIZE or a topology with [vm] size".to_owned(),
        );
    }
    VmAdvice {
        current: current.map(|v| v.limits.size.clone()),
        cached: b.cached,
        uncached: b.uncached,
        data_disks: b.data_disks,
        min_vcpu,
        min_memory_gib: min_mem,
        candidates,
        chosen,
        why,
    }
}
