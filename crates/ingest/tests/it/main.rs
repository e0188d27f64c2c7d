//! The ingest crate's integration tests.
//! One test binary for the crate: each former test file is a module (linking one
//! executable instead of one per file).

#[path = "../../../../tests/support/skip.rs"]
mod skip;

mod azure_monitor;
mod bundle;
mod collector_counters;
mod diskspd;
mod fio;
mod hardening;
mod iostat;
mod iostat_json_golden;
mod sar;
mod sql_file_stats;
