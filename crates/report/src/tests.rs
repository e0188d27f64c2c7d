#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use advisor_model::{
    Analysis, DiskCaps, Episode, EpisodeKind, EpisodeWindow, Finding, InputSummary, MetricSummary,
    NotEvaluated, PercentileCurve, REPORT_SCHEMA, SampledSeries, SeriesOf, Severity, TargetSummary,
    ToolInfo, VmCaps,
};

use super::*;

fn stats(p50: f64, p90: f64, p99: f64, max: f64, count: u64) -> MetricSummary {
    MetricSummary { p50, p90, p99, max, avg: (p50 + p90) / 2.0, count }
}

fn one(v: f64) -> MetricSummary {
    stats(v, v, v, v, 1)
}

/// A spike and a sustained stretch at the cached cap, as the evaluator reports them.
fn field_case_episodes() -> Vec<Episode> {
    vec![
        Episode {
            start: "2024-03-10T14:05:19".into(),
            end: "2024-03-10T14:05:21".into(),
            duration_s: 2.0,
            kind: EpisodeKind::Spike,
            samples: 2,
            peak_pct: 100.4,
            mean_pct: 99.1,
            latency_ms: Some(31.5),
        },
        Episode {
            start: "2024-03-10T14:06:09".into(),
            end: "2024-03-10T14:07:09".into(),
            duration_s: 60.0,
            kind: EpisodeKind::Sustained,
            samples: 60,
            peak_pct: 100.4,
            mean_pct: 100.0,
            latency_ms: Some(37.2),
        },
    ]
}

fn field_case_window() -> EpisodeWindow {
    EpisodeWindow {
        series: "sum(mbps) over disks where disk.cache != none or disk.role == temp".into(),
        cap: 256.0,
        unit: "MB/s".into(),
        threshold_pct: 95.0,
        gap_s: 10.0,
        sustained_s: 30.0,
        start: "2024-03-10T14:05:09".into(),
        end: "2024-03-10T14:07:09".into(),
        at_cap_s: 62.0,
        latency_outside_ms: Some(2.1),
    }
}

