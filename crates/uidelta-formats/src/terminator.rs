//! terminator's compact YAML.
//!
//! terminator (a Windows UIA automation tool) prints trees one element per
//! line, two spaces of indent per level:
//!
//! ```text
//! #1 [Window] Untitled - Notepad (bounds: [120,60,900,700], focusable)
//!   - [TitleBar]
//!   #2 [Button] Save (Ctrl+S) (bounds: [132,90,40,24], disabled)
//!   #3 [Edit] Search (bounds: [176,90,40,24], focused, value: a, b, 2 children)
//! ```
//!
//! `#N` marks an element with bounds (N is a positional index), `-` one
//! without. The trailing `( .. )` is a context list only when it parses as
//! one; otherwise it is part of the name. A line that is not an element
//! continues the previous element's text: terminator prints multi-line names
//! and values as they are.

use uidelta_model::{Meta, NodeData, Rect, Role, Snapshot, State, StateSet, TreeBuilder};

use crate::{position, InputFormat, Limits, ParseError};

/// Reads a snapshot from terminator's compact YAML, so that trees captured
/// on Windows with terminator can be diffed by uidelta. The snapshot's source
/// is `terminator`. See `docs/formats.md`.
pub fn parse(text: &str) -> Result<Snapshot, ParseError> {
    parse_with(text, Limits::DEFAULT)
}

pub(crate) fn parse_with(text: &str, limits: Limits) -> Result<Snapshot, ParseError> {
    let text = crate::strip_bom(text);
    // Several top-level elements need a synthetic root; count them first so
    // that the tree can be built in one pass without re-rooting.
    let top_level = lines(text)
        .filter(|(_, line)| matches!(classify(line), Line::Element { indent: "", .. }))
        .count();
    let mut reader = Reader {
        limits,
        synthetic_root: top_level > 1,
        tree: None,
        pending: None,
        previous_depth: None,
    };
    if reader.synthetic_root {
        let mut root = NodeData::new(Role::Unknown);
        root.raw_role = "root".to_owned();
        reader.tree = Some(TreeBuilder::new(root));
    }
    for (number, line) in lines(text) {
        match classify(line) {
            Line::Blank => {}
            Line::Element { indent, content } => reader.element(number, indent, content)?,
            Line::Text => reader.continuation(number, line)?,
        }
    }
    reader.flush()?;
    match reader.tree {
        Some(tree) => Ok(Snapshot::new(
            Meta {
                source: "terminator".to_owned(),
                ..Meta::default()
            },
            tree.finish(),
        )),
        None => Err(error_at(text, text.len(), "no elements")),
    }
}

/// Lines with their 1-based numbers, without `\r\n` line ends.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .enumerate()
        .map(|(i, line)| (i + 1, line))
}

enum Line<'a> {
    Blank,
    /// `- [` or `#N [` after the indentation (spaces and tabs).
    Element {
        indent: &'a str,
        content: &'a str,
    },
    /// Anything else: more of the previous element's text.
    Text,
}

fn classify(line: &str) -> Line<'_> {
    if line.trim().is_empty() {
        return Line::Blank;
    }
    let content = line.trim_start_matches([' ', '\t']);
    let indent = &line[..line.len() - content.len()];
    if content.starts_with("- [") {
        return Line::Element { indent, content };
    }
    if let Some(rest) = content.strip_prefix('#') {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && rest[digits..].starts_with(" [") {
            return Line::Element { indent, content };
        }
    }
    Line::Text
}

/// An element whose line has been read but whose text may continue on the
/// following lines.
struct Pending {
    line: usize,
    depth: usize,
    index: Option<String>,
    raw_role: String,
    /// Name and context, continuation lines joined with `\n`.
    text: String,
}

struct Reader {
    limits: Limits,
    synthetic_root: bool,
    tree: Option<TreeBuilder>,
    pending: Option<Pending>,
    previous_depth: Option<usize>,
}

