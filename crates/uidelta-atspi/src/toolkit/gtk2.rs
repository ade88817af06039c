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
    let keep = super::combo_box_menus(recs);
    for (i, r) in recs.iter_mut().enumerate() {
        let hidden = !r.basic.states.contains(State::Visible);
        if i != 0 && hidden && !keep[i] && !is_window_rec(r) && role(r) != Role::Application {
            r.left_out = true;
        }
    }
}

/// GAIL names a menu item after the label it holds, and exports no object
/// for that label: when the application relabels the item, nothing is said
/// (GIMP's `View > Zoom > Revert Zoom` becomes `Revert Zoom (100%)` after
/// the image is scaled, with no event from the item or from its menu).
pub(crate) fn renames_silently(role: Role) -> bool {
    matches!(
        role,
        Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem
    )
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
}
