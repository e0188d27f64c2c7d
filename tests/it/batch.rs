//! End-to-end tests of `advisor batch`: a queue of real fixtures (captures of several formats,
//! collector bundles as a folder and as a zip, a scenario folder with its topology, and
//! broken inputs) analysed with the real binary; each report must be what `advisor analyze`
//! writes for the same input, the index must account for every input, and the Kubernetes
//! manifests in `deploy/` must run with this binary as written.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use crate::common;

use std::path::{Path, PathBuf};

use common::{advisor, repo};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("advisor-batch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The queue: (entry name in the queue, source in the repository).
const QUEUE: &[(&str, &str)] = &[
    ("01-ds13v2-ticket", "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30"),
    ("02-windows-bundle", "fixtures/bundles/windows-ds13v2"),
    ("03-linux-bundle.zip", "fixtures/bundles/capture-zipped.zip"),
    ("04-fio.json", "fixtures/captures/fio-json/fio341_8k_randrw70_qd8_nj4_group_reporting.json"),
    ("05-diskspd.xml", "fixtures/captures/diskspd-xml/diskspd_win_8k_rand_w30_o32_t4_Sh_L.xml"),
    ("06-empty.csv", "fixtures/invalid/empty.csv"),
    ("07-truncated.json", "fixtures/invalid/fio-truncated-mid-document.json"),
    ("08-garbage.bin", "fixtures/invalid/binary-garbage.bin"),
    ("09-iostat.txt", "fixtures/scenarios/sync-writes-4k-qd1/iostat.txt"),
];

fn make_queue(dir: &Path) -> PathBuf {
    let queue = dir.join("queue");
    std::fs::create_dir_all(&queue).unwrap();
    for (name, src) in QUEUE {
        let src = repo().join(src);
        if src.is_dir() {
            copy_dir(&src, &queue.join(name));
        } else {
            std::fs::copy(&src, queue.join(name)).unwrap();
        }
    }
    // Hidden entries (an editor's, a sync tool's) are not tickets.
    std::fs::write(queue.join(".DS_Store"), b"\0\0\0\x01Bud1").unwrap();
    queue
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_queue_gets_one_report_per_input_and_an_index_and_goes_past_bad_inputs() {
    let dir = temp("queue");
    let queue = make_queue(&dir);
    let out = dir.join("out");
    let run = advisor(
        &dir,
        &["batch", "queue", "--out", "out", "--jobs", "2", "--format", "md", "--format", "json"],
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    // Bad inputs were in the queue: exit 2, after every other input was analysed.
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("out: 6 analysed, 3 not analysed"), "{stderr}");

    let index = json(&out.join("index.json"));
    assert_eq!(index["schema"], "advisor.batch/v1");
    assert_eq!(index["analyzed"], 6);
    assert_eq!(index["failed"], 3);
    assert_eq!(index["jobs"], 2);
    let entries = index["entries"].as_array().unwrap();
    let inputs: Vec<&str> = entries.iter().map(|e| e["input"].as_str().unwrap()).collect();
    let expected: Vec<String> = QUEUE.iter().map(|(n, _)| format!("queue/{n}")).collect();
    assert_eq!(inputs, expected, "every input, in the order given, hidden entries skipped");

    for (entry, (name, src)) in entries.iter().zip(QUEUE) {
        let status = entry["status"].as_str().unwrap();
        if name.starts_with("06") || name.starts_with("07") || name.starts_with("08") {
            assert_eq!(status, "failed", "{name}");
            let error = entry["error"].as_str().unwrap();
            assert!(error.contains(name), "the error names the input: {error}");
            assert!(entry["reports"].as_array().unwrap().is_empty());
            // The same message `advisor analyze` gives for it.
            let alone = advisor(&dir, &["analyze", &format!("queue/{name}")]);
            assert_eq!(alone.status.code(), Some(2));
            let alone_err = String::from_utf8_lossy(&alone.stderr);
            let first = error.lines().next().unwrap();
            assert!(alone_err.contains(first), "batch: {error}\nanalyze: {alone_err}");
            continue;
        }
        assert_eq!(status, "analyzed", "{name}: {entry}");
        let reports: Vec<&str> =
            entry["reports"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
        assert_eq!(reports.len(), 2, "{name}");
        // Each report is exactly what `advisor analyze` writes for the input alone.
        let json_report = reports.iter().find(|r| r.ends_with(".json")).unwrap();
        let alone = advisor(&dir, &["analyze", &format!("queue/{name}"), "--format", "json"]);
        assert_eq!(alone.status.code(), Some(0), "{name} {src}");
        assert_eq!(
            std::fs::read_to_string(out.join(json_report)).unwrap(),
            String::from_utf8_lossy(&alone.stdout),
            "{name}: batch and analyze differ"
        );
        let md_report = reports.iter().find(|r| r.ends_with(".md")).unwrap();
        let alone = advisor(&dir, &["analyze", &format!("queue/{name}")]);
        assert_eq!(
            std::fs::read_to_string(out.join(md_report)).unwrap(),
            String::from_utf8_lossy(&alone.stdout)
        );
        assert!(entry["verdict"].as_str().is_some_and(|v| !v.is_empty()), "{entry}");
    }
    // The ticket folder's own topology was used: its VM size is known and the cached
    // budget finding leads.
    assert_eq!(entries[0]["vm"], "Standard_DS13_v2");
    assert_eq!(entries[0]["worst"]["rule"], "vm-cached-throughput-cap", "{}", entries[0]);
    // The Windows bundle's IMDS document gives the VM size.
    assert_eq!(entries[1]["vm"], "Standard_DS13_v2", "{}", entries[1]);

    // The Markdown index: what a queue owner reads, timings aside.
    let md = std::fs::read_to_string(out.join("index.md")).unwrap();
    let md = regex_free_seconds(&md);
    insta::assert_snapshot!("index_md", md);
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    insta::assert_debug_snapshot!("out_files", names);
    std::fs::remove_dir_all(&dir).unwrap();
    drop(queue);
}

/// `12.3 s in all` -> `N s in all`: the one line that changes from run to run.
fn regex_free_seconds(md: &str) -> String {
    md.lines()
        .map(|l| match l.find(" s in all") {
            Some(end) => {
                let start = l[..end].rfind(' ').map_or(0, |i| i + 1);
                format!("{}N{}", &l[..start], &l[end..])
            }
            None => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn fail_on_shards_and_a_clean_queue() {
    let dir = temp("shards");
    let queue = dir.join("queue");
    std::fs::create_dir_all(&queue).unwrap();
    for (name, src) in [
        ("a.json", "fixtures/captures/fio-json/fio341_8k_randrw70_qd8_nj4_group_reporting.json"),
        ("b.xml", "fixtures/captures/diskspd-xml/diskspd_win_8k_rand_w30_o32_t4_Sh_L.xml"),
        ("c", "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30"),
    ] {
        let src = repo().join(src);
        if src.is_dir() {
            copy_dir(&src, &queue.join(name));
        } else {
            std::fs::copy(&src, queue.join(name)).unwrap();
        }
    }
    // Every input analysed: 0; with --fail-on critical and the DS13_v2 ticket: 1.
    let run = advisor(&dir, &["batch", "queue", "--out", "all", "-q", "--format", "json"]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(run.stderr.is_empty(), "-q prints nothing: {}", String::from_utf8_lossy(&run.stderr));
    let run = advisor(&dir, &["batch", "queue", "--out", "fail", "-q", "--fail-on", "critical"]);
    assert_eq!(run.status.code(), Some(1));

    // Shards of a queue: together they are the queue, each input once.
    let mut seen = Vec::new();
    for shard in ["0/2", "1/2", "2/4", "3/4"] {
        let out = format!("shard-{}", shard.replace('/', "-"));
        let run = advisor(&dir, &["batch", "queue", "--out", &out, "--shard", shard, "-q"]);
        assert_eq!(run.status.code(), Some(0), "{shard}");
        let index = json(&dir.join(&out).join("index.json"));
        let inputs: Vec<String> = index["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["input"].as_str().unwrap().to_owned())
            .collect();
        if shard.ends_with("/2") {
            seen.extend(inputs);
        } else if shard == "2/4" {
            assert_eq!(inputs, ["queue/c"]);
        } else {
            assert!(inputs.is_empty(), "a shard past the last input is empty: {inputs:?}");
        }
    }
    seen.sort();
    assert_eq!(seen, ["queue/a.json", "queue/b.xml", "queue/c"]);

    // Usage errors: exit 2 with the reason.
    for (args, says) in [
        (vec!["batch", "queue", "--out", "x", "--shard", "4/4"], "not a shard"),
        (vec!["batch", "queue", "--out", "x", "--memory-budget", "0"], "more than zero"),
        (vec!["batch", "missing-dir", "--out", "x"], "missing-dir"),
    ] {
        let run = advisor(&dir, &args);
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The `args:` list of the first container in a manifest of ours (block style, one item a
/// line, as the files in deploy/kubernetes are written).
fn manifest_args(yaml: &str) -> Vec<String> {
    let mut lines = yaml.lines().skip_while(|l| l.trim() != "args:");
    let header = lines.next().expect("an args: list");
    let indent = header.len() - header.trim_start().len();
    lines
        .take_while(|l| {
            let t = l.trim_start();
            t.starts_with("- ") && l.len() - t.len() >= indent
        })
        .map(|l| l.trim_start()[2..].trim().trim_matches('"').to_owned())
        .collect()
}

#[test]
fn the_batch_job_manifest_runs_with_this_binary() {
    let yaml = std::fs::read_to_string(repo().join("deploy/kubernetes/batch-job.yaml")).unwrap();
    let args = manifest_args(&yaml);
    assert_eq!(args.first().map(String::as_str), Some("batch"), "{args:?}");
    let completions = yaml
        .lines()
        .find_map(|l| l.trim().strip_prefix("completions:"))
        .map(|n| n.trim().to_owned())
        .expect("completions");
    assert!(
        args.iter().any(|a| a == &format!("$(SHARD)/{completions}")),
        "the shard count must be the Job's completions ({completions}): {args:?}"
    );
    // The share as the pod sees it, here: shard 0 of the Job's count.
    let dir = temp("job");
    let share = dir.join("share");
    std::fs::create_dir_all(share.join("queue")).unwrap();
    for i in 0..5 {
        std::fs::copy(
            repo()
                .join("fixtures/captures/fio-json/fio341_8k_randrw70_qd8_nj4_group_reporting.json"),
            share.join(format!("queue/t{i}.json")),
        )
        .unwrap();
    }
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("/share", share.to_str().unwrap()).replace("$(SHARD)", "0"))
        .collect();
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = advisor(&dir, &refs);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let index = json(&share.join("reports/shard-0/index.json"));
    // Shard 0 of 4 over 5 inputs: the first and the fifth.
    assert_eq!(index["analyzed"], 2, "{index}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `advisor serve` with a manifest's arguments (its tokens file made here), on a free
/// loopback port: the probe's answer and the answer to `GET /api/v1/rules` with `headers`.
fn serve_as_the_manifest_says(file: &str, headers: &str) -> (String, String) {
    let yaml = std::fs::read_to_string(repo().join("deploy/kubernetes").join(file)).unwrap();
    let args = manifest_args(&yaml);
    assert_eq!(args.first().map(String::as_str), Some("serve"), "{args:?}");
    let probe = yaml
        .lines()
        .find_map(|l| l.trim().strip_prefix("path:"))
        .map(|p| p.trim().to_owned())
        .expect("a probe path");
    let dir = temp(&format!("serve-{file}"));
    std::fs::create_dir_all(&dir).unwrap();
    let tokens = dir.join("tokens");
    let line = String::from_utf8(advisor(&dir, &["token", "new", "ci"]).stdout).unwrap();
    std::fs::write(&tokens, line.lines().nth(1).expect("the tokens line")).unwrap();
    // The manifest's flags, but on a free loopback port (start_serve sets --listen) and
    // with the Secret's file made here.
    let mut extra = Vec::new();
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        if a == "--listen" {
            assert_eq!(it.next().map(String::as_str), Some("0.0.0.0:8080"));
        } else if a == "--tokens" {
            assert_eq!(it.next().map(String::as_str), Some("/etc/advisor/tokens/tokens"));
            extra.extend(["--tokens", tokens.to_str().unwrap()]);
        } else {
            extra.push(a.as_str());
        }
    }
    let (mut child, addr, _log) = common::start_serve(&extra);
    let ask = |path: &str, headers: &str| {
        use std::io::{Read as _, Write as _};
        let mut s = std::net::TcpStream::connect(&addr).expect("connect");
        s.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
        s.write_all(
            format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}\r\n")
                .as_bytes(),
        )
        .unwrap();
        let mut raw = Vec::new();
        let _ = s.read_to_end(&mut raw);
        String::from_utf8_lossy(&raw).into_owned()
    };
    let answers = (ask(&probe, ""), ask("/api/v1/rules", headers));
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    answers
}

#[test]
fn the_serve_deployment_runs_with_this_binary_and_its_probe_answers() {
    // Tokens: the probe answers without one; the API does not.
    let (probe, api) = serve_as_the_manifest_says("deployment.yaml", "");
    assert!(probe.starts_with("HTTP/1.1 200"), "{probe}");
    assert!(api.starts_with("HTTP/1.1 401"), "{api}");
    // Behind oauth2-proxy on the pod's loopback: the user it names is believed from there.
    let (probe, api) =
        serve_as_the_manifest_says("oauth2-proxy.yaml", "X-Forwarded-Email: ana@example.com\r\n");
    assert!(probe.starts_with("HTTP/1.1 200"), "{probe}");
    assert!(api.starts_with("HTTP/1.1 200"), "{api}");
}
