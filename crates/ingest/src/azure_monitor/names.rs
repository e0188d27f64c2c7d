//! Azure Monitor's metric names and resource ids, mapped to advisor's platform targets and
//! canonical metrics. Names from <https://learn.microsoft.com/azure/virtual-machines/disks-metrics>
//! and the supported-metrics reference of `Microsoft.Compute/virtualMachines`,
//! `virtualMachineScaleSets` and `disks`.

use advisor_model::Metric;

/// What kind of Azure resource a metric belongs to, from its resource id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceKind {
    /// `Microsoft.Compute/virtualMachines` (or a scale set and its instances).
    Vm,
    /// `Microsoft.Compute/disks`: a managed disk's own metrics.
    Disk,
    /// Anything else, or no id.
    Unknown,
}

/// A resource id, read for its kind and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    pub kind: ResourceKind,
    /// The VM's, scale set's or disk's name.
    pub name: Option<String>,
}

/// Reads `/subscriptions/../providers/Microsoft.Compute/virtualMachines/NAME[/providers/...]`.
pub fn resource(id: &str) -> Resource {
    let parts: Vec<&str> = id.split('/').filter(|p| !p.is_empty()).collect();
    let mut out = Resource { kind: ResourceKind::Unknown, name: None };
    for w in parts.windows(3) {
        if !w[0].eq_ignore_ascii_case("Microsoft.Compute") {
            continue;
        }
        let kind = match w[1].to_ascii_lowercase().as_str() {
            "virtualmachines" | "virtualmachinescalesets" => ResourceKind::Vm,
            "disks" => ResourceKind::Disk,
            _ => continue,
        };
        out = Resource { kind, name: Some(w[2].to_owned()) };
        break;
    }
    out
}

/// Which platform target a metric describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// A fixed budget of the VM (`VM cached`, `VM uncached`, `OS disk`, `VM disks`).
    Named(&'static str),
    /// A data disk, by its `LUN` dimension (on a VM) or the disk resource itself.
    Lun,
    /// The resource the metric belongs to (a managed disk's own metrics).
    Resource,
}

/// How a value converts to the canonical unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Already in the canonical unit (percent, per second, ms, count).
    Same,
    /// Bytes per second to MiB/s.
    BytesToMib,
}

impl Scale {
    pub fn apply(self, v: f64) -> f64 {
        match self {
            Self::Same => v,
            Self::BytesToMib => v / (1024.0 * 1024.0),
        }
    }
}

/// A recognised Azure Monitor metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlatformMetric {
    pub subject: Subject,
    pub metric: Metric,
    pub scale: Scale,
}

/// The platform metric an Azure Monitor metric name stands for (case-insensitive, with the
/// early misspelling "Consumed Percentange" accepted), or `None` for one advisor ignores.
pub fn metric_of(name: &str, kind: ResourceKind) -> Option<PlatformMetric> {
    let lower = name.trim().to_ascii_lowercase().replace("percentange", "percentage");
    let (subject, rest) = if let Some(r) = lower.strip_prefix("vm cached ") {
        (Subject::Named("VM cached"), r)
    } else if let Some(r) = lower.strip_prefix("vm uncached ") {
        (Subject::Named("VM uncached"), r)
    } else if let Some(r) = lower.strip_prefix("data disk ") {
        (if kind == ResourceKind::Disk { Subject::Resource } else { Subject::Lun }, r)
    } else if let Some(r) = lower.strip_prefix("os disk ") {
        (Subject::Named("OS disk"), r)
    } else if let Some(r) = lower.strip_prefix("composite disk ") {
        (Subject::Resource, r)
    } else if let Some(r) = lower.strip_prefix("disk ") {
        (if kind == ResourceKind::Disk { Subject::Resource } else { Subject::Named("VM disks") }, r)
    } else {
        return None;
    };
    use Metric::*;
    let (metric, scale) = match rest {
        "iops consumed percentage" => (IopsConsumedPct, Scale::Same),
        "bandwidth consumed percentage" => (MbpsConsumedPct, Scale::Same),
        "read bytes/sec" | "read bytes" => (ReadMbps, Scale::BytesToMib),
        "write bytes/sec" | "write bytes" => (WriteMbps, Scale::BytesToMib),
        "read operations/sec" => (ReadIops, Scale::Same),
        "write operations/sec" => (WriteIops, Scale::Same),
        "latency" => (LatencyMs, Scale::Same),
        "queue depth" => (QueueDepth, Scale::Same),
        "max burst iops" => (MaxBurstIops, Scale::Same),
        "max burst bandwidth" => (MaxBurstMbps, Scale::BytesToMib),
        "target iops" => (TargetIops, Scale::Same),
        "target bandwidth" => (TargetMbps, Scale::BytesToMib),
        "used burst io credits percentage" => (BurstIoCreditsUsedPct, Scale::Same),
        "used burst bps credits percentage" => (BurstBpsCreditsUsedPct, Scale::Same),
        _ => return None,
    };
    Some(PlatformMetric { subject, metric, scale })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_ids() {
        let vm = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/sql1/providers/Microsoft.Insights/metrics/VM Cached IOPS Consumed Percentage";
        assert_eq!(resource(vm), Resource { kind: ResourceKind::Vm, name: Some("sql1".into()) });
        let disk = "/subscriptions/s/resourceGroups/rg/providers/microsoft.compute/disks/data0";
        assert_eq!(resource(disk).kind, ResourceKind::Disk);
        assert_eq!(resource("").kind, ResourceKind::Unknown);
        assert_eq!(resource("/a/b/Microsoft.Compute").name, None);
    }

    #[test]
    fn names() {
        let m = |n| metric_of(n, ResourceKind::Vm).map(|p| (p.subject, p.metric));
        assert_eq!(
            m("VM Cached IOPS Consumed Percentage"),
            Some((Subject::Named("VM cached"), Metric::IopsConsumedPct))
        );
        assert_eq!(
            m("VM Uncached Bandwidth Consumed Percentange"),
            Some((Subject::Named("VM uncached"), Metric::MbpsConsumedPct))
        );
        assert_eq!(m("Data Disk Read Bytes/sec"), Some((Subject::Lun, Metric::ReadMbps)));
        assert_eq!(m("OS Disk Latency"), Some((Subject::Named("OS disk"), Metric::LatencyMs)));
        assert_eq!(
            m("Disk Write Operations/Sec"),
            Some((Subject::Named("VM disks"), Metric::WriteIops))
        );
        assert_eq!(m("Percentage CPU"), None);
        assert_eq!(
            metric_of("Data Disk Target IOPS", ResourceKind::Disk).map(|p| p.subject),
            Some(Subject::Resource)
        );
    }
}