impl Reader {
    fn element(&mut self, number: usize, indent: &str, content: &str) -> Result<(), ParseError> {
        let line_error = |column: usize, message: String| ParseError {
            format: InputFormat::Terminator,
            line: number,
            column,
            message,
        };
        if let Some(tab) = indent.find('\t') {
            return Err(line_error(
                tab + 1,
                "indentation uses a tab; use two spaces per level".to_owned(),
            ));
        }
        // `indent` is all spaces: its length in bytes is its width.
        let content_column = indent.len() + 1;
        if indent.len() % 2 != 0 {
            return Err(line_error(
                content_column,
                format!(
                    "indentation of {} is not a whole level (two spaces per level)",
                    count(indent.len(), "space")
                ),
            ));
        }
        let depth = indent.len() / 2;
        match self.previous_depth {
            None if depth > 0 => {
                return Err(line_error(
                    content_column,
                    format!(
                        "the first element is indented {}; it must not be indented",
                        count(depth, "level")
                    ),
                ))
            }
            Some(previous) if depth > previous + 1 => {
                return Err(line_error(
                    content_column,
                    format!(
                        "indented {depth} levels, but the element above is at level {previous}; \
                         a child is one level deeper than its parent"
                    ),
                ))
            }
            _ => {}
        }
        if depth >= self.limits.depth {
            return Err(line_error(
                content_column,
                format!("elements nest deeper than {} levels", self.limits.depth),
            ));
        }
        self.flush()?;
        let (index, after_index) = match content.strip_prefix('#') {
            Some(rest) => match rest.split_once(' ') {
                Some((digits, after)) => (Some(digits.to_owned()), after),
                None => (None, rest),
            },
            None => (None, content.strip_prefix("- ").unwrap_or(content)),
        };
        // Both prefixes end in `[` (see `classify`).
        let role_column = content_column + (content.len() - after_index.len());
        let role_and_rest = after_index.strip_prefix('[').unwrap_or(after_index);
        let Some((raw_role, rest)) = role_and_rest.split_once(']') else {
            return Err(line_error(
                role_column,
                "the role has no closing `]`".to_owned(),
            ));
        };
        // One space separates the role from the name or context.
        let rest = rest.strip_prefix(' ').unwrap_or(rest);
        self.pending = Some(Pending {
            line: number,
            depth,
            index,
            raw_role: raw_role.to_owned(),
            text: rest.to_owned(),
        });
        self.previous_depth = Some(depth);
        Ok(())
    }

    fn continuation(&mut self, number: usize, line: &str) -> Result<(), ParseError> {
        match self.pending.as_mut() {
            Some(pending) => {
                pending.text.push('\n');
                pending.text.push_str(line);
                Ok(())
            }
            None => {
                let column = 1 + line.chars().take_while(|c| c.is_whitespace()).count();
                Err(ParseError {
                    format: InputFormat::Terminator,
                    line: number,
                    column,
                    message: "expected an element: `- [Role] name` or `#N [Role] name`".to_owned(),
                })
            }
        }
    }

    /// Adds the pending element to the tree.
    fn flush(&mut self) -> Result<(), ParseError> {
        let Some(pending) = self.pending.take() else {
            return Ok(());
        };
        let depth = pending.depth + usize::from(self.synthetic_root);
        let line = pending.line;
        let data = node_data(pending);
        match self.tree.as_mut() {
            None if depth == 0 => {
                self.tree = Some(TreeBuilder::new(data));
                Ok(())
            }
            Some(tree) if depth > 0 => {
                if tree.len() >= self.limits.nodes {
                    return Err(ParseError {
                        format: InputFormat::Terminator,
                        line,
                        column: 1,
                        message: format!("the tree has more than {} nodes", self.limits.nodes),
                    });
                }
                while tree.depth() >= depth {
                    tree.close();
                }
                tree.open(data);
                Ok(())
            }
            // Unreachable: `classify` counted the top-level elements.
            _ => Err(ParseError {
                format: InputFormat::Terminator,
                line,
                column: 1,
                message: "internal error: misplaced top-level element".to_owned(),
            }),
        }
    }
}

/// `1 space`, `3 spaces`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn error_at(text: &str, offset: usize, message: &str) -> ParseError {
    let (line, column) = position::line_column(text, offset);
    ParseError {
        format: InputFormat::Terminator,
        line,
        column,
        message: message.to_owned(),
    }
}

