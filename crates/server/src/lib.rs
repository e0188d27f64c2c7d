//! The upload service behind `advisor serve`: an upload page and an HTTP API over the
//! engine, as one [`Router`] ([`app`]) that tests and embedders use without a socket.
//!
//! Uploads stay in memory (bounded by [`Config::max_upload`]) and go to the readers as
//! bytes: nothing is written to disk, and nothing of an upload is logged (log lines carry
//! the method, path, status, sizes and timings only).
//!
//! Limits: a request body over [`Config::max_upload`] is answered 413 from its
//! `Content-Length` before any of it is read (and cut off at the limit when it has none);
//! a body gets [`Config::body_timeout`] to arrive (408 past it), and only then does the
//! request ask for one of the [`Config::workers`] analysis slots (a slow sender holds
//! none); a request that finds them all busy waits [`Config::queue_wait`], then gets 503
//! with `Retry-After`; an analysis request gets [`Config::request_timeout`] in all, and its
//! analysis is cancelled at that deadline (it stops within a second and frees its slot);
//! what a request holds (its upload, unpacked entries, captures as read) is charged to
//! [`Config::memory_budget`], shared by all requests (413 when one request alone is
//! larger, 503 when the others hold the rest), and its input is within [`Config::limits`]
//! (413 naming the limit); a connection gets [`Config::header_timeout`] to send each
//! request's head (also the idle time allowed between requests); a panic is answered 500
//! and the server goes on. On shutdown, requests in flight get
//! [`Config::request_timeout`] to finish, then their analyses are cancelled. Errors are
//! `application/problem+json` (RFC 9457).
//!
//! Around the routes, [`Config::guard`] ([`Guard`]) adds authentication (tokens, or a
//! trusted proxy's header), a rate per client and the audit trail; [`Config::tls`] serves
//! HTTPS. An answer that a client leaves unread for [`Config::request_timeout`] is dropped
//! with its connection.

mod audit;
mod auth;
mod compare;
mod conn;
mod error;
mod form;
mod guard;
mod negotiate;
mod openapi;
mod page;
mod rate;
mod recommend;
mod routes;
mod tls;
mod tokens;
mod upload;

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use advisor_engine::{Capture, EngineError, IngestError, Session};
use advisor_model::work::{Limits, MemoryBudget, Work};
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use hyper_util::rt::TokioTimer;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::sync::Semaphore;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};
use tracing::Level;

pub use audit::Audit;
pub use auth::TrustedProxy;
pub use error::{AppError, Problem};
pub use guard::Guard;
pub use rate::Rate;
pub use tls::{Tls, TlsError};
pub use tokens::{TOKEN_PREFIX, Tokens, TokensError, new_token, token_digest, valid_name};

/// Default body limit: 256 MiB.
pub const DEFAULT_MAX_UPLOAD: usize = 256 * 1024 * 1024;
/// Default time an analysis request gets in all (upload, wait, analysis, rendering).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
/// Default time a request waits for a free analysis slot before 503.
pub const DEFAULT_QUEUE_WAIT: Duration = Duration::from_secs(5);
/// Default time a connection gets to send a request's head (and to stay idle between
/// requests).
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(20);
/// Default memory budget shared by the requests: 2 GiB.
pub const DEFAULT_MEMORY_BUDGET: u64 = 2 << 30;
/// Default time a request's body gets to arrive.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// What one request may hold by default: far above any real VM (64 data disks at most,
/// a handful of captures, PerfMon logs of a few thousand counters), far below what makes
/// an analysis slow.
pub const DEFAULT_LIMITS: Limits =
    Limits { captures: 1_000, disks: 1_024, pool_members: 1_024, columns: 65_536 };
/// Each connection's read buffer, the largest request head included.
const READ_BUFFER: usize = 64 * 1024;

