//! The pointer: the facts a click is planned from, read from the bus and
//! the display, pointer clicks, and synthesized input at an element's
//! centre.

use std::time::Duration;

use uidelta_atspi::{Actor, AppRef, NodeAddr};
use uidelta_backend::{Action, Performed, MAX_TYPED_CHARS};
use uidelta_model::{NodeData, Rect, Role, State};
use uidelta_x11::{Button, X11};

use super::combo::Combo;
use super::plan::{
    self, is_disabled, is_menu_item, plan_click, plan_synthesized, pointer_first, pointer_verdict,
    ClickFacts, ClickPlan, PointerFacts, PointerVerdict, SynthesizedFacts,
};
use super::{pointer_of, Doing};
use crate::coords::rect_of;
use crate::reach::{ancestry, blocking_modal, in_sight, on_screen, popover_elsewhere, Reach};
use crate::{Error, Linux, Result};

/// What was found while reading the facts of a click, for carrying out
/// its plan.
#[derive(Default)]
pub(super) struct Found {
    /// The combo box (and its list) the item is in, when it offers no
    /// selection.
    pub combo: Option<Combo>,
    /// The closed menus between a menu item and its menu bar, innermost
    /// first.
    pub menus: Vec<NodeAddr>,
}

/// Brings the pointer to `x`,`y` as a hand does (`X11::approach`, then
/// `uidelta_x11::APPROACH_PAUSE`) and clicks `button` `count` times, each
/// press held `hold` (`None`: [`uidelta_x11::CLICK_HOLD`]; a toolkit's own,
/// `Profile::click_hold`), the hold awaited, not slept on the thread the
/// runtime needs for everything else. The button is released even when
/// the call is dropped while it is down (a caller's timeout).
pub(super) async fn click(
    x11: &X11,
    (x, y): (i32, i32),
    button: Button,
    count: u32,
    hold: Option<Duration>,
) -> Result<()> {
    if count == 0 {
        // The X11 client says why no click is made.
        return Ok(x11.click(x, y, button, count)?);
    }
    x11.approach(x, y)?;
    tokio::time::sleep(uidelta_x11::APPROACH_PAUSE).await;
    for _ in 0..count {
        x11.press_at(x, y, button)?;
        let down = Down {
            x11,
            button,
            down: true,
        };
        tokio::time::sleep(hold.unwrap_or(uidelta_x11::CLICK_HOLD)).await;
        down.up()?;
    }
    Ok(())
}

/// A button pressed: released when dropped before [`Down::up`] (a
/// caller's timeout dropped the action).
struct Down<'a> {
    x11: &'a X11,
    button: Button,
    down: bool,
}

impl Down<'_> {
    fn up(mut self) -> Result<()> {
        self.down = false;
        Ok(self.x11.release(self.button)?)
    }
}

impl Drop for Down<'_> {
    fn drop(&mut self) {
        if self.down {
            if let Err(e) = self.x11.release(self.button) {
                tracing::warn!("a button left down by a dropped action: {e}");
            }
        }
    }
}

/// How a drag moves: the pause after the press (a toolkit starts dragging
/// once the pointer moves past its threshold with the button down), the
/// moves between press and release and the pause after each, and the
/// pause over the destination before the release (a drop target answers
/// the pointer over it first).
const DRAG_HOLD: Duration = Duration::from_millis(100);
const DRAG_STEPS: i32 = 12;
const DRAG_STEP_PAUSE: Duration = Duration::from_millis(20);
const DRAG_OVER: Duration = Duration::from_millis(150);

