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
        Some(tree) => Ok(Snapshot::new(meta, tree.finish())),
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
    /// parent current again.
    fn close_node(&mut self, id: NodeId, data: NodeData) {
        if let Some(tree) = self.tree.as_mut() {
            *tree.node_mut(id) = data;
            if id != NodeId::ROOT {
                tree.close();
            }
        }
    }

    /// Turns serde_json's error into ours: 1-based character columns, a
    /// node-level error moved to the node's opening brace, a value-level one
    /// to the value's first character.
    fn locate(&self, text: &str, err: &serde_json::Error) -> ParseError {
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
            let about_a_value = err.classify() == serde_json::error::Category::Data
                || message == "number out of range";
            let blamed = match self.blame {
                Some(level) => opening_brace(text, after, level).unwrap_or(blamed),
                None if about_a_value => token_start(text, blamed),
                None => blamed,
            };
            position::line_column(text, blamed)
        };
        ParseError {
            format: InputFormat::Json,
            line,
            column,
            message,
        }
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
        if !has_root {
            let Some(data) = node.into_data() else {
                return Err(ctx.node_error(
                    1,
                    "the document has neither `root` (a snapshot) nor `role` (a bare node)",
                ));
            };
            ctx.close_node(NodeId::ROOT, data);
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
        let Some(data) = node.into_data() else {
            return Err(ctx.node_error(level, "the node has no `role`; every node needs one"));
        };
        ctx.close_node(id, data);
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
        } else if let Some(state) = State::from_name(name) {
            self.states.insert(state);
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
        })
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

/// `role`: a string, required.
struct RoleName;

impl<'de> DeserializeSeed<'de> for RoleName {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for RoleName {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`role`: a role name (a string)")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
        Ok(v)
    }
}

