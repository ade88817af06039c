//! Captures through a page's live mirror: after each kind of change, the
//! tree read again in part equals a whole read, node for node (bounds
//! aside), and only what changed was read.

mod common;

use common::{all_text, browser, capture, find, fixtures, has, has_text, open, outline, pages};
use uidelta_backend::Backend;
use uidelta_cdp::MirrorUse;
use uidelta_model::{Role, State};

/// Runs `script` in the page, then captures: strict, so a capture through
/// the mirror that differs from a whole read fails. Returns the snapshot
/// and whether it was read through the mirror, with how many nodes.
async fn after(
    cdp: &uidelta_cdp::Cdp,
    app: &uidelta_backend::App,
    script: &str,
) -> (uidelta_model::Snapshot, bool, usize) {
    // In a block: each step's names are its own.
    cdp.evaluate(&app.id, &format!("{{ {script} }}"))
        .await
        .unwrap_or_else(|e| panic!("running {script}: {e}"));
    let snap = capture(cdp, app).await;
    let read = cdp.last_capture();
    (snap, read.through_mirror, read.read_from_chromium)
}

/// Clicks `node` (the pointer stays over it), then captures, as [`after`].
async fn clicked(
    cdp: &uidelta_cdp::Cdp,
    app: &uidelta_backend::App,
    node: &uidelta_model::NodeData,
) -> (uidelta_model::Snapshot, bool, usize) {
    cdp.act(app, node, &uidelta_backend::Action::Click)
        .await
        .unwrap_or_else(|e| panic!("clicking {:?}: {e}", node.name));
    let snap = capture(cdp, app).await;
    let read = cdp.last_capture();
    (snap, read.through_mirror, read.read_from_chromium)
}

/// Adds an item `Added` to the list of `links.html`.
const ADD_ITEM: &str = "const li = document.createElement('li'); li.textContent = 'Added'; \
                        document.getElementById('links').append(li)";

/// A change: what, the script making it, and what the tree shows after.
type Step = (
    &'static str,
    &'static str,
    fn(&uidelta_model::Snapshot) -> bool,
);

/// Logs to the test's output with `RUST_LOG`.
fn logs() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
}

/// A browser of the test's own whose captures use the pages' mirrors as
/// `how` says (logging with `RUST_LOG`).
async fn browser_with(how: MirrorUse) -> uidelta_cdp::Cdp {
    logs();
    let mut cdp = browser().await;
    cdp.set_mirror_use(how);
    cdp
}

/// Opens `url` with its events, which bring the change script a mirror
/// needs, and captures it once (a whole read that starts the mirror).
async fn observed(
    cdp: &uidelta_cdp::Cdp,
    url: &str,
) -> (
    uidelta_backend::App,
    uidelta_backend::EventStream,
    uidelta_model::Snapshot,
) {
    let app = open(cdp, url).await;
    let events = cdp.events(&app).await.expect("the tab's events");
    let first = capture(cdp, &app).await;
    assert!(!cdp.last_capture().through_mirror);
    (app, events, first)
}

