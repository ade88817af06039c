//! Golden tests: every renderer on the same hand-built views and diffs.
//! The `.snap` files under `tests/snapshots` are the spec of each format.

use insta::assert_snapshot;
use uidelta_diff::{
    Added, Attr, AttrChange, AttrValue, Change, Diff, Element, Filters, FocusMove, Handle,
    InheritedChange, Modified, Place, Ref, RefTable, Refs, Removed, SubtreeNode, View,
};
use uidelta_model::{Meta, NodeData, Rect, Role, Snapshot, State, StateSet, TreeBuilder};
use uidelta_render::{
    answer, diff_flat, diff_json, diff_terminator, diff_text, tree_flat, tree_json,
    tree_terminator, tree_text, DiffOptions, TreeOptions,
};

// ---------------------------------------------------------------- fixtures

fn normal() -> StateSet {
    StateSet::of(&[
        State::Enabled,
        State::Sensitive,
        State::Showing,
        State::Visible,
    ])
}

fn node(role: Role, name: &str, bounds: Option<(i32, i32, i32, i32)>) -> NodeData {
    let mut n = NodeData::named(role, name);
    n.states = normal();
    n.bounds = bounds.map(|(x, y, w, h)| Rect::new(x, y, w, h));
    n
}

fn with_states(mut n: NodeData, add: &[State], remove: &[State]) -> NodeData {
    for s in add {
        n.states.insert(*s);
    }
    for s in remove {
        n.states.remove(*s);
    }
    n
}

/// A text editor's window: every part of a tree line appears somewhere.
fn editor(truncated: bool) -> (View, Refs) {
    let mut frame = node(Role::Frame, "Untitled - Editor", Some((0, 0, 1280, 800)));
    frame.states.insert(State::Active);
    frame.identity = Some(":1.42/org/a11y/atspi/accessible/1".into());
    let mut b = TreeBuilder::new(frame);

    b.open(node(Role::MenuBar, "", Some((0, 0, 1280, 24))));
    let file = node(Role::Menu, "File", Some((0, 0, 40, 24)));
    b.leaf(with_states(
        file,
        &[State::Expandable, State::Focusable],
        &[],
    ));
    let edit = node(Role::Menu, "Edit", Some((40, 0, 40, 24)));
    b.leaf(with_states(
        edit,
        &[State::Expandable, State::Expanded],
        &[],
    ));
    b.close();

    b.open(node(Role::Panel, "", Some((0, 24, 1280, 752))));
    let mut doc = node(Role::Entry, "Document", Some((0, 24, 1000, 752)));
    doc.value = Some("Hello \"world\"\nC:\\notes\\todo.txt".into());
    doc.states.insert(State::Focused);
    doc.states.insert(State::Focusable);
    doc.states.insert(State::Editable);
    b.leaf(doc);
    let bold = node(Role::CheckBox, "Bold", Some((1010, 30, 80, 24)));
    b.leaf(with_states(bold, &[State::Checked, State::Focusable], &[]));
    let save = node(Role::PushButton, "Save", Some((1010, 60, 80, 30)));
    b.leaf(with_states(
        save,
        &[State::Focusable],
        &[State::Enabled, State::Sensitive],
    ));
    let mut odd = NodeData::named(Role::Unknown, "odd one");
    odd.raw_role = "AXWeirdThing".into();
    b.leaf(odd);
    let mut help = node(Role::Link, "Help", None);
    help.set_attribute("text", "Open the manual");
    help.set_attribute("href", "https://example.invalid/help");
    b.leaf(help);
    b.close();

    let sidebar = node(Role::Panel, "Sidebar", None);
    b.open(with_states(sidebar, &[], &[State::Showing, State::Visible]));
    let recent = node(Role::ListItem, "Recent", None);
    b.leaf(with_states(recent, &[State::Selected], &[State::Showing]));
    b.close();

    let mut log = node(Role::Static, "", Some((0, 776, 1000, 24)));
    log.value = Some("All work and no play makes Jack a dull boy. ".repeat(6));
    b.leaf(log);
    b.leaf(node(Role::StatusBar, "Ready", Some((1000, 776, 280, 24))));

    let meta = Meta {
        source: "atspi".into(),
        app: Some("gedit".into()),
        pid: Some(4242),
        window: Some("Untitled - Editor".into()),
        captured_at_ms: Some(1_700_000_000_000),
        capture_ms: Some(12.5),
        truncated,
    };
    let view = View::new(&Snapshot::new(meta, b.finish()), Filters::none());
    let refs = RefTable::new().label(view.len());
    (view, refs)
}

fn el(r: u32, role: Role, name: &str) -> Element {
    Element::new(Ref(r), &node(role, name, None))
}

fn el_at(r: u32, role: Role, name: &str, bounds: (i32, i32, i32, i32)) -> Element {
    Element::new(Ref(r), &node(role, name, Some(bounds)))
}

fn at(depth: usize, element: Element) -> SubtreeNode {
    SubtreeNode { depth, element }
}

fn handle(r: u32, role: Role, name: &str) -> Handle {
    Handle {
        r#ref: Ref(r),
        role,
        name: name.into(),
    }
}

fn change(attr: Attr, old: AttrValue, new: AttrValue) -> AttrChange {
    AttrChange { attr, old, new }
}

fn text(s: &str) -> AttrValue {
    AttrValue::Text(s.into())
}

fn editor_frame() -> Option<Handle> {
    Some(handle(1, Role::Frame, "Untitled - Editor"))
}

/// A Save As dialog opened over the editor.
fn save_as_dialog() -> Added {
    let mut dialog = el_at(58, Role::Dialog, "Save As", (400, 200, 480, 320));
    dialog.states.insert(State::Modal);
    let mut name = el_at(60, Role::Entry, "File name", (500, 240, 300, 28));
    name.value = Some("untitled.txt".into());
    name.states.insert(State::Focused);
    let mut home = el(62, Role::ListItem, "Home");
    home.states.insert(State::Selected);
    Added {
        parent: Ref(1),
        index: 3,
        opened: Some(Role::Dialog),
        group: None,
        came_back: false,
        context: editor_frame(),
        subtree: vec![
            at(0, dialog),
            at(1, el_at(59, Role::Label, "File name:", (410, 244, 80, 20))),
            at(1, name),
            at(1, el(61, Role::List, "Places")),
            at(2, home),
            at(2, el(63, Role::ListItem, "Desktop")),
            at(1, el_at(64, Role::PushButton, "Save", (700, 480, 80, 30))),
            at(1, el_at(65, Role::PushButton, "Cancel", (790, 480, 80, 30))),
        ],
    }
}

fn toolbar_removed() -> Removed {
    Removed {
        parent: Ref(2),
        closed: None,
        group: None,
        context: editor_frame(),
        subtree: vec![
            at(0, el_at(20, Role::ToolBar, "Formatting", (0, 24, 1280, 32))),
            at(1, el_at(21, Role::PushButton, "Bold", (0, 24, 32, 32))),
            at(1, el_at(22, Role::PushButton, "Italic", (32, 24, 32, 32))),
            at(
                1,
                el_at(23, Role::PushButton, "Underline", (64, 24, 32, 32)),
            ),
            at(1, el_at(24, Role::PushButton, "Strike", (96, 24, 32, 32))),
        ],
    }
}

fn popup_closed() -> Removed {
    Removed {
        parent: Ref(1),
        closed: Some(Role::PopupMenu),
        group: None,
        context: None,
        subtree: vec![at(0, el(30, Role::PopupMenu, "Context"))],
    }
}

fn save_button_modified() -> Modified {
    let mut save = el_at(7, Role::PushButton, "Save As…", (1010, 60, 80, 30));
    save.states.remove(State::Enabled);
    Modified {
        element: save,
        context: editor_frame(),
        changes: vec![
            change(Attr::Name, text("Save"), text("Save As…")),
            change(
                Attr::State(State::Enabled),
                AttrValue::Bool(true),
                AttrValue::Bool(false),
            ),
            change(
                Attr::Attribute("shortcut".into()),
                text("Ctrl+S"),
                AttrValue::Absent,
            ),
        ],
        descendants: vec![],
    }
}

fn paragraph(word: &str) -> String {
    format!(
        "It was the best of times, it was the worst of times, it was the age of wisdom, \
         it was the {word} of foolishness, it was the epoch of belief, it was the epoch of \
         incredulity."
    )
}

fn document_modified() -> Modified {
    let mut doc = el(5, Role::Entry, "Document");
    doc.value = Some(paragraph("season"));
    Modified {
        element: doc,
        context: None,
        changes: vec![change(
            Attr::Value,
            text(&paragraph("age")),
            text(&paragraph("season")),
        )],
        descendants: vec![],
    }
}

