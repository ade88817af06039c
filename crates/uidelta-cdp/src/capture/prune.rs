//! Reading less of Chromium's accessibility tree where the DOM snapshot
//! already says what it would.
//!
//! `Accessibility.getFullAXTree` costs Chromium about 25 µs a node, and far
//! more for a link to an anchor of the page that does not exist: Chromium
//! looks for the link's target (`InPageLinkTarget`) by walking the whole
//! document, once per link. On 10,000 links to `#item-<k>` in list items
//! that is 3 of the 4 to 5 seconds of the call; the same page with links
//! to other pages takes 1.4 s.
//!
//! Much of a big page is leaves whose nodes the DOM snapshot gives as well
//! as the accessibility tree would: plain text (a `StaticText` named with
//! its laid-out text), plain links (`<a href>` holding one plain text and
//! nothing else: a `link` named with that text, focusable, with its
//! resolved URL) and list markers (left out of the tree anyway). The call
//! takes a `depth`, counted in nodes that are not ignored; so the tree is
//! asked only as deep as the deepest node that is not one of those leaves
//! (an estimate from the DOM meant to be too deep rather than too shallow:
//! every element but `<html>` and a plain `<body>` counts as a level, a
//! select box as two), and
//! the leaves below are made from the DOM snapshot ([`complete`]).
//!
//! Whatever the estimate, [`complete`] checks the answer: every child the
//! answer names but does not give must be one of those leaves, and the
//! nodes must be named by their DOM node (the accessibility node id of an
//! element is its backend node id); else the capture reads the whole tree.
//! The focus is asked of Chromium (the node of `document.activeElement`,
//! two small calls): a link clicked keeps it, and is `focused` in the tree
//! (as is the document while the page has the focus) though it may be a
//! leaf made here. Pages where the DOM may not say what the tree would are read
//! whole from the start: frames, shadow roots, modal dialogs, `aria-owns`,
//! `aria-activedescendant`, editable content; and leaves under
//! `aria-hidden`, `inert`, `aria-disabled`, live regions, form controls
//! other than buttons, elements of ARIA roles whose children are
//! presentational, or not visible, are read from Chromium.

use std::collections::HashSet;
use std::time::Instant;

use serde_json::{json, Value};

use super::layout::{Dom, DomNode, Layout};
use super::wire::ask;
use super::{AxNode, AxProperty, AxValue, FrameInfo, FrameNodes};
use crate::error::{Error, Result};
use crate::protocol::Session;

/// Reads the accessibility tree of a target's only frame, laid out as
/// `layout`: only as deep as the DOM snapshot does not say, and whole when
/// that is not worth it or the answer does not check out.
pub(super) async fn read_main_frame(
    session: &Session,
    frame: FrameInfo,
    layout: &Layout,
) -> Result<FrameNodes> {
    let depth = if layout.frame_elements.is_empty() {
        depth(&layout.dom)
    } else {
        None
    };
    if let Some(depth) = depth {
        let asked = Instant::now();
        let mut nodes = full_tree(session, frame.clone(), json!({ "depth": depth })).await?;
        let given = nodes.nodes.len();
        let focus = focused_element(session).await;
        match complete(&mut nodes.nodes, &layout.dom, focus) {
            Ok(made) => {
                tracing::debug!(
                    "capture: {given} nodes read to depth {depth} and {made} from the DOM \
                     in {:?}",
                    asked.elapsed()
                );
                return Ok(FrameNodes {
                    from_dom: made,
                    ..nodes
                });
            }
            Err(why) => {
                tracing::debug!("capture: reading the whole tree: {why}");
                let whole = full_tree(session, frame, json!({})).await?;
                return Ok(FrameNodes {
                    read_twice: true,
                    ..whole
                });
            }
        }
    }
    full_tree(session, frame, json!({})).await
}

/// `Accessibility.getFullAXTree` of a target's main frame, read.
async fn full_tree(session: &Session, frame: FrameInfo, params: Value) -> Result<FrameNodes> {
    let method = "Accessibility.getFullAXTree";
    let protocol = |detail: String| Error::Protocol {
        doing: session.doing.clone(),
        method: method.into(),
        detail,
    };
    let answer = ask(session, &[(method, params)])
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| protocol("no answer".into()))??;
    let parsing = Instant::now();
    let nodes = FrameNodes::from_raw(frame, answer).map_err(protocol)?;
    tracing::debug!("capture: the tree read in {:?}", parsing.elapsed());
    Ok(nodes)
}

