//! Following the focus: whether an action sent it to another
//! application, and what changed there.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use uidelta_backend::{App, Backend};
use uidelta_diff::View;
use uidelta_model::{NodeId, State};

use super::{AppDiff, Session};

impl<B: Backend> Session<B> {
    /// When the focus left `app`: the application that has an active window
    /// now, with what changed in it.
    pub(super) async fn app_switch(&mut self, app: &App) -> Option<AppDiff> {
        let apps = self.backend.apps().await.ok()?;
        self.census = Some(Census::of(&apps));
        let other = apps
            .into_iter()
            .find(|a| a.id != app.id && a.windows.iter().any(|w| w.active))?;
        self.switched_to(other).await
    }

    /// When an action on `app` opened a window in another process that is
    /// active now, though `app` says it kept the focus (GIMP runs each
    /// plug-in as a process of its own, whose dialog GTK 2 leaves GIMP's
    /// windows saying they are active under): that application, with what
    /// changed in it. A window is new when it was not there just before
    /// the action (see [`Session::take_census`]). An application that came
    /// onto the bus since, and has no window yet, is waited for, up to
    /// [`NEW_APP_WAIT`]: a process an action starts shows its window once
    /// it has started, after the acting application settled. So is a
    /// program `app` started since the census that may show a window and
    /// is not on the bus yet (see [`Backend::started`]): on a busy
    /// machine, GIMP settles before its plug-in has joined the bus.
    pub(super) async fn opened_elsewhere(&mut self, app: &App) -> Option<AppDiff> {
        let before = self.census.take()?;
        let deadline = Instant::now() + NEW_APP_WAIT;
        loop {
            let apps = self.backend.apps().await.ok()?;
            let now = Census::of(&apps);
            let other = apps.iter().find(|a| {
                a.id != app.id
                    && a.windows.iter().any(|w| {
                        w.active && !before.windows.contains(&(a.id.clone(), w.id.clone()))
                    })
            });
            if let Some(other) = other {
                self.census = Some(now);
                return self.switched_to(other.clone()).await;
            }
            let mut starting = apps
                .iter()
                .any(|a| a.id != app.id && a.windows.is_empty() && !before.apps.contains(&a.id));
            if !starting {
                let listed: HashSet<u32> = apps.iter().filter_map(|a| a.pid).collect();
                starting = self
                    .backend
                    .started(app, before.at)
                    .await
                    .iter()
                    .any(|pid| !listed.contains(pid));
            }
            if !starting || Instant::now() >= deadline {
                self.census = Some(now);
                return None;
            }
            tokio::time::sleep(NEW_APP_POLL).await;
        }
    }

    /// Lists the windows of every application, just before an action:
    /// what the windows it opens are told apart from (a window another
    /// program opened meanwhile is no news of the action).
    pub(super) async fn take_census(&mut self) {
        self.census = self.backend.apps().await.ok().map(|apps| Census::of(&apps));
    }

    async fn switched_to(&mut self, other: App) -> Option<AppDiff> {
        let (_, d) = self.observe_app(other.clone()).await.ok()?;
        Some(AppDiff {
            app: other,
            diff: d,
        })
    }
}

/// How long an application that came onto the bus during an action is
/// waited for to show a window (see [`Session::opened_elsewhere`]).
const NEW_APP_WAIT: Duration = Duration::from_secs(3);

/// How often the applications are listed meanwhile.
const NEW_APP_POLL: Duration = Duration::from_millis(150);

/// The applications on the bus and their windows, as listed once.
#[derive(Clone, Debug)]
pub(crate) struct Census {
    /// Application ids.
    apps: HashSet<String>,
    /// Application and window ids.
    windows: HashSet<(String, String)>,
    /// When it was taken: what started after it is new.
    at: Instant,
}

impl Census {
    fn of(apps: &[App]) -> Census {
        Census {
            apps: apps.iter().map(|a| a.id.clone()).collect(),
            windows: apps
                .iter()
                .flat_map(|a| a.windows.iter().map(|w| (a.id.clone(), w.id.clone())))
                .collect(),
            at: Instant::now(),
        }
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
