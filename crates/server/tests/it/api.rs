//! Every route and every error of the service, through `app()` with `oneshot`: no socket.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use advisor_server::{AppState, Config, Problem, app};
use axum::body::{Body, Bytes};
use axum::http::{Request, Response, StatusCode, header};
use http_body_util::BodyExt as _;
use serde_json::Value;
use tower::ServiceExt as _;

const BOUNDARY: &str = "advisor-test-boundary-7d3c";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The DS13_v2 field case: a temp disk and a cached P30 at the VM's cached cap.
fn ds13() -> (Vec<u8>, Vec<u8>) {
    let dir = repo().join("fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30");
    (
        std::fs::read(dir.join("capture.csv")).unwrap(),
        std::fs::read(dir.join("topology.toml")).unwrap(),
    )
}

fn state(config: Config) -> AppState {
    AppState::new(config).expect("state")
}

fn default_app() -> axum::Router {
    app(state(Config::default()))
}

/// A multipart field: (name, file name, content).
type Part<'a> = (&'a str, Option<&'a str>, &'a [u8]);

fn multipart(parts: &[Part<'_>]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, file, content) in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        match file {
            Some(f) => body.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\n\
                     Content-Type: application/octet-stream\r\n\r\n"
                )
                .as_bytes(),
            ),
            None => body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
            ),
        }
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

