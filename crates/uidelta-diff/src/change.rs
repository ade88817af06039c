//! The typed result of a diff.
//!
//! A diff is data: renderers turn it into text, JSON or a compatibility
//! format, and [`crate::apply`] replays it. Every element in it carries the
//! ref an agent can act on next.

use uidelta_model::{NodeData, Rect, Role, State, StateSet};

use crate::refs::Ref;

/// What changed in one application: its diff, with the application.
#[derive(Clone, Debug)]
pub struct AppDiff {
    /// The application.
    pub app: uidelta_model::app::App,
    /// What changed in it.
    pub diff: Diff,
}

/// Everything that changed between two views.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Diff {
    /// Added, removed and modified elements, in tree order.
    pub changes: Vec<Change>,
    /// The scope's root changed identity: a new document replaced the old
    /// one (a browser navigation). Nothing below the root was matched:
    /// `changes` removes every child of the old root and adds every child
    /// of the new one, and renderers say "new document" instead of listing
    /// thousands of changes.
    pub new_document: bool,
    /// Where the focus went, when it moved.
    pub focus: Option<FocusMove>,
    /// Elements that appeared and vanished again while the UI settled.
    pub transient: Vec<Element>,
    /// How long the UI took to settle, when an engine waited for it.
    pub settle_ms: Option<u64>,
    /// Whether the engine's settle cap was hit.
    pub settle_capped: bool,
    /// Whether either snapshot was cut short by a cap.
    pub truncated: bool,
    /// Elements that do not show, before or after, and moved among their
    /// siblings (GTK raises a hidden popover past the one it shows). No
    /// agent can see that: it is no change (not in [`Diff::has_changes`],
    /// the counts or any rendering), but [`crate::apply`] replays it, so
    /// that the diff stays complete.
    pub hidden_moves: Vec<HiddenMove>,
    /// The activation handed from window to window as one opened or
    /// closed: the top-level window that lost `active` as a dialog opened,
    /// or gained it back as the dialog closed (a window manager's doing,
    /// on every dialog). The opened or closed window and the focus move say
    /// it already: it is no change (not in [`Diff::has_changes`], the
    /// counts or any rendering), but [`crate::apply`] replays it. Each
    /// entry holds only the `active` flip and what the window's rows
    /// flipped with it; the window's other changes stay in `changes`.
    /// Likewise the text selected in a field that does not have the focus
    /// going away (GTK 3 clears an entry's selection as another field
    /// takes the focus and selects its text): nothing typed goes there.
    pub handed_over: Vec<Modified>,
}

/// An element that does not show moved among its siblings (see
/// [`Diff::hidden_moves`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HiddenMove {
    /// The element.
    pub r#ref: Ref,
    /// Its index among its siblings before.
    pub old: usize,
    /// Its index among its siblings after.
    pub new: usize,
}

impl Diff {
    /// Whether anything at all changed (transient elements count).
    pub fn has_changes(&self) -> bool {
        !self.changes.is_empty() || self.focus.is_some() || !self.transient.is_empty()
    }

    /// How many elements were added, removed and modified.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for change in &self.changes {
            match change {
                Change::Added(_) => c.added += 1,
                Change::Removed(_) => c.removed += 1,
                Change::Modified(_) => c.modified += 1,
            }
        }
        c
    }

    /// Windows and dialogs that opened.
    pub fn opened(&self) -> impl Iterator<Item = &Added> {
        self.changes.iter().filter_map(|c| match c {
            Change::Added(a) if a.opened.is_some() => Some(a),
            _ => None,
        })
    }

    /// Windows and dialogs that closed.
    pub fn closed(&self) -> impl Iterator<Item = &Removed> {
        self.changes.iter().filter_map(|c| match c {
            Change::Removed(r) if r.closed.is_some() => Some(r),
            _ => None,
        })
    }
}

/// Numbers for the header line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Subtrees added (each counted once, at its root).
    pub added: usize,
    /// Subtrees removed.
    pub removed: usize,
    /// Elements modified.
    pub modified: usize,
}

