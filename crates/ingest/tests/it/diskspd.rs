//! DiskSpd XML and text readers against real files (fixtures, /work/shared samples and
//! generated output) with hand-checked numbers, error cases, and property tests.

// A failing test panics with the file and the value that was wrong.
#![allow(clippy::panic)]

use crate::skip;

use std::path::{Path, PathBuf};

use advisor_ingest::{decode, diskspd, sniff};
use advisor_model::{Direction, Metric, RawCapture, TargetKind};
use proptest::prelude::*;

const MIB: f64 = 1_048_576.0;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture_path(dir: &str, name: &str) -> PathBuf {
    manifest().join("../../fixtures/captures").join(dir).join(name)
}

/// `/work/shared`, when present next to the checkout.
fn shared() -> Option<PathBuf> {
    let p = manifest().join("../../../shared");
    if p.is_dir() {
        Some(p)
    } else {
        skip::skip("../shared is absent: the tests over its DiskSpd files");
        None
    }
}

fn load(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    decode::decode(&bytes).text.into_owned()
}

/// Sniffs and reads a file as the application does.
fn read(path: &Path) -> RawCapture {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.display().to_string();
    let format = sniff(&name, &bytes).unwrap_or_else(|e| panic!("{e}"));
    let text = decode::decode(&bytes).text.into_owned();
    let out = match format {
        diskspd::XML => diskspd::read_xml(&name, &text),
        diskspd::TEXT => diskspd::read_text(&name, &text),
        other => panic!("{name} sniffed as {other}"),
    };
    out.unwrap_or_else(|e| panic!("{e}"))
}

fn fixture(dir: &str, name: &str) -> RawCapture {
    read(&fixture_path(dir, name))
}

fn target(cap: &RawCapture, name: &str) -> u32 {
    let idx = cap.meta.targets.iter().position(|t| t.name == name);
    let idx = idx.unwrap_or_else(|| {
        let names: Vec<&str> = cap.meta.targets.iter().map(|t| t.name.as_str()).collect();
        panic!("no target {name:?} in {names:?}")
    });
    u32::try_from(idx).unwrap_or(u32::MAX)
}

/// The value of `metric` on the (single) summary row of target `name`.
fn val(cap: &RawCapture, name: &str, metric: Metric) -> Option<f64> {
    let t = target(cap, name);
    let rows: Vec<usize> = (0..cap.table.len()).filter(|&r| cap.table.target[r] == t).collect();
    assert_eq!(rows.len(), 1, "one summary row per target ({name})");
    let row = rows[0];
    assert_eq!(cap.table.time_ms[row], None, "benchmark rows carry no time");
    cap.table.column(metric).and_then(|c| c[row])
}

fn pct(cap: &RawCapture, name: &str, dir: Direction, p: f64) -> Option<f64> {
    let t = target(cap, name);
    cap.meta
        .percentiles
        .iter()
        .find(|s| s.target == t && s.direction == dir && (s.percentile - p).abs() < 1e-12)
        .map(|s| s.latency_ms)
}

fn bench<'a>(cap: &'a RawCapture, name: &str) -> &'a advisor_model::BenchSettings {
    let t = target(cap, name);
    cap.meta.bench.iter().find(|b| b.target == t).unwrap_or_else(|| panic!("no bench for {name}"))
}

#[track_caller]
fn close(got: Option<f64>, want: f64) {
    let Some(g) = got else { panic!("missing value, wanted {want}") };
    assert!((g - want).abs() <= 1e-9 * want.abs().max(1.0), "got {g}, wanted {want}");
}

// ---------------------------------------------------------------- XML

