//! Runtime values: scalars and series, time alignment, and the reductions.

use std::sync::Arc;

use crate::types::{CacheMode, Role};

/// Why a value could not be computed: what to provide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Missing(pub(crate) String);

pub(crate) type R<T> = Result<T, Missing>;

pub(crate) fn missing<T>(reason: impl Into<String>) -> R<T> {
    Err(Missing(reason.into()))
}

/// A collection element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Elem {
    /// Index into `Context::disks`.
    Disk(usize),
    Pool(usize),
    Bench(usize),
    /// Index into `Context::targets`.
    Target(usize),
}

/// A series: time-ordered points, and the sampling interval when known. The points are
/// shared: a capture's series is read by many rules, and copying a day of samples for each
/// cost more than evaluating them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct S<T> {
    pub(crate) pts: Arc<Vec<(Option<i64>, T)>>,
    pub(crate) interval: Option<f64>,
}

impl<T: Copy> S<T> {
    pub(crate) fn map<U>(&self, f: impl Fn(T) -> U) -> S<U> {
        let pts = self.pts.iter().map(|(t, v)| (*t, f(*v))).collect();
        S { pts: Arc::new(pts), interval: self.interval }
    }

    /// Inner join on time: the points both have, in time order.
    pub(crate) fn join<U: Copy, V>(&self, other: &S<U>, f: impl Fn(T, U) -> V) -> S<V> {
        let (a, b) = (&self.pts, &other.pts);
        let mut out = Vec::with_capacity(a.len().min(b.len()));
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    out.push((a[i].0, f(a[i].1, b[j].1)));
                    i += 1;
                    j += 1;
                }
            }
        }
        S { pts: Arc::new(out), interval: self.interval.or(other.interval) }
    }

    /// Seconds between samples: as given, else the median gap of the timestamps.
    pub(crate) fn interval_s(&self) -> Option<f64> {
        if let Some(i) = self.interval.filter(|i| *i > 0.0 && i.is_finite()) {
            return Some(i);
        }
        let mut gaps: Vec<i64> = self
            .pts
            .windows(2)
            .filter_map(|w| match (w[0].0, w[1].0) {
                (Some(a), Some(b)) if b > a => Some(b - a),
                _ => None,
            })
            .collect();
        if gaps.is_empty() {
            return None;
        }
        // The median: a selection (linear), the sort's middle element.
        let mid = gaps.len() / 2;
        let (_, m, _) = gaps.select_nth_unstable(mid);
        Some(*m as f64 / 1000.0)
    }
}

impl S<f64> {
    /// Drops points that are not finite (a division by zero at one sample).
    pub(crate) fn finite(mut self) -> S<f64> {
        if self.pts.iter().any(|(_, v)| !v.is_finite()) {
            Arc::make_mut(&mut self.pts).retain(|(_, v)| v.is_finite());
        }
        self
    }
}

/// A value during evaluation. Numbers are in stored units (bytes, seconds, fractions).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum V {
    Num(f64),
    Bool(bool),
    Text(String),
    Cache(CacheMode),
    Role(Role),
    Elem(Elem),
    Nums(S<f64>),
    Bools(S<bool>),
}

impl V {
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            V::Num(_) => "a number",
            V::Bool(_) => "a bool",
            V::Text(_) => "text",
            V::Cache(_) => "a cache mode",
            V::Role(_) => "a role",
            V::Elem(_) => "an element",
            V::Nums(_) => "a series",
            V::Bools(_) => "a bool series",
        }
    }
}

/// Nearest-rank percentile (as `advisor_normalize::Stats`) of finite values: a selection,
/// linear in the values (a day of samples per disk and metric), the sort's value to the bit.
pub(crate) fn percentile(values: &[f64], p: f64) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    advisor_model::nearest_ranks(&mut v, &[p]).into_iter().next().flatten()
}

/// The longest run of consecutive true samples, in seconds. A gap in the timestamps of
/// more than 1.5 intervals breaks a run.
pub(crate) fn longest_run_s(s: &S<bool>, interval: f64) -> f64 {
    let mut best = 0usize;
    let mut run = 0usize;
    let mut last: Option<i64> = None;
    for (t, b) in s.pts.iter() {
        let gap = match (last, t) {
            (Some(a), Some(b)) => (*b - a) as f64 / 1000.0 > interval * 1.5,
            _ => false,
        };
        if *b {
            run = if gap { 1 } else { run + 1 };
            best = best.max(run);
        } else {
            run = 0;
        }
        last = *t;
    }
    best as f64 * interval
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(pts: &[(i64, f64)]) -> S<f64> {
        S { pts: Arc::new(pts.iter().map(|(t, v)| (Some(*t), *v)).collect()), interval: None }
    }

    #[test]
    fn join_is_an_inner_join_on_time() {
        let a = s(&[(0, 1.0), (1000, 2.0), (2000, 3.0)]);
        let b = s(&[(1000, 10.0), (2000, 20.0), (3000, 30.0)]);
        let c = a.join(&b, |x, y| x + y);
        assert_eq!(*c.pts, vec![(Some(1000), 12.0), (Some(2000), 23.0)]);
        assert_eq!(c.interval_s(), Some(1.0));
    }

    #[test]
    fn runs_break_on_false_and_on_gaps() {
        let b = S {
            pts: Arc::new(vec![
                (Some(0), true),
                (Some(1000), true),
                (Some(2000), false),
                (Some(3000), true),
                (Some(4000), true),
                (Some(5000), true),
                (Some(9000), true),
            ]),
            interval: Some(1.0),
        };
        assert!((longest_run_s(&b, 1.0) - 3.0).abs() < 1e-9);
    }

    #[test]
    fn nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 95.0), Some(95.0));
        assert_eq!(percentile(&v, 99.9), Some(100.0));
        assert_eq!(percentile(&[], 50.0), None);
        // Whole ranks stay whole: 14% of 50 samples is the 7th, 7% of 100 the 7th.
        let v: Vec<f64> = (1..=50).map(f64::from).collect();
        assert_eq!(percentile(&v, 14.0), Some(7.0));
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 7.0), Some(7.0));
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(percentile(&v, 99.9), Some(999.0));
        assert_eq!(percentile(&v, 0.0), Some(1.0));
    }
}
