//! Looking things up in a session's latest snapshot of one application:
//! its windows, a subtree's text, what a settle poll compares.

use uidelta_diff::{Refs, View};
use uidelta_engine::Latest;
use uidelta_model::{NodeId, State, StateSet};
use uidelta_render::{tree_text, TreeOptions};

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
    let tree = scope.view.tree();
    let windows = tree.children(NodeId::ROOT);
    let wanted = title.trim().to_lowercase();
    let name = |n: NodeId| tree.node(n).name.to_lowercase();
    let exact: Vec<NodeId> = windows
        .iter()
        .copied()
        .filter(|&n| name(n) == wanted)
        .collect();
    let found = if exact.is_empty() {
        windows
            .iter()
            .copied()
            .filter(|&n| name(n).starts_with(&wanted))
            .collect()
    } else {
        exact
    };
    match found.as_slice() {
        [one] => Ok(*one),
        _ => {
            let titles: Vec<String> = windows
                .iter()
                .map(|&n| format!("{:?}", tree.node(n).name))
                .collect();
            Err(ToolError {
                kind: "not_found",
                message: format!(
                    "{} has {} window titled `{title}`; its windows: {}",
                    scope.app.label(),
                    if found.is_empty() {
                        "no"
                    } else {
                        "more than one"
                    },
                    if titles.is_empty() {
                        "none".to_owned()
                    } else {
                        titles.join(", ")
                    }
                ),
            })
        }
    }
}

/// The window titled `title` when one is given, else the main window; an
/// error names what is missing.
pub(crate) fn window_or_main(scope: &Latest, title: Option<&str>) -> Result<NodeId, ToolError> {
    match title {
        Some(title) => window_named(scope, title),
        None => main_window(scope).ok_or_else(|| ToolError {
            kind: "not_found",
            message: format!("{} shows no window", scope.app.label()),
        }),
    }
}

/// The active window, else the first one shown, else the first.
pub(crate) fn main_window(scope: &Latest) -> Option<NodeId> {
    let tree = scope.view.tree();
    let windows = tree.children(NodeId::ROOT);
    let has = |n: NodeId, s: State| tree.node(n).states.contains(s);
    windows
        .iter()
        .copied()
        .find(|&n| has(n, State::Active))
        .or_else(|| windows.iter().copied().find(|&n| has(n, State::Showing)))
        .or_else(|| windows.first().copied())
}

/// The tree text of one subtree, with the refs it has in the whole tree.
pub(crate) fn subtree_text(scope: &Latest, node: NodeId, opts: &TreeOptions) -> String {
    let tree = scope.view.tree();
    let len = tree.subtree_len(node);
    let start = node.index();
    let refs = scope
        .refs
        .as_slice()
        .get(start..start + len)
        .map(|r| Refs::from_vec(r.to_vec()))
        .unwrap_or_default();
    let sub = View::from_filtered(
        scope.view.meta().clone(),
        tree.extract(node),
        (0..len as u32).map(NodeId).collect(),
        scope.view.filters(),
    );
    tree_text(&sub, &refs, opts)
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