fn post(parts: &[Part<'_>], accept: Option<&str>) -> Request<Body> {
    let body = multipart(parts);
    let mut r = Request::post("/api/v1/analyze")
        .header(header::CONTENT_TYPE, format!("multipart/form-data; boundary={BOUNDARY}"))
        .header(header::CONTENT_LENGTH, body.len());
    if let Some(a) = accept {
        r = r.header(header::ACCEPT, a);
    }
    r.body(Body::from(body)).unwrap()
}

fn get(path: &str) -> Request<Body> {
    Request::get(path).body(Body::empty()).unwrap()
}

async fn send(app: &axum::Router, req: Request<Body>) -> (StatusCode, String, String) {
    let resp: Response<Body> = app.clone().oneshot(req).await.unwrap();
    let status = resp.status();
    let ct = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    (status, ct, String::from_utf8_lossy(&body).into_owned())
}

/// Asserts a problem document with `status` and `code`; returns its detail.
async fn problem(app: &axum::Router, req: Request<Body>, status: StatusCode, code: &str) -> String {
    let (s, ct, body) = send(app, req).await;
    assert_eq!(s, status, "{body}");
    assert_eq!(ct, "application/problem+json", "{body}");
    let p: Problem = serde_json::from_str(&body).expect("a problem document");
    assert_eq!(p.status, status.as_u16());
    assert_eq!(p.code, code, "{body}");
    assert_eq!(p.kind, "about:blank");
    assert!(!p.detail.is_empty());
    p.detail
}

async fn healthy(app: &axum::Router) {
    let (s, _, body) = send(app, get("/healthz")).await;
    assert_eq!((s, body.as_str()), (StatusCode::OK, "ok\n"));
}

#[tokio::test]
async fn the_upload_page_offers_captures_topology_vm_disks_and_format() {
    let app = default_app();
    let resp = app.clone().oneshot(get("/")).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(resp.headers()[header::CONTENT_SECURITY_POLICY].to_str().unwrap().contains("'none'"));
    let (_, ct, html) = send(&app, get("/")).await;
    assert_eq!(ct, "text/html; charset=utf-8");
    for want in [
        r#"action="/api/v1/analyze""#,
        r#"enctype="multipart/form-data""#,
        r#"name="capture" type="file" multiple"#,
        r#"name="topology" type="file""#,
        r#"name="vm""#,
        r#"<option value="Standard_DS13_v2">"#,
        r#"name="disk_name""#,
        r#"<option value="P30">"#,
        r#"name="format""#,
        "Up to 256 MiB",
        "or collector bundles (.tar.gz, .zip)",
        "Azure Monitor metrics JSON",
    ] {
        assert!(html.contains(want), "{want} missing from the page");
    }
}

#[tokio::test]
async fn healthz_rules_catalog_and_openapi() {
    let app = default_app();
    healthy(&app).await;

    let (s, ct, body) = send(&app, get("/api/v1/rules")).await;
    assert_eq!((s, ct.as_str()), (StatusCode::OK, "application/json"));
    let rules: Vec<Value> = serde_json::from_str(&body).unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for id in ["vm-cached-throughput-cap", "disk-iops-throttled", "bench-hit-vm-cap"] {
        assert!(ids.contains(&id), "{id} not in {ids:?}");
    }
    assert!(rules.iter().all(|r| r["explain"].as_str().is_some_and(|e| !e.is_empty())));

    let (s, _, body) = send(&app, get("/api/v1/catalog/vm/standard_ds13_v2")).await;
    assert_eq!(s, StatusCode::OK);
    let vm: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(vm["name"], "Standard_DS13_v2");
    assert_eq!(vm["cached_mbps"], 256.0);
    let detail =
        problem(&app, get("/api/v1/catalog/vm/ds13v2"), StatusCode::NOT_FOUND, "not-found").await;
    assert!(detail.contains("Standard_DS13_v2"), "a did-you-mean: {detail}");

    let (s, ct, body) = send(&app, get("/api/v1/openapi.json")).await;
    assert_eq!((s, ct.as_str()), (StatusCode::OK, "application/json"));
    let doc: Value = serde_json::from_str(&body).unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    for path in ["/", "/healthz", "/api/v1/analyze", "/api/v1/rules", "/api/v1/catalog/vm/{size}"] {
        assert!(doc["paths"].get(path).is_some(), "{path} missing from the OpenAPI document");
    }
    assert_eq!(
        doc.pointer("/components/schemas/Report/properties/schema/const"),
        Some(&Value::from("advisor.report/v1"))
    );
}

#[tokio::test]
async fn analyze_answers_json_html_or_markdown() {
    let app = default_app();
    let (capture, topology) = ds13();
    let parts: [Part<'_>; 2] = [
        ("capture", Some("capture.csv"), &capture),
        ("topology", Some("topology.toml"), &topology),
    ];

    for accept in [Some("application/json"), None, Some("*/*")] {
        let (s, ct, body) = send(&app, post(&parts, accept)).await;
        assert_eq!((s, ct.as_str()), (StatusCode::OK, "application/json"), "{body}");
        let report: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(report["schema"], "advisor.report/v1");
        assert_eq!(report["inputs"][0]["file"], "capture.csv");
        let first = &report["findings"][0];
        assert_eq!(
            (first["rule"].as_str(), first["severity"].as_str()),
            (Some("vm-cached-throughput-cap"), Some("critical"))
        );
    }

    let (s, ct, html) = send(&app, post(&parts, Some("text/html"))).await;
    assert_eq!((s, ct.as_str()), (StatusCode::OK, "text/html; charset=utf-8"));
    assert!(html.contains("<article class=\"finding sev-critical\""), "{html}");
    assert!(html.contains("Standard_DS13_v2"));

    let with_format: Vec<Part<'_>> =
        parts.iter().copied().chain([("format", None, b"md" as &[u8])]).collect();
    let (s, ct, md) = send(&app, post(&with_format, Some("application/json"))).await;
    assert_eq!((s, ct.as_str()), (StatusCode::OK, "text/markdown; charset=utf-8"));
    assert!(md.starts_with("## Storage report: Standard_DS13_v2"), "{md}");
}

/// An AKS node's iostat with the cluster's documents as the topology files: the node's size
/// and the volume's disk come from Kubernetes' JSON, the device from `/dev/disk/azure`.
#[tokio::test]
async fn analyze_accepts_an_aks_nodes_kubernetes_documents_as_topology() {
    let app = default_app();
    let capture = std::fs::read(repo().join("fixtures/scenarios/ds1-with-p30/iostat.txt")).unwrap();
    let dir = repo().join("fixtures/topologies/documents/aks-d2sv3-linux");
    let names = [
        "node.json",
        "pv.json",
        "pvc.json",
        "storageclass.json",
        "volumeattachment.json",
        "disk-azure.txt",
    ];
    let files: Vec<Vec<u8>> = names.iter().map(|n| std::fs::read(dir.join(n)).unwrap()).collect();
    let mut parts: Vec<Part<'_>> = vec![("capture", Some("iostat.txt"), &capture)];
    for (n, f) in names.iter().zip(&files) {
        parts.push(("topology", Some(n), f));
    }
    let (s, _, body) = send(&app, post(&parts, Some("application/json"))).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let report: Value = serde_json::from_str(&body).unwrap();
    let rules: Vec<&str> =
        report["findings"].as_array().unwrap().iter().filter_map(|f| f["rule"].as_str()).collect();
    assert!(rules.contains(&"vm-provisioned-exceeds-vm-cap"), "{rules:?}");
    assert!(body.contains("Standard_D2s_v3"), "{body}");
}

/// Azure Monitor metrics go through the same upload (the reader registry), alone or beside
/// the guest capture of the same minutes, where the two agree in one finding.
#[tokio::test]
async fn analyze_accepts_azure_monitor_metrics_alone_and_beside_a_capture() {
    let app = default_app();
    let (capture, topology) = ds13();
    let metrics = std::fs::read(
        repo().join("fixtures/captures/azure-monitor-json/ds13v2-vm-cached-100pct.json"),
    )
    .unwrap();
    let rules = |body: &str| -> Vec<(String, String)> {
        let report: Value = serde_json::from_str(body).unwrap();
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (f["rule"].as_str().unwrap().to_owned(), f["subject"].as_str().unwrap().to_owned())
            })
            .collect()
    };
    let alone: [Part<'_>; 1] = [("capture", Some("metrics.json"), &metrics)];
    let (s, _, body) = send(&app, post(&alone, Some("application/json"))).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(rules(&body), [("platform-vm-cached-throttled".to_owned(), "VM cached".to_owned())]);
    let report: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(report["inputs"][0]["format"], "azure-monitor-json");
    let both: [Part<'_>; 3] = [
        ("capture", Some("metrics.json"), &metrics),
        ("capture", Some("capture.csv"), &capture),
        ("topology", Some("topology.toml"), &topology),
    ];
    let (s, _, body) = send(&app, post(&both, Some("application/json"))).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let found = rules(&body);
    assert!(
        found.contains(&("platform-confirms-guest-latency".to_owned(), "VM cached".to_owned())),
        "{found:?}"
    );
}

