use super::*;
use crate::capture::fixtures::rec;

fn event(kind: &str, path: &str) -> UiEvent {
    UiEvent {
        kind: kind.into(),
        source: NodeAddr {
            bus: ":1.1".into(),
            path: path.into(),
        },
        detail1: 0,
        detail2: 0,
        rect: None,
        at: Instant::now(),
    }
}

/// Puts `recs` at `paths` on the bus `:1.1`: the mirror's index of them.
fn held_at(recs: &mut [Rec], paths: &[&str]) -> HashMap<NodeAddr, usize> {
    let mut index = HashMap::new();
    for (i, (r, path)) in recs.iter_mut().zip(paths).enumerate() {
        r.bus = ":1.1".into();
        r.path = (*path).into();
        index.insert(addr(r), i);
    }
    index
}

/// A node of a whole walk, at `path` on the bus `:1.1`.
fn walked(role: Role, name: &str, path: &str) -> uidelta_model::NodeData {
    let mut n = uidelta_model::NodeData::named(role, name);
    n.identity = Some(format!(":1.1{path}"));
    n
}

/// A difference of `field` at `path` on the bus `:1.1`.
fn differ(path: &str, field: &'static str) -> Difference {
    Difference {
        identity: format!(":1.1{path}"),
        field,
        what: String::new(),
    }
}

#[test]
fn events_name_what_to_read_again() {
    assert_eq!(mark_of("object:children-changed:add"), Mark::Children);
    assert_eq!(mark_of("object:children-changed:remove"), Mark::Children);
    assert_eq!(mark_of("object:state-changed:showing"), Mark::Below);
    assert_eq!(mark_of("object:state-changed:visible"), Mark::Below);
    assert_eq!(mark_of("object:state-changed:sensitive"), Mark::Below);
    assert_eq!(mark_of("object:state-changed:enabled"), Mark::Below);
    assert_eq!(mark_of("object:state-changed:showing-x"), Mark::Node);
    assert_eq!(mark_of("object:state-changed:checked"), Mark::Node);
    assert_eq!(
        mark_of("object:property-change:accessible-name"),
        Mark::Node
    );
    assert_eq!(mark_of("object:bounds-changed"), Mark::Moved);
    assert_eq!(mark_of("window:activate"), Mark::Node);
    assert_eq!(mark_of("object:text-caret-moved"), Mark::None);
    assert_eq!(mark_of("object:text-selection-changed"), Mark::Node);
    assert_eq!(mark_of("object:row-inserted"), Mark::Below);
    assert_eq!(mark_of("object:model-changed"), Mark::Below);
    assert_eq!(mark_of("object:selection-changed"), Mark::Below);
}

#[test]
fn cells_and_tabs_follow_their_widget_silently() {
    assert!(follows_silently(&rec("page tab", "Info", &[])));
    assert!(follows_silently(&rec("table cell", "Otto", &[])));
    assert!(follows_silently(&rec("tree item", "src", &[])));
    assert!(!follows_silently(&rec("push button", "OK", &[])));
    let mut label = rec("label", "cell text", &[]);
    label.basic.states.insert(State::Transient);
    assert!(follows_silently(&label));
}

#[test]
fn too_many_marks_ask_for_a_whole_walk() {
    let mut marks = Marks::default();
    marks.note(&event("object:state-changed:checked", "/a"), false);
    marks.note(&event("object:state-changed:checked", "/a"), false);
    marks.note(&event("object:children-changed:add", "/b"), false);
    assert_eq!(marks.nodes.len(), 1);
    assert_eq!(marks.children.len(), 1);
    assert!(!marks.overflow);
    for i in 0..MAX_MARKS {
        marks.note(
            &event("object:state-changed:checked", &format!("/n{i}")),
            false,
        );
    }
    assert!(marks.overflow);
    assert!(marks.nodes.is_empty());
    marks.note(&event("object:state-changed:checked", "/c"), false);
    assert!(marks.nodes.is_empty());
}

