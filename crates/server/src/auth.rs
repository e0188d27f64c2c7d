//! Authentication: who sends a request.
//!
//! - With `--tokens FILE`, a request carries `Authorization: Bearer TOKEN`, or, from a
//!   browser, HTTP Basic with the token as the password (the browser asks once and sends it
//!   for the rest of its session; the user name is not checked). The principal is the
//!   token's name in the file.
//! - With `--trust-header NAME --trusted-proxy CIDR`, a request whose connection comes from
//!   one of the proxy's addresses is the user the header names (oauth2-proxy sets
//!   `X-Forwarded-Email`, say); the header from anyone else is ignored.
//!
//! Both may be given: the proxy's header first, for requests from the proxy; a token
//! otherwise. A request without a principal gets 401 with `WWW-Authenticate` (403 when
//! only a proxy can vouch for it). A request that a browser sends on its own credentials
//! (Basic, or the proxy's session cookie) from another site's page is refused (403), so
//! that another site cannot make a logged-in browser upload.

use std::net::IpAddr;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use base64::Engine as _;
use ipnet::IpNet;

use crate::guard::{self, Guard};
use crate::{AppError, AppState, audit};

/// The longest principal a proxy's header may name.
const MAX_PRINCIPAL: usize = 256;

/// An authenticating proxy in front of the service: the header it sets and the addresses
/// its connections come from.
#[derive(Debug, Clone)]
pub struct TrustedProxy {
    pub header: HeaderName,
    pub from: Vec<IpNet>,
}

