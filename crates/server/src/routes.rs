//! The API's handlers and the request-wide middleware.

use std::time::Instant;

use advisor_engine::{EngineError, Input, RuleDocument, VmDocument};
use advisor_model::work::Stop;
use advisor_report::Format;
use axum::Json;
use axum::body::Body;
use axum::extract::multipart::MultipartRejection;
use axum::extract::{FromRequest as _, Multipart, Path, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt as _;
use tokio::sync::OwnedSemaphorePermit;

use crate::form::{Fields, Form};
use crate::negotiate;
use crate::upload::AnalyzeForm;
use crate::{AppError, AppState, page};

/// Answers 413 from `Content-Length` before any of the body is read.
pub(crate) async fn content_length(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> Response {
    let limit = state.inner.config.max_upload;
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        let err = AppError::TooLarge { limit };
        return if negotiate::prefers_html(accept(req.headers())) {
            page::error_page(&state, &err)
        } else {
            err.into_response()
        };
    }
    next.run(req).await
}

/// Headers on every answer.
pub(crate) async fn common_headers(mut resp: Response) -> Response {
    resp.headers_mut().insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    resp
}

pub(crate) fn accept(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::ACCEPT).and_then(|v| v.to_str().ok())
}

/// Liveness: 200 `ok` while the server answers.
#[utoipa::path(get, path = "/healthz", tag = "service",
    responses((status = 200, description = "The server answers", body = String, content_type = "text/plain")))]
pub(crate) async fn healthz() -> &'static str {
    "ok\n"
}

/// Readiness: 200 while an analysis slot is free, 503 while every one is taken, so that a
/// load balancer (a Kubernetes readiness probe) sends uploads to another replica.
#[utoipa::path(get, path = "/readyz", tag = "service",
    responses(
        (status = 200, description = "An analysis slot is free", body = String, content_type = "text/plain"),
        (status = 503, description = "Every analysis slot is taken", body = String, content_type = "text/plain"),
    ))]
pub(crate) async fn readyz(State(state): State<AppState>) -> Response {
    if state.inner.slots.available_permits() > 0 {
        "ready\n".into_response()
    } else {
        (axum::http::StatusCode::SERVICE_UNAVAILABLE, "busy: every analysis slot is taken\n")
            .into_response()
    }
}

pub(crate) async fn not_found() -> AppError {
    AppError::NotFound("no such page; the API is under /api/v1 (see /api/v1/openapi.json)".into())
}

pub(crate) async fn method_not_allowed() -> AppError {
    AppError::MethodNotAllowed
}

/// Analyzes captures against a topology and answers the report.
#[utoipa::path(post, path = "/api/v1/analyze", tag = "analysis",
    request_body(content = crate::upload::AnalyzeForm, content_type = "multipart/form-data"),
    params(("Accept" = Option<String>, Header,
        description = "application/json (default), text/html or text/markdown; the `format` field wins")),
    responses(
        (status = 200, description = "The report: the JSON document of the contract (advisor.report/v1), a self-contained HTML page, or Markdown",
            content(("application/json"), (String = "text/html"), (String = "text/markdown"))),
        (status = 400, description = "A missing capture, an unknown field or a bad value", body = crate::Problem, content_type = "application/problem+json"),
        (status = 406, description = "Accept names no report format", body = crate::Problem, content_type = "application/problem+json"),
        (status = 408, description = "The upload did not arrive in time", body = crate::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over the upload limit", body = crate::Problem, content_type = "application/problem+json"),
        (status = 422, description = "A capture could not be read, or the topology is wrong", body = crate::Problem, content_type = "application/problem+json"),
        (status = 503, description = "Every analysis slot is busy, or the analysis timed out; see Retry-After", body = crate::Problem, content_type = "application/problem+json"),
    ))]
pub(crate) async fn analyze(State(state): State<AppState>, req: Request) -> Response {
    respond(&state, req, analyze_upload).await
}

