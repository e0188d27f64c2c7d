//! SVG charts drawn with plotters' SVG backend: time series with the caps as dashed lines,
//! a benchmark's latency percentile curve, and bars comparing benchmark targets.
//!
//! Every function returns one `<svg>` element ready to inline into the HTML page: no
//! namespace URL, no fonts, no external references; text uses the page's sans-serif.

use advisor_model::PercentileCurve;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::ReportError;
use crate::fmt::{clock, metric_label, num, unit_of};
use crate::series::{CapLine, ChartSeries};

pub(crate) const W: u32 = 540;
pub(crate) const H: u32 = 270;
/// A cap more than this many times the data's peak is named in the legend but not drawn:
/// stretching the axis to it would flatten the data into the bottom line.
pub(crate) const OFF_SCALE: f64 = 4.0;
pub(crate) const FONT: &str = "sans-serif";

/// Line colours, chosen to stay apart in print and for common colour blindness.
pub(crate) const TOTAL: RGBColor = RGBColor(31, 90, 160);
const READ: RGBColor = RGBColor(34, 139, 84);
pub(crate) const WRITE: RGBColor = RGBColor(214, 112, 20);
const OTHER: RGBColor = RGBColor(120, 70, 160);
const CAPS: [RGBColor; 3] = [RGBColor(200, 30, 30), RGBColor(90, 90, 90), RGBColor(160, 40, 140)];
pub(crate) const GRID: RGBColor = RGBColor(225, 225, 225);

fn colour(metric: &str) -> RGBColor {
    if metric.starts_with("read") {
        READ
    } else if metric.starts_with("write") {
        WRITE
    } else if metric.starts_with("sync") || metric == "mbps_consumed_pct" {
        OTHER
    } else {
        TOTAL
    }
}

pub(crate) fn err<E: std::fmt::Display>(e: E) -> ReportError {
    ReportError::Chart(e.to_string())
}

