//! The trait every platform adapter implements, and the neutral types it
//! speaks. The engine is written against [`Backend`] only, so a new platform
//! (the browser through CDP, Windows UIA, macOS AX) plugs in unchanged.

use std::future::Future;
use std::time::{Duration, Instant};

use uidelta_model::{NodeData, Rect, Snapshot};

mod events;
pub use events::{EventSender, EventStream};

/// An application (or a browser) a backend can capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct App {
    /// Its name (`gtk3-widget-factory`).
    pub name: String,
    /// Process id, when known.
    pub pid: Option<u32>,
    /// The backend's handle for it (AT-SPI unique bus name, CDP target id).
    pub id: String,
    /// Its top-level windows.
    pub windows: Vec<Window>,
    /// Set when it did not answer while being listed.
    pub error: Option<String>,
}

impl App {
    /// `gtk3-widget-factory (pid 4242)`, for messages. The name is the
    /// application's own: what would act on a terminal is escaped (see
    /// [`uidelta_model::printable`]).
    pub fn label(&self) -> String {
        let name = uidelta_model::printable(&self.name);
        match self.pid {
            Some(pid) => format!("{name} (pid {pid})"),
            None => format!("{name} ({})", uidelta_model::printable(&self.id)),
        }
    }
}

/// A top-level window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// Title.
    pub title: String,
    /// Role name (`frame`, `dialog`).
    pub role: String,
    /// The backend's handle for it.
    pub id: String,
    /// Whether it is the active window.
    pub active: bool,
    /// Whether it is shown.
    pub showing: bool,
}

/// What part of an application to capture.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// All its windows.
    App,
    /// One window, by title or unique title prefix.
    Window(String),
    /// The active window.
    Focused,
}

/// The longest key chord taken, in characters. A chord is a few modifiers
/// and a key (`ctrl+shift+Page_Down`); anything much longer is a mistake,
/// and pressing it would hold the keyboard while its keys go down and up.
pub const MAX_CHORD_CHARS: usize = 200;

/// The most characters typed by one action. Synthesized input types them
/// key by key (a few thousand a second at best), so more would hold the
/// keyboard for minutes; set_value replaces a text in one call.
pub const MAX_TYPED_CHARS: usize = 100_000;

/// The most characters of a user's argument (a selector, a chord, an
/// application name) that answers and errors repeat: enough to recognize
/// it, never so much that repeating it floods the answer.
pub const ECHO_CHARS: usize = 80;

/// `text` as answers and errors repeat it: whole up to [`ECHO_CHARS`]
/// characters, else its start, `…` and its length in characters
/// (`ctrl+ctrl+…(600000 chars)`).
pub fn echo(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(ECHO_CHARS) {
        None => std::borrow::Cow::Borrowed(text),
        Some((cut, _)) => {
            std::borrow::Cow::Owned(format!("{}…({} chars)", &text[..cut], text.chars().count()))
        }
    }
}

/// An action on one element.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// The primary click.
    Click,
    /// A right click.
    RightClick,
    /// A double click.
    DoubleClick,
    /// Type text into the element.
    Type(String),
    /// Press a key or chord (`ctrl+s`, `Return`) with the element focused.
    Key(String),
    /// Set a number, or the whole text.
    SetValue(String),
    /// Select (or deselect) the element in its container.
    SetSelected(bool),
    /// Scroll by wheel clicks at the element; (0, 0) scrolls it into view.
    Scroll {
        /// Horizontal clicks, right positive.
        dx: i32,
        /// Vertical clicks, down positive.
        dy: i32,
    },
    /// Give the element keyboard focus.
    Focus,
    /// Perform a named accessible action.
    Invoke(String),
}

impl Action {
    /// What the action is doing, for messages: `clicking`, `typing 5 characters`.
    /// Typed text is never included: it may be a password.
    pub fn doing(&self) -> String {
        match self {
            Action::Click => "clicking".into(),
            Action::RightClick => "right-clicking".into(),
            Action::DoubleClick => "double-clicking".into(),
            Action::Type(t) => format!("typing {} characters into", t.chars().count()),
            Action::Key(k) => format!("pressing {} on", echo(k)),
            Action::SetValue(_) => "setting the value of".into(),
            Action::SetSelected(true) => "selecting".into(),
            Action::SetSelected(false) => "deselecting".into(),
            Action::Scroll { .. } => "scrolling".into(),
            Action::Focus => "focusing".into(),
            Action::Invoke(name) => format!("invoking `{}` on", echo(name)),
        }
    }