#[test]
fn compacting_keeps_what_the_root_reaches_breadth_first() {
    // 0 -> [3, 1]; 1 -> [4]; 2 is dropped (no list holds it).
    let recs = vec![
        rec("frame", "root", &[3, 1]),
        rec("panel", "one", &[4]),
        rec("label", "gone", &[]),
        rec("button", "three", &[]),
        rec("label", "four", &[]),
    ];
    let out = compact(recs);
    let names: Vec<&str> = out.iter().map(|r| r.basic.name.as_str()).collect();
    assert_eq!(names, ["root", "three", "one", "four"]);
    assert_eq!(out[0].children, [1, 2]);
    assert_eq!(out[2].children, [3]);
    assert!(out[1].children.is_empty());
}

#[test]
fn a_node_a_few_pixels_off_is_nudged_and_one_further_moved() {
    use uidelta_model::{Meta, NodeData, Rect, TreeBuilder};
    let at = |x: i32, y: i32, w: i32| {
        let mut root = NodeData::named(Role::Frame, "Window");
        root.identity = Some(":1.1/root".into());
        let mut b = TreeBuilder::new(root);
        let mut icon = NodeData::named(Role::Icon, "");
        icon.identity = Some(":1.1/icon".into());
        icon.bounds = Some(Rect::new(x, y, w, 16));
        b.leaf(icon);
        Snapshot::new(Meta::default(), b.finish())
    };
    let fields = |a: &Snapshot, b: &Snapshot| -> Vec<&'static str> {
        differences(a, b, 20, true)
            .iter()
            .map(|d| d.field)
            .collect()
    };
    assert_eq!(fields(&at(564, 64, 16), &at(564, 66, 16)), ["nudge"]);
    assert_eq!(fields(&at(564, 64, 16), &at(560, 60, 16)), ["nudge"]);
    assert_eq!(fields(&at(564, 64, 16), &at(564, 69, 16)), ["bounds"]);
    assert_eq!(fields(&at(564, 64, 16), &at(564, 64, 18)), ["bounds"]);
    assert!(differences(&at(564, 64, 16), &at(564, 66, 16), 20, true)
        .iter()
        .all(|d| d.is_bounds() && d.is_nudge()));
}

#[test]
fn an_event_above_a_node_covers_only_what_it_says_of_what_is_below() {
    use uidelta_model::{Meta, TreeBuilder};
    // A frame holding a panel holding a button; the whole walk after has
    // a label new in the panel.
    let mut recs = vec![
        rec("frame", "Window", &[1]),
        rec("panel", "", &[2]),
        rec("push button", "OK", &[]),
    ];
    let index = held_at(&mut recs, &["/f", "/p", "/b"]);
    let node = walked;
    let mut b = TreeBuilder::new(node(Role::Frame, "Window", "/f"));
    b.open(node(Role::Panel, "", "/p"));
    b.leaf(node(Role::PushButton, "OK", "/b"));
    b.leaf(node(Role::Label, "Saved", "/new"));
    b.close();
    let whole = Snapshot::new(Meta::default(), b.finish());
    let none = HashSet::new();
    let covers = |marks: &Marks, d: Difference| marks.cover(&recs, &index, &[d], &whole, &none);
    let at = |path: &str| NodeAddr {
        bus: ":1.1".into(),
        path: path.into(),
    };

    // The window going inactive says nothing of the button in it.
    let mut frame = Marks::default();
    frame.nodes.insert(at("/f"));
    assert!(!covers(&frame, differ("/b", "states")));
    assert!(covers(&frame, differ("/f", "states")));
    // A subtree read again covers all of it.
    let mut below = Marks::default();
    below.below.insert(at("/p"));
    assert!(covers(&below, differ("/b", "states")));
    // Children changed: what is there, not what it says.
    let mut children = Marks::default();
    children.children.insert(at("/p"));
    assert!(covers(&children, differ("/new", "presence")));
    assert!(covers(&children, differ("/b", "place")));
    assert!(!covers(&children, differ("/b", "name")));
    // An event on the button alone does not place a label new beside it.
    let mut button = Marks::default();
    button.nodes.insert(at("/b"));
    assert!(!covers(&button, differ("/new", "presence")));
    // Moved: bounds below, nothing else.
    let mut moved = Marks::default();
    moved.moved.insert(at("/f"));
    assert!(covers(&moved, differ("/b", "bounds")));
    assert!(!covers(&moved, differ("/b", "states")));
    // An object laid out again after the capture, its rectangle restated,
    // was still being worked on, as one that moved: itself and the places
    // of what is in it (a stack's page sliding in). What is taken as moved
    // for it (the window holding it) is too.
    let mut restated = Marks::default();
    restated.restated.insert(at("/p"));
    assert!(covers(&restated, differ("/b", "bounds")));
    assert!(covers(&restated, differ("/p", "states")));
    assert!(!covers(&restated, differ("/b", "states")));
    let mut button = Marks::default();
    button.restated.insert(at("/b"));
    assert!(!covers(&button, differ("/p", "bounds")));
    let window: HashSet<NodeAddr> = [at("/f")].into();
    assert!(button.cover(&recs, &index, &[differ("/p", "bounds")], &whole, &window));
    assert!(!button.cover(&recs, &index, &[differ("/p", "states")], &whole, &window));
}

