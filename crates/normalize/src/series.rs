//! One metric of one target as a plain time-ordered series, for the rule evaluator.

use std::borrow::Cow;

use advisor_model::{Metric, Reduced, Reducer, Scale};
use polars::prelude::*;

use crate::Capture;
use crate::frame::{TARGET, TIME};
use crate::parts::Part;

impl Capture {
    /// The values of `metric` for target `target`: `(time_ms, value)` sorted by time (a
    /// benchmark's summary row has no time), nulls and non-finite values dropped. Empty
    /// when the capture has no such metric or target.
    pub fn series(&self, target: u32, metric: Metric) -> Vec<(Option<i64>, f64)> {
        match self.part(target) {
            Some(part) => Ok(part_series(part, metric)),
            None => series_of(&self.frame, target, metric),
        }
        .unwrap_or_default()
    }
}

impl Capture {
    /// The timed points of [`Capture::series`], reduced to at most `n` for a chart
    /// ([`advisor_model::reduce_points`]): from a target's part in two walks over its
    /// buffers (one to count, one to reduce), so the series is never held as points.
    pub fn reduced(&self, target: u32, metric: Metric, n: usize) -> Reduced {
        if let Some(part) = self.part(target) {
            let (Some(t), Some(v)) = (part.time.as_ref(), part.metric(metric)) else {
                return Reduced::default();
            };
            let mut timed = 0usize;
            each_point(t, &v, |tm, _| timed += usize::from(tm.is_some()));
            let mut r = Reducer::new(timed, n);
            each_point(t, &v, |tm, x| {
                if let Some(tm) = tm {
                    r.push((tm, x));
                }
            });
            return Reduced { timed, points: r.finish() };
        }
        Reduced::of_series(&self.series(target, metric), n)
    }
}

/// A metric's values on its target's time axis ([`Capture::axis`]), or its points.
pub type AxisOrPoints = Result<Vec<f64>, (Vec<Option<i64>>, Vec<f64>)>;

impl Capture {
    /// [`Capture::series`] as two columns, time stamps and values: what a columnar
    /// consumer (the rule evaluator) wants, without the (time, value) pairs in between.
    pub fn series_columns(&self, target: u32, metric: Metric) -> (Vec<Option<i64>>, Vec<f64>) {
        match self.axis_or_points(target, metric) {
            Ok(vals) => match self.axis(target) {
                Some(times) => (times, vals),
                None => self.series(target, metric).into_iter().unzip(),
            },
            Err(points) => points,
        }
    }

    /// The time stamps of a target's rows, when none is missing: the axis every metric
    /// of [`Capture::axis_values`] lies on. Shared by a target's metrics, so a consumer
    /// that keeps series by target takes it once.
    pub fn axis(&self, target: u32) -> Option<Vec<Option<i64>>> {
        let t = self.part(target)?.time.as_ref()?;
        if t.null_count() > 0 {
            return None;
        }
        let mut times: Vec<Option<i64>> = Vec::with_capacity(t.len());
        for a in t.downcast_iter() {
            times.extend(a.values().iter().map(|x| Some(*x)));
        }
        Some(times)
    }

    /// Whether [`Capture::axis`] of `target`, each stamp moved by `shift` ms, is exactly
    /// `times` (stamps none of which is missing): compared in place, without building the
    /// axis.
    pub fn axis_is(&self, target: u32, times: &[i64], shift: i64) -> bool {
        let Some(t) = self.part(target).and_then(|p| p.time.as_ref()) else { return false };
        if t.null_count() > 0 || t.len() != times.len() {
            return false;
        }
        let mut at = 0;
        t.downcast_iter().all(|a| {
            let want = &times[at..at + a.len()];
            at += a.len();
            // Unmoved (the usual case): two buffers compared, as memory.
            if shift == 0 {
                return a.values().as_slice() == want;
            }
            a.values().iter().zip(want).all(|(x, w)| x.wrapping_add(shift) == *w)
        })
    }

    /// A metric's values at every time stamp of [`Capture::axis`], in its order, when the
    /// target has a finite value of it at each (the usual case); `None` otherwise (then
    /// [`Capture::series`] has the points there are).
    pub fn axis_values(&self, target: u32, metric: Metric) -> Option<Vec<f64>> {
        self.part(target)?;
        self.axis_or_points(target, metric).ok()
    }

