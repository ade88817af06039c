//! OSWorld's accessibility-tree XML, and the table OSWorld's agents are
//! prompted with, so that a research harness built on OSWorld can be fed
//! what uidelta captures and the two can be compared token for token.
//!
//! The XML is what OSWorld's desktop-env server writes for AT-SPI (one
//! element per object, named after its role with dashes for spaces; `st:`
//! states, `attr:` object attributes, `cp:` position and size, `val:` the
//! Value interface, text as the element's text before its children), on one
//! line, without an XML declaration. The table is OSWorld's linearization:
//! a header and one tab-separated row per element its heuristic keeps (a
//! role it lists, showing and visible, enabled or editable, expandable or
//! checkable, with a name or text, and with bounds on screen). The
//! mapping is documented in `docs/formats.md`, and `uidelta-formats` reads
//! the XML back.

use std::borrow::Cow;

use uidelta_diff::View;
use uidelta_model::{NodeData, Role, State, Tree};

/// The namespaces OSWorld binds on Ubuntu, in its order.
const NAMESPACES: [(&str, &str); 8] = [
    ("st", "https://accessibility.ubuntu.example.org/ns/state"),
    (
        "attr",
        "https://accessibility.ubuntu.example.org/ns/attributes",
    ),
    (
        "cp",
        "https://accessibility.ubuntu.example.org/ns/component",
    ),
    (
        "doc",
        "https://accessibility.ubuntu.example.org/ns/document",
    ),
    (
        "docattr",
        "https://accessibility.ubuntu.example.org/ns/document/attributes",
    ),
    ("txt", "https://accessibility.ubuntu.example.org/ns/text"),
    ("val", "https://accessibility.ubuntu.example.org/ns/value"),
    ("act", "https://accessibility.ubuntu.example.org/ns/action"),
];

/// Namespaces of OSWorld's other platforms, declared only when a snapshot
/// read from one of them has such attributes (`class:` on Windows, `role:`
/// on macOS).
const OTHER_NAMESPACES: [(&str, &str); 2] = [
    (
        "class",
        "https://accessibility.windows.example.org/ns/class",
    ),
    ("role", "https://accessibility.macos.example.org/ns/role"),
];

/// Attribute prefixes written as themselves: the snapshot keeps attributes
/// of these namespaces under the prefix OSWorld binds them to.
const PREFIXED: [&str; 8] = ["cp", "val", "act", "txt", "doc", "docattr", "class", "role"];

/// The header of OSWorld's table.
const TABLE_HEADER: &str =
    "tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)";

/// The view as OSWorld's accessibility-tree XML. The view's root is the
/// document element (OSWorld's own captures have a `desktop-frame` root
/// with one `application` per program). A snapshot's metadata, platform
/// identities and whatever XML cannot hold (an attribute key that is not an
/// XML name, characters XML does not allow) are left out.
pub fn tree_osworld(view: &View) -> String {
    let tree = view.tree();
    let mut out = String::new();
    let mut open: Vec<Cow<'_, str>> = Vec::new();
    for id in tree.ids() {
        while open.len() > tree.depth(id) {
            close(&mut out, open.pop().unwrap_or_default().as_ref());
        }
        let node = tree.node(id);
        let tag = tag(node);
        out.push('<');
        out.push_str(&tag);
        if id == tree.root() {
            declare_namespaces(&mut out, tree);
        }
        attributes(&mut out, node);
        let text = text(node);
        match (tree.children(id).is_empty(), text) {
            (true, None) => out.push_str("/>"),
            (true, Some(text)) => {
                out.push('>');
                escape(&mut out, text, false);
                close(&mut out, &tag);
            }
            (false, text) => {
                out.push('>');
                if let Some(text) = text {
                    escape(&mut out, text, false);
                }
                open.push(tag);
            }
        }
    }
    while let Some(tag) = open.pop() {
        close(&mut out, &tag);
    }
    out.push('\n');
    out
}

