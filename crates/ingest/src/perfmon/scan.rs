//! One pass over the data lines before their values are parsed: each line's time stamp is
//! read, its cells counted, and the runs of good lines are handed on as byte ranges of the
//! text (no copy). Broken lines (wrong cell count, an open quote, a time stamp that is not
//! one, a repeated header) fall between runs and are reported with their line numbers.
//!
//! Large inputs are scanned on several threads, each over a share of whole lines.

use advisor_model::{CaptureMeta, Location};

use crate::IngestError;

use super::time::{DateOrder, parse_timestamp};

/// A run of consecutive good data lines: `text[start..end]`, `rows` lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub start: usize,
    pub end: usize,
    pub rows: usize,
    /// 1-based line number of the first line of the run.
    pub first_line: u64,
    /// The run goes on from the previous piece of text (see [`Lines`]).
    pub continues: bool,
}

/// The good lines of a capture and their sample times, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scan {
    pub segments: Vec<Segment>,
    /// One per good line: wall clock as written, ms since 1970-01-01, no zone.
    pub time_ms: Vec<i64>,
    /// Lines that could not be used.
    pub bad: Vec<(u64, Bad)>,
}

/// Why a data line was not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bad {
    /// The line has this many cells; the header has another count.
    Cells(usize),
    /// A quote is opened and never closed.
    OpenQuote,
    /// The first cell is not a date and time.
    Time,
    /// The header line again (two captures appended into one file).
    Header,
}

/// The shape of the lines to scan.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub columns: usize,
    pub separator: u8,
    pub order: DateOrder,
}

/// Inputs above this size are scanned on several threads.
const PARALLEL_BYTES: usize = 8 << 20;

/// The most threads a scan or a parse runs on.
pub const MAX_THREADS: usize = 16;

#[derive(Default)]
struct Part {
    lines: u64,
    segments: Vec<Segment>,
    times: Vec<i64>,
    bad: Vec<(u64, Bad)>,
    /// 0-based index (within the part) of its last non-blank line.
    last_non_blank: Option<u64>,
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| b.is_ascii_whitespace())
}

/// The first cell of a line, without its quotes.
fn first_cell(line: &[u8], sep: u8) -> &[u8] {
    if let Some(rest) = line.strip_prefix(b"\"") {
        match memchr::memchr(b'"', rest) {
            Some(end) => &rest[..end],
            None => rest,
        }
    } else {
        match memchr::memchr(sep, line) {
            Some(end) => &line[..end],
            None => line,
        }
    }
}

/// Counts two bytes in one pass. Byte-wide counters over blocks of at most 255 bytes let
/// the compiler compare 16 or 32 bytes at a time.
fn count2(line: &[u8], a: u8, b: u8) -> (usize, usize) {
    let (mut na, mut nb) = (0usize, 0usize);
    for block in line.chunks(255) {
        let (mut x, mut y) = (0u8, 0u8);
        for &c in block {
            x += u8::from(c == a);
            y += u8::from(c == b);
        }
        na += usize::from(x);
        nb += usize::from(y);
    }
    (na, nb)
}

fn check_line(line: &[u8], shape: Shape) -> Result<i64, Bad> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let (quotes, seps) = count2(line, b'"', shape.separator);
    let cell = first_cell(line, shape.separator);
    let stamp = std::str::from_utf8(cell).ok().and_then(|s| parse_timestamp(s, shape.order));
    if quotes % 2 == 1 {
        return Err(Bad::OpenQuote);
    }
    if seps + 1 != shape.columns {
        // Separators inside quotes make the quick count too high: count exactly.
        let exact = if quotes > 0 {
            super::header::count_cells(line, shape.separator).unwrap_or(seps + 1)
        } else {
            seps + 1
        };
        if exact != shape.columns {
            if stamp.is_none() && cell.starts_with(b"(PDH-") {
                return Err(Bad::Header);
            }
            return Err(Bad::Cells(exact));
        }
    }
    match stamp {
        Some(ms) => Ok(ms),
        None if cell.starts_with(b"(PDH-") => Err(Bad::Header),
        None => Err(Bad::Time),
    }
}

