//! The MCP tools on a real headless Chromium: tabs are applications, the
//! element tools act on pages, `navigate_browser` answers with a new
//! document and `execute_browser_script` with the script's result.
//! Needs Debian's `chromium`.

mod common;

use std::sync::Arc;

use rmcp::model::CallToolResult;
use serde_json::{json, Value};
use uidelta_cdp::{Cdp, LaunchOptions};
use uidelta_mcp::Server;
use uidelta_testkit::web::{fixtures_dir, Server as Web};

use common::{args, text};

async fn ok(s: &Server<Cdp>, tool: &str, a: Value) -> CallToolResult {
    let r = s.call(tool, args(a.clone())).await;
    assert_eq!(r.is_error, Some(false), "{tool} {a}: {}", text(&r));
    r
}

async fn browser() -> Cdp {
    match Cdp::launch(LaunchOptions::default()).await {
        Ok(cdp) => cdp,
        Err(e) => panic!("starting headless Chromium: {e} (apt-get install -y chromium)"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabs_pages_navigation_and_scripts_through_the_tools() {
    let web = Web::start(&fixtures_dir()).expect("serving fixtures/web");
    let s = Server::new(Arc::new(browser().await));

    let r = ok(
        &s,
        "open_application",
        json!({"program": web.url("controls.html")}),
    )
    .await;
    assert!(text(&r).contains("Preferences"), "{}", text(&r));
    let tree = text(&ok(&s, "get_window_tree", json!({"app": "Preferences"})).await);
    assert!(
        tree.contains("check box \"Subscribe to newsletter\""),
        "{tree}"
    );

    let r = ok(
        &s,
        "click_element",
        json!({"target": "role:check box && name:Subscribe to newsletter", "app": "Preferences"}),
    )
    .await;
    let diff = text(&r);
    assert!(
        diff.contains("check box \"Subscribe to newsletter\" | checked: false -> true"),
        "{diff}"
    );
    assert!(
        diff.contains("| name: \"No changes yet\" -> \"Newsletter: subscribed\""),
        "{diff}"
    );

    let r = ok(
        &s,
        "navigate_browser",
        json!({"app": "Preferences", "url": web.url("form.html")}),
    )
    .await;
    // The small new page's tree costs less than its diff: the answer is
    // that tree; programs still get the diff.
    let answer = text(&r);
    assert!(
        answer.contains(
            "# tree after the action (smaller than its diff): new document, was \"Preferences\""
        ),
        "{answer}"
    );
    assert!(
        answer.contains("\n[e1] document web \"Sign up\" (focused)\n"),
        "{answer}"
    );
    let j = r.structured_content.clone().unwrap_or_default();
    assert_eq!(j["has_ui_changes"], json!(true), "{j}");
    assert_eq!(j["tree_instead"], json!(true), "{j}");
    let diff = j["ui_diff"].as_str().unwrap_or_default();
    assert!(
        diff.contains("# new document: [e1] document web \"Sign up\", was \"Preferences\""),
        "{diff}"
    );

    let r = ok(
        &s,
        "execute_browser_script",
        json!({"app": "Sign up", "script": "document.querySelector('h1').textContent = 'Join'; 6 * 7"}),
    )
    .await;
    let out = text(&r);
    assert!(out.starts_with("# result: 42\n"), "{out}");
    // The form is labelled by its heading: both are renamed.
    assert!(out.contains("# diff: ~2 modified"), "{out}");
    let form = out
        .lines()
        .find_map(|l| l.strip_suffix("] form | name: \"Sign up\" -> \"Join\""))
        .and_then(|l| l.strip_prefix("~ ["))
        .unwrap_or_else(|| panic!("no renamed form in:\n{out}"));
    assert!(
        out.contains(&format!(
            "heading in [{form}] form \"Join\" | name: \"Sign up\" -> \"Join\""
        )),
        "{out}"
    );
    let j = r.structured_content.clone().unwrap_or_default();
    assert_eq!(j["result"], json!(42), "{j}");

    let r = ok(
        &s,
        "navigate_browser",
        json!({"app": "Sign up", "go": "back"}),
    )
    .await;
    let j = r.structured_content.clone().unwrap_or_default();
    let diff = j["ui_diff"].as_str().unwrap_or_default();
    assert!(diff.contains("# new document: [e"), "{diff}");

    let r = s
        .call(
            "execute_browser_script",
            args(json!({"app": "Preferences", "script": "throw new Error('nope')"})),
        )
        .await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
    assert!(text(&r).contains("nope"), "{}", text(&r));
    ok(&s, "get_applications", json!({})).await;

    // The pointer over a menu's button: the menu that shows on hover.
    ok(
        &s,
        "navigate_browser",
        json!({"app": "Preferences", "url": web.url("shop.html?n=2")}),
    )
    .await;
    // The tab, read as `Preferences`, is named after its new page, and
    // found so.
    let r = ok(
        &s,
        "hover_element",
        json!({"app": "Shop", "target": "role:push button && name:Women"}),
    )
    .await;
    let out = text(&r);
    assert!(
        out.starts_with("# hover_element: [e") && out.contains("push button \"Women\" in Shop"),
        "{out}"
    );
    assert!(out.contains(" via CDP Input mouse moved to "), "{out}");
    assert!(out.contains("] link \"Women 8\"\n"), "{out}");

    // A point: the middle of the next menu's button, as its bounds say.
    let tree = text(
        &ok(
            &s,
            "get_window_tree",
            json!({"app": "Shop", "bounds": true}),
        )
        .await,
    );
    let (x, y, w, h) = bounds_in(&tree, "push button \"Men\"");
    let r = ok(
        &s,
        "hover_element",
        json!({"app": "Shop", "x": x + w / 2, "y": y + h / 2}),
    )
    .await;
    let out = text(&r);
    assert!(out.contains("] link \"Men 8\"\n"), "{out}");
}

/// A page's JavaScript confirm is a dialog in the click's answer; the page
/// refuses other tools until it is answered, and its OK button answers it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_javascript_confirm_is_answered_with_its_button() {
    let web = Web::start(&fixtures_dir()).expect("serving fixtures/web");
    let s = Server::new(Arc::new(browser().await));
    ok(
        &s,
        "open_application",
        json!({"program": web.url("alerts.html")}),
    )
    .await;
    let r = ok(
        &s,
        "click_element",
        json!({"target": "role:push button && name:Delete all", "app": "Items"}),
    )
    .await;
    let diff = text(&r);
    let dialog = diff
        .lines()
        .find_map(|l| l.strip_suffix("] dialog \"Delete 3 items?\" (modal) (opened)"))
        .and_then(|l| l.strip_prefix("+ ["))
        .unwrap_or_else(|| panic!("no dialog in:\n{diff}"));
    assert!(diff.contains("push button \"OK\" (focused)"), "{diff}");

    let r = s
        .call(
            "click_element",
            args(json!({"target": "role:push button && name:Rename", "app": "Items"})),
        )
        .await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
    assert!(
        text(&r).contains("waits for the answer to its JavaScript confirm \"Delete 3 items?\""),
        "{}",
        text(&r)
    );

    let r = ok(
        &s,
        "click_element",
        json!({"target": "role:dialog >> name:OK", "app": "Items"}),
    )
    .await;
    // The small page's tree may be the answer: the diff is in the JSON.
    let j = r.structured_content.clone().unwrap_or_default();
    let diff = j["ui_diff"].as_str().unwrap_or_default();
    assert!(
        diff.contains(&format!("- [{dialog}] dialog \"Delete 3 items?\"")),
        "{diff}"
    );
    assert!(
        diff.contains("] status bar | name: \"Ready\" -> \"Deleted 3 items\""),
        "{diff}"
    );
}

/// An upload button's file chooser is a dialog whose `File name` takes the
/// path and whose Open gives the page the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_chooser_takes_the_path_typed_and_open_gives_it_to_the_page() {
    let web = Web::start(&fixtures_dir()).expect("serving fixtures/web");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "hello\n").expect("writing a.txt");
    let s = Server::new(Arc::new(browser().await));
    ok(
        &s,
        "open_application",
        json!({"program": web.url("upload.html")}),
    )
    .await;
    let r = ok(
        &s,
        "click_element",
        json!({"target": "role:push button && name:Add photos", "app": "Upload"}),
    )
    .await;
    let diff = text(&r);
    assert!(
        diff.contains("] dialog \"Choose files to upload\" (modal) (opened)"),
        "{diff}"
    );
    assert!(diff.contains("] entry \"File name\" (focused)"), "{diff}");
    ok(
        &s,
        "type_into_element",
        json!({"target": "role:entry && name:File name", "app": "Upload", "text": file.to_string_lossy()}),
    )
    .await;
    let r = ok(
        &s,
        "click_element",
        json!({"target": "role:dialog >> name:Open", "app": "Upload"}),
    )
    .await;
    let j = r.structured_content.clone().unwrap_or_default();
    let diff = j["ui_diff"].as_str().unwrap_or_default();
    assert!(
        diff.contains("] status bar | name: \"No file\" -> \"a.txt (6 bytes)\""),
        "{diff}"
    );
}

