//! Gecko (`ToolkitName` `Gecko`): Firefox and Thunderbird, their windows
//! and the pages in them. It keeps every popup menu of its windows in the
//! tree, empty and hidden, gives the application object no `enabled`,
//! says how each element is laid out in its attributes (left out with
//! Chromium's, [`super::leave_out_layout_attributes`]), and shows a
//! `<select>`'s choice only as the selected item of its closed menu.

use uidelta_model::{Role, State};

use crate::capture::Rec;

/// Gecko keeps the popup menus of its windows (context menus, the menus of
/// toolbar buttons) in the tree while they are closed: nameless, empty and
/// hidden, three dozen in Thunderbird's main window. Such a menu says
/// nothing, and is left out; once open, it shows and has items, and is
/// there.
pub(crate) fn leave_out_closed_popups(recs: &mut [Rec]) {
    for r in recs.iter_mut() {
        let closed = !r.basic.states.contains(State::Showing);
        if closed
            && r.children.is_empty()
            && r.basic.name.trim().is_empty()
            && Role::from_name(&r.basic.raw_role) == Role::Menu
        {
            r.left_out = true;
        }
    }
}

/// A name as Gecko gives it: an internal document of its own window
/// (Thunderbird's account page, its message list) is named after its
/// `chrome://` address, which changes with the folder shown and says
/// nothing an agent reads; such a name is no name.
pub(crate) fn clean_name(name: &mut String) {
    if name.trim_start().starts_with("chrome://") {
        name.clear();
    }
}

/// The roles whose objects Gecko names after what they hold (a heading's,
/// a link's, a button's, a cell's text), and the page's document (named
/// after its title): read nameless, they are asked again, and a name given
/// then says the page was still filling in (see
/// `Profile::fills_in_silently`). Fields, lists and sections, often
/// nameless, say nothing either way.
pub(crate) fn names_fill_in(role: Role) -> bool {
    matches!(
        role,
        Role::DocumentWeb
            | Role::Heading
            | Role::Link
            | Role::PushButton
            | Role::ToggleButton
            | Role::CheckBox
            | Role::RadioButton
            | Role::PageTab
            | Role::TableCell
            | Role::ColumnHeader
            | Role::RowHeader
            | Role::TableColumnHeader
            | Role::TableRowHeader
            | Role::MenuItem
            | Role::CheckMenuItem
            | Role::RadioMenuItem
            | Role::Label
    )
}

/// Gecko's application object reports states, but never `enabled`: it is
/// not disabled, whatever the missing state would say.
pub(crate) fn enable_the_application(recs: &mut [Rec]) {
    for r in recs.iter_mut() {
        if Role::from_name(&r.basic.raw_role) == Role::Application && !r.basic.states.is_empty() {
            r.basic.states.insert(State::Enabled);
        }
    }
}

/// Gecko's window says it is focused while nothing in it is, and stops
/// when an element in it takes the focus; a walk reads one after the
/// other, so that a window just opened can read focused together with the
/// field that took the focus from it meanwhile (Thunderbird's message
/// window and its `To` field, on a busy machine). The keyboard is in one
/// place: what says it is focused around something that says so too
/// is not.
pub(crate) fn focus_is_innermost(recs: &mut [Rec]) {
    let parent = crate::capture::parents(recs);
    let mut around = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        if r.vanished || !r.basic.states.contains(State::Focused) {
            continue;
        }
        let mut at = parent[i];
        while let Some(a) = at {
            if recs[a].basic.states.contains(State::Focused) {
                around.push(a);
            }
            at = parent[a];
        }
    }
    for a in around {
        recs[a].basic.states.remove(State::Focused);
    }
}

/// Gecko gives an element's place in its group (`posinset`, `setsize`)
/// counting the siblings that show, and among those that do not, the ones
/// it was asked about before: an item of a closed menu is `posinset: 2`
/// or `1` as its siblings were read or not, and changes when the mirror
/// reads it again (Thunderbird's paragraph format menu). Of an element
/// that does not show, its place says what was asked, not what is, and
/// is left out; once it shows, its place is what an agent sees.
pub(crate) fn leave_out_the_place_of_what_does_not_show(recs: &mut [Rec]) {
    for r in recs.iter_mut() {
        if !r.basic.states.contains(State::Showing) {
            r.attributes
                .retain(|(k, _)| k != "posinset" && k != "setsize");
        }
    }
}

/// A `<select>` is a combo box with neither name nor value of its own: the
/// option it shows is the selected item of the menu it holds (closed, the
/// others hidden). That option is its value (`combo box "Size" =
/// "Large"`), as GTK 3's and Chromium's combo boxes say theirs.
pub(crate) fn combo_boxes_show_their_choice_as_value(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut chosen = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let valueless = r.value.as_deref().is_none_or(|v| v.trim().is_empty());
        if r.vanished || role(r) != Role::ComboBox || !valueless {
            continue;
        }
        let menus = r
            .children
            .iter()
            .copied()
            .filter(|&c| !recs[c].vanished && role(&recs[c]) == Role::Menu);
        let selected: Vec<&str> = menus
            .flat_map(|m| recs[m].children.iter().copied())
            .filter(|&c| !recs[c].vanished && recs[c].basic.states.contains(State::Selected))
            .map(|c| recs[c].basic.name.trim())
            .collect();
        if let [one] = selected[..] {
            if !one.is_empty() {
                chosen.push((i, one.to_owned()));
            }
        }
    }
    for (i, value) in chosen {
        recs[i].value = Some(value);
    }
}

