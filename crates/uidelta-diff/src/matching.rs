//! Matching before and after, and turning the matching into a [`Diff`].
//!
//! Matching is top-down: the roots match, and the children of every matched
//! pair are matched in four passes, each only over what the previous ones
//! left: platform identity, identical subtree (by hash), role and name in
//! order, and finally similarity within the gap between matched neighbours
//! (this is what keeps a renamed button matched). A pair whose subtree hashes
//! are equal is matched wholesale without looking inside, so an unchanged
//! subtree of any size costs one comparison.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};
use uidelta_model::{NodeData, NodeId, Role, Snapshot, State, StateSet, Tree, Unread};

use crate::change::{
    Added, Attr, AttrChange, AttrValue, Change, Diff, Element, FocusMove, Handle, HiddenMove,
    InheritedChange, Modified, Place, Removed, SubtreeNode,
};
use crate::filter::Rule;
use crate::refs::{Ref, RefTable, Refs};
use crate::view::View;

mod order;
#[cfg(test)]
use order::moved_positions;
use order::moved_positions_seen;

const UNMATCHED: u32 = u32::MAX;

/// Takes what `after` does not say (see [`NodeData::unread`]) from the
/// elements they match in `before`: the platform could not read it now,
/// and it is as it was; what is filled in so is unread no more (a second
/// fill has nothing to do). An element matched by nothing keeps no value,
/// and its states as it said them. `after` comes back as it was when
/// nothing is unread.
pub fn fill_unread(before: &View, after: Snapshot) -> Snapshot {
    if !after.tree().nodes().iter().any(|n| n.unread.any()) {
        return after;
    }
    let view = View::new(&after, before.filters());
    let matching = Matching::run(before, &view);
    let filled: Vec<(NodeId, NodeId)> = view
        .tree()
        .ids()
        .filter(|&a| view.tree().node(a).unread.any())
        .filter_map(|a| {
            let b = matching.a2b[a.index()];
            (b != UNMATCHED).then(|| (view.origin(a), NodeId(b)))
        })
        .collect();
    if filled.is_empty() {
        return after;
    }
    let (meta, mut tree) = after.into_parts();
    for (a, b) in filled {
        let was = before.tree().node(b);
        let node = tree.node_mut(a);
        if node.unread.value {
            node.value = was.value.clone();
        }
        for state in node.unread.states.iter() {
            node.states.set(state, was.states.contains(state));
        }
        node.unread = Unread::default();
    }
    Snapshot::new(meta, tree)
}

/// What a parent's children show, before and after, when some of them say
/// they are `transient`: a view's snapshot of what is at a place in it
/// (GTK 3's tree view cells). Such an object stays at its place whatever
/// row is there: after a row is renamed and sorted elsewhere, the cell of
/// the first row shows the row that is first now. Its identity tells
/// elements apart as any other, but says they are one only when what it
/// shows did not move: the same text, or a text none of the others had
/// before for one that none has after (a cell edited in place). And two
/// identities tell it apart from another element only when its own is gone
/// (the view made new cells: another folder); one that is still there
/// shows another row now, and says nothing of where its own went.
struct Shown<'v> {
    before: FxHashSet<&'v str>,
    after: FxHashSet<&'v str>,
    /// The identities of the after children.
    after_ids: FxHashSet<&'v str>,
}

impl<'v> Shown<'v> {
    /// `None` when no child is transient: identities then say it all.
    fn of(b: &'v View, a: &'v View, bc: &[NodeId], ac: &[NodeId]) -> Option<Shown<'v>> {
        let transient = |v: &View, n: NodeId| v.tree().node(n).states.contains(State::Transient);
        if !bc.iter().any(|&x| transient(b, x)) && !ac.iter().any(|&y| transient(a, y)) {
            return None;
        }
        let names = |v: &'v View, ns: &[NodeId]| -> FxHashSet<&'v str> {
            ns.iter().map(|&n| v.tree().node(n).name.as_str()).collect()
        };
        Some(Shown {
            before: names(b, bc),
            after: names(a, ac),
            after_ids: ac
                .iter()
                .filter_map(|&y| a.tree().node(y).identity.as_deref())
                .collect(),
        })
    }

    /// Whether `x`, a before child, is a transient object still there
    /// after, whatever it shows now.
    fn reused(shown: Option<&Shown<'_>>, x: &NodeData) -> bool {
        shown.is_some_and(|s| {
            x.states.contains(State::Transient)
                && x.identity
                    .as_deref()
                    .is_some_and(|id| s.after_ids.contains(id))
        })
    }

    /// Whether `x` (before) and `y` (after), which share an identity, are
    /// one element.
    fn one(shown: Option<&Shown<'_>>, x: &NodeData, y: &NodeData) -> bool {
        let Some(s) = shown else {
            return true;
        };
        let transient = x.states.contains(State::Transient) || y.states.contains(State::Transient);
        !transient
            || x.name == y.name
            || (!s.before.contains(y.name.as_str()) && !s.after.contains(x.name.as_str()))
    }
}

/// States that a whole subtree loses or gains when one ancestor does.
const INHERITABLE: [State; 4] = [
    State::Showing,
    State::Visible,
    State::Enabled,
    State::Sensitive,
];

/// Diffs two views of the same scope.
///
/// `before_refs` are the refs of `before`; the returned [`Refs`] are those of
/// `after`: matched elements keep their ref, new ones get fresh refs from
/// `table`, in preorder.
pub fn diff(before: &View, before_refs: &Refs, after: &View, table: &mut RefTable) -> (Diff, Refs) {
    let matching = Matching::run(before, after);
    let root = |v: &View| v.tree().node(NodeId::ROOT).identity.clone();
    let (before_root, after_root) = (root(before), root(after));
    // New elements that were here before get their refs back; then the
    // refs of elements that leave are kept for their return (not in this
    // diff: an element is never both removed and added under one ref).
    let mut left_as: Vec<Option<u64>> = vec![None; after.len()];
    let after_refs = Refs::from_vec(
        matching
            .a2b
            .iter()
            .enumerate()
            .map(|(a, &b)| {
                if b == UNMATCHED {
                    let identity = after.tree().node(NodeId(a as u32)).identity.as_deref();
                    let arrival = table.arriving(after_root.as_deref(), identity);
                    left_as[a] = arrival.left_as;
                    arrival.r#ref
                } else {
                    before_refs.get(NodeId(b))
                }
            })
            .collect(),
    );
    for (b, &a) in matching.b2a.iter().enumerate() {
        if a == UNMATCHED {
            let id = NodeId(b as u32);
            let identity = before.tree().node(id).identity.as_deref();
            table.leaving(
                before_root.as_deref(),
                identity,
                before_refs.get(id),
                before.subtree_hash(id),
            );
        }
    }
    let sides = Sides {
        before,
        before_refs,
        after,
        after_refs: &after_refs,
        came_back: came_back(after, &left_as),
    };
    let diff = sides.build(&matching);
    (diff, after_refs)
}

