//! The server: one engine [`Session`] per client connection over one shared
//! backend, the tools' handlers, and the MCP plumbing.
//!
//! Every call runs in its own task under a deadline: a handler that panics
//! or an application that hangs ends that call with a tool error, never the
//! server. Calls of one client are serialized on its session; clients never
//! wait on each other.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};
use tokio::sync::Mutex;
use uidelta_backend::{Action, App, Backend, Navigate};
use uidelta_engine::selector::Selector;
use uidelta_engine::{ActOptions, ActionOutcome, AppId, Condition, DragEnd, Session, WindowAction};
use uidelta_model::{NodeId, Rect, State};
use uidelta_render::{count_tokens, tree_text, TreeOptions};

use crate::args::{self, ActOpts, Target};
use crate::files::OutputDir;
use crate::known_app::{notable_states, obvious_app, window_named, window_or_main};
use crate::receipt::LogDir;
use crate::reply::{self, app_json, handle_json, handle_text, Reply, Shown, ToolError};
use crate::tools;

/// How long a call may take beyond the waits it asks for.
const CALL_LIMIT: Duration = Duration::from_secs(60);
/// Matches `find_elements` returns unless told otherwise.
const FIND_LIMIT: usize = 25;

/// An MCP server for one client: its own session (refs, latest snapshots)
/// over a backend shared with every other client.
pub struct Server<B: Backend> {
    inner: Arc<Inner<B>>,
    /// Offer only protocol versions with MCP sessions (up to 2025-11-25):
    /// over HTTP, the session is what ties a client to its refs.
    sessions: bool,
}

pub(crate) struct Inner<B: Backend> {
    backend: Arc<B>,
    session: Mutex<Session<B>>,
    call_limit: Duration,
    /// Where action receipts go, shared with the server's other clients.
    log: Option<Arc<LogDir>>,
    /// Where `output_file`s go; without it they are refused.
    output: Option<Arc<OutputDir>>,
    /// The application a call that names none acts on (the tab opened
    /// with `uidelta mcp --browser --url`).
    default_app: Option<App>,
}

