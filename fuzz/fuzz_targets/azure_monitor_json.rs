//! The AzureMonitorJson reader on any bytes, whatever detection would say: decoded as the tool
//! decodes files, read with `read_as`; when that succeeds, the same bytes go the whole
//! way (`read_bytes`: detection, the reader, the canonical frame and its derived columns).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _read = advisor_ingest::read_as(&advisor_ingest::azure_monitor::AzureMonitorJson, "fuzz", data);
    #[cfg(feature = "normalize")]
    if _read.is_ok() {
        let _ = advisor_normalize::read_bytes("fuzz", data);
    }
});
