//! A session: the latest snapshot of every application it has seen, one ref
//! table, and the act-settle-diff loop.
//!
//! The loop's parts live beside this file: [`refs`] resolves targets,
//! [`act`] acts and reports, [`transients`] and [`focus`] read what an
//! action left, [`wait`] waits for changes and elements, [`saved`] carries a
//! session from one process to the next, [`windows`] closes and raises
//! windows; settling itself is [`crate::settle`]'s.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use uidelta_backend::{App, Backend, ErrorKind, Event, EventStream, Scope};
use uidelta_diff::{diff, Change, Diff, Element, Filters, Handle, Ref, RefTable, Refs, View};
use uidelta_model::{NodeData, NodeId, Role, Snapshot, State, Tree};

use crate::error::{Error, Result};
use crate::settle::{is_motion, is_noise, Movers};
use refs::{handle_text, GoneRef};

mod act;
mod focus;
mod refs;
mod saved;
#[cfg(test)]
mod tests;
mod transients;
mod wait;
mod windows;

pub use act::{ActOptions, ActionOutcome, DragEnd};
pub use saved::{AwayRef, SavedApp, SavedGoneRef, SavedSession};
pub use wait::{Condition, WaitOutcome};
pub use windows::WindowAction;

/// One of the applications a session knows: its place in
/// [`Session::known_apps`], which it indexes. Forgetting an application
/// ([`Session::forget`]) moves those after it down one place, so an `AppId`
/// holds until then.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AppId(pub(crate) usize);

impl AppId {
    /// Its place in [`Session::known_apps`].
    pub fn index(self) -> usize {
        self.0
    }
}

/// The known application `id` names, as [`Session::known_apps`] lists them.
impl std::ops::Index<AppId> for [KnownApp] {
    type Output = KnownApp;

    fn index(&self, id: AppId) -> &KnownApp {
        &self[id.0]
    }
}

/// The known application `id` names, to update it.
impl std::ops::IndexMut<AppId> for [KnownApp] {
    fn index_mut(&mut self, id: AppId) -> &mut KnownApp {
        &mut self[id.0]
    }
}

/// The session's own list, indexed as [`Session::known_apps`] is.
impl std::ops::Index<AppId> for Vec<KnownApp> {
    type Output = KnownApp;

    fn index(&self, id: AppId) -> &KnownApp {
        &self[id.0]
    }
}

/// The session's own list, to update one of them.
impl std::ops::IndexMut<AppId> for Vec<KnownApp> {
    fn index_mut(&mut self, id: AppId) -> &mut KnownApp {
        &mut self[id.0]
    }
}

pub use uidelta_diff::AppDiff;

/// The latest snapshot of one application, with its view and refs.
pub struct KnownApp {
    /// The application.
    pub app: App,
    /// The snapshot as captured.
    pub snapshot: Snapshot,
    /// The filtered view, which refs index.
    pub view: View,
    /// Refs of the view's nodes.
    pub refs: Refs,
    pub(crate) events: EventStream,
    /// What has been moving, from the events read (see [`Movers`]).
    pub(crate) movers: Movers,
    /// Set when it stopped answering (to what was done last, for
    /// [`Error::Unresponsive`]): read it again before acting on it, even
    /// without events, once it answers.
    pub(crate) stuck: Option<String>,
    /// Set when it comes from an earlier process ([`Session::resume`]):
    /// nothing says what happened since, so it is read again before use.
    pub(crate) stale: bool,
    /// When the action under way began (its stale events drained): what
    /// it made on the display is what it made since then (see
    /// [`Backend::windows_made`]). Taken by the settle after it; a wait
    /// for a change, which begins no action, clears it.
    pub(crate) acting: Option<Instant>,
}

impl KnownApp {
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

