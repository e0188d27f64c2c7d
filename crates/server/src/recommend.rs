//! `POST /api/v1/recommend`: `advisor recommend` over an upload, with the same fields,
//! limits and formats as `/api/v1/analyze`, plus `percentile`, `headroom` and a `prices`
//! file (the Azure Retail Prices API's JSON).

use advisor_engine::Input;
use advisor_engine::recommend::{PriceList, RecommendOptions};
use advisor_report::Format;
use axum::extract::{Request, State};
use axum::response::Response;

use crate::routes::{respond, upload_error};
use crate::upload::RecommendForm;
use crate::{AppError, AppState};

/// The VM size and disk SKUs that carry the uploaded captures' demand.
#[utoipa::path(post, path = "/api/v1/recommend", tag = "analysis",
    request_body(content = RecommendForm, content_type = "multipart/form-data"),
    responses(
        (status = 200, description = "The recommendation: JSON (advisor.recommend/v1), HTML or Markdown",
            content(("application/json"), (String = "text/html"), (String = "text/markdown"))),
        (status = 400, description = "A missing capture, an unknown field or a bad value (percentile, headroom, prices)", body = crate::Problem, content_type = "application/problem+json"),
        (status = 422, description = "A capture could not be read, or the topology is wrong", body = crate::Problem, content_type = "application/problem+json"),
    ))]
pub(crate) async fn recommend(State(state): State<AppState>, req: Request) -> Response {
    respond(&state, req, recommend_upload).await
}

fn number(
    field: &str,
    text: Option<&str>,
    default: f64,
    ok: impl Fn(f64) -> bool,
) -> Result<f64, AppError> {
    match text {
        None => Ok(default),
        Some(t) => match t.trim_end_matches('%').parse::<f64>() {
            Ok(x) if ok(x) => Ok(x),
            _ => Err(AppError::BadRequest(format!("field `{field}`: `{t}` is not a usable value"))),
        },
    }
}

fn recommend_upload(
    inner: &crate::Inner,
    form: RecommendForm,
    _record: crate::audit::Record,
    format: Format,
) -> Result<String, AppError> {
    let RecommendForm { upload: up, options } = form;
    let percentile =
        number("percentile", options.percentile.as_deref(), 95.0, |p| p > 0.0 && p <= 100.0)?;
    let headroom =
        number("headroom", options.headroom.as_deref(), 1.2, |h| (1.0..=10.0).contains(&h))?;
    let prices = match options.prices {
        Some((name, text)) => Some(
            PriceList::parse(&name, &text, None)
                .map_err(|e| AppError::BadRequest(e.to_string()))?,
        ),
        None => None,
    };
    let options = RecommendOptions { percentile, headroom, prices, ..RecommendOptions::default() };
    let session = &inner.session;
    let (sources, captures) = up.into_parts();
    let inputs: Vec<Input> = captures
        .into_iter()
        .map(|(name, bytes)| Input::Bytes { name, bytes: Vec::from(bytes) })
        .collect();
    let rec = session
        .recommend(advisor_engine::Request { inputs, topology: sources }, &options, &mut ())
        .map_err(upload_error)?;
    session
        .render_recommendation(&rec, format)
        .map_err(|e| AppError::Internal(format!("rendering the recommendation: {e}")))
}
