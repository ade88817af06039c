//! GTK 3 (`ToolkitName` `gtk`, through its ATK bridge): it leaves list
//! rows and fields without a mnemonic label nameless. LibreOffice's
//! dialogs are GTK 3 widgets, and follow these rules too.

use uidelta_model::{normalize_space, Rect, Role, State};

use crate::capture::{is_window_rec, named_by_content, Rec};

/// GTK 3 leaves the rows of a list box nameless (the file chooser's
/// places: an icon and a label `Home`), so that a row selected reads
/// `list item | selected: false -> true` with nothing to tell which. A
/// nameless list item is named after the labels inside it, in order, as
/// its buttons are; labels inside an element named by its content (a
/// button in the row) are that element's. A row named after one label
/// says it: the label is left out, as a button's is.
pub(crate) fn name_list_rows_after_their_labels(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut names = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        if role(r) != Role::ListItem || !r.basic.name.trim().is_empty() {
            continue;
        }
        let mut labels = Vec::new();
        let mut stack: Vec<usize> = r.children.iter().rev().copied().collect();
        while let Some(c) = stack.pop() {
            let child = &recs[c];
            if child.vanished || named_by_content(role(child)) {
                continue;
            }
            let text = child.basic.name.trim();
            if role(child) == Role::Label && !text.is_empty() {
                labels.push((c, text.to_owned()));
            }
            stack.extend(child.children.iter().rev());
        }
        if !labels.is_empty() {
            let name: Vec<&str> = labels.iter().map(|(_, t)| t.as_str()).collect();
            let alone = match labels.as_slice() {
                [(l, _)] if recs[*l].children.is_empty() => Some(*l),
                _ => None,
            };
            names.push((i, name.join(" "), alone));
        }
    }
    for (i, name, alone) in names {
        recs[i].basic.name = name;
        if let Some(l) = alone {
            recs[l].says_again = true;
        }
    }
}

/// GTK 3 gives a column of a tree view that draws more than one thing (an
/// icon and a name, a date and a time) as a nameless cell holding a cell
/// per renderer, each named after the row's text: the file chooser's
/// `Modified` reads `table cell` with `table cell "16:10"` twice under it,
/// Thunar's places `table cell` with `"Places"` twice. Such a cell is
/// named after the text its cells share, and they, which say nothing
/// more, are left out. Not when its cells say different things, or one of
/// them is a check box's (a toggle renderer, which is acted on itself).
pub(crate) fn name_cells_after_the_cells_they_hold(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut named = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        if r.vanished
            || role(r) != Role::TableCell
            || !r.basic.name.trim().is_empty()
            || r.children.is_empty()
        {
            continue;
        }
        let mut shared: Option<&str> = None;
        let alike = r.children.iter().all(|&c| {
            let cell = &recs[c];
            let name = cell.basic.name.trim();
            let plain = !cell.vanished
                && role(cell) == Role::TableCell
                && cell.children.is_empty()
                && !cell.basic.states.contains(uidelta_model::State::Checkable);
            let same = name.is_empty() || *shared.get_or_insert(name) == name;
            plain && same
        });
        if let (true, Some(name)) = (alike, shared) {
            named.push((i, name.to_owned()));
        }
    }
    for (i, name) in named {
        recs[i].basic.name = name;
        for c in recs[i].children.clone() {
            recs[c].says_again = true;
        }
    }
}

