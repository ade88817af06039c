//! Property tests of the diff: random trees, random edit scripts.
//!
//! - `diff(a, a)` is empty, also when the second copy moved and got new ids;
//! - replaying `diff(a, b)` on `a` gives `b`, modulo filtered noise, with the
//!   same refs and the same focus;
//! - bounds jitter alone never produces a change.

use proptest::prelude::*;
use uidelta_diff::{apply, diff, Filters, RefTable, View};
use uidelta_model::{Meta, NodeData, NodeId, Rect, Role, Snapshot, State, StateSet, TreeBuilder};

const ROLES: [Role; 12] = [
    Role::PushButton,
    Role::CheckBox,
    Role::Label,
    Role::Entry,
    Role::ListItem,
    Role::Filler,
    Role::Panel,
    Role::List,
    Role::ScrollBar,
    Role::MenuItem,
    Role::Dialog,
    Role::Static,
];
const NAMES: [&str; 8] = ["", "OK", "Cancel", "Save", "  ", "Name", "Row", "Open"];
const STATES: [State; 6] = [
    State::Enabled,
    State::Checked,
    State::Showing,
    State::Selected,
    State::Expanded,
    State::Sensitive,
];

#[derive(Clone, Debug)]
struct Spec {
    role: usize,
    name: usize,
    value: Option<usize>,
    states: u8,
    focused: bool,
    id: u32,
    children: Vec<Spec>,
}

fn spec() -> impl Strategy<Value = Spec> {
    let leaf = (
        0..ROLES.len(),
        0..NAMES.len(),
        proptest::option::of(0..NAMES.len()),
        any::<u8>(),
    )
        .prop_map(|(role, name, value, states)| Spec {
            role,
            name,
            value,
            states,
            focused: false,
            id: 0,
            children: Vec::new(),
        });
    leaf.prop_recursive(5, 80, 6, |inner| {
        (
            0..ROLES.len(),
            0..NAMES.len(),
            any::<u8>(),
            proptest::collection::vec(inner, 0..6),
        )
            .prop_map(|(role, name, states, children)| Spec {
                role,
                name,
                value: None,
                states,
                focused: false,
                id: 0,
                children,
            })
    })
}

fn number(spec: &mut Spec, next: &mut u32) {
    spec.id = *next;
    *next += 1;
    for c in &mut spec.children {
        number(c, next);
    }
}

fn count(spec: &Spec) -> usize {
    1 + spec.children.iter().map(count).sum::<usize>()
}

/// The `k`-th node in preorder (modulo the node count).
fn nth(spec: &mut Spec, k: usize) -> &mut Spec {
    fn path(s: &Spec, k: &mut usize, out: &mut Vec<usize>) -> bool {
        if *k == 0 {
            return true;
        }
        *k -= 1;
        for (i, c) in s.children.iter().enumerate() {
            out.push(i);
            if path(c, k, out) {
                return true;
            }
            out.pop();
        }
        false
    }
    let mut k = k % count(spec);
    let mut steps = Vec::new();
    path(spec, &mut k, &mut steps);
    steps
        .into_iter()
        .fold(spec, |node, i| &mut node.children[i])
}

fn clear_focus(spec: &mut Spec) {
    spec.focused = false;
    for c in &mut spec.children {
        clear_focus(c);
    }
}

#[derive(Clone, Debug)]
enum Edit {
    Rename(usize, usize),
    SetValue(usize, Option<usize>),
    Toggle(usize, usize),
    Insert(usize, usize, Spec),
    Remove(usize, usize),
    Swap(usize, usize, usize),
    /// A child of one element, with all in it, moved under another.
    Move(usize, usize, usize, usize),
    Focus(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 0..NAMES.len()).prop_map(|(t, n)| Edit::Rename(t, n)),
        (any::<usize>(), proptest::option::of(0..NAMES.len()))
            .prop_map(|(t, v)| Edit::SetValue(t, v)),
        (any::<usize>(), 0..STATES.len()).prop_map(|(t, s)| Edit::Toggle(t, s)),
        (any::<usize>(), any::<usize>(), spec()).prop_map(|(t, i, s)| Edit::Insert(t, i, s)),
        (any::<usize>(), any::<usize>()).prop_map(|(t, i)| Edit::Remove(t, i)),
        (any::<usize>(), any::<usize>(), any::<usize>()).prop_map(|(t, i, j)| Edit::Swap(t, i, j)),
        (
            any::<usize>(),
            any::<usize>(),
            any::<usize>(),
            any::<usize>()
        )
            .prop_map(|(t, i, u, j)| Edit::Move(t, i, u, j)),
        any::<usize>().prop_map(Edit::Focus),
    ]
}

