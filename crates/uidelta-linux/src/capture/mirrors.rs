//! Captures through live mirrors of the applications' trees (see
//! [`uidelta_atspi::Mirror`]): one per application and window captured, at
//! most [`MAX_MIRRORS`], each listening to its application's events.
//!
//! `UIDELTA_MIRROR` chooses: `on` (the default: read only what events
//! named, for the toolkits whose events are vouched for: see
//! `Profile::mirrors`), `off` (every capture walks the whole tree),
//! `check` (a capture read in part is compared with a whole walk, node for
//! node; a difference that no event since explains is logged and the
//! whole walk answered) and `strict` (the same, but such a difference is
//! an error: for tests).
//! `UIDELTA_MIRROR_BOUNDS=0` leaves bounds out of the comparison.
//! `UIDELTA_MIRROR_TIMES=FILE`, with `check` or `strict`, appends one line
//! per capture to FILE: the application, how the mirror read it, and the
//! milliseconds of the capture through the mirror and of a whole walk right
//! after it (`uidelta-bench --bin mirror -- --times FILE` sums them up).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use uidelta_atspi::{
    capture, differences, AppRef, CaptureOptions, Difference, Mirror, Reading, NOT_TRUSTED,
    ROOT_PATH,
};
use uidelta_model::Snapshot;

use crate::{Error, Linux, Result};

/// How many times a check takes the mirror's capture and a whole walk
/// again when they differ in bounds only, and how long it waits before
/// each: what slides into place after its events is still moving.
const CATCH_UP_ROUNDS: usize = 3;
const CATCH_UP_PAUSE: std::time::Duration = std::time::Duration::from_millis(150);

/// Most mirrors kept; past that the one captured longest ago goes.
pub(crate) const MAX_MIRRORS: usize = 16;

pub use uidelta_backend::MirrorUse;

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
pub(crate) struct Mirrors {
    kept: Mutex<Vec<(MirrorKey, Shared)>>,
    /// Captures through mirrors so far: (walked whole, read in part).
    pub(crate) readings: Mutex<(u64, u64)>,
    /// Where the times of checked captures go (`UIDELTA_MIRROR_TIMES`).
    times: Option<PathBuf>,
}

impl Default for Mirrors {
    fn default() -> Self {
        Mirrors {
            kept: Mutex::default(),
            readings: Mutex::default(),
            times: uidelta_backend::mirror::times_file(),
        }
    }
}

/// How a capture through a mirror read: `part` or `whole:REASON` (a line
/// of `UIDELTA_MIRROR_TIMES`, see [`uidelta_backend::mirror::times_line`]).
fn how(reading: &Reading) -> String {
    match reading {
        Reading::Part { .. } => "part".to_owned(),
        Reading::Whole(why) => format!("whole:{why}"),
    }
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
        let started = Instant::now();
        let read = mirror.capture(&self.bus, window.clone(), opts).await;
        let mirror_ms = started.elapsed().as_secs_f64() * 1000.0;
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
        let checked = self.mirror_use.checks();
        // Toolkits not mirrored walk whole every time: nothing to time.
        let timed = checked
            .then_some(self.mirrors.times.as_ref())
            .flatten()
            .filter(|_| reading != Reading::Whole(NOT_TRUSTED));
        if !matches!(reading, Reading::Part { .. }) && timed.is_none() || !checked {
            return Ok(snapshot);
        }
        let started = Instant::now();
        let whole = capture(&self.bus, app, root, window.clone(), opts).await?;
        if let Some(path) = timed {
            let whole_ms = started.elapsed().as_secs_f64() * 1000.0;
            uidelta_backend::mirror::write_times(
                path,
                &app.name,
                &how(&reading),
                mirror_ms,
                whole_ms,
            );
        }
        // A whole walk is compared with nothing: it was timed only.
        if !matches!(reading, Reading::Part { .. }) {
            return Ok(snapshot);
        }
        let differ = differences(&snapshot, &whole, 20, self.mirror_bounds);
        // The application may have changed between the two reads: the
        // mirror is wrong only where no event since names the difference.
        if differ.is_empty() || mirror.explains(&self.bus, &differ, &whole).await {
            return Ok(snapshot);
        }
        // What slides into place after its events (a revealer's bar, a
        // stack's page) has its bounds read again at the captures of the
        // next second: a difference of bounds only is wrong if it is still
        // there once the slide is over.
        let mut later: Vec<Difference> = Vec::new();
        let mut rounds = 0;
        if differ.iter().all(Difference::is_bounds) {
            while rounds < CATCH_UP_ROUNDS {
                rounds += 1;
                tokio::time::sleep(CATCH_UP_PAUSE).await;
                let (again, _) = mirror.capture(&self.bus, window.clone(), opts).await?;
                let whole = capture(&self.bus, app, root, window.clone(), opts).await?;
                let still = differences(&again, &whole, 20, self.mirror_bounds);
                if still.is_empty() || mirror.explains(&self.bus, &still, &whole).await {
                    return Ok(again);
                }
                let settled = !still.iter().all(Difference::is_bounds);
                later = still;
                if settled {
                    break;
                }
            }
        }
        // The last pixels of a slide that ended without an event, still
        // there after the rounds: logged, not a failure (bounds are never
        // part of a diff, and actions read an element's place afresh).
        let left = if later.is_empty() { &differ } else { &later };
        if left.iter().all(Difference::is_nudge) {
            let nudged: Vec<String> = left.iter().map(|d| d.to_string()).collect();
            tracing::warn!(
                "the mirror of {} has nodes a few pixels from their places: {}",
                app.label(),
                nudged.join("; ")
            );
            drop(mirror);
            self.mirrors.forget(app);
            return Ok(whole);
        }
        let mut report = differ
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("; ");
        if !later.is_empty() {
            let last: Vec<String> = later.iter().map(|d| d.to_string()).collect();
            report.push_str(&format!(
                "; and after {rounds} more captures: {}",
                last.join("; ")
            ));
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reading_says_how_it_read() {
        let part = Reading::Part {
            reread: 3,
            moved: 0,
            new: 1,
        };
        assert_eq!(how(&part), "part");
        assert_eq!(how(&Reading::Whole("first capture")), "whole:first capture");
    }
}