/// The DS13_v2 field case by hand: a temp disk writing at the VM's cached cap while a
/// cached P30 does QD1 writes, plus a DiskSpd run, and rules not evaluated.
pub(crate) fn field_case() -> Analysis {
    let t0 = 1_710_079_509_000_i64;
    let series = |metric: &str,
                  target: &str,
                  f: &dyn Fn(i64) -> f64,
                  disk: Option<DiskCaps>,
                  vm: Option<VmCaps>| SampledSeries {
        of: SeriesOf::Target { name: target.into(), disk, vm },
        file: "perfmon.csv".into(),
        metric: metric.into(),
        points: (0..120).map(|i| (t0 + i * 1000, f(i))).collect(),
    };
    let vm_cap = VmCaps {
        size: "Standard_DS13_v2".into(),
        cached_iops: None,
        cached_mbps: Some(256.0),
        uncached_iops: None,
        uncached_mbps: None,
    };
    let p30 =
        DiskCaps { name: "E:".into(), iops: Some(5000.0), burst_iops: None, mbps: Some(200.0) };
    let mut e = BTreeMap::new();
    e.insert("iops".to_owned(), stats(27.0, 31.0, 480.0, 481.0, 120));
    e.insert("mbps".to_owned(), stats(0.1, 0.12, 1.9, 1.9, 120));
    e.insert("write_latency_ms".to_owned(), stats(37.0, 41.0, 52.0, 60.2, 120));
    e.insert("read_latency_ms".to_owned(), stats(0.0, 0.0, 0.0, 0.0, 120));
    e.insert("queue_depth".to_owned(), stats(1.0, 1.0, 1.1, 1.2, 120));
    e.insert("io_kib".to_owned(), stats(4.0, 4.0, 4.0, 4.0, 120));
    e.insert("read_pct".to_owned(), stats(0.0, 0.0, 2.0, 3.5, 120));
    let mut d = BTreeMap::new();
    d.insert("mbps".to_owned(), stats(255.0, 256.0, 256.3, 257.1, 120));
    d.insert("iops".to_owned(), stats(2040.0, 2050.0, 2051.0, 2060.0, 120));
    d.insert("write_latency_ms".to_owned(), stats(12.0, 15.5, 48.0, 51.0, 120));
    let mut b = BTreeMap::new();
    b.insert("iops".to_owned(), one(5012.0));
    b.insert("mbps".to_owned(), one(39.16));
    b.insert("read_latency_ms".to_owned(), one(6.38));
    let mut b2 = BTreeMap::new();
    b2.insert("iops".to_owned(), one(24800.5));
    b2.insert("mbps".to_owned(), one(193.75));
    let mut m = BTreeMap::new();
    m.insert("cached_mbps_p95".to_owned(), 256.3);
    m.insert("vm_cached_mbps".to_owned(), 256.0);
    m.insert("cap_used".to_owned(), 100.1);
    Analysis {
        schema: REPORT_SCHEMA.into(),
        tool: ToolInfo { name: "advisor".into(), version: "0.1.0".into() },
        verdict: Default::default(),
        inputs: vec![
            InputSummary {
                file: "perfmon.csv".into(),
                format: "perfmon-csv".into(),
                version: None,
                host: Some("SQL01".into()),
                start: Some("2024-03-10T14:05:09".into()),
                end: Some("2024-03-10T14:07:08".into()),
                samples: 120,
                targets: vec!["D:".into(), "E:".into()],
                ignored: vec!["\\\\SQL01\\Memory\\Pages/sec".into()],
                warnings: vec!["3 blank cells read as missing".into()],
                reason: None,
            },
            InputSummary {
                file: "run|1.xml".into(),
                format: "diskspd-xml".into(),
                version: Some("2.2".into()),
                host: None,
                start: None,
                end: None,
                samples: 1,
                targets: vec!["E:\\io.dat".into(), "F:\\io.dat".into()],
                ignored: vec![],
                warnings: vec![],
                reason: None,
            },
            InputSummary {
                file: "bundle.tgz!advisor-sql01/lsblk.json".into(),
                format: "ignored".into(),
                version: None,
                host: None,
                start: None,
                end: None,
                samples: 0,
                targets: vec![],
                ignored: vec![],
                warnings: vec![],
                reason: Some("lsblk JSON: this build does not read it into the topology".into()),
            },
        ],
        findings: vec![
            Finding {
                rule: "vm-cached-throughput-cap".into(),
                severity: Severity::Critical,
                subject: "vm".into(),
                title: "Cached disks and the temp disk are at the VM's cached throughput cap".into(),
                evidence: "256 MB/s (p95, peak 257 MB/s) went through host-cached disks and the temp disk, 100% of the 256 MB/s that Standard_DS13_v2 allows".into(),
                fix: "Set host caching to None on write-heavy disks, or move scratch IO off the temp disk <D:>".into(),
                metrics: m,
                refs: vec![
                    "https://learn.microsoft.com/azure/virtual-machines/disks-performance".into(),
                    "javascript:alert(1)".into(),
                ],
                id: "vm-cached-throughput-cap@vm".into(),
                episodes: field_case_episodes(),
                episode_window: Some(field_case_window()),
                causes: vec!["write-heavy-disk-cached@E:".into()],
                explained_by: vec![],
                recommendation: None,
            },
            Finding {
                rule: "write-heavy-disk-cached".into(),
                severity: Severity::Warning,
                subject: "E:".into(),
                title: "A mostly-writing disk has host caching turned on".into(),
                evidence: "E: writes 100% of its IO | with ReadOnly caching".into(),
                fix: "Set host caching to None on E:".into(),
                metrics: BTreeMap::from([("read_pct_p50".to_owned(), 0.0)]),
                refs: vec![],
                id: "write-heavy-disk-cached@E:".into(),
                episodes: vec![],
                episode_window: None,
                causes: vec![],
                explained_by: vec!["vm-cached-throughput-cap@vm".into()],
                recommendation: None,
            },
        ],
        not_evaluated: vec![
            NotEvaluated {
                rule: "pool-columns-mismatch".into(),
                subject: None,
                reason: "needs a pool in the topology".into(),
            },
            NotEvaluated {
                rule: "stripe-size-mismatch".into(),
                subject: None,
                reason: "needs a pool in the topology".into(),
            },
            NotEvaluated {
                rule: "cpu-saturated".into(),
                subject: Some("SQL01".into()),
                reason: "needs the `\\Processor(_Total)\\% Processor Time` counter".into(),
            },
        ],
        targets: vec![
            TargetSummary {
                name: "D:".into(),
                kind: "disk".into(),
                host: Some("SQL01".into()),
                file: "perfmon.csv".into(),
                matched: Some("D:".into()),
                metrics: d,
            },
            TargetSummary {
                name: "E:".into(),
                kind: "disk".into(),
                host: Some("SQL01".into()),
                file: "perfmon.csv".into(),
                matched: Some("E:".into()),
                metrics: e,
            },
            TargetSummary {
                name: "E:\\io.dat".into(),
                kind: "benchmark".into(),
                host: None,
                file: "run|1.xml".into(),
                matched: Some("E:".into()),
                metrics: b,
            },
            TargetSummary {
                name: "F:\\io.dat".into(),
                kind: "benchmark".into(),
                host: None,
                file: "run|1.xml".into(),
                matched: None,
                metrics: b2,
            },
        ],
        vm: Some("Standard_DS13_v2".into()),
        warnings: vec!["disk C: (P10) is in the topology but no capture mentions it".into()],
        series: vec![
            series("mbps", "D:", &|i| if i < 20 { 40.0 } else { 255.0 + (i % 3) as f64 }, None, Some(vm_cap.clone())),
            series("iops", "E:", &|i| if i < 20 { 481.0 } else { 27.0 + (i % 5) as f64 }, Some(p30.clone()), None),
            series("mbps", "E:", &|i| if i < 20 { 1.9 } else { 0.1 }, Some(p30), Some(vm_cap)),
            series("write_latency_ms", "E:", &|i| if i < 20 { 2.07 } else { 37.0 + (i % 7) as f64 }, None, None),
            series("read_latency_ms", "E:", &|i| if i % 10 == 0 { f64::NAN } else { 0.5 }, None, None),
        ],
        curves: vec![PercentileCurve {
            target: "E:\\io.dat".into(),
            file: "run|1.xml".into(),
            direction: "read".into(),
            points: vec![(50.0, 5.9), (90.0, 7.1), (99.0, 11.0), (99.9, 52.0), (99.99, 105.0), (100.0, 240.0)],
        }],
    }
}

