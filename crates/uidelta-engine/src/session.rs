//! A session: the latest snapshot of every application it has seen, one ref
//! table, and the act-settle-diff loop.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use uidelta_backend::{Action, App, Backend, Done, ErrorKind, Event, EventStream, Navigate, Scope};
use uidelta_diff::{diff, Change, Diff, Element, Filters, Handle, Ref, RefTable, Refs, View};
use uidelta_model::{normalize_space, NodeData, NodeId, Role, Snapshot, State};

use crate::error::{Error, Result};
use crate::selector::{self, Selector};
use crate::settle::{is_motion, is_noise, Movers, Next, Quiet, Settle, Settled, Watch};

mod saved;
mod windows;
pub use saved::{Saved, SavedScope};
pub use windows::WindowAction;

/// The least settle cap of a navigation: a new document's requests may
/// run for seconds.
const NAVIGATION_CAP: Duration = Duration::from_secs(10);
/// Most snapshots taken while settling, to catch transient elements.
const MAX_MIDS: usize = 4;
/// Least time between two of those snapshots.
const MID_SPACING: Duration = Duration::from_millis(100);
/// How long to keep watching a toast or spinner that appeared, for it to go.
const LINGER: Duration = Duration::from_millis(1000);
/// The method of a result that is not an action's ([`Session::wait_for_change`]).
const WAITED: &str = "waited";
/// How often a backend without events is polled while settling.
const POLL: Duration = Duration::from_millis(100);

/// The latest snapshot of one application, with its view and refs.
pub struct Latest {
    /// The application.
    pub app: App,
    /// The snapshot as captured.
    pub snapshot: Snapshot,
    /// The filtered view, which refs index.
    pub view: View,
    /// Refs of the view's nodes.
    pub refs: Refs,
    events: EventStream,
    /// What has been moving, from the events read (see [`Movers`]).
    movers: Movers,
    /// Set when it stopped answering (to what was done last, for
    /// [`Error::Unresponsive`]): read it again before acting on it, even
    /// without events, once it answers.
    stuck: Option<String>,
    /// Set when it comes from an earlier process ([`Session::resume`]):
    /// nothing says what happened since, so it is read again before use.
    stale: bool,
}

impl Latest {
    /// The original node behind view node `id`: what actions go to.
    pub fn node(&self, id: NodeId) -> &NodeData {
        self.snapshot.tree().node(self.view.origin(id))
    }

    /// `[e12] push button "Save"`.
    pub fn handle(&self, id: NodeId) -> Handle {
        let n = self.view.tree().node(id);
        Handle {
            r#ref: self.refs.get(id),
            role: n.role,
            name: n.name.clone(),
        }
    }

    /// The top-level window (a child of the application root) titled
    /// `title` (exactly, in any case, or a unique prefix) or with that ref
    /// (`e184`, for windows that share a title). The error names the
    /// windows there are, with their refs.
    pub fn window_named(&self, title: &str) -> std::result::Result<NodeId, String> {
        let tree = self.view.tree();
        let windows = tree.children(NodeId::ROOT);
        let listed = || {
            let all: Vec<String> = windows
                .iter()
                .map(|&n| handle_text(&self.handle(n)))
                .collect();
            match all.is_empty() {
                true => "none".to_owned(),
                false => all.join(", "),
            }
        };
        if let Ok(r) = title.trim().parse::<Ref>() {
            return match self.refs.find(r) {
                Some(n) if windows.contains(&n) => Ok(n),
                _ => Err(format!(
                    "{r} is not a window of {}; its windows: {}",
                    self.app.label(),
                    listed()
                )),
            };
        }
        let wanted = title.trim().to_lowercase();
        let name = |n: NodeId| tree.node(n).name.to_lowercase();
        let exact: Vec<NodeId> = windows
            .iter()
            .copied()
            .filter(|&n| name(n) == wanted)
            .collect();
        let found = if exact.is_empty() {
            windows
                .iter()
                .copied()
                .filter(|&n| name(n).starts_with(&wanted))
                .collect()
        } else {
            exact
        };
        let title = uidelta_backend::echo(title);
        match found.as_slice() {
            [one] => Ok(*one),
            [] => Err(format!(
                "{} has no window titled `{title}`; its windows: {}",
                self.app.label(),
                listed()
            )),
            _ => Err(format!(
                "{} has more than one window titled `{title}` (name one by its ref); its \
                 windows: {}",
                self.app.label(),
                listed()
            )),
        }
    }

    /// The active window, else the first one shown, else the first.
    pub fn main_window(&self) -> Option<NodeId> {
        let tree = self.view.tree();
        let windows = tree.children(NodeId::ROOT);
        let has = |n: NodeId, s: State| tree.node(n).states.contains(s);
        windows
            .iter()
            .copied()
            .find(|&n| has(n, State::Active))
            .or_else(|| windows.iter().copied().find(|&n| has(n, State::Showing)))
            .or_else(|| windows.first().copied())
    }

    /// The subtree of `node` as a view of its own, with the refs it has in
    /// the whole tree.
    pub fn subtree(&self, node: NodeId) -> (View, Refs) {
        let tree = self.view.tree();
        let len = tree.subtree_len(node);
        let start = node.index();
        let refs = self
            .refs
            .as_slice()
            .get(start..start + len)
            .map(|r| Refs::from_vec(r.to_vec()))
            .unwrap_or_default();
        let sub = View::from_filtered(
            self.view.meta().clone(),
            tree.extract(node),
            (0..len as u32).map(NodeId).collect(),
            self.view.filters(),
        );
        (sub, refs)
    }

    /// The tree text of the subtree of `node`, with the refs it has in the
    /// whole tree.
    pub fn subtree_text(&self, node: NodeId, opts: &uidelta_render::TreeOptions) -> String {
        let (sub, refs) = self.subtree(node);
        uidelta_render::tree_text(&sub, &refs, opts)
    }

    /// Whether the application sent meaningful events since the capture,
    /// or may have: events were missed, or nobody listened.
    fn changed_since(&mut self) -> bool {
        let mut changed = self.stuck.is_some() || self.stale;
        while let Some(e) = self.next_queued() {
            changed |= !is_noise(&e.kind);
        }
        changed |= self.events.take_missed();
        changed || self.events.is_silent() || self.events.lapsed()
    }

    /// Whether its events went unread so long that its subscription was
    /// dropped ([`Session::with_event_idle`]); the next call that uses it
    /// subscribes again and reads it in full.
    pub fn lapsed(&self) -> bool {
        self.events.lapsed()
    }

    /// The next event already queued, noted (see [`Latest::note`]).
    fn next_queued(&mut self) -> Option<Event> {
        let e = self.events.try_next()?;
        self.note(&e);
        Some(e)
    }

    /// Drops the events queued, noting them (see [`Latest::note`]).
    fn drain(&mut self) {
        while self.next_queued().is_some() {}
    }

    /// The next event before `until`, noted (see [`Latest::note`]).
    async fn next_before(&mut self, until: Instant) -> Option<Event> {
        let e = self.events.next_before(until).await?;
        self.note(&e);
        Some(e)
    }

