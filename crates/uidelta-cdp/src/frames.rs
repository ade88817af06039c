//! Out-of-process iframes: their own DevTools sessions, on a second
//! connection to the browser.
//!
//! Under site isolation Chromium runs a cross-site iframe in another
//! renderer process, as a target of its own (type `iframe`, its id the
//! frame's id). The page's session cannot read it: `Page.getFrameTree` and
//! `DOMSnapshot.captureSnapshot` stop at its `<iframe>` element, and
//! `Accessibility.getFullAXTree` does not know its frame id.
//!
//! chromiumoxide 0.9.1 auto-attaches every page to such targets
//! (`Target.setAutoAttach` with `flatten`), but only to let them start
//! (`Runtime.runIfWaitingForDebugger`): it keeps no handle on their
//! sessions, drives only page targets, and sends a command with no other
//! session id than a page's or none. Its [`Connection`] does take a session
//! id per command, so a second WebSocket to the same browser carries the
//! frames' sessions: `Target.attachToTarget {flatten: true}` there, then
//! every command of the frame with that session id. The connection is
//! opened the first time a tab has such a frame, and its sessions are kept
//! until the browser detaches them (the frame went away).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::target::SessionId;
use chromiumoxide::types::{CallId, EventMessage, Message, Method, MethodId};
use chromiumoxide::Connection;
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc, oneshot};

/// An event read on the frames' connection.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct FrameEvent {
    pub method: String,
    /// The session it was sent in; `None` for the browser's own.
    #[serde(rename = "sessionId", default)]
    pub session: Option<String>,
    #[serde(default)]
    pub params: Value,
}

impl Method for FrameEvent {
    fn identifier(&self) -> MethodId {
        self.method.clone().into()
    }
}

impl EventMessage for FrameEvent {
    fn session_id(&self) -> Option<&str> {
        self.session.as_deref()
    }
}

/// What a call on the frames' connection ends with: the result, or the
/// browser's error message.
type Answer = std::result::Result<Value, String>;

struct Request {
    method: &'static str,
    session: Option<String>,
    params: Value,
    answer: oneshot::Sender<Answer>,
}

/// The second connection to the browser, for out-of-process frames.
pub(crate) struct Frames {
    requests: mpsc::UnboundedSender<Request>,
    /// Target id -> the session attached to it here.
    sessions: Arc<Mutex<HashMap<String, String>>>,
    events: broadcast::Sender<FrameEvent>,
}

impl std::fmt::Debug for Frames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frames").finish_non_exhaustive()
    }
}

impl Frames {
    /// Connects to the browser at `endpoint` (its WebSocket URL). Returns
    /// the connection and the task that drives it; the connection ends
    /// with the task.
    pub async fn connect(
        endpoint: &str,
    ) -> std::result::Result<(Frames, tokio::task::JoinHandle<()>), String> {
        let conn = Connection::<FrameEvent>::connect(endpoint)
            .await
            .map_err(|e| e.to_string())?;
        let (requests, rx) = mpsc::unbounded_channel();
        let sessions = Arc::new(Mutex::new(HashMap::new()));
        let (events, _) = broadcast::channel(1024);
        let task = tokio::spawn(drive(conn, rx, Arc::clone(&sessions), events.clone()));
        Ok((
            Frames {
                requests,
                sessions,
                events,
            },
            task,
        ))
    }

    /// Sends `method` in `session` (the browser's own with `None`) and
    /// waits for the answer, at most `after`.
    pub async fn call(
        &self,
        method: &'static str,
        session: Option<&str>,
        params: Value,
        after: Duration,
    ) -> std::result::Result<Value, CallError> {
        let (answer, rx) = oneshot::channel();
        let request = Request {
            method,
            session: session.map(str::to_owned),
            params,
            answer,
        };
        self.requests.send(request).map_err(|_| CallError::Closed)?;
        match tokio::time::timeout(after, rx).await {
            Ok(Ok(Ok(value))) => Ok(value),
            Ok(Ok(Err(message))) => Err(CallError::Browser(message)),
            Ok(Err(_)) => Err(CallError::Closed),
            Err(_) => Err(CallError::Timeout),
        }
    }

    /// The session attached to the iframe target `target`, attaching once.
    pub async fn session(
        &self,
        target: &str,
        after: Duration,
    ) -> std::result::Result<String, CallError> {
        if let Some(s) = self.known(target) {
            return Ok(s);
        }
        let answer = self
            .call(
                "Target.attachToTarget",
                None,
                json!({"targetId": target, "flatten": true}),
                after,
            )
            .await?;
        let session = answer["sessionId"]
            .as_str()
            .ok_or_else(|| CallError::Browser("the answer names no session".into()))?
            .to_owned();
        if let Ok(mut map) = self.sessions.lock() {
            map.insert(target.to_owned(), session.clone());
        }
        Ok(session)
    }

    fn known(&self, target: &str) -> Option<String> {
        self.sessions.lock().ok()?.get(target).cloned()
    }

