//! Reading `DOMSnapshot.captureSnapshot`: bounds, frame owners and the few
//! DOM attributes the accessibility tree lacks, by backend node id.

use std::collections::HashMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use uidelta_model::Rect;

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
    /// The main document's nodes, for what the DOM alone says (see the
    /// `prune` module).
    pub dom: Dom,
}

/// The nodes of a snapshot's main document, in document order (pseudo
/// elements under their element), with what tells whether the DOM alone
/// says what Chromium's accessibility tree would of a node.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Dom {
    /// The document's base URL, against which links resolve.
    pub base_url: String,
    pub nodes: Vec<DomNode>,
    /// Backend node id -> index in `nodes`.
    pub by_backend: HashMap<i64, usize>,
}

/// One node of [`Dom`].
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DomNode {
    pub backend: Option<i64>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// DOM node type: 1 element, 3 text, 9 document, 11 fragment, ...
    pub kind: i64,
    /// The node name as the snapshot gives it (`A`, `#text`, `::marker`, `svg`).
    pub name: String,
    /// Names and values of the element's attributes.
    pub attributes: Vec<(String, String)>,
    /// Whether the node has a layout box.
    pub laid_out: bool,
    /// The computed `visibility` of its first layout box.
    pub visibility: String,
    /// The rendered text of a text node (whitespace collapsed as laid out).
    pub text: Option<String>,
    /// The pseudo element it is (`marker`, `before`, ...).
    pub pseudo: Option<String>,
    /// The element has a click handler, or is a link.
    pub clickable: bool,
}

impl DomNode {
    /// The value of attribute `key`.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
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
        Layout::from_parsed(DomSnapshot::deserialize(answer).unwrap_or_default(), origin)
    }

    /// [`Layout::from_snapshot_at`] for the text of a whole answer
    /// (`{"id": .., "result": {..}}`). Its lenient parts ([`Lax`]) still
    /// go through `serde_json::Value`, but only for the time of reading.
    pub fn from_snapshot_text(answer: &str, origin: (f64, f64)) -> Layout {
        let snapshot = super::wire::result::<DomSnapshot>(answer).unwrap_or_else(|e| {
            tracing::debug!("a DOM snapshot that does not read ({e}): no bounds");
            DomSnapshot::default()
        });
        Layout::from_parsed(snapshot, origin)
    }

    fn from_parsed(snapshot: DomSnapshot, origin: (f64, f64)) -> Layout {
        let strings = &snapshot.strings.0;
        let string = |i: &Lax<Option<i64>>| -> &str {
            i.0.and_then(|i| usize::try_from(i).ok())
                .and_then(|i| strings.get(i))
                .map_or("", |s| s.0.as_str())
        };
        let documents = &snapshot.documents.0;
        let mut layout = Layout {
            known: !documents.is_empty(),
            dom: documents
                .first()
                .map(|d| Dom::read(&d.0, strings))
                .unwrap_or_default(),
            ..Layout::default()
        };
        // Offsets of documents in the main viewport; parents come first.
        let mut offsets: Vec<Option<(f64, f64)>> = vec![None; documents.len()];
        if let Some(main) = documents.first() {
            offsets[0] = Some((
                origin.0 - main.0.scroll_offset_x.0,
                origin.1 - main.0.scroll_offset_y.0,
            ));
        }
        let mut order: Vec<usize> = vec![0];
        let mut k = 0;
        while k < order.len() && !documents.is_empty() {
            let d = order[k];
            k += 1;
            let doc = &documents[d].0;
            let Some((dx, dy)) = offsets[d] else { continue };
            let nodes = &doc.nodes.0;
            let backend = &nodes.backend_node_id.0;
            let names = &nodes.node_name.0;
            let attrs = &nodes.attributes.0;
            let lay = &doc.layout.0;
            let node_index = &lay.node_index.0;
            let rects = &lay.bounds.0;
            let client = &lay.client_rects.0;
            let mut doc_rect: HashMap<usize, (f64, f64, f64, f64)> = HashMap::new();
            let mut border: HashMap<usize, (f64, f64)> = HashMap::new();
            for (i, ni) in node_index.iter().enumerate() {
                let Some(ni) = ni.0.map(|n| n as usize) else {
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
                if let Some(id) = backend.get(ni).and_then(|id| id.0) {
                    layout.bounds.insert(id, to_rect(x + dx, y + dy, w, h));
                    let tag = names.get(ni).map(string).unwrap_or_default();
                    if tag.eq_ignore_ascii_case("iframe") || tag.eq_ignore_ascii_case("frame") {
                        let (bx, by) = border.get(&ni).copied().unwrap_or_default();
                        layout.frame_origins.insert(id, (dx + x + bx, dy + y + by));
                    }
                }
            }
            for (ni, id) in backend.iter().enumerate() {
                let Some(id) = id.0 else { continue };
                let Some(list) = attrs.get(ni).and_then(|a| a.0.as_ref()) else {
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
                    if let Some(id) = id.0 {
                        layout.frame_elements.push(id);
                    }
                }
            }
            let owners = &nodes.content_document_index.0;
            for (ni, child) in owners.index.0.iter().zip(&owners.value.0) {
                let (Some(ni), Some(child)) = (ni.0, child.0) else {
                    continue;
                };
                let (ni, child) = (ni as usize, child as usize);
                let Some(child_doc) = documents.get(child).map(|d| &d.0) else {
                    continue;
                };
                if let Some(id) = backend.get(ni).and_then(|id| id.0) {
                    layout
                        .owners
                        .insert(id, string(&child_doc.frame_id).to_owned());
                    if matches!(string(&child_doc.document_url), "" | "about:blank") {
                        layout.blank_frames.push(id);
                    }
                }
                if offsets[child].is_none() {
                    let (x, y, _, _) = doc_rect.get(&ni).copied().unwrap_or_default();
                    let (bx, by) = border.get(&ni).copied().unwrap_or_default();
                    offsets[child] = Some((
                        dx + x + bx - child_doc.scroll_offset_x.0,
                        dy + y + by - child_doc.scroll_offset_y.0,
                    ));
                    order.push(child);
                }
            }
        }
        layout
    }
}

