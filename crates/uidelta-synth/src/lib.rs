//! Synthetic accessibility trees and realistic edits to them.
//!
//! Property tests, benchmarks and the demo need trees shaped like what
//! AT-SPI returns for a real desktop application, at any size, and pairs of
//! snapshots that differ the way real ones do: a few semantic changes buried
//! under noise that must not be reported (every bounds shifted, every platform
//! id regenerated). Everything is deterministic from a seed and does no I/O.
//!
//! ```
//! let before = uidelta_synth::app(1_000, 7);
//! let after = uidelta_synth::mutate(&before, 0.01, 8);
//! assert!(after.touched() >= 10);
//! ```

mod app;
mod mutate;
mod rng;
mod words;

pub use mutate::{moved, mutate, Edit, Mutation};

use uidelta_model::Snapshot;

/// A window shaped like a GTK file manager with about `nodes` nodes.
///
/// The frame holds a menu bar (six menus of 8-15 closed items), a tool bar,
/// a split pane with a folder tree and a file list (where the size goes:
/// rows of `tree item`s and `list item`s with `table cell`s, most of them
/// scrolled out of view and so not `showing`), a notebook with a property
/// form (labelled entries, spin button, combo box, check boxes, radio
/// buttons, buttons), scroll bars with value indicators, unnamed `filler`
/// and `panel` wrappers, and a status bar. Every node has bounds inside its
/// window, AT-SPI states, an identity like `:1.42/org/a11y/atspi/accessible/7`
/// and `raw_role` equal to its role's name; exactly one element is focused.
///
/// From a few hundred nodes up the count is exact; below that the chrome is
/// shrunk, and below about 60 nodes the smallest window is returned. Cost:
/// linear in `nodes`.
pub fn app(nodes: usize, seed: u64) -> Snapshot {
    app::generate(nodes, seed)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use uidelta_model::{NodeId, Role, State, Tree};

    use super::*;

    /// The tree without bounds and identities: what must not differ when
    /// nothing semantic changed.
    fn semantic(tree: &Tree) -> Tree {
        let mut t = tree.clone();
        for id in t.ids() {
            let n = t.node_mut(id);
            n.bounds = None;
            n.identity = None;
        }
        t
    }

    #[test]
    fn node_count_is_within_two_percent() {
        for n in [1_000, 10_000, 50_000] {
            for seed in [0, 1, 99] {
                let got = app(n, seed).node_count();
                let slack = n / 50;
                assert!(
                    got.abs_diff(n) <= slack,
                    "asked {n} (seed {seed}), got {got}"
                );
            }
        }
    }

    #[test]
    fn small_requests_shrink_the_chrome() {
        for n in [100, 300, 600] {
            let got = app(n, 3).node_count();
            assert!(got.abs_diff(n) <= n / 5 + 20, "asked {n}, got {got}");
        }
        assert!(app(0, 3).node_count() > 10);
    }

    #[test]
    fn same_seed_same_snapshot_other_seed_other_snapshot() {
        assert_eq!(app(5_000, 42), app(5_000, 42));
        assert_ne!(app(5_000, 42), app(5_000, 43));
        assert_eq!(
            mutate(&app(2_000, 1), 0.05, 9),
            mutate(&app(2_000, 1), 0.05, 9)
        );
        assert_eq!(moved(&app(2_000, 1), 5, 6), moved(&app(2_000, 1), 5, 6));
    }

    #[test]
    fn looks_like_an_atspi_application() {
        let snap = app(10_000, 5);
        let t = snap.tree();
        assert_eq!(t.node(t.root()).role, Role::Frame);
        assert_eq!(snap.meta.source, "atspi");
        let focused = t
            .nodes()
            .iter()
            .filter(|n| n.states.contains(State::Focused))
            .count();
        assert_eq!(focused, 1);
        let mut ids = HashSet::new();
        for n in t.nodes() {
            assert_eq!(n.raw_role, n.role.as_str());
            assert!(n.bounds.is_some());
            let id = n.identity.as_deref().unwrap_or_default();
            assert!(
                id.starts_with(":1.") && id.contains("/org/a11y/atspi/accessible/"),
                "{id}"
            );
            assert!(ids.insert(id.to_owned()), "duplicate identity {id}");
        }
        let count = |role: Role| t.nodes().iter().filter(|n| n.role == role).count();
        assert_eq!(count(Role::Menu), 7, "six menus and the combo box's popup");
        assert!(count(Role::MenuItem) + count(Role::CheckMenuItem) >= 40);
        assert!(count(Role::ListItem) > 1_000);
        assert!(count(Role::TreeItem) > 300);
        assert!(count(Role::ScrollBar) == 3 && count(Role::ValueIndicator) == 3);
        for role in [
            Role::Entry,
            Role::CheckBox,
            Role::RadioButton,
            Role::ComboBox,
        ] {
            assert!(count(role) > 0, "{role}");
        }
        assert!(count(Role::SpinButton) == 1 && count(Role::StatusBar) == 1);
        let unnamed_layout = t
            .nodes()
            .iter()
            .filter(|n| n.role.is_layout() && n.name.is_empty());
        assert!(unnamed_layout.count() >= 8);
        // Rows far down the list are laid out but scrolled out of view.
        let rows = t.nodes().iter().filter(|n| n.role == Role::ListItem);
        let hidden = rows.filter(|n| !n.states.contains(State::Showing)).count();
        assert!(hidden > 1_000);
    }

    #[test]
    fn children_sit_inside_their_window() {
        let snap = app(3_000, 11);
        let t = snap.tree();
        let win = t.node(t.root()).bounds.unwrap_or_default();
        for id in t.ids() {
            let b = t.node(id).bounds.unwrap_or_default();
            assert!(b.w > 0 && b.h > 0, "{:?}", t.node(id));
            assert!(
                b.x >= win.x && b.x + b.w <= win.x + win.w,
                "{:?}",
                t.node(id)
            );
            assert!(b.y >= win.y, "{:?}", t.node(id));
        }
    }

    #[test]
    fn mutate_touches_about_the_requested_fraction() {
        let before = app(10_000, 2);
        let n = before.node_count();
        for fraction in [0.001, 0.01, 0.1, 0.3] {
            let m = mutate(&before, fraction, 17);
            let target = (fraction * n as f64).round() as usize;
            let touched = m.touched();
            assert!(
                touched >= target && touched <= target + 16,
                "{fraction}: {touched} vs {target}"
            );
            for kind in [
                Edit::Rename,
                Edit::ToggleState,
                Edit::InsertSubtree,
                Edit::RemoveSubtree,
            ] {
                assert!(
                    fraction < 0.01 || m.count(kind) > 0,
                    "{fraction}: no {kind:?}"
                );
            }
            let inserted: usize = m
                .edits
                .iter()
                .filter(|e| e.0 == Edit::InsertSubtree)
                .map(|e| e.1)
                .sum();
            let removed: usize = m
                .edits
                .iter()
                .filter(|e| e.0 == Edit::RemoveSubtree)
                .map(|e| e.1)
                .sum();
            assert_eq!(m.snapshot.node_count(), n + inserted - removed);
            assert_eq!(
                m.edits.last(),
                Some(&(Edit::MoveBounds, m.snapshot.node_count()))
            );
            assert_ne!(semantic(m.snapshot.tree()), semantic(before.tree()));
        }
    }

    #[test]
    fn mutate_always_adds_bounds_and_identity_noise() {
        let before = app(1_000, 4);
        let m = mutate(&before, 0.0, 5);
        assert_eq!(m.touched(), 0);
        assert_eq!(m.edits.len(), 1);
        let (b, a) = (before.tree(), m.snapshot.tree());
        assert_eq!(semantic(a), semantic(b));
        let old: HashSet<_> = b.nodes().iter().map(|n| n.identity.clone()).collect();
        for id in a.ids() {
            assert_ne!(a.node(id).bounds, b.node(id).bounds);
            assert!(!old.contains(&a.node(id).identity));
        }
    }

    #[test]
    fn moved_changes_every_bounds_and_identity_and_nothing_else() {
        let before = app(2_000, 8);
        let after = moved(&before, 118, 0);
        let (b, a) = (before.tree(), after.tree());
        assert_eq!(semantic(a), semantic(b));
        for id in a.ids() {
            let (ob, nb) = (
                b.node(id).bounds.unwrap_or_default(),
                a.node(id).bounds.unwrap_or_default(),
            );
            assert_eq!((nb.x, nb.y, nb.w, nb.h), (ob.x + 118, ob.y, ob.w, ob.h));
            assert_ne!(a.node(id).identity, b.node(id).identity);
        }
        assert_eq!(a.node(NodeId(0)).name, b.node(NodeId(0)).name);
    }

    #[test]
    fn odd_fractions_are_clamped() {
        let before = app(500, 1);
        assert_eq!(mutate(&before, f64::NAN, 1).touched(), 0);
        assert_eq!(mutate(&before, -1.0, 1).touched(), 0);
        assert!(mutate(&before, 5.0, 1).touched() > 100);
    }
}
