//! `uidelta mcp` driven one JSON-RPC message at a time (over stdio, and over
//! HTTP), on a virtual desktop: what a long-running server owes its host
//! beyond the tools. A line that is no message is answered, a cancelled call
//! stops, no child is left a zombie, the bearer token stays out of the
//! programs it starts, and what is typed stays out of its log.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use uidelta_testkit::{require_programs, Desktop};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/uidelta-fixture.py"
);
const FIXTURE_NAME: &str = "uidelta-fixture";
/// How long an answer may take before the server is taken for hung.
const ANSWER_LIMIT: Duration = Duration::from_secs(90);

fn desktop(with_fixture: bool) -> Desktop {
    require_programs(&[
        ("Xvfb", "xvfb"),
        ("/usr/bin/python3", "python3-gi gir1.2-gtk-3.0"),
    ])
    .expect("programs for the MCP tests");
    let desktop = Desktop::start().expect("a virtual desktop");
    if with_fixture {
        std::mem::forget(desktop.launch(FIXTURE, &[]).expect("launch the fixture"));
        desktop
            .wait_for_accessible_app(FIXTURE_NAME, Duration::from_secs(30))
            .expect("the fixture on the accessibility bus");
    }
    desktop
}

/// `uidelta mcp` on stdio, spoken to one JSON-RPC line at a time.
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Every line read so far.
    seen: Vec<Value>,
    stderr: PathBuf,
}

impl Server {
    /// Starts the server with `env` added, and makes the MCP handshake.
    fn start(desktop: &Desktop, test: &str, env: &[(&str, &str)]) -> Server {
        let stderr = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("mcp-server-{test}-{}.log", std::process::id()));
        let file = std::fs::File::create(&stderr).expect("a file for the server's stderr");
        let mut child = desktop
            .command(env!("CARGO_BIN_EXE_uidelta"))
            .arg("mcp")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(file)
            .spawn()
            .expect("uidelta mcp starts");
        let stdin = child.stdin.take().expect("its stdin");
        let stdout = child.stdout.take().expect("its stdout");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut server = Server {
            child,
            stdin,
            lines,
            seen: Vec::new(),
            stderr,
        };
        server.send(&json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "uidelta tests", "version": "1"},
            },
        }));
        let init = server.answer(&json!(0));
        assert!(init["result"]["serverInfo"].is_object(), "{init}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn send_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .expect("writing to the server");
    }

    fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    /// The next line with `id`; panics when none comes in [`ANSWER_LIMIT`].
    fn answer(&mut self, id: &Value) -> Value {
        let deadline = Instant::now() + ANSWER_LIMIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => panic!(
                    "no answer with id {id} in {} s; read so far: {:?}",
                    ANSWER_LIMIT.as_secs(),
                    self.seen
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "the server closed its output; stderr: {}",
                    self.stderr_text()
                ),
            };
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                panic!("the server wrote a line that is not JSON ({e}): {line}")
            });
            self.seen.push(message.clone());
            if &message["id"] == id {
                return message;
            }
        }
    }

    fn call_tool(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        self.send(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }));
        let answer = self.answer(&json!(id));
        assert!(answer["result"].is_object(), "{tool}: no result: {answer}");
        answer["result"].clone()
    }

    fn stderr_text(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !std::thread::panicking() {
            let _ = std::fs::remove_file(&self.stderr);
        }
    }
}

/// The text of a tool result.
fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect()
}

/// The children of `pid`: pid, state (`Z`: a zombie) and name of each.
fn children(pid: u32) -> Vec<(u32, char, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in entries.flatten() {
        let Some(child) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        // `pid (name) state ppid ...`; the name may hold spaces and parentheses.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let mut rest = stat[close + 1..].split_whitespace();
        let state = rest.next().and_then(|s| s.chars().next()).unwrap_or('?');
        let ppid = rest.next().and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(pid) {
            out.push((child, state, stat[open + 1..close].to_owned()));
        }
    }
    out
}

