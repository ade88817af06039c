//! uidelta's Linux desktop backend.
//!
//! Accessibility interfaces come first (AT-SPI Action, EditableText, Value,
//! Selection, Component); synthesized X input at the element's centre is the
//! fallback. Push buttons and menu items are clicked with the pointer when
//! it can reach them (see `Linux::act`). Window management (activate, close) and
//! screenshots talk to the X server.

use std::time::{Duration, Instant};

mod backend;
mod launch;
mod reconnect;

pub use reconnect::Reconnecting;

use uidelta_atspi::{
    app_windows, applications, capture, find_app, subscribe_with, Actor, AppInfo, AppRef, Bus,
    CaptureOptions, NodeAddr, Outcome, Subscription, UiEvent, WindowInfo,
};
pub use uidelta_backend::{Action, Done, Scope};
use uidelta_model::{NodeData, NodeId, Rect, Role, Snapshot, State, Tree};
use uidelta_x11::{Button, TopWindow, WindowAt, X11};

use crate::launch::{end_of_stderr, how_it_ended, reap_when_it_exits, StderrLog};

/// Most menus between a menu bar and an item that [`Linux::act`] opens on
/// the way to the item.
const MENU_DEPTH: usize = 6;
/// How long a program that exited at once, leaving nothing of its own
/// running, is given for the application it handed over to (one that
/// forked away and left its process group) to show a window on the bus.
const FORKED_AWAY: Duration = Duration::from_secs(10);
/// How long a menu may take to open when an item in it is clicked.
const MENU_OPENS: Duration = Duration::from_millis(1000);
/// How long an element may take to report the keyboard focus once it was
/// given it and its window has the keyboard.
const FOCUS_MOVES: Duration = Duration::from_millis(2000);

fn is_menu_item(role: Role) -> bool {
    matches!(
        role,
        Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem
    )
}

/// The button, click count and name of a click action; `None` for other
/// actions.
fn pointer_of(action: &Action) -> Option<(Button, u32, &'static str)> {
    match action {
        Action::Click => Some((Button::Left, 1, "click")),
        Action::RightClick => Some((Button::Right, 1, "right click")),
        Action::DoubleClick => Some((Button::Left, 2, "double click")),
        _ => None,
    }
}

/// What a pointer event at a point of an element would reach.
#[derive(Debug, PartialEq, Eq)]
enum Reach {
    /// The element's own window is on top there.
    Element,
    /// Something else is on top there: what, for an error.
    Covered(String),
    /// The display or the bus cannot tell.
    Unknown,
}

/// How far a window's inside may reach past an element's window (in
/// pixels, each side) for the two to be the same window: client-side
/// decorations draw their shadow inside the window, outside the extents
/// toolkits report.
const SHADOW: i32 = 64;

/// Whether `window` (what the display has at a point) is the element's
/// window whose extents are `extents`: the extents lie within the window,
/// frame included (toolkits report a framed window with or without its
/// frame), and the window's inside lies within the extents but for a
/// shadow's width.
fn same_window(extents: Rect, window: &WindowAt) -> bool {
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
fn window_name(window: &WindowAt, pid: Option<u32>) -> String {
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

/// Extents as AT-SPI gives them, `None` for none (toolkits answer
/// `i32::MIN` or an empty size).
fn rect_of((x, y, w, h): (i32, i32, i32, i32)) -> Option<Rect> {
    (x != i32::MIN && w > 0 && h > 0).then_some(Rect::new(x, y, w, h))
}

/// How a toolkit's coordinates map to the display's: display = offset +
/// reported × scale. Toolkits on a scaled display (GTK 3 with
/// `GDK_SCALE=2`, Qt 5 with `QT_SCALE_FACTOR=2`) report unscaled pixels;
/// GTK 4 reports places within its window, as if the window were at 0,0.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Mapping {
    scale: f64,
    dx: f64,
    dy: f64,
}

impl Mapping {
    /// Reported places are the display's.
    const SAME: Mapping = Mapping {
        scale: 1.0,
        dx: 0.0,
        dy: 0.0,
    };

    fn point(&self, (x, y): (i32, i32)) -> (i32, i32) {
        (
            (self.dx + f64::from(x) * self.scale).round() as i32,
            (self.dy + f64::from(y) * self.scale).round() as i32,
        )
    }

    fn rect(&self, r: Rect) -> Rect {
        if *self == Mapping::SAME {
            return r;
        }
        let (x, y) = self.point((r.x, r.y));
        let size = |v: i32| (f64::from(v) * self.scale).round() as i32;
        Rect::new(x, y, size(r.w), size(r.h))
    }
}

/// Scales toolkits are commonly set to.
const SCALES: [f64; 7] = [1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0];

/// The mapping under which a window (`outer`, frame included, or `inner`)
/// is the top-level window whose extents its toolkit reports as `extents`: the
/// same size at some scale, give or take a border of up to [`SHADOW`]
/// pixels each side that the window may draw around its content; and
/// either the same place (screen coordinates, scaled), or reported at 0,0
/// (window coordinates: the content then sits within the border).
fn mapping_between(
    extents: Rect,
    outer: uidelta_x11::Area,
    inner: uidelta_x11::Area,
) -> Option<Mapping> {
    [outer, inner].into_iter().find_map(|(x, y, w, h)| {
        let (x, y, w, h) = (f64::from(x), f64::from(y), f64::from(w), f64::from(h));
        let (ew, eh) = (f64::from(extents.w), f64::from(extents.h));
        let exact = w / ew;
        SCALES.into_iter().chain([exact]).find_map(|scale| {
            let slack = 2.0 * scale + 2.0;
            let border = (w - ew * scale, h - eh * scale);
            let fits = |b: f64| (-slack..=2.0 * f64::from(SHADOW) + slack).contains(&b);
            if !fits(border.0) || !fits(border.1) {
                return None;
            }
            let near =
                |reported: i32, real: f64| (f64::from(reported) * scale - real).abs() <= slack;
            if near(extents.x, x) && near(extents.y, y) && border.0.abs() <= slack {
                return Some(Mapping {
                    scale,
                    dx: 0.0,
                    dy: 0.0,
                });
            }
            (extents.x == 0 && extents.y == 0).then_some(Mapping {
                scale,
                dx: x + (border.0 / 2.0).max(0.0),
                dy: y + (border.1 / 2.0).max(0.0),
            })
        })
    })
}

/// How the toolkit's coordinates of a top-level window reported at
/// `extents`, named `name`, of the process `pid` map to the display's: read
/// from the shown window of that process that fits it (see
/// [`mapping_between`]), the one titled `name` when there are several.
/// `None` when none fits, or several do and none has that title.
fn window_mapping(
    windows: &[TopWindow],
    pid: Option<u32>,
    extents: Rect,
    name: &str,
) -> Option<Mapping> {
    let fitting: Vec<(&TopWindow, Mapping)> = windows
        .iter()
        .filter(|w| w.viewable && !w.override_redirect)
        .filter(|w| w.pid.is_none() || pid.is_none() || w.pid == pid)
        .filter_map(|w| mapping_between(extents, w.outer, w.inner).map(|m| (w, m)))
        .collect();
    match fitting
        .iter()
        .find(|(w, _)| !name.is_empty() && w.title == name)
    {
        Some((_, m)) => Some(*m),
        None => match fitting[..] {
            [(_, m)] => Some(m),
            _ => None,
        },
    }
}

/// Puts the bounds of `tree`, a capture of the process `pid`, in the
/// display's coordinates where its toolkit reports others (see [`Mapping`]):
/// each top-level window that one of `windows` fits is mapped with its
/// subtree. A top-level that none fits (a popup menu, which has no managed
/// window) takes the scale the others share when they are in the display's
/// places at a scale (GTK 3 or Qt 5 on a scaled display), and is left as it
/// is otherwise (GTK 4's popovers).
fn place_on_display(tree: &mut Tree, windows: &[TopWindow], pid: Option<u32>) -> Placed {
    let root = tree.root();
    let tops: Vec<NodeId> = if tree.node(root).role == Role::Application {
        tree.children(root).to_vec()
    } else {
        vec![root]
    };
    let found: Vec<(NodeId, Option<Mapping>)> = tops
        .iter()
        .map(|&top| {
            let node = tree.node(top);
            let m = node
                .bounds
                .filter(|b| b.w > 0 && b.h > 0)
                .and_then(|b| window_mapping(windows, pid, b, &node.name));
            (top, m)
        })
        .collect();
    let scales: Vec<f64> = found
        .iter()
        .filter_map(|(_, m)| *m)
        .filter(|m| m.dx == 0.0 && m.dy == 0.0)
        .map(|m| m.scale)
        .collect();
    let shared = match scales.split_first() {
        Some((&first, rest)) if first != 1.0 && rest.iter().all(|&s| s == first) => Some(Mapping {
            scale: first,
            dx: 0.0,
            dy: 0.0,
        }),
        _ => None,
    };
    // Found in place away from the display's corner, where a toolkit that
    // reports places within the window (GTK 4) would report 0,0.
    let in_place = found.iter().any(|&(top, m)| {
        m == Some(Mapping::SAME) && tree.node(top).bounds.is_some_and(|b| (b.x, b.y) != (0, 0))
    });
    let mut mapped = 0;
    for (top, m) in found {
        let Some(m) = m.or(shared).filter(|m| *m != Mapping::SAME) else {
            continue;
        };
        for id in tree.subtree(top) {
            let node = tree.node_mut(id);
            node.bounds = node.bounds.map(|b| m.rect(b));
        }
        mapped += 1;
    }
    Placed {
        mapped,
        display_places: in_place && mapped == 0,
    }
}

/// What [`place_on_display`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Placed {
    /// Top-level windows whose subtrees were mapped.
    mapped: usize,
    /// Whether the capture shows its toolkit reporting the display's
    /// places: nothing needed mapping, and a top-level away from the
    /// display's corner was found where its window is. Its later captures
    /// need no mapping: a toolkit's scale and way of reporting do not
    /// change while it runs.
    display_places: bool,
}

