//! `advisor serve [--listen 127.0.0.1:8080] [--max-upload 256MiB] [--workers N]
//! [--timeout 120] [--queue-wait 5] [--header-timeout 20] [--body-timeout 30]
//! [--memory-budget 2GiB] [--rules DIR] [--set ID.PARAM=V]
//! [--catalog FILE] [--templates DIR] [--tokens FILE] [--trust-header NAME --trusted-proxy
//! CIDR...] [--tls-cert FILE --tls-key FILE] [--audit FILE] [--rate N/min]
//! [--insecure-no-auth]`: the upload page and the HTTP API, until SIGTERM or Ctrl-C. Every
//! upload is analyzed with the rules, parameters, catalog and templates given here, as
//! `advisor analyze` would; a mistake in them, in the tokens file or in the certificate and
//! key stops the server before it listens (exit code 2). Without `--tokens` or
//! `--trust-header` it listens on loopback only, unless `--insecure-no-auth` says otherwise.
//!
//! The bound address is printed on stderr (`--listen 127.0.0.1:0` picks a free port); the
//! audit trail follows there, one JSON line per request, unless `--audit FILE` takes it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use advisor_server::{AppState, Audit, Config, Guard, Rate, Tls, Tokens, TrustedProxy};
use anyhow::Context as _;

#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// Address and port to listen on; port 0 picks a free one. Loopback by default; another
    /// address needs --tokens or --trust-header (or --insecure-no-auth).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Largest upload accepted (all files of one request together), e.g. 256MiB, 1GiB,
    /// 500MB; larger requests get 413 before they are read.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = parse_size)]
    max_upload: usize,
    /// Analyses that run at once (default: one per core); others wait a few seconds, then
    /// get 503 with Retry-After.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    workers: Option<u16>,
    /// Seconds an analysis request gets in all (upload, wait, analysis).
    #[arg(long, value_name = "SECS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// Seconds a request waits for a free analysis slot before 503 with Retry-After.
    #[arg(long, value_name = "SECS", default_value_t = 5)]
    queue_wait: u64,
    /// Seconds a connection gets to send a request's headers, and to stay idle between
    /// requests; then it is closed.
    #[arg(long, value_name = "SECS", default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout: u64,
    /// Seconds a request's body gets to arrive; then 408. A request takes an analysis slot
    /// only once its body is in, so slow senders hold none.
    #[arg(long, value_name = "SECS", default_value_t = advisor_server::DEFAULT_BODY_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    body_timeout: u64,
    /// Memory the requests in flight may hold together (uploads, unpacked bundle entries,
    /// captures as read), e.g. 2GiB, 512MiB; a request larger than all of it gets 413, one
    /// that would fit once others are done gets 503 with Retry-After.
    #[arg(long, value_name = "SIZE", default_value = "2GiB", value_parser = parse_size)]
    memory_budget: usize,
    /// Also load the rules of this folder (adds, or replaces a shipped rule by id).
    #[arg(long = "rules", value_name = "DIR")]
    rules: Vec<PathBuf>,
    /// Set a rule parameter, e.g. --set vm-cached-throughput-cap.cap_ratio=90%.
    #[arg(long = "set", value_name = "ID.PARAM=VALUE")]
    sets: Vec<String>,
    /// A catalog CSV (VM sizes or disk SKUs) that extends or corrects the built-in one.
    #[arg(long, value_name = "FILE")]
    catalog: Vec<PathBuf>,
    /// PerfMon counter names of another display language (a TOML table like those in
    /// counters/), used before the built-in tables.
    #[arg(long, value_name = "FILE")]
    counters: Vec<PathBuf>,
    /// Templates that replace the built-in ones file by file (report.html.tera,
    /// report.md.tera, partials/...).
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
    /// Every route but /healthz needs a token of this file (NAME:SHA256 lines, which
    /// `advisor token new NAME` prints): `Authorization: Bearer TOKEN`, or the password a
    /// browser asks for.
    #[arg(long, value_name = "FILE")]
    tokens: Option<PathBuf>,
    /// Behind an authenticating proxy (oauth2-proxy): the header it sets to the user, e.g.
    /// X-Forwarded-Email, believed only from --trusted-proxy addresses.
    #[arg(long, value_name = "NAME", requires = "trusted_proxy")]
    trust_header: Option<String>,
    /// The proxy's address or network (CIDR), repeatable.
    #[arg(long, value_name = "CIDR", requires = "trust_header")]
    trusted_proxy: Vec<String>,
    /// Serve HTTPS with this PEM certificate chain (the server's first), with --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The certificate's PEM private key.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Append the audit trail (one JSON line per request) to FILE rather than stderr.
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// Requests per client and minute, e.g. 30/min (a client is its token's name, the
    /// proxy's user, or its address); past it, 429 with Retry-After.
    #[arg(long, value_name = "N/min", value_parser = Rate::parse)]
    rate: Option<Rate>,
    /// Listen on an address other than loopback without authentication: anyone who can
    /// reach the port may upload.
    #[arg(long, conflicts_with_all = ["tokens", "trust_header"])]
    insecure_no_auth: bool,
}

