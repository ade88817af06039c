//! Looking things up in a session's latest snapshot of one application:
//! its windows, what a settle poll compares.

use uidelta_diff::View;
use uidelta_engine::Latest;
use uidelta_model::{NodeId, State, StateSet};

use crate::reply::{handle_text, ToolError};

/// The top-level window (a child of the application root) holding `node`.
pub(crate) fn window_of(scope: &Latest, node: NodeId) -> Result<NodeId, ToolError> {
    let tree = scope.view.tree();
    std::iter::once(node)
        .chain(tree.ancestors(node))
        .find(|&n| tree.parent(n) == Some(NodeId::ROOT))
        .ok_or_else(|| ToolError {
            kind: "not_found",
            message: format!(
                "{} is the application {}, not an element of one of its windows",
                handle_text(&scope.handle(node)),
                scope.app.label()
            ),
        })
}

/// The window titled `title` (exactly, in any case, or a unique prefix).
pub(crate) fn window_named(scope: &Latest, title: &str) -> Result<NodeId, ToolError> {
    scope.window_named(title).map_err(|message| ToolError {
        kind: "not_found",
        message,
    })
}

/// The window titled `title` when one is given, else the main window; an
/// error names what is missing.
pub(crate) fn window_or_main(scope: &Latest, title: Option<&str>) -> Result<NodeId, ToolError> {
    match title {
        Some(title) => window_named(scope, title),
        None => scope.main_window().ok_or_else(|| ToolError {
            kind: "not_found",
            message: format!("{} shows no window", scope.app.label()),
        }),
    }
}

/// States worth a word in a one-line summary: the exceptions, not the
/// usual `enabled, visible, showing`.
pub(crate) fn notable_states(states: StateSet) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = [
        State::Focused,
        State::Checked,
        State::Selected,
        State::Expanded,
        State::Pressed,
        State::Modal,
        State::Editable,
    ]
    .into_iter()
    .filter(|&s| states.contains(s))
    .map(State::as_str)
    .collect();
    if !states.contains(State::Enabled) {
        out.push("disabled");
    }
    if !states.contains(State::Showing) {
        out.push("hidden");
    }
    out
}

/// What a settle poll compares: the whole tree and where the focus is
/// (which the tree's hash leaves out, as the diff reports it apart).
pub(crate) fn fingerprint(view: &View) -> (u64, Option<String>) {
    let focus = view
        .focus()
        .map(|f| view.tree().node(f))
        .map(|n| n.identity.clone().unwrap_or_else(|| n.name.clone()));
    (view.subtree_hash(NodeId::ROOT), focus)
}
