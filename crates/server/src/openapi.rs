//! The OpenAPI 3.1 document, derived from the handlers (utoipa) with the JSON report's
//! schema (generated from the model types by the report crate) as `Report`.

use std::sync::OnceLock;

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use utoipa::OpenApi;

use crate::AppError;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "advisor",
        description = "Tells why an Azure VM's storage is slow: upload storage captures and a \
                       topology, get the report (JSON advisor.report/v1, HTML or Markdown)."
    ),
    paths(
        crate::routes::analyze,
        crate::compare::compare,
        crate::recommend::recommend,
        crate::routes::rules,
        crate::routes::catalog_vm,
        crate::routes::healthz,
        crate::routes::readyz,
        crate::page::upload_page,
        document
    ),
    components(schemas(
        crate::Problem,
        crate::upload::AnalyzeForm,
        crate::compare::CompareForm,
        crate::upload::RecommendForm
    ))
)]
struct ApiDoc;

/// This document.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "service",
    responses((status = 200, description = "The OpenAPI 3.1 document of this API", content(("application/json")))))]
pub(crate) async fn document() -> Response {
    match spec() {
        Ok(v) => {
            let mut r = v.clone().into_response();
            r.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            r
        }
        Err(e) => AppError::Internal(format!("OpenAPI document: {e}")).into_response(),
    }
}

/// The document as text, built once.
pub(crate) fn spec() -> Result<&'static String, String> {
    static SPEC: OnceLock<Result<String, String>> = OnceLock::new();
    SPEC.get_or_init(build).as_ref().map_err(Clone::clone)
}

fn build() -> Result<String, String> {
    let mut doc = serde_json::to_value(ApiDoc::openapi()).map_err(|e| e.to_string())?;
    let report = advisor_report::json_schema();
    let schemas = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .ok_or("no components.schemas")?;
    add_schema(schemas, "Report", report)?;
    // The reference documents are the CLI's, from the same types: their schemas too.
    for (name, of) in [("RuleDocument", "rule"), ("VmDocument", "catalog-vm")] {
        let schema = advisor_engine::schema(of).ok_or_else(|| format!("no schema {of}"))?;
        add_schema(schemas, name, schema)?;
    }
    let answers = [
        ("/paths/~1api~1v1~1analyze/post", json!({ "$ref": "#/components/schemas/Report" })),
        (
            "/paths/~1api~1v1~1rules/get",
            json!({ "type": "array", "items": { "$ref": "#/components/schemas/RuleDocument" } }),
        ),
        (
            "/paths/~1api~1v1~1catalog~1vm~1{size}/get",
            json!({ "$ref": "#/components/schemas/VmDocument" }),
        ),
    ];
    for (op, schema) in answers {
        let pointer = format!("{op}/responses/200/content/application~1json");
        let content = doc.pointer_mut(&pointer).ok_or_else(|| format!("no {pointer}"))?;
        *content = json!({ "schema": schema });
    }
    add_security(&mut doc);
    // The forms' descriptions name the formats of the reader registry, not a list kept by hand.
    advisor_engine::fill_formats_in(&mut doc);
    serde_json::to_string_pretty(&doc)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| e.to_string())
}

/// The guard's side of the document: the two ways to send a token, and on every
/// operation but the liveness probe the answers of a refused request. Whether a server
/// asks for a token is its operator's choice (`--tokens`, `--trust-header`), so an
/// operation may also be called without one (the empty requirement).
fn add_security(doc: &mut Value) {
    let problem = |description: &str| {
        json!({
            "description": description,
            "content": { "application/problem+json": {
                "schema": { "$ref": "#/components/schemas/Problem" } } }
        })
    };
    if let Some(components) = doc.get_mut("components").and_then(Value::as_object_mut) {
        components.insert(
            "securitySchemes".to_owned(),
            json!({
                "token": { "type": "http", "scheme": "bearer",
                    "description": "A token of the server's --tokens file (advisor token new NAME)" },
                "browser": { "type": "http", "scheme": "basic",
                    "description": "The same token as the password (any user name): what a browser asks for" }
            }),
        );
    }
    if let Some(obj) = doc.as_object_mut() {
        obj.insert("security".to_owned(), json!([{ "token": [] }, { "browser": [] }, {}]));
    }
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else { return };
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else { continue };
        for op in item.values_mut().filter_map(Value::as_object_mut) {
            if path == "/healthz" || path == "/readyz" {
                op.insert("security".to_owned(), json!([{}]));
                continue;
            }
            let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                continue;
            };
            responses.insert(
                "401".to_owned(),
                problem("No token, or one the server does not accept (servers started with --tokens); see WWW-Authenticate"),
            );
            responses.insert(
                "403".to_owned(),
                problem("Not sent through the trusted proxy (--trust-header), or sent by a browser from another site's page"),
            );
            responses.insert(
                "429".to_owned(),
                problem("More requests than the client's --rate; see Retry-After"),
            );
        }
    }
}

/// Puts a document's JSON Schema (generated from its type by schemars) in as `name`, its
/// `$defs` beside it as components, and points its references there. Two documents may
/// share a definition; two different definitions of one name are an error.
fn add_schema(
    schemas: &mut Map<String, Value>,
    name: &str,
    mut schema: Value,
) -> Result<(), String> {
    let mut insert = |name: String, def: Value| match schemas.get(&name) {
        Some(had) if *had != def => Err(format!("two schemas named {name}")),
        _ => {
            schemas.insert(name, def);
            Ok(())
        }
    };
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
        if let Some(Value::Object(defs)) = obj.remove("$defs") {
            for (name, mut def) in defs {
                rewrite_refs(&mut def);
                insert(name, def)?;
            }
        }
    }
    rewrite_refs(&mut schema);
    insert(name.to_owned(), schema)
}

fn rewrite_refs(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "$ref"
                    && let Value::String(s) = x
                    && let Some(name) = s.strip_prefix("#/$defs/")
                {
                    *s = format!("#/components/schemas/{name}");
                } else {
                    rewrite_refs(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}
