//! A bounded soak of `advisor serve` under authentication: for a few minutes, clients on
//! loopback send a mix of good uploads (the DS13_v2 scenario), broken ones (a binary file,
//! a malformed form), oversized ones (over --max-upload), and requests without a token or
//! with a wrong one. Every answer must be the expected one (the report, or the problem
//! document with its code), no answer a 5xx, and the server's resident memory must not
//! grow from the first minute to the last. It prints its figures: requests by kind and
//! status, requests per second, and the resident memory over time.
//!
//! `cargo test -p advisor-cli --test it soak:: -- --ignored --nocapture` (ADVISOR_SOAK_SECS, 150 by default,
//! sets its length); `.ci/run` runs it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::{BOUNDARY, multipart, scenario};
use serde_json::Value;

/// Clients sending at once: twice the workers, so that requests queue.
const CLIENTS: usize = 4;
const WORKERS: &str = "2";
const MAX_UPLOAD: usize = 4 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Good,
    Binary,
    Malformed,
    Oversized,
    NoToken,
    WrongToken,
}

const KINDS: [Kind; 6] =
    [Kind::Good, Kind::Binary, Kind::Malformed, Kind::Oversized, Kind::NoToken, Kind::WrongToken];

impl Kind {
    /// The status and problem code the answer must have (no code: the report).
    fn expected(self) -> (u16, Option<&'static str>) {
        match self {
            Kind::Good => (200, None),
            Kind::Binary => (422, Some("unreadable-capture")),
            Kind::Malformed => (400, Some("bad-request")),
            Kind::Oversized => (413, Some("too-large")),
            Kind::NoToken | Kind::WrongToken => (401, Some("unauthorized")),
        }
    }
}

/// The request of a kind: head and body.
fn request(kind: Kind, addr: &str, token: &str) -> (String, Vec<u8>) {
    let (capture, topology) = scenario();
    let auth = match kind {
        Kind::NoToken => String::new(),
        Kind::WrongToken => "Authorization: Bearer adv_not-a-token\r\n".to_owned(),
        _ => format!("Authorization: Bearer {token}\r\n"),
    };
    let body = match kind {
        Kind::Good | Kind::NoToken | Kind::WrongToken => multipart(&[
            ("capture", "capture.csv", &capture),
            ("topology", "topology.toml", &topology),
        ]),
        Kind::Binary => {
            let junk: Vec<u8> = (0..=255u8).cycle().take(256 << 10).collect();
            multipart(&[("capture", "dump.bin", &junk)])
        }
        Kind::Malformed => format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"capture\"\r\n\r\nno end"
        )
        .into_bytes(),
        Kind::Oversized => vec![b'x'; MAX_UPLOAD + 1],
    };
    let head = format!(
        "POST /api/v1/analyze HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{auth}\
         Accept: application/json\r\nContent-Type: multipart/form-data; boundary={BOUNDARY}\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    (head, body)
}