/// For each after node: whether its subtree left earlier and came back as
/// it was then (the same subtree hash), every node of it under its old ref.
fn came_back(after: &View, left_as: &[Option<u64>]) -> Vec<bool> {
    let t = after.tree();
    let mut all_back = vec![false; after.len()];
    let mut out = vec![false; after.len()];
    // Children come after their parent in preorder: walk backwards.
    for id in t.ids().rev() {
        let i = id.index();
        all_back[i] = left_as[i].is_some() && t.children(id).iter().all(|c| all_back[c.index()]);
        out[i] = all_back[i] && left_as[i] == Some(after.subtree_hash(id));
    }
    out
}

/// Whether the root itself was replaced: both roots are documents with a
/// platform identity, it differs (a browser tab that loaded a new
/// document), and so does the content: a reload that shows the same
/// content is no change. Applications whose root changed identity (one
/// restarted between two captures) are matched by content as usual.
fn replaced(b: &View, a: &View) -> bool {
    let (x, y) = (b.tree().node(NodeId::ROOT), a.tree().node(NodeId::ROOT));
    let document = |n: &NodeData| matches!(n.role, Role::DocumentWeb | Role::DocumentFrame);
    document(x)
        && document(y)
        && matches!((&x.identity, &y.identity), (Some(p), Some(q)) if p != q)
        && b.subtree_hash(NodeId::ROOT) != a.subtree_hash(NodeId::ROOT)
}

/// The matching of two views.
struct Matching {
    b2a: Vec<u32>,
    a2b: Vec<u32>,
    /// Matched pairs whose subtrees differ: the only places with changes.
    dirty: Vec<(NodeId, NodeId)>,
    /// After nodes that moved among their siblings: (old index, new index).
    moved: FxHashMap<NodeId, (usize, usize)>,
    /// After nodes that moved to another parent (see [`Matching::moves`]).
    reparented: FxHashSet<NodeId>,
    /// The root was replaced: nothing below it is matched.
    new_document: bool,
}

impl Matching {
    fn run(b: &View, a: &View) -> Matching {
        let mut m = Matching {
            b2a: vec![UNMATCHED; b.len()],
            a2b: vec![UNMATCHED; a.len()],
            dirty: Vec::new(),
            moved: FxHashMap::default(),
            reparented: FxHashSet::default(),
            new_document: false,
        };
        if replaced(b, a) {
            // A new document: nothing below the root is the same element,
            // however alike it looks.
            m.new_document = true;
            m.link(NodeId::ROOT, NodeId::ROOT);
            m.dirty.push((NodeId::ROOT, NodeId::ROOT));
            return m;
        }
        let mut ids: Option<Ids> = None;
        m.descend(b, a, (NodeId::ROOT, NodeId::ROOT), &mut ids);
        if ids == Some(Ids::Trusted) {
            m.moves(b, a, &mut ids);
        }
        m
    }

    /// Matches a pair and, top-down, what is below it.
    fn descend(&mut self, b: &View, a: &View, top: (NodeId, NodeId), ids: &mut Option<Ids>) {
        let mut stack = vec![top];
        while let Some((bn, an)) = stack.pop() {
            if b.subtree_hash(bn) == a.subtree_hash(an)
                && b.tree().subtree_len(bn) == a.tree().subtree_len(an)
            {
                for (x, y) in b.tree().subtree(bn).zip(a.tree().subtree(an)) {
                    self.link(x, y);
                }
                continue;
            }
            self.link(bn, an);
            self.dirty.push((bn, an));
            let ids = *ids.get_or_insert_with(|| Ids::judge(b, a));
            let pairs = match_children(b, a, bn, an, ids, &mut self.moved);
            stack.extend(pairs.into_iter().rev());
        }
    }

    /// Matches elements that moved to another parent. Top-down matching
    /// pairs only the children of a matched pair, so a card dragged from
    /// one list to another would read as removed from the one and added to
    /// the other, under a new ref. Where identities are trusted, the
    /// platform says it is one element: an element left unmatched under a
    /// matched parent is matched to the one of its identity and role left
    /// unmatched under another matched parent, and what is below them is
    /// matched as below any pair (an element moved into one that moved is
    /// found on the next round). A transient object's identity says where
    /// it is, not what it shows (see [`Shown`]): it never moves.
    fn moves(&mut self, b: &View, a: &View, ids: &mut Option<Ids>) {
        // An element unmatched under a matched parent is a child of a dirty
        // pair (a pair matched whole matched all its children): looking
        // there costs what changed, not the tree's size.
        let loose = |v: &View, n: NodeId, partner: &[u32]| {
            let d = v.tree().node(n);
            partner[n.index()] == UNMATCHED
                && d.identity.is_some()
                && !d.states.contains(State::Transient)
        };
        loop {
            let arrived: Vec<NodeId> = self
                .dirty
                .iter()
                .flat_map(|&(_, an)| a.tree().children(an))
                .copied()
                .filter(|&y| loose(a, y, &self.a2b))
                .collect();
            if arrived.is_empty() {
                return;
            }
            // An identity two loose elements share says nothing.
            let mut left: FxHashMap<&str, Option<NodeId>> = FxHashMap::default();
            for &(bn, _) in &self.dirty {
                for &x in b.tree().children(bn) {
                    if !loose(b, x, &self.b2a) {
                        continue;
                    }
                    if let Some(id) = b.tree().node(x).identity.as_deref() {
                        left.entry(id).and_modify(|e| *e = None).or_insert(Some(x));
                    }
                }
            }
            let mut found = false;
            for y in arrived {
                let ny = a.tree().node(y);
                let Some(Some(x)) = ny.identity.as_deref().and_then(|id| left.get(id)).copied()
                else {
                    continue;
                };
                let parents = (b.tree().parent(x), a.tree().parent(y));
                let same_parent =
                    matches!(parents, (Some(p), Some(q)) if self.b2a[p.index()] == q.0);
                if same_parent
                    || self.b2a[x.index()] != UNMATCHED
                    || !same_role(b.tree().node(x), ny)
                {
                    continue;
                }
                self.descend(b, a, (x, y), ids);
                self.reparented.insert(y);
                found = true;
            }
            if !found {
                return;
            }
        }
    }

