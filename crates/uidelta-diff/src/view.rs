//! A snapshot with the noise taken out and every subtree hashed.
//!
//! Building a view costs one pass over the snapshot; it is done once per
//! capture. Diffing two views then compares hashes first, so an unchanged
//! subtree of any size costs one comparison.

use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;
use uidelta_model::{Meta, NodeData, NodeId, Role, Snapshot, State, StateSet, Tree, TreeBuilder};

use crate::filter::{Filters, Rule};

/// A filtered, hashed tree ready to be diffed.
#[derive(Clone, Debug)]
pub struct View {
    meta: Meta,
    tree: Tree,
    origin: Vec<NodeId>,
    lifted: Lifted,
    content: Vec<u64>,
    subtree: Vec<u64>,
    focus: Option<NodeId>,
    filters: Filters,
}

impl View {
    /// Applies `filters` to `snapshot` and hashes the result.
    pub fn new(snapshot: &Snapshot, filters: Filters) -> View {
        View::built(snapshot, filters, None)
    }

    /// [`View::new`] for the snapshot that follows `before` (of the same
    /// application, diffed against it): a list item that says nothing is
    /// shown, or not, as it was in `before`, whatever it holds now. A
    /// list item around one element only wraps it and is left out; when a
    /// second element comes into it (a menu that a page shows while the
    /// pointer is over its button), shown anew it would take the first one
    /// away from where it was, a removal and an addition of an element
    /// that did not change, under a new ref. A list item `before` does not
    /// have is shown, or not, as [`View::new`] does.
    pub fn following(snapshot: &Snapshot, filters: Filters, before: &View) -> View {
        View::built(snapshot, filters, Some(&before.memory()))
    }

    /// [`View::following`] a view whose list items were `was` (see
    /// [`View::list_items`]): the same view again, from its snapshot
    /// saved with them.
    pub fn with_list_items(snapshot: &Snapshot, filters: Filters, was: &ListItems) -> View {
        let memory = Memory {
            left_out: was.left_out.iter().map(String::as_str).collect(),
            shown: was.shown.iter().map(String::as_str).collect(),
        };
        View::built(snapshot, filters, Some(&memory))
    }

    /// Which list items with an identity this view leaves out and which it
    /// shows, to build it again from its snapshot
    /// ([`View::with_list_items`]).
    pub fn list_items(&self) -> ListItems {
        let memory = self.memory();
        let mut left_out: Vec<String> = memory.left_out.into_iter().map(str::to_owned).collect();
        let mut shown: Vec<String> = memory.shown.into_iter().map(str::to_owned).collect();
        left_out.sort_unstable();
        shown.sort_unstable();
        ListItems { left_out, shown }
    }

