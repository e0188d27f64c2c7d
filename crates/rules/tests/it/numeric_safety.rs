//! Numeric safety: a rule that divides by zero, reduces an empty series or meets
//! NaN / infinity is *not evaluated*, with the reason, and never fires on the garbage such
//! arithmetic would give. Every finding's numbers are finite.

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used, clippy::float_cmp)]

use advisor_model::limits::{Cache, DiskLimits, Role};
use advisor_model::{Metric, NotEvaluated, TargetKind};
use advisor_rules::eval::{
    DiskInfo, Facts, MemorySeries, Outcome, Series, TargetId, VmInfo, evaluate_rule,
};
use advisor_rules::{CheckedRule, compile};
use proptest::prelude::*;

use crate::fixtures;

fn rule(scope: &str, body: &str, evidence: &str) -> CheckedRule {
    let src = format!(
        "rule t\ntitle \"t\"\nseverity warning\nscope {scope}\n{body}\nevidence \"{evidence}\"\n\
         fix \"f\"\ndoc what \"\"\"w\"\"\"\ndoc why \"\"\"y\"\"\"\ndoc fix \"\"\"f\"\"\"\n"
    );
    compile("t.rule", &src).unwrap_or_else(|d| {
        panic!("{}\n{src}", d.iter().map(ToString::to_string).collect::<String>())
    })
}

fn disk_limits(iops: Option<f64>, mbps: Option<f64>) -> DiskLimits {
    fixtures::p30("E:", Cache::None, Role::Data, iops, mbps)
}

fn vm() -> VmInfo {
    VmInfo {
        limits: fixtures::ds13_v2(),
        memory_gib: Some(56.0),
        provisioned_iops: Some(5000.0),
        provisioned_mbps: Some(200.0),
    }
}

/// What the evaluator reads, held in memory: the facts and the series.
#[derive(Debug, Default)]
struct Inputs {
    facts: Facts,
    series: MemorySeries,
}

impl Inputs {
    /// With a topology and the DS13_v2 VM.
    fn with_vm() -> Self {
        Inputs {
            facts: Facts { topology: true, vm: Some(vm()), ..Default::default() },
            ..Default::default()
        }
    }
}

fn one_disk(iops_cap: Option<f64>, mbps_cap: Option<f64>) -> (Inputs, TargetId) {
    let mut c = Inputs::with_vm();
    let t = c.facts.add_target("2 E:", TargetKind::Disk);
    c.series.intervals.insert(t, 1.0);
    c.facts.disks.push(DiskInfo {
        limits: disk_limits(iops_cap, mbps_cap),
        tier: Some("Premium SSD".to_owned()),
        temp: false,
        targets: vec![t],
    });
    (c, t)
}

fn timed(values: &[f64]) -> Series {
    values.iter().enumerate().map(|(i, v)| (Some(i as i64 * 1000), *v)).collect()
}

/// The one not-evaluated entry of an outcome without findings.
fn not_evaluated(o: &Outcome) -> &NotEvaluated {
    assert!(o.findings.is_empty(), "a finding built on garbage: {o:#?}");
    assert_eq!(o.not_evaluated.len(), 1, "{o:#?}");
    &o.not_evaluated[0]
}

