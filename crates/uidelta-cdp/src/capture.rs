//! Capturing a tab's accessibility tree as a [`Snapshot`].
//!
//! One capture is a handful of calls whatever the page's size:
//! `Page.getFrameTree`, `Accessibility.getFullAXTree` once per frame, and
//! `DOMSnapshot.captureSnapshot` once for the bounds (and `visibility`) of
//! every element of every frame (without DOM rects, which cost Chromium more than the rest of
//! the snapshot: a second snapshot with them is asked only when the page has
//! frame elements, whose borders they give). Measured on a page of 1,170
//! accessibility nodes (a loaded two-core machine): the accessibility tree
//! takes 110 ms, the DOM snapshot 30 ms, building the tree 3 ms; asking for
//! each node's box model instead would be 800 more round trips.
//!
//! The two big calls go over the capture's own connection (the `wire`
//! module) and their answers are read from text into typed structs, never
//! into `serde_json::Value`.
//!
//! The main frame's accessibility tree is asked after its DOM snapshot, and
//! on big pages only as deep as the snapshot does not say (the `prune`
//! module): plain text, plain links and list markers below everything else
//! are made from the snapshot. Chromium spends about 25 µs a node of
//! `Accessibility.getFullAXTree`, and for each link to an anchor of the page
//! a walk of the whole document: for 10,000 links to `#item-<k>` in a list
//! (60,000 accessibility nodes), on the loaded two-core machine, the whole
//! tree took 4 to 6 s (23 MB), the tree down to the list items 0.35 to
//! 0.6 s (10,007 nodes, 4.7 MB), the DOM snapshot 0.3 to 0.4 s (4 MB).
//!
//! The tree is Chromium's, cleaned: ignored nodes are left out and their
//! children lifted to the nearest kept ancestor; per-line text boxes, list
//! markers, the inner editor of text fields and text that only repeats its
//! parent's name are dropped. Elements are identified by their DOM backend
//! node id (`n123`), text leaves by their parent element and position
//! (`n120:t0`, so that replacing a text node reads as a changed text), and
//! each document by its loader (`doc:<loader id>`, new with every document
//! loaded). Nodes with a laid-out box are `showing` and `visible`, as are
//! containers of such nodes.
//!
//! Iframes are grafted under their `<iframe>` element, bounds in the page's
//! viewport. A same-process frame is read with the page. A cross-site frame
//! runs in another renderer process under site isolation, as a target of its
//! own: when an `<iframe>` of the page holds no frame of the page's DOM
//! snapshot (on most pages none does, and nothing more is asked), it is
//! found in `Target.getTargets` (an `iframe` target whose parent frame is
//! one of the tab's), its element with `DOM.getFrameOwner`, and it
//! is read through its own session (the `frames` module) with the same
//! calls, its bounds moved by the corner of its element's content box.
//! Backend node ids are per process, so its elements' identities carry its
//! target id (`<target>/n31`, see [`frame_identity`]). Frames nested in it
//! are read the same way, parents first; every frame counts against
//! `max_frames`, and all of it is within the capture's deadline. A
//! cross-site frame that cannot be read stays empty.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::{json, Value};
use uidelta_model::{Meta, NodeData, NodeId, Role, Snapshot, State, Tree, TreeBuilder};

use crate::error::{Error, Result};
use crate::frames;
use crate::protocol::Session;
use crate::roles::{self, PropValue};

mod layout;
mod mirror;
mod prune;
mod wire;
pub(crate) use layout::Layout;
pub(crate) use mirror::{PageMirror, MAX_DIRTY, MAX_RESTYLED, MIN_NODES, STATE_RULES};
pub(crate) use wire::Wire;
use wire::{ask, Raw};

/// Limits of one capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureOptions {
    /// Most nodes kept; the snapshot says `truncated` when there were more.
    pub max_nodes: usize,
    /// Deepest level kept; deeper nodes are left out and `truncated` is set.
    pub max_depth: usize,
    /// Most frames read; further iframes stay empty and `truncated` is set.
    pub max_frames: usize,
    /// The whole capture gives up after this long.
    pub deadline: Duration,
    /// Read every node of Chromium's accessibility tree, also the leaves
    /// that the DOM snapshot gives as well (plain text, plain links: see
    /// the module's documentation). The tree is the same either way; off,
    /// big pages of such leaves are read in a fraction of the time.
    pub whole_tree: bool,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            max_nodes: 100_000,
            max_depth: 128,
            max_frames: 64,
            deadline: Duration::from_secs(30),
            whole_tree: false,
        }
    }
}

/// Where the nodes of a capture came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CaptureRead {
    /// Nodes read from Chromium's accessibility trees, ignored ones and
    /// per-line text boxes included.
    pub read_from_chromium: usize,
    /// Nodes made from the DOM snapshot instead (plain text and links of
    /// big pages, see [`CaptureOptions::whole_tree`]).
    pub made_from_dom: usize,
    /// Whether the tree read only as deep as the DOM snapshot does not say
    /// did not check out, and the whole tree was read after it.
    pub read_twice: bool,
    /// Whether the capture read only what changed since the last one (the
    /// page's live mirror); `read_from_chromium` then counts the nodes read
    /// again.
    pub through_mirror: bool,
    /// Why a capture with a mirror (`UIDELTA_MIRROR` not `off`) read the
    /// whole page: `first capture` (no mirror yet, or no change script in
    /// the page), `small` (a page read whole is cheaper), `page` (the
    /// script said so: see the `mirror` module),
    /// `new URL`, `old` (the mirror's age), `large` (too much to read
    /// again). Empty otherwise.
    pub why_whole: &'static str,
}

