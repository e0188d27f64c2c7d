//! Microsoft DiskSpd readers: `-Rxml` results and text results (Windows and the Linux port).

use advisor_model::RawCapture;

use crate::IngestError;

/// Reads DiskSpd XML results.
pub fn read_xml(file: &str, _text: &str) -> Result<RawCapture, IngestError> {
    Err(IngestError::invalid(file, None, "the DiskSpd XML reader is not written yet"))
}

/// Reads DiskSpd text results.
pub fn read_text(file: &str, _text: &str) -> Result<RawCapture, IngestError> {
    Err(IngestError::invalid(file, None, "the DiskSpd text reader is not written yet"))
}
