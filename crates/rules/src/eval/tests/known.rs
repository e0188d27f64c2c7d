//! Percentiles a source has taken already ([`SeriesSource::known_ranks`]): read instead of
//! selected again, only when they are of the series the rule reads.

use super::*;

/// [`MemorySeries`] that also says it knows the ranks `known` of some series, and with
/// `axis` gives each target's time axis (its IOPS series' stamps).
struct Knowing {
    series: MemorySeries,
    known: Vec<(TargetId, Metric, KnownRanks)>,
    axis: bool,
}

impl SeriesSource for Knowing {
    from_memory!(series);
    fn known_ranks(&self, target: TargetId, metric: Metric) -> Option<KnownRanks> {
        self.known.iter().find(|(t, m, _)| *t == target && *m == metric).map(|(_, _, k)| k.clone())
    }
    fn axis(&self, target: TargetId) -> Option<Vec<Option<i64>>> {
        let s = self.series.series(target, Metric::Iops).filter(|_| self.axis)?;
        Some(s.iter().map(|(t, _)| *t).collect())
    }
}

/// One disk with 200 samples of IOPS (1..=200, shuffled) and of latency in ms (the same
/// divided by 8), and a rule that prints percentiles of both.
fn inputs() -> (Inputs, TargetId, CheckedRule) {
    let (mut c, t) = one_disk();
    let v = |i: usize| ((i * 37) % 200 + 1) as f64;
    c.series.set_series(t, Metric::Iops, (0..200).map(|i| (Some(i as i64 * 1000), v(i))).collect());
    let lat: Series = (0..200).map(|i| (Some(i as i64 * 1000), v(i) / 8.0)).collect();
    c.series.set_series(t, Metric::LatencyMs, lat);
    let r = rule(
        "disk",
        "when p95(iops) > 0 iops",
        "{p95(iops):.0} {p50(iops):.0} {p99(latency_ms):.3} {pct(latency_ms, 99.9):.3}",
    );
    (c, t, r)
}

/// The ranks of 1..=200 (and of them divided by 8, in ms), as a summary takes them.
fn ranks(count: usize, scale: f64) -> KnownRanks {
    let at = |p: f64| (p * 2.0_f64).ceil() / scale;
    KnownRanks {
        count,
        min: 1.0 / scale,
        max: 200.0 / scale,
        ranks: [50.0, 95.0, 99.0, 99.9].map(|p| (p, at(p))).to_vec(),
    }
}

/// A source that knows the exact ranks of both series of [`inputs`] (IOPS, and latency
/// in ms), with the target's time axis or without.
fn knowing_both(c: &Inputs, t: TargetId, axis: bool) -> Knowing {
    let known = vec![(t, Metric::Iops, ranks(200, 1.0)), (t, Metric::LatencyMs, ranks(200, 8.0))];
    Knowing { series: c.series.clone(), known, axis }
}

// Ranks known of exactly the series' values give the evidence selecting gives (the
// latency's converted from ms to the language's seconds as the series is).
#[test]
fn known_ranks_give_what_selecting_gives() {
    let (c, t, r) = inputs();
    let plain = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!(only(&plain).evidence, "190 100 24.750 25.000");
    let known = knowing_both(&c, t, false);
    assert_eq!(evaluate_rule(&r, &c.facts, &known), plain);
}

// Ranks of another number of values are not the series' own: never read, without the
// target's axis (the loaded series' count differs) or with it (fewer values than the axis
// has stamps are of a series with gaps, not of the one on the axis).
#[test]
fn ranks_of_another_count_are_not_read() {
    let (c, t, r) = inputs();
    let plain = evaluate_rule(&r, &c.facts, &c.series);
    let mut wrong = ranks(199, 1.0);
    wrong.ranks.iter_mut().for_each(|(_, x)| *x += 1000.0);
    wrong.max += 1000.0;
    for axis in [false, true] {
        let known = vec![(t, Metric::Iops, wrong.clone())];
        let known = Knowing { series: c.series.clone(), known, axis };
        assert_eq!(evaluate_rule(&r, &c.facts, &known), plain, "with the axis: {axis}");
    }
}

// Wrong ranks of the right count would be read as they are: debug builds (every test)
// check each against the selection, so a source that gets them wrong fails loudly.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "a known rank is not the series' own")]
fn wrong_ranks_of_the_right_count_fail_in_debug_builds() {
    with_a_wrong_p95(false);
}

/// The rule of [`inputs`] evaluated with ranks of its IOPS whose p95 is off by one, from a
/// source that gives the target's time axis or not.
#[cfg(debug_assertions)]
fn with_a_wrong_p95(axis: bool) {
    let (c, t, r) = inputs();
    let mut wrong = ranks(200, 1.0);
    wrong.ranks[1].1 += 1.0;
    let known = Knowing { series: c.series.clone(), known: vec![(t, Metric::Iops, wrong)], axis };
    let _ = evaluate_rule(&r, &c.facts, &known);
}

// With the target's time axis, a percentile, least or most of a metric itself whose ranks
// are of a value at every stamp is read without loading the series (debug builds load it
// and check every statistic read against the series' own): the same evidence.
#[test]
fn known_statistics_of_a_value_at_every_stamp_give_what_the_series_gives() {
    let (c, t, _) = inputs();
    let r = rule(
        "disk",
        "when p95(iops) > 0 iops and max(latency_ms) > 0 ms",
        "{p95(iops):.0} {p50(iops):.0} {min(iops):.0} {max(iops):.0} {p99(latency_ms):.3} {pct(latency_ms, 99.9):.3} {min(latency_ms):.3} {max(latency_ms):.3} {avg(iops):.1}",
    );
    let plain = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!(only(&plain).evidence, "190 100 1 200 24.750 25.000 0.125 25.000 100.5");
    let known = knowing_both(&c, t, true);
    assert_eq!(evaluate_rule(&r, &c.facts, &known), plain);
}

// Wrong ranks of a value at every stamp would be read as they are, without the series:
// debug builds check each statistic read against the series' own and fail loudly.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "a known statistic is not the series' own: `p95(iops)`")]
fn wrong_statistics_read_without_the_series_fail_in_debug_builds() {
    with_a_wrong_p95(true);
}

// The percentiles worth knowing: those a rule takes of a metric itself, by metric.
#[test]
fn metric_percentiles_are_the_rules_constant_ones_of_metrics() {
    let (_, _, r) = inputs();
    let other =
        rule("disk", "let q = p50(queue_depth * 2)\nwhen p90(iops) > 1 iops and q > 1", "{q}");
    let got = metric_percentiles([&r, &other]);
    assert_eq!(
        got,
        vec![(Metric::Iops, vec![95.0, 50.0, 90.0]), (Metric::LatencyMs, vec![99.0, 99.9])]
    );
}
