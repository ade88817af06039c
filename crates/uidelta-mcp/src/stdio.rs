//! Standard input and output as an MCP transport: one JSON-RPC message a
//! line each way. A line that is not JSON is answered with a parse error,
//! and JSON that is no message with an invalid-request error (as JSON-RPC
//! 2.0 says), and reading goes on: a client that sent a broken line is told
//! so instead of waiting for an answer for ever. (rmcp's own stdio transport
//! drops a line that is not JSON without a word.)
//!
//! Lines are never logged: they carry what is typed, passwords included.

use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, Mutex};

/// The longest line read as a message; a longer one is answered with an
/// error and skipped, not buffered.
const MAX_LINE: usize = 16 * 1024 * 1024;
/// JSON-RPC 2.0: the line is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0: the JSON is not a request, notification or response.
const INVALID_REQUEST: i64 = -32600;

/// Messages read from `R`, one a line, and written to `W`.
pub(crate) struct Lines<W> {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    out: Arc<Mutex<Option<W>>>,
    /// Reads `R` and answers the lines that are no messages; ends with the
    /// input, or when this transport is dropped.
    reader: tokio::task::JoinHandle<()>,
}

impl<W: AsyncWrite + Unpin + Send + 'static> Lines<W> {
    /// Starts reading `read`; answers go to `write`.
    pub(crate) fn new<R: AsyncRead + Unpin + Send + 'static>(read: R, write: W) -> Lines<W> {
        let out = Arc::new(Mutex::new(Some(write)));
        let (tx, incoming) = mpsc::channel(16);
        let reader = tokio::spawn(read_lines(BufReader::new(read), tx, Arc::clone(&out)));
        Lines {
            incoming,
            out,
            reader,
        }
    }
}

impl<W> Drop for Lines<W> {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> Transport<RoleServer> for Lines<W> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), std::io::Error>> + Send + 'static {
        let out = Arc::clone(&self.out);
        async move {
            let mut line = serde_json::to_vec(&item)?;
            line.push(b'\n');
            write_line(&out, &line).await
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), std::io::Error> {
        self.reader.abort();
        let writer = self.out.lock().await.take();
        match writer {
            Some(mut w) => w.flush().await,
            None => Ok(()),
        }
    }
}

/// Writes one whole line (under the lock, so that lines never interleave).
async fn write_line<W: AsyncWrite + Unpin>(
    out: &Mutex<Option<W>>,
    line: &[u8],
) -> std::io::Result<()> {
    let mut out = out.lock().await;
    let Some(w) = out.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "standard output is closed",
        ));
    };
    w.write_all(line).await?;
    w.flush().await
}

/// Reads lines until the input ends: messages go to `tx`, what is no
/// message is answered on `out`.
async fn read_lines<R, W>(
    mut read: BufReader<R>,
    tx: mpsc::Sender<ClientJsonRpcMessage>,
    out: Arc<Mutex<Option<W>>>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut line = Vec::new();
    loop {
        line.clear();
        let limit = MAX_LINE as u64 + 1;
        match (&mut read).take(limit).read_until(b'\n', &mut line).await {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) => {
                tracing::warn!("reading MCP messages from standard input: {e}");
                return;
            }
        }
        let what = if line.len() > MAX_LINE && !line.ends_with(b"\n") {
            if !skip_line(&mut read).await {
                return;
            }
            Read::Answer(error_line(
                Value::Null,
                INVALID_REQUEST,
                &format!("Invalid Request: a message longer than {MAX_LINE} bytes"),
            ))
        } else {
            parse(&line)
        };
        let delivered = match what {
            Read::Message(m) => tx.send(*m).await.is_ok(),
            Read::Nothing => true,
            Read::Answer(answer) => write_line(&out, &answer).await.is_ok(),
        };
        if !delivered {
            return;
        }
    }
}

/// Reads past the end of the current line; false when the input ended.
async fn skip_line<R: AsyncRead + Unpin>(read: &mut BufReader<R>) -> bool {
    let mut chunk = Vec::new();
    loop {
        chunk.clear();
        match (&mut *read)
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut chunk)
            .await
        {
            Ok(0) | Err(_) => return false,
            Ok(_) if chunk.ends_with(b"\n") => return true,
            Ok(_) => {}
        }
    }
}

