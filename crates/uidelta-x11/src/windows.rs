//! Top-level windows: finding them by process and title, raising, focusing
//! and closing them the way a window manager would.

use x11rb::protocol::xproto::{
    self, AtomEnum, ClientMessageEvent, ConnectionExt, EventMask, InputFocus, MapState, Window,
};
use x11rb::wrapper::ConnectionExt as _;
use x11rb::CURRENT_TIME;

use crate::{Failure, X11Error, X11};

/// A top-level window on the display.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopWindow {
    /// The application's window: the child of the root or, under a
    /// reparenting window manager, the client window inside its frame.
    pub id: u32,
    /// The owning process (`_NET_WM_PID`), when the client sets it.
    pub pid: Option<u32>,
    /// The title (`_NET_WM_NAME`, else `WM_NAME`).
    pub title: String,
    /// Whether it is mapped and viewable.
    pub viewable: bool,
    /// Whether it bypasses window management (`override-redirect`): menus,
    /// tooltips and toolkits' hidden helper windows, never an application
    /// window a person would bring to the front.
    pub override_redirect: bool,
    /// Where it is, window manager's frame included (see [`WindowAt`]).
    pub outer: Area,
    /// Where the application's own window is.
    pub inner: Area,
    /// The window it is a dialog of (`WM_TRANSIENT_FOR`), when it says.
    pub transient_for: Option<u32>,
}

/// A top-level window found by what it holds: a point of the screen, or
/// the keyboard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowAt {
    /// The application's window (inside a window manager's frame, if there
    /// is one).
    pub id: u32,
    /// The owning process (`_NET_WM_PID`), when the client sets it.
    pub pid: Option<u32>,
    /// The title (`_NET_WM_NAME`, else `WM_NAME`), `""` when it has none.
    pub title: String,
    /// Whether it bypasses window management: a menu, a tooltip or another
    /// popup.
    pub override_redirect: bool,
    /// Where it is on the screen, window manager's frame included: x, y,
    /// width, height in root coordinates.
    pub outer: Area,
    /// Where the application's own window is (the frame's inside, or the
    /// same as `outer` when there is no frame).
    pub inner: Area,
}

/// A rectangle of the screen: x, y, width, height in root coordinates.
pub type Area = (i32, i32, u32, u32);

/// Which top-level windows a listing holds.
#[derive(Clone, Copy)]
enum Listing {
    /// Every one.
    All,
    /// Viewable and not override-redirect.
    Shown,
    /// Viewable.
    Viewable,
}

impl X11 {
    /// The top-level windows, bottom first in stacking order, with pid and
    /// title where set: the children of the root or, under a reparenting
    /// window manager, the client windows inside its frames.
    pub fn top_windows(&self) -> Result<Vec<TopWindow>, X11Error> {
        self.run(
            || "listing top-level windows".into(),
            || self.list_top(Listing::All),
        )
    }

    /// The top-level windows a person can see and bring to the front:
    /// viewable, not override-redirect (no menus, tooltips or hidden helper
    /// windows), bottom first. Fewer requests than [`X11::top_windows`], as
    /// the others are passed over before their pid, title and place are
    /// read.
    pub fn shown_windows(&self) -> Result<Vec<TopWindow>, X11Error> {
        self.run(
            || "listing shown top-level windows".into(),
            || self.list_top(Listing::Shown),
        )
    }

    /// The viewable top-level windows, bottom first: those of
    /// [`X11::shown_windows`] and the override-redirect ones on screen
    /// (open menus, popovers and tooltips), which toolkits draw their
    /// popups in.
    pub fn viewable_windows(&self) -> Result<Vec<TopWindow>, X11Error> {
        self.run(
            || "listing viewable top-level windows".into(),
            || self.list_top(Listing::Viewable),
        )
    }

    fn list_top(&self, listing: Listing) -> Result<Vec<TopWindow>, Failure> {
        let tree = self.conn.query_tree(self.root)?.reply()?;
        let pid_atom = self.atom(b"_NET_WM_PID")?;
        let wm_state = self.framing()?;
        let mut out = Vec::new();
        // Asked for all at once: one round trip, not one per window.
        let cookies = tree
            .children
            .iter()
            .map(|&top| Ok((top, self.conn.get_window_attributes(top)?)))
            .collect::<Result<Vec<_>, Failure>>()?;
        for (top, cookie) in cookies {
            let Ok(attrs) = cookie.reply() else {
                continue; // gone meanwhile
            };
            let viewable = attrs.map_state == MapState::VIEWABLE;
            let listed = match listing {
                Listing::All => true,
                Listing::Shown => viewable && !attrs.override_redirect,
                Listing::Viewable => viewable,
            };
            if !listed {
                continue;
            }
            let id = self.client_of(top, wm_state)?;
            let pid = self.pid_of(id, pid_atom)?;
            let title = self.title_of(id)?;
            let outer = self.area_of(top)?;
            let transient_for = self.window_property(id, AtomEnum::WM_TRANSIENT_FOR.into())?;
            out.push(TopWindow {
                id,
                pid,
                title,
                viewable,
                override_redirect: attrs.override_redirect,
                outer,
                inner: if id == top { outer } else { self.area_of(id)? },
                transient_for,
            });
        }
        Ok(out)
    }