#[test]
fn xml_2_2_recovers_power_scheme_and_reads_four_threads() {
    let cap = fixture("diskspd-xml", "diskspd_win_8k_rand_w30_o32_t4_Sh_L.xml");
    assert_eq!(cap.meta.format, diskspd::XML);
    assert_eq!(cap.meta.version.as_deref(), Some("DiskSpd 2.2.0"));
    assert_eq!(cap.meta.hosts, vec!["vm".to_owned()]);
    let w = &cap.meta.warnings;
    assert!(
        w.iter().any(|w| w.message.contains("PowerScheme")
            && w.location == Some(advisor_model::Location::line(9, 24))),
        "{w:?}"
    );
    let t = "E:\\scratch\\dsw_target1.dat";
    // Four Thread/Target blocks, TestTimeSeconds 5.00.
    let reads = 19494.0 + 19809.0 + 19532.0 + 19960.0;
    let writes = 8394.0 + 8507.0 + 8287.0 + 8430.0;
    let rbytes = 159694848.0 + 162275328.0 + 160006144.0 + 163512320.0;
    let wbytes = 68763648.0 + 69689344.0 + 67887104.0 + 69058560.0;
    close(val(&cap, t, Metric::ReadIops), reads / 5.0);
    close(val(&cap, t, Metric::WriteIops), writes / 5.0);
    close(val(&cap, t, Metric::Iops), (reads + writes) / 5.0);
    close(val(&cap, t, Metric::Mbps), (rbytes + wbytes) / MIB / 5.0);
    close(val(&cap, t, Metric::ReadMbps), rbytes / MIB / 5.0);
    let rl = (19494.0 * 0.175 + 19809.0 * 0.173 + 19532.0 * 0.176 + 19960.0 * 0.174) / reads;
    let wl = (8394.0 * 0.184 + 8507.0 * 0.179 + 8287.0 * 0.183 + 8430.0 * 0.175) / writes;
    close(val(&cap, t, Metric::ReadLatencyMs), rl);
    close(val(&cap, t, Metric::WriteLatencyMs), wl);
    close(val(&cap, t, Metric::LatencyMs), (rl * reads + wl * writes) / (reads + writes));
    close(val(&cap, t, Metric::IoKib), 8.0);
    // Profile ThreadCount is 0; the real count is 4 threads x 32 outstanding.
    close(val(&cap, t, Metric::QueueDepth), 128.0);
    let b = bench(&cap, t);
    assert_eq!((b.threads, b.queue_depth_per_thread), (Some(4), Some(32)));
    assert_eq!(b.random, Some(true), "<Random> present while <RandomAccess> is false");
    assert_eq!((b.os_cache_disabled, b.write_through), (Some(true), Some(true)));
    assert_eq!((b.write_pct, b.warmup_s, b.duration_s), (Some(30.0), Some(1.0), Some(5.0)));
    assert_eq!(b.file_size_bytes, Some(67_108_864));
    assert_eq!(b.engine.as_deref(), Some("IOCP"));
    close(pct(&cap, t, Direction::Total, 99.0), 0.710);
    close(pct(&cap, t, Direction::Read, 99.99), 12.152);
    close(pct(&cap, t, Direction::Write, 99.99), 11.837);
    close(pct(&cap, t, Direction::Total, 100.0), 24.962);
    close(val(&cap, "vm", Metric::CpuPct), 80.76);
    assert_eq!(cap.meta.targets[target(&cap, "vm") as usize].kind, TargetKind::Host);
}

#[test]
fn xml_iops_buckets_become_a_note_and_write_only_has_no_read_latency() {
    let cap = fixture("diskspd-xml", "diskspd_win_256k_seq_w100_o10_t1_Sh_L_D.xml");
    let t = "E:\\scratch\\dsw_target3.dat";
    close(val(&cap, t, Metric::Iops), 9339.0 / 5.0);
    close(val(&cap, t, Metric::Mbps), 2448162816.0 / MIB / 5.0);
    close(val(&cap, t, Metric::WriteLatencyMs), 0.533);
    assert_eq!(val(&cap, t, Metric::ReadLatencyMs), None);
    close(val(&cap, t, Metric::ReadIops), 0.0);
    assert_eq!(pct(&cap, t, Direction::Read, 99.0), None, "no read percentiles written");
    let note = cap.meta.notes.iter().find(|n| n.contains("interval"));
    let note = note.unwrap_or_else(|| panic!("{:?}", cap.meta.notes));
    assert!(note.contains("5 intervals"), "{note}");
    assert!(note.contains("min 873") && note.contains("max 2634"), "{note}");
}

#[test]
fn xml_without_latency_or_cache_flags() {
    let cap = fixture("diskspd-xml", "diskspd_win_64k_randread_o4_t2_noL.xml");
    let t = "E:\\scratch\\dsw_target4.dat";
    assert_eq!(val(&cap, t, Metric::LatencyMs), None);
    assert!(cap.meta.percentiles.is_empty());
    let b = bench(&cap, t);
    assert_eq!((b.os_cache_disabled, b.write_through), (Some(false), Some(false)));
    assert_eq!((b.threads, b.queue_depth_per_thread, b.random), (Some(2), Some(4), Some(true)));
    close(val(&cap, t, Metric::QueueDepth), 8.0);
}

