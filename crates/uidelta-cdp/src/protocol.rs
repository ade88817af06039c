//! DevTools calls: a method name and JSON parameters in, JSON out, always
//! under a timeout.
//!
//! Answers are read as plain JSON rather than through the typed protocol
//! structs: a browser newer than the protocol revision those were generated
//! from adds enum values (a new AX property, a new pseudo element type), and
//! one unknown value would make a whole typed answer unreadable.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::error::CdpError;
use chromiumoxide::types::MethodId;
use chromiumoxide::{Browser, Command, Method, Page};
use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::frames::{CallError, Frames};

/// How long one DevTools call may take before it is given up.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// One DevTools command with untyped parameters and answer.
#[derive(Debug)]
pub(crate) struct Call {
    method: &'static str,
    params: Value,
}

impl Serialize for Call {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.params.serialize(s)
    }
}

impl Method for Call {
    fn identifier(&self) -> MethodId {
        self.method.into()
    }
}

impl Command for Call {
    type Response = Value;
}

/// State shared by a [`crate::Cdp`] and the tasks it runs.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    /// Cleared when the connection to the browser ends.
    pub alive: AtomicBool,
    /// The tab activated last (opened, switched to, or opened by a page).
    pub active: Mutex<Option<String>>,
    /// Tabs whose pages report DOM changes through the binding.
    pub instrumented: Mutex<std::collections::HashSet<String>>,
    /// Tabs whose JavaScript dialogs are watched.
    pub dialogs_watched: Mutex<std::collections::HashSet<String>>,
    /// The JavaScript dialogs of the tabs.
    pub dialogs: crate::dialogs::Dialogs,
    /// The file choosers of the tabs.
    pub choosers: crate::choosers::Choosers,
    /// The downloads of the tabs.
    pub downloads: crate::downloads::Downloads,
    /// Tasks started for single tabs, stopped with the connection.
    pub tasks: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    /// Per tab: set while a `Page.navigate` waits for its page to load.
    pub navigations: Mutex<std::collections::HashMap<String, Arc<AtomicBool>>>,
    /// The browser's DevTools WebSocket URL.
    pub endpoint: String,
    /// The second connection, for out-of-process iframes; opened on first use.
    pub frames: tokio::sync::Mutex<Option<Arc<Frames>>>,
    /// The capture's own connection, for its big answers; opened on first
    /// use, held for the length of one capture's calls.
    pub wire: tokio::sync::Mutex<Option<crate::capture::Wire>>,
}

impl Shared {
    /// A fresh state for a live connection to the browser at `endpoint`.
    pub fn new(endpoint: String) -> Arc<Shared> {
        let shared = Shared {
            endpoint,
            ..Shared::default()
        };
        shared.alive.store(true, Ordering::SeqCst);
        Arc::new(shared)
    }

    /// Whether the browser connection is still up.
    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// Whether `id` is a tab this connection has used.
    pub fn is_tab(&self, id: &str) -> bool {
        self.dialogs_watched
            .lock()
            .is_ok_and(|tabs| tabs.contains(id))
    }

    /// The tab activated last, if any.
    pub fn active(&self) -> Option<String> {
        self.active.lock().ok().and_then(|a| a.clone())
    }

    /// Whether a `Page.navigate` on tab `id` still waits for its page.
    pub fn navigating(&self, id: &str) -> bool {
        self.navigations
            .lock()
            .ok()
            .and_then(|n| n.get(id).map(|f| f.load(Ordering::SeqCst)))
            .unwrap_or(false)
    }

