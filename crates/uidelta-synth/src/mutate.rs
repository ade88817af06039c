//! Realistic edits: a few semantic changes under noise on every node.

use std::collections::BTreeMap;

use uidelta_model::{NodeData, NodeId, Rect, Role, Snapshot, State, Tree, TreeBuilder};

use crate::app::{self, Frag, Names, ROW};
use crate::rng::Rng;
use crate::words;

/// One kind of change [`mutate`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Edit {
    /// A node's name changed (a file renamed, a label updated). Renaming a
    /// row renames the cell or label that shows its name too: two nodes.
    Rename,
    /// A value changed (text typed into an entry, a spin button stepped).
    SetValue,
    /// A state flipped: checked, selected, expanded, or enabled together
    /// with sensitive.
    ToggleState,
    /// A small subtree appeared (a new row); the count is its size.
    InsertSubtree,
    /// A small subtree went away; the count is its size.
    RemoveSubtree,
    /// Every node's bounds moved. Noise, not a semantic change: always the
    /// last entry, counting every node of the after snapshot.
    MoveBounds,
}

impl Edit {
    /// The semantic edits, in the order [`mutate`] falls back through them.
    const SEMANTIC: [Edit; 5] = [
        Edit::Rename,
        Edit::ToggleState,
        Edit::SetValue,
        Edit::InsertSubtree,
        Edit::RemoveSubtree,
    ];

    /// Relative frequency among semantic edits.
    const fn weight(self) -> usize {
        match self {
            Edit::Rename => 30,
            Edit::ToggleState => 30,
            Edit::SetValue => 10,
            Edit::InsertSubtree => 15,
            Edit::RemoveSubtree => 15,
            Edit::MoveBounds => 0,
        }
    }
}

/// A snapshot derived from another, with the ground truth of what was done.
#[derive(Clone, Debug, PartialEq)]
pub struct Mutation {
    /// The after snapshot.
    pub snapshot: Snapshot,
    /// Each edit with the number of nodes it touched, in the order made;
    /// the last is always [`Edit::MoveBounds`].
    pub edits: Vec<(Edit, usize)>,
}

impl Mutation {
    /// Nodes changed semantically: everything but [`Edit::MoveBounds`].
    /// Inserted nodes count, although the before snapshot does not have them.
    pub fn touched(&self) -> usize {
        self.edits
            .iter()
            .filter(|(e, _)| *e != Edit::MoveBounds)
            .map(|(_, n)| n)
            .sum()
    }

    /// Number of edits of one kind.
    pub fn count(&self, kind: Edit) -> usize {
        self.edits.iter().filter(|(e, _)| *e == kind).count()
    }
}

/// Largest subtree [`mutate`] removes: rows, not panes.
const MAX_REMOVED: usize = 16;

/// Changes about `fraction` of `before`'s nodes semantically and adds noise.
///
/// Semantic edits are renames, new values, toggled states (checked,
/// selected, expanded, enabled) and small row insertions and removals; no
/// node is edited twice, and edits stop once `fraction × node count` nodes
/// are touched (overshooting by at most one small subtree of up to 16 nodes). Independently of
/// `fraction`, every node's bounds shift by the same non-zero offset (a
/// window that moved) and every node gets a new identity on a new bus name
/// (ids regenerated), so even `fraction = 0.0` gives a pair in which every
/// node differs in bounds and identity and nothing else. A `fraction` outside
/// `0..=1` is clamped; NaN counts as 0. Cost: linear in the tree.
pub fn mutate(before: &Snapshot, fraction: f64, seed: u64) -> Mutation {
    let mut rng = Rng::new(seed ^ 0x6D75_7461_7465);
    let tree = before.tree();
    let fraction = if fraction.is_nan() {
        0.0
    } else {
        fraction.clamp(0.0, 1.0)
    };
    let target = (fraction * tree.len() as f64).round() as usize;
    let mut plan = Plan::new(tree);
    let mut edits = Vec::new();
    let mut touched = 0;
    while touched < target {
        let first = pick_kind(&mut rng);
        let start = Edit::SEMANTIC.iter().position(|e| *e == first).unwrap_or(0);
        let made = (0..Edit::SEMANTIC.len())
            .map(|i| Edit::SEMANTIC[(start + i) % Edit::SEMANTIC.len()])
            .find_map(|kind| plan.make(kind, &mut rng).map(|n| (kind, n)));
        match made {
            Some((kind, n)) => {
                edits.push((kind, n));
                touched += n;
            }
            None => break,
        }
    }
    let mut after = plan.build(tree);
    let (dx, dy) = (offset(&mut rng), offset(&mut rng));
    shift_and_renumber(&mut after, before_bus(tree), dx, dy, &mut rng);
    edits.push((Edit::MoveBounds, after.len()));
    let mut meta = before.meta.clone();
    meta.captured_at_ms = meta.captured_at_ms.map(|t| t + 1_500);
    Mutation {
        snapshot: Snapshot::new(meta, after),
        edits,
    }
}

