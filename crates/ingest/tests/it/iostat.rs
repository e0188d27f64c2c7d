//! iostat text and JSON readers: real values read from the fixtures (units converted and
//! checked by hand against the files), the shared corpus, bad inputs, and property tests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::float_cmp)]

use crate::skip;

use std::path::{Path, PathBuf};

use advisor_ingest::iostat::{self, read_json, read_text};
use advisor_ingest::{ErrorKind, IngestError, Read, reader, sniff};
use advisor_model::{Format, Location, Metric, RawCapture, Table, TargetKind};

/// Reads a text with the registry's reader of `format`, as the application does.
fn read_raw(file: &str, format: Format, text: &str) -> Result<RawCapture, IngestError> {
    let reader = reader(format).unwrap_or_else(|| panic!("no reader of {format}"));
    match reader.read(file, text.into())? {
        Read::Table(raw) => Ok(raw),
        Read::Csv { .. } => panic!("{file}: not a table"),
    }
}
use proptest::prelude::*;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture(dir: &str, name: &str) -> String {
    let p = root().join("fixtures/captures").join(dir).join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn text(name: &str) -> RawCapture {
    read_text(name, &fixture("iostat-text", name)).unwrap_or_else(|e| panic!("{e}"))
}

fn json(name: &str) -> RawCapture {
    read_json(name, &fixture("iostat-json", name)).unwrap_or_else(|e| panic!("{e}"))
}

/// The shared corpus beside the repository, when it is there.
fn shared() -> Option<PathBuf> {
    let p = root().join("../shared");
    if p.is_dir() {
        Some(p)
    } else {
        skip::skip(&format!("{} is absent: the corpus checks", p.display()));
        None
    }
}

/// Values of one metric for one target (by name and host), in row order.
fn series(
    cap: &RawCapture,
    table: &Table,
    name: &str,
    host: Option<&str>,
    m: Metric,
) -> Vec<Option<f64>> {
    let col = table.column(m);
    (0..table.len())
        .filter(|&i| {
            let t = &cap.meta.targets[table.target[i] as usize];
            t.name == name && (host.is_none() || t.host.as_deref() == host)
        })
        .map(|i| col.and_then(|c| c[i]))
        .collect()
}

fn nth(cap: &RawCapture, name: &str, m: Metric, i: usize) -> f64 {
    series(cap, &cap.table, name, None, m)[i].unwrap_or_else(|| panic!("{name} {m} #{i} missing"))
}

fn boot(cap: &RawCapture, name: &str, m: Metric) -> f64 {
    let t = cap.since_boot.as_ref().expect("since-boot report");
    series(cap, t, name, None, m)[0].unwrap_or_else(|| panic!("since-boot {name} {m} missing"))
}

fn times(cap: &RawCapture, name: &str) -> Vec<Option<i64>> {
    (0..cap.table.len())
        .filter(|&i| cap.meta.targets[cap.table.target[i] as usize].name == name)
        .map(|i| cap.table.time_ms[i])
        .collect()
}

fn ms(s: &str) -> i64 {
    chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S")
        .unwrap()
        .and_utc()
        .timestamp_millis()
}

#[track_caller]
fn close(got: f64, want: f64) {
    assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "got {got}, want {want}");
}

fn kind(cap: &RawCapture, name: &str) -> TargetKind {
    cap.meta.targets.iter().find(|t| t.name == name).map(|t| t.kind).expect(name)
}

// ---------------------------------------------------------------------------------------
// Text: one test per variant, values checked against the files.

#[test]
fn layout_12_3_with_timestamps_kb() {
    let c = text("iostat_xt_1_10.txt");
    assert_eq!(c.meta.format, iostat::TEXT);
    assert_eq!(c.meta.version.as_deref(), Some("sysstat 12.3+ layout (f/s, f_await)"));
    assert_eq!(c.meta.hosts, ["vm"]);
    assert_eq!(c.meta.interval_s, Some(1.0));
    // Since boot (22:47:32): vda r/s 7420.26, rkB/s 92340.27; kept apart.
    close(boot(&c, "vda", Metric::ReadIops), 7420.26);
    close(boot(&c, "vda", Metric::ReadMbps), 92340.27 / 1024.0);
    // First interval (22:47:33): r/s 14125, rkB/s 113000, r_await 0.13, rareq-sz 8.00,
    // w/s 6069, wkB/s 48552, aqu-sz 2.93, %util 68.80; %idle 0.51.
    close(nth(&c, "vda", Metric::ReadIops, 0), 14125.0);
    close(nth(&c, "vda", Metric::ReadMbps, 0), 113000.0 / 1024.0);
    close(nth(&c, "vda", Metric::ReadLatencyMs, 0), 0.13);
    close(nth(&c, "vda", Metric::ReadIoKib, 0), 8.0);
    close(nth(&c, "vda", Metric::WriteIops, 0), 6069.0);
    close(nth(&c, "vda", Metric::WriteMbps, 0), 48552.0 / 1024.0);
    close(nth(&c, "vda", Metric::QueueDepth, 0), 2.93);
    close(nth(&c, "vda", Metric::BusyPct, 0), 68.8);
    close(nth(&c, "vm", Metric::CpuPct, 0), 100.0 - 0.51);
    assert_eq!(kind(&c, "vm"), TargetKind::Host);
    assert_eq!(kind(&c, "vda"), TargetKind::Device);
    let t = times(&c, "vda");
    assert_eq!(t.len(), 9);
    assert_eq!(t[0], Some(ms("2026-11-21 22:47:33")));
    // Discard, flush, merges: present, not mapped, said so.
    for ig in ["d/s", "dkB/s", "f/s", "f_await", "rrqm/s", "%wrqm"] {
        assert!(c.meta.ignored.iter().any(|i| i == ig), "{ig} not in {:?}", c.meta.ignored);
    }
    assert!(c.meta.notes.iter().any(|n| n.contains("since boot")));
    assert!(c.meta.warnings.is_empty(), "{:?}", c.meta.warnings);
}