fn run(spec: &mut Spec, edits: &[Edit], next_id: &mut u32) {
    for e in edits {
        match e.clone() {
            Edit::Rename(t, n) => nth(spec, t).name = n,
            Edit::SetValue(t, v) => nth(spec, t).value = v,
            Edit::Toggle(t, s) => nth(spec, t).states ^= 1 << s,
            Edit::Insert(t, i, mut s) => {
                number(&mut s, next_id);
                let node = nth(spec, t);
                let at = i % (node.children.len() + 1);
                node.children.insert(at, s);
            }
            Edit::Remove(t, i) => {
                let node = nth(spec, t);
                if !node.children.is_empty() {
                    let at = i % node.children.len();
                    node.children.remove(at);
                }
            }
            Edit::Swap(t, i, j) => {
                let node = nth(spec, t);
                if !node.children.is_empty() {
                    let n = node.children.len();
                    node.children.swap(i % n, j % n);
                }
            }
            Edit::Move(t, i, u, j) => {
                let node = nth(spec, t);
                if !node.children.is_empty() {
                    let at = i % node.children.len();
                    let moved = node.children.remove(at);
                    // Anywhere in what is left: never into itself.
                    let to = nth(spec, u);
                    let at = j % (to.children.len() + 1);
                    to.children.insert(at, moved);
                }
            }
            Edit::Focus(t) => {
                clear_focus(spec);
                nth(spec, t).focused = true;
            }
        }
    }
}

/// Builds a snapshot; `shift` moves every element, `id_base` renames every
/// platform id (what a restarted application or a new page does).
fn build(spec: &Spec, shift: i32, id_base: Option<u32>) -> Snapshot {
    fn data(s: &Spec, shift: i32, id_base: Option<u32>) -> NodeData {
        let mut n = NodeData::named(ROLES[s.role], NAMES[s.name]);
        n.value = s.value.map(|v| NAMES[v].to_owned());
        n.states = STATES
            .iter()
            .enumerate()
            .filter(|(k, _)| s.states & (1 << k) != 0)
            .map(|(_, st)| *st)
            .collect::<StateSet>();
        n.states.set(State::Focused, s.focused);
        let y = s.id as i32 * 10;
        n.bounds = Some(Rect::new(shift, y + shift / 2, 50 + (s.id as i32 % 7), 20));
        n.identity = id_base.map(|base| format!(":1.{base}/obj/{}", s.id));
        n
    }
    fn walk(s: &Spec, b: &mut TreeBuilder, shift: i32, id_base: Option<u32>) {
        for c in &s.children {
            b.open(data(c, shift, id_base));
            walk(c, b, shift, id_base);
            b.close();
        }
    }
    let mut b = TreeBuilder::new(data(spec, shift, id_base));
    walk(spec, &mut b, shift, id_base);
    Snapshot::new(Meta::default(), b.finish())
}

fn numbered(mut s: Spec) -> (Spec, u32) {
    let mut next = 1;
    number(&mut s, &mut next);
    (s, next)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn a_tree_against_itself_is_no_change(s in spec(), shift in -300i32..300, ids in any::<bool>()) {
        let (s, _) = numbered(s);
        let a = View::new(&build(&s, 0, Some(5)), Filters::all());
        let b = View::new(&build(&s, shift, if ids { Some(6) } else { None }), Filters::all());
        let mut table = RefTable::new();
        let refs = table.label(a.len());
        let (same, _) = diff(&a, &refs, &a, &mut table);
        prop_assert!(!same.has_changes(), "{:?}", same);
        let (moved, after_refs) = diff(&a, &refs, &b, &mut table);
        prop_assert!(!moved.has_changes(), "{:?}", moved);
        prop_assert_eq!(after_refs.as_slice(), refs.as_slice());
    }

    #[test]
    fn replaying_a_diff_gives_the_after_tree(
        s in spec(),
        edits in proptest::collection::vec(edit(), 1..8),
        stable_ids in any::<bool>(),
        shift in -50i32..50,
    ) {
        let (mut s, mut next) = numbered(s);
        let before_snap = build(&s, 0, Some(1));
        run(&mut s, &edits, &mut next);
        let after_snap = build(&s, shift, if stable_ids { Some(1) } else { Some(2) });
        let filters = Filters::all();
        let before = View::new(&before_snap, filters);
        let after = View::new(&after_snap, filters);
        let mut table = RefTable::new();
        let before_refs = table.label(before.len());
        let (d, after_refs) = diff(&before, &before_refs, &after, &mut table);
        let (tree, refs) = apply(&before, &before_refs, &d)
            .map_err(|e| TestCaseError::fail(format!("{e}: {d:#?}")))?;
        let replayed = View::from_filtered(Meta::default(), tree, vec![NodeId::ROOT; refs.len()], filters);
        prop_assert_eq!(replayed.len(), after.len());
        prop_assert_eq!(replayed.subtree_hash(NodeId::ROOT), after.subtree_hash(NodeId::ROOT),
            "replayed tree differs from the after tree; diff: {:#?}", d);
        prop_assert_eq!(refs.as_slice(), after_refs.as_slice());
        prop_assert_eq!(
            replayed.focus().map(|n| refs.get(n)),
            after.focus().map(|n| after_refs.get(n))
        );
    }

    #[test]
    fn bounds_jitter_alone_is_no_change(s in spec(), jitter in proptest::collection::vec(-40i32..40, 1..64)) {
        let (s, _) = numbered(s);
        let snap = build(&s, 0, Some(3));
        let (meta, mut tree) = snap.clone().into_parts();
        for (k, id) in tree.ids().collect::<Vec<_>>().into_iter().enumerate() {
            let d = jitter[k % jitter.len()];
            if let Some(r) = tree.node_mut(id).bounds.as_mut() {
                *r = Rect::new(r.x + d, r.y - d, (r.w + d).max(0), r.h);
            }
        }
        let jittered = Snapshot::new(meta, tree);
        let c = uidelta_diff::compare(&snap, &jittered, Filters::all());
        prop_assert!(!c.diff.has_changes(), "{:?}", c.diff);
    }
}
