//! Series cut down for a chart: the peak of each run of points, so a short spike stays
//! visible at any width.

/// A series' timed points as a chart draws them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reduced {
    /// How many timed points the series has.
    pub timed: usize,
    /// At most `n` of them: [`reduce_points`] of the timed points.
    pub points: Vec<(i64, f64)>,
}

impl Reduced {
    /// The timed points of a series that may have untimed ones (a benchmark's summary),
    /// reduced to at most `n` ([`reduce_points`]).
    pub fn of_series(series: &[(Option<i64>, f64)], n: usize) -> Self {
        let timed = series.iter().filter(|(t, _)| t.is_some()).count();
        let mut r = Reducer::new(timed, n);
        for &(t, v) in series {
            if let Some(t) = t {
                r.push((t, v));
            }
        }
        Self { timed, points: r.finish() }
    }
}

/// At most `n` points for a chart: the points cut into runs of `ceil(len / n)` in order,
/// and the peak of each run (the last of equal peaks, under [`f64::total_cmp`]); every
/// point when there are at most `n` (or `n` is 0).
pub fn reduce_points(points: &[(i64, f64)], n: usize) -> Vec<(i64, f64)> {
    let mut r = Reducer::new(points.len(), n);
    for &p in points {
        r.push(p);
    }
    r.finish()
}

/// [`reduce_points`] point by point, for points that are not in a slice: told how many
/// there are, then given each in order.
#[derive(Debug)]
pub struct Reducer {
    per: usize,
    left: usize,
    peak: Option<(i64, f64)>,
    out: Vec<(i64, f64)>,
}

impl Reducer {
    /// For `len` points in all.
    pub fn new(len: usize, n: usize) -> Self {
        let per = if len <= n || n == 0 { 1 } else { len.div_ceil(n) };
        Self { per, left: per, peak: None, out: Vec::with_capacity(len.div_ceil(per)) }
    }

    #[inline]
    pub fn push(&mut self, p: (i64, f64)) {
        match self.peak {
            Some(peak) if p.1.total_cmp(&peak.1).is_lt() => {}
            _ => self.peak = Some(p),
        }
        self.left -= 1;
        if self.left == 0 {
            self.out.extend(self.peak.take());
            self.left = self.per;
        }
    }

    pub fn finish(mut self) -> Vec<(i64, f64)> {
        self.out.extend(self.peak.take());
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_runs_last_peak_and_the_tail() {
        let pts: Vec<(i64, f64)> = [1.0, 3.0, 3.0, 2.0, 5.0, 0.0, 4.0]
            .iter()
            .enumerate()
            .map(|(i, v)| (i as i64, *v))
            .collect();
        // Runs of 3: [1 3 3] [2 5 0] [4].
        assert_eq!(reduce_points(&pts, 3), vec![(2, 3.0), (4, 5.0), (6, 4.0)]);
        assert_eq!(reduce_points(&pts, 7), pts);
        assert_eq!(reduce_points(&pts, 0), pts);
        assert_eq!(reduce_points(&[], 5), vec![]);
        // Untimed points are left out before the runs are cut.
        let series = [(None, 9.0), (Some(1), 1.0), (Some(2), 2.0), (None, 9.0), (Some(3), 0.5)];
        assert_eq!(
            Reduced::of_series(&series, 2),
            Reduced { timed: 3, points: vec![(2, 2.0), (3, 0.5)] }
        );
    }

    proptest::proptest! {
        /// The same as cutting the slice into chunks and taking `Iterator::max_by` of each.
        #[test]
        fn peaks_are_the_chunks_max(
            values in proptest::collection::vec(proptest::prop_oneof![-5.0f64..5.0, proptest::strategy::Just(1.0)], 0..200),
            n in 0usize..40,
        ) {
            let pts: Vec<(i64, f64)> = values.iter().enumerate().map(|(i, v)| (i as i64, *v)).collect();
            let want: Vec<(i64, f64)> = if pts.len() <= n || n == 0 {
                pts.clone()
            } else {
                pts.chunks(pts.len().div_ceil(n))
                    .filter_map(|c| c.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1)))
                    .collect()
            };
            proptest::prop_assert_eq!(reduce_points(&pts, n), want);
        }
    }
}
