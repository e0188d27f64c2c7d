//! The sar text reader (see the module doc of [`super`]).

use advisor_model::{CaptureMeta, Location, Metric, RawCapture, Table, TargetKind};
use chrono::{NaiveDate, NaiveDateTime, NaiveTime, Timelike};

use crate::IngestError;
use crate::iostat::columns::{self, Column};

/// sar's default interval (`sa1` from cron every 10 minutes).
const COARSE_S: f64 = 60.0;

/// Whether text looks like sar: a line `HH:MM:SS [AM|PM] <header>` naming a sar section
/// (`DEV`, `CPU`, `tps` ...), or any header of sar's column names followed by a line of data
/// at a time of day (`sar -n TCP,ETCP`: `active/s passive/s iseg/s oseg/s`).
pub(crate) fn is_sar(text: &str) -> bool {
    let lines: Vec<&str> = text.lines().take(400).collect();
    lines.iter().enumerate().any(|(i, l)| {
        let toks: Vec<&str> = l.split_whitespace().collect();
        let Some((_, rest)) = split_time(&toks) else { return false };
        if rest
            .iter()
            .any(|t| matches!(*t, "DEV" | "CPU" | "IFACE" | "tps" | "%user" | "kbmemfree"))
        {
            return true;
        }
        is_header(rest)
            && lines[i + 1..].iter().find(|n| !n.trim().is_empty()).is_some_and(|n| {
                let toks: Vec<&str> = n.split_whitespace().collect();
                split_time(&toks).is_some_and(|(_, r)| {
                    r.len() == rest.len() && r.iter().any(|t| columns::parse_number(t).is_some())
                })
            })
    })
}

/// A line of sar column names after the time: every name sar's sections use is a word of
/// letters (`DEV`, `runq-sz`, `ldavg-1`, `%scpu-10`) and at least one is a rate (`/s`), a
/// share (`%`), an upper-case key column (`CPU`, `IFACE`, `TTY`, `FILESYSTEM`) or one of
/// the few others (sysstat's `activity.c`, the `hdr_line` of each activity).
fn is_header(toks: &[&str]) -> bool {
    const OTHERS: [&str; 8] =
        ["dentunusd", "runq-sz", "totsck", "tcp6sck", "kbhugfree", "kbswpfree", "MHz", "manufact"];
    toks.len() >= 2
        && toks.iter().all(|t| {
            t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '%')
                && t.chars().all(|c| c.is_ascii_alphanumeric() || "%/_-.:".contains(c))
        })
        && toks.iter().any(|t| {
            t.contains("/s")
                || t.starts_with('%')
                || (t.len() >= 2 && t.chars().all(|c| c.is_ascii_uppercase()))
                || OTHERS.contains(t)
        })
}

/// The time at the start of a line's tokens, and the tokens after it.
fn split_time<'t, 'a>(toks: &'t [&'a str]) -> Option<(NaiveTime, &'t [&'a str])> {
    let first = toks.first()?;
    let t = NaiveTime::parse_from_str(first, "%H:%M:%S").ok()?;
    match toks.get(1).copied() {
        Some(ap @ ("AM" | "PM")) => {
            let h = t.hour();
            if !(1..=12).contains(&h) {
                return None;
            }
            let h24 = match (ap, h) {
                ("AM", 12) => 0,
                ("AM", h) => h,
                ("PM", 12) => 12,
                (_, h) => h + 12,
            };
            Some((t.with_hour(h24)?, toks.get(2..).unwrap_or(&[])))
        }
        _ => Some((t, toks.get(1..).unwrap_or(&[]))),
    }
}

/// Old sar names iostat never printed.
pub(super) fn classify(name: &str) -> Column {
    let sector = |metric| Column::Metric {
        metric,
        factor: 512.0 / (1024.0 * 1024.0),
        unit_bytes: Some(512.0),
    };
    match name {
        "rd_sec/s" => sector(Metric::ReadMbps),
        "wr_sec/s" => sector(Metric::WriteMbps),
        "DEV" => Column::Ignored,
        _ => columns::classify(name),
    }
}

/// Moves the date to the next day when the time goes back (midnight passed).
fn roll(date: &mut Option<NaiveDate>, last: &mut Option<NaiveTime>, time: NaiveTime) {
    if let Some(prev) = *last
        && time < prev
        && let Some(d) = *date
    {
        *date = d.succ_opt();
    }
    *last = Some(time);
}