/// A frame of a tab, from `Page.getFrameTree`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameInfo {
    /// Frame id.
    pub id: String,
    /// The parent frame; `None` for the main frame.
    pub parent: Option<String>,
    /// Id of the document loader: a new one for every document loaded.
    pub loader_id: String,
    /// The document's URL.
    pub url: String,
    /// Set when the frame shows an error page instead of this URL.
    pub unreachable_url: Option<String>,
}

/// The frames of a frame tree, main frame first, parents before children.
pub(crate) fn frames_of(tree: &Value) -> Vec<FrameInfo> {
    let mut out = Vec::new();
    let mut stack = vec![&tree["frameTree"]];
    while let Some(node) = stack.pop() {
        let frame = &node["frame"];
        let text = |key: &str| frame[key].as_str().unwrap_or_default().to_owned();
        if frame["id"].is_string() {
            out.push(FrameInfo {
                id: text("id"),
                parent: frame["parentId"].as_str().map(str::to_owned),
                loader_id: text("loaderId"),
                url: text("url"),
                unreachable_url: frame["unreachableUrl"].as_str().map(str::to_owned),
            });
        }
        if let Some(children) = node["childFrames"].as_array() {
            stack.extend(children.iter().rev());
        }
    }
    out
}

/// One accessibility node as `Accessibility.getFullAXTree` reports it.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct AxNode {
    #[serde(rename = "nodeId")]
    id: String,
    #[serde(default)]
    ignored: bool,
    #[serde(default)]
    role: Option<AxValue>,
    #[serde(default)]
    name: Option<AxValue>,
    #[serde(default)]
    description: Option<AxValue>,
    #[serde(default)]
    value: Option<AxValue>,
    #[serde(default)]
    properties: Vec<AxProperty>,
    #[serde(rename = "parentId", default)]
    parent: Option<String>,
    #[serde(rename = "childIds", default)]
    children: Vec<String>,
    #[serde(rename = "backendDOMNodeId", default)]
    backend: Option<i64>,
}

#[derive(Clone, Debug, Default, Deserialize)]
struct AxValue {
    #[serde(default)]
    value: Option<Value>,
    /// The nodes a value is made of (the labels of a name, the targets of
    /// a relation).
    #[serde(rename = "relatedNodes", default)]
    related: Vec<AxRelatedNode>,
    /// Where a name came from (only names have them).
    #[serde(default)]
    sources: Vec<AxSource>,
}

/// One place a name was looked for (`AXValueSource`).
#[derive(Clone, Debug, Default, Deserialize)]
struct AxSource {
    /// `labelfor` for a `<label for=...>`, `labelwrapped` for a label
    /// around the field, ...
    #[serde(rename = "nativeSource", default)]
    native: Option<String>,
    #[serde(rename = "nativeSourceValue", default)]
    native_value: Option<AxRelated>,
    /// The value of the attribute looked at (`aria-labelledby`'s nodes).
    #[serde(rename = "attributeValue", default)]
    attribute_value: Option<AxRelated>,
    /// A source looked at but not used.
    #[serde(default)]
    superseded: bool,
}

#[derive(Clone, Debug, Default, Deserialize)]
struct AxRelated {
    #[serde(rename = "relatedNodes", default)]
    related: Vec<AxRelatedNode>,
}

#[derive(Clone, Debug, Default, Deserialize)]
struct AxRelatedNode {
    #[serde(rename = "backendDOMNodeId", default)]
    backend: Option<i64>,
    #[serde(default)]
    text: Option<String>,
}

impl AxNode {
    /// The elements whose contents this node's name, description or
    /// relations are made of, by backend node id.
    fn refers_to(&self) -> impl Iterator<Item = i64> + '_ {
        let values = [&self.name, &self.description, &self.value]
            .into_iter()
            .flatten()
            .chain(self.properties.iter().map(|p| &p.value));
        values.flat_map(|v| {
            let sources = v.sources.iter().flat_map(|s| {
                s.native_value
                    .iter()
                    .chain(&s.attribute_value)
                    .flat_map(|r| &r.related)
            });
            v.related.iter().chain(sources).filter_map(|r| r.backend)
        })
    }

    /// The `<label for=...>` elements that gave this field its whole name.
    fn named_by_labels(&self) -> impl Iterator<Item = i64> + '_ {
        let name = AxValue::str(&self.name);
        self.name
            .iter()
            .flat_map(|n| &n.sources)
            .filter(|s| !s.superseded && s.native.as_deref() == Some("labelfor"))
            .flat_map(|s| s.native_value.iter().flat_map(|v| &v.related))
            .filter(move |r| {
                !name.trim().is_empty() && r.text.as_deref().map(str::trim) == Some(name.trim())
            })
            .filter_map(|r| r.backend)
    }
}

#[derive(Clone, Debug, Deserialize)]
struct AxProperty {
    name: String,
    value: AxValue,
}

impl AxValue {
    /// A string value as it is (roles are strings); `""` for any other.
    fn str(v: &Option<AxValue>) -> &str {
        match v.as_ref().and_then(|v| v.value.as_ref()) {
            Some(Value::String(s)) => s,
            _ => "",
        }
    }

