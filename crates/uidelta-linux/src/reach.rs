//! What a pointer event at a point of an element would reach: the
//! element's own window, or what is on top of it there; and the element's
//! ancestry, scroll panes, popovers and modal windows that decide it.

use uidelta_atspi::{app_windows, Actor, AppRef, NodeAddr};
use uidelta_model::{Rect, Role, State};
use uidelta_x11::{WindowAt, X11};

use crate::coords::{
    mapping_between, popover_shift, rect_of, shifted, window_mapping, Mapping, SHADOW,
};
use crate::Linux;

/// What a pointer event at a point of an element would reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reach {
    /// The element's own window is on top there.
    Element,
    /// Something else is on top there: what, for an error.
    Covered(String),
    /// The display or the bus cannot tell.
    Unknown,
}

/// Whether `window` (what the display has at a point) is the element's
/// window whose extents are `extents`: the extents lie within the window,
/// frame included (toolkits report a framed window with or without its
/// frame), and the window's inside lies within the extents but for a
/// shadow's width.
pub(crate) fn same_window(extents: Rect, window: &WindowAt) -> bool {
    let area = |(x, y, w, h): uidelta_x11::Area| {
        Rect::new(
            x,
            y,
            i32::try_from(w).unwrap_or(i32::MAX),
            i32::try_from(h).unwrap_or(i32::MAX),
        )
    };
    let within = |inner: Rect, outer: Rect, slack: i32| {
        inner.x >= outer.x - slack
            && inner.y >= outer.y - slack
            && inner.x + inner.w <= outer.x + outer.w + slack
            && inner.y + inner.h <= outer.y + outer.h + slack
    };
    within(extents, area(window.outer), 2) && within(area(window.inner), extents, SHADOW)
}

/// What a window on top of an element is, for an error.
pub(crate) fn window_name(window: &WindowAt, pid: Option<u32>) -> String {
    let what = match (window.override_redirect, window.title.is_empty()) {
        (true, true) => "a popup window (a menu, tooltip or the like)".to_owned(),
        (true, false) => format!("the popup window {:?}", window.title),
        (false, true) => format!("an untitled window ({:#x})", window.id),
        (false, false) => format!("the window {:?}", window.title),
    };
    match window.pid {
        Some(other) if pid.is_some_and(|p| p != other) => {
            format!("{what} of another application (pid {other})")
        }
        _ => what,
    }
}

/// `addr` and its ancestors up to the top-level window it is in (the one
/// whose parent is the application), innermost first; `None` when the
/// chain cannot be read or does not end at an application.
pub(crate) async fn ancestry(actor: &Actor<'_>, addr: &NodeAddr) -> Option<Vec<NodeAddr>> {
    /// Ancestors looked at, at most.
    const DEPTH: usize = 64;
    let mut chain = vec![addr.clone()];
    for _ in 0..DEPTH {
        let at = chain.last()?;
        let parent = actor.parent(at).await.ok()?;
        if is_application(at, &parent) {
            return Some(chain);
        }
        chain.push(parent);
    }
    None
}

/// Whether `point` lies inside the table (or tree, or list) that holds a
/// cell and inside the nearest scroll pane or viewport around it, among the
/// ancestors in `chain` (see [`ancestry`]): the part of a scrolled table
/// that is on view. Those that report no extents are not asked; `false`
/// when a role cannot be read.
pub(crate) async fn in_sight(actor: &Actor<'_>, chain: &[NodeAddr], (x, y): (i32, i32)) -> bool {
    for at in chain.iter().skip(1) {
        let role = match actor.role(at).await {
            Ok(role) => role,
            Err(_) => return false,
        };
        let pane = matches!(role, Role::ScrollPane | Role::Viewport);
        let view = matches!(
            role,
            Role::Table | Role::TreeTable | Role::Tree | Role::List
        );
        if pane || view {
            let extents = actor.extents(at).await.ok().and_then(rect_of);
            if extents.is_some_and(|r| !r.contains(x, y)) {
                return false;
            }
        }
        if pane {
            break;
        }
    }
    true
}

