//! The tool handlers on a fake backend: malformed input, hung and panicking
//! applications, per-client sessions and password redaction, without a
//! desktop. (tests/mcp.rs of the `uidelta` crate drives the real thing.)

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::CallToolResult;
use serde_json::{json, Value};
use uidelta_backend::{
    Action, App, Backend, Error, ErrorKind, EventStream, Performed, Result, Scope, Window,
};
use uidelta_mcp::{LogDir, Server};
use uidelta_model::{Meta, NodeData, Rect, Role, Snapshot, State, TreeBuilder};

use common::{args, text};

/// One application, `fake`, with one window: a check box that clicks
/// toggle, an entry and a password entry that typing fills, a button whose
/// action never returns and one whose action panics, and a toggle button
/// that shows and hides a label. Its screen is a grey 200x200 PNG.
#[derive(Default)]
struct Fake {
    agreed: Mutex<bool>,
    typed: Mutex<(String, String)>,
    more: Mutex<bool>,
}

const GREY: [u8; 3] = [90, 90, 90];

/// A `w`x`h` PNG of one colour.
fn solid_png(w: u32, h: u32, colour: [u8; 3]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, w, h);
    e.set_color(png::ColorType::Rgb);
    e.set_depth(png::BitDepth::Eight);
    let pixels: Vec<u8> = (0..w * h).flat_map(|_| colour).collect();
    let mut writer = e.write_header().expect("png header");
    writer.write_image_data(&pixels).expect("png data");
    writer.finish().expect("png end");
    out
}

fn node(role: Role, name: &str, id: u32) -> NodeData {
    let mut n = NodeData::named(role, name);
    n.identity = Some(format!(":1.1/{id}"));
    n.states.insert(State::Enabled);
    n.states.insert(State::Showing);
    n.bounds = Some(Rect::new(10, 10 * id as i32, 100, 20));
    n
}

impl Backend for Fake {
    fn name(&self) -> &'static str {
        "fake"
    }

    async fn apps(&self) -> Result<Vec<App>> {
        Ok(vec![App {
            name: "fake".into(),
            pid: Some(42),
            id: ":1.1".into(),
            windows: vec![Window {
                title: "Main".into(),
                role: "frame".into(),
                id: "/1".into(),
                active: true,
                showing: true,
            }],
            error: None,
        }])
    }

    async fn capture(&self, _app: &App, _scope: &Scope) -> Result<Snapshot> {
        let mut b = TreeBuilder::new(node(Role::Application, "fake", 0));
        let mut frame = node(Role::Frame, "Main", 1);
        frame.states.insert(State::Active);
        b.open(frame);
        let mut agree = node(Role::CheckBox, "Agree", 2);
        if *self.agreed.lock().unwrap_or_else(|e| e.into_inner()) {
            agree.states.insert(State::Checked);
        }
        b.leaf(agree);
        let typed = self.typed.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut notes = node(Role::Entry, "Notes", 3);
        notes.value = Some(typed.0);
        b.leaf(notes);
        let mut password = node(Role::PasswordText, "Password", 4);
        password.value = Some(typed.1);
        b.leaf(password);
        b.leaf(node(Role::PushButton, "Hang", 5));
        b.leaf(node(Role::PushButton, "Panic", 6));
        b.leaf(node(Role::ToggleButton, "More", 8));
        if *self.more.lock().unwrap_or_else(|e| e.into_inner()) {
            b.leaf(node(Role::Label, "Extra", 7));
        }
        b.close();
        let meta = Meta {
            source: "fake".into(),
            app: Some("fake".into()),
            ..Meta::default()
        };
        Ok(Snapshot::new(meta, b.finish()))
    }

    async fn act(&self, _app: &App, node: &NodeData, action: &Action) -> Result<Performed> {
        match (node.name.as_str(), action) {
            ("Hang", _) => std::future::pending().await,
            ("Panic", _) => panic!("the fake application's Panic button"),
            ("Agree", Action::Click) => {
                let mut agreed = self.agreed.lock().unwrap_or_else(|e| e.into_inner());
                *agreed = !*agreed;
            }
            ("More", Action::Click) => {
                let mut more = self.more.lock().unwrap_or_else(|e| e.into_inner());
                *more = !*more;
            }
            ("Notes", Action::Type(t)) => {
                self.typed.lock().unwrap_or_else(|e| e.into_inner()).0 += t
            }
            ("Password", Action::Type(t)) => {
                self.typed.lock().unwrap_or_else(|e| e.into_inner()).1 += t
            }
            _ => {}
        }
        Ok(Performed {
            method: "fake action".into(),
        })
    }

    async fn key(&self, _app: &App, chord: &str) -> Result<Performed> {
        Ok(Performed {
            method: format!("fake {chord}"),
        })
    }

    async fn events(&self, _app: &App) -> Result<EventStream> {
        Ok(EventStream::silent())
    }

    async fn screenshot(&self, _area: Option<Rect>) -> Result<Vec<u8>> {
        Ok(solid_png(200, 200, GREY))
    }

    async fn open(&self, program: &str, _args: &[String], _timeout: Duration) -> Result<App> {
        Err(Error::new(
            ErrorKind::Unsupported,
            format!("opening {program}: the fake desktop opens nothing"),
        ))
    }

    async fn close_window(&self, _app: &App, _window: &NodeData) -> Result<Performed> {
        Ok(Performed {
            method: "fake close".into(),
        })
    }

    async fn activate_window(&self, _app: &App, _window: &NodeData) -> Result<Performed> {
        Ok(Performed {
            method: "fake raise".into(),
        })
    }
}