#[test]
fn megabytes_stay_mib() {
    let c = text("iostat_xmt_1_10.txt");
    // Since boot: rMB/s 90.47; rareq-sz 12.28 stays kB with -m.
    close(boot(&c, "vda", Metric::ReadMbps), 90.47);
    close(boot(&c, "vda", Metric::ReadIoKib), 12.28);
    assert_eq!(c.meta.interval_s, Some(1.0));
}

#[test]
fn dash_d_has_no_cpu_and_no_time() {
    let c = text("iostat_dxk_1_5.txt");
    assert!(c.meta.targets.iter().all(|t| t.kind != TargetKind::Host));
    assert_eq!(c.table.len(), 4);
    // No clock: the 4 reports after the since-boot one are placed 1 s apart from 0.
    assert_eq!(times(&c, "vda"), vec![Some(0), Some(1000), Some(2000), Some(3000)]);
    assert!(c.meta.relative_time);
    assert_eq!(c.meta.interval_s, None);
    assert!(c.meta.notes.iter().any(|n| n.contains("no timestamps")));
    // Second report (first of the series): r/s 24700.00 rkB/s 197692.00 wareq-sz 8.25.
    close(nth(&c, "vda", Metric::ReadIops, 0), 24700.0);
    close(nth(&c, "vda", Metric::ReadMbps, 0), 197692.0 / 1024.0);
    close(nth(&c, "vda", Metric::WriteIoKib, 0), 8.25);
}

#[test]
fn old_layout_sectors_and_avgqu() {
    let c = text("hand_old-layout_xk_avgrq-sz-sectors.txt");
    assert_eq!(
        c.meta.version.as_deref(),
        Some("sysstat <= 11.5 layout (avgrq-sz in sectors, avgqu-sz)")
    );
    // sdb: r/s 1520 w/s 480 rkB/s 12160 avgrq-sz 16.00 (sectors) avgqu-sz 7.90 await 3.95.
    close(nth(&c, "sdb", Metric::ReadIops, 0), 1520.0);
    close(nth(&c, "sdb", Metric::ReadMbps, 0), 12160.0 / 1024.0);
    close(nth(&c, "sdb", Metric::IoKib, 0), 8.0);
    close(nth(&c, "sdb", Metric::QueueDepth, 0), 7.9);
    close(nth(&c, "sdb", Metric::LatencyMs, 0), 3.95);
    close(nth(&c, "sdb", Metric::ReadLatencyMs, 0), 3.5);
    close(nth(&c, "sdb", Metric::BusyPct, 1), 97.2);
    assert!(c.meta.ignored.iter().any(|i| i == "svctm"));
    assert_eq!(c.meta.hosts, ["db01"]);
}

#[test]
fn very_old_layout_without_r_await() {
    let c = text("hand_very-old_x_rsec_no-r_await.txt");
    // rsec/s 3200 sectors of 512 bytes = 1.5625 MiB/s; await alone -> latency_ms.
    close(nth(&c, "sda", Metric::ReadMbps, 0), 3200.0 * 512.0 / 1048576.0);
    close(nth(&c, "sda", Metric::LatencyMs, 0), 5.0);
    close(nth(&c, "sda", Metric::IoKib, 1), 11.2);
    assert!(c.table.column(Metric::ReadLatencyMs).is_none());
}

#[test]
fn transitional_layout() {
    let c = text("hand_transitional-11.6_xmt.txt");
    assert_eq!(
        c.meta.version.as_deref(),
        Some("sysstat 11.5.7-11.7 layout (aqu-sz, rareq-sz, svctm)")
    );
    // Second report: nvme0n1 w/s 13538.00 wMB/s 98.60 aqu-sz 18.79 wareq-sz 7.46 %util 89.80.
    close(nth(&c, "nvme0n1", Metric::WriteIops, 0), 13538.0);
    close(nth(&c, "nvme0n1", Metric::WriteMbps, 0), 98.6);
    close(nth(&c, "nvme0n1", Metric::QueueDepth, 0), 18.79);
    close(nth(&c, "nvme0n1", Metric::WriteIoKib, 0), 7.46);
    close(nth(&c, "nvme0n1", Metric::BusyPct, 0), 89.8);
    assert_eq!(c.meta.interval_s, Some(2.0));
    assert_eq!(times(&c, "sda")[0], Some(ms("2018-05-10 14:02:12")));
}

#[test]
fn twelve_hour_timestamps() {
    let c = text("hand_ampm-12h-timestamps_xmt.txt");
    let t = times(&c, "sda");
    assert_eq!(
        t,
        vec![
            Some(ms("2026-11-05 11:59:59")),
            Some(ms("2026-11-05 12:00:00")),
            Some(ms("2026-11-05 12:00:01")),
            Some(ms("2026-11-05 13:00:02")),
        ]
    );
    assert_eq!(c.meta.interval_s, Some(1.0), "median of 1, 1, 3601 s");
    let b = c.since_boot.as_ref().unwrap();
    assert_eq!(b.time_ms[0], Some(ms("2026-11-05 11:59:58")));
}

#[test]
fn iso_timestamps_carry_the_offset() {
    let c = text("hand_iso-timestamps_xt_plus0530.txt");
    assert_eq!(c.meta.utc_offset_min, Some(330));
    assert_eq!(c.meta.timezone.as_deref(), Some("+0530"));
    assert_eq!(c.meta.interval_s, Some(2.0));
    // Wall clock as written, no zone applied.
    assert_eq!(times(&c, "nvme0n1")[0], Some(ms("2026-11-21 22:47:34")));
    close(nth(&c, "nvme0n1", Metric::ReadMbps, 0), 8192.0 / 1024.0);
}

