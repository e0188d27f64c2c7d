//! fio JSON reader: the project's fixtures, the shared real captures (read in place), bad
//! inputs, and round trips of generated documents.

// Test helpers outside #[test] functions panic on purpose.
#![allow(clippy::panic)]

use crate::skip;

use std::path::{Path, PathBuf};

use advisor_ingest::fio::{self, ReadOptions};
use advisor_ingest::{ErrorKind, IngestError, RawCapture, Read, read, sniff};
use advisor_model::{Direction, Location, Metric};
use proptest::prelude::*;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/captures/fio-json")
}

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

fn text_of(p: &Path) -> String {
    let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
    String::from_utf8_lossy(&bytes).into_owned()
}

fn read_path(p: &Path) -> Result<RawCapture, IngestError> {
    fio::read(&p.display().to_string(), &text_of(p))
}

fn fixture(name: &str) -> RawCapture {
    match read_path(&fixtures().join(name)) {
        Ok(c) => c,
        Err(e) => panic!("{name}: {e}"),
    }
}

/// A shared sample, or None (with a note) when ../shared is absent.
fn sample(rel: &str) -> Option<RawCapture> {
    let p = shared().join(rel);
    if !p.exists() {
        skip::skip(&format!("{} is absent", p.display()));
        return None;
    }
    match read_path(&p) {
        Ok(c) => Some(c),
        Err(e) => panic!("{rel}: {e}"),
    }
}

fn target(c: &RawCapture, name: &str) -> u32 {
    match c.meta.targets.iter().position(|t| t.name == name) {
        Some(i) => i as u32,
        None => panic!(
            "no target {name:?} in {:?}",
            c.meta.targets.iter().map(|t| &t.name).collect::<Vec<_>>()
        ),
    }
}

/// The value of a metric in the only (summary) row of a target.
fn value(c: &RawCapture, name: &str, metric: Metric) -> Option<f64> {
    let t = target(c, name);
    let rows: Vec<usize> = (0..c.table.len()).filter(|&r| c.table.target[r] == t).collect();
    assert_eq!(rows.len(), 1, "{name}: expected one summary row");
    c.table.column(metric).and_then(|col| col[rows[0]])
}

#[track_caller]
fn close(got: Option<f64>, want: f64) {
    match got {
        Some(g) => assert!((g - want).abs() <= 1e-9 * want.abs().max(1.0), "got {g}, want {want}"),
        None => panic!("missing value, want {want}"),
    }
}

fn pct(c: &RawCapture, name: &str, dir: Direction, p: f64) -> Option<f64> {
    let t = target(c, name);
    c.meta
        .percentiles
        .iter()
        .find(|s| s.target == t && s.direction == dir && (s.percentile - p).abs() < 1e-9)
        .map(|s| s.latency_ms)
}

fn has_note(c: &RawCapture, needle: &str) -> bool {
    c.meta.notes.iter().any(|n| n.contains(needle))
}

const MIB: f64 = 1_048_576.0;

#[test]
fn fio333_sync1_qd1_is_latency_bound() {
    let c = fixture("fio_4k_randwrite_qd1_psync_sync1.json");
    let t = "/mnt/scratch/fio_rw.dat";
    assert_eq!(c.meta.version.as_deref(), Some("fio-3.33"));
    assert_eq!(c.meta.format, fio::FORMAT);
    assert_eq!(c.table.len(), 1);
    assert_eq!(c.table.time_ms, vec![None]);
    close(value(&c, t, Metric::WriteIops), 530.859570);
    // lat_ns mean 1879728.076253 ns
    close(value(&c, t, Metric::WriteLatencyMs), 1.879728076253);
    close(value(&c, t, Metric::WriteMbps), 2174400.0 / MIB);
    close(value(&c, t, Metric::WriteIoKib), 4.0);
    close(value(&c, t, Metric::QueueDepth), 1.0);
    close(value(&c, t, Metric::BusyPct), 11.434278);
    assert_eq!(value(&c, t, Metric::ReadIops), None, "no reads: direction skipped");
    assert_eq!(value(&c, t, Metric::SyncLatencyMs), None);
    // clat_ns percentiles: 99.000000 -> 8290304 ns
    close(pct(&c, t, Direction::Write, 99.0), 8.290304);
    close(pct(&c, t, Direction::Write, 99.99), 26.607616);
    assert_eq!(c.meta.percentiles.len(), 17);
    let b = &c.meta.bench[0];
    assert_eq!(b.tool, "fio");
    assert_eq!(b.block_size_kib, Some(4.0));
    assert_eq!(b.queue_depth_per_thread, Some(1));
    assert_eq!(b.threads, Some(1));
    assert_eq!(b.write_pct, Some(100.0));
    assert_eq!(b.random, Some(true));
    assert_eq!(b.os_cache_disabled, Some(true));
    assert_eq!(b.write_through, Some(true));
    assert_eq!(b.sync_every, None);
    assert_eq!(b.file_size_bytes, Some(128 * 1024 * 1024));
    // write.runtime 8004 ms is preferred over the runtime=8 option.
    assert_eq!(b.duration_s, Some(8.004));
    assert_eq!(b.engine.as_deref(), Some("psync"));
    assert_eq!(b.pattern.as_deref(), Some("randwrite"));
    assert_eq!(c.meta.utc_offset_min, Some(0));
    assert!(c.meta.warnings.is_empty(), "{:?}", c.meta.warnings);
    assert!(c.meta.ignored.iter().any(|i| i.contains("usr_cpu") || i.contains("slat_ns")));
}

