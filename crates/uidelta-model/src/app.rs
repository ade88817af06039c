//! Applications, their windows, what to capture of them and the actions
//! on their elements: what the engine asks of a backend and what renderers
//! show, without any platform behind them.

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
    /// [`crate::printable`]).
    pub fn label(&self) -> String {
        let name = crate::printable(&self.name);
        match self.pid {
            Some(pid) => format!("{name} (pid {pid})"),
            None => format!("{name} ({})", crate::printable(&self.id)),
        }
    }
}

/// The indices of the names that `wanted` picks, case aside: those equal
/// to it; else those it begins; else, of names that are application ids
/// (`org.gnome.Nautilus`, as GTK 4 and GNOME applications name
/// themselves), those whose last part is it (`nautilus`) or, failing
/// that, begins with it. Empty when none does.
pub fn names_picked<'a>(names: impl IntoIterator<Item = &'a str>, wanted: &str) -> Vec<usize> {
    let wanted = wanted.to_lowercase();
    let names: Vec<String> = names.into_iter().map(str::to_lowercase).collect();
    // The last part of an application id: three parts or more.
    fn short(n: &str) -> Option<&str> {
        (n.split('.').count() >= 3)
            .then(|| n.rsplit('.').next())
            .flatten()
    }
    let tests: [&dyn Fn(&str) -> bool; 4] = [
        &|n| n == wanted,
        &|n| n.starts_with(&wanted),
        &|n| short(n) == Some(&wanted),
        &|n| short(n).is_some_and(|s| s.starts_with(&wanted)),
    ];
    for test in tests {
        let picked: Vec<usize> = (0..names.len()).filter(|&i| test(&names[i])).collect();
        if !picked.is_empty() {
            return picked;
        }
    }
    Vec::new()
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
    /// Move the pointer over the element and leave it there: what shows
    /// while the pointer is over it (a menu a page opens on hover, a menu
    /// bar's next menu while one is open, controls shown on hover).
    Hover,
    /// Press the primary button on the element, move the pointer to a
    /// point (screen coordinates on the desktop, viewport CSS pixels in a
    /// page: those of bounds and of screenshots) and release it there: a
    /// card dragged to another list, a slider's knob, a file onto a
    /// folder.
    DragTo {
        /// Where the button is released, horizontally.
        x: i32,
        /// Where the button is released, vertically.
        y: i32,
    },
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
            Action::Hover => "moving the pointer over".into(),
            Action::DragTo { x, y } => format!("dragging to {x},{y}"),
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
    fn applications_are_picked_by_name_prefix_or_the_last_part_of_their_id() {
        let names = [
            "gtk3-widget-factory",
            "org.gnome.Nautilus",
            "org.gnome.TextEditor",
            "uidelta-fixture.py",
            "soffice",
        ];
        let pick = |w: &str| names_picked(names, w);
        assert_eq!(pick("GTK3-Widget-Factory"), [0]);
        assert_eq!(pick("gtk3"), [0]);
        assert_eq!(pick("nautilus"), [1]);
        assert_eq!(pick("Naut"), [1]);
        assert_eq!(pick("texteditor"), [2]);
        assert_eq!(pick("org.gnome"), [1, 2]);
        // A file's extension is no application id's last part.
        assert_eq!(pick("py"), Vec::<usize>::new());
        assert_eq!(pick("writer"), Vec::<usize>::new());
        // An exact name wins over a prefix, and a prefix over an id's part.
        assert_eq!(names_picked(["soffice", "soffice.bin"], "soffice"), [0]);
        assert_eq!(
            names_picked(["nautilus-helper", "org.gnome.Nautilus"], "nautilus"),
            [0]
        );
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
