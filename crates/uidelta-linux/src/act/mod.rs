//! Actions on elements. Accessibility interfaces come first (AT-SPI
//! Action, EditableText, Value, Selection, Component); synthesized X input
//! at the element's centre is the fallback. A click is planned from facts
//! ([`plan::plan_click`]): push buttons, menu items and table cells are
//! clicked with the pointer when it can reach them.

use std::time::Duration;

use uidelta_atspi::{Actor, AppRef, NodeAddr, Outcome};
use uidelta_backend::{Action, Performed};
use uidelta_model::{NodeData, Rect, Role};
use uidelta_x11::{Button, X11};

use crate::coords::rect_of;
use crate::reach::on_screen;
use crate::{Error, Linux, Result};

mod combo;
mod keys;
mod menus;
pub(crate) mod plan;
mod pointer;

pub(crate) use keys::keys_to;
use plan::{plan_click, ClickPlan};

/// Most menus between a menu bar and an item that a click opens on the way
/// to the item.
const MENU_DEPTH: usize = 6;
/// How long a menu may take to open when an item in it is clicked.
const MENU_OPENS: Duration = Duration::from_millis(1000);
/// How long an element may take to report the keyboard focus once it was
/// given it and its window has the keyboard.
const FOCUS_MOVES: Duration = Duration::from_millis(2000);

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

/// What was being done, for errors.
type Doing<'a> = &'a (dyn Fn() -> String + Sync);