#[test]
fn fsync_cost_sits_in_the_sync_object() {
    let c = fixture("fio_4k_randwrite_qd1_psync_fsync1.jsonplus.json");
    let t = "/mnt/scratch/fio_rw.dat";
    close(value(&c, t, Metric::WriteIops), 518.180682);
    close(value(&c, t, Metric::WriteLatencyMs), 0.018694933205);
    close(value(&c, t, Metric::SyncLatencyMs), 1.90636916735);
    close(pct(&c, t, Direction::Sync, 99.0), 7.3728);
    assert_eq!(c.meta.bench[0].sync_every, Some(1));
    assert_eq!(c.meta.bench[0].write_through, Some(false));
    assert_eq!(c.meta.bench[0].os_cache_disabled, Some(false));
    assert!(c.meta.ignored.iter().any(|i| i.contains("bins")));

    let c = fixture("fio341_4k_randwrite_qd1_psync_fsync1.jsonplus.json");
    assert_eq!(c.meta.version.as_deref(), Some("fio-3.41"));
    close(value(&c, t, Metric::WriteIops), 2923.346109);
    close(value(&c, t, Metric::WriteLatencyMs), 0.01384480106);
    close(value(&c, t, Metric::SyncLatencyMs), 0.325181049877);
    close(pct(&c, t, Direction::Sync, 99.99), 5.931008);
}

#[test]
fn fio2210_io_bytes_hold_kib_and_times_are_microseconds() {
    let c = fixture("fio2210_4k_randread_qd32_libaio_direct.json");
    let t = "randread-4k-qd32"; // no job options: named after the job
    assert_eq!(c.meta.version.as_deref(), Some("fio-2.2.10"));
    close(value(&c, t, Metric::ReadIops), 40145.81);
    // bw 160583 KiB/s
    close(value(&c, t, Metric::ReadMbps), 160583.0 / 1024.0);
    // io_bytes 963660 is KiB: 963660 KiB / 240915 IOs = 4 KiB
    close(value(&c, t, Metric::ReadIoKib), 4.0);
    // lat mean 794.91 us
    close(value(&c, t, Metric::ReadLatencyMs), 0.79491);
    close(pct(&c, t, Direction::Read, 99.0), 2.832);
    assert!(has_note(&c, "KiB"));
    assert!(has_note(&c, "microseconds"));
    // "0.00" duplicate keys are skipped: 17 real percentiles.
    assert_eq!(c.meta.percentiles.len(), 17);
    let b = &c.meta.bench[0];
    assert_eq!(b.queue_depth_per_thread, Some(32), "from latency_depth");
    assert_eq!(b.block_size_kib, None);
    assert_eq!(b.duration_s, Some(6.001));

    let c = fixture("fio2210_8k_randrw70_qd8_nj4_group_reporting.json");
    let t = "randrw-8k-7030";
    close(value(&c, t, Metric::ReadIops), 46687.05);
    close(value(&c, t, Metric::WriteIops), 19942.68);
    close(value(&c, t, Metric::ReadMbps), 373496.0 / 1024.0);
    close(value(&c, t, Metric::ReadIoKib), 2241352.0 / 280169.0);
    close(value(&c, t, Metric::ReadLatencyMs), 0.42982);
    close(value(&c, t, Metric::WriteLatencyMs), 0.5928);
    close(pct(&c, t, Direction::Write, 99.0), 3.248);
}

#[test]
fn fio221_units_json_plus_and_sync() {
    let c = fixture("fio221_4k_randread_qd32_libaio_direct.jsonplus.json");
    let t = "/mnt/scratch/fio_rr.dat";
    close(value(&c, t, Metric::ReadIops), 51991.168139);
    close(value(&c, t, Metric::ReadMbps), 207964.0 / 1024.0);
    close(value(&c, t, Metric::ReadIoKib), 1277947904.0 / 311999.0 / 1024.0);
    assert!(c.meta.ignored.iter().any(|i| i.contains("bins")));
    assert!(!has_note(&c, "KiB in this fio version"), "io_kbytes present: io_bytes are bytes");

    let c = fixture("fio221_4k_randwrite_qd1_psync_sync1.json");
    let b = &c.meta.bench[0];
    assert_eq!(b.write_through, Some(true));
    assert!(value(&c, t.replace("rr", "rw").as_str(), Metric::WriteIops).is_some());
}

