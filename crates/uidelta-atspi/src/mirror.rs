//! A live mirror of an application's tree: after one whole walk, the
//! records are kept, and the application's own events say which objects
//! to read again. A capture then costs what changed, not what exists.
//!
//! The events are trusted only as far as they go:
//! - an object an event names is read again whole (its basic properties,
//!   bounds, value, attributes, label, the text selected in a field: a
//!   `text-selection-changed` names it; a caret moving reads nothing), and, when it moved or changed
//!   size without saying so, the bounds of everything below it (a
//!   LibreOffice window worked in again moves its content without
//!   `bounds-changed`); `children-changed` reads its children again too
//!   (those already known keep their records, new ones are walked whole);
//! - `bounds-changed` reads the object's bounds, then those of everything
//!   below it if they changed, else those of its cells and tabs (see
//!   `follows_silently`); a box's also reads its children again where
//!   boxes gain children silently
//!   ([`crate::Profile::boxes_gain_children_silently`]: GTK 3's grids),
//!   as do the boxes that show in a window that changed and has said
//!   nothing of a layout since (it grows at its next frame, which may wait
//!   on a compositor long after the change);
//!   one that carries the rectangle the object's last one carried reads
//!   nothing where the toolkit sends it for every layout, changed or not
//!   ([`crate::Profile::restated_bounds_say_nothing`]: GTK 3) but the
//!   place of the window holding the object (a window moved on the
//!   display lays its widgets out again): one that moved has the bounds
//!   of everything in it read again;
//! - what moved (its bounds, read again, changed) has its states read
//!   again: GTK 3 says `showing` only of what lies on screen within its
//!   parents, and a move changes that without an event (a popover's
//!   buttons as it grows open); so has what said it moved, even to where
//!   the mirror already holds it (its states may have been read before
//!   the move and its bounds after: see `states_follow`);
//! - `showing`, `visible`, `sensitive` or `enabled` changing reads again
//!   everything below the object, whose states follow it without events;
//!   showing or hiding also reads its parent's children again (it may have
//!   moved among them);
//! - a table's rows or model, or a selection, changing reads again
//!   everything below the object; a selection changing reads again the
//!   combo boxes that hold it (named after the item chosen);
//! - the states of the siblings of a changed object and of each of its
//!   ancestors are read again (a list box makes all its rows selectable);
//!   a scroll bar's value changing reads the bounds of everything in its
//!   scroll pane again, and what started or stopped showing has the bounds
//!   of all in it read again at the next capture and at every one until a
//!   second after anything in it last moved (a stack slides its page into
//!   place without events; on a busy machine a revealer's slide outlasts a
//!   second);
//! - on any change, the states of what said it had the focus are read
//!   again (focus moving to another window sends nothing for the object
//!   that lost it), and so are those of every object that says it is
//!   transient (a cell a view makes on demand, whose focus moves without
//!   events);
//! - a container that manages its descendants (a spreadsheet) has what
//!   shows of it read again on every capture, as scrolling says nothing;
//! - what says it is busy or stale (Gecko's documents while they load)
//!   changes without events until it says it is done: it is read again at
//!   every capture, with the children of what is busy, and the strict
//!   check takes what differs of it (and below a busy one) as work still
//!   under way;
//! - what a toolkit changes without events
//!   (`Profile::reads_again`: LibreOffice's paragraphs, the cell
//!   under Calc's cursor) is read again at every capture;
//! - what a toolkit renames without events
//!   (`Profile::renames_silently`: GTK 2's menu items) has its name read
//!   (one call each) at every capture after a change, and is read again
//!   where it is another;
//! - what a toolkit lays out again without `bounds-changed`
//!   ([`crate::Profile::laid_out_silently`]: the parts of LibreOffice's
//!   windows) has its bounds read at every capture, and, where they
//!   changed, those of everything below;
//! - for a toolkit that lays out after it announces
//!   ([`crate::Profile::places_late`]: Gecko), what has no place yet has
//!   its bounds read at every capture;
//! - an object whose states, read again, now say it is defunct, or hold
//!   none where it had some, was replaced without a word yet: the tree is
//!   walked whole;
//! - an object the mirror does not hold, named by an event, is placed by
//!   climbing its parents to one it holds, whose children are read again;
//! - the whole tree is walked again when the mirror has no base, when
//!   more objects were named than [`MAX_MARKS`] or more than a quarter of
//!   the tree is to be read again (a whole walk is then cheaper), when the
//!   base is older than [`MAX_AGE`] or was cut by a limit, until two
//!   whole walks in a row read the same tree for a toolkit whose first
//!   answers fill in without events
//!   ([`crate::Profile::fills_in_silently`]: Gecko), and for a
//!   toolkit whose profile does not vouch for its events
//!   ([`crate::Profile::mirrors`]).
//!
//! Before a capture the application is pinged over the bus, and every
//! event that arrived before its answer is taken into account: the bus
//! keeps one sender's messages in order, so no change the application
//! announced before answering is missed.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use uidelta_model::{NodeId, Rect, Role, Snapshot, State, StateSet};

use crate::actions::NodeAddr;
use crate::bus::{object_vanished, Bus};
use crate::capture::{
    is_window_rec, parents, target, Cache, CaptureOptions, Rec, Started, Walk, ROOT_PATH,
};
use crate::error::Result;
use crate::events::{subscribe_with, Subscription, UiEvent};
use crate::interfaces::COMPONENT;
use crate::AppRef;
pub use uidelta_model::compare::{differences, Difference};

/// Most objects events may name between two captures; past that the tree
/// is walked whole again (a change that big costs a whole walk anyway).
pub const MAX_MARKS: usize = 2_000;
/// Oldest a mirror's whole walk may be before the next capture walks the
/// whole tree again.
pub const MAX_AGE: Duration = Duration::from_secs(120);
/// How long the ping before a capture may take; an application that does
/// not answer in time is walked whole.
const PING: Duration = Duration::from_secs(2);

/// How many times the events since a capture are looked at for what
/// explains its differences from a whole walk, and how far apart (see
/// [`Mirror::explains`]).
const EXPLAIN_ROUNDS: usize = 3;
const EXPLAIN_PAUSE: Duration = Duration::from_millis(250);

/// Why a capture through a [`Mirror`] walks the whole tree when its
/// toolkit's events are not vouched for (see [`crate::Profile::mirrors`]):
/// every capture of such an application.
pub const NOT_TRUSTED: &str = "events not trusted for this toolkit";

