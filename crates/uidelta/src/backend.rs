//! [`AnyBackend`]: the backend a command connected to, whichever it is,
//! as one type that the engine and the MCP server take.

use std::sync::Arc;
use std::time::{Duration, Instant};

use uidelta_backend::{Action, App, Backend, EventStream, Navigate, Performed, Result, Scope};
use uidelta_cdp::Cdp;
use uidelta_linux::Linux;
use uidelta_model::{NodeData, Rect, Snapshot};

/// The desktop or a browser: every call goes to the one it is.
pub enum AnyBackend {
    /// The desktop of this session.
    Desktop(Arc<Linux>),
    /// A browser (started for the command, or attached to).
    Browser(Arc<Cdp>),
}

/// Calls `$call` on the backend `$any` is, bound to `$b`.
macro_rules! each {
    ($any:expr, $b:ident => $call:expr) => {
        match $any {
            AnyBackend::Desktop($b) => $call,
            AnyBackend::Browser($b) => $call,
        }
    };
}

impl Backend for AnyBackend {
    fn name(&self) -> &'static str {
        each!(self, b => Backend::name(&**b))
    }

    async fn apps(&self) -> Result<Vec<App>> {
        each!(self, b => Backend::apps(&**b).await)
    }

    async fn capture(&self, app: &App, scope: &Scope) -> Result<Snapshot> {
        each!(self, b => Backend::capture(&**b, app, scope).await)
    }

    async fn act(&self, app: &App, node: &NodeData, action: &Action) -> Result<Performed> {
        each!(self, b => Backend::act(&**b, app, node, action).await)
    }

    async fn key(&self, app: &App, chord: &str) -> Result<Performed> {
        each!(self, b => Backend::key(&**b, app, chord).await)
    }

    async fn events(&self, app: &App) -> Result<EventStream> {
        each!(self, b => Backend::events(&**b, app).await)
    }

    async fn screenshot(&self, area: Option<Rect>) -> Result<Vec<u8>> {
        each!(self, b => Backend::screenshot(&**b, area).await)
    }

    async fn open(&self, program: &str, args: &[String], timeout: Duration) -> Result<App> {
        each!(self, b => Backend::open(&**b, program, args, timeout).await)
    }

    async fn close_window(&self, app: &App, window: &NodeData) -> Result<Performed> {
        each!(self, b => Backend::close_window(&**b, app, window).await)
    }

    async fn activate_window(&self, app: &App, window: &NodeData) -> Result<Performed> {
        each!(self, b => Backend::activate_window(&**b, app, window).await)
    }

    async fn actions(&self, app: &App, node: &NodeData) -> Result<Vec<String>> {
        each!(self, b => Backend::actions(&**b, app, node).await)
    }

    async fn click_at(&self, app: &App, x: i32, y: i32, action: &Action) -> Result<Performed> {
        each!(self, b => Backend::click_at(&**b, app, x, y, action).await)
    }

    async fn centre_now(&self, app: &App, node: &NodeData) -> Result<Option<(i32, i32)>> {
        each!(self, b => Backend::centre_now(&**b, app, node).await)
    }

    async fn answers(&self, app: &App) -> Result<bool> {
        each!(self, b => Backend::answers(&**b, app).await)
    }

    fn unresponsive_hint(&self) -> Option<&'static str> {
        each!(self, b => Backend::unresponsive_hint(&**b))
    }

    fn settle_window(&self, app: &App) -> Option<Duration> {
        each!(self, b => Backend::settle_window(&**b, app))
    }

    async fn shows_late(&self, app: &App) -> bool {
        each!(self, b => Backend::shows_late(&**b, app).await)
    }

    async fn windows_made(&self, app: &App, since: Instant) -> usize {
        each!(self, b => Backend::windows_made(&**b, app, since).await)
    }

    async fn started(&self, app: &App, since: Instant) -> Vec<u32> {
        each!(self, b => Backend::started(&**b, app, since).await)
    }

    async fn navigate(&self, app: &App, to: &Navigate) -> Result<Performed> {
        each!(self, b => Backend::navigate(&**b, app, to).await)
    }

    async fn run_script(&self, app: &App, script: &str) -> Result<String> {
        each!(self, b => Backend::run_script(&**b, app, script).await)
    }
}
