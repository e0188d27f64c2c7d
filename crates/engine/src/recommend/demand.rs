//! Demand from the captures: a series' chosen percentile (of samples, or of per-interval
//! peaks when the samples are finer than the interval asked), its peak, and the two
//! budget series summed over disks at the same instants.

use std::collections::BTreeMap;

use advisor_model::{Figure, Metric, nearest_ranks_of_numbers};
use advisor_normalize::Capture;
use advisor_rules::eval::TargetId;

/// Azure's MB/s are 10^6 bytes; captures are normalized to MiB/s (`catalog/NOTES.md`).
pub(crate) const MB_PER_MIB: f64 = 1_048_576.0 / 1_000_000.0;

/// A series: `(time in ms, value)`; a benchmark's summary row has no time.
pub(crate) type Series = Vec<(Option<i64>, f64)>;

/// One metric of a target, MiB/s turned into Azure's MB/s.
pub(crate) fn series(captures: &[Capture], id: TargetId, metric: Metric) -> Series {
    let Some(c) = captures.get(id.capture) else { return Vec::new() };
    let scale = scale(metric);
    c.series(id.target, metric).into_iter().map(|(t, v)| (t, v * scale)).collect()
}

/// What [`series`] multiplies a metric's values by.
fn scale(metric: Metric) -> f64 {
    if matches!(metric, Metric::Mbps | Metric::ReadMbps | Metric::WriteMbps) {
        MB_PER_MIB
    } else {
        1.0
    }
}

/// [`total`] of [`series`] of a metric of a target: from its column when it has a finite
/// value at every time stamp (the same values in the same order, without making the
/// points), else from the points.
pub(crate) fn total_of(captures: &[Capture], id: TargetId, metric: Metric) -> f64 {
    if let Some(c) = captures.get(id.capture)
        && let Ok(vals) = c.axis_or_points(id.target, metric)
    {
        let scale = scale(metric);
        return vals.iter().map(|v| v * scale).filter(|v| v.is_finite()).sum();
    }
    total(&series(captures, id, metric))
}

/// Sums series sample by sample: at the same time stamp (the targets of one capture share
/// them), or at the same position when a series has no times.
#[cfg(test)]
pub(crate) fn sum(all: &[Series]) -> Series {
    let mut acc = Sum::default();
    for s in all {
        acc.add(s);
    }
    acc.into_series()
}

/// A sum of series taken one at a time (see [`sum`]): a budget's demand is added up disk by
/// disk, so no disk's series is kept once it is counted.
///
/// The timed samples are kept sorted by time stamp, and a series (time-ordered, as
/// [`Capture::series`] gives it) is merged in one pass; each time stamp's sum is taken in
/// the order the series were added, as a map keyed by time stamp would take it.
#[derive(Debug, Default)]
pub(crate) struct Sum {
    timed: Vec<(i64, f64)>,
    untimed: Vec<f64>,
    parts: usize,
    /// The time stamps of `timed`, when every series added lay on them ([`Sum::add_of`]).
    axis: Option<Vec<i64>>,
}

impl Sum {
    /// [`Sum::add`] of [`series`] of a metric of a target. Straight from its column when it
    /// has a finite value at every time stamp of its capture's axis, the axis' stamps
    /// rising, and the samples held are on that axis too or there are none (one capture's
    /// disks, the usual case): added position by position, the operations the merge does
    /// on one axis, without making the points. Else its points are added.
    pub(crate) fn add_of(&mut self, captures: &[Capture], id: TargetId, metric: Metric) {
        if let Some(c) = captures.get(id.capture)
            && self.untimed.is_empty()
            && self.add_column(c, id.target, metric)
        {
            return;
        }
        self.add(&series(captures, id, metric));
    }

    /// [`Sum::add_of`] from the column; `false` (nothing added) when it does not lie on
    /// the axis held.
    fn add_column(&mut self, c: &Capture, target: u32, metric: Metric) -> bool {
        let Ok(vals) = c.axis_or_points(target, metric) else { return false };
        let scale = scale(metric);
        match &self.axis {
            _ if self.timed.is_empty() => {
                let Some(axis) = c.axis(target) else { return false };
                let Some(axis) = axis.into_iter().collect::<Option<Vec<i64>>>() else {
                    return false;
                };
                if axis.len() != vals.len() || !axis.windows(2).all(|w| w[0] < w[1]) {
                    return false;
                }
                self.timed = axis.iter().zip(&vals).map(|(t, v)| (*t, 0.0 + v * scale)).collect();
                self.axis = Some(axis);
            }
            Some(axis) if axis.len() == vals.len() && c.axis_is(target, axis, 0) => {
                for ((_, x), v) in self.timed.iter_mut().zip(&vals) {
                    *x += v * scale;
                }
            }
            _ => return false,
        }
        self.parts += 1;
        true
    }

