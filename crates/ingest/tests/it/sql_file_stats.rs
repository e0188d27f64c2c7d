//! SQL Server file statistics: every shape of `fixtures/captures/sql-file-stats/` gives back
//! the rates, IO sizes and waits `make_fixtures.py` wrote them from; one snapshot gives
//! since-start averages, said so; errors name the line and column or the JSON path.

// Test helpers outside #[test] functions panic on purpose.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use advisor_ingest::sql_file_stats;
use advisor_ingest::{RawCapture, sniff};
use advisor_model::{DbFileKind, Metric, TargetKind};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/captures/sql-file-stats")
}

fn read(name: &str) -> RawCapture {
    let text =
        std::fs::read_to_string(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    sql_file_stats::read(name, &text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The values of `m` for the file at `path`, in row order.
fn values(c: &RawCapture, path: &str, m: Metric) -> Vec<f64> {
    let t = c.meta.targets.iter().position(|t| t.name == path);
    let t = t.unwrap_or_else(|| panic!("no {path}")) as u32;
    let col = c.table.column(m).unwrap_or_else(|| panic!("no column {m}"));
    (0..c.table.len()).filter(|&r| c.table.target[r] == t).filter_map(|r| col[r]).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

const LOG: &str = r"G:\log\sales_log.ldf";
const DATA: &str = r"F:\data\sales.mdf";

/// The sales database's files at the rates of `make_fixtures.py`: the log 210 writes/s of
/// 24 KiB at 1.3 ms, the data file 310 reads/s of 8 KiB at 1.8 ms.
fn check_sales(name: &str, c: &RawCapture, intervals: usize) {
    assert_eq!(c.meta.format.id(), "sql-file-stats", "{name}");
    for (path, m, want) in [
        (LOG, Metric::WriteIops, 210.0),
        (LOG, Metric::WriteIoKib, 24.0),
        (LOG, Metric::WriteLatencyMs, 1.3),
        (DATA, Metric::ReadIops, 310.0),
        (DATA, Metric::ReadIoKib, 8.0),
        (DATA, Metric::ReadLatencyMs, 1.8),
    ] {
        let got = values(c, path, m);
        assert_eq!(got.len(), intervals, "{name}: {path} {m}: {got:?}");
        assert!(got.iter().all(|v| close(*v, want)), "{name}: {path} {m}: {got:?}, want {want}");
    }
    assert_eq!(c.meta.interval_s, Some(60.0), "{name}");
    let log = c.meta.files.iter().find(|f| f.path.as_deref() == Some(LOG)).expect("the log");
    assert_eq!(log.kind, DbFileKind::Log, "{name}");
    assert_eq!(log.database.as_deref(), Some("sales"), "{name}");
    assert!(!log.since_start, "{name}");
    let t = &c.meta.targets[log.target as usize];
    assert_eq!((t.kind, t.host.as_deref()), (TargetKind::File, Some("SQLVM01")), "{name}");
    assert!(!c.meta.since_boot_only, "{name}");
}

#[test]
fn every_windows_shape_gives_the_same_rates() {
    for (name, intervals) in [
        ("ssms_header_two_snapshots.csv", 1),
        ("ssms_no_header_two_snapshots.csv", 1),
        ("export_csv_usecult_de_three_snapshots.csv", 2),
        ("for_json_path_two_runs.json", 1),
        ("for_json_auto_root.json", 1),
        ("ssms_grid_for_json.txt", 1),
    ] {
        let c = read(name);
        check_sales(name, &c, intervals);
        assert_eq!(c.meta.files.len(), 11, "{name}: every file of the instance");
    }
}

#[test]
fn detection_claims_every_shape() {
    for e in std::fs::read_dir(fixtures()).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") || name.ends_with(".py") {
            continue;
        }
        let bytes = std::fs::read(e.path()).unwrap();
        let f = sniff(&name, &bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(f.id(), "sql-file-stats", "{name}");
    }
}

#[test]
fn sqlcmd_runs_on_linux_are_placed_by_mount_path() {
    let c = read("sqlcmd_linux_two_runs.csv");
    // orders_log: 150 writes/s of 16 KiB at 1.6 ms.
    let log = "/var/opt/mssql/log/orders_log.ldf";
    assert!(close(values(&c, log, Metric::WriteIops)[0], 150.0));
    assert!(close(values(&c, log, Metric::WriteLatencyMs)[0], 1.6));
    assert_eq!(c.meta.files.len(), 6);
}

#[test]
fn one_snapshot_gives_averages_since_start_and_says_so() {
    let c = read("export_csv_one_snapshot.csv");
    assert!(c.meta.since_boot_only);
    assert!(c.meta.files.iter().all(|f| f.since_start));
    assert!(c.meta.notes.iter().any(|n| n.contains("averages since SQL Server started")));
    // No rates from one snapshot: only the per-operation averages.
    assert!(c.table.column(Metric::WriteIops).is_none());
    let lat = values(&c, LOG, Metric::WriteLatencyMs);
    assert_eq!(lat.len(), 1);
    assert!((lat[0] - 1.3).abs() < 0.01, "{lat:?}");
    let snap = c.meta.snapshot.as_ref().expect("the counters, for a later snapshot");
    assert_eq!(snap.source.as_deref(), Some("SQLVM01"));
    assert_eq!(snap.counters.len(), 11);
}

#[test]
fn two_single_snapshots_in_two_files_join_into_rates() {
    // The two snapshots of one SSMS export, saved as two files.
    let text = std::fs::read_to_string(fixtures().join("ssms_header_two_snapshots.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (header, rows) = (lines[0], &lines[1..]);
    let half = rows.len() / 2;
    let first = format!("{header}\n{}\n", rows[..half].join("\n"));
    let second = format!("{header}\n{}\n", rows[half..].join("\n"));
    let a = sql_file_stats::read("a.csv", &first).unwrap();
    let b = sql_file_stats::read("b.csv", &second).unwrap();
    assert!(a.meta.since_boot_only && b.meta.since_boot_only);
    // Given in either order, the later snapshot is the end of the interval.
    for metas in [[&b.meta, &a.meta], [&a.meta, &b.meta]] {
        let joined = advisor_ingest::snapshots::join(&metas);
        assert_eq!(joined.len(), 1);
        let (c, idx) = &joined[0];
        assert_eq!(idx.len(), 2);
        check_sales("a.csv + b.csv", c, 1);
        assert!(
            !c.meta.notes.iter().any(|n| n.starts_with(advisor_ingest::snapshots::ONE_SNAPSHOT))
        );
    }
}

#[test]
fn errors_are_located() {
    let csv = "database_id,file_id,num_of_reads,num_of_bytes_read,io_stall_read_ms,num_of_writes,\
               num_of_bytes_written,io_stall_write_ms,sample_ms\n\
               5,1,10,81920,12,4,32768,oops,1000\n";
    let e = sql_file_stats::read("bad.csv", csv).unwrap_err().to_string();
    assert!(e.starts_with("bad.csv:2:"), "{e}");
    assert!(e.contains("io_stall_write_ms") && e.contains("\"oops\""), "{e}");
    let json = r#"[{"database_id":5,"file_id":1,"num_of_reads":"x","num_of_bytes_read":1,
                   "io_stall_read_ms":1,"num_of_writes":1,"num_of_bytes_written":1,"io_stall_write_ms":1}]"#;
    let e = sql_file_stats::read("bad.json", json).unwrap_err().to_string();
    assert!(e.contains("$[0]"), "{e}");
    let e = sql_file_stats::read("empty.csv", "num_of_reads,io_stall_read_ms\n").unwrap_err();
    assert!(e.to_string().starts_with("empty.csv"), "{e}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Any text, and any cut or damaged fixture, gives a capture or an error: never a panic.
    #[test]
    fn no_input_panics(text in "\\PC{0,400}") {
        let _ = sql_file_stats::read("any.csv", &text);
        let _ = sql_file_stats::read("any.json", &format!("[{{{text}"));
    }

    #[test]
    fn a_damaged_fixture_never_panics(which in 0usize..8, cut in 0usize..6000, byte in 0u8..128) {
        let names = [
            "ssms_header_two_snapshots.csv",
            "ssms_no_header_two_snapshots.csv",
            "export_csv_one_snapshot.csv",
            "export_csv_usecult_de_three_snapshots.csv",
            "for_json_path_two_runs.json",
            "for_json_auto_root.json",
            "ssms_grid_for_json.txt",
            "sqlcmd_linux_two_runs.csv",
        ];
        let text = std::fs::read_to_string(fixtures().join(names[which])).unwrap();
        let mut bytes = text.into_bytes();
        let at = cut.min(bytes.len().saturating_sub(1));
        if let Some(b) = bytes.get_mut(at) {
            *b = byte;
        }
        let damaged = String::from_utf8_lossy(&bytes).into_owned();
        let _ = sql_file_stats::read(names[which], &damaged);
        let _ = sql_file_stats::read(names[which], damaged.get(..at).unwrap_or(&damaged));
    }
}
