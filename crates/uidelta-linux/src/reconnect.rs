//! [`Reconnecting`]: the desktop as a long-running server holds it,
//! connected whenever the session's buses and display can be reached.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use uidelta_atspi::{Bus, CALL_TIMEOUT};
use uidelta_backend::{
    Action, App, Backend, Error, ErrorKind, EventStream, Performed, Result, Scope,
};
use uidelta_model::{NodeData, Rect, Snapshot};
use uidelta_x11::{MadeWindows, X11};

use crate::Linux;

/// The desktop of `bus` and the display `x11` (with its watch for windows
/// made); `why` there is none where one is wanted.
fn desktop_of(bus: Bus, x11: Option<(X11, Option<MadeWindows>)>, why: Option<String>) -> Linux {
    let (x11, made) = x11.unzip();
    Linux {
        bus,
        x11,
        made: made.flatten(),
        display_why: why,
        on_display: Default::default(),
        mirrors: Default::default(),
        mirror_use: crate::capture::MirrorUse::from_env(),
        mirror_bounds: crate::capture::compare_bounds(),
        stirs: Default::default(),
    }
}

/// The error of a call made while the accessibility bus cannot be reached.
fn no_desktop(why: &uidelta_atspi::Error) -> Error {
    Error::new(
        ErrorKind::Disconnected,
        format!("no desktop to work on: {why}; every call tries to connect again"),
    )
}

/// The Linux desktop for a process that outlives desktops (an MCP server):
/// a [`Linux`] connection made on the first call that can make it, and
/// made again after the accessibility bus or the X display went away (the
/// desktop restarted). Calls made while there is none answer
/// [`ErrorKind::Disconnected`] with what was tried and how to provide it;
/// the call that finds the connection lost answers the same, and the next
/// one connects again. Without the display (not there yet, or gone) what
/// the accessibility bus does goes on, and what needs the display
/// (synthesized input, screenshots, windows) answers `Disconnected`.
///
/// Applications of a bus that was replaced are gone (their calls answer
/// [`ErrorKind::Gone`]): their ids carry the bus they were found on, so
/// that an application of the new bus is never taken for one of the old
/// (a new bus hands out the same unique names again).
pub struct Reconnecting {
    session: Option<String>,
    display: Option<String>,
    keeper: Option<PathBuf>,
    link: tokio::sync::Mutex<Link>,
}

/// The connection and the bus it is on.
struct Link {
    /// The connection; `None` before the first, and after the bus was lost.
    linux: Option<Arc<Linux>>,
    /// The bus daemon of the current (else the last) connection, and which
    /// one it is of those this process has seen: 1 for the first.
    daemon: Option<(String, u32)>,
}

/// A connection and the number of its bus daemon.
type Current = (Arc<Linux>, u32);

impl Reconnecting {
    /// A desktop to connect to on the first call: the session bus `session`
    /// (else `DBUS_SESSION_BUS_ADDRESS`; `AT_SPI_BUS_ADDRESS` names the
    /// accessibility bus directly) and the X display `display` (else
    /// `DISPLAY`), as [`Linux::connect`] takes them.
    pub fn new(session: Option<&str>, display: Option<&str>) -> Reconnecting {
        Reconnecting {
            session: session.map(str::to_owned),
            display: display.map(str::to_owned),
            keeper: None,
            link: tokio::sync::Mutex::new(Link {
                linux: None,
                daemon: None,
            }),
        }
    }

    /// Makes accessible actions through `program` on every connection (see
    /// [`Linux::keep_actions_with`]).
    pub fn keep_actions_with(&mut self, program: PathBuf) {
        self.keeper = Some(program);
    }

    /// Connects now, unless connected: the error says what was tried and
    /// how to provide it. Calls connect by themselves; this is for saying
    /// early that there is no desktop yet.
    pub async fn connect(&self) -> Result<()> {
        self.current().await.map(drop)
    }