    /// The identities of the list items this view leaves out and of
    /// those it shows.
    fn memory(&self) -> Memory<'_> {
        let mut was = Memory::default();
        for i in &self.lifted.list_items {
            was.left_out.insert(i.as_str());
        }
        for n in self.tree.nodes() {
            if let (Role::ListItem, Some(i)) = (n.role, n.identity.as_deref()) {
                was.shown.insert(i);
            }
        }
        was
    }

    fn built(snapshot: &Snapshot, filters: Filters, was: Option<&Memory>) -> View {
        let (tree, origin, lifted) = filter_tree(snapshot.tree(), filters, was);
        let mut view = View::from_filtered(snapshot.meta.clone(), tree, origin, filters);
        view.lifted = lifted;
        view
    }

    /// A view of a tree that is already filtered (as [`crate::apply`]
    /// produces), hashed under `filters`.
    pub fn from_filtered(meta: Meta, tree: Tree, origin: Vec<NodeId>, filters: Filters) -> View {
        let compared = filters.compared_states();
        let with_bounds = !filters.is_on(Rule::Bounds);
        let content: Vec<u64> = tree
            .nodes()
            .iter()
            .map(|n| content_hash(n, compared, with_bounds))
            .collect();
        let mut subtree = vec![0u64; tree.len()];
        for id in tree.ids().rev() {
            let mut h = FxHasher::default();
            content[id.index()].hash(&mut h);
            let children = tree.children(id);
            children.len().hash(&mut h);
            for c in children {
                subtree[c.index()].hash(&mut h);
            }
            subtree[id.index()] = h.finish();
        }
        let focus = focus_of(&tree);
        View {
            meta,
            tree,
            origin,
            lifted: Lifted::default(),
            content,
            subtree,
            focus,
            filters,
        }
    }

    /// The filtered tree.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// The snapshot's metadata.
    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    /// The filters this view was built with.
    pub fn filters(&self) -> Filters {
        self.filters
    }

    /// The node in the original snapshot that view node `id` shows; actions
    /// go there.
    pub fn origin(&self, id: NodeId) -> NodeId {
        self.origin[id.index()]
    }

    /// The platform identities of the transparent containers view node `id`
    /// was lifted out of, innermost first (containers without an identity
    /// are skipped). Children lifted out of one container share it: a stack
    /// page that is shown or hidden as a whole.
    pub fn lifted_from(&self, id: NodeId) -> impl Iterator<Item = &str> {
        let mut slot = self
            .lifted
            .of
            .get(id.index())
            .copied()
            .unwrap_or(Lifted::NONE);
        std::iter::from_fn(move || {
            while slot != Lifted::NONE {
                let (identity, parent) = self.lifted.containers.get(slot as usize)?;
                slot = *parent;
                if let Some(identity) = identity {
                    return Some(identity.as_str());
                }
            }
            None
        })
    }

    /// Identities of every transparent container children were lifted out
    /// of.
    pub fn lifted_containers(&self) -> impl Iterator<Item = &str> {
        self.lifted
            .containers
            .iter()
            .filter_map(|(i, _)| i.as_deref())
    }

    /// Hash of what is compared on the node itself.
    pub fn content_hash(&self, id: NodeId) -> u64 {
        self.content[id.index()]
    }

    /// Hash of the node's whole subtree; equal hashes mean nothing to report
    /// inside.
    pub fn subtree_hash(&self, id: NodeId) -> u64 {
        self.subtree[id.index()]
    }

    /// The focused element: the last node with the `focused` state, in
    /// document order, but for a document of a window that is not active
    /// (see `focus_of`).
    pub fn focus(&self) -> Option<NodeId> {
        self.focus
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    /// Always false: a view has a root.
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }
}

/// The element with the keyboard focus: the last `focused` node in document
/// order. In an application's tree a document in a window without `active`
/// does not count: Chromium marks the documents of its hidden pop-up
/// windows focused at all times, and they come after the browser window.
/// (A window's `active` alone does not decide: GTK without a window
/// manager leaves it on the main window while a dialog has the keyboard.)
fn focus_of(tree: &Tree) -> Option<NodeId> {
    let desktop = tree.node(NodeId::ROOT).role == Role::Application;
    let stray = |id: NodeId| {
        desktop
            && tree.node(id).role.is_document()
            && std::iter::once(id)
                .chain(tree.ancestors(id))
                .find(|&n| tree.parent(n) == Some(NodeId::ROOT))
                .is_some_and(|w| !tree.node(w).states.contains(State::Active))
    };
    tree.ids()
        .rev()
        .find(|&id| tree.node(id).states.contains(State::Focused) && !stray(id))
}

fn content_hash(n: &NodeData, compared: StateSet, with_bounds: bool) -> u64 {
    let mut h = FxHasher::default();
    n.role.hash(&mut h);
    if n.role == Role::Unknown {
        n.raw_role.hash(&mut h);
    }
    n.name.hash(&mut h);
    n.value.hash(&mut h);
    n.description.hash(&mut h);
    n.states.intersection(compared).bits().hash(&mut h);
    n.attributes.hash(&mut h);
    if with_bounds {
        n.bounds.hash(&mut h);
    }
    h.finish()
}