/// Whether a popover other than one holding the element at the start of
/// `chain` (see [`ancestry`]) is open in its window: a showing, modal
/// element of the window that is not one of the element's ancestors. When
/// that cannot be told, `false`: the pointer is tried, as before popovers
/// were looked for.
pub(crate) async fn popover_elsewhere(actor: &Actor<'_>, chain: &[NodeAddr]) -> bool {
    let Some(window) = chain.last() else {
        return false;
    };
    match actor.modal_within(window).await {
        Ok(modal) => modal.iter().any(|m| !chain.contains(m)),
        Err(e) => {
            tracing::debug!(error = %e, "looking for an open popover");
            false
        }
    }
}

/// The modal window of the application of `addr` that takes its input,
/// when that is not `addr`'s own top-level: its role and title. Push
/// buttons and menu items are what run handlers; in a window such a dialog
/// blocks, a person's click does nothing. Of several modal windows (a modal
/// demo window, then a modal dialog of it), the active one takes the
/// input, else the last opened (the application lists its windows in the
/// order they were made). `None` when there is none, or it cannot be told.
pub(crate) async fn blocking_modal(actor: &Actor<'_>, addr: &NodeAddr) -> Option<(Role, String)> {
    let root = NodeAddr {
        bus: addr.bus.clone(),
        path: uidelta_atspi::ROOT_PATH.to_owned(),
    };
    // Most applications show one window: one call tells.
    let windows = actor.children(&root).await.ok()?;
    if windows.len() < 2 {
        return None;
    }
    let mut modal = Vec::new();
    for w in windows {
        let states = actor.states(&w).await.ok()?;
        if [State::Modal, State::Showing]
            .iter()
            .all(|s| states.contains(*s))
        {
            let role = actor.role(&w).await.ok()?;
            // Popup menus and lists are windows of their own.
            if !matches!(
                role,
                Role::Window | Role::Menu | Role::PopupMenu | Role::ToolTip
            ) {
                modal.push((w, role, states.contains(State::Active)));
            }
        }
    }
    let top = match modal.iter().position(|(_, _, active)| *active) {
        Some(i) => modal.swap_remove(i),
        None => modal.pop()?,
    };
    let chain = ancestry(actor, addr).await?;
    if chain.last() == Some(&top.0) {
        return None;
    }
    let title = actor.name(&top.0).await.unwrap_or_default();
    Some((top.1, title))
}

/// Whether `parent`, the parent of `node`, is its application (or beyond):
/// `node` is a top-level. Qt gives a top-level item view AT-SPI's null
/// object as its parent, on the application's own bus.
pub(crate) fn is_application(node: &NodeAddr, parent: &NodeAddr) -> bool {
    parent.bus != node.bus
        || parent.path.ends_with("/accessible/root")
        || parent.path == "/org/a11y/atspi/null"
}

/// Whether the point is on the screen.
pub(crate) fn on_screen(x11: &X11, x: i32, y: i32) -> bool {
    let (w, h) = x11.screen_size();
    x >= 0 && y >= 0 && (x as u32) < w && (y as u32) < h
}

impl Linux {
    /// Where on the display a pointer event for `point`, a point of the
    /// element `addr` of `app` as accessibility reports it, goes, and what
    /// it would reach there (see [`Linux::reach`]). A toolkit that reports
    /// the element elsewhere than it shows has it moved first, as a capture
    /// moves it (see [`Actor::shown_below_reported`]). When the element's
    /// window is not found at the point as reported, the toolkit's
    /// coordinates are taken not to be the display's (see [`Mapping`]): the
    /// mapping is read from the element's top-level window and the
    /// application's window in its place, and the point mapped.
    pub(crate) async fn aim(
        &self,
        x11: &X11,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        point: (i32, i32),
    ) -> ((i32, i32), Reach) {
        match ancestry(actor, addr).await {
            Some(chain) => self.aim_along(x11, app, actor, &chain, point).await,
            None => (point, Reach::Unknown),
        }
    }

