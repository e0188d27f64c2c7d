//! The counter map: ENGLISH object and counter names to canonical metrics with their unit
//! conversion, and the plan that turns a header into "column i is metric m of target t".
//!
//! Localized names are translated into English once per header from the tables in
//! [`names`] (the repository's `counters/` folder and `--counters FILE`); names no table
//! holds are never guessed: they are listed as ignored with one warning naming their
//! language.

pub mod names;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use names::Language;

use advisor_model::{CaptureMeta, Location, Metric, Target, TargetKind};

use super::path::{CounterPath, parse_counter_path};

const MIB: f64 = 1024.0 * 1024.0;

/// How a counter's value becomes the canonical metric's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Convert {
    /// `value * factor` (bytes/s to MiB/s: 1/1048576; seconds to ms: 1000).
    Scale(f64),
    /// `% Idle Time` to busy percent: `100 - idle`, idle clamped to 0..=100 first (some
    /// drivers report idle above 100).
    BusyFromIdle,
    /// `% Disk Time` to busy percent, capped at 100 (it is a queue-weighted figure that
    /// runs past 100 on busy disks).
    BusyFromDiskTime,
}

impl Convert {
    /// The canonical value of one source value.
    pub fn apply(self, v: f64) -> f64 {
        match self {
            Self::Scale(f) => v * f,
            Self::BusyFromIdle => 100.0 - v.clamp(0.0, 100.0),
            Self::BusyFromDiskTime => v.min(100.0),
        }
    }
}

/// An English counter recognised for a disk object (PhysicalDisk, LogicalDisk): the
/// metric, the conversion, and a rank (lower wins when two counters give one metric).
pub fn disk_counter(counter: &str) -> Option<(Metric, Convert, u8)> {
    use Metric::*;
    let c = counter.trim();
    let is = |name: &str| c.eq_ignore_ascii_case(name);
    let one = Convert::Scale(1.0);
    let bytes = Convert::Scale(1.0 / MIB);
    let secs = Convert::Scale(1000.0);
    let kib = Convert::Scale(1.0 / 1024.0);
    Some(if is("Disk Reads/sec") {
        (ReadIops, one, 0)
    } else if is("Disk Writes/sec") {
        (WriteIops, one, 0)
    } else if is("Disk Transfers/sec") {
        (Iops, one, 0)
    } else if is("Disk Read Bytes/sec") {
        (ReadMbps, bytes, 0)
    } else if is("Disk Write Bytes/sec") {
        (WriteMbps, bytes, 0)
    } else if is("Disk Bytes/sec") {
        (Mbps, bytes, 0)
    } else if is("Avg. Disk sec/Read") {
        (ReadLatencyMs, secs, 0)
    } else if is("Avg. Disk sec/Write") {
        (WriteLatencyMs, secs, 0)
    } else if is("Avg. Disk sec/Transfer") {
        (LatencyMs, secs, 0)
    } else if is("Avg. Disk Bytes/Read") {
        (ReadIoKib, kib, 0)
    } else if is("Avg. Disk Bytes/Write") {
        (WriteIoKib, kib, 0)
    } else if is("Avg. Disk Bytes/Transfer") {
        (IoKib, kib, 0)
    } else if is("Avg. Disk Queue Length") {
        (QueueDepth, one, 0)
    } else if is("Avg. Disk Read Queue Length") {
        (ReadQueueDepth, one, 0)
    } else if is("Avg. Disk Write Queue Length") {
        (WriteQueueDepth, one, 0)
    } else if is("Current Disk Queue Length") {
        // An instant value: only when no average queue is captured (see `plan`).
        (QueueDepth, one, 2)
    } else if is("% Idle Time") {
        (BusyPct, Convert::BusyFromIdle, 0)
    } else if is("% Disk Time") {
        (BusyPct, Convert::BusyFromDiskTime, 1)
    } else {
        return None;
    })
}

