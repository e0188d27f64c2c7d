use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One conversion of every value of a series: `Mul(f)` is `x * f` and `Div(d)` is `x / d`
/// (not `x * (1 / d)`, which differs in the last bit), so a consumer that converts in the
/// copy that loads a series gets what converting after gives, to the bit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    Keep,
    Mul(f64),
    Div(f64),
}

impl Scale {
    #[inline]
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Scale::Keep => x,
            Scale::Mul(f) => x * f,
            Scale::Div(d) => x / d,
        }
    }

    /// Every value of `values` converted in place (a loop per kind, each vectorised).
    pub fn apply_all(self, values: &mut [f64]) {
        match self {
            Scale::Keep => {}
            Scale::Mul(f) => values.iter_mut().for_each(|v| *v *= f),
            Scale::Div(d) => values.iter_mut().for_each(|v| *v /= d),
        }
    }

    /// `values` converted, appended to `out`: the copy and the conversion in one pass.
    pub fn extend(self, out: &mut Vec<f64>, values: &[f64]) {
        match self {
            Scale::Keep => out.extend_from_slice(values),
            Scale::Mul(f) => out.extend(values.iter().map(|v| v * f)),
            Scale::Div(d) => out.extend(values.iter().map(|v| v / d)),
        }
    }
}

/// The unit a canonical metric is stored in. Every reader converts to these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// IO operations per second.
    PerSecond,
    /// Memory pages (4 KiB on x64) moved to or from disk per second: PerfMon Pages/sec.
    PagesPerSecond,
    /// MiB per second (2^20 bytes). Azure publishes its limits in MB/s of 10^6 bytes: the
    /// rules convert, so a capture's 200 MiB/s is 209.7 MB/s against a 200 MB/s cap.
    MibPerSecond,
    /// Milliseconds.
    Milliseconds,
    /// KiB (1024 bytes).
    Kib,
    /// MiB (2^20 bytes).
    Mib,
    /// Outstanding IOs.
    Ios,
    /// Percent, 0 to 100 (busy time can read above 100 on some Windows drivers).
    Percent,
}

impl Unit {
    /// The short suffix shown to people.
    pub fn suffix(self) -> &'static str {
        match self {
            Self::PerSecond => "IOPS",
            Self::PagesPerSecond => "pages/s",
            Self::MibPerSecond => "MiB/s",
            Self::Milliseconds => "ms",
            Self::Kib => "KiB",
            Self::Mib => "MiB",
            Self::Ios => "IOs",
            Self::Percent => "%",
        }
    }
}

macro_rules! metrics {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $unit:ident; )*) => {
        /// A canonical metric: fixed name, fixed unit, whatever the source called it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Metric {
            $( $(#[$doc])* $variant, )*
        }

        impl Metric {
            /// Every metric, in canonical column order.
            pub const ALL: &'static [Metric] = &[$(Metric::$variant),*];

            /// The column name in the canonical frame and in JSON.
            pub fn name(self) -> &'static str {
                match self { $(Metric::$variant => $name,)* }
            }

            /// The unit values are stored in.
            pub fn unit(self) -> Unit {
                match self { $(Metric::$variant => Unit::$unit,)* }
            }
        }

        impl FromStr for Metric {
            type Err = UnknownMetric;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($name => Ok(Metric::$variant),)*
                    _ => Err(UnknownMetric(s.to_owned())),
                }
            }
        }
    };
}

