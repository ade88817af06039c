use super::*;
use crate::MAX_DEPTH;
use uidelta_model::StateSet;

const NS: &str = concat!(
    r#"xmlns:st="https://accessibility.ubuntu.example.org/ns/state" "#,
    r#"xmlns:attr="https://accessibility.ubuntu.example.org/ns/attributes" "#,
    r#"xmlns:cp="https://accessibility.ubuntu.example.org/ns/component" "#,
    r#"xmlns:doc="https://accessibility.ubuntu.example.org/ns/document" "#,
    r#"xmlns:docattr="https://accessibility.ubuntu.example.org/ns/document/attributes" "#,
    r#"xmlns:txt="https://accessibility.ubuntu.example.org/ns/text" "#,
    r#"xmlns:val="https://accessibility.ubuntu.example.org/ns/value" "#,
    r#"xmlns:act="https://accessibility.ubuntu.example.org/ns/action""#,
);

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

fn attributes(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|&(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

#[test]
fn reads_an_element_the_way_the_desktop_env_server_writes_it() {
    let text = format!(
        "<desktop-frame {NS} name=\"main\" st:enabled=\"true\"><application name=\"gtk3-widget-factory\" \
         st:enabled=\"true\" attr:toolkit=\"GTK\"><push-button name=\"Save &amp; quit\" \
         st:enabled=\"true\" st:focusable=\"true\" st:sensitive=\"true\" st:showing=\"true\" \
         st:visible=\"true\" st:has_tooltip=\"true\" attr:toolkit=\"GTK\" attr:description=\"Saves\" \
         cp:screencoord=\"(892, 512)\" cp:size=\"(80, 30)\" image=\"true\" \
         act:click_desc=\"Clicks the button\" act:click_kb=\"&lt;Alt&gt;s\"/></application></desktop-frame>"
    );
    let snap = read(&text);
    assert_eq!(
        snap.meta,
        Meta {
            source: "osworld".into(),
            ..Meta::default()
        }
    );
    let tree = snap.tree();
    assert_eq!(tree.len(), 3);
    let root = tree.node(NodeId::ROOT);
    assert_eq!(
        (root.role, root.raw_role.as_str()),
        (Role::DesktopFrame, "desktop frame")
    );
    assert_eq!(tree.node(NodeId(1)).role, Role::Application);
    assert_eq!(tree.depth(NodeId(2)), 2);
    assert_eq!(
        tree.node(NodeId(2)),
        &NodeData {
            role: Role::PushButton,
            raw_role: "push button".into(),
            name: "Save & quit".into(),
            value: None,
            description: "Saves".into(),
            states: StateSet::of(&[
                State::Enabled,
                State::Focusable,
                State::Sensitive,
                State::Showing,
                State::Visible,
                State::HasTooltip,
            ]),
            bounds: Some(Rect::new(892, 512, 80, 30)),
            attributes: attributes(&[
                ("act:click_desc", "Clicks the button"),
                ("act:click_kb", "<Alt>s"),
                ("image", "true"),
                ("toolkit", "GTK"),
            ]),
            identity: None,
            unread: Default::default(),
        }
    );
}

#[test]
fn text_is_the_value_and_val_value_stands_in_when_there_is_none() {
    let text = format!(
        "<frame {NS} name=\"f\"><entry name=\"Name\" st:editable=\"true\">Ada\r\nLovelace</entry>\
         <slider name=\"Volume\" val:value=\"50.0\" val:min=\"0.0\" val:max=\"100.0\" val:step=\"1.0\"/>\
         <spin-button name=\"Count\" val:value=\"5.0\">5</spin-button><label name=\"empty\"></label>\
         <text name=\"Field\"/><panel name=\"Form\" st:editable=\"true\"></panel></frame>"
    );
    let snap = read(&text);
    let tree = snap.tree();
    let entry = tree.node(NodeId(1));
    assert_eq!(entry.value.as_deref(), Some("Ada\nLovelace"));
    let slider = tree.node(NodeId(2));
    assert_eq!(slider.value.as_deref(), Some("50.0"));
    assert_eq!(
        slider.attributes,
        attributes(&[
            ("val:max", "100.0"),
            ("val:min", "0.0"),
            ("val:step", "1.0")
        ])
    );
    let spin = tree.node(NodeId(3));
    assert_eq!(spin.value.as_deref(), Some("5"));
    assert_eq!(spin.attribute("val:value"), Some("5.0"));
    assert_eq!(tree.node(NodeId(4)).value, None);
    // OSWorld writes no empty text; a text field has an empty value, as
    // uidelta's capture gives it.
    assert_eq!(tree.node(NodeId(5)).value.as_deref(), Some(""));
    assert_eq!(tree.node(NodeId(6)).value.as_deref(), Some(""));
}

#[test]
fn indentation_around_children_is_not_text() {
    let text = format!(
        "<?xml version='1.0'?>\n<!-- pretty-printed -->\n<frame {NS} name=\"f\">\n  <label name=\"a\">  two spaces  </label>\n  <panel name=\"p\">\n    <label name=\"b\"/>\n  </panel>\n</frame>\n"
    );
    let snap = read(&text);
    let tree = snap.tree();
    assert_eq!(tree.node(NodeId::ROOT).value, None);
    assert_eq!(
        tree.node(NodeId(1)).value.as_deref(),
        Some("  two spaces  ")
    );
    assert_eq!(tree.node(NodeId(2)).value, None);
    assert_eq!(tree.children(NodeId(2)), &[NodeId(3)]);
}

#[test]
fn namespaces_are_recognized_by_uri_whatever_their_prefix() {
    let snap = read(
        "<w:frame xmlns:w=\"urn:x\" xmlns:s=\"https://accessibility.windows.example.org/ns/state\" \
         xmlns:k=\"https://accessibility.windows.example.org/ns/class\" \
         xmlns:a=\"https://accessibility.ubuntu.example.org/ns/attributes\" \
         xmlns:o=\"urn:other\" name=\"x\" s:enabled=\"false\" s:visible=\"true\" \
         s:minimized=\"false\" s:sparkly=\"true\" k:class_name=\"notepad\" a:id=\"7\" o:thing=\"1\"/>",
    );
    let node = snap.tree().node(NodeId::ROOT);
    assert_eq!(node.raw_role, "frame");
    assert_eq!(node.states, StateSet::of(&[State::Visible]));
    assert_eq!(
        node.attributes,
        attributes(&[
            ("class:class_name", "notepad"),
            ("id", "7"),
            ("o:thing", "1"),
            ("state:minimized", "false"),
            ("state:sparkly", "true"),
        ])
    );
}

#[test]
fn roles_are_element_names_with_dashes_as_spaces() {
    let role = |tag: &str| {
        let snap = read(&format!("<{tag} name=\"\"/>"));
        let node = snap.tree().node(NodeId::ROOT).clone();
        (node.role, node.raw_role)
    };
    assert_eq!(role("check-box"), (Role::CheckBox, "check box".into()));
    assert_eq!(
        role("page-tab-list"),
        (Role::PageTabList, "page tab list".into())
    );
    assert_eq!(role("unknown"), (Role::Unknown, "unknown".into()));
    assert_eq!(role("gizmo"), (Role::Unknown, "gizmo".into()));
}

#[test]
fn password_text_is_redacted() {
    let snap = read("<password-text name=\"Password\">hunter2</password-text>");
    assert_eq!(
        snap.tree().node(NodeId::ROOT).value.as_deref(),
        Some("\u{2022}".repeat(7).as_str())
    );
}

#[test]
fn malformed_trees_are_errors_at_their_line_and_column() {
    let cases: &[(&str, (usize, usize), &str)] = &[
        ("", (1, 1), "no elements"),
        ("  \n <!-- only -->", (2, 15), "no elements"),
        ("<a><b></a>", (1, 7), "`</a>` does not close `<b>`"),
        ("<a/></a>", (1, 5), "`</a>` closes no open element"),
        ("<a/><b/>", (1, 5), "a second root element; a document has one"),
        ("<a>\n<b>", (2, 4), "`<b>` is not closed"),
        ("x<a/>", (1, 1), "text outside the root element"),
        ("<a><b/>late</a>", (1, 8), "text after a child element: OSWorld writes an element's text before its children"),
        ("<a st:x=\"true\"/>", (1, 4), "the namespace prefix `st` is not declared"),
        ("<p:a/>", (1, 1), "the namespace prefix `p` is not declared"),
        (
            "<a xmlns:cp=\"https://accessibility.ubuntu.example.org/ns/component\"\n cp:screencoord=\"(1, 2)\"/>",
            (2, 2),
            "`cp:screencoord` without the size (`cp:size`)",
        ),
        (
            "<a xmlns:cp=\"https://accessibility.ubuntu.example.org/ns/component\" cp:size=\"(1, 2)\"/>",
            (1, 69),
            "`cp:size` without the position (`cp:screencoord`)",
        ),
        (
            "<a xmlns:cp=\"https://accessibility.ubuntu.example.org/ns/component\" cp:screencoord=\"[1, 2]\" cp:size=\"(1, 2)\"/>",
            (1, 85),
            "`cp:screencoord` is `[1, 2]`, not two whole-pixel numbers `(x, y)`",
        ),
        (
            "<a xmlns:cp=\"https://accessibility.ubuntu.example.org/ns/component\" cp:screencoord=\"(1, 2)\" cp:size=\"(1, 99999999999)\"/>",
            (1, 102),
            "`cp:size` is `(1, 99999999999)`, not two whole-pixel numbers `(w, h)`",
        ),
        (
            "<a xmlns:x=\"https://accessibility.ubuntu.example.org/ns/attributes\" image=\"true\" x:image=\"1\"/>",
            (1, 82),
            "the attribute `image` is given twice",
        ),
        ("<é a='1' a='2'/>", (1, 10), "the attribute `a` is given twice"),
    ];
    for &(text, position, message) in cases {
        let err = fail(text);
        assert_eq!(
            ((err.line, err.column), err.message.as_str()),
            (position, message),
            "{text:?}"
        );
        assert_eq!(err.format, InputFormat::Osworld);
    }
    assert_eq!(
        fail("<a><b></a>").to_string(),
        "OSWorld XML input, line 1, column 7: `</a>` does not close `<b>`"
    );
}

fn staircase(levels: usize) -> String {
    let mut text = "<panel>".repeat(levels);
    text.push_str(&"</panel>".repeat(levels));
    text
}

#[test]
fn max_depth_levels_are_read_and_deeper_is_an_error_not_a_stack_overflow() {
    let snap = read(&staircase(MAX_DEPTH));
    assert_eq!(snap.node_count(), MAX_DEPTH);
    let err = fail(&staircase(100 * MAX_DEPTH));
    assert_eq!((err.line, err.column), (1, 7 * MAX_DEPTH + 1));
    assert_eq!(err.message, "elements nest deeper than 1024 levels");
}

#[test]
fn more_than_max_nodes_is_an_error() {
    let limits = Limits {
        depth: MAX_DEPTH,
        nodes: 3,
    };
    let err = match parse_with("<list><item/><item/>\n<item/></list>", limits) {
        Ok(_) => panic!("read more than 3 nodes"),
        Err(err) => err,
    };
    assert_eq!((err.line, err.column), (2, 1));
    assert_eq!(err.message, "the tree has more than 3 nodes");
    assert!(parse_with("<list><item/><item/></list>", limits).is_ok());
}

#[test]
fn namespace_kinds_come_from_the_uri() {
    assert_eq!(
        kind("https://accessibility.ubuntu.example.org/ns/state"),
        Some("state")
    );
    assert_eq!(
        kind("https://accessibility.windows.example.org/ns/document/attributes"),
        Some("document/attributes")
    );
    assert_eq!(kind("https://accessibility.ubuntu.example.org/ns/"), None);
    assert_eq!(kind("https://example.org/ns/state"), None);
    assert_eq!(number("-3.5"), Some(-4));
    assert_eq!(number("1e3"), None);
}