/// Sends one request and checks its answer; the status, or what was wrong.
fn exchange(addr: &str, kind: Kind, head: &str, body: &[u8]) -> Result<u16, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(60))).unwrap();
    s.write_all(head.as_bytes()).map_err(|e| format!("head: {e}"))?;
    let mut w = s.try_clone().unwrap();
    let body = body.to_vec();
    // The server may answer (and close) before it has read the body: 401, 413.
    let writer = thread::spawn(move || {
        let _ = w.write_all(&body);
    });
    let mut raw = Vec::new();
    let read = s.read_to_end(&mut raw);
    writer.join().unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("{kind:?}: no answer ({read:?}, {} bytes)", raw.len()))?;
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let status: u16 = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = &raw[split + 4..];
    let (want, code) = kind.expected();
    if status != want {
        return Err(format!(
            "{kind:?}: {status} (wanted {want}): {}",
            String::from_utf8_lossy(body)
        ));
    }
    let doc: Value = serde_json::from_slice(body)
        .map_err(|e| format!("{kind:?}: the answer is not JSON ({e}): {head}"))?;
    match code {
        None if doc["schema"] == "advisor.report/v1" => Ok(status),
        None => Err(format!("{kind:?}: not a report: {doc}")),
        Some(c) if head.contains("content-type: application/problem+json") && doc["code"] == c => {
            Ok(status)
        }
        Some(c) => Err(format!("{kind:?}: not the problem `{c}`: {head}\n{doc}")),
    }
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
#[ignore = "a soak of a few minutes: .ci/run runs it with --ignored"]
fn a_soak_of_mixed_uploads_under_auth_keeps_memory_flat_and_answers_every_request() {
    let secs: u64 =
        std::env::var("ADVISOR_SOAK_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(150);
    let dir = std::env::temp_dir().join(format!("advisor-soak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = common::advisor(&dir, &["token", "new", "soak"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let token = lines.next().unwrap().to_owned();
    let tokens = dir.join("tokens");
    std::fs::write(&tokens, lines.next().unwrap()).unwrap();
    let max_upload = MAX_UPLOAD.to_string();
    let (mut child, addr, _log) = common::start_serve(&[
        "--tokens",
        tokens.to_str().unwrap(),
        "--audit",
        dir.join("audit.jsonl").to_str().unwrap(),
        "--workers",
        WORKERS,
        "--queue-wait",
        "60",
        "--max-upload",
        &max_upload,
    ]);
    let pid = child.id();
    let requests: Vec<(Kind, String, Vec<u8>)> = KINDS
        .iter()
        .map(|k| {
            let (h, b) = request(*k, &addr, &token);
            (*k, h, b)
        })
        .collect();
    let requests = Arc::new(requests);

    let stop = Arc::new(AtomicBool::new(false));
    let counts: Arc<Mutex<BTreeMap<(Kind, u16), u64>>> = Arc::default();
    let failures: Arc<Mutex<Vec<String>>> = Arc::default();
    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (addr, requests, stop) = (addr.clone(), requests.clone(), stop.clone());
            let (counts, failures) = (counts.clone(), failures.clone());
            thread::spawn(move || {
                let mut i = c;
                while !stop.load(Ordering::Relaxed) {
                    let (kind, head, body) = &requests[i % requests.len()];
                    i += 1;
                    match exchange(&addr, *kind, head, body) {
                        Ok(status) => {
                            *counts.lock().unwrap().entry((*kind, status)).or_default() += 1
                        }
                        Err(e) => failures.lock().unwrap().push(e),
                    }
                }
            })
        })
        .collect();

    // Resident memory every two seconds until the end.
    let mut rss: Vec<(f64, u64)> = Vec::new();
    let end = started + Duration::from_secs(secs);
    while Instant::now() < end {
        if let Some(kib) = rss_kib(pid) {
            rss.push((started.elapsed().as_secs_f64(), kib));
        }
        assert!(child.try_wait().unwrap().is_none(), "advisor serve exited during the soak");
        thread::sleep(Duration::from_secs(2));
    }
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.join().unwrap();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let _ = child.kill();
    let _ = child.wait();

    let counts = counts.lock().unwrap().clone();
    let failures = failures.lock().unwrap().clone();
    let total: u64 = counts.values().sum();
    println!(
        "soak: {total} requests in {elapsed:.0} s ({:.1}/s), {CLIENTS} clients, {WORKERS} workers",
        total as f64 / elapsed
    );
    for ((kind, status), n) in &counts {
        println!("  {kind:?}: {n} answered {status}");
    }
    let mib = |k: u64| k as f64 / 1024.0;
    let third = rss.len() / 3;
    let first = rss[..third.max(1)].iter().map(|r| r.1).max().unwrap_or(0);
    let last = rss[rss.len() - third.max(1)..].iter().map(|r| r.1).max().unwrap_or(0);
    let peak = rss.iter().map(|r| r.1).max().unwrap_or(0);
    println!(
        "  resident memory: {:.1} MiB at the start, peak {:.1} MiB in the first third, {:.1} MiB in the last third, {:.1} MiB overall",
        mib(rss.first().map_or(0, |r| r.1)),
        mib(first),
        mib(last),
        mib(peak)
    );
    let samples: Vec<String> = rss
        .iter()
        .step_by((rss.len() / 10).max(1))
        .map(|(t, k)| format!("{t:.0}s {:.0}", mib(*k)))
        .collect();
    println!("  resident memory over time (MiB): {}", samples.join(", "));

    assert!(
        failures.is_empty(),
        "{} wrong answers, e.g.: {:#?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    assert!(counts.keys().all(|(_, s)| *s < 500), "5xx answers: {counts:?}");
    for kind in KINDS {
        assert!(
            counts.keys().any(|(k, _)| *k == kind),
            "no {kind:?} request was answered: {counts:?}"
        );
    }
    // Flat: the last third's peak within a quarter (and 16 MiB) of the first third's.
    assert!(
        last as f64 <= first as f64 * 1.25 + 16.0 * 1024.0,
        "resident memory grew from {:.1} MiB to {:.1} MiB",
        mib(first),
        mib(last)
    );
    // Every request has its audit line.
    let audit = std::fs::read_to_string(dir.join("audit.jsonl")).unwrap();
    assert_eq!(audit.lines().count() as u64, total, "audit lines");
    let _ = std::fs::remove_dir_all(&dir);
}
