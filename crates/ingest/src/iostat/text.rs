//! iostat text output.
//!
//! A file is a sequence of lines: the banner (`Linux 6.1 (host) \t 11/21/26 \t _x86_64_ \t
//! (2 CPU)`, may be missing), then reports. A report is an optional timestamp line (`-t`), an
//! optional `avg-cpu:` block and one or more device tables (several with `--pretty -x`, whose
//! r/ w/ d/ f/ sub-tables are merged back per device). A device header that repeats a column
//! already seen in the current report starts the next report, so reports are found whether
//! they are separated by one blank line, two, or none.
//!
//! The text is read in one pass (after a quick scan for pdsh prefixes and day-first dates)
//! and each report goes to the [`Assembler`] as soon as it is complete: nothing holds the
//! whole file's reports or lines. A day of `iostat -x 1` on 32 devices is 3 million lines.

use advisor_model::{CaptureMeta, Location, RawCapture};

use super::columns::{self, Column};
use super::time::{self, DateOrder};
use super::{Assembler, Report};
use crate::IngestError;

/// A line of one host's stream: 1-based line number, the column where the iostat text
/// starts (after a pdsh `host: ` prefix) and the text.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    no: u64,
    col0: u64,
    text: &'a str,
    /// The last line of a file that does not end in a newline (a capture cut mid-line).
    cut: bool,
}

impl Line<'_> {
    fn loc(&self, char_col: u64) -> Location {
        Location::line(self.no, self.col0 + char_col)
    }
}

pub(crate) fn read(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    let mut meta = CaptureMeta::new(super::TEXT);
    let scan = Scan::of(text);
    if scan.nonblank == 0 {
        return Err(IngestError::new(file, None, crate::ErrorKind::Empty));
    }
    let pdsh = !(scan.prefixed == 0 || scan.prefixed * 10 < scan.nonblank * 8);
    let streams = if pdsh { demultiplex(lines(text), &mut meta) } else { Vec::new() };
    let order = scan.order;
    if order == DateOrder::DayFirst {
        meta.notes.push("dates are day-first (dd/mm/yy), as a non-US locale prints them".into());
    }
    let mut asm = Assembler::default();
    let mut first_location = None;
    let mut runs = 0;
    let mut stream = |host: Option<&str>, lines: &mut dyn Iterator<Item = Line<'_>>| {
        let mut p = StreamParser::new(host, order);
        for (i, line) in lines.enumerate() {
            advisor_model::work::checkpoint_every(i);
            p.line(&line, &mut meta, &mut asm);
        }
        p.finish(&mut meta, &mut asm);
        if first_location.is_none() {
            first_location = p.first_location.clone();
        }
        runs += p.runs;
    };
    let n_streams = if pdsh {
        for (host, lines) in &streams {
            stream(host.as_deref(), &mut lines.iter().copied());
        }
        streams.len()
    } else {
        stream(None, &mut lines(text));
        1
    };
    if n_streams > 1 {
        meta.notes.push(format!("pdsh output: {n_streams} hosts, each read as its own iostat run"));
    }
    if runs > n_streams {
        meta.notes.push(format!(
            "{runs} iostat runs (banner lines) in one file; each has its own since-boot report"
        ));
    }
    asm.finish(file, meta, first_location)
}

/// The lines of a text: split at `\n`, a `\r` before it dropped; the last line is `cut`
/// when the text does not end with a line end.
fn lines(text: &str) -> Lines<'_> {
    Lines { rest: Some(text), no: 0 }
}

struct Lines<'a> {
    rest: Option<&'a str>,
    no: u64,
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        let rest = self.rest?;
        self.no += 1;
        let (l, cut) = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => {
                let after = rest.get(i + 1..).unwrap_or("");
                self.rest = (!after.is_empty()).then_some(after);
                (rest.get(..i).unwrap_or(""), false)
            }
            None => {
                self.rest = None;
                (rest, true)
            }
        };
        Some(Line { no: self.no, col0: 0, text: l.strip_suffix('\r').unwrap_or(l), cut })
    }
}

