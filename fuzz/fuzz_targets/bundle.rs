//! Bundles on any bytes: an archive opened within the default limits (never a panic, never
//! more than the limits in memory), and every member sorted as `analyze` sorts it.
#![no_main]

use advisor_ingest::bundle::{Limits, classify, open_archive};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(members) = open_archive("fuzz.zip", data, &Limits::default()) {
        for m in members {
            let _ = classify(&m.path, &m.bytes);
        }
    }
});
