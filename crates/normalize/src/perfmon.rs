//! PerfMon CSV, read with polars' CSV reader.
//!
//! The PerfMon reader ([`advisor_ingest::perfmon::prepare`]) has read the header and
//! scanned the lines (pure Rust, one pass, no cell parsing); polars here parses the values of the good line runs
//! straight from the text's bytes, only the columns that map to a metric, with an explicit
//! all-Float64 schema. The wide result (one column per counter) becomes the canonical long
//! frame: one row per (target, sample).

use std::io::Cursor;
use std::sync::Arc;

use advisor_ingest::IngestError;
use advisor_ingest::perfmon::{Convert, PlannedColumn, Prepared, Segment};
use advisor_model::{CaptureMeta, Location, Metric, Unit};
use polars::prelude::*;

use crate::frame::{TARGET, TIME, polars_error};

/// A PerfMon CSV parsed by polars: everything [`finish`] needs, nothing borrowed from the
/// text (so the caller can free the file's bytes before the frame is built).
pub(crate) struct Parsed {
    meta: CaptureMeta,
    wide: DataFrame,
    columns: Vec<PlannedColumn>,
    time_ms: Vec<i64>,
}

/// Has polars parse the projected columns of the good line runs the reader found.
pub(crate) fn parse(file: &str, plan: Prepared, text: &str) -> Result<Parsed, IngestError> {
    let Prepared { mut meta, separator, decimal_comma, n_columns, columns, segments, time_ms } =
        plan;
    let layout = Layout { separator, decimal_comma, n_columns, columns: &columns };
    let wide = read_segments(file, text.as_bytes(), &layout, &segments, &mut meta)?;
    if wide.height() != time_ms.len() {
        return Err(IngestError::invalid(
            file,
            None,
            format!(
                "polars read {} rows where {} good lines were found; please report this file",
                wide.height(),
                time_ms.len()
            ),
        ));
    }
    Ok(Parsed { meta, wide, columns, time_ms })
}

/// The canonical long frame of a parsed PerfMon CSV.
pub(crate) fn finish(file: &str, parsed: Parsed) -> Result<(CaptureMeta, DataFrame), IngestError> {
    let Parsed { mut meta, wide, columns, time_ms } = parsed;
    let per_target =
        convert_columns(wide, &columns, &mut meta).map_err(|e| polars_error(file, e))?;
    let frame = long_frame(per_target, time_ms, &meta).map_err(|e| polars_error(file, e))?;
    match frame {
        Some(frame) => Ok((meta, frame)),
        None => Err(IngestError::invalid(
            file,
            None,
            "no counter that advisor uses has a value in any row (all cells are blank or unusable)",
        )),
    }
}

/// What polars needs to know of the file.
struct Layout<'a> {
    separator: u8,
    decimal_comma: bool,
    n_columns: usize,
    columns: &'a [PlannedColumn],
}

/// polars refuses repeated column names: every CSV column gets its own name, by position.
fn col_name(index: usize) -> PlSmallStr {
    format!("c{index}").into()
}