/// An English Memory counter: available memory, best precision first.
pub fn memory_counter(counter: &str) -> Option<(Metric, Convert, u8)> {
    let c = counter.trim();
    if c.eq_ignore_ascii_case("Available Bytes") {
        Some((Metric::AvailableMemoryMib, Convert::Scale(1.0 / MIB), 0))
    } else if c.eq_ignore_ascii_case("Available KBytes") {
        Some((Metric::AvailableMemoryMib, Convert::Scale(1.0 / 1024.0), 1))
    } else if c.eq_ignore_ascii_case("Available MBytes") {
        Some((Metric::AvailableMemoryMib, Convert::Scale(1.0), 2))
    } else if c.eq_ignore_ascii_case("Pages/sec") {
        Some((Metric::PagesPerSec, Convert::Scale(1.0), 0))
    } else {
        None
    }
}

/// The volume (`C:`) of a Paging File instance: `\??\C:\pagefile.sys` as Windows writes
/// it, or `C:\pagefile.sys`. `None` for `_Total` (the sum over paging files, which says
/// nothing about where they are) and for anything without a drive letter.
pub fn pagefile_volume(instance: &str) -> Option<String> {
    let i = instance.trim();
    let i = i.strip_prefix(r"\??\").or_else(|| i.strip_prefix(r"\\?\")).unwrap_or(i);
    let mut chars = i.chars();
    match (chars.next(), chars.next()) {
        (Some(letter), Some(':')) if letter.is_ascii_alphabetic() => {
            Some(format!("{}:", letter.to_ascii_uppercase()))
        }
        _ => None,
    }
}

/// The objects this map knows, in English.
fn known_object(object: &str) -> Option<Object> {
    let o = object.trim();
    let is = |name: &str| o.eq_ignore_ascii_case(name);
    if is("PhysicalDisk") {
        Some(Object::PhysicalDisk)
    } else if is("LogicalDisk") {
        Some(Object::LogicalDisk)
    } else if is("Processor") || is("Processor Information") {
        Some(Object::Processor)
    } else if is("Memory") {
        Some(Object::Memory)
    } else if is("Paging File") {
        Some(Object::PagingFile)
    } else {
        None
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Object {
    PhysicalDisk,
    LogicalDisk,
    Processor,
    Memory,
    PagingFile,
}

/// The language counter names seem to be in when they are not English: from the script
/// (Cyrillic, Han, kana, Hangul) or from well-known translated object names.
pub fn localized_language(object: &str, counter: &str) -> Option<&'static str> {
    localized_script(object, counter)
}

/// A localized name's language: a well-known one, or a table's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lang {
    Known(&'static str),
    /// The language of a counter table (its English name).
    Table(String),
}

impl Lang {
    fn name(&self) -> &str {
        match self {
            Self::Known(n) => n,
            Self::Table(n) => n,
        }
    }
}

/// [`localized_language`], looking first in the counter tables for the object's name.
pub fn localized_language_in(
    object: &str,
    counter: &str,
    languages: &[Arc<Language>],
) -> Option<Lang> {
    if let Some(name) = names::language_of_object(object, languages) {
        return Some(Lang::Table(name));
    }
    localized_script(object, counter).map(Lang::Known)
}

fn localized_script(object: &str, counter: &str) -> Option<&'static str> {
    let text = format!("{object} {counter}");
    let has = |range: std::ops::RangeInclusive<char>| text.chars().any(|c| range.contains(&c));
    if has('\u{0400}'..='\u{04FF}') {
        return Some("Russian");
    }
    if has('\u{3040}'..='\u{30FF}') {
        return Some("Japanese");
    }
    if has('\u{AC00}'..='\u{D7AF}') {
        return Some("Korean");
    }
    if has('\u{4E00}'..='\u{9FFF}') {
        return Some("Chinese");
    }
    let o = object.trim().to_lowercase();
    const WORDS: &[(&str, &str)] = &[
        ("physikalischer datenträger", "German"),
        ("logischer datenträger", "German"),
        ("prozessor", "German"),
        ("prozessorinformationen", "German"),
        ("arbeitsspeicher", "German"),
        ("speicher", "German"),
        ("prozess", "German"),
        ("disque physique", "French"),
        ("disque logique", "French"),
        ("processeur", "French"),
        ("mémoire", "French"),
        ("processus", "French"),
        ("disco físico", "Spanish"),
        ("disco lógico", "Spanish"),
        ("procesador", "Spanish"),
        ("proceso", "Spanish"),
        ("disco fisico", "Italian"),
        ("disco logico", "Italian"),
        ("processore", "Italian"),
        ("disco físico", "Portuguese"),
        ("processador", "Portuguese"),
        ("memória", "Portuguese"),
    ];
    if let Some((_, lang)) = WORDS.iter().find(|(w, _)| *w == o) {
        return Some(lang);
    }
    text.chars().any(|c| c.is_alphabetic() && !c.is_ascii()).then_some("non-English")
}

/// One CSV column the reader uses.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedColumn {
    /// 0-based position in the CSV line (0 is the time stamp).
    pub index: usize,
    /// The header cell as written.
    pub header: String,
    /// Index into [`CaptureMeta::targets`].
    pub target: u32,
    pub metric: Metric,
    pub convert: Convert,
}

