//! The engine on the real gtk3-demo: its list of demos is a tree view
//! whose parent rows a click does not expand, and its Combo Boxes demo
//! keeps options in menus and submenus.

mod common;

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, Session, Settle, WindowAction};
use uidelta_linux::Linux;

use common::{ref_of, text};

const DEMO: &str = "gtk3-demo";

#[test]
fn a_click_that_changes_nothing_names_the_actions_that_would() {
    on_demo(async |s| {
        let opts = ActOptions::default();

        // A click on `Entry`, a collapsed parent row, selects it as a
        // person's click does (its accessible action, `activate`, would be
        // a double click) and expands nothing.
        let entry = ref_of(s, "role:table cell && name:Entry");
        let a = s
            .act(&entry, &Action::Click, &opts)
            .await
            .expect("click the row");
        assert!(
            a.done.method.starts_with("XTest click at "),
            "{}",
            a.done.method
        );
        let t = text(&a);
        assert!(
            t.contains(&format!(
                "\n~ [{entry}] table cell \"Entry\" | active, selected: false -> true\n"
            )),
            "{t}"
        );
        assert!(!t.contains("expanded"), "{t}");

        // Clicking it again changes nothing; the answer says what else the
        // row offers.
        let a = s
            .act(&entry, &Action::Click, &opts)
            .await
            .expect("click the row again");
        assert!(!a.diff.has_changes(), "{}", text(&a));
        assert_eq!(
            a.note.as_deref(),
            Some(
                format!(
                    "the click changed nothing; [{entry}] table cell \"Entry\" also offers the \
                     actions `expand or contract`, `edit`, `activate` (invoke one by name)"
                )
                .as_str()
            )
        );

        // Invoking the one named there expands the row: its demos appear.
        let a = s
            .act(&entry, &Action::Invoke("expand or contract".into()), &opts)
            .await
            .expect("expand the row");
        assert_eq!(a.done.method, "Action.expand or contract");
        assert_eq!(a.note, None);
        let t = text(&a);
        assert!(t.starts_with("# diff: +4 added"), "{t}");
        for demo in ["Entry Buffer", "Entry Completion", "Search Entry"] {
            assert!(
                t.contains(&format!("] table cell \"{demo}\"\n")),
                "{demo}: {t}"
            );
        }
        // GTK gives the row three cells (a holder, the title, an empty
        // renderer cell) that turn expanded alike; the row is one line.
        assert!(
            t.contains(&format!(
                "\n~ [{entry}] table cell \"Entry\" | expanded: false -> true\n"
            )),
            "{t}"
        );
        assert!(!t.contains("same on"), "{t}");
    });
}

#[test]
fn a_row_scrolled_out_of_sight_is_selected_through_its_table() {
    on_demo(async |s| {
        let opts = ActOptions::default();
        // The list's last parent row opens below the fold: its demos have
        // no place on the screen to be clicked at. Each row is a cell
        // holding the column's cells, and the tree view's Selection counts
        // the rows; the row is selected there.
        expand(s, "Tree View").await;
        let store = ref_of(s, "role:table cell && name:\"List Store\"");
        let a = s
            .act(&store, &Action::SetSelected(true), &opts)
            .await
            .expect("select List Store");
        assert_eq!(a.done.method, "Selection.SelectChild");
        let t = text(&a);
        assert!(
            t.contains(&format!(
                "\n~ [{store}] table cell \"List Store\" | selected: false -> true\n"
            )),
            "{t}"
        );
        assert!(
            t.contains("| name: \"Application Class\" -> \"List Store\"\n"),
            "{t}"
        );

        // A click on a row out of sight selects it too; it does not run the
        // demo, as the row's accessible action (a double click) would.
        let tree_store = ref_of(s, "role:table cell && name:\"Tree Store\"");
        let a = s
            .act(&tree_store, &Action::Click, &opts)
            .await
            .expect("click Tree Store");
        assert_eq!(a.done.method, "Selection.SelectChild");
        let t = text(&a);
        assert!(
            t.contains("| name: \"List Store\" -> \"Tree Store\"\n"),
            "{t}"
        );
        assert!(!t.contains("(opened)"), "{t}");
    });
}

#[test]
fn a_check_box_cell_is_ticked_with_the_pointer() {
    on_demo(async |s| {
        let opts = ActOptions::default();
        expand(s, "Tree View").await;
        run_demo(s, "List Store").await;
        // The bug list's `Fixed?` column: GTK's accessible `toggle` on such
        // a cell leaves it as it was; a click ticks it and selects its row.
        let fixed = ref_of(s, "role:table cell && state:checked && nth:0");
        let a = s.act(&fixed, &Action::Click, &opts).await.expect("untick");
        assert!(
            a.done.method.starts_with("XTest click at "),
            "{}",
            a.done.method
        );
        let t = text(&a);
        let line = t
            .lines()
            .find(|l| l.starts_with(&format!("~ [{fixed}] table cell | ")))
            .unwrap_or_else(|| panic!("no line for {fixed} in\n{t}"));
        assert!(line.contains(" checked: true -> false"), "{t}");
        assert!(line.contains("selected: false -> true"), "{t}");
    });
}

