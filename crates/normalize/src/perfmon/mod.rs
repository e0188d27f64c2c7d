//! PerfMon CSV: the values of the data lines parsed, piece by piece, into one Float64
//! column per planned counter; then the canonical long frame, one row per (target, sample).
//!
//! The PerfMon reader ([`advisor_ingest::perfmon::read_header`]) has read the header and
//! planned the columns, and its scanner ([`advisor_ingest::perfmon::scan::Scanner`]) finds
//! each piece's good lines (the whole text of a capture held in memory, or a file read a
//! few megabytes at a time by [`advisor_ingest::perfmon::stream`]). [`Body`] takes what it
//! is given: the cells of the planned columns of the good lines, parsed on every core
//! ([`values`]). Nothing of a piece is kept but its numbers, so a file is never held whole.

mod decimal;
pub(crate) mod stream;
mod values;

use std::sync::Arc;

use advisor_ingest::IngestError;
use advisor_ingest::perfmon::scan::{Scanner, Segment};
use advisor_ingest::perfmon::{Convert, Header, PlannedColumn};
use advisor_model::{CaptureMeta, Location, Metric, Unit};
use polars::prelude::*;

use crate::frame::{TARGET, TIME, polars_error};
use values::{BadCell, Layout, Range};

/// A PerfMon CSV parsed: everything [`finish`] needs, nothing borrowed from the text.
pub(crate) struct Parsed {
    meta: CaptureMeta,
    /// One column per planned CSV column (by [`Layout::columns`]), all of one length.
    values: Vec<Float64Chunked>,
    layout: Arc<Layout>,
    columns: Vec<PlannedColumn>,
    time_ms: Vec<i64>,
}

/// The values of the data lines of a PerfMon CSV, taken a piece at a time as the scanner
/// found their good lines. The values go straight into one buffer per column, sized once
/// from the text's length, so that no column is ever copied or held twice.
pub(crate) struct Body {
    file: String,
    layout: Arc<Layout>,
    /// One column per slot, `rows` long so far; room past that is zero (calloc'd pages
    /// the kernel has not handed out yet) until the parser writes it.
    values: Vec<Vec<f64>>,
    rows: usize,
    /// Bytes of data lines still to come, when known (sizes the columns).
    size_hint: Option<u64>,
    /// Runs of good lines seen so far (the number of the current one).
    run: u64,
    bad: Vec<BadCell>,
    /// The cores a piece's parts are shared among.
    threads: usize,
}

impl Body {
    /// `size_hint`: the bytes of text the data lines take, when known; `threads`: the cores
    /// the scan shared each piece's parts among.
    pub(crate) fn new(file: &str, header: &Header, size_hint: Option<u64>, threads: usize) -> Self {
        let wanted: Vec<usize> = header.columns.iter().map(|c| c.index).collect();
        let layout = Layout::new(header.separator, header.decimal_comma, header.n_columns, &wanted);
        let values = vec![Vec::new(); layout.columns.len()];
        Self {
            file: file.to_owned(),
            layout: Arc::new(layout),
            values,
            rows: 0,
            size_hint,
            run: 0,
            bad: Vec::new(),
            threads: threads.max(1),
        }
    }

