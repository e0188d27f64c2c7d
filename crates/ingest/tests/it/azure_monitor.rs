//! Azure Monitor metrics JSON reader: every fixture of `fixtures/captures/azure-monitor-json/`
//! read and checked against the generator's series, the error document and broken inputs
//! with their JSON paths, and properties: no input panics, and the order of metrics, time
//! series and points changes nothing.

// Test helpers outside #[test] functions panic on purpose.
// Values are compared exactly: the reader must give back the decimal the fixture wrote.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used, clippy::float_cmp)]

use std::path::{Path, PathBuf};

use advisor_ingest::azure_monitor::{self, AzureMonitorJson, FORMAT};
use advisor_ingest::{RawCapture, read_as, sniff};
use advisor_model::{Metric, TargetKind};
use proptest::prelude::*;
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/captures/azure-monitor-json")
}

fn text(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn fixture(name: &str) -> RawCapture {
    azure_monitor::read(name, &text(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn target(c: &RawCapture, name: &str) -> u32 {
    let names: Vec<&str> = c.meta.targets.iter().map(|t| t.name.as_str()).collect();
    names.iter().position(|n| *n == name).unwrap_or_else(|| panic!("no {name} in {names:?}")) as u32
}

/// (minute since the first point, value) of a target's metric.
fn series(c: &RawCapture, t: u32, m: Metric) -> Vec<(i64, f64)> {
    let col = c.table.column(m).unwrap_or_else(|| panic!("no column {m}"));
    let rows: Vec<usize> = (0..c.table.len()).filter(|&r| c.table.target[r] == t).collect();
    let t0 = rows.first().and_then(|&r| c.table.time_ms[r]).unwrap_or(0);
    rows.iter()
        .filter_map(|&r| col[r].map(|v| ((c.table.time_ms[r].unwrap_or(0) - t0) / 60_000, v)))
        .collect()
}

#[test]
fn every_fixture_is_detected_and_read() {
    for e in std::fs::read_dir(fixtures()).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".json") {
            continue;
        }
        let bytes = std::fs::read(e.path()).unwrap();
        assert_eq!(sniff(&name, &bytes).map(|f| f.id()).ok(), Some("azure-monitor-json"), "{name}");
        let c = fixture(&name);
        assert!(!c.table.is_empty(), "{name}");
        assert!(c.meta.targets.iter().all(|t| t.kind == TargetKind::Platform), "{name}");
        assert_eq!(c.meta.utc_offset_min, Some(0), "{name}");
        assert_eq!(c.meta.interval_s, Some(60.0), "{name}");
    }
}

#[test]
fn ds13v2_vm_budgets_and_lun_with_times_in_utc() {
    let c = fixture("ds13v2-vm-cached-100pct.json");
    assert_eq!(c.meta.hosts, ["SQLVM01"]);
    let names: Vec<&str> = c.meta.targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["LUN 0", "VM cached", "VM uncached"]);
    let cached = target(&c, "VM cached");
    let bw = series(&c, cached, Metric::MbpsConsumedPct);
    assert_eq!(bw.len(), 40);
    // Minutes 15-29 at 100%, 18% + (i % 4) otherwise (make_fixtures.py).
    assert!(bw.iter().all(|&(i, v)| if (15..30).contains(&i) {
        v == 100.0
    } else {
        v == 18.0 + (i % 4) as f64
    }));
    // 2024-06-11T18:10:00+00:00 is 1718129400 s since 1970.
    let first = (0..c.table.len()).find(|&r| c.table.target[r] == cached).unwrap();
    assert_eq!(c.table.time_ms[first], Some(1_718_129_400_000));
    let lun = target(&c, "LUN 0");
    assert_eq!(series(&c, lun, Metric::WriteIops)[15], (15, 27.0));
    assert_eq!(series(&c, lun, Metric::LatencyMs)[0], (0, 2.1));
    // "Percentage CPU" is not a disk metric: listed as ignored, like an unknown counter.
    assert_eq!(c.meta.ignored, ["Azure Monitor metric `Percentage CPU`"]);
}

#[test]
fn rest_shape_with_z_times_reads_the_same_as_az() {
    let az = fixture("ds13v2-vm-cached-100pct.json");
    let rest = fixture("ds13v2-next-day.json");
    assert_eq!(az.table.columns, rest.table.columns);
    let day = 86_400_000;
    let shifted: Vec<Option<i64>> = az.table.time_ms.iter().map(|t| t.map(|t| t + day)).collect();
    assert_eq!(shifted, rest.table.time_ms);
}

#[test]
fn the_early_misspelling_is_read_and_noted() {
    let c = fixture("misspelled-percentange.json");
    let t = target(&c, "VM uncached");
    let iops = series(&c, t, Metric::IopsConsumedPct);
    assert_eq!(iops.iter().filter(|(_, v)| *v == 97.0).count(), 6);
    assert!(c.meta.notes.iter().any(|n| n.contains("early spelling")), "{:?}", c.meta.notes);
}

#[test]
fn short_spikes_are_kept_minute_by_minute() {
    let c = fixture("disk-short-spikes.json");
    let t = target(&c, "LUN 1");
    let at: Vec<i64> = series(&c, t, Metric::IopsConsumedPct)
        .into_iter()
        .filter(|(_, v)| *v == 100.0)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(at, [3, 4, 18, 19, 33, 34, 48, 49]);
}

#[test]
fn burst_credits_and_bytes_in_canonical_units() {
    let c = fixture("burst-credits-run-out.json");
    let t = target(&c, "LUN 1");
    assert_eq!(series(&c, t, Metric::TargetIops)[0].1, 500.0);
    assert_eq!(series(&c, t, Metric::MaxBurstIops)[0].1, 3500.0);
    // 100e6 bytes/s is 95.37 MiB/s.
    let mbps = series(&c, t, Metric::TargetMbps)[0].1;
    assert!((mbps - 100e6 / 1_048_576.0).abs() < 1e-9, "{mbps}");
    let credits = series(&c, t, Metric::BurstIoCreditsUsedPct);
    assert_eq!((credits[4].1, credits[25].1), (20.0, 100.0));
    assert_eq!(series(&c, t, Metric::ReadIops)[0].1, 3400.0 * 0.7);
}

#[test]
fn several_resources_in_one_array_and_a_managed_disk() {
    let c = fixture("two-resources-array.json");
    assert_eq!(c.meta.hosts, ["SQLVM01", "sqlvm01-data2"]);
    let disk = target(&c, "sqlvm01-data2");
    assert_eq!(series(&c, disk, Metric::ReadIops)[0].1, 2200.0);
    let lun = target(&c, "LUN 2");
    assert_eq!(series(&c, lun, Metric::IopsConsumedPct)[10].1, 99.0);
}

#[test]
fn scale_set_instances_are_named_by_vmname() {
    let c = fixture("vmss-vmname.json");
    let names: Vec<(&str, Option<&str>)> =
        c.meta.targets.iter().map(|t| (t.name.as_str(), t.host.as_deref())).collect();
    assert_eq!(names, [("web_0: VM cached", Some("web_0")), ("web_1: VM cached", Some("web_1"))]);
}

#[test]
fn an_az_error_document_is_an_error_naming_the_file_code_and_path() {
    let doc = r#"{"error": {"code": "ResourceNotFound", "message": "The Resource 'Microsoft.Compute/virtualMachines/SQLVM02' under resource group 'sql-rg' was not found."}}"#;
    assert_eq!(sniff("m.json", doc.as_bytes()).map(|f| f.id()).ok(), Some("azure-monitor-json"));
    let e = read_as(&AzureMonitorJson, "metrics.json", doc.as_bytes()).unwrap_err().to_string();
    assert_eq!(
        e,
        "metrics.json at $.error: Azure returned an error instead of metrics: ResourceNotFound: \
         The Resource 'Microsoft.Compute/virtualMachines/SQLVM02' under resource group 'sql-rg' was not found."
    );
    let arr = format!("[{}, {doc}]", text("misspelled-percentange.json"));
    let e = azure_monitor::read("two.json", &arr).unwrap_err().to_string();
    assert!(e.starts_with("two.json at $[1].error: "), "{e}");
}

#[test]
fn broken_documents_name_the_json_path_or_line() {
    let cases = [
        ("{\"value\": [", "bad.json:1:11: not valid JSON"),
        ("{\"value\": 3}", "bad.json at $.value: expected an array, found a number"),
        ("{\"cost\": 0}", "bad.json at $: no `value` array"),
        ("{\"value\": []}", "bad.json at $.value: an Azure Monitor response with no metrics"),
        (
            r#"{"value": [{"name": {"value": "OS Disk Latency"}, "timeseries": [{"data": [{"timeStamp": "yesterday", "average": 1}]}]}]}"#,
            "bad.json at $.value[0].timeseries[0].data[0].timeStamp: `yesterday` is not an ISO 8601 time",
        ),
        (
            r#"{"value": [{"unit": "Percent"}]}"#,
            "bad.json at $.value[0].name.value: a metric without a name",
        ),
        ("\"text\"", "bad.json at $: expected an Azure Monitor response"),
    ];
    for (doc, want) in cases {
        let e = azure_monitor::read("bad.json", doc).unwrap_err().to_string();
        assert!(e.starts_with(want), "{doc}: {e}");
    }
}

#[test]
fn a_metric_azure_could_not_return_is_a_warning() {
    let doc = r#"{"value": [
        {"name": {"value": "OS Disk Latency"}, "errorCode": "MetricNotFound", "errorMessage": "not emitted"},
        {"name": {"value": "OS Disk IOPS Consumed Percentage"}, "timeseries": [{"data": [{"timeStamp": "2024-06-11T18:10:00Z", "maximum": 40}]}]}
    ]}"#;
    let c = azure_monitor::read("w.json", doc).unwrap();
    assert_eq!(c.meta.warnings.len(), 1);
    assert_eq!(
        c.meta.warnings[0].to_string(),
        "$.value[0]: Azure Monitor could not return `OS Disk Latency`: MetricNotFound not emitted"
    );
    // The maximum stands in when the average is absent.
    let t = target(&c, "OS disk");
    assert_eq!(series(&c, t, Metric::IopsConsumedPct), [(0, 40.0)]);
}

