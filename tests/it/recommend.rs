//! `advisor recommend` end to end: the real binary on the seed cases (the DS13_v2 whose
//! temp disk fills the cached budget, a DS1 held at 3,200 IOPS by the VM, a workload that
//! fits Standard SSD, a log disk bound by latency), with and without prices, every format,
//! the JSON against `advisor schema recommend`.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use crate::common;

use std::process::Output;

use common::*;
use serde_json::Value;

/// (snapshot name, captures, topology), paths relative to the repository.
const CASES: [(&str, &[&str], &str); 4] = [
    (
        "ds13v2-temp-disk-throttles-cached-p30",
        &["fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30/capture.csv"],
        "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30/topology.toml",
    ),
    (
        "ds1-vm-iops-cap-3200",
        &["fixtures/recommend/ds1-vm-iops-cap-3200/iostat.txt"],
        "fixtures/recommend/ds1-vm-iops-cap-3200/topology.toml",
    ),
    (
        "d2sv3-fits-standard-ssd",
        &["fixtures/recommend/d2sv3-fits-standard-ssd/capture.csv"],
        "fixtures/recommend/d2sv3-fits-standard-ssd/topology.toml",
    ),
    (
        "sync-writes-4k-qd1",
        &["fixtures/scenarios/sync-writes-4k-qd1/iostat.txt"],
        "fixtures/scenarios/sync-writes-4k-qd1/topology.toml",
    ),
];

const PRICES: &str = "fixtures/prices/westeurope.json";

fn case(name: &str) -> (&'static [&'static str], &'static str) {
    let (_, c, t) = CASES.iter().find(|c| c.0 == name).expect("case");
    (c, t)
}

fn recommend(captures: &[&str], topology: &str, extra: &[&str]) -> Output {
    let mut args = vec!["recommend"];
    args.extend(captures);
    args.extend(["--topology", topology]);
    args.extend(extra);
    advisor(&repo(), &args)
}

fn json(name: &str, extra: &[&str]) -> Value {
    let (c, t) = case(name);
    let mut args = vec!["--format", "json"];
    args.extend(extra);
    let out = recommend(c, t, &args);
    assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn disk<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["disks"].as_array().unwrap().iter().find(|d| d["name"] == name).expect("disk")
}

fn candidate<'a>(r: &'a Value, size: &str) -> &'a Value {
    r["vm"]["candidates"].as_array().unwrap().iter().find(|c| c["size"] == size).expect("size")
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(repo().join("tests/it/snapshots/recommend"));
    s.set_prepend_module_to_snapshot(false);
    s.add_filter(r#""version": "[0-9][^"]*""#, r#""version": "[version]""#);
    s.add_filter(r"\*advisor [0-9][^,]*, advisor", "*advisor [version], advisor");
    s
}

#[test]
fn ds13v2_cached_budget_needs_a_higher_cached_cap_or_caching_off() {
    let r = json("ds13v2-temp-disk-throttles-cached-p30", &[]);
    assert_eq!(r["schema"], "advisor.recommend/v1");
    // The temp disk's ~256 MB/s alone, with headroom, is past DS13_v2's 256 MB/s cached cap.
    let cached = r["vm"]["cached"]["mbps"]["needed"].as_f64().unwrap();
    assert!(cached > 256.0, "{cached}");
    // The smallest DSv2 size with DS13_v2's 8 vCPUs and 56 GiB or more and a cached cap
    // above the demand: DS5_v2 (16 vCPUs, 56 GiB, 512 MB/s cached), then DS14_v2.
    let chosen = r["vm"]["chosen"].as_str().expect("a size");
    assert_eq!(chosen, "Standard_DS5_v2");
    let c = candidate(&r, chosen);
    assert!(c["cached_mbps"].as_f64().unwrap() >= cached);
    assert!(c["vcpu"].as_u64().unwrap() >= 8 && c["memory_gib"].as_f64().unwrap() >= 56.0);
    assert_eq!(c["deciding"], "cached MB/s");
    assert_eq!(r["vm"]["candidates"][1]["size"], "Standard_DS14_v2");
    // E:, a P30 doing small synchronous writes, leaves the cached budget.
    let e = disk(&r, "E:");
    assert_eq!(e["cache"], "None");
    assert!(
        e["why"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("host caching None"))
    );
    // 90 one-second samples: low confidence, and the reason says why.
    assert_eq!(r["confidence"]["level"], "low");
    assert!(r["confidence"]["reasons"][0].as_str().unwrap().contains("daily job"));
    assert!(r["vm"]["why"].as_array().unwrap().iter().any(|w| {
        w.as_str().unwrap().starts_with("Standard_DS13_v2 does not carry it: cached MB/s 256 <")
    }));
}

