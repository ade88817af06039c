//! The baseline: how terminator detects UI changes.
//!
//! terminator renders the tree as compact YAML, one element per line with a
//! running `#index` and its bounds (`#12 [PushButton] Save (bounds:
//! [10,20,100,30], focusable)`), removes the indices and bounds with two
//! regexes and runs a line diff of before against after; the changed lines
//! are the diff. Written from that description for these benchmarks.

use std::fmt::Write as _;

use regex::Regex;
use similar::{ChangeTag, TextDiff};
use uidelta_model::{NodeData, State, Tree};

/// Renders `tree` as terminator's compact YAML: two-space indent, `#n `
/// before every element with bounds (numbered in preorder), `- ` before the
/// others, the role in brackets, the name, then bounds, `disabled`,
/// `focused`, `focusable`, `selected`, `toggled` and the value in
/// parentheses.
pub fn render(tree: &Tree) -> String {
    let mut out = String::with_capacity(tree.len() * 64);
    let mut index = 0u32;
    for id in tree.ids() {
        render_line(&mut out, tree.depth(id), tree.node(id), &mut index);
    }
    out
}

fn render_line(out: &mut String, depth: usize, n: &NodeData, index: &mut u32) {
    for _ in 0..depth {
        out.push_str("  ");
    }
    if n.bounds.is_some() {
        *index += 1;
        let _ = write!(out, "#{index} ");
    } else {
        out.push_str("- ");
    }
    out.push('[');
    push_role(out, n.role.as_str());
    out.push(']');
    if !n.name.is_empty() {
        out.push(' ');
        out.push_str(&n.name);
    }
    let mut parts: Vec<String> = Vec::new();
    if let Some(b) = n.bounds {
        parts.push(format!("bounds: [{},{},{},{}]", b.x, b.y, b.w, b.h));
    }
    let s = n.states;
    if !s.contains(State::Enabled) {
        parts.push("disabled".into());
    }
    for (state, word) in [
        (State::Focused, "focused"),
        (State::Focusable, "focusable"),
        (State::Selected, "selected"),
        (State::Checked, "toggled"),
    ] {
        if s.contains(state) {
            parts.push(word.into());
        }
    }
    if let Some(v) = n.value.as_deref().filter(|v| !v.is_empty()) {
        parts.push(format!("value: {v}"));
    }
    if !parts.is_empty() {
        out.push_str(" (");
        out.push_str(&parts.join(", "));
        out.push(')');
    }
    out.push('\n');
}

/// `push button` as UIA-style `PushButton`.
fn push_role(out: &mut String, role: &str) {
    for word in role.split(' ') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
}

/// terminator's two regexes: one for `#12 ` indices, one for bounds.
#[derive(Clone, Debug)]
pub struct Stripper {
    ids: Regex,
    bounds: Regex,
}

impl Default for Stripper {
    fn default() -> Self {
        Stripper::new()
    }
}

impl Stripper {
    /// Compiles the two regexes.
    pub fn new() -> Stripper {
        // Both patterns are constants; they compile or the build is broken.
        let compile = |p: &str| Regex::new(p).unwrap_or_else(|e| panic!("pattern {p}: {e}"));
        Stripper {
            ids: compile(r"#\d+ "),
            bounds: compile(r"bounds: \[[^\]]*\]"),
        }
    }

    /// The text without indices and bounds.
    pub fn strip(&self, text: &str) -> String {
        let without_ids = self.ids.replace_all(text, "");
        self.bounds.replace_all(&without_ids, "").into_owned()
    }
}

/// The lines a Myers line diff reports as deleted (`- `) or inserted (`+ `).
pub fn changed_lines(before: &str, after: &str) -> Vec<String> {
    TextDiff::from_lines(before, after)
        .iter_all_changes()
        .filter_map(|change| {
            let sign = match change.tag() {
                ChangeTag::Equal => return None,
                ChangeTag::Delete => "- ",
                ChangeTag::Insert => "+ ",
            };
            Some(format!("{sign}{}", change.value().trim_end_matches('\n')))
        })
        .collect()
}

/// The whole baseline on pre-rendered text: strip, then line-diff.
pub fn diff_rendered(stripper: &Stripper, before: &str, after: &str) -> Vec<String> {
    changed_lines(&stripper.strip(before), &stripper.strip(after))
}

/// The whole baseline from trees: render both, strip, line-diff.
pub fn diff_trees(stripper: &Stripper, before: &Tree, after: &Tree) -> Vec<String> {
    diff_rendered(stripper, &render(before), &render(after))
}

#[cfg(test)]
mod tests {
    use uidelta_model::{NodeData, Rect, Role, StateSet, TreeBuilder};

    use super::*;

    fn tree(x: i32, checked: bool) -> Tree {
        let mut root = NodeData::named(Role::Frame, "App");
        root.bounds = Some(Rect::new(x, 0, 800, 600));
        root.states.insert(State::Enabled);
        let mut b = TreeBuilder::new(root);
        b.open(NodeData::new(Role::Panel));
        let mut save = NodeData::named(Role::PushButton, "Save");
        save.bounds = Some(Rect::new(x + 10, 20, 100, 30));
        save.states = StateSet::of(&[State::Enabled, State::Focusable]);
        b.leaf(save);
        let mut bold = NodeData::named(Role::CheckBox, "Bold");
        bold.bounds = Some(Rect::new(x + 10, 60, 100, 30));
        bold.states.set(State::Checked, checked);
        b.leaf(bold);
        b.finish()
    }

    #[test]
    fn renders_compact_yaml() {
        let text = render(&tree(0, false));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "#1 [Frame] App (bounds: [0,0,800,600])");
        assert_eq!(lines[1], "  - [Panel] (disabled)");
        assert_eq!(
            lines[2],
            "    #2 [PushButton] Save (bounds: [10,20,100,30], focusable)"
        );
        assert_eq!(
            lines[3],
            "    #3 [CheckBox] Bold (bounds: [10,60,100,30], disabled)"
        );
    }

    #[test]
    fn moves_vanish_and_toggles_show_as_two_lines() {
        let s = Stripper::new();
        assert!(diff_trees(&s, &tree(0, false), &tree(50, false)).is_empty());
        let lines = diff_trees(&s, &tree(0, false), &tree(50, true));
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("- ") && lines[1].contains("toggled"));
    }
}