/// A string or null; the label names the field in errors.
struct OptString(&'static str);

impl<'de> DeserializeSeed<'de> for OptString {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for OptString {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: a string or null", self.0)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Text that foreign producers sometimes write as a number or a boolean (a
/// slider's value, an attribute flag): kept as its string form. Null is
/// absent.
struct Scalar(&'static str);

impl<'de> DeserializeSeed<'de> for Scalar {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for Scalar {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: a string, number, boolean or null", self.0)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// `id`: a string or a number (CDP backend node ids are numbers).
struct Identity;

impl<'de> DeserializeSeed<'de> for Identity {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for Identity {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`id`: a string, number or null")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// A non-negative integer up to a maximum, or null.
struct Unsigned(&'static str, u64);

impl<'de> DeserializeSeed<'de> for Unsigned {
    type Value = Option<u64>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for Unsigned {
    type Value = Option<u64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: a non-negative integer or null", self.0)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        let Unsigned(what, max) = self;
        if v > max {
            return Err(E::custom(format_args!(
                "{what} {v} is out of range (at most {max})"
            )));
        }
        Ok(Some(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::custom(format_args!("{} {v} is negative", self.0))),
        }
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Any number, or null.
struct Number(&'static str);

impl<'de> DeserializeSeed<'de> for Number {
    type Value = Option<f64>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for Number {
    type Value = Option<f64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: a number or null", self.0)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v as f64))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(v as f64))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// A boolean; null is false.
struct Flag(&'static str);

impl<'de> DeserializeSeed<'de> for Flag {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for Flag {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: true, false or null", self.0)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        Ok(v)
    }

    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }
}

/// `states`: an array of state names, or null.
struct StatesSeed<'a>(&'a mut NodeFields);

impl<'de> DeserializeSeed<'de> for StatesSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StatesSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`states`: an array of state names")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(StateName(&mut *self.0))?.is_some() {}
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// One entry of `states`.
struct StateName<'a>(&'a mut NodeFields);

impl<'de> DeserializeSeed<'de> for StateName<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for StateName<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a state name (a string)")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.add_state(v);
        Ok(())
    }
}

/// `bounds`: `[x, y, w, h]`, `{x, y, width, height}`, `{x, y, w, h}` or null.
struct BoundsSeed;

const BOUNDS_PARTS: [&str; 4] = ["x", "y", "width", "height"];

impl<'de> DeserializeSeed<'de> for BoundsSeed {
    type Value = Option<Rect>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for BoundsSeed {
    type Value = Option<Rect>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`bounds`: [x, y, width, height], an object {x, y, width, height} or null")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut parts = [0i32; 4];
        for (i, part) in parts.iter_mut().enumerate() {
            match seq.next_element_seed(Coordinate(BOUNDS_PARTS[i]))? {
                Some(v) => *part = v,
                None => {
                    return Err(de::Error::custom(format_args!(
                        "`bounds` has {i} numbers; expected 4: [x, y, width, height]"
                    )))
                }
            }
        }
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(
                "`bounds` has more than 4 numbers; expected 4: [x, y, width, height]",
            ));
        }
        let [x, y, w, h] = parts;
        Ok(Some(Rect::new(x, y, w, h)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut parts: [Option<i32>; 4] = [None; 4];
        while let Some(key) = map.next_key::<String>()? {
            let i = match key.as_str() {
                "x" => 0,
                "y" => 1,
                "w" | "width" => 2,
                "h" | "height" => 3,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            if parts[i].is_some() {
                return Err(de::Error::custom(format_args!(
                    "`bounds` gives `{}` twice",
                    BOUNDS_PARTS[i]
                )));
            }
            parts[i] = Some(map.next_value_seed(Coordinate(BOUNDS_PARTS[i]))?);
        }
        match parts {
            [Some(x), Some(y), Some(w), Some(h)] => Ok(Some(Rect::new(x, y, w, h))),
            _ => {
                let missing: Vec<&str> = parts
                    .iter()
                    .zip(BOUNDS_PARTS)
                    .filter(|(part, _)| part.is_none())
                    .map(|(_, name)| name)
                    .collect();
                Err(de::Error::custom(format_args!(
                    "`bounds` lacks {}",
                    missing.join(", ")
                )))
            }
        }
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// One number of `bounds`, rounded to whole pixels.
struct Coordinate(&'static str);

impl Coordinate {
    fn check<E: de::Error>(&self, rounded: f64, original: impl fmt::Display) -> Result<i32, E> {
        if (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&rounded) {
            Ok(rounded as i32)
        } else {
            Err(E::custom(format_args!(
                "`bounds` {} {original} is out of range",
                self.0
            )))
        }
    }
}

impl<'de> DeserializeSeed<'de> for Coordinate {
    type Value = i32;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<i32, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for Coordinate {
    type Value = i32;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`bounds` {}: a number", self.0)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i32, E> {
        i32::try_from(v).or_else(|_| self.check(f64::INFINITY, v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i32, E> {
        i32::try_from(v).or_else(|_| self.check(f64::INFINITY, v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<i32, E> {
        self.check(v.round(), v)
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
mod tests {
    use super::*;
    use crate::MAX_DEPTH;
    use uidelta_model::{NodeId, Tree};

    fn read(text: &str) -> Snapshot {
        match parse(text) {
            Ok(snapshot) => snapshot,
            Err(err) => panic!("{err}"),
        }
    }

    fn fail(text: &str) -> ParseError {
        match parse(text) {
            Ok(snapshot) => panic!("parsed: {snapshot:?}"),
            Err(err) => err,
        }
    }

    fn at(err: &ParseError) -> (usize, usize) {
        (err.line, err.column)
    }

    fn names(tree: &Tree) -> Vec<(usize, &str)> {
        tree.ids()
            .map(|id| (tree.depth(id), tree.node(id).name.as_str()))
            .collect()
    }

    #[test]
    fn reads_the_spec_example() {
        let snap = read(
            r#"{"source": "atspi", "app": "gtk3-widget-factory", "pid": 4242,
 "root": {"id": ":1.0/org/a11y/atspi/accessible/149",
          "role": "push button", "name": "Save", "value": null,
          "description": "", "states": ["enabled", "focusable", "showing"],
          "bounds": [892, 512, 80, 30], "attributes": {},
          "children": []}}"#,
        );
        assert_eq!(
            snap.meta,
            Meta {
                source: "atspi".into(),
                app: Some("gtk3-widget-factory".into()),
                pid: Some(4242),
                ..Meta::default()
            }
        );
        assert_eq!(snap.node_count(), 1);
        let expected = NodeData {
            role: Role::PushButton,
            raw_role: "push button".into(),
            name: "Save".into(),
            value: None,
            description: String::new(),
            states: StateSet::of(&[State::Enabled, State::Focusable, State::Showing]),
            bounds: Some(Rect::new(892, 512, 80, 30)),
            attributes: vec![],
            identity: Some(":1.0/org/a11y/atspi/accessible/149".into()),
        };
        assert_eq!(snap.tree().node(NodeId::ROOT), &expected);
    }

    #[test]
    fn reads_every_metadata_field() {
        let snap = read(
            r#"{"source": "cdp", "app": "Chromium", "pid": 4294967295, "window": "Inbox",
                "captured_at_ms": 1700000000123, "capture_ms": 12.5, "truncated": true,
                "node_count": 99, "root": {"role": "document web"}}"#,
        );
        assert_eq!(
            snap.meta,
            Meta {
                source: "cdp".into(),
                app: Some("Chromium".into()),
                pid: Some(u32::MAX),
                window: Some("Inbox".into()),
                captured_at_ms: Some(1_700_000_000_123),
                capture_ms: Some(12.5),
                truncated: true,
            }
        );
        // `node_count` is recomputed, never trusted.
        assert_eq!(snap.node_count(), 1);

        let snap = read(
            r#"{"source": null, "app": null, "pid": null, "window": null,
                "captured_at_ms": null, "capture_ms": 7, "truncated": null, "root": {"role": "frame"}}"#,
        );
        assert_eq!(
            snap.meta,
            Meta {
                source: "file".into(),
                capture_ms: Some(7.0),
                ..Meta::default()
            }
        );
    }

    #[test]
    fn reads_every_node_field() {
        let snap = read(
            r#"{"root": {
                "ref": "e1", "role": "Button", "raw_role": "AXButton", "id": 42,
                "name": 17, "value": true, "description": null,
                "states": ["enabled", "sensitive", "STATE_READ_ONLY", "toggled", "disabled",
                           "sparkly", "focusable", "  "],
                "bounds": [1.4, 2.6, -3.5, 4],
                "attributes": {"level": 2, "busy": false, "ratio": 0.5, "gone": null,
                               "state:sparkly": "explicit", "class": "primary"}}}"#,
        );
        let node = snap.tree().node(NodeId::ROOT);
        assert_eq!(
            node,
            &NodeData {
                role: Role::PushButton,
                raw_role: "AXButton".into(),
                name: "17".into(),
                value: Some("true".into()),
                description: String::new(),
                // `disabled` wins over `enabled` and `sensitive`.
                states: StateSet::of(&[State::ReadOnly, State::Checked, State::Focusable]),
                bounds: Some(Rect::new(1, 3, -4, 4)),
                attributes: vec![
                    ("busy".into(), "false".into()),
                    ("class".into(), "primary".into()),
                    ("level".into(), "2".into()),
                    ("ratio".into(), "0.5".into()),
                    // An explicit attribute wins over an unknown state's.
                    ("state:sparkly".into(), "explicit".into()),
                ],
                identity: Some("42".into()),
            }
        );

        let snap = read(r#"{"role": "entry", "states": ["Insensitive", "enabled", "sparkly"]}"#);
        let node = snap.tree().node(NodeId::ROOT);
        assert_eq!(node.states, StateSet::EMPTY);
        assert_eq!(node.attribute("state:sparkly"), Some("true"));
        assert_eq!(node.raw_role, "entry");
        assert_eq!(node.identity, None);
    }

    #[test]
    fn bounds_come_as_arrays_objects_or_null() {
        let bounds = |json: &str| {
            let snap = read(&format!(r#"{{"role": "panel", "bounds": {json}}}"#));
            snap.tree().node(NodeId::ROOT).bounds
        };
        assert_eq!(bounds("[0, -5, 10, 20]"), Some(Rect::new(0, -5, 10, 20)));
        assert_eq!(
            bounds(r#"{"x": 1, "y": 2, "width": 3, "height": 4, "unit": "px"}"#),
            Some(Rect::new(1, 2, 3, 4))
        );
        assert_eq!(
            bounds(r#"{"h": 4.5, "w": 3, "y": 2, "x": 1}"#),
            Some(Rect::new(1, 2, 3, 5))
        );
        assert_eq!(bounds("null"), None);
    }

    #[test]
    fn builds_children_in_order_whatever_the_key_order() {
        let snap = read(
            r#"{"root": {"children": [
                  {"name": "a", "role": "panel", "children": [{"role": "label", "name": "a1"}]},
                  {"role": "label", "name": "b", "children": null}
                ], "name": "top", "role": "frame"}}"#,
        );
        let tree = snap.tree();
        assert_eq!(names(tree), vec![(0, "top"), (1, "a"), (2, "a1"), (1, "b")]);
        assert_eq!(tree.node(NodeId(3)).role, Role::Label);
        assert_eq!(tree.children(NodeId::ROOT), &[NodeId(1), NodeId(3)]);
    }

    #[test]
    fn ignores_unknown_fields_anywhere() {
        let snap = read(
            r#"{"version": 3, "extra": {"deep": [[[{"role": 5}]]]}, "node_count": "many",
                "root": {"role": "frame", "ref": "e1", "xpath": "/a", "children": [
                    {"role": "label", "name": "x", "css": {"color": [1, 2]}, "pid": "not metadata"}
                ]}, "tail": null}"#,
        );
        assert_eq!(names(snap.tree()), vec![(0, ""), (1, "x")]);
        assert_eq!(snap.meta.pid, None);
    }

    #[test]
    fn a_bare_node_is_a_snapshot_from_a_file() {
        let snap =
            read(r#"{"name": "OK", "role": "push button", "children": [{"role": "label"}]}"#);
        assert_eq!(
            snap.meta,
            Meta {
                source: "file".into(),
                ..Meta::default()
            }
        );
        assert_eq!(names(snap.tree()), vec![(0, "OK"), (1, "")]);
    }

    #[test]
    fn root_wins_over_top_level_node_fields() {
        let snap = read(
            r#"{"name": "ignored", "children": [{"role": "label"}, {"role": "label"}],
                "root": {"role": "frame", "name": "kept"}, "role": "window", "states": 5}"#,
        );
        assert_eq!(names(snap.tree()), vec![(0, "kept")]);
        assert_eq!(snap.tree().node(NodeId::ROOT).role, Role::Frame);
    }

    #[test]
    fn password_values_arrive_redacted() {
        let snap = read(
            r#"{"root": {"role": "frame", "children": [
                  {"role": "password text", "name": "Password", "value": "secret"}]}}"#,
        );
        let field = snap.tree().node(NodeId(1));
        assert_eq!(field.value.as_deref(), Some("\u{2022}".repeat(6).as_str()));
        assert_eq!(field.name, "Password");
    }

    #[test]
    fn malformed_json_is_an_error_at_its_position() {
        let err = fail("{\"role\": \"frame\",\n  \"name\": \"a\" \"value\": 1}");
        assert_eq!(at(&err), (2, 15));
        assert_eq!(err.message, "expected `,` or `}`");
        assert_eq!(
            err.to_string(),
            "json input, line 2, column 15: expected `,` or `}`"
        );

        let err = fail("{\"role\": \"frame\"");
        assert_eq!(
            (at(&err), err.message.as_str()),
            ((1, 17), "EOF while parsing an object")
        );
        let err = fail("{\"role\": \"frame\"} {}");
        assert_eq!(
            (at(&err), err.message.as_str()),
            ((1, 19), "trailing characters")
        );
        let err = fail("");
        assert_eq!(
            (at(&err), err.message.as_str()),
            ((1, 1), "EOF while parsing a value")
        );
        // Columns count characters: `x` is the 23rd character, the 24th byte.
        let err = fail(r#"{"role": "é", "name": x}"#);
        assert_eq!(
            (at(&err), err.message.as_str()),
            ((1, 23), "expected value")
        );
    }

    #[test]
    fn a_missing_role_points_at_the_node() {
        let err = fail(
            "{\"root\": {\"role\": \"frame\", \"children\": [\n    {\"role\": \"label\"},\n    {\"name\": \"(no role)\", \"children\": []}\n]}}",
        );
        assert_eq!(at(&err), (3, 5));
        assert_eq!(err.message, "the node has no `role`; every node needs one");

        let err = fail("  {\"name\": \"x\"}");
        assert_eq!(at(&err), (1, 3));
        assert_eq!(
            err.message,
            "the document has neither `root` (a snapshot) nor `role` (a bare node)"
        );
    }

    #[test]
    fn wrong_types_are_errors_at_the_value() {
        let err = fail("{\"role\": \"frame\",\n \"states\": 5}");
        assert_eq!(at(&err), (2, 12));
        assert_eq!(
            err.message,
            "invalid type: integer `5`, expected `states`: an array of state names"
        );

        let cases: &[(&str, (usize, usize), &str)] = &[
            (
                r#"{"role": "frame", "states": ["focused", 3]}"#,
                (1, 41),
                "invalid type: integer `3`, expected a state name (a string)",
            ),
            (
                r#"{"role": null}"#,
                (1, 10),
                "invalid type: null, expected `role`: a role name (a string)",
            ),
            (
                r#"{"role": "frame", "bounds": [1, 2, 3]}"#,
                (1, 37),
                "`bounds` has 3 numbers; expected 4: [x, y, width, height]",
            ),
            (
                r#"{"role": "frame", "bounds": [1, 2, 3, "4"]}"#,
                (1, 39),
                "invalid type: string \"4\", expected `bounds` height: a number",
            ),
            (
                r#"{"role": "frame", "bounds": {"x": 1, "y": 2}}"#,
                (1, 44),
                "`bounds` lacks width, height",
            ),
            (
                r#"{"role": "frame", "bounds": [0, 0, 1e10, 1]}"#,
                (1, 36),
                "`bounds` width 10000000000 is out of range",
            ),
            (
                r#"{"role": "frame", "attributes": {"a": [1]}}"#,
                (1, 39),
                "invalid type: sequence, expected an attribute: a string, number, boolean or null",
            ),
            (
                r#"{"role": "frame", "children": {}}"#,
                (1, 31),
                "invalid type: map, expected `children`: an array of node objects",
            ),
            (
                r#"{"role": "frame", "children": ["label"]}"#,
                (1, 32),
                "invalid type: string \"label\", expected a node object",
            ),
            (r#"{"root": {"role": "a"}, "pid": -1}"#, (1, 32), "`pid` -1 is negative"),
            (
                r#"{"root": {"role": "a"}, "pid": 4294967296}"#,
                (1, 32),
                "`pid` 4294967296 is out of range (at most 4294967295)",
            ),
            (
                r#"{"root": {"role": "a"}, "app": 1}"#,
                (1, 32),
                "invalid type: integer `1`, expected `app`: a string or null",
            ),
            (
                r#"{"root": {"role": "a"}, "root": {"role": "b"}}"#,
                (1, 25),
                "duplicate field `root`",
            ),
            (
                r#"{"role": "a", "name": "x", "name": "y"}"#,
                (1, 28),
                "duplicate field `name`",
            ),
            (
                r#"{"root": null}"#,
                (1, 10),
                "invalid type: null, expected a node object",
            ),
            (
                "[[[[",
                (1, 1),
                "invalid type: sequence, expected a snapshot object (with `root`) or a node object (with `role`)",
            ),
        ];
        for &(text, position, message) in cases {
            let err = fail(text);
            assert_eq!(
                (at(&err), err.message.as_str()),
                (position, message),
                "{text}"
            );
        }
    }

    /// `{"root":` then `{"role":"a","children":[` `levels` times.
    fn nested(levels: usize) -> String {
        let mut text = String::from(r#"{"root":"#);
        for _ in 0..levels {
            text.push_str(r#"{"role":"a","children":["#);
        }
        text
    }

    fn closed(levels: usize) -> String {
        let mut text = nested(levels);
        for _ in 0..levels {
            text.push_str("]}");
        }
        text.push('}');
        text
    }

    #[test]
    fn max_depth_levels_are_read() {
        let snap = read(&closed(MAX_DEPTH));
        assert_eq!(snap.node_count(), MAX_DEPTH);
        assert_eq!(
            snap.tree().depth(NodeId(MAX_DEPTH as u32 - 1)),
            MAX_DEPTH - 1
        );
    }

    #[test]
    fn deeper_nesting_is_an_error_not_a_stack_overflow() {
        let err = fail(&nested(100_000));
        // The first node too deep: the 1025th `{"role"...` prefix.
        let prefix = r#"{"role":"a","children":["#.len();
        assert_eq!(at(&err), (1, r#"{"root":"#.len() + MAX_DEPTH * prefix + 1));
        assert_eq!(err.message, "nodes nest deeper than 1024 levels");
        assert!(fail(&closed(MAX_DEPTH + 1))
            .message
            .contains("deeper than 1024"));

        let err = fail(&"[".repeat(100_000));
        assert_eq!(at(&err), (1, 1));
        let err = fail(&format!(r#"{{"role": {}"#, "[".repeat(100_000)));
        assert_eq!(at(&err), (1, 10));
        assert!(fail(&format!(
            r#"{{"role": "a", "name": {}"#,
            "{\"a\":".repeat(100_000)
        ))
        .message
        .starts_with("invalid type: map"));
    }

    #[test]
    fn deep_unknown_fields_are_skipped_without_recursion() {
        let deep = format!(
            r#"{{"role": "frame", "extra": {}1{}}}"#,
            "[{\"a\":".repeat(50_000),
            "}]".repeat(50_000)
        );
        assert_eq!(read(&deep).node_count(), 1);
    }

    #[test]
    fn more_than_max_nodes_is_an_error() {
        let limits = Limits {
            depth: MAX_DEPTH,
            nodes: 3,
        };
        let text = "{\"role\": \"list\", \"children\": [\n {\"role\": \"a\"},\n {\"role\": \"b\"},\n {\"role\": \"c\"}]}";
        let err = parse_with(text, limits).unwrap_err();
        assert_eq!(at(&err), (4, 2));
        assert_eq!(err.message, "the tree has more than 3 nodes");
        let ok = parse_with(&text.replace(",\n {\"role\": \"c\"}", ""), limits);
        assert_eq!(ok.map(|s| s.node_count()), Ok(3));
    }

    /// Fuzzing regression (see docs/fuzzing.md): unknown fields are skipped
    /// by serde_json's skipper, which does not range-check numbers or pair
    /// surrogates. Both are valid JSON syntax; in a field that is read they
    /// are errors at the value.
    #[test]
    fn skipped_values_are_not_range_checked() {
        let snap = read(r#"{"role": "a", "chldren": 2333333E3334, "x": "\ud800"}"#);
        assert_eq!(snap.node_count(), 1);

        let err = fail(r#"{"role": "a", "name": 2333333E3334}"#);
        assert_eq!(
            (at(&err), err.message.as_str()),
            ((1, 23), "number out of range")
        );
        let err = fail(r#"{"role": "a", "name": "\ud800"}"#);
        assert_eq!(
            (at(&err), err.message.as_str()),
            ((1, 30), "unexpected end of hex escape")
        );
    }

    /// Fuzzing regression: a byte order mark before the document is skipped.
    #[test]
    fn a_byte_order_mark_is_skipped() {
        assert_eq!(read("\u{feff}{\"role\": \"frame\"}").node_count(), 1);
        let err = fail("\u{feff}{\"role\": 1}");
        assert_eq!(at(&err), (1, 10));
    }

    #[test]
    fn opening_brace_skips_strings() {
        let text = r#"{"a": "{\"[", "b": [{"c": "}"}]}"#;
        assert_eq!(opening_brace(text, text.len(), 1), Some(0));
        assert_eq!(opening_brace(text, text.len(), 3), Some(20));
        assert_eq!(opening_brace(text, text.len(), 2), None);
    }
}
