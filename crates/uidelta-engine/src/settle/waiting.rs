//! The settle loop of a [`Session`]: waiting on an application's events,
//! or polling its captures, as [`Settle`] says.

use std::time::{Duration, Instant};

use uidelta_backend::{Backend, ErrorKind, Event, EventKind, Scope};
use uidelta_diff::{RefTable, Refs, View};
use uidelta_model::{NodeId, Role, Snapshot, State};

use super::{is_idle, is_noise, is_unfinished, Next, Quiet, Settle, Settled, Watch};
use crate::error::Result;
use crate::session::{ActOptions, Session};
use crate::AppId;

/// Most snapshots taken while settling, to catch transient elements.
const MAX_MIDS: usize = 4;

/// Least time between two of those snapshots.
const MID_SPACING: Duration = Duration::from_millis(100);

/// How long after an event such a snapshot is taken: the burst it starts
/// lands first.
const MID_LANDING: Duration = Duration::from_millis(20);

/// How often a backend without events is polled while settling.
pub(crate) const POLL: Duration = Duration::from_millis(100);

impl<B: Backend> Session<B> {
    /// Waits as `opts` says; returns how it went and the snapshots taken on
    /// the way (for transient elements). Focus events of the elements in
    /// `own_focus` (the action's target and the element it took the focus
    /// from) are the action's own and do not count. With `first_change`,
    /// events that leave the application as it was before the action are
    /// not its change, and the wait for one goes on (not while lingering
    /// for a toast to go, which leaves it as it was). `typed`: how many
    /// characters the action typed, waited for while they land (see
    /// [`Watch::typing`]).
    pub(crate) async fn settle(
        &mut self,
        idx: AppId,
        opts: &ActOptions,
        acted: Instant,
        own_focus: &[String],
        first_change: bool,
        typed: usize,
    ) -> Result<(Settled, Vec<Snapshot>)> {
        let own = |event: &Event| {
            event.kind == uidelta_backend::EventKind::Focus
                && event.source.as_ref().is_some_and(|s| own_focus.contains(s))
        };
        let counts = |event: &Event| !(is_noise(&event.kind) || own(event));
        self.looked = None;
        let quiet = match opts.settle {
            Settle::None => return Ok((settled(acted, false, 0), Vec::new())),
            Settle::Fixed(d) => {
                tokio::time::sleep(d).await;
                return Ok((settled(acted, false, 0), Vec::new()));
            }
            Settle::Auto(q) => q,
        };
        let usual = quiet.window;
        let quiet = match self.backend.settle_window(&self.known[idx].app) {
            Some(window) if window > quiet.window => Quiet { window, ..quiet },
            _ => quiet,
        };
        if self.known[idx].events.is_silent() {
            return self.settle_by_polling(idx, quiet, acted).await;
        }
        let app = self.known[idx].app.clone();
        let animations = self.known[idx].animations(acted);
        let moves = |event: &Event| {
            is_unfinished(&event.kind)
                && !event
                    .source
                    .as_ref()
                    .is_some_and(|s| animations.contains(s))
        };
        let mut watch = Watch::new(quiet, acted).typing(typed);
        if quiet.window > usual {
            watch = watch.longer_window(usual);
        }
        let mut mids = Vec::new();
        let mut last_mid = acted;
        // How long a snapshot takes: as long as the last one, then as the
        // last taken here.
        let mut capture_takes = self.known[idx]
            .snapshot
            .meta
            .capture_ms
            .and_then(|ms| Duration::try_from_secs_f64(ms / 1000.0).ok())
            .unwrap_or_default();
        let mut loading_waits = 0;
        // What the action made on the display, it made since it began.
        let began = self.known[idx].acting.unwrap_or(acted);
        loop {
            // The events ended: the application exited (the polling finds
            // out at once), or the subscription broke (the polling goes on).
            if self.known[idx].events.lapsed() {
                let (polled, more) = self.settle_by_polling(idx, quiet, acted).await?;
                mids.extend(more);
                let events = watch.events() + polled.events;
                return Ok((Settled { events, ..polled }, mids));
            }
            // Events that queued up meanwhile (while a snapshot was taken)
            // count before deciding that the UI is quiet.
            while let Some(event) = self.known[idx].next_queued() {
                trace(&event, acted);
                watch.inserted(event.inserted, event.at);
                if is_idle(&event.kind) {
                    watch.idle(event.at);
                } else if counts(&event) {
                    watch.event(event.at);
                } else if moves(&event) {
                    watch.motion(event.at);
                    if event.kind == EventKind::Working {
                        watch.working(event.at);
                    }
                }
            }
            // Events dropped for want of room were changes too.
            if self.known[idx].events.take_missed() {
                watch.event(Instant::now());
            }
            let until = match watch.next(Instant::now()) {
                Next::Done { capped: false } if first_change && watch.events() > 0 => {
                    // Events that left the application as it was are not
                    // the change the action makes: Thunar's rename dialog
                    // stirs when Return is pressed, then renames and
                    // closes 300 ms later. The wait for a first change
                    // goes on, up to the cap, as after an action that
                    // sent nothing. What the look read is the after
                    // snapshot otherwise.
                    let look = self.look_again(&app, idx, own_focus, began).await;
                    tracing::trace!(
                        after_ms = acted.elapsed().as_millis() as u64,
                        ?look,
                        "settle look"
                    );
                    match look {
                        Look::Unchanged => {
                            watch.restart();
                            continue;
                        }
                        // Still building what the action opened: the
                        // wait for quiet starts again, up to the cap.
                        Look::Loading if loading_waits < MAX_LOADING_LOOKS => {
                            loading_waits += 1;
                            watch.event(Instant::now());
                            continue;
                        }
                        Look::Loading | Look::Changed => {
                            return Ok((settled(acted, false, watch.events()), mids));
                        }
                        // Read again at once, it would not answer either
                        // (the capture gave it its time to answer): said
                        // now, not after another read's timeouts.
                        Look::Unanswered(e) => return Err(crate::Error::Backend(e)),
                    }
                }
                Next::Done { capped } => {
                    let busy = capped && watch.stirring(Instant::now());
                    return Ok((
                        Settled {
                            busy,
                            ..settled(acted, capped, watch.events())
                        },
                        mids,
                    ));
                }
                Next::WaitUntil(t) => t,
            };
            let Some(event) = self.known[idx].next_before(until).await else {
                continue;
            };
            trace(&event, acted);
            watch.inserted(event.inserted, event.at);
            if is_idle(&event.kind) {
                watch.idle(event.at);
                continue;
            }
            if moves(&event) {
                watch.motion(event.at);
                if event.kind == EventKind::Working {
                    watch.working(event.at);
                }
                continue;
            }
            if !counts(&event) {
                continue;
            }
            watch.event(event.at);
            // A snapshot that would end past the cap is not taken: the
            // wait would overrun it (a whole walk of a big application in
            // a process that has no mirror of it yet takes seconds), and a
            // look that slow cannot catch what lives a moment anyway.
            let fits = Instant::now() + MID_LANDING + capture_takes <= watch.deadline();
            if opts.transients && mids.len() < MAX_MIDS && last_mid.elapsed() >= MID_SPACING && fits
            {
                // Let the burst this event starts land, then look.
                tokio::time::sleep(MID_LANDING).await;
                let started = Instant::now();
                if let Ok(s) = self.backend.capture(&app, &Scope::App).await {
                    mids.push(s);
                }
                capture_takes = started.elapsed();
                last_mid = Instant::now();
            }
        }
    }