    fn link(&mut self, b: NodeId, a: NodeId) {
        self.b2a[b.index()] = a.0;
        self.a2b[a.index()] = b.0;
    }

    fn partner_of_before(&self, b: NodeId) -> Option<NodeId> {
        let a = self.b2a[b.index()];
        (a != UNMATCHED).then_some(NodeId(a))
    }

    fn partner_of_after(&self, a: NodeId) -> Option<NodeId> {
        let b = self.a2b[a.index()];
        (b != UNMATCHED).then_some(NodeId(b))
    }
}

/// Whether platform identities can be trusted in this pair of snapshots.
///
/// When most elements kept their identity (the same application, still
/// running), two elements with different identities are different elements,
/// however alike they look: a page that replaced another is not its
/// renamed twin. When identities were regenerated (a restarted application,
/// a reloaded page), they say nothing and matching goes by content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ids {
    Trusted,
    Ignored,
}

impl Ids {
    /// Judged on the first nodes in preorder (the window's frame, menus and
    /// tool bars, which outlive any page switch), so that it costs the same
    /// for any tree size.
    fn judge(b: &View, a: &View) -> Ids {
        const SAMPLE: usize = 512;
        let ids = |v: &'_ View| -> Vec<String> {
            v.tree()
                .nodes()
                .iter()
                .filter_map(|n| n.identity.clone())
                .take(SAMPLE)
                .collect()
        };
        let after: rustc_hash::FxHashSet<String> = ids(a).into_iter().collect();
        let before = ids(b);
        if after.is_empty() || before.is_empty() {
            return Ids::Ignored;
        }
        let kept = before.iter().filter(|id| after.contains(*id)).count();
        // A page switch replaces most elements yet keeps identities; a
        // restart or reload keeps none.
        if kept * 10 >= before.len() {
            Ids::Trusted
        } else {
            Ids::Ignored
        }
    }

    /// Whether `x` and `y` may be one element: same role, and no trusted
    /// identities that disagree.
    fn compatible(self, x: &NodeData, y: &NodeData) -> bool {
        same_role(x, y)
            && !(self == Ids::Trusted
                && matches!((&x.identity, &y.identity), (Some(i), Some(j)) if i != j))
    }
}

/// How one parent's children are told apart: identities, and what the
/// transient ones show.
struct Judge<'v> {
    ids: Ids,
    shown: Option<Shown<'v>>,
}

impl Judge<'_> {
    /// Whether `x` (before) and `y` (after) may be one element: same role,
    /// and no trusted identities that disagree, unless `x`'s is that of a
    /// transient object still there (see [`Shown`]).
    fn compatible(&self, x: &NodeData, y: &NodeData) -> bool {
        self.ids.compatible(x, y) || (same_role(x, y) && Shown::reused(self.shown.as_ref(), x))
    }
}

/// Matches the children of a matched pair; returns pairs in after order.
fn match_children(
    b: &View,
    a: &View,
    bn: NodeId,
    an: NodeId,
    ids: Ids,
    moved: &mut FxHashMap<NodeId, (usize, usize)>,
) -> Vec<(NodeId, NodeId)> {
    let bc = b.tree().children(bn);
    let ac = a.tree().children(an);
    let mut pair: Vec<Option<usize>> = vec![None; ac.len()];
    let mut used = vec![false; bc.len()];

    let judge = Judge {
        ids,
        shown: Shown::of(b, a, bc, ac),
    };
    let fits = || positional_fit(b, a, bc, ac, &judge) || regenerated(b, a, bc, ac);
    if bc.len() == ac.len() && fits() {
        for (i, p) in pair.iter_mut().enumerate() {
            *p = Some(i);
        }
    } else {
        by_identity(b, a, bc, ac, judge.shown.as_ref(), &mut pair, &mut used);
        by_subtree_hash(b, a, bc, ac, &judge, &mut pair, &mut used);
        by_key(b, a, bc, ac, &judge, &mut pair, &mut used);
        by_key_made_anew(b, a, (bn, an), bc, ac, &mut pair, &mut used);
        by_similarity(b, a, bc, ac, &judge, &mut pair, &mut used);
        let shown = |i: usize| !a.tree().node(ac[i]).states.says_hidden();
        for (new, old) in moved_positions_seen(&pair, shown) {
            moved.insert(ac[new], (old, new));
        }
    }
    pair.iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|j| (bc[j], ac[i])))
        .collect()
}

/// Whether the children line up one to one: same roles, and each pair has
/// the same name, identity or subtree. The common case (a few attributes
/// changed somewhere below) needs no maps at all.
///
/// A pair whose identities disagree lines up when the element was made
/// anew in its place, the same in all that is compared (see
/// [`remade_in_place`]).
fn positional_fit(b: &View, a: &View, bc: &[NodeId], ac: &[NodeId], judge: &Judge) -> bool {
    let mut ids: Option<(FxHashSet<&str>, FxHashSet<&str>)> = None;
    bc.iter().zip(ac).all(|(&x, &y)| {
        let (nx, ny) = (b.tree().node(x), a.tree().node(y));
        if !judge.compatible(nx, ny) {
            let (before, after) = ids.get_or_insert_with(|| (identities(b, bc), identities(a, ac)));
            return remade_in_place(b, a, x, y, before, after);
        }
        match (&nx.identity, &ny.identity) {
            (Some(ix), Some(iy)) if ix == iy && Shown::one(judge.shown.as_ref(), nx, ny) => true,
            _ => nx.name == ny.name || b.subtree_hash(x) == a.subtree_hash(y),
        }
    }) && !identity_crosses(b, a, bc, ac)
}

/// The identities of `nodes` of `v`.
fn identities<'v>(v: &'v View, nodes: &[NodeId]) -> FxHashSet<&'v str> {
    nodes
        .iter()
        .filter_map(|&n| v.tree().node(n).identity.as_deref())
        .collect()
}

/// Whether `x` (before) and `y` (after), at the same place among the
/// children of one element, are one element made anew: the same role and
/// subtree, `x`'s identity gone from the after children and `y`'s new to
/// them. Gecko remakes its Reload button whenever a page loads; reported by
/// identity, every navigation would remove a `Reload` and add an identical
/// one, and the agent's ref to it would die.
fn remade_in_place(
    b: &View,
    a: &View,
    x: NodeId,
    y: NodeId,
    before: &FxHashSet<&str>,
    after: &FxHashSet<&str>,
) -> bool {
    let (nx, ny) = (b.tree().node(x), a.tree().node(y));
    let (Some(ix), Some(iy)) = (nx.identity.as_deref(), ny.identity.as_deref()) else {
        return false;
    };
    same_role(nx, ny)
        && !after.contains(ix)
        && !before.contains(iy)
        && b.subtree_hash(x) == a.subtree_hash(y)
}