    fn text(v: &Option<AxValue>) -> String {
        match v.as_ref().and_then(|v| v.value.as_ref()) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.as_f64().map(roles::number).unwrap_or_default(),
            Some(Value::Bool(b)) => b.to_string(),
            _ => String::new(),
        }
    }

    fn optional(v: &Option<AxValue>) -> Option<String> {
        v.as_ref()
            .and_then(|v| v.value.as_ref())
            .filter(|v| !v.is_null())
            .map(|_| AxValue::text(v))
    }
}

/// The accessibility nodes of one frame.
#[derive(Clone, Debug, Default)]
pub(crate) struct FrameNodes {
    pub frame: FrameInfo,
    pub nodes: Vec<AxNode>,
    /// Which target (renderer process) read it: an index into the layouts
    /// given to [`assemble`], 0 for the page's own.
    pub target: usize,
    /// For frames of an out-of-process iframe, its target id: backend node
    /// ids are per renderer process, so its elements' identities carry it.
    pub prefix: Option<String>,
    /// How many of `nodes` were made from the DOM snapshot rather than read
    /// from Chromium's tree.
    pub from_dom: usize,
    /// Whether a depth-limited read did not check out and the whole tree was
    /// read after it.
    pub read_twice: bool,
}

/// The part of an answer of `Accessibility.getFullAXTree` (and of the
/// other calls that answer nodes) read here.
#[derive(Deserialize)]
struct AxTree {
    nodes: Vec<AxNode>,
}

impl FrameNodes {
    /// Reads an answer of `Accessibility.getFullAXTree`, as text or as JSON.
    fn from_raw(frame: FrameInfo, answer: Raw) -> std::result::Result<FrameNodes, String> {
        match answer {
            Raw::Json(value) => FrameNodes::from_answer(frame, value),
            Raw::Text(text) => {
                let tree: AxTree = wire::result(&text)?;
                Ok(FrameNodes {
                    frame,
                    nodes: tree.nodes,
                    ..FrameNodes::default()
                })
            }
        }
    }

    /// Reads an answer of `Accessibility.getFullAXTree`.
    pub fn from_answer(
        frame: FrameInfo,
        mut answer: Value,
    ) -> std::result::Result<FrameNodes, String> {
        let nodes = answer
            .get_mut("nodes")
            .map(Value::take)
            .ok_or_else(|| "the answer has no `nodes`".to_owned())?;
        let nodes: Vec<AxNode> = serde_json::from_value(nodes).map_err(|e| e.to_string())?;
        Ok(FrameNodes {
            frame,
            nodes,
            ..FrameNodes::default()
        })
    }
}

/// The identity of a frame's document: new with every document loaded, so
/// that a navigation reads as a new document.
pub fn document_identity(loader_id: &str) -> String {
    format!("doc:{loader_id}")
}

/// The identity of an element: its DOM backend node id.
pub fn node_identity(backend: i64) -> String {
    format!("n{backend}")
}

/// The identity of the `k`-th text leaf of the element with backend node id
/// `parent`.
pub fn text_identity(parent: i64, k: usize) -> String {
    format!("n{parent}:t{k}")
}

/// The backend node id of the element an identity made by [`node_identity`]
/// names; for a text leaf ([`text_identity`]), its parent element. `None`
/// for an element of an out-of-process iframe ([`frame_identity`]): its id
/// means something only in its frame's process.
pub fn backend_id(identity: &str) -> Option<i64> {
    let rest = identity.strip_prefix('n')?;
    let element = rest.split_once(":t").map_or(rest, |(element, _)| element);
    element.parse().ok()
}

/// The identity of a node of an out-of-process iframe: the iframe's target
/// id, then the node's identity in its frame (`<target>/n31`), since backend
/// node ids are per renderer process and would collide with the page's.
pub fn frame_identity(target: &str, identity: &str) -> String {
    format!("{target}/{identity}")
}

/// The iframe target and backend node id of the element an identity made by
/// [`frame_identity`] names (for a text leaf, its parent element).
pub fn frame_element(identity: &str) -> Option<(&str, i64)> {
    let (target, rest) = identity.split_once('/')?;
    if target.is_empty() || !target.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    Some((target, backend_id(rest)?))
}

/// Builds the tree of a tab from its frames' nodes (main frame first).
/// Returns the tree and whether caps cut it short.
pub(crate) fn assemble(
    frames: &[FrameNodes],
    layouts: &[Layout],
    opts: &CaptureOptions,
) -> (Tree, bool) {
    assemble_with(frames, layouts, opts, None)
}

/// What a node reads as by itself, by node id: kept by a page's mirror
/// between captures for the nodes not read again.
pub(crate) type Readings = FxHashMap<String, Reading>;

