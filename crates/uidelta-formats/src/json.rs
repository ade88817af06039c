//! The interchange JSON format.
//!
//! A document is a snapshot object (`root` plus optional metadata) or a bare
//! node object (`role`, no `root`). Nodes are read straight into a
//! [`TreeBuilder`] by hand-written serde visitors, so that
//! - every error, including the ones found by looking at a whole node (a
//!   missing `role`), carries a line and a column;
//! - nothing deep is ever built and then dropped recursively;
//! - the stack never overflows: [`serde_stacker`] grows it on demand, node
//!   depth is capped at [`MAX_DEPTH`](crate::MAX_DEPTH), and unknown fields
//!   are skipped by serde_json's iterative skipper however deep they nest.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use uidelta_model::{Meta, NodeData, NodeId, Rect, Role, Snapshot, State, StateSet, TreeBuilder};

use crate::{position, InputFormat, Limits, ParseError};

mod values;
use values::{
    BoundsSeed, Flag, Identity, Number, OptString, RoleName, Scalar, StatesSeed, Unsigned,
};

/// Reads a snapshot from the interchange JSON: the format any script can
/// write to feed `uidelta diff`, and the one uidelta writes itself (the
/// output-only `ref` and `node_count` are ignored). See `docs/formats.md`.
pub fn parse(text: &str) -> Result<Snapshot, ParseError> {
    parse_with(text, Limits::DEFAULT)
}