/// A candidate column before conflicts between counters are settled.
struct Candidate<'a> {
    index: usize,
    path: CounterPath<'a>,
    name: String,
    kind: TargetKind,
    metric: Metric,
    convert: Convert,
    rank: u8,
}

/// The target a disk instance or host-level counter belongs to.
fn disk_target(object: Object, instance: &str) -> (String, TargetKind) {
    let total = instance.trim().eq_ignore_ascii_case("_Total");
    match (object, total) {
        (Object::PhysicalDisk, true) => ("PhysicalDisk(_Total)".to_owned(), TargetKind::Aggregate),
        (Object::LogicalDisk, true) => ("LogicalDisk(_Total)".to_owned(), TargetKind::Aggregate),
        (Object::PhysicalDisk, false) => (instance.to_owned(), TargetKind::Disk),
        _ => (instance.to_owned(), TargetKind::Volume),
    }
}

/// Whether a processor instance is a NUMA node's total (`0,_Total`).
fn node_total(instance: &str) -> bool {
    instance
        .split_once(',')
        .is_some_and(|(node, rest)| rest == "_Total" && node.bytes().all(|b| b.is_ascii_digit()))
}

/// Turns the header cells into the columns to read, and records in `meta` the hosts,
/// targets, ignored counters, warnings and notes. `headers[0]` is the time column. Names
/// of other display languages are read with the shipped tables.
pub fn plan(headers: &[String], header_line: u64, meta: &mut CaptureMeta) -> Vec<PlannedColumn> {
    plan_with(headers, header_line, meta, names::shipped_tables())
}

/// [`plan`] with these counter tables (those of `--counters` before the shipped ones:
/// [`names::with_shipped`]).
pub fn plan_with(
    headers: &[String],
    header_line: u64,
    meta: &mut CaptureMeta,
    languages: &[Arc<Language>],
) -> Vec<PlannedColumn> {
    let english = names::translate(headers, languages);
    if let Some(lang) = &english.language {
        meta.notes.push(format!(
            "counter names are {} ({}): {} counter(s) read through the table {}",
            lang.name, lang.tag, english.translated, lang.origin
        ));
    }
    let mut scan = scan_headers(&english.headers, meta, languages);
    drop_numa_nodes(&mut scan.candidates, meta);
    let winners = settle(&scan.candidates);
    let (columns, fallback_queue, fallback_disk_time) =
        planned_columns(headers, &scan.candidates, &winners, meta);
    if fallback_queue {
        meta.notes.push(
            "queue_depth comes from Current Disk Queue Length where no Avg. Disk Queue Length \
             was captured: an instant value at each sample, not an average over the interval"
                .to_owned(),
        );
    }
    if fallback_disk_time {
        meta.notes.push(
            "busy_pct comes from % Disk Time (capped at 100) where no % Idle Time was captured"
                .to_owned(),
        );
    }
    warn_duplicates(&scan.duplicates, meta);
    if !scan.localized.is_empty() {
        meta.warn(
            localized_message(
                &scan.localized,
                columns.is_empty(),
                english.language.as_deref(),
                languages,
            ),
            Some(Location::line(header_line, 1)),
        );
    }
    if scan.not_paths > 0 {
        meta.warn(
            format!("{} header cell(s) are not PerfMon counter paths (\\\\HOST\\Object(Instance)\\Counter); ignored", scan.not_paths),
            Some(Location::line(header_line, 1)),
        );
    }
    columns
}

