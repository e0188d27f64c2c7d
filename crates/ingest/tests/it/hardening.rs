//! Regression tests (hardening) for the polars-free readers: what a cut-off or
//! zero-runtime fio file says, and fuzz-found inputs (fixtures/invalid/fuzz/, when any).

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)]

use std::path::Path;

use advisor_ingest::{CaptureFormat, diskspd, fio, iostat, read_as};
use advisor_model::Location;

fn fixture(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn a_fio_json_cut_off_says_so_with_the_place() {
    let full = fixture("captures/fio-json/fio_4k_randwrite_qd1_psync_sync1.json");
    let cut = &full[..full.find("\"write\" : {").unwrap() + 200];
    let e = fio::read("f.json", cut).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("the JSON stops before its end"), "{text}");
    assert!(matches!(e.location, Some(Location::Line { .. })), "{e:?}");
}

#[test]
fn a_fio_json_of_zero_runtime_says_there_are_no_rates() {
    let text = fixture("invalid/fio-zero-runtime.json");
    let e = fio::read("f.json", &text).unwrap_err().to_string();
    assert!(e.contains("each ran for 0 ms or did no IO"), "{e}");
    assert!(e.contains("--runtime="), "{e}");
}

/// Every input the fuzzers found (named `<format>-<what>`) reads without panicking.
#[test]
fn fuzz_finds_do_not_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/invalid/fuzz");
    let Ok(entries) = std::fs::read_dir(&dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let reader: &dyn CaptureFormat = match name.split('-').next() {
            Some("iostat_text") => &iostat::IostatText,
            Some("iostat_json") => &iostat::IostatJson,
            Some("diskspd_xml") => &diskspd::DiskspdXml,
            Some("diskspd_text") => &diskspd::DiskspdText,
            Some("fio_json") => &fio::FioJson,
            _ => continue,
        };
        let bytes = std::fs::read(e.path()).unwrap();
        let _ = read_as(reader, &name, &bytes);
    }
}