/// The view as the table OSWorld's agents read (`linearize_accessibility_tree`):
/// `tag`, `name`, `text`, `class`, `description`, `position (top-left x&y)`
/// and `size (w&h)` separated by tabs, one row per element OSWorld's filter
/// keeps, in document order. A text holding `"` is quoted CSV-style; no
/// text is `""`. Class and description come from the `attr:` namespace;
/// OSWorld's reference agent looks them up in its Windows namespace on
/// Ubuntu too, so in its own prompts these two columns are empty.
pub fn tree_osworld_table(view: &View) -> String {
    let mut out = String::from(TABLE_HEADER);
    out.push('\n');
    for node in view.tree().nodes() {
        let Some(bounds) = node.bounds.filter(|_| kept(node)) else {
            continue;
        };
        let text = match text(node) {
            Some(text) if text.contains('"') => {
                format!("\"{}\"", xml_chars(text).replace('"', "\"\""))
            }
            Some(text) => xml_chars(text).into_owned(),
            None => "\"\"".to_owned(),
        };
        let columns = [
            tag(node).into_owned(),
            xml_chars(&node.name).into_owned(),
            text,
            xml_chars(node.attribute("class").unwrap_or_default()).into_owned(),
            xml_chars(description(node).unwrap_or_default()).into_owned(),
            format!("({}, {})", bounds.x, bounds.y),
            format!("({}, {})", bounds.w, bounds.h),
        ];
        out.push_str(&columns.join("\t"));
        out.push('\n');
    }
    out
}

/// OSWorld's filter (`judge_node` in its heuristic retrieval, for Ubuntu).
fn kept(node: &NodeData) -> bool {
    const ENDINGS: [&str; 12] = [
        "item",
        "button",
        "heading",
        "label",
        "scrollbar",
        "searchbox",
        "textbox",
        "link",
        "tabelement",
        "textfield",
        "textarea",
        "menu",
    ];
    const TAGS: [&str; 22] = [
        "alert",
        "canvas",
        "check-box",
        "combo-box",
        "entry",
        "icon",
        "image",
        "paragraph",
        "scroll-bar",
        "section",
        "slider",
        "static",
        "table-cell",
        "terminal",
        "text",
        "netuiribbontab",
        "start",
        "trayclockwclass",
        "traydummysearchcontrol",
        "uiimage",
        "uiproperty",
        "uiribboncommandbar",
    ];
    let tag = tag(node);
    let listed = tag.starts_with("document")
        || ENDINGS.iter().any(|e| tag.ends_with(e))
        || TAGS.contains(&tag.as_ref());
    let states = node.states;
    let on_screen = states.contains(State::Showing) && states.contains(State::Visible);
    let usable = [
        State::Enabled,
        State::Editable,
        State::Expandable,
        State::Checkable,
    ]
    .iter()
    .any(|&s| states.contains(s));
    let said = !node.name.is_empty() || text(node).is_some();
    let placed = node
        .bounds
        .is_some_and(|b| b.x >= 0 && b.y >= 0 && b.w > 0 && b.h > 0);
    listed && on_screen && usable && said && placed
}

/// The element name: the platform's role with dashes for spaces, as OSWorld
/// names it (`push-button`); the normalized role when that is not an XML
/// name or would read back differently; `unknown` when there is none.
fn tag(node: &NodeData) -> Cow<'_, str> {
    let raw = node.raw_role.trim();
    if raw.is_empty() {
        return Cow::Borrowed("unknown");
    }
    if !raw.contains('-') {
        let dashed = raw.replace(' ', "-");
        if is_ncname(&dashed) {
            return Cow::Owned(dashed);
        }
    }
    Cow::Owned(node.role.as_str().replace(' ', "-"))
}

/// Roles whose value is a number from the Value interface, written as
/// `val:value` (OSWorld gives them no text).
fn is_range(role: Role) -> bool {
    matches!(
        role,
        Role::Slider | Role::ScrollBar | Role::ProgressBar | Role::LevelBar | Role::Dial
    )
}

/// Where the value goes: `val:value` for a range whose `val:value` is not
/// already kept as an attribute, the element's text otherwise.
fn value_is_current_value(node: &NodeData) -> bool {
    is_range(node.role) && node.attribute("val:value").is_none()
}

/// The element's text: the value, unless it is written as `val:value`.
fn text(node: &NodeData) -> Option<&str> {
    node.value
        .as_deref()
        .filter(|v| !v.is_empty() && !value_is_current_value(node))
}

/// The description, written as `attr:description`: the node's own, or an
/// object attribute of that name when it has none.
fn description(node: &NodeData) -> Option<&str> {
    if node.description.is_empty() {
        node.attribute("description")
    } else {
        Some(&node.description)
    }
}