fn empty() -> Analysis {
    Analysis {
        schema: REPORT_SCHEMA.into(),
        tool: ToolInfo { name: "advisor".into(), version: "0.1.0".into() },
        verdict: Default::default(),
        inputs: vec![],
        findings: vec![],
        not_evaluated: vec![NotEvaluated {
            rule: "vm-cached-throughput-cap".into(),
            subject: None,
            reason: "needs the VM size: pass --vm or --topology".into(),
        }],
        targets: vec![],
        vm: None,
        warnings: vec![],
        series: vec![],
        curves: vec![],
    }
}

fn render(a: &Analysis, f: Format) -> String {
    Renderer::new().unwrap().render(a, f, &RenderOptions { rules_in_force: Some(25) }).unwrap()
}

#[test]
fn verdict_sentences() {
    assert_eq!(
        verdict(&field_case(), Some(25)),
        "Critical: cached disks and the temp disk are at the VM's cached throughput cap; fix: set host caching to None on write-heavy disks, or move scratch IO off the temp disk <D:> (1 cause, 1 effect; 1 critical, 1 warning)"
    );
    // The cause gone, its effect stands alone: no story to count.
    let mut warn = field_case();
    warn.findings.remove(0);
    assert_eq!(
        verdict(&warn, None),
        "Warning: a mostly-writing disk has host caching turned on; fix: set host caching to None on E: (E:; 1 warning)"
    );
    // A story whose effect is the most severe finding: the cause still heads the verdict,
    // with the story's severity.
    let mut up = field_case();
    up.findings[0].severity = Severity::Info;
    assert!(
        verdict(&up, None).starts_with(
            "Warning: cached disks and the temp disk are at the VM's cached throughput cap; fix: "
        ),
        "{}",
        verdict(&up, None)
    );
    assert_eq!(
        verdict(&empty(), Some(25)),
        "No problems found in 24 rules evaluated; 1 could not be evaluated (see below)"
    );
    assert_eq!(
        verdict(&empty(), None),
        "No problems found; 1 rule could not be evaluated (see below)"
    );
    let mut clean = empty();
    clean.not_evaluated.clear();
    assert_eq!(verdict(&clean, Some(25)), "No problems found in 25 rules evaluated");
}

#[test]
fn markdown_snapshot() {
    insta::assert_snapshot!("field_case.md", render(&field_case(), Format::Markdown));
    insta::assert_snapshot!("empty.md", render(&empty(), Format::Markdown));
}