pub(crate) fn parse_with(text: &str, limits: Limits) -> Result<Snapshot, ParseError> {
    let text = crate::strip_bom(text);
    let mut ctx = Ctx {
        limits,
        tree: None,
        blame: None,
        reports_states: false,
        unstated: Vec::new(),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    // Node depth is capped by `limits.depth`, and serde_stacker moves deep
    // recursion onto heap-allocated stack segments.
    de.disable_recursion_limit();
    let read =
        DocumentSeed { ctx: &mut ctx }.deserialize(serde_stacker::Deserializer::new(&mut de));
    let meta = match read.and_then(|meta| de.end().map(|()| meta)) {
        Ok(meta) => meta,
        Err(err) => return Err(ctx.locate(text, &err)),
    };
    match ctx.tree.take() {
        Some(mut tree) => {
            if ctx.reports_states {
                for &id in &ctx.unstated {
                    let node = tree.node_mut(id);
                    // An application object is not on screen: its empty
                    // list says nothing, as AT-SPI's does.
                    if node.role != Role::Application && node.states.has_none() {
                        node.states = StateSet::REPORTED_NONE;
                    }
                }
            }
            Ok(Snapshot::new(meta, tree.finish()))
        }
        // Unreachable: a document without a root node is an error above.
        None => Err(ParseError {
            format: InputFormat::Json,
            line: 1,
            column: 1,
            message: "the document holds no node".into(),
        }),
    }
}

/// What the visitors share while one document is read.
struct Ctx {
    limits: Limits,
    /// The tree read so far; `None` until the root node opens.
    tree: Option<TreeBuilder>,
    /// JSON nesting level (1 = the document object) of the node that a
    /// node-level error is about, so that the error can point at the node's
    /// `{` rather than wherever the reader stopped.
    blame: Option<usize>,
    /// Some node's `states` named a state: the document reports states, so
    /// an empty list says its node has none (neither enabled nor showing).
    reports_states: bool,
    /// The nodes whose `states` was a list naming no state.
    unstated: Vec<NodeId>,
}

impl Ctx {
    /// An error about the whole node whose object sits at nesting `level`.
    fn node_error<E: de::Error>(&mut self, level: usize, message: impl fmt::Display) -> E {
        self.blame = Some(level);
        E::custom(message)
    }

    /// Adds a node with empty data under the current node (or starts the
    /// tree with it when `depth` is 0) and makes it current. The data is
    /// filled in by [`Ctx::close_node`] once the object has been read, since
    /// its children may come before its `role`.
    fn open_node<E: de::Error>(&mut self, depth: usize, level: usize) -> Result<NodeId, E> {
        if depth >= self.limits.depth {
            let max = self.limits.depth;
            return Err(self.node_error(level, format_args!("nodes nest deeper than {max} levels")));
        }
        if depth == 0 {
            self.tree = Some(TreeBuilder::new(NodeData::default()));
            return Ok(NodeId::ROOT);
        }
        let max = self.limits.nodes;
        let Some(tree) = self.tree.as_mut() else {
            return Err(E::custom(
                "internal error: a child node was read before its parent",
            ));
        };
        if tree.len() >= max {
            return Err(self.node_error(level, format_args!("the tree has more than {max} nodes")));
        }
        Ok(tree.open(NodeData::default()))
    }

    /// Stores the data of node `id` and, for any node but the root, makes its
    /// parent current again. `None` without a `role`.
    fn close_node(&mut self, id: NodeId, fields: NodeFields) -> Option<()> {
        match fields.listing() {
            Listing::Absent => {}
            Listing::Empty => self.unstated.push(id),
            Listing::States => self.reports_states = true,
        }
        let data = fields.into_data()?;
        if let Some(tree) = self.tree.as_mut() {
            *tree.node_mut(id) = data;
            if id != NodeId::ROOT {
                tree.close();
            }
        }
        Some(())
    }

    /// Turns serde_json's error into ours, a node-level error moved to the
    /// node's opening brace.
    fn locate(&self, text: &str, err: &serde_json::Error) -> ParseError {
        locate(text, err, self.blame, InputFormat::Json)
    }
}

/// Turns serde_json's error into ours: 1-based character columns, an error
/// about the object at nesting `blame` moved to its opening brace, a
/// value-level one to the value's first character.
pub(crate) fn locate(
    text: &str,
    err: &serde_json::Error,
    blame: Option<usize>,
    format: InputFormat,
) -> ParseError {
    let full = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    let (line, column) = if err.line() == 0 || err.is_eof() {
        // The text ended early: point just past its end.
        position::line_column(text, text.len())
    } else {
        // serde_json's column counts the bytes up to and including the
        // character it blames. For a syntax error that is the offending
        // character. A data error (a wrong type, a value out of range, a
        // duplicate key) comes after the value or key was read, since
        // every value is read with `deserialize_any`: it is moved back
        // to the token's first character. So is a number too large for
        // f64, which serde_json calls a syntax error.
        let line_start = position::line_start(text, err.line());
        let after = line_start.saturating_add(err.column());
        let blamed = if err.column() == 0 {
            line_start
        } else {
            after - 1
        };
        let about_a_value =
            err.classify() == serde_json::error::Category::Data || message == "number out of range";
        let blamed = match blame {
            Some(level) => opening_brace(text, after, level).unwrap_or(blamed),
            None if about_a_value => token_start(text, blamed),
            None => blamed,
        };
        position::line_column(text, blamed)
    };
    ParseError {
        format,
        line,
        column,
        message,
    }
}

/// Byte offset of the last `{` before `end` that opens nesting level `level`
/// (the document's own brace is level 1). Only called on error, for text
/// serde_json has already accepted up to `end`.
fn opening_brace(text: &str, end: usize, level: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut found = None;
    for (i, b) in text.bytes().enumerate().take(end) {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if b == b'{' && depth == level {
                    found = Some(i);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    found
}

/// Byte offset of the first character of the JSON token that ends at or
/// just before byte `end` (whitespace skipped): a string's opening quote, a
/// number's first digit or sign, an array's or object's opening bracket.
fn token_start(text: &str, end: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = end.min(bytes.len().saturating_sub(1));
    while i > 0 && bytes[i].is_ascii_whitespace() {
        i -= 1;
    }
    let before_whitespace = |mut j: usize| {
        while j > 0 && bytes[j].is_ascii_whitespace() {
            j -= 1;
        }
        j
    };
    match bytes.get(i) {
        Some(b'"') => {
            // The opening quote is the nearest quote not escaped by an odd
            // run of backslashes.
            let mut j = i;
            while j > 0 {
                j -= 1;
                if bytes[j] == b'"' {
                    let backslashes = bytes[..j].iter().rev().take_while(|&&b| b == b'\\').count();
                    if backslashes % 2 == 0 {
                        return j;
                    }
                }
            }
            i
        }
        // An empty array or object: the reader consumed its closing bracket.
        Some(&close @ (b']' | b'}')) if i > 0 => {
            let open = if close == b']' { b'[' } else { b'{' };
            let j = before_whitespace(i - 1);
            if bytes[j] == open {
                j
            } else {
                i
            }
        }
        Some(b'[' | b'{') | None => i,
        Some(_) => {
            let mut j = i;
            while j > 0
                && matches!(bytes[j - 1], b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'.' | b'+' | b'-')
            {
                j -= 1;
            }
            j
        }
    }
}

/// The fields a node object may have.
#[derive(Clone, Copy, Debug)]
enum NodeField {
    Role,
    RawRole,
    Id,
    Name,
    Value,
    Description,
    States,
    Bounds,
    Attributes,
    Children,
}

impl NodeField {
    const fn name(self) -> &'static str {
        match self {
            NodeField::Role => "role",
            NodeField::RawRole => "raw_role",
            NodeField::Id => "id",
            NodeField::Name => "name",
            NodeField::Value => "value",
            NodeField::Description => "description",
            NodeField::States => "states",
            NodeField::Bounds => "bounds",
            NodeField::Attributes => "attributes",
            NodeField::Children => "children",
        }
    }

    const fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// The metadata fields of a snapshot object.
#[derive(Clone, Copy, Debug)]
enum MetaField {
    Source,
    App,
    Pid,
    Window,
    CapturedAtMs,
    CaptureMs,
    Truncated,
}

impl MetaField {
    const fn name(self) -> &'static str {
        match self {
            MetaField::Source => "source",
            MetaField::App => "app",
            MetaField::Pid => "pid",
            MetaField::Window => "window",
            MetaField::CapturedAtMs => "captured_at_ms",
            MetaField::CaptureMs => "capture_ms",
            MetaField::Truncated => "truncated",
        }
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A key of an object at the top level or in a node.
enum Key {
    Node(NodeField),
    Meta(MetaField),
    Root,
    /// Unknown, or known but ignored on input (`ref`, `node_count`).
    Other,
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(match key {
            "role" => Key::Node(NodeField::Role),
            "raw_role" => Key::Node(NodeField::RawRole),
            "id" => Key::Node(NodeField::Id),
            "name" => Key::Node(NodeField::Name),
            "value" => Key::Node(NodeField::Value),
            "description" => Key::Node(NodeField::Description),
            "states" => Key::Node(NodeField::States),
            "bounds" => Key::Node(NodeField::Bounds),
            "attributes" => Key::Node(NodeField::Attributes),
            "children" => Key::Node(NodeField::Children),
            "source" => Key::Meta(MetaField::Source),
            "app" => Key::Meta(MetaField::App),
            "pid" => Key::Meta(MetaField::Pid),
            "window" => Key::Meta(MetaField::Window),
            "captured_at_ms" => Key::Meta(MetaField::CapturedAtMs),
            "capture_ms" => Key::Meta(MetaField::CaptureMs),
            "truncated" => Key::Meta(MetaField::Truncated),
            "root" => Key::Root,
            _ => Key::Other,
        })
    }
}

/// The document: a snapshot object or a bare node. Until `root` shows up the
/// object is read as a node too, since a bare node's keys may come in any
/// order; once `root` is seen, node fields at the top level are ignored.
struct DocumentSeed<'c> {
    ctx: &'c mut Ctx,
}

impl<'de> DeserializeSeed<'de> for DocumentSeed<'_> {
    type Value = Meta;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Meta, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DocumentSeed<'_> {
    type Value = Meta;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a snapshot object (with `root`) or a node object (with `role`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Meta, A::Error> {
        let ctx = self.ctx;
        ctx.open_node::<A::Error>(0, 1)?;
        let mut node = NodeFields::default();
        let mut meta = MetaFields::default();
        let mut has_root = false;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Key::Root if has_root => {
                    return Err(de::Error::custom("duplicate field `root`"));
                }
                Key::Root => {
                    has_root = true;
                    // Whatever was read as a bare node so far is dropped.
                    ctx.tree = None;
                    ctx.reports_states = false;
                    ctx.unstated.clear();
                    map.next_value_seed(NodeSeed {
                        ctx: &mut *ctx,
                        depth: 0,
                        level: 2,
                    })?;
                }
                Key::Node(field) if !has_root => node.read(field, &mut map, ctx, 0, 1)?,
                Key::Meta(field) => meta.read(field, &mut map)?,
                Key::Node(_) | Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !has_root && ctx.close_node(NodeId::ROOT, node).is_none() {
            return Err(ctx.node_error(
                1,
                "the document has neither `root` (a snapshot) nor `role` (a bare node)",
            ));
        }
        Ok(meta.finish())
    }
}

/// One node object and, through `children`, its subtree.
struct NodeSeed<'c> {
    ctx: &'c mut Ctx,
    /// Depth in the tree; the root is 0.
    depth: usize,
    /// JSON nesting level of the node's object.
    level: usize,
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NodeSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a node object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let NodeSeed { ctx, depth, level } = self;
        let id = ctx.open_node::<A::Error>(depth, level)?;
        let mut node = NodeFields::default();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Key::Node(field) => node.read(field, &mut map, ctx, depth, level)?,
                Key::Meta(_) | Key::Root | Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if ctx.close_node(id, node).is_none() {
            return Err(ctx.node_error(level, "the node has no `role`; every node needs one"));
        }
        Ok(())
    }
}