#[test]
fn pdsh_two_hosts() {
    let c = text("hand_pdsh_two-hosts_dxk-t.txt");
    assert_eq!(c.meta.hosts, ["web1", "web2"]);
    assert_eq!(c.meta.targets.len(), 4);
    assert!(c.meta.targets.iter().all(|t| t.host.is_some()));
    // web2 sdc at 10:00:01: r/s 5000, r_await 49.00, aqu-sz 296.00.
    let web2 = series(&c, &c.table, "sdc", Some("web2"), Metric::ReadLatencyMs);
    assert_eq!(web2, vec![Some(49.0), Some(50.0)]);
    let web1 = series(&c, &c.table, "sdc", Some("web1"), Metric::QueueDepth);
    assert_eq!(web1, vec![Some(1.31), Some(1.24)]);
    // Each host's first report is its since-boot average.
    let b = c.since_boot.as_ref().unwrap();
    assert_eq!(series(&c, b, "sdc", Some("web2"), Metric::ReadIops), vec![Some(20.0)]);
    assert_eq!(c.meta.interval_s, Some(1.0));
    assert!(c.meta.warnings.is_empty(), "{:?}", c.meta.warnings);
}

#[test]
fn pretty_sub_tables_are_merged() {
    let c = text("hand_pretty_x-t_split-sections.txt");
    assert_eq!(c.meta.targets.iter().filter(|t| t.name == "sdb").count(), 1);
    // Second report: r/ 3200.00 204800.00 ... 2.50 64.00; w/ 400.00 3200.00; f/ 8.44 99.60.
    close(nth(&c, "sdb", Metric::ReadIops, 0), 3200.0);
    close(nth(&c, "sdb", Metric::ReadMbps, 0), 200.0);
    close(nth(&c, "sdb", Metric::ReadLatencyMs, 0), 2.5);
    close(nth(&c, "sdb", Metric::WriteIops, 0), 400.0);
    close(nth(&c, "sdb", Metric::WriteMbps, 0), 3200.0 / 1024.0);
    close(nth(&c, "sdb", Metric::QueueDepth, 0), 8.44);
    close(nth(&c, "sdb", Metric::BusyPct, 0), 99.6);
    assert_eq!(c.table.len(), 3, "one row per device per report, plus CPU");
    assert_eq!(c.meta.version.as_deref(), Some("sysstat 12.3+ layout (f/s, f_await)"));
}

#[test]
fn human_suffixes() {
    let c = text("hand_human_dx_unit-suffixes.txt");
    // sdb: rkB/s 200.0M, wkB/s 3.1M, rareq-sz 64.0k, %util 99.6%.
    close(nth(&c, "sdb", Metric::ReadMbps, 0), 200.0);
    close(nth(&c, "sdb", Metric::WriteMbps, 0), 3.1);
    close(nth(&c, "sdb", Metric::ReadIoKib, 0), 64.0);
    close(nth(&c, "sdb", Metric::BusyPct, 0), 99.6);
    close(boot(&c, "sda", Metric::ReadMbps), 222.1 / 1024.0);
}

#[test]
fn truncated_last_report_keeps_the_rest() {
    let c = text("hand_truncated-last-report_xt.txt");
    let w = &c.meta.warnings;
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].message.contains("cut short"));
    assert_eq!(w[0].location, Some(Location::line(36, 1)));
    // Last report (22:47:34): sda kept (r/s 9.00), sdb dropped.
    assert_eq!(times(&c, "sda").len(), 3);
    close(nth(&c, "sda", Metric::ReadIops, 2), 9.0);
    assert_eq!(times(&c, "sdb").len(), 2);
}

#[test]
fn partitions_are_volumes() {
    let c = text("hand_p-ALL_partitions_x.txt");
    assert_eq!(kind(&c, "nvme0n1"), TargetKind::Device);
    assert_eq!(kind(&c, "nvme0n1p1"), TargetKind::Volume);
    assert_eq!(kind(&c, "nvme0n1p15"), TargetKind::Volume);
    assert_eq!(kind(&c, "sda1"), TargetKind::Volume);
    assert_eq!(kind(&c, "sdb"), TargetKind::Device);
    assert_eq!(kind(&c, "dm-0"), TargetKind::Device);
    let g = text("iostat_p_ALL_x_1_3.txt");
    assert!(g.meta.targets.iter().any(|t| t.name == "loop7" && t.kind == TargetKind::Device));
}

#[test]
fn groups_are_aggregates() {
    let c = text("hand_groups_g-data_dx.txt");
    assert_eq!(kind(&c, "data"), TargetKind::Aggregate);
    assert_eq!(kind(&c, "sdc"), TargetKind::Device);
    close(nth(&c, "data", Metric::ReadIops, 0), 1000.0);
}

#[test]
fn short_extended_layout() {
    let c = text("hand_short_xs.txt");
    // tps 1024.00 kB/s 8192.00 await 1.50 areq-sz 8.00 aqu-sz 1.54 %util 45.00.
    close(nth(&c, "sda", Metric::Iops, 0), 1024.0);
    close(nth(&c, "sda", Metric::Mbps, 0), 8.0);
    close(nth(&c, "sda", Metric::LatencyMs, 0), 1.5);
    close(nth(&c, "sda", Metric::IoKib, 0), 8.0);
    close(nth(&c, "sda", Metric::QueueDepth, 0), 1.54);
    close(nth(&c, "sda", Metric::BusyPct, 0), 45.0);
}

#[test]
fn decimal_comma_locale() {
    let c = text("hand_de-locale_decimal-comma_xmt.txt");
    close(nth(&c, "sda", Metric::ReadMbps, 0), 4.0);
    close(nth(&c, "sda", Metric::BusyPct, 0), 12.5);
    close(nth(&c, "fra1", Metric::CpuPct, 0), 15.75);
    assert_eq!(times(&c, "sda")[0], Some(ms("2026-11-21 22:47:33")));
}

// ---------------------------------------------------------------------------------------
// JSON.

