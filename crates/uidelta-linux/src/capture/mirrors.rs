//! Captures through live mirrors of the applications' trees (see
//! [`uidelta_atspi::Mirror`]): one per application and window captured, at
//! most [`MAX_MIRRORS`], each listening to its application's events.
//!
//! `UIDELTA_MIRROR` chooses: `on` (the default: read only what events
//! named, for the toolkits whose events are vouched for: GTK 3), `off`
//! (every capture walks the whole tree), `check` (a capture read in part is
//! compared with a whole walk, node for node; a difference that no event
//! since explains is logged and the whole walk answered) and `strict` (the
//! same, but such a difference is an error: for tests).
//! `UIDELTA_MIRROR_BOUNDS=0` leaves bounds out of the comparison.

use std::sync::{Arc, Mutex};

use uidelta_atspi::{
    capture, differences, AppRef, CaptureOptions, Difference, Mirror, Reading, ROOT_PATH,
};
use uidelta_model::Snapshot;

use crate::{Error, Linux, Result};

/// Most mirrors kept; past that the one captured longest ago goes.
pub(crate) const MAX_MIRRORS: usize = 16;

/// How captures use live mirrors of the applications' trees
/// (`UIDELTA_MIRROR`, or [`Linux::set_mirror_use`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MirrorUse {
    /// Read only what events named, where the toolkit's events are trusted.
    #[default]
    On,
    /// Walk the whole tree every time.
    Off,
    /// Compare a capture read in part with a whole walk; log differences.
    Check,
    /// Compare, and fail on a difference.
    Strict,
}

impl MirrorUse {
    /// From `UIDELTA_MIRROR`; an unknown word is `on`, with a warning.
    pub(crate) fn from_env() -> MirrorUse {
        match std::env::var("UIDELTA_MIRROR").as_deref() {
            Err(_) | Ok("") | Ok("on") => MirrorUse::On,
            Ok("off") => MirrorUse::Off,
            Ok("check") => MirrorUse::Check,
            Ok("strict") => MirrorUse::Strict,
            Ok(other) => {
                tracing::warn!(
                    "UIDELTA_MIRROR={other:?} is not one of off, on, check, strict: off"
                );
                MirrorUse::Off
            }
        }
    }
}

/// Whether a check of a mirror compares bounds: yes, unless
/// `UIDELTA_MIRROR_BOUNDS=0`.
pub(crate) fn compare_bounds() -> bool {
    std::env::var("UIDELTA_MIRROR_BOUNDS").as_deref() != Ok("0")
}

/// A mirror, shared by the captures of its application.
type Shared = Arc<tokio::sync::Mutex<Mirror>>;
/// Which mirror: the application's bus name and the root's path.
type MirrorKey = (String, String);

/// The mirrors of one backend, by application bus name and root path.
#[derive(Default)]
pub(crate) struct Mirrors {
    kept: Mutex<Vec<(MirrorKey, Shared)>>,
    /// Captures through mirrors so far: (walked whole, read in part).
    pub(crate) readings: Mutex<(u64, u64)>,
}

impl Mirrors {
    /// The mirror of `app` from `root`, now the most recently used.
    fn get(&self, app: &AppRef, root: &str) -> Option<Shared> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let at = kept
            .iter()
            .position(|((bus, r), _)| *bus == app.bus_name && r == root)?;
        let entry = kept.remove(at);
        let mirror = Arc::clone(&entry.1);
        kept.push(entry);
        Some(mirror)
    }

    fn keep(&self, app: &AppRef, root: &str, mirror: Shared) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|((bus, r), _)| !(*bus == app.bus_name && r == root));
        kept.push(((app.bus_name.clone(), root.to_owned()), mirror));
        if kept.len() > MAX_MIRRORS {
            kept.remove(0);
        }
    }

    /// Drops the mirrors of `app`.
    pub(crate) fn forget(&self, app: &AppRef) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|((bus, _), _)| *bus != app.bus_name);
    }
}

