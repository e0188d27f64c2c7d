//! PerfMon CSV: the header grammar and the counter map (English names to canonical
//! metrics). The reader returns the header and the column plan ([`Header`]); the data lines
//! are scanned here and their values parsed in `advisor-normalize`, a piece of text at a
//! time ([`stream`] reads a file so, and gives its lines scanned).
//!
//! [`read_header`] reads the header (separator, the `(PDH-CSV 4.0) (zone)(bias)` cell, the
//! counter paths) and plans which columns become which metric of which target
//! ([`counters::plan`]). [`scan::Lines`] (in a [`scan::Scanner`]) then scans the data lines, piece by piece, for
//! their time stamps and for broken lines, giving the runs of good lines ([`Segment`]s,
//! byte ranges of each piece) whose planned cells are parsed; [`finish_lines`] reports what
//! it found. [`prepare`] does all three over a text held whole.

pub mod counters;
pub mod header;
pub mod path;
pub mod scan;
pub mod stream;
pub mod time;

use std::borrow::Cow;
use std::sync::Arc;

use advisor_model::{CaptureMeta, Format, Location};

pub use counters::names::Language;
pub use counters::{Convert, PlannedColumn};
pub use header::FirstCell;
pub use path::{CounterPath, parse_counter_path};
pub use scan::Segment;
pub use time::DateOrder;

use crate::formats::{CaptureFormat, Head, Read, Sniff};
use crate::{ErrorKind, IngestError};

pub const FORMAT: Format =
    Format::new("perfmon-csv", "PerfMon counter log as CSV (typeperf -f CSV, relog -f csv)", false);

/// Windows PerfMon counter logs exported to CSV (typeperf, relog, Performance Monitor).
#[derive(Debug)]
pub struct PerfmonCsv;

impl CaptureFormat for PerfmonCsv {
    fn format(&self) -> Format {
        FORMAT
    }

    fn supported(&self) -> Option<&'static str> {
        Some("PerfMon CSV (typeperf/relog)")
    }

    fn sniff(&self, head: &Head<'_>) -> Sniff {
        let first = head.first_line();
        if first.trim_start_matches('"').starts_with("(PDH-CSV") || is_counter_header(first) {
            Sniff::Yes
        } else {
            Sniff::No
        }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        Ok(Read::Csv { plan: read_header(file, &text)?, text })
    }

    fn read_with<'t>(
        &self,
        file: &str,
        text: Cow<'t, str>,
        counter_tables: &[Arc<Language>],
    ) -> Result<Read<'t>, IngestError> {
        Ok(Read::Csv { plan: read_header_with(file, &text, counter_tables)?, text })
    }
}

/// A CSV header whose cells after the first are PerfMon counter paths (`\\HOST\Object\Counter`),
/// as in a capture re-saved by a spreadsheet that lost the `(PDH-CSV 4.0)` cell.
fn is_counter_header(line: &str) -> bool {
    let mut cells = line.split([',', ';']).skip(1).map(|c| c.trim().trim_matches('"'));
    cells.next().is_some_and(|c| c.starts_with("\\\\") && c[2..].contains('\\'))
}

/// A PerfMon CSV held whole, prepared: the header, the plan and the runs of good lines.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Version, zone, hosts, targets, ignored counters, warnings and notes.
    pub meta: CaptureMeta,
    /// `,` as PerfMon writes it; `;` or tab after a re-save.
    pub separator: u8,
    /// Values written `1,5` (a spreadsheet re-save in a decimal-comma locale).
    pub decimal_comma: bool,
    /// Cells in the header line (the time column included).
    pub n_columns: usize,
    /// The columns to read, in CSV order.
    pub columns: Vec<PlannedColumn>,
    /// Runs of good data lines, in file order.
    pub segments: Vec<Segment>,
    /// One time stamp per good data line (ms since 1970-01-01 of the wall clock as written).
    pub time_ms: Vec<i64>,
}