/// Which chart a metric goes on: the IOPS, throughput, latency and queue-depth families
/// share one chart each; anything else gets its own.
pub(crate) fn family(metric: &str) -> (u8, String) {
    match metric {
        "iops" | "read_iops" | "write_iops" => (0, "IOPS".to_owned()),
        "mbps" | "read_mbps" | "write_mbps" => (1, "Throughput".to_owned()),
        "latency_ms" | "read_latency_ms" | "write_latency_ms" | "sync_latency_ms" => {
            (2, "Latency".to_owned())
        }
        "queue_depth" | "read_queue_depth" | "write_queue_depth" => (3, "Queue depth".to_owned()),
        "iops_consumed_pct" | "mbps_consumed_pct" => {
            (4, "Consumed of the cap (Azure Monitor)".to_owned())
        }
        other => (4, capitalise(&metric_label(other))),
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Makes plotters' SVG fit for inlining in HTML: drops the namespace URL (an HTML parser
/// does not need it, and the page must reference nothing outside itself), names the chart
/// for screen readers and lets it shrink with the page.
pub(crate) fn inline(svg: String, label: &str) -> String {
    let label = label.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;");
    svg.replacen(
        " xmlns=\"http://www.w3.org/2000/svg\"",
        &format!(" role=\"img\" aria-label=\"{label}\" class=\"chart\""),
        1,
    )
}

/// Splits a series at values that cannot be drawn (NaN, infinities), so gaps stay gaps.
fn segments(points: &[(i64, f64)]) -> Vec<Vec<(i64, f64)>> {
    let mut out = vec![Vec::new()];
    for &(t, v) in points {
        if v.is_finite() {
            if let Some(last) = out.last_mut() {
                last.push((t, v));
            }
        } else if out.last().is_some_and(|s| !s.is_empty()) {
            out.push(Vec::new());
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// One legend entry: its text, colour, and whether its line is dashed (a cap).
pub(crate) struct Key {
    pub(crate) text: String,
    pub(crate) colour: RGBColor,
    pub(crate) dashed: bool,
}

/// Rough width of `text` at the legend's 12 px sans-serif (no font files are read: the
/// browser draws the text, so this only needs to keep entries apart).
fn text_width(text: &str) -> i32 {
    (text.chars().count() as f64 * 6.4).ceil() as i32
}

pub(crate) const KEY_ROW: i32 = 17;
const KEY_LEFT: i32 = 72;

/// The legend's rows: entries laid out left to right, wrapping at the chart's width.
pub(crate) fn key_rows(keys: &[Key]) -> Vec<Vec<&Key>> {
    let mut rows: Vec<Vec<&Key>> = vec![Vec::new()];
    let mut x = KEY_LEFT;
    for k in keys {
        let w = 24 + text_width(&k.text) + 18;
        if x + w > W as i32 - 8 && rows.last().is_some_and(|r| !r.is_empty()) {
            rows.push(Vec::new());
            x = KEY_LEFT;
        }
        if let Some(r) = rows.last_mut() {
            r.push(k);
        }
        x += w;
    }
    rows.retain(|r| !r.is_empty());
    rows
}

/// Draws the legend below the plot, where it can never hide a line.
pub(crate) fn draw_keys(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    rows: &[Vec<&Key>],
) -> Result<(), ReportError> {
    for (r, row) in rows.iter().enumerate() {
        let y = 6 + r as i32 * KEY_ROW + KEY_ROW / 2;
        let mut x = KEY_LEFT;
        for k in row {
            let style = k.colour.stroke_width(2);
            if k.dashed {
                for (a, b) in [(0, 6), (9, 15), (18, 24)] {
                    area.draw(&PathElement::new(vec![(x + a, y), (x + b, y)], style))
                        .map_err(err)?;
                }
            } else {
                area.draw(&PathElement::new(vec![(x, y), (x + 24, y)], style)).map_err(err)?;
            }
            let font = (FONT, 12).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
            area.draw(&Text::new(k.text.clone(), (x + 30, y), font)).map_err(err)?;
            x += 24 + text_width(&k.text) + 18;
        }
    }
    Ok(())
}

/// Time axis ticks at round wall-clock steps (10 s, 1 min, 15 min, 1 h, ...), about five.
fn time_ticks(t0: i64, t1: i64) -> Vec<i64> {
    const STEPS_S: [i64; 20] = [
        1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200,
        86_400, 172_800, 604_800,
    ];
    let span = (t1 - t0).max(1);
    let step = STEPS_S.iter().map(|s| s * 1000).find(|s| span / s <= 5).unwrap_or(span);
    let first = t0.div_euclid(step) * step + if t0.rem_euclid(step) == 0 { 0 } else { step };
    (0..).map(|i| first + i * step).take_while(|t| *t <= t1).take(12).collect()
}

/// A time series chart: one line per series (all of one unit), the caps as dashed lines,
/// the legend below; `bands` (ms from, to) are the episodes at a cap, shaded behind.
pub(crate) fn time_series(
    title: &str,
    series: &[&ChartSeries],
    bands: &[(i64, i64)],
) -> Result<String, ReportError> {
    let finite = || series.iter().flat_map(|s| s.points.iter()).filter(|p| p.1.is_finite());
    let (mut t0, mut t1) = (i64::MAX, i64::MIN);
    let mut vmax = 0f64;
    for &(t, v) in finite() {
        t0 = t0.min(t);
        t1 = t1.max(t);
        vmax = vmax.max(v);
    }
    if t0 > t1 {
        return Err(ReportError::Chart(format!("{title}: no drawable points")));
    }
    if t1 == t0 {
        t0 -= 1000;
        t1 += 1000;
    }
    let mut caps: Vec<&CapLine> = Vec::new();
    for c in series.iter().flat_map(|s| s.caps.iter()) {
        if c.value.is_finite() && !caps.iter().any(|d| d.label == c.label) {
            caps.push(c);
        }
    }
    let drawn = |c: &CapLine| vmax > 0.0 && c.value <= vmax * OFF_SCALE;
    let top = caps.iter().filter(|c| drawn(c)).map(|c| c.value).fold(vmax, f64::max);
    let ymax = if top > 0.0 { top * 1.08 } else { 1.0 };
    let with_date = t1 - t0 > 86_400_000;
    let metric = series.first().map_or("", |s| s.metric.as_str());
    let unit = unit_of(metric).unwrap_or("");

    let mut keys: Vec<Key> = Vec::new();
    for s in series {
        if !keys.iter().any(|k| k.text == metric_label(&s.metric)) {
            keys.push(Key {
                text: metric_label(&s.metric),
                colour: colour(&s.metric),
                dashed: false,
            });
        }
    }
    for (i, cap) in caps.iter().enumerate() {
        let mut text = if cap.label.contains(|c: char| c.is_ascii_digit()) {
            cap.label.clone()
        } else {
            format!("{} {} {unit}", cap.label, num(cap.value))
        };
        if !drawn(cap) {
            text.push_str(" (off scale, above)");
        }
        keys.push(Key { text, colour: CAPS[i % CAPS.len()], dashed: true });
    }
    let rows = key_rows(&keys);
    let legend_h = 8 + rows.len() as u32 * KEY_ROW as u32;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (W, H + legend_h)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, legend) = root.split_vertically(H);
        let ticks = time_ticks(t0, t1);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, (FONT, 15))
            .margin(8)
            .margin_right(20)
            .x_label_area_size(24)
            .y_label_area_size(56)
            .build_cartesian_2d((t0..t1).with_key_points(ticks), 0f64..ymax)
            .map_err(err)?;
        let xfmt = |t: &i64| clock(*t, with_date);
        let yfmt = |v: &f64| num(*v);
        chart
            .configure_mesh()
            .y_labels(6)
            .x_label_formatter(&xfmt)
            .y_label_formatter(&yfmt)
            .y_desc(unit)
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .label_style((FONT, 11))
            .axis_desc_style((FONT, 11))
            .draw()
            .map_err(err)?;
        // Episodes at a cap, behind the lines.
        let shade = RGBColor(198, 40, 40).mix(0.14).filled();
        chart
            .draw_series(
                bands
                    .iter()
                    .filter(|(a, b)| *b > t0 && *a < t1)
                    .map(|&(a, b)| Rectangle::new([(a.max(t0), 0.0), (b.min(t1), ymax)], shade)),
            )
            .map_err(err)?;
        for s in series {
            let style = colour(&s.metric).stroke_width(2);
            for seg in segments(&s.points) {
                if seg.len() == 1 {
                    chart
                        .draw_series(seg.into_iter().map(|p| Circle::new(p, 3, style.filled())))
                        .map_err(err)?;
                } else {
                    chart.draw_series(LineSeries::new(seg, style)).map_err(err)?;
                }
            }
        }
        for (i, cap) in caps.iter().enumerate() {
            if drawn(cap) {
                let style = CAPS[i % CAPS.len()].stroke_width(2);
                chart
                    .draw_series(DashedLineSeries::new(
                        [(t0, cap.value), (t1, cap.value)],
                        8,
                        5,
                        style,
                    ))
                    .map_err(err)?;
            }
        }
        draw_keys(&legend, &rows)?;
        root.present().map_err(err)?;
    }
    Ok(inline(svg, title))
}

/// The "nines" of a percentile: 90 -> 1, 99 -> 2, 99.9 -> 3, so the tail gets the room.
fn nines(p: f64) -> f64 {
    -(1.0 - p / 100.0).log10()
}

/// A percentile written back from its nines: 1 -> p90, 2 -> p99, 0.301 -> p50.
fn percentile_label(n: f64) -> String {
    let p = 100.0 * (1.0 - 10f64.powf(-n));
    let digits = (n.round() as i32 - 2).clamp(0, 6) as usize;
    let s = format!("{p:.digits$}");
    let s =
        if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s };
    format!("p{s}")
}

/// A benchmark's latency percentile curves (one per direction), percentiles on a nines
/// scale and latency on a log scale: the tail is what throttling shows in.
pub(crate) fn percentile_curve(
    title: &str,
    curves: &[&PercentileCurve],
) -> Result<String, ReportError> {
    let usable = |c: &&PercentileCurve| -> Vec<(f64, f64)> {
        c.points
            .iter()
            .filter(|(p, l)| p.is_finite() && *p > 0.0 && *p < 100.0 && l.is_finite() && *l > 0.0)
            .map(|&(p, l)| (nines(p), l))
            .collect()
    };
    let lines: Vec<(&str, Vec<(f64, f64)>)> = curves
        .iter()
        .map(|c| (c.direction.as_str(), usable(c)))
        .filter(|(_, p)| !p.is_empty())
        .collect();
    let all = || lines.iter().flat_map(|(_, p)| p.iter());
    let xmax = all().map(|p| p.0).fold(1.0, f64::max).ceil();
    let (lmin, lmax) = all().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    if lines.is_empty() {
        return Err(ReportError::Chart(format!("{title}: no drawable percentiles")));
    }
    let (ylo, yhi) = (lmin / 1.5, lmax * 1.5);
    let keys: Vec<Key> = lines
        .iter()
        .map(|(d, _)| Key { text: (*d).to_owned(), colour: colour(d), dashed: false })
        .collect();
    let rows = key_rows(&keys);
    let legend_h = 8 + rows.len() as u32 * KEY_ROW as u32;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (W, H + legend_h)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, legend) = root.split_vertically(H);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, (FONT, 17))
            .margin(8)
            .margin_right(20)
            .x_label_area_size(28)
            .y_label_area_size(64)
            .build_cartesian_2d(0f64..xmax, (ylo..yhi).log_scale())
            .map_err(err)?;
        let xfmt = |n: &f64| percentile_label(*n);
        let yfmt = |v: &f64| num(*v);
        chart
            .configure_mesh()
            .x_labels(xmax as usize + 1)
            .y_labels(8)
            .x_label_formatter(&xfmt)
            .y_label_formatter(&yfmt)
            .y_desc("ms")
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 12))
            .draw()
            .map_err(err)?;
        for (direction, points) in lines {
            let c = colour(direction);
            chart.draw_series(LineSeries::new(points, c.stroke_width(2))).map_err(err)?;
        }
        draw_keys(&legend, &rows)?;
        root.present().map_err(err)?;
    }
    Ok(inline(svg, title))
}

