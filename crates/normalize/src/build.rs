//! The one build step: what a reader returned ([`advisor_ingest::Reading`]) becomes the
//! canonical frame.
//!
//! In two halves, so that the caller can free the file's bytes between them: [`parse`]
//! takes the values out of the text (a PerfMon CSV's data lines scanned and parsed by
//! [`perfmon`]; the other readers have done so already), [`capture`] builds the frame from
//! values alone. A PerfMon CSV read from a file in pieces arrives parsed ([`streamed`]).

use advisor_ingest::decode::Decoding;
use advisor_ingest::{IngestError, Read, Reading};
use advisor_model::{CaptureMeta, Format, RawCapture, Warning};
use polars::prelude::*;

use crate::capture::Capture;
use crate::derive;
use crate::frame::{self, TARGET, TIME, polars_error};
use crate::parts::TargetRows;
use crate::perfmon;

/// A capture's values, out of its text: nothing in it borrows the file.
pub(crate) struct Parsed {
    format: Format,
    decoding: Decoding,
    values: Values,
}

enum Values {
    Table(RawCapture),
    Csv(perfmon::Parsed),
}

/// Takes the values out of the text; the text is dropped on return.
pub(crate) fn parse(file: &str, reading: Reading<'_>) -> Result<Parsed, IngestError> {
    let Reading { format, decoding, read } = reading;
    let values = match read {
        Read::Table(raw) => Values::Table(raw),
        Read::Csv { plan, text } => Values::Csv(perfmon::parse(file, plan, &text)?),
    };
    Ok(Parsed { format, decoding, values })
}

/// Samples in plain columns made by advisor itself (snapshots joined across files): UTF-8,
/// nothing to say of a text.
pub(crate) fn table(raw: RawCapture) -> Parsed {
    let decoding = Decoding { encoding: encoding_rs::UTF_8, had_errors: false };
    Parsed { format: raw.meta.format, decoding, values: Values::Table(raw) }
}

/// A PerfMon CSV read in pieces from its file ([`perfmon::stream`]).
pub(crate) fn streamed(decoding: Decoding, parsed: perfmon::Parsed) -> Parsed {
    Parsed { format: advisor_ingest::perfmon::FORMAT, decoding, values: Values::Csv(parsed) }
}

/// The canonical frame and the capture.
pub(crate) fn capture(file: &str, parsed: Parsed) -> Result<Capture, IngestError> {
    let Parsed { format, decoding, values } = parsed;
    // The PerfMon reader drops every value that is not finite (`perfmon::convert_one`).
    let finite = matches!(values, Values::Csv(_));
    let (meta, frame, since_boot) = match values {
        Values::Table(raw) => {
            let frame = frame::from_table(&raw.table).map_err(|e| polars_error(file, e))?;
            let since_boot = match &raw.since_boot {
                Some(t) => Some(frame::from_table(t).map_err(|e| polars_error(file, e))?),
                None => None,
            };
            drop(raw.table);
            (raw.meta, frame, since_boot)
        }
        Values::Csv(parsed) => {
            let (meta, frame) = perfmon::finish(file, parsed)?;
            (meta, frame, None)
        }
    };
    finish(file, format, decoding, (meta, finite), frame, since_boot)
}

/// Notes on the text and the per-target row index (the derived metrics are worked out
/// per target when asked, or put in the frame when it has no index: [`crate::derive`]).
fn finish(
    file: &str,
    format: Format,
    decoding: Decoding,
    (mut meta, finite): (CaptureMeta, bool),
    frame: DataFrame,
    since_boot: Option<DataFrame>,
) -> Result<Capture, IngestError> {
    decoding.annotate(&mut meta);
    bound_names(&mut meta);
    let benchmark = format.is_benchmark();
    let (mut frame, index) =
        stacked(frame, meta.targets.len(), benchmark, finite).map_err(|e| polars_error(file, e))?;
    if index.is_none() {
        frame = derive::materialize(frame, benchmark).map_err(|e| polars_error(file, e))?;
    }
    let since_boot = match since_boot {
        Some(f) => Some(derive::materialize(f, false).map_err(|e| polars_error(file, e))?),
        None => None,
    };
    Ok(Capture { file: file.to_owned(), meta, frame, since_boot, index })
}

/// Target and host names as a report echoes them: at most [`advisor_model::MAX_ECHO`]
/// characters (a capture whose instance name is a megabyte must not make every table and
/// chart of the report carry it). Targets are told apart by their index, not their name, so
/// the data stays whole; a warning says how many names were shortened.
fn bound_names(meta: &mut CaptureMeta) {
    let mut cut = 0u64;
    for t in &mut meta.targets {
        if let std::borrow::Cow::Owned(b) = advisor_model::bounded(&t.name) {
            t.name = b;
            cut += 1;
        }
        if let Some(h) = &mut t.host
            && let std::borrow::Cow::Owned(b) = advisor_model::bounded(h)
        {
            *h = b;
            cut += 1;
        }
    }
    if cut > 0 {
        let mut w = Warning::new(
            format!(
                "names longer than {} characters are shown as their first {} and an ellipsis",
                advisor_model::MAX_ECHO,
                advisor_model::MAX_ECHO - 1
            ),
            None,
        );
        w.count = cut;
        meta.warnings.push(w);
    }
}

/// The frame stacked by target, each target's rows in time order (a missing time first),
/// and its parts. The PerfMon reader builds its frame so; the others (iostat interleaves
/// its devices by time) are sorted once, stably, which also leaves one chunk per column.
pub(crate) fn stacked(
    frame: DataFrame,
    targets: usize,
    benchmark: bool,
    finite: bool,
) -> PolarsResult<(DataFrame, Option<TargetRows>)> {
    if let Some(index) = TargetRows::of(&frame, targets, benchmark, finite) {
        return Ok((frame, Some(index)));
    }
    let frame = frame.sort(
        [TARGET, TIME],
        SortMultipleOptions::default().with_nulls_last(false).with_maintain_order(true),
    )?;
    let index = TargetRows::of(&frame, targets, benchmark, finite);
    Ok((frame, index))
}