/// One change.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// A subtree appeared.
    Added(Added),
    /// A subtree went away.
    Removed(Removed),
    /// An element kept its identity but some attributes changed.
    Modified(Modified),
}

/// A subtree that appeared.
#[derive(Clone, Debug, PartialEq)]
pub struct Added {
    /// The matched parent it appeared under.
    pub parent: Ref,
    /// Its position among the parent's children, after the change.
    pub index: usize,
    /// `Some(role)` when the root is a window, dialog or popup: it opened.
    pub opened: Option<Role>,
    /// The nearest meaningful ancestor, so the agent knows where it is.
    pub context: Option<Handle>,
    /// Set when this subtree and at least one sibling were lifted out of
    /// the same unnamed container, and that container itself is new (a
    /// stack page shown in place of another): members of one group share
    /// the number, and renderers summarize the group.
    pub group: Option<usize>,
    /// The subtree was here before, left, and came back exactly as it was
    /// when it left, every element under the ref it had then (a stack page
    /// shown again): the agent has seen all of it, and renderers say so
    /// instead of listing it again.
    pub came_back: bool,
    /// The subtree in preorder; the root first, at depth 0.
    pub subtree: Vec<SubtreeNode>,
}

impl Added {
    /// The subtree's root.
    pub fn root(&self) -> &Element {
        &self.subtree[0].element
    }
}

/// A subtree that went away.
#[derive(Clone, Debug, PartialEq)]
pub struct Removed {
    /// The parent it was under.
    pub parent: Ref,
    /// `Some(role)` when the root was a window, dialog or popup: it closed.
    pub closed: Option<Role>,
    /// The nearest meaningful ancestor it was in.
    pub context: Option<Handle>,
    /// Set when this subtree and at least one sibling were lifted out of
    /// the same unnamed container, and that container itself went away (a
    /// stack page shown in place of another): members of one group share
    /// the number, and renderers summarize the group.
    pub group: Option<usize>,
    /// The subtree as it was, in preorder; the root first.
    pub subtree: Vec<SubtreeNode>,
}

impl Removed {
    /// The subtree's root.
    pub fn root(&self) -> &Element {
        &self.subtree[0].element
    }
}

/// One node of an added or removed subtree.
#[derive(Clone, Debug, PartialEq)]
pub struct SubtreeNode {
    /// Depth below the subtree's root.
    pub depth: usize,
    /// The element.
    pub element: Element,
}

/// An element whose attributes changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Modified {
    /// The element as it is now.
    pub element: Element,
    /// The nearest meaningful ancestor.
    pub context: Option<Handle>,
    /// What changed on the element itself.
    pub changes: Vec<AttrChange>,
    /// Descendants that changed the same way because this element did (a
    /// panel hidden with everything in it): one line here, not one each.
    pub descendants: Vec<InheritedChange>,
}

/// A change a descendant inherited from a [`Modified`] ancestor.
#[derive(Clone, Debug, PartialEq)]
pub struct InheritedChange {
    /// The descendant.
    pub r#ref: Ref,
    /// Its depth below the ancestor (a child is at 1).
    pub depth: usize,
    /// The descendant as it is now: renderers list those that came to show
    /// with their ancestor (a popover's items), as an added subtree's.
    pub element: Element,
    /// Its changes, the same as some of the ancestor's.
    pub changes: Vec<AttrChange>,
}

impl InheritedChange {
    /// Whether the descendant came to show with its ancestor.
    pub fn shown(&self) -> bool {
        self.changes
            .iter()
            .any(|c| c.attr == Attr::State(State::Showing) && c.new == AttrValue::Bool(true))
    }
}

/// One attribute's old and new value.
#[derive(Clone, Debug, PartialEq)]
pub struct AttrChange {
    /// Which attribute.
    pub attr: Attr,
    /// Before.
    pub old: AttrValue,
    /// After.
    pub new: AttrValue,
}

