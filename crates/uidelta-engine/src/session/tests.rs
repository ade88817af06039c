use super::act::{ignored_because, other_actions, typed_chars};
use super::focus::lost_focus;
use super::keyboard_window;
use super::refs::{describe, successor};
use super::transients::{brings_ephemeral, transients};
use uidelta_diff::{diff, Change, Filters, RefTable, View};
use uidelta_model::{Meta, NodeData, Role, Snapshot, State, TreeBuilder};

/// A calculator's window: a keypad per `(id, keys)` (each key `(id,
/// name)`), every element with a platform identity so that a key
/// replaced by another is removed and added, not renamed.
fn calculator(keypads: &[(&str, &[(&str, &str)])]) -> View {
    let with_id = |role: Role, name: &str, id: &str| {
        let mut n = NodeData::named(role, name);
        n.identity = Some(format!(":1.1/{id}"));
        n
    };
    let mut b = TreeBuilder::new(with_id(Role::Application, "calculator", "app"));
    b.open(with_id(Role::Frame, "Calculator", "frame"));
    b.leaf(with_id(Role::Label, "12", "display"));
    for (pad, keys) in keypads {
        b.open(with_id(Role::Panel, "", pad));
        for (id, name) in *keys {
            b.leaf(with_id(Role::ToggleButton, name, id));
        }
        b.close();
    }
    b.close();
    View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none())
}

/// For each element that went away from `before` to `after`, by name:
/// the element offered in its place, if any.
fn successors(before: &View, after: &View) -> Vec<(String, Option<String>)> {
    let mut table = RefTable::new();
    let refs = table.label(before.len());
    let (d, _) = diff(before, &refs, after, &mut table);
    let added: Vec<&uidelta_diff::Added> = d
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::Added(a) => Some(a),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for c in &d.changes {
        if let Change::Removed(r) = c {
            for n in &r.subtree {
                let next = successor(&n.element, r.parent, &added).map(describe);
                out.push((n.element.name.clone(), next));
            }
        }
    }
    out
}