#[test]
fn a_line_that_is_not_json_is_answered_with_a_parse_error_and_serving_goes_on() {
    let desktop = desktop(false);
    let mut server = Server::start(&desktop, "parse", &[]);
    server.send_line("not json");
    let error = server.answer(&Value::Null);
    assert_eq!(error["error"]["code"], -32700, "{error}");
    assert_eq!(error["jsonrpc"], "2.0", "{error}");
    let result = server.call_tool(1, "get_applications", json!({}));
    assert_eq!(result["isError"], false, "{result}");
    assert!(
        result["structuredContent"]["applications"].is_array(),
        "{result}"
    );
}

#[test]
fn a_cancelled_wait_stops_and_the_next_call_is_answered() {
    let desktop = desktop(true);
    let mut server = Server::start(&desktop, "cancel", &[]);
    let tree = server.call_tool(1, "get_window_tree", json!({"app": FIXTURE_NAME}));
    assert_eq!(tree["isError"], false, "{tree}");
    const WAIT: Duration = Duration::from_secs(40);
    let started = Instant::now();
    server.send(&json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "wait_for_change",
                   "arguments": {"app": FIXTURE_NAME, "timeout_ms": WAIT.as_millis() as u64}},
    }));
    server.send(&json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "the user moved on"},
    }));
    // The same session: it waits for the cancelled call unless that stopped.
    let next = server.call_tool(
        3,
        "wait_for_change",
        json!({"app": FIXTURE_NAME, "timeout_ms": 300}),
    );
    let answered = started.elapsed();
    assert_eq!(next["isError"], false, "{next}");
    assert_eq!(
        next["structuredContent"]["timed_out"], true,
        "the fixture is quiet: {next}"
    );
    assert!(
        answered < WAIT,
        "the call after the cancelled one was answered only after {} ms, when the cancelled \
         wait would have ended: it was not stopped",
        answered.as_millis()
    );
    assert!(
        !server.seen.iter().any(|m| m["id"] == 2),
        "the cancelled call was answered: {:?}",
        server.seen
    );
}

#[test]
fn a_long_running_server_leaves_no_zombies_and_keeps_its_token_from_what_it_opens() {
    let desktop = desktop(true);
    let token = "token-for-the-server-only-5521";
    let mut server = Server::start(&desktop, "children", &[("UIDELTA_MCP_TOKEN", token)]);
    let mut id = 0;
    let mut next_id = || {
        id += 1;
        id
    };
    // Accessible actions, each once made through a process of its own.
    for k in 1..=30 {
        let r = server.call_tool(
            next_id(),
            "invoke_element",
            json!({"target": "role:push button && name:Count", "app": FIXTURE_NAME,
                   "action": "click", "settle": "none"}),
        );
        assert_eq!(r["isError"], false, "invoke {k}: {r}");
    }
    // A program that shows a window, then exits; and one that exits at once.
    let opened = server.call_tool(
        next_id(),
        "open_application",
        json!({"program": FIXTURE, "args": ["--name", "uidelta-fixture-opened"]}),
    );
    assert_eq!(opened["isError"], false, "{opened}");
    let pid = opened["structuredContent"]["app"]["pid"]
        .as_u64()
        .unwrap_or_else(|| panic!("no pid: {opened}"));
    let environ = std::fs::read(format!("/proc/{pid}/environ")).expect("its environment");
    let environ = String::from_utf8_lossy(&environ);
    assert!(environ.contains("DISPLAY="), "{environ}");
    assert!(
        !environ.contains("UIDELTA_MCP_TOKEN") && !environ.contains(token),
        "the opened program has the bearer token in its environment"
    );
    let closed = server.call_tool(
        next_id(),
        "close_window",
        json!({"app": "uidelta-fixture-opened"}),
    );
    assert_eq!(closed["structuredContent"]["app_exited"], true, "{closed}");
    let quick = server.call_tool(next_id(), "open_application", json!({"program": "true"}));
    assert!(
        quick["isError"] == true && text(&quick).contains("exited before showing a window"),
        "{quick}"
    );
    // Whatever is still running may take its time; what has ended must be gone.
    let deadline = Instant::now() + Duration::from_secs(60);
    while children(server.pid())
        .iter()
        .any(|(_, state, _)| *state != 'Z')
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(200));
    }
    let left = children(server.pid());
    assert!(
        left.iter().all(|(_, state, _)| *state != 'Z'),
        "the server left zombies: {left:?}"
    );
    assert_eq!(left, Vec::new(), "the server's children are still running");
}