#[test]
fn json_with_timestamps() {
    let c = json("iostat_xt_json_1_3.json");
    assert_eq!(c.meta.format, iostat::JSON);
    assert_eq!(c.meta.hosts, ["vm"]);
    assert_eq!(c.meta.interval_s, Some(1.0));
    // statistics[1] (22:53:42): r/s 20332, rkB/s 162656, util 54.00, idle 0.50.
    assert_eq!(times(&c, "vda")[0], Some(ms("2026-11-21 22:53:42")));
    close(nth(&c, "vda", Metric::ReadIops, 0), 20332.0);
    close(nth(&c, "vda", Metric::ReadMbps, 0), 162656.0 / 1024.0);
    close(nth(&c, "vda", Metric::BusyPct, 0), 54.0);
    close(nth(&c, "vm", Metric::CpuPct, 0), 99.5);
    close(boot(&c, "vda", Metric::ReadIops), 5470.87);
    for ig in ["rrqm", "wrqm", "d/s", "f_await"] {
        assert!(c.meta.ignored.iter().any(|i| i == ig), "{ig}");
    }
}

#[test]
fn json_iso_and_no_timestamps() {
    let c = json("iostat_xzt_iso_json_1_3.json");
    assert_eq!(c.meta.utc_offset_min, Some(0));
    assert_eq!(times(&c, "vda")[0], Some(ms("2026-11-21 22:53:53")));
    let c = json("iostat_x_json_1_5.json");
    assert_eq!(times(&c, "vda"), vec![Some(0), Some(1000), Some(2000), Some(3000)]);
    assert!(c.meta.relative_time);
    assert_eq!(c.meta.interval_s, None);
}

#[test]
fn json_truncated_keeps_complete_entries() {
    let c = json("hand_truncated_xt_from-iostat_xt_json_1_3.json");
    assert_eq!(c.meta.warnings.len(), 1);
    assert!(c.meta.warnings[0].message.contains("cut short"));
    assert!(matches!(c.meta.warnings[0].location, Some(Location::Line { line: 29, .. })));
    assert_eq!(times(&c, "vda"), vec![Some(ms("2026-11-21 22:53:42"))]);
}

#[test]
fn json_old_keys() {
    let c = json("hand_sysstat-11.5_old-keys_xt.json");
    // statistics[1]: r 1520, rkB 12160, avgrq-sz 16 sectors, avgqu-sz 7.90, await 3.95.
    close(nth(&c, "sda", Metric::ReadIops, 0), 1520.0);
    close(nth(&c, "sda", Metric::ReadMbps, 0), 12160.0 / 1024.0);
    close(nth(&c, "sda", Metric::IoKib, 0), 8.0);
    close(nth(&c, "sda", Metric::QueueDepth, 0), 7.9);
    close(nth(&c, "sda", Metric::LatencyMs, 0), 3.95);
    close(nth(&c, "sda", Metric::BusyPct, 0), 96.4);
}

#[test]
fn json_groups_and_basic_keys() {
    let c = json("hand_groups_dm-g-data.json");
    assert_eq!(kind(&c, "data"), TargetKind::Aggregate);
    close(nth(&c, "data", Metric::Iops, 0), 1012.0);
    close(nth(&c, "sdc", Metric::ReadMbps, 0), 3.91);
    assert!(c.meta.ignored.iter().any(|i| i == "MB_dscd/s"));
}

// ---------------------------------------------------------------------------------------
// Bad inputs.

#[test]
fn empty_and_dataless_inputs_are_errors() {
    let e = read_text("x.txt", "  \n\n").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Empty));
    let e = read_json("x.json", "").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Empty));
    let e =
        read_text("x.txt", "Linux 5.4 (h) \t01/01/20 \t_x86_64_\t(8 CPU)\n\nhello\n").unwrap_err();
    assert!(e.to_string().starts_with("x.txt"), "{e}");
    assert!(e.to_string().contains("no iostat report"), "{e}");
}

#[test]
fn broken_rows_are_skipped_with_a_located_warning() {
    let t = "Device            r/s     w/s  %util\n\
             sda              1.00    2.00  3.00\n\
             sdb              abc     2.00  3.00\n\
             sdc              1.00\n\
             sdd             -1.00    1e300  5.00\n\n\
             Device            r/s     w/s  %util\n\
             sda              4.00    5.00  6.00\n";
    let c = read_text("x.txt", t).unwrap();
    let msg: Vec<String> = c.meta.warnings.iter().map(ToString::to_string).collect();
    assert!(msg.iter().any(|m| m == "3:18: skipped an unreadable value in column r/s"), "{msg:?}");
    assert!(msg.iter().any(|m| m.starts_with("4:1: skipped a device line with fewer values")));
    assert!(msg.iter().any(|m| m == "5:17: dropped a negative value in column r/s"), "{msg:?}");
    assert!(msg.iter().any(|m| m == "5:26: dropped an absurdly large value in column w/s"));
    // The rest of the rows are kept; without a banner the first report is a measurement.
    close(nth(&c, "sda", Metric::ReadIops, 0), 1.0);
    close(nth(&c, "sda", Metric::ReadIops, 1), 4.0);
    close(nth(&c, "sdb", Metric::WriteIops, 0), 2.0);
    assert!(c.since_boot.is_none());
}

