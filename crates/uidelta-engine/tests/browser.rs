//! The engine on real pages in headless Chromium: the test pages of
//! `fixtures/web`, and one page nobody here wrote (`chrome://settings`).
//! Each action's diff names exactly the elements that changed, with their
//! old and new values, and nothing else.
//!
//! Every test starts a browser of its own, so they run in parallel. A
//! missing Chromium fails them with the command that installs it. They run
//! on a multi-threaded runtime, as the MCP server does, so that diffing on
//! one thread does not hold up the backend's event stream on another.

mod common;

use std::sync::Arc;
use std::time::Duration;

use uidelta_backend::{Action, Backend, MirrorUse, Navigate};
use uidelta_cdp::{Cdp, LaunchOptions, INSTALL_HINT};
use uidelta_diff::{Added, Attr, AttrValue, Change, Diff, Modified, Removed};
use uidelta_engine::{ActOptions, ActionOutcome, Condition, Session};
use uidelta_model::{Role, State};
use uidelta_testkit::web::{fixtures_dir, Server};

/// One browser with one tab open and observed by a fresh session.
struct Tab {
    session: Session<Cdp>,
    /// The tab's target id: its title changes, its id does not.
    id: String,
    /// Serves the fixture pages for as long as the tab lives.
    _server: Option<Server>,
}

impl Tab {
    /// Opens `page` of `fixtures/web`.
    async fn fixture(page: &str) -> Tab {
        let server = Server::start(&fixtures_dir()).expect("serving fixtures/web");
        let url = server.url(page);
        Tab::open(&url, Some(server)).await
    }

    /// Opens `page` of `fixtures/web`, read through the page's mirror
    /// after the first capture however small it is, every such read
    /// checked against a whole one (`MirrorUse::Strict`).
    async fn fixture_mirrored(page: &str) -> Tab {
        let server = Server::start(&fixtures_dir()).expect("serving fixtures/web");
        let url = server.url(page);
        Tab::open_with(&url, Some(server), Some(MirrorUse::Strict)).await
    }

    /// Opens `url` (a page no server of ours serves).
    async fn open(url: &str, server: Option<Server>) -> Tab {
        Tab::open_with(url, server, None).await
    }

    /// Opens `url`, with captures using the page's mirror as `mirror_use`
    /// says (by default, as `UIDELTA_MIRROR` does).
    async fn open_with(url: &str, server: Option<Server>, mirror_use: Option<MirrorUse>) -> Tab {
        let mut cdp = match Cdp::launch(LaunchOptions::default()).await {
            Ok(cdp) => cdp,
            Err(e) => {
                panic!("the browser tests need Chromium; install it with `{INSTALL_HINT}`: {e}")
            }
        };
        if let Some(mirror_use) = mirror_use {
            cdp.set_mirror_use(mirror_use);
        }
        let app = cdp
            .open(url, &[], Duration::from_secs(20))
            .await
            .unwrap_or_else(|e| panic!("opening {url}: {e}"));
        let mut session = Session::new(Arc::new(cdp));
        session
            .observe(&app.id)
            .await
            .unwrap_or_else(|e| panic!("observing {url}: {e}"));
        Tab {
            session,
            id: app.id,
            _server: server,
        }
    }

    /// Performs `action` on the one element `selector` names, with the
    /// default settle, and returns what changed.
    async fn act(&mut self, selector: &str, action: Action) -> ActionOutcome {
        self.session
            .act(selector, &action, &ActOptions::default())
            .await
            .unwrap_or_else(|e| panic!("{} `{selector}`: {e}", action.doing()))
    }

    async fn navigate(&mut self, to: Navigate) -> ActionOutcome {
        let id = self.id.clone();
        self.session
            .navigate(&id, &to, &ActOptions::default())
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", to.doing()))
    }

    /// Waits until `selector` matches something in the tab.
    async fn wait_for(&mut self, selector: &str) {
        let id = self.id.clone();
        if let Err(e) = self
            .session
            .wait_for_element(&id, selector, Condition::Appears, Duration::from_secs(20))
            .await
        {
            panic!("waiting for `{selector}`: {e}\n{}", self.tree());
        }
    }

    /// The ref of the one element `selector` matches now.
    fn ref_of(&self, selector: &str) -> String {
        let parsed = selector.parse().expect("selector");
        match self.session.find(&parsed).as_slice() {
            [(scope, node)] => self.session.known_apps()[*scope]
                .refs
                .get(*node)
                .to_string(),
            hits => panic!(
                "`{selector}` matches {} elements in\n{}",
                hits.len(),
                self.tree()
            ),
        }
    }

    /// Where the one element `selector` matches is, as last read (the
    /// viewport's CSS pixels).
    fn bounds_of(&self, selector: &str) -> uidelta_model::Rect {
        let parsed = selector.parse().expect("selector");
        match self.session.find(&parsed).as_slice() {
            [(scope, node)] => self.session.known_apps()[*scope]
                .node(*node)
                .bounds
                .unwrap_or_else(|| panic!("`{selector}` has no bounds")),
            hits => panic!("`{selector}` matches {} elements", hits.len()),
        }
    }

    /// Whether the one element `selector` matches has `state` now.
    fn has(&self, selector: &str, state: State) -> bool {
        let parsed = selector.parse().expect("selector");
        let hits = self.session.find(&parsed);
        let [(scope, node)] = hits.as_slice() else {
            panic!("`{selector}` matches {} elements", hits.len());
        };
        let latest = &self.session.known_apps()[*scope];
        latest.view.tree().node(*node).states.contains(state)
    }

    /// The tab's latest view as text, for failure messages.
    fn tree(&self) -> String {
        let latest = &self.session.known_apps()[0];
        uidelta_render::tree_text(&latest.view, &latest.refs, &Default::default())
    }
}

fn text(d: &Diff) -> String {
    uidelta_render::diff_text(d, &uidelta_render::DiffOptions::default())
}

/// The diff's lines without the header (whose settle time varies).
fn body(a: &ActionOutcome) -> Vec<String> {
    text(&a.diff).lines().skip(1).map(str::to_owned).collect()
}

/// The header without the settle time.
fn header(a: &ActionOutcome) -> String {
    let t = text(&a.diff);
    let first = t.lines().next().unwrap_or_default();
    first
        .split(" · settled")
        .next()
        .unwrap_or_default()
        .to_owned()
}

fn added(d: &Diff) -> Vec<&Added> {
    d.changes
        .iter()
        .filter_map(|c| match c {
            Change::Added(a) => Some(a),
            _ => None,
        })
        .collect()
}

fn removed(d: &Diff) -> Vec<&Removed> {
    d.changes
        .iter()
        .filter_map(|c| match c {
            Change::Removed(r) => Some(r),
            _ => None,
        })
        .collect()
}

fn modified(d: &Diff) -> Vec<&Modified> {
    d.changes
        .iter()
        .filter_map(|c| match c {
            Change::Modified(m) => Some(m),
            _ => None,
        })
        .collect()
}

/// Role and name of each subtree root.
fn roots<'d>(
    subtrees: impl IntoIterator<Item = &'d uidelta_diff::Element>,
) -> Vec<(Role, &'d str)> {
    subtrees
        .into_iter()
        .map(|e| (e.role, e.name.as_str()))
        .collect()
}

