//! The tree as text, the default an agent reads: one element per line.

use uidelta_diff::{Refs, View};
use uidelta_model::NodeId;

use crate::line::{element_line, Detail, Facts, HiddenParents};

/// The first line of the text of a tree that node or depth caps cut short.
pub(crate) const TRUNCATED_NOTE: &str = "# truncated: the tree was cut at a node or depth cap";

/// Options of [`tree_text`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeOptions {
    /// Show each element's bounds as `@x,y wxh`. Off by default: agents
    /// rarely need coordinates and they cost tokens on every line.
    pub bounds: bool,
}

/// The view as text, one element per line, indented two spaces per depth:
/// `[e12] push button "Save" = "text" (focused, disabled)`. `refs` must be
/// the refs of `view`; an element they do not cover is shown as `[?]`.
/// Costs one pass over the view, no recursion.
pub fn tree_text(view: &View, refs: &Refs, opts: &TreeOptions) -> String {
    let tree = view.tree();
    let mut out = String::new();
    if view.meta().truncated {
        out.push_str(TRUNCATED_NOTE);
        out.push('\n');
    }
    let mut hidden = HiddenParents::default();
    for id in tree.ids() {
        let node = tree.node(id);
        let depth = tree.depth(id);
        let detail = Detail {
            value_and_states: true,
            bounds: opts.bounds,
            parent_hidden: hidden.visit(depth, node.states),
            brief_name: false,
        };
        out.push_str(&"  ".repeat(depth));
        out.push_str(&element_line(ref_of(refs, id), Facts::from(node), detail));
        out.push('\n');
    }
    out
}

/// The ref of a view node, if `refs` covers it.
pub(crate) fn ref_of(refs: &Refs, id: NodeId) -> Option<uidelta_diff::Ref> {
    refs.as_slice().get(id.index()).copied()
}
