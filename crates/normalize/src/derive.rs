//! The metrics a source implies but does not state: IOPS and MB/s totals, the IO-weighted
//! latency, IO sizes from bytes and counts, the read share, the total queue from the
//! per-direction queues.
//!
//! They are worked out from a target's own columns when a consumer asks
//! ([`crate::parts::Part::metric`]), not kept beside the stated ones: on a large PerfMon
//! capture they were a third of the frame (five columns over every sample of every disk,
//! 660 MB at 4 GB), and each is an element-by-element sum, product or quotient of columns
//! that are kept, cheaper to redo than to hold. A frame whose targets' rows could not be
//! indexed gets them as columns ([`materialize`]), from the same definitions.
//!
//! Which metrics are derived is decided for the whole capture, as when they were columns:
//! a metric no target states (the column is absent or all missing) and whose inputs the
//! capture has. Each target's values are then worked from its own columns; a target
//! lacking an input has no value of the result. In a benchmark summary a direction the
//! tool reports no IO for did no IO: its IOPS and MB/s are 0 (not unknown), so a
//! read-only run still has a total and a read share.

use std::borrow::Cow;

use advisor_model::Metric;
use polars::prelude::*;
use polars_arrow::array::PrimitiveArray;
use polars_arrow::bitmap::Bitmap;

/// Columns of one length: a target's part, or a whole frame.
pub(crate) trait Columns {
    /// A stated metric's column, when it has at least one value here.
    fn stated(&self, m: Metric) -> Option<Cow<'_, Float64Chunked>>;
    /// Whether the whole capture states `m` (some target has a value of it).
    fn capture_states(&self, m: Metric) -> bool;
    /// A derived metric worked out already (`Some(None)`: it has no value here), so that
    /// one derived from it does not work it out again.
    fn known(&self, _m: Metric) -> Option<Option<Cow<'_, Float64Chunked>>> {
        None
    }
}

impl Columns for DataFrame {
    fn stated(&self, m: Metric) -> Option<Cow<'_, Float64Chunked>> {
        let c = self.column(m.name()).ok()?;
        if c.null_count() == c.len() {
            return None;
        }
        c.as_materialized_series().f64().ok().map(Cow::Borrowed)
    }

    fn capture_states(&self, m: Metric) -> bool {
        self.stated(m).is_some()
    }
}

/// `m`'s column in `cols`: the stated one when the capture states `m` (borrowed), else
/// the derived one (owned); `None` when it has no value here. Every value a derived
/// column has is finite: [`rows`] leaves out what is not, and a benchmark's zeros are
/// zeros.
pub(crate) fn column<C: Columns>(
    cols: &C,
    m: Metric,
    benchmark: bool,
) -> Option<Cow<'_, Float64Chunked>> {
    if cols.capture_states(m) {
        let stated = cols.stated(m);
        // A benchmark job that did no IO in this direction (a read-only job beside
        // write-only ones) did none: zeros where the other direction has a value.
        return match twin(m) {
            Some(t) if benchmark => zeros_where_missing(stated, cols.stated(t).as_deref()),
            _ => stated,
        };
    }
    if let Some(known) = cols.known(m) {
        return known;
    }
    derived(cols, m, benchmark)
        .filter(|c| c.null_count() < c.len())
        .map(|c| Cow::Owned(c.with_name(m.name().into())))
}

/// The direction a benchmark's zero IOPS or MB/s stand in for, and its twin.
fn twin(m: Metric) -> Option<Metric> {
    use Metric::*;
    match m {
        ReadIops => Some(WriteIops),
        WriteIops => Some(ReadIops),
        ReadMbps => Some(WriteMbps),
        WriteMbps => Some(ReadMbps),
        _ => None,
    }
}

