//! sysstat `iostat` readers: text (every column layout since sysstat 9) and `-o JSON`.
//!
//! Both readers read the input as runs of [`Report`]s (one run per host and per banner: a
//! file can hold several hosts via pdsh, or several appended iostat runs) and give them to
//! an [`Assembler`] as they go, which builds the [`RawCapture`]: the first report of each
//! run is the average since boot and goes to `since_boot`, the others form the time
//! series. The JSON reader is one module folder: `json/values.rs` (JSON values without a
//! tree of the document), `json/report.rs` (one report), `json/document.rs` (the
//! document's layout: hosts and their reports), `json/mod.rs` (text around the document,
//! a document cut short).
//!
//! Columns are mapped by name ([`columns::classify`]), never by position. Output units:
//! IOPS, MiB/s (sysstat's kB and MB are 1024-based), ms, KiB, IOs, percent.

pub(crate) mod columns;
mod json;
mod text;
mod time;

use std::borrow::Cow;

use advisor_model::{CaptureMeta, Format, Location, Metric, RawCapture, Table, TargetKind};

use crate::IngestError;
use crate::formats::{CaptureFormat, Head, Read, Sniff};
use time::Stamp;

pub const TEXT: Format = Format::new("iostat-text", "iostat text (iostat -x -t 1)", false);
pub const JSON: Format = Format::new("iostat-json", "iostat JSON (iostat -x -t -o JSON 1)", false);

/// sysstat `iostat` text output.
#[derive(Debug)]
pub struct IostatText;

impl CaptureFormat for IostatText {
    fn format(&self) -> Format {
        TEXT
    }

    fn supported(&self) -> Option<&'static str> {
        Some("iostat text (iostat -x -t 1)")
    }

    /// A `Device` header with iostat's columns, or an `avg-cpu:` block: a loose signature,
    /// so the file is iostat text only when no other row of the table claims it.
    fn sniff(&self, head: &Head<'_>) -> Sniff {
        if is_iostat_text(head.text) { Sniff::Fallback } else { Sniff::No }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        read_text(file, &text).map(Read::Table)
    }
}

/// sysstat `iostat -o JSON` output.
#[derive(Debug)]
pub struct IostatJson;

impl CaptureFormat for IostatJson {
    fn format(&self) -> Format {
        JSON
    }

    fn supported(&self) -> Option<&'static str> {
        Some("iostat JSON (iostat -x -t -o JSON 1)")
    }

    fn sniff(&self, head: &Head<'_>) -> Sniff {
        if head.text.starts_with('{') && head.text.contains("\"sysstat\"") {
            Sniff::Yes
        } else {
            Sniff::No
        }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        read_json(file, &text).map(Read::Table)
    }
}

/// iostat text: a `Device` header with iostat's columns, an `avg-cpu:` block.
fn is_iostat_text(text: &str) -> bool {
    text.lines().take(400).any(|l| {
        // pdsh prefixes lines with `host: `.
        let l = match l.split_once(": ") {
            Some((prefix, rest))
                if !prefix.contains(' ')
                    && !prefix.is_empty()
                    && prefix != "avg-cpu"
                    && prefix != "Device" =>
            {
                rest
            }
            _ => l,
        };
        let toks: Vec<&str> = l.split_whitespace().collect();
        let device_header = toks.first().is_some_and(|t| *t == "Device:" || *t == "Device")
            || toks.last().is_some_and(|t| *t == "Device");
        (device_header
            && toks.iter().any(|t| {
                matches!(*t, "r/s" | "w/s" | "tps" | "rkB/s" | "rMB/s" | "%util" | "aqu-sz")
            }))
            || l.trim_start().starts_with("avg-cpu:")
    })
}

/// Reads `iostat` text output (`iostat -x -t 1` and every variant: `-d`, `-k`/`-m`, `-p ALL`,
/// `-g`, `-s`, `--pretty`, `--human`, pdsh `host: ` prefixes, old and new layouts).
pub fn read_text(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    text::read(file, text)
}

/// Reads `iostat -o JSON` output, keeping the complete reports of a document cut short.
pub fn read_json(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    json::read(file, text)
}

