//! The diff semantics of SPEC.md, one scenario each, on hand-built trees.

use uidelta_diff::{compare, Attr, AttrValue, Change, Filters, Ref, Rule};
use uidelta_model::{Meta, NodeData, Rect, Role, Snapshot, State, StateSet, TreeBuilder, Unread};

/// A small preferences window, parameterised by what the scenarios change.
#[derive(Clone)]
struct Window {
    dx: i32,
    id_prefix: &'static str,
    bold: bool,
    entry: &'static str,
    save_enabled: bool,
    button: &'static str,
    dialog: bool,
    options_showing: bool,
    focus_entry: bool,
    rows: usize,
    swap_rows: bool,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            dx: 0,
            id_prefix: ":1.5",
            bold: false,
            entry: "",
            save_enabled: true,
            button: "Apply",
            dialog: false,
            options_showing: true,
            focus_entry: false,
            rows: 3,
            swap_rows: false,
        }
    }
}

fn base_states() -> StateSet {
    StateSet::of(&[
        State::Enabled,
        State::Sensitive,
        State::Visible,
        State::Showing,
    ])
}

impl Window {
    fn snapshot(&self) -> Snapshot {
        let mut counter = 0;
        let mut node = |role: Role, name: &str, x: i32, y: i32| {
            counter += 1;
            let mut n = NodeData::named(role, name);
            n.states = base_states();
            n.bounds = Some(Rect::new(x + self.dx, y, 80, 24));
            n.identity = Some(format!(
                "{}/org/a11y/atspi/accessible/{counter}",
                self.id_prefix
            ));
            n
        };
        let mut b = TreeBuilder::new(node(Role::Frame, "Preferences", 0, 0));
        b.open(node(Role::Filler, "", 0, 30));
        let mut bold = node(Role::CheckBox, "Bold", 10, 40);
        bold.states.insert(State::Focusable);
        bold.states.set(State::Checked, self.bold);
        b.leaf(bold);
        let mut entry = node(Role::Entry, "Title", 10, 70);
        entry.states.insert(State::Editable);
        entry.states.insert(State::Focusable);
        entry.states.set(State::Focused, self.focus_entry);
        entry.value = Some(self.entry.to_owned());
        b.leaf(entry);
        let mut save = node(Role::PushButton, "Save", 10, 100);
        if !self.save_enabled {
            save.states.remove(State::Enabled);
            save.states.remove(State::Sensitive);
        }
        b.leaf(save);
        b.leaf(node(Role::PushButton, self.button, 100, 100));
        b.close();
        let mut options = node(Role::Panel, "Options", 0, 140);
        options.states.set(State::Showing, self.options_showing);
        b.open(options);
        for (k, name) in ["Wrap", "Numbers", "Spaces"].iter().enumerate() {
            let mut c = node(Role::CheckBox, name, 10, 150 + 30 * k as i32);
            c.states.set(State::Showing, self.options_showing);
            b.leaf(c);
        }
        b.close();
        b.open(node(Role::List, "Files", 0, 300));
        let mut rows: Vec<String> = (0..self.rows).map(|i| format!("file{i}.txt")).collect();
        if self.swap_rows {
            rows.swap(0, 2);
        }
        for (k, name) in rows.iter().enumerate() {
            let mut row = node(Role::ListItem, name, 0, 310 + 20 * k as i32);
            // Platform identity follows the element, not its position.
            row.identity = Some(format!("{}/row/{name}", self.id_prefix));
            b.leaf(row);
        }
        b.close();
        if self.dialog {
            let mut d = node(Role::Dialog, "Save As", 300, 300);
            d.states.insert(State::Modal);
            b.open(d);
            b.leaf(node(Role::Label, "File name:", 310, 310));
            b.leaf(node(Role::Entry, "File name", 400, 310));
            b.leaf(node(Role::PushButton, "OK", 400, 350));
            b.close();
        }
        Snapshot::new(
            Meta {
                source: "test".into(),
                ..Meta::default()
            },
            b.finish(),
        )
    }
}

/// The names of a tree's elements, in preorder.
fn names_of(t: &uidelta_model::Tree) -> Vec<String> {
    t.nodes().iter().map(|n| n.name.clone()).collect()
}

/// The names of the before tree with the diff replayed on it, in preorder.
fn replayed_names(c: &uidelta_diff::Compared) -> Vec<String> {
    let replayed = uidelta_diff::apply(&c.before, &c.before_refs, &c.diff).expect("applies");
    names_of(&replayed.0)
}

fn only_modified(changes: &[Change]) -> &uidelta_diff::Modified {
    assert_eq!(
        changes.len(),
        1,
        "expected exactly one change, got {changes:#?}"
    );
    match &changes[0] {
        Change::Modified(m) => m,
        other => panic!("expected a modified element, got {other:#?}"),
    }
}

#[test]
fn bounds_and_ids_alone_are_no_change() {
    let before = Window::default().snapshot();
    let after = Window {
        dx: 118,
        id_prefix: ":1.77",
        ..Window::default()
    }
    .snapshot();
    let c = compare(&before, &after, Filters::all());
    assert!(!c.diff.has_changes(), "{:#?}", c.diff);
    assert_eq!(c.before_refs.as_slice(), c.after_refs.as_slice());
}

#[test]
fn bounds_are_reported_when_the_rule_is_off() {
    let before = Window::default().snapshot();
    let after = Window {
        dx: 118,
        ..Window::default()
    }
    .snapshot();
    let c = compare(&before, &after, Filters::all().keep(Rule::Bounds));
    let modified = c.diff.counts().modified;
    assert!(modified >= 10, "every element moved: {modified}");
    let first = c.diff.changes.iter().find_map(|ch| match ch {
        Change::Modified(m) => Some(m),
        _ => None,
    });
    let first = first.expect("a modified element");
    assert_eq!(first.changes[0].attr, Attr::Bounds);
    assert_eq!(
        first.changes[0].old,
        AttrValue::Rect(Rect::new(0, 0, 80, 24))
    );
    assert_eq!(
        first.changes[0].new,
        AttrValue::Rect(Rect::new(118, 0, 80, 24))
    );
}

#[test]
fn toggled_check_box_is_one_modified_line() {
    let before = Window::default().snapshot();
    let after = Window {
        bold: true,
        ..Window::default()
    }
    .snapshot();
    let c = compare(&before, &after, Filters::all());
    let m = only_modified(&c.diff.changes);
    assert_eq!(m.element.name, "Bold");
    assert_eq!(m.element.role, Role::CheckBox);
    assert_eq!(m.changes.len(), 1);
    assert_eq!(m.changes[0].attr, Attr::State(State::Checked));
    assert_eq!(m.changes[0].old, AttrValue::Bool(false));
    assert_eq!(m.changes[0].new, AttrValue::Bool(true));
}

#[test]
fn typed_value_is_one_modified_line() {
    let before = Window::default().snapshot();
    let after = Window {
        entry: "Quarterly report",
        ..Window::default()
    }
    .snapshot();
    let c = compare(&before, &after, Filters::all());
    let m = only_modified(&c.diff.changes);
    assert_eq!(m.element.name, "Title");
    assert_eq!(m.changes.len(), 1);
    assert_eq!(m.changes[0].attr, Attr::Value);
    // Whitespace-only (here: empty) text counts as no text.
    assert_eq!(m.changes[0].old, AttrValue::Absent);
    assert_eq!(m.changes[0].new, AttrValue::Text("Quarterly report".into()));
}