/// Where the focus is. The document says `focused` as long as the page has
/// the focus, and so does the element that holds it: a link clicked keeps
/// it, and it may be a leaf made here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Focus {
    /// On the element of this backend node id, by Chromium's own word.
    On(i64),
    /// Nowhere: the page's focused element is not focused in the tree (the
    /// page itself does not have the focus).
    Nowhere,
    /// Not known.
    Unknown,
}

impl Focus {
    /// `self`, or `Nowhere` when the focus is on a node read (which says so).
    fn filter_made(self, given: &HashSet<&str>) -> Focus {
        match self {
            Focus::On(b) if given.contains(b.to_string().as_str()) => Focus::Nowhere,
            other => other,
        }
    }
}

/// Asks Chromium's tree about the page's focused element: two small calls.
async fn focused_element(session: &Session) -> Focus {
    const GROUP: &str = "uidelta-capture-focus";
    let active = session
        .call(
            "Runtime.evaluate",
            json!({"expression": "document.activeElement", "objectGroup": GROUP}),
        )
        .await;
    let Some(object) = active
        .ok()
        .and_then(|a| a["result"]["objectId"].as_str().map(str::to_owned))
    else {
        return Focus::Unknown;
    };
    let node = session
        .call(
            "Accessibility.getPartialAXTree",
            json!({"objectId": object, "fetchRelatives": false}),
        )
        .await;
    if let Err(e) = session
        .call("Runtime.releaseObjectGroup", json!({"objectGroup": GROUP}))
        .await
    {
        tracing::debug!("capture: releasing the focused element's handle: {e}");
    }
    let Ok(node) = node else {
        return Focus::Unknown;
    };
    let Some(node) = node["nodes"].get(0) else {
        return Focus::Unknown;
    };
    let Some(backend) = node["backendDOMNodeId"].as_i64() else {
        return Focus::Unknown;
    };
    let focused = node["properties"].as_array().is_some_and(|props| {
        props
            .iter()
            .any(|p| p["name"] == "focused" && p["value"]["value"] == Value::Bool(true))
    });
    if focused {
        Focus::On(backend)
    } else {
        Focus::Nowhere
    }
}

/// Fewest nodes left out for a depth-limited read to be worth it.
const WORTH_IT: usize = 1000;

/// The depth to ask `Accessibility.getFullAXTree` for, `None` to read the
/// whole tree.
pub(super) fn depth(dom: &Dom) -> Option<usize> {
    let kinds = Kinds::of(dom)?;
    let mut deepest = 0;
    let mut left_out = 0;
    // Depth estimate per node: unignored ancestors at most.
    let mut est = vec![0usize; dom.nodes.len()];
    for (i, node) in dom.nodes.iter().enumerate() {
        // Parents come first in a snapshot; a node that says otherwise
        // counts from the top.
        let Some(p) = node.parent.filter(|&p| p < i) else {
            continue;
        };
        est[i] = est[p] + levels(&dom.nodes[p]);
        match kinds.of[i] {
            Kind::Needed => deepest = deepest.max(est[i] + levels_inside(node)),
            Kind::Leaf | Kind::InLeaf => left_out += 1,
            Kind::Outside => {}
        }
    }
    let kept = dom.nodes.iter().zip(&kinds.of).zip(&est);
    let left_out_below = kept
        .filter(|((_, k), &e)| matches!(k, Kind::Leaf | Kind::InLeaf) && e > deepest)
        .count();
    tracing::debug!(
        "capture: the DOM gives {left_out} leaves, {left_out_below} below depth {deepest}"
    );
    (left_out_below >= WORTH_IT).then_some(deepest)
}

