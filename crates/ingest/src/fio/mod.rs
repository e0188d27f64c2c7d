//! fio `--output-format=json` / `json+` reader (fio 2.1 to 3.x).

use advisor_model::RawCapture;

use crate::IngestError;

/// Reads fio JSON output.
pub fn read(file: &str, _text: &str) -> Result<RawCapture, IngestError> {
    Err(IngestError::invalid(file, None, "the fio reader is not written yet"))
}
