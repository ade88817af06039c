//! The trait every platform adapter implements, and the neutral types it
//! speaks. The engine is written against [`Backend`] only, so a new platform
//! (the browser through CDP, Windows UIA, macOS AX) plugs in unchanged.

use std::future::Future;
use std::time::{Duration, Instant};

use uidelta_model::{NodeData, Rect, Snapshot};

mod events;
pub mod mirror;
pub use events::{EventSender, EventStream};
pub use mirror::MirrorUse;
pub use uidelta_model::app::{
    chord_refusal, echo, Action, App, Scope, Window, ECHO_CHARS, MAX_CHORD_CHARS, MAX_TYPED_CHARS,
};

/// The centre of `node`'s bounds in its snapshot, if it has a place on
/// screen (bounds of some width and height).
pub fn centre_of(node: &NodeData) -> Option<(i32, i32)> {
    node.bounds
        .filter(|b| b.w > 0 && b.h > 0)
        .map(|b| (b.x + b.w / 2, b.y + b.h / 2))
}

/// Where a browser tab should go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Navigate {
    /// Load this URL.
    To(String),
    /// The previous entry of the tab's history.
    Back,
    /// The next entry of the tab's history.
    Forward,
    /// Load the current document again.
    Reload,
}

impl Navigate {
    /// What the navigation is doing, for messages.
    pub fn doing(&self) -> String {
        match self {
            Navigate::To(url) => format!("navigating to {}", echo(url)),
            Navigate::Back => "going back".into(),
            Navigate::Forward => "going forward".into(),
            Navigate::Reload => "reloading".into(),
        }
    }
}

/// How an action was carried out: `Action.click`, `XTest click at 512,300`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Performed {
    /// The interface or input used.
    pub method: String,
}

/// What an event tells the engine, which settles the UI on events: each
/// backend sorts the events of its platform into these, and the engine
/// decides on them alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// The application's state changed, or is changing: an element
    /// appeared, went or changed, a value, a window, a document; for a
    /// page, a request or a load in flight too.
    Change,
    /// An element (the event's source, when named) gained or lost the
    /// keyboard focus: a change, unless the action itself moved the focus.
    Focus,
    /// Places moving (an element's bounds changed): a layout changing or a
    /// transition running. Not a change in itself, and never the first sign
    /// of one, but a change that started may not be over.
    Motion,
    /// Nothing about the application's state: a tooltip, the caret, a text
    /// selection, what an element paints.
    Noise,
    /// The application says that it has nothing pending (a page: no
    /// request, load or short timer started by input in flight): unless
    /// something changed, nothing will. Sent repeatedly while it holds, by
    /// backends that can tell (a page); never a change in itself.
    Idle,
    /// The application's process is at work: its threads on a CPU or
    /// waiting for one much of the time, or on the disk (a file being
    /// written, a window being laid out), and not for the backend's own
    /// reads. Not a change in itself, but a change that started
    /// may not be over (Mousepad names its window after the file a moment
    /// after its Save dialog closed). Sent repeatedly while it holds, by
    /// backends that can tell (a desktop application's process).
    Working,
}

/// One change event from an application.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// What it tells the engine.
    pub kind: EventKind,
    /// The platform's own name for it (an AT-SPI signal with its details,
    /// a kind of DOM change), for logs and for the adapters' tests: the
    /// engine decides on [`Event::kind`] only. The event queue keeps the
    /// latest event of each name and element.
    pub detail: String,
    /// The identity of the element it is about, as in snapshots.
    pub source: Option<String>,
    /// When it arrived.
    pub at: Instant,
    /// How many characters it says were inserted into a text (AT-SPI's
    /// `text-changed:insert`); 0 for other events. The engine counts them
    /// against the characters an action typed (see the engine's settle).
    /// Events the queue holds as one add theirs up.
    pub inserted: usize,
}

/// What kind of failure, so that callers can react (retry, re-capture).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// No such application, window or element.
    NotFound,
    /// The application did not answer in time.
    Timeout,
    /// The application is gone.
    Gone,
    /// The backend cannot do this (no display for synthesized input).
    Unsupported,
    /// The platform itself cannot be reached: the desktop's accessibility
    /// bus or display is not there (yet), or went away. A backend that can
    /// connects again on a later call.
    Disconnected,
    /// Anything else.
    Other,
}