/// How many levels of `depth` `node` may put between itself and its
/// children (nodes of the tree that are not ignored): one for anything but
/// `<html>` and a `<body>` without attributes or click handlers, none for
/// those, two for a select box (its options are in a pop-up of the tree's
/// own).
fn levels(node: &DomNode) -> usize {
    let plain = || node.attributes.iter().all(|(k, _)| plain_attribute(k));
    match node.name.as_str() {
        "HTML" => usize::from(!plain()),
        "BODY" => usize::from(node.clickable || !plain()),
        "SELECT" => 2,
        _ => 1,
    }
}

/// How many levels of the tree an element may hold that are not in the DOM
/// snapshot: the parts of a browser's own controls (the inner editor of a
/// text field and its text, a media player's buttons).
fn levels_inside(node: &DomNode) -> usize {
    let input_type = || {
        node.attribute("type")
            .map(|t| t.trim().to_ascii_lowercase())
            .unwrap_or_default()
    };
    match node.name.as_str() {
        "INPUT" => match input_type().as_str() {
            "checkbox" | "radio" | "hidden" => 0,
            "button" | "submit" | "reset" | "image" => 1,
            _ => 3,
        },
        "TEXTAREA" | "DETAILS" | "SUMMARY" | "METER" | "PROGRESS" => 3,
        "VIDEO" | "AUDIO" | "OBJECT" | "EMBED" => 10,
        _ => 0,
    }
}

fn plain_attribute(key: &str) -> bool {
    matches!(key, "id" | "class" | "style" | "lang" | "dir") || key.starts_with("data-")
}

/// What a DOM node is to a depth-limited read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Not in the accessibility tree's body (the head, the document type).
    Outside,
    /// Must come from Chromium.
    Needed,
    /// A plain text, a plain link or a list marker: the DOM says it.
    Leaf,
    /// Inside a leaf (a link's text, a marker's).
    InLeaf,
}

struct Kinds {
    of: Vec<Kind>,
}

impl Kinds {
    /// The kind of every node; `None` when the page is one to read whole.
    fn of(dom: &Dom) -> Option<Kinds> {
        let n = dom.nodes.len();
        let mut of = vec![Kind::Outside; n];
        // Whether the node or an ancestor makes leaves under it unsafe.
        let mut blocked = vec![false; n];
        let mut in_body = vec![false; n];
        let mut in_select = vec![false; n];
        // Whether the node or a descendant has a box (an element of
        // `display: contents` has none, but its children do).
        let mut shown: Vec<bool> = dom.nodes.iter().map(|d| d.laid_out).collect();
        for i in (0..n).rev() {
            if let Some(p) = dom.nodes[i].parent.filter(|&p| p < i) {
                shown[p] |= shown[i];
            }
        }
        for (i, node) in dom.nodes.iter().enumerate() {
            if whole_page_reason(node) {
                tracing::debug!("capture: {} asks for the whole tree", node.name);
                return None;
            }
            let parent = node.parent.filter(|&p| p < i);
            let parent_kind = parent.map(|p| of[p]);
            blocked[i] = parent.is_some_and(|p| blocked[p]) || blocks(node);
            in_body[i] = parent.is_some_and(|p| in_body[p]) || node.name == "BODY";
            in_select[i] = parent.is_some_and(|p| in_select[p]) || node.name == "SELECT";
            of[i] = if !in_body[i] {
                Kind::Outside
            } else if matches!(parent_kind, Some(Kind::Leaf | Kind::InLeaf)) {
                Kind::InLeaf
            } else if node.pseudo.as_deref() == Some("marker")
                || (!blocked[i] && (plain_text(node).is_some() || plain_link(dom, node)))
            {
                Kind::Leaf
            } else if (!shown[i] && !in_select[i])
                || (node.kind == 3 && node.text.as_deref().is_some_and(|t| t.trim().is_empty()))
            {
                // Nothing laid out (`display: none`; the options of a closed
                // select box are not laid out but in the tree), or only
                // spaces between elements: no node in the tree. Should the
                // tree have one all the same, the check of the answer finds
                // it.
                Kind::Outside
            } else {
                Kind::Needed
            };
        }
        Some(Kinds { of })
    }
}