#[test]
fn ungrouped_clones_are_merged_and_grouped_entries_count_numjobs() {
    let c = fixture("fio_8k_randrw70_qd8_nj4_no_group_reporting.json");
    let t = "/mnt/scratch/fio_mix.dat";
    assert_eq!(c.meta.targets.len(), 1);
    close(value(&c, t, Metric::ReadIops), 29620.922385);
    close(value(&c, t, Metric::WriteIops), 12742.032247);
    close(value(&c, t, Metric::ReadMbps), 231.41345500946045);
    close(value(&c, t, Metric::ReadLatencyMs), 0.5776917075236885);
    close(value(&c, t, Metric::WriteLatencyMs), 1.1616149241583036);
    assert_eq!(c.meta.bench[0].threads, Some(4));
    assert_eq!(c.meta.bench[0].write_pct, Some(30.0));
    let qd = value(&c, t, Metric::QueueDepth).unwrap_or(0.0);
    assert!((31.0..=32.0).contains(&qd), "4 clones at ~8: {qd}");
    assert!(has_note(&c, "4 entries"));

    let c = fixture("fio_8k_randrw70_qd8_nj4_group_reporting.json");
    assert_eq!(c.meta.bench[0].threads, Some(4));
    let qd = value(&c, t, Metric::QueueDepth).unwrap_or(0.0);
    assert!((31.0..=32.0).contains(&qd), "levels x numjobs: {qd}");

    // Not merged: one target per clone.
    let p = fixtures().join("fio_8k_randrw70_qd8_nj4_no_group_reporting.json");
    let c = fio::read_with("x", &text_of(&p), ReadOptions { merge_clones: false })
        .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = c.meta.targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names.len(), 4);
    assert_eq!(names[0], "/mnt/scratch/fio_mix.dat#1");
    assert_eq!(c.meta.bench[0].threads, Some(1));
}

#[test]
fn fio341_grouped_duration_is_not_the_summed_job_runtime() {
    let c = fixture("fio341_8k_randrw70_qd8_nj4_group_reporting.json");
    assert_eq!(c.meta.bench[0].duration_s, Some(6.003), "longest direction, not 24 s");
    assert_eq!(c.meta.bench[0].threads, Some(4));
}

#[test]
fn two_groups_make_two_targets() {
    for name in ["fioreadwrite_two_groups.json", "fio221_fioreadwrite_two_groups.json"] {
        let c = fixture(name);
        let names: Vec<&str> = c.meta.targets.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, vec!["reader1", "writer1"], "{name}");
        assert!(value(&c, "reader1", Metric::WriteIops).is_none());
        assert_eq!(c.meta.bench[0].threads, Some(2));
        assert_eq!(c.meta.bench[0].queue_depth_per_thread, Some(16), "from global options");
        assert_eq!(c.meta.bench[1].pattern.as_deref(), Some("randwrite"));
        // The only disk measured is shared by two targets: not attributed to either.
        assert!(value(&c, "reader1", Metric::BusyPct).is_none());
        assert!(c.meta.ignored.iter().any(|i| i == "disk_util vda"));
    }
    let c = fixture("fio221_fioreadwrite_two_groups.json");
    close(value(&c, "reader1", Metric::ReadIops), 29603.799525 + 30555.68054);
    close(value(&c, "writer1", Metric::WriteIops), 2.0 * 500.062492);
    let c = fixture("fioreadwrite_two_groups_group_reporting.json");
    assert_eq!(c.meta.bench[0].threads, Some(2), "numjobs of the grouped entry");
}

