//! File choosers: a page's `<input type="file">`, clicked or opened by a
//! script (an `Add photos` button that clicks a hidden input).
//!
//! A headless browser shows no chooser, and a headful one shows the
//! system's, which is not the page's to read. So the chooser is
//! intercepted (`Page.setInterceptFileChooserDialog`) and held, and a
//! capture of the tab shows it at the end of the page: a modal `dialog`
//! `Choose a file to upload` (`Choose files to upload` when the input takes
//! several) with an entry `File name` and the buttons `Open` and `Cancel`,
//! as a desktop file chooser has. The path typed into the entry (several,
//! one per line) is what `Open` gives the input (`DOM.setFileInputFiles`),
//! which fires the input's `input` and `change` events, as a user's choice
//! does. Unlike a JavaScript dialog, a chooser does not block its page.
//!
//! A file input also takes its files directly: setting its value to paths
//! (one per line) gives it those files.
//!
//! A caller that cannot hold a chooser across its calls (a command that
//! ends) has choosers answered as they open instead, with the files it
//! names or none ([`crate::Cdp::set_file_chooser_answer`]); each is kept
//! for [`crate::Cdp::take_answered_choosers`].

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use serde_json::json;
use uidelta_backend::{Action, Performed};
use uidelta_model::{NodeData, Role, Snapshot, State};

use crate::error::{Error, Result};
use crate::protocol::Session;
use crate::synthetic::{self, Answer, Part};

/// A chooser held open on a tab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Held {
    /// Tells it from earlier choosers (its elements' identities carry it).
    pub serial: u64,
    /// Whether the input takes several files.
    pub multiple: bool,
    /// The input's backend node id.
    pub input: i64,
    /// What was typed into its `File name` entry.
    pub typed: String,
}

/// The choosers of a connection's tabs.
#[derive(Debug, Default)]
pub(crate) struct Choosers {
    held: Mutex<HashMap<String, Held>>,
    serial: std::sync::atomic::AtomicU64,
    /// The files choosers are answered with as they open; `None`: held.
    answer: Mutex<Option<Vec<String>>>,
    /// The choosers answered as they opened, oldest first.
    answered: Mutex<Vec<AnsweredChooser>>,
}

/// A file chooser answered as it opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnsweredChooser {
    /// The files it was given; none when it was left unanswered.
    pub files: Vec<String>,
    /// Why the files could not be given.
    pub error: Option<String>,
}

impl std::fmt::Display for AnsweredChooser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.error, self.files.as_slice()) {
            (Some(e), _) => write!(f, "the page's file chooser could not be answered: {e}"),
            (None, []) => write!(f, "the page opened a file chooser, left unanswered"),
            (None, files) => write!(f, "the page's file chooser was given {}", files.join(", ")),
        }
    }
}

/// Most answered choosers kept for a caller that does not take them.
const MAX_ANSWERED: usize = 100;

impl Choosers {
    /// The chooser held open on `tab`.
    pub fn held(&self, tab: &str) -> Option<Held> {
        self.held.lock().ok()?.get(tab).cloned()
    }

    /// A chooser opened on `tab` for the input `input`: it replaces one
    /// held before (a page opens one chooser at a time).
    pub fn open(&self, tab: &str, input: i64, multiple: bool) {
        let serial = self
            .serial
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            + 1;
        if let Ok(mut held) = self.held.lock() {
            held.insert(
                tab.to_owned(),
                Held {
                    serial,
                    multiple,
                    input,
                    typed: String::new(),
                },
            );
        }
    }

    pub fn set_answer(&self, files: Option<Vec<String>>) {
        if let Ok(mut a) = self.answer.lock() {
            *a = files;
        }
    }

    /// The files choosers are answered with as they open (`None`: held).
    pub fn answer(&self) -> Option<Vec<String>> {
        self.answer.lock().ok().and_then(|a| a.clone())
    }

    pub fn record(&self, answered: AnsweredChooser) {
        if let Ok(mut list) = self.answered.lock() {
            if list.len() == MAX_ANSWERED {
                list.remove(0);
            }
            list.push(answered);
        }
    }

    pub fn take_answered(&self) -> Vec<AnsweredChooser> {
        self.answered
            .lock()
            .map(|mut a| std::mem::take(&mut *a))
            .unwrap_or_default()
    }