/// Whether this node makes the DOM an unsafe guide for the whole page.
fn whole_page_reason(node: &DomNode) -> bool {
    let name = node.name.to_ascii_uppercase();
    node.kind == 11
        || matches!(
            name.as_str(),
            "IFRAME" | "FRAME" | "SLOT" | "PORTAL" | "FENCEDFRAME"
        )
        || (name == "DIALOG" && node.attribute("open").is_some())
        || node.attributes.iter().any(|(k, v)| {
            matches!(
                k.as_str(),
                "aria-owns" | "aria-modal" | "aria-activedescendant"
            ) || (k == "contenteditable" && v != "false")
        })
}

/// Whether leaves under this node (or it) must come from Chromium.
fn blocks(node: &DomNode) -> bool {
    let name = node.name.to_ascii_uppercase();
    let presentational_children = matches!(
        node.attribute("role").map(str::trim),
        Some(
            "button"
                | "checkbox"
                | "img"
                | "image"
                | "math"
                | "menuitemcheckbox"
                | "menuitemradio"
                | "meter"
                | "option"
                | "progressbar"
                | "radio"
                | "scrollbar"
                | "separator"
                | "slider"
                | "switch"
                | "tab"
                | "presentation"
                | "none"
        )
    );
    // Live regions give their nodes `live` and the like; a disabled one
    // makes everything in it disabled.
    let region = matches!(
        node.attribute("role").map(str::trim),
        Some("status" | "alert" | "log" | "marquee" | "timer")
    ) || node
        .attribute("aria-live")
        .is_some_and(|v| v.trim() != "off")
        || node.attribute("aria-disabled").is_some();
    presentational_children
        || region
        || node.attribute("aria-hidden").is_some()
        || node.attribute("inert").is_some()
        || (node.kind == 1
            && !matches!(node.name.as_str(), "HTML" | "BODY")
            && node.name.chars().any(|c| c.is_ascii_lowercase()))
        || matches!(
            name.as_str(),
            "SELECT"
                | "OPTION"
                | "OPTGROUP"
                | "DATALIST"
                | "TEXTAREA"
                | "INPUT"
                | "SVG"
                | "MATH"
                | "CANVAS"
                | "OBJECT"
                | "EMBED"
                | "VIDEO"
                | "AUDIO"
                | "METER"
                | "PROGRESS"
                | "TEMPLATE"
                | "LABEL"
                | "LEGEND"
                | "SUMMARY"
                | "MAP"
                | "AREA"
                | "PICTURE"
                | "IMG"
                | "OUTPUT"
        )
}

/// The laid-out text of a text node that reads the same in the tree:
/// visible, one line, no space at either end or twice in a row.
fn plain_text(node: &DomNode) -> Option<&str> {
    let text = node.text.as_deref()?;
    let plain = node.kind == 3
        && node.visibility == "visible"
        && !text.is_empty()
        && text.trim() == text
        && !text.contains("  ")
        && !text.contains(['\n', '\r', '\t', '\u{a0}', '\u{ad}', '\u{200b}']);
    plain.then_some(text)
}

/// Attributes of a plain link: none that changes its role, name,
/// description, states or focus.
fn link_attribute(key: &str) -> bool {
    matches!(
        key,
        "href"
            | "id"
            | "class"
            | "style"
            | "target"
            | "rel"
            | "hreflang"
            | "type"
            | "download"
            | "referrerpolicy"
            | "ping"
            | "lang"
            | "dir"
    ) || key.starts_with("data-")
}

/// Whether `node` is a plain link: `<a href>` with plain attributes, laid
/// out and visible, holding one plain text and nothing else.
fn plain_link(dom: &Dom, node: &DomNode) -> bool {
    node.kind == 1
        && node.name == "A"
        && node
            .attribute("href")
            .is_some_and(|href| link_url(dom, href).is_some())
        && node.attributes.iter().all(|(k, _)| link_attribute(k))
        && node.laid_out
        && node.visibility == "visible"
        && matches!(node.children.as_slice(), [only] if plain_text(&dom.nodes[*only]).is_some())
}

/// The address of a link, `href` resolved against the document's base URL;
/// `None` when it does not resolve (the tree says what it makes of it).
fn link_url(dom: &Dom, href: &str) -> Option<url::Url> {
    url::Url::parse(&dom.base_url).ok()?.join(href).ok()
}

