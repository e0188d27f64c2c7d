//! The repository's own rules. The dependency direction the guide's architecture page
//! (`docs/architecture.md`) states, checked against `cargo metadata`: each workspace crate
//! may use only the crates the page lists after it, and every crate must be listed. The
//! page's list is the rule, so it cannot drift from the code. Tests, CI and load scripts
//! name no address but loopback (below). And the docs hold: the README is short and shows
//! the quick-start and test commands CI runs (kept in `Cargo.toml`'s
//! `[workspace.metadata.advisor]`), the guide's links resolve, and its `advisor` examples
//! run.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn architecture_page() -> String {
    std::fs::read_to_string(root().join("docs/architecture.md")).expect("docs/architecture.md")
}

/// `- \`engine\`: \`model\`, \`normalize\`, ...` lines of the "## Architecture" section:
/// crate (short name) to the crates it may use. A line's list may go on over indented
/// continuation lines; text in parentheses is a comment.
fn allowed(readme: &str) -> BTreeMap<String, BTreeSet<String>> {
    // The guide's page is the section; in a longer document, its "## Architecture".
    let section = if readme.starts_with("# Architecture") {
        readme
    } else {
        readme
            .split("\n## ")
            .find(|s| s.starts_with("Architecture"))
            .expect("an \"## Architecture\" section")
    };
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
    assert!(out.len() >= 5, "the architecture page's dependency list was not found: {out:?}");
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
fn dependencies_point_the_way_the_architecture_page_says() {
    let readme = architecture_page();
    let allowed = allowed(&readme);
    let actual = actual();
    let mut wrong = Vec::new();
    for (name, deps) in &actual {
        let Some(ok) = allowed.get(name) else {
            wrong.push(format!("`{name}` is not in docs/architecture.md's list"));
            continue;
        };
        for d in deps.difference(ok) {
            wrong.push(format!(
                "`{name}` depends on `{d}`, which docs/architecture.md does not allow"
            ));
        }
    }
    for name in allowed.keys() {
        if !actual.contains_key(name) {
            wrong.push(format!(
                "docs/architecture.md lists `{name}`, which is not a workspace crate"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_front_ends_reach_the_pipeline_only_through_the_engine() {
    // What the architecture page says in words, kept even if its list were loosened.
    let actual = actual();
    for front in ["cli", "server", "mcp", "python"] {
        for inner in ["ingest", "normalize", "rules", "topology"] {
            assert!(
                !actual[front].contains(inner),
                "`{front}` depends on `{inner}` directly: go through advisor_engine::Session"
            );
        }
    }
}

#[test]
fn only_the_engine_re_exports_other_crates() {
    // A crate that re-exported another's items would let its users depend on that crate
    // without saying so (`normalize` once handed `ingest`'s errors and bundles to the
    // engine): the dependency list above would be true only on paper.
    let mut wrong = Vec::new();
    for (name, _) in actual() {
        if name == "engine" {
            continue;
        }
        let src = root().join("crates").join(&name).join("src");
        for file in rust_files(&src) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (i, line) in text.lines().enumerate() {
                let line = line.trim_start();
                let Some(rest) = line.strip_prefix("pub use advisor_") else { continue };
                if !rest.starts_with("model") {
                    wrong.push(format!("{}:{}: {line}", file.display(), i + 1));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "re-exports of another crate outside the engine:\n{}",
        wrong.join("\n")
    );
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
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
    let readme = architecture_page();
    assert!(
        !allowed(&readme)["rules"].contains("topology"),
        "docs/architecture.md lets `rules` use `topology`"
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

// ---------------------------------------------------------------------------------------
// Tests, CI and load scripts talk only to this machine. Every address they name is
// loopback (127.0.0.0/8, [::1], localhost), an unspecified bind address (0.0.0.0, [::]),
// a name reserved never to resolve (RFC 2606/6761: .invalid, .example, .test,
// example.com), or a documentation link on a known documentation host, which nothing
// fetches. A host made at run time (`http://{addr}`) is judged where its address is made.

/// Hosts of documentation links cited in tests (references in reports, provenance notes).
const DOCUMENTATION_HOSTS: &[&str] = &["learn.microsoft.com", "github.com"];

/// The files the rule covers: CI's scripts, every test source and script (the end-to-end
/// tests, each crate's tests and unit-test modules, the load and browser tests), the
/// benchmark and fuzz tooling. Snapshots (what advisor printed) and lock files are data.
fn test_and_ci_files() -> Vec<PathBuf> {
    let out = Command::new("git")
        .args(["ls-files", "--cached", "--others", "--exclude-standard", "-z"])
        .current_dir(root())
        .output()
        .expect("git ls-files");
    assert!(out.status.success(), "git ls-files: {}", String::from_utf8_lossy(&out.stderr));
    let covered = |p: &str| {
        let data = p.contains("/snapshots/")
            || p.ends_with(".snap")
            || p.ends_with("Cargo.lock")
            || p.ends_with("package-lock.json")
            || p.contains("/proptest-regressions/")
            || p.contains("node_modules/");
        let tests = p.starts_with(".ci/")
            || p.starts_with("tests/")
            || p.starts_with("fuzz/")
            || p.starts_with("crates/xtask/")
            || (p.starts_with("crates/")
                && (p.contains("/tests/") || p.ends_with("/tests.rs") || p.ends_with("_tests.rs")));
        tests && !data
    };
    out.stdout
        .split(|b| *b == 0)
        .filter_map(|p| std::str::from_utf8(p).ok())
        .filter(|p| !p.is_empty() && covered(p))
        .map(|p| root().join(p))
        .filter(|p| p.is_file())
        .collect()
}

fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host == "::1"
        || ipv4(host).is_some_and(|o| o[0] == 127)
}

fn is_unspecified_host(host: &str) -> bool {
    matches!(host.trim_start_matches('[').trim_end_matches(']'), "0.0.0.0" | "::")
}

fn is_reserved_name(host: &str) -> bool {
    let h = host.to_ascii_lowercase();
    [".invalid", ".example", ".test", ".localhost"].iter().any(|s| h.ends_with(s))
        || ["example.com", "example.org", "example.net"].contains(&h.as_str())
}

/// Four dotted numbers of 0..=255.
fn ipv4(s: &str) -> Option<[u8; 4]> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    let mut o = [0u8; 4];
    for (i, p) in parts.iter().enumerate() {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        o[i] = p.parse().ok()?;
    }
    Some(o)
}

/// What is wrong with one line, if anything: each address it names that is not allowed.
fn outside_addresses(line: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    let b = line.as_bytes();
    // URLs: a scheme, then `://`, then the host and port.
    let mut from = 0;
    while let Some(at) = line[from..].find("://").map(|i| i + from) {
        from = at + 3;
        let scheme_start = line[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || "+.-".contains(c)))
            .map_or(0, |i| i + 1);
        let scheme = line[scheme_start..at].to_ascii_lowercase();
        let rest = &line[at + 3..];
        let end = rest
            .find(|c: char| c.is_whitespace() || "/?#\"'<>)`,;".contains(c))
            .unwrap_or(rest.len());
        // A pattern's escapes (`127\.0\.0\.1`) read as the address they match.
        let authority = rest[..end].replace('\\', "");
        let authority = authority.as_str();
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let host = if host_port.starts_with('[') {
            host_port.find(']').map_or(host_port, |i| &host_port[..=i])
        } else {
            host_port.split(':').next().unwrap_or(host_port)
        };
        let dynamic = host.is_empty() || host.contains(['{', '$', '%', '(', '*']);
        let ok = scheme == "file"
            || dynamic
            || is_loopback_host(host)
            || is_unspecified_host(host)
            || is_reserved_name(host)
            || (scheme == "https" && DOCUMENTATION_HOSTS.contains(&host));
        if !ok {
            wrong.push(format!("{scheme}://{host}"));
        }
    }
    // IPv4 literals anywhere (in a URL or not), not part of a longer dotted run.
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.'))
        {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
                j += 1;
            }
            let run = line[i..j].trim_end_matches('.');
            let followed_by_letter = j < b.len() && b[j].is_ascii_alphabetic();
            let outside = |o: &[u8; 4]| o[0] != 127 && *o != [0, 0, 0, 0];
            if ipv4(run).filter(|_| !followed_by_letter).is_some_and(|o| outside(&o)) {
                wrong.push(run.to_owned());
            }
            i = j;
        } else {
            i += 1;
        }
    }
    // Bracketed IPv6 with a port ("[::1]:8080"), outside URLs too.
    let mut from = 0;
    while let Some(open) = line[from..].find('[').map(|k| k + from) {
        from = open + 1;
        let Some(close) = line[open..].find(']').map(|k| k + open) else { break };
        let inner = &line[open + 1..close];
        let is_v6 = inner.matches(':').count() >= 2
            && inner.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.');
        let port = line[close + 1..]
            .strip_prefix(':')
            .is_some_and(|p| p.starts_with(|c: char| c.is_ascii_digit()));
        if is_v6 && port && !matches!(inner, "::1" | "::") {
            wrong.push(format!("[{inner}]"));
        }
    }
    // A quoted "host:port" where a connection is made or a listener bound.
    let connecting =
        ["connect(", "curl ", "wget ", "urlopen(", "fetch(", "goto(", "--listen", "bind("];
    if connecting.iter().any(|c| line.contains(c)) {
        for quoted in line.split(['"', '\'']).skip(1).step_by(2) {
            if let Some((host, port)) = quoted.rsplit_once(':') {
                let named = !host.is_empty()
                    && host.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
                    && host.chars().any(|c| c.is_ascii_alphabetic());
                if named
                    && !port.is_empty()
                    && port.chars().all(|c| c.is_ascii_digit())
                    && !is_loopback_host(host)
                    && !is_reserved_name(host)
                {
                    wrong.push(quoted.to_owned());
                }
            }
        }
    }
    wrong
}

#[test]
fn tests_and_ci_name_only_loopback_addresses() {
    let files = test_and_ci_files();
    // The scope is real: CI's script and the collector test are in it.
    for must in
        [".ci/run", ".ci/imds-standin.py", "tests/it/bundle.rs", "tests/load/upload_load.py"]
    {
        assert!(files.iter().any(|f| f.ends_with(must)), "{must} is not scanned");
    }
    let mut wrong = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        for (n, line) in text.lines().enumerate() {
            for a in outside_addresses(line) {
                let rel = f.strip_prefix(root()).unwrap_or(f).display().to_string();
                wrong.push(format!("{rel}:{}: {a}", n + 1));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "tests and CI may name only loopback addresses (127.0.0.0/8, [::1], localhost) and \
         documentation links:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_address_check_refuses_what_leaves_the_machine() {
    // Built from pieces, so that this file itself names none of them.
    let imds = concat!("169.254", ".169.254");
    let refused = [
        format!("curl -H 'Metadata: true' http://{imds}/metadata/instance"),
        format!("let ip = \"{}\";", concat!("10.1", ".2.3")),
        format!("requests.get('https://{}/v1')", concat!("management.azure", ".com")),
        format!("TcpStream::connect(\"{}:5432\")", concat!("db.internal", ".corp")),
        format!("--listen [{}]:8080", concat!("2001:db8", "::5")),
        format!("http://[{}]:80/x", concat!("fe80", "::1")),
        format!("http://{}/docs", concat!("learn.microsoft", ".com")),
    ];
    for line in &refused {
        assert!(!outside_addresses(line).is_empty(), "not refused: {line}");
    }
    let allowed = [
        "let url = format!(\"http://127.0.0.1:{port}/metadata/instance\");",
        "curl -s http://localhost:8080/healthz",
        "--listen [::1]:0 and --listen 127.0.0.2:9000",
        "assert_eq!(it.next(), Some(\"0.0.0.0:8080\"));",
        "// https://learn.microsoft.com/azure/virtual-machines/disks-types",
        "repository = \"https://example.invalid/advisor\"",
        "format!(\"http://{addr}\") and format!(\"file://{}\", p.display())",
        "sysstat 12.6.1 on kernel 6.1.0-18-amd64, Windows 10.0.17763",
        "let v = x[::2];",
    ];
    for line in allowed {
        assert_eq!(outside_addresses(line), Vec::<String>::new(), "{line}");
    }
}

#[test]
fn the_collectors_send_their_metadata_request_where_they_are_told() {
    // Azure's address is each collector's default; the request itself uses the setting
    // (--imds-url / ADVISOR_IMDS_URL, -ImdsUrl), so tests can point it at loopback.
    let imds = concat!("169.254", ".169.254");
    for (file, request_marks, setting) in [
        ("collect/collect-linux.sh", &["curl --", "wget -"][..], "$imds_url"),
        ("collect/collect-windows.ps1", &["HttpWebRequest]::Create("][..], "($ImdsUrl)"),
    ] {
        // Continuation lines joined: a command is one line.
        let text = std::fs::read_to_string(root().join(file)).unwrap().replace("\\\n", " ");
        let requests: Vec<&str> = text
            .lines()
            .filter(|l| {
                request_marks.iter().any(|m| l.contains(m)) && !l.trim_start().starts_with('#')
            })
            .filter(|l| !l.contains("command -v"))
            .collect();
        assert!(!requests.is_empty(), "{file}: no metadata request found");
        for l in &requests {
            assert!(!l.contains(imds) && l.contains(setting), "{file}: {l}");
        }
        let defaults =
            text.lines().filter(|l| l.contains(imds) && l.contains("metadata/instance?")).count();
        assert!(defaults >= 1, "{file}: Azure's endpoint is no longer the default");
        assert!(text.contains("ADVISOR_IMDS_URL"), "{file}: the environment setting is gone");
    }
}

/// The README is a first screen, not a manual: at most 8 KB, and its first `sh` block is
/// exactly the two set-up commands CI runs (`[workspace.metadata.advisor]` in Cargo.toml,
/// which `.ci/run` reads), near the top.
#[test]
fn the_readme_is_short_and_shows_the_commands_ci_runs() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    assert!(readme.len() <= 8 * 1024, "README.md is {} bytes, over 8 KB", readme.len());
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let manifest: toml::Table = toml::from_str(&manifest).expect("Cargo.toml parses");
    let commands = &manifest["workspace"]["metadata"]["advisor"];
    let wanted: Vec<&str> =
        ["quickstart", "test"].iter().map(|k| commands[k].as_str().expect(k)).collect();
    let start = readme.find("```sh\n").expect("a sh block in the README") + "```sh\n".len();
    let block = &readme[start..start + readme[start..].find("```").expect("its end")];
    let lines: Vec<&str> = block.lines().collect();
    assert_eq!(lines, wanted, "the README's set-up commands are not CI's");
    let line_of_block = readme[..start].lines().count();
    assert!(line_of_block <= 20, "the set-up commands start at line {line_of_block}");
}

/// An mdBook heading's anchor: lower case, spaces to `-`, other punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The Markdown the guide is made of: the README, CONTRIBUTING and every page of `docs/`.
fn guide_pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md"), root().join("CONTRIBUTING.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// Every relative link of the README, CONTRIBUTING and the guide names a file that exists,
/// and a `#anchor` into a Markdown file names one of its headings; every page of `docs/` is
/// in the book's SUMMARY.
#[test]
fn the_guides_links_resolve() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in guide_pages() {
        let text = std::fs::read_to_string(&page).expect("page");
        let mut in_code = false;
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
            }
            if in_code {
                continue;
            }
            // Inline code (`[x](y)` shown as an example) is not a link.
            let line: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
            for (i, _) in line.match_indices("](") {
                let rest = &line[i + 2..];
                let Some(end) = rest.find(')') else { continue };
                let target = &rest[..end];
                if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
                    continue;
                }
                checked += 1;
                let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
                let dest = if file.is_empty() {
                    page.clone()
                } else {
                    page.parent().expect("dir").join(file)
                };
                let at = format!("{}:{}", page.display(), n + 1);
                if !dest.exists() {
                    broken.push(format!("{at}: {target}: no such file"));
                    continue;
                }
                if !anchor.is_empty() && dest.extension().is_some_and(|x| x == "md") {
                    let body = std::fs::read_to_string(&dest).expect("target");
                    let found = body
                        .lines()
                        .filter_map(|l| l.strip_prefix('#'))
                        .any(|h| slug(h.trim_start_matches('#')) == anchor);
                    if !found {
                        broken.push(format!("{at}: {target}: no heading with that anchor"));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked >= 20, "only {checked} links found");
    let summary = std::fs::read_to_string(root().join("docs/SUMMARY.md")).expect("SUMMARY");
    for page in guide_pages().iter().filter(|p| p.parent() == Some(&root().join("docs"))) {
        let name = page.file_name().expect("name").to_string_lossy().into_owned();
        if name != "SUMMARY.md" {
            assert!(summary.contains(&format!("({name})")), "docs/{name} is not in SUMMARY.md");
        }
    }
}

/// The guide's examples run: every `advisor ...` line of a `sh` block whose files all exist
/// in the repository (the bundled fixtures) runs from the repository root and answers (exit
/// 0, or 1 for `--fail-on`) with a report. Lines that name placeholder files are shown, not run.
#[test]
fn the_guides_examples_run() {
    let mut ran = Vec::new();
    for page in guide_pages() {
        let text = std::fs::read_to_string(&page).expect("page");
        let mut in_sh = false;
        for line in text.lines() {
            let t = line.trim();
            if t.starts_with("```") {
                in_sh = t == "```sh";
                continue;
            }
            let Some(args) = t.strip_prefix("advisor ").filter(|_| in_sh) else { continue };
            let args: Vec<&str> = args.split_whitespace().collect();
            if args.iter().any(|a| a.starts_with('#') || a.contains('<') || a.contains('>')) {
                continue;
            }
            let files_exist = args
                .iter()
                .filter(|a| !a.starts_with('-') && (a.contains('/') || a.contains('.')))
                .filter(|a| !a.starts_with("Standard_") && !a.contains('='))
                .all(|a| root().join(a).exists());
            if !files_exist {
                continue;
            }
            let out = Command::new(env!("CARGO_BIN_EXE_advisor"))
                .args(&args)
                .current_dir(root())
                .output()
                .expect("advisor runs");
            let code = out.status.code();
            assert!(
                matches!(code, Some(0 | 1)) && !out.stdout.is_empty(),
                "{}: `advisor {}` answered {code:?}: {}",
                page.display(),
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            );
            ran.push(args.join(" "));
        }
    }
    assert!(ran.len() >= 5, "only {} examples ran: {ran:?}", ran.len());
}