#[tokio::test]
async fn analyze_takes_a_vm_size_and_a_disks_table() {
    let app = default_app();
    let (capture, _) = ds13();
    let parts: Vec<Part<'_>> = vec![
        ("capture", Some("capture.csv"), &capture),
        ("vm", None, b"Standard_DS13_v2"),
        ("temp_disk", None, b"D:"),
        ("disk_name", None, b"C:"),
        ("disk_sku", None, b"P10"),
        ("disk_cache", None, b"None"),
        ("disk_role", None, b"os"),
        ("disk_name", None, b"E:"),
        ("disk_sku", None, b"P30"),
        ("disk_cache", None, b"ReadOnly"),
        ("disk_role", None, b"data"),
        // A blank row, as the page sends it.
        ("disk_name", None, b""),
        ("disk_sku", None, b""),
        ("disk_cache", None, b"None"),
        ("disk_role", None, b"data"),
    ];
    let (s, _, body) = send(&app, post(&parts, Some("application/json"))).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let report: Value = serde_json::from_str(&body).unwrap();
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"vm-cached-throughput-cap"), "{rules:?}");

    // The VM size alone: the VM's caps.
    let parts: [Part<'_>; 2] =
        [("capture", Some("capture.csv"), &capture), ("vm", None, b"Standard_DS13_v2")];
    let (s, _, body) = send(&app, post(&parts, None)).await;
    assert_eq!(s, StatusCode::OK, "{body}");

    // A size the catalog lacks, with the disks table: the disks are judged, the VM's caps
    // are not evaluated with the reason, and the warnings say why.
    let parts: Vec<Part<'_>> = vec![
        ("capture", Some("capture.csv"), &capture),
        ("vm", None, b"Standard_DS13_v9"),
        ("temp_disk", None, b"D:"),
        ("disk_name", None, b"E:"),
        ("disk_sku", None, b"P30"),
        ("disk_cache", None, b"ReadOnly"),
        ("disk_role", None, b"data"),
    ];
    let (s, _, body) = send(&app, post(&parts, Some("application/json"))).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let report: Value = serde_json::from_str(&body).unwrap();
    let reason = report["not_evaluated"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["rule"] == "vm-cached-throughput-cap")
        .map(|n| n["reason"].as_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    assert!(reason.starts_with("VM size Standard_DS13_v9 is not in advisor's catalog"), "{reason}");
    let warnings = report["warnings"].to_string();
    assert!(
        warnings.contains("\\\"Standard_DS13_v9\\\" is not in advisor's catalog"),
        "{warnings}"
    );
}

