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

/// Qt 5 says `read only` of every label, image and status bar (VLC's
/// `label "1.00x" (read only)`, FeatherPad's `label "File name:" (read
/// only)`): of what nobody edits it says nothing, and is taken away. Its
/// fields keep it (a calculator's display).
pub(crate) fn unmark_read_only_texts(recs: &mut [Rec]) {
    use uidelta_model::State;
    for r in recs.iter_mut() {
        let never_edited = matches!(
            Role::from_name(&r.basic.raw_role),
            Role::Label
                | Role::Static
                | Role::Image
                | Role::Icon
                | Role::StatusBar
                | Role::Heading
                | Role::ToolTip
                | Role::Separator
        );
        if never_edited {
            r.basic.states.remove(State::ReadOnly);
        }
    }
}

/// Qt 5 keeps a dialog that closed as it was, hidden, a window of the
/// application that says neither `visible` nor `showing` (VLC's privacy
/// dialog once answered, with all in it): such a window is not there for
/// anyone, and is left out; closing it reads as the dialog gone. One that
/// shows again is there again.
pub(crate) fn leave_out_hidden_windows(recs: &mut [Rec]) {
    use uidelta_model::State;
    let Some(app) = recs.first() else {
        return;
    };
    if Role::from_name(&app.basic.raw_role) != Role::Application {
        return;
    }
    for w in app.children.clone() {
        let r = &mut recs[w];
        if !r.vanished
            && is_window_rec(r)
            && !r.basic.states.is_empty()
            && !r.basic.states.contains(State::Visible)
        {
            r.left_out = true;
        }
    }
}

/// Qt 5 calls the current tab of a tab bar `focused` whether or not the
/// bar has the keyboard (FeatherPad's document tab, while its text has
/// it), so that the last focused element in the tree is always that tab.
/// A page tab is focused only while its page tab list is.
pub(crate) fn focus_tabs_with_their_bar(recs: &mut [Rec]) {
    use uidelta_model::State;
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut unfocused: Vec<usize> = Vec::new();
    for bar in recs.iter() {
        if role(bar) != Role::PageTabList || bar.basic.states.contains(State::Focused) {
            continue;
        }
        unfocused.extend(
            bar.children
                .iter()
                .filter(|&&t| role(&recs[t]) == Role::PageTab),
        );
    }
    for t in unfocused {
        recs[t].basic.states.remove(State::Focused);
    }
}

/// Qt 5 exports the viewport of a text edit (`QPlainTextEdit`) as a
/// nameless filler inside the text, there only while the text has the
/// keyboard, and focused with it: it says nothing the text does not, and
/// its coming and going with the focus is no change. It is left out.
pub(crate) fn leave_out_text_viewports(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut viewports = Vec::new();
    for text in recs.iter() {
        if role(text) != Role::Text {
            continue;
        }
        viewports.extend(text.children.iter().copied().filter(|&c| {
            let r = &recs[c];
            role(r) == Role::Filler && r.children.is_empty() && r.basic.name.trim().is_empty()
        }));
    }
    for v in viewports {
        recs[v].says_again = true;
    }
}

/// Qt 5 leaves a button that shows only an icon nameless, its tooltip
/// being its description (FeatherPad's search bar: `Next (F3)`, `Match
/// Case (F5)`), where a screen reader reads it. Such a button, toggle,
/// check box or radio button is named after the tooltip's first line,
/// rich text tags left out (`<p style=...>Calculate number of words`; see
/// [`super::name_after_tooltip`]).
pub(crate) fn name_buttons_after_their_tooltip(recs: &mut [Rec]) {
    super::name_after_tooltip(recs, |role| {
        matches!(
            role,
            Role::PushButton | Role::ToggleButton | Role::CheckBox | Role::RadioButton
        )
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::fixtures::{has, rec, recs};
    use uidelta_model::State;

    #[test]
    fn qt_read_only_stays_on_fields_and_hidden_windows_are_left_out() {
        use State::{ReadOnly, Showing, Visible};
        let mut app = recs(&[
            ("application", &[], &[1, 4]),
            ("frame", &[Visible, Showing], &[2, 3]),
            ("label", &[Visible, Showing, ReadOnly], &[]),
            ("text", &[Visible, Showing, ReadOnly], &[]),
            // A dialog answered, kept hidden.
            ("dialog", &[ReadOnly], &[5]),
            ("push button", &[], &[]),
        ]);
        unmark_read_only_texts(&mut app);
        leave_out_hidden_windows(&mut app);
        assert!(!has(&app[2], ReadOnly), "a label");
        assert!(has(&app[3], ReadOnly), "a field");
        let out: Vec<usize> = (0..app.len()).filter(|&i| app[i].left_out).collect();
        assert_eq!(out, [4]);
    }

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

    #[test]
    fn qt_tabs_are_focused_only_with_their_bar_and_text_viewports_left_out() {
        use State::*;
        // A window: a text with its viewport, a tab bar without the
        // keyboard and its current tab, a focused bar and its tab.
        let mut recs: Vec<Rec> = recs(&[
            ("frame", &[Showing], &[1, 3, 5]),
            ("text", &[Focused, Showing], &[2]),
            ("filler", &[Focused, Showing], &[]),
            ("page tab list", &[Showing], &[4]),
            ("page tab", &[Focused, Selected, Showing], &[]),
            ("page tab list", &[Focused, Showing], &[6]),
            ("page tab", &[Focused, Selected, Showing], &[]),
        ]);
        focus_tabs_with_their_bar(&mut recs);
        leave_out_text_viewports(&mut recs);
        let focused: Vec<usize> = (0..recs.len())
            .filter(|&i| has(&recs[i], Focused))
            .collect();
        assert_eq!(focused, [1, 2, 5, 6]);
        let left_out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].says_again).collect();
        assert_eq!(left_out, [2]);
    }

    #[test]
    fn qt_icon_buttons_are_named_after_their_tooltip() {
        let described = |role: &str, name: &str, description: &str| {
            let mut r = rec(role, name, &[]);
            r.basic.description = description.to_owned();
            r
        };
        let mut recs = vec![
            described("push button", "", "Next (F3)"),
            described("check box", "", "Match Case (F5)"),
            described(
                "push button",
                "",
                "<p style='white-space:pre'>Calculate number of words\n(For huge texts, this may be CPU-intensive.)</p>",
            ),
            // Named: kept. Not a button: kept. No tooltip: nameless.
            described("push button", "New", "New tab"),
            described("filler", "", "Double click to center current line"),
            described("push button", "", ""),
        ];
        name_buttons_after_their_tooltip(&mut recs);
        let names: Vec<&str> = recs.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Next (F3)",
                "Match Case (F5)",
                "Calculate number of words",
                "New",
                "",
                ""
            ]
        );
    }
}
