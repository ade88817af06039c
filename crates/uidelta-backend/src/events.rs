//! Events on their way from a backend to a session.
//!
//! A backend reads events from a connection that carries its replies too
//! (the accessibility bus, a browser's socket): a feeder that waited for a
//! session to read would stop the replies of every session. So the queue
//! between them never makes the feeder wait. It keeps the latest event of
//! each kind (by its platform name, [`Event::detail`]) and element (with
//! the characters inserted of all it stands for, [`Event::inserted`]), holds
//! at most [`EventStream::HELD`] of them, and past that drops further
//! events and tells the reader that it missed some (it must then read the
//! application in full). A stream left unread for its idle limit
//! ([`EventStream::IDLE`] by default) stops its feeder and frees what it
//! held at its next event: a session that stops listening costs nothing,
//! and subscribes again when it comes back ([`EventStream::lapsed`]). An
//! application saying it is idle ([`EventKind::Idle`], a page's beat while
//! nothing is pending) or at work ([`EventKind::Working`]) is not such an
//! event: a quiet page does not lapse. Noise ([`EventKind::Noise`]) is
//! such an event, but is not held: the reader decides nothing on it.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::{Event, EventKind};

/// The kind (with its platform name) and source of an event: what one held
/// event stands for.
type Key = (EventKind, String, Option<String>);

/// Unread events, the latest of each kind and source, oldest first.
#[derive(Debug)]
pub(crate) struct Pending {
    /// Arrival number → the key of the event that arrived then.
    order: BTreeMap<u64, Key>,
    /// Key → its arrival number and time, and the characters inserted of
    /// every event it stands for.
    latest: HashMap<Key, (u64, Instant, usize)>,
    next: u64,
    cap: usize,
    missed: bool,
}

impl Pending {
    /// An empty queue holding events of at most `cap` kinds and sources.
    pub fn new(cap: usize) -> Pending {
        Pending {
            order: BTreeMap::new(),
            latest: HashMap::new(),
            next: 0,
            cap,
            missed: false,
        }
    }

    /// Adds `event`. One of the same kind and source already held is
    /// replaced (the new one goes to the back, with the characters both
    /// inserted); a new kind and source when `cap` are held is dropped, and
    /// noted as missed.
    pub fn push(&mut self, event: Event) {
        let seq = self.next;
        let key = (event.kind, event.detail, event.source);
        let full = self.latest.len() >= self.cap;
        match self.latest.get_mut(&key) {
            Some((old, at, inserted)) => {
                let key = self.order.remove(old).unwrap_or(key);
                *old = seq;
                *at = event.at;
                *inserted = inserted.saturating_add(event.inserted);
                self.order.insert(seq, key);
            }
            None if full => {
                self.missed = true;
                return;
            }
            None => {
                self.latest
                    .insert(key.clone(), (seq, event.at, event.inserted));
                self.order.insert(seq, key);
            }
        }
        self.next += 1;
    }

    /// The oldest event held.
    pub fn pop(&mut self) -> Option<Event> {
        let (_, key) = self.order.pop_first()?;
        let (_, at, inserted) = self.latest.remove(&key)?;
        Some(Event {
            kind: key.0,
            detail: key.1,
            source: key.2,
            at,
            inserted,
        })
    }

    /// How many events are held.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether events were dropped since the last call; clears the mark.
    pub fn take_missed(&mut self) -> bool {
        std::mem::take(&mut self.missed)
    }

    /// Drops every event held and the missed mark; frees their memory.
    pub fn clear(&mut self) {
        self.order = BTreeMap::new();
        self.latest = HashMap::new();
        self.missed = false;
    }
}

/// What the feeder and the reader of one stream share.
struct Shared {
    state: Mutex<State>,
    /// Wakes a reader waiting for an event (or for the feeder's end).
    wake: Notify,
}

