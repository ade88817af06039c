//! GTK 2 through its accessibility module, GAIL (`ToolkitName` `GAIL`):
//! GIMP 2.10 and the older GTK applications. GAIL exports the widgets an
//! application hid as well as those it shows, and never says which of its
//! menus is open (see `uidelta-linux`, which asks the display).

use uidelta_model::{Role, State};

use crate::capture::{is_window_rec, Rec};

/// GAIL exports every widget an application made, also those it hid
/// (`gtk_widget_hide`): the placeholder `Empty` item and the tear-off of
/// each of GIMP's menus, a hundred separators between groups of items that
/// are not there, a `Debug` menu, the columns and buttons a dialog keeps
/// for another mode. Such a widget says neither `visible` nor `showing`
/// (an insensitive one no state at all), and nobody can see or reach it:
/// it is left out with all that is in it. Windows say for themselves, and
/// so does the popup menu of a combo box, hidden while closed, whose items
/// are the options an agent chooses by name.
pub(crate) fn leave_out_hidden_widgets(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut keep = vec![false; recs.len()];
    for r in recs.iter() {
        if role(r) == Role::ComboBox {
            for &c in &r.children {
                keep[c] = role(&recs[c]) == Role::Menu;
            }
        }
    }
    for (i, r) in recs.iter_mut().enumerate() {
        let hidden = !r.basic.states.contains(State::Visible);
        if i != 0 && hidden && !keep[i] && !is_window_rec(r) && role(r) != Role::Application {
            r.left_out = true;
        }
    }
}

/// GAIL gives a widget's tooltip as its description, where a screen
/// reader reads it, and GIMP leaves most of its icon buttons and fields
/// nameless, their tooltips saying what they are for (`Save Tool
/// Preset...`, a spin scale's `X coordinate of top left corner`, whose
/// label it draws itself). A nameless button, toggle, check box, radio
/// button, spin button, slider or combo box is named after its tooltip's
/// first line, once a label before it had its chance (see
/// [`super::name_after_tooltip`]).
pub(crate) fn name_controls_after_their_tooltip(recs: &mut [Rec]) {
    super::name_after_tooltip(recs, super::tooltip_names);
}

/// A toolbar's item (`GtkToolItem`, a `panel`) holds its tooltip, and the
/// button inside it, showing an icon alone, has neither name nor tooltip
/// (GIMP's toolbox: `Move Tool: Move layers, selections, and other
/// objects` on the item, a nameless `toggle button` in it): an agent would
/// find a row of nameless toggles. A nameless item holding one control
/// alone, nameless and with no tooltip of its own, gives the control its
/// tooltip, and its place: one named line per tool.
pub(crate) fn name_tool_buttons_after_their_item(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut items = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        if r.vanished
            || role(r) != Role::Panel
            || !r.basic.name.trim().is_empty()
            || r.basic.description.trim().is_empty()
        {
            continue;
        }
        let inside: Vec<usize> = r
            .children
            .iter()
            .copied()
            .filter(|&c| !recs[c].vanished)
            .collect();
        if let [only] = inside[..] {
            let button = &recs[only].basic;
            if super::tooltip_names(role(&recs[only]))
                && button.name.trim().is_empty()
                && button.description.trim().is_empty()
            {
                items.push((i, only));
            }
        }
    }
    for (item, button) in items {
        recs[button].basic.description = recs[item].basic.description.clone();
        recs[item].lifted = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::fixtures::rec;

    #[test]
    fn gtk2_hidden_widgets_are_left_out_but_a_closed_combo_box_keeps_its_options() {
        let mut recs = vec![
            rec("frame", "GIMP", &[1, 6]),
            rec("menu", "File", &[2, 3, 4, 5]),
            rec("menu item", "New...", &[]),
            rec("menu item", "Empty", &[]),
            rec("separator", "", &[]),
            rec("menu", "Debug", &[]),
            rec("combo box", "pixels", &[7]),
            rec("menu", "", &[8]),
            rec("menu item", "pixels", &[]),
        ];
        let visible = [State::Visible, State::Enabled];
        for i in [0, 1, 2, 6, 8] {
            recs[i].basic.states = uidelta_model::StateSet::of(&visible);
        }
        // An insensitive hidden item says nothing at all; a hidden
        // separator is sensitive.
        recs[4].basic.states = uidelta_model::StateSet::of(&[State::Enabled]);
        leave_out_hidden_widgets(&mut recs);
        let out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].left_out).collect();
        assert_eq!(out, [3, 4, 5]);
    }

    #[test]
    fn gtk2_tool_buttons_take_their_item_s_tooltip_and_place() {
        let mut recs = vec![
            rec("panel", "", &[1, 3, 5, 7]),
            rec("panel", "", &[2]),
            rec("toggle button", "", &[]),
            // Named already: its own name stays, the item stays.
            rec("panel", "", &[4]),
            rec("push button", "Undo", &[]),
            // Two things in it: not a tool item.
            rec("panel", "", &[6, 6]),
            rec("toggle button", "", &[]),
            // No tooltip on the item.
            rec("panel", "", &[8]),
            rec("toggle button", "", &[]),
        ];
        for i in [1, 3, 5] {
            recs[i].basic.description =
                "Move Tool: Move layers, selections, and other objects".into();
        }
        name_tool_buttons_after_their_item(&mut recs);
        name_controls_after_their_tooltip(&mut recs);
        let names: Vec<&str> = recs.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "",
                "",
                "Move Tool: Move layers, selections, and other objects",
                "",
                "Undo",
                "",
                "",
                "",
                ""
            ]
        );
        let lifted: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].lifted).collect();
        assert_eq!(lifted, [1]);
    }

    #[test]
    fn gtk2_nameless_controls_are_named_after_their_tooltip() {
        let mut recs = vec![
            rec("spin button", "", &[]),
            rec("push button", "", &[]),
            rec("push button", "Scale", &[]),
            rec("label", "", &[]),
        ];
        recs[0].basic.description = "X coordinate of top left corner".into();
        recs[1].basic.description = "<b>Save</b> Tool Preset...\nShift-click: all".into();
        recs[2].basic.description = "Scale the image".into();
        recs[3].basic.description = "A note".into();
        name_controls_after_their_tooltip(&mut recs);
        let names: Vec<&str> = recs.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "X coordinate of top left corner",
                "Save Tool Preset...",
                "Scale",
                ""
            ]
        );
    }
}
