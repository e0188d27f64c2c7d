//! One story per cause: the findings arranged as causes with their effects
//! under them, the verdict's counts, the episodes as table rows and as a timeline strip.

use std::collections::{HashMap, HashSet};

use advisor_model::{Analysis, Episode, EpisodeKind, EpisodeWindow, Finding, Severity};
use serde::Serialize;

use crate::fmt::{duration, num};

/// A finding that heads a story (or stands alone) and the findings it explains, in the
/// analysis' order, each effect under one story. An `explained_by` naming no finding of
/// this analysis is ignored: the finding then stands alone.
pub(crate) fn stories(a: &Analysis) -> Vec<(&Finding, Vec<&Finding>)> {
    let (present, mut effects_of) = index(&a.findings);
    let mut out: Vec<(&Finding, Vec<&Finding>)> = Vec::new();
    for f in &a.findings {
        if f.explained_by.iter().any(|id| present.contains(id.as_str())) {
            continue;
        }
        let effects = if f.id.is_empty() {
            Vec::new()
        } else {
            // Ids repeat when captures name targets alike (`RULE@SUBJECT` of two files'
            // `E:`): the first finding of an id heads its effects, so each effect is shown
            // once, not under every finding of that id.
            effects_of.remove(f.id.as_str()).unwrap_or_default()
        };
        out.push((f, effects));
    }
    out
}

/// The findings' ids (the empty id is none), and each cause's effects by its id, in
/// finding order: looked up, not searched, as reports of thousands of findings need.
fn index(findings: &[Finding]) -> (HashSet<&str>, HashMap<&str, Vec<&Finding>>) {
    let present: HashSet<&str> =
        findings.iter().map(|f| f.id.as_str()).filter(|id| !id.is_empty()).collect();
    let mut effects_of: HashMap<&str, Vec<&Finding>> = HashMap::new();
    for e in findings {
        let mut causes: Vec<&str> = e.explained_by.iter().map(String::as_str).collect();
        causes.sort_unstable();
        causes.dedup();
        for c in causes {
            effects_of.entry(c).or_default().push(e);
        }
    }
    (present, effects_of)
}

/// A story's severity: its most severe finding's.
pub(crate) fn severity(root: &Finding, effects: &[&Finding]) -> Severity {
    effects.iter().map(|e| e.severity).fold(root.severity, Severity::max)
}

/// `1 cause, 6 effects` (and `, 2 other findings`), or `None` when no finding explains
/// another.
pub(crate) fn counts(a: &Analysis) -> Option<String> {
    let all = stories(a);
    let causes = all.iter().filter(|(_, e)| !e.is_empty()).count();
    if causes == 0 {
        return None;
    }
    let effects: usize = all.iter().map(|(_, e)| e.len()).sum();
    let alone = all.len() - causes;
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut s =
        format!("{}, {}", plural(causes, "cause", "causes"), plural(effects, "effect", "effects"));
    if alone > 0 {
        s.push_str(&format!(", {}", plural(alone, "other finding", "other findings")));
    }
    Some(s)
}

/// One episode as a table row: times shortened to the clock when on the window's day.
#[derive(Debug, Serialize)]
pub(crate) struct EpisodeRow {
    start: String,
    end: String,
    duration: String,
    kind: &'static str,
    peak_pct: f64,
    mean_pct: f64,
    latency_ms: Option<f64>,
}

pub(crate) fn rows(episodes: &[Episode]) -> Vec<EpisodeRow> {
    episodes
        .iter()
        .map(|e| {
            let start = e.start.replace('T', " ");
            let end = match (e.start.split_once('T'), e.end.split_once('T')) {
                (Some((d1, _)), Some((d2, t))) if d1 == d2 => t.to_owned(),
                _ => e.end.replace('T', " "),
            };
            EpisodeRow {
                start,
                end,
                duration: duration(e.duration_s),
                kind: e.kind.as_str(),
                peak_pct: e.peak_pct,
                mean_pct: e.mean_pct,
                latency_ms: e.latency_ms,
            }
        })
        .collect()
}