/// Scans `text[from..]` (whole lines; `from` is 0 or just after a `\n`).
fn scan_part(text: &[u8], from: usize, to: usize, shape: Shape) -> Part {
    let mut part = Part::default();
    let mut pos = from;
    let mut run: Option<Segment> = None;
    while pos < to {
        let (line_end, next) = match memchr::memchr(b'\n', &text[pos..to]) {
            Some(i) => (pos + i, pos + i + 1),
            None => (to, to),
        };
        let line = &text[pos..line_end];
        let idx = part.lines;
        part.lines += 1;
        if is_blank(line) {
            if let Some(seg) = run.take() {
                part.segments.push(seg);
            }
        } else {
            part.last_non_blank = Some(idx);
            match check_line(line, shape) {
                Ok(ms) => {
                    part.times.push(ms);
                    match &mut run {
                        Some(seg) => {
                            seg.end = next;
                            seg.rows += 1;
                        }
                        None => {
                            run = Some(Segment {
                                start: pos,
                                end: next,
                                rows: 1,
                                first_line: idx,
                                continues: false,
                            })
                        }
                    }
                }
                Err(bad) => {
                    if let Some(seg) = run.take() {
                        part.segments.push(seg);
                    }
                    part.bad.push((idx, bad));
                }
            }
        }
        pos = next;
    }
    if let Some(seg) = run.take() {
        part.segments.push(seg);
    }
    part
}

/// Splits `[from, to)` into about `n` ranges of whole lines.
fn split_lines(text: &[u8], from: usize, to: usize, n: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(n);
    let step = (to - from) / n.max(1);
    let mut start = from;
    for _ in 1..n {
        let guess = (start + step).min(to);
        let end = match memchr::memchr(b'\n', &text[guess..to]) {
            Some(i) => guess + i + 1,
            None => to,
        };
        if end > start {
            out.push((start, end));
        }
        start = end;
        if start >= to {
            break;
        }
    }
    if start < to {
        out.push((start, to));
    }
    out
}

/// Scans the data lines in `text[from..]`; `first_line` is the 1-based number of the line
/// at `from`. Broken lines are reported in `meta` (a truncated last line apart).
pub fn scan(
    text: &str,
    from: usize,
    first_line: u64,
    shape: Shape,
    meta: &mut CaptureMeta,
) -> Scan {
    let mut lines = Lines::new(first_line);
    let segments = lines.scan(text, from, shape);
    let (mut out, last_non_blank) = lines.into_parts();
    out.segments = segments;
    report(&out.bad, last_non_blank, shape.columns, meta);
    out
}

/// The bytes of lines a thread scans (and the frame's builder parses) at a time, in a
/// larger piece.
const PART_BYTES: usize = 2 << 20;

/// Pieces with more bytes of lines than this are scanned in parts, one or more per thread.
const PIECE_PARALLEL_BYTES: usize = 1 << 20;

/// The data lines of one PerfMon CSV, scanned piece by piece as they come: [`Lines`] with
/// the shape of the file's lines and how a piece is cut into parts for the cores. The parts
/// a piece was scanned in are the shares its values are parsed in, so the builder of the
/// frame works on what the scan found without scanning again.
#[derive(Debug, Clone)]
pub struct Scanner {
    lines: Lines,
    shape: Shape,
    threads: usize,
    parallel_bytes: usize,
}

