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
        put(&mut df, Iops, &r + &w)?;
    }
    if missing(&df, Mbps)
        && let (Some(r), Some(w)) = (get(&df, ReadMbps), get(&df, WriteMbps))
    {
        put(&mut df, Mbps, &r + &w)?;
    }
    if missing(&df, LatencyMs)
        && let (Some(rl), Some(wl), Some(r), Some(w)) = (
            get(&df, ReadLatencyMs),
            get(&df, WriteLatencyMs),
            get(&df, ReadIops),
            get(&df, WriteIops),
        )
    {
        let num = &(&rl * &r) + &(&wl * &w);
        put(&mut df, LatencyMs, &num / &(&r + &w))?;
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
            put(&mut df, size, &(&b * 1024.0) / &n)?;
        }
    }
    if missing(&df, ReadPct)
        && let (Some(r), Some(t)) = (get(&df, ReadIops), get(&df, Iops))
    {
        put(&mut df, ReadPct, &(&r * 100.0) / &t)?;
    }
    if missing(&df, QueueDepth)
        && let (Some(r), Some(w)) = (get(&df, ReadQueueDepth), get(&df, WriteQueueDepth))
    {
        put(&mut df, QueueDepth, &r + &w)?;
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
