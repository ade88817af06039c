//! The snapshot model of uidelta.
//!
//! A [`Snapshot`] is a [`Tree`] of [`NodeData`] captured from one scope (an
//! application, a window, a page) plus [`Meta`]. Roles are normalized to one
//! vocabulary ([`Role`]), states are a bit set ([`StateSet`]). This crate does
//! no I/O and knows no platform; adapters build snapshots, the diff crate
//! compares them. The [`app`] module holds what names an application and
//! an action on it.

pub mod app;
pub mod compare;
mod printable;
mod role;
mod snapshot;
mod state;
mod tree;

pub use printable::{is_inert, printable, push_printable};
pub use role::Role;
pub use snapshot::{redact, Meta, Snapshot};
pub use state::{State, StateSet};
pub use tree::{NodeData, NodeId, Rect, Tree, TreeBuilder};

/// `text` as names are compared and shown: trimmed, each run of white space
/// one space. Toolkits pad names to align columns (GTK 3 menu items read
/// `"Find      "`); the padding is layout, not name. Borrows when there is
/// nothing to change.
pub fn normalize_space(text: &str) -> std::borrow::Cow<'_, str> {
    let mut last_space = true;
    let normal = text.chars().all(|c| {
        let ok = if c.is_whitespace() {
            c == ' ' && !last_space
        } else {
            true
        };
        last_space = c.is_whitespace();
        ok
    }) && !last_space;
    if normal || text.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::normalize_space;
    use std::borrow::Cow;

    #[test]
    fn white_space_is_trimmed_and_runs_become_one_space() {
        assert_eq!(normalize_space("Find      "), "Find");
        assert_eq!(normalize_space("  Save\t\tAs\n"), "Save As");
        assert_eq!(normalize_space("a \u{a0} b"), "a b");
        assert_eq!(normalize_space("   "), "");
        assert!(matches!(
            normalize_space("Save As"),
            Cow::Borrowed("Save As")
        ));
        assert!(matches!(normalize_space(""), Cow::Borrowed("")));
        assert!(matches!(normalize_space("a\tb"), Cow::Owned(_)));
    }
}