#[test]
fn status_interval_stream_becomes_a_time_series() {
    let c = fixture("fio_status_interval1_randread.json");
    let t = target(&c, "/mnt/scratch/fio_rr.dat");
    assert_eq!(c.table.len(), 6);
    assert!(c.table.target.iter().all(|&x| x == t));
    // fio's timestamp_ms (the machine runs in UTC).
    assert_eq!(c.table.time_ms[0], Some(1795301157121));
    assert_eq!(c.table.time_ms[5], Some(1795301161289));
    assert_eq!(c.meta.interval_s, Some(1.0));
    let iops = c.table.column(Metric::ReadIops).unwrap_or_default();
    // First interval: 22803 IOs in 887 ms; second: (50241 - 22803) IOs in 1000 ms.
    close(iops[0], 22803.0 / 0.887);
    close(iops[1], 27438.0);
    let mbps = c.table.column(Metric::ReadMbps).unwrap_or_default();
    close(mbps[1], (205705216.0 - 93290496.0) / MIB);
    let lat = c.table.column(Metric::ReadLatencyMs).unwrap_or_default();
    let want = (598990.085356 * 50225.0 - 620666.376487 * 22787.0) / (50225.0 - 22787.0) / 1e6;
    close(lat[1], want);
    // Settings and percentiles from the final report.
    assert_eq!(c.meta.bench.len(), 1);
    assert_eq!(c.meta.bench[0].duration_s, Some(5.001));
    assert_eq!(c.meta.percentiles.len(), 17);
    assert!(has_note(&c, "--status-interval"));
    assert!(c.meta.warnings.is_empty(), "{:?}", c.meta.warnings);
}

#[test]
fn json_inside_normal_text_is_found() {
    let c = fixture("fio_4k_randread_qd32_json_and_normal.txt");
    let t = "/mnt/scratch/fio_rr.dat";
    close(value(&c, t, Metric::ReadIops), 24591.281744);
    close(value(&c, t, Metric::ReadLatencyMs), 1.299184509697);
    assert!(has_note(&c, "normal text"));
    assert!(c.meta.warnings.is_empty(), "{:?}", c.meta.warnings);
    // And the registry dispatches to this reader.
    let p = fixtures().join("fio_4k_randread_qd32_json_and_normal.txt");
    let text = text_of(&p);
    assert_eq!(sniff("x", text.as_bytes()).ok(), Some(fio::FORMAT));
    assert!(matches!(read("x", text.as_bytes()).map(|r| r.read), Ok(Read::Table(_))));
}

#[test]
fn nan_values_of_fio2_are_read_as_missing() {
    let c = fixture("handmade_fio221_nan-values.json");
    close(value(&c, "/mnt/scratch/fio_rr.dat", Metric::ReadIops), 27594.567572);
    let w = &c.meta.warnings;
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].message.contains("3 non-number"), "{}", w[0].message);
    assert_eq!(w[0].location, Some(Location::line(37, 1)));
}

#[test]
fn prefix_text_and_failed_jobs() {
    // Only a failed job: fio's own error is the answer.
    // Kept with the bad inputs: it is not a capture a reader can accept.
    let p = fixtures().join("../../invalid/fio-job-error-no-io.json");
    match read_path(&p) {
        Err(IngestError { kind: ErrorKind::FioError { message }, .. }) => {
            assert!(message.contains("error 22"), "{message}");
            assert!(message.contains("time_based requires a runtime"), "{message}");
            assert!(message.contains("1m: you need to specify size="), "{message}");
        }
        other => panic!("expected a fio error, got {other:?}"),
    }
    // fio: terminating on signal 2 before a complete document.
    let c = fixture("handmade_fio333_sigint-prefix.json");
    close(value(&c, "/mnt/scratch/fio_rw.dat", Metric::WriteIops), 530.859570);
    assert!(c.meta.warnings.iter().any(|w| w.message.contains("terminating on signal 2")
        && w.location == Some(Location::line(2, 1))));
    assert!(has_note(&c, "interrupted"));
}

#[test]
fn md_device_busy_comes_from_aggr_util() {
    let c = fixture("handmade_fio333_md-device_aggr-util.json");
    let t = "/dev/md0";
    close(value(&c, t, Metric::BusyPct), 96.5);
    close(value(&c, t, Metric::ReadIops), 32265.84177);
    assert!(has_note(&c, "aggr_util"));
    assert!(c.meta.ignored.iter().any(|i| i == "disk_util sda"));
    assert!(c.meta.ignored.iter().any(|i| i == "disk_util sdb"));
}

#[test]
fn duplicate_filename_lists_both_files() {
    let c = fixture("handmade_fio333_dup-filename_two-disks.json");
    let t = "/datadisks/disk1/fio-test.dat:/datadisks/disk2/fio-test.dat";
    close(value(&c, t, Metric::ReadIops), 17811.531411);
    close(value(&c, t, Metric::ReadMbps), 2334593045.0 / MIB);
    assert_eq!(value(&c, t, Metric::BusyPct), None, "two devices: not attributed");
    assert!(has_note(&c, "disk_util sdc"));
    assert!(has_note(&c, "given 2 times"));
}

// ---- the shared real captures, read in place ----

