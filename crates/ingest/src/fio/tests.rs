//! Unit tests of the fio reader on small documents written in fio's layout: option
//! grammar, target naming, streams, offsets. Real files are tested in `crates/ingest/tests/it/fio.rs`.

use advisor_model::{Metric, RawCapture};

use super::stats::Doc;
use super::stream::utc_offset;
use super::targets::split_files;
use super::*;

/// One job entry in fio 3.x layout: reads and writes of 4 KiB, 1000 IOs each way over 1 s.
fn job(name: &str, group: i64, options: &str, ios: u64) -> String {
    let dir = |n: u64| {
        format!(
            r#"{{ "io_bytes" : {b}, "io_kbytes" : {k}, "bw_bytes" : {bw}, "bw" : {bwk},
               "iops" : {n}.000000, "runtime" : 1000, "total_ios" : {n},
               "clat_ns" : {{ "mean" : 900000.0, "N" : {n}, "percentile" : {{ "50.000000" : 800768 }} }},
               "lat_ns" : {{ "mean" : 1000000.0, "N" : {n} }} }}"#,
            b = n * 4096,
            k = n * 4,
            bw = n * 4096,
            bwk = n * 4,
        )
    };
    format!(
        r#"{{ "jobname" : "{name}", "groupid" : {group}, "error" : 0,
             "job options" : {{ {options} }},
             "read" : {r}, "write" : {w},
             "sync" : {{ "total_ios" : 0, "lat_ns" : {{ "mean" : 0.0, "N" : 0 }} }},
             "iodepth_level" : {{ "1" : 0.0, "2" : 0.0, "4" : 100.0 }} }}"#,
        r = dir(ios),
        w = dir(ios),
    )
}

fn doc(jobs: &[String], extra: &str) -> String {
    format!(
        r#"{{
  "fio version" : "fio-3.33",
  "timestamp" : 1492428455,
  "timestamp_ms" : 1492428455526,
  "time" : "Mon Apr 17 13:27:35 2017",
  {extra}
  "jobs" : [ {} ]
}}
"#,
        jobs.join(",\n")
    )
}

fn ok(text: &str) -> RawCapture {
    match read("t.json", text) {
        Ok(c) => c,
        Err(e) => panic!("{e}\n{text}"),
    }
}

fn names(c: &RawCapture) -> Vec<&str> {
    c.meta.targets.iter().map(|t| t.name.as_str()).collect()
}

#[test]
fn settings_from_options() {
    let o = r#""filename" : "/dev/sdb", "rw" : "randrw", "rwmixwrite" : "25", "bs" : "4k,8k",
        "iodepth" : "32", "numjobs" : "2", "buffered" : "0", "fdatasync" : "8",
        "size" : "10%", "ramp_time" : "2m", "ioengine" : "io_uring", "runtime" : "60""#;
    let c = ok(&doc(&[job("mix", 0, o, 1000)], ""));
    let b = &c.meta.bench[0];
    assert_eq!(b.write_pct, Some(25.0));
    assert_eq!(b.random, Some(true));
    assert_eq!(b.block_size_kib, None, "read 4k, write 8k");
    assert!(c.meta.notes.iter().any(|n| n.contains("varies")));
    assert_eq!(b.queue_depth_per_thread, Some(32));
    assert_eq!(b.threads, Some(2));
    assert_eq!(b.os_cache_disabled, Some(true));
    assert_eq!(b.write_through, Some(false));
    assert_eq!(b.sync_every, Some(8));
    assert_eq!(b.file_size_bytes, None);
    assert!(c.meta.notes.iter().any(|n| n.contains("size=10%")));
    assert_eq!(b.warmup_s, Some(120.0));
    assert_eq!(b.engine.as_deref(), Some("io_uring"));
    assert_eq!(b.duration_s, Some(1.0), "measured runtime over the option");
    // One grouped entry of 2 jobs at depth 4 each.
    let qd = c.table.column(Metric::QueueDepth).and_then(|v| v[0]);
    assert_eq!(qd, Some(8.0));

    let o = r#""rw" : "write", "bs" : "4k,1m", "size" : "64m", "sync" : "dsync""#;
    let c = ok(&doc(&[job("w", 0, o, 10)], ""));
    let b = &c.meta.bench[0];
    assert_eq!(b.block_size_kib, Some(1024.0), "writes only: the write size");
    assert_eq!(b.write_pct, Some(100.0));
    assert_eq!(b.random, Some(false));
    assert_eq!(b.file_size_bytes, Some(64 << 20));
    assert_eq!(b.write_through, Some(true));
    assert_eq!(b.os_cache_disabled, Some(false), "fio's default is buffered");

    let o = r#""rw" : "randread", "bsrange" : "4k-64k""#;
    let c = ok(&doc(&[job("r", 0, o, 10)], ""));
    assert_eq!(c.meta.bench[0].block_size_kib, None);
    let o = r#""rw" : "rw", "rwmixread" : "70", "bs" : "4096-4096""#;
    let c = ok(&doc(&[job("r", 0, o, 10)], ""));
    assert_eq!(c.meta.bench[0].block_size_kib, Some(4.0));
    assert_eq!(c.meta.bench[0].write_pct, Some(30.0));
    assert_eq!(c.meta.bench[0].random, Some(false));
}