/// Everything known of a PerfMon CSV from its header line and its first data lines: what
/// is needed to scan and parse the data lines, piece by piece if need be.
#[derive(Debug, Clone)]
pub struct Header {
    /// Version, zone, hosts, targets, ignored counters, warnings and notes so far.
    pub meta: CaptureMeta,
    /// `,` as PerfMon writes it; `;` or tab after a re-save.
    pub separator: u8,
    /// Values written `1,5` (a spreadsheet re-save in a decimal-comma locale).
    pub decimal_comma: bool,
    /// Cells in the header line (the time column included).
    pub n_columns: usize,
    /// The columns to read, in CSV order.
    pub columns: Vec<PlannedColumn>,
    /// What a good data line looks like.
    pub shape: scan::Shape,
    /// Byte offset of the first data line in the text read, and its 1-based line number.
    pub body_start: usize,
    pub body_line: u64,
}

/// How many data lines are looked at to guess the date order and the decimal comma.
const SAMPLE_LINES: usize = 50;

/// Reads the header, plans the columns and scans the data lines of a decoded PerfMon CSV
/// held whole in memory.
///
/// Errors: an empty file, a header without counter columns, no counter that maps to a
/// metric (with the localized-names advice when that is why), or no data line.
pub fn prepare(file: &str, text: &str) -> Result<Prepared, IngestError> {
    let Header {
        mut meta,
        separator,
        decimal_comma,
        n_columns,
        columns,
        shape,
        body_start,
        body_line,
    } = read_header(file, text)?;
    let mut lines = scan::Lines::new(body_line);
    let segments = lines.scan(text, body_start, shape);
    let time_ms = finish_lines(file, lines, shape.columns, &mut meta)?;
    Ok(Prepared { meta, separator, decimal_comma, n_columns, columns, segments, time_ms })
}

/// Reads the header line and plans the columns. `text` is the start of the decoded file:
/// at least the header line, and the first data lines when there are any (the date order
/// and the decimal comma are guessed from up to 50 of them).
///
/// Errors: an empty file, a header without counter columns, or no counter that maps to a
/// metric (with the localized-names advice when that is why).
pub fn read_header(file: &str, text: &str) -> Result<Header, IngestError> {
    read_header_with(file, text, counters::names::shipped_tables())
}

/// [`read_header`], reading names of other display languages with `counter_tables`
/// (those of `--counters` first, then the shipped ones: [`counters::names::with_shipped`]).
pub fn read_header_with(
    file: &str,
    text: &str,
    counter_tables: &[Arc<Language>],
) -> Result<Header, IngestError> {
    let (offset, header_line_no) = first_line(file, text)?;
    let rest = &text[offset..];
    let header_end = rest.find('\n').map_or(rest.len(), |i| i + 1);
    let header_line = rest[..header_end].trim_end_matches(['\n', '\r']);
    let body_start = offset + header_end;
    let at_header = Some(Location::line(header_line_no, 1));

    let separator = header::detect_separator(header_line);
    let headers = header::split_cells(header_line, separator);
    advisor_model::work::within("columns", headers.len(), advisor_model::work::limits().columns);
    if headers.len() < 2 {
        return Err(IngestError::invalid(
            file,
            at_header,
            "the header has no counter columns: a PerfMon CSV header is \
             \"(PDH-CSV 4.0) (zone)(offset)\",\"\\\\HOST\\Object(Instance)\\Counter\",...",
        ));
    }

    let mut meta = CaptureMeta::new(FORMAT);
    describe_first_cell(&headers, at_header.clone(), &mut meta);
    let columns = counters::plan_with(&headers, header_line_no, &mut meta, counter_tables);
    if columns.is_empty() {
        return Err(no_metric_error(file, &meta, at_header));
    }
    let (order, decimal_comma) = sample_formats(&text[body_start..], separator, &mut meta);
    let shape = scan::Shape { columns: headers.len(), separator, order };
    Ok(Header {
        meta,
        separator,
        decimal_comma,
        n_columns: headers.len(),
        columns,
        shape,
        body_start,
        body_line: header_line_no + 1,
    })
}

