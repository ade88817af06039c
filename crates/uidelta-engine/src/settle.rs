//! Deciding when the UI has settled after an action.
//!
//! Auto mode reads the application's event stream. It first waits for the
//! UI to start changing (a dialog that opens after 800 ms sends nothing
//! before it opens), then for a quiet window without events, never less than
//! a floor and never more than a cap. Events that say nothing about the
//! application's state (tooltips, bounds, caret moves) are ignored, or an
//! animation would keep the UI from ever settling.

use std::time::{Duration, Instant};

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
    /// Give up waiting after this long; the result says the cap was hit.
    pub cap: Duration,
}

impl Default for Quiet {
    /// Defaults chosen by measurement (BENCHMARKS.md, "Settle"): GTK sends
    /// the events of one update within a few milliseconds of each other and
    /// of the change itself; 150 ms of quiet separates updates reliably, and
    /// a 2 s cap bounds actions that change nothing.
    fn default() -> Self {
        Quiet {
            floor: Duration::from_millis(30),
            window: Duration::from_millis(150),
            cap: Duration::from_millis(2000),
        }
    }
}

/// Whether an event kind says nothing about the application's state.
pub fn is_noise(kind: &str) -> bool {
    const NOISE: [&str; 10] = [
        "object:bounds-changed",
        "object:visible-data-changed",
        "object:text-caret-moved",
        "object:text-selection-changed",
        "object:state-changed:has-tooltip",
        "object:state-changed:armed",
        "object:state-changed:animated",
        "object:state-changed:stale",
        "object:state-changed:defunct",
        "object:state-changed:opaque",
    ];
    NOISE.iter().any(|n| kind.starts_with(n))
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
}

/// The state machine of auto settle, fed with event times; kept apart from
/// the waiting so that it can be tested without a clock.
#[derive(Clone, Debug)]
pub struct Watch {
    quiet: Quiet,
    start: Instant,
    last: Option<Instant>,
    events: usize,
}

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
            events: 0,
        }
    }

    /// Records a meaningful event.
    pub fn event(&mut self, at: Instant) {
        self.events += 1;
        self.last = Some(self.last.map_or(at, |l| l.max(at)));
    }

    /// Meaningful events so far.
    pub fn events(&self) -> usize {
        self.events
    }

    /// What to do at `now`.
    pub fn next(&self, now: Instant) -> Next {
        let cap = self.start + self.quiet.cap;
        let floor = self.start + self.quiet.floor;
        match self.last {
            // Nothing changed yet: wait for the first change, up to the cap.
            None if now >= cap => Next::Done { capped: true },
            None => Next::WaitUntil(cap),
            Some(last) => {
                let quiet_until = (last + self.quiet.window).max(floor);
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

    #[test]
    fn waits_for_the_first_change_then_for_quiet() {
        let t0 = Instant::now();
        let q = Quiet {
            floor: ms(30),
            window: ms(150),
            cap: ms(2000),
        };
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
    fn nothing_happening_ends_at_the_cap_and_endless_events_too() {
        let t0 = Instant::now();
        let q = Quiet {
            floor: ms(30),
            window: ms(150),
            cap: ms(500),
        };
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
    fn the_floor_holds_even_when_quiet_comes_sooner() {
        let t0 = Instant::now();
        let q = Quiet {
            floor: ms(300),
            window: ms(50),
            cap: ms(2000),
        };
        let mut w = Watch::new(q, t0);
        w.event(t0 + ms(1));
        assert_eq!(w.next(t0 + ms(100)), Next::WaitUntil(t0 + ms(300)));
        assert_eq!(w.next(t0 + ms(300)), Next::Done { capped: false });
    }

    #[test]
    fn noise_is_recognised() {
        assert!(is_noise("object:state-changed:has-tooltip"));
        assert!(is_noise("object:bounds-changed"));
        assert!(!is_noise("object:state-changed:checked"));
        assert!(!is_noise("object:children-changed:add"));
    }
}
