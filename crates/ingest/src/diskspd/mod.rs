//! Microsoft DiskSpd readers: `-Rxml` results and text results (Windows and the Linux port).
//!
//! Both readers fill the same intermediate model ([`Run`]: one DiskSpd timespan or job, with
//! its settings and per-target sums over threads), and [`build`] turns the runs into one
//! summary row per target (`time_ms = None`), a Host row with the CPU figure, an Aggregate
//! `total` row when a run had several targets, bench settings and DiskSpd's own latency
//! percentiles.
//!
//! Rates are recomputed from the byte and I/O counts over the measured test time (DiskSpd's
//! printed per-thread rates are rounded, and its "MB/s" is MiB/s in every version).

mod build;
mod text;
mod xml;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use advisor_model::{Direction, Format, Location, RawCapture};

use crate::IngestError;
pub(crate) use crate::error::line_col;
use crate::formats::{CaptureFormat, Head, Read, Sniff};
use build::build;

pub const XML: Format = Format::new("diskspd-xml", "DiskSpd XML results (diskspd -Rxml)", true);
pub const TEXT: Format = Format::new("diskspd-text", "DiskSpd text results", true);

/// Microsoft DiskSpd `-Rxml` results.
#[derive(Debug)]
pub struct DiskspdXml;

impl CaptureFormat for DiskspdXml {
    fn format(&self) -> Format {
        XML
    }

    fn supported(&self) -> Option<&'static str> {
        Some("DiskSpd XML (-Rxml) or text")
    }

    fn sniff(&self, head: &Head<'_>) -> Sniff {
        if head.text.starts_with('<') && head.text.contains("<Results") {
            Sniff::Yes
        } else {
            Sniff::No
        }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        read_xml(file, &text).map(Read::Table)
    }
}

/// Microsoft DiskSpd text results (Windows, and the Linux port).
#[derive(Debug)]
pub struct DiskspdText;

impl CaptureFormat for DiskspdText {
    fn format(&self) -> Format {
        TEXT
    }

    /// Named with DiskSpd XML: "DiskSpd XML (-Rxml) or text".
    fn supported(&self) -> Option<&'static str> {
        None
    }

    fn sniff(&self, head: &Head<'_>) -> Sniff {
        let has = |s: &str| head.text.contains(s);
        if (has("Command Line:") && has("diskspd"))
            || (has("Input parameters:") && (has("timespan:") || has("Results for timespan")))
        {
            Sniff::Yes
        } else {
            Sniff::No
        }
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        read_text(file, &text).map(Read::Table)
    }
}

/// Reads DiskSpd XML results (`diskspd -Rxml`).
///
/// Recovers the unescaped `<PowerScheme Name="<unknown>">` DiskSpd writes when the power
/// scheme is unknown (with a warning); any other malformed XML is an error at its line:column.
pub fn read_xml(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    xml::read(file, text)
}

/// Reads DiskSpd text results: Windows 2.0.x to 2.2 and the Linux port (diskspd-for-linux),
/// one or several runs per file, with prose and shell prompts around them.
pub fn read_text(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    text::read(file, text)
}

/// Bytes in a MiB.
const MIB: f64 = 1_048_576.0;
/// Values at or above this are treated as absurd and dropped.
const ABSURD: f64 = 1e12;

/// How a target was configured, as far as the capture tells.
#[derive(Debug, Clone, Default, PartialEq)]
struct TargetSettings {
    block_size: Option<u64>,
    /// Outstanding IOs per thread (`-o`, XML `RequestCount` under the profile's Target).
    outstanding: Option<u32>,
    threads_per_file: Option<u32>,
    write_pct: Option<f64>,
    random: Option<bool>,
    /// `using mixed random/sequential I/O (N% random)`, XML `RandomRatio`.
    random_ratio: Option<f64>,
    os_cache_disabled: Option<bool>,
    write_through: Option<bool>,
    file_size: Option<u64>,
    engine: Option<String>,
    think_time_ms: Option<f64>,
    burst_size: Option<u64>,
    /// `-g` throughput limit, bytes per millisecond per thread.
    throughput_limit: Option<f64>,
}

