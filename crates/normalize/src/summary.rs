//! Per-target percentiles of every metric: what the checklist tables and rules read.

use std::borrow::Cow;

use advisor_model::Metric;
use polars::prelude::Float64Chunked;
use serde::Serialize;

use crate::Capture;
use crate::parts::finite_values;

/// Percentiles of one metric over the capture (nearest-rank, nulls ignored).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    pub count: usize,
    pub avg: f64,
    pub min: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
    /// The further nearest-rank percentiles [`Capture::summary_with`] was asked for, as
    /// `(P, value)` in the order asked: taken in the same selection as the three above
    /// (for the rules, which then need not select again). Not part of any report.
    #[serde(skip)]
    pub more: Vec<(f64, f64)>,
}

impl Stats {
    /// Stats of a set of values; `None` when there is no finite value.
    pub fn of(values: &[f64]) -> Option<Self> {
        Self::of_vec(values.iter().copied().filter(|x| x.is_finite()).collect(), &[])
    }

    /// [`Stats::of`] finite values already collected (reordered here), with the
    /// percentiles `more` besides the three.
    ///
    /// Linear, no sort: the percentiles are selections ([`advisor_model::nearest_ranks`],
    /// to the bit what sorting gives), the average a compensated sum, so it does not
    /// depend on the order of the values either.
    fn of_vec(mut v: Vec<f64>, more: &[f64]) -> Option<Self> {
        let ((min, max), sum) = extremes_and_sum(&v)?;
        let n = v.len();
        let avg = sum / n as f64;
        let mut ps = vec![50.0, 90.0, 99.0];
        ps.extend_from_slice(more);
        // Finite, so no NaN to look for.
        let ranks = advisor_model::nearest_ranks_of_numbers(&mut v, &ps);
        let rank = |i: usize| ranks.get(i).copied().flatten().unwrap_or(max);
        let more = more.iter().enumerate().map(|(i, p)| (*p, rank(3 + i))).collect();
        Some(Self { count: n, avg, min, p50: rank(0), p90: rank(1), p99: rank(2), max, more })
    }
}

impl Stats {
    /// The nearest-rank `p`th percentile, when this summary took it (its three, or one of
    /// [`Stats::more`]).
    pub fn rank(&self, p: f64) -> Option<f64> {
        let own = [(50.0, self.p50), (90.0, self.p90), (99.0, self.p99)];
        own.iter().chain(&self.more).find(|(q, _)| q.to_bits() == p.to_bits()).map(|(_, x)| *x)
    }
}

/// The stats of `metric` of target `target` among a capture's [`Capture::summary`] (in
/// target order, as it gives them: the target is found by bisection, so asking for every
/// target of a capture of thousands costs no more than a pass).
pub fn metric_stats(all: &[TargetStats], target: u32, metric: Metric) -> Option<&Stats> {
    let t = &all[all.binary_search_by_key(&target, |s| s.target).ok()?];
    t.metrics.iter().find(|(m, _)| *m == metric).map(|(_, s)| s)
}

/// The smallest and largest value in [`f64::total_cmp`]'s order (-0 below +0), branch-free
/// over integer keys that keep that order, and Neumaier's compensated sum, in one pass:
/// `None` when `v` is empty.
///
/// The sum carries the rounding error of every addition, so a mean of a day of samples is
/// exact to the last bit or two, whatever their order. Four sums side by side (value i in
/// sum i mod 4), then those and their carries summed the same way: one running sum waits
/// on the addition before it at every value (1.6 ns a value), four do not (0.7 ns). The
/// extremes ride along (they were a pass of their own).
fn extremes_and_sum(v: &[f64]) -> Option<((f64, f64), f64)> {
    // The key is its own inverse: negative values have their 63 low bits flipped.
    let key = |x: u64| x ^ (((x as i64 >> 63) as u64) >> 1);
    if v.is_empty() {
        return None;
    }
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    let mut extend = |x: f64| {
        let k = key(x.to_bits()) as i64;
        lo = lo.min(k);
        hi = hi.max(k);
    };
    let mut lanes = [(0.0f64, 0.0f64); 4];
    let mut quads = v.chunks_exact(4);
    for q in &mut quads {
        for (lane, x) in lanes.iter_mut().zip(q) {
            *lane = neumaier(*lane, *x);
            extend(*x);
        }
    }
    quads.remainder().iter().for_each(|x| extend(*x));
    let parts = lanes.iter().map(|l| l.0).chain(lanes.iter().map(|l| l.1));
    let (sum, carry) = parts.chain(quads.remainder().iter().copied()).fold((0.0, 0.0), neumaier);
    Some(((f64::from_bits(key(lo as u64)), f64::from_bits(key(hi as u64))), sum + carry))
}

