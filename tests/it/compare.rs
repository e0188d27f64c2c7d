//! `advisor compare` end to end: the real binary on the before/after pairs of
//! `fixtures/compare/` (written by its `make_compare.py`) and the seeds' DS13_v2 case: the
//! first line's verdict, findings resolved and new, the comparability warnings, renamed
//! disks, the benchmark sweep, the JSON against `advisor schema compare`, and the HTML page.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use crate::skip;

use crate::common;

use std::path::PathBuf;
use std::process::Output;

use common::*;

const SEED: &str = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30";
const PAIRS: &str = "fixtures/compare";

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn compare(args: &[&str]) -> Output {
    let mut all = vec!["compare"];
    all.extend(args);
    advisor(&repo(), &all)
}

/// The seed (before) against its fix (after): host caching None on the log disk, temp IO
/// moved to an uncached P40.
fn seed_pair(extra: &[&str]) -> Output {
    let after = format!("{PAIRS}/ds13v2-cache-off-temp-moved/after");
    let (bc, bt) = (format!("{SEED}/capture.csv"), format!("{SEED}/topology.toml"));
    let (ac, at) = (format!("{after}/capture.csv"), format!("{after}/topology.toml"));
    let mut args = vec![bc.as_str(), "--topology", &bt, "--with", &ac, "--with-topology", &at];
    args.extend(extra);
    compare(&args)
}

/// A pair of `fixtures/compare/<case>` with each side's own topology.
fn pair(case: &str, extra: &[&str]) -> Output {
    let dir = repo().join(PAIRS).join(case);
    let side = |s: &str| -> (Vec<String>, Option<String>) {
        let mut caps: Vec<String> = std::fs::read_dir(dir.join(s))
            .expect("side dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|f| f != "topology.toml")
            .map(|f| format!("{PAIRS}/{case}/{s}/{f}"))
            .collect();
        // `qd4` before `qd16`: the sweep's files in depth order.
        caps.sort_by_key(|f| (f.len(), f.clone()));
        let topo = dir.join(s).join("topology.toml");
        (caps, topo.is_file().then(|| format!("{PAIRS}/{case}/{s}/topology.toml")))
    };
    let (bc, bt) = side("before");
    let (ac, at) = side("after");
    let mut args: Vec<String> = bc;
    if let Some(t) = bt {
        args.extend(["--topology".into(), t]);
    }
    args.push("--with".into());
    args.extend(ac);
    if let Some(t) = at {
        args.extend(["--with-topology".into(), t]);
    }
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    compare(&refs)
}

fn json(o: &Output) -> serde_json::Value {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).expect("JSON comparison")
}