/// The options of a closed `<select>` (see
/// [`combo_boxes_show_their_choice_as_value`]): Gecko says the selected one
/// shows, where the combo box shows it as its value. None of them shows
/// or is selected while the popup is closed, so that a choice is one
/// line, the combo box's value; open, they say what they are.
pub(crate) fn hide_the_options_of_closed_combo_boxes(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut options = Vec::new();
    for r in recs.iter() {
        let states = r.basic.states;
        let closed = states.contains(State::Expandable) && !states.contains(State::Expanded);
        if r.vanished || role(r) != Role::ComboBox || !closed || r.value.is_none() {
            continue;
        }
        for &m in &r.children {
            if recs[m].vanished || role(&recs[m]) != Role::Menu {
                continue;
            }
            options.extend(
                recs[m]
                    .children
                    .iter()
                    .copied()
                    .filter(|&c| role(&recs[c]) == Role::MenuItem),
            );
        }
    }
    for o in options {
        let states = &mut recs[o].basic.states;
        states.remove(State::Showing);
        states.remove(State::Selected);
    }
}

/// Gecko names a field after the `<label>` that holds it, and names the
/// label after all the text in it, the field's own included: `label
/// "Name Ann"` around `entry "Name" = "Ann"`, so that every letter typed
/// is two lines. A label that holds a named field says nothing the field
/// does not: what is in it takes its place.
pub(crate) fn lift_labels_around_their_fields(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let field = |r: &Rec| {
        matches!(
            role(r),
            Role::Entry
                | Role::PasswordText
                | Role::SpinButton
                | Role::Slider
                | Role::ComboBox
                | Role::CheckBox
                | Role::RadioButton
                | Role::ToggleButton
                | Role::Text
        ) && !r.basic.name.trim().is_empty()
    };
    let lifted: Vec<usize> = (0..recs.len())
        .filter(|&i| {
            let r = &recs[i];
            !r.vanished
                && role(r) == Role::Label
                && r.children
                    .iter()
                    .any(|&c| !recs[c].vanished && field(&recs[c]))
        })
        .collect();
    for i in lifted {
        recs[i].lifted = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::assemble;
    use crate::capture::fixtures::{rec, recs};

    #[test]
    fn gecko_closed_popup_menus_are_left_out_and_open_ones_stay() {
        let mut r = recs(&[
            ("frame", &[State::Showing], &[1, 2, 3, 5]),
            // Closed, empty, nameless: left out.
            ("menu", &[State::Enabled], &[]),
            // A menu of the menu bar, named: stays.
            ("menu", &[State::Enabled], &[]),
            // Open: shows, with items.
            ("menu", &[State::Enabled, State::Showing], &[4]),
            ("menu item", &[State::Enabled, State::Showing], &[]),
            ("push button", &[State::Enabled, State::Showing], &[]),
        ]);
        r[2].basic.name = "File".into();
        leave_out_closed_popups(&mut r);
        let tree = assemble(r);
        let roles: Vec<Role> = tree.nodes().iter().map(|n| n.role).collect();
        assert_eq!(
            roles,
            [
                Role::Frame,
                Role::Menu,
                Role::Menu,
                Role::MenuItem,
                Role::PushButton
            ]
        );
        assert_eq!(tree.nodes()[1].name, "File");
    }

    #[test]
    fn gecko_internal_documents_named_after_their_address_are_nameless() {
        let mut page =
            "chrome://messenger/content/msgAccountCentral.xhtml?folderURI=mailbox%3A%2F%2Fann"
                .to_owned();
        clean_name(&mut page);
        assert_eq!(page, "");
        // A page's own address, or a name that mentions one, stays.
        for kept in [
            "https://example.org/",
            "Open chrome://settings in a tab",
            "Inbox",
        ] {
            let mut name = kept.to_owned();
            clean_name(&mut name);
            assert_eq!(name, kept);
        }
    }

    #[test]
    fn gecko_application_is_enabled() {
        let mut r = recs(&[
            ("application", &[State::Showing], &[1]),
            ("frame", &[State::Showing, State::Enabled], &[]),
        ]);
        enable_the_application(&mut r);
        assert!(r[0].basic.states.contains(State::Enabled));
        // An application that reports no states at all is left saying none.
        let mut bare = recs(&[("application", &[], &[])]);
        enable_the_application(&mut bare);
        assert!(bare[0].basic.states.is_empty());
    }

    #[test]
    fn gecko_focus_is_on_the_innermost_element_that_says_so() {
        let mut r = recs(&[
            ("application", &[], &[1, 3]),
            ("frame", &[State::Showing, State::Focused], &[2]),
            ("entry", &[State::Showing, State::Focused], &[]),
            // A window that says it is focused with nothing focused in it
            // keeps it.
            ("frame", &[State::Showing, State::Focused], &[4]),
            ("entry", &[State::Showing], &[]),
        ]);
        focus_is_innermost(&mut r);
        let focused: Vec<bool> = r
            .iter()
            .map(|r| r.basic.states.contains(State::Focused))
            .collect();
        assert_eq!(focused, [false, false, true, true, false]);
    }

    #[test]
    fn gecko_places_of_elements_that_do_not_show_are_left_out() {
        let mut r = recs(&[
            ("menu", &[State::Showing], &[1, 2]),
            ("menu item", &[State::Enabled], &[]),
            ("menu item", &[State::Enabled, State::Showing], &[]),
        ]);
        for item in r.iter_mut().skip(1) {
            item.attributes = [("posinset", "2"), ("setsize", "9"), ("level", "1")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        }
        leave_out_the_place_of_what_does_not_show(&mut r);
        let keys =
            |i: usize| -> Vec<&str> { r[i].attributes.iter().map(|(k, _)| k.as_str()).collect() };
        assert_eq!(keys(1), ["level"]);
        assert_eq!(keys(2), ["posinset", "setsize", "level"]);
    }

    #[test]
    fn gecko_labels_around_named_fields_give_way_to_them() {
        let mut r = vec![
            rec("form", "", &[1, 3, 5]),
            rec("label", "Name Ann", &[2]),
            rec("entry", "Name", &[]),
            // Around a field it does not name: it stays.
            rec("label", "Notes", &[4]),
            rec("entry", "", &[]),
            rec("label", "Total", &[]),
        ];
        r[2].value = Some("Ann".into());
        lift_labels_around_their_fields(&mut r);
        let tree = assemble(r);
        let lines: Vec<(Role, &str)> = tree
            .nodes()
            .iter()
            .map(|n| (n.role, n.name.as_str()))
            .collect();
        assert_eq!(
            lines,
            [
                (Role::Form, ""),
                (Role::Entry, "Name"),
                (Role::Label, "Notes"),
                (Role::Entry, ""),
                (Role::Label, "Total"),
            ]
        );
        assert_eq!(tree.nodes()[1].value.as_deref(), Some("Ann"));
        // The entry is the form's child, where the label was.
        assert_eq!(tree.children(tree.root()).len(), 3);
    }

    #[test]
    fn gecko_options_of_closed_selects_neither_show_nor_are_selected() {
        let mut r = vec![
            rec("form", "", &[1, 4]),
            rec("combo box", "Size", &[2]),
            rec("menu", "", &[3]),
            rec("menu item", "Small", &[]),
            rec("combo box", "Colour", &[5]),
            rec("menu", "", &[6]),
            rec("menu item", "Red", &[]),
        ];
        let on = |r: &mut Rec, states: &[State]| {
            for s in states {
                r.basic.states.insert(*s);
            }
        };
        on(&mut r[1], &[State::Expandable]);
        on(&mut r[3], &[State::Showing, State::Selected]);
        // Open: its options say what they are.
        on(&mut r[4], &[State::Expandable, State::Expanded]);
        on(&mut r[6], &[State::Showing, State::Selected]);
        combo_boxes_show_their_choice_as_value(&mut r);
        hide_the_options_of_closed_combo_boxes(&mut r);
        assert_eq!(r[1].value.as_deref(), Some("Small"));
        assert!(!r[3].basic.states.contains(State::Showing));
        assert!(!r[3].basic.states.contains(State::Selected));
        assert!(r[6].basic.states.contains(State::Showing));
        assert!(r[6].basic.states.contains(State::Selected));
    }

    #[test]
    fn gecko_selects_show_their_selected_option_as_value() {
        let mut r = vec![
            rec("form", "", &[1, 5, 8]),
            rec("combo box", "", &[2]),
            rec("menu", "", &[3, 4]),
            rec("menu item", "Small", &[]),
            rec("menu item", "Large ", &[]),
            // Nothing selected: no value.
            rec("combo box", "Colour", &[6]),
            rec("menu", "", &[7]),
            rec("menu item", "Red", &[]),
            // An address bar has a text of its own: kept.
            rec("combo box", "Search or enter address", &[9]),
            rec("menu", "", &[10]),
            rec("menu item", "example.org", &[]),
        ];
        r[4].basic.states.insert(State::Selected);
        r[8].value = Some("file:///tmp/a.html".into());
        r[10].basic.states.insert(State::Selected);
        combo_boxes_show_their_choice_as_value(&mut r);
        assert_eq!(r[1].value.as_deref(), Some("Large"));
        assert_eq!(r[5].value, None);
        assert_eq!(r[8].value.as_deref(), Some("file:///tmp/a.html"));
    }
}