    /// Marks a `Page.navigate` on tab `id` as under way; clear the flag
    /// returned when it has answered.
    pub fn start_navigating(&self, id: &str) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(true));
        if let Ok(mut n) = self.navigations.lock() {
            n.insert(id.to_owned(), Arc::clone(&flag));
        }
        flag
    }

    /// Keeps a task to stop with the connection; forgets finished ones.
    pub fn keep(&self, task: tokio::task::JoinHandle<()>) {
        if let Ok(mut tasks) = self.tasks.lock() {
            tasks.retain(|t| !t.is_finished());
            tasks.push(task);
        }
    }

    /// Records `id` as the active tab.
    pub fn set_active(&self, id: Option<String>) {
        if let Ok(mut a) = self.active.lock() {
            *a = id;
        }
    }
}

/// One tab, for the length of one operation: its page, what is being done
/// to it (for messages), and the connection state (to tell a closed tab from
/// an exited browser). With a `route`, calls go to one of the tab's
/// out-of-process iframes instead of its page.
#[derive(Clone)]
pub(crate) struct Session {
    pub page: Page,
    pub doing: String,
    pub shared: Arc<Shared>,
    pub route: Option<Route>,
}

/// Where the calls of an out-of-process iframe go.
#[derive(Clone)]
pub(crate) struct Route {
    pub frames: Arc<Frames>,
    /// The iframe's target id, which is also its frame id.
    pub target: String,
    /// The session attached to it on the frames' connection.
    pub session: String,
}

impl Session {
    /// The same operation on the out-of-process iframe `target` of the tab
    /// (an `iframe` target id), attaching to it on first use.
    pub async fn in_frame(&self, target: &str) -> Result<Session> {
        let frames = self.frames().await?;
        let session = match frames.session(target, CALL_TIMEOUT).await {
            Ok(s) => s,
            Err(CallError::Browser(message)) => {
                return Err(Error::NotFound(format!(
                    "{}: the cross-site frame {target} is no longer in the page ({message}); \
                     capture again",
                    self.doing
                )))
            }
            Err(CallError::Timeout) => {
                return Err(self.timeout("Target.attachToTarget", CALL_TIMEOUT))
            }
            Err(CallError::Closed) => return Err(self.gone("the frames' connection closed")),
        };
        Ok(Session {
            route: Some(Route {
                frames,
                target: target.to_owned(),
                session,
            }),
            ..self.clone()
        })
    }

    /// The frames' connection, opened on first use.
    async fn frames(&self) -> Result<Arc<Frames>> {
        let mut slot = self.shared.frames.lock().await;
        if let Some(f) = slot.as_ref() {
            return Ok(Arc::clone(f));
        }
        let connect = Frames::connect(&self.shared.endpoint);
        let (frames, task) = match tokio::time::timeout(CALL_TIMEOUT, connect).await {
            Ok(Ok(opened)) => opened,
            Ok(Err(detail)) => {
                return Err(Error::Connect {
                    url: self.shared.endpoint.clone(),
                    detail: format!("a second connection, for cross-site frames: {detail}"),
                })
            }
            Err(_) => return Err(self.timeout("connecting for cross-site frames", CALL_TIMEOUT)),
        };
        self.shared.keep(task);
        let frames = Arc::new(frames);
        *slot = Some(Arc::clone(&frames));
        Ok(frames)
    }

    /// The tab's target id.
    pub fn tab_id(&self) -> String {
        self.page.target_id().inner().clone()
    }

    /// The error for the dialog held open on the tab, if one is.
    pub fn held_dialog(&self) -> Option<Error> {
        let held = self.shared.dialogs.held(&self.tab_id())?;
        Some(Error::Dialog {
            doing: self.doing.clone(),
            dialog: held.dialog,
        })
    }

    /// Runs `work` (calls into the page) unless a JavaScript dialog is
    /// held open on the tab, and gives up when one opens meanwhile:
    /// nothing in the page answers until it is answered.
    pub async fn unless_dialog<F: std::future::Future>(&self, work: F) -> Result<F::Output> {
        let opened = self.shared.dialogs.opened.notified();
        tokio::pin!(opened);
        opened.as_mut().enable();
        if let Some(e) = self.held_dialog() {
            return Err(e);
        }
        tokio::pin!(work);
        loop {
            tokio::select! {
                done = &mut work => return Ok(done),
                () = &mut opened => {
                    opened.set(self.shared.dialogs.opened.notified());
                    opened.as_mut().enable();
                    if let Some(e) = self.held_dialog() {
                        return Err(e);
                    }
                }
            }
        }
    }

