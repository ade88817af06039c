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
///
/// What is below a container that manages its descendants (a spreadsheet)
/// may be made anew at every read (LibreOffice's cells are): a node there
/// that only one side holds by its identity is paired with the node in
/// the same place of the paired parent, of the same role and name, that
/// the other side holds under another identity.
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
    let pairs = pair_nodes(ta, tb);
    let paired_b: HashSet<crate::NodeId> = pairs.values().copied().collect();
    for y in tb.ids() {
        if !paired_b.contains(&y) {
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
    // Where a node is: its parent's counterpart in the second snapshot, and
    // its place there.
    let place_a = |n: crate::NodeId| {
        ta.parent(n).map(|p| {
            let p = pairs.get(&p).map_or_else(String::new, |&q| id(tb, q));
            format!("{p}#{}", ta.index_in_parent(n))
        })
    };
    let place_b = |n: crate::NodeId| {
        tb.parent(n)
            .map(|p| format!("{}#{}", id(tb, p), tb.index_in_parent(n)))
    };
    for x in ta.ids() {
        let at = id(ta, x);
        let nx = ta.node(x);
        let Some(&y) = pairs.get(&x) else {
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
            format!("{:?}", place_a(x)),
            format!("{:?}", place_b(y)),
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

/// The nodes of `ta` paired with those of `tb`: by identity, then, below a
/// container that manages its descendants, by place (see
/// [`differences`]).
fn pair_nodes(ta: &crate::Tree, tb: &crate::Tree) -> HashMap<crate::NodeId, crate::NodeId> {
    let id = |t: &crate::Tree, n: crate::NodeId| t.node(n).identity.clone().unwrap_or_default();
    let in_b: HashMap<String, crate::NodeId> = tb.ids().map(|n| (id(tb, n), n)).collect();
    let in_a: HashSet<String> = ta.ids().map(|n| id(ta, n)).collect();
    let mut pairs = HashMap::new();
    // Parents come before their children.
    for x in ta.ids() {
        if let Some(&y) = in_b.get(&id(ta, x)) {
            pairs.insert(x, y);
            continue;
        }
        let Some(px) = ta.parent(x) else { continue };
        let Some(&py) = pairs.get(&px) else { continue };
        let made_anew = std::iter::successors(Some(px), |&n| ta.parent(n))
            .any(|n| ta.node(n).states.contains(crate::State::ManagesDescendants));
        if !made_anew {
            continue;
        }
        let Some(&y) = tb.children(py).get(ta.index_in_parent(x)) else {
            continue;
        };
        let (nx, ny) = (ta.node(x), tb.node(y));
        if !in_a.contains(&id(tb, y)) && nx.raw_role == ny.raw_role && nx.name == ny.name {
            pairs.insert(x, y);
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Meta, NodeData, Role, TreeBuilder};

    #[test]
    fn cells_made_anew_are_paired_by_place_below_a_container_that_manages_them() {
        // A sheet of two cells, made anew at every read (`read` is part of
        // their identities), and a button beside it.
        let sheet = |read: &str, values: [&str; 2], button: &str| {
            let mut root = NodeData::named(Role::Frame, "Calc");
            root.identity = Some(":1.9/root".into());
            let mut b = TreeBuilder::new(root);
            let mut table = NodeData::named(Role::Table, "Sheet");
            table.raw_role = "table".into();
            table.identity = Some(":1.9/table".into());
            table.states.insert(crate::State::ManagesDescendants);
            b.open(table);
            for (row, value) in values.into_iter().enumerate() {
                let mut cell = NodeData::named(Role::TableCell, format!("A{row}"));
                cell.raw_role = "table cell".into();
                cell.identity = Some(format!(":1.9/{read}/{row}"));
                cell.value = Some(value.into());
                b.leaf(cell);
            }
            b.close();
            let mut push = NodeData::named(Role::PushButton, "Save");
            push.raw_role = "push button".into();
            push.identity = Some(format!(":1.9/{button}"));
            b.leaf(push);
            Snapshot::new(Meta::default(), b.finish())
        };
        let first = sheet("1", ["x", "y"], "save");
        // Made anew, the same: no difference.
        assert_eq!(
            differences(&first, &sheet("2", ["x", "y"], "save"), 20, true),
            vec![]
        );
        // Made anew with another value: the value differs.
        let found = differences(&first, &sheet("2", ["x", "z"], "save"), 20, true);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].what,
            r#"(table cell) value: Some("y") / Some("z")"#
        );
        // Outside the sheet, another identity is another node.
        let found = differences(&first, &sheet("1", ["x", "y"], "save2"), 20, true);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found.iter().all(|d| d.field == "presence"), "{found:?}");
    }

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