    /// Parses the runs of good lines the scan found in `bytes`, part by part, the parts
    /// shared among the cores (the scan's parts are the parse's shares: each part's lines
    /// were counted as they were scanned).
    pub(crate) fn parse(
        &mut self,
        bytes: &[u8],
        scanned: Vec<Vec<Segment>>,
    ) -> Result<(), IngestError> {
        let parts = scanned.len();
        let mut shares: Vec<Vec<Range>> = Vec::with_capacity(parts);
        let mut share_rows: Vec<usize> = Vec::with_capacity(parts);
        let mut good = 0usize;
        for part in scanned {
            let mut ranges: Vec<Range> = Vec::with_capacity(part.len());
            let mut rows = 0usize;
            for seg in &part {
                if !seg.continues {
                    self.run += 1;
                }
                ranges.push(Range { start: seg.start, end: seg.end, run: self.run });
                rows += seg.rows;
                good += seg.end - seg.start;
            }
            if rows > 0 {
                shares.push(ranges);
                share_rows.push(rows);
            }
        }
        let rows: usize = share_rows.iter().sum();
        if rows == 0 {
            return Ok(());
        }
        self.make_room(rows, good);
        // Each share fills its own rows of every column (and is the first to touch their
        // memory, so the page faults are shared out too).
        let start = self.rows;
        let mut per_share: Vec<Vec<&mut [f64]>> =
            shares.iter().map(|_| Vec::with_capacity(self.values.len())).collect();
        for col in &mut self.values {
            let mut tail = &mut col[start..start + rows];
            for (slices, &n) in per_share.iter_mut().zip(&share_rows) {
                let (mine, rest) = std::mem::take(&mut tail).split_at_mut(n);
                slices.push(mine);
                tail = rest;
            }
        }
        let layout = &*self.layout;
        // Each core takes the next share when done with one (there are more shares than
        // cores), so one slowed by another thread does less of the work.
        let found: Vec<Option<values::Found>> =
            advisor_model::par::map_owned(per_share, self.threads, |i, mut cols| {
                let parse = || values::parse(bytes, &shares[i], layout, &mut cols);
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(parse)).ok()
            });
        let found: Vec<values::Found> = found
            .into_iter()
            .collect::<Option<_>>()
            .ok_or_else(|| IngestError::invalid(&self.file, None, "the value parser failed"))?;
        for (f, &n) in found.into_iter().zip(&share_rows) {
            if f.rows != n {
                return Err(IngestError::invalid(
                    &self.file,
                    None,
                    format!(
                        "{} lines of values were read where {n} were counted; please report \
                         this file",
                        f.rows
                    ),
                ));
            }
            for b in f.bad {
                if self.bad.last().is_none_or(|x| x.run != b.run) {
                    self.bad.push(b);
                }
            }
        }
        self.rows += rows;
        Ok(())
    }

    /// Room in every column for `rows` more: the first time, for all the rows the text's
    /// length suggests (from this piece's bytes per line), so the columns are not moved as
    /// they grow. The room is zeroed memory the kernel maps only when it is written.
    fn make_room(&mut self, rows: usize, bytes: usize) {
        let have = self.values.first().map_or(0, Vec::len);
        if self.rows + rows <= have {
            return;
        }
        let guess = match self.size_hint {
            Some(total) if self.rows == 0 => {
                let per_row = bytes as f64 / rows as f64;
                // 2% and a few rows over: lines vary a little in length.
                (total as f64 / per_row * 1.02) as usize + 64
            }
            _ => (self.rows + rows) + (self.rows + rows) / 4,
        };
        let want = guess.max(self.rows + rows);
        for col in &mut self.values {
            if col.is_empty() {
                *col = vec![0.0; want];
            } else {
                col.resize(want, 0.0);
            }
        }
    }

    /// After the last piece, with the times of the good lines (the scanner's, whose broken
    /// lines and time warnings are in `header`'s meta): one warning per run of good lines
    /// with cells that are not numbers, and the columns.
    pub(crate) fn finish(self, header: Header, time_ms: Vec<i64>) -> Result<Parsed, IngestError> {
        let Self { file, layout, mut values, rows, bad, .. } = self;
        let Header { mut meta, columns, .. } = header;
        for col in &mut values {
            col.truncate(rows);
        }
        if !layout.columns.is_empty() && rows != time_ms.len() {
            return Err(IngestError::invalid(
                &file,
                None,
                format!(
                    "{rows} rows of values were read where {} good lines were found; please \
                     report this file",
                    time_ms.len()
                ),
            ));
        }
        for b in bad {
            let header = columns.iter().find(|c| c.index == b.column).map(|c| c.header.clone());
            meta.warn(
                format!(
                    "cells that are not numbers{} were read as missing",
                    if b.value.is_empty() {
                        String::new()
                    } else {
                        format!(" (e.g. `{}`)", b.value)
                    }
                ),
                header.map(Location::column),
            );
        }
        // Each column made a polars column (its missing cells a validity mask) on
        // whichever core is free.
        let values = advisor_model::par::map_owned(values, 8, |i, v| {
            column(layout.columns.get(i).copied().unwrap_or(i), v)
        });
        Ok(Parsed { meta, values, layout, columns, time_ms })
    }
}

