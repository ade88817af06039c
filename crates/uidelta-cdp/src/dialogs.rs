//! JavaScript dialogs (`alert`, `confirm`, `prompt`, `beforeunload`).
//!
//! An open dialog blocks its page: no call into the page answers until it
//! closes (no read of its tree, no script, no screenshot, not even the
//! answer to the click that opened it), and Chromium puts nothing of it in
//! the accessibility tree. A connection that did not see it open cannot
//! answer it either (`No dialog is showing`). So each tab's dialogs are
//! watched from the first use of the tab, and treated by the connection's
//! [`DialogPolicy`]:
//!
//! - [`DialogPolicy::Hold`] (the default): the dialog stays open, as it
//!   does for a user, and a capture of the tab shows it: a modal `dialog`
//!   named after its message, with its `OK` (and `Cancel`) button and a
//!   prompt's entry, at the end of the page as it was last read. Clicking
//!   a button answers it; text typed into the entry is what the prompt
//!   answers. Anything else asked of the page meanwhile is refused with
//!   [`crate::Error::Dialog`], which says how to answer.
//! - [`DialogPolicy::Accept`] and [`DialogPolicy::Dismiss`]: answered as
//!   they open, and kept for [`crate::Cdp::take_answered_dialogs`]: for a
//!   caller that cannot hold a dialog across its calls (a command that
//!   ends, and whose next connection could not answer it).
//!
//! `beforeunload` is always accepted at once, so that the tab can navigate
//! or close. The event stream reports `page:dialog-opened` and
//! `page:dialog-closed`.

use std::collections::HashMap;
use std::sync::Mutex;

use chromiumoxide::cdp::browser_protocol::page::{
    DialogType, EventFileChooserOpened, EventFrameNavigated, EventJavascriptDialogClosed,
    EventJavascriptDialogOpening, FileChooserOpenedMode,
};
use futures_util::StreamExt;
use serde_json::json;
use uidelta_backend::{Action, Performed};
use uidelta_model::{NodeData, Role, Snapshot, State};

use crate::error::{Error, Result};
use crate::protocol::Session;
use crate::synthetic::{self, Answer, Part};

/// What becomes of a tab's JavaScript dialogs as they open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DialogPolicy {
    /// Kept open and shown in the tab's tree, to be answered by acting on
    /// its buttons.
    #[default]
    Hold,
    /// Answered OK as they open; a prompt with this text (else with the
    /// text it offers).
    Accept {
        /// What a prompt answers.
        prompt_text: Option<String>,
    },
    /// Answered Cancel as they open (an alert: OK, its only button).
    Dismiss,
}

/// Which JavaScript dialog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogKind {
    /// `alert()`: a message and OK.
    Alert,
    /// `confirm()`: OK or Cancel.
    Confirm,
    /// `prompt()`: a line of text, OK or Cancel.
    Prompt,
}

impl DialogKind {
    /// `alert`, `confirm`, `prompt`.
    pub fn as_str(self) -> &'static str {
        match self {
            DialogKind::Alert => "alert",
            DialogKind::Confirm => "confirm",
            DialogKind::Prompt => "prompt",
        }
    }
}

/// A JavaScript dialog, as the browser announced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsDialog {
    /// Which one.
    pub kind: DialogKind,
    /// Its message.
    pub message: String,
    /// The text a prompt offers.
    pub default_text: String,
}

impl std::fmt::Display for JsDialog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "JavaScript {} {:?}",
            self.kind.as_str(),
            shortened(&self.message)
        )
    }
}

/// A dialog the policy answered as it opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnsweredDialog {
    /// The dialog.
    pub dialog: JsDialog,
    /// OK (true) or Cancel.
    pub accepted: bool,
    /// What a prompt answered.
    pub text: Option<String>,
}

impl std::fmt::Display for AnsweredDialog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match (self.accepted, self.dialog.kind) {
            (_, DialogKind::Alert) => "closed",
            (true, _) => "accepted",
            (false, _) => "dismissed",
        };
        write!(f, "the page's {} was {how}", self.dialog)?;
        match (&self.text, self.dialog.kind) {
            (Some(text), DialogKind::Prompt) if self.accepted => write!(f, " with {text:?}"),
            _ => Ok(()),
        }
    }
}

/// A dialog held open on a tab.
#[derive(Clone, Debug)]
pub(crate) struct Held {
    pub dialog: JsDialog,
    /// Tells this dialog from earlier ones of the tab (its elements'
    /// identities carry it).
    pub serial: u64,
    /// What was typed into a prompt's entry since it opened; `None` while
    /// it holds the text it offered.
    pub typed: Option<String>,
}

