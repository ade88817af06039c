//! mcp-server-macos-use's traversal JSON.
//!
//! MacosUseSDK walks an application's AX tree breadth first and returns a
//! flat, de-duplicated list of elements sorted top to bottom, left to right
//! (its `ResponseData`, printed by its `TraversalTool`; mcp-server-macos-use
//! returned it as `traversal`, each element with `in_viewport`):
//!
//! ```json
//! {"app_name": "Calculator", "processing_time_seconds": "0.12",
//!  "stats": {"count": 2, "truncated": false},
//!  "elements": [
//!    {"role": "AXWindow (standard window)", "text": "Calculator",
//!     "x": 100, "y": 80, "width": 230, "height": 408},
//!    {"role": "AXButton (button)", "text": "7", "x": 112, "y": 300,
//!     "width": 40, "height": 40, "in_viewport": true}]}
//! ```
//!
//! The list has no nesting, so every element is a child of one application
//! node. See `docs/formats.md`.

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use uidelta_model::{Meta, NodeData, Rect, Role, Snapshot, TreeBuilder};

use crate::{json, InputFormat, ParseError};

/// Reads a snapshot from mcp-server-macos-use's traversal JSON: a
/// `ResponseData` object (`app_name`, `elements`, `stats`,
/// `processing_time_seconds`), or a tool response that holds one as
/// `traversal`. The snapshot's source is `macos-use`. See `docs/formats.md`.
pub fn parse(text: &str) -> Result<Snapshot, ParseError> {
    read::<{ crate::MAX_NODES }>(text)
}

/// Reads with at most `MAX_NODES` nodes (the application node counts).
fn read<const MAX_NODES: usize>(text: &str) -> Result<Snapshot, ParseError> {
    let text = crate::strip_bom(text);
    let mut de = serde_json::Deserializer::from_str(text);
    let document = Document::<MAX_NODES>::deserialize(&mut de)
        .and_then(|document| de.end().map(|()| document))
        .map_err(|err| json::locate(text, &err, None, InputFormat::MacosUse))?;
    let traversal = match (document.elements, document.traversal) {
        (Some(elements), _) => Traversal {
            app_name: document.app_name,
            elements: Some(elements),
            stats: document.stats,
            processing_time_seconds: document.processing_time_seconds,
        },
        (None, Some(traversal)) if traversal.elements.is_some() => traversal,
        _ => {
            // Point at the document's opening brace.
            let start = text.len() - text.trim_start().len();
            let (line, column) = crate::position::line_column(text, start);
            return Err(ParseError {
                format: InputFormat::MacosUse,
                line,
                column,
                message: "the document has no `elements`, nor a `traversal` that holds them"
                    .to_owned(),
            });
        }
    };
    Ok(snapshot(traversal))
}

fn snapshot<const MAX_NODES: usize>(traversal: Traversal<MAX_NODES>) -> Snapshot {
    let mut root = NodeData::new(Role::Application);
    root.name = traversal.app_name.clone().unwrap_or_default();
    let elements = traversal.elements.map(|e| e.0).unwrap_or_default();
    let mut tree = TreeBuilder::with_capacity(root, elements.len() + 1);
    for element in elements {
        tree.leaf(node(element));
    }
    let meta = Meta {
        source: "macos-use".to_owned(),
        app: traversal.app_name,
        truncated: traversal.stats.and_then(|s| s.truncated).unwrap_or(false),
        capture_ms: traversal
            .processing_time_seconds
            .and_then(Seconds::milliseconds),
        ..Meta::default()
    };
    Snapshot::new(meta, tree.finish())
}

/// `AXButton (button)`: the AX role, and its description when it says more
/// than the role.
fn node(element: Element) -> NodeData {
    let (raw_role, description) = match element.role.strip_suffix(')') {
        Some(body) => match body.split_once(" (") {
            Some((role, description)) if !role.is_empty() => (role, Some(description)),
            _ => (element.role.as_str(), None),
        },
        None => (element.role.as_str(), None),
    };
    let mut data = NodeData::new(Role::from_name(raw_role));
    data.raw_role = raw_role.to_owned();
    if let Some(description) = description {
        data.set_attribute("roledescription", description);
    }
    data.name = element.text.unwrap_or_default();
    if let (Some(Coordinate(x)), Some(Coordinate(y))) = (element.x, element.y) {
        // The SDK leaves out a width or height of 0.
        let w = element.width.map_or(0, |c| c.0);
        let h = element.height.map_or(0, |c| c.0);
        data.bounds = Some(Rect::new(x, y, w, h));
    }
    if let Some(in_viewport) = element.in_viewport {
        data.set_attribute("in_viewport", in_viewport.to_string());
    }
    data
}

/// The document: a `ResponseData`, or a tool response with `traversal`.
#[derive(Deserialize)]
struct Document<const MAX_NODES: usize> {
    app_name: Option<String>,
    elements: Option<Elements<MAX_NODES>>,
    stats: Option<Stats>,
    processing_time_seconds: Option<Seconds>,
    traversal: Option<Traversal<MAX_NODES>>,
}

