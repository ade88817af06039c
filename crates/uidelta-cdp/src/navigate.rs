//! Moving a tab to another document, and running scripts in it.
//!
//! A navigation returns once the browser has committed the new document
//! (`Page.frameNavigated` for the main frame, or
//! `Page.navigatedWithinDocument` for a fragment or history state change),
//! not once it has loaded: the rest is what settling waits for.

use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::page::{
    EventFrameNavigated, EventNavigatedWithinDocument,
};
use futures_util::StreamExt;
use serde_json::{json, Value};
use uidelta_backend::{Navigate, Performed};

use crate::actions::exception_text;
use crate::capture::frames_of;
use crate::error::{Error, Result};
use crate::protocol::Session;

/// How long a navigation may take to commit.
pub const COMMIT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a script may run.
pub const SCRIPT_TIMEOUT: Duration = Duration::from_secs(30);

/// A URL as the browser wants it: `example.com/x` becomes
/// `http://example.com/x`, `/tmp/a.html` becomes `file:///tmp/a.html`.
pub fn normalize_url(url: &str) -> String {
    let url = url.trim();
    let has_scheme = url.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && scheme
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
    }) && !url.split_once(':').is_some_and(|(_, rest)| {
        // `localhost:8080/x` is a host and port, not a scheme.
        rest.chars().next().is_some_and(|c| c.is_ascii_digit())
    });
    if has_scheme {
        url.to_owned()
    } else if url.starts_with('/') {
        format!("file://{url}")
    } else {
        format!("http://{url}")
    }
}

/// Navigates the tab behind `session` and waits until the new document is
/// committed.
pub(crate) async fn navigate(session: &Session, to: &Navigate) -> Result<Performed> {
    let mut committed = session.listen::<EventFrameNavigated>().await?;
    let mut within = session.listen::<EventNavigatedWithinDocument>().await?;
    let frames = frames_of(&session.call("Page.getFrameTree", json!({})).await?);
    let main = frames.first().ok_or_else(|| Error::Protocol {
        doing: session.doing.clone(),
        method: "Page.getFrameTree".into(),
        detail: "the answer names no main frame".into(),
    })?;
    let (main_id, old_loader) = (main.id.clone(), main.loader_id.clone());
    let (method, started) = match to {
        Navigate::To(url) => start_navigation(session, &normalize_url(url)).await?,
        Navigate::Back | Navigate::Forward => {
            let history = session.call("Page.getNavigationHistory", json!({})).await?;
            let step = if *to == Navigate::Back { -1 } else { 1 };
            let entry = history_entry(&history, step).ok_or_else(|| {
                Error::NotFound(format!(
                    "{}: there is no {} page in the tab's history",
                    session.doing,
                    if step < 0 { "previous" } else { "next" }
                ))
            })?;
            session
                .call("Page.navigateToHistoryEntry", json!({"entryId": entry}))
                .await?;
            ("Page.navigateToHistoryEntry", None)
        }
        Navigate::Reload => {
            session.call("Page.reload", json!({})).await?;
            ("Page.reload", None)
        }
    };
    // The answer of Page.navigate, when this navigation made that call.
    let answered = async {
        match started {
            Some(answer) => answer.await.unwrap_or(Ok(Value::Null)),
            None => std::future::pending().await,
        }
    };
    tokio::pin!(answered);
    let wait = async {
        loop {
            tokio::select! {
                Some(ev) = committed.next() => {
                    let frame = &ev.frame;
                    let main_frame = frame.parent_id.is_none() || *frame.id.inner() == main_id;
                    if !main_frame {
                        continue;
                    }
                    if let Some(unreachable) = &frame.unreachable_url {
                        return Err(Error::Page {
                            doing: session.doing.clone(),
                            detail: format!("the browser could not load {unreachable} (it shows an error page)"),
                        });
                    }
                    if *frame.loader_id.inner() != old_loader || *to == Navigate::Reload {
                        return Ok(());
                    }
                }
                Some(ev) = within.next() => {
                    if *ev.frame_id.inner() == main_id {
                        return Ok(());
                    }
                }
                answer = &mut answered => {
                    let answer = answer?;
                    if let Some(error) = answer["errorText"].as_str().filter(|e| !e.is_empty()) {
                        return Err(Error::Page {
                            doing: session.doing.clone(),
                            detail: format!("the browser could not load it ({error})"),
                        });
                    }
                    // Loaded before its commit event was seen: done as well.
                    return Ok(());
                }
            }
        }
    };
    match tokio::time::timeout(COMMIT_TIMEOUT, wait).await {
        Ok(result) => result?,
        Err(_) => return Err(session.timeout("waiting for the new document", COMMIT_TIMEOUT)),
    }
    Ok(Performed {
        method: method.to_owned(),
    })
}

/// The answer of a `Page.navigate` running in the background.
type Pending = tokio::sync::oneshot::Receiver<Result<Value>>;