impl Held {
    /// The text a prompt answers now.
    fn text(&self) -> &str {
        self.typed.as_deref().unwrap_or(&self.dialog.default_text)
    }
}

/// The dialogs of a connection's tabs.
#[derive(Debug, Default)]
pub(crate) struct Dialogs {
    /// Per tab: the dialog held open.
    held: Mutex<HashMap<String, Held>>,
    /// Per tab: how many dialogs opened and closed. Opening and closing
    /// come through separate listeners, whose order between them is not
    /// kept: a dialog is open while more opened than closed.
    counts: Mutex<HashMap<String, (u64, u64)>>,
    serial: std::sync::atomic::AtomicU64,
    /// Woken whenever a dialog is held: calls waiting on the page give up.
    pub opened: tokio::sync::Notify,
    policy: Mutex<DialogPolicy>,
    /// What the policy answered, oldest first.
    answered: Mutex<Vec<AnsweredDialog>>,
}

/// Most answered dialogs kept for a caller that does not take them.
const MAX_ANSWERED: usize = 100;

impl Dialogs {
    /// The dialog held open on `tab`.
    pub fn held(&self, tab: &str) -> Option<Held> {
        self.held.lock().ok()?.get(tab).cloned()
    }

    pub fn set_policy(&self, policy: DialogPolicy) {
        if let Ok(mut p) = self.policy.lock() {
            *p = policy;
        }
    }

    fn policy(&self) -> DialogPolicy {
        self.policy.lock().map(|p| p.clone()).unwrap_or_default()
    }

    pub fn take_answered(&self) -> Vec<AnsweredDialog> {
        self.answered
            .lock()
            .map(|mut a| std::mem::take(&mut *a))
            .unwrap_or_default()
    }

    fn opened_on(&self, tab: &str) {
        if let Ok(mut counts) = self.counts.lock() {
            counts.entry(tab.to_owned()).or_default().0 += 1;
        }
    }

    /// A dialog closed on `tab`: the held one goes when none is open any
    /// more (it was answered elsewhere, or the tab navigated).
    fn closed_on(&self, tab: &str) {
        let open = self.counts.lock().ok().map(|mut counts| {
            let (opened, closed) = counts.entry(tab.to_owned()).or_default();
            *closed += 1;
            *opened > *closed
        });
        if open == Some(false) {
            self.forget(tab);
        }
    }

    fn hold(&self, tab: &str, dialog: JsDialog) {
        let serial = self
            .serial
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            + 1;
        if let Ok(mut held) = self.held.lock() {
            held.insert(
                tab.to_owned(),
                Held {
                    dialog,
                    serial,
                    typed: None,
                },
            );
        }
        self.opened.notify_waiters();
    }

    fn forget(&self, tab: &str) {
        if let Ok(mut held) = self.held.lock() {
            held.remove(tab);
        }
    }

    fn record(&self, answered: AnsweredDialog) {
        if let Ok(mut list) = self.answered.lock() {
            if list.len() == MAX_ANSWERED {
                list.remove(0);
            }
            list.push(answered);
        }
    }

    fn set_typed(&self, tab: &str, serial: u64, typed: String) {
        if let Ok(mut held) = self.held.lock() {
            if let Some(h) = held.get_mut(tab).filter(|h| h.serial == serial) {
                h.typed = Some(typed);
            }
        }
    }
}