fn declare_namespaces(out: &mut String, tree: &Tree) {
    for (prefix, uri) in NAMESPACES {
        push_attribute(out, &format!("xmlns:{prefix}"), uri);
    }
    for (prefix, uri) in OTHER_NAMESPACES {
        let start = format!("{prefix}:");
        let used = tree
            .nodes()
            .iter()
            .any(|n| n.attributes.iter().any(|(k, _)| k.starts_with(&start)));
        if used {
            push_attribute(out, &format!("xmlns:{prefix}"), uri);
        }
    }
}

fn attributes(out: &mut String, node: &NodeData) {
    push_attribute(out, "name", &node.name);
    for &state in State::ALL {
        if node.states.contains(state) {
            push_attribute(
                out,
                &format!("st:{}", state.as_str().replace(' ', "_")),
                "true",
            );
        }
    }
    for (key, value) in &node.attributes {
        if let Some(state) = key.strip_prefix("state:").filter(|s| is_ncname(s)) {
            push_attribute(out, &format!("st:{state}"), value);
        }
    }
    let description = description(node);
    let mut described = false;
    for (key, value) in &node.attributes {
        // The text selected in a field is uidelta's, not an object
        // attribute pyatspi would list.
        if key == "description"
            || key == "image"
            || key == "selection"
            || key == uidelta_model::SELECTION
            || !is_ncname(key)
        {
            continue;
        }
        if let Some(d) = description.filter(|_| !described && key.as_str() > "description") {
            push_attribute(out, "attr:description", d);
            described = true;
        }
        push_attribute(out, &format!("attr:{key}"), value);
    }
    if let Some(d) = description.filter(|_| !described) {
        push_attribute(out, "attr:description", d);
    }
    if let Some(b) = node.bounds {
        push_attribute(out, "cp:screencoord", &format!("({}, {})", b.x, b.y));
        push_attribute(out, "cp:size", &format!("({}, {})", b.w, b.h));
    }
    for key in ["image", "selection"] {
        if let Some(value) = node.attribute(key) {
            push_attribute(out, key, value);
        }
    }
    if let Some(value) = node
        .value
        .as_deref()
        .filter(|_| value_is_current_value(node))
    {
        push_attribute(out, "val:value", value);
    }
    for prefix in PREFIXED {
        for (key, value) in &node.attributes {
            let local = key
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_prefix(':'));
            // The position and size are the bounds' own.
            let bounds = prefix == "cp" && matches!(local, Some("screencoord" | "size"));
            if let Some(local) = local.filter(|l| is_ncname(l) && !bounds) {
                push_attribute(out, &format!("{prefix}:{local}"), value);
            }
        }
    }
}

/// ` key="value"`.
fn push_attribute(out: &mut String, key: &str, value: &str) {
    out.push(' ');
    out.push_str(key);
    out.push_str("=\"");
    escape(out, value, true);
    out.push('"');
}

fn close(out: &mut String, tag: &str) {
    out.push_str("</");
    out.push_str(tag);
    out.push('>');
}

/// Escapes as lxml does (`&`, `<`, `>`; in attributes also `"` and line
/// ends and tabs, which XML would otherwise read as spaces), leaving out
/// characters XML cannot hold.
fn escape(out: &mut String, text: &str, attribute: bool) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => out.push_str("&#13;"),
            '"' if attribute => out.push_str("&quot;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            c if is_xml_char(c) => out.push(c),
            _ => {}
        }
    }
}

/// `text` without the characters XML cannot hold, which OSWorld's table
/// (read from XML) never shows.
fn xml_chars(text: &str) -> Cow<'_, str> {
    if text.chars().all(is_xml_char) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.chars().filter(|&c| is_xml_char(c)).collect())
    }
}

/// XML 1.0's `Char`.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// An XML name without a colon (`NCName`), which an element or an
/// attribute's local part must be.
fn is_ncname(name: &str) -> bool {
    let start = |c: char| {
        matches!(c,
            'A'..='Z' | '_' | 'a'..='z'
            | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}' | '\u{F8}'..='\u{2FF}'
            | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}' | '\u{200C}'..='\u{200D}'
            | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}' | '\u{3001}'..='\u{D7FF}'
            | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}' | '\u{10000}'..='\u{EFFFF}')
    };
    let mut chars = name.chars();
    chars.next().is_some_and(start)
        && chars.all(|c| {
            start(c)
                || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
        })
}

#[cfg(test)]
mod tests {
    use uidelta_diff::Filters;
    use uidelta_model::{Meta, NodeData, Rect, Snapshot, StateSet, TreeBuilder};

    use super::*;

    fn view(tree: TreeBuilder) -> View {
        View::new(
            &Snapshot::new(Meta::default(), tree.finish()),
            Filters::none(),
        )
    }