metrics! {
    /// Read operations per second.
    ReadIops = "read_iops", PerSecond;
    /// Write operations per second.
    WriteIops = "write_iops", PerSecond;
    /// All operations per second (reads + writes; discards and flushes are not counted).
    Iops = "iops", PerSecond;
    /// Read throughput.
    ReadMbps = "read_mbps", MibPerSecond;
    /// Write throughput.
    WriteMbps = "write_mbps", MibPerSecond;
    /// Read + write throughput.
    Mbps = "mbps", MibPerSecond;
    /// Average latency of a read.
    ReadLatencyMs = "read_latency_ms", Milliseconds;
    /// Average latency of a write.
    WriteLatencyMs = "write_latency_ms", Milliseconds;
    /// Average latency of any IO.
    LatencyMs = "latency_ms", Milliseconds;
    /// Average latency of an explicit sync (fio `fsync`/`fdatasync`).
    SyncLatencyMs = "sync_latency_ms", Milliseconds;
    /// Average size of a read.
    ReadIoKib = "read_io_kib", Kib;
    /// Average size of a write.
    WriteIoKib = "write_io_kib", Kib;
    /// Average size of any IO.
    IoKib = "io_kib", Kib;
    /// Average outstanding reads.
    ReadQueueDepth = "read_queue_depth", Ios;
    /// Average outstanding writes.
    WriteQueueDepth = "write_queue_depth", Ios;
    /// Average outstanding IOs (PerfMon Avg. Disk Queue Length, iostat aqu-sz, benchmark depth).
    QueueDepth = "queue_depth", Ios;
    /// Share of time the device had IO outstanding (100 - % Idle Time, iostat %util).
    BusyPct = "busy_pct", Percent;
    /// Share of operations that are reads.
    ReadPct = "read_pct", Percent;
    /// CPU busy, all cores.
    CpuPct = "cpu_pct", Percent;
    /// Memory available to processes.
    AvailableMemoryMib = "available_memory_mib", Mib;
    /// Pages read from or written to disk per second to resolve hard page faults (PerfMon
    /// `Memory\Pages/sec`), a host metric; a rate in rules, like IOPS.
    PagesPerSec = "pages_per_sec", PagesPerSecond;
    /// Share of a paging file in use (PerfMon `Paging File(\??\C:\pagefile.sys)\% Usage`),
    /// on the volume target (`C:`) whose drive holds the paging file.
    PagefileUsagePct = "pagefile_usage_pct", Percent;
    /// Azure Monitor: share of a platform budget's IOPS cap used in the minute (`VM Cached
    /// IOPS Consumed Percentage`, `Data Disk IOPS Consumed Percentage`, ...).
    IopsConsumedPct = "iops_consumed_pct", Percent;
    /// Azure Monitor: share of a platform budget's bandwidth cap used in the minute.
    MbpsConsumedPct = "mbps_consumed_pct", Percent;
    /// Azure Monitor: share of the IO burst credits used (`... Used Burst IO Credits Percentage`).
    BurstIoCreditsUsedPct = "burst_io_credits_used_pct", Percent;
    /// Azure Monitor: share of the bandwidth burst credits used.
    BurstBpsCreditsUsedPct = "burst_bps_credits_used_pct", Percent;
    /// Azure Monitor: the IOPS the disk is held to without bursting (`Data Disk Target IOPS`).
    TargetIops = "target_iops", PerSecond;
    /// Azure Monitor: the bandwidth the disk is held to without bursting.
    TargetMbps = "target_mbps", MibPerSecond;
    /// Azure Monitor: the IOPS the disk reaches while bursting (`Data Disk Max Burst IOPS`).
    MaxBurstIops = "max_burst_iops", PerSecond;
    /// Azure Monitor: the bandwidth the disk reaches while bursting.
    MaxBurstMbps = "max_burst_mbps", MibPerSecond;
    /// On a platform target: the guest's average latency in that platform minute (UTC), over
    /// the guest disks the platform target stands for; filled by the engine.
    GuestLatencyMs = "guest_latency_ms", Milliseconds;
    /// On a platform target: the guest's highest sampled latency in that platform minute.
    GuestLatencyPeakMs = "guest_latency_peak_ms", Milliseconds;
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A metric name that is not one of [`Metric::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownMetric(pub String);

impl fmt::Display for UnknownMetric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown metric `{}`", self.0)
    }
}

impl std::error::Error for UnknownMetric {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for m in Metric::ALL {
            assert!(seen.insert(m.name()), "duplicate name {}", m.name());
            assert_eq!(m.name().parse::<Metric>(), Ok(*m));
            assert_eq!(serde_json::to_value(m).ok(), Some(serde_json::json!(m.name())));
        }
        assert!("p95".parse::<Metric>().is_err());
    }
}