    /// [`Capture::axis_values`] when the metric lies on the axis (`Ok`), else its points
    /// as [`Capture::series_columns`] gives them (`Err`): a derived metric is worked out
    /// once for either answer.
    pub fn axis_or_points(&self, target: u32, metric: Metric) -> AxisOrPoints {
        self.axis_or_points_scaled(target, metric, Scale::Keep)
    }

    /// [`Capture::axis_values`] as the frame holds them, shared instead of copied: a
    /// metric the target states (not one worked out from others), when none of its values
    /// is missing or not finite and its one buffer lies on [`Capture::axis`]. `None`
    /// otherwise (then [`Capture::axis_or_points`] gives them).
    pub fn axis_values_in_place(
        &self,
        target: u32,
        metric: Metric,
    ) -> Option<impl AsRef<[f64]> + Send + Sync + 'static> {
        let part = self.part(target)?;
        let t = part.time.as_ref()?;
        let Cow::Borrowed(v) = part.metric(metric)? else { return None };
        if t.null_count() > 0 || v.null_count() > 0 || t.len() != v.len() {
            return None;
        }
        let [arr] = v.downcast_iter().collect::<Vec<_>>()[..] else { return None };
        (part.finite || advisor_model::all_finite(arr.values())).then(|| arr.values().clone())
    }

    /// [`Capture::axis_or_points`] with the values on the axis (`Ok`) converted by `scale`
    /// (the points of `Err` are not): a stated column is converted in the copy that takes
    /// it out of the frame, not in a second pass over the copy.
    pub fn axis_or_points_scaled(&self, target: u32, metric: Metric, scale: Scale) -> AxisOrPoints {
        let Some(part) = self.part(target) else {
            return Err(self.series(target, metric).into_iter().unzip());
        };
        let (Some(t), Some(v)) = (part.time.as_ref(), part.metric(metric)) else {
            return Err((Vec::new(), Vec::new()));
        };
        if t.null_count() == 0 && v.null_count() == 0 && t.len() == v.len() {
            // A derived column (owned) is finite wherever it has a value
            // ([`crate::derive::column`]); a stated one is checked.
            let finite = |c: &Cow<'_, Float64Chunked>| {
                matches!(c, Cow::Owned(_))
                    || part.finite
                    || c.downcast_iter().all(|a| advisor_model::all_finite(a.values()))
            };
            if finite(&v) {
                return Ok(into_values(v, scale));
            }
        }
        Err(points(t, &v))
    }
}

/// A column's values (none missing) as a vector, converted by `scale`: a derived metric's
/// own buffer when nothing else holds it (no copy of a series just worked out), converted
/// in place, else a copy converted as it is made.
pub(crate) fn into_values(v: Cow<'_, Float64Chunked>, scale: Scale) -> Vec<f64> {
    match v {
        // One chunk: the one array's buffer.
        Cow::Owned(ca) if ca.chunks().len() == 1 => {
            let mut vals = ca.downcast_into_iter().next().map_or_else(Vec::new, |arr| {
                arr.into_inner().1.into_mut().either(|shared| shared.to_vec(), |own| own)
            });
            scale.apply_all(&mut vals);
            vals
        }
        v => {
            let mut vals: Vec<f64> = Vec::with_capacity(v.len());
            for a in v.downcast_iter() {
                scale.extend(&mut vals, a.values());
            }
            vals
        }
    }
}

/// A target's rows are in time order already: its series is its part's column.
fn part_series(part: &Part, metric: Metric) -> Vec<(Option<i64>, f64)> {
    let (Some(t), Some(v)) = (&part.time, part.metric(metric)) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(v.len());
    each_point(t, &v, |tm, x| out.push((tm, x)));
    out
}

/// The finite points of a column `v` on the time stamps `t` (one length), as two
/// columns.
fn points(t: &Int64Chunked, v: &Float64Chunked) -> (Vec<Option<i64>>, Vec<f64>) {
    let mut times = Vec::with_capacity(v.len());
    let mut vals = Vec::with_capacity(v.len());
    each_point(t, v, |tm, x| {
        times.push(tm);
        vals.push(x);
    });
    (times, vals)
}