impl Scanner {
    /// The scanner of the data lines under `header`, on as many threads as the machine has
    /// (at most [`MAX_THREADS`]).
    pub fn new(header: &super::Header) -> Self {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS);
        Self {
            lines: Lines::new(header.body_line),
            shape: header.shape,
            threads,
            parallel_bytes: PIECE_PARALLEL_BYTES,
        }
    }

    /// The same on `threads` threads, every piece larger than `parallel_bytes` cut into
    /// parts (tests cut the smallest pieces so).
    #[must_use]
    pub fn on_threads(mut self, threads: usize, parallel_bytes: usize) -> Self {
        self.threads = threads.clamp(1, MAX_THREADS);
        self.parallel_bytes = parallel_bytes;
        self
    }

    /// The threads the parts are shared among (the parse shares them among as many).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The 1-based number of the next line to scan: the line a text cut off now ends in.
    pub fn next_line(&self) -> u64 {
        self.lines.next_line()
    }

    /// How many parts to scan `len` bytes of lines in: one, or parts of about
    /// [`PART_BYTES`], at least one per thread and at most four.
    fn parts(&self, len: usize) -> usize {
        if len > self.parallel_bytes && self.threads > 1 {
            (len / PART_BYTES).clamp(self.threads, 4 * self.threads)
        } else {
            1
        }
    }

    /// Scans `text[from..]` (whole lines; see [`Lines::scan_parts`]).
    pub fn scan(&mut self, text: &str, from: usize) -> Vec<Vec<Segment>> {
        let parts = self.parts(text.len().saturating_sub(from));
        self.lines.scan_parts(text, from, self.shape, parts)
    }

    /// [`Scanner::scan`] of bytes not yet known to be UTF-8 (each part checks its own on
    /// its thread): `None`, with nothing learned, when they are not.
    pub fn scan_utf8(&mut self, bytes: &[u8]) -> Option<Vec<Vec<Segment>>> {
        let parts = self.parts(bytes.len());
        self.lines.scan_utf8_parts(bytes, 0, self.shape, parts)
    }

    /// After the last piece: the broken lines reported and the times checked into `meta`
    /// ([`super::finish_lines`]); one time per good line.
    pub fn finish(self, file: &str, meta: &mut CaptureMeta) -> Result<Vec<i64>, IngestError> {
        super::finish_lines(file, self.lines, self.shape.columns, meta)
    }
}

/// The data lines of a capture read in pieces: each piece is scanned as it comes
/// ([`Lines::scan`]), and what is learned (times, broken lines, runs) is kept until
/// [`Lines::finish`] reports it.
#[derive(Debug, Clone, Default)]
pub struct Lines {
    /// 1-based number of the next line to scan.
    next_line: u64,
    time_ms: Vec<i64>,
    bad: Vec<(u64, Bad)>,
    last_non_blank: Option<u64>,
    /// Every run of good lines so far: (first line, rows), runs cut by a piece boundary
    /// joined.
    runs: Vec<(u64, usize)>,
    /// The piece before ended inside a run of good lines.
    open_run: bool,
}

impl Lines {
    /// Lines numbered from `first_line` (1-based).
    pub fn new(first_line: u64) -> Self {
        Self { next_line: first_line, ..Self::default() }
    }

    /// The 1-based number of the next line to scan: the line a text cut off now ends in.
    pub fn next_line(&self) -> u64 {
        self.next_line
    }