/// A node's fields as read so far.
#[derive(Default)]
struct NodeFields {
    seen: u16,
    role: Option<String>,
    raw_role: Option<String>,
    identity: Option<String>,
    name: Option<String>,
    value: Option<String>,
    description: Option<String>,
    states: StateSet,
    /// `states` was an array (not null, not absent).
    listed: bool,
    /// An entry of `states` named a state the model knows, or `disabled`.
    named: bool,
    /// `disabled` or `insensitive` was listed.
    disabled: bool,
    bounds: Option<Rect>,
    /// `state:<name>` for state names the model does not know.
    state_attributes: Vec<(String, String)>,
    attributes: Vec<(String, String)>,
}

impl NodeFields {
    fn read<'de, A: MapAccess<'de>>(
        &mut self,
        field: NodeField,
        map: &mut A,
        ctx: &mut Ctx,
        depth: usize,
        level: usize,
    ) -> Result<(), A::Error> {
        if self.seen & field.bit() != 0 {
            return Err(de::Error::custom(format_args!(
                "duplicate field `{}`",
                field.name()
            )));
        }
        self.seen |= field.bit();
        match field {
            NodeField::Role => self.role = Some(map.next_value_seed(RoleName)?),
            NodeField::RawRole => self.raw_role = map.next_value_seed(OptString("`raw_role`"))?,
            NodeField::Id => self.identity = map.next_value_seed(Identity)?,
            NodeField::Name => self.name = map.next_value_seed(Scalar("`name`"))?,
            NodeField::Value => self.value = map.next_value_seed(Scalar("`value`"))?,
            NodeField::Description => {
                self.description = map.next_value_seed(Scalar("`description`"))?
            }
            NodeField::States => map.next_value_seed(StatesSeed(self))?,
            NodeField::Bounds => self.bounds = map.next_value_seed(BoundsSeed)?,
            NodeField::Attributes => map.next_value_seed(AttributesSeed(&mut self.attributes))?,
            NodeField::Children => map.next_value_seed(ChildrenSeed {
                ctx,
                depth: depth + 1,
                level: level + 2,
            })?,
        }
        Ok(())
    }

