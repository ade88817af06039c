//! JSON for snapshots and diffs.
//!
//! A snapshot is written in the interchange format (what
//! `uidelta diff before.json after.json` reads) plus a `ref` on every node.
//! A diff follows schema version [`DIFF_SCHEMA`]; see [`diff_json`].

use uidelta_diff::{
    Added, Attr, AttrChange, AttrValue, Change, Diff, Element, Handle, InheritedChange, Modified,
    Refs, Removed, SubtreeNode, View,
};
use uidelta_model::{Meta, Rect, Role};

use crate::json_writer::JsonWriter;
use crate::line::Facts;
use crate::tree::ref_of;

/// Version of the diff JSON schema; bumped on any incompatible change.
pub const DIFF_SCHEMA: u64 = 1;

/// The view as pretty JSON: the snapshot's metadata and its tree, each node
/// with its `ref` and, when known, its platform identity as `id`. Written
/// while walking, so a tree of any depth costs no stack.
///
/// ```text
/// {"source", "app", "pid", "window", "captured_at_ms", "capture_ms",
///  "truncated", "node_count", "root": {"ref", "id", "role", "raw_role",
///  "name", "value", "description", "states", "bounds", "attributes",
///  "children": [...]}}
/// ```
pub fn tree_json(view: &View, refs: &Refs) -> String {
    let mut w = JsonWriter::new();
    w.begin_object();
    meta_fields(&mut w, view.meta(), view.len());
    w.key("root");
    let tree = view.tree();
    // Depth of each node whose "children" array is still open.
    let mut open: Vec<usize> = Vec::new();
    for id in tree.ids() {
        let depth = tree.depth(id);
        close_nodes_from_depth(&mut w, &mut open, depth);
        let node = tree.node(id);
        w.begin_object();
        match ref_of(refs, id) {
            Some(r) => w.key("ref").string(&r.to_string()),
            None => w.key("ref").null(),
        };
        if let Some(identity) = &node.identity {
            w.key("id").string(identity);
        }
        element_fields(&mut w, Facts::from(node));
        w.key("children").begin_array();
        open.push(depth);
    }
    close_nodes_from_depth(&mut w, &mut open, 0);
    w.end_object();
    w.finish()
}

/// Closes the `children` array and the object of every open node at
/// `depth` or deeper: the next node, at `depth`, is not inside them.
fn close_nodes_from_depth(w: &mut JsonWriter, open: &mut Vec<usize>, depth: usize) {
    while open.last().is_some_and(|&d| d >= depth) {
        open.pop();
        w.end_array().end_object();
    }
}

fn meta_fields(w: &mut JsonWriter, meta: &Meta, node_count: usize) {
    w.key("source").string(&meta.source);
    w.key("app").opt_string(meta.app.as_deref());
    w.key("pid").opt_uint(meta.pid.map(u64::from));
    w.key("window").opt_string(meta.window.as_deref());
    w.key("captured_at_ms").opt_uint(meta.captured_at_ms);
    w.key("capture_ms").opt_float(meta.capture_ms);
    w.key("truncated").bool(meta.truncated);
    w.key("node_count").uint(node_count as u64);
}

/// The fields every element has, in tree and diff JSON alike.
fn element_fields(w: &mut JsonWriter, f: Facts<'_>) {
    w.key("role").string(f.role.as_str());
    w.key("raw_role").string(f.raw_role);
    w.key("name").string(f.name);
    w.key("value").opt_string(f.value);
    w.key("description").string(f.description);
    w.key("states")
        .inline_strings(f.states.iter().map(|s| s.as_str()));
    w.key("bounds");
    rect(w, f.bounds);
    w.key("attributes").begin_object();
    for (k, v) in f.attributes {
        w.key(k).string(v);
    }
    w.end_object();
}

fn rect(w: &mut JsonWriter, r: Option<Rect>) {
    match r {
        Some(r) => w.inline_array(&[r.x, r.y, r.w, r.h].map(|n| n.to_string())),
        None => w.null(),
    };
}

