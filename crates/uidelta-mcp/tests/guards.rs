//! What keeps the server safe to leave running: over HTTP, only requests
//! that name this server (`Host`) from its own pages (`Origin`), a bounded
//! number of sessions, idle ones closed; and files written only into a
//! private directory, never through a link, never over another file. On a
//! backend with one still application (no desktop needed: these are about
//! the server, not about applications).

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use uidelta_backend::{
    Action, App, Backend, Error, ErrorKind, EventStream, Performed, Result, Scope,
};
use uidelta_mcp::{HttpOptions, LogDir, OutputDir, Server};
use uidelta_model::{Meta, NodeData, Rect, Role, Snapshot, State, TreeBuilder};

use common::{args, text};

/// One application, `still`, whose window holds a button; nothing ever
/// changes. Its screen is a black 64x64 PNG.
struct Still;

impl Backend for Still {
    fn name(&self) -> &'static str {
        "still"
    }

    async fn apps(&self) -> Result<Vec<App>> {
        Ok(vec![App {
            name: "still".into(),
            pid: Some(7),
            id: ":1.7".into(),
            windows: Vec::new(),
            error: None,
        }])
    }

    async fn capture(&self, _app: &App, _scope: &Scope) -> Result<Snapshot> {
        let node = |role, name: &str, id: u32| {
            let mut n = NodeData::named(role, name);
            n.identity = Some(format!(":1.7/{id}"));
            n.states.insert(State::Enabled);
            n.states.insert(State::Showing);
            n.bounds = Some(Rect::new(4, 4 * id as i32, 40, 10));
            n
        };
        let mut b = TreeBuilder::new(node(Role::Application, "still", 0));
        b.open(node(Role::Frame, "Main", 1));
        b.leaf(node(Role::PushButton, "OK", 2));
        b.close();
        let meta = Meta {
            source: "still".into(),
            app: Some("still".into()),
            ..Meta::default()
        };
        Ok(Snapshot::new(meta, b.finish()))
    }

    async fn act(&self, _app: &App, _node: &NodeData, _action: &Action) -> Result<Performed> {
        Ok(Performed {
            method: "nothing".into(),
        })
    }

    async fn key(&self, _app: &App, _chord: &str) -> Result<Performed> {
        Ok(Performed {
            method: "nothing".into(),
        })
    }

    async fn events(&self, _app: &App) -> Result<EventStream> {
        Ok(EventStream::silent())
    }

    async fn screenshot(&self, _area: Option<Rect>) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut e = png::Encoder::new(&mut out, 64, 64);
        e.set_color(png::ColorType::Rgb);
        e.set_depth(png::BitDepth::Eight);
        let mut writer = e
            .write_header()
            .map_err(|e| Error::new(ErrorKind::Other, e.to_string()))?;
        writer
            .write_image_data(&[0; 64 * 64 * 3])
            .map_err(|e| Error::new(ErrorKind::Other, e.to_string()))?;
        writer
            .finish()
            .map_err(|e| Error::new(ErrorKind::Other, e.to_string()))?;
        Ok(out)
    }

    async fn open(&self, program: &str, _args: &[String], _timeout: Duration) -> Result<App> {
        Err(Error::new(
            ErrorKind::Unsupported,
            format!("opening {program}: nothing opens here"),
        ))
    }

    async fn close_window(&self, _app: &App, _window: &NodeData) -> Result<Performed> {
        Ok(Performed {
            method: "nothing".into(),
        })
    }

    async fn activate_window(&self, _app: &App, _window: &NodeData) -> Result<Performed> {
        Ok(Performed {
            method: "nothing".into(),
        })
    }
}

/// An HTTP answer, its body de-chunked.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// POSTs `body` to `http://addr/mcp` with `headers` (a `Host` among them
/// replaces the one naming `addr`) and reads the whole answer.
async fn post(addr: SocketAddr, headers: &[(&str, &str)], body: &str) -> Answer {
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(addr).expect("the server accepts connections");
        // Liveness only: an answer that never ends fails instead of hanging.
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .expect("a read timeout");
        stream
            .write_all(request.as_bytes())
            .expect("the request is sent");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).expect("the whole answer");
        parse(&raw)
    })
    .await
    .expect("the request ran")
}

