//! PerfMon CSV through the whole pipeline (`read_bytes`: sniff, decode, the polars reader,
//! derive): the project's hand-made fixtures, the real samples in ../shared (skipped when
//! absent), inline edge cases, and properties.

// Helpers panic on a failed expectation; conversions are exact, and the literals are the
// cells exactly as the files write them (more digits than an f64 holds).
#![allow(clippy::panic, clippy::float_cmp, clippy::excessive_precision)]

use crate::skip;

use std::path::{Path, PathBuf};

use advisor_model::{Location, Metric, TargetKind};
use advisor_normalize::{Capture, read_bytes};
use proptest::prelude::*;

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/captures/perfmon-csv")
}

fn samples_dir() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/samples/perfmon-csv");
    if p.is_dir() {
        Some(p)
    } else {
        skip::skip(&format!("{} is absent: the real PerfMon samples", p.display()));
        None
    }
}

fn read_file(path: &Path) -> Result<Capture, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    read_bytes(&name, &bytes).map_err(|e| e.to_string())
}

fn fixture(name: &str) -> Capture {
    read_file(&fixture_dir().join(name)).unwrap_or_else(|e| panic!("{e}"))
}

fn target(c: &Capture, name: &str, host: &str) -> u32 {
    let i = c
        .meta
        .targets
        .iter()
        .position(|t| t.name == name && t.host.as_deref() == Some(host))
        .unwrap_or_else(|| panic!("no target {name} on {host}: {:?}", c.meta.targets));
    u32::try_from(i).unwrap_or_else(|_| panic!())
}

/// The value of `metric` for `target` in its `k`-th row (rows in time order).
fn nth(c: &Capture, t: u32, metric: Metric, k: usize) -> f64 {
    let v = c.values(t, metric);
    *v.get(k).unwrap_or_else(|| panic!("{metric} of target {t} has {} values", v.len()))
}

fn warning<'a>(c: &'a Capture, starts: &str) -> &'a advisor_model::Warning {
    c.meta
        .warnings
        .iter()
        .find(|w| w.message.starts_with(starts) || w.message.contains(starts))
        .unwrap_or_else(|| panic!("no warning `{starts}` in {:?}", c.meta.warnings))
}

const AZURE: &str = "azure-vm_physicaldisk-logicaldisk-cpu-memory_eastern-240_1s_crlf.csv";

