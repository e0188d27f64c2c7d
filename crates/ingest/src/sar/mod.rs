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

/// One of sadf's renderings: its format, how it is recognised, its reader. The three
/// differ only in those, so they are one type; they are named in the "Supported: ..."
/// sentence by sar text's phrase.
pub struct Sadf {
    format: Format,
    sniff: fn(&Head<'_>) -> bool,
    read: fn(&str, &str) -> Result<RawCapture, IngestError>,
}

impl std::fmt::Debug for Sadf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sadf({})", self.format.id())
    }
}

/// `sadf -d`: sar data `;`-separated.
pub const SADF_CSV: Sadf =
    Sadf { format: sadf::CSV, sniff: |h| sadf::is_csv(h.first_line()), read: sadf::read_csv };
/// `sadf -j`: sar data as JSON.
pub const SADF_JSON: Sadf =
    Sadf { format: sadf::JSON, sniff: |h| sadf::is_json(h.text), read: sadf::read_json };
/// `sadf -x`: sar data as XML.
pub const SADF_XML: Sadf =
    Sadf { format: sadf::XML, sniff: |h| sadf::is_xml(h.text), read: sadf::read_xml };

impl CaptureFormat for Sadf {
    fn format(&self) -> Format {
        self.format
    }

    fn supported(&self) -> Option<&'static str> {
        None
    }

    fn sniff(&self, head: &Head<'_>) -> Sniff {
        if (self.sniff)(head) { Sniff::Yes } else { Sniff::No }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        (self.read)(file, &text).map(Read::Table)
    }
}

/// Reads `sar` text output.
pub fn read_text(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    text::read(file, text)
}
