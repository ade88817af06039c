//! Streamable HTTP: rmcp's transport behind a small hyper accept loop that
//! adds what the transport leaves to us, the bearer-token check. Each MCP
//! session (one per client) gets its own [`Server`], so its own refs; there
//! are at most so many sessions, and idle ones are closed (see
//! [`crate::sessions`]).
//!
//! Requests must name this server in `Host` and, when they come from a
//! browser page, in `Origin`: a web page the user visits cannot reach the
//! server through a name it points at 127.0.0.1 (DNS rebinding) nor send it
//! requests of its own.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::http::uri::{Authority, Uri};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower_service::Service as _;
use uidelta_backend::{App, Backend};

use crate::sessions::{self, Sessions};
use crate::{Error, LogDir, OutputDir, Server};

/// The host names a loopback server always answers to.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// How [`serve_http`] listens.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Where to listen. Loopback unless `allow_remote` is set.
    pub addr: SocketAddr,
    /// When set, every request must carry `Authorization: Bearer <token>`.
    /// Required beyond loopback.
    pub token: Option<String>,
    /// Accept a non-loopback `addr` (with a token). Anyone who can reach the
    /// port and has the token can then drive the desktop.
    pub allow_remote: bool,
    /// More names requests may give in `Host` (`desktop.example`,
    /// `10.0.0.5`, `name:port`), besides loopback names and the address
    /// listened on; pages served by those hosts (`http://NAME:PORT`) may
    /// send requests too.
    pub allow_hosts: Vec<String>,
    /// More browser origins whose pages may send requests
    /// (`https://app.example`). Requests without `Origin` (anything but a
    /// browser) are not concerned.
    pub allow_origins: Vec<String>,
    /// The most MCP sessions at once; a new one closes the one idle longest.
    pub max_sessions: usize,
    /// A session unused for this long is closed (its client then starts a
    /// new one, with new refs).
    pub session_idle: Duration,
    /// Log every action tool call of every client here (see [`LogDir`]).
    pub log: Option<Arc<LogDir>>,
    /// Where `get_window_tree` writes `output_file`s (see [`OutputDir`]).
    pub output: Option<Arc<OutputDir>>,
    /// What calls that name no application act on (the tab opened with
    /// `--url`; see [`Server::with_default_app`]).
    pub default_app: Option<App>,
}

impl HttpOptions {
    /// Listening on `addr`, loopback only, without a token, with the
    /// default session limits, no log, no output directory.
    pub fn new(addr: SocketAddr) -> HttpOptions {
        HttpOptions {
            addr,
            token: None,
            allow_remote: false,
            allow_hosts: Vec::new(),
            allow_origins: Vec::new(),
            max_sessions: sessions::MAX_SESSIONS,
            session_idle: sessions::SESSION_IDLE,
            log: None,
            output: None,
            default_app: None,
        }
    }
}

/// Serves MCP over streamable HTTP on `opts.addr` (any path, e.g.
/// `http://127.0.0.1:8931/mcp`) until the listener fails. Clients are served
/// concurrently, each with its own session.
pub async fn serve_http<B: Backend + 'static>(
    backend: Arc<B>,
    opts: HttpOptions,
) -> Result<(), Error> {
    check(opts.addr, &opts)?;
    let listener = tokio::net::TcpListener::bind(opts.addr)
        .await
        .map_err(|source| Error::Io {
            doing: format!("listening on {}", opts.addr),
            source,
        })?;
    serve_listener(backend, listener, opts).await
}

