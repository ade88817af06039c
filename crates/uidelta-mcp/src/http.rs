//! Streamable HTTP: rmcp's transport behind a small hyper accept loop that
//! adds what the transport leaves to us, the bearer-token check. Each MCP
//! session (one per client) gets its own [`Server`], so its own refs.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower_service::Service as _;
use uidelta_backend::Backend;

use crate::{Error, LogDir, Server};

/// How [`serve_http`] listens.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Where to listen. Loopback unless `allow_remote` is set.
    pub addr: SocketAddr,
    /// When set, every request must carry `Authorization: Bearer <token>`.
    pub token: Option<String>,
    /// Accept a non-loopback `addr`, and any `Host` header. Anyone who can
    /// reach the port can then drive the desktop: use a token.
    pub allow_remote: bool,
    /// Log every action tool call of every client here (see [`LogDir`]).
    pub log: Option<Arc<LogDir>>,
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
    check(bound, &opts)?;
    crate::warm_up();
    let mut config = StreamableHttpServerConfig::default();
    if opts.allow_remote {
        config = config.disable_allowed_hosts();
    }
    let service = StreamableHttpService::new(
        {
            let log = opts.log.clone();
            move || {
                let server = Server::new(Arc::clone(&backend)).with_sessions();
                Ok(match &log {
                    Some(log) => server.with_log_dir(Arc::clone(log)),
                    None => server,
                })
            }
        },
        Arc::new(LocalSessionManager::default()),
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
    /// the desktop through it (unless `allow_remote`), and an empty token.
    pub fn check(&self, addr: SocketAddr) -> Result<(), Error> {
        check(addr, self)
    }
}

fn check(addr: SocketAddr, opts: &HttpOptions) -> Result<(), Error> {
    if !addr.ip().is_loopback() && !opts.allow_remote {
        return Err(Error::Config(format!(
            "refusing to listen on {addr}: it is not a loopback address, and whoever reaches it \
             can drive this desktop; pass --allow-remote (with --token) to do it anyway"
        )));
    }
    if opts.token.as_deref().is_some_and(str::is_empty) {
        return Err(Error::Config("the bearer token is empty".into()));
    }
    Ok(())
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

    #[test]
    fn only_loopback_unless_told_and_no_empty_token() {
        let opts = |addr: &str, token: Option<&str>, allow_remote| HttpOptions {
            addr: addr
                .parse()
                .unwrap_or_else(|_| SocketAddr::from(([0, 0, 0, 0], 0))),
            token: token.map(str::to_owned),
            allow_remote,
            log: None,
        };
        for (o, ok) in [
            (opts("127.0.0.1:8931", None, false), true),
            (opts("[::1]:8931", Some("t"), false), true),
            (opts("0.0.0.0:8931", Some("t"), false), false),
            (opts("0.0.0.0:8931", Some("t"), true), true),
            (opts("127.0.0.1:8931", Some(""), false), false),
        ] {
            assert_eq!(check(o.addr, &o).is_ok(), ok, "{o:?}");
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