/// What the reader needs to know before the first report: how many lines carry text and a
/// pdsh prefix (is this pdsh output?), and the order of slash dates.
struct Scan {
    nonblank: usize,
    prefixed: usize,
    order: DateOrder,
}

impl Scan {
    fn of(text: &str) -> Self {
        let mut s = Scan { nonblank: 0, prefixed: 0, order: DateOrder::MonthFirst };
        // The lines of `lines`, found with the colons (pdsh prefixes) and slashes (dates)
        // in the same search: most lines have neither, and need no more look.
        let b = text.as_bytes();
        let (mut start, mut colon, mut slash) = (0, false, false);
        for i in memchr::memchr3_iter(b'\n', b':', b'/', b) {
            match b.get(i) {
                Some(b'\n') => {
                    s.line(text.get(start..i).unwrap_or(""), colon, slash);
                    (start, colon, slash) = (i + 1, false, false);
                }
                Some(b':') => colon = true,
                _ => slash = true,
            }
        }
        if start < b.len() {
            s.line(text.get(start..).unwrap_or(""), colon, slash);
        }
        s
    }

    fn line(&mut self, line: &str, colon: bool, slash: bool) {
        let l = line.strip_suffix('\r').unwrap_or(line);
        if slash && self.order == DateOrder::MonthFirst && time::has_day_first_date(l) {
            self.order = DateOrder::DayFirst;
        }
        if !l.trim().is_empty() {
            self.nonblank += 1;
            if colon && pdsh_prefix(l).is_some() {
                self.prefixed += 1;
            }
        }
    }
}

/// `host: rest` as pdsh prints it; `None` for iostat's own `avg-cpu:` and `Device:`.
fn pdsh_prefix(line: &str) -> Option<(&str, &str)> {
    let (p, rest) = line.split_once(':')?;
    if p.is_empty()
        || p.len() > 253
        || p == "avg-cpu"
        || p == "Device"
        || !p.chars().all(|c| c.is_ascii_alphanumeric() || "-._@".contains(c))
        || !(rest.is_empty() || rest.starts_with(' '))
    {
        return None;
    }
    Some((p, rest.strip_prefix(' ').unwrap_or(rest)))
}

type Stream<'a> = (Option<String>, Vec<Line<'a>>);

/// Splits pdsh output (`host: line`, hosts interleaved) into one stream per host.
fn demultiplex<'a>(lines: Lines<'a>, meta: &mut CaptureMeta) -> Vec<Stream<'a>> {
    let mut streams: Vec<Stream<'a>> = Vec::new();
    for l in lines {
        if l.text.trim().is_empty() {
            continue;
        }
        let Some((host, rest)) = pdsh_prefix(l.text) else {
            meta.warn("skipped a line without the `host: ` prefix of pdsh output", Some(l.loc(1)));
            continue;
        };
        let col0 = (l.text.len() - rest.len()) as u64;
        let line = Line { no: l.no, col0, text: rest, cut: l.cut };
        match streams.iter_mut().find(|(h, _)| h.as_deref() == Some(host)) {
            Some((_, v)) => v.push(line),
            None => streams.push((Some(host.to_owned()), vec![line])),
        }
    }
    streams
}

/// Whitespace-separated tokens with their 1-based character column, into `out`.
fn tokens_into<'a>(s: &'a str, out: &mut Vec<(u64, &'a str)>) {
    out.clear();
    if s.is_ascii() {
        ascii_tokens(s, out);
    } else {
        char_tokens(s, out);
    }
}