/// drag_element moves a card onto another list, and refuses a call that
/// says nowhere to drop.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drag_element_moves_a_card_onto_another_list() {
    let web = Web::start(&fixtures_dir()).expect("serving fixtures/web");
    let s = Server::new(Arc::new(browser().await));
    ok(
        &s,
        "open_application",
        json!({"program": web.url("board.html")}),
    )
    .await;
    let card = json!("role:list item && name:Write report");
    let r = s
        .call(
            "drag_element",
            args(json!({"target": card, "app": "Board"})),
        )
        .await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
    assert!(text(&r).contains("give where to drop"), "{}", text(&r));

    // From a point (a card's centre, as the page's first read placed it:
    // a page mirror keeps the bounds of what moved without changing as
    // they were) onto the list.
    let tree = text(
        &ok(
            &s,
            "get_window_tree",
            json!({"app": "Board", "bounds": true}),
        )
        .await,
    );
    let (x, y, w, h) = bounds_in(&tree, "list item \"Call Ann\"");
    let (fx, fy) = (x + w / 2, y + h / 2);
    let r = ok(
        &s,
        "drag_element",
        json!({"app": "Board", "from_x": fx, "from_y": fy, "to": "role:list && name:Done"}),
    )
    .await;
    let out = text(&r);
    assert!(
        out.contains(&format!(" via CDP Input drag from {fx},{fy} to ")),
        "{out}"
    );
    assert!(
        out.contains("| name: \"Ready\" -> \"Call Ann moved to Done\""),
        "{out}"
    );

    let r = ok(
        &s,
        "drag_element",
        json!({"target": card, "app": "Board", "to": "role:list && name:Done"}),
    )
    .await;
    let j = r.structured_content.clone().unwrap_or_default();
    let diff = j["ui_diff"].as_str().unwrap_or_default();
    assert!(
        diff.contains(
            "~ [e6] list item \"Write report\" in [e10] list \"Done\" | parent: [e5] list \"To do\" -> [e10] list \"Done\""
        ),
        "{diff}"
    );
    assert!(
        diff.contains("| name: \"Call Ann moved to Done\" -> \"Write report moved to Done\""),
        "{diff}"
    );
}

/// The bounds `(x, y, w, h)` a tree with bounds gives the element it names
/// `what` (`push button "Men"`).
fn bounds_in(tree: &str, what: &str) -> (i32, i32, i32, i32) {
    let place = tree
        .lines()
        .find_map(|l| {
            l.split_once(&format!("{what} @"))
                .map(|(_, b)| b.to_owned())
        })
        .unwrap_or_else(|| panic!("no {what} with bounds in:\n{tree}"));
    let numbers: Vec<i32> = place
        .split(|c: char| !c.is_ascii_digit() && c != '-')
        .filter_map(|n| n.parse().ok())
        .collect();
    let [x, y, w, h, ..] = numbers[..] else {
        panic!("bounds {place:?}");
    };
    (x, y, w, h)
}