fn kind(r: &CallToolResult) -> String {
    r.structured_content
        .as_ref()
        .and_then(|s| s["error"]["kind"].as_str())
        .unwrap_or("")
        .to_owned()
}

fn server() -> Server<Fake> {
    Server::new(Arc::new(Fake::default()))
}

async fn ok(s: &Server<Fake>, tool: &str, a: Value) -> CallToolResult {
    let r = s.call(tool, args(a.clone())).await;
    assert_eq!(r.is_error, Some(false), "{tool} {a}: {}", text(&r));
    r
}

#[tokio::test]
async fn every_tool_refuses_malformed_arguments_and_the_next_call_works() {
    let s = server();
    let cases = [
        ("get_applications", json!({"x": 1})),
        ("get_window_tree", json!({"app": 1})),
        ("find_elements", json!({})),
        ("click_element", json!({"target": "e1", "click": "middle"})),
        ("click_at", json!({"app": "fake", "x": "1", "y": 2})),
        ("click_at", json!({"app": "fake", "x": 1})),
        ("click_at", json!({"x": 1, "y": 2, "click": "middle"})),
        ("hover_element", json!({"target": ""})),
        ("hover_element", json!({"target": ["e1"]})),
        ("hover_element", json!({"x": 1})),
        ("hover_element", json!({"target": "e1", "x": 1, "y": 2})),
        ("drag_element", json!({"target": "e1"})),
        ("drag_element", json!({"target": "e1", "x": 1})),
        (
            "drag_element",
            json!({"target": "e1", "to": "e2", "x": 1, "y": 2}),
        ),
        ("drag_element", json!({"from_x": 1, "to": "e2"})),
        (
            "drag_element",
            json!({"target": "e1", "from_x": 1, "from_y": 2, "to": "e2"}),
        ),
        ("drag_element", json!({"from_x": 1, "from_y": 2})),
        ("type_into_element", json!({"target": "e1", "text": ""})),
        ("press_key", json!({"key": "Return"})),
        ("set_value", json!({"value": "1"})),
        ("select_option", json!({"target": "e1", "option": ""})),
        ("set_selected", json!({"target": "e1", "selected": 1})),
        ("scroll_element", json!({"target": "e1", "amount": 51})),
        ("invoke_element", json!({"target": "e1", "action": " "})),
        ("activate_element", json!({"target": ""})),
        ("close_window", json!({})),
        ("open_application", json!({"program": ""})),
        (
            "wait_for_change",
            json!({"app": "fake", "timeout_ms": 999_999_999}),
        ),
        (
            "wait_for_element",
            json!({"app": "fake", "selector": "x", "condition": "has_state"}),
        ),
        ("capture_screenshot", json!({"app": ["fake"]})),
        ("navigate_browser", json!({"app": "fake"})),
        (
            "navigate_browser",
            json!({"app": "fake", "url": "http://x", "go": "back"}),
        ),
        ("navigate_browser", json!({"app": "fake", "go": "sideways"})),
        (
            "execute_browser_script",
            json!({"app": "fake", "script": " "}),
        ),
    ];
    for (tool, a) in cases {
        let r = s.call(tool, args(a.clone())).await;
        assert_eq!(r.is_error, Some(true), "{tool} {a}: {}", text(&r));
        assert_eq!(kind(&r), "bad_argument", "{tool} {a}: {}", text(&r));
        ok(&s, "get_applications", json!({})).await;
    }
    // No arguments at all is an empty object.
    let r = s.call("click_element", None).await;
    assert!(text(&r).contains("missing field `target`"), "{}", text(&r));
}

