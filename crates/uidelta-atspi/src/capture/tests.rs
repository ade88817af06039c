use super::fixtures::*;
use super::*;

#[test]
fn paragraphs_headings_and_nameless_labels_say_their_text() {
    assert!(says_its_text(Role::Paragraph, "", 0));
    assert!(says_its_text(Role::Heading, "", 0));
    assert!(says_its_text(Role::Label, "", 0));
    // Chromium's paragraph has its text in child runs.
    assert!(!says_its_text(Role::Paragraph, "", 2));
    // A label is named after its text.
    assert!(!says_its_text(Role::Label, "Name", 0));
    assert!(!says_its_text(Role::PushButton, "", 0));
}

#[test]
fn a_terminal_screen_reads_without_its_padding() {
    let screen = format!("root@vm:/tmp# \n{}", "\n".repeat(23));
    assert_eq!(screen_of(Role::Terminal, screen), "root@vm:/tmp#");
    assert_eq!(
        screen_of(Role::Terminal, "$ ls   \na  b\n\n$ \n\n\n".to_owned()),
        "$ ls\na  b\n\n$"
    );
    assert_eq!(screen_of(Role::Terminal, "\n\n".to_owned()), "");
    // Other texts keep theirs.
    assert_eq!(screen_of(Role::Text, "a \n\n".to_owned()), "a \n\n");
}

#[test]
fn only_a_menu_bar_without_room_is_left_out() {
    let bar = |w, h| Some(Rect::new(57, 50, w, h));
    assert!(is_roomless_menu_bar(Role::MenuBar, bar(1166, 0), true));
    assert!(is_roomless_menu_bar(Role::MenuBar, bar(0, 25), true));
    assert!(!is_roomless_menu_bar(Role::MenuBar, bar(1141, 25), true));
    // No extents: nothing known.
    assert!(!is_roomless_menu_bar(Role::MenuBar, None, true));
    assert!(!is_roomless_menu_bar(Role::ToolBar, bar(1166, 0), true));
    // What does not show (GTK 4's hidden page) stays, as hidden.
    assert!(!is_roomless_menu_bar(Role::MenuBar, bar(0, 0), false));
}

#[test]
fn a_nameless_label_around_one_text_run_is_named_after_it() {
    let mut recs = vec![
        rec("document web", "Form", &[1, 3, 5, 8]),
        rec("label", "", &[2]),
        rec("static", "Colour", &[]),
        rec("label", "Size", &[4]),
        rec("static", "Size of it", &[]),
        rec("label", "", &[6, 7]),
        rec("static", "Two", &[]),
        rec("static", "runs", &[]),
        rec("label", "", &[]),
    ];
    name_labels_after_their_text(&mut recs);
    let tree = assemble(recs);
    let lines: Vec<(Role, &str)> = tree
        .nodes()
        .iter()
        .map(|n| (n.role, n.name.as_str()))
        .collect();
    // Not a label with a name of its own, with two runs, or empty.
    assert_eq!(
        lines,
        [
            (Role::DocumentWeb, "Form"),
            (Role::Label, "Colour"),
            (Role::Label, "Size"),
            (Role::Static, "Size of it"),
            (Role::Label, ""),
            (Role::Static, "Two"),
            (Role::Static, "runs"),
            (Role::Label, ""),
        ]
    );
}

#[test]
fn a_text_run_that_repeats_its_heading_is_left_out() {
    let mut recs = vec![
        rec("document web", "Sign up", &[1, 3, 5]),
        rec("heading", "Sign up", &[2]),
        rec("static", "Sign up", &[]),
        rec("heading", "Terms", &[4]),
        rec("static", "Terms of use", &[]),
        rec("paragraph", "Sign up", &[6]),
        rec("static", "Sign up", &[]),
    ];
    leave_out_repeated_labels(&mut recs);
    let left_out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].says_again).collect();
    // Not the text of a heading that says more, nor a paragraph's text.
    assert_eq!(left_out, [2]);
}

#[test]
fn a_status_bar_named_after_its_message_does_not_repeat_it() {
    // GTK 2's status bar: named after its label, among its other parts.
    let mut recs = vec![
        rec("frame", "Window", &[1]),
        rec("status bar", "photo.ppm (93.0 kB)", &[2, 3, 4]),
        rec("combo box", "", &[]),
        rec("label", "photo.ppm (93.0 kB)", &[]),
        rec("label", "174, 139", &[]),
    ];
    leave_out_repeated_labels(&mut recs);
    let left_out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].says_again).collect();
    assert_eq!(left_out, [3]);
}

