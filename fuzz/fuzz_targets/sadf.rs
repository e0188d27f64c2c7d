//! The three sadf readers (`sadf -d`, `-j`, `-x`) on any bytes, whatever detection would say:
//! decoded as the tool decodes files, read with `read_as`; when one succeeds, the same bytes
//! go the whole way (`read_bytes`: detection, the reader, the canonical frame).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    use advisor_ingest::sar::{SADF_CSV, SADF_JSON, SADF_XML};
    let mut _any = false;
    for r in [&SADF_CSV, &SADF_JSON, &SADF_XML] {
        _any |= advisor_ingest::read_as(r, "fuzz", data).is_ok();
    }
    #[cfg(feature = "normalize")]
    if _any {
        let _ = advisor_normalize::read_bytes("fuzz", data);
    }
});