#[test]
fn a_gone_element_is_succeeded_only_by_one_of_its_role_and_name() {
    let before = calculator(&[("basic", &[("seven", "7"), ("equals", "=")])]);
    // `C` where `=` was: another key, not offered.
    let other = calculator(&[("basic", &[("seven", "7"), ("clear", "C")])]);
    assert_eq!(successors(&before, &other), [("=".to_owned(), None)]);
    // A new `=` (padded, as some toolkits name it) in its place.
    let again = calculator(&[("basic", &[("seven", "7"), ("equals2", " =  ")])]);
    assert_eq!(
        successors(&before, &again),
        [(
            "=".to_owned(),
            Some(r#"[e7] toggle button " =  ""#.to_owned())
        )]
    );
    // The keypad switched: its `=` is in the new one, `7` is nowhere.
    let switched = calculator(&[(
        "advanced",
        &[("clear2", "C"), ("sin", "sin"), ("equals3", "=")],
    )]);
    assert_eq!(
        successors(&before, &switched),
        [
            (String::new(), Some("[e7] panel".to_owned())),
            ("7".to_owned(), None),
            (
                "=".to_owned(),
                Some(r#"[e10] toggle button "=""#.to_owned())
            ),
        ]
    );
    // Two `=` in its place: which one is meant is not known.
    let two = calculator(&[
        ("basic", &[("seven", "7")]),
        ("more", &[("eq-a", "="), ("eq-b", "=")]),
    ]);
    assert_eq!(successors(&before, &two), [("=".to_owned(), None)]);
}

/// An application with a frame holding a button, plus `extra` (with
/// its identity) either as a window of its own or inside the frame.
fn app_with(extra: Option<(NodeData, bool)>) -> Snapshot {
    let mut b = TreeBuilder::new(NodeData::named(Role::Application, "app"));
    b.open(NodeData::named(Role::Frame, "main"));
    b.leaf(NodeData::named(Role::PushButton, "Save"));
    let window = match extra {
        Some((mut n, window)) => {
            n.identity = Some(format!(":1.1/{}", n.name));
            if !window {
                b.leaf(n);
                None
            } else {
                Some(n)
            }
        }
        None => None,
    };
    b.close();
    if let Some(n) = window {
        b.leaf(n);
    }
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn toasts_are_ephemeral_but_alerts_that_wait_for_an_answer_are_not() {
    let before = app_with(None);
    let toast = NodeData::named(Role::Notification, "SavedSession");
    assert!(brings_ephemeral(&before, &app_with(Some((toast, false)))));
    let alert = NodeData::named(Role::Alert, "Disk almost full");
    assert!(brings_ephemeral(
        &before,
        &app_with(Some((alert.clone(), false)))
    ));
    // A message dialog: a window of its own, or modal.
    assert!(!brings_ephemeral(
        &before,
        &app_with(Some((alert.clone(), true)))
    ));
    let mut modal = alert;
    modal.states.insert(State::Modal);
    assert!(!brings_ephemeral(&before, &app_with(Some((modal, false)))));
    // One already there before is no news.
    let toast = NodeData::named(Role::Notification, "SavedSession");
    let shown = app_with(Some((toast, false)));
    assert!(!brings_ephemeral(&shown, &shown));
}

#[test]
fn empty_announcement_regions_bring_nothing_ephemeral() {
    // Chromium's empty live regions: in both captures, left out of both
    // views by the whitespace rule; the after capture is compared with
    // the before capture, not with its view.
    let empty = NodeData::new(Role::Notification);
    let with_empty = app_with(Some((empty.clone(), false)));
    assert_eq!(
        View::new(&with_empty, Filters::all()).tree().len(),
        View::new(&app_with(None), Filters::all()).tree().len(),
        "the view leaves the empty region out"
    );
    assert!(!brings_ephemeral(&with_empty, &with_empty));
    // A new one that says nothing is no toast to wait for either.
    assert!(!brings_ephemeral(&app_with(None), &with_empty));
    let mut blank = NodeData::named(Role::Alert, " ");
    blank.value = Some(String::new());
    assert!(!brings_ephemeral(
        &app_with(None),
        &app_with(Some((blank, false)))
    ));
}

/// A frame with a list of cells made in `generation` (their identities
/// say which), plus a toast when `toast`.
fn cells(generation: u32, toast: bool) -> Snapshot {
    let mut b = TreeBuilder::new(NodeData::named(Role::Frame, "main"));
    b.open(NodeData::named(Role::List, "files"));
    for name in ["Drive", "Home"] {
        let mut cell = NodeData::named(Role::ListItem, name);
        cell.identity = Some(format!(":1.1/{generation}/{name}"));
        b.leaf(cell);
    }
    b.close();
    if toast {
        let mut n = NodeData::named(Role::Notification, "SavedSession");
        n.identity = Some(":1.1/toast".into());
        b.leaf(n);
    }
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn elements_made_anew_while_settling_are_not_transient_but_a_toast_is() {
    let before = View::new(&cells(1, false), Filters::all());
    let after = View::new(&cells(3, false), Filters::all());
    let mut table = RefTable::new();
    let mids = [cells(2, false), cells(2, true)];
    let found = transients(&before, &after, &mids, Filters::all(), &mut table);
    let names: Vec<&str> = found.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["SavedSession"]);
}

/// An application with its main window, and a second window (`opened`)
/// holding `inside` when given.
fn windows(opened: Option<&[(Role, &str)]>) -> Snapshot {
    let with_id = |role: Role, name: &str| {
        let mut n = NodeData::named(role, name);
        n.identity = Some(format!(":1.1/{name}"));
        n
    };
    let mut b = TreeBuilder::new(with_id(Role::Application, "mail"));
    b.open(with_id(Role::Frame, "Inbox"));
    b.leaf(with_id(Role::PushButton, "New Message"));
    b.close();
    if let Some(inside) = opened {
        b.open(with_id(Role::Frame, "Write"));
        for (role, name) in inside {
            b.leaf(with_id(*role, name));
        }
        b.close();
    }
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn what_a_window_opened_by_the_action_made_and_replaced_is_not_transient() {
    let before = View::new(&windows(None), Filters::all());
    let after = View::new(&windows(Some(&[(Role::Entry, "To")])), Filters::all());
    let mids = [
        windows(Some(&[(Role::DocumentWeb, "blank"), (Role::Entry, "To")])),
        windows(Some(&[(Role::Entry, "To"), (Role::Notification, "Saving")])),
    ];
    let mut table = RefTable::new();
    let found = transients(&before, &after, &mids, Filters::all(), &mut table);
    let names: Vec<&str> = found.iter().map(|e| e.name.as_str()).collect();
    // The document made and replaced while the window was built is not a
    // change; the toast in it is.
    assert_eq!(names, ["Saving"]);
    // A window that opened and closed again while settling is, whatever
    // it holds; and in a window that was there before, a label that came
    // and went is too.
    let mids = [windows(Some(&[(Role::DocumentWeb, "blank")]))];
    let found = transients(&before, &before, &mids, Filters::all(), &mut table);
    let names: Vec<&str> = found.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["Write"]);
    let mids = [windows(Some(&[
        (Role::Entry, "To"),
        (Role::Label, "Sending"),
    ]))];
    let found = transients(&after, &after, &mids, Filters::all(), &mut table);
    let names: Vec<&str> = found.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["Sending"]);
}

#[test]
fn an_element_that_came_and_went_saying_nothing_is_not_transient_but_a_spinner_is() {
    let before = View::new(&windows(None), Filters::all());
    // The main window with one more element, for a moment.
    let with = |role: Role, name: &str| {
        let mut b = TreeBuilder::new(NodeData::named(Role::Application, "mail"));
        b.open(NodeData::named(Role::Frame, "Inbox"));
        b.leaf(NodeData::named(Role::PushButton, "New Message"));
        b.leaf(NodeData::named(role, name));
        b.close();
        Snapshot::new(Meta::default(), b.finish())
    };
    let mut table = RefTable::new();
    let mut found = |mid: Snapshot| {
        transients(&before, &before, &[mid], Filters::all(), &mut table)
            .iter()
            .map(|e| format!("{} {:?}", e.role.as_str(), e.name))
            .collect::<Vec<_>>()
    };
    // A nameless button (Firefox's tool bar, as it goes back a page).
    assert_eq!(found(with(Role::PushButton, "")), Vec::<String>::new());
    // Named, it is news; a spinner is, named or not.
    assert_eq!(
        found(with(Role::PushButton, "Stop")),
        ["push button \"Stop\""]
    );
    assert_eq!(found(with(Role::Animation, "")), ["animation \"\""]);
    // A toast that says nothing says nothing either.
    assert_eq!(found(with(Role::Notification, "")), Vec::<String>::new());
}

#[test]
fn the_focus_left_when_the_element_or_the_active_window_went_without_a_successor() {
    // (focused element, active window) before and after.
    assert!(lost_focus((true, true), (false, false)));
    assert!(lost_focus((true, false), (false, false)));
    assert!(lost_focus((false, true), (false, false)));
    // Focus moved inside the application (its own dialog took it).
    assert!(!lost_focus((true, true), (true, true)));
    // Nothing to lose: no window manager ever activated it.
    assert!(!lost_focus((false, false), (false, false)));
    // It gained the focus.
    assert!(!lost_focus((false, false), (true, true)));
}

#[test]
fn an_ignored_action_says_why_when_the_states_tell() {
    let handle = uidelta_diff::Handle {
        r#ref: uidelta_diff::Ref(7),
        role: Role::PushButton,
        name: "Next".into(),
    };
    let mut data = NodeData::named(Role::PushButton, "Next");
    // No states at all: the source says nothing.
    assert_eq!(ignored_because(&handle, &data), None);
    data.states.insert(State::Showing);
    assert_eq!(
        ignored_because(&handle, &data).as_deref(),
        Some(
            "[e7] push button \"Next\" is disabled, and applications ignore actions on \
             disabled elements"
        )
    );
    data.states = uidelta_model::StateSet::of(&[State::Enabled]);
    assert_eq!(
        ignored_because(&handle, &data).as_deref(),
        Some(
            "[e7] push button \"Next\" is not showing (on a page, tab or menu that is not \
             open, or in a collapsed section), and applications may ignore actions on it"
        )
    );
    data.states.insert(State::Showing);
    assert_eq!(ignored_because(&handle, &data), None);
}

#[test]
fn a_click_that_changed_nothing_names_the_other_actions() {
    let row = uidelta_diff::Handle {
        r#ref: uidelta_diff::Ref(49),
        role: Role::TableCell,
        name: "Entry".into(),
    };
    let offered: Vec<String> = ["expand or contract", "edit", "activate"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        other_actions(&row, "Action.activate", &offered).as_deref(),
        Some(
            "the click changed nothing; [e49] table cell \"Entry\" also offers the actions \
             `expand or contract`, `edit` (invoke one by name)"
        )
    );
    // A button whose only action is the click: nothing to add.
    let button = uidelta_diff::Handle {
        r#ref: uidelta_diff::Ref(5),
        role: Role::PushButton,
        name: "Do nothing".into(),
    };
    let click = vec!["click".to_owned()];
    assert_eq!(other_actions(&button, "Action.click", &click), None);
    // A pointer click did what `click` and `press` do.
    let both = vec!["press".to_owned(), "click".to_owned()];
    assert_eq!(other_actions(&button, "XTest click at 10,20", &both), None);
    assert_eq!(other_actions(&button, "XTest click at 10,20", &[]), None);
}

#[test]
fn the_characters_an_action_types_are_counted_without_its_keys() {
    use uidelta_backend::Action;
    let entry = NodeData::named(Role::Entry, "Name");
    let mut combo = NodeData::named(Role::ComboBox, "Font");
    let spin = NodeData::named(Role::SpinButton, "Size");
    let slider = NodeData::named(Role::Slider, "Volume");
    let typed = |a: Action, n: &NodeData| typed_chars(&a, n);
    // Characters, not bytes; a line break and a tab are keys.
    assert_eq!(typed(Action::Type("héllo\n".into()), &entry), 5);
    assert_eq!(typed(Action::Type("a\tb".into()), &slider), 2);
    // A value given to a field is typed into it; an editable combo box's
    // too, not a fixed one's (an option picked), a spin button's number
    // (formatted by it) or a slider's.
    assert_eq!(typed(Action::SetValue("bob".into()), &entry), 3);
    assert_eq!(typed(Action::SetValue("Sans".into()), &combo), 0);
    combo.states.insert(State::Editable);
    assert_eq!(typed(Action::SetValue("Sans".into()), &combo), 4);
    assert_eq!(typed(Action::SetValue("12.50".into()), &spin), 0);
    assert_eq!(typed(Action::SetValue("50".into()), &slider), 0);
    assert_eq!(typed(Action::Click, &entry), 0);
    assert_eq!(typed(Action::Key("a".into()), &entry), 0);
}

#[test]
fn the_window_that_has_the_keyboard_is_a_shown_modal_one_first() {
    use uidelta_model::StateSet;
    // (role, name, states) of each top-level window.
    let app = |windows: &[(Role, &str, &[State])]| {
        let mut b = TreeBuilder::new(NodeData::new(Role::Application));
        for (role, name, states) in windows {
            let mut w = NodeData::named(*role, *name);
            w.states = StateSet::of(states);
            b.leaf(w);
        }
        b.finish()
    };
    let name = |t: &uidelta_model::Tree| keyboard_window(t).map(|w| t.node(w).name.clone());
    let (shows, active, modal) = (State::Showing, State::Active, State::Modal);
    // GTK without a window manager: the main window keeps `active` while
    // a modal dialog has the keyboard.
    let bare = app(&[
        (Role::Frame, "Editor", &[shows, active]),
        (Role::Dialog, "Save As", &[shows, modal]),
    ]);
    assert_eq!(name(&bare).as_deref(), Some("Save As"));
    // A modal dialog kept hidden (GTK hides one it closes) has it not.
    let hidden = app(&[
        (Role::Frame, "Editor", &[shows, active]),
        (Role::Dialog, "Save As", &[modal]),
    ]);
    assert_eq!(name(&hidden).as_deref(), Some("Editor"));
    // No modal window: the active one, else the first shown.
    let two = app(&[
        (Role::Frame, "Editor", &[shows]),
        (Role::Frame, "Preferences", &[shows, active]),
    ]);
    assert_eq!(name(&two).as_deref(), Some("Preferences"));
    let none_active = app(&[
        (Role::Frame, "Hidden", &[]),
        (Role::Frame, "Editor", &[shows]),
    ]);
    assert_eq!(name(&none_active).as_deref(), Some("Editor"));
}