/// Whether the children are the same elements under identities made anew:
/// every child on both sides has an identity, none of the after identities
/// was there before, and the children line up one to one by role and name,
/// most of them named. Qt does this to the cells and headers of an item
/// view whenever its model or its enabled state changes; reported by
/// identity, each such change would remove every cell and add an identical
/// one. Children mostly without names say too little: two pages of unnamed
/// spin buttons line up by role alone.
fn regenerated(b: &View, a: &View, bc: &[NodeId], ac: &[NodeId]) -> bool {
    let named = bc
        .iter()
        .filter(|&&x| !b.tree().node(x).name.is_empty())
        .count();
    if named * 2 <= bc.len() {
        return false;
    }
    let mut before = rustc_hash::FxHashSet::default();
    for &x in bc {
        match b.tree().node(x).identity.as_deref() {
            Some(id) => before.insert(id),
            None => return false,
        };
    }
    bc.iter().zip(ac).all(|(&x, &y)| {
        let (nx, ny) = (b.tree().node(x), a.tree().node(y));
        ny.identity
            .as_deref()
            .is_some_and(|id| !before.contains(id))
            && same_role(nx, ny)
            && nx.name == ny.name
    })
}

/// Whether some after child carries the identity of a different before
/// child: then positions lie and identity must decide.
fn identity_crosses(b: &View, a: &View, bc: &[NodeId], ac: &[NodeId]) -> bool {
    if !ac.iter().any(|&y| a.tree().node(y).identity.is_some()) {
        return false;
    }
    let index: FxHashMap<&str, usize> = bc
        .iter()
        .enumerate()
        .filter_map(|(i, &x)| b.tree().node(x).identity.as_deref().map(|id| (id, i)))
        .collect();
    ac.iter().enumerate().any(|(i, &y)| {
        a.tree()
            .node(y)
            .identity
            .as_deref()
            .and_then(|id| index.get(id))
            .is_some_and(|&j| j != i)
    })
}

fn same_role(x: &NodeData, y: &NodeData) -> bool {
    x.role == y.role && (x.role != Role::Unknown || x.raw_role == y.raw_role)
}

fn by_identity(
    b: &View,
    a: &View,
    bc: &[NodeId],
    ac: &[NodeId],
    shown: Option<&Shown<'_>>,
    pair: &mut [Option<usize>],
    used: &mut [bool],
) {
    if !ac.iter().any(|&y| a.tree().node(y).identity.is_some()) {
        return;
    }
    let index: FxHashMap<&str, usize> = bc
        .iter()
        .enumerate()
        .filter_map(|(i, &x)| b.tree().node(x).identity.as_deref().map(|id| (id, i)))
        .collect();
    for (i, &y) in ac.iter().enumerate() {
        let ny = a.tree().node(y);
        let Some(j) = ny.identity.as_deref().and_then(|id| index.get(id)).copied() else {
            continue;
        };
        let nx = b.tree().node(bc[j]);
        if !used[j] && same_role(nx, ny) && Shown::one(shown, nx, ny) {
            pair[i] = Some(j);
            used[j] = true;
        }
    }
}

fn by_subtree_hash(
    b: &View,
    a: &View,
    bc: &[NodeId],
    ac: &[NodeId],
    judge: &Judge,
    pair: &mut [Option<usize>],
    used: &mut [bool],
) {
    let sides = Pairing {
        b,
        a,
        bc,
        ac,
        judge,
    };
    sides.in_order(pair, used, |v, n| v.subtree_hash(n));
}

fn by_key(
    b: &View,
    a: &View,
    bc: &[NodeId],
    ac: &[NodeId],
    judge: &Judge,
    pair: &mut [Option<usize>],
    used: &mut [bool],
) {
    let sides = Pairing {
        b,
        a,
        bc,
        ac,
        judge,
    };
    sides.in_order(pair, used, |v, n| key(v.tree().node(n)));
}

/// Pairs what is left of the children by role and name, in order, where
/// the before child's identity is gone from the after children and the
/// after child's is new to them, under a parent that kept its identity:
/// one element made anew in the same parent.
/// Nautilus (GTK 4) makes its path bar's buttons anew when a folder opens,
/// one more button among them; reported by identity, every step into a
/// folder would remove and add each button of the path. Only when most of
/// the named children gone find their like (a keypad switched to another
/// that has an `=` too is other keys, its `=` another), named elements only
/// (nameless ones of a role say too little: a page's spin buttons replaced
/// by another page's), and not by similarity: an element gone and another
/// come with another name stay a removal and an addition.
fn by_key_made_anew(
    b: &View,
    a: &View,
    (bn, an): (NodeId, NodeId),
    bc: &[NodeId],
    ac: &[NodeId],
    pair: &mut [Option<usize>],
    used: &mut [bool],
) {
    // The parent is the same object: inside one made anew too, the
    // parent's own matching has said what its children are.
    let same_parent = matches!(
        (&b.tree().node(bn).identity, &a.tree().node(an).identity),
        (Some(x), Some(y)) if x == y
    );
    if !same_parent || pair.iter().all(Option::is_some) || used.iter().all(|&u| u) {
        return;
    }
    let (before, after) = (identities(b, bc), identities(a, ac));
    let mut queues: FxHashMap<(Role, &str, &str), VecDeque<usize>> = FxHashMap::default();
    let mut gone = 0;
    for (j, &x) in bc.iter().enumerate() {
        let nx = b.tree().node(x);
        let left = nx.identity.as_deref().is_some_and(|id| !after.contains(id));
        if !used[j] && left && !nx.name.is_empty() {
            queues.entry(key(nx)).or_default().push_back(j);
            gone += 1;
        }
    }
    let mut found = Vec::new();
    for (i, &y) in ac.iter().enumerate() {
        let ny = a.tree().node(y);
        let new = ny
            .identity
            .as_deref()
            .is_some_and(|id| !before.contains(id));
        if pair[i].is_some() || !new {
            continue;
        }
        if let Some(j) = queues.get_mut(&key(ny)).and_then(VecDeque::pop_front) {
            found.push((i, j));
        }
    }
    // Most of what went must have come back: else other elements took
    // their places (a keypad switched to another, which has its own `=`).
    if found.len() * 2 <= gone {
        return;
    }
    for (i, j) in found {
        pair[i] = Some(j);
        used[j] = true;
    }
}