impl ErrorKind {
    /// Its name for programs, as MCP errors and the Python package's
    /// exceptions give it (`kind`): `not_found`, `timeout`, `app_gone`,
    /// `unsupported`, `disconnected`, `backend`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::NotFound => "not_found",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Gone => "app_gone",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Disconnected => "disconnected",
            ErrorKind::Other => "backend",
        }
    }
}

/// A backend failure with a message that names what was being done.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    /// What kind.
    pub kind: ErrorKind,
    /// The message.
    pub message: String,
}

impl Error {
    /// An error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }
}

/// Results of backends.
pub type Result<T> = std::result::Result<T, Error>;

/// A platform: the Linux desktop, a browser.
///
/// Every call has its own timeout inside the backend; none may hang.
pub trait Backend: Send + Sync {
    /// `atspi`, `cdp`: the snapshot source this backend produces.
    fn name(&self) -> &'static str;

    /// The applications there are, with their windows.
    fn apps(&self) -> impl Future<Output = Result<Vec<App>>> + Send;

    /// A snapshot of an application, or of one of its windows.
    fn capture(&self, app: &App, scope: &Scope) -> impl Future<Output = Result<Snapshot>> + Send;

    /// Performs `action` on `node`, an element of a snapshot of `app`.
    fn act(
        &self,
        app: &App,
        node: &NodeData,
        action: &Action,
    ) -> impl Future<Output = Result<Performed>> + Send;

    /// Presses a key or chord in `app`, on its focused element. The keys
    /// must reach `app` even when another application (or another tab)
    /// has the keyboard.
    fn key(&self, app: &App, chord: &str) -> impl Future<Output = Result<Performed>> + Send;

    /// Change events of `app`. A backend without events returns
    /// [`EventStream::silent`]; the engine then polls.
    fn events(&self, app: &App) -> impl Future<Output = Result<EventStream>> + Send;

    /// A PNG of the screen or an area of it.
    fn screenshot(&self, area: Option<Rect>) -> impl Future<Output = Result<Vec<u8>>> + Send;

    /// Starts a program and waits until it shows a window.
    fn open(
        &self,
        program: &str,
        args: &[String],
        timeout: Duration,
    ) -> impl Future<Output = Result<App>> + Send;

    /// Asks a window to close. `window` is the window's element in a
    /// snapshot of `app`: its title, and what tells it from another window
    /// with the same title (its platform identity and bounds).
    fn close_window(
        &self,
        app: &App,
        window: &NodeData,
    ) -> impl Future<Output = Result<Performed>> + Send;

    /// Raises a window and focuses it; `window` as for
    /// [`Backend::close_window`].
    fn activate_window(
        &self,
        app: &App,
        window: &NodeData,
    ) -> impl Future<Output = Result<Performed>> + Send;

    /// The named actions `node` (an element of a snapshot of `app`) offers,
    /// as [`Action::Invoke`] takes them (`expand or contract`, `activate`).
    /// Backends with no such names answer none.
    fn actions(
        &self,
        app: &App,
        node: &NodeData,
    ) -> impl Future<Output = Result<Vec<String>>> + Send {
        let _ = (app, node);
        async { Ok(Vec::new()) }
    }

    /// Clicks at a point in the coordinates of [`Backend::screenshot`] (the
    /// screen of a desktop, the viewport of a browser tab `app`): for what
    /// the tree does not show, and to answer a dialog of an application
    /// that does not answer. `action` is a click, right click or double
    /// click, the pointer moved there ([`Action::Hover`]), or a drag from
    /// there with the primary button ([`Action::DragTo`], to a point in the
    /// same coordinates). Backends without pointer input answer
    /// [`ErrorKind::Unsupported`].
    fn click_at(
        &self,
        app: &App,
        x: i32,
        y: i32,
        action: &Action,
    ) -> impl Future<Output = Result<Performed>> + Send {
        let _ = (app, x, y, action);
        let name = self.name();
        async move {
            Err(Error::new(
                ErrorKind::Unsupported,
                format!("the {name} backend cannot click at a point"),
            ))
        }
    }