    /// Scans the lines of `text[from..]` (whole lines, the last one may lack its `\n` only
    /// at the end of the file). Returns the runs of good lines in it, as byte ranges of
    /// `text`, with their line numbers; each run carries `continues` when it goes on from
    /// the previous piece's last run.
    pub fn scan(&mut self, text: &str, from: usize, shape: Shape) -> Vec<Segment> {
        let to = text.len();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS);
        let parts = if to.saturating_sub(from) > PARALLEL_BYTES { threads } else { 1 };
        let mut segments: Vec<Segment> = Vec::new();
        for seg in self.scan_parts(text, from, shape, parts).into_iter().flatten() {
            match segments.last_mut() {
                // A run cut between two parts.
                Some(prev) if seg.continues => {
                    prev.end = seg.end;
                    prev.rows += seg.rows;
                }
                _ => segments.push(seg),
            }
        }
        segments
    }

    /// [`Lines::scan`] in `parts` parts of about as many bytes of whole lines, shared
    /// among the cores (each takes the next part when done with one), returning each
    /// part's runs (in order) without joining a run cut between two parts: the part after
    /// the cut has it as its first run, marked `continues`, as a run cut by the end of the
    /// previous piece is. The lines and rows of each part are what a parser working on
    /// that part needs, so the parts can be parsed as they were scanned.
    pub fn scan_parts(
        &mut self,
        text: &str,
        from: usize,
        shape: Shape,
        parts: usize,
    ) -> Vec<Vec<Segment>> {
        self.scan_parts_in(text.as_bytes(), from, shape, parts, false).unwrap_or_default()
    }

    /// [`Lines::scan_parts`] over bytes not yet known to be text: each part checks that
    /// its bytes are UTF-8 on its own thread (parts are cut just after a line break, so a
    /// character is never split between two). `None`, with nothing learned, when they are
    /// not.
    pub fn scan_utf8_parts(
        &mut self,
        bytes: &[u8],
        from: usize,
        shape: Shape,
        parts: usize,
    ) -> Option<Vec<Vec<Segment>>> {
        let from = from.min(bytes.len());
        if simdutf8::basic::from_utf8(&bytes[..from]).is_err() {
            return None;
        }
        self.scan_parts_in(bytes, from, shape, parts, true)
    }

    fn scan_parts_in(
        &mut self,
        bytes: &[u8],
        from: usize,
        shape: Shape,
        parts: usize,
        check_utf8: bool,
    ) -> Option<Vec<Vec<Segment>>> {
        let to = bytes.len();
        let from = from.min(to);
        let one = move |a: usize, b: usize| {
            let text = !check_utf8 || simdutf8::basic::from_utf8(&bytes[a..b]).is_ok();
            text.then(|| scan_part(bytes, a, b, shape))
        };
        let scanned: Vec<(usize, usize, Option<Part>)> = if parts > 1 && to > from {
            // More parts than cores, each core taking the next part when done with one:
            // a core slowed by another thread (the next piece being mapped) does less of
            // the work instead of holding up the rest.
            let ranges = split_lines(bytes, from, to, parts);
            advisor_model::par::map_indexed(ranges.len(), MAX_THREADS, |i| {
                let (a, b) = ranges[i];
                (a, b, one(a, b))
            })
        } else {
            vec![(from, to, one(from, to))]
        };
        let scanned: Vec<(usize, usize, Part)> =
            scanned.into_iter().map(|(a, b, p)| p.map(|p| (a, b, p))).collect::<Option<_>>()?;
        let mut out: Vec<Vec<Segment>> = Vec::with_capacity(scanned.len());
        let mut line0 = self.next_line;
        // Whether the text just before the part to come ended inside a run of good lines.
        let mut open = self.open_run;
        for (start, end, part) in scanned {
            let mut mine: Vec<Segment> = Vec::with_capacity(part.segments.len());
            for mut seg in part.segments {
                seg.first_line += line0;
                let continues = mine.is_empty() && open && seg.start == start;
                match self.runs.last_mut() {
                    Some(run) if continues => run.1 += seg.rows,
                    _ => self.runs.push((seg.first_line, seg.rows)),
                }
                seg.continues = continues;
                mine.push(seg);
            }
            // A run reaching the part's end is open for the next part; a part without runs
            // closes any run before it.
            open = mine.last().is_some_and(|s| s.end == end);
            self.time_ms.extend(part.times);
            self.bad.extend(part.bad.into_iter().map(|(l, b)| (l + line0, b)));
            if let Some(l) = part.last_non_blank {
                self.last_non_blank = Some(l + line0);
            }
            line0 += part.lines;
            out.push(mine);
        }
        self.next_line = line0;
        if to > from {
            self.open_run = open;
        }
        Some(out)
    }

    /// Sample times so far, one per good line.
    pub fn times(&self) -> &[i64] {
        &self.time_ms
    }

    /// Every good line's sample time and the lines that could not be used, with the
    /// last non-blank line's number.
    fn into_parts(self) -> (Scan, Option<u64>) {
        let segments = self
            .runs
            .iter()
            .map(|&(first_line, rows)| Segment {
                start: 0,
                end: 0,
                rows,
                first_line,
                continues: false,
            })
            .collect();
        (Scan { segments, time_ms: self.time_ms, bad: self.bad }, self.last_non_blank)
    }

    /// Reports the broken lines in `meta` and returns what was scanned: `segments` are the
    /// runs of good lines by line number (their byte ranges are not kept across pieces).
    pub fn finish(self, columns: usize, meta: &mut CaptureMeta) -> Scan {
        let (scan, last_non_blank) = self.into_parts();
        report(&scan.bad, last_non_blank, columns, meta);
        scan
    }
}

