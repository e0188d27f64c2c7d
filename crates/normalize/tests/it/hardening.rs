//! Regression tests (hardening) for PerfMon CSV through `read_bytes`: very wide
//! headers stay linear, clocks that go backwards or repeat are said with the line, and
//! impossible values are dropped with a message that counts the columns.

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)]

use std::time::{Duration, Instant};

use advisor_model::{Location, Metric};
use advisor_normalize::{Capture, read_bytes};

const HEAD: &str = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\H\\PhysicalDisk(0 C:)\\Disk Reads/sec\"\r\n";

fn read(text: &str) -> Capture {
    read_bytes("t.csv", text.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
}

fn warning<'a>(c: &'a Capture, part: &str) -> &'a advisor_model::Warning {
    c.meta
        .warnings
        .iter()
        .find(|w| w.message.contains(part))
        .unwrap_or_else(|| panic!("no warning `{part}` in {:?}", c.meta.warnings))
}

/// A header of `n` PhysicalDisk instances (one counter each) and two data rows.
fn wide(n: usize) -> String {
    let mut s = String::from("\"(PDH-CSV 4.0) (UTC)(0)\"");
    for i in 0..n {
        s.push_str(&format!(",\"\\\\H\\PhysicalDisk({i} X:)\\Disk Reads/sec\""));
    }
    for t in 0..2 {
        s.push_str(&format!("\r\n\"01/01/2024 00:00:0{t}.000\""));
        for i in 0..n {
            s.push_str(&format!(",\"{}\"", i % 100));
        }
    }
    s.push_str("\r\n");
    s
}

/// Found by the bad-input corpus (`fixtures/invalid/single-line-3mb.csv`): the column plan
/// and the column conversion compared every counter with every other, so a 3 MB header
/// (60,000 counters) took minutes. 40,000 instances took ~40 s in a debug build before
/// the fix, ~1 s after.
#[test]
fn a_header_of_40000_disks_is_read_in_linear_time() {
    let text = wide(40_000);
    let start = Instant::now();
    let c = read(&text);
    let took = start.elapsed();
    assert_eq!(c.meta.targets.len(), 40_000);
    assert_eq!(c.values(39_999, Metric::ReadIops), vec![99.0, 99.0]);
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn a_clock_going_backwards_is_said_with_the_line_and_every_row_kept() {
    let mut text = HEAD.to_owned();
    for s in [0, 1, 2, 5, 3, 4] {
        text.push_str(&format!("\"01/01/2024 00:00:0{s}.000\",\"{s}\"\r\n"));
    }
    let c = read(&text);
    assert_eq!(c.values(0, Metric::ReadIops).len(), 6);
    let w = warning(&c, "the time goes backwards 1 time(s)");
    assert!(w.message.contains("from 2024-01-01 00:00:05.000 to 2024-01-01 00:00:03.000"), "{w}");
    assert_eq!(w.location, Some(Location::line(6, 1)));
}

#[test]
fn repeated_time_stamps_are_said_with_the_line_and_every_row_kept() {
    let mut text = HEAD.to_owned();
    for s in [0, 1, 1, 2, 2, 3] {
        text.push_str(&format!("\"01/01/2024 00:00:0{s}.000\",\"7\"\r\n"));
    }
    let c = read(&text);
    assert_eq!(c.values(0, Metric::ReadIops).len(), 6);
    let w = warning(&c, "2 sample(s) repeat the time stamp of the line before");
    assert_eq!(w.location, Some(Location::line(4, 1)));
    // A clock that only moves forward (a DST jump included) says nothing.
    let mut text = HEAD.to_owned();
    for t in ["01:59:59", "03:00:00", "03:00:01"] {
        text.push_str(&format!("\"03/31/2024 {t}.000\",\"7\"\r\n"));
    }
    let c = read(&text);
    assert!(!c.meta.warnings.iter().any(|w| w.message.contains("time")), "{:?}", c.meta.warnings);
}

#[test]
fn impossible_values_in_several_columns_are_counted_and_the_rows_kept() {
    let text = concat!(
        "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\H\\PhysicalDisk(0 C:)\\Disk Reads/sec\",",
        "\"\\\\H\\PhysicalDisk(0 C:)\\Disk Writes/sec\"\r\n",
        "\"01/01/2024 00:00:01.000\",\"-5\",\"3\"\r\n",
        "\"01/01/2024 00:00:02.000\",\"4\",\"NaN\"\r\n",
        "\"01/01/2024 00:00:03.000\",\"6\",\"Infinity\"\r\n",
    );
    let c = read(text);
    assert_eq!(c.values(0, Metric::ReadIops), vec![4.0, 6.0]);
    assert_eq!(c.values(0, Metric::WriteIops), vec![3.0]);
    let w = warning(&c, "dropped values that cannot be right");
    assert!(w.message.contains("in 2 columns, the first named here"), "{w}");
    assert_eq!(w.count, 3);
}

/// A megabyte-long instance name (and host name) is kept as its first 254 characters and an
/// ellipsis, with a warning; its values stay the disk's.
#[test]
fn a_megabyte_long_name_is_echoed_bounded() {
    let long = "d".repeat(1 << 20);
    let host = "h".repeat(300);
    let text = format!(
        "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\{host}\\PhysicalDisk(1 {long})\\Disk Reads/sec\",\"\\\\{host}\\PhysicalDisk(0 C:)\\Disk Reads/sec\"\r\n\"01/01/2024 00:00:00.000\",\"7\",\"1\"\r\n\"01/01/2024 00:00:01.000\",\"9\",\"2\"\r\n"
    );
    let c = read(&text);
    let names: Vec<usize> = c.meta.targets.iter().map(|t| t.name.chars().count()).collect();
    assert!(names.iter().all(|n| *n <= 255), "{names:?}");
    let cut = c.meta.targets.iter().find(|t| t.name.ends_with('…')).expect("the long name");
    assert_eq!(cut.name.chars().count(), 255);
    assert!(cut.name.contains("ddd"), "{}", &cut.name[..40]);
    for t in &c.meta.targets {
        if let Some(h) = &t.host {
            assert!(h.chars().count() <= 255, "host of {} chars", h.chars().count());
        }
    }
    let w = warning(&c, "longer than 255 characters");
    assert!(w.count >= 2, "{w:?}");
}
