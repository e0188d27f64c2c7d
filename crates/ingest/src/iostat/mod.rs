//! sysstat `iostat` readers: text (every column layout since sysstat 9) and `-o JSON`.
//!
//! Both readers turn the input into [`Run`]s of [`Report`]s (one run per host and per
//! banner: a file can hold several hosts via pdsh, or several appended iostat runs), then
//! [`assemble`] builds the [`RawCapture`]: the first report of each run is the average
//! since boot and goes to `since_boot`, the others form the time series.
//!
//! Columns are mapped by name ([`columns::classify`]), never by position. Output units:
//! IOPS, MiB/s (sysstat's kB and MB are 1024-based), ms, KiB, IOs, percent.

mod columns;
mod json;
mod text;
mod time;

use advisor_model::{CaptureMeta, Location, Metric, RawCapture, Table, TargetKind};

use crate::IngestError;
use time::Stamp;

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
}

/// One iostat report: an optional time, the avg-cpu block and the device table.
#[derive(Debug, Clone, Default)]
struct Report {
    time: Option<Stamp>,
    /// 100 - %idle.
    cpu_pct: Option<f64>,
    devices: Vec<DevRow>,
    /// A device header or avg-cpu block was seen (an empty `-z` report still counts).
    seen: bool,
}

impl Report {
    fn has_content(&self) -> bool {
        self.seen || self.cpu_pct.is_some() || !self.devices.is_empty()
    }

    fn device_mut(&mut self, name: &str, group: bool) -> &mut DevRow {
        let idx = match self.devices.iter().position(|d| d.name == name && d.group == group) {
            Some(i) => i,
            None => {
                self.devices.push(DevRow { name: name.to_owned(), group, values: Vec::new() });
                self.devices.len() - 1
            }
        };
        &mut self.devices[idx]
    }
}

/// The reports of one iostat invocation on one host.
#[derive(Debug, Clone, Default)]
struct Run {
    host: Option<String>,
    reports: Vec<Report>,
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

/// What the readers found, ready to be turned into a capture.
struct Parsed {
    runs: Vec<Run>,
    /// Where the data was (for the "no data" error).
    first_location: Option<Location>,
}

/// Builds the capture from parsed runs. Errors when there is no usable data at all.
fn assemble(file: &str, mut meta: CaptureMeta, parsed: Parsed) -> Result<RawCapture, IngestError> {
    let hosts: Vec<&str> = parsed.runs.iter().filter_map(|r| r.host.as_deref()).collect();
    for h in &hosts {
        meta.add_host(h);
    }
    let mut table = Table::default();
    let mut since_boot = Table::default();
    let mut diffs_ms: Vec<i64> = Vec::new();
    let mut offsets: Vec<i32> = Vec::new();
    let mut any_time = false;
    let mut any_epoch = false;
    let mut since_boot_runs = 0usize;
    let mut single_report_runs = 0usize;

    for run in &parsed.runs {
        let reports: Vec<&Report> = run.reports.iter().filter(|r| r.has_content()).collect();
        if reports.is_empty() {
            continue;
        }
        let host = run.host.as_deref();
        let (boot, series): (&[&Report], &[&Report]) = if reports.len() == 1 {
            single_report_runs += 1;
            (&reports[..], &reports[..])
        } else {
            since_boot_runs += 1;
            reports.split_at(1)
        };
        for r in boot {
            push_report(&mut meta, &mut since_boot, r, host);
        }
        for r in series {
            push_report(&mut meta, &mut table, r, host);
        }
        // The since-boot report is printed at the start of the first interval: its time counts.
        let times: Vec<i64> = reports.iter().filter_map(|r| r.time.map(|t| t.millis())).collect();
        diffs_ms.extend(times.windows(2).filter_map(|w| match w {
            [a, b] if b > a => Some(b - a),
            _ => None,
        }));
        for r in &reports {
            if let Some(t) = r.time {
                any_time = true;
                any_epoch |= t.epoch;
                if let Some(o) = t.offset_min
                    && !t.epoch
                    && !offsets.contains(&o)
                {
                    offsets.push(o);
                }
            }
        }
    }

    if table.is_empty() && since_boot.is_empty() {
        return Err(IngestError::invalid(
            file,
            parsed.first_location,
            "no iostat report with data: expected `Device` tables or `avg-cpu` blocks \
             (capture with `iostat -x -t 1`)",
        ));
    }

    if since_boot_runs > 0 {
        meta.notes.push(
            "the first report is the average since boot; kept apart from the time series"
                .to_owned(),
        );
    }
    if single_report_runs > 0 {
        meta.warn(
            "only one report: it is the average since boot, not a measurement over an \
             interval; it is used as the only sample (and also kept as the since-boot \
             summary). Capture a series with `iostat -x -t 1 60`",
            None,
        );
    }
    if any_time {
        diffs_ms.sort_unstable();
        if let Some(m) = diffs_ms.get(diffs_ms.len() / 2) {
            meta.interval_s = Some(*m as f64 / 1000.0);
        }
    } else {
        meta.notes.push(
            "the reports carry no timestamps (iostat without -t): samples have no time and \
             the interval is unknown"
                .to_owned(),
        );
    }
    if any_epoch {
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

fn format_offset(min: i32) -> String {
    let sign = if min < 0 { '-' } else { '+' };
    let a = min.unsigned_abs();
    format!("{sign}{:02}{:02}", a / 60, a % 60)
}

fn push_report(meta: &mut CaptureMeta, table: &mut Table, r: &Report, host: Option<&str>) {
    let time = r.time.map(|t| t.millis());
    if let Some(cpu) = r.cpu_pct {
        let t = meta.target_index(host.unwrap_or("cpu"), TargetKind::Host, host);
        table.push_row(t, time, &[(Metric::CpuPct, cpu)]);
    }
    let names: Vec<&str> = r.devices.iter().filter(|d| !d.group).map(|d| d.name.as_str()).collect();
    for d in &r.devices {
        let kind = target_kind(&d.name, d.group, &names);
        let t = meta.target_index(&d.name, kind, host);
        table.push_row(t, time, &d.values);
    }
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