    fn add_state(&mut self, name: &str) {
        if is_disabled(name) {
            self.disabled = true;
            self.named = true;
        } else if let Some(state) = State::from_name(name) {
            self.states.insert(state);
            self.named = true;
        } else if !name.trim().is_empty() {
            // Kept so that a state the model lacks still shows up in a diff.
            self.state_attributes
                .push((format!("state:{name}"), "true".to_owned()));
        }
    }

    /// The node's data; `None` without a `role`.
    fn into_data(self) -> Option<NodeData> {
        let role_name = self.role?;
        let mut states = self.states;
        if self.disabled {
            states.remove(State::Enabled);
            states.remove(State::Sensitive);
        }
        if self.named && states.has_none() {
            // `["disabled"]`: a list of the node's states, none of them set.
            states = StateSet::REPORTED_NONE;
        }
        let mut attributes = self.state_attributes;
        attributes.extend(self.attributes);
        Some(NodeData {
            role: Role::from_name(&role_name),
            raw_role: self.raw_role.unwrap_or(role_name),
            name: self.name.unwrap_or_default(),
            value: self.value,
            description: self.description.unwrap_or_default(),
            states,
            bounds: self.bounds,
            attributes: sorted_unique(attributes),
            identity: self.identity,
            unread: Default::default(),
        })
    }
}