    /// Lets the chooser of `tab` go (answered, or its document replaced).
    pub fn forget(&self, tab: &str) {
        if let Ok(mut held) = self.held.lock() {
            held.remove(tab);
        }
    }

    fn set_typed(&self, tab: &str, serial: u64, typed: String) {
        if let Ok(mut held) = self.held.lock() {
            if let Some(h) = held.get_mut(tab).filter(|h| h.serial == serial) {
                h.typed = typed;
            }
        }
    }
}

/// The kind of a held chooser's identities (see [`synthetic`]).
const KIND: &str = "filechooser";

/// Whether `node` is an element of a held chooser.
pub(crate) fn is_chooser_element(node: &NodeData) -> bool {
    synthetic::is_of(KIND, node)
}

/// The held chooser as an element, for keys pressed in its tab.
pub(crate) fn element(held: &Held) -> NodeData {
    let mut node = NodeData::new(Role::Dialog);
    node.identity = Some(synthetic::identity(KIND, held.serial, Part::Whole));
    node
}

/// `page` with the chooser `held` at the end of its document, focused (its
/// entry).
pub(crate) fn with_held(page: &Snapshot, held: &Held) -> Snapshot {
    let id = |part| synthetic::identity(KIND, held.serial, part);
    let title = match held.multiple {
        true => "Choose files to upload",
        false => "Choose a file to upload",
    };
    let mut dialog = synthetic::element(Role::Dialog, "dialog", title, id(Part::Whole));
    dialog.description = match held.multiple {
        true => "the page's file chooser: type the files' absolute paths into File name, one per \
                 line, then press Open"
            .into(),
        false => {
            "the page's file chooser: type the file's absolute path into File name, then press Open"
                .into()
        }
    };
    let mut entry = synthetic::element(Role::Entry, "textbox", "File name", id(Part::Entry));
    entry.value = Some(held.typed.clone());
    for s in [State::Focusable, State::Focused, State::Editable] {
        entry.states.insert(s);
    }
    if held.multiple {
        entry.states.insert(State::MultiLine);
    }
    let mut parts = vec![entry];
    for (name, part) in [("Open", Part::Ok), ("Cancel", Part::Cancel)] {
        let mut b = synthetic::element(Role::PushButton, "button", name, id(part));
        b.states.insert(State::Focusable);
        parts.push(b);
    }
    synthetic::at_end(Some(page), "", dialog, parts)
}

/// Performs `action` on `node`, an element of the chooser held on the tab
/// behind `session`.
pub(crate) async fn act(session: &Session, node: &NodeData, action: &Action) -> Result<Performed> {
    let tab = session.tab_id();
    let choosers = &session.shared.choosers;
    let (serial, part) = node
        .identity
        .as_deref()
        .and_then(|i| synthetic::parse(KIND, i))
        .ok_or_else(|| Error::Unsupported(format!("{}: not a chooser's element", session.doing)))?;
    let held = choosers
        .held(&tab)
        .filter(|h| h.serial == serial)
        .ok_or_else(|| {
            Error::NotFound(format!(
                "{}: the page's file chooser is no longer open; capture again",
                session.doing
            ))
        })?;
    let open = match synthetic::answer(action, part, &held.typed) {
        Some(Answer::Answered(open)) => open,
        Some(Answer::Nothing) => {
            return Ok(Performed {
                method: "nothing: the chooser has the focus".into(),
            })
        }
        Some(Answer::Text(text)) => {
            choosers.set_typed(&tab, serial, text);
            return Ok(Performed {
                method: "the chooser's File name holds the paths it opens".into(),
            });
        }
        None => {
            return Err(Error::Unsupported(format!(
                "{}: {} the file chooser does nothing; type the path of a file into its File \
                 name entry, then click Open (or Cancel)",
                session.doing,
                action.doing()
            )))
        }
    };
    if !open {
        choosers.forget(&tab);
        return Ok(Performed {
            method: "the file chooser was cancelled".into(),
        });
    }
    let files = paths(&session.doing, &held.typed, held.multiple)?;
    let method = give(session, held.input, &files).await?;
    choosers.forget(&tab);
    Ok(Performed { method })
}

