//! Captures of real pages in headless Chromium.

mod common;

use common::{browser, capture, find, find_text, fixtures, has, has_text, open, outline, pages};
use uidelta_model::{NodeId, Role, State};

#[tokio::test]
async fn a_page_reads_as_roles_names_states_values_and_bounds() {
    let server = pages();
    let cdp = browser().await;
    let url = server.url("widgets.html");
    let app = open(&cdp, &url).await;
    assert_eq!(app.name, "Widgets");
    let snap = capture(&cdp, &app).await;

    assert_eq!(snap.meta.source, "cdp");
    assert_eq!(snap.meta.app.as_deref(), Some("Widgets"));
    assert_eq!(snap.meta.window.as_deref(), Some(url.as_str()));
    assert_eq!(snap.meta.pid, None);
    assert!(!snap.meta.truncated);

    let t = snap.tree();
    let root = t.node(NodeId::ROOT);
    assert_eq!(root.role, Role::DocumentWeb);
    assert_eq!(root.raw_role, "RootWebArea");
    assert_eq!(root.name, "Widgets");
    assert_eq!(root.attribute("url"), Some(url.as_str()));
    assert!(root
        .identity
        .as_deref()
        .is_some_and(|i| i.starts_with("doc:")));

    let heading = find(&snap, Role::Heading, "Widgets");
    assert_eq!(heading.attribute("level"), Some("1"));
    assert_eq!(heading.raw_role, "heading");

    let go = find(&snap, Role::PushButton, "Go");
    assert_eq!(go.raw_role, "button");
    for s in [
        State::Enabled,
        State::Focusable,
        State::Showing,
        State::Visible,
    ] {
        assert!(go.states.contains(s), "Go lacks {s}: {:?}", go.states);
    }
    let b = go.bounds.expect("the button has bounds");
    assert!(b.w > 10 && b.h > 10 && b.x >= 0 && b.y > 0, "{b:?}");
    // Its label text only repeats its name and is left out.
    let go_id = t
        .ids()
        .find(|&id| t.node(id).name == "Go" && t.node(id).role == Role::PushButton);
    assert!(
        go_id.is_some_and(|id| t.children(id).is_empty()),
        "{}",
        outline(&snap)
    );

    let nope = find(&snap, Role::PushButton, "Nope");
    assert!(!nope.states.contains(State::Enabled));
    assert!(!nope.states.contains(State::Sensitive));

    let bold = find(&snap, Role::ToggleButton, "Bold");
    assert!(!bold.states.contains(State::Pressed));

    let name = find(&snap, Role::Entry, "Name");
    assert_eq!(name.value.as_deref(), Some(""));
    assert_eq!(name.attribute("placeholder"), Some("Your name"));
    for s in [
        State::Required,
        State::Editable,
        State::SingleLine,
        State::Focusable,
    ] {
        assert!(name.states.contains(s), "Name lacks {s}: {:?}", name.states);
    }
    // The field's inner editor is not part of the tree.
    let name_id = t
        .ids()
        .find(|&id| t.node(id).name == "Name" && t.node(id).role == Role::Entry);
    assert!(name_id.is_some_and(|id| t.children(id).is_empty()));

    let notes = find(&snap, Role::Entry, "Notes");
    assert_eq!(notes.value.as_deref(), Some("hello"));
    assert!(notes.states.contains(State::MultiLine));

    // A password field's value never leaves the process.
    let pin = find(&snap, Role::Entry, "PIN");
    assert_eq!(pin.attribute("input-type"), Some("password"));
    assert_eq!(pin.value.as_deref(), Some("••••"));

    // A paragraph holding one text and nothing else is named after it: one
    // element, the paragraph, not a paragraph and its text.
    let status = find_text(&snap, "Ready");
    assert_eq!(status.role, Role::Paragraph, "{status:?}");
    assert!(
        status
            .identity
            .as_deref()
            .is_some_and(|i| i.starts_with('n') && !i.contains(":t")),
        "{status:?}"
    );

    // Hidden content is not in the tree; neither are Chromium's text boxes
    // or ignored nodes.
    assert!(!has_text(&snap, "Secret hidden"));
    assert!(!has_text(&snap, "Also hidden"));
    for id in t.ids() {
        let n = t.node(id);
        assert_ne!(n.raw_role, "InlineTextBox");
        assert_ne!(n.raw_role, "none");
        let identity = n.identity.as_deref().unwrap_or_default();
        let backend = identity
            .strip_prefix('n')
            .map(|rest| rest.split(":t").all(|part| part.parse::<u64>().is_ok()))
            .unwrap_or(false);
        assert!(
            backend || (id == NodeId::ROOT && identity.starts_with("doc:")),
            "unexpected identity {identity:?} on {n:?}"
        );
    }

    // Far below the viewport: laid out, so shown, with bounds below it.
    let bottom = find_text(&snap, "Bottom text");
    assert!(bottom.states.contains(State::Showing));
    assert!(bottom.bounds.is_some_and(|b| b.y > 3000));
}