/// One step of Neumaier's sum: `x` added to `sum`, the rounding error to `carry`.
fn neumaier((sum, carry): (f64, f64), x: f64) -> (f64, f64) {
    let t = sum + x;
    let lost = if sum.abs() >= x.abs() { (sum - t) + x } else { (x - t) + sum };
    (t, carry + lost)
}

/// Every metric's stats for one target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetStats {
    pub target: u32,
    pub name: String,
    pub metrics: Vec<(Metric, Stats)>,
}

impl Capture {
    /// Stats of every metric for every target that has values.
    ///
    /// Each target's rows are its part (see [`crate::parts`]); the targets are shared out
    /// among the machine's cores, one at a time.
    pub fn summary(&self) -> Vec<TargetStats> {
        self.summary_with(&[])
    }

    /// [`Capture::summary`], each metric listed in `more` with those percentiles too
    /// ([`Stats::more`]), taken in the same selection as the others.
    pub fn summary_with(&self, more: &[(Metric, Vec<f64>)]) -> Vec<TargetStats> {
        let n = self.meta.targets.len();
        advisor_model::par::map_indexed(n, 8, |t| self.target_stats(t as u32, more))
            .into_iter()
            .flatten()
            .collect()
    }

    /// Stats of every metric of one target; `None` when it has no value.
    fn target_stats(&self, t: u32, more: &[(Metric, Vec<f64>)]) -> Option<TargetStats> {
        let more_of =
            |m: Metric| more.iter().find(|(k, _)| *k == m).map_or(&[][..], |(_, ps)| ps.as_slice());
        let stats: Vec<(Metric, Stats)> = match self.part(t) {
            Some(part) => part
                .columns()
                .into_iter()
                .filter_map(|(m, col)| {
                    Stats::of_vec(finite_vec(col, part.finite), more_of(m)).map(|s| (m, s))
                })
                .collect(),
            None => self
                .metrics()
                .into_iter()
                .filter_map(|m| {
                    let v: Vec<f64> =
                        self.values(t, m).into_iter().filter(|x| x.is_finite()).collect();
                    Stats::of_vec(v, more_of(m)).map(|s| (m, s))
                })
                .collect(),
        };
        (!stats.is_empty()).then(|| TargetStats {
            target: t,
            name: self.meta.targets[t as usize].name.clone(),
            metrics: stats,
        })
    }
}