fn node_data(pending: Pending) -> NodeData {
    let (name, context) = split_context(&pending.text);
    let mut data = NodeData::new(uia_role(&pending.raw_role));
    data.name = name.to_owned();
    data.raw_role = pending.raw_role;
    let context = context.unwrap_or_default();
    // terminator lists only elements on screen: they are showing and visible.
    let mut states = StateSet::of(&[State::Showing, State::Visible]);
    if !context.disabled {
        states.insert(State::Enabled);
        states.insert(State::Sensitive);
    }
    states.set(State::Focused, context.focused);
    states.set(State::Focusable, context.focusable);
    states.set(State::Selected, context.selected);
    states.set(State::Checked, context.toggled);
    data.states = states;
    data.bounds = context.bounds;
    data.value = context.value.map(str::to_owned);
    if let Some(text) = context.text {
        data.set_attribute("text", text);
    }
    if let Some(count) = context.children {
        data.set_attribute("child_count", count);
    }
    if let Some(index) = pending.index {
        data.set_attribute("index", index);
    }
    data
}

/// UIA control type names whose meaning differs from what
/// [`Role::from_name`] would guess (`Text` is a label, not a text field) or
/// that it does not know.
fn uia_role(raw: &str) -> Role {
    const TABLE: &[(&str, Role)] = &[
        ("Button", Role::PushButton),
        ("Edit", Role::Entry),
        ("Text", Role::Static),
        ("Document", Role::DocumentText),
        ("Pane", Role::Panel),
        ("Group", Role::Grouping),
        ("Custom", Role::Unknown),
        ("Window", Role::Window),
        ("TitleBar", Role::TitleBar),
        ("MenuItem", Role::MenuItem),
        ("Menu", Role::Menu),
        ("MenuBar", Role::MenuBar),
        ("CheckBox", Role::CheckBox),
        ("RadioButton", Role::RadioButton),
        ("ComboBox", Role::ComboBox),
        ("List", Role::List),
        ("ListItem", Role::ListItem),
        ("Tree", Role::Tree),
        ("TreeItem", Role::TreeItem),
        ("Tab", Role::PageTabList),
        ("TabItem", Role::PageTab),
        ("Hyperlink", Role::Link),
        ("Image", Role::Image),
        ("ToolBar", Role::ToolBar),
        ("StatusBar", Role::StatusBar),
        ("ScrollBar", Role::ScrollBar),
        ("Thumb", Role::ValueIndicator),
        ("Slider", Role::Slider),
        ("Spinner", Role::SpinButton),
        ("ProgressBar", Role::ProgressBar),
        ("Table", Role::Table),
        ("DataGrid", Role::Table),
        ("DataItem", Role::TableCell),
        ("Header", Role::Header),
        ("HeaderItem", Role::ColumnHeader),
        ("Separator", Role::Separator),
        ("SplitButton", Role::PushButton),
        ("ToolTip", Role::ToolTip),
        ("Calendar", Role::Calendar),
        ("AppBar", Role::Unknown),
        ("SemanticZoom", Role::Unknown),
    ];
    TABLE
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(raw))
        .map_or_else(|| Role::from_name(raw), |&(_, role)| role)
}

/// The parenthesized list after a name.
#[derive(Debug, Default, PartialEq)]
struct Context<'a> {
    text: Option<&'a str>,
    bounds: Option<Rect>,
    disabled: bool,
    focused: bool,
    focusable: bool,
    selected: bool,
    toggled: bool,
    value: Option<&'a str>,
    children: Option<&'a str>,
}

/// Splits `name (context)` into the name and the context. The context is the
/// leftmost ` (` whose remainder up to the final `)` parses as a context list,
/// so that a name may hold parentheses and a value may too.
fn split_context(text: &str) -> (&str, Option<Context<'_>>) {
    let Some(body) = text.strip_suffix(')') else {
        return (text, None);
    };
    for (open, _) in body.match_indices('(') {
        let name = if open == 0 {
            ""
        } else if let Some(name) = body[..open].strip_suffix(' ') {
            name
        } else {
            continue;
        };
        if let Some(context) = parse_items(&body[open + 1..], Item::Text) {
            return (name, Some(context));
        }
    }
    (text, None)
}

/// Context items in the order terminator writes them.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    Text,
    Bounds,
    Disabled,
    Focused,
    Focusable,
    Selected,
    Toggled,
    Value,
    Children,
}