    /// How the application looks next to how it did before the action
    /// (its tree and focus), as far as a capture now tells; changed when it
    /// cannot be read, unanswered when it did not answer. The focus gone
    /// to an element of `own_focus` (the action's target, which a click
    /// focuses) is the action's own, no change, and the focus gone to
    /// nothing is no change yet. A capture that shows a change is kept as
    /// the after snapshot ([`Session::looked`]), so that it is not read
    /// twice. `began`: when the action began.
    async fn look_again(
        &mut self,
        app: &uidelta_backend::App,
        idx: AppId,
        own_focus: &[String],
        began: Instant,
    ) -> Look {
        let s = match self.backend.capture(app, &Scope::App).await {
            Ok(s) => s,
            Err(e) if e.kind == ErrorKind::Timeout => return Look::Unanswered(e),
            Err(_) => return Look::Changed,
        };
        // What the platform does not say now is as it was (see
        // `Session::install`), not a change.
        let s = uidelta_diff::fill_unread(&self.known[idx].view, s);
        // Built as the view after the action will be (its list items as
        // they were), or a list item shown anew would read as a change.
        let view = View::following(&s, self.filters, &self.known[idx].view);
        let (tree, focus) = look_of(&view);
        let (was_tree, was_focus) = look_of(&self.known[idx].view);
        let own = focus.as_ref().is_some_and(|f| own_focus.contains(f));
        // The focus gone with nowhere to go is a window giving the keyboard
        // up to one that is coming (Thunderbird's main window, before its
        // message window shows), not yet the change: if it is all there is,
        // the capture at the cap reports it.
        let between = focus.is_none();
        // A click on a window that did not have the keyboard gives it the
        // keyboard (and takes it from another): that is the action's own,
        // as the focus going to its target is, and so is the focus coming
        // back to what had it in that window. The change it made is yet
        // to come (a dialog it opens later).
        let activated = tree != was_tree && activated_only(&self.known[idx].view, &view);
        let returned = activated && was_focus.is_none();
        // A tree that hashes otherwise may still hold nothing the answer
        // would report: hidden elements moved among their siblings (GTK 3
        // raises hidden popovers past each other; LibreOffice's windows
        // hold a dozen). Such a look is no change yet: the wait goes on,
        // and does not end in an empty answer while the change the action
        // makes is still to come. (Asked last: a diff costs more than the
        // rest, and a focus moved elsewhere is a change whatever it says.)
        let focus_same = focus == was_focus || own || between || returned;
        let same = || {
            tree == was_tree || activated || {
                let known = &self.known[idx];
                reports_nothing(&known.view, &known.refs, &self.table, &view)
            }
        };
        if focus_same && same() {
            return Look::Unchanged;
        }
        let was = &self.known[idx].view;
        let busy = loading(&view) > loading(was);
        let opens = opening(was, &view);
        let maps = !busy && !opens && self.backend.shows_late(app).await && unmapped(was, &view);
        // A window the action made that the tree does not hold yet.
        let made = match busy || opens || maps {
            true => 0,
            false => self.backend.windows_made(app, began).await,
        };
        let windows = made > 0 && made > shown_anew(was, &view);
        if busy || opens || maps || windows {
            tracing::debug!(busy, opens, maps, made, "the change is still coming");
        }
        let loading = busy || opens || maps || windows;
        self.looked = Some((idx, s));
        if loading {
            Look::Loading
        } else {
            Look::Changed
        }
    }

