//! How a click is made, decided from facts alone: [`plan_click`] takes
//! what was read of the element, its application and the display
//! ([`ClickFacts`]) and answers a [`ClickPlan`]; [`plan_synthesized`]
//! decides the synthesized click at an element's centre that an element
//! without an accessible click gets. Nothing here talks to the bus or the
//! display, so every rule is tested without a desktop (`plan/tests.rs`).

use uidelta_model::{Role, State, StateSet};

use crate::reach::Reach;
use crate::Error;

/// What is known of an element to click, read before anything is done.
///
/// Facts are read in the order the rules look at them; a fact that an
/// earlier one makes irrelevant (the pointer is ruled out already, the
/// element is no menu item) is not read, and keeps its default.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ClickFacts {
    /// The element's role.
    pub role: Role,
    /// Its states, as captured (or read fresh once menus opened).
    pub states: StateSet,
    /// Whether it is a text field (an editable entry, text area or spin
    /// button).
    pub text_field: bool,
    /// Whether there is an X display to synthesize input on.
    pub display: bool,
    /// Whether the application's process is known (it tells its windows
    /// from others on the display).
    pub pid_known: bool,
    /// Whether it is an item of a combo box that offers no selection to
    /// accessibility (Qt's), whose items stay in the tree while its popup
    /// is closed, or of one whose options are chosen with keys (Gecko's
    /// `<select>`).
    pub in_combo_without_selection: bool,
    /// The modal window of the application that takes its input instead of
    /// the element's window: its role and title.
    pub blocked_by: Option<(Role, String)>,
    /// What the pointer would meet at the element's centre; `None` when it
    /// was not looked at (no display, another role, not showing).
    pub pointer: Option<PointerFacts>,
    /// For an item of a closed menu of a menu bar, the menus between it and
    /// the menu bar (that would be opened on the way); `None` otherwise.
    pub menus_on_the_way: Option<usize>,
}

/// What the pointer would meet at an element's centre, read in order: a
/// fact after the first that rules the pointer out is not read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PointerFacts {
    /// Whether it reports extents.
    pub extents: bool,
    /// Whether its ancestors up to its top-level window could be read.
    pub ancestry: bool,
    /// Whether its centre lies inside the part of its table (and scroll
    /// pane) that is on view; always true for an element not in a table.
    pub in_sight: bool,
    /// Where on the display the pointer would go, and what it would reach
    /// there.
    pub aimed: Option<((i32, i32), Reach)>,
    /// Whether that point is on the screen.
    pub on_screen: bool,
    /// Whether a menu is open and holds the pointer; `None` when the display
    /// cannot tell (taken as open).
    pub menu_open: Option<bool>,
    /// Whether a popover other than one holding the element is open in its
    /// window (GTK 3 draws it inside the window).
    pub popover_elsewhere: bool,
}

impl Default for PointerFacts {
    fn default() -> Self {
        PointerFacts {
            extents: false,
            ancestry: false,
            in_sight: true,
            aimed: None,
            on_screen: false,
            menu_open: None,
            popover_elsewhere: false,
        }
    }
}

/// How a click is made.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ClickPlan {
    /// Open the combo box's popup, then click the item in it with the
    /// pointer.
    PickInCombo,
    /// A click with the pointer at this point of the display.
    Pointer {
        /// Where.
        x: i32,
        /// Where.
        y: i32,
    },
    /// Open the menus on the way to the item, then plan again with its
    /// states read fresh (a pointer click, else its accessible action).
    OpenMenus,
    /// Give the text field the keyboard focus (`Component.GrabFocus`).
    Focus,
    /// Select the table cell through its table; when its table cannot, the
    /// cell is scrolled into view and clicked, or clicked through a click
    /// action of its own.
    SelectCell,
    /// The element's accessible click action (the first of click, press,
    /// activate, toggle, jump, select); without one, a synthesized click
    /// at its centre ([`plan_synthesized`]).
    Action,
    /// Nothing is done, for this reason.
    Refuse(Refusal),
}