#[test]
fn what_is_typed_stays_out_of_the_log_at_any_level() {
    let desktop = desktop(true);
    let secret = "hunter2-in-the-log";
    let mut server = Server::start(&desktop, "secrets", &[("UIDELTA_LOG", "trace")]);
    let password = "role:password text && name:Password";
    let typed = server.call_tool(
        1,
        "type_into_element",
        json!({"target": password, "app": FIXTURE_NAME, "text": secret}),
    );
    assert_eq!(typed["isError"], false, "{typed}");
    let set = server.call_tool(
        2,
        "set_value",
        json!({"target": password, "app": FIXTURE_NAME, "value": format!("{secret}-set")}),
    );
    assert_eq!(set["isError"], false, "{set}");
    // A broken line with the secret in it: answered, not logged.
    server.send_line(&format!(
        r#"{{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {{"name": "type_into_element", "arguments": {{"text": "{secret}"}}"#
    ));
    let error = server.answer(&Value::Null);
    assert_eq!(error["error"]["code"], -32700, "{error}");
    let apps = server.call_tool(4, "get_applications", json!({}));
    assert_eq!(apps["isError"], false, "{apps}");
    let log = server.stderr_text();
    assert!(
        log.contains(" TRACE "),
        "UIDELTA_LOG=trace logs: {}",
        &log[..log.len().min(2000)]
    );
    let leaks: Vec<&str> = log.lines().filter(|l| l.contains(secret)).collect();
    assert!(
        leaks.is_empty(),
        "the typed text is in the log {} times: {:?}",
        leaks.len(),
        leaks
            .iter()
            .map(|l| &l[..l.len().min(300)])
            .collect::<Vec<_>>()
    );
}

/// `uidelta mcp --http` on a port of its own, spoken to over HTTP/1.0 (one
/// connection a request, each answer read from its event stream).
struct HttpServer {
    child: Child,
    addr: String,
    token: String,
    session: Option<String>,
}

impl HttpServer {
    fn start(desktop: &Desktop) -> HttpServer {
        let token = "token-for-http-7301".to_owned();
        let mut child = desktop
            .command(env!("CARGO_BIN_EXE_uidelta"))
            .args(["mcp", "--http", "127.0.0.1:0", "--token", &token])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("uidelta mcp --http starts");
        let stderr = child.stderr.take().expect("its stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stderr).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("uidelta mcp --http says where it listens");
        let addr = line
            .trim()
            .strip_prefix("uidelta: MCP on http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("unexpected first line: {line}"))
            .to_owned();
        let mut server = HttpServer {
            child,
            addr,
            token,
            session: None,
        };
        let mut init = server.post(&json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "uidelta tests", "version": "1"},
            },
        }));
        let answer = HttpServer::answer(&mut init, &json!(0));
        assert!(answer["result"]["serverInfo"].is_object(), "{answer}");
        server.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    /// Posts `message`; the response, past its headers. Takes the session id
    /// from the first.
    fn post(&mut self, message: &Value) -> BufReader<std::net::TcpStream> {
        let mut stream =
            std::net::TcpStream::connect(&self.addr).expect("connecting to the server");
        stream
            .set_read_timeout(Some(ANSWER_LIMIT))
            .expect("a read timeout");
        let body = message.to_string();
        let session = self
            .session
            .as_ref()
            .map(|s| format!("Mcp-Session-Id: {s}\r\nMcp-Protocol-Version: 2025-06-18\r\n"))
            .unwrap_or_default();
        write!(
            stream,
            "POST /mcp HTTP/1.0\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             {session}Content-Length: {}\r\n\r\n{body}",
            self.addr,
            self.token,
            body.len()
        )
        .expect("sending a request");
        let mut reader = BufReader::new(stream);
        let mut status = String::new();
        reader.read_line(&mut status).expect("a status line");
        assert!(
            status.contains(" 200 ") || status.contains(" 202 "),
            "{status} for {message}"
        );
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).expect("a header");
            if header.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("mcp-session-id") {
                    self.session = Some(value.trim().to_owned());
                }
            }
        }
        reader
    }

    /// The message with `id` in an event stream.
    fn answer(stream: &mut BufReader<std::net::TcpStream>, id: &Value) -> Value {
        loop {
            let mut line = String::new();
            match stream.read_line(&mut line) {
                Ok(0) => panic!("the stream ended before an answer with id {id}"),
                Ok(_) => {}
                Err(e) => panic!("no answer with id {id}: {e}"),
            }
            let Some(data) = line.trim().strip_prefix("data:") else {
                continue;
            };
            if let Ok(message) = serde_json::from_str::<Value>(data.trim()) {
                if &message["id"] == id {
                    return message;
                }
            }
        }
    }

    fn call_tool(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        let mut stream = self.post(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }));
        let answer = HttpServer::answer(&mut stream, &json!(id));
        assert!(answer["result"].is_object(), "{tool}: no result: {answer}");
        answer["result"].clone()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn over_http_a_cancelled_wait_stops_and_the_next_call_is_answered() {
    let desktop = desktop(true);
    let mut server = HttpServer::start(&desktop);
    let tree = server.call_tool(1, "get_window_tree", json!({"app": FIXTURE_NAME}));
    assert_eq!(tree["isError"], false, "{tree}");
    const WAIT: Duration = Duration::from_secs(40);
    let started = Instant::now();
    let _waiting = server.post(&json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "wait_for_change",
                   "arguments": {"app": FIXTURE_NAME, "timeout_ms": WAIT.as_millis() as u64}},
    }));
    server.post(&json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "the user moved on"},
    }));
    let next = server.call_tool(
        3,
        "wait_for_change",
        json!({"app": FIXTURE_NAME, "timeout_ms": 300}),
    );
    let answered = started.elapsed();
    assert_eq!(
        next["structuredContent"]["timed_out"], true,
        "the fixture is quiet: {next}"
    );
    assert!(
        answered < WAIT,
        "the call after the cancelled one was answered only after {} ms, when the cancelled \
         wait would have ended: it was not stopped",
        answered.as_millis()
    );
}