#[test]
fn sample_64_ungrouped_jobs_are_summed() {
    let Some(c) = sample("samples/fio-json/fio-3.6_randwrite-4k-qd64-64jobs-ungrouped_large.json")
    else {
        return;
    };
    let t = "/dev/sdc";
    assert_eq!(c.meta.targets.len(), 1);
    close(value(&c, t, Metric::WriteIops), 126.947183);
    close(value(&c, t, Metric::WriteMbps), 519943.0 / MIB);
    // fio 3.6 has no lat_ns.N: weighted by total_ios.
    close(value(&c, t, Metric::WriteLatencyMs), 23777.10631406286);
    close(value(&c, t, Metric::BusyPct), 99.839435);
    assert_eq!(c.meta.bench[0].threads, Some(64));
    assert_eq!(c.meta.bench[0].queue_depth_per_thread, Some(64));
    assert_eq!(c.meta.bench[0].duration_s, Some(61.826));
    assert!(has_note(&c, "64 entries"));
}

#[test]
fn sample_fio214_no_options_no_timestamps() {
    let Some(c) =
        sample("samples/fio-json/fio-2.1.4_5jobs-seq-rand-read-write_no-timestamp_pkb.json")
    else {
        return;
    };
    assert_eq!(c.meta.targets.len(), 5);
    // io_bytes 361984 (KiB) over 5314 ms = bw 68118 KiB/s
    close(value(&c, "sequential_write", Metric::WriteMbps), 68118.0 / 1024.0);
    close(value(&c, "sequential_write", Metric::WriteIops), 133.0);
    assert_eq!(c.meta.utc_offset_min, None);
    assert!(has_note(&c, "KiB"));
}

#[test]
fn sample_duplicate_keys_and_shared_filename() {
    let Some(c) =
        sample("samples/fio-json/fio-2.17_global-options-dup-key_hist-log_pkb-gce-pd.json")
    else {
        return;
    };
    let f = "/dev/disk/by-id/google-pkb-7fb0c9d8-0-data-0-0";
    let read = format!("{f} (rand_16k_read_100%-io-depth-1-num-jobs-2)");
    close(value(&c, &read, Metric::ReadIops), 8086.673998);
    // io_bytes 1294256 KiB in 80891 IOs
    close(value(&c, &read, Metric::ReadIoKib), 1294256.0 / 80891.0);
    assert_eq!(c.meta.targets.len(), 2);

    let Some(c) =
        sample("samples/fio-json/fio-3.26-19_readwrite-seq-diskfill-1job_virtualclient.json")
    else {
        return;
    };
    assert!(c.meta.targets[0].name.contains("remote_disk_1_0/fio-test.dat:"));
    assert_eq!(c.meta.bench[0].write_pct, Some(30.0));
    assert_eq!(c.meta.bench[0].block_size_kib, Some(256.0));
}

#[test]
fn sample_macos_error_is_reported_as_fio_error() {
    let p =
        shared().join("samples/fio-json/fio-3.33_seqwrite-1m_macos_stderr-prefix-no-diskutil.json");
    if !p.exists() {
        skip::skip(&format!("{} is absent", p.display()));
        return;
    }
    match read_path(&p) {
        Err(IngestError { kind: ErrorKind::FioError { message }, .. }) => {
            assert!(message.contains("error 22"), "{message}")
        }
        other => panic!("expected the job's error, got {other:?}"),
    }
}

