//! Items of Qt's combo boxes, which offer no selection to accessibility:
//! picked by opening the popup and clicking the item in it.

use std::time::{Duration, Instant};

use uidelta_atspi::{Actor, AppRef, NodeAddr, Outcome};
use uidelta_backend::Performed;
use uidelta_model::{NodeData, Role};
use uidelta_x11::Button;

use super::{Doing, MENU_OPENS};
use crate::coords::rect_of;
use crate::reach::Reach;
use crate::{Error, Linux, Result};

/// A combo box that offers no selection to accessibility, and the list of
/// its popup that holds an item.
pub(crate) struct Combo {
    /// The list.
    list: NodeAddr,
    /// The combo box.
    combo: NodeAddr,
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
        if node.role != Role::ListItem {
            return None;
        }
        let list = actor.parent(addr).await.ok()?;
        let combo = actor.parent(&list).await.ok()?;
        if !matches!(actor.role(&combo).await, Ok(Role::ComboBox))
            || actor
                .has(&combo, uidelta_atspi::interfaces::SELECTION)
                .await
                .unwrap_or(true)
        {
            return None;
        }
        Some(Combo { list, combo })
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
        let x11 = self.x11(doing)?;
        let Combo { list, combo } = combo;
        let failed = |why: String| Error::NotPicked {
            doing: doing(),
            why,
        };
        let mut opened = String::new();
        if !x11.menu_open().unwrap_or(false) {
            let Ok(Outcome::Done(method)) = actor.click(combo).await else {
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
        x11.click(cx, cy, Button::Left, 1)?;
        Ok(Performed {
            method: format!("{opened}XTest click at {cx},{cy}"),
        })
    }
}
