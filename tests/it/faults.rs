//! Service faults against the real `advisor serve` on a free loopback port: oversized and
//! endless bodies, slow-drip uploads, slowloris heads, malformed multipart, a hundred
//! uploads at once against one worker (with the server's memory before and after). Every
//! socket read and write has a timeout, every loop a bound, so a bug fails instead of
//! hanging CI. A panicking analysis is tested in crates/server/tests/it/socket.rs, where a test
//! can give the server a reader that panics.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::io::{Read as _, Write as _};
use std::net::{Shutdown, TcpStream};
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use common::{BOUNDARY, multipart, repo, scenario};
use serde_json::Value;

/// No single exchange takes longer than this; a read that waits longer fails the test.
const IO_TIMEOUT: Duration = Duration::from_secs(20);

/// A running `advisor serve`, killed when dropped.
struct Server {
    child: Child,
    addr: String,
    _log: mpsc::Receiver<String>,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        let (child, addr, log) = common::start_serve(extra);
        Server { child, addr, _log: log }
    }

    fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
        s
    }

    /// `head`, then `body` from another thread (the server may answer before it has read
    /// it all, and close), then the answer.
    fn exchange(&self, head: String, body: Vec<u8>) -> Result<Answer, String> {
        let mut s = self.connect();
        s.write_all(head.as_bytes()).map_err(|e| format!("writing the head: {e}"))?;
        let mut w = s.try_clone().unwrap();
        let writer = thread::spawn(move || {
            // A failed write is the server refusing the rest: the answer says why.
            let _ = w.write_all(&body);
        });
        let answer = read_answer(&mut s);
        writer.join().unwrap();
        answer
    }

    fn get(&self, path: &str) -> Answer {
        let head =
            format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", self.addr);
        self.exchange(head, Vec::new()).unwrap_or_else(|e| panic!("GET {path}: {e}"))
    }

    /// A POST of `body` to the analysis with these extra header lines.
    fn post(&self, headers: &str, body: Vec<u8>) -> Result<Answer, String> {
        self.exchange(post_head(&self.addr, headers), body)
    }

    /// The DS13_v2 scenario's capture and topology, as a well-formed upload.
    fn upload(&self) -> Result<Answer, String> {
        let body = scenario_form();
        self.post(&form_headers(body.len()), body)
    }

    fn healthy(&self) {
        let a = self.get("/healthz");
        assert_eq!((a.status, a.text().as_str()), (200, "ok\n"), "healthz");
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn post_head(addr: &str, headers: &str) -> String {
    format!(
        "POST /api/v1/analyze HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Accept: application/json\r\n{headers}\r\n"
    )
}

fn form_headers(len: usize) -> String {
    format!("Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: {len}\r\n")
}

/// A response: status, head in lower case, body.
#[derive(Debug)]
struct Answer {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Answer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim())
        })
    }

    /// Asserts an RFC 9457 problem document with this status (and `code`); returns it.
    fn problem(&self, status: u16, code: &str) -> Value {
        assert_eq!(self.status, status, "{}", self.text());
        assert_eq!(self.header("content-type"), Some("application/problem+json"), "{self:?}");
        let p: Value = serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not a problem document ({e}): {}", self.text()));
        assert_eq!(p["status"], status);
        assert_eq!(p["code"], code, "{p}");
        assert!(p["detail"].as_str().is_some_and(|d| !d.is_empty()), "{p}");
        p
    }
}

/// Reads until the server closes (every request says `Connection: close`), then parses.
/// What arrived before a reset still counts: a server refusing a body may reset the
/// connection right after its answer.
fn read_answer(s: &mut TcpStream) -> Result<Answer, String> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(format!("no answer within {IO_TIMEOUT:?} (got {} bytes)", raw.len()));
            }
            Err(e) if raw.is_empty() => return Err(format!("reading the answer: {e}")),
            Err(_) => break,
        }
    }
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(|| {
        format!("no complete response head in {:?}", String::from_utf8_lossy(&raw))
    })?;
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status in {head:?}"))?;
    Ok(Answer { status, head, body: raw[split + 4..].to_vec() })
}

/// The scenario as a form: 62 KB.
fn scenario_form() -> Vec<u8> {
    let (capture, topology) = scenario();
    multipart(&[("capture", "capture.csv", &capture), ("topology", "topology.toml", &topology)])
}

/// `VmRSS` and `VmHWM` of a process, in KiB (Linux only).
fn memory_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

