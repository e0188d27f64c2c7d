//! Caps read from the data: the functions `plateau`, `keep`, `longest`,
//! `disk_caps_near` and `vm_sizes_near` through the evaluator (known, unknown and the
//! reason), and the shipped `inferred-disk-cap` on series built from the seeds' numbers,
//! with two properties: scaling a capture's IOPS (and its queue with it) moves the inferred
//! ceiling by the same factor, and the order of the samples changes nothing of it.

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used, clippy::float_cmp)]

use advisor_model::{Metric, TargetKind};
use std::sync::Arc;

use advisor_rules::eval::{CatalogCaps, Facts, MemorySeries, Series, SizeCaps, SkuCaps, TargetId};
use advisor_rules::{CheckedRule, Outcome, Registry, evaluate_rule};
use proptest::prelude::*;

fn rule(scope: &str, body: &str, evidence: &str) -> CheckedRule {
    let src = format!(
        "rule t\ntitle \"t\"\nseverity warning\nscope {scope}\n{body}\nevidence \"{evidence}\"\nfix \"f\"\n\
         doc what \"\"\"w\"\"\"\ndoc why \"\"\"y\"\"\"\ndoc fix \"\"\"f\"\"\"\n"
    );
    match advisor_rules::compile("t.rule", &src) {
        Ok(r) => r,
        Err(d) => panic!("{}\n{src}", d.iter().map(ToString::to_string).collect::<String>()),
    }
}

fn shipped(id: &str) -> CheckedRule {
    let (reg, res) = Registry::shipped();
    res.expect("shipped rules load");
    reg.get(id).cloned().expect("shipped rule")
}

fn sku(name: &str, tier: &str, iops: f64, mbps: f64, burst: Option<(f64, f64)>) -> SkuCaps {
    SkuCaps {
        sku: name.into(),
        tier: tier.into(),
        iops: Some(iops),
        mbps: Some(mbps),
        burst_iops: burst.map(|b| b.0),
        burst_mbps: burst.map(|b| b.1),
        superseded: false,
        provisioned: false,
        source: vec!["MicrosoftDocs/azure-docs:includes/disk-storage-premium-ssd-sizes.md".into()],
    }
}

/// Rows of crates/topology/catalog (disk_skus.csv, vm_sizes.csv), as the engine passes them.
fn catalog() -> CatalogCaps {
    let p = "Premium SSD";
    CatalogCaps {
        disks: vec![
            sku("P10", p, 500.0, 100.0, Some((3500.0, 170.0))),
            sku("P15", p, 1100.0, 125.0, Some((3500.0, 170.0))),
            sku("P20", p, 2300.0, 150.0, Some((3500.0, 170.0))),
            sku("P30", p, 5000.0, 200.0, Some((30000.0, 1000.0))),
            sku("S30", "Standard HDD", 500.0, 60.0, None),
        ],
        vms: vec![
            SizeCaps {
                size: "Standard_DS1".into(),
                family: "DS".into(),
                cached_iops: Some(4000.0),
                cached_mbps: Some(32.0),
                uncached_iops: Some(3200.0),
                uncached_mbps: Some(32.0),
                uncached_burst_iops: None,
                uncached_burst_mbps: None,
                vcpu: Some(1),
                source: vec!["MicrosoftDocs/azure-docs:articles/virtual-machines/sizes-previous-gen.md".into()],
            },
            SizeCaps {
                size: "Standard_E16as_v5".into(),
                family: "E".into(),
                cached_iops: None,
                cached_mbps: None,
                uncached_iops: Some(25600.0),
                uncached_mbps: Some(384.0),
                uncached_burst_iops: Some(40000.0),
                uncached_burst_mbps: Some(800.0),
                vcpu: Some(16),
                source: vec!["MicrosoftDocs/azure-compute-docs:articles/virtual-machines/sizes/memory-optimized/easv5-series.md".into()],
            },
        ],
    }
}

/// The facts (with the catalog or without) and the series of one analysis.
#[derive(Default)]
struct Case {
    facts: Facts,
    series: MemorySeries,
}

impl Case {
    fn new(catalog: Option<CatalogCaps>) -> Case {
        let facts = Facts { catalog: catalog.map(Arc::new), ..Facts::default() };
        Case { facts, series: MemorySeries::default() }
    }
}

fn run(r: &CheckedRule, c: &Case) -> Outcome {
    evaluate_rule(r, &c.facts, &c.series)
}

