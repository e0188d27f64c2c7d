#![allow(clippy::unwrap_used, clippy::expect_used, clippy::float_cmp)]

use advisor_model::limits::{Cache, DiskLimits, Role};
use advisor_model::{BenchSettings, Direction, Metric, TargetKind};

use super::*;
use crate::registry::{Origin, Registry, RuleFile};

/// The methods a test source takes as they are from the [`MemorySeries`] in its field
/// `$field`: the series, the tool's percentiles and the intervals.
macro_rules! from_memory {
    ($field:ident) => {
        fn series(&self, target: TargetId, metric: Metric) -> Option<Arc<Series>> {
            self.$field.series(target, metric)
        }
        fn source_percentile(
            &self,
            target: TargetId,
            direction: Direction,
            pct: f64,
        ) -> Option<f64> {
            self.$field.source_percentile(target, direction, pct)
        }
        fn interval_s(&self, target: TargetId) -> Option<f64> {
            self.$field.interval_s(target)
        }
    };
}

mod catalog_fields;
#[path = "../../tests/it/fixtures/mod.rs"]
mod fixtures;
mod folds;
mod in_place;
mod known;
mod sharing;

/// A rule from its parts; `scope` is `vm`, `disk`, ...
fn rule(scope: &str, body: &str, evidence: &str) -> CheckedRule {
    let src = format!(
        "rule t\ntitle \"t\"\nseverity warning\nscope {scope}\n{body}\nevidence \"{evidence}\"\nfix \"f\"\n\
         doc what \"\"\"w\"\"\"\ndoc why \"\"\"y\"\"\"\ndoc fix \"\"\"f\"\"\"\n"
    );
    match crate::compile("t.rule", &src) {
        Ok(r) => r,
        Err(d) => panic!("{}\n{src}", d.iter().map(ToString::to_string).collect::<String>()),
    }
}

fn disk(name: &str, cache: Cache, role: Role, iops: Option<f64>, mbps: Option<f64>) -> DiskLimits {
    fixtures::p30(name, cache, role, iops, mbps)
}

/// A P30 of the topology (5,000 IOPS, 200 MB/s), not the temp disk, matched to `targets`.
fn p30_info(
    name: &str,
    (cache, role): (Cache, Role),
    tier: Option<&str>,
    targets: Vec<TargetId>,
) -> DiskInfo {
    DiskInfo {
        limits: disk(name, cache, role, Some(5000.0), Some(200.0)),
        tier: tier.map(str::to_owned),
        temp: false,
        targets,
    }
}

fn vm() -> VmInfo {
    VmInfo {
        limits: fixtures::ds13_v2(),
        memory_gib: Some(56.0),
        provisioned_iops: Some(5000.0),
        provisioned_mbps: Some(200.0),
    }
}

fn timed(values: &[f64]) -> Series {
    values.iter().enumerate().map(|(i, v)| (Some(i as i64 * 1000), *v)).collect()
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

/// A topology with a VM and one P30 data disk `E:` matched to target `2 E:`.
fn one_disk() -> (Inputs, TargetId) {
    let mut c = Inputs::with_vm();
    let t = c.facts.add_target("2 E:", TargetKind::Disk);
    c.series.intervals.insert(t, 1.0);
    c.facts.disks.push(p30_info("E:", (Cache::ReadOnly, Role::Data), Some("Premium SSD"), vec![t]));
    (c, t)
}

/// [`one_disk`] and an uncached P30 log disk `F:` matched to target `3 F:`.
fn two_disks() -> (Inputs, TargetId, TargetId) {
    let (mut c, e) = one_disk();
    let f = c.facts.add_target("3 F:", TargetKind::Disk);
    c.facts.disks.push(p30_info("F:", (Cache::None, Role::Log), None, vec![f]));
    (c, e, f)
}

fn only(o: &Outcome) -> &Finding {
    assert_eq!(o.findings.len(), 1, "{o:#?}");
    &o.findings[0]
}

#[test]
fn series_sum_aligns_by_timestamp() {
    let (mut c, e, f) = two_disks();
    c.series.set_series(
        e,
        Metric::Iops,
        vec![(Some(0), 1.0), (Some(1000), 2.0), (Some(2000), 3.0)],
    );
    c.series.set_series(
        f,
        Metric::Iops,
        vec![(Some(1000), 10.0), (Some(2000), 20.0), (Some(3000), 99.0)],
    );
    let r = rule(
        "vm",
        "let total = sum(iops) over disks\nlet peak = max(total)\nlet low = min(total)\nwhen peak > 0 iops",
        "{peak:.0} {low:.0}",
    );
    let o = evaluate_rule(&r, &c.facts, &c.series);
    // Only 1000 and 2000 are in both: 12 and 23; the 99 at 3000 has no partner.
    assert_eq!(only(&o).evidence, "23 12");
    // Series with scalar broadcasts; comparisons of series give bool series.
    let r = rule("disk", "let hi = share(iops * 2 >= 4 iops)\nwhen hi > 50%", "{hi:.1}%");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    let e: Vec<_> = o.findings.iter().map(|f| (f.subject.as_str(), f.evidence.as_str())).collect();
    assert_eq!(e, [("E:", "66.7%"), ("F:", "100.0%")]);
}

#[test]
fn sustained_needs_an_unbroken_run() {
    let (mut c, e) = one_disk();
    c.series.set_series(e, Metric::Iops, timed(&[500.0, 500.0, 10.0, 500.0, 500.0, 500.0, 10.0]));
    let fires = |c: &Inputs, d: &str| {
        let r = rule("disk", &format!("when sustained(iops > 100 iops, {d})"), "x");
        !evaluate_rule(&r, &c.facts, &c.series).findings.is_empty()
    };
    assert!(fires(&c, "3 s"));
    assert!(!fires(&c, "4 s"));
    let r = rule("disk", "let t = duration(iops > 100 iops)\nwhen t >= 5 s", "{t:.0} s");
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "5 s");
    // A run broken by a gap in the timestamps is two runs.
    c.series.set_series(
        e,
        Metric::Iops,
        vec![(Some(0), 500.0), (Some(1000), 500.0), (Some(9000), 500.0)],
    );
    assert!(!fires(&c, "3 s"));
}