#[tokio::test]
async fn same_process_iframes_are_grafted_under_their_element() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("iframe.html")).await;
    let snap = capture(&cdp, &app).await;
    let t = snap.tree();
    let frame = iframe(&snap, "Inner");
    let inner_doc = t.children(frame)[0];
    let doc = t.node(inner_doc);
    assert_eq!(doc.role, Role::DocumentWeb);
    assert_eq!(
        doc.attribute("url"),
        Some(server.url("inner.html").as_str())
    );
    assert!(doc
        .identity
        .as_deref()
        .is_some_and(|i| i.starts_with("doc:")));
    assert_ne!(doc.identity, t.node(NodeId::ROOT).identity);
    let button = t
        .subtree(inner_doc)
        .find(|&id| t.node(id).role == Role::PushButton && t.node(id).name == "Inner button")
        .unwrap_or_else(|| panic!("no inner button in\n{}", outline(&snap)));
    // Bounds of the frame's content are in the page's viewport: inside the
    // iframe element's box.
    let outer = t.node(frame).bounds.expect("iframe bounds");
    let inner = t.node(button).bounds.expect("inner button bounds");
    assert!(
        inner.x >= outer.x && inner.y >= outer.y,
        "{inner:?} in {outer:?}"
    );
    assert!(inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h);
}

#[tokio::test]
async fn cross_site_iframes_are_read_through_their_own_target_and_grafted() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("iframe.html?cross-site")).await;
    let inner_url = server.url("inner.html").replace("127.0.0.1", "localhost");
    // The frame may still be loading when the page says it is complete.
    let snap = common::until(&cdp, &app, "the cross-site frame's button", |s| {
        has(s, Role::PushButton, "Inner button")
    })
    .await;
    let t = snap.tree();
    let frame = iframe(&snap, "Inner");
    let inner_doc = t.children(frame)[0];
    let doc = t.node(inner_doc);
    assert_eq!(doc.role, Role::DocumentWeb, "{}", outline(&snap));
    assert_eq!(doc.name, "Inner");
    assert_eq!(doc.attribute("url"), Some(inner_url.as_str()));
    assert!(doc
        .identity
        .as_deref()
        .is_some_and(|i| i.starts_with("doc:")));
    assert_ne!(doc.identity, t.node(NodeId::ROOT).identity);
    let under = |role: Role, name: &str| {
        t.subtree(inner_doc)
            .find(|&id| t.node(id).role == role && t.node(id).name == name)
            .unwrap_or_else(|| panic!("no {role} {name:?} in the frame:\n{}", outline(&snap)))
    };
    let heading = under(Role::Heading, "Inner form");
    assert_eq!(t.node(heading).attribute("level"), Some("2"));
    let button = under(Role::PushButton, "Inner button");
    let note = under(Role::Entry, "Note");
    assert_eq!(t.node(note).value.as_deref(), Some(""));
    assert!(t.node(note).states.contains(State::Editable));
    // Backend node ids are per process: the frame's carry its target id.
    let frame_target =
        uidelta_cdp::frame_element(t.node(button).identity.as_deref().expect("identity"))
            .map(|(target, _)| target.to_owned())
            .unwrap_or_else(|| panic!("the button's identity names no frame:\n{}", outline(&snap)));
    for id in [heading, button, note] {
        let identity = t.node(id).identity.as_deref().expect("identity");
        assert!(
            identity.starts_with(&format!("{frame_target}/n")),
            "{identity}"
        );
    }
    for id in t.ids().filter(|&id| !t.subtree(inner_doc).any(|i| i == id)) {
        let identity = t.node(id).identity.as_deref().unwrap_or_default();
        assert!(!identity.contains('/'), "page node {identity}");
    }
    // Bounds are in the page's viewport: inside the iframe element's box.
    let outer = t.node(frame).bounds.expect("iframe bounds");
    for id in [heading, button, note] {
        let inner = t.node(id).bounds.expect("bounds in the frame");
        assert!(
            inner.x > outer.x && inner.y > outer.y,
            "{inner:?} in {outer:?}"
        );
        assert!(
            inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h,
            "{inner:?} in {outer:?}"
        );
        assert!(t.node(id).states.contains(State::Showing));
    }
    assert!(!snap.meta.truncated);
}

