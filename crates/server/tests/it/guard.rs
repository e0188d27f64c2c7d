//! The guard around the routes (tokens, a trusted proxy's header, the rate per client, the
//! audit trail) through `app()` with `oneshot`, and HTTPS through `serve` on a loopback
//! socket with a certificate made here (rcgen), checked by a rustls client.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read as _, Write as _};
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use advisor_server::{
    AppState, Audit, Config, Guard, Problem, Rate, Tls, TlsError, Tokens, TrustedProxy, app,
    new_token,
};
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt as _;
use serde_json::Value;
use tower::ServiceExt as _;

const BOUNDARY: &str = "advisor-guard-boundary-91ab";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ds13() -> (Vec<u8>, Vec<u8>) {
    let dir = repo().join("fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30");
    (
        std::fs::read(dir.join("capture.csv")).unwrap(),
        std::fs::read(dir.join("topology.toml")).unwrap(),
    )
}

fn form(parts: &[(&str, &str, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, file, content) in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        body.extend_from_slice(
            format!(
                "Content-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\n\
                 Content-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// The DS13_v2 upload (capture and topology) as a request to `path`.
fn upload(path: &str, auth: Option<&str>) -> Request<Body> {
    let (capture, topology) = ds13();
    let body =
        form(&[("capture", "capture.csv", &capture), ("topology", "topology.toml", &topology)]);
    let mut r = Request::post(path)
        .header(header::CONTENT_TYPE, format!("multipart/form-data; boundary={BOUNDARY}"))
        .header(header::CONTENT_LENGTH, body.len())
        .header(header::ACCEPT, "application/json");
    if let Some(a) = auth {
        r = r.header(header::AUTHORIZATION, a);
    }
    r.body(Body::from(body)).unwrap()
}

fn get(path: &str, auth: Option<&str>) -> Request<Body> {
    let mut r = Request::get(path);
    if let Some(a) = auth {
        r = r.header(header::AUTHORIZATION, a);
    }
    r.body(Body::empty()).unwrap()
}

/// A request as if it came over a connection from `peer`.
fn from(mut req: Request<Body>, peer: &str) -> Request<Body> {
    let addr: SocketAddr = peer.parse().unwrap();
    req.extensions_mut().insert(ConnectInfo(addr));
    req
}

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: String,
}

async fn send(app: &axum::Router, req: Request<Body>) -> Answer {
    let resp = app.clone().oneshot(req).await.unwrap();
    let (parts, body) = resp.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

fn problem(a: &Answer, status: StatusCode, code: &str) -> Problem {
    assert_eq!(a.status, status, "{}", a.body);
    assert_eq!(a.headers[header::CONTENT_TYPE], "application/problem+json");
    let p: Problem = serde_json::from_str(&a.body).unwrap();
    assert_eq!((p.status, p.code.as_str()), (status.as_u16(), code), "{}", a.body);
    p
}

/// Audit lines written to memory.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Lines {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Lines {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
    fn json(&self) -> Vec<Value> {
        self.text().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }
}

/// Every path of the OpenAPI document with its method, a path parameter filled in.
async fn every_route(open: &axum::Router) -> Vec<(String, String)> {
    let doc: Value =
        serde_json::from_str(&send(open, get("/api/v1/openapi.json", None)).await.body).unwrap();
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            // The document says which answers a refused request gets.
            let refusals = ["401", "403", "429"].map(|c| op["responses"].get(c).is_some());
            let probe = path == "/healthz" || path == "/readyz";
            assert_eq!(refusals, [!probe; 3], "{method} {path}");
            out.push((method.to_uppercase(), path.replace("{size}", "Standard_DS13_v2")));
        }
    }
    assert!(out.len() >= 8, "{out:?}");
    assert_eq!(doc["components"]["securitySchemes"]["token"]["scheme"], "bearer");
    out
}

fn tokens(lines: &[&str]) -> Option<Arc<Tokens>> {
    Some(Arc::new(Tokens::parse("tokens", &lines.join("\n")).unwrap()))
}

#[tokio::test]
async fn without_a_token_every_route_but_healthz_is_401_and_with_one_the_answers_are_todays() {
    let (token, line) = new_token("ci").unwrap();
    let lines = Lines::default();
    let guard = Guard {
        tokens: tokens(&[&line]),
        audit: Some(Audit::to_writer("memory", lines.clone())),
        ..Guard::default()
    };
    let guarded = app(AppState::new(Config { workers: 1, guard, ..Config::default() }).unwrap());
    let open = app(AppState::new(Config { workers: 1, ..Config::default() }).unwrap());

    let mut refused = 0;
    for (method, path) in
        every_route(&open).await.into_iter().chain([("GET".into(), "/no/such".into())])
    {
        let req =
            Request::builder().method(method.as_str()).uri(&path).body(Body::empty()).unwrap();
        let a = send(&guarded, req).await;
        if path == "/healthz" {
            assert_eq!((a.status, a.body.as_str()), (StatusCode::OK, "ok\n"));
            continue;
        }
        if path == "/readyz" {
            // A probe too: no token, and a free slot says ready.
            assert_eq!((a.status, a.body.as_str()), (StatusCode::OK, "ready\n"));
            continue;
        }
        let p = problem(&a, StatusCode::UNAUTHORIZED, "unauthorized");
        assert!(p.detail.contains("Authorization: Bearer"), "{}", p.detail);
        let challenges: Vec<&str> = a
            .headers
            .get_all(header::WWW_AUTHENTICATE)
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert_eq!(
            challenges,
            [r#"Bearer realm="advisor""#, r#"Basic realm="advisor", charset="UTF-8""#],
            "{path}"
        );
        refused += 1;
    }
    // A wrong token, and a token in a scheme the service does not take.
    for bad in ["Bearer adv_not-a-token", "Token abc"] {
        let a = send(&guarded, get("/api/v1/rules", Some(bad))).await;
        problem(&a, StatusCode::UNAUTHORIZED, "unauthorized");
        let first = a.headers.get(header::WWW_AUTHENTICATE).unwrap().to_str().unwrap();
        assert_eq!(first, r#"Bearer realm="advisor", error="invalid_token""#);
    }
    // An upload without a token: refused before its body is read, and the connection is
    // not kept for the rest of it.
    let a = send(&guarded, upload("/api/v1/analyze", None)).await;
    problem(&a, StatusCode::UNAUTHORIZED, "unauthorized");
    assert_eq!(a.headers[header::CONNECTION], "close");

    // With the token, as Bearer or as a browser's Basic password: today's answers.
    let bearer = format!("Bearer {token}");
    use base64::Engine as _;
    let basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("anyone:{token}"))
    );
    for auth in [&bearer, &basic] {
        for path in
            ["/api/v1/rules", "/api/v1/catalog/vm/Standard_DS13_v2", "/api/v1/openapi.json", "/"]
        {
            let want = send(&open, get(path, None)).await;
            let got = send(&guarded, get(path, Some(auth))).await;
            assert_eq!((got.status, &got.body), (want.status, &want.body), "{path}");
        }
        let want: Value =
            serde_json::from_str(&send(&open, upload("/api/v1/analyze", None)).await.body).unwrap();
        let got = send(&guarded, upload("/api/v1/analyze", Some(auth))).await;
        assert_eq!(got.status, StatusCode::OK, "{}", got.body);
        let got: Value = serde_json::from_str(&got.body).unwrap();
        assert_eq!(got["findings"], want["findings"]);
        assert_eq!(got["verdict"], want["verdict"]);
    }

    // The audit trail: a line per request but the probes, principal null when refused.
    let audit = lines.json();
    assert_eq!(audit.len(), refused + 2 + 1 + 2 * 5, "{}", lines.text());
    assert!(audit.iter().all(|l| l["route"] != "/healthz" && l["route"] != "/readyz"));
    let unknown = audit.iter().find(|l| l["status"] == 401 && l["route"].is_null()).unwrap();
    assert_eq!(unknown["principal"], Value::Null);
    let analyses: Vec<&Value> =
        audit.iter().filter(|l| l["route"] == "/api/v1/analyze" && l["status"] == 200).collect();
    assert_eq!(analyses.len(), 2);
    let (capture, _) = ds13();
    for l in &analyses {
        assert_eq!(l["principal"], "ci");
        assert_eq!(l["method"], "POST");
        assert_eq!(
            (l["files"].as_u64(), l["bytes"].as_u64()),
            (Some(1), Some(capture.len() as u64))
        );
        assert_eq!(l["formats"], serde_json::json!(["perfmon-csv"]));
        // The report's own verdict and findings, counted by severity.
        let report = &want_report(&open).await;
        assert_eq!(l["verdict"], report["verdict"]["status"]);
        for sev in ["critical", "warning", "info"] {
            let n = report["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["severity"] == sev)
                .count();
            assert_eq!(l["findings"][sev].as_u64(), Some(n as u64), "{sev}: {l}");
        }
        assert!(l["ms"].as_u64().is_some() && l["time"].as_str().unwrap().ends_with('Z'));
    }
    // Never content, file names or topology values.
    let text = lines.text();
    for secret in ["capture.csv", "topology.toml", "SQLVM01", "Standard_DS13_v2", "P30", &token] {
        assert!(!text.contains(secret), "the audit trail quotes {secret}:\n{text}");
    }
}

async fn want_report(open: &axum::Router) -> Value {
    serde_json::from_str(&send(open, upload("/api/v1/analyze", None)).await.body).unwrap()
}

#[tokio::test]
async fn a_page_of_another_site_cannot_make_a_logged_in_browser_upload() {
    let (token, line) = new_token("ana").unwrap();
    let guard = Guard { tokens: tokens(&[&line]), ..Guard::default() };
    let guarded = app(AppState::new(Config { workers: 1, guard, ..Config::default() }).unwrap());
    use base64::Engine as _;
    let basic =
        format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!(":{token}")));
    let mut cross = upload("/api/v1/analyze", Some(&basic));
    cross.headers_mut().insert("sec-fetch-site", "cross-site".parse().unwrap());
    problem(&send(&guarded, cross).await, StatusCode::FORBIDDEN, "forbidden");
    // The service's own page: same-origin.
    let mut own = upload("/api/v1/analyze", Some(&basic));
    own.headers_mut().insert("sec-fetch-site", "same-origin".parse().unwrap());
    assert_eq!(send(&guarded, own).await.status, StatusCode::OK);
    // A token in a header is never sent by a browser on its own: any site may.
    let mut bearer = upload("/api/v1/analyze", Some(&format!("Bearer {token}")));
    bearer.headers_mut().insert("sec-fetch-site", "cross-site".parse().unwrap());
    assert_eq!(send(&guarded, bearer).await.status, StatusCode::OK);
}

