use super::*;
use crate::MAX_DEPTH;
use uidelta_model::{NodeId, Tree};

fn read(text: &str) -> Snapshot {
    match parse(text) {
        Ok(snapshot) => snapshot,
        Err(err) => panic!("{err}"),
    }
}

fn fail(text: &str) -> ParseError {
    match parse(text) {
        Ok(snapshot) => panic!("parsed: {snapshot:?}"),
        Err(err) => err,
    }
}

fn at(err: &ParseError) -> (usize, usize) {
    (err.line, err.column)
}

fn names(tree: &Tree) -> Vec<(usize, &str)> {
    tree.ids()
        .map(|id| (tree.depth(id), tree.node(id).name.as_str()))
        .collect()
}

#[test]
fn reads_the_spec_example() {
    let snap = read(
        r#"{"source": "atspi", "app": "gtk3-widget-factory", "pid": 4242,
 "root": {"id": ":1.0/org/a11y/atspi/accessible/149",
          "role": "push button", "name": "Save", "value": null,
          "description": "", "states": ["enabled", "focusable", "showing"],
          "bounds": [892, 512, 80, 30], "attributes": {},
          "children": []}}"#,
    );
    assert_eq!(
        snap.meta,
        Meta {
            source: "atspi".into(),
            app: Some("gtk3-widget-factory".into()),
            pid: Some(4242),
            ..Meta::default()
        }
    );
    assert_eq!(snap.node_count(), 1);
    let expected = NodeData {
        role: Role::PushButton,
        raw_role: "push button".into(),
        name: "Save".into(),
        value: None,
        description: String::new(),
        states: StateSet::of(&[State::Enabled, State::Focusable, State::Showing]),
        bounds: Some(Rect::new(892, 512, 80, 30)),
        attributes: vec![],
        identity: Some(":1.0/org/a11y/atspi/accessible/149".into()),
        unread: Default::default(),
    };
    assert_eq!(snap.tree().node(NodeId::ROOT), &expected);
}

#[test]
fn reads_every_metadata_field() {
    let snap = read(
        r#"{"source": "cdp", "app": "Chromium", "pid": 4294967295, "window": "Inbox",
                "captured_at_ms": 1700000000123, "capture_ms": 12.5, "truncated": true,
                "node_count": 99, "root": {"role": "document web"}}"#,
    );
    assert_eq!(
        snap.meta,
        Meta {
            source: "cdp".into(),
            app: Some("Chromium".into()),
            pid: Some(u32::MAX),
            window: Some("Inbox".into()),
            captured_at_ms: Some(1_700_000_000_123),
            capture_ms: Some(12.5),
            truncated: true,
        }
    );
    // `node_count` is recomputed, never trusted.
    assert_eq!(snap.node_count(), 1);

    let snap = read(
        r#"{"source": null, "app": null, "pid": null, "window": null,
                "captured_at_ms": null, "capture_ms": 7, "truncated": null, "root": {"role": "frame"}}"#,
    );
    assert_eq!(
        snap.meta,
        Meta {
            source: "file".into(),
            capture_ms: Some(7.0),
            ..Meta::default()
        }
    );
}

#[test]
fn reads_every_node_field() {
    let snap = read(
        r#"{"root": {
                "ref": "e1", "role": "Button", "raw_role": "AXButton", "id": 42,
                "name": 17, "value": true, "description": null,
                "states": ["enabled", "sensitive", "STATE_READ_ONLY", "toggled", "disabled",
                           "sparkly", "focusable", "  "],
                "bounds": [1.4, 2.6, -3.5, 4],
                "attributes": {"level": 2, "busy": false, "ratio": 0.5, "gone": null,
                               "state:sparkly": "explicit", "class": "primary"}}}"#,
    );
    let node = snap.tree().node(NodeId::ROOT);
    assert_eq!(
        node,
        &NodeData {
            role: Role::PushButton,
            raw_role: "AXButton".into(),
            name: "17".into(),
            value: Some("true".into()),
            description: String::new(),
            // `disabled` wins over `enabled` and `sensitive`.
            states: StateSet::of(&[State::ReadOnly, State::Checked, State::Focusable]),
            bounds: Some(Rect::new(1, 3, -4, 4)),
            attributes: vec![
                ("busy".into(), "false".into()),
                ("class".into(), "primary".into()),
                ("level".into(), "2".into()),
                ("ratio".into(), "0.5".into()),
                // An explicit attribute wins over an unknown state's.
                ("state:sparkly".into(), "explicit".into()),
            ],
            identity: Some("42".into()),
            unread: Default::default(),
        }
    );

    // A list emptied by `disabled` is a whole set with no state in it.
    let snap = read(r#"{"role": "entry", "states": ["Insensitive", "enabled", "sparkly"]}"#);
    let node = snap.tree().node(NodeId::ROOT);
    assert_eq!(node.states, StateSet::REPORTED_NONE);
    assert_eq!(node.attribute("state:sparkly"), Some("true"));
    assert_eq!(node.raw_role, "entry");
    assert_eq!(node.identity, None);
}

