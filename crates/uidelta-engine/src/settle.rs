//! Deciding when the UI has settled after an action.
//!
//! Auto mode reads the application's event stream. It first waits for the
//! UI to start changing (a dialog that opens after 800 ms sends nothing
//! before it opens), then for a quiet window without events, never less than
//! a floor; the first change is waited for up to a cap, and a change that
//! began is given as long again to end. Events that say nothing about the
//! application's state (tooltips, bounds, caret moves) are ignored, or an
//! animation would keep the UI from ever settling.
//!
//! An application that can tell whether work is pending ends the first
//! wait early: when nothing changed and it says that nothing is pending a
//! short grace after the action ([`Quiet::grace`], [`EventKind::Idle`]),
//! the action changed nothing. A page says so while no request, load or
//! short timer started by input is in flight, and beats changes while one
//! is; a desktop application's process says so (through the Linux
//! backend) while it sleeps with no timer due, so a late dialog is waited
//! for as before.
//!
//! Typing can land late: a multi-process application under load handles
//! the keys it was sent one by one, and may pause longer than the quiet
//! window between two. When an action typed characters and the application
//! said it inserted some (AT-SPI's `text-changed:insert` carries their
//! count, [`Event::inserted`]) but fewer, the quiet window is held off while
//! they are still coming ([`TYPING_GAP`]). A field that takes only part of
//! them (a length limit) costs that gap; an application that says nothing
//! of insertions is waited for as before.
//!
//! The rules here are pure; the loop that applies them to a session's
//! application (reading its events, or polling its captures) is in
//! `settle/waiting.rs`.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

#[cfg(doc)]
use uidelta_backend::Event;
use uidelta_backend::EventKind;

mod waiting;
pub(crate) use waiting::{settled, POLL};

/// How to wait after an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settle {
    /// Wait on the event stream (or poll, for backends without events).
    Auto(Quiet),
    /// Sleep this long, as terminator does (1500 ms there).
    Fixed(Duration),
    /// Do not wait.
    None,
}

impl Default for Settle {
    fn default() -> Self {
        Settle::Auto(Quiet::default())
    }
}

/// The parameters of auto settle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quiet {
    /// Never take the after snapshot sooner than this after the action.
    pub floor: Duration,
    /// Settled once no event came for this long.
    pub window: Duration,
    /// Give up waiting for a change after this long; the result says the
    /// cap was hit. A change that began before the cap is given as long
    /// again from its first event (at most 2 s) to end: a window that
    /// begins to come just before the cap (LibreOffice's dialogs, under
    /// load, can take seconds) would be cut in the middle of being built.
    pub cap: Duration,
    /// After a change, places still moving (motion events) or the
    /// application's process still at work keep the UI unsettled for up to
    /// this long: a transition (a GTK revealer sliding shut) ends with the
    /// state change it was for, 250 ms or more after the change that
    /// started it, and sends no other event before. Longer motion (an
    /// animation that never stops) or work is not waited for.
    pub motion: Duration,
    /// When nothing changed and the application said that nothing is
    /// pending ([`EventKind::Idle`]) at least this long after the action
    /// (and not before the floor), the action changed nothing: settled at
    /// once, not at the cap. The grace lets the action's own reports (a
    /// timer or a request it started) arrive first. `None`: always wait for
    /// a change up to the cap.
    pub grace: Option<Duration>,
}

impl Default for Quiet {
    /// Defaults chosen by measurement (BENCHMARKS.md, "Settle"): GTK sends
    /// the events of one update within a few milliseconds of each other and
    /// of the change itself; 150 ms of quiet separates updates reliably, and
    /// a 2 s cap bounds actions that change nothing where the application
    /// cannot say that nothing is pending; GTK's transitions last 250 ms.
    /// A page reports the timer or request an action starts within a few
    /// milliseconds, a desktop process its timer at once; 100 ms of grace
    /// leaves room for a busy machine.
    fn default() -> Self {
        Quiet {
            floor: Duration::from_millis(30),
            window: Duration::from_millis(150),
            cap: Duration::from_millis(2000),
            motion: Duration::from_millis(400),
            grace: Some(Duration::from_millis(100)),
        }
    }
}