/// How a capture through a [`Mirror`] was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// The whole tree was walked, for the reason given.
    Whole(&'static str),
    /// Only what events named was read again: this many objects, of which
    /// so many were new.
    Part {
        /// Objects read again.
        reread: usize,
        /// Objects whose bounds only were read again.
        moved: usize,
        /// Objects read for the first time.
        new: usize,
    },
}

/// What events named since the last capture.
#[derive(Debug, Default)]
struct Marks {
    /// Objects to read again.
    nodes: HashSet<NodeAddr>,
    /// Objects whose children to read again.
    children: HashSet<NodeAddr>,
    /// Objects below which everything is read again.
    below: HashSet<NodeAddr>,
    /// Objects that moved or changed size: their bounds, and those of
    /// everything below them, are read again.
    moved: HashSet<NodeAddr>,
    /// Objects whose every `bounds-changed` since the last capture carried
    /// the rectangle their one before had carried: taken as moved only for
    /// a toolkit whose rectangles say nothing new when restated (see
    /// [`crate::Profile::restated_bounds_say_nothing`]).
    restated: HashSet<NodeAddr>,
    /// Windows whose place is read again: those that hold an object whose
    /// rectangle was restated (see [`Mirror::capture`]); one that moved
    /// has everything in it placed again.
    windows: HashSet<NodeAddr>,
    /// Objects whose selection changed: the combo boxes that hold them
    /// are read again.
    chosen: HashSet<NodeAddr>,
    /// Too many were named: the next capture walks the whole tree.
    overflow: bool,
    /// Events noted, counted: the order of the two below.
    noted: u64,
    /// When each object last said it changed (anything but its place),
    /// and when it last said it was laid out (`bounds-changed`), in
    /// [`Marks::noted`]'s count: a window holding a change later than its
    /// last layout has not been laid out since (see [`unlaid_windows`]).
    changed_last: HashMap<NodeAddr, u64>,
    laid_last: HashMap<NodeAddr, u64>,
}

impl Marks {
    /// Whether these marks cover every one of `differences` (see
    /// [`Mirror::explains`]): `recs` and `index` are the mirror's records,
    /// `whole` the walk that differs; `also_moved` are objects taken as
    /// moved for what restated its rectangle (see
    /// [`Mirror::moved_for_restated`]).
    fn cover(
        &self,
        recs: &[Rec],
        index: &HashMap<NodeAddr, usize>,
        differences: &[Difference],
        whole: &Snapshot,
        also_moved: &HashSet<NodeAddr>,
    ) -> bool {
        if self.overflow {
            return true;
        }
        let parent = parents(recs);
        let tree = whole.tree();
        let in_whole: HashMap<&str, NodeId> = tree
            .ids()
            .filter_map(|id| tree.node(id).identity.as_deref().map(|i| (i, id)))
            .collect();
        // The node itself, named by any event, is explained whatever
        // differs of it.
        // One laid out again after the capture, even in place (its
        // rectangle restated), was still being worked on, and so was what
        // is in it: a stack's page sliding in (its window moves, its
        // rectangle in it stays), a popover's buttons while it opens.
        let moved = |a: &NodeAddr| {
            self.moved.contains(a) || self.restated.contains(a) || also_moved.contains(a)
        };
        let named = |a: &NodeAddr| {
            self.nodes.contains(a)
                || self.children.contains(a)
                || self.below.contains(a)
                || moved(a)
        };
        differences.iter().all(|d| {
            let Some(node) = NodeAddr::from_identity(&d.identity) else {
                return false;
            };
            if named(&node) {
                return true;
            }
            // What the mirror holds as busy or stale may change without a
            // word, until it says it is done: it, and what is in a busy
            // one, are read again at every capture.
            let unsettled_at = |i: usize, itself: bool| {
                let s = &recs[i].basic.states;
                s.contains(State::Busy) || itself && s.contains(State::Stale)
            };
            // Something above it explains only what its event says of what
            // is below: everything (a subtree to read again), which
            // objects are there and where (its children changed), or
            // where they are on screen (it moved). A window going inactive
            // says nothing of what is in it.
            let structure = matches!(d.field, "presence" | "place");
            let named = |a: &NodeAddr| {
                self.below.contains(a)
                    || (structure && self.children.contains(a))
                    || (d.is_bounds() && moved(a))
            };
            // Not held: only in the whole walk, new since; what holds it
            // there, up to something held, is new too or was named.
            let held = match index.get(&node) {
                Some(&held) => held,
                None => {
                    let mut at = in_whole
                        .get(d.identity.as_str())
                        .and_then(|&id| tree.parent(id));
                    loop {
                        let Some(id) = at else { return false };
                        let Some(a) = tree
                            .node(id)
                            .identity
                            .as_deref()
                            .and_then(NodeAddr::from_identity)
                        else {
                            return false;
                        };
                        if named(&a) {
                            return true;
                        }
                        if let Some(&held) = index.get(&a) {
                            break held;
                        }
                        at = tree.parent(id);
                    }
                }
            };
            if named(&addr(&recs[held])) {
                return true;
            }
            let mut at = Some(held);
            let mut itself = index.contains_key(&node);
            while let Some(i) = at {
                if unsettled_at(i, itself) {
                    return true;
                }
                itself = false;
                at = parent[i];
            }
            // Something above it changed (new or gone objects, a whole
            // subtree): its nearest held ancestor, then theirs.
            let mut at = parent[held];
            while let Some(i) = at {
                if named(&addr(&recs[i])) {
                    return true;
                }
                at = parent[i];
            }
            false
        })
    }
}

/// What one event says must be read again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mark {
    /// Nothing: the event changes nothing a snapshot holds.
    None,
    /// The object itself.
    Node,
    /// The object and its list of children.
    Children,
    /// The object and everything below it.
    Below,
    /// The bounds of the object and of everything below it.
    Moved,
}

/// States that the objects below one follow without events of their own:
/// a container hidden or made insensitive (GTK 3 and GTK 2 send the change
/// for the container only).
const INHERITED: [&str; 4] = ["showing", "visible", "sensitive", "enabled"];

/// A table's rows or model changing: its cells are made again (GTK 3's tree
/// views send these, not `children-changed`, when a row expands). And a
/// selection changing: what the container shows of it changes with it
/// (GTK 3's combo box shows the item chosen in a child, which says
/// nothing).
const TABLE_CHANGES: [&str; 7] = [
    "object:selection-changed",
    "object:row-inserted",
    "object:row-deleted",
    "object:row-reordered",
    "object:column-inserted",
    "object:column-deleted",
    "object:model-changed",
];