/// Every fio JSON file in the shared corpus reads, with targets and metrics. Files the
/// sniffer refuses (normal/terse text, job files, logs, fio's error only) are not ours.
#[test]
fn shared_corpus_reads() {
    let mut files = Vec::new();
    for dir in ["samples/fio-json", "generated/fio"] {
        collect(&shared().join(dir), &mut files);
    }
    if files.is_empty() {
        skip::skip(&format!("{} is absent", shared().display()));
        return;
    }
    files.sort();
    let mut read = 0;
    for p in files {
        let text = text_of(&p);
        let name = p.display().to_string();
        if sniff(&name, text.as_bytes()).ok() != Some(fio::FORMAT) {
            continue;
        }
        match fio::read(&name, &text) {
            Ok(c) => {
                assert!(!c.meta.targets.is_empty(), "{name}: no targets");
                assert!(!c.table.is_empty(), "{name}: no rows");
                assert!(!c.meta.bench.is_empty(), "{name}: no settings");
                for (m, col) in &c.table.columns {
                    for v in col.iter().flatten() {
                        assert!(v.is_finite() && *v >= 0.0, "{name}: {m} = {v}");
                    }
                }
                read += 1;
            }
            // The one real capture whose only job failed before any IO.
            Err(IngestError { kind: ErrorKind::FioError { .. }, .. })
                if name.contains("macos_stderr-prefix") => {}
            Err(e) => panic!("{e}"),
        }
    }
    assert!(read >= 30, "only {read} files read");
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn every_fixture_reads() {
    let mut files = Vec::new();
    collect(&fixtures(), &mut files);
    let mut n = 0;
    for p in files {
        if p.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let name = p.display().to_string();
        match read_path(&p) {
            Ok(c) => assert!(!c.table.is_empty(), "{name}"),
            Err(e) => panic!("{e}"),
        }
        n += 1;
    }
    // The job-error fixture lives in fixtures/invalid (see prefix_text_and_failed_jobs).
    assert!(n >= 20, "{n} fixtures");
}

// ---- bad inputs ----

#[test]
fn bad_inputs_name_the_file_and_place() {
    let e = fio::read("empty.json", "  \n").err();
    assert!(matches!(e, Some(IngestError { kind: ErrorKind::Empty, .. })));

    let p = fixtures().join("fio_4k_randwrite_qd1_psync_sync1.json");
    let text = text_of(&p);
    let cut = &text[..text.len() / 2];
    let e = fio::read("cut.json", cut).err().unwrap_or_else(|| panic!("truncated file read"));
    assert_eq!(e.file, "cut.json");
    assert!(matches!(e.location, Some(Location::Line { .. })), "{e}");
    assert!(e.to_string().starts_with("cut.json:"), "{e}");

    let e = fio::read("x.json", "{\"fio version\": \"fio-3.33\", \"jobs\": {}}").err();
    let e = e.unwrap_or_else(|| panic!("jobs object read"));
    assert_eq!(e.location, Some(Location::json("$.jobs")));

    let e = fio::read("x.json", "{\n\"fio version\" : \"fio-3.33\",\n  \"jobs\" : [ 1, ]\n}").err();
    let e = e.unwrap_or_else(|| panic!("syntax error read"));
    assert_eq!(e.location, Some(Location::line(3, 17)), "{e}");

    let e = fio::read("x.txt", "hello\nworld\n").err();
    assert!(e.is_some());

    let e = fio::read("x.txt", "fio: engine libaio not loadable\n").err();
    assert!(matches!(e, Some(IngestError { kind: ErrorKind::FioError { .. }, .. })));
}

#[test]
fn wrong_types_are_skipped_with_their_json_path() {
    let p = fixtures().join("fio_8k_randrw70_qd8_nj4_group_reporting.json");
    let text = text_of(&p).replacen("\"iops\" : 34941.882265", "\"iops\" : \"fast\"", 1);
    assert!(text.contains("\"fast\""));
    let c = fio::read("x.json", &text).unwrap_or_else(|e| panic!("{e}"));
    let w = c.meta.warnings.iter().find(|w| w.message.contains("wrong type"));
    let w = w.unwrap_or_else(|| panic!("{:?}", c.meta.warnings));
    assert_eq!(w.location, Some(Location::json("$.jobs[0].read.iops")));
    let t = "/mnt/scratch/fio_mix.dat";
    assert_eq!(value(&c, t, Metric::ReadIops), None, "read skipped");
    assert!(value(&c, t, Metric::WriteIops).is_some(), "write kept");
}

#[test]
fn zero_runtime_with_io_is_skipped_with_a_warning() {
    let p = fixtures().join("fio_4k_randwrite_qd1_psync_sync1.json");
    let text = text_of(&p).replacen("\"runtime\" : 8004", "\"runtime\" : 0", 1);
    let c = fio::read("x.json", &text);
    // The only direction with IO has no runtime: nothing left.
    assert!(c.is_err());
    let p = fixtures().join("fio_8k_randrw70_qd8_nj4_group_reporting.json");
    let text = text_of(&p);
    let pos = text.find("\"write\"").unwrap_or(0);
    let (a, b) = text.split_at(pos);
    let b = b.replacen("\"runtime\" : 8001", "\"runtime\" : 0", 1);
    let c = fio::read("x.json", &format!("{a}{b}")).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        c.meta.warnings.iter().any(|w| w.message.contains("zero runtime")),
        "{:?}",
        c.meta.warnings
    );
    assert!(value(&c, "/mnt/scratch/fio_mix.dat", Metric::WriteIops).is_none());
}

// ---- round trips ----