fn snapshot_settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(repo().join("tests/it/snapshots/compare"));
    s.set_prepend_module_to_snapshot(false);
    s.add_filter(r#""version": "[0-9][^"]*""#, r#""version": "[version]""#);
    s.add_filter(
        r"\*advisor [0-9][^,]*, comparison schema",
        "*advisor [version], comparison schema",
    );
    s
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("advisor-compare-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// The issue's done-when: the first line says whether the change helped and by how much,
/// with the resolved and new findings.
#[test]
fn the_seed_fix_is_better_in_the_first_line() {
    let out = seed_pair(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = stdout(&out);
    let first = md.lines().next().expect("a first line");
    assert!(first.starts_with("## Better after the change: "), "{first}");
    // By how much: E:'s p95 latency, and the cached budget off its cap.
    assert!(first.contains("p95 latency on 2 E:"), "{first}");
    assert!(first.contains("-> 2."), "E: back to ~2 ms: {first}");
    assert!(
        first.contains("VM cached throughput at p95 10"),
        "the cached budget was over its cap: {first}"
    );
    for rule in ["vm-cached-throughput-cap", "temp-disk-with-cached-disks"] {
        assert!(first.contains(rule), "{rule} resolved, in the first line: {first}");
    }
    let c = json(&seed_pair(&["--format", "json"]));
    assert_eq!(c["verdict"]["outcome"], "better");
    let resolved: Vec<&str> = c["findings"]["resolved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(resolved.contains(&"vm-cached-throughput-cap"), "{resolved:?}");
    // The moved temp IO's new disk is listed, never dropped.
    let f =
        c["targets"].as_array().unwrap().iter().find(|t| t["name"] == "3 F:").expect("F: listed");
    assert!(f.get("before_name").is_none(), "F: is after only: {f}");
    assert!(
        c["warnings"].as_array().unwrap().iter().any(|w| w["kind"] == "unmatched"
            && w["message"].as_str().unwrap().contains("only after: 3 F:")),
        "{}",
        c["warnings"]
    );
    // The cached budget: 256 MB/s on both sides (the same VM), from over the cap to far under.
    let cached =
        c["budgets"].as_array().unwrap().iter().find(|b| b["name"] == "VM cached").expect("cached");
    let mbps = &cached["caps"]["mbps"];
    assert_eq!(mbps["cap_before"], 256.0);
    assert!(mbps["p95_before_pct"].as_f64().unwrap() > 100.0, "{mbps}");
    assert!(mbps["p95_after_pct"].as_f64().unwrap() < 10.0, "{mbps}");
    let e = c["targets"].as_array().unwrap().iter().find(|t| t["name"] == "2 E:").expect("E:");
    assert_eq!(e["matched_by"], "name");
    let lat = &e["metrics"]["latency_ms"];
    assert!(lat["before"]["p95"].as_f64().unwrap() > 30.0, "{lat}");
    assert!(lat["after"]["p95"].as_f64().unwrap() < 3.0, "{lat}");
    assert!(lat["change"]["p95"]["ratio"].as_f64().unwrap() < 0.1, "{lat}");
}

#[test]
fn snapshots_of_the_seed_pair() {
    let md = stdout(&seed_pair(&[]));
    let js = stdout(&seed_pair(&["--format", "json"]));
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("ds13v2-cache-off-temp-moved.md", md);
        insta::assert_snapshot!("ds13v2-cache-off-temp-moved.json", js);
    });
}

#[test]
fn comparisons_validate_against_their_schema() {
    let out = advisor(&repo(), &["schema", "compare"]);
    assert_eq!(out.status.code(), Some(0));
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).expect("schema is JSON");
    assert_eq!(schema["properties"]["schema"]["const"], "advisor.compare/v1");
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    let mut docs = vec![("seed".to_owned(), json(&seed_pair(&["--format", "json"])))];
    for case in
        ["resized-ds13v2-to-ds14v2", "interval-1s-vs-15s", "renamed-e-to-f", "qd-sweep-p30-vs-v2"]
    {
        docs.push((case.to_owned(), json(&pair(case, &["--format", "json"]))));
    }
    for (name, doc) in &docs {
        let errors: Vec<String> =
            validator.iter_errors(doc).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        assert_eq!(doc["schema"], "advisor.compare/v1");
    }
    // Not a rubber stamp.
    let mut doc = docs[0].1.clone();
    doc["verdict"]["outcome"] = "fine".into();
    assert!(!validator.is_valid(&doc), "an unknown outcome must fail");
    let mut doc = docs[0].1.clone();
    doc["schema"] = "advisor.compare/v2".into();
    assert!(!validator.is_valid(&doc), "a wrong schema id must fail");
    // The report's own schema is unchanged by the argument's default.
    let report = advisor(&repo(), &["schema"]);
    let report: serde_json::Value = serde_json::from_slice(&report.stdout).expect("JSON");
    assert_eq!(report["properties"]["schema"]["const"], "advisor.report/v1");
}

/// A resized VM: each side's share is of its own cap.
#[test]
fn a_resized_vm_is_measured_against_each_sides_cap() {
    let c = json(&pair("resized-ds13v2-to-ds14v2", &["--format", "json"]));
    assert_eq!(c["before"]["vm"], "Standard_DS13_v2");
    assert_eq!(c["after"]["vm"], "Standard_DS14_v2");
    assert!(
        c["warnings"].as_array().unwrap().iter().any(|w| w["kind"] == "vm-size"),
        "{}",
        c["warnings"]
    );
    let cached =
        c["budgets"].as_array().unwrap().iter().find(|b| b["name"] == "VM cached").expect("cached");
    let mbps = &cached["caps"]["mbps"];
    assert_eq!(mbps["cap_before"], 256.0);
    assert_eq!(mbps["cap_after"], 512.0);
    // The same ~270 MB/s is over one cap and about half of the other.
    let (b, a) =
        (mbps["p95_before_pct"].as_f64().unwrap(), mbps["p95_after_pct"].as_f64().unwrap());
    assert!(b > 100.0 && (45.0..60.0).contains(&a), "{b} {a}");
    assert_eq!(c["verdict"]["outcome"], "better");
    let md = stdout(&pair("resized-ds13v2-to-ds14v2", &[]));
    snapshot_settings().bind(|| insta::assert_snapshot!("resized-ds13v2-to-ds14v2.md", md));
}

/// 1 s against 15 s samples: the same workload, said to be not comparable as is.
#[test]
fn a_different_interval_is_a_warning_and_no_verdict_of_change() {
    let c = json(&pair("interval-1s-vs-15s", &["--format", "json"]));
    let w = c["warnings"].as_array().unwrap();
    let interval = w.iter().find(|w| w["kind"] == "interval").expect("interval warning");
    assert!(
        interval["message"].as_str().unwrap().contains("every 1 s before and every 15 s after"),
        "{interval}"
    );
    assert_eq!(c["before"]["interval_s"], 1.0);
    assert_eq!(c["verdict"]["outcome"], "unchanged", "{}", c["verdict"]);
    let md = stdout(&pair("interval-1s-vs-15s", &[]));
    assert!(md.starts_with("## No change that counts"), "{md}");
    snapshot_settings().bind(|| insta::assert_snapshot!("interval-1s-vs-15s.md", md));
}

/// E: became F: (the same disk at LUN 2): paired by the topology's disk, said so.
#[test]
fn renamed_disks_are_paired_by_the_topologys_lun() {
    let c = json(&pair("renamed-e-to-f", &["--format", "json"]));
    let t =
        c["targets"].as_array().unwrap().iter().find(|t| t["before_name"] == "2 E:").expect("E:");
    assert_eq!(t["after_name"], "2 F:");
    assert_eq!(t["matched_by"], "lun 2");
    assert!(
        c["warnings"].as_array().unwrap().iter().any(|w| w["kind"] == "disk-names"
            && w["message"].as_str().unwrap().contains("2 E: before is 2 F: after")),
        "{}",
        c["warnings"]
    );
    assert!(
        !c["warnings"].as_array().unwrap().iter().any(|w| w["kind"] == "unmatched"),
        "{}",
        c["warnings"]
    );
    assert_eq!(c["verdict"]["outcome"], "better");
    let md = stdout(&pair("renamed-e-to-f", &[]));
    assert!(md.lines().next().unwrap().contains("p95 latency on 2 E:"), "{md}");
    snapshot_settings().bind(|| insta::assert_snapshot!("renamed-e-to-f.md", md));
}

/// A QD sweep on two disks: one table, one chart per metric, runs labelled.
#[test]
fn a_benchmark_sweep_side_by_side() {
    let labels =
        ["--label", "P30 QD1", "--label", "P30 QD4", "--label", "P30 QD16", "--label", "P30 QD64"];
    let c = json(&pair("qd-sweep-p30-vs-v2", &[&labels[..], &["--format", "json"]].concat()));
    let runs = c["benchmarks"].as_array().unwrap();
    assert_eq!(runs.len(), 8, "four runs a side");
    assert_eq!(runs[0]["label"], "P30 QD1");
    assert_eq!(runs[4]["label"], "randread-4k-qd1.json", "unlabelled runs keep their file's name");
    let outstanding: Vec<u64> =
        runs.iter().take(4).map(|r| r["outstanding"].as_u64().unwrap()).collect();
    assert_eq!(outstanding, [1, 4, 16, 64]);
    assert!((runs[3]["iops"].as_f64().unwrap() - 5000.0).abs() < 5.0, "{}", runs[3]);
    assert!((runs[7]["iops"].as_f64().unwrap() - 20000.0).abs() < 20.0, "{}", runs[7]);
    assert_eq!(c["verdict"]["outcome"], "better", "{}", c["verdict"]);
    let md = stdout(&pair("qd-sweep-p30-vs-v2", &labels));
    assert!(md.contains("### Benchmark runs"), "{md}");
    snapshot_settings().bind(|| insta::assert_snapshot!("qd-sweep-p30-vs-v2.md", md));
    let dir = tmp("sweep");
    let page = dir.join("sweep.html");
    let out = pair("qd-sweep-p30-vs-v2", &["-q", "-o", &page.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).expect("page");
    for chart in ["Benchmark IOPS", "Benchmark throughput", "Benchmark mean latency"] {
        assert!(html.contains(&format!("aria-label=\"{chart}\"")), "{chart}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The HTML: self-contained, before and after overlaid with both sides' caps.
#[test]
fn the_html_overlays_before_and_after_with_both_caps() {
    let dir = tmp("html");
    let page = dir.join("c.html");
    let out = pair("resized-ds13v2-to-ds14v2", &["-o", &page.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("html comparison written (Better after the change"),
        "{}",
        stderr(&out)
    );
    let html = std::fs::read_to_string(&page).expect("page");
    assert!(html.starts_with("<!doctype html>"));
    assert_html_self_contained(&html);
    assert!(html.contains("aria-label=\"Throughput: VM cached\""), "the budget's chart");
    assert!(
        html.contains("cap before 256 MB/s") && html.contains("cap after 512 MB/s"),
        "both caps"
    );
    assert!(html.contains("before: throughput") && html.contains("after: throughput"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unreadable_inputs_of_both_sides_are_all_named() {
    let out = compare(&["Cargo.toml", "--with", "README.md"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("Cargo.toml") && err.contains("README.md"), "{err}");
    let out = compare(&["x.csv"]);
    assert_eq!(out.status.code(), Some(2), "--with is required");
    let out = compare(&[
        &format!("{SEED}/capture.csv"),
        "--with",
        &format!("{SEED}/capture.csv"),
        "--label",
        "a",
        "--label",
        "b",
        "--label",
        "c",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("3 labels for 2 inputs"), "{}", stderr(&out));
}

/// The same capture on both sides: nothing changed, and nothing is said to have.
#[test]
fn a_capture_against_itself_is_unchanged() {
    let cap = format!("{SEED}/capture.csv");
    let topo = format!("{SEED}/topology.toml");
    let c = json(&compare(&[&cap, "--with", &cap, "--topology", &topo, "--format", "json"]));
    assert_eq!(c["verdict"]["outcome"], "unchanged");
    assert!(c["findings"]["resolved"].as_array().unwrap().is_empty());
    assert!(c["findings"]["new"].as_array().unwrap().is_empty());
    assert!(!c["findings"]["persisting"].as_array().unwrap().is_empty());
    assert!(c["warnings"].as_array().unwrap().is_empty(), "{}", c["warnings"]);
    let out = compare(&[&cap, "--with", &cap, "--topology", &topo, "--fail-on-worse"]);
    assert_eq!(out.status.code(), Some(0));
}

/// `--fail-on-worse`: the seed's fix read backwards is worse, exit 1.
#[test]
fn the_fix_read_backwards_is_worse() {
    let after = format!("{PAIRS}/ds13v2-cache-off-temp-moved/after");
    let out = compare(&[
        &format!("{after}/capture.csv"),
        "--topology",
        &format!("{after}/topology.toml"),
        "--with",
        &format!("{SEED}/capture.csv"),
        "--with-topology",
        &format!("{SEED}/topology.toml"),
        "--fail-on-worse",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("## Worse after the change: "), "{}", stdout(&out));
}

/// The compare page in a real browser (skipped, with a message, without Chromium).
#[test]
fn compare_html_renders_in_chromium() {
    let Some(browser) = chromium() else {
        skip::skip("no chromium on PATH (apt-get install chromium)");
        return;
    };
    let dir = tmp("chromium");
    let page = dir.join("c.html");
    let out = seed_pair(&["-q", "-o", &page.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let url = format!("file://{}", page.display());
    let dom = run_chromium(&browser, &dir, &["--dump-dom", &url]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.contains("Better after the change"), "verdict in the DOM");
    assert!(dom.contains("vm-cached-throughput-cap"), "a resolved finding in the DOM");
    assert!(dom.matches("<svg").count() >= 6, "overlaid charts in the DOM");
    std::fs::remove_dir_all(&dir).ok();
}