#[test]
fn other_json_is_not_claimed() {
    for doc in
        ["{\"sysstat\": {\"hosts\": []}}", "{\"value\": [1, 2]}", "[1, 2, 3]", "{\"error\": 3}"]
    {
        assert_ne!(
            sniff("x.json", doc.as_bytes()).map(|f| f.id()).ok(),
            Some(FORMAT.id()),
            "{doc}"
        );
    }
}

/// The fixture with its metrics, time series and points in another order.
fn shuffled(doc: &Value, seed: &[usize]) -> Value {
    let mut doc = doc.clone();
    let mut k = 0;
    let mut next = |n: usize| {
        k += 1;
        seed.get(k % seed.len().max(1)).copied().unwrap_or(0) % n.max(1)
    };
    if let Some(values) = doc.get_mut("value").and_then(Value::as_array_mut) {
        let n = values.len();
        values.rotate_left(next(n));
        values.swap(0, next(n));
        for m in values.iter_mut() {
            if let Some(ts) = m.get_mut("timeseries").and_then(Value::as_array_mut) {
                let n = ts.len();
                ts.rotate_left(next(n));
                for t in ts.iter_mut() {
                    if let Some(data) = t.get_mut("data").and_then(Value::as_array_mut) {
                        let n = data.len();
                        data.rotate_left(next(n));
                        data.swap(0, next(n));
                    }
                }
            }
        }
    }
    doc
}