#[tokio::test]
async fn cross_site_frames_count_against_the_frame_cap() {
    let server = fixtures();
    let mut cdp = browser().await;
    let app = open(&cdp, &server.url("iframe.html?cross-site")).await;
    common::until(&cdp, &app, "the cross-site frame's button", |s| {
        has(s, Role::PushButton, "Inner button")
    })
    .await;
    cdp.set_capture_options(uidelta_cdp::CaptureOptions {
        max_frames: 1,
        ..uidelta_cdp::CaptureOptions::default()
    });
    let snap = capture(&cdp, &app).await;
    assert!(snap.meta.truncated);
    assert!(has(&snap, Role::Heading, "Outer page"));
    assert!(
        !has(&snap, Role::PushButton, "Inner button"),
        "{}",
        outline(&snap)
    );
}

#[tokio::test]
async fn controls_report_checked_selected_and_values() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("controls.html")).await;
    let snap = capture(&cdp, &app).await;
    let check = find(&snap, Role::CheckBox, "Subscribe to newsletter");
    assert!(check.states.contains(State::Checkable));
    assert!(!check.states.contains(State::Checked));
    let medium = find(&snap, Role::RadioButton, "Medium");
    assert!(medium.states.contains(State::Checked));
    assert!(!find(&snap, Role::RadioButton, "Large")
        .states
        .contains(State::Checked));
    let colour = find(&snap, Role::ComboBox, "Colour");
    assert_eq!(colour.value.as_deref(), Some("Red"));
    assert!(colour.states.contains(State::Expandable));
    assert!(!colour.states.contains(State::Expanded));
    let volume = find(&snap, Role::Slider, "Volume");
    assert_eq!(volume.value.as_deref(), Some("50"));
    assert_eq!(volume.attribute("valuemax"), Some("100"));
    let red = find(&snap, Role::ListItem, "Red");
    assert!(red.states.contains(State::Selected));
    // Options of a closed list are not laid out.
    assert!(!red.states.contains(State::Showing));
}

#[tokio::test]
async fn list_markers_are_left_out_and_the_current_link_is_marked() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("list.html")).await;
    let snap = capture(&cdp, &app).await;
    let t = snap.tree();
    assert!(has_text(&snap, "Result 1"), "{}", outline(&snap));
    for id in t.ids() {
        assert_ne!(t.node(id).raw_role, "ListMarker");
        assert_ne!(t.node(id).name.trim(), "•", "{}", outline(&snap));
    }
    let app = open(&cdp, &server.url("spa.html")).await;
    let snap = capture(&cdp, &app).await;
    assert_eq!(
        find(&snap, Role::Link, "Home").attribute("current"),
        Some("page")
    );
    assert_eq!(
        find(&snap, Role::Link, "Products").attribute("current"),
        None
    );
}

#[tokio::test]
async fn caps_cut_the_tree_and_the_snapshot_says_so() {
    let server = pages();
    let mut cdp = browser().await;
    let app = open(&cdp, &server.url("widgets.html")).await;
    let whole = capture(&cdp, &app).await;
    assert!(!whole.meta.truncated);
    cdp.set_capture_options(uidelta_cdp::CaptureOptions {
        max_nodes: 10,
        ..uidelta_cdp::CaptureOptions::default()
    });
    let cut = capture(&cdp, &app).await;
    assert!(cut.meta.truncated);
    assert_eq!(cut.node_count(), 10);
    cdp.set_capture_options(uidelta_cdp::CaptureOptions {
        max_depth: 1,
        ..uidelta_cdp::CaptureOptions::default()
    });
    let shallow = capture(&cdp, &app).await;
    assert!(shallow.meta.truncated);
    let t = shallow.tree();
    assert!(t.ids().all(|id| t.depth(id) <= 1));
    assert!(shallow.node_count() < whole.node_count());
}