/// The diff as pretty JSON, schema version [`DIFF_SCHEMA`]:
///
/// ```text
/// {"schema": 1, "has_changes", "counts": {"added", "removed", "modified"},
///  "focus": {"from": handle|null, "to": handle|null} | null,
///  "settle_ms": n|null, "settle_capped", "truncated", "new_document",
///  "changes": [added | removed | modified], "transient": [element]}
/// handle   = {"ref", "role", "name"}
/// element  = {"ref", "role", "raw_role", "name", "value", "description",
///             "states", "bounds": [x, y, w, h]|null, "attributes"}
/// added    = {"kind": "added", "ref", "parent", "index", "opened": role|null,
///             "group": n|null, "came_back", "context": handle|null,
///             "subtree": [{"depth", ...element}]}
/// removed  = {"kind": "removed", "ref", "parent", "closed": role|null,
///             "group": n|null, "context", "subtree"}
/// modified = {"kind": "modified", "ref", "element", "context",
///             "changes": [{"attr", "old", "new"}],
///             "descendants": [{"ref", "changes"}]}
/// ```
///
/// `attr` is `name`, `value`, `description`, `role`, `bounds`, `position`,
/// `state:<state>` or `attribute:<key>`; `old` and `new` are a string, a
/// bool, `[x, y, w, h]`, an integer, or `null` when absent. Texts are whole,
/// never shortened.
pub fn diff_json(diff: &Diff) -> String {
    let mut w = JsonWriter::new();
    w.begin_object();
    w.key("schema").uint(DIFF_SCHEMA);
    w.key("has_changes").bool(diff.has_changes());
    let counts = diff.counts();
    w.key("counts").begin_object();
    w.key("added").uint(counts.added as u64);
    w.key("removed").uint(counts.removed as u64);
    w.key("modified").uint(counts.modified as u64);
    w.end_object();
    w.key("focus");
    match &diff.focus {
        Some(focus) => {
            w.begin_object();
            w.key("from");
            opt_handle(&mut w, focus.from.as_ref());
            w.key("to");
            opt_handle(&mut w, focus.to.as_ref());
            w.end_object();
        }
        None => {
            w.null();
        }
    }
    w.key("settle_ms").opt_uint(diff.settle_ms);
    w.key("settle_capped").bool(diff.settle_capped);
    w.key("truncated").bool(diff.truncated);
    w.key("new_document").bool(diff.new_document);
    w.key("changes").begin_array();
    for change in &diff.changes {
        match change {
            Change::Added(a) => added(&mut w, a),
            Change::Removed(r) => removed(&mut w, r),
            Change::Modified(m) => modified(&mut w, m),
        }
    }
    w.end_array();
    w.key("transient").begin_array();
    for e in &diff.transient {
        element(&mut w, e);
    }
    w.end_array();
    w.end_object();
    w.finish()
}

