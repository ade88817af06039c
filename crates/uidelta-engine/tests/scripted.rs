//! The engine against a scripted backend, for what no real application
//! can be made to do exactly then, at a test's bidding: send more than
//! `EventStream::HELD` kinds of event from as many elements (events dropped
//! for want of room count as a change: before acting, the engine reads the
//! application again rather than trusting its last snapshot), stay busy
//! through the cap, take half a second for every read, or have a second
//! window with the same button.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use uidelta_backend::{
    Action, App, Backend, Error, ErrorKind, Event, EventKind, EventSender, EventStream, Performed,
    Result, Scope,
};
use uidelta_engine::{ActOptions, Session, Settle};
use uidelta_model::{Meta, NodeData, Rect, Role, Snapshot, State, TreeBuilder};

/// One application, `scripted`: a window with an entry whose value the
/// test sets, and a button that does nothing. The sender of the last
/// event stream handed out is kept for the test to feed. Each read takes
/// `read_takes`, and when each began is kept.
#[derive(Default)]
struct Scripted {
    value: Mutex<String>,
    sender: Mutex<Option<EventSender>>,
    read_takes: Mutex<Duration>,
    reads: Mutex<Vec<Instant>>,
    /// An action gives the button the keyboard focus.
    focuses: Mutex<bool>,
    /// The button has the keyboard focus.
    focused: Mutex<bool>,
    /// A second window, `Other`, with a `Go` button of its own.
    other_window: Mutex<bool>,
    /// The main window says it is active.
    main_active: Mutex<bool>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn node(role: Role, name: &str, id: u32) -> NodeData {
    let mut n = NodeData::named(role, name);
    n.identity = Some(format!(":1.1/{id}"));
    n.states.insert(State::Enabled);
    n.states.insert(State::Showing);
    n.bounds = Some(Rect::new(10, 10 * id as i32, 100, 20));
    n
}

fn unsupported<T>(what: &str) -> Result<T> {
    Err(Error::new(
        ErrorKind::Unsupported,
        format!("{what}: the scripted application has none"),
    ))
}

impl Backend for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }

    async fn apps(&self) -> Result<Vec<App>> {
        Ok(vec![App {
            name: "scripted".into(),
            pid: None,
            id: ":1.1".into(),
            windows: Vec::new(),
            error: None,
        }])
    }

    async fn capture(&self, _app: &App, _scope: &Scope) -> Result<Snapshot> {
        lock(&self.reads).push(Instant::now());
        let takes = *lock(&self.read_takes);
        tokio::time::sleep(takes).await;
        let mut b = TreeBuilder::new(node(Role::Application, "scripted", 0));
        let mut main = node(Role::Frame, "Main", 1);
        if *lock(&self.main_active) {
            main.states.insert(State::Active);
        }
        b.open(main);
        let mut entry = node(Role::Entry, "Notes", 2);
        entry.value = Some(lock(&self.value).clone());
        b.leaf(entry);
        let mut go = node(Role::PushButton, "Go", 3);
        go.states.insert(State::Focusable);
        if *lock(&self.focused) {
            go.states.insert(State::Focused);
        }
        b.leaf(go);
        b.close();
        if *lock(&self.other_window) {
            b.open(node(Role::Frame, "Other", 4));
            b.leaf(node(Role::PushButton, "Go", 5));
            b.close();
        }
        let meta = Meta {
            source: "scripted".into(),
            app: Some("scripted".into()),
            ..Meta::default()
        };
        Ok(Snapshot::new(meta, b.finish()))
    }

    async fn act(&self, _app: &App, _node: &NodeData, _action: &Action) -> Result<Performed> {
        if *lock(&self.focuses) {
            *lock(&self.focused) = true;
        }
        Ok(Performed {
            method: "scripted action".into(),
        })
    }

    async fn key(&self, _app: &App, _chord: &str) -> Result<Performed> {
        unsupported("keys")
    }

    async fn events(&self, _app: &App) -> Result<EventStream> {
        let (tx, stream) = EventStream::channel();
        *lock(&self.sender) = Some(tx);
        Ok(stream)
    }

    async fn screenshot(&self, _area: Option<Rect>) -> Result<Vec<u8>> {
        unsupported("a screen")
    }

    async fn open(
        &self,
        program: &str,
        _args: &[String],
        _timeout: std::time::Duration,
    ) -> Result<App> {
        unsupported(&format!("opening {program}"))
    }

    async fn close_window(&self, _app: &App, _window: &NodeData) -> Result<Performed> {
        unsupported("windows")
    }

    async fn activate_window(&self, _app: &App, _window: &NodeData) -> Result<Performed> {
        unsupported("windows")
    }
}