#[test]
fn disabled_button_is_one_modified_line() {
    let before = Window::default().snapshot();
    let after = Window {
        save_enabled: false,
        ..Window::default()
    }
    .snapshot();
    let c = compare(&before, &after, Filters::all());
    let m = only_modified(&c.diff.changes);
    assert_eq!(m.element.name, "Save");
    assert_eq!(
        m.changes.len(),
        1,
        "sensitive follows enabled: {:?}",
        m.changes
    );
    assert_eq!(m.changes[0].attr, Attr::State(State::Enabled));
    assert_eq!(m.changes[0].old, AttrValue::Bool(true));
    assert_eq!(m.changes[0].new, AttrValue::Bool(false));
}

#[test]
fn a_chooser_opens_as_a_window_only_at_the_top_level() {
    let app = |embedded: bool, dialog: bool| {
        let mut b = TreeBuilder::new(NodeData::named(Role::Application, "app"));
        b.open(NodeData::named(Role::Frame, "Main"));
        b.open(NodeData::named(Role::PageTab, "Page 3"));
        if embedded {
            b.leaf(NodeData::named(Role::ColorChooser, "Color Plane"));
        }
        b.close();
        b.close();
        if dialog {
            b.leaf(NodeData::named(Role::ColorChooser, "Pick a color"));
        }
        Snapshot::new(Meta::default(), b.finish())
    };
    let opened = |before: &Snapshot, after: &Snapshot| -> Vec<(String, Option<Role>)> {
        compare(before, after, Filters::all())
            .diff
            .changes
            .iter()
            .filter_map(|c| match c {
                Change::Added(a) => Some((a.root().name.clone(), a.opened)),
                _ => None,
            })
            .collect()
    };
    let none = app(false, false);
    assert_eq!(
        opened(&none, &app(true, false)),
        [("Color Plane".to_owned(), None)]
    );
    assert_eq!(
        opened(&none, &app(false, true)),
        [("Pick a color".to_owned(), Some(Role::ColorChooser))]
    );
}