impl TargetSettings {
    /// Fills what `self` lacks from `other`.
    fn fill_from(&mut self, other: &TargetSettings) {
        macro_rules! fill {
            ($($f:ident),*) => { $( if self.$f.is_none() { self.$f = other.$f.clone(); } )* };
        }
        fill!(
            block_size,
            outstanding,
            threads_per_file,
            write_pct,
            random,
            random_ratio,
            os_cache_disabled,
            write_through,
            file_size,
            engine,
            think_time_ms,
            burst_size,
            throughput_limit
        );
    }
}

/// Settings of one timespan (Windows) or job (Linux port).
#[derive(Debug, Clone, Default)]
struct SpanSettings {
    duration_s: Option<f64>,
    warmup_s: Option<f64>,
    cooldown_s: Option<f64>,
    /// `-D` interval in milliseconds.
    bucket_ms: Option<f64>,
    /// Thread pool (`-F`, `-O`): outstanding IOs per thread for every target.
    pool_outstanding: Option<u32>,
    /// `-F` / `total threads:`.
    total_threads: Option<u32>,
    targets: Vec<(String, TargetSettings)>,
}

impl SpanSettings {
    fn target(&self, path: &str, only_one_result: bool) -> Option<&TargetSettings> {
        let found = self.targets.iter().find(|(p, _)| p == path).map(|(_, s)| s);
        // One configured target and one result target: the same, whatever the spelling.
        found.or(match (only_one_result, self.targets.as_slice()) {
            (true, [(_, s)]) => Some(s),
            _ => None,
        })
    }
}

/// Sums over threads for one direction (read, write, or all IO).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct DirStats {
    bytes: f64,
    count: f64,
    /// Sum of (average latency x IO count) over threads that reported a latency.
    lat_sum: f64,
    lat_weight: f64,
}

impl DirStats {
    fn add(&mut self, bytes: f64, count: f64, latency_ms: Option<f64>) {
        self.bytes += bytes;
        self.count += count;
        if let Some(lat) = latency_ms.filter(|l| l.is_finite() && *l >= 0.0)
            && count > 0.0
        {
            self.lat_sum += lat * count;
            self.lat_weight += count;
        }
    }

    fn merge(&mut self, other: &DirStats) {
        self.bytes += other.bytes;
        self.count += other.count;
        self.lat_sum += other.lat_sum;
        self.lat_weight += other.lat_weight;
    }

    fn latency(&self) -> Option<f64> {
        (self.count > 0.0 && self.lat_weight > 0.0).then(|| self.lat_sum / self.lat_weight)
    }
}

/// One target of one run: results summed over its threads, with its settings.
#[derive(Debug, Clone, Default)]
struct TargetResult {
    path: String,
    settings: TargetSettings,
    threads: BTreeSet<u64>,
    read: Option<DirStats>,
    write: Option<DirStats>,
    /// All IO, when the source gives it apart (text "Total IO", XML IOCount/BytesCount).
    total: Option<DirStats>,
    percentiles: Vec<(Direction, f64, f64)>,
    /// `-D` interval buckets: sample end (ms since the measured start) -> IOs, summed over threads.
    buckets: BTreeMap<u64, f64>,
}

impl TargetResult {
    fn new(path: &str) -> Self {
        Self { path: path.to_owned(), ..Self::default() }
    }

    /// Read + write + total as three DirStats; all IO derived from read + write when the
    /// source gave no total of its own.
    fn all(&self) -> Option<DirStats> {
        if let Some(t) = self.total {
            let mut t = t;
            if t.lat_weight == 0.0 {
                // No total latency given: IO-weighted mix of the read and write averages.
                for d in [self.read, self.write].into_iter().flatten() {
                    t.lat_sum += d.lat_sum;
                    t.lat_weight += d.lat_weight;
                }
            }
            return Some(t);
        }
        match (self.read, self.write) {
            (None, None) => None,
            (r, w) => {
                let mut t = DirStats::default();
                for d in [r, w].into_iter().flatten() {
                    t.merge(&d);
                }
                Some(t)
            }
        }
    }

    /// Threads that ran on this target: as seen in the results, else as configured.
    fn thread_count(&self) -> Option<u32> {
        if self.threads.is_empty() {
            self.settings.threads_per_file
        } else {
            u32::try_from(self.threads.len()).ok()
        }
    }
}

