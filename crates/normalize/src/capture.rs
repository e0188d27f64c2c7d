use std::path::Path;

use advisor_ingest::{ErrorKind, IngestError, decode};
use advisor_model::{CaptureMeta, Format, Metric, Target};
use polars::prelude::*;

use crate::frame::{self, TARGET, TIME};
use crate::perfmon;

/// One capture in canonical form.
///
/// `frame` has one row per (target, sample): `target` (UInt32, an index into
/// `meta.targets`), `time` (Datetime ms, wall clock as the capture wrote it, null for a
/// benchmark's summary row) and one Float64 column per [`Metric`] the capture has, named
/// by [`Metric::name`], in that metric's [`advisor_model::Unit`].
#[derive(Debug, Clone)]
pub struct Capture {
    /// The file as the user named it.
    pub file: String,
    pub meta: CaptureMeta,
    pub frame: DataFrame,
    /// iostat's first report (averages since boot), kept apart from the time series.
    pub since_boot: Option<DataFrame>,
    /// Where each target's rows are in `frame`, when they are one time-ordered run each.
    pub(crate) index: Option<TargetRows>,
}

/// Reads and normalizes the capture at `path`.
///
/// A PerfMon CSV's bytes are freed as soon as polars has parsed them, before the canonical
/// frame is built, so the peak memory is the file plus its parsed columns, not more.
pub fn read_path(path: &Path) -> Result<Capture, IngestError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| IngestError::new(&file, None, ErrorKind::Io(e)))?;
    let format = advisor_ingest::sniff(&file, &bytes)?;
    if format != Format::PerfmonCsv {
        return read_bytes(&file, &bytes);
    }
    let decoded = decode::decode(&bytes);
    let text = Text::of(&decoded);
    let parsed = perfmon::parse(&file, &decoded.text)?;
    drop(decoded);
    drop(bytes);
    let (meta, frame) = perfmon::finish(&file, parsed)?;
    finish(&file, format, text, meta, frame, None)
}

/// Reads and normalizes a capture held in memory; `file` names it in messages.
pub fn read_bytes(file: &str, bytes: &[u8]) -> Result<Capture, IngestError> {
    let format = advisor_ingest::sniff(file, bytes)?;
    let decoded = decode::decode(bytes);
    let text = Text::of(&decoded);
    let (meta, frame, since_boot) = match format {
        Format::PerfmonCsv => {
            let (meta, frame) = perfmon::finish(file, perfmon::parse(file, &decoded.text)?)?;
            (meta, frame, None)
        }
        _ => {
            let raw = advisor_ingest::read_raw(file, format, &decoded.text)?;
            let frame = frame::from_table(&raw.table).map_err(|e| polars_error(file, e))?;
            let since_boot = match &raw.since_boot {
                Some(t) => Some(frame::from_table(t).map_err(|e| polars_error(file, e))?),
                None => None,
            };
            (raw.meta, frame, since_boot)
        }
    };
    drop(decoded);
    finish(file, format, text, meta, frame, since_boot)
}

/// What the decoder found, kept once the text is gone.
struct Text {
    encoding: &'static decode::Encoding,
    had_errors: bool,
}

impl Text {
    fn of(d: &decode::Decoded<'_>) -> Self {
        Self { encoding: d.encoding, had_errors: d.had_errors }
    }
}

/// Notes on the text, the derived metrics, and the per-target row index.
fn finish(
    file: &str,
    format: Format,
    text: Text,
    mut meta: CaptureMeta,
    frame: DataFrame,
    since_boot: Option<DataFrame>,
) -> Result<Capture, IngestError> {
    if text.had_errors {
        meta.warn(
            format!(
                "the file is not valid {}; undecodable bytes were replaced",
                text.encoding.name()
            ),
            None,
        );
    }
    if text.encoding != decode::UTF_8 {
        meta.notes.push(format!("text encoding: {}", text.encoding.name()));
    }
    let mut frame =
        frame::derive(frame, format.is_benchmark()).map_err(|e| polars_error(file, e))?;
    let index = TargetRows::of(&frame, meta.targets.len());
    if index.is_none() {
        // One chunk per column: every later filter (per target) would otherwise
        // re-concatenate the chunks the readers produced, once per call. With the index,
        // a target's rows are a slice (one chunk of the PerfMon reader's), and copying
        // the whole frame would only cost memory.
        frame.rechunk_mut_par();
    }
    let since_boot = match since_boot {
        Some(f) => Some(frame::derive(f, false).map_err(|e| polars_error(file, e))?),
        None => None,
    };
    Ok(Capture { file: file.to_owned(), meta, frame, since_boot, index })
}