/// Reads the good line runs with polars and stacks them: one Float64 column per planned
/// column, named by [`col_name`].
fn read_segments(
    file: &str,
    bytes: &[u8],
    layout: &Layout<'_>,
    segments: &[Segment],
    meta: &mut CaptureMeta,
) -> Result<DataFrame, IngestError> {
    // Every column is Float64 in the schema: only the projected ones are parsed, and no
    // String column means polars does not re-validate UTF-8 (the text is a &str already).
    let schema: SchemaRef = Arc::new(Schema::from_iter(
        (0..layout.n_columns).map(|i| Field::new(col_name(i), DataType::Float64)),
    ));
    let mut projection: Vec<usize> = layout.columns.iter().map(|c| c.index).collect();
    projection.sort_unstable();
    projection.dedup();
    let projection = Arc::new(projection);
    let parse = CsvParseOptions::default()
        .with_separator(layout.separator)
        .with_quote_char(Some(b'"'))
        .with_decimal_comma(layout.decimal_comma)
        .with_missing_is_null(true)
        .with_truncate_ragged_lines(true);
    let options = CsvReadOptions::default()
        .with_has_header(false)
        .with_schema(Some(schema))
        .with_projection(Some(projection))
        .with_raise_if_empty(false)
        .with_rechunk(false)
        .with_parse_options(parse);

    let mut out: Option<DataFrame> = None;
    for seg in segments {
        let Some(chunk) = bytes.get(seg.start..seg.end) else {
            continue;
        };
        let at = Some(Location::line(seg.first_line, 1));
        let read = |lenient: bool| {
            options
                .clone()
                .with_ignore_errors(lenient)
                .into_reader_with_file_handle(Cursor::new(chunk))
                .finish()
        };
        let df = match read(false) {
            Ok(df) => df,
            Err(strict) => {
                let df = read(true).map_err(|e| {
                    IngestError::invalid(file, at.clone(), format!("the CSV reader failed: {e}"))
                })?;
                let message = strict.to_string();
                let (value, column) = unparsable(&message);
                let header = column
                    .and_then(|c| c.strip_prefix('c')?.parse::<usize>().ok())
                    .and_then(|i| layout.columns.iter().find(|c| c.index == i))
                    .map(|c| c.header.clone());
                meta.warn(
                    format!(
                        "cells that are not numbers{} were read as missing",
                        value
                            .map(|v| format!(" (e.g. `{}`)", v.trim_matches('"')))
                            .unwrap_or_default()
                    ),
                    header.map(Location::column).or(at),
                );
                df
            }
        };
        if df.height() != seg.rows {
            return Err(IngestError::invalid(
                file,
                Some(Location::line(seg.first_line, 1)),
                format!(
                    "the CSV reader found {} rows in {} lines starting here; please report this file",
                    df.height(),
                    seg.rows
                ),
            ));
        }
        match &mut out {
            None => out = Some(df),
            Some(acc) => {
                acc.vstack_mut(&df).map_err(|e| polars_error(file, e))?;
            }
        }
    }
    out.ok_or_else(|| IngestError::invalid(file, None, "no data line to read"))
}

/// The value and column named in polars' "could not parse `X` as dtype ... at column 'c5'".
fn unparsable(message: &str) -> (Option<&str>, Option<&str>) {
    let between = |start: &str, end: &str| {
        let from = message.find(start)? + start.len();
        let len = message[from..].find(end)?;
        Some(&message[from..from + len])
    };
    (between("could not parse `", "`"), between("at column '", "'"))
}

/// Values beyond these (in the canonical unit) cannot be real: a counter wrapped or the
/// cell is corrupt.
fn upper_bound(metric: Metric) -> f64 {
    match metric.unit() {
        Unit::PerSecond | Unit::PagesPerSecond => 1e8,
        Unit::MibPerSecond | Unit::Milliseconds | Unit::Kib => 1e7,
        Unit::Ios => 1e6,
        Unit::Percent => 1e3,
        Unit::Mib => 1e9,
    }
}

/// Records a warning `n` times (the first location kept).
fn warn_n(meta: &mut CaptureMeta, message: String, at: Option<Location>, n: usize) {
    if n == 0 {
        return;
    }
    meta.warn(message.clone(), at);
    if let Some(w) = meta.warnings.iter_mut().find(|w| w.message == message) {
        w.count += n.saturating_sub(1) as u64;
    }
}