    pub(crate) fn add(&mut self, s: &Series) {
        self.parts += 1;
        // Timed samples merged in may leave the axis held (an empty series leaves it).
        if s.iter().any(|(t, _)| t.is_some()) {
            self.axis = None;
        }
        let mut timed: Vec<(i64, f64)> = Vec::with_capacity(s.len());
        let mut i = 0;
        for (t, v) in s {
            match t {
                Some(t) => timed.push((*t, *v)),
                None => {
                    if let Some(x) = self.untimed.get_mut(i) {
                        *x += v;
                    } else {
                        self.untimed.push(*v);
                    }
                    i += 1;
                }
            }
        }
        // Stable: samples at one time stamp keep their order.
        if !timed.is_sorted_by_key(|(t, _)| *t) {
            timed.sort_by_key(|(t, _)| *t);
        }
        self.merge(&timed);
    }

    /// Adds time-sorted samples: where the time stamps are the ones already held (the
    /// targets of one capture share them), in place.
    fn merge(&mut self, add: &[(i64, f64)]) {
        let same_axis = add.len() <= self.timed.len()
            && add.iter().zip(&self.timed).all(|((a, _), (b, _))| a == b)
            && add.windows(2).all(|w| w[0].0 < w[1].0);
        if same_axis {
            for ((_, x), (_, v)) in self.timed.iter_mut().zip(add) {
                *x += v;
            }
            return;
        }
        let old = std::mem::take(&mut self.timed);
        let mut out: Vec<(i64, f64)> = Vec::with_capacity(old.len() + add.len());
        let mut old = old.into_iter().peekable();
        for &(t, v) in add {
            while let Some(&(ot, ov)) = old.peek()
                && ot < t
            {
                out.push((ot, ov));
                old.next();
            }
            match out.last_mut() {
                // A time stamp this series already had.
                Some((lt, x)) if *lt == t => *x += v,
                _ => match old.peek() {
                    Some(&(ot, ov)) if ot == t => {
                        out.push((ot, ov + v));
                        old.next();
                    }
                    _ => out.push((t, 0.0 + v)),
                },
            }
        }
        out.extend(old);
        self.timed = out;
    }

    /// Whether nothing was added.
    pub(crate) fn is_empty(&self) -> bool {
        self.parts == 0
    }

    pub(crate) fn into_series(self) -> Series {
        let mut out: Series = self.timed.into_iter().map(|(t, v)| (Some(t), v)).collect();
        out.extend(self.untimed.into_iter().map(|v| (None, v)));
        out
    }
}

/// The values the percentile is taken of: each sample, or with `interval_s` each
/// interval's highest sample (untimed samples stay as they are).
pub(crate) fn values(s: &Series, interval_s: Option<f64>) -> Vec<f64> {
    let Some(iv) = interval_s.filter(|iv| *iv > 0.0) else {
        return s.iter().map(|(_, v)| *v).collect();
    };
    let width = (iv * 1000.0).round().max(1.0) as i64;
    let mut peaks: BTreeMap<i64, f64> = BTreeMap::new();
    let mut out = Vec::new();
    for (t, v) in s {
        match t {
            Some(t) => {
                let e = peaks.entry(t.div_euclid(width)).or_insert(f64::MIN);
                *e = e.max(*v);
            }
            None => out.push(*v),
        }
    }
    out.extend(peaks.into_values());
    out
}

/// The figure of a series: its percentile `p` (of [`values`]), its peak, and the
/// percentile times `headroom`. `None` for an empty series.
pub(crate) fn figure(s: &Series, p: f64, headroom: f64, interval_s: Option<f64>) -> Option<Figure> {
    let mut v = values(s, interval_s);
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return None;
    }
    // By selection, not a sort (the same values: see `nearest_ranks`).
    let peak = v.iter().copied().max_by(f64::total_cmp)?;
    let observed = nearest_ranks_of_numbers(&mut v, &[p]).first().copied().flatten()?;
    Some(Figure { observed, peak, needed: observed * headroom })
}

/// The median of a metric's values (finite ones), for the latency and queue-depth tests.
pub(crate) fn median_of(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    nearest_ranks_of_numbers(&mut v, &[50.0]).first().copied().flatten()
}