/// `stated` with 0 wherever it is missing and `other` (the other direction) has a value:
/// in a benchmark summary a direction with no IO reported did none. Borrowed as it is
/// when nothing is missing there.
fn zeros_where_missing<'a>(
    stated: Option<Cow<'a, Float64Chunked>>,
    other: Option<&Float64Chunked>,
) -> Option<Cow<'a, Float64Chunked>> {
    let Some(other) = other else { return stated };
    let fill = match &stated {
        None => true,
        Some(s) => {
            s.null_count() > 0
                && s.iter().zip(other.iter()).any(|(a, b)| a.is_none() && b.is_some())
        }
    };
    if !fill {
        return stated;
    }
    let filled: Float64Chunked = match &stated {
        Some(s) => s.iter().zip(other.iter()).map(|(a, b)| a.or(b.map(|_| 0.0))).collect(),
        None => other.iter().map(|b| b.map(|_| 0.0)).collect(),
    };
    Some(Cow::Owned(filled))
}

/// The IO-weighted latency of a row from its directions' latencies and IOPS: a direction
/// without IO weighs nothing, so its latency may be missing (iostat's idle `r_await`, a
/// benchmark job that only wrote). Missing when a direction with IO has no latency, or
/// when there was no IO at all.
fn weighted_latency(
    rl: &Float64Chunked,
    wl: &Float64Chunked,
    r: &Float64Chunked,
    w: &Float64Chunked,
) -> Float64Chunked {
    let f = |[rl, wl, r, w]: [f64; 4]| (rl * r + wl * w) / (r + w);
    if [rl, wl, r, w].iter().all(|c| c.null_count() == 0) {
        return rows([rl, wl, r, w], f);
    }
    let values = rl.iter().zip(wl.iter()).zip(r.iter()).zip(w.iter()).map(|(((a, b), r), w)| {
        let v = match (a, b, r?, w?) {
            (Some(a), Some(b), r, w) => f([a, b, r, w]),
            (Some(a), None, r, w) if w == 0.0 && r > 0.0 => a,
            (None, Some(b), r, w) if r == 0.0 && w > 0.0 => b,
            _ => return None,
        };
        v.is_finite().then_some(v)
    });
    Float64Chunked::from_iter_options(PlSmallStr::EMPTY, values)
}

/// Whether `m` is one this module can derive (for some inputs).
pub(crate) fn derivable(m: Metric) -> bool {
    use Metric::*;
    matches!(
        m,
        ReadIops
            | WriteIops
            | ReadMbps
            | WriteMbps
            | Iops
            | Mbps
            | QueueDepth
            | LatencyMs
            | ReadIoKib
            | WriteIoKib
            | IoKib
            | ReadPct
    )
}

