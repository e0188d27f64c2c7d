//! What the HTML and Markdown templates see: the [`Analysis`] arranged for reading. The
//! verdict sentence, findings grouped by severity, each target's checklist rows in a fixed
//! order and its charts, the rules not evaluated grouped by reason, the inputs.
//!
//! Numbers stay numbers here; the templates format them with the filters.

use std::collections::BTreeMap;

use advisor_model::{
    Analysis, Finding, Insufficient, MetricSummary, NotEvaluated, PercentileCurve, Severity,
    VerdictStatus,
};
use serde::Serialize;

use crate::charts;
use crate::series::ChartSeries;
use crate::story;
use crate::{RenderOptions, ReportError};

/// The checklist's row order: the list first, then the rest by name.
const ORDER: &[&str] = &[
    "iops",
    "read_iops",
    "write_iops",
    "mbps",
    "read_mbps",
    "write_mbps",
    "latency_ms",
    "read_latency_ms",
    "write_latency_ms",
    "sync_latency_ms",
    "queue_depth",
    "read_queue_depth",
    "write_queue_depth",
    "io_kib",
    "read_io_kib",
    "write_io_kib",
    "read_pct",
    "busy_pct",
    "cpu_pct",
    "available_memory_mib",
    "pages_per_sec",
    "pagefile_usage_pct",
];

fn rank(metric: &str) -> usize {
    ORDER.iter().position(|m| *m == metric).unwrap_or(ORDER.len())
}

#[derive(Debug, Serialize)]
pub(crate) struct View<'a> {
    verdict: String,
    /// `critical`, `warning`, `info`, `ok`, or `insufficient` (the inputs could not show
    /// a problem).
    status: &'static str,
    counts: Counts,
    tool: &'a advisor_model::ToolInfo,
    schema: &'a str,
    vm: Option<&'a str>,
    groups: Vec<Group<'a>>,
    /// One strip per finding with episodes (a budget, a disk), for the HTML's timeline.
    timelines: Vec<Timeline<'a>>,
    bench_charts: Vec<Chart>,
    targets: Vec<TargetView<'a>>,
    not_evaluated: Vec<Reason<'a>>,
    not_evaluated_count: usize,
    inputs: Vec<InputView<'a>>,
    /// Inputs that are captures (a bundle's manifest, documents and ignored files are
    /// listed among the inputs but not counted in the summary line).
    capture_count: usize,
    warnings: &'a [String],
    charts: bool,
}

#[derive(Debug, Default, Serialize)]
struct Counts {
    critical: usize,
    warning: usize,
    info: usize,
    total: usize,
    /// `1 cause, 6 effects`, when a finding explains others.
    stories: Option<String>,
}

#[derive(Debug, Serialize)]
struct Timeline<'a> {
    title: &'a str,
    subject: &'a str,
    rule: &'a str,
    anchor: String,
    summary: String,
    svg: String,
}

#[derive(Debug, Serialize)]
struct Group<'a> {
    severity: &'static str,
    heading: &'static str,
    findings: Vec<FindingView<'a>>,
}

#[derive(Debug, Serialize)]
struct FindingView<'a> {
    #[serde(flatten)]
    finding: &'a Finding,
    /// A stable anchor for links inside the page.
    anchor: String,
    /// `metrics` in name order, as a list the templates can loop over.
    numbers: Vec<Number<'a>>,
    /// `refs` that are web links (http, https): only these become links; anything else a
    /// rule file says is shown as text.
    links: Vec<&'a str>,
    /// The findings this one explains, each with its own evidence ("because of this").
    effects: Vec<FindingView<'a>>,
    /// The episodes as table rows, and in one line.
    episode_rows: Vec<story::EpisodeRow>,
    episode_summary: Option<String>,
}

fn finding_view<'a>(f: &'a Finding, effects: &[&'a Finding]) -> FindingView<'a> {
    FindingView {
        finding: f,
        anchor: anchor(&["finding", &f.rule, &f.subject]),
        numbers: numbers(f),
        links: f.refs.iter().map(String::as_str).filter(|r| is_web_link(r)).collect(),
        effects: effects.iter().map(|e| finding_view(e, &[])).collect(),
        episode_rows: story::rows(&f.episodes),
        episode_summary: f.episode_window.as_ref().map(|w| story::summary(&f.episodes, w)),
    }
}

#[derive(Debug, Serialize)]
struct Number<'a> {
    name: &'a str,
    value: f64,
    /// The benchmark tool computed it (its own percentile), rather than advisor.
    source: bool,
}

