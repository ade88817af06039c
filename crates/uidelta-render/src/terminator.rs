//! terminator's compact YAML (Windows UIA), for comparison with the tool
//! agents use today: `#3 [Button] Save (bounds: [892,512,80,30], focusable)`.
//!
//! terminator has no refs and diffs its trees line by line, so this format
//! carries no refs and its diff is a line diff: `+ ` and `- ` before whole
//! element lines.

use std::borrow::Cow;

use uidelta_diff::{Attr, AttrChange, AttrValue, Change, Diff, Element, SubtreeNode, View};
use uidelta_model::{NodeData, Role, State};

use crate::diff::NO_CHANGES;
use crate::line::{is_disabled, Facts};
use crate::text::shown;

/// The view in terminator's compact YAML: `#N [Role] name (context)` for
/// elements with bounds (numbered from 1 in preorder), `- [Role] name
/// (context)` for the rest, two spaces of indent per depth.
pub fn tree_terminator(view: &View) -> String {
    let tree = view.tree();
    let mut numbers = Numbering::default();
    let mut out = String::new();
    for id in tree.ids() {
        out.push_str(&"  ".repeat(tree.depth(id)));
        out.push_str(&yaml_line(Facts::from(tree.node(id)), &mut numbers));
        out.push('\n');
    }
    out
}

/// The diff as terminator's line diff: `+ ` before every line of an added
/// subtree, `- ` before every line of a removed one (indent relative to the
/// subtree's root), and for a modified element `- ` its old line and `+ `
/// its new line. Elements are numbered in output order. A modification
/// invisible in this format (a description, say) gives no lines, as in a
/// line diff; focus moves and transient elements have no line either. When
/// nothing is left the text is `No UI changes detected`.
pub fn diff_terminator(diff: &Diff) -> String {
    let mut numbers = Numbering::default();
    let mut out = String::new();
    for change in &diff.changes {
        match change {
            Change::Added(a) => subtree_lines(&mut out, '+', &a.subtree, &mut numbers),
            Change::Removed(r) => subtree_lines(&mut out, '-', &r.subtree, &mut numbers),
            Change::Modified(m) => {
                let old = before_changes(&m.element, &m.changes);
                let mut probe = numbers.clone();
                let old_line = yaml_line(Facts::from(&old), &mut probe);
                let new_line = yaml_line(Facts::from(&m.element), &mut probe);
                if strip_number(&old_line) != strip_number(&new_line) {
                    numbers = probe;
                    out.push_str(&format!("- {old_line}\n+ {new_line}\n"));
                }
            }
        }
    }
    if out.is_empty() {
        return NO_CHANGES.to_owned();
    }
    out
}

fn subtree_lines(out: &mut String, sign: char, subtree: &[SubtreeNode], numbers: &mut Numbering) {
    for node in subtree {
        out.push(sign);
        out.push(' ');
        out.push_str(&"  ".repeat(node.depth));
        out.push_str(&yaml_line(Facts::from(&node.element), numbers));
        out.push('\n');
    }
}

/// The line without its `#N ` number, which differs between two renderings
/// of the same element.
fn strip_number(line: &str) -> &str {
    match line.strip_prefix('#') {
        Some(rest) => rest.split_once(' ').map_or(rest, |(_, tail)| tail),
        None => line,
    }
}

/// Hands out the `#N` numbers of elements with bounds.
#[derive(Clone, Debug, Default)]
struct Numbering {
    last: u32,
}

impl Numbering {
    fn next(&mut self) -> u32 {
        self.last += 1;
        self.last
    }
}

/// One element: `#N [Role] name (text: T, bounds: [x,y,w,h], disabled,
/// focused, focusable, selected, toggled, value: V)`.
fn yaml_line(f: Facts<'_>, numbers: &mut Numbering) -> String {
    let role = uia_role(f.role);
    let mut out = match f.bounds {
        Some(_) => format!("#{} [{role}]", numbers.next()),
        None => format!("- [{role}]"),
    };
    if !f.name.is_empty() {
        out.push(' ');
        out.push_str(&shown(f.name));
    }
    let context = context_parts(f);
    if !context.is_empty() {
        out.push_str(&format!(" ({})", context.join(", ")));
    }
    out
}

