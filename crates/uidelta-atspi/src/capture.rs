//! Capturing an application's (or one window's) tree as a [`Snapshot`].
//!
//! The walk goes level by level and sends every call of a level at once, so
//! the cost is one round trip per level rather than one per property. The
//! application's own cache (`org.a11y.atspi.Cache.GetItems`, one call) gives
//! role, name, description, states and interfaces of the objects it has
//! exported, and, for the toolkits whose cache is known to agree with
//! `GetChildren` (Chromium: see `Profile::cache_lists_children`), the children of
//! every object whose children it holds all of (these join the walk's
//! current wave without a `GetChildren`);
//! other structure is read live with `GetChildren`, and objects missing
//! from the cache cost extra calls.
//!
//! A field without a name of its own (a GTK entry next to a mnemonic label)
//! is named after the label its `labelled-by` relation points at, as a
//! screen reader names it: one `GetRelationSet` call per such field.
//!
//! A container that manages its descendants and has a great many (a
//! spreadsheet) is never asked for its children: only its visible part is
//! read (see [`crate::visible`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::future::join_all;
use zbus::zvariant::OwnedValue;

use uidelta_model::{normalize_space, Meta, Rect, Role, Snapshot, SELECTION_CHARS};

use crate::bus::{object_vanished, Bus, Target};
use crate::error::{Error, Result};
use crate::interfaces::{
    accessible, cache, component, properties, text, value, CacheItem, Method, ObjRef, Property,
    ACCESSIBLE, CACHE_PATH, COMPONENT, TABLE, TEXT, VALUE,
};
use crate::state;
use crate::toolkit::{gtk4, Profile};
use crate::visible;

/// `ATSPI_RELATION_LABELLED_BY` in a `GetRelationSet` answer.
const LABELLED_BY: u32 = 2;
/// The object path of an application's root accessible.
pub const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";

/// Limits of one capture.
#[derive(Clone, Debug)]
pub struct CaptureOptions {
    /// Most nodes read; the snapshot says `truncated` when there were more.
    pub max_nodes: usize,
    /// Deepest level read; deeper nodes are left out and `truncated` is set.
    pub max_depth: usize,
    /// The whole capture gives up after this long.
    pub deadline: Duration,
    /// Use the application's cache where it has one.
    pub use_cache: bool,
    /// Most characters of text read from one text field.
    pub text_limit: i32,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            max_nodes: 20_000,
            max_depth: 128,
            deadline: Duration::from_secs(30),
            use_cache: true,
            text_limit: 10_000,
        }
    }
}

/// An application on the bus, as far as capturing it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppRef {
    /// Its accessible name (usually the program name).
    pub name: String,
    /// Process id, when the bus knows it.
    pub pid: Option<u32>,
    /// Its unique name on the accessibility bus (`:1.42`).
    pub bus_name: String,
}

impl AppRef {
    /// `gtk3-widget-factory (pid 4242)`, for messages.
    pub fn label(&self) -> String {
        match self.pid {
            Some(pid) => format!("{} (pid {pid})", self.name),
            None => format!("{} ({})", self.name, self.bus_name),
        }
    }
}

/// What a cache item or the four basic calls say about an object.
#[derive(Clone, Debug, Default)]
pub(crate) struct Basic {
    pub(crate) raw_role: String,
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) states: uidelta_model::StateSet,
    pub(crate) interfaces: Vec<String>,
    pub(crate) child_count: i32,
}

impl Basic {
    pub(crate) fn has(&self, iface: &str) -> bool {
        self.interfaces.iter().any(|i| i == iface)
    }
}

/// An application's cache (`GetItems`), as the walk uses it: what it says
/// of each object, by path, and the children of the objects whose children
/// it holds all of, in order.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    items: HashMap<String, Basic>,
    lists: HashMap<String, Vec<String>>,
}

impl Cache {
    /// Built from `GetItems`'s answer for the application `bus_name`.
    fn new(bus_name: &str, items: Vec<CacheItem>) -> Cache {
        let mut by_parent: HashMap<String, Vec<(i32, String)>> = HashMap::new();
        for item in &items {
            if item.parent.0 == bus_name && item.object.0 == bus_name {
                by_parent
                    .entry(item.parent.1.as_str().to_owned())
                    .or_default()
                    .push((item.index, item.object.1.as_str().to_owned()));
            }
        }
        let items: HashMap<String, Basic> = items
            .into_iter()
            .map(|item| {
                (
                    item.object.1.as_str().to_owned(),
                    Basic {
                        raw_role: state::role_name(item.role),
                        name: item.name,
                        description: item.description,
                        states: state::states(&item.states),
                        interfaces: item.interfaces,
                        child_count: item.children,
                    },
                )
            })
            .collect();
        let lists = by_parent
            .into_iter()
            .filter_map(|(parent, mut children)| {
                let count = items.get(&parent)?.child_count;
                children.sort_unstable();
                whole_list(count, &children)
                    .then(|| (parent, children.into_iter().map(|(_, c)| c).collect()))
            })
            .collect();
        Cache { items, lists }
    }