#[test]
fn azure_vm_capture() {
    let c = fixture(AZURE);
    assert_eq!(c.meta.version.as_deref(), Some("PDH-CSV 4.0"));
    assert_eq!(c.meta.timezone.as_deref(), Some("Eastern Daylight Time"));
    assert_eq!(c.meta.utc_offset_min, Some(-240));
    assert_eq!(c.meta.hosts, vec!["SQLVM01"]);
    let interval = c.meta.interval_s.unwrap_or_default();
    assert!((interval - 1.0).abs() < 0.01, "{interval}");
    let names: Vec<(&str, TargetKind)> =
        c.meta.targets.iter().map(|t| (t.name.as_str(), t.kind)).collect();
    use TargetKind::*;
    assert_eq!(
        names,
        vec![
            ("0 C:", Disk),
            ("1 D:", Disk),
            ("2 E:", Disk),
            ("3 F:", Disk),
            ("PhysicalDisk(_Total)", Aggregate),
            ("C:", Volume),
            ("D:", Volume),
            ("E:", Volume),
            ("F:", Volume),
            ("HarddiskVolume1", Volume),
            ("LogicalDisk(_Total)", Aggregate),
            ("SQLVM01", Host),
        ]
    );
    assert!(c.meta.targets.iter().all(|t| t.host.as_deref() == Some("SQLVM01")));
    assert_eq!(c.samples(), 61);
    // The first row is blank for rate counters: disks have 60 rows, the host 61 (memory).
    assert_eq!(c.rows_per_target(), vec![60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 61]);

    // Sample 10 of E: (the 10th disk row): 3,200 reads/s of 64 KiB at 2 ms = 200 MB/s.
    let e = target(&c, "2 E:", "SQLVM01");
    let k = 9;
    assert_eq!(nth(&c, e, Metric::ReadIops, k), 3200.0);
    assert_eq!(nth(&c, e, Metric::WriteIops, k), 0.0);
    assert_eq!(nth(&c, e, Metric::ReadMbps, k), 200.0);
    assert_eq!(nth(&c, e, Metric::Mbps, k), 200.0);
    assert_eq!(nth(&c, e, Metric::ReadLatencyMs, k), 2.0);
    assert_eq!(nth(&c, e, Metric::LatencyMs, k), 2.0);
    assert_eq!(nth(&c, e, Metric::ReadIoKib, k), 64.0);
    assert_eq!(nth(&c, e, Metric::QueueDepth, k), 6.4);
    assert_eq!(nth(&c, e, Metric::ReadQueueDepth, k), 6.4);
    assert_eq!(nth(&c, e, Metric::BusyPct, k), 97.5);
    assert_eq!(nth(&c, e, Metric::ReadPct, k), 100.0);
    // LogicalDisk E: carries the same counters.
    let ve = target(&c, "E:", "SQLVM01");
    assert_eq!(nth(&c, ve, Metric::ReadMbps, k), 200.0);

    // F: reports % Idle Time 104.5 at sample 11: busy clamps to 0, with one warning.
    let f = target(&c, "3 F:", "SQLVM01");
    assert_eq!(nth(&c, f, Metric::BusyPct, 10), 0.0);
    let w = warning(&c, "% Idle Time reads above 100 (up to 104.5");
    assert_eq!(w.location, Some(Location::column(r"\\SQLVM01\PhysicalDisk(3 F:)\% Idle Time")));

    let host = target(&c, "SQLVM01", "SQLVM01");
    assert_eq!(c.values(host, Metric::CpuPct).len(), 60);
    assert_eq!(c.values(host, Metric::AvailableMemoryMib).len(), 61);
    // Memory\Pages/sec is kept (a rate: blank in the first row).
    assert_eq!(c.values(host, Metric::PagesPerSec).len(), 60);
    for ignored in [
        r"PhysicalDisk(*)\Split IO/Sec",
        r"PhysicalDisk(*)\% Disk Time",
        r"PhysicalDisk(*)\Current Disk Queue Length",
        r"LogicalDisk(*)\Free Megabytes",
        r"Processor(*)\% User Time",
    ] {
        assert!(
            c.meta.ignored.iter().any(|i| i == ignored),
            "{ignored} not in {:?}",
            c.meta.ignored
        );
    }
    assert_eq!(c.meta.warnings.len(), 1, "{:?}", c.meta.warnings);
    // Every metric is in its canonical unit: totals and derived values are sane.
    for m in c.metrics() {
        for t in 0..c.meta.targets.len() as u32 {
            assert!(c.values(t, m).iter().all(|v| v.is_finite() && *v >= 0.0), "{m}");
        }
    }
}

#[test]
fn utf16le_with_bom() {
    let c = fixture("relog_utf16le-bom_physicaldisk_w-europe-60-dst-jump_5s.csv");
    assert!(c.meta.notes.iter().any(|n| n == "text encoding: UTF-16LE"), "{:?}", c.meta.notes);
    assert_eq!(c.meta.utc_offset_min, Some(60));
    assert_eq!(c.meta.timezone.as_deref(), Some("W. Europe Standard Time"));
    // The wall clock jumps an hour at the switch to summer time; the interval stays 5 s.
    assert_eq!(c.meta.interval_s, Some(5.0));
    let e = target(&c, "2 E:", "WEBVM02");
    assert_eq!(nth(&c, e, Metric::ReadIops, 2), 512.25);
    let host = target(&c, "WEBVM02", "WEBVM02");
    assert_eq!(nth(&c, host, Metric::AvailableMemoryMib, 0), 8100.0);
    assert_eq!(c.samples(), 12);
    let (start, end) = c.time_range().unwrap_or_default();
    // 01:59:50.250 to 03:00:45.250 as written: 11 steps of 5 s plus the hour skipped.
    assert_eq!(end - start, 55_000 + 3_600_000);
}

