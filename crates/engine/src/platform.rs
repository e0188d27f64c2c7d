//! Azure Monitor's platform targets beside the guest's captures: guest clocks aligned to UTC,
//! and, per platform target and minute, the guest's latency on the disks that budget meters
//! (`guest_latency_ms`, `guest_latency_peak_ms`), which `platform-confirms-guest-latency`
//! reads. Only when the inputs hold Azure Monitor metrics; otherwise nothing changes.

use std::collections::HashMap;

use advisor_model::{Metric, Reduced, Scale, TargetKind};
use advisor_normalize::Capture;
use std::sync::Arc;

use advisor_model::Direction;
use advisor_rules::eval::{
    AxisOrPoints, DiskInfo, KnownRanks, Series, SeriesSource, SourceValues, TargetId, TargetInfo,
};

use crate::capture_series::CaptureSeries;
use advisor_topology::{Cache, Topology};

/// What the join of platform and guest captures adds to the rules' view.
#[derive(Debug, Default)]
pub(crate) struct Platform {
    /// Per capture: milliseconds to add to its clock to reach UTC.
    pub(crate) shift_ms: Vec<i64>,
    /// Series the engine derives for platform targets.
    pub(crate) derived: HashMap<(TargetId, Metric), Series>,
    /// What was aligned, assumed or could not be joined, for the report's warnings.
    pub(crate) notes: Vec<String>,
}

fn is_platform(c: &Capture) -> bool {
    c.targets().iter().any(|t| t.kind == TargetKind::Platform)
}

fn hm(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.naive_utc().format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_default()
}

/// The topology disk a platform target stands for: `LUN <n>` through the topology's LUN
/// map (`lun = n`), `OS disk` by role, a managed disk's resource by its name.
fn disk_of<'t>(base: &str, topology: Option<&'t Topology>) -> Option<&'t str> {
    let t = topology?;
    if let Some(n) = base.strip_prefix("LUN ").and_then(|n| n.trim().parse::<u32>().ok()) {
        return t.disks.iter().find(|d| d.lun == Some(n)).map(|d| d.name.as_str());
    }
    if base == "OS disk" {
        return t
            .disks
            .iter()
            .find(|d| d.role == advisor_topology::Role::Os)
            .map(|d| d.name.as_str());
    }
    t.disks.iter().find(|d| d.name == base).map(|d| d.name.as_str())
}

/// Names each platform target (Azure Monitor's `LUN 0`) by the disk the topology's LUN map
/// gives it, `E: (LUN 0)`: part of binding, so the facts carry the name every report shows.
pub(crate) fn name_by_lun(targets: &mut [TargetInfo], topology: Option<&Topology>) {
    for t in targets.iter_mut().filter(|t| t.kind == TargetKind::Platform) {
        if t.name.starts_with("LUN ")
            && let Some(name) = disk_of(&t.name, topology)
        {
            t.name = format!("{name} ({})", t.name);
        }
    }
}