/// The same tree with every bounds shifted by `(dx, dy)` and every identity
/// regenerated on a new bus name; nothing semantic changes.
pub fn moved(before: &Snapshot, dx: i32, dy: i32) -> Snapshot {
    let mut rng = Rng::new(0x6D6F_7665 ^ ((dx as u64) << 32) ^ (dy as u32 as u64));
    let mut tree = before.tree().clone();
    shift_and_renumber(&mut tree, before_bus(before.tree()), dx, dy, &mut rng);
    Snapshot::new(before.meta.clone(), tree)
}

fn pick_kind(rng: &mut Rng) -> Edit {
    let total: usize = Edit::SEMANTIC.iter().map(|e| e.weight()).sum();
    let mut roll = rng.below(total);
    for kind in Edit::SEMANTIC {
        if roll < kind.weight() {
            return kind;
        }
        roll -= kind.weight();
    }
    Edit::Rename
}

/// A non-zero offset of up to 120 pixels either way.
fn offset(rng: &mut Rng) -> i32 {
    let magnitude = rng.range(1, 120) as i32;
    if rng.chance(0.5) {
        magnitude
    } else {
        -magnitude
    }
}

/// The bus-name part (`:1.42`) of the root's identity, if it has one.
fn before_bus(tree: &Tree) -> Option<String> {
    let id = tree.node(tree.root()).identity.as_deref()?;
    Some(id.split('/').next().unwrap_or(id).to_owned())
}

fn shift_and_renumber(tree: &mut Tree, old_bus: Option<String>, dx: i32, dy: i32, rng: &mut Rng) {
    let mut bus = rng.range(400, 9_999) as u64;
    while old_bus.as_deref() == Some(format!(":1.{bus}").as_str()) {
        bus += 1;
    }
    let base = rng.range(100, 5_000) as u64;
    for (k, id) in tree.ids().enumerate() {
        let node = tree.node_mut(id);
        if let Some(b) = node.bounds.as_mut() {
            *b = Rect::new(b.x.saturating_add(dx), b.y.saturating_add(dy), b.w, b.h);
        }
        node.identity = Some(app::identity(bus, base + k as u64));
    }
}

/// The edits decided so far, applied when the tree is rebuilt.
struct Plan {
    data: Vec<NodeData>,
    ends: Vec<u32>,
    touched: Vec<bool>,
    removed: Vec<bool>,
    /// Nodes before which rows are inserted; they cannot be removed from
    /// inside a removed subtree.
    anchors: Vec<bool>,
    inserts: BTreeMap<u32, Vec<Frag>>,
    /// Siblings, to keep an insertion out of the gap a removal leaves:
    /// there "removed X, added Y" and "X renamed to Y" look alike.
    prev: Vec<Option<u32>>,
    next: Vec<Option<u32>>,
    names: Names,
    renamable: Vec<NodeId>,
    valued: Vec<NodeId>,
    togglable: Vec<NodeId>,
    rows: Vec<NodeId>,
    removable: Vec<NodeId>,
}

