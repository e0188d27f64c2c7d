//! Episodes: when a finding's series sat at its cap, sample by sample.
//!
//! A sample is at the cap when it reaches `ratio` of the cap. Consecutive samples at the
//! cap (no missing sample between them) form a run from the first sample's time stamp to
//! the last one's plus one sampling interval; runs whose gap is shorter than `gap` merge
//! (the samples between them belong to the episode); an episode at least `sustained` long
//! is sustained, a shorter one a spike. Peak and mean are over every sample inside, as
//! shares of the cap; the latency inside is the mean of the latency samples inside, set
//! against the mean of those outside every episode.

use advisor_model::{Episode, EpisodeKind};

/// The thresholds of one rule's `episodes` (seconds and fractions).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// The cap, in the series' unit.
    pub cap: f64,
    /// The share of the cap that counts as at the cap (0.95).
    pub ratio: f64,
    /// Runs closer than this (seconds) merge.
    pub gap_s: f64,
    /// An episode at least this long (seconds) is sustained.
    pub sustained_s: f64,
}

/// Episodes of a series, as time stamps and statistics: what [`to_model`] turns into the
/// report's [`Episode`]s.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// ms since 1970, wall clock as the capture wrote it.
    pub start_ms: i64,
    pub end_ms: i64,
    pub kind: EpisodeKind,
    pub samples: usize,
    /// Shares of the cap (1.0 = at the cap).
    pub peak: f64,
    pub mean: f64,
    /// Mean latency inside (stored units: seconds).
    pub latency_s: Option<f64>,
}

/// Episodes of `points` (time-ordered (ms, value)), sampled every `interval_s`; latency
/// samples by time, when the rule names a latency series. Returns the episodes and the
/// mean latency outside all of them.
pub fn find(
    points: &[(i64, f64)],
    interval_s: f64,
    t: Thresholds,
    latency: Option<&[(i64, f64)]>,
) -> (Vec<Found>, Option<f64>) {
    let positive = |v: f64| v.is_finite() && v > 0.0;
    if points.is_empty() || !positive(t.cap) || !positive(interval_s) {
        return (Vec::new(), latency.and_then(|l| mean(l.iter().map(|p| p.1))));
    }
    let step = (interval_s * 1000.0).round() as i64;
    let level = t.cap * t.ratio;
    // Runs of consecutive samples at the cap, as (first index, last index).
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (i, &(ts, v)) in points.iter().enumerate() {
        if v < level {
            continue;
        }
        match runs.last_mut() {
            // The sample right after the run's last one, with no sample missing between.
            Some((_, last)) if *last + 1 == i && ts - points[*last].0 <= step * 3 / 2 => {
                *last = i;
            }
            _ => runs.push((i, i)),
        }
    }
    let gap_ms = (t.gap_s * 1000.0).round() as i64;
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (a, b) in runs {
        match merged.last_mut() {
            // The gap: from the end of the previous run to the start of this one.
            Some((_, last)) if points[a].0 - (points[*last].0 + step) < gap_ms => *last = b,
            _ => merged.push((a, b)),
        }
    }
    let sustained_ms = (t.sustained_s * 1000.0).round() as i64;
    let mut found = Vec::with_capacity(merged.len());
    let mut inside: Vec<(i64, i64)> = Vec::with_capacity(merged.len());
    for (a, b) in merged {
        let (start_ms, end_ms) = (points[a].0, points[b].0 + step);
        let shares: Vec<f64> = points[a..=b].iter().map(|p| p.1 / t.cap).collect();
        let peak = shares.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let latency_s = latency
            .and_then(|l| mean(l.iter().filter(|p| p.0 >= start_ms && p.0 < end_ms).map(|p| p.1)));
        found.push(Found {
            start_ms,
            end_ms,
            kind: if end_ms - start_ms >= sustained_ms {
                EpisodeKind::Sustained
            } else {
                EpisodeKind::Spike
            },
            samples: shares.len(),
            peak,
            mean: mean(shares.iter().copied()).unwrap_or(peak),
            latency_s,
        });
        inside.push((start_ms, end_ms));
    }
    let outside = latency.and_then(|l| {
        mean(l.iter().filter(|p| !inside.iter().any(|(s, e)| p.0 >= *s && p.0 < *e)).map(|p| p.1))
    });
    (found, outside)
}

fn mean(it: impl Iterator<Item = f64>) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0usize);
    for v in it.filter(|v| v.is_finite()) {
        sum += v;
        n += 1;
    }
    (n > 0).then(|| sum / n as f64)
}

/// A [`Found`] as the report's [`Episode`] (times as ISO 8601 wall clock, shares in %,
/// latency in ms).
pub fn to_model(f: &Found) -> Episode {
    Episode {
        start: iso(f.start_ms),
        end: iso(f.end_ms),
        duration_s: (f.end_ms - f.start_ms) as f64 / 1000.0,
        kind: f.kind,
        samples: f.samples as u64,
        peak_pct: round(f.peak * 100.0, 1),
        mean_pct: round(f.mean * 100.0, 1),
        latency_ms: f.latency_s.map(|s| round(s * 1000.0, 3)),
    }
}