/// Why a click is not made.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Refusal {
    /// A modal window of the same application blocks the element's window.
    Blocked {
        /// The modal window's role.
        role: Role,
        /// Its title.
        title: String,
    },
    /// Another window is on top of the element at its centre.
    Covered {
        /// The point.
        x: i32,
        /// The point.
        y: i32,
        /// What is on top.
        by: String,
    },
    /// The element is disabled and has no place to click at.
    Disabled,
    /// The element has no place to click at.
    NoBounds,
}

impl Refusal {
    /// The error for this refusal while `doing`.
    pub(crate) fn error(self, doing: String) -> Error {
        match self {
            Refusal::Blocked { role, title } => Error::Blocked {
                doing,
                role: role.to_string(),
                title,
            },
            Refusal::Covered { x, y, by } => Error::Covered { doing, x, y, by },
            Refusal::Disabled => Error::Disabled { doing },
            Refusal::NoBounds => Error::NoBounds { doing },
        }
    }
}

/// Whether `role` is a menu item's.
pub(crate) fn is_menu_item(role: Role) -> bool {
    matches!(
        role,
        Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem
    )
}

/// Whether the element says it is disabled: it reports states, and
/// `enabled` is not among them.
pub(crate) fn is_disabled(states: StateSet) -> bool {
    !states.is_empty() && !states.contains(State::Enabled)
}

/// Whether the element is showing, visible and enabled: one the pointer can
/// reach.
pub(crate) fn shown(states: StateSet) -> bool {
    [State::Showing, State::Visible, State::Enabled]
        .iter()
        .all(|s| states.contains(*s))
}

/// Whether an element of `role` is one the pointer clicks when it can reach
/// it. Push buttons and menu items are what opens dialogs. A table cell's
/// accessible action is no click: GTK's `activate` is a double click (the
/// row is activated: gtk3-demo runs the demo), and its `toggle` leaves a
/// check box cell as it was. Other elements keep their accessible action,
/// which also works when the application holds its own input grab (as GTK
/// can after a combo box selection made through accessibility) and a
/// pointer click would go nowhere.
pub(crate) fn pointer_first(role: Role) -> bool {
    matches!(role, Role::PushButton | Role::TableCell) || is_menu_item(role)
}

/// Whether the element is an item of a closed menu of a menu bar, to be
/// reached by opening its menus: a menu item that is not showing (a
/// disabled one cannot be clicked: its menus stay closed), on a display.
pub(crate) fn reached_through_menus(f: &ClickFacts) -> bool {
    is_menu_item(f.role)
        && f.display
        && !f.states.contains(State::Showing)
        && !is_disabled(f.states)
}

/// What [`pointer_verdict`] answers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PointerVerdict {
    /// The pointer clicks here.
    At(i32, i32),
    /// The pointer is not used, for this reason (logged).
    NotUsed(String),
    /// The pointer does not come into it: no display or process, or a role
    /// that keeps its accessible action.
    NotApplicable,
}

/// Whether the pointer clicks the element, and where: a push button, a
/// menu item or a table cell that is showing and enabled, whose centre is
/// on the screen with its own window on top there (a cell's inside the
/// visible part of its scroll pane), and (but for a menu item, which is in
/// the open menu) with no menu open and no popover open elsewhere in its
/// window.
pub(crate) fn pointer_verdict(f: &ClickFacts) -> PointerVerdict {
    if !(f.display && f.pid_known && pointer_first(f.role)) {
        return PointerVerdict::NotApplicable;
    }
    let not_used = |why: &str| PointerVerdict::NotUsed(why.to_owned());
    let in_menu = is_menu_item(f.role);
    if !shown(f.states) {
        return not_used("not showing, visible and enabled");
    }
    let Some(p) = &f.pointer else {
        return not_used("not looked at");
    };
    if !p.extents {
        return not_used("no extents");
    }
    if !p.ancestry {
        return not_used("its ancestry could not be read");
    }
    if f.role == Role::TableCell && !p.in_sight {
        return not_used("out of its scroll pane's sight");
    }
    let Some(((x, y), reach)) = &p.aimed else {
        return not_used("not aimed");
    };
    if *reach != Reach::Element || !p.on_screen {
        return PointerVerdict::NotUsed(format!("{reach:?} at {x},{y}"));
    }
    if !in_menu && p.menu_open.unwrap_or(true) {
        return not_used("a menu is open");
    }
    if !in_menu && p.popover_elsewhere {
        return not_used("a popover is open elsewhere in the window");
    }
    PointerVerdict::At(*x, *y)
}