#[test]
fn global_options_apply_and_job_options_win() {
    let extra = r#""global options" : { "bs" : "16k", "iodepth" : "4", "filename" : "/data/f" },"#;
    let c = ok(&doc(&[job("a", 0, r#""iodepth" : "64""#, 10)], extra));
    assert_eq!(names(&c), vec!["/data/f"]);
    assert_eq!(c.meta.bench[0].block_size_kib, Some(16.0));
    assert_eq!(c.meta.bench[0].queue_depth_per_thread, Some(64));
}

#[test]
fn target_names() {
    // Relative filename joined to its directory.
    let c = ok(&doc(&[job("a", 0, r#""directory" : "/srv/x/", "filename" : "t.bin""#, 5)], ""));
    assert_eq!(names(&c), vec!["/srv/x/t.bin"]);
    // No filename: the job name.
    let c = ok(&doc(&[job("reader", 0, r#""directory" : "/srv/x""#, 5)], ""));
    assert_eq!(names(&c), vec!["reader"]);
    // Two jobs on one file, and one job in two groups.
    let jobs = [
        job("rd", 0, r#""filename" : "/dev/sdc""#, 5),
        job("wr", 1, r#""filename" : "/dev/sdc""#, 5),
        job("wr", 2, r#""filename" : "/dev/sdc""#, 5),
    ];
    let c = ok(&doc(&jobs, ""));
    assert_eq!(
        names(&c),
        vec!["/dev/sdc (rd)", "/dev/sdc (wr) (group 1)", "/dev/sdc (wr) (group 2)"]
    );
    // Several files; a Windows drive letter's colon is escaped.
    let c = ok(&doc(&[job("a", 0, r#""filename" : "/dev/sdc:/dev/sdd""#, 5)], ""));
    assert_eq!(names(&c), vec!["/dev/sdc:/dev/sdd"]);
    assert_eq!(split_files("C\\:\\fio.dat"), vec!["C:\\fio.dat".to_owned()]);
    assert_eq!(split_files("/a:/b"), vec!["/a".to_owned(), "/b".to_owned()]);
}

#[test]
fn device_target_gets_busy_from_its_disk() {
    let extra = r#""disk_util" : [ { "name" : "sdd", "util" : 40.0 }, { "name" : "sdc", "util" : 75.5 } ],"#;
    let text = doc(&[job("a", 0, r#""filename" : "/dev/sdc""#, 5)], "");
    let text = text.replacen("\"jobs\"", &format!("{extra}\n  \"jobs\""), 1);
    let c = ok(&text);
    assert_eq!(c.table.column(Metric::BusyPct).and_then(|v| v[0]), Some(75.5));
    assert!(c.meta.ignored.iter().any(|i| i == "disk_util sdd"));
}

#[test]
fn offset_from_local_time_and_utc_timestamp() {
    // 13:27:35 local against 11:27:35 UTC: Central European summer time.
    let c = ok(&doc(&[job("a", 0, "", 5)], ""));
    assert_eq!(c.meta.utc_offset_min, Some(120));
    // Single-digit days are space padded by ctime.
    let d = Doc {
        version: None,
        timestamp_ms: Some(1_678_320_000_000),
        time: Some("Thu Mar  9 00:00:00 2023".to_owned()),
        entries: Vec::new(),
        disk_util: Vec::new(),
        io_kib: false,
        latency_units: Vec::new(),
        ignored_job: Vec::new(),
        ignored_dir: Vec::new(),
    };
    assert_eq!(utc_offset(&d), Some(0));
}

#[test]
fn status_interval_stream_with_clones() {
    let a = doc(
        &[job("s", 0, r#""filename" : "/f""#, 100), job("s", 0, r#""filename" : "/f""#, 100)],
        "",
    );
    let b = a
        .replace("1492428455526", "1492428456526")
        .replace("\"runtime\" : 1000", "\"runtime\" : 2000")
        .replace("\"total_ios\" : 100", "\"total_ios\" : 300")
        .replace("\"io_bytes\" : 409600", "\"io_bytes\" : 1228800");
    let c = ok(&format!("{a}{b}"));
    assert_eq!(c.table.len(), 2);
    assert_eq!(
        c.table.time_ms,
        vec![Some(1492428455526 + 7_200_000), Some(1492428456526 + 7_200_000)]
    );
    let iops = c.table.column(Metric::ReadIops).unwrap_or_default();
    // First interval: 2 x 100 IOs in 1 s; second: 2 x 200 IOs in 1 s.
    assert_eq!(iops, &[Some(200.0), Some(400.0)]);
    let kib = c.table.column(Metric::ReadIoKib).unwrap_or_default();
    assert_eq!(kib, &[Some(4.0), Some(4.0)]);
    assert_eq!(c.meta.interval_s, Some(1.0));
}

#[test]
fn documents_that_are_not_a_stream_keep_the_last() {
    let a = doc(&[job("one", 0, "", 10)], "");
    let b = doc(&[job("two", 0, "", 20)], "").replace("1492428455526", "1492428465526");
    let c = ok(&format!("{a}\nsome text\n{b}"));
    assert_eq!(names(&c), vec!["two"]);
    assert!(c.meta.warnings.iter().any(|w| w.message.contains("not one cumulative")));
}

#[test]
fn a_truncated_last_document_keeps_the_earlier_ones() {
    let a = doc(&[job("s", 0, "", 10)], "");
    let b = a.replace("1492428455526", "1492428456526");
    let cut = &b[..b.len() / 2];
    let c = ok(&format!("{a}{cut}"));
    assert_eq!(c.table.len(), 1);
    assert!(c.meta.warnings.iter().any(|w| w.message.contains("cut short")));
}

#[test]
fn failed_job_among_good_ones_is_a_warning() {
    let bad = job("bad", 0, "", 0).replacen("\"error\" : 0", "\"error\" : 5", 1);
    let c = ok(&doc(&[job("good", 0, "", 10), bad], ""));
    assert_eq!(names(&c), vec!["good"]);
    let msgs: Vec<&str> = c.meta.warnings.iter().map(|w| w.message.as_str()).collect();
    assert!(msgs.iter().any(|m| m.contains("\"bad\"") && m.contains("error 5 (EIO")), "{msgs:?}");
    assert!(msgs.iter().any(|m| m.contains("did no IO")), "{msgs:?}");
}

#[test]
fn absurd_values_are_dropped() {
    let text = doc(&[job("a", 0, "", 10)], "").replacen(
        "\"mean\" : 1000000.0",
        "\"mean\" : 18446744073709551615",
        1,
    );
    let c = ok(&text);
    assert!(c.meta.warnings.iter().any(|w| w.message.contains("absurd")));
    // Read latency falls back to clat; nothing absurd is stored.
    let lat = c.table.column(Metric::ReadLatencyMs).and_then(|v| v[0]);
    assert_eq!(lat, Some(0.9));
}

#[test]
fn client_server_output_is_named() {
    let e = read("c.json", "{\"fio version\": \"fio-3.33\", \"client_stats\": []}").err();
    assert!(e.is_some_and(|e| e.to_string().contains("client_stats")));
}