/// What a request's upload (the form `F`) becomes: the analysis report, or a
/// recommendation; the request's audit record takes what it finds.
pub(crate) type Work<F> =
    fn(&crate::Inner, F, crate::audit::Record, Format) -> Result<String, AppError>;

/// A form upload through `work`, rendered as the client asked, with the service's limits.
pub(crate) async fn respond<F: Fields>(state: &AppState, req: Request, work: Work<F>) -> Response {
    let (parts, body) = req.into_parts();
    let accept = accept(&parts.headers);
    let browser = negotiate::prefers_html(accept);
    let result = match check_form(&parts.headers).await {
        Ok(()) => analyze_inner(state, accept, &parts, body, work).await,
        Err(e) => Err(e),
    };
    answer(state, browser, result)
}

/// A rendered document as the response (its content type, `Vary: accept`, and for HTML a
/// policy that lets it load nothing), or the error as a problem document, or as the page
/// with the message for a browser.
pub(crate) fn answer(
    state: &AppState,
    browser: bool,
    result: Result<(Format, String), AppError>,
) -> Response {
    match result {
        Ok((format, body)) => {
            let mut resp = body.into_response();
            let h = resp.headers_mut();
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(negotiate::content_type(format)),
            );
            h.insert(header::VARY, HeaderValue::from_static("accept"));
            if format == Format::Html {
                // The report is self-contained: it needs no script and loads nothing.
                h.insert(
                    header::CONTENT_SECURITY_POLICY,
                    HeaderValue::from_static(
                        "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
                    ),
                );
            }
            resp
        }
        Err(e) if browser => page::error_page(state, &e),
        Err(e) => e.into_response(),
    }
}

/// Whether the request says it is a multipart form with a boundary: checked before the
/// request waits for a slot, and without reading its body.
pub(crate) async fn check_form(headers: &HeaderMap) -> Result<(), AppError> {
    let mut probe = Request::new(Body::empty());
    if let Some(ct) = headers.get(header::CONTENT_TYPE) {
        probe.headers_mut().insert(header::CONTENT_TYPE, ct.clone());
    }
    Multipart::from_request(probe, &()).await.map(drop).map_err(not_a_form)
}

pub(crate) fn not_a_form(e: MultipartRejection) -> AppError {
    AppError::BadRequest(format!(
        "send the captures as multipart/form-data (curl -F capture=@FILE): {}",
        e.body_text()
    ))
}

async fn analyze_inner<F: Fields>(
    state: &AppState,
    accept: Option<&str>,
    parts: &Parts,
    body: Body,
    work: Work<F>,
) -> Result<(Format, String), AppError> {
    let config = &state.inner.config;
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + config.request_timeout;
    let secs = config.request_timeout.as_secs().max(1);

    let (slot, Form(up), job_work) = slot_then_form::<F>(state, parts, body, deadline).await?;
    let (count, bytes) = up.upload_size();
    let record = crate::audit::Record::of(&parts.extensions);
    record.upload(count, bytes);
    let format = negotiate::choose(up.format(), accept)?;

    let job = run_blocking(state, slot, job_work, move |inner| work(inner, up, record, format));
    let body = tokio::time::timeout_at(deadline, job)
        .await
        .map_err(|_| AppError::AnalysisTimeout { secs })??;
    tracing::info!(
        captures = count,
        bytes,
        format = format.as_str(),
        ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        "analyzed"
    );
    Ok((format, body))
}

/// A request's work ([`advisor_model::work::Work`]), cancelled when the request ends for
/// any reason (its answer, its deadline, its client gone, the server stopping): the
/// analysis then stops at its next checkpoint and frees its slot.
pub(crate) struct RequestWork(pub(crate) std::sync::Arc<advisor_model::work::Work>);