#[tokio::test]
async fn past_the_rate_a_client_gets_429_with_retry_after_and_others_go_on() {
    let (a_token, a_line) = new_token("a").unwrap();
    let (b_token, b_line) = new_token("b").unwrap();
    let lines = Lines::default();
    let guard = Guard {
        tokens: tokens(&[&a_line, &b_line]),
        rate: Some(Rate::per_minute(NonZeroU32::new(2).unwrap())),
        audit: Some(Audit::to_writer("memory", lines.clone())),
        ..Guard::default()
    };
    let guarded = app(AppState::new(Config { workers: 1, guard, ..Config::default() }).unwrap());
    let (a, b) = (format!("Bearer {a_token}"), format!("Bearer {b_token}"));
    for _ in 0..2 {
        assert_eq!(send(&guarded, get("/api/v1/rules", Some(&a))).await.status, StatusCode::OK);
    }
    let limited = send(&guarded, upload("/api/v1/analyze", Some(&a))).await;
    let p = problem(&limited, StatusCode::TOO_MANY_REQUESTS, "rate-limited");
    assert!(p.detail.contains("more than 2 requests a minute"), "{}", p.detail);
    // One request comes back every 30 s.
    let retry: u64 = limited.headers[header::RETRY_AFTER].to_str().unwrap().parse().unwrap();
    assert!((29..=30).contains(&retry), "{retry}");
    assert_eq!(limited.headers[header::CONNECTION], "close");
    // Another client, and the probe, are not held back.
    assert_eq!(send(&guarded, get("/api/v1/rules", Some(&b))).await.status, StatusCode::OK);
    for _ in 0..5 {
        assert_eq!(send(&guarded, get("/healthz", None)).await.status, StatusCode::OK);
    }
    // Refusals without a token do not count against anyone.
    for _ in 0..3 {
        assert_eq!(
            send(&guarded, get("/api/v1/rules", None)).await.status,
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(send(&guarded, get("/api/v1/rules", Some(&b))).await.status, StatusCode::OK);
    let statuses: Vec<(String, u64)> = lines
        .json()
        .iter()
        .map(|l| (l["principal"].as_str().unwrap_or("-").to_owned(), l["status"].as_u64().unwrap()))
        .collect();
    let want: Vec<(String, u64)> = [
        ("a", 200),
        ("a", 200),
        ("a", 429),
        ("b", 200),
        ("-", 401),
        ("-", 401),
        ("-", 401),
        ("b", 200),
    ]
    .iter()
    .map(|(p, s)| ((*p).to_owned(), *s))
    .collect();
    assert_eq!(statuses, want);
}

#[tokio::test]
async fn without_authentication_the_rate_is_per_address() {
    let guard =
        Guard { rate: Some(Rate::per_minute(NonZeroU32::new(1).unwrap())), ..Guard::default() };
    let app = app(AppState::new(Config { workers: 1, guard, ..Config::default() }).unwrap());
    assert_eq!(
        send(&app, from(get("/api/v1/rules", None), "127.0.0.1:4000")).await.status,
        StatusCode::OK
    );
    // The same address on another port is the same client.
    let a = send(&app, from(get("/api/v1/rules", None), "127.0.0.1:4001")).await;
    problem(&a, StatusCode::TOO_MANY_REQUESTS, "rate-limited");
    assert_eq!(
        send(&app, from(get("/api/v1/rules", None), "127.0.0.2:4000")).await.status,
        StatusCode::OK
    );
    // IPv6: a client is its /64.
    assert_eq!(
        send(&app, from(get("/api/v1/rules", None), "[::1]:1")).await.status,
        StatusCode::OK
    );
    // Another address of ::1's /64, made here: the request is handed to the router with
    // it as its peer, no connection is made.
    let neighbour = format!("[{}]:1", std::net::Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 2));
    let a = send(&app, from(get("/api/v1/rules", None), &neighbour)).await;
    problem(&a, StatusCode::TOO_MANY_REQUESTS, "rate-limited");
}

#[tokio::test]
async fn the_proxys_header_is_the_principal_only_from_the_proxy() {
    let lines = Lines::default();
    let guard = Guard {
        proxy: Some(TrustedProxy::new("X-Forwarded-Email", &["127.0.0.2/32".to_owned()]).unwrap()),
        audit: Some(Audit::to_writer("memory", lines.clone())),
        ..Guard::default()
    };
    let app = app(AppState::new(Config { workers: 1, guard, ..Config::default() }).unwrap());
    let with_header = |peer: &str| {
        let mut r = from(upload("/api/v1/analyze", None), peer);
        r.headers_mut().insert("x-forwarded-email", "ana@example.com".parse().unwrap());
        r
    };
    assert_eq!(send(&app, with_header("127.0.0.2:5000")).await.status, StatusCode::OK);
    // The same header from anyone else is not believed.
    let a = send(&app, with_header("127.0.0.1:5000")).await;
    let p = problem(&a, StatusCode::FORBIDDEN, "forbidden");
    assert!(p.detail.contains("authenticating proxy"), "{}", p.detail);
    // From the proxy without the header: nobody vouched.
    let a = send(&app, from(get("/api/v1/rules", None), "127.0.0.2:5000")).await;
    problem(&a, StatusCode::FORBIDDEN, "forbidden");
    let audit = lines.json();
    let who: Vec<(Value, Value, u64)> = audit
        .iter()
        .map(|l| (l["principal"].clone(), l["client"].clone(), l["status"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        who,
        [
            (Value::from("ana@example.com"), Value::from("127.0.0.2"), 200),
            (Value::Null, Value::from("127.0.0.1"), 403),
            (Value::Null, Value::from("127.0.0.2"), 403),
        ]
    );
}

// ---------------------------------------------------------------------------------------
// HTTPS

/// A certificate authority and a server certificate it signed for 127.0.0.1 and
/// localhost, written to `dir`: (CA certificate PEM, server certificate file, key file).
fn certificates(dir: &Path) -> (String, PathBuf, PathBuf) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
    std::fs::create_dir_all(dir).unwrap();
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let key = KeyPair::generate().unwrap();
    let params =
        CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()]).unwrap();
    let issuer = rcgen::Issuer::new(ca, ca_key);
    let cert = params.signed_by(&key, &issuer).unwrap();
    let (cert_file, key_file) = (dir.join("server.pem"), dir.join("server.key"));
    std::fs::write(&cert_file, cert.pem()).unwrap();
    std::fs::write(&key_file, key.serialize_pem()).unwrap();
    (ca_cert.pem(), cert_file, key_file)
}

