//! PerfMon CSV, the whole way a user's file goes: format detection, decoding, the header
//! grammar and polars' reader, the canonical frame. Seeds start with a PDH-CSV header, so
//! most mutations stay PerfMon.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = advisor_normalize::read_bytes("fuzz.csv", data);
});