impl Linux {
    /// Chooses how captures use mirrors (instead of `UIDELTA_MIRROR`) and
    /// whether a check compares bounds (instead of `UIDELTA_MIRROR_BOUNDS`).
    pub fn set_mirror_use(&mut self, how: MirrorUse, compare_bounds: bool) {
        self.mirror_use = how;
        self.mirror_bounds = compare_bounds;
    }

    /// How many captures through mirrors walked the whole tree, and how
    /// many read only what events named, so far.
    pub fn mirror_readings(&self) -> (u64, u64) {
        *self
            .mirrors
            .readings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Captures `app` from `root` (a window's path) through its mirror,
    /// started on first use; a whole walk when mirrors are off or one
    /// cannot be started.
    pub(crate) async fn mirrored(
        &self,
        app: &AppRef,
        root: Option<&str>,
        window: Option<String>,
        opts: &CaptureOptions,
    ) -> Result<Snapshot> {
        if self.mirror_use == MirrorUse::Off {
            return Ok(capture(&self.bus, app, root, window, opts).await?);
        }
        let at = root.unwrap_or(ROOT_PATH);
        let mirror = match self.mirrors.get(app, at) {
            Some(m) => m,
            None => match Mirror::start(&self.bus, app, root).await {
                Ok(m) => {
                    let m = Arc::new(tokio::sync::Mutex::new(m));
                    self.mirrors.keep(app, at, Arc::clone(&m));
                    m
                }
                Err(e) => {
                    tracing::debug!("no mirror of {}: {e}", app.label());
                    return Ok(capture(&self.bus, app, root, window, opts).await?);
                }
            },
        };
        let mut mirror = mirror.lock().await;
        let read = mirror.capture(&self.bus, window.clone(), opts).await;
        let (snapshot, reading) = match read {
            Ok(read) => read,
            Err(e) => {
                self.mirrors.forget(app);
                return Err(e.into());
            }
        };
        tracing::debug!(?reading, "captured {} through its mirror", app.label());
        {
            let mut counts = self
                .mirrors
                .readings
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            match reading {
                Reading::Whole(_) => counts.0 += 1,
                Reading::Part { .. } => counts.1 += 1,
            }
        }
        if !matches!(reading, Reading::Part { .. })
            || !matches!(self.mirror_use, MirrorUse::Check | MirrorUse::Strict)
        {
            return Ok(snapshot);
        }
        let whole = capture(&self.bus, app, root, window.clone(), opts).await?;
        let differ = differences(&snapshot, &whole, 20, self.mirror_bounds);
        // The application may have changed between the two reads: the
        // mirror is wrong only where no event since names the difference.
        if differ.is_empty() || mirror.explains(&self.bus, &differ, &whole).await {
            return Ok(snapshot);
        }
        // What slides into place after its events (a revealer's bar, a
        // stack's page) has its bounds read again at the next capture: a
        // difference of bounds only is wrong if that one still has it.
        if differ.iter().all(Difference::is_bounds) {
            let (again, _) = mirror.capture(&self.bus, window.clone(), opts).await?;
            let whole = capture(&self.bus, app, root, window, opts).await?;
            let still = differences(&again, &whole, 20, self.mirror_bounds);
            if still.is_empty() || mirror.explains(&self.bus, &still, &whole).await {
                return Ok(again);
            }
        }
        let report = differ
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("; ");
        tracing::warn!(
            "the mirror of {} differs from a whole walk ({reading:?}): {report}",
            app.label()
        );
        // Walked whole next time.
        drop(mirror);
        self.mirrors.forget(app);
        if self.mirror_use == MirrorUse::Strict {
            return Err(Error::MirrorDiffers(format!(
                "the mirror of {} differs from a whole walk: {report}",
                app.label()
            )));
        }
        Ok(whole)
    }
}
