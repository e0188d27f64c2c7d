//! The SqlFileStats reader (SQL Server's file statistics, CSV or FOR JSON) on any bytes,
//! whatever detection would say: decoded as the tool decodes files, read with `read_as`; when
//! that succeeds, the same bytes go the whole way (`read_bytes`: detection, the reader, the
//! canonical frame and its derived columns), and two copies are joined as snapshots of one
//! source given in two files.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _read = advisor_ingest::read_as(&advisor_ingest::sql_file_stats::SqlFileStats, "fuzz", data);
    #[cfg(feature = "normalize")]
    if _read.is_ok() {
        if let Ok(c) = advisor_normalize::read_bytes("fuzz", data) {
            if let Ok(d) = advisor_normalize::read_bytes("fuzz2", data) {
                let _ = advisor_normalize::join_snapshots(vec![c, d]);
            }
        }
    }
});
