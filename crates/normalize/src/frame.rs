//! Building the canonical frame and deriving the metrics a source leaves implicit.

use advisor_ingest::IngestError;
use advisor_model::{Metric, Table};
use polars::prelude::*;

/// A polars failure while building a frame, as an error on the file.
pub(crate) fn polars_error(file: &str, e: PolarsError) -> IngestError {
    IngestError::invalid(file, None, format!("could not build the canonical frame: {e}"))
}

/// Column holding the target index.
pub(crate) const TARGET: &str = "target";
/// Column holding the sample's wall-clock time (Datetime ms, no zone).
pub(crate) const TIME: &str = "time";

/// A plain [`Table`] as a canonical frame.
pub(crate) fn from_table(table: &Table) -> PolarsResult<DataFrame> {
    let mut cols: Vec<Column> = Vec::with_capacity(table.columns.len() + 2);
    cols.push(UInt32Chunked::from_vec(TARGET.into(), table.target.clone()).into_column());
    cols.push(
        Int64Chunked::from_iter_options(TIME.into(), table.time_ms.iter().copied())
            .into_datetime(TimeUnit::Milliseconds, None)
            .into_column(),
    );
    for metric in Metric::ALL {
        if let Some(values) = table.column(*metric) {
            cols.push(
                Float64Chunked::from_iter_options(metric.name().into(), values.iter().copied())
                    .into_column(),
            );
        }
    }
    DataFrame::new(table.len(), cols)
}

fn get(df: &DataFrame, m: Metric) -> Option<Float64Chunked> {
    let c = df.column(m.name()).ok()?;
    if c.null_count() == c.len() {
        return None;
    }
    c.as_materialized_series().f64().ok().cloned()
}

fn put(df: &mut DataFrame, m: Metric, values: Float64Chunked) -> PolarsResult<()> {
    let values = values.with_name(m.name().into());
    // Infinite or NaN results (0/0) carry no information: store them as missing. A finite
    // sum means every value is finite (one NaN or infinity makes it not): no copy then.
    let values: Float64Chunked = if values.sum().is_some_and(f64::is_finite) {
        values
    } else {
        values.apply(|v| v.filter(|x| x.is_finite()))
    };
    df.with_column(values.into_column())?;
    Ok(())
}

fn missing(df: &DataFrame, m: Metric) -> bool {
    get(df, m).is_none()
}

/// Rows below this are worked on one thread.
const PARALLEL_ROWS: usize = 1 << 20;

/// `f` (element by element arithmetic) over `inputs`, columns of one length and one
/// chunk layout, on every core: the rows are cut at chunk boundaries (a PerfMon frame has
/// one chunk per target), so the parts put back together are exactly `f` of the whole,
/// chunks included. Columns laid out differently, or few rows, are worked whole.
fn par_rows(
    inputs: &[&Float64Chunked],
    f: impl Fn(&[Float64Chunked]) -> Float64Chunked + Sync,
) -> Float64Chunked {
    let whole = || f(&inputs.iter().map(|c| (*c).clone()).collect::<Vec<_>>());
    let Some(first) = inputs.first() else { return whole() };
    let lengths: Vec<usize> = first.chunks().iter().map(|a| a.len()).collect();
    let same_layout = inputs.iter().all(|c| {
        c.len() == first.len() && c.chunks().iter().map(|a| a.len()).eq(lengths.iter().copied())
    });
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get()).min(8);
    if !same_layout || first.len() < PARALLEL_ROWS || lengths.len() < 2 || threads < 2 {
        return whole();
    }
    // Whole chunks per part, about the same rows each.
    let target = first.len().div_ceil(threads);
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let (mut start, mut len) = (0usize, 0usize);
    for l in lengths {
        len += l;
        if len >= target {
            cuts.push((start, len));
            start += len;
            len = 0;
        }
    }
    if len > 0 {
        cuts.push((start, len));
    }
    let parts = advisor_model::par::map_indexed(cuts.len(), threads, |i| {
        let (offset, len) = cuts[i];
        let sliced: Vec<Float64Chunked> =
            inputs.iter().map(|c| c.slice(offset as i64, len)).collect();
        f(&sliced)
    });
    let mut parts = parts.into_iter();
    let Some(mut out) = parts.next() else { return whole() };
    for p in parts {
        if out.append(&p).is_err() {
            return whole();
        }
    }
    out
}