fn timed(values: &[f64]) -> Series {
    values.iter().enumerate().map(|(i, v)| (Some(i as i64 * 1000), *v)).collect()
}

/// One disk target `E:` sampled every second: IOPS, queue depth, latency (ms) and MiB/s
/// at 8 KiB.
fn capture(iops: &[f64], queue: &[f64]) -> (Case, TargetId) {
    let mut c = Case::new(Some(catalog()));
    let t = c.facts.add_target("E:", TargetKind::Disk);
    c.series.intervals.insert(t, 1.0);
    c.series.set_series(t, Metric::Iops, timed(iops));
    c.series.set_series(t, Metric::QueueDepth, timed(queue));
    let lat: Vec<f64> = iops.iter().zip(queue).map(|(i, q)| q / i * 1000.0).collect();
    c.series.set_series(t, Metric::LatencyMs, timed(&lat));
    let mib: Vec<f64> = iops.iter().map(|i| i * 8.0 / 1024.0).collect();
    c.series.set_series(t, Metric::Mbps, timed(&mib));
    (c, t)
}

/// A P10 bursting: 3,490-3,560 IOPS with 15-16 IOs queued, for `n` seconds.
fn p10_burst(n: usize) -> (Vec<f64>, Vec<f64>) {
    let iops = (0..n).map(|i| 3490.0 + (i * 37 % 71) as f64).collect();
    let queue = (0..n).map(|i| 15.0 + (i % 3) as f64 * 0.5).collect();
    (iops, queue)
}

fn only(o: &Outcome) -> &advisor_model::Finding {
    assert_eq!(o.findings.len(), 1, "{o:#?}");
    &o.findings[0]
}

fn metric(o: &Outcome, name: &str) -> f64 {
    *only(o).metrics.get(name).unwrap_or_else(|| panic!("no {name}: {o:#?}"))
}

const CEILING: &str = "let top = plateau(iops, iops >= 50 iops, 30)\nlet ceiling_iops = p50(top)\nlet top_iops = p99(top)\nwhen ceiling_iops > 0 iops";

#[test]
fn plateau_finds_the_band_a_capped_series_holds() {
    // 20 quiet seconds at 300 IOPS, then 60 at the P10's 3,500 burst: the band is the 60.
    let (mut iops, mut queue) = (vec![300.0; 20], vec![0.6; 20]);
    let (b, q) = p10_burst(60);
    iops.extend(b);
    queue.extend(q);
    let (c, _) = capture(&iops, &queue);
    let o = run(&rule("target", CEILING, "{ceiling_iops:.0}-{top_iops:.0}"), &c);
    assert_eq!(only(&o).evidence, "3525-3560");
}

#[test]
fn plateau_with_too_few_busy_samples_is_not_evaluated_and_says_why() {
    let (iops, queue) = p10_burst(20);
    let (c, _) = capture(&iops, &queue);
    let o = run(&rule("target", CEILING, "{ceiling_iops:.0}"), &c);
    assert!(o.findings.is_empty(), "{o:#?}");
    let reason = &o.not_evaluated[0].reason;
    assert!(
        reason.starts_with(
            "only 20 busy samples (20 s) of `iops` where `iops >= 50 iops`; 30 are needed"
        ),
        "{reason}"
    );
    // No busy sample at all: an empty band, so `p50` of it is missing, but a rule guarding
    // with `duration(busy) > 0 s` stays quiet (an idle disk holds no ceiling).
    let (c, _) = capture(&[3.0; 60], &[0.01; 60]);
    let guarded = "let busy = iops >= 50 iops\nwhen duration(busy) > 0 s and p50(plateau(iops, busy, 30)) > 0 iops";
    let o = run(&rule("target", guarded, "x"), &c);
    assert!(o.findings.is_empty() && o.not_evaluated.is_empty(), "{o:#?}");
}

#[test]
fn keep_and_longest_measure_the_stretch_at_the_ceiling() {
    let iops = [100.0, 3500.0, 3500.0, 3500.0, 100.0, 3500.0, 3500.0, 100.0];
    let queue = [1.0, 15.0, 16.0, 15.0, 1.0, 30.0, 31.0, 1.0];
    let (c, _) = capture(&iops, &queue);
    let body = "let at = iops >= 3000 iops\nlet q = p50(keep(queue_depth, at))\nlet held_s = longest(at)\nwhen true";
    let o = run(&rule("target", body, "{q:.0} {held_s:.0} s"), &c);
    assert_eq!(only(&o).evidence, "16 3 s");
    // A one-row benchmark summary has no interval to time a stretch by.
    let mut c = Case::default();
    let t = c.facts.add_target("run", TargetKind::Benchmark);
    c.series.set_series(t, Metric::Iops, vec![(None, 4618.0)]);
    let o = run(&rule("target", "when longest(iops > 0 iops) > 0 s", "x"), &c);
    assert!(o.not_evaluated[0].reason.contains("needs samples over time"), "{o:#?}");
}

