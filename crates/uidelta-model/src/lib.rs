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
pub use tree::{NodeData, NodeId, Rect, Tree, TreeBuilder, Unread, SELECTION, SELECTION_CHARS};

/// `text` as names are compared and shown: trimmed, each run of white space
/// one space, and the invisible marks that nudge the direction of text
/// (left-to-right, right-to-left, Arabic letter mark) dropped. Toolkits pad
/// names to align columns (GTK 3 menu items read `"Find      "`); the
/// padding is layout, not name. GTK 3's file chooser writes a time as
/// `"19\u{200e}∶02"`, a left-to-right mark in it: it shows nothing, and no
/// agent types it. Borrows when there is nothing to change.
pub fn normalize_space(text: &str) -> std::borrow::Cow<'_, str> {
    let mut last_space = true;
    let normal = text.chars().all(|c| {
        let ok = if c.is_whitespace() {
            c == ' ' && !last_space
        } else {
            !is_direction_mark(c)
        };
        last_space = c.is_whitespace();
        ok
    }) && !last_space;
    if normal || text.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let marked = text.chars().any(is_direction_mark);
    let unmarked: String;
    let text = if marked {
        unmarked = text.chars().filter(|&c| !is_direction_mark(c)).collect();
        unmarked.as_str()
    } else {
        text
    };
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    std::borrow::Cow::Owned(out)
}

/// Whether `c` is one of the marks that only nudge the direction of
/// the text beside them: left-to-right, right-to-left and the Arabic
/// letter mark. The embeddings, overrides and isolates, which reorder what
/// a reader sees (`invoice\u{202e}fdp.exe` shows as `invoiceexe.pdf`), are
/// kept, for renderers to show escaped.
fn is_direction_mark(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}')
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

    #[test]
    fn direction_marks_are_dropped() {
        assert_eq!(normalize_space("19\u{200e}\u{2236}02"), "19\u{2236}02");
        assert_eq!(normalize_space(" abc\u{200f} def "), "abc def");
        assert_eq!(
            normalize_space("invoice\u{202e}fdp.exe"),
            "invoice\u{202e}fdp.exe"
        );
        assert_eq!(normalize_space("\u{200f}"), "");
        assert!(matches!(normalize_space("19\u{200e}:02"), Cow::Owned(_)));
    }
}