/// The sysstat generation of a `DEV` header, for `meta.version`.
fn layout(names: &[&str]) -> &'static str {
    if names.contains(&"rd_sec/s") {
        "sysstat <= 11 sar -d layout (rd_sec/s, wr_sec/s in 512-byte sectors, avgrq-sz)"
    } else {
        "sysstat 12+ sar -d layout (rkB/s, wkB/s, areq-sz, aqu-sz)"
    }
}

enum Section {
    Other,
    Dev { cols: Vec<Column>, dev: usize },
    Cpu { idle: Option<usize>, cpu: usize },
}

/// The banner: `Linux 6.1 (host) \t11/24/26 \t_x86_64_\t(2 CPU)`.
fn banner(line: &str) -> Option<(Option<String>, Option<NaiveDate>)> {
    let t = line.trim();
    if !t.starts_with("Linux") || !t.contains('(') {
        return None;
    }
    let open = t.find('(')?;
    let close = open + t.get(open..)?.find(')')?;
    let host = t.get(open + 1..close).map(str::trim).filter(|h| !h.is_empty()).map(str::to_owned);
    let date = t.get(close + 1..)?.split_whitespace().find_map(|tok| {
        ["%m/%d/%y", "%m/%d/%Y", "%Y-%m-%d", "%d/%m/%Y", "%d.%m.%Y"]
            .iter()
            .find_map(|f| NaiveDate::parse_from_str(tok, f).ok())
    });
    Some((host, date))
}

