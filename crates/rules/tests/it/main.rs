//! The rules crate's integration tests.
//! One test binary for the crate: each former test file is a module (linking one
//! executable instead of one per file).

mod checker;
mod diagnostics;
mod fixtures;
mod inferred;
mod numeric_safety;
mod reference_eval;
mod registry;
mod roundtrip;