/// Starts watching the dialogs of the tab behind `session`, once per tab
/// and connection: its JavaScript dialogs, and its file choosers (see the
/// `choosers` module), which the browser is asked to hand over. A tab
/// that does not answer is an error ([`Error::Timeout`]), and is watched
/// at the next use instead; other failures leave it unwatched.
pub(crate) async fn watch(session: &Session) -> Result<()> {
    let id = session.page.target_id().inner().clone();
    let first = session
        .shared
        .dialogs_watched
        .lock()
        .map(|mut set| set.insert(id.clone()))
        .unwrap_or(false);
    if !first {
        return Ok(());
    }
    let listened = async {
        Ok::<_, Error>((
            session.listen::<EventJavascriptDialogOpening>().await?,
            session.listen::<EventJavascriptDialogClosed>().await?,
            session.listen::<EventFileChooserOpened>().await?,
            session.listen::<EventFrameNavigated>().await?,
        ))
    };
    let (mut opened, mut closed, mut choosing, mut navigated) = match listened.await {
        Ok(streams) => streams,
        Err(e @ Error::Timeout { .. }) => {
            if let Ok(mut set) = session.shared.dialogs_watched.lock() {
                set.remove(&id);
            }
            return Err(e);
        }
        Err(_) => return Ok(()),
    };
    let intercepted = session
        .call_within(
            "Page.setInterceptFileChooserDialog",
            json!({"enabled": true}),
            std::time::Duration::from_secs(2),
        )
        .await;
    if let Err(e) = intercepted {
        tracing::debug!("file choosers not intercepted: {e}");
    }
    let tab = session.clone();
    let task = tokio::spawn(async move {
        let dialogs = &tab.shared.dialogs;
        loop {
            tokio::select! {
                Some(dialog) = opened.next() => {
                    dialogs.opened_on(&id);
                    let kind = match dialog.r#type {
                        DialogType::Alert => DialogKind::Alert,
                        DialogType::Confirm => DialogKind::Confirm,
                        DialogType::Prompt => DialogKind::Prompt,
                        DialogType::Beforeunload => {
                            tracing::info!("accepted a beforeunload dialog");
                            answer_call(&tab, true, None).await;
                            continue;
                        }
                    };
                    let js = JsDialog {
                        kind,
                        message: dialog.message.clone(),
                        default_text: dialog.default_prompt.clone().unwrap_or_default(),
                    };
                    let (accepted, text) = match dialogs.policy() {
                        DialogPolicy::Hold => {
                            tracing::info!("holding the page's {js} open");
                            dialogs.hold(&id, js);
                            continue;
                        }
                        DialogPolicy::Accept { prompt_text } => {
                            let text = (kind == DialogKind::Prompt)
                                .then(|| prompt_text.unwrap_or_else(|| js.default_text.clone()));
                            (true, text)
                        }
                        DialogPolicy::Dismiss => (false, None),
                    };
                    answer_call(&tab, accepted, text.as_deref()).await;
                    let answered = AnsweredDialog { dialog: js, accepted, text };
                    tracing::info!("{answered}");
                    dialogs.record(answered);
                }
                Some(_) = closed.next() => dialogs.closed_on(&id),
                Some(chooser) = choosing.next() => match chooser.backend_node_id {
                    Some(input) => {
                        let multiple = chooser.mode == FileChooserOpenedMode::SelectMultiple;
                        let input = *input.inner();
                        match tab.shared.choosers.answer() {
                            None => {
                                tracing::info!("holding the page's file chooser open");
                                tab.shared.choosers.open(&id, input, multiple);
                            }
                            Some(files) => {
                                crate::choosers::answer_now(&tab, input, multiple, &files).await;
                            }
                        }
                    }
                    // A picker of the File System Access API: no input to
                    // give files to.
                    None => tracing::info!("a file picker without an input was left unanswered"),
                },
                Some(frame) = navigated.next() => {
                    if frame.frame.parent_id.is_none() {
                        tab.shared.choosers.forget(&id);
                    }
                }
                else => break,
            }
        }
    });
    session.shared.keep(task);
    Ok(())
}

/// Answers the dialog open on the tab; a failure is only logged (the
/// dialog may have closed meanwhile).
async fn answer_call(session: &Session, accept: bool, text: Option<&str>) {
    if let Err(e) = answer(session, accept, text).await {
        tracing::debug!("answering a dialog: {e}");
    }
}

async fn answer(session: &Session, accept: bool, text: Option<&str>) -> Result<()> {
    let mut params = json!({"accept": accept});
    if let Some(text) = text {
        params["promptText"] = json!(text);
    }
    session
        .call("Page.handleJavaScriptDialog", params)
        .await
        .map(|_| ())
}

/// Dismisses the dialog held on the tab behind `session`, if any (before a
/// navigation, as a browser does when the user goes elsewhere).
pub(crate) async fn dismiss_held(session: &Session) -> Result<Option<JsDialog>> {
    let tab = session.page.target_id().inner().clone();
    let Some(held) = session.shared.dialogs.held(&tab) else {
        return Ok(None);
    };
    let answered = answer(session, false, None).await;
    session.shared.dialogs.forget(&tab);
    match answered {
        Ok(()) => Ok(Some(held.dialog)),
        Err(e) if e.to_string().contains("No dialog is showing") => Ok(None),
        Err(e) => Err(e),
    }
}

/// The kind of a held dialog's identities (see [`synthetic`]).
const KIND: &str = "jsdialog";

