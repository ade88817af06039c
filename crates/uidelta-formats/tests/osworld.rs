//! OSWorld's XML, as uidelta-render writes it, reads back as the snapshot it
//! was written from, for everything the format can hold; and two trees that
//! went through it diff as the trees themselves do.

use proptest::prelude::*;
use uidelta_diff::{compare, Filters, View};
use uidelta_model::{Meta, NodeData, NodeId, Role, Snapshot, State, Tree, TreeBuilder};

fn write(snapshot: &Snapshot) -> String {
    uidelta_render::tree_osworld(&View::new(snapshot, Filters::none()))
}

fn read(xml: &str) -> Snapshot {
    match uidelta_formats::osworld::parse(xml) {
        Ok(snapshot) => snapshot,
        Err(err) => panic!("{err}\n{xml}"),
    }
}

fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

fn clean(text: &str) -> String {
    text.chars().filter(|&c| is_xml_char(c)).collect()
}

fn is_ncname(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn is_range(role: Role) -> bool {
    matches!(
        role,
        Role::Slider | Role::ScrollBar | Role::ProgressBar | Role::LevelBar | Role::Dial
    )
}

/// What the format holds of a node: no identity; text without the
/// characters XML cannot hold; the description in `attr:description`; only
/// attribute keys that are XML names (or known prefixes and an XML name);
/// no empty text, nor blank text before children; `val:value` standing in
/// for a missing text, and an empty one in a text field.
fn representable(node: &NodeData, has_children: bool) -> NodeData {
    let mut out = NodeData::new(node.role);
    out.raw_role = node.raw_role.clone();
    out.name = clean(&node.name);
    out.states = node.states;
    out.bounds = node.bounds;
    let description = if node.description.is_empty() {
        node.attribute("description")
    } else {
        Some(node.description.as_str())
    };
    out.description = description.map(clean).unwrap_or_default();
    for (key, value) in &node.attributes {
        let keep = match key.split_once(':') {
            None => key != "description" && is_ncname(key),
            Some(("state", local)) if is_ncname(local) => match State::from_name(local) {
                Some(state) => {
                    if value == "true" {
                        out.states.insert(state);
                    }
                    false
                }
                None => true,
            },
            Some(("cp", "screencoord" | "size")) => false,
            Some((prefix, local)) => {
                ["cp", "val", "act", "txt", "doc", "docattr", "class", "role"].contains(&prefix)
                    && is_ncname(local)
            }
        };
        if keep {
            out.set_attribute(key.clone(), clean(value));
        }
    }
    let current_value = is_range(node.role) && out.attribute("val:value").is_none();
    out.value = if current_value {
        node.value.as_deref().map(clean)
    } else {
        let text = node
            .value
            .as_deref()
            .map(clean)
            .filter(|t| !t.is_empty())
            .filter(|t| !(has_children && t.chars().all(|c| " \t\n\r".contains(c))));
        match text {
            Some(text) => Some(text),
            None => match out.remove_attribute("val:value") {
                Some(current) => Some(current),
                None if reads_as_text(&out) => Some(String::new()),
                None => None,
            },
        }
    };
    out
}

/// A text role, or anything editable: no text reads as an empty value.
fn reads_as_text(node: &NodeData) -> bool {
    matches!(
        node.role,
        Role::Entry | Role::Text | Role::PasswordText | Role::Terminal | Role::DocumentText
    ) || node.states.contains(State::Editable)
}

fn representable_tree(tree: &Tree) -> Tree {
    let data = |id: NodeId| representable(tree.node(id), !tree.children(id).is_empty());
    let mut out = TreeBuilder::new(data(tree.root()));
    for id in tree.ids().skip(1) {
        let depth = tree.depth(id);
        while out.depth() >= depth {
            out.close();
        }
        out.open(data(id));
    }
    out.finish()
}

/// Changes that synth trees never have: odd names, values, descriptions
/// and attribute keys, on nodes picked by index.
fn odd_text() -> impl Strategy<Value = Vec<(usize, String, String, String)>> {
    prop::collection::vec(
        (
            any::<usize>(),
            "(?s).{0,12}",
            "[ \t\r\n]{0,2}|(?s).{0,12}",
            "[a-z]{1,6}|(state|val|act|cp|attr|x):[a-z_ ]{0,6}|description|image|[0-9 ]{1,3}",
        ),
        0..12,
    )
}

fn with_odd_text(snapshot: &Snapshot, edits: &[(usize, String, String, String)]) -> Snapshot {
    let mut tree = snapshot.tree().clone();
    for (i, (pick, text, value, key)) in edits.iter().enumerate() {
        let id = NodeId((pick % tree.len()) as u32);
        let node = tree.node_mut(id);
        match i % 4 {
            0 => node.name = text.clone(),
            1 => node.value = Some(value.clone()),
            2 => node.description = text.clone(),
            _ => node.set_attribute(key.clone(), text.clone()),
        }
    }
    Snapshot::new(snapshot.meta.clone(), tree)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn written_xml_reads_back_as_the_snapshot(
        seed in any::<u64>(),
        size in 60usize..1500,
        edits in odd_text(),
    ) {
        let snapshot = with_odd_text(&uidelta_synth::app(size, seed), &edits);
        let back = read(&write(&snapshot));
        prop_assert_eq!(&back.meta, &Meta { source: "osworld".into(), ..Meta::default() });
        let expected = representable_tree(snapshot.tree());
        for id in expected.ids() {
            prop_assert_eq!(back.tree().get(id), Some(expected.node(id)), "node {}", id.0);
            prop_assert_eq!(back.tree().children(id), expected.children(id));
        }
        prop_assert_eq!(back.tree().len(), expected.len());
    }

    #[test]
    fn trees_diff_the_same_through_osworld_xml(
        seed in any::<u64>(),
        size in 60usize..1500,
        fraction in 0.0f64..0.1,
    ) {
        let before = uidelta_synth::app(size, seed);
        let after = uidelta_synth::mutate(&before, fraction, seed ^ 1).snapshot;
        let direct = compare(&before, &after, Filters::all());
        let through = compare(&read(&write(&before)), &read(&write(&after)), Filters::all());
        prop_assert_eq!(
            uidelta_render::diff_json(&through.diff),
            uidelta_render::diff_json(&direct.diff)
        );
    }
}

/// The repository's root.
fn root_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A real capture of gtk3-widget-factory (pyatspi, as OSWorld walks it).
fn capture(name: &str) -> Snapshot {
    let path = root_dir().join(format!("examples/widget-factory/{name}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    uidelta_formats::json::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Compares `text` with the golden file `fixtures/osworld/<file>`, or
/// writes it there when `UIDELTA_UPDATE_GOLDEN` is set.
fn golden(file: &str, text: &str) {
    let path = root_dir().join("fixtures/osworld").join(file);
    if std::env::var_os("UIDELTA_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "reading {}: {e} (UIDELTA_UPDATE_GOLDEN=1 writes it)",
            path.display()
        )
    });
    assert!(
        expected == text,
        "{} differs from what is written now (UIDELTA_UPDATE_GOLDEN=1 rewrites it)",
        path.display()
    );
}

#[test]
fn widget_factory_captures_write_the_golden_xml_and_table() {
    for name in ["01-start", "02-checked"] {
        let snapshot = capture(name);
        let view = View::new(&snapshot, Filters::none());
        let xml = uidelta_render::tree_osworld(&view);
        golden(&format!("widget-factory-{name}.xml"), &xml);
        golden(
            &format!("widget-factory-{name}.tsv"),
            &uidelta_render::tree_osworld_table(&view),
        );
        // The golden XML reads back as the capture, but for identities.
        let back = read(&xml);
        assert_eq!(back.tree(), &representable_tree(snapshot.tree()), "{name}");
    }
}

/// The snapshot without platform identities, which OSWorld's XML has none of.
fn without_identities(snapshot: &Snapshot) -> Snapshot {
    let mut tree = snapshot.tree().clone();
    for id in tree.ids() {
        tree.node_mut(id).identity = None;
    }
    Snapshot::new(snapshot.meta.clone(), tree)
}

#[test]
fn widget_factory_diffs_are_the_same_from_osworld_xml_as_from_json() {
    let names = [
        "01-start",
        "02-checked",
        "03-typed",
        "04-notebook-tab",
        "05-page2",
        "06-about",
        "07-about-closed",
        "08-moved",
    ];
    let through_xml = |s: &Snapshot| read(&write(s));
    let counts = |c: &uidelta_diff::Compared| {
        serde_json::from_str::<serde_json::Value>(&uidelta_render::diff_json(&c.diff))
            .map(|v| v["counts"].to_string())
            .unwrap_or_default()
    };
    for pair in names.windows(2) {
        let (before, after) = (capture(pair[0]), capture(pair[1]));
        for filters in [Filters::all(), Filters::none()] {
            let from_json = compare(&before, &after, filters);
            let from_xml = compare(&through_xml(&before), &through_xml(&after), filters);
            let (json, xml) = (
                uidelta_render::diff_json(&from_json.diff),
                uidelta_render::diff_json(&from_xml.diff),
            );
            // The XML has no platform identities. Where the application
            // swaps a whole stack page (page 1 for page 2), they are what
            // tells the old page's elements from the new page's: without
            // them, matching pairs some look-alikes across the two pages
            // (a spin button with a spin button), as it does for any
            // capture without identities.
            if pair == ["04-notebook-tab", "05-page2"] && filters.is_on(uidelta_diff::Rule::Bounds)
            {
                assert_eq!(
                    counts(&from_json),
                    r#"{"added":33,"modified":2,"removed":69}"#
                );
                assert_eq!(
                    counts(&from_xml),
                    r#"{"added":22,"modified":12,"removed":58}"#
                );
                let anonymous = compare(
                    &without_identities(&before),
                    &without_identities(&after),
                    filters,
                );
                assert_eq!(xml, uidelta_render::diff_json(&anonymous.diff));
                continue;
            }
            assert_eq!(xml, json, "{} -> {}", pair[0], pair[1]);
        }
    }
}

/// Pieces of OSWorld XML, to make texts that are nearly XML.
fn xml_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<".to_owned()),
        Just(">".to_owned()),
        Just("/>".to_owned()),
        Just("</".to_owned()),
        Just("<push-button name=\"OK\"".to_owned()),
        Just("<frame xmlns:st=\"https://accessibility.ubuntu.example.org/ns/state\" ".to_owned()),
        Just(" xmlns:cp=\"https://accessibility.ubuntu.example.org/ns/component\"".to_owned()),
        Just(" st:focused=\"true\"".to_owned()),
        Just(" cp:screencoord=\"(1, 2)\" cp:size=\"(3, 4)\"".to_owned()),
        Just("</frame>".to_owned()),
        Just("&amp;&#10;&#x1F600;&".to_owned()),
        Just("<![CDATA[x]]>".to_owned()),
        Just("<!-- c -->".to_owned()),
        Just("\r\n".to_owned()),
        "(?s).{0,6}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// No input panics, and an error points inside the text (or just past it).
    #[test]
    fn any_text_reads_or_fails_inside_it(pieces in prop::collection::vec(xml_piece(), 0..40)) {
        let text: String = pieces.concat();
        for format in [uidelta_formats::InputFormat::Osworld, uidelta_formats::InputFormat::MacosUse] {
            match uidelta_formats::parse(&text, Some(format)) {
                Ok(snapshot) => prop_assert!(snapshot.node_count() >= 1),
                Err(err) => {
                    let lines = text.split('\n').count();
                    prop_assert!(err.line >= 1 && err.line <= lines, "{err}");
                    let width = text.split('\n').nth(err.line - 1).map_or(0, |l| l.chars().count());
                    prop_assert!(err.column >= 1 && err.column <= width + 1, "{err}");
                    prop_assert_eq!(err.format, format);
                }
            }
        }
    }
}