/// What the header cells are, one by one.
struct Scan<'a> {
    /// Counters advisor reads, each with the target and metric it would give.
    candidates: Vec<Candidate<'a>>,
    /// Cells that repeat an earlier cell: (index, cell).
    duplicates: Vec<(usize, &'a str)>,
    /// Counters of known objects under a localized name: (language, counter).
    localized: Vec<(Lang, String)>,
    /// Cells that are not counter paths.
    not_paths: usize,
}

fn scan_headers<'a>(
    headers: &'a [String],
    meta: &mut CaptureMeta,
    languages: &[Arc<Language>],
) -> Scan<'a> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut scan = Scan {
        candidates: Vec::new(),
        duplicates: Vec::new(),
        localized: Vec::new(),
        not_paths: 0,
    };
    for (index, header) in headers.iter().enumerate().skip(1) {
        let h = header.trim();
        if h.is_empty() {
            continue;
        }
        if seen.contains_key(h) {
            scan.duplicates.push((index, h));
            continue;
        }
        seen.insert(h, index);
        let Some(path) = parse_counter_path(h) else {
            scan.not_paths += 1;
            meta.ignore(h);
            continue;
        };
        if let Some(host) = path.host {
            meta.add_host(host);
        }
        let Some(object) = known_object(path.object) else {
            if let Some(lang) = localized_language_in(path.object, path.counter, languages) {
                scan.localized.push((lang, path.generic()));
            }
            meta.ignore(path.generic());
            continue;
        };
        match map_counter(object, &path) {
            Mapped::Column(name, kind, metric, convert, rank) => {
                scan.candidates.push(Candidate { index, path, name, kind, metric, convert, rank })
            }
            Mapped::Unread => meta.ignore(path.generic()),
            // Named with its instance: `Paging File(*)\% Usage` would read as if the
            // per-file usage were not used.
            Mapped::UnreadInstance => meta.ignore(path.short()),
        }
    }
    scan
}

/// What a counter of a known object gives.
enum Mapped {
    /// Target name and kind, metric, conversion, rank (the lowest wins a conflict).
    Column(String, TargetKind, Metric, Convert, u8),
    /// Not read.
    Unread,
    /// Not read, and listed with its instance.
    UnreadInstance,
}

fn map_counter(object: Object, path: &CounterPath<'_>) -> Mapped {
    let host_name = || path.host.unwrap_or("local").to_owned();
    let mapped = match object {
        Object::PhysicalDisk | Object::LogicalDisk => {
            match (path.instance, disk_counter(path.counter)) {
                (Some(inst), Some((metric, convert, rank))) if !inst.trim().is_empty() => {
                    let (name, kind) = disk_target(object, inst);
                    Some((name, kind, metric, convert, rank))
                }
                _ => None,
            }
        }
        Object::Processor => {
            let total = path.counter.trim().eq_ignore_ascii_case("% Processor Time");
            match path.instance.map(str::trim) {
                Some("_Total") if total => {
                    Some((host_name(), TargetKind::Host, Metric::CpuPct, Convert::Scale(1.0), 0))
                }
                Some(i) if total && node_total(i) => {
                    Some((host_name(), TargetKind::Host, Metric::CpuPct, Convert::Scale(1.0), 1))
                }
                _ => None,
            }
        }
        Object::Memory => memory_counter(path.counter)
            .map(|(metric, convert, rank)| (host_name(), TargetKind::Host, metric, convert, rank)),
        // A paging file's use belongs to the volume that holds it (the LogicalDisk
        // instance of the same drive), so that rules find it on the OS disk or the temp
        // disk. `% Usage Peak` (the peak since boot) and `_Total` are not used.
        Object::PagingFile => {
            let usage = path.counter.trim().eq_ignore_ascii_case("% Usage");
            if path.instance.is_some_and(|i| i.trim().eq_ignore_ascii_case("_Total")) {
                return Mapped::UnreadInstance;
            }
            match path.instance.and_then(pagefile_volume) {
                Some(volume) if usage => Some((
                    volume,
                    TargetKind::Volume,
                    Metric::PagefileUsagePct,
                    Convert::Scale(1.0),
                    0,
                )),
                _ => None,
            }
        }
    };
    match mapped {
        Some((name, kind, metric, convert, rank)) => {
            Mapped::Column(name, kind, metric, convert, rank)
        }
        None => Mapped::Unread,
    }
}