fn parse(raw: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        let mut out = String::new();
        let mut rest = body;
        while let Some((size, after)) = rest.split_once("\r\n") {
            let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if size == 0 || after.len() < size {
                break;
            }
            out.push_str(&after[..size]);
            rest = after[size..].trim_start_matches("\r\n");
        }
        out
    } else {
        body.to_owned()
    };
    Answer {
        status,
        headers,
        body,
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"guards","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const VERSION: (&str, &str) = ("MCP-Protocol-Version", "2025-06-18");

/// Starts a session with `headers` on every request; its id.
async fn session(addr: SocketAddr, headers: &[(&str, &str)]) -> String {
    let init = post(addr, headers, INITIALIZE).await;
    assert_eq!(init.status, 200, "{init:?}");
    assert!(init.body.contains("\"serverInfo\""), "{init:?}");
    let id = init
        .header("mcp-session-id")
        .unwrap_or_else(|| panic!("no session id: {init:?}"))
        .to_owned();
    let mut with_id = headers.to_vec();
    with_id.extend([("Mcp-Session-Id", id.as_str()), VERSION]);
    let done = post(addr, &with_id, INITIALIZED).await;
    assert_eq!(done.status, 202, "{done:?}");
    id
}

/// Calls `tool` with `arguments` in session `id`.
async fn call(addr: SocketAddr, id: &str, tool: &str, arguments: Value) -> Answer {
    let body = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    });
    post(addr, &[("Mcp-Session-Id", id), VERSION], &body.to_string()).await
}

/// The status of a `tools/list` in session `id` (404: the session is gone).
async fn list_status(addr: SocketAddr, id: &str) -> u16 {
    let body = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;
    post(addr, &[("Mcp-Session-Id", id), VERSION], body)
        .await
        .status
}

/// Serves `backend` on a free loopback port with `opts` (its address is
/// replaced); the address.
async fn serve(backend: Arc<Still>, opts: HttpOptions) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("its address");
    let opts = HttpOptions { addr, ..opts };
    tokio::spawn(async move {
        if let Err(e) = uidelta_mcp::serve_listener(backend, listener, opts).await {
            panic!("the server stopped: {e}");
        }
    });
    addr
}

fn loopback() -> HttpOptions {
    HttpOptions::new(SocketAddr::from(([127, 0, 0, 1], 0)))
}

