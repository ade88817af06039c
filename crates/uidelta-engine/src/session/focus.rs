//! Following the focus: whether an action sent it to another
//! application, and what changed there.

use uidelta_backend::{App, Backend};
use uidelta_diff::View;
use uidelta_model::{NodeId, State};

use super::{AppDiff, Session};

impl<B: Backend> Session<B> {
    /// When the focus left `app`: the application that has an active window
    /// now, with what changed in it.
    pub(super) async fn app_switch(&mut self, app: &App) -> Option<AppDiff> {
        let apps = self.backend.apps().await.ok()?;
        let other = apps
            .into_iter()
            .find(|a| a.id != app.id && a.windows.iter().any(|w| w.active))?;
        let (_, d) = self.observe_app(other.clone()).await.ok()?;
        Some(AppDiff {
            app: other,
            diff: d,
        })
    }
}

/// What of the input focus a view of an application shows: whether it has
/// a focused element, and whether one of its windows is active.
pub(super) fn held_focus(view: &View) -> (bool, bool) {
    let tree = view.tree();
    let active_window = tree
        .children(NodeId::ROOT)
        .iter()
        .any(|&w| tree.node(w).states.contains(State::Active));
    (view.focus().is_some(), active_window)
}

/// Whether the focus left the application between two views: its focused
/// element went without another taking its place, or its active window
/// stopped being active with none other active. (A window that was never
/// active, as on a desktop without a window manager, cannot lose it.)
pub(super) fn lost_focus(before: (bool, bool), after: (bool, bool)) -> bool {
    let (had_element, had_window) = before;
    let (has_element, has_window) = after;
    (had_element && !has_element) || (had_window && !has_window)
}
