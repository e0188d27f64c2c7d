//! The topology crate's integration tests.
//! One test binary for the crate: each former test file is a module (linking one
//! executable instead of one per file).

#[path = "../../../../tests/support/skip.rs"]
mod skip;

mod catalog;
mod catalog_drift;
mod controller;
mod documents;
mod names;
mod topology;