impl Drop for RequestWork {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// The body, whole, then an analysis slot, then the upload's form `F` (every upload route:
/// analyze, compare, recommend), read by its extractor ([`Form`]). The body first, within
/// [`crate::Config::body_timeout`] (408 past it): a slow sender holds no slot. Its bytes
/// are charged to the memory budget as they come; the slot is then waited for up to the
/// queue wait (and never past the deadline); the form is read by the deadline.
pub(crate) async fn slot_then_form<F: Fields>(
    state: &AppState,
    parts: &Parts,
    body: Body,
    deadline: tokio::time::Instant,
) -> Result<(OwnedSemaphorePermit, Form<F>, RequestWork), AppError> {
    let config = &state.inner.config;
    let work = RequestWork(state.inner.new_work());
    let until = deadline.min(tokio::time::Instant::now() + config.body_timeout);
    let secs = config.body_timeout.min(config.request_timeout).as_secs().max(1);
    let bytes = tokio::time::timeout_at(until, whole_body(body, config.max_upload, &work.0))
        .await
        .map_err(|_| AppError::UploadTimeout { secs })??;
    let slot = take_slot(state, deadline).await?;
    // The request again, with its extensions (the body limit), now that it will be read.
    let mut req = Request::new(Body::from(bytes));
    *req.headers_mut() = parts.headers.clone();
    *req.extensions_mut() = parts.extensions.clone();
    let secs = config.request_timeout.as_secs().max(1);
    let form = tokio::time::timeout_at(deadline, Form::<F>::from_request(req, state))
        .await
        .map_err(|_| AppError::UploadTimeout { secs })??;
    Ok((slot, form, work))
}

/// Reads a body to its end, up to `limit` bytes (413 past it), each frame charged to
/// `work`'s memory budget before it is kept.
async fn whole_body(
    mut body: Body,
    limit: usize,
    work: &advisor_model::work::Work,
) -> Result<axum::body::Bytes, AppError> {
    let mut out = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame
            .map_err(|e| AppError::BadRequest(format!("the upload could not be read: {e}")))?;
        let Some(data) = frame.data_ref() else { continue };
        let need = out.len() + data.len();
        if need > limit {
            return Err(AppError::TooLarge { limit });
        }
        if need > out.capacity() {
            // The buffer grows by doubling, each growth charged before it is made.
            let cap = need.max(out.capacity() * 2).min(limit);
            work.try_charge((cap - out.capacity()) as u64).map_err(over_budget)?;
            out.reserve_exact(cap - out.len());
        }
        out.extend_from_slice(data);
    }
    // The form's reader copies the body once more as it parses the parts.
    work.try_charge(out.len() as u64).map_err(over_budget)?;
    Ok(out.into())
}

/// What a client is told of a request over the memory budget.
pub(crate) fn over_budget(over: advisor_model::work::OverBudget) -> AppError {
    AppError::OverBudget { detail: over.to_string(), alone: over.alone_too_large() }
}

pub(crate) async fn take_slot(
    state: &AppState,
    deadline: tokio::time::Instant,
) -> Result<OwnedSemaphorePermit, AppError> {
    let wait = state.inner.config.queue_wait;
    let until = deadline.min(tokio::time::Instant::now() + wait);
    let retry_after = wait.as_secs().max(1);
    match tokio::time::timeout_at(until, state.inner.slots.clone().acquire_owned()).await {
        Ok(Ok(p)) => Ok(p),
        Ok(Err(_)) => Err(AppError::Internal("the analysis slots are closed".into())),
        Err(_) => Err(AppError::Busy { retry_after }),
    }
}