/// The numbers people read: the evaluator's `NAME.from_source = 1` flags become a note on
/// NAME instead of a number of their own (they stay in the JSON for tools).
fn numbers(f: &Finding) -> Vec<Number<'_>> {
    f.metrics
        .iter()
        .filter(|(name, _)| !name.ends_with(".from_source"))
        .map(|(name, &value)| Number {
            name,
            value,
            source: f.metrics.get(&format!("{name}.from_source")).is_some_and(|v| *v != 0.0),
        })
        .collect()
}

#[derive(Debug, Serialize)]
struct Row<'a> {
    metric: &'a str,
    #[serde(flatten)]
    stats: &'a MetricSummary,
}

#[derive(Debug, Serialize)]
struct Chart {
    title: String,
    svg: String,
}

#[derive(Debug, Serialize)]
struct TargetView<'a> {
    name: &'a str,
    kind: &'a str,
    host: Option<&'a str>,
    file: &'a str,
    matched: Option<&'a str>,
    /// Every metric has at most one value (a benchmark summary): one value column.
    single: bool,
    rows: Vec<Row<'a>>,
    charts: Vec<Chart>,
    /// Rules that fired for this target (by subject), for a link back to the findings.
    findings: Vec<FiredRule<'a>>,
    anchor: String,
}

#[derive(Debug, Serialize)]
struct FiredRule<'a> {
    rule: &'a str,
    anchor: String,
}

#[derive(Debug, Serialize)]
struct Reason<'a> {
    reason: &'a str,
    rules: Vec<&'a NotEvaluated>,
}

#[derive(Debug, Serialize)]
struct InputView<'a> {
    file: &'a str,
    format: &'a str,
    version: Option<&'a str>,
    host: Option<&'a str>,
    start: Option<&'a str>,
    end: Option<&'a str>,
    samples: u64,
    targets: &'a [String],
    ignored: &'a [String],
    warnings: &'a [String],
    /// Why a bundle's file was not read (or what it was read as).
    reason: Option<&'a str>,
    /// `end - start` in seconds, when both parse.
    span_s: Option<f64>,
}

