//! One test per rule of how clicks are made (README, "Command line";
//! `docs/toolkits.md`), on facts alone: no desktop.

use super::*;

const SHOWN: [State; 3] = [State::Showing, State::Visible, State::Enabled];

/// What the pointer meets at an element's centre, 640,287, where its own
/// window is on top, with no menu or popover open.
fn reached() -> PointerFacts {
    PointerFacts {
        extents: true,
        ancestry: true,
        in_sight: true,
        aimed: Some(((640, 287), Reach::Element)),
        on_screen: true,
        menu_open: Some(false),
        popover_elsewhere: false,
    }
}

/// A showing, enabled element of `role` on a display, in a known process,
/// that the pointer reaches.
fn element(role: Role) -> ClickFacts {
    ClickFacts {
        role,
        states: StateSet::of(&SHOWN),
        display: true,
        pid_known: true,
        pointer: Some(reached()),
        ..ClickFacts::default()
    }
}

fn with_pointer(role: Role, change: impl FnOnce(&mut PointerFacts)) -> ClickFacts {
    let mut f = element(role);
    if let Some(p) = f.pointer.as_mut() {
        change(p);
    }
    f
}

const POINTER: ClickPlan = ClickPlan::Pointer { x: 640, y: 287 };

#[test]
fn push_buttons_menu_items_and_table_cells_are_clicked_with_the_pointer_when_it_reaches_them() {
    for role in [
        Role::PushButton,
        Role::MenuItem,
        Role::CheckMenuItem,
        Role::RadioMenuItem,
        Role::TableCell,
    ] {
        assert_eq!(plan_click(&element(role)), POINTER, "{role}");
    }
}

#[test]
fn other_elements_keep_their_accessible_action() {
    for role in [
        Role::CheckBox,
        Role::ToggleButton,
        Role::RadioButton,
        Role::Link,
    ] {
        assert_eq!(plan_click(&element(role)), ClickPlan::Action, "{role}");
    }
}

#[test]
fn without_a_display_or_a_process_a_click_is_accessible() {
    let mut no_display = element(Role::PushButton);
    no_display.display = false;
    assert_eq!(plan_click(&no_display), ClickPlan::Action);
    let mut no_pid = element(Role::PushButton);
    no_pid.pid_known = false;
    assert_eq!(plan_click(&no_pid), ClickPlan::Action);
}

#[test]
fn an_element_not_showing_visible_and_enabled_gets_its_accessible_action() {
    for missing in SHOWN {
        let mut f = element(Role::PushButton);
        f.states.remove(missing);
        assert_eq!(plan_click(&f), ClickPlan::Action, "without {missing:?}");
        assert_eq!(
            pointer_verdict(&f),
            PointerVerdict::NotUsed("not showing, visible and enabled".into())
        );
    }
}

#[test]
fn an_element_without_extents_or_a_readable_ancestry_gets_its_accessible_action() {
    let f = with_pointer(Role::PushButton, |p| p.extents = false);
    assert_eq!(plan_click(&f), ClickPlan::Action);
    let f = with_pointer(Role::PushButton, |p| p.ancestry = false);
    assert_eq!(plan_click(&f), ClickPlan::Action);
}

#[test]
fn a_push_button_under_another_window_gets_its_accessible_action() {
    let f = with_pointer(Role::PushButton, |p| {
        p.aimed = Some(((640, 287), Reach::Covered("the window \"Cover\"".into())))
    });
    assert_eq!(plan_click(&f), ClickPlan::Action);
    assert_eq!(
        pointer_verdict(&f),
        PointerVerdict::NotUsed("Covered(\"the window \\\"Cover\\\"\") at 640,287".into())
    );
    // Nor when the display cannot tell what is on top.
    let f = with_pointer(Role::PushButton, |p| {
        p.aimed = Some(((640, 287), Reach::Unknown))
    });
    assert_eq!(plan_click(&f), ClickPlan::Action);
}

#[test]
fn a_centre_off_the_screen_is_not_clicked_with_the_pointer() {
    let f = with_pointer(Role::PushButton, |p| {
        p.aimed = Some(((1400, 287), Reach::Element));
        p.on_screen = false;
    });
    assert_eq!(plan_click(&f), ClickPlan::Action);
}

