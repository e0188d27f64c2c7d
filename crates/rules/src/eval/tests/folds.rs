//! The `vm` rules' aggregates folded from the groups that load their elements
//! ([`crate::eval::streams`]).

use super::sharing::{busy_disks, grouped_is_alone};
use super::*;
use crate::ast::Span;
use crate::eval::streams::Streams;

/// [`busy_disks`] with the temp disk `D:` last among the disks and first among the
/// targets (so its value comes in out of the targets' order), busy too.
fn with_temp_disk() -> Inputs {
    let mut c = busy_disks();
    let d = c.facts.add_target("1 D:", TargetKind::Disk);
    c.facts.targets.rotate_right(1);
    for (i, t) in c.facts.targets.iter_mut().enumerate() {
        t.id = TargetId { capture: 0, target: i as u32 };
    }
    // The ids moved one up: so do the series and the disks' targets.
    let moved: Vec<_> = std::mem::take(&mut c.series.series).into_iter().collect();
    for ((t, m), s) in moved {
        c.series.series.insert((TargetId { target: t.target + 1, ..t }, m), s);
    }
    c.series.intervals = c
        .series
        .intervals
        .iter()
        .map(|(t, i)| (TargetId { target: t.target + 1, ..*t }, *i))
        .collect();
    for disk in &mut c.facts.disks {
        for t in &mut disk.targets {
            t.target += 1;
        }
    }
    let d = TargetId { target: 0, ..d };
    c.series.intervals.insert(d, 1.0);
    let mut temp = p30_info("D:", (Cache::ReadWrite, Role::Temp), None, vec![d]);
    temp.temp = true;
    c.facts.disks.push(temp);
    let s = |g: &dyn Fn(usize) -> f64| -> Series {
        (0..240).map(|i| (Some(i as i64 * 1000), g(i))).collect()
    };
    c.series.set_series(d, Metric::Iops, s(&|i| 3000.0 + (i % 7) as f64));
    c.series.set_series(d, Metric::WriteIops, s(&|i| 1000.0 + (i % 5) as f64));
    c.series.set_series(d, Metric::ReadIops, s(&|i| 2000.0 + (i % 3) as f64));
    c.series.set_series(d, Metric::Mbps, s(&|i| 90.0 + (i % 11) as f64));
    c.series.set_series(d, Metric::LatencyMs, s(&|i| 0.5 + (i % 13) as f64 / 10.0));
    c.series.set_series(d, Metric::QueueDepth, s(&|i| 2.0 + (i % 4) as f64));
    c
}

/// The aggregate of `rule` at `span`, outside any other.
fn aggregate_at(rule: &CheckedRule, span: Span) -> &TypedExpr {
    let mut out = None;
    cache::each_root(rule, &mut |root| {
        cache::walk_while(root, &mut |e| {
            let aggregate = matches!(e.kind, TypedExprKind::Aggregate { .. });
            if aggregate && e.span == span {
                out = Some(e);
            }
            !aggregate
        });
    });
    out.expect("the aggregate")
}

/// A value's numbers (or bools) as bits, with its time stamps: equal only when equal to the bit.
fn bits(v: &Value) -> (Vec<Option<i64>>, Vec<u64>) {
    match v {
        Value::Num(x) => (Vec::new(), vec![x.to_bits()]),
        Value::Nums(s) => (s.times.to_vec(), s.vals.iter().map(|x| x.to_bits()).collect()),
        Value::Bool(b) => (Vec::new(), vec![u64::from(*b)]),
        Value::Bools(s) => (s.times.to_vec(), s.vals.iter().map(|b| u64::from(*b)).collect()),
        v => panic!("not a number or a bool: {v:?}"),
    }
}

/// The folds of `rules` on `c`, their bodies evaluated in reverse order on `threads`
/// threads (each taking every `threads`th), each with a cache of its own (as groups
/// that finish in any order): by rule, the source of each aggregate folded and its value.
fn folded(rules: &[&CheckedRule], c: &Inputs, threads: usize) -> Vec<(usize, String, Value)> {
    let keys: Vec<cache::SharedKeys> = rules.iter().map(|r| cache::shared_keys(r)).collect();
    let (streams, items) = Streams::plan(rules, &keys, &c.facts, &c.series);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (streams, items) = (&streams, &items);
            scope.spawn(move || {
                for it in items.iter().rev().skip(t).step_by(threads) {
                    streams.evaluate(it, &c.facts, &c.series, &SeriesCache::default());
                }
            });
        }
    });
    let mut out: Vec<(usize, String, Value)> = streams
        .finish(rules)
        .into_iter()
        .flat_map(|(r, values)| {
            values.into_iter().map(move |((id, span), (v, _))| {
                assert_eq!(id, rules[r].id);
                // The span runs on to the next line's comment: the aggregate's own line.
                let src = rules[r].source[span.start..span.end].lines().next().unwrap_or("");
                let src = src.trim().to_owned();
                (r, src, v)
            })
        })
        .collect();
    out.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    out
}