impl<B: Backend + 'static> Server<B> {
    /// A server with a fresh session on `backend`.
    pub fn new(backend: Arc<B>) -> Server<B> {
        Server {
            inner: Arc::new(Inner {
                session: Mutex::new(Session::new(Arc::clone(&backend))),
                backend,
                call_limit: CALL_LIMIT,
                log: None,
                output: None,
                default_app: None,
            }),
            sessions: false,
        }
    }

    /// The same server, offering only protocol versions that have MCP
    /// sessions, so that over HTTP each client keeps its own refs across
    /// requests. (From 2026-07-28 on, requests are stateless.)
    pub fn with_sessions(mut self) -> Server<B> {
        self.sessions = true;
        self
    }

    /// The same server with another limit on how long a call may take
    /// beyond the waits it asks for (60 s by default).
    pub fn with_call_limit(self, limit: Duration) -> Server<B> {
        let log = self.inner.log.clone();
        let output = self.inner.output.clone();
        self.rebuilt(limit, log, output)
    }

    /// The same server, logging every action tool call into `log`: the diff
    /// text and a PNG receipt with the changed elements boxed. Share one
    /// [`LogDir`] between the servers of one process, so that their files
    /// are numbered in one sequence.
    pub fn with_log_dir(self, log: Arc<LogDir>) -> Server<B> {
        let limit = self.inner.call_limit;
        let output = self.inner.output.clone();
        self.rebuilt(limit, Some(log), output)
    }

    /// The same server, writing `get_window_tree`'s `output_file`s into
    /// `output` (without one, an `output_file` is refused).
    pub fn with_output_dir(self, output: Arc<OutputDir>) -> Server<B> {
        let limit = self.inner.call_limit;
        let log = self.inner.log.clone();
        self.rebuilt(limit, log, Some(output))
    }

    /// The same server, acting on `app` when a call names no application
    /// (the tab it was started on: `uidelta mcp --browser --url X`).
    pub fn with_default_app(self, app: App) -> Server<B> {
        let limit = self.inner.call_limit;
        let log = self.inner.log.clone();
        let output = self.inner.output.clone();
        let mut server = self.rebuilt(limit, log, output);
        if let Some(inner) = Arc::get_mut(&mut server.inner) {
            inner.default_app = Some(app);
        }
        server
    }

    /// A fresh session with these settings.
    fn rebuilt(
        self,
        call_limit: Duration,
        log: Option<Arc<LogDir>>,
        output: Option<Arc<OutputDir>>,
    ) -> Server<B> {
        let inner = Inner {
            backend: Arc::clone(&self.inner.backend),
            session: Mutex::new(Session::new(Arc::clone(&self.inner.backend))),
            call_limit,
            log,
            output,
            default_app: self.inner.default_app.clone(),
        };
        Server {
            inner: Arc::new(inner),
            sessions: self.sessions,
        }
    }

    /// Runs tool `name` with `arguments`; what `tools/call` answers. Never
    /// fails: every problem is a tool error (`isError: true`).
    pub async fn call(&self, name: &str, arguments: Option<JsonObject>) -> CallToolResult {
        self.call_until(name, arguments, std::future::pending())
            .await
    }

    /// [`Server::call`], stopped when `cancelled` completes (the client
    /// cancelled the request, or its connection ended): the call's work is
    /// dropped, so that the client's next call does not wait for it.
    pub async fn call_until(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> CallToolResult {
        let inner = Arc::clone(&self.inner);
        let tool = name.to_owned();
        let args = arguments.unwrap_or_default();
        let mut task = tokio::spawn(async move { inner.run(&tool, args).await });
        let joined = tokio::select! {
            joined = &mut task => joined,
            () = cancelled => {
                task.abort();
                // Gone once this returns: the session is free again.
                let _ = task.await;
                tracing::info!(tool = name, "the client cancelled the call; its work is stopped");
                return ToolError {
                    kind: "cancelled",
                    message: format!("{name} was cancelled by the client"),
                }
                .into_result();
            }
        };
        match joined {
            Ok(Ok(reply)) => reply.into_result(),
            Ok(Err(e)) => e.into_result(),
            Err(e) => {
                tracing::error!(tool = name, "tool call failed: {e}");
                ToolError {
                    kind: "internal",
                    message: format!(
                        "{name} failed inside the server ({}); the server keeps serving",
                        if e.is_panic() { "a bug" } else { "cancelled" }
                    ),
                }
                .into_result()
            }
        }
    }
}

impl<B: Backend + 'static> ServerHandler for Server<B> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("uidelta", env!("CARGO_PKG_VERSION")))
            .with_instructions(tools::INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(Inner::<B>::listed()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !Inner::<B>::NAMES.contains(&request.name.as_ref()) {
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool named `{}`; the tools are: {}",
                    request.name,
                    Inner::<B>::NAMES.join(", ")
                ),
                None,
            ));
        }
        let cancelled = context.ct.cancelled();
        Ok(self
            .call_until(&request.name, request.arguments, cancelled)
            .await
            .into())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        Inner::<B>::tool_router().get(name).cloned()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        if self.sessions {
            Cow::Borrowed(ProtocolVersion::known_up_to(
                &ProtocolVersion::LATEST_WITH_INITIALIZE,
            ))
        } else {
            Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
        }
    }
}

