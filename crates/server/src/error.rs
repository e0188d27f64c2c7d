//! The one error type of the service and its answer: an RFC 9457 problem document
//! (`application/problem+json`) with a human message, or, for a person at the upload page,
//! the page again with the message above the form.

use std::any::Any;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// What went wrong with a request. 4xx variants say what to change; [`AppError::Internal`]
/// answers a generic 500 and logs its message (which never holds upload content).
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The request is malformed: a missing or unknown field, a bad value.
    #[error("{0}")]
    BadRequest(String),
    /// The body is larger than the limit.
    #[error("the upload is larger than the limit of {}", human_bytes(*limit as u64))]
    TooLarge { limit: usize },
    /// A capture could not be read (not a capture, corrupt, binary).
    #[error("{0}")]
    Unreadable(String),
    /// The topology (file, VM size or disks table) is wrong.
    #[error("{0}")]
    BadTopology(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    NotAcceptable(String),
    #[error("this path does not accept that method")]
    MethodNotAllowed,
    /// Every analysis slot stayed busy for the whole wait.
    #[error("every analysis slot is busy; try again in {retry_after} s")]
    Busy { retry_after: u64 },
    /// The upload did not arrive in time.
    #[error("the upload did not arrive within {secs} s")]
    UploadTimeout { secs: u64 },
    /// The analysis did not finish in time.
    #[error("the analysis did not finish within {secs} s")]
    AnalysisTimeout { secs: u64 },
    /// The request needs more memory than the budget has (`alone`: more than the whole
    /// budget, so a retry cannot help).
    #[error("the analysis was stopped: {detail}")]
    OverBudget { detail: String, alone: bool },
    /// The input has more captures, disks, pool members or columns than a request may.
    #[error("{0}")]
    OverLimit(String),
    /// No credentials, or ones the service does not accept (`--tokens`).
    #[error("{0}")]
    Unauthorized(String),
    /// The request may not be made this way (not through the trusted proxy, or from
    /// another site's page).
    #[error("{0}")]
    Forbidden(String),
    /// The client made more than its `--rate` of requests.
    #[error(
        "more than {per_minute} requests a minute from this client; try again in {retry_after} s"
    )]
    RateLimited { per_minute: u32, retry_after: u64 },
    /// A bug: logged, answered with a generic message.
    #[error("internal error: {0}")]
    Internal(String),
}

/// An RFC 9457 problem document. `type` is `about:blank` (the status says what kind of
/// problem it is); `code` is a stable machine-readable name of the problem.
#[derive(Debug, Clone, Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct Problem {
    #[serde(rename = "type")]
    pub kind: String,
    /// The HTTP status phrase.
    pub title: String,
    pub status: u16,
    /// What went wrong and what to do, for a person.
    pub detail: String,
    /// A stable name: `bad-request`, `too-large`, `unreadable-capture`, `bad-topology`,
    /// `not-found`, `not-acceptable`, `method-not-allowed`, `busy`, `upload-timeout`,
    /// `analysis-timeout`, `unauthorized`, `forbidden`, `rate-limited`, `over-memory-budget`,
    /// `over-limit`, `internal`.
    pub code: String,
}

impl AppError {
    pub fn status(&self) -> StatusCode {
        match self {
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::TooLarge { .. }
            | AppError::OverLimit(_)
            | AppError::OverBudget { alone: true, .. } => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::OverBudget { alone: false, .. } => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Unreadable(_) | AppError::BadTopology(_) => StatusCode::UNPROCESSABLE_ENTITY,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::NotAcceptable(_) => StatusCode::NOT_ACCEPTABLE,
            AppError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            AppError::Busy { .. } | AppError::AnalysisTimeout { .. } => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            AppError::UploadTimeout { .. } => StatusCode::REQUEST_TIMEOUT,
            AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            AppError::BadRequest(_) => "bad-request",
            AppError::TooLarge { .. } => "too-large",
            AppError::Unreadable(_) => "unreadable-capture",
            AppError::BadTopology(_) => "bad-topology",
            AppError::NotFound(_) => "not-found",
            AppError::NotAcceptable(_) => "not-acceptable",
            AppError::MethodNotAllowed => "method-not-allowed",
            AppError::Busy { .. } => "busy",
            AppError::UploadTimeout { .. } => "upload-timeout",
            AppError::AnalysisTimeout { .. } => "analysis-timeout",
            AppError::OverBudget { .. } => "over-memory-budget",
            AppError::OverLimit(_) => "over-limit",
            AppError::Unauthorized(_) => "unauthorized",
            AppError::Forbidden(_) => "forbidden",
            AppError::RateLimited { .. } => "rate-limited",
            AppError::Internal(_) => "internal",
        }
    }

    /// What a person reads: the message, except for bugs, whose details stay in the log.
    pub fn detail(&self) -> String {
        match self {
            AppError::Internal(_) => {
                "the server failed while answering; the failure is logged. Please report it."
                    .to_owned()
            }
            other => other.to_string(),
        }
    }

    pub fn problem(&self) -> Problem {
        let status = self.status();
        Problem {
            kind: "about:blank".to_owned(),
            title: status.canonical_reason().unwrap_or("Error").to_owned(),
            status: status.as_u16(),
            detail: self.detail(),
            code: self.code().to_owned(),
        }
    }

    /// Seconds after which a retry may succeed, for 503s and 429s.
    fn retry_after(&self) -> Option<u64> {
        match self {
            AppError::Busy { retry_after } | AppError::RateLimited { retry_after, .. } => {
                Some(*retry_after)
            }
            AppError::AnalysisTimeout { .. } | AppError::OverBudget { alone: false, .. } => {
                Some(30)
            }
            _ => None,
        }
    }

    /// Logs bugs (the message only: never upload content).
    fn log(&self) {
        if let AppError::Internal(m) = self {
            tracing::error!(error = %m, "internal error");
        }
    }

    /// The answer with `body` and `content_type`, plus the status and `Retry-After`.
    pub(crate) fn respond_with(&self, content_type: &'static str, body: String) -> Response {
        self.log();
        let mut resp = (self.status(), body).into_response();
        let h = resp.headers_mut();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        if let Some(s) = self.retry_after() {
            h.insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        if matches!(
            self,
            AppError::TooLarge { .. }
                | AppError::UploadTimeout { .. }
                | AppError::OverBudget { .. }
        ) {
            // The rest of the body is not read: the connection cannot be reused.
            h.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        resp
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let body = serde_json::to_string(&self.problem()).unwrap_or_else(|_| {
            r#"{"type":"about:blank","title":"Internal Server Error","status":500}"#.to_owned()
        });
        self.respond_with("application/problem+json", body)
    }
}

/// A panic in a handler: a generic 500 and a log line; the server goes on.
pub(crate) fn panic_response(_payload: Box<dyn Any + Send + 'static>) -> Response {
    // The panic hook has already printed the message and location; the payload is not
    // logged again, as it could quote input.
    AppError::Internal("a request handler panicked".to_owned()).into_response()
}

/// `268435456` -> `256 MiB`.
pub(crate) fn human_bytes(n: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if n >= size && n.is_multiple_of(size) {
            return format!("{} {unit}", n / size);
        }
    }
    for (unit, size) in UNITS {
        if n >= size {
            #[allow(clippy::cast_precision_loss)]
            let x = n as f64 / size as f64;
            return format!("{x:.1} {unit}");
        }
    }
    format!("{n} bytes")
}