#[tokio::test]
async fn each_kind_of_change_is_read_in_part_and_equals_a_whole_read() {
    let server = pages();
    let cdp = browser_with(MirrorUse::Strict).await;
    let (app, _events, first) = observed(&cdp, &server.url("changes.html")).await;
    assert!(has(&first, Role::ListItem, "Second"), "{}", outline(&first));

    let steps: &[Step] = &[
        (
            "an item inserted",
            "const li = document.createElement('li'); li.textContent = 'Zeroth'; \
             list.prepend(li)",
            |s| has(s, Role::ListItem, "Zeroth"),
        ),
        ("an item removed", "list.children[2].remove()", |s| {
            !has(s, Role::ListItem, "Second") && has(s, Role::ListItem, "Third")
        }),
        (
            "a text changed inside a button",
            "document.getElementById('save-text').firstChild.data = 'Keep'",
            |s| has(s, Role::PushButton, "Keep draft"),
        ),
        (
            "a label's text changed",
            "document.getElementById('name-label').textContent = 'Full name'",
            |s| has(s, Role::Entry, "Full name"),
        ),
        (
            "a box checked",
            "document.getElementById('agree').click()",
            |s| {
                find(s, Role::CheckBox, "Agree")
                    .states
                    .contains(State::Checked)
            },
        ),
        (
            "the other radio button of a group",
            "document.querySelector('input[value=l]').click()",
            |s| {
                find(s, Role::RadioButton, "Large")
                    .states
                    .contains(State::Checked)
                    && !find(s, Role::RadioButton, "Small")
                        .states
                        .contains(State::Checked)
            },
        ),
        (
            "a hidden part shown",
            "document.getElementById('later').hidden = false",
            |s| has(s, Role::PushButton, "Later button") && has_text(s, "Shown later"),
        ),
        (
            "a value typed",
            "const f = document.getElementById('name'); f.focus(); f.value = 'Ada'; \
             f.dispatchEvent(new Event('input', {bubbles: true}))",
            |s| {
                let f = find(s, Role::Entry, "Full name");
                f.value.as_deref() == Some("Ada") && f.states.contains(State::Focused)
            },
        ),
        (
            "an ARIA state",
            "document.getElementById('power').setAttribute('aria-checked', 'true')",
            |s| {
                s.tree()
                    .nodes()
                    .iter()
                    .any(|n| n.name == "Power" && n.states.contains(State::Checked))
            },
        ),
        (
            "a class that hides a section",
            "document.getElementById('box').className = 'gone'",
            |s| !has_text(s, "In the box"),
        ),
        (
            "a described field's description changed",
            "document.getElementById('hint-span').firstChild.data = 'Two words'",
            |s| find(s, Role::Entry, "Code").description == "Two words",
        ),
        (
            "a label removed",
            "document.getElementById('name-label').remove()",
            |s| !has(s, Role::Entry, "Full name"),
        ),
        (
            "a select box in a shadow root chosen",
            "const sel = document.getElementById('host').shadowRoot.querySelector('select'); \
             sel.value = 'b'; sel.dispatchEvent(new Event('change'))",
            |s| find(s, Role::ComboBox, "Flavour").value.as_deref() == Some("Banana"),
        ),
        (
            "a shadow root made from markup",
            "document.getElementById('host2').setHTMLUnsafe('<p><template \
             shadowrootmode=\"open\"><label>Tea <select><option value=\"g\">Green</option>\
             <option value=\"b\">Black</option></select></label></template></p>')",
            |s| find(s, Role::ComboBox, "Tea").value.as_deref() == Some("Green"),
        ),
        (
            "a select box in it chosen",
            "const sel = document.querySelector('#host2 p').shadowRoot.querySelector('select'); \
             sel.value = 'b'; sel.dispatchEvent(new Event('change'))",
            |s| find(s, Role::ComboBox, "Tea").value.as_deref() == Some("Black"),
        ),
        ("the title", "document.title = 'Changed'", |s| {
            s.tree().node(uidelta_model::NodeId::ROOT).name == "Changed"
        }),
    ];
    for (what, script, holds) in steps {
        // What came in the last second is read again anyway (it may still
        // settle): a step about a node that came just before waits that out,
        // so that only the change itself can tell the mirror.
        if what.ends_with("in it chosen") {
            tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        }
        let (snap, mirrored, nodes) = after(&cdp, &app, script).await;
        assert!(holds(&snap), "{what}: {}", outline(&snap));
        assert!(mirrored, "{what}: read whole");
        assert!(nodes < 40, "{what}: {nodes} nodes read again");
    }
    // Nothing changed: the root alone is read again, once what came in
    // the last second has settled (it is read again until then).
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (_, mirrored, nodes) = after(&cdp, &app, "0").await;
    assert!(mirrored);
    assert_eq!(nodes, 1);
}

