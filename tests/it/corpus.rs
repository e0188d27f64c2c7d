//! The real-capture corpus: every file in `../shared/samples` and `../shared/generated`
//! goes through `advisor inspect`, and what a user sees is snapshotted. Captures must be
//! read (exit 0, with targets and metrics); what is not a capture must be refused with
//! exit 2 and a message naming what it looks like.
//!
//! The corpus is read in place (it is not ours to commit). Without `../shared` this test
//! says so and passes (under `ADVISOR_TESTS_STRICT=1`, as in CI, it fails); the project's own
//! fixtures (tests/it/inspect.rs) cover every format.
//!
//! The labelled field corpus (`tests/corpus/expectations.toml`) says what an expert
//! concludes from each of those captures; `the_field_corpus_holds` runs `advisor analyze` on
//! each, prints how many expectations hold (`-- --nocapture` shows it) and fails below all.

use crate::skip;

use crate::common;

use std::path::Path;

use common::*;

/// Files in the corpus that are not captures and must be refused (exit 2).
fn must_refuse(rel: &Path) -> bool {
    let s = rel.to_string_lossy();
    s.ends_with(".md")
        || s.ends_with(".ini")
        || s.ends_with(".log")
        || s.contains(".normal.")
        || s.contains(".terse.")
        || s.contains("stderr")
        || s.contains("proc_diskstats")
        || s.contains("fio-error-only")
        // Its only job failed with EINVAL before doing any IO: there are no results.
        || s.contains("fio-3.33_seqwrite-1m_macos")
        // Only localized (Russian) Process counters: nothing advisor measures, and names
        // it does not guess; refused with the advice to capture English counter names.
        || s.contains("process-cpu_russian-cp1251")
}

#[test]
fn every_real_capture_is_read_or_refused_clearly() {
    let Some(shared) = shared() else {
        skip::skip("../shared is absent: the real-capture corpus test");
        return;
    };
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo().join("tests/it/snapshots/corpus"));
    settings.set_prepend_module_to_snapshot(false);
    let _guard = settings.bind_to_scope();

    let mut failures = Vec::new();
    let mut read = 0;
    let mut produced = Vec::new();
    for top in ["samples", "generated"] {
        for rel in files_below(&shared.join(top)) {
            let rel = Path::new(top).join(rel);
            let file = rel.to_string_lossy().into_owned();
            let (code, text) = inspect_transcript(&shared, &file);
            let refuse = must_refuse(&rel);
            if refuse && code != 2 {
                failures.push(format!("{file}: expected a refusal (exit 2), got exit {code}"));
            }
            if !refuse {
                if code != 0 {
                    failures.push(format!("{file}: expected exit 0, got {code}:\n{text}"));
                } else if !text.contains("  metrics:   ") || text.contains("  metrics:   none") {
                    failures.push(format!("{file}: read but no metrics:\n{text}"));
                } else {
                    read += 1;
                }
            }
            produced.push(snap_name(&rel));
            insta::assert_snapshot!(snap_name(&rel), text);
        }
    }
    assert_no_orphans(&repo().join("tests/it/snapshots/corpus"), &produced);
    assert!(failures.is_empty(), "{} corpus failures:\n{}", failures.len(), failures.join("\n"));
    assert!(read >= 60, "only {read} captures read");
}

/// One capture's expectations (`tests/corpus/expectations.toml`; its header says what
/// each field means).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Expectation {
    file: String,
    why: String,
    #[serde(default)]
    status: Option<OneOrMany>,
    #[serde(default)]
    cause: Option<String>,
    #[serde(default)]
    samples: Option<u64>,
    #[serde(default)]
    must: Vec<String>,
    #[serde(default)]
    must_any: Vec<Vec<String>>,
    #[serde(default)]
    must_not: Vec<String>,
    #[serde(default)]
    titles_must_not: Vec<(String, String)>,
    #[serde(default)]
    headline_must: Vec<String>,
    #[serde(default)]
    text_must: Vec<String>,
    #[serde(default)]
    text_must_not: Vec<String>,
    #[serde(default)]
    reasons_must_not: Vec<String>,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn holds(&self, s: &str) -> bool {
        match self {
            Self::One(one) => one == s,
            Self::Many(many) => many.iter().any(|m| m == s),
        }
    }
}

#[derive(serde::Deserialize)]
struct Corpus {
    capture: Vec<Expectation>,
}