#[test]
fn a_window_is_closed_even_when_another_has_its_title() {
    on_demo(async |s| {
        // gtk3-demo titles its main window after the chosen demo: running
        // Pickers gives two windows titled `Pickers`. Closing the demo's
        // closes that one, found by its place on the display.
        run_demo(s, "Pickers").await;
        let windows = || {
            let scope = &s.known_apps()[0];
            let tree = scope.view.tree();
            tree.children(tree.root())
                .iter()
                .map(|&w| tree.node(w).name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(windows(), ["Pickers", "Pickers"]);
        let label = ref_of(s, "role:label && name:\"Mail:\"");
        let closed = s
            .window_action(&label, WindowAction::Close, Settle::default())
            .await
            .expect("close the demo's window");
        let acted = closed;
        assert!(!acted.exited, "gtk3-demo exited");
        assert!(
            acted.done.method.starts_with("WM_DELETE_WINDOW to "),
            "{}",
            acted.done.method
        );
        let t = text(&acted);
        assert!(t.contains("] frame \"Pickers\" (closed) (and "), "{t}");
        let windows = {
            let scope = &s.known_apps()[0];
            let tree = scope.view.tree();
            tree.children(tree.root())
                .iter()
                .map(|&w| scope.handle(w).r#ref.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(windows, ["e2"], "{t}");
    });
}

/// Runs `test` with a session that has read gtk3-demo, on a desktop of
/// its own.
fn on_demo(test: impl AsyncFnOnce(&mut Session<Linux>)) {
    let (desktop, rt) = common::desktop_with(DEMO, &[], DEMO, "gtk-3-examples");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        s.observe(DEMO).await.expect("observe");
        test(&mut s).await;
    });
}

/// Expands the parent row named `name` in the list of demos.
async fn expand(s: &mut Session<Linux>, name: &str) {
    let row = ref_of(s, &format!("role:table cell && name:\"{name}\""));
    s.act(
        &row,
        &Action::Invoke("expand or contract".into()),
        &ActOptions::default(),
    )
    .await
    .unwrap_or_else(|e| panic!("expand {name}: {e}"));
}

/// Chooses the demo named `name` in the list and runs it.
async fn run_demo(s: &mut Session<Linux>, name: &str) {
    let opts = ActOptions::default();
    s.act(
        &format!("role:table cell && name:\"{name}\""),
        &Action::SetSelected(true),
        &opts,
    )
    .await
    .expect("choose the demo");
    s.act("role:push button && name:Run", &Action::Click, &opts)
        .await
        .expect("run it");
}

#[test]
fn a_combo_box_option_is_chosen_in_its_menu_or_a_submenu() {
    on_demo(async |s| {
        let opts = ActOptions::default();

        // The Combo Boxes demo: choosing an option through selection sets
        // the combo box, whether the option is in its menu or in a submenu
        // of it (`A - B` > `Albany`). The option is its value.
        run_demo(s, "Combo Boxes").await;
        let places = ref_of(s, "role:combo box && value:Boston");
        let a = s
            .act(
                &format!("{places} >> role:menu item && name:Albany"),
                &Action::SetSelected(true),
                &opts,
            )
            .await
            .expect("choose Albany");
        assert_eq!(a.done.method, "Action.click");
        let panel = ref_of(s, "role:panel && name:\"Where are we ?\"");
        assert!(
            text(&a).contains(&format!(
                "\n~ [{places}] combo box in [{panel}] panel \"Where are we ?\" | value: \"Boston\" -> \"Albany\"\n"
            )),
            "{}",
            text(&a)
        );
        // Setting its value to an option's name does the same.
        let a = s
            .act(&places, &Action::SetValue("Denver".into()), &opts)
            .await
            .expect("set the combo box to Denver");
        assert!(
            text(&a).contains(&format!(
                "\n~ [{places}] combo box in [{panel}] panel \"Where are we ?\" | value: \"Albany\" -> \"Denver\"\n"
            )),
            "{}",
            text(&a)
        );
        let icons = ref_of(s, "role:combo box && name:dialog-warning");
        let a = s
            .act(
                &format!("{icons} >> role:menu item && name:Open"),
                &Action::SetSelected(true),
                &opts,
            )
            .await
            .expect("choose Open");
        assert_eq!(a.done.method, "Selection.SelectChild");
        assert!(
            text(&a).contains("| name: \"dialog-warning\" -> \"document-open\"\n"),
            "{}",
            text(&a)
        );
    });
}

#[test]
fn a_button_behind_a_modal_dialog_is_not_pressed() {
    on_demo(async |s| {
        let opts = ActOptions::default();
        run_demo(s, "Dialogs and Message Boxes").await;
        let a = s
            .act(
                "role:push button && name:\"Interactive Dialog\"",
                &Action::Click,
                &opts,
            )
            .await
            .expect("open the interactive dialog");
        assert!(
            text(&a).contains("] dialog \"Interactive Dialog\" (modal) (opened)\n"),
            "{}",
            text(&a)
        );

        // The demo's window is blocked by the modal dialog: pressing one of
        // its buttons through accessibility would run a second dialog
        // inside the first, which a person cannot do.
        let message = ref_of(s, "role:push button && name:\"Message Dialog\"");
        let e = s
            .act(&message, &Action::Click, &opts)
            .await
            .expect_err("a button behind a modal dialog");
        assert!(
            e.to_string().ends_with(
                "the dialog \"Interactive Dialog\" of the same application is open and modal, \
                 so the element's window takes no input; answer that dialog first"
            ),
            "{e}"
        );

        // The dialog's own buttons are pressed as before.
        let a = s
            .act("role:push button && name:Cancel", &Action::Click, &opts)
            .await
            .expect("cancel the dialog");
        assert!(
            text(&a).contains("- [")
                && text(&a).contains("] dialog \"Interactive Dialog\" (closed)"),
            "{}",
            text(&a)
        );
        let a = s
            .act(&message, &Action::Click, &opts)
            .await
            .expect("the message dialog, once nothing blocks it");
        assert!(
            text(&a).contains("] alert \"Information\" (modal) (opened)\n"),
            "{}",
            text(&a)
        );
    });
}