#[test]
fn cp1251_localized_counters_are_listed_not_guessed() {
    let c = fixture("russian-cp1251_localized-and-english-hosts_truncated-tz.csv");
    assert!(c.meta.notes.iter().any(|n| n == "text encoding: windows-1251"), "{:?}", c.meta.notes);
    assert_eq!(c.meta.hosts, vec!["SRV-1C", "SQL-EN"]);
    assert_eq!((c.meta.timezone.as_deref(), c.meta.utc_offset_min), (Some("RTZ 2"), None));
    warning(&c, "the time zone in the header is cut short");
    // Only the English host's counters are used.
    let names: Vec<(&str, Option<&str>)> =
        c.meta.targets.iter().map(|t| (t.name.as_str(), t.host.as_deref())).collect();
    assert_eq!(names, vec![("2 E:", Some("SQL-EN")), ("SQL-EN", Some("SQL-EN"))]);
    assert_eq!(nth(&c, 0, Metric::ReadIops, 1), 750.5);
    assert_eq!(nth(&c, 0, Metric::ReadLatencyMs, 1), 3.5);
    assert_eq!(nth(&c, 1, Metric::AvailableMemoryMib, 0), 3000.0);
    let w = warning(&c, "counter names look localized (Russian; 6 counter(s)");
    assert!(w.message.contains("`Физический диск(*)\\Обращений к диску/с`"), "{}", w.message);
    // Two display languages in one file: read in English, the Russian half named.
    assert!(w.message.contains("mixes counter names of two display languages"), "{}", w.message);
    assert!(w.message.contains("read in English only"), "{}", w.message);
    assert!(c.meta.ignored.iter().any(|i| i == "Память\\Доступно МБ"), "{:?}", c.meta.ignored);
}

#[test]
fn paging_files_join_the_volume_of_their_drive() {
    let c = fixture("paging-file_logicaldisk-memory-pagesec_utc_5s.csv");
    let names: Vec<(&str, TargetKind)> =
        c.meta.targets.iter().map(|t| (t.name.as_str(), t.kind)).collect();
    // `Paging File(\??\C:\pagefile.sys)` lands on the LogicalDisk target `C:`; `_Total` and
    // `% Usage Peak` are not used; Pages/sec is the host's.
    assert_eq!(
        names,
        vec![
            ("C:", TargetKind::Volume),
            ("D:", TargetKind::Volume),
            ("LIFTVM07", TargetKind::Host)
        ]
    );
    let (cd, dd, host) = (
        target(&c, "C:", "LIFTVM07"),
        target(&c, "D:", "LIFTVM07"),
        target(&c, "LIFTVM07", "LIFTVM07"),
    );
    // % Usage is an instant value: the first row has it, so row 3 is the fourth value.
    assert_eq!(c.values(cd, Metric::PagefileUsagePct).len(), 12);
    assert_eq!(nth(&c, cd, Metric::PagefileUsagePct, 3), 42.5);
    assert_eq!(nth(&c, dd, Metric::PagefileUsagePct, 3), 7.25);
    // Pages/sec is a rate: the first row is blank, so row 3 is the third value.
    assert_eq!(c.values(host, Metric::PagesPerSec).len(), 11);
    assert_eq!(nth(&c, host, Metric::PagesPerSec, 2), 1234.5);
    assert_eq!(nth(&c, host, Metric::AvailableMemoryMib, 3), 607.0);
    assert!(c.values(cd, Metric::Iops).len() == 11 && c.values(dd, Metric::BusyPct).len() == 11);
    assert_eq!(
        c.meta.ignored,
        vec![
            r"Paging File(*)\% Usage Peak",
            r"Paging File(_Total)\% Usage",
            r"Paging File(_Total)\% Usage Peak"
        ],
        "_Total and the peaks are listed as not used"
    );
    assert!(c.meta.warnings.is_empty(), "{:?}", c.meta.warnings);
}

