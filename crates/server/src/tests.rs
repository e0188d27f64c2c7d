//! Panics: a handler's and an analysis's are answered 500 and the service goes on. These
//! need a route or a job that panics, so they live inside the crate.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::routing::get;
use tower::ServiceExt as _;

use super::*;

fn state() -> AppState {
    AppState::new(Config { workers: 1, ..Config::default() }).expect("state")
}

async fn boom() -> &'static str {
    panic!("a bug")
}

#[tokio::test]
async fn a_panicking_handler_is_answered_500_and_the_service_goes_on() {
    let routes = Router::new().route("/boom", get(boom)).route("/healthz", get(routes::healthz));
    let app = layered(routes, state());
    let resp =
        app.clone().oneshot(Request::get("/boom").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(resp.status(), StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(resp.headers()["content-type"], "application/problem+json");
    let body = axum::body::to_bytes(resp.into_body(), 1 << 20).await.unwrap();
    let p: Problem = serde_json::from_slice(&body).unwrap();
    assert_eq!(p.code, "internal");
    assert!(!p.detail.contains("a bug"), "the panic message is not shown: {}", p.detail);
    let ok = app.oneshot(Request::get("/healthz").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_panicking_analysis_is_500_and_frees_its_slot() {
    let state = state();
    for _ in 0..2 {
        let slot = state.inner.slots.clone().try_acquire_owned().expect("a free slot");
        let r: Result<(), AppError> =
            routes::run_blocking(&state, slot, |_| panic!("analysis bug")).await;
        assert!(matches!(r, Err(AppError::Internal(_))), "{r:?}");
    }
    assert_eq!(state.inner.slots.available_permits(), 1);
}

#[test]
fn human_sizes() {
    assert_eq!(error::human_bytes(256 * 1024 * 1024), "256 MiB");
    assert_eq!(error::human_bytes(1536), "1.5 KiB");
    assert_eq!(error::human_bytes(10), "10 bytes");
}

#[test]
fn the_openapi_document_builds_and_every_reference_resolves() {
    let text = openapi::spec().expect("spec");
    let doc: serde_json::Value = serde_json::from_str(text).unwrap();
    let mut refs = Vec::new();
    collect_refs(&doc, &mut refs);
    assert!(refs.iter().any(|r| r == "#/components/schemas/Report"));
    for r in refs {
        let pointer = r.strip_prefix('#').expect("local ref");
        assert!(doc.pointer(pointer).is_some(), "{r} does not resolve");
    }
}

fn collect_refs(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("$ref", serde_json::Value::String(s)) => out.push(s.clone()),
                    _ => collect_refs(x, out),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_refs(x, out)),
        _ => {}
    }
}