/// `interval(x)`: the series' sampling interval; a benchmark's one-row summary has none
/// (0 s); a series with no samples is not evaluated.
#[test]
fn interval_is_the_sampling_interval() {
    let (mut c, e) = one_disk();
    let shows = |c: &Inputs| {
        let r = rule("disk", "let i = interval(iops)\nwhen i >= 0 s", "{i:.0} s");
        let o = evaluate_rule(&r, &c.facts, &c.series);
        o.findings.first().map(|f| f.evidence.clone()).unwrap_or_default()
    };
    c.series.intervals.remove(&e);
    let ten_min: Series = (0..6).map(|i| (Some(i * 600_000), 4000.0)).collect();
    c.series.set_series(e, Metric::Iops, ten_min);
    assert_eq!(shows(&c), "600 s");
    c.series.set_series(e, Metric::Iops, vec![(None, 4000.0)]);
    assert_eq!(shows(&c), "0 s");
    c.series.set_series(e, Metric::Iops, Vec::new());
    let r = rule("disk", "when interval(iops) >= 0 s", "x");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert!(o.findings.is_empty());
}

#[test]
fn empty_collections() {
    let (c, _) = one_disk();
    let r = rule(
        "vm",
        "let n = count(disk) over disks where disk.role == log\n\
         let s = sum(disk.iops_cap) over disks where disk.role == log\n\
         when n == 0 and s == 0 iops and not (any(disk.cache == none) over disks where disk.role == log)\n\
         and (all(disk.cache == none) over disks where disk.role == log)",
        "{n:.0} {s:.0}",
    );
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "0 0");
    let r = rule(
        "vm",
        "let m = avg(disk.iops_cap) over disks where disk.role == log\nwhen m > 0 iops",
        "x",
    );
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert!(o.findings.is_empty());
    assert!(o.not_evaluated[0].reason.contains("none passes `where`"), "{o:?}");
    // A sum of series over no disk is 0: not at any cap.
    let r = rule(
        "vm",
        "let s = sum(mbps) over disks where disk.role == temp\nwhen p95(s) > 1 MB/s",
        "x",
    );
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!((o.findings.len(), o.not_evaluated.len()), (0, 0), "{o:?}");
}

#[test]
fn missing_inputs_are_not_evaluated_with_what_to_provide() {
    // No topology at all.
    let c = Inputs::default();
    let vm_rule = rule("vm", "when vm.cached_mbps > 1 MB/s", "x");
    let o = evaluate_rule(&vm_rule, &c.facts, &c.series);
    assert_eq!(o.not_evaluated.len(), 1);
    assert_eq!(o.not_evaluated[0].reason, NEEDS_VM);
    assert_eq!(o.not_evaluated[0].subject, None);
    let sum_rule = rule("vm", "when p95(sum(iops) over disks) > 1 iops", "x");
    assert_eq!(evaluate_rule(&sum_rule, &c.facts, &c.series).not_evaluated[0].reason, NO_DISKS);
    let disk_rule = rule("disk", "when p95(iops) > 1 iops", "x");
    assert_eq!(evaluate_rule(&disk_rule, &c.facts, &c.series).not_evaluated[0].reason, NO_DISKS);
    let pool_rule = rule("pool", "when pool.columns != pool.disks", "x");
    assert_eq!(evaluate_rule(&pool_rule, &c.facts, &c.series).not_evaluated[0].reason, NO_POOLS);
    let bench_rule = rule("bench", "when bench.os_cache", "x");
    assert_eq!(evaluate_rule(&bench_rule, &c.facts, &c.series).not_evaluated[0].reason, NO_BENCH);

    // A metric the capture lacks names the counters to add.
    let (mut c, e) = one_disk();
    c.series.set_series(e, Metric::Iops, timed(&[1.0, 2.0]));
    let r = rule("disk", "when p95(latency_ms) > 5 ms", "x");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!(o.not_evaluated[0].subject.as_deref(), Some("E:"));
    assert!(
        o.not_evaluated[0]
            .reason
            .starts_with("needs a latency counter for this disk (PerfMon Avg. Disk sec/Transfer"),
        "{o:?}"
    );
    // Division by zero.
    c.series.set_series(e, Metric::Iops, timed(&[0.0, 0.0]));
    let r = rule("disk", "let x = 1 / avg(iops)\nwhen x > 1 s", "x");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert!(o.not_evaluated[0].reason.starts_with("division by zero"), "{o:?}");
    // `exists` never makes a rule not evaluated, and `or` / `and` short-circuit.
    let r = rule("disk", "when exists(latency_ms) or p95(iops) >= 0 iops", "x");
    assert_eq!(evaluate_rule(&r, &c.facts, &c.series).findings.len(), 1);
    let r = rule("disk", "when p95(latency_ms) > 1 ms and false", "x");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!((o.findings.len(), o.not_evaluated.len()), (0, 0));
}