    /// Keeps track of what moves (see [`Movers`]).
    fn note(&mut self, e: &Event) {
        if let (true, Some(source)) = (is_motion(&e.kind), &e.source) {
            self.movers.saw(source, e.at);
        }
    }

    /// Elements whose motion says nothing about an action at `at`: those
    /// moving on their own (see [`Movers::steady`]), and spinners and
    /// progress bars, which do (a pulsing one moves all the time) however
    /// briefly the session has watched them.
    fn animations(&self, at: Instant) -> std::collections::HashSet<String> {
        let mut out = self.movers.steady(at);
        out.extend(
            self.snapshot
                .tree()
                .nodes()
                .iter()
                .filter(|n| matches!(n.role, Role::Animation | Role::ProgressBar))
                .filter_map(|n| n.identity.clone()),
        );
        out
    }
}

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
pub struct Acted {
    /// How the backend carried it out.
    pub done: Done,
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
    pub app_switch: Option<(App, Diff)>,
    /// Changes found before the action, since the last result (an animation
    /// that finished late, another program's doing): reported here rather
    /// than lost, each with its application.
    pub earlier: Vec<(App, Diff)>,
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

impl Acted {
    /// What [`Acted::earlier`] holds, in words: `changed before this
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

/// What [`Session::wait_for_element`] found.
#[derive(Clone, Debug)]
pub struct Waited {
    /// The element that met the condition (none when waiting for nothing
    /// to match).
    pub found: Option<Handle>,
    /// What changed since the last result, while waiting included, each
    /// with its application: the diffs of the snapshots taken on the way.
    pub changes: Vec<(App, Diff)>,
    /// The application exited while waiting: whatever was awaited will
    /// not come, and what was to disappear did. The session has forgotten
    /// it.
    pub exited: bool,
}

/// A gone ref's last words.
#[derive(Clone, Debug)]
struct GoneRef {
    was: String,
    replaced_by: Option<String>,
}

/// One agent's view of the desktop: latest snapshots, refs, and the loop.
pub struct Session<B: Backend> {
    backend: Arc<B>,
    filters: Filters,
    /// How long an application's events may go unread before its
    /// subscription is dropped.
    event_idle: Duration,
    table: RefTable,
    scopes: Vec<Latest>,
    gone: HashMap<Ref, GoneRef>,
    /// Changes seen while re-reading before an action, not yet reported.
    unreported: Vec<(App, Diff)>,
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
    /// A session on `backend`, with every noise filter on.
    pub fn new(backend: Arc<B>) -> Session<B> {
        Session {
            backend,
            filters: Filters::all(),
            event_idle: EventStream::IDLE,
            table: RefTable::new(),
            scopes: Vec::new(),
            gone: HashMap::new(),
            unreported: Vec::new(),
        }
    }

    /// The same session with other filters (`--keep bounds`).
    pub fn with_filters(mut self, filters: Filters) -> Session<B> {
        self.filters = filters;
        self
    }

    /// The same session, dropping the event subscription of an application
    /// whose events went unread for `idle` (by default
    /// [`EventStream::IDLE`], five minutes): an abandoned session then
    /// costs nothing. The next call that uses the application subscribes
    /// again and reads it in full.
    pub fn with_event_idle(mut self, idle: Duration) -> Session<B> {
        self.event_idle = idle;
        self
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The applications there are.
    pub async fn apps(&self) -> Result<Vec<App>> {
        Ok(self.backend.apps().await?)
    }

    /// The latest snapshots, one per application seen.
    pub fn scopes(&self) -> &[Latest] {
        &self.scopes
    }

    /// Finds an application by name (exact, case-insensitive, or a unique
    /// prefix) or by its backend id (a browser tab's target id); the error
    /// lists what is there.
    pub async fn find_app(&self, name: &str) -> Result<App> {
        let apps = self.backend.apps().await?;
        let wanted = name.to_lowercase();
        let exact: Vec<&App> = apps
            .iter()
            .filter(|a| a.name.to_lowercase() == wanted || a.id == name)
            .collect();
        let found: Vec<&App> = if exact.is_empty() {
            apps.iter()
                .filter(|a| a.name.to_lowercase().starts_with(&wanted))
                .collect()
        } else {
            exact
        };
        match found.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(Error::Backend(uidelta_backend::Error::new(
                ErrorKind::NotFound,
                format!(
                    "no application named `{}`; there are: {}",
                    uidelta_backend::echo(name),
                    list(apps.iter().map(|a| match a.error {
                        // Named by its bus name, which finds it too.
                        Some(_) => format!("{} (not answering)", a.label()),
                        None => a.label(),
                    }))
                ),
            ))),
            many => Err(Error::Backend(uidelta_backend::Error::new(
                ErrorKind::NotFound,
                format!(
                    "`{}` matches several applications: {}",
                    uidelta_backend::echo(name),
                    list(many.iter().map(|a| a.label()))
                ),
            ))),
        }
    }

    /// A fresh snapshot of the application named `app`; refs carry over from
    /// the previous one. Returns its index in [`Session::scopes`] and the
    /// diff against the previous snapshot (everything added the first time).
    pub async fn observe(&mut self, app: &str) -> Result<(usize, Diff)> {
        let app = self.find_app(app).await?;
        self.observe_app(app).await
    }

    /// Like [`Session::observe`], for callers that do not show the diff
    /// now (they act next, or wait): what changed since the last result is
    /// kept and reported with the next one (`Acted::earlier`), not lost.
    pub async fn look(&mut self, app: &str) -> Result<usize> {
        let app = self.find_app(app).await?;
        self.look_at(app).await
    }

    /// [`Session::look`] for an application already found
    /// ([`Session::find_app`]).
    pub async fn look_at(&mut self, app: App) -> Result<usize> {
        let known = self.scopes.iter().any(|s| s.app.id == app.id);
        let (idx, d) = self.observe_app(app).await?;
        if known {
            self.keep_unreported(idx, d);
        }
        Ok(idx)
    }

    /// Keeps a diff nobody has seen for the next result, when it has
    /// changes.
    fn keep_unreported(&mut self, idx: usize, d: Diff) {
        if d.has_changes() {
            self.unreported.push((self.scopes[idx].app.clone(), d));
        }
    }

    async fn observe_app(&mut self, app: App) -> Result<(usize, Diff)> {
        match self.scopes.iter().position(|s| s.app.id == app.id) {
            Some(idx) => {
                self.scopes[idx].app = app;
                self.listen_again(idx).await;
                let d = self.refresh(idx).await?;
                Ok((idx, d))
            }
            None => {
                let events = self.subscribe(&app).await?;
                let snapshot = self.backend.capture(&app, &Scope::App).await?;
                let view = View::new(&snapshot, self.filters);
                self.room_for(&view, &app)?;
                let refs = self.table.label(view.len());
                let first = first_sight(&view, &refs);
                self.scopes.push(Latest {
                    app,
                    snapshot,
                    view,
                    refs,
                    events,
                    movers: Movers::default(),
                    stuck: None,
                    stale: false,
                });
                Ok((self.scopes.len() - 1, first))
            }
        }
    }