#[tokio::test]
async fn browser_tools_on_a_desktop_backend_say_it_has_no_browser() {
    let s = server();
    let r = s
        .call(
            "navigate_browser",
            args(json!({"app": "fake", "url": "http://localhost/"})),
        )
        .await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
    assert!(text(&r).contains("no browser to navigate"), "{}", text(&r));
    let r = s
        .call(
            "execute_browser_script",
            args(json!({"app": "fake", "script": "1 + 1"})),
        )
        .await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
    assert!(
        text(&r).contains("cannot run browser scripts"),
        "{}",
        text(&r)
    );
    ok(&s, "get_applications", json!({})).await;
}

#[tokio::test]
async fn a_click_answers_with_its_diff_and_the_token_sizes() {
    let s = server();
    let tree = text(&ok(&s, "get_window_tree", json!({"app": "fake"})).await);
    assert!(tree.contains("[e3] check box \"Agree\""), "{tree}");
    let r = ok(&s, "click_element", json!({"target": "e3"})).await;
    let j = r.structured_content.as_ref().expect("structured");
    assert_eq!(
        j["ui_diff"].as_str().map(|d| d.lines().nth(1)),
        Some(Some("~ [e3] check box \"Agree\" | checked: false -> true")),
        "{j}"
    );
    assert_eq!(j["has_ui_changes"], true);
    assert_eq!(j["counts"]["modified"], 1);
    assert_eq!(
        j["target"],
        json!({"ref": "e3", "role": "check box", "name": "Agree"})
    );
    assert_eq!(j["method"], "fake action");
    assert!(j["diff_tokens"].as_u64() > Some(0));
    assert!(j["tree_tokens"].as_u64() > j["diff_tokens"].as_u64(), "{j}");
    assert_eq!(j["settle_capped"], false, "the poll saw the change: {j}");
    // A selector, limited to the application.
    let r = ok(
        &s,
        "click_element",
        json!({"target": "role:check box", "app": "fake", "settle": "none"}),
    )
    .await;
    assert!(text(&r).contains("checked: true -> false"), "{}", text(&r));
    // Errors name what was asked.
    let r = s
        .call("click_element", args(json!({"target": "e99"})))
        .await;
    assert_eq!(kind(&r), "unknown_ref");
    let r = s
        .call(
            "click_element",
            args(json!({"target": "role:push button", "app": "fake"})),
        )
        .await;
    assert_eq!(kind(&r), "ambiguous");
    assert!(
        text(&r).contains("`role:push button` matches 2"),
        "{}",
        text(&r)
    );
}

#[tokio::test]
async fn a_hung_application_is_a_timeout_and_the_server_keeps_serving() {
    let s = server().with_call_limit(Duration::from_millis(300));
    ok(&s, "get_window_tree", json!({"app": "fake"})).await;
    let started = Instant::now();
    let r = s
        .call(
            "click_element",
            args(json!({"target": "name:Hang", "app": "fake"})),
        )
        .await;
    assert_eq!(kind(&r), "timeout", "{}", text(&r));
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(
        text(&r).contains("the server keeps serving"),
        "{}",
        text(&r)
    );
    ok(&s, "find_elements", json!({"selector": "name:Agree"})).await;
}

#[tokio::test]
async fn a_panic_is_an_internal_error_and_the_server_keeps_serving() {
    let s = server();
    let r = s
        .call(
            "click_element",
            args(json!({"target": "name:Panic", "app": "fake"})),
        )
        .await;
    assert_eq!(kind(&r), "internal", "{}", text(&r));
    ok(
        &s,
        "click_element",
        json!({"target": "name:Agree", "settle": "none"}),
    )
    .await;
}