/// A fio 3.x job entry with known values.
fn doc3(iops: f64, bw_bytes: u64, clat_ns: f64, lat_ns: f64, p99_ns: u64, runtime: u64) -> String {
    let ios = (iops * runtime as f64 / 1000.0).round() as u64;
    format!(
        r#"{{
  "fio version" : "fio-3.33",
  "timestamp" : 1795301001,
  "timestamp_ms" : 1795301001124,
  "time" : "Sat Nov 21 22:43:21 2026",
  "jobs" : [
    {{
      "jobname" : "gen",
      "groupid" : 0,
      "error" : 0,
      "job options" : {{ "filename" : "/dev/sdz", "rw" : "randread", "bs" : "4k", "iodepth" : "8" }},
      "read" : {{
        "io_bytes" : {io_bytes},
        "io_kbytes" : {io_kbytes},
        "bw_bytes" : {bw_bytes},
        "bw" : {bw_kib},
        "iops" : {iops:.6},
        "runtime" : {runtime},
        "total_ios" : {ios},
        "clat_ns" : {{ "min" : 1, "max" : 2, "mean" : {clat_ns:.6}, "stddev" : 0.0, "N" : {ios},
          "percentile" : {{ "50.000000" : {p50}, "99.000000" : {p99_ns} }} }},
        "lat_ns" : {{ "min" : 1, "max" : 2, "mean" : {lat_ns:.6}, "stddev" : 0.0, "N" : {ios} }}
      }},
      "write" : {{ "io_bytes" : 0, "io_kbytes" : 0, "bw_bytes" : 0, "bw" : 0, "iops" : 0.000000, "runtime" : 0, "total_ios" : 0 }}
    }}
  ]
}}
"#,
        io_bytes = ios * 4096,
        io_kbytes = ios * 4,
        bw_kib = bw_bytes / 1024,
        p50 = p99_ns / 2,
    )
}

/// The same in fio 2.x units: usec latencies, bw KiB/s, io_bytes in KiB, no io_kbytes.
fn doc2(iops: f64, bw_kib: u64, clat_us: f64, lat_us: f64, p99_us: u64, runtime: u64) -> String {
    let ios = (iops * runtime as f64 / 1000.0).round() as u64;
    format!(
        r#"{{
  "fio version" : "fio-2.2.10",
  "jobs" : [
    {{
      "jobname" : "gen",
      "groupid" : 0,
      "error" : 0,
      "read" : {{
        "io_bytes" : {io_kib},
        "bw" : {bw_kib},
        "iops" : {iops:.2},
        "runtime" : {runtime},
        "total_ios" : {ios},
        "clat" : {{ "min" : 1, "max" : 2, "mean" : {clat_us:.2}, "stddev" : 0.00,
          "percentile" : {{ "99.000000" : {p99_us}, "0.00" : 0, "0.00" : 0 }} }},
        "lat" : {{ "min" : 1, "max" : 2, "mean" : {lat_us:.2}, "stddev" : 0.00 }}
      }}
    }}
  ]
}}
"#,
        io_kib = bw_kib * runtime / 1000,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fio3_values_come_back_converted(
        iops in 1.0f64..1e6,
        bw in 1u64..10_000_000_000,
        clat in 1.0f64..1e10,
        extra in 0.0f64..1e6,
        p99 in 1u64..100_000_000_000,
        runtime in 1u64..10_000_000,
    ) {
        let iops = (iops * 1e6).round() / 1e6;
        let clat = (clat * 1e6).round() / 1e6;
        let lat = ((clat + extra) * 1e6).round() / 1e6;
        let c = fio::read("gen.json", &doc3(iops, bw, clat, lat, p99, runtime));
        let c = c.map_err(|e| TestCaseError::fail(e.to_string()))?;
        let t = "/dev/sdz";
        let near = |g: Option<f64>, w: f64| g.is_some_and(|g| (g - w).abs() <= 1e-9 * w.abs().max(1.0));
        prop_assert!(near(value(&c, t, Metric::ReadIops), iops));
        prop_assert!(near(value(&c, t, Metric::ReadMbps), bw as f64 / MIB));
        prop_assert!(near(value(&c, t, Metric::ReadLatencyMs), lat / 1e6));
        prop_assert!(near(pct(&c, t, Direction::Read, 99.0), p99 as f64 / 1e6));
        prop_assert!(near(value(&c, t, Metric::ReadIoKib), 4.0) || (iops * runtime as f64 / 1000.0).round() == 0.0);
        prop_assert_eq!(c.meta.bench[0].queue_depth_per_thread, Some(8));
    }

    #[test]
    fn fio2_values_come_back_converted(
        iops in 1.0f64..1e6,
        bw_kib in 1u64..10_000_000,
        clat in 1.0f64..1e7,
        extra in 0.0f64..1e4,
        p99 in 1u64..100_000_000,
        runtime in 1000u64..10_000_000,
    ) {
        let iops = (iops * 100.0).round() / 100.0;
        let clat = (clat * 100.0).round() / 100.0;
        let lat = ((clat + extra) * 100.0).round() / 100.0;
        let c = fio::read("gen.json", &doc2(iops, bw_kib, clat, lat, p99, runtime));
        let c = c.map_err(|e| TestCaseError::fail(e.to_string()))?;
        let t = "gen";
        let near = |g: Option<f64>, w: f64| g.is_some_and(|g| (g - w).abs() <= 1e-9 * w.abs().max(1.0));
        prop_assert!(near(value(&c, t, Metric::ReadIops), iops));
        prop_assert!(near(value(&c, t, Metric::ReadMbps), bw_kib as f64 / 1024.0));
        prop_assert!(near(value(&c, t, Metric::ReadLatencyMs), lat / 1e3));
        prop_assert!(near(pct(&c, t, Direction::Read, 99.0), p99 as f64 / 1e3));
        prop_assert_eq!(c.meta.percentiles.len(), 1);
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,400}") {
        let _ = fio::read("any.json", &s);
        let _ = fio::read("any.json", &format!("{{\"fio version\": \"fio-3.1\", {s}"));
    }

    #[test]
    fn mutated_real_files_never_panic(
        which in 0usize..4,
        cut in 0.0f64..1.0,
        flips in proptest::collection::vec((0.0f64..1.0, proptest::char::any()), 0..6),
    ) {
        let names = [
            "fio_status_interval1_randread.json",
            "fio2210_8k_randrw70_qd8_nj4_group_reporting.json",
            "fio_4k_randwrite_qd1_psync_fsync1.jsonplus.json",
            "fio_4k_randread_qd32_json_and_normal.txt",
        ];
        let text = text_of(&fixtures().join(names[which]));
        let mut chars: Vec<char> = text.chars().collect();
        for (at, c) in flips {
            let i = ((chars.len() as f64) * at) as usize;
            if i < chars.len() {
                chars[i] = c;
            }
        }
        let keep = ((chars.len() as f64) * (0.5 + cut / 2.0)) as usize;
        let s: String = chars.iter().take(keep.max(1)).collect();
        let _ = fio::read("mutated.json", &s);
        let full: String = chars.iter().collect();
        let _ = fio::read("mutated.json", &full);
    }
}