#[test]
fn a_label_that_repeats_its_button_is_left_out() {
    let mut recs = vec![
        rec("frame", "Window", &[1, 3, 5, 8, 9]),
        rec("push button", "Next", &[2]),
        rec("label", "Next", &[]),
        rec("check box", "Wrap", &[4]),
        rec("label", "Wrap lines", &[]),
        rec("push button", "Open", &[6, 7]),
        rec("label", " Open ", &[]),
        rec("label", "Ctrl+O", &[]),
        rec("label", "Window", &[]),
        rec("push button", "Nick", &[10, 13]),
        rec("panel", "", &[11, 12]),
        rec("label", "Nick", &[]),
        rec("filler", "", &[]),
        rec("panel", "Sort", &[14]),
        rec("label", "Nick", &[]),
    ];
    leave_out_repeated_labels(&mut recs);
    let mut left_out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].says_again).collect();
    left_out.sort_unstable();
    // Labels repeating their button, directly or in a nameless box; not
    // a label saying more than its check box, another label of a
    // button, a label in a window (not named after its content) or in
    // a named box.
    assert_eq!(left_out, [2, 6, 11]);
    let tree = assemble(recs);
    let names: Vec<&str> = tree.nodes().iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Window",
            "Next",
            "Wrap",
            "Wrap lines",
            "Open",
            "Ctrl+O",
            "Window",
            "Nick",
            "",
            "",
            "Sort",
            "Nick"
        ]
    );
}

#[test]
fn the_label_that_named_a_field_is_left_out() {
    let at = |mut r: Rec, path: &str| {
        r.bus = ":1.9".into();
        r.path = path.into();
        r
    };
    let labelled = |mut r: Rec, label: &str| {
        r.labelled_by = Some((":1.9".into(), label.into()));
        r
    };
    let mut recs = vec![
        at(
            rec("dialog", "Interactive Dialog", &[1, 2, 3, 4, 5, 6]),
            "/0",
        ),
        // Named by its label, which says nothing more: left out.
        labelled(at(rec("text", "Entry 1", &[]), "/1"), "/2"),
        at(rec("label", "Entry 1", &[]), "/2"),
        // Its own name, not the label's: the label stays.
        labelled(at(rec("text", "Search", &[]), "/3"), "/4"),
        at(rec("label", "Find", &[]), "/4"),
        // Labelled by a label with more in it: it stays.
        labelled(at(rec("slider", "Volume", &[]), "/5"), "/6"),
        at(rec("label", "Volume", &[7]), "/6"),
        at(rec("link", "more", &[]), "/7"),
    ];
    leave_out_repeated_labels(&mut recs);
    let left_out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].says_again).collect();
    assert_eq!(left_out, [2]);
}

#[test]
fn values_read_as_meant() {
    let steps = (0..19).fold(0.0_f64, |v, _| v + 0.05);
    assert_ne!(format!("{steps}"), "0.95");
    assert_eq!(number(steps), "0.95");
    assert_eq!(number(75.0), "75");
    assert_eq!(number(-3.0), "-3");
    assert_eq!(number(0.8), "0.8");
    assert_eq!(number(1.0 / 3.0), "0.333333333");
    assert_eq!(number(-1e-12), "0");
    assert_eq!(number(f64::NAN), "NaN");
    assert_eq!(number(2.5e20), "250000000000000000000");
}

#[test]
fn a_text_run_the_cache_shows_repeating_its_element_is_known_before_it_is_read() {
    let chromium = Profile::detect("Chromium", "156", "Chromium");
    let basic = |role: &str, name: &str, children: i32| Basic {
        raw_role: role.into(),
        name: name.into(),
        child_count: children,
        ..Basic::default()
    };
    let link = basic("link", "Open  item 1", 1);
    // Names as a read gives them: spaces that align are one.
    assert!(repeats_in_cache(
        &chromium,
        &link,
        &basic("static", "Open item 1", 0)
    ));
    assert!(!repeats_in_cache(
        &chromium,
        &link,
        &basic("static", "Open item 12", 0)
    ));
    // A run with something in it, a run in what is not named after its
    // content, and what is not a run are read.
    assert!(!repeats_in_cache(
        &chromium,
        &link,
        &basic("static", "Open item 1", 1)
    ));
    let cell = basic("table cell", "Open item 1", 1);
    assert!(!repeats_in_cache(
        &chromium,
        &cell,
        &basic("static", "Open item 1", 0)
    ));
    assert!(!repeats_in_cache(
        &chromium,
        &link,
        &basic("image", "Open item 1", 0)
    ));
    // A tab's name without Chromium's memory readout.
    let tab = basic("page tab", "Inbox - Memory usage - 23.4 MB", 1);
    assert!(repeats_in_cache(
        &chromium,
        &tab,
        &basic("static", "Inbox", 0)
    ));
}