#[test]
fn an_empty_state_list_says_none_where_the_document_reports_states() {
    let states = |text: &str| -> Vec<StateSet> {
        let snap = read(text);
        snap.tree()
            .ids()
            .map(|id| snap.tree().node(id).states)
            .collect()
    };
    let shown = StateSet::of(&[State::Showing]);
    // Other nodes list states: an empty list (or one of unknown names) is
    // a node with none; an application object's and a missing or null
    // list say nothing.
    assert_eq!(
        states(
            r#"{"root": {"role": "application", "states": [], "children": [
                {"role": "frame", "states": ["showing"], "children": [
                    {"role": "panel", "states": []},
                    {"role": "panel", "states": ["sparkly"]},
                    {"role": "label"},
                    {"role": "label", "states": null}]}]}}"#
        ),
        [
            StateSet::EMPTY,
            shown,
            StateSet::REPORTED_NONE,
            StateSet::REPORTED_NONE,
            StateSet::EMPTY,
            StateSet::EMPTY,
        ]
    );
    // The node that reports states may come after the empty list, or be
    // the bare root.
    assert_eq!(
        states(
            r#"{"role": "frame", "states": ["showing"], "children": [{"role": "panel", "states": []}]}"#
        ),
        [shown, StateSet::REPORTED_NONE]
    );
    assert_eq!(
        states(
            r#"{"root": {"role": "frame", "children": [{"role": "panel", "states": []}, {"role": "label", "states": ["showing"]}]}}"#
        ),
        [StateSet::EMPTY, StateSet::REPORTED_NONE, shown]
    );
    // Nothing in the document names a state (a source without them, such
    // as terminator's YAML written as JSON): empty lists say nothing.
    assert_eq!(
        states(
            r#"{"root": {"role": "frame", "states": [], "children": [{"role": "panel", "states": []}]}}"#
        ),
        [StateSet::EMPTY, StateSet::EMPTY]
    );
    // Top-level node fields dropped for `root` take their states along.
    assert_eq!(
        states(
            r#"{"role": "frame", "states": ["showing"], "root": {"role": "frame", "states": []}}"#
        ),
        [StateSet::EMPTY]
    );
}

#[test]
fn a_tree_written_as_json_reads_back_with_the_same_states() {
    use uidelta_diff::{Filters, View};
    let data = |role: Role, states: StateSet| {
        let mut d = NodeData::new(role);
        d.states = states;
        d
    };
    let shown = StateSet::of(&[State::Enabled, State::Showing, State::Visible]);
    let mut b = TreeBuilder::new(data(Role::Application, StateSet::EMPTY));
    b.open(data(Role::Frame, shown));
    b.leaf(data(Role::Panel, StateSet::REPORTED_NONE));
    b.leaf(data(Role::PushButton, StateSet::of(&[State::Focusable])));
    let before = Snapshot::new(
        Meta {
            source: "atspi".into(),
            ..Meta::default()
        },
        b.finish(),
    );
    let view = View::new(&before, Filters::none());
    let text = uidelta_render::tree_json(&view, &Default::default());
    let after = read(&text);
    let states = |s: &Snapshot| -> Vec<StateSet> {
        s.tree().ids().map(|id| s.tree().node(id).states).collect()
    };
    assert_eq!(states(&after), states(&before), "{text}");
    assert!(after.tree().node(NodeId(2)).states.says_hidden());
}