/// `f` of each finite point of a column `v` on the time stamps `t` (one length), in row
/// order: straight from the buffers when each is one chunk and no time is missing (a
/// target's part; a derived metric's 0/0 rows are missing values, not missing times).
fn each_point(t: &Int64Chunked, v: &Float64Chunked, mut f: impl FnMut(Option<i64>, f64)) {
    if t.null_count() == 0
        && t.chunks().len() == 1
        && v.chunks().len() == 1
        && t.len() == v.len()
        && let (Some(ta), Some(va)) = (t.downcast_iter().next(), v.downcast_iter().next())
    {
        let (tv, vv) = (ta.values().as_slice(), va.values().as_slice());
        match va.validity().filter(|_| v.null_count() > 0) {
            None => {
                for (&tm, &x) in tv.iter().zip(vv) {
                    if x.is_finite() {
                        f(Some(tm), x);
                    }
                }
            }
            Some(valid) => {
                for ((&tm, &x), ok) in tv.iter().zip(vv).zip(valid.iter()) {
                    if ok && x.is_finite() {
                        f(Some(tm), x);
                    }
                }
            }
        }
        return;
    }
    for (tm, x) in t.iter().zip(v.iter()) {
        if let Some(x) = x.filter(|x| x.is_finite()) {
            f(tm, x);
        }
    }
}

fn series_of(df: &DataFrame, target: u32, metric: Metric) -> PolarsResult<Vec<(Option<i64>, f64)>> {
    if df.column(metric.name()).is_err() {
        return Ok(Vec::new());
    }
    let mask = df.column(TARGET)?.u32()?.equal(target);
    let rows = df.select([TIME, metric.name()])?.filter(&mask)?;
    let rows = rows.drop_nulls(Some(&[metric.name().to_owned()]))?;
    let rows = rows.sort(
        [TIME],
        SortMultipleOptions::default().with_nulls_last(false).with_maintain_order(true),
    )?;
    let t = rows.column(TIME)?.as_materialized_series().to_physical_repr();
    let t = t.i64()?;
    let v = rows.column(metric.name())?.f64()?;
    Ok(t.iter()
        .zip(v.iter())
        .filter_map(|(t, v)| v.filter(|x| x.is_finite()).map(|x| (t, x)))
        .collect())
}

#[cfg(test)]
mod tests {
    use advisor_model::{Table, TargetKind};

    use super::*;

    #[test]
    fn filters_by_target_sorts_by_time_and_drops_nulls() {
        let mut meta = advisor_model::CaptureMeta::new(advisor_ingest::iostat::TEXT);
        meta.target_index("sda", TargetKind::Device, None);
        meta.target_index("sdb", TargetKind::Device, None);
        let mut t = Table::default();
        t.push_row(0, Some(2000), &[(Metric::Iops, 2.0)]);
        t.push_row(1, Some(1000), &[(Metric::Iops, 9.0)]);
        t.push_row(0, Some(1000), &[(Metric::Iops, 1.0)]);
        t.push_row(0, Some(3000), &[(Metric::Mbps, 1.0)]);
        let frame = crate::frame::from_table(&t).unwrap_or_else(|_| unreachable!());
        assert!(
            crate::parts::TargetRows::of(&frame, 2, false, false).is_none(),
            "sda's rows are not one run"
        );
        let unsorted = Capture { file: "x".into(), meta, frame, since_boot: None, index: None };
        let (frame, index) = crate::build::stacked(unsorted.frame.clone(), 2, false, false)
            .unwrap_or_else(|_| unreachable!());
        assert!(index.is_some(), "sorted by target and time");
        let sorted = Capture { frame, index, ..unsorted.clone() };
        for c in [unsorted, sorted] {
            assert_eq!(c.series(0, Metric::Iops), vec![(Some(1000), 1.0), (Some(2000), 2.0)]);
            assert_eq!(c.series(1, Metric::Iops), vec![(Some(1000), 9.0)]);
            assert!(c.series(0, Metric::ReadLatencyMs).is_empty());
            assert_eq!(c.values(0, Metric::Iops).len(), 2);
            for (t, m) in
                [(0, Metric::Iops), (0, Metric::Mbps), (1, Metric::Iops), (1, Metric::Mbps)]
            {
                let (times, vals): (Vec<_>, Vec<_>) = c.series(t, m).into_iter().unzip();
                assert_eq!(c.series_columns(t, m), (times, vals));
            }
        }
    }