impl Dom {
    fn read(doc: &DocumentSnapshot, strings: &[Lax<String>]) -> Dom {
        let string = |i: &StringIndex| -> &str {
            i.0.and_then(|i| usize::try_from(i).ok())
                .and_then(|i| strings.get(i))
                .map_or("", |s| s.0.as_str())
        };
        let nodes = &doc.nodes.0;
        let count = nodes.parent_index.0.len();
        let mut out: Vec<DomNode> = (0..count)
            .map(|i| {
                let number = |list: &Numbers<i64>| list.0.get(i).and_then(|v| v.0);
                DomNode {
                    backend: number(&nodes.backend_node_id),
                    parent: number(&nodes.parent_index).and_then(|p| usize::try_from(p).ok()),
                    kind: number(&nodes.node_type).unwrap_or_default(),
                    name: nodes
                        .node_name
                        .0
                        .get(i)
                        .map(|n| string(n).to_owned())
                        .unwrap_or_default(),
                    attributes: nodes
                        .attributes
                        .0
                        .get(i)
                        .and_then(|a| a.0.as_ref())
                        .map(|list| {
                            list.chunks(2)
                                .map(|pair| {
                                    let value = pair.get(1).map(string).unwrap_or_default();
                                    (string(&pair[0]).to_owned(), value.to_owned())
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    ..DomNode::default()
                }
            })
            .collect();
        let rare = &nodes.pseudo_type.0;
        for (i, v) in rare.index.0.iter().zip(&rare.value.0) {
            if let Some(node) = i.0.and_then(|i| out.get_mut(i as usize)) {
                let v = v.0.and_then(|v| i64::try_from(v).ok());
                node.pseudo = Some(string(&Lax(v)).to_owned());
            }
        }
        for i in &nodes.is_clickable.0.index.0 {
            if let Some(node) = i.0.and_then(|i| out.get_mut(i as usize)) {
                node.clickable = true;
            }
        }
        let lay = &doc.layout.0;
        for (k, ni) in lay.node_index.0.iter().enumerate() {
            let Some(node) = ni.0.and_then(|n| out.get_mut(n as usize)) else {
                continue;
            };
            if !node.laid_out {
                node.laid_out = true;
                node.visibility = lay
                    .styles
                    .0
                    .get(k)
                    .and_then(|s| s.0.first())
                    .map(|s| string(s).to_owned())
                    .unwrap_or_default();
            }
            if let Some(text) = lay.text.0.get(k).and_then(|t| t.0) {
                if text >= 0 {
                    let text = string(&Lax(Some(text)));
                    node.text.get_or_insert_with(String::new).push_str(text);
                }
            }
        }
        for i in 0..out.len() {
            if let Some(p) = out[i].parent.filter(|&p| p < out.len()) {
                out[p].children.push(i);
            }
        }
        let by_backend = out
            .iter()
            .enumerate()
            .filter_map(|(i, n)| n.backend.map(|b| (b, i)))
            .collect();
        Dom {
            base_url: string(&doc.base_url).to_owned(),
            nodes: out,
            by_backend,
        }
    }
}

/// A value read leniently: one of another type (or of a shape that does not
/// fit) reads as the default, so that one odd field or list entry of a DOM
/// snapshot costs only itself.
#[derive(Debug, Default)]
struct Lax<T>(T);

impl<'de, T: DeserializeOwned + Default> Deserialize<'de> for Lax<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(Lax(T::deserialize(value).unwrap_or_default()))
    }
}

/// An index into [`DomSnapshot::strings`].
type StringIndex = Lax<Option<i64>>;

/// A list of numbers, some of which may not be numbers.
type Numbers<T> = Lax<Vec<Lax<Option<T>>>>;

/// The parts of an answer of `DOMSnapshot.captureSnapshot` read here.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct DomSnapshot {
    /// The page's document first, then those of its same-process frames.
    documents: Lax<Vec<Lax<DocumentSnapshot>>>,
    /// The strings that the documents refer to by index.
    strings: Lax<Vec<Lax<String>>>,
}

/// One document of a DOM snapshot.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct DocumentSnapshot {
    frame_id: StringIndex,
    #[serde(rename = "documentURL")]
    document_url: StringIndex,
    #[serde(rename = "baseURL")]
    base_url: StringIndex,
    scroll_offset_x: Lax<f64>,
    scroll_offset_y: Lax<f64>,
    nodes: Lax<NodeTreeSnapshot>,
    layout: Lax<LayoutTreeSnapshot>,
}

