//! PerfMon captures in other Windows display languages, end to end with the real binary:
//! the DS13_v2 field case written by a German, a Russian and a Japanese Windows gives the
//! findings of the English capture of the same numbers; `--counters FILE` adds a language without
//! a rebuild and `advisor inspect` names it; a bad table is refused with file:line:column.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use crate::common;

use common::*;

const TOPOLOGY: &str = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30/topology.toml";

/// The findings and the checks not evaluated of `advisor analyze FILE --format json`.
fn findings(file: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["analyze", file, "--topology", TOPOLOGY, "--format", "json", "-q"];
    args.extend_from_slice(extra);
    let out = advisor(&repo(), &args);
    assert!(out.status.success(), "{file}: {}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json report");
    serde_json::json!({
        "findings": report["findings"],
        "not_evaluated": report["not_evaluated"],
    })
}

fn rule_ids(v: &serde_json::Value) -> Vec<String> {
    let mut ids: Vec<String> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().unwrap_or_default().to_owned())
        .collect();
    ids.sort();
    ids
}

#[test]
fn german_russian_and_japanese_captures_give_the_english_findings() {
    let scenario =
        findings("fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30/capture.csv", &[]);
    for tag in ["de-DE", "ru-RU"] {
        let localized = findings(&format!("fixtures/locales/{tag}.csv"), &[]);
        let english = findings(&format!("fixtures/locales/{tag}.en.csv"), &[]);
        assert_eq!(localized, english, "{tag}");
        let ids = rule_ids(&localized);
        // The field case's verdicts (expect.toml) hold in both languages.
        for fire in
            ["vm-cached-throughput-cap", "temp-disk-with-cached-disks", "latency-above-norm"]
        {
            assert!(ids.iter().any(|i| i == fire), "{tag}: {fire} not in {ids:?}");
        }
    }
    // German names every counter advisor reads in the field case: the same report as the
    // original English capture.
    assert_eq!(findings("fixtures/locales/de-DE.csv", &[]), scenario);
    assert_eq!(findings("fixtures/locales/de-DE.utf16.csv", &[]), scenario);
    // Japanese: English names under a zone cut to "(PDH-CSV 4.0) (" (see make_locales.py:
    // no public source gives Japanese names for these counters).
    assert_eq!(findings("fixtures/locales/ja-JP.csv", &[]), scenario);
}

#[test]
fn a_language_added_with_counters_file_is_read_and_named() {
    let dir = std::env::temp_dir().join(format!("advisor-locales-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let table = dir.join("hu-HU.toml");
    std::fs::write(
        &table,
        "language = \"Hungarian\"\ntag = \"hu-HU\"\nsources = [\"https://github.com/clinthuffman/PAL/blob/3046f15bba97f052431035dfcb49c5e54718e403/PAL2/PALWizard/bin/Debug/CounterLang.xml (huHU)\"]\n\n[objects.PhysicalDisk]\nname = \"Fizikai lemez\"\n[objects.PhysicalDisk.counters]\n\"Disk Write Bytes/sec\" = \"Írási sebesség (bájt/s)\"\n",
    )
    .expect("table");
    let capture = dir.join("hu.csv");
    let text = "\"(PDH-CSV 4.0) (W. Europe Standard Time)(-60)\",\"\\\\SRV\\Fizikai lemez(2 E:)\\Írási sebesség (bájt/s)\"\r\n\"01/02/2026 10:00:00.000\",\"1048576\"\r\n\"01/02/2026 10:00:01.000\",\"2097152\"\r\n";
    let (bytes, _, _) = encoding_rs::WINDOWS_1250.encode(text);
    std::fs::write(&capture, &bytes).expect("capture");
    let (c, t) = (capture.to_str().expect("utf-8"), table.to_str().expect("utf-8"));

    // Without the table: refused, naming what to do.
    let out = advisor(&repo(), &["inspect", c]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("do not hold these names"), "{err}");
    assert!(err.contains("--counters FILE"), "{err}");

    // With it: read, and inspect says which language.
    let out = advisor(&repo(), &["inspect", c, "--counters", t]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        text.contains(&format!(
            "counter names are Hungarian (hu-HU): 1 counter(s) read through the table {t}"
        )),
        "{text}"
    );
    assert!(text.contains("write_mbps"), "{text}");
    let out = advisor(&repo(), &["analyze", c, "--counters", t, "--format", "json", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // A table with a typo: refused before any capture is read, at its line and column.
    std::fs::write(&table, "language = \"Hungarian\"\ntag = \"hu-HU\"\nsources = [\"x\"]\n[objects.PhysicalDisk.counters]\n\"Disk Writes/sek\" = \"y\"\n").expect("table");
    let out = advisor(&repo(), &["analyze", c, "--counters", t]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{t}:")), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