#[test]
fn the_pointer_goes_where_the_display_shows_the_element() {
    // GTK 4 reports places within its window, GTK 3 at scale 2 unscaled
    // ones: the point aimed at is the display's, mapped.
    let f = with_pointer(Role::PushButton, |p| {
        p.aimed = Some(((498, 480), Reach::Element))
    });
    assert_eq!(plan_click(&f), ClickPlan::Pointer { x: 498, y: 480 });
}

#[test]
fn a_push_button_is_not_clicked_with_the_pointer_while_a_menu_is_open() {
    let f = with_pointer(Role::PushButton, |p| p.menu_open = Some(true));
    assert_eq!(plan_click(&f), ClickPlan::Action);
    assert_eq!(
        pointer_verdict(&f),
        PointerVerdict::NotUsed("a menu is open".into())
    );
}

#[test]
fn a_menu_the_display_cannot_rule_out_is_taken_as_open() {
    let f = with_pointer(Role::PushButton, |p| p.menu_open = None);
    assert_eq!(plan_click(&f), ClickPlan::Action);
}

#[test]
fn an_item_of_an_open_menu_is_clicked_with_the_pointer_inside_it() {
    let f = with_pointer(Role::MenuItem, |p| {
        p.menu_open = Some(true);
        p.popover_elsewhere = true;
    });
    assert_eq!(plan_click(&f), POINTER);
}

#[test]
fn a_push_button_is_not_clicked_with_the_pointer_while_a_popover_is_open_elsewhere() {
    let f = with_pointer(Role::PushButton, |p| p.popover_elsewhere = true);
    assert_eq!(plan_click(&f), ClickPlan::Action);
    assert_eq!(
        pointer_verdict(&f),
        PointerVerdict::NotUsed("a popover is open elsewhere in the window".into())
    );
}

#[test]
fn an_application_too_big_to_search_for_popovers_is_clicked_with_the_pointer() {
    // `Collection.GetMatches` would walk a huge container (Calc's sheet)
    // whole: the search is not made, and no popover is taken to be open.
    let f = with_pointer(Role::PushButton, |p| p.popover_elsewhere = false);
    assert_eq!(plan_click(&f), POINTER);
}

#[test]
fn a_gtk4_popover_item_reported_away_from_where_it_shows_gets_its_accessible_action() {
    // GTK 4.8 reports a popover at its button's corner: the window found
    // at the reported centre is not the item's.
    let f = with_pointer(Role::MenuItem, |p| {
        p.aimed = Some(((12, 30), Reach::Covered("the window \"GTK Demo\"".into())))
    });
    assert_eq!(plan_click(&f), ClickPlan::Action);
}

#[test]
fn a_cell_out_of_its_scroll_panes_sight_is_selected_through_its_table() {
    let f = with_pointer(Role::TableCell, |p| p.in_sight = false);
    assert_eq!(plan_click(&f), ClickPlan::SelectCell);
    // Out of the pointer's reach for any other reason, likewise: its
    // `activate` is a double click, never run in a click's place.
    let f = with_pointer(Role::TableCell, |p| {
        p.aimed = Some(((640, 287), Reach::Covered("a popup window".into())))
    });
    assert_eq!(plan_click(&f), ClickPlan::SelectCell);
    let mut hidden = element(Role::TableCell);
    hidden.states = StateSet::EMPTY;
    assert_eq!(plan_click(&hidden), ClickPlan::SelectCell);
}

#[test]
fn an_item_of_a_closed_menu_bar_menu_is_reached_by_opening_its_menus() {
    let mut f = element(Role::MenuItem);
    f.states = StateSet::of(&[State::Enabled, State::Visible]);
    f.pointer = None;
    f.menus_on_the_way = Some(2);
    assert_eq!(plan_click(&f), ClickPlan::OpenMenus);
    // Not in a menu bar's menu: its accessible action.
    f.menus_on_the_way = None;
    assert_eq!(plan_click(&f), ClickPlan::Action);
    // Opening menus needs a display, not the process.
    f.menus_on_the_way = Some(1);
    f.pid_known = false;
    assert_eq!(plan_click(&f), ClickPlan::OpenMenus);
    f.display = false;
    assert_eq!(plan_click(&f), ClickPlan::Action);
}