impl Plan {
    fn new(tree: &Tree) -> Plan {
        let n = tree.len();
        let mut plan = Plan {
            data: tree.nodes().to_vec(),
            ends: tree
                .ids()
                .map(|id| id.0 + tree.subtree_len(id) as u32)
                .collect(),
            touched: vec![false; n],
            removed: vec![false; n],
            anchors: vec![false; n],
            inserts: BTreeMap::new(),
            prev: vec![None; n],
            next: vec![None; n],
            names: Names::of(tree),
            renamable: Vec::new(),
            valued: Vec::new(),
            togglable: Vec::new(),
            rows: Vec::new(),
            removable: Vec::new(),
        };
        for id in tree.ids() {
            for pair in tree.children(id).windows(2) {
                plan.next[pair[0].index()] = Some(pair[1].0);
                plan.prev[pair[1].index()] = Some(pair[0].0);
            }
        }
        for id in tree.ids().skip(1) {
            let node = tree.node(id);
            let s = node.states;
            if !node.name.is_empty() && renamable(node.role) {
                plan.renamable.push(id);
            }
            if node.value.is_some() && !node.role.is_scroll_indicator() && !node.is_secret() {
                plan.valued.push(id);
            }
            if s.contains(State::Checkable)
                || s.contains(State::Expandable)
                || s.contains(State::Selectable)
                || s.contains(State::Focusable)
            {
                plan.togglable.push(id);
            }
            if matches!(node.role, Role::ListItem | Role::TreeItem) {
                plan.rows.push(id);
                if tree.subtree_len(id) <= MAX_REMOVED {
                    plan.removable.push(id);
                }
            }
        }
        plan
    }

    /// Makes one edit of `kind`; the number of nodes touched, or `None` when
    /// no candidate is left.
    fn make(&mut self, kind: Edit, rng: &mut Rng) -> Option<usize> {
        match kind {
            Edit::Rename => {
                let id = self.take_free(rng, |p| &mut p.renamable)?;
                let old = self.data[id.index()].name.clone();
                let name = self.new_name(rng, &self.data[id.index()].clone());
                self.data[id.index()].name = name.clone();
                // The row's own text shows its name: the first child so named.
                let end = self.ends[id.index()] as usize;
                let shown = (id.index() + 1..end.min(id.index() + 3)).find(|&i| {
                    matches!(self.data[i].role, Role::TableCell | Role::Label)
                        && self.data[i].name == old
                        && !self.touched[i]
                });
                match shown {
                    Some(i)
                        if matches!(
                            self.data[id.index()].role,
                            Role::ListItem | Role::TreeItem
                        ) =>
                    {
                        self.touched[i] = true;
                        self.data[i].name = name;
                        Some(2)
                    }
                    _ => Some(1),
                }
            }
            Edit::SetValue => {
                let id = self.take_free(rng, |p| &mut p.valued)?;
                let node = &mut self.data[id.index()];
                node.value = Some(new_value(rng, node));
                Some(1)
            }
            Edit::ToggleState => {
                let id = self.take_free(rng, |p| &mut p.togglable)?;
                toggle(&mut self.data[id.index()]);
                Some(1)
            }
            Edit::InsertSubtree => self.insert(rng),
            Edit::RemoveSubtree => self.remove(rng),
            Edit::MoveBounds => None,
        }
    }

    /// Draws candidates from a pool until one is neither edited nor removed.
    fn take_free(
        &mut self,
        rng: &mut Rng,
        pool: fn(&mut Plan) -> &mut Vec<NodeId>,
    ) -> Option<NodeId> {
        loop {
            let candidates = pool(self);
            if candidates.is_empty() {
                return None;
            }
            let id = candidates.swap_remove(rng.below(candidates.len()));
            if !self.touched[id.index()] && !self.removed[id.index()] {
                self.touched[id.index()] = true;
                return Some(id);
            }
        }
    }

    fn insert(&mut self, rng: &mut Rng) -> Option<usize> {
        while !self.rows.is_empty() {
            let i = rng.below(self.rows.len());
            let anchor = self.rows[i];
            let after_gap = self.prev[anchor.index()].is_some_and(|p| self.removed[p as usize]);
            if self.removed[anchor.index()] || after_gap {
                self.rows.swap_remove(i);
                continue;
            }
            let like = &self.data[anchor.index()];
            let rect = like.bounds.unwrap_or_default();
            let rect = Rect::new(rect.x, rect.y, rect.w, ROW);
            let showing = like.states.contains(State::Showing);
            let parts = (self.ends[anchor.index()] - anchor.0) as usize;
            let row = if like.role == Role::TreeItem {
                app::tree_row(rng, &mut self.names, parts.min(3), rect, showing)
            } else {
                app::list_row(rng, &mut self.names, parts.min(5), rect, showing)
            };
            let size = row.len();
            self.anchors[anchor.index()] = true;
            self.inserts.entry(anchor.0).or_default().push(row);
            return Some(size);
        }
        None
    }

