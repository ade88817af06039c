//! The MCP sessions of the HTTP server, bounded: at most so many at once
//! (a new one closes the one idle longest), and each closed once it has
//! been idle for a while. A session holds a client's engine session (its
//! latest snapshots can take megabytes), so clients that go away without
//! saying so must not keep theirs forever.
//!
//! rmcp's [`LocalSessionManager`] does the work; this wraps it to know
//! when each session was last used and whether a request of it is still
//! being answered (a `wait_for_change` may take minutes: that session is
//! busy, not idle). Closing a session ends its MCP service, which drops its
//! [`crate::Server`] and with it the engine session.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};

/// How many sessions there may be at once, unless told otherwise.
pub const MAX_SESSIONS: usize = 64;
/// How long a session may go unused before it is closed, unless told
/// otherwise.
pub const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);

/// The sessions, at most `max`, each closed after `idle` without use.
pub(crate) struct Sessions {
    local: LocalSessionManager,
    max: usize,
    idle: Duration,
    uses: Arc<Mutex<HashMap<SessionId, Use>>>,
}

/// When a session was last used, and how many of its requests are being
/// answered.
#[derive(Clone, Copy, Debug)]
struct Use {
    last: Instant,
    busy: usize,
}

/// Why a session could not be made or used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionsError {
    /// From rmcp's session manager.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
    /// Every session is answering a request: none can make room.
    #[error("all {0} MCP sessions are answering requests; try again later")]
    Full(usize),
}

impl Sessions {
    /// At most `max` sessions (at least one), each closed after `idle`
    /// without a request.
    pub(crate) fn new(max: usize, idle: Duration) -> Sessions {
        let mut local = LocalSessionManager::default();
        // Ours, which knows about requests still being answered, replaces
        // rmcp's idle timer (which would close a session in a long wait).
        local.session_config.keep_alive = None;
        Sessions {
            local,
            max: max.max(1),
            idle,
            uses: Arc::default(),
        }
    }

    fn uses(&self) -> MutexGuard<'_, HashMap<SessionId, Use>> {
        lock(&self.uses)
    }

    /// Marks `id` used now; whether it is one of ours.
    fn touch(&self, id: &SessionId) -> bool {
        match self.uses().get_mut(id) {
            Some(u) => {
                u.last = Instant::now();
                true
            }
            None => false,
        }
    }

    /// Closes the sessions idle for longer than the limit.
    pub(crate) async fn expire(&self) {
        let now = Instant::now();
        let expired: Vec<SessionId> = self
            .uses()
            .iter()
            .filter(|(_, u)| u.busy == 0 && now.duration_since(u.last) >= self.idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            tracing::info!(session = %id, "closing an MCP session idle for {:?}", self.idle);
            self.close(&id).await;
        }
    }

    /// Closes `id`, saying why it could not when it could not.
    async fn close(&self, id: &SessionId) {
        if let Err(e) = self.close_session(id).await {
            tracing::warn!(session = %id, "closing an MCP session: {e}");
        }
    }

    /// How often [`Sessions::expire`] should run.
    pub(crate) fn sweep_every(&self) -> Duration {
        (self.idle / 4).clamp(Duration::from_millis(100), Duration::from_secs(60))
    }
}

/// Runs [`Sessions::expire`] now and then, for as long as `sessions` lives.
pub(crate) async fn sweep(sessions: Weak<Sessions>, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        match sessions.upgrade() {
            Some(s) => s.expire().await,
            None => return,
        }
    }
}

fn lock(uses: &Mutex<HashMap<SessionId, Use>>) -> MutexGuard<'_, HashMap<SessionId, Use>> {
    // Nothing holding it can panic half-way; a poisoned map is still whole.
    uses.lock().unwrap_or_else(|e| e.into_inner())
}

impl SessionManager for Sessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        // Room first: the session idle longest goes (it is forgotten at
        // once, so that concurrent newcomers pick different ones).
        let evicted = {
            let mut uses = self.uses();
            if uses.len() >= self.max {
                let oldest = uses
                    .iter()
                    .filter(|(_, u)| u.busy == 0)
                    .min_by_key(|(_, u)| u.last)
                    .map(|(id, _)| id.clone())
                    .ok_or(SessionsError::Full(self.max))?;
                uses.remove(&oldest);
                Some(oldest)
            } else {
                None
            }
        };
        if let Some(id) = evicted {
            tracing::info!(session = %id, "closing the MCP session idle longest: {} is the most", self.max);
            self.close(&id).await;
        }
        let (id, transport) = self.local.create_session().await?;
        self.uses().insert(
            id.clone(),
            Use {
                last: Instant::now(),
                busy: 0,
            },
        );
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        Ok(self.local.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.touch(id))
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.uses().remove(id);
        Ok(self.local.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let busy = Busy::start(&self.uses, id);
        let stream = self.local.create_stream(id, message).await?;
        Ok(Answering {
            stream: Box::pin(stream),
            _busy: busy,
        })
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        Ok(self.local.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // A client listening for what the server may send is not using it.
        self.touch(id);
        Ok(self.local.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        Ok(self.local.resume(id, last_event_id).await?)
    }
}

/// A request of a session being answered; the session is used until the
/// answer's stream ends or its connection goes.
struct Busy {
    uses: Arc<Mutex<HashMap<SessionId, Use>>>,
    id: SessionId,
}

impl Busy {
    fn start(uses: &Arc<Mutex<HashMap<SessionId, Use>>>, id: &SessionId) -> Busy {
        if let Some(u) = lock(uses).get_mut(id) {
            u.busy += 1;
            u.last = Instant::now();
        }
        Busy {
            uses: Arc::clone(uses),
            id: id.clone(),
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        if let Some(u) = lock(&self.uses).get_mut(&self.id) {
            u.busy = u.busy.saturating_sub(1);
            u.last = Instant::now();
        }
    }
}

/// An answer's stream, with its session marked busy while it lives.
struct Answering<S> {
    stream: Pin<Box<S>>,
    _busy: Busy,
}

impl<S: Stream> Stream for Answering<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        self.stream.as_mut().poll_next(cx)
    }
}