#[test]
fn catalog_matches_name_skus_and_sizes_and_need_a_catalog() {
    let (iops, queue) = p10_burst(60);
    let (c, _) = capture(&iops, &queue);
    let body = "let ceiling_iops = p50(plateau(iops, iops >= 50 iops, 30))\nwhen true";
    let o = run(
        &rule(
            "target",
            body,
            "{disk_caps_near(ceiling_iops, 5%)} | {vm_sizes_near(ceiling_iops, 12%)}",
        ),
        &c,
    );
    assert_eq!(
        only(&o).evidence,
        "P10/P15/P20 (Premium SSD) burst cap of 3,500 IOPS | Standard_DS1 (uncached 3,200 IOPS)"
    );
    // By MB/s: 815 MB/s is the E16as_v5's uncached burst cap; of the family DS, nothing.
    let mut c = Case::new(Some(catalog()));
    let t = c.facts.add_target("run", TargetKind::Benchmark);
    c.series.set_series(t, Metric::Mbps, vec![(None, 815e6 / 1_048_576.0)]);
    let o = run(
        &rule(
            "target",
            "when true",
            "{vm_sizes_near(avg(mbps), 5%)} / {disk_caps_near(avg(mbps), 5%)} / {vm_sizes_near(avg(mbps), 5%, \"DS\")}",
        ),
        &c,
    );
    assert_eq!(only(&o).evidence, "Standard_E16as_v5 (uncached burst 800 MB/s) / none / none");
    // Without a catalog the matches are unknown, not "none".
    let (mut c, _) = capture(&iops, &queue);
    c.facts.catalog = None;
    let o = run(
        &rule("target", &format!("{body}\nand disk_caps_near(ceiling_iops, 5%) != \"none\""), "x"),
        &c,
    );
    assert!(o.not_evaluated[0].reason.contains("no catalog"), "{o:#?}");
}

#[test]
fn the_shipped_rule_fires_on_a_queued_ceiling_and_not_on_flat_demand() {
    let r = shipped("inferred-disk-cap");
    let (iops, queue) = p10_burst(60);
    let (c, _) = capture(&iops, &queue);
    let o = run(&r, &c);
    let f = only(&o);
    assert!(
        f.evidence.contains("within 5%: P10/P15/P20 (Premium SSD) burst cap of 3,500 IOPS by IOPS"),
        "{}",
        f.evidence
    );
    assert!(f.evidence.contains("with 15-16 IOs queued"), "{}", f.evidence);
    let confidence = metric(&o, "confidence");
    assert!((0.0..=100.0).contains(&confidence), "{confidence}");
    // A log disk steady at 500 IOPS, QD 1 at 1 ms: flat demand, no queue: quiet.
    let (c, _) = capture(&[500.0; 60], &[0.5; 60]);
    let o = run(&r, &c);
    assert!(o.findings.is_empty() && o.not_evaluated.is_empty(), "{o:#?}");
}

/// A capped series (97-100% of a cap, rounded to whole IOs) with a queue 5-20 times what
/// the cap needs at 2 ms behind it.
fn noisy_capture() -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (40usize..120, 2000.0f64..20_000.0, 5.0f64..20.0).prop_flat_map(|(n, cap, factor)| {
        let q = cap * 0.002 * factor;
        (
            proptest::collection::vec(0.97f64..1.0, n)
                .prop_map(move |v| v.into_iter().map(|x| (x * cap).round()).collect::<Vec<f64>>()),
            proptest::collection::vec(0.9f64..1.1, n)
                .prop_map(move |v| v.into_iter().map(|x| x * q).collect::<Vec<f64>>()),
        )
    })
}

/// The band by its definition: the busy finite samples at or above half their 99th
/// percentile (nearest rank), in time order.
fn band_of(vals: &[f64], busy: impl Fn(f64) -> bool) -> Vec<f64> {
    let mut sorted: Vec<f64> = vals.iter().copied().filter(|v| busy(*v)).collect();
    sorted.sort_by(f64::total_cmp);
    let Some(p99) = advisor_model::nearest_rank(&sorted, 99.0) else { return Vec::new() };
    vals.iter().copied().filter(|v| busy(*v) && *v >= p99 * 0.5).collect()
}