#[test]
fn only_localized_counters_is_an_error_with_advice() {
    // Hungarian has no table: refused, with how to add it or capture English names.
    let text = "\"(PDH-CSV 4.0) (W. Europe Standard Time)(-60)\",\"\\\\PC\\Fizikai lemez(0 C:)\\Írási sebesség (bájt/s)\"\r\n\"11/02/2023 09:00:00.015\",\"1\"\r\n";
    let e = read_bytes("hu.csv", text.as_bytes()).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.starts_with("hu.csv:1:1: counter names look localized (non-English"), "{e}");
    assert!(e.contains("nothing in this file could be used"), "{e}");
    assert!(e.contains("--counters FILE"), "{e}");
    assert!(e.contains("display language is English"), "{e}");
    // Russian has one: the same disk counter is read.
    let text = "\"(PDH-CSV 4.0) (RTZ 2 (\",\"\\\\PC\\Физический диск(0 C:)\\Обращений к диску/с\"\r\n\"11/02/2023 09:00:00.015\",\"1\"\r\n";
    let c = read_bytes("ru.csv", text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.metrics(), vec![Metric::Iops]);
}

#[test]
fn truncated_last_line_is_skipped() {
    let c = fixture("truncated-last-line_physicaldisk_pacific-420_1s_lf.csv");
    assert_eq!(c.meta.utc_offset_min, Some(-420));
    assert_eq!(c.samples(), 7);
    let w = warning(&c, "last line truncated");
    assert!(w.message.contains("line 10"), "{}", w.message);
    assert_eq!(w.location, Some(Location::line(10, 1)));
    assert_eq!(c.meta.warnings.len(), 1);
    // Times cross midnight as written.
    let (start, end) = c.time_range().unwrap_or_default();
    assert_eq!(end - start, 6_000);
}

#[test]
fn duplicate_columns_keep_the_first() {
    let c = fixture("duplicate-columns_physicaldisk_utc_15s.csv");
    let e = target(&c, "1 E:", "DBVM04");
    // The first `Disk Reads/sec` column (1234.5), not the repeat (which holds double).
    assert_eq!(nth(&c, e, Metric::ReadIops, 1), 1234.5);
    let w = warning(&c, "2 column name(s) repeat");
    assert!(w.message.contains(r"`PhysicalDisk(1 E:)\Disk Reads/sec`"), "{}", w.message);
    assert!(w.message.contains(r"`PhysicalDisk(1 E:)\Avg. Disk sec/Read`"), "{}", w.message);
    assert_eq!(w.location, Some(Location::column(r"\\DBVM04\PhysicalDisk(1 E:)\Disk Reads/sec")));
    // busy from % Disk Time (no % Idle Time), capped at 100; the instant queue not used.
    assert!(c.meta.notes.iter().any(|n| n.contains("% Disk Time")));
    assert!(c.values(e, Metric::BusyPct).iter().all(|v| *v <= 100.0));
    assert_eq!(c.meta.ignored, vec![r"PhysicalDisk(*)\Current Disk Queue Length"]);
    assert_eq!(c.meta.interval_s, Some(15.0));
    assert_eq!(c.meta.utc_offset_min, Some(0));
}

#[test]
fn two_hosts_have_their_own_targets() {
    let c = fixture("two-hosts_physicaldisk-cpu-memory_gmt-60_2s.csv");
    assert_eq!(c.meta.hosts, vec!["SQLNODE1", "SQLNODE2"]);
    let e1 = target(&c, "2 E:", "SQLNODE1");
    let e2 = target(&c, "2 E:", "SQLNODE2");
    assert_ne!(e1, e2);
    assert_eq!(nth(&c, e2, Metric::WriteMbps, 4), 1.0);
    let h1 = target(&c, "SQLNODE1", "SQLNODE1");
    let h2 = target(&c, "SQLNODE2", "SQLNODE2");
    assert_eq!(c.meta.targets[h1 as usize].kind, TargetKind::Host);
    assert!(c.values(h1, Metric::CpuPct).iter().all(|v| *v == 55.0));
    assert!(c.values(h2, Metric::CpuPct).iter().all(|v| *v == 12.0));
    assert_eq!(nth(&c, h2, Metric::AvailableMemoryMib, 0), 30000.0);
    assert_eq!(c.meta.utc_offset_min, Some(60));
    assert_eq!(c.meta.interval_s, Some(2.0));
}