    fn remove(&mut self, rng: &mut Rng) -> Option<usize> {
        while !self.removable.is_empty() {
            let root = self.removable.swap_remove(rng.below(self.removable.len()));
            let (start, end) = (root.index(), self.ends[root.index()] as usize);
            let gap_taken = self.next[start].is_some_and(|n| self.anchors[n as usize]);
            let free = !gap_taken
                && (start..end).all(|i| {
                    !self.touched[i]
                        && !self.removed[i]
                        && !self.data[i].states.contains(State::Focused)
                        && !self.anchors[i]
                });
            if free {
                for i in start..end {
                    self.touched[i] = true;
                    self.removed[i] = true;
                }
                return Some(end - start);
            }
        }
        None
    }

    fn new_name(&mut self, rng: &mut Rng, node: &NodeData) -> String {
        let fresh = match node.role {
            Role::ListItem | Role::TableCell => self.names.file(rng).0,
            Role::TreeItem => self.names.folder(rng),
            Role::Label => format!("{} {}", rng.pick(words::STATUS), rng.range(1, 500)),
            _ => format!("{} {}", node.name, rng.pick(words::NOUNS)),
        };
        if fresh == node.name {
            format!("{fresh} (2)")
        } else {
            fresh
        }
    }

    /// The edited tree, before noise. Iterative, so any depth is fine.
    fn build(mut self, tree: &Tree) -> Tree {
        let root = std::mem::take(&mut self.data[0]);
        let mut builder = TreeBuilder::with_capacity(root, tree.len());
        let mut open: Vec<u32> = Vec::new();
        let mut i = 1u32;
        let len = tree.len() as u32;
        while i < len {
            while open.last().is_some_and(|&end| end <= i) {
                open.pop();
                builder.close();
            }
            for row in self.inserts.remove(&i).unwrap_or_default() {
                row.write(&mut builder);
            }
            let end = self.ends[i as usize];
            if self.removed[i as usize] {
                i = end;
                continue;
            }
            builder.open(std::mem::take(&mut self.data[i as usize]));
            open.push(end);
            i += 1;
        }
        builder.finish()
    }
}

fn renamable(role: Role) -> bool {
    matches!(
        role,
        Role::Label
            | Role::TableCell
            | Role::ListItem
            | Role::TreeItem
            | Role::PushButton
            | Role::ToggleButton
            | Role::MenuItem
            | Role::CheckMenuItem
            | Role::RadioMenuItem
            | Role::CheckBox
            | Role::RadioButton
            | Role::PageTab
            | Role::ComboBox
            | Role::Menu
    )
}

fn new_value(rng: &mut Rng, node: &NodeData) -> String {
    let old = node.value.as_deref().unwrap_or_default();
    let fresh = match node.role {
        Role::SpinButton | Role::ProgressBar | Role::Slider | Role::LevelBar => old
            .parse::<i64>()
            .map_or(0, |v| v + rng.range(1, 9))
            .to_string(),
        _ => format!("{} {}", rng.pick(words::ADJECTIVES), rng.pick(words::NOUNS)),
    };
    if fresh == old {
        format!("{fresh}!")
    } else {
        fresh
    }
}

fn toggle(node: &mut NodeData) {
    let s = &mut node.states;
    let flip = |s: &mut uidelta_model::StateSet, state: State| s.set(state, !s.contains(state));
    if s.contains(State::Checkable) {
        flip(s, State::Checked);
    } else if s.contains(State::Expandable) {
        flip(s, State::Expanded);
    } else if s.contains(State::Selectable) {
        flip(s, State::Selected);
    } else {
        flip(s, State::Enabled);
        let enabled = s.contains(State::Enabled);
        s.set(State::Sensitive, enabled);
    }
}
