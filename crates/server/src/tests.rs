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
            routes::run_blocking(&state, slot, work(&state), |_| panic!("analysis bug")).await;
        assert!(matches!(r, Err(AppError::Internal(_))), "{r:?}");
    }
    assert_eq!(state.inner.slots.available_permits(), 1);
}

fn work(state: &AppState) -> routes::RequestWork {
    routes::RequestWork(state.inner.new_work())
}

#[tokio::test]
async fn a_cancelled_analysis_stops_at_its_next_checkpoint_and_frees_its_slot() {
    let state = state();
    let slot = state.inner.slots.clone().try_acquire_owned().expect("a free slot");
    let (tx, rx) = std::sync::mpsc::channel();
    // The analysis loops until cancelled, charging memory as it goes.
    let job = routes::run_blocking(&state, slot, work(&state), move |_| {
        let _ = tx.send(());
        loop {
            advisor_model::work::charge(1);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    });
    let started = std::time::Instant::now();
    let r: Result<Result<(), AppError>, _> =
        tokio::time::timeout(std::time::Duration::from_millis(200), job).await;
    assert!(r.is_err(), "the request gave up");
    assert!(rx.recv().is_ok(), "the analysis had started");
    // Dropping the request's future cancelled the work: the slot and the memory come back.
    while state.inner.slots.available_permits() < 1 {
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "the slot never came back");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(state.memory_in_use(), 0);
}

#[tokio::test]
async fn over_the_budget_is_413_alone_and_503_beside_others() {
    let state = AppState::new(Config { workers: 2, memory_budget: 1 << 20, ..Config::default() })
        .expect("state");
    let slot = state.inner.slots.clone().try_acquire_owned().expect("a free slot");
    let r: Result<(), AppError> = routes::run_blocking(&state, slot, work(&state), |_| {
        advisor_model::work::charge(2 << 20);
        Ok(())
    })
    .await;
    let Err(e) = r else { panic!("over the budget") };
    assert_eq!((e.status().as_u16(), e.code()), (413, "over-memory-budget"), "{e}");
    let other = state.inner.new_work();
    other.try_charge(900 << 10).expect("fits");
    let slot = state.inner.slots.clone().try_acquire_owned().expect("a free slot");
    let r: Result<(), AppError> = routes::run_blocking(&state, slot, work(&state), |_| {
        advisor_model::work::charge(200 << 10);
        Ok(())
    })
    .await;
    let Err(e) = r else { panic!("over the budget") };
    assert_eq!((e.status().as_u16(), e.code()), (503, "over-memory-budget"), "{e}");
    drop(other);
    assert_eq!(state.memory_in_use(), 0);
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

/// The page and the OpenAPI document name every capture format of the reader registry:
/// their lists are rendered from it, so a format dropped from either would fail here.
#[tokio::test]
async fn the_page_and_the_api_document_name_every_registered_format() {
    let app = app(state());
    let resp = app.oneshot(Request::get("/").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let body = axum::body::to_bytes(resp.into_body(), 1 << 22).await.unwrap();
    let html = String::from_utf8(body.to_vec()).unwrap();
    // The page's text, unescaped as a browser shows it.
    let text = html
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&#x2F;", "/")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    assert_eq!(advisor_engine::missing_formats(&text), Vec::<&str>::new(), "{html}");

    let doc: serde_json::Value = serde_json::from_str(openapi::spec().unwrap()).unwrap();
    let capture = doc
        .pointer("/components/schemas/AnalyzeForm/properties/capture/description")
        .and_then(serde_json::Value::as_str)
        .unwrap();
    let formats: Vec<&str> = advisor_engine::missing_formats(capture)
        .into_iter()
        .filter(|p| *p != advisor_engine::BUNDLES)
        .collect();
    assert_eq!(formats, Vec::<&str>::new(), "{capture}");
    assert!(!openapi::spec().unwrap().contains(advisor_engine::FORMATS_MARKER));
}

/// The reference routes answer the CLI's documents (`advisor rules explain ID --json`,
/// `advisor catalog vm SIZE --json`), and the OpenAPI document describes them by their
/// schemas.
#[tokio::test]
async fn the_reference_routes_answer_the_documents_the_cli_prints() {
    let state = state();
    let app = app(state.clone());
    let get = |uri: &str| Request::get(uri).body(Body::empty()).unwrap();
    let resp = app.clone().oneshot(get("/api/v1/rules")).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let body = axum::body::to_bytes(resp.into_body(), 1 << 24).await.unwrap();
    let rules = state.inner.session.rules();
    let want = serde_json::to_vec(&advisor_engine::RuleDocument::all(rules)).unwrap();
    assert_eq!(body, want);
    assert!(rules.rules().count() > 40);

    let resp = app.clone().oneshot(get("/api/v1/catalog/vm/ds13_v2")).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let body = axum::body::to_bytes(resp.into_body(), 1 << 20).await.unwrap();
    let vm = state.inner.session.catalog().vm("Standard_DS13_v2").unwrap();
    assert_eq!(body, serde_json::to_vec(&advisor_engine::VmDocument::of(vm)).unwrap());

    let doc: serde_json::Value = serde_json::from_str(openapi::spec().unwrap()).unwrap();
    let answer = |op: &str| {
        doc.pointer(&format!("/paths/{op}/responses/200/content/application~1json/schema"))
            .cloned()
            .unwrap_or_else(|| panic!("{op}"))
    };
    assert_eq!(
        answer("~1api~1v1~1rules/get")["items"]["$ref"],
        "#/components/schemas/RuleDocument"
    );
    assert_eq!(
        answer("~1api~1v1~1catalog~1vm~1{size}/get")["$ref"],
        "#/components/schemas/VmDocument"
    );
    let schemas = &doc["components"]["schemas"];
    assert_eq!(schemas["RuleDocument"]["properties"]["explain"]["type"], "string");
    assert!(schemas["VmDocument"]["properties"].get("premium_storage").is_some());
    // Every reference points at a schema the document has.
    let text = openapi::spec().unwrap();
    for piece in text.split("\"#/components/schemas/").skip(1) {
        let name = &piece[..piece.find('"').unwrap()];
        assert!(schemas.get(name).is_some(), "{name} is referenced but missing");
    }
}