fn send(backend: &Scripted, kind: EventKind, detail: &str, source: &str) -> bool {
    let sender = lock(&backend.sender);
    sender.as_ref().is_some_and(|tx| {
        tx.send(Event {
            kind,
            detail: detail.to_owned(),
            source: Some(source.to_owned()),
            at: Instant::now(),
            inserted: 0,
        })
    })
}

/// Auto settle capped at 600 ms, without grace or transients.
fn capped_at_600_ms() -> ActOptions {
    ActOptions {
        settle: Settle::Auto(uidelta_engine::Quiet {
            cap: std::time::Duration::from_millis(600),
            grace: None,
            ..uidelta_engine::Quiet::default()
        }),
        transients: false,
    }
}

/// The note of an action the application was still busy with at a cap of
/// 600 ms.
const STILL_BUSY: &str = "the application was still busy at the settle cap (600 ms), and nothing \
                          had changed yet: what the action started may still come \
                          (wait_for_change)";

/// Clicks `Go`, with a cap of 600 ms, while an event of `kind` comes from
/// `source` every `every_ms` for 1.2 s, and asserts that nothing changed
/// and the answer says the application was still busy.
async fn click_go_sending(
    s: &mut Session<Scripted>,
    backend: &Arc<Scripted>,
    kind: EventKind,
    detail: &'static str,
    source: &'static str,
    every_ms: u64,
) {
    let sending = {
        let backend = Arc::clone(backend);
        tokio::spawn(async move {
            let end = Instant::now() + Duration::from_millis(1200);
            while Instant::now() < end {
                send(&backend, kind, detail, source);
                tokio::time::sleep(Duration::from_millis(every_ms)).await;
            }
        })
    };
    let busy = s
        .act(
            "role:push button && name:Go",
            &Action::Click,
            &capped_at_600_ms(),
        )
        .await
        .expect("click Go");
    sending.abort();
    assert!(!busy.diff.has_changes(), "{:?}", busy.diff);
    assert!(
        busy.settled.capped && busy.settled.busy,
        "{:?}",
        busy.settled
    );
    assert_eq!(busy.note.as_deref(), Some(STILL_BUSY));
}

#[tokio::test]
async fn a_change_whose_event_was_dropped_is_read_before_the_next_action() {
    let backend = Arc::new(Scripted::default());
    *lock(&backend.value) = "before".into();
    let mut s = Session::new(Arc::clone(&backend));
    s.observe("scripted").await.expect("read the tree");

    // The entry changes while the queue is full of motion (which says
    // nothing of the application's state): its event is dropped.
    for k in 0..EventStream::HELD {
        assert!(send(
            &backend,
            EventKind::Motion,
            "moved",
            &format!(":1.1/{}", 100 + k)
        ));
    }
    *lock(&backend.value) = "after".into();
    assert!(send(&backend, EventKind::Change, "text inserted", ":1.1/2"));

    let opts = ActOptions {
        settle: Settle::None,
        transients: false,
    };
    let acted = s
        .act("role:push button && name:Go", &Action::Click, &opts)
        .await
        .expect("click Go");
    // Read again before acting: the change is reported as earlier, and the
    // action itself changed nothing.
    let earlier: Vec<String> = acted
        .earlier
        .iter()
        .map(|c| uidelta_render::diff_text(&c.diff, &uidelta_render::DiffOptions::default()))
        .collect();
    assert_eq!(earlier.len(), 1, "{earlier:?}");
    assert!(
        earlier[0]
            .lines()
            .any(|l| l.ends_with("entry \"Notes\" | value: \"before\" -> \"after\"")),
        "{}",
        earlier[0]
    );
    assert!(!acted.diff.has_changes());
}