    /// The connection, made first if there is none; the X display, when
    /// one is wanted and missing, is tried again each time.
    async fn current(&self) -> Result<Current> {
        let mut link = self.link.lock().await;
        let (linux, n) = match (&link.linux, &link.daemon) {
            (Some(linux), Some((_, n))) => (Arc::clone(linux), *n),
            _ => {
                let mut bus = Bus::connect(self.session.as_deref())
                    .await
                    .map_err(|e| no_desktop(&e))?;
                if let Some(program) = &self.keeper {
                    bus.keep_actions_with(program.clone());
                }
                let id = bus.daemon_id();
                let n = match &link.daemon {
                    Some((known, n)) if *known == id => *n,
                    Some((_, n)) => n + 1,
                    None => 1,
                };
                if n > 1 {
                    tracing::info!(bus = bus.address(), "connected to the desktop again");
                }
                link.daemon = Some((id, n));
                (Arc::new(desktop_of(bus, None, None)), n)
            }
        };
        let linux = match (&linux.x11, self.wanted_display()) {
            (None, Some((display, from))) => {
                let bus = linux.bus.clone();
                Arc::new(match connect_x11(display).await {
                    Ok(x11) => desktop_of(bus, Some(x11), None),
                    Err(e) => {
                        let why = format!(
                            "{e}{from}; start the X server there, or set DISPLAY to its \
                             display; every call tries to connect again"
                        );
                        desktop_of(bus, None, Some(why))
                    }
                })
            }
            _ => linux,
        };
        link.linux = Some(Arc::clone(&linux));
        Ok((linux, n))
    }

    /// The X display to connect to, and where it was named.
    fn wanted_display(&self) -> Option<(String, &'static str)> {
        match &self.display {
            Some(d) => Some((d.clone(), "")),
            None => std::env::var("DISPLAY")
                .ok()
                .filter(|d| !d.is_empty())
                .map(|d| (d, " (from DISPLAY)")),
        }
    }

    /// `result`, of a call on `linux`; when it failed because the
    /// connection was lost (the bus or the display went away), that is
    /// the error, and the connection (or the display's) is dropped so that
    /// the next call makes a new one.
    async fn checked<T>(&self, linux: &Arc<Linux>, result: Result<T>) -> Result<T> {
        let Err(e) = result else {
            return result;
        };
        let Err(lost) = linux.check().await else {
            return Err(e);
        };
        tracing::warn!(error = %lost, "lost the desktop");
        let mut link = self.link.lock().await;
        if link.linux.as_ref().is_some_and(|l| Arc::ptr_eq(l, linux)) {
            link.linux = match lost {
                // The bus goes on without the display until it is back.
                crate::Error::DisplayLost { .. } => Some(Arc::new(desktop_of(
                    linux.bus.clone(),
                    None,
                    Some(format!("{lost}; every call tries to connect again")),
                ))),
                _ => None,
            };
        }
        Err(Error::new(
            ErrorKind::Disconnected,
            format!("{lost}; reconnecting on the next call"),
        ))
    }

    /// The connection for a call about `app`, and `app` as that connection
    /// knows it; [`ErrorKind::Gone`] when it was found on a bus that has
    /// since been replaced.
    async fn for_app(&self, app: &App) -> Result<(Arc<Linux>, App)> {
        let (linux, n) = self.current().await?;
        let (id, of) = untagged(&app.id);
        if of != n {
            return Err(Error::new(
                ErrorKind::Gone,
                format!(
                    "{} is gone: it was on an accessibility bus that has been replaced \
                     (the desktop restarted); find it again by name",
                    app.label()
                ),
            ));
        }
        let app = App {
            id: id.to_owned(),
            ..app.clone()
        };
        Ok((linux, app))
    }
}

/// Connects to the X display `display`, and watches it for windows made
/// (see [`crate::watch_made`]), within a few seconds: a server that
/// accepts the connection and never answers (stopped) must not hold the
/// calls that wait for the connection.
async fn connect_x11(display: String) -> std::result::Result<(X11, Option<MadeWindows>), String> {
    let within = CALL_TIMEOUT * 2;
    let shown = display.clone();
    let connecting = tokio::task::spawn_blocking(move || {
        X11::connect(&display).map(|x11| (x11, crate::watch_made(&display)))
    });
    match tokio::time::timeout(within, connecting).await {
        Ok(Ok(connected)) => connected.map_err(|e| e.to_string()),
        Ok(Err(e)) => Err(format!("connecting to X display `{shown}`: {e}")),
        Err(_) => Err(format!(
            "connecting to X display `{shown}`: no answer within {} s",
            within.as_secs()
        )),
    }
}

/// `app` with an id that names the bus daemon it was found on, `n`: as it
/// is for the first, `:1.42#2` for the second.
fn tagged(mut app: App, n: u32) -> App {
    if n > 1 {
        app.id = format!("{}#{n}", app.id);
    }
    app
}

/// The bus name and daemon number in an id made by [`tagged`].
fn untagged(id: &str) -> (&str, u32) {
    match id.rsplit_once('#') {
        Some((name, n)) => match n.parse() {
            Ok(n) => (name, n),
            Err(_) => (id, 1),
        },
        None => (id, 1),
    }
}

