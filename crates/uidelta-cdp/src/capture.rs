//! Capturing a tab's accessibility tree as a [`Snapshot`].
//!
//! One capture is a handful of calls whatever the page's size:
//! `Page.getFrameTree`, `Accessibility.getFullAXTree` once per frame, and
//! `DOMSnapshot.captureSnapshot` once for the bounds of every element of
//! every frame. Measured on a page of 1,170 accessibility nodes (a loaded
//! two-core machine): the accessibility tree takes 110 ms, the DOM snapshot
//! 30 ms, building the tree 3 ms; asking for each node's box model instead
//! would be 800 more round trips.
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

use serde::Deserialize;
use serde_json::{json, Value};
use uidelta_model::{Meta, NodeData, NodeId, Rect, Role, Snapshot, State, Tree, TreeBuilder};

use crate::error::{Error, Result};
use crate::frames;
use crate::protocol::Session;
use crate::roles::{self, PropValue};

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
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            max_nodes: 20_000,
            max_depth: 128,
            max_frames: 64,
            deadline: Duration::from_secs(30),
        }
    }
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
    /// The `<label for=...>` elements that gave this field its whole name.
    fn named_by_labels(&self) -> impl Iterator<Item = i64> + '_ {
        let name = AxValue::text(&self.name);
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
}

impl FrameNodes {
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

/// What `DOMSnapshot.captureSnapshot` says about elements, by backend node
/// id: bounds in viewport CSS pixels, which iframe holds which frame, and the
/// few DOM attributes the accessibility tree lacks.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Layout {
    /// Whether the snapshot was read; without it every node counts as shown.
    pub known: bool,
    pub bounds: HashMap<i64, Rect>,
    /// `<iframe>` element -> the frame it holds.
    pub owners: HashMap<i64, String>,
    pub attributes: HashMap<i64, Vec<(String, String)>>,
    /// `<iframe>` and `<frame>` element -> the viewport position of the top
    /// left corner of its content, where an out-of-process frame's own
    /// viewport starts.
    pub frame_origins: HashMap<i64, (f64, f64)>,
    /// Every `<iframe>` and `<frame>` element, laid out or not.
    pub frame_elements: Vec<i64>,
    /// Frame elements whose document here is still the initial empty one
    /// (no URL, or `about:blank`): a frame navigating to another site keeps
    /// it in this process until the other process commits, and a frame that
    /// stays blank has it for good.
    pub blank_frames: Vec<i64>,
}

impl Layout {
    /// Whether a frame element may hold a frame of another process: it holds
    /// no frame of this snapshot (a cross-site frame, or one not loaded), or
    /// only an empty document (a frame on its way to another site). The
    /// browser's list of targets says which; the question costs one call.
    pub fn has_frames_elsewhere(&self) -> bool {
        !self.known
            || !self.blank_frames.is_empty()
            || self
                .frame_elements
                .iter()
                .any(|id| !self.owners.contains_key(id))
    }