/// Whether `node` is an element of a held dialog.
pub(crate) fn is_dialog_element(node: &NodeData) -> bool {
    synthetic::is_of(KIND, node)
}

/// The held dialog as an element, for keys pressed in its tab.
pub(crate) fn element(held: &Held) -> NodeData {
    let mut node = NodeData::named(Role::Dialog, held.dialog.message.trim());
    node.identity = Some(synthetic::identity(KIND, held.serial, Part::Whole));
    node
}

/// The tab's tree with its held dialog: `last` (the page as last read; a
/// bare document named `title` when it was never read) without its focus,
/// and the dialog at the end of its document, focused.
pub(crate) fn with_held(last: Option<&Snapshot>, title: &str, held: &Held) -> Snapshot {
    let kind = held.dialog.kind;
    let id = |part| synthetic::identity(KIND, held.serial, part);
    let mut dialog = synthetic::element(
        Role::Dialog,
        "dialog",
        held.dialog.message.trim(),
        id(Part::Whole),
    );
    dialog.description = format!(
        "the page's JavaScript {}: nothing else in the page can be read or used until it is \
         answered",
        kind.as_str()
    );
    let button = |name: &str, part: Part, focused: bool| {
        let mut b = synthetic::element(Role::PushButton, "button", name, id(part));
        b.states.insert(State::Focusable);
        b.states.set(State::Focused, focused);
        b
    };
    let mut parts = Vec::new();
    if kind == DialogKind::Prompt {
        let mut entry = synthetic::element(Role::Entry, "textbox", "", id(Part::Entry));
        entry.value = Some(held.text().to_owned());
        for s in [State::Focusable, State::Focused, State::Editable] {
            entry.states.insert(s);
        }
        parts.push(entry);
    }
    parts.push(button("OK", Part::Ok, kind != DialogKind::Prompt));
    if kind != DialogKind::Alert {
        parts.push(button("Cancel", Part::Cancel, false));
    }
    let (mut meta, tree) = synthetic::at_end(last, title, dialog, parts).into_parts();
    meta.capture_ms = Some(0.0);
    meta.captured_at_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .ok();
    Snapshot::new(meta, tree)
}

/// Performs `action` on `node`, an element of the dialog held on the tab
/// behind `session`: its buttons answer it, its entry takes the text a
/// prompt answers, Return and Escape answer OK and Cancel.
pub(crate) async fn act(session: &Session, node: &NodeData, action: &Action) -> Result<Performed> {
    let tab = session.tab_id();
    let dialogs = &session.shared.dialogs;
    let (serial, part) = node
        .identity
        .as_deref()
        .and_then(|i| synthetic::parse(KIND, i))
        .ok_or_else(|| Error::Unsupported(format!("{}: not a dialog's element", session.doing)))?;
    let held = dialogs
        .held(&tab)
        .filter(|h| h.serial == serial)
        .ok_or_else(|| {
            Error::NotFound(format!(
                "{}: the page's JavaScript dialog is no longer open; capture again",
                session.doing
            ))
        })?;
    let kind = held.dialog.kind;
    let typed = held.typed.as_deref().unwrap_or_default();
    let accept = match synthetic::answer(action, part, typed) {
        Some(Answer::Answered(accept)) => accept,
        Some(Answer::Nothing) => {
            return Ok(Performed {
                method: "nothing: the dialog has the focus".into(),
            })
        }
        // The offered text is selected when a prompt opens: typing
        // replaces it.
        Some(Answer::Text(text)) => {
            dialogs.set_typed(&tab, serial, text);
            return Ok(Performed {
                method: "the prompt's entry holds the text it answers".into(),
            });
        }
        None => {
            return Err(Error::Unsupported(format!(
                "{}: {} it does nothing; a JavaScript dialog's buttons are clicked (OK answers \
                 it, Cancel dismisses it), a prompt's entry is typed into or set, and Return or \
                 Escape answer it",
                session.doing,
                action.doing()
            )))
        }
    };
    let text = (kind == DialogKind::Prompt && accept).then(|| held.text().to_owned());
    let answered = answer(session, accept, text.as_deref()).await;
    dialogs.forget(&tab);
    match answered {
        Ok(()) => Ok(Performed {
            method: format!(
                "Page.handleJavaScriptDialog: {} {}",
                if accept { "accepted" } else { "dismissed" },
                held.dialog
            ),
        }),
        Err(e) if e.to_string().contains("No dialog is showing") => Err(Error::NotFound(format!(
            "{}: the page's {} was answered elsewhere; capture again",
            session.doing, held.dialog
        ))),
        Err(e) => Err(e),
    }
}

