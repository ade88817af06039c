//! [`Linux`] as a [`Backend`]: the engine's view of the desktop.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use uidelta_atspi::{applications, AppInfo, AppRef, CaptureOptions, WindowInfo};
use uidelta_backend::{
    Action, App, Backend, ErrorKind, Event, EventKind, EventSender, EventStream, Performed, Result,
    Scope, Window,
};
use uidelta_model::{NodeData, Rect, Snapshot};

use crate::idle::Said;
use crate::{Error, Linux};

/// How long an application that stopped answering gets to answer a ping
/// before the engine treats it as still stuck. A live one answers in about a
/// millisecond.
const PING: Duration = Duration::from_millis(300);

/// Why an application of this desktop may stop answering right after an
/// action, and how to get out of it (see [`Backend::unresponsive_hint`]).
pub(crate) const UNRESPONSIVE: &str =
    "; most often a modal dialog opened inside an accessible action (GTK's \
     gtk_dialog_run) by an application that offers no direct connection, so that \
     the action came over the bus. It answers again once that dialog is closed. \
     Until then its windows cannot be read, and no key is sent to it (GTK's \
     accessibility bridge would wait on the blocked connection and hang it for \
     good). Answer the dialog with a click at its button's point (click_at, \
     `uidelta click --at X,Y --app`; a screenshot shows where)";

impl From<Error> for uidelta_backend::Error {
    fn from(e: Error) -> Self {
        use uidelta_atspi::Error as A;
        let kind = match &e {
            Error::Atspi(A::Timeout { .. } | A::Deadline { .. }) => ErrorKind::Timeout,
            Error::Atspi(A::Gone { .. }) => ErrorKind::Gone,
            Error::Atspi(A::Lost { .. } | A::Connect { .. })
            | Error::DisplayLost { .. }
            | Error::DisplayUnreachable { .. } => ErrorKind::Disconnected,
            Error::Atspi(A::NotFound(_)) | Error::NoWindow(_) => ErrorKind::NotFound,
            Error::NoDisplay { .. }
            | Error::NoBounds { .. }
            | Error::Disabled { .. }
            | Error::NoKeyboardFocus { .. }
            | Error::CellOutOfSight { .. }
            | Error::TooLongToType { .. }
            | Error::NoIdentity { .. }
            | Error::NotAClick { .. } => ErrorKind::Unsupported,
            _ => ErrorKind::Other,
        };
        uidelta_backend::Error::new(kind, e.to_string())
    }
}

/// The engine's view of an application on the bus.
pub(crate) fn to_app(info: AppInfo) -> App {
    App {
        name: info.app.name,
        pid: info.app.pid,
        id: info.app.bus_name,
        windows: info
            .windows
            .into_iter()
            .map(|w| Window {
                title: w.title,
                role: w.role,
                id: w.path,
                active: w.active,
                showing: w.showing,
            })
            .collect(),
        error: info.error,
    }
}

/// What the bus said of an application, from the engine's view of it.
pub(crate) fn to_info(app: &App) -> AppInfo {
    AppInfo {
        app: app_ref(app),
        windows: app
            .windows
            .iter()
            .map(|w| WindowInfo {
                title: w.title.clone(),
                role: w.role.clone(),
                path: w.id.clone(),
                active: w.active,
                showing: w.showing,
            })
            .collect(),
        error: app.error.clone(),
    }
}

/// The application's handle on the bus.
pub(crate) fn app_ref(app: &App) -> AppRef {
    AppRef {
        name: app.name.clone(),
        pid: app.pid,
        bus_name: app.id.clone(),
    }
}

/// Ends a task when dropped.
struct Aborting(tokio::task::AbortHandle);

impl Drop for Aborting {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Linux {
    /// Watches `app`'s process after actions, and tells `tx` whenever it
    /// has nothing pending, and whenever it is at work (see `idle`);
    /// nothing for a toolkit that works in other processes too, or an
    /// application whose process is not known.
    async fn watch_idle(&self, app: &App, tx: Weak<EventSender>) -> Option<Aborting> {
        let pid = app.pid?;
        if !self
            .bus()
            .profile(&app_ref(app))
            .await
            .works_in_its_process()
        {
            return None;
        }
        let watch = crate::idle::watch(pid, self.stirs.clone(), move |said, at| {
            let (kind, detail) = match said {
                Said::Idle => (EventKind::Idle, "process:idle"),
                Said::Working => (EventKind::Working, "process:working"),
            };
            tx.upgrade().is_some_and(|tx| {
                tx.send(Event {
                    kind,
                    detail: detail.to_owned(),
                    source: None,
                    at,
                    inserted: 0,
                })
            })
        });
        Some(Aborting(tokio::spawn(watch).abort_handle()))
    }
}

impl Backend for Linux {
    fn name(&self) -> &'static str {
        "atspi"
    }

