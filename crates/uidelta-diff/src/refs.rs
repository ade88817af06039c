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

/// Hands out refs for one session. A number is never given to another
/// element: an element that leaves gets its ref back when it returns (the
/// same platform identity under the same root, as a page of a stack shown
/// again), and no other element ever gets it.
#[derive(Clone, Debug)]
pub struct RefTable {
    next: u32,
    /// Elements that left, by (root identity, identity): their ref and the
    /// hash of their subtree as it was when they left.
    away: FxHashMap<(String, String), (Ref, u64)>,
}

/// The ref an appearing element gets from [`RefTable::arriving`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// Its ref: the one it had before, or a fresh one.
    pub r#ref: Ref,
    /// When it was here before: the hash its subtree had when it left
    /// ([`crate::View::subtree_hash`]), to tell whether it came back as it
    /// was.
    pub left_as: Option<u64>,
}

/// Most refs kept for elements that left; past it the oldest half is
/// forgotten (those elements get fresh refs if they ever return).
const AWAY_LIMIT: usize = 200_000;

impl Default for RefTable {
    fn default() -> Self {
        RefTable {
            next: 1,
            away: FxHashMap::default(),
        }
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

    /// The ref of an element that appears: the one it had when it left, if
    /// it was here before (same identity under the same root), else a fresh
    /// one.
    pub fn arriving(&mut self, root: Option<&str>, identity: Option<&str>) -> Arrival {
        let back = match (root, identity) {
            (Some(root), Some(identity)) => {
                self.away.remove(&(root.to_owned(), identity.to_owned()))
            }
            _ => None,
        };
        match back {
            Some((r, hash)) => Arrival {
                r#ref: r,
                left_as: Some(hash),
            },
            None => Arrival {
                r#ref: self.fresh(),
                left_as: None,
            },
        }
    }

    /// Remembers the ref of an element that left, and the hash of its
    /// subtree as it left, for when it returns.
    pub fn leaving(
        &mut self,
        root: Option<&str>,
        identity: Option<&str>,
        r: Ref,
        subtree_hash: u64,
    ) {
        let (Some(root), Some(identity)) = (root, identity) else {
            return;
        };
        if self.away.len() >= AWAY_LIMIT {
            let mut oldest: Vec<((String, String), (Ref, u64))> = self.away.drain().collect();
            oldest.sort_by_key(|(_, (r, _))| *r);
            self.away = oldest.split_off(AWAY_LIMIT / 2).into_iter().collect();
        }
        self.away
            .insert((root.to_owned(), identity.to_owned()), (r, subtree_hash));
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

    /// How many more refs [`RefTable::fresh`] can hand out, each once:
    /// refs end at `e4294967294` (the last number stays unused, so that a
    /// table at the end never gives one twice). Whoever hands out refs for
    /// a view checks that it has room for the view's nodes first.
    pub fn left(&self) -> u64 {
        u64::from(u32::MAX - self.next)
    }

    /// The refs of elements that left, for when they return: `(root
    /// identity, identity, ref, subtree hash as it left)`, oldest ref
    /// first. With [`RefTable::peek`], all a table is
    /// ([`RefTable::restore`]).
    pub fn away(&self) -> Vec<(String, String, Ref, u64)> {
        let mut out: Vec<(String, String, Ref, u64)> = self
            .away
            .iter()
            .map(|((root, id), (r, hash))| (root.clone(), id.clone(), *r, *hash))
            .collect();
        out.sort_by_key(|(_, _, r, _)| *r);
        out
    }

    /// A table that carries on one saved with [`RefTable::peek`] and
    /// [`RefTable::away`]: its next fresh ref is `next`.
    pub fn restore(
        next: Ref,
        away: impl IntoIterator<Item = (String, String, Ref, u64)>,
    ) -> RefTable {
        RefTable {
            next: next.0.max(1),
            away: away
                .into_iter()
                .map(|(root, id, r, hash)| ((root, id), (r, hash)))
                .collect(),
        }
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
    fn a_restored_table_carries_on() {
        let mut t = RefTable::new();
        t.label(4);
        t.leaving(Some("app"), Some("/a/7"), Ref(3), 99);
        let again = RefTable::restore(t.peek(), t.away());
        assert_eq!(again.peek(), Ref(5));
        let mut again = again;
        assert_eq!(
            again.arriving(Some("app"), Some("/a/7")),
            Arrival {
                r#ref: Ref(3),
                left_as: Some(99)
            }
        );
        assert_eq!(again.fresh(), Ref(5));
        assert_eq!(RefTable::restore(Ref(0), []).peek(), Ref(1));
    }

    #[test]
    fn a_table_says_how_many_refs_are_left() {
        assert_eq!(RefTable::new().left(), u64::from(u32::MAX) - 1);
        let mut t = RefTable::restore(Ref(u32::MAX - 2), []);
        assert_eq!(t.left(), 2);
        assert_eq!(t.fresh(), Ref(u32::MAX - 2));
        assert_eq!(t.fresh(), Ref(u32::MAX - 1));
        assert_eq!(t.left(), 0);
        assert_eq!(RefTable::restore(Ref(u32::MAX), []).left(), 0);
    }

    #[test]
    fn table_labels_in_preorder_and_never_reuses() {
        let mut t = RefTable::new();
        let refs = t.label(3);
        assert_eq!(refs.as_slice(), &[Ref(1), Ref(2), Ref(3)]);
        assert_eq!(refs.find(Ref(2)), Some(NodeId(1)));
        assert_eq!(t.fresh(), Ref(4));
    }

    #[test]
    fn an_element_that_returns_gets_its_ref_back_once() {
        let mut t = RefTable::new();
        t.label(4);
        t.leaving(Some("app"), Some(":1.5/7"), Ref(3), 77);
        t.leaving(None, Some(":1.5/8"), Ref(4), 88);
        let fresh = |n| Arrival {
            r#ref: Ref(n),
            left_as: None,
        };
        assert_eq!(t.arriving(Some("other app"), Some(":1.5/7")), fresh(5));
        assert_eq!(
            t.arriving(Some("app"), Some(":1.5/7")),
            Arrival {
                r#ref: Ref(3),
                left_as: Some(77)
            }
        );
        assert_eq!(t.arriving(Some("app"), Some(":1.5/7")), fresh(6));
        assert_eq!(t.arriving(Some("app"), None), fresh(7));
    }
}