#[tokio::test]
async fn what_the_script_cannot_vouch_for_is_read_whole() {
    let server = pages();
    let cdp = browser_with(MirrorUse::Strict).await;
    let (app, _events, _) = observed(&cdp, &server.url("changes.html")).await;
    // A style rule that shows by state changes the tree without a mutation.
    let (_, mirrored, _) = after(
        &cdp,
        &app,
        "const s = document.createElement('style'); \
         s.textContent = 'li:hover + li { display: none }'; document.head.append(s)",
    )
    .await;
    assert!(!mirrored);
    let (_, mirrored, _) = after(
        &cdp,
        &app,
        "document.querySelector('style:last-of-type').remove()",
    )
    .await;
    assert!(!mirrored, "the rule was there when the changes were taken");
    let (_, mirrored, _) = after(&cdp, &app, "0").await;
    assert!(mirrored);
    // More changes than the script keeps.
    let (snap, mirrored, _) = after(
        &cdp,
        &app,
        "for (let k = 0; k < 300; k++) { const li = document.createElement('li'); \
         li.textContent = 'Item ' + k; list.append(li); li.dataset.k = k }",
    )
    .await;
    assert!(!mirrored);
    assert!(has(&snap, Role::ListItem, "Item 299"));
    // A new document.
    cdp.evaluate(&app.id, "location.reload()")
        .await
        .expect("reloading");
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let snap = capture(&cdp, &app).await;
    assert!(!cdp.last_capture().through_mirror);
    assert!(!has(&snap, Role::ListItem, "Item 299"));
}

#[tokio::test]
async fn one_item_added_to_ten_thousand_links_is_read_alone() {
    let server = fixtures();
    let cdp = browser_with(MirrorUse::Strict).await;
    let (app, _events, first) = observed(&cdp, &server.url("links.html")).await;
    assert!(first.tree().len() > 10_000);
    let (snap, mirrored, nodes) = after(
        &cdp,
        &app,
        "const li = document.createElement('li'); const a = document.createElement('a'); \
         a.href = '#new'; a.textContent = 'New link'; li.append(a); \
         document.getElementById('links').prepend(li)",
    )
    .await;
    assert!(mirrored);
    assert!(has(&snap, Role::Link, "New link"));
    assert!(nodes < 10, "{nodes} nodes read again");
    assert_eq!(snap.tree().len(), first.tree().len() + 2);
}

#[tokio::test]
async fn small_pages_are_read_whole_and_big_ones_through_the_mirror() {
    let server = fixtures();
    let cdp = browser_with(MirrorUse::On).await;
    let (small, _small_events, _) = observed(&cdp, &server.url("links.html?n=20")).await;
    let (snap, mirrored, _) = after(&cdp, &small, ADD_ITEM).await;
    assert!(!mirrored);
    assert_eq!(cdp.last_capture().why_whole, "small");
    assert!(has(&snap, Role::ListItem, "Added"));

    let (big, _big_events, _) = observed(&cdp, &server.url("links.html?n=1000")).await;
    let (snap, mirrored, nodes) = after(&cdp, &big, ADD_ITEM).await;
    assert!(mirrored, "{}", cdp.last_capture().why_whole);
    assert!(nodes < 10, "{nodes} nodes read again");
    assert!(has(&snap, Role::ListItem, "Added"));
}

