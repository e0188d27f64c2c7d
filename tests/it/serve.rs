//! End-to-end tests of `advisor serve`: the real binary on a free loopback port, spoken to
//! over plain HTTP/1.1, and driven through its upload page by headless Chromium.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::skip;

use crate::common;

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{BOUNDARY, multipart, repo, scenario};

/// A running `advisor serve`, stopped when dropped.
struct Server {
    child: Child,
    base: String,
    addr: String,
    /// The rest of its stderr, line by line.
    log: mpsc::Receiver<String>,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        let (child, addr, log) = common::start_serve(extra);
        Server { child, base: format!("http://{addr}"), addr, log }
    }

    /// One request on a fresh connection; (status, headers in lower case, body).
    fn request(&self, head: &str, body: &[u8]) -> (u16, String, Vec<u8>) {
        let mut s = TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        s.set_write_timeout(Some(Duration::from_secs(60))).unwrap();
        s.write_all(head.as_bytes()).unwrap();
        // The server may answer (and close) before the body is sent: that is the point of
        // the body limit, so a failed write is not a failure here.
        let _ = s.write_all(body);
        let mut raw = Vec::new();
        let _ = s.read_to_end(&mut raw);
        parse_response(&raw)
    }

    fn get(&self, path: &str) -> (u16, String, Vec<u8>) {
        self.request(
            &format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", self.addr),
            &[],
        )
    }

    fn post_form(&self, parts: &[(&str, &str, &[u8])], accept: &str) -> (u16, String, Vec<u8>) {
        let body = multipart(parts);
        let head = format!(
            "POST /api/v1/analyze HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nAccept: {accept}\r\n\
             Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        self.request(&head, &body)
    }

    /// SIGTERM, then the exit status and what it printed after.
    fn terminate(mut self) -> Option<(std::process::ExitStatus, String)> {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().ok()?;
        if !sent.success() {
            return None;
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                let log: Vec<String> = self.log.try_iter().collect();
                return Some((status, log.join("\n")));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("advisor serve did not stop within 30 s of SIGTERM");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parse_response(raw: &[u8]) -> (u16, String, Vec<u8>) {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a complete response head");
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("status");
    (status, head, raw[split + 4..].to_vec())
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn serve_answers_the_page_reports_and_problems_and_stops_on_sigterm() {
    let server = Server::start(&[]);

    let (status, head, body) = server.get("/");
    assert_eq!(status, 200);
    assert!(head.contains("content-type: text/html"));
    assert!(text(&body).contains(r#"action="/api/v1/analyze""#));

    // The README's curl: a capture and a topology, JSON back.
    let (capture, topology) = scenario();
    let (status, head, body) = server.post_form(
        &[("capture", "capture.csv", &capture), ("topology", "topology.toml", &topology)],
        "application/json",
    );
    assert_eq!(status, 200, "{}", text(&body));
    assert!(head.contains("content-type: application/json"));
    let report: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(report["schema"], "advisor.report/v1");
    assert_eq!(report["findings"][0]["rule"], "vm-cached-throughput-cap");

    // The VM's own documents instead of the topology file, as several `topology` parts: the
    // same findings.
    let doc = |f: &str| {
        std::fs::read(repo().join("fixtures/topologies/documents/ds13v2-windows").join(f)).unwrap()
    };
    let (imds, disks, parts) = (doc("imds.json"), doc("get-disk.json"), doc("get-partition.json"));
    let (status, _, body) = server.post_form(
        &[
            ("capture", "capture.csv", &capture),
            ("topology", "imds.json", &imds),
            ("topology", "get-disk.json", &disks),
            ("topology", "get-partition.json", &parts),
        ],
        "application/json",
    );
    assert_eq!(status, 200, "{}", text(&body));
    let from_docs: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(from_docs["findings"], report["findings"]);
    assert_eq!(from_docs["not_evaluated"], report["not_evaluated"]);

    // A binary file: a 4xx problem document.
    let binary: Vec<u8> = (0..=255u8).cycle().take(64 * 1024).collect();
    let (status, head, body) =
        server.post_form(&[("capture", "dump.bin", &binary)], "application/json");
    assert_eq!(status, 422, "{}", text(&body));
    assert!(head.contains("content-type: application/problem+json"));
    let problem: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert!(problem["detail"].as_str().unwrap().contains("dump.bin"), "{problem}");

    // 700 MB declared: 413 before the body is read (only a few bytes of it are sent).
    let started = Instant::now();
    let head = format!(
        "POST /api/v1/analyze HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\n\
         Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: {}\r\n\r\n",
        server.addr,
        700u64 * 1000 * 1000
    );
    let (status, head, body) = server.request(&head, format!("--{BOUNDARY}\r\n").as_bytes());
    assert_eq!(status, 413, "{}", text(&body));
    assert!(head.contains("content-type: application/problem+json"));
    assert!(started.elapsed() < Duration::from_secs(10));

    for path in ["/healthz", "/api/v1/rules", "/api/v1/openapi.json"] {
        let (status, _, _) = server.get(path);
        assert_eq!(status, 200, "{path}");
    }
    let (status, _, body) = server.get("/healthz");
    assert_eq!((status, text(&body).as_str()), (200, "ok\n"));

    match server.terminate() {
        Some((exit, log)) => {
            assert!(exit.success(), "exit status after SIGTERM: {exit:?}\n{log}");
            assert!(log.contains("advisor serve: stopped"), "{log}");
            // Nothing of an upload is logged: not its content, not its name.
            for secret in ["SQLVM01", "dump.bin", "capture.csv", "Standard_DS13_v2"] {
                assert!(!log.contains(secret), "the log quotes an upload ({secret}):\n{log}");
            }
        }
        None => skip::skip("the SIGTERM check: no `kill` command"),
    }
}

/// `advisor serve` takes `analyze`'s `--rules`, `--set`, `--catalog` and `--templates` and
/// applies them to every upload: a rule added from a folder fires, a parameter set on the
/// command line silences a shipped rule, and a template override shapes the report.
#[test]
fn serve_applies_rules_sets_catalog_and_templates_to_uploads() {
    let dir = std::env::temp_dir().join(format!("advisor-serve-session-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("rules")).unwrap();
    std::fs::create_dir_all(dir.join("templates/partials")).unwrap();
    // A rule of the operator's: the shipped cached-cap rule under its own id and title.
    let shipped = std::fs::read_to_string(repo().join("rules/vm/vm-cached-throughput-cap.rule"))
        .unwrap()
        .replacen("rule vm-cached-throughput-cap", "rule site-cached-budget", 1)
        .replacen(
            "title    \"Cached disks and the temp disk are at the VM's cached throughput cap\"",
            "title    \"Site rule: the cached budget is spent\"",
            1,
        )
        // Its case (the temp disk carries most of the budget) gets the site's title too.
        .replacen(
            "title    \"The temp disk fills the VM's cached throughput budget, and the host-cached disks wait behind it\"",
            "title    \"Site rule: the cached budget is spent\"",
            1,
        );
    assert!(shipped.contains("Site rule"), "the shipped rule's title changed");
    std::fs::write(dir.join("rules/site-cached-budget.rule"), shipped).unwrap();
    std::fs::write(
        dir.join("templates/partials/inputs.md.tera"),
        "SITE TEMPLATE: {{ inputs | length }} input(s)\n",
    )
    .unwrap();
    // A catalog file of the operator's: DS13_v2's row as shipped, with 200 MB/s cached.
    let catalog = dir.join("vms.csv");
    let csv = std::fs::read_to_string(repo().join("crates/topology/catalog/vm_sizes.csv")).unwrap();
    let header = csv.lines().next().unwrap().to_owned();
    let row = csv.lines().find(|l| l.starts_with("Standard_DS13_v2,")).expect("DS13_v2 row");

    let rules = dir.join("rules");
    let templates = dir.join("templates");
    // Same columns as the built-in file; only the cached MB/s differs.
    let cols: Vec<&str> = header.split(',').collect();
    let at = cols.iter().position(|c| *c == "cached_mbps").expect("cached_mbps column");
    let mut cells: Vec<String> = row.split(',').map(str::to_owned).collect();
    cells[at] = "200".to_owned();
    std::fs::write(&catalog, format!("{header}\n{}\n", cells.join(","))).unwrap();
    let args = [
        "--rules",
        rules.to_str().unwrap(),
        "--set",
        "vm-cached-throughput-cap.cap_ratio=200%",
        "--templates",
        templates.to_str().unwrap(),
        "--catalog",
        catalog.to_str().unwrap(),
    ];
    let server = Server::start(&args);

    let (capture, topology) = scenario();
    let parts =
        [("capture", "capture.csv", &capture[..]), ("topology", "topology.toml", &topology[..])];
    let (status, _, body) = server.post_form(&parts, "application/json");
    assert_eq!(status, 200, "{}", text(&body));
    let report: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let fired: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    // --set: the shipped rule now needs 200% of the cap, which the scenario never reaches.
    assert!(!fired.contains(&"vm-cached-throughput-cap"), "{fired:?}");
    // --rules: the operator's rule, same test at 95%, fires.
    let site = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "site-cached-budget")
        .unwrap_or_else(|| panic!("the --rules rule did not fire: {fired:?}"));
    assert_eq!(site["title"], "Site rule: the cached budget is spent");
    // --catalog: the VM's cached cap is the operator's 200 MB/s, not the built-in 256.
    assert_eq!(site["metrics"]["vm.cached_mbps"], 200.0, "{site}");

    // --templates: the Markdown report uses the operator's partial.
    let (status, _, body) = server.post_form(&parts, "text/markdown");
    assert_eq!(status, 200, "{}", text(&body));
    let md = text(&body);
    assert!(md.contains("SITE TEMPLATE: 1 input(s)"), "{md}");
    assert!(md.contains("Site rule: the cached budget is spent"), "{md}");

    // The rules route lists the rules in force, with the value set.
    let (status, _, body) = server.get("/api/v1/rules");
    assert_eq!(status, 200);
    let rules: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let list = rules.as_array().unwrap();
    assert!(list.iter().any(|r| r["id"] == "site-cached-budget"));
    let cap = list.iter().find(|r| r["id"] == "vm-cached-throughput-cap").unwrap();
    let ratio = cap["params"].as_array().unwrap().iter().find(|p| p["name"] == "cap_ratio");
    assert_eq!(ratio.unwrap()["value"], "200%", "{cap}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serve_refuses_bad_flags() {
    for args in [
        &["serve", "--max-upload", "lots"][..],
        &["serve", "--workers", "0"],
        &["serve", "--listen", "not-an-address"],
        &["serve", "--header-timeout", "0"],
        // The session's flags are checked before the server listens, as analyze does.
        &["serve", "--rules", "/nonexistent/advisor-rules"],
        &["serve", "--set", "no-such-rule.x=1"],
        &["serve", "--set", "vm-cached-throughput-cap.no_such_param=1"],
        &["serve", "--templates", "/nonexistent/advisor-templates"],
        &["serve", "--catalog", "/nonexistent/advisor-catalog.csv"],
    ] {
        let out = common::advisor(&repo(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
    }
}

fn found(cmd: &str, arg: &str) -> bool {
    Command::new(cmd)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A person's path through the page in headless Chromium (tests/browser/upload.spec.mjs).
/// Skips, saying why, without node, Debian's chromium or `npm ci --prefix tests/browser`;
/// CI installs all three.
#[test]
fn upload_page_works_in_chromium() {
    let browser_dir = repo().join("tests/browser");
    let chromium = Path::new("/usr/bin/chromium");
    if !found("node", "--version") {
        skip::skip("no node on PATH");
        return;
    }
    if !chromium.exists() {
        skip::skip("no /usr/bin/chromium (apt-get install chromium)");
        return;
    }
    if !browser_dir.join("node_modules/playwright-core").is_dir() {
        skip::skip("tests/browser/node_modules is missing (npm ci --prefix tests/browser)");
        return;
    }
    let server = Server::start(&["--workers", "2"]);
    let mut child = Command::new("node")
        .arg(browser_dir.join("upload.spec.mjs"))
        .arg(&server.base)
        .current_dir(repo())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run node");
    let deadline = Instant::now() + Duration::from_secs(240);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the browser test did not finish within 240 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut out = String::new();
    let mut err = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    eprintln!("{out}");
    assert!(status.success(), "the browser test failed ({status:?}):\n{out}\n{err}");
    assert!(out.contains("ok - the report shows"), "{out}");
    let (code, _, _) = server.get("/healthz");
    assert_eq!(code, 200);
}
