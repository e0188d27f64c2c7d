//! The choices on their own: demand in, SKU and size out, and the property that more
//! demand never buys less.

use advisor_model::limits::{DiskKind, Role};
use advisor_model::{Demand, Figure};
use advisor_topology::Catalog;
use proptest::prelude::*;

use super::RecommendOptions;
use super::disks::{Need, TIER_ORDER, options};
use super::vm::{Budgets, advise};

fn catalog() -> Catalog {
    Catalog::builtin().expect("the built-in catalog loads")
}

fn fig(x: f64) -> Figure {
    Figure { observed: x, peak: x, needed: x }
}

fn demand(iops: f64, mbps: f64) -> Demand {
    Demand { iops: fig(iops), mbps: fig(mbps) }
}

#[test]
fn premium_ssd_is_the_smallest_that_carries_the_demand_and_holds_the_data() {
    let c = catalog();
    // 4,000 IOPS and 150 MB/s on a 512 GiB disk: P20 (2,300) is short, P30 (5,000) fits.
    let o =
        options(&c, Need { iops: 4000.0, mbps: 150.0, gib: 512.0 }, Role::Data, false, true, None);
    let p = o.iter().find(|x| x.kind == "Premium SSD").expect("premium");
    assert_eq!((p.sku.as_str(), p.count), ("P30", 1));
    assert_eq!(p.deciding, "iops");
    assert!((p.margin_pct - 25.0).abs() < 1e-9, "{p:?}");
    // A quiet 1 TiB disk: its capacity decides (P30), never a smaller disk.
    let o = options(&c, Need { iops: 50.0, mbps: 1.0, gib: 1024.0 }, Role::Data, false, true, None);
    let p = o.iter().find(|x| x.kind == "Premium SSD").expect("premium");
    assert_eq!((p.sku.as_str(), p.deciding.as_str()), ("P30", "capacity"));
    // A Standard SSD of the same capacity carries it too, but is not proposed in place of
    // premium storage (the single-VM SLA).
    assert!(o.iter().any(|x| x.kind == "Standard SSD" && x.sku == "E30" && x.suitable));
    let need = Need { iops: 50.0, mbps: 1.0, gib: 1024.0 };
    let o = options(&c, need, Role::Data, false, true, Some(DiskKind::PremiumSsd));
    let e = o.iter().find(|x| x.kind == "Standard SSD").expect("standard");
    assert!(!e.suitable && e.why.contains("SLA"), "{e:?}");
}

#[test]
fn a_demand_no_single_disk_carries_is_a_stripe() {
    let c = catalog();
    // 30,000 IOPS: more than a P80's 20,000, so two disks; v2 carries it alone.
    let o =
        options(&c, Need { iops: 30000.0, mbps: 400.0, gib: 256.0 }, Role::Data, false, true, None);
    let p = o.iter().find(|x| x.kind == "Premium SSD").expect("premium");
    assert_eq!(p.count, 2, "{p:?}");
    assert!(p.iops >= 30000.0);
    let v2 = o.iter().find(|x| x.sku == "PremiumV2").expect("v2");
    assert_eq!((v2.count, v2.iops, v2.mbps), (1, 30000.0, 400.0));
    // 500 IOPS per GiB: 30,000 IOPS needs 60 GiB, less than the 256 held.
    assert_eq!((v2.size_gib, v2.count), (256.0, 1));
}

#[test]
fn premium_v2_provisions_above_its_free_baseline_only_when_needed() {
    let c = catalog();
    let o = options(&c, Need { iops: 1200.0, mbps: 40.0, gib: 64.0 }, Role::Log, true, true, None);
    let v2 = o.iter().find(|x| x.sku == "PremiumV2").expect("v2");
    assert_eq!((v2.iops, v2.mbps, v2.deciding.as_str()), (3000.0, 125.0, "baseline"));
    // Latency-bound: the fixed tiers carry the IOPS but are not suitable.
    assert!(
        o.iter()
            .filter(|x| !x.sku.starts_with("PremiumV2") && x.sku != "Ultra")
            .all(|x| !x.suitable)
    );
    // MB/s beyond 0.25 per IOPS raise the IOPS: 1,000 MB/s needs 4,000 IOPS.
    let o =
        options(&c, Need { iops: 100.0, mbps: 1000.0, gib: 64.0 }, Role::Data, false, true, None);
    let v2 = o.iter().find(|x| x.sku == "PremiumV2").expect("v2");
    assert_eq!((v2.iops, v2.mbps), (4000.0, 1000.0));
}