    /// Calls `method` on the tab with the default timeout.
    pub async fn call(&self, method: &'static str, params: Value) -> Result<Value> {
        self.call_within(method, params, CALL_TIMEOUT).await
    }

    /// Calls `method` on the tab, giving up after `after`.
    pub async fn call_within(
        &self,
        method: &'static str,
        params: Value,
        after: Duration,
    ) -> Result<Value> {
        // Answering a dialog is the one call the page does not block.
        if method == "Page.handleJavaScriptDialog" {
            return self.call_now(method, params, after).await;
        }
        self.unless_dialog(self.call_now(method, params, after))
            .await?
    }

    async fn call_now(
        &self,
        method: &'static str,
        params: Value,
        after: Duration,
    ) -> Result<Value> {
        if let Some(route) = &self.route {
            return self.call_in_frame(route, method, params, after).await;
        }
        let sent = self.page.execute(Call { method, params });
        match tokio::time::timeout(after, sent).await {
            Ok(Ok(answer)) => Ok(answer.result),
            Ok(Err(e)) => Err(classify(e, &self.doing, method, &self.shared, "the tab")),
            Err(_) => Err(self.timeout(method, after)),
        }
    }

    async fn call_in_frame(
        &self,
        route: &Route,
        method: &'static str,
        params: Value,
        after: Duration,
    ) -> Result<Value> {
        let answer = route
            .frames
            .call(method, Some(&route.session), params, after)
            .await;
        match answer {
            Ok(value) => Ok(value),
            Err(CallError::Timeout) => Err(self.timeout(method, after)),
            Err(CallError::Closed) => Err(self.gone("the frames' connection closed")),
            Err(CallError::Browser(message)) => {
                match from_message(&self.doing, method, &message, "the frame") {
                    // The frame's session ended: its frame is gone or was
                    // replaced, not the tab.
                    Error::Gone { detail, .. } => {
                        route.frames.forget(&route.target);
                        Err(Error::NotFound(format!(
                            "{}: the cross-site frame {} is no longer in the page ({detail}); \
                             capture again",
                            self.doing, route.target
                        )))
                    }
                    other => Err(other),
                }
            }
        }
    }

    /// Starts receiving the tab's events of type `T`.
    pub async fn listen<T: chromiumoxide::cdp::IntoEventKind>(
        &self,
    ) -> Result<chromiumoxide::listeners::EventStream<T>> {
        match tokio::time::timeout(CALL_TIMEOUT, self.page.event_listener::<T>()).await {
            Ok(Ok(stream)) => Ok(stream),
            Ok(Err(e)) => Err(self.gone(&e.to_string())),
            Err(_) => Err(self.timeout("subscribing to events", CALL_TIMEOUT)),
        }
    }

    /// A timeout error for `what` (a method, or an awaited event).
    pub fn timeout(&self, what: &str, after: Duration) -> Error {
        if !self.shared.is_alive() {
            return gone(&self.doing, "the browser", "the connection closed");
        }
        Error::Timeout {
            doing: self.doing.clone(),
            method: what.to_owned(),
            after,
        }
    }

    /// The error for a tab that went away while being used.
    pub fn gone(&self, detail: &str) -> Error {
        if self.shared.is_alive() {
            gone(&self.doing, "the tab", detail)
        } else {
            gone(&self.doing, "the browser", "the connection closed")
        }
    }
}

