//! Comparing two snapshots of one application node for node, nodes paired
//! by identity: how a live mirror (of a desktop application or a page) is
//! checked against a whole read.

use std::collections::{HashMap, HashSet};

use crate::Snapshot;

/// One way two snapshots differ: at the node with `identity` (empty for
/// the snapshot as a whole), `what`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The node's identity (`:1.4/org/a11y/atspi/accessible/12`).
    pub identity: String,
    /// What of it differs: `bounds` (`nudge` when only by a few pixels),
    /// `states`, `name`, `place`, …, or
    /// `presence` for a node in one snapshot only, `truncated` for the
    /// snapshots as a whole.
    pub field: &'static str,
    /// What differs, first snapshot's then second's.
    pub what: String,
}

impl Difference {
    /// Whether it is the node's bounds that differ (a nudge too).
    pub fn is_bounds(&self) -> bool {
        self.field == "bounds" || self.is_nudge()
    }

    /// Whether the node is in the same place but for a few pixels, with
    /// the same size (see [`NUDGE`]).
    pub fn is_nudge(&self) -> bool {
        self.field == "nudge"
    }
}

/// How far (in pixels, each way) a node may be from where a whole walk
/// finds it, with the same size, and count as nudged: the last pixels of a
/// slide that ended without an event (gedit's search bar, on a busy
/// machine).
pub const NUDGE: i32 = 4;

fn is_nudge(a: crate::Rect, b: crate::Rect) -> bool {
    a.w == b.w && a.h == b.h && (a.x - b.x).abs() <= NUDGE && (a.y - b.y).abs() <= NUDGE
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.identity, self.what)
    }
}

/// Where two snapshots of one application differ, node for node (nodes
/// paired by identity): the first `limit` differences, each as a line.
/// Times are not compared, and bounds only when `bounds` is true.
pub fn differences(a: &Snapshot, b: &Snapshot, limit: usize, bounds: bool) -> Vec<Difference> {
    let (ta, tb) = (a.tree(), b.tree());
    let mut out = Vec::new();
    if a.meta.truncated != b.meta.truncated {
        out.push(Difference {
            identity: String::new(),
            field: "truncated",
            what: format!("truncated: {} / {}", a.meta.truncated, b.meta.truncated),
        });
    }
    let id = |t: &crate::Tree, n: crate::NodeId| t.node(n).identity.clone().unwrap_or_default();
    let place = |t: &crate::Tree, n: crate::NodeId| {
        t.parent(n)
            .map(|p| format!("{}#{}", id(t, p), t.index_in_parent(n)))
    };
    // Where a node only one side holds is: its parent, and its place there.
    let under = |t: &crate::Tree, n: crate::NodeId| {
        t.parent(n).map_or_else(String::new, |p| {
            let parent = t.node(p);
            format!(
                ", child {} of {} {:?} {}",
                t.index_in_parent(n),
                parent.raw_role,
                parent.name,
                id(t, p)
            )
        })
    };
    let in_b: HashMap<String, crate::NodeId> = tb.ids().map(|n| (id(tb, n), n)).collect();
    let in_a: HashSet<String> = ta.ids().map(|n| id(ta, n)).collect();
    for y in tb.ids() {
        if !in_a.contains(&id(tb, y)) {
            let n = tb.node(y);
            out.push(Difference {
                identity: id(tb, y),
                field: "presence",
                what: format!(
                    "only in the second ({} {:?}{})",
                    n.raw_role,
                    n.name,
                    under(tb, y)
                ),
            });
        }
    }
    for x in ta.ids() {
        let at = id(ta, x);
        let nx = ta.node(x);
        let Some(&y) = in_b.get(&at) else {
            out.push(Difference {
                identity: at.clone(),
                field: "presence",
                what: format!(
                    "only in the first ({} {:?}{})",
                    nx.raw_role,
                    nx.name,
                    under(ta, x)
                ),
            });
            continue;
        };
        let ny = tb.node(y);
        let role = &nx.raw_role;
        let mut field = |what: &'static str, l: String, r: String| {
            if l != r {
                out.push(Difference {
                    identity: at.clone(),
                    field: what,
                    what: format!("({role}) {what}: {l} / {r}"),
                });
            }
        };
        field(
            "place",
            format!("{:?}", place(ta, x)),
            format!("{:?}", place(tb, y)),
        );
        field("role", nx.raw_role.clone(), ny.raw_role.clone());
        field("name", nx.name.clone(), ny.name.clone());
        field(
            "description",
            nx.description.clone(),
            ny.description.clone(),
        );
        field(
            "value",
            format!("{:?}", nx.value),
            format!("{:?}", ny.value),
        );
        field(
            "states",
            format!("{:?}", nx.states),
            format!("{:?}", ny.states),
        );
        if bounds {
            let kind = match (nx.bounds, ny.bounds) {
                (Some(a), Some(b)) if is_nudge(a, b) => "nudge",
                _ => "bounds",
            };
            field(kind, format!("{:?}", nx.bounds), format!("{:?}", ny.bounds));
        }
        field(
            "attributes",
            format!("{:?}", nx.attributes),
            format!("{:?}", ny.attributes),
        );
    }
    out.truncate(limit);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Meta, NodeData, Role, TreeBuilder};

    #[test]
    fn a_node_one_side_lacks_is_said_with_its_parent() {
        let window = |with_document: bool| {
            let mut root = NodeData::named(Role::Frame, "Browser");
            root.identity = Some(":1.5/root".into());
            let mut b = TreeBuilder::new(root);
            let mut panel = NodeData::named(Role::Panel, "");
            panel.raw_role = "panel".into();
            panel.identity = Some(":1.5/20".into());
            b.open(panel);
            if with_document {
                let mut doc = NodeData::named(Role::DocumentWeb, "");
                doc.raw_role = "document web".into();
                doc.identity = Some(":1.5/263".into());
                b.leaf(doc);
            }
            b.close();
            Snapshot::new(Meta::default(), b.finish())
        };
        let found = differences(&window(false), &window(true), 20, true);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].what,
            r#"only in the second (document web "", child 0 of panel "" :1.5/20)"#
        );
        let found = differences(&window(true), &window(false), 20, true);
        assert_eq!(
            found[0].what,
            r#"only in the first (document web "", child 0 of panel "" :1.5/20)"#
        );
    }
}
