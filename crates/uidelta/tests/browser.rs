//! The command line in a browser: `--browser --url` starts a headless
//! Chromium for one command. Needs Debian's `chromium`; without it every
//! command fails saying `apt-get install -y chromium`, and so does this test.

mod common;

use std::path::Path;
use std::process::Command;

use common::{is_error, text, Mcp};
use serde_json::json;
use uidelta_testkit::web::{fixtures_dir, Server};
use uidelta_testkit::{output_within, COMMAND_LIMIT};

fn uidelta(args: &[&str]) -> (i32, String, String) {
    uidelta_in(None, args)
}

/// [`uidelta`] in the working directory `dir`.
fn uidelta_in(dir: Option<&Path>, args: &[&str]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_uidelta"));
    command.args(args);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let what = format!("uidelta {}", args.join(" "));
    let o = output_within(command, COMMAND_LIMIT, &what).unwrap_or_else(|e| panic!("{e}"));
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn click_navigate_script_and_tree_in_a_headless_browser() {
    let web = Server::start(&fixtures_dir()).expect("serving fixtures/web");

    let (code, out, err) = uidelta(&["tree", "--browser", "--url", &web.url("controls.html")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("[e1] document web \"Preferences\""),
        "{out}"
    );
    assert!(
        out.contains("  [e3] check box \"Subscribe to newsletter\"\n"),
        "{out}"
    );

    let url = web.url("controls.html");
    let (code, out, err) = uidelta(&[
        "click",
        "--browser",
        "--url",
        &url,
        "role:check box && name:Subscribe to newsletter",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[1].starts_with("# diff: ~2 modified · settled in "),
        "{out}"
    );
    assert_eq!(
        lines[2],
        "~ [e3] check box \"Subscribe to newsletter\" | checked: false -> true"
    );
    assert_eq!(
        lines[3],
        "~ [e15] status bar | name: \"No changes yet\" -> \"Newsletter: subscribed\""
    );

    // The pointer over a menu's button: the menu that shows on hover.
    let (code, out, err) = uidelta(&[
        "hover",
        "--browser",
        "--url",
        &web.url("shop.html?n=2"),
        "role:push button && name:Women",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("# [e4] push button \"Women\" via CDP Input mouse moved to "),
        "{out}"
    );
    // The menu alone: its button stays where it was, under its ref.
    assert!(
        lines[1].starts_with("# diff: +1 added · settled in "),
        "{out}"
    );
    assert_eq!(
        lines[2], "+ [e21] list in [e2] landmark \"Departments\"",
        "{out}"
    );
    assert_eq!(lines[10], "    [e29] link \"Women 8\"", "{out}");

    let (code, out, err) = uidelta(&[
        "navigate",
        "--browser",
        "--url",
        &web.url("controls.html"),
        &web.url("form.html"),
    ]);
    assert_eq!(code, 0, "{err}");
    // The new page's whole tree costs less than its diff: the answer is
    // that tree.
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[1].starts_with(
            "# tree after the action (smaller than its diff): new document, was \"Preferences\" · "
        ),
        "{out}"
    );
    assert_eq!(lines[2], "[e1] document web \"Sign up\" (focused)", "{out}");

    let (code, out, err) = uidelta(&[
        "script",
        "--browser",
        "--url",
        &web.url("form.html"),
        "document.title.length",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("# result: 7\n"), "{out}");

    let (code, _, err) = uidelta(&["navigate", "--app", "x", "back"]);
    assert_eq!(code, 2);
    assert!(err.contains("navigate acts in a browser"), "{err}");
}

/// `uidelta mcp --browser --url X`: X is the one tab there is, calls that
/// name no application act on it, and an answer whose diff would cost more
/// than the page's whole tree is that tree.
/// A command answers the page's JavaScript dialogs as they open (it could
/// not leave one open for the next command to answer): Cancel by default,
/// OK with `--dialog accept`, a prompt with `--prompt-text`; each is
/// reported on a note line.
#[test]
fn a_command_answers_javascript_dialogs_as_it_is_told_and_says_so() {
    let web = Server::start(&fixtures_dir()).expect("serving fixtures/web");
    let url = web.url("alerts.html");
    let target = "role:push button && name:Delete all";
    let (code, out, err) = uidelta(&["click", "--browser", "--url", &url, target]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("| name: \"Ready\" -> \"Kept 3 items\"\n"),
        "{out}"
    );
    assert!(
        out.ends_with(
            "# note: the page's JavaScript confirm \"Delete 3 items?\" was dismissed \
             (--dialog accept answers OK)\n"
        ),
        "{out}"
    );

    let (code, out, err) = uidelta(&[
        "click",
        "--browser",
        "--url",
        &url,
        "--dialog",
        "accept",
        target,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("| name: \"Ready\" -> \"Deleted 3 items\"\n"),
        "{out}"
    );
    assert!(
        out.ends_with("# note: the page's JavaScript confirm \"Delete 3 items?\" was accepted\n"),
        "{out}"
    );

    let rename = "role:push button && name:Rename";
    let (code, out, err) = uidelta(&[
        "click",
        "--browser",
        "--url",
        &url,
        "--dialog",
        "accept",
        "--prompt-text",
        "Groceries",
        rename,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("| name: \"Ready\" -> \"Renamed to Groceries\"\n"),
        "{out}"
    );

    let (code, _, err) = uidelta(&[
        "click",
        "--browser",
        "--url",
        &url,
        "--prompt-text",
        "Groceries",
        rename,
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("add --dialog accept"), "{err}");
}

/// A file chooser that opens during a command is given the files of
/// `--file` (relative paths are the working directory's), or left
/// unanswered and said so; a file input takes a file as its value.
#[test]
fn a_command_gives_a_file_chooser_the_files_it_is_told_and_says_so() {
    let web = Server::start(&fixtures_dir()).expect("serving fixtures/web");
    let url = web.url("upload.html");
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("a.txt"), "hello\n").expect("writing a.txt");
    let run = |args: &[&str]| uidelta_in(Some(dir.path()), args);
    let add = "role:push button && name:Add photos";
    let (code, out, err) = run(&["click", "--browser", "--url", &url, add]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.ends_with(
            "No UI changes detected\n# note: the page opened a file chooser, left unanswered \
             (--file PATH answers it)\n"
        ),
        "{out}"
    );
    let (code, out, err) = run(&["click", "--browser", "--url", &url, "--file", "a.txt", add]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("| name: \"No file\" -> \"a.txt (6 bytes)\"\n"),
        "{out}"
    );
    let given = dir.path().join("a.txt");
    assert!(
        out.ends_with(&format!(
            "# note: the page's file chooser was given {}\n",
            given.display()
        )),
        "{out}"
    );
    let (code, _, err) = run(&["click", "--browser", "--url", &url, "--file", "b.txt", add]);
    assert_ne!(code, 0);
    assert!(err.contains("--file b.txt: no such file"), "{err}");

    let attachment = "role:push button && name:Attachment";
    let path = given.to_string_lossy().into_owned();
    let (code, out, err) = run(&["set-value", "--browser", "--url", &url, attachment, &path]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("| value: \"No file chosen\" -> \"a.txt\"\n"),
        "{out}"
    );
}

/// `drag SOURCE TO` moves a card onto another list; `--to-point` drops at
/// a point; without either the command is refused.
#[test]
fn drag_moves_a_card_onto_another_list_in_a_headless_browser() {
    let web = Server::start(&fixtures_dir()).expect("serving fixtures/web");
    let url = web.url("board.html");
    let card = "role:list item && name:Write report";
    let (code, out, err) = uidelta(&[
        "drag",
        "--browser",
        "--url",
        &url,
        card,
        "role:list && name:Done",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("# [e6] list item \"Write report\" via CDP Input drag from "),
        "{out}"
    );
    assert!(
        out.contains(
            "~ [e6] list item \"Write report\" in [e10] list \"Done\" | parent: [e5] list \"To do\" -> [e10] list \"Done\"\n"
        ),
        "{out}"
    );
    let (code, _, err) = uidelta(&["drag", "--browser", "--url", &url, card]);
    assert_ne!(code, 0);
    assert!(
        err.contains("required arguments were not provided"),
        "{err}"
    );
}

/// `scroll TARGET` turns the wheel over it (`--direction`, `--amount`
/// clicks), `--amount 0` scrolls it into view; more than 50 clicks are
/// refused.
#[test]
fn scroll_turns_the_wheel_over_an_element_or_brings_it_into_view() {
    let web = Server::start(&fixtures_dir()).expect("serving fixtures/web");
    let url = web.url("shop.html?n=200");
    let (code, out, err) = uidelta(&[
        "scroll",
        "--browser",
        "--url",
        &url,
        "role:document web",
        "--amount",
        "5",
    ]);
    assert_eq!(code, 0, "{err}");
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("# [e1] document web \"Shop\" via CDP Input wheel 0,5 at "),
        "{out}"
    );
    let (code, out, err) = uidelta(&[
        "scroll",
        "--browser",
        "--url",
        &url,
        "role:toggle button && name:Add 200",
        "--direction",
        "up",
        "--amount",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines()
            .next()
            .is_some_and(|l| l.ends_with("\"Add 200\" via DOM.scrollIntoViewIfNeeded")),
        "{out}"
    );
    let (code, _, err) = uidelta(&["scroll", "--browser", "--url", &url, "e1", "--amount", "51"]);
    assert_ne!(code, 0);
    assert!(err.contains("51 is not in 0..=50"), "{err}");
}

#[test]
fn the_mcp_server_acts_on_its_url_tab_alone_and_answers_a_replaced_page_with_its_tree() {
    let web = Server::start(&fixtures_dir()).expect("serving fixtures/web");
    let url = web.url("controls.html");
    let mut mcp = Mcp::start_args(&["--browser", "--url", &url]);

    // No about:blank beside it.
    let apps = mcp.call("get_applications", json!({}));
    let listed = apps["structuredContent"]["applications"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let names: Vec<&str> = listed.iter().filter_map(|a| a["name"].as_str()).collect();
    assert_eq!(names, vec!["Preferences"], "{}", text(&apps));

    // `app` left out: the --url tab.
    let tree = mcp.call("get_window_tree", json!({}));
    assert!(!is_error(&tree), "{}", text(&tree));
    assert!(
        text(&tree).contains("\n  [e3] check box \"Subscribe to newsletter\"\n"),
        "{}",
        text(&tree)
    );
    let clicked = mcp.call(
        "click_element",
        json!({"target": "role:check box && name:Subscribe to newsletter"}),
    );
    assert!(!is_error(&clicked), "{}", text(&clicked));

    // The whole page replaced: the tree after is smaller than the diff.
    let replaced = mcp.call(
        "execute_browser_script",
        json!({"script": "document.body.innerHTML = '<p>Thank you</p>'; 1"}),
    );
    assert!(!is_error(&replaced), "{}", text(&replaced));
    let out = text(&replaced);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "# result: 1", "{out}");
    assert!(
        lines[2].starts_with(
            "# tree after the action (smaller than its diff): +1 added, -6 removed · settled in "
        ),
        "{out}"
    );
    assert_eq!(
        lines[3..5],
        [
            "[e1] document web \"Preferences\" (focused)",
            "  [e16] paragraph \"Thank you\"",
        ],
        "{out}"
    );
    assert!(lines[5].starts_with("# tokens: diff "), "{out}");
    assert_eq!(lines.len(), 6, "{out}");
    let json = &replaced["structuredContent"];
    assert_eq!(json["tree_instead"], json!(true), "{out}");
    // Programs still get the diff.
    let diff = json["ui_diff"].as_str().unwrap_or_default();
    assert!(diff.contains("+ [e16] paragraph \"Thank you\""), "{diff}");
}

/// Without `--url`, `app` may be left out once one application has been
/// read, and only then; otherwise the error lists the candidates.
#[test]
fn the_mcp_server_takes_the_only_application_read_for_granted() {
    let web = Server::start(&fixtures_dir()).expect("serving fixtures/web");
    let mut mcp = Mcp::start_args(&["--browser"]);

    let unread = mcp.call("get_window_tree", json!({}));
    assert!(is_error(&unread), "{}", text(&unread));
    let message = text(&unread);
    assert!(
        message.starts_with(
            "error (bad_argument): get_window_tree: name the application with `app`; none has \
             been read yet, and these run: about:blank ("
        ),
        "{message}"
    );

    let opened = mcp.call("open_application", json!({"program": web.url("form.html")}));
    assert!(!is_error(&opened), "{}", text(&opened));
    let tree = mcp.call("get_window_tree", json!({"app": "Sign up"}));
    assert!(!is_error(&tree), "{}", text(&tree));
    // The one application read: `app` is not needed.
    let waited = mcp.call("wait_for_change", json!({"timeout_ms": 200}));
    assert!(!is_error(&waited), "{}", text(&waited));
    assert_eq!(waited["structuredContent"]["app"]["name"], "Sign up");

    let opened = mcp.call(
        "open_application",
        json!({"program": web.url("controls.html")}),
    );
    assert!(!is_error(&opened), "{}", text(&opened));
    let tree = mcp.call("get_window_tree", json!({"app": "Preferences"}));
    assert!(!is_error(&tree), "{}", text(&tree));
    // Two read: which one is not obvious.
    let which = mcp.call("wait_for_change", json!({"timeout_ms": 200}));
    assert!(is_error(&which), "{}", text(&which));
    let message = text(&which);
    assert!(
        message.starts_with(
            "error (bad_argument): wait_for_change: name the application with `app`; this \
             session has read several: Sign up ("
        ),
        "{message}"
    );
    assert!(message.contains("), Preferences ("), "{message}");
}