fn report(bad: &[(u64, Bad)], last_non_blank: Option<u64>, columns: usize, meta: &mut CaptureMeta) {
    for &(line, why) in bad {
        let at = Some(Location::line(line, 1));
        let last = Some(line) == last_non_blank;
        match why {
            Bad::Cells(n) if last && n < columns => {
                meta.warn(format!("last line truncated (the capture was stopped mid-write?): line {line} has {n} of {columns} cells and was skipped"), at)
            }
            Bad::OpenQuote if last => meta.warn(
                format!("last line truncated (the capture was stopped mid-write?): line {line} ends inside a quoted cell and was skipped"),
                at,
            ),
            Bad::Cells(_) | Bad::OpenQuote => meta.warn(
                format!("skipped a broken row: its number of cells differs from the header's {columns}"),
                at,
            ),
            Bad::Time => meta.warn("skipped a row whose time stamp cannot be read", at),
            Bad::Header => {
                meta.warn("skipped a repeated header line (captures appended into one file?)", at)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPE: Shape = Shape { columns: 3, separator: b',', order: DateOrder::MonthFirst };

    fn run(text: &str) -> (Scan, CaptureMeta) {
        let mut meta = CaptureMeta::new(crate::perfmon::FORMAT);
        let s = scan(text, 0, 2, SHAPE, &mut meta);
        (s, meta)
    }

    #[test]
    fn good_lines_make_one_segment() {
        let text = "\"01/02/2024 10:00:00.000\",\" \",\"1\"\r\n\"01/02/2024 10:00:01.000\",\"2\",\"3\"\r\n";
        let (s, meta) = run(text);
        assert_eq!(
            s.segments,
            vec![Segment { start: 0, end: text.len(), rows: 2, first_line: 2, continues: false }]
        );
        assert_eq!(s.time_ms.len(), 2);
        assert_eq!(s.time_ms[1] - s.time_ms[0], 1000);
        assert!(meta.warnings.is_empty());
    }

    #[test]
    fn broken_rows_split_segments_and_are_counted() {
        let text = concat!(
            "\"01/02/2024 10:00:00.000\",\"1\",\"1\"\n",
            "\"01/02/2024 10:00:01.000\",\"1\"\n",
            "\"garbage\",\"1\",\"1\"\n",
            "\n",
            "\"(PDH-CSV 4.0)\",\"\\\\H\\M\\A\",\"\\\\H\\M\\B\"\n",
            "\"01/02/2024 10:00:02.000\",\"1\",\"1\"\n",
            "\"01/02/2024 10:00:03.000\",\"1\",\"1\",\"1\"\n",
            "\"01/02/2024 10:00:04.000\",\"1\",\"1\"\n",
            "\"01/02/2024 10:00:05.000\",\"1\",\"0.5",
        );
        let (s, meta) = run(text);
        assert_eq!(s.time_ms.len(), 3);
        assert_eq!(
            s.bad,
            vec![
                (3, Bad::Cells(2)),
                (4, Bad::Time),
                (6, Bad::Header),
                (8, Bad::Cells(4)),
                (10, Bad::OpenQuote)
            ]
        );
        assert_eq!(
            s.segments.iter().map(|g| (g.first_line, g.rows)).collect::<Vec<_>>(),
            vec![(2, 1), (7, 1), (9, 1)]
        );
        let msgs: Vec<String> = meta.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            msgs,
            vec![
                "3:1: skipped a broken row: its number of cells differs from the header's 3 (2 times)",
                "4:1: skipped a row whose time stamp cannot be read",
                "6:1: skipped a repeated header line (captures appended into one file?)",
                "10:1: last line truncated (the capture was stopped mid-write?): line 10 ends inside a quoted cell and was skipped",
            ]
        );
    }

    #[test]
    fn truncated_last_line_with_trailing_blank_lines() {
        let text = "\"01/02/2024 10:00:00.000\",\"1\",\"1\"\n\"01/02/2024 10:00:01.000\",\"1\"\n\n";
        let (s, meta) = run(text);
        assert_eq!(s.time_ms.len(), 1);
        assert_eq!(meta.warnings.len(), 1);
        assert!(meta.warnings[0].message.starts_with("last line truncated"));
        assert!(meta.warnings[0].message.contains("line 3 has 2 of 3 cells"));
    }

    #[test]
    fn separators_inside_quotes_are_counted_exactly() {
        let text = "\"01/02/2024 10:00:00.000\",\"1,5\",\"1\"\n";
        let (s, _) = run(text);
        assert_eq!(s.time_ms.len(), 1);
    }

    #[test]
    fn parallel_scan_matches_serial() {
        let line = "\"01/02/2024 10:00:00.000\",\"1\",\"2\"\r\n";
        let mut text = String::new();
        for i in 0..((PARALLEL_BYTES / line.len()) + 5000) {
            if i == 123_457 {
                text.push_str("\"x\",\"1\",\"2\"\r\n");
            } else {
                text.push_str(line);
            }
        }
        let (s, meta) = run(&text);
        let serial = scan_part(text.as_bytes(), 0, text.len(), SHAPE);
        assert_eq!(s.time_ms.len(), serial.times.len());
        assert_eq!(s.segments.len(), 2);
        assert_eq!(s.segments[1].first_line, 123_457 + 3);
        assert_eq!(s.segments.iter().map(|g| g.rows).sum::<usize>(), s.time_ms.len());
        assert_eq!(meta.warnings[0].location, Some(Location::line(123_457 + 2, 1)));
    }

    #[test]
    fn parts_hold_their_own_runs_and_join_into_the_scan() {
        // Good lines with a blank line, a broken line and a bad time among them, scanned
        // as two pieces (the cut inside a run), each on 1 to 5 parts.
        let good = |i: usize| {
            format!("\"01/02/2024 10:{:02}:{:02}.000\",\"{i}\",\"2\"\r\n", i / 60, i % 60)
        };
        let mut text = String::new();
        for i in 0..400 {
            match i {
                57 => text.push_str("\r\n"),
                130 => text.push_str("\"01/02/2024 10:00:00.000\",\"1\"\r\n"),
                131 => text.push_str("\"x\",\"1\",\"2\"\r\n"),
                _ => text.push_str(&good(i)),
            }
        }
        let cut = text[..text.len() / 2].rfind('\n').map_or(0, |i| i + 1);
        let (first, second) = text.split_at(cut);
        let mut serial = Lines::new(2);
        let whole: Vec<Vec<Segment>> =
            [first, second].iter().map(|t| serial.scan(t, 0, SHAPE)).collect();
        for n in 1..=5 {
            let mut lines = Lines::new(2);
            for (piece, expect) in [first, second].iter().zip(&whole) {
                let parts = lines.scan_parts(piece, 0, SHAPE, n);
                assert!(parts.len() <= n, "{n} parts");
                let mut joined: Vec<Segment> = Vec::new();
                for part in &parts {
                    for seg in part {
                        // A part's rows are the lines of its runs.
                        assert_eq!(piece[seg.start..seg.end].matches('\n').count(), seg.rows);
                        match joined.last_mut() {
                            Some(prev) if seg.continues => {
                                assert_eq!(prev.end, seg.start);
                                prev.end = seg.end;
                                prev.rows += seg.rows;
                            }
                            _ => joined.push(*seg),
                        }
                    }
                }
                assert_eq!(&joined, expect, "{n} parts");
            }
            assert_eq!((lines.times(), &lines.runs), (serial.times(), &serial.runs), "{n} parts");
            assert_eq!(lines.bad, serial.bad, "{n} parts");
        }
        // The second piece's first run goes on from the first piece's last.
        assert!(whole[1][0].continues);
    }

    #[test]
    fn parts_check_their_bytes_are_text() {
        // Lines with two-byte characters (a cell that is not a number) throughout.
        let mut text = String::new();
        for i in 0..300 {
            text.push_str(&format!(
                "\"01/02/2024 10:{:02}:{:02}.000\",\"é{i}\",\"2\"\n",
                i / 60,
                i % 60
            ));
        }
        let bytes = text.as_bytes();
        for n in 1..=4 {
            let mut checked = Lines::new(2);
            let parts = checked.scan_utf8_parts(bytes, 0, SHAPE, n);
            let mut plain = Lines::new(2);
            assert_eq!(parts, Some(plain.scan_parts(&text, 0, SHAPE, n)), "{n} parts");
            // One broken character anywhere: the first line, the middle, the last line.
            for at in [40, bytes.len() / 2, bytes.len() - 8] {
                let mut broken = bytes.to_vec();
                broken[at] = 0xC3;
                broken[at + 1] = b'(';
                let mut lines = Lines::new(2);
                assert_eq!(lines.scan_utf8_parts(&broken, 0, SHAPE, n), None, "{n} parts, at {at}");
                assert!(lines.times().is_empty(), "nothing learned from bytes that are not text");
            }
        }
    }
}