#[test]
fn one_reason_per_rule_when_every_subject_shares_it() {
    let (mut c, _) = one_disk();
    for n in ["F:", "G:", "H:"] {
        c.facts.disks.push(p30_info(n, (Cache::None, Role::Data), None, Vec::new()));
    }
    let r = rule("disk", "when p95(iops) > 1 iops", "x");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    // E: has a target but no iops series; F:, G:, H: have no target: two reasons.
    assert_eq!(o.not_evaluated.len(), 2, "{o:#?}");
    assert!(o.not_evaluated.iter().any(|n| n.subject.as_deref() == Some("F:, G:, H:")));
    c.facts.disks.remove(0);
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!(o.not_evaluated.len(), 1);
    assert_eq!(o.not_evaluated[0].subject, None);
}

#[test]
fn interpolation_prints_display_units() {
    let (mut c, e) = one_disk();
    c.series.set_series(e, Metric::LatencyMs, timed(&[2.0, 4.0]));
    c.series.set_series(e, Metric::IoKib, timed(&[8.0, 8.0]));
    c.series.set_series(e, Metric::BusyPct, timed(&[50.0, 100.0]));
    let r = rule(
        "disk",
        "let lat = avg(latency_ms)\nlet io = p50(io_kib)\nlet busy = avg(busy_pct)\nwhen true",
        "{disk.name} {disk.cache} {lat:.1} ms {io} KiB {busy:.0}% {vm.memory:.0} GiB {vm.cache_size} {vm.size} {busy}",
    );
    let f = only(&evaluate_rule(&r, &c.facts, &c.series)).clone();
    assert_eq!(f.evidence, "E: ReadOnly 3.0 ms 8 KiB 75% 56 GiB 288 Standard_DS13_v2 75");
    assert_eq!(f.metrics.get("lat"), Some(&3.0));
    assert_eq!(f.metrics.get("io"), Some(&8.0));
    assert_eq!(f.metrics.get("busy"), Some(&75.0));
    assert_eq!(f.metrics.get("vm.memory"), Some(&56.0));
    // A value the evidence names but the topology lacks prints n/a.
    let r = rule("disk", "when true", "{disk.burst_iops:.0} IOPS");
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "n/a IOPS");
}

#[test]
fn capture_mib_and_azure_mb() {
    let (mut c, e) = one_disk();
    // 200 MiB/s in the capture is 209.7 MB/s against Azure's 200 MB/s cap.
    c.series.set_series(e, Metric::Mbps, timed(&[200.0, 200.0]));
    let r = rule(
        "disk",
        "let p = p95(mbps)\nwhen p >= disk.mbps_cap and p < 210 MB/s and p == 200 MiB/s",
        "{p:.1} MB/s of {disk.mbps_cap:.0} MB/s, {p:.0} MiB/s",
    );
    let f = only(&evaluate_rule(&r, &c.facts, &c.series)).clone();
    assert_eq!(f.evidence, "209.7 MB/s of 200 MB/s, 200 MiB/s");
    assert!((f.metrics["p"] - 209.7152).abs() < 1e-9, "{:?}", f.metrics);
    assert_eq!(f.metrics["disk.mbps_cap"], 200.0);
}

#[test]
fn benchmarks_use_the_tools_own_percentiles() {
    let mut c = Inputs::default();
    let t = c.facts.add_target("E:\\io.dat", TargetKind::Benchmark);
    c.series.set_series(t, Metric::LatencyMs, vec![(None, 2.0)]);
    c.series.set_series(t, Metric::Iops, vec![(None, 1000.0)]);
    c.series
        .percentiles
        .insert(t, vec![(Direction::Total, 99.9, 600.0), (Direction::Total, 100.0, 900.0)]);
    c.facts.benches.push(BenchInfo {
        target: t,
        name: "E:\\io.dat".to_owned(),
        settings: BenchSettings {
            tool: "DiskSpd".to_owned(),
            duration_s: Some(30.0),
            warmup_s: Some(0.0),
            ..Default::default()
        },
    });
    let r = rule(
        "bench",
        "let p999 = pct(latency_ms, 99.9)\nlet top = max(latency_ms)\nwhen p999 >= 500 ms",
        "{p999:.0} ms {top:.0} ms {bench.duration:.0} s {bench.warmup}",
    );
    let f = only(&evaluate_rule(&r, &c.facts, &c.series)).clone();
    assert_eq!(f.evidence, "600 ms 900 ms 30 s 0");
    assert_eq!(f.metrics.get("p999.from_source"), Some(&1.0));
    // Without the tool's percentiles a summary's p99 is not its average.
    let r = rule("bench", "when p99(latency_ms) > 1 ms", "x");
    c.series.percentiles.clear();
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert!(o.not_evaluated[0].reason.contains("own latency percentiles"), "{o:?}");
    // `sustained` needs samples over time.
    let r = rule("bench", "when sustained(iops > 1 iops, 1 s)", "x");
    assert!(
        evaluate_rule(&r, &c.facts, &c.series).not_evaluated[0]
            .reason
            .contains("samples over time")
    );
}