/// `2 episodes at or above 95% of the 256 MB/s cap, 1 min 2 s in all of 2 min (1
/// sustained, 1 spike); latency outside them 2.1 ms`.
pub(crate) fn summary(episodes: &[Episode], w: &EpisodeWindow) -> String {
    let span = match (crate::view::iso_ms(&w.start), crate::view::iso_ms(&w.end)) {
        (Some(a), Some(b)) if b > a => Some((b - a) as f64 / 1000.0),
        _ => None,
    };
    if episodes.is_empty() {
        return format!(
            "no sample reached {}% of the {} cap{}{}",
            num(w.threshold_pct),
            cap(w),
            span.map(|s| format!(" in {}", duration(s))).unwrap_or_default(),
            w.latency_outside_ms.map(|l| format!("; latency {} ms", num(l))).unwrap_or_default()
        );
    }
    let sustained = episodes.iter().filter(|e| e.kind == EpisodeKind::Sustained).count();
    let spikes = episodes.len() - sustained;
    let n = episodes.len();
    let kinds = match (sustained, spikes) {
        (0, _) => "all spikes".to_owned(),
        (_, 0) => "all sustained".to_owned(),
        (s, p) => format!("{s} sustained, {p} spike{}", if p == 1 { "" } else { "s" }),
    };
    format!(
        "{n} episode{} at or above {}% of the {} cap, {} in all{} ({kinds}){}",
        if n == 1 { "" } else { "s" },
        num(w.threshold_pct),
        cap(w),
        duration(w.at_cap_s),
        span.map(|s| format!(" of {}", duration(s))).unwrap_or_default(),
        w.latency_outside_ms
            .map(|l| format!("; latency outside them {} ms", num(l)))
            .unwrap_or_default()
    )
}

/// `256 MB/s`, `100%`.
fn cap(w: &EpisodeWindow) -> String {
    match w.unit.as_str() {
        "%" => format!("{}%", num(w.cap)),
        "" => num(w.cap),
        u => format!("{} {u}", num(w.cap)),
    }
}

/// The SVG strip of one finding's episodes over its window: sustained stretches in red,
/// spikes in orange, each with a tooltip; the window's first and last time below. Inline
/// SVG without a namespace URL, as the charts: the page references nothing outside itself.
pub(crate) fn timeline(label: &str, episodes: &[Episode], w: &EpisodeWindow) -> Option<String> {
    let (t0, t1) = (crate::view::iso_ms(&w.start)?, crate::view::iso_ms(&w.end)?);
    if t1 <= t0 {
        return None;
    }
    const WIDTH: f64 = 720.0;
    const BAR: f64 = 18.0;
    let x = |t: i64| ((t.clamp(t0, t1) - t0) as f64 / (t1 - t0) as f64 * WIDTH).clamp(0.0, WIDTH);
    let esc = |s: &str| {
        s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
    };
    let clock = |s: &str| s.split_once('T').map_or(s, |(_, t)| t).to_owned();
    let mut svg = format!(
        "<svg class=\"timeline\" viewBox=\"0 0 {WIDTH} 34\" width=\"100%\" role=\"img\" aria-label=\"{}\">",
        esc(&format!("When {label}: {}", summary(episodes, w)))
    );
    svg.push_str(&format!(
        "<rect class=\"window\" x=\"0\" y=\"0\" width=\"{WIDTH}\" height=\"{BAR}\" fill=\"#e8f5e9\" stroke=\"#9e9e9e\" stroke-width=\"0.5\"/>"
    ));
    for e in episodes {
        let (Some(a), Some(b)) = (crate::view::iso_ms(&e.start), crate::view::iso_ms(&e.end))
        else {
            continue;
        };
        let (xa, xb) = (x(a), x(b));
        // At least 2 px, so a one-sample spike in a day-long window stays visible.
        let width = (xb - xa).max(2.0);
        let fill = match e.kind {
            EpisodeKind::Sustained => "#c62828",
            EpisodeKind::Spike => "#ef6c00",
        };
        let tip = format!(
            "{}–{}: {} {}, peak {}%, mean {}% of the cap{}",
            clock(&e.start),
            clock(&e.end),
            duration(e.duration_s),
            e.kind.as_str(),
            num(e.peak_pct),
            num(e.mean_pct),
            e.latency_ms.map(|l| format!(", latency {} ms", num(l))).unwrap_or_default()
        );
        svg.push_str(&format!(
            "<rect class=\"episode {}\" x=\"{xa:.1}\" y=\"0\" width=\"{width:.1}\" height=\"{BAR}\" fill=\"{fill}\"><title>{}</title></rect>",
            e.kind.as_str(),
            esc(&tip)
        ));
    }
    svg.push_str(&format!(
        "<text x=\"0\" y=\"31\" font-size=\"11\" font-family=\"sans-serif\" fill=\"#444\">{}</text><text x=\"{WIDTH}\" y=\"31\" font-size=\"11\" font-family=\"sans-serif\" fill=\"#444\" text-anchor=\"end\">{}</text></svg>",
        esc(&clock(&w.start)),
        esc(&clock(&w.end))
    ));
    Some(svg)
}

/// The chart targets a finding's episodes are shaded on: its own subject (or the disk it
/// matched), and for a VM finding about one budget, that budget's charts.
pub(crate) fn shades(f: &Finding, target: &str, matched: Option<&str>) -> bool {
    if f.subject == target || matched.is_some_and(|m| m == f.subject) {
        return true;
    }
    if f.subject != "vm" {
        return false;
    }
    if f.rule.contains("uncached") {
        target.starts_with("VM uncached")
    } else if f.rule.contains("cached") || f.rule.contains("temp") {
        target.starts_with("VM cached")
    } else {
        false
    }
}