#[test]
fn bounds_come_as_arrays_objects_or_null() {
    let bounds = |json: &str| {
        let snap = read(&format!(r#"{{"role": "panel", "bounds": {json}}}"#));
        snap.tree().node(NodeId::ROOT).bounds
    };
    assert_eq!(bounds("[0, -5, 10, 20]"), Some(Rect::new(0, -5, 10, 20)));
    assert_eq!(
        bounds(r#"{"x": 1, "y": 2, "width": 3, "height": 4, "unit": "px"}"#),
        Some(Rect::new(1, 2, 3, 4))
    );
    assert_eq!(
        bounds(r#"{"h": 4.5, "w": 3, "y": 2, "x": 1}"#),
        Some(Rect::new(1, 2, 3, 5))
    );
    assert_eq!(bounds("null"), None);
}

#[test]
fn builds_children_in_order_whatever_the_key_order() {
    let snap = read(
        r#"{"root": {"children": [
                  {"name": "a", "role": "panel", "children": [{"role": "label", "name": "a1"}]},
                  {"role": "label", "name": "b", "children": null}
                ], "name": "top", "role": "frame"}}"#,
    );
    let tree = snap.tree();
    assert_eq!(names(tree), vec![(0, "top"), (1, "a"), (2, "a1"), (1, "b")]);
    assert_eq!(tree.node(NodeId(3)).role, Role::Label);
    assert_eq!(tree.children(NodeId::ROOT), &[NodeId(1), NodeId(3)]);
}

#[test]
fn ignores_unknown_fields_anywhere() {
    let snap = read(
        r#"{"version": 3, "extra": {"deep": [[[{"role": 5}]]]}, "node_count": "many",
                "root": {"role": "frame", "ref": "e1", "xpath": "/a", "children": [
                    {"role": "label", "name": "x", "css": {"color": [1, 2]}, "pid": "not metadata"}
                ]}, "tail": null}"#,
    );
    assert_eq!(names(snap.tree()), vec![(0, ""), (1, "x")]);
    assert_eq!(snap.meta.pid, None);
}

#[test]
fn a_bare_node_is_a_snapshot_from_a_file() {
    let snap = read(r#"{"name": "OK", "role": "push button", "children": [{"role": "label"}]}"#);
    assert_eq!(
        snap.meta,
        Meta {
            source: "file".into(),
            ..Meta::default()
        }
    );
    assert_eq!(names(snap.tree()), vec![(0, "OK"), (1, "")]);
}

#[test]
fn root_wins_over_top_level_node_fields() {
    let snap = read(
        r#"{"name": "ignored", "children": [{"role": "label"}, {"role": "label"}],
                "root": {"role": "frame", "name": "kept"}, "role": "window", "states": 5}"#,
    );
    assert_eq!(names(snap.tree()), vec![(0, "kept")]);
    assert_eq!(snap.tree().node(NodeId::ROOT).role, Role::Frame);
}

#[test]
fn password_values_arrive_redacted() {
    let snap = read(
        r#"{"root": {"role": "frame", "children": [
                  {"role": "password text", "name": "Password", "value": "secret"}]}}"#,
    );
    let field = snap.tree().node(NodeId(1));
    assert_eq!(field.value.as_deref(), Some("\u{2022}".repeat(6).as_str()));
    assert_eq!(field.name, "Password");
}

