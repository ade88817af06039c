//! Items of combo boxes whose options accessibility cannot choose: Qt's,
//! which offer no selection (picked by opening the popup and clicking the
//! item in it), and Gecko's `<select>`, whose popup items have no place
//! and whose selection tells the page nothing (picked with keys in the
//! opened popup, as a person does).

use std::time::{Duration, Instant};

use uidelta_atspi::{Actor, AppRef, NodeAddr, Outcome};
use uidelta_backend::Performed;
use uidelta_model::{NodeData, Role};
use uidelta_x11::{Button, X11};

use super::{Doing, MENU_OPENS};
use crate::coords::rect_of;
use crate::reach::Reach;
use crate::{Error, Linux, Result};

/// A combo box whose options accessibility cannot choose, and the list of
/// its popup that holds an item.
pub(crate) struct Combo {
    /// The list.
    list: NodeAddr,
    /// The combo box.
    combo: NodeAddr,
    /// Whether its options are chosen with keys (Gecko's, see
    /// [`uidelta_atspi::Profile::picks_combo_options_with_keys`]), not
    /// with the pointer.
    keyed: bool,
}

impl Linux {
    /// The combo box `node` (at `addr`) is an item of, when it is a list
    /// item of a combo box that offers no selection to accessibility
    /// (Qt's); `None` otherwise, or when that cannot be read.
    pub(super) async fn combo_of(
        &self,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
    ) -> Option<Combo> {
        let keyed = actor.profile().picks_combo_options_with_keys();
        let item = if keyed {
            Role::MenuItem
        } else {
            Role::ListItem
        };
        if node.role != item {
            return None;
        }
        let list = actor.parent(addr).await.ok()?;
        let combo = actor.parent(&list).await.ok()?;
        if !matches!(actor.role(&combo).await, Ok(Role::ComboBox)) {
            return None;
        }
        if !keyed
            && actor
                .has(&combo, uidelta_atspi::interfaces::SELECTION)
                .await
                .unwrap_or(true)
        {
            return None;
        }
        Some(Combo { list, combo, keyed })
    }

    /// Picks the item at `addr` of `combo` (see [`Linux::combo_of`]): opens
    /// the combo box's popup, then clicks the item in it with the pointer.
    /// Qt keeps the items in the tree, marked showing, while the popup is
    /// closed; selecting one there only marks it in the hidden list, and a
    /// click at its place lands on whatever the window shows there. An
    /// error when the popup does not open in time or the item cannot be
    /// clicked in it (the popup is closed again then).
    pub(super) async fn pick_in_combo(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        combo: &Combo,
        doing: Doing<'_>,
    ) -> Result<Performed> {
        if combo.keyed {
            return self.pick_with_keys(actor, addr, combo, doing).await;
        }
        let x11 = self.x11(doing)?;
        let Combo { list, combo, .. } = combo;
        let failed = |why: String| Error::NotPicked {
            doing: doing(),
            why,
        };
        let opened = open_popup(x11, actor.click(combo), &failed).await?;
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
        let area = actor.extents(list).await.ok().and_then(rect_of);
        let Some(shown) = item.and_then(|i| area.map_or(Some(i), |a| i.intersection(&a))) else {
            return close("the item has no place in the combo box's popup".into());
        };
        let ((cx, cy), reach) = self.aim(x11, app, actor, addr, shown.center()).await;
        if reach != Reach::Element {
            return close(format!(
                "the item's place in the popup, {cx},{cy}, is not the popup's window"
            ));
        }
        super::pointer::click_for(x11, actor, (cx, cy), Button::Left, 1).await?;
        Ok(Performed {
            method: format!("{opened}XTest click at {cx},{cy}"),
        })
    }

    /// Picks the item at `addr` of a combo box whose options are chosen
    /// with keys (Gecko's `<select>`): opens its popup with its `open`
    /// action, then goes to the first option (`Home`) and down to the
    /// item, counting the enabled items before it (the keys pass over
    /// disabled ones), and presses `Return`, which chooses it as a person
    /// does, the page told of the change. An error when the popup does not
    /// open in time, or when the item is not chosen afterwards.
    async fn pick_with_keys(
        &self,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        combo: &Combo,
        doing: Doing<'_>,
    ) -> Result<Performed> {
        use uidelta_model::State;
        let x11 = self.x11(doing)?;
        let failed = |why: String| Error::NotPicked {
            doing: doing(),
            why,
        };
        let mut downs = None;
        let mut enabled = 0;
        for item in actor.children(&combo.list).await? {
            if item == *addr {
                downs = Some(enabled);
                break;
            }
            let is_option = matches!(actor.role(&item).await, Ok(Role::MenuItem));
            if is_option && actor.states(&item).await?.contains(State::Enabled) {
                enabled += 1;
            }
        }
        let Some(downs) = downs else {
            return Err(failed("the item is no longer in its combo box".into()));
        };
        if !actor.states(addr).await?.contains(State::Enabled) {
            return Err(failed("the option is disabled".into()));
        }
        let opened = open_popup(x11, actor.invoke(&combo.combo, "open"), &failed).await?;
        x11.key("Home")?;
        for _ in 0..downs {
            x11.key("Down")?;
        }
        x11.key("Return")?;
        let end = Instant::now() + MENU_OPENS;
        loop {
            if actor.states(addr).await?.contains(State::Selected) {
                break;
            }
            if Instant::now() >= end {
                return Err(failed(format!(
                    "the option was not chosen: `Home`, {downs} × `Down` and `Return` in the \
                     combo box's popup left another selected"
                )));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(Performed {
            method: format!("{opened}XTest Home, {downs} × Down, Return"),
        })
    }
}

/// Opens a combo box's popup with the accessible action `open` answers,
/// unless a menu is open already, and waits for it to show. Answers how
/// it was opened, to go before what is done in it (`Action.press on the
/// combo box, then `), or nothing when it was open.
async fn open_popup(
    x11: &X11,
    open: impl std::future::Future<Output = uidelta_atspi::Result<Outcome>>,
    failed: &(dyn Fn(String) -> Error + Sync),
) -> Result<String> {
    if x11.menu_open().unwrap_or(false) {
        return Ok(String::new());
    }
    let Ok(Outcome::Done(method)) = open.await else {
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
    Ok(format!("{method} on the combo box, then "))
}