/// [`serve_http`] on a listener that is already bound (to port 0, say);
/// `opts.addr` is then only used in messages.
pub async fn serve_listener<B: Backend + 'static>(
    backend: Arc<B>,
    listener: tokio::net::TcpListener,
    opts: HttpOptions,
) -> Result<(), Error> {
    let bound = listener.local_addr().map_err(|source| Error::Io {
        doing: "reading the listener's address".into(),
        source,
    })?;
    let allowed = check(bound, &opts)?;
    crate::warm_up();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(allowed.hosts)
        .with_allowed_origins(allowed.origins)
        .enforce_origin_validation();
    let sessions = Arc::new(Sessions::new(opts.max_sessions, opts.session_idle));
    tokio::spawn(sessions::sweep(
        Arc::downgrade(&sessions),
        sessions.sweep_every(),
    ));
    let service = StreamableHttpService::new(
        {
            let (log, output, default_app) = (
                opts.log.clone(),
                opts.output.clone(),
                opts.default_app.clone(),
            );
            move || {
                let mut server = Server::new(Arc::clone(&backend)).with_sessions();
                if let Some(log) = &log {
                    server = server.with_log_dir(Arc::clone(log));
                }
                if let Some(output) = &output {
                    server = server.with_output_dir(Arc::clone(output));
                }
                if let Some(app) = &default_app {
                    server = server.with_default_app(app.clone());
                }
                Ok(server)
            }
        },
        sessions,
        config,
    );
    let token: Option<Arc<str>> = opts.token.map(Into::into);
    loop {
        let (stream, peer) = listener.accept().await.map_err(|source| Error::Io {
            doing: format!("accepting a connection on {}", opts.addr),
            source,
        })?;
        let service = service.clone();
        let token = token.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |req: Request<Incoming>| {
                let mut service = service.clone();
                let token = token.clone();
                async move {
                    if let Some(token) = &token {
                        if !authorized(&req, token) {
                            return Ok::<_, Infallible>(unauthorized());
                        }
                    }
                    service.call(req).await
                }
            });
            let served = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await;
            if let Err(e) = served {
                tracing::debug!(%peer, "HTTP connection ended: {e}");
            }
        });
    }
}

impl HttpOptions {
    /// Refuses to serve on `addr` when anyone on the network could drive
    /// the desktop through it: beyond loopback only when told to
    /// (`allow_remote`) and with a token; and refuses an empty token, host
    /// names and origins that do not read as such, and no sessions.
    pub fn check(&self, addr: SocketAddr) -> Result<(), Error> {
        check(addr, self).map(drop)
    }
}

/// What `Host` and `Origin` may say.
#[derive(Debug, PartialEq)]
struct Allowed {
    hosts: Vec<String>,
    origins: Vec<String>,
}

/// Checks `opts` for serving on `addr` (see [`HttpOptions::check`]) and
/// answers with the hosts and origins requests may name: loopback names,
/// the address listened on and `opts.allow_hosts`, and the pages those
/// serve at `addr`'s port (`http://localhost:8931`), with
/// `opts.allow_origins`.
fn check(addr: SocketAddr, opts: &HttpOptions) -> Result<Allowed, Error> {
    let beyond_loopback = !addr.ip().is_loopback();
    if beyond_loopback && !opts.allow_remote {
        return Err(Error::Config(format!(
            "refusing to listen on {addr}: it is not a loopback address, and whoever reaches it \
             can drive this desktop; pass --allow-remote (with --token) to do it anyway"
        )));
    }
    match opts.token.as_deref() {
        Some("") => return Err(Error::Config("the bearer token is empty".into())),
        None if beyond_loopback => {
            return Err(Error::Config(format!(
                "refusing to listen on {addr} without a bearer token: whoever reaches it could \
                 drive this desktop; pass --token TOKEN (or set UIDELTA_MCP_TOKEN)"
            )))
        }
        _ => {}
    }
    if addr.ip().is_unspecified() && opts.allow_hosts.is_empty() {
        return Err(Error::Config(format!(
            "listening on {addr}, every request must name this server in its Host header: \
             pass --allow-host NAME for each name or address clients reach it by"
        )));
    }
    if opts.max_sessions == 0 {
        return Err(Error::Config(
            "at most 0 MCP sessions: no client could connect".into(),
        ));
    }
    if opts.session_idle < Duration::from_secs(1) {
        return Err(Error::Config(
            "sessions closed when idle for less than a second could not be used".into(),
        ));
    }
    let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect();
    let listened_on = Some(addr.ip())
        .filter(|ip| !ip.is_unspecified())
        .map(|ip| ip.to_string());
    for host in listened_on.into_iter().chain(
        opts.allow_hosts
            .iter()
            .map(|h| host_name(h))
            .collect::<Result<Vec<_>, _>>()?,
    ) {
        if !hosts.contains(&host) {
            hosts.push(host);
        }
    }
    let mut origins: Vec<String> = hosts.iter().map(|h| page_of(h, addr.port())).collect();
    for origin in &opts.allow_origins {
        origins.push(origin_of(origin)?);
    }
    Ok(Allowed { hosts, origins })
}

