//! What the rules of a group share: a call written twice in one rule, an aggregate two
//! rules write alike, and the grouped evaluation against each rule alone.

use super::*;

/// [`two_disks`] with three samples of IOPS each: 50-70 on `E:`, 500-700 on `F:`.
fn two_busy_disks() -> Inputs {
    let (mut c, e, f) = two_disks();
    c.series.set_series(e, Metric::Iops, timed(&[50.0, 60.0, 70.0]));
    c.series.set_series(f, Metric::Iops, timed(&[500.0, 600.0, 700.0]));
    c
}

// A call written twice is worked out once per element of an `over` (and once for the
// subject), never taken from another element's or from outside the `over`.
#[test]
fn repeated_calls_are_worked_out_per_element() {
    let c = two_busy_disks();
    let r = rule(
        "vm",
        "let mid = count(p50(iops) >= 100 iops and p50(iops) < 1000 iops) over disks
         let low = count(p50(iops) < 100 iops) over disks
         when mid == 1 and low == 1 and p50(sum(iops) over disks) > max(p50(iops)) over disks",
        "{mid:.0} {low:.0} {p50(sum(iops) over disks):.0}",
    );
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!(only(&o).evidence, "1 1 660");
    assert!(r.repeated.len() >= 4, "{:?}", r.repeated);
}

/// [`one_disk`], a log disk `F:` with two targets (PerfMon's PhysicalDisk and its volume
/// beside it: the disk, its two targets and their rules are one group) and a disk `G:` no
/// capture names (a group of its own), four minutes of a busy day on each target, enough
/// to fire some of the shipped rules.
pub(super) fn busy_disks() -> Inputs {
    let (mut c, e) = one_disk();
    let f = c.facts.add_target("3 F:", TargetKind::Disk);
    c.series.intervals.insert(f, 1.0);
    // F:'s volume as a second target (PerfMon's LogicalDisk beside its PhysicalDisk): the
    // disk, its two targets and their rules are one group.
    let f2 = c.facts.add_target("F:", TargetKind::Disk);
    c.series.intervals.insert(f2, 1.0);
    c.facts.disks.push(p30_info("F:", (Cache::None, Role::Log), Some("Premium SSD"), vec![f, f2]));
    // A disk no capture names: a group of its own.
    c.facts.disks.push(DiskInfo {
        limits: disk("G:", Cache::None, Role::Data, Some(500.0), Some(100.0)),
        tier: None,
        temp: false,
        targets: vec![],
    });
    let wave = |base: f64, i: usize| base * (1.0 + 0.3 * ((i % 17) as f64 / 17.0));
    for (t, iops, kib, lat) in
        [(e, 4900.0, 8.0, 12.0), (f, 900.0, 256.0, 60.0), (f2, 880.0, 256.0, 55.0)]
    {
        let s = |g: &dyn Fn(usize) -> f64| -> Series {
            (0..240).map(|i| (Some(i as i64 * 1000), g(i))).collect()
        };
        c.series.set_series(t, Metric::Iops, s(&|i| wave(iops, i).min(5000.0)));
        c.series.set_series(t, Metric::WriteIops, s(&|i| wave(iops, i) / 2.0));
        c.series.set_series(t, Metric::ReadIops, s(&|i| wave(iops, i) / 2.0));
        c.series.set_series(t, Metric::Mbps, s(&|i| wave(iops, i) * kib / 1024.0));
        c.series.set_series(t, Metric::IoKib, s(&|_| kib));
        c.series.set_series(
            t,
            Metric::LatencyMs,
            s(&|i| wave(lat, i) * if i % 50 == 0 { 20.0 } else { 1.0 }),
        );
        c.series.set_series(t, Metric::QueueDepth, s(&|i| wave(32.0, i)));
    }
    c
}

// Subject by subject with a cache per group of targets (a disk with two targets is one
// group with both) gives what each rule evaluated on its own gives: every finding (its
// texts, figures and episodes) and every reason a rule was not evaluated, with the
// shipped rules over disks that fire some of them.
#[test]
fn grouped_evaluation_is_rule_by_rule_evaluation() {
    let together = grouped_is_alone(&busy_disks());
    assert!(together.findings.len() >= 3, "{together:#?}");
}