#[test]
fn xml_two_targets_handmade() {
    let cap = fixture("diskspd-xml", "handmade_diskspd-2.0.21a_two-targets_2threads_L_D.xml");
    assert!(cap.meta.warnings.is_empty(), "{:?}", cap.meta.warnings);
    assert_eq!(cap.meta.version.as_deref(), Some("DiskSpd 2.0.21a"));
    let (e, f) = ("E:\\io.dat", "F:\\io.dat");
    close(val(&cap, e, Metric::Iops), (117000.0 + 79000.0) / 3.0);
    close(val(&cap, f, Metric::Iops), (24600.0 + 16400.0) / 3.0);
    close(val(&cap, f, Metric::WriteMbps), 16400.0 * 8192.0 / MIB / 3.0);
    close(val(&cap, e, Metric::ReadLatencyMs), (60000.0 * 2.0 + 57000.0 * 2.2) / 117000.0);
    close(val(&cap, e, Metric::ReadPct), 117000.0 / 196000.0 * 100.0);
    close(val(&cap, e, Metric::QueueDepth), 32.0);
    // The run-wide <Latency> belongs to DiskSpd's all-target total.
    let total = target(&cap, "total");
    assert_eq!(cap.meta.targets[total as usize].kind, TargetKind::Aggregate);
    close(val(&cap, "total", Metric::Iops), 237000.0 / 3.0);
    close(val(&cap, "total", Metric::QueueDepth), 64.0);
    assert_eq!(pct(&cap, e, Direction::Total, 99.0), None);
    close(pct(&cap, "total", Direction::Read, 50.0), 2.05);
    assert_eq!(cap.meta.percentiles.len(), 108 * 3);
    close(val(&cap, "AZVM-DS13", Metric::CpuPct), 7.5);
    let note = cap.meta.notes.iter().find(|n| n.starts_with("E:\\io.dat: IOPS per"));
    let note = note.unwrap_or_else(|| panic!("{:?}", cap.meta.notes));
    assert!(note.contains("min 64000, max 67000"), "{note}");
}

#[test]
fn xml_samples_2_0_21a() {
    let Some(sh) = shared() else { return };
    let cap = read(&sh.join(
        "samples/diskspd-xml/diskspd-2.0.21a_randrw-1thread-1target_latency-108buckets_iops-buckets.xml",
    ));
    let t = "diskspd.test";
    close(val(&cap, t, Metric::ReadIops), 37162.0 / 120.01);
    close(val(&cap, t, Metric::Iops), 52915.0 / 120.01);
    close(val(&cap, t, Metric::Mbps), 216739840.0 / MIB / 120.01);
    close(val(&cap, t, Metric::ReadLatencyMs), 2.477);
    close(val(&cap, t, Metric::WriteLatencyMs), 1.767);
    close(val(&cap, t, Metric::LatencyMs), 2.266);
    close(pct(&cap, t, Direction::Total, 99.0), 19.27);
    close(pct(&cap, t, Direction::Read, 99.99), 33.341);
    close(pct(&cap, t, Direction::Total, 99.99), 33.233);
    close(val(&cap, "QuickTest2", Metric::CpuPct), 0.99);
    let b = bench(&cap, t);
    assert_eq!((b.random, b.write_pct, b.warmup_s), (Some(true), Some(30.0), Some(15.0)));
    assert!(cap.meta.notes.iter().any(|n| n.contains("120 intervals") && n.contains("min 311")));

    let cap = read(&sh.join(
        "samples/diskspd-xml/diskspd-2.0.21a_seqread-64k-4threads-qd2_nolatency_pkb-gce.xml",
    ));
    let t = "C:\\scratch\\testfile.dat";
    let n = 22645.0 + 22623.0 + 22548.0 + 23154.0;
    let bytes = 1484062720.0 + 1482620928.0 + 1477705728.0 + 1517420544.0;
    close(val(&cap, t, Metric::Iops), n / 30.02);
    close(val(&cap, t, Metric::Mbps), bytes / MIB / 30.02);
    close(val(&cap, t, Metric::IoKib), 64.0);
    close(val(&cap, t, Metric::QueueDepth), 8.0);
    assert_eq!(bench(&cap, t).random, Some(false));
    assert_eq!(bench(&cap, t).file_size_bytes, Some(838_860_800));
    close(val(&cap, "pkb-044ffc87-0", Metric::CpuPct), 3.2);
}