/// `256MiB`, `10 MB`, `1GiB`, `4096` (bytes).
pub(crate) fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().map_err(|_| format!("`{s}` is not a size like 256MiB"))?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "kib" => 1024.0,
        "m" | "mb" => 1e6,
        "mib" => 1024.0 * 1024.0,
        "g" | "gb" => 1e9,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        other => return Err(format!("unknown unit `{other}` (B, KB, KiB, MB, MiB, GB, GiB)")),
    };
    let bytes = (n * mult).round();
    if !(1.0..=16.0 * 1024.0 * 1024.0 * 1024.0).contains(&bytes) {
        return Err(format!("`{s}` is out of range (1 byte to 16 GiB)"));
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(bytes as usize)
}

/// Who may call the service, at what rate, and where the audit trail goes; refuses an
/// address beyond loopback that nobody has to authenticate on.
fn guard(args: &ServeArgs) -> anyhow::Result<Guard> {
    let tokens = args.tokens.as_deref().map(Tokens::read).transpose()?.map(Arc::new);
    let proxy = args
        .trust_header
        .as_deref()
        .map(|h| TrustedProxy::new(h, &args.trusted_proxy))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let guard = Guard { tokens, proxy, rate: args.rate.clone(), audit: None };
    if !guard.authenticates() && !args.listen.ip().is_loopback() && !args.insecure_no_auth {
        anyhow::bail!(
            "refusing to listen on {} without authentication: anyone who can reach it could \
             upload. Give --tokens FILE (`advisor token new NAME` makes the lines) or \
             --trust-header NAME --trusted-proxy CIDR behind an authenticating proxy; \
             --insecure-no-auth if the network itself decides who reaches it",
            args.listen
        );
    }
    let audit = match &args.audit {
        Some(path) => Audit::file(path)
            .with_context(|| format!("{}: cannot open the audit file", path.display()))?,
        None => Audit::stderr(),
    };
    Ok(Guard { audit: Some(audit), ..guard })
}

/// `tokens: 2 clients, rate 30/min, audit to stderr`, for the start-up line.
fn access_summary(guard: &Guard) -> String {
    let mut parts = Vec::new();
    if let Some(t) = &guard.tokens {
        parts.push(format!("tokens: {} client{}", t.len(), if t.len() == 1 { "" } else { "s" }));
    }
    if let Some(p) = &guard.proxy {
        let nets: Vec<String> = p.from.iter().map(ToString::to_string).collect();
        parts.push(format!("user from {} sent by {}", p.header, nets.join(", ")));
    }
    if !guard.authenticates() {
        parts.push("no authentication".to_owned());
    }
    if let Some(r) = &guard.rate {
        parts.push(format!("rate {}/min per client", r.limit()));
    }
    if let Some(a) = &guard.audit {
        parts.push(format!("audit to {}", a.name()));
    }
    parts.join(", ")
}

pub(crate) fn run(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .try_init()
        .ok();
    let guard = guard(args)?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(Tls::load(cert, key)?),
        _ => None,
    };
    let access = access_summary(&guard);
    let config = Config {
        max_upload: args.max_upload,
        workers: args.workers.map_or_else(advisor_server::default_workers, usize::from),
        request_timeout: Duration::from_secs(args.timeout),
        queue_wait: Duration::from_secs(args.queue_wait),
        header_timeout: Duration::from_secs(args.header_timeout),
        guard,
        tls,
        memory_budget: args.memory_budget as u64,
        body_timeout: Duration::from_secs(args.body_timeout),
        limits: advisor_server::DEFAULT_LIMITS,
    };
    let session = crate::analyze_cmd::session(
        &args.rules,
        &args.sets,
        &args.catalog,
        args.templates.as_deref(),
        &args.counters,
    )?;
    let state = AppState::with_session(config.clone(), session)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("advisor-serve")
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("listening on {}", args.listen))?;
        let addr = listener.local_addr().context("the bound address")?;
        let base = if config.tls.is_some() {
            advisor_server::https_base_url(addr)
        } else {
            advisor_server::base_url(addr)
        };
        eprintln!(
            "advisor serve: listening on {base} (upload limit {} bytes, {} workers, timeout {} s; {access})",
            config.max_upload, config.workers, args.timeout
        );
        if config.guard.tokens.is_some() && config.tls.is_none() && !addr.ip().is_loopback() {
            eprintln!(
                "advisor serve: the tokens cross the network in clear: give --tls-cert and \
                 --tls-key, or terminate TLS in front (an ingress, a proxy)"
            );
        }
        advisor_server::serve(listener, state, advisor_server::shutdown_signal())
            .await
            .context("serving")
    })?;
    // Analyses still running were cancelled and stop at their next checkpoint; the process
    // does not wait on any longer than that.
    runtime.shutdown_timeout(Duration::from_secs(5));
    eprintln!("advisor serve: stopped");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("256MiB"), Ok(256 * 1024 * 1024));
        assert_eq!(parse_size("10 MB"), Ok(10_000_000));
        assert_eq!(parse_size("1gib"), Ok(1 << 30));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("3 parsecs").is_err());
        assert!(parse_size("0").is_err());
    }
}