    /// Reads an answer of `DOMSnapshot.captureSnapshot` (with DOM rects) of
    /// a target whose viewport starts at `origin` in the page's viewport:
    /// `(0, 0)` for the page, the content corner of its `<iframe>` element
    /// for a cross-site frame (whose snapshot is in its own coordinates).
    pub fn from_snapshot_at(answer: &Value, origin: (f64, f64)) -> Layout {
        let empty = Vec::new();
        let strings: Vec<&str> = answer["strings"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .map(|s| s.as_str().unwrap_or_default())
            .collect();
        let string = |v: &Value| -> &str {
            v.as_i64()
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| strings.get(i).copied())
                .unwrap_or_default()
        };
        let documents = answer["documents"].as_array().unwrap_or(&empty);
        let mut layout = Layout {
            known: !documents.is_empty(),
            ..Layout::default()
        };
        // Offsets of documents in the main viewport; parents come first.
        let mut offsets: Vec<Option<(f64, f64)>> = vec![None; documents.len()];
        if let Some(main) = documents.first() {
            offsets[0] = Some((
                origin.0 - num(&main["scrollOffsetX"]),
                origin.1 - num(&main["scrollOffsetY"]),
            ));
        }
        let mut order: Vec<usize> = vec![0];
        let mut k = 0;
        while k < order.len() && !documents.is_empty() {
            let d = order[k];
            k += 1;
            let doc = &documents[d];
            let Some((dx, dy)) = offsets[d] else { continue };
            let nodes = &doc["nodes"];
            let backend = nodes["backendNodeId"].as_array().unwrap_or(&empty);
            let names = nodes["nodeName"].as_array().unwrap_or(&empty);
            let attrs = nodes["attributes"].as_array().unwrap_or(&empty);
            let lay = &doc["layout"];
            let node_index = lay["nodeIndex"].as_array().unwrap_or(&empty);
            let rects = lay["bounds"].as_array().unwrap_or(&empty);
            let client = lay["clientRects"].as_array().unwrap_or(&empty);
            let mut doc_rect: HashMap<usize, (f64, f64, f64, f64)> = HashMap::new();
            let mut border: HashMap<usize, (f64, f64)> = HashMap::new();
            for (i, ni) in node_index.iter().enumerate() {
                let Some(ni) = ni.as_u64().map(|n| n as usize) else {
                    continue;
                };
                let Some(r) = rects.get(i).and_then(quad) else {
                    continue;
                };
                let r = match doc_rect.get(&ni) {
                    Some(&old) if area(old) > 0.0 => union(old, r),
                    _ => r,
                };
                doc_rect.insert(ni, r);
                if let Some(c) = client.get(i).and_then(quad) {
                    border.insert(ni, (c.0, c.1));
                }
            }
            for (&ni, &(x, y, w, h)) in &doc_rect {
                if let Some(id) = backend.get(ni).and_then(Value::as_i64) {
                    layout.bounds.insert(id, to_rect(x + dx, y + dy, w, h));
                    let tag = names.get(ni).map(string).unwrap_or_default();
                    if tag.eq_ignore_ascii_case("iframe") || tag.eq_ignore_ascii_case("frame") {
                        let (bx, by) = border.get(&ni).copied().unwrap_or_default();
                        layout.frame_origins.insert(id, (dx + x + bx, dy + y + by));
                    }
                }
            }
            for (ni, id) in backend.iter().enumerate() {
                let Some(id) = id.as_i64() else { continue };
                let Some(list) = attrs.get(ni).and_then(Value::as_array) else {
                    continue;
                };
                if list.is_empty() {
                    continue;
                }
                let tag = names.get(ni).map(string).unwrap_or_default();
                let field =
                    tag.eq_ignore_ascii_case("input") || tag.eq_ignore_ascii_case("textarea");
                let mut found = Vec::new();
                for pair in list.chunks(2) {
                    let (key, value) = (
                        string(&pair[0]),
                        pair.get(1).map(string).unwrap_or_default(),
                    );
                    match key {
                        "type" if tag.eq_ignore_ascii_case("input") => {
                            found.push(("input-type".to_owned(), value.to_ascii_lowercase()))
                        }
                        "placeholder" if field && !value.is_empty() => {
                            found.push(("placeholder".to_owned(), value.to_owned()))
                        }
                        // Which page, step or item is the current one: the
                        // accessibility tree does not say.
                        "aria-current" if !value.is_empty() && value != "false" => {
                            found.push(("current".to_owned(), value.to_owned()))
                        }
                        _ => {}
                    }
                }
                if !found.is_empty() {
                    found.sort();
                    layout.attributes.insert(id, found);
                }
            }
            for (ni, id) in backend.iter().enumerate() {
                let tag = names.get(ni).map(string).unwrap_or_default();
                if tag.eq_ignore_ascii_case("iframe") || tag.eq_ignore_ascii_case("frame") {
                    if let Some(id) = id.as_i64() {
                        layout.frame_elements.push(id);
                    }
                }
            }
            let owners = &nodes["contentDocumentIndex"];
            let owner_nodes = owners["index"].as_array().unwrap_or(&empty);
            let owned_docs = owners["value"].as_array().unwrap_or(&empty);
            for (ni, child) in owner_nodes.iter().zip(owned_docs) {
                let (Some(ni), Some(child)) = (ni.as_u64(), child.as_u64()) else {
                    continue;
                };
                let (ni, child) = (ni as usize, child as usize);
                let Some(child_doc) = documents.get(child) else {
                    continue;
                };
                if let Some(id) = backend.get(ni).and_then(Value::as_i64) {
                    layout
                        .owners
                        .insert(id, string(&child_doc["frameId"]).to_owned());
                    if matches!(string(&child_doc["documentURL"]), "" | "about:blank") {
                        layout.blank_frames.push(id);
                    }
                }
                if offsets[child].is_none() {
                    let (x, y, _, _) = doc_rect.get(&ni).copied().unwrap_or_default();
                    let (bx, by) = border.get(&ni).copied().unwrap_or_default();
                    offsets[child] = Some((
                        dx + x + bx - num(&child_doc["scrollOffsetX"]),
                        dy + y + by - num(&child_doc["scrollOffsetY"]),
                    ));
                    order.push(child);
                }
            }
        }
        layout
    }
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

fn quad(v: &Value) -> Option<(f64, f64, f64, f64)> {
    let a = v.as_array()?;
    if a.len() < 4 {
        return None;
    }
    Some((num(&a[0]), num(&a[1]), num(&a[2]), num(&a[3])))
}

fn area(r: (f64, f64, f64, f64)) -> f64 {
    r.2 * r.3
}

fn union(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> (f64, f64, f64, f64) {
    if area(b) <= 0.0 {
        return a;
    }
    let (x0, y0) = (a.0.min(b.0), a.1.min(b.1));
    let (x1, y1) = ((a.0 + a.2).max(b.0 + b.2), (a.1 + a.3).max(b.1 + b.3));
    (x0, y0, x1 - x0, y1 - y0)
}

fn to_rect(x: f64, y: f64, w: f64, h: f64) -> Rect {
    Rect::new(
        x.round() as i32,
        y.round() as i32,
        w.round() as i32,
        h.round() as i32,
    )
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
    let unknown = Layout::default();
    let layout_of = |f: usize| layouts.get(frames[f].target).unwrap_or(&unknown);
    let index: Vec<HashMap<&str, usize>> = frames
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
                        AxValue::text(&frames[f].nodes[c].role).as_str(),
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
    let text_slots: Vec<HashMap<usize, String>> = frames
        .iter()
        .enumerate()
        .map(|(f, frame)| {
            let mut slots = HashMap::new();
            for parent in &frame.nodes {
                let Some(owner) = parent.backend else {
                    continue;
                };
                let mut k = 0;
                for child in &parent.children {
                    let Some(&c) = index[f].get(child.as_str()) else {
                        continue;
                    };
                    if AxValue::text(&frame.nodes[c].role) == "StaticText" {
                        slots.insert(c, prefixed(f, text_identity(owner, k)));
                        k += 1;
                    }
                }
            }
            slots
        })
        .collect();
    let reading = |f: usize, i: usize| -> Reading {
        let frame = &frames[f];
        let ax = &frame.nodes[i];
        let is_root = ax.parent.is_none() || i == root_of(f).unwrap_or(usize::MAX);
        let mut r = read_node(ax, &frame.frame, is_root, layout_of(f));
        if let Some(slot) = text_slots[f].get(&i) {
            r.data.identity = Some(slot.clone());
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
        let raw = AxValue::text(&ax.role);
        if roles::is_dropped(&raw) {
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
        // Text that only repeats its parent's name (a button's label, a
        // link's text) says nothing twice.
        if raw == "StaticText" {
            let parent = builder.current();
            let parent_name = builder.node_mut(parent).name.trim().to_owned();
            if !parent_name.is_empty() && parent_name == r.data.name.trim() {
                if r.own_box {
                    own_box[parent.index()] = true;
                }
                continue;
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
    index: &HashMap<&str, usize>,
    ax: &AxNode,
) -> Option<&'a str> {
    let mut kept = ax
        .children
        .iter()
        .filter_map(|c| index.get(c.as_str()).map(|&c| &nodes[c]))
        .filter(|c| !roles::is_dropped(&AxValue::text(&c.role)));
    let only = kept.next()?;
    if kept.next().is_some() || only.ignored || AxValue::text(&only.role) != "StaticText" {
        return None;
    }
    let text = only.name.as_ref()?.value.as_ref()?.as_str()?;
    (!text.trim().is_empty()).then_some(text)
}

/// A node as the tree shows it, with what showing depends on.
struct Reading {
    data: NodeData,
    own_box: bool,
    hidden: bool,
    skip_children: bool,
}

fn read_node(ax: &AxNode, frame: &FrameInfo, is_frame_root: bool, layout: &Layout) -> Reading {
    let raw = AxValue::text(&ax.role);
    let role = if is_frame_root && raw.is_empty() {
        Role::DocumentWeb
    } else {
        roles::role(&raw)
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
        raw_role: raw,
        name: AxValue::text(&ax.name),
        value: AxValue::optional(&ax.value),
        description: AxValue::text(&ax.description),
        states: reading.states,
        bounds: None,
        attributes: reading.attributes,
        identity: ax.backend.map(node_identity),
    };
    if reading.plain_text_field && data.value.is_none() {
        data.value = Some(String::new());
    }
    // A frame read without its layout counts as shown.
    let mut own_box = !layout.known;
    if let Some(backend) = ax.backend {
        if let Some(&r) = layout.bounds.get(&backend) {
            own_box = r.w > 0 && r.h > 0;
            if own_box {
                data.bounds = Some(r);
            }
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
        if showing[id.index()] {
            let data = tree.node_mut(id);
            data.states.insert(State::Showing);
            data.states.insert(State::Visible);
        }
    }
}

/// Captures the tab behind `session`.
pub(crate) async fn capture(
    session: &Session,
    title: &str,
    opts: &CaptureOptions,
) -> Result<Snapshot> {
    let started = Instant::now();
    let captured_at_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .ok();
    let work = read_tab(session, opts);
    let (frames, layouts, frames_cut) = match tokio::time::timeout(opts.deadline, work).await {
        Ok(result) => result?,
        Err(_) => return Err(session.timeout("the whole capture", opts.deadline)),
    };
    let (tree, truncated) = assemble(&frames, &layouts, opts);
    let url = frames
        .first()
        .map(|f| f.frame.url.clone())
        .unwrap_or_default();
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
        captured_at_ms,
        capture_ms: Some(started.elapsed().as_secs_f64() * 1000.0),
        truncated: truncated || frames_cut,
    };
    Ok(Snapshot::new(meta, tree))
}

async fn read_tab(
    session: &Session,
    opts: &CaptureOptions,
) -> Result<(Vec<FrameNodes>, Vec<Layout>, bool)> {
    let page = read_target(session, opts.max_frames, (0.0, 0.0)).await?;
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
    let read = read_target(&child, max_frames, origin).await?;
    Ok((child, owner, read))
}

/// Reads the frames of one target: its frame tree, one DOM snapshot and
/// the accessibility tree of each frame. A frame that cannot be read is
/// left out; the target's main frame is an error.
async fn read_target(
    session: &Session,
    max_frames: usize,
    origin: (f64, f64),
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
    let snapshot = session.call(
        "DOMSnapshot.captureSnapshot",
        json!({"computedStyles": [], "includeDOMRects": true}),
    );
    let trees = futures_util::future::join_all(frames.iter().enumerate().map(|(k, f)| {
        let params = if k == 0 {
            json!({})
        } else {
            json!({"frameId": f.id})
        };
        session.call("Accessibility.getFullAXTree", params)
    }));
    let (snapshot, trees) = futures_util::join!(snapshot, trees);
    let layout = match snapshot {
        Ok(answer) => Layout::from_snapshot_at(&answer, origin),
        Err(e @ (Error::Gone { .. } | Error::Timeout { .. })) => return Err(e),
        Err(e) => {
            tracing::warn!("{e}; capturing without bounds");
            Layout::default()
        }
    };
    let mut out = Vec::with_capacity(frames.len());
    for (k, (frame, answer)) in frames.into_iter().zip(trees).enumerate() {
        match answer {
            Ok(answer) => match FrameNodes::from_answer(frame, answer) {
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
    Ok(TargetRead {
        frames: out,
        layout,
        frame_ids,
        cut,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidelta_model::StateSet;

    fn frame(id: &str, loader: &str, url: &str) -> FrameInfo {
        FrameInfo {
            id: id.into(),
            parent: None,
            loader_id: loader.into(),
            url: url.into(),
            unreachable_url: None,
        }
    }

    fn nodes(v: Value) -> Vec<AxNode> {
        serde_json::from_value(v).unwrap()
    }

    /// A page as Chromium reports it: ignored wrappers, inline text boxes, a
    /// text field with its inner editor, and an iframe.
    fn page() -> Vec<AxNode> {
        nodes(json!([
            {"nodeId": "1", "ignored": false, "role": {"type": "internalRole", "value": "RootWebArea"},
             "name": {"type": "computedString", "value": "Form page"},
             "properties": [{"name": "focusable", "value": {"type": "booleanOrUndefined", "value": true}},
                            {"name": "url", "value": {"type": "string", "value": "http://x/form.html"}}],
             "childIds": ["2"], "backendDOMNodeId": 5},
            {"nodeId": "2", "ignored": true, "role": {"type": "role", "value": "none"},
             "parentId": "1", "childIds": ["3", "10", "5", "7", "9"], "backendDOMNodeId": 8},
            {"nodeId": "10", "ignored": false, "role": {"type": "role", "value": "paragraph"},
             "parentId": "2", "childIds": ["11"], "backendDOMNodeId": 14},
            {"nodeId": "11", "ignored": false, "role": {"type": "internalRole", "value": "StaticText"},
             "name": {"type": "computedString", "value": "Ready"}, "parentId": "10",
             "childIds": [], "backendDOMNodeId": 44},
            {"nodeId": "3", "ignored": false, "role": {"type": "role", "value": "heading"},
             "name": {"type": "computedString", "value": "Order"},
             "properties": [{"name": "level", "value": {"type": "integer", "value": 1}}],
             "parentId": "2", "childIds": ["4"], "backendDOMNodeId": 13},
            {"nodeId": "4", "ignored": false, "role": {"type": "internalRole", "value": "StaticText"},
             "name": {"type": "computedString", "value": "Order"}, "parentId": "3",
             "childIds": ["40"], "backendDOMNodeId": 43},
            {"nodeId": "40", "ignored": false, "role": {"type": "internalRole", "value": "InlineTextBox"},
             "name": {"type": "computedString", "value": "Order"}, "parentId": "4", "childIds": []},
            {"nodeId": "5", "ignored": false, "role": {"type": "role", "value": "textbox"},
             "name": {"type": "computedString", "value": "Name"},
             "value": {"type": "string", "value": "Ann"},
             "properties": [{"name": "editable", "value": {"type": "token", "value": "plaintext"}},
                            {"name": "focusable", "value": {"type": "booleanOrUndefined", "value": true}},
                            {"name": "required", "value": {"type": "boolean", "value": true}}],
             "parentId": "2", "childIds": ["6"], "backendDOMNodeId": 1},
            {"nodeId": "6", "ignored": false, "role": {"type": "role", "value": "generic"},
             "parentId": "5", "childIds": [], "backendDOMNodeId": 19},
            {"nodeId": "7", "ignored": false, "role": {"type": "role", "value": "checkbox"},
             "name": {"type": "computedString", "value": "Agree"},
             "properties": [{"name": "checked", "value": {"type": "tristate", "value": "true"}},
                            {"name": "disabled", "value": {"type": "boolean", "value": true}}],
             "parentId": "2", "childIds": [], "backendDOMNodeId": 4},
            {"nodeId": "9", "ignored": false, "role": {"type": "internalRole", "value": "Iframe"},
             "name": {"type": "computedString", "value": "Inner"},
             "parentId": "2", "childIds": [], "backendDOMNodeId": 40}
        ]))
    }

    fn inner() -> Vec<AxNode> {
        nodes(json!([
            {"nodeId": "1", "ignored": false, "role": {"type": "internalRole", "value": "RootWebArea"},
             "name": {"type": "computedString", "value": "Frame"}, "childIds": ["2"], "backendDOMNodeId": 7},
            {"nodeId": "2", "ignored": false, "role": {"type": "role", "value": "button"},
             "name": {"type": "computedString", "value": "Inside"}, "parentId": "1", "childIds": [],
             "backendDOMNodeId": 66}
        ]))
    }

    fn layout() -> Layout {
        let mut l = Layout {
            known: true,
            ..Layout::default()
        };
        for (id, r) in [
            (5, Rect::new(0, 0, 800, 600)),
            (13, Rect::new(8, 20, 700, 37)),
            (43, Rect::new(8, 20, 160, 36)),
            (14, Rect::new(8, 80, 700, 18)),
            (44, Rect::new(8, 80, 41, 17)),
            (1, Rect::new(10, 100, 177, 21)),
            (4, Rect::new(200, 100, 13, 13)),
            (40, Rect::new(8, 150, 304, 154)),
            (7, Rect::new(10, 152, 300, 150)),
            (66, Rect::new(18, 160, 89, 21)),
        ] {
            l.bounds.insert(id, r);
        }
        l.owners.insert(40, "child".into());
        l.attributes
            .insert(1, vec![("placeholder".into(), "Your name".into())]);
        l
    }

    fn frames() -> Vec<FrameNodes> {
        vec![
            FrameNodes {
                frame: frame("main", "L1", "http://x/form.html"),
                nodes: page(),
                ..FrameNodes::default()
            },
            FrameNodes {
                frame: FrameInfo {
                    parent: Some("main".into()),
                    ..frame("child", "L2", "http://x/frame.html")
                },
                nodes: inner(),
                ..FrameNodes::default()
            },
        ]
    }

    fn outline(t: &Tree) -> Vec<String> {
        t.ids()
            .map(|id| {
                let n = t.node(id);
                format!("{}{} {:?}", "  ".repeat(t.depth(id)), n.role, n.name)
            })
            .collect()
    }

    #[test]
    fn ignored_nodes_are_lifted_inline_text_boxes_dropped_and_frames_grafted() {
        let (t, truncated) = assemble(&frames(), &[layout()], &CaptureOptions::default());
        assert!(!truncated);
        assert_eq!(
            outline(&t),
            vec![
                "document web \"Form page\"",
                "  heading \"Order\"",
                "  paragraph \"Ready\"",
                "  entry \"Name\"",
                "  check box \"Agree\"",
                "  internal frame \"Inner\"",
                "    document web \"Frame\"",
                "      push button \"Inside\"",
            ]
        );
        let root = t.node(NodeId::ROOT);
        assert_eq!(root.identity.as_deref(), Some("doc:L1"));
        assert_eq!(root.attribute("url"), Some("http://x/form.html"));
        assert_eq!(root.raw_role, "RootWebArea");
        let heading = t.node(NodeId(1));
        assert_eq!(heading.identity.as_deref(), Some("n13"));
        assert_eq!(heading.attribute("level"), Some("1"));
        assert_eq!(heading.bounds, Some(Rect::new(8, 20, 700, 37)));
        // The paragraph holds one text and nothing else: named after it.
        let paragraph = t.node(NodeId(2));
        assert_eq!(paragraph.identity.as_deref(), Some("n14"));
        let entry = t.node(NodeId(3));
        assert_eq!(entry.value.as_deref(), Some("Ann"));
        assert_eq!(entry.attribute("placeholder"), Some("Your name"));
        assert!(entry.states.contains(State::Required));
        assert!(entry.states.contains(State::Editable));
        let check = t.node(NodeId(4));
        assert!(check.states.contains(State::Checked));
        assert!(!check.states.contains(State::Enabled));
        let inner_doc = t.node(NodeId(6));
        assert_eq!(inner_doc.identity.as_deref(), Some("doc:L2"));
        assert_eq!(inner_doc.attribute("url"), Some("http://x/frame.html"));
        assert_eq!(t.node(NodeId(7)).identity.as_deref(), Some("n66"));
        for id in t.ids() {
            assert!(
                t.node(id).states.contains(State::Showing),
                "{:?}",
                t.node(id)
            );
        }
    }

    #[test]
    fn a_label_for_a_field_that_the_field_names_is_left_out() {
        let label = |id: &str, backend: i64, children: &[&str]| {
            json!({"nodeId": id, "ignored": false,
                   "role": {"type": "internalRole", "value": "LabelText"},
                   "name": {"type": "computedString", "value": ""},
                   "parentId": "1", "childIds": children, "backendDOMNodeId": backend})
        };
        let text = |id: &str, parent: &str, name: &str| {
            json!({"nodeId": id, "ignored": false,
                   "role": {"type": "internalRole", "value": "StaticText"},
                   "name": {"type": "computedString", "value": name},
                   "parentId": parent, "childIds": []})
        };
        let field = |id: &str, name: &str, label: i64, superseded: bool| {
            json!({"nodeId": id, "ignored": false, "role": {"type": "role", "value": "textbox"},
                   "name": {"type": "computedString", "value": name, "sources": [
                       {"type": "relatedElement", "attribute": "aria-labelledby"},
                       {"type": "relatedElement", "nativeSource": "labelfor",
                        "superseded": superseded,
                        "nativeSourceValue": {"type": "nodeList", "relatedNodes": [
                            {"backendDOMNodeId": label, "text": name}]}}]},
                   "parentId": "1", "childIds": []})
        };
        let frames = vec![FrameNodes {
            frame: frame("F1", "L1", "http://x/form.html"),
            nodes: nodes(json!([
                {"nodeId": "1", "ignored": false,
                 "role": {"type": "internalRole", "value": "RootWebArea"},
                 "name": {"type": "computedString", "value": "Form"},
                 "childIds": ["2", "4", "5", "7", "9", "10", "12", "14"]},
                // Text only, and the field's whole name: left out.
                label("2", 20, &["3"]), text("3", "2", "Email"),
                field("4", "Email", 20, false),
                // A link in it: it says more, and stays.
                label("5", 21, &["6", "16"]), text("6", "5", "I agree"),
                field("7", "I agree", 21, false),
                // The field's name came from elsewhere (aria-label): it stays.
                label("9", 22, &["11"]), field("10", "Search", 22, true),
                text("11", "9", "Search"),
                // Labels no field: it stays.
                label("12", 23, &["13"]), text("13", "12", "Notes"),
                text("14", "1", "Footer"),
                {"nodeId": "16", "ignored": false, "role": {"type": "role", "value": "link"},
                 "name": {"type": "computedString", "value": "terms"},
                 "parentId": "5", "childIds": []}
            ])),
            target: 0,
            prefix: None,
        }];
        let (t, _) = assemble(&frames, &[Layout::default()], &CaptureOptions::default());
        assert_eq!(
            outline(&t),
            vec![
                "document web \"Form\"",
                "  entry \"Email\"",
                "  label \"\"",
                "    static \"I agree\"",
                "    link \"terms\"",
                "  entry \"I agree\"",
                "  label \"Search\"",
                "  entry \"Search\"",
                "  label \"Notes\"",
                "  static \"Footer\"",
            ]
        );
        // A text among other children is its own element, named after its
        // element and its place among that element's texts.
        assert_eq!(t.node(NodeId(3)).identity.as_deref(), Some("n21:t0"));
    }

    #[test]
    fn cross_site_frames_are_grafted_with_their_own_layout_and_prefixed_ids() {
        let mut f = frames();
        f[1].target = 1;
        f[1].prefix = Some("child".into());
        // The frame's process numbers its nodes on its own: 7 and 66 are
        // also the page's; its layout is its own, already in the viewport.
        let mut main = layout();
        main.bounds.remove(&66);
        main.bounds.insert(7, Rect::new(1, 1, 1, 1));
        let mut child = Layout {
            known: true,
            ..Layout::default()
        };
        child.bounds.insert(7, Rect::new(10, 152, 300, 150));
        child.bounds.insert(66, Rect::new(20, 170, 89, 21));
        let (t, truncated) = assemble(&f, &[main, child], &CaptureOptions::default());
        assert!(!truncated);
        let frame = t.node(NodeId(5));
        assert_eq!(frame.role, Role::InternalFrame);
        assert_eq!(frame.identity.as_deref(), Some("n40"));
        let doc = t.node(NodeId(6));
        assert_eq!(doc.identity.as_deref(), Some("doc:L2"));
        let button = t.node(NodeId(7));
        assert_eq!(button.name, "Inside");
        assert_eq!(button.identity.as_deref(), Some("child/n66"));
        assert_eq!(button.bounds, Some(Rect::new(20, 170, 89, 21)));
        assert!(button.states.contains(State::Showing));
        assert_eq!(frame_element("child/n66"), Some(("child", 66)));
        assert_eq!(frame_element("child/n66:t2"), Some(("child", 66)));
        assert_eq!(backend_id("child/n66"), None);
        assert_eq!(frame_element("n66"), None);
        assert_eq!(frame_element("ax:a/b:7"), None);
    }

    #[test]
    fn nodes_without_a_box_are_not_showing_unless_they_hold_something_shown() {
        let mut l = layout();
        l.bounds.remove(&13); // the heading: its text still has a box
        l.bounds.remove(&4); // the check box: nothing inside
        l.bounds.remove(&14); // the paragraph: its text has a box
        let (t, _) = assemble(&frames(), &[l], &CaptureOptions::default());
        assert!(t.node(NodeId(1)).states.contains(State::Showing));
        assert!(t.node(NodeId(2)).states.contains(State::Showing));
        assert_eq!(t.node(NodeId(1)).bounds, None);
        let check = t.node(NodeId(4)).states;
        assert!(!check.contains(State::Showing));
        assert!(!check.contains(State::Visible));
        assert!(check.contains(State::Checkable));
    }

    #[test]
    fn caps_cut_the_tree_and_say_so() {
        let opts = CaptureOptions {
            max_nodes: 3,
            ..CaptureOptions::default()
        };
        let (t, truncated) = assemble(&frames(), &[layout()], &opts);
        assert!(truncated);
        assert_eq!(t.len(), 3);
        let opts = CaptureOptions {
            max_depth: 1,
            ..CaptureOptions::default()
        };
        let (t, truncated) = assemble(&frames(), &[layout()], &opts);
        assert!(truncated);
        assert_eq!(t.len(), 6);
        assert!(t.ids().all(|id| t.depth(id) <= 1));
    }

    #[test]
    fn an_empty_answer_still_gives_a_document() {
        let f = vec![FrameNodes {
            frame: frame("main", "L9", "about:blank"),
            nodes: Vec::new(),
            ..FrameNodes::default()
        }];
        let (t, _) = assemble(&f, &[Layout::default()], &CaptureOptions::default());
        assert_eq!(t.len(), 1);
        assert_eq!(t.node(NodeId::ROOT).identity.as_deref(), Some("doc:L9"));
        assert!(t.node(NodeId::ROOT).states.contains(State::Showing));
        let _ = StateSet::EMPTY;
    }

    #[test]
    fn snapshot_bounds_move_into_the_viewport_and_iframes_add_their_offset() {
        let answer = json!({
            "strings": ["#document", "HTML", "IFRAME", "F1", "F2", "INPUT", "type", "PASSWORD", "placeholder", "Secret", "A", "aria-current", "page", "false", "http://x/inner", "about:blank"],
            "documents": [
                {"frameId": 3, "scrollOffsetX": 0, "scrollOffsetY": 500,
                 "nodes": {"backendNodeId": [5, 8, 52, 60], "nodeName": [0, 1, 2, 5],
                           "attributes": [[], [], [], [6, 7, 8, 9]],
                           "contentDocumentIndex": {"index": [2], "value": [1]}},
                 "layout": {"nodeIndex": [0, 1, 2, 3],
                            "bounds": [[0, 0, 780, 493], [0, 0, 765, 2363.875], [8, 655.5, 304, 154], [10, 20, 100, 20]],
                            "clientRects": [[], [0, 0, 765, 493], [2, 2, 300, 150], [2, 2, 96, 16]]}},
                {"frameId": 4, "documentURL": 14, "scrollOffsetX": 0, "scrollOffsetY": 10,
                 "nodes": {"backendNodeId": [7, 66, 67], "nodeName": [0, 10, 10], "attributes": [[], [11, 12], [11, 13]]},
                 "layout": {"nodeIndex": [0, 1], "bounds": [[0, 0, 300, 150], [8, 8, 89.3, 21]],
                            "clientRects": [[], []]}}
            ]
        });
        let l = Layout::from_snapshot_at(&answer, (0.0, 0.0));
        assert!(l.known);
        assert_eq!(l.bounds[&52], Rect::new(8, 156, 304, 154));
        assert_eq!(l.bounds[&60], Rect::new(10, -480, 100, 20));
        // Frame origin: iframe at (8, 155.5) plus its 2 px border, scrolled by 10.
        assert_eq!(l.bounds[&66], Rect::new(18, 156, 89, 21));
        assert_eq!(l.owners[&52], "F2");
        // Its one iframe holds a frame of this snapshot: no cross-site frame.
        assert!(!l.has_frames_elsewhere());
        // The same frame still on its initial empty document may be on its
        // way to another process: the targets are asked.
        let mut blank = answer.clone();
        blank["documents"][1]["documentURL"] = json!(15);
        let b = Layout::from_snapshot_at(&blank, (0.0, 0.0));
        assert_eq!(b.owners[&52], "F2");
        assert_eq!(b.blank_frames, vec![52]);
        assert!(b.has_frames_elsewhere());
        assert_eq!(
            l.attributes[&66],
            vec![("current".to_owned(), "page".to_owned())]
        );
        assert!(!l.attributes.contains_key(&67));
        assert_eq!(
            l.attributes[&60],
            vec![
                ("input-type".to_owned(), "password".to_owned()),
                ("placeholder".to_owned(), "Secret".to_owned())
            ]
        );
    }

    #[test]
    fn a_cross_site_snapshot_moves_to_its_iframe_and_iframes_give_their_origin() {
        let page = json!({
            "strings": ["#document", "IFRAME", "F2"],
            "documents": [{"frameId": 2, "scrollOffsetX": 0, "scrollOffsetY": 100,
                 "nodes": {"backendNodeId": [5, 52], "nodeName": [0, 1]},
                 "layout": {"nodeIndex": [0, 1],
                            "bounds": [[0, 0, 780, 493], [8, 180, 306, 156]],
                            "clientRects": [[], [3, 3, 300, 150]]}}]
        });
        let l = Layout::from_snapshot_at(&page, (0.0, 0.0));
        assert_eq!(l.frame_origins[&52], (11.0, 83.0));
        assert!(!l.frame_origins.contains_key(&5));
        // The iframe's frame is not in the snapshot: it runs elsewhere.
        assert!(l.has_frames_elsewhere());
        let frame = json!({
            "strings": ["#document", "BUTTON"],
            "documents": [{"frameId": 0, "scrollOffsetX": 0, "scrollOffsetY": 5,
                 "nodes": {"backendNodeId": [7, 8], "nodeName": [0, 1]},
                 "layout": {"nodeIndex": [0, 1],
                            "bounds": [[0, 0, 300, 150], [10, 20, 80, 20]],
                            "clientRects": [[], []]}}]
        });
        let l = Layout::from_snapshot_at(&frame, (11.0, 83.0));
        assert_eq!(l.bounds[&8], Rect::new(21, 98, 80, 20));
        assert!(!l.has_frames_elsewhere());
    }

    #[test]
    fn frame_trees_flatten_parents_first() {
        let tree = json!({"frameTree": {
        "frame": {"id": "A", "loaderId": "LA", "url": "http://x/"},
        "childFrames": [
            {"frame": {"id": "B", "parentId": "A", "loaderId": "LB", "url": "http://x/b"},
             "childFrames": [{"frame": {"id": "C", "parentId": "B", "loaderId": "LC", "url": "http://x/c"}}]},
            {"frame": {"id": "D", "parentId": "A", "loaderId": "LD", "url": "http://x/d",
                       "unreachableUrl": "http://gone/"}}
        ]}});
        let f = frames_of(&tree);
        let ids: Vec<&str> = f.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, vec!["A", "B", "C", "D"]);
        assert_eq!(f[0].parent, None);
        assert_eq!(f[2].parent.as_deref(), Some("B"));
        assert_eq!(f[3].unreachable_url.as_deref(), Some("http://gone/"));
        assert_eq!(backend_id("n42"), Some(42));
        assert_eq!(backend_id(&text_identity(42, 3)), Some(42));
        assert_eq!(text_identity(42, 3), "n42:t3");
        assert_eq!(backend_id("doc:L1"), None);
    }
}