#[test]
fn provisioned_types_are_not_os_disks_and_premium_needs_a_premium_vm() {
    let c = catalog();
    let o = options(&c, Need { iops: 100.0, mbps: 10.0, gib: 128.0 }, Role::Os, false, true, None);
    assert!(o.iter().filter(|x| x.sku == "PremiumV2" || x.sku == "Ultra").all(|x| !x.suitable));
    let o =
        options(&c, Need { iops: 100.0, mbps: 10.0, gib: 128.0 }, Role::Data, false, false, None);
    assert!(o.iter().filter(|x| x.kind != "Standard SSD").all(|x| !x.suitable));
}

#[test]
fn the_vm_is_the_smallest_of_its_family_whose_budgets_cover_the_sum() {
    let c = catalog();
    let o = RecommendOptions::default();
    // 320 MB/s cached: DS4_v2 and DS13_v2 (256 MB/s) are short; DS5_v2 (512 MB/s) is the
    // first of DSv2 by vCPUs that carries it.
    let b = Budgets {
        cached: Some(demand(2000.0, 320.0)),
        uncached: Some(demand(100.0, 5.0)),
        data_disks: 1,
        needs_premium: true,
        needs_host_cache: false,
    };
    let v = advise(&c, None, b, &RecommendOptions { families: vec!["DSv2".into()], ..o.clone() });
    assert_eq!(v.chosen.as_deref(), Some("Standard_DS5_v2"), "{v:#?}");
    assert_eq!(v.candidates[0].deciding, "cached MB/s");
}

fn chosen_rank(o: &[advisor_model::DiskOption], kind: &str) -> Option<(u32, i64, i64, i64)> {
    o.iter()
        .find(|x| x.kind == kind)
        .map(|x| (x.count, x.size_gib as i64, x.iops as i64, x.mbps as i64))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// More demand never recommends a smaller SKU of a type, an earlier type, or a
    /// smaller VM size.
    #[test]
    fn more_demand_never_buys_less(
        iops in 0.0f64..60_000.0, mbps in 0.0f64..3_000.0, gib in 0.0f64..4_000.0,
        more in 1.0f64..3.0, latency in any::<bool>(),
    ) {
        let c = catalog();
        let lo = Need { iops, mbps, gib };
        let hi = Need { iops: iops * more, mbps: mbps * more, gib };
        let a = options(&c, lo, Role::Data, latency, true, None);
        let b = options(&c, hi, Role::Data, latency, true, None);
        for kind in TIER_ORDER {
            let (x, y) = (chosen_rank(&a, kind.label()), chosen_rank(&b, kind.label()));
            match (x, y) {
                (Some(x), Some(y)) => {
                    prop_assert!(y.0 >= x.0, "{kind}: fewer disks for more demand: {x:?} -> {y:?}");
                    if y.0 == x.0 {
                        prop_assert!(y.1 >= x.1 && y.2 >= x.2 && y.3 >= x.3, "{kind}: {x:?} -> {y:?}");
                    }
                }
                (None, Some(y)) => prop_assert!(false, "{kind}: nothing for less demand, {y:?} for more"),
                _ => {}
            }
        }
        let first = |o: &[advisor_model::DiskOption]| {
            o.iter().find(|x| x.suitable).and_then(|x| TIER_ORDER.iter().position(|k| k.label() == x.kind))
        };
        if let (Some(x), Some(y)) = (first(&a), first(&b)) {
            prop_assert!(y >= x, "an earlier tier for more demand");
        }

        let families = vec!["DSv2".to_owned(), "Esv5".to_owned()];
        let o = RecommendOptions { families: families.clone(), ..RecommendOptions::default() };
        let budget = |k: f64| Budgets {
            cached: Some(demand(iops * k / 4.0, mbps * k / 4.0)),
            uncached: Some(demand(iops * k, mbps * k)),
            data_disks: 2,
            needs_premium: true,
            needs_host_cache: false,
        };
        let key = |v: &advisor_model::VmAdvice| {
            v.candidates.first().map(|c| {
                let fam = families.iter().position(|f| f.eq_ignore_ascii_case(&c.series)).unwrap_or(99);
                (fam, c.vcpu, c.memory_gib.map(|m| m as i64))
            })
        };
        let (x, y) = (key(&advise(&c, None, budget(1.0), &o)), key(&advise(&c, None, budget(more), &o)));
        match (x, y) {
            (Some(x), Some(y)) => prop_assert!(y >= x, "a smaller VM for more demand: {x:?} -> {y:?}"),
            (None, Some(_)) => prop_assert!(false, "no VM for less demand but one for more"),
            _ => {}
        }
    }
}