fn sidebar_hidden() -> Modified {
    let showing = |r| {
        let mut element = el(r, Role::PushButton, "");
        element.states.remove(State::Showing);
        InheritedChange {
            r#ref: Ref(r),
            depth: 1,
            element,
            changes: vec![change(
                Attr::State(State::Showing),
                AttrValue::Bool(true),
                AttrValue::Bool(false),
            )],
        }
    };
    let mut sidebar = el(10, Role::Panel, "Sidebar");
    sidebar.states.remove(State::Showing);
    Modified {
        element: sidebar,
        context: editor_frame(),
        changes: showing(10).changes,
        descendants: vec![showing(11), showing(12), showing(13)],
    }
}

fn bold_moved() -> Modified {
    let mut bold = el_at(8, Role::CheckBox, "Bold", (1010, 90, 80, 24));
    bold.description = "Toggle bold text".into();
    Modified {
        element: bold,
        context: None,
        changes: vec![
            change(
                Attr::Description,
                AttrValue::Absent,
                text("Toggle bold text"),
            ),
            change(
                Attr::Bounds,
                AttrValue::Rect(Rect::new(1010, 30, 80, 24)),
                AttrValue::Rect(Rect::new(1010, 90, 80, 24)),
            ),
            change(Attr::Position, AttrValue::Index(2), AttrValue::Index(3)),
        ],
        descendants: vec![],
    }
}

/// A recent file moved from the sidebar's list to the pinned one.
fn recent_file_pinned() -> Modified {
    let place = |r, name: &str, index| {
        AttrValue::Place(Place {
            parent: handle(r, Role::List, name),
            index,
        })
    };
    Modified {
        element: el(17, Role::ListItem, "notes.txt"),
        context: Some(handle(16, Role::List, "Pinned")),
        changes: vec![change(
            Attr::Parent,
            place(15, "Recent", 2),
            place(16, "Pinned", 0),
        )],
        descendants: vec![],
    }
}

/// A popover that came to show with its items (GTK keeps a popover in the
/// tree while it is hidden): the items are listed under it, as an added
/// subtree's.
fn popover_shown() -> Modified {
    let shown = |r, depth, role, name: &str| {
        let element = el(r, role, name);
        InheritedChange {
            r#ref: Ref(r),
            depth,
            element,
            changes: vec![
                change(
                    Attr::State(State::Showing),
                    AttrValue::Bool(false),
                    AttrValue::Bool(true),
                ),
                change(
                    Attr::State(State::Visible),
                    AttrValue::Bool(false),
                    AttrValue::Bool(true),
                ),
            ],
        }
    };
    Modified {
        element: el(70, Role::Panel, "Main menu"),
        context: editor_frame(),
        changes: shown(70, 0, Role::Panel, "").changes,
        descendants: vec![
            shown(71, 1, Role::Panel, "Actions"),
            shown(72, 2, Role::PushButton, "New Window"),
            shown(73, 2, Role::PushButton, "Preferences"),
            shown(74, 2, Role::PushButton, "Help"),
        ],
    }
}

#[test]
fn diff_text_lists_what_came_to_show_with_a_popover() {
    let diff = Diff {
        changes: vec![Change::Modified(popover_shown())],
        ..Diff::default()
    };
    let text = diff_text(&diff, &DiffOptions::default());
    assert_snapshot!(text);
    // Within the budget: past it, what is left is counted.
    let short = diff_text(
        &diff,
        &DiffOptions {
            budget: 2,
            ..DiffOptions::default()
        },
    );
    assert!(short.contains("  ... 2 more nodes under [e70]"), "{short}");
    let json = diff_json(&diff);
    assert!(json.contains("\"New Window\""), "{json}");
    // A page of more than thirty shown as a whole stays one line.
    let mut page = popover_shown();
    let item = page.descendants[1].clone();
    page.descendants = (0..31)
        .map(|k| {
            let mut d = item.clone();
            d.r#ref = Ref(100 + k);
            d.element.r#ref = Ref(100 + k);
            d.depth = 1;
            d
        })
        .collect();
    let diff = Diff {
        changes: vec![Change::Modified(page)],
        ..Diff::default()
    };
    let text = diff_text(&diff, &DiffOptions::default());
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains("(also 31 descendants)"), "{text}");
}

/// One of everything: opened dialog, removed subtrees, modifications of
/// several kinds, a focus move, settle time and a transient toast.
fn full_diff() -> Diff {
    let toast = el(40, Role::Notification, "Saved");
    Diff {
        changes: vec![
            Change::Added(save_as_dialog()),
            Change::Removed(toolbar_removed()),
            Change::Removed(popup_closed()),
            Change::Modified(save_button_modified()),
            Change::Modified(document_modified()),
            Change::Modified(sidebar_hidden()),
            Change::Modified(bold_moved()),
            Change::Modified(recent_file_pinned()),
        ],
        focus: Some(FocusMove {
            from: Some(handle(5, Role::Entry, "Document")),
            to: Some(handle(60, Role::Entry, "File name")),
        }),
        transient: vec![toast],
        settle_ms: Some(180),
        settle_capped: false,
        truncated: false,
        new_document: false,
        hidden_moves: Vec::new(),
        handed_over: Vec::new(),
    }
}

// ---------------------------------------------------------------- tree text

#[test]
fn tree_text_plain() {
    let (view, refs) = editor(false);
    assert_snapshot!(tree_text(&view, &refs, &TreeOptions::default()));
}

#[test]
fn tree_text_with_bounds_and_truncation() {
    let (view, refs) = editor(true);
    assert_snapshot!(tree_text(&view, &refs, &TreeOptions { bounds: true }));
}

#[test]
fn tree_text_marks_elements_the_refs_do_not_cover() {
    let (view, _) = editor(false);
    let short = RefTable::new().label(2);
    let text = tree_text(&view, &short, &TreeOptions::default());
    assert!(
        text.lines()
            .nth(2)
            .is_some_and(|l| l.starts_with("    [?] menu")),
        "{text}"
    );
}

/// Names and values with characters that would act on a terminal: ESC
/// starting a sequence that retitles it, NUL, BEL, DEL, C1's CSI, the
/// bidirectional overrides and isolates, a tab, and a line break.
const HOSTILE: [&str; 4] = [
    "\u{1b}]0;pwned\u{7}Save\u{0}",
    "invoice\u{202e}fdp.exe",
    "\u{2066}left\u{2069}\u{200e}\u{200f}\u{61c}",
    "a\tb\nc\u{7f}\u{9b}31m",
];

/// The hostile texts as names, a value, a platform role and a window.
fn hostile() -> (View, Refs) {
    let mut b = TreeBuilder::new(node(Role::Frame, HOSTILE[0], None));
    b.leaf(node(Role::PushButton, HOSTILE[1], None));
    let mut entry = node(Role::Entry, HOSTILE[2], None);
    entry.value = Some(HOSTILE[3].into());
    b.leaf(entry);
    let mut odd = node(Role::Unknown, "", None);
    odd.raw_role = "AX\u{1b}[2J".into();
    b.leaf(odd);
    let view = View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none());
    let refs = RefTable::new().label(view.len());
    (view, refs)
}

/// Whether any character of `text` would act on a terminal: everything
/// but the line ends that separate lines is shown escaped.
fn acts_on_a_terminal(text: &str) -> bool {
    text.chars().any(|c| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{61c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })
}

#[test]
fn tree_text_escapes_characters_that_act_on_a_terminal() {
    let (view, refs) = hostile();
    let text = tree_text(&view, &refs, &TreeOptions::default());
    assert!(!acts_on_a_terminal(&text), "{text:?}");
    assert_eq!(text.lines().count(), 4, "{text}");
    assert_snapshot!(text);
    for text in [tree_terminator(&view), tree_flat(&view)] {
        assert!(!acts_on_a_terminal(&text), "{text:?}");
        assert_eq!(text.lines().filter(|l| !l.is_empty()).count(), 4, "{text}");
    }
}