#[test]
fn set_overrides_change_the_outcome_and_output_is_sorted() {
    let (mut c, e) = one_disk();
    c.series.set_series(e, Metric::Iops, timed(&[4000.0, 4000.0]));
    let text = |id: &str, sev: &str| {
        format!(
            "rule {id}\ntitle \"t\"\nseverity {sev}\nscope disk\nparam cap = 90%  \"share\"\n\
             when p95(iops) >= disk.iops_cap * cap\nevidence \"{{cap:.0}}%\"\nfix \"f\"\n\
             doc what \"\"\"w\"\"\"\ndoc why \"\"\"y\"\"\"\ndoc fix \"\"\"f\"\"\"\n"
        )
    };
    let mut reg = Registry::new();
    let files = vec![
        RuleFile { path: "b-rule.rule".into(), text: text("b-rule", "info") },
        RuleFile { path: "a-rule.rule".into(), text: text("a-rule", "info") },
        RuleFile { path: "c-rule.rule".into(), text: text("c-rule", "critical") },
    ];
    reg.add_files(files, &Origin::Shipped).unwrap();
    assert!(evaluate(reg.rules(), &c.facts, &c.series).findings.is_empty());
    for id in ["a-rule", "b-rule", "c-rule"] {
        reg.set(&format!("{id}.cap=80%")).unwrap();
    }
    let o = evaluate(reg.rules(), &c.facts, &c.series);
    let ids: Vec<&str> = o.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(ids, ["c-rule", "a-rule", "b-rule"]);
    assert_eq!(o.findings[0].evidence, "80%");
}

#[test]
fn shipped_rules_evaluate_without_inputs() {
    let (reg, res) = Registry::shipped();
    res.unwrap();
    let o = evaluate(reg.rules(), &Facts::default(), &MemorySeries::default());
    assert!(o.findings.is_empty());
    // Every rule says why it was not evaluated, once.
    let mut ids: Vec<&str> = o.not_evaluated.iter().map(|n| n.rule.as_str()).collect();
    ids.dedup();
    assert_eq!(ids.len(), reg.len());
}

#[test]
fn frame_values_equal_to_a_literal_compare_equal() {
    // 35 % busy and 9 ms in the capture are exactly the literals `35%` and `9 ms`
    // (35 * 0.01 and 9 * 0.001 are not: they land one ulp above).
    let (mut c, e) = one_disk();
    c.series.set_series(e, Metric::BusyPct, timed(&[35.0, 35.0]));
    c.series.set_series(e, Metric::LatencyMs, timed(&[9.0, 9.0]));
    let r = rule("disk", "when max(busy_pct) <= 35% and max(latency_ms) <= 9 ms", "x");
    assert_eq!(evaluate_rule(&r, &c.facts, &c.series).findings.len(), 1);
    let r = rule("disk", "when min(busy_pct) > 35% or min(latency_ms) > 9 ms", "x");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!((o.findings.len(), o.not_evaluated.len()), (0, 0), "{o:?}");
}

#[test]
fn a_deciding_scalar_beside_a_bool_series_keeps_the_series_times() {
    let (mut c, e) = one_disk();
    c.series.set_series(e, Metric::Iops, timed(&[500.0, 500.0, 500.0]));
    // `x or true` holds at each of the 3 samples: 3 s, not "sustained for any time".
    let r = rule("disk", "param on = true \"p\"\nwhen sustained(on or iops > 1 iops, 1 h)", "x");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!((o.findings.len(), o.not_evaluated.len()), (0, 0), "{o:?}");
    let r = rule("disk", "let t = duration(iops > 1 iops and false)\nwhen t == 0 s", "x");
    assert_eq!(evaluate_rule(&r, &c.facts, &c.series).findings.len(), 1);
    let r = rule("disk", "let t = duration(iops > 1 iops or true)\nwhen t == 3 s", "x");
    assert_eq!(evaluate_rule(&r, &c.facts, &c.series).findings.len(), 1);
    // Beside a missing series it stays a constant: never held is 0 s; always held has no
    // length to measure.
    let r = rule("disk", "let t = duration(write_iops > 1 iops and false)\nwhen t == 0 s", "x");
    assert_eq!(evaluate_rule(&r, &c.facts, &c.series).findings.len(), 1);
    let r = rule("disk", "when sustained(write_iops > 1 iops or true, 1 s)", "x");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert!(o.not_evaluated[0].reason.contains("no samples to time it by"), "{o:?}");
}