/// Mean of a series (for the read share: the shares of totals, not of samples).
pub(crate) fn total(s: &Series) -> f64 {
    s.iter().map(|(_, v)| *v).filter(|v| v.is_finite()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_peaks_take_each_interval_highest_sample() {
        // 1 s samples, 10 s interval: the peaks are 9 and 19.
        let s: Series = (0..20).map(|i| (Some(i * 1000), i as f64)).collect();
        let mut v = values(&s, Some(10.0));
        v.sort_by(f64::total_cmp);
        assert_eq!(v, vec![9.0, 19.0]);
        assert_eq!(values(&s, None).len(), 20);
    }

    #[test]
    fn figure_is_the_nearest_rank_percentile_times_headroom() {
        let s: Series = (1..=100).map(|i| (Some(i * 1000), i as f64)).collect();
        let f = figure(&s, 95.0, 1.2, None).expect("figure");
        assert_eq!((f.observed, f.peak), (95.0, 100.0));
        assert!((f.needed - 114.0).abs() < 1e-9);
    }

    /// The sum as a map keyed by time stamp takes it: the reference the merge must match
    /// bit for bit.
    fn by_map(all: &[Series]) -> Series {
        let mut timed: BTreeMap<i64, f64> = BTreeMap::new();
        let mut untimed: Vec<f64> = Vec::new();
        for s in all {
            let mut i = 0;
            for (t, v) in s {
                match t {
                    Some(t) => *timed.entry(*t).or_insert(0.0) += v,
                    None => {
                        match untimed.get_mut(i) {
                            Some(x) => *x += v,
                            None => untimed.push(*v),
                        }
                        i += 1;
                    }
                }
            }
        }
        let mut out: Series = timed.into_iter().map(|(t, v)| (Some(t), v)).collect();
        out.extend(untimed.into_iter().map(|v| (None, v)));
        out
    }

    proptest::proptest! {
        #[test]
        fn merged_sums_are_the_maps_bit_for_bit(
            all in proptest::collection::vec(
                proptest::collection::vec(
                    (proptest::option::weighted(0.9, 0i64..40), -1e6f64..1e6),
                    0..60,
                ),
                0..6,
            ),
            sorted in proptest::collection::vec(proptest::bool::ANY, 6),
        ) {
            // Mostly time-ordered series (as captures give them), some not, some sharing
            // one axis, with repeated time stamps and untimed samples.
            let all: Vec<Series> = all
                .into_iter()
                .zip(sorted)
                .map(|(mut s, sorted)| {
                    if sorted {
                        s.sort_by_key(|(t, _)| *t);
                    }
                    s
                })
                .collect();
            let got = sum(&all);
            let want = by_map(&all);
            let bits = |s: &Series| s.iter().map(|(t, v)| (*t, v.to_bits())).collect::<Vec<_>>();
            proptest::prop_assert_eq!(bits(&got), bits(&want));
        }
    }

    #[test]
    fn shared_axes_sum_in_place() {
        let axis: Vec<i64> = (0..1000).map(|i| i * 1000).collect();
        let all: Vec<Series> = (0..4)
            .map(|k| axis.iter().map(|t| (Some(*t), (t / 1000 + k) as f64 * 0.1)).collect())
            .collect();
        let bits = |s: &Series| s.iter().map(|(t, v)| (*t, v.to_bits())).collect::<Vec<_>>();
        assert_eq!(bits(&sum(&all)), bits(&by_map(&all)));
        // A shorter series on the same axis, then one with a time stamp of its own.
        let short: Series = all[0][..10].to_vec();
        let odd: Series = vec![(Some(500), 1.0), (Some(999_000), 2.0), (Some(2_000_000), 3.0)];
        let more = [all.clone(), vec![short, odd]].concat();
        assert_eq!(bits(&sum(&more)), bits(&by_map(&more)));
    }

    // From the columns, budgets and totals are what the points give, bit for bit, on the
    // scenarios' captures (PerfMon on one axis, benchmarks' summary rows, iostat); on a
    // capture whose targets share an axis the columns were what was read.
    #[test]
    fn sums_and_totals_from_the_columns_are_the_points() {
        let bits = |s: Series| s.iter().map(|(t, v)| (*t, v.to_bits())).collect::<Vec<_>>();
        let mut on_axis = 0;
        for case in [
            "ds13v2-temp-disk-throttles-cached-p30/capture.csv",
            "ds15v2-cache-hits-and-uncached/capture.csv",
            "stripe-qd2-on-4-disks/capture.csv",
            "diskspd-standard-pool-12-disks/diskspd.xml",
            "e16asv5-bench-815mbps/fio.json",
            "sync-writes-4k-qd1/iostat.txt",
        ] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../fixtures/scenarios")
                .join(case);
            let captures =
                [advisor_normalize::read_path(&path).unwrap_or_else(|e| panic!("{case}: {e}"))];
            let ids: Vec<TargetId> = (0..captures[0].targets().len())
                .map(|t| TargetId { capture: 0, target: t as u32 })
                .collect();
            for m in [Metric::Iops, Metric::Mbps, Metric::WriteIops, Metric::WriteMbps] {
                let (mut columns, mut points) = (Sum::default(), Sum::default());
                for &id in &ids {
                    columns.add_of(&captures, id, m);
                    points.add(&series(&captures, id, m));
                    let (a, b) = (total_of(&captures, id, m), total(&series(&captures, id, m)));
                    assert_eq!(a.to_bits(), b.to_bits(), "{case} {m:?} {id:?}");
                }
                on_axis += usize::from(columns.axis.is_some());
                assert_eq!(columns.parts, points.parts);
                assert_eq!(bits(columns.into_series()), bits(points.into_series()), "{case} {m:?}");
            }
        }
        assert!(on_axis >= 8, "the PerfMon captures' sums were read from the columns");
    }

    #[test]
    fn sums_align_on_time_stamps() {
        let a: Series = vec![(Some(0), 1.0), (Some(1000), 2.0)];
        let b: Series = vec![(Some(1000), 10.0), (Some(2000), 5.0)];
        assert_eq!(sum(&[a, b]), vec![(Some(0), 1.0), (Some(1000), 12.0), (Some(2000), 5.0)]);
    }
}