/// One device line of a report (sub-tables of `--pretty` merged).
#[derive(Debug, Clone)]
struct DevRow {
    name: String,
    /// `-g` group summary (its name has a leading space in the source).
    group: bool,
    values: Vec<(Metric, f64)>,
    /// [`name_key`] of `name`: compared before the name when looking a device up.
    key: u64,
}

impl DevRow {
    fn new(name: &str, group: bool, values: Vec<(Metric, f64)>) -> Self {
        Self { name: name.to_owned(), group, values, key: name_key(name) }
    }
}

/// The length and first bytes of a device name in one word: names that differ there (most
/// do) are told apart without comparing strings.
fn name_key(name: &str) -> u64 {
    let b = name.as_bytes();
    let mut k = [0u8; 8];
    let n = b.len().min(7);
    k[..n].copy_from_slice(&b[..n]);
    k[7] = b.len() as u8;
    u64::from_le_bytes(k)
}

/// One iostat report: an optional time, the avg-cpu block and the device table.
///
/// The text reader fills one report after the other in the same value: `clear` keeps the
/// device rows (their names and value vectors) for the next report's allocations.
#[derive(Debug, Clone, Default)]
struct Report {
    time: Option<Stamp>,
    /// 100 - %idle.
    cpu_pct: Option<f64>,
    /// The report's device rows are the first `len`; the others are spare.
    devices: Vec<DevRow>,
    len: usize,
    /// A device header or avg-cpu block was seen (an empty `-z` report still counts).
    seen: bool,
    /// A device line's cumulative totals (the basic layout's `kB_read`, `kB_wrtn`) hold
    /// far more than its rate over any interval: the report is an average since boot.
    cumulative: bool,
}

impl Report {
    fn has_content(&self) -> bool {
        self.seen || self.cpu_pct.is_some() || self.len > 0
    }

    fn devices(&self) -> &[DevRow] {
        self.devices.get(..self.len).unwrap_or(&[])
    }

    /// The report without its device rows.
    fn clone_head(&self) -> Report {
        Report {
            time: self.time,
            cpu_pct: self.cpu_pct,
            devices: Vec::new(),
            len: self.len,
            seen: self.seen,
            cumulative: self.cumulative,
        }
    }

    /// Empties the report, keeping the spare rows' allocations.
    fn clear(&mut self) {
        self.time = None;
        self.cpu_pct = None;
        self.len = 0;
        self.seen = false;
        self.cumulative = false;
    }

    /// A new device row at the end (the next spare one, emptied, when there is one).
    fn push_device(&mut self, name: &str, group: bool) -> &mut DevRow {
        let key = name_key(name);
        if self.len < self.devices.len() {
            let i = self.len;
            self.len += 1;
            let d = &mut self.devices[i];
            d.name.clear();
            d.name.push_str(name);
            d.group = group;
            d.values.clear();
            d.key = key;
            d
        } else {
            self.devices.push(DevRow::new(name, group, Vec::new()));
            self.len = self.devices.len();
            &mut self.devices[self.len - 1]
        }
    }

    /// The row of a device, added when the report does not have it yet (a `--pretty`
    /// sub-table names the same devices again).
    fn device_mut(&mut self, name: &str, group: bool) -> &mut DevRow {
        let key = name_key(name);
        let found =
            self.devices().iter().position(|d| d.key == key && d.group == group && d.name == name);
        match found {
            Some(i) => &mut self.devices[i],
            None => self.push_device(name, group),
        }
    }
}

/// Partition or whole device, from the name and the other names of the same report
/// (`sda1` beside `sda`, `nvme0n1p2` beside `nvme0n1`).
fn target_kind(name: &str, group: bool, report_names: &[&str]) -> TargetKind {
    if group {
        return TargetKind::Aggregate;
    }
    if is_partition(name, report_names) { TargetKind::Volume } else { TargetKind::Device }
}

