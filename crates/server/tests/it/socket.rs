//! The real server stack, [`advisor_server::serve`] on a loopback socket as `advisor serve`
//! runs it, spoken to over plain HTTP/1.1: a panicking analysis (the test's capture reader
//! panics on request, through [`AppState::with_reader`]) is answered 500 and the server goes
//! on; keep-alive works; shutdown finishes the request in flight. Every read has a timeout.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use advisor_server::{AppState, Config};
use serde_json::Value;

const BOUNDARY: &str = "advisor-socket-boundary-3c9e";
const IO_TIMEOUT: Duration = Duration::from_secs(20);

/// `advisor_server::serve` on its own runtime and thread; stops when `stop` is sent.
struct Running {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: mpsc::Receiver<std::io::Result<()>>,
}

impl Running {
    fn start(state: AppState) -> Running {
        let (addr_tx, addr_rx) = mpsc::channel();
        let (done_tx, done) = mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            let r = rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                addr_tx.send(listener.local_addr()?).unwrap();
                advisor_server::serve(listener, state, async move {
                    let _ = stopped.await;
                })
                .await
            });
            let _ = done_tx.send(r);
        });
        let addr = addr_rx.recv_timeout(Duration::from_secs(30)).expect("the server's address");
        Running { addr, stop: Some(stop), done }
    }

    fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(self.addr).unwrap();
        s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
        s
    }

    fn exchange(&self, raw: &[u8]) -> Vec<u8> {
        let mut s = self.connect();
        s.write_all(raw).unwrap();
        read_all(&mut s)
    }

    fn get(&self, path: &str) -> (u16, String, String) {
        let raw =
            format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", self.addr);
        parse(&self.exchange(raw.as_bytes()))
    }

    fn analyze(&self, file: &str) -> (u16, String, String) {
        parse(&self.exchange(&post(self.addr, file)))
    }

    /// Sends the shutdown signal.
    fn signal(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }

    /// Waits for `serve` to return, after the signal.
    fn wait(&self) -> std::io::Result<()> {
        self.done.recv_timeout(Duration::from_secs(30)).expect("serve returned after shutdown")
    }

    fn stop(mut self) -> std::io::Result<()> {
        self.signal();
        self.wait()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.signal();
    }
}

fn read_all(s: &mut TcpStream) -> Vec<u8> {
    let mut raw = Vec::new();
    if let Err(e) = s.read_to_end(&mut raw) {
        assert!(
            !matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut),
            "no answer within {IO_TIMEOUT:?}"
        );
    }
    raw
}

/// (status, head in lower case, body)
fn parse(raw: &[u8]) -> (u16, String, String) {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no head: {text:?}"));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("status");
    (status, head.to_ascii_lowercase(), body.to_owned())
}

fn capture() -> Vec<u8> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30");
    std::fs::read(dir.join("capture.csv")).unwrap()
}

/// A whole request: one capture named `file`.
fn post(addr: SocketAddr, file: &str) -> Vec<u8> {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"capture\"; filename=\"{file}\"\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(&capture());
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    let mut raw = format!(
        "POST /api/v1/analyze HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Accept: application/json\r\nContent-Type: multipart/form-data; boundary={BOUNDARY}\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    raw.append(&mut body);
    raw
}

/// Reads captures as the server does, except that a file named `panic*` panics.
fn panicking_reader(
    name: &str,
    bytes: &[u8],
) -> Result<advisor_engine::Capture, advisor_engine::IngestError> {
    if name.starts_with("panic") {
        panic!("the test's reader panics on {name}");
    }
    advisor_engine::read_bytes(name, bytes)
}

#[test]
fn a_panicking_analysis_is_500_and_the_server_goes_on() {
    // One slot and no queueing: a slot the panic failed to free would turn the next
    // analysis into a 503.
    let config = Config { workers: 1, queue_wait: Duration::ZERO, ..Config::default() };
    let server = Running::start(AppState::with_reader(config, panicking_reader).unwrap());

    for round in 0..3 {
        let (status, head, body) = server.analyze("panic.csv");
        assert_eq!(status, 500, "round {round}: {body}");
        assert!(head.contains("content-type: application/problem+json"), "{head}");
        let p: Value = serde_json::from_str(&body).unwrap();
        assert_eq!((p["status"].as_u64(), p["code"].as_str()), (Some(500), Some("internal")));
        let detail = p["detail"].as_str().unwrap();
        assert!(!detail.contains("panics on"), "the panic message is not shown: {detail}");

        // Not poisoned: the next analysis gets the slot and a report, the rest answers.
        let (status, head, body) = server.analyze("capture.csv");
        assert_eq!(status, 200, "round {round}: {body}");
        assert!(head.contains("content-type: application/json"), "{head}");
        let report: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(report["schema"], "advisor.report/v1");
        assert_eq!(report["inputs"][0]["file"], "capture.csv");
        let (status, _, body) = server.get("/healthz");
        assert_eq!((status, body.as_str()), (200, "ok\n"));
        assert_eq!(server.get("/api/v1/rules").0, 200);
    }
    server.stop().unwrap();
}

#[test]
fn keep_alive_serves_several_requests_on_one_connection() {
    let server = Running::start(AppState::new(Config::default()).unwrap());
    let mut s = server.connect();
    let host = server.addr;
    s.write_all(
        format!(
            "GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\nGET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n\
             GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        )
        .as_bytes(),
    )
    .unwrap();
    let text = String::from_utf8(read_all(&mut s)).unwrap();
    assert_eq!(text.matches("HTTP/1.1 200 OK").count(), 3, "{text}");
    server.stop().unwrap();
}

#[test]
fn shutdown_finishes_the_request_in_flight_then_serve_returns() {
    let mut server = Running::start(AppState::new(Config::default()).unwrap());
    let raw = post(server.addr, "capture.csv");
    let (first, rest) = raw.split_at(raw.len() / 2);
    let mut s = server.connect();
    s.write_all(first).unwrap();
    // Half an upload in flight, then the signal: the listener closes, the upload finishes.
    thread::sleep(Duration::from_millis(200));
    server.signal();
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(server.addr).is_ok() {
        assert!(Instant::now() < deadline, "still accepting 10 s after shutdown");
        thread::sleep(Duration::from_millis(20));
    }
    s.write_all(rest).unwrap();
    let (status, _, body) = parse(&read_all(&mut s));
    assert_eq!(status, 200, "{body}");
    server.wait().unwrap();
}