/// Brings the pointer to `from` as a hand does, presses the primary button
/// there, moves the pointer to `to` in [`DRAG_STEPS`] moves and releases
/// the button there.
pub(super) async fn drag(x11: &X11, from: (i32, i32), to: (i32, i32)) -> Result<()> {
    x11.approach(from.0, from.1)?;
    tokio::time::sleep(uidelta_x11::APPROACH_PAUSE).await;
    x11.press_at(from.0, from.1, Button::Left)?;
    let down = Down {
        x11,
        button: Button::Left,
        down: true,
    };
    tokio::time::sleep(DRAG_HOLD).await;
    for k in 1..=DRAG_STEPS {
        let x = from.0 + (to.0 - from.0) * k / DRAG_STEPS;
        let y = from.1 + (to.1 - from.1) * k / DRAG_STEPS;
        x11.move_pointer(x, y)?;
        tokio::time::sleep(DRAG_STEP_PAUSE).await;
    }
    tokio::time::sleep(DRAG_OVER).await;
    down.up()
}

/// Brings the pointer to `x`,`y` as a hand does and leaves it there: from
/// the pixel beside it, so that a pointer already there moves too (a
/// toolkit that saw a click there shows no tooltip until the pointer
/// moves again).
pub(super) async fn hover(x11: &X11, (x, y): (i32, i32)) -> Result<()> {
    x11.approach(x, y)?;
    tokio::time::sleep(uidelta_x11::APPROACH_PAUSE).await;
    x11.move_pointer(x, y)?;
    Ok(())
}

/// [`click`] on an element of `actor`'s application, held as long as its
/// toolkit needs (`Profile::click_hold`).
pub(super) async fn click_for(
    x11: &X11,
    actor: &Actor<'_>,
    point: (i32, i32),
    button: Button,
    count: u32,
) -> Result<()> {
    click(x11, point, button, count, actor.profile().click_hold()).await
}

/// Logs why the pointer does not click the element, when it could have.
pub(super) fn log_no_pointer(facts: &ClickFacts, node: &NodeData) {
    if let PointerVerdict::NotUsed(why) = pointer_verdict(facts) {
        tracing::debug!(role = %node.role, name = %node.name, "no pointer click: {why}");
    }
}

impl Linux {
    /// The facts a click on `node` is planned from (see [`ClickFacts`]),
    /// read in the order the rules of [`plan_click`] look at them: what
    /// cannot change the plan any more is not read.
    pub(super) async fn click_facts(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
    ) -> (ClickFacts, Found) {
        let mut found = Found::default();
        let mut facts = self.element_facts(app, node);
        if facts.display && facts.pid_known && matches!(node.role, Role::ListItem | Role::MenuItem)
        {
            found.combo = self.combo_of(actor, addr, node).await;
            facts.in_combo_without_selection = found.combo.is_some();
            if facts.in_combo_without_selection {
                return (facts, found);
            }
        }
        if pointer_first(node.role) {
            facts.blocked_by = blocking_modal(actor, addr).await;
            if facts.blocked_by.is_some() {
                return (facts, found);
            }
        }
        facts.pointer = self.pointer_facts(app, actor, addr, &facts).await;
        if plan::reached_through_menus(&facts) {
            if let Some(menus) = self.menus_on_the_way(actor, addr).await {
                facts.menus_on_the_way = Some(menus.len());
                found.menus = menus;
            }
        }
        (facts, found)
    }

    /// What is known of `node` without asking: its role and states, and
    /// whether there is a display and a process to click in.
    pub(super) fn element_facts(&self, app: &AppRef, node: &NodeData) -> ClickFacts {
        ClickFacts {
            role: node.role,
            states: node.states,
            text_field: node.is_text_field(),
            display: self.x11.is_some(),
            pid_known: app.pid.is_some(),
            ..ClickFacts::default()
        }
    }