pub(crate) fn read(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    let mut meta = CaptureMeta::new(super::FORMAT);
    let mut table = Table::default();
    let mut host: Option<String> = None;
    let mut date: Option<NaiveDate> = None;
    let mut last: Option<NaiveTime> = None;
    let mut section = Section::Other;
    let mut times: Vec<i64> = Vec::new();
    let mut restarts = 0usize;
    // The banner's date: each section of `sar -A` starts again at the file's first time.
    let mut day: Option<NaiveDate> = None;
    let mut after_restart = false;
    // The time of the first header after the banner: a header at that time starts another
    // section of `sar -A` (same day again); any other header continues the timeline (live
    // `sar 1` repeats the header every interval, across midnight too).
    let mut start: Option<NaiveTime> = None;
    let mut ignored: Vec<String> = Vec::new();
    // Sections that are not read, for the refusal: (line, their column names).
    let mut others: Vec<(u64, String)> = Vec::new();
    let mut cpu_header: Option<u64> = None;
    let mut dev_rows = 0usize;
    // The `Average:` rows, read apart: a file holding only them is read from them.
    let mut avg = Table::default();
    let mut avg_section = Section::Other;
    let mut avg_dev_rows = 0usize;
    let mut avg_warnings = Vec::new();
    // Each device report's header time and whether its rows carried that same time (the
    // one report `sar -d 0` prints: the averages since boot).
    let mut dev_reports = 0usize;
    let mut report_time: Option<NaiveTime> = None;
    let mut same_time = true;
    for (i, line) in text.lines().enumerate() {
        advisor_model::work::checkpoint_every(i);
        let no = i as u64 + 1;
        if let Some((h, d)) = banner(line) {
            if let Some(h) = &h {
                meta.add_host(h);
            }
            host = h;
            date = d;
            day = d;
            after_restart = false;
            start = None;
            last = None;
            section = Section::Other;
            continue;
        }
        let toks: Vec<&str> = line.split_whitespace().collect();
        if toks.is_empty() {
            continue;
        }
        if toks.first().is_some_and(|t| t.starts_with("Average") || t.starts_with("Summary")) {
            let rest = &toks[1..];
            // `Average:` with a header (live sar repeats it) starts an average section; a
            // row without one averages the section above.
            let header_like = rest.iter().all(|t| columns::parse_number(t).is_none());
            if header_like {
                avg_section = section_of(rest);
            } else if matches!(avg_section, Section::Other) {
                avg_section = match &section {
                    Section::Dev { cols, dev } => Section::Dev { cols: cols.clone(), dev: *dev },
                    Section::Cpu { idle, cpu } => Section::Cpu { idle: *idle, cpu: *cpu },
                    Section::Other => Section::Other,
                };
            }
            if !header_like {
                // Their warnings count only if the averages are what is read.
                let before = meta.warnings.len();
                let row = push_row(
                    &mut meta,
                    &mut avg,
                    &avg_section,
                    rest,
                    line,
                    no,
                    None,
                    host.as_deref(),
                );
                avg_warnings.extend(meta.warnings.drain(before..));
                if row && matches!(avg_section, Section::Dev { .. }) {
                    avg_dev_rows += 1;
                }
            }
            continue;
        }
        let Some((time, rest)) = split_time(&toks) else {
            section = Section::Other;
            continue;
        };
        if rest.iter().any(|t| t.eq_ignore_ascii_case("RESTART")) {
            restarts += 1;
            after_restart = true;
            roll(&mut date, &mut last, time);
            section = Section::Other;
            continue;
        }
        let numeric = rest.iter().filter(|t| columns::parse_number(t).is_some()).count();
        if numeric == 0
            || rest.first().is_some_and(|t| *t == "DEV" || *t == "CPU")
                && !rest.iter().skip(1).any(|t| columns::parse_number(t).is_some())
        {
            // A header line: a new section starts on the banner's date, unless it follows a
            // restart marker (the same timeline goes on).
            if start.is_none() {
                start = Some(time);
            }
            if !after_restart && start == Some(time) {
                date = day;
                last = None;
            }
            after_restart = false;
            roll(&mut date, &mut last, time);
            section = section_of(rest);
            avg_section = Section::Other;
            match &section {
                Section::Dev { cols, .. } => {
                    for (t, c) in rest.iter().zip(cols) {
                        if *c == Column::Unknown && !ignored.iter().any(|x| x == t) {
                            ignored.push((*t).to_owned());
                        }
                    }
                    if meta.version.is_none() {
                        meta.version = Some(layout(rest).to_owned());
                    }
                    dev_reports += 1;
                    report_time = Some(time);
                }
                Section::Cpu { .. } => {
                    cpu_header.get_or_insert(no);
                }
                Section::Other => {
                    if others.len() < 8 {
                        others.push((no, rest.join(" ")));
                    }
                }
            }
            continue;
        }
        if matches!(section, Section::Other) {
            continue;
        }
        // A data line: its time, on the banner's date, rolling over at midnight.
        roll(&mut date, &mut last, time);
        let ms = date.map(|d| NaiveDateTime::new(d, time).and_utc().timestamp_millis());
        let ms = ms.or_else(|| Some((time - NaiveTime::MIN).num_milliseconds()));
        if let Some(m) = ms
            && times.last() != Some(&m)
        {
            times.push(m);
        }
        if matches!(section, Section::Dev { .. }) {
            if report_time != Some(time) {
                same_time = false;
            }
            if push_row(&mut meta, &mut table, &section, rest, line, no, ms, host.as_deref()) {
                dev_rows += 1;
            }
        } else {
            push_row(&mut meta, &mut table, &section, rest, line, no, ms, host.as_deref());
        }
    }
    let mut since_boot = None;
    if dev_rows == 0 && avg_dev_rows > 0 {
        // Only the averages: one sample without a time.
        table = avg;
        meta.warnings.extend(avg_warnings);
        meta.warn(
            "only the `Average:` rows hold device statistics: they are one average over the \
             whole capture, not a series, and are read as its only sample. Pass the whole \
             file (`LC_ALL=C sar -d -p -f /var/log/sa/saDD`), or capture a series with \
             `sar -d -p 1 60`",
            None,
        );
    } else if dev_rows == 0 {
        return Err(no_devices(file, &others, cpu_header.filter(|_| !table.is_empty())));
    } else if dev_reports == 1 && same_time && times.len() == 1 {
        // `sar -d 0`: the header and the rows carry one time, the averages since boot.
        since_boot = Some(table.clone());
        meta.warn(
            "only one report, at its header's own time: it is the average since boot \
             (`sar -d 0`), not a measurement over an interval; it is used as the only sample \
             (and also kept as the since-boot summary). Capture a series with \
             `sar -d -p 1 60`",
            None,
        );
    }
    meta.ignored = ignored;
    if date.is_none() {
        meta.notes.push(
            "no banner line with a date (`Linux ... (host) date`): times are of day only".into(),
        );
    }
    if restarts > 0 {
        meta.notes.push(format!(
            "{restarts} `LINUX RESTART` marker(s): the machine rebooted during the capture"
        ));
    }
    let mut diffs: Vec<i64> = times.windows(2).map(|w| w[1] - w[0]).filter(|d| *d > 0).collect();
    diffs.sort_unstable();
    if let Some(m) = diffs.get(diffs.len() / 2) {
        let s = *m as f64 / 1000.0;
        meta.interval_s = Some(s);
        if s >= COARSE_S {
            meta.notes.push(format!(
                "coarse interval ({s:.0} s; sar's daily files default to 600 s): each sample is an average \
                 over the interval, so short bursts and throttling at a cap are hidden; an \
                 average at 80% of a cap means load near the cap for most of the interval. \
                 Capture at 1 s (`sar -d -p -u 1` or `iostat -x -t 1`) to see throttling"
            ));
        }
    }
    Ok(RawCapture { meta, table, since_boot })
}

