//! Nodes stored as a preorder arena.
//!
//! Preorder storage means a subtree is one contiguous range of ids, so
//! skipping, copying or hashing a subtree never chases pointers, and a
//! 50,000-node tree is two vectors rather than 50,000 allocations of boxes.

use crate::role::Role;
use crate::state::StateSet;

/// Screen rectangle in pixels: left, top, width, height.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rect {
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Width.
    pub w: i32,
    /// Height.
    pub h: i32,
}

impl Rect {
    /// A rectangle from its four numbers.
    pub const fn new(x: i32, y: i32, w: i32, h: i32) -> Rect {
        Rect { x, y, w, h }
    }

    /// The centre point, where synthesized input clicks.
    pub const fn center(self) -> (i32, i32) {
        (self.x + self.w / 2, self.y + self.h / 2)
    }

    /// Whether the point lies inside (the right and bottom edges are
    /// outside).
    pub fn contains(&self, x: i32, y: i32) -> bool {
        let (x, y) = (i64::from(x), i64::from(y));
        let (left, top) = (i64::from(self.x), i64::from(self.y));
        x >= left && y >= top && x < left + i64::from(self.w) && y < top + i64::from(self.h)
    }

    /// The part of both rectangles; `None` when they do not overlap.
    pub fn intersection(&self, other: &Rect) -> Option<Rect> {
        let (x, y) = (self.x.max(other.x), self.y.max(other.y));
        let right =
            (i64::from(self.x) + i64::from(self.w)).min(i64::from(other.x) + i64::from(other.w));
        let bottom =
            (i64::from(self.y) + i64::from(self.h)).min(i64::from(other.y) + i64::from(other.h));
        let (w, h) = (right - i64::from(x), bottom - i64::from(y));
        (w > 0 && h > 0).then(|| {
            Rect::new(
                x,
                y,
                i32::try_from(w).unwrap_or(i32::MAX),
                i32::try_from(h).unwrap_or(i32::MAX),
            )
        })
    }
}

/// What a platform does not say of an element at one capture: its value
/// (then `None` until filled in), and some of its states (then as it
/// happened to say them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Unread {
    /// Its value.
    pub value: bool,
    /// These states.
    pub states: StateSet,
}

impl Unread {
    /// Whether anything is unread.
    pub fn any(&self) -> bool {
        self.value || self.states != StateSet::default()
    }
}

/// The attribute that holds the text selected in an editable field, as its
/// platform reads it (cut to a couple of hundred characters, ending in
/// `…`): typing replaces it, which an agent must see to know. Not
/// `selected`, a state's name, nor `selection`, which OSWorld's trees
/// give an object that has AT-SPI's Selection interface.
pub const SELECTION: &str = "selected-text";

/// The most characters of a selection the attribute [`SELECTION`] holds;
/// a longer one is cut there, and ends in `…`.
pub const SELECTION_CHARS: usize = 200;

/// What one element says about itself, without its place in the tree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeData {
    /// Normalized role.
    pub role: Role,
    /// The platform's own role name (`push button`, `Button`, `AXButton`).
    pub raw_role: String,
    /// Accessible name; empty when it has none.
    pub name: String,
    /// Value or text contents (Value and Text interfaces, ARIA value).
    pub value: Option<String>,
    /// What the platform does not say now, though the element still holds
    /// it (a LibreOffice Calc cell while a formula is written: the cells on
    /// screen still show their values): taken from the element it matches
    /// before (see `uidelta_diff::fill_unread`).
    pub unread: Unread,
    /// Accessible description; empty when it has none.
    pub description: String,
    /// States.
    pub states: StateSet,
    /// Screen bounds, when known.
    pub bounds: Option<Rect>,
    /// Other attributes, sorted by key, keys unique.
    pub attributes: Vec<(String, String)>,
    /// Platform identity (AT-SPI bus name + object path, CDP backend node
    /// id). Used to match elements across snapshots; never compared, never
    /// rendered.
    pub identity: Option<String>,
}

impl NodeData {
    /// A node with this role and nothing else.
    pub fn new(role: Role) -> NodeData {
        NodeData {
            role,
            raw_role: role.as_str().to_owned(),
            ..NodeData::default()
        }
    }

    /// A node with a role and a name.
    pub fn named(role: Role, name: impl Into<String>) -> NodeData {
        NodeData {
            name: name.into(),
            ..NodeData::new(role)
        }
    }

    /// The text selected in it, a field's (attribute [`SELECTION`]), when
    /// some is.
    pub fn selection(&self) -> Option<&str> {
        self.attribute(SELECTION)
    }