fn mib(kib: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let m = kib as f64 / 1024.0;
    format!("{m:.1} MiB")
}

#[test]
fn oversized_bodies_are_413_and_the_server_goes_on() {
    let server = Server::start(&["--max-upload", "64KiB"]);

    // Declared over the limit: 413 at once, only a few bytes of the 700 MB sent.
    let started = Instant::now();
    let a = server
        .post(&form_headers(700 * 1000 * 1000), format!("--{BOUNDARY}\r\n").into_bytes())
        .unwrap();
    let p = a.problem(413, "too-large");
    assert!(p["detail"].as_str().unwrap().contains("64 KiB"), "{p}");
    assert_eq!(a.header("connection"), Some("close"));
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());

    // Declared one byte over, and all of it sent: still 413, still not read.
    let mut body = scenario_form();
    body.resize(64 * 1024 + 1, b'x');
    server.post(&form_headers(body.len()), body).unwrap().problem(413, "too-large");

    // No Content-Length: a chunked capture that grows to 8 x the limit is cut off at it.
    let mut chunked = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"capture\"; filename=\"big.csv\"\r\n\r\n"
    )
    .into_bytes();
    let chunk = vec![b'7'; 8 * 1024];
    let mut stream = Vec::new();
    stream.extend_from_slice(format!("{:x}\r\n", chunked.len()).as_bytes());
    stream.append(&mut chunked);
    stream.extend_from_slice(b"\r\n");
    for _ in 0..64 {
        stream.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        stream.extend_from_slice(&chunk);
        stream.extend_from_slice(b"\r\n");
    }
    stream.extend_from_slice(b"0\r\n\r\n");
    let headers = format!(
        "Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nTransfer-Encoding: chunked\r\n"
    );
    let started = Instant::now();
    let a = server.post(&headers, stream).unwrap();
    a.problem(413, "too-large");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());

    // The server goes on: a form under the limit is analysed.
    server.healthy();
    let a = server.upload().unwrap();
    assert_eq!(a.status, 200, "{}", a.text());
}

#[test]
fn a_slow_drip_upload_gets_408_within_the_timeout_and_frees_its_slot() {
    // Two slots, no queueing: an upload afterwards only gets in if both were freed.
    let server = Server::start(&["--timeout", "2", "--workers", "2", "--queue-wait", "0"]);
    let body = scenario_form();
    let half = body.len() / 2;

    // One client trickles a byte a second after half the form; the other stops there.
    let drips: Vec<_> = [true, false]
        .into_iter()
        .map(|trickle| {
            let mut s = server.connect();
            let head = post_head(&server.addr, &form_headers(body.len()));
            s.write_all(head.as_bytes()).unwrap();
            s.write_all(&body[..half]).unwrap();
            let rest = body[half..].to_vec();
            let done = Arc::new(AtomicBool::new(false));
            let writer = trickle.then(|| {
                let mut w = s.try_clone().unwrap();
                let done = done.clone();
                thread::spawn(move || {
                    for b in rest.iter().take(30) {
                        thread::sleep(Duration::from_secs(1));
                        if done.load(Ordering::Relaxed) || w.write_all(&[*b]).is_err() {
                            break;
                        }
                    }
                })
            });
            let started = Instant::now();
            thread::spawn(move || {
                let a = read_answer(&mut s);
                let took = started.elapsed();
                done.store(true, Ordering::Relaxed);
                if let Some(w) = writer {
                    w.join().unwrap();
                }
                (trickle, a, took)
            })
        })
        .collect();
    for d in drips {
        let (trickle, a, took) = d.join().unwrap();
        let a = a.unwrap_or_else(|e| panic!("trickle {trickle}: {e}"));
        let p = a.problem(408, "upload-timeout");
        assert!(p["detail"].as_str().unwrap().contains("2 s"), "{p}");
        assert_eq!(a.header("connection"), Some("close"));
        eprintln!("slow drip (trickling: {trickle}): 408 after {took:?}");
        assert!(took >= Duration::from_millis(1500), "408 too early: {took:?}");
        assert!(took < Duration::from_secs(6), "408 too late: {took:?}");
    }

    // Both slots are free again: two uploads at once are both analysed.
    let uploads: Vec<_> = (0..2)
        .map(|_| {
            let body = body.clone();
            let (addr, head) = (server.addr.clone(), form_headers(body.len()));
            thread::spawn(move || {
                let mut s = TcpStream::connect(&addr).unwrap();
                s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
                s.write_all(post_head(&addr, &head).as_bytes()).unwrap();
                s.write_all(&body).unwrap();
                read_answer(&mut s)
            })
        })
        .collect();
    for u in uploads {
        let a = u.join().unwrap().unwrap();
        assert_eq!(a.status, 200, "{}", a.text());
    }
    server.healthy();
}