#[test]
fn xml_errors_name_file_and_place() {
    let good =
        load(&fixture_path("diskspd-xml", "handmade_diskspd-2.0.21a_two-targets_2threads_L_D.xml"));
    // Truncated in the middle of the results.
    let cut = &good[..good.len() / 2];
    let e = diskspd::read_xml("cut.xml", cut).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.starts_with("cut.xml:") && e.contains("truncated"), "{e}");
    // A mismatched end tag: line and column of the offending tag.
    let bad = good.replacen("</TestTimeSeconds>", "</TestTime>", 1);
    let line = bad.lines().position(|l| l.contains("</TestTime>")).unwrap_or(0) + 1;
    let e = diskspd::read_xml("bad.xml", &bad).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.starts_with(&format!("bad.xml:{line}:")), "{e}");
    // A non-number count: the thread is skipped with a warning at its XML path.
    let odd = good.replacen("<ReadCount>60000</ReadCount>", "<ReadCount>lots</ReadCount>", 1);
    let cap = diskspd::read_xml("odd.xml", &odd).unwrap_or_else(|e| panic!("{e}"));
    assert!(cap.meta.warnings.iter().any(|w| w.to_string().contains("Thread[1]/Target[1]")));
    // Empty and unrelated documents.
    assert!(diskspd::read_xml("e.xml", "  \n").is_err());
    let e = diskspd::read_xml("r.xml", "<Results><System/></Results>").err().map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.contains("r.xml") && e.contains("no <TimeSpan>")));
}

// ---------------------------------------------------------------- text

#[test]
fn text_linux_two_targets() {
    let cap = fixture("diskspd-text", "diskspd_linux_two_targets_8k_rand_w30_o8_t2_L_D.txt");
    assert_eq!(cap.meta.version.as_deref(), Some("diskspd-for-linux text"));
    let (a, b) = ("/mnt/scratch/ds_target1.dat", "/mnt/scratch/ds_target4.dat");
    close(val(&cap, a, Metric::Iops), (37984.0 + 34779.0) / 5.0);
    close(val(&cap, a, Metric::Mbps), (311164928.0 + 284909568.0) / MIB / 5.0);
    close(val(&cap, b, Metric::ReadIops), (26332.0 + 24332.0) / 5.0);
    close(
        val(&cap, a, Metric::ReadLatencyMs),
        (26645.0 * 0.715 + 24326.0 * 0.891) / (26645.0 + 24326.0),
    );
    close(
        val(&cap, a, Metric::LatencyMs),
        (37984.0 * 1.053 + 34779.0 * 1.151) / (37984.0 + 34779.0),
    );
    close(val(&cap, "total", Metric::Iops), 145380.0 / 5.0);
    close(val(&cap, "total", Metric::Mbps), 1190952960.0 / MIB / 5.0);
    close(pct(&cap, "total", Direction::Total, 99.0), 6.093);
    close(pct(&cap, "total", Direction::Read, 99.99), 48.778);
    close(pct(&cap, "total", Direction::Write, 99.9999999), 52.696);
    let bs = bench(&cap, b);
    assert_eq!((bs.threads, bs.queue_depth_per_thread), (Some(2), Some(8)));
    assert_eq!((bs.os_cache_disabled, bs.write_through), (Some(true), Some(true)));
    assert_eq!(bs.engine.as_deref(), Some("libaio"));
    assert_eq!(bs.write_pct, Some(30.0));
    close(val(&cap, "host", Metric::CpuPct), 66.32);
}

#[test]
fn text_linux_defaults_posix_aio_and_buffered() {
    let cap = fixture("diskspd-text", "diskspd_linux_defaults_64k_seqread_posix_aio.txt");
    let t = "/mnt/scratch/ds_target4.dat";
    close(val(&cap, t, Metric::Iops), 93166.0 / 5.0);
    close(val(&cap, t, Metric::Mbps), 6105726976.0 / MIB / 5.0);
    assert_eq!(val(&cap, t, Metric::LatencyMs), None);
    let b = bench(&cap, t);
    assert_eq!(b.engine.as_deref(), Some("POSIX AIO"));
    assert_eq!((b.os_cache_disabled, b.random, b.write_pct), (Some(false), Some(false), Some(0.0)));
    close(val(&cap, t, Metric::QueueDepth), 2.0);

    let cap = fixture("diskspd-text", "diskspd_linux_4k_rand_read_o32_t2_D500ms_buffered_noL.txt");
    let t = "/mnt/scratch/ds_target1.dat";
    close(val(&cap, t, Metric::Iops), 1064293.0 / 5.0);
    close(val(&cap, t, Metric::QueueDepth), 64.0);
    assert_eq!(bench(&cap, t).os_cache_disabled, Some(false));
}

