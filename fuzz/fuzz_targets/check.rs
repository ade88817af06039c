//! Invariants every parse result must keep, shared by the targets.

use uidelta_formats::{ParseError, MAX_NODES};
use uidelta_model::{NodeId, Snapshot};

/// A snapshot is a well-formed preorder tree within the caps.
pub fn snapshot(snap: &Snapshot, max_depth: usize) {
    let tree = snap.tree();
    assert_eq!(snap.node_count(), tree.len());
    assert!(!tree.is_empty());
    assert!(tree.len() <= MAX_NODES);
    assert_eq!(tree.parent(NodeId::ROOT), None);
    assert_eq!(tree.subtree_len(NodeId::ROOT), tree.len());
    for id in tree.ids().skip(1) {
        let parent = tree
            .parent(id)
            .expect("every node but the root has a parent");
        assert!(parent < id, "preorder: parent before child");
        assert!(tree.children(parent).contains(&id));
        assert_eq!(tree.depth(id), tree.depth(parent) + 1);
        assert!(tree.depth(id) <= max_depth);
        // A subtree lies inside its parent's.
        assert!(id.index() + tree.subtree_len(id) <= parent.index() + tree.subtree_len(parent));
    }
    for node in tree.nodes() {
        assert!(
            node.attributes.windows(2).all(|w| w[0].0 < w[1].0),
            "attributes sorted, keys unique: {:?}",
            node.attributes
        );
    }
}

/// An error points inside the text (or just past its end) and says something.
pub fn error(err: &ParseError, text: &str) {
    assert!(!err.message.is_empty());
    assert!(err.line >= 1 && err.column >= 1, "{err}");
    let lines: Vec<&str> = text.split('\n').collect();
    assert!(err.line <= lines.len(), "{err}: only {} lines", lines.len());
    let width = lines[err.line - 1].chars().count();
    assert!(
        err.column <= width + 1,
        "{err}: line {} has {width} characters",
        err.line
    );
}
