//! `advisor inspect` on the project's own fixtures (one or more per format and variant):
//! what a user sees, snapshotted, plus exit codes and the JSON form.

use crate::common;

use std::path::Path;

use common::*;

#[test]
fn every_fixture_capture_is_read() {
    let root = repo();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root.join("tests/it/snapshots/fixtures"));
    settings.set_prepend_module_to_snapshot(false);
    let _guard = settings.bind_to_scope();
    let captures = root.join("fixtures/captures");
    let mut formats = std::collections::BTreeSet::new();
    let mut produced = Vec::new();
    for rel in files_below(&captures) {
        let name = rel.to_string_lossy().into_owned();
        if name.ends_with(".md") || name.ends_with(".py") {
            continue;
        }
        let file = Path::new("fixtures/captures").join(&rel);
        let (code, text) = inspect_transcript(&root, &file.to_string_lossy());
        assert_eq!(code, 0, "{name}:\n{text}");
        assert!(!text.contains("  metrics:   none"), "{name}: no metrics\n{text}");
        if let Some(dir) = rel.iter().next() {
            formats.insert(dir.to_string_lossy().into_owned());
        }
        produced.push(snap_name(&rel));
        insta::assert_snapshot!(snap_name(&rel), text);
    }
    assert_no_orphans(&root.join("tests/it/snapshots/fixtures"), &produced);
    // The project's own fixtures cover every format without ../shared.
    for f in [
        "perfmon-csv",
        "iostat-text",
        "iostat-json",
        "diskspd-xml",
        "diskspd-text",
        "fio-json",
        "azure-monitor-json",
        "sar-text",
        "sql-file-stats",
    ] {
        assert!(formats.contains(f), "no fixture for {f}");
    }
}

#[test]
fn json_output_is_an_array_of_inspections() {
    let root = repo();
    let dir = root.join("fixtures/captures/fio-json");
    let first = files_below(&dir).into_iter().find(|p| p.extension().is_some_and(|e| e == "json"));
    let file = dir.join(first.expect("a fio fixture"));
    let out = advisor(&root, &["inspect", "--json", &file.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let first = &v.as_array().expect("an array")[0];
    assert_eq!(first["format"], "fio-json");
    assert!(!first["targets"].as_array().expect("targets").is_empty());
    assert!(first["metrics"].as_array().expect("metrics").iter().any(|m| m == "iops"));
}

#[test]
fn unreadable_inputs_exit_2_and_keep_what_was_read() {
    let root = repo();
    let tmp = std::env::temp_dir().join(format!("advisor-inspect-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("tmp");
    let zip = tmp.join("capture.csv");
    std::fs::write(&zip, b"PK\x03\x04\x14\x00\x00\x00\x08\x00").expect("write");
    let good = root.join("fixtures/captures/iostat-json");
    let good = good.join(
        files_below(&good)
            .into_iter()
            .find(|p| p.extension().is_some_and(|e| e == "json"))
            .expect("fixture"),
    );
    let out = advisor(
        &root,
        &["inspect", &zip.to_string_lossy(), &good.to_string_lossy(), "/nonexistent/x.csv"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stdout.contains("iostat-json"), "the readable capture is still shown:\n{stdout}");
    // A zip by its first bytes is opened as a bundle, whatever its name: this one is cut off.
    assert!(stderr.contains("capture.csv: not a readable zip archive"), "{stderr}");
    assert!(stderr.contains("/nonexistent/x.csv: cannot read the file"), "{stderr}");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn usage_errors_exit_2() {
    let out = advisor(&repo(), &["inspect"]);
    assert_eq!(out.status.code(), Some(2));
    let out = advisor(&repo(), &["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}