#[test]
fn malformed_json_is_an_error_at_its_position() {
    let err = fail("{\"role\": \"frame\",\n  \"name\": \"a\" \"value\": 1}");
    assert_eq!(at(&err), (2, 15));
    assert_eq!(err.message, "expected `,` or `}`");
    assert_eq!(
        err.to_string(),
        "json input, line 2, column 15: expected `,` or `}`"
    );

    let err = fail("{\"role\": \"frame\"");
    assert_eq!(
        (at(&err), err.message.as_str()),
        ((1, 17), "EOF while parsing an object")
    );
    let err = fail("{\"role\": \"frame\"} {}");
    assert_eq!(
        (at(&err), err.message.as_str()),
        ((1, 19), "trailing characters")
    );
    let err = fail("");
    assert_eq!(
        (at(&err), err.message.as_str()),
        ((1, 1), "EOF while parsing a value")
    );
    // Columns count characters: `x` is the 23rd character, the 24th byte.
    let err = fail(r#"{"role": "é", "name": x}"#);
    assert_eq!(
        (at(&err), err.message.as_str()),
        ((1, 23), "expected value")
    );
}

#[test]
fn a_missing_role_points_at_the_node() {
    let err = fail(
            "{\"root\": {\"role\": \"frame\", \"children\": [\n    {\"role\": \"label\"},\n    {\"name\": \"(no role)\", \"children\": []}\n]}}",
        );
    assert_eq!(at(&err), (3, 5));
    assert_eq!(err.message, "the node has no `role`; every node needs one");

    let err = fail("  {\"name\": \"x\"}");
    assert_eq!(at(&err), (1, 3));
    assert_eq!(
        err.message,
        "the document has neither `root` (a snapshot) nor `role` (a bare node)"
    );
}

#[test]
fn wrong_types_are_errors_at_the_value() {
    let err = fail("{\"role\": \"frame\",\n \"states\": 5}");
    assert_eq!(at(&err), (2, 12));
    assert_eq!(
        err.message,
        "invalid type: integer `5`, expected `states`: an array of state names"
    );

    let cases: &[(&str, (usize, usize), &str)] = &[
            (
                r#"{"role": "frame", "states": ["focused", 3]}"#,
                (1, 41),
                "invalid type: integer `3`, expected a state name (a string)",
            ),
            (
                r#"{"role": null}"#,
                (1, 10),
                "invalid type: null, expected `role`: a role name (a string)",
            ),
            (
                r#"{"role": "frame", "bounds": [1, 2, 3]}"#,
                (1, 37),
                "`bounds` has 3 numbers; expected 4: [x, y, width, height]",
            ),
            (
                r#"{"role": "frame", "bounds": [1, 2, 3, "4"]}"#,
                (1, 39),
                "invalid type: string \"4\", expected `bounds` height: a number",
            ),
            (
                r#"{"role": "frame", "bounds": {"x": 1, "y": 2}}"#,
                (1, 44),
                "`bounds` lacks width, height",
            ),
            (
                r#"{"role": "frame", "bounds": [0, 0, 1e10, 1]}"#,
                (1, 36),
                "`bounds` width 10000000000 is out of range",
            ),
            (
                r#"{"role": "frame", "attributes": {"a": [1]}}"#,
                (1, 39),
                "invalid type: sequence, expected an attribute: a string, number, boolean or null",
            ),
            (
                r#"{"role": "frame", "children": {}}"#,
                (1, 31),
                "invalid type: map, expected `children`: an array of node objects",
            ),
            (
                r#"{"role": "frame", "children": ["label"]}"#,
                (1, 32),
                "invalid type: string \"label\", expected a node object",
            ),
            (r#"{"root": {"role": "a"}, "pid": -1}"#, (1, 32), "`pid` -1 is negative"),
            (
                r#"{"root": {"role": "a"}, "pid": 4294967296}"#,
                (1, 32),
                "`pid` 4294967296 is out of range (at most 4294967295)",
            ),
            (
                r#"{"root": {"role": "a"}, "app": 1}"#,
                (1, 32),
                "invalid type: integer `1`, expected `app`: a string or null",
            ),
            (
                r#"{"root": {"role": "a"}, "root": {"role": "b"}}"#,
                (1, 25),
                "duplicate field `root`",
            ),
            (
                r#"{"role": "a", "name": "x", "name": "y"}"#,
                (1, 28),
                "duplicate field `name`",
            ),
            (
                r#"{"root": null}"#,
                (1, 10),
                "invalid type: null, expected a node object",
            ),
            (
                "[[[[",
                (1, 1),
                "invalid type: sequence, expected a snapshot object (with `root`) or a node object (with `role`)",
            ),
        ];
    for &(text, position, message) in cases {
        let err = fail(text);
        assert_eq!(
            (at(&err), err.message.as_str()),
            (position, message),
            "{text}"
        );
    }
}

/// `{"root":` then `{"role":"a","children":[` `levels` times.
fn nested(levels: usize) -> String {
    let mut text = String::from(r#"{"root":"#);
    for _ in 0..levels {
        text.push_str(r#"{"role":"a","children":["#);
    }
    text
}

fn closed(levels: usize) -> String {
    let mut text = nested(levels);
    for _ in 0..levels {
        text.push_str("]}");
    }
    text.push('}');
    text
}

#[test]
fn max_depth_levels_are_read() {
    let snap = read(&closed(MAX_DEPTH));
    assert_eq!(snap.node_count(), MAX_DEPTH);
    assert_eq!(
        snap.tree().depth(NodeId(MAX_DEPTH as u32 - 1)),
        MAX_DEPTH - 1
    );
}

#[test]
fn deeper_nesting_is_an_error_not_a_stack_overflow() {
    let err = fail(&nested(100_000));
    // The first node too deep: the 1025th `{"role"...` prefix.
    let prefix = r#"{"role":"a","children":["#.len();
    assert_eq!(at(&err), (1, r#"{"root":"#.len() + MAX_DEPTH * prefix + 1));
    assert_eq!(err.message, "nodes nest deeper than 1024 levels");
    assert!(fail(&closed(MAX_DEPTH + 1))
        .message
        .contains("deeper than 1024"));

    let err = fail(&"[".repeat(100_000));
    assert_eq!(at(&err), (1, 1));
    let err = fail(&format!(r#"{{"role": {}"#, "[".repeat(100_000)));
    assert_eq!(at(&err), (1, 10));
    assert!(fail(&format!(
        r#"{{"role": "a", "name": {}"#,
        "{\"a\":".repeat(100_000)
    ))
    .message
    .starts_with("invalid type: map"));
}

#[test]
fn deep_unknown_fields_are_skipped_without_recursion() {
    let deep = format!(
        r#"{{"role": "frame", "extra": {}1{}}}"#,
        "[{\"a\":".repeat(50_000),
        "}]".repeat(50_000)
    );
    assert_eq!(read(&deep).node_count(), 1);
}

#[test]
fn more_than_max_nodes_is_an_error() {
    let limits = Limits {
        depth: MAX_DEPTH,
        nodes: 3,
    };
    let text = "{\"role\": \"list\", \"children\": [\n {\"role\": \"a\"},\n {\"role\": \"b\"},\n {\"role\": \"c\"}]}";
    let err = parse_with(text, limits).unwrap_err();
    assert_eq!(at(&err), (4, 2));
    assert_eq!(err.message, "the tree has more than 3 nodes");
    let ok = parse_with(&text.replace(",\n {\"role\": \"c\"}", ""), limits);
    assert_eq!(ok.map(|s| s.node_count()), Ok(3));
}

/// Fuzzing regression (see docs/fuzzing.md): unknown fields are skipped
/// by serde_json's skipper, which does not range-check numbers or pair
/// surrogates. Both are valid JSON syntax; in a field that is read they
/// are errors at the value.
#[test]
fn skipped_values_are_not_range_checked() {
    let snap = read(r#"{"role": "a", "chldren": 2333333E3334, "x": "\ud800"}"#);
    assert_eq!(snap.node_count(), 1);

    let err = fail(r#"{"role": "a", "name": 2333333E3334}"#);
    assert_eq!(
        (at(&err), err.message.as_str()),
        ((1, 23), "number out of range")
    );
    let err = fail(r#"{"role": "a", "name": "\ud800"}"#);
    assert_eq!(
        (at(&err), err.message.as_str()),
        ((1, 30), "unexpected end of hex escape")
    );
}

/// Fuzzing regression: a byte order mark before the document is skipped.
#[test]
fn a_byte_order_mark_is_skipped() {
    assert_eq!(read("\u{feff}{\"role\": \"frame\"}").node_count(), 1);
    let err = fail("\u{feff}{\"role\": 1}");
    assert_eq!(at(&err), (1, 10));
}

#[test]
fn opening_brace_skips_strings() {
    let text = r#"{"a": "{\"[", "b": [{"c": "}"}]}"#;
    assert_eq!(opening_brace(text, text.len(), 1), Some(0));
    assert_eq!(opening_brace(text, text.len(), 3), Some(20));
    assert_eq!(opening_brace(text, text.len(), 2), None);
}