/// Answers a chooser opened for `input` with `files` (none: left as it
/// is), as it opens.
pub(crate) async fn answer_now(session: &Session, input: i64, multiple: bool, files: &[String]) {
    let session = &Session {
        doing: "answering the page's file chooser".into(),
        ..session.clone()
    };
    let answered = if files.is_empty() {
        AnsweredChooser {
            files: Vec::new(),
            error: None,
        }
    } else {
        let given = match paths(&session.doing, &files.join("\n"), multiple) {
            Ok(files) => give(session, input, &files).await.map(|_| files),
            Err(e) => Err(e),
        };
        match given {
            Ok(files) => AnsweredChooser { files, error: None },
            Err(e) => AnsweredChooser {
                files: Vec::new(),
                error: Some(e.to_string()),
            },
        }
    };
    tracing::info!("{answered}");
    session.shared.choosers.record(answered);
}

/// Gives the file input `input` (a backend node id) the files named in
/// `value`, one path per line: what setting a file input's value does.
pub(crate) async fn set_files(session: &Session, input: i64, value: &str) -> Result<String> {
    let multiple = value.lines().filter(|l| !l.trim().is_empty()).count() > 1;
    let files = paths(&session.doing, value, multiple)?;
    give(session, input, &files).await
}

async fn give(session: &Session, input: i64, files: &[String]) -> Result<String> {
    session
        .call(
            "DOM.setFileInputFiles",
            json!({"files": files, "backendNodeId": input}),
        )
        .await?;
    Ok(format!("DOM.setFileInputFiles: {}", files.join(", ")))
}

/// The files `typed` names, one absolute path per line, each a file that
/// exists (the browser takes any path and reads a missing file as empty).
fn paths(doing: &str, typed: &str, multiple: bool) -> Result<Vec<String>> {
    let files: Vec<String> = typed
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    let refuse = |why: String| Err(Error::Unsupported(format!("{doing}: {why}")));
    if files.is_empty() {
        return refuse("no file named: type the absolute path of a file first".into());
    }
    if files.len() > 1 && !multiple {
        return refuse(format!(
            "{} files named, and the input takes one",
            files.len()
        ));
    }
    for file in &files {
        let path = Path::new(file);
        if !path.is_absolute() {
            return refuse(format!("`{file}` is not an absolute path"));
        }
        if !path.is_file() {
            return refuse(format!("no file at `{file}`"));
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidelta_model::{StateSet, TreeBuilder};

    #[test]
    fn paths_are_absolute_existing_files_one_per_line() {
        let here = env!("CARGO_MANIFEST_DIR");
        let manifest = format!("{here}/Cargo.toml");
        let lib = format!("{here}/src/lib.rs");
        assert_eq!(
            paths("choosing", &format!(" {manifest}\n\n{lib}\n"), true).ok(),
            Some(vec![manifest.clone(), lib.clone()])
        );
        let err = |typed: &str, multiple: bool| {
            paths("choosing", typed, multiple)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert_eq!(
            err(&format!("{manifest}\n{lib}"), false),
            "choosing: 2 files named, and the input takes one"
        );
        assert_eq!(
            err("Cargo.toml", false),
            "choosing: `Cargo.toml` is not an absolute path"
        );
        assert_eq!(err(here, false), format!("choosing: no file at `{here}`"));
        assert!(err("  \n", false).contains("no file named"));
    }

    #[test]
    fn a_held_chooser_is_the_last_element_of_the_page() {
        let mut root = NodeData::named(Role::DocumentWeb, "Upload");
        root.states = StateSet::of(&[State::Focused]);
        let mut builder = TreeBuilder::new(root);
        builder.leaf(NodeData::named(Role::PushButton, "Add photos"));
        let page = Snapshot::new(uidelta_model::Meta::default(), builder.finish());
        let held = Held {
            serial: 2,
            multiple: true,
            input: 11,
            typed: "/tmp/a.png".into(),
        };
        let shown = with_held(&page, &held);
        let nodes = crate::synthetic::rows(&shown);
        assert_eq!(
            nodes,
            [
                ("document web", "Upload", None),
                ("push button", "Add photos", None),
                ("dialog", "Choose files to upload", None),
                ("entry", "File name", Some("/tmp/a.png")),
                ("push button", "Open", None),
                ("push button", "Cancel", None),
            ]
        );
        let focused: Vec<&str> = shown
            .tree()
            .nodes()
            .iter()
            .filter(|n| n.states.contains(State::Focused))
            .map(|n| n.name.as_str())
            .collect();
        assert_eq!(focused, ["File name"]);
    }
}
