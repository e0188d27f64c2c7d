//! The engine crate's integration tests.
//! One test binary for the crate: each former test file is a module (linking one
//! executable instead of one per file).

mod analyze;
mod sessions;