/// Whether an event kind says places are moving (a layout changing, a
/// transition running): not a change in itself, and never the first sign
/// of one, but a change that started may not be over (see
/// [`Quiet::motion`]).
pub fn is_motion(kind: &EventKind) -> bool {
    matches!(kind, EventKind::Motion)
}

/// Whether an event kind says nothing about the application's state:
/// noise, motion (see [`is_motion`]), and the application saying that it
/// is idle (see [`is_idle`]) or at work (see [`is_unfinished`]).
pub fn is_noise(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Noise | EventKind::Motion | EventKind::Idle | EventKind::Working
    )
}

/// Whether an event kind says that a change that started may not be over:
/// places moving (see [`is_motion`]), or the application's process at
/// work ([`EventKind::Working`]: a window named after its file once the
/// file is written). Either holds the quiet window off after a change, for
/// a while ([`Quiet::motion`]).
pub fn is_unfinished(kind: &EventKind) -> bool {
    matches!(kind, EventKind::Motion | EventKind::Working)
}

/// Whether an event kind says that the application has nothing pending:
/// no change in itself, but when nothing changed since the action, nothing
/// will (see [`Quiet::grace`]).
pub fn is_idle(kind: &EventKind) -> bool {
    matches!(kind, EventKind::Idle)
}

/// Sources of motion events (see [`is_motion`]) and how long each has been
/// moving: a spinner or a pulsing progress bar moves on its own, all the
/// time, and its motion says nothing about an action; a transition an
/// action starts moves for a few hundred milliseconds.
#[derive(Clone, Debug, Default)]
pub struct Movers {
    /// Source → (start, last event) of its current run of motion.
    runs: HashMap<String, (Instant, Instant)>,
}

impl Movers {
    /// Events less than this far apart are one run of motion.
    const GAP: Duration = Duration::from_millis(100);
    /// A run this long is an animation that runs on its own...
    const STEADY: Duration = Duration::from_millis(500);
    /// ... when it was still running this shortly before.
    const RECENT: Duration = Duration::from_millis(200);
    /// Sources kept at most; the oldest runs go first.
    const KEPT: usize = 512;

    /// Records a motion event of `source` at `at`.
    pub fn saw(&mut self, source: &str, at: Instant) {
        match self.runs.get_mut(source) {
            Some((start, last)) => {
                if at.saturating_duration_since(*last) > Self::GAP {
                    *start = at;
                }
                *last = (*last).max(at);
            }
            None => {
                if self.runs.len() >= Self::KEPT {
                    let newest = self.runs.values().map(|&(_, l)| l).max().unwrap_or(at);
                    self.runs.retain(|_, &mut (_, l)| {
                        newest.saturating_duration_since(l) < Self::STEADY
                    });
                }
                self.runs.insert(source.to_owned(), (at, at));
            }
        }
    }

    /// The sources that were moving on their own at `at`: for at least
    /// `Movers::STEADY`, and still shortly before.
    pub fn steady(&self, at: Instant) -> HashSet<String> {
        self.runs
            .iter()
            .filter(|(_, &(start, last))| {
                at.saturating_duration_since(last) <= Self::RECENT
                    && last.saturating_duration_since(start) >= Self::STEADY
            })
            .map(|(source, _)| source.clone())
            .collect()
    }
}

/// How settling went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settled {
    /// From the end of the action to the after snapshot's start.
    pub elapsed: Duration,
    /// Whether the cap ended the wait.
    pub capped: bool,
    /// Meaningful events seen.
    pub events: usize,
    /// Whether the cap ended the wait while the application was still
    /// sending events, or its process was at work (see
    /// [`Watch::working`]): busy with what the action started, not done.
    pub busy: bool,
}