/// GTK 3: a label set beside an entry in a grid without being its
/// mnemonic label (zenity's `--forms`: `Name` left of its entry) names
/// nothing, so the entry is nameless. A screen reader reads the label
/// before the field; here a nameless text field or spin button with no
/// `labelled-by` is named after what ends nearest left of it on its row
/// (its middle within the field's height) when that is a label (not the
/// title of the panel it is in, which the panel says). What is looked at
/// is what is laid out with the field: its siblings and, when it is in a
/// nameless box, what the nameless boxes beside that box hold (zenity's
/// `--password`: a column of labels in one box beside a column of fields
/// in another), nameless boxes seen through; what does not show names
/// only a field that does not show either. A field with nothing left of
/// it on its row is named after what ends nearest above it across its
/// width, when that is a label. Sliders and calendars are named so too
/// (zenity's `--scale`: `Volume` above the slider; its `--forms`: `Date`
/// before the calendar). The label stays: unlike a mnemonic label,
/// nothing says it belongs to the field. So is a nameless combo box (its choice is its value, see
/// [`crate::capture::combo_boxes_show_their_choice_as_value`]).
pub(crate) fn name_fields_after_the_label_before_them(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let text_field = |r: &Rec| {
        matches!(
            role(r),
            Role::Entry | Role::Text | Role::PasswordText | Role::SpinButton | Role::ComboBox
        ) || r.basic.states.contains(uidelta_model::State::Editable)
    };
    let placed = |r: &Rec| r.bounds.filter(|b| b.w > 0 && b.h > 0);
    let hidden = |r: &Rec| r.basic.states.says_hidden();
    let parent = crate::capture::parents(recs);
    let mut named = Vec::new();
    for (f, field) in recs.iter().enumerate() {
        if field.vanished
            || !field.basic.name.trim().is_empty()
            || field.labelled_by.is_some()
            || !(text_field(field) || matches!(role(field), Role::Slider | Role::Calendar))
        {
            continue;
        }
        let (Some(fb), Some(p)) = (placed(field), parent[f]) else {
            continue;
        };
        let beside = laid_out_with(recs, &parent, p);
        // What does not show names only what does not show either (a
        // page in reserve, hidden as a whole).
        let placed_beside = || {
            beside
                .iter()
                .filter(|&&l| l != f && (!hidden(&recs[l]) || hidden(field)))
                .filter_map(|&l| Some((l, placed(&recs[l])?)))
        };
        let before = placed_beside()
            .filter_map(|(l, lb)| {
                let middle = lb.y + lb.h / 2;
                let gap = fb.x - (lb.x + lb.w);
                (gap >= 0 && middle >= fb.y && middle < fb.y + fb.h).then_some((gap, l))
            })
            .min();
        let above = || {
            placed_beside()
                .filter_map(|(l, lb)| {
                    let gap = fb.y - (lb.y + lb.h);
                    let across = lb.x < fb.x + fb.w && lb.x + lb.w > fb.x;
                    (gap >= 0 && across).then_some((gap, l))
                })
                .min()
        };
        let Some((_, l)) = before.or_else(above) else {
            continue;
        };
        let label = &recs[l];
        if role(label) == Role::Label
            && label.children.is_empty()
            && !label.basic.name.trim().is_empty()
            && !titles_its_box(recs, &parent, l)
        {
            named.push((f, l));
        }
    }
    for (f, l) in named {
        recs[f].basic.name = normalize_space(recs[l].basic.name.trim()).into_owned();
    }
}

/// Whether label `l` is the title of what it is in, nameless boxes seen
/// through (a GTK frame's label: the panel says it, and names no field).
fn titles_its_box(recs: &[Rec], parent: &[Option<usize>], l: usize) -> bool {
    let name = recs[l].basic.name.trim();
    let mut at = parent[l];
    while let Some(a) = at {
        let holder = recs[a].basic.name.trim();
        if !holder.is_empty() {
            return holder == name;
        }
        at = parent[a];
    }
    false
}

/// What is laid out with the children of `p`: those children and, when
/// `p` is a nameless box, what the nameless boxes beside it hold; nameless
/// boxes are seen through.
fn laid_out_with(recs: &[Rec], parent: &[Option<usize>], p: usize) -> Vec<usize> {
    let nameless_box = |i: usize| {
        let r = &recs[i];
        !r.vanished
            && matches!(
                Role::from_name(&r.basic.raw_role),
                Role::Filler | Role::Panel
            )
            && r.basic.name.trim().is_empty()
    };
    let top = match parent[p] {
        Some(g) if nameless_box(p) => g,
        _ => p,
    };
    let mut out = Vec::new();
    let mut stack: Vec<usize> = recs[top].children.iter().rev().copied().collect();
    while let Some(i) = stack.pop() {
        if recs[i].vanished {
            continue;
        }
        if nameless_box(i) {
            stack.extend(recs[i].children.iter().rev());
        } else {
            out.push(i);
        }
    }
    out
}

