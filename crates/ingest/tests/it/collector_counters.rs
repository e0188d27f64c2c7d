//! The Windows collector (`collect/collect-windows.ps1`) asks typeperf for exactly the
//! counters the PerfMon reader uses: every counter in its list maps to a metric as the
//! reader's preferred source (rank 0), and every metric the reader takes from a disk object
//! is asked of both PhysicalDisk and LogicalDisk. The committed bundle fixture's
//! `counters.txt` is the list as the script writes it.

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // tests fail by panicking

use std::collections::BTreeSet;
use std::path::Path;

use advisor_ingest::perfmon::counters::{disk_counter, memory_counter};

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The quoted paths of the script's `$Counters = @( ... )` block.
fn script_counters() -> Vec<String> {
    let src = std::fs::read_to_string(repo().join("collect/collect-windows.ps1")).unwrap();
    let start = src.find("$Counters = @(").expect("the $Counters block");
    let block = &src[start..];
    let block = &block[..block.find("\n)").expect("its end")];
    block
        .lines()
        .skip(1)
        .filter_map(|l| l.trim().strip_prefix('\'')?.strip_suffix('\'').map(str::to_owned))
        .collect()
}

/// `\Object(Instance)\Counter` split.
fn split(path: &str) -> (&str, Option<&str>, &str) {
    let rest = path.strip_prefix('\\').unwrap();
    let (obj, counter) = rest.rsplit_once('\\').unwrap();
    match obj.split_once('(') {
        Some((o, i)) => (o, Some(i.strip_suffix(')').unwrap()), counter),
        None => (obj, None, counter),
    }
}

/// Every disk counter name the reader knows, from its own table: the names it maps.
const DISK_COUNTERS: &[&str] = &[
    "Disk Reads/sec",
    "Disk Writes/sec",
    "Disk Transfers/sec",
    "Disk Read Bytes/sec",
    "Disk Write Bytes/sec",
    "Disk Bytes/sec",
    "Avg. Disk sec/Read",
    "Avg. Disk sec/Write",
    "Avg. Disk sec/Transfer",
    "Avg. Disk Bytes/Read",
    "Avg. Disk Bytes/Write",
    "Avg. Disk Bytes/Transfer",
    "Avg. Disk Queue Length",
    "Avg. Disk Read Queue Length",
    "Avg. Disk Write Queue Length",
    "Current Disk Queue Length",
    "% Idle Time",
    "% Disk Time",
];

#[test]
fn the_windows_collector_asks_exactly_for_the_counters_the_reader_prefers() {
    let counters = script_counters();
    assert!(counters.len() > 30, "{counters:?}");
    let mut seen = BTreeSet::new();
    for c in &counters {
        assert!(seen.insert(c.clone()), "{c} twice");
        let (object, instance, counter) = split(c);
        match object {
            "PhysicalDisk" | "LogicalDisk" => {
                assert_eq!(instance, Some("*"), "{c}");
                let Some((_, _, rank)) = disk_counter(counter) else {
                    panic!("{c}: the reader does not map it")
                };
                assert_eq!(rank, 0, "{c}: a fallback, not the reader's preferred counter");
            }
            "Memory" => {
                let Some((_, _, rank)) = memory_counter(counter) else {
                    panic!("{c}: the reader does not map it")
                };
                assert_eq!(rank, 0, "{c}");
            }
            "Processor" => assert_eq!((instance, counter), (Some("_Total"), "% Processor Time")),
            "Paging File" => assert_eq!((instance, counter), (Some("*"), "% Usage")),
            other => panic!("{c}: the reader has no object {other}"),
        }
    }
    // Every metric the reader takes from a disk counter at rank 0, for both objects.
    let preferred: BTreeSet<_> = DISK_COUNTERS
        .iter()
        .filter(|n| disk_counter(n).is_some_and(|(_, _, rank)| rank == 0))
        .collect();
    for object in ["PhysicalDisk", "LogicalDisk"] {
        for name in &preferred {
            let path = format!("\\{object}(*)\\{name}");
            assert!(seen.contains(&path), "{path} is missing from the script");
        }
    }
    // Every metric memory_counter knows at rank 0.
    for name in ["Available Bytes", "Pages/sec"] {
        assert!(seen.contains(&format!("\\Memory\\{name}")), "{name}");
    }
    // The list in the table above is the reader's whole disk vocabulary.
    for name in DISK_COUNTERS {
        assert!(disk_counter(name).is_some(), "{name}");
    }
}

#[test]
fn the_bundle_fixture_holds_the_list_as_the_script_writes_it() {
    let path = repo().join("fixtures/bundles/windows-ds13v2/counters.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let written: Vec<&str> = text.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(written, script_counters());
}