/// The state machine of auto settle, fed with event times; kept apart from
/// the waiting so that it can be tested without a clock.
#[derive(Clone, Debug)]
pub struct Watch {
    quiet: Quiet,
    start: Instant,
    last: Option<Instant>,
    /// The first meaningful event: a change began (see [`Watch::deadline`]).
    first: Option<Instant>,
    /// The last motion event (see [`is_motion`]).
    moved: Option<Instant>,
    /// The last time the application said it was idle (see [`is_idle`]).
    idle: Option<Instant>,
    /// The last time the application's process was seen at work
    /// ([`EventKind::Working`]).
    worked: Option<Instant>,
    events: usize,
    /// Characters the action typed (see [`Watch::typing`]).
    typed: usize,
    /// The quiet window most applications get, when this one was given a
    /// longer one (see [`Watch::longer_window`]).
    usual_window: Option<Duration>,
    /// Characters the application said it inserted since, and when it
    /// last did.
    inserted: usize,
    inserting: Option<Instant>,
}

/// How long typed characters that began to land and are not all there yet
/// are waited for after the last one landed (see the module's doc): a
/// busy application handling keys late pauses longer than the quiet
/// window between two.
pub const TYPING_GAP: Duration = Duration::from_millis(1000);

/// How recently before the cap a process seen at work counts as still at
/// work then: a few of the idle watch's looks, which come every 50 ms
/// while it works.
const WORKED_LATELY: Duration = Duration::from_millis(300);

/// The longest a change that began before the cap is waited for past it
/// (see [`Quiet::cap`]): with a long cap (`wait_for_change`'s timeout),
/// a change that begins at its end still ends the wait soon after.
const LONGEST_LATE_CHANGE: Duration = Duration::from_secs(2);

/// What to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Wait for an event until this instant; if none comes, ask again.
    WaitUntil(Instant),
    /// Settled: take the after snapshot.
    Done {
        /// Whether the cap ended it.
        capped: bool,
    },
}

impl Watch {
    /// Starts watching at `start` (the end of the action).
    pub fn new(quiet: Quiet, start: Instant) -> Watch {
        Watch {
            quiet,
            start,
            last: None,
            first: None,
            moved: None,
            idle: None,
            worked: None,
            events: 0,
            typed: 0,
            usual_window: None,
            inserted: 0,
            inserting: None,
        }
    }

    /// The same watch, for an action that typed `chars` characters into
    /// the application (keys or an accessible insertion).
    pub fn typing(self, chars: usize) -> Watch {
        Watch {
            typed: chars,
            ..self
        }
    }

    /// The same watch, for an application given a quiet window longer than
    /// the `usual` one because it updates part of its UI on timers of its
    /// own, sending nothing meanwhile (LibreOffice's tool bars and status
    /// bar, a few hundred milliseconds after a change). Once it says that
    /// nothing is pending ([`is_idle`]: no timer due, every thread asleep)
    /// at least the usual window after its last change, those timers have
    /// run: settled then, not at the end of the longer window.
    pub fn longer_window(self, usual: Duration) -> Watch {
        Watch {
            usual_window: Some(usual),
            ..self
        }
    }

    /// Records the application saying that it inserted `chars` characters
    /// into a text (see [`Event::inserted`]).
    pub fn inserted(&mut self, chars: usize, at: Instant) {
        if chars == 0 {
            return;
        }
        self.inserted = self.inserted.saturating_add(chars);
        self.inserting = Some(self.inserting.map_or(at, |i| i.max(at)));
    }

    /// When the last typed character landed, while some did and some are
    /// still to come.
    fn typing_lands(&self) -> Option<Instant> {
        self.inserting.filter(|_| self.inserted < self.typed)
    }

    /// Records the application's process at work ([`EventKind::Working`]),
    /// which is also a motion (see [`is_unfinished`]).
    pub fn working(&mut self, at: Instant) {
        self.worked = Some(self.worked.map_or(at, |w| w.max(at)));
    }

    /// Records a motion event (see [`is_motion`]).
    pub fn motion(&mut self, at: Instant) {
        self.moved = Some(self.moved.map_or(at, |m| m.max(at)));
    }

    /// Records the application saying that nothing is pending (see
    /// [`is_idle`]).
    pub fn idle(&mut self, at: Instant) {
        self.idle = Some(self.idle.map_or(at, |i| i.max(at)));
    }