/// A band's p50, p99, extremes and length, as a rule prints them.
fn band_evidence(band: &[f64]) -> String {
    let mut sorted = band.to_vec();
    sorted.sort_by(f64::total_cmp);
    let p = |q: f64| advisor_model::nearest_rank(&sorted, q).unwrap_or(f64::NAN);
    format!(
        "{:.3} {:.3} {:.3} {:.3} {}",
        p(50.0),
        p(99.0),
        sorted[0],
        sorted[sorted.len() - 1],
        band.len()
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A series busy throughout (every sample at or above the floor: the band is the series
    /// itself; or some below half the top: the band is collected) and one with idle
    /// samples (the busy ones collected first) give the band its definition gives.
    #[test]
    fn a_band_is_its_definitions_busy_throughout_or_not(
        vals in proptest::collection::vec(
            prop_oneof![(0u32..9000).prop_map(|v| f64::from(v) / 8.0), (8000u32..8800).prop_map(|v| f64::from(v) / 8.0)],
            1..90,
        ),
    ) {
        for floor in [0.0, 50.0] {
            let body = format!("let top = plateau(iops, iops >= {floor} iops, 1)\nwhen duration(top >= 0 iops) > 0 s");
            let r = rule("target", &body, "{p50(top):.3} {p99(top):.3} {min(top):.3} {max(top):.3} {duration(top >= 0 iops):.0}");
            let (c, _) = capture(&vals, &vec![1.0; vals.len()]);
            let o = run(&r, &c);
            let want = band_of(&vals, |v| v >= floor);
            if want.is_empty() {
                prop_assert!(o.findings.is_empty(), "{:#?}", o);
            } else {
                prop_assert_eq!(&only(&o).evidence, &band_evidence(&want), "busy from {}", floor);
            }
        }
    }

    /// Scaling the IOPS (and the queue with them, so the queueing is the same) scales the
    /// inferred ceiling and its top by the same factor.
    #[test]
    fn scaling_iops_scales_the_ceiling((iops, queue) in noisy_capture(), k in 0.25f64..4.0) {
        let r = shipped("inferred-disk-cap");
        let (c, _) = capture(&iops, &queue);
        let base = run(&r, &c);
        let scaled_iops: Vec<f64> = iops.iter().map(|x| x * k).collect();
        let scaled_queue: Vec<f64> = queue.iter().map(|x| x * k).collect();
        let (c, _) = capture(&scaled_iops, &scaled_queue);
        let scaled = run(&r, &c);
        prop_assert_eq!(base.findings.len(), 1, "{:#?}", base);
        prop_assert_eq!(scaled.findings.len(), 1, "{:#?}", scaled);
        for m in ["ceiling_iops", "ceiling_top_iops"] {
            let (a, b) = (metric(&base, m), metric(&scaled, m));
            prop_assert!((b - a * k).abs() <= 1e-6 * a * k, "{m}: {a} x {k} != {b}");
        }
    }

    /// The band is chosen by value: shuffling the samples leaves the ceiling, its top and
    /// the spread as they were.
    #[test]
    fn shuffling_samples_changes_no_ceiling((iops, queue) in noisy_capture(), seed in any::<u64>()) {
        let r = rule("target", "let top = plateau(iops, iops >= 50 iops, 30)\nlet ceiling_iops = p50(top)\nlet ceiling_top_iops = p99(top)\nlet spread = ratio(ceiling_top_iops - ceiling_iops, ceiling_top_iops)\nwhen true", "x");
        let (c, _) = capture(&iops, &queue);
        let base = run(&r, &c);
        // A Fisher-Yates shuffle driven by a small LCG (the seed is proptest's).
        let mut order: Vec<usize> = (0..iops.len()).collect();
        let mut s = seed | 1;
        for i in (1..order.len()).rev() {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            order.swap(i, (s >> 33) as usize % (i + 1));
        }
        let shuffled: Vec<f64> = order.iter().map(|i| iops[*i]).collect();
        let shuffled_q: Vec<f64> = order.iter().map(|i| queue[*i]).collect();
        let (c, _) = capture(&shuffled, &shuffled_q);
        let other = run(&r, &c);
        for m in ["ceiling_iops", "ceiling_top_iops", "spread"] {
            prop_assert_eq!(metric(&base, m), metric(&other, m), "{}", m);
        }
    }
}