fn is_partition(name: &str, others: &[&str]) -> bool {
    let digits_at_end = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits_at_end == 0 {
        return false;
    }
    let base = &name[..name.len() - digits_at_end];
    // sda1, vdb2, xvda1, hdc3: letters after a disk prefix, then the partition number.
    for prefix in ["sd", "vd", "xvd", "hd"] {
        if let Some(letters) = base.strip_prefix(prefix)
            && !letters.is_empty()
            && letters.bytes().all(|b| b.is_ascii_lowercase())
        {
            return true;
        }
    }
    // nvme0n1p1, mmcblk0p1, loop0p1, nbd0p1, md0p1, c0d0p1: `p<N>` after a name ending in a digit.
    if let Some(disk) = base.strip_suffix('p')
        && disk.ends_with(|c: char| c.is_ascii_digit())
    {
        let families = ["nvme", "mmcblk", "loop", "nbd", "md", "rbd", "zd", "cciss", "c"];
        let last = disk.rsplit('/').next().unwrap_or(disk);
        if families.iter().any(|f| last.starts_with(f)) || others.contains(&disk) {
            return true;
        }
    }
    // Any other name that is a listed whole device plus a number.
    others.iter().any(|o| *o != name && base == *o && !o.ends_with(|c: char| c.is_ascii_digit()))
}

/// A table being filled, and where each metric's column is in it.
#[derive(Debug)]
struct Sink {
    table: Table,
    /// `Metric as usize` -> index in `table.columns`, `usize::MAX` while absent.
    cols: [usize; Metric::ALL.len()],
}

impl Default for Sink {
    fn default() -> Self {
        Self { table: Table::default(), cols: [usize::MAX; Metric::ALL.len()] }
    }
}

impl Sink {
    fn column(&mut self, metric: Metric) -> usize {
        match self.cols.get_mut(metric as usize) {
            Some(slot) => {
                if *slot == usize::MAX {
                    *slot = self.table.column_index(metric);
                }
                *slot
            }
            None => self.table.column_index(metric),
        }
    }

    /// What [`Table::push_row`] does, with the metric -> column lookup done once per table.
    fn push(&mut self, target: u32, time_ms: Option<i64>, values: &[(Metric, f64)]) {
        let row = self.table.push_empty_row(target, time_ms);
        for &(metric, value) in values {
            let col = self.column(metric);
            self.table.set(row, col, value);
        }
    }
}

/// The target indices of the last report's devices: the next report usually lists the
/// same devices in the same order, and then needs no name lookups.
#[derive(Debug, Default)]
struct TargetCache {
    host: Option<String>,
    /// CPU target of `host`.
    cpu: Option<u32>,
    /// Names and group flags the indices are for.
    devices: Vec<(String, bool)>,
    indices: Vec<u32>,
}

impl TargetCache {
    fn for_host(&mut self, host: Option<&str>) {
        if self.host.as_deref() != host {
            self.host = host.map(str::to_owned);
            self.cpu = None;
            self.devices.clear();
            self.indices.clear();
        }
    }

    fn cpu(&mut self, meta: &mut CaptureMeta, host: Option<&str>) -> u32 {
        self.for_host(host);
        match self.cpu {
            Some(t) => t,
            None => {
                let t = meta.target_index(host.unwrap_or("cpu"), TargetKind::Host, host);
                self.cpu = Some(t);
                t
            }
        }
    }

    fn devices(&mut self, meta: &mut CaptureMeta, devs: &[DevRow], host: Option<&str>) -> &[u32] {
        self.for_host(host);
        let same = self.devices.len() == devs.len()
            && self.devices.iter().zip(devs).all(|((n, g), d)| *g == d.group && *n == d.name);
        if !same {
            let names: Vec<&str> =
                devs.iter().filter(|d| !d.group).map(|d| d.name.as_str()).collect();
            self.indices.clear();
            for d in devs {
                let kind = target_kind(&d.name, d.group, &names);
                self.indices.push(meta.target_index(&d.name, kind, host));
            }
            self.devices.clear();
            self.devices.extend(devs.iter().map(|d| (d.name.clone(), d.group)));
        }
        &self.indices
    }
}