impl<B: Backend + 'static> Inner<B> {
    async fn run(&self, tool: &str, args: JsonObject) -> Result<Reply, ToolError> {
        // Waits may last as long as they were asked to; the limit comes on top.
        let asked = args
            .get("timeout_ms")
            .and_then(Value::as_u64)
            .map(Duration::from_millis)
            .unwrap_or(Duration::ZERO)
            .min(args::MAX_WAIT);
        let limit = self.call_limit + asked;
        let mut reply = match tokio::time::timeout(limit, self.dispatch(tool, args)).await {
            Ok(r) => r?,
            Err(_) => {
                return Err(ToolError {
                    kind: "timeout",
                    message: format!(
                        "{tool} did not finish within {} ms; an application may be hung (the \
                         server keeps serving)",
                        limit.as_millis()
                    ),
                })
            }
        };
        let receipt = reply.receipt.take();
        if let (Some(log), Some(receipt)) = (&self.log, receipt) {
            let shot = self.backend.screenshot(None);
            let shot = async move { shot.await.map_err(|e| e.message) };
            match log.write(tool, receipt, shot).await {
                Ok((txt, png)) => {
                    reply.json["log"] = json!({
                        "text": txt.to_string_lossy(),
                        "png": png.to_string_lossy(),
                    });
                }
                Err(e) => {
                    tracing::warn!(tool, "logging the call into {}: {e}", log.dir().display());
                    reply.text.push_str(&format!("# log: {e}\n"));
                    reply.json["log_error"] = Value::String(e);
                }
            }
        }
        Ok(reply)
    }

    /// `named`, or, when the call names no application, the obvious one
    /// (see [`obvious_app`]).
    async fn app_named(
        &self,
        tool: &str,
        s: &Session<B>,
        named: Option<&str>,
    ) -> Result<String, ToolError> {
        if let Some(name) = named.map(str::trim).filter(|n| !n.is_empty()) {
            return Ok(name.to_owned());
        }
        let running = self.backend.apps().await?;
        obvious_app(tool, self.default_app.as_ref(), s.known_apps(), &running)
    }

    /// The application a selector is limited to: the one named, else,
    /// before any application has been read, the server's default one
    /// (the tab it was started on), as nothing else could match.
    fn selector_app(&self, s: &Session<B>, named: Option<&str>) -> Option<String> {
        match named {
            Some(name) => Some(name.to_owned()),
            None if s.known_apps().is_empty() => self.default_app.as_ref().map(|a| a.id.clone()),
            None => None,
        }
    }

    /// Forgets the snapshots of applications that exited, whose refresh
    /// would otherwise fail every target. Costs one listing of the
    /// applications when the session has read any.
    async fn prune(&self, s: &mut Session<B>) -> Result<(), ToolError> {
        if s.known_apps().is_empty() {
            return Ok(());
        }
        let alive: Vec<String> = self
            .backend
            .apps()
            .await?
            .into_iter()
            .map(|a| a.id)
            .collect();
        let exited: Vec<String> = s
            .known_apps()
            .iter()
            .filter(|l| !alive.contains(&l.app.id))
            .map(|l| l.app.id.clone())
            .collect();
        for id in exited {
            tracing::info!(app = id, "forgetting an application that exited");
            s.forget(&id);
        }
        Ok(())
    }

    pub(crate) async fn applications(&self) -> Result<Reply, ToolError> {
        let apps = self.backend.apps().await?;
        let text = uidelta_render::apps_text(&apps);
        let mut list = Vec::new();
        for a in &apps {
            list.push(json!({
                "name": a.name,
                "pid": a.pid,
                "error": a.error,
                "windows": a.windows.iter().map(|w| json!({
                    "title": w.title, "role": w.role, "active": w.active, "showing": w.showing,
                })).collect::<Vec<_>>(),
            }));
        }
        Ok(Reply {
            text,
            json: json!({ "applications": list }),
            png: None,
            receipt: None,
        })
    }

    pub(crate) async fn tree(&self, a: args::GetWindowTree) -> Result<Reply, ToolError> {
        let mut s = self.session.lock().await;
        let app = self
            .app_named("get_window_tree", &s, a.app.as_deref())
            .await?;
        let (idx, _) = s.observe(&app).await?;
        let known = &s.known_apps()[idx];
        let opts = TreeOptions { bounds: a.bounds };
        let (tree, window) = match &a.window {
            Some(title) => {
                let node = window_named(known, title)?;
                let name = known.view.tree().node(node).name.clone();
                (known.subtree_text(node, &opts), Some(name))
            }
            None => (tree_text(&known.view, &known.refs, &opts), None),
        };
        let elements = tree.lines().filter(|l| !l.starts_with('#')).count();
        let tokens = count_tokens(&tree);
        let what = match &window {
            Some(w) => format!("{} window {w:?}", known.app.label()),
            None => known.app.label(),
        };
        let mut json = json!({
            "app": app_json(&known.app),
            "window": window,
            "elements": elements,
            "truncated": known.view.meta().truncated,
            "tree_tokens": tokens,
        });
        let text = match &a.output_file {
            Some(path) => {
                let path = write_file(self.output.as_deref(), path, &tree)?;
                json["output_file"] = Value::String(path.clone());
                format!(
                    "# tree of {what} written to {path}: {elements} elements, {tokens} tokens. \
                     Refs in it stay valid; actions answer with diffs.\n"
                )
            }
            None => {
                json["tree"] = Value::String(tree.clone());
                format!(
                    "# {what}: {elements} elements, {tokens} tokens. Refs stay valid; actions \
                     answer with diffs, so this tree is not needed again.\n{tree}"
                )
            }
        };
        Ok(Reply {
            text,
            json,
            png: None,
            receipt: None,
        })
    }

    pub(crate) async fn find(&self, a: args::FindElements) -> Result<Reply, ToolError> {
        let selector: Selector = a
            .selector
            .trim()
            .parse()
            .map_err(uidelta_engine::Error::from)?;
        let limit = a.limit.unwrap_or(FIND_LIMIT).clamp(1, 500);
        let mut s = self.session.lock().await;
        self.prune(&mut s).await?;
        // Searching shows no diff: what changed since the last answer is
        // kept for the next one (`look`), not dropped.
        let only = match self.selector_app(&s, a.app.as_deref()) {
            Some(app) => Some(s.look(&app).await?),
            None => {
                let names: Vec<String> =
                    s.known_apps().iter().map(|l| l.app.name.clone()).collect();
                for name in names {
                    // An application that went away keeps its last snapshot.
                    let _ = s.look(&name).await;
                }
                None
            }
        };
        if s.known_apps().is_empty() {
            return Err(ToolError {
                kind: "no_match",
                message: "no application has been read yet: pass `app`, or call \
                          get_window_tree first"
                    .into(),
            });
        }
        let hits: Vec<(AppId, NodeId)> = s
            .find(&selector)
            .into_iter()
            .filter(|(i, _)| only.is_none_or(|o| o == *i))
            .collect();
        let mut text = String::new();
        let mut matches = Vec::new();
        for &(i, n) in hits.iter().take(limit) {
            let known = &s.known_apps()[i];
            let node = known.view.tree().node(n);
            let h = known.handle(n);
            let states: Vec<&str> = node.states.iter().map(State::as_str).collect();
            text.push_str(&handle_text(&h));
            if let Some(v) = node.value.as_deref().filter(|v| !v.is_empty()) {
                text.push_str(&format!(" = {v:?}"));
            }
            let notable = notable_states(node.states);
            if !notable.is_empty() {
                text.push_str(&format!(" ({})", notable.join(", ")));
            }
            text.push_str(&format!(
                " in {}\n",
                uidelta_model::printable(&known.app.name)
            ));
            let mut m = handle_json(&h);
            m["value"] = json!(node.value);
            m["states"] = json!(states);
            m["app"] = json!(known.app.name);
            matches.push(m);
        }
        let mut near = Vec::new();
        if hits.is_empty() {
            let r#where: Vec<String> = s.known_apps().iter().map(|l| l.app.label()).collect();
            text.push_str(&format!(
                "No element matches `{}` in {}.\n",
                a.selector.trim(),
                r#where.join(", ")
            ));
            let misses: Vec<(AppId, NodeId)> = s
                .near_misses(&selector)
                .into_iter()
                .filter(|(i, _)| only.is_none_or(|o| o == *i))
                .collect();
            if !misses.is_empty() {
                text.push_str("Nearest by name:\n");
            }
            for (i, n) in misses {
                let known = &s.known_apps()[i];
                let h = known.handle(n);
                text.push_str(&format!("  {}\n", s.offered(i, n)));
                let mut m = handle_json(&h);
                m["app"] = json!(known.app.name);
                near.push(m);
            }
        } else if hits.len() > limit {
            text.push_str(&format!(
                "# ... and {} more; narrow the selector or raise `limit`\n",
                hits.len() - limit
            ));
        }
        Ok(Reply {
            text,
            json: if near.is_empty() {
                json!({"matches": matches, "total": hits.len()})
            } else {
                json!({"matches": matches, "total": 0, "near": near})
            },
            png: None,
            receipt: None,
        })
    }

    pub(crate) async fn act(
        &self,
        tool: &str,
        target: &Target,
        action: Action,
        opts: &ActOpts,
    ) -> Result<Reply, ToolError> {
        let settle = opts.settle()?;
        let mut s = self.session.lock().await;
        self.prune(&mut s).await?;
        let app = self.selector_app(&s, target.app.as_deref());
        let t = prepare(&mut s, &target.target, app.as_deref()).await?;
        let acted = s
            .act(
                &t,
                &action,
                &ActOptions {
                    settle,
                    ..ActOptions::default()
                },
            )
            .await
            .map_err(|e| restate(e, &t, &target.target))?;
        Ok(answer(tool, &s, &acted, opts))
    }

    pub(crate) async fn drag(&self, a: args::DragElement) -> Result<Reply, ToolError> {
        const TOOL: &str = "drag_element";
        let settle = a.opts.settle()?;
        let from = match (&a.target, a.from_x, a.from_y) {
            (Some(target), None, None) => Ok(target.as_str()),
            (None, Some(x), Some(y)) => Err((x, y)),
            _ => {
                return Err(ToolError::bad_argument(
                    "drag_element: give what to drag, either `target` (a ref or selector) or \
                     both `from_x` and `from_y` (a point)",
                ))
            }
        };
        let mut s = self.session.lock().await;
        self.prune(&mut s).await?;
        let app = self.selector_app(&s, a.app.as_deref());
        let end = match (&a.to, a.x, a.y) {
            (Some(to), None, None) => DragEnd::Element(prepare(&mut s, to, app.as_deref()).await?),
            (None, Some(x), Some(y)) => DragEnd::Point(x, y),
            _ => {
                return Err(ToolError::bad_argument(
                    "drag_element: give where to drop, either `to` (a ref or selector) or both \
                     `x` and `y`",
                ))
            }
        };
        let opts = ActOptions {
            settle,
            ..ActOptions::default()
        };
        let acted = match from {
            Ok(target) => {
                let t = prepare(&mut s, target, app.as_deref()).await?;
                s.drag(&t, &end, &opts)
                    .await
                    .map_err(|e| restate(e, &t, target))?
            }
            Err(point) => {
                let app = self.app_named(TOOL, &s, a.app.as_deref()).await?;
                s.drag_at(&app, point, &end, &opts).await?
            }
        };
        Ok(answer(TOOL, &s, &acted, &a.opts))
    }

    pub(crate) async fn key(&self, a: args::PressKey) -> Result<Reply, ToolError> {
        if a.key.trim().is_empty() {
            return Err(ToolError::bad_argument(
                "press_key: `key` is empty; give a key or chord (`Return`, `ctrl+s`)",
            ));
        }
        if let Some(target) = a.target {
            let target = Target { target, app: a.app };
            return self
                .act("press_key", &target, Action::Key(a.key), &a.opts)
                .await;
        }
        let settle = a.opts.settle()?;
        let mut s = self.session.lock().await;
        self.prune(&mut s).await?;
        // The key goes to that application's focused element.
        let app = self.app_named("press_key", &s, a.app.as_deref()).await?;
        let acted = s
            .key(
                &app,
                a.key.trim(),
                &ActOptions {
                    settle,
                    ..ActOptions::default()
                },
            )
            .await?;
        Ok(answer("press_key", &s, &acted, &a.opts))
    }

    pub(crate) async fn click_point(&self, a: args::ClickAt) -> Result<Reply, ToolError> {
        let action = a.click.action();
        self.at_point("click_at", a.app.as_deref(), (a.x, a.y), action, &a.opts)
            .await
    }

    /// `action` (a click, or the pointer moved) at a point, answered with
    /// the diff of `app`.
    pub(crate) async fn at_point(
        &self,
        tool: &str,
        app: Option<&str>,
        point: (i32, i32),
        action: Action,
        opts: &ActOpts,
    ) -> Result<Reply, ToolError> {
        let settle = opts.settle()?;
        let mut s = self.session.lock().await;
        self.prune(&mut s).await?;
        let app = self.app_named(tool, &s, app).await?;
        let acted = s
            .click_at(
                &app,
                point,
                &action,
                &ActOptions {
                    settle,
                    ..ActOptions::default()
                },
            )
            .await?;
        Ok(answer(tool, &s, &acted, opts))
    }

    pub(crate) async fn navigate(&self, a: args::NavigateBrowser) -> Result<Reply, ToolError> {
        const TOOL: &str = "navigate_browser";
        let to = match (a.url, a.go) {
            (Some(url), None) if !url.trim().is_empty() => Navigate::To(url.trim().to_owned()),
            (None, Some(args::History::Back)) => Navigate::Back,
            (None, Some(args::History::Forward)) => Navigate::Forward,
            (None, Some(args::History::Reload)) => Navigate::Reload,
            (Some(_), Some(_)) => {
                return Err(ToolError::bad_argument(
                    "navigate_browser: give either `url` or `go`, not both",
                ))
            }
            _ => {
                return Err(ToolError::bad_argument(
                    "navigate_browser: give `url` (the page to load) or `go` (`back`, \
                     `forward`, `reload`)",
                ))
            }
        };
        let settle = a.opts.settle()?;
        let mut s = self.session.lock().await;
        self.prune(&mut s).await?;
        let app = self.app_named(TOOL, &s, a.app.as_deref()).await?;
        let acted = s
            .navigate(
                &app,
                &to,
                &ActOptions {
                    settle,
                    ..ActOptions::default()
                },
            )
            .await?;
        Ok(answer(TOOL, &s, &acted, &a.opts))
    }

    pub(crate) async fn run_script(
        &self,
        a: args::ExecuteBrowserScript,
    ) -> Result<Reply, ToolError> {
        const TOOL: &str = "execute_browser_script";
        if a.script.trim().is_empty() {
            return Err(ToolError::bad_argument(
                "execute_browser_script: `script` is empty; give JavaScript to evaluate",
            ));
        }
        let settle = a.opts.settle()?;
        let mut s = self.session.lock().await;
        self.prune(&mut s).await?;
        let app = self.app_named(TOOL, &s, a.app.as_deref()).await?;
        let (result, acted) = s
            .run_script(
                &app,
                &a.script,
                &ActOptions {
                    settle,
                    ..ActOptions::default()
                },
            )
            .await?;
        let mut reply = answer(TOOL, &s, &acted, &a.opts);
        reply.text = format!("# result: {result}\n{}", reply.text);
        reply.json["result"] =
            serde_json::from_str(&result).unwrap_or(serde_json::Value::String(result));
        Ok(reply)
    }

    pub(crate) async fn activate(&self, a: args::ActivateElement) -> Result<Reply, ToolError> {
        let settle = a.opts.settle()?;
        let mut s = self.session.lock().await;
        self.prune(&mut s).await?;
        let app = self.selector_app(&s, a.target.app.as_deref());
        let t = prepare(&mut s, &a.target.target, app.as_deref()).await?;
        let acted = s
            .window_action(&t, WindowAction::Activate, settle)
            .await
            .map_err(|e| restate(e, &t, &a.target.target))?;
        Ok(answer("activate_element", &s, &acted, &a.opts))
    }

    pub(crate) async fn close(&self, a: args::CloseWindow) -> Result<Reply, ToolError> {
        const TOOL: &str = "close_window";
        let settle = a.opts.settle()?;
        let mut s = self.session.lock().await;
        self.prune(&mut s).await?;
        let acted = match (&a.target, &a.app) {
            (Some(_), _) if a.window.is_some() => {
                return Err(ToolError::bad_argument(
                    "close_window: give `target` or `window`, not both",
                ));
            }
            (Some(target), app) => {
                let app = self.selector_app(&s, app.as_deref());
                let t = prepare(&mut s, target, app.as_deref()).await?;
                s.window_action(&t, WindowAction::Close, settle)
                    .await
                    .map_err(|e| restate(e, &t, target))?
            }
            (None, Some(app)) => {
                s.app_window_action(app, a.window.as_deref(), WindowAction::Close, settle)
                    .await?
            }
            (None, None) => {
                return Err(ToolError::bad_argument(
                    "close_window: give `target` (an element of the window) or `app` (and \
                     optionally `window`, its title)",
                ));
            }
        };
        Ok(answer(TOOL, &s, &acted, &a.opts))
    }

    pub(crate) async fn open(&self, a: args::OpenApplication) -> Result<Reply, ToolError> {
        if a.program.trim().is_empty() {
            return Err(ToolError::bad_argument(
                "open_application: `program` is empty",
            ));
        }
        let timeout = args::timeout(a.timeout_ms, Duration::from_secs(20))?;
        let app = self
            .backend
            .open(a.program.trim(), &a.args, timeout)
            .await?;
        let mut text = format!("# opened {}\n", app.label());
        for w in &app.windows {
            text.push_str(&format!("  {} {:?}\n", w.role, w.title));
        }
        text.push_str(&format!(
            "# next: get_window_tree with app {:?}, once\n",
            app.name
        ));
        Ok(Reply {
            text,
            json: json!({
                "app": app_json(&app),
                "windows": app.windows.iter().map(|w| json!({
                    "title": w.title, "role": w.role, "active": w.active, "showing": w.showing,
                })).collect::<Vec<_>>(),
            }),
            png: None,
            receipt: None,
        })
    }

    pub(crate) async fn wait_change(&self, a: args::WaitForChange) -> Result<Reply, ToolError> {
        let timeout = args::timeout(a.timeout_ms, Duration::from_secs(10))?;
        let mut s = self.session.lock().await;
        let app = self
            .app_named("wait_for_change", &s, a.app.as_deref())
            .await?;
        let acted = s.wait_for_change(&app, timeout).await?;
        let shown = Shown {
            diff: true,
            tree: a.include_tree_after_action,
        };
        let mut r = told("wait_for_change", &s, &acted, shown);
        // Not an action: nothing to log.
        r.receipt = None;
        if acted.exited {
            r.json["timed_out"] = Value::Bool(false);
            return Ok(r);
        }
        r.json["timed_out"] = Value::Bool(!acted.diff.has_changes());
        if !acted.diff.has_changes() {
            r.text.push_str(&format!(
                "# nothing changed in {} ms\n",
                timeout.as_millis()
            ));
        }
        Ok(r)
    }

    pub(crate) async fn wait_element(&self, a: args::WaitForElement) -> Result<Reply, ToolError> {
        let timeout = args::timeout(a.timeout_ms, Duration::from_secs(10))?;
        let condition = a.condition.condition(a.state.as_deref())?;
        let started = Instant::now();
        let mut s = self.session.lock().await;
        let app = self
            .app_named("wait_for_element", &s, a.app.as_deref())
            .await?;
        let result = s
            .wait_for_element(&app, &a.selector, condition, timeout)
            .await?;
        let found = result.found;
        let waited = started.elapsed().as_millis() as u64;
        let mut text = match &found {
            // Whatever was awaited will not come; what was to go went.
            None if result.exited => format!("# {} exited, after {waited} ms\n", app),
            Some(h) => format!(
                "# {} {} after {waited} ms\n",
                handle_text(h),
                match condition {
                    Condition::Appears => "is there".to_owned(),
                    Condition::Has(st) => format!("is {st}"),
                    Condition::Lacks(st) => format!("is not {st}"),
                    Condition::Disappears => String::new(),
                }
            ),
            None => format!(
                "# nothing matches `{}` any more, after {waited} ms\n",
                a.selector.trim()
            ),
        };
        let changes = reply::app_diffs(&mut text, "changed while waiting", &result.changes);
        Ok(Reply {
            text,
            json: json!({
                "element": found.as_ref().map(handle_json),
                "waited_ms": waited,
                "changes": changes,
                "app_exited": result.exited,
            }),
            png: None,
            receipt: None,
        })
    }

    pub(crate) async fn screenshot(&self, a: args::CaptureScreenshot) -> Result<Reply, ToolError> {
        let (area, what) = match &a.app {
            None => {
                if a.window.is_some() {
                    return Err(ToolError::bad_argument(
                        "capture_screenshot: `window` needs `app`",
                    ));
                }
                (None, "the screen".to_owned())
            }
            Some(app) => {
                let mut s = self.session.lock().await;
                let idx = s.look(app).await?;
                let known = &s.known_apps()[idx];
                let window = window_or_main(known, a.window.as_deref())?;
                let node = known.view.tree().node(window);
                let bounds =
                    node.bounds
                        .filter(|b| b.w > 0 && b.h > 0)
                        .ok_or_else(|| ToolError {
                            kind: "unsupported",
                            message: format!(
                                "the window {:?} of {} reports no bounds",
                                node.name,
                                known.app.label()
                            ),
                        })?;
                (
                    Some(bounds),
                    format!("{} window {:?}", known.app.label(), node.name),
                )
            }
        };
        let png = self.backend.screenshot(area).await?;
        let text = format!(
            "# screenshot of {what}{}: {} bytes of PNG\n",
            area.map(rect_text).unwrap_or_default(),
            png.len()
        );
        Ok(Reply {
            text,
            json: json!({
                "area": area.map(|r| json!([r.x, r.y, r.w, r.h])),
                "bytes": png.len(),
                "mime_type": "image/png",
            }),
            png: Some(png),
            receipt: None,
        })
    }
}