/// Where lifted nodes came from: per view node the innermost transparent
/// container it was lifted out of (`NONE` when it was not lifted), and per
/// container its identity and the container it sits in (`NONE` below a kept
/// node).
#[derive(Clone, Debug, Default)]
struct Lifted {
    of: Vec<u32>,
    containers: Vec<(Option<String>, u32)>,
    /// The identities of the list items among the containers.
    list_items: Vec<String>,
}

impl Lifted {
    const NONE: u32 = u32::MAX;
}

/// Which list items a view leaves out and which it shows, by identity
/// (see [`View::list_items`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListItems {
    /// The identities of the list items left out.
    pub left_out: Vec<String>,
    /// The identities of the list items shown.
    pub shown: Vec<String>,
}

/// The list items of the view before (see [`View::following`]), by
/// identity: those left out, and those shown.
#[derive(Default)]
struct Memory<'a> {
    left_out: rustc_hash::FxHashSet<&'a str>,
    shown: rustc_hash::FxHashSet<&'a str>,
}

/// What the filters do to one node.
enum Fate {
    Keep,
    /// Left out with its whole subtree.
    Drop,
    /// Left out, its children shown under its parent.
    Transparent,
}

/// What the filters do with the raw node `id`.
fn fate(raw: &Tree, id: NodeId, filters: Filters, was: Option<&Memory>) -> Fate {
    let n = raw.node(id);
    if filters.is_on(Rule::Scrollbars) && n.role.is_scroll_indicator() {
        return Fate::Drop;
    }
    // A list item around one element (a link in a menu) only wraps it:
    // `list > link` says what `list > list item > link` does. One the
    // view before had stays as it was there (see [`View::following`]).
    let wraps = || {
        let remembered = was.zip(n.identity.as_deref()).and_then(|(was, i)| {
            if was.left_out.contains(i) {
                Some(true)
            } else if was.shown.contains(i) {
                Some(false)
            } else {
                None
            }
        });
        remembered.unwrap_or_else(|| raw.children(id).len() == 1)
    };
    let wrapper = n.role.is_layout() || (n.role == Role::ListItem && wraps());
    if filters.is_on(Rule::EmptyContainers) && wrapper && says_nothing(n) {
        return Fate::Transparent;
    }
    if filters.is_on(Rule::EmptyCells) && n.role == Role::TableCell {
        if raw
            .parent(id)
            .is_some_and(|p| repeats_its_row(raw, id, raw.node(p)))
        {
            return Fate::Drop;
        }
        if carried_by_one_cell(raw, id) {
            return Fate::Transparent;
        }
    }
    Fate::Keep
}

/// The states a cell shares with its row: GTK gives every cell of a row the
/// row's selection, focus and expansion.
const ROW_STATES: [State; 15] = [
    State::Active,
    State::Checkable,
    State::Checked,
    State::Collapsed,
    State::Editable,
    State::Enabled,
    State::Expandable,
    State::Expanded,
    State::Focusable,
    State::Focused,
    State::Indeterminate,
    State::Pressed,
    State::Selectable,
    State::Selected,
    State::Sensitive,
];

fn row_states(n: &NodeData) -> StateSet {
    n.states.intersection(StateSet::of(&ROW_STATES))
}

/// Whether the table cell `id` is an empty leaf inside the table cell
/// `parent` that says nothing the parent does not: no text, and none of
/// the row's states the parent lacks (a check box cell has `checkable`).
fn repeats_its_row(raw: &Tree, id: NodeId, parent: &NodeData) -> bool {
    let n = raw.node(id);
    parent.role == Role::TableCell
        && raw.children(id).is_empty()
        && has_no_text(n)
        && row_states(n).without(row_states(parent)).is_empty()
}

/// Whether the table cell `id` has no text of its own and holds only table
/// cells, all but one of which repeat its row, while that one carries every
/// row state it has: the cell then says nothing the one does not.
fn carried_by_one_cell(raw: &Tree, id: NodeId) -> bool {
    let n = raw.node(id);
    if !has_no_text(n) {
        return false;
    }
    let mut carrier = None;
    for &c in raw.children(id) {
        if raw.node(c).role != Role::TableCell {
            return false;
        }
        if repeats_its_row(raw, c, n) {
            continue;
        }
        if carrier.replace(c).is_some() {
            return false;
        }
    }
    carrier.is_some_and(|c| row_states(n).without(row_states(raw.node(c))).is_empty())
}

