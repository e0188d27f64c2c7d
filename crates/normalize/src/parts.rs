//! Where each target's rows are in the canonical frame, and each target's columns on their
//! own: what every per-target read (series, values, summaries) goes through.
//!
//! The frame is stacked by target (the PerfMon reader builds it so; other frames are sorted
//! into that order once). A target's rows are then one run, but the frame's columns keep
//! the chunks the readers produced, one or more per target: a polars slice finds its
//! offset by walking the chunks, so slicing every target of a capture with thousands of
//! them was quadratic. The parts are cut once, in one walk per column, and share the
//! frame's buffers (no copy).

use std::borrow::Cow;
use std::sync::Arc;

use advisor_model::Metric;
use polars::prelude::*;

use crate::derive::{self, Columns};
use crate::frame::{TARGET, TIME};

/// One target's rows: its time stamps (ms, physical) and the metric columns it states.
/// The metrics it implies ([`crate::derive`]) are worked out when asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Part {
    pub(crate) time: Option<Int64Chunked>,
    pub(crate) stated: Vec<(Metric, Float64Chunked)>,
    /// The metrics some target of the capture states (shared by every part).
    pub(crate) capture: Arc<[Metric]>,
    /// A benchmark's summary: a direction with no IO reported did none.
    pub(crate) benchmark: bool,
    /// Every value the stated columns hold is finite (their reader dropped the others as
    /// missing): their readers need not check again.
    pub(crate) finite: bool,
}

impl Part {
    /// A metric's column: the stated one, else the derived one; `None` when the target
    /// has no value of it.
    pub(crate) fn metric(&self, m: Metric) -> Option<Cow<'_, Float64Chunked>> {
        derive::column(self, m, self.benchmark)
    }

    /// Every metric the target has a value of, in canonical order, with its column. A
    /// metric derived from derived ones (IO size from the totals, the read share) takes
    /// them as they were worked out for their own entries.
    pub(crate) fn columns(&self) -> Vec<(Metric, Cow<'_, Float64Chunked>)> {
        let mut memo = Memo { part: self, done: Vec::new() };
        let mut out = Vec::new();
        for &m in Metric::ALL {
            if self.capture_states(m) {
                // Through `derive::column`: a benchmark's direction without IO is zeros.
                out.extend(derive::column(self, m, self.benchmark).map(|c| (m, c)));
                continue;
            }
            let c = derive::column(&memo, m, self.benchmark).map(Cow::into_owned);
            if let Some(c) = &c {
                out.push((m, Cow::Owned(c.clone())));
            }
            memo.done.push((m, c));
        }
        out
    }
}

/// A part and the metrics derived from it so far.
struct Memo<'a> {
    part: &'a Part,
    done: Vec<(Metric, Option<Float64Chunked>)>,
}

impl derive::Columns for Memo<'_> {
    fn stated(&self, m: Metric) -> Option<Cow<'_, Float64Chunked>> {
        self.part.stated(m)
    }

    fn capture_states(&self, m: Metric) -> bool {
        self.part.capture_states(m)
    }

    fn known(&self, m: Metric) -> Option<Option<Cow<'_, Float64Chunked>>> {
        let (_, c) = self.done.iter().find(|(d, _)| *d == m)?;
        Some(c.as_ref().map(Cow::Borrowed))
    }
}

impl derive::Columns for Part {
    fn stated(&self, m: Metric) -> Option<Cow<'_, Float64Chunked>> {
        self.stated.iter().find(|(pm, _)| *pm == m).map(|(_, c)| Cow::Borrowed(c))
    }

    fn capture_states(&self, m: Metric) -> bool {
        self.capture.contains(&m)
    }
}