/// The children of one matched pair, for the passes that pair by a key.
struct Pairing<'v, 'j> {
    b: &'v View,
    a: &'v View,
    bc: &'v [NodeId],
    ac: &'v [NodeId],
    judge: &'j Judge<'j>,
}

impl<'v> Pairing<'v, '_> {
    /// Pairs unpaired after children with unpaired before children of the
    /// same key, first with first: the k-th before child with a key goes
    /// with the k-th after child with it (skipping incompatible ones).
    fn in_order<K: std::hash::Hash + Eq>(
        &self,
        pair: &mut [Option<usize>],
        used: &mut [bool],
        key_of: impl Fn(&'v View, NodeId) -> K,
    ) {
        if pair.iter().all(Option::is_some) {
            return;
        }
        let mut queues: FxHashMap<K, VecDeque<usize>> = FxHashMap::default();
        for (j, &x) in self.bc.iter().enumerate() {
            if !used[j] {
                queues.entry(key_of(self.b, x)).or_default().push_back(j);
            }
        }
        for (i, &y) in self.ac.iter().enumerate() {
            if pair[i].is_some() {
                continue;
            }
            let Some(queue) = queues.get_mut(&key_of(self.a, y)) else {
                continue;
            };
            let ny = self.a.tree().node(y);
            let fit = queue
                .iter()
                .position(|&j| self.judge.compatible(self.b.tree().node(self.bc[j]), ny));
            if let Some(j) = fit.and_then(|k| queue.remove(k)) {
                pair[i] = Some(j);
                used[j] = true;
            }
        }
    }
}

/// Role and name: the structural key. The raw role counts only where the
/// normalized one says nothing.
fn key(n: &NodeData) -> (Role, &str, &str) {
    let raw = if n.role == Role::Unknown {
        n.raw_role.as_str()
    } else {
        ""
    };
    (n.role, raw, n.name.as_str())
}

/// Most candidates scored for one element; bounds the cost of a list whose
/// every row was replaced.
const MAX_CANDIDATES: usize = 64;

fn by_similarity(
    b: &View,
    a: &View,
    bc: &[NodeId],
    ac: &[NodeId],
    judge: &Judge,
    pair: &mut [Option<usize>],
    used: &mut [bool],
) {
    for i in 0..ac.len() {
        if pair[i].is_some() {
            continue;
        }
        // The gap between the partners of the nearest matched neighbours.
        let lo = pair[..i].iter().rev().find_map(|p| *p).map_or(0, |j| j + 1);
        let hi = pair[i + 1..].iter().find_map(|p| *p).unwrap_or(bc.len());
        if lo >= hi {
            continue;
        }
        let ny = a.tree().node(ac[i]);
        // Far-off elements are not candidates: the window bounds the cost
        // when a whole list was replaced.
        let window = hi.min(lo + 4 * MAX_CANDIDATES);
        let candidates: Vec<usize> = (lo..window)
            .filter(|&j| !used[j] && judge.compatible(b.tree().node(bc[j]), ny))
            .take(MAX_CANDIDATES)
            .collect();
        let rivals = (i..ac.len().min(i + 4 * MAX_CANDIDATES))
            .take_while(|&k| k == i || pair[k].is_none())
            .filter(|&k| same_role(a.tree().node(ac[k]), ny))
            .take(2)
            .count();
        let chosen = if candidates.len() == 1 && rivals == 1 {
            Some(candidates[0])
        } else {
            candidates
                .iter()
                .map(|&j| (similarity(b, a, bc[j], ac[i]), j))
                .filter(|&(score, _)| score >= SIMILAR)
                .max_by_key(|&(score, j)| (score, std::cmp::Reverse(j)))
                .map(|(_, j)| j)
        };
        if let Some(j) = chosen {
            pair[i] = Some(j);
            used[j] = true;
        }
    }
}

/// Score at or above which two same-role elements are taken as one.
const SIMILAR: u32 = 5;

/// How alike two same-role elements are, out of 8.
fn similarity(b: &View, a: &View, x: NodeId, y: NodeId) -> u32 {
    let (nx, ny) = (b.tree().node(x), a.tree().node(y));
    let (cx, cy) = (b.tree().children(x), a.tree().children(y));
    let mut score = 0;
    score += 2 * u32::from(nx.name == ny.name);
    score += u32::from(nx.value == ny.value);
    score += u32::from(nx.description == ny.description);
    score += u32::from(nx.states == ny.states);
    score += u32::from(nx.attributes == ny.attributes);
    score += u32::from(cx.len() == cy.len());
    score += u32::from(match (cx.first(), cy.first()) {
        (Some(&p), Some(&q)) => b.subtree_hash(p) == a.subtree_hash(q),
        (None, None) => true,
        _ => false,
    });
    score
}

/// Both views with their refs: what building the diff reads.
struct Sides<'v> {
    before: &'v View,
    before_refs: &'v Refs,
    after: &'v View,
    after_refs: &'v Refs,
    /// Per after node: it came back as it was when it left.
    came_back: Vec<bool>,
}

