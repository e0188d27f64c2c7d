use std::path::Path;

use advisor_ingest::{ErrorKind, IngestError, decode};
use advisor_model::{CaptureMeta, Format, Metric, Target};
use polars::prelude::*;

use crate::frame::{self, TARGET, TIME};
use crate::parts::{Part, TargetRows};
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
    /// Each target's rows, cut from `frame` once (see [`crate::parts`]).
    pub(crate) index: Option<TargetRows>,
}

/// Reads and normalizes the capture at `path`.
///
/// The file's bytes are freed as soon as they are parsed (by polars for a PerfMon CSV, by
/// the reader for the others), before the canonical frame is built, so the peak memory is
/// the file plus its parsed values, not more.
pub fn read_path(path: &Path) -> Result<Capture, IngestError> {
    let file = path.display().to_string();
    let owned =
        FileBytes::open(path).map_err(|e| IngestError::new(&file, None, ErrorKind::Io(e)))?;
    let bytes = owned.as_ref();
    let format = advisor_ingest::sniff(&file, bytes)?;
    let decoded = decode::decode(bytes);
    let text = Text::of(&decoded);
    if format != Format::PerfmonCsv {
        let raw = advisor_ingest::read_raw(&file, format, &decoded.text)?;
        drop(decoded);
        drop(owned);
        return from_raw(&file, format, text, raw);
    }
    let parsed = perfmon::parse(&file, &decoded.text)?;
    drop(decoded);
    drop(owned);
    let (meta, frame) = perfmon::finish(&file, parsed)?;
    finish(&file, format, text, meta, frame, None)
}

/// A file's bytes: mapped into memory by polars' own safe mapping (what its CSV reader does
/// with a path), so a large capture is not copied before it is parsed; read into memory
/// when the file cannot be mapped (empty, a pipe, a file system without mmap).
enum FileBytes {
    Mapped(polars::polars_utils::mmap::MMapSemaphore),
    Read(Vec<u8>),
}

impl FileBytes {
    fn open(path: &Path) -> std::io::Result<Self> {
        let f = std::fs::File::open(path)?;
        let regular = f.metadata().is_ok_and(|m| m.is_file() && m.len() > 0);
        // Populated: the kernel reads the pages in ahead, in one go, rather than one fault
        // per page as the text is first scanned.
        let mut options = memmap2::MmapOptions::new();
        options.populate();
        if regular
            && let Ok(map) =
                polars::polars_utils::mmap::MMapSemaphore::new_from_file_with_options(&f, options)
        {
            return Ok(Self::Mapped(map));
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut &f, &mut bytes)?;
        Ok(Self::Read(bytes))
    }
}

impl AsRef<[u8]> for FileBytes {
    fn as_ref(&self) -> &[u8] {
        match self {
            Self::Mapped(m) => m.as_ref(),
            Self::Read(v) => v,
        }
    }
}

/// Reads and normalizes a capture held in memory; `file` names it in messages.
pub fn read_bytes(file: &str, bytes: &[u8]) -> Result<Capture, IngestError> {
    let format = advisor_ingest::sniff(file, bytes)?;
    let decoded = decode::decode(bytes);
    let text = Text::of(&decoded);
    if format != Format::PerfmonCsv {
        let raw = advisor_ingest::read_raw(file, format, &decoded.text)?;
        drop(decoded);
        return from_raw(file, format, text, raw);
    }
    let parsed = perfmon::parse(file, &decoded.text)?;
    drop(decoded);
    let (meta, frame) = perfmon::finish(file, parsed)?;
    finish(file, format, text, meta, frame, None)
}

/// The canonical frame of what a reader other than PerfMon's produced.
fn from_raw(
    file: &str,
    format: Format,
    text: Text,
    raw: advisor_model::RawCapture,
) -> Result<Capture, IngestError> {
    let frame = frame::from_table(&raw.table).map_err(|e| polars_error(file, e))?;
    let since_boot = match &raw.since_boot {
        Some(t) => Some(frame::from_table(t).map_err(|e| polars_error(file, e))?),
        None => None,
    };
    drop(raw.table);
    finish(file, format, text, raw.meta, frame, since_boot)
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
    let frame = frame::derive(frame, format.is_benchmark()).map_err(|e| polars_error(file, e))?;
    let (frame, index) = stacked(frame, meta.targets.len()).map_err(|e| polars_error(file, e))?;
    let since_boot = match since_boot {
        Some(f) => Some(frame::derive(f, false).map_err(|e| polars_error(file, e))?),
        None => None,
    };
    Ok(Capture { file: file.to_owned(), meta, frame, since_boot, index })
}

/// The frame stacked by target, each target's rows in time order (a missing time first),
/// and its parts. The PerfMon reader builds its frame so; the others (iostat interleaves
/// its devices by time) are sorted once, stably, which also leaves one chunk per column.
pub(crate) fn stacked(
    frame: DataFrame,
    targets: usize,
) -> PolarsResult<(DataFrame, Option<TargetRows>)> {
    if let Some(index) = TargetRows::of(&frame, targets) {
        return Ok((frame, Some(index)));
    }
    let frame = frame.sort(
        [TARGET, TIME],
        SortMultipleOptions::default().with_nulls_last(false).with_maintain_order(true),
    )?;
    let index = TargetRows::of(&frame, targets);
    Ok((frame, index))
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