pub(crate) fn round(v: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (v * f).round() / f
}

/// ms since 1970 as `YYYY-MM-DDTHH:MM:SS` (`.mmm` when not on a whole second).
pub fn iso(ms: i64) -> String {
    let (date, _) = super::value::clock(ms);
    let secs = ms.div_euclid(1000);
    let rem = secs.rem_euclid(86_400);
    let (h, mi, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    let frac = ms.rem_euclid(1000);
    if frac == 0 {
        format!("{date}T{h:02}:{mi:02}:{s:02}")
    } else {
        format!("{date}T{h:02}:{mi:02}:{s:02}.{frac:03}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_718_116_200_000; // 2024-06-11T14:30:00

    fn series(values: &[f64]) -> Vec<(i64, f64)> {
        values.iter().enumerate().map(|(i, v)| (T0 + i as i64 * 1000, *v)).collect()
    }

    fn th(gap_s: f64) -> Thresholds {
        Thresholds { cap: 100.0, ratio: 0.95, gap_s, sustained_s: 30.0 }
    }

    /// Two spikes of 2 and 3 s and one sustained stretch of 40 s, far apart.
    fn two_spikes_one_stretch() -> Vec<f64> {
        let mut v = vec![50.0; 120];
        v[10] = 99.0;
        v[11] = 101.0;
        v[30..33].copy_from_slice(&[96.0, 120.0, 97.0]);
        for x in &mut v[60..100] {
            *x = 100.0;
        }
        v[80] = 104.0;
        v
    }

    #[test]
    fn two_spikes_and_one_sustained_stretch() {
        let (eps, _) = find(&series(&two_spikes_one_stretch()), 1.0, th(5.0), None);
        let got: Vec<(String, String, f64, EpisodeKind, f64)> = eps
            .iter()
            .map(to_model)
            .map(|e| (e.start, e.end, e.duration_s, e.kind, e.peak_pct))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "2024-06-11T14:30:10".into(),
                    "2024-06-11T14:30:12".into(),
                    2.0,
                    EpisodeKind::Spike,
                    101.0
                ),
                (
                    "2024-06-11T14:30:30".into(),
                    "2024-06-11T14:30:33".into(),
                    3.0,
                    EpisodeKind::Spike,
                    120.0
                ),
                (
                    "2024-06-11T14:31:00".into(),
                    "2024-06-11T14:31:40".into(),
                    40.0,
                    EpisodeKind::Sustained,
                    104.0
                ),
            ]
        );
        // Mean share of the stretch: 39 samples at 100% and one at 104%.
        assert!((to_model(&eps[2]).mean_pct - 100.1).abs() < 1e-9);
    }

    #[test]
    fn close_episodes_merge_and_far_ones_do_not() {
        // Runs at 10-11 and 14-15: 2 s apart (12 and 13 below the cap).
        let mut v = vec![50.0; 30];
        for i in [10, 11, 14, 15] {
            v[i] = 100.0;
        }
        let (apart, _) = find(&series(&v), 1.0, th(2.0), None);
        assert_eq!(apart.len(), 2, "a 2 s gap is not closer than 2 s");
        let (merged, _) = find(&series(&v), 1.0, th(3.0), None);
        assert_eq!(merged.len(), 1);
        let e = to_model(&merged[0]);
        assert_eq!(
            (e.start.as_str(), e.end.as_str()),
            ("2024-06-11T14:30:10", "2024-06-11T14:30:16")
        );
        // The samples between belong to the episode: 6 samples, two of them at 50%.
        assert_eq!((e.samples, e.mean_pct), (6, 83.3));
    }

    #[test]
    fn a_missing_sample_splits_a_run() {
        let pts = vec![(T0, 100.0), (T0 + 1000, 100.0), (T0 + 5000, 100.0)];
        let (eps, _) = find(&pts, 1.0, th(0.0), None);
        assert_eq!(eps.len(), 2);
        assert_eq!(eps[0].end_ms, T0 + 2000);
    }

    #[test]
    fn latency_inside_against_outside() {
        let v = series(&two_spikes_one_stretch());
        let lat: Vec<(i64, f64)> =
            v.iter().map(|(t, x)| (*t, if *x >= 95.0 { 0.037 } else { 0.002 })).collect();
        let (eps, outside) = find(&v, 1.0, th(5.0), Some(&lat));
        assert!(eps.iter().all(|e| e.latency_s.is_some_and(|l| (l - 0.037).abs() < 1e-12)));
        assert!(outside.is_some_and(|o| (o - 0.002).abs() < 1e-12));
    }

    #[test]
    fn nothing_at_the_cap_is_no_episode() {
        let (eps, outside) = find(&series(&[10.0, 20.0, 94.0]), 1.0, th(5.0), None);
        assert!(eps.is_empty());
        assert!(outside.is_none());
    }

    #[test]
    fn iso_times() {
        assert_eq!(iso(T0), "2024-06-11T14:30:00");
        assert_eq!(iso(T0 + 250), "2024-06-11T14:30:00.250");
    }
}