#[test]
fn json_errors_name_line_column_and_path() {
    let e = read_json("x.json", "{\"sysstat\": {\"hosts\": [}\n").unwrap_err();
    assert!(matches!(e.location, Some(Location::Line { line: 1, column: 24 })), "{e}");
    assert!(e.to_string().contains("invalid JSON"), "{e}");
    let e = read_json("x.json", "{\"other\": 1}").unwrap_err();
    assert_eq!(e.location, Some(Location::json("$.sysstat")));
    let e = read_json("x.json", "{\"sysstat\": {\"hosts\": [{\"statistics\": [{\"di").unwrap_err();
    assert!(e.to_string().contains("cut short before its first complete"), "{e}");
    // Wrong types inside a record: the value is skipped, the path is named.
    let doc = r#"{"sysstat": {"hosts": [{"nodename": "h", "statistics": [
        {"disk": [{"disk_device": "sda", "r/s": 1.0}]},
        {"disk": [{"disk_device": "sda", "r/s": "fast", "w/s": 2.0}, {"r/s": 1}, 7]}]}]}}"#;
    let c = read_json("x.json", doc).unwrap();
    let w: Vec<String> = c.meta.warnings.iter().map(ToString::to_string).collect();
    assert!(w.contains(&"$.sysstat.hosts[0].statistics[1].disk[0][\"r/s\"]: skipped a value of r/s that is not a number".to_owned()), "{w:?}");
    assert!(w.contains(&"$.sysstat.hosts[0].statistics[1].disk[1].disk_device: skipped a disk entry without a disk_device name".to_owned()), "{w:?}");
    assert!(
        w.contains(
            &"$.sysstat.hosts[0].statistics[1].disk[2]: skipped a disk entry that is not an object"
                .to_owned()
        ),
        "{w:?}"
    );
    close(nth(&c, "sda", Metric::WriteIops, 0), 2.0);
    // Text before and after the document.
    let c = read_json("x.json", &format!("$ iostat -o JSON\n{doc}\n$ exit\n")).unwrap();
    assert!(c.meta.warnings.iter().any(|w| w.message.contains("before the JSON")));
    assert!(c.meta.warnings.iter().any(|w| w.message.contains("after the JSON")));
}

#[test]
fn single_report_is_used_and_flagged() {
    let t = "Linux 4.3 (lap) \t12/26/2015 \t_x86_64_\t(4 CPU)\n\n\
             Device:            tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn\n\
             sda            9564.27     96965.71     71463.89  906260874  667915808\n\n";
    let c = read_text("x.txt", t).unwrap();
    close(nth(&c, "sda", Metric::Iops, 0), 9564.27);
    close(boot(&c, "sda", Metric::ReadMbps), 96965.71 / 1024.0);
    assert!(c.meta.warnings.iter().any(|w| w.message.contains("only one report")));
    assert_eq!(c.meta.version.as_deref(), Some("sysstat basic layout (no -x)"));
}

#[test]
fn every_fixture_is_sniffed_and_read() {
    for (dir, want) in [("iostat-text", iostat::TEXT), ("iostat-json", iostat::JSON)] {
        let mut n = 0;
        for e in std::fs::read_dir(root().join("fixtures/captures").join(dir)).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") {
                continue;
            }
            let bytes = std::fs::read(e.path()).unwrap();
            assert_eq!(sniff(&name, &bytes).unwrap_or_else(|e| panic!("{e}")), want, "{name}");
            let c = read_raw(&name, want, &String::from_utf8(bytes).unwrap()).unwrap();
            assert!(!c.table.is_empty(), "{name}");
            n += 1;
        }
        assert!(n >= 3, "{dir}");
    }
}

#[test]
fn appended_runs_each_have_a_since_boot_report() {
    let one = "Linux 6.1 (h) \t11/21/26 \t_x86_64_\t(2 CPU)\n\n\
               11/21/26 10:00:00\nDevice r/s %util\nsda 1.00 2.00\n\n\
               11/21/26 10:00:10\nDevice r/s %util\nsda 3.00 4.00\n\n";
    let two = one.replace("10:00", "11:00").replace("1.00", "5.00");
    let c = read_text("x.txt", &format!("{one}{two}")).unwrap();
    assert_eq!(c.since_boot.as_ref().unwrap().len(), 2);
    assert_eq!(series(&c, &c.table, "sda", None, Metric::ReadIops), vec![Some(3.0), Some(3.0)]);
    assert_eq!(c.meta.interval_s, Some(10.0));
    assert!(c.meta.notes.iter().any(|n| n.contains("2 iostat runs")), "{:?}", c.meta.notes);
}

#[test]
fn epoch_and_day_first_timestamps() {
    let t = "1795255200\nDevice r/s\nsda 1.00\n\n1795255205\nDevice r/s\nsda 2.00\n\n\
             1795255210\nDevice r/s\nsda 3.00\n";
    let c = read_text("x.txt", t).unwrap();
    assert_eq!(c.meta.utc_offset_min, Some(0));
    assert_eq!(c.meta.interval_s, Some(5.0));
    // No banner: an extract, its first report a measurement.
    assert_eq!(times(&c, "sda")[0], Some(1_795_255_200_000));
    let t = "21/11/26 10:00:00\nDevice r/s\nsda 1.00\n\n21/11/26 10:00:01\nDevice r/s\nsda 2.00\n";
    let c = read_text("x.txt", t).unwrap();
    assert_eq!(times(&c, "sda")[1], Some(ms("2026-11-21 10:00:01")));
}

// ---------------------------------------------------------------------------------------
// The shared corpus: every real file reads, with targets and metrics.

#[test]
fn corpus_reads() {
    let Some(shared) = shared() else { return };
    let mut files = Vec::new();
    for dir in ["samples/iostat-txt", "samples/iostat-json", "generated/iostat"] {
        let Ok(rd) = std::fs::read_dir(shared.join(dir)) else { continue };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if dir == "generated/iostat" && !name.starts_with("iostat_") {
                continue;
            }
            files.push(e.path());
        }
    }
    files.sort();
    assert!(files.len() >= 21, "{files:?}");
    for p in files {
        let bytes = std::fs::read(&p).unwrap();
        let name = p.display().to_string();
        let fmt = sniff(&name, &bytes).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(fmt, iostat::TEXT | iostat::JSON), "{name}: {fmt}");
        let text = String::from_utf8(bytes).unwrap();
        let c = read_raw(&name, fmt, &text).unwrap_or_else(|e| panic!("{e}"));
        assert!(!c.meta.targets.is_empty(), "{name}");
        assert!(!c.table.is_empty() && !c.table.columns.is_empty(), "{name}");
        assert!(c.meta.version.is_some(), "{name}");
    }
}