    /// The value of attribute `key`.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
            .map(|i| self.attributes[i].1.as_str())
    }

    /// Sets attribute `key`, keeping the list sorted.
    pub fn set_attribute(&mut self, key: impl Into<String>, value: impl Into<String>) {
        let key = key.into();
        match self.attributes.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(i) => self.attributes[i].1 = value.into(),
            Err(i) => self.attributes.insert(i, (key, value.into())),
        }
    }

    /// Removes attribute `key`, returning its value.
    pub fn remove_attribute(&mut self, key: &str) -> Option<String> {
        self.attributes
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
            .map(|i| self.attributes.remove(i).1)
    }

    /// Whether this element is a field to type text into: an editable
    /// entry, text area, spin button or terminal. Clicking one is giving
    /// it the keyboard focus.
    pub fn is_text_field(&self) -> bool {
        self.role.is_text_input() && self.states.contains(crate::State::Editable)
    }

    /// Whether this element holds a secret (a password field).
    pub fn is_secret(&self) -> bool {
        if self.role.is_password() {
            return true;
        }
        let raw = self.raw_role.to_ascii_lowercase();
        if raw.contains("password") || raw.contains("securetext") {
            return true;
        }
        ["input-type", "inputtype", "type", "text-input-type"]
            .iter()
            .any(|key| {
                self.attribute(key)
                    .is_some_and(|v| v.eq_ignore_ascii_case("password"))
            })
    }
}

/// Index of a node in its [`Tree`]. The root is always `NodeId(0)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The root of every tree.
    pub const ROOT: NodeId = NodeId(0);

    /// As a vector index.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Links {
    parent: Option<NodeId>,
    children: Vec<NodeId>,
    /// One past the last id of this node's subtree.
    end: u32,
    depth: u32,
}

/// A tree of nodes in preorder. Never empty: there is always a root.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    data: Vec<NodeData>,
    links: Vec<Links>,
}

impl Tree {
    /// A tree of one node.
    pub fn leaf(root: NodeData) -> Tree {
        TreeBuilder::new(root).finish()
    }

    /// The root id.
    pub const fn root(&self) -> NodeId {
        NodeId::ROOT
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Always false: a tree has a root. Present for API symmetry.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The node's data.
    ///
    /// # Panics
    /// When `id` is not from this tree.
    pub fn node(&self, id: NodeId) -> &NodeData {
        &self.data[id.index()]
    }

    /// The node's data, mutably.
    pub fn node_mut(&mut self, id: NodeId) -> &mut NodeData {
        &mut self.data[id.index()]
    }

    /// The node's data if `id` is in range.
    pub fn get(&self, id: NodeId) -> Option<&NodeData> {
        self.data.get(id.index())
    }

    /// Children in order.
    pub fn children(&self, id: NodeId) -> &[NodeId] {
        &self.links[id.index()].children
    }

    /// The parent; `None` for the root.
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.links[id.index()].parent
    }

    /// Depth below the root (the root is 0).
    pub fn depth(&self, id: NodeId) -> usize {
        self.links[id.index()].depth as usize
    }

    /// The ids of `id`'s subtree, `id` first: a contiguous range.
    pub fn subtree(
        &self,
        id: NodeId,
    ) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator {
        (id.0..self.links[id.index()].end).map(NodeId)
    }

    /// Number of nodes in `id`'s subtree, itself included.
    pub fn subtree_len(&self, id: NodeId) -> usize {
        (self.links[id.index()].end - id.0) as usize
    }

    /// Every id in preorder.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator {
        (0..self.data.len() as u32).map(NodeId)
    }

    /// Ancestors from the parent up to the root.
    pub fn ancestors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.parent(id), move |&p| self.parent(p))
    }

    /// Position of `id` among its parent's children.
    pub fn index_in_parent(&self, id: NodeId) -> usize {
        self.parent(id)
            .and_then(|p| self.children(p).iter().position(|&c| c == id))
            .unwrap_or(0)
    }

    /// All node data in preorder.
    pub fn nodes(&self) -> &[NodeData] {
        &self.data
    }

    /// Copies the subtree under `id` into a tree of its own.
    pub fn extract(&self, id: NodeId) -> Tree {
        let mut builder = TreeBuilder::new(self.node(id).clone());
        self.copy_children_into(id, &mut builder);
        builder.finish()
    }

    /// Appends copies of `id`'s descendants under the builder's current node.
    pub fn copy_children_into(&self, id: NodeId, builder: &mut TreeBuilder) {
        for &child in self.children(id) {
            builder.open(self.node(child).clone());
            self.copy_children_into(child, builder);
            builder.close();
        }
    }
}

/// Builds a [`Tree`] in preorder: `open` a child, fill it, `close` it.
#[derive(Debug)]
pub struct TreeBuilder {
    tree: Tree,
    stack: Vec<NodeId>,
}

impl TreeBuilder {
    /// Starts a tree with its root; the root is the current node.
    pub fn new(root: NodeData) -> TreeBuilder {
        TreeBuilder {
            tree: Tree {
                data: vec![root],
                links: vec![Links::default()],
            },
            stack: vec![NodeId::ROOT],
        }
    }

    /// Starts a tree with room for `capacity` nodes.
    pub fn with_capacity(root: NodeData, capacity: usize) -> TreeBuilder {
        let mut builder = TreeBuilder::new(root);
        builder.tree.data.reserve(capacity);
        builder.tree.links.reserve(capacity);
        builder
    }

    /// Adds a child of the current node and makes it current.
    pub fn open(&mut self, data: NodeData) -> NodeId {
        let id = self.push(data);
        self.stack.push(id);
        id
    }

