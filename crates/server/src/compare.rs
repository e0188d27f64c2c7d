//! `POST /api/v1/compare`: two sets of uploads, before and after a change, compared as
//! `advisor compare` compares them (the engine's `Session::compare`), within the same
//! limits, slots and timeouts as an analysis.
//!
//! Fields: `before` and `after` (files, repeated: captures or collector bundles),
//! `topology` (repeated: both sides' unless `after_topology` or `after_vm` is given), `vm`,
//! `after_topology` (repeated), `after_vm`, `label` (repeated, one per file in order:
//! the before files, then the after ones), `format` (md, html, json).

use std::time::Instant;

use advisor_engine::{CompareSide, Input, TopologySources};
use advisor_report::Format;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::request::Parts;

use axum::response::Response;

use crate::form::{Field, Fields, Form, non_empty, shown, topology_text};
use crate::routes::{accept, check_form, run_blocking, upload_error};
use crate::{AppError, AppState, negotiate};

/// The multipart form of `POST /api/v1/compare`.
#[derive(Debug, Default, utoipa::ToSchema)]
pub(crate) struct CompareForm {
    /// The captures before the change (any format `analyze` reads, or a collector bundle).
    #[schema(value_type = Vec<String>, format = Binary)]
    before: Vec<(String, Bytes)>,
    /// The captures after the change.
    #[schema(value_type = Vec<String>, format = Binary)]
    after: Vec<(String, Bytes)>,
    /// Topology documents of the before side; also the after side's unless `after_topology`
    /// or `after_vm` is given.
    #[schema(value_type = Option<Vec<String>>, format = Binary)]
    topology: Vec<(String, String)>,
    /// The before side's VM size (and the after side's, as `topology`).
    vm: Option<String>,
    /// The after side's own topology documents (a resized VM, a disk re-cached or moved).
    #[schema(value_type = Option<Vec<String>>, format = Binary)]
    after_topology: Vec<(String, String)>,
    /// The after side's own VM size.
    after_vm: Option<String>,
    /// One label per file, in order (before, then after), for the benchmark table.
    #[schema(value_type = Option<Vec<String>>)]
    label: Vec<String>,
    /// md, html or json; overrides `Accept`.
    format: Option<String>,
}

impl Fields for CompareForm {
    const FIELDS: &'static [Field] = &[
        Field::files("before"),
        Field::files("after"),
        Field::files("topology"),
        Field::text("vm"),
        Field::files("after_topology"),
        Field::text("after_vm"),
        Field::texts("label"),
        Field::text("format"),
    ];

    fn file(&mut self, name: &str, file: Option<String>, bytes: Bytes) -> Result<(), AppError> {
        match name {
            "before" | "after" => {
                let list = if name == "before" { &mut self.before } else { &mut self.after };
                let shown = shown(file, name, list.len() + 1);
                list.push((shown, bytes));
            }
            _ => {
                let list =
                    if name == "topology" { &mut self.topology } else { &mut self.after_topology };
                let shown = shown(file, name, list.len() + 1);
                let text = topology_text(&shown, &bytes)?;
                list.push((shown, text));
            }
        }
        Ok(())
    }

    fn text(&mut self, name: &str, text: String) {
        let opt = non_empty(text);
        match name {
            "vm" => self.vm = opt,
            "after_vm" => self.after_vm = opt,
            "format" => self.format = opt,
            _ => self.label.extend(opt),
        }
    }

    fn check(&self) -> Result<(), AppError> {
        for (side, list) in [("before", &self.before), ("after", &self.after)] {
            if list.is_empty() {
                return Err(AppError::BadRequest(format!(
                    "no `{side}` capture: send one or more files in the `{side}` field"
                )));
            }
        }
        Ok(())
    }

    fn upload_size(&self) -> (usize, usize) {
        let files = self.before.iter().chain(&self.after);
        (self.before.len() + self.after.len(), files.map(|(_, b)| b.len()).sum())
    }

    fn format(&self) -> Option<&str> {
        self.format.as_deref()
    }
}