/// After the last data line: the broken lines reported, the sample times checked (the
/// interval, times that go backwards or repeat). Returns one time per good line.
///
/// Errors: no data line, or none that can be used.
pub fn finish_lines(
    file: &str,
    lines: scan::Lines,
    columns: usize,
    meta: &mut CaptureMeta,
) -> Result<Vec<i64>, IngestError> {
    let scanned = lines.finish(columns, meta);
    if scanned.time_ms.is_empty() {
        let at = scanned.bad.first().map(|(l, _)| Location::line(*l, 1));
        let why = if scanned.bad.is_empty() {
            "the file has a header but no data lines".to_owned()
        } else {
            format!(
                "no usable data line: all {} data line(s) are broken (see the first one here)",
                scanned.bad.len()
            )
        };
        return Err(IngestError::invalid(file, at, why));
    }
    meta.interval_s = median_interval_s(&scanned.time_ms);
    warn_time_order(&scanned, meta);
    Ok(scanned.time_ms)
}

/// The byte offset and line number of the first line that is not blank (the header).
fn first_line(file: &str, text: &str) -> Result<(usize, u64), IngestError> {
    let mut offset = 0usize;
    let mut line_no = 1u64;
    loop {
        let rest = &text[offset..];
        let end = rest.find('\n').map_or(rest.len(), |i| i + 1);
        if rest.is_empty() {
            return Err(IngestError::new(file, None, ErrorKind::Empty));
        }
        if !rest[..end].trim().is_empty() {
            return Ok((offset, line_no));
        }
        offset += end;
        line_no += 1;
    }
}

/// The version and time zone of the header's first cell, `(PDH-CSV 4.0) (zone)(offset)`.
fn describe_first_cell(headers: &[String], at_header: Option<Location>, meta: &mut CaptureMeta) {
    let first = header::parse_first_cell(headers.first().map_or("", String::as_str));
    meta.version = first.version.clone();
    meta.timezone = first.timezone.clone();
    meta.utc_offset_min = first.utc_offset_min();
    if first.version.is_none() {
        meta.notes.push(
            "the header has no (PDH-CSV 4.0) cell (the file was re-saved by another program?)"
                .to_owned(),
        );
    }
    if first.truncated {
        meta.warn(
            format!(
                "the time zone in the header is cut short ({:?}; non-English zone names lose \
                 everything from their first non-ASCII character): the UTC offset is unknown, \
                 times are the capture's local wall clock",
                headers.first().map_or("", |h| h.trim())
            ),
            at_header,
        );
    }
}

/// The date order and whether numbers use a decimal comma, from a sample of the data lines
/// (`body`: the text after the header); notes for a spreadsheet's re-save.
fn sample_formats(body: &str, separator: u8, meta: &mut CaptureMeta) -> (DateOrder, bool) {
    let sample: Vec<&str> =
        body.lines().filter(|l| !l.trim().is_empty()).take(SAMPLE_LINES).collect();
    let first_cells: Vec<String> = sample
        .iter()
        .filter_map(|l| header::split_cells(l, separator).into_iter().next())
        .collect();
    let order = time::guess_date_order(first_cells.iter().map(String::as_str));
    let decimal_comma = header::detect_decimal_comma(sample.iter().copied(), separator);
    if separator != b',' {
        meta.notes.push(format!(
            "cells are separated by {}{}: the file was re-saved by a spreadsheet",
            if separator == b';' { "semicolons" } else { "tabs" },
            if decimal_comma { " and numbers use a decimal comma" } else { "" }
        ));
    }
    if order == DateOrder::DayFirst {
        meta.notes.push("dates are read day first (DD/MM/YYYY), as some days exceed 12".to_owned());
    }
    (order, decimal_comma)
}