fn temp_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("advisor-guard-{}-{name}", std::process::id()))
}

#[test]
fn a_bad_or_mismatched_certificate_and_key_are_refused_naming_the_file() {
    let dir = temp_dir("bad-tls");
    let (_, cert, key) = certificates(&dir);
    let (_, other_cert, _) = certificates(&dir.join("other"));
    assert!(Tls::load(&cert, &key).is_ok());
    match Tls::load(&other_cert, &key) {
        Err(TlsError::Mismatch { .. }) => {}
        other => panic!("a key that is not the certificate's: {other:?}"),
    }
    let garbage = dir.join("garbage.pem");
    std::fs::write(&garbage, "not a certificate\n").unwrap();
    let e = Tls::load(&garbage, &key).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}: no certificate in it", garbage.display())), "{e}");
    let e = Tls::load(&cert, &garbage).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}: no private key in it", garbage.display())), "{e}");
    // The certificate given as the key: a PEM file with no key.
    assert!(matches!(Tls::load(&cert, &cert), Err(TlsError::Content { .. })));
    let missing = dir.join("missing.pem");
    let e = Tls::load(&missing, &key).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}: cannot read it", missing.display())), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `serve` with TLS on a loopback socket; a rustls client that trusts only the test CA.
#[test]
fn https_with_the_test_certificate_answers_and_plain_http_gets_nothing() {
    let dir = temp_dir("https");
    let (ca_pem, cert, key) = certificates(&dir);
    let (token, line) = new_token("ci").unwrap();
    let guard = Guard { tokens: tokens(&[&line]), ..Guard::default() };
    let tls = Tls::load(&cert, &key).unwrap();
    let state =
        AppState::new(Config { workers: 1, guard, tls: Some(tls), ..Config::default() }).unwrap();
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            addr_tx.send(listener.local_addr().unwrap()).unwrap();
            advisor_server::serve(listener, state, async move {
                let _ = stopped.await;
            })
            .await
        })
    });
    let addr: SocketAddr = addr_rx.recv_timeout(Duration::from_secs(30)).unwrap();

    let mut roots = rustls::RootCertStore::empty();
    use rustls::pki_types::pem::PemObject as _;
    roots
        .add(rustls::pki_types::CertificateDer::from_pem_slice(ca_pem.as_bytes()).unwrap())
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let client = Arc::new(
        rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth(),
    );
    let https = |head: String, body: &[u8]| -> (u16, String, Vec<u8>) {
        let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
        let conn = rustls::ClientConnection::new(client.clone(), name).unwrap();
        let tcp = std::net::TcpStream::connect(addr).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut s = rustls::StreamOwned::new(conn, tcp);
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut raw = Vec::new();
        // The server closes (Connection: close) without a TLS close_notify in some
        // paths; what was read is the answer.
        let _ = s.read_to_end(&mut raw);
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("an answer");
        let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
        let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        (status, head, raw[split + 4..].to_vec())
    };
    let get_head = |path: &str, auth: &str| {
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{auth}\r\n")
    };
    let (status, _, body) = https(get_head("/healthz", ""), b"");
    assert_eq!((status, body.as_slice()), (200, &b"ok\n"[..]));
    let (status, head, _) = https(get_head("/api/v1/rules", ""), b"");
    assert_eq!(status, 401);
    assert!(head.contains("www-authenticate: bearer"), "{head}");
    let auth = format!("Authorization: Bearer {token}\r\n");
    let (status, _, body) = https(get_head("/api/v1/rules", &auth), b"");
    assert_eq!(status, 200);
    assert!(serde_json::from_slice::<Value>(&body).unwrap().as_array().unwrap().len() > 20);
    // An upload over HTTPS.
    let (capture, topology) = ds13();
    let body =
        form(&[("capture", "capture.csv", &capture), ("topology", "topology.toml", &topology)]);
    let head = format!(
        "POST /api/v1/analyze HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{auth}\
         Accept: application/json\r\nContent-Type: multipart/form-data; boundary={BOUNDARY}\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    let (status, _, report) = https(head, &body);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&report));
    let report: Value = serde_json::from_slice(&report).unwrap();
    assert_eq!(report["findings"][0]["rule"], "vm-cached-throughput-cap");

    // Plain HTTP to the TLS port: no HTTP answer, and the server goes on.
    let mut plain = std::net::TcpStream::connect(addr).unwrap();
    plain.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    plain
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut raw = Vec::new();
    let _ = plain.read_to_end(&mut raw);
    assert!(!raw.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&raw));
    let (status, _, _) = https(get_head("/healthz", ""), b"");
    assert_eq!(status, 200);

    let _ = stop.send(());
    server.join().unwrap().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