#[test]
fn reductions_of_an_empty_series_are_not_evaluated() {
    // Series that share no sample time give an empty series: missing, as for `avg`,
    // whether or not the capture states its interval.
    let (mut c, e) = one_disk();
    c.series.set_series(e, Metric::Iops, vec![(Some(0), 5.0), (Some(2000), 5.0)]);
    c.series.set_series(e, Metric::LatencyMs, vec![(Some(1000), 5.0), (Some(3000), 5.0)]);
    for cond in [
        "duration(iops > latency_ms * 1 iops / 1 ms) >= 0 s",
        "not sustained(iops > latency_ms * 1 iops / 1 ms, 0 s)",
        "share(iops > latency_ms * 1 iops / 1 ms) >= 0%",
    ] {
        let r = rule("disk", &format!("when {cond}"), "x");
        let o = evaluate_rule(&r, &c.facts, &c.series);
        assert!(o.findings.is_empty(), "{cond}: {o:?}");
        assert!(o.not_evaluated[0].reason.starts_with("no common samples"), "{cond}: {o:?}");
    }
}

/// `disk.cache` is the effective cache, `disk.cache_setting` the written one; `can_cache`
/// and `write_accelerator` say what they lack; `bench.host_cache` is the cache of the disk
/// the run targeted; `vm.family` the size's family letters.
#[test]
fn host_cache_fields() {
    let (mut c, t) = one_disk();
    {
        let l = &mut c.facts.disks[0].limits;
        l.cache = Cache::None;
        l.cache_setting = Cache::ReadOnly;
        l.can_cache = Some(false);
        l.write_accelerator = Some(false);
    }
    let r = rule(
        "disk",
        "when disk.cache == none and disk.cache_setting == readonly and not disk.can_cache and not disk.write_accelerator and vm.family == \"DS\"",
        "{disk.cache} {disk.cache_setting}",
    );
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "None ReadOnly");
    let can = rule("disk", "when disk.can_cache", "x");
    let wa = rule("disk", "when disk.write_accelerator", "x");
    {
        let l = &mut c.facts.disks[0].limits;
        l.can_cache = None;
        l.write_accelerator = None;
    }
    let o = evaluate_rule(&can, &c.facts, &c.series);
    assert!(o.not_evaluated[0].reason.contains("depends on the VM size"), "{o:?}");
    c.facts.disks[0].limits.kind = None;
    let o = evaluate_rule(&can, &c.facts, &c.series);
    assert!(o.not_evaluated[0].reason.contains("give its sku"), "{o:?}");
    let o = evaluate_rule(&wa, &c.facts, &c.series);
    assert!(o.not_evaluated[0].reason.contains("write_accelerator = true or false"), "{o:?}");

    // A benchmark whose target is the disk's reads its effective cache; another does not.
    c.facts.disks[0].limits.cache = Cache::ReadWrite;
    let other = c.facts.add_target(r"F:\io.dat", TargetKind::Benchmark);
    for (target, name) in [(t, "E:"), (other, r"F:\io.dat")] {
        c.facts.benches.push(BenchInfo {
            target,
            name: name.to_owned(),
            settings: BenchSettings { tool: "DiskSpd".to_owned(), ..Default::default() },
        });
    }
    let b = rule("bench", "when bench.host_cache != none", "{bench.host_cache}");
    let o = evaluate_rule(&b, &c.facts, &c.series);
    assert_eq!(only(&o).evidence, "ReadWrite");
    assert_eq!(o.not_evaluated.len(), 1, "{o:?}");
    assert!(o.not_evaluated[0].reason.contains("is not in the topology"), "{o:?}");
}

/// `case` lines: the first whose condition holds gives severity, title and texts; a case
/// whose condition is missing is skipped; none holding leaves the rule's own.
#[test]
fn the_first_case_that_holds_sets_severity_and_texts() {
    let (mut c, e) = one_disk();
    c.series.set_series(e, Metric::Iops, timed(&[100.0, 200.0, 300.0]));
    let body = |peak: &str| {
        format!(
            "let peak = max(iops)\nwhen peak > 0 iops\nevidence \"base {{peak:.0}}\"\nfix \"f\"\n\
             case info when peak < vm.uncached_burst_iops\nevidence \"missing burst\"\nfix \"x\"\n\
             case critical when peak >= {peak}\ntitle \"hot\"\nevidence \"hot {{peak:.0}}\"\nfix \"cool it\"\n\
             case info when peak >= 1 iops\nevidence \"warm\"\nfix \"y\""
        )
    };
    let compile = |peak: &str| {
        let src = format!(
            "rule t\ntitle \"t\"\nseverity warning\nscope disk\n{}\n\
             doc what \"\"\"w\"\"\"\ndoc why \"\"\"y\"\"\"\ndoc fix \"\"\"f\"\"\"\n",
            body(peak)
        );
        crate::compile("t.rule", &src).unwrap_or_else(|d| panic!("{d:?}"))
    };
    // DS13_v2 publishes no burst IOPS: the first case is missing, so skipped.
    let o = evaluate_rule(&compile("250 iops"), &c.facts, &c.series);
    let f = only(&o);
    assert_eq!(f.severity, advisor_model::Severity::Critical);
    assert_eq!(
        (f.title.as_str(), f.evidence.as_str(), f.fix.as_str()),
        ("hot", "hot 300", "cool it")
    );
    let o = evaluate_rule(&compile("400 iops"), &c.facts, &c.series);
    let f = only(&o);
    assert_eq!(f.severity, advisor_model::Severity::Info);
    assert_eq!((f.title.as_str(), f.evidence.as_str()), ("t", "warm"));
    // Printing keeps the cases.
    let printed = crate::print(&compile("400 iops").ast);
    assert!(printed.contains("case critical when peak >= 400 iops\ntitle    \"hot\""), "{printed}");
}

