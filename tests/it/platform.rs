//! Azure Monitor metrics end to end: the real binary on
//! `fixtures/captures/azure-monitor-json/`, alone and beside the seeds' DS13_v2 PerfMon
//! capture of the same minutes. What a user sees of the findings is snapshotted in
//! `tests/it/snapshots/platform/`.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use crate::common;

use serde_json::Value;

use common::*;

const METRICS: &str = "fixtures/captures/azure-monitor-json/ds13v2-vm-cached-100pct.json";
const NEXT_DAY: &str = "fixtures/captures/azure-monitor-json/ds13v2-next-day.json";
const SEED: &str = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30";

fn settings() -> insta::internals::SettingsBindDropGuard {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(repo().join("tests/it/snapshots/platform"));
    s.set_prepend_module_to_snapshot(false);
    s.bind_to_scope()
}

fn run(args: &[&str]) -> String {
    let out = advisor(&repo(), args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    serde_json::from_str(&run(&a)).expect("JSON report")
}

/// The report's findings and its warnings about the inputs (the time alignment, a join not
/// made), the parts that change with the platform join.
fn findings_md(md: &str) -> String {
    let start = md.find("### Findings").unwrap_or(0);
    let end = md.find("### Targets").unwrap_or(md.len());
    md[start..end].to_owned()
}

fn rules_of(report: &Value) -> Vec<(String, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (f["rule"].as_str().unwrap().to_owned(), f["subject"].as_str().unwrap().to_owned())
        })
        .collect()
}

#[test]
fn metrics_alone_report_platform_throttling_with_its_times() {
    let _g = settings();
    let md = run(&["analyze", METRICS]);
    assert!(md.contains("rule `platform-vm-cached-throttled`"), "{md}");
    assert!(md.contains("for 15 min without a break (UTC 18:25-18:40 on 2024-06-11)"), "{md}");
    insta::assert_snapshot!("alone", findings_md(&md));
    let report = json(&["analyze", METRICS]);
    assert_eq!(
        rules_of(&report),
        [("platform-vm-cached-throttled".to_owned(), "VM cached".to_owned())]
    );
    assert_eq!(report["inputs"][0]["format"], "azure-monitor-json");
}

#[test]
fn beside_the_guest_capture_of_the_same_minutes_the_two_agree_in_one_finding() {
    let _g = settings();
    let capture = format!("{SEED}/capture.csv");
    let topology = format!("{SEED}/topology.toml");
    let args = ["analyze", METRICS, &capture, "--topology", &topology];
    let md = run(&args);
    insta::assert_snapshot!("beside-perfmon", findings_md(&md));
    let report = json(&args);
    let rules = rules_of(&report);
    let confirm = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "platform-confirms-guest-latency")
        .expect("the joint finding");
    assert_eq!(confirm["subject"], "VM cached");
    // Both numbers: the platform's (100% consumed) and the guest's (E: at ~37 ms).
    let m = &confirm["metrics"];
    assert_eq!(m["platform_peak_pct"], 100.0);
    let guest = m["guest_at_cap_ms"].as_f64().unwrap();
    assert!((35.0..38.0).contains(&guest), "{guest}");
    // The PerfMon header's EDT (UTC-4) minutes 14:30-14:31 are the platform's 18:30-18:31.
    assert!(confirm["evidence"].as_str().unwrap().contains("UTC 18:30-18:32 on 2024-06-11"));
    assert!(rules.contains(&("vm-cached-throughput-cap".to_owned(), "vm".to_owned())), "{rules:?}");
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains("local time UTC-04:00 (from the capture) aligned to UTC"),
        "{warnings}"
    );
    // Without a topology the guest's physical disks stand for the budget: still one finding.
    let report = json(&["analyze", METRICS, &capture]);
    assert!(
        rules_of(&report)
            .contains(&("platform-confirms-guest-latency".to_owned(), "VM cached".to_owned()))
    );
}

#[test]
fn windows_that_do_not_overlap_are_not_joined_and_say_why() {
    let _g = settings();
    let capture = format!("{SEED}/capture.csv");
    let md = run(&["analyze", NEXT_DAY, &capture]);
    insta::assert_snapshot!("no-overlap", findings_md(&md));
    let report = json(&["analyze", NEXT_DAY, &capture]);
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains("no join of the guest capture with Azure Monitor for VM cached"),
        "{warnings}"
    );
    assert!(
        warnings
            .contains("guest 2024-06-11 18:30 to 2024-06-11 18:31 UTC, platform 2024-06-12 18:10")
    );
    let ne = report["not_evaluated"].as_array().unwrap();
    assert!(ne.iter().any(|n| n["rule"] == "platform-confirms-guest-latency"), "{ne:?}");
    assert!(!rules_of(&report).iter().any(|(r, _)| r == "platform-confirms-guest-latency"));
}