/// What a header line starts: the block-device section (`DEV`), CPU (`CPU` and `%idle`),
/// or another one, skipped.
fn section_of(rest: &[&str]) -> Section {
    if let Some(dev) = rest.iter().position(|t| *t == "DEV") {
        Section::Dev { cols: rest.iter().map(|t| classify(t)).collect(), dev }
    } else if let Some(cpu) = rest.iter().position(|t| *t == "CPU")
        && rest.contains(&"%idle")
    {
        Section::Cpu { idle: rest.iter().position(|t| *t == "%idle"), cpu }
    } else {
        Section::Other
    }
}

/// The refusal of a sar file without device statistics: it is sar, these are its sections
/// (the first one located), and the command that captures the disks.
fn no_devices(file: &str, others: &[(u64, String)], cpu: Option<u64>) -> IngestError {
    let mut held: Vec<String> =
        others.iter().take(3).map(|(no, cols)| format!("`{cols}` (line {no})")).collect();
    if others.len() > 3 {
        held.push(format!("{} more", others.len() - 3));
    }
    if let Some(no) = cpu {
        held.insert(0, format!("CPU (`%idle`, line {no})"));
    }
    let what = if held.is_empty() {
        "no section with data".to_owned()
    } else {
        format!("only {}", held.join(", "))
    };
    let first = others.first().map(|(no, _)| *no).into_iter().chain(cpu).min();
    let location = first.map(|no| Location::line(no, 1));
    IngestError::invalid(
        file,
        location,
        format!(
            "this is sar text, but it holds no block-device statistics (no `DEV` section \
             with data), {what}: capture the disks with `sar -d -p 1 60`, or convert the \
             day's file with `LC_ALL=C sar -d -p -f /var/log/sa/saDD` (or `sar -A`)"
        ),
    )
}

/// Reads one data line of a section into `table`; whether it gave a row. Skipped cells
/// and lines are warnings at their place.
#[allow(clippy::too_many_arguments)]
fn push_row(
    meta: &mut CaptureMeta,
    table: &mut Table,
    section: &Section,
    rest: &[&str],
    line: &str,
    no: u64,
    ms: Option<i64>,
    host: Option<&str>,
) -> bool {
    let col0 = |k: usize| -> u64 {
        // 1-based char column of the k-th token after the time.
        // A missing token is past the line's end (a cut line); tokens are slices of
        // `line`, so the offset is their distance from its start.
        let Some(tok) = rest.get(k).copied() else {
            return line.chars().count() as u64 + 1;
        };
        let off = (tok.as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
        line.get(..off).map_or(1, |s| s.chars().count() as u64 + 1)
    };
    match section {
        Section::Dev { cols, dev } => {
            let Some(name) = rest.get(*dev) else {
                meta.warn(
                    "skipped a device line without a device name",
                    Some(Location::line(no, 1)),
                );
                return false;
            };
            if rest.len() != cols.len() {
                meta.warn(
                    format!(
                        "skipped a device line of {} fields under a header of {}",
                        rest.len(),
                        cols.len()
                    ),
                    Some(Location::line(no, 1)),
                );
                return false;
            }
            let mut values = Vec::new();
            for (k, (tok, col)) in rest.iter().zip(cols).enumerate() {
                if k == *dev || !matches!(col, Column::Metric { .. }) {
                    continue;
                }
                let conv = columns::parse_number(tok)
                    .ok_or("not a number")
                    .and_then(|n| columns::convert(*col, n));
                match conv {
                    Ok(Some(v)) => values.push(v),
                    Ok(None) => {}
                    Err(why) => meta.warn(
                        format!("skipped `{tok}` of device {name}: {why}"),
                        Some(Location::line(no, col0(k))),
                    ),
                }
            }
            let t = meta.target_index(name, TargetKind::Device, host);
            table.push_row(t, ms, &values);
            true
        }
        Section::Cpu { idle, cpu } => {
            if rest.get(*cpu) != Some(&"all") {
                return false;
            }
            let Some(k) = *idle else { return false };
            match rest.get(k).and_then(|t| columns::parse_number(t)) {
                Some(n) if (0.0..=100.0).contains(&n.value) => {
                    let t = meta.target_index(host.unwrap_or("cpu"), TargetKind::Host, host);
                    table.push_row(t, ms, &[(Metric::CpuPct, 100.0 - n.value)]);
                    true
                }
                _ => {
                    meta.warn(
                        "skipped a CPU line whose %idle is not a percentage",
                        Some(Location::line(no, col0(k))),
                    );
                    false
                }
            }
        }
        Section::Other => false,
    }
}