/// Lines every diff must be free of: bounds, DOM or accessibility ids.
fn assert_no_noise(a: &ActionOutcome) {
    let t = text(&a.diff);
    for noise in ["@", "bounds", "ax:", "doc:", "backend"] {
        assert!(!t.contains(noise), "`{noise}` in:\n{t}");
    }
}

const DIALOG: [(Role, &str); 5] = [
    (Role::Dialog, "Confirm delete"),
    (Role::Heading, "Confirm delete"),
    (Role::Paragraph, "Delete report.pdf? This cannot be undone."),
    (Role::PushButton, "Cancel"),
    (Role::PushButton, "Delete"),
];

/// What is wrong with the diff of "Open dialog", if anything: it must hold
/// the whole dialog, opened, and only that, with the focus on "Delete".
fn dialog_problem(a: &ActionOutcome) -> Option<String> {
    let d = &a.diff;
    let dialog = added(d)
        .into_iter()
        .find(|a| a.root().role == Role::Dialog && a.root().name == "Confirm delete");
    let Some(dialog) = dialog else {
        return Some("no dialog \"Confirm delete\" was added".into());
    };
    let got: Vec<(Role, &str)> = roots(dialog.subtree.iter().map(|n| &n.element));
    if got != DIALOG {
        return Some(format!("the dialog is not complete: {got:?}"));
    }
    if dialog.opened != Some(Role::Dialog) {
        return Some("the dialog is not marked as opened".into());
    }
    if d.changes.len() != 1 {
        return Some(format!(
            "{} changes besides the dialog",
            d.changes.len() - 1
        ));
    }
    let to = d.focus.as_ref().and_then(|f| f.to.as_ref());
    if !to.is_some_and(|h| h.role == Role::PushButton && h.name == "Delete") {
        return Some(format!("the focus did not move to Delete: {:?}", d.focus));
    }
    if a.settled.capped {
        return Some("the settle cap ended the wait".into());
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_late_dialog_is_complete_in_the_diff_five_times_out_of_five() {
    let mut tab = Tab::fixture("dialog.html").await;
    let open = tab.ref_of("role:push button && name:Open dialog");
    let mut problems = Vec::new();
    for run in 0..5 {
        let opened = tab
            .act("role:push button && name:Open dialog", Action::Click)
            .await;
        assert_no_noise(&opened);
        if let Some(problem) = dialog_problem(&opened) {
            problems.push(format!("run {run}: {problem}:\n{}", text(&opened.diff)));
            // Let the dialog finish opening, to go on with the next run.
            tab.wait_for("role:push button && name:Cancel").await;
        } else {
            let t = text(&opened.diff);
            assert!(
                t.contains("dialog \"Confirm delete\" (modal) (opened)")
                    && t.contains("push button \"Cancel\"")
                    && t.contains("push button \"Delete\" (focused)"),
                "run {run}:\n{t}"
            );
        }
        let dialog = tab.ref_of("role:dialog && name:Confirm delete");
        let closed = tab
            .act("role:push button && name:Cancel", Action::Click)
            .await;
        let gone: Vec<(Role, &str)> = roots(removed(&closed.diff).iter().map(|r| r.root()));
        assert_eq!(
            gone,
            [(Role::Dialog, "Confirm delete")],
            "run {run}:\n{}",
            text(&closed.diff)
        );
        assert_eq!(
            body(&closed),
            [format!(
                "- [{dialog}] dialog \"Confirm delete\" (closed) (and 4 descendants)"
            )],
            "run {run}"
        );
        let back = closed.diff.focus.as_ref().and_then(|f| f.to.as_ref());
        assert_eq!(
            back.map(|h| h.r#ref.to_string()),
            Some(open.clone()),
            "run {run}: the focus should be back on Open dialog:\n{}",
            text(&closed.diff)
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_in_the_dialog_removes_the_file_and_says_so() {
    let mut tab = Tab::fixture("dialog.html").await;
    let item = tab.ref_of("role:list item && name:report.pdf");
    // Focus first, so that the click's own focus change cannot end the
    // wait before the dialog opens (see the test above for that).
    tab.act("role:push button && name:Open dialog", Action::Focus)
        .await;
    let opened = tab
        .act("role:push button && name:Open dialog", Action::Click)
        .await;
    assert_eq!(dialog_problem(&opened), None, "{}", text(&opened.diff));
    let deleted = tab
        .act("role:push button && name:Delete", Action::Click)
        .await;
    let d = &deleted.diff;
    // The status, empty and hidden until now, says it: one line.
    assert!(added(d).is_empty(), "{}", text(d));
    assert!(
        text(d).contains(
            "] status bar | name: \"\" -> \"Deleted report.pdf\" | showing, visible: false -> true\n"
        ),
        "{}",
        text(d)
    );
    let gone = removed(d);
    assert_eq!(gone.len(), 2, "{}", text(d));
    assert!(
        gone.iter().any(|r| r
            .subtree
            .iter()
            .any(|n| n.element.r#ref.to_string() == item)),
        "report.pdf ({item}) should be gone:\n{}",
        text(d)
    );
    assert!(
        gone.iter()
            .any(|r| r.root().role == Role::Dialog && r.closed == Some(Role::Dialog)),
        "{}",
        text(d)
    );
    assert_eq!(d.counts().modified, 1, "{}", text(d));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_into_fields_is_one_value_change_each_and_passwords_stay_secret() {
    let mut tab = Tab::fixture("form.html").await;
    let form = tab.ref_of("role:form && name:Sign up");
    let name = tab.ref_of("role:entry && name:Name");
    let email = tab.ref_of("role:entry && name:Email");
    let password = tab.ref_of("role:entry && name:Password");

    let typed = tab
        .act("role:entry && name:Name", Action::Type("Ada".into()))
        .await;
    assert_no_noise(&typed);
    assert_eq!(
        body(&typed),
        [format!(
            "~ [{name}] entry \"Name\" in [{form}] form \"Sign up\" | value: none -> \"Ada\""
        )],
        "{}",
        text(&typed.diff)
    );
    // Typing gave the field the focus; the agent knows, the diff says nothing.
    assert_eq!(header(&typed), "# diff: ~1 modified");
    // Its text selected, which the next keys would replace: said.
    let all = tab
        .act("role:entry && name:Name", Action::Key("ctrl+a".into()))
        .await;
    assert_eq!(
        body(&all),
        [format!(
            "~ [{name}] entry \"Name\" in [{form}] form \"Sign up\" | selected text: none -> \"Ada\""
        )],
        "{}",
        text(&all.diff)
    );

    let typed = tab
        .act(
            "role:entry && name:Email",
            Action::Type("ada@example.com".into()),
        )
        .await;
    assert_eq!(
        body(&typed),
        [format!(
            "~ [{email}] entry \"Email\" in [{form}] form \"Sign up\" | value: none -> \"ada@example.com\""
        )],
        "{}",
        text(&typed.diff)
    );
    assert_eq!(header(&typed), "# diff: ~1 modified");

    let secret = "hunter2-Secret";
    let typed = tab
        .act("role:entry && name:Password", Action::Type(secret.into()))
        .await;
    let lines = body(&typed);
    assert_eq!(lines.len(), 1, "{}", text(&typed.diff));
    assert!(
        lines[0].starts_with(&format!(
            "~ [{password}] entry \"Password\" in [{form}] form \"Sign up\" | value: none -> "
        )),
        "{}",
        lines[0]
    );
    // Nowhere: not in the text, not in the JSON, not in the snapshot.
    let json = uidelta_render::diff_json(&typed.diff);
    assert!(
        !text(&typed.diff).contains("hunter2"),
        "{}",
        text(&typed.diff)
    );
    assert!(!json.contains("hunter2"), "{json}");
    let snapshot = &tab.session.known_apps()[0].snapshot;
    for id in snapshot.tree().ids() {
        let n = snapshot.tree().node(id);
        assert!(
            !n.value.as_deref().unwrap_or_default().contains("hunter2")
                && !n.name.contains("hunter2"),
            "the password is in the snapshot: {n:?}"
        );
    }

    let status = tab.ref_of("role:status bar");
    let submitted = tab
        .act("role:push button && name:Create account", Action::Click)
        .await;
    assert_no_noise(&submitted);
    let d = &submitted.diff;
    // The status, empty and hidden until now, shows its text: one line.
    assert_eq!(
        body(&submitted),
        [format!(
            "~ [{status}] status bar | name: \"\" -> \"Thanks, Ada\" | showing, visible: false -> true"
        )],
        "{}",
        text(d)
    );
    assert!(!text(d).contains("hunter2"));
}

/// Asserts that `lines` holds every line of `required`, and nothing but
/// those and lines of `allowed`.
fn assert_lines(lines: &[String], required: &[String], allowed: &[String]) {
    for r in required {
        assert!(lines.contains(r), "missing `{r}` in:\n{}", lines.join("\n"));
    }
    for l in lines {
        assert!(
            required.contains(l) || allowed.contains(l),
            "unexpected `{l}` in:\n{}",
            lines.join("\n")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_box_select_radio_and_slider_each_report_their_value_and_the_status() {
    let mut tab = Tab::fixture("controls.html").await;
    let check = tab.ref_of("role:check box && name:Subscribe to newsletter");
    let colour = tab.ref_of("role:combo box && name:Colour");
    let red = tab.ref_of("role:list item && name:Red");
    let green = tab.ref_of("role:list item && name:Green");
    let size = tab.ref_of("role:grouping && name:Size");
    let medium = tab.ref_of("role:radio button && name:Medium");
    let large = tab.ref_of("role:radio button && name:Large");
    let volume = tab.ref_of("role:slider && name:Volume");
    let status = tab.ref_of("role:status bar && name:No changes yet");

    let a = tab
        .act(
            "role:check box && name:Subscribe to newsletter",
            Action::Click,
        )
        .await;
    assert_no_noise(&a);
    assert_eq!(
        body(&a),
        [
            format!("~ [{check}] check box \"Subscribe to newsletter\" | checked: false -> true"),
            format!(
                "~ [{status}] status bar | name: \"No changes yet\" -> \"Newsletter: subscribed\""
            ),
        ],
        "{}",
        text(&a.diff)
    );

    let a = tab
        .act(
            "role:combo box && name:Colour",
            Action::SetValue("Green".into()),
        )
        .await;
    assert_no_noise(&a);
    // The options' own selected states say the same as the value; they may
    // be reported (the closed list's options do not show), nothing else may.
    assert_lines(
        &body(&a),
        &[
            format!("~ [{colour}] combo box \"Colour\" | value: \"Red\" -> \"Green\""),
            format!(
                "~ [{status}] status bar | name: \"Newsletter: subscribed\" -> \"Colour: Green\""
            ),
        ],
        &[
            format!(
                "~ [{red}] list item \"Red\" (hidden) in [{colour}] combo box \"Colour\" | selected: true -> false"
            ),
            format!(
                "~ [{green}] list item \"Green\" (hidden) in [{colour}] combo box \"Colour\" | selected: false -> true"
            ),
        ],
    );

    let a = tab
        .act("role:radio button && name:Large", Action::Click)
        .await;
    assert_eq!(
        body(&a),
        [
            format!("~ [{medium}] radio button \"Medium\" in [{size}] grouping \"Size\" | checked: true -> false"),
            format!("~ [{large}] radio button \"Large\" in [{size}] grouping \"Size\" | checked: false -> true"),
            format!("~ [{status}] status bar | name: \"Colour: Green\" -> \"Size: Large\""),
        ],
        "{}",
        text(&a.diff)
    );

    let a = tab
        .act("role:slider && name:Volume", Action::SetValue("70".into()))
        .await;
    let lines = body(&a);
    assert_eq!(lines.len(), 2, "{}", text(&a.diff));
    // Chromium's value text says the value again: one transition.
    assert_eq!(
        lines[0],
        format!("~ [{volume}] slider \"Volume\" | value, attr:valuetext: \"50\" -> \"70\""),
        "{}",
        text(&a.diff)
    );
    assert_eq!(
        lines[1],
        format!("~ [{status}] status bar | name: \"Size: Large\" -> \"Volume: 70\"")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_page_app_route_change_is_a_change_in_the_same_document() {
    let mut tab = Tab::fixture("spa.html").await;
    let products = tab.ref_of("role:link && name:Products");
    let a = tab.act("role:link && name:Products", Action::Click).await;
    assert_no_noise(&a);
    let d = &a.diff;
    assert!(!d.new_document, "{}", text(d));
    let t = text(d);
    assert!(
        t.starts_with("# diff: +7 added, -5 removed, ~3 modified"),
        "{t}"
    );
    // The navigation's current page moved from Home to Products.
    assert!(
        t.contains(
            "\n~ [e4] link \"Home\" in [e3] landmark \"Main\" | attr:current: \"page\" -> none\n"
        ),
        "{t}"
    );
    assert!(
        t.contains("\n~ [e5] link \"Products\" in [e3] landmark \"Main\" | attr:current: none -> \"page\"\n"),
        "{t}"
    );
    assert_eq!(
        roots(added(d).iter().map(|a| a.root())),
        [
            (Role::Heading, "Products"),
            (Role::Paragraph, "Everything we sell, grouped by activity."),
            (Role::Heading, "Walking"),
            (Role::List, ""),
            (Role::Heading, "Camping"),
            (Role::List, ""),
            (Role::PushButton, "Show filters"),
        ],
        "{t}"
    );
    let walking: Vec<&str> = added(d)[3]
        .subtree
        .iter()
        .map(|n| n.element.name.as_str())
        .filter(|n| !n.is_empty() && *n != "• ")
        .collect();
    assert_eq!(
        walking,
        ["Trail shoes", "Wool socks", "Walking poles"],
        "{t}"
    );
    assert_eq!(
        roots(removed(d).iter().map(|r| r.root())),
        [
            (Role::Heading, "Welcome to Northwind Outfitters"),
            (
                Role::Paragraph,
                "Gear for walking, camping and paddling, tested on our own trips."
            ),
            (Role::Paragraph, "Free delivery on orders over 50 euros."),
            (Role::Heading, "This week"),
            (Role::List, ""),
        ],
        "{t}"
    );
    // The document itself: a new title and URL, the same element.
    let root = modified(d);
    assert_eq!(root.len(), 3, "{t}");
    assert_eq!(root[0].element.r#ref.to_string(), "e1");
    let attrs: Vec<&Attr> = root[0].changes.iter().map(|c| &c.attr).collect();
    assert_eq!(attrs, [&Attr::Name, &Attr::Attribute("url".into())], "{t}");
    assert!(
        t.contains(
            "~ [e1] document web | name: \"Home · Northwind Outfitters\" -> \"Products · Northwind Outfitters\""
        ),
        "{t}"
    );
    assert!(
        matches!(&root[0].changes[1].new, AttrValue::Text(url) if url.ends_with("spa.html?route=products")),
        "{t}"
    );
    // The link clicked keeps its ref, and took the focus, which the diff
    // leaves out: the agent clicked it.
    assert_eq!(tab.ref_of("role:link && name:Products"), products);
    assert_eq!(tab.ref_of("role:link && state:focused"), products);
    assert_eq!(d.focus, None, "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_page_app_route_change_moves_the_current_page_link() {
    // spa.html moves aria-current="page" from Home to Products: which
    // navigation entry is current is part of the UI's state.
    let mut tab = Tab::fixture("spa.html").await;
    let home = tab.ref_of("role:link && name:Home");
    let products = tab.ref_of("role:link && name:Products");
    let a = tab.act("role:link && name:Products", Action::Click).await;
    let changed: Vec<String> = modified(&a.diff)
        .iter()
        .map(|m| m.element.r#ref.to_string())
        .collect();
    assert!(
        changed.contains(&home) && changed.contains(&products),
        "aria-current moved from Home ({home}) to Products ({products}), the diff does not say so:\n{}",
        text(&a.diff)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_new_list_items_are_summarised() {
    let mut tab = Tab::fixture("list.html").await;
    let list = tab.ref_of("role:list && name:Results");
    let count = tab.ref_of("role:status bar && name:Showing 10 results");
    let a = tab
        .act("role:push button && name:Load more", Action::Click)
        .await;
    assert_no_noise(&a);
    let d = &a.diff;
    let t = text(d);
    let c = d.counts();
    assert_eq!((c.added, c.removed, c.modified), (200, 0, 1), "{t}");
    assert!(
        added(d)
            .iter()
            .all(|a| a.root().role == Role::ListItem && a.parent.to_string() == list),
        "{t}"
    );
    assert!(t.contains("list item \"Result 11\""), "{t}");
    // The rest are counted, and the first twenty of them named with
    // their refs.
    let summary = t
        .lines()
        .find(|l| l.starts_with("+ ... and 197 more list item: "))
        .unwrap_or_else(|| panic!("no summary of the list items:\n{t}"));
    assert!(summary.contains("] \"Result 14\", ["), "{summary}");
    assert!(summary.ends_with("] \"Result 33\", ..."), "{summary}");
    assert!(!t.contains("Result 34\""), "{t}");
    assert!(
        t.contains(&format!(
            "~ [{count}] status bar | name: \"Showing 10 results\" -> \"Showing 210 results\""
        )),
        "{t}"
    );
    assert!(t.lines().count() < 30, "{} lines:\n{t}", t.lines().count());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_markers_are_not_reported() {
    // Each <li> carries a "• " (or "1. ") marker in Chromium's tree: it is
    // presentation, it repeats on every item, and it costs tokens.
    let mut tab = Tab::fixture("list.html").await;
    let a = tab
        .act("role:push button && name:Load more", Action::Click)
        .await;
    let t = text(&a.diff);
    assert!(!t.contains("• "), "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn following_a_link_is_a_new_document_in_a_few_lines_and_so_is_going_back() {
    const A: &str = "Rivers of the North: a field guide";
    const B: &str = "Lighthouses of the Western Coast";
    let mut tab = Tab::fixture("nav-a.html").await;
    let a = tab
        .act("role:link && name:Go to page B", Action::Click)
        .await;
    assert_no_noise(&a);
    let d = &a.diff;
    let t = text(d);
    assert!(d.new_document, "{t}");
    assert!(
        t.starts_with(&format!(
            "# new document: [e1] document web \"{B}\", was \"{A}\" · "
        )),
        "{t}"
    );
    let nodes = tab.session.known_apps()[0].snapshot.node_count();
    assert!(nodes > 600, "page B has {nodes} nodes");
    assert!(t.lines().count() < 80, "{} lines:\n{t}", t.lines().count());
    assert!(t.contains("\n- the previous document ("), "{t}");
    assert!(
        t.contains("~ [e1] document web | attr:url: \"") && t.contains("/nav-b.html\"\n"),
        "{t}"
    );
    tab.wait_for("role:link && name:Back to page A").await;

    let back = tab.navigate(Navigate::Back).await;
    let t = text(&back.diff);
    assert!(back.diff.new_document, "{t}");
    assert!(
        t.starts_with(&format!(
            "# new document: [e1] document web \"{A}\", was \"{B}\" · "
        )),
        "{t}"
    );
    assert!(t.lines().count() < 80, "{} lines:\n{t}", t.lines().count());
    tab.wait_for("role:link && name:Go to page B").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chromium_setting_toggled_is_one_line() {
    let mut tab = Tab::open("chrome://settings/appearance", None).await;
    // The settings page builds itself after it has loaded.
    let toggle = "role:check box && name:Show tab search button";
    tab.wait_for(toggle).await;
    let r = tab.ref_of(toggle);
    let was = tab.has(toggle, State::Checked);
    let a = tab.act(toggle, Action::Click).await;
    assert_no_noise(&a);
    assert_eq!(
        body(&a),
        [format!(
            "~ [{r}] check box \"Show tab search button\" | checked: {was} -> {}",
            !was
        )],
        "{}",
        text(&a.diff)
    );
    assert_eq!(a.diff.counts().modified, 1);

    let select = "role:combo box && name:Font size";
    let font = tab.ref_of(select);
    let a = tab.act(select, Action::SetValue("Large".into())).await;
    assert_no_noise(&a);
    let lines = body(&a);
    let value = format!(
        "~ [{font}] combo box \"Font size\" | value: \"Medium (Recommended)\" -> \"Large\""
    );
    assert!(lines.contains(&value), "{}", text(&a.diff));
    // Besides the value, at most the two options whose selection flipped.
    let others: Vec<&String> = lines.iter().filter(|l| **l != value).collect();
    assert!(
        others.len() <= 2
            && others
                .iter()
                .all(|l| l.contains(&format!(
                    "list item \" Medium (Recommended) \" (hidden) in [{font}]"
                )) || l.contains(&format!("list item \" Large \" (hidden) in [{font}]"))),
        "{}",
        text(&a.diff)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigating_a_tab_to_the_settings_reports_the_settings_page() {
    let mut tab = Tab::fixture("dialog.html").await;
    let a = tab
        .navigate(Navigate::To("chrome://settings/appearance".into()))
        .await;
    let t = text(&a.diff);
    assert!(a.diff.new_document, "{t}");
    let names: Vec<(Role, &str)> = added(&a.diff)
        .iter()
        .flat_map(|a| {
            a.subtree
                .iter()
                .map(|n| (n.element.role, n.element.name.as_str()))
        })
        .collect();
    assert!(
        names.contains(&(Role::Heading, "Appearance"))
            && names.contains(&(Role::CheckBox, "Show home button")),
        "the settle ended before the page was built:\n{t}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clicking_a_heading_changes_nothing() {
    let mut tab = Tab::fixture("dialog.html").await;
    let a = tab.act("role:heading && name:Files", Action::Click).await;
    assert!(!a.diff.has_changes(), "{}", text(&a.diff));
    assert_eq!(text(&a.diff), "No UI changes detected\n");
}

/// A click and a key press that change nothing end as soon as the page says
/// that nothing is pending, not at the cap: the page has no handler for
/// either, starts no timer and no request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_and_a_key_that_change_nothing_end_without_the_cap() {
    let mut tab = Tab::fixture("dialog.html").await;
    let id = tab.id.clone();
    for run in 0..3 {
        let clicked = tab.act("role:heading && name:Files", Action::Click).await;
        assert_eq!(text(&clicked.diff), "No UI changes detected\n", "run {run}");
        assert!(
            !clicked.settled.capped,
            "run {run}: the click waited for the cap"
        );
        let pressed = tab
            .session
            .key(&id, "x", &ActOptions::default())
            .await
            .unwrap_or_else(|e| panic!("pressing x: {e}"));
        assert_eq!(text(&pressed.diff), "No UI changes detected\n", "run {run}");
        assert!(
            !pressed.settled.capped,
            "run {run}: the key waited for the cap"
        );
    }
}

/// A dialog built 800 ms after the click, with nothing sent meanwhile but
/// the page's word that a timer the click started runs, is caught whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dialog_built_800_ms_after_the_click_is_complete_in_the_diff() {
    let mut tab = Tab::fixture("dialog.html?delay=800").await;
    let mut problems = Vec::new();
    for run in 0..3 {
        let opened = tab
            .act("role:push button && name:Open dialog", Action::Click)
            .await;
        if let Some(problem) = dialog_problem(&opened) {
            problems.push(format!("run {run}: {problem}:\n{}", text(&opened.diff)));
            tab.wait_for("role:push button && name:Cancel").await;
        }
        let closed = tab
            .act("role:push button && name:Cancel", Action::Click)
            .await;
        let gone: Vec<(Role, &str)> = roots(removed(&closed.diff).iter().map(|r| r.root()));
        assert_eq!(gone, [(Role::Dialog, "Confirm delete")], "run {run}");
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// A script's own timer is not one the page counts as pending (only input
/// starts those), so after a script the first change is waited for as
/// before: the paragraph it adds 500 ms later is in the diff.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_a_script_makes_later_is_waited_for() {
    let mut tab = Tab::fixture("dialog.html").await;
    let id = tab.id.clone();
    let script = "setTimeout(() => { const p = document.createElement('p'); \
                  p.textContent = 'Later'; document.querySelector('main').append(p); }, 500); 1";
    let (_, ran) = tab
        .session
        .run_script(&id, script, &ActOptions::default())
        .await
        .unwrap_or_else(|e| panic!("running the script: {e}"));
    let got: Vec<(Role, &str)> = roots(added(&ran.diff).iter().map(|a| a.root()));
    assert_eq!(got, [(Role::Paragraph, "Later")], "{}", text(&ran.diff));
    assert!(!ran.settled.capped, "{}", text(&ran.diff));
}

/// A request in flight holds settling however idle the page is otherwise:
/// the status the answer 700 ms later sets is in the diff, also when the
/// click changes nothing before (`?quiet`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_fetch_is_waited_for() {
    for page in ["slow.html", "slow.html?quiet"] {
        fetch_shows_its_answer(page).await;
    }
}

async fn fetch_shows_its_answer(page: &str) {
    let mut tab = Tab::fixture(page).await;
    let status = tab.ref_of("role:status bar");
    let fetched = tab
        .act("role:push button && name:Fetch", Action::Click)
        .await;
    assert!(!fetched.settled.capped, "{page}: {}", text(&fetched.diff));
    assert_eq!(
        body(&fetched),
        [format!(
            "~ [{status}] status bar | name: \"\" -> \"Loaded 3 records\" \
             | showing, visible: false -> true"
        )],
        "{page}: {}",
        text(&fetched.diff)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_click_at_a_point_of_the_viewport_reaches_what_is_there() {
    let mut tab = Tab::fixture("controls.html").await;
    let selector = "role:check box && name:Subscribe to newsletter";
    let check = tab.ref_of(selector);
    let status = tab.ref_of("role:status bar && name:No changes yet");
    let point = tab.bounds_of(selector).center();
    let id = tab.id.clone();
    let a = tab
        .session
        .click_at(&id, point, &Action::Click, &ActOptions::default())
        .await
        .unwrap_or_else(|e| panic!("clicking at {point:?}: {e}"));
    assert_eq!(
        a.done.method,
        format!("CDP Input click at {},{}", point.0, point.1)
    );
    assert_eq!(
        body(&a),
        [
            format!("~ [{check}] check box \"Subscribe to newsletter\" | checked: false -> true"),
            format!(
                "~ [{status}] status bar | name: \"No changes yet\" -> \"Newsletter: subscribed\""
            ),
        ],
        "{}",
        text(&a.diff)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hovering_over_a_menu_button_shows_its_menu_and_moving_on_shows_the_next() {
    use common::{added_list, eight_links, menu_links, removes_menu};
    // shop.html's department menus show by style rules while the pointer
    // is in their item (`li:hover > ul`): nothing of them is in the tree
    // until the pointer is over one.
    let mut tab = Tab::fixture("shop.html?n=2").await;
    assert_eq!(menu_links(&tab.tree(), "Women"), Vec::<String>::new());
    let women_button = tab.ref_of("role:push button && name:Women");
    let nav = tab.ref_of("role:landmark && name:Departments");

    let a = tab
        .act("role:push button && name:Women", Action::Hover)
        .await;
    assert!(
        a.done.method.starts_with("CDP Input mouse moved to "),
        "{}",
        a.done.method
    );
    // The menu, and nothing else: its button, alone in its list item
    // before, stays where it was, under its ref.
    let t = text(&a.diff);
    let women = added_list(&t);
    let mut expected = vec![format!(
        "+ {women} list in [{nav}] landmark \"Departments\""
    )];
    expected.extend(
        menu_links(&t, "Women")
            .iter()
            .map(|name| format!("link \"{name}\"")),
    );
    let read: Vec<String> = body(&a)
        .iter()
        .map(|l| match l.trim_start().split_once("] ") {
            Some((_, rest)) if l.starts_with("    ") => rest.to_owned(),
            _ => l.clone(),
        })
        .collect();
    assert_eq!(read, expected, "{t}");
    assert_eq!(menu_links(&t, "Women"), eight_links("Women"), "{t}");
    assert_eq!(tab.ref_of("role:push button && name:Women"), women_button);

    // On to the next button: its menu shows, the first one's goes.
    let a = tab.act("role:push button && name:Men", Action::Hover).await;
    let t = text(&a.diff);
    assert_eq!(menu_links(&t, "Men"), eight_links("Men"), "{t}");
    assert!(removes_menu(&t, &women), "{t}");
    assert_eq!(a.diff.counts().added + a.diff.counts().removed, 2, "{t}");
    let men = added_list(&t);

    // Into the menu: the pointer is still in its item, nothing changes.
    let a = tab.act("role:link && name:\"Men 3\"", Action::Hover).await;
    assert!(!a.diff.has_changes(), "{}", text(&a.diff));

    // Out of it: the menu goes, and only it.
    let a = tab
        .act("role:toggle button && name:\"Add 1\"", Action::Hover)
        .await;
    let t = text(&a.diff);
    assert!(removes_menu(&t, &men), "{t}");
    assert_eq!(body(&a).len(), 1, "{t}");
    assert_eq!(menu_links(&tab.tree(), "Men"), Vec::<String>::new());
}

/// The status's change in `a`'s diff text: `"old" -> "new"`.
fn status_change(a: &ActionOutcome) -> Option<String> {
    text(&a.diff)
        .lines()
        .find(|l| l.starts_with("~ ") && l.contains("] status"))
        .and_then(|l| l.split("| name: ").nth(1))
        .map(str::to_owned)
}

/// A page's `confirm()` blocks it until answered, and Chromium puts nothing
/// of it in the accessibility tree: the click that opens it answers with
/// the dialog, its buttons, the focus on OK; anything else asked of the
/// page meanwhile is refused with how to answer; OK answers it, and the
/// page goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_javascript_confirm_is_a_dialog_in_the_tree_until_it_is_answered() {
    let mut tab = Tab::fixture("alerts.html").await;
    let opened = tab
        .act("role:push button && name:Delete all", Action::Click)
        .await;
    let dialog: Vec<&Added> = added(&opened.diff);
    assert_eq!(dialog.len(), 1, "{}", text(&opened.diff));
    let got = roots(dialog[0].subtree.iter().map(|n| &n.element));
    assert_eq!(
        got,
        [
            (Role::Dialog, "Delete 3 items?"),
            (Role::PushButton, "OK"),
            (Role::PushButton, "Cancel"),
        ],
        "{}",
        text(&opened.diff)
    );
    assert_eq!(dialog[0].opened, Some(Role::Dialog));
    assert_eq!(opened.diff.changes.len(), 1, "{}", text(&opened.diff));
    let to = opened.diff.focus.as_ref().and_then(|f| f.to.as_ref());
    assert!(
        to.is_some_and(|h| h.role == Role::PushButton && h.name == "OK"),
        "{:?}",
        opened.diff.focus
    );
    assert!(
        opened.done.method.contains("opened its JavaScript confirm"),
        "{}",
        opened.done.method
    );
    assert!(!opened.settled.capped, "the wait ran to the cap");
    assert_no_noise(&opened);

    // The page answers nothing else until the dialog is answered.
    let refused = tab
        .session
        .act(
            "role:push button && name:Rename",
            &Action::Click,
            &ActOptions::default(),
        )
        .await
        .map(|a| text(&a.diff));
    let message = refused
        .expect_err("a click on the page behind the dialog")
        .to_string();
    assert!(
        message.contains(
            "the page waits for the answer to its JavaScript confirm \"Delete 3 items?\""
        ) && message.contains("click its OK or Cancel button"),
        "{message}"
    );
    // Reading it again shows the same dialog.
    let id = tab.id.clone();
    let again = tab
        .session
        .wait_for_element(
            &id,
            "role:dialog && name:Delete 3 items?",
            Condition::Appears,
            Duration::from_secs(5),
        )
        .await;
    assert!(again.is_ok(), "{again:?}");

    let answered = tab.act("role:push button && name:OK", Action::Click).await;
    let gone: Vec<(Role, &str)> = roots(removed(&answered.diff).iter().map(|r| r.root()));
    assert!(
        gone.contains(&(Role::Dialog, "Delete 3 items?")),
        "{}",
        text(&answered.diff)
    );
    assert_eq!(
        status_change(&answered).as_deref(),
        Some("\"Ready\" -> \"Deleted 3 items\""),
        "{}",
        text(&answered.diff)
    );
    assert!(
        answered.done.method.contains("accepted JavaScript confirm"),
        "{}",
        answered.done.method
    );
}

/// A prompt holds the text it offers in a focused entry; typing replaces
/// it (it is selected when the prompt opens) and is a value change; OK
/// answers what the entry holds, and Escape dismisses the next one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_answers_what_was_typed_into_its_entry() {
    let mut tab = Tab::fixture("alerts.html").await;
    let opened = tab
        .act("role:push button && name:Rename", Action::Click)
        .await;
    let dialog = added(&opened.diff);
    assert_eq!(dialog.len(), 1, "{}", text(&opened.diff));
    let entry = &dialog[0].subtree[1].element;
    assert_eq!(
        (entry.role, entry.value.as_deref()),
        (Role::Entry, Some("Items")),
        "{}",
        text(&opened.diff)
    );
    let typed = tab
        .act("role:entry", Action::Type("Groceries".into()))
        .await;
    assert_eq!(
        body(&typed),
        [format!(
            "~ [{}] entry in [{}] dialog \"New name for the list\" | value: \"Items\" -> \
             \"Groceries\"",
            tab.ref_of("role:entry"),
            tab.ref_of("role:dialog")
        )],
        "{}",
        text(&typed.diff)
    );
    let answered = tab.act("role:push button && name:OK", Action::Click).await;
    assert_eq!(
        status_change(&answered).as_deref(),
        Some("\"Ready\" -> \"Renamed to Groceries\""),
        "{}",
        text(&answered.diff)
    );

    tab.act("role:push button && name:Rename", Action::Click)
        .await;
    let id = tab.id.clone();
    let escaped = tab
        .session
        .key(&id, "Escape", &ActOptions::default())
        .await
        .unwrap_or_else(|e| panic!("pressing Escape: {e}"));
    assert_eq!(
        status_change(&escaped).as_deref(),
        Some("\"Renamed to Groceries\" -> \"Not renamed\""),
        "{}",
        text(&escaped.diff)
    );
}

/// An alert a timer opens 300 ms after the click is waited for and read
/// with what the click changed before it; Return answers it. Navigating
/// while one is open dismisses it, as a browser does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alert_a_timer_opens_is_caught_and_return_or_a_navigation_answers_it() {
    let mut tab = Tab::fixture("alerts.html").await;
    let later = tab
        .act("role:push button && name:Save later", Action::Click)
        .await;
    let dialog = added(&later.diff);
    assert_eq!(
        dialog
            .iter()
            .map(|a| roots(a.subtree.iter().map(|n| &n.element)))
            .collect::<Vec<_>>(),
        [[(Role::Dialog, "Saved later"), (Role::PushButton, "OK")]],
        "{}",
        text(&later.diff)
    );
    assert_eq!(
        status_change(&later).as_deref(),
        Some("\"Ready\" -> \"Saving\""),
        "{}",
        text(&later.diff)
    );
    let id = tab.id.clone();
    let returned = tab
        .session
        .key(&id, "Return", &ActOptions::default())
        .await
        .unwrap_or_else(|e| panic!("pressing Return: {e}"));
    assert_eq!(
        status_change(&returned).as_deref(),
        Some("\"Saving\" -> \"Saved later\""),
        "{}",
        text(&returned.diff)
    );
    assert_eq!(
        roots(removed(&returned.diff).iter().map(|r| r.root())),
        [(Role::Dialog, "Saved later")]
    );

    tab.act("role:push button && name:Save", Action::Click)
        .await;
    let reloaded = tab.navigate(Navigate::Reload).await;
    assert!(
        !text(&reloaded.diff).contains("Saved 3 items"),
        "{}",
        text(&reloaded.diff)
    );
    tab.wait_for("role:push button && name:Save later").await;
    assert!(
        tab.session.backend().held_dialog(&id).is_none(),
        "the alert is still held"
    );
}

/// With a policy, dialogs are answered as they open and kept for the
/// caller to report: the page goes on at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_answers_dialogs_as_they_open_and_keeps_what_it_answered() {
    let mut tab = Tab::fixture("alerts.html").await;
    tab.session
        .backend()
        .set_dialog_policy(uidelta_cdp::DialogPolicy::Accept {
            prompt_text: Some("Bob".into()),
        });
    let renamed = tab
        .act("role:push button && name:Rename", Action::Click)
        .await;
    assert_eq!(
        status_change(&renamed).as_deref(),
        Some("\"Ready\" -> \"Renamed to Bob\""),
        "{}",
        text(&renamed.diff)
    );
    assert!(added(&renamed.diff).is_empty(), "{}", text(&renamed.diff));
    let answered: Vec<String> = tab
        .session
        .backend()
        .take_answered_dialogs()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        answered,
        ["the page's JavaScript prompt \"New name for the list\" was accepted with \"Bob\""]
    );
    tab.session
        .backend()
        .set_dialog_policy(uidelta_cdp::DialogPolicy::Dismiss);
    let kept = tab
        .act("role:push button && name:Delete all", Action::Click)
        .await;
    assert_eq!(
        status_change(&kept).as_deref(),
        Some("\"Renamed to Bob\" -> \"Kept 3 items\""),
        "{}",
        text(&kept.diff)
    );
}

/// The pointer brought to a point over a menu button opens its menu, as
/// hovering over the button does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pointer_brought_to_a_point_shows_what_hovering_there_shows() {
    let mut tab = Tab::fixture("shop.html?n=2").await;
    let point = tab.bounds_of("role:push button && name:Men").center();
    let id = tab.id.clone();
    let shown = tab
        .session
        .click_at(&id, point, &Action::Hover, &ActOptions::default())
        .await
        .unwrap_or_else(|e| panic!("the pointer to {point:?}: {e}"));
    assert_eq!(
        shown.done.method,
        format!("CDP Input pointer move at {},{}", point.0, point.1)
    );
    assert_eq!(
        common::menu_links(&text(&shown.diff), "Men"),
        common::eight_links("Men"),
        "{}",
        text(&shown.diff)
    );
}

/// Two small files to upload, in a directory of their own.
fn files_to_upload() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    std::fs::write(&a, "hello\n").expect("writing a.txt");
    std::fs::write(&b, "hi\n").expect("writing b.txt");
    let path = |p: std::path::PathBuf| p.to_string_lossy().into_owned();
    (dir, path(a), path(b))
}

/// A page's file chooser (a button clicking a hidden file input) is a
/// dialog with an entry `File name` and `Open`: the paths typed into it,
/// one per line, are what the input is given, and the page sees them as a
/// user's choice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_chooser_is_a_dialog_whose_open_gives_the_input_the_files_typed() {
    let (_dir, a, b) = files_to_upload();
    let mut tab = Tab::fixture("upload.html").await;
    let opened = tab
        .act("role:push button && name:Add photos", Action::Click)
        .await;
    let dialog = added(&opened.diff);
    assert_eq!(
        dialog
            .iter()
            .map(|d| roots(d.subtree.iter().map(|n| &n.element)))
            .collect::<Vec<_>>(),
        [[
            (Role::Dialog, "Choose files to upload"),
            (Role::Entry, "File name"),
            (Role::PushButton, "Open"),
            (Role::PushButton, "Cancel"),
        ]],
        "{}",
        text(&opened.diff)
    );
    let to = opened.diff.focus.as_ref().and_then(|f| f.to.as_ref());
    assert!(
        to.is_some_and(|h| h.role == Role::Entry && h.name == "File name"),
        "{:?}",
        opened.diff.focus
    );

    let typed = tab
        .act(
            "role:entry && name:File name",
            Action::Type(format!("{a}\n{b}")),
        )
        .await;
    assert_eq!(modified(&typed.diff).len(), 1, "{}", text(&typed.diff));
    let chosen = tab
        .act("role:push button && name:Open", Action::Click)
        .await;
    assert_eq!(
        status_change(&chosen).as_deref(),
        Some("\"No file\" -> \"a.txt (6 bytes), b.txt (3 bytes)\""),
        "{}",
        text(&chosen.diff)
    );
    assert_eq!(
        roots(removed(&chosen.diff).iter().map(|r| r.root())),
        [(Role::Dialog, "Choose files to upload")]
    );

    // Cancel lets it go, and nothing else changes.
    tab.act("role:push button && name:Add photos", Action::Click)
        .await;
    let cancelled = tab
        .act("role:push button && name:Cancel", Action::Click)
        .await;
    assert_eq!(
        roots(removed(&cancelled.diff).iter().map(|r| r.root())),
        [(Role::Dialog, "Choose files to upload")],
        "{}",
        text(&cancelled.diff)
    );
    assert_eq!(
        modified(&cancelled.diff).len(),
        0,
        "{}",
        text(&cancelled.diff)
    );
}

/// A file input takes its files as its value: paths, checked to be files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setting_a_file_inputs_value_gives_it_the_file() {
    let (dir, a, _) = files_to_upload();
    let mut tab = Tab::fixture("upload.html").await;
    let target = "role:push button && name:Attachment";
    let set = tab.act(target, Action::SetValue(a.clone())).await;
    assert_eq!(
        status_change(&set).as_deref(),
        Some("\"No file\" -> \"a.txt (6 bytes)\""),
        "{}",
        text(&set.diff)
    );
    let missing = dir.path().join("c.txt").to_string_lossy().into_owned();
    let refused = tab
        .session
        .act(
            target,
            &Action::SetValue(missing.clone()),
            &ActOptions::default(),
        )
        .await
        .map(|a| text(&a.diff));
    let message = refused.expect_err("a file that is not there").to_string();
    assert!(
        message.contains(&format!("no file at `{missing}`")),
        "{message}"
    );
}

/// A card dragged onto another list moves there (HTML drag and drop): one
/// line says it moved from one list to the other, and it keeps its ref
/// (the page moved its DOM node); the page says so too. A slider's knob
/// dragged past its left end reads its least value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dragging_a_card_onto_a_list_moves_it_and_a_slider_to_its_end_empties_it() {
    let mut tab = Tab::fixture("board.html").await;
    let card = tab.ref_of("role:list item && name:Write report");
    let todo = tab.ref_of("role:list && name:To do");
    let done = tab.ref_of("role:list && name:Done");
    let moved = tab
        .session
        .drag(
            &card,
            &uidelta_engine::DragEnd::Element(done.clone()),
            &ActOptions::default(),
        )
        .await
        .unwrap_or_else(|e| panic!("dragging {card} onto {done}: {e}"));
    assert!(
        moved.done.method.starts_with("CDP Input drag from "),
        "{}",
        moved.done.method
    );
    let lines = body(&moved);
    assert_eq!(
        tab.ref_of("role:list item && name:Write report"),
        card,
        "the card keeps its ref"
    );
    assert_eq!(
        lines,
        [
            format!(
                "~ [{card}] list item \"Write report\" in [{done}] list \"Done\" | parent: [{todo}] list \"To do\" -> [{done}] list \"Done\""
            ),
            format!(
                "~ [{}] status bar | name: \"Ready\" -> \"Write report moved to Done\"",
                tab.ref_of("role:status bar")
            ),
        ],
        "{}",
        text(&moved.diff)
    );

    let slider = tab.ref_of("role:slider && name:Volume");
    let bounds = tab.bounds_of(&slider);
    let left = uidelta_engine::DragEnd::Point(bounds.x - 30, bounds.y + bounds.h / 2);
    let slid = tab
        .session
        .drag(&slider, &left, &ActOptions::default())
        .await
        .unwrap_or_else(|e| panic!("dragging {slider}: {e}"));
    let lines = body(&slid);
    assert!(
        lines.contains(&format!(
            "~ [{slider}] slider \"Volume\" | value, attr:valuetext: \"50\" -> \"0\""
        )),
        "{}",
        text(&slid.diff)
    );
    assert_eq!(
        status_change(&slid).as_deref(),
        Some("\"Write report moved to Done\" -> \"Volume 0\""),
        "{}",
        text(&slid.diff)
    );

    // From a point of the viewport (the track's middle, whatever is
    // there) past the slider's right end: its greatest value.
    let from = (bounds.x + bounds.w / 2, bounds.y + bounds.h / 2);
    let right = uidelta_engine::DragEnd::Point(bounds.x + bounds.w + 30, from.1);
    let id = tab.id.clone();
    let slid = tab
        .session
        .drag_at(&id, from, &right, &ActOptions::default())
        .await
        .unwrap_or_else(|e| panic!("dragging from {from:?}: {e}"));
    assert_eq!(
        slid.done.method,
        format!(
            "CDP Input drag from {},{} to {},{}",
            from.0,
            from.1,
            bounds.x + bounds.w + 30,
            from.1
        )
    );
    assert_eq!(
        status_change(&slid).as_deref(),
        Some("\"Volume 0\" -> \"Volume 100\""),
        "{}",
        text(&slid.diff)
    );
}

/// A page's mirror keeps the bounds of elements that moved without
/// changing as it last read them: a note shown above the board moves its
/// lists down, and the tree still places them where they were. A card
/// dragged onto a list is dropped where the page has the list then.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drag_onto_a_list_the_page_moved_since_it_was_read_drops_on_it() {
    let mut tab = Tab::fixture_mirrored("board.html").await;
    let card = tab.ref_of("role:list item && name:Write report");
    let done = tab.ref_of("role:list && name:Done");
    let was = tab.bounds_of(&done);
    let id = tab.id.clone();
    let (_, noted) = tab
        .session
        .run_script(
            &id,
            "(() => { const p = document.createElement('p'); p.textContent = 'Closed on Friday'; \
             p.style.height = '300px'; document.querySelector('main').prepend(p); return true; })()",
            &ActOptions::default(),
        )
        .await
        .unwrap_or_else(|e| panic!("showing the note: {e}"));
    assert!(
        text(&noted.diff).contains("paragraph \"Closed on Friday\""),
        "{}",
        text(&noted.diff)
    );
    let moved = tab
        .session
        .drag(
            &card,
            &uidelta_engine::DragEnd::Element(done.clone()),
            &ActOptions::default(),
        )
        .await
        .unwrap_or_else(|e| panic!("dragging {card} onto {done}: {e}"));
    assert_eq!(
        status_change(&moved).as_deref(),
        Some("\"Ready\" -> \"Write report moved to Done\""),
        "{}\n{}",
        moved.done.method,
        text(&moved.diff)
    );
    // Dropped below the middle of where the list was read by the note's
    // height and its margins.
    let to = moved
        .done
        .method
        .rsplit(" to ")
        .next()
        .and_then(|p| p.split_once(','))
        .and_then(|(x, y)| Some((x.parse::<i32>().ok()?, y.parse::<i32>().ok()?)));
    assert!(
        to.is_some_and(|(x, y)| x == was.x + was.w / 2 && y >= was.y + was.h / 2 + 300),
        "{} (the list was read at {was:?})",
        moved.done.method
    );
}

/// A download is what a browser's download bar shows: a list `Downloads`
/// at the end of the tab, with the file, saved where the browser was told.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_is_listed_with_where_it_was_saved() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let server = Server::start(&fixtures_dir()).expect("serving fixtures/web");
    let url = server.url("download.html");
    let cdp = Cdp::launch(LaunchOptions {
        downloads: Some(dir.path().to_owned()),
        ..LaunchOptions::default()
    })
    .await
    .unwrap_or_else(|e| panic!("the browser tests need Chromium; `{INSTALL_HINT}`: {e}"));
    let app = cdp
        .open(&url, &[], Duration::from_secs(20))
        .await
        .unwrap_or_else(|e| panic!("opening {url}: {e}"));
    let mut session = Session::new(Arc::new(cdp));
    session.observe(&app.id).await.expect("observe");
    let got = session
        .act(
            "role:link && name:Download report",
            &Action::Click,
            &ActOptions::default(),
        )
        .await
        .expect("click the link");
    let saved = dir.path().join("report.txt");
    let lines: Vec<String> = text(&got.diff).lines().skip(1).map(str::to_owned).collect();
    assert_eq!(
        lines.get(..2),
        Some(
            &[
                format!(
                    "+ [{}] list \"Downloads\"",
                    session
                        .find(&"role:list && name:Downloads".parse().expect("selector"))
                        .first()
                        .map(|(s, n)| session.known_apps()[*s].refs.get(*n).to_string())
                        .unwrap_or_default()
                ),
                format!(
                    "    [{}] list item \"report.txt\" = \"saved to {} (17 bytes)\"",
                    session
                        .find(
                            &"role:list item && name:report.txt"
                                .parse()
                                .expect("selector")
                        )
                        .first()
                        .map(|(s, n)| session.known_apps()[*s].refs.get(*n).to_string())
                        .unwrap_or_default(),
                    saved.display()
                ),
            ][..]
        ),
        "{}",
        text(&got.diff)
    );
    assert_eq!(
        std::fs::read_to_string(&saved).expect("the file saved"),
        "Quarterly report\n"
    );
}