#[test]
fn a_slowloris_head_is_cut_off_and_other_clients_are_served() {
    let server = Server::start(&["--header-timeout", "1"]);

    // Eight connections that never finish their head: half trickle a header byte every
    // 200 ms (which must not keep them open), half send part of a line and stop. And one
    // that connects and says nothing.
    let mut lorises = Vec::new();
    for i in 0..9 {
        let mut s = server.connect();
        let started = Instant::now();
        if i < 8 {
            s.write_all(b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nX-Slow: ").unwrap();
        }
        let trickle = i % 2 == 0 && i < 8;
        lorises.push(thread::spawn(move || {
            let mut w = s.try_clone().unwrap();
            let writer = trickle.then(|| {
                thread::spawn(move || {
                    for _ in 0..100 {
                        thread::sleep(Duration::from_millis(200));
                        if w.write_all(b"a").is_err() {
                            break;
                        }
                    }
                })
            });
            // The server closes: EOF (or a reset, or a 408 when a server sends one).
            let mut got = Vec::new();
            let end = s.read_to_end(&mut got);
            let took = started.elapsed();
            let _ = s.shutdown(Shutdown::Both);
            if let Some(w) = writer {
                w.join().unwrap();
            }
            (i, end.map_err(|e| e.kind()), got, took)
        }));
    }

    // Meanwhile, others are served.
    thread::sleep(Duration::from_millis(300));
    server.healthy();
    let a = server.upload().unwrap();
    assert_eq!(a.status, 200, "{}", a.text());

    for l in lorises {
        let (i, end, got, took) = l.join().unwrap();
        assert!(
            !matches!(end, Err(std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)),
            "connection {i} was not closed within {IO_TIMEOUT:?}"
        );
        let text = String::from_utf8_lossy(&got);
        assert!(got.is_empty() || text.starts_with("HTTP/1.1 408"), "connection {i}: {text}");
        assert!(took < Duration::from_secs(4), "connection {i} closed after {took:?}");
        if i == 0 {
            eprintln!("slowloris: closed after {took:?} ({end:?})");
        }
    }
    server.healthy();
}

#[test]
fn malformed_multipart_is_a_4xx_problem_never_a_500_or_a_hang() {
    let server = Server::start(&[]);
    let (capture, topology) = scenario();
    let form = |parts: &[(&str, &str, &[u8])]| multipart(parts);
    let with_type =
        |ct: &str, body: &[u8]| format!("Content-Type: {ct}\r\nContent-Length: {}\r\n", body.len());
    let good = form(&[("capture", "capture.csv", &capture)]);

    let mut cases: Vec<(&str, String, Vec<u8>, u16, &str)> = Vec::new();
    cases.push((
        "no boundary",
        with_type("multipart/form-data", &good),
        good.clone(),
        400,
        "boundary",
    ));
    cases.push((
        "the wrong boundary",
        with_type("multipart/form-data; boundary=not-the-one-used", &good),
        good.clone(),
        400,
        "multipart",
    ));
    let mut truncated = good.clone();
    truncated.truncate(good.len() - "--\r\n".len());
    cases.push(("no final boundary", form_headers(truncated.len()), truncated, 400, "multipart"));
    let mut half = good.clone();
    half.truncate(good.len() / 2);
    cases.push(("the form cut in the middle", form_headers(half.len()), half, 400, "multipart"));
    let nameless = format!(
        "--{BOUNDARY}\r\nContent-Type: text/csv\r\n\r\n{}\r\n--{BOUNDARY}--\r\n",
        String::from_utf8_lossy(&capture)
    )
    .into_bytes();
    cases.push((
        "a part without Content-Disposition",
        form_headers(nameless.len()),
        nameless,
        400,
        "Content-Disposition",
    ));
    let garbled = format!("--{BOUNDARY}\r\nthis is no header line\r\n\r\nx\r\n--{BOUNDARY}--\r\n")
        .into_bytes();
    cases.push(("a garbled part head", form_headers(garbled.len()), garbled, 400, "multipart"));
    let no_capture = form(&[("vm", "", b"Standard_DS13_v2")]);
    cases.push(("no capture part", form_headers(no_capture.len()), no_capture, 400, "no capture"));
    cases.push(("an empty body", form_headers(0), Vec::new(), 400, "multipart"));
    cases.push((
        "a CSV, not a form",
        with_type("text/csv", &capture),
        capture.clone(),
        400,
        "multipart/form-data",
    ));
    cases.push((
        "no Content-Type",
        format!("Content-Length: {}\r\n", good.len()),
        good.clone(),
        400,
        "multipart/form-data",
    ));
    cases.push((
        "JSON",
        with_type("application/json", b"{}"),
        b"{}".to_vec(),
        400,
        "multipart/form-data",
    ));

    for (what, headers, body, status, says) in cases {
        let started = Instant::now();
        let a = server.post(&headers, body).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_ne!(a.status, 500, "{what}: {}", a.text());
        let p = a.problem(status, "bad-request");
        let detail = p["detail"].as_str().unwrap();
        eprintln!("{what}: {status} {detail}");
        assert!(detail.contains(says), "{what}: {says:?} not in {detail:?}");
        assert!(started.elapsed() < Duration::from_secs(10), "{what}: {:?}", started.elapsed());
    }

    // Several topology parts are merged; an `az` error answer among them is refused by name
    // as a bad topology (422), not as a malformed form.
    let az_error =
        std::fs::read(repo().join("fixtures/topologies/documents/invalid/az-error.json"))
            .unwrap_or_default();
    let two_topologies = form(&[
        ("capture", "capture.csv", &capture),
        ("topology", "a.toml", &topology),
        ("topology", "az-vm.json", &az_error),
    ]);
    let a = server.post(&form_headers(two_topologies.len()), two_topologies).unwrap();
    let p = a.problem(422, "bad-topology");
    let detail = p["detail"].as_str().unwrap_or_default();
    assert!(
        detail.starts_with("az-vm.json:2:12: at $.error: the document is an error answer"),
        "{detail}"
    );

    // A body cut short: the client sends half of what it declared and stops sending.
    let mut s = server.connect();
    let head = post_head(&server.addr, &form_headers(good.len()));
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(&good[..good.len() / 2]).unwrap();
    s.shutdown(Shutdown::Write).unwrap();
    let a = read_answer(&mut s).unwrap();
    a.problem(400, "bad-request");

    // A broken chunked encoding: hyper cannot read the body; still a 400, not a 500.
    let headers = format!(
        "Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nTransfer-Encoding: chunked\r\n"
    );
    match server.post(&headers, b"zz\r\nnot a chunk\r\n".to_vec()) {
        Ok(a) => assert!((400..500).contains(&a.status), "broken chunks: {a:?}"),
        Err(e) => panic!("broken chunks: {e}"),
    }

    // Two captures are not an error: both are analysed.
    let two = form(&[("capture", "a.csv", &capture), ("capture", "b.csv", &capture)]);
    let a = server.post(&form_headers(two.len()), two).unwrap();
    assert_eq!(a.status, 200, "{}", a.text());
    server.healthy();
}

/// The burst's form: the scenario's capture 32 times over (2 MB), and its topology.
fn burst_form() -> Vec<u8> {
    let (capture, topology) = scenario();
    let names: Vec<String> = (1..=32).map(|i| format!("c{i:02}.csv")).collect();
    let mut parts: Vec<(&str, &str, &[u8])> =
        names.iter().map(|n| ("capture", n.as_str(), capture.as_slice())).collect();
    parts.push(("topology", "topology.toml", &topology));
    multipart(&parts)
}

#[test]
fn a_hundred_uploads_at_once_get_200_or_503_and_memory_stays_bounded() {
    const CLIENTS: usize = 100;
    // Uploads are read whole before they wait for the worker, within a 64 MiB budget.
    let server =
        Server::start(&["--workers", "1", "--queue-wait", "1", "--memory-budget", "64MiB"]);
    server.healthy();
    let idle = memory_kib(server.pid());
    let body = Arc::new(burst_form());
    let one = server.post(&form_headers(body.len()), body.to_vec()).unwrap();
    assert_eq!(one.status, 200, "{}", one.text());
    let warm = memory_kib(server.pid());

    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let body = body.clone();
            let addr = server.addr.clone();
            thread::spawn(move || -> Result<(u16, Option<String>), String> {
                let mut s = TcpStream::connect(&addr).map_err(|e| format!("connect: {e}"))?;
                s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
                s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
                let head = post_head(&addr, &form_headers(body.len()));
                s.write_all(head.as_bytes()).map_err(|e| format!("head: {e}"))?;
                s.write_all(&body).map_err(|e| format!("body: {e}"))?;
                let a = read_answer(&mut s)?;
                Ok((a.status, a.header("retry-after").map(str::to_owned)))
            })
        })
        .collect();
    let answers: Vec<_> = clients.into_iter().map(|c| c.join().unwrap()).collect();
    let took = started.elapsed();
    let after = memory_kib(server.pid());

    let mut ok = 0;
    let mut busy = 0;
    for a in &answers {
        match a {
            Ok((200, _)) => ok += 1,
            Ok((503, retry)) => {
                // Busy (the queue wait, 1 s) or over the memory budget (30 s).
                assert!(matches!(retry.as_deref(), Some("1" | "30")), "Retry-After {retry:?}");
                busy += 1;
            }
            other => panic!("an upload got {other:?}; every answer: {answers:?}"),
        }
    }
    eprintln!(
        "{CLIENTS} uploads of {} at once, 1 worker, 1 s queue wait: {ok} x 200, {busy} x 503 \
         in {took:?}",
        mib(body.len() as u64 / 1024)
    );
    assert!(ok >= 1 && busy >= 1, "{ok} x 200, {busy} x 503");
    server.healthy();
    let a = server.upload().unwrap();
    assert_eq!(a.status, 200, "after the burst: {}", a.text());

    match (idle, warm, after) {
        (Some((idle_rss, idle_hwm)), Some((warm_rss, warm_hwm)), Some((rss, hwm))) => {
            eprintln!(
                "server memory: idle RSS {} (peak {}); after one analysis RSS {} (peak {}); \
                 after {CLIENTS} uploads at once RSS {} (peak {})",
                mib(idle_rss),
                mib(idle_hwm),
                mib(warm_rss),
                mib(warm_hwm),
                mib(rss),
                mib(hwm)
            );
            // 100 x 2 MB arrive at once: a server without a budget that kept the waiting
            // uploads peaked 330 MiB higher. What the requests hold is charged to the 64 MiB
            // budget before it is allocated (a request that does not fit gets 503), so the
            // peak stays within the budget and a margin (hyper's buffers, the analysis).
            assert!(hwm < 400 * 1024, "peak RSS {} over 400 MiB", mib(hwm));
            assert!(
                hwm < warm_hwm + (64 + 64) * 1024,
                "the peak grew by {} with {CLIENTS} uploads at once",
                mib(hwm - warm_hwm)
            );
        }
        _ => eprintln!("no /proc/PID/status here: memory not measured"),
    }
}

