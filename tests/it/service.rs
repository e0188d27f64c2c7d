//! `advisor serve` as a service on a network, through the real binary on loopback: tokens
//! made by `advisor token new`, the audit file, the rate, HTTPS with a certificate made
//! here (rcgen) and its refusal of a bad pair, the refusal to listen beyond loopback
//! without authentication, a trusted proxy's header seen from the proxy's address, an
//! answer its client never reads, and SIGTERM in the middle of uploads. Every read has a
//! timeout.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use crate::skip;

use std::io::{BufRead as _, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use common::{BOUNDARY, advisor, multipart, repo, scenario};
use serde_json::Value;

const IO_TIMEOUT: Duration = Duration::from_secs(30);

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("advisor-service-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `advisor token new NAME`: (token, line).
fn token(name: &str) -> (String, String) {
    let out = advisor(&repo(), &["token", "new", name]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    (lines[0].to_owned(), lines[1].to_owned())
}

struct Server {
    child: Child,
    addr: String,
    log: mpsc::Receiver<String>,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        let (child, addr, log) = common::start_serve(extra);
        Server { child, addr, log }
    }

    fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
        s
    }

    fn exchange(&self, head: &str, body: &[u8]) -> (u16, String, Vec<u8>) {
        let mut s = self.connect();
        s.write_all(head.as_bytes()).unwrap();
        let _ = s.write_all(body);
        let mut raw = Vec::new();
        let _ = s.read_to_end(&mut raw);
        parse(&raw)
    }

    fn get(&self, path: &str, auth: Option<&str>) -> (u16, String, Vec<u8>) {
        self.exchange(&get_head(&self.addr, path, auth), b"")
    }

    fn upload(&self, auth: Option<&str>) -> (u16, String, Vec<u8>) {
        let (head, body) = upload_request(&self.addr, auth);
        self.exchange(&head, &body)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn auth_header(auth: Option<&str>) -> String {
    auth.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default()
}

fn get_head(host: &str, path: &str, auth: Option<&str>) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{}\r\n", auth_header(auth))
}

/// The DS13_v2 scenario's upload, as a head and a body.
fn upload_request(host: &str, auth: Option<&str>) -> (String, Vec<u8>) {
    let (capture, topology) = scenario();
    let body = multipart(&[
        ("capture", "capture.csv", &capture),
        ("topology", "topology.toml", &topology),
    ]);
    let head = format!(
        "POST /api/v1/analyze HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{}\
         Accept: application/json\r\nContent-Type: multipart/form-data; boundary={BOUNDARY}\r\n\
         Content-Length: {}\r\n\r\n",
        auth_header(auth),
        body.len()
    );
    (head, body)
}

/// (status, head in lower case, body); status 0 when no answer came.
fn parse(raw: &[u8]) -> (u16, String, Vec<u8>) {
    let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return (0, String::new(), raw.to_vec());
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head, raw[split + 4..].to_vec())
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn problem_code(body: &[u8]) -> String {
    let v: Value =
        serde_json::from_slice(body).unwrap_or_else(|_| panic!("not JSON: {}", text(body)));
    v["code"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn tokens_from_advisor_token_new_the_audit_file_and_the_rate() {
    let dir = temp("tokens");
    let (ci, ci_line) = token("ci");
    let (ana, ana_line) = token("ana@example.com");
    assert!(ci.starts_with("adv_") && ci_line.starts_with("ci:"));
    let tokens = dir.join("tokens");
    std::fs::write(&tokens, format!("# who may upload\n{ci_line}\n{ana_line}\n")).unwrap();
    let audit = dir.join("audit.jsonl");
    let server = Server::start(&[
        "--tokens",
        tokens.to_str().unwrap(),
        "--audit",
        audit.to_str().unwrap(),
        "--rate",
        "3/min",
        "--workers",
        "1",
    ]);

    let (status, head, body) = server.upload(None);
    assert_eq!(status, 401, "{}", text(&body));
    assert!(head.contains("www-authenticate: bearer realm=\"advisor\""), "{head}");
    assert_eq!(problem_code(&body), "unauthorized");
    let (status, _, body) = server.upload(Some("adv_wrong"));
    assert_eq!((status, problem_code(&body)), (401, "unauthorized".to_owned()));
    assert_eq!(server.get("/healthz", None).0, 200);

    // With ci's token: the report, as without authentication.
    let (status, _, body) = server.upload(Some(&ci));
    assert_eq!(status, 200, "{}", text(&body));
    let report: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(report["findings"][0]["rule"], "vm-cached-throughput-cap");
    assert_eq!(server.get("/api/v1/rules", Some(&ci)).0, 200);
    assert_eq!(server.get("/api/v1/catalog/vm/DS13_v2", Some(&ci)).0, 200);
    // A fourth request within the minute: 429, ana still served.
    let (status, head, body) = server.get("/api/v1/rules", Some(&ci));
    assert_eq!((status, problem_code(&body)), (429, "rate-limited".to_owned()));
    let retry: u64 = head
        .lines()
        .find_map(|l| l.strip_prefix("retry-after:"))
        .map(|v| v.trim().parse().unwrap())
        .expect("Retry-After");
    assert!((1..=20).contains(&retry), "{retry}");
    assert_eq!(server.get("/api/v1/rules", Some(&ana)).0, 200);

    // The audit trail is in the file (owner-only), one JSON line per request but the
    // probe; none of it on stderr.
    let lines: Vec<Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let got: Vec<(String, String, u64)> = lines
        .iter()
        .map(|l| {
            (
                l["principal"].as_str().unwrap_or("-").to_owned(),
                l["route"].as_str().unwrap_or("-").to_owned(),
                l["status"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("-", "/api/v1/analyze", 401),
        ("-", "/api/v1/analyze", 401),
        ("ci", "/api/v1/analyze", 200),
        ("ci", "/api/v1/rules", 200),
        ("ci", "/api/v1/catalog/vm/{size}", 200),
        ("ci", "/api/v1/rules", 429),
        ("ana@example.com", "/api/v1/rules", 200),
    ]
    .map(|(p, r, s)| (p.to_owned(), r.to_owned(), s));
    assert_eq!(got, want);
    let analysis = &lines[2];
    let (capture, _) = scenario();
    assert_eq!(analysis["files"].as_u64(), Some(1));
    assert_eq!(analysis["bytes"].as_u64(), Some(capture.len() as u64));
    assert_eq!(analysis["formats"], serde_json::json!(["perfmon-csv"]));
    assert_eq!(analysis["verdict"], report["verdict"]["status"]);
    assert_eq!(analysis["client"], "127.0.0.1");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&audit).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{mode:o}");
    }
    let log: Vec<String> = server.log.try_iter().collect();
    assert!(!log.iter().any(|l| l.starts_with('{')), "audit lines on stderr: {log:?}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn it_refuses_to_listen_beyond_loopback_without_authentication() {
    let dir = temp("refuse");
    let (_, line) = token("ci");
    let tokens = dir.join("tokens");
    std::fs::write(&tokens, format!("{line}\n")).unwrap();
    let t = tokens.to_str().unwrap();
    for (args, says) in [
        (
            &["serve", "--listen", "0.0.0.0:0"][..],
            "refusing to listen on 0.0.0.0:0 without authentication",
        ),
        (&["serve", "--listen", "[::]:0"], "refusing to listen on [::]:0 without authentication"),
        (&["serve", "--tokens", t, "--insecure-no-auth"], "cannot be used with"),
        (&["serve", "--trust-header", "X-Forwarded-Email"], "--trusted-proxy"),
        (
            &["serve", "--trust-header", "X-User", "--trusted-proxy", "not-a-network"],
            "is not an address or a CIDR",
        ),
        (&["serve", "--tokens", "/nonexistent/advisor-tokens"], "cannot read the tokens file"),
        (&["serve", "--rate", "lots"], "is not a rate like 30/min"),
        (&["serve", "--tls-cert", t], "--tls-key"),
    ] {
        let out = advisor(&repo(), args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("listening on"), "{args:?} listened: {err}");
    }
    // A tokens file with a token in clear: the line, before it listens.
    std::fs::write(&tokens, "ci:adv_abcdef\n").unwrap();
    let out = advisor(&repo(), &["serve", "--tokens", t]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(&format!("{t}:1: `ci`'s token is written in clear")),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// HTTPS

/// A CA and a server certificate for 127.0.0.1 it signed, in `dir`: (CA PEM, cert, key).
fn certificates(dir: &Path) -> (String, PathBuf, PathBuf) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
    std::fs::create_dir_all(dir).unwrap();
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_pem = ca.self_signed(&ca_key).unwrap().pem();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .unwrap()
        .signed_by(&key, &Issuer::new(ca, ca_key))
        .unwrap();
    let (cert_file, key_file) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert_file, cert.pem()).unwrap();
    std::fs::write(&key_file, key.serialize_pem()).unwrap();
    (ca_pem, cert_file, key_file)
}

#[test]
fn over_https_with_the_test_certificate_and_a_bad_pair_stops_it_before_it_listens() {
    let dir = temp("https");
    let (ca_pem, cert, key) = certificates(&dir);
    let (_, other_cert, _) = certificates(&dir.join("other"));
    let (tok, line) = token("ci");
    let tokens = dir.join("tokens");
    std::fs::write(&tokens, format!("{line}\n")).unwrap();

    // A key that is not the certificate's: exit 2, naming it, before it listens.
    let out = advisor(
        &repo(),
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--tls-cert",
            other_cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{}: this key is not the one of the certificate in {}",
            key.display(),
            other_cert.display()
        )),
        "{err}"
    );
    assert!(!err.contains("listening on"), "{err}");

    let mut child = Command::new(env!("CARGO_BIN_EXE_advisor"))
        .args(["serve", "--listen", "127.0.0.1:0", "--tls-cert"])
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key)
        .arg("--tokens")
        .arg(&tokens)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    let addr = first
        .split_whitespace()
        .find_map(|w| w.strip_prefix("https://"))
        .unwrap_or_else(|| panic!("no https address in {first:?}"))
        .to_owned();
    thread::spawn(move || for _ in stderr.lines() {});

    use rustls::pki_types::pem::PemObject as _;
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(rustls::pki_types::CertificateDer::from_pem_slice(ca_pem.as_bytes()).unwrap())
        .unwrap();
    let client = Arc::new(
        rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth(),
    );
    let https = |head: &str, body: &[u8]| {
        let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
        let conn = rustls::ClientConnection::new(client.clone(), name).unwrap();
        let tcp = TcpStream::connect(&addr).unwrap();
        tcp.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        let mut s = rustls::StreamOwned::new(conn, tcp);
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut raw = Vec::new();
        let _ = s.read_to_end(&mut raw);
        parse(&raw)
    };
    let (status, _, _) = https(&get_head(&addr, "/api/v1/rules", None), b"");
    assert_eq!(status, 401);
    let (head, body) = upload_request(&addr, Some(&tok));
    let (status, _, body) = https(&head, &body);
    assert_eq!(status, 200, "{}", text(&body));
    let report: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(report["findings"][0]["rule"], "vm-cached-throughput-cap");
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// Behind a proxy

#[test]
fn the_proxys_header_is_believed_from_the_proxys_address_only() {
    let dir = temp("proxy");
    let audit = dir.join("audit.jsonl");
    let server = Server::start(&[
        "--trust-header",
        "X-Forwarded-Email",
        "--trusted-proxy",
        "127.0.0.2/32",
        "--audit",
        audit.to_str().unwrap(),
    ]);
    let port: u16 = server.addr.rsplit(':').next().unwrap().parse().unwrap();
    // A connection from 127.0.0.2 (the proxy) and one from 127.0.0.1.
    let from = |source: &str| -> TcpStream {
        let rt = tokio::runtime::Builder::new_current_thread().enable_io().build().unwrap();
        let s = rt.block_on(async {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
            socket.connect(format!("127.0.0.1:{port}").parse().unwrap()).await.unwrap()
        });
        let s = s.into_std().unwrap();
        s.set_nonblocking(false).unwrap();
        s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        s
    };
    let ask = |mut s: TcpStream| {
        let head = format!(
            "GET /api/v1/rules HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nX-Forwarded-Email: ana@example.com\r\n\r\n",
            server.addr
        );
        s.write_all(head.as_bytes()).unwrap();
        let mut raw = Vec::new();
        let _ = s.read_to_end(&mut raw);
        parse(&raw)
    };
    let (status, _, body) = ask(from("127.0.0.2"));
    assert_eq!(status, 200, "{}", text(&body));
    let (status, _, body) = ask(from("127.0.0.1"));
    assert_eq!((status, problem_code(&body)), (403, "forbidden".to_owned()));
    let lines: Vec<Value> = std::fs::read_to_string(&audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        (lines[0]["principal"].as_str(), lines[0]["client"].as_str()),
        (Some("ana@example.com"), Some("127.0.0.2"))
    );
    assert_eq!(
        (lines[1]["principal"].as_str(), lines[1]["client"].as_str()),
        (None, Some("127.0.0.1"))
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------
// Faults

/// Thousands of pipelined requests whose answers the client never reads: once the socket
/// buffers are full the answers stall, and after --timeout the server drops the
/// connection (and what it held), instead of keeping it for as long as the client likes.
#[test]
fn an_answer_the_client_does_not_read_is_dropped_after_the_timeout() {
    let server = Server::start(&["--timeout", "2"]);
    let (status, _, doc) = server.get("/api/v1/openapi.json", None);
    assert_eq!(status, 200);
    let requests = 6000usize;
    // Far more than loopback's buffers hold (a few MB each way).
    assert!(requests * doc.len() > 200 << 20, "{} bytes", doc.len());
    let mut s = server.connect();
    let head = format!("GET /api/v1/openapi.json HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr);
    let mut w = s.try_clone().unwrap();
    let writer = thread::spawn(move || {
        for _ in 0..requests {
            if w.write_all(head.as_bytes()).is_err() {
                break;
            }
        }
    });
    // The server fills the buffers, stalls, waits 2 s, drops the connection.
    thread::sleep(Duration::from_secs(6));
    let started = Instant::now();
    let mut raw = Vec::new();
    let ended = match s.read_to_end(&mut raw) {
        Ok(_) => "closed",
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => "reset",
        Err(e) => panic!("the connection was not dropped: {e} after {} bytes", raw.len()),
    };
    writer.join().unwrap();
    let answers = raw.windows(17).filter(|w| w == b"HTTP/1.1 200 OK\r\n").count();
    assert!(
        answers < requests / 4,
        "{answers} of {requests} answers came: the stalled connection was kept ({ended})"
    );
    assert!(started.elapsed() < IO_TIMEOUT);
    // The server goes on.
    assert_eq!(server.get("/healthz", None).0, 200);
}

/// SIGTERM while uploads are being analysed, wait for a worker, and still arrive: each gets
/// a whole answer (the report, or a problem document), the server exits 0, and a new
/// connection is refused.
#[test]
fn sigterm_during_uploads_answers_each_request_then_exits() {
    let server = Server::start(&["--workers", "1", "--queue-wait", "60"]);
    let addr = server.addr.clone();
    let (head, body) = upload_request(&addr, None);
    let (head, body) = (Arc::new(head), Arc::new(body));
    let (sent_half, half_sent) = mpsc::channel();
    let (go_on, go) = mpsc::channel::<()>();
    let mut go = Some(go);
    let mut clients = Vec::new();
    for i in 0..4 {
        let (addr, head, body) = (addr.clone(), head.clone(), body.clone());
        let sent_half = sent_half.clone();
        let go = if i == 3 { go.take() } else { None };
        clients.push(thread::spawn(move || {
            let mut s = TcpStream::connect(&addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(90))).unwrap();
            s.write_all(head.as_bytes()).unwrap();
            if let Some(go) = go {
                // Half the upload before SIGTERM, the rest after it.
                let half = body.len() / 2;
                s.write_all(&body[..half]).unwrap();
                sent_half.send(()).unwrap();
                go.recv().unwrap();
                let _ = s.write_all(&body[half..]);
            } else {
                s.write_all(&body).unwrap();
            }
            let mut raw = Vec::new();
            let read = s.read_to_end(&mut raw);
            (read.map_err(|e| e.to_string()), parse(&raw))
        }));
    }
    drop(sent_half);
    half_sent.recv_timeout(IO_TIMEOUT).unwrap();
    thread::sleep(Duration::from_millis(200));
    let pid = server.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    thread::sleep(Duration::from_millis(300));
    go_on.send(()).unwrap();
    for (i, c) in clients.into_iter().enumerate() {
        let (read, (status, head, body)) = c.join().unwrap();
        assert!(read.is_ok(), "client {i}: {read:?}");
        match status {
            200 => {
                let report: Value = serde_json::from_slice(&body).unwrap();
                assert_eq!(report["findings"][0]["rule"], "vm-cached-throughput-cap", "client {i}");
            }
            503 => assert!(head.contains("application/problem+json"), "client {i}: {head}"),
            other => panic!("client {i}: {other} {head}\n{}", text(&body)),
        }
    }
    // Stopped: it exits 0, and nothing listens any more.
    let mut server = server;
    let deadline = Instant::now() + IO_TIMEOUT;
    let status = loop {
        if let Some(s) = server.child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "advisor serve did not stop after SIGTERM");
        thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    assert!(TcpStream::connect(&addr).is_err());
}

/// A person at the upload page of a server with tokens, in headless Chromium
/// (tests/browser/upload.spec.mjs with ADVISOR_TOKEN): refused without credentials, asked
/// for them (Basic), then the whole page works with the token as the password. Skips,
/// saying why, without node, Debian's chromium or `npm ci --prefix tests/browser`.
#[test]
fn the_upload_page_asks_for_the_token_once_in_chromium() {
    let browser_dir = repo().join("tests/browser");
    let has_node = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !has_node {
        skip::skip("no node on PATH");
        return;
    }
    if !Path::new("/usr/bin/chromium").exists() {
        skip::skip("no /usr/bin/chromium (apt-get install chromium)");
        return;
    }
    if !browser_dir.join("node_modules/playwright-core").is_dir() {
        skip::skip("tests/browser/node_modules is missing (npm ci --prefix tests/browser)");
        return;
    }
    let dir = temp("browser");
    let (tok, line) = token("support");
    let tokens = dir.join("tokens");
    std::fs::write(&tokens, format!("{line}\n")).unwrap();
    let server = Server::start(&["--tokens", tokens.to_str().unwrap(), "--workers", "2"]);
    let mut child = Command::new("node")
        .arg(browser_dir.join("upload.spec.mjs"))
        .arg(format!("http://{}", server.addr))
        .env("ADVISOR_TOKEN", &tok)
        .current_dir(repo())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
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
        thread::sleep(Duration::from_millis(100));
    };
    let mut out = String::new();
    let mut err = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    eprintln!("{out}");
    assert!(status.success(), "the browser test failed ({status:?}):\n{out}\n{err}");
    assert!(out.contains("ok - without the token the page is refused (401)"), "{out}");
    assert!(out.contains("ok - the report shows"), "{out}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
