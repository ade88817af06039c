//! Acting: an action on an element or an application, then settling, the
//! after snapshot and the diff, as an [`ActionOutcome`].

use std::time::{Duration, Instant};

use uidelta_backend::{Action, App, Backend, ErrorKind, Navigate, Performed, Scope};
use uidelta_diff::{Diff, Handle};
use uidelta_model::{NodeData, NodeId, Role, Snapshot, State};

use super::focus::{held_focus, lost_focus};
use super::refs::handle_text;
use super::transients::{brings_ephemeral, transients};
use super::wait::WAITED;
use super::{AppDiff, Session};
use crate::error::{Error, Result};
use crate::settle::{settled, Quiet, Settle, Settled};
use crate::AppId;

/// The least settle cap of a navigation: a new document's requests may
/// run for seconds.
const NAVIGATION_CAP: Duration = Duration::from_secs(10);

/// How long to keep watching a toast or spinner that appeared, for it to go.
const LINGER: Duration = Duration::from_millis(1000);

/// Options of [`Session::act`].
#[derive(Clone, Debug, PartialEq)]
pub struct ActOptions {
    /// How to wait for the UI after the action.
    pub settle: Settle,
    /// Whether to take snapshots while settling to catch transient elements.
    pub transients: bool,
}

impl Default for ActOptions {
    fn default() -> Self {
        ActOptions {
            settle: Settle::default(),
            transients: true,
        }
    }
}

/// What an action did.
#[derive(Clone, Debug)]
pub struct ActionOutcome {
    /// How the backend carried it out.
    pub done: Performed,
    /// The element acted on, as it was before.
    pub target: Handle,
    /// The application.
    pub app: App,
    /// What changed, with `settle_ms` and transients filled in.
    pub diff: Diff,
    /// How settling went.
    pub settled: Settled,
    /// When the focus went to another application: its name and the diff of
    /// its tree (everything added, as first seen, or against the last
    /// snapshot of it).
    pub app_switch: Option<AppDiff>,
    /// Changes found before the action, since the last result (an animation
    /// that finished late, another program's doing): reported here rather
    /// than lost, each with its application.
    pub earlier: Vec<AppDiff>,
    /// Why an action that changed nothing may have been ignored: the
    /// target was disabled or hidden when it was acted on; or, for a click,
    /// the other actions the target offers (a tree row's `expand or
    /// contract`).
    pub note: Option<String>,
    /// The application exited after the action (answering a dialog, or
    /// closing the last window, ends many): the outcome the agent meant,
    /// not an error. `diff` is then empty, and the session has forgotten
    /// the application (its refs are gone).
    pub exited: bool,
}

impl ActionOutcome {
    /// What [`ActionOutcome::earlier`] holds, in words: `changed before this
    /// action` (or `wait`).
    pub fn earlier_heading(&self) -> &'static str {
        match self.done.method.as_str() {
            WAITED => "changed before this wait",
            _ => "changed before this action",
        }
    }

    /// The facts of the result as the shells tell them; `tree_after` is the
    /// tree text of the application after the action (empty when unknown).
    pub fn report<'a>(&'a self, tree_after: &'a str) -> uidelta_render::Report<'a> {
        uidelta_render::Report {
            target: &self.target,
            app: &self.app,
            method: &self.done.method,
            diff: &self.diff,
            earlier_heading: self.earlier_heading(),
            earlier: &self.earlier,
            app_switch: self.app_switch.as_ref(),
            note: self.note.as_deref(),
            exited: self.exited,
            settle: self.settled.elapsed,
            settle_capped: self.settled.capped,
            tree_after,
        }
    }

    /// The result as an agent reads it (see
    /// [`uidelta_render::Report::changes_text`]).
    pub fn text(&self, opts: &uidelta_render::DiffOptions) -> String {
        self.report("").changes_text(opts)
    }
}

/// Where a drag ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DragEnd {
    /// At the centre of the element a ref or selector names.
    Element(String),
    /// At a point: screen coordinates on the desktop, viewport CSS pixels
    /// in a page (those of bounds and screenshots).
    Point(i32, i32),
}

