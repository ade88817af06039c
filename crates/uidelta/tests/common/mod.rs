//! What the tests of `uidelta mcp` over stdio share: a client that speaks
//! JSON-RPC lines to the real binary, as an MCP host does.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};
use uidelta_testkit::Desktop;

/// How long the server may take to answer one request: it answers or
/// fails well within this, never hangs.
const ANSWER: Duration = Duration::from_secs(90);

/// `uidelta mcp` on stdio, inside a desktop.
pub struct Mcp {
    child: Child,
    /// Closed when the client is dropped: the server's end of serving.
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next: u64,
}

impl Mcp {
    /// Starts the server and completes the MCP handshake.
    pub fn start(desktop: &Desktop) -> Mcp {
        Mcp::start_with(desktop, &[])
    }

    /// [`Mcp::start`] with these environment variables changed.
    pub fn start_with(desktop: &Desktop, vars: &[(&str, &str)]) -> Mcp {
        let mut cmd = desktop.command(env!("CARGO_BIN_EXE_uidelta"));
        cmd.envs(vars.iter().copied());
        cmd.arg("mcp");
        Mcp::spawn(cmd)
    }

    /// `uidelta mcp` with `args` (`--browser --url ...`), outside any
    /// desktop: a headless browser needs none.
    pub fn start_args(args: &[&str]) -> Mcp {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_uidelta"));
        cmd.arg("mcp").args(args);
        Mcp::spawn(cmd)
    }

    /// Runs `cmd` (an `uidelta mcp` command line) and completes the MCP
    /// handshake.
    fn spawn(mut cmd: Command) -> Mcp {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("uidelta mcp starts");
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
            stdin: Some(stdin),
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

    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("the client is open");
        writeln!(stdin, "{message}").expect("writing to the server");
        stdin.flush().expect("flushing to the server");
    }

    /// Sends a request and returns its result.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = match self.lines.recv_timeout(ANSWER) {
                Ok(line) => line,
                Err(e) => panic!(
                    "no answer to {method} ({e}); the server {}",
                    match self.child.try_wait() {
                        Ok(Some(status)) => format!("exited: {status}"),
                        _ => "is still running".into(),
                    }
                ),
            };
            let message: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
            if message["id"] == json!(id) {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].clone();
            }
        }
    }

    /// Calls a tool; its result.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
    }
}

impl Drop for Mcp {
    /// Closes the connection, so that the server stops as it does for a
    /// host (and stops the browser it started); kills it if it has not
    /// within 10 s.
    fn drop(&mut self) {
        drop(self.stdin.take());
        let started = std::time::Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of a tool's result.
pub fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Whether a tool's result is an error.
pub fn is_error(result: &Value) -> bool {
    result["isError"] == json!(true)
}
