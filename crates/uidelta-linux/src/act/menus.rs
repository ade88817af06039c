//! Menu items of closed menus: reached as a person reaches them, by opening
//! the menus on the way from the menu bar, then clicked with the pointer.

use std::time::{Duration, Instant};

use uidelta_atspi::{Actor, AppRef, NodeAddr, Outcome};
use uidelta_backend::Performed;
use uidelta_model::{NodeData, Role, State};

use super::plan::{plan_click, ClickFacts, ClickPlan};
use super::pointer::log_no_pointer;
use super::{Doing, MENU_DEPTH, MENU_OPENS};
use crate::{Linux, Result};

impl Linux {
    /// The menus between the menu item at `addr` and its menu bar,
    /// innermost first; `None` when it is not in a menu bar's menu (or more
    /// than [`MENU_DEPTH`] menus deep), or that cannot be read.
    pub(super) async fn menus_on_the_way(
        &self,
        actor: &Actor<'_>,
        addr: &NodeAddr,
    ) -> Option<Vec<NodeAddr>> {
        let mut menus = Vec::new();
        let mut at = addr.clone();
        loop {
            let parent = actor.parent(&at).await.ok()?;
            match actor.role(&parent).await {
                Ok(Role::Menu) if menus.len() < MENU_DEPTH => menus.push(parent.clone()),
                Ok(Role::MenuBar) if !menus.is_empty() => break,
                _ => return None,
            }
            at = parent;
        }
        Some(menus)
    }

    /// Clicks an item of a closed menu of a menu bar as a person would:
    /// opens `menus` (see [`Linux::menus_on_the_way`]), then plans the click
    /// again with the item's states read fresh, and clicks it with the
    /// pointer. `None` when its menus do not open in time or the pointer
    /// cannot click it after all; the menus opened are closed again then,
    /// and the accessible action is used.
    ///
    /// For the same reason as [`Linux::pointer_click`]: the accessible
    /// action on a menu item runs its handler inside the call, and many
    /// File > Open... and Preferences items run a modal dialog there.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn menu_click(
        &self,
        app: &AppRef,
        actor: &Actor<'_>,
        addr: &NodeAddr,
        node: &NodeData,
        facts: &ClickFacts,
        menus: &[NodeAddr],
        doing: Doing<'_>,
    ) -> Result<Option<Performed>> {
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
        // Planned again as the item shows now: the menus are open.
        let mut again = ClickFacts {
            states,
            pointer: None,
            menus_on_the_way: None,
            ..facts.clone()
        };
        again.pointer = self.pointer_facts(app, actor, addr, &again).await;
        match plan_click(&again) {
            ClickPlan::Pointer { x, y } => match self.pointer_at(actor, x, y, doing).await {
                Ok(d) => Ok(Some(Performed {
                    method: format!("menus opened, then {}", d.method),
                })),
                Err(e) => {
                    self.close_menus(opened);
                    Err(e)
                }
            },
            _ => {
                log_no_pointer(&again, &shown);
                Ok(self.close_menus(opened))
            }
        }
    }

    /// Closes up to `opened` menus this action opened, one Escape each while
    /// a menu is still open. Always `None`: the caller goes on without them.
    fn close_menus(&self, opened: usize) -> Option<Performed> {
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
}
