//! `--rate N/min`: requests per client and minute, on top of the service's global limits
//! (workers, queue). A client is its principal when requests are authenticated, otherwise
//! its address (an IPv6 client by its /64, the block one host is given).
//!
//! A token bucket per client: N requests at once, then one every 60/N seconds; past that,
//! 429 with `Retry-After`, the seconds until the next request is allowed. Written here
//! rather than taken from a crate (governor): it is twenty lines, and a client's bucket is
//! dropped as soon as it has refilled, which keeps the table as small as the clients seen
//! in the last minute with no timer or sweeping task.

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};

use crate::auth::Principal;
use crate::{AppError, AppState, guard};

/// Buckets held before full ones are dropped.
const SWEEP_AT: usize = 1024;

/// Requests per client and minute, with the clients' buckets.
#[derive(Clone)]
pub struct Rate {
    per_minute: NonZeroU32,
    table: Arc<Mutex<Table>>,
}

struct Table {
    buckets: HashMap<String, Bucket>,
    sweep_at: usize,
}

/// Requests a client may still make now (a fraction refills continuously), as of `at`.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl fmt::Debug for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Rate({}/min)", self.per_minute)
    }
}

impl Rate {
    pub fn per_minute(n: NonZeroU32) -> Rate {
        Rate {
            per_minute: n,
            table: Arc::new(Mutex::new(Table { buckets: HashMap::new(), sweep_at: SWEEP_AT })),
        }
    }

    /// `30/min`.
    pub fn parse(s: &str) -> Result<Rate, String> {
        let bad = || format!("`{s}` is not a rate like 30/min (requests per client and minute)");
        let (n, unit) = s.trim().split_once('/').ok_or_else(bad)?;
        if !matches!(unit.trim(), "min" | "m" | "minute") {
            return Err(bad());
        }
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        NonZeroU32::new(n)
            .map(Rate::per_minute)
            .ok_or_else(|| format!("--rate `{s}`: at least 1/min"))
    }

    pub fn limit(&self) -> u32 {
        self.per_minute.get()
    }

    /// Takes one request from `client`'s bucket at `now`; when it is empty, the time until
    /// one is back.
    fn take(&self, client: &str, now: Instant) -> Result<(), Duration> {
        let cap = f64::from(self.per_minute.get());
        let per_second = cap / 60.0;
        let refilled = |b: &Bucket| {
            (b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * per_second).min(cap)
        };
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        if table.buckets.len() >= table.sweep_at {
            // A full bucket is the same as none: drop them.
            table.buckets.retain(|_, b| refilled(b) < cap);
            table.sweep_at = (table.buckets.len() * 2).max(SWEEP_AT);
        }
        let b = table.buckets.entry(client.to_owned()).or_insert(Bucket { tokens: cap, at: now });
        b.tokens = refilled(b);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - b.tokens) / per_second))
        }
    }

    #[cfg(test)]
    fn clients(&self) -> usize {
        self.table.lock().unwrap_or_else(PoisonError::into_inner).buckets.len()
    }
}

/// The client a request counts against: its principal, or its address.
fn client(req: &Request) -> String {
    if let Some(p) = req.extensions().get::<Principal>() {
        return format!("principal {}", p.0);
    }
    match guard::peer(req) {
        Some(IpAddr::V6(ip)) => {
            let s = ip.segments();
            format!("address {:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
        Some(ip) => format!("address {ip}"),
        None => "address unknown".to_owned(),
    }
}

/// 429 with `Retry-After` past the client's rate. The probes pass.
pub(crate) async fn limit(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let Some(rate) = &state.inner.config.guard.rate else {
        return next.run(req).await;
    };
    if guard::is_probe(&req) {
        return next.run(req).await;
    }
    match rate.take(&client(&req), Instant::now()) {
        Ok(()) => next.run(req).await,
        Err(wait) => {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let retry_after = wait.as_secs_f64().ceil().max(1.0) as u64;
            let mut resp =
                AppError::RateLimited { per_minute: rate.limit(), retry_after }.into_response();
            guard::close_if_body(&req, &mut resp);
            resp
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(n: u32) -> Rate {
        Rate::per_minute(NonZeroU32::new(n).expect("n"))
    }

    #[test]
    fn a_burst_of_n_then_one_every_60_over_n_seconds() {
        let r = rate(6);
        let t0 = Instant::now();
        for _ in 0..6 {
            assert_eq!(r.take("a", t0), Ok(()));
        }
        // Empty: the next request is 10 s away.
        let wait = r.take("a", t0).expect_err("empty");
        assert!((wait.as_secs_f64() - 10.0).abs() < 1e-6, "{wait:?}");
        // Another client has its own bucket.
        assert_eq!(r.take("b", t0), Ok(()));
        // 9 s later still nothing; at 10 s one request, and only one.
        assert!(r.take("a", t0 + Duration::from_secs(9)).is_err());
        assert_eq!(r.take("a", t0 + Duration::from_secs(10)), Ok(()));
        let wait = r.take("a", t0 + Duration::from_secs(10)).expect_err("empty again");
        assert!((wait.as_secs_f64() - 10.0).abs() < 1e-6, "{wait:?}");
        // A minute of silence refills the bucket to N, not more.
        let later = t0 + Duration::from_secs(600);
        for _ in 0..6 {
            assert_eq!(r.take("a", later), Ok(()));
        }
        assert!(r.take("a", later).is_err());
    }

    #[test]
    fn full_buckets_are_dropped_so_the_table_stays_small() {
        let r = rate(60);
        let t0 = Instant::now();
        for i in 0..SWEEP_AT {
            assert_eq!(r.take(&format!("c{i}"), t0), Ok(()));
        }
        assert_eq!(r.clients(), SWEEP_AT);
        // A second later each of them has refilled (one a second): the next client sweeps.
        assert_eq!(r.take("new", t0 + Duration::from_secs(1)), Ok(()));
        assert_eq!(r.clients(), 1);
    }

    #[test]
    fn rates_parse() {
        assert_eq!(Rate::parse("30/min").expect("rate").limit(), 30);
        assert_eq!(Rate::parse(" 5 / minute ").expect("rate").limit(), 5);
        for bad in ["30", "30/s", "0/min", "-1/min", "x/min", ""] {
            assert!(Rate::parse(bad).is_err(), "{bad}");
        }
    }
}