    /// [`Linux::aim`] for the element at the start of `chain`, its
    /// ancestry (see [`ancestry`]), read once by a caller that needs it too.
    pub(crate) async fn aim_along(
        &self,
        x11: &X11,
        app: &AppRef,
        actor: &Actor<'_>,
        chain: &[NodeAddr],
        (x, y): (i32, i32),
    ) -> ((i32, i32), Reach) {
        let point = (x, y + actor.shown_below_reported(chain).await);
        if let Some(shown) = self.in_popover(x11, app, actor, chain, point).await {
            return shown;
        }
        let (reach, within) = self
            .reach(x11, app, actor, chain, point, Mapping::SAME)
            .await;
        let mapping = match reach {
            Reach::Element if within == Mapping::SAME => return (point, reach),
            Reach::Element => within,
            _ => match self.mapping(x11, app, actor, chain).await {
                Some(m) if m != Mapping::SAME => m,
                _ => return (point, reach),
            },
        };
        let mapped = mapping.point(point);
        tracing::debug!(?mapping, ?point, ?mapped, "toolkit coordinates mapped");
        (
            mapped,
            self.reach(x11, app, actor, chain, mapped, mapping).await.0,
        )
    }

    /// Where `point` of the element at the start of `chain` shows, and
    /// what a pointer event there reaches, when the element is in a
    /// popover of a toolkit that reports places within its windows (GTK 4):
    /// placed as a capture places it (see [`crate::coords::popover_shift`]).
    /// `None` when no popup window of `app` is on screen, its toolkit
    /// reports the display's places, or the element is in no popover.
    async fn in_popover(
        &self,
        x11: &X11,
        app: &AppRef,
        actor: &Actor<'_>,
        chain: &[NodeAddr],
        point: (i32, i32),
    ) -> Option<((i32, i32), Reach)> {
        let windows = x11.viewable_windows().ok()?;
        let ours = |pid: Option<u32>| pid.is_none() || app.pid.is_none() || pid == app.pid;
        let popups: Vec<uidelta_x11::Area> = windows
            .iter()
            .filter(|w| w.override_redirect && ours(w.pid))
            .map(|w| w.outer)
            .collect();
        if popups.is_empty() {
            return None;
        }
        let top_level = chain.last()?;
        let extents = rect_of(actor.extents(top_level).await.ok()?)?;
        let name = actor.name(top_level).await.unwrap_or_default();
        let mapping = window_mapping(&windows, app.pid, extents, &name)?;
        if mapping.dx == 0.0 && mapping.dy == 0.0 {
            return None;
        }
        let mut read = Vec::with_capacity(chain.len());
        for at in chain {
            let role = actor.role(at).await.ok();
            let bounds = actor.extents(at).await.ok().and_then(rect_of);
            read.push((role, bounds.map(|b| mapping.rect(b))));
        }
        // From the top-level down: the outermost popover.
        let shift = (0..chain.len().saturating_sub(1)).rev().find_map(|i| {
            let ((Some(role), Some(b)), (Some(parent_role), Some(held))) = (read[i], read[i + 1])
            else {
                return None;
            };
            popover_shift(role, b, parent_role, held, popups.iter().copied())
        })?;
        let p = mapping.point(point);
        let at = shifted(Rect::new(p.0, p.1, 1, 1), shift.1);
        let reach = match x11.window_at(at.x, at.y) {
            Ok(Some(w)) if w.override_redirect && ours(w.pid) => Reach::Element,
            Ok(Some(w)) => Reach::Covered(window_name(&w, app.pid)),
            Ok(None) => Reach::Covered("no window (the bare desktop)".into()),
            Err(e) => {
                tracing::debug!("{e}");
                Reach::Unknown
            }
        };
        tracing::debug!(?mapping, ?shift, ?at, "placed in its popover");
        Some(((at.x, at.y), reach))
    }