/// Scores every expectation of the labelled field corpus and prints the accuracy: what an
/// expert concludes from each real capture (written from the data before advisor's
/// answer was seen) against what `advisor analyze` says.
#[test]
fn the_field_corpus_holds() {
    let Some(shared) = shared() else {
        skip::skip("../shared is absent: the labelled field corpus");
        return;
    };
    let path = repo().join("tests/corpus/expectations.toml");
    let text = std::fs::read_to_string(&path).expect("read expectations");
    let corpus: Corpus = toml::from_str(&text).expect("expectations.toml parses");
    let mut held = 0usize;
    let mut total = 0usize;
    let mut misses = Vec::new();
    for exp in &corpus.capture {
        assert!(!exp.why.trim().is_empty(), "{}: every expectation says why", exp.file);
        assert!(shared.join(&exp.file).is_file(), "{}: no such capture", exp.file);
        let json_out = advisor(&shared, &["analyze", &exp.file, "--format", "json"]);
        let md_out = advisor(&shared, &["analyze", &exp.file, "--format", "md"]);
        let mut check = |ok: bool, what: String| {
            total += 1;
            if ok {
                held += 1;
            } else {
                misses.push(format!("{}: {what}", exp.file));
            }
        };
        let report: serde_json::Value = match json_out.status.code() {
            Some(0) => serde_json::from_slice(&json_out.stdout).expect("the report is JSON"),
            code => {
                check(
                    false,
                    format!(
                        "advisor analyze exited {code:?}: {}",
                        String::from_utf8_lossy(&json_out.stderr)
                    ),
                );
                continue;
            }
        };
        let md = String::from_utf8_lossy(&md_out.stdout).into_owned();
        let verdict = &report["verdict"];
        let status = verdict["status"].as_str().unwrap_or("(no verdict)");
        let headline = verdict["headline"].as_str().unwrap_or("");
        let findings: Vec<&serde_json::Value> =
            report["findings"].as_array().map(|a| a.iter().collect()).unwrap_or_default();
        let ids: Vec<String> = findings
            .iter()
            .map(|f| {
                format!(
                    "{}@{}",
                    f["rule"].as_str().unwrap_or(""),
                    f["subject"].as_str().unwrap_or("")
                )
            })
            .collect();
        let has = |id: &str| ids.iter().any(|i| i == id);
        if let Some(want) = &exp.status {
            check(
                want.holds(status),
                format!("status is {status} (headline: {headline}); findings {ids:?}"),
            );
        }
        if let Some(cause) = &exp.cause {
            let got = verdict["cause"].as_str().unwrap_or("null");
            check(got == cause, format!("verdict cause is {got}, expected {cause}"));
        }
        if let Some(n) = exp.samples {
            let got = report["inputs"][0]["samples"].as_u64();
            check(got == Some(n), format!("inputs[0].samples is {got:?}, expected {n}"));
        }
        for id in &exp.must {
            check(has(id), format!("{id} missing; findings {ids:?}"));
        }
        for any in &exp.must_any {
            check(any.iter().any(|id| has(id)), format!("none of {any:?}; findings {ids:?}"));
        }
        for id in &exp.must_not {
            check(!has(id), format!("{id} reported"));
        }
        for (subject, word) in &exp.titles_must_not {
            let bad = findings.iter().find(|f| {
                f["subject"].as_str() == Some(subject)
                    && f["title"]
                        .as_str()
                        .unwrap_or("")
                        .to_lowercase()
                        .contains(&word.to_lowercase())
            });
            check(
                bad.is_none(),
                format!("a finding about {subject} says {word:?}: {:?}", bad.map(|f| &f["title"])),
            );
        }
        for want in &exp.headline_must {
            check(headline.contains(want.as_str()), format!("headline lacks {want:?}: {headline}"));
        }
        for want in &exp.text_must {
            check(md.contains(want.as_str()), format!("the Markdown report lacks {want:?}"));
        }
        for bad in &exp.text_must_not {
            check(!md.contains(bad.as_str()), format!("the Markdown report says {bad:?}"));
        }
        let reasons: Vec<&str> = report["not_evaluated"]
            .as_array()
            .map(|a| a.iter().filter_map(|n| n["reason"].as_str()).collect())
            .unwrap_or_default();
        for bad in &exp.reasons_must_not {
            let hit = reasons.iter().find(|r| r.contains(bad.as_str()));
            check(hit.is_none(), format!("a not-evaluated reason says {bad:?}: {hit:?}"));
        }
    }
    eprintln!("field corpus: {held}/{total} expectations hold");
    assert!(
        misses.is_empty(),
        "field corpus: {held}/{total} expectations hold; misses:\n{}",
        misses.join("\n")
    );
}