    /// The events of `app`, dropped after [`Session::with_event_idle`]
    /// unread.
    async fn subscribe(&self, app: &App) -> Result<EventStream> {
        let events = self.backend.events(app).await?;
        Ok(events.with_idle_limit(self.event_idle))
    }

    /// Subscribes again to the events of scope `idx` when its subscription
    /// lapsed (unread too long, or its source went away). What happened
    /// meanwhile is unknown, so it is read in full before use.
    async fn listen_again(&mut self, idx: usize) {
        if !self.scopes[idx].events.lapsed() {
            return;
        }
        let app = self.scopes[idx].app.clone();
        // On failure (the application went away, most likely) the read
        // that follows says what became of it; until a subscription works
        // again, every use reads it in full (see `changed_since`).
        if let Ok(events) = self.subscribe(&app).await {
            let latest = &mut self.scopes[idx];
            latest.events = events;
            latest.movers = Movers::default();
        }
        self.scopes[idx].stale = true;
    }

    /// Drops the latest snapshot of the application with backend id `app_id`
    /// (one that exited), so that refreshing it no longer fails every
    /// target; its refs are then reported as gone. Returns whether there was
    /// one.
    pub fn forget(&mut self, app_id: &str) -> bool {
        let Some(idx) = self.scopes.iter().position(|s| s.app.id == app_id) else {
            return false;
        };
        let latest = self.scopes.remove(idx);
        let label = latest.app.label();
        for id in latest.view.tree().ids() {
            let was = format!(
                "{} in {label}, which exited",
                handle_text(&latest.handle(id))
            );
            self.gone.insert(
                latest.refs.get(id),
                GoneRef {
                    was,
                    replaced_by: None,
                },
            );
        }
        true
    }

    /// Captures scope `idx` again, carrying refs; returns the diff.
    async fn refresh(&mut self, idx: usize) -> Result<Diff> {
        let app = self.scopes[idx].app.clone();
        let snapshot = self.backend.capture(&app, &Scope::App).await?;
        self.install(idx, snapshot)
    }

    /// Takes `snapshot` (of the application with backend id `app_id`,
    /// taken by another session, as `uidelta watch` does while other
    /// commands act) as this session's latest of it, carrying refs, and
    /// returns the diff; nothing when this session has no snapshot of it.
    pub fn catch_up(&mut self, app_id: &str, snapshot: Snapshot) -> Option<Diff> {
        let idx = self.scopes.iter().position(|s| s.app.id == app_id)?;
        self.install(idx, snapshot).ok()
    }

    /// Takes `snapshot` as the latest of scope `idx`, carrying refs; returns
    /// the diff. An error when the session has no refs left for it.
    fn install(&mut self, idx: usize, snapshot: Snapshot) -> Result<Diff> {
        let view = View::new(&snapshot, self.filters);
        self.room_for(&view, &self.scopes[idx].app)?;
        let latest = &self.scopes[idx];
        let (d, refs) = diff(&latest.view, &latest.refs, &view, &mut self.table);
        self.remember_gone(&d);
        let latest = &mut self.scopes[idx];
        latest.stuck = None;
        latest.stale = false;
        latest.snapshot = snapshot;
        latest.view = view;
        latest.refs = refs;
        Ok(d)
    }

    /// Whether the session can hand out refs for every node of `view` (of
    /// `app`): refs are never given twice, so a session that has handed
    /// out nearly all there are (one resumed from an edited file) stops.
    fn room_for(&self, view: &View, app: &App) -> Result<()> {
        let left = self.table.left();
        if left >= view.len() as u64 {
            return Ok(());
        }
        Err(Error::RefsExhausted {
            doing: format!("reading {}", app.label()),
            next: self.table.peek(),
            left,
            wanted: view.len(),
        })
    }

    fn remember_gone(&mut self, d: &Diff) {
        let added: Vec<&uidelta_diff::Added> = d
            .changes
            .iter()
            .filter_map(|c| match c {
                Change::Added(a) => Some(a),
                _ => None,
            })
            .collect();
        // Elements that came back have their refs again.
        for a in &added {
            for node in &a.subtree {
                self.gone.remove(&node.element.r#ref);
            }
        }
        for c in &d.changes {
            if let Change::Removed(r) = c {
                for node in &r.subtree {
                    self.gone.insert(
                        node.element.r#ref,
                        GoneRef {
                            was: describe(&node.element),
                            replaced_by: successor(&node.element, r.parent, &added).map(describe),
                        },
                    );
                }
            }
        }
    }

    /// Every element matching `selector` in the latest snapshots.
    pub fn find(&self, selector: &Selector) -> Vec<(usize, NodeId)> {
        selector
            .find(&self.selector_scopes())
            .into_iter()
            .map(|f| (f.scope, f.node))
            .collect()
    }

    fn selector_scopes(&self) -> Vec<selector::Scope<'_>> {
        self.scopes
            .iter()
            .map(|s| selector::Scope {
                app: &s.app.name,
                view: &s.view,
                refs: &s.refs,
            })
            .collect()
    }

    /// The one element `target` (a ref or a selector) names, in the latest
    /// snapshots (refreshed first when their application changed).
    pub async fn resolve(&mut self, target: &str) -> Result<(usize, NodeId)> {
        let mut silent = Vec::new();
        for idx in (0..self.scopes.len()).rev() {
            self.listen_again(idx).await;
            if !self.scopes[idx].changed_since() {
                continue;
            }
            // One that stopped answering is asked briefly first, rather than
            // waiting for a read to time out each time.
            let read = match self.scopes[idx].stuck.clone() {
                Some(since) => match self.backend.answers(&self.scopes[idx].app).await {
                    Ok(false) => {
                        silent.push((idx, self.unresponsive(&self.scopes[idx].app, since)));
                        continue;
                    }
                    Ok(true) => self.refresh(idx).await,
                    Err(e) => Err(Error::Backend(e)),
                },
                None => self.refresh(idx).await,
            };
            match read {
                Ok(d) => self.keep_unreported(idx, d),
                // An application that exited, or does not answer, must not
                // block acting on others.
                Err(Error::Backend(e)) if e.kind == ErrorKind::Gone => {
                    let id = self.scopes[idx].app.id.clone();
                    self.forget(&id);
                    silent
                        .iter_mut()
                        .for_each(|(i, _)| *i -= usize::from(*i > idx));
                }
                Err(Error::Backend(e)) if e.kind == ErrorKind::Timeout => {
                    self.scopes[idx].stuck = Some("a read of it timed out".into());
                    silent.push((idx, Error::Backend(e)));
                }
                Err(e) => return Err(e),
            }
        }
        let found = self.resolve_now(target)?;
        match silent.into_iter().find(|(idx, _)| *idx == found.0) {
            Some((_, e)) => Err(e),
            None => Ok(found),
        }
    }