    /// The topmost viewable top-level window that holds the point (`x`,
    /// `y`): the window a click there would reach. Under a reparenting
    /// window manager, the client window inside the frame names the process.
    pub fn window_at(&self, x: i32, y: i32) -> Result<Option<WindowAt>, X11Error> {
        self.run(
            || format!("finding the window at ({x}, {y})"),
            || self.find_at(x, y),
        )
    }

    fn find_at(&self, x: i32, y: i32) -> Result<Option<WindowAt>, Failure> {
        let pid_atom = self.atom(b"_NET_WM_PID")?;
        let tree = self.conn.query_tree(self.root)?.reply()?;
        // Children come bottom first.
        for &id in tree.children.iter().rev() {
            let Ok(attrs) = self.conn.get_window_attributes(id)?.reply() else {
                continue;
            };
            if attrs.map_state != MapState::VIEWABLE {
                continue;
            }
            let Ok(g) = self.conn.get_geometry(id)?.reply() else {
                continue;
            };
            let (gx, gy) = (i32::from(g.x), i32::from(g.y));
            let inside =
                x >= gx && y >= gy && x < gx + i32::from(g.width) && y < gy + i32::from(g.height);
            if !inside {
                continue;
            }
            return Ok(Some(self.window_in(id, pid_atom)?));
        }
        Ok(None)
    }

    /// The application's window in the root's child `top`: its process,
    /// title and place.
    fn window_in(&self, top: Window, pid_atom: u32) -> Result<WindowAt, Failure> {
        let id = self.client_of(top, self.framing()?)?;
        let outer = self.area_of(top)?;
        let inner = if id == top { outer } else { self.area_of(id)? };
        Ok(WindowAt {
            id,
            pid: self.pid_of(id, pid_atom)?,
            title: self.title_of(id)?,
            override_redirect: self
                .conn
                .get_window_attributes(top)?
                .reply()
                .is_ok_and(|a| a.override_redirect),
            outer,
            inner,
        })
    }

    /// Where a window is, in root coordinates; an empty area at the origin
    /// when it is gone.
    fn area_of(&self, id: Window) -> Result<Area, Failure> {
        // Both asked at once.
        let geometry = self.conn.get_geometry(id)?;
        let place = self.conn.translate_coordinates(id, self.root, 0, 0)?;
        let (Ok(g), Ok(at)) = (geometry.reply(), place.reply()) else {
            return Ok((0, 0, 0, 0));
        };
        Ok((
            i32::from(at.dst_x),
            i32::from(at.dst_y),
            u32::from(g.width),
            u32::from(g.height),
        ))
    }

    /// A window's title: `_NET_WM_NAME`, else `WM_NAME`.
    fn title_of(&self, id: Window) -> Result<String, Failure> {
        let title =
            self.text_property(id, self.atom(b"_NET_WM_NAME")?, self.atom(b"UTF8_STRING")?)?;
        if !title.is_empty() {
            return Ok(title);
        }
        self.text_property(id, AtomEnum::WM_NAME.into(), AtomEnum::STRING.into())
    }