    /// What the pointer would meet at the centre of the element at `addr`
    /// (see [`PointerFacts`]), when the pointer may click it: on a display,
    /// in a known process, of a role the pointer clicks, showing, visible
    /// and enabled. Read in order, up to the first fact that rules the
    /// pointer out.
    pub(super) async fn pointer_facts(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        facts: &ClickFacts,
    ) -> Option<PointerFacts> {
        let x11 = self.x11.as_ref().filter(|_| app.pid.is_some())?;
        if !pointer_first(facts.role) || !plan::shown(facts.states) {
            return None;
        }
        let mut p = PointerFacts::default();
        let Some(bounds) = actor.extents(addr).await.ok().and_then(rect_of) else {
            return Some(p);
        };
        p.extents = true;
        // When another window is on top there (a dialog of the same
        // application), or the X server cannot tell, the accessible action
        // is the safe choice.
        let Some(chain) = ancestry(actor, addr).await else {
            return Some(p);
        };
        p.ancestry = true;
        // A cell scrolled out of its pane may still report a place in the
        // window, where the pointer would reach something else. (Its pane
        // is reported as the cell is: compared as reported.)
        if facts.role == Role::TableCell {
            p.in_sight = in_sight(actor, &chain, bounds.center()).await;
            if !p.in_sight {
                return Some(p);
            }
        }
        let ((cx, cy), reach) = self
            .aim_along(x11, app, actor, &chain, bounds.center())
            .await;
        p.on_screen = on_screen(x11, cx, cy);
        let reached = reach == Reach::Element && p.on_screen;
        p.aimed = Some(((cx, cy), reach));
        // A menu item is only showing while its menu is open, and the click
        // then lands inside that menu. Else an open menu holds the pointer:
        // a click outside it would only close it. So does a popover open
        // elsewhere in the window (GTK 3 draws it inside the window, where
        // the X server cannot see it).
        if !reached || is_menu_item(facts.role) {
            return Some(p);
        }
        p.menu_open = x11.menu_open().ok();
        if p.menu_open != Some(false) {
            return Some(p);
        }
        p.popover_elsewhere = popover_elsewhere(actor, &chain).await;
        Some(p)
    }

    /// Clicks a push button, a menu item or a table cell with the pointer,
    /// as a person would, when the pointer can reach it (see
    /// [`plan::pointer_verdict`]). `None` when it cannot; the accessible
    /// action is used then.
    ///
    /// The pointer comes first because it is what a person does, and
    /// because GTK runs the handler of a button or a menu item inside the
    /// dispatch of the accessible action's call: a handler that opens a
    /// modal dialog with `gtk_dialog_run` holds that dispatch until the
    /// dialog closes. Over the application's direct connection, which
    /// `DoAction` takes when there is one, that is harmless; over the bus,
    /// the application stops answering and the dialog cannot be read.
    pub(super) async fn pointer_click(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
        doing: Doing<'_>,
    ) -> Result<Option<Performed>> {
        let mut facts = self.element_facts(app, node);
        facts.pointer = self.pointer_facts(app, actor, addr, &facts).await;
        match plan_click(&facts) {
            ClickPlan::Pointer { x, y } => self.pointer_at(actor, x, y, doing).await.map(Some),
            _ => {
                log_no_pointer(&facts, node);
                Ok(None)
            }
        }
    }

    /// A left click of the pointer at `x`,`y`, held as long as the
    /// toolkit of `actor`'s application needs.
    pub(super) async fn pointer_at(
        &self,
        actor: &Actor<'_>,
        x: i32,
        y: i32,
        doing: Doing<'_>,
    ) -> Result<Performed> {
        click_for(self.x11(doing)?, actor, (x, y), Button::Left, 1).await?;
        Ok(Performed {
            method: format!("XTest click at {x},{y}"),
        })
    }

    /// Where synthesized input for the element at `addr` goes: its centre,
    /// read fresh, on the display, planned with [`plan_synthesized`]; an
    /// error when another window is on top there or it has no place.
    async fn centre_for_input(
        &self,
        x11: &X11,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
        doing: Doing<'_>,
    ) -> Result<(i32, i32)> {
        // Read fresh, in the toolkit's coordinates, which [`Linux::aim`]
        // maps: the snapshot's bounds are the display's already.
        let centre = actor
            .extents(addr)
            .await
            .ok()
            .and_then(rect_of)
            .map(Rect::center);
        let aimed = match centre {
            Some(point) => Some(self.aim(x11, app, actor, addr, point).await),
            None => None,
        };
        let facts = SynthesizedFacts {
            disabled: is_disabled(node.states),
            aimed,
        };
        match plan_synthesized(&facts) {
            ClickPlan::Pointer { x, y } => Ok((x, y)),
            ClickPlan::Refuse(refusal) => Err(refusal.error(doing())),
            _ => Err(Error::NoBounds { doing: doing() }),
        }
    }