#[test]
fn diff_text_escapes_characters_that_act_on_a_terminal() {
    let mut added = el(2, Role::PushButton, HOSTILE[1]);
    added.value = Some(HOSTILE[3].into());
    let mut odd = el(3, Role::Unknown, "");
    odd.raw_role = "AX\u{1b}[2J".into();
    let diff = Diff {
        changes: vec![
            Change::Added(Added {
                parent: Ref(1),
                index: 0,
                opened: None,
                context: Some(handle(1, Role::Frame, HOSTILE[0])),
                group: None,
                came_back: false,
                subtree: vec![at(0, added), at(1, odd)],
            }),
            Change::Modified(Modified {
                element: el(4, Role::Entry, HOSTILE[2]),
                context: None,
                changes: vec![
                    change(Attr::Value, text(HOSTILE[0]), text(HOSTILE[3])),
                    change(
                        Attr::Attribute("\u{1b}[8m".into()),
                        text("x"),
                        text(HOSTILE[1]),
                    ),
                ],
                descendants: vec![],
            }),
        ],
        focus: Some(FocusMove {
            from: Some(handle(5, Role::Entry, HOSTILE[1])),
            to: Some(handle(4, Role::Entry, HOSTILE[2])),
        }),
        ..Diff::default()
    };
    let text = diff_text(&diff, &DiffOptions::default());
    assert!(!acts_on_a_terminal(&text), "{text:?}");
    assert_snapshot!(text);
    for text in [diff_terminator(&diff), diff_flat(&diff)] {
        assert!(!acts_on_a_terminal(&text), "{text:?}");
    }
}

// ---------------------------------------------------------------- diff text

#[test]
fn diff_text_without_changes_is_one_line() {
    assert_eq!(
        diff_text(&Diff::default(), &DiffOptions::default()),
        "No UI changes detected\n"
    );
    assert_snapshot!(diff_text(&Diff::default(), &DiffOptions::default()));
}

#[test]
fn diff_text_full() {
    assert_snapshot!(diff_text(&full_diff(), &DiffOptions::default()));
}

#[test]
fn diff_text_with_bounds_without_context() {
    let opts = DiffOptions {
        bounds: true,
        context: false,
        ..DiffOptions::default()
    };
    assert_snapshot!(diff_text(&full_diff(), &opts));
}

#[test]
fn diff_text_mentions_elements_already_read_briefly() {
    let dialog = handle(
        90,
        Role::Dialog,
        "Preferences for the document Quarterly report 2024.odt",
    );
    let mut note = el(
        91,
        Role::Paragraph,
        "Gear for walking, camping and paddling, tested on our own trips.",
    );
    note.value = Some("draft".into());
    note.states.insert(State::Focused);
    let mut optional = el(
        92,
        Role::CheckBox,
        "This is optional data, you may continue even if you do not check this",
    );
    optional.states.insert(State::Checked);
    let added = el(
        93,
        Role::Label,
        "Everything we sell, grouped by activity and season.",
    );
    let diff = Diff {
        changes: vec![
            Change::Added(Added {
                parent: Ref(90),
                index: 0,
                opened: None,
                group: None,
                came_back: false,
                context: Some(dialog.clone()),
                subtree: vec![at(0, added)],
            }),
            Change::Removed(Removed {
                parent: Ref(90),
                closed: None,
                group: None,
                context: Some(dialog.clone()),
                subtree: vec![at(0, note)],
            }),
            Change::Modified(Modified {
                element: optional,
                context: Some(dialog),
                changes: vec![change(
                    Attr::State(State::Checked),
                    AttrValue::Bool(false),
                    AttrValue::Bool(true),
                )],
                descendants: vec![],
            }),
        ],
        ..Diff::default()
    };
    // What is new is said whole; what went away or changed, and the
    // context, are mentioned: no value or states for what went away, and
    // long names cut at 40 characters.
    assert_eq!(
        diff_text(&diff, &DiffOptions::default()),
        "# diff: +1 added, -1 removed, ~1 modified\n\
         + [e93] label \"Everything we sell, grouped by activity and season.\" in [e90] dialog \"Preferences for the document Quarterly…\"\n\
         - [e91] paragraph \"Gear for walking, camping and paddling,…\" in [e90] dialog \"Preferences for the document Quarterly…\"\n\
         ~ [e92] check box \"This is optional data, you may continue…\" in [e90] dialog \"Preferences for the document Quarterly…\" | checked: false -> true\n"
    );
}

#[test]
fn diff_text_header_with_focus_settle_cap_and_truncation() {
    let diff = Diff {
        focus: Some(FocusMove {
            from: None,
            to: Some(handle(58, Role::Dialog, "Save As")),
        }),
        settle_ms: Some(1500),
        settle_capped: true,
        truncated: true,
        ..Diff::default()
    };
    assert_snapshot!(diff_text(&diff, &DiffOptions::default()));
}