/// [`assemble`], with the readings of nodes unchanged since the last
/// assembly in `known` (and those read now added to it).
pub(crate) fn assemble_with(
    frames: &[FrameNodes],
    layouts: &[Layout],
    opts: &CaptureOptions,
    known: Option<&mut Readings>,
) -> (Tree, bool) {
    let known = known.map(std::cell::RefCell::new);
    let unknown = Layout::default();
    let layout_of = |f: usize| layouts.get(frames[f].target).unwrap_or(&unknown);
    let index: Vec<FxHashMap<&str, usize>> = frames
        .iter()
        .map(|f| {
            f.nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.id.as_str(), i))
                .collect()
        })
        .collect();
    let frame_of: HashMap<&str, usize> = frames
        .iter()
        .enumerate()
        .map(|(i, f)| (f.frame.id.as_str(), i))
        .collect();
    let roots: Vec<Option<usize>> = frames
        .iter()
        .map(|f| {
            f.nodes
                .iter()
                .position(|n| n.parent.is_none())
                .or(if f.nodes.is_empty() { None } else { Some(0) })
        })
        .collect();
    let root_of = |f: usize| roots[f];
    let prefixed = |f: usize, identity: String| match &frames[f].prefix {
        Some(target) => frame_identity(target, &identity),
        None => identity,
    };
    // The labels (`<label for=...>`, text and nothing else) that gave a
    // field its name, which the field says: left out with their text.
    let labels_said: Vec<HashSet<i64>> = frames
        .iter()
        .map(|f| f.nodes.iter().flat_map(AxNode::named_by_labels).collect())
        .collect();
    let says_again = |f: usize, ax: &AxNode| {
        ax.backend.is_some_and(|b| labels_said[f].contains(&b))
            && ax.children.iter().all(|c| {
                index[f].get(c.as_str()).is_none_or(|&c| {
                    matches!(
                        AxValue::str(&frames[f].nodes[c].role),
                        "StaticText" | "InlineTextBox"
                    )
                })
            })
    };
    let Some((main_root, main)) = frames.first().and_then(|_| root_of(0).map(|r| (r, 0))) else {
        let mut doc = NodeData::new(Role::DocumentWeb);
        doc.raw_role = "RootWebArea".into();
        if let Some(f) = frames.first() {
            doc.identity = Some(document_identity(&f.frame.loader_id));
            doc.set_attribute("url", f.frame.url.clone());
        }
        doc.states = uidelta_model::StateSet::of(&[State::Showing, State::Visible]);
        return (Tree::leaf(doc), false);
    };
    // Text leaves are named after their parent element and their place
    // among its texts: replacing a text node (`textContent = ...`) then
    // reads as a change of text, not as one text removed and another added.
    // Worked out for the texts kept only, all texts of a parent at once.
    let text_slots: std::cell::RefCell<FxHashMap<(usize, usize), String>> = Default::default();
    let slot_of = |f: usize, i: usize| -> Option<String> {
        let frame = &frames[f];
        let parent = frame.nodes[i].parent.as_deref()?;
        let &p = index[f].get(parent)?;
        if let Some(slot) = text_slots.borrow().get(&(f, i)) {
            return Some(slot.clone());
        }
        let owner = frame.nodes[p].backend?;
        let mut slots = text_slots.borrow_mut();
        let mut k = 0;
        for child in &frame.nodes[p].children {
            let Some(&c) = index[f].get(child.as_str()) else {
                continue;
            };
            if AxValue::str(&frame.nodes[c].role) == "StaticText" {
                slots.insert((f, c), prefixed(f, text_identity(owner, k)));
                k += 1;
            }
        }
        slots.get(&(f, i)).cloned()
    };
    let reading = |f: usize, i: usize| -> Reading {
        let frame = &frames[f];
        let ax = &frame.nodes[i];
        let is_root = ax.parent.is_none() || i == root_of(f).unwrap_or(usize::MAX);
        let mut r = match known.as_ref().map(|k| k.borrow_mut()) {
            Some(mut known) => match known.get(ax.id.as_str()) {
                Some(r) => r.clone(),
                None => {
                    let r = read_node(ax, &frame.frame, is_root, layout_of(f));
                    known.insert(ax.id.clone(), r.clone());
                    r
                }
            },
            None => read_node(ax, &frame.frame, is_root, layout_of(f)),
        };
        let slot = (AxValue::str(&ax.role) == "StaticText")
            .then(|| slot_of(f, i))
            .flatten();
        if let Some(slot) = slot {
            r.data.identity = Some(slot);
        } else if ax.backend.is_some() && !is_root {
            r.data.identity = r.data.identity.map(|id| prefixed(f, id));
        }
        r
    };
    let first = reading(main, main_root);
    let mut builder = TreeBuilder::with_capacity(first.data, frames[main].nodes.len());
    let mut own_box = vec![first.own_box];
    let mut hidden = vec![first.hidden];
    let mut truncated = false;

    enum Step {
        Visit(usize, usize),
        Close,
    }
    let mut stack: Vec<Step> = Vec::new();
    let mut grafted: Vec<bool> = vec![false; frames.len()];
    grafted[main] = true;
    let push_children = |stack: &mut Vec<Step>, f: usize, i: usize| {
        for child in frames[f].nodes[i].children.iter().rev() {
            if let Some(&c) = index[f].get(child.as_str()) {
                stack.push(Step::Visit(f, c));
            }
        }
    };
    // The root's children; a root that is a text field keeps none.
    if !first.skip_children {
        push_children(&mut stack, main, main_root);
    }
    while let Some(step) = stack.pop() {
        let (f, i) = match step {
            Step::Close => {
                builder.close();
                continue;
            }
            Step::Visit(f, i) => (f, i),
        };
        let ax = &frames[f].nodes[i];
        let raw = AxValue::str(&ax.role);
        if roles::is_dropped(raw) {
            continue;
        }
        if ax.ignored {
            push_children(&mut stack, f, i);
            continue;
        }
        if raw == "LabelText" && says_again(f, ax) {
            continue;
        }
        if builder.len() >= opts.max_nodes || builder.depth() + 1 > opts.max_depth {
            truncated = true;
            continue;
        }
        // Text that only repeats its parent's name (a button's label, a
        // link's text) says nothing twice.
        if raw == "StaticText" {
            let parent = builder.current();
            let parent_name = builder.node_mut(parent).name.trim();
            if !parent_name.is_empty() && parent_name == AxValue::str(&ax.name).trim() {
                if has_box(ax, layout_of(f)) {
                    own_box[parent.index()] = true;
                }
                continue;
            }
        }
        let mut r = reading(f, i);
        // A nameless element holding one text and nothing else (a list
        // item, a paragraph, a cell, a label) is named after it, and the
        // text, which then repeats its name, is left out just below: one
        // line where there were two.
        if raw != "StaticText" && !r.skip_children && r.data.name.trim().is_empty() {
            if let Some(text) = sole_text(&frames[f].nodes, &index[f], ax) {
                r.data.name = text.to_owned();
            }
        }
        let skip_children = r.skip_children;
        builder.open(r.data);
        own_box.push(r.own_box);
        hidden.push(r.hidden);
        stack.push(Step::Close);
        // An iframe element holds the tree of its frame after its own children.
        let child_frame = ax
            .backend
            .and_then(|b| layout_of(f).owners.get(&b))
            .and_then(|id| frame_of.get(id.as_str()).copied());
        if let Some(cf) = child_frame {
            if !grafted[cf] {
                grafted[cf] = true;
                if let Some(root) = root_of(cf) {
                    stack.push(Step::Visit(cf, root));
                }
            }
        }
        if !skip_children {
            push_children(&mut stack, f, i);
        }
    }
    let mut tree = builder.finish();
    let known = layouts.first().is_some_and(|l| l.known);
    mark_showing(&mut tree, &own_box, &hidden, known);
    (tree, truncated)
}