/// Says where sample times go backwards (a clock set back, captures appended) or repeat
/// (a sample written twice). Nothing is dropped or reordered: every line stays a sample,
/// in file order.
fn warn_time_order(scanned: &scan::Scan, meta: &mut CaptureMeta) {
    let lines =
        scanned.segments.iter().flat_map(|s| (0..s.rows as u64).map(move |i| s.first_line + i));
    let mut back: Option<(u64, i64, i64)> = None;
    let mut repeat: Option<u64> = None;
    let (mut n_back, mut n_repeat) = (0u64, 0u64);
    for (w, line) in scanned.time_ms.windows(2).zip(lines.skip(1)) {
        if w[1] < w[0] {
            n_back += 1;
            back.get_or_insert((line, w[0], w[1]));
        } else if w[1] == w[0] {
            n_repeat += 1;
            repeat.get_or_insert(line);
        }
    }
    let clock = |ms: i64| {
        chrono::DateTime::from_timestamp_millis(ms)
            .map_or_else(|| ms.to_string(), |t| t.format("%Y-%m-%d %H:%M:%S%.3f").to_string())
    };
    if let Some((line, from, to)) = back {
        meta.warn(
            format!(
                "the time goes backwards {n_back} time(s), first here (from {} to {}): the \
                 clock was set back or captures were appended; every sample is kept in file \
                 order, so the time axis and intervals around it are not reliable",
                clock(from),
                clock(to)
            ),
            Some(Location::line(line, 1)),
        );
    }
    if let Some(line) = repeat {
        meta.warn(
            format!(
                "{n_repeat} sample(s) repeat the time stamp of the line before (first here): \
                 each is kept as a sample of its own"
            ),
            Some(Location::line(line, 1)),
        );
    }
}

/// The sampling interval: the median of the positive differences between consecutive
/// sample times, in seconds.
pub fn median_interval_s(time_ms: &[i64]) -> Option<f64> {
    let mut diffs: Vec<i64> =
        time_ms.windows(2).filter_map(|w| w[1].checked_sub(w[0])).filter(|d| *d > 0).collect();
    if diffs.is_empty() {
        return None;
    }
    let mid = diffs.len() / 2;
    let (_, median, _) = diffs.select_nth_unstable(mid);
    Some(*median as f64 / 1000.0)
}