/// The finite values of a column, in row order: straight from the chunks' buffers when
/// nothing is missing (the usual case: a buffer every value of which is finite, known so
/// (`finite`: a [`Part::finite`] column) or told by one vectorised pass, is copied whole),
/// else through the validity.
pub(crate) fn finite_values(ca: &Float64Chunked, finite: bool) -> Vec<f64> {
    let mut v = Vec::with_capacity(ca.len() - ca.null_count());
    if ca.null_count() == 0 {
        for arr in ca.downcast_iter() {
            let values = arr.values().as_slice();
            if finite || advisor_model::all_finite(values) {
                v.extend_from_slice(values);
            } else {
                v.extend(values.iter().copied().filter(|x| x.is_finite()));
            }
        }
    } else {
        v.extend(ca.iter().flatten().filter(|x| x.is_finite()));
    }
    v
}

/// Every target's rows, when each target's rows are one run of the frame in time order (a
/// missing time first).
#[derive(Debug, Clone)]
pub(crate) struct TargetRows {
    parts: Vec<Part>,
    /// The frame's height when the parts were cut (a frame changed since is not trusted).
    height: usize,
}

impl TargetRows {
    /// The parts of `df`, or `None` when some target's rows are not one time-ordered run.
    /// `benchmark`: the frame is a benchmark's summary (see [`crate::derive`]); `finite`:
    /// every value its metric columns hold is finite ([`Part::finite`], checked in debug
    /// builds).
    pub(crate) fn of(
        df: &DataFrame,
        targets: usize,
        benchmark: bool,
        finite: bool,
    ) -> Option<Self> {
        let ranges = runs(df, targets)?;
        let time = df.column(TIME).ok()?.as_materialized_series().to_physical_repr();
        let time = split(time.i64().ok()?, &ranges)?;
        let mut parts: Vec<Part> = time
            .into_iter()
            .map(|t| Part { time: Some(t), benchmark, finite, ..Part::default() })
            .collect();
        for m in Metric::ALL {
            let Ok(c) = df.column(m.name()) else { continue };
            let Ok(values) = c.f64() else { continue };
            #[cfg(debug_assertions)]
            assert!(
                !finite || values.iter().flatten().all(f64::is_finite),
                "a frame said to hold finite values holds another in {}",
                m.name()
            );
            for (part, piece) in parts.iter_mut().zip(split(values, &ranges)?) {
                if piece.null_count() < piece.len() {
                    part.stated.push((*m, piece));
                }
            }
        }
        let stated: Arc<[Metric]> = Metric::ALL
            .iter()
            .copied()
            .filter(|m| parts.iter().any(|p| p.stated.iter().any(|(s, _)| s == m)))
            .collect();
        for p in &mut parts {
            p.capture = stated.clone();
        }
        Some(Self { parts, height: df.height() })
    }

    /// Distinct time stamps over every target, when every target's times are among the
    /// longest part's (a PerfMon CSV: every counter on every line): a linear walk instead
    /// of hashing the frame's whole time column. `None` otherwise.
    pub(crate) fn distinct_times(&self, df: &DataFrame) -> Option<usize> {
        if df.height() != self.height {
            return None;
        }
        let longest = self.parts.iter().filter_map(|p| p.time.as_ref()).max_by_key(|t| t.len())?;
        let base = present_times(longest);
        if base.is_empty() {
            return None;
        }
        for t in self.parts.iter().filter_map(|p| p.time.as_ref()) {
            let times = present_times(t);
            // The usual case, a target on every line: the same times, compared at once.
            if times.len() == base.len() && times == base {
                continue;
            }
            let mut j = 0usize;
            for &x in times.iter() {
                while base.get(j).is_some_and(|b| *b < x) {
                    j += 1;
                }
                if base.get(j) != Some(&x) {
                    return None;
                }
            }
        }
        Some(1 + base.windows(2).filter(|w| w[0] != w[1]).count())
    }

    /// The first and last time stamp of any target (each part is in time order, a missing
    /// time first), without a pass over the frame's time column; `None` when the parts do
    /// not fit `df` or no time is known.
    pub(crate) fn time_range(&self, df: &DataFrame) -> Option<(i64, i64)> {
        if df.height() != self.height {
            return None;
        }
        let ends = self.parts.iter().filter_map(|p| p.time.as_ref()).filter_map(|t| {
            let first = t.first_non_null().and_then(|i| t.get(i))?;
            Some((first, t.get(t.len().checked_sub(1)?)?))
        });
        ends.reduce(|(lo, hi), (a, b)| (lo.min(a), hi.max(b)))
    }