/// The text of `ax` when it holds exactly one text and nothing else (list
/// markers and inline text boxes aside).
fn sole_text<'a>(
    nodes: &'a [AxNode],
    index: &FxHashMap<&str, usize>,
    ax: &AxNode,
) -> Option<&'a str> {
    let mut kept = ax
        .children
        .iter()
        .filter_map(|c| index.get(c.as_str()).map(|&c| &nodes[c]))
        .filter(|c| !roles::is_dropped(AxValue::str(&c.role)));
    let only = kept.next()?;
    if kept.next().is_some() || only.ignored || AxValue::str(&only.role) != "StaticText" {
        return None;
    }
    let text = only.name.as_ref()?.value.as_ref()?.as_str()?;
    (!text.trim().is_empty()).then_some(text)
}

/// A node as the tree shows it, with what showing depends on.
#[derive(Clone, Debug)]
pub(crate) struct Reading {
    data: NodeData,
    own_box: bool,
    hidden: bool,
    skip_children: bool,
}

fn read_node(ax: &AxNode, frame: &FrameInfo, is_frame_root: bool, layout: &Layout) -> Reading {
    let raw = AxValue::str(&ax.role);
    let role = if is_frame_root && raw.is_empty() {
        Role::DocumentWeb
    } else {
        roles::role(raw)
    };
    let props: Vec<(String, PropValue)> = ax
        .properties
        .iter()
        .map(|p| (p.name.clone(), PropValue::from_json(p.value.value.as_ref())))
        .collect();
    let pressed = props.iter().any(|(k, _)| k == "pressed");
    let role = if role == Role::PushButton && pressed {
        Role::ToggleButton
    } else {
        role
    };
    let reading = roles::read(role, &props);
    let mut data = NodeData {
        role,
        raw_role: raw.to_owned(),
        name: AxValue::text(&ax.name),
        value: AxValue::optional(&ax.value),
        description: AxValue::text(&ax.description),
        states: reading.states,
        bounds: None,
        attributes: reading.attributes,
        identity: ax.backend.map(node_identity),
        unread: Default::default(),
    };
    if reading.plain_text_field && data.value.is_none() {
        data.value = Some(String::new());
    }
    let mut own_box = has_box(ax, layout);
    if let Some(backend) = ax.backend {
        if own_box {
            data.bounds = layout.bounds.get(&backend).copied();
        }
        if let Some(attrs) = layout.attributes.get(&backend) {
            for (k, v) in attrs {
                data.set_attribute(k.clone(), v.clone());
            }
        }
    }
    if is_frame_root {
        data.identity = Some(document_identity(&frame.loader_id));
        data.set_attribute("url", frame.url.clone());
        own_box = true;
    }
    if data.identity.is_none() {
        data.identity = Some(format!("ax:{}:{}", frame.id, ax.id));
    }
    Reading {
        data,
        own_box,
        hidden: reading.hidden,
        skip_children: reading.plain_text_field,
    }
}

/// Whether `ax` has a box of its own in `layout`; in a frame read without
/// its layout, every node counts as shown.
fn has_box(ax: &AxNode, layout: &Layout) -> bool {
    match ax.backend.and_then(|b| layout.bounds.get(&b)) {
        Some(r) => r.w > 0 && r.h > 0,
        None => !layout.known,
    }
}

/// Sets `showing` and `visible` on nodes with a box, and on containers of
/// anything shown (an element with `display: contents` has no box of its
/// own). Without layout, every node that is not hidden counts as shown.
fn mark_showing(tree: &mut Tree, own_box: &[bool], hidden: &[bool], known: bool) {
    let mut showing = vec![false; tree.len()];
    for id in tree.ids().rev() {
        let i = id.index();
        let shown = !hidden.get(i).copied().unwrap_or(false)
            && (!known
                || own_box.get(i).copied().unwrap_or(false)
                || tree.children(id).iter().any(|c| showing[c.index()]));
        showing[i] = shown || id == NodeId::ROOT;
    }
    for id in tree.ids() {
        let data = tree.node_mut(id);
        if showing[id.index()] {
            data.states.insert(State::Showing);
            data.states.insert(State::Visible);
        } else if data.states.has_none() {
            // A disabled node out of sight has no state at all, which the
            // page says: not an empty set, which would say nothing.
            data.states = uidelta_model::StateSet::REPORTED_NONE;
        }
    }
}

