//! OSWorld's accessibility-tree XML.
//!
//! OSWorld's desktop-env server (`GET /accessibility`) walks AT-SPI with
//! pyatspi and writes one element per accessible object, named after its
//! role with spaces as dashes (`push-button`), its text (Text interface) as
//! the element's text before its children, and the rest as attributes:
//!
//! ```text
//! <desktop-frame xmlns:st="https://accessibility.ubuntu.example.org/ns/state" ...>
//!   <push-button name="Save" st:enabled="true" st:showing="true" attr:toolkit="gtk"
//!                cp:screencoord="(892, 512)" cp:size="(80, 30)" act:click_desc=""/>
//! ```
//!
//! `st:` states (`"true"`), `attr:` object attributes, `cp:` the position
//! and size on screen (only of objects that are visible and showing), `val:`
//! the Value interface (`value`, `min`, `max`, `step`), `act:` actions.
//! Namespaces are recognized by their URI, for any platform OSWorld names
//! (`https://accessibility.<platform>.example.org/ns/<kind>`), whatever
//! prefix the document binds them to. See `docs/formats.md`.

use std::borrow::Cow;

use uidelta_model::{Meta, NodeData, NodeId, Rect, Role, Snapshot, State, TreeBuilder};

use crate::{position, InputFormat, Limits, ParseError};

mod xml;
use xml::{fail, Attribute, Event, Failure, Scanner};

/// The attribute that keeps `val:value` when the element also has text (a
/// spin button's Text and Value both answer): the text is the value.
const VALUE_ATTRIBUTE: &str = "val:value";

/// Reads a snapshot from OSWorld's accessibility-tree XML, so that trees an
/// OSWorld harness recorded can be diffed and rendered by uidelta. The
/// snapshot's source is `osworld`. See `docs/formats.md`.
pub fn parse(text: &str) -> Result<Snapshot, ParseError> {
    parse_with(text, Limits::DEFAULT)
}

pub(crate) fn parse_with(text: &str, limits: Limits) -> Result<Snapshot, ParseError> {
    let text = crate::strip_bom(text);
    let mut reader = Reader {
        limits,
        tree: None,
        open: Vec::new(),
        namespaces: Vec::new(),
        done: false,
    };
    let read = reader.read(text);
    match read {
        Ok(tree) => Ok(Snapshot::new(
            Meta {
                source: "osworld".to_owned(),
                ..Meta::default()
            },
            tree.finish(),
        )),
        Err(Failure { at, message }) => {
            let (line, column) = position::line_column(text, at);
            Err(ParseError {
                format: InputFormat::Osworld,
                line,
                column,
                message,
            })
        }
    }
}

/// An element whose end tag has not been read yet.
struct Open<'a> {
    name: &'a str,
    id: NodeId,
    /// Character data before the first child.
    text: String,
    has_children: bool,
    /// `val:value`, which is the value when there is no text.
    current_value: Option<String>,
    /// How many namespace bindings were in scope outside this element.
    scope: usize,
}

struct Reader<'a> {
    limits: Limits,
    tree: Option<TreeBuilder>,
    open: Vec<Open<'a>>,
    /// Prefix bindings in scope, innermost last.
    namespaces: Vec<(&'a str, Cow<'a, str>)>,
    /// The root element has been closed.
    done: bool,
}

impl<'a> Reader<'a> {
    fn read(&mut self, text: &'a str) -> xml::Result<TreeBuilder> {
        let mut scanner = Scanner::new(text);
        while let Some(event) = scanner.next_event()? {
            match event {
                Event::Open {
                    name,
                    at,
                    attributes,
                    empty,
                } => self.open_element(name, at, &attributes, empty)?,
                Event::Close { name, at } => {
                    let Some(open) = self.open.pop() else {
                        return fail(at, format!("`</{name}>` closes no open element"));
                    };
                    if open.name != name {
                        return fail(at, format!("`</{name}>` does not close `<{}>`", open.name));
                    }
                    self.close_element(open);
                }
                Event::Text { text: data, at } => match self.open.last_mut() {
                    Some(open) if !open.has_children => open.text.push_str(&data),
                    Some(_) if xml::is_blank(&data) => {}
                    Some(_) => {
                        return fail(
                            at,
                            "text after a child element: OSWorld writes an element's text \
                             before its children",
                        )
                    }
                    None if xml::is_blank(&data) => {}
                    None => return fail(at, "text outside the root element"),
                },
            }
        }
        if let Some(open) = self.open.last() {
            return fail(text.len(), format!("`<{}>` is not closed", open.name));
        }
        match self.tree.take() {
            Some(tree) => Ok(tree),
            None => fail(text.len(), "no elements"),
        }
    }