#[tokio::test]
async fn each_client_has_its_own_refs_and_none_waits_for_another() {
    let backend = Arc::new(Fake::default());
    let a = Server::new(Arc::clone(&backend)).with_call_limit(Duration::from_secs(2));
    let b = Server::new(Arc::clone(&backend));
    ok(&a, "get_window_tree", json!({"app": "fake"})).await;
    // Client b starts its own ref numbering, from e1.
    let tree = text(&ok(&b, "get_window_tree", json!({"app": "fake"})).await);
    assert!(tree.contains("[e1] application \"fake\""), "{tree}");
    // a is stuck on a hung application; b goes on.
    let stuck = a.call("click_element", args(json!({"target": "name:Hang"})));
    let other = async {
        let started = Instant::now();
        ok(
            &b,
            "click_element",
            json!({"target": "e3", "settle": "none"}),
        )
        .await;
        started.elapsed()
    };
    let (stuck, took) = tokio::join!(stuck, other);
    assert_eq!(kind(&stuck), "timeout");
    assert!(took < Duration::from_secs(1), "b waited {took:?}");
    // a never saw e3 change through its own session, but its refs are intact.
    let r = ok(&a, "find_elements", json!({"selector": "e3"})).await;
    assert!(
        text(&r).contains("[e3] check box \"Agree\" (checked)"),
        "{}",
        text(&r)
    );
}

#[tokio::test]
async fn long_arguments_are_refused_or_echoed_short() {
    let s = server();
    ok(&s, "get_window_tree", json!({"app": "fake"})).await;
    let chord = "ctrl+".repeat(120_000) + "a";
    let cases = [
        ("press_key", json!({"key": chord, "app": "fake"})),
        ("press_key", json!({"key": chord, "target": "name:Notes"})),
    ];
    for (tool, a) in cases {
        let r = s.call(tool, args(a)).await;
        let all = serde_json::to_string(&r).expect("json");
        assert!(all.len() < 2_000, "{} bytes: {}", all.len(), &all[..2_000]);
        assert_eq!(kind(&r), "bad_argument", "{}", text(&r));
        assert!(
            text(&r).contains("is 600001 characters long, more than the 200 a chord may have"),
            "{}",
            text(&r)
        );
    }
    let r = s
        .call(
            "type_into_element",
            args(json!({"target": "name:Notes", "text": "x".repeat(100_001)})),
        )
        .await;
    assert_eq!(kind(&r), "bad_argument", "{}", text(&r));
    assert!(
        text(&r).contains("has 100001 characters, more than the 100000 one action types"),
        "{}",
        text(&r)
    );
    assert!(serde_json::to_string(&r).expect("json").len() < 2_000);
    // Nothing was typed.
    let tree = ok(&s, "get_window_tree", json!({"app": "fake"})).await;
    assert!(text(&tree).contains("entry \"Notes\"\n"), "{}", text(&tree));
    // A selector, an application name or an argument name that long is
    // named by its start and length.
    let long = "x".repeat(600_000);
    for (tool, a) in [
        (
            "click_element",
            json!({"target": format!("name:{long}"), "app": "fake"}),
        ),
        (
            "click_element",
            json!({"target": format!("{long}:a"), "app": "fake"}),
        ),
        ("get_window_tree", json!({"app": long})),
        ("get_window_tree", json!({"app": "fake", "window": long})),
        ("get_applications", json!({long.clone(): 1})),
    ] {
        let r = s.call(tool, args(a)).await;
        assert_eq!(r.is_error, Some(true), "{tool}");
        let all = serde_json::to_string(&r).expect("json");
        assert!(all.len() < 2_000, "{tool}: {} bytes", all.len());
        assert!(text(&r).contains("…(600"), "{tool}: {}", text(&r));
    }
}

#[tokio::test]
async fn typed_passwords_never_come_back() {
    let s = server();
    ok(&s, "get_window_tree", json!({"app": "fake"})).await;
    let r = ok(
        &s,
        "type_into_element",
        json!({"target": "name:Password", "app": "fake", "text": "hunter2", "settle": "none",
               "include_tree_after_action": true}),
    )
    .await;
    let all = serde_json::to_string(&r).expect("json");
    assert!(!all.contains("hunter2"), "{all}");
    assert!(text(&r).contains("\u{2022}\u{2022}\u{2022}\u{2022}\u{2022}\u{2022}\u{2022}"));
    for (tool, a) in [
        ("get_window_tree", json!({"app": "fake"})),
        ("find_elements", json!({"selector": "role:password text"})),
    ] {
        let all = serde_json::to_string(&ok(&s, tool, a).await).expect("json");
        assert!(!all.contains("hunter2"), "{tool}: {all}");
    }
    // Text of other entries is shown as it is.
    let r = ok(
        &s,
        "type_into_element",
        json!({"target": "name:Notes", "text": "hello", "settle": "none"}),
    )
    .await;
    assert!(text(&r).contains("\"hello\""), "{}", text(&r));
}