/// What the event named `kind` asks to read again (see the module's
/// rules).
pub(crate) fn mark_of(kind: &str) -> Mark {
    if kind.starts_with("object:children-changed") {
        Mark::Children
    } else if kind.starts_with("object:bounds-changed") {
        Mark::Moved
    } else if TABLE_CHANGES.iter().any(|t| kind.starts_with(t))
        || INHERITED
            .iter()
            .any(|s| kind.strip_prefix("object:state-changed:") == Some(s))
    {
        Mark::Below
    } else if kind.starts_with("object:text-caret-moved") {
        Mark::None
    } else {
        Mark::Node
    }
}

impl Marks {
    /// Takes `event` into account; `restates` says that it is a
    /// `bounds-changed` carrying the rectangle the object's last one
    /// carried.
    fn note(&mut self, event: &UiEvent, restates: bool) {
        if self.overflow {
            return;
        }
        let mark = mark_of(&event.kind);
        if mark != Mark::None {
            self.noted += 1;
            let last = match mark {
                Mark::Moved => &mut self.laid_last,
                _ => &mut self.changed_last,
            };
            last.insert(event.source.clone(), self.noted);
        }
        let set = match mark {
            Mark::None => return,
            Mark::Node => &mut self.nodes,
            Mark::Children => &mut self.children,
            Mark::Below => &mut self.below,
            Mark::Moved if restates && !self.moved.contains(&event.source) => &mut self.restated,
            Mark::Moved => {
                self.restated.remove(&event.source);
                &mut self.moved
            }
        };
        set.insert(event.source.clone());
        if event.kind.starts_with("object:selection-changed") {
            self.chosen.insert(event.source.clone());
        }
        let held = self.nodes.len()
            + self.children.len()
            + self.below.len()
            + self.moved.len()
            + self.restated.len();
        if held > MAX_MARKS {
            *self = Marks {
                overflow: true,
                ..Marks::default()
            };
        }
    }
}

/// The rectangle each object's last `bounds-changed` carried.
#[derive(Debug, Default)]
struct Rects(HashMap<NodeAddr, [i32; 4]>);

/// Most objects whose rectangles [`Rects`] keeps; past that it starts
/// again (an object then restates nothing until its next event).
const MAX_RECTS: usize = 100_000;

impl Rects {
    /// Whether `event` is a `bounds-changed` carrying the rectangle the
    /// last one of its object carried; keeps its rectangle.
    fn restates(&mut self, event: &UiEvent) -> bool {
        let Some(rect) = event.rect else {
            return false;
        };
        if mark_of(&event.kind) != Mark::Moved {
            return false;
        }
        if self.0.len() >= MAX_RECTS && !self.0.contains_key(&event.source) {
            self.0.clear();
        }
        self.0.insert(event.source.clone(), rect) == Some(rect)
    }
}

/// Most objects unknown to the mirror that events may name between two
/// captures (each costs a walk up its parents); past that the tree is
/// walked whole.
const MAX_UNKNOWN: usize = 64;
/// Most parents walked up from an unknown object to one the mirror holds.
const MAX_CLIMB: usize = 64;

/// Why a read in part did not answer.
enum Refresh {
    /// The tree is to be walked whole instead, for this reason.
    Whole(&'static str),
    /// A call failed.
    Failed(crate::Error),
}

impl Marks {
    /// Whether nothing but moves was named.
    fn is_empty(&self) -> bool {
        self.nodes.is_empty() && self.children.is_empty() && self.below.is_empty()
    }

    /// Whether nothing at all was named, not even a move.
    fn is_silent(&self) -> bool {
        self.is_empty()
            && self.moved.is_empty()
            && self.restated.is_empty()
            && self.windows.is_empty()
            && self.chosen.is_empty()
    }
}

/// The top-level window each record is in (the child of the root it
/// descends from; none for the root), for records in walk order (a parent
/// before its children).
fn windows_of(parent: &[Option<usize>]) -> Vec<Option<usize>> {
    let mut window = vec![None; parent.len()];
    for i in 0..parent.len() {
        window[i] = match parent[i] {
            Some(0) => Some(i),
            Some(p) if p < i => window[p],
            _ => None,
        };
    }
    window
}

/// The windows (of each record, `windows`: see [`windows_of`]) holding an
/// object that said it changed later than anything in the window said it
/// was laid out, by `marks`.
fn unlaid_windows(
    windows: &[Option<usize>],
    index: &HashMap<NodeAddr, usize>,
    marks: &Marks,
) -> HashSet<usize> {
    let last = |of: &HashMap<NodeAddr, u64>| {
        let mut last: HashMap<usize, u64> = HashMap::new();
        for (a, &n) in of {
            if let Some(w) = index
                .get(a)
                .and_then(|&i| windows.get(i).copied().flatten())
            {
                let at = last.entry(w).or_default();
                *at = (*at).max(n);
            }
        }
        last
    };
    let laid = last(&marks.laid_last);
    last(&marks.changed_last)
        .into_iter()
        .filter(|(w, changed)| laid.get(w).is_none_or(|laid| laid < changed))
        .map(|(w, _)| w)
        .collect()
}

/// Whether two walks read the same objects, with the same names, values
/// and states, in the same order.
fn same_tree(a: &[Rec], b: &[Rec]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            a.path == b.path
                && a.children == b.children
                && a.basic.name == b.basic.name
                && a.basic.states == b.basic.states
                && a.value == b.value
        })
}

/// The kept records of one application's tree, from one root, with the
/// events that say what changed since.
pub struct Mirror {
    app: AppRef,
    root: String,
    /// The records, in walk order (breadth first from the root); empty
    /// until the first capture.
    recs: Vec<Rec>,
    /// Where each object's record is.
    index: HashMap<NodeAddr, usize>,
    /// When the tree was last walked whole.
    walked: Option<Instant>,
    /// Whether a limit cut the last whole walk.
    truncated: bool,
    /// The last whole walk read another tree than the one before it, of a
    /// toolkit whose first answers fill in without events
    /// ([`crate::Profile::fills_in_silently`]): walked whole again.
    filling: bool,
    marks: Arc<Mutex<Marks>>,
    events: Subscription,
    /// Objects that started or stopped showing, when they did, and when
    /// something in them last moved: they may still be sliding into place
    /// (a stack's transition moves its page without events), so the bounds
    /// of everything in them are read again at the next capture, and at
    /// each one after it within [`SETTLING`] of the last move seen (at most
    /// [`MAX_SLIDE`] after they started).
    settling: Vec<(NodeAddr, Instant, Instant)>,
}