/// One DiskSpd timespan (Windows) or job (Linux port) and its results.
#[derive(Debug, Clone, Default)]
struct Run {
    /// 1-based position of the run in the file.
    number: usize,
    host: Option<String>,
    span: SpanSettings,
    test_time_s: Option<f64>,
    thread_count: Option<u32>,
    cpu_pct: Option<f64>,
    targets: Vec<TargetResult>,
    /// Percentiles over every target of the run.
    total_percentiles: Vec<(Direction, f64, f64)>,
    /// Where the run's results start, for messages.
    location: Option<Location>,
}

impl Run {
    fn target_mut(&mut self, path: &str) -> &mut TargetResult {
        let idx = match self.targets.iter().position(|t| t.path == path) {
            Some(i) => i,
            None => {
                self.targets.push(TargetResult::new(path));
                self.targets.len() - 1
            }
        };
        // `idx` is in range: found above or just pushed.
        let len = self.targets.len();
        &mut self.targets[idx.min(len - 1)]
    }

    fn has_results(&self) -> bool {
        self.targets.iter().any(|t| t.all().is_some())
    }
}

/// Sanity check for a number read from the file that will be summed.
fn sane(value: f64) -> bool {
    value.is_finite() && (0.0..ABSURD * 1e6).contains(&value)
}

/// Percentile label of the text tables (`min`, `25th`, `3-nines`, `max`).
fn percentile_of_label(label: &str) -> Option<f64> {
    let label = label.trim();
    match label {
        "min" => return Some(0.0),
        "max" => return Some(100.0),
        _ => {}
    }
    if let Some(n) = label.strip_suffix("-nines") {
        let n: usize = n.trim().parse().ok()?;
        if !(2..=12).contains(&n) {
            return None;
        }
        // Build the literal ("99.9", "99.99" ...) so it equals what the XML spells.
        let text = format!("99.{}", "9".repeat(n - 2));
        return text.parse().ok();
    }
    let n = label.strip_suffix("th").or_else(|| label.strip_suffix("st"))?;
    let n = n.strip_suffix("nd").unwrap_or(n);
    let v: f64 = n.trim().parse().ok()?;
    (0.0..=100.0).contains(&v).then_some(v)
}

/// Size with an optional unit: `4096`, `8KiB`, `8192MB`, `496GiB`, `67108864B`, `64M`.
/// DiskSpd's units are all powers of 1024 (its old "MB" is MiB).
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let num: f64 = num.parse().ok()?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => MIB,
        "g" | "gb" | "gib" => MIB * 1024.0,
        "t" | "tb" | "tib" => MIB * MIB,
        _ => return None,
    };
    let bytes = num * mult;
    (0.0..1.8e19).contains(&bytes).then(|| bytes.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_labels() {
        assert_eq!(percentile_of_label("min"), Some(0.0));
        assert_eq!(percentile_of_label(" 25th"), Some(25.0));
        assert_eq!(percentile_of_label("99th"), Some(99.0));
        assert_eq!(percentile_of_label("3-nines"), Some(99.9));
        assert_eq!(percentile_of_label("4-nines"), Some(99.99));
        assert_eq!(percentile_of_label("9-nines"), "99.9999999".parse().ok());
        assert_eq!(percentile_of_label("max"), Some(100.0));
        assert_eq!(percentile_of_label("total"), None);
        assert_eq!(percentile_of_label("99-nines"), None);
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("8KiB"), Some(8192));
        assert_eq!(parse_size("8192MB"), Some(8192 * 1_048_576));
        assert_eq!(parse_size("496GiB"), Some(496 * 1_073_741_824));
        assert_eq!(parse_size("67108864B"), Some(67_108_864));
        assert_eq!(parse_size("64M"), Some(64 * 1_048_576));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("12furlongs"), None);
    }

    #[test]
    fn line_col_counts_characters() {
        let t = "ab\nçd<e";
        assert_eq!(line_col(t, 0), Location::line(1, 1));
        assert_eq!(line_col(t, 3), Location::line(2, 1));
        // 'ç' is two bytes: '<' (byte 6) is the third character of line 2.
        assert_eq!(line_col(t, 6), Location::line(2, 3));
        assert_eq!(line_col(t, 999), Location::line(2, 5));
    }

    #[test]
    fn dirstats_latency_is_io_weighted() {
        let mut d = DirStats::default();
        d.add(0.0, 100.0, Some(1.0));
        d.add(0.0, 300.0, Some(3.0));
        d.add(0.0, 0.0, Some(50.0));
        assert_eq!(d.latency(), Some(2.5));
    }
}