/// `host` (`name`, `name:port`, an IP address) as `Host` gives it.
fn host_name(host: &str) -> Result<String, Error> {
    let host = host.trim();
    let bad = || {
        Error::Config(format!(
            "--allow-host {host:?}: give a host name or address, optionally with :PORT"
        ))
    };
    if host.parse::<IpAddr>().is_ok() {
        return Ok(host.to_owned());
    }
    if host.is_empty() || host.contains(['@', '/', '*']) {
        return Err(bad());
    }
    Authority::try_from(host).map_err(|_| bad())?;
    Ok(host.to_ascii_lowercase())
}

/// The origin of pages served by `host` (with or without a port) on `port`.
fn page_of(host: &str, port: u16) -> String {
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V6(ip)) => format!("http://[{ip}]:{port}"),
        Ok(IpAddr::V4(ip)) => format!("http://{ip}:{port}"),
        Err(_) if Authority::try_from(host).is_ok_and(|a| a.port().is_some()) => {
            format!("http://{host}")
        }
        Err(_) => format!("http://{host}:{port}"),
    }
}

/// `origin` (`https://app.example`, `http://localhost:3000`) with its port
/// spelt out, so that it matches that port only.
fn origin_of(origin: &str) -> Result<String, Error> {
    let bad = |why: &str| {
        Error::Config(format!(
            "--allow-origin {origin:?}: {why}; give SCHEME://HOST[:PORT], like \
             https://app.example"
        ))
    };
    let uri: Uri = origin.trim().parse().map_err(|_| bad("not a URL"))?;
    let scheme = match uri.scheme_str() {
        Some(s @ ("http" | "https")) => s,
        _ => return Err(bad("the scheme must be http or https")),
    };
    let authority = uri.authority().ok_or_else(|| bad("no host"))?;
    if authority.as_str().contains('@') || !matches!(uri.path(), "" | "/") || uri.query().is_some()
    {
        return Err(bad("an origin has only a scheme, a host and a port"));
    }
    let port = authority
        .port_u16()
        .unwrap_or(if scheme == "https" { 443 } else { 80 });
    Ok(format!("{scheme}://{}:{port}", authority.host()))
}

