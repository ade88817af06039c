//! uidelta's MCP server: the delta loop as tools for any MCP host.
//!
//! Every action tool acts, waits until the UI has settled and answers with
//! the diff of what changed, so an agent reads an application's full tree
//! once and diffs after that. Each client connection gets its own engine
//! session (refs, latest snapshots) over one shared [`Backend`]; the
//! [`tools`] module declares the tools, each once, with rmcp's `#[tool]`
//! (name, description, annotations, input schema, handler), and holds the
//! [`INSTRUCTIONS`] that teach the loop.
//!
//! Built on the official Rust MCP SDK, `rmcp`. Transports: stdio
//! ([`serve_stdio`]) and streamable HTTP ([`serve_http`]).

#![warn(missing_docs)]

use std::sync::Arc;

use rmcp::ServiceExt;
use uidelta_backend::{App, Backend};

mod args;
mod files;
mod http;
mod known_app;
mod receipt;
mod reply;
mod server;
mod sessions;
mod stdio;
pub mod tools;

pub use files::OutputDir;
pub use http::{serve_http, serve_listener, HttpOptions};
pub use receipt::LogDir;
pub use reply::ToolError;
pub use server::Server;
pub use sessions::{MAX_SESSIONS, SESSION_IDLE};
pub use tools::INSTRUCTIONS;

/// Why the server stopped or could not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The MCP handshake failed.
    #[error("starting the MCP session: {0}")]
    Start(String),
    /// The connection ended abnormally.
    #[error("serving MCP: {0}")]
    Serve(String),
    /// The HTTP listener could not be set up.
    #[error("{doing}: {source}")]
    Io {
        /// What was being done.
        doing: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A refused option combination.
    #[error("{0}")]
    Config(String),
}

/// Serves one client on standard input and output until it disconnects.
/// Nothing else may write to standard output meanwhile. A line that is no
/// JSON-RPC message is answered with a JSON-RPC error (`-32700` when it is
/// not JSON, `-32600` when it is no message), and serving goes on.
/// `default_app` is what calls that name no application act on (the tab
/// opened with `--url`; see [`Server::with_default_app`]).
pub async fn serve_stdio<B: Backend + 'static>(
    backend: Arc<B>,
    log: Option<Arc<LogDir>>,
    output: Option<Arc<OutputDir>>,
    default_app: Option<App>,
) -> Result<(), Error> {
    warm_up();
    let mut server = Server::new(backend);
    if let Some(app) = default_app {
        server = server.with_default_app(app);
    }
    if let Some(log) = log {
        server = server.with_log_dir(log);
    }
    if let Some(output) = output {
        server = server.with_output_dir(output);
    }
    let (read, write) = rmcp::transport::stdio_pipes();
    let running = server
        .serve(stdio::Lines::new(read, write))
        .await
        .map_err(|e| Error::Start(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| Error::Serve(e.to_string()))?;
    Ok(())
}

/// Builds the token counter's tables in the background, so that the first
/// action does not pay for them.
fn warm_up() {
    tokio::task::spawn_blocking(|| uidelta_render::count_tokens(""));
}
