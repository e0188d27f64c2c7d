//! Values a source gives in place ([`SeriesSource::axis_values_in_place`]): read without a
//! copy where no conversion is needed, never written over, the same outcome as a copy.

use std::sync::Mutex;

use super::*;

/// [`MemorySeries`] with each target's time axis (its IOPS series' stamps), whose metrics
/// on the axis are also given in place: each metric's one buffer, kept to look at after.
/// With `off`, the values given in place are off by one from the series' own.
struct InPlace {
    series: MemorySeries,
    given: Mutex<Vec<(Metric, Arc<Vec<f64>>)>>,
    off: bool,
}

impl InPlace {
    fn new(series: &MemorySeries, off: bool) -> Self {
        InPlace { series: series.clone(), given: Mutex::new(Vec::new()), off }
    }

    /// The buffers given in place, by metric.
    fn given(&self) -> Vec<(Metric, Arc<Vec<f64>>)> {
        let mut given = self.given.lock().map(|g| g.clone()).unwrap_or_default();
        given.sort_by_key(|(m, _)| m.name());
        given
    }

    fn values(&self, t: TargetId, m: Metric) -> Option<Vec<f64>> {
        Some(self.series.series(t, m)?.iter().map(|(_, v)| *v).collect())
    }
}

impl SeriesSource for InPlace {
    from_memory!(series);
    fn axis(&self, target: TargetId) -> Option<Vec<Option<i64>>> {
        Some(self.series.series(target, Metric::Iops)?.iter().map(|(t, _)| *t).collect())
    }
    fn axis_or_points_scaled(&self, t: TargetId, m: Metric, s: Scale) -> Option<AxisOrPoints> {
        let mut vals = self.values(t, m)?;
        s.apply_all(&mut vals);
        Some(Ok(vals))
    }
    fn axis_values_in_place(&self, t: TargetId, m: Metric) -> Option<SourceValues> {
        let mut given = self.given.lock().ok()?;
        if let Some((_, v)) = given.iter().find(|(g, _)| *g == m) {
            return Some(v.clone());
        }
        let mut vals = self.values(t, m)?;
        if self.off {
            vals[0] += 1.0;
        }
        let vals = Arc::new(vals);
        given.push((m, vals.clone()));
        Some(vals)
    }
}

/// One disk with IOPS, queue depth and latency (ms) at every second of 60, and a rule that
/// works on each, in place where it can (a temporary's values are written over).
fn inputs() -> (Inputs, CheckedRule) {
    let (mut c, t) = one_disk();
    let v = |i: usize| ((i * 37) % 60 + 1) as f64;
    c.series.set_series(t, Metric::Iops, timed(&(0..60).map(v).collect::<Vec<_>>()));
    c.series.set_series(
        t,
        Metric::QueueDepth,
        timed(&(0..60).map(|i| v(i) / 4.0).collect::<Vec<_>>()),
    );
    c.series.set_series(
        t,
        Metric::LatencyMs,
        timed(&(0..60).map(|i| v(i) / 8.0).collect::<Vec<_>>()),
    );
    let r = rule(
        "disk",
        "let doubled = iops * 2\nlet deep = queue_depth + queue_depth\n\
         when p95(doubled) > 0 iops and max(latency_ms) > 0 ms",
        "{avg(iops):.3} {p95(doubled):.0} {max(deep):.2} {avg(queue_depth):.4} {p99(latency_ms * 2):.4} {duration(iops >= 30 iops):.0}",
    );
    (c, r)
}

// The metrics that need no conversion (IOPS, queue depth) are read in place, latency (ms
// to the language's seconds) is copied; the outcome is the one copying gives, and the
// source's values are never written over by the operations on them.
#[test]
fn values_read_in_place_give_what_a_copy_gives() {
    let (c, r) = inputs();
    let plain = evaluate_rule(&r, &c.facts, &c.series);
    assert_eq!(only(&plain).evidence, "30.500 114 30.00 7.6250 15.0000 31");
    let source = InPlace::new(&c.series, false);
    assert_eq!(evaluate_rule(&r, &c.facts, &source), plain);
    let given = source.given();
    assert_eq!(
        given.iter().map(|(m, _)| *m).collect::<Vec<_>>(),
        [Metric::Iops, Metric::QueueDepth]
    );
    let t = c.facts.targets[0].id;
    for (m, vals) in given {
        assert_eq!(Some(vals.to_vec()), source.values(t, m), "{} written over", m.name());
    }
}

// A source whose values in place are not the series' own would be read as they are:
// debug builds (every test) check them against the copy and fail loudly.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "values read in place are not the series' own")]
fn values_in_place_that_are_not_the_series_fail_in_debug_builds() {
    let (c, r) = inputs();
    let _ = evaluate_rule(&r, &c.facts, &InPlace::new(&c.series, true));
}
