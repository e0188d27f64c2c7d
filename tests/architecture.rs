//! The dependency direction the README's architecture section states, checked against
//! `cargo metadata`: each workspace crate may use only the crates the README lists after
//! it, and every crate must be listed. The README's list is the rule, so it cannot drift
//! from the code.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// `- \`engine\`: \`model\`, \`normalize\`, ...` lines of the "## Architecture" section:
/// crate (short name) to the crates it may use. A line's list may go on over indented
/// continuation lines; text in parentheses is a comment.
fn allowed(readme: &str) -> BTreeMap<String, BTreeSet<String>> {
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Architecture"))
        .expect("README has an \"## Architecture\" section");
    // Each entry: its name and its text, continuation lines joined.
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut open = false;
    for line in section.lines() {
        if let Some((name, rest)) = line.strip_prefix("- `").and_then(|r| r.split_once("`:")) {
            entries.push((name.to_owned(), rest.to_owned()));
            open = true;
        } else if open && line.starts_with("  ") {
            if let Some((_, text)) = entries.last_mut() {
                text.push(' ');
                text.push_str(line);
            }
        } else {
            open = false;
        }
    }
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, text) in entries {
        // Text in parentheses is a comment.
        let mut depth = 0usize;
        let list: String = text
            .chars()
            .filter(|c| {
                match c {
                    '(' => depth += 1,
                    ')' => depth = depth.saturating_sub(1),
                    _ => return depth == 0,
                }
                false
            })
            .collect();
        let deps = list.split('`').skip(1).step_by(2).map(str::to_owned).collect();
        assert!(out.insert(name.clone(), deps).is_none(), "{name} listed twice");
    }
    assert!(out.len() >= 5, "the README's dependency list was not found: {out:?}");
    out
}

/// Workspace crate (short name) to the workspace crates it depends on (normal and build
/// dependencies; tests may use more).
fn actual() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let short = |n: &str| n.strip_prefix("advisor-").unwrap_or(n).to_owned();
    let members: BTreeSet<String> = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| p["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    let mut map = BTreeMap::new();
    for p in meta["packages"].as_array().expect("packages") {
        let name = p["name"].as_str().unwrap_or_default();
        let deps = p["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .filter(|d| d["kind"].as_str() != Some("dev"))
            .filter_map(|d| d["name"].as_str())
            .filter(|d| members.contains(*d))
            .map(short)
            .collect();
        map.insert(short(name), deps);
    }
    map
}

#[test]
fn dependencies_point_the_way_the_readme_says() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let allowed = allowed(&readme);
    let actual = actual();
    let mut wrong = Vec::new();
    for (name, deps) in &actual {
        let Some(ok) = allowed.get(name) else {
            wrong.push(format!("`{name}` is not in the README's architecture list"));
            continue;
        };
        for d in deps.difference(ok) {
            wrong.push(format!("`{name}` depends on `{d}`, which the README does not allow"));
        }
    }
    for name in allowed.keys() {
        if !actual.contains_key(name) {
            wrong.push(format!("the README lists `{name}`, which is not a workspace crate"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_front_ends_reach_the_pipeline_only_through_the_engine() {
    // What the README says in words, kept even if its list were loosened.
    let actual = actual();
    for front in ["cli", "server"] {
        for inner in ["ingest", "normalize", "rules", "topology"] {
            assert!(
                !actual[front].contains(inner),
                "`{front}` depends on `{inner}` directly: go through advisor_engine::Session"
            );
        }
    }
}

#[test]
fn the_rules_read_limits_from_model_not_topology() {
    // The rules see a VM, its disks and pools as `advisor_model::limits` types and the facts
    // the engine binds; the topology file and the catalog stay on the engine's side.
    let actual = actual();
    assert!(actual["rules"].contains("model"), "{:?}", actual["rules"]);
    assert!(
        !actual["rules"].contains("topology"),
        "`rules` depends on `topology`: the limit types it reads live in `advisor_model::limits`"
    );
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    assert!(
        !allowed(&readme)["rules"].contains("topology"),
        "the README lets `rules` use `topology`"
    );
}

#[test]
fn the_list_reader_reads_lists() {
    let text = "# x\n\n## Architecture\n\nblah\n\n- `a`:\n- `b`: `a`\n- `c`: `a`, `b` (and\n  `d` in a comment), `e`\n  `f`\n\nafter `g`\n\n## Next\n- `z`: `a`\n";
    let m = allowed(&text.replace("- `a`:\n", "- `a`:\n- `q`: `a`\n- `r`:\n"));
    assert_eq!(m["a"], BTreeSet::new());
    assert_eq!(m["b"], BTreeSet::from(["a".to_owned()]));
    // `d` is inside a parenthesised comment spanning two lines; `e` and `f` are after it.
    let c: BTreeSet<String> = ["a", "b", "e", "f"].map(str::to_owned).into();
    assert_eq!(m["c"], c);
    assert_eq!(m["q"], BTreeSet::from(["a".to_owned()]));
    assert!(!m.contains_key("z"));
}