    /// Records a meaningful event.
    pub fn event(&mut self, at: Instant) {
        self.events += 1;
        self.last = Some(self.last.map_or(at, |l| l.max(at)));
        self.first = Some(self.first.map_or(at, |f| f.min(at)));
    }

    /// When the wait ends at the latest: at the cap, or, once a change
    /// began, as long after its first event as the cap (at most
    /// `LONGEST_LATE_CHANGE`), whichever is later. Endless events from
    /// the action on end the wait at the cap; a change that began just
    /// before it is given the time to end.
    pub fn deadline(&self) -> Instant {
        let cap = self.start + self.quiet.cap;
        match self.first {
            Some(first) => cap.max(first.min(cap) + self.quiet.cap.min(LONGEST_LATE_CHANGE)),
            None => cap,
        }
    }

    /// Forgets the changes seen so far (they left the application as it
    /// was): the wait for a first change goes on, up to the cap. The
    /// application saying it was idle before them is forgotten too: it
    /// was not idle then.
    pub fn restart(&mut self) {
        self.last = None;
        self.first = None;
        self.moved = None;
        self.idle = None;
    }

    /// Meaningful events so far.
    pub fn events(&self) -> usize {
        self.events
    }

    /// Whether events came since the wait began, or since the last
    /// [`Watch::restart`], or the process was at work shortly before `now`:
    /// at the cap, the application is still busy (LibreOffice builds its
    /// Save As dialog for more than two seconds under load, sending
    /// nothing meanwhile).
    pub fn stirring(&self, now: Instant) -> bool {
        self.last.is_some()
            || self
                .worked
                .is_some_and(|w| now.saturating_duration_since(w) <= WORKED_LATELY)
    }