#[test]
fn what_says_it_is_busy_or_stale_explains_what_differs_of_it_without_events() {
    use uidelta_model::{Meta, TreeBuilder};
    // A frame holding a document still loading (busy), which holds a row
    // (stale), and a button beside it.
    let mut recs = vec![
        rec("frame", "Mail", &[1, 3]),
        rec("panel", "", &[2]),
        rec("table row", "Local Folders", &[]),
        rec("push button", "Send", &[]),
    ];
    recs[1].basic.states.insert(State::Busy);
    recs[2].basic.states.insert(State::Stale);
    let index = held_at(&mut recs, &["/f", "/doc", "/row", "/b"]);
    let node = walked;
    let mut b = TreeBuilder::new(node(Role::Frame, "Mail", "/f"));
    b.open(node(Role::Panel, "", "/doc"));
    b.leaf(node(Role::TableRow, "ann@example.org", "/row"));
    b.leaf(node(Role::Label, "Inbox", "/new"));
    b.close();
    b.leaf(node(Role::PushButton, "Send", "/b"));
    let whole = Snapshot::new(Meta::default(), b.finish());
    let none = HashSet::new();
    let quiet = Marks::default();
    let covers = |d: Difference| quiet.cover(&recs, &index, &[d], &whole, &none);
    // The busy document, whatever is in it, and the stale row.
    assert!(covers(differ("/doc", "states")));
    assert!(covers(differ("/row", "name")));
    assert!(covers(differ("/new", "presence")));
    // Not what is beside them, nor what holds them.
    assert!(!covers(differ("/b", "states")));
    assert!(!covers(differ("/f", "name")));
    // A stale object says nothing of what is in it, nor of its parent.
    recs[1].basic.states.remove(State::Busy);
    let covers = |d: Difference| quiet.cover(&recs, &index, &[d], &whole, &none);
    assert!(!covers(differ("/doc", "states")));
    assert!(!covers(differ("/new", "presence")));
    assert!(covers(differ("/row", "name")));
}