/// How long what started or stopped showing may still slide into place
/// without events after it was last seen moving: GTK's transitions take
/// 250 ms, longer on a busy machine (a revealer's bar in gedit was still
/// 2-5 px from its place past a second, under load).
const SETTLING: Duration = Duration::from_secs(1);

/// The longest anything is followed while it slides.
const MAX_SLIDE: Duration = Duration::from_secs(5);

impl Mirror {
    /// Starts mirroring `app` from `root` (its root when `None`): listens
    /// to its events from now on. The first capture walks the whole tree.
    pub async fn start(bus: &Bus, app: &AppRef, root: Option<&str>) -> Result<Mirror> {
        let marks = Arc::new(Mutex::new(Marks::default()));
        let sink = Arc::clone(&marks);
        let mut said = Rects::default();
        let events = subscribe_with(bus, Some(&app.bus_name), move |event| {
            let restates = said.restates(&event);
            if let Ok(mut marks) = sink.lock() {
                marks.note(&event, restates);
            }
            true
        })
        .await?;
        Ok(Mirror {
            app: app.clone(),
            root: root.unwrap_or(ROOT_PATH).to_owned(),
            recs: Vec::new(),
            index: HashMap::new(),
            walked: None,
            truncated: false,
            filling: false,
            marks,
            events,
            settling: Vec::new(),
        })
    }

    /// The application mirrored.
    pub fn app(&self) -> &AppRef {
        &self.app
    }

    /// The object the mirror's tree starts at.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// Captures the application as [`crate::capture`] would, reading again
    /// only what its events named since the last capture when the rules
    /// allow (see the module); says how it was read.
    pub async fn capture(
        &mut self,
        bus: &Bus,
        window: Option<String>,
        opts: &CaptureOptions,
    ) -> Result<(Snapshot, Reading)> {
        let started = Started::now();
        let label = self.app.label();
        // Every event the application sent before answering is in.
        let answered = bus.answers(&label, &self.app.bus_name, PING).await?;
        self.events.flush().await;
        let pinged = started.at.elapsed();
        let mut marks = match self.marks.lock() {
            Ok(mut marks) => std::mem::take(&mut *marks),
            Err(_) => Marks {
                overflow: true,
                ..Marks::default()
            },
        };
        let bus = &bus.reading(&target(&label), &self.app.bus_name).await;
        let profile = bus.profile(&self.app).await;
        // A rectangle restated says nothing of where the window it is in
        // went (GTK 3 lays a window's widgets out again when the window
        // moves, and their rectangles are relative to it): the places of
        // the windows that hold them are read again instead.
        let moved = self.moved_for_restated(&profile, &marks.restated);
        if profile.restated_bounds_say_nothing() {
            marks.windows = moved;
        } else {
            marks.moved.extend(moved);
        }
        let walk = Walk {
            bus,
            target: target(&label),
            opts,
            profile: &profile,
        };
        let whole = match self.walked {
            None => Some("first capture"),
            Some(_) if !profile.mirrors() => Some(NOT_TRUSTED),
            Some(_) if !answered => Some("the application did not answer a ping"),
            Some(_) if marks.overflow => Some("too many changes"),
            Some(_) if self.truncated => Some("the tree is cut by a limit"),
            Some(at) if at.elapsed() > MAX_AGE => Some("mirror too old"),
            Some(_) if self.filling => Some("the tree was still filling in"),
            Some(_) => None,
        };
        let reading = match whole {
            Some(why) => {
                let raw = walk
                    .within_deadline(walk.run(&self.app, &self.root))
                    .await?;
                // Trusted once a whole walk reads what the last one read.
                self.filling = profile.fills_in_silently()
                    && (self.walked.is_none() || !same_tree(&self.recs, &raw.recs));
                self.recs = raw.recs;
                self.truncated = raw.truncated;
                self.walked = Some(started.at);
                Reading::Whole(why)
            }
            None => {
                let part = tokio::time::timeout(opts.deadline, self.refresh(&walk, &marks)).await;
                match part {
                    Ok(Ok(reading)) => reading,
                    Ok(Err(Refresh::Whole(why))) => {
                        let raw = walk
                            .within_deadline(walk.run(&self.app, &self.root))
                            .await?;
                        self.recs = raw.recs;
                        self.truncated = raw.truncated;
                        self.walked = Some(started.at);
                        Reading::Whole(why)
                    }
                    Ok(Err(Refresh::Failed(e))) => {
                        self.walked = None;
                        return Err(e);
                    }
                    Err(_) => {
                        self.walked = None;
                        return Err(crate::Error::Deadline {
                            target: label.clone(),
                            after: opts.deadline,
                            nodes: 0,
                        });
                    }
                }
            }
        };
        let read = started.at.elapsed();
        self.recs = compact(std::mem::take(&mut self.recs));
        self.index = self
            .recs
            .iter()
            .enumerate()
            .map(|(i, r)| (addr(r), i))
            .collect();
        let compacted = started.at.elapsed();
        let recs = self.recs.clone();
        let at = started.at;
        let snapshot = walk
            .finish(
                &self.app,
                recs,
                self.truncated,
                &Cache::default(),
                window,
                started,
            )
            .await;
        // In milliseconds, to the hundredth.
        let ms = |d: Duration| (d.as_secs_f64() * 100_000.0).round() / 100.0;
        tracing::debug!(
            ping_ms = ms(pinged),
            read_ms = ms(read - pinged),
            compact_ms = ms(compacted - read),
            finish_ms = ms(at.elapsed() - compacted),
            ?reading,
            "mirrored capture of {label}"
        );
        Ok((snapshot, reading))
    }