    // A metric on the target's axis is the series, time stamps and all; one with a gap
    // (a blank cell, or no value at one time) is not on it, and its series has the
    // points there are.
    #[test]
    fn axis_values_are_the_series_where_nothing_is_missing() {
        let mut meta = advisor_model::CaptureMeta::new(advisor_ingest::iostat::TEXT);
        meta.target_index("sda", TargetKind::Device, None);
        meta.target_index("sdb", TargetKind::Device, None);
        let mut t = Table::default();
        for ms in [1000, 2000, 3000] {
            t.push_row(0, Some(ms), &[(Metric::Iops, ms as f64), (Metric::Mbps, 1.0)]);
            let lat = if ms == 2000 { f64::NAN } else { 0.5 };
            t.push_row(1, Some(ms), &[(Metric::Iops, 1.0), (Metric::LatencyMs, lat)]);
        }
        let frame = crate::frame::from_table(&t).unwrap_or_else(|_| unreachable!());
        let (frame, index) =
            crate::build::stacked(frame, 2, false, false).unwrap_or_else(|_| unreachable!());
        assert!(index.is_some());
        let c = Capture { file: "x".into(), meta, frame, since_boot: None, index };
        let axis = vec![Some(1000), Some(2000), Some(3000)];
        assert_eq!(c.axis(0), Some(axis.clone()));
        assert_eq!(c.axis_values(0, Metric::Iops), Some(vec![1000.0, 2000.0, 3000.0]));
        assert_eq!(c.axis_values(1, Metric::LatencyMs), None, "a value is not a number");
        assert_eq!(
            c.series_columns(1, Metric::LatencyMs),
            (vec![Some(1000), Some(3000)], vec![0.5, 0.5])
        );
        assert_eq!(c.axis_values(0, Metric::LatencyMs), None, "sda has no latency");
        let in_place =
            |t: u32, m: Metric| c.axis_values_in_place(t, m).map(|v| v.as_ref().to_vec());
        for (t, m) in [(0, Metric::Iops), (0, Metric::Mbps), (1, Metric::Iops)] {
            let on_axis = (c.axis(t).unwrap_or_default(), c.axis_values(t, m).unwrap_or_default());
            assert_eq!(on_axis, c.series_columns(t, m));
            assert_eq!(on_axis.0, axis);
            // The same values read in place, without a copy.
            assert_eq!(in_place(t, m).as_ref(), Some(&on_axis.1));
        }
        assert_eq!(in_place(1, Metric::LatencyMs), None, "a value is not a number");
        assert_eq!(in_place(0, Metric::LatencyMs), None, "sda has no latency");
        // Told in place: the axis itself, moved by a clock offset, and nothing else.
        let stamps: Vec<i64> = axis.iter().flatten().copied().collect();
        assert!(c.axis_is(0, &stamps, 0) && c.axis_is(1, &stamps, 0));
        let later: Vec<i64> = stamps.iter().map(|t| t + 500).collect();
        assert!(c.axis_is(0, &later, 500) && !c.axis_is(0, &later, 0));
        assert!(!c.axis_is(0, &stamps[..2], 0) && !c.axis_is(0, &[1000, 2000, 3001], 0));
        assert!(!c.axis_is(2, &stamps, 0), "no such target");
        // Without the parts (rows not one run per target) there is no axis to share.
        let plain = Capture { index: None, ..c };
        assert_eq!((plain.axis(0), plain.axis_values(0, Metric::Iops)), (None, None));
        assert!(plain.axis_values_in_place(0, Metric::Iops).is_none());
        assert!(!plain.axis_is(0, &stamps, 0));
    }

