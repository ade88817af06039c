//! What goes wrong in this crate.

/// What went wrong, naming what was being done.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// From the accessibility bus.
    #[error(transparent)]
    Atspi(#[from] uidelta_atspi::Error),
    /// From the X server.
    #[error(transparent)]
    X11(#[from] uidelta_x11::X11Error),
    /// The X display went away (the X server ended or restarted).
    #[error("the X display {display} is gone ({detail})")]
    DisplayLost {
        /// The display.
        display: String,
        /// What the connection answered.
        detail: String,
    },
    /// Synthesized input or a screenshot was needed, and the X display
    /// there should be cannot be reached (yet); see [`crate::Reconnecting`].
    #[error("{doing}: {why}")]
    DisplayUnreachable {
        /// What needed it.
        doing: String,
        /// What connecting to it answered, and what is tried next.
        why: String,
    },
    /// Synthesized input or a screenshot was needed but there is no display.
    #[error("{doing}: no X display (set DISPLAY)")]
    NoDisplay {
        /// What needed it.
        doing: String,
    },
    /// The element has no bounds to click or scroll at.
    #[error("{doing}: the element offers no accessible action and has no bounds to click at")]
    NoBounds {
        /// What was being done.
        doing: String,
    },
    /// A disabled element offers no action and cannot be reached to click.
    #[error(
        "{doing}: the element is disabled: it offers no accessible action and is not on view \
         (applications ignore clicks on disabled elements)"
    )]
    Disabled {
        /// What was being done.
        doing: String,
    },
    /// A point outside the screen.
    #[error("{doing}: the point is off the screen, which is {}x{}", size.0, size.1)]
    OffScreen {
        /// What was being done.
        doing: String,
        /// The screen's width and height.
        size: (u32, u32),
    },
    /// An action other than a click asked for at a point.
    #[error(
        "{doing}: only a click, right click or double click, the pointer moved there, or a drag \
         from there, can be made at a point"
    )]
    NotAClick {
        /// What was being done.
        doing: String,
    },
    /// The element has no platform identity (it came from a file).
    #[error("{doing}: the element has no AT-SPI identity; it must come from a live capture")]
    NoIdentity {
        /// What was being done.
        doing: String,
    },
    /// Starting a program failed, or it never showed a window.
    #[error("opening {}: {detail}", uidelta_backend::echo(.program))]
    Launch {
        /// The program.
        program: String,
        /// Why.
        detail: String,
    },
    /// No window matched.
    #[error("{0}")]
    NoWindow(String),
    /// Another window is on top of the element where the pointer would
    /// click it.
    #[error("{doing}: at {x},{y}, the element's centre, {by} is on top of it; close that window or bring the element's to the front first")]
    Covered {
        /// What was being done.
        doing: String,
        /// The point.
        x: i32,
        /// The point.
        y: i32,
        /// What is on top.
        by: String,
    },
    /// A modal window of the application blocks the element's window: a
    /// click there reaches nothing, and an accessible action would run the
    /// element's handler past the dialog (often into a second one, which
    /// GTK can deadlock on).
    #[error("{doing}: the {role} \"{title}\" of the same application is open and modal, so the element's window takes no input; answer that {role} first")]
    Blocked {
        /// What was being done.
        doing: String,
        /// The modal window's role.
        role: String,
        /// Its title.
        title: String,
    },
    /// Keys for an element that cannot take the keyboard focus: they
    /// would go to whatever has it. None were sent.
    #[error(
        "{doing}: {why}, so the keys would go to whatever has the keyboard focus; none were \
         sent (act on an element that takes the focus: an enabled, showing text field)"
    )]
    NoKeyboardFocus {
        /// What was being done.
        doing: String,
        /// Why the element cannot take the focus: `it is disabled`.
        why: String,
    },
    /// A table cell scrolled out of sight that its table would not
    /// select (through Selection or Table) and that offers no click of its
    /// own: its `activate` would run the row's default action (answer the
    /// dialog), which is not what a click does. Nothing was done.
    #[error(
        "{doing}: the table cell is out of sight, its table would not select it (Selection, \
         Table), and none of its own actions is a click (it has: {actions}; `activate` runs \
         the row's default action, as a double click does: invoke it by name for that)"
    )]
    CellOutOfSight {
        /// What was being done.
        doing: String,
        /// The cell's actions, listed.
        actions: String,
    },
    /// A value to set on a field that takes it only as keys, longer than
    /// one action types ([`uidelta_backend::MAX_TYPED_CHARS`]): typed key
    /// by key, it would hold the keyboard for minutes. Nothing was done.
    #[error(
        "{doing}: the element takes its text only as keys, and the value has {count} \
         characters, more than the {max} one action types; nothing was done (type it in parts)"
    )]
    TooLongToType {
        /// What was being done.
        doing: String,
        /// The value's length, in characters.
        count: usize,
        /// The most one action types.
        max: usize,
    },
    /// An item of a combo box's popup could not be picked.
    #[error("{doing}: {why}")]
    NotPicked {
        /// What was being done.
        doing: String,
        /// Why not.
        why: String,
    },
    /// A capture read through a mirror differs from a whole walk
    /// (`UIDELTA_MIRROR=strict`, for tests): the differences.
    #[error("{0}")]
    MirrorDiffers(String),
}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;