impl Linux {
    /// The names of the accessible actions `node` (an element of a live
    /// capture of `app`) offers.
    pub(crate) async fn actions(&self, app: &AppRef, node: &NodeData) -> Result<Vec<String>> {
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
    pub(crate) async fn act(
        &self,
        app: &AppRef,
        node: &NodeData,
        action: &Action,
    ) -> Result<Performed> {
        let doing = || format!("{} an element of {}", action.doing(), app.label());
        let addr = node
            .identity
            .as_deref()
            .and_then(NodeAddr::from_identity)
            .ok_or_else(|| Error::NoIdentity { doing: doing() })?;
        let label = app.label();
        let actor = Actor::new(&self.bus, &label).following(self.bus.profile(app).await);
        if *action == Action::Click {
            return self.click(app, &actor, &addr, node, &doing).await;
        }
        if *action == Action::SetSelected(true) && self.x11.is_some() && app.pid.is_some() {
            if let Some(combo) = self.combo_of(&actor, &addr, node).await {
                return self.pick_in_combo(app, &actor, &addr, &combo, &doing).await;
            }
        }
        // A combo box whose options accessibility cannot choose (Qt's, with
        // no selection; one whose options are chosen with keys) is given
        // its value as its option is picked; not one with a text of its
        // own (an address bar), which is typed into.
        if let Action::SetValue(name) = action {
            let keyed = actor.profile().picks_combo_options_with_keys();
            let fixed = node.role == Role::ComboBox
                && !node.states.contains(uidelta_model::State::Editable);
            let picked = fixed
                && self.x11.is_some()
                && app.pid.is_some()
                && (keyed
                    || !actor
                        .has(&addr, uidelta_atspi::interfaces::SELECTION)
                        .await
                        .unwrap_or(true));
            if picked {
                if let Some(item) = actor.option_named(&addr, name, false).await? {
                    // Picked only where the toolkit keeps its options so
                    // (see `combo_of`): Chromium's menu items choose by
                    // their action.
                    let option = NodeData {
                        role: actor.role(&item).await?,
                        ..NodeData::default()
                    };
                    if let Some(combo) = self.combo_of(&actor, &item, &option).await {
                        return self.pick_in_combo(app, &actor, &item, &combo, &doing).await;
                    }
                }
            }
        }
        let accessible = match action {
            // A line break or tab is a key: typed as keys, `\n` is Return
            // (a document's new paragraph, an entry's activation, a form
            // sent) and `\t` Tab, as a keyboard and the browser backend
            // give them. Inserted as text, a LibreOffice paragraph took
            // `\n` as a line break within itself. So is text for a
            // placeholder showing its prompt, clicked into first (see
            // `synthesize`).
            Action::Type(text)
                if self.x11.is_some()
                    && (text.contains(['\n', '\t']) || actor.profile().shows_a_prompt(node)) =>
            {
                Outcome::NeedsInput
            }
            Action::Type(text) => actor.type_text(&addr, text).await?,
            Action::SetValue(v) => actor.set_value(&addr, v).await?,
            Action::SetSelected(on) => actor.set_selected(&addr, *on).await?,
            Action::Focus => actor.focus(&addr).await?,
            Action::Invoke(name) => actor.invoke(&addr, name).await?,
            Action::Scroll { dx: 0, dy: 0 } => actor.scroll_into_view(&addr).await?,
            Action::Click
            | Action::RightClick
            | Action::DoubleClick
            | Action::Hover
            | Action::DragTo { .. }
            | Action::Key(_)
            | Action::Scroll { .. } => Outcome::NeedsInput,
        };
        if let Outcome::Done(method) = accessible {
            return Ok(Performed { method });
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

    /// A click on `node`: the facts read (see [`Linux::click_facts`]), the
    /// click planned from them ([`plan_click`]), and the plan carried out.
    async fn click(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
        doing: Doing<'_>,
    ) -> Result<Performed> {
        let (facts, found) = self.click_facts(app, actor, addr, node).await;
        let accessible = match plan_click(&facts) {
            ClickPlan::PickInCombo => match &found.combo {
                Some(combo) => return self.pick_in_combo(app, actor, addr, combo, doing).await,
                None => plan::accessible_click(&facts),
            },
            ClickPlan::Refuse(refusal) => return Err(refusal.error(doing())),
            ClickPlan::Pointer { x, y } => return self.pointer_at(actor, x, y, doing).await,
            ClickPlan::OpenMenus => {
                pointer::log_no_pointer(&facts, node);
                if let Some(done) = self
                    .menu_click(app, actor, addr, node, &facts, &found.menus, doing)
                    .await?
                {
                    return Ok(done);
                }
                plan::accessible_click(&facts)
            }
            other => {
                pointer::log_no_pointer(&facts, node);
                other
            }
        };
        self.accessible_click(app, actor, addr, node, accessible, doing)
            .await
    }

    /// Carries out the accessible part of a click plan
    /// ([`plan::accessible_click`]); what offers no way to click is clicked
    /// with synthesized input at its centre.
    async fn accessible_click(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
        plan: ClickPlan,
        doing: Doing<'_>,
    ) -> Result<Performed> {
        let outcome = match plan {
            // A field's accessible action is `activate`, which is pressing
            // Enter in it; clicking a field is giving it the focus, as a
            // person's click does (else the pointer clicks it).
            ClickPlan::Focus => actor.focus(addr).await?,
            // A cell the pointer cannot reach (scrolled out of sight) is
            // selected through its table, as a click would select it: its
            // `activate` is a double click (a dialog's list answers the
            // dialog with it), never run in a click's place.
            ClickPlan::SelectCell => match actor.set_selected(addr, true).await? {
                Outcome::NeedsInput => return self.click_cell(app, actor, addr, node, doing).await,
                selected => selected,
            },
            _ => actor.click(addr).await?,
        };
        if let Outcome::Done(method) = outcome {
            return Ok(Performed { method });
        }
        self.synthesize(app, actor, addr, node, &Action::Click, doing)
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
        doing: Doing<'_>,
    ) -> Result<Performed> {
        if let Outcome::Done(scrolled) = actor.scroll_into_view(addr).await? {
            let states = actor.states(addr).await.unwrap_or_default();
            let moved = NodeData {
                states,
                ..node.clone()
            };
            if let Some(d) = self.pointer_click(app, actor, addr, &moved, doing).await? {
                return Ok(Performed {
                    method: format!("{scrolled}, then {}", d.method),
                });
            }
        }
        if let Outcome::Done(method) = actor.click_cell(addr).await? {
            return Ok(Performed { method });
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
        doing: Doing<'_>,
    ) -> Result<Performed> {
        let actions = match actor.action_names(addr).await {
            Ok(names) if !names.is_empty() => names.join(", "),
            _ => "none".to_owned(),
        };
        Err(Error::CellOutOfSight {
            doing: doing(),
            actions,
        })
    }

    /// Clicks (`Action::Click`, `RightClick` or `DoubleClick`), brings the
    /// pointer (`Action::Hover`), or drags with the primary button to
    /// another point (`Action::DragTo`), at a point of the screen, whatever
    /// is there.
    pub(crate) async fn click_at(&self, x: i32, y: i32, action: &Action) -> Result<Performed> {
        let doing = || match action {
            Action::DragTo { x: tx, y: ty } => format!("dragging from {x},{y} to {tx},{ty}"),
            _ => format!("{} the point {x},{y}", action.doing()),
        };
        let x11 = self.x11(doing)?;
        let clicked = pointer_of(action);
        let dragged = match action {
            Action::DragTo { x, y } => Some((*x, *y)),
            _ => None,
        };
        if clicked.is_none() && dragged.is_none() && *action != Action::Hover {
            return Err(Error::NotAClick { doing: doing() });
        }
        if [(x, y)]
            .into_iter()
            .chain(dragged)
            .any(|(x, y)| !on_screen(x11, x, y))
        {
            return Err(Error::OffScreen {
                doing: doing(),
                size: x11.screen_size(),
            });
        }
        if let Some(to) = dragged {
            pointer::drag(x11, (x, y), to).await?;
            return Ok(Performed {
                method: format!("XTest drag from {x},{y} to {},{}", to.0, to.1),
            });
        }
        let Some((button, count, what)) = clicked else {
            pointer::hover(x11, (x, y)).await?;
            return Ok(Performed {
                method: format!("XTest pointer moved to {x},{y}"),
            });
        };
        pointer::click(x11, (x, y), button, count, None).await?;
        Ok(Performed {
            method: format!("XTest {what} at {x},{y}"),
        })
    }

    /// Presses a key or chord in `app`, where its keyboard focus is. When
    /// the display would send the keys to another application's window
    /// (the focused one, or with no window manager the one under the
    /// pointer), `app`'s topmost window is raised and given the keyboard
    /// first, and the method says so.
    pub(crate) fn key(&self, app: &AppRef, chord: &str) -> Result<Performed> {
        let x11 = self.x11(|| format!("pressing {chord} in {}", app.label()))?;
        let moved = keys_to(x11, app, None)?;
        let held = held_elsewhere(x11, chord);
        x11.key(chord)?;
        Ok(Performed {
            method: format!("{moved}XTest {chord}{held}"),
        })
    }

    /// A PNG of the screen, or of an area of it (clipped to the screen).
    pub(crate) fn screenshot(&self, area: Option<Rect>) -> Result<Vec<u8>> {
        let x11 = self.x11(|| "taking a screenshot".into())?;
        let area = area.map(|r| (r.x, r.y, r.w.max(1) as u32, r.h.max(1) as u32));
        Ok(x11.screenshot(area)?)
    }
}

/// What a key's method says besides when another program holds `chord` on
/// the whole display (see [`X11::held_elsewhere`]): the key went there, not
/// to the application (xfwm4 takes ctrl+F5 to switch workspace, and the
/// answer was only `No UI changes detected`). Nothing when it cannot be
/// told.
pub(crate) fn held_elsewhere(x11: &X11, chord: &str) -> &'static str {
    match x11.held_elsewhere(chord) {
        Ok(true) => {
            ", a shortcut another program holds on the whole display (a window manager's or a desktop's): it went there"
        }
        Ok(false) => "",
        Err(e) => {
            tracing::debug!("{e}");
            ""
        }
    }
}
