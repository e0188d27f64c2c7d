//! Per-target percentiles of every metric: what the checklist tables and rules read.

use advisor_model::Metric;
use serde::Serialize;

use crate::Capture;
use crate::frame::TARGET;
use polars::prelude::*;

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
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        // Unstable is enough: values equal under total_cmp are the same bits.
        v.sort_unstable_by(f64::total_cmp);
        let n = v.len();
        let rank = |p: f64| advisor_model::nearest_rank(&v, p).unwrap_or(v[n - 1]);
        Some(Self {
            count: n,
            avg: v.iter().sum::<f64>() / n as f64,
            min: v[0],
            p50: rank(50.0),
            p90: rank(90.0),
            p99: rank(99.0),
            max: v[n - 1],
        })
    }
}

/// Every metric's stats for one target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetSummary {
    pub target: u32,
    pub name: String,
    pub metrics: Vec<(Metric, Stats)>,
}

impl Capture {
    /// Stats of every metric for every target that has values.
    ///
    /// The frame is split by target once (a polars filter per target), so the cost is one
    /// pass over the rows per target rather than one per (target, metric).
    pub fn summary(&self) -> Vec<TargetSummary> {
        let metrics = self.metrics();
        let Ok(targets) = self.frame.column(TARGET).and_then(|c| c.u32().cloned()) else {
            return Vec::new();
        };
        let names: Vec<&str> = metrics.iter().map(|m| m.name()).collect();
        let Ok(columns) = self.frame.select(names) else {
            return Vec::new();
        };
        (0..self.meta.targets.len() as u32)
            .filter_map(|t| {
                let part = match self.rows_of(t) {
                    Some((start, len)) => columns.slice(start as i64, len),
                    None => columns.filter(&targets.equal(t)).ok()?,
                };
                let stats: Vec<(Metric, Stats)> = metrics
                    .iter()
                    .filter_map(|m| {
                        let col = part.column(m.name()).ok()?.f64().ok()?.clone();
                        let values: Vec<f64> = col.iter().flatten().collect();
                        Stats::of(&values).map(|s| (*m, s))
                    })
                    .collect();
                (!stats.is_empty()).then(|| TargetSummary {
                    target: t,
                    name: self.meta.targets[t as usize].name.clone(),
                    metrics: stats,
                })
            })
            .collect()
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