/// Builds the capture from the reports as the readers find them, run after run. The first
/// report of a run is the average since boot when the file shows it: the run starts at
/// iostat's banner line (`Linux ... (host) date`, or a JSON document's host header), or the
/// report's cumulative totals span far more than one interval. It then goes to
/// `since_boot` and the others form the time series; a run whose only report is since boot
/// gives it to both, and the capture says it has nothing else ([`CaptureMeta::since_boot_only`]).
/// Without that evidence (a pasted extract that starts at a report) the first report is a
/// measurement like the others.
///
/// Reports without a timestamp (iostat without `-t`) are placed one second apart from 0:
/// iostat's interval is a whole number of seconds, so durations read from them are lower
/// bounds, and the capture counts its real samples.
#[derive(Debug, Default)]
struct Assembler {
    table: Sink,
    since_boot: Sink,
    targets: TargetCache,
    /// The current run's host and first report (placed once the run has a second report,
    /// or ends), and how many reports it has had.
    run_host: Option<String>,
    first: Option<Report>,
    run_reports: usize,
    /// Whether the current run started at a banner (its first report is since boot).
    run_banner: bool,
    /// Whether the current run's first report was kept as the since-boot average.
    run_since_boot: bool,
    /// The current run's last report time, for the intervals.
    last_ms: Option<i64>,
    diffs_ms: Vec<i64>,
    offsets: Vec<i32>,
    any_time: bool,
    any_epoch: bool,
    since_boot_runs: usize,
    single_report_runs: usize,
    /// Runs whose first report was taken as a measurement (no banner, no cumulative totals).
    extract_runs: usize,
    /// Per host: the next position of an untimed report on the 1 s axis.
    untimed: Vec<(Option<String>, i64)>,
    untimed_reports: usize,
    /// `%util` values above 100 clamped to it: how many, and the highest.
    util_clamped: usize,
    util_max: f64,
}

impl Assembler {
    /// Starts a run; `banner`: it starts at iostat's banner (or a JSON host header), so
    /// its first report is the average since boot.
    fn begin_run(&mut self, host: Option<&str>, banner: bool) {
        self.run_host = host.map(str::to_owned);
        self.first = None;
        self.run_reports = 0;
        self.run_banner = banner;
        self.run_since_boot = false;
        self.last_ms = None;
    }

    /// Adds a report of the current run.
    fn report(&mut self, meta: &mut CaptureMeta, r: &Report) {
        if !r.has_content() {
            return;
        }
        self.run_reports += 1;
        if let Some(t) = r.time {
            let ms = t.millis();
            // The since-boot report is printed at the start of the first interval: its time counts.
            if let Some(prev) = self.last_ms
                && ms > prev
            {
                self.diffs_ms.push(ms - prev);
            }
            self.last_ms = Some(ms);
            self.any_time = true;
            self.any_epoch |= t.epoch;
            if let Some(o) = t.offset_min
                && !t.epoch
                && !self.offsets.contains(&o)
            {
                self.offsets.push(o);
            }
        }
        match self.run_reports {
            1 if !self.run_banner && !r.cumulative => {
                // A pasted extract: its first report is a measurement.
                self.extract_runs += 1;
                self.push(meta, r, false);
            }
            1 => {
                self.run_since_boot = true;
                let devices = r.devices().to_vec();
                self.first = Some(Report { devices, ..r.clone_head() });
            }
            2 => {
                if let Some(first) = self.first.take() {
                    self.push(meta, &first, true);
                }
                self.push(meta, r, false);
            }
            _ => self.push(meta, r, false),
        }
    }

