//! The FioJson reader on any bytes, whatever detection would say: decoded as the tool
//! decodes files, read with `read_raw`; when that succeeds, the same bytes go the whole
//! way (`read_bytes`: detection, the reader, the canonical frame and its derived columns).
#![no_main]

use advisor_model::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let decoded = advisor_ingest::decode::decode(data);
    let _read = advisor_ingest::read_raw("fuzz", Format::FioJson, &decoded.text);
    #[cfg(feature = "normalize")]
    if _read.is_ok() {
        let _ = advisor_normalize::read_bytes("fuzz", data);
    }
});
