//! Per-target percentiles of every metric: what the checklist tables and rules read.

use advisor_model::Metric;
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
}

impl Stats {
    /// Stats of a set of values; `None` when there is no finite value.
    pub fn of(values: &[f64]) -> Option<Self> {
        Self::of_vec(values.iter().copied().filter(|x| x.is_finite()).collect())
    }

    /// [`Stats::of`] finite values already collected (reordered here).
    ///
    /// Linear, no sort: the percentiles are selections ([`advisor_model::nearest_ranks`],
    /// to the bit what sorting gives), the average a compensated sum, so it does not
    /// depend on the order of the values either.
    fn of_vec(mut v: Vec<f64>) -> Option<Self> {
        let first = *v.first()?;
        let (mut min, mut max) = (first, first);
        for &x in &v {
            if x.total_cmp(&min).is_lt() {
                min = x;
            }
            if x.total_cmp(&max).is_gt() {
                max = x;
            }
        }
        let n = v.len();
        let avg = compensated_sum(&v) / n as f64;
        let ranks = advisor_model::nearest_ranks(&mut v, &[50.0, 90.0, 99.0]);
        let rank = |i: usize| ranks.get(i).copied().flatten().unwrap_or(max);
        Some(Self { count: n, avg, min, p50: rank(0), p90: rank(1), p99: rank(2), max })
    }
}

/// Neumaier's compensated sum: the rounding error of every addition is carried, so a mean
/// of a day of samples is exact to the last bit or two, whatever their order.
fn compensated_sum(values: &[f64]) -> f64 {
    let (mut sum, mut carry) = (0.0f64, 0.0f64);
    for &x in values {
        let t = sum + x;
        carry += if sum.abs() >= x.abs() { (sum - t) + x } else { (x - t) + sum };
        sum = t;
    }
    sum + carry
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
        let n = self.meta.targets.len();
        advisor_model::par::map_indexed(n, 8, |t| self.target_stats(t as u32))
            .into_iter()
            .flatten()
            .collect()
    }

    /// Stats of every metric of one target; `None` when it has no value.
    fn target_stats(&self, t: u32) -> Option<TargetStats> {
        let stats: Vec<(Metric, Stats)> = match self.part(t) {
            Some(part) => part
                .metrics
                .iter()
                .filter_map(|(m, col)| Stats::of_vec(finite_values(col)).map(|s| (*m, s)))
                .collect(),
            None => self
                .metrics()
                .into_iter()
                .filter_map(|m| Stats::of(&self.values(t, m)).map(|s| (m, s)))
                .collect(),
        };
        (!stats.is_empty()).then(|| TargetStats {
            target: t,
            name: self.meta.targets[t as usize].name.clone(),
            metrics: stats,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        let s = Stats::of(&v).unwrap_or_else(|| unreachable!());
        assert_eq!((s.p50, s.p90, s.p99, s.max, s.min), (50.0, 90.0, 99.0, 100.0, 1.0));
        assert!(Stats::of(&[f64::NAN]).is_none());
    }
}