impl TrustedProxy {
    /// `--trust-header NAME`, `--trusted-proxy CIDR` (an address alone is a /32 or /128).
    pub fn new(header: &str, from: &[String]) -> Result<TrustedProxy, String> {
        let header = HeaderName::try_from(header.trim())
            .map_err(|_| format!("--trust-header `{header}` is not an HTTP header name"))?;
        if header == header::AUTHORIZATION || header == header::COOKIE {
            return Err(format!(
                "--trust-header {header}: name the header the proxy sets to the user (e.g. X-Forwarded-Email)"
            ));
        }
        if from.is_empty() {
            return Err("--trust-header needs --trusted-proxy CIDR: the proxy's addresses".into());
        }
        let from = from
            .iter()
            .map(|c| {
                let c = c.trim();
                c.parse::<IpNet>().or_else(|_| c.parse::<IpAddr>().map(IpNet::from)).map_err(|_| {
                    format!("--trusted-proxy `{c}` is not an address or a CIDR like 127.0.0.1/32 or fd00::/8")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TrustedProxy { header, from })
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.from.iter().any(|net| net.contains(&ip))
    }
}

/// How a request proved who sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    Bearer,
    Basic,
    Proxy,
}

/// Why a request has no principal.
#[derive(Debug)]
enum Refusal {
    /// No credentials at all.
    Missing,
    /// A token this service does not know, or credentials it cannot read.
    Invalid(&'static str),
    /// Only the proxy may vouch, and this did not come from it.
    NotFromProxy,
    /// The proxy sent a header that names nobody usable.
    BadHeader(String),
}

fn identify(
    guard: &Guard,
    headers: &HeaderMap,
    peer: Option<IpAddr>,
) -> Result<(String, Via), Refusal> {
    if let Some(proxy) = &guard.proxy
        && peer.is_some_and(|ip| proxy.trusts(ip))
    {
        let mut values = headers.get_all(&proxy.header).iter();
        match (values.next(), values.next()) {
            (Some(v), None) => return principal_of(v, &proxy.header).map(|p| (p, Via::Proxy)),
            (Some(_), Some(_)) => {
                return Err(Refusal::BadHeader(format!(
                    "the proxy sent {} more than once",
                    proxy.header
                )));
            }
            // No header: the proxy passed the request on unauthenticated (a skipped route);
            // a token may still say who it is.
            (None, _) => {}
        }
    }
    let Some(tokens) = &guard.tokens else {
        return Err(Refusal::NotFromProxy);
    };
    let Some(auth) = headers.get(header::AUTHORIZATION) else {
        return Err(Refusal::Missing);
    };
    let auth = auth.as_bytes();
    let (scheme, rest) = match auth.iter().position(|b| *b == b' ') {
        Some(i) => (&auth[..i], trim(&auth[i + 1..])),
        None => (auth, &[][..]),
    };
    if scheme.eq_ignore_ascii_case(b"bearer") {
        tokens.who(rest).map(|n| (n.to_owned(), Via::Bearer)).ok_or(Refusal::Invalid("the token"))
    } else if scheme.eq_ignore_ascii_case(b"basic") {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(rest)
            .map_err(|_| Refusal::Invalid("the Basic credentials"))?;
        // user:password; the password is the token, the user name is not checked.
        let at = decoded
            .iter()
            .position(|b| *b == b':')
            .ok_or(Refusal::Invalid("the Basic credentials"))?;
        tokens
            .who(&decoded[at + 1..])
            .map(|n| (n.to_owned(), Via::Basic))
            .ok_or(Refusal::Invalid("the token"))
    } else {
        Err(Refusal::Invalid("the Authorization scheme"))
    }
}

fn trim(b: &[u8]) -> &[u8] {
    let start = b.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !c.is_ascii_whitespace()).map_or(start, |i| i + 1);
    &b[start..end]
}

fn principal_of(v: &HeaderValue, name: &HeaderName) -> Result<String, Refusal> {
    let bad = |why: &str| Refusal::BadHeader(format!("the proxy's {name} header {why}"));
    let s = std::str::from_utf8(v.as_bytes()).map_err(|_| bad("is not UTF-8"))?.trim();
    if s.is_empty() {
        return Err(bad("is empty"));
    }
    if s.len() > MAX_PRINCIPAL {
        return Err(bad("is too long to name a user"));
    }
    if s.chars().any(char::is_control) {
        return Err(bad("holds control characters"));
    }
    Ok(s.to_owned())
}

/// Whether a browser sent this from a page of another site (Fetch Metadata).
fn cross_site(headers: &HeaderMap) -> bool {
    headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()).is_some_and(|v| {
        v.eq_ignore_ascii_case("cross-site") || v.eq_ignore_ascii_case("same-site")
    })
}

/// The principal of each request, or 401/403. The probes pass.
pub(crate) async fn authenticate(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Response {
    let guard = &state.inner.config.guard;
    if !guard.authenticates() || guard::is_probe(&req) {
        return next.run(req).await;
    }
    match identify(guard, req.headers(), guard::peer(&req)) {
        Ok((name, via)) => {
            if via != Via::Bearer && !guard::is_safe(req.method()) && cross_site(req.headers()) {
                let err = AppError::Forbidden(
                    "a page of another site asked this browser to send the request; \
                     send it from this service's own page or with a token"
                        .to_owned(),
                );
                return refuse(&req, err, None);
            }
            audit::Record::of(req.extensions()).principal(&name);
            req.extensions_mut().insert(Principal(name));
            next.run(req).await
        }
        Err(r) => {
            let err = match &r {
                Refusal::Missing => AppError::Unauthorized(
                    "this service needs a token: send `Authorization: Bearer TOKEN` \
                     (a browser asks for it: the token is the password)"
                        .to_owned(),
                ),
                Refusal::Invalid(what) => AppError::Unauthorized(format!(
                    "{what} is not one this service accepts: send `Authorization: Bearer TOKEN` \
                     with a token of its tokens file"
                )),
                Refusal::NotFromProxy => AppError::Forbidden(
                    "this service answers only through its authenticating proxy".to_owned(),
                ),
                Refusal::BadHeader(why) => AppError::Forbidden(format!(
                    "{why}: the proxy must name the authenticated user"
                )),
            };
            let challenge = match (&r, &guard.tokens) {
                (Refusal::Missing, Some(_)) => Some(r#"Bearer realm="advisor""#),
                (Refusal::Invalid(_), Some(_)) => {
                    Some(r#"Bearer realm="advisor", error="invalid_token""#)
                }
                _ => None,
            };
            refuse(&req, err, challenge)
        }
    }
}

/// The refusal as a problem document, with the challenges of a 401 (Bearer for clients,
/// Basic so that a browser asks for the token), closing the connection if a body follows.
fn refuse(req: &Request, err: AppError, bearer: Option<&'static str>) -> Response {
    let mut resp = err.into_response();
    if let Some(bearer) = bearer {
        let h = resp.headers_mut();
        h.append(header::WWW_AUTHENTICATE, HeaderValue::from_static(bearer));
        h.append(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(r#"Basic realm="advisor", charset="UTF-8""#),
        );
    }
    guard::close_if_body(req, &mut resp);
    resp
}

/// Who sent a request, once authenticated: the token's name or the proxy's header.
#[derive(Debug, Clone)]
pub(crate) struct Principal(pub(crate) String);

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::tokens::{Tokens, new_token};

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                HeaderName::try_from(*k).expect("name"),
                HeaderValue::from_str(v).expect("value"),
            );
        }
        h
    }

    #[test]
    fn tokens_by_bearer_or_basic_and_the_proxys_header_only_from_the_proxy() {
        let (token, line) = new_token("ci").expect("token");
        let proxy =
            TrustedProxy::new("X-Forwarded-Email", &["192.0.2.0/24".to_owned()]).expect("proxy");
        let guard = Guard {
            tokens: Some(Arc::new(Tokens::parse("t", &line).expect("tokens"))),
            proxy: Some(proxy),
            ..Guard::default()
        };
        let from_proxy = Some("192.0.2.7".parse().expect("ip"));
        let elsewhere = Some("198.51.100.1".parse().expect("ip"));
        let bearer = format!("Bearer {token}");
        let who = |h: &HeaderMap, peer| identify(&guard, h, peer);

        assert_eq!(
            who(&headers(&[("authorization", &bearer)]), elsewhere).ok(),
            Some(("ci".into(), Via::Bearer))
        );
        assert_eq!(
            who(&headers(&[("authorization", &format!("bearer   {token} "))]), None)
                .ok()
                .map(|p| p.0),
            Some("ci".into())
        );
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("anyone:{token}"));
        assert_eq!(
            who(&headers(&[("authorization", &format!("Basic {basic}"))]), None).ok(),
            Some(("ci".into(), Via::Basic))
        );
        assert!(matches!(who(&headers(&[]), None), Err(Refusal::Missing)));
        assert!(matches!(
            who(&headers(&[("authorization", "Bearer adv_nope")]), None),
            Err(Refusal::Invalid(_))
        ));
        assert!(matches!(
            who(&headers(&[("authorization", "Digest x")]), None),
            Err(Refusal::Invalid(_))
        ));
        assert!(matches!(
            who(&headers(&[("authorization", "Basic !!")]), None),
            Err(Refusal::Invalid(_))
        ));

        // The proxy's header: believed from the proxy, ignored from anyone else.
        let mail = headers(&[("x-forwarded-email", "ana@example.com")]);
        assert_eq!(who(&mail, from_proxy).ok(), Some(("ana@example.com".into(), Via::Proxy)));
        assert!(matches!(who(&mail, elsewhere), Err(Refusal::Missing)));
        let twice = headers(&[
            ("x-forwarded-email", "a@example.com"),
            ("x-forwarded-email", "b@example.com"),
        ]);
        assert!(matches!(who(&twice, from_proxy), Err(Refusal::BadHeader(_))));
        // The proxy passing on a request with a token and no header: the token says.
        assert_eq!(
            who(&headers(&[("authorization", &bearer)]), from_proxy).ok().map(|p| p.1),
            Some(Via::Bearer)
        );
    }