#[test]
fn coalesce_falls_back_only_when_the_first_is_missing() {
    let (mut c, e) = one_disk();
    c.series.set_series(e, Metric::Iops, timed(&[100.0, 200.0]));
    // DS13_v2 has no burst figure: the base cap stands in.
    let r = rule(
        "vm",
        "let cap = coalesce(vm.uncached_burst_iops, vm.uncached_iops)\nwhen cap > 0 iops",
        "{cap:.0}",
    );
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "25600");
    let r =
        rule("vm", "let cap = coalesce(vm.uncached_iops, 1 iops)\nwhen cap > 0 iops", "{cap:.0}");
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "25600");
    // A collection whose elements all lack the metric falls back to 0.
    let r = rule(
        "vm",
        "let w = p95(coalesce(sum(write_iops) over disks, 0 iops) + sum(iops) over disks)\nwhen w > 0 iops",
        "{w:.0}",
    );
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "200");
}

#[test]
fn if_chooses_lazily_and_text_follows_the_tier() {
    let (mut c, e) = one_disk();
    c.series.set_series(e, Metric::Iops, timed(&[100.0, 100.0]));
    // E: is ReadOnly: the write branch is chosen and there is no write counter, so the
    // rule is not evaluated; the iops branch is never needed.
    let r = rule(
        "disk",
        "let judged = if(cache == none, iops, write_iops)\nwhen max(judged) > 0 iops",
        "x",
    );
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert!(o.findings.is_empty());
    assert!(o.not_evaluated[0].reason.contains("IOPS counter"), "{o:#?}");
    // With the write counter present it evaluates, and never touches the other branch.
    c.series.set_series(e, Metric::WriteIops, timed(&[7.0, 9.0]));
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!(only(&o).metrics.get("judged"), None, "a series let is not a metric");
    // Text by tier; a missing tier falls back through `exists(...) and`.
    let text = "let v2 = exists(disk.tier) and disk.tier == \"Premium SSD v2\"\nwhen true";
    let r = rule("disk", text, "{if(v2, \"raise provisioned IOPS\", \"raise the tier\")}");
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "raise the tier");
    c.facts.disks[0].tier = Some("Premium SSD v2".to_owned());
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "raise provisioned IOPS");
    c.facts.disks[0].tier = None;
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "raise the tier");
}

#[test]
fn a_target_knows_the_disks_and_mb_s_behind_it() {
    let (mut c, e) = one_disk();
    let vol = c.facts.add_target("6 F:", TargetKind::Volume);
    let members: Vec<usize> = (0..3)
        .map(|k| {
            c.facts.disks.push(DiskInfo {
                limits: disk(
                    &format!("disk{k}"),
                    Cache::None,
                    Role::Data,
                    Some(5000.0),
                    Some(200.0),
                ),
                tier: None,
                temp: false,
                targets: Vec::new(),
            });
            c.facts.disks.len() - 1
        })
        .collect();
    let mut limits = advisor_model::limits::PoolLimits {
        name: "F:".to_owned(),
        members: vec!["disk0".into(), "disk1".into(), "disk2".into()],
        columns: Some(3),
        interleave_kib: Some(64),
        sum_iops: Some(15000.0),
        sum_mbps: Some(600.0),
        sum_burst_iops: None,
        sum_burst_mbps: None,
        unknown_members: Vec::new(),
        vm_iops: None,
        vm_mbps: None,
        effective_iops: None,
        effective_mbps: None,
        vm_bound_iops: false,
        vm_bound_mbps: false,
    };
    limits.columns = Some(3);
    c.facts.pools.push(PoolInfo { limits, members, targets: vec![vol] });
    let lonely = c.facts.add_target("sdz", TargetKind::Device);
    let r = rule("target", "when target.disks >= 1", "{target.disks:.0} {target.mbps_cap:.0}");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    let by = |name: &str| o.findings.iter().find(|f| f.subject == name).map(|f| f.evidence.clone());
    assert_eq!(by("2 E:").as_deref(), Some("1 200"));
    assert_eq!(by("6 F:").as_deref(), Some("3 600"));
    assert_eq!(by("sdz"), None);
    assert!(o.not_evaluated.iter().any(|n| n.reason.contains("matches no topology disk")));
    let _ = (e, lonely);
}