    /// Reads again what `marks` name, and walks what is new below.
    async fn refresh(
        &mut self,
        walk: &Walk<'_>,
        marks: &Marks,
    ) -> std::result::Result<Reading, Refresh> {
        let parent = parents(&self.recs);
        let mut depth = vec![0usize; self.recs.len()];
        for i in 0..self.recs.len() {
            if let Some(p) = parent[i] {
                depth[i] = depth[p] + 1;
            }
        }
        let windows = windows_of(&parent);
        let mut nodes: BTreeSet<usize> = BTreeSet::new();
        let mut lists: HashSet<usize> = HashSet::new();
        let known = |a: &NodeAddr| self.index.get(a).copied();
        nodes.extend(marks.nodes.iter().filter_map(known));
        for i in marks.children.iter().filter_map(known) {
            nodes.insert(i);
            lists.insert(i);
        }
        // A box that moved or grew may have gained children it did not
        // announce: its children are asked for (one call each, all at
        // once), and a box whose list changed is read again with them. So
        // is one laid out again in place (its rectangle restated): a child
        // may take another's place in it without changing its size.
        //
        // A window that changed and has not been laid out since may hold
        // a box that gained children it did not announce and will grow
        // only when laid out: a toolkit lays a window out at its next
        // frame, and under a compositing window manager on a loaded
        // machine that frame waits on the compositor for a second or more
        // (the print dialog's `File:` rows were missed so, though a whole
        // walk had them). The children of every box that shows in it are
        // asked for.
        if walk.profile.boxes_gain_children_silently() {
            let unlaid = unlaid_windows(&windows, &self.index, marks);
            let boxes: Vec<usize> = marks
                .moved
                .iter()
                .chain(&marks.restated)
                .filter_map(known)
                .chain(
                    (0..self.recs.len())
                        .filter(|&i| windows[i].is_some_and(|w| unlaid.contains(&w)))
                        .filter(|&i| self.recs[i].basic.states.contains(State::Showing)),
                )
                .collect::<BTreeSet<usize>>()
                .into_iter()
                .filter(|&i| !nodes.contains(&i) && !self.recs[i].vanished)
                .filter(|&i| {
                    let r = &self.recs[i];
                    matches!(
                        Role::from_name(&r.basic.raw_role),
                        Role::Filler | Role::Panel
                    ) && !r.basic.states.contains(State::ManagesDescendants)
                })
                .collect();
            if !unlaid.is_empty() {
                tracing::debug!(
                    windows = unlaid.len(),
                    boxes = boxes.len(),
                    "changed and not laid out since: boxes asked for their children"
                );
            }
            let listed = ask_each(&self.recs, &boxes, |bus, path| walk.children(bus, path)).await;
            for (&i, answer) in boxes.iter().zip(listed) {
                let regrown = match answer {
                    Ok(children) => {
                        let known: Vec<NodeAddr> = self.recs[i]
                            .children
                            .iter()
                            .filter(|&&c| !self.recs[c].vanished)
                            .map(|&c| addr(&self.recs[c]))
                            .collect();
                        let now: Vec<NodeAddr> = children.into_iter().map(NodeAddr::from).collect();
                        known != now
                    }
                    // Gone, or not answering: the read below says which.
                    Err(_) => true,
                };
                if regrown {
                    nodes.insert(i);
                    lists.insert(i);
                }
            }
        }
        // A combo box is named after the item chosen in its popup, at any
        // depth (GTK 3: `A - B` > `Albany`), and says nothing when it
        // changes.
        for i in marks.chosen.iter().filter_map(known) {
            let mut at = parent[i];
            while let Some(a) = at {
                if Role::from_name(&self.recs[a].basic.raw_role) == Role::ComboBox {
                    nodes.insert(a);
                }
                at = parent[a];
            }
        }
        for i in marks.below.iter().filter_map(known) {
            // Showing or hiding may move it among its siblings (GTK 3
            // raises a popover it shows to the front of its window's).
            if let Some(p) = parent[i] {
                nodes.insert(p);
                lists.insert(p);
            }
            let mut stack = vec![i];
            while let Some(j) = stack.pop() {
                nodes.insert(j);
                lists.insert(j);
                // A container too big to read whole is read with what
                // shows of it (below): what it held at the last capture is
                // not read one by one (Calc's sheet says its selection
                // changed at every move of the cursor).
                if self.recs[j].shown.is_none() {
                    stack.extend(&self.recs[j].children);
                }
            }
        }
        // Focus moving to another window (a menu popping up) leaves the
        // focused object of the first unfocused without an event of its
        // own, and an object that says it is transient (a cell a view makes
        // on demand: GTK 3's tree and combo cells) gains and loses the focus
        // without events: on any change, the states of both are read again.
        let mut states: Vec<usize> = Vec::new();
        if !marks.is_empty() {
            for (i, r) in self.recs.iter().enumerate() {
                let s = &r.basic.states;
                if s.contains(State::Focused) || s.contains(State::Transient) {
                    states.push(i);
                }
            }
        }
        // What shows of a container too big to read whole moves with
        // scrolling, which says nothing of the container; but what
        // scrolls it says so (a scroll bar's value, Calc's sheet's
        // `visible-data-changed`), as does what edits it: when the
        // application said nothing at all since the last capture, it
        // shows what it showed (reading some 700 cells of Calc's sheet
        // again takes half a second).
        if !marks.is_silent() {
            for (i, r) in self.recs.iter().enumerate() {
                if r.shown.is_some() {
                    nodes.insert(i);
                    lists.insert(i);
                }
            }
        }
        // What says it is busy (a document still loading: Gecko) or stale
        // (what it says may be out of date) changes without events: it is
        // read again at every capture, and what is in a busy one with it.
        for (i, r) in self.recs.iter().enumerate() {
            if unsettled(&r.basic.states) {
                nodes.insert(i);
                if r.basic.states.contains(State::Busy) {
                    lists.insert(i);
                }
            }
        }
        // What a toolkit changes without events is read at every capture.
        nodes.extend(walk.profile.reads_again(&self.recs));
        // What a toolkit renames without a word has its name read (one call
        // each, all at once) whenever anything changed, and is read again
        // where it is another.
        let silent: Vec<usize> = (0..parent.len())
            .filter(|&i| {
                let r = &self.recs[i];
                // One hidden is not in the tree (GAIL's hidden widgets
                // say so when they show).
                !r.vanished
                    && !nodes.contains(&i)
                    && r.basic.states.contains(State::Visible)
                    && walk
                        .profile
                        .renames_silently(Role::from_name(&r.basic.raw_role))
            })
            .collect();
        if !marks.is_empty() && !silent.is_empty() {
            let recs = &self.recs;
            let names = join_all(
                silent
                    .iter()
                    .map(|&i| walk.name_of(&recs[i].bus, &recs[i].path, &recs[i].basic.raw_role)),
            )
            .await;
            for (&i, name) in silent.iter().zip(names) {
                // One gone or not answering: read again, which says so.
                if name.as_deref().map_or(true, |n| n != recs[i].basic.name) {
                    nodes.insert(i);
                }
            }
        }
        // An object the mirror does not hold (made since, without a word
        // to its parent: Chromium's page, loaded into its window) is found
        // through its parents: the nearest one held has its children read
        // again, which walks the new ones.
        let unknown: Vec<&NodeAddr> = marks
            .nodes
            .iter()
            .chain(&marks.children)
            .chain(&marks.below)
            .filter(|a| !self.index.contains_key(*a))
            .collect();
        if unknown.len() > MAX_UNKNOWN {
            return Err(Refresh::Whole("too many new objects"));
        }
        // Reading an object again costs some ten calls; a whole walk about
        // three per object, most of them in the cache's one answer.
        if (nodes.len() + unknown.len()) * 4 > parent.len() {
            return Err(Refresh::Whole("most of the tree changed"));
        }
        let found = join_all(unknown.iter().map(|a| self.held_ancestor(walk, a))).await;
        for i in found.into_iter().flatten() {
            nodes.insert(i);
            lists.insert(i);
        }
        // A change may change its neighbours' states without a word (GTK
        // 3's list box makes every row `selectable` when a switch in one of
        // them changes its selection mode): the states of the siblings of
        // what changed, and of each of its ancestors, are read again.
        let mut near: BTreeSet<usize> = BTreeSet::new();
        for &i in &nodes {
            let mut at = parent.get(i).copied().flatten();
            while let Some(a) = at {
                near.extend(
                    self.recs[a]
                        .children
                        .iter()
                        .copied()
                        .filter(|&c| c < parent.len()),
                );
                at = parent[a];
            }
        }
        states.extend(near);
        states.sort_unstable();
        states.dedup();
        states.retain(|i| !nodes.contains(i));
        if nodes.len() * 4 > parent.len() {
            return Err(Refresh::Whole("most of the tree changed"));
        }
        let level: Vec<usize> = nodes.into_iter().collect();
        let recs = &self.recs;
        let fetched = join_all(level.iter().map(|&i| {
            let descend = lists.contains(&i) && depth[i] < walk.opts.max_depth;
            walk.node(&recs[i].bus, &recs[i].path, None, descend, i == 0)
        }))
        .await;
        let mut new = Vec::new();
        // Read again for another event, and moved all the same: what is
        // in it moved along, as under a `bounds-changed`.
        let mut shifted = Vec::new();
        for (&i, result) in level.iter().zip(fetched) {
            let fetched = match result {
                Ok(f) => f,
                Err(e) if object_vanished(&e) && i != 0 => {
                    self.recs[i].vanished = true;
                    continue;
                }
                Err(e) => return Err(Refresh::Failed(e)),
            };
            let was = self.recs[i].bounds;
            let children = self.recs[i].take(fetched);
            if self.recs[i].bounds != was && was.is_some() {
                shifted.push(i);
            }
            if !lists.contains(&i) {
                continue;
            }
            let kept: HashMap<NodeAddr, usize> = self.recs[i]
                .children
                .iter()
                .filter(|&&c| !self.recs[c].vanished)
                .map(|&c| (addr(&self.recs[c]), c))
                .collect();
            let mut list = Vec::with_capacity(children.len());
            for child in children {
                let child = NodeAddr::from(child);
                if let Some(&c) = kept.get(&child) {
                    list.push(c);
                    continue;
                }
                let c = self.recs.len();
                self.recs.push(Rec {
                    bus: child.bus,
                    path: child.path,
                    ..Rec::default()
                });
                list.push(c);
                new.push((c, depth[i] + 1));
            }
            self.recs[i].children = list;
        }
        // What left the tree as its parent's children were read again (a
        // sheet's cells, made anew at every read) is not asked.
        let mut held = vec![false; self.recs.len()];
        for i in tree_order(&self.recs) {
            held[i] = true;
        }
        states.retain(|&i| held.get(i).copied().unwrap_or(false));
        let read = ask_each(&self.recs, &states, |bus, path| walk.states(bus, path)).await;
        // An object that went defunct, or lost every state it had, was
        // replaced without a word yet (LibreOffice remakes its sidebar's
        // layout items when a dialog closes, and says so later): what
        // replaced it is found by a whole walk. One defunct all along is
        // no news (Calc's input line says so from the start).
        let mut dead = false;
        keep_each(&mut self.recs, &states, read, |_, r, s| {
            dead |= went_dead(r.basic.states, s);
            r.basic.states = s;
        })?;
        if dead {
            return Err(Refresh::Whole("an object went defunct"));
        }
        // An object that moved takes what is in it along without a word
        // (GTK 3 sends `bounds-changed` for a widget laid out again, not
        // for the cells and tabs in it): the bounds of everything below it
        // are read again, one call each, all at once.
        let again: BTreeSet<usize> = level.iter().copied().collect();
        let mut moved: BTreeSet<usize> = BTreeSet::new();
        // A scroll bar's value moving scrolls what is beside it in its
        // scroll pane, which says nothing of it.
        let scrolled = level.iter().filter_map(|&i| {
            (Role::from_name(&self.recs[i].basic.raw_role) == Role::ScrollBar)
                .then(|| parent.get(i).copied().flatten())
                .flatten()
        });
        // Read at the next capture however late it comes, and at those
        // after it for as long as they may still slide.
        let now = Instant::now();
        let settling: Vec<NodeAddr> = self.settling.iter().map(|(a, _, _)| a.clone()).collect();
        let moved_roots: Vec<usize> = marks
            .moved
            .iter()
            .filter_map(|a| self.index.get(a).copied())
            .chain(scrolled)
            .chain(
                walk.profile
                    .laid_out_silently(&self.recs)
                    .into_iter()
                    .filter(|&i| held.get(i).copied().unwrap_or(false)),
            )
            .collect();
        // What slides into place (a stack's page, a revealer's bar) moves
        // inside a container that stays put: everything in it is read.
        let mut sliding: BTreeSet<usize> = BTreeSet::new();
        for i in settling.iter().filter_map(|a| self.index.get(a).copied()) {
            let mut stack = vec![i];
            while let Some(j) = stack.pop() {
                if j < parent.len() && moved.insert(j) {
                    sliding.insert(j);
                    stack.extend(&self.recs[j].children);
                }
            }
        }
        // The objects said to move first. One whose bounds changed takes
        // everything in it along; one laid out again in the same place
        // moves only what is in it that is no widget of its own and says
        // nothing when its widget is laid out again (cells, tabs: see
        // `follows_silently`); widgets that move say so themselves.
        let roots: Vec<usize> = moved_roots
            .into_iter()
            .filter(|&i| i < parent.len() && !self.recs[i].vanished)
            .filter(|&i| self.recs[i].basic.has(COMPONENT))
            .collect::<BTreeSet<usize>>()
            .into_iter()
            .collect();
        let placed = ask_each(&self.recs, &roots, |bus, path| walk.bounds(bus, path)).await;
        let said_moved: HashSet<usize> = marks
            .moved
            .iter()
            .filter_map(|a| self.index.get(a).copied())
            .collect();
        let mut below: Vec<(usize, bool)> = shifted.into_iter().map(|i| (i, true)).collect();
        // Objects whose states are read again (see `states_follow`), of
        // those asked.
        let mut replaced: Vec<usize> = Vec::new();
        keep_each(&mut self.recs, &roots, placed, |i, r, b| {
            below.push((i, r.bounds != b));
            if states_follow(said_moved.contains(&i), r.bounds, b) {
                replaced.push(i);
            }
            r.bounds = b;
        })?;
        moved.extend(roots.iter().copied());
        // The windows holding what restated its rectangle: one that moved
        // took all in it along.
        let windows: Vec<usize> = marks
            .windows
            .iter()
            .filter_map(|a| self.index.get(a).copied())
            .filter(|&i| i < parent.len() && !moved.contains(&i) && !self.recs[i].vanished)
            .filter(|&i| self.recs[i].basic.has(COMPONENT))
            .collect();
        let placed = ask_each(&self.recs, &windows, |bus, path| walk.bounds(bus, path)).await;
        keep_each(&mut self.recs, &windows, placed, |i, r, b| {
            if r.bounds != b {
                below.push((i, true));
                replaced.push(i);
            }
            r.bounds = b;
        })?;
        moved.extend(windows.iter().copied());
        let placed_already = moved.clone();
        for (i, changed) in below {
            let mut stack = self.recs[i].children.clone();
            while let Some(j) = stack.pop() {
                if j >= parent.len() {
                    continue;
                }
                if changed || follows_silently(&self.recs[j]) {
                    moved.insert(j);
                }
                stack.extend(&self.recs[j].children);
            }
        }
        // A toolkit that lays out after it announces (Gecko: a page's
        // objects come with no place, and get one without a word) has
        // what has no place yet placed at every capture.
        if walk.profile.places_late() {
            moved.extend(
                self.recs
                    .iter()
                    .enumerate()
                    .take(parent.len())
                    .filter(|(_, r)| r.bounds.is_some_and(|b| b.w < 0 || b.h < 0))
                    .map(|(i, _)| i),
            );
        }
        let moved: Vec<usize> = moved
            .into_iter()
            .filter(|i| !again.contains(i) && !placed_already.contains(i))
            .filter(|i| !self.recs[*i].vanished)
            .filter(|&i| self.recs[i].basic.has(COMPONENT))
            .collect();
        let bounds = ask_each(&self.recs, &moved, |bus, path| walk.bounds(bus, path)).await;
        let mut slid = false;
        keep_each(&mut self.recs, &moved, bounds, |i, r, b| {
            slid |= sliding.contains(&i) && r.bounds != b;
            if r.bounds != b {
                replaced.push(i);
            }
            r.bounds = b;
        })?;
        // Whether an object shows follows its place (GTK 3 says `showing`
        // only of what lies on screen within its parents: a popover's
        // buttons while it grows open, rows scrolled into view), and no
        // event says so: what moved has its states read again.
        // Not those read whole, or whose states were read, this capture.
        replaced.retain(|i| !again.contains(i) && states.binary_search(i).is_err());
        let read = ask_each(&self.recs, &replaced, |bus, path| walk.states(bus, path)).await;
        let mut dead = false;
        keep_each(&mut self.recs, &replaced, read, |_, r, s| {
            dead |= went_dead(r.basic.states, s);
            r.basic.states = s;
        })?;
        if dead {
            return Err(Refresh::Whole("an object went defunct"));
        }
        // Something still sliding: what was settling is followed on (for
        // at most `MAX_SLIDE`); the rest of it settled a second after it
        // last moved. What started or stopped showing now starts settling.
        let mut next: Vec<(NodeAddr, Instant, Instant)> = Vec::new();
        for (addr, started, last) in std::mem::take(&mut self.settling) {
            let last = if slid && now.saturating_duration_since(started) < MAX_SLIDE {
                now
            } else {
                last
            };
            if now.saturating_duration_since(last) < SETTLING {
                next.push((addr, started, last));
            }
        }
        for addr in &marks.below {
            if !next.iter().any(|(a, _, _)| a == addr) {
                next.push((addr.clone(), now, now));
            }
        }
        self.settling = next;
        let reread = level.len();
        if walk
            .levels(&mut self.recs, new, &self.app.bus_name, &Cache::default())
            .await
            .map_err(Refresh::Failed)?
        {
            self.truncated = true;
        }
        Ok(Reading::Part {
            reread,
            moved: roots.len() + windows.len() + moved.len(),
            new: self.recs.len().saturating_sub(parent.len()),
        })
    }
}