    /// Settles by comparing captures, for a backend that sends no events
    /// (and after a window operation, which sends the application none).
    /// An application that goes away while it settles ends the wait: the
    /// caller finds out what became of it.
    pub(crate) async fn settle_by_polling(
        &mut self,
        idx: AppId,
        quiet: Quiet,
        acted: Instant,
    ) -> Result<(Settled, Vec<Snapshot>)> {
        let app = self.known[idx].app.clone();
        let mut watch = Watch::new(quiet, acted);
        let mut last = look_of(&self.known[idx].view);
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
            let s = uidelta_diff::fill_unread(&self.known[idx].view, s);
            let now = look_of(&View::following(&s, self.filters, &self.known[idx].view));
            if now != last {
                watch.event(Instant::now());
                last = now;
                if mids.len() < MAX_MIDS {
                    mids.push(s);
                }
            }
        }
    }
}

/// How an application looks next to before an action (see
/// [`Session::look_again`]).
#[derive(Debug)]
enum Look {
    /// As before.
    Unchanged,
    /// Changed, and a window or document more than before says it is
    /// `busy`: still being built (Thunderbird shows its message window
    /// empty and busy for a second or more before filling it).
    Loading,
    /// Changed.
    Changed,
    /// Not read: the application did not answer (a handler of the action
    /// still runs, as a modal dialog's loop does).
    Unanswered(uidelta_backend::Error),
}

/// How many more looks a settle takes while windows say they are busy:
/// each waits for another quiet window, all within the cap.
const MAX_LOADING_LOOKS: usize = 20;