/// The platform scope: Azure Monitor's budgets, `target.budget`, and the run functions
/// (`longest`, `runs`, `spans`, `during`) on minutes in UTC.
#[test]
fn platform_scope_budgets_and_run_functions() {
    let mut c = Inputs::default();
    let guest = c.facts.add_target("2 E:", TargetKind::Disk);
    let cached = c.facts.add_target("VM cached", TargetKind::Platform);
    let lun = c.facts.add_target("web_1: LUN 0", TargetKind::Platform);
    let t0 = 1_718_130_600_000; // 2024-06-11 18:30 UTC
    let minutes = |v: &[f64]| -> Series {
        v.iter().enumerate().map(|(i, x)| (Some(t0 + i as i64 * 60_000), *x)).collect()
    };
    c.series.set_series(
        cached,
        Metric::IopsConsumedPct,
        minutes(&[10.0, 99.0, 99.0, 20.0, 96.0, 10.0]),
    );
    c.series.set_series(
        cached,
        Metric::GuestLatencyMs,
        minutes(&[2.0, 30.0, 40.0, 2.0, 20.0, 4.0]),
    );
    c.series.set_series(lun, Metric::IopsConsumedPct, minutes(&[1.0, 2.0]));
    let r = rule(
        "platform",
        "let at_cap = iops_consumed_pct >= 95%\nlet longest_s = longest(at_cap)\nlet n = runs(at_cap)\n\
         let hot_ms = avg(during(guest_latency_ms, at_cap))\nlet cold_ms = avg(during(guest_latency_ms, not at_cap))\n\
         when target.budget == \"vm cached\"",
        "{longest_s:.0} s {n:.0} {spans(at_cap)} {hot_ms:.0} {cold_ms:.1} {target.budget}",
    );
    let o = evaluate_rule(&r, &c.facts, &c.series);
    // Known: the guest target is not a subject, the LUN's budget is `disk` (quiet).
    assert_eq!(only(&o).subject, "VM cached");
    assert_eq!(
        only(&o).evidence,
        "120 s 2 18:31-18:33 on 2024-06-11, 18:34-18:35 30 2.7 vm cached"
    );
    assert!(o.not_evaluated.is_empty(), "{:?}", o.not_evaluated);
    // Unknown: a condition that never holds leaves `during` missing, with the reason.
    let r = rule(
        "platform",
        "let x_ms = avg(during(guest_latency_ms, iops_consumed_pct > 100%))\nwhen x_ms > 0 ms",
        "{x_ms}",
    );
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert!(o.not_evaluated.iter().any(|n| n.reason.contains("never holds")), "{o:?}");
    // No platform targets: the rule says what to add.
    let mut g = Inputs::default();
    g.facts.add_target("2 E:", TargetKind::Disk);
    let o = evaluate_rule(&r, &g.facts, &g.series);
    assert_eq!(o.not_evaluated.len(), 1);
    assert!(o.not_evaluated[0].reason.starts_with("no Azure Monitor metrics in the inputs"));
    let _ = guest;
}

/// The tier's norm, the burst model, and what a target knows of its disk: known from the
/// topology, missing with what to give when it is not; a benchmark's steady state and rate
/// limit, missing when the output does not say.
#[test]
fn tier_norms_burst_models_and_benchmark_settlement() {
    let (mut c, e) = one_disk();
    let r =
        rule("disk", "when disk.latency_norm > 0 ms", "{disk.latency_norm:.1} {disk.burst_model}");
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "2.0 none");
    c.facts.disks[0].limits.kind = Some(advisor_model::limits::DiskKind::PremiumSsdV2);
    c.facts.disks[0].limits.burst = advisor_model::limits::BurstModel::Credit;
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "0.5 credit");
    c.facts.disks[0].limits.kind = None;
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert!(o.not_evaluated[0].reason.contains("give its sku"), "{o:?}");

    c.facts.disks[0].limits.kind = Some(advisor_model::limits::DiskKind::StandardHdd);
    let lonely = c.facts.add_target("sdz", TargetKind::Device);
    let r = rule(
        "target",
        "when target.latency_norm > 0 ms",
        "{target.tier} {target.latency_norm:.0} {target.local} {target.iops_cap:.0}",
    );
    let o = evaluate_rule(&r, &c.facts, &c.series);
    let f = o.findings.iter().find(|f| f.subject == "2 E:").expect("2 E:");
    assert_eq!(f.evidence, "Premium SSD 10 false 5000");
    let n = o.not_evaluated.iter().find(|n| n.subject.as_deref() == Some("sdz")).expect("sdz");
    assert!(n.reason.contains("matches no topology disk"), "{n:?}");
    // The temp disk: local, its own norm.
    c.facts.disks.push(DiskInfo {
        limits: disk("D:", Cache::ReadWrite, Role::Temp, None, None),
        tier: None,
        temp: true,
        targets: vec![lonely],
    });
    let r = rule("target", "when target.local", "{target.tier} {target.latency_norm:.1}");
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!(
        o.findings.iter().find(|f| f.subject == "sdz").map(|f| f.evidence.as_str()),
        Some("temp disk 0.5")
    );
    let _ = e;

    let mut c = Inputs::default();
    let t = c.facts.add_target("fio.dat", TargetKind::Benchmark);
    let settings = BenchSettings {
        tool: "fio".to_owned(),
        steady_state: Some(true),
        rate_limited: Some(false),
        ..Default::default()
    };
    c.facts.benches.push(BenchInfo { target: t, name: "fio.dat".to_owned(), settings });
    let r = rule("bench", "when bench.steady_state and not bench.rate_limited", "{bench.name}");
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "fio.dat");
    c.facts.benches[0].settings.steady_state = None;
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert!(o.not_evaluated[0].reason.contains("steadystate"), "{o:?}");
}