/// Asks `read` of the object of every record in `which`, all at once.
async fn ask_each<'r, T, F>(
    recs: &'r [Rec],
    which: &[usize],
    read: impl Fn(&'r str, &'r str) -> F,
) -> Vec<Result<T>>
where
    F: std::future::Future<Output = Result<T>>,
{
    join_all(which.iter().map(|&i| read(&recs[i].bus, &recs[i].path))).await
}

/// Hands each answer of [`ask_each`] to `store` with its record; an
/// object that vanished meanwhile is marked so (the root must answer).
fn keep_each<T>(
    recs: &mut [Rec],
    which: &[usize],
    answers: Vec<Result<T>>,
    mut store: impl FnMut(usize, &mut Rec, T),
) -> std::result::Result<(), Refresh> {
    for (&i, answer) in which.iter().zip(answers) {
        match answer {
            Ok(v) => store(i, &mut recs[i], v),
            Err(e) if object_vanished(&e) && i != 0 => recs[i].vanished = true,
            Err(e) => return Err(Refresh::Failed(e)),
        }
    }
    Ok(())
}

/// Whether an object whose states were `was` and now are `now` was
/// replaced without a word yet: it went defunct, or lost every state it had.
fn went_dead(was: StateSet, now: StateSet) -> bool {
    (now.contains(State::Defunct) && !was.contains(State::Defunct))
        || (now.is_empty() && !was.is_empty())
}

