//! Table cells scrolled out of sight in zenity's list (GTK 3): a click
//! selects the cell through its table, as a person's click on it would,
//! and never runs the cell's `activate` (the row's default action, which
//! answers the dialog) in its place; `set_selected` selects it likewise.

mod common;

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, ActionOutcome, Session};
use uidelta_linux::Linux;
use uidelta_testkit::App;

use common::{ref_of, text};

/// zenity's list of `rows` rows (`Item 1`...) in the columns named, with
/// `Item k` in the first and, for a second column, `k` in it.
fn list(columns: &[&str], rows: usize) -> Vec<String> {
    let mut args = vec!["--list".to_owned()];
    args.extend(columns.iter().map(|c| format!("--column={c}")));
    for k in 1..=rows {
        args.push(format!("Item {k}"));
        args.extend((1..columns.len()).map(|_| k.to_string()));
    }
    args
}

/// Acts on the cell named `name` and checks that zenity did not answer.
async fn on_cell(
    s: &mut Session<Linux>,
    zenity: &mut App,
    name: &str,
    action: Action,
) -> ActionOutcome {
    let cell = ref_of(s, &format!("role:table cell && name:\"{name}\""));
    let a = s
        .act(&cell, &action, &ActOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{action:?} on {name}: {e}"));
    assert!(!a.exited, "zenity answered: {}\n{a:?}", text(&a));
    assert!(
        zenity.is_running(),
        "zenity exited: {:?}",
        zenity.exit_status()
    );
    a
}

/// The diff line of a cell of the list that changed its selection.
fn selection_line(s: &Session<Linux>, name: &str, was: bool, is: bool) -> String {
    let cell = ref_of(s, &format!("role:table cell && name:\"{name}\""));
    format!(
        "~ [{cell}] table cell \"{name}\" in [e2] dialog \"Select items from the list\" | selected: {was} -> {is}"
    )
}

/// The diff line of a row of the two-column list that changed its
/// selection: its first cell's, which names the second.
fn row_line(s: &Session<Linux>, k: usize, was: bool, is: bool) -> String {
    let number = ref_of(s, &format!("role:table cell && name:\"{k}\""));
    format!(
        "{} (same on [{number}] \"{k}\")",
        selection_line(s, &format!("Item {k}"), was, is)
    )
}

#[test]
fn a_click_on_a_cell_out_of_sight_selects_it_and_never_answers_the_dialog() {
    let args = list(&["Item"], 300);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (desktop, mut zenity, rt) = common::running("zenity", &args, "zenity", "zenity");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        s.observe("zenity").await.expect("observe zenity");

        let a = on_cell(&mut s, &mut zenity, "Item 250", Action::Click).await;
        assert_eq!(a.done.method, "Selection.SelectChild");
        let line = selection_line(&s, "Item 250", false, true);
        assert_eq!(
            text(&a).lines().skip(1).collect::<Vec<_>>(),
            [line.as_str()]
        );

        // Clicked again, it stays selected: GTK's table refuses to select
        // a selected row, and that refusal once ran the cell's `activate`.
        let a = on_cell(&mut s, &mut zenity, "Item 250", Action::Click).await;
        assert_eq!(
            a.done.method,
            "Selection.IsChildSelected (already selected)"
        );
        assert!(!a.diff.has_changes(), "{}", text(&a));

        let a = on_cell(&mut s, &mut zenity, "Item 280", Action::SetSelected(true)).await;
        assert_eq!(a.done.method, "Selection.SelectChild");
        let lines = [
            selection_line(&s, "Item 250", true, false),
            selection_line(&s, "Item 280", false, true),
        ];
        assert_eq!(text(&a).lines().skip(1).collect::<Vec<_>>(), lines);

        let a = on_cell(&mut s, &mut zenity, "Item 280", Action::SetSelected(true)).await;
        assert!(!a.diff.has_changes(), "{}", text(&a));

        // GTK's Selection deselects nothing: its Table does.
        let a = on_cell(&mut s, &mut zenity, "Item 280", Action::SetSelected(false)).await;
        assert_eq!(a.done.method, "Table.RemoveRowSelection");
        let line = selection_line(&s, "Item 280", true, false);
        assert_eq!(
            text(&a).lines().skip(1).collect::<Vec<_>>(),
            [line.as_str()]
        );
    });
    assert!(
        zenity.is_running(),
        "zenity exited: {:?}",
        zenity.exit_status()
    );
}

#[test]
fn a_row_of_a_table_of_two_columns_is_selected_through_the_table() {
    let args = list(&["Item", "Number"], 300);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (desktop, mut zenity, rt) = common::running("zenity", &args, "zenity", "zenity");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        s.observe("zenity").await.expect("observe zenity");

        // GTK's table selects no cell of a table of two columns (its
        // Selection takes one-column tables only): its Table selects the row.
        let a = on_cell(&mut s, &mut zenity, "Item 250", Action::Click).await;
        assert_eq!(a.done.method, "Table.AddRowSelection");
        let line = row_line(&s, 250, false, true);
        assert_eq!(
            text(&a).lines().skip(1).collect::<Vec<_>>(),
            [line.as_str()]
        );

        let a = on_cell(&mut s, &mut zenity, "Item 280", Action::SetSelected(true)).await;
        assert_eq!(a.done.method, "Table.AddRowSelection");
        let lines = [
            row_line(&s, 250, true, false),
            row_line(&s, 280, false, true),
        ];
        assert_eq!(text(&a).lines().skip(1).collect::<Vec<_>>(), lines);
    });
    assert!(
        zenity.is_running(),
        "zenity exited: {:?}",
        zenity.exit_status()
    );
}