// Each `vm` rule's aggregate over the disks or targets whose `where` reads facts only is
// folded from its elements' values, taken in any order, and the folded value is the one
// the rule works out itself, to the bit: sums and maxima of series over the remote disks,
// the temp disk left out by `where` or counted in, a disk no capture names skipped.
#[test]
fn folded_aggregates_are_the_rules_own_in_any_order() {
    let c = with_temp_disk();
    let (reg, res) = Registry::shipped();
    res.unwrap();
    let rules: Vec<&CheckedRule> = reg.rules().collect();
    let got = folded(&rules, &c, 1);
    let cache = SeriesCache::default();
    for (r, src, v) in &got {
        let rule = rules[*r];
        assert_eq!(rule.scope, crate::types::Scope::Vm);
        let span = *cache::shared_keys(rule)
            .keys()
            .find(|s| rule.source[s.start..s.end].lines().next().map(str::trim) == Some(src))
            .expect("a span");
        let mut env = Evaluation::new(rule, (&c.facts, &c.series), None, &cache);
        // With a cache of its own: nothing folded or shared, the rule works it out.
        let own = env.eval(aggregate_at(rule, span)).unwrap();
        assert_eq!(bits(&own), bits(v), "{}: {src}", rule.id);
    }
    let of = |id: &str| -> Vec<&str> {
        got.iter().filter(|(r, _, _)| rules[*r].id == id).map(|(_, s, _)| s.as_str()).collect()
    };
    assert_eq!(
        of("vm-uncached-iops-cap"),
        [
            "any(p95(latency_ms) >= disk.latency_norm * latency_factor) over disks where disk.role != temp",
            "max(latency_ms) over disks where disk.role != temp",
            "sum(iops) over disks where disk.role != temp",
            "sum(read_iops) over disks where disk.role != temp and disk.cache == none",
            "sum(write_iops) over disks where disk.role != temp",
        ]
    );
    let busy = of("inferred-vm-cap");
    assert!(busy.contains(&"count(p50(iops) >= busy_floor) over targets where kind == \"disk\" or kind == \"device\""), "{busy:?}");
    // Brought by three threads at once (a value comes while another is folded in): the
    // same values.
    for _ in 0..20 {
        let again = folded(&rules, &c, 3);
        assert!(
            got.len() == again.len()
                && got
                    .iter()
                    .zip(&again)
                    .all(|(a, b)| { a.0 == b.0 && a.1 == b.1 && bits(&a.2) == bits(&b.2) })
        );
    }
    // The whole evaluation, with the folds, is each rule's alone.
    grouped_is_alone(&c);
}

// An aggregate whose body reads a let or another element's metric, or whose `where`
// reads a metric, is left to its rule; so is one whose value is missing (its reason
// quotes the rule's own text), and one inside another aggregate.
#[test]
fn only_aggregates_of_the_element_and_facts_are_folded() {
    let c = with_temp_disk();
    let r = rule(
        "vm",
        "let floor = 100 iops
         let plain = sum(iops) over disks
         let by_let = count(p50(iops) >= floor) over disks
         let by_series = sum(iops) over disks where p50(iops) > 0 iops
         let no_series = sum(read_latency_ms) over disks
         let inner = count(sum(iops) over disks > 0 iops) over targets
         when p50(plain) >= 0 iops and by_let >= 0 and p50(by_series) >= 0 iops and p50(inner) >= 0
              and (exists(no_series) or true)",
        "{p50(plain):.0}",
    );
    let got = folded(&[&r], &c, 1);
    let srcs: Vec<&str> = got.iter().map(|(_, s, _)| s.as_str()).collect();
    assert_eq!(srcs, ["sum(iops) over disks"]);
    // And the rule gives what it gives alone, folds or not.
    let alone = evaluate_rule(&r, &c.facts, &c.series);
    let together = evaluate([&r], &c.facts, &c.series);
    assert_eq!(alone.findings.len(), 1);
    assert_eq!(alone.findings[0].evidence, together.findings[0].evidence);
    assert_eq!(alone.not_evaluated, together.not_evaluated);
}

