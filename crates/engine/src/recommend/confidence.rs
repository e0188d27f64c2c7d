//! How far a recommendation's figures can be trusted: the capture's length, its gaps and
//! its interval.

use advisor_model::Confidence;
use advisor_normalize::Capture;

/// Shorter than this, a capture shows only its own minutes (a daily job, a backup window
/// or a month-end peak outside them is not in the figures).
const SHORT_S: f64 = 3600.0;
/// A day covers a daily cycle.
const DAY_S: f64 = 86_400.0;
/// Samples this coarse are averages that hide bursts (the report's coarse-interval note).
const COARSE_S: f64 = 60.0;
/// Missing samples above this share lower the level.
const GAP_SHARE: f64 = 0.05;

fn minutes(s: f64) -> String {
    if s >= 2.0 * 3600.0 {
        format!("{:.1} hours", s / 3600.0)
    } else if s >= 120.0 {
        format!("{:.0} minutes", s / 60.0)
    } else {
        format!("{s:.0} s")
    }
}

/// Missing samples in a capture: per step longer than 1.5 intervals, the samples it skips.
fn gaps(c: &Capture, iv: f64) -> (u64, u64) {
    let Some(first) = c.targets().first() else { return (0, 0) };
    let _ = first;
    let times: Vec<i64> =
        c.series(0, advisor_model::Metric::Iops).into_iter().filter_map(|(t, _)| t).collect();
    let step = (iv * 1000.0).max(1.0);
    let mut missing = 0u64;
    for w in times.windows(2) {
        let d = (w[1] - w[0]) as f64;
        if d > 1.5 * step {
            missing += ((d / step).round() as u64).saturating_sub(1);
        }
    }
    (missing, times.len() as u64)
}

pub(crate) fn of(captures: &[Capture]) -> Confidence {
    let mut reasons = Vec::new();
    let span_s = captures
        .iter()
        .filter_map(Capture::time_range)
        .map(|(a, b)| (b - a) as f64 / 1000.0)
        .fold(0.0, f64::max);
    let interval_s = captures.iter().filter_map(|c| c.meta.interval_s).reduce(f64::max);
    let bench = captures.iter().any(|c| !c.meta.bench.is_empty());
    let (mut gaps_n, mut samples) = (0, 0);
    for c in captures {
        if let Some(iv) = c.meta.interval_s {
            let (g, n) = gaps(c, iv);
            gaps_n += g;
            samples += n;
        }
    }
    // 0 low, 1 medium, 2 high
    let mut level: i32 = if span_s < SHORT_S {
        reasons.push(format!(
            "The capture spans {}: a daily job, a backup or a month-end peak outside it is not in \
             these figures; capture a whole business cycle (a day or more) before buying",
            minutes(span_s)
        ));
        0
    } else if span_s < DAY_S {
        reasons.push(format!(
            "The capture spans {}: less than a day, so a daily peak may be missing",
            minutes(span_s)
        ));
        1
    } else {
        reasons.push(format!("The capture spans {}: a daily cycle is in it", minutes(span_s)));
        2
    };
    if bench {
        reasons.push(
            "A benchmark (fio, DiskSpd) shows what the disk can do, not what the workload asks"
                .to_owned(),
        );
        level = 0;
    }
    if let Some(iv) = interval_s.filter(|iv| *iv >= COARSE_S) {
        reasons.push(format!(
            "One sample every {iv:.0} s: averages that hide bursts, so short peaks are under-counted"
        ));
        level = level.min(1);
    }
    if samples > 0 && gaps_n as f64 > GAP_SHARE * (samples + gaps_n) as f64 {
        reasons.push(format!(
            "{gaps_n} samples are missing ({:.0}% of the span)",
            gaps_n as f64 / (samples + gaps_n) as f64 * 100.0
        ));
        level -= 1;
    } else if gaps_n > 0 {
        reasons.push(format!("{gaps_n} samples are missing, too few to matter"));
    }
    let level = match level {
        i32::MIN..=0 => "low",
        1 => "medium",
        _ => "high",
    };
    Confidence { level: level.to_owned(), span_s, interval_s, gaps: gaps_n, reasons }
}
