//! Reading captures, up to (not including) the polars frame.
//!
//! [`FORMATS`] is the reader registry: every format advisor reads, and the files it refuses,
//! in one table. [`read`] detects a file's format from its bytes, decodes it and runs the
//! format's reader, which returns what it read ([`Read`]): iostat, DiskSpd and fio samples in
//! plain columns; a PerfMon CSV's header and column plan, whose data lines are scanned
//! here ([`perfmon::scan::Scanner`]) and whose values `advisor-normalize` parses. A PerfMon
//! file is read a piece at a time by [`perfmon::stream`], which detects it once and gives
//! its lines scanned; reading flows one way, from here to the frame's builder. Nothing here
//! needs polars, so the readers are tested and fuzzed without it.

pub mod azure_monitor;
pub mod bundle;
pub mod decode;
pub mod diskspd;
mod error;
pub mod file;
pub mod fio;
mod formats;
pub mod iostat;
pub mod perfmon;
mod refusals;
pub mod sar;
pub mod snapshots;
pub mod sql_file_stats;

pub use advisor_model::RawCapture;
pub use error::{ErrorKind, IngestError};
pub use formats::{
    CaptureFormat, Entry, FORMATS, HEAD, Head, Read, Reading, Refusal, Sniff, Test, detect, read,
    read_as, read_as_with, read_with, reader, readers, sniff, supported, supported_formats,
};