/// How many windows and documents of `view` that show say they are busy.
fn loading(view: &View) -> usize {
    view.tree()
        .nodes()
        .iter()
        .filter(|n| {
            (n.role.is_window() || n.role.is_document())
                && n.states.contains(State::Busy)
                && n.states.contains(State::Showing)
        })
        .count()
}

/// Whether `after` has a top-level window that `before` did not, which
/// does not show yet: a window manager maps a new window when it gets to
/// it, and the toolkit says it shows once mapped (GTK 4's file chooser,
/// under mutter on a loaded machine, was answered `(modal, hidden)`, all
/// in it hidden, a second before it showed). The wait goes on, as for a
/// window that says it is busy, up to the cap. Only an application's
/// windows: a page's dialog (a JavaScript alert a browser holds) is no
/// window a window manager maps, and says nothing of showing.
fn opening(before: &View, after: &View) -> bool {
    let (bt, at) = (before.tree(), after.tree());
    if at.node(NodeId::ROOT).role != Role::Application {
        return false;
    }
    let was: std::collections::HashSet<&str> = bt
        .children(NodeId::ROOT)
        .iter()
        .filter_map(|&w| bt.node(w).identity.as_deref())
        .collect();
    at.children(NodeId::ROOT).iter().any(|&w| {
        let n = at.node(w);
        n.role.is_window()
            && !n.states.contains(State::Showing)
            && n.identity.as_deref().is_some_and(|id| !was.contains(id))
    })
}

/// How many top-level windows of `after` show that did not in `before`:
/// new ones, or ones that were there hidden (a dialog built ahead and
/// shown later). The windows an action made on the display (see
/// `uidelta_backend::Backend::windows_made`) that are more than these are
/// windows still to come in the tree: Firefox makes its new window at
/// once, and says so to accessibility later (on a loaded machine,
/// Thunderbird's message window came after the first change, a relaid
/// page, had settled). A new window counts whether or not it says it shows
/// (GTK 4's dialogs say `visible` alone; one not shown yet is
/// [`opening`]'s).
fn shown_anew(before: &View, after: &View) -> usize {
    let (bt, at) = (before.tree(), after.tree());
    let showed: std::collections::HashMap<&str, bool> = bt
        .children(NodeId::ROOT)
        .iter()
        .filter_map(|&w| {
            let n = bt.node(w);
            Some((n.identity.as_deref()?, n.states.contains(State::Showing)))
        })
        .collect();
    at.children(NodeId::ROOT)
        .iter()
        .filter(|&&w| {
            let n = at.node(w);
            n.role.is_window()
                && n.identity
                    .as_deref()
                    .is_some_and(|id| match showed.get(id) {
                        None => true,
                        Some(&shown) => !shown && n.states.contains(State::Showing),
                    })
        })
        .count()
}

/// Whether `after` has an element `before` did not, under one it had that
/// shows, which says `visible` and does not show yet: in a toolkit that
/// maps what it was given at its next frame (see
/// `uidelta_backend::Backend::shows_late`), one still to come on the
/// screen. Zenity's colour editor, under mutter on a loaded machine, was
/// answered with its colour plane, sliders and field hidden, and its
/// palette's last swatch hidden with the palette. Only where the added
/// subtree begins: what is in a new dialog or tab page (a notebook's pages
/// not chosen) is as the dialog or page shows it.
fn unmapped(before: &View, after: &View) -> bool {
    let (bt, at) = (before.tree(), after.tree());
    let was: std::collections::HashSet<&str> = bt
        .nodes()
        .iter()
        .filter_map(|n| n.identity.as_deref())
        .collect();
    let known = |n: NodeId| {
        at.node(n)
            .identity
            .as_deref()
            .is_some_and(|id| was.contains(id))
    };
    at.ids().any(|n| {
        let d = at.node(n);
        d.states.contains(State::Visible)
            && !d.states.contains(State::Showing)
            && d.identity.is_some()
            && !known(n)
            && at
                .parent(n)
                .is_some_and(|p| known(p) && maps_what_it_holds(at.node(p)))
    })
}