    /// What the cache says of the object at `path`.
    pub(crate) fn get(&self, path: &str) -> Option<&Basic> {
        self.items.get(path)
    }

    /// The children of the object at `path`, in order, when the cache
    /// holds all of them.
    fn children(&self, path: &str) -> Option<&[String]> {
        self.lists.get(path).map(Vec::as_slice)
    }
}

/// Whether children sorted by their index in the parent are all of a
/// parent's `count`: indices `0..count`, each once.
fn whole_list(count: i32, children: &[(i32, String)]) -> bool {
    usize::try_from(count).is_ok_and(|n| n == children.len())
        && children
            .iter()
            .enumerate()
            .all(|(k, (index, _))| usize::try_from(*index).is_ok_and(|x| x == k))
}

/// One object found by the walk.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rec {
    pub(crate) bus: String,
    pub(crate) path: String,
    pub(crate) basic: Basic,
    pub(crate) children: Vec<usize>,
    pub(crate) bounds: Option<Rect>,
    pub(crate) value: Option<String>,
    /// What its toolkit does not say of it now (see
    /// [`uidelta_model::NodeData::unread`]).
    pub(crate) unread: uidelta_model::Unread,
    /// Read as its visible part (see [`crate::visible`]): what shows of it.
    pub(crate) shown: Option<visible::Shown>,
    pub(crate) attributes: Vec<(String, String)>,
    /// The label that names this nameless field (`labelled-by`).
    pub(crate) labelled_by: Option<(String, String)>,
    pub(crate) vanished: bool,
    /// Another element shows in its place: a page of a stack or notebook
    /// that is not the one shown, in a toolkit that does not say so (see
    /// [`Walk::hidden_pages`]).
    pub(crate) in_reserve: bool,
    /// A label that only repeats the name of the element it is in, or of
    /// the field it labels (see [`leave_out_repeated_labels`]): not in the
    /// tree.
    pub(crate) says_again: bool,
    /// Its toolkit's rules leave it out of the tree, with all that is in
    /// it (see [`crate::toolkit`]).
    pub(crate) left_out: bool,
    /// Its toolkit's rules take it for a box with nothing to say of its
    /// own (see [`crate::toolkit`]): what is in it takes its place.
    pub(crate) lifted: bool,
}

impl Rec {
    /// Takes what was read of the object, but its children, which it
    /// gives back.
    pub(crate) fn take(&mut self, fetched: Fetched) -> Vec<ObjRef> {
        self.basic = fetched.basic;
        self.bounds = fetched.bounds;
        self.value = fetched.value;
        self.attributes = fetched.attributes;
        self.labelled_by = fetched.labelled_by;
        self.shown = fetched.shown;
        self.vanished = false;
        fetched.children
    }
}

/// Captures `app` from its root, or from the object at `root` (a window).
pub async fn capture(
    bus: &Bus,
    app: &AppRef,
    root: Option<&str>,
    window: Option<String>,
    opts: &CaptureOptions,
) -> Result<Snapshot> {
    let started = Started::now();
    let label = app.label();
    let bus = &bus.reading(&target(&label), &app.bus_name).await;
    let profile = bus.profile(app).await;
    let walk = Walk {
        bus,
        target: target(&label),
        opts,
        profile: &profile,
    };
    let raw = walk
        .within_deadline(walk.run(app, root.unwrap_or(ROOT_PATH)))
        .await?;
    Ok(walk
        .finish(app, raw.recs, raw.truncated, &raw.cache, window, started)
        .await)
}

/// What a capture reads as: `capturing gtk3-widget-factory (pid 42)`.
pub(crate) fn target(label: &str) -> Target<'_> {
    Target {
        doing: "capturing",
        who: label,
    }
}

/// When a capture started, for its snapshot's times.
#[derive(Clone, Copy)]
pub(crate) struct Started {
    pub(crate) at: Instant,
    captured_at_ms: Option<u64>,
}

impl Started {
    pub(crate) fn now() -> Started {
        Started {
            at: Instant::now(),
            captured_at_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_millis() as u64)
                .ok(),
        }
    }
}

/// The records of a whole walk, as read: before any rule of the toolkit
/// or of naming is applied.
pub(crate) struct Raw {
    pub(crate) recs: Vec<Rec>,
    pub(crate) truncated: bool,
    /// The application's cache, by object path (empty without one).
    pub(crate) cache: Cache,
}

/// How many more whole walks a capture takes, at most, while the
/// application fills in what it first answered (see [`Walk::run`]).
const FILL_IN_WALKS: usize = 3;
/// How many objects of each role a capture asks the name of again to
/// tell whether the application was filling in (see [`Walk::run`]).
const FILL_IN_PROBES: usize = 8;