/// `Critical: the VM's cached throughput cap is the bottleneck (2 critical, 1 warning)`,
/// `No problems found in 24 rules evaluated; 9 could not be evaluated (see below)`, or,
/// when the inputs could not show a problem, `Not enough data to judge: ...` with what to
/// capture. The finding it leads with is the verdict's `cause` when the analysis names one
/// (the engine ranks a cap or latency finding before one about how a benchmark ran), else
/// the head of the most severe story.
pub fn verdict(analysis: &Analysis, rules_in_force: Option<usize>) -> String {
    if analysis.verdict.status == VerdictStatus::InsufficientData
        && let Some(why) = &analysis.verdict.insufficient
    {
        return insufficient(why);
    }
    let count = |s: Severity| analysis.findings.iter().filter(|f| f.severity == s).count();
    let counts: Vec<String> = [Severity::Critical, Severity::Warning, Severity::Info]
        .into_iter()
        .filter_map(|s| {
            let n = count(s);
            let plural = if n > 1 && s == Severity::Warning { "s" } else { "" };
            (n > 0).then(|| format!("{n} {s}{plural}"))
        })
        .collect();
    // The head of the most severe story (a cause before the findings it explains): the
    // analysis lists the most severe first, but a hand-built one may not.
    let all = story::stories(analysis);
    let worst = all.iter().map(|(f, e)| story::severity(f, e)).max();
    let named = analysis.verdict.cause.as_deref().and_then(|id| {
        all.iter().find(|(f, _)| f.id == id || format!("{}@{}", f.rule, f.subject) == id)
    });
    let head =
        named.or_else(|| worst.and_then(|w| all.iter().find(|(f, e)| story::severity(f, e) == w)));
    if let Some((f, _)) = head {
        let severity = match story::severity(f, &[]).max(worst.unwrap_or(f.severity)) {
            Severity::Critical => "Critical",
            Severity::Warning => "Warning",
            Severity::Info => "Note",
        };
        let title = lower_first(f.title.trim().trim_end_matches('.'));
        let subject = if f.subject.is_empty() || f.subject == "vm" {
            String::new()
        } else {
            format!("{}; ", f.subject)
        };
        // The cause and the fix first, in one sentence a ticket can quote.
        let fix = lower_first(f.fix.trim().trim_end_matches('.'));
        let fix = if fix.is_empty() { String::new() } else { format!("; fix: {fix}") };
        let stories = story::counts(analysis).map(|s| format!("{s}; ")).unwrap_or_default();
        return format!("{severity}: {title}{fix} ({subject}{stories}{})", counts.join(", "));
    }
    let whole: std::collections::BTreeSet<&str> = analysis
        .not_evaluated
        .iter()
        .filter(|n| n.subject.is_none())
        .map(|n| n.rule.as_str())
        .collect();
    let skipped = whole.len();
    let not_eval = match skipped {
        0 if analysis.not_evaluated.is_empty() => String::new(),
        0 => "; some rules could not be evaluated for every target (see below)".to_owned(),
        1 => "; 1 could not be evaluated (see below)".to_owned(),
        n => format!("; {n} could not be evaluated (see below)"),
    };
    match rules_in_force {
        Some(total) => {
            let evaluated = total.saturating_sub(skipped);
            let rules = if evaluated == 1 { "rule" } else { "rules" };
            format!("No problems found in {evaluated} {rules} evaluated{not_eval}")
        }
        None if skipped > 0 => {
            let rules = if skipped == 1 { "rule" } else { "rules" };
            format!("No problems found; {skipped} {rules} could not be evaluated (see below)")
        }
        None => format!("No problems found{not_eval}"),
    }
}

/// Fills the analysis' verdict headline ([`verdict`]): what the JSON report, the pages, the
/// batch index and the server all say first.
pub fn word_verdict(analysis: &mut Analysis, rules_in_force: Option<usize>) {
    analysis.verdict.headline = verdict(analysis, rules_in_force);
}

/// What to capture instead, per format read: the counters PerfMon needs, iostat's flags.
fn capture_hint(formats: &[String]) -> String {
    let perfmon = formats.iter().any(|f| f == "perfmon-csv");
    let linux = formats
        .iter()
        .any(|f| f.starts_with("iostat") || f.starts_with("sar") || f.starts_with("sadf"));
    let windows_hint = "PerfMon's PhysicalDisk(*) counters Disk Reads/sec, Disk Writes/sec, Disk Read Bytes/sec, \
                        Disk Write Bytes/sec, Avg. Disk sec/Read, Avg. Disk sec/Write and Avg. Disk Queue Length \
                        every second (collect/collect-windows.ps1, or typeperf -si 1)";
    let linux_hint = "iostat -x -t 1 (collect/collect-linux.sh), for the whole slow period";
    match (perfmon, linux) {
        (true, true) => format!("{windows_hint}; on Linux {linux_hint}"),
        (true, false) => windows_hint.to_owned(),
        (false, true) => linux_hint.to_owned(),
        (false, false) => format!("on Windows {windows_hint}; on Linux {linux_hint}"),
    }
}

/// The headline of inputs that cannot show a problem.
fn insufficient(why: &Insufficient) -> String {
    match why {
        Insufficient::NoMeasures { formats } => format!(
            "Not enough data to judge: no IOPS, throughput or latency counter of a disk was \
             read, so no cap, stall or slow disk could show. Capture {}",
            capture_hint(formats)
        ),
        Insufficient::SinceBootOnly => "Not enough data to judge: the capture holds only \
             iostat's first report, the average since boot, which cannot show a cap held, a \
             stall or a slow stretch. Capture a series with iostat -x -t 1 (collect/collect-linux.sh) \
             while the workload is slow"
            .to_owned(),
        Insufficient::TooFewSamples { samples, needed, formats } => format!(
            "Not enough data to judge: {samples} sample{} of disk activity, \
             fewer than the {needed} needed to tell a cap held or a stall from noise. Capture \
             minutes, not seconds: {}",
            if *samples == 1 { "" } else { "s" },
            capture_hint(formats)
        ),
    }
}