/// Aligns the guest captures to UTC and joins them to the platform targets (named by
/// [`name_by_lun`] when they were bound).
pub(crate) fn join(
    captures: &[Capture],
    targets: &[TargetInfo],
    disks: &[DiskInfo],
    topology: Option<&Topology>,
) -> Platform {
    let mut p = Platform { shift_ms: vec![0; captures.len()], ..Platform::default() };
    if !captures.iter().any(is_platform) {
        return p;
    }
    let guests: Vec<usize> = (0..captures.len())
        .filter(|&i| !is_platform(&captures[i]) && !captures[i].format().is_benchmark())
        .collect();
    for &i in &guests {
        let c = &captures[i];
        match c.meta.utc_offset_min {
            Some(off) => {
                p.shift_ms[i] = -i64::from(off) * 60_000;
                if off != 0 {
                    p.notes.push(format!(
                        "{}: local time UTC{:+03}:{:02} (from the capture) aligned to UTC to join it with Azure Monitor",
                        c.file,
                        off / 60,
                        (off % 60).abs()
                    ));
                }
            }
            None => p.notes.push(format!(
                "{}: the capture states no time zone: its clock is assumed to be UTC to join it with Azure Monitor (a VM set to local time shifts the join by its offset)",
                c.file
            )),
        }
    }
    let series = |id: TargetId, m: Metric, shift: &[i64]| -> Series {
        let s = shift.get(id.capture).copied().unwrap_or(0);
        captures
            .get(id.capture)
            .map(|c| c.series(id.target, m))
            .unwrap_or_default()
            .into_iter()
            .map(|(t, v)| (t.map(|t| t + s), v))
            .collect()
    };
    // The guest's storage targets with latency, per budget.
    let guest_targets: Vec<&TargetInfo> = targets
        .iter()
        .filter(|t| guests.contains(&t.id.capture))
        .filter(|t| matches!(t.kind, TargetKind::Disk | TargetKind::Device | TargetKind::Volume))
        .collect();
    let fallback: Vec<TargetId> = {
        let best = [TargetKind::Disk, TargetKind::Device, TargetKind::Volume]
            .into_iter()
            .find(|k| guest_targets.iter().any(|t| t.kind == *k));
        guest_targets.iter().filter(|t| Some(t.kind) == best).map(|t| t.id).collect()
    };
    let first_targets = |keep: &dyn Fn(&DiskInfo) -> bool| -> Vec<TargetId> {
        disks
            .iter()
            .filter(|d| keep(d))
            .filter_map(|d| d.targets.iter().find(|id| guests.contains(&id.capture)).copied())
            .collect()
    };
    let guest_window = guests.iter().filter_map(|&i| {
        captures[i].time_range().map(|(a, b)| (a + p.shift_ms[i], b + p.shift_ms[i]))
    });
    let guest_window = guest_window.reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));
    let mut no_overlap = Vec::new();
    for t in targets.iter().filter(|t| t.kind == TargetKind::Platform) {
        // `E: (LUN 0)` after the rename, `web_1: LUN 0` in a scale set.
        let base =
            t.name.rsplit_once(" (").map_or(t.name.as_str(), |(_, l)| l.trim_end_matches(')'));
        let base = base.rsplit(": ").next().unwrap_or(base);
        let members: Vec<TargetId> = match base {
            _ if disks.is_empty() => {
                if base.starts_with("LUN ") || base == "OS disk" {
                    Vec::new()
                } else {
                    fallback.clone()
                }
            }
            "VM cached" => first_targets(&|d| d.temp || d.limits.cache != Cache::None),
            "VM uncached" | "VM disks" => first_targets(&|d| !d.temp),
            other => match disk_of(other, topology) {
                Some(name) => first_targets(&|d| !d.temp && d.limits.name == name),
                None => Vec::new(),
            },
        };
        if members.is_empty() || guests.is_empty() {
            continue;
        }
        let minutes: Vec<i64> =
            [Metric::IopsConsumedPct, Metric::MbpsConsumedPct, Metric::ReadIops]
                .into_iter()
                .map(|m| series(t.id, m, &p.shift_ms))
                .find(|s| !s.is_empty())
                .unwrap_or_default()
                .into_iter()
                .filter_map(|(t, _)| t)
                .collect();
        let Some((&first, &last)) = minutes.first().zip(minutes.last()) else { continue };
        let grain = captures
            .get(t.id.capture)
            .and_then(|c| c.meta.interval_s)
            .map_or(60_000, |s| (s * 1000.0) as i64)
            .max(1);
        if let Some((g0, g1)) = guest_window
            && (g1 < first || g0 >= last + grain)
        {
            no_overlap.push((t.name.clone(), first, last + grain));
            continue;
        }
        // Each member's latency once, time-ordered (a day of 1 s samples is 86,400 points;
        // the minutes are found by binary search, not by a scan per minute).
        let member_series: Vec<Vec<(i64, f64)>> = members
            .iter()
            .map(|id| {
                let mut v: Vec<(i64, f64)> = series(*id, Metric::LatencyMs, &p.shift_ms)
                    .into_iter()
                    .filter_map(|(t, v)| t.map(|t| (t, v)))
                    .collect();
                v.sort_by_key(|x| x.0);
                v
            })
            .collect();
        let mut mean: Series = Vec::new();
        let mut peak: Series = Vec::new();
        for &minute in &minutes {
            let mut worst_mean: Option<f64> = None;
            let mut worst: Option<f64> = None;
            for s in &member_series {
                let from = s.partition_point(|x| x.0 < minute);
                let to = s.partition_point(|x| x.0 < minute + grain);
                let vals = &s[from..to.max(from)];
                if vals.is_empty() {
                    continue;
                }
                let m = vals.iter().map(|x| x.1).sum::<f64>() / vals.len() as f64;
                let x = vals.iter().map(|x| x.1).fold(f64::MIN, f64::max);
                worst_mean = Some(worst_mean.map_or(m, |w| w.max(m)));
                worst = Some(worst.map_or(x, |w| w.max(x)));
            }
            if let (Some(m), Some(x)) = (worst_mean, worst) {
                mean.push((Some(minute), m));
                peak.push((Some(minute), x));
            }
        }
        if !mean.is_empty() {
            p.derived.insert((t.id, Metric::GuestLatencyMs), mean);
            p.derived.insert((t.id, Metric::GuestLatencyPeakMs), peak);
        }
    }
    if let (Some((g0, g1)), Some((_, p0, p1))) = (guest_window, no_overlap.first()) {
        let names: Vec<&str> = no_overlap.iter().map(|(n, _, _)| n.as_str()).collect();
        p.notes.push(format!(
            "no join of the guest capture with Azure Monitor for {}: the windows do not overlap (guest {} to {} UTC, platform {} to {} UTC)",
            names.join(", "),
            hm(g0),
            hm(g1),
            hm(*p0),
            hm(*p1)
        ));
    }
    p
}