    /// Why the action is refused before anything is done, if it is: a
    /// chord longer than [`MAX_CHORD_CHARS`], a text to type longer than
    /// [`MAX_TYPED_CHARS`].
    pub fn refusal(&self) -> Option<String> {
        match self {
            Action::Key(chord) => chord_refusal(chord),
            Action::Type(text) => {
                let count = text.chars().count();
                (count > MAX_TYPED_CHARS).then(|| {
                    format!(
                        "the text to type has {count} characters, more than the \
                         {MAX_TYPED_CHARS} one action types; type it in parts, or set the whole \
                         text as the element's value"
                    )
                })
            }
            _ => None,
        }
    }
}

/// Why the key chord `chord` is refused, if it is: longer than
/// [`MAX_CHORD_CHARS`].
pub fn chord_refusal(chord: &str) -> Option<String> {
    let count = chord.chars().count();
    (count > MAX_CHORD_CHARS).then(|| {
        format!(
            "the key chord `{}` is {count} characters long, more than the {MAX_CHORD_CHARS} a \
             chord may have; a chord is modifiers and one key (`ctrl+shift+s`); to enter \
             text, type it",
            echo(chord)
        )
    })
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
pub struct Done {
    /// The interface or input used.
    pub method: String,
}

/// One change event from an application.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// `object:state-changed:checked`, `object:children-changed:add`, ...
    pub kind: String,
    /// The identity of the element it is about, as in snapshots.
    pub source: Option<String>,
    /// When it arrived.
    pub at: Instant,
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
    ) -> impl Future<Output = Result<Done>> + Send;

    /// Presses a key or chord in `app`, on its focused element. The keys
    /// must reach `app` even when another application (or another tab)
    /// has the keyboard.
    fn key(&self, app: &App, chord: &str) -> impl Future<Output = Result<Done>> + Send;

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
    ) -> impl Future<Output = Result<Done>> + Send;

    /// Raises a window and focuses it; `window` as for
    /// [`Backend::close_window`].
    fn activate_window(
        &self,
        app: &App,
        window: &NodeData,
    ) -> impl Future<Output = Result<Done>> + Send;

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
    /// click. Backends without pointer input answer
    /// [`ErrorKind::Unsupported`].
    fn click_at(
        &self,
        app: &App,
        x: i32,
        y: i32,
        action: &Action,
    ) -> impl Future<Output = Result<Done>> + Send {
        let _ = (app, x, y, action);
        let name = self.name();
        async move {
            Err(Error::new(
                ErrorKind::Unsupported,
                format!("the {name} backend cannot click at a point"),
            ))
        }
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

    /// Browsers: loads a URL in the tab `app`, or moves in its history, and
    /// returns once the new document has started loading (settling waits
    /// for the rest). Other backends answer [`ErrorKind::Unsupported`].
    fn navigate(&self, app: &App, to: &Navigate) -> impl Future<Output = Result<Done>> + Send {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_application_label_never_carries_terminal_controls() {
        let app = App {
            name: "evil\u{1b}]0;owned\u{7}\u{202e}".into(),
            pid: Some(7),
            id: ":1.7".into(),
            windows: Vec::new(),
            error: None,
        };
        assert_eq!(app.label(), "evil\\u{1b}]0;owned\\u{7}\\u{202e} (pid 7)");
    }

    #[test]
    fn long_arguments_are_echoed_by_their_start_and_length() {
        assert_eq!(echo("ctrl+s"), "ctrl+s");
        let exact = "é".repeat(ECHO_CHARS);
        assert_eq!(echo(&exact), exact);
        let chord = "ctrl+".repeat(120_000);
        assert_eq!(
            echo(&chord),
            format!("{}…(600000 chars)", "ctrl+".repeat(16))
        );
        assert_eq!(
            Action::Key(chord.clone()).doing(),
            format!("pressing {}…(600000 chars) on", "ctrl+".repeat(16))
        );
    }

    #[test]
    fn chords_and_texts_over_their_caps_are_refused() {
        assert_eq!(Action::Key("ctrl+shift+Page_Down".into()).refusal(), None);
        assert_eq!(Action::Key("a".repeat(MAX_CHORD_CHARS)).refusal(), None);
        let refusal = Action::Key("ctrl+".repeat(120_000))
            .refusal()
            .unwrap_or_default();
        assert!(
            refusal.starts_with(&format!(
                "the key chord `{}…(600000 chars)` is 600000 characters long, more than the 200",
                "ctrl+".repeat(16)
            )),
            "{refusal}"
        );
        assert!(refusal.len() < 400, "{refusal}");
        assert_eq!(Action::Type("x".repeat(MAX_TYPED_CHARS)).refusal(), None);
        let refusal = Action::Type("x".repeat(MAX_TYPED_CHARS + 1))
            .refusal()
            .unwrap_or_default();
        assert!(
            refusal.starts_with("the text to type has 100001 characters, more than the 100000"),
            "{refusal}"
        );
        assert_eq!(
            Action::SetValue("x".repeat(MAX_TYPED_CHARS + 1)).refusal(),
            None
        );
    }
}