/// Calls a browser-level `method` (targets, windows). `about` is what an
/// error of the browser's refers to: `the tab` for calls on one target.
pub(crate) async fn browser_call(
    browser: &Browser,
    shared: &Shared,
    (doing, about): (&str, &'static str),
    method: &'static str,
    params: Value,
) -> Result<Value> {
    let sent = browser.execute(Call { method, params });
    match tokio::time::timeout(CALL_TIMEOUT, sent).await {
        Ok(Ok(answer)) => Ok(answer.result),
        Ok(Err(e)) => Err(classify(e, doing, method, shared, about)),
        Err(_) if !shared.is_alive() => Err(gone(doing, "the browser", "the connection closed")),
        Err(_) => Err(Error::Timeout {
            doing: doing.to_owned(),
            method: method.to_owned(),
            after: CALL_TIMEOUT,
        }),
    }
}

fn gone(doing: &str, what: &'static str, detail: &str) -> Error {
    Error::Gone {
        doing: doing.to_owned(),
        what,
        detail: detail.to_owned(),
    }
}

/// Turns a failed call into an error that says what happened to what.
fn classify(e: CdpError, doing: &str, method: &str, shared: &Shared, owner: &'static str) -> Error {
    let browser_gone = || gone(doing, "the browser", "the connection closed");
    match e {
        CdpError::Timeout => Error::Timeout {
            doing: doing.to_owned(),
            method: method.to_owned(),
            after: CALL_TIMEOUT,
        },
        CdpError::ChannelSendError(_) | CdpError::NoResponse if !shared.is_alive() => {
            browser_gone()
        }
        CdpError::ChannelSendError(_) | CdpError::NoResponse => {
            gone(doing, owner, "it no longer takes commands")
        }
        CdpError::Ws(_) | CdpError::Io(_) => browser_gone(),
        CdpError::Chrome(err) => from_message(doing, method, &err.message, owner),
        CdpError::ChromeMessage(message) => from_message(doing, method, &message, owner),
        other => Error::Protocol {
            doing: doing.to_owned(),
            method: method.to_owned(),
            detail: other.to_string(),
        },
    }
}

/// Reads the browser's error message: some say the tab or the element is gone.
pub(crate) fn from_message(doing: &str, method: &str, message: &str, owner: &'static str) -> Error {
    const TAB_GONE: [&str; 6] = [
        "target closed",
        "no target with given id",
        "session with given id not found",
        "no session with given id",
        "not attached to an active page",
        "target crashed",
    ];
    const NODE_GONE: [&str; 5] = [
        "no node with given id",
        "could not find node with given id",
        "node with given id does not belong to the document",
        "no node found for given backend id",
        "node is detached from document",
    ];
    let lower = message.to_ascii_lowercase();
    if TAB_GONE.iter().any(|m| lower.contains(m)) {
        return gone(doing, owner, message);
    }
    if NODE_GONE.iter().any(|m| lower.contains(m)) {
        return Error::NotFound(format!(
            "{doing}: the element is no longer in the page ({message}); capture again"
        ));
    }
    Error::Protocol {
        doing: doing.to_owned(),
        method: method.to_owned(),
        detail: message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidelta_backend::ErrorKind;

    #[test]
    fn messages_that_mean_gone_or_missing_are_classified() {
        let e = from_message("capturing", "DOM.focus", "Target closed", "the tab");
        assert_eq!(e.kind(), ErrorKind::Gone);
        assert_eq!(e.to_string(), "capturing: the tab is gone (Target closed)");
        let e = from_message(
            "clicking",
            "DOM.getContentQuads",
            "No node with given id found",
            "the tab",
        );
        assert_eq!(e.kind(), ErrorKind::NotFound);
        let e = from_message(
            "clicking",
            "DOM.focus",
            "Element is not focusable",
            "the tab",
        );
        assert_eq!(e.kind(), ErrorKind::Other);
        assert_eq!(
            e.to_string(),
            "clicking: DOM.focus failed: Element is not focusable"
        );
    }
}