/// A filled column as polars holds it, without a copy: missing cells become nulls (their
/// value 0, as polars' own builders leave it).
fn column(csv_index: usize, mut v: Vec<f64>) -> Float64Chunked {
    let name: PlSmallStr = format!("c{csv_index}").into();
    if !v.iter().any(|&x| values::is_missing(x)) {
        return Float64Chunked::from_vec(name, v);
    }
    let validity: polars_arrow::bitmap::Bitmap =
        v.iter().map(|&x| !values::is_missing(x)).collect();
    for x in &mut v {
        if values::is_missing(*x) {
            *x = 0.0;
        }
    }
    Float64Chunked::from_vec_validity(name, v, Some(validity))
}

/// Parses the data lines of a PerfMon CSV held in memory.
pub(crate) fn parse(file: &str, mut header: Header, text: &str) -> Result<Parsed, IngestError> {
    let from = header.body_start;
    let size = text.len().saturating_sub(from) as u64;
    let mut scanner = Scanner::new(&header);
    let mut body = Body::new(file, &header, Some(size), scanner.threads());
    body.parse(text.as_bytes(), scanner.scan(text, from))?;
    let time_ms = scanner.finish(file, &mut header.meta)?;
    body.finish(header, time_ms)
}

/// The canonical long frame of a parsed PerfMon CSV.
pub(crate) fn finish(file: &str, parsed: Parsed) -> Result<(CaptureMeta, DataFrame), IngestError> {
    let Parsed { mut meta, values, layout, columns, time_ms } = parsed;
    let per_target =
        convert_columns(values, &layout, &columns, &mut meta).map_err(|e| polars_error(file, e))?;
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

/// One planned column converted: its values and what the warnings need.
struct Converted {
    target: u32,
    metric: Metric,
    values: Float64Chunked,
    /// The largest `% Idle Time` read, when above 100.
    idle_over: Option<f64>,
    /// Values dropped as impossible.
    dropped: usize,
}

/// Converts one column to its canonical unit and drops impossible values.
fn convert_one(pc: &PlannedColumn, mut values: Float64Chunked) -> Converted {
    let idle_over = match pc.convert {
        Convert::BusyFromIdle => values.max().filter(|&max| max > 100.0),
        _ => None,
    };
    match pc.convert {
        Convert::Scale(f) if f.to_bits() == 1f64.to_bits() => {}
        other => values.apply_mut(move |v| other.apply(v)),
    }
    // Only a column with an impossible value is filtered.
    let max = upper_bound(pc.metric);
    let suspicious = !possible(&values, max);
    let (values, dropped) = if suspicious {
        let before = values.null_count();
        let checked: Float64Chunked =
            values.apply(|v| v.filter(|x| x.is_finite() && *x >= 0.0 && *x <= max));
        let bad = checked.null_count().saturating_sub(before);
        (checked, bad)
    } else {
        (values, 0)
    };
    Converted { target: pc.target, metric: pc.metric, values, idle_over, dropped }
}

/// Whether every value of `values` is finite and within `0..=max`. With nothing missing
/// (the usual column), one branch-free pass over its buffers: a value that is not a number
/// fails both comparisons, an infinity one of them. Else three reductions that skip what
/// is missing (a NaN or an infinity makes the sum non-finite). The same answer either way;
/// the reductions were three passes, two of them scalar.
fn possible(values: &Float64Chunked, max: f64) -> bool {
    if values.null_count() == 0 {
        return values
            .downcast_iter()
            .all(|a| advisor_model::all_of(a.values(), |x| (x >= 0.0) & (x <= max)));
    }
    !(values.sum().is_some_and(|s| !s.is_finite())
        || values.min().is_some_and(|m| m < 0.0)
        || values.max().is_some_and(|m| m > max))
}

/// Converts every planned column to its canonical unit, drops impossible values, and
/// groups the columns by target. The columns are converted on every core; the warnings
/// are gathered in plan order afterwards.
fn convert_columns(
    values: Vec<Float64Chunked>,
    layout: &Layout,
    columns: &[PlannedColumn],
    meta: &mut CaptureMeta,
) -> PolarsResult<Vec<Vec<(Metric, Float64Chunked)>>> {
    let mut raw: Vec<Option<Float64Chunked>> = values.into_iter().map(Some).collect();
    // A column planned twice is read once, for the first plan.
    let mut jobs: Vec<(&PlannedColumn, Float64Chunked)> = Vec::with_capacity(columns.len());
    for pc in columns {
        let slot = layout.slot_of.get(pc.index).copied().unwrap_or(values::SKIP);
        if let Some(col) = raw.get_mut(slot as usize).and_then(Option::take) {
            jobs.push((pc, col));
        }
    }
    drop(raw);
    // Each job's column is handed to whichever thread converts it; it is ours alone then
    // (one buffer), so it is converted in place.
    let converted =
        advisor_model::par::map_owned(jobs, 8, |_, (pc, col)| (pc, convert_one(pc, col)));
    let mut per_target: Vec<Vec<(Metric, Float64Chunked)>> = vec![Vec::new(); meta.targets.len()];
    let mut dropped_columns = 0usize;
    let mut idle_over: Option<(f64, String)> = None;
    let mut dropped = 0usize;
    let mut dropped_at: Option<String> = None;
    for (pc, c) in converted {
        if let Some(max) = c.idle_over
            && idle_over.as_ref().is_none_or(|(m, _)| max > *m)
        {
            idle_over = Some((max, pc.header.clone()));
        }
        if c.dropped > 0 {
            dropped += c.dropped;
            dropped_columns += 1;
            dropped_at.get_or_insert_with(|| pc.header.clone());
        }
        if let Some(slot) = per_target.get_mut(c.target as usize) {
            slot.push((c.metric, c.values));
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
    let targets = meta.targets.len();
    // Each target's rows on whichever core is free (its columns shared, not copied),
    // stacked in target order.
    let frames = advisor_model::par::map_indexed(per_target.len(), 8, |t| {
        let cols = &per_target[t];
        if cols.is_empty() || t >= targets {
            return Ok(None);
        }
        let Ok(t) = u32::try_from(t) else { return Ok(None) };
        target_frame(t, cols, &time, &present, n)
    });
    drop(per_target);
    let mut out: Option<DataFrame> = None;
    for df in frames {
        let Some(df) = df? else { continue };
        match &mut out {
            None => out = Some(df),
            Some(acc) => {
                acc.vstack_mut(&df)?;
            }
        }
    }
    Ok(out)
}

/// One target's rows of the long frame: `None` when it has no value in any row.
fn target_frame(
    t: u32,
    cols: &[(Metric, Float64Chunked)],
    time: &Column,
    present: &[Metric],
    n: usize,
) -> PolarsResult<Option<DataFrame>> {
    let mut has_value: Option<BooleanChunked> = None;
    for (_, ca) in cols {
        let nn = ca.is_not_null();
        has_value = Some(match has_value {
            None => nn,
            Some(acc) => &acc | &nn,
        });
    }
    let Some(has_value) = has_value else { return Ok(None) };
    let keep = has_value.sum().unwrap_or(0) as usize;
    if keep == 0 {
        return Ok(None);
    }
    let mut frame_cols: Vec<Column> = Vec::with_capacity(present.len() + 2);
    frame_cols.push(UInt32Chunked::full(TARGET.into(), t, n).into_column());
    frame_cols.push(time.clone());
    for m in present {
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
    Ok(Some(df))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        // One pass over the buffers tells what the three reductions tell, whatever the
        // column holds: not-a-number, infinities, negative values, -0, values at and above
        // the bound, in one chunk or several, with missing values or without.
        #[test]
        fn one_pass_tells_what_the_reductions_tell(
            cells in proptest::collection::vec(
                proptest::option::weighted(0.9, proptest::sample::select(vec![
                    0.0, -0.0, 1.5, 99.0, 100.0, 100.5, -1e-300, 1e308,
                    f64::NAN, f64::INFINITY, f64::NEG_INFINITY,
                ])),
                0..40,
            ),
            split in 0usize..40,
        ) {
            let max = 100.0;
            let at = split.min(cells.len());
            let mut values = Float64Chunked::from_iter_options(PlSmallStr::EMPTY, cells[..at].iter().copied());
            values.append(&Float64Chunked::from_iter_options(PlSmallStr::EMPTY, cells[at..].iter().copied())).unwrap_or_else(|_| unreachable!());
            let reductions = !(values.sum().is_some_and(|s| !s.is_finite())
                || values.min().is_some_and(|m| m < 0.0)
                || values.max().is_some_and(|m| m > max));
            let want = cells.iter().flatten().all(|x| x.is_finite() && *x >= 0.0 && *x <= max);
            proptest::prop_assert_eq!(reductions, want);
            proptest::prop_assert_eq!(possible(&values, max), want);
        }
    }

    const HEAD: &str = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\H\\PhysicalDisk(0 C:)\\Disk Reads/sec\",\"\\\\H\\PhysicalDisk(0 C:)\\Disk Writes/sec\",\"\\\\H\\Memory\\Available MBytes\"\r\n";

    /// A capture with blank and broken lines and cells that are not numbers.
    fn capture(lines: usize) -> String {
        let mut text = HEAD.to_owned();
        for i in 0..lines {
            let (h, m, s) = (i / 3600 % 24, i / 60 % 60, i % 60);
            let time = format!("\"01/02/2024 {h:02}:{m:02}:{s:02}.000\"");
            match i % 97 {
                5 => text.push_str("\r\n"),
                11 => text.push_str(&format!("{time},\"1\"\r\n")),
                23 => text.push_str(&format!("{time},\"x{i}\",\" \",\"512\"\r\n")),
                _ => text.push_str(&format!("{time},\"{i}.5\",\"{}\",\"512\"\r\n", i % 7)),
            }
        }
        text
    }

    /// What a parse gave, to compare two parses: every column's values, the times and
    /// the warnings.
    type Summary = (Vec<Vec<Option<f64>>>, Vec<i64>, Vec<String>);

    pub(super) fn summary(p: &Parsed) -> Summary {
        (
            p.values.iter().map(|c| c.iter().collect()).collect(),
            p.time_ms.clone(),
            p.meta.warnings.iter().map(ToString::to_string).collect(),
        )
    }

    #[test]
    fn pieces_of_any_size_give_the_whole_texts_values() {
        let text = capture(3000);
        let header =
            advisor_ingest::perfmon::read_header("x.csv", &text).unwrap_or_else(|e| panic!("{e}"));
        let whole = parse("x.csv", header.clone(), &text).unwrap_or_else(|e| panic!("{e}"));
        let (values, times, warnings) = summary(&whole);
        assert_eq!(times.len(), 3000 - 31 - 31);
        assert_eq!(values[0].iter().filter(|v| v.is_none()).count(), 31);
        assert!(warnings.iter().any(|w| w.contains("(e.g. `x23`)")), "{warnings:?}");
        assert_eq!(warnings.iter().filter(|w| w.contains("not numbers")).count(), 31);
        // Pieces of several sizes, parsed on one thread or split between three.
        for (piece, threads) in [(1000, 1), (4096, 1), (77_777, 1), (4096, 3), (77_777, 3)] {
            let mut scanner = Scanner::new(&header).on_threads(threads, 0);
            let mut body = Body::new("x.csv", &header, Some(piece as u64), threads);
            let mut at = header.body_start;
            let mut feed = |text: &str, from: usize| {
                let parts = scanner.scan(text, from);
                body.parse(text.as_bytes(), parts).unwrap_or_else(|e| panic!("{e}"));
            };
            feed(&text[..at], at);
            while at < text.len() {
                let end = (at + piece).min(text.len());
                let end = text[..end].rfind('\n').map_or(text.len(), |i| i + 1).max(at + 1);
                let end = if end <= at { text.len() } else { end };
                feed(&text[at..end], 0);
                at = end;
            }
            let mut header = header.clone();
            let time_ms =
                scanner.finish("x.csv", &mut header.meta).unwrap_or_else(|e| panic!("{e}"));
            let pieces = body.finish(header, time_ms).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                summary(&pieces),
                (values.clone(), times.clone(), warnings.clone()),
                "{piece} bytes on {threads} threads"
            );
        }
    }
}
