//! iostat text output.
//!
//! A file is a sequence of lines: the banner (`Linux 6.1 (host) \t 11/21/26 \t _x86_64_ \t
//! (2 CPU)`, may be missing), then reports. A report is an optional timestamp line (`-t`), an
//! optional `avg-cpu:` block and one or more device tables (several with `--pretty -x`, whose
//! r/ w/ d/ f/ sub-tables are merged back per device). A device header that repeats a column
//! already seen in the current report starts the next report, so reports are found whether
//! they are separated by one blank line, two, or none.

use advisor_model::{CaptureMeta, Format, Location, RawCapture};

use super::columns::{self, Column};
use super::time::{self, DateOrder};
use super::{Parsed, Report, Run, assemble};
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
    let mut meta = CaptureMeta::new(Format::IostatText);
    let lines = split_lines(text);
    if lines.iter().all(|l| l.text.trim().is_empty()) {
        return Err(IngestError::new(file, None, crate::ErrorKind::Empty));
    }
    let streams = demultiplex(&lines, &mut meta);
    let order = time::detect_order(lines.iter().map(|l| l.text));
    if order == DateOrder::DayFirst {
        meta.notes.push("dates are day-first (dd/mm/yy), as a non-US locale prints them".into());
    }
    let mut runs = Vec::new();
    let mut first_location = None;
    for (host, lines) in &streams {
        let mut p = StreamParser::new(host.as_deref(), order);
        for line in lines {
            p.line(line, &mut meta);
        }
        p.finish(&mut meta);
        if first_location.is_none() {
            first_location = p.first_location.clone();
        }
        if !p.banner_seen && p.runs.iter().any(|r| r.reports.len() > 1) {
            meta.notes.push(format!(
                "{}no banner line (`Linux ... (host) date`): the file may have been cut; its \
                 first report is still taken as the since-boot average",
                host.as_deref().map(|h| format!("{h}: ")).unwrap_or_default()
            ));
        }
        runs.extend(p.runs);
    }
    if streams.len() > 1 {
        meta.notes
            .push(format!("pdsh output: {} hosts, each read as its own iostat run", streams.len()));
    }
    let multi_runs = runs.iter().filter(|r| !r.reports.is_empty()).count();
    if multi_runs > streams.len() {
        meta.notes.push(format!(
            "{multi_runs} iostat runs (banner lines) in one file; each has its own since-boot report"
        ));
    }
    assemble(file, meta, Parsed { runs, first_location })
}

fn split_lines(text: &str) -> Vec<Line<'_>> {
    let ends_with_newline = text.ends_with('\n');
    let mut out: Vec<Line<'_>> = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| Line {
            no: i as u64 + 1,
            col0: 0,
            text: l.strip_suffix('\r').unwrap_or(l),
            cut: false,
        })
        .collect();
    if ends_with_newline {
        out.pop();
    } else if let Some(last) = out.last_mut() {
        last.cut = true;
    }
    out
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

/// Splits pdsh output (`host: line`, hosts interleaved) into one stream per host; other
/// files are one stream.
fn demultiplex<'a>(lines: &[Line<'a>], meta: &mut CaptureMeta) -> Vec<Stream<'a>> {
    let nonblank: Vec<&Line<'a>> = lines.iter().filter(|l| !l.text.trim().is_empty()).collect();
    let prefixed = nonblank.iter().filter(|l| pdsh_prefix(l.text).is_some()).count();
    if prefixed == 0 || prefixed * 10 < nonblank.len() * 8 {
        return vec![(None, lines.to_vec())];
    }
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

/// Whitespace-separated tokens with their 1-based character column.
fn tokens(s: &str) -> Vec<(u64, &str)> {
    let mut out = Vec::new();
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
    out
}