#[test]
fn a_guest_capture_without_a_zone_is_assumed_utc_and_says_so() {
    let iostat = "fixtures/scenarios/ds1-with-p30/iostat.txt";
    let report = json(&["analyze", METRICS, iostat]);
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains(
            "iostat.txt: the capture states no time zone: its clock is assumed to be UTC"
        ),
        "{warnings}"
    );
}

#[test]
fn the_order_of_files_changes_nothing() {
    let files = [
        "fixtures/captures/azure-monitor-json/disk-short-spikes.json",
        METRICS,
        "fixtures/captures/azure-monitor-json/burst-credits-run-out.json",
    ];
    let a = json(&["analyze", files[0], files[1], files[2]]);
    let b = json(&["analyze", files[2], files[0], files[1]]);
    assert_eq!(a["findings"], b["findings"]);
    assert_eq!(a["not_evaluated"], b["not_evaluated"]);
    assert_eq!(rules_of(&a).len(), 4, "{:?}", rules_of(&a));
}

#[test]
fn the_topology_lun_map_names_the_platform_disk_and_joins_it_to_the_guest_disk() {
    let seed = repo().join(SEED);
    let topology = std::fs::read_to_string(seed.join("topology.toml")).unwrap();
    let with_lun = topology.replacen(
        "name = \"E:\"\nsku = \"P30\"\n",
        "name = \"E:\"\nsku = \"P30\"\nlun = 0\n",
        1,
    );
    assert_ne!(with_lun, topology, "the seed topology changed: update this test");
    let dir = std::env::temp_dir().join(format!("advisor-platform-lun-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("topology.toml");
    std::fs::write(&file, with_lun).unwrap();
    let capture = format!("{SEED}/capture.csv");
    let report = json(&["analyze", METRICS, &capture, "--topology", file.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    let names: Vec<&str> =
        report["targets"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"E: (LUN 0)"), "{names:?}");
    // Joined: E:'s guest latency per platform minute is there, and LUN 0 never reached its
    // cap, so there is nothing to confirm (quiet, not "not evaluated").
    let ne = report["not_evaluated"].as_array().unwrap();
    assert!(!ne.iter().any(|n| n["rule"] == "platform-confirms-guest-latency"), "{ne:?}");
    // Without the map the subject is `LUN <n>` and it has no guest disk to join.
    let report =
        json(&["analyze", METRICS, &capture, "--topology", &format!("{SEED}/topology.toml")]);
    let names: Vec<&str> =
        report["targets"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"LUN 0"), "{names:?}");
}

/// Any order of the same files gives the same findings and the same not-evaluated list
/// (through the library, the analysis the binary and the server run).
mod file_order {
    use advisor_engine::{Input, Request, Session, TopologySources};
    use proptest::prelude::*;

    use super::repo;

    const FILES: [&str; 5] = [
        "fixtures/captures/azure-monitor-json/ds13v2-vm-cached-100pct.json",
        "fixtures/captures/azure-monitor-json/disk-short-spikes.json",
        "fixtures/captures/azure-monitor-json/burst-credits-run-out.json",
        "fixtures/captures/azure-monitor-json/misspelled-percentange.json",
        "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30/capture.csv",
    ];

    fn verdicts(order: &[usize]) -> String {
        let session = Session::builder().build().expect("the shipped rules load");
        let inputs = order.iter().map(|&i| Input::Path(repo().join(FILES[i]))).collect();
        let topology = TopologySources {
            files: vec![
                repo()
                    .join("fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30/topology.toml"),
            ],
            ..TopologySources::default()
        };
        let a = session.analyze(Request { inputs, topology }, &mut ()).expect("analyze");
        let strip = |v: serde_json::Value| v.to_string();
        format!(
            "{}\n{}",
            strip(serde_json::to_value(&a.findings).unwrap()),
            strip(serde_json::to_value(&a.not_evaluated).unwrap())
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(6))]

        #[test]
        fn any_order_of_files_gives_the_same_verdicts(order in Just((0..FILES.len()).collect::<Vec<usize>>()).prop_shuffle()) {
            let want = verdicts(&[0, 1, 2, 3, 4]);
            prop_assert_eq!(verdicts(&order), want);
        }
    }
}

/// A consumed-percentage meter pinned at 100% is the platform saying "at the cap": the caps
/// read from the data are for guest rates that hold a ceiling while IO queues, so
/// no Azure Monitor file alone gives an `inferred-*` or `topology-cap-mismatch` finding.
#[test]
fn platform_meters_are_not_read_as_inferred_caps() {
    let dir = repo().join("fixtures/captures/azure-monitor-json");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    for f in files {
        let name = f.strip_prefix(repo()).unwrap().display().to_string();
        let out = advisor(&repo(), &["analyze", &name, "--format", "json"]);
        if out.status.code() != Some(0) {
            continue; // the error document is refused; tests/it/invalid.rs covers it
        }
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let rules = rules_of(&report);
        assert!(!rules.is_empty(), "{name}: the platform rules see nothing");
        assert!(rules.iter().all(|(r, _)| r.starts_with("platform-")), "{name}: {rules:?}");
    }
}