/// What a line is.
#[derive(Debug)]
enum Read {
    /// A message for the server.
    Message(Box<ClientJsonRpcMessage>),
    /// Nothing to do: an empty line, or a notification the server does not
    /// know (notifications are never answered).
    Nothing,
    /// No message: this error line is the answer.
    Answer(Vec<u8>),
}

fn parse(line: &[u8]) -> Read {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // RFC 8259 lets a parser skip a byte order mark.
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Read::Nothing;
    }
    let e = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(m) => return Read::Message(Box::new(m)),
        Err(e) => e,
    };
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Read::Answer(error_line(
            Value::Null,
            PARSE_ERROR,
            &format!("Parse error: the line is not JSON ({e})"),
        ));
    };
    // An id the client can match the answer to, when it gave one.
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned();
    if id.is_none() && value.get("method").is_some() {
        tracing::debug!("ignoring a notification that is not an MCP one");
        return Read::Nothing;
    }
    Read::Answer(error_line(
        id.unwrap_or(Value::Null),
        INVALID_REQUEST,
        &format!("Invalid Request: not a JSON-RPC message of MCP ({e})"),
    ))
}

/// A JSON-RPC error response, as a line.
fn error_line(id: Value, code: i64, message: &str) -> Vec<u8> {
    let mut line = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    })
    .to_string()
    .into_bytes();
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        match parse(line.as_bytes()) {
            Read::Answer(a) => serde_json::from_slice(&a).unwrap_or(Value::Null),
            other => panic!("{line:?} was read as {other:?}"),
        }
    }

    #[test]
    fn what_is_no_message_is_answered_with_the_error_json_rpc_names() {
        let e = answer("not json\n");
        assert_eq!(e["id"], Value::Null);
        assert_eq!(e["error"]["code"], PARSE_ERROR);
        assert_eq!(e["jsonrpc"], "2.0");
        let e = answer("[1, 2]\r\n");
        assert_eq!(
            (&e["id"], &e["error"]["code"]),
            (&Value::Null, &json!(INVALID_REQUEST))
        );
        // The client waits on id 7: it gets its answer.
        let e = answer(r#"{"jsonrpc": "2.0", "id": 7, "params": 3}"#);
        assert_eq!(
            (&e["id"], &e["error"]["code"]),
            (&json!(7), &json!(INVALID_REQUEST))
        );
    }

    #[test]
    fn messages_pass_and_unknown_notifications_and_blank_lines_are_skipped() {
        let ping = "\u{feff}{\"jsonrpc\": \"2.0\", \"id\": \"a\", \"method\": \"ping\"}\r\n";
        assert!(matches!(parse(ping.as_bytes()), Read::Message(_)));
        let odd = r#"{"jsonrpc": "2.0", "method": "$/odd", "params": 5}"#;
        assert!(matches!(parse(odd.as_bytes()), Read::Nothing));
        assert!(matches!(parse(b"  \n"), Read::Nothing));
    }

    #[tokio::test]
    async fn reading_goes_on_after_a_broken_line() {
        let (client, server) = tokio::io::duplex(4096);
        let (server_read, server_write) = tokio::io::split(server);
        let mut lines = Lines::new(server_read, server_write);
        let (client_read, mut client_write) = tokio::io::split(client);
        let mut client_read = BufReader::new(client_read);
        let sent = client_write
            .write_all(b"not json\n{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"ping\"}\n")
            .await;
        assert!(sent.is_ok());
        let mut answer = String::new();
        assert!(client_read.read_line(&mut answer).await.is_ok());
        let answer: Value = serde_json::from_str(&answer).unwrap_or(Value::Null);
        assert_eq!(answer["error"]["code"], PARSE_ERROR, "{answer}");
        let next = lines.receive().await.map(|m| json!(m));
        assert_eq!(
            next.as_ref().map(|m| (&m["id"], &m["method"])),
            Some((&json!(2), &json!("ping"))),
            "{next:?}"
        );
    }
}