#[test]
fn text_windows_2_2_per_target_latency_tables() {
    let cap = fixture("diskspd-text", "diskspd_win_two_targets_8k_rand_w30_o8_t2_Sh_L_D.txt");
    assert_eq!(cap.meta.version.as_deref(), Some("DiskSpd text, 2.2 layout"));
    let (a, b) = ("E:\\scratch\\dsw_target1.dat", "E:\\scratch\\dsw_target4.dat");
    close(val(&cap, a, Metric::Iops), (34384.0 + 33194.0) / 5.0);
    close(val(&cap, b, Metric::WriteIops), (10253.0 + 9835.0) / 5.0);
    close(pct(&cap, a, Direction::Total, 99.0), 0.333);
    close(pct(&cap, b, Direction::Total, 99.99), 2.609);
    close(pct(&cap, b, Direction::Write, 99.99), 1.766);
    close(pct(&cap, "total", Direction::Read, 99.99), 2.606);
    close(val(&cap, "total", Metric::Iops), 135158.0 / 5.0);
    assert_eq!(bench(&cap, a).engine.as_deref(), Some("IOCP"));
    close(val(&cap, "vm", Metric::CpuPct), 82.42);

    let cap = fixture("diskspd-text", "diskspd_win_256k_seq_w100_o10_t1_Sh_L_D.txt");
    let t = "E:\\scratch\\dsw_target3.dat";
    close(val(&cap, t, Metric::Mbps), 2932867072.0 / MIB / 5.0);
    close(val(&cap, t, Metric::IoKib), 256.0);
    assert_eq!(pct(&cap, t, Direction::Read, 0.0), None, "N/A cells are skipped");
    close(pct(&cap, t, Direction::Write, 99.99), 8.185);
    assert_eq!(bench(&cap, t).pattern.as_deref(), Some("sequential write"));
}

#[test]
fn text_handmade_old_layout_two_runs_same_path() {
    let cap = fixture(
        "diskspd-text",
        "handmade_diskspd-2.0.17-style_2runs-same-path_untitled-latency_MB-units.txt",
    );
    assert!(cap.meta.version.as_deref().is_some_and(|v| v.contains("2.0.17 or older")));
    let (r1, r2) = ("E:\\io.dat", "E:\\io.dat (run 2)");
    close(val(&cap, r1, Metric::Iops), 200000.0 / 120.0);
    close(val(&cap, r1, Metric::Mbps), 200000.0 * 8192.0 / MIB / 120.0);
    close(val(&cap, r1, Metric::ReadLatencyMs), 2.4);
    close(val(&cap, r1, Metric::WriteLatencyMs), 7.2);
    close(val(&cap, r1, Metric::LatencyMs), 3.6);
    close(val(&cap, r2, Metric::Iops), 800000.0 / 120.0);
    close(val(&cap, r1, Metric::QueueDepth), 16.0);
    close(pct(&cap, r1, Direction::Total, 99.0), 4.656);
    close(pct(&cap, r2, Direction::Read, 99.99), 1.224);
    close(val(&cap, "host", Metric::CpuPct), 10.0);
    close(val(&cap, "host (run 2)", Metric::CpuPct), 28.0);
    let b = bench(&cap, r2);
    assert_eq!(
        (b.queue_depth_per_thread, b.threads, b.file_size_bytes),
        (Some(8), Some(2), Some(4 << 30))
    );
    assert_eq!((b.write_pct, b.random, b.warmup_s), (Some(25.0), Some(true), Some(10.0)));
    assert!(cap.meta.notes.iter().any(|n| n.contains("2 DiskSpd runs")));
}