#[test]
fn a_rectangle_restated_is_told_from_a_move() {
    let bounds = |path: &str, rect: Option<[i32; 4]>| UiEvent {
        rect,
        ..event("object:bounds-changed", path)
    };
    let mut said = Rects::default();
    let mut marks = Marks::default();
    let mut note = |e: UiEvent, marks: &mut Marks| {
        let restates = said.restates(&e);
        marks.note(&e, restates);
    };
    // The first rectangle of an object is news; the same again is not.
    note(bounds("/a", Some([0, 0, 10, 10])), &mut marks);
    assert!(marks.moved.contains(&event("", "/a").source));
    let mut marks = Marks::default();
    note(bounds("/a", Some([0, 0, 10, 10])), &mut marks);
    note(bounds("/a", Some([0, 0, 10, 10])), &mut marks);
    assert!(marks.moved.is_empty());
    assert_eq!(marks.restated.len(), 1);
    // A new rectangle is a move, and stays one when restated after.
    note(bounds("/a", Some([0, 5, 10, 10])), &mut marks);
    note(bounds("/a", Some([0, 5, 10, 10])), &mut marks);
    assert_eq!(marks.moved.len(), 1);
    assert!(marks.restated.is_empty());
    // Back where it was before is a move too: the last one is compared.
    let mut marks = Marks::default();
    note(bounds("/a", Some([0, 0, 10, 10])), &mut marks);
    assert_eq!(marks.moved.len(), 1);
    // No rectangle: always a move; other objects have their own.
    let mut marks = Marks::default();
    note(bounds("/b", None), &mut marks);
    note(bounds("/b", None), &mut marks);
    note(bounds("/c", Some([0, 0, 10, 10])), &mut marks);
    assert_eq!(marks.moved.len(), 2);
    // A state change carrying data is not a rectangle restated.
    let mut marks = Marks::default();
    let checked = UiEvent {
        rect: Some([0, 0, 10, 10]),
        ..event("object:state-changed:checked", "/c")
    };
    note(checked.clone(), &mut marks);
    assert_eq!(marks.nodes.len(), 1);
}

#[test]
fn what_said_it_moved_has_its_states_read_again_even_where_it_is_held() {
    let at = |x: i32| {
        Some(Rect {
            x,
            y: 20,
            w: 100,
            h: 16,
        })
    };
    // Moved: its states follow its place.
    assert!(states_follow(false, at(0), at(5)));
    assert!(states_follow(false, None, at(5)));
    // Said it moved, and is where the mirror holds it: the walk that
    // read its bounds read them after the move, and its states maybe
    // before (gedit's folder under its title, held as not showing).
    assert!(states_follow(true, at(5), at(5)));
    // Neither said nor moved (placed at every capture as one whose
    // toolkit lays it out without a word: LibreOffice's window parts).
    assert!(!states_follow(false, at(5), at(5)));
}

#[test]
fn a_window_that_changed_after_its_last_layout_is_not_laid_out_yet() {
    // 0: the application; 1, 2: its windows; 3 in 1, 4 in 2, 5 in 3.
    let mut recs = vec![
        rec("application", "app", &[1, 2]),
        rec("frame", "main", &[3]),
        rec("dialog", "Print", &[4]),
        rec("filler", "", &[5]),
        rec("push button", "Print", &[]),
        rec("check box", "Wrap", &[]),
    ];
    let index = held_at(&mut recs, &["/0", "/1", "/2", "/3", "/4", "/5"]);
    let windows = windows_of(&parents(&recs));
    assert_eq!(windows, [None, Some(1), Some(2), Some(1), Some(2), Some(1)]);
    let unlaid = |events: &[(&str, &str)]| {
        let mut marks = Marks::default();
        for (kind, path) in events {
            marks.note(&event(kind, path), false);
        }
        let mut w: Vec<usize> = unlaid_windows(&windows, &index, &marks)
            .into_iter()
            .collect();
        w.sort();
        w
    };
    let enabled = "object:state-changed:enabled";
    let bounds = "object:bounds-changed";
    // A change, and no layout after it.
    assert_eq!(unlaid(&[(enabled, "/4")]), [2]);
    // Laid out after: anything in the window said so.
    assert!(unlaid(&[(enabled, "/4"), (bounds, "/2")]).is_empty());
    // Laid out before the change only: still to come.
    assert_eq!(unlaid(&[(bounds, "/2"), (enabled, "/4")]), [2]);
    // Another window's layout says nothing of this one's.
    assert_eq!(
        unlaid(&[
            (enabled, "/4"),
            ("object:state-changed:checked", "/5"),
            (bounds, "/3")
        ]),
        [2]
    );
    // Moves alone, a caret moving, or objects the mirror does not hold:
    // nothing to wait for.
    assert!(unlaid(&[(bounds, "/4"), ("object:text-caret-moved", "/5")]).is_empty());
    assert!(unlaid(&[(enabled, "/9")]).is_empty());
}