/// Waits until `done` holds; false after a minute (liveness only).
async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_must_name_this_server_and_come_from_its_own_pages() {
    let addr = serve(
        Arc::new(Still),
        HttpOptions {
            allow_origins: vec!["https://app.example".into()],
            ..loopback()
        },
    )
    .await;
    let port = addr.port();
    let own = [
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        format!("http://[::1]:{port}"),
        "https://app.example".to_owned(),
    ];
    for origin in &own {
        session(addr, &[("Origin", origin)]).await;
    }
    // Clients that are not browsers send no Origin.
    session(addr, &[]).await;
    for origin in [
        "http://evil.example",
        "http://127.0.0.1:1",
        "https://127.0.0.1",
        "null",
        "https://app.example:8443",
    ] {
        let refused = post(addr, &[("Origin", origin)], INITIALIZE).await;
        assert_eq!(refused.status, 403, "{origin}: {refused:?}");
        assert!(refused.header("mcp-session-id").is_none(), "{origin}");
    }
    // A page of another site gets nothing out of a session either.
    let id = session(addr, &[]).await;
    let body = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;
    let with = |origin| [("Mcp-Session-Id", id.as_str()), VERSION, ("Origin", origin)];
    let refused = post(addr, &with("http://evil.example"), body).await;
    assert_eq!(refused.status, 403, "{refused:?}");
    let listed = post(addr, &with(&own[0]), body).await;
    assert_eq!(listed.status, 200, "{listed:?}");
    assert!(listed.body.contains("get_window_tree"), "{listed:?}");
    // A name pointed at 127.0.0.1 (DNS rebinding) is not this server.
    let rebound = post(addr, &[("Host", "evil.example")], INITIALIZE).await;
    assert_eq!(rebound.status, 403, "{rebound:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_loopback_a_token_is_needed_and_hosts_are_still_checked() {
    // Told to serve beyond loopback without a token: refused.
    let anywhere = tokio::net::TcpListener::bind("0.0.0.0:0")
        .await
        .expect("a free port");
    let served = uidelta_mcp::serve_listener(
        Arc::new(Still),
        anywhere,
        HttpOptions {
            allow_remote: true,
            allow_hosts: vec!["desktop.example".into()],
            ..loopback()
        },
    );
    // Liveness only: a server that serves never returns.
    let refused = tokio::time::timeout(Duration::from_secs(60), served)
        .await
        .expect("refused at once, not served");
    assert!(
        matches!(&refused, Err(uidelta_mcp::Error::Config(m)) if m.contains("--token")),
        "{refused:?}"
    );

    let token = "0123-token";
    let addr = serve(
        Arc::new(Still),
        HttpOptions {
            token: Some(token.into()),
            allow_remote: true,
            allow_hosts: vec!["desktop.example".into()],
            ..loopback()
        },
    )
    .await;
    let bearer = format!("Bearer {token}");
    let auth = ("Authorization", bearer.as_str());
    let port = addr.port();
    let named = format!("desktop.example:{port}");
    session(addr, &[auth, ("Host", &named)]).await;
    session(addr, &[auth]).await;
    let page = format!("http://desktop.example:{port}");
    session(addr, &[auth, ("Host", &named), ("Origin", &page)]).await;
    for host in ["evil.example", "evil.example:80", "desktop.example.evil"] {
        let refused = post(addr, &[auth, ("Host", host)], INITIALIZE).await;
        assert_eq!(refused.status, 403, "{host}: {refused:?}");
    }
    let refused = post(addr, &[auth, ("Origin", "http://evil.example")], INITIALIZE).await;
    assert_eq!(refused.status, 403, "{refused:?}");
    let unauthorized = post(addr, &[("Host", &named)], INITIALIZE).await;
    assert_eq!(unauthorized.status, 401, "{unauthorized:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_bounded_and_the_one_idle_longest_goes_with_its_snapshots() {
    const MAX: usize = 3;
    let backend = Arc::new(Still);
    let before = Arc::strong_count(&backend);
    let addr = serve(
        Arc::clone(&backend),
        HttpOptions {
            max_sessions: MAX,
            ..loopback()
        },
    )
    .await;
    // What the server holds of the backend with no session, and what each
    // session (its engine session) adds.
    assert!(eventually(|| Arc::strong_count(&backend) > before).await);
    let idle = Arc::strong_count(&backend);
    let first = session(addr, &[]).await;
    let tree = call(addr, &first, "get_window_tree", json!({"app": "still"})).await;
    assert!(tree.body.contains("push button \\\"OK\\\""), "{tree:?}");
    let each = Arc::strong_count(&backend) - idle;
    assert!(each > 0, "a session holds the backend");

    let mut ids = vec![first];
    for _ in 1..MAX + 2 {
        ids.push(session(addr, &[]).await);
    }
    // The two idle longest are gone, engine sessions and all.
    assert!(
        eventually(|| Arc::strong_count(&backend) == idle + MAX * each).await,
        "{} references to the backend, not {}",
        Arc::strong_count(&backend),
        idle + MAX * each
    );
    for (n, id) in ids.iter().enumerate() {
        let status = list_status(addr, id).await;
        assert_eq!(status, if n < 2 { 404 } else { 200 }, "session {n}");
    }
    // Using a session makes it the newest: the next one to go is ids[3].
    list_status(addr, &ids[2]).await;
    ids.push(session(addr, &[]).await);
    assert_eq!(list_status(addr, &ids[3]).await, 404);
    for id in [&ids[2], &ids[4], &ids[5]] {
        assert_eq!(list_status(addr, id).await, 200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sessions_are_closed_but_not_while_a_call_is_answered() {
    let backend = Arc::new(Still);
    let addr = serve(
        Arc::clone(&backend),
        HttpOptions {
            session_idle: Duration::from_secs(1),
            ..loopback()
        },
    )
    .await;
    assert!(eventually(|| Arc::strong_count(&backend) > 1).await);
    let served = Arc::strong_count(&backend);
    let waiting = session(addr, &[]).await;
    let idle = session(addr, &[]).await;
    let each = (Arc::strong_count(&backend) - served) / 2;
    assert!(each > 0, "a session holds the backend");
    // A wait longer than the idle limit: its session is busy, not idle.
    let wait = tokio::spawn(async move {
        call(
            addr,
            &waiting,
            "wait_for_change",
            json!({"app": "still", "timeout_ms": 4000}),
        )
        .await
    });
    // (Asking after the idle session would use it: the count tells.)
    assert!(
        eventually(|| Arc::strong_count(&backend) == served + each).await,
        "the idle session was never closed"
    );
    assert_eq!(list_status(addr, &idle).await, 404);
    let answered = wait.await.expect("the wait ran");
    assert_eq!(answered.status, 200, "{answered:?}");
    assert!(
        answered.body.contains("\"result\"") && answered.body.contains("has_ui_changes"),
        "the session was closed during its call: {answered:?}"
    );
    // Then it is idle too, and both engine sessions are gone.
    assert!(
        eventually(|| Arc::strong_count(&backend) == served).await,
        "{} references to the backend, not {served}",
        Arc::strong_count(&backend)
    );
}

/// A fresh scratch directory for `name`.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uidelta-guards-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .expect("the file is there")
        .mode()
        & 0o777
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[tokio::test]
async fn the_log_dir_is_private_and_its_files_are_new_ones() {
    let root = scratch("log");
    // Made by the server: private.
    let dir = root.join("made");
    LogDir::open(&dir).expect("a new log directory");
    assert_eq!(mode(&dir), 0o700);

    // Made by someone else first: refused, with why.
    let open = root.join("open");
    std::fs::create_dir(&open).expect("a directory");
    chmod(&open, 0o777);
    let refused = LogDir::open(&open).map(drop).map_err(|e| e.to_string());
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.contains("other users may use it (mode 777)")),
        "{refused:?}"
    );
    chmod(&open, 0o750);
    assert!(LogDir::open(&open).is_err(), "readable by the group");
    let linked = root.join("linked");
    std::os::unix::fs::symlink(&dir, &linked).expect("a link");
    let refused = LogDir::open(&linked).map(drop).map_err(|e| e.to_string());
    assert!(
        refused.as_ref().is_err_and(|e| e.contains("symbolic link")),
        "{refused:?}"
    );
    let theirs = root.join("theirs");
    std::fs::create_dir(&theirs).expect("a directory");
    chmod(&theirs, 0o700);
    match std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)) {
        Ok(()) => {
            let refused = LogDir::open(&theirs).map(drop).map_err(|e| e.to_string());
            assert!(
                refused
                    .as_ref()
                    .is_err_and(|e| e.contains("belongs to user 65534")),
                "{refused:?}"
            );
            // Nor is it written into later.
            let s = Server::new(Arc::new(Still)).with_log_dir(Arc::new(LogDir::new(&theirs)));
            s.call("get_window_tree", args(json!({"app": "still"})))
                .await;
            let r = s
                .call(
                    "click_element",
                    args(json!({"target": "name:OK", "settle": "none"})),
                )
                .await;
            assert!(text(&r).contains("# log: refusing"), "{}", text(&r));
            assert_eq!(std::fs::read_dir(&theirs).map(|d| d.count()).ok(), Some(0));
        }
        Err(e) => eprintln!("not checking a directory of another user: chown needs root ({e})"),
    }

    // A link planted where the next receipt goes is not followed: the
    // receipt takes the next number (or fails, saying why), and the link's
    // target is untouched.
    let s = Server::new(Arc::new(Still)).with_log_dir(Arc::new(LogDir::new(&dir)));
    let victim = root.join("victim");
    std::fs::write(&victim, "precious").expect("a file");
    std::os::unix::fs::symlink(&victim, dir.join("0001-click_element.txt")).expect("a link");
    std::os::unix::fs::symlink(&victim, dir.join("0002-click_element.png")).expect("a link");
    s.call("get_window_tree", args(json!({"app": "still"})))
        .await;
    let click = json!({"target": "name:OK", "settle": "none"});
    let r = s.call("click_element", args(click.clone())).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let png = dir.join("0002-click_element.png");
    assert!(
        text(&r).contains(&format!("# log: {} exists already", png.display())),
        "{}",
        text(&r)
    );
    assert_eq!(mode(&dir.join("0002-click_element.txt")), 0o600);
    let r = s.call("click_element", args(click.clone())).await;
    let logged = r.structured_content.expect("structured");
    assert_eq!(
        logged["log"]["text"],
        json!(dir.join("0003-click_element.txt").to_string_lossy()),
        "{logged}"
    );
    for name in ["0003-click_element.txt", "0003-click_element.png"] {
        assert_eq!(mode(&dir.join(name)), 0o600, "{name}");
    }
    assert_eq!(
        std::fs::read_to_string(&victim).ok().as_deref(),
        Some("precious")
    );
    // Another server on the directory goes on from the highest number.
    let s = Server::new(Arc::new(Still)).with_log_dir(Arc::new(LogDir::new(&dir)));
    s.call("get_window_tree", args(json!({"app": "still"})))
        .await;
    let r = s.call("click_element", args(click)).await;
    let logged = r.structured_content.expect("structured");
    assert_eq!(
        logged["log"]["png"],
        json!(dir.join("0004-click_element.png").to_string_lossy()),
        "{logged}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[tokio::test]
async fn an_output_file_is_written_only_into_the_output_directory() {
    let root = scratch("output");
    let out = root.join("out");
    let s = Server::new(Arc::new(Still)).with_output_dir(Arc::new(OutputDir::new(&out)));
    let tree = |file: &str| {
        s.call(
            "get_window_tree",
            args(json!({"app": "still", "output_file": file})),
        )
    };
    let written = out.join("tree.txt");
    for file in ["tree.txt", &written.to_string_lossy()] {
        let r = tree(file).await;
        assert_eq!(r.is_error, Some(false), "{file}: {}", text(&r));
        let j = r.structured_content.expect("structured");
        assert_eq!(j["output_file"], json!(written.to_string_lossy()), "{j}");
    }
    assert!(std::fs::read_to_string(&written)
        .expect("the tree")
        .contains("push button \"OK\""));
    assert_eq!(mode(&out), 0o700);
    assert_eq!(mode(&written), 0o600);

    // Nowhere else: not up, not elsewhere, not into a directory of it.
    let elsewhere = root.join("elsewhere.txt");
    for file in [
        "../elsewhere.txt",
        &elsewhere.to_string_lossy(),
        "sub/tree.txt",
        "/etc/uidelta-guards-test",
        "",
    ] {
        let r = tree(file).await;
        assert_eq!(r.is_error, Some(true), "{file}: {}", text(&r));
        assert!(text(&r).contains("bad_argument"), "{file}: {}", text(&r));
    }
    assert!(!elsewhere.exists());
    assert!(!Path::new("/etc/uidelta-guards-test").exists());

    // A link there is replaced, never written through.
    let victim = root.join("victim");
    std::fs::write(&victim, "precious").expect("a file");
    std::os::unix::fs::symlink(&victim, out.join("link.txt")).expect("a link");
    let r = tree("link.txt").await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert_eq!(
        std::fs::read_to_string(&victim).ok().as_deref(),
        Some("precious")
    );
    assert_eq!(mode(&out.join("link.txt")), 0o600, "a file now");

    // The directory itself: a link, or open to others, is refused.
    let linked = root.join("linked");
    std::os::unix::fs::symlink(&out, &linked).expect("a link");
    let open = root.join("open");
    std::fs::create_dir(&open).expect("a directory");
    chmod(&open, 0o777);
    for dir in [&linked, &open] {
        assert!(OutputDir::open(dir).is_err(), "{}", dir.display());
        let s = Server::new(Arc::new(Still)).with_output_dir(Arc::new(OutputDir::new(dir)));
        let r = s
            .call(
                "get_window_tree",
                args(json!({"app": "still", "output_file": "tree.txt"})),
            )
            .await;
        assert!(text(&r).contains("refusing"), "{}", text(&r));
    }
    assert_eq!(std::fs::read_dir(&open).map(|d| d.count()).ok(), Some(0));

    // A server without an output directory writes nothing.
    let r = Server::new(Arc::new(Still))
        .call(
            "get_window_tree",
            args(json!({"app": "still", "output_file": "tree.txt"})),
        )
        .await;
    assert!(text(&r).contains("no output directory"), "{}", text(&r));
    let _ = std::fs::remove_dir_all(&root);
}
