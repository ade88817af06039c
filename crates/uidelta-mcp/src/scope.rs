//! Looking things up in a session's latest snapshot of one application:
//! its windows, the states worth a word.

use uidelta_engine::Latest;
use uidelta_model::{NodeId, State, StateSet};

use crate::reply::ToolError;

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