/// A document's DOM nodes, one list per property, indexed by node.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct NodeTreeSnapshot {
    backend_node_id: Numbers<i64>,
    /// Tag names, as string indices.
    node_name: Numbers<i64>,
    /// Per node, names and values alternating, as string indices.
    attributes: Lax<Vec<Lax<Option<Vec<StringIndex>>>>>,
    /// Frame elements and the index of the document each holds.
    content_document_index: Lax<RareIntegers>,
    /// Each node's parent, by index.
    parent_index: Numbers<i64>,
    node_type: Numbers<i64>,
    /// Pseudo elements and which they are, as string indices.
    pseudo_type: Lax<RareIntegers>,
    /// Nodes that answer clicks.
    is_clickable: Lax<RareBooleans>,
}

/// A flag that only some nodes have: the nodes that have it.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RareBooleans {
    index: Numbers<u64>,
}

/// A property that only some nodes have: the nodes and their values.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RareIntegers {
    index: Numbers<u64>,
    value: Numbers<u64>,
}

/// The laid-out nodes of a document.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct LayoutTreeSnapshot {
    /// The DOM node of each laid-out box.
    node_index: Numbers<u64>,
    /// Each box's `[x, y, width, height]`.
    bounds: Lax<Vec<Quad>>,
    /// Each box's client rect: where its content starts inside its border.
    client_rects: Lax<Vec<Quad>>,
    /// The text of each text box, as a string index.
    text: Numbers<i64>,
    /// Each box's computed styles asked for, as string indices.
    styles: Lax<Vec<Lax<Vec<StringIndex>>>>,
}

/// `[x, y, width, height]` (an entry that is not a number reads as 0).
type Quad = Lax<Option<Vec<Lax<f64>>>>;

fn quad(v: &Quad) -> Option<(f64, f64, f64, f64)> {
    let a = v.0.as_ref()?;
    if a.len() < 4 {
        return None;
    }
    Some((a[0].0, a[1].0, a[2].0, a[3].0))
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