    fn button(name: &str) -> NodeData {
        let mut b = NodeData::named(Role::PushButton, name);
        b.states = StateSet::of(&[
            State::Enabled,
            State::Sensitive,
            State::Showing,
            State::Visible,
            State::Focusable,
        ]);
        b.bounds = Some(Rect::new(10, 20, 80, 30));
        b
    }

    #[test]
    fn writes_elements_attributes_and_text_as_the_server_does() {
        let mut frame = NodeData::named(Role::Frame, "Notes");
        frame.set_attribute("toolkit", "GTK");
        let mut tree = TreeBuilder::new(frame);
        let mut b = button("Save & \"quit\"");
        b.description = "Saves\nthe file".into();
        b.set_attribute("image", "true");
        b.set_attribute("act:click_kb", "<Alt>s");
        b.set_attribute("state:sparkly", "true");
        b.set_attribute("not a name", "dropped");
        tree.leaf(b);
        let mut entry = NodeData::named(Role::Entry, "Text");
        entry.value = Some("a < b\r\n".into());
        // uidelta's own, which pyatspi does not list.
        entry.set_attribute(uidelta_model::SELECTION, "a <");
        tree.leaf(entry);
        let mut slider = NodeData::named(Role::Slider, "Volume");
        slider.value = Some("50".into());
        tree.leaf(slider);
        let xml = tree_osworld(&view(tree));
        let ns: String = NAMESPACES
            .iter()
            .map(|(p, u)| format!(" xmlns:{p}=\"{u}\""))
            .collect();
        assert_eq!(
            xml,
            format!(
                "<frame{ns} name=\"Notes\" attr:toolkit=\"GTK\">\
                 <push-button name=\"Save &amp; &quot;quit&quot;\" st:enabled=\"true\" \
                 st:focusable=\"true\" st:sensitive=\"true\" st:showing=\"true\" st:visible=\"true\" \
                 st:sparkly=\"true\" attr:description=\"Saves&#10;the file\" \
                 cp:screencoord=\"(10, 20)\" cp:size=\"(80, 30)\" image=\"true\" act:click_kb=\"&lt;Alt&gt;s\"/>\
                 <entry name=\"Text\">a &lt; b&#13;\n</entry>\
                 <slider name=\"Volume\" val:value=\"50\"/></frame>\n"
            )
        );
    }

    #[test]
    fn tags_are_roles_with_dashes_and_fall_back_to_the_normalized_role() {
        let tag_of = |raw: &str, role: Role| {
            let mut n = NodeData::new(role);
            n.raw_role = raw.into();
            tag(&n).into_owned()
        };
        assert_eq!(tag_of("push button", Role::PushButton), "push-button");
        assert_eq!(tag_of("StaticText", Role::Static), "StaticText");
        assert_eq!(tag_of("AXButton (button)", Role::PushButton), "push-button");
        assert_eq!(tag_of("x-y", Role::Label), "label");
        assert_eq!(tag_of("  ", Role::Label), "unknown");
    }

    #[test]
    fn the_table_keeps_what_osworlds_filter_keeps() {
        let mut tree = TreeBuilder::new(NodeData::named(Role::Frame, "Notes"));
        tree.leaf(button("OK"));
        let mut quoted = button("");
        quoted.raw_role = "label".into();
        quoted.role = Role::Label;
        quoted.value = Some("say \"hi\"".into());
        quoted.set_attribute("class", "title");
        quoted.description = "greeting".into();
        tree.leaf(quoted);
        // Not kept: off screen, no name or text, disabled, not a listed role.
        let mut hidden = button("Hidden");
        hidden.states.remove(State::Showing);
        tree.leaf(hidden);
        tree.leaf(button(""));
        let mut disabled = button("Off");
        disabled.states.remove(State::Enabled);
        tree.leaf(disabled);
        let mut panel = button("Panel");
        panel.raw_role = "panel".into();
        tree.leaf(panel);
        let mut offscreen = button("Left");
        offscreen.bounds = Some(Rect::new(-5, 0, 10, 10));
        tree.leaf(offscreen);
        assert_eq!(
            tree_osworld_table(&view(tree)),
            "tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)\n\
             push-button\tOK\t\"\"\t\t\t(10, 20)\t(80, 30)\n\
             label\t\t\"say \"\"hi\"\"\"\ttitle\tgreeting\t(10, 20)\t(80, 30)\n"
        );
    }
}
