//! Captures as the display shows them: bounds in the display's
//! coordinates, and GTK 3's still spinners not showing.

use std::time::{Duration, Instant};

use uidelta_atspi::{AppInfo, AppRef, CaptureOptions};
use uidelta_backend::Scope;
use uidelta_model::{NodeId, Rect, Role, Snapshot, State};

use crate::coords::place_on_display;
use crate::windows::{focused_window, pick_window};
use crate::{Linux, Result};

/// How long an application whose call timed out during a capture may take
/// to answer a ping and be read again (see [`Linux::busy_not_hung`]).
const BUSY_FOR: Duration = Duration::from_secs(5);

mod menus;
mod mirrors;
pub use mirrors::MirrorUse;
pub(crate) use mirrors::{compare_bounds, Mirrors};

impl Linux {
    /// Captures an application or one of its windows.
    pub(crate) async fn capture(
        &self,
        app: &AppInfo,
        scope: &Scope,
        opts: &CaptureOptions,
    ) -> Result<Snapshot> {
        let window = match scope {
            Scope::App => None,
            Scope::Window(title) => Some(pick_window(&app.windows, title, &app.app.label())?),
            Scope::Focused => Some(focused_window(&app.windows, &app.app.label())?),
        };
        let read = || {
            self.mirrored(
                &app.app,
                window.map(|w| w.path.as_str()),
                window.map(|w| w.title.clone()),
                opts,
            )
        };
        let snapshot = match read().await {
            Err(e) if self.busy_not_hung(&app.app, &e).await => {
                tracing::debug!("{e}; it answers now: read again");
                read().await?
            }
            read => read?,
        };
        let snapshot = self.on_display(&app.app, snapshot);
        // Read once per application, by the capture itself: no call here.
        let profile = self.bus.profile(&app.app).await;
        let snapshot = if profile.says_not_which_menu_is_open() {
            self.open_menus_shown(&app.app, snapshot)
        } else {
            snapshot
        };
        if !profile.still_spinners_say_they_show() {
            return Ok(snapshot);
        }
        Ok(self.still_spinners_hidden(&app.app, snapshot))
    }

    /// Whether `error`, a capture's, is a call that timed out while the
    /// application was busy rather than hung: it answers a ping within
    /// [`BUSY_FOR`]. LibreOffice on a loaded machine took more than a
    /// call's two seconds now and then (a click answered `GetAttributes
    /// timed out after 2000 ms`) and answered the next command; an answer
    /// that fails so has an agent retry an action that was done. Such a
    /// capture is read once more; a stopped or hung application still
    /// fails, a few seconds later.
    async fn busy_not_hung(&self, app: &AppRef, error: &crate::Error) -> bool {
        if !matches!(
            error,
            crate::Error::Atspi(uidelta_atspi::Error::Timeout { .. })
        ) {
            return false;
        }
        matches!(
            self.bus
                .answers(&app.label(), &app.bus_name, BUSY_FOR)
                .await,
            Ok(true)
        )
    }

    /// GTK 2: which of the application's menus are open, as its popup
    /// windows on the display say (see [`menus::show_open_menus`]). Left
    /// as the toolkit says without a display to ask, or a process to
    /// find its windows by.
    fn open_menus_shown(&self, app: &AppRef, snapshot: Snapshot) -> Snapshot {
        let (Some(x11), Some(pid)) = (self.x11.as_ref(), app.pid) else {
            return snapshot;
        };
        let popups: Vec<uidelta_x11::Area> = match x11.top_windows() {
            Ok(windows) => windows
                .into_iter()
                .filter(|w| w.viewable && w.override_redirect && w.pid == Some(pid))
                .map(|w| w.outer)
                .collect(),
            Err(e) => {
                tracing::debug!("menus left as the toolkit says: {e}");
                return snapshot;
            }
        };
        let (meta, mut tree) = snapshot.into_parts();
        menus::show_open_menus(&mut tree, &popups);
        Snapshot::new(meta, tree)
    }

    /// GTK 3: a spinner that is not spinning draws nothing, yet says it is
    /// showing and visible like one that spins, and nothing it reports
    /// tells them apart (no `animated` state; its role is `animation`, its
    /// name `Spinner`). mousepad's search bar holds one that never spins.
    /// A GTK 3 spinner said to be showing, in a window of its application
    /// that is on top at its centre, where the screen is of one colour, is
    /// not showing: its `showing` is taken away. One that spins is left as
    /// it is, and so is one that cannot be looked at.
    fn still_spinners_hidden(&self, app: &AppRef, snapshot: Snapshot) -> Snapshot {
        let Some(x11) = self.x11.as_ref() else {
            return snapshot;
        };
        let tree = snapshot.tree();
        let spinners: Vec<(NodeId, Rect)> = tree
            .ids()
            .filter_map(|id| {
                let n = tree.node(id);
                let gtk3 = n.attribute("toolkit") == Some("gtk");
                (gtk3 && n.role == Role::Animation && n.states.contains(State::Showing))
                    .then_some(())
                    .and(n.bounds)
                    .filter(|b| b.w > 0 && b.h > 0)
                    .map(|b| (id, b))
            })
            .collect();
        if spinners.is_empty() || app.pid.is_none() {
            return snapshot;
        }
        let still: Vec<NodeId> = spinners
            .into_iter()
            .filter(|&(_, b)| {
                let (cx, cy) = b.center();
                let ours = matches!(x11.window_at(cx, cy), Ok(Some(w)) if w.pid == app.pid);
                let area = (b.x, b.y, b.w.unsigned_abs(), b.h.unsigned_abs());
                ours && x11.is_plain(area).unwrap_or(false)
            })
            .map(|(id, _)| id)
            .collect();
        if still.is_empty() {
            return snapshot;
        }
        let (meta, mut tree) = snapshot.into_parts();
        for id in still {
            tree.node_mut(id).states.remove(State::Showing);
        }
        Snapshot::new(meta, tree)
    }

    /// The snapshot of `app` with its bounds in the display's coordinates
    /// (see [`place_on_display`]); as it is when there is no X display to
    /// read the windows from, or the application is known to report the
    /// display's places.
    fn on_display(&self, app: &AppRef, snapshot: Snapshot) -> Snapshot {
        let Some(x11) = self.x11.as_ref() else {
            return snapshot;
        };
        let known = |set: &std::collections::HashSet<String>| set.contains(&app.bus_name);
        if known(&self.on_display.lock().unwrap_or_else(|e| e.into_inner())) {
            return snapshot;
        }
        let started = Instant::now();
        let windows = match x11.viewable_windows() {
            Ok(windows) => windows,
            Err(e) => {
                tracing::debug!("bounds left as the toolkit reports them: {e}");
                return snapshot;
            }
        };
        let (mut meta, mut tree) = snapshot.into_parts();
        let placed = place_on_display(&mut tree, &windows, meta.pid);
        if placed.mapped > 0 {
            tracing::debug!(placed.mapped, "top-level windows placed on the display");
        }
        if placed.display_places {
            self.on_display
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(app.bus_name.clone());
        }
        meta.capture_ms = meta
            .capture_ms
            .map(|ms| ms + started.elapsed().as_secs_f64() * 1000.0);
        Snapshot::new(meta, tree)
    }
}
