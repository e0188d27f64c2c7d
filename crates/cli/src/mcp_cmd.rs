//! `advisor mcp [--allow DIR]... [--max-input 256MiB] [--workers N] [--timeout 120]
//! [--queue-wait 5] [--rules DIR] [--set ID.PARAM=V] [--catalog FILE] [--counters FILE]
//! [--templates DIR]`: a Model Context Protocol server on stdin and stdout, for agents
//! (`advisor_mcp`). It reads files only under the `--allow` directories (the working
//! directory by default), with `advisor serve`'s limits by default. Nothing but protocol
//! messages goes to stdout; a mistake in the options stops it before it reads a message
//! (exit code 2).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use advisor_mcp::{Allowed, Limits, Server, SessionOptions};
use anyhow::Context as _;

#[derive(Debug, clap::Args)]
#[command(after_help = "Example (an MCP client's server entry):\n  \
    {\"command\": \"advisor\", \"args\": [\"mcp\", \"--allow\", \"/srv/tickets\"]}")]
pub(crate) struct McpArgs {
    /// A directory whose files (at any depth) the tools may read; repeatable. Paths are
    /// resolved (links, ..) before they are checked. Default: the working directory.
    #[arg(long = "allow", value_name = "DIR")]
    allow: Vec<PathBuf>,
    /// Largest total size of the files one call names, e.g. 256MiB, 1GiB (as `advisor
    /// serve --max-upload`).
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = crate::serve_cmd::parse_size)]
    max_input: usize,
    /// Analyses that run at once (default: one per core); a call that finds them all busy
    /// waits --queue-wait seconds, then gets a tool error.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    workers: Option<u16>,
    /// Seconds a call gets in all (waiting for a slot, reading, analysing, rendering).
    #[arg(long, value_name = "SECS", default_value_t = advisor_server::DEFAULT_REQUEST_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// Seconds a call waits for a free analysis slot.
    #[arg(long, value_name = "SECS", default_value_t = advisor_server::DEFAULT_QUEUE_WAIT.as_secs())]
    queue_wait: u64,
    /// Also load the rules of this folder (adds, or replaces a shipped rule by id).
    #[arg(long = "rules", value_name = "DIR")]
    rules: Vec<PathBuf>,
    /// Set a rule parameter for every call, e.g. --set vm-cached-throughput-cap.cap_ratio=90%.
    #[arg(long = "set", value_name = "ID.PARAM=VALUE")]
    sets: Vec<String>,
    /// A catalog CSV (VM sizes or disk SKUs) that extends or corrects the built-in one.
    #[arg(long, value_name = "FILE")]
    catalog: Vec<PathBuf>,
    /// PerfMon counter names of another display language (a TOML table like those in
    /// counters/), used before the built-in tables.
    #[arg(long, value_name = "FILE")]
    counters: Vec<PathBuf>,
    /// Templates that replace the built-in ones file by file (report.md.tera, ...).
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
}

pub(crate) fn run(args: &McpArgs) -> anyhow::Result<ExitCode> {
    // Log lines (a panic's, say) go to stderr: stdout carries the protocol alone.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(false)
        .with_max_level(tracing::Level::WARN)
        .try_init()
        .ok();
    let cwd = std::env::current_dir().context("the working directory")?;
    let dirs = if args.allow.is_empty() { vec![cwd.clone()] } else { args.allow.clone() };
    let allowed = Allowed::new(&dirs, &cwd).map_err(anyhow::Error::msg)?;
    let limits = Limits {
        max_input: args.max_input as u64,
        workers: args.workers.map_or_else(advisor_server::default_workers, usize::from),
        queue_wait: Duration::from_secs(args.queue_wait),
        timeout: Duration::from_secs(args.timeout),
    };
    let options = SessionOptions {
        rules: args.rules.clone(),
        sets: args.sets.clone(),
        catalog: args.catalog.clone(),
        counters: args.counters.clone(),
        templates: args.templates.clone(),
    };
    let server = Server::new(options, allowed, limits)?;
    server.serve_stdio()?;
    Ok(ExitCode::SUCCESS)
}
