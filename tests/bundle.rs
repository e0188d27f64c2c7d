//! Collector bundles end to end (issue 13 item 5): the real binary on a bundle as a folder,
//! a tar.gz and a zip (`fixtures/bundles/`), and the Linux collector run on this machine
//! (not an Azure VM) with its bundle analysed. Hostile archives (zip bomb, traversal,
//! links) are in the bad-input corpus (`tests/invalid.rs`).

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // tests fail by panicking

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::Value;

const WINDOWS: &str = "fixtures/bundles/windows-ds13v2";
const LINUX_TGZ: &str = "fixtures/bundles/linux-off-azure.tar.gz";
const SCENARIO: &str = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30";

fn run(args: &[&str]) -> (i32, String, String) {
    let out = advisor(&repo(), args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_report(args: &[&str]) -> Value {
    let mut all = vec!["analyze"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let (code, out, err) = run(&all);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).expect("a JSON report")
}

fn settings() -> insta::internals::SettingsBindDropGuard {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo().join("tests/snapshots/bundle"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind_to_scope()
}

/// The rule ids of a report's findings, with their subjects, in order.
fn findings(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| format!("{} on {}", f["rule"].as_str().unwrap(), f["subject"].as_str().unwrap()))
        .collect()
}

#[test]
fn a_folder_a_zip_and_the_loose_capture_give_the_same_findings() {
    let topology = format!("{SCENARIO}/topology.toml");
    let loose = json_report(&[&format!("{SCENARIO}/capture.csv"), "--topology", &topology]);
    let zip = format!("{WINDOWS}.zip");
    let zipped = json_report(&[&zip, "--topology", &topology]);
    let folder = json_report(&[WINDOWS, "--topology", &topology]);
    assert!(!findings(&loose).is_empty());
    assert_eq!(findings(&zipped), findings(&loose));
    assert_eq!(findings(&folder), findings(&loose));
    assert_eq!(zipped["not_evaluated"], loose["not_evaluated"]);

    // The capture is named inside its bundle; every other file is listed with what became
    // of it.
    let inputs: Vec<(String, String, String)> = zipped["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["file"].as_str().unwrap().to_owned(),
                i["format"].as_str().unwrap().to_owned(),
                i["reason"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert_eq!(inputs[0].0, format!("{zip}!perfmon.csv"));
    assert_eq!(inputs[0].1, "perfmon-csv");
    let manifest = &zipped["inputs"][1];
    assert_eq!(manifest["file"], format!("{zip}!manifest.json"));
    assert_eq!(manifest["format"], "collector-manifest");
    assert_eq!(manifest["host"], "SQLVM01");
    assert_eq!(manifest["start"], "2024-06-11T18:29:58");
    let listed = |format: &str| -> Vec<&str> {
        inputs.iter().filter(|i| i.1 == format).map(|i| i.0.as_str()).collect()
    };
    let names = |ns: &[&str]| -> Vec<String> { ns.iter().map(|n| format!("{zip}!{n}")).collect() };
    assert_eq!(listed("ignored"), names(&["counters.txt"]));
    assert_eq!(
        listed("topology"),
        names(&[
            "get-disk.json",
            "get-partition.json",
            "get-physicaldisk.json",
            "get-volume.json",
            "imds.json"
        ])
    );
    let reason = |n: &str| inputs.iter().find(|i| i.0.ends_with(n)).map(|i| i.2.clone());
    assert_eq!(
        reason("!imds.json").as_deref(),
        Some("read into the topology: IMDS instance document")
    );
    let counters = reason("!counters.txt").unwrap_or_default();
    assert!(counters.starts_with("not read: a PerfMon counter list"), "{counters}");

    // The bundle alone says what the hand-written topology says: the same findings and the
    // same checks not evaluated, with no topology file given.
    let alone = json_report(&[&zip]);
    assert_eq!(findings(&alone), findings(&loose));
    assert_eq!(alone["not_evaluated"], loose["not_evaluated"]);
    assert_eq!(alone["vm"], "Standard_DS13_v2");

    // The report stays valid against the shipped schema.
    let (_, schema, _) = run(&["schema"]);
    let schema: Value = serde_json::from_str(&schema).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&zipped).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn the_markdown_report_of_a_bundle_lists_what_became_of_each_file() {
    let _s = settings();
    let topology = format!("{SCENARIO}/topology.toml");
    let (code, out, err) = run(&["analyze", &format!("{WINDOWS}.zip"), "--topology", &topology]);
    assert_eq!(code, 0, "{err}");
    let inputs = &out[out.find("### Inputs").expect("an inputs section")..];
    insta::assert_snapshot!("analyze__windows-ds13v2.zip__inputs", inputs);
}

#[test]
fn inspect_shows_the_collectors_facts() {
    let _s = settings();
    let (code, out, err) = run(&["inspect", LINUX_TGZ]);
    assert_eq!(code, 0, "{err}");
    // The bundle's own block: the capture's statistics follow it (and are snapshotted by
    // the iostat tests).
    let head = out.split("\n\n").next().unwrap();
    assert!(head.contains("collector: sysstat 12.6.1"), "{head}");
    assert!(head.contains("collector: instance metadata (IMDS): no answer"), "{head}");
    insta::assert_snapshot!("inspect__linux-off-azure.tar.gz", head);
    assert!(out.contains(&format!("{LINUX_TGZ}!advisor-vm-20261124T002750Z/iostat.json\n")));

    // --json carries the bundle with each capture.
    let (code, out, _) = run(&["inspect", "--json", LINUX_TGZ]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["format"], "iostat-json");
    assert_eq!(v[0]["bundle"]["manifest"]["sysstat"], "12.6.1");
    assert_eq!(v[0]["bundle"]["manifest"]["imds"]["answered"], false);
    assert_eq!(v[0]["bundle"]["kind"], "tar.gz");
}

#[test]
fn a_zip_of_one_capture_is_read_as_its_capture() {
    let report = json_report(&["fixtures/bundles/capture-zipped.zip", "--vm", "Standard_DS13_v2"]);
    assert_eq!(report["inputs"][0]["file"], "fixtures/bundles/capture-zipped.zip!capture.csv");
    assert_eq!(report["inputs"].as_array().unwrap().len(), 1);
}

#[test]
fn a_bundle_without_a_capture_is_an_error_naming_it() {
    let dir = std::env::temp_dir().join(format!("advisor-bundle-empty-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(repo().join(WINDOWS).join("imds.json"), dir.join("imds.json")).unwrap();
    let shown = dir.display().to_string();
    let (code, _, err) = run(&["analyze", &shown]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{shown}: no capture in it")), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The collector's folder and archive under `out`.
fn written(out: &Path) -> (PathBuf, PathBuf) {
    let mut dirs = Vec::new();
    let mut archives = Vec::new();
    for e in std::fs::read_dir(out).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            dirs.push(p);
        } else if p.to_string_lossy().ends_with(".tar.gz") {
            archives.push(p);
        }
    }
    assert_eq!((dirs.len(), archives.len()), (1, 1), "{dirs:?} {archives:?}");
    (dirs.remove(0), archives.remove(0))
}

#[test]
fn the_linux_collector_runs_here_and_its_bundle_analyses() {
    let script = repo().join("collect/collect-linux.sh");
    let has_iostat = Command::new("sh")
        .args(["-c", "command -v iostat"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_iostat {
        eprintln!(
            "SKIPPED the_linux_collector_runs_here_and_its_bundle_analyses: iostat is not \
             installed (apt-get install sysstat); .ci/run installs it"
        );
        return;
    }
    let out = std::env::temp_dir().join(format!("advisor-collect-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();

    // Argument checks first: bad usage is 2 and writes nothing.
    let usage = |args: &[&str]| Command::new("bash").arg(&script).args(args).output().unwrap();
    let help = usage(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).starts_with("Usage: collect-linux.sh"));
    for bad in [&["--seconds", "0"][..], &["-s", "3601"], &["-s", "x"], &["--nope"]] {
        let o = usage(bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);

    let ran = Command::new("bash")
        .arg(&script)
        .args(["--seconds", "3", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(0), "{stderr}");
    let (folder, archive) = written(&out);
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(folder.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["collector"], "advisor-collect-linux");
    assert_eq!(manifest["seconds"], 3);
    // Off Azure the metadata does not answer, and the bundle says so.
    let answered = manifest["imds"]["answered"].as_bool().unwrap();
    assert_eq!(folder.join("imds.json").is_file(), answered);
    if !answered {
        assert!(manifest["imds"]["reason"].as_str().unwrap().contains("169.254.169.254"));
    }

    let archive = archive.display().to_string();
    let report = json_report(&[&archive, "--vm", "Standard_D4s_v5"]);
    let inputs = report["inputs"].as_array().unwrap();
    let capture = &inputs[0];
    assert!(capture["file"].as_str().unwrap().ends_with("/iostat.json"), "{capture}");
    assert_eq!(capture["format"], "iostat-json");
    // 3 one-second samples after the since-boot report.
    assert!(capture["samples"].as_u64().unwrap() >= 2, "{capture}");
    let listed = inputs.iter().find(|i| i["format"] == "collector-manifest").unwrap();
    assert_eq!(listed["host"], manifest["host"]);
    if !answered {
        let warnings = listed["warnings"].to_string();
        assert!(warnings.contains("instance metadata (IMDS): no answer"), "{warnings}");
    }
    // The folder reads the same.
    let from_folder = json_report(&[&folder.display().to_string(), "--vm", "Standard_D4s_v5"]);
    assert_eq!(from_folder["inputs"][0]["format"], "iostat-json");
    let _ = std::fs::remove_dir_all(&out);
}