impl Backend for Reconnecting {
    fn name(&self) -> &'static str {
        "atspi"
    }

    async fn apps(&self) -> Result<Vec<App>> {
        let (linux, n) = self.current().await?;
        let apps = Backend::apps(&*linux).await;
        let apps = self.checked(&linux, apps).await?;
        Ok(apps.into_iter().map(|a| tagged(a, n)).collect())
    }

    async fn capture(&self, app: &App, scope: &Scope) -> Result<Snapshot> {
        let (linux, app) = self.for_app(app).await?;
        let snapshot = Backend::capture(&*linux, &app, scope).await;
        self.checked(&linux, snapshot).await
    }

    async fn act(&self, app: &App, node: &NodeData, action: &Action) -> Result<Performed> {
        let (linux, app) = self.for_app(app).await?;
        let done = Backend::act(&*linux, &app, node, action).await;
        self.checked(&linux, done).await
    }

    async fn actions(&self, app: &App, node: &NodeData) -> Result<Vec<String>> {
        let (linux, app) = self.for_app(app).await?;
        let names = Backend::actions(&*linux, &app, node).await;
        self.checked(&linux, names).await
    }

    async fn key(&self, app: &App, chord: &str) -> Result<Performed> {
        let (linux, app) = self.for_app(app).await?;
        let done = Backend::key(&*linux, &app, chord).await;
        self.checked(&linux, done).await
    }

    async fn events(&self, app: &App) -> Result<EventStream> {
        let (linux, app) = self.for_app(app).await?;
        let events = Backend::events(&*linux, &app).await;
        self.checked(&linux, events).await
    }

    async fn screenshot(&self, area: Option<Rect>) -> Result<Vec<u8>> {
        let (linux, _) = self.current().await?;
        let png = Backend::screenshot(&*linux, area).await;
        self.checked(&linux, png).await
    }

    async fn open(&self, program: &str, args: &[String], timeout: Duration) -> Result<App> {
        let (linux, n) = self.current().await?;
        let app = Backend::open(&*linux, program, args, timeout).await;
        Ok(tagged(self.checked(&linux, app).await?, n))
    }

    async fn close_window(&self, app: &App, window: &NodeData) -> Result<Performed> {
        let (linux, app) = self.for_app(app).await?;
        let done = Backend::close_window(&*linux, &app, window).await;
        self.checked(&linux, done).await
    }

    async fn activate_window(&self, app: &App, window: &NodeData) -> Result<Performed> {
        let (linux, app) = self.for_app(app).await?;
        let done = Backend::activate_window(&*linux, &app, window).await;
        self.checked(&linux, done).await
    }

    async fn click_at(&self, app: &App, x: i32, y: i32, action: &Action) -> Result<Performed> {
        let (linux, app) = self.for_app(app).await?;
        let done = Backend::click_at(&*linux, &app, x, y, action).await;
        self.checked(&linux, done).await
    }

    async fn answers(&self, app: &App) -> Result<bool> {
        let (linux, app) = self.for_app(app).await?;
        let answered = Backend::answers(&*linux, &app).await;
        self.checked(&linux, answered).await
    }

    fn unresponsive_hint(&self) -> Option<&'static str> {
        Some(crate::backend::UNRESPONSIVE)
    }

    fn settle_window(&self, app: &App) -> Option<Duration> {
        uidelta_atspi::settle_window(&app.name)
    }

    async fn shows_late(&self, app: &App) -> bool {
        match self.for_app(app).await {
            Ok((linux, app)) => Backend::shows_late(&*linux, &app).await,
            Err(_) => false,
        }
    }

    async fn windows_made(&self, app: &App, since: Instant) -> usize {
        match self.for_app(app).await {
            Ok((linux, app)) => Backend::windows_made(&*linux, &app, since).await,
            Err(_) => 0,
        }
    }

    async fn started(&self, app: &App, since: Instant) -> Vec<u32> {
        match self.for_app(app).await {
            Ok((linux, app)) => Backend::started(&*linux, &app, since).await,
            Err(_) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_of_a_later_bus_name_it_and_come_back_unchanged() {
        let app = App {
            name: "gedit".into(),
            pid: Some(42),
            id: ":1.7".into(),
            windows: Vec::new(),
            error: None,
        };
        assert_eq!(tagged(app.clone(), 1).id, ":1.7");
        assert_eq!(tagged(app.clone(), 3).id, ":1.7#3");
        assert_eq!(untagged(":1.7"), (":1.7", 1));
        assert_eq!(untagged(":1.7#3"), (":1.7", 3));
        assert_eq!(untagged("odd#name"), ("odd#name", 1));
    }
}