#[test]
fn diff_text_names_both_ends_of_the_focus_move() {
    // The focused button went away with its tool bar; the keys went to the
    // document.
    let diff = Diff {
        changes: vec![Change::Removed(toolbar_removed())],
        focus: Some(FocusMove {
            from: Some(handle(22, Role::PushButton, "Italic")),
            to: Some(handle(5, Role::Entry, "Document")),
        }),
        settle_ms: Some(120),
        ..Diff::default()
    };
    assert_eq!(
        diff_text(&diff, &DiffOptions::default()),
        "# diff: -1 removed · focus [e22] push button \"Italic\" (gone) -> [e5] entry \
         \"Document\" · settled in 120 ms\n\
         - [e20] tool bar \"Formatting\" in [e1] frame \"Untitled - Editor\" (and 4 descendants)\n"
    );
    // The focus left the application's elements: that end is `none`.
    let diff = Diff {
        changes: vec![Change::Modified(bold_moved())],
        focus: Some(FocusMove {
            from: Some(handle(77, Role::DocumentWeb, "Order")),
            to: None,
        }),
        ..Diff::default()
    };
    let text = diff_text(&diff, &DiffOptions::default());
    assert_eq!(
        text.lines().next(),
        Some(r#"# diff: ~1 modified · focus [e77] document web "Order" -> none"#),
        "{text}"
    );
}

#[test]
fn diff_text_does_not_repeat_a_value_equal_to_the_name() {
    let mut confirm = el(93, Role::PushButton, "Confirm");
    confirm.value = Some("Confirm".into());
    let mut review = el(94, Role::PushButton, "Review");
    review.value = Some("Review order".into());
    let mut renamed = el(95, Role::PushButton, "Pay");
    renamed.value = Some("Paid".into());
    let diff = Diff {
        changes: vec![
            Change::Added(Added {
                parent: Ref(1),
                index: 0,
                opened: None,
                group: None,
                came_back: false,
                context: None,
                subtree: vec![at(0, confirm), at(1, review)],
            }),
            Change::Modified(Modified {
                element: renamed,
                context: None,
                changes: vec![change(Attr::Value, text("Pay"), text("Paid"))],
                descendants: vec![],
            }),
        ],
        ..Diff::default()
    };
    assert_eq!(
        diff_text(&diff, &DiffOptions::default()),
        "# diff: +1 added, ~1 modified\n\
         + [e93] push button \"Confirm\"\n\
         \x20   [e94] push button \"Review\" = \"Review order\"\n\
         ~ [e95] push button \"Pay\" | value: \"Pay\" -> \"Paid\"\n"
    );
}

/// A terminal's screen before and after a command that printed 30 rows:
/// the screen scrolled, its first rows gone.
#[test]
fn a_terminal_shows_what_came_onto_its_screen() {
    let files: Vec<String> = (1..=30).map(|i| format!("file-{i:02}.txt")).collect();
    let old = "$ echo start\nstart\n$ ls | head -30".to_owned();
    let new = format!("{}\n$", files.join("\n"));
    let mut screen = el(40, Role::Terminal, "Terminal");
    screen.value = Some(new.clone());
    let mut field = el(41, Role::Text, "Log");
    field.value = Some(new.clone());
    let diff = Diff {
        changes: [screen, field]
            .into_iter()
            .map(|element| {
                Change::Modified(Modified {
                    element,
                    context: None,
                    changes: vec![change(Attr::Value, text(&old), text(&new))],
                    descendants: vec![],
                })
            })
            .collect(),
        ..Diff::default()
    };
    let out = diff_text(&diff, &DiffOptions::default());
    let lines: Vec<&str> = out.lines().collect();
    // The terminal's new screen whole: every file the command listed.
    assert_eq!(
        lines[1],
        format!(
            "~ [e40] terminal \"Terminal\" | value: \"$ echo start\\nstart\\n$ ls | head -30\" -> \"{}\\n$\"",
            files.join("\\n")
        )
    );
    // Any other text is shortened at the limit.
    assert!(
        lines[2].starts_with("~ [e41] text \"Log\" | value: "),
        "{out}"
    );
    assert!(
        lines[2].contains('…') && !lines[2].contains("file-30"),
        "{out}"
    );
}

#[test]
fn diff_text_summarizes_churn() {
    let files = Some(handle(29, Role::List, "Files"));
    let item = |r: u32, name: String| Element::new(Ref(r), &node(Role::ListItem, &name, None));
    let mut changes: Vec<Change> = (0..40)
        .map(|i| {
            Change::Added(Added {
                parent: Ref(30),
                index: i as usize,
                opened: None,
                group: None,
                came_back: false,
                context: files.clone(),
                subtree: vec![at(0, item(100 + i, format!("file{i:02}.txt")))],
            })
        })
        .collect();
    // Different role under the same parent: not part of the churn.
    changes.push(Change::Added(Added {
        parent: Ref(30),
        index: 40,
        opened: None,
        group: None,
        came_back: false,
        context: files.clone(),
        subtree: vec![at(0, el(200, Role::PushButton, "Load more"))],
    }));
    changes.extend((0..7).map(|i| {
        Change::Removed(Removed {
            parent: Ref(30),
            closed: None,
            group: None,
            context: files.clone(),
            subtree: vec![at(0, item(31 + i, format!("old{i}.txt")))],
        })
    }));
    // Exactly `churn` siblings: shown in full.
    changes.extend((0..5).map(|i| {
        Change::Removed(Removed {
            parent: Ref(50),
            closed: None,
            group: None,
            context: None,
            subtree: vec![at(0, item(51 + i, format!("tab{i}")))],
        })
    }));
    let diff = Diff {
        changes,
        ..Diff::default()
    };
    assert_snapshot!(diff_text(&diff, &DiffOptions::default()));
}

#[test]
fn diff_text_stops_at_the_budget() {
    let big = Added {
        parent: Ref(1),
        index: 0,
        opened: None,
        group: None,
        came_back: false,
        context: None,
        // Links and labels, three each: no run long enough to be cut.
        subtree: std::iter::once(at(0, el(100, Role::Panel, "Results")))
            .chain((1..=6).map(|i| {
                let role = if i % 2 == 0 { Role::Label } else { Role::Link };
                at(1, el(100 + i, role, &format!("Result {i}")))
            }))
            .collect(),
    };
    let second = Added {
        parent: Ref(1),
        index: 1,
        opened: None,
        group: None,
        came_back: false,
        context: None,
        subtree: std::iter::once(at(0, el(200, Role::Panel, "Ads")))
            .chain((1..=3).map(|i| at(1, el(200 + i, Role::Link, &format!("Ad {i}")))))
            .collect(),
    };
    let diff = Diff {
        changes: vec![Change::Added(big), Change::Added(second)],
        ..Diff::default()
    };
    let opts = DiffOptions {
        budget: 4,
        ..DiffOptions::default()
    };
    assert_snapshot!(diff_text(&diff, &opts));
}

/// A font dialog: a list of 40 fonts, one of them chosen, then the search
/// entry and the buttons.
fn font_dialog() -> Diff {
    let mut chosen = el(329, Role::TableCell, "Font 25");
    chosen.states.insert(State::Selected);
    let subtree = [
        at(0, el(300, Role::Dialog, "Pick a Font")),
        at(1, el(301, Role::ScrollPane, "")),
        at(2, el(302, Role::Table, "")),
        at(3, el(303, Role::TableColumnHeader, "Font Family")),
    ]
    .into_iter()
    .chain((0..40).map(|i| match i {
        25 => at(3, chosen.clone()),
        _ => at(3, el(304 + i, Role::TableCell, &format!("Font {i}"))),
    }))
    .chain([
        at(1, el(400, Role::Entry, "Search")),
        at(1, el(401, Role::PushButton, "Cancel")),
        at(1, el(402, Role::PushButton, "Select")),
    ])
    .collect();
    Diff {
        changes: vec![Change::Added(Added {
            parent: Ref(1),
            index: 1,
            opened: Some(Role::Dialog),
            group: None,
            came_back: false,
            context: None,
            subtree,
        })],
        ..Diff::default()
    }
}

#[test]
fn a_subtree_over_the_budget_has_its_long_runs_cut_first() {
    // 44 descendants in 11 lines: 3 fonts, the count of the others, the
    // chosen font, and all that follows the list.
    let opts = DiffOptions {
        budget: 11,
        ..DiffOptions::default()
    };
    assert_snapshot!(diff_text(&font_dialog(), &opts));
    // Within the budget, nothing is cut.
    let all = diff_text(&font_dialog(), &DiffOptions::default());
    assert!(all.contains("[e343] table cell \"Font 39\"\n"), "{all}");
    assert!(!all.contains("more"), "{all}");
}

#[test]
fn diff_text_caps_the_number_of_subtree_lines() {
    let roles = [
        Role::PushButton,
        Role::Label,
        Role::Entry,
        Role::Slider,
        Role::Link,
    ];
    let changes = (0..12)
        .map(|i| {
            Change::Added(Added {
                parent: Ref(1),
                index: i,
                opened: None,
                group: None,
                came_back: false,
                context: None,
                subtree: vec![at(0, el(10 + i as u32, roles[i % 5], &format!("w{i}")))],
            })
        })
        .collect();
    let diff = Diff {
        changes,
        ..Diff::default()
    };
    let opts = DiffOptions {
        roots: 4,
        churn: 100,
        ..DiffOptions::default()
    };
    let out = diff_text(&diff, &opts);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert_eq!(lines[1], "+ [e10] push button \"w0\"");
    assert_eq!(
        lines[5],
        "+ ... and 8 more added subtrees (read the tree for them)"
    );
}

/// An element that does not show: known states, without `showing` and
/// `visible`.
fn unseen(r: u32, role: Role, name: &str) -> Element {
    let mut e = el(r, role, name);
    e.states.remove(State::Showing);
    e.states.remove(State::Visible);
    e
}

fn opened_dialog(subtree: Vec<SubtreeNode>) -> Diff {
    Diff {
        changes: vec![Change::Added(Added {
            parent: Ref(1),
            index: 2,
            opened: Some(Role::Dialog),
            group: None,
            came_back: false,
            context: editor_frame(),
            subtree,
        })],
        ..Diff::default()
    }
}

/// A GTK 3 file chooser's Save As dialog: the name entry, a path bar and
/// the places list among 23 icons, buttons and spinners that do not show,
/// a list of 30 files, and the dialog's buttons at the end.
fn save_as_with_hidden_parts() -> Diff {
    let mut dialog = el(400, Role::Dialog, "Save As");
    dialog.states.insert(State::Modal);
    let mut name = el(404, Role::Text, "Name");
    name.value = Some("Untitled 1".into());
    name.states.insert(State::Focused);
    let mut subtree = vec![
        at(0, dialog),
        at(1, el(401, Role::Filler, "")),
        at(2, el(402, Role::FileChooser, "")),
        at(3, el(403, Role::Label, "Name:")),
        at(3, name),
        at(3, unseen(405, Role::PushButton, "Create Folder")),
        at(3, unseen(406, Role::Animation, "")),
        at(3, el(407, Role::Filler, "")),
        at(4, unseen(408, Role::PushButton, "Scroll left")),
        at(4, el(409, Role::ToggleButton, "/")),
        at(4, el(410, Role::ToggleButton, "home")),
        at(4, el(411, Role::ToggleButton, "user")),
        at(4, unseen(412, Role::PushButton, "Scroll right")),
        at(3, el(413, Role::List, "Places")),
    ];
    for (i, place) in ["Recent", "Home", "Desktop", "Documents", "Other Locations"]
        .iter()
        .enumerate()
    {
        let r = 414 + 3 * i as u32;
        subtree.push(at(4, el(r, Role::ListItem, place)));
        subtree.push(at(5, unseen(r + 1, Role::Icon, "")));
        subtree.push(at(5, unseen(r + 2, Role::PushButton, "Eject")));
    }
    subtree.push(at(3, el(429, Role::ScrollPane, "")));
    subtree.push(at(4, el(430, Role::Table, "Files")));
    subtree.extend((0..30).map(|i| at(5, el(431 + i, Role::TableCell, &format!("file{i}.txt")))));
    // A spinner and its icons, not loading anything.
    subtree.push(at(3, unseen(461, Role::Animation, "Loading")));
    subtree.extend((0..8).map(|i| at(4, unseen(462 + i, Role::Icon, ""))));
    subtree.push(at(3, el(470, Role::ComboBox, "Text Files")));
    subtree.push(at(3, el(471, Role::CheckBox, "Encoding")));
    subtree.push(at(1, el(472, Role::Filler, "")));
    subtree.push(at(2, el(473, Role::PushButton, "Cancel")));
    subtree.push(at(2, el(474, Role::PushButton, "Save")));
    opened_dialog(subtree)
}

#[test]
fn an_added_dialog_lists_what_shows_and_always_its_buttons() {
    // 16 lines: nothing that does not show; the buttons and what holds
    // them, and 13 shown nodes before them; the rest counted with the
    // hidden ones.
    let opts = DiffOptions {
        budget: 16,
        ..DiffOptions::default()
    };
    let out = diff_text(&save_as_with_hidden_parts(), &opts);
    assert_snapshot!(out);
    assert!(
        out.contains("      [e473] push button \"Cancel\"\n"),
        "{out}"
    );
    assert!(out.contains("      [e474] push button \"Save\"\n"), "{out}");
    assert!(!out.contains("hidden)\n  "), "{out}");
    for unseen in ["Create Folder", "Scroll left", "Eject", "Loading", "icon"] {
        assert!(!out.contains(unseen), "{unseen}: {out}");
    }
    // The buttons are listed even when other subtrees spent the budget.
    let out = diff_text(
        &save_as_with_hidden_parts(),
        &DiffOptions {
            budget: 0,
            ..DiffOptions::default()
        },
    );
    assert_eq!(
        out.lines().skip(1).collect::<Vec<_>>(),
        [
            "+ [e400] dialog \"Save As\" (modal) (opened) in [e1] frame \"Untitled - Editor\"",
            "    [e472] filler",
            "      [e473] push button \"Cancel\"",
            "      [e474] push button \"Save\"",
            "  ... 71 more nodes under [e400] (23 hidden)",
        ],
        "{out}"
    );
}

/// Qt 5's own file dialog: six tool buttons above the view, a view of
/// forty cells, and Open and Cancel below it, all push buttons of one
/// dialog once its boxes are left out.
fn qt_file_dialog() -> Diff {
    let tools = [
        "Back",
        "Forward",
        "Parent Directory",
        "Create New Folder",
        "List View",
        "Detail View",
    ];
    let subtree = [at(0, el(600, Role::Dialog, "Open File"))]
        .into_iter()
        .chain(
            tools
                .iter()
                .enumerate()
                .map(|(i, t)| at(1, el(601 + i as u32, Role::PushButton, t))),
        )
        .chain([at(1, el(610, Role::Tree, "Files"))])
        .chain((0..40).map(|i| at(2, el(611 + i, Role::TableCell, &format!("file {i}")))))
        .chain([
            at(1, el(660, Role::Entry, "File name:")),
            at(1, el(661, Role::PushButton, "Open")),
            at(1, el(662, Role::PushButton, "Cancel")),
        ])
        .collect();
    opened_dialog(subtree)
}

#[test]
fn a_run_of_buttons_is_cut_apart_from_the_buttons_of_the_dialog() {
    let opts = DiffOptions {
        budget: 14,
        ..DiffOptions::default()
    };
    let out = diff_text(&qt_file_dialog(), &opts);
    assert_eq!(
        out.lines().skip(1).collect::<Vec<_>>(),
        [
            "+ [e600] dialog \"Open File\" (opened) in [e1] frame \"Untitled - Editor\"",
            "    [e601] push button \"Back\"",
            "    [e602] push button \"Forward\"",
            "    [e603] push button \"Parent Directory\"",
            "    ... and 3 more push button",
            "    [e610] tree \"Files\"",
            "      [e611] table cell \"file 0\"",
            "      [e612] table cell \"file 1\"",
            "      [e613] table cell \"file 2\"",
            "      ... and 37 more table cell",
            "    [e660] entry \"File name:\"",
            "    [e661] push button \"Open\"",
            "    [e662] push button \"Cancel\"",
        ],
        "{out}"
    );
}

/// LibreOffice's Format > Paragraph: tabs, the page of the selected one,
/// the pages of the others (hidden, though their controls say `showing`),
/// then OK, Cancel, Help and Reset.
fn paragraph_dialog() -> Diff {
    let mut subtree = vec![
        at(0, el(500, Role::Dialog, "Paragraph")),
        at(1, el(501, Role::PageTabList, "")),
    ];
    let tabs = [
        "Indents & Spacing",
        "Alignment",
        "Text Flow",
        "Tabs",
        "Borders",
    ];
    for (i, tab) in tabs.iter().enumerate() {
        let mut t = el(502 + i as u32, Role::PageTab, tab);
        if i == 0 {
            t.states.insert(State::Selected);
        }
        subtree.push(at(2, t));
    }
    let mut r = 510;
    for (i, tab) in tabs.iter().enumerate() {
        let page = match i {
            0 => el(r, Role::Panel, tab),
            _ => unseen(r, Role::Panel, tab),
        };
        subtree.push(at(2, page));
        r += 1;
        for c in 0..8 {
            let role = [Role::Label, Role::SpinButton, Role::CheckBox][c % 3];
            subtree.push(at(3, el(r, role, &format!("{tab} {c}"))));
            r += 1;
        }
    }
    subtree.push(at(1, el(600, Role::Filler, "")));
    for (i, button) in ["OK", "Cancel", "Help", "Reset"].iter().enumerate() {
        subtree.push(at(2, el(601 + i as u32, Role::PushButton, button)));
    }
    opened_dialog(subtree)
}

#[test]
fn an_added_dialog_leaves_out_its_hidden_pages() {
    // Within the budget of 20: every tab, the shown page, the buttons.
    let opts = DiffOptions {
        budget: 20,
        ..DiffOptions::default()
    };
    let out = diff_text(&paragraph_dialog(), &opts);
    assert_snapshot!(out);
    assert!(out.contains("[e603] push button \"Help\""), "{out}");
    assert!(!out.contains("Alignment 0"), "{out}");
}

#[test]
fn an_added_subtree_that_does_not_show_is_its_root_and_a_count() {
    let page = Added {
        parent: Ref(1),
        index: 0,
        opened: None,
        group: None,
        came_back: false,
        context: None,
        subtree: vec![
            at(0, unseen(700, Role::Panel, "Advanced")),
            at(1, el(701, Role::CheckBox, "Expert mode")),
            at(1, el(702, Role::PushButton, "Reset")),
        ],
    };
    let diff = Diff {
        changes: vec![Change::Added(page)],
        ..Diff::default()
    };
    assert_eq!(
        diff_text(&diff, &DiffOptions::default()),
        "# diff: +1 added\n+ [e700] panel \"Advanced\" (hidden)\n  ... 2 more nodes under [e700] (all hidden)\n"
    );
}

/// A window whose stack shows one page of controls, and a list with a
/// selected row of three cells.
fn stacked(page: &str, controls: &[(Role, &str)], selected_row: usize) -> Snapshot {
    let mut frame = node(Role::Frame, "Widgets", None);
    frame.identity = Some("frame".into());
    let mut b = TreeBuilder::new(frame);
    let mut stack = node(Role::Panel, "", None);
    stack.identity = Some(format!("page {page}"));
    b.open(stack);
    for (i, (role, name)) in controls.iter().enumerate() {
        let mut control = node(*role, name, None);
        control.identity = Some(format!("{page} control {i}"));
        if i == 0 {
            b.open(control);
            let mut label = node(Role::Label, &format!("{name} label"), None);
            label.identity = Some(format!("{page} label"));
            b.leaf(label);
            b.close();
        } else {
            b.leaf(control);
        }
    }
    b.close();
    let mut list = node(Role::Table, "Files", None);
    list.identity = Some("list".into());
    b.open(list);
    for row in 0..3 {
        for col in 0..3 {
            let mut cell = node(Role::TableCell, if col == 1 { "name" } else { "" }, None);
            if row == selected_row {
                cell.states.insert(State::Selected);
            }
            cell.identity = Some(format!("cell {row} {col}"));
            b.leaf(cell);
        }
    }
    b.close();
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn diff_text_groups_a_page_shown_in_place_of_another() {
    let first: Vec<(Role, &str)> = (0..14)
        .map(|i| match i % 3 {
            0 => (Role::CheckBox, "check"),
            1 => (Role::Entry, ""),
            _ => (Role::PushButton, "button"),
        })
        .collect();
    let second: Vec<(Role, &str)> = [
        (Role::SpinButton, "Count"),
        (Role::Slider, "Volume"),
        (Role::PushButton, "Apply"),
    ]
    .into_iter()
    .cycle()
    .take(12)
    .collect();
    let before = stacked("one", &first, 0);
    let after = stacked("two", &second, 1);
    // Three of them, in another page, are listed as any added subtree.
    let few = stacked("three", &second[..3], 0);
    let listed = uidelta_diff::compare(&before, &few, Filters::all());
    let out = diff_text(&listed.diff, &DiffOptions::default());
    assert!(
        out.contains("\n+ [e27] spin button \"Count\"\n    [e28] label \"Count label\"\n"),
        "{out}"
    );
    assert!(
        out.contains("\n- 14 elements with 1 descendant went away together"),
        "{out}"
    );
    let compared = uidelta_diff::compare(&before, &after, Filters::all());
    let groups: Vec<Option<usize>> = compared
        .diff
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::Added(a) => Some(a.group),
            Change::Removed(r) => Some(r.group),
            Change::Modified(_) => None,
        })
        .collect();
    assert_eq!(groups.len(), 26);
    assert!(groups[..12].iter().all(|g| *g == Some(1)), "{groups:?}");
    assert!(groups[12..].iter().all(|g| *g == Some(2)), "{groups:?}");
    assert_snapshot!(diff_text(&compared.diff, &DiffOptions::default()));
}

