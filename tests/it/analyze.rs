//! `advisor analyze` end to end: the real binary on the seed scenarios, every format, the
//! exit codes, the JSON report against `advisor schema`, and the HTML page in Chromium.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use crate::skip;

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;

/// The seed scenarios: (name, capture files, topology), paths relative to the repository.
fn scenarios() -> Vec<(String, Vec<String>, String)> {
    let root = repo();
    let dir = root.join("fixtures/scenarios");
    let mut out = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("scenarios")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    names.sort();
    for d in names {
        let name = d.file_name().expect("name").to_string_lossy().into_owned();
        let rel = |f: &str| format!("fixtures/scenarios/{name}/{f}");
        let mut captures: Vec<String> = std::fs::read_dir(&d)
            .expect("scenario dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|f| f != "expect.toml" && f != "topology.toml" && !f.ends_with(".md"))
            .map(|f| rel(&f))
            .collect();
        captures.sort();
        out.push((name.clone(), captures, rel("topology.toml")));
    }
    assert!(out.len() >= 8, "the seed scenarios are there: {out:?}");
    out
}

fn scenario(name: &str) -> (Vec<String>, String) {
    let (_, c, t) = scenarios().into_iter().find(|s| s.0 == name).expect("scenario");
    (c, t)
}

/// `advisor analyze CAPTURES --topology T EXTRA...` from the repository root.
fn analyze(captures: &[String], topology: Option<&str>, extra: &[&str]) -> Output {
    let mut args: Vec<&str> = vec!["analyze"];
    args.extend(captures.iter().map(String::as_str));
    if let Some(t) = topology {
        args.extend(["--topology", t]);
    }
    args.extend(extra);
    advisor(&repo(), &args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("advisor-analyze-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn snapshot_settings(dir: &str) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(repo().join("tests/it/snapshots").join(dir));
    s.set_prepend_module_to_snapshot(false);
    // The version changes with every release; what a user sees otherwise must not drift.
    s.add_filter(r#""version": "[0-9][^"]*""#, r#""version": "[version]""#);
    s.add_filter(r"\*advisor [0-9][^,]*, report schema", "*advisor [version], report schema");
    s
}

#[test]
fn seed_scenarios_markdown_snapshots() {
    let settings = snapshot_settings("analyze");
    let _guard = settings.bind_to_scope();
    let mut produced = Vec::new();
    for (name, captures, topology) in scenarios() {
        let out = analyze(&captures, Some(&topology), &[]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{name}: nothing on stderr");
        let md = stdout(&out);
        assert_markdown_without_html(&md);
        insta::assert_snapshot!(format!("{name}.md"), md);
        produced.push(format!("{name}.md"));
    }
    for (name, captures, topology) in scenarios() {
        let out = analyze(&captures, Some(&topology), &["--format", "json"]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
        insta::assert_json_snapshot!(format!("{name}.json"), v);
        produced.push(format!("{name}.json"));
    }
    assert_no_orphans(&repo().join("tests/it/snapshots/analyze"), &produced);
}

/// Markdown must paste into a ticket without HTML: no tag or comment outside code spans.
fn assert_markdown_without_html(md: &str) {
    for (n, line) in md.lines().enumerate() {
        let mut outside = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                outside.push_str(part);
            }
        }
        let b = outside.as_bytes();
        for i in 0..b.len().saturating_sub(1) {
            let escaped = i > 0 && b[i - 1] == b'\\';
            let tag = b[i + 1].is_ascii_alphabetic() || b[i + 1] == b'/' || b[i + 1] == b'!';
            assert!(!(b[i] == b'<' && tag && !escaped), "HTML in Markdown, line {}: {line}", n + 1);
        }
    }
}

#[test]
fn json_reports_validate_against_advisor_schema() {
    let out = advisor(&repo(), &["schema"]);
    assert_eq!(out.status.code(), Some(0));
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    for (name, captures, topology) in scenarios() {
        let out = analyze(&captures, Some(&topology), &["--format", "json"]);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
        let errors: Vec<String> = validator
            .iter_errors(&report)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        assert_eq!(report["schema"], "advisor.report/v1");
    }
    // Without a topology too (every VM rule not evaluated).
    let (captures, _) = scenario("ds13v2-temp-disk-throttles-cached-p30");
    let out = analyze(&captures, None, &["--format", "json"]);
    let mut report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert!(validator.is_valid(&report));
    // And the schema is not a rubber stamp.
    report["schema"] = "advisor.report/v2".into();
    assert!(!validator.is_valid(&report), "a wrong schema id must fail");
    report["schema"] = "advisor.report/v1".into();
    report["findings"] = serde_json::json!([{"rule": "x", "severity": "fatal"}]);
    assert!(!validator.is_valid(&report), "a wrong severity must fail");
}

#[test]
fn html_report_is_self_contained_with_charts_and_findings() {
    let dir = tmp("html");
    let file = dir.join("r.html");
    let (captures, topology) = scenario("ds13v2-temp-disk-throttles-cached-p30");
    let out = analyze(&captures, Some(&topology), &["--output", &file.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "", "the report goes to the file, nothing to stdout");
    assert!(stderr(&out).contains("html report written"), "{}", stderr(&out));
    let html = std::fs::read_to_string(&file).expect("the page");
    assert!(html.starts_with("<!doctype html>"));
    // The verdict names the cause and the fix first, and counts the story.
    assert!(html.contains(
        "Critical: the temp disk fills the VM&#39;s cached throughput budget, and the host-cached disks wait behind it; fix: move scratch IO"
    ));
    assert!(html.contains("(1 cause, 5 effects; 1 critical, 5 warnings)"));
    assert!(html.contains("Evidence:") && html.contains("Fix:"));
    // One story: the cached budget's card holds its four effects, each with its evidence.
    let story = html.split("id=\"finding-vm-cached-throughput-cap-vm\"").nth(1).expect("the cause");
    let story = story.split("<h3>").next().unwrap_or(story);
    assert!(story.contains("Because of this (5)"), "{story}");
    for rule in [
        "latency-above-norm",
        "slow-device",
        "temp-disk-pressure",
        "temp-disk-with-cached-disks",
        "write-heavy-disk-cached",
    ] {
        assert!(story.contains(&format!("rule <code>{rule}</code>")), "{rule} under the cause");
    }
    // When: a timeline strip per cap finding above the charts, and the episode shaded on
    // the budget's charts.
    let timeline = html.find("<section id=\"timeline\">").expect("the timeline section");
    assert!(timeline < html.find("<section id=\"targets\"").expect("targets"), "above the charts");
    assert_eq!(
        html.matches("<svg class=\"timeline\"").count(),
        2,
        "the cached cap and the temp disk's share"
    );
    assert!(
        html.contains("<rect class=\"episode sustained\" x=\"0.0\""),
        "the whole capture at the cap"
    );
    assert!(html.contains("<table class=\"episodes\">"));
    assert!(html.contains("<table class=\"checklist\">"));
    assert!(html.matches("<svg").count() >= 9, "a chart per metric and target");
    assert!(html.contains("E: cap 5000 IOPS"), "the disk's cap is in its chart");
    assert!(html.contains("id=\"not-evaluated\"") && html.contains("id=\"inputs\""));
    assert_html_self_contained(&html);

    // A benchmark: its percentile curve and the bars per target.
    let (captures, topology) = scenario("e16asv5-bench-815mbps");
    let out = analyze(&captures, Some(&topology), &["--format", "html"]);
    let html = stdout(&out);
    assert!(html.contains("aria-label=\"Latency percentiles:"), "percentile curve");
    assert!(html.contains("aria-label=\"Benchmark throughput\""), "bars per target");
    assert_html_self_contained(&html);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn format_follows_extension_unless_given() {
    let dir = tmp("formats");
    let (captures, topology) = scenario("ds1-with-p30");
    let run = |file: &str, extra: &[&str]| {
        let path = dir.join(file);
        let mut args = vec!["--output", path.to_str().expect("utf-8 path")];
        args.extend(extra);
        let out = analyze(&captures, Some(&topology), &args);
        assert_eq!(out.status.code(), Some(0), "{file}: {}", stderr(&out));
        (std::fs::read_to_string(&path).expect("written"), stderr(&out))
    };
    let (json, _) = run("r.json", &[]);
    assert!(json.starts_with('{') && json.contains("\"schema\": \"advisor.report/v1\""));
    let (md, _) = run("r.md", &[]);
    assert!(md.starts_with("## Storage report"));
    let (html, _) = run("R.HTML", &[]);
    assert!(html.starts_with("<!doctype html>"));
    let (forced, _) = run("r.html", &["--format", "json"]);
    assert!(forced.starts_with('{'), "--format wins over the extension");
    let (txt, note) = run("r.txt", &[]);
    assert!(txt.starts_with("## Storage report"), "unknown extension: Markdown");
    assert!(note.contains("writing Markdown"), "{note}");
    let (_, quiet) = run("q.txt", &["--quiet"]);
    assert_eq!(quiet, "", "--quiet keeps stderr for errors only");
    // Default: Markdown on stdout.
    let out = analyze(&captures, Some(&topology), &[]);
    assert!(stdout(&out).starts_with("## Storage report: Standard_DS1"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn fail_on_sets_exit_1_only_when_met() {
    let (critical, t1) = scenario("ds13v2-temp-disk-throttles-cached-p30");
    let (warning, t2) = scenario("ds1-with-p30");
    let code = |c: &[String], t: &str, extra: &[&str]| analyze(c, Some(t), extra).status.code();
    assert_eq!(code(&critical, &t1, &[]), Some(0), "findings alone do not fail");
    assert_eq!(code(&critical, &t1, &["--fail-on", "critical"]), Some(1));
    assert_eq!(code(&warning, &t2, &["--fail-on", "critical"]), Some(0), "no critical finding");
    assert_eq!(code(&warning, &t2, &["--fail-on", "warning"]), Some(1));
    assert_eq!(code(&warning, &t2, &["--fail-on", "info"]), Some(1));
    // The report is still written when the threshold is met.
    let out = analyze(&critical, Some(&t1), &["--fail-on", "CRITICAL", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(serde_json::from_slice::<serde_json::Value>(&out.stdout).is_ok());
}

#[test]
fn bad_usage_and_unreadable_inputs_exit_2() {
    let (captures, topology) = scenario("ds1-with-p30");
    let cases: Vec<(Vec<String>, Vec<&str>, &str)> = vec![
        (vec!["no/such/capture.csv".into()], vec![], "no/such/capture.csv"),
        (vec!["fixtures/topologies/ds1_p30.toml".into()], vec![], "ds1_p30.toml"),
        (captures.clone(), vec!["--format", "pdf"], "pdf"),
        (captures.clone(), vec!["--fail-on", "fatal"], "fatal"),
        // A size the catalog lacks is not bad usage (its caps are not evaluated); none is.
        (captures.clone(), vec!["--vm", ""], "--vm: the VM size is empty"),
        (
            captures.clone(),
            vec!["--topology", "fixtures/topologies/invalid/unknown_sku.toml"],
            "unknown_sku.toml",
        ),
        (captures.clone(), vec!["--set", "no-such-rule.x=1"], "no-such-rule"),
        (captures.clone(), vec!["--rules", "no/such/rules/dir"], "no/such/rules/dir"),
        (captures.clone(), vec!["--templates", "no/such/templates"], "no/such/templates"),
        (vec![], vec![], "CAPTURE"),
    ];
    for (files, extra, mentions) in cases {
        let out = analyze(&files, None, &extra);
        assert_eq!(out.status.code(), Some(2), "{files:?} {extra:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{files:?} {extra:?}: no report on stdout");
        assert!(
            stderr(&out).contains(mentions),
            "{files:?} {extra:?}: the message names {mentions}: {}",
            stderr(&out)
        );
    }
    let _ = topology;
}

#[test]
fn several_captures_make_one_report() {
    let (mut captures, topology) = scenario("ds13v2-temp-disk-throttles-cached-p30");
    captures.push("fixtures/captures/diskspd-xml/diskspd_win_64k_randread_o4_t2_noL.xml".into());
    let out = analyze(&captures, Some(&topology), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let formats: Vec<&str> = v["inputs"]
        .as_array()
        .expect("inputs")
        .iter()
        .filter_map(|i| i["format"].as_str())
        .collect();
    assert_eq!(formats, ["perfmon-csv", "diskspd-xml"]);
}

#[test]
fn without_topology_the_vm_rules_say_what_they_need() {
    let (captures, _) = scenario("ds13v2-temp-disk-throttles-cached-p30");
    let out = analyze(&captures, None, &[]);
    assert_eq!(out.status.code(), Some(0));
    let md = stdout(&out);
    assert!(md.contains("### Not evaluated"));
    assert!(md.contains("--vm"), "{md}");
    assert!(md.contains("No VM size was given"));
    // --vm alone is a topology.
    let out = analyze(&captures, None, &["--vm", "Standard_DS13_v2"]);
    assert!(stdout(&out).starts_with("## Storage report: Standard_DS13_v2"));
}

#[test]
fn templates_override_file_by_file() {
    let dir = tmp("templates");
    std::fs::create_dir_all(dir.join("partials")).expect("dir");
    std::fs::write(dir.join("partials/inputs.md.tera"), "Read {{ inputs | length }} capture(s).\n")
        .expect("write");
    let (captures, topology) = scenario("ds1-with-p30");
    let out = analyze(&captures, Some(&topology), &["--templates", &dir.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.contains("Read 1 capture(s)."), "{md}");
    assert!(md.contains("### Findings"), "the rest stays built in");
    std::fs::remove_dir_all(&dir).ok();
}

/// Renders the HTML report in headless Chromium: the DOM holds the verdict and every
/// finding's title, and the screenshot is produced and far from blank. Skipped (with a
/// message) when no Chromium is installed; CI installs Debian's `chromium`.
#[test]
fn html_renders_in_chromium() {
    let Some(browser) = chromium() else {
        skip::skip("no chromium on PATH (apt-get install chromium)");
        return;
    };
    let dir = tmp("chromium");
    let page = dir.join("r.html");
    let (captures, topology) = scenario("ds13v2-temp-disk-throttles-cached-p30");
    let out = analyze(&captures, Some(&topology), &["-q", "--output", &page.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json = analyze(&captures, Some(&topology), &["--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");

    let dom = run_chromium(&browser, &dir, &["--dump-dom", &file_url(&page)]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.contains("Critical: the temp disk fills the VM"), "verdict in the DOM");
    // The timeline is drawn: Chromium parsed the strips as SVG with their episode marks.
    assert!(dom.matches("<svg class=\"timeline\"").count() >= 2, "timeline strips in the DOM");
    assert!(dom.contains("<rect class=\"episode sustained\""), "an episode on the timeline");
    for f in report["findings"].as_array().expect("findings") {
        let title = f["title"].as_str().expect("title").replace('\'', "&#39;");
        let plain = f["title"].as_str().expect("title");
        assert!(dom.contains(&title) || dom.contains(plain), "finding in the DOM: {plain}");
    }
    assert!(dom.matches("<svg").count() >= 9, "inline SVG charts in the DOM");

    let shot = dir.join("r.png");
    let blank_page = dir.join("blank.html");
    std::fs::write(&blank_page, "<!doctype html><title>blank</title>").expect("blank page");
    let blank_shot = dir.join("blank.png");
    for (png, html) in [(&shot, &page), (&blank_shot, &blank_page)] {
        let arg = format!("--screenshot={}", png.display());
        run_chromium(&browser, &dir, &[&arg, "--window-size=1280,2400", &file_url(html)]);
    }
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let (report_png, blank_png) = (size(&shot), size(&blank_shot));
    assert!(report_png > 0, "Chromium wrote no screenshot");
    let bytes = std::fs::read(&shot).expect("png");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    // A PNG's size tracks its content: the report's page must be far busier than a blank one.
    assert!(
        report_png > 10 * blank_png.max(1),
        "screenshot looks blank: {report_png} vs blank {blank_png} bytes"
    );
    if std::env::var_os("ADVISOR_KEEP_SCREENSHOT").is_some() {
        eprintln!("screenshot kept: {}", shot.display());
    } else {
        std::fs::remove_dir_all(&dir).ok();
    }
}

fn file_url(p: &Path) -> String {
    format!("file://{}", p.display())
}

/// sar's daily files average 10 minutes per sample: the report says, in every format, what
/// such a capture can and cannot show and how to capture at 1 s; a 1 s capture says nothing.
#[test]
fn a_coarse_capture_says_what_its_interval_hides() {
    let coarse = "fixtures/captures/sar-text/sar-old-12h-restart.txt".to_owned();
    let md = stdout(&analyze(std::slice::from_ref(&coarse), None, &[]));
    let section = md.split("#### Warnings about the inputs").nth(1).unwrap_or("");
    assert!(section.contains("one sample every 10 minutes"), "{md}");
    assert!(section.contains("hides bursts and throttling"), "{md}");
    assert!(section.contains("capture at 1 s"), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&analyze(&[coarse], None, &["--format", "json"]))).unwrap();
    let warnings = json["warnings"].as_array().expect("warnings");
    assert_eq!(
        warnings.iter().filter(|w| w.as_str().unwrap().contains("one sample every")).count(),
        1,
        "{warnings:?}"
    );
    let fine = "fixtures/captures/sar-text/sar-A.txt".to_owned();
    let md = stdout(&analyze(&[fine], None, &[]));
    assert!(!md.contains("one sample every"), "{md}");
}

/// One sysstat capture rendered by `sar -d -p -u`, `sadf -d` (dates and epoch seconds),
/// `sadf -j` and `sadf -x` gives the same targets and numbers; `sadf -j` with only
/// the old sector names (sysstat before 12) gives them to the source's rounding.
#[test]
fn sadf_renderings_give_the_numbers_of_the_sar_text() {
    let targets = |file: &str| -> Vec<serde_json::Value> {
        let out = analyze(&[file.to_owned()], None, &["--format", "json"]);
        assert_eq!(out.status.code(), Some(0), "{file}: {}", stderr(&out));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(report["not_evaluated"].as_array().is_some_and(|n| !n.is_empty()));
        report["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t.as_object_mut().unwrap().remove("file");
                t
            })
            .collect()
    };
    let text = targets("fixtures/captures/sar-text/sar-dpu-sadf-source.txt");
    assert_eq!(text.len(), 2, "{text:?}");
    assert!(text.iter().any(|t| t["name"] == "vda" && t["metrics"]["iops"]["max"] == 764.0));
    for f in [
        "fixtures/captures/sadf-csv/sadf-d.csv",
        "fixtures/captures/sadf-csv/sadf-d-epoch.csv",
        "fixtures/captures/sadf-json/sadf-j.json",
        "fixtures/captures/sadf-xml/sadf-x.xml",
    ] {
        assert_eq!(targets(f), text, "{f}");
    }
    let old = targets("fixtures/captures/sadf-json/sadf-j-old-keys.json");
    fn close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
        match (a, b) {
            (serde_json::Value::Object(x), serde_json::Value::Object(y)) => {
                x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| close(v, w)))
            }
            (serde_json::Value::Array(x), serde_json::Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(v, w)| close(v, w))
            }
            (serde_json::Value::Number(x), serde_json::Value::Number(y)) => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                (x - y).abs() <= 1e-3 * x.abs().max(y.abs()).max(1.0)
            }
            _ => a == b,
        }
    }
    assert!(
        close(&serde_json::Value::Array(old.clone()), &serde_json::Value::Array(text)),
        "{old:?}"
    );
}

/// A sosreport's daily sar text (10-minute averages) analyses with a
/// device finding (the data disk held at a P30's 5,000 IOPS with a deep queue) and a CPU
/// finding, and the report states what its interval cannot show.
#[test]
fn a_sosreport_sar_day_gives_device_and_cpu_findings_and_its_interval_limits() {
    let day = "fixtures/captures/sar-text/sar-sosreport-day.txt".to_owned();
    let out = analyze(&[day], None, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (f["rule"].as_str().unwrap().to_owned(), f["subject"].as_str().unwrap().to_owned())
        })
        .collect();
    assert!(found.contains(&("inferred-disk-cap".into(), "sdc".into())), "{found:?}");
    assert!(found.contains(&("cpu-saturated".into(), "vm".into())), "{found:?}");
    let disk =
        report["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "inferred-disk-cap");
    let evidence = disk.and_then(|f| f["evidence"].as_str()).unwrap_or("");
    assert!(evidence.contains("P30 (Premium SSD) cap of 5,000 IOPS"), "{evidence}");
    assert_eq!(report["inputs"][0]["format"], "sar-text");
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains("one sample every 10 minutes"), "{warnings}");
}

/// One verdict case: its name, captures, topology (when it has one), status, cause, and the
/// rule ids the report must carry and must not.
struct VerdictCase {
    name: String,
    captures: Vec<String>,
    topology: Option<String>,
    status: String,
    cause: Option<String>,
    fire: Vec<String>,
    quiet: Vec<String>,
}

/// The verdict cases of `fixtures/verdict/`: each folder's captures (with its topology when
/// it has one), and the status and cause its `expect.toml` gives.
fn verdict_cases() -> Vec<VerdictCase> {
    #[derive(serde::Deserialize)]
    struct Expect {
        status: String,
        cause: String,
        #[serde(default)]
        fire: Vec<String>,
        #[serde(default)]
        quiet: Vec<String>,
    }
    let dir = repo().join("fixtures/verdict");
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/verdict")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        let name = d.file_name().expect("name").to_string_lossy().into_owned();
        let rel = |f: &str| format!("fixtures/verdict/{name}/{f}");
        let mut captures: Vec<String> = std::fs::read_dir(&d)
            .expect("case dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|f| f != "expect.toml" && f != "topology.toml")
            .map(|f| rel(&f))
            .collect();
        captures.sort();
        let topology = d.join("topology.toml").is_file().then(|| rel("topology.toml"));
        let text = std::fs::read_to_string(d.join("expect.toml")).expect("expect.toml");
        let e: Expect = toml::from_str(&text).expect("expect.toml parses");
        let cause = (!e.cause.is_empty()).then_some(e.cause);
        out.push(VerdictCase {
            name,
            captures,
            topology,
            status: e.status,
            cause,
            fire: e.fire,
            quiet: e.quiet,
        });
    }
    assert!(out.len() >= 20, "the verdict cases are there: {}", out.len());
    out
}

/// The report's first line on the field's shapes: a capped benchmark that also ran short
/// leads with the cap; files that cannot show a problem say `insufficient-data` and what to
/// capture (never "No problems"); the P10's burst ceiling is the disk's finding with a
/// topology and the named 3,500 IOPS burst cap without; a stall and a slow device are not
/// called throttling; a 121 s run and a settled one get no duration warning. The Markdown
/// and HTML reports open with the JSON verdict's headline.
#[test]
fn verdicts_of_the_field_shapes() {
    for case in verdict_cases() {
        let VerdictCase { name, captures, topology, status, cause, fire, quiet } = case;
        let out = analyze(&captures, topology.as_deref(), &["--format", "json"]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
        let verdict = &report["verdict"];
        let headline = verdict["headline"].as_str().unwrap_or_default().to_owned();
        let ids: Vec<String> = report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| format!("{}@{}", f["rule"].as_str().unwrap(), f["subject"].as_str().unwrap()))
            .collect();
        assert_eq!(verdict["status"], status.as_str(), "{name}: {headline}\n{ids:?}");
        assert_eq!(verdict["cause"].as_str(), cause.as_deref(), "{name}: {headline}\n{ids:?}");
        let has = |rule: &str| ids.iter().any(|i| i.split_once('@').map(|(r, _)| r) == Some(rule));
        for rule in &fire {
            assert!(has(rule), "{name}: {rule} must be reported: {ids:?}");
        }
        for rule in &quiet {
            assert!(!has(rule), "{name}: {rule} must not be reported: {ids:?}");
        }
        assert!(!headline.is_empty(), "{name}: no headline");
        assert!(!headline.contains("No problems") || status == "healthy", "{name}: {headline}");
        if status == "insufficient-data" {
            assert!(headline.starts_with("Not enough data"), "{name}: {headline}");
            assert!(
                headline.contains("Disk Reads/sec") || headline.contains("iostat -x -t 1"),
                "{name}: the headline names what to capture: {headline}"
            );
        }
        // Cause, not symptom: a stall or a slow device is not called throttling.
        if let Some(subject) = cause.as_deref().and_then(|c| {
            (c.starts_with("device-stall@") || c.starts_with("slow-device@"))
                .then(|| c.split_once('@').map(|(_, s)| s.to_owned()))
                .flatten()
        }) {
            for f in report["findings"].as_array().expect("findings") {
                if f["subject"] == subject.as_str() {
                    let title = f["title"].as_str().unwrap_or_default().to_lowercase();
                    assert!(!title.contains("throttl"), "{name}: {title}");
                }
            }
            assert!(!ids.iter().any(|i| i.starts_with("disk-iops-throttled@")), "{name}: {ids:?}");
        }
        if name.starts_with("fio-") {
            assert!(!ids.iter().any(|i| i.starts_with("bench-too-short@")), "{name}: {ids:?}");
        }
        if name.starts_with("p10-burst-ceiling-without") {
            let f = report["findings"]
                .as_array()
                .expect("findings")
                .iter()
                .find(|f| f["rule"] == "inferred-disk-cap")
                .expect("inferred-disk-cap");
            let evidence = f["evidence"].as_str().unwrap_or_default();
            assert!(evidence.contains("burst cap of 3,500 IOPS"), "{name}: {evidence}");
        }
        // The pages open with the same sentence.
        let md = stdout(&analyze(&captures, topology.as_deref(), &["--format", "md"]));
        let first = md.lines().find(|l| l.starts_with("**")).unwrap_or_default();
        let plain = first.trim_matches('*').replace('\\', "");
        assert_eq!(plain, headline.replace('\\', ""), "{name}: the Markdown opens otherwise");
        let html = stdout(&analyze(&captures, topology.as_deref(), &["--format", "html"]));
        assert!(html.contains("class=\"verdict\""), "{name}: no verdict in the page");
    }
}

/// SQL Server's file statistics beside the DS13_v2 field capture: the finding names the
/// waiting file (the sales log on E:, 37 ms per write), sits under the VM cached budget's
/// finding that explains it, and the file's series are listed right after E:'s own.
#[test]
fn a_sql_log_wait_names_the_file_and_is_explained_by_the_vm_cached_finding() {
    let (captures, topology) = scenario("ds13v2-sql-log-waits-behind-temp-disk");
    let out = analyze(&captures, Some(&topology), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let findings = report["findings"].as_array().expect("findings");
    let f = findings
        .iter()
        .find(|f| f["rule"] == "sql-file-latency")
        .unwrap_or_else(|| panic!("no sql-file-latency finding: {findings:#?}"));
    assert_eq!(f["subject"], r"E:\log\sales_log.ldf");
    let evidence = f["evidence"].as_str().expect("evidence");
    assert!(evidence.contains("37.0 ms per write"), "{evidence}");
    assert!(evidence.contains("on E: (P30, host caching ReadOnly)"), "{evidence}");
    let by: Vec<&str> = f["explained_by"]
        .as_array()
        .expect("explained_by")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(by, ["vm-cached-throughput-cap@vm"], "{f:#?}");
    let cause = findings.iter().find(|c| c["rule"] == "vm-cached-throughput-cap").expect("cause");
    let causes: Vec<&str> =
        cause["causes"].as_array().expect("causes").iter().filter_map(|v| v.as_str()).collect();
    assert!(causes.contains(&r"sql-file-latency@E:\log\sales_log.ldf"), "{causes:?}");
    // The file stands right after the targets matched to E:, its disk.
    let targets = report["targets"].as_array().expect("targets");
    let at =
        targets.iter().position(|t| t["kind"] == "file" && t["name"] == r"E:\log\sales_log.ldf");
    let at = at.expect("the log file is a target");
    assert_eq!(targets[at]["matched"], "E:");
    assert_eq!(targets[at - 1]["matched"], "E:", "{:#?}", &targets[at - 1]);
    assert_ne!(targets[at - 1]["kind"], "file");
}