#[tokio::test]
async fn a_page_of_twenty_thousand_elements_is_read_whole() {
    // 3,000 rows of a link, a button and a check box: 21,000 elements kept
    // (rows, cells and controls), over 40,000 accessibility nodes.
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("table.html?rows=3000")).await;
    let snap = capture(&cdp, &app).await;
    assert!(!snap.meta.truncated);
    let t = snap.tree();
    let count = |role: Role| t.ids().filter(|&id| t.node(id).role == role).count();
    assert_eq!(count(Role::CheckBox), 3000);
    assert_eq!(count(Role::PushButton), 3000);
    assert_eq!(count(Role::Link), 3000);
    let last = find(&snap, Role::CheckBox, "Select 3000");
    assert!(!last.states.contains(State::Checked));
    assert!(last.bounds.is_some_and(|b| b.w > 0 && b.h > 0), "{last:?}");
    assert!(snap.node_count() > 21_000, "{}", snap.node_count());
}

/// The `<iframe>` element named `name` in `snap`.
fn iframe(snap: &uidelta_model::Snapshot, name: &str) -> NodeId {
    let t = snap.tree();
    t.ids()
        .find(|&id| t.node(id).role == Role::InternalFrame && t.node(id).name == name)
        .unwrap_or_else(|| panic!("no iframe {name:?} in\n{}", outline(snap)))
}

/// The first node where two trees differ, with its path, or `None`.
fn first_difference(a: &uidelta_model::Snapshot, b: &uidelta_model::Snapshot) -> Option<String> {
    let (ta, tb) = (a.tree(), b.tree());
    let (ia, ib): (Vec<NodeId>, Vec<NodeId>) = (ta.ids().collect(), tb.ids().collect());
    for (k, (&x, &y)) in ia.iter().zip(&ib).enumerate() {
        let (na, nb) = (ta.node(x), tb.node(y));
        let parents = (
            ta.parent(x).map(NodeId::index),
            tb.parent(y).map(NodeId::index),
        );
        if na != nb || parents.0 != parents.1 {
            return Some(format!(
                "node {k}: {na:?} under {:?}\nagainst {nb:?} under {:?}",
                parents.0, parents.1
            ));
        }
    }
    (ia.len() != ib.len()).then(|| format!("{} nodes against {}", ia.len(), ib.len()))
}