/// Where each target's rows are, when every target's rows are one run of the frame, in
/// time order (a missing time first): then a target's series is a slice of the frame, not
/// a filter and a sort. The PerfMon reader stacks its frame that way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TargetRows {
    /// Per target index: (first row, rows).
    ranges: Vec<(usize, usize)>,
    /// The frame's height when the index was made (a frame changed since is not trusted).
    height: usize,
}

impl TargetRows {
    pub(crate) fn of(df: &DataFrame, targets: usize) -> Option<Self> {
        let t = df.column(TARGET).ok()?.u32().ok()?.clone();
        let time = df.column(TIME).ok()?.as_materialized_series().to_physical_repr();
        let time = time.i64().ok()?.clone();
        let mut ranges = vec![(0usize, 0usize); targets];
        let mut seen = vec![false; targets];
        let mut current: Option<u32> = None;
        let mut last: Option<Option<i64>> = None;
        for (row, (ti, tm)) in t.iter().zip(time.iter()).enumerate() {
            let ti = ti?;
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
            // Option's order puts None (no time) first, as the sort of `series` does.
            if last.is_some_and(|prev| tm < prev) {
                return None;
            }
            last = Some(tm);
            ranges[ti as usize].1 += 1;
        }
        Some(Self { ranges, height: df.height() })
    }

    /// The rows of `target` in `df`, or `None` when the index does not fit `df`.
    pub(crate) fn range(&self, df: &DataFrame, target: u32) -> Option<(usize, usize)> {
        if df.height() != self.height {
            return None;
        }
        Some(self.ranges.get(target as usize).copied().unwrap_or((0, 0)))
    }
}

pub(crate) fn polars_error(file: &str, e: PolarsError) -> IngestError {
    IngestError::invalid(file, None, format!("could not build the canonical frame: {e}"))
}

impl Capture {
    pub fn format(&self) -> Format {
        self.meta.format
    }

    pub fn targets(&self) -> &[Target] {
        &self.meta.targets
    }

    /// Rows in the canonical frame (samples x targets).
    pub fn rows(&self) -> usize {
        self.frame.height()
    }

    /// The metrics this capture has at least one value for, in canonical order.
    pub fn metrics(&self) -> Vec<Metric> {
        Metric::ALL
            .iter()
            .copied()
            .filter(|m| self.frame.column(m.name()).is_ok_and(|c| c.len() > c.null_count()))
            .collect()
    }

    /// Distinct sample times (the number of samples in the time series).
    pub fn samples(&self) -> usize {
        match self.frame.column(TIME) {
            Ok(c) if c.null_count() < c.len() => c.drop_nulls().n_unique().unwrap_or(0),
            // A benchmark summary: one sample per run.
            _ => usize::from(self.frame.height() > 0),
        }
    }

    /// First and last sample time (wall clock, ms since the epoch, no zone applied).
    pub fn time_range(&self) -> Option<(i64, i64)> {
        let c = self.frame.column(TIME).ok()?;
        let ms = c.as_materialized_series().to_physical_repr();
        let ms = ms.i64().ok()?;
        Some((ms.min()?, ms.max()?))
    }

    /// The values of one metric for one target, in time order, nulls dropped.
    pub fn values(&self, target: u32, metric: Metric) -> Vec<f64> {
        match self.rows_of(target) {
            Some((start, len)) => frame::values_in(&self.frame, start, len, metric),
            None => frame::values(&self.frame, target, metric),
        }
    }

    /// The rows of `target` as one time-ordered run, when the frame is stacked so.
    pub(crate) fn rows_of(&self, target: u32) -> Option<(usize, usize)> {
        self.index.as_ref()?.range(&self.frame, target)
    }

    /// Row count per target index.
    pub fn rows_per_target(&self) -> Vec<usize> {
        let mut counts = vec![0usize; self.meta.targets.len()];
        if let Ok(c) = self.frame.column(TARGET)
            && let Ok(ca) = c.u32()
        {
            for t in ca.iter().flatten() {
                if let Some(n) = counts.get_mut(t as usize) {
                    *n += 1;
                }
            }
        }
        counts
    }
}