/// `m` worked out from the other columns of `cols` (the capture does not state it).
fn derived<C: Columns>(cols: &C, m: Metric, benchmark: bool) -> Option<Float64Chunked> {
    use Metric::*;
    let col = |m: Metric| column(cols, m, benchmark);
    // Whether the capture has `m`, stated or as a benchmark's zeros.
    let has = |m: Metric| {
        cols.capture_states(m) || (benchmark && twin(m).is_some_and(|t| cols.capture_states(t)))
    };
    let sum = |a: Metric, b: Metric| Some(rows([&*col(a)?, &*col(b)?], |[a, b]| a + b));
    let size = |bytes: Metric, count: Metric| {
        Some(rows([&*col(bytes)?, &*col(count)?], |[b, n]| (b * 1024.0) / n))
    };
    match m {
        // A benchmark's direction with no IO reported did none: zeros where the other
        // direction has a value (and missing where it is missing).
        ReadIops | WriteIops | ReadMbps | WriteMbps if benchmark => {
            cols.stated(twin(m)?).map(|h| h.apply_values(|_| 0.0))
        }
        Iops => sum(ReadIops, WriteIops),
        Mbps => sum(ReadMbps, WriteMbps),
        QueueDepth => sum(ReadQueueDepth, WriteQueueDepth),
        // Weighted by each direction's IOPS when the capture has both directions; in a
        // benchmark with one direction's latency, that one's (the other did no IO).
        LatencyMs => match [ReadLatencyMs, WriteLatencyMs, ReadIops, WriteIops].map(has) {
            [true, true, true, true] => {
                let (r, w) = (col(ReadIops)?, col(WriteIops)?);
                let len = r.len();
                let none = || Float64Chunked::full_null(PlSmallStr::EMPTY, len);
                // One direction's latency may be missing throughout this target (a job
                // that only read; a device that only wrote in the capture).
                let (rl, wl) = match (col(ReadLatencyMs), col(WriteLatencyMs)) {
                    (None, None) => return None,
                    (rl, wl) => (
                        rl.unwrap_or_else(|| Cow::Owned(none())),
                        wl.unwrap_or_else(|| Cow::Owned(none())),
                    ),
                };
                Some(weighted_latency(&rl, &wl, &r, &w))
            }
            [true, false, ..] if benchmark => Some(rows([&*col(ReadLatencyMs)?], |[l]| l)),
            [false, true, ..] if benchmark => Some(rows([&*col(WriteLatencyMs)?], |[l]| l)),
            _ => None,
        },
        ReadIoKib => size(ReadMbps, ReadIops),
        WriteIoKib => size(WriteMbps, WriteIops),
        // From the directions in one pass when both totals would be their sums here (the
        // usual case: a capture states reads and writes), rather than working the two
        // totals out first: the same operations in the same order, and a total that is
        // not finite leaves the row missing as it would the total's own row.
        IoKib if summed(cols, Mbps) && summed(cols, Iops) => {
            let [rb, wb, rn, wn] = [ReadMbps, WriteMbps, ReadIops, WriteIops].map(col);
            Some(rows([&*rb?, &*wb?, &*rn?, &*wn?], |[rb, wb, rn, wn]| {
                let (b, n) = (rb + wb, rn + wn);
                if b.is_finite() & n.is_finite() { (b * 1024.0) / n } else { f64::NAN }
            }))
        }
        IoKib => size(Mbps, Iops),
        ReadPct if summed(cols, Iops) => {
            let (r, w) = (col(ReadIops)?, col(WriteIops)?);
            Some(rows([&*r, &*w], |[r, w]| {
                let t = r + w;
                if t.is_finite() { (r * 100.0) / t } else { f64::NAN }
            }))
        }
        ReadPct => Some(rows([&*col(ReadIops)?, &*col(Iops)?], |[r, t]| (r * 100.0) / t)),
        _ => None,
    }
}

/// Whether `total` (IOPS or MB/s) would be worked out here as the sum of its directions:
/// the capture does not state it and it was not worked out already.
fn summed<C: Columns>(cols: &C, total: Metric) -> bool {
    !cols.capture_states(total) && cols.known(total).is_none()
}

/// Rows [`rows`] works out before checking them.
const ROW_BLOCK: usize = 256;

