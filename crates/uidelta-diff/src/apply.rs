//! Replaying a diff on the before view.
//!
//! `apply(before, diff(before, after))` gives `after` modulo filtered noise.
//! That property is what proves a diff complete (nothing that changed was
//! left out); the property tests check it on random trees and edits.

use std::fmt;

use rustc_hash::FxHashMap;
use uidelta_model::{NodeData, NodeId, Role, State, Tree, TreeBuilder};

use crate::change::{Attr, AttrChange, AttrValue, Change, Diff, SubtreeNode};
use crate::refs::{Ref, Refs};
use crate::view::View;

/// Why a diff does not fit the view it was applied to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyError(pub String);

impl fmt::Display for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "applying a diff: {}", self.0)
    }
}

impl std::error::Error for ApplyError {}

struct Slot {
    data: NodeData,
    r#ref: Ref,
    children: Vec<usize>,
}

/// Replays `diff` on `before`; returns the resulting tree and its refs.
pub fn apply(before: &View, before_refs: &Refs, diff: &Diff) -> Result<(Tree, Refs), ApplyError> {
    let mut arena = Arena::load(before.tree(), before_refs);
    for change in &diff.changes {
        if let Change::Removed(r) = change {
            let parent = arena.find(r.parent)?;
            let gone = arena.find(r.root().r#ref)?;
            arena.slots[parent].children.retain(|&c| c != gone);
        }
    }
    // Children lists to rebuild: parent slot -> (index -> placed slot).
    let mut placed: FxHashMap<usize, Vec<(usize, usize)>> = FxHashMap::default();
    for change in &diff.changes {
        match change {
            Change::Modified(m) => {
                let slot = arena.find(m.element.r#ref)?;
                for c in &m.changes {
                    if let (Attr::Position, AttrValue::Index(new)) = (&c.attr, &c.new) {
                        let parent = arena.parent_of(slot)?;
                        arena.slots[parent].children.retain(|&x| x != slot);
                        placed.entry(parent).or_default().push((*new, slot));
                    } else if let (Attr::Parent, AttrValue::Place(to)) = (&c.attr, &c.new) {
                        let from = arena.parent_of(slot)?;
                        arena.slots[from].children.retain(|&x| x != slot);
                        let parent = arena.find(to.parent.r#ref)?;
                        arena.parent[slot] = Some(parent);
                        placed.entry(parent).or_default().push((to.index, slot));
                    } else {
                        arena.modify(slot, c, &m.element)?;
                    }
                }
                for inherited in &m.descendants {
                    let inner = arena.find(inherited.r#ref)?;
                    for c in &inherited.changes {
                        arena.modify(inner, c, &m.element)?;
                    }
                }
            }
            Change::Added(a) => {
                let parent = arena.find(a.parent)?;
                let root = arena.graft(&a.subtree)?;
                placed.entry(parent).or_default().push((a.index, root));
            }
            Change::Removed(_) => {}
        }
    }
    for m in &diff.handed_over {
        let slot = arena.find(m.element.r#ref)?;
        for c in &m.changes {
            arena.modify(slot, c, &m.element)?;
        }
        for inherited in &m.descendants {
            let inner = arena.find(inherited.r#ref)?;
            for c in &inherited.changes {
                arena.modify(inner, c, &m.element)?;
            }
        }
    }
    for moved in &diff.hidden_moves {
        let slot = arena.find(moved.r#ref)?;
        let parent = arena.parent_of(slot)?;
        arena.slots[parent].children.retain(|&x| x != slot);
        placed.entry(parent).or_default().push((moved.new, slot));
    }
    for (parent, mut items) in placed {
        items.sort_unstable();
        let stayers = std::mem::take(&mut arena.slots[parent].children);
        let total = stayers.len() + items.len();
        let mut stayers = stayers.into_iter();
        let mut items = items.into_iter().peekable();
        let mut children = Vec::with_capacity(total);
        for index in 0..total {
            match items.peek() {
                Some(&(at, slot)) if at == index => {
                    children.push(slot);
                    items.next();
                }
                _ => children.push(stayers.next().ok_or_else(|| {
                    ApplyError(format!("position {index} under a parent is out of range"))
                })?),
            }
        }
        if items.next().is_some() {
            return Err(ApplyError("two changes claim the same position".into()));
        }
        arena.slots[parent].children = children;
    }
    if let Some(focus) = &diff.focus {
        if let Some(from) = &focus.from {
            if let Ok(slot) = arena.find(from.r#ref) {
                arena.slots[slot].data.states.remove(State::Focused);
            }
        }
        if let Some(to) = &focus.to {
            let slot = arena.find(to.r#ref)?;
            arena.slots[slot].data.states.insert(State::Focused);
        }
    }
    Ok(arena.into_tree())
}

struct Arena {
    slots: Vec<Slot>,
    by_ref: FxHashMap<Ref, usize>,
    parent: Vec<Option<usize>>,
}

impl Arena {
    fn load(tree: &Tree, refs: &Refs) -> Arena {
        let slots = tree
            .ids()
            .map(|n| Slot {
                data: tree.node(n).clone(),
                r#ref: refs.get(n),
                children: tree.children(n).iter().map(|c| c.index()).collect(),
            })
            .collect::<Vec<_>>();
        let by_ref = slots
            .iter()
            .enumerate()
            .map(|(i, s)| (s.r#ref, i))
            .collect();
        let parent = tree
            .ids()
            .map(|n| tree.parent(n).map(NodeId::index))
            .collect();
        Arena {
            slots,
            by_ref,
            parent,
        }
    }

    fn find(&self, r: Ref) -> Result<usize, ApplyError> {
        self.by_ref
            .get(&r)
            .copied()
            .ok_or_else(|| ApplyError(format!("no element {r} in the before tree")))
    }

    fn parent_of(&self, slot: usize) -> Result<usize, ApplyError> {
        self.parent[slot].ok_or_else(|| ApplyError("the root cannot move".into()))
    }

    fn graft(&mut self, subtree: &[SubtreeNode]) -> Result<usize, ApplyError> {
        let mut path: Vec<usize> = Vec::new();
        let mut root = None;
        for node in subtree {
            let slot = self.slots.len();
            self.slots.push(Slot {
                data: node.element.to_node(),
                r#ref: node.element.r#ref,
                children: Vec::new(),
            });
            self.parent.push(None);
            self.by_ref.insert(node.element.r#ref, slot);
            path.truncate(node.depth);
            match path.last() {
                Some(&p) => {
                    self.slots[p].children.push(slot);
                    self.parent[slot] = Some(p);
                }
                None if root.is_none() && node.depth == 0 => root = Some(slot),
                None => return Err(ApplyError("an added subtree is not a tree".into())),
            }
            path.push(slot);
        }
        root.ok_or_else(|| ApplyError("an added subtree is empty".into()))
    }

    fn modify(
        &mut self,
        slot: usize,
        c: &AttrChange,
        after: &crate::Element,
    ) -> Result<(), ApplyError> {
        let data = &mut self.slots[slot].data;
        let text = |v: &AttrValue| match v {
            AttrValue::Text(s) => Ok(Some(s.clone())),
            AttrValue::Absent => Ok(None),
            other => Err(ApplyError(format!(
                "{} cannot be {other:?}",
                c.attr.label()
            ))),
        };
        match &c.attr {
            Attr::Name => data.name = text(&c.new)?.unwrap_or_default(),
            Attr::Value => data.value = text(&c.new)?,
            Attr::Description => data.description = text(&c.new)?.unwrap_or_default(),
            Attr::Role => {
                data.raw_role = text(&c.new)?.unwrap_or_default();
                data.role = if after.raw_role == data.raw_role {
                    after.role
                } else {
                    Role::from_name(&data.raw_role)
                };
            }
            Attr::State(s) => match c.new {
                AttrValue::Bool(on) => data.states.set(*s, on),
                ref other => return Err(ApplyError(format!("state {s} cannot be {other:?}"))),
            },
            Attr::Attribute(k) => match text(&c.new)? {
                Some(v) => data.set_attribute(k.clone(), v),
                None => {
                    data.remove_attribute(k);
                }
            },
            Attr::Bounds => {
                data.bounds = match c.new {
                    AttrValue::Rect(r) => Some(r),
                    _ => None,
                }
            }
            Attr::Position | Attr::Parent => {}
        }
        Ok(())
    }

    fn into_tree(self) -> (Tree, Refs) {
        let mut slots: Vec<Option<Slot>> = self.slots.into_iter().map(Some).collect();
        let take = |slots: &mut Vec<Option<Slot>>, i: usize| slots[i].take();
        let Some(root) = take(&mut slots, 0) else {
            return (Tree::leaf(NodeData::default()), Refs::default());
        };
        let mut refs = vec![root.r#ref];
        let mut builder = TreeBuilder::new(root.data);
        // Each frame: children still to visit, in reverse.
        let mut stack: Vec<Vec<usize>> = vec![root.children.into_iter().rev().collect()];
        while let Some(frame) = stack.last_mut() {
            match frame.pop() {
                Some(i) => {
                    if let Some(slot) = take(&mut slots, i) {
                        builder.open(slot.data);
                        refs.push(slot.r#ref);
                        stack.push(slot.children.into_iter().rev().collect());
                    }
                }
                None => {
                    stack.pop();
                    builder.close();
                }
            }
        }
        (builder.finish(), Refs::from_vec(refs))
    }
}
