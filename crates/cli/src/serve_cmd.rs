//! `advisor serve [--listen 127.0.0.1:8080] [--max-upload 256MiB] [--workers N]
//! [--timeout 120] [--queue-wait 5] [--header-timeout 20] [--body-timeout 30]
//! [--memory-budget 2GiB] [--rules DIR] [--set ID.PARAM=V]
//! [--catalog FILE] [--templates DIR]`: the upload page and the HTTP API, until SIGTERM or
//! Ctrl-C. Every upload is analyzed with the rules, parameters, catalog and templates given
//! here, as `advisor analyze` would; a mistake in them stops the server before it listens
//! (exit code 2).
//!
//! The bound address is printed on stderr (`--listen 127.0.0.1:0` picks a free port).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use advisor_server::{AppState, Config};
use anyhow::Context as _;

#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// Address and port to listen on; port 0 picks a free one. Loopback by default: put a
    /// reverse proxy with authentication in front before exposing it.
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

pub(crate) fn run(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .try_init()
        .ok();
    let config = Config {
        max_upload: args.max_upload,
        workers: args.workers.map_or_else(advisor_server::default_workers, usize::from),
        request_timeout: Duration::from_secs(args.timeout),
        queue_wait: Duration::from_secs(args.queue_wait),
        header_timeout: Duration::from_secs(args.header_timeout),
        memory_budget: args.memory_budget as u64,
        body_timeout: Duration::from_secs(args.body_timeout),
        ..Config::default()
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
        eprintln!(
            "advisor serve: listening on {} (upload limit {} bytes, {} workers, timeout {} s)",
            advisor_server::base_url(addr),
            config.max_upload,
            config.workers,
            args.timeout
        );
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