/// The tokens of any text, a char at a time.
fn char_tokens<'a>(s: &'a str, out: &mut Vec<(u64, &'a str)>) {
    let mut start: Option<(usize, u64)> = None;
    let mut col = 0u64;
    for (i, c) in s.char_indices() {
        col += 1;
        if c.is_whitespace() {
            if let Some((b, bc)) = start.take() {
                out.push((bc, &s[b..i]));
            }
        } else if start.is_none() {
            start = Some((i, col));
        }
    }
    if let Some((b, bc)) = start {
        out.push((bc, &s[b..]));
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Bit `i` set when byte `i` of the (ASCII) bytes is whitespace as `char::is_whitespace`
/// has it (`\t` `\n` `\x0B` `\x0C` `\r` and space); fewer than 8 bytes are padded with spaces.
fn space_bits8(bytes: &[u8]) -> u64 {
    let mut w = [b' '; 8];
    let n = bytes.len().min(8);
    w[..n].copy_from_slice(&bytes[..n]);
    let v = u64::from_le_bytes(w);
    // Spaces: bytes of `x` that are zero (exact: no borrow between bytes).
    let x = v ^ (0x20 * ONES);
    let zero = !(((x & !HIGH) + !HIGH) | x | !HIGH);
    // \t..\r: at least 0x09 and not at least 0x0E (ASCII bytes: the sums stay in their byte).
    let from_tab = v + (0x80 - 0x09) * ONES;
    let past_cr = v + (0x80 - 0x0E) * ONES;
    let control = from_tab & !past_cr;
    // The high bit of each byte, gathered into the low 8 bits (bit i = byte i).
    (((zero | control) & HIGH) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The tokens of ASCII text (columns are byte positions), found 64 bytes at a time from
/// masks of whitespace: no branch per byte.
fn ascii_tokens<'a>(s: &'a str, out: &mut Vec<(u64, &'a str)>) {
    let b = s.as_bytes();
    let mut prev_space = true;
    let mut start = 0usize;
    let mut base = 0usize;
    for chunk in b.chunks(64) {
        let mut space = 0u64;
        for (k, group) in chunk.chunks(8).enumerate() {
            space |= space_bits8(group) << (8 * k);
        }
        // Past the end of the text: whitespace.
        if chunk.len() < 64 {
            space |= u64::MAX << chunk.len();
        }
        let before = (space << 1) | u64::from(prev_space);
        let starts = !space & before;
        let mut events = starts | (space & !before);
        while events != 0 {
            let i = events.trailing_zeros() as usize;
            events &= events - 1;
            if starts >> i & 1 == 1 {
                start = base + i;
            } else {
                out.push((start as u64 + 1, s.get(start..base + i).unwrap_or("")));
            }
        }
        prev_space = space >> 63 == 1;
        base += 64;
    }
    if !prev_space {
        out.push((start as u64 + 1, s.get(start..).unwrap_or("")));
    }
}

#[cfg(test)]
fn tokens(s: &str) -> Vec<(u64, &str)> {
    let mut out = Vec::new();
    tokens_into(s, &mut out);
    out
}

/// sysstat's banner: `Linux 5.15.0-1 (host) \t11/21/26 \t_x86_64_\t(8 CPU)`.
fn banner(line: &str) -> Option<(Option<String>, String)> {
    // Every banner has a `(`: most lines are told apart without more.
    memchr::memchr(b'(', line.as_bytes())?;
    let t = line.trim();
    let first = t.split_whitespace().next()?;
    if !first.chars().next()?.is_ascii_alphabetic()
        || first.ends_with(':')
        || !(t.contains("CPU)") || line.contains('\t'))
    {
        return None;
    }
    let open = t.find('(')?;
    let close = open + t[open..].find(')')?;
    let host = t[open + 1..close].trim();
    let host = (!host.is_empty()).then(|| host.to_owned());
    Some((host, t.split_whitespace().collect::<Vec<_>>().join(" ")))
}

/// The CPU count a banner ends with: `(8 CPU)`.
fn banner_cpus(line: &str) -> Option<u32> {
    let end = line.rfind(" CPU)")?;
    let open = line[..end].rfind('(')?;
    line[open + 1..end].trim().parse().ok().filter(|n| *n > 0)
}

const CUT_LINE: &str =
    "dropped the last line: it has no line end and stops mid-number (capture cut short)";

/// Digits after the decimal mark (`0.04` -> 2, `222.1k` -> 1, `7` -> 0).
fn decimals(tok: &str) -> usize {
    let b = tok.as_bytes();
    match b.iter().position(|c| *c == b'.' || *c == b',') {
        Some(i) => b.iter().skip(i + 1).take_while(|c| c.is_ascii_digit()).count(),
        None => 0,
    }
}

/// A device table header: column names and where the device name sits.
#[derive(Debug, Clone)]
struct Header<'a> {
    /// Column names in order, the `Device` column included (as `None`).
    cols: Vec<Option<(&'a str, Column)>>,
    device_last: bool,
}

fn is_dev(t: &str) -> bool {
    t == "Device" || t == "Device:"
}

/// Whether the tokens are a device table header: `Device` first or last, and more.
fn is_device_header(toks: &[(u64, &str)]) -> bool {
    match (toks.first(), toks.last()) {
        (Some((_, first)), Some((_, last))) => (is_dev(first) || is_dev(last)) && toks.len() >= 2,
        _ => false,
    }
}

impl<'a> Header<'a> {
    fn of(toks: &[(u64, &'a str)]) -> Self {
        let device_last = !toks.first().is_some_and(|(_, t)| is_dev(t));
        let cols =
            toks.iter().map(|(_, t)| (!is_dev(t)).then(|| (*t, columns::classify(t)))).collect();
        Header { cols, device_last }
    }

    /// Whether these header tokens are this header's.
    fn is(&self, toks: &[(u64, &str)]) -> bool {
        self.cols.len() == toks.len()
            && self.device_last != toks.first().is_some_and(|(_, t)| is_dev(t))
            && self.cols.iter().zip(toks).all(|(c, (_, t))| match c {
                Some((name, _)) => name == t,
                None => is_dev(t),
            })
    }
}

#[derive(Debug)]
enum Mode<'a> {
    Idle,
    /// After `avg-cpu:`: the column names of the values line to come.
    Cpu(Vec<&'a str>),
    /// Device rows of `StreamParser::header`.
    Rows,
}

struct StreamParser<'a> {
    /// The pdsh host of the stream: the banner's host name does not replace it.
    stream_host: bool,
    run_host: Option<String>,
    order: DateOrder,
    /// The report being read, and how many reports the current run has so far.
    report: Report,
    run_reports: usize,
    /// Runs with reports, and the most reports in one of them.
    runs: usize,
    max_run_reports: usize,
    /// Column names seen in the current report (a repeat starts the next report).
    report_cols: Vec<&'a str>,
    mode: Mode<'a>,
    /// The last device header (the rows' header in `Mode::Rows`).
    header: Option<Header<'a>>,
    /// The avg-cpu columns whose ignored names are recorded.
    cpu_cols: Vec<&'a str>,
    banner_seen: bool,
    /// A banner was read and no report since: the next run's first report is since boot.
    banner_pending: bool,
    first_location: Option<Location>,
    version_set: bool,
    /// Decimals of the last value of the previous row of the current table: a last line
    /// without a line end is kept only when it ends the same way (not cut mid-number).
    prev_last_decimals: Option<usize>,
    /// The tokens of the current line (kept for its allocation).
    toks: Vec<(u64, &'a str)>,
}

impl<'a> StreamParser<'a> {
    fn new(host: Option<&str>, order: DateOrder) -> Self {
        Self {
            stream_host: host.is_some(),
            run_host: host.map(str::to_owned),
            order,
            report: Report::default(),
            run_reports: 0,
            runs: 0,
            max_run_reports: 0,
            report_cols: Vec::new(),
            mode: Mode::Idle,
            header: None,
            cpu_cols: Vec::new(),
            banner_seen: false,
            banner_pending: false,
            first_location: None,
            version_set: false,
            prev_last_decimals: None,
            toks: Vec::new(),
        }
    }

    fn close_report(&mut self, meta: &mut CaptureMeta, asm: &mut Assembler) {
        if !self.version_set && !self.report_cols.is_empty() {
            meta.version = Some(columns::layout(&self.report_cols));
            self.version_set = true;
        }
        self.report_cols.clear();
        if self.report.has_content() {
            if self.run_reports == 0 {
                asm.begin_run(self.run_host.as_deref(), self.banner_pending);
                self.banner_pending = false;
            }
            asm.report(meta, &self.report);
            self.run_reports += 1;
            self.report.clear();
        }
        // Otherwise the report is empty but for, maybe, a timestamp with nothing after it
        // yet: it is kept for the next block.
    }

    fn close_run(&mut self, meta: &mut CaptureMeta, asm: &mut Assembler) {
        self.close_report(meta, asm);
        self.report.clear();
        if self.run_reports > 0 {
            asm.end_run(meta);
            self.runs += 1;
            self.max_run_reports = self.max_run_reports.max(self.run_reports);
        }
        self.run_reports = 0;
    }

    fn finish(&mut self, meta: &mut CaptureMeta, asm: &mut Assembler) {
        self.close_run(meta, asm);
    }

    fn line(&mut self, line: &Line<'a>, meta: &mut CaptureMeta, asm: &mut Assembler) {
        let t = line.text.trim();
        if t.is_empty() {
            self.mode = Mode::Idle;
            return;
        }
        let mut toks = std::mem::take(&mut self.toks);
        tokens_into(line.text, &mut toks);
        self.tokens(line, t, &toks, meta, asm);
        self.toks = toks;
    }

    fn tokens(
        &mut self,
        line: &Line<'a>,
        t: &str,
        toks: &[(u64, &'a str)],
        meta: &mut CaptureMeta,
        asm: &mut Assembler,
    ) {
        let text = line.text;
        if let Mode::Cpu(cols) = &mut self.mode {
            let cols = std::mem::take(cols);
            self.mode = Mode::Idle;
            if toks.iter().all(|(_, v)| columns::parse_number(v).is_some()) {
                self.cpu_values(line, &cols, toks, meta);
                return;
            }
        }
        if let Some((host, words)) = banner(text) {
            if self.run_reports > 0 || self.report.has_content() {
                self.close_run(meta, asm);
            }
            self.banner_seen = true;
            self.banner_pending = true;
            if meta.cpus.is_none() {
                meta.cpus = banner_cpus(text);
            }
            if !self.stream_host
                && let Some(h) = host
            {
                self.run_host = Some(h);
            }
            let note = format!("banner: {words}");
            if !meta.notes.contains(&note) {
                meta.notes.push(note);
            }
            self.mode = Mode::Idle;
            return;
        }
        if let Some(stamp) = time::parse_timestamp(t, self.order) {
            self.close_report(meta, asm);
            self.report.time = Some(stamp);
            self.mode = Mode::Idle;
            return;
        }
        if t.starts_with("avg-cpu:") {
            if self.report.cpu_pct.is_some() || !self.report.devices().is_empty() {
                self.close_report(meta, asm);
            }
            self.report.seen = true;
            self.first_location.get_or_insert_with(|| line.loc(1));
            self.mode = Mode::Cpu(toks.iter().skip(1).map(|(_, v)| *v).collect());
            return;
        }
        if is_device_header(toks) {
            self.header(line, toks, meta, asm);
            return;
        }
        if let (Mode::Rows, Some(h)) = (&self.mode, &self.header) {
            row(h, &mut self.report, &mut self.prev_last_decimals, line, toks, meta);
            return;
        }
        if toks.iter().skip(1).all(|(_, v)| columns::parse_number(v).is_some()) {
            meta.warn("skipped a data line outside any `Device` table", Some(line.loc(1)));
        } else {
            meta.warn("skipped a line that is not iostat output", Some(line.loc(1)));
        }
    }

    fn cpu_values(
        &mut self,
        line: &Line<'_>,
        cols: &[&'a str],
        toks: &[(u64, &str)],
        meta: &mut CaptureMeta,
    ) {
        // Recording an ignored name twice changes nothing: the same columns are skipped.
        if self.cpu_cols != cols {
            for c in cols {
                if *c != "%idle" {
                    meta.ignore(format!("avg-cpu {c}"));
                }
            }
            self.cpu_cols = cols.to_vec();
        }
        if line.cut
            && toks.first().map(|(_, t)| decimals(t)) != toks.last().map(|(_, t)| decimals(t))
        {
            meta.warn(CUT_LINE, Some(line.loc(1)));
            return;
        }
        let Some(idx) = cols.iter().position(|c| *c == "%idle") else {
            meta.warn("avg-cpu block without %idle: CPU not read", Some(line.loc(1)));
            return;
        };
        if toks.len() != cols.len() {
            meta.warn(
                "skipped an avg-cpu line whose values do not match its header",
                Some(line.loc(1)),
            );
            return;
        }
        let Some((col, tok)) = toks.get(idx) else { return };
        match columns::parse_number(tok).map(|n| columns::check(100.0 - n.value)) {
            // Rounded to 1e-6: `100 - 66.37` would print as 33.629999999999995.
            Some(Ok(v)) => self.report.cpu_pct = Some((v * 1e6).round() / 1e6),
            Some(Err(why)) => {
                meta.warn(format!("dropped {why} in avg-cpu %idle"), Some(line.loc(*col)))
            }
            None => meta.warn("unreadable avg-cpu %idle value", Some(line.loc(*col))),
        }
    }

    fn header(
        &mut self,
        line: &Line<'_>,
        toks: &[(u64, &'a str)],
        meta: &mut CaptureMeta,
        asm: &mut Assembler,
    ) {
        // Most reports repeat the previous header: its columns are known, and what it
        // recorded in `meta` (ignored names, the --pretty note) would change nothing.
        let known = self.header.as_ref().is_some_and(|h| h.is(toks));
        let h = match self.header.take() {
            Some(h) if known => h,
            _ => Header::of(toks),
        };
        if h.cols.iter().flatten().any(|(n, _)| self.report_cols.contains(n)) {
            self.close_report(meta, asm);
        }
        self.report_cols.extend(h.cols.iter().flatten().map(|(n, _)| *n));
        self.report.seen = true;
        self.first_location.get_or_insert_with(|| line.loc(1));
        if !known {
            for (name, col) in h.cols.iter().flatten() {
                match col {
                    Column::Metric { .. } => {}
                    Column::Ignored => meta.ignore(*name),
                    Column::Unknown => meta.ignore(format!("{name} (unknown column)")),
                }
            }
            if h.device_last {
                let note = "--pretty layout: device name last; sub-tables merged per device";
                if !meta.notes.iter().any(|n| n == note) {
                    meta.notes.push(note.to_owned());
                }
            }
        }
        self.prev_last_decimals = None;
        self.header = Some(h);
        self.mode = Mode::Rows;
    }
}

/// A device line of the table `h` into `report`.
fn row(
    h: &Header<'_>,
    report: &mut Report,
    prev_last_decimals: &mut Option<usize>,
    line: &Line<'_>,
    toks: &[(u64, &str)],
    meta: &mut CaptureMeta,
) {
    let last_decimals = toks.last().map(|(_, t)| decimals(t));
    let reference = prev_last_decimals.or_else(|| toks.get(1).map(|(_, t)| decimals(t)));
    if line.cut && last_decimals != reference {
        meta.warn(CUT_LINE, Some(line.loc(1)));
        return;
    }
    let n = h.cols.len();
    if toks.len() < n {
        meta.warn(
            "skipped a device line with fewer values than its header (cut short?)",
            Some(line.loc(1)),
        );
        return;
    }
    // A device name with spaces (`-j LABEL`) takes the extra tokens.
    let extra = toks.len() - n;
    let (name_toks, value_toks) = if h.device_last {
        let (v, d) = toks.split_at(n - 1);
        (d, v)
    } else {
        let (d, v) = toks.split_at(extra + 1);
        (d, v)
    };
    let joined;
    let name = match name_toks {
        [(_, one)] => *one,
        _ => {
            joined = name_toks.iter().map(|(_, t)| *t).collect::<Vec<_>>().join(" ");
            joined.as_str()
        }
    };
    let group = match (h.device_last, name_toks.first()) {
        // `-g` groups print their name with a leading space.
        (false, _) => line.text.starts_with(' '),
        (true, Some((col, _))) => {
            let before: Vec<char> =
                line.text.chars().take((*col as usize).saturating_sub(1)).collect();
            before.len() >= 2 && before.iter().rev().take(2).all(|c| *c == ' ')
        }
        (true, None) => false,
    };
    if name.is_empty() {
        return;
    }
    if !report.cumulative && cumulative_totals(h, value_toks) {
        report.cumulative = true;
    }
    let device = report.device_mut(name, group);
    for ((name_col, col), (c, tok)) in h.cols.iter().flatten().zip(value_toks) {
        // A column not kept only needs to be a number: digits[.digits] certainly is.
        if !matches!(col, Column::Metric { .. }) && columns::is_plain_decimal(tok) {
            continue;
        }
        let Some(num) = columns::parse_number(tok) else {
            meta.warn(
                format!("skipped an unreadable value in column {name_col}"),
                Some(line.loc(*c)),
            );
            continue;
        };
        match columns::convert(*col, num) {
            Ok(Some(v)) => device.values.push(v),
            Ok(None) => {}
            Err(why) => {
                meta.warn(format!("dropped {why} in column {name_col}"), Some(line.loc(*c)))
            }
        }
    }
    *prev_last_decimals = last_decimals;
}

/// Whether a basic-layout line's totals (`kB_read`, `kB_wrtn`, ...) hold more than ten
/// minutes of its rates (`kB_read/s`, ...): a later report's totals are one interval's, the
/// first report's everything since boot.
fn cumulative_totals(h: &Header<'_>, values: &[(u64, &str)]) -> bool {
    let names: Vec<&str> = h.cols.iter().flatten().map(|(n, _)| *n).collect();
    let value = |name: &str| {
        let i = names.iter().position(|n| *n == name)?;
        values
            .get(i)
            .and_then(|(_, t)| columns::parse_number(t))
            .map(|n| n.value * n.suffix_bytes.unwrap_or(1.0))
    };
    names.iter().filter(|n| !n.ends_with("/s")).any(|total| {
        let Some(rate_name) = ["_read", "_wrtn"]
            .iter()
            .find(|suffix| total.ends_with(*suffix))
            .map(|_| format!("{total}/s"))
        else {
            return false;
        };
        match (value(total), value(&rate_name)) {
            (Some(t), Some(r)) => t > 0.0 && t > r * 600.0,
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_columns() {
        assert_eq!(tokens("  ab c\td"), vec![(3, "ab"), (6, "c"), (8, "d")]);
        assert!(tokens("   ").is_empty());
    }

    proptest::proptest! {
        /// Whitespace masks find the tokens a char at a time finds, for every kind of ASCII
        /// whitespace and every length around the 8- and 64-byte blocks.
        #[test]
        fn ascii_tokens_equal_char_tokens(s in "[ \t\n\x0B\x0C\r\x1Ca-z0-9.%/:!~\x7F\x00]{0,200}") {
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            ascii_tokens(&s, &mut fast);
            char_tokens(&s, &mut slow);
            proptest::prop_assert_eq!(fast, slow);
        }
    }

    #[test]
    fn banner_and_prefixes() {
        let b = banner("Linux 6.18.44-fc-v445 (vm) \t11/21/26 \t_x86_64_\t(2 CPU)");
        assert_eq!(b.map(|b| b.0), Some(Some("vm".to_owned())));
        assert!(banner("Device            r/s     rkB/s").is_none());
        assert!(banner("avg-cpu:  %user   %nice").is_none());
        assert_eq!(pdsh_prefix("vm1: Device r/s"), Some(("vm1", "Device r/s")));
        assert_eq!(pdsh_prefix("vm1:"), Some(("vm1", "")));
        assert_eq!(pdsh_prefix("Device:  rrqm/s"), None);
        assert_eq!(pdsh_prefix("avg-cpu:  %user"), None);
        assert_eq!(pdsh_prefix("11/21/26 22:47:32"), None);
        assert_eq!(pdsh_prefix("2026-11-21T22:47:32+0000"), None);
    }
}
