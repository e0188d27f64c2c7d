//! Collector bundles end to end: the real binary on a bundle as a folder,
//! a tar.gz and a zip (`fixtures/bundles/`), and the Linux collector run on this machine
//! (not an Azure VM) with its bundle analysed: its metadata request goes to a stand-in on
//! loopback, never to Azure's address. Hostile archives (zip bomb, traversal,
//! links) are in the bad-input corpus (`tests/it/invalid.rs`).

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // tests fail by panicking

use crate::skip;

use crate::common;

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use serde_json::Value;

const WINDOWS: &str = "fixtures/bundles/windows-ds13v2";
const LINUX_TGZ: &str = "fixtures/bundles/linux-off-azure.tar.gz";
const SCENARIO: &str = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30";

fn run(args: &[&str]) -> (i32, String, String) {
    let out = advisor(&repo(), args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_report(args: &[&str]) -> Value {
    let mut all = vec!["analyze"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let (code, out, err) = run(&all);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).expect("a JSON report")
}

fn settings() -> insta::internals::SettingsBindDropGuard {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo().join("tests/it/snapshots/bundle"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind_to_scope()
}

/// The rule ids of a report's findings, with their subjects, in order.
fn findings(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| format!("{} on {}", f["rule"].as_str().unwrap(), f["subject"].as_str().unwrap()))
        .collect()
}

#[test]
fn a_folder_a_zip_and_the_loose_capture_give_the_same_findings() {
    let topology = format!("{SCENARIO}/topology.toml");
    let loose = json_report(&[&format!("{SCENARIO}/capture.csv"), "--topology", &topology]);
    let zip = format!("{WINDOWS}.zip");
    let zipped = json_report(&[&zip, "--topology", &topology]);
    let folder = json_report(&[WINDOWS, "--topology", &topology]);
    assert!(!findings(&loose).is_empty());
    assert_eq!(findings(&zipped), findings(&loose));
    assert_eq!(findings(&folder), findings(&loose));
    assert_eq!(zipped["not_evaluated"], loose["not_evaluated"]);

    // The capture is named inside its bundle; every other file is listed with what became
    // of it.
    let inputs: Vec<(String, String, String)> = zipped["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["file"].as_str().unwrap().to_owned(),
                i["format"].as_str().unwrap().to_owned(),
                i["reason"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert_eq!(inputs[0].0, format!("{zip}!perfmon.csv"));
    assert_eq!(inputs[0].1, "perfmon-csv");
    let manifest = &zipped["inputs"][1];
    assert_eq!(manifest["file"], format!("{zip}!manifest.json"));
    assert_eq!(manifest["format"], "collector-manifest");
    assert_eq!(manifest["host"], "SQLVM01");
    assert_eq!(manifest["start"], "2024-06-11T18:29:58");
    let listed = |format: &str| -> Vec<&str> {
        inputs.iter().filter(|i| i.1 == format).map(|i| i.0.as_str()).collect()
    };
    let names = |ns: &[&str]| -> Vec<String> { ns.iter().map(|n| format!("{zip}!{n}")).collect() };
    assert_eq!(listed("ignored"), names(&["counters.txt"]));
    assert_eq!(
        listed("topology"),
        names(&[
            "get-disk.json",
            "get-partition.json",
            "get-physicaldisk.json",
            "get-volume.json",
            "imds.json"
        ])
    );
    let reason = |n: &str| inputs.iter().find(|i| i.0.ends_with(n)).map(|i| i.2.clone());
    assert_eq!(
        reason("!imds.json").as_deref(),
        Some("read into the topology: IMDS instance document")
    );
    let counters = reason("!counters.txt").unwrap_or_default();
    assert!(counters.starts_with("not read: a PerfMon counter list"), "{counters}");

    // The bundle alone says what the hand-written topology says: the same findings and the
    // same checks not evaluated, with no topology file given.
    let alone = json_report(&[&zip]);
    assert_eq!(findings(&alone), findings(&loose));
    assert_eq!(alone["not_evaluated"], loose["not_evaluated"]);
    assert_eq!(alone["vm"], "Standard_DS13_v2");

    // The report stays valid against the shipped schema.
    let (_, schema, _) = run(&["schema"]);
    let schema: Value = serde_json::from_str(&schema).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&zipped).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn the_markdown_report_of_a_bundle_lists_what_became_of_each_file() {
    let _s = settings();
    let topology = format!("{SCENARIO}/topology.toml");
    let (code, out, err) = run(&["analyze", &format!("{WINDOWS}.zip"), "--topology", &topology]);
    assert_eq!(code, 0, "{err}");
    let inputs = &out[out.find("### Inputs").expect("an inputs section")..];
    insta::assert_snapshot!("analyze__windows-ds13v2.zip__inputs", inputs);
}

#[test]
fn inspect_shows_the_collectors_facts() {
    let _s = settings();
    let (code, out, err) = run(&["inspect", LINUX_TGZ]);
    assert_eq!(code, 0, "{err}");
    // The bundle's own block: the capture's statistics follow it (and are snapshotted by
    // the iostat tests).
    let head = out.split("\n\n").next().unwrap();
    assert!(head.contains("collector: sysstat 12.6.1"), "{head}");
    assert!(head.contains("collector: instance metadata (IMDS): no answer"), "{head}");
    insta::assert_snapshot!("inspect__linux-off-azure.tar.gz", head);
    assert!(out.contains(&format!("{LINUX_TGZ}!advisor-vm-20261124T002750Z/iostat.json\n")));

    // --json carries the bundle with each capture.
    let (code, out, _) = run(&["inspect", "--json", LINUX_TGZ]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["format"], "iostat-json");
    assert_eq!(v[0]["bundle"]["manifest"]["sysstat"], "12.6.1");
    assert_eq!(v[0]["bundle"]["manifest"]["imds"]["answered"], false);
    assert_eq!(v[0]["bundle"]["kind"], "tar.gz");
}

#[test]
fn a_zip_of_one_capture_is_read_as_its_capture() {
    let report = json_report(&["fixtures/bundles/capture-zipped.zip", "--vm", "Standard_DS13_v2"]);
    assert_eq!(report["inputs"][0]["file"], "fixtures/bundles/capture-zipped.zip!capture.csv");
    assert_eq!(report["inputs"].as_array().unwrap().len(), 1);
}

#[test]
fn a_bundle_without_a_capture_is_an_error_naming_it() {
    let dir = std::env::temp_dir().join(format!("advisor-bundle-empty-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(repo().join(WINDOWS).join("imds.json"), dir.join("imds.json")).unwrap();
    let shown = dir.display().to_string();
    // Every job says the one sentence, once, and exits 2 (compare and recommend went on
    // with nothing read before they shared the pipeline).
    let capture = repo().join(WINDOWS).join("perfmon.csv").display().to_string();
    let want = format!(
        "error: {shown}: no capture in it (none of its files is in a format advisor reads; \
         `advisor inspect` says what each file is)\n"
    );
    for args in [
        vec!["analyze", shown.as_str()],
        vec!["recommend", shown.as_str(), "--vm", "Standard_DS13_v2"],
        vec!["compare", capture.as_str(), "--with", shown.as_str()],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err, want, "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The collector's folder and archive under `out`.
fn written(out: &Path) -> (PathBuf, PathBuf) {
    let mut dirs = Vec::new();
    let mut archives = Vec::new();
    for e in std::fs::read_dir(out).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            dirs.push(p);
        } else if p.to_string_lossy().ends_with(".tar.gz") {
            archives.push(p);
        }
    }
    assert_eq!((dirs.len(), archives.len()), (1, 1), "{dirs:?} {archives:?}");
    (dirs.remove(0), archives.remove(0))
}

/// A stand-in for Azure's instance metadata service on loopback, so that the collector's
/// metadata path runs for real in tests without a request ever leaving the machine. Like
/// the real service it answers the instance document only to a request with the
/// `Metadata: true` header (the HTML 400 page otherwise), and 404 for any other path.
struct ImdsStandIn {
    url: String,
    /// The head of every request received, in order.
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ImdsStandIn {
    const PATH: &str = "/metadata/instance";

    fn start(document: Vec<u8>) -> ImdsStandIn {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let refusal =
            std::fs::read(repo().join("fixtures/topologies/documents/invalid/imds-error.html"))
                .unwrap();
        let (seen, stopped) = (requests.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut conn) = conn else { continue };
                let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
                let head = read_head(&mut conn);
                let mut lines = head.lines();
                let path = lines.next().and_then(|l| l.split(' ').nth(1)).unwrap_or("");
                let metadata_header = lines.any(|l| {
                    l.split_once(':').is_some_and(|(name, value)| {
                        name.trim().eq_ignore_ascii_case("metadata") && value.trim() == "true"
                    })
                });
                let (status, kind, body) = if path.split('?').next() != Some(Self::PATH) {
                    ("404 Not Found", "text/plain", b"not found\n".to_vec())
                } else if !metadata_header {
                    ("400 Bad Request", "text/html", refusal.clone())
                } else {
                    ("200 OK", "application/json; charset=utf-8", document.clone())
                };
                seen.lock().unwrap().push(head);
                let answer = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n",
                    body.len()
                );
                let _ = conn.write_all(answer.as_bytes()).and_then(|()| conn.write_all(&body));
            }
        });
        ImdsStandIn {
            url: format!("http://127.0.0.1:{port}{}?api-version=2021-02-01", Self::PATH),
            requests,
            stop,
            thread: Some(thread),
        }
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for ImdsStandIn {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so that it sees the flag.
        let addr = self.url.trim_start_matches("http://").split('/').next().unwrap().to_owned();
        let _ = TcpStream::connect(addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A request's head, up to the blank line (at most 64 KiB).
fn read_head(conn: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while head.len() < 64 * 1024 && !head.ends_with(b"\r\n\r\n") {
        match conn.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// One plain GET to the stand-in, with or without the metadata header: the status line.
fn get(url: &str, metadata: bool) -> String {
    let rest = url.trim_start_matches("http://");
    let (addr, path) = rest.split_at(rest.find('/').unwrap());
    let mut conn = TcpStream::connect(addr).unwrap();
    let header = if metadata { "Metadata: true\r\n" } else { "" };
    write!(conn, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{header}Connection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    conn.read_to_string(&mut answer).unwrap();
    answer.lines().next().unwrap_or("").to_owned()
}

/// Runs the Linux collector with `args`, `ADVISOR_IMDS_URL` as given (removed when `None`).
fn collect(args: &[&str], out: &Path, env_url: Option<&str>) -> (Value, PathBuf, PathBuf) {
    let mut cmd = Command::new("bash");
    cmd.arg(repo().join("collect/collect-linux.sh")).args(args).arg("--out").arg(out);
    match env_url {
        Some(url) => cmd.env("ADVISOR_IMDS_URL", url),
        None => cmd.env_remove("ADVISOR_IMDS_URL"),
    };
    let ran = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(0), "{args:?}: {stderr}");
    let (folder, archive) = written(out);
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(folder.join("manifest.json")).unwrap()).unwrap();
    (manifest, folder, archive)
}

#[test]
fn the_linux_collector_runs_here_and_its_bundle_analyses() {
    let script = repo().join("collect/collect-linux.sh");
    let has_iostat = Command::new("sh")
        .args(["-c", "command -v iostat"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_iostat {
        skip::skip("iostat is not installed (apt-get install sysstat); .ci/run installs it");
        return;
    }
    let base = std::env::temp_dir().join(format!("advisor-collect-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let out = base.join("1");
    std::fs::create_dir_all(&out).unwrap();

    // Argument checks first: bad usage is 2 and writes nothing.
    let usage = |args: &[&str]| {
        Command::new("bash")
            .arg(&script)
            .args(args)
            .env_remove("ADVISOR_IMDS_URL")
            .output()
            .unwrap()
    };
    let help = usage(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).starts_with("Usage: collect-linux.sh"));
    for bad in [
        &["--seconds", "0"][..],
        &["-s", "3601"],
        &["-s", "x"],
        &["--nope"],
        &["--imds-url"],
        &["--imds-url", "ftp://127.0.0.1/metadata"],
        &["--imds-url", "-K/etc/passwd"],
        &["--imds-url", "http://"],
    ] {
        let o = usage(bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
    let bad_env = Command::new("bash")
        .arg(&script)
        .env("ADVISOR_IMDS_URL", "file:///etc/passwd")
        .output()
        .unwrap();
    assert_eq!(bad_env.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_env.stderr).contains("ADVISOR_IMDS_URL must be"));
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);

    // The metadata path, against the stand-in on loopback. It holds the DS13_v2 VM's
    // instance document, and insists on the header as Azure does.
    let document = std::fs::read(repo().join(WINDOWS).join("imds.json")).unwrap();
    let imds = ImdsStandIn::start(document.clone());
    assert_eq!(get(&imds.url, false), "HTTP/1.1 400 Bad Request");
    assert_eq!(get(&imds.url, true), "HTTP/1.1 200 OK");
    let probes = imds.requests().len();

    // The option wins over the environment (which points at a path the stand-in refuses).
    let wrong = imds.url.replace(ImdsStandIn::PATH, "/wrong");
    let (manifest, folder, archive) =
        collect(&["--seconds", "3", "--imds-url", &imds.url], &out, Some(&wrong));
    assert_eq!(manifest["collector"], "advisor-collect-linux");
    assert_eq!(manifest["seconds"], 3);
    assert_eq!(manifest["imds"]["answered"], true, "{manifest}");
    assert_eq!(manifest["imds"]["skipped"], false);
    assert_eq!(manifest["imds"]["url"], imds.url.as_str());
    assert_eq!(std::fs::read(folder.join("imds.json")).unwrap(), document);
    let asked = imds.requests();
    assert_eq!(asked.len(), probes + 1, "{asked:#?}");
    let head = asked.last().unwrap();
    assert!(
        head.starts_with("GET /metadata/instance?api-version=2021-02-01 HTTP/1.1\r\n"),
        "{head}"
    );
    assert!(head.to_ascii_lowercase().contains("\r\nmetadata: true\r\n"), "{head}");

    // The bundle alone names the VM: its size comes from the instance document.
    let archive = archive.display().to_string();
    let report = json_report(&[&archive]);
    assert_eq!(report["vm"], "Standard_DS13_v2", "{}", report["inputs"]);
    let inputs = report["inputs"].as_array().unwrap();
    let capture = &inputs[0];
    assert!(capture["file"].as_str().unwrap().ends_with("/iostat.json"), "{capture}");
    assert_eq!(capture["format"], "iostat-json");
    // 3 one-second samples after the since-boot report.
    assert!(capture["samples"].as_u64().unwrap() >= 2, "{capture}");
    let read = inputs
        .iter()
        .find(|i| i["file"].as_str().unwrap().ends_with("/imds.json"))
        .unwrap_or_else(|| panic!("imds.json listed: {inputs:#?}"));
    assert_eq!(read["format"], "topology");
    assert_eq!(read["reason"], "read into the topology: IMDS instance document");
    let listed = inputs.iter().find(|i| i["format"] == "collector-manifest").unwrap();
    assert_eq!(listed["host"], manifest["host"]);
    let (code, shown, _) = run(&["inspect", &archive]);
    assert_eq!(code, 0);
    assert!(
        shown.contains(&format!("collector: instance metadata (IMDS): answered by {}", imds.url)),
        "{shown}"
    );
    // The folder reads the same.
    let from_folder = json_report(&[&folder.display().to_string()]);
    assert_eq!(from_folder["inputs"][0]["format"], "iostat-json");
    assert_eq!(from_folder["vm"], "Standard_DS13_v2");

    // --no-imds sends nothing, even with the environment set, and the manifest says so.
    let out = base.join("2");
    std::fs::create_dir_all(&out).unwrap();
    let (manifest, folder, archive) =
        collect(&["--seconds", "1", "--no-imds"], &out, Some(&imds.url));
    assert_eq!(imds.requests().len(), probes + 1);
    assert_eq!(manifest["imds"]["answered"], false);
    assert_eq!(manifest["imds"]["skipped"], true);
    assert!(manifest["imds"].get("url").is_none(), "{manifest}");
    assert!(!folder.join("imds.json").exists());
    let report = json_report(&[&archive.display().to_string(), "--vm", "Standard_D4s_v5"]);
    let listed = report["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["format"] == "collector-manifest")
        .unwrap()
        .to_string();
    assert!(
        listed.contains("instance metadata (IMDS): not asked (not asked: --no-imds"),
        "{listed}"
    );

    // The environment alone sets the endpoint; a refusal is an answer that is not a document.
    let out = base.join("3");
    std::fs::create_dir_all(&out).unwrap();
    let (manifest, folder, _) = collect(&["--seconds", "1"], &out, Some(&wrong));
    assert_eq!(imds.requests().len(), probes + 2);
    assert!(imds.requests().last().unwrap().starts_with("GET /wrong?"));
    assert_eq!(manifest["imds"]["answered"], false);
    assert_eq!(manifest["imds"]["url"], wrong.as_str());
    let reason = manifest["imds"]["reason"].as_str().unwrap();
    let host = wrong.trim_start_matches("http://").split('/').next().unwrap();
    assert!(reason.starts_with(&format!("{host} answered with an HTTP error")), "{reason}");
    assert!(!folder.join("imds.json").exists());
    drop(imds);
    let _ = std::fs::remove_dir_all(&base);
}
