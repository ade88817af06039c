//! Top-level windows as applications make them: a watch on the root window.
//!
//! An application makes its window on the display before its accessibility
//! layer says a word of it, and some toolkits say it much later: Firefox
//! makes its new window 16 ms after ctrl+N, the window manager maps it
//! 170 ms later, and the accessible comes later still (on a loaded machine,
//! seconds later). A window made since an action that the accessibility
//! tree does not hold yet says that a change is still coming, where the
//! tree alone says nothing. Only windows a window manager would manage are
//! kept: override-redirect windows (menus, tooltips, toolkits' helper
//! windows) are passed over, and a window is forgotten once destroyed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    ChangeWindowAttributesAux, ClientMessageEvent, ConnectionExt, CreateWindowAux, EventMask,
    Window, WindowClass,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;
use x11rb::COPY_DEPTH_FROM_PARENT;

use crate::{Failure, X11Error};

/// How long a window made is remembered: far past any wait after an
/// action.
const KEPT_FOR: Duration = Duration::from_secs(60);

/// The most windows remembered; the oldest go first.
const KEPT: usize = 1024;

/// Windows made on the root window, as a thread of its own hears of them
/// on a connection of its own. The thread ends when this is dropped.
pub struct MadeWindows {
    made: Arc<Mutex<HashMap<Window, Instant>>>,
    stop: Arc<AtomicBool>,
    conn: Arc<RustConnection>,
    /// A window of the watch's own, which the stop is sent to.
    own: Window,
}

impl std::fmt::Debug for MadeWindows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MadeWindows").finish_non_exhaustive()
    }
}

impl MadeWindows {
    /// Starts watching the root window of `display` for windows made.
    pub fn watch(display: &str) -> Result<MadeWindows, X11Error> {
        let failed = |reason: Failure| X11Error::Failed {
            action: "watching for windows made".into(),
            display: display.to_owned(),
            reason,
        };
        let (conn, screen) = x11rb::connect(Some(display)).map_err(|reason| X11Error::Connect {
            display: display.to_owned(),
            reason,
        })?;
        let Some(root) = conn.setup().roots.get(screen).map(|s| s.root) else {
            return Err(X11Error::Connect {
                display: display.to_owned(),
                reason: x11rb::errors::ConnectError::InvalidScreen,
            });
        };
        let own = conn.generate_id().map_err(|e| failed(e.into()))?;
        let setup = || -> Result<(), Failure> {
            // An input-only window, never mapped: what the stop is sent to.
            conn.create_window(
                COPY_DEPTH_FROM_PARENT,
                own,
                root,
                -1,
                -1,
                1,
                1,
                0,
                WindowClass::INPUT_ONLY,
                x11rb::COPY_FROM_PARENT,
                &CreateWindowAux::new().override_redirect(1),
            )?
            .check()?;
            conn.change_window_attributes(
                root,
                &ChangeWindowAttributesAux::new().event_mask(EventMask::SUBSTRUCTURE_NOTIFY),
            )?
            .check()?;
            Ok(())
        };
        setup().map_err(failed)?;
        let conn = Arc::new(conn);
        let made = Arc::new(Mutex::new(HashMap::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (c, m, s) = (conn.clone(), made.clone(), stop.clone());
        std::thread::Builder::new()
            .name("uidelta-window".into())
            .spawn(move || hear(&c, root, &m, &s))
            .map_err(|e| failed(Failure::Thread(e)))?;
        Ok(MadeWindows {
            made,
            stop,
            conn,
            own,
        })
    }

    /// The windows made at `since` or later that are still there, oldest
    /// first: children of the root when made (inside a window manager's
    /// frame since, maybe), not override-redirect.
    pub fn since(&self, since: Instant) -> Vec<u32> {
        let made = self.made.lock().unwrap_or_else(PoisonError::into_inner);
        let mut windows: Vec<(Instant, Window)> = made
            .iter()
            .filter(|&(_, &at)| at >= since)
            .map(|(&w, &at)| (at, w))
            .collect();
        windows.sort_unstable();
        windows.into_iter().map(|(_, w)| w).collect()
    }
}

impl Drop for MadeWindows {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // An event to the watch's own window wakes its thread, which sees
        // the stop. Nothing to do if the server is gone: so is the thread.
        let wake = ClientMessageEvent::new(32, self.own, x11rb::NONE, [0u32; 5]);
        let sent = self
            .conn
            .send_event(false, self.own, EventMask::NO_EVENT, wake)
            .map(|_| ())
            .and_then(|()| self.conn.flush());
        // A display that went away ended the thread already (its wait for
        // an event failed): nothing to wake.
        drop(sent);
    }
}

/// The watch's thread: records every window made on `root` that is not
/// override-redirect, forgets it once destroyed or unmapped (a window
/// shown and hidden again is no window coming; under a window manager, a
/// client withdrawing its window says so to the root, ICCCM 4.1.4, while
/// its destruction is told only to the frame it is in), until `stop` or the
/// connection ends.
fn hear(
    conn: &RustConnection,
    root: Window,
    made: &Mutex<HashMap<Window, Instant>>,
    stop: &AtomicBool,
) {
    while !stop.load(Ordering::SeqCst) {
        let Ok(event) = conn.wait_for_event() else {
            return;
        };
        let now = Instant::now();
        let mut made = made.lock().unwrap_or_else(PoisonError::into_inner);
        match event {
            Event::CreateNotify(e) if e.parent == root && !e.override_redirect => {
                if made.len() >= KEPT {
                    made.retain(|_, &mut at| now.saturating_duration_since(at) < KEPT_FOR);
                    if made.len() >= KEPT {
                        if let Some(oldest) =
                            made.iter().min_by_key(|&(_, &at)| at).map(|(&w, _)| w)
                        {
                            made.remove(&oldest);
                        }
                    }
                }
                made.insert(e.window, now);
            }
            Event::DestroyNotify(e) => {
                made.remove(&e.window);
            }
            Event::UnmapNotify(e) => {
                made.remove(&e.window);
            }
            _ => {}
        }
    }
}