/// The text outside code spans, where Markdown would interpret HTML (inside a code span
/// `<b>` is shown as typed).
fn outside_code_spans(md: &str) -> String {
    let mut out = String::new();
    for line in md.lines() {
        let mut rest = line;
        while let Some(start) = rest.find('`') {
            out.push_str(&rest[..start]);
            let fence_len = rest[start..].chars().take_while(|&c| c == '`').count();
            let fence = "`".repeat(fence_len);
            let after = &rest[start + fence_len..];
            match after.find(&fence) {
                Some(end) => rest = &after[end + fence_len..],
                None => {
                    rest = after;
                    out.push_str(&fence);
                }
            }
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

/// No HTML tag or comment survives into the Markdown, whatever the analysis holds.
pub(crate) fn assert_no_html(md: &str) {
    let md = &outside_code_spans(md);
    let bytes = md.as_bytes();
    for (i, w) in bytes.windows(2).enumerate() {
        let escaped = i > 0 && bytes[i - 1] == b'\\';
        if w[0] == b'<' && !escaped && (w[1].is_ascii_alphabetic() || w[1] == b'/' || w[1] == b'!')
        {
            panic!("HTML in Markdown at byte {i}: {}", &md[i..md.len().min(i + 40)]);
        }
    }
}

#[test]
fn markdown_has_no_html() {
    assert_no_html(&render(&field_case(), Format::Markdown));
    let mut nasty = field_case();
    nasty.findings[0].title = "<script>alert(1)</script> <b>bold</b> <!-- c -->".into();
    nasty.targets[0].name = "<img src=x>".into();
    let md = render(&nasty, Format::Markdown);
    assert_no_html(&md);
    assert!(md.contains("\\<script"));
}

#[test]
fn json_round_trips() {
    let a = field_case();
    let json = render(&a, Format::Json);
    let back: Analysis = serde_json::from_str(&json).unwrap();
    assert_eq!(back.findings, a.findings);
    assert_eq!(back.targets, a.targets);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["schema"], REPORT_SCHEMA);
    assert!(v.get("charts").is_none(), "chart data stays out of the JSON report");
}

#[test]
fn schema_pins_the_identifier() {
    let s = json_schema();
    assert_eq!(s["properties"]["schema"]["const"], REPORT_SCHEMA);
    assert!(s["required"].as_array().unwrap().iter().any(|r| r == "findings"));
}

#[test]
fn html_is_self_contained_and_complete() {
    let html = render(&field_case(), Format::Html);
    assert_self_contained(&html);
    assert!(html.starts_with("<!doctype html>"));
    // A bundle's ignored file: listed with its reason, not counted as a capture.
    assert!(html.contains("<li>lsblk JSON: this build does not read it into the topology</li>"));
    assert!(html.contains("2 inputs, 4 targets"));
    assert!(html.contains(
        "Critical: cached disks and the temp disk are at the VM&#39;s cached throughput cap"
    ));
    // Evidence, the fix, escaped free text, every target, charts with caps, percentiles, bars.
    assert!(html.contains("went through host-cached disks"));
    assert!(html.contains("move scratch IO off the temp disk &lt;D:&gt;"));
    assert!(html.contains("E:\\io.dat"));
    assert!(html.matches("<svg").count() >= 6, "charts: {}", html.matches("<svg").count());
    // Caps are labelled from the plain limits: MB/s as Azure publishes them, drawn in MiB/s.
    assert!(html.contains("Standard_DS13_v2 cached 256 MB/s (244.1 MiB/s)"), "VM cap label");
    assert!(html.contains("E: cap 5000 IOPS"), "disk cap label");
    assert!(html.contains("aria-label=\"Latency percentiles: E:\\io.dat\""));
    assert!(html.contains("aria-label=\"Benchmark IOPS\""));
    assert!(html.contains("needs a pool in the topology"));
    assert!(html.contains("1 min 59 s"));
    // A reference that is not a web link is text, never a link.
    assert!(!html.contains("href=\"javascript"));
    assert!(html.contains("<span>javascript:alert(1)</span>"));
    // The story: the cause's card holds its effect, with the effect's own evidence.
    let story = html.split("id=\"finding-vm-cached-throughput-cap-vm\"").nth(1).unwrap();
    let story = story.split("</div>\n</article>").next().unwrap();
    assert!(story.contains("Because of this (1)"), "{story}");
    assert!(story.contains("E: writes 100% of its IO"), "{story}");
    assert!(!html.contains("<h3>Warnings ("), "the effect is not listed twice");
    // The episodes: a table on the card, and a timeline strip with one mark per episode.
    assert!(html.contains("<table class=\"episodes\">"));
    let strip = html.split("<svg class=\"timeline\"").nth(1).expect("a timeline strip");
    let strip = strip.split("</svg>").next().unwrap();
    assert_eq!(strip.matches("<rect class=\"episode spike\"").count(), 1, "{strip}");
    assert_eq!(strip.matches("<rect class=\"episode sustained\"").count(), 1, "{strip}");
    // 14:06:09 to 14:07:09 of 14:05:09 to 14:07:09: the right half of the 720 px strip.
    assert!(
        strip.contains("class=\"episode sustained\" x=\"360.0\" y=\"0\" width=\"360.0\""),
        "{strip}"
    );
    assert!(html.contains("id=\"timeline\"") && html.contains("href=\"#timeline\""));
}

/// Nothing in the page makes a browser fetch anything: no scripts, stylesheets, images,
/// frames, fonts or imports; the only URLs are links a reader may follow.
pub(crate) fn assert_self_contained(html: &str) {
    let lower = html.to_ascii_lowercase();
    for bad in [
        "<script",
        "<link",
        "<img",
        "<iframe",
        "<object",
        "<embed",
        "<video",
        "<audio",
        "<source",
        "@import",
        "url(",
        " src=",
        "srcset=",
        "xlink:href",
        "<base",
    ] {
        assert!(!lower.contains(bad), "the page references something outside itself: {bad}");
    }
    for (i, _) in lower.match_indices("href=\"") {
        let target = &lower[i + 6..];
        let inside = target.starts_with('#');
        let link = lower[..i].trim_end().ends_with("<a");
        assert!(inside || link, "href outside an <a> link: {}", &html[i..html.len().min(i + 60)]);
    }
    for (i, _) in lower.match_indices("http") {
        let before = &lower[..i];
        let in_link = before.ends_with("href=\"") || before.ends_with('>');
        assert!(
            in_link,
            "a URL outside a link: {}",
            &html[i.saturating_sub(30)..html.len().min(i + 60)]
        );
    }
}

#[test]
fn html_without_findings_or_charts() {
    let html = render(&empty(), Format::Html);
    assert_self_contained(&html);
    assert!(html.contains("No problems found in 24 rules evaluated"));
    assert!(html.contains("needs the VM size: pass --vm or --topology"));
    assert!(html.contains("No VM size was given"));
}

#[test]
fn templates_override_file_by_file() {
    let dir = std::env::temp_dir().join(format!("advisor-report-override-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("partials")).unwrap();
    std::fs::write(dir.join("partials/inputs.md.tera"), "INPUTS: {{ inputs | length }}\n").unwrap();
    let r = Renderer::with_overrides(Some(&dir)).unwrap();
    let md = r.render(&field_case(), Format::Markdown, &RenderOptions::default()).unwrap();
    // Every input, a bundle's ignored file included.
    assert!(md.contains("INPUTS: 3"), "{md}");
    assert!(md.contains("### Findings"), "the other templates stay embedded");

    std::fs::write(dir.join("report.md.tera"), "{% if %}").unwrap();
    let e = Renderer::with_overrides(Some(&dir)).unwrap_err().to_string();
    assert!(e.contains("report.md.tera"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();

    let missing =
        Renderer::with_overrides(Some(std::path::Path::new("/nonexistent/advisor-templates")));
    assert!(missing.unwrap_err().to_string().contains("/nonexistent/advisor-templates"));
}

#[test]
fn embedded_templates_are_there() {
    let names = embedded_names();
    for n in [
        "report.html.tera",
        "report.md.tera",
        "partials/style.css.tera",
        "partials/findings.md.tera",
    ] {
        assert!(names.iter().any(|x| x == n), "{n} missing from {names:?}");
    }
}

#[test]
fn formats_from_names() {
    use std::path::Path;
    assert_eq!(Format::from_path(Path::new("r.HTML")), Some(Format::Html));
    assert_eq!(Format::from_path(Path::new("r.md")), Some(Format::Markdown));
    assert_eq!(Format::from_path(Path::new("r.json")), Some(Format::Json));
    assert_eq!(Format::from_path(Path::new("r.txt")), None);
    assert_eq!("markdown".parse::<Format>(), Ok(Format::Markdown));
    assert!("pdf".parse::<Format>().is_err());
}

/// A ceiling read from the data is drawn as a line of its own, labelled as inferred, on the
/// charts of the target its finding names (and only there), in the chart's unit.
#[test]
fn inferred_ceilings_are_drawn_as_their_own_labelled_lines() {
    let mut a = field_case();
    a.findings.push(Finding {
        rule: "inferred-disk-cap".into(),
        severity: Severity::Warning,
        subject: "D:".into(),
        title: "A target holds a ceiling while IO queues: a cap read from the data".into(),
        evidence: "D: held 2050 IOPS and 256.3 MB/s".into(),
        fix: "f".into(),
        metrics: BTreeMap::from([
            ("ceiling_iops".to_owned(), 2050.0),
            ("ceiling_mbps".to_owned(), 256.3),
        ]),
        refs: vec![],
        id: "inferred-disk-cap@D:".into(),
        episodes: vec![],
        episode_window: None,
        causes: vec![],
        explained_by: vec![],
        recommendation: None,
    });
    let charts = crate::series::chart_data(&a);
    let inferred: Vec<(&str, &str, &crate::CapLine)> = charts
        .iter()
        .flat_map(|c| {
            c.caps
                .iter()
                .filter(|l| l.label.contains("inferred"))
                .map(move |l| (c.target.as_str(), c.metric.as_str(), l))
        })
        .collect();
    assert_eq!(inferred.len(), 1, "{inferred:?}");
    let (target, metric, line) = inferred[0];
    assert_eq!((target, metric), ("D:", "mbps"));
    assert_eq!(line.label, "inferred ceiling of D: (read from the data) 256 MB/s (244.4 MiB/s)");
    assert!((line.value - 256.3e6 / 1_048_576.0).abs() < 1e-9);
    let html = render(&a, Format::Html);
    assert!(
        html.contains("inferred ceiling of D: (read from the data)"),
        "no inferred line in the HTML"
    );
}

// Inputs that cannot show a problem get a headline that says so and what to capture, per
// format, never "No problems"; the page's status class says it too.
#[test]
fn insufficient_data_says_what_to_capture() {
    use advisor_model::{Insufficient, VerdictStatus};
    let mut a = empty();
    a.verdict.status = VerdictStatus::InsufficientData;
    a.verdict.insufficient =
        Some(Insufficient::NoMeasures { formats: vec!["perfmon-csv".to_owned()] });
    crate::word_verdict(&mut a, Some(25));
    assert!(a.verdict.headline.starts_with("Not enough data to judge"), "{}", a.verdict.headline);
    assert!(a.verdict.headline.contains("Disk Reads/sec"), "{}", a.verdict.headline);
    assert!(!a.verdict.headline.contains("iostat"), "{}", a.verdict.headline);
    let md = render(&a, Format::Markdown);
    assert!(md.contains("Not enough data to judge"), "{md}");
    assert!(!md.contains("No problems"), "{md}");
    let html = render(&a, Format::Html);
    assert!(html.contains("status-insufficient"));

    a.verdict.insufficient = Some(Insufficient::SinceBootOnly);
    crate::word_verdict(&mut a, None);
    assert!(a.verdict.headline.contains("since boot"), "{}", a.verdict.headline);
    assert!(a.verdict.headline.contains("iostat -x -t 1"), "{}", a.verdict.headline);

    a.verdict.insufficient = Some(Insufficient::TooFewSamples {
        samples: 2,
        needed: 5,
        formats: vec!["iostat-json".to_owned()],
    });
    crate::word_verdict(&mut a, None);
    assert!(a.verdict.headline.contains("2 samples"), "{}", a.verdict.headline);
    assert!(a.verdict.headline.contains("fewer than the 5"), "{}", a.verdict.headline);
}

// The verdict's cause leads the headline even when a more severe-looking story stands
// elsewhere in the list: the engine ranks a cap before a methodology finding.
#[test]
fn the_named_cause_heads_the_headline() {
    let mut a = field_case();
    let mut other = a.findings[0].clone();
    other.rule = "inferred-disk-cap".into();
    other.subject = "E:".into();
    other.id = "inferred-disk-cap@E:".into();
    other.title = "A target holds a ceiling while IO queues".into();
    other.severity = Severity::Warning;
    other.causes.clear();
    other.explained_by.clear();
    a.findings.push(other);
    let line = verdict(&a, None);
    assert!(!line.contains("a target holds a ceiling"), "without a cause, the worst story: {line}");
    a.verdict.cause = Some("inferred-disk-cap@E:".into());
    let line = verdict(&a, None);
    assert!(line.contains(&lower_title("A target holds a ceiling while IO queues")), "{line}");
}

fn lower_title(t: &str) -> String {
    let t = t.trim().trim_end_matches('.');
    let mut c = t.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}