    fn resolve_now(&self, target: &str) -> Result<(usize, NodeId)> {
        let selector: Selector = target.trim().parse()?;
        if let Some(r) = selector.as_ref() {
            return self
                .scopes
                .iter()
                .enumerate()
                .find_map(|(i, s)| s.refs.find(r).map(|n| (i, n)))
                .ok_or_else(|| match self.gone.get(&r) {
                    Some(g) => Error::Gone {
                        gone: r,
                        was: g.was.clone(),
                        replaced_by: g.replaced_by.clone(),
                    },
                    None => Error::UnknownRef(r),
                });
        }
        let hits = self.find(&selector);
        match hits.as_slice() {
            [one] => Ok(*one),
            [] => Err(Error::NoMatch {
                selector: uidelta_backend::echo(target).into_owned(),
                hint: if self.scopes.is_empty() {
                    "; no application has been captured yet".into()
                } else {
                    format!(" in {}", list(self.scopes.iter().map(|s| s.app.label())))
                },
                candidates: selector
                    .near_misses(&self.selector_scopes(), NEAR_MISSES)
                    .into_iter()
                    .map(|f| handle_text(&self.scopes[f.scope].handle(f.node)))
                    .collect(),
            }),
            many => Err(Error::Ambiguous {
                selector: uidelta_backend::echo(target).into_owned(),
                count: many.len(),
                candidates: many
                    .iter()
                    .take(10)
                    .map(|&(i, n)| {
                        let h = self.scopes[i].handle(n);
                        handle_text(&h)
                    })
                    .collect(),
            }),
        }
    }

    /// Performs `action` on `target` and returns what changed: the before
    /// snapshot (reused when nothing changed since), the action, settling,
    /// the after snapshot of the whole application (dialogs it opened
    /// included), and the diff.
    pub async fn act(&mut self, target: &str, action: &Action, opts: &ActOptions) -> Result<Acted> {
        if let Some(why) = action.refusal() {
            return Err(Error::TooLong(why));
        }
        let (idx, node) = self.resolve(target).await?;
        let handle = self.scopes[idx].handle(node);
        let data = self.scopes[idx].node(node).clone();
        let app = self.scopes[idx].app.clone();
        self.scopes[idx].drain();
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
                let view = &self.scopes[idx].view;
                let before = view
                    .focus()
                    .and_then(|f| view.tree().node(f).identity.clone());
                data.identity.iter().cloned().chain(before).collect()
            }
            None => Vec::new(),
        };
        let done = self.backend.act(&app, &data, action).await?;
        let mut acted = self.finish(idx, done, handle, opts, &own_focus).await?;
        if acted.exited {
            return Ok(acted);
        }
        if !acted.diff.has_changes() {
            acted.note = ignored_because(&acted.target, &data);
            if acted.note.is_none() && *action == Action::Click {
                // A click on a tree row may select it without expanding it,
                // for one: the element's other actions are what to try.
                let offered = self.backend.actions(&app, &data).await.unwrap_or_default();
                acted.note = other_actions(&acted.target, &acted.done.method, &offered);
            }
        }
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
        Ok(acted)
    }

    /// Presses a key or chord in `app`, on its focused element (the keys go
    /// to `app` even when another application has the keyboard), then
    /// settles and diffs `app` as [`Session::act`] does.
    pub async fn key(&mut self, app: &str, chord: &str, opts: &ActOptions) -> Result<Acted> {
        if let Some(why) = uidelta_backend::chord_refusal(chord) {
            return Err(Error::TooLong(why));
        }
        // Keys to an application stuck in a handler can hang it for good
        // (see `Backend::unresponsive_hint`): none are sent.
        if let Some(idx) = self.stuck_scope(app) {
            if !self.backend.answers(&self.scopes[idx].app).await? {
                let since = self.scopes[idx].stuck.clone().unwrap_or_default();
                return Err(self.unresponsive(&self.scopes[idx].app, since));
            }
        }
        let (idx, handle, app) = self.before_app_action(app).await?;
        let done = self.backend.key(&app, chord).await?;
        self.finish(idx, done, handle, opts, &[]).await
    }