    fn open_element(
        &mut self,
        name: &'a str,
        at: usize,
        attributes: &[Attribute<'a>],
        empty: bool,
    ) -> xml::Result<()> {
        if self.done {
            return fail(at, "a second root element; a document has one");
        }
        if self.open.len() >= self.limits.depth {
            return fail(
                at,
                format!("elements nest deeper than {} levels", self.limits.depth),
            );
        }
        if let Some(tree) = &self.tree {
            if tree.len() >= self.limits.nodes {
                return fail(
                    at,
                    format!("the tree has more than {} nodes", self.limits.nodes),
                );
            }
        }
        let scope = self.namespaces.len();
        for attribute in attributes {
            if attribute.name == "xmlns" {
                continue;
            }
            if let Some(prefix) = attribute.name.strip_prefix("xmlns:") {
                self.namespaces.push((prefix, attribute.value.clone()));
            }
        }
        let local = match name.split_once(':') {
            Some((prefix, local)) => {
                self.namespace(prefix, at)?;
                local
            }
            None => name,
        };
        let (data, current_value) = self.node(local, attributes)?;
        let id = match self.tree.as_mut() {
            Some(tree) => tree.open(data),
            None => {
                self.tree = Some(TreeBuilder::new(data));
                NodeId::ROOT
            }
        };
        if let Some(parent) = self.open.last_mut() {
            parent.has_children = true;
        }
        let open = Open {
            name,
            id,
            text: String::new(),
            has_children: false,
            current_value,
            scope,
        };
        if empty {
            self.close_element(open);
        } else {
            self.open.push(open);
        }
        Ok(())
    }

    /// Sets the node's value from its text (or `val:value`) and returns to
    /// its parent.
    fn close_element(&mut self, open: Open<'a>) {
        self.namespaces.truncate(open.scope);
        let Some(tree) = self.tree.as_mut() else {
            return;
        };
        // An element with children and only whitespace before the first one
        // is indented, not holding text: OSWorld writes no whitespace
        // between elements, but a pretty-printed file does.
        let text = if open.has_children && xml::is_blank(&open.text) {
            String::new()
        } else {
            open.text
        };
        let node = tree.node_mut(open.id);
        match (text.is_empty(), open.current_value) {
            (false, current) => {
                node.value = Some(text);
                if let Some(current) = current {
                    node.set_attribute(VALUE_ATTRIBUTE, current);
                }
            }
            (true, Some(current)) => node.value = Some(current),
            // OSWorld writes no text when it is empty; uidelta's own
            // capture gives a text field an empty value rather than none.
            (true, None) if reads_as_text(node) => node.value = Some(String::new()),
            (true, None) => node.value = None,
        }
        if open.id == NodeId::ROOT {
            self.done = true;
        } else {
            tree.close();
        }
    }

    /// The namespace URI bound to `prefix`.
    fn namespace(&self, prefix: &str, at: usize) -> xml::Result<Cow<'a, str>> {
        if prefix == "xml" {
            return Ok(Cow::Borrowed("http://www.w3.org/XML/1998/namespace"));
        }
        match self.namespaces.iter().rev().find(|(p, _)| *p == prefix) {
            Some((_, uri)) => Ok(uri.clone()),
            None => fail(
                at,
                format!("the namespace prefix `{prefix}` is not declared"),
            ),
        }
    }

