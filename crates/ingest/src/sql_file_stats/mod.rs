//! SQL Server's file statistics: `sys.dm_io_virtual_file_stats` (per database file: reads,
//! writes, bytes, the milliseconds users waited, `sample_ms`), usually joined with
//! `sys.master_files` for the file's path and type, as DBAs attach them to tickets.
//!
//! Shapes (columns and types from Microsoft's pages, `fixtures/captures/sql-file-stats/README.md`):
//! - CSV as SSMS's "Save Results As" writes it, with a header row or without one (SSMS's
//!   default: then the columns must be in the order of advisor's query, [`QUERY_COLUMNS`]),
//!   `NULL` for nulls; as `Export-Csv` writes it (a `#TYPE System.Data.DataRow` line in
//!   Windows PowerShell, every cell quoted, the DataRow's own properties after the columns;
//!   `;` with `-UseCulture` in locales whose list separator it is); several exports one after
//!   the other (a header or `#TYPE` line again starts the next snapshot).
//! - JSON as `FOR JSON PATH` or `AUTO` writes it (an array of objects; `AUTO` nests the
//!   joined table's columns in an array under its alias; `ROOT('x')` wraps the array in an
//!   object; NULLs left out), several documents one after the other, and as SSMS saves it
//!   from the grid: under the column name `JSON_F52E2B61-18A1-11d1-B105-00805F49916B`, cut
//!   into rows of 2,033 characters.
//!
//! The counters are cumulative since the instance started. Rows are grouped into snapshots
//! (a file seen again starts the next one); two snapshots or more give, per file, the rates
//! over each interval (`sample_ms` differences, or the sample time's when `sample_ms`
//! wrapped) and the average latency and IO size of the operations in it; one snapshot gives
//! the averages since SQL Server started, said so (`since_boot_only`), and keeps its
//! counters ([`CaptureMeta::snapshot`]) so that a later snapshot in another file gives the
//! rates between the two.

mod csv;
mod json;
mod rows;
mod time;

use std::borrow::Cow;

use advisor_model::{Format, RawCapture};

use crate::IngestError;
use crate::formats::{CaptureFormat, Head, Read, Sniff};

pub const FORMAT: Format = Format::new(
    "sql-file-stats",
    "SQL Server file statistics (sys.dm_io_virtual_file_stats with sys.master_files: CSV or FOR JSON)",
    false,
);

/// The columns of advisor's query, in its order: what a CSV saved without a header row
/// (SSMS's default) must hold. The query (docs/formats.md, "SQL Server file statistics: the query"):
///
/// ```sql
/// SELECT SYSDATETIME() AS sample_time, @@SERVERNAME AS server_name,
///        DB_NAME(vfs.database_id) AS database_name, vfs.database_id, vfs.file_id,
///        mf.type_desc, mf.name AS logical_name, mf.physical_name, vfs.sample_ms,
///        vfs.num_of_reads, vfs.num_of_bytes_read, vfs.io_stall_read_ms,
///        vfs.num_of_writes, vfs.num_of_bytes_written, vfs.io_stall_write_ms,
///        vfs.size_on_disk_bytes
/// FROM sys.dm_io_virtual_file_stats(NULL, NULL) AS vfs
/// JOIN sys.master_files AS mf
///   ON mf.database_id = vfs.database_id AND mf.file_id = vfs.file_id;
/// ```
pub const QUERY_COLUMNS: [&str; 16] = [
    "sample_time",
    "server_name",
    "database_name",
    "database_id",
    "file_id",
    "type_desc",
    "logical_name",
    "physical_name",
    "sample_ms",
    "num_of_reads",
    "num_of_bytes_read",
    "io_stall_read_ms",
    "num_of_writes",
    "num_of_bytes_written",
    "io_stall_write_ms",
    "size_on_disk_bytes",
];

/// The column name SSMS gives a `FOR JSON` result.
pub(crate) const SSMS_JSON_COLUMN: &str = "JSON_F52E2B61-18A1-11d1-B105-00805F49916B";

/// SQL Server file statistics, as CSV or `FOR JSON`.
#[derive(Debug)]
pub struct SqlFileStats;

impl CaptureFormat for SqlFileStats {
    fn format(&self) -> Format {
        FORMAT
    }

    fn supported(&self) -> Option<&'static str> {
        Some(
            "SQL Server file statistics (sys.dm_io_virtual_file_stats with sys.master_files, as CSV or FOR JSON)",
        )
    }

    /// JSON or a CSV header naming the DMV's counters (`num_of_reads`, `io_stall...`), or a
    /// CSV row in the order of advisor's query (a file type and a path where it puts them).
    fn sniff(&self, head: &Head<'_>) -> Sniff {
        let first = head.first_line();
        let lower = head.text.to_ascii_lowercase();
        let named = lower.contains("num_of_reads") && lower.contains("io_stall");
        if first.starts_with(SSMS_JSON_COLUMN) {
            return Sniff::Yes;
        }
        if (first.starts_with('[') || first.starts_with('{')) && named {
            return Sniff::Yes;
        }
        if named
            && csv::header_line(head.text)
                .is_some_and(|l| l.to_ascii_lowercase().contains("num_of_reads"))
        {
            return Sniff::Yes;
        }
        if csv::is_query_row(first) {
            return Sniff::Yes;
        }
        Sniff::No
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        read(file, &text).map(Read::Table)
    }
}

/// Reads SQL Server file statistics (CSV or `FOR JSON`).
pub fn read(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    let body = text.trim_start_matches('\u{feff}');
    let lead = body.trim_start();
    let parsed =
        if lead.starts_with('[') || lead.starts_with('{') || lead.starts_with(SSMS_JSON_COLUMN) {
            json::read(file, body)?
        } else {
            csv::read(file, body)?
        };
    rows::build(file, parsed)
}