    /// The client window in the root's child `top`: under a reparenting
    /// window manager, the window inside the frame that has `WM_STATE` (set
    /// by window managers on the windows they manage, as ICCCM says), a few
    /// levels down at most; `top` itself when there is no window manager
    /// (nothing has `WM_STATE`) or it manages `top` unframed.
    ///
    /// `wm_state` is [`X11::framing`]'s answer, asked once per listing.
    fn client_of(&self, top: Window, wm_state: Option<u32>) -> Result<Window, Failure> {
        const DEPTH: usize = 3;
        let Some(wm_state) = wm_state else {
            return Ok(top);
        };
        let is_managed = |cookie: x11rb::cookie::Cookie<'_, _, xproto::GetPropertyReply>| {
            cookie
                .reply()
                .is_ok_and(|r: xproto::GetPropertyReply| r.type_ != u32::from(AtomEnum::NONE))
        };
        let ask = |w: Window| {
            self.conn
                .get_property(false, w, wm_state, AtomEnum::ANY, 0, 0)
        };
        if is_managed(ask(top)?) {
            return Ok(top);
        }
        // Level by level, each level's requests sent at once: a frame has
        // a handful of children, and a round trip per child adds up.
        let mut level = vec![top];
        for _ in 0..DEPTH {
            let trees = level
                .iter()
                .map(|&w| self.conn.query_tree(w))
                .collect::<Result<Vec<_>, _>>()?;
            let children: Vec<Window> = trees
                .into_iter()
                .filter_map(|cookie| cookie.reply().ok())
                .flat_map(|tree| tree.children)
                .collect();
            let asked = children
                .iter()
                .map(|&child| Ok((child, ask(child)?)))
                .collect::<Result<Vec<_>, Failure>>()?;
            let mut found = None;
            for (child, cookie) in asked {
                // Every reply is read, so that none is left waiting.
                if is_managed(cookie) && found.is_none() {
                    found = Some(child);
                }
            }
            if let Some(child) = found {
                return Ok(child);
            }
            level = children;
        }
        Ok(top)
    }

    /// The name of the running window manager (`_NET_WM_NAME` of its check
    /// window, `""` if it gives none); `None` when there is none.
    pub fn window_manager(&self) -> Result<Option<String>, X11Error> {
        self.run(
            || "looking for a window manager".into(),
            || {
                let Some(check) = self.wm_check()? else {
                    return Ok(None);
                };
                let name = self.atom(b"_NET_WM_NAME")?;
                let utf8 = self.atom(b"UTF8_STRING")?;
                Ok(Some(self.text_property(check, name, utf8)?))
            },
        )
    }

    /// The `WM_STATE` atom when a window manager runs (it may frame
    /// windows), `None` when none does.
    fn framing(&self) -> Result<Option<u32>, Failure> {
        match self.wm_check()? {
            Some(_) => Ok(Some(self.atom(b"WM_STATE")?)),
            None => Ok(None),
        }
    }

    /// The window manager's check window (`_NET_SUPPORTING_WM_CHECK` on the
    /// root), when a window manager runs.
    fn wm_check(&self) -> Result<Option<Window>, Failure> {
        let check = self.atom(b"_NET_SUPPORTING_WM_CHECK")?;
        Ok(self
            .conn
            .get_property(false, self.root, check, AtomEnum::WINDOW, 0, 1)?
            .reply()
            .ok()
            .and_then(|r| r.value32().and_then(|mut v| v.next()))
            .filter(|&w| w != 0))
    }

    /// The root's child that holds `id` (its frame, under a reparenting
    /// window manager); `None` when `id` is gone.
    fn top_of(&self, mut id: Window) -> Result<Option<Window>, Failure> {
        loop {
            let Ok(tree) = self.conn.query_tree(id)?.reply() else {
                return Ok(None);
            };
            if tree.parent == self.root || tree.parent == 0 {
                return Ok(Some(id));
            }
            id = tree.parent;
        }
    }

    /// How many of `windows` (such as [`crate::MadeWindows::since`] gives)
    /// are still there and say they are process `pid`'s
    /// (`_NET_WM_PID`). A window that says no process is not counted.
    pub fn windows_of(&self, windows: &[u32], pid: u32) -> Result<usize, X11Error> {
        self.run(
            || format!("reading which windows are process {pid}'s"),
            || {
                let pid_atom = self.atom(b"_NET_WM_PID")?;
                // Asked for all at once, then read: one round trip.
                let cookies = windows
                    .iter()
                    .map(|&w| {
                        self.conn
                            .get_property(false, w, pid_atom, AtomEnum::CARDINAL, 0, 1)
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(cookies
                    .into_iter()
                    .filter_map(|cookie| cookie.reply().ok())
                    .filter_map(|r| r.value32().and_then(|mut v| v.next()))
                    .filter(|&p| p == pid)
                    .count())
            },
        )
    }

    /// The top-level window that key events go to now: the one holding the
    /// input focus or, when the focus follows the pointer (`PointerRoot`,
    /// the default with no window manager), the one under the pointer.
    /// `None` when keys go nowhere.
    pub fn keyboard_window(&self) -> Result<Option<WindowAt>, X11Error> {
        self.run(
            || "finding the window that has the keyboard".into(),
            || self.find_keyboard(),
        )
    }

    fn find_keyboard(&self) -> Result<Option<WindowAt>, Failure> {
        const NONE: Window = 0;
        const POINTER_ROOT: Window = 1;
        let focus = self.conn.get_input_focus()?.reply()?.focus;
        let id = match focus {
            NONE => return Ok(None),
            POINTER_ROOT => self.conn.query_pointer(self.root)?.reply()?.child,
            f if f == self.root => self.conn.query_pointer(self.root)?.reply()?.child,
            f => f,
        };
        if id == NONE {
            return Ok(None); // the pointer is over the bare root window
        }
        let Some(top) = self.top_of(id)? else {
            return Ok(None); // destroyed meanwhile
        };
        Ok(Some(self.window_in(top, self.atom(b"_NET_WM_PID")?)?))
    }

    /// Whether a menu is open on the screen (a viewable window of type
    /// popup menu, drop-down menu or combo box list): toolkits hold the
    /// pointer while one is, so a synthesized click would only close it.
    /// A window of the plain type menu counts only while the pointer is
    /// held: GTK 4 gives that type to every popup, its tooltips too, which
    /// hold nothing (one shows whenever the pointer rests on a button).
    pub fn menu_open(&self) -> Result<bool, X11Error> {
        self.run(|| "looking for open menus".into(), || self.find_menu())
    }

    fn find_menu(&self) -> Result<bool, Failure> {
        let kind = self.atom(b"_NET_WM_WINDOW_TYPE")?;
        let plain = self.atom(b"_NET_WM_WINDOW_TYPE_MENU")?;
        let menus = [
            self.atom(b"_NET_WM_WINDOW_TYPE_POPUP_MENU")?,
            self.atom(b"_NET_WM_WINDOW_TYPE_DROPDOWN_MENU")?,
            self.atom(b"_NET_WM_WINDOW_TYPE_COMBO")?,
            plain,
        ];
        let tree = self.conn.query_tree(self.root)?.reply()?;
        for &id in &tree.children {
            let Ok(attrs) = self.conn.get_window_attributes(id)?.reply() else {
                continue;
            };
            if attrs.map_state != MapState::VIEWABLE {
                continue;
            }
            let Ok(types) = self
                .conn
                .get_property(false, id, kind, AtomEnum::ATOM, 0, 16)?
                .reply()
            else {
                continue;
            };
            let Some(types) = types.value32().map(|v| v.collect::<Vec<u32>>()) else {
                continue;
            };
            let menu = types.iter().any(|t| menus.contains(t));
            let only_plain = types.iter().all(|&t| t == plain || !menus.contains(&t));
            if menu && (!only_plain || self.pointer_held()?) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether another client holds the pointer (an open menu or popover
    /// grabs it): a grab of it is refused as already taken. One that is
    /// given is let go at once.
    fn pointer_held(&self) -> Result<bool, Failure> {
        let reply = self
            .conn
            .grab_pointer(
                false,
                self.root,
                EventMask::NO_EVENT,
                xproto::GrabMode::ASYNC,
                xproto::GrabMode::ASYNC,
                x11rb::NONE,
                x11rb::NONE,
                CURRENT_TIME,
            )?
            .reply()?;
        if reply.status == xproto::GrabStatus::SUCCESS {
            self.conn.ungrab_pointer(CURRENT_TIME)?;
            x11rb::connection::Connection::flush(&self.conn)?;
            return Ok(false);
        }
        Ok(reply.status == xproto::GrabStatus::ALREADY_GRABBED
            || reply.status == xproto::GrabStatus::FROZEN)
    }

    fn pid_of(&self, id: Window, pid_atom: u32) -> Result<Option<u32>, Failure> {
        Ok(self
            .conn
            .get_property(false, id, pid_atom, AtomEnum::CARDINAL, 0, 1)?
            .reply()
            .ok()
            .and_then(|r| r.value32().and_then(|mut v| v.next())))
    }

    /// A property of `id` that names one window; `None` when it is not set.
    fn window_property(&self, id: Window, prop: u32) -> Result<Option<u32>, Failure> {
        Ok(self
            .conn
            .get_property(false, id, prop, AtomEnum::WINDOW, 0, 1)?
            .reply()
            .ok()
            .and_then(|r| r.value32().and_then(|mut v| v.next()))
            .filter(|&w| w != 0))
    }

    fn text_property(&self, id: Window, prop: u32, kind: u32) -> Result<String, Failure> {
        let reply = self
            .conn
            .get_property(false, id, prop, kind, 0, 1024)?
            .reply();
        Ok(reply
            .map(|r| String::from_utf8_lossy(&r.value).into_owned())
            .unwrap_or_default())
    }

    /// The atom named `name`, interned once per connection.
    fn atom(&self, name: &'static [u8]) -> Result<u32, Failure> {
        let known = |atoms: &[(&[u8], u32)]| {
            atoms
                .iter()
                .find(|(n, _)| *n == name)
                .map(|&(_, atom)| atom)
        };
        if let Some(atom) = known(&self.atoms.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(atom);
        }
        let atom = self.conn.intern_atom(false, name)?.reply()?.atom;
        self.atoms
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((name, atom));
        Ok(atom)
    }

    /// Raises the window and gives it the input focus; also asks a window
    /// manager, if there is one, to activate it.
    pub fn activate_window(&self, id: u32) -> Result<(), X11Error> {
        self.run(
            || format!("activating window {id:#x}"),
            || {
                // Source 2: on behalf of the user, as a task bar asks, which
                // window managers' focus-stealing prevention lets through.
                let active = self.atom(b"_NET_ACTIVE_WINDOW")?;
                let event = ClientMessageEvent::new(32, id, active, [2, CURRENT_TIME, 0, 0, 0]);
                self.conn
                    .send_event(
                        false,
                        self.root,
                        EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                        event,
                    )?
                    .check()?;
                // What stacks is the root's child: the frame, if there is one.
                let top = self.top_of(id)?.unwrap_or(id);
                self.conn
                    .configure_window(
                        top,
                        &xproto::ConfigureWindowAux::new().stack_mode(xproto::StackMode::ABOVE),
                    )?
                    .check()?;
                self.conn
                    .set_input_focus(InputFocus::PARENT, id, CURRENT_TIME)?
                    .check()?;
                self.conn.sync()?;
                Ok(())
            },
        )
    }

    /// Moves a top-level window (`id`, an application's window) so that
    /// its frame, if a window manager framed it, or else the window itself,
    /// has its top left corner at `x`, `y`.
    pub fn move_window(&self, id: u32, x: i32, y: i32) -> Result<(), X11Error> {
        self.run(
            || format!("moving window {id:#x} to {x},{y}"),
            || {
                let top = self.top_of(id)?.unwrap_or(id);
                self.conn
                    .configure_window(top, &xproto::ConfigureWindowAux::new().x(x).y(y))?
                    .check()?;
                self.conn.sync()?;
                Ok(())
            },
        )
    }

    /// The accessibility bus address published on the root window
    /// (`AT_SPI_BUS`), as the bus launcher leaves it; `None` when there is
    /// none.
    pub fn accessibility_bus(&self) -> Result<Option<String>, X11Error> {
        self.run(
            || "reading AT_SPI_BUS on the root window".into(),
            || {
                let prop = self.atom(b"AT_SPI_BUS")?;
                let text = self.text_property(self.root, prop, AtomEnum::STRING.into())?;
                Ok(Some(text).filter(|t| !t.is_empty()))
            },
        )
    }

    /// Publishes the accessibility bus address on the root window
    /// (`AT_SPI_BUS`), where toolkits look for it first. Qt 5 needs it: by
    /// the session bus alone, it can start its bridge before its connection
    /// to the accessibility bus is up and never register.
    pub fn publish_accessibility_bus(&self, address: &str) -> Result<(), X11Error> {
        self.run(
            || "setting AT_SPI_BUS on the root window".into(),
            || {
                let prop = self.atom(b"AT_SPI_BUS")?;
                self.conn
                    .change_property8(
                        xproto::PropMode::REPLACE,
                        self.root,
                        prop,
                        AtomEnum::STRING,
                        address.as_bytes(),
                    )?
                    .check()?;
                self.conn.sync()?;
                Ok(())
            },
        )
    }

    /// Asks the window to close (`WM_DELETE_WINDOW`), as a close button on a
    /// title bar does; the application may still refuse or ask to save.
    pub fn close_window(&self, id: u32) -> Result<(), X11Error> {
        self.run(
            || format!("closing window {id:#x}"),
            || {
                let protocols = self.atom(b"WM_PROTOCOLS")?;
                let delete = self.atom(b"WM_DELETE_WINDOW")?;
                let event =
                    ClientMessageEvent::new(32, id, protocols, [delete, CURRENT_TIME, 0, 0, 0]);
                self.conn
                    .send_event(false, id, EventMask::NO_EVENT, event)?
                    .check()?;
                self.conn.sync()?;
                Ok(())
            },
        )
    }
}
