//! The bad-input corpus (fixtures/invalid/): what a user sees for every capture
//! that went wrong on a customer's machine (cut off, re-encoded, re-saved by a spreadsheet,
//! a hostile archive (zip bomb, traversal, link), binary, huge, numerically broken), for the topology with 1,000 disks and for the
//! rule that divides by zero. Each is snapshotted (exit code, stdout, stderr) in
//! tests/it/snapshots/invalid/. Refusals exit 2 and name the file; inputs that are read with
//! warnings exit 0 and say, with the line or column, what was off.

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // tests fail by panicking

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::*;

const DIR: &str = "fixtures/invalid";

fn settings() -> insta::internals::SettingsBindDropGuard {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo().join("tests/it/snapshots/invalid"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind_to_scope()
}

fn transcript(args: &[&str]) -> (i32, String) {
    let out = advisor(&repo(), args);
    let code = out.status.code().unwrap_or(-1);
    let text = format!(
        "$ advisor {}\nexit: {code}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (code, text)
}

/// The inputs `advisor inspect` is run on: every file of the corpus but its notes, its
/// generator, the topology, the rule, and the fuzzers' finds in `fuzz/` (tested by the
/// owning crates).
fn captures() -> Vec<String> {
    files_below(&repo().join(DIR))
        .into_iter()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|n| {
            !(n.starts_with("fuzz/")
                || n.ends_with(".md")
                || n.ends_with(".py")
                || n.ends_with(".rule")
                || n.ends_with(".toml"))
        })
        .collect()
}

/// What each capture must give: refused (exit 2) or read with a warning (exit 0, and a
/// warning or note saying what was wrong). A file added to the corpus must be added here.
fn expected(name: &str) -> (i32, &'static str) {
    match name {
        "binary-garbage.bin" => (2, "binary data"),
        "bundle-zip-bomb.zip" => {
            (2, "entry `perfmon.csv`: the archive unpacks to more than 200 times")
        }
        "bundle-traversal.zip" | "bundle-traversal.tar.gz" => {
            (2, "entry `../../etc/cron.d/x`: a `..` component")
        }
        "bundle-symlink.zip" | "bundle-symlink.tar.gz" => (2, "entry `imds.json`: a symbolic link"),
        "azure-monitor-error.json" => {
            (2, "Azure returned an error instead of metrics: ResourceNotFound")
        }
        "empty.csv" => (2, "the file is empty"),
        "fio-job-error-no-io.json" => (2, "fio wrote no results"),
        "fio-truncated-mid-document.json" => (2, "the JSON stops before its end"),
        "fio-zero-runtime.json" => (2, "ran for 0 ms"),
        "perfmon-header-only.csv" => (2, "a header but no data lines"),
        "perfmon-stand-in.blg" => (2, "relog capture.blg -f csv"),
        "single-line-3mb.csv" => (2, "a header but no data lines"),
        "sar-binary-sa24" => (2, "LC_ALL=C sar -A -f /var/log/sa/saDD"),
        "sar-n-tcp-etcp.txt" => (2, "this is sar text, but it holds no block-device statistics"),
        "sar-u-cpu-only.txt" => (2, "only CPU (`%idle`, line 3): capture the disks with"),
        "sadf-j-truncated.json" => (2, "the JSON stops before its end"),
        "sadf-x-truncated.xml" => (2, "attribute value not closed"),
        "diskspd-zero-duration.txt" | "diskspd-zero-duration.xml" => {
            (0, "no usable test time; IOPS and MB/s cannot be computed")
        }
        "perfmon-duplicate-timestamps.csv" => (0, "repeat the time stamp of the line before"),
        "perfmon-excel-resave-de.csv" => (0, "re-saved by a spreadsheet"),
        "sql-file-stats-localized-counters.csv" => {
            (2, "4:100: num_of_bytes_read: \"622.854.144.000\" is not a whole number")
        }
        "sql-file-stats-for-json-cut.json" => (2, "1:1500: the JSON ends early"),
        "sql-file-stats-restarted.csv" => {
            (0, "13:1: a file's counters went back between two snapshots")
        }
        "perfmon-nan-inf-negative.csv" => (0, "dropped values that cannot be right"),
        "perfmon-non-monotonic-time.csv" => (0, "the time goes backwards"),
        "perfmon-truncated-mid-row.csv" => (0, "last line truncated"),
        "perfmon-utf16le-no-bom.csv" => (0, "text encoding: UTF-16LE"),
        other => panic!("{other}: add it to expected() in tests/it/invalid.rs and to the README"),
    }
}

#[test]
fn every_bad_capture_is_refused_or_read_with_a_warning() {
    let _guard = settings();
    let mut produced = vec![
        "analyze__topology-1000-disks.toml".to_owned(),
        "rules-check__divide-by-zero.rule".to_owned(),
        "analyze__divide-by-zero.rule".to_owned(),
    ];
    let readme = std::fs::read_to_string(repo().join(DIR).join("README.md")).expect("README");
    for name in captures() {
        let file = format!("{DIR}/{name}");
        let start = Instant::now();
        let (code, text) = transcript(&["inspect", &file]);
        // Never hang: the largest (3 MB on one line) takes well under a second in release.
        assert!(start.elapsed() < Duration::from_secs(60), "{name} took {:?}", start.elapsed());
        let (want_code, says) = expected(&name);
        assert_eq!(code, want_code, "{name}:\n{text}");
        assert!(text.contains(says), "{name} should say `{says}`:\n{text}");
        assert!(text.contains(&file), "{name}: the message names the file:\n{text}");
        assert!(!text.contains("panicked"), "{name}:\n{text}");
        assert!(readme.contains(&format!("`{name}`")), "{name}: no row in {DIR}/README.md");
        let snap = format!("inspect__{name}");
        insta::assert_snapshot!(snap.clone(), text);
        produced.push(snap);
    }
    assert_no_orphans(&repo().join("tests/it/snapshots/invalid"), &produced);
}

#[test]
fn a_topology_with_1000_disks_is_read_and_warned_about() {
    let _guard = settings();
    let topo = format!("{DIR}/topology-1000-disks.toml");
    let capture = "fixtures/captures/perfmon-csv/duplicate-columns_physicaldisk_utc_15s.csv";
    let start = Instant::now();
    let (code, text) = transcript(&["analyze", capture, "--topology", &topo]);
    assert!(start.elapsed() < Duration::from_secs(60), "took {:?}", start.elapsed());
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("1000 data disks described, but Standard_DS13_v2 attaches at most 32"));
    // 999 of the disks are in no capture: one line each. The snapshot keeps the first
    // three of those lines and counts the rest, so it stays readable.
    let unmentioned =
        |l: &str| l.contains("is described in the topology but no capture mentions it");
    let n = text.lines().filter(|l| unmentioned(l)).count();
    assert_eq!(n, 1000, "{text}");
    let mut shown = 0;
    let mut kept = String::new();
    for line in text.lines() {
        if unmentioned(line) {
            shown += 1;
            if shown > 3 {
                if shown == n {
                    kept.push_str(&format!("[... {} more such lines]\n", n - 3));
                }
                continue;
            }
        }
        kept.push_str(line);
        kept.push('\n');
    }
    insta::assert_snapshot!("analyze__topology-1000-disks.toml", kept);
}