#[tokio::test]
async fn bad_uploads_are_4xx_problems_and_the_server_goes_on() {
    let app = default_app();
    let (capture, topology) = ds13();
    let binary: Vec<u8> =
        (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let cases: Vec<(Vec<Part<'_>>, StatusCode, &str, &str)> = vec![
        (vec![], StatusCode::BAD_REQUEST, "bad-request", "no capture"),
        (vec![("capture", Some(""), b"")], StatusCode::BAD_REQUEST, "bad-request", "no capture"),
        (
            vec![("capture", Some("x.csv"), &capture), ("colour", None, b"blue")],
            StatusCode::BAD_REQUEST,
            "bad-request",
            "unknown field `colour`",
        ),
        (
            vec![("capture", Some("x.csv"), &capture), ("format", None, b"pdf")],
            StatusCode::BAD_REQUEST,
            "bad-request",
            "pdf",
        ),
        (
            vec![("capture", Some("blob.bin"), &binary)],
            StatusCode::UNPROCESSABLE_ENTITY,
            "unreadable-capture",
            "blob.bin",
        ),
        (
            vec![("capture", Some("empty.csv"), b"")],
            StatusCode::UNPROCESSABLE_ENTITY,
            "unreadable-capture",
            "empty",
        ),
        (
            vec![("capture", Some("a.bin"), &binary), ("capture", Some("b.bin"), &binary)],
            StatusCode::UNPROCESSABLE_ENTITY,
            "unreadable-capture",
            "2 captures could not be read",
        ),
        (
            vec![("capture", Some("x.csv"), &capture), ("topology", Some("t.toml"), b"[vm\nsize=")],
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad-topology",
            "t.toml",
        ),
        (
            vec![
                ("capture", Some("x.csv"), &capture),
                ("topology", Some("t.toml"), &[0xff, 0xfe, 0]),
            ],
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad-topology",
            "not UTF-8",
        ),
        (
            vec![
                ("capture", Some("x.csv"), &capture),
                ("topology", Some("t.toml"), &topology),
                ("disk_name", None, b"E:"),
            ],
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad-topology",
            "not both",
        ),
    ];
    for (parts, status, code, says) in cases {
        let detail = problem(&app, post(&parts, Some("application/json")), status, code).await;
        assert!(detail.contains(says), "{code}: {says:?} not in {detail:?}");
    }

    let ok: [Part<'_>; 1] = [("capture", Some("x.csv"), &capture)];
    let detail =
        problem(&app, post(&ok, Some("image/png")), StatusCode::NOT_ACCEPTABLE, "not-acceptable")
            .await;
    assert!(detail.contains("text/html"), "{detail}");

    let not_multipart = Request::post("/api/v1/analyze")
        .header(header::CONTENT_TYPE, "text/csv")
        .body(Body::from(capture.clone()))
        .unwrap();
    let detail = problem(&app, not_multipart, StatusCode::BAD_REQUEST, "bad-request").await;
    assert!(detail.contains("multipart/form-data"), "{detail}");

    let truncated = {
        let mut b = multipart(&ok);
        b.truncate(b.len() / 2);
        Request::post("/api/v1/analyze")
            .header(header::CONTENT_TYPE, format!("multipart/form-data; boundary={BOUNDARY}"))
            .body(Body::from(b))
            .unwrap()
    };
    problem(&app, truncated, StatusCode::BAD_REQUEST, "bad-request").await;

    problem(&app, get("/nowhere"), StatusCode::NOT_FOUND, "not-found").await;
    problem(&app, get("/api/v1/analyze"), StatusCode::METHOD_NOT_ALLOWED, "method-not-allowed")
        .await;
    healthy(&app).await;
}

#[tokio::test]
async fn a_browser_gets_the_page_again_with_the_message() {
    let app = default_app();
    let parts: [Part<'_>; 1] = [("capture", Some("blob.bin"), &[0u8, 159, 146, 150, 0, 1, 2])];
    let (s, ct, html) =
        send(&app, post(&parts, Some("text/html,application/xhtml+xml,*/*;q=0.8"))).await;
    assert_eq!((s, ct.as_str()), (StatusCode::UNPROCESSABLE_ENTITY, "text/html; charset=utf-8"));
    assert!(html.contains(r#"<div class="error" id="error" role="alert">"#), "{html}");
    assert!(html.contains("blob.bin"), "{html}");
    assert!(html.contains(r#"action="/api/v1/analyze""#));
}

#[tokio::test]
async fn oversized_bodies_are_413_before_they_are_read() {
    let app = app(state(Config { max_upload: 4096, ..Config::default() }));
    let (capture, _) = ds13();
    let parts: [Part<'_>; 1] = [("capture", Some("capture.csv"), &capture)];
    let detail =
        problem(&app, post(&parts, None), StatusCode::PAYLOAD_TOO_LARGE, "too-large").await;
    assert!(detail.contains("4 KiB"), "{detail}");

    // A declared length over the limit is refused with a body that never ends: it is not read.
    let never = Body::from_stream(Stalling { first: None });
    let req = Request::post("/api/v1/analyze")
        .header(header::CONTENT_TYPE, format!("multipart/form-data; boundary={BOUNDARY}"))
        .header(header::CONTENT_LENGTH, 700u64 * 1024 * 1024)
        .body(never)
        .unwrap();
    let resp = tokio::time::timeout(Duration::from_secs(10), app.clone().oneshot(req))
        .await
        .expect("answered without reading the body")
        .unwrap();
    assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE);

    // No Content-Length (chunked): cut off at the limit.
    let body = multipart(&parts);
    let chunks: Vec<Bytes> = body.chunks(1000).map(Bytes::copy_from_slice).collect();
    let req = Request::post("/api/v1/analyze")
        .header(header::CONTENT_TYPE, format!("multipart/form-data; boundary={BOUNDARY}"))
        .body(Body::from_stream(Chunks(chunks.into_iter())))
        .unwrap();
    problem(&app, req, StatusCode::PAYLOAD_TOO_LARGE, "too-large").await;

    // A browser gets the page with the message.
    let mut req = post(&parts, Some("text/html"));
    req.headers_mut().insert(header::ACCEPT, "text/html".parse().unwrap());
    let (s, ct, html) = send(&app, req).await;
    assert_eq!((s, ct.as_str()), (StatusCode::PAYLOAD_TOO_LARGE, "text/html; charset=utf-8"));
    assert!(html.contains("larger than the limit of 4 KiB"));
    healthy(&app).await;
}

#[tokio::test]
async fn a_busy_server_answers_503_with_retry_after() {
    let state =
        state(Config { workers: 1, queue_wait: Duration::from_millis(100), ..Config::default() });
    let app = app(state.clone());
    let (capture, _) = ds13();
    let parts: [Part<'_>; 1] = [("capture", Some("capture.csv"), &capture)];
    let held = state.occupy_all_slots().await.expect("slots");
    let resp = app.clone().oneshot(post(&parts, None)).await.unwrap();
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(resp.headers()[header::RETRY_AFTER], "1");
    problem(&app, post(&parts, None), StatusCode::SERVICE_UNAVAILABLE, "busy").await;
    healthy(&app).await;
    drop(held);
    let (s, _, _) = send(&app, post(&parts, None)).await;
    assert_eq!(s, StatusCode::OK);
}

#[tokio::test]
async fn a_stalled_upload_times_out_with_408() {
    let app =
        app(state(Config { request_timeout: Duration::from_millis(300), ..Config::default() }));
    let (capture, _) = ds13();
    let mut start = multipart(&[("capture", Some("capture.csv"), &capture)]);
    start.truncate(start.len() / 2);
    let body = Body::from_stream(Stalling { first: Some(Bytes::from(start)) });
    let req = Request::post("/api/v1/analyze")
        .header(header::CONTENT_TYPE, format!("multipart/form-data; boundary={BOUNDARY}"))
        .body(body)
        .unwrap();
    let detail = tokio::time::timeout(
        Duration::from_secs(10),
        problem(&app, req, StatusCode::REQUEST_TIMEOUT, "upload-timeout"),
    )
    .await
    .expect("answered in time");
    assert!(detail.contains("did not arrive"), "{detail}");
    healthy(&app).await;
}

#[tokio::test]
async fn a_long_analysis_times_out_with_503() {
    let app =
        app(state(Config { request_timeout: Duration::from_millis(40), ..Config::default() }));
    let (capture, _) = ds13();
    // Ten copies: far more than 40 ms of reading and analysis, and quick to upload.
    let parts: Vec<Part<'_>> =
        (0..10).map(|_| ("capture", Some("c.csv"), capture.as_slice())).collect();
    let resp = app.clone().oneshot(post(&parts, None)).await.unwrap();
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(resp.headers().contains_key(header::RETRY_AFTER));
    let p: Problem =
        serde_json::from_slice(&resp.into_body().collect().await.unwrap().to_bytes()).unwrap();
    assert_eq!(p.code, "analysis-timeout");
    healthy(&app).await;
}

/// A body that sends `first` (when there is one), then nothing, forever.
struct Stalling {
    first: Option<Bytes>,
}

impl futures_core::Stream for Stalling {
    type Item = Result<Bytes, std::io::Error>;
    fn poll_next(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.first.take() {
            Some(b) => Poll::Ready(Some(Ok(b))),
            None => Poll::Pending,
        }
    }
}

/// A body sent in chunks, without a Content-Length.
struct Chunks(std::vec::IntoIter<Bytes>);

impl futures_core::Stream for Chunks {
    type Item = Result<Bytes, std::io::Error>;
    fn poll_next(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Poll::Ready(self.0.next().map(Ok))
    }
}

/// The rule ids of a JSON report's findings, in order.
fn rule_ids(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{} {}", f["rule"], f["subject"]))
        .collect()
}

#[tokio::test]
async fn a_collector_bundle_is_analysed_like_its_capture() {
    let app = default_app();
    let (capture, topology) = ds13();
    let zip = std::fs::read(repo().join("fixtures/bundles/windows-ds13v2.zip")).unwrap();
    let tgz = std::fs::read(repo().join("fixtures/bundles/linux-off-azure.tar.gz")).unwrap();
    let loose: [Part<'_>; 2] =
        [("capture", Some("capture.csv"), &capture), ("topology", Some("t.toml"), &topology)];
    let (s, _, body) = send(&app, post(&loose, None)).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let loose: Value = serde_json::from_str(&body).unwrap();

    let bundle: [Part<'_>; 2] =
        [("capture", Some("bundle.zip"), &zip), ("topology", Some("t.toml"), &topology)];
    let (s, _, body) = send(&app, post(&bundle, None)).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let report: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(rule_ids(&report), rule_ids(&loose));
    assert_eq!(report["inputs"][0]["file"], "bundle.zip!perfmon.csv");
    assert_eq!(report["inputs"][1]["format"], "collector-manifest");
    let imds = report["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["file"] == "bundle.zip!imds.json")
        .expect("the IMDS document is listed");
    assert_eq!(imds["format"], "topology");

    // Without a topology file the bundle's own documents give the same verdicts.
    let alone: [Part<'_>; 1] = [("capture", Some("bundle.zip"), &zip)];
    let (s, _, body) = send(&app, post(&alone, None)).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let alone: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(rule_ids(&alone), rule_ids(&loose));
    assert_eq!(alone["not_evaluated"], loose["not_evaluated"]);

    // A tar.gz beside a loose capture: both read, one report.
    let both: [Part<'_>; 2] =
        [("capture", Some("vm.tgz"), &tgz), ("capture", Some("capture.csv"), &capture)];
    let (s, _, body) = send(&app, post(&both, None)).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let report: Value = serde_json::from_str(&body).unwrap();
    let files: Vec<&str> =
        report["inputs"].as_array().unwrap().iter().filter_map(|i| i["file"].as_str()).collect();
    assert!(files.contains(&"vm.tgz!advisor-vm-20261124T002750Z/iostat.json"), "{files:?}");
    assert!(files.contains(&"capture.csv"), "{files:?}");
}

#[tokio::test]
async fn hostile_bundles_are_422_naming_the_archive_and_the_entry() {
    let app = default_app();
    let invalid = repo().join("fixtures/invalid");
    for (file, says) in [
        ("bundle-zip-bomb.zip", "entry `perfmon.csv`: the archive unpacks to more than 200 times"),
        ("bundle-traversal.zip", "entry `../../etc/cron.d/x`: a `..` component"),
        ("bundle-traversal.tar.gz", "entry `../../etc/cron.d/x`: a `..` component"),
        ("bundle-symlink.zip", "entry `imds.json`: a symbolic link"),
        ("bundle-symlink.tar.gz", "entry `imds.json`: a symbolic link"),
    ] {
        let bytes = std::fs::read(invalid.join(file)).unwrap();
        let parts: [Part<'_>; 1] = [("capture", Some(file), &bytes)];
        let detail = problem(
            &app,
            post(&parts, None),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unreadable-capture",
        )
        .await;
        assert!(detail.starts_with(&format!("{file}: {says}")), "{file}: {detail}");
    }
    // An archive with no capture in it.
    let imds = std::fs::read(repo().join("fixtures/bundles/windows-ds13v2/imds.json")).unwrap();
    let mut z = Vec::new();
    {
        // A stored (uncompressed) zip of one entry, written by hand: local header, data,
        // central directory, end record.
        let name = b"imds.json";
        let crc = crc32(&imds);
        let mut local = Vec::new();
        local.extend_from_slice(b"PK\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00");
        local.extend_from_slice(&crc.to_le_bytes());
        local.extend_from_slice(&(imds.len() as u32).to_le_bytes());
        local.extend_from_slice(&(imds.len() as u32).to_le_bytes());
        local.extend_from_slice(&(name.len() as u16).to_le_bytes());
        local.extend_from_slice(&0u16.to_le_bytes());
        local.extend_from_slice(name);
        z.extend_from_slice(&local);
        z.extend_from_slice(&imds);
        let cd_start = z.len() as u32;
        z.extend_from_slice(b"PK\x01\x02\x14\x00\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00");
        z.extend_from_slice(&crc.to_le_bytes());
        z.extend_from_slice(&(imds.len() as u32).to_le_bytes());
        z.extend_from_slice(&(imds.len() as u32).to_le_bytes());
        z.extend_from_slice(&(name.len() as u16).to_le_bytes());
        z.extend_from_slice(&[0; 12]);
        z.extend_from_slice(&0u32.to_le_bytes());
        z.extend_from_slice(name);
        let cd_len = z.len() as u32 - cd_start;
        z.extend_from_slice(b"PK\x05\x06\x00\x00\x00\x00\x01\x00\x01\x00");
        z.extend_from_slice(&cd_len.to_le_bytes());
        z.extend_from_slice(&cd_start.to_le_bytes());
        z.extend_from_slice(&0u16.to_le_bytes());
    }
    let parts: [Part<'_>; 1] = [("capture", Some("meta.zip"), &z)];
    let detail =
        problem(&app, post(&parts, None), StatusCode::UNPROCESSABLE_ENTITY, "unreadable-capture")
            .await;
    assert!(detail.starts_with("meta.zip: no capture in it"), "{detail}");
    healthy(&app).await;
}

/// CRC-32 (IEEE), for the hand-written zip above.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}