/// Converts every planned column to its canonical unit, drops impossible values, and
/// groups the columns by target.
fn convert_columns(
    wide: DataFrame,
    columns: &[PlannedColumn],
    meta: &mut CaptureMeta,
) -> PolarsResult<Vec<Vec<(Metric, Float64Chunked)>>> {
    let mut per_target: Vec<Vec<(Metric, Float64Chunked)>> = vec![Vec::new(); meta.targets.len()];
    let mut raw: Vec<Option<Column>> = wide.into_columns().into_iter().map(Some).collect();
    // By name, once: a capture can have tens of thousands of columns.
    let mut by_name: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, c) in raw.iter().enumerate() {
        if let Some(c) = c {
            by_name.entry(c.name().to_string()).or_insert(i);
        }
    }
    let mut dropped_columns = 0usize;
    let mut idle_over: Option<(f64, String)> = None;
    let mut dropped = 0usize;
    let mut dropped_at: Option<String> = None;
    for pc in columns {
        let name = col_name(pc.index);
        let Some(col) = by_name.get(name.as_str()).and_then(|&i| raw.get_mut(i)?.take()) else {
            continue;
        };
        // The column is ours alone now: convert it in place, no second buffer.
        let mut values = col.take_materialized_series().f64()?.clone();
        if pc.convert == Convert::BusyFromIdle
            && let Some(max) = values.max()
            && max > 100.0
            && idle_over.as_ref().is_none_or(|(m, _)| max > *m)
        {
            idle_over = Some((max, pc.header.clone()));
        }
        match pc.convert {
            Convert::Scale(f) if f.to_bits() == 1f64.to_bits() => {}
            other => values.apply_mut(move |v| other.apply(v)),
        }
        // Three fast reductions tell whether any value is impossible (a NaN or an
        // infinity makes the sum non-finite); only then is the column filtered.
        let max = upper_bound(pc.metric);
        let suspicious = values.sum().is_some_and(|s| !s.is_finite())
            || values.min().is_some_and(|m| m < 0.0)
            || values.max().is_some_and(|m| m > max);
        let checked = if suspicious {
            let before = values.null_count();
            let checked: Float64Chunked =
                values.apply(|v| v.filter(|x| x.is_finite() && *x >= 0.0 && *x <= max));
            let bad = checked.null_count().saturating_sub(before);
            if bad > 0 {
                dropped += bad;
                dropped_columns += 1;
                dropped_at.get_or_insert_with(|| pc.header.clone());
            }
            checked
        } else {
            values
        };
        if let Some(slot) = per_target.get_mut(pc.target as usize) {
            slot.push((pc.metric, checked));
        }
    }
    if let Some((max, header)) = idle_over {
        meta.warn(
            format!(
                "% Idle Time reads above 100 (up to {max:.1}; some disk drivers do this): \
                 busy_pct is clamped to 0..100"
            ),
            Some(Location::column(header)),
        );
    }
    let columns = match dropped_columns {
        0 | 1 => String::new(),
        n => format!(" in {n} columns, the first named here"),
    };
    warn_n(
        meta,
        format!(
            "dropped values that cannot be right (negative, not a number, or absurdly large){columns}; \
             the rest of their rows is kept"
        ),
        dropped_at.map(Location::column),
        dropped,
    );
    Ok(per_target)
}

/// The canonical long frame: for each target, its rows (target, time, metrics), stacked.
/// Leading rows where a target has no value at all (PerfMon's blank first row of rate
/// counters) are left out.
fn long_frame(
    per_target: Vec<Vec<(Metric, Float64Chunked)>>,
    time_ms: Vec<i64>,
    meta: &CaptureMeta,
) -> PolarsResult<Option<DataFrame>> {
    let n = time_ms.len();
    let time = Int64Chunked::from_vec(TIME.into(), time_ms)
        .into_datetime(TimeUnit::Milliseconds, None)
        .into_column();
    let present: Vec<Metric> = Metric::ALL
        .iter()
        .copied()
        .filter(|m| per_target.iter().any(|cols| cols.iter().any(|(cm, _)| cm == m)))
        .collect();
    let mut out: Option<DataFrame> = None;
    for (t, cols) in per_target.into_iter().enumerate() {
        if cols.is_empty() || t >= meta.targets.len() {
            continue;
        }
        let Ok(t) = u32::try_from(t) else { continue };
        let mut has_value: Option<BooleanChunked> = None;
        for (_, ca) in &cols {
            let nn = ca.is_not_null();
            has_value = Some(match has_value {
                None => nn,
                Some(acc) => &acc | &nn,
            });
        }
        let Some(has_value) = has_value else { continue };
        let keep = has_value.sum().unwrap_or(0) as usize;
        if keep == 0 {
            continue;
        }
        let mut frame_cols: Vec<Column> = Vec::with_capacity(present.len() + 2);
        frame_cols.push(UInt32Chunked::full(TARGET.into(), t, n).into_column());
        frame_cols.push(time.clone());
        for m in &present {
            frame_cols.push(match cols.iter().find(|(cm, _)| cm == m) {
                Some((_, ca)) => ca.clone().with_name(m.name().into()).into_column(),
                None => Column::full_null(m.name().into(), n, &DataType::Float64),
            });
        }
        let mut df = DataFrame::new(n, frame_cols)?;
        if keep < n {
            let skip = n - keep;
            let rest_all = has_value.slice(skip as i64, keep).all();
            df = if rest_all { df.slice(skip as i64, keep) } else { df.filter(&has_value)? };
        }
        match &mut out {
            None => out = Some(df),
            Some(acc) => {
                acc.vstack_mut(&df)?;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unparsable_message_is_understood() {
        let m = "could not parse `abc` as dtype `f64` at column 'c5' (column number 6)";
        assert_eq!(unparsable(m), (Some("abc"), Some("c5")));
        assert_eq!(unparsable("other"), (None, None));
    }
}