/// How the service runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Largest request body accepted, in bytes (all captures and the topology together).
    pub max_upload: usize,
    /// Analyses that run at once (each holds its upload in memory).
    pub workers: usize,
    /// How long a request waits for a free analysis slot before 503 with `Retry-After`.
    pub queue_wait: Duration,
    /// The time an analysis request gets in all; past it, 408 while the upload is still
    /// arriving, 503 once it is being analyzed.
    pub request_timeout: Duration,
    /// The time a connection gets to send a request's line and headers, counted from its
    /// first byte or from the previous answer (so also how long an idle connection is
    /// kept); past it, the connection is closed. Slow clients sending nothing but a few
    /// header bytes cannot hold connections open.
    pub header_timeout: Duration,
    /// Bytes the requests in flight may hold together (uploads, unpacked bundle entries,
    /// captures as read); past it, 413 for a request larger than the whole budget, 503 with
    /// `Retry-After` for one that would fit once others are done.
    pub memory_budget: u64,
    /// The time a request's body gets to arrive, counted from its head; past it, 408. The
    /// request takes an analysis slot only once its body is in.
    pub body_timeout: Duration,
    /// What one request's input may have (captures, disks, pool members, PerfMon
    /// columns); past a limit, 413 naming it.
    pub limits: Limits,
    /// Who may call the service, at what rate, and the audit trail: all off by default.
    pub guard: Guard,
    /// HTTPS with this certificate and key; plain HTTP when `None`.
    pub tls: Option<Tls>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_upload: DEFAULT_MAX_UPLOAD,
            workers: default_workers(),
            queue_wait: DEFAULT_QUEUE_WAIT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            memory_budget: DEFAULT_MEMORY_BUDGET,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            limits: DEFAULT_LIMITS,
            guard: Guard::default(),
            tls: None,
        }
    }
}

/// One analysis per core by default.
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// Why the service could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The session (rules, catalog, templates) did not build.
    #[error(transparent)]
    Session(#[from] EngineError),
    #[error("--workers must be at least 1")]
    NoWorkers,
}

/// What every request shares: the configuration, the engine's session (the rules in force,
/// the catalog and the templates, loaded once), and the analysis slots.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    config: Config,
    session: Session,
    slots: Arc<Semaphore>,
    memory: Arc<MemoryBudget>,
    /// The work of the requests in flight, to cancel at shutdown.
    works: std::sync::Mutex<Vec<std::sync::Weak<Work>>>,
}

impl Inner {
    /// A request's work: on the shared budget, within the limits, known to the shutdown.
    fn new_work(&self) -> Arc<Work> {
        let work = Work::new(Some(self.memory.clone()), self.config.limits);
        if let Ok(mut works) = self.works.lock() {
            works.retain(|w| w.strong_count() > 0);
            works.push(Arc::downgrade(&work));
        }
        work
    }

    /// Cancels the work of every request in flight.
    fn cancel_all(&self) {
        if let Ok(works) = self.works.lock() {
            works.iter().filter_map(std::sync::Weak::upgrade).for_each(|w| w.cancel());
        }
    }
}

impl fmt::Debug for AppState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AppState")
            .field("config", &self.inner.config)
            .field("session", &self.inner.session)
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// The shipped rules, the built-in catalog and templates.
    pub fn new(config: Config) -> Result<AppState, StartError> {
        AppState::with_session(config, Session::builder().build()?)
    }

    /// Every upload is analyzed with `session`: its rules (`--rules`, `--set`), catalog
    /// (`--catalog`) and templates (`--templates`), and its reader of uploaded bytes.
    pub fn with_session(config: Config, session: Session) -> Result<AppState, StartError> {
        if config.workers == 0 {
            return Err(StartError::NoWorkers);
        }
        let slots = Arc::new(Semaphore::new(config.workers));
        let memory = Arc::new(MemoryBudget::new(config.memory_budget));
        let works = std::sync::Mutex::new(Vec::new());
        Ok(AppState { inner: Arc::new(Inner { config, session, slots, memory, works }) })
    }

    /// As [`AppState::new`], with `reader` reading the uploaded captures (on the blocking
    /// pool, inside an analysis slot) instead of the engine's readers: for embedders that
    /// check or convert uploads first, and for tests that need a reader that fails or
    /// panics. Only code sets it; no request can choose it.
    pub fn with_reader(
        config: Config,
        reader: impl Fn(&str, &[u8]) -> Result<Capture, IngestError> + Send + Sync + 'static,
    ) -> Result<AppState, StartError> {
        AppState::with_session(config, Session::builder().bytes_reader(reader).build()?)
    }

    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// Bytes of the memory budget the requests in flight hold now.
    pub fn memory_in_use(&self) -> u64 {
        self.inner.memory.in_use()
    }

    /// Analysis slots free now.
    pub fn free_slots(&self) -> usize {
        self.inner.slots.available_permits()
    }

    /// Takes every analysis slot, so that tests can see what a busy server answers.
    #[doc(hidden)]
    pub async fn occupy_all_slots(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        let n = u32::try_from(self.inner.config.workers).ok()?;
        self.inner.slots.clone().acquire_many_owned(n).await.ok()
    }
}

