//! Every `diagnostics/*.rule` is a rule with one kind of error. What a user sees for it is
//! snapshotted beside it as `diagnostics/<name>.snap`, and the code its last line names
//! (`# expect: E0101`) must be among the errors.

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // tests fail by panicking

use std::path::Path;

fn rendered(name: &str, text: &str) -> (String, Vec<advisor_rules::Diagnostic>) {
    let shown = format!("tests/diagnostics/{name}.rule");
    match advisor_rules::compile(&shown, text) {
        Ok(_) => (String::new(), Vec::new()),
        Err(diags) => {
            let out = diags.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n");
            (out, diags)
        }
    }
}

#[test]
fn diagnostics_match_their_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("diagnostics folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rule"))
        .collect();
    paths.sort();
    let mut codes = std::collections::BTreeSet::new();
    for path in &paths {
        let name = path.file_stem().and_then(|s| s.to_str()).expect("name").to_owned();
        let text = std::fs::read_to_string(path).expect("read");
        let expect = text
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("# expect: "))
            .unwrap_or_else(|| panic!("{name}: no `# expect: CODE` line"))
            .trim()
            .to_owned();
        let (out, diags) = rendered(&name, &text);
        assert!(!diags.is_empty(), "{name}: expected {expect}, but the rule checks");
        assert!(diags.iter().any(|d| d.code == expect), "{name}: expected {expect}, got:\n{out}");
        codes.insert(expect);
        insta::with_settings!({
            snapshot_path => dir.clone(),
            prepend_module_to_snapshot => false,
            omit_expression => true,
            input_file => path,
        }, {
            insta::assert_snapshot!(name.clone(), out);
        });
    }
    assert!(codes.len() >= 15, "only {} kinds of error have a fixture", codes.len());
}

#[test]
fn a_rule_broken_on_its_third_line_is_reported_at_that_line() {
    let name = "syntax-error-third-line";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/diagnostics/{name}.rule"));
    let text = std::fs::read_to_string(path).expect("read");
    let (out, diags) = rendered(name, &text);
    assert_eq!(diags.len(), 1, "{out}");
    let src = diags[0].source.as_ref().expect("a place");
    assert_eq!((src.line, src.column), (3, 10), "{out}");
    assert!(out.contains(&format!("tests/diagnostics/{name}.rule:3:10")), "{out}");
}