    /// The metrics some target has a value of, in canonical order; `None` when the parts
    /// do not fit `df`. A metric no target states is worked out target by target until one
    /// has a value of it.
    pub(crate) fn metrics(&self, df: &DataFrame) -> Option<Vec<Metric>> {
        if df.height() != self.height {
            return None;
        }
        let stated = |m: Metric| self.parts.first().is_some_and(|p| p.capture.contains(&m));
        let has = |m: Metric| {
            stated(m) || (derive::derivable(m) && self.parts.iter().any(|p| p.metric(m).is_some()))
        };
        Some(Metric::ALL.iter().copied().filter(|m| has(*m)).collect())
    }

    /// The rows of `target` in `df`, or `None` when the parts do not fit `df`.
    pub(crate) fn part(&self, df: &DataFrame, target: u32) -> Option<&Part> {
        if df.height() != self.height {
            return None;
        }
        self.parts.get(target as usize)
    }
}

/// The times a part has (a missing one dropped), borrowed from its one buffer when it
/// has one and no time is missing.
fn present_times(t: &Int64Chunked) -> Cow<'_, [i64]> {
    if t.null_count() == 0
        && let Ok(values) = t.cont_slice()
    {
        return Cow::Borrowed(values);
    }
    Cow::Owned(t.iter().flatten().collect())
}

/// Per target: (first row, rows), when each target's rows are one run in time order.
fn runs(df: &DataFrame, targets: usize) -> Option<Vec<(usize, usize)>> {
    let t = df.column(TARGET).ok()?.u32().ok()?.clone();
    let time = df.column(TIME).ok()?.as_materialized_series().to_physical_repr();
    let time = time.i64().ok()?.clone();
    if t.null_count() > 0 {
        return None;
    }
    // Straight from the buffers, without a copy: the walk runs once per row of the frame.
    let ids = t.downcast_iter().flat_map(|a| a.values().iter().copied());
    if time.null_count() == 0 {
        let times = time.downcast_iter().flat_map(|a| a.values().iter().map(|&x| Some(x)));
        walk_runs(ids, times, targets)
    } else {
        walk_runs(ids, time.iter(), targets)
    }
}

/// [`runs`] from each row's target and time, in frame order.
fn walk_runs(
    ids: impl Iterator<Item = u32>,
    times: impl Iterator<Item = Option<i64>>,
    targets: usize,
) -> Option<Vec<(usize, usize)>> {
    let mut ranges = vec![(0usize, 0usize); targets];
    let mut seen = vec![false; targets];
    let mut current: Option<u32> = None;
    let mut last: Option<Option<i64>> = None;
    for (row, (ti, tm)) in ids.zip(times).enumerate() {
        if current != Some(ti) {
            let slot = seen.get_mut(ti as usize)?;
            if *slot {
                return None;
            }
            *slot = true;
            ranges[ti as usize] = (row, 0);
            current = Some(ti);
            last = None;
        }
        // Option's order puts None (no time) first, as the sort of the frame does.
        if last.is_some_and(|prev| tm < prev) {
            return None;
        }
        last = Some(tm);
        ranges[ti as usize].1 += 1;
    }
    Some(ranges)
}

