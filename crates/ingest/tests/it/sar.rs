//! The sar text reader against the real sysstat 12.6.1 fixtures and the hand-made old-layout
//! file, with numbers checked against the text; errors and a property test.

// A failing test panics with the file and the value that was wrong.
#![allow(clippy::panic)]

use crate::skip;

use std::path::PathBuf;

use advisor_ingest::{decode, sar, sniff};
use advisor_model::{Metric, RawCapture, TargetKind};
use proptest::prelude::*;

const MIB: f64 = 1_048_576.0;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/captures/sar-text").join(name)
}

fn read(name: &str) -> RawCapture {
    let path = fixture(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = path.display().to_string();
    assert_eq!(sniff(&file, &bytes).map(|f| f.id()).ok(), Some("sar-text"), "{file}");
    let text = decode::decode(&bytes).text.into_owned();
    sar::read_text(&file, &text).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The values of a metric for a target, in row order.
fn values(c: &RawCapture, target: &str, metric: Metric) -> Vec<f64> {
    let Some(t) = c.meta.targets.iter().position(|t| t.name == target) else {
        panic!("no target {target}: {:?}", c.meta.targets)
    };
    let col = c.table.column(metric).unwrap_or_else(|| panic!("no {metric:?}"));
    c.table
        .target
        .iter()
        .zip(col)
        .filter(|(row_t, _)| **row_t as usize == t)
        .filter_map(|(_, v)| *v)
        .collect()
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

#[test]
fn sar_a_reads_the_device_and_cpu_sections_only() {
    let c = read("sar-A.txt");
    assert_eq!(c.meta.hosts, ["vm"]);
    assert_eq!(c.meta.interval_s, Some(1.0));
    let names: Vec<&str> = c.meta.targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["vm", "vda"]);
    assert_eq!(c.meta.targets[0].kind, TargetKind::Host);
    // 00:56:25 vda 395.00 tps, 16.00 rkB/s, 400384.00 wkB/s, 1013.67 areq-sz, 44.40 %util.
    let iops = values(&c, "vda", Metric::Iops);
    assert_eq!(iops.len(), 7);
    close(iops[0], 395.0);
    close(values(&c, "vda", Metric::WriteMbps)[0], 400384.0 * 1024.0 / MIB);
    close(values(&c, "vda", Metric::ReadMbps)[0], 16.0 / 1024.0);
    close(values(&c, "vda", Metric::IoKib)[0], 1013.67);
    close(values(&c, "vda", Metric::BusyPct)[0], 44.40);
    // CPU `all` %idle 76.38 (the `-P ALL` rows of single CPUs are not read).
    let cpu = values(&c, "vm", Metric::CpuPct);
    assert_eq!(cpu.len(), 7);
    close(cpu[0], 100.0 - 76.38);
    // Every section starts again at the banner's date: no false midnight.
    let first = c.table.time_ms.first().copied().flatten();
    let last = c.table.time_ms.last().copied().flatten();
    assert_eq!(last.zip(first).map(|(l, f)| l - f), Some(6_000));
}

#[test]
fn pretty_names_last_give_the_same_numbers() {
    let a = read("sar-A.txt");
    let p = read("sar-dpu.txt");
    for m in [Metric::Iops, Metric::WriteMbps, Metric::LatencyMs, Metric::QueueDepth] {
        assert_eq!(values(&a, "vda", m), values(&p, "vda", m), "{m:?}");
    }
    assert_eq!(values(&a, "vm", Metric::CpuPct), values(&p, "vm", Metric::CpuPct));
}

#[test]
fn old_layout_12h_midnight_and_restart() {
    let c = read("sar-old-12h-restart.txt");
    assert_eq!(c.meta.hosts, ["dbvm01"]);
    assert_eq!(c.meta.interval_s, Some(600.0));
    // 61353.93 sectors/s of 512 bytes; avgrq-sz 8 sectors = 4 KiB.
    close(values(&c, "dev8-16", Metric::WriteMbps)[0], 61353.93 * 512.0 / MIB);
    close(values(&c, "dev8-16", Metric::IoKib)[0], 4.0);
    close(values(&c, "dev8-16", Metric::QueueDepth)[0], 35.39);
    assert_eq!(values(&c, "dev8-16", Metric::Iops).len(), 3, "Average: skipped");
    // CPU: 3 rows before the restart, 1 after; 12:30:01 AM is the next day.
    assert_eq!(values(&c, "dbvm01", Metric::CpuPct).len(), 4);
    let day = |s: &str| {
        chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S")
            .map(|t| t.and_utc().timestamp_millis())
            .ok()
    };
    let times: Vec<Option<i64>> = c.table.time_ms.clone();
    assert_eq!(times.first().copied().flatten(), day("2026-11-23 23:50:01"));
    assert!(times.contains(&day("2026-11-24 00:30:01")), "{times:?}");
    assert!(times.contains(&day("2026-11-24 00:00:01")));
    assert!(c.meta.notes.iter().any(|n| n.contains("LINUX RESTART")), "{:?}", c.meta.notes);
    assert!(
        c.meta.notes.iter().any(|n| n.contains("coarse interval (600 s")),
        "{:?}",
        c.meta.notes
    );
    assert!(c.meta.version.as_deref().is_some_and(|v| v.contains("<= 11")));
}

/// sar files in `/work/shared/generated/iostat` (live `sar -d -p 1`), read in place.
#[test]
fn shared_generated_sar_files() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/generated/iostat");
    if !dir.is_dir() {
        skip::skip("../shared is absent: the generated sar files");
        return;
    }
    for (f, rows) in [("sar_d_p_1_5.txt", 5), ("sar_d_p_1_4_with_o.txt", 4)] {
        let path = dir.join(f);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(sniff(f, &bytes).map(|f| f.id()).ok(), Some("sar-text"), "{f}");
        let text = decode::decode(&bytes).text.into_owned();
        let c = sar::read_text(f, &text).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(values(&c, "vda", Metric::Iops).len(), rows, "{f}");
        assert_eq!(c.meta.interval_s, Some(1.0), "{f}");
    }
    // 22:55:59 vda 32199.00 tps, 180072.00 rkB/s.
    let text = load_shared(&dir.join("sar_d_p_1_4_with_o.txt"));
    let c = sar::read_text("o", &text).unwrap_or_else(|e| panic!("{e}"));
    close(values(&c, "vda", Metric::Iops)[0], 32199.0);
    close(values(&c, "vda", Metric::ReadMbps)[0], 180072.0 / 1024.0);
}

fn load_shared(p: &std::path::Path) -> String {
    let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    decode::decode(&bytes).text.into_owned()
}

#[test]
fn a_live_capture_rolls_over_midnight() {
    let text = "Linux 6.1 (h) \t11/24/26 \t_x86_64_\t(2 CPU)\n\n\
                23:59:58  DEV  tps\n23:59:59  sda  1.0\n\n\
                23:59:59  DEV  tps\n00:00:00  sda  2.0\n";
    let c = sar::read_text("f", text).unwrap_or_else(|e| panic!("{e}"));
    let d =
        c.table.time_ms.windows(2).map(|w| w[1].zip(w[0]).map(|(b, a)| b - a)).collect::<Vec<_>>();
    assert_eq!(d, [Some(1000)]);
}

#[test]
fn bad_cells_are_warned_with_their_place() {
    let text = "Linux 6.1 (h) \t11/24/26 \t_x86_64_\t(2 CPU)\n\n\
                00:00:00  DEV  tps  rkB/s  %util\n\
                00:00:01  sda  1.0  x7     5.0\n\
                00:00:02  sda  2.0  8.0\n";
    let c = sar::read_text("f.txt", text).unwrap_or_else(|e| panic!("{e}"));
    let w: Vec<String> = c.meta.warnings.iter().map(|w| format!("{w:?}")).collect();
    assert_eq!(c.meta.warnings.len(), 2, "{w:?}");
    assert!(w[0].contains("`x7`") && w[0].contains("line: 4"), "{}", w[0]);
    assert!(w[1].contains("3 fields under a header of 4"), "{}", w[1]);
}

#[test]
fn no_device_section_is_an_error_naming_the_file_the_sections_and_the_command() {
    let text = "Linux 6.1 (h) \t11/24/26 \t_x86_64_\t(2 CPU)\n\n\
                00:00:00  IFACE  rxpck/s\n00:00:01  eth0  1.0\n";
    let e = sar::read_text("net.txt", text).map(|_| ()).map_err(|e| e.to_string());
    let msg = e.err().unwrap_or_default();
    assert!(
        msg.starts_with("net.txt:3:1: this is sar text, but it holds no block-device"),
        "{msg}"
    );
    assert!(
        msg.contains("only `IFACE rxpck/s` (line 3)") && msg.contains("sar -d -p 1 60"),
        "{msg}"
    );
}

fn invalid(name: &str) -> (String, String) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/invalid").join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (name.to_owned(), decode::decode(&bytes).text.into_owned())
}