/// Runs `f` on the blocking pool as `work`, holding `slot` until it returns. When the
/// request gives up (its deadline, its client gone), `work` is cancelled and `f` stops at
/// its next checkpoint, so the slot comes back within about a second. A panic becomes a
/// 500; work over the budget or the limits, a 413 or 503 saying so.
pub(crate) async fn run_blocking<T, F>(
    state: &AppState,
    slot: OwnedSemaphorePermit,
    work: RequestWork,
    f: F,
) -> Result<T, AppError>
where
    T: Send + 'static,
    F: FnOnce(&crate::Inner) -> Result<T, AppError> + Send + 'static,
{
    let inner = state.inner.clone();
    let job = work.0.clone();
    let joined = tokio::task::spawn_blocking(move || {
        let _slot = slot;
        job.run(|| f(&inner))
    })
    .await;
    drop(work);
    match joined {
        Ok(Ok(r)) => r,
        Ok(Err(Stop::OverBudget(over))) => Err(over_budget(over)),
        Ok(Err(Stop::TooLarge(too))) => Err(AppError::OverLimit(too.to_string())),
        Ok(Err(Stop::Cancelled)) => Err(AppError::Internal("an analysis was cancelled".into())),
        Err(e) if e.is_panic() => Err(AppError::Internal("an analysis panicked".into())),
        Err(_) => Err(AppError::Internal("an analysis was cancelled".into())),
    }
}

/// Reads, analyzes and renders: the blocking part of a request.
fn analyze_upload(
    inner: &crate::Inner,
    up: AnalyzeForm,
    record: crate::audit::Record,
    format: Format,
) -> Result<String, AppError> {
    let session = &inner.session;
    let (sources, captures) = up.into_parts();
    let inputs: Vec<Input> = captures
        .into_iter()
        .map(|(name, bytes)| {
            // The copy the readers take is charged too.
            advisor_model::work::charge(bytes.len() as u64);
            Input::Bytes { name, bytes: Vec::from(bytes) }
        })
        .collect();
    // Bundles (tar.gz, zip) are opened in memory within the session's limits, as the CLI
    // opens them.
    let analysis = session
        .analyze(advisor_engine::Request { inputs, topology: sources }, &mut ())
        .map_err(upload_error)?;
    record.analysis(&analysis);
    session
        .render(&analysis, format)
        .map_err(|e| AppError::Internal(format!("rendering the report: {e}")))
}

/// What a person sees of an upload the engine could not use.
pub(crate) fn upload_error(e: EngineError) -> AppError {
    match e {
        EngineError::Topology(_) | EngineError::Form(_) => AppError::BadTopology(e.to_string()),
        EngineError::Unreadable(mut errors) => match errors.len() {
            1 => AppError::Unreadable(errors.remove(0).to_string()),
            n => AppError::Unreadable(format!(
                "{n} captures could not be read:\n{}",
                errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
            )),
        },
        other => AppError::Internal(other.to_string()),
    }
}

/// The rules in force, with their parameters and documentation.
#[utoipa::path(get, path = "/api/v1/rules", tag = "reference",
    responses((status = 200, description = "Every rule: id, severity, scope, title, origin, what it checks, why, the fix, parameters, references, the rules it explains and its explanation (each as `advisor rules explain ID --json` gives it)", content(("application/json")))))]
pub(crate) async fn rules(State(state): State<AppState>) -> Json<Vec<RuleDocument>> {
    Json(RuleDocument::all(state.inner.session.rules()))
}

/// A VM size's storage limits from the built-in catalog.
#[utoipa::path(get, path = "/api/v1/catalog/vm/{size}", tag = "reference",
    params(("size" = String, Path, description = "A VM size, case-insensitive, `Standard_` optional")),
    responses(
        (status = 200, description = "The size's figures (IOPS, MB/s of 10^6 bytes, GiB) and their sources, as `advisor catalog vm SIZE --json` gives them", content(("application/json"))),
        (status = 404, description = "Not in the catalog; the detail suggests a near name", body = crate::Problem, content_type = "application/problem+json"),
    ))]
pub(crate) async fn catalog_vm(
    State(state): State<AppState>,
    Path(size): Path<String>,
) -> Result<Json<VmDocument>, AppError> {
    let vm = state
        .inner
        .session
        .catalog()
        .vm(&size)
        .map_err(|u| AppError::NotFound(format!("{u}; {}", u.help())))?;
    Ok(Json(VmDocument::of(vm)))
}