/// Completes the nodes of a depth-limited read with the leaves the DOM
/// gives, the focus as `focus` says; returns how many it made, or why the
/// whole tree must be read.
pub(super) fn complete(
    nodes: &mut Vec<AxNode>,
    dom: &Dom,
    focus: Focus,
) -> std::result::Result<usize, String> {
    let given: HashSet<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    match focus {
        Focus::Nowhere => {}
        Focus::On(b) if given.contains(b.to_string().as_str()) => {
            let id = b.to_string();
            if !nodes.iter().any(|n| n.id == id && is_focused(n)) {
                return Err(format!("the focused node {b} was read but not as focused"));
            }
        }
        Focus::On(_) => {}
        Focus::Unknown => return Err("where the focus is is not known".into()),
    }
    if let Some(n) = nodes
        .iter()
        .find(|n| n.backend.is_some_and(|b| b.to_string() != n.id))
    {
        return Err(format!(
            "node {} is not named by its DOM node {:?}",
            n.id, n.backend
        ));
    }
    let mut made = Vec::new();
    for node in nodes.iter() {
        for child in &node.children {
            if given.contains(child.as_str()) {
                continue;
            }
            let id: i64 = child
                .parse()
                .map_err(|_| format!("child {child} of {} is not a number", node.id))?;
            let role = AxValue::text(&node.role);
            if id < 0
                && matches!(
                    role.as_str(),
                    "StaticText" | "ListMarker" | "InlineTextBox" | "LineBreak"
                )
            {
                // Per-line text boxes, which the tree leaves out.
                continue;
            }
            let dom_node = dom
                .by_backend
                .get(&id)
                .map(|&i| &dom.nodes[i])
                .ok_or_else(|| format!("child {child} of {} is not in the DOM", node.id))?;
            leaf(dom, dom_node, id, &node.id, &mut made)
                .ok_or_else(|| format!("child {child} ({}) was not read", dom_node.name))?;
        }
    }
    if let Focus::On(b) = focus.filter_made(&given) {
        let node = made
            .iter_mut()
            .find(|n| n.backend == Some(b))
            .ok_or_else(|| format!("the focused node {b} is neither read nor made"))?;
        node.properties.insert(
            1,
            AxProperty {
                name: "focused".into(),
                value: AxValue {
                    value: Some(Value::Bool(true)),
                    ..AxValue::default()
                },
            },
        );
    }
    let count = made.len();
    nodes.extend(made);
    Ok(count)
}

/// Makes the nodes of the leaf `node` (backend id `id`, child of `parent`).
fn leaf(dom: &Dom, node: &DomNode, id: i64, parent: &str, out: &mut Vec<AxNode>) -> Option<()> {
    if node.pseudo.as_deref() == Some("marker") {
        // Left out of the tree: nothing to make.
        return Some(());
    }
    if let Some(text) = plain_text(node) {
        out.push(text_node(id, text, parent));
        return Some(());
    }
    if !plain_link(dom, node) {
        return None;
    }
    let text_index = *node.children.first()?;
    let text_node_dom = &dom.nodes[text_index];
    let text = plain_text(text_node_dom)?;
    let text_id = text_node_dom.backend?;
    let url = link_url(dom, node.attribute("href")?)?;
    out.push(AxNode {
        id: id.to_string(),
        role: Some(string("link")),
        name: Some(string(text)),
        properties: vec![
            AxProperty {
                name: "focusable".into(),
                value: AxValue {
                    value: Some(Value::Bool(true)),
                    ..AxValue::default()
                },
            },
            AxProperty {
                name: "url".into(),
                value: string(url.as_str()),
            },
        ],
        parent: Some(parent.to_owned()),
        children: vec![text_id.to_string()],
        backend: Some(id),
        ..AxNode::default()
    });
    out.push(text_node(text_id, text, &id.to_string()));
    Some(())
}

fn text_node(id: i64, text: &str, parent: &str) -> AxNode {
    AxNode {
        id: id.to_string(),
        role: Some(string("StaticText")),
        name: Some(string(text)),
        parent: Some(parent.to_owned()),
        backend: Some(id),
        ..AxNode::default()
    }
}

fn string(text: &str) -> AxValue {
    AxValue {
        value: Some(Value::String(text.to_owned())),
        ..AxValue::default()
    }
}