/// What an [`AttrChange`] is about.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Attr {
    /// The accessible name.
    Name,
    /// The value or text.
    Value,
    /// The description.
    Description,
    /// The role (only the root can change role and stay matched).
    Role,
    /// One state.
    State(State),
    /// One other attribute.
    Attribute(String),
    /// The bounds (compared only when the bounds rule is off).
    Bounds,
    /// Position among the siblings: the element moved.
    Position,
    /// The parent: the element, with all that is in it, moved to another
    /// one (a card dragged to another list). Its values are
    /// [`AttrValue::Place`]s.
    Parent,
}

impl Attr {
    /// The name rendered before the colon: `name`, `checked`, `attr:level`,
    /// and `selected text` for the text selected in a field (an attribute
    /// of uidelta's own, [`uidelta_model::SELECTION`], not a toolkit's).
    pub fn label(&self) -> String {
        match self {
            Attr::Name => "name".into(),
            Attr::Value => "value".into(),
            Attr::Description => "description".into(),
            Attr::Role => "role".into(),
            Attr::State(s) => s.as_str().into(),
            Attr::Attribute(k) if k == uidelta_model::SELECTION => "selected text".into(),
            Attr::Attribute(k) => format!("attr:{k}"),
            Attr::Bounds => "bounds".into(),
            Attr::Position => "position".into(),
            Attr::Parent => "parent".into(),
        }
    }
}

/// An attribute's value on one side of a change.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// Not there.
    Absent,
    /// Text (name, value, description, attribute, role).
    Text(String),
    /// A state, on or off.
    Bool(bool),
    /// Bounds.
    Rect(Rect),
    /// A position among siblings.
    Index(usize),
    /// A place in the tree: a parent and a position among its children.
    Place(Place),
}

/// Where an element is: under which parent, at which position among its
/// children.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    /// The parent.
    pub parent: Handle,
    /// The position among the parent's children.
    pub index: usize,
}

/// A short mention of an element: `[e3] dialog "Save As"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handle {
    /// Its ref.
    pub r#ref: Ref,
    /// Its role.
    pub role: Role,
    /// Its name.
    pub name: String,
}

/// The focus moved from one element to another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FocusMove {
    /// Focused before, if anything was.
    pub from: Option<Handle>,
    /// Focused now, if anything is.
    pub to: Option<Handle>,
}

/// An element as the diff reports it: its data and its ref.
#[derive(Clone, Debug, PartialEq)]
pub struct Element {
    /// The ref to act on.
    pub r#ref: Ref,
    /// Normalized role.
    pub role: Role,
    /// The platform's role name.
    pub raw_role: String,
    /// Name.
    pub name: String,
    /// Value or text.
    pub value: Option<String>,
    /// Description.
    pub description: String,
    /// States.
    pub states: StateSet,
    /// Bounds.
    pub bounds: Option<uidelta_model::Rect>,
    /// Other attributes, sorted by key.
    pub attributes: Vec<(String, String)>,
}

impl Element {
    /// The element for a node and its ref. Identity stays behind: it is
    /// never rendered.
    pub fn new(r#ref: Ref, n: &NodeData) -> Element {
        Element {
            r#ref,
            role: n.role,
            raw_role: n.raw_role.clone(),
            name: n.name.clone(),
            value: n.value.clone(),
            description: n.description.clone(),
            states: n.states,
            bounds: n.bounds,
            attributes: n.attributes.clone(),
        }
    }

    /// Node data with the same content, for replaying a diff.
    pub fn to_node(&self) -> NodeData {
        NodeData {
            role: self.role,
            raw_role: self.raw_role.clone(),
            name: self.name.clone(),
            value: self.value.clone(),
            description: self.description.clone(),
            states: self.states,
            bounds: self.bounds,
            attributes: self.attributes.clone(),
            identity: None,
            unread: Default::default(),
        }
    }

    /// The short mention of this element.
    pub fn handle(&self) -> Handle {
        Handle {
            r#ref: self.r#ref,
            role: self.role,
            name: self.name.clone(),
        }
    }
}
