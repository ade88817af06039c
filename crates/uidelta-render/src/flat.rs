//! mcp-server-macos-use's flat element list, for comparison:
//! `[push button] "Save" x:892 y:512 w:80 h:30`, one element per line, no
//! nesting, and a diff of `+`, `-` and `~` lines with `'old' -> 'new'`.

use uidelta_diff::{AttrValue, Change, Diff, SubtreeNode, View};

use crate::diff::NO_CHANGES;
use crate::line::Facts;
use crate::text::{quote_capped, shown};

/// The view as a flat list in preorder: `[role] "text" x:N y:N w:W h:H`,
/// where text is the name, or the value when there is no name.
pub fn tree_flat(view: &View) -> String {
    let tree = view.tree();
    let mut out = String::new();
    for node in tree.nodes() {
        out.push_str(&flat_line(Facts::from(node)));
        out.push('\n');
    }
    out
}

/// The diff as flat lines: `+ ` for every node of an added subtree, `- `
/// for every node of a removed one, and `~ <line> | attr: 'old' -> 'new'`
/// for a modified element (one `|` part per attribute; `''` when absent).
/// Added, then removed, then modified, as in the text diff.
pub fn diff_flat(diff: &Diff) -> String {
    if !diff.has_changes() {
        return NO_CHANGES.to_owned();
    }
    let mut out = String::new();
    for change in &diff.changes {
        if let Change::Added(a) = change {
            subtree_lines(&mut out, '+', &a.subtree);
        }
    }
    for change in &diff.changes {
        if let Change::Removed(r) = change {
            subtree_lines(&mut out, '-', &r.subtree);
        }
    }
    for change in &diff.changes {
        if let Change::Modified(m) = change {
            out.push_str("~ ");
            out.push_str(&flat_line(Facts::from(&m.element)));
            for c in &m.changes {
                out.push_str(&format!(
                    " | {}: {} -> {}",
                    shown(&c.attr.label()),
                    single_quoted(&c.old),
                    single_quoted(&c.new)
                ));
            }
            out.push('\n');
        }
    }
    out
}

fn subtree_lines(out: &mut String, sign: char, subtree: &[SubtreeNode]) {
    for node in subtree {
        out.push(sign);
        out.push(' ');
        out.push_str(&flat_line(Facts::from(&node.element)));
        out.push('\n');
    }
}

/// `[role] "text" x:N y:N w:W h:H`; the text and the bounds only when
/// there are some.
fn flat_line(f: Facts<'_>) -> String {
    let mut out = format!("[{}]", f.role_label());
    let text = if f.name.is_empty() {
        f.shown_value().unwrap_or_default()
    } else {
        f.name
    };
    if !text.is_empty() {
        out.push(' ');
        out.push_str(&quote_capped(text));
    }
    if let Some(b) = f.bounds {
        out.push_str(&format!(" x:{} y:{} w:{} h:{}", b.x, b.y, b.w, b.h));
    }
    out
}

/// A value as macos-use shows it: `'Save'`, `'true'`, `''` when absent,
/// a parent as `'[list] Recent'`.
fn single_quoted(v: &AttrValue) -> String {
    let text = match v {
        AttrValue::Absent => String::new(),
        AttrValue::Text(s) => shown(s).into_owned(),
        AttrValue::Bool(b) => b.to_string(),
        AttrValue::Rect(r) => format!("x:{} y:{} w:{} h:{}", r.x, r.y, r.w, r.h),
        AttrValue::Index(i) => i.to_string(),
        // The format has no refs: the parent by its role and name.
        AttrValue::Place(p) => format!("[{}] {}", p.parent.role.as_str(), shown(&p.parent.name)),
    };
    format!("'{text}'")
}