/// The captures' series with the guest clocks shifted to UTC and the series the join
/// derives for platform targets: what the rules and charts read when Azure Monitor metrics
/// are among the inputs (otherwise the captures' own, unchanged).
pub(crate) struct PlatformSeries<'a> {
    pub(crate) captures: CaptureSeries<'a>,
    pub(crate) platform: &'a Platform,
}

impl PlatformSeries<'_> {
    fn shift(&self, target: TargetId) -> i64 {
        self.platform.shift_ms.get(target.capture).copied().unwrap_or(0)
    }
}

impl SeriesSource for PlatformSeries<'_> {
    fn series(&self, target: TargetId, metric: Metric) -> Option<Arc<Series>> {
        if let Some(s) = self.platform.derived.get(&(target, metric)) {
            return Some(Arc::new(s.clone()));
        }
        let s = self.captures.series(target, metric)?;
        match self.shift(target) {
            0 => Some(s),
            d => Some(Arc::new(s.iter().map(|(t, v)| (t.map(|t| t + d), *v)).collect())),
        }
    }
    fn series_columns(
        &self,
        target: TargetId,
        metric: Metric,
    ) -> Option<(Vec<Option<i64>>, Vec<f64>)> {
        if let Some(s) = self.platform.derived.get(&(target, metric)) {
            return Some(s.iter().copied().unzip());
        }
        let (mut times, vals) = self.captures.series_columns(target, metric)?;
        let d = self.shift(target);
        if d != 0 {
            times.iter_mut().flatten().for_each(|t| *t += d);
        }
        Some((times, vals))
    }
    fn axis(&self, target: TargetId) -> Option<Vec<Option<i64>>> {
        let mut times = self.captures.axis(target)?;
        let d = self.shift(target);
        if d != 0 {
            times.iter_mut().flatten().for_each(|t| *t += d);
        }
        Some(times)
    }
    fn axis_is(&self, target: TargetId, times: &[i64]) -> bool {
        self.captures.axis_is_shifted(target, times, self.shift(target))
    }
    fn axis_or_points_scaled(&self, t: TargetId, m: Metric, s: Scale) -> Option<AxisOrPoints> {
        // A derived series has its own time stamps.
        if self.platform.derived.contains_key(&(t, m)) {
            return self.series_columns(t, m).map(Err);
        }
        match self.captures.axis_or_points_scaled(t, m, s)? {
            Ok(vals) => Some(Ok(vals)),
            Err((mut times, vals)) => {
                let d = self.shift(t);
                if d != 0 {
                    times.iter_mut().flatten().for_each(|x| *x += d);
                }
                Some(Err((times, vals)))
            }
        }
    }
    fn axis_values_in_place(&self, t: TargetId, m: Metric) -> Option<SourceValues> {
        // Values on the axis do not move with it; a derived series has its own stamps.
        if self.platform.derived.contains_key(&(t, m)) {
            return None;
        }
        self.captures.axis_values_in_place(t, m)
    }
    fn reduced(&self, target: TargetId, metric: Metric, n: usize) -> Option<Reduced> {
        if let Some(s) = self.platform.derived.get(&(target, metric)) {
            return Some(Reduced::of_series(s, n));
        }
        let mut r = self.captures.reduced(target, metric, n)?;
        let d = self.shift(target);
        if d != 0 {
            r.points.iter_mut().for_each(|(t, _)| *t += d);
        }
        Some(r)
    }
    fn source_percentile(&self, target: TargetId, direction: Direction, pct: f64) -> Option<f64> {
        self.captures.source_percentile(target, direction, pct)
    }
    fn interval_s(&self, target: TargetId) -> Option<f64> {
        self.captures.interval_s(target)
    }
    fn known_ranks(&self, target: TargetId, metric: Metric) -> Option<KnownRanks> {
        // A series worked out from the platform's is not the capture's.
        if self.platform.derived.contains_key(&(target, metric)) {
            return None;
        }
        self.captures.known_ranks(target, metric)
    }
}