/// Captures the tab behind `session`; says where its nodes came from.
/// With `mirror`, the tab's live mirror (see the `mirror` module) and the
/// fewest nodes it is read through at: read through when it can be, and
/// left as the capture leaves the page.
pub(crate) async fn capture(
    session: &Session,
    title: &str,
    opts: &CaptureOptions,
    mirror: Option<(&mut Option<PageMirror>, usize)>,
) -> Result<(Snapshot, CaptureRead)> {
    let started = Instant::now();
    let captured_at_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .ok();
    let work = async {
        match mirror {
            Some((slot, min_nodes)) => read_mirrored(session, opts, slot, min_nodes).await,
            None => read_whole(session, opts, None).await,
        }
    };
    let (tree, read, url, truncated) = match tokio::time::timeout(opts.deadline, work).await {
        Ok(result) => result?,
        Err(_) => return Err(session.timeout("the whole capture", opts.deadline)),
    };
    let mut snapshot = snapshot(tree, title, url, truncated, started);
    snapshot.meta.captured_at_ms = captured_at_ms;
    Ok((snapshot, read))
}

/// A capture's tree, what it read, the page's URL and whether caps cut it.
type Read = (Tree, CaptureRead, String, bool);

/// Reads through the tab's mirror in `slot` when it is current, else
/// whole (and starts a mirror from that read).
async fn read_mirrored(
    session: &Session,
    opts: &CaptureOptions,
    slot: &mut Option<PageMirror>,
    min_nodes: usize,
) -> Result<Read> {
    // A small page is read whole: only the script's epoch is asked.
    let small = slot.as_ref().is_some_and(|m| m.len() < min_nodes);
    let asked = if small {
        mirror::reset(session).await
    } else {
        mirror::take(session).await
    };
    let dirty = match asked {
        Ok(dirty) => dirty,
        Err(e @ (Error::Gone { .. } | Error::Timeout { .. } | Error::Blocked { .. })) => {
            *slot = None;
            return Err(e);
        }
        // A dialog blocks the page: the mirror still holds it as last
        // read, which is what shows behind the dialog.
        Err(e @ Error::Dialog { .. }) => return Err(e),
        Err(e) => {
            tracing::debug!("the page's changes could not be asked: {e}");
            mirror::Dirty::Absent
        }
    };
    let mut why = match (&dirty, slot.as_ref()) {
        (mirror::Dirty::Absent, _) | (_, None) => "first capture",
        _ if small => "small",
        (mirror::Dirty::Whole(_), _) => "page",
        (mirror::Dirty::Part(epoch, _, _), Some(m)) if m.epoch != *epoch => "first capture",
        (mirror::Dirty::Part(_, url, _), Some(m)) if m.frame.url != *url => "new URL",
        (_, Some(m)) if m.since.elapsed() >= mirror::MAX_AGE => "old",
        (_, Some(m)) if m.stale => "given up",
        _ => "",
    };
    if let (Some(m), mirror::Dirty::Part(_, _, changes), "") = (slot.as_mut(), &dirty, why) {
        let started = Instant::now();
        match mirror::update(session, m, changes).await {
            Ok(Some(part)) => {
                let (frame, mut known) = m.frame_nodes();
                let frames = std::slice::from_ref(&frame);
                let layouts = std::slice::from_ref(&m.layout);
                let (tree, truncated) = assemble_with(frames, layouts, opts, Some(&mut known));
                let url = frame.frame.url.clone();
                m.put_back(frame, known);
                tracing::debug!(
                    "capture: {} changes, {} nodes read again in {} round trips, {:.1} ms",
                    changes.len(),
                    part.nodes,
                    part.rounds,
                    started.elapsed().as_secs_f64() * 1000.0
                );
                let read = CaptureRead {
                    read_from_chromium: part.nodes,
                    through_mirror: true,
                    ..CaptureRead::default()
                };
                return Ok((tree, read, url, truncated));
            }
            Ok(None) => {
                tracing::debug!("capture: the mirror is read whole");
                why = "large";
            }
            // Nothing of the tree was replaced yet (only boxes and
            // readings, which assembling reads again).
            Err(e @ Error::Dialog { .. }) => {
                m.stale = true;
                return Err(e);
            }
            Err(e) => {
                *slot = None;
                return Err(e);
            }
        }
    }
    let last = slot.take();
    let epoch = dirty.epoch().map(str::to_owned);
    let whole = read_whole(session, opts, epoch.map(|e| (e, &mut *slot))).await;
    // Given up for a dialog: the page as last read is what shows behind it.
    if let (Err(Error::Dialog { .. }), Some(mut last)) = (&whole, last) {
        last.stale = true;
        *slot = Some(last);
    }
    let (tree, read, url, cut) = whole?;
    let read = CaptureRead {
        why_whole: why,
        ..read
    };
    Ok((tree, read, url, cut))
}