impl<B: Backend> Session<B> {
    /// Drags `source` (a ref or selector) to `to` with the primary button
    /// and returns what changed, as [`Session::act`] does with
    /// [`Action::DragTo`]. An element to drag to must have a place on
    /// screen, where the platform places it then (see
    /// [`Backend::centre_now`]).
    pub async fn drag(
        &mut self,
        source: &str,
        to: &DragEnd,
        opts: &ActOptions,
    ) -> Result<ActionOutcome> {
        let (x, y) = self.drop_point(to).await?;
        self.act(source, &Action::DragTo { x, y }, opts).await
    }

    /// Drags with the primary button from a point of the screen (as
    /// [`Session::click_at`] takes it: whatever is there, a canvas, a
    /// window's edge) to `to`, and answers with what changed in `app`.
    pub async fn drag_at(
        &mut self,
        app: &str,
        from: (i32, i32),
        to: &DragEnd,
        opts: &ActOptions,
    ) -> Result<ActionOutcome> {
        let (x, y) = self.drop_point(to).await?;
        self.click_at(app, from, &Action::DragTo { x, y }, opts)
            .await
    }

    /// Where a drag to `to` ends: the point, or the centre of what shows of
    /// the element, which must have a place on screen, as the platform
    /// places it now (see [`Backend::centre_now`]: a page may have moved
    /// it since it was read).
    async fn drop_point(&mut self, to: &DragEnd) -> Result<(i32, i32)> {
        Ok(match to {
            DragEnd::Point(x, y) => (*x, *y),
            DragEnd::Element(target) => {
                let (idx, node) = self.resolve(target).await?;
                let data = self.known[idx].node(node);
                let app = &self.known[idx].app;
                match self.backend.centre_now(app, data).await? {
                    Some(centre) => centre,
                    None => {
                        let handle = self.known[idx].handle(node);
                        return Err(Error::Backend(uidelta_backend::Error::new(
                            ErrorKind::Unsupported,
                            format!(
                                "dragging to {}: it has no place on screen to drop on; drag to \
                                 a point instead",
                                crate::session::handle_text(&handle)
                            ),
                        )));
                    }
                }
            }
        })
    }

