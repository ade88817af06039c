//! Qt 5 (`ToolkitName` `Qt`): it says `showing` of widgets that are not on
//! the screen, and marks no page tab selected.

use uidelta_model::{Rect, Role};

use crate::capture::{is_window_rec, Rec};

/// Qt 5 marks no page tab `selected`: it names the page tab list after the
/// current tab instead. When no tab of a list is selected and exactly one
/// is named as the list is, that one is.
pub(crate) fn select_named_tab(recs: &mut [Rec]) {
    use uidelta_model::State;
    for i in 0..recs.len() {
        if Role::from_name(&recs[i].basic.raw_role) != Role::PageTabList
            || recs[i].basic.name.is_empty()
        {
            continue;
        }
        let tabs: Vec<usize> = recs[i]
            .children
            .iter()
            .copied()
            .filter(|&c| {
                !recs[c].vanished && Role::from_name(&recs[c].basic.raw_role) == Role::PageTab
            })
            .collect();
        if tabs
            .iter()
            .any(|&t| recs[t].basic.states.contains(State::Selected))
        {
            continue;
        }
        let named: Vec<usize> = tabs
            .into_iter()
            .filter(|&t| recs[t].basic.name == recs[i].basic.name)
            .collect();
        if let [current] = named[..] {
            recs[current].basic.states.insert(State::Selected);
        }
    }
}

/// Qt 5 says `showing` and `visible` of a widget that is not on the
/// screen (a page of a tab widget that is not the current one, the list of
/// a closed combo box), and places it at 0,0 with no size; the cells of a
/// hidden item view keep the `showing` and `visible` of their last place.
/// Such an element, and all that is in it, is neither.
pub(crate) fn hide_unplaced(recs: &mut [Rec]) {
    use uidelta_model::State;
    let nowhere = Some(Rect::new(0, 0, 0, 0));
    let mut hidden = vec![false; recs.len()];
    // Records come level by level: a parent before its children.
    for i in 0..recs.len() {
        if is_window_rec(&recs[i]) {
            continue;
        }
        if recs[i].bounds == nowhere {
            hidden[i] = true;
        }
        if hidden[i] {
            recs[i].basic.states.remove(State::Showing);
            recs[i].basic.states.remove(State::Visible);
            for c in recs[i].children.clone() {
                hidden[c] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::fixtures::{has, recs};
    use uidelta_model::State;

    #[test]
    fn tabs_and_widgets_qt_leaves_unsaid_are_worked_out() {
        use State::{Selected, Showing, Visible};
        // Qt 5: the page tab list is named after the current tab, and no
        // tab is selected.
        let mut tabs = recs(&[
            ("page tab list", &[Visible, Showing], &[1, 2]),
            ("page tab", &[Visible, Showing], &[]),
            ("page tab", &[Visible, Showing], &[]),
        ]);
        tabs[0].basic.name = "Table".into();
        tabs[1].basic.name = "Tree View".into();
        tabs[2].basic.name = "Table".into();
        select_named_tab(&mut tabs);
        assert!(!has(&tabs[1], Selected) && has(&tabs[2], Selected));
        // A toolkit that says which tab is selected is believed.
        tabs[2].basic.states.remove(Selected);
        tabs[1].basic.states.insert(Selected);
        select_named_tab(&mut tabs);
        assert!(has(&tabs[1], Selected) && !has(&tabs[2], Selected));

        // Qt 5: a hidden page's item view is showing at 0,0 with no size,
        // and its cells keep the showing of their last place.
        let mut qt = recs(&[
            ("dialog", &[Visible, Showing], &[1, 2]),
            ("table", &[Visible, Showing], &[3]),
            ("list", &[Visible, Showing], &[]),
            ("table cell", &[Visible, Showing], &[]),
        ]);
        qt[1].bounds = Some(Rect::new(0, 0, 0, 0));
        qt[2].bounds = Some(Rect::new(315, 457, 359, 254));
        qt[3].bounds = Some(Rect::new(339, 479, 103, 30));
        hide_unplaced(&mut qt);
        assert!(has(&qt[0], Showing) && has(&qt[2], Showing) && has(&qt[2], Visible));
        assert!(!has(&qt[1], Showing) && !has(&qt[3], Showing));
        assert!(!has(&qt[1], Visible) && !has(&qt[3], Visible));
    }
}