/// `f` of the inputs (columns of one length) row by row: missing where an input is
/// missing, and where the result is not finite (0/0 carries no information). `f` does
/// the operations polars' column arithmetic would, in the same order, so the values are
/// the same bit for bit; in one pass, straight over the buffers when each input is one
/// chunk with nothing missing (a target's part, the usual case).
fn rows<const N: usize>(
    inputs: [&Float64Chunked; N],
    f: impl Fn([f64; N]) -> f64,
) -> Float64Chunked {
    let len = inputs.iter().map(|c| c.len()).min().unwrap_or(0);
    let buffers: Option<Vec<&[f64]>> = inputs
        .iter()
        .map(|c| match (c.null_count(), c.downcast_iter().next(), c.chunks().len()) {
            (0, Some(a), 1) => Some(a.values().as_slice()),
            _ => None,
        })
        .collect();
    let values: Vec<Option<f64>> = match buffers {
        Some(b) => {
            let b: [&[f64]; N] = std::array::from_fn(|k| &b[k][..len]);
            // Worked out a block at a time, each block checked for finiteness while it is
            // still in the first-level cache (not a second pass over the column).
            let mut vals: Vec<f64> = Vec::with_capacity(len);
            let mut finite = true;
            for start in (0..len).step_by(ROW_BLOCK) {
                let end = (start + ROW_BLOCK).min(len);
                block(b.map(|s| &s[start..end]), &mut vals, &f);
                finite &= advisor_model::all_finite(&vals[start..]);
            }
            if finite {
                return Float64Chunked::from_vec(PlSmallStr::EMPTY, vals);
            }
            // Packed eight rows a byte, the lowest bit first (Arrow's order), rather than
            // a bit at a time.
            let bytes: Vec<u8> = vals
                .chunks(8)
                .map(|c| {
                    c.iter().enumerate().fold(0u8, |b, (k, v)| b | (u8::from(v.is_finite()) << k))
                })
                .collect();
            let validity = Bitmap::from_u8_vec(bytes, vals.len());
            let arr = PrimitiveArray::from_vec(vals).with_validity(Some(validity));
            return Float64Chunked::with_chunk(PlSmallStr::EMPTY, arr);
        }
        None => {
            let mut iters = inputs.map(|c| c.iter());
            (0..len)
                .map(|_| {
                    let xs = iters.each_mut().map(|it| it.next().flatten());
                    xs.iter().all(Option::is_some).then(|| f(xs.map(|x| x.unwrap_or(0.0))))
                })
                .collect()
        }
    };
    Float64Chunked::from_iter_options(
        PlSmallStr::EMPTY,
        values.into_iter().map(|v| v.filter(|x| x.is_finite())),
    )
}

/// `f` of the rows of `ins` (slices of one length), appended to `out`. The inputs zipped
/// as slices when there are one, two or four (every derivation here): a loop the compiler
/// unrolls and vectorises, with no index checked (rows worked out eight at a time in
/// arrays on the stack spilled each value to memory and back).
fn block<const N: usize>(ins: [&[f64]; N], out: &mut Vec<f64>, f: &impl Fn([f64; N]) -> f64) {
    // `[f64; M]` as `[f64; N]`: the same array where `M == N`, the only arm it is used in.
    fn row<const M: usize, const N: usize>(x: [f64; M]) -> [f64; N] {
        std::array::from_fn(|k| x.get(k).copied().unwrap_or(0.0))
    }
    match ins.as_slice() {
        [a] => out.extend(a.iter().map(|x| f(row([*x])))),
        [a, b] => out.extend(a.iter().zip(*b).map(|(x, y)| f(row([*x, *y])))),
        [a, b, c, d] => out.extend(
            a.iter().zip(*b).zip(*c).zip(*d).map(|(((w, x), y), z)| f(row([*w, *x, *y, *z]))),
        ),
        _ => {
            let n = ins.iter().map(|s| s.len()).min().unwrap_or(0);
            out.extend((0..n).map(|i| f(ins.map(|s| s[i]))));
        }
    }
}

/// The frame with every derivable metric it lacks as a column, in canonical column order
/// (`target`, `time`, then [`Metric::ALL`]'s): for a frame without per-target parts.
pub(crate) fn materialize(mut df: DataFrame, benchmark: bool) -> PolarsResult<DataFrame> {
    use crate::frame::{TARGET, TIME};
    let added: Vec<Float64Chunked> = Metric::ALL
        .iter()
        .filter(|m| derivable(**m) && df.stated(**m).is_none())
        .filter_map(|m| derived(&df, *m, benchmark).map(|c| c.with_name(m.name().into())))
        .collect();
    for c in added {
        df.with_column(c.into_column())?;
    }
    if benchmark {
        // A job's direction without IO is zeros, as a part's column gives it.
        let filled: Vec<Float64Chunked> = Metric::ALL
            .iter()
            .filter(|m| twin(**m).is_some() && df.stated(**m).is_some())
            .filter_map(|m| {
                let other = df.stated(twin(*m)?)?;
                match zeros_where_missing(df.stated(*m), Some(&other))? {
                    Cow::Owned(c) => Some(c.with_name(m.name().into())),
                    Cow::Borrowed(_) => None,
                }
            })
            .collect();
        for c in filled {
            df.with_column(c.into_column())?;
        }
    }
    let mut order: Vec<PlSmallStr> = vec![TARGET.into(), TIME.into()];
    order.extend(
        Metric::ALL
            .iter()
            .filter(|m| df.column(m.name()).is_ok())
            .map(|m| PlSmallStr::from(m.name())),
    );
    df.select(order)
}