    /// Forgets the session of `target`, so that the next use attaches anew.
    pub fn forget(&self, target: &str) {
        if let Ok(mut map) = self.sessions.lock() {
            map.remove(target);
        }
    }

    /// Every event that arrives from now on, in any of the sessions.
    pub fn events(&self) -> broadcast::Receiver<FrameEvent> {
        self.events.subscribe()
    }
}

/// Why a call on the frames' connection failed.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The connection is closed.
    Closed,
    /// No answer in time.
    Timeout,
    /// The browser answered with this error message.
    Browser(String),
}

async fn drive(
    mut conn: Connection<FrameEvent>,
    mut requests: mpsc::UnboundedReceiver<Request>,
    sessions: Arc<Mutex<HashMap<String, String>>>,
    events: broadcast::Sender<FrameEvent>,
) {
    let mut pending: HashMap<CallId, oneshot::Sender<Answer>> = HashMap::new();
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(r) = request else { break };
                let session = r.session.map(SessionId::from);
                match conn.submit_command(r.method.into(), session, r.params) {
                    Ok(id) => {
                        pending.insert(id, r.answer);
                    }
                    Err(e) => {
                        let _ = r.answer.send(Err(e.to_string()));
                    }
                }
            }
            message = conn.next() => match message {
                Some(Ok(Message::Response(response))) => {
                    let Some(answer) = pending.remove(&response.id) else { continue };
                    let result = match (response.result, response.error) {
                        (_, Some(error)) => Err(error.message),
                        (Some(value), None) => Ok(value),
                        (None, None) => Ok(Value::Null),
                    };
                    let _ = answer.send(result);
                }
                Some(Ok(Message::Event(event))) => {
                    if event.method == "Target.detachedFromTarget" {
                        if let (Some(target), Ok(mut map)) =
                            (event.params["targetId"].as_str(), sessions.lock())
                        {
                            map.remove(target);
                        }
                    }
                    // Nobody listening is fine.
                    let _ = events.send(event);
                }
                // A message that does not parse is skipped, not fatal.
                Some(Err(chromiumoxide::error::CdpError::InvalidMessage(..))) => {}
                Some(Err(e)) => {
                    tracing::debug!("the frames' connection ended: {e}");
                    break;
                }
                None => break,
            }
        }
    }
    // Waiting callers see the connection closed.
    pending.clear();
}

/// The iframe targets of a `Target.getTargets` answer: target id (also the
/// frame's id) and the frame that holds its `<iframe>` element.
pub(crate) fn iframe_targets(answer: &Value) -> Vec<(String, String)> {
    let Some(infos) = answer["targetInfos"].as_array() else {
        return Vec::new();
    };
    infos
        .iter()
        .filter(|t| t["type"] == "iframe")
        .filter_map(|t| {
            Some((
                t["targetId"].as_str()?.to_owned(),
                t["parentFrameId"].as_str()?.to_owned(),
            ))
        })
        .collect()
}

/// Of `targets` (from [`iframe_targets`]), the first not yet `done` whose
/// parent frame `known` says belongs to the tab. Taking them in this order
/// reaches parents before children: a frame nested in a cross-site frame
/// belongs to the tab once that frame has been visited and its own frames
/// made known.
pub(crate) fn next_of_tab(
    targets: &[(String, String)],
    done: &[bool],
    known: impl Fn(&str) -> bool,
) -> Option<usize> {
    (0..targets.len()).find(|&k| !done.get(k).copied().unwrap_or(true) && known(&targets[k].1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iframe_targets_name_their_parent_frame() {
        let answer = json!({"targetInfos": [
            {"targetId": "P1", "type": "page", "url": "http://127.0.0.1/"},
            {"targetId": "F1", "type": "iframe", "url": "http://localhost/", "parentFrameId": "P1"},
            {"targetId": "F2", "type": "iframe", "url": "http://x/"},
            {"targetId": "W1", "type": "service_worker", "parentFrameId": "P1"}
        ]});
        assert_eq!(
            iframe_targets(&answer),
            vec![("F1".to_owned(), "P1".to_owned())]
        );
        assert!(iframe_targets(&json!({})).is_empty());
        // F2 sits in F1 (another site again): reachable only once F1 is.
        let targets = vec![
            ("F2".to_owned(), "F1".to_owned()),
            ("F1".to_owned(), "P1".to_owned()),
        ];
        let mut known = vec!["P1".to_owned()];
        let mut done = vec![false; 2];
        let mut order = Vec::new();
        while let Some(k) = next_of_tab(&targets, &done, |f| known.iter().any(|x| x == f)) {
            done[k] = true;
            order.push(targets[k].0.clone());
            known.push(targets[k].0.clone());
        }
        assert_eq!(order, ["F1", "F2"]);
        assert_eq!(next_of_tab(&targets, &[false, false], |_| false), None);
        let event: FrameEvent = serde_json::from_value(json!({
            "method": "Runtime.bindingCalled", "sessionId": "S1", "params": {"name": "b"}
        }))
        .unwrap();
        assert_eq!(event.session_id(), Some("S1"));
        assert_eq!(event.identifier(), "Runtime.bindingCalled");
    }
}
