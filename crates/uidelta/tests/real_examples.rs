//! Diffs of snapshots captured from the real gtk3-widget-factory (see
//! examples/README.md for the actions that produced them).

use std::process::Command;

fn diff(before: &str, after: &str) -> (i32, String) {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/widget-factory/"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_uidelta"))
        .arg("diff")
        .arg(format!("{dir}{before}.json"))
        .arg(format!("{dir}{after}.json"))
        .output()
        .expect("the uidelta binary runs");
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn check_button_click_is_one_line() {
    let (code, out) = diff("01-start", "02-checked");
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "# diff: ~1 modified\n\
         ~ [e58] check box \"checkbutton\" | checked: false -> true\n"
    );
}

#[test]
fn typing_is_the_value_and_the_focus_move() {
    let (code, out) = diff("02-checked", "03-typed");
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "# diff: ~1 modified · focus [e16] text -> [e20] text\n\
         ~ [e20] text | value: none -> \"hello from uidelta\"\n"
    );
}

#[test]
fn notebook_tab_switch_is_two_selection_lines() {
    let (_, out) = diff("03-typed", "04-notebook-tab");
    assert_eq!(
        out,
        "# diff: ~2 modified · focus [e20] text -> none\n\
         ~ [e140] page tab \"page 1\" | selected: true -> false\n\
         ~ [e141] page tab \"page 2\" | selected: false -> true\n"
    );
}

#[test]
fn about_dialog_opens_as_one_subtree_and_closes_as_one_line() {
    let (_, out) = diff("05-page2", "06-about");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "# diff: +1 added · focus [e11] spin button -> [e215] link"
    );
    assert_eq!(
        lines[1],
        "+ [e206] dialog \"About GTK Widget Factory\" (modal) (opened)"
    );
    // The hidden credits page is counted, not listed.
    let (last, elements) = lines[2..].split_last().unwrap_or((&"", &[]));
    assert!(elements.iter().all(|l| l.starts_with("    ")), "{out}");
    assert_eq!(*last, "  ... 1 more node under [e206] (hidden)", "{out}");
    assert!(out.contains("[e218] push button \"Close\""), "{out}");
    let (_, out) = diff("06-about", "07-about-closed");
    assert_eq!(
        out,
        "# diff: -1 removed · focus [e215] link (gone) -> [e11] spin button\n\
         - [e206] dialog \"About GTK Widget Factory\" (closed) (and 12 descendants)\n"
    );
}

#[test]
fn page_switch_is_one_group_in_and_one_line_out() {
    let (_, out) = diff("04-notebook-tab", "05-page2");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "# diff: +33 added, -69 removed, ~2 modified · focus none -> [e197] spin button"
    );
    assert_eq!(
        lines[1],
        "+ 33 elements with 120 descendants appeared together (a page or pane shown as a whole):"
    );
    assert_eq!(lines[2], "+ [e197] spin button = \"50\" (focused)");
    assert_eq!(
        lines[12],
        "+ ... and 23 more added subtrees (read the tree for them)"
    );
    assert_eq!(
        lines[13],
        "- 69 elements with 75 descendants went away together (a page or pane hidden as a whole): \
         [e11] combo box, [e17] combo box, [e20] text, ..."
    );
    assert_eq!(
        lines[14],
        "~ [e8] radio button \"Page 1\" | checked: true -> false"
    );
    assert_eq!(lines.len(), 16, "{out}");
}

#[test]
fn window_moved_by_118_px_is_no_change() {
    assert_eq!(
        diff("07-about-closed", "08-moved"),
        (0, "No UI changes detected\n".into())
    );
}