#[test]
fn zip_bombs_and_traversal_archives_are_refused_in_memory_and_the_server_goes_on() {
    let server = Server::start(&["--workers", "2", "--queue-wait", "30"]);
    let invalid = common::repo().join("fixtures/invalid");
    let bomb = std::fs::read(invalid.join("bundle-zip-bomb.zip")).unwrap();
    let traversal = std::fs::read(invalid.join("bundle-traversal.tar.gz")).unwrap();
    let before = memory_kib(server.pid());

    // Eight bombs at once (24 KiB each on the wire, 24 MiB each inflated if nothing
    // stopped them), and a traversal path: each refused with the entry named.
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let addr = server.addr.clone();
            let (name, bytes) =
                if i == 7 { ("t.tar.gz", traversal.clone()) } else { ("bomb.zip", bomb.clone()) };
            thread::spawn(move || {
                let body = multipart(&[("capture", name, &bytes)]);
                let mut s = TcpStream::connect(&addr).expect("connect");
                s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
                s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
                let head = post_head(&addr, &form_headers(body.len()));
                s.write_all(head.as_bytes()).unwrap();
                s.write_all(&body).unwrap();
                let a = read_answer(&mut s).expect("an answer");
                let p = a.problem(422, "unreadable-capture");
                let detail = p["detail"].as_str().unwrap().to_owned();
                (name, detail)
            })
        })
        .collect();
    for h in handles {
        let (name, detail) = h.join().unwrap();
        let says = if name == "bomb.zip" {
            "bomb.zip: entry `perfmon.csv`: the archive unpacks to more than 200 times its size"
        } else {
            "t.tar.gz: entry `../../etc/cron.d/x`: a `..` component"
        };
        assert!(detail.starts_with(says), "{detail}");
    }
    server.healthy();
    let a = server.upload().expect("a good upload after the bombs");
    assert_eq!(a.status, 200, "{}", a.text());
    // Nothing was inflated past the ratio's floor (16 MiB) per archive: the peak stays far
    // below eight inflated bombs.
    if let (Some((_, hwm_before)), Some((_, hwm_after))) = (before, memory_kib(server.pid())) {
        let grown = hwm_after.saturating_sub(hwm_before);
        assert!(grown < 8 * 24 * 1024, "peak memory grew by {}", mib(grown));
        eprintln!("zip bombs: peak memory grew by {}", mib(grown));
    }
}

