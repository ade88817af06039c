//! Keys: the element given the keyboard focus first, and the keys sent to
//! its application's window.

use std::time::{Duration, Instant};

use uidelta_atspi::{Actor, AppRef, NodeAddr, Outcome, TypingPlace};
use uidelta_model::{NodeData, Rect, Role, State};
use uidelta_x11::{Button, X11};

use super::FOCUS_MOVES;
use crate::coords::rect_of;
use crate::reach::{on_screen, Reach};
use crate::{Error, Linux, Result};

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
pub(crate) fn keys_to(x11: &X11, app: &AppRef, near: Option<(i32, i32)>) -> Result<String> {
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

impl Linux {
    /// Keys go to the focused element: focus it accessibly, or click it;
    /// then make sure the display sends keys to its window (see
    /// [`keys_to`]). Returns what was done to the window focus, for
    /// the method.
    ///
    /// An element that cannot take the focus (disabled, not showing, not
    /// focusable), or that did not take it, is an error
    /// ([`Error::NoKeyboardFocus`]): the keys would land in whatever has
    /// the focus, another field or another application.
    ///
    /// With `in_place`, keys land where typing through accessibility puts
    /// text (see `Actor::type_text`): at the caret of a field that had the
    /// focus, else in place of the text it had selected, or at the end of
    /// its text, as a click after it would put them (GTK's entries select
    /// all of their text as they take the focus).
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn focus_for_keys(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
        x11: &X11,
        doing: &(dyn Fn() -> String + Sync),
        in_place: bool,
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
        // Read before the focus moves it.
        let place = match in_place {
            true => actor.typing_place(addr, &states).await,
            false => None,
        };
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
        // An element that has the focus keeps it as it is: asked again, a
        // toolkit may move its caret (a GTK entry selects all of its text
        // whenever it is given the focus, and keys would replace it).
        let grabbed = states.contains(State::Focused)
            || matches!(actor.focus(addr).await, Ok(Outcome::Done(_)));
        if !grabbed {
            if reported && !focusable {
                return Err(refuse("the element cannot take the keyboard focus"));
            }
            if let Some((x, y)) = point {
                super::pointer::click_for(x11, actor, (x, y), Button::Left, 1).await?;
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
        let placed = match place {
            Some(place) if actor.put_typing_place(addr, place).await => match place {
                TypingPlace::End(_) => "caret at the end, ",
                TypingPlace::Selection(..) => "its selection kept, ",
            },
            _ => "",
        };
        Ok(format!("{moved}{placed}"))
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
}
