//! Shared inputs of the benchmarks and the noise count.
//!
//! Both compare uidelta with terminator's way of detecting UI changes, so
//! the baseline lives here once: [`terminator`] renders a tree the way
//! terminator does, strips ids and bounds with its two regexes and line-diffs
//! the result. [`Case`] holds one prepared before/after pair.

pub mod terminator;

use uidelta_diff::{compare, Diff, Filters};
use uidelta_model::Snapshot;
use uidelta_synth::Edit;

/// Tree sizes every benchmark runs at.
pub const SIZES: [usize; 3] = [1_000, 10_000, 50_000];

/// Fractions of nodes changed semantically; 0.0 still carries the bounds and
/// identity noise of [`uidelta_synth::mutate`].
pub const FRACTIONS: [f64; 3] = [0.0, 0.01, 0.10];

/// One before/after pair from fixed seeds, so every run measures the same
/// inputs.
#[derive(Clone, Debug)]
pub struct Case {
    /// Requested node count of the before snapshot.
    pub size: usize,
    /// Fraction of nodes changed semantically.
    pub fraction: f64,
    /// The before snapshot.
    pub before: Snapshot,
    /// The after snapshot.
    pub after: Snapshot,
    /// Nodes the mutation touched semantically (the ground truth).
    pub touched: usize,
    /// Semantic edits the mutation made.
    pub edits: usize,
    /// Subtrees inserted, subtrees removed and nodes edited in place: what a
    /// perfect diff reports as added, removed and modified.
    pub expected: (usize, usize, usize),
}

impl Case {
    /// The pair for `size` nodes with `fraction` of them changed.
    pub fn new(size: usize, fraction: f64) -> Case {
        let before = uidelta_synth::app(size, 0x5EED ^ size as u64);
        let mutation = uidelta_synth::mutate(&before, fraction, 0xD1FF ^ size as u64);
        let touched = mutation.touched();
        let edits = mutation.edits.len().saturating_sub(1);
        let added = mutation.count(Edit::InsertSubtree);
        let removed = mutation.count(Edit::RemoveSubtree);
        let in_place: usize = mutation
            .edits
            .iter()
            .filter(|(e, _)| matches!(e, Edit::Rename | Edit::SetValue | Edit::ToggleState))
            .map(|(_, n)| n)
            .sum();
        let expected = (added, removed, in_place);
        Case {
            size,
            fraction,
            before,
            after: mutation.snapshot,
            touched,
            edits,
            expected,
        }
    }

    /// A short id for reports: `10k_1pct`.
    pub fn id(&self) -> String {
        format!(
            "{}_{}pct",
            size_label(self.size),
            (self.fraction * 100.0).round() as u32
        )
    }
}

/// `1k`, `10k`, `50k`; other sizes as they are.
pub fn size_label(size: usize) -> String {
    if size % 1_000 == 0 {
        format!("{}k", size / 1_000)
    } else {
        size.to_string()
    }
}

/// uidelta's diff of two snapshots, with all noise filters on.
pub fn uidelta_diff(before: &Snapshot, after: &Snapshot) -> Diff {
    compare(before, after, Filters::all()).diff
}

/// What an agent would read as "changes" in a uidelta diff: one per added or
/// removed subtree and per modified element, plus one for a focus move.
pub fn uidelta_change_count(diff: &Diff) -> usize {
    diff.changes.len() + usize::from(diff.focus.is_some())
}

/// Whether a diff text leaves added elements out: a churn or root-count
/// line on the added side (`+ ... and 5 more combo box`), a long run cut
/// inside an added subtree (`    ... and 99 more table cell`), or the
/// budget cutting an added subtree (`  ... 50 more nodes under [e307]`).
pub fn elides_added(text: &str) -> bool {
    text.lines().any(|l| {
        let inside = l.trim_start();
        l.starts_with("+ ... ")
            || (l.starts_with("  ")
                && (inside.starts_with("... and ")
                    || (inside.starts_with("... ") && inside.contains(" more node"))))
    })
}

#[cfg(test)]
mod elision_tests {
    use super::elides_added;

    #[test]
    fn every_way_of_leaving_added_elements_out_is_seen() {
        assert!(elides_added("+ [e1] list\n+ ... and 5 more combo box\n"));
        assert!(elides_added(
            "+ [e1] dialog\n        ... and 99 more table cell\n"
        ));
        assert!(elides_added(
            "+ [e1] dialog\n  ... 50 more nodes under [e1]\n"
        ));
        assert!(elides_added(
            "+ [e1] dialog\n  ... 1 more node under [e1]\n"
        ));
        assert!(!elides_added(
            "+ [e1] dialog\n    [e2] label \"... and more\"\n"
        ));
        assert!(!elides_added(
            "- ... and 5 more combo box\n~ [e3] label | name: \"a\" -> \"b\"\n"
        ));
    }
}