/// sysstat's banner: `Linux 5.15.0-1 (host) \t11/21/26 \t_x86_64_\t(8 CPU)`.
fn banner(line: &str) -> Option<(Option<String>, String)> {
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

const CUT_LINE: &str =
    "dropped the last line: it has no line end and stops mid-number (capture cut short)";

/// Digits after the decimal mark (`0.04` -> 2, `222.1k` -> 1, `7` -> 0).
fn decimals(tok: &str) -> usize {
    match tok.find(['.', ',']) {
        Some(i) => tok[i + 1..].bytes().take_while(u8::is_ascii_digit).count(),
        None => 0,
    }
}

/// A device table header: column names and where the device name sits.
#[derive(Debug, Clone)]
struct Header {
    /// Column names in order, the `Device` column included (as `None`).
    cols: Vec<Option<(String, Column)>>,
    device_last: bool,
}

fn device_header(toks: &[(u64, &str)]) -> Option<Header> {
    let is_dev = |t: &str| t == "Device" || t == "Device:";
    let first = toks.first()?.1;
    let last = toks.last()?.1;
    let device_last = if is_dev(first) {
        false
    } else if is_dev(last) {
        true
    } else {
        return None;
    };
    if toks.len() < 2 {
        return None;
    }
    let cols = toks
        .iter()
        .map(|(_, t)| (!is_dev(t)).then(|| ((*t).to_owned(), columns::classify(t))))
        .collect();
    Some(Header { cols, device_last })
}

#[derive(Debug)]
enum Mode {
    Idle,
    /// After `avg-cpu:`: the column names of the values line to come.
    Cpu(Vec<String>),
    Rows(Header),
}

struct StreamParser<'h> {
    host: Option<&'h str>,
    order: DateOrder,
    runs: Vec<Run>,
    run: Run,
    report: Report,
    /// Column names seen in the current report (a repeat starts the next report).
    report_cols: Vec<String>,
    mode: Mode,
    banner_seen: bool,
    first_location: Option<Location>,
    version_set: bool,
    /// Decimals of the last value of the previous row of the current table: a last line
    /// without a line end is kept only when it ends the same way (not cut mid-number).
    prev_last_decimals: Option<usize>,
}

impl<'h> StreamParser<'h> {
    fn new(host: Option<&'h str>, order: DateOrder) -> Self {
        let run = Run { host: host.map(str::to_owned), reports: Vec::new() };
        Self {
            host,
            order,
            runs: Vec::new(),
            run,
            report: Report::default(),
            report_cols: Vec::new(),
            mode: Mode::Idle,
            banner_seen: false,
            first_location: None,
            version_set: false,
            prev_last_decimals: None,
        }
    }

    fn close_report(&mut self, meta: &mut CaptureMeta) {
        if !self.version_set && !self.report_cols.is_empty() {
            let names: Vec<&str> = self.report_cols.iter().map(String::as_str).collect();
            meta.version = Some(columns::layout(&names));
            self.version_set = true;
        }
        let r = std::mem::take(&mut self.report);
        self.report_cols.clear();
        if r.has_content() {
            self.run.reports.push(r);
        } else if r.time.is_some() {
            // A timestamp with nothing after it yet: keep it for the next block.
            self.report.time = r.time;
        }
    }

    fn close_run(&mut self, meta: &mut CaptureMeta) {
        self.close_report(meta);
        self.report = Report::default();
        let host = self.run.host.clone();
        let run = std::mem::replace(&mut self.run, Run { host, reports: Vec::new() });
        if !run.reports.is_empty() {
            self.runs.push(run);
        }
    }

    fn finish(&mut self, meta: &mut CaptureMeta) {
        self.close_run(meta);
    }

