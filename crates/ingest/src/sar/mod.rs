//! sysstat `sar` text: `sar -A`, `sar -d`, `sar -dp`, `sar -u` (the daily `sar/sarDD` files of
//! a sosreport), read for the block-device and CPU sections.
//!
//! Columns are mapped by name with iostat's table (`iostat::columns`), plus sar's own old
//! names (`rd_sec/s`, `wr_sec/s` in 512-byte sectors). The other sections of `sar -A`
//! (network, memory, ...) are skipped. Times are the banner's date and the line's time
//! (24 h or 12 h `AM`/`PM`); the date moves to the next day when the time goes back
//! (a file can hold several days). `Average:` lines are skipped, `LINUX RESTART` markers noted.

mod sadf;
mod text;

use std::borrow::Cow;

use advisor_model::{Format, RawCapture};

use crate::IngestError;
use crate::formats::{CaptureFormat, Head, Read, Sniff};

pub const FORMAT: Format = Format::new("sar-text", "sar text (sar -A, sar -d -p -u)", false);

/// sysstat `sar` text output.
#[derive(Debug)]
pub struct SarText;

impl CaptureFormat for SarText {
    fn format(&self) -> Format {
        FORMAT
    }

    fn supported(&self) -> Option<&'static str> {
        Some("sar text (sar -A, sar -d -p -u) and sadf -d, -j or -x output (sadf saDD -- -d -p -u)")
    }

    fn sniff(&self, head: &Head<'_>) -> Sniff {
        if text::is_sar(head.text) { Sniff::Yes } else { Sniff::No }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        read_text(file, &text).map(Read::Table)
    }
}

pub use sadf::{CSV as SADF_CSV_FORMAT, JSON as SADF_JSON_FORMAT, XML as SADF_XML_FORMAT};

// The sadf readers are named in the "Supported: ..." sentence by sar text's phrase.

/// `sadf -d`: sar data `;`-separated.
#[derive(Debug)]
pub struct SadfCsv;

impl CaptureFormat for SadfCsv {
    fn format(&self) -> Format {
        sadf::CSV
    }

    fn supported(&self) -> Option<&'static str> {
        None
    }

    fn sniff(&self, head: &Head<'_>) -> Sniff {
        if sadf::is_csv(head.first_line()) { Sniff::Yes } else { Sniff::No }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        sadf::read_csv(file, &text).map(Read::Table)
    }
}

/// `sadf -j`: sar data as JSON.
#[derive(Debug)]
pub struct SadfJson;

impl CaptureFormat for SadfJson {
    fn format(&self) -> Format {
        sadf::JSON
    }

    fn supported(&self) -> Option<&'static str> {
        None
    }

    fn sniff(&self, head: &Head<'_>) -> Sniff {
        if sadf::is_json(head.text) { Sniff::Yes } else { Sniff::No }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        sadf::read_json(file, &text).map(Read::Table)
    }
}

/// `sadf -x`: sar data as XML.
#[derive(Debug)]
pub struct SadfXml;

impl CaptureFormat for SadfXml {
    fn format(&self) -> Format {
        sadf::XML
    }

    fn supported(&self) -> Option<&'static str> {
        None
    }

    fn sniff(&self, head: &Head<'_>) -> Sniff {
        if sadf::is_xml(head.text) { Sniff::Yes } else { Sniff::No }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        sadf::read_xml(file, &text).map(Read::Table)
    }
}

/// Reads `sar` text output.
pub fn read_text(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    text::read(file, text)
}
