//! Looking things up in a session's latest snapshot of one application:
//! its windows, the states worth a word.

use uidelta_backend::App;
use uidelta_engine::KnownApp;
use uidelta_model::{NodeId, State, StateSet};

use crate::reply::ToolError;

/// The window titled `title` (exactly, in any case, or a unique prefix).
pub(crate) fn window_named(known: &KnownApp, title: &str) -> Result<NodeId, ToolError> {
    known.window_named(title).map_err(|message| ToolError {
        kind: "not_found",
        message,
    })
}

/// The window titled `title` when one is given, else the main window; an
/// error names what is missing.
pub(crate) fn window_or_main(known: &KnownApp, title: Option<&str>) -> Result<NodeId, ToolError> {
    match title {
        Some(title) => window_named(known, title),
        None => known.main_window().ok_or_else(|| ToolError {
            kind: "not_found",
            message: format!("{} shows no window", known.app.label()),
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

/// The application a call that names none acts on, when one is obvious:
/// `default` (the tab the server was started on) while it runs, else the
/// only application the session has read that still runs. Otherwise the
/// error lists the candidates: the applications read, or, before any (or
/// after all of them exited), those running.
/// Answers with what finds it again: its name when no other running
/// application has that name, else its id.
pub(crate) fn obvious_app(
    tool: &str,
    default: Option<&App>,
    read: &[KnownApp],
    running: &[App],
) -> Result<String, ToolError> {
    let runs = |app: &App| running.iter().any(|a| a.id == app.id);
    let default = default.filter(|d| runs(d));
    let read: Vec<&App> = read.iter().map(|l| &l.app).filter(|a| runs(a)).collect();
    let obvious = match (default, read.as_slice()) {
        (Some(app), _) => app,
        (None, [only]) => *only,
        (None, []) => {
            return Err(ToolError::bad_argument(format!(
                "{tool}: name the application with `app`; none has been read yet, and these \
                 run: {}",
                labels(running.iter())
            )))
        }
        (None, many) => {
            return Err(ToolError::bad_argument(format!(
                "{tool}: name the application with `app`; this session has read several: {}",
                labels(many.iter().copied())
            )))
        }
    };
    let same_name = running
        .iter()
        .filter(|a| a.name.eq_ignore_ascii_case(&obvious.name))
        .count();
    Ok(match same_name {
        1 => obvious.name.clone(),
        _ => obvious.id.clone(),
    })
}

/// `gedit (pid 4242), zenity (pid 4250)`, or `none`.
fn labels<'a>(apps: impl Iterator<Item = &'a App>) -> String {
    let labels: Vec<String> = apps.map(App::label).collect();
    if labels.is_empty() {
        "none".to_owned()
    } else {
        labels.join(", ")
    }
}