/// Horizontal bars, one per benchmark target, with the value written at the bar's end.
pub(crate) fn bars(
    title: &str,
    metric: &str,
    bars: &[(String, f64)],
) -> Result<String, ReportError> {
    let bars: Vec<&(String, f64)> = bars.iter().filter(|b| b.1.is_finite()).collect();
    if bars.is_empty() {
        return Err(ReportError::Chart(format!("{title}: no drawable values")));
    }
    let n = bars.len();
    let vmax = bars.iter().map(|b| b.1).fold(0.0, f64::max);
    let xmax = if vmax > 0.0 { vmax * 1.2 } else { 1.0 };
    let height = (70 + 34 * n as u32).min(900);
    let label_width = bars.iter().map(|b| b.0.chars().count()).max().unwrap_or(4).clamp(4, 32);
    let unit = unit_of(metric).unwrap_or("");

    let mut svg = String::new();
    {
        let root: DrawingArea<SVGBackend<'_>, Shift> =
            SVGBackend::with_string(&mut svg, (W, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 17))
            .margin(8)
            .margin_right(20)
            .x_label_area_size(28)
            .y_label_area_size(12 + 7 * label_width as u32)
            .build_cartesian_2d(0f64..xmax, (0..n as i32).into_segmented())
            .map_err(err)?;
        let names: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
        let yfmt = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        };
        let xfmt = |v: &f64| num(*v);
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n)
            .x_labels(6)
            .x_label_formatter(&xfmt)
            .y_label_formatter(&yfmt)
            .x_desc(unit)
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 12))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(bars.iter().enumerate().map(|(i, b)| {
                let i = i as i32;
                let mut r = Rectangle::new(
                    [(0.0, SegmentValue::Exact(i)), (b.1, SegmentValue::Exact(i + 1))],
                    TOTAL.filled(),
                );
                r.set_margin(5, 5, 0, 0);
                r
            }))
            .map_err(err)?;
        chart
            .draw_series(bars.iter().enumerate().map(|(i, b)| {
                Text::new(
                    format!(" {} {unit}", num(b.1)),
                    (b.1, SegmentValue::CenterOf(i as i32)),
                    (FONT, 12).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center)),
                )
            }))
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(inline(svg, title))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_labels() {
        assert_eq!(percentile_label(1.0), "p90");
        assert_eq!(percentile_label(2.0), "p99");
        assert_eq!(percentile_label(3.0), "p99.9");
        assert_eq!(percentile_label(5.0), "p99.999");
        assert_eq!(percentile_label(0.0), "p0");
    }

    #[test]
    fn round_time_ticks() {
        let t0 = 1_718_116_200_000; // 14:30:00
        let ticks: Vec<String> =
            time_ticks(t0 + 3_000, t0 + 90_000).iter().map(|t| clock(*t, false)).collect();
        assert_eq!(ticks, ["14:30:15", "14:30:30", "14:30:45", "14:31:00", "14:31:15", "14:31:30"]);
        assert_eq!(time_ticks(t0, t0 + 3_600_000).len(), 5);
    }

    #[test]
    fn gaps_split_lines() {
        let s = segments(&[(0, 1.0), (1, f64::NAN), (2, 2.0), (3, 3.0), (4, f64::INFINITY)]);
        assert_eq!(s, vec![vec![(0, 1.0)], vec![(2, 2.0), (3, 3.0)]]);
    }

    #[test]
    fn svg_is_inline_ready() {
        let s = ChartSeries {
            target: "E:".into(),
            file: "a.csv".into(),
            metric: "mbps".into(),
            points: vec![(0, 10.0), (1000, 250.0), (2000, f64::NAN), (3000, 30.0), (4000, 31.0)],
            caps: vec![CapLine { label: "VM cached cap".into(), value: 256.0 }],
        };
        let svg = time_series("Throughput <E:>", &[&s], &[]).expect("chart");
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(!svg.contains("http"), "no URLs in inline SVG");
        assert!(svg.contains("aria-label=\"Throughput &lt;E:>\""));
        assert!(svg.contains("VM cached cap 256 MiB/s"));
        let far = ChartSeries {
            caps: vec![CapLine { label: "P30 cap 5000 IOPS".into(), value: 5000.0 }],
            ..s
        };
        let svg = time_series("IOPS", &[&far], &[]).expect("chart");
        assert!(svg.contains("P30 cap 5000 IOPS (off scale, above)"), "{svg}");
    }

    #[test]
    fn episodes_are_shaded_behind_the_lines() {
        let s = ChartSeries {
            target: "VM cached".into(),
            file: "a.csv".into(),
            metric: "mbps".into(),
            points: (0..10)
                .map(|i| (i * 1000, if (3..6).contains(&i) { 256.0 } else { 50.0 }))
                .collect(),
            caps: vec![],
        };
        let plain = time_series("Throughput", &[&s], &[]).expect("chart");
        // One band inside the chart, one outside it (not drawn).
        let shaded =
            time_series("Throughput", &[&s], &[(3000, 6000), (20_000, 30_000)]).expect("chart");
        let fills = |svg: &str| svg.matches("fill=\"#C62828\"").count();
        assert_eq!(fills(&plain), 0, "{plain}");
        assert_eq!(fills(&shaded), 1, "{shaded}");
        // The band comes before the line: drawn behind it.
        let band = shaded.find("fill=\"#C62828\"").unwrap();
        let line =
            shaded.find(&format!("stroke=\"#{:02X}{:02X}{:02X}\"", TOTAL.0, TOTAL.1, TOTAL.2));
        assert!(line.is_some_and(|l| band < l), "{shaded}");
    }
}