#[test]
fn corpus_values() {
    let Some(shared) = shared() else { return };
    let read = |rel: &str| {
        let p = shared.join(rel);
        let t = std::fs::read_to_string(&p).unwrap();
        if rel.ends_with(".json") { read_json(rel, &t) } else { read_text(rel, &t) }.unwrap()
    };
    // 12.0-12.2 -xm: second report sdb r/s 371.22 rMB/s 43.91 rareq-sz 121.14 %util 67.47.
    let c =
        read("samples/iostat-txt/sysstat-12.0-12.2_iostat-xm_no-flush-cols_sdb_ML-workload.txt");
    assert_eq!(
        c.meta.version.as_deref(),
        Some("sysstat 12.0-12.2 layout (discard columns, no f/s)")
    );
    close(nth(&c, "sdb", Metric::ReadIops, 0), 371.22);
    close(nth(&c, "sdb", Metric::ReadMbps, 0), 43.91);
    close(nth(&c, "sdb", Metric::ReadIoKib, 0), 121.14);
    close(nth(&c, "sdb", Metric::BusyPct, 0), 67.47);
    // Transitional: since boot nvme0n1 w/s 910.69 wkB/s 23906.67.
    let c = read(
        "samples/iostat-txt/sysstat-11.5.7-11.7_transitional-cols_iostat-x_aqu-sz-plus-svctm_nvme-qbd.txt",
    );
    close(boot(&c, "nvme0n1", Metric::WriteMbps), 23906.67 / 1024.0);
    close(nth(&c, "qbd0", Metric::QueueDepth, 0), 18.79);
    // AM/PM, 68 KB: first series report 03/15/2016 09:34:01 AM.
    let c = read("samples/iostat-txt/sysstat-old_iostat-xmt_MB_banner_ampm-timestamps_68KB.txt");
    assert_eq!(times(&c, "sda")[0], Some(ms("2016-03-15 09:34:01")));
    assert_eq!(c.meta.interval_s, Some(1.0));
    // No banner, so the first report is a measurement (an extract); svctm 1000 ignored;
    // vdb avgrq-sz 16.00 then 48.00 sectors.
    let c =
        read("samples/iostat-txt/sysstat-old_iostat-xmt_MB_no-banner_svctm-1000_vd-devices.txt");
    close(nth(&c, "vdb", Metric::IoKib, 0), 8.0);
    close(nth(&c, "vdb", Metric::IoKib, 1), 24.0);
    assert!(c.since_boot.is_none());
    assert!(c.meta.hosts.is_empty());
    assert!(c.meta.targets.iter().any(|t| t.name == "cpu" && t.kind == TargetKind::Host));
    // --pretty and --human from sysstat's test suite (single reports).
    let c = read(
        "samples/iostat-txt/sysstat-git_iostat-x--pretty_device-last-split-sections_testsuite.txt",
    );
    close(nth(&c, "sdq", Metric::QueueDepth, 0), 0.10);
    close(nth(&c, "sdr", Metric::WriteLatencyMs, 0), 39.57);
    let c = read("samples/iostat-txt/sysstat-git_iostat--human_unit-suffixes_testsuite.txt");
    close(nth(&c, "sda", Metric::ReadMbps, 0), 222.1 / 1024.0);
    close(nth(&c, "sda", Metric::Iops, 0), 8.59);
    // JSON with a -0700 offset; groups with a leading space; partitions.
    let c = read(
        "samples/iostat-json/sysstat-12_iostat-json_2samples_dm-sda-discard-flush-cols_pkb.json",
    );
    assert_eq!(c.meta.utc_offset_min, Some(-420));
    let c = read(
        "samples/iostat-json/sysstat-git_iostat-o-JSON-dm-groups_tps-MB-fields_testsuite.json",
    );
    assert_eq!(kind(&c, "disks"), TargetKind::Aggregate);
    let c = read(
        "samples/iostat-json/sysstat-git_iostat-o-JSON-x-p-ALL_partitions_tab-indented_testsuite.json",
    );
    assert_eq!(kind(&c, "sda12"), TargetKind::Volume);
    close(boot(&c, "sda9", Metric::ReadMbps), 193.17 / 1024.0);
}

#[test]
fn neighbours_are_not_iostat() {
    let Some(shared) = shared() else { return };
    // sadf's renderings are read by their own readers, never taken for iostat.
    for f in ["sadf_d_semicolon.txt", "sadf_j_disk.json"] {
        let bytes = std::fs::read(shared.join("generated/iostat").join(f)).unwrap();
        let id = sniff(f, &bytes).map(Format::id);
        assert!(matches!(id, Ok("sadf-csv" | "sadf-json")), "{f}: {id:?}");
    }
    let f = "proc_diskstats_after.txt";
    let bytes = std::fs::read(shared.join("generated/iostat").join(f)).unwrap();
    assert!(sniff(f, &bytes).is_err(), "{f} should be refused");
}

// ---------------------------------------------------------------------------------------
// Properties.