    /// What to do at `now`.
    pub fn next(&self, now: Instant) -> Next {
        let cap = self.deadline();
        let floor = self.start + self.quiet.floor;
        // The application said, after the grace, that nothing is pending.
        let idle = self.quiet.grace.is_some_and(|grace| {
            self.idle
                .is_some_and(|i| i >= self.start + grace.max(self.quiet.floor))
        });
        match self.last {
            // Nothing changed yet, and the cap is past: whatever the
            // application says of itself (a page says it is idle every
            // 50 ms), the wait is over. Said first, or a wait restarted
            // after events that left it as it was (see
            // [`Watch::restart`]) would look again at every such word,
            // for ever.
            None if now >= cap => Next::Done { capped: true },
            // Nothing changed, and nothing will.
            None if idle => Next::Done { capped: false },
            // Nothing changed yet: wait for the first change, up to the cap.
            None => Next::WaitUntil(cap),
            Some(last) => {
                // Motion after the last change holds the quiet window off,
                // for a while.
                let moving = self
                    .moved
                    .filter(|&m| m > last)
                    .map_or(last, |m| m.min(last + self.quiet.motion));
                let mut quiet_until = (moving + self.quiet.window).max(floor);
                // An application given a longer window that says, the usual
                // window after its last change, that nothing is pending.
                if let Some(usual) = self.usual_window {
                    let idle = self.idle.filter(|&i| i >= (moving + usual).max(floor));
                    if let Some(idle) = idle {
                        quiet_until = quiet_until.min(idle);
                    }
                }
                // Typing still landing holds it off too.
                if let Some(landed) = self.typing_lands() {
                    quiet_until = quiet_until.max(landed + TYPING_GAP);
                }
                if now >= quiet_until {
                    Next::Done { capped: false }
                } else if now >= cap {
                    Next::Done { capped: true }
                } else {
                    Next::WaitUntil(quiet_until.min(cap))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// The defaults, without grace, capped at `cap`.
    fn quiet(cap: Duration) -> Quiet {
        Quiet {
            floor: ms(30),
            window: ms(150),
            cap,
            motion: ms(500),
            grace: None,
        }
    }

    #[test]
    fn a_process_at_work_shortly_before_the_cap_is_still_busy() {
        let t0 = Instant::now();
        let mut w = Watch::new(quiet(ms(2000)), t0);
        assert!(!w.stirring(t0 + ms(2000)));
        // At work until 1.8 s: busy at the cap, 200 ms later.
        w.working(t0 + ms(1800));
        assert!(w.stirring(t0 + ms(2000)));
        // Not when it stopped well before.
        let mut w = Watch::new(quiet(ms(2000)), t0);
        w.working(t0 + ms(900));
        assert!(!w.stirring(t0 + ms(2000)));
        // Work is no change: the wait for one goes on to the cap.
        assert_eq!(w.next(t0 + ms(1000)), Next::WaitUntil(t0 + ms(2000)));
    }

    #[test]
    fn waits_for_the_first_change_then_for_quiet() {
        let t0 = Instant::now();
        let q = quiet(ms(2000));
        let mut w = Watch::new(q, t0);
        assert_eq!(w.next(t0), Next::WaitUntil(t0 + ms(2000)));
        assert_eq!(w.next(t0 + ms(800)), Next::WaitUntil(t0 + ms(2000)));
        w.event(t0 + ms(800));
        assert_eq!(w.next(t0 + ms(800)), Next::WaitUntil(t0 + ms(950)));
        w.event(t0 + ms(860));
        assert_eq!(w.next(t0 + ms(950)), Next::WaitUntil(t0 + ms(1010)));
        assert_eq!(w.next(t0 + ms(1010)), Next::Done { capped: false });
        assert_eq!(w.events(), 2);
    }

    #[test]
    fn changes_that_left_the_ui_as_it_was_are_forgotten_and_the_wait_goes_on() {
        let t0 = Instant::now();
        let q = quiet(ms(2000));
        let mut w = Watch::new(q, t0);
        w.event(t0 + ms(10));
        assert_eq!(w.next(t0 + ms(160)), Next::Done { capped: false });
        w.restart();
        assert_eq!(w.next(t0 + ms(160)), Next::WaitUntil(t0 + ms(2000)));
        w.event(t0 + ms(400));
        assert_eq!(w.next(t0 + ms(500)), Next::WaitUntil(t0 + ms(550)));
        assert_eq!(w.next(t0 + ms(550)), Next::Done { capped: false });
        assert_eq!(w.events(), 2);
    }

    /// A page says it is idle every 50 ms. Events that left it as it was
    /// restart the wait, which forgets the idle word; the next one came
    /// before the next look ended under load, and each said "done, look
    /// again": a command scrolling a page looked for 26 minutes. Past the
    /// cap, the wait is over whatever the page says.
    #[test]
    fn an_idle_word_after_a_restart_past_the_cap_ends_the_wait() {
        let t0 = Instant::now();
        let q = Quiet {
            grace: Some(ms(100)),
            ..quiet(ms(2000))
        };
        let mut w = Watch::new(q, t0);
        w.event(t0 + ms(40));
        w.idle(t0 + ms(150));
        w.restart();
        // Before the cap, the page's word ends the wait for a change.
        w.idle(t0 + ms(1900));
        assert_eq!(w.next(t0 + ms(1950)), Next::Done { capped: false });
        // Past it, the cap does, whatever the page keeps saying.
        w.restart();
        w.idle(t0 + ms(2040));
        assert_eq!(w.next(t0 + ms(2050)), Next::Done { capped: true });
    }

    #[test]
    fn nothing_happening_ends_at_the_cap_and_endless_events_too() {
        let t0 = Instant::now();
        let q = quiet(ms(500));
        let w = Watch::new(q, t0);
        assert_eq!(w.next(t0 + ms(500)), Next::Done { capped: true });
        let mut w = Watch::new(q, t0);
        for k in 0..50 {
            w.event(t0 + ms(10 * k));
        }
        assert_eq!(w.next(t0 + ms(400)), Next::WaitUntil(t0 + ms(500)));
        assert_eq!(w.next(t0 + ms(500)), Next::Done { capped: true });
    }

    #[test]
    fn a_change_that_begins_shortly_before_the_cap_is_given_the_time_to_end() {
        let t0 = Instant::now();
        let q = quiet(ms(2000));
        // A dialog's first event at 1.7 s, its last at 2.25 s: settled
        // 150 ms after it, not cut at the cap.
        let mut w = Watch::new(q, t0);
        for k in 0..=11 {
            w.event(t0 + ms(1700 + 50 * k));
        }
        assert_eq!(w.deadline(), t0 + ms(3700));
        assert_eq!(w.next(t0 + ms(2250)), Next::WaitUntil(t0 + ms(2400)));
        assert_eq!(w.next(t0 + ms(2400)), Next::Done { capped: false });
        // Endless: it ends as long after its first event as the cap.
        for k in 0..=38 {
            w.event(t0 + ms(2300 + 50 * k));
        }
        assert_eq!(w.next(t0 + ms(3650)), Next::WaitUntil(t0 + ms(3700)));
        assert_eq!(w.next(t0 + ms(3700)), Next::Done { capped: true });
        // Changes forgotten (they left the application as it was) give no
        // more time.
        w.restart();
        assert_eq!(w.deadline(), t0 + ms(2000));
        // A long cap (a wait for a change) gives a late change 2 s.
        let mut w = Watch::new(quiet(ms(30_000)), t0);
        w.event(t0 + ms(29_900));
        assert_eq!(w.deadline(), t0 + ms(31_900));
        // An event read after the cap counts from the cap.
        let mut w = Watch::new(q, t0);
        w.event(t0 + ms(2100));
        assert_eq!(w.deadline(), t0 + ms(4000));
    }

    #[test]
    fn motion_after_a_change_holds_off_the_quiet_window_for_a_while() {
        let t0 = Instant::now();
        let q = quiet(ms(2000));
        // Motion alone is no change: still waiting for the first.
        let mut w = Watch::new(q, t0);
        w.motion(t0 + ms(5));
        assert_eq!(w.next(t0 + ms(10)), Next::WaitUntil(t0 + ms(2000)));
        // A revealer sliding shut: the value changes at 12 ms, places move
        // until 262 ms, and the label's `showing` goes at 283 ms.
        w.event(t0 + ms(12));
        for k in 0..13 {
            w.motion(t0 + ms(33 + 19 * k));
        }
        assert_eq!(w.next(t0 + ms(270)), Next::WaitUntil(t0 + ms(261 + 150)));
        w.event(t0 + ms(283));
        assert_eq!(w.next(t0 + ms(411)), Next::WaitUntil(t0 + ms(433)));
        assert_eq!(w.next(t0 + ms(433)), Next::Done { capped: false });
        assert_eq!(w.events(), 2);
        // Motion that never stops is waited for 500 ms after the change.
        let mut w = Watch::new(q, t0);
        w.event(t0 + ms(10));
        for k in 0..200 {
            w.motion(t0 + ms(10 + 10 * k));
        }
        assert_eq!(w.next(t0 + ms(600)), Next::WaitUntil(t0 + ms(660)));
        assert_eq!(w.next(t0 + ms(660)), Next::Done { capped: false });
    }

    #[test]
    fn an_animation_is_told_from_a_transition_by_how_long_it_moves() {
        let t0 = Instant::now();
        let mut m = Movers::default();
        // A spinner: every 17 ms for a second.
        for k in 0..60 {
            m.saw("spinner", t0 + ms(17 * k));
        }
        // A revealer: every 20 ms for 250 ms, ending 300 ms before.
        for k in 0..13 {
            m.saw("revealer", t0 + ms(450 + 20 * k));
        }
        // Something that moved long ago for long, and stopped.
        for k in 0..40 {
            m.saw("stopped", t0 + ms(10 * k));
        }
        let at = t0 + ms(1010);
        assert_eq!(m.steady(at), HashSet::from(["spinner".to_owned()]));
        // A pause longer than a gap starts a new run.
        m.saw("spinner", t0 + ms(1300));
        assert!(m.steady(t0 + ms(1310)).is_empty());
    }

    #[test]
    fn an_application_idle_after_the_grace_with_nothing_changed_is_settled() {
        let t0 = Instant::now();
        let q = Quiet {
            floor: ms(30),
            window: ms(150),
            cap: ms(2000),
            motion: ms(400),
            grace: Some(ms(100)),
        };
        // Idle within the grace says nothing: the action's own reports may
        // not have arrived yet.
        let mut w = Watch::new(q, t0);
        w.idle(t0 + ms(20));
        w.idle(t0 + ms(70));
        assert_eq!(w.next(t0 + ms(90)), Next::WaitUntil(t0 + ms(2000)));
        w.idle(t0 + ms(120));
        assert_eq!(w.next(t0 + ms(121)), Next::Done { capped: false });
        assert_eq!(w.events(), 0);
        // Once something changed, idle ends nothing: the quiet window does.
        let mut w = Watch::new(q, t0);
        w.event(t0 + ms(10));
        w.idle(t0 + ms(120));
        assert_eq!(w.next(t0 + ms(121)), Next::WaitUntil(t0 + ms(160)));
        assert_eq!(w.next(t0 + ms(160)), Next::Done { capped: false });
        // Events that left the application as it was restart the wait for
        // a change: idle heard before them is forgotten, idle after them
        // ends it.
        let mut w = Watch::new(q, t0);
        w.idle(t0 + ms(120));
        w.event(t0 + ms(130));
        w.restart();
        assert_eq!(w.next(t0 + ms(300)), Next::WaitUntil(t0 + ms(2000)));
        w.idle(t0 + ms(400));
        assert_eq!(w.next(t0 + ms(401)), Next::Done { capped: false });
        // Without a grace (a wait for a change), idle is not listened to.
        let mut w = Watch::new(Quiet { grace: None, ..q }, t0);
        w.idle(t0 + ms(500));
        assert_eq!(w.next(t0 + ms(501)), Next::WaitUntil(t0 + ms(2000)));
        // The floor holds over a shorter grace.
        let mut w = Watch::new(
            Quiet {
                floor: ms(300),
                ..q
            },
            t0,
        );
        w.idle(t0 + ms(200));
        assert_eq!(w.next(t0 + ms(201)), Next::WaitUntil(t0 + ms(2000)));
        w.idle(t0 + ms(300));
        assert_eq!(w.next(t0 + ms(301)), Next::Done { capped: false });
    }

    #[test]
    fn typing_that_began_to_land_is_waited_for_while_it_still_comes() {
        let t0 = Instant::now();
        let q = quiet(ms(2000));
        // Five characters typed; they land 250 ms apart, the first at
        // 250 ms: each gap is longer than the quiet window.
        let mut w = Watch::new(q, t0).typing(5);
        for k in 1..=4u64 {
            let at = t0 + ms(250 * k);
            w.event(at);
            w.inserted(1, at);
            assert_eq!(w.next(at + ms(150)), Next::WaitUntil(at + TYPING_GAP));
        }
        let at = t0 + ms(1250);
        w.event(at);
        w.inserted(1, at);
        // All there: the quiet window ends it.
        assert_eq!(w.next(at), Next::WaitUntil(at + ms(150)));
        assert_eq!(w.next(at + ms(150)), Next::Done { capped: false });

        // A field that took three of five: done a gap after the three.
        let mut w = Watch::new(q, t0).typing(5);
        w.event(t0 + ms(20));
        w.inserted(3, t0 + ms(20));
        assert_eq!(w.next(t0 + ms(170)), Next::WaitUntil(t0 + ms(1020)));
        assert_eq!(w.next(t0 + ms(1020)), Next::Done { capped: false });

        // Held off within the cap only: the gap does not pass the deadline.
        let mut w = Watch::new(quiet(ms(500)), t0).typing(5);
        w.event(t0 + ms(10));
        w.inserted(1, t0 + ms(450));
        assert_eq!(w.deadline(), t0 + ms(510));
        assert_eq!(w.next(t0 + ms(510)), Next::Done { capped: true });

        // An application that says nothing of insertions (or a change
        // without any) is settled by the quiet window, as before.
        let mut w = Watch::new(q, t0).typing(5);
        w.event(t0 + ms(20));
        assert_eq!(w.next(t0 + ms(170)), Next::Done { capped: false });
        // Nor does an action that typed nothing wait for insertions.
        let mut w = Watch::new(q, t0);
        w.event(t0 + ms(20));
        w.inserted(1, t0 + ms(20));
        assert_eq!(w.next(t0 + ms(170)), Next::Done { capped: false });
        // More than typed (a completion, a field that formats): done.
        let mut w = Watch::new(q, t0).typing(3);
        w.event(t0 + ms(20));
        w.inserted(1, t0 + ms(20));
        w.inserted(14, t0 + ms(40));
        assert_eq!(w.next(t0 + ms(190)), Next::Done { capped: false });
    }

    #[test]
    fn a_longer_window_ends_when_the_application_says_nothing_is_pending() {
        let t0 = Instant::now();
        // LibreOffice's: 750 ms, where most applications get 150.
        let q = Quiet {
            window: ms(750),
            ..quiet(ms(2000))
        };
        // A cell moved to at 4 ms, the tool bar brought up to date at
        // 605 ms, the process idle from 1044 ms: settled then, not at
        // 1355 ms.
        let mut w = Watch::new(q, t0).longer_window(ms(150));
        w.event(t0 + ms(4));
        w.idle(t0 + ms(300));
        w.event(t0 + ms(605));
        assert_eq!(w.next(t0 + ms(1000)), Next::WaitUntil(t0 + ms(1355)));
        w.idle(t0 + ms(1044));
        assert_eq!(w.next(t0 + ms(1044)), Next::Done { capped: false });
        // Idle sooner than the usual window after the last change says
        // nothing yet.
        let mut w = Watch::new(q, t0).longer_window(ms(150));
        w.event(t0 + ms(605));
        w.idle(t0 + ms(700));
        assert_eq!(w.next(t0 + ms(700)), Next::WaitUntil(t0 + ms(1355)));
        // Nor does idle for an application with the usual window, or one
        // with a longer window that never says so (a caret blinking: a
        // timer always due).
        let mut w = Watch::new(q, t0);
        w.event(t0 + ms(605));
        w.idle(t0 + ms(1044));
        assert_eq!(w.next(t0 + ms(1044)), Next::WaitUntil(t0 + ms(1355)));
        // Typing still landing holds it off all the same.
        let mut w = Watch::new(q, t0).longer_window(ms(150)).typing(4);
        w.event(t0 + ms(605));
        w.inserted(1, t0 + ms(605));
        w.idle(t0 + ms(1044));
        assert_eq!(w.next(t0 + ms(1044)), Next::WaitUntil(t0 + ms(1605)));
    }

    #[test]
    fn the_floor_holds_even_when_quiet_comes_sooner() {
        let t0 = Instant::now();
        let q = Quiet {
            floor: ms(300),
            window: ms(50),
            cap: ms(2000),
            motion: ms(500),
            grace: None,
        };
        let mut w = Watch::new(q, t0);
        w.event(t0 + ms(1));
        assert_eq!(w.next(t0 + ms(100)), Next::WaitUntil(t0 + ms(300)));
        assert_eq!(w.next(t0 + ms(300)), Next::Done { capped: false });
    }

    #[test]
    fn noise_and_motion_are_recognised() {
        assert!(is_noise(&EventKind::Noise));
        assert!(is_noise(&EventKind::Motion));
        assert!(is_noise(&EventKind::Idle));
        assert!(is_idle(&EventKind::Idle));
        assert!(!is_idle(&EventKind::Change));
        assert!(!is_motion(&EventKind::Idle));
        assert!(!is_noise(&EventKind::Change));
        // The process at work: no change, but one may not be over.
        assert!(is_noise(&EventKind::Working));
        assert!(is_unfinished(&EventKind::Working));
        assert!(is_unfinished(&EventKind::Motion));
        assert!(!is_motion(&EventKind::Working));
        assert!(!is_unfinished(&EventKind::Idle));
        assert!(!is_noise(&EventKind::Focus));
        assert!(is_motion(&EventKind::Motion));
        assert!(!is_motion(&EventKind::Noise));
        assert!(!is_motion(&EventKind::Change));
        assert!(!is_motion(&EventKind::Focus));
    }
}