/// Whether `req` carries `Authorization: Bearer <token>`. Compared without
/// an early exit, so the time taken says nothing about the token.
fn authorized<T>(req: &Request<T>, token: &str) -> bool {
    let Some(given) = req
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    let (a, b) = (given.trim().as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn unauthorized() -> Response<http_body_util::combinators::BoxBody<Bytes, Infallible>> {
    let mut r = Response::new(
        Full::new(Bytes::from_static(
            b"missing or wrong bearer token (Authorization: Bearer <token>)\n",
        ))
        .boxed(),
    );
    *r.status_mut() = StatusCode::UNAUTHORIZED;
    r.headers_mut().insert(
        hyper::header::WWW_AUTHENTICATE,
        hyper::header::HeaderValue::from_static("Bearer"),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(auth: Option<&str>) -> Request<()> {
        let mut b = Request::builder();
        if let Some(a) = auth {
            b = b.header("authorization", a);
        }
        b.body(()).unwrap_or_default()
    }

    fn opts(addr: &str, token: Option<&str>, allow_remote: bool, hosts: &[&str]) -> HttpOptions {
        HttpOptions {
            token: token.map(str::to_owned),
            allow_remote,
            allow_hosts: hosts.iter().map(|h| h.to_string()).collect(),
            ..HttpOptions::new(
                addr.parse()
                    .unwrap_or_else(|_| SocketAddr::from(([0, 0, 0, 0], 0))),
            )
        }
    }

    #[test]
    fn only_loopback_unless_told_and_never_beyond_it_without_a_token() {
        for (o, ok) in [
            (opts("127.0.0.1:8931", None, false, &[]), true),
            (opts("[::1]:8931", Some("t"), false, &[]), true),
            (opts("0.0.0.0:8931", Some("t"), false, &["h"]), false),
            (opts("0.0.0.0:8931", Some("t"), true, &["h"]), true),
            (opts("10.0.0.5:8931", Some("t"), true, &[]), true),
            // Told to, but without a token: anyone could drive the desktop.
            (opts("0.0.0.0:8931", None, true, &["h"]), false),
            (opts("10.0.0.5:8931", None, true, &[]), false),
            // On every address, the names clients use must be given.
            (opts("0.0.0.0:8931", Some("t"), true, &[]), false),
            (opts("127.0.0.1:8931", Some(""), false, &[]), false),
            (opts("127.0.0.1:8931", None, false, &["bad/host"]), false),
            (opts("127.0.0.1:8931", None, false, &["a@b"]), false),
            (opts("127.0.0.1:8931", None, false, &[""]), false),
        ] {
            assert_eq!(check(o.addr, &o).is_ok(), ok, "{o:?}");
        }
        let mut none = opts("127.0.0.1:8931", None, false, &[]);
        none.max_sessions = 0;
        assert!(check(none.addr, &none).is_err());
        let mut at_once = opts("127.0.0.1:8931", None, false, &[]);
        at_once.session_idle = Duration::ZERO;
        assert!(check(at_once.addr, &at_once).is_err());
        let told = check(
            "0.0.0.0:8931".parse().expect("an address"),
            &opts("0.0.0.0:8931", None, true, &[]),
        );
        assert!(
            matches!(&told, Err(Error::Config(m)) if m.contains("--token")),
            "{told:?}"
        );
    }

    #[test]
    fn host_and_origin_name_this_server_or_what_the_options_add() {
        let allowed = |o: &HttpOptions| check(o.addr, o).map_err(|e| e.to_string());
        assert_eq!(
            allowed(&opts("127.0.0.1:8931", None, false, &[])),
            Ok(Allowed {
                hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
                origins: vec![
                    "http://localhost:8931".into(),
                    "http://127.0.0.1:8931".into(),
                    "http://[::1]:8931".into(),
                ],
            })
        );
        let mut o = opts(
            "10.0.0.5:8931",
            Some("t"),
            true,
            &["Desktop.Example", "proxy.example:443", "fe80::1"],
        );
        o.allow_origins = vec![
            "https://app.example".into(),
            "http://localhost:3000/".into(),
        ];
        let a = allowed(&o).expect("allowed");
        assert_eq!(
            a.hosts[3..],
            [
                "10.0.0.5",
                "desktop.example",
                "proxy.example:443",
                "fe80::1"
            ]
        );
        assert_eq!(
            a.origins[3..],
            [
                "http://10.0.0.5:8931",
                "http://desktop.example:8931",
                "http://proxy.example:443",
                "http://[fe80::1]:8931",
                "https://app.example:443",
                "http://localhost:3000",
            ]
        );
        for bad in [
            "app.example",
            "ftp://app.example",
            "https://app.example/path",
            "https://user@app.example",
            "null",
            "*",
        ] {
            o.allow_origins = vec![bad.into()];
            assert!(allowed(&o).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_bearer_token_must_match_exactly() {
        assert!(authorized(&request(Some("Bearer s3cret")), "s3cret"));
        assert!(!authorized(&request(Some("Bearer s3cre")), "s3cret"));
        assert!(!authorized(&request(Some("Bearer s3crex")), "s3cret"));
        assert!(!authorized(&request(Some("Basic s3cret")), "s3cret"));
        assert!(!authorized(&request(None), "s3cret"));
        assert_eq!(unauthorized().status(), StatusCode::UNAUTHORIZED);
    }
}
