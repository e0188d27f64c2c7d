//! Building the canonical frame from a reader's table.

use advisor_ingest::IngestError;
use advisor_model::{Metric, Table};
use polars::prelude::*;

use crate::derive::Columns;

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

/// One metric's non-null values for one target, in row order.
pub(crate) fn values(df: &DataFrame, target: u32, metric: Metric) -> Vec<f64> {
    let (Ok(t), Some(v)) = (df.column(TARGET), df.stated(metric)) else {
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
