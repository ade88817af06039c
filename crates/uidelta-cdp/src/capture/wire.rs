//! The capture's own connection to the browser, for its two big answers.
//!
//! chromiumoxide reads every message into a `serde_json::Value`, through
//! serde's buffer for untagged enums first, and hands the answer over as that
//! `Value`: the accessibility tree of a page of 60,000 nodes is 26 MB of
//! JSON, and each of those copies is several times the text. So the capture
//! sends `DOMSnapshot.captureSnapshot` and `Accessibility.getFullAXTree` on a
//! WebSocket of its own, in a session attached to the tab's target
//! (`Target.attachToTarget` with `flatten`), and reads each answer's text
//! straight into the structs it needs. The connection is opened on first use
//! and kept with the browser's; the sessions are kept until the browser
//! detaches them. [`ask`] takes this way for the tab's page, and the tab's
//! own session (chromiumoxide's) for a cross-site frame or when this
//! connection cannot be had.

use std::collections::HashMap;
use std::time::Duration;

use async_tungstenite::tokio::{connect_async_with_config, ConnectStream};
use async_tungstenite::tungstenite::protocol::WebSocketConfig;
use async_tungstenite::tungstenite::{Message, Utf8Bytes};
use async_tungstenite::WebSocketStream;
use futures_util::StreamExt;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::{Error, Result as CdpResult};
use crate::protocol::{from_message, Session, CALL_TIMEOUT};

/// Why a call on the capture's connection failed.
#[derive(Debug)]
pub(crate) enum WireError {
    /// The connection is unusable (closed, or a message could not be sent
    /// or read); its sessions with it.
    Closed(String),
    /// The browser answered with this error message.
    Browser(String),
}

/// The capture's connection: a WebSocket to the browser and the sessions
/// attached on it.
pub(crate) struct Wire {
    ws: WebSocketStream<ConnectStream>,
    next_id: u64,
    /// Target id -> the session attached to it here.
    sessions: HashMap<String, String>,
}

impl std::fmt::Debug for Wire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wire")
            .field("sessions", &self.sessions)
            .finish_non_exhaustive()
    }
}

/// What is read of every message before knowing what it answers.
#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    id: Option<u64>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Detached>,
    #[serde(default)]
    error: Option<BrowserError>,
    /// Skipped here: read again by the caller into its own type.
    #[serde(default)]
    #[allow(dead_code)]
    result: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct Detached {
    #[serde(rename = "targetId", default)]
    target: Option<String>,
}

#[derive(Deserialize)]
struct BrowserError {
    #[serde(default)]
    message: String,
}

/// An answer's `result`, read into `T`.
#[derive(Deserialize)]
struct Answer<T> {
    result: T,
}

/// Reads the `result` of an answer's text into `T`.
pub(crate) fn result<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_json::from_str::<Answer<T>>(text)
        .map(|a| a.result)
        .map_err(|e| e.to_string())
}

impl Wire {
    /// Connects to the browser's WebSocket `endpoint`.
    pub async fn connect(endpoint: &str) -> Result<Wire, String> {
        // Answers are as big as the page: no limit on messages or frames.
        let config = WebSocketConfig::default()
            .max_message_size(None)
            .max_frame_size(None);
        let (ws, _) = connect_async_with_config(endpoint, Some(config))
            .await
            .map_err(|e| e.to_string())?;
        Ok(Wire {
            ws,
            next_id: 0,
            sessions: HashMap::new(),
        })
    }

    /// The session attached to `target` here, attaching once.
    pub async fn session(&mut self, target: &str) -> Result<String, WireError> {
        if let Some(s) = self.sessions.get(target) {
            return Ok(s.clone());
        }
        let params = json!({"targetId": target, "flatten": true});
        let mut answers = self
            .calls(None, &[("Target.attachToTarget", params)])
            .await?;
        let answer = answers
            .pop()
            .ok_or_else(|| WireError::Closed("no answer".into()))?
            .map_err(WireError::Browser)?;
        #[derive(Deserialize)]
        struct Attached {
            #[serde(rename = "sessionId")]
            session: String,
        }
        let attached: Attached = result(&answer).map_err(WireError::Browser)?;
        self.sessions
            .insert(target.to_owned(), attached.session.clone());
        Ok(attached.session)
    }

    /// Forgets the session of `target`: the next use attaches anew.
    pub fn forget(&mut self, target: &str) {
        self.sessions.remove(target);
    }