#[test]
fn text_handmade_total_titled_group_cpu() {
    let cap = fixture("diskspd-text", "handmade_diskspd-2.0.x_total-titled_group-cpu_2targets.txt");
    let (f, g) = ("F:\\data.dat", "G:\\log.dat");
    close(val(&cap, "SQLVM01", Metric::CpuPct), 25.0);
    close(val(&cap, f, Metric::Iops), 240060.0 / 60.0);
    close(val(&cap, g, Metric::Iops), 59940.0 / 60.0);
    close(val(&cap, g, Metric::WriteLatencyMs), 16.0);
    assert_eq!(val(&cap, g, Metric::ReadLatencyMs), None);
    close(val(&cap, f, Metric::QueueDepth), 8.0);
    close(pct(&cap, g, Direction::Write, 99.0), 31.36);
    close(pct(&cap, f, Direction::Write, 99.0), 7.84);
    close(pct(&cap, "total", Direction::Total, 99.0), 11.76);
    assert!(!cap.meta.percentiles.iter().any(|p| p.direction == Direction::Read));
    assert_eq!(bench(&cap, f).file_size_bytes, Some(10 << 30));
}

#[test]
fn text_samples() {
    let Some(sh) = shared() else { return };
    let dir = sh.join("samples/diskspd-txt");
    let cap = read(&dir.join("diskspd-2.0.17-era_2runs-concatenated_prose-preamble_MB-units.txt"));
    let (c, d) = ("C:\\testfile.foo", "D:\\testfile.foo");
    close(val(&cap, c, Metric::Iops), 236043.0 / 600.0);
    close(val(&cap, d, Metric::Iops), 30267359.0 / 600.0);
    close(val(&cap, d, Metric::Mbps), 123975102464.0 / MIB / 600.0);
    close(val(&cap, c, Metric::ReadLatencyMs), (59094.0 * 119.861 + 59368.0 * 119.212) / 118462.0);
    close(pct(&cap, c, Direction::Total, 99.0), 374.807);
    close(pct(&cap, d, Direction::Total, 99.99), 203.689);
    close(val(&cap, c, Metric::QueueDepth), 64.0);
    close(val(&cap, "host (run 2)", Metric::CpuPct), 35.78);

    let cap = read(&dir.join("diskspd-2.0.21a_randrw-70r30w-4k-1thread-qd1_no-cmdline.txt"));
    let t = "diskspd.dat";
    close(val(&cap, t, Metric::Iops), 35686.0 / 30.01);
    close(val(&cap, t, Metric::ReadLatencyMs), 0.272);
    close(pct(&cap, t, Direction::Read, 99.99), 4.753);
    close(val(&cap, "QuickTest2", Metric::CpuPct), 0.82);
    assert_eq!(bench(&cap, t).file_size_bytes, Some(1 << 30));

    let cap =
        read(&dir.join(
            "diskspd-2.0.21a_randwrite-8k-5targets-115threads_per-target-latency_utf8-bom.txt",
        ));
    let threads: u32 = cap.meta.bench.iter().filter_map(|b| b.threads).sum();
    assert_eq!(threads, 115);
    close(val(&cap, "E:\\diskspd-test.dat", Metric::QueueDepth), 22.0 * 23.0);
    close(val(&cap, "total", Metric::Iops), 19812174.0 / 60.02);
    close(val(&cap, "total", Metric::Mbps), 162301329408.0 / MIB / 60.02);
    close(pct(&cap, "F:\\diskspd-test.dat", Direction::Write, 99.0), 440.829);
    close(pct(&cap, "total", Direction::Write, 99.0), 368.15);
    assert!(!cap.meta.percentiles.iter().any(|p| p.direction == Direction::Read));
    close(val(&cap, "B50L1157RC4ST32", Metric::CpuPct), 39.69);
}