#[test]
fn a_scalar_division_by_zero_is_not_evaluated_with_the_reason() {
    let (mut c, e) = one_disk(Some(5000.0), Some(200.0));
    c.series.set_series(e, Metric::Iops, timed(&[0.0, 0.0, 0.0]));
    c.series.set_series(e, Metric::Mbps, timed(&[0.0, 0.0, 0.0]));
    // mbps / iops is an IO size: 0 / 0 would be NaN, x / 0 infinite; both "fire" on `>=`
    // or `!=` if let through.
    for when in ["io_size >= 0 KiB", "io_size < 1 KiB", "io_size != 4 KiB", "not (io_size < 1 KiB)"]
    {
        let r =
            rule("disk", &format!("let io_size = avg(mbps) / avg(iops)\nwhen {when}"), "{io_size}");
        let n = not_evaluated(&evaluate_rule(&r, &c.facts, &c.series)).clone();
        assert_eq!(n.subject.as_deref(), Some("E:"));
        assert!(n.reason.starts_with("division by zero: `avg(iops)` is 0"), "{when}: {n:?}");
    }
    // The same rule on a disk that did IO evaluates.
    c.series.set_series(e, Metric::Iops, timed(&[100.0, 100.0]));
    c.series.set_series(e, Metric::Mbps, timed(&[1.0, 1.0]));
    let r = rule("disk", "let io_size = avg(mbps) / avg(iops)\nwhen io_size >= 0 KiB", "{io_size}");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!(o.findings.len(), 1, "{o:#?}");
}

#[test]
fn a_series_divided_by_zero_at_every_sample_is_an_empty_series_and_not_evaluated() {
    let (mut c, e) = one_disk(Some(5000.0), Some(200.0));
    c.series.set_series(e, Metric::Iops, timed(&[0.0, 0.0, 0.0]));
    c.series.set_series(e, Metric::Mbps, timed(&[5.0, 0.0, 7.0]));
    let r = rule("disk", "let io_size = p95(mbps / iops)\nwhen io_size > 0 KiB", "{io_size}");
    let n = not_evaluated(&evaluate_rule(&r, &c.facts, &c.series)).clone();
    assert!(!n.reason.is_empty());
    // Only the samples that divide by zero are dropped; the rest count.
    c.series.set_series(e, Metric::Iops, timed(&[0.0, 1024.0, 0.0]));
    c.series.set_series(e, Metric::Mbps, timed(&[5.0, 4.0, 7.0]));
    let r = rule("disk", "let io_size = max(mbps / iops)\nwhen io_size > 0 KiB", "{io_size:.1}");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!(o.findings.len(), 1, "{o:#?}");
    assert_eq!(o.findings[0].evidence, "4.0");
}

#[test]
fn an_empty_series_under_an_aggregate_is_not_evaluated() {
    let (mut c, e) = one_disk(Some(5000.0), Some(200.0));
    c.series.set_series(e, Metric::Iops, Vec::new());
    for agg in ["avg", "p95", "max", "min"] {
        let r = rule("disk", &format!("when {agg}(iops) >= 0 iops"), "x");
        let n = not_evaluated(&evaluate_rule(&r, &c.facts, &c.series)).clone();
        assert_eq!(n.subject.as_deref(), Some("E:"), "{agg}: {n:?}");
    }
    let r = rule("disk", "when share(iops > 1 iops) >= 0%", "x");
    not_evaluated(&evaluate_rule(&r, &c.facts, &c.series));
}

#[test]
fn nan_and_infinite_samples_are_skipped_and_all_garbage_is_not_evaluated() {
    let (mut c, e) = one_disk(Some(5000.0), Some(200.0));
    // Only NaN and infinities: nothing to reduce.
    c.series.set_series(e, Metric::Iops, timed(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY]));
    let r = rule("disk", "let peak = max(iops)\nwhen peak > 1 iops", "{peak}");
    not_evaluated(&evaluate_rule(&r, &c.facts, &c.series));
    // Mixed: the finite samples decide; the infinity does not become the peak.
    c.series.set_series(e, Metric::Iops, timed(&[f64::NAN, 6000.0, f64::INFINITY, 10.0]));
    let r = rule("disk", "let peak = max(iops)\nwhen peak > disk.iops_cap", "{peak:.0}");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!(o.findings.len(), 1, "{o:#?}");
    assert_eq!(o.findings[0].evidence, "6000");
    assert!(o.findings[0].metrics.values().all(|v| v.is_finite()), "{o:#?}");
}

