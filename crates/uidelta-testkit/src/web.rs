//! A static file server for the test pages in `fixtures/web`, for browser tests and benchmarks.
//!
//! [`Server::start`] listens on `127.0.0.1` on a port the OS picks and answers through hyper
//! on a runtime of its own in a background thread, each connection a task of its own, so that a
//! slow answer never holds up the next request. Besides files it answers `/slow?ms=N`: it waits
//! `N` ms (at most 10 s) and then sends a small JSON body, for pages that need a request that
//! takes a known time. Every answer closes its connection (`Connection: close`). Dropping the
//! [`Server`] stops it; answers already waiting in `/slow` are cut short.

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::sync::watch;

use crate::TestkitError;

/// The longest wait `/slow` accepts; larger values are capped to it.
pub const SLOW_CAP: Duration = Duration::from_secs(10);

/// How long a connection may take to send its request head before it is dropped.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Requests with a longer head than this are refused; test pages never need one.
const MAX_HEAD_BYTES: usize = 16 * 1024;

/// The absolute path of `fixtures/web`, the test pages of the workspace.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/web")
        .components()
        .fold(PathBuf::new(), |mut path, component| {
            match component {
                Component::ParentDir => {
                    path.pop();
                }
                other => path.push(other),
            }
            path
        })
}

/// A running static file server on `127.0.0.1`; stops when dropped.
pub struct Server {
    addr: SocketAddr,
    root: PathBuf,
    stop: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Serves the files under `root` on `127.0.0.1` at a port the OS chooses.
    ///
    /// Fails when `root` is not a directory or no port can be bound.
    pub fn start(root: &Path) -> Result<Server, TestkitError> {
        Server::start_at(root, Ipv4Addr::LOCALHOST)
    }

    /// Serves the files under `root` on the loopback address `ip`.
    fn start_at(root: &Path, ip: Ipv4Addr) -> Result<Server, TestkitError> {
        let root = root
            .canonicalize()
            .map_err(|e| TestkitError::io(format!("serving {}", root.display()), e))?;
        if !root.is_dir() {
            return Err(TestkitError::start(
                "the web server",
                format!("{} is not a directory", root.display()),
            ));
        }
        let listener = TcpListener::bind((ip, 0))
            .map_err(|e| TestkitError::io(format!("binding the web server to {ip}"), e))?;
        let addr = listener
            .local_addr()
            .map_err(|e| TestkitError::io("reading the web server's address", e))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| TestkitError::io("preparing the web server's socket", e))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| TestkitError::io("starting the web server's runtime", e))?;
        let (stop, stopped) = watch::channel(false);
        let thread = {
            let root = Arc::new(root.clone());
            std::thread::Builder::new()
                .name("uidelta-testkit-web".into())
                .spawn(move || runtime.block_on(accept(listener, root, stopped)))
                .map_err(|e| TestkitError::io("starting the web server thread", e))?
        };
        Ok(Server {
            addr,
            root,
            stop,
            thread: Some(thread),
        })
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The directory it serves, canonicalized.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The URL of `path` (relative to the root, with or without a leading `/`, query allowed):
    /// `server.url("dialog.html")` is `http://127.0.0.1:PORT/dialog.html`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}/{}", self.addr, path.trim_start_matches('/'))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The accept loop returns; the runtime, dropped with it, ends every connection.
        let _ = self.stop.send(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn accept(listener: TcpListener, root: Arc<PathBuf>, mut stopped: watch::Receiver<bool>) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    loop {
        let stream = tokio::select! {
            _ = stopped.changed() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let root = Arc::clone(&root);
        let stopped = stopped.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let root = Arc::clone(&root);
                let stopped = stopped.clone();
                async move { Ok::<_, Infallible>(respond(&request, &root, stopped).await) }
            });
            let mut http = hyper::server::conn::http1::Builder::new();
            http.keep_alive(false)
                .title_case_headers(true)
                .max_buf_size(MAX_HEAD_BYTES)
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(REQUEST_TIMEOUT);
            // A client that went away mid-answer is no concern of the server.
            let _ = http.serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

/// One answer: status, content type, body.
struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
}

impl Reply {
    fn text(status: u16, body: &str) -> Reply {
        Reply {
            status,
            content_type: "text/plain; charset=utf-8",
            body: format!("{body}\n").into_bytes(),
        }
    }

    fn into_response(self) -> Response<Full<Bytes>> {
        let length = self.body.len();
        let mut response = Response::new(Full::new(Bytes::from(self.body)));
        *response.status_mut() =
            StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(self.content_type));
        headers.insert(CONTENT_LENGTH, HeaderValue::from(length));
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }
}

/// Answers one request (hyper leaves out the body of an answer to `HEAD`).
async fn respond(
    request: &Request<Incoming>,
    root: &Path,
    stopped: watch::Receiver<bool>,
) -> Response<Full<Bytes>> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return Reply::text(405, "only GET and HEAD").into_response();
    }
    let Some(path) = percent_decode(request.uri().path()) else {
        return Reply::text(400, "bad percent-encoding").into_response();
    };
    let reply = if path == "/slow" {
        slow(request.uri().query().unwrap_or(""), stopped).await
    } else {
        file(root, &path)
    };
    reply.into_response()
}