#[tokio::test]
async fn style_rules_by_state_and_by_sibling_are_followed_in_part() {
    let server = pages();
    let cdp = browser_with(MirrorUse::Strict).await;
    let (app, _events, first) = observed(&cdp, &server.url("states.html")).await;
    assert!(!has(&first, Role::ListItem, "Open"), "{}", outline(&first));
    assert!(has_text(&first, "No results"), "{}", outline(&first));

    // The pointer over the menu's first item shows its submenu
    // (`li:hover > .sub`), and leaving it hides it again.
    let file = find(&first, Role::ListItem, "File").clone();
    let (snap, mirrored, nodes) = clicked(&cdp, &app, &file).await;
    assert!(has(&snap, Role::ListItem, "Open"), "{}", outline(&snap));
    assert!(!has(&snap, Role::ListItem, "Undo"), "{}", outline(&snap));
    assert!(
        mirrored,
        "hover: read whole ({})",
        cdp.last_capture().why_whole
    );
    assert!(nodes < 40, "hover: {nodes} nodes read again");
    let heading = find(&snap, Role::Heading, "States").clone();
    let (snap, mirrored, nodes) = clicked(&cdp, &app, &heading).await;
    assert!(!has(&snap, Role::ListItem, "Open"), "{}", outline(&snap));
    assert!(
        mirrored,
        "hover gone: read whole ({})",
        cdp.last_capture().why_whole
    );
    assert!(nodes < 40, "hover gone: {nodes} nodes read again");

    let steps: &[Step] = &[
        (
            "a check box shows what follows it (:checked ~)",
            "document.getElementById('more').click()",
            |s| has_text(s, "Extra details"),
        ),
        (
            "the focus in a form shows its tip (:focus-within)",
            "document.querySelector('#search input').focus()",
            |s| has_text(s, "Press Enter"),
        ),
        (
            "a check box adds generated content (::after)",
            "document.getElementById('bold').click()",
            |s| has_text(s, " (on)"),
        ),
        (
            "an attribute read as its element's own shows a sibling",
            "document.getElementById('toggle').setAttribute('aria-expanded', 'true')",
            |s| has_text(s, "Panel text"),
        ),
        (
            "a list no longer empty hides what follows it (:not(:empty))",
            "const li = document.createElement('li'); li.textContent = 'Found'; \
             document.getElementById('results').append(li)",
            |s| has(s, Role::ListItem, "Found") && !has_text(s, "No results"),
        ),
        (
            "a class on a sibling shows a paragraph (~ by visibility)",
            "document.getElementById('step').className = 'shown'",
            |s| has_text(s, "Step two"),
        ),
        (
            "a rule of a shadow root's own sheet",
            "document.getElementById('host').shadowRoot.getElementById('notes').click()",
            |s| has_text(s, "Shadow note"),
        ),
        (
            "an item appended gives the one before it a separator (:last-child)",
            "const li = document.createElement('li'); li.textContent = 'blue'; \
             document.getElementById('tags').append(li)",
            |s| all_text(s, ", ").len() == 2,
        ),
    ];
    for (what, script, holds) in steps {
        let (snap, mirrored, nodes) = after(&cdp, &app, script).await;
        assert!(holds(&snap), "{what}: {}", outline(&snap));
        assert!(
            mirrored,
            "{what}: read whole ({})",
            cdp.last_capture().why_whole
        );
        assert!(nodes < 40, "{what}: {nodes} nodes read again");
    }
}

#[tokio::test]
async fn style_rules_of_a_sheet_of_another_origin_are_followed_from_its_text() {
    let server = pages();
    let cdp = browser_with(MirrorUse::Strict).await;
    let url = server.url("other-origin.html");
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let app = open(&cdp, &url).await;
    let _events = cdp.events(&app).await.expect("the tab's events");
    // The sheet loads after the page: until then the menu shows.
    let first = common::until(&cdp, &app, "the menu hidden by its sheet", |s| {
        !has(s, Role::ListItem, "Open")
    })
    .await;
    // The capture that saw the sheet unreadable gave the script its text:
    // from the next one on, the page is read in part.
    let (_, mirrored, _) = after(&cdp, &app, "0").await;
    assert!(mirrored, "{}", cdp.last_capture().why_whole);
    let file = find(&first, Role::ListItem, "File").clone();
    let (snap, mirrored, _) = clicked(&cdp, &app, &file).await;
    assert!(has(&snap, Role::ListItem, "Open"), "{}", outline(&snap));
    assert!(mirrored, "{}", cdp.last_capture().why_whole);
}

#[tokio::test]
async fn style_rules_that_cannot_be_followed_read_the_page_whole() {
    let server = pages();
    let cdp = browser_with(MirrorUse::Strict).await;
    let (app, _events, _) = observed(&cdp, &server.url("states.html")).await;
    // A rule inserted into a sheet changes what shows anywhere.
    let (snap, mirrored, _) = after(
        &cdp,
        &app,
        "document.styleSheets[0].insertRule('#top { display: none }', 0)",
    )
    .await;
    assert!(!mirrored);
    assert!(!has(&snap, Role::Heading, "States"), "{}", outline(&snap));
    let (_, mirrored, _) = after(&cdp, &app, "0").await;
    assert!(mirrored, "{}", cdp.last_capture().why_whole);
    // A nested rule by state is not followed: every capture is whole.
    let (_, mirrored, _) = after(
        &cdp,
        &app,
        "const s = document.createElement('style'); \
         s.textContent = '#menu { & li:hover { display: none } }'; document.head.append(s)",
    )
    .await;
    assert!(!mirrored);
    let (_, mirrored, _) = after(&cdp, &app, "0").await;
    assert!(!mirrored);
}
