//! A [`Comparison`] for people and tools: the verdict worded (its first line), the Markdown
//! and HTML pages (`compare.md.tera`, `compare.html.tera`) with before and after overlaid
//! on the same axes and both sides' caps drawn, and the JSON document `advisor.compare/v1`
//! with its JSON Schema.

use std::collections::BTreeMap;

use advisor_model::{
    BenchRun, COMPARE_SCHEMA, CapUse, Comparison, MetricChange, Outcome, Quantiles, Signal,
};
use plotters::prelude::*;
use serde::Serialize;

use crate::charts::{self, FONT, GRID, H, Key, OFF_SCALE, TOTAL, W, WRITE, err, inline};
use crate::fmt::{metric_label, num, share, unit_of, with_unit};
use crate::{Format, Renderer, ReportError};

const MIB: f64 = 1_048_576.0;

/// A change in percent: `-94%`, `+12%`.
fn pct_change(before: f64, after: f64) -> String {
    if before == 0.0 {
        return "from 0".to_owned();
    }
    let p = 100.0 * (after - before) / before;
    if p < 0.0 { share(p) } else { format!("+{}", share(p)) }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn subject_words(s: &Signal) -> String {
    match s.measure.as_str() {
        m @ ("latency_ms.p95" | "latency_ms.p50") => format!(
            "{} latency on {} {} -> {} ({})",
            &m[11..],
            s.subject,
            with_unit(s.before, "latency_ms"),
            with_unit(s.after, "latency_ms"),
            pct_change(s.before, s.after)
        ),
        m if m.ends_with(".p95_share") => {
            let what = if m.starts_with("mbps") { "throughput" } else { "IOPS" };
            format!(
                "{} {what} at p95 {} -> {} of its cap",
                s.subject,
                share(s.before),
                share(s.after)
            )
        }
        "bench.iops" => format!(
            "{}: {} -> {} IOPS ({})",
            s.subject,
            num(s.before),
            num(s.after),
            pct_change(s.before, s.after)
        ),
        "findings.severity" => {
            let name = |v: f64| match v as u8 {
                0 => "info",
                1 => "warning",
                _ => "critical",
            };
            format!("{} went from {} to {}", s.subject, name(s.before), name(s.after))
        }
        _ => String::new(),
    }
}

/// Words every signal and the verdict sentence: what the first line says.
pub fn word_comparison(c: &mut Comparison) {
    let resolved: Vec<&str> = c.findings.resolved.iter().map(|f| f.rule.as_str()).collect();
    let new: Vec<&str> = c.findings.new.iter().map(|f| f.rule.as_str()).collect();
    for s in &mut c.verdict.signals {
        s.text = match s.measure.as_str() {
            "findings.resolved" => format!(
                "{} resolved",
                plural(s.before as usize, "warning-or-worse finding", "warning-or-worse findings")
            ),
            "findings.new" => {
                format!(
                    "{} new",
                    plural(
                        s.after as usize,
                        "warning-or-worse finding",
                        "warning-or-worse findings"
                    )
                )
            }
            _ => subject_words(s),
        };
    }
    let numbers = |improved: bool, n: usize| -> Vec<String> {
        c.verdict
            .signals
            .iter()
            .filter(|s| s.improved == improved && !s.measure.starts_with("findings."))
            .take(n)
            .map(|s| s.text.clone())
            .collect()
    };
    let findings = {
        let mut s = if resolved.is_empty() {
            "no finding resolved".to_owned()
        } else {
            format!(
                "{} resolved ({})",
                plural(resolved.len(), "finding", "findings"),
                resolved.join(", ")
            )
        };
        if new.is_empty() {
            s.push_str(", none new");
        } else {
            s.push_str(&format!(", {} new ({})", new.len(), new.join(", ")));
        }
        if !c.findings.persisting.is_empty() {
            s.push_str(&format!(", {} persisting", c.findings.persisting.len()));
        }
        s
    };
    let sentence = match c.verdict.outcome {
        Outcome::Better => {
            let mut parts = numbers(true, 3);
            parts.push(findings);
            format!("Better after the change: {}", parts.join("; "))
        }
        Outcome::Worse => {
            let mut parts = numbers(false, 3);
            parts.push(findings);
            format!("Worse after the change: {}", parts.join("; "))
        }
        Outcome::Mixed => {
            let good = numbers(true, 2);
            let bad = numbers(false, 2);
            let side = |v: Vec<String>, none: &str| {
                if v.is_empty() { none.to_owned() } else { v.join("; ") }
            };
            format!(
                "Mixed: better on {}; worse on {}; {findings}",
                side(good, "findings"),
                side(bad, "new findings")
            )
        }
        Outcome::Unchanged => format!(
            "No change that counts: latency within 25% on every busy target, no budget's share \
             of its cap moved by 10 points near its cap; {findings}"
        ),
    };
    c.verdict.sentence = if c.warnings.iter().any(|w| w.kind == "interval") {
        format!(
            "{sentence} (sampled at different intervals: medians weighed, findings not counted; \
             see the comparability warnings)"
        )
    } else {
        sentence
    };
}

/// The comparison document, pretty-printed, newline-terminated.
pub fn comparison_json(c: &Comparison) -> Result<String, ReportError> {
    let mut s = serde_json::to_string_pretty(c)?;
    s.push('\n');
    Ok(s)
}

/// The JSON Schema of `advisor.compare/v1`, generated from the Rust types, with `schema`
/// pinned.
pub fn compare_json_schema() -> serde_json::Value {
    crate::schema_of::<Comparison>("advisor comparison", COMPARE_SCHEMA)
}

// ------------------------------------------------------------------------------------------
// The view the templates read
// ------------------------------------------------------------------------------------------

#[derive(Debug, Serialize)]
struct Pair {
    before: Option<f64>,
    after: Option<f64>,
}

#[derive(Debug, Serialize)]
struct Row {
    metric: String,
    p50: Pair,
    p95: Pair,
    p99: Pair,
    max: Pair,
    /// The p95's change in percent, and its ratio.
    p95_change_pct: Option<f64>,
    p95_ratio: Option<f64>,
}

#[derive(Debug, Serialize)]
struct CapRow {
    /// `iops` or `mbps`: caps in IOPS or MB/s.
    metric: String,
    cap: Pair,
    p95_pct: Pair,
    max_pct: Pair,
}

#[derive(Debug, Serialize)]
struct Chart {
    title: String,
    svg: String,
}

#[derive(Debug, Serialize)]
struct Block {
    name: String,
    anchor: String,
    before_name: Option<String>,
    after_name: Option<String>,
    matched_by: Option<String>,
    kind: String,
    disk_before: Option<String>,
    disk_after: Option<String>,
    members_before: Vec<String>,
    members_after: Vec<String>,
    rows: Vec<Row>,
    caps: Vec<CapRow>,
    read_pct: Pair,
    io_kib: Pair,
    charts: Vec<Chart>,
}

#[derive(Debug, Serialize)]
struct View<'a> {
    sentence: &'a str,
    outcome: &'static str,
    c: &'a Comparison,
    /// Before, then after.
    sides: [&'a advisor_model::SideSummary; 2],
    targets: Vec<Block>,
    budgets: Vec<Block>,
    bench_charts: Vec<Chart>,
    /// The benchmark table's value columns, in order.
    bench_columns: Vec<BenchColumn>,
}

fn q(m: &MetricChange, f: impl Fn(&Quantiles) -> f64) -> Pair {
    Pair { before: m.before.as_ref().map(&f), after: m.after.as_ref().map(&f) }
}

fn rows(metrics: &BTreeMap<String, MetricChange>) -> Vec<Row> {
    let order = ["iops", "mbps", "latency_ms", "queue_depth"];
    let mut names: Vec<&String> = metrics.keys().collect();
    names.sort_by_key(|n| order.iter().position(|o| o == n).unwrap_or(order.len()));
    names
        .into_iter()
        .filter_map(|n| {
            let m = metrics.get(n)?;
            let p95 = m.change.get("p95");
            Some(Row {
                metric: n.clone(),
                p50: q(m, |x| x.p50),
                p95: q(m, |x| x.p95),
                p99: q(m, |x| x.p99),
                max: q(m, |x| x.max),
                p95_change_pct: p95.and_then(|d| d.ratio).map(|r| 100.0 * (r - 1.0)),
                p95_ratio: p95.and_then(|d| d.ratio),
            })
        })
        .collect()
}

fn cap_rows(caps: &BTreeMap<String, CapUse>) -> Vec<CapRow> {
    caps.iter()
        .map(|(m, c)| CapRow {
            metric: m.clone(),
            cap: Pair { before: c.cap_before, after: c.cap_after },
            p95_pct: Pair { before: c.p95_before_pct, after: c.p95_after_pct },
            max_pct: Pair { before: c.max_before_pct, after: c.max_after_pct },
        })
        .collect()
}

fn anchor(prefix: &str, name: &str) -> String {
    let mut s = String::from(prefix);
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() {
            s.push(ch.to_ascii_lowercase());
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    s
}

/// One overlaid chart per metric of a subject: before and after on elapsed time, the
/// caps of both sides (IOPS; MB/s drawn in MiB/s, as the series are).
fn overlay_charts(c: &Comparison, subject: &str, caps: &BTreeMap<String, CapUse>) -> Vec<Chart> {
    let mut out = Vec::new();
    for (metric, family) in [("iops", "IOPS"), ("mbps", "Throughput"), ("latency_ms", "Latency")] {
        let pick = |side: &str| {
            c.series
                .iter()
                .find(|s| s.subject == subject && s.side == side && s.metric == metric)
                .map(|s| s.points.as_slice())
        };
        let (b, a) = (pick("before"), pick("after"));
        if b.is_none() && a.is_none() {
            continue;
        }
        let mut lines = Vec::new();
        if let Some(cap) = caps.get(metric) {
            let conv = |v: f64| if metric == "mbps" { v * 1e6 / MIB } else { v };
            let unit = if metric == "mbps" { "MB/s" } else { "IOPS" };
            if let Some(v) = cap.cap_before {
                lines.push((format!("cap before {} {unit}", num(v)), conv(v), true));
            }
            if let Some(v) = cap.cap_after {
                lines.push((format!("cap after {} {unit}", num(v)), conv(v), false));
            }
        }
        let title = format!("{family}: {subject}");
        if let Ok(svg) = overlay(&title, metric, b, a, &lines) {
            out.push(Chart { title, svg });
        }
    }
    out
}

/// A chart of two series on elapsed seconds, before in blue and after in orange, with cap
/// lines dashed in their side's colour.
fn overlay(
    title: &str,
    metric: &str,
    before: Option<&[(f64, f64)]>,
    after: Option<&[(f64, f64)]>,
    caps: &[(String, f64, bool)],
) -> Result<String, ReportError> {
    let all =
        || before.into_iter().chain(after).flatten().filter(|p| p.1.is_finite() && p.0.is_finite());
    let x1 = all().map(|p| p.0).fold(0.0, f64::max).max(1.0);
    let vmax = all().map(|p| p.1).fold(0.0, f64::max);
    if all().next().is_none() {
        return Err(ReportError::Chart(format!("{title}: no drawable points")));
    }
    let drawn = |v: f64| vmax > 0.0 && v <= vmax * OFF_SCALE;
    let top = caps.iter().filter(|c| drawn(c.1)).map(|c| c.1).fold(vmax, f64::max);
    let ymax = if top > 0.0 { top * 1.08 } else { 1.0 };
    let unit = unit_of(metric).unwrap_or("");
    let mut keys = Vec::new();
    if before.is_some() {
        keys.push(Key {
            text: format!("before: {}", metric_label(metric)),
            colour: TOTAL,
            dashed: false,
        });
    }
    if after.is_some() {
        keys.push(Key {
            text: format!("after: {}", metric_label(metric)),
            colour: WRITE,
            dashed: false,
        });
    }
    for (label, v, is_before) in caps {
        let mut text = label.clone();
        if !drawn(*v) {
            text.push_str(" (off scale, above)");
        }
        keys.push(Key { text, colour: if *is_before { TOTAL } else { WRITE }, dashed: true });
    }
    let rows = charts::key_rows(&keys);
    let legend_h = 8 + rows.len() as u32 * charts::KEY_ROW as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (W, H + legend_h)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, legend) = root.split_vertically(H);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, (FONT, 15))
            .margin(8)
            .margin_right(20)
            .x_label_area_size(30)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..x1, 0f64..ymax)
            .map_err(err)?;
        let yfmt = |v: &f64| num(*v);
        let xfmt = |v: &f64| num(*v);
        chart
            .configure_mesh()
            .y_labels(6)
            .x_labels(6)
            .x_label_formatter(&xfmt)
            .y_label_formatter(&yfmt)
            .x_desc("seconds from the side's first sample")
            .y_desc(unit)
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .label_style((FONT, 11))
            .axis_desc_style((FONT, 11))
            .draw()
            .map_err(err)?;
        for (pts, colour) in [(before, TOTAL), (after, WRITE)] {
            let Some(pts) = pts else { continue };
            let pts: Vec<(f64, f64)> = pts.iter().copied().filter(|p| p.1.is_finite()).collect();
            let style = colour.stroke_width(2);
            if pts.len() == 1 {
                chart
                    .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, style.filled())))
                    .map_err(err)?;
            } else {
                chart.draw_series(LineSeries::new(pts, style)).map_err(err)?;
            }
        }
        for (_, v, is_before) in caps {
            if drawn(*v) {
                let colour = if *is_before { TOTAL } else { WRITE };
                chart
                    .draw_series(DashedLineSeries::new(
                        [(0.0, *v), (x1, *v)],
                        8,
                        5,
                        colour.stroke_width(2),
                    ))
                    .map_err(err)?;
            }
        }
        charts::draw_keys(&legend, &rows)?;
        root.present().map_err(err)?;
    }
    Ok(inline(svg, title))
}