/// The server makes accessible actions itself, over a connection it keeps
/// open and quiet: an action whose handler runs a modal dialog
/// (`gtk_dialog_run`), then a key pressed while that dialog is open, leave
/// the application answering (a connection that closes or carries anything
/// meanwhile hangs GTK 3 for good on that key).
#[test]
fn a_key_after_an_action_that_opened_a_dialog_through_the_server() {
    require_programs(&[("gtk3-demo", "gtk-3-examples")]).expect("gtk3-demo");
    let desktop = desktop(false);
    std::mem::forget(desktop.launch("gtk3-demo", &[]).expect("launch gtk3-demo"));
    desktop
        .wait_for_accessible_app("gtk3-demo", Duration::from_secs(20))
        .expect("gtk3-demo on the accessibility bus");
    let mut server = Server::start(&desktop, "dialog", &[]);
    let app = "gtk3-demo";
    let select = server.call_tool(
        1,
        "set_selected",
        json!({"target": "role:table cell && name:\"Dialogs and Message Boxes\"", "app": app}),
    );
    assert_eq!(select["isError"], false, "{select}");
    let run = server.call_tool(
        2,
        "click_element",
        json!({"target": "role:push button && name:Run", "app": app}),
    );
    assert_eq!(run["isError"], false, "{run}");
    let opened = server.call_tool(
        3,
        "invoke_element",
        json!({"target": "role:push button && name:\"Message Dialog\"", "app": app,
               "action": "click"}),
    );
    assert!(
        text(&opened).contains("] alert \"Information\" (modal) (opened)\n"),
        "{opened}"
    );
    assert_eq!(children(server.pid()), Vec::new(), "no process per action");
    let closed = server.call_tool(4, "press_key", json!({"key": "Escape", "app": app}));
    assert!(
        text(&closed).contains("] alert \"Information\" (closed)"),
        "{closed}"
    );
    let focused = server.call_tool(
        5,
        "find_elements",
        json!({"selector": "role:push button && name:\"Message Dialog\" && state:focused",
               "app": app}),
    );
    assert_eq!(focused["structuredContent"]["total"], 1, "{focused}");
}