#[tokio::test]
async fn an_action_the_application_is_still_busy_with_at_the_cap_says_so() {
    let backend = Arc::new(Scripted::default());
    let mut s = Session::new(Arc::clone(&backend));
    s.observe("scripted").await.expect("read the tree");
    let opts = capped_at_600_ms();
    // Nothing sent: nothing changed, and the application was not busy.
    let idle = s
        .act("role:push button && name:Go", &Action::Click, &opts)
        .await
        .expect("click Go");
    assert!(!idle.diff.has_changes());
    assert!(
        idle.settled.capped && !idle.settled.busy,
        "{:?}",
        idle.settled
    );
    assert_eq!(idle.note, None);

    // Events that change nothing, all through the cap (a window still
    // being built).
    click_go_sending(
        &mut s,
        &backend,
        EventKind::Change,
        "children changed",
        ":1.1/1",
        40,
    )
    .await;
}

#[tokio::test]
async fn an_action_whose_application_is_at_work_at_the_cap_with_nothing_changed_says_so() {
    // LibreOffice builds its Save As dialog for more than two seconds under
    // load, sending nothing meanwhile; its process is at work.
    let backend = Arc::new(Scripted::default());
    let mut s = Session::new(Arc::clone(&backend));
    s.observe("scripted").await.expect("read the tree");
    click_go_sending(
        &mut s,
        &backend,
        EventKind::Working,
        "process:working",
        ":1.1/0",
        50,
    )
    .await;
}

#[tokio::test]
async fn an_action_that_only_gave_its_target_the_focus_while_the_application_stayed_busy_says_so() {
    // The focus coming to the element clicked is no news, and is left out:
    // when it was all that changed by the cap, the application still busy
    // (LibreOffice building its Character dialog for seconds after its
    // menu item took the focus), the answer says so, as it does when
    // nothing changed at all.
    let backend = Arc::new(Scripted::default());
    let mut s = Session::new(Arc::clone(&backend));
    s.observe("scripted").await.expect("read the tree");
    *lock(&backend.focuses) = true;
    click_go_sending(
        &mut s,
        &backend,
        EventKind::Change,
        "children changed",
        ":1.1/1",
        40,
    )
    .await;
    // The focus did come: the tree says so.
    let go = s.find(
        &"role:push button && state:focused"
            .parse()
            .expect("selector"),
    );
    assert_eq!(go.len(), 1);
}

#[tokio::test]
async fn a_change_that_begins_shortly_before_the_cap_is_waited_out() {
    // A dialog that starts to come 450 ms after the click and is built by
    // 800 ms (LibreOffice's Format Cells, in slow motion): with a cap of
    // 600 ms, the answer is what it built, not what stood at the cap.
    let backend = Arc::new(Scripted::default());
    *lock(&backend.value) = "before".into();
    let mut s = Session::new(Arc::clone(&backend));
    s.observe("scripted").await.expect("read the tree");
    let building = {
        let backend = Arc::clone(&backend);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(450)).await;
            for k in 0..10 {
                if k == 9 {
                    *lock(&backend.value) = "after".into();
                }
                send(&backend, EventKind::Change, "children changed", ":1.1/2");
                tokio::time::sleep(Duration::from_millis(40)).await;
            }
        })
    };
    let acted = s
        .act(
            "role:push button && name:Go",
            &Action::Click,
            &capped_at_600_ms(),
        )
        .await
        .expect("click Go");
    building.abort();
    assert!(!acted.settled.capped, "{:?}", acted.settled);
    let text = uidelta_render::diff_text(&acted.diff, &uidelta_render::DiffOptions::default());
    assert!(
        text.lines()
            .any(|l| l.ends_with("entry \"Notes\" | value: \"before\" -> \"after\"")),
        "{text}"
    );
}

