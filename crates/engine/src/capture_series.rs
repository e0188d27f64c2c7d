//! The series the rules read, straight from the captures' frames.

use std::sync::Arc;

use advisor_model::{Direction, Metric, Reduced, Scale};
use advisor_normalize::{Capture, TargetStats, metric_stats};
use advisor_rules::eval::{AxisOrPoints, KnownRanks, Series, SeriesSource, SourceValues, TargetId};

/// The captures as the rules' [`SeriesSource`]; a [`TargetId`]'s `capture` indexes them.
/// With each capture's summaries when they were taken first ([`CaptureSeries::known`]):
/// their percentiles are the rules' too.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CaptureSeries<'a>(pub(crate) &'a [Capture], pub(crate) &'a [Vec<TargetStats>]);

impl<'a> CaptureSeries<'a> {
    /// The captures alone, no percentile known.
    #[cfg(test)]
    pub(crate) fn new(captures: &'a [Capture]) -> Self {
        CaptureSeries(captures, &[])
    }

    fn capture(&self, id: TargetId) -> Option<&Capture> {
        self.0.get(id.capture)
    }

    /// [`SeriesSource::axis_is`] with each stamp of the capture's moved by `shift` ms
    /// (its clock's offset from Azure Monitor's, [`crate::platform`]).
    pub(crate) fn axis_is_shifted(&self, target: TargetId, times: &[i64], shift: i64) -> bool {
        self.capture(target).is_some_and(|c| c.axis_is(target.target, times, shift))
    }
}

impl SeriesSource for CaptureSeries<'_> {
    /// Not cached here: the evaluator keeps the series the rules read (in its own units)
    /// for as long as the rules run, and a second copy for the whole analysis would cost
    /// memory on a day of samples.
    fn series(&self, target: TargetId, metric: Metric) -> Option<Arc<Series>> {
        self.capture(target)
            .map(|c| c.series(target.target, metric))
            .filter(|s| !s.is_empty())
            .map(Arc::new)
    }
    fn series_columns(
        &self,
        target: TargetId,
        metric: Metric,
    ) -> Option<(Vec<Option<i64>>, Vec<f64>)> {
        let (times, vals) = self.capture(target)?.series_columns(target.target, metric);
        (!vals.is_empty()).then_some((times, vals))
    }
    fn axis(&self, target: TargetId) -> Option<Vec<Option<i64>>> {
        self.capture(target)?.axis(target.target)
    }
    fn axis_is(&self, target: TargetId, times: &[i64]) -> bool {
        self.axis_is_shifted(target, times, 0)
    }
    fn reduced(&self, target: TargetId, metric: Metric, n: usize) -> Option<Reduced> {
        let r = self.capture(target)?.reduced(target.target, metric, n);
        (!r.points.is_empty()).then_some(r)
    }
    fn axis_or_points_scaled(&self, t: TargetId, m: Metric, s: Scale) -> Option<AxisOrPoints> {
        match self.capture(t)?.axis_or_points_scaled(t.target, m, s) {
            Err((_, vals)) if vals.is_empty() => None,
            got => Some(got),
        }
    }
    fn axis_values_in_place(&self, t: TargetId, m: Metric) -> Option<SourceValues> {
        let vals = self.capture(t)?.axis_values_in_place(t.target, m)?;
        Some(Arc::new(vals))
    }
    fn source_percentile(&self, target: TargetId, direction: Direction, pct: f64) -> Option<f64> {
        let c = self.capture(target)?;
        let mut exact = None;
        let mut above: Option<(f64, f64)> = None;
        for p in &c.meta.percentiles {
            if p.target != target.target || p.direction != direction {
                continue;
            }
            if (p.percentile - pct).abs() < 1e-6 {
                exact = Some(p.latency_ms);
            } else if p.percentile > pct && above.is_none_or(|(q, _)| p.percentile < q) {
                above = Some((p.percentile, p.latency_ms));
            }
        }
        // The next percentile up bounds the asked one from above, when close.
        exact.or_else(|| above.filter(|(q, _)| *q - pct <= 0.5).map(|(_, v)| v))
    }
    fn interval_s(&self, target: TargetId) -> Option<f64> {
        self.capture(target)?.meta.interval_s
    }
    /// The summary's percentiles of the metric (its three and those it was asked for).
    fn known_ranks(&self, target: TargetId, metric: Metric) -> Option<KnownRanks> {
        let s = metric_stats(self.1.get(target.capture)?, target.target, metric)?;
        let mut ranks = vec![(50.0, s.p50), (90.0, s.p90), (99.0, s.p99)];
        ranks.extend(s.more.iter().copied());
        Some(KnownRanks { count: s.count, min: s.min, max: s.max, ranks })
    }
}