impl Sides<'_> {
    fn build(&self, m: &Matching) -> Diff {
        let (bt, at) = (self.before.tree(), self.after.tree());
        let mut added = Vec::new();
        let mut removed = Vec::new();
        let mut modified: Vec<(NodeId, Modified)> = Vec::new();
        let mut hidden_moves: Vec<(NodeId, HiddenMove)> = Vec::new();

        let mut dirty = m.dirty.clone();
        dirty.sort_by_key(|&(_, an)| an);
        for &(bn, an) in &dirty {
            if an == NodeId::ROOT {
                self.push_modified(bn, an, m, &mut modified, &mut hidden_moves);
            }
            for (index, &ac) in at.children(an).iter().enumerate() {
                match m.partner_of_after(ac) {
                    Some(bc) => self.push_modified(bc, ac, m, &mut modified, &mut hidden_moves),
                    None => added.push((ac, self.added(an, index, ac))),
                }
            }
            for &bc in bt.children(bn) {
                if m.partner_of_before(bc).is_none() {
                    removed.push((bc, self.removed(bn, bc)));
                }
            }
        }
        removed.sort_by_key(|(bc, _)| *bc);
        modified.sort_by_key(|(an, _)| *an);
        hidden_moves.sort_by_key(|(an, _)| *an);
        let modified = collapse_inherited(at, modified);
        // The activation handed from window to window as one opened or
        // closed (see [`Diff::handed_over`]).
        let opened = added
            .iter()
            .any(|(ac, a)| a.opened.is_some() && at.parent(*ac) == Some(NodeId::ROOT));
        let closed = removed
            .iter()
            .any(|(bc, r)| r.closed.is_some() && bt.parent(*bc) == Some(NodeId::ROOT));
        let windows: FxHashSet<Ref> = at
            .children(NodeId::ROOT)
            .iter()
            .filter(|&&w| at.node(w).role.is_window())
            .map(|&w| self.after_refs.get(w))
            .collect();
        let (modified, mut handed_over) = hand_over(modified, &windows, opened, closed);
        let focus = self.after.focus().map(|f| self.after_refs.get(f));
        let (modified, deselected) = deselected_elsewhere(modified, focus);
        handed_over.extend(deselected);

        // Groups are numbered from 1, added ones first.
        let added_groups = groups(self.after, self.before, added.iter().map(|(ac, _)| *ac));
        for ((_, a), g) in added.iter_mut().zip(added_groups) {
            a.group = g.map(|g| g + 1);
        }
        let after_added = added.iter().filter_map(|(_, a)| a.group).max().unwrap_or(0);
        let removed_groups = groups(self.before, self.after, removed.iter().map(|(bc, _)| *bc));
        for ((_, r), g) in removed.iter_mut().zip(removed_groups) {
            r.group = g.map(|g| g + after_added + 1);
        }

        let mut changes: Vec<Change> = added.into_iter().map(|(_, a)| Change::Added(a)).collect();
        changes.extend(removed.into_iter().map(|(_, r)| Change::Removed(r)));
        changes.extend(modified.into_iter().map(Change::Modified));
        Diff {
            changes,
            new_document: m.new_document,
            focus: self.focus_move(),
            truncated: self.before.meta().truncated || self.after.meta().truncated,
            hidden_moves: hidden_moves.into_iter().map(|(_, h)| h).collect(),
            handed_over,
            ..Diff::default()
        }
    }

    fn push_modified(
        &self,
        bn: NodeId,
        an: NodeId,
        m: &Matching,
        out: &mut Vec<(NodeId, Modified)>,
        hidden_moves: &mut Vec<(NodeId, HiddenMove)>,
    ) {
        let same_content = self.before.content_hash(bn) == self.after.content_hash(an);
        let moved = m.moved.get(&an);
        let reparented = m.reparented.contains(&an);
        if same_content && moved.is_none() && !reparented {
            return;
        }
        let (x, y) = (self.before.tree().node(bn), self.after.tree().node(an));
        let mut changes = if same_content {
            Vec::new()
        } else {
            self.attr_changes(x, y)
        };
        if let Some(&(old, new)) = moved {
            // What shows neither before nor after moved where no agent
            // can see it (see [`HiddenMove`]).
            if x.states.says_hidden() && y.states.says_hidden() {
                hidden_moves.push((
                    an,
                    HiddenMove {
                        r#ref: self.after_refs.get(an),
                        old,
                        new,
                    },
                ));
            } else {
                changes.push(AttrChange {
                    attr: Attr::Position,
                    old: AttrValue::Index(old),
                    new: AttrValue::Index(new),
                });
            }
        }
        if reparented {
            let place = |v: &View, refs: &Refs, n: NodeId| {
                let t = v.tree();
                t.parent(n).map(|p| {
                    AttrValue::Place(Place {
                        parent: handle(t, refs, p),
                        index: t.index_in_parent(n),
                    })
                })
            };
            if let (Some(old), Some(new)) = (
                place(self.before, self.before_refs, bn),
                place(self.after, self.after_refs, an),
            ) {
                changes.push(change(Attr::Parent, old, new));
            }
        }
        if changes.is_empty() {
            return;
        }
        out.push((
            an,
            Modified {
                element: Element::new(self.after_refs.get(an), self.after.tree().node(an)),
                context: context(self.after.tree(), self.after_refs, an),
                changes,
                descendants: Vec::new(),
            },
        ));
    }

    fn attr_changes(&self, x: &NodeData, y: &NodeData) -> Vec<AttrChange> {
        let mut out = Vec::new();
        let text = |s: &str| AttrValue::Text(s.to_owned());
        if !same_role(x, y) {
            out.push(change(Attr::Role, text(&x.raw_role), text(&y.raw_role)));
        }
        if x.name != y.name {
            out.push(change(Attr::Name, text(&x.name), text(&y.name)));
        }
        if x.value != y.value {
            let v = |s: &Option<String>| s.as_deref().map_or(AttrValue::Absent, text);
            out.push(change(Attr::Value, v(&x.value), v(&y.value)));
        }
        if x.description != y.description {
            out.push(change(
                Attr::Description,
                text(&x.description),
                text(&y.description),
            ));
        }
        let compared = self.after.filters().compared_states();
        let flipped: StateSet = x
            .states
            .symmetric_difference(y.states)
            .intersection(compared);
        for s in flipped.iter() {
            out.push(change(
                Attr::State(s),
                AttrValue::Bool(x.states.contains(s)),
                AttrValue::Bool(y.states.contains(s)),
            ));
        }
        attribute_changes(&x.attributes, &y.attributes, &mut out);
        if !self.after.filters().is_on(Rule::Bounds) && x.bounds != y.bounds {
            let r = |b: Option<uidelta_model::Rect>| b.map_or(AttrValue::Absent, AttrValue::Rect);
            out.push(change(Attr::Bounds, r(x.bounds), r(y.bounds)));
        }
        out
    }

    fn added(&self, parent: NodeId, index: usize, root: NodeId) -> Added {
        let t = self.after.tree();
        let subtree = subtree(t, self.after_refs, root);
        let top = t.node(root);
        Added {
            parent: self.after_refs.get(parent),
            index,
            opened: opens(top, parent == NodeId::ROOT),
            group: None,
            came_back: self.came_back[root.index()],
            context: context(t, self.after_refs, root),
            subtree,
        }
    }

    fn removed(&self, parent: NodeId, root: NodeId) -> Removed {
        let t = self.before.tree();
        Removed {
            parent: self.before_refs.get(parent),
            closed: opens(t.node(root), parent == NodeId::ROOT),
            group: None,
            context: context(t, self.before_refs, root),
            subtree: subtree(t, self.before_refs, root),
        }
    }

    fn focus_move(&self) -> Option<FocusMove> {
        let from = self.before.focus();
        let to = self.after.focus();
        let from_ref = from.map(|n| self.before_refs.get(n));
        let to_ref = to.map(|n| self.after_refs.get(n));
        if from_ref == to_ref {
            return None;
        }
        Some(FocusMove {
            from: from.map(|n| handle(self.before.tree(), self.before_refs, n)),
            to: to.map(|n| handle(self.after.tree(), self.after_refs, n)),
        })
    }
}