/// `A log disk ...` -> `a log disk ...`, but `CPU is ...` and `VM ...` stay.
fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if a.is_uppercase() && !b.is_uppercase() && !b.is_ascii_digit() => {
            a.to_lowercase().chain(s[a.len_utf8()..].chars()).collect()
        }
        _ => s.to_owned(),
    }
}

/// An anchor from free text: lowercase letters and digits, the rest as `-`.
fn anchor(parts: &[&str]) -> String {
    let mut out = String::new();
    for c in parts.join("-").chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

/// `2024-03-10T14:05:09.250` (or with a space) as milliseconds since 1970.
pub(crate) fn iso_ms(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date, time) = s.split_once(['T', ' '])?;
    let mut d = date.splitn(3, '-');
    let y: i64 = d.next()?.parse().ok()?;
    let m: i64 = d.next()?.parse().ok()?;
    let day: i64 = d.next()?.parse().ok()?;
    let time = time.trim_end_matches('Z');
    let time = time.split(['+']).next()?;
    let mut t = time.splitn(3, ':');
    let h: i64 = t.next()?.parse().ok()?;
    let mi: i64 = t.next()?.parse().ok()?;
    let sec: f64 = t.next().unwrap_or("0").parse().ok()?;
    // days_from_civil (Howard Hinnant)
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + h * 3600 + mi * 60) as f64 * 1000.0 + sec * 1000.0).round() as i64)
}

fn chart_title(family: &str, target: &str) -> String {
    format!("{family}: {target}")
}

/// The charts of one (file, target): time series by family, then percentile curves.
fn target_charts(
    series: &[&ChartSeries],
    curves: &[&PercentileCurve],
    target: &str,
    bands: &[(i64, i64)],
) -> Vec<Chart> {
    let mut families: BTreeMap<(u8, String), Vec<&ChartSeries>> = BTreeMap::new();
    for s in series {
        families.entry(charts::family(&s.metric)).or_default().push(s);
    }
    let mut out = Vec::new();
    for ((_, family), mut members) in families {
        members.sort_by_key(|s| rank(&s.metric));
        let title = chart_title(&family, target);
        // A chart that cannot be drawn (no finite point) is left out, not an error.
        if let Ok(svg) = charts::time_series(&title, &members, bands) {
            out.push(Chart { title, svg });
        }
    }
    if !curves.is_empty() {
        let title = chart_title("Latency percentiles", target);
        if let Ok(svg) = charts::percentile_curve(&title, curves) {
            out.push(Chart { title, svg });
        }
    }
    out
}

/// One value per benchmark target, when there are benchmark targets: bars to compare them.
fn bench_charts(analysis: &Analysis) -> Vec<Chart> {
    let bench: Vec<_> = analysis.targets.iter().filter(|t| t.kind == "benchmark").collect();
    if bench.is_empty() {
        return Vec::new();
    }
    // A name shown twice (the same target in two runs) gets its file's name beside it.
    let label = |t: &advisor_model::TargetSummary| {
        let twice = bench.iter().filter(|u| u.name == t.name).count() > 1;
        let name =
            if twice { format!("{} ({})", t.name, short_file(&t.file)) } else { t.name.clone() };
        shorten(&name, 30)
    };
    let mut out = Vec::new();
    for (metric, title) in [
        ("iops", "Benchmark IOPS"),
        ("mbps", "Benchmark throughput"),
        ("latency_ms", "Benchmark mean latency"),
    ] {
        let bars: Vec<(String, f64)> = bench
            .iter()
            .filter_map(|t| {
                let v = t.metrics.get(metric)?;
                Some((label(t), if v.count <= 1 { v.max } else { v.avg }))
            })
            .collect();
        if bars.is_empty() {
            continue;
        }
        if let Ok(svg) = charts::bars(title, metric, &bars) {
            out.push(Chart { title: title.to_owned(), svg });
        }
    }
    out
}

fn is_web_link(r: &str) -> bool {
    let lower = r.trim().to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://"))
        && !r.contains(char::is_whitespace)
}

