//! What a test does when the real check cannot run here (no `../shared` beside the clone, no
//! browser, no `iostat`): it says so and passes, except where `ADVISOR_TESTS_STRICT=1` (CI
//! sets it), where a skip fails, so CI checks everything it claims to. Each crate's test binary
//! (`tests/it/main.rs`) includes this file once (`#[path = ...] mod skip;`).

/// Skips the rest of a test with `why`, or fails it under `ADVISOR_TESTS_STRICT=1`.
#[track_caller]
#[allow(clippy::panic)]
pub(crate) fn skip(why: &str) {
    if std::env::var_os("ADVISOR_TESTS_STRICT").is_some_and(|v| v == "1") {
        panic!(
            "{why}: the test cannot run its check, and ADVISOR_TESTS_STRICT=1 makes that a failure"
        );
    }
    eprintln!("skipped: {why}");
}
