//! Stable element handles (`e12`).
//!
//! A ref is given the first time a session sees an element and carried
//! forward through matching, so it survives a change of name or value.
//! Refs never take part in comparison.

use std::fmt;
use std::str::FromStr;

use rustc_hash::FxHashMap;
use uidelta_model::NodeId;

/// A short handle an agent can act on: `e12`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ref(pub u32);

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}", self.0)
    }
}

/// Why a string is not a ref.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadRef(pub String);

impl fmt::Display for BadRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a ref: refs look like e12", self.0)
    }
}

impl std::error::Error for BadRef {}

impl FromStr for Ref {
    type Err = BadRef;

    fn from_str(s: &str) -> Result<Ref, BadRef> {
        s.strip_prefix('e')
            .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|digits| digits.parse().ok())
            .map(Ref)
            .ok_or_else(|| BadRef(s.to_owned()))
    }
}

/// The refs of one view's nodes, indexed by view node id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Refs {
    by_node: Vec<Ref>,
    by_ref: FxHashMap<Ref, NodeId>,
}

impl Refs {
    /// Builds the map from one ref per node, in node order.
    pub fn from_vec(by_node: Vec<Ref>) -> Refs {
        let by_ref = by_node
            .iter()
            .enumerate()
            .map(|(i, r)| (*r, NodeId(i as u32)))
            .collect();
        Refs { by_node, by_ref }
    }

    /// The ref of a node.
    ///
    /// # Panics
    /// When `id` is not a node of the view these refs belong to.
    pub fn get(&self, id: NodeId) -> Ref {
        self.by_node[id.index()]
    }

    /// The node that carries `r`, if any.
    pub fn find(&self, r: Ref) -> Option<NodeId> {
        self.by_ref.get(&r).copied()
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.by_node.len()
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.by_node.is_empty()
    }

    /// All refs in node order.
    pub fn as_slice(&self) -> &[Ref] {
        &self.by_node
    }
}

/// Hands out refs for one session. Numbers are never reused.
#[derive(Clone, Debug)]
pub struct RefTable {
    next: u32,
}

impl Default for RefTable {
    fn default() -> Self {
        RefTable { next: 1 }
    }
}

impl RefTable {
    /// A table whose first ref is `e1`.
    pub fn new() -> RefTable {
        RefTable::default()
    }

    /// A ref never handed out before.
    pub fn fresh(&mut self) -> Ref {
        let r = Ref(self.next);
        self.next = self.next.saturating_add(1);
        r
    }

    /// Fresh refs for every node of a view of `len` nodes, in preorder: what
    /// the first snapshot of a session gets.
    pub fn label(&mut self, len: usize) -> Refs {
        Refs::from_vec((0..len).map(|_| self.fresh()).collect())
    }

    /// The ref the next call to [`RefTable::fresh`] returns.
    pub fn peek(&self) -> Ref {
        Ref(self.next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_parse_and_print() {
        assert_eq!("e12".parse::<Ref>(), Ok(Ref(12)));
        assert_eq!(Ref(7).to_string(), "e7");
        assert!("12".parse::<Ref>().is_err());
        assert!("e".parse::<Ref>().is_err());
        assert!("e1x".parse::<Ref>().is_err());
        assert!("e99999999999".parse::<Ref>().is_err());
    }

    #[test]
    fn table_labels_in_preorder_and_never_reuses() {
        let mut t = RefTable::new();
        let refs = t.label(3);
        assert_eq!(refs.as_slice(), &[Ref(1), Ref(2), Ref(3)]);
        assert_eq!(refs.find(Ref(2)), Some(NodeId(1)));
        assert_eq!(t.fresh(), Ref(4));
    }
}