#[test]
fn a_rule_dividing_by_zero_checks_clean_and_is_not_evaluated() {
    let _guard = settings();
    let (code, text) = transcript(&["rules", "check", DIR]);
    assert_eq!(code, 0, "{text}");
    insta::assert_snapshot!("rules-check__divide-by-zero.rule", text);

    let capture = "fixtures/captures/iostat-json/iostat_xt_json_1_3.json";
    let (code, text) = transcript(&["analyze", capture, "--rules", DIR]);
    assert_eq!(code, 0, "{text}");
    let reason = "division by zero: \\`baseline\\` is 0 in \\`p95(iops) / baseline\\`";
    let line = text
        .lines()
        .find(|l| l.contains("`divide-by-zero`"))
        .unwrap_or_else(|| panic!("divide-by-zero is not listed:\n{text}"));
    assert!(line.contains(reason), "{line}");
    assert!(!text.contains("ran at"), "the rule fired on a division by zero:\n{text}");
    // Only what concerns this rule: the rest of the report follows the shipped ruleset.
    let kept: Vec<&str> = text
        .lines()
        .take_while(|l| !l.starts_with("--- stdout"))
        .chain(text.lines().filter(|l| l.contains("divide-by-zero") || l.starts_with("--- ")))
        .collect();
    insta::assert_snapshot!("analyze__divide-by-zero.rule", kept.join("\n"));
}

#[test]
fn a_bad_capture_beside_a_good_one_loses_nothing_already_read() {
    // analyze reads every input it can and says which it could not.
    let good = "fixtures/captures/iostat-json/iostat_xt_json_1_3.json";
    for bad in ["empty.csv", "bundle-traversal.zip", "fio-truncated-mid-document.json"] {
        let bad = format!("{DIR}/{bad}");
        let (code, text) = transcript(&["inspect", &bad, good]);
        assert_eq!(code, 2, "{text}");
        assert!(text.contains("iostat-json"), "{bad}: the good capture is still shown:\n{text}");
        assert!(Path::new(&repo().join(&bad)).is_file());
    }
}
