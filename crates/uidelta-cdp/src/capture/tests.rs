use super::*;
use uidelta_model::{Rect, StateSet};

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
    nodes(page_json())
}

/// [`page`] as the answer's JSON.
fn page_json() -> Value {
    json!([
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
    ])
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
        from_dom: 0,
        read_twice: false,
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
    // The same answer as text reads the same.
    let text = json!({"id": 3, "result": answer, "sessionId": "S"}).to_string();
    assert_eq!(Layout::from_snapshot_text(&text, (0.0, 0.0)), l);
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

#[test]
fn an_answer_read_as_text_gives_the_tree_read_as_json() {
    let info = frame("main", "L1", "http://x/form.html");
    let json = FrameNodes::from_answer(info.clone(), json!({"nodes": page_json()})).unwrap();
    let text = json!({"id": 7, "result": {"nodes": page_json()}, "sessionId": "S"}).to_string();
    let read = FrameNodes::from_raw(info, Raw::Text(text.as_str().into())).unwrap();
    let opts = CaptureOptions::default();
    let from_json = assemble(&[json], &[layout()], &opts);
    let from_text = assemble(&[read], &[layout()], &opts);
    assert_eq!(
        outline(&from_text.0)[..3],
        [
            "document web \"Form page\"",
            "  heading \"Order\"",
            "  paragraph \"Ready\""
        ]
    );
    assert_eq!(from_text, from_json);
}

#[test]
fn odd_entries_of_a_dom_snapshot_cost_only_themselves() {
    // A string where a box is, `null` attributes, a backend id that is not
    // a number, a string index that is a string, a document whose nodes
    // are a number: the rest still reads, from text as from JSON.
    let answer = json!({
        "strings": ["#document", "DIV", "id", "x", 7, "visible", "A", "href", "#k", "Link", "#text"],
        "documents": [
            {"baseURL": 8,
             "nodes": {"backendNodeId": [1, 2, "three", 4, 5], "nodeName": [0, 1, 1, 6, 10],
                       "parentIndex": [-1, 0, 0, 0, 3], "nodeType": [9, 1, 1, 1, 3],
                       "attributes": [null, [2, 3], [2, "x"], [7, 8], []]},
             "layout": {"nodeIndex": [1, 2, 3, 4],
                        "bounds": ["wide", [0, 10, 50, 20], [0, 30, 40, 20], [1, 31, 38, 18]],
                        "text": [-1, -1, -1, 9], "styles": [[5], [5], [5], 5]}},
            {"nodes": 12, "layout": {"nodeIndex": [0], "bounds": [[0, 0, 1, 1]]}}
        ]
    });
    let text = json!({"id": 1, "result": answer}).to_string();
    let l = Layout::from_snapshot_text(&text, (0.0, 0.0));
    assert_eq!(l, Layout::from_snapshot_at(&answer, (0.0, 0.0)));
    assert!(l.known);
    // The box that is a string is left out; the others are read.
    assert_eq!(l.bounds.get(&2), None);
    assert_eq!(l.bounds.get(&4), Some(&Rect::new(0, 30, 40, 20)));
    assert_eq!(l.bounds.len(), 2, "{:?}", l.bounds);
    let dom = &l.dom;
    assert_eq!(dom.nodes.len(), 5);
    assert_eq!(dom.nodes[2].backend, None);
    assert_eq!(
        dom.nodes[1].attributes,
        vec![("id".to_owned(), "x".to_owned())]
    );
    assert_eq!(
        dom.nodes[2].attributes,
        vec![("id".to_owned(), String::new())]
    );
    assert_eq!(dom.nodes[3].attribute("href"), Some("#k"));
    assert_eq!(dom.nodes[4].text.as_deref(), Some("Link"));
    assert_eq!(dom.nodes[4].visibility, "");
    assert_eq!(dom.nodes[3].visibility, "visible");
    assert_eq!(dom.nodes[3].children, vec![4]);
    assert_eq!(dom.by_backend.get(&5), Some(&4));
}

#[test]
fn a_node_out_of_sight_with_no_state_says_it_has_none() {
    let mut b = TreeBuilder::new(NodeData::new(Role::DocumentWeb));
    // A disabled button without a box: no state at all.
    b.leaf(NodeData::new(Role::PushButton));
    let mut t = b.finish();
    mark_showing(&mut t, &[true, false], &[false, false], true);
    assert_eq!(t.node(NodeId(1)).states, StateSet::REPORTED_NONE);
    assert!(t.node(NodeId(1)).states.says_hidden());
    assert!(t.node(NodeId::ROOT).states.contains(State::Showing));
}