    /// The node an element describes, and its `val:value`.
    fn node(
        &self,
        local: &str,
        attributes: &[Attribute<'a>],
    ) -> xml::Result<(NodeData, Option<String>)> {
        let raw_role = local.replace('-', " ");
        let mut data = NodeData::new(Role::from_name(&raw_role));
        data.raw_role = raw_role;
        let mut current_value = None;
        let mut screencoord: Option<(&Attribute<'a>, (i32, i32))> = None;
        let mut size: Option<(&Attribute<'a>, (i32, i32))> = None;
        let mut keys: Vec<(String, usize)> = Vec::new();
        for attribute in attributes {
            let Some((prefix, name)) = attribute.name.split_once(':') else {
                match attribute.name {
                    "xmlns" => {}
                    "name" => data.name = attribute.value.clone().into_owned(),
                    // `image`, `selection`: interfaces the object has.
                    key => {
                        keys.push((key.to_owned(), attribute.at));
                        data.set_attribute(key, attribute.value.clone().into_owned());
                    }
                }
                continue;
            };
            if prefix == "xmlns" {
                continue;
            }
            let uri = self.namespace(prefix, attribute.at)?;
            let value = attribute.value.as_ref();
            match kind(&uri) {
                Some("state") => match State::from_name(name) {
                    Some(state) => {
                        if value == "true" {
                            data.states.insert(state);
                        }
                    }
                    None => {
                        keys.push((format!("state:{name}"), attribute.at));
                        data.set_attribute(format!("state:{name}"), value);
                    }
                },
                Some("attributes") if name == "description" => data.description = value.to_owned(),
                Some("attributes") => {
                    keys.push((name.to_owned(), attribute.at));
                    data.set_attribute(name, value);
                }
                Some("component") if name == "screencoord" => {
                    screencoord = Some((attribute, pair(attribute, "(x, y)")?));
                }
                Some("component") if name == "size" => {
                    size = Some((attribute, pair(attribute, "(w, h)")?));
                }
                Some("value") if name == "value" => current_value = Some(value.to_owned()),
                Some(kind) => {
                    let key = format!("{}:{name}", canonical_prefix(kind).unwrap_or(prefix));
                    keys.push((key.clone(), attribute.at));
                    data.set_attribute(key, value);
                }
                None => {
                    keys.push((attribute.name.to_owned(), attribute.at));
                    data.set_attribute(attribute.name, value);
                }
            }
        }
        // Two spellings of one attribute (`attr:x` and a second prefix for
        // the same namespace, or `image` and `attr:image`) would overwrite
        // each other.
        keys.sort_unstable();
        if let Some(pair) = keys.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            return fail(
                pair[0].1.max(pair[1].1),
                format!("the attribute `{}` is given twice", pair[0].0),
            );
        }
        match (screencoord, size) {
            (Some((_, (x, y))), Some((_, (w, h)))) => data.bounds = Some(Rect::new(x, y, w, h)),
            (Some((attribute, _)), None) => {
                return fail(
                    attribute.at,
                    format!("`{}` without the size (`cp:size`)", attribute.name),
                )
            }
            (None, Some((attribute, _))) => {
                return fail(
                    attribute.at,
                    format!(
                        "`{}` without the position (`cp:screencoord`)",
                        attribute.name
                    ),
                )
            }
            (None, None) => {}
        }
        Ok((data, current_value))
    }
}

/// Whether uidelta's AT-SPI capture reads the node's text as its value:
/// a text role, or anything editable.
fn reads_as_text(node: &NodeData) -> bool {
    matches!(
        node.role,
        Role::Entry | Role::Text | Role::PasswordText | Role::Terminal | Role::DocumentText
    ) || node.states.contains(State::Editable)
}

/// The kind of an OSWorld namespace (`state`, `attributes`, `component`,
/// `value`, `action`, `text`, `document`, `document/attributes`, `class`,
/// `role`), from its URI
/// `https://accessibility.<platform>.example.org/ns/<kind>`.
fn kind(uri: &str) -> Option<&str> {
    let rest = uri.strip_prefix("https://accessibility.")?;
    let (platform, kind) = rest.split_once(".example.org/ns/")?;
    (!platform.is_empty() && !platform.contains('/') && !kind.is_empty()).then_some(kind)
}

/// The prefix OSWorld binds a namespace kind to, which names the attribute
/// in the snapshot (`act:click_desc`), whatever prefix the document used.
fn canonical_prefix(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "component" => "cp",
        "value" => "val",
        "action" => "act",
        "text" => "txt",
        "document" => "doc",
        "document/attributes" => "docattr",
        "class" => "class",
        "role" => "role",
        _ => return None,
    })
}

/// `(12, -4)`: two numbers in Python's tuple notation, rounded to whole
/// pixels.
fn pair(attribute: &Attribute<'_>, shape: &str) -> xml::Result<(i32, i32)> {
    let value = attribute.value.as_ref();
    let parsed = value
        .trim()
        .strip_prefix('(')
        .and_then(|v| v.strip_suffix(')'))
        .and_then(|inner| inner.split_once(','))
        .and_then(|(a, b)| Some((number(a.trim())?, number(b.trim())?)));
    match parsed {
        Some(pair) => Ok(pair),
        None => fail(
            attribute.value_at,
            format!(
                "`{}` is `{value}`, not two whole-pixel numbers `{shape}`",
                attribute.name
            ),
        ),
    }
}

/// `-12`, `3.5`: digits with an optional sign and fraction, rounded.
fn number(text: &str) -> Option<i32> {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, "0"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) {
        return None;
    }
    let rounded = text.parse::<f64>().ok()?.round();
    (f64::from(i32::MIN)..=f64::from(i32::MAX))
        .contains(&rounded)
        .then_some(rounded as i32)
}

#[cfg(test)]
mod tests;