#[tokio::test]
async fn screenshots_are_png_image_content() {
    let s = server();
    let r = ok(&s, "capture_screenshot", json!({"app": "fake"})).await;
    let image = r
        .content
        .iter()
        .find_map(|c| c.as_image())
        .expect("an image");
    assert_eq!(image.mime_type, "image/png");
    let j = r.structured_content.as_ref().expect("structured");
    assert_eq!(j["area"], json!([10, 10, 100, 20]));
}

#[tokio::test]
async fn window_tools_answer_with_diffs() {
    let s = server();
    ok(&s, "get_window_tree", json!({"app": "fake"})).await;
    let r = ok(
        &s,
        "close_window",
        json!({"app": "fake", "window": "main", "settle": "none"}),
    )
    .await;
    assert!(text(&r).contains("via fake close"), "{}", text(&r));
    let r = ok(
        &s,
        "activate_element",
        json!({"target": "name:Agree", "settle": "fixed:10"}),
    )
    .await;
    assert!(text(&r).contains("No UI changes detected"), "{}", text(&r));
    let r = s
        .call("open_application", args(json!({"program": "gedit"})))
        .await;
    assert_eq!(kind(&r), "unsupported", "{}", text(&r));
    // A backend without pointer input says so.
    let r = s
        .call("click_at", args(json!({"app": "fake", "x": 10, "y": 20})))
        .await;
    assert_eq!(kind(&r), "unsupported", "{}", text(&r));
    assert!(
        text(&r).contains("the fake backend cannot click at a point"),
        "{}",
        text(&r)
    );
}

/// The colour of pixel (`x`, `y`) of an RGBA `png`.
fn pixel(png: &[u8], x: usize, y: usize) -> [u8; 3] {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .expect("the receipt decodes");
    let mut buf = vec![0; reader.output_buffer_size().expect("its size")];
    let info = reader.next_frame(&mut buf).expect("its pixels");
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let at = y * info.line_size + x * 4;
    [buf[at], buf[at + 1], buf[at + 2]]
}