/// The shipped rules evaluated together on `c`, asserted equal to each evaluated alone.
pub(super) fn grouped_is_alone(c: &Inputs) -> Outcome {
    let (reg, res) = Registry::shipped();
    res.unwrap();
    let together = evaluate(reg.rules(), &c.facts, &c.series);
    let mut alone = Outcome::default();
    for r in reg.rules() {
        let o = evaluate_rule(r, &c.facts, &c.series);
        alone.findings.extend(o.findings);
        alone.not_evaluated.extend(o.not_evaluated);
    }
    run::sort(&mut alone);
    let strip = |o: &Outcome| -> Vec<Finding> {
        o.findings
            .iter()
            .cloned()
            .map(|mut f| {
                // Linked after the rules ran: not a rule's own output.
                f.causes.clear();
                f.explained_by.clear();
                f
            })
            .collect()
    };
    assert_eq!(strip(&together), strip(&alone));
    assert_eq!(together.not_evaluated, alone.not_evaluated);
    together
}

// An aggregate two rules of a group write alike (whatever they call their lets and
// parameters) is worked out once and handed to the second; another parameter value is
// another aggregate; the value is dropped when no later rule writes it.
#[test]
fn aggregates_written_alike_are_shared_within_a_group() {
    let c = two_busy_disks();
    let a = rule(
        "vm",
        "param floor = 100 iops \"f\"\nlet total = sum(iops) over disks where disk.iops_cap >= floor\n\
         when p50(total) > 0 iops",
        "{p50(total):.0}",
    );
    let b = rule(
        "vm",
        "param lowest = 100 iops \"l\"\nlet spare = lowest * 2\n\
         let every = sum(iops)  over disks where disk.iops_cap>=lowest\nwhen max(every) > 0 iops",
        "{max(every):.0}",
    );
    let other = rule(
        "vm",
        "param lowest = 200 iops \"l\"\nlet every = sum(iops) over disks where disk.iops_cap >= lowest\n\
         when max(every) > 0 iops",
        "{max(every):.0}",
    );
    let key = |r: &CheckedRule| cache::shared_keys(r).into_values().next().unwrap();
    assert_eq!(key(&a), key(&b));
    assert_ne!(key(&a), key(&other));
    let (ka, kb, ko) = (cache::shared_keys(&a), cache::shared_keys(&b), cache::shared_keys(&other));
    // The rules are all called `t`: give each its own id in the group.
    let shared = cache::Shared::of_group([("a", &ka), ("b", &kb), ("o", &ko)]);
    let span_of = |keys: &cache::SharedKeys| *keys.keys().next().unwrap();
    assert!(shared.key("a", span_of(&ka)).is_some() && shared.key("b", span_of(&kb)).is_some());
    assert!(shared.key("o", span_of(&ko)).is_none(), "a value written by one rule is its own");
    let cache = SeriesCache::with_axes(&std::sync::Arc::default(), shared);
    let mut a = a;
    a.id = "a".to_owned();
    let mut b = b;
    b.id = "b".to_owned();
    let series_of = |r: &CheckedRule, i: usize| -> TimeSeries<f64> {
        let mut env = Evaluation::new(r, (&c.facts, &c.series), None, &cache);
        match env.let_value(i) {
            Ok(Value::Nums(s)) => s,
            v => panic!("{v:?}"),
        }
    };
    let first = series_of(&a, 0);
    let second = series_of(&b, 1);
    assert!(first.vals.ptr_eq(&second.vals), "one value, handed over");
    assert_eq!(*first.vals, vec![550.0, 660.0, 770.0]);
    // Evaluated alone, each gives what it gives in the group.
    assert_eq!(only(&evaluate_rule(&a, &c.facts, &c.series)).evidence, "660");
    assert_eq!(only(&evaluate_rule(&b, &c.facts, &c.series)).evidence, "770");
    // No later rule writes it: dropped.
    let sum_key = cache.shared.key("a", span_of(&ka)).unwrap();
    assert!(cache.shared.get(None, &sum_key).is_some());
    cache.shared.forget(["o"].into_iter());
    assert!(cache.shared.get(None, &sum_key).is_none());
}