/// A PerfMon capture of `disks` PhysicalDisk instances (four counters each) and `rows`
/// one-second samples, in the 16-bit-free ASCII PerfMon writes: long enough to analyse
/// that a request's deadline passes while it runs.
fn long_capture(disks: usize, rows: usize) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut s = String::from("\"(PDH-CSV 4.0) (GMT Standard Time)(0)\"");
    for d in 0..disks {
        for c in ["Disk Reads/sec", "Disk Writes/sec", "Avg. Disk sec/Read", "Avg. Disk sec/Write"]
        {
            write!(s, ",\"\\\\VM\\PhysicalDisk({d} X{d}:)\\{c}\"").unwrap();
        }
    }
    s.push('\n');
    for r in 0..rows {
        write!(s, "\"07/01/2024 {:02}:{:02}:{:02}.000\"", r / 3600, r / 60 % 60, r % 60).unwrap();
        for d in 0..disks {
            let x = (r * 7 + d * 13) % 500;
            write!(
                s,
                ",\"{}\",\"{}\",\"0.00{}\",\"0.00{}\"",
                100 + x,
                50 + x,
                1 + x % 9,
                2 + x % 7
            )
            .unwrap();
        }
        s.push('\n');
    }
    s.into_bytes()
}

/// A form of two long captures: several seconds of analysis in a debug build.
fn long_form() -> Vec<u8> {
    let c = long_capture(64, 20_000);
    multipart(&[("capture", "a.csv", &c), ("capture", "b.csv", &c)])
}