    /// Adds a child of the current node that stays a leaf.
    pub fn leaf(&mut self, data: NodeData) -> NodeId {
        self.push(data)
    }

    /// Makes the current node's parent current again. Closing the root does
    /// nothing.
    pub fn close(&mut self) {
        if self.stack.len() > 1 {
            if let Some(id) = self.stack.pop() {
                self.seal(id);
            }
        }
    }

    /// Depth of the current node (the root is 0).
    pub fn depth(&self) -> usize {
        self.stack.len() - 1
    }

    /// Number of nodes so far.
    pub fn len(&self) -> usize {
        self.tree.data.len()
    }

    /// Always false: the builder starts with a root.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The current node.
    pub fn current(&self) -> NodeId {
        self.stack.last().copied().unwrap_or(NodeId::ROOT)
    }

    /// The data of a node added so far.
    pub fn node_mut(&mut self, id: NodeId) -> &mut NodeData {
        self.tree.node_mut(id)
    }

    /// Closes every open node and returns the tree.
    pub fn finish(mut self) -> Tree {
        while let Some(id) = self.stack.pop() {
            self.seal(id);
        }
        self.tree
    }

    fn push(&mut self, data: NodeData) -> NodeId {
        let parent = self.current();
        let id = NodeId(self.tree.data.len() as u32);
        let depth = self.tree.links[parent.index()].depth + 1;
        self.tree.data.push(data);
        self.tree.links.push(Links {
            parent: Some(parent),
            children: Vec::new(),
            end: id.0 + 1,
            depth,
        });
        self.tree.links[parent.index()].children.push(id);
        id
    }

    fn seal(&mut self, id: NodeId) {
        let end = self.tree.data.len() as u32;
        self.tree.links[id.index()].end = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Tree {
        let mut b = TreeBuilder::new(NodeData::named(Role::Frame, "App"));
        b.open(NodeData::new(Role::Panel));
        b.leaf(NodeData::named(Role::PushButton, "OK"));
        b.leaf(NodeData::named(Role::PushButton, "Cancel"));
        b.close();
        b.leaf(NodeData::named(Role::Label, "Ready"));
        b.finish()
    }

    #[test]
    fn a_rectangle_holds_the_points_left_of_and_above_its_far_edges() {
        let pane = Rect::new(10, 20, 100, 50);
        assert!(pane.contains(10, 20));
        assert!(pane.contains(109, 69));
        assert!(!pane.contains(110, 40));
        assert!(!pane.contains(50, 70));
        assert!(!pane.contains(9, 40));
        assert!(Rect::new(i32::MAX - 1, 0, i32::MAX, 5).contains(i32::MAX, 2));
    }

    #[test]
    fn rectangles_intersect_in_their_common_part() {
        // A Qt combo box item, as wide as its column, in its narrower popup.
        let item = Rect::new(352, 191, 203, 25);
        let list = Rect::new(352, 166, 87, 50);
        assert_eq!(item.intersection(&list), Some(Rect::new(352, 191, 87, 25)));
        assert_eq!(list.intersection(&item), Some(Rect::new(352, 191, 87, 25)));
        assert_eq!(item.intersection(&Rect::new(0, 0, 352, 191)), None);
        let huge = Rect::new(i32::MIN, i32::MIN, i32::MAX, i32::MAX);
        assert_eq!(huge.intersection(&list), None);
        let everything = Rect::new(-10, -10, i32::MAX, i32::MAX);
        assert_eq!(everything.intersection(&list), Some(list));
    }

    #[test]
    fn preorder_ranges_and_links() {
        let t = sample();
        assert_eq!(t.len(), 5);
        assert_eq!(t.subtree_len(NodeId(0)), 5);
        assert_eq!(t.subtree_len(NodeId(1)), 3);
        assert_eq!(
            t.subtree(NodeId(1)).collect::<Vec<_>>(),
            vec![NodeId(1), NodeId(2), NodeId(3)]
        );
        assert_eq!(t.children(NodeId(0)), &[NodeId(1), NodeId(4)]);
        assert_eq!(t.parent(NodeId(3)), Some(NodeId(1)));
        assert_eq!(t.depth(NodeId(3)), 2);
        assert_eq!(t.index_in_parent(NodeId(3)), 1);
        assert_eq!(
            t.ancestors(NodeId(3)).collect::<Vec<_>>(),
            vec![NodeId(1), NodeId(0)]
        );
        assert_eq!(t.extract(NodeId(1)).len(), 3);
    }

    #[test]
    fn attributes_stay_sorted() {
        let mut n = NodeData::new(Role::Entry);
        n.set_attribute("z", "1");
        n.set_attribute("a", "2");
        n.set_attribute("z", "3");
        assert_eq!(
            n.attributes,
            vec![("a".into(), "2".into()), ("z".into(), "3".into())]
        );
        assert_eq!(n.attribute("z"), Some("3"));
        assert_eq!(n.remove_attribute("a").as_deref(), Some("2"));
        assert_eq!(n.attribute("a"), None);
    }
}