/// What a node's `states` said.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Listing {
    /// No `states`, or `null`: nothing said.
    Absent,
    /// A list naming no state: none set, if the document reports states.
    Empty,
    /// A list naming a state (or `disabled`): the node's whole set.
    States,
}

impl NodeFields {
    fn listing(&self) -> Listing {
        match (self.listed, self.named) {
            (_, true) => Listing::States,
            (true, false) => Listing::Empty,
            (false, false) => Listing::Absent,
        }
    }
}

/// Sorts by key and keeps the last value of each key, in O(n log n) even for
/// a node with a huge attribute map.
fn sorted_unique(mut attributes: Vec<(String, String)>) -> Vec<(String, String)> {
    // A stable sort keeps input order among equal keys, so the last wins.
    attributes.sort_by(|a, b| a.0.cmp(&b.0));
    let mut unique: Vec<(String, String)> = Vec::with_capacity(attributes.len());
    for (key, value) in attributes {
        match unique.last_mut() {
            Some(last) if last.0 == key => last.1 = value,
            _ => unique.push((key, value)),
        }
    }
    unique
}

/// Whether a state name says the element is disabled. The model has no such
/// state: a disabled element is one without `enabled` and `sensitive`.
fn is_disabled(name: &str) -> bool {
    let key: String = name
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    let key = key.strip_prefix("atspistate").unwrap_or(&key);
    let key = key.strip_prefix("state").unwrap_or(key);
    matches!(key, "disabled" | "insensitive")
}

/// The snapshot metadata as read so far.
#[derive(Default)]
struct MetaFields {
    seen: u8,
    source: Option<String>,
    meta: Meta,
}

impl MetaFields {
    fn read<'de, A: MapAccess<'de>>(
        &mut self,
        field: MetaField,
        map: &mut A,
    ) -> Result<(), A::Error> {
        if self.seen & field.bit() != 0 {
            return Err(de::Error::custom(format_args!(
                "duplicate field `{}`",
                field.name()
            )));
        }
        self.seen |= field.bit();
        let meta = &mut self.meta;
        match field {
            MetaField::Source => self.source = map.next_value_seed(OptString("`source`"))?,
            MetaField::App => meta.app = map.next_value_seed(OptString("`app`"))?,
            MetaField::Window => meta.window = map.next_value_seed(OptString("`window`"))?,
            MetaField::Pid => {
                meta.pid = match map.next_value_seed(Unsigned("`pid`", u32::MAX.into()))? {
                    Some(pid) => Some(u32::try_from(pid).map_err(de::Error::custom)?),
                    None => None,
                }
            }
            MetaField::CapturedAtMs => {
                meta.captured_at_ms = map.next_value_seed(Unsigned("`captured_at_ms`", u64::MAX))?
            }
            MetaField::CaptureMs => {
                meta.capture_ms = map.next_value_seed(Number("`capture_ms`"))?
            }
            MetaField::Truncated => meta.truncated = map.next_value_seed(Flag("`truncated`"))?,
        }
        Ok(())
    }

    fn finish(self) -> Meta {
        Meta {
            source: self.source.unwrap_or_else(|| "file".to_owned()),
            ..self.meta
        }
    }
}

/// `attributes`: an object of strings (numbers and booleans stringified,
/// null skipped), or null.
struct AttributesSeed<'a>(&'a mut Vec<(String, String)>);

impl<'de> DeserializeSeed<'de> for AttributesSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for AttributesSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`attributes`: an object of strings")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if let Some(value) = map.next_value_seed(Scalar("an attribute"))? {
                self.0.push((key, value));
            }
        }
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// `children`: an array of node objects, or null.
struct ChildrenSeed<'c> {
    ctx: &'c mut Ctx,
    /// Depth of the children.
    depth: usize,
    /// JSON nesting level of the children's objects.
    level: usize,
}

impl<'de> DeserializeSeed<'de> for ChildrenSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ChildrenSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`children`: an array of node objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let ChildrenSeed { ctx, depth, level } = self;
        while seq
            .next_element_seed(NodeSeed {
                ctx: &mut *ctx,
                depth,
                level,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests;