#[test]
fn diff_text_does_not_group_a_container_that_stays() {
    let before = stacked("one", &[(Role::CheckBox, "a")], 0);
    let mut after_controls = vec![(Role::CheckBox, "a")];
    after_controls.extend([(Role::PushButton, "b"), (Role::PushButton, "c")]);
    let after = stacked("one", &after_controls, 0);
    let compared = uidelta_diff::compare(&before, &after, Filters::all());
    let out = diff_text(&compared.diff, &DiffOptions::default());
    assert_eq!(
        out,
        "# diff: +2 added\n\
         + [e14] push button \"b\"\n\
         + [e15] push button \"c\"\n"
    );
}

/// Diffs `snapshots` in turn with one ref table, as a session does; the
/// text of the last diff.
fn last_diff_text(snapshots: &[Snapshot]) -> String {
    let views: Vec<View> = snapshots
        .iter()
        .map(|s| View::new(s, Filters::all()))
        .collect();
    let mut table = RefTable::new();
    let mut refs = table.label(views[0].len());
    let mut out = String::new();
    for pair in views.windows(2) {
        let (d, next) = uidelta_diff::diff(&pair[0], &refs, &pair[1], &mut table);
        out = diff_text(&d, &DiffOptions::default());
        refs = next;
    }
    out
}