/// At most `max` characters, the middle elided: `handmade_dis…_L_D.xml`.
fn shorten(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_owned();
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

fn short_file(file: &str) -> &str {
    file.rsplit(['/', '\\']).next().unwrap_or(file)
}

pub(crate) fn build<'a>(
    analysis: &'a Analysis,
    chart_data: &'a [ChartSeries],
    options: &RenderOptions,
    with_charts: bool,
) -> Result<View<'a>, ReportError> {
    let mut counts = Counts::default();
    for f in &analysis.findings {
        match f.severity {
            Severity::Critical => counts.critical += 1,
            Severity::Warning => counts.warning += 1,
            Severity::Info => counts.info += 1,
        }
        counts.total += 1;
    }
    counts.stories = story::counts(analysis);
    // Stories grouped by their most severe finding: a cause first, its effects under it.
    let stories = story::stories(analysis);
    let mut groups = Vec::new();
    for (severity, heading) in [
        (Severity::Critical, "Critical"),
        (Severity::Warning, "Warnings"),
        (Severity::Info, "Notes"),
    ] {
        let findings: Vec<FindingView<'_>> = stories
            .iter()
            .filter(|(f, e)| story::severity(f, e) == severity)
            .map(|(f, e)| finding_view(f, e))
            .collect();
        if !findings.is_empty() {
            groups.push(Group { severity: severity.as_str(), heading, findings });
        }
    }
    let timelines: Vec<Timeline<'_>> = analysis
        .findings
        .iter()
        .filter_map(|f| {
            let w = f.episode_window.as_ref()?;
            let label = if f.subject == "vm" { "the VM" } else { f.subject.as_str() };
            Some(Timeline {
                title: &f.title,
                subject: &f.subject,
                rule: &f.rule,
                anchor: anchor(&["finding", &f.rule, &f.subject]),
                summary: story::summary(&f.episodes, w),
                svg: story::timeline(label, &f.episodes, w)?,
            })
        })
        .collect();

    let mut targets: Vec<TargetView<'_>> = Vec::new();
    for t in &analysis.targets {
        let mut rows: Vec<Row<'_>> =
            t.metrics.iter().map(|(metric, stats)| Row { metric, stats }).collect();
        rows.sort_by_key(|r| (rank(r.metric), r.metric));
        let single = !t.metrics.is_empty() && t.metrics.values().all(|m| m.count <= 1);
        targets.push(TargetView {
            name: &t.name,
            kind: &t.kind,
            host: t.host.as_deref(),
            file: &t.file,
            matched: t.matched.as_deref(),
            single,
            rows,
            charts: Vec::new(),
            findings: Vec::new(),
            anchor: anchor(&["target", short_file(&t.file), &t.name]),
        });
    }
    for t in &mut targets {
        for f in &analysis.findings {
            let about = f.subject == t.name || t.matched.is_some_and(|m| m == f.subject);
            if about && !t.findings.iter().any(|r| r.rule == f.rule) {
                let anchor = anchor(&["finding", &f.rule, &f.subject]);
                t.findings.push(FiredRule { rule: &f.rule, anchor });
            }
        }
    }

    if with_charts {
        // Charts per (file, target), in the order the analysis lists them; series for a
        // target the checklist lacks (a VM-wide sum) get a section of their own.
        let mut keys: Vec<(&str, &str)> = Vec::new();
        for (file, target) in chart_data
            .iter()
            .map(|c| (c.file.as_str(), c.target.as_str()))
            .chain(analysis.curves.iter().map(|c| (c.file.as_str(), c.target.as_str())))
        {
            if !keys.contains(&(file, target)) {
                keys.push((file, target));
            }
        }
        // VM-wide sums go first: VM-level throttling is the dependent kind, seen only there.
        let mut front = 0;
        for (file, target) in keys {
            let series: Vec<&ChartSeries> =
                chart_data.iter().filter(|c| c.file == file && c.target == target).collect();
            let curves: Vec<&PercentileCurve> =
                analysis.curves.iter().filter(|c| c.file == file && c.target == target).collect();
            // The episodes of the findings about this target (or its budget), shaded.
            let matched =
                targets.iter().find(|t| t.file == file && t.name == target).and_then(|t| t.matched);
            let bands: Vec<(i64, i64)> = analysis
                .findings
                .iter()
                .filter(|f| story::shades(f, target, matched))
                .flat_map(|f| f.episodes.iter())
                .filter_map(|e| Some((iso_ms(&e.start)?, iso_ms(&e.end)?)))
                .collect();
            let drawn = target_charts(&series, &curves, target, &bands);
            match targets.iter_mut().find(|t| t.file == file && t.name == target) {
                Some(t) => t.charts.extend(drawn),
                None if !drawn.is_empty() => {
                    targets.insert(
                        front,
                        TargetView {
                            name: target,
                            kind: "aggregate",
                            host: None,
                            file,
                            matched: None,
                            single: false,
                            rows: Vec::new(),
                            charts: drawn,
                            findings: Vec::new(),
                            anchor: anchor(&["target", short_file(file), target]),
                        },
                    );
                    front += 1;
                }
                None => {}
            }
        }
    }

    let mut not_evaluated: Vec<Reason<'_>> = Vec::new();
    for n in &analysis.not_evaluated {
        match not_evaluated.iter_mut().find(|r| r.reason == n.reason) {
            Some(r) => r.rules.push(n),
            None => not_evaluated.push(Reason { reason: &n.reason, rules: vec![n] }),
        }
    }

    let inputs = analysis
        .inputs
        .iter()
        .map(|i| {
            let span_s =
                match (i.start.as_deref().and_then(iso_ms), i.end.as_deref().and_then(iso_ms)) {
                    (Some(a), Some(b)) if b >= a => Some((b - a) as f64 / 1000.0),
                    _ => None,
                };
            InputView {
                file: &i.file,
                format: &i.format,
                version: i.version.as_deref(),
                host: i.host.as_deref(),
                start: i.start.as_deref(),
                end: i.end.as_deref(),
                samples: i.samples,
                targets: &i.targets,
                ignored: &i.ignored,
                warnings: &i.warnings,
                reason: i.reason.as_deref(),
                span_s,
            }
        })
        .collect();

    Ok(View {
        verdict: if analysis.verdict.headline.is_empty() {
            verdict(analysis, options.rules_in_force)
        } else {
            analysis.verdict.headline.clone()
        },
        status: match (analysis.verdict.status, &analysis.verdict.insufficient) {
            (VerdictStatus::InsufficientData, Some(_)) => "insufficient",
            _ => analysis.worst().map_or("ok", Severity::as_str),
        },
        counts,
        tool: &analysis.tool,
        schema: &analysis.schema,
        vm: analysis.vm.as_deref(),
        groups,
        timelines: if with_charts { timelines } else { Vec::new() },
        bench_charts: if with_charts { bench_charts(analysis) } else { Vec::new() },
        targets,
        not_evaluated_count: analysis.not_evaluated.len(),
        not_evaluated,
        capture_count: analysis
            .inputs
            .iter()
            .filter(|i| !matches!(i.format.as_str(), "collector-manifest" | "topology" | "ignored"))
            .count(),
        inputs,
        warnings: &analysis.warnings,
        charts: with_charts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_times() {
        assert_eq!(iso_ms("1970-01-01T00:00:01"), Some(1000));
        assert_eq!(iso_ms("2024-03-10 14:05:09.250"), Some(1_710_079_509_250));
        assert_eq!(iso_ms("yesterday"), None);
    }

    #[test]
    fn lowercase_only_words() {
        assert_eq!(lower_first("A log disk"), "a log disk");
        assert_eq!(lower_first("CPU is saturated"), "CPU is saturated");
        assert_eq!(lower_first("fio's write latency"), "fio's write latency");
        assert_eq!(lower_first("IOs queue"), "IOs queue");
    }

    #[test]
    fn long_names_shortened() {
        assert_eq!(shorten("E:\\io.dat", 30), "E:\\io.dat");
        assert_eq!(shorten("abcdefghij", 5), "ab…ij");
    }

    #[test]
    fn anchors() {
        assert_eq!(
            anchor(&["finding", "vm-cached-throughput-cap", "E:"]),
            "finding-vm-cached-throughput-cap-e"
        );
    }
}