fn has_no_text(n: &NodeData) -> bool {
    n.name.trim().is_empty()
        && n.value.as_deref().is_none_or(|v| v.trim().is_empty())
        && n.description.trim().is_empty()
}

/// Whether a layout container has nothing an agent could read or act on.
fn says_nothing(n: &NodeData) -> bool {
    const INTERESTING: [State; 9] = [
        State::Focusable,
        State::Focused,
        State::Selectable,
        State::Selected,
        State::Checked,
        State::Expandable,
        State::Modal,
        State::Editable,
        State::Pressed,
    ];
    has_no_text(n) && !INTERESTING.iter().any(|s| n.states.contains(*s))
}

fn clean(n: &NodeData, filters: Filters) -> NodeData {
    let mut out = n.clone();
    if filters.is_on(Rule::Whitespace) {
        if out.name.trim().is_empty() {
            out.name.clear();
        }
        if out.description.trim().is_empty() {
            out.description.clear();
        }
        if out.value.as_deref().is_some_and(|v| v.trim().is_empty()) {
            out.value = None;
        }
    }
    if filters.is_on(Rule::VolatileIds) {
        out.attributes.retain(|(k, _)| !filters.drops_attribute(k));
    }
    out
}

/// States that make an empty text node a field rather than a gap.
const EDITABLE: [State; 3] = [State::Editable, State::Focusable, State::Focused];

/// Whether a node is empty text and nothing else: an empty label or text
/// run, or a notification with nothing to say (Chromium keeps a score of
/// them, for announcements). An empty entry (editable, or focusable) is a
/// field to fill in, and stays.
fn is_empty_text(n: &NodeData) -> bool {
    matches!(
        n.role,
        Role::Static | Role::Text | Role::Label | Role::Notification
    ) && n.name.is_empty()
        && n.value.is_none()
        && n.description.is_empty()
        && !EDITABLE.iter().any(|s| n.states.contains(*s))
}

fn filter_tree(raw: &Tree, filters: Filters, was: Option<&Memory>) -> (Tree, Vec<NodeId>, Lifted) {
    let mut builder = TreeBuilder::with_capacity(clean(raw.node(NodeId::ROOT), filters), raw.len());
    let mut origin = Vec::with_capacity(raw.len());
    origin.push(NodeId::ROOT);
    let mut lifted = Lifted {
        of: Vec::with_capacity(raw.len()),
        containers: Vec::new(),
        list_items: Vec::new(),
    };
    lifted.of.push(Lifted::NONE);
    // Per open raw node: the end of its raw subtree, and whether it opened a
    // node in the builder (kept) or, transparent, its container slot.
    let mut open: Vec<(u32, Open)> = Vec::new();
    let root_end = raw.subtree_len(NodeId::ROOT) as u32;
    let mut i = 1u32;
    while i < root_end {
        while let Some(&(end, kind)) = open.last() {
            if end > i {
                break;
            }
            open.pop();
            if kind == Open::Kept {
                builder.close();
            }
        }
        let id = NodeId(i);
        let node = raw.node(id);
        let end = i + raw.subtree_len(id) as u32;
        match fate(raw, id, filters, was) {
            Fate::Drop => {
                i = end;
                continue;
            }
            Fate::Transparent => {
                if let (Role::ListItem, Some(i)) = (node.role, &node.identity) {
                    lifted.list_items.push(i.clone());
                }
                let outer = match open.last() {
                    Some(&(_, Open::Lifting(slot))) => slot,
                    _ => Lifted::NONE,
                };
                lifted.containers.push((node.identity.clone(), outer));
                let slot = (lifted.containers.len() - 1) as u32;
                open.push((end, Open::Lifting(slot)));
            }
            Fate::Keep => {
                let cleaned = clean(node, filters);
                let leaf = end == i + 1;
                if leaf && filters.is_on(Rule::Whitespace) && is_empty_text(&cleaned) {
                    i = end;
                    continue;
                }
                builder.open(cleaned);
                origin.push(id);
                lifted.of.push(match open.last() {
                    Some(&(_, Open::Lifting(slot))) => slot,
                    _ => Lifted::NONE,
                });
                open.push((end, Open::Kept));
            }
        }
        i += 1;
    }
    (builder.finish(), origin, lifted)
}