fn opt_handle(w: &mut JsonWriter, h: Option<&Handle>) {
    let Some(h) = h else {
        w.null();
        return;
    };
    w.begin_object();
    w.key("ref").string(&h.r#ref.to_string());
    w.key("role").string(h.role.as_str());
    w.key("name").string(&h.name);
    w.end_object();
}

fn opt_role(w: &mut JsonWriter, role: Option<Role>) {
    w.opt_string(role.map(Role::as_str));
}

fn element(w: &mut JsonWriter, e: &Element) {
    w.begin_object();
    w.key("ref").string(&e.r#ref.to_string());
    element_fields(w, Facts::from(e));
    w.end_object();
}

fn root_ref(w: &mut JsonWriter, subtree: &[SubtreeNode]) {
    w.key("ref");
    match subtree.first() {
        Some(root) => w.string(&root.element.r#ref.to_string()),
        None => w.null(),
    };
}

fn subtree(w: &mut JsonWriter, nodes: &[SubtreeNode]) {
    w.key("subtree").begin_array();
    for node in nodes {
        w.begin_object();
        w.key("depth").uint(node.depth as u64);
        w.key("ref").string(&node.element.r#ref.to_string());
        element_fields(w, Facts::from(&node.element));
        w.end_object();
    }
    w.end_array();
}

fn added(w: &mut JsonWriter, a: &Added) {
    w.begin_object();
    w.key("kind").string("added");
    root_ref(w, &a.subtree);
    w.key("parent").string(&a.parent.to_string());
    w.key("index").uint(a.index as u64);
    w.key("opened");
    opt_role(w, a.opened);
    opt_group(w, a.group);
    w.key("came_back").bool(a.came_back);
    w.key("context");
    opt_handle(w, a.context.as_ref());
    subtree(w, &a.subtree);
    w.end_object();
}

fn removed(w: &mut JsonWriter, r: &Removed) {
    w.begin_object();
    w.key("kind").string("removed");
    root_ref(w, &r.subtree);
    w.key("parent").string(&r.parent.to_string());
    w.key("closed");
    opt_role(w, r.closed);
    opt_group(w, r.group);
    w.key("context");
    opt_handle(w, r.context.as_ref());
    subtree(w, &r.subtree);
    w.end_object();
}

fn opt_group(w: &mut JsonWriter, group: Option<usize>) {
    w.key("group");
    match group {
        Some(g) => w.uint(g as u64),
        None => w.null(),
    };
}

fn modified(w: &mut JsonWriter, m: &Modified) {
    w.begin_object();
    w.key("kind").string("modified");
    w.key("ref").string(&m.element.r#ref.to_string());
    w.key("element");
    element(w, &m.element);
    w.key("context");
    opt_handle(w, m.context.as_ref());
    attr_changes(w, &m.changes);
    w.key("descendants").begin_array();
    for d in &m.descendants {
        let InheritedChange {
            r#ref,
            depth,
            element: e,
            changes,
        } = d;
        w.begin_object();
        w.key("ref").string(&r#ref.to_string());
        // What came to show is new to the reader: it is said in full.
        if d.shown() {
            w.key("depth").uint(*depth as u64);
            w.key("element");
            element(w, e);
        }
        attr_changes(w, changes);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

fn attr_changes(w: &mut JsonWriter, changes: &[AttrChange]) {
    w.key("changes").begin_array();
    for c in changes {
        w.begin_object();
        w.key("attr").string(&attr_key(&c.attr));
        w.key("old");
        attr_value(w, &c.old);
        w.key("new");
        attr_value(w, &c.new);
        w.end_object();
    }
    w.end_array();
}

/// The stable JSON name of an attribute; unlike [`Attr::label`] it keeps
/// states and other attributes apart.
fn attr_key(attr: &Attr) -> String {
    match attr {
        Attr::Name => "name".to_owned(),
        Attr::Value => "value".to_owned(),
        Attr::Description => "description".to_owned(),
        Attr::Role => "role".to_owned(),
        Attr::Bounds => "bounds".to_owned(),
        Attr::Position => "position".to_owned(),
        Attr::Parent => "parent".to_owned(),
        Attr::State(s) => format!("state:{}", s.as_str()),
        Attr::Attribute(k) => format!("attribute:{k}"),
    }
}

fn attr_value(w: &mut JsonWriter, v: &AttrValue) {
    match v {
        AttrValue::Absent => w.null(),
        AttrValue::Text(s) => w.string(s),
        AttrValue::Bool(b) => w.bool(*b),
        AttrValue::Rect(r) => {
            rect(w, Some(*r));
            w
        }
        AttrValue::Index(i) => w.uint(*i as u64),
        AttrValue::Place(p) => {
            w.begin_object();
            w.key("ref").string(&p.parent.r#ref.to_string());
            w.key("role").string(p.parent.role.as_str());
            w.key("name").string(&p.parent.name);
            w.key("index").uint(p.index as u64);
            w.end_object();
            w
        }
    };
}