/// One walk of an application's objects.
pub(crate) struct Walk<'a> {
    pub(crate) bus: &'a Bus,
    pub(crate) target: Target<'a>,
    pub(crate) opts: &'a CaptureOptions,
    /// The application's toolkit and its rules.
    pub(crate) profile: &'a Profile,
}

impl Walk<'_> {
    /// `work`, given up with [`Error::Deadline`] past the capture's
    /// deadline.
    pub(crate) async fn within_deadline<T>(
        &self,
        work: impl std::future::Future<Output = Result<T>>,
    ) -> Result<T> {
        match tokio::time::timeout(self.opts.deadline, work).await {
            Ok(result) => result,
            Err(_) => Err(Error::Deadline {
                target: self.target.who.to_owned(),
                after: self.opts.deadline,
                nodes: 0,
            }),
        }
    }

    /// The snapshot of records read (whole or in part): the rules of the
    /// toolkit and of naming applied to them, then the tree built.
    pub(crate) async fn finish(
        &self,
        app: &AppRef,
        mut recs: Vec<Rec>,
        truncated: bool,
        cache: &Cache,
        window: Option<String>,
        started: Started,
    ) -> Snapshot {
        let profile = self.profile;
        application_states_say_nothing(&mut recs);
        profile.fix_up_names(&mut recs);
        self.name_from_labels(&mut recs, cache).await;
        if profile.hides_pages(&recs) {
            self.hidden_pages(&mut recs).await;
        }
        profile.fix_up(&mut recs);
        if profile.has_roomless_menu_bars() {
            leave_out_roomless_menu_bars(&mut recs);
        }
        if profile.misplaces_root_panes() {
            let held = crate::toolkit::root_panes(&recs)
                .into_iter()
                .filter(|&(pane, holder)| recs[pane].bus == recs[holder].bus)
                .map(|(pane, holder)| {
                    let (pane, holder) = (&recs[pane], &recs[holder]);
                    (pane.bus.clone(), pane.path.clone(), holder.path.clone())
                });
            self.bus.note_holders(held);
        }
        let in_place = profile.fix_up_places(&mut recs);
        self.bus.note_in_place(
            in_place
                .into_iter()
                .map(|i| (recs[i].bus.clone(), recs[i].path.clone())),
        );
        name_labels_after_their_text(&mut recs);
        leave_out_repeated_labels(&mut recs);
        if visible::state_sizes(&mut recs) {
            self.bus.mark_holds_huge(&app.bus_name);
        }
        let tree = assemble(recs);
        let meta = Meta {
            source: "atspi".into(),
            app: Some(app.name.clone()),
            pid: app.pid,
            window,
            captured_at_ms: started.captured_at_ms,
            capture_ms: Some(started.at.elapsed().as_secs_f64() * 1000.0),
            truncated,
        };
        Snapshot::new(meta, tree)
    }

    /// Reads the application's cache, then every object from `root` down;
    /// for a toolkit whose first answers fill in later
    /// ([`Profile::fills_in_silently`]), again while names it gave empty
    /// are given on a second asking (at most [`FILL_IN_WALKS`] more
    /// times).
    pub(crate) async fn run(&self, app: &AppRef, root: &str) -> Result<Raw> {
        let mut raw = self.run_once(app, root).await?;
        if !self.profile.fills_in_silently() {
            return Ok(raw);
        }
        for _ in 0..FILL_IN_WALKS {
            if !self.filling_in(&raw.recs).await {
                break;
            }
            tracing::debug!(
                "{}: names read empty were given when asked again: walked again",
                self.target.who
            );
            raw = self.run_once(app, root).await?;
        }
        Ok(raw)
    }

    /// Whether the application was still filling in what a walk read:
    /// names read empty of the objects that take theirs from what they
    /// hold ([`Profile::names_fill_in`]), at most [`FILL_IN_PROBES`] of
    /// each role, asked again at once, and one given now.
    async fn filling_in(&self, recs: &[Rec]) -> bool {
        let mut per_role: HashMap<Role, usize> = HashMap::new();
        let asked: Vec<&Rec> = recs
            .iter()
            .filter(|r| !r.vanished && r.basic.name.trim().is_empty())
            .filter(|r| {
                let role = Role::from_name(&r.basic.raw_role);
                if !self.profile.names_fill_in(role) {
                    return false;
                }
                let n = per_role.entry(role).or_default();
                *n += 1;
                *n <= FILL_IN_PROBES
            })
            .collect();
        let names = join_all(
            asked
                .iter()
                .map(|r| self.name_of(&r.bus, &r.path, &r.basic.raw_role)),
        )
        .await;
        names
            .into_iter()
            .any(|name| name.is_ok_and(|n| !n.trim().is_empty()))
    }

    /// One walk: the application's cache, then every object from `root`
    /// down.
    async fn run_once(&self, app: &AppRef, root: &str) -> Result<Raw> {
        let cache = if self.opts.use_cache && self.profile.cache_is_safe() {
            self.cache(&app.bus_name).await?
        } else {
            Cache::default()
        };
        let mut recs = vec![Rec {
            bus: app.bus_name.clone(),
            path: root.to_owned(),
            ..Rec::default()
        }];
        let truncated = self
            .levels(&mut recs, vec![(0, 0)], &app.bus_name, &cache)
            .await?;
        Ok(Raw {
            recs,
            truncated,
            cache,
        })
    }

    /// Reads the records `level` names (each with its depth), then their
    /// children, level by level, every call of a level sent at once; new
    /// children are added to `recs`. The root (record 0) must answer; any
    /// other object that vanished meanwhile is marked so. True when a limit
    /// cut the walk.
    pub(crate) async fn levels(
        &self,
        recs: &mut Vec<Rec>,
        mut level: Vec<(usize, usize)>,
        app_bus: &str,
        cache: &Cache,
    ) -> Result<bool> {
        let mut truncated = false;
        while !level.is_empty() {
            // The children the cache holds all of join this level at once:
            // no `GetChildren` for their parent, and no wait for a level of
            // its own.
            let mut listed: Vec<bool> = Vec::new();
            let mut k = 0;
            while k < level.len() {
                let (i, depth) = level[k];
                k += 1;
                let kids = (i != 0
                    && self.profile.cache_lists_children()
                    && recs[i].bus == app_bus
                    && depth < self.opts.max_depth)
                    .then(|| cache.children(&recs[i].path))
                    .flatten()
                    .filter(|_| {
                        cache.get(&recs[i].path).is_some_and(|b| {
                            !b.states.contains(uidelta_model::State::ManagesDescendants)
                        })
                    });
                listed.push(kids.is_some());
                let parent = cache.get(&recs[i].path);
                for path in kids.unwrap_or_default() {
                    if recs.len() >= self.opts.max_nodes {
                        truncated = true;
                        break;
                    }
                    let child = recs.len();
                    // A text run that only says its element's name again is
                    // left out of the tree (see `leave_out_repeated_labels`):
                    // what the cache says of both is enough to tell, so it is
                    // not read.
                    let again = parent
                        .zip(cache.get(path))
                        .filter(|(p, c)| repeats_in_cache(self.profile, p, c))
                        .map(|(_, c)| c.clone());
                    recs.push(Rec {
                        bus: app_bus.to_owned(),
                        path: path.clone(),
                        says_again: again.is_some(),
                        basic: again.clone().unwrap_or_default(),
                        ..Rec::default()
                    });
                    recs[i].children.push(child);
                    if again.is_none() {
                        level.push((child, depth + 1));
                    }
                }
            }
            let fetched = join_all(level.iter().zip(&listed).map(|(&(i, depth), &listed)| {
                let cached = (recs[i].bus == app_bus)
                    .then(|| cache.get(&recs[i].path).cloned())
                    .flatten();
                let descend = depth < self.opts.max_depth && !listed;
                self.node(&recs[i].bus, &recs[i].path, cached, descend, i == 0)
            }))
            .await;
            let mut next = Vec::new();
            for (&(i, depth), result) in level.iter().zip(fetched) {
                let fetched = match result {
                    Ok(f) => f,
                    Err(e) if object_vanished(&e) && i != 0 => {
                        recs[i].vanished = true;
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                if depth >= self.opts.max_depth && fetched.basic.child_count > 0 {
                    truncated = true;
                }
                // Children taken from the cache are in already.
                let children = recs[i].take(fetched);
                for (bus_name, path) in children {
                    if recs.len() >= self.opts.max_nodes {
                        truncated = true;
                        break;
                    }
                    let child = recs.len();
                    recs.push(Rec {
                        bus: bus_name,
                        path: path.as_str().to_owned(),
                        ..Rec::default()
                    });
                    recs[i].children.push(child);
                    next.push((child, depth + 1));
                }
            }
            level = next;
        }
        Ok(truncated)
    }

    /// Gives each nameless field the name of the label that labels it: read
    /// in this walk, else from the cache, else asked for (a label outside
    /// the window captured). A label that cannot be read leaves the field
    /// nameless.
    async fn name_from_labels(&self, recs: &mut [Rec], cache: &Cache) {
        let walked: HashMap<(&str, &str), usize> = recs
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.vanished)
            .map(|(i, r)| ((r.bus.as_str(), r.path.as_str()), i))
            .collect();
        let mut names: Vec<(usize, String)> = Vec::new();
        let mut ask: Vec<(usize, (String, String))> = Vec::new();
        for (i, rec) in recs.iter().enumerate() {
            let Some((bus, path)) = &rec.labelled_by else {
                continue;
            };
            if let Some(&l) = walked.get(&(bus.as_str(), path.as_str())) {
                names.push((i, recs[l].basic.name.clone()));
            } else if let Some(b) = cache.get(path).filter(|_| *bus == recs[0].bus) {
                names.push((i, b.name.clone()));
            } else {
                ask.push((i, (bus.clone(), path.clone())));
            }
        }
        let asked = join_all(ask.iter().map(|(_, (bus, path))| async move {
            let v = self.property(bus, path, accessible::NAME).await;
            v.ok().and_then(|v| String::try_from(v).ok())
        }))
        .await;
        names.extend(
            ask.iter()
                .zip(asked)
                .filter_map(|((i, _), name)| Some((*i, name?))),
        );
        for (i, name) in names {
            let name = name.trim();
            // A field's own name stands (its label is read to be known as
            // saying it again, see `Profile::reads_labels_of_named_fields`).
            let keeps_own = self.profile.reads_labels_of_named_fields()
                && !recs[i].basic.name.trim().is_empty();
            if !name.is_empty() && !keeps_own {
                recs[i].basic.name = name.to_owned();
            }
        }
    }

    /// The application's cache, by object path; empty when it has none.
    /// Marks the pages of stacks and notebooks that are not shown, for a
    /// toolkit that leaves `showing` out and keeps them all `visible` (GTK
    /// 4.8): for each group of siblings in one place (see [`stacked`]),
    /// what the toolkit finds at the centre of that place
    /// (`GetAccessibleAtPoint`, which GTK answers with the deepest widget
    /// drawn there) tells the page shown; the others are in reserve. A
    /// group whose answer lies in none of its pages is left as it is.
    async fn hidden_pages(&self, recs: &mut [Rec]) {
        let parent = parents(recs);
        let groups = gtk4::stacked(recs, &parent);
        if groups.is_empty() {
            return;
        }
        let recs_now: &[Rec] = recs;
        let answers = join_all(groups.iter().map(|&(asked, at, _)| async move {
            let (x, y) = at.center();
            self.call(
                &recs_now[asked].bus,
                &recs_now[asked].path,
                component::GET_ACCESSIBLE_AT_POINT,
                &(x, y, 0u32),
            )
            .await
        }))
        .await;
        let index: HashMap<(&str, &str), usize> = recs
            .iter()
            .enumerate()
            .map(|(i, r)| ((r.bus.as_str(), r.path.as_str()), i))
            .collect();
        let mut reserve = Vec::new();
        for ((_, _, members), answer) in groups.iter().zip(answers) {
            let hit = match answer {
                Ok((bus, path)) => index.get(&(bus.as_str(), path.as_str())).copied(),
                Err(e) => {
                    tracing::debug!("what shows on a stack of pages: {e}");
                    None
                }
            };
            let mut at = hit;
            while let Some(a) = at {
                if members.contains(&a) {
                    reserve.extend(members.iter().copied().filter(|&m| m != a));
                    break;
                }
                at = parent[a];
            }
        }
        for i in reserve {
            recs[i].in_reserve = true;
        }
    }

    async fn cache(&self, bus_name: &str) -> Result<Cache> {
        let items: Result<Vec<CacheItem>> = self
            .bus
            .call(&self.target, bus_name, CACHE_PATH, cache::GET_ITEMS, &())
            .await;
        match items {
            Ok(items) => Ok(Cache::new(bus_name, items)),
            Err(e @ (Error::Timeout { .. } | Error::Gone { .. })) => Err(e),
            Err(e) => {
                tracing::debug!("no usable cache: {e}");
                Ok(Cache::default())
            }
        }
    }

    /// The name of the object at `path`, of `raw_role`, as a walk holds it
    /// (one call).
    pub(crate) async fn name_of(
        &self,
        bus_name: &str,
        path: &str,
        raw_role: &str,
    ) -> Result<String> {
        let name = self.property(bus_name, path, accessible::NAME).await?;
        let mut name = String::try_from(name).unwrap_or_default();
        self.clean_name(raw_role, &mut name);
        Ok(name)
    }

    /// `name`, as read, the name an object of `raw_role` is held by.
    pub(crate) fn clean_name(&self, raw_role: &str, name: &mut String) {
        // Padding that aligns columns (GTK 3 menu items: `"Find      "`)
        // is layout, not name.
        if let Cow::Owned(clean) = normalize_space(name) {
            *name = clean;
        }
        self.profile.clean_name(Role::from_name(raw_role), name);
    }

    /// Reads one object: from `cached` (its cache item) or with the basic
    /// calls, then its bounds, value, attributes and label, and, when
    /// `descend`, its children (or the part of them that shows).
    pub(crate) async fn node(
        &self,
        bus_name: &str,
        path: &str,
        cached: Option<Basic>,
        descend: bool,
        root: bool,
    ) -> Result<Fetched> {
        let mut basic = match cached {
            Some(b) => b,
            None => self.basic(bus_name, path).await?,
        };
        self.clean_name(&basic.raw_role, &mut basic.name);
        // GTK 4's cache gives the application's root no children: the
        // root's are always asked for.
        let wants_children = descend && (basic.child_count != 0 || root);
        // Never `GetChildren` of a container that makes its children on
        // demand and has a great many: only what shows of it is read.
        let manages = basic
            .states
            .contains(uidelta_model::State::ManagesDescendants);
        let children = async {
            let table = basic.has(TABLE);
            let count = basic.child_count;
            let part = if wants_children && manages {
                visible::part(
                    self.bus,
                    &self.target,
                    bus_name,
                    path,
                    table,
                    count,
                    self.profile.cell_place(),
                )
                .await?
            } else {
                None
            };
            if let Some((cells, shown)) = part {
                Ok((cells, Some(shown)))
            } else if wants_children {
                self.call(bus_name, path, accessible::GET_CHILDREN, &())
                    .await
                    .map(|c| (c, None))
            } else {
                Ok((Vec::new(), None))
            }
        };
        let bounds = async {
            if basic.has(COMPONENT) {
                self.bounds(bus_name, path).await
            } else {
                Ok(None)
            }
        };
        let value = self.value(bus_name, path, &basic);
        let label = self.label_of(bus_name, path, &basic);
        let reads_attributes = self
            .profile
            .reads_attributes(Role::from_name(&basic.raw_role));
        let attributes = async {
            if !reads_attributes {
                return Ok(HashMap::new());
            }
            self.call(bus_name, path, accessible::GET_ATTRIBUTES, &())
                .await
        };
        let selection = self.selection(bus_name, path, &basic);
        let (children, bounds, value, attributes, labelled_by, selection) =
            futures_util::join!(children, bounds, value, attributes, label, selection);
        let mut attributes: Vec<(String, String)> = attributes?.into_iter().collect();
        attributes.retain(|(k, _)| k != uidelta_model::SELECTION);
        let value = crate::embedded::without_embedded_objects(value?);
        if let Some(selected) = selection.and_then(|s| selected_text(value.as_deref(), s)) {
            attributes.push((uidelta_model::SELECTION.to_owned(), selected));
        }
        attributes.sort();
        let (children, shown) = children?;
        Ok(Fetched {
            basic,
            children,
            shown,
            bounds: bounds?,
            value,
            attributes,
            labelled_by,
        })
    }

    /// Where the first stretch of text selected in an editable field
    /// starts and ends (character offsets), when one is: typing replaces
    /// it, and an agent must see it to know. Only fields (not a document's
    /// paragraphs, a terminal or a password, whose text is never shown),
    /// spin buttons among them (GTK selects their figures as they take the
    /// keyboard); `None` when nothing is selected or the field does not say.
    async fn selection(&self, bus_name: &str, path: &str, basic: &Basic) -> Option<(usize, usize)> {
        let role = Role::from_name(&basic.raw_role);
        let field = matches!(role, Role::Entry | Role::Text | Role::SpinButton)
            && basic.states.contains(uidelta_model::State::Editable)
            && basic.has(TEXT);
        if !field {
            return None;
        }
        let n = self
            .call(bus_name, path, text::GET_N_SELECTIONS, &())
            .await
            .ok()?;
        if n < 1 {
            return None;
        }
        let (a, b) = self
            .call(bus_name, path, text::GET_SELECTION, &(0,))
            .await
            .ok()?;
        let (start, end) = (
            usize::try_from(a.min(b)).ok()?,
            usize::try_from(a.max(b)).ok()?,
        );
        (start < end).then_some((start, end))
    }

    /// An object's children, as it lists them.
    pub(crate) async fn children(&self, bus_name: &str, path: &str) -> Result<Vec<ObjRef>> {
        self.call(bus_name, path, accessible::GET_CHILDREN, &())
            .await
    }

    /// An object's states.
    pub(crate) async fn states(
        &self,
        bus_name: &str,
        path: &str,
    ) -> Result<uidelta_model::StateSet> {
        let states = self
            .call(bus_name, path, accessible::GET_STATE, &())
            .await?;
        Ok(state::states(&states))
    }

    /// An object's parent.
    pub(crate) async fn parent(&self, bus_name: &str, path: &str) -> Result<crate::NodeAddr> {
        let parent = self.property(bus_name, path, accessible::PARENT).await?;
        let parent: (String, zbus::zvariant::OwnedObjectPath) =
            parent.try_into().map_err(|_| Error::Call {
                doing: self.target.doing,
                target: self.target.who.to_owned(),
                method: "Get",
                detail: format!("the parent of {path} has an unexpected type"),
            })?;
        Ok(parent.into())
    }

    /// An object's bounds on the screen; `None` where GTK reports a hidden
    /// widget (at `G_MININT`).
    pub(crate) async fn bounds(&self, bus_name: &str, path: &str) -> Result<Option<Rect>> {
        let (x, y, w, h) = self
            .call(bus_name, path, component::GET_EXTENTS, &(0u32,))
            .await?;
        Ok((x != i32::MIN && y != i32::MIN).then_some(Rect::new(x, y, w, h)))
    }

    /// The first `labelled-by` target of a field that has no name of its
    /// own, or of a combo box its toolkit names after its option, or of any
    /// field in a toolkit whose labels stand apart from their fields
    /// ([`Profile::reads_labels_of_named_fields`]); `None` for everything
    /// else, and when the relations cannot be read (the
    /// field then stays nameless, as before).
    async fn label_of(
        &self,
        bus_name: &str,
        path: &str,
        basic: &Basic,
    ) -> Option<(String, String)> {
        let by_choice = self.profile.names_combo_boxes_by_choice()
            && Role::from_name(&basic.raw_role) == Role::ComboBox;
        let wanted = basic.name.trim().is_empty()
            || by_choice
            || self.profile.reads_labels_of_named_fields();
        if !wanted || !is_field(basic) {
            return None;
        }
        let relations = self
            .call(bus_name, path, accessible::GET_RELATION_SET, &())
            .await;
        let relations = match relations {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!("relations of {bus_name}{path} not read: {e}");
                return None;
            }
        };
        relations
            .into_iter()
            .filter(|(kind, _)| *kind == LABELLED_BY)
            .flat_map(|(_, targets)| targets)
            .map(|(bus, path)| (bus, path.as_str().to_owned()))
            .next()
    }

    async fn basic(&self, bus_name: &str, path: &str) -> Result<Basic> {
        // The name, the description and the child count: in one
        // `Properties.GetAll` where the profile says so, else one `Get`
        // each (Qt 5.15 crashes, SIGSEGV, on `GetAll` of the Accessible
        // interface). One that `GetAll` leaves out is asked for alone.
        let named = async {
            let mut all = if self.profile.answers_get_all() {
                self.call(bus_name, path, properties::GET_ALL, &(ACCESSIBLE,))
                    .await?
            } else {
                HashMap::new()
            };
            let mut read = |property: Property| {
                let known = all.remove(property.name);
                async move {
                    match known {
                        Some(v) => Ok(v),
                        None => self.property(bus_name, path, property).await,
                    }
                }
            };
            let (name, description, child_count) = futures_util::join!(
                read(accessible::NAME),
                read(accessible::DESCRIPTION),
                read(accessible::CHILD_COUNT)
            );
            Ok::<_, Error>((name?, description?, child_count?))
        };
        let text = |v: OwnedValue| String::try_from(v).unwrap_or_default();
        // The role number, as the cache gives it: GTK 4's `GetRoleName`
        // answers its own names (`widget`) where the number says `filler`,
        // and an element read both ways would seem to change role.
        let role = self.call(bus_name, path, accessible::GET_ROLE, &());
        let states = self.call(bus_name, path, accessible::GET_STATE, &());
        let ifaces = self.call(bus_name, path, accessible::GET_INTERFACES, &());
        let (named, role, states, ifaces) = futures_util::join!(named, role, states, ifaces);
        let (name, description, child_count) = named?;
        Ok(Basic {
            raw_role: state::role_name(role?),
            name: text(name),
            description: text(description),
            states: state::states(&states?),
            interfaces: ifaces?,
            child_count: i32::try_from(child_count).unwrap_or(-1),
        })
    }

    async fn value(&self, bus_name: &str, path: &str, basic: &Basic) -> Result<Option<String>> {
        let role = Role::from_name(&basic.raw_role);
        let texty = matches!(
            role,
            Role::Entry | Role::Text | Role::PasswordText | Role::Terminal | Role::DocumentText
        ) || basic.states.contains(uidelta_model::State::Editable)
            || says_its_text(role, &basic.name, basic.child_count);
        if texty && basic.has(TEXT) {
            let limit = self.opts.text_limit;
            // A cell's text is short, and read whole (`-1`, the end):
            // LibreOffice answers an end past its text with nothing.
            let end = if role == Role::TableCell { -1 } else { limit };
            let text = self.text(bus_name, path, end).await?;
            if !text.is_empty() || self.profile.texts_whole() {
                return Ok(Some(screen_of(role, text)));
            }
            // Qt answers an end past the text with nothing at all, so an
            // empty answer is asked again within the length, unless the
            // toolkit is known not to (an empty field is common: Chromium's
            // forms, and the extra call per field is measurable there).
            let count = self.property(bus_name, path, text::CHARACTER_COUNT).await?;
            let count = i32::try_from(count).unwrap_or(0).min(limit);
            if count <= 0 {
                return Ok(Some(text));
            }
            let text = self.text(bus_name, path, count).await?;
            // Qt gives a password field's length but never its text: one
            // bullet per character, which is what the snapshot shows of any
            // password (see `uidelta_model::redact`), so typing into it is
            // still a change.
            if text.is_empty() && role == Role::PasswordText {
                let length = usize::try_from(count).unwrap_or(0);
                return Ok(Some(uidelta_model::redact(&"x".repeat(length))));
            }
            return Ok(Some(screen_of(role, text)));
        }
        if basic.has(VALUE) && self.profile.value_says_something(role) {
            let v = self.property(bus_name, path, value::CURRENT_VALUE).await?;
            return Ok(f64::try_from(v).ok().map(number));
        }
        Ok(None)
    }

    /// The first `end` characters of an object's text.
    async fn text(&self, bus_name: &str, path: &str, end: i32) -> Result<String> {
        self.call(bus_name, path, text::GET_TEXT, &(0i32, end))
            .await
    }

    async fn call<A, R>(
        &self,
        bus_name: &str,
        path: &str,
        method: Method<A, R>,
        args: &A,
    ) -> Result<R>
    where
        A: serde::Serialize + zbus::zvariant::DynamicType,
        R: serde::de::DeserializeOwned + zbus::zvariant::Type,
    {
        self.bus
            .call(&self.target, bus_name, path, method, args)
            .await
    }

    async fn property(&self, bus_name: &str, path: &str, property: Property) -> Result<OwnedValue> {
        self.bus
            .property(&self.target, bus_name, path, property)
            .await
    }
}

