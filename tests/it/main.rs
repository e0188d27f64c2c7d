//! The end-to-end tests of the `advisor` command line: the real binary on fixtures and
//! captures, the service over loopback, the builds, and the repository's own rules
//! (`architecture`). One test binary with a module per subject, linked once instead of once
//! per file. The long or lonely ones are `#[ignore]`d and run by `.ci/run` with a filter:
//! `cargo test -p advisor-cli --test it builds:: -- --ignored` and the same with `soak::`.

#[path = "../support/skip.rs"]
mod skip;

mod common;

mod analyze;
mod architecture;
mod batch;
mod builds;
mod bundle;
mod compare;
mod corpus;
mod faults;
mod inspect;
mod invalid;
mod locales;
mod mcp;
mod platform;
mod recommend;
mod rules;
mod serve;
mod service;
mod soak;
mod topology;
mod truncation;