/// Groups among `roots` (added or removed subtree roots of `side`): roots
/// lifted out of one unnamed container that the `other` side does not have
/// at all (the outermost such container of each root counts). Groups are
/// numbered from 0 in order; a root alone in its container gets none.
fn groups(side: &View, other: &View, roots: impl Iterator<Item = NodeId>) -> Vec<Option<usize>> {
    let roots: Vec<NodeId> = roots.collect();
    let lifted = |r: &NodeId| side.lifted_from(*r).next().is_some();
    if roots.iter().filter(|r| lifted(r)).count() < 2 {
        return vec![None; roots.len()];
    }
    let mut there: FxHashSet<&str> = other.lifted_containers().collect();
    there.extend(
        other
            .tree()
            .nodes()
            .iter()
            .filter_map(|n| n.identity.as_deref()),
    );
    let containers: Vec<Option<&str>> = roots
        .iter()
        .map(|r| side.lifted_from(*r).filter(|c| !there.contains(c)).last())
        .collect();
    let mut members: FxHashMap<&str, usize> = FxHashMap::default();
    for c in containers.iter().flatten() {
        *members.entry(c).or_insert(0) += 1;
    }
    let mut numbers: FxHashMap<&str, usize> = FxHashMap::default();
    containers
        .iter()
        .map(|c| {
            let c = (*c)?;
            (members.get(c).copied().unwrap_or(0) >= 2).then(|| {
                let next = numbers.len();
                *numbers.entry(c).or_insert(next)
            })
        })
        .collect()
}

fn change(attr: Attr, old: AttrValue, new: AttrValue) -> AttrChange {
    AttrChange { attr, old, new }
}