struct State {
    pending: Pending,
    /// When the reader last read, or stopped waiting.
    read_at: Instant,
    /// Whether the reader is waiting for an event right now.
    reading: bool,
    /// How long the reader may leave the stream unread before it lapses.
    idle: Duration,
    /// The feeder stopped: it went away, or the stream lapsed.
    ended: bool,
    /// The reader went away.
    dropped: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding it; a poisoned lock still holds
        // consistent state.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The feeding half of an [`EventStream`]: a backend's task that reads
/// events hands each to [`EventSender::send`], which never waits.
pub struct EventSender {
    shared: Arc<Shared>,
}

impl EventSender {
    /// Queues `event` for the reader, without waiting. Returns false when
    /// nobody will read it, and the feeder should stop: the stream was
    /// dropped, or went unread for its idle limit (it then drops what it
    /// held, and tells its reader to subscribe again).
    pub fn send(&self, event: Event) -> bool {
        let mut state = self.shared.lock();
        if state.dropped || state.ended {
            return false;
        }
        // An application saying it is idle (a page beats it while nothing
        // is pending) or at work is no news: it never ends a quiet stream.
        let news = !matches!(event.kind, EventKind::Idle | EventKind::Working);
        if news && !state.reading && event.at.saturating_duration_since(state.read_at) >= state.idle
        {
            state.ended = true;
            state.pending.clear();
            return false;
        }
        // Noise says nothing a reader decides on, and takes no room: a
        // burst of it (LibreOffice lets go of hundreds of accessibles as a
        // dialog opens, each saying so) would crowd out what does, and the
        // reader would hear that it missed changes.
        if event.kind == EventKind::Noise {
            return true;
        }
        state.pending.push(event);
        drop(state);
        self.shared.wake.notify_one();
        true
    }
}

impl Drop for EventSender {
    fn drop(&mut self) {
        self.shared.lock().ended = true;
        self.shared.wake.notify_one();
    }
}

/// A stream of events, live until dropped. See the module's doc for what
/// it holds and when it lapses.
pub struct EventStream {
    shared: Arc<Shared>,
    silent: bool,
    _guard: Box<dyn Send + Sync>,
}

impl EventStream {
    /// Events held unread at most: one per kind and source, so that an
    /// application busy with one element (a text typed into) holds a few.
    pub const HELD: usize = 1024;
    /// How long a stream may go unread before it lapses, by default: well
    /// beyond the pauses of an agent that is thinking, short enough that
    /// an abandoned session soon costs nothing.
    pub const IDLE: Duration = Duration::from_secs(300);