/// The text of `value` between character offsets `start` and `end`, cut
/// to [`SELECTION_CHARS`]; `None` when it has none there (a value read
/// short of the selection, or none at all).
fn selected_text(value: Option<&str>, (start, end): (usize, usize)) -> Option<String> {
    let mut chars = value?.chars().skip(start);
    let mut out: String = chars
        .by_ref()
        .take((end - start).min(SELECTION_CHARS))
        .collect();
    if out.is_empty() {
        return None;
    }
    if end - start > SELECTION_CHARS && chars.next().is_some() {
        out.push('…');
    }
    Some(out)
}

/// What [`Walk::node`] read of one object.
pub(crate) struct Fetched {
    basic: Basic,
    children: Vec<ObjRef>,
    shown: Option<visible::Shown>,
    bounds: Option<Rect>,
    value: Option<String>,
    attributes: Vec<(String, String)>,
    labelled_by: Option<(String, String)>,
}

/// Whether an object is a field a label names: text entries, spin buttons,
/// sliders, combo boxes, and anything editable.
fn is_field(basic: &Basic) -> bool {
    matches!(
        Role::from_name(&basic.raw_role),
        Role::Entry
            | Role::Text
            | Role::PasswordText
            | Role::SpinButton
            | Role::Slider
            | Role::ComboBox
    ) || basic.states.contains(uidelta_model::State::Editable)
}

