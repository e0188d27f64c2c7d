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

/// Each form's fields as the OpenAPI document describes them (from the form type's schema)
/// are the fields its reader takes (its table), and the reader's unknown-field error lists
/// them: the documentation and the parser are one thing.
#[test]
fn every_form_documents_the_fields_its_reader_takes() {
    use crate::form::{Field, Fields};
    use crate::upload::{AnalyzeForm, RecommendForm};
    let doc: serde_json::Value = serde_json::from_str(openapi::spec().unwrap()).unwrap();
    let schemas = &doc["components"]["schemas"];
    let properties = |name: &str| -> Vec<String> {
        let mut all: Vec<String> = Vec::new();
        let schema = &schemas[name];
        let parts: Vec<&serde_json::Value> = match schema.get("allOf") {
            Some(serde_json::Value::Array(items)) => items.iter().collect(),
            _ => vec![schema],
        };
        for part in parts {
            let part = match part.get("$ref").and_then(serde_json::Value::as_str) {
                Some(r) => &schemas[r.trim_start_matches("#/components/schemas/")],
                None => part,
            };
            let props = part["properties"].as_object().unwrap_or_else(|| panic!("{name}: {part}"));
            all.extend(props.keys().cloned());
        }
        all.sort();
        all
    };
    let names = |fields: &[Field]| -> Vec<String> {
        let mut v: Vec<String> = fields.iter().map(|f| f.name.to_owned()).collect();
        v.sort();
        v
    };
    assert_eq!(properties("AnalyzeForm"), names(AnalyzeForm::FIELDS));
    assert_eq!(properties("RecommendForm"), names(RecommendForm::FIELDS));
    assert_eq!(properties("CompareForm"), names(compare::CompareForm::FIELDS));
    // Recommend's form is analyze's, and its own three.
    assert_eq!(RecommendForm::FIELDS.len(), AnalyzeForm::FIELDS.len() + 3);
    for (a, r) in AnalyzeForm::FIELDS.iter().zip(RecommendForm::FIELDS) {
        assert_eq!((a.name, a.part, a.repeated), (r.name, r.part, r.repeated));
    }
    // What is required: the captures.
    assert_eq!(schemas["AnalyzeForm"]["required"], serde_json::json!(["capture"]));
    assert_eq!(schemas["CompareForm"]["required"], serde_json::json!(["before", "after"]));
}

/// The forms' limits and errors, read through the typed extractor.
#[tokio::test]
async fn the_form_extractor_keeps_the_limits_and_names_the_fields() {
    use crate::form::Form;
    use crate::upload::AnalyzeForm;
    use axum::extract::FromRequest as _;
    let state = state();
    let post = |parts: &[(&str, Option<&str>, &[u8])]| {
        let mut body = Vec::new();
        for (name, file, bytes) in parts {
            body.extend_from_slice(b"--XX\r\nContent-Disposition: form-data; name=\"");
            body.extend_from_slice(name.as_bytes());
            body.push(b'"');
            if let Some(f) = file {
                body.extend_from_slice(format!("; filename=\"{f}\"").as_bytes());
            }
            body.extend_from_slice(b"\r\n\r\n");
            body.extend_from_slice(bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(b"--XX--\r\n");
        Request::post("/")
            .header("content-type", "multipart/form-data; boundary=XX")
            .body(Body::from(body))
            .unwrap()
    };
    let read = |req| async { Form::<AnalyzeForm>::from_request(req, &state).await.map(|f| f.0) };
    let detail = |r: Result<AnalyzeForm, AppError>| match r {
        Err(e) => (e.status(), e.detail()),
        Ok(f) => panic!("read: {f:?}"),
    };

    let f = read(post(&[
        ("capture", Some(r"C:\fakepath\a.csv"), b"x"),
        ("capture", None, b"y"),
        ("capture", None, b""),
        ("disk_name", None, b" E: "),
        ("disk_name", None, b""),
        ("vm", None, b"  "),
        ("format", None, b"json"),
    ]))
    .await
    .unwrap();
    let names: Vec<&str> = f.capture.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a.csv", "capture-2"], "an empty part without a file name is skipped");
    assert_eq!(f.disk_name, ["E:", ""], "the table keeps its empty cells");
    assert_eq!((f.vm, f.format.as_deref()), (None, Some("json")));

    let (status, said) =
        detail(read(post(&[("capture", Some("a"), b"x"), ("colour", None, b"")])).await);
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        said,
        "unknown field `colour`; the fields are capture (repeated), topology (repeated), vm, \
         temp_disk, disk_name (repeated), disk_sku (repeated), disk_cache (repeated), \
         disk_role (repeated), format"
    );
    let (_, said) =
        detail(read(post(&[("capture", Some("a"), b"x"), ("percentile", None, b"90")])).await);
    assert!(said.starts_with("unknown field `percentile`"), "analyze's form is its own: {said}");
    let (_, said) = detail(read(post(&[("", None, b"x")])).await);
    assert!(said.starts_with("a part of the form has no name"), "{said}");
    let long = vec![b'a'; crate::form::MAX_TEXT_FIELD + 1];
    let (_, said) = detail(read(post(&[("capture", Some("a"), b"x"), ("vm", None, &long)])).await);
    assert_eq!(said, "field `vm` is 4097 bytes; it is a short text field");
    let (_, said) =
        detail(read(post(&[("capture", Some("a"), b"x"), ("vm", None, &[0xff])])).await);
    assert_eq!(said, "field `vm` is not UTF-8 text");
    let (status, said) = detail(read(post(&[("topology", Some("t.toml"), &[0xff])])).await);
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(said.starts_with("t.toml: a topology file is TOML or JSON text"), "{said}");
    let (status, said) = detail(read(post(&[("vm", None, b"D2s_v3")])).await);
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(said, "no capture: send one or more files in the `capture` field");
    let long_name = "n".repeat(10_000);
    let (_, said) = detail(read(post(&[(long_name.as_str(), None, b"x")])).await);
    assert!(said.len() < 2_000, "the unknown name is echoed bounded: {} bytes", said.len());
}
