//! What stands around the routes: who may call them (tokens, or a trusted authenticating
//! proxy), how often (a rate per client), and the audit trail of every request. Each is a
//! middleware ([`around`]); all are off in [`Guard::default`], which is how embedders and
//! the library's tests get the plain service.
//!
//! Order, outermost first: the audit record (it sees every answer, the refusals too), the
//! authentication, the rate, then the service's own layers. The probes (`/healthz`,
//! `/readyz`) pass all three: they carry nothing and orchestrators call them every few
//! seconds, without credentials.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderValue, Method, header};
use axum::response::Response;

use crate::audit::Audit;
use crate::auth::TrustedProxy;
use crate::rate::Rate;
use crate::tokens::Tokens;
use crate::{AppState, audit, auth, rate};

/// Who may use the service, at what rate, and where each request is recorded.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    /// `--tokens`: every route but the probes needs one of these tokens.
    pub tokens: Option<Arc<Tokens>>,
    /// `--trust-header NAME --trusted-proxy CIDR`: the principal is the header an
    /// authenticating proxy sets, believed only from the proxy's addresses.
    pub proxy: Option<TrustedProxy>,
    /// `--rate N/min`: requests a client (principal, or address without authentication)
    /// may make a minute.
    pub rate: Option<Rate>,
    /// Where the audit lines go (`advisor serve`: stderr, or `--audit FILE`).
    pub audit: Option<Audit>,
}

impl Guard {
    /// Whether requests must say who sends them.
    pub fn authenticates(&self) -> bool {
        self.tokens.is_some() || self.proxy.is_some()
    }
}

/// Paths that answer without credentials, rate or audit: liveness and readiness.
const PROBES: [&str; 2] = ["/healthz", "/readyz"];

pub(crate) fn is_probe(req: &Request) -> bool {
    PROBES.contains(&req.uri().path())
}

/// The guard's layers around `router` (the service with its own layers).
pub(crate) fn around(router: Router, state: &AppState) -> Router {
    router
        .layer(axum::middleware::from_fn_with_state(state.clone(), rate::limit))
        .layer(axum::middleware::from_fn_with_state(state.clone(), auth::authenticate))
        .layer(axum::middleware::from_fn_with_state(state.clone(), audit::record))
}

/// The address the request came from (the connection's peer), when the server knows it:
/// `serve` puts it on every request; a router called without a socket has none.
pub(crate) fn peer(req: &Request) -> Option<IpAddr> {
    req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip().to_canonical())
}

/// Whether a refused request still has a body on its way, which is then not read: the
/// answer closes the connection, as for 413.
pub(crate) fn close_if_body(req: &Request, resp: &mut Response) {
    let h = req.headers();
    let has_body = h
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim() != "0")
        || h.contains_key(header::TRANSFER_ENCODING);
    if has_body {
        resp.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
}

/// Methods that change nothing: a browser may send them from any page.
pub(crate) fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}