fn rule_fixture(rel: &str) -> RawCapture {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/rules").join(rel);
    read_path(&p).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

// Jobs that ran at the same time on one file (a read-only job beside a write-only one) add
// up to a target of the file's own: rates summed, latency weighted by each direction's
// IOPS, queue depths added; each job stays a target.
#[test]
fn jobs_running_together_on_one_file_are_summed() {
    let c = rule_fixture("inferred-disk-cap/fires-fio-readers-beside-writers/fio.json");
    let names: Vec<&str> = c.meta.targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["/dev/sdc (readers)", "/dev/sdc (writers)", "/dev/sdc"]);
    let read = value(&c, "/dev/sdc (readers)", Metric::ReadIops).unwrap_or(0.0);
    let write = value(&c, "/dev/sdc (writers)", Metric::WriteIops).unwrap_or(0.0);
    close(value(&c, "/dev/sdc", Metric::ReadIops), read);
    close(value(&c, "/dev/sdc", Metric::WriteIops), write);
    assert!((read + write - 5000.0).abs() < 2.0, "{read} + {write}");
    let depth = value(&c, "/dev/sdc", Metric::QueueDepth).unwrap_or(0.0);
    assert!((63.0..=64.0).contains(&depth), "32 + 32 outstanding: {depth}");
    assert!(value(&c, "/dev/sdc (readers)", Metric::WriteIops).is_none(), "the job itself");
    assert!(c.meta.notes.iter().any(|n| n.contains("two jobs ran on it at the same time")));
    assert!(
        c.meta.bench.iter().all(|b| b.target != target(&c, "/dev/sdc")),
        "no settings of its own"
    );
    // Stonewalled groups (no start times to show an overlap) are not summed.
    let c = rule_fixture("inferred-disk-cap/fires-fio-same-rate-qd1-qd64/fio.json");
    assert_eq!(c.meta.targets.len(), 2, "{:?}", c.meta.targets);
}

// fio's steadystate block: a job that reached it measured a settled rate; rate_iops holds a
// run to its own limit.
#[test]
fn steady_state_and_rate_limits_are_read() {
    let c = rule_fixture("bench-too-short/quiet-steady-state/fio.json");
    assert_eq!(c.meta.bench[0].steady_state, Some(true));
    assert_eq!(c.meta.bench[0].rate_limited, Some(false));
    let c = rule_fixture("bench-too-short/fires-steady-state-missed/fio.json");
    assert_eq!(c.meta.bench[0].steady_state, Some(false));
    let c = fixture("fioreadwrite_two_groups.json");
    let limited: Vec<Option<bool>> = c.meta.bench.iter().map(|b| b.rate_limited).collect();
    assert_eq!(limited, [Some(false), Some(true)], "the writers hold themselves to 500 IOPS");
    assert_eq!(c.meta.bench[0].steady_state, None);
}