    /// Performs `action` on `target` and returns what changed: the before
    /// snapshot (reused when nothing changed since), the action, settling,
    /// the after snapshot of the whole application (dialogs it opened
    /// included), and the diff.
    pub async fn act(
        &mut self,
        target: &str,
        action: &Action,
        opts: &ActOptions,
    ) -> Result<ActionOutcome> {
        if let Some(why) = action.refusal() {
            return Err(Error::TooLong(why));
        }
        let (idx, node) = self.resolve(target).await?;
        let handle = self.known[idx].handle(node);
        let data = self.known[idx].node(node).clone();
        let app = self.known[idx].app.clone();
        self.known[idx].drain();
        // Clicking or typing into an element gives it the focus, as it
        // would under a person's hand: that is no news to the agent that
        // acted, so the focus moving there neither starts the wait for the
        // UI's response nor is reported. Focusing it on request is news, and
        // so is clicking a text field: the focus is what that click is for,
        // and it says where the keys go next.
        let focusing =
            *action == Action::Focus || (*action == Action::Click && data.is_text_field());
        let implied = (!focusing).then_some(handle.r#ref);
        let own_focus: Vec<String> = match implied {
            Some(_) => {
                let view = &self.known[idx].view;
                let before = view
                    .focus()
                    .and_then(|f| view.tree().node(f).identity.clone());
                data.identity.iter().cloned().chain(before).collect()
            }
            None => Vec::new(),
        };
        self.take_census().await;
        let done = self.backend.act(&app, &data, action).await?;
        let typed = typed_chars(action, &data);
        let mut acted = self
            .finish(idx, done, handle, opts, &own_focus, typed)
            .await?;
        if acted.exited {
            return Ok(acted);
        }
        // The focus coming to the element acted on is no news: left out
        // first, so that an action that did nothing else says why.
        if let Some(target) = implied {
            let to_target = acted
                .diff
                .focus
                .as_ref()
                .is_some_and(|f| f.to.as_ref().is_some_and(|to| to.r#ref == target));
            if to_target {
                acted.diff.focus = None;
            }
        }
        if !acted.diff.has_changes() {
            let mut why = ignored_because(&acted.target, &data);
            if why.is_none() && *action == Action::Click {
                // A click on a tree row may select it without expanding it,
                // for one: the element's other actions are what to try.
                let offered = self.backend.actions(&app, &data).await.unwrap_or_default();
                why = other_actions(&acted.target, &acted.done.method, &offered);
            }
            // After what settling saw (the application still busy), when
            // both are said; the focus, left out above, may have been all
            // that settling found.
            let busy = acted
                .note
                .take()
                .or_else(|| still_busy(&opts.settle, &acted.settled));
            acted.note = match (busy, why) {
                (Some(busy), Some(why)) => Some(format!("{busy}; {why}")),
                (busy, why) => why.or(busy),
            };
        }
        Ok(acted)
    }

    /// Presses a key or chord in `app`, on its focused element (the keys go
    /// to `app` even when another application has the keyboard), then
    /// settles and diffs `app` as [`Session::act`] does.
    pub async fn key(
        &mut self,
        app: &str,
        chord: &str,
        opts: &ActOptions,
    ) -> Result<ActionOutcome> {
        if let Some(why) = uidelta_backend::chord_refusal(chord) {
            return Err(Error::TooLong(why));
        }
        // Keys to an application stuck in a handler can hang it for good
        // (see `Backend::unresponsive_hint`): none are sent.
        if let Some(idx) = self.stuck_app(app) {
            if !self.backend.answers(&self.known[idx].app).await? {
                let since = self.known[idx].stuck.clone().unwrap_or_default();
                return Err(self.unresponsive(&self.known[idx].app, since));
            }
        }
        let (idx, handle, app) = self.before_app_action(app).await?;
        let done = self.backend.key(&app, chord).await?;
        self.finish(idx, done, handle, opts, &[], 0).await
    }

    /// Clicks at a point (screen coordinates, as in a screenshot) for what
    /// the tree does not show, then settles and diffs `app` as
    /// [`Session::act`] does. `action` is a click, right click or double
    /// click, the pointer moved there ([`Action::Hover`]), or a drag from
    /// there ([`Action::DragTo`]; see [`Session::drag_at`]).
    ///
    /// It also works when `app` does not answer (a modal dialog run inside
    /// an accessible action, [`Error::Unresponsive`]): a pointer click goes
    /// through the display, not through the application's blocked
    /// connection, and is how that dialog gets answered. The diff is then
    /// against the snapshot from before it stopped answering, or, if this
    /// session never had one, the whole tree as first seen.
    pub async fn click_at(
        &mut self,
        app: &str,
        (x, y): (i32, i32),
        action: &Action,
        opts: &ActOptions,
    ) -> Result<ActionOutcome> {
        if let Some(idx) = self.stuck_app(app) {
            // No need to ask it first: the click goes through the display.
            let app = self.known[idx].app.clone();
            let handle = self.known[idx].handle(NodeId::ROOT);
            self.known[idx].drain();
            self.take_census().await;
            let done = self.backend.click_at(&app, x, y, action).await?;
            return self.finish(idx, done, handle, opts, &[], 0).await;
        }
        match self.before_app_action(app).await {
            Ok((idx, handle, app)) => {
                let done = self.backend.click_at(&app, x, y, action).await?;
                self.finish(idx, done, handle, opts, &[], 0).await
            }
            Err(e) => {
                let Some(silent) = self.silent(app, &e).await else {
                    return Err(e);
                };
                let done = self.backend.click_at(&silent, x, y, action).await?;
                match self.known_id(&silent.id) {
                    Some(idx) => {
                        let handle = self.known[idx].handle(NodeId::ROOT);
                        self.finish(idx, done, handle, opts, &[], 0).await
                    }
                    None => self.first_answer(silent, done, opts).await,
                }
            }
        }
    }

    /// The known application `app` (its name or backend id) when it stopped
    /// answering.
    fn stuck_app(&self, app: &str) -> Option<AppId> {
        let wanted = app.to_lowercase();
        self.known
            .iter()
            .position(|s| {
                s.stuck.is_some() && (s.app.name.to_lowercase() == wanted || s.app.id == app)
            })
            .map(AppId)
    }

    /// The application `app` when `err`, met while reading it, says that it
    /// does not answer now: a read timed out, or it is listed under its bus
    /// name only, because it could not tell its name. A session that saw it
    /// finds it by name; otherwise only its bus name (`:1.42`) finds it.
    pub(super) async fn silent(&self, app: &str, err: &Error) -> Option<App> {
        let Error::Backend(e) = err else {
            return None;
        };
        if !matches!(e.kind, ErrorKind::Timeout | ErrorKind::NotFound) {
            return None;
        }
        let wanted = app.to_lowercase();
        let id = self
            .known
            .iter()
            .find(|s| s.app.name.to_lowercase() == wanted || s.app.id == app)
            .map_or(app, |s| s.app.id.as_str());
        let apps = self.backend.apps().await.ok()?;
        apps.into_iter().find(|a| a.id == id && a.error.is_some())
    }

    /// After an action on an application this session has not seen and
    /// that did not answer: its tree as first seen, once it answers again
    /// (within the settle cap; each read waits for the backend's own
    /// timeout).
    async fn first_answer(
        &mut self,
        app: App,
        done: Performed,
        opts: &ActOptions,
    ) -> Result<ActionOutcome> {
        let acted = Instant::now();
        let (wait, cap) = match opts.settle {
            Settle::Auto(q) => (q.window, q.cap),
            Settle::Fixed(d) => (d, d),
            Settle::None => (Duration::ZERO, Duration::ZERO),
        };
        tokio::time::sleep(wait).await;
        loop {
            match self.observe_app(app.clone()).await {
                Ok((idx, mut diff)) => {
                    // Listed under its bus name while it did not answer.
                    if let Ok(apps) = self.backend.apps().await {
                        if let Some(named) = apps.into_iter().find(|a| a.id == app.id) {
                            self.known[idx].app = named;
                        }
                    }
                    let settled = settled(acted, false, 0);
                    diff.settle_ms = Some(settled.elapsed.as_millis() as u64);
                    return Ok(ActionOutcome {
                        done,
                        target: self.known[idx].handle(NodeId::ROOT),
                        app: self.known[idx].app.clone(),
                        diff,
                        settled,
                        app_switch: None,
                        earlier: std::mem::take(&mut self.unreported),
                        note: None,
                        exited: false,
                    });
                }
                Err(Error::Backend(e)) if e.kind == ErrorKind::Timeout && acted.elapsed() < cap => {
                }
                Err(Error::Backend(e)) if e.kind == ErrorKind::Timeout => {
                    let since = format!("before the {}, and still after it", done.method);
                    return Err(self.unresponsive(&app, since));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// A capture right after an action that timed out: the application is
    /// stuck in a handler ([`Error::Unresponsive`]). Other errors pass.
    pub(super) fn stuck(&mut self, e: uidelta_backend::Error, idx: AppId, since: String) -> Error {
        if e.kind != ErrorKind::Timeout {
            return Error::Backend(e);
        }
        self.known[idx].stuck = Some(since.clone());
        self.unresponsive(&self.known[idx].app, since)
    }

    pub(super) fn unresponsive(&self, app: &App, since: String) -> Error {
        Error::Unresponsive {
            app: app.label(),
            since,
            hint: self.backend.unresponsive_hint().unwrap_or("").to_owned(),
        }
    }

    /// The after snapshot of known application `idx`; a timeout is [`Session::stuck`].
    async fn capture_after(&mut self, idx: AppId, since: impl Fn() -> String) -> Result<Snapshot> {
        if let Some((at, looked)) = self.looked.take() {
            if at == idx {
                return Ok(looked);
            }
        }
        let app = self.known[idx].app.clone();
        match self.backend.capture(&app, &Scope::App).await {
            Ok(after) => Ok(after),
            Err(e) => Err(self.stuck(e, idx, since())),
        }
    }

    /// Before an action on a whole application: its latest snapshot (read
    /// when needed), its root's handle, and no stale events.
    async fn before_app_action(&mut self, app: &str) -> Result<(AppId, Handle, App)> {
        let idx = self.look(app).await?;
        self.take_census().await;
        let handle = self.known[idx].handle(NodeId::ROOT);
        self.known[idx].drain();
        Ok((idx, handle, self.known[idx].app.clone()))
    }

    /// Browsers: loads a URL in the tab `app` (or goes back, forward,
    /// reloads), waits for the new document to settle, and diffs. A new
    /// document is reported as one (`Diff::new_document`), not as thousands
    /// of changes.
    pub async fn navigate(
        &mut self,
        app: &str,
        to: &Navigate,
        opts: &ActOptions,
    ) -> Result<ActionOutcome> {
        let (idx, handle, app) = self.before_app_action(app).await?;
        let done = self.backend.navigate(&app, to).await?;
        // A document takes longer to load than a widget to respond: the cap
        // is raised to the navigation's (the quiet window still ends it).
        let opts = match opts.settle {
            Settle::Auto(quiet) => ActOptions {
                settle: Settle::Auto(Quiet {
                    cap: quiet.cap.max(NAVIGATION_CAP),
                    ..quiet
                }),
                ..opts.clone()
            },
            _ => opts.clone(),
        };
        self.finish(idx, done, handle, &opts, &[], 0).await
    }

    /// Browsers: runs `script` in the tab `app`, then settles and diffs as
    /// [`Session::act`] does. Returns the script's result as JSON text.
    pub async fn run_script(
        &mut self,
        app: &str,
        script: &str,
        opts: &ActOptions,
    ) -> Result<(String, ActionOutcome)> {
        let (idx, handle, app) = self.before_app_action(app).await?;
        let result = self.backend.run_script(&app, script).await?;
        let done = Performed {
            method: "script".into(),
        };
        // A page counts the timers input starts, not a script's: a script
        // that changes nothing at once is waited on as before.
        let opts = match opts.settle {
            Settle::Auto(quiet) => ActOptions {
                settle: Settle::Auto(Quiet {
                    grace: None,
                    ..quiet
                }),
                ..opts.clone()
            },
            _ => opts.clone(),
        };
        let acted = self.finish(idx, done, handle, &opts, &[], 0).await?;
        Ok((result, acted))
    }

    /// Settles after an action (`typed`: the characters it typed, see
    /// [`typed_chars`]), reads the application and diffs.
    pub(super) async fn finish(
        &mut self,
        idx: AppId,
        done: Performed,
        target: Handle,
        opts: &ActOptions,
        own_focus: &[String],
        typed: usize,
    ) -> Result<ActionOutcome> {
        let acted = Instant::now();
        let app = self.known[idx].app.clone();
        let since = || format!("{} on {}", done.method, handle_text(&target));
        let settling = self.settle(idx, opts, acted, own_focus, true, typed);
        let settling = settling.await;
        self.known[idx].acting = None;
        let (mut settled, mut mids) = match settling {
            Ok(settled) => settled,
            Err(Error::Backend(e)) => return Err(self.stuck(e, idx, since())),
            Err(e) => return Err(e),
        };
        let mut after = match self.capture_after(idx, since).await {
            Err(Error::Backend(e)) if e.kind == ErrorKind::Gone => {
                return Ok(self.exited(idx, done, target, settled));
            }
            after => after?,
        };
        if let Settle::Auto(quiet) = opts.settle {
            // A toast or spinner that just appeared usually goes again soon:
            // give it a moment, so that it is reported as transient rather
            // than as a lasting change.
            if !settled.capped && brings_ephemeral(&self.known[idx].snapshot, &after) {
                let linger = ActOptions {
                    settle: Settle::Auto(Quiet {
                        floor: Duration::ZERO,
                        cap: LINGER.min(quiet.cap),
                        // Waits for it to go, even by a CSS animation's end
                        // that a page does not count as pending.
                        grace: None,
                        ..quiet
                    }),
                    transients: opts.transients,
                };
                let (more, more_mids) = self
                    .settle(idx, &linger, Instant::now(), own_focus, false, 0)
                    .await?;
                if more.events > 0 {
                    mids.push(after);
                    mids.extend(more_mids);
                    after = match self.capture_after(idx, since).await {
                        Err(Error::Backend(e)) if e.kind == ErrorKind::Gone => {
                            let settled = Settled {
                                elapsed: acted.elapsed(),
                                ..settled
                            };
                            return Ok(self.exited(idx, done, target, settled));
                        }
                        after => after?,
                    };
                }
                settled = Settled {
                    elapsed: acted.elapsed(),
                    capped: false,
                    events: settled.events + more.events,
                    busy: false,
                };
            }
        }
        let before_view_had = held_focus(&self.known[idx].view);
        // The before view is needed again only when snapshots were taken
        // while settling; copy it only then.
        let before_view = (!mids.is_empty()).then(|| self.known[idx].view.clone());
        let mut d = self.install(idx, after)?;
        d.settle_ms = Some(settled.elapsed.as_millis() as u64);
        d.settle_capped = settled.capped;
        if let Some(before_view) = before_view.filter(|_| !d.new_document) {
            // (A new document's loading states are not transient elements.)
            d.transient = transients(
                &before_view,
                &self.known[idx].view,
                &mids,
                self.filters,
                &mut self.table,
            );
        }
        let app_switch = if lost_focus(before_view_had, held_focus(&self.known[idx].view)) {
            self.app_switch(&app).await
        } else {
            self.opened_elsewhere(&app).await
        };
        let note = if d.has_changes() {
            None
        } else {
            still_busy(&opts.settle, &settled)
        };
        Ok(ActionOutcome {
            done,
            target,
            app,
            diff: d,
            settled,
            app_switch,
            earlier: std::mem::take(&mut self.unreported),
            note,
            exited: false,
        })
    }

    /// The outcome of an action after which the known application
    /// `idx` exited: it is forgotten, and what changed before is kept.
    pub(super) fn exited(
        &mut self,
        idx: AppId,
        done: Performed,
        target: Handle,
        settled: Settled,
    ) -> ActionOutcome {
        let app = self.known[idx].app.clone();
        self.forget(&app.id);
        ActionOutcome {
            done,
            target,
            app,
            diff: Diff::default(),
            settled,
            app_switch: None,
            earlier: std::mem::take(&mut self.unreported),
            note: None,
            exited: true,
        }
    }
}

/// How many characters `action` on `data` types, for the settle to wait
/// for while they land (see [`crate::settle::Watch::typing`]): a text typed,
/// or the value given to a field (typed as keys where it has no editable
/// text; not a spin button's number, which it writes as it formats
/// numbers). A line break or tab is a key (Return, Tab), not counted: a
/// field that takes it as one (a line entry) inserts nothing for it.
pub(super) fn typed_chars(action: &Action, data: &NodeData) -> usize {
    let text = match action {
        Action::Type(text) => text,
        Action::SetValue(text)
            if data.role != Role::SpinButton
                && (data.role.is_text_input() || data.states.contains(State::Editable)) =>
        {
            text
        }
        _ => return 0,
    };
    text.chars().filter(|c| !matches!(c, '\n' | '\t')).count()
}

/// The note of an action after which the application was still busy (its
/// events going on, or its process at work) at the cap of an automatic
/// `settle`, when nothing changed: what the action started may still come
/// (Thunderbird's first message window takes more than two seconds to
/// build).
pub(super) fn still_busy(settle: &Settle, settled: &Settled) -> Option<String> {
    match settle {
        Settle::Auto(quiet) if settled.busy => Some(format!(
            "the application was still busy at the settle cap ({} ms), and nothing had changed \
             yet: what the action started may still come (wait_for_change)",
            quiet.cap.as_millis()
        )),
        _ => None,
    }
}

/// Why an application may have ignored an action on `data` (`handle`):
/// it was disabled, or not showing. `None` when its states say neither (or
/// it reports no states at all).
pub(super) fn ignored_because(handle: &Handle, data: &NodeData) -> Option<String> {
    let states = data.states;
    if states.is_empty() {
        return None;
    }
    let why = if !states.contains(State::Enabled) {
        "is disabled, and applications ignore actions on disabled elements"
    } else if !states.contains(State::Showing) {
        "is not showing (on a page, tab or menu that is not open, or in a collapsed section), and applications may ignore actions on it"
    } else {
        return None;
    };
    Some(format!("{} {why}", handle_text(handle)))
}

/// The named actions `handle` offers besides the one `method` used
/// (`Action.activate`; for a pointer click, `click` and `press`), as a note
/// for a click that changed nothing; `None` when there are none.
pub(super) fn other_actions(handle: &Handle, method: &str, offered: &[String]) -> Option<String> {
    let used: &[&str] = match method.strip_prefix("Action.") {
        Some(name) => &[name],
        None => &["click", "press"],
    };
    let others: Vec<&str> = offered
        .iter()
        .map(String::as_str)
        .filter(|a| !a.is_empty() && !used.iter().any(|u| a.eq_ignore_ascii_case(u)))
        .collect();
    (!others.is_empty()).then(|| {
        format!(
            "the click changed nothing; {} also offers the actions {} (invoke one by name)",
            handle_text(handle),
            others
                .iter()
                .map(|a| format!("`{a}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}