/// The service's routes and layers, inside the guard's ([`Config::guard`]).
pub fn app(state: AppState) -> Router {
    let routes = Router::new()
        .route("/", get(page::upload_page))
        .route("/healthz", get(routes::healthz))
        .route("/readyz", get(routes::readyz))
        .route("/api/v1/analyze", post(routes::analyze))
        .route("/api/v1/compare", post(compare::compare))
        .route("/api/v1/recommend", post(recommend::recommend))
        .route("/api/v1/rules", get(routes::rules))
        .route("/api/v1/catalog/vm/{size}", get(routes::catalog_vm))
        .route("/api/v1/openapi.json", get(openapi::document));
    let guarded = state.clone();
    guard::around(layered(routes, state), &guarded)
}

/// The fallbacks and the request-wide layers around `routes`.
fn layered(routes: Router<AppState>, state: AppState) -> Router {
    let max = state.inner.config.max_upload;
    routes
        .fallback(routes::not_found)
        .method_not_allowed_fallback(routes::method_not_allowed)
        // The multipart reader stops at the limit when no Content-Length said it before.
        .layer(DefaultBodyLimit::max(max))
        .layer(axum::middleware::from_fn_with_state(state.clone(), routes::content_length))
        .layer(axum::middleware::map_response(routes::common_headers))
        .layer(CatchPanicLayer::custom(error::panic_response))
        // One line per request: method, path, status, latency; never headers or bodies.
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(DefaultMakeSpan::new().level(Level::INFO))
                .on_request(())
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        )
        .with_state(state)
}

/// Serves [`app`] on `listener` until `shutdown` completes, then gives the requests in
/// flight [`Config::request_timeout`] to finish, cancels the analyses of those still
/// running, and returns once they have stopped (a few seconds at most). HTTP/1.1 through hyper, as `axum::serve` does, plus [`Config::header_timeout`]
/// on every request head (and TLS handshake), which `axum::serve` cannot set, TLS when
/// [`Config::tls`] is set, and [`Config::request_timeout`] for an answer the client stalls.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(state.inner.config.header_timeout)
        // Each connection's read buffer (hyper's default is ~400 KB): 64 KiB reads keep
        // uploads fast, and a hundred connections draining their uploads at once hold
        // 6 MB, not 40. A request head must fit in it.
        .max_buf_size(READ_BUFFER);
    let grace = state.inner.config.request_timeout;
    let inner = state.inner.clone();
    let config = &state.inner.config;
    let serving = conn::Serving {
        tls: config.tls.as_ref().map(Tls::acceptor),
        handshake: config.header_timeout,
        write: config.request_timeout,
        http,
        app: app(state),
    };
    let connections = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    accept_failed(&e).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        tokio::spawn(serving.clone().connection(stream, peer, connections.watcher()));
    }
    drop(listener);
    if tokio::time::timeout(grace, connections.shutdown()).await.is_err() {
        tracing::info!("the grace period is over: cancelling the analyses still running");
        inner.cancel_all();
        // Each stops at its next checkpoint; their slots come back as they do.
        let all = u32::try_from(inner.config.workers).unwrap_or(u32::MAX);
        let _ = tokio::time::timeout(Duration::from_secs(5), inner.slots.acquire_many(all)).await;
    }
    Ok(())
}

/// After a failed `accept`: nothing for a connection the client already gave up; otherwise
/// (out of file descriptors, most likely) a log line and a second's pause, as hyper and
/// axum do, so the loop does not spin.
async fn accept_failed(e: &std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::error!(error = %e, "accepting a connection failed");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

/// Completes on SIGTERM or Ctrl-C (SIGINT).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("interrupted: finishing requests in flight"),
        () = term => tracing::info!("SIGTERM: finishing requests in flight"),
    }
}

/// `SocketAddr` as a URL base: `http://127.0.0.1:8080`.
pub fn base_url(addr: SocketAddr) -> String {
    format!("http://{addr}")
}

/// `SocketAddr` as the URL base of a server with TLS: `https://127.0.0.1:8443`.
pub fn https_base_url(addr: SocketAddr) -> String {
    format!("https://{addr}")
}

#[cfg(test)]
mod tests;