/// `0.5`, `50` (no `.0`).
/// A value as text: whole numbers without a fraction, others to nine
/// decimals at most, so that what arithmetic leaves behind
/// (`0.9500000000000003` for twenty steps of 0.05) reads as meant (`0.95`).
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    if !v.is_finite() || v.abs() >= 1e15 {
        return format!("{v}");
    }
    let fixed = format!("{v:.9}");
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    match trimmed {
        "-0" | "" => "0".to_owned(),
        t => t.to_owned(),
    }
}

/// A terminal's text is its screen, each row padded with blanks and the
/// rows below the last line written empty (VTE's 24 rows after a prompt):
/// the padding says nothing, and is left out. Other texts as they are.
fn screen_of(role: Role, text: String) -> String {
    if role != Role::Terminal {
        return text;
    }
    let rows: Vec<&str> = text.lines().map(str::trim_end).collect();
    let written = rows
        .iter()
        .rposition(|r| !r.is_empty())
        .map_or(0, |i| i + 1);
    rows[..written].join("\n")
}
mod rules;
pub(crate) use rules::*;

/// Records for the tests of capture rules, here and in [`crate::toolkit`].
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;
    use uidelta_model::{State, StateSet};

    /// Records in walk order: (role, states, children).
    pub(crate) fn recs(spec: &[(&str, &[State], &[usize])]) -> Vec<Rec> {
        spec.iter()
            .map(|(role, states, children)| Rec {
                basic: Basic {
                    raw_role: (*role).to_owned(),
                    states: StateSet::of(states),
                    ..Basic::default()
                },
                children: children.to_vec(),
                ..Rec::default()
            })
            .collect()
    }

    /// A record: role, name, children.
    pub(crate) fn rec(role: &str, name: &str, children: &[usize]) -> Rec {
        Rec {
            basic: Basic {
                raw_role: role.to_owned(),
                name: name.to_owned(),
                ..Basic::default()
            },
            children: children.to_vec(),
            ..Rec::default()
        }
    }

    pub(crate) fn has(r: &Rec, s: State) -> bool {
        r.basic.states.contains(s)
    }
}

#[cfg(test)]
mod tests;