const NAMES: [&str; 5] = [
    "ds13v2-vm-cached-100pct.json",
    "disk-short-spikes.json",
    "burst-credits-run-out.json",
    "misspelled-percentange.json",
    "vmss-vmname.json",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Reordering metrics, time series or points changes nothing.
    #[test]
    fn order_changes_nothing(which in 0..NAMES.len(), seed in proptest::collection::vec(0usize..1000, 1..12)) {
        let name = NAMES[which];
        let doc: Value = serde_json::from_str(&text(name)).unwrap();
        let a = fixture(name);
        let b = azure_monitor::read(name, &shuffled(&doc, &seed).to_string()).unwrap();
        prop_assert_eq!(a, b);
    }

    /// Arbitrary text never panics.
    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,400}") {
        let _ = azure_monitor::read("p.json", &s);
        let _ = read_as(&AzureMonitorJson, "p.json", s.as_bytes());
    }

    /// A fixture with bytes flipped, cut or values replaced never panics.
    #[test]
    fn mutated_fixtures_never_panic(
        which in 0..NAMES.len(),
        cut in 0.0f64..1.0,
        flips in proptest::collection::vec((0.0f64..1.0, proptest::char::any()), 0..8),
        value in prop_oneof![Just("null"), Just("\"x\""), Just("-1e308"), Just("[]"), Just("{}"), Just("1e999")],
    ) {
        let text = text(NAMES[which]);
        let mut chars: Vec<char> = text.chars().collect();
        for (at, c) in &flips {
            let i = ((chars.len() as f64) * at) as usize;
            if i < chars.len() { chars[i] = *c; }
        }
        let flipped: String = chars.iter().collect();
        let _ = azure_monitor::read("m.json", &flipped);
        let end = text.char_indices().map(|(i, _)| i).nth(((text.chars().count() as f64) * cut) as usize).unwrap_or(0);
        let _ = azure_monitor::read("m.json", &text[..end]);
        for key in ["\"average\": 100.0", "\"value\": \"0\"", "\"interval\": \"PT1M\"", "\"timeseries\": ["] {
            let replaced = text.replacen(key, &format!("{}: {value}", key.split(':').next().unwrap_or("")), 1);
            let _ = azure_monitor::read("m.json", &replaced);
        }
    }
}
