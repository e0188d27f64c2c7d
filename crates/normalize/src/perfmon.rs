//! PerfMon CSV, read with polars' CSV reader.

use advisor_model::CaptureMeta;
use polars::prelude::DataFrame;

use advisor_ingest::IngestError;

/// Reads a decoded PerfMon CSV into the canonical frame.
pub(crate) fn read(file: &str, _text: &str) -> Result<(CaptureMeta, DataFrame), IngestError> {
    Err(IngestError::invalid(file, None, "the PerfMon CSV reader is not written yet"))
}