#[test]
fn spreadsheet_resave_with_semicolons_and_decimal_commas() {
    let c = fixture("excel-resave_semicolon-decimal-comma_logicaldisk_w-europe-60_1s.csv");
    assert!(c.meta.notes.iter().any(|n| n.contains("semicolons and numbers use a decimal comma")));
    let e = target(&c, "E:", "FILESRV");
    assert_eq!(c.meta.targets[e as usize].kind, TargetKind::Volume);
    assert_eq!(nth(&c, e, Metric::ReadLatencyMs, 3), 12.5);
    assert_eq!(nth(&c, e, Metric::ReadIops, 3), 301.5);
    let h = target(&c, "FILESRV", "FILESRV");
    assert_eq!(nth(&c, h, Metric::CpuPct, 3), 25.75);
    assert_eq!(c.meta.utc_offset_min, Some(60));
    assert_eq!(c.samples(), 14);
    assert!(c.meta.warnings.is_empty(), "{:?}", c.meta.warnings);
}

#[test]
fn every_fixture_reads() {
    let mut n = 0;
    for entry in std::fs::read_dir(fixture_dir()).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.extension().is_none_or(|x| x != "csv") {
            continue;
        }
        n += 1;
        match read_file(&p) {
            Ok(c) => {
                assert!(!c.meta.targets.is_empty() && !c.metrics().is_empty(), "{}", p.display())
            }
            Err(e) => panic!("{}: {e}", p.display()),
        }
    }
    assert_eq!(n, 8);
}

// --- the real samples (../shared, read in place) -----------------------------------------

fn sample(name: &str) -> Option<Result<Capture, String>> {
    samples_dir().map(|d| read_file(&d.join(name)))
}

#[test]
fn sample_logicaldisk_ist_blank_first_row() {
    let Some(c) = sample("logicaldisk-queue_IST-330_blank-first-row_small.csv") else { return };
    let c = c.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.meta.timezone.as_deref(), Some("India Standard Time"));
    assert_eq!(c.meta.utc_offset_min, Some(330));
    assert_eq!(c.meta.hosts, vec!["IMPC3116"]);
    let names: Vec<&str> = c.meta.targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["HarddiskVolume2", "C:", "D:", "LogicalDisk(_Total)"]);
    assert_eq!(c.meta.targets[3].kind, TargetKind::Aggregate);
    let cdrive = target(&c, "C:", "IMPC3116");
    // Line 3: "0.032083023520161361" read, "0.018815808591012426" write.
    assert_eq!(nth(&c, cdrive, Metric::ReadQueueDepth, 0), 0.032083023520161361);
    assert_eq!(nth(&c, cdrive, Metric::WriteQueueDepth, 0), 0.018815808591012426);
    assert_eq!(nth(&c, cdrive, Metric::QueueDepth, 0), 0.032083023520161361 + 0.018815808591012426);
    // The average read and write queues give the total: the instant queue is not used.
    assert_eq!(c.meta.ignored, vec![r"LogicalDisk(*)\Current Disk Queue Length"]);
    assert_eq!(c.samples(), 20);
    assert!((c.meta.interval_s.unwrap_or_default() - 15.0).abs() < 0.1);
}

#[test]
fn sample_typeperf_1s_memory_cpu() {
    let Some(c) = sample("memory-availmb-cpu_IST-330_1s_typeperf.csv") else { return };
    let c = c.unwrap_or_else(|e| panic!("{e}"));
    let h = target(&c, "Z_ANXX1_HPPAVX1", "Z_ANXX1_HPPAVX1");
    assert_eq!(nth(&c, h, Metric::AvailableMemoryMib, 0), 696.0);
    assert_eq!(nth(&c, h, Metric::CpuPct, 0), 7.2962024860781848901);
    assert_eq!(c.values(h, Metric::AvailableMemoryMib).len(), 330);
    assert_eq!(c.meta.ignored, vec![r"Memory\% Committed Bytes In Use"]);
    assert!((c.meta.interval_s.unwrap_or_default() - 1.0).abs() < 0.01);
}

