//! The real-capture corpus: every file in `../shared/samples` and `../shared/generated`
//! goes through `advisor inspect`, and what a user sees is snapshotted. Captures must be
//! read (exit 0, with targets and metrics); what is not a capture must be refused with
//! exit 2 and a message naming what it looks like.
//!
//! The corpus is read in place (it is not ours to commit). Without `../shared` this test
//! says so and passes; the project's own fixtures (tests/inspect.rs) cover every format.

mod common;

use std::path::Path;

use common::*;

/// Files in the corpus that are not captures and must be refused (exit 2).
fn must_refuse(rel: &Path) -> bool {
    let s = rel.to_string_lossy();
    s.ends_with(".md")
        || s.ends_with(".ini")
        || s.ends_with(".log")
        || s.contains(".normal.")
        || s.contains(".terse.")
        || s.contains("stderr")
        || s.contains("proc_diskstats")
        || s.contains("fio-error-only")
        // Its only job failed with EINVAL before doing any IO: there are no results.
        || s.contains("fio-3.33_seqwrite-1m_macos")
        // Only localized (Russian) Process counters: nothing advisor measures, and names
        // it does not guess; refused with the advice to capture English counter names.
        || s.contains("process-cpu_russian-cp1251")
}

#[test]
fn every_real_capture_is_read_or_refused_clearly() {
    let Some(shared) = shared() else {
        eprintln!("../shared is absent: the real-capture corpus test is skipped");
        return;
    };
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo().join("tests/snapshots/corpus"));
    settings.set_prepend_module_to_snapshot(false);
    let _guard = settings.bind_to_scope();

    let mut failures = Vec::new();
    let mut read = 0;
    let mut produced = Vec::new();
    for top in ["samples", "generated"] {
        for rel in files_below(&shared.join(top)) {
            let rel = Path::new(top).join(rel);
            let file = rel.to_string_lossy().into_owned();
            let (code, text) = inspect_transcript(&shared, &file);
            let refuse = must_refuse(&rel);
            if refuse && code != 2 {
                failures.push(format!("{file}: expected a refusal (exit 2), got exit {code}"));
            }
            if !refuse {
                if code != 0 {
                    failures.push(format!("{file}: expected exit 0, got {code}:\n{text}"));
                } else if !text.contains("  metrics:   ") || text.contains("  metrics:   none") {
                    failures.push(format!("{file}: read but no metrics:\n{text}"));
                } else {
                    read += 1;
                }
            }
            produced.push(snap_name(&rel));
            insta::assert_snapshot!(snap_name(&rel), text);
        }
    }
    assert_no_orphans(&repo().join("tests/snapshots/corpus"), &produced);
    assert!(failures.is_empty(), "{} corpus failures:\n{}", failures.len(), failures.join("\n"));
    assert!(read >= 60, "only {read} captures read");
}