#[tokio::test]
async fn the_log_dir_keeps_each_actions_diff_and_a_receipt_with_boxes() {
    const GREEN: [u8; 3] = [0, 255, 0];
    const YELLOW: [u8; 3] = [255, 255, 0];
    const RED: [u8; 3] = [255, 0, 0];
    let dir = std::env::temp_dir().join(format!("uidelta-mcp-log-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let log = Arc::new(LogDir::new(&dir));
    let s = server().with_log_dir(Arc::clone(&log));
    ok(&s, "get_window_tree", json!({"app": "fake"})).await;
    let logged = |n: &str, tool: &str, r: &CallToolResult| {
        let j = r.structured_content.as_ref().expect("structured");
        let txt = dir.join(format!("{n}-{tool}.txt"));
        let png = dir.join(format!("{n}-{tool}.png"));
        assert_eq!(j["log"]["text"], json!(txt.to_string_lossy()), "{j}");
        assert_eq!(j["log"]["png"], json!(png.to_string_lossy()), "{j}");
        let written = std::fs::read_to_string(&txt).expect("the diff text is logged");
        assert_eq!(Some(written.as_str()), j["ui_diff"].as_str(), "{j}");
        std::fs::read(&png).expect("the receipt is logged")
    };

    // Added: boxed green, 3 px inside its bounds (10,70 100x20).
    let r = ok(
        &s,
        "click_element",
        json!({"target": "name:More", "app": "fake", "settle": "none"}),
    )
    .await;
    assert!(
        text(&r).contains("+ [") && text(&r).contains("Extra"),
        "{}",
        text(&r)
    );
    let png = logged("0001", "click_element", &r);
    for (x, y) in [(10, 70), (12, 72), (109, 89), (60, 71), (10, 80)] {
        assert_eq!(pixel(&png, x, y), GREEN, "({x}, {y})");
    }
    for (x, y) in [(60, 80), (9, 70), (110, 89), (150, 150)] {
        assert_eq!(pixel(&png, x, y), GREY, "({x}, {y})");
    }

    // Modified: yellow; removed: red, where it was.
    let r = ok(
        &s,
        "click_element",
        json!({"target": "name:Agree", "settle": "none"}),
    )
    .await;
    assert_eq!(pixel(&logged("0002", "click_element", &r), 10, 20), YELLOW);
    let r = ok(
        &s,
        "click_element",
        json!({"target": "name:More", "settle": "none"}),
    )
    .await;
    assert!(text(&r).contains("- ["), "{}", text(&r));
    assert_eq!(pixel(&logged("0003", "click_element", &r), 10, 70), RED);

    // Password values are in no log file either.
    let r = ok(
        &s,
        "type_into_element",
        json!({"target": "name:Password", "text": "hunter2", "settle": "none"}),
    )
    .await;
    logged("0004", "type_into_element", &r);
    for entry in std::fs::read_dir(&dir).expect("the log directory") {
        let bytes = std::fs::read(entry.expect("an entry").path()).expect("a log file");
        assert!(!String::from_utf8_lossy(&bytes).contains("hunter2"));
    }
    // Only actions are logged; and the counter is the server's, not the client's.
    ok(&s, "find_elements", json!({"selector": "name:Agree"})).await;
    let other = server().with_log_dir(Arc::clone(&log));
    ok(&other, "get_window_tree", json!({"app": "fake"})).await;
    let r = ok(
        &other,
        "click_element",
        json!({"target": "name:Agree", "settle": "none"}),
    )
    .await;
    logged("0005", "click_element", &r);
    assert_eq!(std::fs::read_dir(&dir).map(|d| d.count()).ok(), Some(10));
    let _ = std::fs::remove_dir_all(&dir);

    // A log that cannot be written does not fail the call; the answer says why.
    let file = std::env::temp_dir().join(format!("uidelta-mcp-log-{}.file", std::process::id()));
    std::fs::write(&file, "not a directory").expect("a file");
    let s = server().with_log_dir(Arc::new(LogDir::new(&file)));
    ok(&s, "get_window_tree", json!({"app": "fake"})).await;
    let r = ok(
        &s,
        "click_element",
        json!({"target": "name:Agree", "settle": "none"}),
    )
    .await;
    assert!(text(&r).contains("\n# log: creating "), "{}", text(&r));
    assert!(text(&r).contains("checked: false -> true"), "{}", text(&r));
    let _ = std::fs::remove_file(&file);
}

#[tokio::test]
async fn a_change_a_search_saw_is_reported_with_the_next_action() {
    let fake = Arc::new(Fake::default());
    let s = Server::new(fake.clone());
    ok(&s, "get_window_tree", json!({"app": "fake"})).await;
    // The check box is ticked outside any tool call (by a person, say).
    *fake.agreed.lock().expect("lock") = true;
    let r = ok(
        &s,
        "find_elements",
        json!({"selector": "role:check box", "app": "fake"}),
    )
    .await;
    assert!(
        text(&r).contains("[e3] check box \"Agree\""),
        "{}",
        text(&r)
    );
    // The search showed no diff; the next action's answer has it.
    let r = ok(
        &s,
        "click_element",
        json!({"target": "role:toggle button && name:More", "app": "fake"}),
    )
    .await;
    let j = r.structured_content.as_ref().expect("structured");
    let earlier = j["earlier_changes"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| e["ui_diff"].to_string())
                .collect::<String>()
        })
        .unwrap_or_default();
    assert!(earlier.contains("checked: false -> true"), "{j}");
}

#[tokio::test]
async fn a_search_that_finds_nothing_names_the_nearest_elements() {
    let s = Server::new(Arc::new(Fake::default()));
    ok(&s, "get_window_tree", json!({"app": "fake"})).await;
    let r = ok(
        &s,
        "find_elements",
        json!({"selector": "role:check box && name:Agre", "app": "fake"}),
    )
    .await;
    let t = text(&r);
    assert!(t.contains("No element matches"), "{t}");
    assert!(
        t.contains("Nearest by name:\n  [e3] check box \"Agree\""),
        "{t}"
    );
    let j = r.structured_content.as_ref().expect("structured");
    assert_eq!(j["total"], 0, "{j}");
    assert_eq!(j["near"][0]["ref"], "e3", "{j}");
    assert_eq!(j["near"][0]["app"], "fake", "{j}");
    // A selector that asks for no name has nothing to come near to.
    let r = ok(
        &s,
        "find_elements",
        json!({"selector": "role:slider", "app": "fake"}),
    )
    .await;
    assert!(!text(&r).contains("Nearest"), "{}", text(&r));
    let j = r.structured_content.as_ref().expect("structured");
    assert!(j.get("near").is_none(), "{j}");
}