/// Prints reports in the 12.3+ layout with `-t`, with `-k` or `-m`.
fn render(devs: &[String], reports: &[Vec<[u32; 8]>], megabytes: bool, step_s: i64) -> String {
    let u = if megabytes { "MB" } else { "kB" };
    let mut s = "Linux 6.1.0 (prop) \t11/21/26 \t_x86_64_\t(4 CPU)\n\n".to_owned();
    let start = ms("2026-11-21 23:59:00");
    for (k, rep) in reports.iter().enumerate() {
        let t = chrono::DateTime::from_timestamp_millis(start + k as i64 * step_s * 1000).unwrap();
        s += &format!("{}\n", t.naive_utc().format("%m/%d/%y %H:%M:%S"));
        s += "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n";
        s += &format!(
            "          10.00    0.00    5.00    1.00    0.00   {:6.2}\n\n",
            84.0 - k as f64 / 10.0
        );
        s += &format!(
            "Device            r/s     r{u}/s   rrqm/s  %rrqm r_await rareq-sz     w/s     w{u}/s   wrqm/s  %wrqm w_await wareq-sz     d/s     d{u}/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util\n"
        );
        for (d, v) in devs.iter().zip(rep) {
            let f = |i: usize| v[i] as f64 / 100.0;
            s += &format!(
                "{d:<13} {:7.2} {:9.2} {:8.2} {:6.2} {:7.2} {:8.2} {:7.2} {:9.2} {:8.2} {:6.2} {:7.2} {:8.2} {:7.2} {:9.2} {:8.2} {:6.2} {:7.2} {:8.2} {:7.2} {:7.2} {:7.2} {:6.2}\n",
                f(0),
                f(1),
                0.0,
                0.0,
                f(2),
                f(3),
                f(4),
                f(5),
                0.0,
                0.0,
                f(2),
                f(3),
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                f(6),
                f(7) % 100.0
            );
        }
        s += "\n\n";
    }
    s
}

fn capture_strategy() -> impl Strategy<Value = (Vec<String>, Vec<Vec<[u32; 8]>>, bool, i64)> {
    let names = prop::sample::subsequence(
        vec!["sda", "sdb", "sdc", "nvme0n1", "dm-0", "vdb", "xvdf", "md127"],
        1..5,
    )
    .prop_map(|v| v.into_iter().map(str::to_owned).collect::<Vec<_>>());
    (names, 2usize..20, any::<bool>(), 1i64..120).prop_flat_map(|(names, n, mb, step)| {
        let per = names.len();
        let row = prop::array::uniform8(0u32..10_000_000);
        let reports = prop::collection::vec(prop::collection::vec(row, per..=per), n..=n);
        (Just(names), reports, Just(mb), Just(step))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn round_trip((devs, reports, mb, step) in capture_strategy()) {
        let text = render(&devs, &reports, mb, step);
        let c = read_text("prop.txt", &text).unwrap();
        prop_assert_eq!(c.meta.interval_s, Some(step as f64));
        let to_mib = if mb { 1.0 } else { 1.0 / 1024.0 };
        for (di, d) in devs.iter().enumerate() {
            let got = |m| series(&c, &c.table, d, None, m);
            let want = |i: usize| reports[1..].iter().map(|r| Some(r[di][i] as f64 / 100.0)).collect::<Vec<_>>();
            let near = |a: Vec<Option<f64>>, b: Vec<Option<f64>>, f: f64| {
                a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| match (x, y) {
                    (Some(x), Some(y)) => (x - y * f).abs() <= 1e-9 * (y * f).abs().max(1.0),
                    _ => false,
                })
            };
            prop_assert!(near(got(Metric::ReadIops), want(0), 1.0));
            prop_assert!(near(got(Metric::ReadMbps), want(1), to_mib));
            prop_assert!(near(got(Metric::ReadLatencyMs), want(2), 1.0));
            prop_assert!(near(got(Metric::ReadIoKib), want(3), 1.0));
            prop_assert!(near(got(Metric::WriteIops), want(4), 1.0));
            prop_assert!(near(got(Metric::WriteMbps), want(5), to_mib));
            prop_assert!(near(got(Metric::QueueDepth), want(6), 1.0));
            let b = c.since_boot.as_ref().unwrap();
            let boot = series(&c, b, d, None, Metric::ReadIops);
            prop_assert_eq!(boot, vec![Some(reports[0][di][0] as f64 / 100.0)]);
        }
        let t0 = ms("2026-11-21 23:59:00") + step * 1000;
        prop_assert_eq!(times(&c, &devs[0])[0], Some(t0));
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,400}") {
        let _ = read_text("x", &s);
        let _ = read_json("x", &s);
    }

    #[test]
    fn iostat_like_lines_never_panic(lines in prop::collection::vec(prop::sample::select(vec![
        "Device            r/s     w/s  %util", "     r/s  %util Device", "sda 1.0 2.0 3.0",
        "  1.0 2.0 sda", "avg-cpu:  %user   %idle", "  1.0  2.0", "11/21/26 10:00:00", "",
        "h1: Device r/s", "h1: sda 1.0", "Linux 1 (h) \t1/1/20 \t_x_\t(1 CPU)", " disks 1 2 3",
        "2026-11-21T10:00:00+0100", "sda 1,5 2k 3% 4M", "sda nan inf -1",
    ]), 0..60)) {
        let t = lines.join("\n");
        let _ = read_text("x", &t);
    }

    #[test]
    fn mutated_fixtures_never_panic(cut in 0usize..4000, pos in 0usize..4000, junk in "\\PC{0,8}", which in 0usize..6) {
        let files = [
            ("iostat-text", "hand_pretty_x-t_split-sections.txt"),
            ("iostat-text", "hand_pdsh_two-hosts_dxk-t.txt"),
            ("iostat-text", "hand_human_dx_unit-suffixes.txt"),
            ("iostat-text", "iostat_xt_1_10.txt"),
            ("iostat-json", "iostat_xt_json_1_3.json"),
            ("iostat-json", "hand_sysstat-11.5_old-keys_xt.json"),
        ];
        let (dir, name) = files[which];
        let src = fixture(dir, name);
        let mut cut = cut.min(src.len());
        while !src.is_char_boundary(cut) { cut -= 1; }
        let mut t = src[..cut].to_owned();
        let mut pos = pos.min(t.len());
        while !t.is_char_boundary(pos) { pos -= 1; }
        t.insert_str(pos, &junk);
        let r = if dir == "iostat-json" { read_json(name, &t) } else { read_text(name, &t) };
        if let Err(e) = r {
            prop_assert!(e.to_string().starts_with(name));
        }
    }
}

