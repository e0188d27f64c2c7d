//! Format detection and the readers that need no polars.
//!
//! [`sniff`] tells a capture's format from its bytes; [`read_raw`] reads iostat (text and
//! JSON), DiskSpd (XML and text) and fio JSON into plain [`RawCapture`]s. PerfMon CSV is
//! read with polars' CSV reader in `advisor-normalize`; its header grammar and counter map
//! live here in [`perfmon`] so they can be tested and fuzzed without polars.

pub mod decode;
pub mod diskspd;
mod error;
pub mod fio;
pub mod iostat;
pub mod perfmon;
mod sniff;

pub use advisor_model::RawCapture;
pub use error::{ErrorKind, IngestError, SUPPORTED};
pub use sniff::sniff;

use advisor_model::Format;

/// Reads a capture of a format that needs no polars. `text` is the decoded file.
pub fn read_raw(file: &str, format: Format, text: &str) -> Result<RawCapture, IngestError> {
    match format {
        Format::IostatText => iostat::read_text(file, text),
        Format::IostatJson => iostat::read_json(file, text),
        Format::DiskspdXml => diskspd::read_xml(file, text),
        Format::DiskspdText => diskspd::read_text(file, text),
        Format::FioJson => fio::read(file, text),
        Format::PerfmonCsv => Err(IngestError::invalid(
            file,
            None,
            "PerfMon CSV is read by advisor-normalize (polars), not by read_raw",
        )),
    }
}