#[test]
fn ds1_held_at_3200_iops_by_the_vm_gets_a_size_with_more_uncached_iops() {
    let r = json("ds1-vm-iops-cap-3200", &[]);
    let needed = r["vm"]["uncached"]["iops"]["needed"].as_f64().unwrap();
    assert!(needed > 3200.0 && needed < 4000.0, "{needed}");
    assert_eq!(r["vm"]["chosen"], "Standard_DS2");
    assert_eq!(candidate(&r, "Standard_DS2")["deciding"], "uncached IOPS");
    // The P30 itself (5,000 IOPS) is not what limits it: its 1 TiB decides the SKU.
    let sdc = disk(&r, "sdc");
    let p = sdc["options"].as_array().unwrap().iter().find(|o| o["kind"] == "Premium SSD").unwrap();
    assert_eq!(p["sku"], "P30");
}

#[test]
fn a_light_workload_fits_standard_ssd() {
    let r = json("d2sv3-fits-standard-ssd", &[]);
    let e = disk(&r, "E:");
    assert_eq!(e["chosen"], "E10");
    assert_eq!(e["latency_bound"], false);
    assert_eq!(r["vm"]["chosen"], "Standard_D2s_v3");
}

#[test]
fn a_log_disk_bound_by_latency_gets_premium_v2_not_more_iops() {
    let r = json("sync-writes-4k-qd1", &[]);
    let sdc = disk(&r, "sdc");
    assert_eq!(sdc["latency_bound"], true);
    assert_eq!(sdc["chosen"], "PremiumV2");
    assert_eq!(sdc["cache"], "None");
    let opts = sdc["options"].as_array().unwrap();
    let premium = opts.iter().find(|o| o["kind"] == "Premium SSD").unwrap();
    assert_eq!(premium["suitable"], false);
    assert!(premium["why"].as_str().unwrap().contains("not the latency"));
}

#[test]
fn prices_order_by_monthly_cost_and_price_today_and_the_proposal() {
    let r = json("ds13v2-temp-disk-throttles-cached-p30", &["--prices", PRICES]);
    assert_eq!(r["cost"]["priced"], true);
    assert_eq!(r["cost"]["region"], "westeurope");
    // DS13_v2 Linux 0.76/h x 730 + P10 19.71 + P30 135.17 (the temp disk is in the size).
    let today = r["current"]["monthly_cost"].as_f64().expect("today priced");
    assert!((today - (0.76 * 730.0 + 19.71 + 135.17)).abs() < 0.01, "{today}");
    let proposed = r["proposed"]["monthly_cost"].as_f64().expect("proposal priced");
    assert!(proposed > 0.0);
    let change = r["cost"]["monthly_change"].as_f64().unwrap();
    assert!((change - (proposed - today)).abs() < 0.02);
    // Candidates by cost, cheapest first.
    let costs: Vec<f64> = r["vm"]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["monthly_cost"].as_f64())
        .collect();
    assert!(costs.windows(2).all(|w| w[0] <= w[1]), "{costs:?}");
    // Without prices, the order is said to be by size and tier.
    let plain = json("ds13v2-temp-disk-throttles-cached-p30", &[]);
    assert!(plain["cost"]["order"].as_str().unwrap().contains("by size within a family"));
    assert!(plain["current"]["monthly_cost"].is_null());
}