    /// Clicks at a point (screen coordinates, as in a screenshot) for what
    /// the tree does not show, then settles and diffs `app` as
    /// [`Session::act`] does. `action` is a click, right click or double
    /// click.
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
    ) -> Result<Acted> {
        if let Some(idx) = self.stuck_scope(app) {
            // No need to ask it first: the click goes through the display.
            let app = self.scopes[idx].app.clone();
            let handle = self.scopes[idx].handle(NodeId::ROOT);
            self.scopes[idx].drain();
            let done = self.backend.click_at(&app, x, y, action).await?;
            return self.finish(idx, done, handle, opts, &[]).await;
        }
        match self.before_app_action(app).await {
            Ok((idx, handle, app)) => {
                let done = self.backend.click_at(&app, x, y, action).await?;
                self.finish(idx, done, handle, opts, &[]).await
            }
            Err(e) => {
                let Some(silent) = self.silent(app, &e).await else {
                    return Err(e);
                };
                let done = self.backend.click_at(&silent, x, y, action).await?;
                match self.scopes.iter().position(|s| s.app.id == silent.id) {
                    Some(idx) => {
                        let handle = self.scopes[idx].handle(NodeId::ROOT);
                        self.finish(idx, done, handle, opts, &[]).await
                    }
                    None => self.first_answer(silent, done, opts).await,
                }
            }
        }
    }

    /// The scope of `app` (its name or backend id) when it stopped
    /// answering.
    fn stuck_scope(&self, app: &str) -> Option<usize> {
        let wanted = app.to_lowercase();
        self.scopes.iter().position(|s| {
            s.stuck.is_some() && (s.app.name.to_lowercase() == wanted || s.app.id == app)
        })
    }

    /// The application `app` when `err`, met while reading it, says that it
    /// does not answer now: a read timed out, or it is listed under its bus
    /// name only, because it could not tell its name. A session that saw it
    /// finds it by name; otherwise only its bus name (`:1.42`) finds it.
    async fn silent(&self, app: &str, err: &Error) -> Option<App> {
        let Error::Backend(e) = err else {
            return None;
        };
        if !matches!(e.kind, ErrorKind::Timeout | ErrorKind::NotFound) {
            return None;
        }
        let wanted = app.to_lowercase();
        let id = self
            .scopes
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
    async fn first_answer(&mut self, app: App, done: Done, opts: &ActOptions) -> Result<Acted> {
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
                            self.scopes[idx].app = named;
                        }
                    }
                    let settled = settled(acted, false, 0);
                    diff.settle_ms = Some(settled.elapsed.as_millis() as u64);
                    return Ok(Acted {
                        done,
                        target: self.scopes[idx].handle(NodeId::ROOT),
                        app: self.scopes[idx].app.clone(),
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
    fn stuck(&mut self, e: uidelta_backend::Error, idx: usize, since: String) -> Error {
        if e.kind != ErrorKind::Timeout {
            return Error::Backend(e);
        }
        self.scopes[idx].stuck = Some(since.clone());
        self.unresponsive(&self.scopes[idx].app, since)
    }

    fn unresponsive(&self, app: &App, since: String) -> Error {
        Error::Unresponsive {
            app: app.label(),
            since,
            hint: self.backend.unresponsive_hint().unwrap_or("").to_owned(),
        }
    }

    /// The after snapshot of scope `idx`; a timeout is [`Session::stuck`].
    async fn capture_after(&mut self, idx: usize, since: impl Fn() -> String) -> Result<Snapshot> {
        let app = self.scopes[idx].app.clone();
        match self.backend.capture(&app, &Scope::App).await {
            Ok(after) => Ok(after),
            Err(e) => Err(self.stuck(e, idx, since())),
        }
    }

    /// Before an action on a whole application: its latest snapshot (read
    /// when needed), its root's handle, and no stale events.
    async fn before_app_action(&mut self, app: &str) -> Result<(usize, Handle, App)> {
        let idx = self.look(app).await?;
        let handle = self.scopes[idx].handle(NodeId::ROOT);
        self.scopes[idx].drain();
        Ok((idx, handle, self.scopes[idx].app.clone()))
    }

    /// Browsers: loads a URL in the tab `app` (or goes back, forward,
    /// reloads), waits for the new document to settle, and diffs. A new
    /// document is reported as one (`Diff::new_document`), not as thousands
    /// of changes.
    pub async fn navigate(&mut self, app: &str, to: &Navigate, opts: &ActOptions) -> Result<Acted> {
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
        self.finish(idx, done, handle, &opts, &[]).await
    }

    /// Browsers: runs `script` in the tab `app`, then settles and diffs as
    /// [`Session::act`] does. Returns the script's result as JSON text.
    pub async fn run_script(
        &mut self,
        app: &str,
        script: &str,
        opts: &ActOptions,
    ) -> Result<(String, Acted)> {
        let (idx, handle, app) = self.before_app_action(app).await?;
        let result = self.backend.run_script(&app, script).await?;
        let done = Done {
            method: "script".into(),
        };
        let acted = self.finish(idx, done, handle, opts, &[]).await?;
        Ok((result, acted))
    }

    async fn finish(
        &mut self,
        idx: usize,
        done: Done,
        target: Handle,
        opts: &ActOptions,
        own_focus: &[String],
    ) -> Result<Acted> {
        let acted = Instant::now();
        let app = self.scopes[idx].app.clone();
        let since = || format!("{} on {}", done.method, handle_text(&target));
        let (mut settled, mut mids) = match self.settle(idx, opts, acted, own_focus).await {
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
            if !settled.capped && brings_ephemeral(&self.scopes[idx].view, &after) {
                let linger = ActOptions {
                    settle: Settle::Auto(Quiet {
                        floor: Duration::ZERO,
                        cap: LINGER.min(quiet.cap),
                        ..quiet
                    }),
                    transients: opts.transients,
                };
                let (more, more_mids) =
                    self.settle(idx, &linger, Instant::now(), own_focus).await?;
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
                };
            }
        }
        let before_view_had = held_focus(&self.scopes[idx].view);
        // The before view is needed again only when snapshots were taken
        // while settling; copy it only then.
        let before_view = (!mids.is_empty()).then(|| self.scopes[idx].view.clone());
        let mut d = self.install(idx, after)?;
        d.settle_ms = Some(settled.elapsed.as_millis() as u64);
        d.settle_capped = settled.capped;
        if let Some(before_view) = before_view.filter(|_| !d.new_document) {
            // (A new document's loading states are not transient elements.)
            d.transient = transients(
                &before_view,
                &self.scopes[idx].view,
                &mids,
                self.filters,
                &mut self.table,
            );
        }
        let app_switch = if lost_focus(before_view_had, held_focus(&self.scopes[idx].view)) {
            self.app_switch(&app).await
        } else {
            None
        };
        Ok(Acted {
            done,
            target,
            app,
            diff: d,
            settled,
            app_switch,
            earlier: std::mem::take(&mut self.unreported),
            note: None,
            exited: false,
        })
    }

    /// The outcome of an action after which the application of scope
    /// `idx` exited: it is forgotten, and what changed before is kept.
    fn exited(&mut self, idx: usize, done: Done, target: Handle, settled: Settled) -> Acted {
        let app = self.scopes[idx].app.clone();
        self.forget(&app.id);
        Acted {
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

    /// Waits as `opts` says; returns how it went and the snapshots taken on
    /// the way (for transient elements). Focus events of the elements in
    /// `own_focus` (the action's target and the element it took the focus
    /// from) are the action's own and do not count.
    async fn settle(
        &mut self,
        idx: usize,
        opts: &ActOptions,
        acted: Instant,
        own_focus: &[String],
    ) -> Result<(Settled, Vec<Snapshot>)> {
        let own = |event: &Event| {
            event.kind == uidelta_backend::EventKind::Focus
                && event.source.as_ref().is_some_and(|s| own_focus.contains(s))
        };
        let counts = |event: &Event| !(is_noise(&event.kind) || own(event));
        let quiet = match opts.settle {
            Settle::None => return Ok((settled(acted, false, 0), Vec::new())),
            Settle::Fixed(d) => {
                tokio::time::sleep(d).await;
                return Ok((settled(acted, false, 0), Vec::new()));
            }
            Settle::Auto(q) => q,
        };
        let quiet = match self.backend.settle_window(&self.scopes[idx].app) {
            Some(window) if window > quiet.window => Quiet { window, ..quiet },
            _ => quiet,
        };
        if self.scopes[idx].events.is_silent() {
            return self.settle_by_polling(idx, quiet, acted).await;
        }
        let app = self.scopes[idx].app.clone();
        let animations = self.scopes[idx].animations(acted);
        let moves = |event: &Event| {
            is_motion(&event.kind)
                && !event
                    .source
                    .as_ref()
                    .is_some_and(|s| animations.contains(s))
        };
        let mut watch = Watch::new(quiet, acted);
        let mut mids = Vec::new();
        let mut last_mid = acted;
        loop {
            // The events ended: the application exited (the polling finds
            // out at once), or the subscription broke (the polling goes on).
            if self.scopes[idx].events.lapsed() {
                let (polled, more) = self.settle_by_polling(idx, quiet, acted).await?;
                mids.extend(more);
                let events = watch.events() + polled.events;
                return Ok((Settled { events, ..polled }, mids));
            }
            // Events that queued up meanwhile (while a snapshot was taken)
            // count before deciding that the UI is quiet.
            while let Some(event) = self.scopes[idx].next_queued() {
                if counts(&event) {
                    watch.event(event.at);
                } else if moves(&event) {
                    watch.motion(event.at);
                }
            }
            // Events dropped for want of room were changes too.
            if self.scopes[idx].events.take_missed() {
                watch.event(Instant::now());
            }
            let until = match watch.next(Instant::now()) {
                Next::Done { capped } => return Ok((settled(acted, capped, watch.events()), mids)),
                Next::WaitUntil(t) => t,
            };
            let Some(event) = self.scopes[idx].next_before(until).await else {
                continue;
            };
            if moves(&event) {
                watch.motion(event.at);
                continue;
            }
            if !counts(&event) {
                continue;
            }
            watch.event(event.at);
            if opts.transients && mids.len() < MAX_MIDS && last_mid.elapsed() >= MID_SPACING {
                // Let the burst this event starts land, then look.
                tokio::time::sleep(Duration::from_millis(20)).await;
                if let Ok(s) = self.backend.capture(&app, &Scope::App).await {
                    mids.push(s);
                }
                last_mid = Instant::now();
            }
        }
    }

    /// Settles by comparing captures, for a backend that sends no events
    /// (and after a window operation, which sends the application none).
    /// An application that goes away while it settles ends the wait: the
    /// caller finds out what became of it.
    async fn settle_by_polling(
        &mut self,
        idx: usize,
        quiet: Quiet,
        acted: Instant,
    ) -> Result<(Settled, Vec<Snapshot>)> {
        let app = self.scopes[idx].app.clone();
        let mut watch = Watch::new(quiet, acted);
        let mut last = look_of(&self.scopes[idx].view);
        let mut mids = Vec::new();
        loop {
            if let Next::Done { capped } = watch.next(Instant::now()) {
                return Ok((settled(acted, capped, watch.events()), mids));
            }
            tokio::time::sleep(POLL).await;
            let s = match self.backend.capture(&app, &Scope::App).await {
                Ok(s) => s,
                Err(e) if matches!(e.kind, ErrorKind::Gone | ErrorKind::NotFound) => {
                    return Ok((settled(acted, false, watch.events()), mids));
                }
                Err(e) => return Err(e.into()),
            };
            let now = look_of(&View::new(&s, self.filters));
            if now != last {
                watch.event(Instant::now());
                last = now;
                if mids.len() < MAX_MIDS {
                    mids.push(s);
                }
            }
        }
    }

    /// When the focus left `app`: the application that has an active window
    /// now, with what changed in it.
    async fn app_switch(&mut self, app: &App) -> Option<(App, Diff)> {
        let apps = self.backend.apps().await.ok()?;
        let other = apps
            .into_iter()
            .find(|a| a.id != app.id && a.windows.iter().any(|w| w.active))?;
        let (_, d) = self.observe_app(other.clone()).await.ok()?;
        Some((other, d))
    }

    /// Blocks until `app` changes (or `timeout` passes), then returns the
    /// diff; `has_changes()` is false when the time ran out.
    pub async fn wait_for_change(&mut self, app: &str, timeout: Duration) -> Result<Acted> {
        let idx = self.look(app).await?;
        let start = Instant::now();
        let handle = self.scopes[idx].handle(NodeId::ROOT);
        // What changed since the last result (between two calls) is a
        // change the caller has not seen: it is reported without waiting
        // for another, at once, or once the UI is quiet if it is still
        // changing.
        let id = self.scopes[idx].app.id.clone();
        let seen = self
            .unreported
            .iter()
            .any(|(a, d)| a.id == id && d.has_changes());
        if seen {
            let quiet = Quiet::default();
            let settle = match self.scopes[idx].changed_since() {
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
            let done = Done {
                method: WAITED.into(),
            };
            return self.finish(idx, done, handle, &opts, &[]).await;
        }
        loop {
            let left = timeout.saturating_sub(start.elapsed());
            let opts = ActOptions {
                settle: Settle::Auto(Quiet {
                    cap: left,
                    ..Quiet::default()
                }),
                transients: true,
            };
            let acted = self
                .finish(
                    idx,
                    Done {
                        method: WAITED.into(),
                    },
                    handle.clone(),
                    &opts,
                    &[],
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
    ) -> Result<Waited> {
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
            let scope = &self.scopes[idx];
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
                    .find(|&n| scope.view.tree().node(n).states.contains(s)),
                Condition::Lacks(s) => hits
                    .iter()
                    .copied()
                    .find(|&n| !scope.view.tree().node(n).states.contains(s)),
            };
            if let Some(n) = met {
                let found = scope.handle(n);
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
            while let Some(e) = self.scopes[idx].next_before(until).await {
                if !is_noise(&e.kind) {
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    break;
                }
            }
            match self.refresh(idx).await {
                Ok(d) => self.keep_unreported(idx, d),
                Err(Error::Backend(e)) if e.kind == ErrorKind::Gone => {
                    let id = self.scopes[idx].app.id.clone();
                    self.forget(&id);
                    let mut waited = self.waited(None);
                    waited.exited = true;
                    return Ok(waited);
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn waited(&mut self, found: Option<Handle>) -> Waited {
        Waited {
            found,
            changes: std::mem::take(&mut self.unreported),
            exited: false,
        }
    }
}

/// Why an application may have ignored an action on `data` (`handle`):
/// it was disabled, or not showing. `None` when its states say neither (or
/// it reports no states at all).
fn ignored_because(handle: &Handle, data: &NodeData) -> Option<String> {
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
fn other_actions(handle: &Handle, method: &str, offered: &[String]) -> Option<String> {
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

fn condition_text(c: Condition) -> String {
    match c {
        Condition::Appears => "appear".into(),
        Condition::Disappears => "disappear".into(),
        Condition::Has(s) => format!("be {s}"),
        Condition::Lacks(s) => format!("not be {s}"),
    }
}

/// What a capture looks like, to tell two apart: the tree's hash, and the
/// focused element, which the hash leaves out (a window given the keyboard
/// may change nothing else).
fn look_of(view: &View) -> (u64, Option<String>) {
    let focus = view
        .focus()
        .map(|f| view.tree().node(f))
        .map(|n| n.identity.clone().unwrap_or_else(|| n.name.clone()));
    (view.subtree_hash(NodeId::ROOT), focus)
}

fn settled(acted: Instant, capped: bool, events: usize) -> Settled {
    Settled {
        elapsed: acted.elapsed(),
        capped,
        events,
    }
}

/// The first snapshot of an application as a diff: its whole tree added.
fn first_sight(view: &View, refs: &Refs) -> Diff {
    let t = view.tree();
    let changes = t
        .children(NodeId::ROOT)
        .iter()
        .enumerate()
        .map(|(index, &c)| {
            Change::Added(uidelta_diff::Added {
                parent: refs.get(NodeId::ROOT),
                index,
                opened: None,
                group: None,
                came_back: false,
                context: None,
                subtree: t
                    .subtree(c)
                    .map(|n| uidelta_diff::SubtreeNode {
                        depth: t.depth(n) - t.depth(c),
                        element: Element::new(refs.get(n), t.node(n)),
                    })
                    .collect(),
            })
        })
        .collect();
    Diff {
        changes,
        ..Diff::default()
    }
}

/// Roles whose elements come and go by nature: toasts, alerts, tooltips,
/// spinners.
fn is_ephemeral(role: uidelta_model::Role) -> bool {
    use uidelta_model::Role;
    matches!(
        role,
        Role::Notification | Role::Alert | Role::ToolTip | Role::Animation | Role::InfoBar
    )
}

/// Whether `after` has an ephemeral element that `before` did not.
/// Reads the raw snapshot: no filter removes an ephemeral role, so building
/// a view here would only repeat the work `install` does next.
///
/// An alert that is a window of its own (GTK's message dialogs), or modal,
/// waits for an answer and does not go by itself: it is not ephemeral.
fn brings_ephemeral(before: &View, after: &Snapshot) -> bool {
    let old: std::collections::HashSet<&str> = before
        .tree()
        .nodes()
        .iter()
        .filter(|n| is_ephemeral(n.role))
        .filter_map(|n| n.identity.as_deref())
        .collect();
    let tree = after.tree();
    let windows = tree.node(NodeId::ROOT).role == uidelta_model::Role::Application;
    tree.ids().any(|id| {
        let n = tree.node(id);
        let waits = n.states.contains(State::Modal) || (windows && tree.depth(id) == 1);
        is_ephemeral(n.role) && !waits && n.identity.as_deref().is_none_or(|i| !old.contains(i))
    })
}

/// Elements present in some snapshot taken while settling but neither
/// before nor after: a toast, a spinner. Only the top of each such subtree.
///
/// An element is known by its identity, or by its role and name with its
/// parent's: an application that made an element anew under another
/// identity (Qt's item view cells) did not show a transient one.
fn transients(
    before: &View,
    after: &View,
    mids: &[Snapshot],
    filters: Filters,
    table: &mut RefTable,
) -> Vec<Element> {
    fn structural(t: &uidelta_model::Tree, id: NodeId) -> String {
        let n = t.node(id);
        let (role, name) = t
            .parent(id)
            .map(|p| t.node(p))
            .map_or(("", ""), |p| (p.role.as_str(), p.name.as_str()));
        format!("{}\u{0}{}\u{0}{role}\u{0}{name}", n.role.as_str(), n.name)
    }
    let mut known: std::collections::HashSet<String> = std::collections::HashSet::new();
    for view in [before, after] {
        let t = view.tree();
        for id in t.ids() {
            if let Some(identity) = &t.node(id).identity {
                known.insert(identity.clone());
            }
            known.insert(structural(t, id));
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for mid in mids {
        let view = View::new(mid, filters);
        let t = view.tree();
        let mut skip_until = 0u32;
        for id in t.ids() {
            if id.0 < skip_until {
                continue;
            }
            let n = t.node(id);
            let k = structural(t, id);
            let identified = n.identity.as_ref().is_some_and(|i| known.contains(i));
            if !identified && !known.contains(&k) {
                skip_until = id.0 + t.subtree_len(id) as u32;
                if seen.insert(k) {
                    out.push(Element::new(table.fresh(), n));
                }
            }
        }
    }
    out
}

/// How many elements a selector that matched nothing offers instead.
const NEAR_MISSES: usize = 5;

/// The element that took the place of `gone` (removed from under
/// `parent`): the one added element of the same role and name (white space
/// normalized), preferring those added under the same parent. Only such a
/// one is offered: an agent that follows the hint acts on it, and a
/// different element in the same place (the `C` key where `=` was, after a
/// keypad switched) does something else.
fn successor<'a>(
    gone: &Element,
    parent: Ref,
    added: &[&'a uidelta_diff::Added],
) -> Option<&'a Element> {
    let name = normalize_space(&gone.name);
    let alike = |a: &&&'a uidelta_diff::Added| -> Vec<&'a Element> {
        a.subtree
            .iter()
            .map(|n| &n.element)
            .filter(|e| e.role == gone.role && normalize_space(&e.name) == name)
            .collect()
    };
    let one = |found: Vec<&'a Element>| match found.as_slice() {
        [e] => Some(*e),
        _ => None,
    };
    let near: Vec<&Element> = added
        .iter()
        .filter(|a| a.parent == parent)
        .flat_map(|a| alike(&a))
        .collect();
    if !near.is_empty() {
        return one(near);
    }
    one(added.iter().flat_map(|a| alike(&a)).collect())
}

fn describe(e: &Element) -> String {
    handle_text(&e.handle())
}

fn handle_text(h: &Handle) -> String {
    if h.name.is_empty() {
        format!("[{}] {}", h.r#ref, h.role)
    } else {
        format!("[{}] {} {:?}", h.r#ref, h.role, h.name)
    }
}

fn list(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// What of the input focus a view of an application shows: whether it has
/// a focused element, and whether one of its windows is active.
fn held_focus(view: &View) -> (bool, bool) {
    let tree = view.tree();
    let active_window = tree
        .children(NodeId::ROOT)
        .iter()
        .any(|&w| tree.node(w).states.contains(State::Active));
    (view.focus().is_some(), active_window)
}

/// Whether the focus left the application between two views: its focused
/// element went without another taking its place, or its active window
/// stopped being active with none other active. (A window that was never
/// active, as on a desktop without a window manager, cannot lose it.)
fn lost_focus(before: (bool, bool), after: (bool, bool)) -> bool {
    let (had_element, had_window) = before;
    let (has_element, has_window) = after;
    (had_element && !has_element) || (had_window && !has_window)
}

#[cfg(test)]
mod tests {
    use super::{
        brings_ephemeral, describe, ignored_because, lost_focus, other_actions, successor,
        transients,
    };
    use uidelta_diff::{diff, Change, Filters, RefTable, View};
    use uidelta_model::{Meta, NodeData, Role, Snapshot, State, TreeBuilder};

    /// A calculator's window: a keypad per `(id, keys)` (each key `(id,
    /// name)`), every element with a platform identity so that a key
    /// replaced by another is removed and added, not renamed.
    fn calculator(keypads: &[(&str, &[(&str, &str)])]) -> View {
        let with_id = |role: Role, name: &str, id: &str| {
            let mut n = NodeData::named(role, name);
            n.identity = Some(format!(":1.1/{id}"));
            n
        };
        let mut b = TreeBuilder::new(with_id(Role::Application, "calculator", "app"));
        b.open(with_id(Role::Frame, "Calculator", "frame"));
        b.leaf(with_id(Role::Label, "12", "display"));
        for (pad, keys) in keypads {
            b.open(with_id(Role::Panel, "", pad));
            for (id, name) in *keys {
                b.leaf(with_id(Role::ToggleButton, name, id));
            }
            b.close();
        }
        b.close();
        View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none())
    }

    /// For each element that went away from `before` to `after`, by name:
    /// the element offered in its place, if any.
    fn successors(before: &View, after: &View) -> Vec<(String, Option<String>)> {
        let mut table = RefTable::new();
        let refs = table.label(before.len());
        let (d, _) = diff(before, &refs, after, &mut table);
        let added: Vec<&uidelta_diff::Added> = d
            .changes
            .iter()
            .filter_map(|c| match c {
                Change::Added(a) => Some(a),
                _ => None,
            })
            .collect();
        let mut out = Vec::new();
        for c in &d.changes {
            if let Change::Removed(r) = c {
                for n in &r.subtree {
                    let next = successor(&n.element, r.parent, &added).map(describe);
                    out.push((n.element.name.clone(), next));
                }
            }
        }
        out
    }

    #[test]
    fn a_gone_element_is_succeeded_only_by_one_of_its_role_and_name() {
        let before = calculator(&[("basic", &[("seven", "7"), ("equals", "=")])]);
        // `C` where `=` was: another key, not offered.
        let other = calculator(&[("basic", &[("seven", "7"), ("clear", "C")])]);
        assert_eq!(successors(&before, &other), [("=".to_owned(), None)]);
        // A new `=` (padded, as some toolkits name it) in its place.
        let again = calculator(&[("basic", &[("seven", "7"), ("equals2", " =  ")])]);
        assert_eq!(
            successors(&before, &again),
            [(
                "=".to_owned(),
                Some(r#"[e7] toggle button " =  ""#.to_owned())
            )]
        );
        // The keypad switched: its `=` is in the new one, `7` is nowhere.
        let switched = calculator(&[(
            "advanced",
            &[("clear2", "C"), ("sin", "sin"), ("equals3", "=")],
        )]);
        assert_eq!(
            successors(&before, &switched),
            [
                (String::new(), Some("[e7] panel".to_owned())),
                ("7".to_owned(), None),
                (
                    "=".to_owned(),
                    Some(r#"[e10] toggle button "=""#.to_owned())
                ),
            ]
        );
        // Two `=` in its place: which one is meant is not known.
        let two = calculator(&[
            ("basic", &[("seven", "7")]),
            ("more", &[("eq-a", "="), ("eq-b", "=")]),
        ]);
        assert_eq!(successors(&before, &two), [("=".to_owned(), None)]);
    }

    /// An application with a frame holding a button, plus `extra` (with
    /// its identity) either as a window of its own or inside the frame.
    fn app_with(extra: Option<(NodeData, bool)>) -> Snapshot {
        let mut b = TreeBuilder::new(NodeData::named(Role::Application, "app"));
        b.open(NodeData::named(Role::Frame, "main"));
        b.leaf(NodeData::named(Role::PushButton, "Save"));
        let window = match extra {
            Some((mut n, window)) => {
                n.identity = Some(format!(":1.1/{}", n.name));
                if !window {
                    b.leaf(n);
                    None
                } else {
                    Some(n)
                }
            }
            None => None,
        };
        b.close();
        if let Some(n) = window {
            b.leaf(n);
        }
        Snapshot::new(Meta::default(), b.finish())
    }

    #[test]
    fn toasts_are_ephemeral_but_alerts_that_wait_for_an_answer_are_not() {
        let before = View::new(&app_with(None), Filters::all());
        let toast = NodeData::named(Role::Notification, "Saved");
        assert!(brings_ephemeral(&before, &app_with(Some((toast, false)))));
        let alert = NodeData::named(Role::Alert, "Disk almost full");
        assert!(brings_ephemeral(
            &before,
            &app_with(Some((alert.clone(), false)))
        ));
        // A message dialog: a window of its own, or modal.
        assert!(!brings_ephemeral(
            &before,
            &app_with(Some((alert.clone(), true)))
        ));
        let mut modal = alert;
        modal.states.insert(State::Modal);
        assert!(!brings_ephemeral(&before, &app_with(Some((modal, false)))));
        // One already there before is no news.
        let toast = NodeData::named(Role::Notification, "Saved");
        let shown = app_with(Some((toast, false)));
        let before = View::new(&shown, Filters::all());
        assert!(!brings_ephemeral(&before, &shown));
    }

    /// A frame with a list of cells made in `generation` (their identities
    /// say which), plus a toast when `toast`.
    fn cells(generation: u32, toast: bool) -> Snapshot {
        let mut b = TreeBuilder::new(NodeData::named(Role::Frame, "main"));
        b.open(NodeData::named(Role::List, "files"));
        for name in ["Drive", "Home"] {
            let mut cell = NodeData::named(Role::ListItem, name);
            cell.identity = Some(format!(":1.1/{generation}/{name}"));
            b.leaf(cell);
        }
        b.close();
        if toast {
            let mut n = NodeData::named(Role::Notification, "Saved");
            n.identity = Some(":1.1/toast".into());
            b.leaf(n);
        }
        Snapshot::new(Meta::default(), b.finish())
    }

    #[test]
    fn elements_made_anew_while_settling_are_not_transient_but_a_toast_is() {
        let before = View::new(&cells(1, false), Filters::all());
        let after = View::new(&cells(3, false), Filters::all());
        let mut table = RefTable::new();
        let mids = [cells(2, false), cells(2, true)];
        let found = transients(&before, &after, &mids, Filters::all(), &mut table);
        let names: Vec<&str> = found.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["Saved"]);
    }

    #[test]
    fn the_focus_left_when_the_element_or_the_active_window_went_without_a_successor() {
        // (focused element, active window) before and after.
        assert!(lost_focus((true, true), (false, false)));
        assert!(lost_focus((true, false), (false, false)));
        assert!(lost_focus((false, true), (false, false)));
        // Focus moved inside the application (its own dialog took it).
        assert!(!lost_focus((true, true), (true, true)));
        // Nothing to lose: no window manager ever activated it.
        assert!(!lost_focus((false, false), (false, false)));
        // It gained the focus.
        assert!(!lost_focus((false, false), (true, true)));
    }

    #[test]
    fn an_ignored_action_says_why_when_the_states_tell() {
        let handle = uidelta_diff::Handle {
            r#ref: uidelta_diff::Ref(7),
            role: Role::PushButton,
            name: "Next".into(),
        };
        let mut data = NodeData::named(Role::PushButton, "Next");
        // No states at all: the source says nothing.
        assert_eq!(ignored_because(&handle, &data), None);
        data.states.insert(State::Showing);
        assert_eq!(
            ignored_because(&handle, &data).as_deref(),
            Some(
                "[e7] push button \"Next\" is disabled, and applications ignore actions on \
                 disabled elements"
            )
        );
        data.states = uidelta_model::StateSet::of(&[State::Enabled]);
        assert_eq!(
            ignored_because(&handle, &data).as_deref(),
            Some(
                "[e7] push button \"Next\" is not showing (on a page, tab or menu that is not \
                 open, or in a collapsed section), and applications may ignore actions on it"
            )
        );
        data.states.insert(State::Showing);
        assert_eq!(ignored_because(&handle, &data), None);
    }

    #[test]
    fn a_click_that_changed_nothing_names_the_other_actions() {
        let row = uidelta_diff::Handle {
            r#ref: uidelta_diff::Ref(49),
            role: Role::TableCell,
            name: "Entry".into(),
        };
        let offered: Vec<String> = ["expand or contract", "edit", "activate"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            other_actions(&row, "Action.activate", &offered).as_deref(),
            Some(
                "the click changed nothing; [e49] table cell \"Entry\" also offers the actions \
                 `expand or contract`, `edit` (invoke one by name)"
            )
        );
        // A button whose only action is the click: nothing to add.
        let button = uidelta_diff::Handle {
            r#ref: uidelta_diff::Ref(5),
            role: Role::PushButton,
            name: "Do nothing".into(),
        };
        let click = vec!["click".to_owned()];
        assert_eq!(other_actions(&button, "Action.click", &click), None);
        // A pointer click did what `click` and `press` do.
        let both = vec!["press".to_owned(), "click".to_owned()];
        assert_eq!(other_actions(&button, "XTest click at 10,20", &both), None);
        assert_eq!(other_actions(&button, "XTest click at 10,20", &[]), None);
    }
}