/// `/slow?ms=N`: waits N ms (capped), then says how long it waited and returns three records.
async fn slow(query: &str, mut stopped: watch::Receiver<bool>) -> Reply {
    let ms = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("ms="))
        .unwrap_or("0");
    let Ok(ms) = ms.parse::<u64>() else {
        return Reply::text(400, "ms must be a whole number of milliseconds");
    };
    let wait = Duration::from_millis(ms).min(SLOW_CAP);
    tokio::select! {
        _ = tokio::time::sleep(wait) => {}
        _ = stopped.changed() => {}
    }
    Reply {
        status: 200,
        content_type: "application/json",
        body: format!(
            "{{\"slept_ms\":{},\"records\":[{{\"id\":1}},{{\"id\":2}},{{\"id\":3}}]}}\n",
            wait.as_millis()
        )
        .into_bytes(),
    }
}

fn file(root: &Path, path: &str) -> Reply {
    let mut relative = PathBuf::new();
    for segment in path.split('/').filter(|s| !s.is_empty() && *s != ".") {
        if segment == ".." || segment.contains('\\') || segment.contains('\0') {
            return Reply::text(403, "path leaves the served directory");
        }
        relative.push(segment);
    }
    let mut full = root.join(&relative);
    if full.is_dir() {
        full.push("index.html");
    }
    // Symbolic links could still point outside; the canonical path must stay under the root.
    let Ok(full) = full.canonicalize() else {
        return Reply::text(404, "not found");
    };
    if !full.starts_with(root) {
        return Reply::text(403, "path leaves the served directory");
    }
    match std::fs::read(&full) {
        Ok(body) => Reply {
            status: 200,
            content_type: content_type(&full),
            body,
        },
        Err(_) => Reply::text(404, "not found"),
    }
}

fn content_type(path: &Path) -> &'static str {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match extension.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "ico" => "image/x-icon",
        "wasm" => "application/wasm",
        _ => "application/octet-stream",
    }
}