/// How a click on an element is made, from what was read of it (see
/// [`ClickFacts`]):
///
/// 1. an item of a combo box without a selection (Qt's), or whose options
///    are chosen with keys (Gecko's), is picked in the combo box's opened
///    popup;
/// 2. a push button, menu item or table cell in a window that a modal
///    window of the same application blocks is refused;
/// 3. a push button, menu item or table cell that the pointer can reach
///    (see [`pointer_verdict`]) is clicked with the pointer;
/// 4. an item of a closed menu of a menu bar is reached by opening its
///    menus;
/// 5. a text field is given the keyboard focus, as a click does (its
///    accessible action presses Enter);
/// 6. a table cell is selected through its table (its `activate` is a
///    double click);
/// 7. anything else gets its accessible click action, or without one a
///    synthesized click at its centre.
pub(crate) fn plan_click(f: &ClickFacts) -> ClickPlan {
    if f.display && f.pid_known && f.in_combo_without_selection {
        return ClickPlan::PickInCombo;
    }
    if let Some((role, title)) = f.blocked_by.as_ref().filter(|_| pointer_first(f.role)) {
        return ClickPlan::Refuse(Refusal::Blocked {
            role: *role,
            title: title.clone(),
        });
    }
    if let PointerVerdict::At(x, y) = pointer_verdict(f) {
        return ClickPlan::Pointer { x, y };
    }
    if reached_through_menus(f) && f.menus_on_the_way.is_some_and(|n| n > 0) {
        return ClickPlan::OpenMenus;
    }
    accessible_click(f)
}

/// How a click is made when neither the pointer nor the menus reach the
/// element: steps 5 to 7 of [`plan_click`].
pub(crate) fn accessible_click(f: &ClickFacts) -> ClickPlan {
    if f.text_field {
        ClickPlan::Focus
    } else if f.role == Role::TableCell {
        ClickPlan::SelectCell
    } else {
        ClickPlan::Action
    }
}

/// What is known of an element that gets synthesized input at its centre
/// (it offers no accessible way to do what was asked).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SynthesizedFacts {
    /// Whether it says it is disabled.
    pub disabled: bool,
    /// Where on the display its centre is, and what the pointer would reach
    /// there; `None` when it reports no extents.
    pub aimed: Option<((i32, i32), Reach)>,
}

/// Where synthesized input goes: the element's centre, unless another
/// window is on top there (then the input would land on something else),
/// or it has no place (a disabled one is named so: applications ignore
/// clicks on disabled elements). When the display cannot tell what is on
/// top, the input goes to the centre.
pub(crate) fn plan_synthesized(f: &SynthesizedFacts) -> ClickPlan {
    match &f.aimed {
        None if f.disabled => ClickPlan::Refuse(Refusal::Disabled),
        None => ClickPlan::Refuse(Refusal::NoBounds),
        Some(((x, y), Reach::Covered(by))) => ClickPlan::Refuse(Refusal::Covered {
            x: *x,
            y: *y,
            by: by.clone(),
        }),
        Some(((x, y), Reach::Element | Reach::Unknown)) => ClickPlan::Pointer { x: *x, y: *y },
    }
}

#[cfg(test)]
mod tests;