/// `sar -n TCP,ETCP` (real, sysstat 12.6.1): sar, not "none of the supported formats", and
/// refused at its first section with what it holds and the command that captures disks.
#[test]
fn sar_without_device_statistics_is_recognised_and_refused_with_the_command() {
    let (name, text) = invalid("sar-n-tcp-etcp.txt");
    assert_eq!(sniff(&name, text.as_bytes()).map(|f| f.id()).ok(), Some("sar-text"));
    let e = sar::read_text(&name, &text).map(|_| ()).map_err(|e| e.to_string());
    let msg = e.err().unwrap_or_default();
    assert_eq!(
        msg,
        "sar-n-tcp-etcp.txt:3:1: this is sar text, but it holds no block-device statistics (no \
         `DEV` section with data), only `active/s passive/s iseg/s oseg/s` (line 3), \
         `atmptf/s estres/s retrans/s isegerr/s orsts/s` (line 13): capture the disks with \
         `sar -d -p 1 60`, or convert the day's file with `LC_ALL=C sar -d -p -f \
         /var/log/sa/saDD` (or `sar -A`)"
    );
    // The CPU alone (plain `sar`, `sar -u`) says nothing of the disks either.
    let (name, text) = invalid("sar-u-cpu-only.txt");
    let msg = sar::read_text(&name, &text).map(|_| ()).map_err(|e| e.to_string()).err();
    let msg = msg.unwrap_or_default();
    assert!(msg.starts_with("sar-u-cpu-only.txt:3:1: this is sar text"), "{msg}");
    assert!(msg.contains("only CPU (`%idle`, line 3)"), "{msg}");
    // Every section sar writes is told from other text by its header and data line.
    for header in [
        "runq-sz  plist-sz   ldavg-1   ldavg-5  ldavg-15   blocked",
        "dentunusd   file-nr  inode-nr    pty-nr",
        "totsck    tcpsck    udpsck    rawsck   ip-frag    tcp-tw",
        "kbhugfree kbhugused  %hugused",
        "%scpu-10  %scpu-60 %scpu-300     %scpu",
    ] {
        let values = header.split_whitespace().map(|_| "1.00").collect::<Vec<_>>().join(" ");
        let text = format!("10:00:00 {header}\n10:00:01 {values}\n");
        assert_eq!(sniff("x", text.as_bytes()).map(|f| f.id()).ok(), Some("sar-text"), "{header}");
    }
    assert!(sniff("x", b"10:00:00 hello world\n10:00:01 1 2\n").is_err());
}