fn no_metric_error(file: &str, meta: &CaptureMeta, at: Option<Location>) -> IngestError {
    if let Some(w) =
        meta.warnings.iter().find(|w| w.message.starts_with("counter names look localized"))
    {
        return IngestError::invalid(file, at, w.message.clone());
    }
    let shown: Vec<&str> = meta.ignored.iter().take(6).map(String::as_str).collect();
    let more = meta.ignored.len().saturating_sub(shown.len());
    IngestError::invalid(
        file,
        at,
        format!(
            "no counter advisor uses (PhysicalDisk, LogicalDisk, Processor(_Total)\\% Processor \
             Time, Memory\\Available MBytes); the file has {}{}",
            if shown.is_empty() { "no counter paths".to_owned() } else { shown.join(", ") },
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use advisor_model::{Metric, TargetKind};

    const IST: &str = concat!(
        "\"(PDH-CSV 4.0) (India Standard Time)(-330)\",\"\\\\IMPC3116\\LogicalDisk(C:)\\Avg. Disk sec/Read\",\"\\\\IMPC3116\\Memory\\Available MBytes\"\r\n",
        "\"09/19/2017 09:51:39.073\",\" \",\"512\"\r\n",
        "\"09/19/2017 09:51:54.050\",\"0.002\",\"511\"\r\n",
        "\"09/19/2017 09:52:09.050\",\"0.003\",\"510\"\r\n",
    );

    #[test]
    fn prepares_a_capture() {
        let p = prepare("x.csv", IST).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.meta.version.as_deref(), Some("PDH-CSV 4.0"));
        assert_eq!(p.meta.timezone.as_deref(), Some("India Standard Time"));
        assert_eq!(p.meta.utc_offset_min, Some(330));
        assert_eq!(p.meta.hosts, vec!["IMPC3116"]);
        assert_eq!(p.meta.interval_s, Some(15.0));
        assert_eq!((p.separator, p.decimal_comma, p.n_columns), (b',', false, 3));
        assert_eq!(p.columns.len(), 2);
        assert_eq!(p.columns[0].metric, Metric::ReadLatencyMs);
        assert_eq!(p.meta.targets[0].kind, TargetKind::Volume);
        assert_eq!(p.meta.targets[1].name, "IMPC3116");
        assert_eq!(p.segments.len(), 1);
        assert_eq!(p.segments[0].rows, 3);
        assert_eq!(p.segments[0].first_line, 2);
        assert_eq!(&IST[p.segments[0].start..p.segments[0].start + 1], "\"");
        assert!(p.meta.warnings.is_empty(), "{:?}", p.meta.warnings);
    }

    #[test]
    fn truncated_zone_warns() {
        let text = "\"(PDH-CSV 4.0) (RTZ 2 (\",\"\\\\H\\Memory\\Available MBytes\"\n\"01/01/2020 00:00:00.000\",\"1\"\n";
        let p = prepare("x.csv", text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.meta.timezone.as_deref(), Some("RTZ 2"));
        assert_eq!(p.meta.utc_offset_min, None);
        assert!(p.meta.warnings[0].message.contains("cut short"));
        assert_eq!(p.meta.interval_s, None);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let e = prepare("a.csv", "").map(|_| ()).unwrap_err();
        assert_eq!(e.to_string(), "a.csv: the file is empty");
        let e = prepare("a.csv", "\n\"(PDH-CSV 4.0)\"\n").map(|_| ()).unwrap_err();
        assert!(e.to_string().starts_with("a.csv:2:1: the header has no counter columns"), "{e}");
        let e = prepare("a.csv", "\"(PDH-CSV 4.0)\",\"\\\\H\\Memory\\Available MBytes\"\n")
            .map(|_| ())
            .unwrap_err();
        assert!(e.to_string().contains("no data lines"), "{e}");
        let e = prepare(
            "a.csv",
            "\"(PDH-CSV 4.0)\",\"\\\\H\\Memory\\Available MBytes\"\n\"x\",\"1\"\n",
        )
        .map(|_| ())
        .unwrap_err();
        assert!(e.to_string().starts_with("a.csv:2:1: no usable data line"), "{e}");
        let e = prepare("a.csv", "\"(PDH-CSV 4.0)\",\"\\\\H\\Network Interface(eth)\\Bytes Total/sec\"\n\"01/01/2020 00:00:00.000\",\"1\"\n").map(|_| ()).unwrap_err();
        assert!(
            e.to_string().contains(r"the file has Network Interface(*)\Bytes Total/sec"),
            "{e}"
        );
        let e = prepare(
            "a.csv",
            "\"(PDH-CSV 4.0)\",\"\\\\PC\\Процесс(Idle)\\% загруженности процессора\"\n",
        )
        .map(|_| ())
        .unwrap_err();
        assert!(e.to_string().contains("look localized (Russian"), "{e}");
    }

    #[test]
    fn semicolons_and_decimal_commas() {
        let text = "(PDH-CSV 4.0) (W. Europe Daylight Time)(-120);\\\\H\\PhysicalDisk(0 C:)\\Avg. Disk sec/Read\r\n09/19/2017 09:51:39.073; \r\n09/19/2017 09:51:40.073;0,002\r\n";
        let p = prepare("x.csv", text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((p.separator, p.decimal_comma), (b';', true));
        assert_eq!(p.meta.utc_offset_min, Some(120));
        assert!(
            p.meta.notes.iter().any(|n| n.contains("semicolons and numbers use a decimal comma"))
        );
        assert_eq!(p.time_ms.len(), 2);
    }

    #[test]
    fn interval_is_the_median() {
        assert_eq!(median_interval_s(&[0, 1000, 2000, 3000, 10_000, 11_000]), Some(1.0));
        assert_eq!(median_interval_s(&[0]), None);
        assert_eq!(median_interval_s(&[i64::MIN, i64::MAX]), None);
    }
}

#[cfg(test)]
mod props {
    use proptest::prelude::*;

    const HEAD: &str = "\"(PDH-CSV 4.0) (India Standard Time)(-330)\",\"\\\\H\\PhysicalDisk(1 C: E:)\\Disk Reads/sec\",\"\\\\H\\Processor Information(0,_Total)\\% Processor Time\"\r\n";

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

        #[test]
        fn arbitrary_text_after_a_valid_header_never_panics(body in "\\PC{0,800}") {
            let text = format!("{HEAD}{body}");
            if let Ok(p) = super::prepare("p.csv", &text) {
                prop_assert_eq!(p.segments.iter().map(|s| s.rows).sum::<usize>(), p.time_ms.len());
                for s in &p.segments {
                    prop_assert!(text.get(s.start..s.end).is_some());
                }
            }
        }

        #[test]
        fn arbitrary_headers_never_panic(header in "\\PC{0,300}", body in "[0-9/:. \",;]{0,200}") {
            let _ = super::prepare("p.csv", &format!("{header}\n{body}"));
        }
    }
}