/// Whether an object whose bounds were `was` and are `now` has its states
/// read again: whether it shows follows its place (GTK 3 says `showing`
/// only of what lies on screen within its parents), so one that moved
/// does; and so does one that said it moved, wherever it is now. Its
/// states held may be older than the move, its bounds held newer: a walk
/// reads an object's states before its bounds (a whole walk, all states
/// in the cache's one answer first), and an object laid out between the
/// two reads (gedit's folder under its title, shown as a file is saved,
/// then placed by the next layout) was held as not showing, at the place
/// its move then named.
fn states_follow(said_moved: bool, was: Option<Rect>, now: Option<Rect>) -> bool {
    said_moved || was != now
}

/// Whether an object with these states may change without events until
/// they change: it says it is busy (a document still loading, whose
/// children come and go) or stale (what it says may be out of date).
/// Thunderbird's documents (Gecko) are both while they load: a mirror
/// held them so once a whole walk read them done.
fn unsettled(states: &StateSet) -> bool {
    states.contains(State::Busy) || states.contains(State::Stale)
}

/// Whether an object is laid out by the widget it is in without a word of
/// its own when that widget is laid out again: GTK 3's page tabs, table and
/// tree cells, and any object that says it is transient.
fn follows_silently(r: &Rec) -> bool {
    matches!(
        Role::from_name(&r.basic.raw_role),
        Role::PageTab | Role::TableCell | Role::TreeItem | Role::ListItem
    ) || r.basic.states.contains(State::Transient)
}