/// Whether what `parent` holds shows once mapped: it shows, and is no
/// menu (a menu bar's menu shows, its items only while it is open) nor a
/// page not chosen (a notebook's other pages keep what they hold
/// unmapped).
fn maps_what_it_holds(parent: &uidelta_model::NodeData) -> bool {
    parent.states.contains(State::Showing)
        && !matches!(parent.role, Role::Menu | Role::MenuItem)
        && (parent.role != Role::PageTab || parent.states.contains(State::Selected))
}

/// Whether `after` differs from `before` only in which of its windows are
/// `active`: the same windows, each holding what it held, saying the same
/// but for that state.
pub(crate) fn activated_only(before: &View, after: &View) -> bool {
    let (bt, at) = (before.tree(), after.tree());
    if before.content_hash(NodeId::ROOT) != after.content_hash(NodeId::ROOT) {
        return false;
    }
    let (bw, aw) = (bt.children(NodeId::ROOT), at.children(NodeId::ROOT));
    if bw.len() != aw.len() {
        return false;
    }
    let calm = |n: &uidelta_model::NodeData| {
        let mut n = n.clone();
        n.states.remove(State::Active);
        n
    };
    bw.iter().zip(aw).all(|(&b, &a)| {
        if before.subtree_hash(b) == after.subtree_hash(a) {
            return true;
        }
        let (bn, an) = (bt.node(b), at.node(a));
        let (bc, ac) = (bt.children(b), at.children(a));
        bn.role.is_window()
            && bc.len() == ac.len()
            && bc
                .iter()
                .zip(ac)
                .all(|(&x, &y)| before.subtree_hash(x) == after.subtree_hash(y))
            && calm(bn) == calm(an)
    })
}

/// Whether a diff of `after` against `before` (its refs `before_refs`)
/// holds no change of the tree (the focus aside): what the answer would
/// report, with refs handed out from a copy of `table`.
fn reports_nothing(before: &View, before_refs: &Refs, table: &RefTable, after: &View) -> bool {
    let mut table = table.clone();
    let (d, _) = uidelta_diff::diff(before, before_refs, after, &mut table);
    d.changes.is_empty()
}

/// What a capture looks like, to tell two apart: the tree's hash, and the
/// focused element, which the hash leaves out (a window given the keyboard
/// may change nothing else).
pub(crate) fn look_of(view: &View) -> (u64, Option<String>) {
    let focus = view
        .focus()
        .map(|f| view.tree().node(f))
        .map(|n| n.identity.clone().unwrap_or_else(|| n.name.clone()));
    (view.subtree_hash(NodeId::ROOT), focus)
}

/// Logs an event the settle reads (`UIDELTA_LOG=uidelta_engine=trace`),
/// with its time since the action.
fn trace(event: &Event, acted: Instant) {
    tracing::trace!(
        after_ms = event.at.saturating_duration_since(acted).as_millis() as u64,
        kind = ?event.kind,
        detail = %event.detail,
        source = event.source.as_deref().unwrap_or(""),
        "settle event"
    );
}

pub(crate) fn settled(acted: Instant, capped: bool, events: usize) -> Settled {
    Settled {
        elapsed: acted.elapsed(),
        capped,
        events,
        busy: false,
    }
}

#[cfg(test)]
mod tests {
    use super::{activated_only, look_of, opening, reports_nothing, shown_anew, unmapped};
    use uidelta_diff::{Filters, RefTable, View};
    use uidelta_model::{Meta, NodeData, Role, Snapshot, State, TreeBuilder};