/// A dialog's message as messages quote it: its first 200 characters.
fn shortened(message: &str) -> String {
    let message = message.trim();
    match message.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &message[..cut]),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidelta_model::{NodeId, StateSet, TreeBuilder};

    fn held(kind: DialogKind) -> Held {
        Held {
            dialog: JsDialog {
                kind,
                message: "Delete 3 items?".into(),
                default_text: "Ann".into(),
            },
            serial: 4,
            typed: None,
        }
    }

    #[test]
    fn a_held_dialog_is_the_last_element_of_the_page_as_last_read() {
        let mut root = NodeData::named(Role::DocumentWeb, "Items");
        root.states = StateSet::of(&[State::Focused, State::Showing]);
        let mut builder = TreeBuilder::new(root);
        let mut button = NodeData::named(Role::PushButton, "Delete");
        button.states = StateSet::of(&[State::Focused]);
        builder.leaf(button);
        let last = Snapshot::new(uidelta_model::Meta::default(), builder.finish());

        let snapshot = with_held(Some(&last), "Items", &held(DialogKind::Confirm));
        let tree = snapshot.tree();
        let names: Vec<(&str, &str)> = tree
            .nodes()
            .iter()
            .map(|n| (n.role.as_str(), n.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("document web", "Items"),
                ("push button", "Delete"),
                ("dialog", "Delete 3 items?"),
                ("push button", "OK"),
                ("push button", "Cancel"),
            ]
        );
        let focused: Vec<&str> = tree
            .nodes()
            .iter()
            .filter(|n| n.states.contains(State::Focused))
            .map(|n| n.identity.as_deref().unwrap_or_default())
            .collect();
        assert_eq!(focused, ["jsdialog:4:ok"]);
        assert!(tree.node(NodeId(2)).states.contains(State::Modal));
        assert_eq!(tree.children(NodeId(2)).len(), 2);
    }

    #[test]
    fn a_prompt_offers_its_text_in_a_focused_entry_and_an_alert_has_ok_alone() {
        let mut prompt = held(DialogKind::Prompt);
        let snapshot = with_held(None, "Shop", &prompt);
        let tree = snapshot.tree();
        assert_eq!(tree.node(NodeId::ROOT).name, "Shop");
        let entry = tree.node(NodeId(2));
        assert_eq!(entry.role, Role::Entry);
        assert_eq!(entry.value.as_deref(), Some("Ann"));
        assert!(entry.states.contains(State::Focused));
        prompt.typed = Some("Bob".into());
        let snapshot = with_held(None, "Shop", &prompt);
        assert_eq!(
            snapshot.tree().node(NodeId(2)).value.as_deref(),
            Some("Bob")
        );

        let snapshot = with_held(None, "Shop", &held(DialogKind::Alert));
        let names: Vec<&str> = snapshot
            .tree()
            .nodes()
            .iter()
            .map(|n| n.name.as_str())
            .collect();
        assert_eq!(names, ["Shop", "Delete 3 items?", "OK"]);
    }

    #[test]
    fn answered_dialogs_say_what_they_were_and_how_they_were_answered() {
        let answered = AnsweredDialog {
            dialog: held(DialogKind::Prompt).dialog,
            accepted: true,
            text: Some("Bob".into()),
        };
        assert_eq!(
            answered.to_string(),
            "the page's JavaScript prompt \"Delete 3 items?\" was accepted with \"Bob\""
        );
        let answered = AnsweredDialog {
            dialog: held(DialogKind::Confirm).dialog,
            accepted: false,
            text: None,
        };
        assert_eq!(
            answered.to_string(),
            "the page's JavaScript confirm \"Delete 3 items?\" was dismissed"
        );
        let long = "x".repeat(300);
        assert_eq!(shortened(&long).chars().count(), 201);
    }

    #[test]
    fn closing_forgets_the_held_dialog_only_when_none_is_open() {
        let dialogs = Dialogs::default();
        let dialog = held(DialogKind::Alert).dialog;
        // The first dialog closes, the next opens: the events may come in
        // either order.
        dialogs.opened_on("t");
        dialogs.hold("t", dialog.clone());
        dialogs.opened_on("t");
        dialogs.hold("t", dialog.clone());
        dialogs.closed_on("t");
        assert!(dialogs.held("t").is_some());
        dialogs.closed_on("t");
        assert!(dialogs.held("t").is_none());
    }
}
