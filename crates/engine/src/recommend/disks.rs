//! Per disk: the smallest SKU of each type that carries the demand with headroom (or a
//! stripe of them), and the host caching the rules would approve.

use advisor_model::limits::{DiskKind, Role};
use advisor_model::{Demand, DiskOption};
use advisor_topology::{Catalog, fmt_num};

use super::prices::PriceList;

/// Most disks a stripe is proposed with.
pub(crate) const MAX_STRIPE: u32 = 16;

/// Premium SSD v2's free baseline and per-GiB and per-IOPS rules (`catalog/NOTES.md`,
/// Premium SSD v2, from disks-types.md): 3,000 IOPS and 125 MB/s free, 500 IOPS per GiB
/// above 6 GiB, 0.25 MB/s per IOPS.
const V2_BASE_IOPS: f64 = 3000.0;
const V2_BASE_MBPS: f64 = 125.0;
const V2_IOPS_PER_GIB: f64 = 500.0;
/// Ultra Disk: at least 100 IOPS and 1 MB/s per disk, 1,000 IOPS per GiB, 0.25 MB/s per
/// IOPS (`catalog/NOTES.md`, Ultra Disk, current doc).
const ULTRA_MIN_IOPS: f64 = 100.0;
const ULTRA_MIN_MBPS: f64 = 1.0;
const MBPS_PER_IOPS: f64 = 0.25;

/// What an option must carry: the demand with headroom, the capacity of today's disk.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Need {
    pub(crate) iops: f64,
    pub(crate) mbps: f64,
    pub(crate) gib: f64,
}

impl Need {
    pub(crate) fn of(d: Option<&Demand>, gib: Option<f64>) -> Need {
        Need {
            iops: d.map_or(0.0, |d| d.iops.needed),
            mbps: d.map_or(0.0, |d| d.mbps.needed),
            gib: gib.unwrap_or(0.0),
        }
    }
}

/// Spare share of `cap` over `need`, in percent (a need of 0 is all spare).
pub(crate) fn margin(cap: f64, need: f64) -> f64 {
    if need <= 0.0 { 100.0 } else { (cap / need - 1.0) * 100.0 }
}