#[test]
fn a_nan_or_infinite_cap_is_not_compared_with() {
    for cap in [f64::NAN, f64::INFINITY, 0.0] {
        let (mut c, e) = one_disk(Some(cap), Some(200.0));
        c.series.set_series(e, Metric::Iops, timed(&[100.0, 200.0]));
        let r = rule("disk", "let used = p95(iops) / disk.iops_cap\nwhen used > 90%", "{used}");
        let o = evaluate_rule(&r, &c.facts, &c.series);
        if cap.is_finite() {
            // A zero cap is a division by zero.
            assert!(not_evaluated(&o).reason.starts_with("division by zero"), "{o:#?}");
        } else {
            not_evaluated(&o);
        }
    }
}

#[test]
fn an_overflow_to_infinity_is_not_evaluated() {
    let (mut c, e) = one_disk(Some(5000.0), Some(200.0));
    c.series.set_series(e, Metric::Iops, timed(&[1e300, 1e300]));
    let r =
        rule("disk", "let big = avg(iops) * 1000000000 * 1000000000\nwhen big > 1 iops", "{big}");
    not_evaluated(&evaluate_rule(&r, &c.facts, &c.series));
}

/// The rule shipped in the bad-input corpus checks clean and is never evaluated.
#[test]
fn the_corpus_divide_by_zero_rule_is_not_evaluated() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/invalid/divide-by-zero.rule");
    let src = std::fs::read_to_string(path).expect("fixtures/invalid/divide-by-zero.rule");
    let r = compile("divide-by-zero.rule", &src).unwrap_or_else(|d| panic!("{d:?}"));
    let mut c = Inputs::default();
    let t = c.facts.add_target("sdc", TargetKind::Device);
    c.series.set_series(t, Metric::Iops, timed(&[100.0, 250.0, 4000.0]));
    let n = not_evaluated(&evaluate_rule(&r, &c.facts, &c.series)).clone();
    assert_eq!(n.reason, "division by zero: `baseline` is 0 in `p95(iops) / baseline`");
}

fn garbage() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => 0.0..1e5f64,
        1 => Just(0.0),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => -1e5..0.0f64,
        1 => Just(f64::MAX),
    ]
}

const RULES: &[&str] = &[
    "let io_size = avg(mbps) / avg(iops)\nwhen io_size > 1 KiB",
    "let io_size = p95(mbps / iops)\nwhen io_size > 1 KiB or io_size <= 1 KiB",
    "let used = p95(iops) / disk.iops_cap\nwhen used > 1%",
    "let r = ratio(max(iops), min(iops))\nwhen r >= 0%",
    "let t = duration(mbps / iops > 64 KiB)\nwhen t >= 0 s",
    "let s = share(iops >= 0 iops)\nwhen s >= 0%",
    "let hi = max(iops) - min(iops)\nwhen hi >= 0 iops",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Whatever the samples and caps hold, a finding's numbers are finite, and every
    /// rule either fires, stays quiet, or says why it was not evaluated.
    #[test]
    fn findings_are_never_built_on_garbage(
        iops in proptest::collection::vec(garbage(), 0..8),
        mbps in proptest::collection::vec(garbage(), 0..8),
        cap in garbage(),
    ) {
        let (mut c, e) = one_disk(Some(cap), Some(200.0));
        c.series.set_series(e, Metric::Iops, timed(&iops));
        c.series.set_series(e, Metric::Mbps, timed(&mbps));
        for body in RULES {
            let Ok(r) = std::panic::catch_unwind(|| rule("disk", body, "x")) else {
                panic!("does not check: {body}");
            };
            let o = evaluate_rule(&r, &c.facts, &c.series);
            for f in &o.findings {
                prop_assert!(f.metrics.values().all(|v| v.is_finite()), "{body}: {f:#?}");
            }
            for n in &o.not_evaluated {
                prop_assert!(!n.reason.trim().is_empty(), "{body}: no reason");
            }
        }
    }
}