fn bench_value(r: &BenchRun, metric: &str) -> Option<f64> {
    match metric {
        "iops" => r.iops,
        "mbps" => r.mbps,
        "latency_ms" => r.latency_ms,
        "latency_p99_ms" => r.latency_p99_ms,
        _ => None,
    }
}

/// The benchmark table's columns and charts: (metric, heading, chart title).
const BENCH_COLUMNS: [(&str, &str, &str); 4] = [
    ("iops", "IOPS", "Benchmark IOPS"),
    ("mbps", "MiB/s", "Benchmark throughput"),
    ("latency_ms", "mean latency, ms", "Benchmark mean latency"),
    ("latency_p99_ms", "p99 latency, ms", "Benchmark p99 latency"),
];

#[derive(Debug, Serialize)]
struct BenchColumn {
    metric: &'static str,
    heading: &'static str,
}

/// One bar chart per metric over every run of both sides, labelled `label (side)`.
fn bench_charts(c: &Comparison, columns: &[BenchColumn]) -> Vec<Chart> {
    let mut out = Vec::new();
    for col in columns {
        let metric = col.metric;
        let bars: Vec<(String, f64)> = c
            .benchmarks
            .iter()
            .filter_map(|r| Some((format!("{} ({})", r.label, r.side), bench_value(r, metric)?)))
            .collect();
        if bars.is_empty() {
            continue;
        }
        let title = BENCH_COLUMNS
            .iter()
            .find(|c| c.0 == metric)
            .map_or_else(|| metric_label(metric), |c| c.2.to_owned());
        if let Ok(svg) = charts::bars(&title, metric, &bars) {
            out.push(Chart { title, svg });
        }
    }
    out
}