    async fn apps(&self) -> Result<Vec<App>> {
        let apps = applications(self.bus()).await.map_err(Error::from)?;
        Ok(apps.into_iter().map(to_app).collect())
    }

    async fn capture(&self, app: &App, scope: &Scope) -> Result<Snapshot> {
        // The process's work meanwhile is its answering, not an action's.
        let _asking = self.stirs.ask(app.pid);
        Ok(Linux::capture(self, &to_info(app), scope, &CaptureOptions::default()).await?)
    }

    async fn act(&self, app: &App, node: &NodeData, action: &Action) -> Result<Performed> {
        // Watched from the start of the action to past the cap after its
        // end, however long it takes.
        self.stirs.stir(app.pid);
        let done = Linux::act(self, &app_ref(app), node, action).await;
        self.stirs.stir(app.pid);
        Ok(done?)
    }

    async fn actions(&self, app: &App, node: &NodeData) -> Result<Vec<String>> {
        Ok(Linux::actions(self, &app_ref(app), node).await?)
    }

    async fn key(&self, app: &App, chord: &str) -> Result<Performed> {
        self.stirs.stir(app.pid);
        let done = Linux::key(self, &app_ref(app), chord);
        self.stirs.stir(app.pid);
        Ok(done?)
    }

    async fn events(&self, app: &App) -> Result<EventStream> {
        let (tx, stream) = EventStream::channel();
        // The subscription holds the sender: when it ends, the stream
        // does. The idle watch only borrows it.
        let tx = Arc::new(tx);
        let idle_tx = Arc::downgrade(&tx);
        let subscription = Linux::events(self, &app_ref(app), move |e| {
            let inserted = e.inserted();
            tx.send(Event {
                kind: e.event_kind(),
                detail: e.kind,
                source: Some(format!("{}{}", e.source.bus, e.source.path)),
                at: e.at,
                inserted,
            })
        })
        .await?;
        let watch = self.watch_idle(app, idle_tx).await;
        Ok(stream.with_guard(Box::new((subscription, watch))))
    }

    async fn screenshot(&self, area: Option<Rect>) -> Result<Vec<u8>> {
        Ok(Linux::screenshot(self, area)?)
    }

    async fn open(&self, program: &str, args: &[String], timeout: Duration) -> Result<App> {
        Ok(self.open_application(program, args, &[], timeout).await?)
    }

    async fn close_window(&self, app: &App, window: &NodeData) -> Result<Performed> {
        Ok(self.close_window_of(&to_info(app), window).await?)
    }

    async fn activate_window(&self, app: &App, window: &NodeData) -> Result<Performed> {
        Ok(self.activate_window_of(&to_info(app), window).await?)
    }

    async fn click_at(&self, app: &App, x: i32, y: i32, action: &Action) -> Result<Performed> {
        self.stirs.stir(app.pid);
        let done = Linux::click_at(self, x, y, action).await;
        self.stirs.stir(app.pid);
        Ok(done?)
    }

    async fn answers(&self, app: &App) -> Result<bool> {
        let answered = self.bus().answers(&app.label(), &app.id, PING).await;
        Ok(answered.map_err(Error::from)?)
    }

    fn unresponsive_hint(&self) -> Option<&'static str> {
        Some(UNRESPONSIVE)
    }

    fn settle_window(&self, app: &App) -> Option<Duration> {
        uidelta_atspi::settle_window(&app.name)
    }

    async fn shows_late(&self, app: &App) -> bool {
        self.bus().profile(&app_ref(app)).await.shows_late()
    }

    async fn windows_made(&self, app: &App, since: Instant) -> usize {
        let (Some(x11), Some(made), Some(pid)) = (&self.x11, &self.made, app.pid) else {
            return 0;
        };
        let windows = made.since(since);
        if windows.is_empty() {
            return 0;
        }
        // Unread, a window is not waited for: the answer comes as before.
        x11.windows_of(&windows, pid)
            .inspect_err(|e| tracing::debug!("windows made: {e}"))
            .unwrap_or(0)
    }

    async fn started(&self, app: &App, since: Instant) -> Vec<u32> {
        let Some(pid) = app.pid else {
            return Vec::new();
        };
        // A browser's pages run in processes of their own, which never
        // join the bus.
        let profile = self.bus().profile(&app_ref(app)).await;
        if !profile.works_in_its_process() {
            return Vec::new();
        }
        crate::started::started_since(pid, since)
    }
}