#[tokio::test]
async fn leaves_made_from_the_dom_snapshot_equal_chromiums_own() {
    // Each page captured twice, the usual way (the leaves the DOM snapshot
    // gives are made from it) and with the whole accessibility tree read
    // from Chromium: the trees must be the same node for node.
    let fixtures_server = fixtures();
    let pages_server = pages();
    let mut cdp = browser().await;
    let urls = [
        fixtures_server.url("links.html?n=2000"),
        fixtures_server.url("table.html?rows=600"),
        fixtures_server.url("nav-a.html"),
        fixtures_server.url("list.html"),
        fixtures_server.url("form.html"),
        fixtures_server.url("controls.html"),
        fixtures_server.url("dialog.html"),
        fixtures_server.url("iframe.html"),
        pages_server.url("leaves.html"),
        pages_server.url("leaves.html?n=4000"),
        pages_server.url("widgets.html"),
        pages_server.url("regions.html"),
        pages_server.url("regions.html?live"),
        pages_server.url("regions.html?status"),
        pages_server.url("regions.html?disabled"),
        pages_server.url("regions.html?busy"),
        pages_server.url("regions.html?invalid"),
        pages_server.url("regions.html?fieldset"),
        pages_server.url("regions.html?menu"),
        pages_server.url("regions.html?base"),
        pages_server.url("regions.html?spaced"),
        pages_server.url("regions.html?hidden"),
        pages_server.url("regions.html?before"),
        pages_server.url("regions.html?bad"),
        pages_server.url("regions.html?select"),
        pages_server.url("regions.html?field"),
        pages_server.url("regions.html?br"),
    ];
    let whole_tree = |whole_tree| uidelta_cdp::CaptureOptions {
        whole_tree,
        ..uidelta_cdp::CaptureOptions::default()
    };
    let mut made_from_dom = Vec::new();
    for url in &urls {
        let app = open(&cdp, url).await;
        cdp.set_capture_options(whole_tree(false));
        let pruned = capture(&cdp, &app).await;
        made_from_dom.push((url.clone(), cdp.last_capture().made_from_dom));
        // The depth asked covered all that the DOM does not say (a select box's
        // pop-up and a text field's inner editor are not in the DOM snapshot).
        assert!(!cdp.last_capture().read_twice, "{url}");
        cdp.set_capture_options(whole_tree(true));
        let whole = capture(&cdp, &app).await;
        assert_eq!(cdp.last_capture().made_from_dom, 0);
        assert!(!whole.meta.truncated && !pruned.meta.truncated, "{url}");
        if let Some(difference) = first_difference(&pruned, &whole) {
            panic!("{url}: {difference}");
        }
    }
    // Where the DOM gave leaves: the big lists of plain links and texts;
    // not the small pages, which are read whole.
    let made = |page: &str| {
        made_from_dom
            .iter()
            .find(|(url, _)| url.ends_with(page))
            .map(|&(_, n)| n)
    };
    assert_eq!(made("links.html?n=2000"), Some(4000), "{made_from_dom:?}");
    // The text of each row's link and button.
    assert_eq!(made("table.html?rows=600"), Some(1200), "{made_from_dom:?}");
    assert!(
        made("leaves.html?n=4000").is_some_and(|n| n > 1000),
        "{made_from_dom:?}"
    );
    assert_eq!(made("nav-a.html"), Some(0), "{made_from_dom:?}");
    assert_eq!(made("leaves.html"), Some(0), "{made_from_dom:?}");
    // Links in a disabled region are disabled, which the DOM of the link
    // does not say: read from Chromium.
    assert_eq!(made("regions.html?disabled"), Some(0), "{made_from_dom:?}");
    assert_eq!(made("regions.html"), Some(3000), "{made_from_dom:?}");
    assert_eq!(made("regions.html?base"), Some(3000), "{made_from_dom:?}");
    // Spaces of the source between elements, and a menu of `display: none`
    // as deep as the links, have no node in the tree.
    assert_eq!(made("regions.html?spaced"), Some(3000), "{made_from_dom:?}");
    assert_eq!(made("regions.html?hidden"), Some(3000), "{made_from_dom:?}");
    // A link whose address does not parse is read from Chromium, and the
    // links as deep as it with it: only their text is made.
    assert_eq!(made("regions.html?bad"), Some(1500), "{made_from_dom:?}");
}

#[tokio::test]
async fn a_clicked_link_made_from_the_dom_snapshot_is_focused_as_in_chromiums_tree() {
    // A click on a link keeps the focus on it; the link is one of the leaves
    // made from the DOM snapshot, and Chromium says where the focus is.
    let server = fixtures();
    let mut cdp = browser().await;
    let app = open(&cdp, &server.url("links.html?n=2000")).await;
    let before = capture(&cdp, &app).await;
    let link = find(&before, Role::Link, "Link 5").clone();
    assert!(!link.states.contains(State::Focused));
    uidelta_backend::Backend::act(&cdp, &app, &link, &uidelta_backend::Action::Click)
        .await
        .expect("clicking Link 5");
    let pruned = capture(&cdp, &app).await;
    assert_eq!(cdp.last_capture().made_from_dom, 4000);
    assert!(
        find(&pruned, Role::Link, "Link 5")
            .states
            .contains(State::Focused),
        "{}",
        outline(&pruned)
    );
    cdp.set_capture_options(uidelta_cdp::CaptureOptions {
        whole_tree: true,
        ..uidelta_cdp::CaptureOptions::default()
    });
    let whole = capture(&cdp, &app).await;
    if let Some(difference) = first_difference(&pruned, &whole) {
        panic!("{difference}");
    }
}