/// A database file of SQL Server's file statistics on disk `di`, its own capture target.
fn db_file(
    c: &mut Inputs,
    path: &str,
    db: (&str, u32),
    kind: advisor_model::DbFileKind,
    di: Option<usize>,
) {
    let t = c.facts.add_target(path, TargetKind::File);
    let file = advisor_model::DbFile {
        target: t.target,
        database: Some(db.0.to_owned()),
        database_id: Some(db.1),
        file_id: Some(1),
        logical_name: None,
        path: Some(path.to_owned()),
        kind,
        size_bytes: None,
        since_start: false,
    };
    c.facts.files.push(FileInfo {
        target: t,
        name: path.to_owned(),
        file,
        drive: Some(path[..2].to_owned()),
        disk: di,
        pool: None,
    });
}

#[test]
fn file_scope_and_the_files_on_a_disk() {
    use advisor_model::DbFileKind::{Log, Rows};
    let (mut c, _, _) = two_disks();
    // Without file statistics: not evaluated, with the query to run.
    let r = rule("disk", "when disk.log_files > 0", "x");
    assert_eq!(evaluate_rule(&r, &c.facts, &c.series).not_evaluated[0].reason, NO_FILES);
    let fr = rule("file", "when file.role == log", "x");
    assert_eq!(evaluate_rule(&fr, &c.facts, &c.series).not_evaluated[0].reason, NO_FILES);

    db_file(&mut c, r"E:\data\sales.mdf", ("sales", 5), Rows, Some(0));
    db_file(&mut c, r"E:\log\sales_log.ldf", ("sales", 5), Log, Some(0));
    db_file(&mut c, r"E:\tempdb\templog.ldf", ("tempdb", 2), Log, Some(0));
    db_file(&mut c, r"E:\sys\mastlog.ldf", ("master", 1), Log, Some(0));
    db_file(&mut c, r"Q:\x\other.ldf", ("other", 6), Log, None);
    let r = rule(
        "disk",
        "when disk.log_files > 0",
        "{disk.name}: {disk.data_files:.0} data, {disk.log_files:.0} logs, {disk.tempdb_files:.0} tempdb: {disk.files}",
    );
    let o = evaluate_rule(&r, &c.facts, &c.series);
    // The system database's log and tempdb's are not a user database's files; the list is
    // by role (logs, tempdb, data), then by path.
    assert_eq!(
        only(&o).evidence,
        r"E:: 1 data, 1 logs, 1 tempdb: sales_log.ldf (sales, log), mastlog.ldf (master, log), templog.ldf (tempdb, log), sales.mdf (sales, data)"
    );
    // A file's fields and its disk's; a file on no topology disk names its drive.
    let fr = rule(
        "file",
        "when file.role == log and not file.system and file.disk.cache != none",
        "{file.name} {file.database} {file.role} {file.type} {file.drive} on {file.disk.name} ({file.disk.cache})",
    );
    let o = evaluate_rule(&fr, &c.facts, &c.series);
    assert_eq!(only(&o).evidence, r"E:\log\sales_log.ldf sales log LOG E: on E: (ReadOnly)");
    let n: Vec<&str> = o.not_evaluated.iter().map(|n| n.reason.as_str()).collect();
    assert_eq!(n.len(), 1, "{n:?}");
    assert!(
        n[0].starts_with(r"Q:\x\other.ldf is on Q:, which no topology disk is named as"),
        "{n:?}"
    );
    // tempdb's files have the tempdb role whatever their type.
    let tr = rule("file", "when file.role == tempdb", "{file.name}");
    assert_eq!(only(&evaluate_rule(&tr, &c.facts, &c.series)).evidence, r"E:\tempdb\templog.ldf");
}

#[test]
fn vm_generation_is_the_number_after_v() {
    let c = Inputs::with_vm();
    let r = rule("vm", "when vm.generation == 2", "{vm.size}: v{vm.generation:.0}");
    assert_eq!(only(&evaluate_rule(&r, &c.facts, &c.series)).evidence, "Standard_DS13_v2: v2");
    assert_eq!(fields::generation("Standard_D8ds_v6"), 6);
    assert_eq!(fields::generation("Standard_DS1"), 1);
    assert_eq!(fields::generation("Standard_M416s_8_v2"), 2);
}
