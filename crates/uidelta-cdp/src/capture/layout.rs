//! Reading `DOMSnapshot.captureSnapshot`: bounds, frame owners and the few
//! DOM attributes the accessibility tree lacks, by backend node id.

use std::collections::HashMap;

use std::marker::PhantomData;

use serde::de::{self, IgnoredAny, Visitor};
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
    /// (`{"id": .., "result": {..}}`), read as it streams by.
    pub fn from_snapshot_text(answer: &str, origin: (f64, f64)) -> Layout {
        let snapshot = super::wire::result::<DomSnapshot>(answer).unwrap_or_else(|e| {
            tracing::debug!("a DOM snapshot that does not read ({e}): no bounds");
            DomSnapshot::default()
        });
        Layout::from_parsed(snapshot, origin)
    }

    fn from_parsed(snapshot: DomSnapshot, origin: (f64, f64)) -> Layout {
        let strings = &snapshot.strings.0;
        let string = |i: &Int| -> &str {
            index(i)
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
                let Some(ni) = index(ni) else {
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
                let Some(list) = attrs.get(ni).map(|a| &a.0) else {
                    continue;
                };
                if list.is_empty() {
                    continue;
                }
                let tag = names.get(ni).map(string).unwrap_or_default();
                let found = element_attributes(
                    tag,
                    list.chunks(2).map(|pair| {
                        (
                            string(&pair[0]),
                            pair.get(1).map(string).unwrap_or_default(),
                        )
                    }),
                );
                if !found.is_empty() {
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
                let (Some(ni), Some(child)) = (index(ni), index(child)) else {
                    continue;
                };
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

/// The attributes of the element `tag` (as the DOM names it: `INPUT`)
/// with DOM attributes `pairs` that the accessibility tree lacks, sorted.
pub(crate) fn element_attributes<'a>(
    tag: &str,
    pairs: impl Iterator<Item = (&'a str, &'a str)>,
) -> Vec<(String, String)> {
    let input = tag.eq_ignore_ascii_case("input");
    let field = input || tag.eq_ignore_ascii_case("textarea");
    let mut found = Vec::new();
    for (key, value) in pairs {
        match key {
            "type" if input => found.push(("input-type".to_owned(), value.to_ascii_lowercase())),
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
    found.sort();
    found
}

impl Dom {
    fn read(doc: &DocumentSnapshot, strings: &[Str]) -> Dom {
        let string = |i: &StringIndex| -> &str {
            index(i)
                .and_then(|i| strings.get(i))
                .map_or("", |s| s.0.as_str())
        };
        let nodes = &doc.nodes.0;
        let count = nodes.parent_index.0.len();
        let mut out: Vec<DomNode> = (0..count)
            .map(|i| {
                let number = |list: &Numbers| list.0.get(i).and_then(|v| v.0);
                DomNode {
                    backend: number(&nodes.backend_node_id),
                    parent: nodes.parent_index.0.get(i).and_then(index),
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
                        .map(|a| &a.0)
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
            if let Some(node) = index(i).and_then(|i| out.get_mut(i)) {
                node.pseudo = Some(string(v).to_owned());
            }
        }
        for i in &nodes.is_clickable.0.index.0 {
            if let Some(node) = index(i).and_then(|i| out.get_mut(i)) {
                node.clickable = true;
            }
        }
        let lay = &doc.layout.0;
        for (k, ni) in lay.node_index.0.iter().enumerate() {
            let Some(node) = index(ni).and_then(|n| out.get_mut(n)) else {
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
            if let Some(text) = lay.text.0.get(k).filter(|t| index(t).is_some()) {
                node.text
                    .get_or_insert_with(String::new)
                    .push_str(string(text));
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

/// A number read leniently: anything else (a string, `null`, a list) reads
/// as `None`, so that one odd entry of a DOM snapshot costs only itself.
/// Read as it streams by, like [`List`], [`Obj`], [`Num`] and [`Str`]: a
/// snapshot of 4 MB goes through no `serde_json::Value`.
#[derive(Clone, Copy, Debug, Default)]
struct Int(Option<i64>);

/// A number read leniently as `f64`; anything else reads as 0.
#[derive(Clone, Copy, Debug, Default)]
struct Num(f64);

/// A string read leniently; anything else reads as empty.
#[derive(Clone, Debug, Default)]
struct Str(String);

/// A list read leniently (of items that are lenient themselves); anything
/// else reads as empty.
#[derive(Debug)]
struct List<T>(Vec<T>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

/// An object read leniently into `T` (whose fields are lenient and
/// defaulted); anything else reads as `T::default()`.
#[derive(Debug, Default)]
struct Obj<T>(T);

/// Skips whatever a lenient value did not expect, and reads as `value`.
macro_rules! lenient_others {
    ($value:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok($value)
        }
        fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok($value)
        }
    };
}

/// Skips a number where a lenient list, object or string was expected.
macro_rules! lenient_numbers {
    ($value:expr) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Int;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Int, E> {
                Ok(Int(Some(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Int, E> {
                Ok(Int(i64::try_from(v).ok()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Int, E> {
                let whole = v.fract() == 0.0 && v.abs() < 9.0e15;
                Ok(Int(whole.then_some(v as i64)))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Int, D::Error> {
                Int::deserialize(d)
            }
            lenient_others!(Int(None));
        }
        deserializer.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Num;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num(v))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Num, D::Error> {
                Num::deserialize(d)
            }
            lenient_others!(Num(0.0));
        }
        deserializer.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Str {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Str, E> {
                Ok(Str(v))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Str, E> {
                Ok(Str::default())
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Str, E> {
                Ok(Str(v.to_owned()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Str, E> {
                Ok(Str::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Str, E> {
                Ok(Str::default())
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Str, D::Error> {
                Str::deserialize(d)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Str, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Str::default())
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Str, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Str::default())
            }
            lenient_numbers!(Str::default());
        }
        deserializer.deserialize_any(V)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = List<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<List<T>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(item) = seq.next_element()? {
                    out.push(item);
                }
                Ok(List(out))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<List<T>, E> {
                Ok(List::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<List<T>, E> {
                Ok(List::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<List<T>, E> {
                Ok(List::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<List<T>, E> {
                Ok(List::default())
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<List<T>, D::Error> {
                List::deserialize(d)
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<List<T>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(List::default())
            }
            lenient_numbers!(List::default());
        }
        deserializer.deserialize_any(V(PhantomData))
    }
}

impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Obj)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Obj<T>, E> {
                Ok(Obj::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Obj<T>, E> {
                Ok(Obj::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Obj<T>, E> {
                Ok(Obj::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Obj<T>, E> {
                Ok(Obj::default())
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Obj<T>, D::Error> {
                Obj::deserialize(d)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Obj<T>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Obj::default())
            }
            lenient_numbers!(Obj::default());
        }
        deserializer.deserialize_any(V(PhantomData))
    }
}

/// An index into [`DomSnapshot::strings`].
type StringIndex = Int;

/// A list of numbers, some of which may not be numbers.
type Numbers = List<Int>;

/// The parts of an answer of `DOMSnapshot.captureSnapshot` read here.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct DomSnapshot {
    /// The page's document first, then those of its same-process frames.
    documents: List<Obj<DocumentSnapshot>>,
    /// The strings that the documents refer to by index.
    strings: List<Str>,
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
    scroll_offset_x: Num,
    scroll_offset_y: Num,
    nodes: Obj<NodeTreeSnapshot>,
    layout: Obj<LayoutTreeSnapshot>,
}

/// A document's DOM nodes, one list per property, indexed by node.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct NodeTreeSnapshot {
    backend_node_id: Numbers,
    /// Tag names, as string indices.
    node_name: Numbers,
    /// Per node, names and values alternating, as string indices.
    attributes: List<List<StringIndex>>,
    /// Frame elements and the index of the document each holds.
    content_document_index: Obj<RareIntegers>,
    /// Each node's parent, by index.
    parent_index: Numbers,
    node_type: Numbers,
    /// Pseudo elements and which they are, as string indices.
    pseudo_type: Obj<RareIntegers>,
    /// Nodes that answer clicks.
    is_clickable: Obj<RareBooleans>,
}

/// A flag that only some nodes have: the nodes that have it.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RareBooleans {
    index: Numbers,
}

/// A property that only some nodes have: the nodes and their values.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RareIntegers {
    index: Numbers,
    value: Numbers,
}

/// The laid-out nodes of a document.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct LayoutTreeSnapshot {
    /// The DOM node of each laid-out box.
    node_index: Numbers,
    /// Each box's `[x, y, width, height]`.
    bounds: List<Quad>,
    /// Each box's client rect: where its content starts inside its border.
    client_rects: List<Quad>,
    /// The text of each text box, as a string index.
    text: Numbers,
    /// Each box's computed styles asked for, as string indices.
    styles: List<List<StringIndex>>,
}

/// `[x, y, width, height]` (an entry that is not a number reads as 0).
type Quad = List<Num>;

fn quad(v: &Quad) -> Option<(f64, f64, f64, f64)> {
    let a = &v.0;
    if a.len() < 4 {
        return None;
    }
    Some((a[0].0, a[1].0, a[2].0, a[3].0))
}

/// An index read from a snapshot, as a `usize`.
fn index(i: &Int) -> Option<usize> {
    i.0.and_then(|i| usize::try_from(i).ok())
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

pub(crate) fn to_rect(x: f64, y: f64, w: f64, h: f64) -> Rect {
    Rect::new(
        x.round() as i32,
        y.round() as i32,
        w.round() as i32,
        h.round() as i32,
    )
}