/// GTK 3's grid (`GtkGrid`) gives its children last added first, so that a
/// form built row by row reads bottom-up (zenity's `--forms`: the combo
/// box, its label `Size`, then `City`'s field and label, and the text that
/// asks last, in the box around the grid). A container whose children
/// with a box (two or more) each read before the one listed before them
/// (top to bottom, then left to right) has its children put back in
/// reading order, as a screen reader's reading by position would give
/// them. Two children in either order are common: a box of two is
/// turned round whenever its second child reads first. Containers in any
/// other order are left as the toolkit gives them (a header bar's
/// buttons packed at its end).
pub(crate) fn read_grids_in_reading_order(recs: &mut [Rec]) {
    read_grids_in_reading_order_where(recs, |_| true);
}

/// [`read_grids_in_reading_order`] for the containers `within` names.
pub(crate) fn read_grids_in_reading_order_where(recs: &mut [Rec], within: impl Fn(usize) -> bool) {
    for i in 0..recs.len() {
        if !within(i) {
            continue;
        }
        // The children's boxes, whether they show or not: GTK keeps the
        // place of one that stopped showing (a revealer's label slid shut),
        // so that a child hiding turns nothing round. Those without a box
        // are turned round with the others.
        let boxes: Vec<Rect> = recs[i]
            .children
            .iter()
            .filter_map(|&c| {
                let r = &recs[c];
                r.bounds.filter(|b| !r.vanished && b.w > 1 && b.h > 1)
            })
            .collect();
        if boxes.len() >= 2 && boxes.windows(2).all(|w| reads_before(&w[1], &w[0])) {
            recs[i].children.reverse();
        }
    }
}

/// Whether `a` reads before `b`: on the same row (the middle of either
/// within the other's height) when it starts left of it, else when its
/// middle is higher.
fn reads_before(a: &Rect, b: &Rect) -> bool {
    let (am, bm) = (a.y + a.h / 2, b.y + b.h / 2);
    let same_row = (am >= b.y && am < b.y + b.h) || (bm >= a.y && bm < a.y + a.h);
    if same_row {
        a.x < b.x
    } else {
        am < bm
    }
}

/// A popover (`GtkPopover`) is a `modal` panel, exported from the moment
/// it is made, closed or not. LibreOffice makes a dozen, empty until they
/// open, never placed: each read as `panel (modal, hidden)` in its window,
/// its `enabled` following the window's when a dialog comes and goes. A
/// closed popover (neither visible nor showing) with nothing in it says
/// nothing and is left out; it is read again, with what it holds, when it
/// opens.
pub(crate) fn leave_out_closed_empty_popovers(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    for i in 0..recs.len() {
        let r = &recs[i];
        let closed =
            !r.basic.states.contains(State::Visible) && !r.basic.states.contains(State::Showing);
        let empty = r.children.iter().all(|&c| recs[c].vanished);
        if role(r) == Role::Panel
            && r.basic.states.contains(State::Modal)
            && closed
            && empty
            && r.basic.name.trim().is_empty()
        {
            recs[i].left_out = true;
        }
    }
}

/// GTK gives a widget's tooltip as its description, where a screen
/// reader reads it, and leaves a button that shows an icon alone nameless
/// (GTK 2 and GTK 3 alike): GIMP's icon buttons and spin scales (`Save
/// Tool Preset...`, `X coordinate of top left corner`, whose label it
/// draws itself), the file chooser's filter (`Select which types of files
/// are shown`), LibreOffice's `Close Document` and `Expand Formula Bar`.
/// A nameless button, toggle, check box, radio button, spin button, slider
/// or combo box is named after its tooltip's first line, once a label
/// before it had its chance (see [`super::name_after_tooltip`]).
pub(crate) fn name_controls_after_their_tooltip(recs: &mut [Rec]) {
    super::name_after_tooltip(recs, super::tooltip_names);
}