#[test]
fn sample_comma_in_instance_name() {
    let Some(c) = sample("memory-cpu_comma-in-instance-name_IST-330_tiny.csv") else { return };
    let c = c.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.meta.targets.len(), 1);
    let h = target(&c, "ZANXX1I9", "ZANXX1I9");
    assert_eq!(nth(&c, h, Metric::CpuPct, 0), 2.021504018213504672);
    assert_eq!(nth(&c, h, Metric::AvailableMemoryMib, 0), 13201.0);
    // `(_Total)` is used; the NUMA node total `(0,_Total)` is listed as not used.
    assert!(c.meta.ignored.iter().any(|i| i == r"Processor Information(*)\% Processor Time"));
}

#[test]
fn sample_chinese_wide_memory_process() {
    let Some(c) = sample("memory-process_chinese-tz-dropped_wide-640KB.csv") else { return };
    let c = c.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((c.meta.timezone.as_deref(), c.meta.utc_offset_min), (None, None));
    warning(&c, "the time zone in the header is cut short");
    let h = target(&c, "DESKTOP-5GTCQEM", "DESKTOP-5GTCQEM");
    // Available Bytes (the most precise of the three) in MiB.
    let first = nth(&c, h, Metric::AvailableMemoryMib, 0);
    assert!((first - 47731.35).abs() < 0.01, "{first}");
    assert!(c.meta.ignored.iter().any(|i| i == r"Process(*)\% Processor Time"));
    assert!(c.meta.ignored.iter().any(|i| i == r"Memory\Available MBytes"));
}

#[test]
fn sample_chinese_physicaldisk_duplicates() {
    let Some(c) = sample("physicaldisk-logicaldisk_chinese-tz-dropped_duplicate-columns_crlf.csv")
    else {
        return;
    };
    let c = c.unwrap_or_else(|e| panic!("{e}"));
    let d = target(&c, "1 C: E:", "DESKTOP-5GTCQEM");
    assert_eq!(c.meta.targets[d as usize].kind, TargetKind::Disk);
    // Line 2: Avg. Disk sec/Read "0.00029796666666666668131" s, Disk Read Bytes/sec
    // "3490.1508696305950252", % Idle Time "99.294371567803892731".
    assert_eq!(nth(&c, d, Metric::ReadLatencyMs, 0), 0.00029796666666666668131 * 1000.0);
    assert_eq!(nth(&c, d, Metric::ReadMbps, 0), 3490.1508696305950252 / 1048576.0);
    assert_eq!(nth(&c, d, Metric::BusyPct, 0), 100.0 - 99.294371567803892731);
    assert_eq!(nth(&c, d, Metric::WriteIops, 0), 54.934589744874941175);
    let v = target(&c, "C:", "DESKTOP-5GTCQEM");
    assert_eq!(c.meta.targets[v as usize].kind, TargetKind::Volume);
    assert_eq!(nth(&c, v, Metric::ReadIops, 0), 0.60147361034534607693);
    let w = warning(&c, "7 column name(s) repeat");
    assert!(w.message.contains(r"`PhysicalDisk(1 C: E:)\% Disk Time`"), "{}", w.message);
    assert_eq!(c.samples(), 120);
    assert_eq!(c.meta.interval_s, Some(5.0));
}

#[test]
fn sample_russian_cp1251_is_refused_with_advice() {
    let Some(r) = sample("process-cpu_russian-cp1251_truncated-tz-header.csv") else { return };
    let e = r.err().unwrap_or_default();
    assert!(e.contains("counter names look localized (Russian"), "{e}");
    assert!(e.contains(r"`Процесс(*)\% загруженности процессора`"), "{e}");
}

#[test]
fn every_real_sample_reads() {
    let Some(dir) = samples_dir() else { return };
    let mut n = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        n += 1;
        match read_file(&p) {
            Ok(c) => {
                assert!(!c.meta.targets.is_empty(), "{}", p.display());
                assert!(!c.metrics().is_empty(), "{}", p.display());
                assert_eq!(c.meta.version.as_deref(), Some("PDH-CSV 4.0"));
            }
            // Only English counter names are read: a capture made on a Russian Windows
            // is refused with the advice to capture English names.
            Err(e) => assert!(e.contains("look localized"), "{}: {e}", p.display()),
        }
    }
    assert!(n >= 6, "{n} samples");
}

