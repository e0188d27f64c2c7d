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
}

/// Reads and normalizes the capture at `path`.
pub fn read_path(path: &Path) -> Result<Capture, IngestError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| IngestError::new(&file, None, ErrorKind::Io(e)))?;
    read_bytes(&file, &bytes)
}

/// Reads and normalizes a capture held in memory; `file` names it in messages.
pub fn read_bytes(file: &str, bytes: &[u8]) -> Result<Capture, IngestError> {
    let format = advisor_ingest::sniff(file, bytes)?;
    let decoded = decode::decode(bytes);
    let (mut meta, frame, since_boot) = match format {
        Format::PerfmonCsv => {
            let (meta, frame) = perfmon::read(file, &decoded.text)?;
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
    if decoded.had_errors {
        meta.warn(
            format!(
                "the file is not valid {}; undecodable bytes were replaced",
                decoded.encoding.name()
            ),
            None,
        );
    }
    if decoded.encoding != decode::UTF_8 {
        meta.notes.push(format!("text encoding: {}", decoded.encoding.name()));
    }
    let mut frame =
        frame::derive(frame, format.is_benchmark()).map_err(|e| polars_error(file, e))?;
    // One chunk per column: every later filter (per target) would otherwise re-concatenate
    // the chunks the readers produced, once per call.
    frame.rechunk_mut_par();
    let since_boot = match since_boot {
        Some(f) => Some(frame::derive(f, false).map_err(|e| polars_error(file, e))?),
        None => None,
    };
    Ok(Capture { file: file.to_owned(), meta, frame, since_boot })
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
        frame::values(&self.frame, target, metric)
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