impl CompareForm {
    /// The two sides, each with its topology (the shared one unless the after side has
    /// its own) and its labels.
    fn into_sides(self) -> (CompareSide, CompareSide) {
        let own = !self.after_topology.is_empty() || self.after_vm.is_some();
        let before_sources = TopologySources {
            texts: self.topology.clone(),
            vm: self.vm.clone(),
            ..TopologySources::default()
        };
        let after_sources = if own {
            let texts =
                if self.after_topology.is_empty() { self.topology } else { self.after_topology };
            TopologySources { texts, vm: self.after_vm, ..TopologySources::default() }
        } else {
            before_sources.clone()
        };
        let split = self.before.len().min(self.label.len());
        let inputs = |files: Vec<(String, Bytes)>| {
            files.into_iter().map(|(name, b)| Input::Bytes { name, bytes: Vec::from(b) }).collect()
        };
        let before = CompareSide {
            inputs: inputs(self.before),
            topology: before_sources,
            labels: self.label[..split].to_vec(),
        };
        let after = CompareSide {
            inputs: inputs(self.after),
            topology: after_sources,
            labels: self.label[split..].to_vec(),
        };
        (before, after)
    }
}

/// Compares two sets of captures and answers the comparison.
#[utoipa::path(post, path = "/api/v1/compare", tag = "analysis",
    request_body(content = CompareForm, content_type = "multipart/form-data"),
    params(("Accept" = Option<String>, Header,
        description = "application/json (default), text/html or text/markdown; the `format` field wins")),
    responses(
        (status = 200, description = "The comparison: the JSON document advisor.compare/v1, a self-contained HTML page, or Markdown whose first line is the verdict",
            content(("application/json"), (String = "text/html"), (String = "text/markdown"))),
        (status = 400, description = "A side without captures, an unknown field or a bad value", body = crate::Problem, content_type = "application/problem+json"),
        (status = 406, description = "Accept names no report format", body = crate::Problem, content_type = "application/problem+json"),
        (status = 408, description = "The upload did not arrive in time", body = crate::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over the upload limit", body = crate::Problem, content_type = "application/problem+json"),
        (status = 422, description = "A capture could not be read, or a topology is wrong", body = crate::Problem, content_type = "application/problem+json"),
        (status = 503, description = "Every analysis slot is busy, or the comparison timed out; see Retry-After", body = crate::Problem, content_type = "application/problem+json"),
    ))]
pub(crate) async fn compare(State(state): State<AppState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let accept = accept(&parts.headers);
    let browser = negotiate::prefers_html(accept);
    let result = match check_form(&parts.headers).await {
        Ok(()) => compare_inner(&state, accept, &parts, body).await,
        Err(e) => Err(e),
    };
    crate::routes::answer(&state, browser, result)
}

async fn compare_inner(
    state: &AppState,
    accept: Option<&str>,
    parts: &Parts,
    body: Body,
) -> Result<(Format, String), AppError> {
    let config = &state.inner.config;
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + config.request_timeout;
    let secs = config.request_timeout.as_secs().max(1);
    let (slot, Form(up), work) =
        crate::routes::slot_then_form::<CompareForm>(state, parts, body, deadline).await?;
    let (files, bytes) = up.upload_size();
    let record = crate::audit::Record::of(&parts.extensions);
    record.upload(files, bytes);
    let format = negotiate::choose(up.format(), accept)?;
    let job = run_blocking(state, slot, work, move |inner| {
        let (before, after) = up.into_sides();
        let c = inner.session.compare(before, after, &mut ()).map_err(upload_error)?;
        record.comparison(&c);
        inner
            .session
            .render_comparison(&c, format)
            .map_err(|e| AppError::Internal(format!("rendering the comparison: {e}")))
    });
    let body = tokio::time::timeout_at(deadline, job)
        .await
        .map_err(|_| AppError::AnalysisTimeout { secs })??;
    tracing::info!(
        bytes,
        format = format.as_str(),
        ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        "compared"
    );
    Ok((format, body))
}