/// MacosUseSDK's `ResponseData`.
#[derive(Deserialize)]
struct Traversal<const MAX_NODES: usize> {
    app_name: Option<String>,
    elements: Option<Elements<MAX_NODES>>,
    stats: Option<Stats>,
    processing_time_seconds: Option<Seconds>,
}

#[derive(Deserialize)]
struct Stats {
    truncated: Option<bool>,
}

/// `"0.12"` (the SDK formats it as text), or a number.
#[derive(Deserialize)]
#[serde(untagged)]
enum Seconds {
    Text(String),
    Number(f64),
}

impl Seconds {
    fn milliseconds(self) -> Option<f64> {
        let seconds = match self {
            Seconds::Text(text) => text.trim().parse::<f64>().ok()?,
            Seconds::Number(n) => n,
        };
        (seconds.is_finite() && seconds >= 0.0).then_some(seconds * 1000.0)
    }
}

/// One element of the list.
#[derive(Deserialize)]
struct Element {
    role: String,
    text: Option<String>,
    x: Option<Coordinate>,
    y: Option<Coordinate>,
    width: Option<Coordinate>,
    height: Option<Coordinate>,
    in_viewport: Option<bool>,
}

/// A position or size in points, rounded to whole pixels; it must fit a
/// 32-bit signed integer.
struct Coordinate(i32);

impl<'de> Deserialize<'de> for Coordinate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Coordinate, D::Error> {
        let n = f64::deserialize(deserializer)?;
        let rounded = n.round();
        if (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&rounded) {
            Ok(Coordinate(rounded as i32))
        } else {
            Err(de::Error::custom(format_args!(
                "the coordinate {n} does not fit a 32-bit integer"
            )))
        }
    }
}

/// The element list, at most `MAX_NODES - 1` long (the application node
/// takes one).
struct Elements<const MAX_NODES: usize>(Vec<Element>);

impl<'de, const MAX_NODES: usize> Deserialize<'de> for Elements<MAX_NODES> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct List<const MAX_NODES: usize>;

        impl<'de, const MAX_NODES: usize> Visitor<'de> for List<MAX_NODES> {
            type Value = Elements<MAX_NODES>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("`elements`: an array of element objects")
            }

            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut elements = Vec::new();
                while let Some(element) = seq.next_element::<Element>()? {
                    if elements.len() + 1 >= MAX_NODES {
                        return Err(de::Error::custom(format_args!(
                            "the tree has more than {MAX_NODES} nodes"
                        )));
                    }
                    elements.push(element);
                }
                Ok(Elements(elements))
            }
        }

        deserializer.deserialize_seq(List::<MAX_NODES>)
    }
}