    /// The centre of what shows of `node` (an element of a snapshot of
    /// `app`) now, in the coordinates of [`Backend::click_at`], for a point
    /// taken from an element (where a drag ends): read afresh where a
    /// snapshot's bounds may be older than the layout (a page's mirror
    /// keeps the bounds of elements that moved without changing). `None`:
    /// it has no place on screen. By default, the centre of its bounds in
    /// the snapshot ([`centre_of`]).
    fn centre_now(
        &self,
        app: &App,
        node: &NodeData,
    ) -> impl Future<Output = Result<Option<(i32, i32)>>> + Send {
        let _ = app;
        let centre = centre_of(node);
        async move { Ok(centre) }
    }

    /// Whether `app` answers now, asked with a short timeout (a fraction of
    /// a second, where a read that gets no answer waits for the full
    /// per-call timeout); [`ErrorKind::Gone`] when it has exited. The
    /// engine asks it of an application that stopped answering before
    /// reading it again. Backends that cannot tell say `true`.
    fn answers(&self, app: &App) -> impl Future<Output = Result<bool>> + Send {
        let _ = app;
        async { Ok(true) }
    }

    /// Why an application may stop answering right after an action on
    /// this platform, and how to get out of it, for
    /// `uidelta_engine::Error::Unresponsive`. `None`: nothing known.
    fn unresponsive_hint(&self) -> Option<&'static str> {
        None
    }

    /// The shortest quiet window after which `app` may be taken as
    /// settled, when it needs a longer one than the engine's: it updates
    /// part of its UI on a timer of its own, sending nothing meanwhile
    /// (LibreOffice's tool bars and menus follow a change 300 ms later).
    /// `None`: nothing known.
    fn settle_window(&self, app: &App) -> Option<Duration> {
        let _ = app;
        None
    }

    /// Whether, in `app`, an element that says `visible` and not `showing`
    /// while its parent shows is one the toolkit has not put on the screen
    /// yet: GTK 3 maps what an action added at its next frame, which a
    /// compositing window manager on a loaded machine may hold back for a
    /// while. The engine then takes such an element, added by the action,
    /// as a change still coming, and waits for it (a bounded time). Backends
    /// that cannot tell answer false.
    fn shows_late(&self, app: &App) -> impl Future<Output = bool> + Send {
        let _ = app;
        async { false }
    }

    /// How many top-level windows `app` made on the display since `since`
    /// that are still there and not withdrawn, as the display says, not
    /// the accessibility tree: a toolkit makes its window first and says so
    /// to accessibility later (Gecko's new windows, seconds later on a
    /// loaded machine). While the tree shows fewer new windows than this,
    /// the engine takes the change as still coming, and waits for it (a
    /// bounded time). Menus and tooltips, which no window manager manages,
    /// are not counted. Backends that cannot tell answer 0.
    fn windows_made(&self, app: &App, since: Instant) -> impl Future<Output = usize> + Send {
        let _ = (app, since);
        async { 0 }
    }

    /// The processes `app` started since `since` that may still show
    /// windows of their own: processes below its own that draw on the
    /// display (GIMP runs each plug-in as one, and the plug-in's dialog is
    /// its window, not GIMP's). The engine waits, a bounded time, for one
    /// that is not on the platform's list of applications yet to join it
    /// and show a window. Backends that cannot tell answer none.
    fn started(&self, app: &App, since: Instant) -> impl Future<Output = Vec<u32>> + Send {
        let _ = (app, since);
        async { Vec::new() }
    }

    /// Browsers: loads a URL in the tab `app`, or moves in its history, and
    /// returns once the new document has started loading (settling waits
    /// for the rest). Other backends answer [`ErrorKind::Unsupported`].
    fn navigate(&self, app: &App, to: &Navigate) -> impl Future<Output = Result<Performed>> + Send {
        let _ = (app, to);
        let name = self.name();
        async move {
            Err(Error::new(
                ErrorKind::Unsupported,
                format!("the {name} backend has no browser to navigate"),
            ))
        }
    }

    /// Browsers: runs a script in the tab `app` and returns its result as
    /// JSON text (a thrown exception is an error naming it). Other backends
    /// answer [`ErrorKind::Unsupported`].
    fn run_script(&self, app: &App, script: &str) -> impl Future<Output = Result<String>> + Send {
        let _ = (app, script);
        let name = self.name();
        async move {
            Err(Error::new(
                ErrorKind::Unsupported,
                format!("the {name} backend cannot run browser scripts"),
            ))
        }
    }
}