/// The answer of an action on `acted.app`: its diff, and its tree after for
/// the token comparison (and when asked for); or that it exited.
fn answer<B: Backend>(tool: &str, s: &Session<B>, acted: &ActionOutcome, opts: &ActOpts) -> Reply {
    let shown = Shown {
        diff: opts.ui_diff_before_after,
        tree: opts.include_tree_after_action,
    };
    told(tool, s, acted, shown)
}

/// [`Report::told`](uidelta_render::Report::told) of `acted`, with the
/// tree after it unless the application exited.
fn told<B: Backend>(tool: &str, s: &Session<B>, acted: &ActionOutcome, shown: Shown) -> Reply {
    let tree = if acted.exited {
        String::new()
    } else {
        scope_tree(s, &acted.app)
    };
    reply::told(tool, &acted.report(&tree), shown)
}

fn scope_tree<B: Backend>(s: &Session<B>, app: &App) -> String {
    s.known_apps()
        .iter()
        .find(|l| l.app.id == app.id)
        .map(|l| tree_text(&l.view, &l.refs, &TreeOptions::default()))
        .unwrap_or_default()
}

/// The selector to hand to the engine: `target` as given, after making sure
/// `app` has been read; a selector without its own `app:` condition is
/// limited to `app`.
async fn prepare<B: Backend>(
    s: &mut Session<B>,
    target: &str,
    app: Option<&str>,
) -> Result<String, ToolError> {
    let target = target.trim();
    if target.is_empty() {
        return Err(ToolError::bad_argument(
            "`target` is empty; give a ref (`e12`) or a selector (`role:push button && \
             name:Save`)",
        ));
    }
    // Parse errors should point into what the caller wrote.
    let selector: Selector = target.parse().map_err(uidelta_engine::Error::from)?;
    let Some(app) = app else {
        return Ok(target.to_owned());
    };
    let found = s.find_app(app).await?;
    let known = s
        .known_apps()
        .iter()
        .find(|l| l.app.id == found.id)
        .map(|l| l.app.name.clone());
    match known {
        None => {
            s.observe(app).await?;
        }
        // Named anew since it was read (a tab whose page changed its
        // title): read again under its name, or the selector below, which
        // names it so, would find nothing in it. What changed meanwhile is
        // kept for the answer.
        Some(name) if name != found.name => {
            s.look_at(found.clone()).await?;
        }
        Some(_) => {}
    }
    let lower = target.to_lowercase();
    if selector.as_ref().is_some() || lower.contains("app:") || lower.contains("app~:") {
        return Ok(target.to_owned());
    }
    Ok(format!("app:{} >> {target}", quote(&found.name)))
}

