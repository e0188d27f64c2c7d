//! The upload page (`GET /`), rendered from the embedded `upload.html.tera` by the report's
//! Tera instance; also the page again with a message, for a person whose upload failed.

use advisor_model::limits::{Cache, Role};
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::error::human_bytes;
use crate::{AppError, AppState};

/// Blank rows of the disks table (the page's script adds more).
const DISK_ROWS: usize = 4;

const PAGE_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; \
                        form-action 'self'; base-uri 'none'";

/// The upload form.
#[utoipa::path(get, path = "/", tag = "service",
    responses((status = 200, description = "The upload page", body = String, content_type = "text/html")))]
pub(crate) async fn upload_page(State(state): State<AppState>) -> Response {
    render(&state, StatusCode::OK, None)
}

/// The upload page with `err` above the form, answered with the error's status.
pub(crate) fn error_page(state: &AppState, err: &AppError) -> Response {
    let resp = render(state, err.status(), Some(err));
    if matches!(err, AppError::Internal(_)) {
        tracing::error!(error = %err, "internal error");
    }
    resp
}

fn render(state: &AppState, status: StatusCode, err: Option<&AppError>) -> Response {
    let inner = &state.inner;
    let vm_sizes: Vec<&str> =
        inner.session.catalog().vm_sizes().iter().map(|v| v.name.as_str()).collect();
    let disk_skus: Vec<&str> =
        inner.session.catalog().disk_skus().iter().map(|d| d.name.as_str()).collect();
    let ctx = json!({
        "tool": { "name": "advisor", "version": env!("CARGO_PKG_VERSION") },
        "max_upload": human_bytes(inner.config.max_upload as u64),
        "max_upload_bytes": inner.config.max_upload,
        "vm_sizes": vm_sizes,
        "disk_skus": disk_skus,
        "formats": advisor_engine::capture_formats(),
        "bundles": advisor_engine::BUNDLES,
        "caches": Cache::ALL.map(Cache::name),
        // The default role first: the one a new row shows.
        "roles": std::iter::once(Role::default())
            .chain(Role::ALL.into_iter().filter(|r| *r != Role::default()))
            .map(Role::name)
            .collect::<Vec<_>>(),
        "rows": DISK_ROWS,
        "error": err.map(|e| json!({
            "title": e.problem().title,
            "status": e.status().as_u16(),
            "detail": e.detail(),
        })),
    });
    let page = tera::Context::from_value(ctx).map_err(|e| e.to_string()).and_then(|c| {
        inner.session.renderer().render_template("upload.html.tera", &c).map_err(|e| e.to_string())
    });
    match page {
        Ok(html) => {
            let mut resp = (status, html).into_response();
            let h = resp.headers_mut();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
            h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(PAGE_CSP));
            if let Some(e) = err
                && let AppError::Busy { retry_after } = e
            {
                h.insert(header::RETRY_AFTER, HeaderValue::from(*retry_after));
            }
            resp
        }
        Err(e) => AppError::Internal(format!("upload page: {e}")).into_response(),
    }
}
