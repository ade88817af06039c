//! Waiting: for an application to change, or for an element to meet a
//! condition.

use std::time::{Duration, Instant};

use uidelta_backend::{Backend, ErrorKind, Performed};
use uidelta_diff::Handle;
use uidelta_model::{NodeId, State};

use super::{ActOptions, ActionOutcome, AppDiff, Session};
use crate::error::{Error, Result};
use crate::selector::Selector;
use crate::settle::{is_noise, Quiet, Settle, POLL};

/// The method of a result that is not an action's ([`Session::wait_for_change`]).
pub(super) const WAITED: &str = "waited";

/// What [`Session::wait_for_element`] found.
#[derive(Clone, Debug)]
pub struct WaitOutcome {
    /// The element that met the condition (none when waiting for nothing
    /// to match).
    pub found: Option<Handle>,
    /// What changed since the last result, while waiting included, each
    /// with its application: the diffs of the snapshots taken on the way.
    pub changes: Vec<AppDiff>,
    /// The application exited while waiting: whatever was awaited will
    /// not come, and what was to disappear did. The session has forgotten
    /// it.
    pub exited: bool,
}

/// What to wait for in [`Session::wait_for_element`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Condition {
    /// Until something matches.
    Appears,
    /// Until nothing matches.
    Disappears,
    /// Until a match has this state (`enabled`, `checked`, `focused`, ...).
    Has(State),
    /// Until a match lacks this state.
    Lacks(State),
}

impl<B: Backend> Session<B> {
    /// Blocks until `app` changes (or `timeout` passes), then returns the
    /// diff; `has_changes()` is false when the time ran out.
    pub async fn wait_for_change(&mut self, app: &str, timeout: Duration) -> Result<ActionOutcome> {
        let idx = self.look(app).await?;
        let start = Instant::now();
        // No action begins here: what an earlier one that failed began is
        // not this wait's (see `KnownApp::acting`).
        self.known[idx].acting = None;
        let handle = self.known[idx].handle(NodeId::ROOT);
        // What changed since the last result (between two calls) is a
        // change the caller has not seen: it is reported without waiting
        // for another, at once, or once the UI is quiet if it is still
        // changing.
        let id = self.known[idx].app.id.clone();
        let seen = self
            .unreported
            .iter()
            .any(|c| c.app.id == id && c.diff.has_changes());
        if seen {
            let quiet = Quiet::default();
            let settle = match self.known[idx].changed_since() {
                true => Settle::Auto(Quiet {
                    floor: Duration::ZERO,
                    cap: quiet.cap.min(timeout),
                    ..quiet
                }),
                false => Settle::None,
            };
            let opts = ActOptions {
                settle,
                transients: true,
            };
            let done = Performed {
                method: WAITED.into(),
            };
            return self.finish(idx, done, handle, &opts, &[], 0).await;
        }
        loop {
            let left = timeout.saturating_sub(start.elapsed());
            let opts = ActOptions {
                // Waiting for a change: an idle application is waited on.
                settle: Settle::Auto(Quiet {
                    cap: left,
                    grace: None,
                    ..Quiet::default()
                }),
                transients: true,
            };
            let acted = self
                .finish(
                    idx,
                    Performed {
                        method: WAITED.into(),
                    },
                    handle.clone(),
                    &opts,
                    &[],
                    0,
                )
                .await?;
            if acted.diff.has_changes() || acted.exited || start.elapsed() >= timeout {
                return Ok(acted);
            }
        }
    }

    /// Blocks until an element matching `selector` meets `condition`, or
    /// `timeout` passes. Returns the matching element (none for
    /// [`Condition::Disappears`]) and what changed on the way. On a
    /// timeout, the changes seen are kept for the next result.
    pub async fn wait_for_element(
        &mut self,
        app: &str,
        selector: &str,
        condition: Condition,
        timeout: Duration,
    ) -> Result<WaitOutcome> {
        let parsed: Selector = selector.trim().parse()?;
        let idx = self.look(app).await?;
        let start = Instant::now();
        loop {
            let hits: Vec<NodeId> = self
                .find(&parsed)
                .into_iter()
                .filter(|(i, _)| *i == idx)
                .map(|(_, n)| n)
                .collect();
            let known = &self.known[idx];
            let met = match condition {
                Condition::Appears => hits.first().copied(),
                Condition::Disappears => {
                    if hits.is_empty() {
                        return Ok(self.waited(None));
                    }
                    None
                }
                Condition::Has(s) => hits
                    .iter()
                    .copied()
                    .find(|&n| known.view.tree().node(n).states.contains(s)),
                Condition::Lacks(s) => hits
                    .iter()
                    .copied()
                    .find(|&n| !known.view.tree().node(n).states.contains(s)),
            };
            if let Some(n) = met {
                let found = known.handle(n);
                return Ok(self.waited(Some(found)));
            }
            if start.elapsed() >= timeout {
                return Err(Error::TimedOut(format!(
                    "waited {} ms for `{}` to {}; {} match now",
                    timeout.as_millis(),
                    uidelta_backend::echo(selector),
                    condition_text(condition),
                    hits.len()
                )));
            }
            // Wake on the next meaningful event, or poll.
            let until = Instant::now()
                + POLL
                    .max(Duration::from_millis(200))
                    .min(timeout.saturating_sub(start.elapsed()));
            while let Some(e) = self.known[idx].next_before(until).await {
                if !is_noise(&e.kind) {
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    break;
                }
            }
            match self.refresh(idx).await {
                Ok(d) => self.keep_unreported(idx, d),
                Err(Error::Backend(e)) if e.kind == ErrorKind::Gone => {
                    let id = self.known[idx].app.id.clone();
                    self.forget(&id);
                    let mut waited = self.waited(None);
                    waited.exited = true;
                    return Ok(waited);
                }
                Err(e) => return Err(e),
            }
        }
    }

    pub(super) fn waited(&mut self, found: Option<Handle>) -> WaitOutcome {
        WaitOutcome {
            found,
            changes: std::mem::take(&mut self.unreported),
            exited: false,
        }
    }
}

fn condition_text(c: Condition) -> String {
    match c {
        Condition::Appears => "appear".into(),
        Condition::Disappears => "disappear".into(),
        Condition::Has(s) => format!("be {s}"),
        Condition::Lacks(s) => format!("not be {s}"),
    }
}
