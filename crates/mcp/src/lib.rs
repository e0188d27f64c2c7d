//! `advisor mcp`: the engine's analyses as Model Context Protocol tools, for agents. The
//! server speaks MCP (JSON-RPC, one message a line) on stdin and stdout, through the
//! official Rust SDK (`rmcp`), and answers five tools: `analyze`, `compare`, `recommend`,
//! `explain_rule` and `catalog_vm`. Each declares its input schema (derived from the
//! arguments it parses, so the two cannot drift) and its output schema (the document's of
//! `advisor schema`), and answers the document as `structuredContent` beside a text for
//! the model to read (the Markdown report, the rule's explanation).
//!
//! Files are read only under the directories the operator allows ([`Allowed`]): every
//! path is resolved (symbolic links, `..`) before it is checked, and what is read is the
//! resolved path. Limits match `advisor serve`'s ([`Limits`]): the bytes of one call's
//! inputs, the analyses running at once, the time a call gets. Anything wrong with a call
//! (a path outside, an unreadable capture with its file and line, a bad argument) is a tool
//! error the model reads, never a crash of the server.

mod allowed;
mod tools;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use advisor_engine::{EngineError, Session};
use rmcp::ServiceExt as _;
use tokio::sync::Semaphore;

pub use allowed::Allowed;

/// What one call may take. The defaults are `advisor serve`'s, passed in by the CLI.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Bytes of all the files of one call together (a folder bundle is bounded by the
    /// bundle limits instead).
    pub max_input: u64,
    /// Analyses that run at once; a call that finds them all busy waits
    /// [`Limits::queue_wait`], then gets a tool error saying so.
    pub workers: usize,
    /// How long a call waits for a free analysis slot.
    pub queue_wait: Duration,
    /// The time a call gets in all; past it, a tool error (the work still holds its slot
    /// until it ends).
    pub timeout: Duration,
}

/// The session's options as the command line gives them: every call is analysed with
/// them, and a call's own `set` values are added to the server's.
#[derive(Debug, Clone, Default)]
pub struct SessionOptions {
    pub rules: Vec<PathBuf>,
    pub sets: Vec<String>,
    pub catalog: Vec<PathBuf>,
    pub counters: Vec<PathBuf>,
    pub templates: Option<PathBuf>,
}

impl SessionOptions {
    /// A session with these options and `extra_sets` after the server's own.
    pub fn build(&self, extra_sets: &[String]) -> Result<Session, EngineError> {
        Session::builder()
            .templates(self.templates.as_deref())
            .catalog(&self.catalog)
            .rules(&self.rules)
            .set(&self.sets)
            .set(extra_sets)
            .counters(&self.counters)
            .build()
    }
}

/// Why the server could not start or stopped.
#[derive(Debug)]
pub enum McpError {
    /// The session (rules, catalog, templates) did not build.
    Session(EngineError),
    /// A limit or an allowed directory is wrong.
    Setting(String),
    /// The transport failed (stdin or stdout closed mid-message, a runtime error).
    Transport(String),
}

impl std::fmt::Display for McpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Session(e) => write!(f, "{e}"),
            Self::Setting(m) | Self::Transport(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for McpError {}

/// What every call shares.
#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) options: SessionOptions,
    pub(crate) session: Session,
    pub(crate) allowed: Allowed,
    pub(crate) limits: Limits,
    pub(crate) slots: Arc<Semaphore>,
}

/// The MCP server: build it, then [`Server::serve_stdio`].
#[derive(Debug, Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
}

impl Server {
    /// Loads the session (a mistake in the rules, `--set`, the catalog or templates stops
    /// it here, before any message is read) and checks the limits.
    pub fn new(
        options: SessionOptions,
        allowed: Allowed,
        limits: Limits,
    ) -> Result<Self, McpError> {
        if limits.workers == 0 {
            return Err(McpError::Setting("--workers must be at least 1".into()));
        }
        let session = options.build(&[]).map_err(McpError::Session)?;
        let slots = Arc::new(Semaphore::new(limits.workers));
        Ok(Server { inner: Arc::new(Inner { options, session, allowed, limits, slots }) })
    }

    /// Serves MCP on this process' stdin and stdout until the client closes stdin.
    pub fn serve_stdio(self) -> Result<(), McpError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .thread_name("advisor-mcp")
            .build()
            .map_err(|e| McpError::Transport(format!("starting the async runtime: {e}")))?;
        let served = runtime.block_on(async {
            let running = self
                .serve(rmcp::transport::stdio())
                .await
                .map_err(|e| McpError::Transport(format!("initializing: {e}")))?;
            running.waiting().await.map_err(|e| McpError::Transport(format!("serving: {e}")))?;
            Ok(())
        });
        // An analysis still running for a client that has gone is not waited for.
        runtime.shutdown_timeout(Duration::from_secs(1));
        served
    }
}