/// A toolbar's item (`GtkToolItem`, a `panel`) holds its tooltip, and the
/// button inside it, showing an icon alone, has neither name nor tooltip
/// (GIMP's toolbox: `Move Tool: Move layers, selections, and other
/// objects` on the item, a nameless `toggle button` in it; LibreOffice's
/// sidebar tabs): an agent would find a row of nameless toggles. A
/// nameless item holding one control alone, nameless and with no tooltip
/// of its own, gives the control its tooltip, and its place: one named
/// line per tool.
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

/// GTK gives a box's tooltip as its description too, and a nameless box
/// with nothing else to say is no element of its own: the box is shown,
/// and what it holds one level down, only while it has a tooltip.
/// LibreOffice sets one on the box of its Font Name field while the font
/// shown is not installed (`Font Name. The current font is not available
/// and will be substituted.`): moving the text cursor into such a font
/// then read as the field gone and a new one added in a `filler`, the font
/// it shows in the new one only. A nameless panel or filler that is not
/// focusable and has a tooltip gives it to the first control in it that
/// takes the keyboard and has no description of its own (the field), and
/// keeps none: the control stays where it was, its description changes.
/// Runs before nameless controls are named after their tooltip, so that a
/// button given one is named after it.
pub(crate) fn hand_box_tooltips_to_their_first_control(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut handed = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let states = &r.basic.states;
        if r.vanished
            || r.lifted
            || !matches!(role(r), Role::Panel | Role::Filler)
            || !r.basic.name.trim().is_empty()
            || r.basic.description.trim().is_empty()
            || !states.contains(State::HasTooltip)
            || states.contains(State::Focusable)
        {
            continue;
        }
        let first = r.children.iter().copied().find(|&c| {
            let child = &recs[c];
            !child.vanished
                && !child.left_out
                && child.basic.states.contains(State::Focusable)
                && child.basic.description.trim().is_empty()
        });
        if let Some(control) = first {
            handed.push((i, control));
        }
    }
    for (holder, control) in handed {
        let description = std::mem::take(&mut recs[holder].basic.description);
        recs[control].basic.description = description;
    }
}

