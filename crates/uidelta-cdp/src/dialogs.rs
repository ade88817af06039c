//! JavaScript dialogs (`alert`, `confirm`, `prompt`, `beforeunload`).
//!
//! An open dialog blocks its page: no call into the page answers until it
//! closes, and nothing in the accessibility tree shows it, so an agent could
//! neither see nor answer it. Each tab's dialogs are closed as they open, as
//! Playwright does by default: dismissed, except `beforeunload`, which is
//! accepted so that the tab can navigate or close. The event stream reports
//! each one as `page:dialog-opened`.

use chromiumoxide::cdp::browser_protocol::page::{DialogType, EventJavascriptDialogOpening};
use futures_util::StreamExt;
use serde_json::json;

use crate::protocol::Session;

/// Starts closing the dialogs of the tab behind `session`, once per tab and
/// connection.
pub(crate) async fn close_as_they_open(session: &Session) {
    let id = session.page.target_id().inner().clone();
    let first = session
        .shared
        .dialogs_watched
        .lock()
        .map(|mut set| set.insert(id))
        .unwrap_or(false);
    if !first {
        return;
    }
    let Ok(mut opened) = session.listen::<EventJavascriptDialogOpening>().await else {
        return;
    };
    let tab = session.clone();
    let task = tokio::spawn(async move {
        while let Some(dialog) = opened.next().await {
            let accept = dialog.r#type == DialogType::Beforeunload;
            tracing::info!(
                "{} a JavaScript {:?} dialog: {:?}",
                if accept { "accepted" } else { "dismissed" },
                dialog.r#type,
                dialog.message
            );
            let answer = tab
                .call("Page.handleJavaScriptDialog", json!({"accept": accept}))
                .await;
            if let Err(e) = answer {
                tracing::debug!("closing a dialog: {e}");
            }
        }
    });
    session.shared.keep(task);
}