/// Prints reports in the old (sysstat <= 11.5) `-x -k` layout: `Device:`, avgrq-sz in
/// 512-byte sectors, avgqu-sz. Values are hundredths: (r/s, w/s, rkB/s, wkB/s, avgrq-sz,
/// avgqu-sz, r_await, w_await).
fn render_old(devs: &[String], reports: &[Vec<[u32; 8]>]) -> String {
    let mut s = "Linux 3.10.0 (old) \t11/21/26 \t_x86_64_\t(4 CPU)\n\n".to_owned();
    for rep in reports {
        s += "Device:         rrqm/s   wrqm/s     r/s     w/s    rkB/s    wkB/s avgrq-sz avgqu-sz   await r_await w_await  svctm  %util\n";
        for (d, v) in devs.iter().zip(rep) {
            let f = |i: usize| v[i] as f64 / 100.0;
            s += &format!(
                "{d:<15} {:8.2} {:8.2} {:7.2} {:7.2} {:8.2} {:8.2} {:8.2} {:8.2} {:7.2} {:7.2} {:7.2} {:6.2} {:6.2}\n",
                0.0,
                0.0,
                f(0),
                f(1),
                f(2),
                f(3),
                f(4),
                f(5),
                f(6),
                f(6),
                f(7),
                0.5,
                10.0
            );
        }
        s += "\n";
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The old layout's sectors come back as KiB (x 0.5) and its kB/s as MiB/s (/ 1024).
    #[test]
    fn old_layout_round_trip_sectors_to_kib((devs, reports, _, _) in capture_strategy()) {
        let text = render_old(&devs, &reports);
        let c = read_text("old.txt", &text).unwrap();
        for (di, d) in devs.iter().enumerate() {
            let got = |m| series(&c, &c.table, d, None, m);
            let want = |i: usize, f: f64| {
                reports[1..].iter().map(|r| Some(r[di][i] as f64 / 100.0 * f)).collect::<Vec<_>>()
            };
            let near = |a: Vec<Option<f64>>, b: Vec<Option<f64>>| {
                a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| match (x, y) {
                    (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * y.abs().max(1.0),
                    _ => false,
                })
            };
            prop_assert!(near(got(Metric::ReadIops), want(0, 1.0)));
            prop_assert!(near(got(Metric::WriteMbps), want(3, 1.0 / 1024.0)));
            prop_assert!(near(got(Metric::IoKib), want(4, 0.5)), "avgrq-sz sectors -> KiB");
            prop_assert!(near(got(Metric::QueueDepth), want(5, 1.0)));
            prop_assert!(near(got(Metric::ReadLatencyMs), want(6, 1.0)));
        }
    }
}

// The first report is the average since boot only when the file shows it: a banner, or a
// basic-layout report whose totals hold far more than its rates over any interval. A
// file whose only report is since boot says so (`since_boot_only`).
#[test]
fn since_boot_is_told_by_the_banner_or_the_totals() {
    // A pasted basic-layout extract: no banner, but its totals are days of its rates.
    let t = "Device:            tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn\n\
             sda            9564.27     96965.71     71463.89  906260874  667915808\n\n\
             Device:            tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn\n\
             sda             120.00      1024.00       512.00       1024        512\n";
    let c = read_text("x.txt", t).unwrap();
    close(boot(&c, "sda", Metric::Iops), 9564.27);
    assert_eq!(c.table.len(), 1, "only the second report is a sample");
    close(nth(&c, "sda", Metric::Iops, 0), 120.0);
    assert!(!c.meta.since_boot_only);
    // The same without the cumulative first report: both are samples.
    let t2 = t.replace("906260874  667915808", "    96965      71463");
    let c = read_text("x.txt", &t2).unwrap();
    assert!(c.since_boot.is_none());
    assert_eq!(c.table.len(), 2);
    // One report after a banner: read, said, and the only samples are since boot.
    let one = "Linux 4.3.3 (arch) \t12/26/2015 \t_x86_64_\t(4 CPU)\n\n\
               Device:            tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn\n\
               sda            9564.27     96965.71     71463.89  906260874  667915808\n";
    let c = read_text("x.txt", one).unwrap();
    assert!(c.meta.since_boot_only);
    assert_eq!(c.meta.cpus, Some(4));
    assert!(c.meta.warnings.iter().any(|w| w.message.contains("only one report")));
}

// An idle direction's await is not 0 ms: iostat prints 0.00 when nothing was read, and the
// reader leaves that latency (and request size) out; %util above 100 is clamped and said.
#[test]
fn idle_directions_have_no_latency_and_util_is_clamped() {
    let t = "Device            r/s     w/s  r_await w_await rareq-sz wareq-sz  aqu-sz  %util\n\
             sda              0.00   17.00     0.00   11.20     0.00     4.00    0.19  101.20\n\n\
             Device            r/s     w/s  r_await w_await rareq-sz wareq-sz  aqu-sz  %util\n\
             sda              5.00    0.00     0.80    0.00     8.00     0.00    0.01    0.40\n";
    let c = read_text("x.txt", t).unwrap();
    assert_eq!(series(&c, &c.table, "sda", None, Metric::ReadLatencyMs), vec![None, Some(0.8)]);
    assert_eq!(series(&c, &c.table, "sda", None, Metric::WriteLatencyMs), vec![Some(11.2), None]);
    assert_eq!(series(&c, &c.table, "sda", None, Metric::ReadIoKib), vec![None, Some(8.0)]);
    assert_eq!(series(&c, &c.table, "sda", None, Metric::BusyPct), vec![Some(100.0), Some(0.4)]);
    assert!(
        c.meta
            .warnings
            .iter()
            .any(|w| w.message.contains("clamped to 100%") && w.message.contains("101.2")),
        "{:?}",
        c.meta.warnings
    );
}