#[tokio::test]
async fn snapshots_taken_while_settling_end_before_the_cap() {
    let backend = Arc::new(Scripted::default());
    let mut s = Session::new(Arc::clone(&backend));
    s.observe("scripted").await.expect("read the tree");
    // From now on every read takes half a second (a big application walked
    // whole, in a process that has no mirror of it yet), and the
    // application changes all through the cap.
    let takes = Duration::from_millis(500);
    *lock(&backend.read_takes) = takes;
    let cap = Duration::from_millis(1500);
    let opts = ActOptions {
        settle: Settle::Auto(uidelta_engine::Quiet {
            cap,
            grace: None,
            ..uidelta_engine::Quiet::default()
        }),
        transients: true,
    };
    let stir = {
        let backend = Arc::clone(&backend);
        tokio::spawn(async move {
            let end = Instant::now() + Duration::from_millis(2500);
            while Instant::now() < end {
                send(&backend, EventKind::Change, "children changed", ":1.1/1");
                tokio::time::sleep(Duration::from_millis(40)).await;
            }
        })
    };
    lock(&backend.reads).clear();
    let started = Instant::now();
    let acted = s
        .act("role:push button && name:Go", &Action::Click, &opts)
        .await
        .expect("click Go");
    stir.abort();
    assert!(acted.settled.capped, "{:?}", acted.settled);
    // Snapshots were taken for what lives a moment, as long as they could
    // end before the cap (the 100 ms: timers firing late); the one after
    // the cap is the answer's.
    let reads = lock(&backend.reads).clone();
    let during: Vec<Duration> = reads
        .iter()
        .map(|t| t.duration_since(started))
        .filter(|t| *t < cap)
        .collect();
    assert!(!during.is_empty(), "{reads:?}");
    for t in &during {
        assert!(
            *t + takes <= cap + Duration::from_millis(100),
            "a read began {t:?} after the action, ending past the {cap:?} cap: {during:?}"
        );
    }
}

#[tokio::test]
async fn a_selector_matching_in_several_windows_means_the_worked_in_one_s_else_names_the_windows() {
    let backend = Arc::new(Scripted::default());
    *lock(&backend.other_window) = true;
    let mut s = Session::new(Arc::clone(&backend));
    s.observe("scripted").await.expect("read the tree");
    // Neither window says it is active: an ambiguity, each candidate with
    // its window.
    let error = s
        .resolve("role:push button && name:Go")
        .await
        .expect_err("two buttons, no active window");
    assert_eq!(error.kind(), "ambiguous", "{error}");
    let message = error.to_string();
    assert_eq!(
        message.matches("push button \"Go\" of [").count(),
        2,
        "{message}"
    );
    for window in ["Main", "Other"] {
        let named = format!("] frame \"{window}\"");
        assert!(message.contains(&named), "{message}");
    }
    // The main window active and holding the focus, or holding it while
    // no window says it is active: its button.
    for (active, focused) in [(true, true), (false, true)] {
        *lock(&backend.main_active) = active;
        *lock(&backend.focused) = focused;
        s.observe("scripted").await.expect("read the tree again");
        let (app, node) = s
            .resolve("role:push button && name:Go")
            .await
            .expect("the Go of the window worked in");
        let tree = s.known_apps()[app].view.tree();
        let window = tree
            .ancestors(node)
            .find(|&n| tree.node(n).role == Role::Frame);
        assert_eq!(window.map(|w| tree.node(w).name.as_str()), Some("Main"));
    }
    // Active without the focus in it: the two disagree, nothing is chosen.
    *lock(&backend.main_active) = true;
    *lock(&backend.focused) = false;
    s.observe("scripted").await.expect("read the tree again");
    let error = s
        .resolve("role:push button && name:Go")
        .await
        .expect_err("active, the focus elsewhere or nowhere");
    assert_eq!(error.kind(), "ambiguous", "{error}");
}