fn is_focused(node: &AxNode) -> bool {
    node.properties
        .iter()
        .any(|p| p.name == "focused" && p.value.value == Some(Value::Bool(true)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DOM of `<main><ul>` and `items` list items, each a marker and a
    /// plain link `Link k` to `#item-<k>`; `extra(li)` adds more to a list
    /// item. Backend ids are indices + 1.
    fn list(items: usize, extra: impl Fn(&mut Vec<DomNode>, usize)) -> Dom {
        let mut nodes: Vec<DomNode> = Vec::new();
        let push = |nodes: &mut Vec<DomNode>, parent: Option<usize>, kind: i64, name: &str| {
            let i = nodes.len();
            nodes.push(DomNode {
                backend: Some(i as i64 + 1),
                parent,
                kind,
                name: name.into(),
                laid_out: kind != 9,
                visibility: "visible".into(),
                ..DomNode::default()
            });
            if let Some(p) = parent {
                nodes[p].children.push(i);
            }
            i
        };
        let doc = push(&mut nodes, None, 9, "#document");
        let html = push(&mut nodes, Some(doc), 1, "HTML");
        let body = push(&mut nodes, Some(html), 1, "BODY");
        let main = push(&mut nodes, Some(body), 1, "MAIN");
        let ul = push(&mut nodes, Some(main), 1, "UL");
        for k in 1..=items {
            let li = push(&mut nodes, Some(ul), 1, "LI");
            let marker = push(&mut nodes, Some(li), 1, "::marker");
            nodes[marker].pseudo = Some("marker".into());
            let a = push(&mut nodes, Some(li), 1, "A");
            nodes[a].attributes = vec![("href".into(), format!("#item-{k}"))];
            let text = push(&mut nodes, Some(a), 3, "#text");
            nodes[text].text = Some(format!("Link {k}"));
            extra(&mut nodes, li);
        }
        let by_backend = nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| n.backend.map(|b| (b, i)))
            .collect();
        Dom {
            base_url: "http://x/dir/links.html".into(),
            nodes,
            by_backend,
        }
    }

    #[test]
    fn a_big_list_of_plain_links_is_read_down_to_its_items() {
        // Root 0, main 1, list 2, items 3; `<html>` and `<body>` are ignored.
        assert_eq!(depth(&list(600, |_, _| {})), Some(3));
        // Too few leaves below: read whole.
        assert_eq!(depth(&list(100, |_, _| {})), None);
    }

    #[test]
    fn what_the_dom_does_not_say_is_read_however_deep() {
        // A check box of ARIA in every item: its text must come from Chromium.
        let with_boxes = list(600, |nodes, li| {
            let b = nodes.len();
            nodes.push(DomNode {
                backend: Some(b as i64 + 1),
                parent: Some(li),
                kind: 1,
                name: "SPAN".into(),
                attributes: vec![("role".into(), "checkbox".into())],
                laid_out: true,
                visibility: "visible".into(),
                ..DomNode::default()
            });
            nodes[li].children.push(b);
            nodes.push(DomNode {
                backend: Some(b as i64 + 2),
                parent: Some(b),
                kind: 3,
                name: "#text".into(),
                laid_out: true,
                visibility: "visible".into(),
                text: Some("Select".into()),
                ..DomNode::default()
            });
            nodes[b].children.push(b + 1);
        });
        // The box's text is at depth 5, below the links (4): nothing left out.
        assert_eq!(depth(&with_boxes), None);
        // An editable page is read whole.
        let mut editable = list(600, |_, _| {});
        editable.nodes[3].attributes = vec![("contenteditable".into(), "true".into())];
        assert_eq!(depth(&editable), None);
    }

    #[test]
    fn a_snapshot_whose_parents_do_not_come_first_is_no_panic() {
        let mut dom = list(600, |_, _| {});
        dom.nodes[7].parent = Some(999_999);
        dom.nodes[9].parent = Some(12);
        assert_eq!(depth(&dom), Some(3));
    }

    fn ax(id: usize, role: &str, children: &[usize], focused: bool) -> AxNode {
        AxNode {
            id: id.to_string(),
            role: Some(string(role)),
            children: children.iter().map(usize::to_string).collect(),
            backend: Some(id as i64),
            properties: focused
                .then(|| AxProperty {
                    name: "focused".into(),
                    value: AxValue {
                        value: Some(Value::Bool(true)),
                        ..AxValue::default()
                    },
                })
                .into_iter()
                .collect(),
            ..AxNode::default()
        }
    }

    #[test]
    fn the_leaves_below_the_depth_read_are_made_from_the_dom() {
        let dom = list(2, |_, _| {});
        // Backend ids: li 6 (marker 7, link 8, text 9), li 10 (11, 12, 13).
        let mut nodes = vec![
            ax(1, "RootWebArea", &[4], true),
            ax(4, "main", &[5], false),
            ax(5, "list", &[6, 10], false),
            ax(6, "listitem", &[7, 8], false),
            ax(10, "listitem", &[11, 12], false),
        ];
        assert_eq!(complete(&mut nodes, &dom, Focus::On(1)), Ok(4));
        let link = &nodes[5];
        assert_eq!(link.id, "8");
        assert_eq!(link.parent.as_deref(), Some("6"));
        assert_eq!(AxValue::text(&link.role), "link");
        assert_eq!(AxValue::text(&link.name), "Link 1");
        assert_eq!(link.children, vec!["9".to_owned()]);
        let url = link.properties.iter().find(|p| p.name == "url");
        assert_eq!(
            url.map(|p| AxValue::text(&Some(p.value.clone()))),
            Some("http://x/dir/links.html#item-1".to_owned())
        );
        let text = &nodes[6];
        assert_eq!((text.id.as_str(), text.parent.as_deref()), ("9", Some("8")));
        assert_eq!(AxValue::text(&text.role), "StaticText");
        assert_eq!(AxValue::text(&text.name), "Link 1");
    }

    #[test]
    fn a_focused_link_made_here_says_so() {
        let dom = list(2, |_, _| {});
        // The document says it has the focus; the link holds it.
        let mut nodes = vec![
            ax(1, "RootWebArea", &[4], true),
            ax(4, "main", &[5], false),
            ax(5, "list", &[6, 10], false),
            ax(6, "listitem", &[7, 8], false),
            ax(10, "listitem", &[11, 12], false),
        ];
        assert_eq!(complete(&mut nodes, &dom, Focus::On(12)), Ok(4));
        let focused: Vec<&str> = nodes
            .iter()
            .filter(|n| is_focused(n))
            .map(|n| n.id.as_str())
            .collect();
        assert_eq!(focused, vec!["1", "12"]);
        // A page without the focus: none.
        let mut unfocused = nodes[..5].to_vec();
        unfocused[0].properties.clear();
        assert_eq!(complete(&mut unfocused, &dom, Focus::Nowhere), Ok(4));
        assert!(!unfocused.iter().any(is_focused));
    }

    #[test]
    fn an_answer_that_does_not_check_out_asks_for_the_whole_tree() {
        let dom = list(2, |_, _| {});
        let answer = |focused| {
            vec![
                ax(1, "RootWebArea", &[4], focused),
                ax(4, "main", &[5], false),
                ax(5, "list", &[6, 10], false),
                ax(6, "listitem", &[7, 8], false),
                ax(10, "listitem", &[11, 12], false),
            ]
        };
        // Where the focus is is not known, or Chromium says it is on a node
        // read but the node does not say so, or on one neither read nor made.
        assert!(complete(&mut answer(true), &dom, Focus::Unknown).is_err());
        assert!(complete(&mut answer(true), &dom, Focus::On(6)).is_err());
        assert!(complete(&mut answer(true), &dom, Focus::On(7)).is_err());
        assert_eq!(complete(&mut answer(true), &dom, Focus::On(1)), Ok(4));
        // A list item not given: the DOM does not say what it is.
        let mut cut = answer(true);
        cut.truncate(4);
        assert!(complete(&mut cut, &dom, Focus::On(1)).is_err());
        // A node not named by its DOM node.
        let mut renamed = answer(true);
        renamed[1].id = "40".into();
        assert!(complete(&mut renamed, &dom, Focus::On(1)).is_err());
    }
}