    /// A stream and its feeding half.
    pub fn channel() -> (EventSender, EventStream) {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                pending: Pending::new(EventStream::HELD),
                read_at: Instant::now(),
                reading: false,
                idle: EventStream::IDLE,
                ended: false,
                dropped: false,
            }),
            wake: Notify::new(),
        });
        let stream = EventStream {
            shared: Arc::clone(&shared),
            silent: false,
            _guard: Box::new(()),
        };
        (EventSender { shared }, stream)
    }

    /// The same stream, keeping `guard` until it is dropped (a guard stops
    /// whatever feeds the stream).
    pub fn with_guard(mut self, guard: Box<dyn Send + Sync>) -> EventStream {
        self._guard = guard;
        self
    }

    /// The same stream, lapsing after `idle` unread instead of
    /// [`EventStream::IDLE`].
    pub fn with_idle_limit(self, idle: Duration) -> EventStream {
        self.shared.lock().idle = idle;
        self
    }

    /// A stream that never yields: for backends without events, which the
    /// engine then settles by polling.
    pub fn silent() -> EventStream {
        let (_, mut stream) = EventStream::channel();
        stream.silent = true;
        stream
    }

    /// Whether this stream never yields (the backend has no events).
    pub fn is_silent(&self) -> bool {
        self.silent
    }

    /// Whether the stream's feeder stopped, for going unread too long or
    /// because its source went away: what happens now is not heard, so
    /// subscribe again. (Never for a silent stream.)
    pub fn lapsed(&self) -> bool {
        !self.silent && self.read().ended
    }

    /// Whether events were dropped, for want of room, since the last call:
    /// the application changed in ways the events held no longer tell, so
    /// read it in full. Clears the mark.
    pub fn take_missed(&mut self) -> bool {
        self.read().pending.take_missed()
    }

    /// The next event, or `None` when `deadline` passes, or at once when
    /// the stream ends during the wait (its source went away: the
    /// application exited; see [`EventStream::lapsed`]). A stream that had
    /// ended already waits out the deadline, so that callers looping on it
    /// never spin.
    pub async fn next_before(&mut self, deadline: Instant) -> Option<Event> {
        let deadline = tokio::time::Instant::from_std(deadline);
        let _reading = Reading::start(&self.shared);
        let mut waited = false;
        loop {
            let ended = {
                let mut state = self.shared.lock();
                if let Some(event) = state.pending.pop() {
                    return Some(event);
                }
                state.ended
            };
            if ended && waited {
                return None;
            }
            if ended {
                tokio::time::sleep_until(deadline).await;
                return None;
            }
            waited = true;
            // A send between the check and here leaves a permit: no event
            // is slept through.
            if tokio::time::timeout_at(deadline, self.shared.wake.notified())
                .await
                .is_err()
            {
                return None;
            }
        }
    }

    /// An event already queued, without waiting.
    pub fn try_next(&mut self) -> Option<Event> {
        self.read().pending.pop()
    }

    /// Drops every event already queued, and the missed mark (the caller
    /// reads the application anew); returns how many events there were.
    pub fn drain(&mut self) -> usize {
        let mut state = self.read();
        let n = state.pending.len();
        state.pending.clear();
        n
    }

    /// The state, noting that the reader is reading.
    fn read(&self) -> MutexGuard<'_, State> {
        let mut state = self.shared.lock();
        state.read_at = Instant::now();
        state
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.dropped = true;
        state.pending.clear();
    }
}

/// Marks a reader as waiting while it waits (however the wait ends: a
/// caller may drop the future), so that a long wait never lapses.
struct Reading<'a>(&'a Shared);