fn context_parts(f: Facts<'_>) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some((_, text)) = f
        .attributes
        .iter()
        .find(|(k, v)| k == "text" && !v.is_empty())
    {
        parts.push(format!("text: {}", shown(text)));
    }
    if let Some(b) = f.bounds {
        parts.push(format!("bounds: [{},{},{},{}]", b.x, b.y, b.w, b.h));
    }
    if is_disabled(f.states) {
        parts.push("disabled".to_owned());
    }
    let flags = [
        (State::Focused, "focused"),
        (State::Focusable, "focusable"),
        (State::Selected, "selected"),
        (State::Checked, "toggled"),
    ];
    for (state, word) in flags {
        if f.states.contains(state) {
            parts.push(word.to_owned());
        }
    }
    if let Some(value) = f.shown_value() {
        parts.push(format!("value: {}", shown(value)));
    }
    parts
}

/// The UIA control type terminator would print for a role; roles UIA has
/// no type for are the AT-SPI name in CamelCase (`check menu item` is
/// `CheckMenuItem`).
pub(crate) fn uia_role(role: Role) -> Cow<'static, str> {
    let uia = match role {
        Role::PushButton => "Button",
        Role::Entry => "Edit",
        Role::Static | Role::Label => "Text",
        Role::DocumentText | Role::DocumentWeb => "Document",
        Role::Panel => "Pane",
        Role::Grouping => "Group",
        Role::Unknown => "Custom",
        Role::Window | Role::Frame | Role::Dialog | Role::Alert => "Window",
        Role::TitleBar => "TitleBar",
        Role::MenuItem => "MenuItem",
        Role::Menu | Role::PopupMenu => "Menu",
        Role::MenuBar => "MenuBar",
        Role::CheckBox => "CheckBox",
        Role::RadioButton => "RadioButton",
        Role::ComboBox => "ComboBox",
        Role::List | Role::ListBox => "List",
        Role::ListItem => "ListItem",
        Role::Tree => "Tree",
        Role::TreeItem => "TreeItem",
        Role::PageTabList => "Tab",
        Role::PageTab => "TabItem",
        Role::Link => "Hyperlink",
        Role::Image | Role::Icon => "Image",
        Role::ToolBar => "ToolBar",
        Role::StatusBar => "StatusBar",
        Role::ScrollBar => "ScrollBar",
        Role::ValueIndicator => "Thumb",
        Role::Slider => "Slider",
        Role::SpinButton => "Spinner",
        Role::ProgressBar => "ProgressBar",
        Role::Table | Role::TreeTable => "DataGrid",
        Role::TableCell => "DataItem",
        Role::Header => "Header",
        Role::ColumnHeader => "HeaderItem",
        Role::Separator => "Separator",
        Role::ToolTip => "ToolTip",
        other => return Cow::Owned(camel_case(other.as_str())),
    };
    Cow::Borrowed(uia)
}

/// `check menu item` -> `CheckMenuItem`.
fn camel_case(name: &str) -> String {
    name.split(' ')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// The element as it was before `changes`, rebuilt from their old values.
fn before_changes(element: &Element, changes: &[AttrChange]) -> NodeData {
    let mut old = element.to_node();
    for change in changes {
        let text = match &change.old {
            AttrValue::Text(s) => Some(s.clone()),
            _ => None,
        };
        match (&change.attr, &change.old) {
            (Attr::Name, _) => old.name = text.unwrap_or_default(),
            (Attr::Value, _) => old.value = text,
            (Attr::Description, _) => old.description = text.unwrap_or_default(),
            (Attr::Role, _) => {
                let raw = text.unwrap_or_default();
                old.role = Role::from_name(&raw);
                old.raw_role = raw;
            }
            (Attr::State(s), AttrValue::Bool(on)) => old.states.set(*s, *on),
            (Attr::State(s), _) => old.states.remove(*s),
            (Attr::Attribute(k), _) => match text {
                Some(v) => old.set_attribute(k.clone(), v),
                None => {
                    old.remove_attribute(k);
                }
            },
            (Attr::Bounds, AttrValue::Rect(r)) => old.bounds = Some(*r),
            (Attr::Bounds, _) => old.bounds = None,
            (Attr::Position | Attr::Parent, _) => {}
        }
    }
    old
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_map_to_uia_names() {
        assert_eq!(uia_role(Role::PushButton), "Button");
        assert_eq!(uia_role(Role::Unknown), "Custom");
        assert_eq!(uia_role(Role::CheckMenuItem), "CheckMenuItem");
        assert_eq!(uia_role(Role::DocumentFrame), "DocumentFrame");
    }

    #[test]
    fn numbers_are_ignored_when_comparing_lines() {
        assert_eq!(strip_number("#12 [Button] OK"), "[Button] OK");
        assert_eq!(strip_number("- [Button] OK"), "- [Button] OK");
    }
}