#[cfg(test)]
mod tests {
    use advisor_model::Table;
    use proptest::prelude::*;

    use super::*;
    use crate::frame::TARGET;

    /// The inputs of every derivation, and one derived metric a capture may state itself.
    const INPUTS: [Metric; 10] = [
        Metric::ReadIops,
        Metric::WriteIops,
        Metric::ReadMbps,
        Metric::WriteMbps,
        Metric::ReadLatencyMs,
        Metric::WriteLatencyMs,
        Metric::ReadQueueDepth,
        Metric::WriteQueueDepth,
        Metric::Iops,
        Metric::ReadIoKib,
    ];

    /// A value as a capture may give it: zero, a fraction, a large count, not a number.
    fn value() -> impl Strategy<Value = Option<f64>> {
        prop_oneof![
            2 => Just(None),
            2 => Just(Some(0.0)),
            1 => Just(Some(f64::NAN)),
            // Absurd: two of them overflow a total to infinity.
            1 => Just(Some(f64::MAX)),
            6 => (0u32..100_000).prop_map(|v| Some(f64::from(v) / 8.0)),
        ]
    }

    /// One target: which inputs it states, and its rows' values of each.
    type Target = (Vec<bool>, Vec<Vec<Option<f64>>>);

    /// Whether it is a benchmark's summary, and its targets.
    fn capture() -> impl Strategy<Value = (bool, Vec<Target>)> {
        let target = (proptest::collection::vec(any::<bool>(), INPUTS.len()), 1usize..6)
            .prop_flat_map(|(states, rows)| {
                let row = proptest::collection::vec(value(), INPUTS.len());
                (Just(states), proptest::collection::vec(row, rows))
            });
        (any::<bool>(), proptest::collection::vec(target, 1..5))
    }

    fn bits(c: Option<&Float64Chunked>, rows: usize) -> Vec<Option<u64>> {
        c.map_or_else(|| vec![None; rows], |c| c.iter().map(|v| v.map(f64::to_bits)).collect())
    }

    // IO size and read share worked out from the directions in one pass leave a row
    // missing where a total would not be finite, as working the totals out first does:
    // infinite IOPS give no size (not 0 KiB) and no share.
    #[test]
    fn a_total_that_overflows_leaves_its_rows_missing() {
        use Metric::*;
        let mut t = Table::default();
        let rows: [[f64; 4]; 3] = [
            [f64::MAX, f64::MAX, 1.0, 1.0],
            [3.0, 1.0, 0.25, 0.25],
            [f64::MAX, 1.0, f64::MAX, 1.0],
        ];
        for (r, [ri, wi, rb, wb]) in rows.iter().enumerate() {
            let values = [(ReadIops, *ri), (WriteIops, *wi), (ReadMbps, *rb), (WriteMbps, *wb)];
            t.push_row(0, Some(1000 * r as i64), &values);
        }
        let frame = crate::frame::from_table(&t).unwrap_or_else(|e| panic!("{e}"));
        let (frame, index) =
            crate::build::stacked(frame, 1, false, false).unwrap_or_else(|e| panic!("{e}"));
        let index = index.unwrap_or_else(|| panic!("one run"));
        let part = index.part(&frame, 0).unwrap_or_else(|| panic!("part"));
        let all = part.columns();
        for (m, want) in [
            (IoKib, [None, Some(0.5 * 1024.0 / 4.0), None]),
            // The third row's read share overflows on its own (x 100).
            (ReadPct, [None, Some(75.0), None]),
        ] {
            let got: Vec<Option<f64>> = part.metric(m).map(|c| c.iter().collect()).unwrap();
            assert_eq!(got, want, "{}", m.name());
            let among: Vec<Option<f64>> =
                all.iter().find(|(c, _)| *c == m).map(|(_, c)| c.iter().collect()).unwrap();
            assert_eq!(among, want, "{} among all", m.name());
        }
    }