#[test]
fn text_errors_name_file_and_line() {
    let good =
        load(&fixture_path("diskspd-text", "diskspd_linux_two_targets_8k_rand_w30_o8_t2_L_D.txt"));
    // Cut right after the results header: no IO table.
    let end = good.find("Results for job 1:").map_or(0, |p| p + 19);
    let e = diskspd::read_text("cut.txt", &good[..end])
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    let line = good[..end].lines().count();
    assert!(e.starts_with(&format!("cut.txt:{line}:1:")), "{e}");
    // Cut inside the Read IO table: totals kept, with a warning.
    let mid = good.find("Read IO").map_or(0, |p| p + 200);
    let cap = diskspd::read_text("mid.txt", &good[..mid]).unwrap_or_else(|e| panic!("{e}"));
    assert!(cap.meta.warnings.iter().any(|w| w.message.contains("truncated")));
    close(val(&cap, "/mnt/scratch/ds_target1.dat", Metric::Iops), (37984.0 + 34779.0) / 5.0);
    // A broken row is skipped with a counted warning at its line.
    let broken = good.replacen("34779 |", "34x79 |", 1);
    let cap = diskspd::read_text("b.txt", &broken).unwrap_or_else(|e| panic!("{e}"));
    assert!(cap.meta.warnings.iter().any(|w| w.message.contains("malformed row")));
    // Empty input, prose only.
    assert!(diskspd::read_text("e.txt", "").is_err());
    let e = diskspd::read_text("p.txt", "hello\nworld\n").err().map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.starts_with("p.txt: ")));
}

// ---------------------------------------------------------------- corpus