#[test]
fn diff_text_says_a_page_shown_again_came_back_as_it_was() {
    let first: Vec<(Role, &str)> = (0..12)
        .map(|i| match i % 3 {
            0 => (Role::CheckBox, "check"),
            1 => (Role::Entry, ""),
            _ => (Role::PushButton, "button"),
        })
        .collect();
    let second: Vec<(Role, &str)> = (0..12).map(|_| (Role::Slider, "level")).collect();
    let one = stacked("one", &first, 0);
    let two = stacked("two", &second, 0);
    assert_eq!(
        last_diff_text(&[one.clone(), two.clone(), one.clone()]),
        "# diff: +12 added, -12 removed\n\
         + 12 elements with 1 descendant came back together as they were when they left \
         (a page or pane shown again): [e2] check box \"check\", [e4] entry, [e5] push button \"button\", ...\n\
         - 12 elements with 1 descendant went away together (a page or pane hidden as a whole): \
         [e25] slider \"level\", [e27] slider \"level\", [e28] slider \"level\", ...\n"
    );
    // One of them changed while it was away: it is listed, the rest are one line.
    let mut changed = first.clone();
    changed[4] = (Role::Entry, "now named");
    assert_eq!(
        last_diff_text(&[one, two, stacked("one", &changed, 0)]),
        "# diff: +12 added, -12 removed\n\
         + 12 elements with 1 descendant appeared together (a page or pane shown as a whole):\n\
         + 11 of them came back as they were when they left: [e2] check box \"check\", [e4] entry, [e5] push button \"button\", ...\n\
         + [e7] entry \"now named\"\n\
         - 12 elements with 1 descendant went away together (a page or pane hidden as a whole): \
         [e25] slider \"level\", [e27] slider \"level\", [e28] slider \"level\", ...\n"
    );
}