/// `ca` cut into the row ranges `ranges` (disjoint), in one walk over its chunks: the
/// pieces are slices of the chunks, not copies.
fn split<T: PolarsNumericType>(
    ca: &ChunkedArray<T>,
    ranges: &[(usize, usize)],
) -> Option<Vec<ChunkedArray<T>>> {
    let arrays = ca.chunks();
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    order.sort_by_key(|&i| ranges[i].0);
    let empty = ChunkedArray::<T>::from_vec(ca.name().clone(), Vec::new());
    let mut out: Vec<ChunkedArray<T>> = vec![empty; ranges.len()];
    // The chunk the walk is in, and the frame row it starts at.
    let mut ci = 0usize;
    let mut chunk_start = 0usize;
    for i in order {
        let (start, len) = ranges[i];
        if len == 0 {
            continue;
        }
        let end = start + len;
        let mut row = start;
        let mut pieces: Vec<ArrayRef> = Vec::new();
        while row < end {
            let Some(a) = arrays.get(ci) else { break };
            let a_end = chunk_start + a.len();
            if a_end <= row {
                chunk_start = a_end;
                ci += 1;
                continue;
            }
            let take = end.min(a_end) - row;
            pieces.push(a.sliced(row - chunk_start, take));
            row += take;
        }
        // The pieces are the column's own arrays: the dtype cannot differ.
        out[i] = Series::try_from((ca.name().clone(), pieces)).ok()?.unpack::<T>().ok()?.clone();
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // A PerfMon capture's parts are known to hold finite values only (its reader drops the
    // others: here a cell far beyond any disk's IOPS and a negative one), so their readers
    // skip the check; another reader's are not, and are checked as they are read.
    #[test]
    fn only_a_perfmon_capture_s_parts_are_known_finite() {
        let text = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\H\\PhysicalDisk(0 C:)\\Disk Reads/sec\",\"\\\\H\\PhysicalDisk(0 C:)\\Disk Writes/sec\"\r\n\
                    \"01/02/2024 00:00:00.000\",\"1.5\",\"2\"\r\n\
                    \"01/02/2024 00:00:01.000\",\"1e300\",\"-4\"\r\n\
                    \"01/02/2024 00:00:02.000\",\"3\",\"4\"\r\n";
        let dir = std::env::temp_dir().join(format!("advisor-finite-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let path = dir.join("c.csv");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        let c = crate::read_path(&path).unwrap_or_else(|e| panic!("{e}"));
        let _ = std::fs::remove_dir_all(&dir);
        let part = c.part(0).unwrap_or_else(|| panic!("one target, one part"));
        assert!(part.finite);
        assert_eq!(c.values(0, Metric::ReadIops), vec![1.5, 3.0], "1e300 dropped");
        assert_eq!(c.values(0, Metric::WriteIops), vec![2.0, 4.0], "-4 dropped");
        let iostat = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/captures/iostat-text/hand_groups_g-data_dx.txt");
        let c = crate::read_path(&iostat).unwrap_or_else(|e| panic!("{e}"));
        assert!(c.part(0).is_some_and(|p| !p.finite));
    }

    // A frame said to hold finite values that holds another fails loudly in debug builds
    // (every test that reads a PerfMon capture checks its reader so).
    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "a frame said to hold finite values holds another in read_iops")]
    fn a_frame_said_finite_is_checked_in_debug_builds() {
        let mut t = advisor_model::Table::default();
        t.push_row(0, Some(1000), &[(Metric::ReadIops, 1.0)]);
        t.push_row(0, Some(2000), &[(Metric::ReadIops, f64::NAN)]);
        let frame = crate::frame::from_table(&t).unwrap_or_else(|_| unreachable!());
        let _ = TargetRows::of(&frame, 1, false, true);
    }

    #[test]
    fn split_cuts_across_and_inside_chunks() {
        let mut ca = Float64Chunked::from_slice("x".into(), &[0.0, 1.0, 2.0]);
        ca.append(&Float64Chunked::from_slice("x".into(), &[3.0, 4.0, 5.0, 6.0]))
            .unwrap_or_else(|_| unreachable!());
        ca.append(&Float64Chunked::from_slice("x".into(), &[7.0]))
            .unwrap_or_else(|_| unreachable!());
        let ranges = [(2, 3), (0, 2), (5, 0), (5, 3)];
        let got: Vec<Vec<f64>> = split(&ca, &ranges)
            .unwrap_or_default()
            .iter()
            .map(|p| p.iter().flatten().collect())
            .collect();
        assert_eq!(got, vec![vec![2.0, 3.0, 4.0], vec![0.0, 1.0], vec![], vec![5.0, 6.0, 7.0]]);
    }
}