    /// Sends `calls` in `session` (the browser's own with `None`) at once,
    /// then reads until each has its answer: per call, the answer's text or
    /// the browser's error message, in the order of `calls`.
    pub async fn calls(
        &mut self,
        session: Option<&str>,
        calls: &[(&'static str, Value)],
    ) -> Result<Vec<Result<Utf8Bytes, String>>, WireError> {
        let first = self.next_id + 1;
        let sent = std::time::Instant::now();
        for (method, params) in calls {
            self.next_id += 1;
            let mut message = json!({"id": self.next_id, "method": method, "params": params});
            if let Some(s) = session {
                message["sessionId"] = Value::from(s);
            }
            self.ws
                .send(Message::text(message.to_string()))
                .await
                .map_err(|e| WireError::Closed(format!("sending {method}: {e}")))?;
        }
        let mut answers: Vec<Option<Result<Utf8Bytes, String>>> =
            calls.iter().map(|_| None).collect();
        while answers.iter().any(Option::is_none) {
            let text = match self.ws.next().await {
                Some(Ok(Message::Text(text))) => text,
                Some(Ok(Message::Close(_))) | None => {
                    return Err(WireError::Closed(
                        "the browser closed the connection".into(),
                    ))
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(WireError::Closed(e.to_string())),
            };
            let head: Head = match serde_json::from_str(&text) {
                Ok(head) => head,
                // Not a message of the protocol: skipped.
                Err(e) => {
                    tracing::debug!("a message of the capture's connection skipped: {e}");
                    continue;
                }
            };
            if head.method.as_deref() == Some("Target.detachedFromTarget") {
                if let Some(target) = head.params.and_then(|p| p.target) {
                    self.sessions.remove(&target);
                }
                continue;
            }
            let Some(k) = head
                .id
                .and_then(|id| id.checked_sub(first))
                .and_then(|k| usize::try_from(k).ok())
                .filter(|&k| k < answers.len())
            else {
                // An event, or the answer to a call given up before.
                continue;
            };
            tracing::debug!(
                "{} answered after {:?}: {} bytes",
                calls[k].0,
                sent.elapsed(),
                text.len()
            );
            answers[k] = Some(match head.error {
                Some(error) => Err(error.message),
                None => Ok(text),
            });
        }
        Ok(answers.into_iter().flatten().collect())
    }
}

/// The text of an answer, as it came off the connection.
pub(crate) type Text = Utf8Bytes;

/// How long one of the big calls may take through the tab's session: the
/// capture's deadline bounds it anyway, and on a page of 100,000 nodes the
/// accessibility tree alone takes Chromium well over the usual 10 s on a
/// loaded machine.
const BIG_CALL: Duration = Duration::from_secs(120);

/// An answer as read: its text, from the capture's own connection, or
/// JSON, from a session of chromiumoxide's.
pub(super) enum Raw {
    Text(Text),
    Json(Value),
}

/// Sends `calls` to the target behind `session` and waits for their
/// answers, in order: on the capture's own connection for the tab's page
/// (see this module), else (a cross-site frame, or that connection failing) as
/// the session's calls. An error is that of the whole read (the tab or the
/// browser gone); each call's own failure is in its place.
pub(super) async fn ask(
    session: &Session,
    calls: &[(&'static str, Value)],
) -> CdpResult<Vec<CdpResult<Raw>>> {
    if session.route.is_none() {
        if let Some(answers) = ask_wire(session, calls).await? {
            return Ok(answers);
        }
    }
    let answers = futures_util::future::join_all(
        calls
            .iter()
            .map(|(method, params)| session.call_within(method, params.clone(), BIG_CALL)),
    )
    .await;
    Ok(answers.into_iter().map(|a| a.map(Raw::Json)).collect())
}

/// [`ask`] on the capture's own connection; `None` when that connection
/// cannot be had or breaks (then the session's calls do it).
async fn ask_wire(
    session: &Session,
    calls: &[(&'static str, Value)],
) -> CdpResult<Option<Vec<CdpResult<Raw>>>> {
    let mut slot = session.shared.wire.lock().await;
    if slot.is_none() {
        let connect = Wire::connect(&session.shared.endpoint);
        match tokio::time::timeout(CALL_TIMEOUT, connect).await {
            Ok(Ok(wire)) => *slot = Some(wire),
            Ok(Err(e)) => {
                tracing::debug!(
                    "the capture's own connection failed ({e}); reading through the tab's"
                );
                return Ok(None);
            }
            Err(_) => return Ok(None),
        }
    }
    let Some(wire) = slot.as_mut() else {
        return Ok(None);
    };
    let target = session.page.target_id().inner().clone();
    let doing = &session.doing;
    // A session the browser detached meanwhile is attached anew, once.
    for attempt in 0..2 {
        // A JavaScript dialog that opens meanwhile blocks the page: the
        // read is given up (answers to it that come later are skipped).
        let asked = session.unless_dialog(async {
            match wire.session(&target).await {
                Ok(id) => wire.calls(Some(&id), calls).await,
                Err(e) => Err(e),
            }
        });
        let answers = asked.await?;
        let answers = match answers {
            Ok(answers) => answers,
            // The tab is gone; any other refusal leaves it to the tab's
            // own session.
            Err(WireError::Browser(message)) => {
                let e = from_message(doing, "Target.attachToTarget", &message, "the tab");
                if matches!(e, Error::Gone { .. }) {
                    return Err(e);
                }
                tracing::debug!(
                    "the capture's own connection refused: {e}; reading through the tab's"
                );
                return Ok(None);
            }
            Err(WireError::Closed(e)) => {
                tracing::debug!(
                    "the capture's own connection broke ({e}); reading through the tab's"
                );
                *slot = None;
                return Ok(None);
            }
        };
        let answers: Vec<CdpResult<Raw>> = answers
            .into_iter()
            .zip(calls)
            .map(|(answer, (method, _))| {
                answer
                    .map(Raw::Text)
                    .map_err(|message| from_message(doing, method, &message, "the tab"))
            })
            .collect();
        let detached = answers.iter().any(|a| matches!(a, Err(Error::Gone { .. })));
        if detached && attempt == 0 {
            wire.forget(&target);
            continue;
        }
        return Ok(Some(answers));
    }
    Ok(None)
}