/// Starts loading `url`. `Page.navigate` answers only once the page has
/// loaded, and the connection keeps a tab's `Page.navigate` calls in line:
/// while the previous one still waits for its page to load (an image that
/// never comes), a new one would wait too. So the call runs in the
/// background, and while one is under way, web URLs are loaded by the page
/// itself (`location.assign`), as a link would.
async fn start_navigation(session: &Session, url: &str) -> Result<(&'static str, Option<Pending>)> {
    let tab = session.page.target_id().inner().clone();
    let web = url.starts_with("http://") || url.starts_with("https://") || url == "about:blank";
    if web && session.shared.navigating(&tab) {
        let assign = format!("location.assign({})", Value::String(url.to_owned()));
        let answer = session
            .call(
                "Runtime.evaluate",
                json!({"expression": assign, "userGesture": true}),
            )
            .await?;
        if answer.get("exceptionDetails").is_none() {
            return Ok(("location.assign (the previous page is still loading)", None));
        }
    }
    let flag = session.shared.start_navigating(&tab);
    let (tx, rx) = tokio::sync::oneshot::channel();
    let call = session.clone();
    let params = json!({"url": url});
    let task = tokio::spawn(async move {
        let answer = call
            .call_within("Page.navigate", params, COMMIT_TIMEOUT)
            .await;
        flag.store(false, std::sync::atomic::Ordering::SeqCst);
        let _ = tx.send(answer);
    });
    session.shared.keep(task);
    Ok(("Page.navigate", Some(rx)))
}

/// The id of the history entry `step` away from the current one.
fn history_entry(history: &Value, step: i64) -> Option<i64> {
    let current = history["currentIndex"].as_i64()?;
    let entries = history["entries"].as_array()?;
    let index = usize::try_from(current + step).ok()?;
    entries.get(index)?["id"].as_i64()
}

/// Evaluates `script` in the tab's main frame, awaiting a promise, and
/// returns the result as JSON text (`null` for `undefined`).
pub(crate) async fn run_script(session: &Session, script: &str) -> Result<String> {
    let answer = session
        .call_within(
            "Runtime.evaluate",
            json!({
                "expression": script,
                "awaitPromise": true,
                "returnByValue": true,
                "userGesture": true,
            }),
            SCRIPT_TIMEOUT,
        )
        .await?;
    script_result(&answer).map_err(|detail| Error::Page {
        doing: session.doing.clone(),
        detail,
    })
}

/// The JSON text of a `Runtime.evaluate` answer, or the exception it holds.
pub(crate) fn script_result(answer: &Value) -> std::result::Result<String, String> {
    if let Some(details) = answer.get("exceptionDetails") {
        return Err(format!("the script threw: {}", exception_text(details)));
    }
    let result = &answer["result"];
    if let Some(value) = result.get("value") {
        return Ok(value.to_string());
    }
    if let Some(special) = result["unserializableValue"].as_str() {
        return Ok(Value::String(special.to_owned()).to_string());
    }
    Ok("null".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_get_a_scheme_when_they_lack_one() {
        assert_eq!(normalize_url("https://a.test/x"), "https://a.test/x");
        assert_eq!(normalize_url("about:blank"), "about:blank");
        assert_eq!(
            normalize_url("data:text/html,<p>hi"),
            "data:text/html,<p>hi"
        );
        assert_eq!(normalize_url("example.com/x"), "http://example.com/x");
        assert_eq!(normalize_url("localhost:8080/x"), "http://localhost:8080/x");
        assert_eq!(normalize_url("/tmp/a.html"), "file:///tmp/a.html");
    }

    #[test]
    fn history_steps_and_script_results() {
        let h = json!({"currentIndex": 1, "entries": [{"id": 10}, {"id": 11}, {"id": 12}]});
        assert_eq!(history_entry(&h, -1), Some(10));
        assert_eq!(history_entry(&h, 1), Some(12));
        let h = json!({"currentIndex": 0, "entries": [{"id": 10}]});
        assert_eq!(history_entry(&h, -1), None);
        assert_eq!(history_entry(&h, 1), None);

        assert_eq!(
            script_result(&json!({"result": {"type": "object", "value": {"a": [1, 2]}}})),
            Ok(r#"{"a":[1,2]}"#.to_owned())
        );
        assert_eq!(
            script_result(&json!({"result": {"type": "undefined"}})),
            Ok("null".to_owned())
        );
        assert_eq!(
            script_result(&json!({"result": {"type": "number", "unserializableValue": "NaN"}})),
            Ok("\"NaN\"".to_owned())
        );
        assert_eq!(
            script_result(
                &json!({"result": {}, "exceptionDetails": {"text": "Uncaught",
                "exception": {"description": "Error: boom\n    at <anonymous>:1:7"}}})
            ),
            Err("the script threw: Error: boom".to_owned())
        );
    }
}