#[test]
fn a_disabled_menu_item_opens_no_menus() {
    let mut f = element(Role::MenuItem);
    f.states = StateSet::of(&[State::Visible, State::Sensitive]);
    f.pointer = None;
    f.menus_on_the_way = Some(1);
    assert_eq!(plan_click(&f), ClickPlan::Action);
}

#[test]
fn clicking_a_text_field_gives_it_the_keyboard_focus() {
    let mut f = element(Role::Text);
    f.text_field = true;
    assert_eq!(plan_click(&f), ClickPlan::Focus);
}

#[test]
fn a_push_button_menu_item_or_cell_in_a_window_a_modal_dialog_blocks_is_refused() {
    let blocked = |role: Role| ClickFacts {
        blocked_by: Some((Role::Dialog, "Open File".into())),
        ..element(role)
    };
    for role in [Role::PushButton, Role::MenuItem, Role::TableCell] {
        assert_eq!(
            plan_click(&blocked(role)),
            ClickPlan::Refuse(Refusal::Blocked {
                role: Role::Dialog,
                title: "Open File".into()
            }),
            "{role}"
        );
    }
    // Other elements are not looked at for it.
    assert_eq!(plan_click(&blocked(Role::CheckBox)), ClickPlan::Action);
    let error = Refusal::Blocked {
        role: Role::Dialog,
        title: "Open File".into(),
    }
    .error("clicking an element of app (pid 1)".into());
    assert_eq!(
        error.to_string(),
        "clicking an element of app (pid 1): the dialog \"Open File\" of the same application \
         is open and modal, so the element's window takes no input; answer that dialog first"
    );
}

#[test]
fn an_item_of_a_combo_box_without_selection_is_picked_in_its_opened_popup() {
    let mut f = element(Role::ListItem);
    f.in_combo_without_selection = true;
    assert_eq!(plan_click(&f), ClickPlan::PickInCombo);
    // A combo box with a selection (GTK's): the item's own action.
    f.in_combo_without_selection = false;
    assert_eq!(plan_click(&f), ClickPlan::Action);
    // Without a display the popup cannot be clicked in.
    f.in_combo_without_selection = true;
    f.display = false;
    assert_eq!(plan_click(&f), ClickPlan::Action);
}

#[test]
fn an_element_without_an_action_under_another_window_is_refused_naming_it() {
    let f = SynthesizedFacts {
        disabled: false,
        aimed: Some(((641, 416), Reach::Covered("the window \"Cover\"".into()))),
    };
    let plan = plan_synthesized(&f);
    assert_eq!(
        plan,
        ClickPlan::Refuse(Refusal::Covered {
            x: 641,
            y: 416,
            by: "the window \"Cover\"".into()
        })
    );
    let ClickPlan::Refuse(refusal) = plan else {
        return;
    };
    assert_eq!(
        refusal.error("clicking".into()).to_string(),
        "clicking: at 641,416, the element's centre, the window \"Cover\" is on top of it; \
         close that window or bring the element's to the front first"
    );
}

#[test]
fn an_element_without_an_action_is_clicked_at_its_centre() {
    for reach in [Reach::Element, Reach::Unknown] {
        let f = SynthesizedFacts {
            disabled: false,
            aimed: Some(((100, 200), reach)),
        };
        assert_eq!(plan_synthesized(&f), ClickPlan::Pointer { x: 100, y: 200 });
    }
}

#[test]
fn an_element_without_an_action_or_a_place_is_refused_and_a_disabled_one_says_so() {
    let place = |disabled| SynthesizedFacts {
        disabled,
        aimed: None,
    };
    assert_eq!(
        plan_synthesized(&place(true)),
        ClickPlan::Refuse(Refusal::Disabled)
    );
    assert_eq!(
        plan_synthesized(&place(false)),
        ClickPlan::Refuse(Refusal::NoBounds)
    );
}
