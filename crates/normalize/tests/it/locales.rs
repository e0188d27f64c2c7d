//! PerfMon captures written under other Windows display languages (`fixtures/locales/`,
//! made by `make_locales.py` from the English DS13_v2 field case): each reads to the same
//! frame as the English file of the same numbers, in its own code page, detected; and
//! renaming an English capture's counters into any table's language and back changes
//! nothing.

#![allow(clippy::panic, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use advisor_normalize::{Capture, read_bytes};
use proptest::prelude::*;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/locales")
}

fn read(name: &str) -> Capture {
    let bytes = std::fs::read(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    read_bytes(name, &bytes).unwrap_or_else(|e| panic!("{e}"))
}

/// The localized fixtures: `<tag>.csv` and `<tag>.utf16.csv`, each beside `<tag>.en.csv`.
fn localized() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir())
        .expect("fixtures/locales")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".csv") && !f.ends_with(".en.csv") && f != "ja-JP.csv")
        .map(|f| {
            let tag = f.split('.').next().unwrap_or_default().to_owned();
            (f, format!("{tag}.en.csv"))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_language_gives_the_english_frame() {
    let files = localized();
    let tags: Vec<&str> = files.iter().map(|(f, _)| f.split('.').next().unwrap_or("")).collect();
    for tag in ["de-DE", "fr-FR", "es-ES", "it-IT", "pt-BR", "ru-RU", "zh-CN", "ko-KR", "nl-NL"] {
        assert!(tags.contains(&tag), "no fixture for {tag}: {tags:?}");
    }
    let mut summary = String::new();
    for (file, english) in &files {
        let (l, e) = (read(file), read(english));
        assert!(l.frame.equals_missing(&e.frame), "{file}: the frame differs from {english}");
        assert_eq!(l.meta.targets, e.meta.targets, "{file}");
        assert_eq!(l.meta.ignored, e.meta.ignored, "{file}");
        assert_eq!(l.meta.interval_s, e.meta.interval_s, "{file}");
        assert!(l.meta.warnings.is_empty(), "{file}: {:?}", l.meta.warnings);
        let language = l
            .meta
            .notes
            .iter()
            .find(|n| n.starts_with("counter names are "))
            .unwrap_or_else(|| panic!("{file}: no language note in {:?}", l.meta.notes));
        let encoding =
            l.meta.notes.iter().find_map(|n| n.strip_prefix("text encoding: ")).unwrap_or("UTF-8");
        let metrics: Vec<&str> = l.metrics().iter().map(|m| m.name()).collect();
        writeln!(
            summary,
            "{file}: {encoding}; {language}; {} rows, {} targets; {}",
            l.rows(),
            l.targets().len(),
            metrics.join(" ")
        )
        .expect("write");
    }
    insta::assert_snapshot!(summary);
}

/// The counter paths of the English DS13_v2 capture that a table names, and the same in
/// the table's language (host, object, instance, counter).
fn renamings() -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    for tag in ["de-DE", "fr-FR", "es-ES", "it-IT", "nl-NL", "sv-SE", "pt-BR", "ru-RU"] {
        let l = std::fs::read(dir().join(format!("{tag}.csv"))).expect("localized");
        let en = std::fs::read_to_string(dir().join(format!("{tag}.en.csv"))).expect("en");
        let (decoded, _, _) = match tag {
            "ru-RU" => encoding_rs::WINDOWS_1251.decode(&l),
            _ => encoding_rs::WINDOWS_1252.decode(&l),
        };
        let local_header = decoded.lines().next().unwrap_or_default().to_owned();
        let en_header = en.lines().next().unwrap_or_default().to_owned();
        let pairs: Vec<(String, String)> = en_header
            .split("\",\"")
            .zip(local_header.split("\",\""))
            .skip(1)
            .map(|(a, b)| (a.trim_matches('"').to_owned(), b.trim_matches('"').to_owned()))
            .collect();
        assert!(!pairs.is_empty(), "{tag}");
        out.push((tag.to_owned(), pairs));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// Any subset of the English capture's counters, renamed into a table's language (and
    /// written in its code page) and renamed back, reads to the same frame and report facts.
    #[test]
    fn renaming_into_a_language_and_back_changes_nothing(
        lang in 0usize..8,
        keep in proptest::collection::vec(any::<bool>(), 64),
    ) {
        let all = renamings();
        let (tag, pairs) = &all[lang % all.len()];
        let en = std::fs::read_to_string(dir().join(format!("{tag}.en.csv"))).expect("en");
        let mut lines = en.lines();
        let header: Vec<String> = lines.next().unwrap_or_default()
            .split("\",\"").map(|c| c.trim_matches('"').to_owned()).collect();
        let body: Vec<Vec<String>> = lines.map(|l| l.split("\",\"")
            .map(|c| c.trim_matches('"').to_owned()).collect()).collect();
        let cols: Vec<usize> = std::iter::once(0)
            .chain((1..header.len()).filter(|i| keep[i % keep.len()] || *i == 1))
            .collect();
        let write = |names: &dyn Fn(usize) -> String| {
            let mut s = String::new();
            let row = |cells: Vec<String>| format!("\"{}\"\r\n", cells.join("\",\""));
            s.push_str(&row(cols.iter().map(|&i| names(i)).collect()));
            for r in &body {
                s.push_str(&row(cols.iter().map(|&i| r[i].clone()).collect()));
            }
            s
        };
        let english = write(&|i| header[i].clone());
        let local_name = |i: usize| {
            if i == 0 { return header[0].clone(); }
            pairs.iter().find(|(e, _)| *e == header[i]).map(|(_, l)| l.clone())
                .unwrap_or_else(|| header[i].clone())
        };
        let localized = write(&local_name);
        let back_name = |i: usize| {
            let l = local_name(i);
            pairs.iter().find(|(_, x)| *x == l).map(|(e, _)| e.clone()).unwrap_or(l)
        };
        let back = write(&back_name);
        prop_assert_eq!(&back, &english);
        let bytes = match tag.as_str() {
            "ru-RU" => encoding_rs::WINDOWS_1251.encode(&localized).0.into_owned(),
            _ => encoding_rs::WINDOWS_1252.encode(&localized).0.into_owned(),
        };
        let e = read_bytes("en.csv", english.as_bytes()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let l = read_bytes("l.csv", &bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let b = read_bytes("b.csv", back.as_bytes()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(l.frame.equals_missing(&e.frame), "{}", tag);
        prop_assert!(b.frame.equals_missing(&e.frame), "{}", tag);
        prop_assert_eq!(&l.meta.targets, &e.meta.targets);
        prop_assert_eq!(&l.meta.ignored, &e.meta.ignored);
    }
}