/// Adds totals, averages and ratios the source implies but does not state:
/// IOPS and MB/s totals, the IO-weighted latency, IO sizes from bytes and counts,
/// the read share, and the total queue from per-direction queues.
///
/// In a benchmark summary a direction the tool reports no IO for did no IO: its IOPS and
/// MB/s are 0 (not unknown), so a read-only run still has a total and a read share.
pub(crate) fn derive(mut df: DataFrame, benchmark: bool) -> PolarsResult<DataFrame> {
    use Metric::*;
    if benchmark {
        for (have, zero) in [
            (ReadIops, WriteIops),
            (WriteIops, ReadIops),
            (ReadMbps, WriteMbps),
            (WriteMbps, ReadMbps),
        ] {
            if let (Some(h), true) = (get(&df, have), missing(&df, zero)) {
                let zeros: Float64Chunked = h.apply_values(|_| 0.0);
                let zeros = zeros.with_name(zero.name().into());
                // Rows where the present direction is missing stay missing.
                df.with_column(zeros.into_column())?;
            }
        }
    }
    if missing(&df, Iops)
        && let (Some(r), Some(w)) = (get(&df, ReadIops), get(&df, WriteIops))
    {
        put(&mut df, Iops, par_rows(&[&r, &w], |c| &c[0] + &c[1]))?;
    }
    if missing(&df, Mbps)
        && let (Some(r), Some(w)) = (get(&df, ReadMbps), get(&df, WriteMbps))
    {
        put(&mut df, Mbps, par_rows(&[&r, &w], |c| &c[0] + &c[1]))?;
    }
    if missing(&df, LatencyMs)
        && let (Some(rl), Some(wl), Some(r), Some(w)) = (
            get(&df, ReadLatencyMs),
            get(&df, WriteLatencyMs),
            get(&df, ReadIops),
            get(&df, WriteIops),
        )
    {
        let weighted = par_rows(&[&rl, &wl, &r, &w], |c| {
            let num = &(&c[0] * &c[2]) + &(&c[1] * &c[3]);
            &num / &(&c[2] + &c[3])
        });
        put(&mut df, LatencyMs, weighted)?;
    }
    if benchmark && missing(&df, LatencyMs) {
        // One direction did no IO: the run's latency is the other direction's.
        match (get(&df, ReadLatencyMs), get(&df, WriteLatencyMs)) {
            (Some(l), None) | (None, Some(l)) => put(&mut df, LatencyMs, l)?,
            _ => {}
        }
    }
    for (size, mbps, iops) in
        [(ReadIoKib, ReadMbps, ReadIops), (WriteIoKib, WriteMbps, WriteIops), (IoKib, Mbps, Iops)]
    {
        if missing(&df, size)
            && let (Some(b), Some(n)) = (get(&df, mbps), get(&df, iops))
        {
            put(&mut df, size, par_rows(&[&b, &n], |c| &(&c[0] * 1024.0) / &c[1]))?;
        }
    }
    if missing(&df, ReadPct)
        && let (Some(r), Some(t)) = (get(&df, ReadIops), get(&df, Iops))
    {
        put(&mut df, ReadPct, par_rows(&[&r, &t], |c| &(&c[0] * 100.0) / &c[1]))?;
    }
    if missing(&df, QueueDepth)
        && let (Some(r), Some(w)) = (get(&df, ReadQueueDepth), get(&df, WriteQueueDepth))
    {
        put(&mut df, QueueDepth, par_rows(&[&r, &w], |c| &c[0] + &c[1]))?;
    }
    // Keep the canonical column order: target, time, then Metric::ALL order.
    let mut order: Vec<PlSmallStr> = vec![TARGET.into(), TIME.into()];
    order.extend(
        Metric::ALL
            .iter()
            .filter(|m| df.column(m.name()).is_ok())
            .map(|m| PlSmallStr::from(m.name())),
    );
    df.select(order)
}

/// One metric's non-null values for one target, in row order.
pub(crate) fn values(df: &DataFrame, target: u32, metric: Metric) -> Vec<f64> {
    let (Ok(t), Some(v)) = (df.column(TARGET), get(df, metric)) else {
        return Vec::new();
    };
    let Ok(t) = t.u32() else {
        return Vec::new();
    };
    t.iter()
        .zip(v.iter())
        .filter_map(|(ti, vi)| if ti == Some(target) { vi } else { None })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A column of `chunks` chunks of `rows` each, with nulls, zeros and awkward values.
    fn column(name: &str, chunks: usize, rows: usize, salt: u64) -> Float64Chunked {
        let mut out: Option<Float64Chunked> = None;
        for c in 0..chunks {
            let part: Float64Chunked = (0..rows)
                .map(|i| {
                    let x = (i as u64 * 2_654_435_761 + c as u64 * 97 + salt) % 1000;
                    match x {
                        0..=9 => None,
                        10..=19 => Some(0.0),
                        _ => Some(x as f64 / 7.0),
                    }
                })
                .collect();
            match &mut out {
                None => out = Some(part.with_name(name.into())),
                Some(acc) => acc.append(&part).unwrap_or_else(|e| panic!("{e}")),
            }
        }
        out.unwrap_or_else(|| Float64Chunked::from_vec(name.into(), Vec::new()))
    }

    #[test]
    fn rows_worked_in_parts_are_the_whole_bit_for_bit() {
        let rows = PARALLEL_ROWS / 5 + 13;
        let (r, w) = (column("r", 9, rows, 1), column("w", 9, rows, 5));
        let (rl, wl) = (column("rl", 9, rows, 11), column("wl", 9, rows, 17));
        let weighted = |c: &[Float64Chunked]| {
            let num = &(&c[0] * &c[2]) + &(&c[1] * &c[3]);
            &num / &(&c[2] + &c[3])
        };
        let got = par_rows(&[&rl, &wl, &r, &w], weighted);
        let want = weighted(&[rl.clone(), wl.clone(), r.clone(), w.clone()]);
        let bits = |c: &Float64Chunked| c.iter().map(|v| v.map(f64::to_bits)).collect::<Vec<_>>();
        let layout = |c: &Float64Chunked| c.chunks().iter().map(|a| a.len()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&want));
        assert_eq!(layout(&got), layout(&want));
        // Columns laid out differently are worked whole.
        let one = w.rechunk().into_owned();
        let sum = par_rows(&[&r, &one], |c| &c[0] + &c[1]);
        assert_eq!(bits(&sum), bits(&(&r + &one)));
    }
}