fn view(c: &Comparison, charts: bool) -> View<'_> {
    let targets = c
        .targets
        .iter()
        .map(|t| Block {
            name: t.name.clone(),
            anchor: anchor("t-", &t.name),
            before_name: t.before_name.clone(),
            after_name: t.after_name.clone(),
            matched_by: t.matched_by.clone(),
            kind: t.kind.clone(),
            disk_before: t.disk_before.clone(),
            disk_after: t.disk_after.clone(),
            members_before: Vec::new(),
            members_after: Vec::new(),
            rows: rows(&t.metrics),
            caps: cap_rows(&t.caps),
            read_pct: Pair { before: t.read_pct_before, after: t.read_pct_after },
            io_kib: Pair { before: t.io_kib_before, after: t.io_kib_after },
            charts: if charts { overlay_charts(c, &t.name, &t.caps) } else { Vec::new() },
        })
        .collect();
    let budgets = c
        .budgets
        .iter()
        .map(|b| Block {
            name: b.name.clone(),
            anchor: anchor("b-", &b.name),
            before_name: None,
            after_name: None,
            matched_by: None,
            kind: b.kind.clone(),
            disk_before: None,
            disk_after: None,
            members_before: b.members_before.clone(),
            members_after: b.members_after.clone(),
            rows: rows(&b.metrics),
            caps: cap_rows(&b.caps),
            read_pct: Pair { before: None, after: None },
            io_kib: Pair { before: None, after: None },
            charts: if charts { overlay_charts(c, &b.name, &b.caps) } else { Vec::new() },
        })
        .collect();
    let bench_columns: Vec<BenchColumn> = BENCH_COLUMNS
        .iter()
        .filter(|(m, _, _)| c.benchmarks.iter().any(|r| bench_value(r, m).is_some()))
        .map(|&(metric, heading, _)| BenchColumn { metric, heading })
        .collect();
    View {
        sentence: &c.verdict.sentence,
        outcome: c.verdict.outcome.as_str(),
        c,
        sides: [&c.before, &c.after],
        targets,
        budgets,
        bench_charts: if charts { bench_charts(c, &bench_columns) } else { Vec::new() },
        bench_columns,
    }
}

impl Renderer {
    /// Renders a comparison in `format`. HTML and Markdown end with a newline; so does JSON.
    pub fn render_comparison(&self, c: &Comparison, format: Format) -> Result<String, ReportError> {
        let name = match format {
            Format::Json => return comparison_json(c),
            Format::Markdown => "compare.md.tera",
            Format::Html => "compare.html.tera",
        };
        let view = view(c, format == Format::Html);
        let ctx = tera::Context::from_serialize(&view).map_err(|e| ReportError::Template {
            name: name.to_owned(),
            message: crate::templates::chain(&e),
        })?;
        self.render_template(name, &ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_read_as_percent() {
        assert_eq!(pct_change(37.0, 2.07), "-94%");
        assert_eq!(pct_change(10.0, 10.5), "+5%");
        assert_eq!(pct_change(100.0, 99.5), "-0.5%");
        assert_eq!(pct_change(100.0, 150.0), "+50%");
        assert_eq!(pct_change(0.0, 5.0), "from 0");
    }

    #[test]
    fn anchors_are_plain() {
        assert_eq!(anchor("t-", "1 E:"), "t-1-e-");
        assert_eq!(anchor("b-", "VM cached"), "b-vm-cached");
    }
}