    /// How `app`'s coordinates map to the display's, read from the
    /// top-level window at the end of `chain` (see [`ancestry`]) and the
    /// application's window that is it (see [`window_mapping`]).
    pub(crate) async fn mapping(
        &self,
        x11: &X11,
        app: &AppRef,
        actor: &Actor<'_>,
        chain: &[NodeAddr],
    ) -> Option<Mapping> {
        let top_level = chain.last()?;
        let extents = rect_of(actor.extents(top_level).await.ok()?)?;
        let name = actor.name(top_level).await.unwrap_or_default();
        let windows = x11.shown_windows().ok()?;
        window_mapping(&windows, app.pid, extents, &name)
    }

    /// What a pointer event at `point` (of the display) for the element at
    /// the start of `chain` (see [`ancestry`]) of `app` would reach: the
    /// element's window when the window on top there is its own (that of
    /// its top-level or, for a popup, of any element of the chain: a menu or
    /// a popup list has a window of its own), else what is on top.
    /// `mapping` maps the toolkit's coordinates to the display's; with the
    /// result comes the mapping to use, refined for a toolkit that reports
    /// places within its window. Elements inside one window are not told
    /// apart.
    pub(crate) async fn reach(
        &self,
        x11: &X11,
        app: &AppRef,
        actor: &Actor<'_>,
        chain: &[NodeAddr],
        (x, y): (i32, i32),
        mapping: Mapping,
    ) -> (Reach, Mapping) {
        let top = match x11.window_at(x, y) {
            Ok(Some(top)) => top,
            Ok(None) => {
                return (
                    Reach::Covered("no window (the bare desktop)".into()),
                    mapping,
                )
            }
            Err(e) => {
                tracing::debug!("{e}");
                return (Reach::Unknown, mapping);
            }
        };
        if matches!((top.pid, app.pid), (Some(a), Some(b)) if a != b) {
            return (Reach::Covered(window_name(&top, app.pid)), mapping);
        }
        // A managed window is an element's top-level; a popup (a menu, a
        // combo box's list) is one of its ancestors.
        let candidates = if top.override_redirect {
            chain
        } else {
            &chain[chain.len().saturating_sub(1)..]
        };
        for (k, at) in candidates.iter().enumerate() {
            let reported = match actor.extents(at).await {
                Ok(e) => rect_of(e),
                Err(_) => return (Reach::Unknown, mapping),
            };
            let top_level = k + 1 == candidates.len();
            if reported.is_some_and(|e| same_window(mapping.rect(e), &top))
                && !(top_level && self.another_window_named(app, actor, at, &top).await)
            {
                // A window at 0,0 whose toolkit reports places within it
                // (GTK 4) matches as it is; its content may still sit within
                // a border.
                let within = reported
                    .filter(|e| top_level && mapping == Mapping::SAME && e.x == 0 && e.y == 0)
                    .and_then(|e| mapping_between(e, top.outer, top.inner))
                    .filter(|m| m.scale == 1.0);
                return (Reach::Element, within.unwrap_or(mapping));
            }
        }
        (Reach::Covered(window_name(&top, app.pid)), mapping)
    }

    /// Whether `window`, which is where the top-level `top_level` is, is
    /// another top-level window of `app` in the same place: two windows of
    /// one application can share a place (one opened over the other). The
    /// X title tells them apart when it is the accessible name of another of
    /// the application's windows; toolkits do not always name a window
    /// after its title, so a mere difference proves nothing.
    pub(crate) async fn another_window_named(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        top_level: &NodeAddr,
        window: &WindowAt,
    ) -> bool {
        if window.override_redirect || window.title.is_empty() {
            return false;
        }
        if actor
            .name(top_level)
            .await
            .is_ok_and(|name| name == window.title)
        {
            return false;
        }
        app_windows(&self.bus, app).await.is_ok_and(|all| {
            all.iter()
                .any(|w| w.path != top_level.path && w.showing && w.title == window.title)
        })
    }
}

#[cfg(test)]
mod tests;