    fn line(&mut self, line: &Line<'_>, meta: &mut CaptureMeta) {
        let text = line.text;
        let t = text.trim();
        if t.is_empty() {
            self.mode = Mode::Idle;
            return;
        }
        let toks = tokens(text);
        if let Mode::Cpu(cols) = &self.mode {
            if toks.iter().all(|(_, v)| columns::parse_number(v).is_some()) {
                let cols = cols.clone();
                self.cpu_values(line, &cols, &toks, meta);
                self.mode = Mode::Idle;
                return;
            }
            self.mode = Mode::Idle;
        }
        if let Some((host, words)) = banner(text) {
            if self.run.reports.iter().any(Report::has_content) || self.report.has_content() {
                self.close_run(meta);
            }
            self.banner_seen = true;
            if self.host.is_none()
                && let Some(h) = host
            {
                self.run.host = Some(h);
            }
            let note = format!("banner: {words}");
            if !meta.notes.contains(&note) {
                meta.notes.push(note);
            }
            self.mode = Mode::Idle;
            return;
        }
        if let Some(stamp) = time::parse_timestamp(t, self.order) {
            self.close_report(meta);
            self.report.time = Some(stamp);
            self.mode = Mode::Idle;
            return;
        }
        if t.starts_with("avg-cpu:") {
            if self.report.cpu_pct.is_some() || !self.report.devices.is_empty() {
                self.close_report(meta);
            }
            self.report.seen = true;
            self.first_location.get_or_insert_with(|| line.loc(1));
            self.mode = Mode::Cpu(toks.iter().skip(1).map(|(_, v)| (*v).to_owned()).collect());
            return;
        }
        if let Some(h) = device_header(&toks) {
            self.header(line, h, meta);
            return;
        }
        if let Mode::Rows(h) = &self.mode {
            let h = h.clone();
            self.row(line, &h, &toks, meta);
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
        cols: &[String],
        toks: &[(u64, &str)],
        meta: &mut CaptureMeta,
    ) {
        for c in cols {
            if c != "%idle" {
                meta.ignore(format!("avg-cpu {c}"));
            }
        }
        if line.cut
            && toks.first().map(|(_, t)| decimals(t)) != toks.last().map(|(_, t)| decimals(t))
        {
            meta.warn(CUT_LINE, Some(line.loc(1)));
            return;
        }
        let Some(idx) = cols.iter().position(|c| c == "%idle") else {
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

    fn header(&mut self, line: &Line<'_>, h: Header, meta: &mut CaptureMeta) {
        let names: Vec<&str> = h.cols.iter().flatten().map(|(n, _)| n.as_str()).collect();
        if names.iter().any(|n| self.report_cols.iter().any(|c| c == n)) {
            self.close_report(meta);
        }
        self.report_cols.extend(names.iter().map(|n| (*n).to_owned()));
        self.report.seen = true;
        self.first_location.get_or_insert_with(|| line.loc(1));
        for (name, col) in h.cols.iter().flatten() {
            match col {
                Column::Metric { .. } => {}
                Column::Ignored => meta.ignore(name.clone()),
                Column::Unknown => meta.ignore(format!("{name} (unknown column)")),
            }
        }
        if h.device_last {
            let note = "--pretty layout: device name last; sub-tables merged per device";
            if !meta.notes.iter().any(|n| n == note) {
                meta.notes.push(note.to_owned());
            }
        }
        self.prev_last_decimals = None;
        self.mode = Mode::Rows(h);
    }

    fn row(&mut self, line: &Line<'_>, h: &Header, toks: &[(u64, &str)], meta: &mut CaptureMeta) {
        let last_decimals = toks.last().map(|(_, t)| decimals(t));
        let reference = self.prev_last_decimals.or_else(|| toks.get(1).map(|(_, t)| decimals(t)));
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
        let name = name_toks.iter().map(|(_, t)| *t).collect::<Vec<_>>().join(" ");
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
        let value_cols = h.cols.iter().flatten();
        let mut values = Vec::new();
        for ((name_col, col), (c, tok)) in value_cols.zip(value_toks) {
            let Some(num) = columns::parse_number(tok) else {
                meta.warn(
                    format!("skipped an unreadable value in column {name_col}"),
                    Some(line.loc(*c)),
                );
                continue;
            };
            match columns::convert(*col, num) {
                Ok(Some(v)) => values.push(v),
                Ok(None) => {}
                Err(why) => {
                    meta.warn(format!("dropped {why} in column {name_col}"), Some(line.loc(*c)))
                }
            }
        }
        self.prev_last_decimals = last_decimals;
        self.report.device_mut(&name, group).values.extend(values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_columns() {
        assert_eq!(tokens("  ab c\td"), vec![(3, "ab"), (6, "c"), (8, "d")]);
        assert!(tokens("   ").is_empty());
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
