//! sysstat `sar` text: `sar -A`, `sar -d`, `sar -dp`, `sar -u` (the daily `sar/sarDD` files of
//! a sosreport), read for the block-device and CPU sections.
//!
//! Columns are mapped by name with iostat's table (`iostat::columns`), plus sar's own old
//! names (`rd_sec/s`, `wr_sec/s` in 512-byte sectors). The other sections of `sar -A`
//! (network, memory, ...) are skipped. Times are the banner's date and the line's time
//! (24 h or 12 h `AM`/`PM`); the date moves to the next day when the time goes back
//! (a file can hold several days). `Average:` lines are skipped, `LINUX RESTART` markers noted.

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
        Some("sar text (sar -A, sar -d -p -u)")
    }

    fn sniff(&self, head: &Head<'_>) -> Sniff {
        if text::is_sar(head.text) { Sniff::Yes } else { Sniff::No }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        read_text(file, &text).map(Read::Table)
    }
}

/// Reads `sar` text output.
pub fn read_text(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    text::read(file, text)
}