    /// Puts a report in the time series, or with `since_boot` in the since-boot summary.
    fn push(&mut self, meta: &mut CaptureMeta, r: &Report, since_boot: bool) {
        let host = self.run_host.clone();
        let host = host.as_deref();
        if since_boot {
            let time = r.time.map(|t| t.millis());
            push_report(meta, &mut self.targets, &mut self.since_boot, r, time, host);
            return;
        }
        let time = match r.time {
            Some(t) => Some(t.millis()),
            None => {
                let slot = match self.untimed.iter().position(|(h, _)| h.as_deref() == host) {
                    Some(i) => i,
                    None => {
                        self.untimed.push((host.map(str::to_owned), 0));
                        self.untimed.len() - 1
                    }
                };
                let at = self.untimed[slot].1;
                self.untimed[slot].1 += 1;
                self.untimed_reports += 1;
                Some(at * 1000)
            }
        };
        let clamped = push_report(meta, &mut self.targets, &mut self.table, r, time, host);
        if let Some(max) = clamped {
            self.util_clamped += 1;
            self.util_max = self.util_max.max(max);
        }
    }

    /// Ends the current run; its host is listed in the capture's hosts.
    fn end_run(&mut self, meta: &mut CaptureMeta) {
        let host = self.run_host.take();
        if let Some(h) = &host {
            meta.add_host(h);
        }
        match self.run_reports {
            0 => {}
            1 => {
                if let Some(first) = self.first.take() {
                    self.single_report_runs += 1;
                    self.run_host = host;
                    self.push(meta, &first, true);
                    self.push(meta, &first, false);
                    self.run_host = None;
                }
            }
            _ => self.since_boot_runs += usize::from(self.run_since_boot),
        }
        self.run_since_boot = false;
        self.first = None;
        self.run_reports = 0;
        self.last_ms = None;
    }

    /// The capture. Errors when there is no usable data at all; `first_location` is where
    /// the data was (for that error).
    fn finish(
        self,
        file: &str,
        mut meta: CaptureMeta,
        first_location: Option<Location>,
    ) -> Result<RawCapture, IngestError> {
        let table = self.table.table;
        let since_boot = self.since_boot.table;
        if table.is_empty() && since_boot.is_empty() {
            return Err(IngestError::invalid(
                file,
                first_location,
                "no iostat report with data: expected `Device` tables or `avg-cpu` blocks \
                 (capture with `iostat -x -t 1`)",
            ));
        }

        if self.since_boot_runs > 0 {
            meta.notes.push(
                "the first report is the average since boot; kept apart from the time series"
                    .to_owned(),
            );
        }
        if self.extract_runs > 0 {
            meta.notes.push(
                "no banner line (`Linux ... (host) date`) before the first report and no \
                 cumulative totals in it: an extract starting at a report, so the first report \
                 is a measurement over an interval like the others"
                    .to_owned(),
            );
        }
        if self.single_report_runs > 0 {
            meta.warn(
                "only one report, the average since boot: not a measurement over an interval, \
                 so it can show what the disks did on average but not whether they were ever \
                 throttled or slow. Capture a series with `iostat -x -t 1 60`",
                None,
            );
            meta.since_boot_only = self.since_boot_runs == 0 && self.extract_runs == 0;
        }
        if self.util_clamped > 0 {
            meta.warn(
                format!(
                    "%util above 100 in {} device line(s) (up to {:.1}%) clamped to 100%: the \
                     kernel's busy time can overshoot the interval",
                    self.util_clamped, self.util_max
                ),
                None,
            );
        }
        let mut diffs_ms = self.diffs_ms;
        let offsets = self.offsets;
        if self.any_time {
            diffs_ms.sort_unstable();
            if let Some(m) = diffs_ms.get(diffs_ms.len() / 2) {
                meta.interval_s = Some(*m as f64 / 1000.0);
            }
        } else {
            meta.relative_time = true;
            meta.notes.push(format!(
                "the reports carry no timestamps (iostat without -t): the {} samples are \
                 placed 1 s apart from 0 (iostat's shortest interval), so durations are lower \
                 bounds; capture with `iostat -x -t 1` for times",
                self.untimed_reports
            ));
        }
        if self.any_epoch {
            meta.utc_offset_min = Some(0);
            meta.timezone = Some("UTC".to_owned());
            meta.notes.push("timestamps are seconds since the epoch (iostat -U), i.e. UTC".into());
        } else if let Some(first) = offsets.first() {
            meta.utc_offset_min = Some(*first);
            meta.timezone = Some(format_offset(*first));
            if offsets.len() > 1 {
                meta.warn(
                    format!(
                        "the UTC offset changes within the capture ({}); {} is used",
                        offsets.iter().map(|o| format_offset(*o)).collect::<Vec<_>>().join(", "),
                        format_offset(*first)
                    ),
                    None,
                );
            }
        }
        let since_boot = (!since_boot.is_empty()).then_some(since_boot);
        Ok(RawCapture { meta, table, since_boot })
    }
}