    // A derived metric is on the axis when it has a finite value at every time (the total
    // IOPS), else it is its points (the weighted latency of an idle second is 0/0): the
    // same answer as its column would have given, worked out once either way.
    #[test]
    fn a_derived_metric_is_on_the_axis_or_its_points() {
        use Metric::*;
        let mut meta = advisor_model::CaptureMeta::new(advisor_ingest::iostat::TEXT);
        meta.target_index("sda", TargetKind::Device, None);
        let mut t = Table::default();
        for (ms, r, w) in [(1000, 10.0, 30.0), (2000, 0.0, 0.0), (3000, 5.0, 0.0)] {
            let row = [(ReadIops, r), (WriteIops, w), (ReadLatencyMs, 2.0), (WriteLatencyMs, 4.0)];
            t.push_row(0, Some(ms), &row);
        }
        let frame = crate::frame::from_table(&t).unwrap_or_else(|_| unreachable!());
        let (frame, index) =
            crate::build::stacked(frame, 1, false, false).unwrap_or_else(|_| unreachable!());
        let c = Capture { file: "x".into(), meta, frame, since_boot: None, index };
        assert_eq!(c.axis_or_points(0, Iops), Ok(vec![40.0, 0.0, 5.0]));
        // Worked out, so not read in place: only what the capture states is.
        assert!(c.axis_values_in_place(0, Iops).is_none());
        let stated = c.axis_values_in_place(0, WriteIops).map(|v| v.as_ref().to_vec());
        assert_eq!(stated, Some(vec![30.0, 0.0, 0.0]));
        let latency = (vec![Some(1000), Some(3000)], vec![(2.0 * 10.0 + 4.0 * 30.0) / 40.0, 2.0]);
        assert_eq!(c.axis_or_points(0, LatencyMs), Err(latency.clone()));
        // Converted in the copy (a stated column) or in place (a derived one): what
        // converting after gives, to the bit; points are not converted.
        let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
        for scale in [Scale::Keep, Scale::Mul(1_048_576.0), Scale::Div(1e3), Scale::Div(3.0)] {
            for m in [ReadIops, ReadLatencyMs, Iops] {
                let (Ok(got), Ok(mut want)) =
                    (c.axis_or_points_scaled(0, m, scale), c.axis_or_points(0, m))
                else {
                    panic!("{m:?} is on the axis")
                };
                scale.apply_all(&mut want);
                assert_eq!(bits(got), bits(want), "{m:?} {scale:?}");
            }
            assert_eq!(c.axis_or_points_scaled(0, LatencyMs, scale), Err(latency.clone()));
        }
        assert_eq!(c.series_columns(0, LatencyMs), latency);
        assert_eq!(c.axis_values(0, LatencyMs), None);
        assert_eq!(
            c.metrics(),
            vec![ReadIops, WriteIops, Iops, ReadLatencyMs, WriteLatencyMs, LatencyMs, ReadPct]
        );
        // The frame keeps what the capture states; the rest is worked out when asked.
        assert!(c.frame.column(Iops.name()).is_err());
    }

    #[test]
    fn samples_count_distinct_times_with_or_without_the_parts() {
        let mut meta = advisor_model::CaptureMeta::new(advisor_ingest::iostat::TEXT);
        meta.target_index("sda", TargetKind::Device, None);
        meta.target_index("sdb", TargetKind::Device, None);
        // sdb's times are among sda's, then not (3500).
        for extra in [None, Some(3500)] {
            let mut t = Table::default();
            for ms in [1000, 2000, 2000, 3000] {
                t.push_row(0, Some(ms), &[(Metric::Iops, 1.0)]);
            }
            t.push_row(1, None, &[(Metric::Iops, 1.0)]);
            t.push_row(1, Some(2000), &[(Metric::Iops, 1.0)]);
            if let Some(ms) = extra {
                t.push_row(1, Some(ms), &[(Metric::Iops, 1.0)]);
            }
            let frame = crate::frame::from_table(&t).unwrap_or_else(|_| unreachable!());
            let (frame, index) =
                crate::build::stacked(frame, 2, false, false).unwrap_or_else(|_| unreachable!());
            let c =
                Capture { file: "x".into(), meta: meta.clone(), frame, since_boot: None, index };
            let plain = Capture { index: None, ..c.clone() };
            let want = 3 + usize::from(extra.is_some());
            assert_eq!((c.samples(), plain.samples()), (want, want));
            // The first and last time from the parts' ends, as from the whole column
            // (sdb's missing time first, its last time past sda's when there is one).
            assert!(c.index.is_some());
            let last = extra.map_or(3000, i64::from);
            assert_eq!(
                (c.time_range(), plain.time_range()),
                (Some((1000, last)), Some((1000, last)))
            );
        }
    }

    #[test]
    fn samples_of_targets_on_every_line_and_a_part_without_time() {
        let mut meta = advisor_model::CaptureMeta::new(advisor_ingest::iostat::TEXT);
        for name in ["sda", "sdb", "sdc"] {
            meta.target_index(name, TargetKind::Device, None);
        }
        let mut t = Table::default();
        for target in 0..2 {
            for ms in [500, 1500, 2500, 2500] {
                t.push_row(target, Some(ms), &[(Metric::Iops, 1.0)]);
            }
        }
        t.push_row(2, None, &[(Metric::Iops, 1.0)]);
        let frame = crate::frame::from_table(&t).unwrap_or_else(|_| unreachable!());
        let (frame, index) =
            crate::build::stacked(frame, 3, false, false).unwrap_or_else(|_| unreachable!());
        let c = Capture { file: "x".into(), meta, frame, since_boot: None, index };
        let plain = Capture { index: None, ..c.clone() };
        assert!(c.index.is_some());
        assert_eq!((c.samples(), plain.samples()), (3, 3));
        assert_eq!((c.time_range(), plain.time_range()), (Some((500, 2500)), Some((500, 2500))));
    }
}