/// An engine error about the selector [`prepare`] made, told in terms of
/// the one the caller wrote.
fn restate(e: uidelta_engine::Error, made: &str, written: &str) -> ToolError {
    let mut error = ToolError::from(e);
    if made != written.trim() {
        error.message = error.message.replace(made, written.trim());
    }
    error
}

/// `name:"option"` inside `target`.
pub(crate) fn option_inside(target: &str, option: &str) -> Result<String, ToolError> {
    let target = target.trim();
    if option.trim().is_empty() {
        return Err(ToolError::bad_argument("select_option: `option` is empty"));
    }
    let container = if target.parse::<uidelta_diff::Ref>().is_ok() {
        format!("id:{target}")
    } else {
        target.to_owned()
    };
    Ok(format!("{container} >> name:{}", quote(option.trim())))
}

/// A selector's quoted value.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn rect_text(r: Rect) -> String {
    format!(" ({}x{} at {},{})", r.w, r.h, r.x, r.y)
}

/// Writes `text` as `file` in the output directory and answers with its
/// full path.
fn write_file(output: Option<&OutputDir>, file: &str, text: &str) -> Result<String, ToolError> {
    let output = output.ok_or_else(|| {
        ToolError::bad_argument(
            "this server has no output directory for `output_file` (uidelta mcp --output-dir DIR)",
        )
    })?;
    let path = output.write(file, text).map_err(|message| ToolError {
        kind: "bad_argument",
        message,
    })?;
    Ok(path.to_string_lossy().into_owned())
}