fn format_offset(min: i32) -> String {
    let sign = if min < 0 { '-' } else { '+' };
    let a = min.unsigned_abs();
    format!("{sign}{:02}{:02}", a / 60, a % 60)
}

/// Puts a report's rows in `sink` at `time`: per-direction latency and IO size only where
/// that direction did IO (iostat prints 0.00 for an idle direction: not 0 ms), `%util`
/// clamped to 100. Returns the highest `%util` clamped, when one was.
fn push_report(
    meta: &mut CaptureMeta,
    targets: &mut TargetCache,
    sink: &mut Sink,
    r: &Report,
    time: Option<i64>,
    host: Option<&str>,
) -> Option<f64> {
    if let Some(cpu) = r.cpu_pct {
        let t = targets.cpu(meta, host);
        sink.push(t, time, &[(Metric::CpuPct, cpu)]);
    }
    let devs = r.devices();
    let indices = targets.devices(meta, devs, host);
    let mut clamped: Option<f64> = None;
    let mut values: Vec<(Metric, f64)> = Vec::new();
    for (d, t) in devs.iter().zip(indices) {
        let get = |m: Metric| d.values.iter().find(|(x, _)| *x == m).map(|(_, v)| *v);
        let reads = get(Metric::ReadIops);
        let writes = get(Metric::WriteIops);
        let total = match (reads, writes, get(Metric::Iops)) {
            (_, _, Some(t)) => Some(t),
            (Some(r), Some(w), None) => Some(r + w),
            _ => None,
        };
        values.clear();
        for &(m, v) in &d.values {
            let idle = match m {
                Metric::ReadLatencyMs | Metric::ReadIoKib => reads == Some(0.0),
                Metric::WriteLatencyMs | Metric::WriteIoKib => writes == Some(0.0),
                Metric::LatencyMs | Metric::IoKib => total == Some(0.0),
                _ => false,
            };
            if idle {
                continue;
            }
            if m == Metric::BusyPct && v > 100.0 {
                clamped = Some(clamped.map_or(v, |c: f64| c.max(v)));
                values.push((m, 100.0));
                continue;
            }
            values.push((m, v));
        }
        sink.push(*t, time, &values);
    }
    clamped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_and_disks() {
        let names = ["sda", "sda1", "sda12", "nvme0n1", "nvme0n1p1", "dm-0", "vda", "md0", "xyz"];
        let kind = |n: &str| target_kind(n, false, &names);
        assert_eq!(kind("sda"), TargetKind::Device);
        assert_eq!(kind("sda1"), TargetKind::Volume);
        assert_eq!(kind("sda12"), TargetKind::Volume);
        assert_eq!(kind("nvme0n1"), TargetKind::Device);
        assert_eq!(kind("nvme0n1p1"), TargetKind::Volume);
        assert_eq!(kind("mmcblk0p2"), TargetKind::Volume);
        assert_eq!(kind("dm-0"), TargetKind::Device);
        assert_eq!(kind("md0"), TargetKind::Device);
        assert_eq!(kind("loop0"), TargetKind::Device);
        assert_eq!(kind("zram0"), TargetKind::Device);
        assert_eq!(kind("sr0"), TargetKind::Device);
        assert_eq!(kind("bcache0"), TargetKind::Device);
        assert_eq!(kind("xyz1"), TargetKind::Volume);
        assert_eq!(target_kind("disks", true, &names), TargetKind::Aggregate);
    }

    #[test]
    fn offsets_print_like_sysstat() {
        assert_eq!(format_offset(-420), "-0700");
        assert_eq!(format_offset(330), "+0530");
        assert_eq!(format_offset(0), "+0000");
    }
}