/// A raw node still open while filtering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Open {
    /// Kept: it is open in the builder too.
    Kept,
    /// Transparent: its children are lifted out of this container slot.
    Lifting(u32),
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidelta_model::Rect;

    fn snap() -> Snapshot {
        let mut b = TreeBuilder::new(NodeData::named(Role::Frame, "App"));
        b.open(NodeData::new(Role::Panel));
        b.open(NodeData::new(Role::Filler));
        let mut ok = NodeData::named(Role::PushButton, "OK");
        ok.bounds = Some(Rect::new(1, 2, 3, 4));
        ok.set_attribute("id", "42");
        b.leaf(ok);
        b.close();
        b.open(NodeData::new(Role::ScrollBar));
        b.leaf(NodeData::new(Role::ValueIndicator));
        b.close();
        b.leaf(NodeData::named(Role::Label, "   "));
        b.close();
        b.leaf(NodeData::named(Role::Label, "Ready"));
        Snapshot::new(Meta::default(), b.finish())
    }

    #[test]
    fn filters_remove_noise_and_lift_children() {
        let v = View::new(&snap(), Filters::all());
        let t = v.tree();
        let names: Vec<(Role, &str)> = t
            .nodes()
            .iter()
            .map(|n| (n.role, n.name.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![
                (Role::Frame, "App"),
                (Role::PushButton, "OK"),
                (Role::Label, "Ready")
            ]
        );
        assert_eq!(t.parent(NodeId(1)), Some(NodeId::ROOT));
        assert!(t.node(NodeId(1)).attributes.is_empty());
        assert_eq!(v.origin(NodeId(1)), NodeId(3));
        assert_eq!(v.origin(NodeId(2)), NodeId(7));
    }

    #[test]
    fn lifted_nodes_remember_their_containers() {
        let mut b = TreeBuilder::new(NodeData::named(Role::Frame, "App"));
        let mut page = NodeData::new(Role::Filler);
        page.identity = Some("page".into());
        b.open(page);
        b.leaf(NodeData::named(Role::PushButton, "A"));
        let mut inner = NodeData::new(Role::Panel);
        inner.identity = Some("inner".into());
        b.open(inner);
        b.leaf(NodeData::named(Role::PushButton, "B"));
        b.close();
        b.close();
        b.leaf(NodeData::named(Role::Label, "Outside"));
        let v = View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::all());
        let from: Vec<Vec<&str>> = v
            .tree()
            .ids()
            .map(|id| v.lifted_from(id).collect())
            .collect();
        let none: Vec<&str> = Vec::new();
        assert_eq!(
            from,
            vec![none.clone(), vec!["page"], vec!["inner", "page"], none]
        );
        assert_eq!(
            v.lifted_containers().collect::<Vec<_>>(),
            vec!["page", "inner"]
        );
        let kept = View::new(
            &Snapshot::new(Meta::default(), v.tree().clone()),
            Filters::none(),
        );
        assert!(kept
            .tree()
            .ids()
            .all(|id| kept.lifted_from(id).next().is_none()));
    }

    #[test]
    fn empty_entries_stay_and_empty_labels_go() {
        let mut b = TreeBuilder::new(NodeData::named(Role::Frame, "App"));
        b.leaf(NodeData::new(Role::Label));
        let mut entry = NodeData::new(Role::Text);
        entry.states = StateSet::of(&[State::Editable, State::Focusable]);
        b.leaf(entry);
        let mut read_only = NodeData::new(Role::Text);
        read_only.states = StateSet::of(&[State::Focusable]);
        b.leaf(read_only);
        b.leaf(NodeData::named(Role::Text, "  "));
        let v = View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::all());
        let kept: Vec<(Role, bool)> = v
            .tree()
            .nodes()
            .iter()
            .map(|n| (n.role, n.states.contains(State::Editable)))
            .collect();
        assert_eq!(
            kept,
            vec![
                (Role::Frame, false),
                (Role::Text, true),
                (Role::Text, false)
            ]
        );
    }

    /// A GTK tree view row: a cell holding one column's cells.
    fn row(b: &mut TreeBuilder, states: &[State], cells: &[(&str, &[State])]) {
        let mut holder = NodeData::new(Role::TableCell);
        holder.states = StateSet::of(states);
        b.open(holder);
        for &(name, extra) in cells {
            let mut cell = NodeData::named(Role::TableCell, name);
            cell.states = StateSet::of(states).with(State::SingleLine);
            for &s in extra {
                cell.states.insert(s);
            }
            b.leaf(cell);
        }
        b.close();
    }

    fn cells(filters: Filters) -> Vec<(usize, String)> {
        use State::{Checkable, Focusable, Selectable, Selected};
        let mut b = TreeBuilder::new(NodeData::new(Role::TreeTable));
        row(
            &mut b,
            &[Focusable, Selectable, Selected],
            &[("Assistant", &[]), ("", &[])],
        );
        row(&mut b, &[Focusable], &[("", &[]), ("Builder", &[])]);
        // A check box column: its cell has a state the row has not.
        row(
            &mut b,
            &[Focusable],
            &[("Clipboard", &[]), ("", &[Checkable])],
        );
        // Two cells with text: the holder groups them and stays.
        row(&mut b, &[Focusable], &[("Color", &[]), ("Chooser", &[])]);
        // Only empty cells: the holder is the row.
        row(&mut b, &[Focusable, Selected], &[("", &[])]);
        // A cell with text of its own holds cells: it stays.
        let mut named = NodeData::named(Role::TableCell, "Cursors");
        named.states = StateSet::of(&[Focusable]);
        b.open(named);
        b.leaf(NodeData::named(Role::TableCell, "Drawing"));
        b.close();
        let v = View::new(&Snapshot::new(Meta::default(), b.finish()), filters);
        let t = v.tree();
        t.ids()
            .skip(1)
            .map(|id| (t.depth(id), t.node(id).name.clone()))
            .collect()
    }

    #[test]
    fn a_row_cell_shows_as_the_cell_that_carries_it() {
        let got = cells(Filters::all());
        let want: Vec<(usize, String)> = [
            (1, "Assistant"),
            (1, "Builder"),
            (1, ""),
            (2, "Clipboard"),
            (2, ""),
            (1, ""),
            (2, "Color"),
            (2, "Chooser"),
            (1, ""),
            (1, "Cursors"),
            (2, "Drawing"),
        ]
        .iter()
        .map(|&(d, n)| (d, n.to_owned()))
        .collect();
        assert_eq!(got, want);
        assert_eq!(cells(Filters::all().keep(Rule::EmptyCells)).len(), 16);
    }

    #[test]
    fn no_filters_keep_everything() {
        let v = View::new(&snap(), Filters::none());
        assert_eq!(v.len(), 8);
    }

    #[test]
    fn bounds_are_hashed_only_when_kept() {
        let s = snap();
        let mut moved = s.tree().clone();
        moved.node_mut(NodeId(3)).bounds = Some(Rect::new(100, 2, 3, 4));
        let moved = Snapshot::new(Meta::default(), moved);
        let f = Filters::all();
        assert_eq!(
            View::new(&s, f).subtree_hash(NodeId::ROOT),
            View::new(&moved, f).subtree_hash(NodeId::ROOT)
        );
        let f = f.keep(Rule::Bounds);
        assert_ne!(
            View::new(&s, f).subtree_hash(NodeId::ROOT),
            View::new(&moved, f).subtree_hash(NodeId::ROOT)
        );
    }
}