/// Decodes `%XX` escapes; `None` for a malformed escape or a result that is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Instant;

    /// Sends `request` as is and returns the status code and the body.
    fn exchange(server: &Server, request: &str) -> (u16, String, String) {
        let mut stream = TcpStream::connect(server.addr()).expect("connecting to the server");
        stream
            .set_read_timeout(Some(Duration::from_secs(15)))
            .expect("setting a read timeout");
        stream
            .write_all(request.as_bytes())
            .expect("sending the request");
        let mut answer = String::new();
        stream
            .read_to_string(&mut answer)
            .expect("reading the answer");
        let (head, body) = answer
            .split_once("\r\n\r\n")
            .expect("an answer with a head");
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status code");
        (status, head.to_string(), body.to_string())
    }

    fn get(server: &Server, path: &str) -> (u16, String, String) {
        exchange(
            server,
            &format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        )
    }

    fn temp_root(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("uidelta-testkit-web-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("inner")).expect("creating a temporary root");
        std::fs::write(dir.join("inner/page.html"), "<p>hello</p>").expect("writing a page");
        std::fs::write(dir.join("inner/data.json"), "{}").expect("writing a file");
        std::fs::write(dir.join("secret.txt"), "outside").expect("writing a file");
        dir
    }

    #[test]
    fn serves_a_fixture_page_with_its_content_type() {
        let server = Server::start(&fixtures_dir()).expect("starting the server");
        let (status, head, body) = get(&server, "/dialog.html");
        assert_eq!(status, 200);
        assert!(
            head.contains("Content-Type: text/html; charset=utf-8"),
            "{head}"
        );
        assert!(body.contains("Open dialog"), "{body}");
        let expected = std::fs::read_to_string(fixtures_dir().join("dialog.html"))
            .expect("reading the fixture");
        assert_eq!(body, expected);
        assert_eq!(
            server.url("dialog.html"),
            format!("http://{}/dialog.html", server.addr())
        );
    }

    #[test]
    fn head_requests_get_no_body_and_queries_are_ignored_for_files() {
        let root = temp_root("head");
        let server = Server::start(&root.join("inner")).expect("starting the server");
        let (status, head, body) = exchange(
            &server,
            "HEAD /page.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        );
        assert_eq!(status, 200);
        assert!(head.contains("Content-Length: 12"), "{head}");
        assert_eq!(body, "");
        let (status, head, _) = get(&server, "/data.json?x=1");
        assert_eq!(status, 200);
        assert!(head.contains("Content-Type: application/json"), "{head}");
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn missing_files_are_404() {
        let server = Server::start(&fixtures_dir()).expect("starting the server");
        let (status, _, _) = get(&server, "/no-such-page.html");
        assert_eq!(status, 404);
    }

    #[test]
    fn traversal_out_of_the_root_is_refused() {
        let root = temp_root("traversal");
        let server = Server::start(&root.join("inner")).expect("starting the server");
        for path in [
            "/../secret.txt",
            "/%2e%2e/secret.txt",
            "/inner/../../secret.txt",
            "/..%2fsecret.txt",
        ] {
            let (status, _, body) = get(&server, path);
            assert_eq!(status, 403, "{path}");
            assert!(!body.contains("outside"), "{path}: {body}");
        }
        let (status, _, body) = get(&server, "/page.html");
        assert_eq!((status, body.as_str()), (200, "<p>hello</p>"));
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn symbolic_links_out_of_the_root_are_refused() {
        let root = temp_root("symlink");
        std::os::unix::fs::symlink(root.join("secret.txt"), root.join("inner/link.txt"))
            .expect("creating a symbolic link");
        let server = Server::start(&root.join("inner")).expect("starting the server");
        let (status, _, body) = get(&server, "/link.txt");
        assert_eq!(status, 403);
        assert!(!body.contains("outside"), "{body}");
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn slow_answers_after_the_requested_time() {
        let server = Server::start(&fixtures_dir()).expect("starting the server");
        let started = Instant::now();
        let (status, head, body) = get(&server, "/slow?ms=300");
        let took = started.elapsed();
        assert_eq!(status, 200);
        assert!(head.contains("application/json"), "{head}");
        assert!(took >= Duration::from_millis(300), "{took:?}");
        assert!(took < Duration::from_secs(5), "{took:?}");
        assert_eq!(
            body,
            "{\"slept_ms\":300,\"records\":[{\"id\":1},{\"id\":2},{\"id\":3}]}\n"
        );
    }

    #[test]
    fn slow_requests_do_not_hold_up_others() {
        let server = Server::start(&fixtures_dir()).expect("starting the server");
        let addr = server.addr();
        let slow = std::thread::spawn(move || {
            let mut stream = TcpStream::connect(addr).expect("connecting");
            stream
                .write_all(b"GET /slow?ms=2000 HTTP/1.1\r\n\r\n")
                .expect("sending");
            let mut answer = String::new();
            let _ = stream.read_to_string(&mut answer);
        });
        std::thread::sleep(Duration::from_millis(50));
        let started = Instant::now();
        let (status, _, _) = get(&server, "/form.html");
        assert_eq!(status, 200);
        assert!(started.elapsed() < Duration::from_millis(1500));
        drop(server);
        slow.join().expect("the slow client");
    }

    #[test]
    fn slow_caps_and_validates_its_argument() {
        let server = Server::start(&fixtures_dir()).expect("starting the server");
        let (status, _, _) = get(&server, "/slow?ms=soon");
        assert_eq!(status, 400);
        let (status, _, body) = get(&server, "/slow");
        assert_eq!(status, 200);
        assert!(body.contains("\"slept_ms\":0"), "{body}");
    }

    #[test]
    fn other_methods_and_garbage_are_refused() {
        let server = Server::start(&fixtures_dir()).expect("starting the server");
        let (status, _, _) = exchange(&server, "POST /form.html HTTP/1.1\r\n\r\n");
        assert_eq!(status, 405);
        // A blank line alone is no garbage: HTTP lets a server skip empty lines before a
        // request (RFC 9112, 2.2), and it waits for the request that follows.
        let (status, _, _) = exchange(&server, "GARBAGE\r\n\r\n");
        assert_eq!(status, 400);
        let (status, _, _) = get(&server, "/%zz");
        assert_eq!(status, 400);
    }

    #[test]
    fn dropping_the_server_closes_the_port() {
        // Asked by binding the port again (std's listeners reuse addresses
        // in TIME_WAIT), not by connecting: a connection to a port nobody
        // listens on can meet itself (the kernel may pick that very port
        // as its source), and on 127.0.0.1 the servers of the tests
        // running beside this one could be handed the port just freed.
        let server = Server::start_at(&fixtures_dir(), Ipv4Addr::new(127, 0, 0, 2))
            .expect("starting the server");
        let addr = server.addr();
        assert!(TcpListener::bind(addr).is_err(), "{addr} is not held");
        drop(server);
        // A process another test forks in the meantime holds a copy of
        // the socket until it execs (the socket closes on exec), so the
        // port may come free a moment after the drop: a few tries.
        let mut last = None;
        for _ in 0..100 {
            match TcpListener::bind(addr) {
                Ok(_) => return,
                Err(e) => last = Some(e),
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if let Some(e) = last {
            panic!("{addr} is still held 2 s after the drop: {e}");
        }
    }

    #[test]
    fn fixtures_dir_is_absolute_and_holds_the_pages() {
        let dir = fixtures_dir();
        assert!(dir.is_absolute(), "{}", dir.display());
        assert!(!dir.components().any(|c| c == Component::ParentDir));
        assert!(dir.join("dialog.html").is_file(), "{}", dir.display());
    }

    #[test]
    fn a_missing_root_is_an_error() {
        let error = Server::start(Path::new("/no/such/dir"))
            .err()
            .expect("an error");
        assert!(error.to_string().contains("/no/such/dir"), "{error}");
    }
}