    /// Does `action` with synthesized input: a click, wheel turn or
    /// selection at the element's centre (see [`plan_synthesized`]), or
    /// keys once the element has the keyboard focus.
    pub(super) async fn synthesize(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
        action: &Action,
        doing: Doing<'_>,
    ) -> Result<Performed> {
        let x11 = self.x11(doing)?;
        let centre = || self.centre_for_input(x11, app, actor, addr, node, doing);
        let method = match action {
            Action::Click | Action::RightClick | Action::DoubleClick => {
                let (x, y) = centre().await?;
                let Some((button, count, what)) = pointer_of(action) else {
                    return Err(Error::NotAClick { doing: doing() });
                };
                click_for(x11, actor, (x, y), button, count).await?;
                format!("XTest {what} at {x},{y}")
            }
            // No accessibility interface moves the pointer: it goes to the
            // element's centre, checked to be the element's (not a window's
            // on top of it), disabled or not (a disabled button shows its
            // tooltip too).
            Action::Hover => {
                let (x, y) = centre().await?;
                hover(x11, (x, y)).await?;
                format!("XTest pointer moved to {x},{y}")
            }
            // Pressed at the element's centre, checked as a click's, and
            // released at the point, which must be on the screen.
            Action::DragTo { x, y } => {
                if !on_screen(x11, *x, *y) {
                    return Err(Error::OffScreen {
                        doing: doing(),
                        size: x11.screen_size(),
                    });
                }
                let from = centre().await?;
                drag(x11, from, (*x, *y)).await?;
                format!("XTest drag from {},{} to {x},{y}", from.0, from.1)
            }
            // A placeholder showing its prompt is entered by a click, as a
            // user does; given the focus, LibreOffice takes the prompt for
            // text and what is typed joins it.
            Action::Type(text) if actor.profile().shows_a_prompt(node) => {
                let (x, y) = centre().await?;
                click_for(x11, actor, (x, y), Button::Left, 1).await?;
                x11.type_text(text)?;
                format!("XTest click at {x},{y} into the placeholder, then keys")
            }
            Action::Type(text) => {
                let moved = self
                    .focus_for_keys(app, actor, addr, node, x11, doing, true)
                    .await?;
                x11.type_text(text)?;
                format!("{moved}XTest keys")
            }
            Action::Key(chord) => {
                let moved = self
                    .focus_for_keys(app, actor, addr, node, x11, doing, true)
                    .await?;
                let held = super::held_elsewhere(x11, chord);
                x11.key(chord)?;
                format!("{moved}XTest {chord}{held}")
            }
            Action::Scroll { dx, dy } => {
                let (x, y) = centre().await?;
                x11.scroll(x, y, *dx, *dy)?;
                format!("XTest wheel {dx},{dy} at {x},{y}")
            }
            Action::Focus | Action::SetSelected(_) => {
                let (x, y) = centre().await?;
                click_for(x11, actor, (x, y), Button::Left, 1).await?;
                format!("XTest click at {x},{y}")
            }
            // A field without EditableText (or one that does nothing, as
            // Gecko's; an editable combo box too): all of its text
            // selected, then replaced with the keys of the new text (or
            // deleted).
            Action::SetValue(text)
                if node.role.is_text_input() || node.states.contains(State::Editable) =>
            {
                let count = text.chars().count();
                if count > MAX_TYPED_CHARS {
                    return Err(Error::TooLongToType {
                        doing: doing(),
                        count,
                        max: MAX_TYPED_CHARS,
                    });
                }
                let moved = self
                    .focus_for_keys(app, actor, addr, node, x11, doing, false)
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
        Ok(Performed { method })
    }
}