    proptest! {
        // A target's derived metrics worked out from its own columns are its rows of the
        // columns the whole frame would get, bit for bit, whichever targets state which
        // inputs: the decision is the capture's, the values the target's.
        #[test]
        fn a_targets_derived_metrics_are_its_rows_of_the_whole_frames((benchmark, targets) in capture()) {
            let mut t = Table::default();
            for (i, (states, rows)) in targets.iter().enumerate() {
                for (r, row) in rows.iter().enumerate() {
                    let values: Vec<(Metric, f64)> = INPUTS
                        .iter()
                        .zip(states)
                        .zip(row)
                        .filter_map(|((m, s), v)| v.filter(|_| *s).map(|v| (*m, v)))
                        .collect();
                    t.push_row(i as u32, Some(1000 * r as i64), &values);
                }
            }
            let frame = crate::frame::from_table(&t).unwrap_or_else(|e| panic!("{e}"));
            let (frame, index) = crate::build::stacked(frame, targets.len(), benchmark, false)
                .unwrap_or_else(|e| panic!("{e}"));
            let index = index.unwrap_or_else(|| panic!("rows are one run per target"));
            let whole = materialize(frame.clone(), benchmark).unwrap_or_else(|e| panic!("{e}"));
            let target = whole.column(TARGET).and_then(|c| c.u32().cloned()).unwrap_or_else(|e| panic!("{e}"));
            for (i, (_, rows)) in targets.iter().enumerate() {
                let part = index.part(&frame, i as u32).unwrap_or_else(|| panic!("part {i}"));
                let mask = target.equal(i as u32);
                // Every column at once takes the totals as worked out for their own
                // entries (IO size, read share); one at a time, from the directions.
                let all = part.columns();
                for m in Metric::ALL {
                    let one = all.iter().find(|(c, _)| c == m).map(|(_, c)| c.as_ref());
                    prop_assert_eq!(
                        bits(part.metric(*m).as_deref(), rows.len()),
                        bits(one, rows.len()),
                        "target {} {} alone and among all", i, m.name()
                    );
                    let want = whole
                        .column(m.name())
                        .ok()
                        .map(|c| c.f64().and_then(|c| c.filter(&mask)).unwrap_or_else(|e| panic!("{e}")));
                    let want = bits(want.as_ref(), rows.len());
                    let got = bits(part.metric(*m).as_deref(), rows.len());
                    prop_assert_eq!(got, want, "target {} {}", i, m.name());
                }
            }
            let listed: Vec<Metric> = Metric::ALL
                .iter()
                .copied()
                .filter(|m| whole.stated(*m).is_some())
                .collect();
            prop_assert_eq!(index.metrics(&frame), Some(listed));
        }

        // A row whose result is not finite is missing, each other row is its value, over
        // any length (bytes of the validity filled in part) and any mix of 0/0 rows.
        #[test]
        fn rows_whose_result_is_not_finite_are_missing(
            pairs in proptest::collection::vec((0u8..4, 0u8..3), 0..70),
        ) {
            let a: Vec<f64> = pairs.iter().map(|p| f64::from(p.0)).collect();
            let b: Vec<f64> = pairs.iter().map(|p| f64::from(p.1)).collect();
            let (ca, cb) = (
                Float64Chunked::from_vec(PlSmallStr::EMPTY, a.clone()),
                Float64Chunked::from_vec(PlSmallStr::EMPTY, b.clone()),
            );
            let got: Vec<Option<f64>> = rows([&ca, &cb], |[x, y]| x / y).iter().collect();
            let want: Vec<Option<f64>> =
                a.iter().zip(&b).map(|(x, y)| Some(x / y).filter(|q| q.is_finite())).collect();
            prop_assert_eq!(got, want);
        }
    }
}