fn corpus() -> Vec<PathBuf> {
    let mut dirs = vec![
        manifest().join("../../fixtures/captures/diskspd-xml"),
        manifest().join("../../fixtures/captures/diskspd-text"),
    ];
    if let Some(sh) = shared() {
        for d in [
            "samples/diskspd-xml",
            "samples/diskspd-txt",
            "generated/diskspd",
            "generated/diskspd/windows-2.2.0-wine",
        ] {
            dirs.push(sh.join(d));
        }
    }
    let mut files = Vec::new();
    for d in dirs {
        let Ok(entries) = std::fs::read_dir(&d) else {
            skip::skip(&format!("{} is absent", d.display()));
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let is_capture = name.ends_with(".xml") || name.ends_with(".txt");
            if p.is_file() && is_capture && !name.contains("stderr") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn corpus_reads_cleanly() {
    let files = corpus();
    assert!(files.len() >= 11, "the project fixtures alone are 11 files: {files:?}");
    for f in files {
        let cap = read(&f);
        let benches = cap.meta.targets.iter().filter(|t| t.kind == TargetKind::Benchmark).count();
        assert!(benches >= 1, "{}", f.display());
        assert!(cap.table.column(Metric::Iops).is_some(), "{}", f.display());
        assert!(cap.table.column(Metric::Mbps).is_some(), "{}", f.display());
        assert_eq!(cap.meta.bench.len(), benches, "{}", f.display());
        for (m, col) in &cap.table.columns {
            for v in col.iter().flatten() {
                assert!(v.is_finite() && *v >= 0.0, "{}: {m} = {v}", f.display());
            }
        }
    }
}

// ---------------------------------------------------------------- properties

/// A DiskSpd 2.0.21a-style text result with known per-thread counts.
fn synth_text(secs: f64, threads: &[(u64, u64, f64, f64)], bs: u64) -> String {
    let mut s = String::from(
        "Input parameters:\n\n\ttimespan:   1\n\t-------------\n\tduration: 10s\n\tpath: 'X:\\t.dat'\n\
         \t\tperforming mix test (read/write ratio: 50/50)\n\t\tblock size: 4096\n\
         \t\tnumber of outstanding I/O operations: 4\n\n\
         Results for timespan 1:\n****\n\n",
    );
    s.push_str(&format!("actual test time:\t{secs:.2}s\nthread count:\t\t{}\n\n", threads.len()));
    for (title, pick) in [("Total IO", 0), ("Read IO", 1), ("Write IO", 2)] {
        s.push_str(title);
        s.push_str("\nthread |       bytes     |     I/Os     |    MiB/s   |  I/O per s |  AvgLat  | LatStdDev |  file\n---\n");
        for (i, &(r, w, rl, wl)) in threads.iter().enumerate() {
            let (n, lat) = match pick {
                0 => (
                    r + w,
                    if r + w > 0 { (r as f64 * rl + w as f64 * wl) / (r + w) as f64 } else { 0.0 },
                ),
                1 => (r, rl),
                _ => (w, wl),
            };
            s.push_str(&format!(
                "{i:6} | {:15} | {n:12} | {:10.2} | {:10.2} | {lat:8.3} | {:9.3} | X:\\t.dat (1GiB)\n",
                n * bs,
                (n * bs) as f64 / MIB / secs,
                n as f64 / secs,
                0.1
            ));
        }
        s.push_str("---\ntotal: 0 | 0 | 0 | 0\n\n");
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(s in ".{0,400}") {
        let _ = diskspd::read_text("p.txt", &s);
        let _ = diskspd::read_xml("p.xml", &s);
    }

    #[test]
    fn xmlish_text_never_panics(s in "(<[A-Za-z]{1,6}( [a-z]=\"[<>a-z&;]{0,4}\")?/?>|</[A-Za-z]{1,6}>|[0-9.&;<>\"]{0,3}|\n){0,40}") {
        let _ = diskspd::read_xml("p.xml", &s);
        let _ = diskspd::read_xml("p.xml", &format!("<Results>{s}</Results>"));
    }

    #[test]
    fn mutated_real_files_never_panic(cut in 0usize..100_000, junk in "[ |:%<>\"a-z0-9\n]{0,12}", which in 0usize..4) {
        let files = [
            fixture_path("diskspd-text", "diskspd_win_two_targets_8k_rand_w30_o8_t2_Sh_L_D.txt"),
            fixture_path("diskspd-text", "handmade_diskspd-2.0.17-style_2runs-same-path_untitled-latency_MB-units.txt"),
            fixture_path("diskspd-xml", "diskspd_win_256k_seq_w100_o10_t1_Sh_L_D.xml"),
            fixture_path("diskspd-xml", "handmade_diskspd-2.0.21a_two-targets_2threads_L_D.xml"),
        ];
        let text = load(&files[which]);
        let mut at = cut % text.len().max(1);
        while !text.is_char_boundary(at) { at -= 1; }
        let mut end = (at + junk.len()).min(text.len());
        while !text.is_char_boundary(end) { end += 1; }
        let mutated = format!("{}{junk}{}", &text[..at], &text[end..]);
        let _ = diskspd::read_text("m.txt", &mutated);
        let _ = diskspd::read_xml("m.xml", &mutated);
        let _ = diskspd::read_text("t.txt", &text[..at]);
        let _ = diskspd::read_xml("t.xml", &text[..at]);
    }

    #[test]
    fn generated_text_round_trips(
        secs in 1.0f64..1000.0,
        threads in proptest::collection::vec((0u64..5_000_000, 0u64..5_000_000, 0.001f64..500.0, 0.001f64..500.0), 1..6),
    ) {
        let secs = (secs * 100.0).round() / 100.0;
        // The text carries latencies with 3 decimals.
        let threads: Vec<(u64, u64, f64, f64)> = threads
            .into_iter()
            .map(|(r, w, rl, wl)| (r, w, (rl * 1000.0).round() / 1000.0, (wl * 1000.0).round() / 1000.0))
            .collect();
        prop_assume!(threads.iter().any(|t| t.0 + t.1 > 0));
        let text = synth_text(secs, &threads, 4096);
        let cap = diskspd::read_text("g.txt", &text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let r: u64 = threads.iter().map(|t| t.0).sum();
        let w: u64 = threads.iter().map(|t| t.1).sum();
        let t = "X:\\t.dat";
        let eq = |got: Option<f64>, want: f64| got.is_some_and(|g| (g - want).abs() <= 1e-9 * want.abs().max(1.0));
        prop_assert!(eq(val(&cap, t, Metric::ReadIops), r as f64 / secs));
        prop_assert!(eq(val(&cap, t, Metric::WriteIops), w as f64 / secs));
        prop_assert!(eq(val(&cap, t, Metric::Iops), (r + w) as f64 / secs));
        prop_assert!(eq(val(&cap, t, Metric::Mbps), ((r + w) * 4096) as f64 / MIB / secs));
        if r > 0 {
            let rl: f64 = threads.iter().map(|t| t.0 as f64 * t.2).sum::<f64>() / r as f64;
            prop_assert!(eq(val(&cap, t, Metric::ReadLatencyMs), rl));
        } else {
            prop_assert_eq!(val(&cap, t, Metric::ReadLatencyMs), None);
        }
        if w > 0 {
            let wl: f64 = threads.iter().map(|t| t.1 as f64 * t.3).sum::<f64>() / w as f64;
            prop_assert!(eq(val(&cap, t, Metric::WriteLatencyMs), wl));
        }
        prop_assert!(eq(val(&cap, t, Metric::QueueDepth), 4.0 * threads.len() as f64));
        prop_assert!(eq(val(&cap, t, Metric::IoKib), 4.0));
    }
}