/// `addr` and its ancestors up to the top-level window it is in (the one
/// whose parent is the application), innermost first; `None` when the
/// chain cannot be read or does not end at an application.
async fn ancestry(actor: &Actor<'_>, addr: &NodeAddr) -> Option<Vec<NodeAddr>> {
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

/// Whether the element says it is disabled: it reports states, and
/// `enabled` is not among them.
fn is_disabled(node: &NodeData) -> bool {
    !node.states.is_empty() && !node.states.contains(State::Enabled)
}

/// Whether `point` lies inside the table (or tree, or list) that holds a
/// cell and inside the nearest scroll pane or viewport around it, among the
/// ancestors in `chain` (see [`ancestry`]): the part of a scrolled table
/// that is on view. Those that report no extents are not asked; `false`
/// when a role cannot be read.
async fn in_sight(actor: &Actor<'_>, chain: &[NodeAddr], (x, y): (i32, i32)) -> bool {
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
async fn popover_elsewhere(actor: &Actor<'_>, chain: &[NodeAddr]) -> bool {
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
async fn blocking_modal(actor: &Actor<'_>, addr: &NodeAddr) -> Option<(Role, String)> {
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
fn is_application(node: &NodeAddr, parent: &NodeAddr) -> bool {
    parent.bus != node.bus
        || parent.path.ends_with("/accessible/root")
        || parent.path == "/org/a11y/atspi/null"
}

/// Whether the point is on the screen.
fn on_screen(x11: &X11, x: i32, y: i32) -> bool {
    let (w, h) = x11.screen_size();
    x >= 0 && y >= 0 && (x as u32) < w && (y as u32) < h
}

/// Makes sure the keys about to be synthesized reach `app`. The display
/// sends keys to the window with the input focus or, with no window manager
/// (focus `PointerRoot`), to the window under the pointer, which can be any
/// application's. When that window is another process's, the keyboard focus
/// goes to `app`'s window at `near` (the element the keys are for), else
/// to its topmost window, raised as a person would bring it to the front.
///
/// Returns what was done, as the start of a method (`""` when the keys
/// reach `app` already). When it cannot tell (no process id, an open menu
/// holding the keyboard, no window of `app` on the display), it leaves the
/// focus as it is.
fn keys_to(x11: &X11, app: &AppRef, near: Option<(i32, i32)>) -> Result<String> {
    let Some(pid) = app.pid else {
        return Ok(String::new());
    };
    match x11.keyboard_window()? {
        Some(holder) if holder.pid == Some(pid) => return Ok(String::new()),
        // A menu holds the keyboard (an input grab) wherever the focus is.
        _ if x11.menu_open().unwrap_or(true) => return Ok(String::new()),
        _ => {}
    }
    let at_element = near
        .filter(|&(x, y)| on_screen(x11, x, y))
        .and_then(|(x, y)| x11.window_at(x, y).ok().flatten())
        .filter(|w| w.pid == Some(pid))
        .map(|w| w.id);
    // Children of the root come bottom first: the last is on top.
    let topmost = || {
        x11.top_windows().ok().and_then(|all| {
            all.iter()
                .rev()
                .find(|w| w.viewable && !w.override_redirect && w.pid == Some(pid))
                .map(|w| w.id)
        })
    };
    let Some(id) = at_element.or_else(topmost) else {
        tracing::warn!(
            app = %app.label(),
            "keys may go to another application: no window of it found on the display"
        );
        return Ok(String::new());
    };
    x11.activate_window(id)?;
    Ok(format!("keyboard focus to window {id:#x}, then "))
}

/// What went wrong, naming what was being done.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// From the accessibility bus.
    #[error(transparent)]
    Atspi(#[from] uidelta_atspi::Error),
    /// From the X server.
    #[error(transparent)]
    X11(#[from] uidelta_x11::X11Error),
    /// The X display went away (the X server ended or restarted).
    #[error("the X display {display} is gone ({detail})")]
    DisplayLost {
        /// The display.
        display: String,
        /// What the connection answered.
        detail: String,
    },
    /// Synthesized input or a screenshot was needed, and the X display
    /// there should be cannot be reached (yet); see [`Reconnecting`].
    #[error("{doing}: {why}")]
    DisplayUnreachable {
        /// What needed it.
        doing: String,
        /// What connecting to it answered, and what is tried next.
        why: String,
    },
    /// Synthesized input or a screenshot was needed but there is no display.
    #[error("{doing}: no X display (set DISPLAY)")]
    NoDisplay {
        /// What needed it.
        doing: String,
    },
    /// The element has no bounds to click or scroll at.
    #[error("{doing}: the element offers no accessible action and has no bounds to click at")]
    NoBounds {
        /// What was being done.
        doing: String,
    },
    /// A disabled element offers no action and cannot be reached to click.
    #[error(
        "{doing}: the element is disabled: it offers no accessible action and is not on view \
         (applications ignore clicks on disabled elements)"
    )]
    Disabled {
        /// What was being done.
        doing: String,
    },
    /// A point outside the screen.
    #[error("{doing}: the point is off the screen, which is {}x{}", size.0, size.1)]
    OffScreen {
        /// What was being done.
        doing: String,
        /// The screen's width and height.
        size: (u32, u32),
    },
    /// An action other than a click asked for at a point.
    #[error("{doing}: only a click, right click or double click can be made at a point")]
    NotAClick {
        /// What was being done.
        doing: String,
    },
    /// The element has no platform identity (it came from a file).
    #[error("{doing}: the element has no AT-SPI identity; it must come from a live capture")]
    NoIdentity {
        /// What was being done.
        doing: String,
    },
    /// Starting a program failed, or it never showed a window.
    #[error("opening {}: {detail}", uidelta_backend::echo(.program))]
    Launch {
        /// The program.
        program: String,
        /// Why.
        detail: String,
    },
    /// No window matched.
    #[error("{0}")]
    NoWindow(String),
    /// Another window is on top of the element where the pointer would
    /// click it.
    #[error("{doing}: at {x},{y}, the element's centre, {by} is on top of it; close that window or bring the element's to the front first")]
    Covered {
        /// What was being done.
        doing: String,
        /// The point.
        x: i32,
        /// The point.
        y: i32,
        /// What is on top.
        by: String,
    },
    /// A modal window of the application blocks the element's window: a
    /// click there reaches nothing, and an accessible action would run the
    /// element's handler past the dialog (often into a second one, which
    /// GTK can deadlock on).
    #[error("{doing}: the {role} \"{title}\" of the same application is open and modal, so the element's window takes no input; answer that {role} first")]
    Blocked {
        /// What was being done.
        doing: String,
        /// The modal window's role.
        role: String,
        /// Its title.
        title: String,
    },
    /// Keys for an element that cannot take the keyboard focus: they
    /// would go to whatever has it. None were sent.
    #[error(
        "{doing}: {why}, so the keys would go to whatever has the keyboard focus; none were \
         sent (act on an element that takes the focus: an enabled, showing text field)"
    )]
    NoKeyboardFocus {
        /// What was being done.
        doing: String,
        /// Why the element cannot take the focus: `it is disabled`.
        why: String,
    },
    /// A table cell scrolled out of sight that its table would not
    /// select (through Selection or Table) and that offers no click of its
    /// own: its `activate` would run the row's default action (answer the
    /// dialog), which is not what a click does. Nothing was done.
    #[error(
        "{doing}: the table cell is out of sight, its table would not select it (Selection, \
         Table), and none of its own actions is a click (it has: {actions}; `activate` runs \
         the row's default action, as a double click does: invoke it by name for that)"
    )]
    CellOutOfSight {
        /// What was being done.
        doing: String,
        /// The cell's actions, listed.
        actions: String,
    },
    /// An item of a combo box's popup could not be picked.
    #[error("{doing}: {why}")]
    NotPicked {
        /// What was being done.
        doing: String,
        /// Why not.
        why: String,
    },
}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// The Linux desktop: one accessibility bus and, when there is a display,
/// one X connection.
pub struct Linux {
    bus: Bus,
    x11: Option<X11>,
    /// Why there is no `x11` where a display was asked for (see
    /// [`Error::DisplayUnreachable`]).
    display_why: Option<String>,
    /// Applications (by bus name) seen to report the display's places (see
    /// [`Placed::display_places`]): their captures need no window listing.
    on_display: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl Linux {
    /// Connects to the session's accessibility bus (`session` or
    /// `DBUS_SESSION_BUS_ADDRESS`) and X display (`display` or `DISPLAY`).
    /// Without a display, everything but synthesized input and screenshots
    /// works.
    pub async fn connect(session: Option<&str>, display: Option<&str>) -> Result<Linux> {
        let bus = Bus::connect(session).await?;
        let display = display
            .map(str::to_owned)
            .or_else(|| std::env::var("DISPLAY").ok().filter(|d| !d.is_empty()));
        let x11 = match display {
            Some(d) => Some(X11::connect(&d)?),
            None => None,
        };
        Ok(Linux {
            bus,
            x11,
            display_why: None,
            on_display: Default::default(),
        })
    }

    /// Whether the accessibility bus and the X display (if any) still
    /// answer on this connection: [`uidelta_atspi::Error::Lost`] or
    /// [`Error::DisplayLost`] when one went away (then nothing more can be
    /// done on this connection; see [`Reconnecting`]).
    pub async fn check(&self) -> Result<()> {
        self.bus.check().await?;
        if let Some(x11) = &self.x11 {
            x11.check().map_err(|e| Error::DisplayLost {
                display: x11.display().to_owned(),
                detail: match e {
                    uidelta_x11::X11Error::Failed { reason, .. } => reason.to_string(),
                    e => e.to_string(),
                },
            })?;
        }
        Ok(())
    }

    /// The accessibility bus.
    pub fn bus(&self) -> &Bus {
        &self.bus
    }

    /// Makes accessible actions through `program`'s `__keep-action`
    /// command, a helper that outlives this process until each action's
    /// handler has returned (see [`Bus::keep_actions_with`]): for a
    /// short-lived process, such as a command line.
    pub fn keep_actions_with(&mut self, program: std::path::PathBuf) {
        self.bus.keep_actions_with(program);
    }

    fn x11(&self, doing: impl FnOnce() -> String) -> Result<&X11> {
        self.x11.as_ref().ok_or_else(|| match &self.display_why {
            Some(why) => Error::DisplayUnreachable {
                doing: doing(),
                why: why.clone(),
            },
            None => Error::NoDisplay { doing: doing() },
        })
    }

    /// The applications on the bus and their windows.
    pub async fn apps(&self) -> Result<Vec<AppInfo>> {
        Ok(applications(&self.bus).await?)
    }

    /// Finds an application by name (or unique prefix).
    pub async fn app(&self, name: &str) -> Result<AppInfo> {
        Ok(find_app(&self.bus, name).await?)
    }

    /// Captures an application or one of its windows.
    pub async fn capture(
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
        let snapshot = capture(
            &self.bus,
            &app.app,
            window.map(|w| w.path.as_str()),
            window.map(|w| w.title.clone()),
            opts,
        )
        .await?;
        let snapshot = self.on_display(&app.app, snapshot);
        // Read once per application, by the capture itself: no call here.
        let profile = self.bus.profile(&app.app).await;
        if !profile.still_spinners_say_they_show() {
            return Ok(snapshot);
        }
        Ok(self.still_spinners_hidden(&app.app, snapshot))
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
        let windows = match x11.shown_windows() {
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

    /// Events of one application, for settling, handed to `sink` as they
    /// arrive (it must not wait; false stops them).
    pub async fn events(
        &self,
        app: &AppRef,
        sink: impl FnMut(UiEvent) -> bool + Send + 'static,
    ) -> Result<Subscription> {
        Ok(subscribe_with(&self.bus, Some(&app.bus_name), sink).await?)
    }

    /// The names of the accessible actions `node` (an element of a live
    /// capture of `app`) offers.
    pub async fn actions(&self, app: &AppRef, node: &NodeData) -> Result<Vec<String>> {
        let addr = node
            .identity
            .as_deref()
            .and_then(NodeAddr::from_identity)
            .ok_or_else(|| Error::NoIdentity {
                doing: format!("listing the actions of an element of {}", app.label()),
            })?;
        let label = app.label();
        Ok(Actor::new(&self.bus, &label).action_names(&addr).await?)
    }

    /// Performs `action` on `node` (an element of a live capture of `app`).
    pub async fn act(&self, app: &AppRef, node: &NodeData, action: &Action) -> Result<Done> {
        let doing = || format!("{} an element of {}", action.doing(), app.label());
        let addr = node
            .identity
            .as_deref()
            .and_then(NodeAddr::from_identity)
            .ok_or_else(|| Error::NoIdentity { doing: doing() })?;
        let label = app.label();
        let actor = Actor::new(&self.bus, &label);
        if matches!(action, Action::Click | Action::SetSelected(true)) {
            if let Some(done) = self.combo_pick(app, &actor, &addr, node, &doing).await? {
                return Ok(done);
            }
        }
        if *action == Action::Click {
            if matches!(node.role, Role::PushButton | Role::TableCell) || is_menu_item(node.role) {
                if let Some((role, title)) = blocking_modal(&actor, &addr).await {
                    return Err(Error::Blocked {
                        doing: doing(),
                        role: role.to_string(),
                        title,
                    });
                }
            }
            if let Some(done) = self.pointer_click(app, &actor, &addr, node).await? {
                return Ok(done);
            }
            if let Some(done) = self.menu_click(app, &actor, &addr, node).await? {
                return Ok(done);
            }
        }
        let accessible = match action {
            // A field's accessible action is `activate`, which is pressing
            // Enter in it; clicking a field is giving it the focus, as a
            // person's click does (else the pointer clicks it).
            Action::Click if node.is_text_field() => actor.focus(&addr).await?,
            // A cell the pointer cannot reach (scrolled out of sight) is
            // selected through its table, as a click would select it: its
            // `activate` is a double click (a dialog's list answers the
            // dialog with it), never run in a click's place.
            Action::Click if node.role == Role::TableCell => {
                match actor.set_selected(&addr, true).await? {
                    Outcome::NeedsInput => {
                        return self.click_cell(app, &actor, &addr, node, &doing).await
                    }
                    selected => selected,
                }
            }
            Action::Click => actor.click(&addr).await?,
            Action::Type(text) => actor.type_text(&addr, text).await?,
            Action::SetValue(v) => actor.set_value(&addr, v).await?,
            Action::SetSelected(on) => actor.set_selected(&addr, *on).await?,
            Action::Focus => actor.focus(&addr).await?,
            Action::Invoke(name) => actor.invoke(&addr, name).await?,
            Action::Scroll { dx: 0, dy: 0 } => actor.scroll_into_view(&addr).await?,
            Action::RightClick | Action::DoubleClick | Action::Key(_) | Action::Scroll { .. } => {
                Outcome::NeedsInput
            }
        };
        if let Outcome::Done(method) = accessible {
            return Ok(Done { method });
        }
        if matches!(action, Action::SetSelected(_))
            && node.role == Role::TableCell
            && actor.extents(&addr).await.ok().and_then(rect_of).is_none()
        {
            return self.cell_out_of_sight(&actor, &addr, &doing).await;
        }
        self.synthesize(app, &actor, &addr, node, action, &doing)
            .await
    }

    /// Clicks a table cell that neither the pointer could reach nor its
    /// table could select: scrolled into view (Component.ScrollTo), then
    /// clicked with the pointer; else through a click action of its own
    /// (never its `activate` or `edit`: see [`Actor::click_cell`]); else
    /// with the pointer at its centre, when it has a place. A cell with
    /// none of these is an error ([`Error::CellOutOfSight`]): nothing was
    /// done.
    async fn click_cell(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
        doing: &(dyn Fn() -> String + Sync),
    ) -> Result<Done> {
        if let Outcome::Done(scrolled) = actor.scroll_into_view(addr).await? {
            let states = actor.states(addr).await.unwrap_or_default();
            let moved = NodeData {
                states,
                ..node.clone()
            };
            if let Some(d) = self.pointer_click(app, actor, addr, &moved).await? {
                return Ok(Done {
                    method: format!("{scrolled}, then {}", d.method),
                });
            }
        }
        if let Outcome::Done(method) = actor.click_cell(addr).await? {
            return Ok(Done { method });
        }
        if actor.extents(addr).await.ok().and_then(rect_of).is_none() {
            return self.cell_out_of_sight(actor, addr, doing).await;
        }
        self.synthesize(app, actor, addr, node, &Action::Click, doing)
            .await
    }

    /// The error for a table cell out of sight that its table would not
    /// select, naming the cell's own actions.
    async fn cell_out_of_sight(
        &self,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        doing: &(dyn Fn() -> String + Sync),
    ) -> Result<Done> {
        let actions = match actor.action_names(addr).await {
            Ok(names) if !names.is_empty() => names.join(", "),
            _ => "none".to_owned(),
        };
        Err(Error::CellOutOfSight {
            doing: doing(),
            actions,
        })
    }

    /// Clicks a push button, or an item of an open menu, with the pointer,
    /// as a person would, when the pointer can reach it: it is showing and
    /// enabled, its centre is on the screen, the window on top there belongs
    /// to the application, and (for a push button) no open menu holds the
    /// pointer. `None` when it cannot; the accessible action is used then.
    ///
    /// The pointer comes first because it is what a person does, and
    /// because GTK runs the handler of a button or a menu item inside the
    /// dispatch of the accessible action's call: a handler that opens a
    /// modal dialog with `gtk_dialog_run` holds that dispatch until the
    /// dialog closes. Over the application's direct connection, which
    /// `DoAction` takes when there is one, that is harmless; over the bus,
    /// the application stops answering and the dialog cannot be read.
    async fn pointer_click(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
    ) -> Result<Option<Done>> {
        let (Some(x11), Some(_)) = (self.x11.as_ref(), app.pid) else {
            return Ok(None);
        };
        // Push buttons and menu items are what opens dialogs. A table
        // cell's accessible action is no click: GTK's `activate` is a double
        // click (the row is activated: gtk3-demo runs the demo), and its
        // `toggle` leaves a check box cell as it was. Other elements keep
        // their accessible action, which also works when the application
        // holds its own input grab (as GTK can after a combo box selection
        // made through accessibility) and a pointer click would go nowhere.
        // A menu item is only showing while its menu is open, and the click
        // then lands inside that menu.
        let in_menu = is_menu_item(node.role);
        let cell = node.role == Role::TableCell;
        if node.role != Role::PushButton && !in_menu && !cell {
            return Ok(None);
        }
        let not_used = |why: &str| {
            tracing::debug!(role = %node.role, name = %node.name, "no pointer click: {why}");
            Ok(None)
        };
        let shown = [State::Showing, State::Visible, State::Enabled];
        if !shown.iter().all(|s| node.states.contains(*s)) {
            return not_used("not showing, visible and enabled");
        }
        let Some(bounds) = actor.extents(addr).await.ok().and_then(rect_of) else {
            return not_used("no extents");
        };
        // When another window is on top there (a dialog of the same
        // application), or the X server cannot tell, the accessible action
        // is the safe choice.
        let Some(chain) = ancestry(actor, addr).await else {
            return not_used("its ancestry could not be read");
        };
        // A cell scrolled out of its pane may still report a place in the
        // window, where the pointer would reach something else.
        if cell && !in_sight(actor, &chain, bounds.center()).await {
            return not_used("out of its scroll pane's sight");
        }
        let ((cx, cy), reach) = self
            .aim_along(x11, app, actor, &chain, bounds.center())
            .await;
        if reach != Reach::Element || !on_screen(x11, cx, cy) {
            return not_used(&format!("{reach:?} at {cx},{cy}"));
        }
        // An open menu holds the pointer: a click outside it would only
        // close it. So does a popover open elsewhere in the window (GTK 3
        // draws it inside the window, where the X server cannot see it).
        if !in_menu && x11.menu_open().unwrap_or(true) {
            return not_used("a menu is open");
        }
        if !in_menu && popover_elsewhere(actor, &chain).await {
            return not_used("a popover is open elsewhere in the window");
        }
        x11.click(cx, cy, Button::Left, 1)?;
        Ok(Some(Done {
            method: format!("XTest click at {cx},{cy}"),
        }))
    }

    /// Clicks an item of a closed menu of a menu bar as a person would:
    /// opens the menus on the way to it, then clicks it with the pointer.
    /// `None` when the item is not in a menu bar's menu, or its menus do not
    /// open in time; the accessible action is used then.
    ///
    /// For the same reason as [`Linux::pointer_click`]: the accessible
    /// action on a menu item runs its handler inside the call, and many
    /// File > Open... and Preferences items run a modal dialog there.
    async fn menu_click(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
    ) -> Result<Option<Done>> {
        // A disabled item cannot be clicked: its menus stay closed.
        if !is_menu_item(node.role)
            || self.x11.is_none()
            || node.states.contains(State::Showing)
            || is_disabled(node)
        {
            return Ok(None);
        }
        // The menus between the item and the menu bar, innermost first.
        let mut menus = Vec::new();
        let mut at = addr.clone();
        loop {
            let Ok(parent) = actor.parent(&at).await else {
                return Ok(None);
            };
            match actor.role(&parent).await {
                Ok(Role::Menu) if menus.len() < MENU_DEPTH => menus.push(parent.clone()),
                Ok(Role::MenuBar) if !menus.is_empty() => break,
                _ => return Ok(None),
            }
            at = parent;
        }
        // Open them from the menu bar inwards; each must show the next step.
        // Whatever stops the way closes the menus opened so far, so that the
        // accessible action used instead starts from the UI as it was.
        let steps: Vec<&NodeAddr> = menus.iter().rev().chain([addr]).collect();
        let mut opened = 0;
        for pair in steps.windows(2) {
            let (menu, next) = (pair[0], pair[1]);
            if !self.showing(actor, next).await {
                if !matches!(actor.click(menu).await, Ok(Outcome::Done(_))) {
                    return Ok(self.close_menus(opened));
                }
                opened += 1;
                if !self.wait_showing(actor, next).await {
                    return Ok(self.close_menus(opened));
                }
            }
        }
        let Ok(states) = actor.states(addr).await else {
            return Ok(self.close_menus(opened));
        };
        let shown = NodeData {
            states,
            ..node.clone()
        };
        match self.pointer_click(app, actor, addr, &shown).await {
            Ok(Some(d)) => Ok(Some(Done {
                method: format!("menus opened, then {}", d.method),
            })),
            Ok(None) => Ok(self.close_menus(opened)),
            Err(e) => {
                self.close_menus(opened);
                Err(e)
            }
        }
    }

    /// Closes up to `opened` menus this action opened, one Escape each while
    /// a menu is still open. Always `None`: the caller goes on without them.
    fn close_menus(&self, opened: usize) -> Option<Done> {
        let x11 = self.x11.as_ref()?;
        for _ in 0..opened {
            if !x11.menu_open().unwrap_or(false) {
                break;
            }
            if let Err(e) = x11.key("Escape") {
                tracing::warn!("closing a menu opened on the way to an item: {e}");
                break;
            }
        }
        None
    }

    /// Picks an item of a combo box that offers no selection to
    /// accessibility (Qt's): opens the combo box's popup, then clicks the
    /// item in it with the pointer. Qt keeps the items in the tree, marked
    /// showing, while the popup is closed; selecting one there only marks
    /// it in the hidden list, and a click at its place lands on whatever
    /// the window shows there. `None` when the item is not in such a combo
    /// box; an error when the popup does not open in time or the item
    /// cannot be clicked in it (the popup is closed again then).
    async fn combo_pick(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
        doing: &(dyn Fn() -> String + Sync),
    ) -> Result<Option<Done>> {
        let (Some(x11), Some(_)) = (self.x11.as_ref(), app.pid) else {
            return Ok(None);
        };
        if node.role != Role::ListItem {
            return Ok(None);
        }
        let Ok(list) = actor.parent(addr).await else {
            return Ok(None);
        };
        let Ok(combo) = actor.parent(&list).await else {
            return Ok(None);
        };
        if !matches!(actor.role(&combo).await, Ok(Role::ComboBox))
            || actor
                .has(&combo, "org.a11y.atspi.Selection")
                .await
                .unwrap_or(true)
        {
            return Ok(None);
        }
        let failed = |why: String| Error::NotPicked {
            doing: doing(),
            why,
        };
        let mut opened = String::new();
        if !x11.menu_open().unwrap_or(false) {
            let Ok(Outcome::Done(method)) = actor.click(&combo).await else {
                return Err(failed(
                    "its combo box offers no action to open its popup".into(),
                ));
            };
            let end = Instant::now() + MENU_OPENS;
            while !x11.menu_open().unwrap_or(false) {
                if Instant::now() >= end {
                    return Err(failed(format!(
                        "the combo box's popup did not open within {} ms of {method}",
                        MENU_OPENS.as_millis()
                    )));
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            opened = format!("{method} on the combo box, then ");
        }
        // What cannot be clicked leaves the popup closed, as it was.
        let close = |why: String| {
            if !opened.is_empty() {
                if let Err(e) = x11.key("Escape") {
                    tracing::warn!("closing a combo box popup: {e}");
                }
            }
            Err(failed(why))
        };
        // Qt gives an item the width of its column, wider than the popup:
        // the part inside the list is what shows.
        let item = actor.extents(addr).await.ok().and_then(rect_of);
        let area = actor.extents(&list).await.ok().and_then(rect_of);
        let Some(shown) = item.and_then(|i| area.map_or(Some(i), |a| i.intersection(&a))) else {
            return close("the item has no place in the combo box's popup".into());
        };
        let ((cx, cy), reach) = self.aim(x11, app, actor, addr, shown.center()).await;
        if reach != Reach::Element {
            return close(format!(
                "the item's place in the popup, {cx},{cy}, is not the popup's window"
            ));
        }
        x11.click(cx, cy, Button::Left, 1)?;
        Ok(Some(Done {
            method: format!("{opened}XTest click at {cx},{cy}"),
        }))
    }

    /// Where on the display a pointer event for `point`, a point of the
    /// element `addr` of `app` as accessibility reports it, goes, and what
    /// it would reach there (see [`Linux::reach`]). When the element's
    /// window is not found at the point as reported, the toolkit's
    /// coordinates are taken not to be the display's (see [`Mapping`]): the
    /// mapping is read from the element's top-level window and the
    /// application's window in its place, and the point mapped.
    async fn aim(
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
    async fn aim_along(
        &self,
        x11: &X11,
        app: &AppRef,
        actor: &Actor<'_>,
        chain: &[NodeAddr],
        point: (i32, i32),
    ) -> ((i32, i32), Reach) {
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

    /// How `app`'s coordinates map to the display's, read from the
    /// top-level window at the end of `chain` (see [`ancestry`]) and the
    /// application's window that is it (see [`window_mapping`]).
    async fn mapping(
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
    async fn reach(
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
    async fn another_window_named(
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

    async fn showing(&self, actor: &Actor<'_>, node: &NodeAddr) -> bool {
        actor
            .states(node)
            .await
            .is_ok_and(|s| s.contains(State::Showing))
    }

    /// Waits up to [`MENU_OPENS`] for `node` to show.
    async fn wait_showing(&self, actor: &Actor<'_>, node: &NodeAddr) -> bool {
        let end = Instant::now() + MENU_OPENS;
        while Instant::now() < end {
            if self.showing(actor, node).await {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }

    async fn synthesize(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
        action: &Action,
        doing: &(dyn Fn() -> String + Sync),
    ) -> Result<Done> {
        let x11 = self.x11(doing)?;
        // Read fresh, in the toolkit's coordinates, which [`Linux::aim`]
        // maps: the snapshot's bounds are the display's already.
        let centre = || async {
            actor
                .extents(addr)
                .await
                .ok()
                .and_then(rect_of)
                .map(Rect::center)
                .ok_or_else(|| {
                    if is_disabled(node) {
                        Error::Disabled { doing: doing() }
                    } else {
                        Error::NoBounds { doing: doing() }
                    }
                })
        };
        // The point must reach the element, not a window on top of it.
        let reach = |point: (i32, i32)| async move {
            match self.aim(x11, app, actor, addr, point).await {
                ((x, y), Reach::Covered(by)) => Err(Error::Covered {
                    doing: doing(),
                    x,
                    y,
                    by,
                }),
                (at, Reach::Element | Reach::Unknown) => Ok(at),
            }
        };
        let method = match action {
            Action::Click | Action::RightClick | Action::DoubleClick => {
                let (x, y) = reach(centre().await?).await?;
                let Some((button, count, what)) = pointer_of(action) else {
                    return Err(Error::NotAClick { doing: doing() });
                };
                x11.click(x, y, button, count)?;
                format!("XTest {what} at {x},{y}")
            }
            Action::Type(text) => {
                let moved = self
                    .focus_for_keys(app, actor, addr, node, x11, doing)
                    .await?;
                x11.type_text(text)?;
                format!("{moved}XTest keys")
            }
            Action::Key(chord) => {
                let moved = self
                    .focus_for_keys(app, actor, addr, node, x11, doing)
                    .await?;
                x11.key(chord)?;
                format!("{moved}XTest {chord}")
            }
            Action::Scroll { dx, dy } => {
                let (x, y) = reach(centre().await?).await?;
                x11.scroll(x, y, *dx, *dy)?;
                format!("XTest wheel {dx},{dy} at {x},{y}")
            }
            Action::Focus | Action::SetSelected(_) => {
                let (x, y) = reach(centre().await?).await?;
                x11.click(x, y, Button::Left, 1)?;
                format!("XTest click at {x},{y}")
            }
            // A field without EditableText: all of its text selected, then
            // replaced with the keys of the new text (or deleted).
            Action::SetValue(text) if node.role.is_text_input() => {
                let moved = self
                    .focus_for_keys(app, actor, addr, node, x11, doing)
                    .await?;
                x11.key("ctrl+a")?;
                if text.is_empty() {
                    x11.key("BackSpace")?;
                } else {
                    x11.type_text(text)?;
                }
                format!("{moved}XTest ctrl+a, then keys")
            }
            Action::SetValue(_) | Action::Invoke(_) => {
                return Err(Error::NoBounds { doing: doing() });
            }
        };
        Ok(Done { method })
    }

    /// Keys go to the focused element: focus it accessibly, or click it;
    /// then make sure the display sends keys to its window (see
    /// [`keys_to`]). Returns what was done to the window focus, for
    /// the method.
    ///
    /// An element that cannot take the focus (disabled, not showing, not
    /// focusable), or that did not take it, is an error
    /// ([`Error::NoKeyboardFocus`]): the keys would land in whatever has
    /// the focus, another field or another application.
    async fn focus_for_keys(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
        x11: &X11,
        doing: &(dyn Fn() -> String + Sync),
    ) -> Result<String> {
        if node.role == Role::Application {
            // Keys for the application as a whole: its focused element.
            return keys_to(x11, app, None);
        }
        let refuse = |why: &str| Error::NoKeyboardFocus {
            doing: doing(),
            why: why.to_owned(),
        };
        // Read fresh: the capture may be older than a change of state. A
        // toolkit that reports no states at all says nothing either way.
        let states = actor.states(addr).await.unwrap_or_default();
        let reported = !states.is_empty();
        if reported && !states.contains(State::Enabled) {
            return Err(refuse("the element is disabled"));
        }
        if reported && !states.contains(State::Showing) {
            return Err(refuse("the element is not showing"));
        }
        let focusable = states.contains(State::Focusable);
        // Where the element is on the display, unless another window is on
        // top of it there.
        // Read fresh, in the toolkit's coordinates (see `synthesize`).
        let fresh = actor.extents(addr).await.ok().and_then(rect_of);
        let point = match fresh.map(Rect::center) {
            Some(centre) => match self.aim(x11, app, actor, addr, centre).await {
                (_, Reach::Covered(_)) => None,
                (point, _) => Some(point),
            },
            None => None,
        };
        let grabbed = matches!(actor.focus(addr).await, Ok(Outcome::Done(_)));
        if !grabbed {
            if reported && !focusable {
                return Err(refuse("the element cannot take the keyboard focus"));
            }
            if let Some((x, y)) = point {
                x11.click(x, y, Button::Left, 1)?;
            }
        }
        let moved = keys_to(x11, app, point)?;
        // The focus is the toolkit's to give: it says so once its window
        // has the keyboard.
        if reported && focusable && !self.takes_focus(actor, addr).await {
            return Err(refuse(if grabbed {
                "the element did not take the keyboard focus when asked (Component.GrabFocus)"
            } else {
                "the element did not take the keyboard focus when clicked"
            }));
        }
        Ok(moved)
    }

    /// Waits up to [`FOCUS_MOVES`] for `node` to report the focus.
    async fn takes_focus(&self, actor: &Actor<'_>, node: &NodeAddr) -> bool {
        let end = Instant::now() + FOCUS_MOVES;
        loop {
            if actor
                .states(node)
                .await
                .is_ok_and(|s| s.contains(State::Focused))
            {
                return true;
            }
            if Instant::now() >= end {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Clicks (`Action::Click`, `RightClick` or `DoubleClick`) at a point
    /// of the screen, whatever is there.
    pub fn click_at(&self, x: i32, y: i32, action: &Action) -> Result<Done> {
        let doing = || format!("{} the point {x},{y}", action.doing());
        let x11 = self.x11(doing)?;
        let Some((button, count, what)) = pointer_of(action) else {
            return Err(Error::NotAClick { doing: doing() });
        };
        if !on_screen(x11, x, y) {
            return Err(Error::OffScreen {
                doing: doing(),
                size: x11.screen_size(),
            });
        }
        x11.click(x, y, button, count)?;
        Ok(Done {
            method: format!("XTest {what} at {x},{y}"),
        })
    }

    /// Presses a key or chord in `app`, where its keyboard focus is. When
    /// the display would send the keys to another application's window
    /// (the focused one, or with no window manager the one under the
    /// pointer), `app`'s topmost window is raised and given the keyboard
    /// first, and the method says so.
    pub fn key(&self, app: &AppRef, chord: &str) -> Result<Done> {
        let x11 = self.x11(|| format!("pressing {chord} in {}", app.label()))?;
        let moved = keys_to(x11, app, None)?;
        x11.key(chord)?;
        Ok(Done {
            method: format!("{moved}XTest {chord}"),
        })
    }

    /// A PNG of the screen, or of an area of it (clipped to the screen).
    pub fn screenshot(&self, area: Option<Rect>) -> Result<Vec<u8>> {
        let x11 = self.x11(|| "taking a screenshot".into())?;
        let area = area.map(|r| (r.x, r.y, r.w.max(1) as u32, r.h.max(1) as u32));
        Ok(x11.screenshot(area)?)
    }

    /// The screen bounds of an application's window, read fresh: the X
    /// window's (frame included) when the display has one of the
    /// application's under that title, since toolkits that report places
    /// within their window (GTK 4) or in unscaled pixels give extents that
    /// are not the display's; else the extents the toolkit reports.
    pub async fn window_bounds(&self, app: &AppInfo, title: &str) -> Result<Rect> {
        let w = pick_window(&app.windows, title, &app.app.label())?;
        let on_display = (self.x11.is_some() && !w.title.is_empty())
            .then(|| self.x_window(app, &w.title).ok())
            .flatten();
        if let Some(t) = on_display {
            let (x, y, wd, h) = t.outer;
            let size = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
            return Ok(Rect::new(x, y, size(wd), size(h)));
        }
        let label = app.app.label();
        let addr = NodeAddr {
            bus: app.app.bus_name.clone(),
            path: w.path.clone(),
        };
        let (x, y, wd, h) = Actor::new(&self.bus, &label).extents(&addr).await?;
        Ok(Rect::new(x, y, wd, h))
    }

    fn x_window(&self, app: &AppInfo, title: &str) -> Result<TopWindow> {
        let x11 = self.x11(|| format!("finding window `{title}` of {}", app.app.label()))?;
        let windows = x11.top_windows()?;
        let wanted = title.to_lowercase();
        windows
            .iter()
            .filter(|w| w.viewable && !w.override_redirect)
            .filter(|w| app.app.pid.is_none() || w.pid == app.app.pid)
            .find(|w| w.title.to_lowercase() == wanted)
            .or_else(|| {
                windows
                    .iter()
                    .filter(|w| w.viewable && !w.override_redirect && w.pid == app.app.pid)
                    .find(|w| w.title.to_lowercase().starts_with(&wanted))
            })
            .cloned()
            .ok_or_else(|| {
                Error::NoWindow(format!(
                    "{} has no X window titled `{}` on the display",
                    app.app.label(),
                    uidelta_backend::echo(title)
                ))
            })
    }

    /// The X window that is `window`, a top-level element of a capture of
    /// `app`: the one with its title; of several with that title (gtk3-demo
    /// titles its main window after the demo it runs), the one whose place
    /// fits the element's extents, read fresh.
    async fn x_window_of(&self, app: &AppInfo, window: &NodeData) -> Result<TopWindow> {
        let title = window.name.as_str();
        let x11 = self.x11(|| format!("finding window `{title}` of {}", app.app.label()))?;
        let windows = x11.top_windows()?;
        let wanted = title.to_lowercase();
        let same: Vec<&TopWindow> = windows
            .iter()
            .filter(|w| w.viewable && !w.override_redirect)
            .filter(|w| app.app.pid.is_none() || w.pid == app.app.pid)
            .filter(|w| w.title.to_lowercase() == wanted)
            .collect();
        if same.len() < 2 {
            return self.x_window(app, title);
        }
        let label = app.app.label();
        let fresh = match window.identity.as_deref().and_then(NodeAddr::from_identity) {
            Some(addr) => Actor::new(&self.bus, &label)
                .extents(&addr)
                .await
                .ok()
                .and_then(rect_of),
            None => None,
        };
        let fitting: Vec<&&TopWindow> = match fresh.or(window.bounds) {
            Some(extents) => same
                .iter()
                .filter(|w| mapping_between(extents, w.outer, w.inner).is_some())
                .collect(),
            None => Vec::new(),
        };
        match fitting[..] {
            [w] => Ok((*w).clone()),
            _ => Err(Error::NoWindow(format!(
                "{label} has {} windows titled `{title}` on the display, and their places do not \
                 tell which one is meant",
                same.len()
            ))),
        }
    }

    /// Asks a window to close, as its title bar's close button would.
    pub fn close_window(&self, app: &AppInfo, title: &str) -> Result<Done> {
        self.close_x_window(self.x_window(app, title)?)
    }

    /// [`Linux::close_window`] for `window`, a top-level element of a
    /// capture of `app`, told apart from others with its title.
    pub async fn close_window_of(&self, app: &AppInfo, window: &NodeData) -> Result<Done> {
        self.close_x_window(self.x_window_of(app, window).await?)
    }

    fn close_x_window(&self, w: TopWindow) -> Result<Done> {
        self.x11(|| "closing a window".into())?.close_window(w.id)?;
        Ok(Done {
            method: format!("WM_DELETE_WINDOW to {:#x}", w.id),
        })
    }

    /// Raises a window and gives it the keyboard focus.
    pub fn activate_window(&self, app: &AppInfo, title: &str) -> Result<Done> {
        self.activate_x_window(self.x_window(app, title)?)
    }

    /// [`Linux::activate_window`] for `window`, a top-level element of a
    /// capture of `app`, told apart from others with its title.
    pub async fn activate_window_of(&self, app: &AppInfo, window: &NodeData) -> Result<Done> {
        self.activate_x_window(self.x_window_of(app, window).await?)
    }

    fn activate_x_window(&self, w: TopWindow) -> Result<Done> {
        self.x11(|| "activating a window".into())?
            .activate_window(w.id)?;
        Ok(Done {
            method: format!("raise and focus {:#x}", w.id),
        })
    }

    /// Starts a program (with `extra_env` added to this process's
    /// environment) and waits until it is on the accessibility bus with a
    /// window, or `timeout` passes.
    ///
    /// The application may run under another pid than the program's: a
    /// launcher (the `libreoffice` shell script, which starts `soffice.bin`)
    /// starts it. The answer is the application with a window whose process
    /// the program started (it, a descendant, or in its process group); once the program
    /// has exited (it handed over, or forked away and left), the one
    /// application that appeared on the bus with a window since the launch,
    /// when exactly one did. A program that failed, or that exited and left
    /// nothing running and no new application within 10 s, is an
    /// error that says how it ended.
    pub async fn open_application(
        &self,
        program: &str,
        args: &[String],
        extra_env: &[(String, String)],
        timeout: Duration,
    ) -> Result<AppInfo> {
        let launch_error = |detail: String| Error::Launch {
            program: program.to_owned(),
            detail,
        };
        self.publish_bus_address();
        let before: std::collections::HashSet<String> = match applications(&self.bus).await {
            Ok(apps) => apps.into_iter().map(|a| a.app.bus_name).collect(),
            Err(e) => {
                tracing::debug!(error = %e, "listing applications before a launch");
                Default::default()
            }
        };
        let (log, stderr) = StderrLog::create(program);
        let mut command = std::process::Command::new(program);
        command
            .args(args)
            .env("NO_AT_BRIDGE", "0")
            .env("GTK_A11Y", "atspi")
            .env("ACCESSIBILITY_ENABLED", "1")
            .envs(extra_env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(stderr);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => {
                log.remove();
                return Err(launch_error(e.to_string()));
            }
        };
        let pid = child.id();
        let started = Instant::now();
        // When and how the program exited, once it has.
        let mut exited: Option<(Instant, String)> = None;
        loop {
            if exited.is_none() {
                if let Ok(Some(status)) = child.try_wait() {
                    let ended = how_it_ended(status, &log.last_lines());
                    if !status.success() {
                        log.remove();
                        return Err(launch_error(format!(
                            "it exited before showing a window ({ended})"
                        )));
                    }
                    tracing::debug!(pid, "the program exited; looking for what it started");
                    exited = Some((Instant::now(), ended));
                }
            }
            if let Ok(apps) = applications(&self.bus).await {
                let shown = |a: &&AppInfo| a.windows.iter().any(|w| w.showing);
                let ours = apps
                    .iter()
                    .filter(shown)
                    .find(|a| a.app.pid.is_some_and(|p| launch::started_by(p, pid)));
                let appeared = || {
                    let new: Vec<&AppInfo> = apps
                        .iter()
                        .filter(shown)
                        .filter(|a| !before.contains(&a.app.bus_name))
                        .collect();
                    match new[..] {
                        [one] => Some(one),
                        _ => None,
                    }
                };
                let found = match ours {
                    Some(app) => Some(app),
                    None if exited.is_some() => appeared(),
                    None => None,
                };
                if let Some(app) = found {
                    if app.app.pid != Some(pid) {
                        tracing::debug!(pid, app = %app.app.label(), "the program started it");
                    }
                    if exited.is_some() {
                        log.remove();
                    } else {
                        if let Some(path) = log.path() {
                            tracing::debug!(pid, log = %path.display(), "its stderr goes to a log");
                        }
                        reap_when_it_exits(child, log);
                    }
                    return Ok(app.clone());
                }
            }
            if let Some((at, ended)) = &exited {
                if at.elapsed() >= FORKED_AWAY && !launch::group_runs(pid) {
                    log.remove();
                    return Err(launch_error(format!(
                        "it exited before showing a window ({ended}), leaving nothing running, \
                         and no new application showed a window on the accessibility bus \
                         within {} ms",
                        FORKED_AWAY.as_millis()
                    )));
                }
            }
            if started.elapsed() >= timeout {
                let said = end_of_stderr(&log.last_lines())
                    .map(|s| format!("; {s}"))
                    .unwrap_or_default();
                // It may still come up; it is left running, as the caller
                // asked for it, and reaped when it exits.
                if exited.is_some() {
                    log.remove();
                } else {
                    reap_when_it_exits(child, log);
                }
                return Err(launch_error(format!(
                    "no window of pid {pid} or of a process it started on the accessibility bus \
                     after {} ms (is the program accessible? GTK needs at-spi2-core){said}",
                    timeout.as_millis()
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Puts the accessibility bus address on the display (`AT_SPI_BUS` on
    /// the root window) when it is not there, as the bus launcher does at
    /// login. An X server that has reset since (Xvfb does when its last
    /// client leaves, unless started with `-noreset`) has lost it, and a Qt 5
    /// application started then is missing from the bus. Failing to is
    /// logged, not an error: the program may not need it.
    fn publish_bus_address(&self) {
        let Some(x11) = self.x11.as_ref() else {
            return;
        };
        match x11.accessibility_bus() {
            Ok(Some(_)) => {}
            Ok(None) => match x11.publish_accessibility_bus(self.bus.address()) {
                Ok(()) => tracing::info!(
                    display = x11.display(),
                    "published the accessibility bus address on the display (AT_SPI_BUS)"
                ),
                Err(e) => {
                    tracing::warn!("no AT_SPI_BUS on the display, and setting it failed: {e}")
                }
            },
            Err(e) => tracing::warn!("{e}"),
        }
    }
}

fn pick_window<'w>(windows: &'w [WindowInfo], title: &str, app: &str) -> Result<&'w WindowInfo> {
    let wanted = title.to_lowercase();
    let exact: Vec<&WindowInfo> = windows
        .iter()
        .filter(|w| w.title.to_lowercase() == wanted)
        .collect();
    let found: Vec<&WindowInfo> = if exact.is_empty() {
        windows
            .iter()
            .filter(|w| w.title.to_lowercase().starts_with(&wanted))
            .collect()
    } else {
        exact
    };
    let title = uidelta_backend::echo(title);
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::NoWindow(format!(
            "{app} has no window titled `{title}`; its windows: {}",
            titles(windows.iter())
        ))),
        many => Err(Error::NoWindow(format!(
            "`{title}` matches several windows of {app}: {}",
            titles(many.iter().copied())
        ))),
    }
}

fn focused_window<'w>(windows: &'w [WindowInfo], app: &str) -> Result<&'w WindowInfo> {
    windows
        .iter()
        .find(|w| w.active)
        .or_else(|| {
            let showing: Vec<&WindowInfo> = windows.iter().filter(|w| w.showing).collect();
            (showing.len() == 1).then(|| showing[0])
        })
        .ok_or_else(|| {
            Error::NoWindow(format!(
                "{app} has no active window; its windows: {}",
                titles(windows.iter())
            ))
        })
}

fn titles<'w>(windows: impl Iterator<Item = &'w WindowInfo>) -> String {
    let list: Vec<String> = windows.map(|w| format!("{:?}", w.title)).collect();
    if list.is_empty() {
        "none".into()
    } else {
        list.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(outer: uidelta_x11::Area, inner: uidelta_x11::Area) -> WindowAt {
        WindowAt {
            id: 0x40_0003,
            pid: Some(10),
            title: "Cover".into(),
            override_redirect: false,
            outer,
            inner,
        }
    }

    #[test]
    fn a_window_is_the_element_window_with_or_without_its_frame_and_shadow() {
        // No window manager: the extents are the window.
        let bare = window((391, 282, 500, 500), (391, 282, 500, 500));
        assert!(same_window(Rect::new(391, 282, 500, 500), &bare));
        // A frame with a 19 px title bar: toolkits report the frame...
        let framed = window((390, 263, 502, 521), (391, 282, 500, 500));
        assert!(same_window(Rect::new(390, 263, 502, 521), &framed));
        // ...or the inside.
        assert!(same_window(Rect::new(391, 282, 500, 500), &framed));
        // A client-side shadow of 30 px inside the window, outside the
        // extents.
        let shadowed = window((361, 252, 560, 560), (361, 252, 560, 560));
        assert!(same_window(Rect::new(391, 282, 500, 500), &shadowed));
    }

    #[test]
    fn a_smaller_or_a_larger_window_elsewhere_is_another_window() {
        let dialog = window((457, 185, 454, 392), (457, 185, 454, 392));
        // The main window under a dialog centred on it.
        assert!(!same_window(Rect::new(0, 0, 1366, 741), &dialog));
        // A dialog under a maximized main window.
        let main = window((0, 0, 1366, 741), (0, 0, 1366, 741));
        assert!(!same_window(Rect::new(457, 185, 454, 392), &main));
        // Moved by more than a frame's width.
        assert!(!same_window(Rect::new(460, 185, 454, 392), &dialog));
    }

    fn top(outer: uidelta_x11::Area, inner: uidelta_x11::Area) -> TopWindow {
        TopWindow {
            id: 0x80_0004,
            pid: Some(10),
            title: "GTK Demo".into(),
            viewable: true,
            override_redirect: false,
            outer,
            inner,
        }
    }

    #[test]
    fn toolkit_coordinates_are_mapped_to_the_display() {
        // GTK 3 with GDK_SCALE=2 under a window manager: the frame's
        // extents, unscaled.
        let scaled = top((140, 0, 1002, 1023), (141, 20, 1000, 998));
        let m = mapping_between(Rect::new(70, 0, 501, 512), scaled.outer, scaled.inner)
            .expect("scale 2");
        assert_eq!((m.scale, m.dx, m.dy), (2.0, 0.0, 0.0));
        assert_eq!(m.point((320, 174)), (640, 348));
        // GTK 4: within the window, whose content sits in a 5 px border.
        let gtk4 = top((480, 424, 800, 600), (480, 424, 800, 600));
        let m = mapping_between(Rect::new(0, 0, 790, 590), gtk4.outer, gtk4.inner)
            .expect("window coordinates");
        assert_eq!((m.scale, m.dx, m.dy), (1.0, 485.0, 429.0));
        assert_eq!(
            m.rect(Rect::new(13, 51, 197, 36)),
            Rect::new(498, 480, 197, 36)
        );
        // Screen coordinates already: nothing to map.
        let plain = top((391, 282, 500, 500), (391, 282, 500, 500));
        let m = mapping_between(Rect::new(391, 282, 500, 500), plain.outer, plain.inner)
            .expect("the same");
        assert_eq!(m, Mapping::SAME);
        // Another window: no mapping.
        let other = |e: Rect| mapping_between(e, plain.outer, plain.inner);
        assert_eq!(other(Rect::new(10, 10, 300, 200)), None);
        assert_eq!(other(Rect::new(0, 0, 300, 200)), None);
        // GTK 4 at 0,0 (no window manager): the content within the border.
        let corner = top((0, 0, 800, 600), (0, 0, 800, 600));
        let m = mapping_between(Rect::new(0, 0, 790, 590), corner.outer, corner.inner)
            .expect("window coordinates");
        assert_eq!((m.dx, m.dy), (5.0, 5.0));
    }

    /// An application with two top-levels: a window titled `title` at
    /// `frame`, holding a button at `button`, and a popup menu at `menu`.
    fn app_tree(title: &str, frame: Rect, button: Rect, menu: Rect) -> Tree {
        let mut b = uidelta_model::TreeBuilder::new(NodeData::named(Role::Application, "app"));
        let mut window = NodeData::named(Role::Frame, title);
        window.bounds = Some(frame);
        b.open(window);
        let mut ok = NodeData::named(Role::PushButton, "OK");
        ok.bounds = Some(button);
        b.leaf(ok);
        b.close();
        let mut popup = NodeData::new(Role::Window);
        popup.bounds = Some(menu);
        b.leaf(popup);
        b.finish()
    }

    fn all_bounds(tree: &Tree) -> Vec<Option<Rect>> {
        tree.nodes().iter().map(|n| n.bounds).collect()
    }

    #[test]
    fn a_capture_is_placed_on_the_display() {
        let menu = Rect::new(300, 40, 100, 80);
        // GTK 3 at scale 2: every top-level scaled, the popup menu (which
        // no managed window fits) with the scale of the others.
        let mut t = app_tree(
            "GTK Demo",
            Rect::new(70, 0, 501, 512),
            Rect::new(80, 10, 50, 25),
            menu,
        );
        let windows = [top((140, 0, 1002, 1023), (141, 20, 1000, 998))];
        assert_eq!(
            place_on_display(&mut t, &windows, Some(10)),
            Placed {
                mapped: 2,
                display_places: false
            }
        );
        assert_eq!(
            all_bounds(&t)[1..],
            [
                Some(Rect::new(140, 0, 1002, 1024)),
                Some(Rect::new(160, 20, 100, 50)),
                Some(Rect::new(600, 80, 200, 160)),
            ]
        );
        // GTK 4 away from the corner: its window's content, offset; the
        // popup, whose place is unknown, as it was.
        let mut t = app_tree(
            "GTK Demo",
            Rect::new(0, 0, 790, 590),
            Rect::new(13, 51, 197, 36),
            menu,
        );
        let windows = [top((480, 424, 800, 600), (480, 424, 800, 600))];
        assert_eq!(place_on_display(&mut t, &windows, Some(10)).mapped, 1);
        assert_eq!(
            all_bounds(&t)[1..],
            [
                Some(Rect::new(485, 429, 790, 590)),
                Some(Rect::new(498, 480, 197, 36)),
                Some(menu),
            ]
        );
        // The display's places already (and so known to be the toolkit's
        // way), another process's window, or no window: nothing moves.
        for (windows, pid, display_places) in [
            (
                vec![top((391, 282, 500, 500), (391, 282, 500, 500))],
                Some(10),
                true,
            ),
            (
                vec![top((480, 424, 800, 600), (480, 424, 800, 600))],
                Some(11),
                false,
            ),
            (vec![], Some(10), false),
        ] {
            let mut t = app_tree(
                "GTK Demo",
                Rect::new(391, 282, 500, 500),
                Rect::new(400, 300, 50, 25),
                menu,
            );
            let before = all_bounds(&t);
            assert_eq!(
                place_on_display(&mut t, &windows, pid),
                Placed {
                    mapped: 0,
                    display_places
                }
            );
            assert_eq!(all_bounds(&t), before);
        }
        // A window at the display's corner that needs no mapping proves
        // nothing: GTK 4 with no border would look the same.
        let mut t = app_tree(
            "GTK Demo",
            Rect::new(0, 0, 800, 600),
            Rect::new(13, 51, 197, 36),
            menu,
        );
        let windows = [top((0, 0, 800, 600), (0, 0, 800, 600))];
        assert_eq!(
            place_on_display(&mut t, &windows, Some(10)),
            Placed {
                mapped: 0,
                display_places: false
            }
        );
        // Two windows fit and neither has the top-level's name: which one
        // it is cannot be told, and nothing moves.
        let mut t = app_tree(
            "Untitled",
            Rect::new(0, 0, 790, 590),
            Rect::new(13, 51, 197, 36),
            menu,
        );
        let windows = [
            top((480, 424, 800, 600), (480, 424, 800, 600)),
            top((10, 20, 800, 600), (10, 20, 800, 600)),
        ];
        let before = all_bounds(&t);
        assert_eq!(place_on_display(&mut t, &windows, Some(10)).mapped, 0);
        assert_eq!(all_bounds(&t), before);
    }

    #[test]
    fn what_is_on_top_is_named_for_the_error() {
        let mut w = window((0, 0, 10, 10), (0, 0, 10, 10));
        assert_eq!(window_name(&w, Some(10)), "the window \"Cover\"");
        assert_eq!(
            window_name(&w, Some(11)),
            "the window \"Cover\" of another application (pid 10)"
        );
        w.title.clear();
        assert_eq!(window_name(&w, None), "an untitled window (0x400003)");
        w.override_redirect = true;
        assert_eq!(
            window_name(&w, Some(10)),
            "a popup window (a menu, tooltip or the like)"
        );
    }
}