// --- edge cases written inline ----------------------------------------------------------

const HEAD: &str = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\H\\PhysicalDisk(0 C:)\\Disk Reads/sec\",\"\\\\H\\PhysicalDisk(0 C:)\\Avg. Disk sec/Read\"\r\n";

fn read_str(text: &str) -> Result<Capture, String> {
    read_bytes("t.csv", text.as_bytes()).map_err(|e| e.to_string())
}

#[test]
fn broken_rows_in_the_middle_keep_times_and_values_aligned() {
    let text = format!(
        "{HEAD}{}{}{}{}{}",
        "\"01/01/2024 00:00:01.000\",\"10\",\"0.001\"\r\n",
        "\"01/01/2024 00:00:02.000\",\"20\"\r\n",
        "\"01/01/2024 00:0x:03.000\",\"30\",\"0.003\"\r\n",
        "\"01/01/2024 00:00:04.000\",\"40\",\"0.004\"\r\n",
        "\"01/01/2024 00:00:05.000\",\"\",\"0.005\"\r\n",
    );
    let c = read_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.values(0, Metric::ReadIops), vec![10.0, 40.0]);
    assert_eq!(c.values(0, Metric::ReadLatencyMs), vec![1.0, 4.0, 5.0]);
    assert_eq!(c.samples(), 3);
    let msgs: Vec<String> = c.meta.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        msgs,
        vec![
            "3:1: skipped a broken row: its number of cells differs from the header's 3",
            "4:1: skipped a row whose time stamp cannot be read",
        ]
    );
}

#[test]
fn cells_that_are_not_numbers_and_absurd_values() {
    let text = format!(
        "{HEAD}{}{}{}{}",
        "\"01/01/2024 00:00:01.000\",\"10\",\"abc\"\r\n",
        "\"01/01/2024 00:00:02.000\",\"-5\",\"0.002\"\r\n",
        "\"01/01/2024 00:00:03.000\",\"1e300\",\"NaN\"\r\n",
        "\"01/01/2024 00:00:04.000\",\"7\",\"0.004\"\r\n",
    );
    let c = read_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.values(0, Metric::ReadIops), vec![10.0, 7.0]);
    assert_eq!(c.values(0, Metric::ReadLatencyMs), vec![2.0, 4.0]);
    let w = warning(&c, "cells that are not numbers (e.g. `abc`) were read as missing");
    assert_eq!(w.location, Some(Location::column(r"\\H\PhysicalDisk(0 C:)\Avg. Disk sec/Read")));
    let w = warning(&c, "dropped values that cannot be right");
    assert_eq!(w.count, 3);
}

#[test]
fn lf_only_no_final_newline_and_no_zone() {
    let text = "\"(PDH-CSV 4.0)\",\"\\\\H\\Memory\\Available KBytes\"\n\"01/01/2024 00:00:01.000\",\"2048\"\n\"01/01/2024 00:00:02.000\",\"3072\"";
    let c = read_str(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.values(0, Metric::AvailableMemoryMib), vec![2.0, 3.0]);
    assert_eq!((c.meta.utc_offset_min, c.meta.timezone.as_deref()), (None, None));
    assert!(c.meta.warnings.is_empty(), "{:?}", c.meta.warnings);
}

#[test]
fn bad_inputs_name_the_file_and_line() {
    let e = read_str(HEAD).err().unwrap_or_default();
    assert!(e.starts_with("t.csv") && e.contains("no data lines"), "{e}");
    let e = read_str(&format!("{HEAD}\"01/01/2024 00:00:01.000\",\"1")).err().unwrap_or_default();
    assert!(e.starts_with("t.csv:2:1: no usable data line"), "{e}");
    let e = read_str(&format!("{HEAD}\"01/01/2024 00:00:01.000\",\" \",\" \"\r\n"))
        .err()
        .unwrap_or_default();
    assert!(
        e.starts_with("t.csv") && e.contains("no counter that advisor uses has a value"),
        "{e}"
    );
}

