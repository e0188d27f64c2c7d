//! `POST /api/v1/compare` driven through `app()` with `oneshot`: two sets of uploads, the
//! comparison in each format, the after side's own topology, and the 4xx problems.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use advisor_server::{AppState, Config, Problem, app};
use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};
use http_body_util::BodyExt as _;
use serde_json::Value;
use tower::ServiceExt as _;

const BOUNDARY: &str = "advisor-compare-boundary-41";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(repo().join(rel)).unwrap()
}

type Part<'a> = (&'a str, Option<&'a str>, &'a [u8]);

fn post(parts: &[Part<'_>], accept: Option<&str>) -> Request<Body> {
    let mut body = Vec::new();
    for (name, file, content) in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        let disposition = match file {
            Some(f) => format!(
                "Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\n\
                 Content-Type: application/octet-stream\r\n\r\n"
            ),
            None => format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n"),
        };
        body.extend_from_slice(disposition.as_bytes());
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    let mut r = Request::post("/api/v1/compare")
        .header(header::CONTENT_TYPE, format!("multipart/form-data; boundary={BOUNDARY}"))
        .header(header::CONTENT_LENGTH, body.len());
    if let Some(a) = accept {
        r = r.header(header::ACCEPT, a);
    }
    r.body(Body::from(body)).unwrap()
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

const SEED: &str = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30";
const AFTER: &str = "fixtures/compare/ds13v2-cache-off-temp-moved/after";

#[tokio::test]
async fn two_sets_of_uploads_compare_in_every_format() {
    let app = app(AppState::new(Config::default()).unwrap());
    let (bc, bt) = (read(&format!("{SEED}/capture.csv")), read(&format!("{SEED}/topology.toml")));
    let (ac, at) = (read(&format!("{AFTER}/capture.csv")), read(&format!("{AFTER}/topology.toml")));
    let parts: [Part<'_>; 4] = [
        ("before", Some("before.csv"), &bc),
        ("topology", Some("topology.toml"), &bt),
        ("after", Some("after.csv"), &ac),
        ("after_topology", Some("after.toml"), &at),
    ];
    let (s, ct, body) = send(&app, post(&parts, None)).await;
    assert_eq!((s, ct.as_str()), (StatusCode::OK, "application/json"), "{body}");
    let c: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(c["schema"], "advisor.compare/v1");
    assert_eq!(c["verdict"]["outcome"], "better");
    assert_eq!(c["before"]["inputs"][0]["file"], "before.csv");
    assert_eq!(c["after"]["inputs"][0]["file"], "after.csv");
    let resolved = c["findings"]["resolved"].as_array().unwrap();
    assert!(resolved.iter().any(|f| f["rule"] == "vm-cached-throughput-cap"), "{body}");

    let (s, ct, md) = send(&app, post(&parts, Some("text/markdown"))).await;
    assert_eq!((s, ct.as_str()), (StatusCode::OK, "text/markdown; charset=utf-8"));
    assert!(md.starts_with("## Better after the change: "), "{md}");
    let (s, ct, html) = send(&app, post(&parts, Some("text/html"))).await;
    assert_eq!((s, ct.as_str()), (StatusCode::OK, "text/html; charset=utf-8"));
    assert!(html.contains("Better after the change"));
    assert!(html.contains("<svg"), "overlaid charts");
}

#[tokio::test]
async fn a_side_without_captures_or_a_bad_capture_is_a_problem() {
    let app = app(AppState::new(Config::default()).unwrap());
    let bc = read(&format!("{SEED}/capture.csv"));
    let problem = |body: &str| -> Problem { serde_json::from_str(body).expect("a problem") };
    let (s, _, body) = send(&app, post(&[("before", Some("b.csv"), &bc)], None)).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
    assert!(problem(&body).detail.contains("no `after` capture"), "{body}");
    let junk: &[u8] = b"not a capture at all\n";
    let (s, _, body) = send(
        &app,
        post(&[("before", Some("b.csv"), &bc), ("after", Some("junk.txt"), junk)], None),
    )
    .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(problem(&body).detail.contains("junk.txt"), "{body}");
    let (s, _, body) =
        send(&app, post(&[("before", Some("b.csv"), &bc), ("capture", Some("x"), &bc)], None))
            .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
    assert!(problem(&body).detail.contains("unknown field `capture`"), "{body}");
}