/// The figure with the least margin, of (name, cap, need).
fn deciding(figs: &[(&str, f64, f64)]) -> (String, f64) {
    figs.iter()
        .filter(|(_, _, n)| *n > 0.0)
        .map(|(k, c, n)| ((*k).to_owned(), margin(*c, *n)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or_else(|| ("baseline".to_owned(), 100.0))
}

/// The smallest fixed-size SKU of `kind` (single disk, else the smallest stripe) whose
/// caps cover `need`, never smaller than today's capacity.
fn fixed(catalog: &Catalog, kind: DiskKind, need: Need) -> Option<DiskOption> {
    let rows: Vec<_> = catalog
        .disks_of(kind)
        .into_iter()
        .filter(|d| !d.perf_plus && !d.superseded)
        .filter_map(|d| Some((d, d.size_gib()?, d.iops?, d.mbps?)))
        .collect();
    for n in 1..=MAX_STRIPE {
        let nf = f64::from(n);
        let member_gib = need.gib / nf;
        let fit = rows
            .iter()
            .find(|(_, g, i, m)| *g >= member_gib && i * nf >= need.iops && m * nf >= need.mbps);
        if let Some((d, g, i, m)) = fit {
            // What decided: today's capacity when the smallest SKU holding it already
            // carries the demand, else the figure with the least margin.
            let by_size =
                rows.iter().find(|(_, g, _, _)| *g >= member_gib).map(|r| r.0.name.clone());
            let (dec, mar) =
                if n == 1 && by_size.as_deref() == Some(d.name.as_str()) && need.gib > 0.0 {
                    let (_, m2) = deciding(&[("iops", *i, need.iops), ("mbps", *m, need.mbps)]);
                    ("capacity".to_owned(), m2)
                } else {
                    deciding(&[("iops", i * nf, need.iops), ("mbps", m * nf, need.mbps)])
                };
            return Some(DiskOption {
                kind: kind.label().to_owned(),
                sku: d.name.clone(),
                count: n,
                size_gib: *g,
                iops: i * nf,
                mbps: m * nf,
                deciding: dec,
                margin_pct: mar,
                monthly_cost: None,
                suitable: true,
                why: String::new(),
            });
        }
    }
    None
}

/// An option of a provisioned kind (Premium SSD v2, Ultra Disk): `n` members of `gib` GiB,
/// each given `(iops, mbps)`; the option's figures are the stripe's.
fn provisioned(
    kind: DiskKind,
    sku: &str,
    n: u32,
    gib: f64,
    (iops, mbps): (f64, f64),
    (deciding, margin_pct): (String, f64),
) -> DiskOption {
    let nf = f64::from(n);
    DiskOption {
        kind: kind.label().to_owned(),
        sku: sku.to_owned(),
        count: n,
        size_gib: gib,
        iops: iops * nf,
        mbps: mbps * nf,
        deciding,
        margin_pct,
        monthly_cost: None,
        suitable: true,
        why: String::new(),
    }
}

/// Premium SSD v2 provisioned for `need` (a stripe when one disk's maximum is short).
fn premium_v2(catalog: &Catalog, need: Need) -> Option<DiskOption> {
    let max = catalog.max_of(DiskKind::PremiumSsdV2)?;
    let (max_iops, max_mbps) = (max.iops?, max.mbps?);
    for n in 1..=MAX_STRIPE {
        let nf = f64::from(n);
        let mbps = (need.mbps / nf).ceil().max(V2_BASE_MBPS);
        let iops = (need.iops / nf)
            .ceil()
            .max(V2_BASE_IOPS)
            .max((mbps / MBPS_PER_IOPS).ceil().min(max_iops));
        if iops > max_iops || mbps > max_mbps || mbps > iops * MBPS_PER_IOPS {
            continue;
        }
        let gib = (need.gib / nf).ceil().max((iops / V2_IOPS_PER_GIB).ceil()).max(1.0);
        let (dec, mar) = if need.iops <= V2_BASE_IOPS * nf && need.mbps <= V2_BASE_MBPS * nf {
            (
                "baseline".to_owned(),
                margin(V2_BASE_IOPS * nf, need.iops).min(margin(V2_BASE_MBPS * nf, need.mbps)),
            )
        } else {
            deciding(&[("iops", iops * nf, need.iops), ("mbps", mbps * nf, need.mbps)])
        };
        return Some(provisioned(
            DiskKind::PremiumSsdV2,
            "PremiumV2",
            n,
            gib,
            (iops, mbps),
            (dec, mar),
        ));
    }
    None
}

/// Ultra Disk provisioned for `need`: the smallest documented size whose maximum covers it.
fn ultra(catalog: &Catalog, need: Need) -> Option<DiskOption> {
    let rows: Vec<_> = catalog
        .disks_of(DiskKind::Ultra)
        .into_iter()
        .filter(|d| !d.superseded)
        .filter_map(|d| Some((d.size?, d.iops?, d.mbps?)))
        .collect();
    for n in 1..=MAX_STRIPE {
        let nf = f64::from(n);
        let mbps = (need.mbps / nf).ceil().max(ULTRA_MIN_MBPS);
        let iops = (need.iops / nf).ceil().max(ULTRA_MIN_IOPS).max((mbps / MBPS_PER_IOPS).ceil());
        let member_gib = (need.gib / nf).ceil();
        let Some((size, _, _)) = rows
            .iter()
            .find(|(s, i, m)| f64::from(s.max_gib) >= member_gib && *i >= iops && *m >= mbps)
        else {
            continue;
        };
        let gib = member_gib.max(f64::from(size.min_gib));
        let (dec, mar) =
            deciding(&[("iops", iops * nf, need.iops), ("mbps", mbps * nf, need.mbps)]);
        return Some(provisioned(DiskKind::Ultra, "Ultra", n, gib, (iops, mbps), (dec, mar)));
    }
    None
}

/// The kinds in the order they are offered without prices: by tier, the lowest first.
pub(crate) const TIER_ORDER: [DiskKind; 4] =
    [DiskKind::StandardSsd, DiskKind::PremiumSsd, DiskKind::PremiumSsdV2, DiskKind::Ultra];

/// Monthly price of an option, when the prices have it.
pub(crate) fn price(p: &PriceList, o: &DiskOption) -> Option<f64> {
    let each = match o.sku.as_str() {
        "PremiumV2" => p.premium_v2_monthly(
            o.size_gib,
            o.iops / f64::from(o.count),
            o.mbps / f64::from(o.count),
        )?,
        "Ultra" => {
            p.ultra_monthly(o.size_gib, o.iops / f64::from(o.count), o.mbps / f64::from(o.count))?
        }
        sku => p.disk_monthly(sku)?,
    };
    Some(each * f64::from(o.count))
}

/// Every type's smallest fit for one disk, with whether it may be chosen and why.
pub(crate) fn options(
    catalog: &Catalog,
    need: Need,
    role: Role,
    latency_bound: bool,
    premium_vm: bool,
    today: Option<DiskKind>,
) -> Vec<DiskOption> {
    let mut out = Vec::new();
    for kind in TIER_ORDER {
        let o = match kind {
            DiskKind::PremiumSsdV2 => premium_v2(catalog, need),
            DiskKind::Ultra => ultra(catalog, need),
            k => fixed(catalog, k, need),
        };
        let Some(mut o) = o else { continue };
        let what = if o.count > 1 {
            format!("a stripe of {} x {} ({} GiB each)", o.count, o.sku, fmt_num(o.size_gib))
        } else if kind.is_provisioned() {
            format!(
                "{} {} GiB provisioned at {} IOPS and {} MB/s",
                kind.label(),
                fmt_num(o.size_gib),
                fmt_num(o.iops),
                fmt_num(o.mbps)
            )
        } else {
            format!("{} ({} GiB)", o.sku, fmt_num(o.size_gib))
        };
        let decided = match o.deciding.as_str() {
            "iops" => format!(
                "IOPS decide: {} IOPS carries {} IOPS needed, {:.0}% to spare",
                fmt_num(o.iops),
                fmt_num(need.iops.ceil()),
                o.margin_pct
            ),
            "mbps" => format!(
                "MB/s decide: {} MB/s carries {} MB/s needed, {:.0}% to spare",
                fmt_num(o.mbps),
                fmt_num(need.mbps.ceil()),
                o.margin_pct
            ),
            "capacity" => format!(
                "today's {} GiB decides: the smallest size that holds it already carries {} IOPS and {} MB/s needed",
                fmt_num(need.gib),
                fmt_num(need.iops.ceil()),
                fmt_num(need.mbps.ceil())
            ),
            _ => format!(
                "the free baseline already carries {} IOPS and {} MB/s needed",
                fmt_num(need.iops.ceil()),
                fmt_num(need.mbps.ceil())
            ),
        };
        let mut why = format!("{what}: {decided}");
        if kind.is_provisioned() && role == Role::Os {
            o.suitable = false;
            why.push_str("; cannot be an OS disk");
        } else if kind.needs_premium_vm() && !premium_vm {
            o.suitable = false;
            why.push_str("; the VM size cannot attach it (no premium storage)");
        } else if latency_bound && !kind.is_provisioned() {
            o.suitable = false;
            why.push_str("; carries the IOPS but not the latency: synchronous IO at this latency needs a lower-latency disk");
        }
        if kind == DiskKind::StandardSsd
            && o.suitable
            && today.is_some_and(DiskKind::needs_premium_vm)
        {
            o.suitable = false;
            why.push_str(
                "; today's disk is premium storage, and a single VM's 99.9% SLA needs premium \
                 storage on every OS and data disk (SLA for Virtual Machines): not proposed",
            );
        } else if kind == DiskKind::StandardSsd && o.suitable {
            // Standard SSD's figures are "up to" (the catalog's source), and a single VM's
            // 99.9% connectivity SLA asks for premium storage on every OS and data disk
            // (SLA for Virtual Machines, azure.microsoft.com/support/legal/sla/virtual-machines).
            why.push_str(
                "; Standard SSD's caps are 'up to' figures, and a single VM's 99.9% SLA needs \
                 premium storage on every OS and data disk",
            );
        }
        o.why = why;
        out.push(o);
    }
    out
}