#[test]
fn dialog_that_appears_is_one_added_subtree() {
    let before = Window::default().snapshot();
    let after = Window {
        dialog: true,
        ..Window::default()
    }
    .snapshot();
    let c = compare(&before, &after, Filters::all());
    assert_eq!(c.diff.changes.len(), 1, "{:#?}", c.diff.changes);
    let Change::Added(a) = &c.diff.changes[0] else {
        panic!("expected an added subtree: {:#?}", c.diff.changes)
    };
    assert_eq!(a.opened, Some(Role::Dialog));
    assert_eq!(a.root().name, "Save As");
    let names: Vec<&str> = a.subtree.iter().map(|n| n.element.name.as_str()).collect();
    assert_eq!(names, ["Save As", "File name:", "File name", "OK"]);
    assert_eq!(a.subtree[1].depth, 1);
    // New elements get refs never used before.
    let max_before = c
        .before_refs
        .as_slice()
        .iter()
        .max()
        .copied()
        .unwrap_or(Ref(0));
    assert!(a.root().r#ref > max_before);
    // Closing it again is one removed subtree with the same ref.
    let back = compare(&after, &before, Filters::all());
    let Change::Removed(r) = &back.diff.changes[0] else {
        panic!("expected a removed subtree")
    };
    assert_eq!(back.diff.changes.len(), 1);
    assert_eq!(r.closed, Some(Role::Dialog));
    assert_eq!(r.subtree.len(), 4);
}

#[test]
fn renamed_button_keeps_its_ref() {
    let before = Window::default().snapshot();
    let after = Window {
        button: "Revert",
        id_prefix: ":1.99",
        ..Window::default()
    }
    .snapshot();
    let c = compare(&before, &after, Filters::all());
    let m = only_modified(&c.diff.changes);
    assert_eq!(m.changes.len(), 1);
    assert_eq!(m.changes[0].attr, Attr::Name);
    assert_eq!(m.changes[0].old, AttrValue::Text("Apply".into()));
    assert_eq!(m.changes[0].new, AttrValue::Text("Revert".into()));
    let old_ref = c
        .before
        .tree()
        .ids()
        .find(|&n| c.before.tree().node(n).name == "Apply")
        .map(|n| c.before_refs.get(n));
    assert_eq!(Some(m.element.r#ref), old_ref);
}

#[test]
fn hiding_a_panel_is_one_line_with_its_descendants() {
    let before = Window::default().snapshot();
    let after = Window {
        options_showing: false,
        ..Window::default()
    }
    .snapshot();
    let c = compare(&before, &after, Filters::all());
    let m = only_modified(&c.diff.changes);
    assert_eq!(m.element.name, "Options");
    assert_eq!(m.changes[0].attr, Attr::State(State::Showing));
    assert_eq!(m.descendants.len(), 3);
    // Each descendant as it is now, at its depth below the panel.
    assert!(m.descendants.iter().all(|d| d.depth == 1 && !d.shown()));
    assert!(m
        .descendants
        .iter()
        .all(|d| d.element.r#ref == d.r#ref && !d.element.states.contains(State::Showing)));

    // Shown again: the same descendants, now shown.
    let c = compare(&after, &before, Filters::all());
    let m = only_modified(&c.diff.changes);
    assert_eq!(m.descendants.len(), 3);
    assert!(m.descendants.iter().all(|d| d.depth == 1 && d.shown()));
}

#[test]
fn focus_move_is_reported_once() {
    let before = Window::default().snapshot();
    let after = Window {
        focus_entry: true,
        ..Window::default()
    }
    .snapshot();
    let c = compare(&before, &after, Filters::all());
    assert!(c.diff.changes.is_empty(), "{:#?}", c.diff.changes);
    let focus = c.diff.focus.as_ref().expect("a focus move");
    assert_eq!(focus.from, None);
    assert_eq!(focus.to.as_ref().map(|h| h.name.as_str()), Some("Title"));
}

#[test]
fn reordered_rows_report_positions_and_keep_refs() {
    let before = Window::default().snapshot();
    let after = Window {
        swap_rows: true,
        ..Window::default()
    }
    .snapshot();
    let c = compare(&before, &after, Filters::all());
    let positions: Vec<(String, AttrValue, AttrValue)> = c
        .diff
        .changes
        .iter()
        .filter_map(|ch| match ch {
            Change::Modified(m) => Some((
                m.element.name.clone(),
                m.changes[0].old.clone(),
                m.changes[0].new.clone(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        positions,
        vec![
            ("file2.txt".into(), AttrValue::Index(2), AttrValue::Index(0)),
            ("file0.txt".into(), AttrValue::Index(0), AttrValue::Index(2)),
        ]
    );
    let mut before_names: Vec<_> = c.before_refs.as_slice().to_vec();
    let mut after_names: Vec<_> = c.after_refs.as_slice().to_vec();
    before_names.sort();
    after_names.sort();
    assert_eq!(before_names, after_names);
    assert_eq!(replayed_names(&c), names_of(c.after.tree()));
}

#[test]
fn many_new_rows_are_added_one_by_one_under_the_list() {
    let before = Window::default().snapshot();
    let after = Window {
        rows: 43,
        ..Window::default()
    }
    .snapshot();
    let c = compare(&before, &after, Filters::all());
    assert_eq!(c.diff.counts().added, 40);
    assert_eq!(c.diff.counts().modified, 0);
    for ch in &c.diff.changes {
        let Change::Added(a) = ch else {
            panic!("only additions")
        };
        assert_eq!(a.root().role, Role::ListItem);
        assert_eq!(a.context.as_ref().map(|h| h.name.as_str()), Some("Files"));
    }
}

#[test]
fn a_replaced_page_is_not_its_renamed_twin_when_identities_hold() {
    // A stack whose visible page is swapped: the radio buttons stay (same
    // identities), the page's unnamed widgets are new objects (new
    // identities) of the same roles. With identities trusted they are
    // removed and added, not "modified" into each other.
    let build = |page: u32| {
        let mut b = TreeBuilder::new(NodeData::named(Role::Frame, "Factory"));
        for (k, name) in ["Page 1", "Page 2"].iter().enumerate() {
            let mut r = NodeData::named(Role::RadioButton, *name);
            r.identity = Some(format!(":1.1/radio/{k}"));
            r.states.set(State::Checked, k as u32 + 1 == page);
            b.leaf(r);
        }
        for k in 0..3 {
            let mut spin = NodeData::new(Role::SpinButton);
            spin.value = Some(format!("{}", page * 10 + k));
            spin.identity = Some(format!(":1.1/page{page}/spin{k}"));
            b.leaf(spin);
        }
        Snapshot::new(Meta::default(), b.finish())
    };
    let c = compare(&build(1), &build(2), Filters::all());
    let counts = c.diff.counts();
    assert_eq!(
        (counts.added, counts.removed, counts.modified),
        (3, 3, 2),
        "{:#?}",
        c.diff
    );
    // With identities regenerated (a restart), the same-role widgets pair up.
    let mut restarted = build(2);
    let (meta, mut tree) = restarted.clone().into_parts();
    for id in tree.ids().collect::<Vec<_>>() {
        let n = tree.node_mut(id);
        n.identity = n.identity.as_ref().map(|i| i.replace(":1.1", ":1.9"));
    }
    restarted = Snapshot::new(meta, tree);
    let c = compare(&build(1), &restarted, Filters::all());
    assert_eq!(c.diff.counts().modified, 5, "{:#?}", c.diff);
}

#[test]
fn an_element_made_anew_in_its_place_is_the_same_element() {
    // Gecko remakes its Reload button when a page loads: a new object, the
    // same in all that is compared, where the old one was. The Back button
    // next to it changed; the new page replaced the old one.
    let build = |reload: &str, page: &str, back: bool| {
        let mut root = NodeData::named(Role::Frame, "Firefox");
        root.identity = Some(":1.1/root".into());
        let mut b = TreeBuilder::new(root);
        let mut bar = NodeData::named(Role::ToolBar, "Navigation");
        bar.identity = Some(":1.1/bar".into());
        b.open(bar);
        for (id, name, enabled) in [("back", "Back", back), (reload, "Reload", true)] {
            let mut button = NodeData::named(Role::PushButton, name);
            button.identity = Some(format!(":1.1/{id}"));
            button.states.set(State::Enabled, enabled);
            b.leaf(button);
        }
        b.close();
        let mut doc = NodeData::named(Role::DocumentWeb, page);
        doc.identity = Some(format!(":1.1/{page}"));
        b.leaf(doc);
        Snapshot::new(Meta::default(), b.finish())
    };
    let c = compare(
        &build("reload1", "Order", false),
        &build("reload2", "Details", true),
        Filters::all(),
    );
    let counts = c.diff.counts();
    assert_eq!(
        (counts.added, counts.removed, counts.modified),
        (1, 1, 1),
        "{:#?}",
        c.diff
    );
    for ch in &c.diff.changes {
        match ch {
            Change::Added(a) => assert_eq!(a.root().name, "Details"),
            Change::Removed(r) => assert_eq!(r.root().name, "Order"),
            Change::Modified(m) => assert_eq!(m.element.name, "Back"),
        }
    }
    // Made anew and changed: another element, removed and added.
    let mut changed = build("reload2", "Details", true);
    let (meta, mut tree) = changed.clone().into_parts();
    for id in tree.ids().collect::<Vec<_>>() {
        let n = tree.node_mut(id);
        if n.name == "Reload" {
            n.name = "Stop".into();
        }
    }
    changed = Snapshot::new(meta, tree);
    let c = compare(&build("reload1", "Order", false), &changed, Filters::all());
    assert_eq!(c.diff.counts().added, 2, "{:#?}", c.diff);
}

#[test]
fn a_path_bar_made_anew_with_one_more_folder_adds_only_that_folder() {
    // Nautilus makes its path bar's buttons and separators anew (new
    // identities) when a folder opens: the folders already on the path
    // are the same elements; the folder opened, and its separator, are new.
    let build = |generation: u32, path: &[&str]| {
        let mut root = NodeData::named(Role::Frame, "Files");
        root.identity = Some(":1.1/root".into());
        let mut b = TreeBuilder::new(root);
        let mut bar = NodeData::new(Role::ScrollPane);
        bar.identity = Some(":1.1/bar".into());
        b.open(bar);
        let mut k = 0;
        for (i, folder) in path.iter().enumerate() {
            if i > 0 {
                let mut slash = NodeData::named(Role::Label, "/");
                slash.identity = Some(format!(":1.1/{}", generation * 100 + k));
                k += 1;
                b.leaf(slash);
            }
            let mut button = NodeData::named(Role::PushButton, *folder);
            button.identity = Some(format!(":1.1/{}", generation * 100 + k));
            k += 1;
            b.leaf(button);
        }
        b.close();
        Snapshot::new(Meta::default(), b.finish())
    };
    let c = compare(
        &build(1, &["Home", "work"]),
        &build(2, &["Home", "work", "Archive"]),
        Filters::all(),
    );
    let counts = c.diff.counts();
    assert_eq!(
        (counts.added, counts.removed, counts.modified),
        (2, 0, 0),
        "{:#?}",
        c.diff
    );
    let added: Vec<&str> = c
        .diff
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::Added(a) => Some(a.root().name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(added, ["/", "Archive"]);
    // A folder gone from the path and another come in its place, by
    // another name, stay a removal and an addition.
    let c = compare(
        &build(1, &["Home", "work"]),
        &build(2, &["Home", "notes"]),
        Filters::all(),
    );
    let counts = c.diff.counts();
    assert_eq!((counts.added, counts.removed), (1, 1), "{:#?}", c.diff);
    // A bar made of other folders is other elements: the one separator
    // both have is not taken for the one gone.
    let c = compare(
        &build(1, &["Home", "work", "notes"]),
        &build(2, &["Music", "Films"]),
        Filters::all(),
    );
    let counts = c.diff.counts();
    assert_eq!((counts.added, counts.removed), (3, 5), "{:#?}", c.diff);
}

#[test]
fn cells_made_anew_under_new_identities_are_the_same_cells() {
    // Qt makes the header and cell objects of an item view anew, with new
    // identities, when the view is disabled: every cell is still there,
    // only `enabled` changed. The unnamed widgets of a replaced page line
    // up by role alone and stay removed and added.
    let build = |generation: u32, enabled: bool| {
        let mut root = NodeData::named(Role::Frame, "Gallery");
        root.identity = Some(":1.1/root".into());
        let mut b = TreeBuilder::new(root);
        let mut view = NodeData::new(Role::Tree);
        view.identity = Some(":1.1/view".into());
        b.open(view);
        for (k, name) in ["Name", "Size", "/", ""].iter().enumerate() {
            let role = if k < 2 {
                Role::ColumnHeader
            } else {
                Role::TableCell
            };
            let mut cell = NodeData::named(role, *name);
            cell.identity = Some(format!(":1.1/{}", generation * 100 + k as u32));
            cell.states.set(State::Enabled, enabled);
            b.leaf(cell);
        }
        b.close();
        let mut page = NodeData::new(Role::Panel);
        page.identity = Some(":1.1/page".into());
        b.open(page);
        for k in 0..3 {
            let mut spin = NodeData::new(Role::SpinButton);
            spin.identity = Some(format!(":1.1/spin{}", generation * 100 + k));
            spin.value = Some(format!("{}", generation * 10 + k));
            b.leaf(spin);
        }
        b.close();
        Snapshot::new(Meta::default(), b.finish())
    };
    let c = compare(&build(1, true), &build(2, false), Filters::all());
    let counts = c.diff.counts();
    assert_eq!(
        (counts.added, counts.removed, counts.modified),
        (3, 3, 4),
        "{:#?}",
        c.diff
    );
    let modified: Vec<&str> = c
        .diff
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::Modified(m) => Some(m.element.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(modified, ["Name", "Size", "/", ""]);
}

/// A browser tab's document, one identity per load.
fn page(load: &str, title: &str) -> Snapshot {
    let mut root = NodeData::named(Role::DocumentWeb, title);
    root.identity = Some(format!("doc:{load}"));
    let mut b = TreeBuilder::new(root);
    for name in ["Home", "Products", "About"] {
        let mut link = NodeData::named(Role::Link, name);
        link.identity = Some(format!("{load}:{name}"));
        b.leaf(link);
    }
    let mut heading = NodeData::named(Role::Heading, title);
    heading.identity = Some(format!("{load}:h1"));
    b.leaf(heading);
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn a_new_document_matches_nothing_below_the_root_and_replays() {
    let c = compare(&page("1", "Page A"), &page("2", "Page B"), Filters::all());
    assert!(c.diff.new_document);
    let counts = c.diff.counts();
    assert_eq!((counts.added, counts.removed, counts.modified), (4, 4, 1));
    // The same links on the new page are new elements: new refs.
    assert_eq!(c.after_refs.get(uidelta_model::NodeId(1)), Ref(6));
    let replayed = uidelta_diff::apply(&c.before, &c.before_refs, &c.diff).expect("applies");
    assert_eq!(names_of(&replayed.0), names_of(c.after.tree()));
    assert_eq!(replayed.1.as_slice(), c.after_refs.as_slice());
    // Reloading the same content is no change, whatever the identities.
    let reload = compare(&page("1", "Page A"), &page("3", "Page A"), Filters::all());
    assert!(!reload.diff.new_document);
    assert!(!reload.diff.has_changes());
}

/// A window showing one of two pages of controls, each with identities.
fn window_showing(page: usize) -> Snapshot {
    window_ticked(page, None)
}

/// The same, with one box ticked.
fn window_ticked(page: usize, ticked: Option<usize>) -> Snapshot {
    let mut root = NodeData::named(Role::Frame, "Widgets");
    root.identity = Some("app/root".into());
    let mut b = TreeBuilder::new(root);
    for i in 0..3 {
        let mut control = NodeData::named(Role::CheckBox, format!("page {page} box {i}"));
        control.identity = Some(format!("app/{page}/{i}"));
        control.states.set(State::Checked, ticked == Some(i));
        b.leaf(control);
    }
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn elements_that_leave_and_come_back_get_their_refs_back() {
    let views: Vec<uidelta_diff::View> = [1, 2, 1]
        .iter()
        .map(|&p| uidelta_diff::View::new(&window_showing(p), Filters::all()))
        .collect();
    let mut table = uidelta_diff::RefTable::new();
    let first = table.label(views[0].len());
    let (away, second) = uidelta_diff::diff(&views[0], &first, &views[1], &mut table);
    assert_eq!(away.counts().removed, 3);
    // Page 2's controls are new: fresh refs.
    assert_eq!(&second.as_slice()[1..], &[Ref(5), Ref(6), Ref(7)]);
    let (back, third) = uidelta_diff::diff(&views[1], &second, &views[2], &mut table);
    assert_eq!(back.counts().added, 3);
    assert_eq!(third.as_slice(), first.as_slice());
    let replayed = uidelta_diff::apply(&views[1], &second, &back).expect("applies");
    assert_eq!(replayed.1.as_slice(), first.as_slice());
    // They came back as they were: the diff says so.
    let came_back: Vec<bool> = back
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::Added(a) => Some(a.came_back),
            _ => None,
        })
        .collect();
    assert_eq!(came_back, vec![true, true, true]);
    assert!(!away
        .changes
        .iter()
        .any(|c| matches!(c, Change::Added(a) if a.came_back)));
}

#[test]
fn an_element_that_changed_while_away_did_not_come_back_as_it_was() {
    let views: Vec<uidelta_diff::View> = [
        window_showing(1),
        window_showing(2),
        window_ticked(1, Some(1)),
    ]
    .iter()
    .map(|s| uidelta_diff::View::new(s, Filters::all()))
    .collect();
    let mut table = uidelta_diff::RefTable::new();
    let first = table.label(views[0].len());
    let (_, second) = uidelta_diff::diff(&views[0], &first, &views[1], &mut table);
    let (back, third) = uidelta_diff::diff(&views[1], &second, &views[2], &mut table);
    // Every element still gets its old ref back.
    assert_eq!(third.as_slice(), first.as_slice());
    let came_back: Vec<(String, bool)> = back
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::Added(a) => Some((a.root().name.clone(), a.came_back)),
            _ => None,
        })
        .collect();
    assert_eq!(
        came_back,
        vec![
            ("page 1 box 0".to_owned(), true),
            ("page 1 box 1".to_owned(), false),
            ("page 1 box 2".to_owned(), true),
        ]
    );
}

#[test]
fn headers_made_visible_with_their_view_are_one_line_with_it() {
    // Qt shows an item view (`showing`) and, with it, flips its headers'
    // `visible`; a header that changes otherwise keeps its own line.
    let build = |shown: bool| {
        let mut root = NodeData::named(Role::Frame, "Gallery");
        root.identity = Some(":1.1/root".into());
        root.states = base_states();
        let mut b = TreeBuilder::new(root);
        let mut view = NodeData::new(Role::Table);
        view.identity = Some(":1.1/view".into());
        view.states = base_states();
        view.states.set(State::Showing, shown);
        b.open(view);
        for (k, name) in ["1", "2"].iter().enumerate() {
            let mut header = NodeData::named(Role::ColumnHeader, *name);
            header.identity = Some(format!(":1.1/h{k}"));
            header.states = base_states();
            header.states.set(State::Showing, false);
            header.states.set(State::Visible, shown);
            header.states.set(State::Enabled, k == 0 || shown);
            b.leaf(header);
        }
        b.close();
        Snapshot::new(Meta::default(), b.finish())
    };
    let c = compare(&build(false), &build(true), Filters::all());
    let modified: Vec<(&str, usize, Vec<Attr>)> = c
        .diff
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::Modified(m) => Some((
                m.element.name.as_str(),
                m.descendants.len(),
                m.changes.iter().map(|ch| ch.attr.clone()).collect(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        modified,
        [
            ("", 2, vec![Attr::State(State::Showing)]),
            ("2", 0, vec![Attr::State(State::Enabled)]),
        ],
        "{:#?}",
        c.diff
    );
}

/// A main window with a list whose row "Otto" is selected; `active` says
/// whether the window (and so, in GTK, the selected row) is active.
fn list_window(active: bool, row_active: bool) -> Snapshot {
    let mut frame = NodeData::named(Role::Frame, "Contacts");
    frame.states.set(State::Active, active);
    let mut b = TreeBuilder::new(NodeData::new(Role::Application));
    b.open(frame);
    b.open(NodeData::new(Role::Panel));
    b.open(NodeData::new(Role::TreeTable));
    for name in ["Andrea", "Otto"] {
        let mut cell = NodeData::named(Role::TableCell, name);
        if name == "Otto" {
            cell.states.set(State::Selected, true);
            cell.states.set(State::Active, row_active);
        }
        b.leaf(cell);
    }
    b.close();
    b.close();
    b.close();
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn rows_that_follow_their_window_out_of_activation_are_one_line_with_it() {
    let c = compare(
        &list_window(true, true),
        &list_window(false, false),
        Filters::all(),
    );
    let m = only_modified(&c.diff.changes);
    assert_eq!(m.element.name, "Contacts");
    assert_eq!(m.changes[0].attr, Attr::State(State::Active));
    assert_eq!(m.descendants.len(), 1);
    assert_eq!(m.descendants[0].changes[0].attr, Attr::State(State::Active));
}

#[test]
fn a_row_that_activates_on_its_own_keeps_its_line() {
    // The window stays active; the row's flip is its own change.
    let c = compare(
        &list_window(true, false),
        &list_window(true, true),
        Filters::all(),
    );
    let m = only_modified(&c.diff.changes);
    assert_eq!(m.element.name, "Otto");
    assert!(m.descendants.is_empty());
    // The window activating while the row goes the other way: two lines.
    let c = compare(
        &list_window(false, true),
        &list_window(true, false),
        Filters::all(),
    );
    assert_eq!(c.diff.changes.len(), 2, "{:#?}", c.diff.changes);
}

/// The contacts window, `title` its name, its selected row active with
/// it, and perhaps a dialog over it (`Some(active)`).
fn contacts_with_dialog(active: bool, title: &str, dialog: Option<bool>) -> Snapshot {
    let mut b = TreeBuilder::new(NodeData::new(Role::Application));
    let mut frame = NodeData::named(Role::Frame, title);
    frame.states = base_states();
    frame.states.set(State::Active, active);
    b.open(frame);
    b.open(NodeData::new(Role::TreeTable));
    let mut row = NodeData::named(Role::TableCell, "Otto");
    row.states = base_states().with(State::Selected);
    row.states.set(State::Active, active);
    b.leaf(row);
    b.close();
    b.close();
    if let Some(dialog_active) = dialog {
        let mut d = NodeData::named(Role::Dialog, "Edit contact");
        d.states = base_states().with(State::Modal);
        d.states.set(State::Active, dialog_active);
        b.open(d);
        let mut name = NodeData::named(Role::Entry, "Name");
        name.states = base_states();
        b.leaf(name);
        b.close();
    }
    Snapshot::new(Meta::default(), b.finish())
}

/// The window's `active` (and its row's), replayed.
fn replayed_active(c: &uidelta_diff::Compared) -> Vec<(String, bool)> {
    let (tree, _) = uidelta_diff::apply(&c.before, &c.before_refs, &c.diff).expect("applies");
    tree.nodes()
        .iter()
        .filter(|n| matches!(n.role, Role::Frame | Role::TableCell))
        .map(|n| (n.name.clone(), n.states.contains(State::Active)))
        .collect()
}

#[test]
fn the_activation_a_window_manager_hands_to_a_dialog_and_back_is_said_by_the_dialog() {
    // The dialog opens with the activation: the window and its row losing
    // it is no change of their own.
    let c = compare(
        &contacts_with_dialog(true, "Contacts", None),
        &contacts_with_dialog(false, "Contacts", Some(true)),
        Filters::all(),
    );
    let counts = c.diff.counts();
    assert_eq!((counts.added, counts.modified), (1, 0), "{:#?}", c.diff);
    assert_eq!(c.diff.handed_over.len(), 1);
    let flip = &c.diff.handed_over[0];
    assert_eq!(flip.element.name, "Contacts");
    assert_eq!(flip.changes[0].new, AttrValue::Bool(false));
    assert_eq!(flip.descendants.len(), 1);
    // Still replayed: the diff stays complete.
    assert_eq!(
        replayed_active(&c),
        [("Contacts".to_string(), false), ("Otto".to_string(), false)]
    );

    // It closes and gives it back, the window renamed meanwhile: the name
    // stays a change.
    let c = compare(
        &contacts_with_dialog(false, "Contacts", Some(true)),
        &contacts_with_dialog(true, "Contacts (1 edited)", None),
        Filters::all(),
    );
    let counts = c.diff.counts();
    assert_eq!((counts.removed, counts.modified), (1, 1), "{:#?}", c.diff);
    let Some(Change::Modified(m)) = c
        .diff
        .changes
        .iter()
        .find(|ch| matches!(ch, Change::Modified(_)))
    else {
        panic!("no modified element: {:#?}", c.diff.changes)
    };
    assert_eq!(
        m.changes
            .iter()
            .map(|ch| ch.attr.clone())
            .collect::<Vec<_>>(),
        [Attr::Name]
    );
    assert!(m.descendants.is_empty(), "{:#?}", m.descendants);
    assert_eq!(c.diff.handed_over.len(), 1);
    assert_eq!(
        replayed_active(&c),
        [
            ("Contacts (1 edited)".to_string(), true),
            ("Otto".to_string(), true)
        ]
    );
}

#[test]
fn a_dialog_that_does_not_say_it_is_active_takes_the_activation_all_the_same() {
    // GTK 4.8 says `active` of no dialog: the window losing it as one
    // opens is the hand-over still.
    let c = compare(
        &contacts_with_dialog(true, "Contacts", None),
        &contacts_with_dialog(false, "Contacts", Some(false)),
        Filters::all(),
    );
    assert_eq!(c.diff.counts().modified, 0, "{:#?}", c.diff);
    assert_eq!(c.diff.handed_over.len(), 1);
}

#[test]
fn an_activation_no_opened_or_closed_window_explains_is_a_change() {
    // The window gains it with no window closing (another application's
    // window let it go), or loses it with none opening, the dialog over
    // it staying: said.
    for (before, after) in [
        (
            contacts_with_dialog(false, "Contacts", None),
            contacts_with_dialog(true, "Contacts", None),
        ),
        (
            contacts_with_dialog(true, "Contacts", Some(false)),
            contacts_with_dialog(false, "Contacts", Some(true)),
        ),
    ] {
        let c = compare(&before, &after, Filters::all());
        assert!(c.diff.counts().modified >= 1, "{:#?}", c.diff);
        assert!(c.diff.handed_over.is_empty(), "{:#?}", c.diff);
        assert!(c.diff.changes.iter().any(|ch| matches!(
            ch,
            Change::Modified(m) if m.element.name == "Contacts"
        )));
    }
}

#[test]
fn a_list_item_that_only_wraps_one_element_is_transparent() {
    let mut b = TreeBuilder::new(NodeData::named(Role::DocumentWeb, "Site"));
    b.open(NodeData::new(Role::List));
    // A menu entry: the item wraps its link.
    b.open(NodeData::new(Role::ListItem));
    b.leaf(NodeData::named(Role::Link, "Maps"));
    b.close();
    // Two elements in it: the item groups them, and stays.
    b.open(NodeData::new(Role::ListItem));
    b.leaf(NodeData::named(Role::Link, "Shop"));
    b.leaf(NodeData::named(Role::Static, "new"));
    b.close();
    // Selected: it has something to say, and stays.
    let mut selected = NodeData::new(Role::ListItem);
    selected.states.insert(State::Selected);
    b.open(selected);
    b.leaf(NodeData::named(Role::Link, "Events"));
    b.close();
    b.close();
    let snap = Snapshot::new(Meta::default(), b.finish());
    let shape = |filters: Filters| -> Vec<(usize, Role)> {
        let v = uidelta_diff::View::new(&snap, filters);
        let t = v.tree();
        t.ids().map(|id| (t.depth(id), t.node(id).role)).collect()
    };
    assert_eq!(
        shape(Filters::all()),
        [
            (0, Role::DocumentWeb),
            (1, Role::List),
            (2, Role::Link),
            (2, Role::ListItem),
            (3, Role::Link),
            (3, Role::Static),
            (2, Role::ListItem),
            (3, Role::Link),
        ]
    );
    // The rule can be switched off.
    assert_eq!(shape(Filters::all().keep(Rule::EmptyContainers)).len(), 9);
}

/// Chromium on AT-SPI: the browser window, then two hidden pop-up windows
/// whose documents say `focused` all the time. They do not hold the focus:
/// they are documents of windows that are not active.
fn browser(focused: &str) -> Snapshot {
    let mut b = TreeBuilder::new(NodeData::named(Role::Application, "Chromium"));
    let mut main = NodeData::named(Role::Frame, "Sign up - Chromium");
    main.states = StateSet::of(&[State::Active, State::Showing, State::Enabled]);
    b.open(main);
    b.open(NodeData::named(Role::DocumentWeb, "Sign up"));
    for name in ["Name", "Email"] {
        let mut entry = NodeData::named(Role::Entry, name);
        entry.states = base_states();
        entry.states.set(State::Focused, name == focused);
        b.leaf(entry);
    }
    b.close();
    b.close();
    for _ in 0..2 {
        let mut popup = NodeData::new(Role::Frame);
        popup.states = StateSet::of(&[State::Showing, State::Enabled]);
        b.open(popup);
        let mut doc = NodeData::new(Role::DocumentWeb);
        doc.states = StateSet::of(&[State::Focused, State::Showing]);
        b.leaf(doc);
        b.close();
    }
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn documents_of_inactive_windows_do_not_hold_the_focus() {
    let c = compare(&browser("Name"), &browser("Email"), Filters::all());
    assert!(c.diff.changes.is_empty(), "{:#?}", c.diff.changes);
    let focus = c.diff.focus.as_ref().expect("a focus move");
    let name = |h: &Option<uidelta_diff::Handle>| h.as_ref().map(|h| h.name.clone());
    assert_eq!(name(&focus.from).as_deref(), Some("Name"));
    assert_eq!(name(&focus.to).as_deref(), Some("Email"));
    let replayed = uidelta_diff::apply(&c.before, &c.before_refs, &c.diff).expect("applies");
    let focused: Vec<&str> = replayed
        .0
        .nodes()
        .iter()
        .filter(|n| n.states.contains(State::Focused) && n.role == Role::Entry)
        .map(|n| n.name.as_str())
        .collect();
    assert_eq!(focused, ["Email"]);
}

/// GTK without a window manager: the main window keeps `active` and its
/// focused entry while a modal dialog it opened has the keyboard. The
/// focus is the dialog's button, the last focused element.
#[test]
fn the_focus_of_a_dialog_that_is_not_marked_active_counts() {
    let snapshot = |dialog: bool| {
        let mut b = TreeBuilder::new(NodeData::named(Role::Application, "factory"));
        let mut main = NodeData::new(Role::Frame);
        main.states = StateSet::of(&[State::Active, State::Showing, State::Enabled]);
        b.open(main);
        let mut entry = NodeData::new(Role::Entry);
        entry.states = base_states().with(State::Focused);
        b.leaf(entry);
        b.close();
        if dialog {
            let mut about = NodeData::named(Role::Dialog, "About");
            about.states = StateSet::of(&[State::Modal, State::Showing, State::Enabled]);
            b.open(about);
            let mut close = NodeData::named(Role::PushButton, "Close");
            close.states = base_states().with(State::Focused);
            b.leaf(close);
            b.close();
        }
        Snapshot::new(Meta::default(), b.finish())
    };
    let c = compare(&snapshot(false), &snapshot(true), Filters::all());
    let focus = c.diff.focus.as_ref().expect("a focus move");
    let to = focus.to.as_ref().map(|h| h.name.as_str());
    assert_eq!(to, Some("Close"));
}

/// A window's children, each `(name, shows)`, in order; each keeps its
/// platform identity wherever it is.
fn panels(children: &[(&str, bool)]) -> Snapshot {
    let mut root = NodeData::named(Role::Frame, "gedit");
    root.states = base_states();
    root.identity = Some(":1.5/root".into());
    let mut b = TreeBuilder::new(root);
    for (name, shows) in children {
        let mut n = NodeData::named(Role::Panel, *name);
        n.states = base_states();
        n.states.set(State::Showing, *shows);
        n.states.set(State::Visible, *shows);
        n.identity = Some(format!(":1.5/{name}"));
        b.leaf(n);
    }
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn a_hidden_element_moved_past_a_shown_one_is_no_change_and_still_replays() {
    // GTK raises a hidden popover past the one it shows: the hidden one
    // moved, whichever way the reorder could be told.
    let before = panels(&[("Toolbar", true), ("Popover", false), ("Menu", false)]);
    let after = panels(&[("Toolbar", true), ("Menu", true), ("Popover", false)]);
    let c = compare(&before, &after, Filters::all());
    let menu = only_modified(&c.diff.changes);
    assert_eq!(menu.element.name, "Menu");
    assert!(
        menu.changes.iter().all(|ch| ch.attr != Attr::Position),
        "{:#?}",
        menu.changes
    );
    assert_eq!(c.diff.hidden_moves.len(), 1, "{:#?}", c.diff.hidden_moves);
    assert_eq!(
        (c.diff.hidden_moves[0].old, c.diff.hidden_moves[0].new),
        (1, 2)
    );
    assert_eq!(replayed_names(&c), ["gedit", "Toolbar", "Menu", "Popover"]);

    // With nothing else changed, nothing is reported.
    let before = panels(&[("Toolbar", true), ("Popover", false), ("Menu", false)]);
    let after = panels(&[("Toolbar", true), ("Menu", false), ("Popover", false)]);
    let c = compare(&before, &after, Filters::all());
    assert!(!c.diff.has_changes(), "{:#?}", c.diff);
    assert_eq!(c.diff.hidden_moves.len(), 1);

    // An element on screen that moves is reported, as before.
    let before = panels(&[("Toolbar", true), ("Popover", true), ("Menu", true)]);
    let after = panels(&[("Toolbar", true), ("Menu", true), ("Popover", true)]);
    let c = compare(&before, &after, Filters::all());
    let moved = only_modified(&c.diff.changes);
    assert_eq!(moved.changes[0].attr, Attr::Position);
    assert!(c.diff.hidden_moves.is_empty());
}

/// A folder's list as GTK 3 gives it: cells flat under the table, each
/// `transient`, the object at each place kept whatever row is there.
fn folder(rows: &[&str]) -> Snapshot {
    folder_of(rows, "cell")
}

/// [`folder`], the cells' objects named with `objects`: another name is
/// cells made anew (the view shows another folder).
fn folder_of(rows: &[&str], objects: &str) -> Snapshot {
    let mut root = NodeData::named(Role::Table, "Files");
    root.states = base_states();
    root.identity = Some(":1.5/table".into());
    let mut b = TreeBuilder::new(root);
    for header in ["Name", "Size", "Type", "Modified"] {
        let mut n = NodeData::named(Role::TableColumnHeader, header);
        n.states = base_states();
        n.identity = Some(format!(":1.5/header/{header}"));
        b.leaf(n);
    }
    for (r, name) in rows.iter().enumerate() {
        for (c, text) in [*name, "4.0 KiB", "folder", "Today"].iter().enumerate() {
            let mut n = NodeData::named(Role::TableCell, *text);
            n.states = base_states();
            n.states.insert(State::Transient);
            n.identity = Some(format!(":1.5/{objects}/{}", r * 4 + c));
            b.leaf(n);
        }
    }
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn cells_that_say_they_are_transient_are_matched_by_what_they_show() {
    // `Annual` renamed `Zeta` sorts last: the cell objects stay in place.
    // Matched by place, it would read as three renames; by what they
    // show, `Annual` went, `Zeta` came, and the rows between moved up.
    let before = folder(&["Annual", "Documents", "Pictures"]);
    let after = folder(&["Documents", "Pictures", "Zeta"]);
    let c = compare(&before, &after, Filters::all());
    let renamed: Vec<(String, String)> = c
        .diff
        .changes
        .iter()
        .filter_map(|ch| match ch {
            Change::Modified(m) => m
                .changes
                .iter()
                .find(|x| x.attr == Attr::Name)
                .map(|x| (format!("{:?}", x.old), format!("{:?}", x.new))),
            _ => None,
        })
        .collect();
    assert!(renamed.is_empty(), "{:#?}", c.diff.changes);
    let names = |pick: fn(&Change) -> Option<&str>| -> Vec<&str> {
        c.diff.changes.iter().filter_map(pick).collect()
    };
    assert_eq!(
        names(|ch| match ch {
            Change::Added(a) => Some(a.root().name.as_str()),
            _ => None,
        }),
        ["Zeta"],
        "{:#?}",
        c.diff.changes
    );
    assert_eq!(
        names(|ch| match ch {
            Change::Removed(r) => Some(r.root().name.as_str()),
            _ => None,
        }),
        ["Annual"],
        "{:#?}",
        c.diff.changes
    );
    assert_eq!(replayed_names(&c), names_of(c.after.tree()));

    // A cell edited in place (its text new, the old one gone) is one
    // element that changed.
    let after = folder(&["Annual", "Documents", "Photos"]);
    let c = compare(&before, &after, Filters::all());
    let m = only_modified(&c.diff.changes);
    assert_eq!(m.element.name, "Photos");
    assert_eq!(m.changes[0].attr, Attr::Name);

    // Cells made anew for another folder are other elements, whatever
    // place they take.
    let after = folder_of(&["a.txt", "b.txt"], "other");
    let c = compare(&before, &after, Filters::all());
    assert!(
        c.diff
            .changes
            .iter()
            .all(|ch| !matches!(ch, Change::Modified(_))),
        "{:#?}",
        c.diff.changes
    );
}

/// A sheet of cells, each `(name, value, unread)`, made anew at every
/// capture (identities differ), as LibreOffice's cells are. A cell read is
/// editable; one unread says it is not, its value and `editable` unread.
fn sheet(capture: u32, cells: &[(&str, Option<&str>, bool)]) -> Snapshot {
    let mut table = NodeData::named(Role::Table, "Sheet1");
    table.states = base_states();
    let mut b = TreeBuilder::new(table);
    for (i, (name, value, unread)) in cells.iter().enumerate() {
        let mut cell = NodeData::named(Role::TableCell, *name);
        cell.states = base_states();
        cell.states.set(State::Editable, !unread);
        cell.value = value.map(str::to_owned);
        if *unread {
            cell.unread = Unread {
                value: true,
                states: StateSet::of(&[State::Editable]),
            };
        }
        cell.identity = Some(format!(":1.9/cell/{capture}/{i}"));
        b.leaf(cell);
    }
    Snapshot::new(Meta::default(), b.finish())
}

/// A form of fields, `(name, value, selected text)`, the one at `focused`
/// focused.
fn form(fields: &[(&str, &str, Option<&str>)], focused: usize) -> Snapshot {
    let mut b = TreeBuilder::new(NodeData::named(Role::Form, "Sign up"));
    for (i, (name, value, selected)) in fields.iter().enumerate() {
        let mut field = NodeData::named(Role::Entry, *name);
        field.states = base_states();
        field.states.insert(State::Editable);
        field.states.set(State::Focused, i == focused);
        field.value = Some((*value).to_owned());
        if let Some(s) = selected {
            field.set_attribute(uidelta_model::SELECTION, *s);
        }
        field.identity = Some(format!("field:{i}"));
        b.leaf(field);
    }
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn what_the_platform_does_not_say_is_as_it_was() {
    let before = sheet(1, &[("A1", Some("5"), false), ("B1", Some("7"), false)]);
    // A formula being written: no cell says its text or that it is
    // editable; C1 came into view.
    let after = sheet(
        2,
        &[("A1", None, true), ("B1", None, true), ("C1", None, true)],
    );
    let filters = Filters::all();
    let filled = uidelta_diff::fill_unread(&uidelta_diff::View::new(&before, filters), after);
    let cells: Vec<(Option<&str>, bool)> = filled
        .tree()
        .nodes()
        .iter()
        .skip(1)
        .map(|n| (n.value.as_deref(), n.states.contains(State::Editable)))
        .collect();
    assert_eq!(cells, [(Some("5"), true), (Some("7"), true), (None, false)]);
    // What was filled in is read now; C1, matched by nothing, is not.
    let unread: Vec<bool> = filled
        .tree()
        .nodes()
        .iter()
        .map(|n| n.unread.any())
        .collect();
    assert_eq!(unread, [false, false, false, true]);
    let c = compare(&before, &filled, filters);
    assert_eq!(c.diff.changes.len(), 1, "{:?}", c.diff.changes);
    assert!(matches!(&c.diff.changes[0], Change::Added(_)));

    // Nothing unread: the snapshot comes back as it was.
    let read = sheet(3, &[("A1", Some("6"), false)]);
    let same = uidelta_diff::fill_unread(&uidelta_diff::View::new(&before, filters), read.clone());
    assert_eq!(same.tree().nodes(), read.tree().nodes());
}

/// A list of menus, each a list item (identity `item-K`) holding a button,
/// and the menu's list of links when `open` is K.
fn menus(open: Option<usize>) -> Snapshot {
    let with_id = |role: Role, name: &str, id: String| {
        let mut n = NodeData::named(role, name);
        n.states = base_states();
        n.identity = Some(id);
        n
    };
    let mut b = TreeBuilder::new(with_id(Role::DocumentWeb, "Shop", "doc".into()));
    b.open(with_id(Role::List, "Departments", "menus".into()));
    for (k, name) in ["Women", "Men"].iter().enumerate() {
        b.open(with_id(Role::ListItem, "", format!("item-{k}")));
        b.leaf(with_id(Role::PushButton, name, format!("button-{k}")));
        if open == Some(k) {
            b.open(with_id(Role::List, "", format!("menu-{k}")));
            for j in 1..=2 {
                b.leaf(with_id(
                    Role::Link,
                    &format!("{name} {j}"),
                    format!("link-{k}-{j}"),
                ));
            }
            b.close();
        }
        b.close();
    }
    b.close();
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn a_list_item_that_comes_to_hold_a_menu_stays_as_it_was() {
    // Each list item holds its button alone, and is left out: the buttons
    // read as the list's. A menu that shows beside a button is its one
    // addition; the button stays where it was, under its ref, and so when
    // the menu goes again.
    let closed = menus(None);
    let open = menus(Some(0));
    let c = compare(&closed, &open, Filters::all());
    let added: Vec<String> = c
        .diff
        .changes
        .iter()
        .map(|ch| match ch {
            Change::Added(a) => format!("+ {} {:?}", a.root().role, a.root().name),
            other => panic!("only an addition, not {other:#?}"),
        })
        .collect();
    assert_eq!(added, ["+ list \"\""]);
    assert_eq!(
        names_of(c.after.tree()),
        [
            "Shop",
            "Departments",
            "Women",
            "",
            "Women 1",
            "Women 2",
            "Men"
        ]
    );
    assert_eq!(replayed_names(&c), names_of(c.after.tree()));
    // A view read afresh shows the item that holds two elements.
    let fresh = uidelta_diff::View::new(&open, Filters::all());
    let shown = [
        "Shop",
        "Departments",
        "",
        "Women",
        "",
        "Women 1",
        "Women 2",
        "Men",
    ];
    assert_eq!(names_of(fresh.tree()), shown);
    // Built again from its snapshot and its list items (as a saved session
    // is resumed), it is the same view, not the fresh one.
    let again = uidelta_diff::View::with_list_items(&open, Filters::all(), &c.after.list_items());
    assert_eq!(again.tree(), c.after.tree());
    assert_ne!(again.tree(), fresh.tree());
    // And back: the menu goes, the item stays shown as it was.
    let back = compare(&open, &closed, Filters::all());
    assert_eq!(back.diff.counts().removed, 1);
    assert_eq!(back.diff.changes.len(), 1, "{:#?}", back.diff.changes);
}

/// A board of two named lists of cards, each card a list item with a
/// label; identities are the card's, as a page's DOM nodes keep theirs.
fn board(todo: &[&str], done: &[&str], same_ids: bool) -> Snapshot {
    let mut b = TreeBuilder::new(NodeData::named(Role::DocumentWeb, "Board"));
    for (list, cards) in [("To do", todo), ("Done", done)] {
        let mut l = NodeData::named(Role::List, list);
        l.states = base_states();
        l.identity = Some(format!("list:{list}"));
        b.open(l);
        for card in cards {
            let mut item = NodeData::named(Role::ListItem, *card);
            item.states = base_states();
            let prefix = if same_ids { "card" } else { "new" };
            item.identity = Some(format!("{prefix}:{card}"));
            b.open(item);
            let mut due = NodeData::named(Role::Label, format!("Due {card}"));
            due.states = base_states();
            due.identity = Some(format!("{prefix}:{card}:due"));
            b.leaf(due);
            b.close();
        }
        b.close();
    }
    Snapshot::new(Meta::default(), b.finish())
}

#[test]
fn an_element_moved_to_another_parent_keeps_its_ref_and_says_where_it_was() {
    let before = board(&["Write report", "Call Ann"], &["Buy milk"], true);
    let after = board(&["Call Ann"], &["Buy milk", "Write report"], true);
    let c = compare(&before, &after, Filters::all());
    let moved = only_modified(&c.diff.changes);
    assert_eq!(moved.element.name, "Write report");
    let ref_of = |refs: &uidelta_diff::Refs, v: &uidelta_diff::View, name: &str| {
        v.tree()
            .ids()
            .find(|&n| v.tree().node(n).name == name)
            .map(|n| refs.get(n))
            .expect("named element")
    };
    // The card and what is in it keep their refs.
    for name in ["Write report", "Due Write report"] {
        assert_eq!(
            ref_of(&c.before_refs, &c.before, name),
            ref_of(&c.after_refs, &c.after, name)
        );
    }
    assert_eq!(moved.changes.len(), 1, "{:#?}", moved.changes);
    let change = &moved.changes[0];
    assert_eq!(change.attr, Attr::Parent);
    let (AttrValue::Place(from), AttrValue::Place(to)) = (&change.old, &change.new) else {
        panic!("places expected: {change:#?}");
    };
    assert_eq!((from.parent.name.as_str(), from.index), ("To do", 0));
    assert_eq!((to.parent.name.as_str(), to.index), ("Done", 1));
    assert_eq!(
        from.parent.r#ref,
        ref_of(&c.before_refs, &c.before, "To do")
    );
    assert_eq!(
        replayed_names(&c),
        names_of(uidelta_diff::View::new(&after, Filters::all()).tree())
    );

    // Moved and changed: both are said on one line.
    let mut renamed = board(&["Call Ann"], &["Buy milk", "Write report"], true);
    let (meta, mut tree) = renamed.into_parts();
    let due = tree
        .ids()
        .find(|&n| tree.node(n).name == "Due Write report")
        .expect("due label");
    tree.node_mut(due).name = "Done today".into();
    renamed = Snapshot::new(meta, tree);
    let c = compare(&before, &renamed, Filters::all());
    assert_eq!(c.diff.counts().modified, 2, "{:#?}", c.diff.changes);
    assert_eq!(c.diff.counts().added + c.diff.counts().removed, 0);

    // Without the identity to say so, it is another element: removed and
    // added.
    let after = board(&["Call Ann"], &["Buy milk", "Write report"], false);
    let c = compare(&before, &after, Filters::all());
    assert!(c.diff.counts().added > 0 && c.diff.counts().removed > 0);
    assert!(c.diff.changes.iter().all(|ch| match ch {
        Change::Modified(m) => m.changes.iter().all(|x| x.attr != Attr::Parent),
        _ => true,
    }));
}

#[test]
fn a_selection_gone_from_a_field_the_focus_left_is_no_change_to_report() {
    let filters = Filters::all();
    let sel = Attr::Attribute(uidelta_model::SELECTION.into());
    // Name's text selected; Tab: Email takes the focus and selects its
    // text, and GTK clears Name's.
    let before = form(&[("Name", "Ada", Some("Ada")), ("Email", "a@b", None)], 0);
    let after = form(&[("Name", "Ada", None), ("Email", "a@b", Some("a@b"))], 1);
    let c = compare(&before, &after, filters);
    let m = only_modified(&c.diff.changes);
    assert_eq!(m.element.name, "Email");
    assert_eq!(
        m.changes,
        [uidelta_diff::AttrChange {
            attr: sel.clone(),
            old: AttrValue::Absent,
            new: AttrValue::Text("a@b".into()),
        }]
    );
    assert_eq!(c.diff.handed_over.len(), 1, "{:#?}", c.diff);
    assert_eq!(c.diff.handed_over[0].element.name, "Name");
    assert_eq!(c.diff.counts().modified, 1);
    // Replayed, the diff gives the tree after, Name's selection gone too.
    let (replayed, _) = uidelta_diff::apply(&c.before, &c.before_refs, &c.diff).expect("applies");
    let selections: Vec<Option<&str>> = replayed
        .nodes()
        .iter()
        .skip(1)
        .map(|n| n.selection())
        .collect();
    assert_eq!(selections, [None, Some("a@b")]);
    // Gone from the field that has the focus (typed over): a change.
    let typed = form(&[("Name", "q", None), ("Email", "a@b", None)], 0);
    let c = compare(&before, &typed, filters);
    let m = only_modified(&c.diff.changes);
    assert!(m.changes.iter().any(|ch| ch.attr == sel), "{m:#?}");
    assert!(c.diff.handed_over.is_empty());
}