/// Reads the tab whole; with `keep`, the change script's epoch and where
/// to keep a mirror of what was read (a page of one frame, not cut short).
async fn read_whole(
    session: &Session,
    opts: &CaptureOptions,
    keep: Option<(String, &mut Option<PageMirror>)>,
) -> Result<Read> {
    let started = Instant::now();
    let (frames, mut layouts, frames_cut) = read_tab(session, opts).await?;
    let read_ms = started.elapsed().as_secs_f64() * 1000.0;
    let made_from_dom: usize = frames.iter().map(|f| f.from_dom).sum();
    let read = CaptureRead {
        read_from_chromium: frames.iter().map(|f| f.nodes.len()).sum::<usize>() - made_from_dom,
        made_from_dom,
        read_twice: frames.iter().any(|f| f.read_twice),
        ..CaptureRead::default()
    };
    let (tree, truncated) = assemble(&frames, &layouts, opts);
    tracing::debug!(
        "capture: read in {read_ms:.0} ms, assembled {} nodes in {:.0} ms",
        tree.len(),
        started.elapsed().as_secs_f64() * 1000.0 - read_ms
    );
    let url = frames
        .first()
        .map(|f| f.frame.url.clone())
        .unwrap_or_default();
    let cut = truncated || frames_cut;
    if let Some((epoch, slot)) = keep {
        if frames.len() == 1 && layouts.len() == 1 && frames[0].prefix.is_none() && !cut {
            let layout = layouts.remove(0);
            let frame = frames.into_iter().next().unwrap_or_default();
            *slot = Some(PageMirror::new(epoch, frame, layout));
        }
    }
    Ok((tree, read, url, cut))
}

/// The page as its mirror holds it: the tree of the capture that last
/// read it, assembled again.
pub(crate) fn mirrored_page(m: &mut PageMirror, title: &str, opts: &CaptureOptions) -> Snapshot {
    let started = Instant::now();
    let (frame, mut known) = m.frame_nodes();
    let frames = std::slice::from_ref(&frame);
    let layouts = std::slice::from_ref(&m.layout);
    let (tree, truncated) = assemble_with(frames, layouts, opts, Some(&mut known));
    let url = frame.frame.url.clone();
    m.put_back(frame, known);
    snapshot(tree, title, url, truncated, started)
}

/// The snapshot of a tab's tree.
fn snapshot(tree: Tree, title: &str, url: String, truncated: bool, started: Instant) -> Snapshot {
    let doc_title = tree.node(NodeId::ROOT).name.clone();
    let app = [doc_title.as_str(), title, url.as_str()]
        .into_iter()
        .find(|s| !s.is_empty())
        .unwrap_or("about:blank")
        .to_owned();
    let meta = Meta {
        source: "cdp".into(),
        app: Some(app),
        pid: None,
        window: Some(url),
        captured_at_ms: None,
        capture_ms: Some(started.elapsed().as_secs_f64() * 1000.0),
        truncated,
    };
    Snapshot::new(meta, tree)
}

async fn read_tab(
    session: &Session,
    opts: &CaptureOptions,
) -> Result<(Vec<FrameNodes>, Vec<Layout>, bool)> {
    let page = read_target(session, opts.max_frames, (0.0, 0.0), !opts.whole_tree).await?;
    let mut cut = page.cut;
    let mut frames = page.frames;
    // Most pages have every frame in their own process: then nothing more
    // is asked.
    if !page.layout.has_frames_elsewhere() {
        return Ok((frames, vec![page.layout], cut));
    }
    let mut layouts = vec![page.layout];
    let targets = match session.call("Target.getTargets", json!({})).await {
        Ok(answer) => frames::iframe_targets(&answer),
        Err(e) => {
            tracing::debug!("cross-site frames left out: {e}");
            Vec::new()
        }
    };
    // Which target holds each frame read so far, with its session.
    let mut holder: HashMap<String, usize> = page.frame_ids.into_iter().map(|id| (id, 0)).collect();
    let mut sessions: Vec<Session> = vec![session.clone()];
    let mut done: Vec<bool> = vec![false; targets.len()];
    while let Some(k) = frames::next_of_tab(&targets, &done, |f| holder.contains_key(f)) {
        done[k] = true;
        let (target, parent) = (&targets[k].0, &targets[k].1);
        let room = opts.max_frames.saturating_sub(frames.len());
        if room == 0 {
            cut = true;
            break;
        }
        let parent_target = holder[parent.as_str()];
        match read_cross_site(
            &sessions[parent_target],
            target,
            &layouts[parent_target],
            room,
        )
        .await
        {
            Ok((child, owner, read)) => {
                let index = layouts.len();
                layouts[parent_target].owners.insert(owner, target.clone());
                for id in read.frame_ids {
                    holder.insert(id, index);
                }
                frames.extend(read.frames.into_iter().map(|f| FrameNodes {
                    target: index,
                    prefix: Some(target.clone()),
                    ..f
                }));
                layouts.push(read.layout);
                sessions.push(child);
                cut |= read.cut;
            }
            Err(e) => tracing::debug!("cross-site frame {target} left out: {e}"),
        }
    }
    Ok((frames, layouts, cut))
}

/// What one target (the page, or a cross-site frame) gave.
struct TargetRead {
    /// The frames read, main frame first.
    frames: Vec<FrameNodes>,
    layout: Layout,
    /// Every frame of the target's frame tree, read or not.
    frame_ids: Vec<String>,
    /// Whether `max_frames` left frames out.
    cut: bool,
}