mod checked_once {
    use proptest::prelude::*;

    use super::super::functions::Folder;
    use super::super::operators::num_op;
    use super::*;
    use crate::builtins::CollectionAgg;
    use crate::check::Collection;

    /// A value near the largest finite one (two of them overflow a sum), or an ordinary one.
    fn value() -> impl Strategy<Value = f64> {
        prop_oneof![
            (-1000.0f64..1000.0),
            (0.6f64..0.9).prop_map(|x| x * f64::MAX),
            (0.6f64..0.9).prop_map(|x| -x * f64::MAX),
        ]
    }

    /// An element's series on its own axis: a point at each of 0..n seconds or not.
    fn element() -> impl Strategy<Value = Value> {
        prop::collection::vec(prop::option::weighted(0.8, value()), 1..10).prop_map(|pts| {
            let (times, vals): (Vec<Option<i64>>, Vec<f64>) = pts
                .iter()
                .enumerate()
                .filter_map(|(i, v)| Some((Some(i as i64 * 1000), (*v)?)))
                .unzip();
            Value::Nums(TimeSeries::new(std::sync::Arc::new(times), vals, Some(1.0)))
        })
    }

    proptest! {
        // A fold made finite once, at its end, keeps the points and values a fold made
        // finite at each step keeps (the evaluator's before): sums that overflow at some
        // points, minima and maxima, averages, elements on axes of their own.
        #[test]
        fn a_fold_made_finite_once_is_one_made_finite_at_each_step(
            elems in prop::collection::vec(element(), 1..6),
            agg in prop_oneof![
                Just(CollectionAgg::Sum),
                Just(CollectionAgg::Min),
                Just(CollectionAgg::Max),
                Just(CollectionAgg::Avg),
            ],
        ) {
            let mut folder = Folder::new(agg, Collection::Disks, false);
            for e in &elems {
                folder.push(Some(Ok(e.clone())));
            }
            let got = folder.finish();
            let step = |a: Value, b: Value| match agg {
                CollectionAgg::Min => num_op(a, b, f64::min),
                CollectionAgg::Max => num_op(a, b, f64::max),
                _ => num_op(a, b, |x, y| x + y),
            };
            let mut want: OrMissing<Value> = Ok(elems[0].clone());
            for e in &elems[1..] {
                want = want.and_then(|a| step(a, e.clone()));
            }
            let want = want.and_then(|acc| match &acc {
                Value::Nums(s) if s.is_empty() => missing("empty"),
                _ if agg == CollectionAgg::Avg => {
                    num_op(acc, Value::Num(elems.len() as f64), |x, y| x / y)
                }
                _ => Ok(acc),
            });
            match (got, want) {
                (Ok(Value::Nums(g)), Ok(Value::Nums(w))) => {
                    prop_assert_eq!(&*g.times, &*w.times);
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    prop_assert_eq!(bits(&g.vals), bits(&w.vals));
                }
                (Err(_), Err(_)) => {}
                (g, w) => prop_assert!(false, "{g:?} against {w:?}"),
            }
        }
    }
}

/// [`MemorySeries`] that panics when asked for any series of one target.
struct PanicsOn(MemorySeries, TargetId);

impl SeriesSource for PanicsOn {
    fn series(&self, target: TargetId, metric: Metric) -> Option<Arc<Series>> {
        assert_ne!(target, self.1, "a source that fails on one target");
        self.0.series(target, metric)
    }
    fn source_percentile(&self, target: TargetId, direction: Direction, pct: f64) -> Option<f64> {
        self.0.source_percentile(target, direction, pct)
    }
    fn interval_s(&self, target: TargetId) -> Option<f64> {
        self.0.interval_s(target)
    }
}

// A group that panics while it brings the values it folds still counts as having brought
// them: the `vm` rules, which wait for every group's values, do not wait for it forever,
// and the panic reaches the caller.
#[test]
fn a_group_that_panics_leaves_no_vm_rule_waiting() {
    let c = with_temp_disk();
    let bad = c.facts.disks[0].targets[0];
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (reg, res) = Registry::shipped();
        res.unwrap();
        let source = PanicsOn(c.series.clone(), bad);
        let run = || evaluate(reg.rules(), &c.facts, &source);
        let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).is_err());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(300)) {
        Ok(panicked) => assert!(panicked, "the source's panic reaches the caller"),
        Err(_) => panic!("the evaluation waited forever for a group that panicked"),
    }
}