/// NUMA node totals stand for the machine only when there is a single node.
fn drop_numa_nodes(candidates: &mut Vec<Candidate<'_>>, meta: &mut CaptureMeta) {
    let mut nodes: HashMap<Option<&str>, Vec<&str>> = HashMap::new();
    for c in candidates.iter().filter(|c| c.metric == Metric::CpuPct && c.rank == 1) {
        let list = nodes.entry(c.path.host).or_default();
        let inst = c.path.instance.unwrap_or("");
        if !list.contains(&inst) {
            list.push(inst);
        }
    }
    candidates.retain(|c| {
        let keep = !(c.metric == Metric::CpuPct
            && c.rank == 1
            && nodes.get(&c.path.host).is_some_and(|n| n.len() > 1));
        if !keep {
            meta.ignore(c.path.generic());
        }
        keep
    });
}

/// The candidates read, in order: per (host, target, metric) the lowest rank wins, then
/// the first.
fn settle(candidates: &[Candidate<'_>]) -> Vec<usize> {
    // An instance whose average read and write queues are both captured has its average
    // total queue (their sum, derived later): the instant Current Disk Queue Length is
    // then not needed either.
    // Sets, not scans: a header can hold tens of thousands of counters (a 3 MB line).
    let with = |m: Metric| -> HashSet<(Option<&str>, &str)> {
        candidates
            .iter()
            .filter(|c| c.metric == m)
            .map(|c| (c.path.host, c.name.as_str()))
            .collect()
    };
    let (read_queue, write_queue) = (with(Metric::ReadQueueDepth), with(Metric::WriteQueueDepth));
    let avg_parts: Vec<bool> = candidates
        .iter()
        .map(|c| {
            let key = (c.path.host, c.name.as_str());
            read_queue.contains(&key) && write_queue.contains(&key)
        })
        .collect();

    let mut best: HashMap<(Option<&str>, &str, TargetKind, Metric), usize> = HashMap::new();
    for (i, c) in candidates.iter().enumerate() {
        if c.rank == 2 && avg_parts[i] {
            continue;
        }
        let key = (c.path.host, c.name.as_str(), c.kind, c.metric);
        match best.get(&key) {
            Some(&j) if candidates[j].rank <= c.rank => {}
            _ => {
                best.insert(key, i);
            }
        }
    }
    let mut winners: Vec<usize> = best.values().copied().collect();
    winners.sort_unstable();
    winners
}

/// The columns of the winning candidates (the others are recorded as ignored), and
/// whether a queue depth or busy_pct came from a fallback counter.
fn planned_columns(
    headers: &[String],
    candidates: &[Candidate<'_>],
    winners: &[usize],
    meta: &mut CaptureMeta,
) -> (Vec<PlannedColumn>, bool, bool) {
    let mut fallback_queue = false;
    let mut fallback_disk_time = false;
    let mut columns = Vec::with_capacity(winners.len());
    // Target indexes by (name, kind, host), so that many targets stay linear
    // (`CaptureMeta::target_index` scans the list).
    let mut target_of: HashMap<(String, TargetKind, Option<String>), u32> = meta
        .targets
        .iter()
        .enumerate()
        .map(|(i, t)| ((t.name.clone(), t.kind, t.host.clone()), i as u32))
        .collect();
    for (i, c) in candidates.iter().enumerate() {
        if winners.binary_search(&i).is_err() {
            meta.ignore(c.path.generic());
            continue;
        }
        if c.metric == Metric::QueueDepth && c.rank == 2 {
            fallback_queue = true;
        }
        if c.metric == Metric::BusyPct && c.convert == Convert::BusyFromDiskTime {
            fallback_disk_time = true;
        }
        let key = (c.name.clone(), c.kind, c.path.host.map(str::to_owned));
        let target = *target_of.entry(key).or_insert_with(|| {
            meta.targets.push(Target::new(c.name.as_str(), c.kind, c.path.host.map(str::to_owned)));
            (meta.targets.len() - 1) as u32
        });
        columns.push(PlannedColumn {
            index: c.index,
            header: headers.get(c.index).cloned().unwrap_or_default(),
            target,
            metric: c.metric,
            convert: c.convert,
        });
    }
    (columns, fallback_queue, fallback_disk_time)
}

/// One warning for the header cells that repeat.
fn warn_duplicates(duplicates: &[(usize, &str)], meta: &mut CaptureMeta) {
    let Some(&(index, name)) = duplicates.first() else { return };
    let mut names: Vec<String> = Vec::new();
    for (_, d) in duplicates {
        let short = parse_counter_path(d).map_or_else(|| (*d).to_owned(), |p| p.short());
        if !names.contains(&short) {
            names.push(short);
        }
    }
    let shown: Vec<String> = names.iter().take(8).map(|n| format!("`{n}`")).collect();
    let more =
        if names.len() > 8 { format!(" and {} more", names.len() - 8) } else { String::new() };
    meta.warn(
        format!(
            "{} column name(s) repeat in the header ({}{more}): the first column of each \
             name is used, the repeats (first at column {}) are ignored",
            duplicates.len(),
            shown.join(", "),
            index + 1
        ),
        Some(Location::column(name)),
    );
}

/// The one message about localized counter names: those of a second language beside the
/// one read (two collectors merged), of a language no table holds, or of objects advisor
/// does not read.
pub fn localized_message(
    localized: &[(Lang, String)],
    nothing_used: bool,
    read_in: Option<&Language>,
    languages: &[Arc<Language>],
) -> String {
    let mut langs: Vec<&str> = localized.iter().map(|(l, _)| l.name()).collect();
    langs.sort_unstable();
    langs.dedup();
    let mut generic: Vec<&str> = localized.iter().map(|(_, g)| g.as_str()).collect();
    generic.sort_unstable();
    generic.dedup();
    let example = localized.first().map(|(_, g)| g.as_str()).unwrap_or_default();
    let outcome =
        if nothing_used { "nothing in this file could be used" } else { "these were ignored" };
    let head = format!(
        "counter names look localized ({}; {} counter(s), e.g. `{example}`)",
        langs.join(", "),
        generic.len()
    );
    let mut tabled: Vec<&str> = languages.iter().map(|l| l.name.as_str()).collect();
    tabled.sort_unstable();
    tabled.dedup();
    // A language with a table: its object names are in it, or its script or words name it.
    let has_table = |l: &Lang| match l {
        Lang::Table(_) => true,
        Lang::Known(name) => tabled.iter().any(|t| t.starts_with(name)),
    };
    let read_something = read_in.is_some() || !nothing_used;
    if read_something && localized.iter().any(|(l, _)| matches!(l, Lang::Table(_))) {
        let read_name = read_in.map_or("English", |l| l.name.as_str());
        return format!(
            "{head}: the file mixes counter names of two display languages (captures of \
             several servers merged?) and is read in {read_name} only, so {outcome}. Export \
             each server's capture to its own CSV (relog SERVER.blg -f csv -o SERVER.csv) and \
             pass the files together: each is read in its own language"
        );
    }
    if localized.iter().all(|(l, _)| has_table(l)) {
        return format!(
            "{head}: none of them is a counter advisor reads (PhysicalDisk, LogicalDisk, \
             Processor(_Total)\\% Processor Time, Memory\\Available MBytes, in English or \
             in the {} table), so {outcome}. Capture the disk, processor and memory counters \
             (collect/collect-windows.ps1 lists them)",
            langs.join(", ")
        );
    }
    format!(
        "{head}: advisor's counter tables ({}) do not hold these names, so {outcome}. Add the \
         language's names with --counters FILE (see counters/README.md), or capture again \
         with English counter names: run typeperf or the Performance Monitor data collector \
         from an account whose Windows display language is English (relog cannot translate \
         counter names)",
        std::iter::once("English").chain(tabled).collect::<Vec<_>>().join(", ")
    )
}

#[cfg(test)]
mod tests;
