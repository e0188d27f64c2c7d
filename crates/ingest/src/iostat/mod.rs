//! sysstat `iostat` readers: text (every column layout since sysstat 10) and `-o JSON`.

use advisor_model::RawCapture;

use crate::IngestError;

/// Reads `iostat` text output.
pub fn read_text(file: &str, _text: &str) -> Result<RawCapture, IngestError> {
    Err(IngestError::invalid(file, None, "the iostat text reader is not written yet"))
}

/// Reads `iostat -o JSON` output.
pub fn read_json(file: &str, _text: &str) -> Result<RawCapture, IngestError> {
    Err(IngestError::invalid(file, None, "the iostat JSON reader is not written yet"))
}
