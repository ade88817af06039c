//! Structural diff of UI snapshots.
//!
//! The pipeline: a [`Snapshot`] becomes a [`View`] (noise filtered out,
//! subtrees hashed); two views are matched (platform identity, then identical
//! subtrees, then role and name, then similarity) and the matching becomes a
//! typed [`Diff`]. A [`RefTable`] gives every element a stable ref that
//! matching carries forward. [`apply`] replays a diff on the before view; it
//! exists to prove diffs complete.
//!
//! ```
//! use uidelta_diff::{compare, Filters};
//! use uidelta_model::{Meta, NodeData, Role, Snapshot, State, TreeBuilder};
//!
//! let build = |checked: bool| {
//!     let mut b = TreeBuilder::new(NodeData::named(Role::Frame, "Prefs"));
//!     let mut bold = NodeData::named(Role::CheckBox, "Bold");
//!     bold.states.set(State::Checked, checked);
//!     b.leaf(bold);
//!     Snapshot::new(Meta::default(), b.finish())
//! };
//! let compared = compare(&build(false), &build(true), Filters::all());
//! assert_eq!(compared.diff.counts().modified, 1);
//! ```

mod apply;
mod change;
mod filter;
mod matching;
mod refs;
mod view;

pub use apply::{apply, ApplyError};
pub use change::{
    Added, AppDiff, Attr, AttrChange, AttrValue, Change, Counts, Diff, Element, FocusMove, Handle,
    HiddenMove, InheritedChange, Modified, Place, Removed, SubtreeNode,
};
pub use filter::{Filters, Rule, UnknownRule};
pub use matching::{context, diff, fill_unread};
pub use refs::{Arrival, BadRef, Ref, RefTable, Refs};
pub use view::{ListItems, View};

use uidelta_model::Snapshot;

/// Two snapshots compared from scratch: both views, their refs and the diff.
#[derive(Clone, Debug)]
pub struct Compared {
    /// The before view.
    pub before: View,
    /// Refs of the before view (`e1`.. in preorder).
    pub before_refs: Refs,
    /// The after view.
    pub after: View,
    /// Refs of the after view, carried forward through matching.
    pub after_refs: Refs,
    /// What changed.
    pub diff: Diff,
    /// The ref table, for further snapshots in the same session.
    pub table: RefTable,
}

/// Compares two snapshots with a fresh ref table: what `uidelta diff`
/// does with two files.
pub fn compare(before: &Snapshot, after: &Snapshot, filters: Filters) -> Compared {
    let before = View::new(before, filters);
    let after = View::following(after, filters, &before);
    let mut table = RefTable::new();
    let before_refs = table.label(before.len());
    let (diff, after_refs) = diff(&before, &before_refs, &after, &mut table);
    Compared {
        before,
        before_refs,
        after,
        after_refs,
        diff,
        table,
    }
}