/// A window with one panel that goes and comes back, and an expander.
fn panel_and_expander(panel: bool, expanded: bool) -> Snapshot {
    let mut frame = node(Role::Frame, "Prefs", None);
    frame.identity = Some("frame".into());
    let mut b = TreeBuilder::new(frame);
    if panel {
        let mut p = node(Role::Panel, "Advanced", None);
        p.identity = Some("advanced".into());
        b.open(p);
        for i in 0..2 {
            let mut c = node(Role::CheckBox, &format!("option {i}"), None);
            c.identity = Some(format!("option {i}"));
            b.leaf(c);
        }
        b.close();
    }
    let mut toggle = node(Role::ToggleButton, "More", None);
    toggle.identity = Some("more".into());
    // GTK's expander toggles `checked` with `expanded`.
    toggle.states.set(State::Expanded, expanded);
    toggle.states.set(State::Checked, expanded);
    toggle.states.insert(State::Expandable);
    b.open(toggle);
    for i in 0..3 {
        let mut c = node(Role::Label, &format!("detail {i}"), None);
        c.identity = Some(format!("detail {i}"));
        c.states.set(State::Showing, expanded);
        b.leaf(c);
    }
    b.close();
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn diff_text_says_a_subtree_came_back_and_what_an_expander_hid_once() {
    assert_eq!(
        last_diff_text(&[
            panel_and_expander(true, true),
            panel_and_expander(false, true),
            panel_and_expander(true, false),
        ]),
        "# diff: +1 added, ~1 modified\n\
         + [e2] panel \"Advanced\" (came back as it was when it left, with 2 descendants)\n\
         ~ [e5] toggle button \"More\" | checked, expanded: true -> false (hides 3 descendants)\n"
    );
}

/// A GTK 3 scale, as zenity's `--scale` shows it: its description is its
/// value.
fn scale(level: &str) -> Snapshot {
    let mut b = TreeBuilder::new(node(Role::Dialog, "Adjust", None));
    let mut slider = node(Role::Slider, "", None);
    slider.identity = Some("slider".into());
    slider.value = Some(level.into());
    slider.description = level.into();
    b.leaf(slider);
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn diff_text_says_texts_that_changed_alike_once() {
    assert_eq!(
        last_diff_text(&[scale("30"), scale("55")]),
        "# diff: ~1 modified\n\
         ~ [e2] slider | value, description: \"30\" -> \"55\"\n"
    );
}

#[test]
fn diff_text_puts_elements_that_changed_alike_on_one_line_wherever_they_are() {
    let row = |selected: bool| {
        let mut list = node(Role::List, "Rows", None);
        list.identity = Some("rows".into());
        let mut b = TreeBuilder::new(list);
        for i in 0..3 {
            let mut item = node(Role::ListItem, "", None);
            item.identity = Some(format!("item {i}"));
            item.states.set(State::Selectable, selected);
            b.leaf(item);
            let mut switch = node(Role::ToggleButton, "", None);
            switch.identity = Some(format!("switch {i}"));
            switch.states.set(State::Checked, selected && i == 0);
            b.leaf(switch);
        }
        Snapshot::new(Meta::default(), b.finish())
    };
    assert_eq!(
        last_diff_text(&[row(false), row(true)]),
        "# diff: ~4 modified\n\
         ~ [e2] list item | selectable: false -> true (same on [e4], [e6])\n\
         ~ [e3] toggle button | checked: false -> true\n"
    );
}

#[test]
fn diff_text_names_ten_elements_that_changed_alike_and_counts_the_rest() {
    let items = |size: &str| {
        let mut list = node(Role::List, "Results", None);
        list.identity = Some("results".into());
        let mut b = TreeBuilder::new(list);
        for i in 0..40 {
            let mut item = node(Role::ListItem, "", None);
            item.identity = Some(format!("item {i}"));
            item.set_attribute("setsize", size);
            b.leaf(item);
        }
        Snapshot::new(Meta::default(), b.finish())
    };
    assert_eq!(
        last_diff_text(&[items("40"), items("240")]),
        "# diff: ~40 modified\n\
         ~ [e2] list item | attr:setsize: \"40\" -> \"240\" (same on [e3], [e4], [e5], [e6], \
         [e7], [e8], [e9], [e10], [e11], [e12], and 29 more)\n"
    );
}

/// A browser tab's document: a root with an identity per load.
fn document(load: u32, title: &str, links: usize) -> Snapshot {
    let mut root = node(Role::DocumentWeb, title, None);
    root.identity = Some(format!("doc:{load}"));
    root.set_attribute("url", format!("http://localhost/{load}.html"));
    let mut b = TreeBuilder::new(root);
    let mut heading = node(Role::Heading, title, None);
    heading.identity = Some(format!("{load}-h"));
    b.leaf(heading);
    for i in 0..links {
        let mut link = node(Role::Link, &format!("Link {i}"), None);
        link.identity = Some(format!("{load}-{i}"));
        b.leaf(link);
    }
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn diff_text_reports_a_new_document_not_its_elements() {
    let compared = uidelta_diff::compare(
        &document(1, "Page A", 30),
        &document(2, "Page B", 30),
        Filters::all(),
    );
    assert!(compared.diff.new_document);
    let out = diff_text(
        &compared.diff,
        &DiffOptions {
            roots: 4,
            ..DiffOptions::default()
        },
    );
    assert_snapshot!(out);
    let same = uidelta_diff::compare(
        &document(1, "Page A", 30),
        &document(1, "Page A", 31),
        Filters::all(),
    );
    assert!(!same.diff.new_document);
    assert_eq!(
        diff_text(&same.diff, &DiffOptions::default()),
        "# diff: +1 added\n+ [e33] link \"Link 30\"\n"
    );
}

/// A page of one document (no new load) showing `paragraphs` under its
/// heading.
fn page(title: &str, paragraphs: &[&str]) -> Snapshot {
    let mut root = node(Role::DocumentWeb, "Shop", None);
    root.identity = Some("doc:1".into());
    let mut b = TreeBuilder::new(root);
    let mut heading = node(Role::Heading, title, None);
    heading.identity = Some(format!("h-{title}"));
    b.leaf(heading);
    for p in paragraphs {
        let mut n = node(Role::Paragraph, p, None);
        n.identity = Some(format!("p-{p}"));
        b.leaf(n);
    }
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn an_answer_is_the_tree_after_when_that_is_smaller_than_the_diff() {
    // The whole content replaced: every old element is listed as gone and
    // every new one as added; the tree after says the same in less.
    let compared = uidelta_diff::compare(
        &page(
            "Your cart",
            &[
                "Walking boots, size 42",
                "Rain jacket, blue",
                "Total: 214 EUR",
            ],
        ),
        &page("Order placed", &["Thank you", "Order 1042"]),
        Filters::all(),
    );
    let tree = tree_text(
        &compared.after,
        &compared.after_refs,
        &TreeOptions::default(),
    );
    let answered = answer(&compared.diff, &tree, &DiffOptions::default());
    assert!(answered.tree_instead, "{}", answered.diff);
    assert_eq!(
        answered.text,
        "# tree after the action (smaller than its diff): +3 added, -4 removed\n\
         [e1] document web \"Shop\"\n\
         \x20 [e6] heading \"Order placed\"\n\
         \x20 [e7] paragraph \"Thank you\"\n\
         \x20 [e8] paragraph \"Order 1042\"\n"
    );
    assert_eq!(
        answered.diff,
        diff_text(&compared.diff, &DiffOptions::default())
    );
    // One line changed in a page: the diff, as ever.
    let compared = uidelta_diff::compare(
        &page("Your cart", &["Walking boots, size 42", "Total: 107 EUR"]),
        &page(
            "Your cart",
            &["Walking boots, size 42", "Total: 107 EUR", "Saved"],
        ),
        Filters::all(),
    );
    let tree = tree_text(
        &compared.after,
        &compared.after_refs,
        &TreeOptions::default(),
    );
    let answered = answer(&compared.diff, &tree, &DiffOptions::default());
    assert!(!answered.tree_instead);
    assert_eq!(
        answered.text,
        "# diff: +1 added\n+ [e5] paragraph \"Saved\"\n"
    );
    // Nothing known of the tree: the diff.
    assert!(!answer(&compared.diff, "", &DiffOptions::default()).tree_instead);
    // A small new document: said to be one.
    let compared = uidelta_diff::compare(
        &document(1, "Page A", 30),
        &document(2, "Page B", 1),
        Filters::all(),
    );
    let tree = tree_text(
        &compared.after,
        &compared.after_refs,
        &TreeOptions::default(),
    );
    let answered = answer(&compared.diff, &tree, &DiffOptions::default());
    assert_eq!(
        answered.text,
        "# tree after the action (smaller than its diff): new document, was \"Page A\"\n\
         [e1] document web \"Page B\"\n\
         \x20 [e33] heading \"Page B\"\n\
         \x20 [e34] link \"Link 0\"\n",
        "{}",
        answered.diff
    );
}

// ---------------------------------------------------------------- JSON

#[test]
fn tree_json_golden() {
    let (view, refs) = editor(false);
    let json = tree_json(&view, &refs);
    assert!(
        serde_json::from_str::<serde_json::Value>(&json).is_ok(),
        "{json}"
    );
    assert_snapshot!(json);
}

#[test]
fn diff_json_golden() {
    let json = diff_json(&full_diff());
    let parsed: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
    assert_eq!(parsed["schema"], 1);
    assert_eq!(parsed["changes"][0]["subtree"][2]["value"], "untitled.txt");
    assert_snapshot!(json);
}

#[test]
fn diff_json_without_changes() {
    assert_snapshot!(diff_json(&Diff::default()));
}

#[test]
fn deep_trees_render_without_recursion() {
    const DEPTH: usize = 400;
    let mut b = TreeBuilder::new(node(Role::Frame, "Deep", None));
    for i in 0..DEPTH {
        b.open(node(Role::Panel, &format!("level {i}"), None));
    }
    let view = View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none());
    let refs = RefTable::new().label(view.len());
    // A stack this small would overflow on recursion of one frame per level.
    let rendered = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || {
            (
                tree_json(&view, &refs).len(),
                tree_text(&view, &refs, &TreeOptions::default())
                    .lines()
                    .count(),
                tree_terminator(&view).lines().count(),
                tree_flat(&view).lines().count(),
            )
        })
        .map(|handle| handle.join());
    let Ok(Ok((json_len, text_lines, yaml_lines, flat_lines))) = rendered else {
        panic!("rendering a deep tree failed");
    };
    assert!(json_len > DEPTH * 100);
    assert_eq!(
        (text_lines, yaml_lines, flat_lines),
        (DEPTH + 1, DEPTH + 1, DEPTH + 1)
    );
}

// ---------------------------------------------------------------- terminator

#[test]
fn tree_terminator_golden() {
    let (view, _) = editor(false);
    assert_snapshot!(tree_terminator(&view));
}

#[test]
fn diff_terminator_golden() {
    assert_snapshot!(diff_terminator(&full_diff()));
}

#[test]
fn diff_terminator_without_changes() {
    assert_eq!(
        diff_terminator(&Diff::default()),
        "No UI changes detected\n"
    );
}

// ---------------------------------------------------------------- flat

#[test]
fn tree_flat_golden() {
    let (view, _) = editor(false);
    assert_snapshot!(tree_flat(&view));
}

#[test]
fn diff_flat_golden() {
    assert_snapshot!(diff_flat(&full_diff()));
}

#[test]
fn diff_flat_without_changes() {
    assert_eq!(diff_flat(&Diff::default()), "No UI changes detected\n");
}

/// A window with two pages in unnamed boxes (transparent), kept in the tree
/// with what is in them shown or hidden, as GTK 4 keeps a stack's pages;
/// `current` is the page that shows.
fn kept_pages(current: usize, count: i32) -> Snapshot {
    let mut b = TreeBuilder::new(node(Role::Frame, "Window", None));
    for page in 0..2 {
        let shows = page == current;
        let hide = |n: NodeData| {
            if shows {
                n
            } else {
                with_states(n, &[], &[State::Showing])
            }
        };
        let mut container = hide(node(Role::Panel, "", None));
        container.identity = Some(format!("page {page}"));
        b.open(container);
        for i in 0..8 {
            let (role, name) = match (page, i % 3) {
                (0, 0) => (Role::CheckBox, "check"),
                (0, 1) => (Role::Entry, ""),
                (0, _) => (Role::PushButton, "button"),
                (_, 0) => (Role::SpinButton, "Count"),
                (_, 1) => (Role::Slider, "Volume"),
                _ => (Role::Label, "Note"),
            };
            let mut control = hide(node(role, name, None));
            control.identity = Some(format!("page {page} control {i}"));
            if page == 1 && i == 0 {
                control.value = Some(count.to_string());
            }
            b.leaf(control);
        }
        b.close();
    }
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn diff_text_says_a_kept_page_shown_or_hidden_in_one_line() {
    let before = kept_pages(0, 1);
    let after = kept_pages(1, 2);
    let compared = uidelta_diff::compare(&before, &after, Filters::all());
    let out = diff_text(&compared.diff, &DiffOptions::default());
    // Each page is one line; the spin button whose value changed as it
    // showed has its own.
    assert_snapshot!(out);
    // Five are not a group: each change is listed as it is.
    let few = DiffOptions {
        churn: 8,
        ..DiffOptions::default()
    };
    let out = diff_text(&compared.diff, &few);
    assert!(!out.contains(" together "), "{out}");
    assert!(
        out.contains("~ [e2] check box \"check\" | showing: true -> false (same on [e5] \"check\", [e8] \"check\")\n"),
        "{out}"
    );
}

/// A window with a menu bar of `menus` closed menus of six items each
/// (enabled or not, the first checked or not) and a title.
fn closed_menus(title: &str, enabled: bool, checked: bool, open: Option<usize>) -> Snapshot {
    let mut b = TreeBuilder::new(node(Role::Frame, title, None));
    b.open(node(Role::MenuBar, "", None));
    for m in 0..8 {
        let name = format!("Menu {m}");
        let mut menu = node(Role::Menu, &name, None);
        menu.identity = Some(name.clone());
        if open == Some(m) {
            menu.states.insert(State::Selected);
        }
        b.open(menu);
        for i in 0..6 {
            let role = if i == 0 {
                Role::CheckMenuItem
            } else {
                Role::MenuItem
            };
            let mut item = node(role, &format!("Item {m}.{i}"), None);
            item.identity = Some(format!("{name} item {i}"));
            if open != Some(m) {
                item.states.remove(State::Showing);
            }
            if !enabled && i > 1 {
                item.states.remove(State::Enabled);
            }
            if checked && i == 0 {
                item.states.insert(State::Checked);
            }
            b.leaf(item);
        }
        b.close();
    }
    b.close();
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn diff_text_counts_many_changes_out_of_sight_in_one_line() {
    // An image opened: the window's title changes, and the items of every
    // closed menu are enabled, their first checked.
    let before = closed_menus("Editor", false, false, None);
    let after = closed_menus("photo.png - Editor", true, true, None);
    let compared = uidelta_diff::compare(&before, &after, Filters::all());
    let out = diff_text(&compared.diff, &DiffOptions::default());
    assert_snapshot!(out);
    // A few are listed as they are, saying they do not show.
    let mut few = closed_menus("Editor", false, false, None);
    let (meta, mut tree) = few.into_parts();
    let item = tree
        .ids()
        .find(|&id| tree.node(id).name == "Item 0.2")
        .expect("an item");
    tree.node_mut(item).states.insert(State::Enabled);
    few = Snapshot::new(meta, tree);
    let compared = uidelta_diff::compare(&before, &few, Filters::all());
    let out = diff_text(&compared.diff, &DiffOptions::default());
    assert_eq!(
        out,
        "# diff: ~1 modified\n~ [e6] menu item \"Item 0.2\" (hidden) in [e3] menu \"Menu 0\" | enabled: false -> true\n"
    );
}

/// A terminal with `tabs` tabs: its closed `Tabs` menu holds an item per
/// tab and five more, objects made anew whenever tabs come or go (their
/// identities say `made`).
fn terminal_tabs(tabs: usize, made: &str) -> Snapshot {
    let mut b = TreeBuilder::new(node(Role::Frame, "Terminal", None));
    b.open(node(Role::MenuBar, "", None));
    let mut menu = node(Role::Menu, "Tabs", None);
    menu.identity = Some("tabs menu".into());
    b.open(menu);
    let names = [
        "Previous Tab",
        "Next Tab",
        "Last Active Tab",
        "Move Tab Left",
        "Move Tab Right",
    ];
    let items = names
        .iter()
        .map(|n| (Role::MenuItem, n.to_string()))
        .chain((0..tabs).map(|t| (Role::CheckMenuItem, format!("Tab {t}"))));
    for (i, (role, name)) in items.enumerate() {
        let mut item = node(role, &name, None);
        item.states.remove(State::Showing);
        item.identity = Some(format!("item {i} {made}"));
        b.leaf(item);
    }
    b.close();
    b.close();
    b.open(node(Role::PageTabList, "", None));
    for t in 0..tabs {
        let mut tab = node(Role::PageTab, &format!("Tab {t}"), None);
        tab.identity = Some(format!("tab {t}"));
        b.leaf(tab);
    }
    b.close();
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn diff_text_reads_a_closed_menu_made_anew_as_its_one_new_item() {
    // A tab opened: the closed menu's items are made anew, one more; the
    // others are the items it had.
    let before = terminal_tabs(1, "before");
    let after = terminal_tabs(2, "after");
    let compared = uidelta_diff::compare(&before, &after, Filters::all());
    let out = diff_text(&compared.diff, &DiffOptions::default());
    assert_snapshot!(out);
    assert_eq!(out.lines().count(), 3, "{out}");
}

/// A closed `Recent` menu holding an item per file of `files`, objects
/// whose identities say `made`.
fn recent_files(files: &[&str], made: &str) -> Snapshot {
    let mut b = TreeBuilder::new(node(Role::Frame, "Editor", None));
    b.open(node(Role::MenuBar, "", None));
    let mut menu = node(Role::Menu, "Recent", None);
    menu.identity = Some("recent menu".into());
    b.open(menu);
    for (i, file) in files.iter().enumerate() {
        let mut item = node(Role::MenuItem, file, None);
        item.states.remove(State::Showing);
        item.identity = Some(format!("item {i} {made}"));
        b.leaf(item);
    }
    b.close();
    b.close();
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn diff_text_counts_a_closed_menu_filled_with_other_items_in_one_line() {
    // Another file opened: the closed menu lists other files, all items
    // new, past the lines listed out of sight.
    let before = recent_files(&["a.txt", "b.txt", "c.txt", "d.txt"], "before");
    let after = recent_files(&["e.txt", "f.txt", "g.txt", "h.txt"], "after");
    let compared = uidelta_diff::compare(&before, &after, Filters::all());
    let out = diff_text(&compared.diff, &DiffOptions::default());
    assert_snapshot!(out);
    assert_eq!(out.lines().count(), 2, "{out}");
}

#[test]
fn diff_text_lists_the_entries_of_a_menu_that_opened_under_it() {
    let before = closed_menus("Editor", true, false, None);
    let after = closed_menus("Editor", true, false, Some(1));
    let compared = uidelta_diff::compare(&before, &after, Filters::all());
    let out = diff_text(&compared.diff, &DiffOptions::default());
    assert_snapshot!(out);
}

#[test]
fn diff_text_says_what_typing_would_replace_in_a_field() {
    let field = |r: u32, name: &str, value: &str, selected: Option<&str>| {
        let mut e = el(r, Role::Text, name);
        e.value = Some(value.into());
        e.states.insert(State::Focused);
        if let Some(s) = selected {
            e.attributes = vec![(uidelta_model::SELECTION.into(), s.into())];
        }
        e
    };
    let diff = Diff {
        changes: vec![
            Change::Added(Added {
                parent: Ref(1),
                index: 0,
                opened: Some(Role::Dialog),
                group: None,
                came_back: false,
                context: None,
                subtree: vec![
                    at(0, el(70, Role::Dialog, "Save As")),
                    at(
                        1,
                        field(
                            71,
                            "Name:",
                            "Untitled Document 1",
                            Some("Untitled Document"),
                        ),
                    ),
                    at(1, field(72, "Folder", "invoices", Some("invoices"))),
                ],
            }),
            Change::Modified(Modified {
                element: field(73, "Search", "invoices 2024", Some("invoices 2024")),
                context: None,
                changes: vec![change(
                    Attr::Attribute(uidelta_model::SELECTION.into()),
                    AttrValue::Absent,
                    text("invoices 2024"),
                )],
                descendants: vec![],
            }),
            // Typed over: the new value says what replaced it.
            Change::Modified(Modified {
                element: field(74, "Tag", "q", None),
                context: None,
                changes: vec![
                    change(Attr::Value, text("invoices 2024"), text("q")),
                    change(
                        Attr::Attribute(uidelta_model::SELECTION.into()),
                        text("invoices 2024"),
                        AttrValue::Absent,
                    ),
                ],
                descendants: vec![],
            }),
        ],
        ..Diff::default()
    };
    assert_eq!(
        diff_text(&diff, &DiffOptions::default()),
        "# diff: +1 added, ~2 modified\n\
         + [e70] dialog \"Save As\" (opened)\n\
         \x20   [e71] text \"Name:\" = \"Untitled Document 1\" (focused, selected \"Untitled Document\")\n\
         \x20   [e72] text \"Folder\" = \"invoices\" (focused, all selected)\n\
         ~ [e73] text \"Search\" | selected text: none -> \"invoices 2024\"\n\
         ~ [e74] text \"Tag\" | value: \"invoices 2024\" -> \"q\"\n"
    );
}
