//! `uidelta mcp` answers an action after which the application exits
//! (answering a zenity dialog) with `app_exited`, not an error: the agent
//! did what it meant to, and must not retry. Driven over stdio with
//! JSON-RPC lines, as an MCP host does. The command line says so too, and
//! succeeds.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};
use uidelta_testkit::{require_programs, Desktop};

/// How long the server may take to answer one request: it answers or
/// fails well within this, never hangs.
const ANSWER: Duration = Duration::from_secs(90);

/// `uidelta mcp` on stdio, inside a desktop.
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    next: u64,
}

impl Mcp {
    /// Starts the server and completes the MCP handshake.
    fn start(desktop: &Desktop) -> Mcp {
        let mut child = desktop
            .command(env!("CARGO_BIN_EXE_uidelta"))
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("uidelta mcp starts");
        let stdin = child.stdin.take().expect("its stdin");
        let stdout = child.stdout.take().expect("its stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp {
            child,
            stdin,
            lines,
            next: 1,
        };
        let init = mcp.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "uidelta-test", "version": "1"},
            }),
        );
        assert_eq!(init["serverInfo"]["name"], "uidelta", "{init}");
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("writing to the server");
        self.stdin.flush().expect("flushing to the server");
    }

    /// Sends a request and returns its result.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(ANSWER)
                .unwrap_or_else(|e| panic!("no answer to {method}: {e}"));
            let message: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
            if message["id"] == json!(id) {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].clone();
            }
        }
    }

    /// Calls a tool; its result.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn clicking_ok_in_a_zenity_dialog_answers_that_it_exited() {
    require_programs(&[("Xvfb", "xvfb"), ("zenity", "zenity")]).expect("programs");
    let desktop = Desktop::start().expect("a virtual desktop");
    let _zenity = desktop
        .launch("zenity", &["--info", "--text", "Saved."])
        .expect("launch zenity");
    desktop
        .wait_for_accessible_app("zenity", Duration::from_secs(30))
        .expect("zenity on the accessibility bus");
    let mut mcp = Mcp::start(&desktop);
    let clicked = mcp.call(
        "click_element",
        json!({"target": "role:push button && name:OK", "app": "zenity"}),
    );
    assert_eq!(clicked["isError"], false, "{clicked}");
    let answer = &clicked["structuredContent"];
    assert_eq!(answer["app_exited"], true, "{clicked}");
    assert_eq!(answer["has_ui_changes"], true, "{clicked}");
    assert_eq!(answer["settle_capped"], false, "{clicked}");
    assert_eq!(answer["target"]["name"], "OK", "{clicked}");
    let text = clicked["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("# click_element: [e") && text.ends_with(") exited\n"),
        "{text}"
    );
}

#[test]
fn clicking_yes_from_the_command_line_says_that_zenity_exited_and_succeeds() {
    require_programs(&[("Xvfb", "xvfb"), ("zenity", "zenity")]).expect("programs");
    let desktop = Desktop::start().expect("a virtual desktop");
    let _zenity = desktop
        .launch("zenity", &["--question", "--text", "Proceed?"])
        .expect("launch zenity");
    desktop
        .wait_for_accessible_app("zenity", Duration::from_secs(30))
        .expect("zenity on the accessibility bus");
    let o = desktop
        .command(env!("CARGO_BIN_EXE_uidelta"))
        .args(["click", "--app", "zenity", "role:push button && name:Yes"])
        .output()
        .expect("uidelta runs");
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.starts_with("# [e"), "{out}");
    assert!(
        out.contains("\n# zenity (pid ") && out.ends_with(") exited\n"),
        "{out}"
    );
}