/// Whether a JSON object is a macos-use traversal rather than interchange
/// JSON: its first key among `elements`, `traversal`, `root` and `role` is
/// one of the first two. Reads keys only up to that one.
pub(crate) fn looks_like(text: &str) -> bool {
    struct FirstTellingKey<'a>(&'a mut Option<bool>);

    impl<'de> Visitor<'de> for FirstTellingKey<'_> {
        type Value = ();

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                match key.as_ref() {
                    "elements" | "traversal" => {
                        *self.0 = Some(true);
                        return Ok(());
                    }
                    "root" | "role" => {
                        *self.0 = Some(false);
                        return Ok(());
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
    }

    let mut verdict = None;
    let mut de = serde_json::Deserializer::from_str(text);
    // Returning early leaves the object unfinished, which serde_json calls
    // an error; the verdict is taken before that.
    let _ = de.deserialize_map(FirstTellingKey(&mut verdict));
    verdict == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidelta_model::{NodeId, State};

    fn parse_ok(text: &str) -> Snapshot {
        match parse(text) {
            Ok(snapshot) => snapshot,
            Err(err) => panic!("{err}"),
        }
    }

    const CALCULATOR: &str = r#"{
  "app_name" : "Calculator",
  "elements" : [
    {
      "height" : 408,
      "role" : "AXWindow (standard window)",
      "text" : "Calculator",
      "width" : 230,
      "x" : 100,
      "y" : 80
    },
    {
      "height" : 40.4,
      "role" : "AXButton (button)",
      "text" : "7",
      "width" : 40,
      "x" : 112.5,
      "y" : 300
    },
    {
      "height" : 12,
      "role" : "AXStaticText",
      "text" : "0",
      "x" : 120,
      "y" : 110
    },
    {
      "role" : "AXMenuBar (menu bar)"
    }
  ],
  "processing_time_seconds" : "0.12",
  "stats" : {
    "count" : 4,
    "excluded_count" : 10,
    "role_counts" : { "AXButton" : 1 },
    "truncated" : true
  }
}"#;

    #[test]
    fn reads_a_traversal_as_children_of_the_application() {
        let snap = parse_ok(CALCULATOR);
        assert_eq!(snap.meta.source, "macos-use");
        assert_eq!(snap.meta.app.as_deref(), Some("Calculator"));
        assert!(snap.meta.truncated);
        assert_eq!(snap.meta.capture_ms, Some(120.0));
        let tree = snap.tree();
        let root = tree.node(NodeId::ROOT);
        assert_eq!(
            (root.role, root.name.as_str()),
            (Role::Application, "Calculator")
        );
        assert_eq!(tree.children(NodeId::ROOT).len(), 4);
        assert!(tree.ids().skip(1).all(|id| tree.depth(id) == 1));

        let window = tree.node(NodeId(1));
        assert_eq!(window.role, Role::Window);
        assert_eq!(window.raw_role, "AXWindow");
        assert_eq!(window.name, "Calculator");
        assert_eq!(window.attribute("roledescription"), Some("standard window"));
        assert_eq!(window.bounds, Some(Rect::new(100, 80, 230, 408)));
        assert_eq!(window.states, uidelta_model::StateSet::EMPTY);

        let button = tree.node(NodeId(2));
        assert_eq!((button.role, button.name.as_str()), (Role::PushButton, "7"));
        assert_eq!(button.bounds, Some(Rect::new(113, 300, 40, 40)));

        // No width: the SDK leaves out a width of 0.
        let text = tree.node(NodeId(3));
        assert_eq!(text.raw_role, "AXStaticText");
        assert_eq!(text.attribute("roledescription"), None);
        assert_eq!(text.bounds, Some(Rect::new(120, 110, 0, 12)));

        let menu_bar = tree.node(NodeId(4));
        assert_eq!((menu_bar.role, menu_bar.name.as_str()), (Role::MenuBar, ""));
        assert_eq!(menu_bar.bounds, None);
        assert!(!menu_bar.states.contains(State::Showing));
    }

    #[test]
    fn reads_the_traversal_of_a_tool_response() {
        let snap = parse_ok(
            r#"{"traversalPid": 42, "traversal": {"app_name": "Notes", "elements": [
                {"role": "AXTextArea", "text": "hello", "x": 1, "y": 2, "width": 3,
                 "height": 4, "in_viewport": false}],
                "processing_time_seconds": 0.5, "stats": {}}}"#,
        );
        assert_eq!(snap.meta.app.as_deref(), Some("Notes"));
        assert_eq!(snap.meta.capture_ms, Some(500.0));
        let area = snap.tree().node(NodeId(1));
        assert_eq!(area.role, Role::Entry);
        assert_eq!(area.name, "hello");
        assert_eq!(area.attribute("in_viewport"), Some("false"));
    }

    #[test]
    fn malformed_documents_are_errors_with_positions() {
        let cases: &[(&str, (usize, usize), &str)] = &[
            (
                "{\"app_name\": \"x\"}",
                (1, 1),
                "the document has no `elements`, nor a `traversal` that holds them",
            ),
            (
                "{\"elements\": [{\"text\": \"a\"}]}",
                (1, 27),
                "missing field `role`",
            ),
            (
                "{\"elements\": [{\"role\": \"AXButton\",\n \"x\": 1e12, \"y\": 1}]}",
                (2, 7),
                "the coordinate 1000000000000 does not fit a 32-bit integer",
            ),
            (
                "{\"elements\": [{\"role\": 5}]}",
                (1, 24),
                "invalid type: integer `5`, expected a string",
            ),
            (
                "{\"elements\": [], \"elements\": []}",
                (1, 18),
                "duplicate field `elements`",
            ),
            ("{\"elements\": []} x", (1, 18), "trailing characters"),
        ];
        for &(text, position, message) in cases {
            let err = match parse(text) {
                Ok(_) => panic!("parsed {text:?}"),
                Err(err) => err,
            };
            assert_eq!(
                ((err.line, err.column), err.message.as_str()),
                (position, message),
                "{text:?}"
            );
            assert_eq!(err.format, InputFormat::MacosUse);
        }
    }

    #[test]
    fn more_than_max_nodes_is_an_error() {
        let three = r#"{"elements": [{"role": "A"}, {"role": "B"}, {"role": "C"}]}"#;
        let err = match read::<3>(three) {
            Ok(_) => panic!("read more than 3 nodes"),
            Err(err) => err,
        };
        assert_eq!(err.message, "the tree has more than 3 nodes");
        assert!(read::<4>(three).is_ok());
    }

    #[test]
    fn detection_reads_keys_up_to_the_first_telling_one() {
        assert!(looks_like(CALCULATOR));
        assert!(looks_like(r#"{"traversalPid": 1, "traversal": {}}"#));
        assert!(!looks_like(r#"{"source": "x", "root": {"role": "frame"}}"#));
        assert!(!looks_like(r#"{"role": "frame", "elements": []}"#));
        assert!(!looks_like(r#"{"name": "x"}"#));
        assert!(!looks_like("{"));
    }
}