fn attribute_changes(x: &[(String, String)], y: &[(String, String)], out: &mut Vec<AttrChange>) {
    let (mut i, mut j) = (0, 0);
    let text = |s: &str| AttrValue::Text(s.to_owned());
    while i < x.len() || j < y.len() {
        let ord = match (x.get(i), y.get(j)) {
            (Some(p), Some(q)) => p.0.cmp(&q.0),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match ord {
            std::cmp::Ordering::Less => {
                out.push(change(
                    Attr::Attribute(x[i].0.clone()),
                    text(&x[i].1),
                    AttrValue::Absent,
                ));
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(change(
                    Attr::Attribute(y[j].0.clone()),
                    AttrValue::Absent,
                    text(&y[j].1),
                ));
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                if x[i].1 != y[j].1 {
                    out.push(change(
                        Attr::Attribute(x[i].0.clone()),
                        text(&x[i].1),
                        text(&y[j].1),
                    ));
                }
                i += 1;
                j += 1;
            }
        }
    }
}

fn subtree(t: &Tree, refs: &Refs, root: NodeId) -> Vec<SubtreeNode> {
    let base = t.depth(root);
    t.subtree(root)
        .map(|n| SubtreeNode {
            depth: t.depth(n) - base,
            element: Element::new(refs.get(n), t.node(n)),
        })
        .collect()
}

/// `Some(role)` when an element of this kind appearing means a window,
/// dialog or popup opened. A chooser (color, file, font) is a window only
/// at the top level, or modal: GTK gives the widget embedded in a page
/// (the color planes of a color chooser, a file chooser in a pane) the same
/// role as the chooser dialog.
fn opens(n: &NodeData, top_level: bool) -> Option<Role> {
    let chooser = matches!(
        n.role,
        Role::ColorChooser | Role::FileChooser | Role::FontChooser
    );
    let window = n.role.is_window() && (top_level || !chooser);
    (window || n.states.contains(State::Modal)).then_some(n.role)
}

fn handle(t: &Tree, refs: &Refs, n: NodeId) -> Handle {
    let d = t.node(n);
    Handle {
        r#ref: refs.get(n),
        role: d.role,
        name: d.name.clone(),
    }
}

/// The nearest ancestor that tells an agent where an element is: a named
/// element that is not mere text (a dialog, a list, a tab, a row). Unnamed
/// ancestors say nothing (`in [e2] frame`) and are skipped, and so is an
/// application's main window. The root is the scope itself and never named
/// as context. Diffs give it as a line's `in [e7] dialog "Save"`; errors
/// that offer elements give it too.
pub fn context(t: &Tree, refs: &Refs, n: NodeId) -> Option<Handle> {
    t.ancestors(n)
        .take_while(|&p| p != NodeId::ROOT)
        .find(|&p| {
            let d = t.node(p);
            // An application's main window is where everything is; naming it
            // on every line says nothing. Dialogs and popups do say something.
            let main_window =
                t.parent(p) == Some(NodeId::ROOT) && matches!(d.role, Role::Frame | Role::Window);
            !main_window
                && !d.name.is_empty()
                && !matches!(d.role, Role::Label | Role::Static | Role::Text)
        })
        .map(|p| handle(t, refs, p))
}

/// Which of a parent's changes a child's change follows from: the same
/// `showing`, `visible`, `enabled` or `sensitive` flip; or the child shown
/// or hidden because the parent was shown or hidden (`showing` and
/// `visible` alike: Qt flips a header's `visible` when its view shows),
/// expanded or collapsed, or because the parent is a page tab that was
/// selected or left, or a menu that was (GTK opens a menu of a menu bar,
/// or a submenu, by selecting it: its entries show).
fn cause(parent: &Modified, ch: &AttrChange) -> Option<usize> {
    let shown = matches!(ch.attr, Attr::State(State::Showing | State::Visible));
    parent.changes.iter().position(|x| {
        x == ch
            || (shown
                && x.old == ch.old
                && x.new == ch.new
                && (matches!(x.attr, Attr::State(State::Showing | State::Visible))
                    || x.attr == Attr::State(State::Expanded)
                    || (x.attr == Attr::State(State::Selected)
                        && matches!(parent.element.role, Role::PageTab | Role::Menu))))
    })
}

/// The window an `active` flip follows from: GTK marks the selected row
/// of a list `active` while its window is, so a window losing or gaining
/// the activation flips its rows with it. The nearest enclosing window,
/// when it is modified and flipped `active` the same way.
fn activated_with(
    t: &Tree,
    position: &FxHashMap<NodeId, usize>,
    modified: &[(NodeId, Modified)],
    n: NodeId,
    ch: &AttrChange,
) -> Option<(usize, usize)> {
    if ch.attr != Attr::State(State::Active) {
        return None;
    }
    let window = t.ancestors(n).find(|&a| t.node(a).role.is_window())?;
    let &wk = position.get(&window)?;
    let wc = modified[wk].1.changes.iter().position(|x| x == ch)?;
    Some((wk, wc))
}

/// Moves changes that descendants inherited from a modified ancestor (see
/// [`cause`] and [`activated_with`]) onto that ancestor's entry, the
/// top-most one in an unbroken chain.
fn collapse_inherited(t: &Tree, modified: Vec<(NodeId, Modified)>) -> Vec<Modified> {
    let position: FxHashMap<NodeId, usize> = modified
        .iter()
        .enumerate()
        .map(|(k, (n, _))| (*n, k))
        .collect();
    // For each entry and change index: the entry it was absorbed into.
    let mut absorbed: Vec<Vec<Option<usize>>> = modified
        .iter()
        .map(|(_, m)| vec![None; m.changes.len()])
        .collect();
    for (k, (n, m)) in modified.iter().enumerate() {
        for (c, ch) in m.changes.iter().enumerate() {
            if let Some((wk, wc)) = activated_with(t, &position, &modified, *n, ch) {
                absorbed[k][c] = Some(absorbed[wk][wc].unwrap_or(wk));
                continue;
            }
            let Attr::State(s) = ch.attr else { continue };
            if !INHERITABLE.contains(&s) {
                continue;
            }
            let Some(parent) = t.parent(*n) else { continue };
            let Some(&pk) = position.get(&parent) else {
                continue;
            };
            let Some(pc) = cause(&modified[pk].1, ch) else {
                continue;
            };
            absorbed[k][c] = Some(absorbed[pk][pc].unwrap_or(pk));
        }
    }
    let nodes: Vec<NodeId> = modified.iter().map(|(n, _)| *n).collect();
    let mut out: Vec<Option<Modified>> = Vec::with_capacity(modified.len());
    let mut moved_in: Vec<Vec<InheritedChange>> = vec![Vec::new(); modified.len()];
    for (k, (_, mut m)) in modified.into_iter().enumerate() {
        let mut kept = Vec::new();
        let mut given: Vec<(usize, AttrChange)> = Vec::new();
        for (c, ch) in m.changes.into_iter().enumerate() {
            match absorbed[k][c] {
                Some(target) => given.push((target, ch)),
                None => kept.push(ch),
            }
        }
        for (target, ch) in given {
            let list = &mut moved_in[target];
            match list.last_mut() {
                Some(last) if last.r#ref == m.element.r#ref => last.changes.push(ch),
                _ => list.push(InheritedChange {
                    r#ref: m.element.r#ref,
                    depth: depth_below(t, nodes[k], nodes[target]),
                    element: m.element.clone(),
                    changes: vec![ch],
                }),
            }
        }
        m.changes = kept;
        out.push(Some(m));
    }
    out.into_iter()
        .zip(moved_in)
        .filter_map(|(m, inherited)| {
            let mut m = m?;
            m.descendants = inherited;
            (!m.changes.is_empty() || !m.descendants.is_empty()).then_some(m)
        })
        .collect()
}

/// Takes out of `modified` the `active` flips of the top-level `windows`
/// that a window opening or closing explains: a window that lost `active`
/// as a top-level window `opened` (a window manager gives a new dialog the
/// activation, and a toolkit that manages its own windows does the same),
/// one that gained it as one `closed` (and gives it back). The new window
/// need not say it has the activation: GTK 4.8 says `active` of no dialog.
/// What the window's rows flipped with it goes too; its other changes
/// stay. Returns what stays and what was taken (see
/// [`Diff::handed_over`]).
fn hand_over(
    modified: Vec<Modified>,
    windows: &FxHashSet<Ref>,
    opened: bool,
    closed: bool,
) -> (Vec<Modified>, Vec<Modified>) {
    if !opened && !closed {
        return (modified, Vec::new());
    }
    let explained = |ch: &AttrChange| {
        ch.attr == Attr::State(State::Active)
            && match ch.new {
                AttrValue::Bool(false) => opened,
                AttrValue::Bool(true) => closed,
                _ => false,
            }
    };
    let mut kept = Vec::with_capacity(modified.len());
    let mut handed = Vec::new();
    for mut m in modified {
        let Some(flip) = windows
            .contains(&m.element.r#ref)
            .then(|| m.changes.iter().position(explained))
            .flatten()
        else {
            kept.push(m);
            continue;
        };
        let flip = m.changes.remove(flip);
        let mut rows = Vec::new();
        for d in &mut m.descendants {
            if let Some(at) = d.changes.iter().position(|c| *c == flip) {
                rows.push(InheritedChange {
                    changes: vec![d.changes.remove(at)],
                    ..d.clone()
                });
            }
        }
        m.descendants.retain(|d| !d.changes.is_empty());
        handed.push(Modified {
            element: m.element.clone(),
            context: m.context.clone(),
            changes: vec![flip],
            descendants: rows,
        });
        if !m.changes.is_empty() || !m.descendants.is_empty() {
            kept.push(m);
        }
    }
    (kept, handed)
}

/// Takes out of `modified` the text selected in a field going away where
/// the field does not have the focus (`focus`, after): nothing typing does
/// goes there, and GTK 3 clears an entry's selection whenever another
/// widget takes the X selection, as the focus moving to a field that
/// selects its text does: every such move would say so of the field left
/// behind. The element's other changes stay. Returns what stays and what
/// was taken (see [`Diff::handed_over`]).
fn deselected_elsewhere(
    modified: Vec<Modified>,
    focus: Option<Ref>,
) -> (Vec<Modified>, Vec<Modified>) {
    let gone = |ch: &AttrChange| {
        ch.attr == Attr::Attribute(uidelta_model::SELECTION.to_owned())
            && ch.new == AttrValue::Absent
    };
    let mut kept = Vec::with_capacity(modified.len());
    let mut taken = Vec::new();
    for mut m in modified {
        let at = (Some(m.element.r#ref) != focus)
            .then(|| m.changes.iter().position(gone))
            .flatten();
        let Some(at) = at else {
            kept.push(m);
            continue;
        };
        taken.push(Modified {
            element: m.element.clone(),
            context: m.context.clone(),
            changes: vec![m.changes.remove(at)],
            descendants: Vec::new(),
        });
        if !m.changes.is_empty() || !m.descendants.is_empty() {
            kept.push(m);
        }
    }
    (kept, taken)
}

/// How many levels `node` is below its ancestor `above` (1 for a child).
fn depth_below(t: &Tree, node: NodeId, above: NodeId) -> usize {
    let mut depth = 0;
    let mut at = Some(node);
    while let Some(n) = at {
        if n == above {
            return depth;
        }
        depth += 1;
        at = t.parent(n);
    }
    depth
}

#[cfg(test)]
mod tests;