#[test]
fn without_disks_the_vm_is_not_judged() {
    let out = advisor(
        &repo(),
        &[
            "recommend",
            "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30/capture.csv",
            "--vm",
            "Standard_DS13_v2",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(r["vm"]["chosen"].is_null());
    assert!(r["vm"]["why"][0].as_str().unwrap().starts_with("no disk demand is known"));
}

#[test]
fn bad_prices_exit_2_naming_the_file_and_json_path() {
    let dir = std::env::temp_dir().join(format!("advisor-recommend-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("prices.json");
    std::fs::write(&bad, r#"{"Items":[{"retailPrice":"cheap"}]}"#).unwrap();
    let (c, t) = case("ds1-vm-iops-cap-3200");
    let out = recommend(c, t, &["--prices", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("prices.json: $.Items[0].retailPrice: expected a number"), "{err}");
    let out = recommend(c, t, &["--percentile", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let out = recommend(c, t, &["--family", "Nosuchv9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Nosuchv9"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn json_validates_against_the_recommend_schema() {
    let out = advisor(&repo(), &["schema", "recommend"]);
    assert_eq!(out.status.code(), Some(0));
    let schema: Value = serde_json::from_slice(&out.stdout).expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    for (name, _, _) in CASES {
        let r = json(name, &["--prices", PRICES]);
        let errors: Vec<String> = validator.iter_errors(&r).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

#[test]
fn html_is_one_self_contained_page() {
    let (c, t) = case("ds13v2-temp-disk-throttles-cached-p30");
    let out = recommend(c, t, &["--format", "html", "--prices", PRICES]);
    assert_eq!(out.status.code(), Some(0));
    let html = String::from_utf8_lossy(&out.stdout);
    assert_html_self_contained(&html);
    // With prices, DS5_v2 (not in the fixture) goes after the priced DS14_v2.
    assert!(html.contains("Standard_DS14_v2 <strong>(proposed)</strong>"), "{html}");
}

#[test]
fn markdown_and_json_snapshots() {
    let s = settings();
    let _guard = s.bind_to_scope();
    for (name, c, t) in CASES {
        let out = recommend(c, t, &[]);
        assert_eq!(out.status.code(), Some(0), "{name}");
        insta::assert_snapshot!(format!("{name}.md"), String::from_utf8_lossy(&out.stdout));
        insta::assert_json_snapshot!(format!("{name}.json"), json(name, &[]));
    }
    let (c, t) = case("ds13v2-temp-disk-throttles-cached-p30");
    let out = recommend(c, t, &["--prices", PRICES]);
    insta::assert_snapshot!("ds13v2-priced.md", String::from_utf8_lossy(&out.stdout));
}

/// `POST /api/v1/recommend` on the real server: the same recommendation as the command.
#[test]
fn the_service_answers_recommend() {
    use std::io::{Read as _, Write as _};
    let (mut child, addr, _log) = start_serve(&[]);
    let (capture, topology) = scenario();
    let prices = std::fs::read(repo().join(PRICES)).unwrap();
    let post = |parts: &[(&str, &str, &[u8])]| -> (String, Vec<u8>) {
        let body = multipart(parts);
        let mut s = std::net::TcpStream::connect(&addr).expect("connect");
        let head = format!(
            "POST /api/v1/recommend HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json\r\n\
             Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(&body).unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).unwrap();
        let split = out.windows(4).position(|w| w == b"\r\n\r\n").expect("headers end");
        (String::from_utf8_lossy(&out[..split]).into_owned(), out[split + 4..].to_vec())
    };
    let (head, body) = post(&[
        ("capture", "capture.csv", &capture),
        ("topology", "topology.toml", &topology),
        ("prices", "westeurope.json", &prices),
    ]);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let r: Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(r["schema"], "advisor.recommend/v1");
    assert_eq!(r["vm"]["chosen"], "Standard_DS14_v2");
    assert!(r["current"]["monthly_cost"].as_f64().is_some());
    let (head, body) = post(&[("capture", "capture.csv", &capture), ("percentile", "", b"101")]);
    assert!(head.starts_with("HTTP/1.1 400"), "{head}");
    assert!(String::from_utf8_lossy(&body).contains("percentile"));
    child.kill().expect("stop the server");
    let _ = child.wait();
}