/// Reads the cross-site frame `target` whose `<iframe>` element is in the
/// target behind `parent` (laid out as `parent_layout`): returns its
/// session, the backend node id of the `<iframe>` element, and what it gave.
async fn read_cross_site(
    parent: &Session,
    target: &str,
    parent_layout: &Layout,
    max_frames: usize,
) -> Result<(Session, i64, TargetRead)> {
    let owner = parent
        .call("DOM.getFrameOwner", json!({"frameId": target}))
        .await?;
    let owner = owner["backendNodeId"]
        .as_i64()
        .ok_or_else(|| Error::Protocol {
            doing: parent.doing.clone(),
            method: "DOM.getFrameOwner".into(),
            detail: "the answer names no element".into(),
        })?;
    // An <iframe> without a box (hidden) still has its tree read.
    let origin = parent_layout
        .frame_origins
        .get(&owner)
        .copied()
        .unwrap_or_default();
    let child = parent.in_frame(target).await?;
    let read = read_target(&child, max_frames, origin, false).await?;
    Ok((child, owner, read))
}

/// `DOMSnapshot.captureSnapshot`, with the DOM rects of every box or not,
/// and the `visibility` of every box (whether a text reads in the tree).
fn snapshot_call(rects: bool) -> (&'static str, Value) {
    (
        "DOMSnapshot.captureSnapshot",
        json!({"computedStyles": ["visibility"], "includeDOMRects": rects}),
    )
}

/// The layout of a DOM snapshot's answer; without bounds when the snapshot
/// failed but the tab is still there.
fn read_layout(answer: Option<Result<Raw>>, origin: (f64, f64)) -> Result<Layout> {
    Ok(match answer {
        Some(Ok(Raw::Json(answer))) => Layout::from_snapshot_at(&answer, origin),
        Some(Ok(Raw::Text(answer))) => Layout::from_snapshot_text(&answer, origin),
        Some(Err(e @ (Error::Gone { .. } | Error::Timeout { .. } | Error::Blocked { .. }))) => {
            return Err(e)
        }
        Some(Err(e)) => {
            tracing::warn!("{e}; capturing without bounds");
            Layout::default()
        }
        None => Layout::default(),
    })
}

/// Reads the frames of one target: its frame tree, one DOM snapshot and
/// the accessibility tree of each frame. A frame that cannot be read is
/// left out; the target's main frame is an error. With `against_dom`, a
/// target of one frame has only the part of its tree read that the DOM
/// snapshot does not give (`prune::read_main_frame`).
async fn read_target(
    session: &Session,
    max_frames: usize,
    origin: (f64, f64),
    against_dom: bool,
) -> Result<TargetRead> {
    let tree = session.call("Page.getFrameTree", json!({})).await?;
    let mut frames = frames_of(&tree);
    if frames.is_empty() {
        return Err(Error::Protocol {
            doing: session.doing.clone(),
            method: "Page.getFrameTree".into(),
            detail: "the answer names no main frame".into(),
        });
    }
    let frame_ids: Vec<String> = frames.iter().map(|f| f.id.clone()).collect();
    let cut = frames.len() > max_frames;
    frames.truncate(max_frames);
    // The main frame alone is read against its DOM snapshot, so that the
    // leaves the snapshot gives are not asked of Chromium (`prune`).
    let against_dom = against_dom && frames.len() == 1;
    // The DOM snapshot without DOM rects: those cost Chromium more than
    // the rest of the snapshot, and only frame elements need them.
    let mut calls: Vec<(&'static str, Value)> = vec![snapshot_call(false)];
    if !against_dom {
        calls.extend(frames.iter().enumerate().map(|(k, f)| {
            let params = if k == 0 {
                json!({})
            } else {
                json!({"frameId": f.id})
            };
            ("Accessibility.getFullAXTree", params)
        }));
    }
    let asked = Instant::now();
    let mut answers = ask(session, &calls).await?.into_iter();
    tracing::debug!("capture: answered in {:?}", asked.elapsed());
    let parsing = Instant::now();
    let mut layout = read_layout(answers.next(), origin)?;
    if !layout.frame_elements.is_empty() {
        // Where each frame's viewport starts: inside its element's border,
        // which the client rects of the snapshot with DOM rects give.
        let mut again = ask(session, &[snapshot_call(true)]).await?.into_iter();
        layout = read_layout(again.next(), origin)?;
    }
    if against_dom {
        if let Some(main) = frames.into_iter().next() {
            let nodes = prune::read_main_frame(session, main, &layout).await?;
            return Ok(TargetRead {
                frames: vec![nodes],
                layout,
                frame_ids,
                cut,
            });
        }
        return Err(Error::Protocol {
            doing: session.doing.clone(),
            method: "Page.getFrameTree".into(),
            detail: "the answer names no main frame".into(),
        });
    }
    let trees = answers;
    let mut out = Vec::with_capacity(frames.len());
    for (k, (frame, answer)) in frames.into_iter().zip(trees).enumerate() {
        match answer {
            Ok(answer) => match FrameNodes::from_raw(frame, answer) {
                Ok(nodes) => out.push(nodes),
                Err(detail) if k == 0 => {
                    return Err(Error::Protocol {
                        doing: session.doing.clone(),
                        method: "Accessibility.getFullAXTree".into(),
                        detail,
                    })
                }
                Err(detail) => tracing::debug!("frame left out: {detail}"),
            },
            Err(e) if k == 0 => return Err(e),
            Err(e) => tracing::debug!("frame {} left out: {e}", frame.url),
        }
    }
    tracing::debug!("capture: answers read in {:?}", parsing.elapsed());
    Ok(TargetRead {
        frames: out,
        layout,
        frame_ids,
        cut,
    })
}

#[cfg(test)]
mod tests;
