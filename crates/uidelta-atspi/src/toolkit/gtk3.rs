//! GTK 3 (`ToolkitName` `gtk`, through its ATK bridge): it leaves list
//! rows and fields without a mnemonic label nameless. LibreOffice's
//! dialogs are GTK 3 widgets, and follow these rules too.

use uidelta_model::{normalize_space, Role};

use crate::capture::{named_by_content, Rec};

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

/// GTK 3: a label set beside an entry in a grid without being its
/// mnemonic label (zenity's `--forms`: `Name` left of its entry) names
/// nothing, so the entry is nameless. A screen reader reads the label
/// before the field; here a nameless text field or spin button with no
/// `labelled-by` is named after the sibling that ends nearest left of it
/// on its row (that sibling's middle within the field's height) when that
/// sibling is a label. The label stays: unlike a mnemonic label, nothing
/// says it belongs to the field. Combo boxes are left alone: GTK 3 names
/// them after their choice.
pub(crate) fn name_fields_after_the_label_before_them(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let text_field = |r: &Rec| {
        matches!(
            role(r),
            Role::Entry | Role::Text | Role::PasswordText | Role::SpinButton
        ) || (r.basic.states.contains(uidelta_model::State::Editable) && role(r) != Role::ComboBox)
    };
    let mut named = Vec::new();
    for parent in recs.iter() {
        for &f in &parent.children {
            let field = &recs[f];
            if field.vanished
                || !field.basic.name.trim().is_empty()
                || field.labelled_by.is_some()
                || !text_field(field)
            {
                continue;
            }
            let Some(fb) = field.bounds.filter(|b| b.w > 0 && b.h > 0) else {
                continue;
            };
            let before = parent
                .children
                .iter()
                .filter(|&&l| l != f && !recs[l].vanished)
                .filter_map(|&l| {
                    let lb = recs[l].bounds.filter(|b| b.w > 0 && b.h > 0)?;
                    let middle = lb.y + lb.h / 2;
                    let gap = fb.x - (lb.x + lb.w);
                    (gap >= 0 && middle >= fb.y && middle < fb.y + fb.h).then_some((gap, l))
                })
                .min();
            let Some((_, l)) = before else { continue };
            let label = &recs[l];
            if role(label) == Role::Label
                && label.children.is_empty()
                && !label.basic.name.trim().is_empty()
            {
                named.push((f, l));
            }
        }
    }
    for (f, l) in named {
        recs[f].basic.name = normalize_space(recs[l].basic.name.trim()).into_owned();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::fixtures::rec;
    use crate::capture::leave_out_repeated_labels;
    use uidelta_model::Rect;

    #[test]
    fn gtk3_fields_are_named_after_the_label_before_them_on_their_row() {
        let placed = |mut r: Rec, path: &str, (x, y, w, h): (i32, i32, i32, i32)| {
            r.bus = ":1.9".into();
            r.path = path.into();
            r.bounds = Some(Rect { x, y, w, h });
            r
        };
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
                "",
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
}