/// A column's finite values, in row order, to be reordered by the selections: a derived
/// column's own buffer (worked out for this summary alone, no null in it) with the rest
/// dropped in place; a stated column's values copied out of the frame (`finite`: all its
/// values are, [`crate::parts::Part::finite`]).
fn finite_vec(col: Cow<'_, Float64Chunked>, finite: bool) -> Vec<f64> {
    match col {
        Cow::Owned(ca) if ca.null_count() == 0 && ca.chunks().len() == 1 => {
            let mut v = crate::series::into_values(Cow::Owned(ca), advisor_model::Scale::Keep);
            v.retain(|x| x.is_finite());
            v
        }
        col => finite_values(&col, finite),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_derived_columns_own_buffer_gives_the_copys_values() {
        use polars::prelude::NewChunkedArray as _;
        let values = [1.5, f64::NAN, 3.0, f64::INFINITY, -2.0, 0.0];
        let plain = Float64Chunked::from_slice("x".into(), &values);
        let want = finite_values(&plain, false);
        assert_eq!(want, vec![1.5, 3.0, -2.0, 0.0]);
        // Owned (a derived column), borrowed (a stated one), owned with a null.
        assert_eq!(finite_vec(Cow::Owned(plain.clone()), false), want);
        assert_eq!(finite_vec(Cow::Borrowed(&plain), false), want);
        let with_null: Float64Chunked =
            values.iter().enumerate().map(|(i, &v)| (i != 2).then_some(v)).collect();
        assert_eq!(finite_vec(Cow::Owned(with_null), false), vec![1.5, -2.0, 0.0]);
        // Chunks with no value dropped are copied whole, the others filtered, in order.
        let mut two = Float64Chunked::from_slice("x".into(), &[-0.0, 7.0]);
        two.append(&plain).unwrap_or_else(|_| unreachable!());
        two.append(&Float64Chunked::from_slice("x".into(), &[f64::MAX]))
            .unwrap_or_else(|_| unreachable!());
        let got: Vec<u64> = finite_values(&two, false).iter().map(|x| x.to_bits()).collect();
        let want: Vec<u64> =
            [-0.0, 7.0, 1.5, 3.0, -2.0, 0.0, f64::MAX].iter().map(|x: &f64| x.to_bits()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        let s = Stats::of(&v).unwrap_or_else(|| unreachable!());
        assert_eq!((s.p50, s.p90, s.p99, s.max, s.min), (50.0, 90.0, 99.0, 100.0, 1.0));
        assert!(Stats::of(&[f64::NAN]).is_none());
    }

    // The percentiles asked for besides the three are the sorted values' nearest ranks,
    // in the order asked, and leave the three as they were.
    #[test]
    fn more_percentiles_are_nearest_ranks_too() {
        let v: Vec<f64> = (1..=1000).map(|i| f64::from((i * 7919) % 1000)).collect();
        let s = Stats::of_vec(v.clone(), &[99.9, 95.0, 50.0]).unwrap_or_else(|| unreachable!());
        let mut sorted = v.clone();
        sorted.sort_by(f64::total_cmp);
        let at = |p: f64| advisor_model::nearest_rank(&sorted, p).unwrap_or(f64::NAN);
        let want: Vec<(u64, u64)> =
            [99.9f64, 95.0, 50.0].iter().map(|p| (p.to_bits(), at(*p).to_bits())).collect();
        let got: Vec<(u64, u64)> = s.more.iter().map(|(p, x)| (p.to_bits(), x.to_bits())).collect();
        assert_eq!(got, want);
        let plain = Stats::of(&v).unwrap_or_else(|| unreachable!());
        assert_eq!((s.p50, s.p90, s.p99, s.count), (plain.p50, plain.p90, plain.p99, plain.count));
    }

    // The extremes are the ones a scan with `total_cmp` finds, bit for bit (negative
    // zeros, subnormals, infinities and NaNs included).
    proptest::proptest! {
        #[test]
        fn extremes_are_total_cmp_s(
            v in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::num::f64::ANY,
                    proptest::sample::select(vec![0.0, -0.0, f64::MIN_POSITIVE, -f64::MIN_POSITIVE, 1e-310, -1e-310]),
                ],
                0..40,
            ),
        ) {
            let want = v.first().map(|&first| {
                v.iter().fold((first, first), |(lo, hi), &x| {
                    (if x.total_cmp(&lo).is_lt() { x } else { lo }, if x.total_cmp(&hi).is_gt() { x } else { hi })
                })
            });
            let bits = |p: Option<(f64, f64)>| p.map(|(a, b)| (a.to_bits(), b.to_bits()));
            proptest::prop_assert_eq!(bits(extremes_and_sum(&v).map(|(e, _)| e)), bits(want));
        }

        // Values on a grid of 1/1024 sum exactly in integers. The compensated sum stays
        // within Neumaier's bound of that (two units in the last place, and n u^2 of the
        // sum of magnitudes), through cancellation (values near 2^50 and their opposites
        // around small ones) and at every length (the four sums and the rest).
        #[test]
        fn compensated_sum_is_within_neumaiers_bound_of_the_exact_sum(
            ks in proptest::collection::vec(
                proptest::prop_oneof![-(1i64 << 20)..(1i64 << 20), -(1i64 << 60)..(1i64 << 60)],
                0..70,
            ),
            cancel in proptest::bool::ANY,
        ) {
            let mut ks = ks;
            if cancel {
                let opposite: Vec<i64> = ks.iter().rev().map(|k| -k).collect();
                ks.extend(opposite);
                ks.push(3);
            }
            let values: Vec<f64> = ks.iter().map(|k| *k as f64 / 1024.0).collect();
            // Each value's exact integer on the grid: its own float times 1024.
            let exact: i128 = values.iter().map(|x| (x * 1024.0) as i128).sum();
            let want = exact as f64 / 1024.0;
            let magnitude: f64 = values.iter().map(|x| x.abs()).sum();
            let u = f64::EPSILON / 2.0;
            let bound = 2.0 * u * want.abs() + values.len() as f64 * u * u * magnitude;
            let got = extremes_and_sum(&values).map_or(0.0, |(_, s)| s);
            proptest::prop_assert!((got - want).abs() <= bound, "{got} vs {want} (bound {bound})");
            // The sum taken alone, lane by lane as before the extremes rode along: the
            // same bits.
            let mut lanes = [(0.0f64, 0.0f64); 4];
            let mut quads = values.chunks_exact(4);
            for q in &mut quads {
                for (lane, x) in lanes.iter_mut().zip(q) {
                    *lane = neumaier(*lane, *x);
                }
            }
            let parts = lanes.iter().map(|l| l.0).chain(lanes.iter().map(|l| l.1));
            let (sum, carry) =
                parts.chain(quads.remainder().iter().copied()).fold((0.0, 0.0), neumaier);
            if !values.is_empty() {
                proptest::prop_assert_eq!(got.to_bits(), (sum + carry).to_bits());
            }
        }
    }
}
