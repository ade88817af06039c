//! uidelta's Linux desktop backend.
//!
//! Accessibility interfaces come first (AT-SPI Action, EditableText, Value,
//! Selection, Component); synthesized X input at the element's centre is the
//! fallback. Push buttons and menu items are clicked with the pointer when
//! it can reach them (see `act::plan::plan_click`). Window management
//! (activate, close) and screenshots talk to the X server. [`Linux`] is used
//! through its [`uidelta_backend::Backend`] implementation.
//!
//! Modules: `coords` (toolkit coordinates on the display), `reach` (what is
//! on top at a point), `capture` (captures as the display shows them),
//! `act` (actions: `plan` decides clicks from facts, `pointer`, `menus`,
//! `combo`, `keys` carry them out), `windows` (window management),
//! `launch` (opening applications), `idle` (whether an application's
//! process has nothing pending), `started` (the programs it started),
//! `error`, `backend` (the `Backend` implementation) and `reconnect`
//! ([`Reconnecting`]).

mod act;
mod backend;
mod capture;
mod coords;
mod error;
mod idle;
mod launch;
mod reach;
mod reconnect;
mod started;
mod windows;

pub use capture::MirrorUse;
pub use error::{Error, Result};
pub use reconnect::Reconnecting;

use uidelta_atspi::{find_app, subscribe_with, AppRef, Bus, Subscription, UiEvent};
use uidelta_backend::App;
pub use uidelta_backend::{Action, Performed, Scope};
use uidelta_x11::{MadeWindows, X11};

use crate::backend::to_app;

/// The Linux desktop: one accessibility bus and, when there is a display,
/// one X connection.
pub struct Linux {
    bus: Bus,
    x11: Option<X11>,
    /// The windows applications made on the display (see
    /// [`Backend::windows_made`]); `None` without a display, or where the
    /// display could not be watched.
    ///
    /// [`Backend::windows_made`]: uidelta_backend::Backend::windows_made
    made: Option<MadeWindows>,
    /// Why there is no `x11` where a display was asked for (see
    /// [`Error::DisplayUnreachable`]).
    display_why: Option<String>,
    /// Applications (by bus name) seen to report the display's places (see
    /// [`crate::coords::Placed::display_places`]): their captures need no window listing.
    on_display: std::sync::Mutex<std::collections::HashSet<String>>,
    /// Live mirrors of the trees captured (see `capture::mirrors`).
    mirrors: capture::Mirrors,
    /// How captures use them (`UIDELTA_MIRROR`).
    mirror_use: capture::MirrorUse,
    /// Whether the check of a mirror compares bounds
    /// (`UIDELTA_MIRROR_BOUNDS=0` leaves them out).
    mirror_bounds: bool,
    /// When each application was last acted on (see `idle`).
    stirs: std::sync::Arc<idle::Stirs>,
}

/// A watch of `display` for windows made, `None` (said in the log) where
/// it cannot be had: actions then wait as if no window were coming.
pub(crate) fn watch_made(display: &str) -> Option<MadeWindows> {
    MadeWindows::watch(display)
        .inspect_err(|e| tracing::warn!("not watching for windows made: {e}"))
        .ok()
}

impl Linux {
    /// Connects to the session's accessibility bus (`session` or
    /// `DBUS_SESSION_BUS_ADDRESS`) and X display (`display` or `DISPLAY`).
    /// Without a display, everything but synthesized input and screenshots
    /// works.
    pub async fn connect(session: Option<&str>, display: Option<&str>) -> Result<Linux> {
        let bus = Bus::connect(session).await?;
        let display = display
            .map(str::to_owned)
            .or_else(|| std::env::var("DISPLAY").ok().filter(|d| !d.is_empty()));
        let (x11, made) = match display {
            Some(d) => (Some(X11::connect(&d)?), watch_made(&d)),
            None => (None, None),
        };
        Ok(Linux {
            bus,
            x11,
            made,
            display_why: None,
            on_display: Default::default(),
            mirrors: Default::default(),
            mirror_use: capture::MirrorUse::from_env(),
            mirror_bounds: capture::compare_bounds(),
            stirs: Default::default(),
        })
    }

    /// Whether the accessibility bus and the X display (if any) still
    /// answer on this connection: [`uidelta_atspi::Error::Lost`] or
    /// [`Error::DisplayLost`] when one went away (then nothing more can be
    /// done on this connection; see [`Reconnecting`]).
    pub async fn check(&self) -> Result<()> {
        self.bus.check().await?;
        if let Some(x11) = &self.x11 {
            x11.check().map_err(|e| Error::DisplayLost {
                display: x11.display().to_owned(),
                detail: match e {
                    uidelta_x11::X11Error::Failed { reason, .. } => reason.to_string(),
                    e => e.to_string(),
                },
            })?;
        }
        Ok(())
    }

    /// The accessibility bus.
    pub fn bus(&self) -> &Bus {
        &self.bus
    }

    /// Makes accessible actions through `program`'s `__keep-action`
    /// command, a helper that outlives this process until each action's
    /// handler has returned (see [`Bus::keep_actions_with`]): for a
    /// short-lived process, such as a command line.
    pub fn keep_actions_with(&mut self, program: std::path::PathBuf) {
        self.bus.keep_actions_with(program);
    }

    fn x11(&self, doing: impl FnOnce() -> String) -> Result<&X11> {
        self.x11.as_ref().ok_or_else(|| match &self.display_why {
            Some(why) => Error::DisplayUnreachable {
                doing: doing(),
                why: why.clone(),
            },
            None => Error::NoDisplay { doing: doing() },
        })
    }

    /// Finds an application by name (exact, case-insensitive, or a unique
    /// prefix) on the accessibility bus; the error lists what is there.
    pub async fn app(&self, name: &str) -> Result<App> {
        Ok(to_app(find_app(&self.bus, name).await?))
    }

    /// Events of one application, for settling, handed to `sink` as they
    /// arrive (it must not wait; false stops them).
    pub(crate) async fn events(
        &self,
        app: &AppRef,
        sink: impl FnMut(UiEvent) -> bool + Send + 'static,
    ) -> Result<Subscription> {
        Ok(subscribe_with(&self.bus, Some(&app.bus_name), sink).await?)
    }
}