/// GTK 3 exports the widgets an application hid (`gtk_widget_hide`) with
/// all they hold: the colour chooser keeps its palette of 45 swatches in a
/// hidden box while its editor shows, and the editor's fields in hidden
/// boxes while the palette does, and it hides its Custom color button
/// while the editor shows; mousepad and xfce4-terminal hide their tool
/// bars (and the terminal its menu bar). Such a widget says neither
/// `visible` nor `showing`, and nothing in it can be seen or reached: it is
/// left out with all in it, as GTK 2's hidden widgets are. Windows say for
/// themselves, and so does the popup menu of a combo box, hidden while
/// closed, whose items are the options an agent chooses by name. (A
/// stack's or notebook's page in reserve stays `visible`, and stays in the
/// tree; so does a closed popover, a `modal` panel, with what it holds: see
/// [`leave_out_closed_empty_popovers`].) An object with no states at all
/// says nothing, not that it is hidden.
pub(crate) fn leave_out_hidden_widgets(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let keep = super::combo_box_menus(recs);
    for (i, r) in recs.iter_mut().enumerate().skip(1) {
        let states = r.basic.states;
        if !r.vanished
            && !keep[i]
            && !states.is_empty()
            && !states.contains(State::Modal)
            && !states.contains(State::Visible)
            && !states.contains(State::Showing)
            && !is_window_rec(r)
            && role(r) != Role::Application
        {
            r.left_out = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::fixtures::rec;
    use crate::capture::leave_out_repeated_labels;
    use uidelta_model::State;

    #[test]
    fn gtk3_cells_of_renderers_that_repeat_one_text_read_as_one_cell() {
        let mut recs = vec![
            rec("table", "", &[1, 4, 7, 10]),
            // The file chooser's Modified: a date and a time, alike.
            rec("table cell", "", &[2, 3]),
            rec("table cell", "16:10", &[]),
            rec("table cell", "16:10", &[]),
            // Different texts: each says something.
            rec("table cell", "", &[5, 6]),
            rec("table cell", "a.txt", &[]),
            rec("table cell", "2 bytes", &[]),
            // A toggle renderer is acted on itself.
            rec("table cell", "", &[8, 9]),
            rec("table cell", "Done", &[]),
            rec("table cell", "Done", &[]),
            // An icon without a text and a text.
            rec("table cell", "", &[11, 12]),
            rec("table cell", "", &[]),
            rec("table cell", "Places", &[]),
        ];
        recs[8].basic.states.insert(State::Checkable);
        name_cells_after_the_cells_they_hold(&mut recs);
        let names: Vec<&str> = recs.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(names[1], "16:10");
        assert_eq!(names[4], "");
        assert_eq!(names[7], "");
        assert_eq!(names[10], "Places");
        let left_out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].says_again).collect();
        assert_eq!(left_out, [2, 3, 11, 12]);
    }

    /// `r` at `path` on one bus, with its bounds.
    fn placed(mut r: Rec, path: &str, (x, y, w, h): (i32, i32, i32, i32)) -> Rec {
        r.bus = ":1.9".into();
        r.path = path.into();
        r.bounds = Some(Rect { x, y, w, h });
        r
    }

    #[test]
    fn gtk3_fields_are_named_after_the_label_before_them_on_their_row() {
        // zenity --forms: a grid, its children last added first.
        let mut recs = vec![
            placed(
                rec("panel", "", &[1, 2, 3, 4, 5, 6, 7]),
                "/0",
                (0, 0, 300, 200),
            ),
            placed(rec("combo box", "", &[]), "/1", (60, 80, 200, 30)),
            placed(rec("label", "Size", &[]), "/2", (10, 85, 40, 20)),
            placed(rec("text", "", &[]), "/3", (60, 40, 200, 30)),
            placed(rec("label", "City", &[]), "/4", (10, 45, 40, 20)),
            placed(rec("text", "", &[]), "/5", (60, 0, 200, 30)),
            placed(rec("label", "Name", &[]), "/6", (10, 5, 40, 20)),
            // Right of its row's field, not before it: names nothing.
            placed(rec("label", "(required)", &[]), "/7", (270, 5, 60, 20)),
            // A second field on the City row: the first one is before it.
            placed(rec("spin button", "", &[]), "/8", (270, 40, 50, 30)),
        ];
        recs[0].children.push(8);
        name_fields_after_the_label_before_them(&mut recs);
        leave_out_repeated_labels(&mut recs);
        let names: Vec<&str> = recs.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "",
                "Size",
                "Size",
                "City",
                "City",
                "Name",
                "Name",
                "(required)",
                ""
            ]
        );
        // The labels stay.
        assert!(recs.iter().all(|r| !r.says_again));
    }

    #[test]
    fn gtk3_widgets_the_application_hid_are_left_out_but_pages_in_reserve_and_options_stay() {
        let mut recs = vec![
            rec("dialog", "", &[1, 3, 5]),
            // The colour chooser's palette, hidden while its editor shows.
            rec("filler", "", &[2]),
            rec("radio button", "Red", &[]),
            // A stack's page in reserve: visible, not showing.
            rec("panel", "", &[4]),
            rec("push button", "Apply", &[]),
            // A named panel hidden, and a button: out of sight alike.
            rec("panel", "Advanced", &[]),
            // A closed popover keeps what it holds.
            rec("panel", "", &[7]),
            rec("push button", "About", &[]),
            rec("push button", "Custom", &[]),
            // A closed combo box's options, in a hidden menu.
            rec("combo box", "Size", &[10]),
            rec("menu", "", &[11]),
            rec("menu item", "Large", &[]),
            // Nothing read of it: not known to be hidden.
            rec("push button", "Unread", &[]),
            // A window closed says so itself.
            rec("dialog", "Options", &[]),
        ];
        recs[0].children.extend([6, 8, 9, 12, 13]);
        let shown = [State::Enabled, State::Visible, State::Showing];
        recs[0].basic.states = uidelta_model::StateSet::of(&shown);
        recs[1].basic.states = uidelta_model::StateSet::of(&[State::Enabled]);
        recs[2].basic.states = uidelta_model::StateSet::of(&[State::Enabled, State::Visible]);
        recs[3].basic.states = uidelta_model::StateSet::of(&[State::Enabled, State::Visible]);
        recs[4].basic.states = uidelta_model::StateSet::of(&[State::Enabled, State::Visible]);
        recs[5].basic.states = uidelta_model::StateSet::of(&[State::Enabled]);
        recs[6].basic.states = uidelta_model::StateSet::of(&[State::Enabled, State::Modal]);
        recs[7].basic.states = uidelta_model::StateSet::of(&[State::Enabled, State::Visible]);
        recs[8].basic.states = uidelta_model::StateSet::of(&[State::Enabled]);
        recs[9].basic.states = uidelta_model::StateSet::of(&shown);
        recs[10].basic.states = uidelta_model::StateSet::of(&[State::Enabled]);
        recs[11].basic.states = uidelta_model::StateSet::of(&[State::Enabled, State::Visible]);
        recs[13].basic.states = uidelta_model::StateSet::of(&[State::Enabled]);
        leave_out_hidden_widgets(&mut recs);
        let out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].left_out).collect();
        assert_eq!(out, [1, 5, 8]);
    }

    #[test]
    fn gtk3_fields_are_named_after_labels_in_the_boxes_beside_theirs_and_above_them() {
        // zenity --password: a box of labels beside a box of fields; then
        // zenity --scale: its label above the slider, and a second slider
        // below the first, which is not a label.
        let mut recs = vec![
            placed(rec("dialog", "", &[1, 7, 10]), "/0", (0, 0, 400, 400)),
            placed(rec("filler", "", &[2, 4]), "/1", (0, 0, 400, 100)),
            placed(rec("filler", "", &[3]), "/2", (10, 10, 80, 80)),
            placed(rec("label", "Username:", &[]), "/3", (10, 18, 70, 17)),
            placed(rec("filler", "", &[5, 6]), "/4", (100, 10, 200, 80)),
            placed(rec("text", "", &[]), "/5", (100, 10, 200, 34)),
            placed(rec("password text", "", &[]), "/6", (100, 50, 200, 34)),
            placed(rec("label", "Volume", &[]), "/7", (10, 120, 60, 17)),
            placed(rec("slider", "", &[]), "/8", (10, 140, 300, 30)),
            placed(rec("slider", "", &[]), "/9", (10, 180, 300, 30)),
            // A hidden label on the password's row names nothing.
            placed(rec("label", "Old:", &[]), "/10", (10, 58, 70, 17)),
            // A frame's title above its combo box: the panel says it.
            placed(rec("panel", "Where", &[12, 13]), "/11", (10, 220, 300, 80)),
            placed(rec("label", "Where", &[]), "/12", (10, 220, 60, 17)),
            placed(rec("combo box", "", &[]), "/13", (10, 240, 200, 30)),
            // A page in reserve: its field and label hidden alike.
            placed(rec("filler", "", &[15, 16]), "/14", (10, 300, 300, 40)),
            placed(rec("label", "Port:", &[]), "/15", (10, 308, 40, 17)),
            placed(rec("spin button", "", &[]), "/16", (60, 300, 100, 34)),
        ];
        recs[0].children.extend([8, 9, 11, 14]);
        let reserve = uidelta_model::StateSet::of(&[State::Enabled, State::Visible]);
        for i in [10, 14, 15, 16] {
            recs[i].basic.states = reserve;
        }
        name_fields_after_the_label_before_them(&mut recs);
        let names: Vec<&str> = recs.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(names[5], "Username:");
        assert_eq!(names[6], "");
        assert_eq!(names[8], "Volume");
        assert_eq!(names[9], "");
        assert_eq!(names[13], "");
        assert_eq!(names[16], "Port:");
    }

    #[test]
    fn gtk3_grids_given_last_child_first_are_read_in_reading_order() {
        let placed = |mut r: Rec, (x, y, w, h): (i32, i32, i32, i32)| {
            r.basic.states = uidelta_model::StateSet::of(&[State::Showing, State::Visible]);
            r.bounds = Some(Rect { x, y, w, h });
            r
        };
        // zenity --forms: the grid's children last added first.
        let mut recs = vec![
            placed(rec("panel", "", &[1, 2, 3, 4, 5]), (0, 0, 300, 200)),
            placed(rec("combo box", "", &[]), (60, 80, 200, 30)),
            placed(rec("label", "Size", &[]), (10, 85, 40, 20)),
            placed(rec("text", "", &[]), (60, 40, 200, 30)),
            placed(rec("label", "City", &[]), (10, 45, 40, 20)),
            placed(rec("label", "Who are you?", &[]), (10, 0, 200, 20)),
            // Already in reading order: left as it is.
            placed(rec("panel", "", &[7, 8, 9]), (0, 300, 300, 30)),
            placed(rec("push button", "Open", &[]), (0, 300, 50, 30)),
            placed(rec("push button", "Menu", &[]), (250, 300, 50, 30)),
            placed(rec("push button", "Search", &[]), (200, 300, 50, 30)),
        ];
        recs[0].children.push(6);
        read_grids_in_reading_order(&mut recs);
        let names = |recs: &[Rec], of: usize| -> Vec<String> {
            recs[of]
                .children
                .iter()
                .map(|&c| format!("{} {}", recs[c].basic.raw_role, recs[c].basic.name))
                .collect()
        };
        // The last child (a panel below the form) is not before the one
        // listed before it: the grid stays as it is.
        assert_eq!(recs[0].children, [1, 2, 3, 4, 5, 6]);
        recs[0].children.pop();
        read_grids_in_reading_order(&mut recs);
        assert_eq!(
            names(&recs, 0),
            [
                "label Who are you?",
                "label City",
                "text ",
                "label Size",
                "combo box "
            ]
        );
        assert_eq!(recs[6].children, [7, 8, 9]);
        // A child that stopped showing keeps its place; one without a box
        // is turned round with the others.
        recs[0].children.reverse();
        recs[3].basic.states = uidelta_model::StateSet::of(&[State::Visible]);
        recs[4].bounds = None;
        read_grids_in_reading_order(&mut recs);
        assert_eq!(recs[0].children, [5, 4, 3, 2, 1]);
        // Fewer than two with a box: as the toolkit gives them.
        recs[0].children.reverse();
        for k in [1, 2, 3] {
            recs[k].bounds = None;
        }
        read_grids_in_reading_order(&mut recs);
        assert_eq!(recs[0].children, [1, 2, 3, 4, 5]);
    }

    #[test]
    fn gtk3_list_rows_are_named_after_their_labels() {
        // The file chooser's places: a row of an icon and a label; a row
        // with a button whose label is the button's; a named row.
        let mut recs = vec![
            rec("list box", "", &[1, 4, 8]),
            rec("list item", "", &[2, 3]),
            rec("icon", "", &[]),
            rec("label", "Home", &[]),
            rec("list item", "", &[5, 6]),
            rec("label", "Network", &[]),
            rec("push button", "", &[7]),
            rec("label", "Eject", &[]),
            rec("list item", "Row", &[9]),
            rec("label", "Other", &[]),
        ];
        name_list_rows_after_their_labels(&mut recs);
        let names: Vec<&str> = [1, 4, 8]
            .iter()
            .map(|&i| recs[i].basic.name.as_str())
            .collect();
        assert_eq!(names, ["Home", "Network", "Row"]);
    }

    #[test]
    fn tool_buttons_take_their_item_s_tooltip_and_place() {
        let mut recs = vec![
            rec("panel", "", &[1, 3, 5, 7]),
            rec("panel", "", &[2]),
            rec("toggle button", "", &[]),
            // Named already: its own name stays, the item stays.
            rec("panel", "", &[4]),
            rec("push button", "Undo", &[]),
            // Two things in it: not a tool item.
            rec("panel", "", &[6, 9]),
            rec("toggle button", "", &[]),
            // No tooltip on the item.
            rec("panel", "", &[8]),
            rec("toggle button", "", &[]),
            rec("label", "Move", &[]),
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
                "",
                "Move"
            ]
        );
        let lifted: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].lifted).collect();
        assert_eq!(lifted, [1]);
    }

    #[test]
    fn gtk3_a_nameless_box_hands_its_tooltip_to_its_first_control() {
        let substituted = "Font Name. The current font is not available and will be substituted.";
        let mut recs = vec![
            rec("panel", "Font Name", &[1, 5]),
            // LibreOffice's Font Name field: its entry, a hidden combo
            // box and the toggle that opens the list, in a box with a
            // tooltip.
            rec("filler", "", &[2, 3, 4]),
            rec("text", "", &[]),
            rec("combo box", "", &[]),
            rec("toggle button", "", &[]),
            // A box whose tooltip names a nameless button.
            rec("filler", "", &[6]),
            rec("push button", "", &[]),
        ];
        for (i, description) in [(1, substituted), (5, "Pick a colour")] {
            recs[i].basic.description = description.into();
            recs[i].basic.states.insert(State::HasTooltip);
        }
        for i in [2, 4, 6] {
            recs[i].basic.states.insert(State::Focusable);
        }
        // A box that takes the keyboard itself, or one with a description
        // but no tooltip (set by the application), keeps it.
        let mut kept = recs.clone();
        kept[1].basic.states.insert(State::Focusable);
        kept[5].basic.states.remove(State::HasTooltip);
        hand_box_tooltips_to_their_first_control(&mut kept);
        assert_eq!(kept[1].basic.description, substituted);
        assert_eq!(kept[5].basic.description, "Pick a colour");
        assert!(kept[2].basic.description.is_empty());

        hand_box_tooltips_to_their_first_control(&mut recs);
        name_controls_after_their_tooltip(&mut recs);
        let descriptions: Vec<&str> = recs.iter().map(|r| r.basic.description.as_str()).collect();
        assert_eq!(
            descriptions,
            ["", "", substituted, "", "", "", "Pick a colour"]
        );
        assert_eq!(recs[6].basic.name, "Pick a colour");
        assert!(recs[4].basic.name.is_empty());
    }

    #[test]
    fn nameless_controls_are_named_after_their_tooltip() {
        let mut recs = vec![
            rec("spin button", "", &[]),
            rec("push button", "", &[]),
            rec("push button", "Scale", &[]),
            rec("label", "", &[]),
            rec("slider", "", &[]),
        ];
        recs[0].basic.description = "X coordinate of top left corner".into();
        recs[1].basic.description = "<b>Save</b> Tool Preset...\nShift-click: all".into();
        recs[2].basic.description = "Scale the image".into();
        recs[3].basic.description = "A note".into();
        // A tooltip that says the value.
        recs[4].basic.description = "50.0".into();
        name_controls_after_their_tooltip(&mut recs);
        let names: Vec<&str> = recs.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "X coordinate of top left corner",
                "Save Tool Preset...",
                "Scale",
                "",
                ""
            ]
        );
    }

    #[test]
    fn closed_empty_popovers_are_left_out() {
        use uidelta_model::StateSet;
        let mut recs = vec![
            rec("frame", "Calc", &[1, 2, 3, 5]),
            // Closed, empty: out.
            rec("panel", "", &[]),
            // Open: stays.
            rec("panel", "", &[]),
            // Closed, with a menu in it: stays, folded where it is shown.
            rec("panel", "", &[4]),
            rec("menu item", "Copy", &[]),
            // Not a popover.
            rec("panel", "", &[]),
        ];
        let modal = StateSet::of(&[State::Modal, State::Enabled]);
        for i in [1, 2, 3] {
            recs[i].basic.states = modal;
        }
        recs[2].basic.states =
            StateSet::of(&[State::Modal, State::Enabled, State::Visible, State::Showing]);
        leave_out_closed_empty_popovers(&mut recs);
        let out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].left_out).collect();
        assert_eq!(out, [1]);
    }
}