// --- properties ---------------------------------------------------------------------------

/// The English disk counters a generated capture uses, with their expected conversion.
type Conversion = fn(f64) -> f64;

const COUNTERS: &[(&str, Metric, Conversion)] = &[
    ("Disk Reads/sec", Metric::ReadIops, |v| v),
    ("Disk Writes/sec", Metric::WriteIops, |v| v),
    ("Disk Read Bytes/sec", Metric::ReadMbps, |v| v / 1048576.0),
    ("Disk Write Bytes/sec", Metric::WriteMbps, |v| v / 1048576.0),
    ("Avg. Disk sec/Read", Metric::ReadLatencyMs, |v| v * 1000.0),
    ("Avg. Disk sec/Write", Metric::WriteLatencyMs, |v| v * 1000.0),
    ("Avg. Disk Bytes/Read", Metric::ReadIoKib, |v| v / 1024.0),
    ("Avg. Disk Queue Length", Metric::QueueDepth, |v| v),
    ("% Idle Time", Metric::BusyPct, |v| 100.0 - v.clamp(0.0, 100.0)),
];

const INSTANCES: &[&str] = &["0 C:", "1 D:", "2 E:", "3", "1 C: E:", "HarddiskVolume2", "F:"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_after_a_valid_header_never_panics(body in "\\PC{0,600}", crlf in any::<bool>()) {
        let text = format!("{HEAD}{}", if crlf { body.replace('\n', "\r\n") } else { body });
        if let Err(e) = read_bytes("p.csv", text.as_bytes()) {
            prop_assert!(e.to_string().starts_with("p.csv"));
        }
    }

    #[test]
    fn csv_like_text_after_a_valid_header_never_panics(
        rows in proptest::collection::vec(
            proptest::collection::vec("[0-9.,;\" e:/-]{0,12}", 0..5), 0..12)
    ) {
        let mut text = HEAD.to_owned();
        for r in rows {
            text.push_str(&r.join(","));
            text.push('\n');
        }
        if let Err(e) = read_bytes("p.csv", text.as_bytes()) {
            prop_assert!(e.to_string().starts_with("p.csv"));
        }
    }

    #[test]
    fn generated_capture_round_trips(
        cols in proptest::collection::btree_set((0..INSTANCES.len(), 0..COUNTERS.len()), 1..12),
        values in proptest::collection::vec(0.0f64..1000.0, 1..200),
        rows in 2usize..6,
        semicolon in any::<bool>(),
    ) {
        let cols: Vec<(usize, usize)> = cols.into_iter().collect();
        let sep = if semicolon { ";" } else { "," };
        let mut text = String::from("\"(PDH-CSV 4.0) (Tokyo Standard Time)(-540)\"");
        for (i, k) in &cols {
            text.push_str(&format!("{sep}\"\\\\VM\\PhysicalDisk({})\\{}\"", INSTANCES[*i], COUNTERS[*k].0));
        }
        text.push_str("\r\n");
        let cell = |r: usize, j: usize| values[(r * cols.len() + j) % values.len()];
        for r in 0..rows {
            text.push_str(&format!("\"05/06/2024 07:08:{:02}.500\"", r));
            for j in 0..cols.len() {
                let v = cell(r, j);
                let v = if semicolon { v.to_string().replace('.', ",") } else { v.to_string() };
                text.push_str(&format!("{sep}\"{v}\""));
            }
            text.push_str("\r\n");
        }
        let c = read_bytes("gen.csv", text.as_bytes()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(c.meta.utc_offset_min, Some(540));
        prop_assert_eq!(c.meta.interval_s, Some(1.0));
        prop_assert_eq!(c.samples(), rows);
        for (j, (i, k)) in cols.iter().enumerate() {
            let t = target(&c, INSTANCES[*i], "VM");
            let (_, metric, conv) = COUNTERS[*k];
            let expected: Vec<f64> = (0..rows).map(|r| conv(cell(r, j))).collect();
            prop_assert_eq!(c.values(t, metric), expected, "{} {}", INSTANCES[*i], COUNTERS[*k].0);
        }
    }
}