impl Item {
    const FLAGS: [(Item, &'static str); 5] = [
        (Item::Disabled, "disabled"),
        (Item::Focused, "focused"),
        (Item::Focusable, "focusable"),
        (Item::Selected, "selected"),
        (Item::Toggled, "toggled"),
    ];
}

/// Parses `list` as context items, each of kind `first` or later, in order.
/// Recursion is bounded by the number of item kinds.
fn parse_items(list: &str, first: Item) -> Option<Context<'_>> {
    if first <= Item::Text {
        if let Some(body) = list.strip_prefix("text: ") {
            // The text runs to the first `, ` after which the rest parses.
            for (comma, _) in body.match_indices(", ") {
                if let Some(mut context) = parse_items(&body[comma + 2..], Item::Bounds) {
                    context.text = Some(&body[..comma]);
                    return Some(context);
                }
            }
            return Some(Context {
                text: Some(body),
                ..Context::default()
            });
        }
    }
    if first <= Item::Bounds {
        if let Some(body) = list.strip_prefix("bounds: [") {
            let (bounds, rest) = parse_bounds(body)?;
            let mut context = parse_rest(rest, Item::Disabled)?;
            context.bounds = Some(bounds);
            return Some(context);
        }
    }
    for (item, word) in Item::FLAGS {
        if first > item {
            continue;
        }
        if let Some(rest) = list.strip_prefix(word) {
            // A whole word: `disabledly` is not `disabled`.
            if !(rest.is_empty() || rest.starts_with(", ")) {
                continue;
            }
            let mut context = parse_rest(rest, next(item))?;
            match item {
                Item::Disabled => context.disabled = true,
                Item::Focused => context.focused = true,
                Item::Focusable => context.focusable = true,
                Item::Selected => context.selected = true,
                _ => context.toggled = true,
            }
            return Some(context);
        }
    }
    if first <= Item::Value {
        if let Some(body) = list.strip_prefix("value: ") {
            // The value runs to the end, except for a final `, N children`.
            let (value, children) = match body.rsplit_once(", ") {
                Some((value, last)) if child_count(last).is_some() => (value, child_count(last)),
                _ => (body, None),
            };
            return Some(Context {
                value: Some(value),
                children,
                ..Context::default()
            });
        }
    }
    let children = child_count(list)?;
    Some(Context {
        children: Some(children),
        ..Context::default()
    })
}

/// After one item: the end of the list, or `, ` and more items.
fn parse_rest(rest: &str, first: Item) -> Option<Context<'_>> {
    if rest.is_empty() {
        return Some(Context::default());
    }
    parse_items(rest.strip_prefix(", ")?, first)
}

fn next(item: Item) -> Item {
    match item {
        Item::Text => Item::Bounds,
        Item::Bounds => Item::Disabled,
        Item::Disabled => Item::Focused,
        Item::Focused => Item::Focusable,
        Item::Focusable => Item::Selected,
        Item::Selected => Item::Toggled,
        Item::Toggled => Item::Value,
        Item::Value | Item::Children => Item::Children,
    }
}

/// `N children` → `N`.
fn child_count(item: &str) -> Option<&str> {
    let digits = item.strip_suffix(" children")?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

/// `x,y,w,h]` and what follows it. The numbers may have decimals (rounded)
/// and spaces around them.
fn parse_bounds(body: &str) -> Option<(Rect, &str)> {
    // Real bounds are short; the cap keeps a long run of ` (bounds: [` in a
    // name from costing quadratic time.
    let close = body.bytes().take(128).position(|b| b == b']')?;
    let mut numbers = body[..close].split(',');
    let mut parts = [0i32; 4];
    for part in &mut parts {
        *part = parse_coordinate(numbers.next()?.trim())?;
    }
    if numbers.next().is_some() {
        return None;
    }
    let [x, y, w, h] = parts;
    Some((Rect::new(x, y, w, h), &body[close + 1..]))
}

/// `-12`, `3.5`: digits with an optional sign and fraction, rounded.
fn parse_coordinate(number: &str) -> Option<i32> {
    let unsigned = number.strip_prefix('-').unwrap_or(number);
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, "0"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) {
        return None;
    }
    let rounded = number.parse::<f64>().ok()?.round();
    (f64::from(i32::MIN)..=f64::from(i32::MAX))
        .contains(&rounded)
        .then_some(rounded as i32)
}