/// `sar -d -p -u 0` (real): one report, its rows at the header's own time, the averages
/// since boot: read as the only sample, kept as the since-boot summary too, and said so.
#[test]
fn a_since_boot_report_is_read_and_said_so() {
    let c = read("sar-dpu-since-boot.txt");
    assert_eq!(values(&c, "vda", Metric::Iops), [235.67]);
    close(values(&c, "vm", Metric::CpuPct)[0], 100.0 - 43.26);
    assert_eq!(c.since_boot.as_ref().map(advisor_model::Table::len), Some(2));
    let w: Vec<String> = c.meta.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("the average since boot (`sar -d 0`)") && w[0].contains("sar -d -p 1 60"),
        "{}",
        w[0]
    );
    // A series is not: its rows come after their header's time.
    assert!(read("sar-dpu.txt").since_boot.is_none());
}

/// The banner, header and `Average:` row of a `sar -d -p -f` (what `grep -E
/// 'DEV|Average'` keeps): the averages are read as one sample without a time, and said so.
#[test]
fn averages_alone_are_read_as_one_sample_and_said_so() {
    let c = read("sar-dp-averages-only.txt");
    assert_eq!(values(&c, "vda", Metric::Iops), [297.0]);
    close(values(&c, "vda", Metric::WriteMbps)[0], 61873.71 / 1024.0);
    assert_eq!(c.table.time_ms.iter().flatten().count(), 0);
    let w: Vec<String> = c.meta.warnings.iter().map(|w| w.to_string()).collect();
    assert!(w.len() == 1 && w[0].contains("only the `Average:` rows"), "{w:?}");
}

#[test]
fn binary_sa_files_are_refused_with_the_command() {
    let e = sniff("sa24", b"\x96\xd5\x75\x21\x0c\x06\x01\x00").map_err(|e| e.to_string());
    let msg = e.err().unwrap_or_default();
    assert!(msg.contains("saDD") && msg.contains("LC_ALL=C sar -A -f"), "{msg}");
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(s in "(?s).{0,400}") {
        let _ = sar::read_text("p", &s);
    }

    #[test]
    fn sar_like_lines_never_panic(
        lines in proptest::collection::vec(
            "(Linux 6\\.1 \\(h\\) 11/2[0-9]/26|[0-2][0-9]:[0-5][0-9]:[0-5][0-9]( AM| PM)?( DEV| CPU| all| sda| %idle| tps| rd_sec/s| 1\\.5| -3| LINUX RESTART| nan)*|Average: .*)",
            0..30,
        )
    ) {
        let _ = sar::read_text("p", &lines.join("\n"));
    }
}