    #[test]
    fn a_proxy_alone_vouches_for_nobody_else() {
        let guard = Guard {
            proxy: Some(TrustedProxy::new("X-User", &["::1".to_owned()]).expect("proxy")),
            ..Guard::default()
        };
        let h = headers(&[("x-user", "ana")]);
        assert!(identify(&guard, &h, Some("::1".parse().expect("ip"))).is_ok());
        assert!(matches!(
            identify(&guard, &h, Some("::2".parse().expect("ip"))),
            Err(Refusal::NotFromProxy)
        ));
        assert!(matches!(identify(&guard, &h, None), Err(Refusal::NotFromProxy)));
    }

    #[test]
    fn bad_proxy_settings_are_refused() {
        assert!(TrustedProxy::new("X-User", &[]).is_err());
        assert!(TrustedProxy::new("X User", &["127.0.0.1".to_owned()]).is_err());
        assert!(TrustedProxy::new("Authorization", &["127.0.0.1".to_owned()]).is_err());
        assert!(TrustedProxy::new("X-User", &["127.0.0.1/33".to_owned()]).is_err());
        let p = TrustedProxy::new("X-User", &["127.0.0.1".to_owned(), "fd00::/8".to_owned()])
            .expect("proxy");
        assert!(p.trusts("127.0.0.1".parse().expect("ip")));
        assert!(!p.trusts("127.0.0.2".parse().expect("ip")));
        assert!(p.trusts("fd12::1".parse().expect("ip")));
    }
}