fn addr(r: &Rec) -> NodeAddr {
    NodeAddr {
        bus: r.bus.clone(),
        path: r.path.clone(),
    }
}

impl Mirror {
    /// Whether events that arrived since the last capture (the application
    /// pinged first) name every node of `differences` or something above
    /// it in a way that covers it: a capture that differs from a later
    /// whole walk only there saw the application before a change still
    /// coming in, and is not wrong. Any event on the node covers it; one
    /// above it covers it when it says the subtree changed as a whole, when
    /// its children changed and the node is new, gone or moved among its
    /// siblings, or when it moved and the node's bounds differ. `whole` is
    /// the walk: a node new since is placed by its ancestors there.
    ///
    /// An application that answers the ping may not have sent the events of
    /// what it just did (Gecko queues its own and sends them at its next
    /// refresh, later under load): the events are looked at again, a few
    /// times, `EXPLAIN_PAUSE` apart.
    pub async fn explains(&self, bus: &Bus, differences: &[Difference], whole: &Snapshot) -> bool {
        let label = self.app.label();
        let profile = bus.profile(&self.app).await;
        for round in 0..EXPLAIN_ROUNDS {
            if round > 0 {
                tokio::time::sleep(EXPLAIN_PAUSE).await;
            }
            if !matches!(
                bus.answers(&label, &self.app.bus_name, PING).await,
                Ok(true)
            ) {
                return false;
            }
            self.events.flush().await;
            let covered = match self.marks.lock() {
                Ok(marks) => {
                    let also = self.moved_for_restated(&profile, &marks.restated);
                    marks.cover(&self.recs, &self.index, differences, whole, &also)
                }
                Err(_) => return false,
            };
            if covered {
                return true;
            }
        }
        false
    }

    /// What is taken as moved for the objects that restated their
    /// rectangles: they themselves, or, for a toolkit whose restated
    /// rectangles say nothing (see
    /// [`crate::Profile::restated_bounds_say_nothing`]), the windows that
    /// hold them (an object that is a window is its own), whose places are
    /// read again.
    fn moved_for_restated(
        &self,
        profile: &crate::Profile,
        restated: &HashSet<NodeAddr>,
    ) -> HashSet<NodeAddr> {
        if !profile.restated_bounds_say_nothing() {
            return restated.clone();
        }
        self.windows_holding(restated)
    }

    /// The windows that hold the objects `held` names (an object that is a
    /// window is its own), as the mirror holds them.
    fn windows_holding(&self, held: &HashSet<NodeAddr>) -> HashSet<NodeAddr> {
        let parent = parents(&self.recs);
        let mut windows = HashSet::new();
        for &i in held.iter().filter_map(|a| self.index.get(a)) {
            let mut at = Some(i);
            while let Some(j) = at {
                let r = &self.recs[j];
                if is_window_rec(r) && Role::from_name(&r.basic.raw_role) != Role::Application {
                    windows.insert(addr(r));
                    break;
                }
                at = parent.get(j).copied().flatten();
            }
        }
        windows
    }

    /// The nearest ancestor of `addr` the mirror holds, asked for parent by
    /// parent; `None` when there is none within [`MAX_CLIMB`] (an object
    /// outside the tree mirrored) or one cannot be asked.
    async fn held_ancestor(&self, walk: &Walk<'_>, addr: &NodeAddr) -> Option<usize> {
        let mut at = addr.clone();
        for _ in 0..MAX_CLIMB {
            let parent = walk.parent(&at.bus, &at.path).await.ok()?;
            if let Some(&i) = self.index.get(&parent) {
                return Some(i);
            }
            if parent.path == ROOT_PATH || parent == at {
                return None;
            }
            at = parent;
        }
        None
    }
}

/// The records still in the tree, from the root down, level by level:
/// each once, those no longer anyone's child left out.
fn tree_order(recs: &[Rec]) -> Vec<usize> {
    if recs.is_empty() {
        return Vec::new();
    }
    let mut order = vec![0usize];
    let mut seen = vec![false; recs.len()];
    seen[0] = true;
    let mut k = 0;
    while k < order.len() {
        for &c in &recs[order[k]].children {
            if c < recs.len() && !seen[c] {
                seen[c] = true;
                order.push(c);
            }
        }
        k += 1;
    }
    order
}

/// The records reachable from the root (record 0), breadth first, as a
/// whole walk orders them; records no list holds any more are dropped.
fn compact(recs: Vec<Rec>) -> Vec<Rec> {
    let order = tree_order(&recs);
    let mut place = vec![usize::MAX; recs.len()];
    for (n, &o) in order.iter().enumerate() {
        place[o] = n;
    }
    let mut slots: Vec<Option<Rec>> = recs.into_iter().map(Some).collect();
    order
        .iter()
        .map(|&o| {
            let mut r = slots[o].take().unwrap_or_default();
            r.children = r
                .children
                .iter()
                .map(|&c| place.get(c).copied().unwrap_or(usize::MAX))
                .filter(|&c| c != usize::MAX)
                .collect();
            r
        })
        .collect()
}

#[cfg(test)]
mod tests;