impl<'a> Reading<'a> {
    fn start(shared: &'a Shared) -> Reading<'a> {
        let mut state = shared.lock();
        state.reading = true;
        state.read_at = Instant::now();
        Reading(shared)
    }
}

impl Drop for Reading<'_> {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.reading = false;
        state.read_at = Instant::now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event named `detail`; its kind says nothing to the queue, which
    /// holds events by name and source.
    fn event(detail: &str, source: &str, at: Instant) -> Event {
        Event {
            kind: EventKind::Change,
            detail: detail.to_owned(),
            source: Some(source.to_owned()),
            at,
            inserted: 0,
        }
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn all(p: &mut Pending) -> Vec<(String, Option<String>, Instant)> {
        std::iter::from_fn(|| p.pop())
            .map(|e| (e.detail, e.source, e.at))
            .collect()
    }

    #[test]
    fn events_of_one_kind_and_element_are_held_as_the_latest() {
        let t0 = Instant::now();
        let mut p = Pending::new(8);
        // Three thousand characters typed into one entry, and a button
        // that changed state on the way.
        for k in 0..3000 {
            p.push(event("text inserted", "entry", t0 + ms(k)));
            p.push(event("caret moved", "entry", t0 + ms(k)));
            if k == 10 {
                p.push(event("enabled changed", "button", t0 + ms(k)));
            }
        }
        assert_eq!(p.len(), 3);
        assert!(!p.take_missed());
        // Oldest first, as of the latest of each.
        assert_eq!(
            all(&mut p),
            [
                ("enabled changed".into(), Some("button".into()), t0 + ms(10)),
                ("text inserted".into(), Some("entry".into()), t0 + ms(2999)),
                ("caret moved".into(), Some("entry".into()), t0 + ms(2999)),
            ]
        );
        assert_eq!(p.len(), 0);
        assert!(p.latest.is_empty(), "popping leaves nothing behind");
    }

    #[test]
    fn events_held_as_one_add_up_the_characters_they_inserted() {
        let t0 = Instant::now();
        let mut p = Pending::new(8);
        // Five characters typed one at a time, then a paste of twelve.
        for k in 0..5 {
            p.push(Event {
                inserted: 1,
                ..event("text inserted", "entry", t0 + ms(k))
            });
        }
        p.push(event("caret moved", "entry", t0 + ms(5)));
        p.push(Event {
            inserted: 12,
            ..event("text inserted", "entry", t0 + ms(6))
        });
        let held: Vec<(String, usize)> = std::iter::from_fn(|| p.pop())
            .map(|e| (e.detail, e.inserted))
            .collect();
        assert_eq!(
            held,
            [("caret moved".into(), 0), ("text inserted".into(), 17)]
        );
        // Read, they count no more.
        p.push(Event {
            inserted: 1,
            ..event("text inserted", "entry", t0 + ms(7))
        });
        assert_eq!(p.pop().map(|e| e.inserted), Some(1));
    }

    #[test]
    fn past_the_bound_new_events_are_dropped_and_marked_missed() {
        let t0 = Instant::now();
        let mut p = Pending::new(3);
        for k in 0..5u64 {
            p.push(event("child added", &format!("row{k}"), t0 + ms(k)));
        }
        assert_eq!(p.len(), 3);
        // Ones already held are still kept up to date when full.
        p.push(event("child added", "row0", t0 + ms(9)));
        assert_eq!(p.len(), 3);
        assert!(p.take_missed());
        assert!(!p.take_missed(), "the mark is taken once");
        let sources: Vec<Option<String>> = all(&mut p).into_iter().map(|e| e.1).collect();
        assert_eq!(
            sources,
            [
                Some("row1".into()),
                Some("row2".into()),
                Some("row0".into())
            ]
        );
        // Room again once read.
        p.push(event("child added", "row4", t0 + ms(10)));
        assert_eq!(p.len(), 1);
        assert!(!p.take_missed());
    }

    #[test]
    fn clearing_drops_the_events_and_the_mark() {
        let t0 = Instant::now();
        let mut p = Pending::new(1);
        p.push(event("a", "x", t0));
        p.push(event("b", "x", t0));
        p.clear();
        assert_eq!(p.len(), 0);
        assert!(!p.take_missed());
    }

    #[test]
    fn a_sender_never_waits_however_much_goes_unread() {
        let (tx, mut stream) = EventStream::channel();
        let t0 = Instant::now();
        for k in 0..100_000u64 {
            let source = format!("node{}", k % 5000);
            assert!(tx.send(event("checked changed", &source, t0)));
        }
        assert_eq!(stream.read().pending.len(), EventStream::HELD);
        assert!(stream.take_missed());
        assert_eq!(stream.drain(), EventStream::HELD);
        assert!(stream.try_next().is_none());
        assert!(!stream.lapsed());
    }

    #[test]
    fn noise_takes_no_room_and_is_never_missed() {
        let (tx, mut stream) = EventStream::channel();
        let t0 = Instant::now();
        // A dialog opening: hundreds of accessibles let go of, each saying
        // so, more than the queue holds, around the changes themselves.
        assert!(tx.send(event("window created", "dialog", t0)));
        for k in 0..(2 * EventStream::HELD) {
            let noise = Event {
                kind: EventKind::Noise,
                ..event("defunct", &format!("node{k}"), t0)
            };
            assert!(tx.send(noise));
        }
        assert!(tx.send(event("focus moved", "field", t0)));
        assert!(!stream.take_missed());
        let details: Vec<String> = std::iter::from_fn(|| stream.try_next())
            .map(|e| e.detail)
            .collect();
        assert_eq!(details, ["window created", "focus moved"]);
        // Noise is still news: a stream left unread lapses at its next one.
        let read_at = stream.shared.lock().read_at;
        let late = Event {
            kind: EventKind::Noise,
            ..event("defunct", "node0", read_at + EventStream::IDLE)
        };
        assert!(!tx.send(late));
        assert!(stream.lapsed());
    }

    #[test]
    fn a_stream_left_unread_lapses_and_stops_its_sender() {
        let (tx, mut stream) = EventStream::channel();
        let read_at = stream.shared.lock().read_at;
        assert!(tx.send(event("a", "x", read_at + ms(10))));
        assert!(tx.send(event("b", "x", read_at + EventStream::IDLE - ms(1))));
        assert_eq!(stream.shared.lock().pending.len(), 2);
        // Unread for the idle limit: the next event ends it.
        assert!(!tx.send(event("c", "x", read_at + EventStream::IDLE)));
        assert!(stream.lapsed());
        assert_eq!(stream.drain(), 0, "what it held is freed");
        assert!(!tx.send(event("d", "x", Instant::now())));
    }

    #[test]
    fn an_application_saying_it_is_idle_does_not_end_an_unread_stream() {
        let (tx, stream) = EventStream::channel();
        let read_at = stream.shared.lock().read_at;
        let idle = |at| Event {
            kind: EventKind::Idle,
            detail: "page:idle".to_owned(),
            source: None,
            at,
            inserted: 0,
        };
        assert!(tx.send(idle(read_at + EventStream::IDLE)));
        assert!(tx.send(idle(read_at + EventStream::IDLE * 3)));
        // Nor its process at work.
        let working = Event {
            kind: EventKind::Working,
            detail: "process:working".to_owned(),
            ..idle(read_at + EventStream::IDLE * 3)
        };
        assert!(tx.send(working.clone()));
        assert!(!stream.lapsed());
        // One held of each, however many beats.
        assert!(tx.send(working));
        assert_eq!(stream.shared.lock().pending.len(), 2);
        // News after the idle limit still ends it.
        assert!(!tx.send(event("a", "x", read_at + EventStream::IDLE * 3)));
        assert!(stream.lapsed());
    }

    #[tokio::test]
    async fn a_reader_waiting_is_listening_however_long_it_waits() {
        let (tx, stream) = EventStream::channel();
        let mut stream = stream.with_idle_limit(ms(1));
        let sender = tokio::spawn(async move {
            tokio::time::sleep(ms(50)).await;
            tx.send(event("a", "x", Instant::now()))
        });
        let got = stream
            .next_before(Instant::now() + Duration::from_secs(30))
            .await;
        assert_eq!(got.map(|e| e.detail), Some("a".to_owned()));
        assert_eq!(sender.await.ok(), Some(true));
        assert!(stream.lapsed(), "the sender is gone");
    }

    #[tokio::test]
    async fn a_reader_waiting_hears_at_once_that_the_source_went_away() {
        let (tx, mut stream) = EventStream::channel();
        let feeder = tokio::spawn(async move {
            tokio::time::sleep(ms(50)).await;
            drop(tx);
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        assert_eq!(stream.next_before(deadline).await.map(|e| e.detail), None);
        assert!(Instant::now() < deadline, "answered before the deadline");
        assert!(stream.lapsed());
        assert!(feeder.await.is_ok());
    }

    #[test]
    fn a_dropped_stream_stops_its_sender() {
        let (tx, stream) = EventStream::channel();
        drop(stream);
        assert!(!tx.send(event("a", "x", Instant::now())));
    }

    #[test]
    fn a_silent_stream_never_lapses() {
        let stream = EventStream::silent();
        assert!(stream.is_silent());
        assert!(!stream.lapsed());
    }
}