#[cfg(test)]
mod tests {
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

    fn root(text: &str) -> NodeData {
        read(text).tree().node(NodeId::ROOT).clone()
    }

    fn outline(tree: &Tree) -> Vec<(usize, &str, &str)> {
        tree.ids()
            .map(|id| {
                let node = tree.node(id);
                (tree.depth(id), node.raw_role.as_str(), node.name.as_str())
            })
            .collect()
    }

    fn attributes(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|&(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    #[test]
    fn reads_every_context_item() {
        let node = root(
            "#12 [Hyperlink] Docs (text: read me, bounds: [10,20.6,100,-5.5], disabled, focused, \
             focusable, selected, toggled, value: a, b, 3 children)",
        );
        assert_eq!(
            node,
            NodeData {
                role: Role::Link,
                raw_role: "Hyperlink".into(),
                name: "Docs".into(),
                value: Some("a, b".into()),
                description: String::new(),
                states: StateSet::of(&[
                    State::Focused,
                    State::Focusable,
                    State::Selected,
                    State::Checked,
                    State::Showing,
                    State::Visible,
                ]),
                bounds: Some(Rect::new(10, 21, 100, -6)),
                attributes: attributes(&[
                    ("child_count", "3"),
                    ("index", "12"),
                    ("text", "read me"),
                ]),
                identity: None,
                unread: Default::default(),
            }
        );
    }

    #[test]
    fn a_plain_element_is_enabled_showing_and_has_nothing_else() {
        let node = root("- [Button] OK");
        assert_eq!(
            node,
            NodeData {
                role: Role::PushButton,
                raw_role: "Button".into(),
                name: "OK".into(),
                states: StateSet::of(&[
                    State::Enabled,
                    State::Sensitive,
                    State::Showing,
                    State::Visible
                ]),
                ..NodeData::default()
            }
        );
        let node = root("- [Pane]");
        assert_eq!((node.role, node.name.as_str()), (Role::Panel, ""));
        let node = root("#3 [Edit] (bounds: [1,2,3,4], disabled)");
        assert_eq!(node.name, "");
        assert_eq!(node.states, StateSet::of(&[State::Showing, State::Visible]));
        assert_eq!(node.bounds, Some(Rect::new(1, 2, 3, 4)));
        assert_eq!(node.attributes, attributes(&[("index", "3")]));
    }

    #[test]
    fn snapshot_metadata_says_terminator() {
        let snap = read("- [Window] Notepad");
        assert_eq!(
            snap.meta,
            Meta {
                source: "terminator".into(),
                ..Meta::default()
            }
        );
    }

    #[test]
    fn parentheses_that_are_not_a_context_belong_to_the_name() {
        assert_eq!(root("- [Button] Save (Ctrl+S)").name, "Save (Ctrl+S)");
        assert!(!root("- [Button] Save (Ctrl+S)")
            .states
            .contains(State::Focused));
        let node = root("#1 [Button] Save (Ctrl+S) (bounds: [1,2,3,4], focused)");
        assert_eq!(node.name, "Save (Ctrl+S)");
        assert!(node.states.contains(State::Focused));
        // Out of order, unknown words and malformed bounds are not a context.
        for name in [
            "x (focused, disabled)",
            "x (hidden)",
            "x (bounds: [1,2,3])",
            "x (bounds: [1,2,a,4])",
            "x (focusedly)",
            "x ()",
            "x(focused)",
        ] {
            assert_eq!(root(&format!("- [Text] {name}")).name, name);
        }
    }

    #[test]
    fn a_value_runs_to_the_end_of_the_context() {
        let node = root("- [Edit] Address (value: Main St, Springfield, IL)");
        assert_eq!(node.name, "Address");
        assert_eq!(node.value.as_deref(), Some("Main St, Springfield, IL"));
        assert_eq!(node.attribute("child_count"), None);

        let node = root("- [ComboBox] Font (focusable, value: Sans, Bold, 2 children)");
        assert_eq!(node.value.as_deref(), Some("Sans, Bold"));
        assert_eq!(node.attribute("child_count"), Some("2"));
        assert!(node.states.contains(State::Focusable));

        let node = root("- [Edit] Formula (value: f(x) = (a, b))");
        assert_eq!(node.name, "Formula");
        assert_eq!(node.value.as_deref(), Some("f(x) = (a, b)"));

        let node = root("- [Text] (text: a, b, focused)");
        assert_eq!(node.attribute("text"), Some("a, b"));
        assert!(node.states.contains(State::Focused));
    }

    #[test]
    fn roles_go_through_the_uia_table_first() {
        let role = |raw: &str| root(&format!("- [{raw}] x")).role;
        assert_eq!(role("Text"), Role::Static);
        assert_eq!(role("Document"), Role::DocumentText);
        assert_eq!(role("Tab"), Role::PageTabList);
        assert_eq!(role("TabItem"), Role::PageTab);
        assert_eq!(role("Custom"), Role::Unknown);
        assert_eq!(role("SplitButton"), Role::PushButton);
        assert_eq!(role("HeaderItem"), Role::ColumnHeader);
        assert_eq!(role("DataGrid"), Role::Table);
        assert_eq!(role("Spinner"), Role::SpinButton);
        // Not in the table: Role::from_name.
        assert_eq!(role("AXButton"), Role::PushButton);
        assert_eq!(role("Dialog"), Role::Dialog);
        assert_eq!(role("Gizmo"), Role::Unknown);
        assert_eq!(root("- [Gizmo] x").raw_role, "Gizmo");
        assert_eq!(root("- [] x").role, Role::Unknown);
    }

    #[test]
    fn indentation_builds_the_tree() {
        let snap = read(
            "#1 [Window] Notepad (bounds: [0,0,800,600])\r\n  - [TitleBar]\r\n    #2 [Button] Close (bounds: [770,0,30,30])\r\n\r\n  - [MenuBar]\r\n    - [MenuItem] File\r\n      - [MenuItem] Open\r\n  #3 [Document] Text Editor (bounds: [0,30,800,570])\r\n",
        );
        let tree = snap.tree();
        assert_eq!(
            outline(tree),
            vec![
                (0, "Window", "Notepad"),
                (1, "TitleBar", ""),
                (2, "Button", "Close"),
                (1, "MenuBar", ""),
                (2, "MenuItem", "File"),
                (3, "MenuItem", "Open"),
                (1, "Document", "Text Editor"),
            ]
        );
        assert_eq!(
            tree.children(NodeId::ROOT),
            &[NodeId(1), NodeId(3), NodeId(6)]
        );
    }

    #[test]
    fn several_top_level_elements_get_a_synthetic_root() {
        let snap = read("- [Window] A\n  - [Button] OK\n- [Window] B\n");
        assert_eq!(
            outline(snap.tree()),
            vec![
                (0, "root", ""),
                (1, "Window", "A"),
                (2, "Button", "OK"),
                (1, "Window", "B")
            ]
        );
        assert_eq!(snap.tree().node(NodeId::ROOT).role, Role::Unknown);
        assert_eq!(snap.tree().node(NodeId::ROOT).states, StateSet::EMPTY);
    }

    #[test]
    fn lines_that_are_not_elements_continue_the_text() {
        let snap = read("- [Document] Letter\n  #1 [Text] Dear Sam,\nsee you (soon).\n (bounds: [1,2,3,4])\n  - [Text] Bye");
        let tree = snap.tree();
        let text = tree.node(NodeId(1));
        assert_eq!(text.name, "Dear Sam,\nsee you (soon).\n");
        assert_eq!(text.bounds, Some(Rect::new(1, 2, 3, 4)));
        assert_eq!(tree.node(NodeId(2)).name, "Bye");
        assert_eq!(tree.depth(NodeId(2)), 1);
    }

    #[test]
    fn a_byte_order_mark_is_ignored() {
        assert_eq!(root("\u{feff}- [Button] OK").name, "OK");
    }

    #[test]
    fn bad_indentation_is_an_error_at_its_line_and_column() {
        let cases: &[(&str, (usize, usize), &str)] = &[
            (
                "- [Window] A\n\t- [Button] B",
                (2, 1),
                "indentation uses a tab; use two spaces per level",
            ),
            (
                "- [Window] A\n  \t- [Button] B",
                (2, 3),
                "indentation uses a tab; use two spaces per level",
            ),
            (
                "- [Window] A\n   - [Button] B",
                (2, 4),
                "indentation of 3 spaces is not a whole level (two spaces per level)",
            ),
            (
                "- [Window] A\n  - [Pane]\n\n      #4 [Button] B (bounds: [1,2,3,4])",
                (4, 7),
                "indented 3 levels, but the element above is at level 1; \
                 a child is one level deeper than its parent",
            ),
            (
                "  - [Window] A",
                (1, 3),
                "the first element is indented 1 level; it must not be indented",
            ),
            (
                "- [Window] A\n  #7 [Button B",
                (2, 6),
                "the role has no closing `]`",
            ),
            (
                "\n  Window A",
                (2, 3),
                "expected an element: `- [Role] name` or `#N [Role] name`",
            ),
            ("", (1, 1), "no elements"),
            ("\n  \n", (3, 1), "no elements"),
        ];
        for &(text, position, message) in cases {
            let err = fail(text);
            assert_eq!(
                ((err.line, err.column), err.message.as_str()),
                (position, message),
                "{text:?}"
            );
            assert_eq!(err.format, InputFormat::Terminator);
        }
        assert_eq!(
            fail("- [A]\n   - [B]").to_string(),
            "terminator compact YAML input, line 2, column 4: \
             indentation of 3 spaces is not a whole level (two spaces per level)"
        );
    }

    fn staircase(levels: usize) -> String {
        let mut text = String::new();
        for level in 0..levels {
            text.push_str(&"  ".repeat(level));
            text.push_str("- [Pane]\n");
        }
        text
    }

    #[test]
    fn messages_count_in_words() {
        assert_eq!(
            fail("- [A]\n - [B]").message,
            "indentation of 1 space is not a whole level (two spaces per level)"
        );
        assert_eq!(
            fail("    - [A]").message,
            "the first element is indented 2 levels; it must not be indented"
        );
    }

    #[test]
    fn max_depth_levels_are_read() {
        let snap = read(&staircase(MAX_DEPTH));
        assert_eq!(snap.node_count(), MAX_DEPTH);
        assert_eq!(
            snap.tree().depth(NodeId(MAX_DEPTH as u32 - 1)),
            MAX_DEPTH - 1
        );
    }

    #[test]
    fn deeper_nesting_is_an_error_not_a_stack_overflow() {
        let err = fail(&staircase(2 * MAX_DEPTH));
        assert_eq!((err.line, err.column), (MAX_DEPTH + 1, 2 * MAX_DEPTH + 1));
        assert_eq!(err.message, "elements nest deeper than 1024 levels");
    }

    #[test]
    fn more_than_max_nodes_is_an_error() {
        let limits = Limits {
            depth: MAX_DEPTH,
            nodes: 3,
        };
        let err = parse_with(
            "- [List]\n  - [ListItem] a\n  - [ListItem] b\n  - [ListItem] c",
            limits,
        )
        .unwrap_err();
        assert_eq!((err.line, err.column), (4, 1));
        assert_eq!(err.message, "the tree has more than 3 nodes");
        // The synthetic root counts.
        let err = parse_with("- [A]\n- [B]\n- [C]", limits).unwrap_err();
        assert_eq!(err.line, 3);
        assert!(parse_with("- [A]\n- [B]", limits).is_ok());
    }

    #[test]
    fn context_lists_parse_in_order() {
        assert_eq!(
            parse_items(
                "bounds: [ 1 , -2.5,3,4.49], focusable, 12 children",
                Item::Text
            ),
            Some(Context {
                bounds: Some(Rect::new(1, -3, 3, 4)),
                focusable: true,
                children: Some("12"),
                ..Context::default()
            })
        );
        assert_eq!(parse_items("focusable, focused", Item::Text), None);
        assert_eq!(parse_items("bounds: [1,2,3,4,5]", Item::Text), None);
        assert_eq!(parse_items("bounds: [99999999999,2,3,4]", Item::Text), None);
        assert_eq!(
            parse_items("value: ", Item::Text).and_then(|c| c.value),
            Some("")
        );
        assert_eq!(parse_items("children", Item::Text), None);
    }
}