    /// An application with a main window and a dialog, `active` as given,
    /// the dialog's button named `button`.
    fn app(main_active: bool, dialog_active: bool, button: &str) -> View {
        let window = |role: Role, name: &str, active: bool| {
            let mut n = NodeData::named(role, name);
            if active {
                n.states.insert(State::Active);
            }
            n
        };
        let mut b = TreeBuilder::new(NodeData::named(Role::Application, "fixture"));
        b.open(window(Role::Frame, "Main", main_active));
        b.leaf(NodeData::named(Role::PushButton, "Open details"));
        b.close();
        b.open(window(Role::Dialog, "Find", dialog_active));
        b.leaf(NodeData::named(Role::PushButton, button));
        b.close();
        View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none())
    }

    #[test]
    fn hidden_popovers_raised_past_each_other_are_no_change_to_report() {
        // A GTK 3 window with two closed popovers (no `showing`) after its
        // button; the toolkit raises the second past the first.
        let window = |popovers: [&str; 2]| {
            let mut b = TreeBuilder::new(NodeData::named(Role::Application, "soffice"));
            b.open(NodeData::named(Role::Frame, "Untitled 1"));
            let mut button = NodeData::named(Role::PushButton, "Save");
            button.states.insert(State::Showing);
            b.leaf(button);
            for name in popovers {
                let mut popover = NodeData::named(Role::Panel, "");
                popover.identity = Some(format!(":1.1/{name}"));
                popover.states.insert(State::Modal);
                b.open(popover);
                let mut item = NodeData::named(Role::MenuItem, name);
                item.states.insert(State::Enabled);
                b.leaf(item);
                b.close();
            }
            b.close();
            View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none())
        };
        let before = window(["Cut", "Paste"]);
        let mut table = RefTable::new();
        let refs = table.label(before.len());
        let raised = window(["Paste", "Cut"]);
        assert_ne!(look_of(&before), look_of(&raised));
        assert!(reports_nothing(&before, &refs, &table, &raised));
        // Another popover in place of one is a change.
        let renamed = window(["Cut", "Copy"]);
        assert!(!reports_nothing(&before, &refs, &table, &renamed));
    }

    #[test]
    fn windows_given_or_losing_the_keyboard_and_nothing_else_are_told_apart() {
        let before = app(false, true, "Close");
        // The click gave the main window the keyboard, from the dialog.
        assert!(activated_only(&before, &app(true, false, "Close")));
        assert!(activated_only(&before, &app(true, true, "Close")));
        // Something else changed too.
        assert!(!activated_only(&before, &app(true, false, "Cancel")));
        assert!(!activated_only(&before, &app(false, true, "Cancel")));
    }

    /// An application's main window, and a dialog of the identity given,
    /// shown or not, or none.
    fn with_dialog(dialog: Option<(&str, bool)>) -> View {
        let mut b = TreeBuilder::new(NodeData::named(Role::Application, "fixture"));
        let mut main = NodeData::named(Role::Frame, "Main");
        main.identity = Some(":1.1/main".into());
        main.states.insert(State::Showing);
        b.leaf(main);
        if let Some((id, shown)) = dialog {
            let mut d = NodeData::named(Role::Dialog, "Select file");
            d.identity = Some(format!(":1.1/{id}"));
            if shown {
                d.states.insert(State::Showing);
            }
            b.open(d);
            b.leaf(NodeData::named(Role::PushButton, "Open"));
            b.close();
        }
        View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none())
    }

    #[test]
    fn a_new_window_not_shown_yet_is_still_opening() {
        let app = with_dialog;
        assert!(opening(&app(None), &app(Some(("d1", false)))));
        // Shown, or hidden before the action too (kept for later): done.
        assert!(!opening(&app(None), &app(Some(("d1", true)))));
        assert!(!opening(
            &app(Some(("d1", false))),
            &app(Some(("d1", false)))
        ));
        // Another hidden window than the one before: new.
        assert!(opening(
            &app(Some(("d1", false))),
            &app(Some(("d2", false)))
        ));
        assert!(!opening(&app(None), &app(None)));
        // A page's dialog (a tab's tree is its document): not a window.
        let page = |dialog: bool| {
            let mut b = TreeBuilder::new(NodeData::named(Role::DocumentWeb, "Items"));
            if dialog {
                let mut d = NodeData::named(Role::Dialog, "Saved later");
                d.identity = Some("dialog:1".into());
                b.leaf(d);
            }
            View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none())
        };
        assert!(!opening(&page(false), &page(true)));
    }

    #[test]
    fn windows_shown_anew_are_new_ones_and_hidden_ones_shown() {
        let app = with_dialog;
        assert_eq!(shown_anew(&app(None), &app(None)), 0);
        assert_eq!(shown_anew(&app(None), &app(Some(("d1", true)))), 1);
        // New, and not saying it shows (GTK 4's dialogs): counted.
        assert_eq!(shown_anew(&app(None), &app(Some(("d1", false)))), 1);
        // Built ahead and shown now.
        assert_eq!(
            shown_anew(&app(Some(("d1", false))), &app(Some(("d1", true)))),
            1
        );
        // There and shown before, or still hidden: none.
        assert_eq!(
            shown_anew(&app(Some(("d1", true))), &app(Some(("d1", true)))),
            0
        );
        assert_eq!(
            shown_anew(&app(Some(("d1", false))), &app(Some(("d1", false)))),
            0
        );
        // Another one in place of the one before.
        assert_eq!(
            shown_anew(&app(Some(("d1", true))), &app(Some(("d2", true)))),
            1
        );
        // Closed.
        assert_eq!(shown_anew(&app(Some(("d1", true))), &app(None)), 0);
    }

    #[test]
    fn an_added_element_visible_and_not_shown_yet_under_a_shown_one_is_unmapped() {
        // A dialog that shows, holding a palette (`palette` shows) and the
        // editor's plane (`plane`: None, or Some((visible, showing))),
        // perhaps inside a new page.
        let dialog = |palette: bool, plane: Option<(bool, bool)>, in_new_page: bool| {
            let node = |role: Role, name: &str, states: &[State]| {
                let mut n = NodeData::named(role, name);
                n.identity = Some(format!(":1.1/{name}"));
                n.states = uidelta_model::StateSet::of(states);
                n
            };
            let shown = [State::Visible, State::Showing];
            let mut b = TreeBuilder::new(NodeData::named(Role::Application, "zenity"));
            b.open(node(Role::Dialog, "Select a color", &shown));
            let palette_states: &[State] = if palette { &shown } else { &[State::Visible] };
            b.leaf(node(Role::RadioButton, "Black", palette_states));
            if in_new_page {
                b.open(node(Role::PageTab, "Custom", &shown));
            }
            if let Some((visible, showing)) = plane {
                let mut states = Vec::new();
                if visible {
                    states.push(State::Visible);
                }
                if showing {
                    states.push(State::Showing);
                }
                b.leaf(node(Role::ColorChooser, "Color Plane", &states));
            }
            if in_new_page {
                b.close();
            }
            b.close();
            View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none())
        };
        let before = dialog(true, None, false);
        // Added, visible, not mapped yet: still coming.
        assert!(unmapped(
            &before,
            &dialog(false, Some((true, false)), false)
        ));
        // Mapped: done. Hidden on purpose (not visible): done.
        assert!(!unmapped(
            &before,
            &dialog(false, Some((true, true)), false)
        ));
        assert!(!unmapped(
            &before,
            &dialog(false, Some((false, false)), false)
        ));
        // There before, hidden since (the palette): no element to come.
        assert!(!unmapped(&before, &dialog(false, None, false)));
        // Inside a new page that shows: as the page shows it (a notebook's
        // page not chosen keeps its content visible and unmapped).
        assert!(!unmapped(&before, &dialog(true, Some((true, false)), true)));

        // Into what maps what it holds only at times: a page not chosen,
        // a menu bar's menu not open. Into a chosen page: still coming.
        let holder = |role: Role, selected: bool, child: Option<&str>| {
            let mut b = TreeBuilder::new(NodeData::named(Role::Application, "gedit"));
            let mut w = NodeData::named(Role::Frame, "gedit");
            w.identity = Some(":1.1/w".into());
            w.states = uidelta_model::StateSet::of(&[State::Visible, State::Showing]);
            b.open(w);
            let mut h = NodeData::named(role, "File");
            h.identity = Some(":1.1/h".into());
            h.states = uidelta_model::StateSet::of(&[State::Visible, State::Showing]);
            h.states.set(State::Selected, selected);
            b.open(h);
            if let Some(name) = child {
                let mut c = NodeData::named(Role::MenuItem, name);
                c.identity = Some(format!(":1.1/{name}"));
                c.states = uidelta_model::StateSet::of(&[State::Visible]);
                b.leaf(c);
            }
            b.close();
            b.close();
            View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none())
        };
        for (role, selected, coming) in [
            (Role::Menu, false, false),
            (Role::PageTab, false, false),
            (Role::PageTab, true, true),
            (Role::Panel, false, true),
        ] {
            assert_eq!(
                unmapped(
                    &holder(role, selected, None),
                    &holder(role, selected, Some("Reload"))
                ),
                coming,
                "{role:?}, selected: {selected}"
            );
        }
    }
}
