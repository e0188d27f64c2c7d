use std::path::Path;
use std::sync::Arc;

use advisor_ingest::IngestError;
use advisor_ingest::perfmon::Language;
use advisor_ingest::perfmon::counters::names::shipped_tables;
use advisor_model::{CaptureMeta, Format, Metric, Target};
use polars::prelude::*;

use crate::build;
use crate::frame::{self, TARGET, TIME};
use crate::parts::{Part, TargetRows};
use crate::perfmon::stream::Streamed;

/// One capture in canonical form.
///
/// `frame` has one row per (target, sample): `target` (UInt32, an index into
/// `meta.targets`), `time` (Datetime ms, wall clock as the capture wrote it, null for a
/// benchmark's summary row) and one Float64 column per [`Metric`] the capture states,
/// named by [`Metric::name`], in that metric's [`advisor_model::Unit`]. The metrics it
/// implies (totals, the weighted latency, IO sizes, the read share) are not columns: the
/// methods below work them out target by target when asked (a frame whose targets' rows
/// are not one run each has them as columns instead).
#[derive(Debug, Clone)]
pub struct Capture {
    /// The file as the user named it.
    pub file: String,
    pub meta: CaptureMeta,
    pub frame: DataFrame,
    /// iostat's first report (averages since boot), kept apart from the time series.
    pub since_boot: Option<DataFrame>,
    /// Each target's rows, cut from `frame` once (see [`crate::parts`]).
    pub(crate) index: Option<TargetRows>,
}

/// Reads and normalizes the capture at `path`.
///
/// A PerfMon CSV is read in pieces of a few megabytes ([`advisor_ingest::perfmon::stream`]):
/// memory holds its values, never its whole text. Other files are read whole, with the
/// reader the first piece was detected as, and their bytes freed as soon as their reader
/// is done, before the canonical frame is built. Files are read, never mapped
/// ([`advisor_ingest::file`]): one truncated meanwhile is an error naming the line where
/// its text stops, not a SIGBUS.
pub fn read_path(path: &Path) -> Result<Capture, IngestError> {
    read_path_with(path, shipped_tables())
}

/// [`read_path`], reading PerfMon counter names of other display languages with
/// `counter_tables` (those of `--counters` before the shipped ones:
/// [`advisor_ingest::perfmon::counters::names::with_shipped`]).
pub fn read_path_with(
    path: &Path,
    counter_tables: &[Arc<Language>],
) -> Result<Capture, IngestError> {
    let file = path.display().to_string();
    let reader = match crate::perfmon::stream::read_file(&file, path, counter_tables)? {
        Streamed::Read(parsed, decoding) => {
            return build::capture(&file, build::streamed(decoding, *parsed));
        }
        Streamed::Whole(reader) => reader,
    };
    let bytes = advisor_ingest::file::read_whole(&file, path)?;
    let reading = match reader {
        Some(reader) => advisor_ingest::read_as_with(reader, &file, &bytes, counter_tables)?,
        None => advisor_ingest::read_with(&file, &bytes, counter_tables)?,
    };
    let parsed = build::parse(&file, reading)?;
    drop(bytes);
    build::capture(&file, parsed)
}

/// Joins the captures that each hold one snapshot of cumulative counters of one source
/// (SQL Server's file statistics run once per file, the files given together): each group
/// becomes one capture of the rates between its snapshots
/// ([`advisor_ingest::snapshots::join`]), named by its files (`a.csv + b.csv`), where the
/// first of them stood. The others stay as they are.
pub fn join_snapshots(captures: Vec<Capture>) -> Result<Vec<Capture>, IngestError> {
    let metas: Vec<&advisor_model::CaptureMeta> = captures.iter().map(|c| &c.meta).collect();
    let joined = advisor_ingest::snapshots::join(&metas);
    if joined.is_empty() {
        return Ok(captures);
    }
    let mut slots: Vec<Option<Capture>> = captures.into_iter().map(Some).collect();
    let mut out: Vec<(usize, Capture)> = Vec::new();
    for (raw, idx) in joined {
        let names: Vec<String> =
            idx.iter().filter_map(|&i| slots.get(i)?.as_ref().map(|c| c.file.clone())).collect();
        let file = names.join(" + ");
        let first = idx.iter().copied().min().unwrap_or(0);
        for &i in &idx {
            if let Some(s) = slots.get_mut(i) {
                *s = None;
            }
        }
        out.push((first, build::capture(&file, build::table(raw))?));
    }
    out.extend(slots.into_iter().enumerate().filter_map(|(i, c)| Some((i, c?))));
    out.sort_by_key(|(i, _)| *i);
    Ok(out.into_iter().map(|(_, c)| c).collect())
}

/// Reads and normalizes a capture held in memory; `file` names it in messages.
pub fn read_bytes(file: &str, bytes: &[u8]) -> Result<Capture, IngestError> {
    read_bytes_with(file, bytes, shipped_tables())
}

/// [`read_bytes`] with these PerfMon counter-name tables (see [`read_path_with`]).
pub fn read_bytes_with(
    file: &str,
    bytes: &[u8],
    counter_tables: &[Arc<Language>],
) -> Result<Capture, IngestError> {
    let parsed = build::parse(file, advisor_ingest::read_with(file, bytes, counter_tables)?)?;
    build::capture(file, parsed)
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
        if let Some(metrics) = self.index.as_ref().and_then(|i| i.metrics(&self.frame)) {
            return metrics;
        }
        Metric::ALL
            .iter()
            .copied()
            .filter(|m| self.frame.column(m.name()).is_ok_and(|c| c.len() > c.null_count()))
            .collect()
    }

    /// Distinct sample times (the number of samples in the time series).
    pub fn samples(&self) -> usize {
        if let Some(n) = self.index.as_ref().and_then(|i| i.distinct_times(&self.frame)) {
            return n;
        }
        match self.frame.column(TIME) {
            Ok(c) if c.null_count() < c.len() => c.drop_nulls().n_unique().unwrap_or(0),
            // A benchmark summary: one sample per run.
            _ => usize::from(self.frame.height() > 0),
        }
    }

    /// First and last sample time (wall clock, ms since the epoch, no zone applied).
    pub fn time_range(&self) -> Option<(i64, i64)> {
        if let Some(range) = self.index.as_ref().and_then(|i| i.time_range(&self.frame)) {
            return Some(range);
        }
        let c = self.frame.column(TIME).ok()?;
        let ms = c.as_materialized_series().to_physical_repr();
        let ms = ms.i64().ok()?;
        Some((ms.min()?, ms.max()?))
    }

    /// The values of one metric for one target, in time order, nulls dropped.
    pub fn values(&self, target: u32, metric: Metric) -> Vec<f64> {
        match self.part(target) {
            Some(part) => {
                part.metric(metric).map_or_else(Vec::new, |c| c.iter().flatten().collect())
            }
            None => frame::values(&self.frame, target, metric),
        }
    }

    /// The rows of `target`, cut from the frame when it was read.
    pub(crate) fn part(&self, target: u32) -> Option<&Part> {
        self.index.as_ref()?.part(&self.frame, target)
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