    /// The window that has the keyboard: a modal window that shows (the
    /// last one), else the active window, else the first one shown, else
    /// the first. A modal dialog has the keyboard whatever the windows
    /// say: GTK without a window manager leaves `active` on the main
    /// window, and GTK 4.8 says no dialog is active.
    pub fn main_window(&self) -> Option<NodeId> {
        keyboard_window(self.view.tree())
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

    /// The next event already queued, noted (see [`KnownApp::note`]).
    pub(crate) fn next_queued(&mut self) -> Option<Event> {
        let e = self.events.try_next()?;
        self.note(&e);
        Some(e)
    }

    /// Drops the events queued, noting them (see [`KnownApp::note`]).
    fn drain(&mut self) {
        self.acting = Some(Instant::now());
        while self.next_queued().is_some() {}
    }

    /// The next event before `until`, noted (see [`KnownApp::note`]).
    pub(crate) async fn next_before(&mut self, until: Instant) -> Option<Event> {
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
    pub(crate) fn animations(&self, at: Instant) -> std::collections::HashSet<String> {
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

/// One agent's view of the desktop: latest snapshots, refs, and the loop.
pub struct Session<B: Backend> {
    pub(crate) backend: Arc<B>,
    pub(crate) filters: Filters,
    /// How long an application's events may go unread before its
    /// subscription is dropped.
    event_idle: Duration,
    pub(crate) table: RefTable,
    pub(crate) known: Vec<KnownApp>,
    gone: HashMap<Ref, GoneRef>,
    /// Applications that exited while known, newest last (name, label),
    /// for a selector whose `app:` names one of them (at most
    /// [`EXITED_KEPT`]).
    exited: Vec<(String, String)>,
    /// Changes seen while re-reading before an action, not yet reported.
    unreported: Vec<AppDiff>,
    /// The capture settling took to see whether anything had changed, when
    /// something had: it is the after snapshot (see `settle`).
    pub(crate) looked: Option<(AppId, Snapshot)>,
    /// Every window of every application as last listed (application and
    /// window ids), to tell the windows an action opened in another
    /// process (a GIMP plug-in's dialog) from those there before.
    pub(crate) census: Option<focus::Census>,
    /// Applications saved by an earlier run, not read yet: taken up when
    /// one is first observed (see [`Session::hold_in_reserve`]).
    reserve: Vec<SavedApp>,
}

impl<B: Backend> Session<B> {
    /// A session on `backend`, with every noise filter on.
    pub fn new(backend: Arc<B>) -> Session<B> {
        Session {
            backend,
            filters: Filters::all(),
            event_idle: EventStream::IDLE,
            table: RefTable::new(),
            known: Vec::new(),
            gone: HashMap::new(),
            exited: Vec::new(),
            unreported: Vec::new(),
            looked: None,
            census: None,
            reserve: Vec::new(),
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
    pub fn known_apps(&self) -> &[KnownApp] {
        &self.known
    }

    /// The known application with backend id `app_id`, if this session
    /// has read it.
    pub fn known_id(&self, app_id: &str) -> Option<AppId> {
        self.known
            .iter()
            .position(|s| s.app.id == app_id)
            .map(AppId)
    }

    /// Finds an application by name (exact, case-insensitive, a unique
    /// prefix, or the last part of an application id: `nautilus` for
    /// `org.gnome.Nautilus`) or by its backend id (a browser tab's target
    /// id); the error lists what is there.
    pub async fn find_app(&self, name: &str) -> Result<App> {
        let apps = self.backend.apps().await?;
        let by_id: Vec<&App> = apps.iter().filter(|a| a.id == name).collect();
        let found: Vec<&App> = if by_id.is_empty() {
            uidelta_model::app::names_picked(apps.iter().map(|a| a.name.as_str()), name)
                .into_iter()
                .map(|i| &apps[i])
                .collect()
        } else {
            by_id
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
    /// the previous one. Returns its id (see [`AppId`]) and the
    /// diff against the previous snapshot (everything added the first time).
    pub async fn observe(&mut self, app: &str) -> Result<(AppId, Diff)> {
        let app = self.find_app(app).await?;
        self.observe_app(app).await
    }

    /// Like [`Session::observe`], for callers that do not show the diff
    /// now (they act next, or wait): what changed since the last result is
    /// kept and reported with the next one (`ActionOutcome::earlier`), not lost.
    pub async fn look(&mut self, app: &str) -> Result<AppId> {
        let app = self.find_app(app).await?;
        self.look_at(app).await
    }

    /// [`Session::look`] for an application already found
    /// ([`Session::find_app`]).
    pub async fn look_at(&mut self, app: App) -> Result<AppId> {
        let known = self.known.iter().any(|s| s.app.id == app.id);
        let (idx, d) = self.observe_app(app).await?;
        if known {
            self.keep_unreported(idx, d);
        }
        Ok(idx)
    }

    /// Keeps a diff nobody has seen for the next result, when it has
    /// changes.
    fn keep_unreported(&mut self, idx: AppId, d: Diff) {
        if d.has_changes() {
            self.unreported.push(AppDiff {
                app: self.known[idx].app.clone(),
                diff: d,
            });
        }
    }

    async fn observe_app(&mut self, app: App) -> Result<(AppId, Diff)> {
        match self.known_id(&app.id) {
            Some(idx) => {
                self.known[idx].app = app;
                self.listen_again(idx).await;
                let d = self.refresh(idx).await?;
                Ok((idx, d))
            }
            None if self.adopt(&app).await => {
                let idx = AppId(self.known.len() - 1);
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
                self.known.push(KnownApp {
                    app,
                    snapshot,
                    view,
                    refs,
                    events,
                    movers: Movers::default(),
                    stuck: None,
                    stale: false,
                    acting: None,
                });
                Ok((AppId(self.known.len() - 1), first))
            }
        }
    }

    /// The events of `app`, dropped after [`Session::with_event_idle`]
    /// unread.
    async fn subscribe(&self, app: &App) -> Result<EventStream> {
        let events = self.backend.events(app).await?;
        Ok(events.with_idle_limit(self.event_idle))
    }

    /// Subscribes again to the events of known application `idx` when its subscription
    /// lapsed (unread too long, or its source went away). What happened
    /// meanwhile is unknown, so it is read in full before use.
    async fn listen_again(&mut self, idx: AppId) {
        if !self.known[idx].events.lapsed() {
            return;
        }
        let app = self.known[idx].app.clone();
        // On failure (the application went away, most likely) the read
        // that follows says what became of it; until a subscription works
        // again, every use reads it in full (see `changed_since`).
        if let Ok(events) = self.subscribe(&app).await {
            let latest = &mut self.known[idx];
            latest.events = events;
            latest.movers = Movers::default();
        }
        self.known[idx].stale = true;
    }

    /// Drops the latest snapshot of the application with backend id `app_id`
    /// (one that exited), so that refreshing it no longer fails every
    /// target; its refs are then reported as gone. Returns whether there was
    /// one.
    pub fn forget(&mut self, app_id: &str) -> bool {
        let Some(idx) = self.known_id(app_id) else {
            return false;
        };
        let forgotten = self.known.remove(idx.0);
        let label = forgotten.app.label();
        self.exited.retain(|(_, l)| *l != label);
        if self.exited.len() >= EXITED_KEPT {
            self.exited.remove(0);
        }
        self.exited
            .push((forgotten.app.name.clone(), label.clone()));
        for id in forgotten.view.tree().ids() {
            let was = format!(
                "{} in {label}, which exited",
                handle_text(&forgotten.handle(id))
            );
            self.gone.insert(
                forgotten.refs.get(id),
                GoneRef {
                    was,
                    replaced_by: None,
                },
            );
        }
        true
    }

    /// Captures known `idx` again, carrying refs; returns the diff.
    async fn refresh(&mut self, idx: AppId) -> Result<Diff> {
        let app = self.known[idx].app.clone();
        let snapshot = self.backend.capture(&app, &Scope::App).await?;
        self.install(idx, snapshot)
    }

    /// Takes `snapshot` (of the application with backend id `app_id`,
    /// taken by another session, as `uidelta watch` does while other
    /// commands act) as this session's latest of it, carrying refs, and
    /// returns the diff; nothing when this session has no snapshot of it.
    pub fn catch_up(&mut self, app_id: &str, snapshot: Snapshot) -> Option<Diff> {
        let idx = self.known_id(app_id)?;
        self.install(idx, snapshot).ok()
    }

    /// Takes `snapshot` as the latest of known application `idx`, carrying refs
    /// (and what its platform did not say now: see
    /// [`uidelta_diff::fill_unread`]); returns the diff. An error when the
    /// session has no refs left for it.
    fn install(&mut self, idx: AppId, snapshot: Snapshot) -> Result<Diff> {
        let snapshot = uidelta_diff::fill_unread(&self.known[idx].view, snapshot);
        let view = View::following(&snapshot, self.filters, &self.known[idx].view);
        self.room_for(&view, &self.known[idx].app)?;
        let latest = &self.known[idx];
        let (d, refs) = diff(&latest.view, &latest.refs, &view, &mut self.table);
        self.remember_gone(&d);
        let latest = &mut self.known[idx];
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

/// How many applications that exited a session remembers by name.
const EXITED_KEPT: usize = 8;

fn list(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// The top-level window of `tree` that has the keyboard (see
/// [`KnownApp::main_window`]).
fn keyboard_window(tree: &Tree) -> Option<NodeId> {
    let windows = tree.children(NodeId::ROOT);
    let has = |n: NodeId, s: State| tree.node(n).states.contains(s);
    windows
        .iter()
        .rev()
        .copied()
        .find(|&n| has(n, State::Modal) && has(n, State::Showing))
        .or_else(|| windows.iter().copied().find(|&n| has(n, State::Active)))
        .or_else(|| windows.iter().copied().find(|&n| has(n, State::Showing)))
        .or_else(|| windows.first().copied())
}
