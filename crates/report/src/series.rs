//! Chart data: the analysis's sampled series and the limits they are measured against,
//! turned into what a chart draws (the series' name, its cap lines, their labels and units).
//!
//! Caps are labelled in the units a person reads on the Azure pages (IOPS, MB/s of 10^6
//! bytes) and drawn in the chart's unit: throughput charts are in MiB/s, as the captures'
//! `mbps` metric is.

use advisor_model::{Analysis, DiskCaps, SampledSeries, SeriesOf, VmCaps};

/// A line drawn on a chart: a disk's or the VM's cap.
#[derive(Debug, Clone, PartialEq)]
pub struct CapLine {
    pub label: String,
    /// In the chart's unit.
    pub value: f64,
}

/// One line of a time-series chart, with its caps.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartSeries {
    /// The capture target, or the VM budget the series sums.
    pub target: String,
    pub file: String,
    pub metric: String,
    /// (ms since 1970, wall clock as written, value in the metric's unit).
    pub points: Vec<(i64, f64)>,
    pub caps: Vec<CapLine>,
}

const MIB: f64 = 1024.0 * 1024.0;

/// A throughput cap (MB/s) as a line in MiB/s, labelled with both.
fn mbps_cap(label: String, mbps: f64) -> CapLine {
    CapLine {
        label: format!("{label} {mbps:.0} MB/s ({:.1} MiB/s)", mbps * 1e6 / MIB),
        value: mbps * 1e6 / MIB,
    }
}

fn iops_cap(label: String, iops: f64) -> CapLine {
    CapLine { label: format!("{label} {iops:.0} IOPS"), value: iops }
}

fn disk_caps(d: &DiskCaps, metric: &str, caps: &mut Vec<CapLine>) {
    let name = &d.name;
    match metric {
        "iops" => {
            if let Some(c) = d.iops {
                caps.push(iops_cap(format!("{name} cap"), c));
            }
            if let Some(c) = d.burst_iops {
                caps.push(iops_cap(format!("{name} burst"), c));
            }
        }
        "mbps" => {
            if let Some(c) = d.mbps {
                caps.push(mbps_cap(format!("{name} cap"), c));
            }
        }
        _ => {}
    }
}

fn vm_caps(vm: &VmCaps, metric: &str, caps: &mut Vec<CapLine>) {
    let size = &vm.size;
    match metric {
        "iops" => {
            for (what, c) in [("uncached", vm.uncached_iops), ("cached", vm.cached_iops)] {
                if let Some(c) = c {
                    caps.push(iops_cap(format!("{size} {what}"), c));
                }
            }
        }
        "mbps" => {
            for (what, c) in [("uncached", vm.uncached_mbps), ("cached", vm.cached_mbps)] {
                if let Some(c) = c {
                    caps.push(mbps_cap(format!("{size} {what}"), c));
                }
            }
        }
        _ => {}
    }
}

/// The chart line of one sampled series.
pub fn chart_series(s: &SampledSeries) -> ChartSeries {
    let mut caps = Vec::new();
    let target = match &s.of {
        SeriesOf::Target { name, disk, vm } => {
            // Azure Monitor's consumed shares: the cap is 100% whatever its figure.
            if s.metric.ends_with("_consumed_pct") {
                caps.push(CapLine { label: "cap 100%".to_owned(), value: 100.0 });
            }
            if let Some(d) = disk {
                disk_caps(d, &s.metric, &mut caps);
            }
            if let Some(vm) = vm {
                vm_caps(vm, &s.metric, &mut caps);
            }
            name.clone()
        }
        SeriesOf::Budget { cached, counted, members, vm } => {
            let (kind, label) = if *cached {
                ("cached", "host-cached disks + temp disk")
            } else {
                ("uncached", "all remote disks")
            };
            let (iops, mbps) = if *cached {
                (vm.cached_iops, vm.cached_mbps)
            } else {
                (vm.uncached_iops, vm.uncached_mbps)
            };
            let cap = match s.metric.as_str() {
                "mbps" => mbps.map(|c| mbps_cap(format!("{} {kind}", vm.size), c)),
                _ => iops.map(|c| iops_cap(format!("{} {kind}", vm.size), c)),
            };
            caps.extend(cap);
            format!("VM {kind}: {label} ({counted} of {members} disks captured)")
        }
    };
    ChartSeries {
        target,
        file: s.file.clone(),
        metric: s.metric.clone(),
        points: s.points.clone(),
        caps,
    }
}

/// The ceilings the `inferred-*` rules read from the data (their findings' `ceiling_iops`
/// and `ceiling_mbps`), as lines of their own beside the published caps: a target's own
/// (inferred-disk-cap, by subject) and the summed disks' (inferred-vm-cap, on the uncached
/// budget's chart, the sum of all remote disks).
fn inferred_caps(analysis: &Analysis, s: &SampledSeries) -> Vec<CapLine> {
    let (rule, subject) = match &s.of {
        SeriesOf::Target { name, .. } => ("inferred-disk-cap", name.as_str()),
        SeriesOf::Budget { cached: false, .. } => ("inferred-vm-cap", "vm"),
        SeriesOf::Budget { .. } => return Vec::new(),
    };
    let who = if rule == "inferred-vm-cap" { "all disks" } else { subject };
    analysis
        .findings
        .iter()
        .filter(|f| f.rule == rule && f.subject == subject)
        .filter_map(|f| match s.metric.as_str() {
            "iops" => f
                .metrics
                .get("ceiling_iops")
                .map(|v| iops_cap(format!("inferred ceiling of {who} (read from the data)"), *v)),
            "mbps" => f
                .metrics
                .get("ceiling_mbps")
                .map(|v| mbps_cap(format!("inferred ceiling of {who} (read from the data)"), *v)),
            _ => None,
        })
        .filter(|c| c.value.is_finite())
        .collect()
}

/// Every chart line of an analysis, in its order, with the inferred ceilings.
pub fn chart_data(analysis: &Analysis) -> Vec<ChartSeries> {
    analysis
        .series
        .iter()
        .map(|s| {
            let mut c = chart_series(s);
            c.caps.extend(inferred_caps(analysis, s));
            c
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn azure_monitor_consumed_shares_get_the_100_percent_line() {
        let s = SampledSeries {
            of: SeriesOf::Target { name: "VM cached".to_owned(), disk: None, vm: None },
            file: "metrics.json".to_owned(),
            metric: "mbps_consumed_pct".to_owned(),
            points: vec![(0, 20.0), (60_000, 100.0)],
        };
        let c = chart_series(&s);
        assert_eq!(c.caps, [CapLine { label: "cap 100%".to_owned(), value: 100.0 }]);
        assert_eq!(crate::charts::family(&c.metric).1, "Consumed of the cap (Azure Monitor)");
        let svg = crate::charts::time_series("Consumed: VM cached", &[&c], &[]).unwrap_or_default();
        assert!(svg.contains("cap 100%"), "{svg}");
        // A guest capture's series has no such line.
        let guest = SampledSeries { metric: "mbps".to_owned(), ..s };
        assert!(chart_series(&guest).caps.is_empty());
    }
}