impl Server {
    /// Waits until `/readyz` answers `status` (at most `within`).
    fn await_ready(&self, status: u16, within: Duration) -> Duration {
        let started = Instant::now();
        loop {
            if self.get("/readyz").status == status {
                return started.elapsed();
            }
            assert!(started.elapsed() < within, "/readyz never said {status} within {within:?}");
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Posts `body` from another thread; the answer and how long it took.
    fn post_in_background(
        &self,
        body: Vec<u8>,
    ) -> thread::JoinHandle<(Result<Answer, String>, Duration)> {
        let addr = self.addr.clone();
        thread::spawn(move || {
            let started = Instant::now();
            let mut s = TcpStream::connect(&addr).expect("connect");
            s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
            s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
            s.write_all(post_head(&addr, &form_headers(body.len())).as_bytes()).unwrap();
            // A server that refuses the upload may answer and close before the body is all
            // sent (a slow client on a loaded machine): the write then fails with a broken
            // pipe, and the answer is still there to read, as a browser or curl reads it.
            if let Err(e) = s.write_all(&body) {
                assert!(
                    matches!(
                        e.kind(),
                        std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
                    ),
                    "sending the body: {e}"
                );
            }
            (read_answer(&mut s), started.elapsed())
        })
    }
}

#[test]
fn an_analysis_past_its_deadline_is_cancelled_and_frees_its_slot_and_readyz_says_so() {
    let server = Server::start(&["--workers", "1", "--timeout", "2", "--queue-wait", "10"]);
    assert_eq!(server.get("/readyz").status, 200, "a free slot: ready");
    let long = server.post_in_background(long_form());
    // While it runs, the only slot is taken: not ready, yet alive.
    server.await_ready(503, Duration::from_secs(10));
    server.healthy();
    let (a, took) = long.join().unwrap();
    let a = a.unwrap();
    a.problem(503, "analysis-timeout");
    eprintln!("a long analysis with --timeout 2: 503 after {took:?}");
    // The analysis stops at its next checkpoint: the slot is back within a second or so.
    let back = server.await_ready(200, Duration::from_secs(5));
    eprintln!("its slot came back {back:?} after the 503");
    let a = server.upload().unwrap();
    assert_eq!(a.status, 200, "{}", a.text());
}

#[test]
fn sigterm_during_a_long_analysis_exits_within_the_grace_period() {
    let mut server = Server::start(&["--workers", "1", "--timeout", "3"]);
    let long = server.post_in_background(long_form());
    server.await_ready(503, Duration::from_secs(10));
    let sent = Instant::now();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = loop {
        if let Some(s) = server.child.try_wait().unwrap() {
            break s;
        }
        assert!(sent.elapsed() < Duration::from_secs(15), "still running 15 s after SIGTERM");
        thread::sleep(Duration::from_millis(50));
    };
    let took = sent.elapsed();
    eprintln!("SIGTERM during a long analysis (--timeout 3): exited {status} after {took:?}");
    assert!(status.success(), "{status}");
    assert!(took < Duration::from_secs(3 + 5), "{took:?}");
    // The request in flight got an answer or its connection closed; never a hang.
    let _ = long.join().unwrap();
}

#[test]
fn slow_senders_hold_no_slot_and_get_408_at_the_body_timeout() {
    let server = Server::start(&[
        "--workers",
        "1",
        "--queue-wait",
        "2",
        "--body-timeout",
        "4",
        "--timeout",
        "60",
    ]);
    let body = scenario_form();
    let half = body.len() / 2;
    // Two clients send half their upload, then a byte a second.
    let drips: Vec<_> = (0..2)
        .map(|_| {
            let mut s = server.connect();
            s.write_all(post_head(&server.addr, &form_headers(body.len())).as_bytes()).unwrap();
            s.write_all(&body[..half]).unwrap();
            let mut w = s.try_clone().unwrap();
            let rest = body[half..].to_vec();
            let writer = thread::spawn(move || {
                for b in rest.iter().take(20) {
                    thread::sleep(Duration::from_secs(1));
                    if w.write_all(&[*b]).is_err() {
                        break;
                    }
                }
            });
            let started = Instant::now();
            thread::spawn(move || {
                let a = read_answer(&mut s);
                let took = started.elapsed();
                let _ = s.shutdown(Shutdown::Both);
                writer.join().unwrap();
                (a, took)
            })
        })
        .collect();
    thread::sleep(Duration::from_millis(500));
    // A valid upload is not delayed by them: the slot is free.
    let started = Instant::now();
    let a = server.upload().unwrap();
    let took = started.elapsed();
    assert_eq!(a.status, 200, "{}", a.text());
    eprintln!("a valid upload beside two 1-byte/s senders: 200 after {took:?}");
    assert!(took < Duration::from_secs(2), "delayed past --queue-wait: {took:?}");
    for d in drips {
        let (a, took) = d.join().unwrap();
        let p = a.unwrap().problem(408, "upload-timeout");
        assert!(p["detail"].as_str().unwrap().contains("4 s"), "{p}");
        eprintln!("a 1-byte/s sender: 408 after {took:?}");
        assert!(took < Duration::from_secs(8), "{took:?}");
    }
}

#[test]
fn a_16000_member_pool_is_refused_at_once_naming_the_limit() {
    let server = Server::start(&["--workers", "1", "--timeout", "10"]);
    let mut topology = String::from("[vm]\nsize = \"Standard_D16s_v5\"\n");
    let names: Vec<String> = (0..16_000).map(|i| format!("\"disk{i}\"")).collect();
    topology.push_str(&format!("[[pool]]\nname = \"F:\"\ndisks = [{}]\n", names.join(",")));
    let (capture, _) = scenario();
    let body =
        multipart(&[("capture", "c.csv", &capture), ("topology", "t.toml", topology.as_bytes())]);
    let started = Instant::now();
    let a = server.post(&form_headers(body.len()), body).unwrap();
    let took = started.elapsed();
    let p = a.problem(413, "over-limit");
    let detail = p["detail"].as_str().unwrap();
    assert!(detail.contains("16000 pool members") && detail.contains("1024"), "{detail}");
    eprintln!("a 16,000-member pool: 413 after {took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    let a = server.upload().unwrap();
    assert_eq!(a.status, 200, "{}", a.text());
}

#[test]
fn names_are_echoed_at_most_255_characters_and_html_is_escaped_in_markdown() {
    let server = Server::start(&["--workers", "1"]);
    let (capture, topology) = scenario();
    let long = "n".repeat(1 << 20);
    // A good capture with a 1 MiB name: the report names it by 254 characters and `…`.
    let body = multipart(&[("capture", &long, &capture), ("topology", "t.toml", &topology)]);
    let head = post_head(&server.addr, &form_headers(body.len()))
        .replace("Accept: application/json", "Accept: text/markdown");
    let a = server.exchange(head, body).unwrap();
    assert_eq!(a.status, 200, "{}", a.text());
    let md = a.text();
    assert!(md.len() < 256 * 1024, "{} bytes of Markdown", md.len());
    assert!(md.contains(&format!("{}…", "n".repeat(254))), "the bounded name is shown");
    assert!(!md.contains(&"n".repeat(255)), "never more than 254 of the name's characters");
    // A broken capture with a 1 MiB name: a short problem document.
    let body = multipart(&[("capture", &long, b"not a capture at all\n")]);
    let a = server.post(&form_headers(body.len()), body).unwrap();
    let p = a.problem(422, "unreadable-capture");
    assert!(a.body.len() < 4096, "{} bytes of problem document", a.body.len());
    assert!(p["detail"].as_str().unwrap().contains("…"), "{p}");
    // HTML in a topology's names is escaped in Markdown.
    let evil = String::from_utf8(topology.clone()).unwrap().replacen(
        "[vm]",
        "[[pool]]\nname = \"<img src=x onerror=alert(1)>\"\ndisks = [\"<b>x</b>\"]\n\n[vm]",
        1,
    );
    let body =
        multipart(&[("capture", "c.csv", &capture), ("topology", "t.toml", evil.as_bytes())]);
    let head = post_head(&server.addr, &form_headers(body.len()))
        .replace("Accept: application/json", "Accept: text/markdown");
    let a = server.exchange(head, body).unwrap();
    assert_eq!(a.status, 200, "{}", a.text());
    let md = a.text();
    assert!(md.contains("\\<img src=x onerror=alert(1)>"), "{md}");
    assert!(!md.contains("`<img") && !md.contains(" <img") && !md.contains("\"<img"), "{md}");
}

#[test]
fn an_absurd_cap_is_refused_naming_the_field() {
    let server = Server::start(&["--workers", "1"]);
    let (capture, _) = scenario();
    for (field, value) in [("iops", "5e-324"), ("mbps", "0.0000001"), ("iops", "0")] {
        let topology = format!(
            "[vm]\nsize = \"Standard_DS13_v2\"\n[[disk]]\nname = \"E:\"\nsku = \"P30\"\n{field} = {value}\n"
        );
        let body = multipart(&[
            ("capture", "c.csv", &capture),
            ("topology", "t.toml", topology.as_bytes()),
        ]);
        let a = server.post(&form_headers(body.len()), body).unwrap();
        let p = a.problem(422, "bad-topology");
        let detail = p["detail"].as_str().unwrap();
        assert!(detail.contains(&format!("`{field}`")) && detail.contains("least"), "{detail}");
    }
}

#[test]
fn uploads_over_the_memory_budget_are_refused_and_the_peak_stays_within_it() {
    // Two uploads of 10 MB at once against a 16 MiB budget: each alone needs more (the body
    // and the form's copy), so both are refused before they are analysed, and the server's
    // peak grows by no more than the budget and a margin.
    let server = Server::start(&["--workers", "2", "--memory-budget", "16MiB"]);
    server.upload().unwrap();
    let before = memory_kib(server.pid());
    let c = long_capture(32, 11_000);
    let body = multipart(&[("capture", "big.csv", &c)]);
    assert!(body.len() > 9 << 20, "{} bytes", body.len());
    let posts: Vec<_> = (0..2).map(|_| server.post_in_background(body.clone())).collect();
    for p in posts {
        let (a, _) = p.join().unwrap();
        let a = a.unwrap();
        let problem = a.problem(a.status, "over-memory-budget");
        assert!(matches!(a.status, 413 | 503), "{problem}");
    }
    let a = server.upload().unwrap();
    assert_eq!(a.status, 200, "a small upload after: {}", a.text());
    if let (Some((_, hwm_before)), Some((_, hwm_after))) = (before, memory_kib(server.pid())) {
        let grown = hwm_after.saturating_sub(hwm_before);
        eprintln!("two 10 MB uploads over a 16 MiB budget: peak grew by {}", mib(grown));
        assert!(grown < (16 + 32) * 1024, "peak memory grew by {}", mib(grown));
    }
}