#[test]
fn chromium_text_runs_have_no_attributes_read() {
    let chromium = Profile::detect("Chromium", "156", "Chromium");
    assert!(!chromium.reads_attributes(Role::Static));
    assert!(chromium.reads_attributes(Role::Link));
    assert!(chromium.reads_attributes(Role::TableCell));
    let gtk = Profile::detect("gtk", "3.24", "gtk3-widget-factory");
    assert!(gtk.reads_attributes(Role::Static));
}

#[test]
fn an_object_reporting_no_state_is_hidden_and_disabled_but_its_application_says_nothing() {
    use uidelta_model::{State, StateSet};
    // AT-SPI's answer for each: no state at all.
    let none = crate::state::states(&[0, 0]);
    let mut r = recs(&[
        ("application", &[], &[1]),
        ("frame", &[State::Showing, State::Visible], &[2]),
        ("panel", &[], &[]),
    ]);
    r[0].basic.states = none;
    r[2].basic.states = none;
    application_states_say_nothing(&mut r);
    assert_eq!(r[0].basic.states, StateSet::EMPTY);
    assert_eq!(r[2].basic.states, StateSet::REPORTED_NONE);
    assert!(r[2].basic.states.says_hidden());
}

#[test]
fn a_frame_named_after_its_title_does_not_repeat_it() {
    // A GTK frame of GIMP's Scale Image dialog: its title label comes
    // after what it holds.
    let mut recs = vec![
        rec("dialog", "Scale Image", &[1]),
        rec("panel", "Image Size", &[2, 3, 4]),
        rec("spin button", "Width:", &[]),
        rec("label", "120 × 80 pixels", &[]),
        rec("label", "Image Size", &[]),
    ];
    leave_out_repeated_labels(&mut recs);
    let left_out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].says_again).collect();
    assert_eq!(left_out, [4]);
}

#[test]
fn a_frame_inside_a_window_is_a_box_and_a_plain_top_level_widget_a_window() {
    // Qt 5: a plain top-level widget is a `filler`; a `QFrame` inside a
    // window, a `frame`.
    let recs = vec![
        rec("application", "calculator", &[1, 4]),
        rec("filler", "Calculator", &[2]),
        rec("frame", "", &[3]),
        rec("push button", "7", &[]),
        rec("dialog", "Settings", &[5]),
        rec("frame", "Look and feel", &[]),
    ];
    let tree = assemble(recs);
    let nodes: Vec<(Role, &str, &str)> = tree
        .nodes()
        .iter()
        .map(|n| (n.role, n.raw_role.as_str(), n.name.as_str()))
        .collect();
    assert_eq!(
        nodes,
        [
            (Role::Application, "application", "calculator"),
            (Role::Frame, "filler", "Calculator"),
            (Role::Panel, "frame", ""),
            (Role::PushButton, "push button", "7"),
            (Role::Dialog, "dialog", "Settings"),
            (Role::Panel, "frame", "Look and feel"),
        ]
    );
    // Captured from a window, the window is one and what is in it is not.
    let window = assemble(vec![rec("frame", "Main", &[1]), rec("frame", "", &[])]);
    let roles: Vec<Role> = window.nodes().iter().map(|n| n.role).collect();
    assert_eq!(roles, [Role::Frame, Role::Panel]);
}

#[test]
fn the_text_selected_in_a_field_is_read_by_characters_and_cut_when_long() {
    assert_eq!(
        selected_text(Some("invoices 2024"), (9, 13)).as_deref(),
        Some("2024")
    );
    assert_eq!(
        selected_text(Some("naïve café"), (6, 10)).as_deref(),
        Some("café")
    );
    // A value read short of the selection, or none: nothing said.
    assert_eq!(selected_text(Some("abc"), (5, 9)), None);
    assert_eq!(selected_text(None, (0, 3)), None);
    // An end past the value: what there is.
    assert_eq!(selected_text(Some("abc"), (1, 9)).as_deref(), Some("bc"));
    let long = "x".repeat(500);
    let cut = selected_text(Some(&long), (0, 500)).unwrap_or_default();
    assert_eq!(cut.chars().count(), SELECTION_CHARS + 1);
    assert!(cut.ends_with('…'), "{cut}");
    let exact = "y".repeat(SELECTION_CHARS);
    assert_eq!(
        selected_text(Some(&exact), (0, SELECTION_CHARS)).as_deref(),
        Some(exact.as_str())
    );
}
