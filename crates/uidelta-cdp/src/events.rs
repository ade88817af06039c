//! Change events of a tab, for settling.
//!
//! DOM changes come from a `MutationObserver` that a small script installs
//! in every document of the tab (`Page.addScriptToEvaluateOnNewDocument`,
//! run at once in the documents already there); it reports through a
//! `Runtime.addBinding` function. The DOM domain's own mutation events were
//! measured and rejected: they only cover nodes the client has asked for, so
//! a list inserted after the first `DOM.getDocument` changes silently, and
//! neither they nor `Accessibility.nodesUpdated` (which never fired) report
//! typing into a field or toggling a check box. The script also listens for
//! `input`, `change`, focus, `scroll` and `toggle` events.
//!
//! Cross-site (out-of-process) iframes present when the stream starts get
//! the same script and report the same way through their own sessions
//! (see the `frames` module), with their requests; a cross-site frame that
//! appears later is not watched, and settling then relies on the page's own
//! events and on polling.
//!
//! Network and navigation events come from the Network and Page domains.
//! While a request or a document load is in flight the stream beats
//! (`network:pending` every [`HEARTBEAT`]), because settling ends after a
//! quiet spell and a slow request is quiet until it answers. Timers are the
//! other quiet wait: a page that opens its dialog 300 ms after a click says
//! nothing meanwhile. The script counts the short timers (up to
//! [`SHORT_TIMER_MS`]) that input events start, and those that such timers
//! start in turn, and the stream beats (`dom:timer-pending`) while any runs.
//! When none of these is in flight the stream beats `page:idle` instead: the
//! page says that nothing it started will change it later, and an action
//! that changed nothing need not wait for the settle cap.
//!
//! For settling, every event of a tab is a change ([`EventKind::Change`]):
//! a request in flight and a timer running hold settling as changes do.
//! Focus moving (`dom:focus`) is a focus change ([`EventKind::Focus`]),
//! which names no element; `page:idle` is [`EventKind::Idle`].

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::network::{
    EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent, ResourceType,
};
use chromiumoxide::cdp::browser_protocol::page::{
    EventFrameNavigated, EventFrameStartedLoading, EventFrameStoppedLoading,
    EventJavascriptDialogClosed, EventJavascriptDialogOpening, EventLoadEventFired,
    EventNavigatedWithinDocument,
};
use chromiumoxide::cdp::js_protocol::runtime::EventBindingCalled;
use futures_util::stream::{BoxStream, StreamExt};
use serde_json::json;
use tokio::sync::broadcast;
use uidelta_backend::{Event, EventKind, EventSender, EventStream};

use crate::capture::{document_identity, frames_of};
use crate::error::{Error, Result};
use crate::frames;
use crate::protocol::Session;

/// The page function the change script reports through.
pub const BINDING: &str = "__uidelta_changed";

/// How often the stream beats: while requests, loads or short timers are
/// in flight, and (`page:idle`) while none is.
pub const HEARTBEAT: Duration = Duration::from_millis(50);

/// A request or load older than this no longer holds settling: long polls,
/// streams and stuck requests would otherwise keep a page from ever settling.
pub const LONG_REQUEST: Duration = Duration::from_secs(10);

/// The beat that says that nothing is in flight (see the module's doc).
const IDLE: &str = "page:idle";

/// Timers longer than this (in ms) are not waited for: they are polls and
/// delays, not the reaction to an input.
pub const SHORT_TIMER_MS: u32 = 1000;

/// The script installed in every document of an observed tab.
pub(crate) const CHANGE_SCRIPT: &str = r#"(() => {
  const key = Symbol.for('uidelta.changes');
  if (globalThis[key]) return;
  const send = globalThis.__uidelta_changed;
  if (typeof send !== 'function') return;
  globalThis[key] = true;
  const pending = new Set();
  const timers = new Set();
  let sentTimers = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.size === 0 && timers.size === sentTimers) return;
    const kinds = Array.from(pending);
    pending.clear();
    sentTimers = timers.size;
    try { send(JSON.stringify({ k: kinds, t: sentTimers })); } catch (e) {}
  };
  const wake = () => {
    if (!scheduled) { scheduled = true; queueMicrotask(flush); }
  };
  const note = (kind) => { pending.add(kind); wake(); };
  // What changed since the last capture, for the capture's mirror of the
  // page (the `mirror` module): nodes, each with what of it to read again
  // (1 itself, 2 its children, 4 its whole subtree).
  const dirty = new Map();
  // The shadow roots watched (their style sheets count).
  const roots = [];
  let whole = false;
  const epoch = Date.now().toString(36) + Math.random().toString(36).slice(2);
  const mark = (node, how) => {
    if (!node || whole) return;
    if (node.nodeType === 11) { node = node.host; how = 4; }
    if (!node) return;
    if (dirty.size >= __MAX_DIRTY__ && !dirty.has(node)) { whole = true; dirty.clear(); return; }
    dirty.set(node, (dirty.get(node) || 0) | how);
  };
  const SELF_ONLY = new Set(['aria-checked', 'aria-pressed', 'aria-selected', 'aria-expanded',
    'aria-valuenow', 'aria-valuetext', 'aria-label', 'aria-current', 'aria-busy', 'value',
    'checked', 'selected', 'title', 'placeholder', 'href', 'aria-description']);
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'childList') {
        if (r.addedNodes.length) note('dom:child-inserted');
        if (r.removedNodes.length) note('dom:child-removed');
        mark(r.target, 2);
        // Shadow roots made from markup (`<template shadowrootmode>`)
        // come without `attachShadow`.
        for (const n of r.addedNodes) if (n.nodeType === 1) adopt(n);
      } else if (r.type === 'attributes') {
        note('dom:attribute-modified');
        mark(r.target, SELF_ONLY.has(r.attributeName) ? 1 : 4);
      } else {
        note('dom:character-data-modified');
        mark(r.target, 1);
        mark(r.target.parentNode, 2);
      }
    }
  });
  // What an event changes without a mutation: a field's value, a box's
  // check (and the other radio buttons of its group), the focus, what a
  // transition or an animation shows at its end.
  // Listened to on the window and on every shadow root: `change`,
  // `toggle` and the transition and animation events do not leave their
  // shadow tree.
  const dirtyOn = [['input', 1], ['change', 1], ['focusin', 1], ['focusout', 1], ['toggle', 4],
                   ['transitionend', 4], ['animationend', 4], ['animationstart', 4]];
  const listen = (target) => {
    for (const [type, how] of dirtyOn)
      target.addEventListener(type, (e) => {
        const t = e.composedPath ? e.composedPath()[0] : e.target;
        if (!t || t === window) return;
        mark(t, t.tagName === 'SELECT' ? 4 : how);
        if (type === 'change' && t.type === 'radio' && t.name && t.getRootNode)
          for (const r of t.getRootNode().querySelectorAll('input[type=radio]'))
            if (r.name === t.name) mark(r, 1);
      }, { capture: true, passive: true });
  };
  listen(window);
  for (const type of ['hashchange', 'popstate'])
    addEventListener(type, () => { whole = true; dirty.clear(); }, { capture: true, passive: true });
  // Style rules that show or hide without a mutation of what they show
  // (`:hover`, `:checked`, a sibling's class): see `mirror::STATE_RULES`.
__STATE_RULES__  const modalNow = () => {
    try { return !!document.querySelector(':modal, [aria-modal=true]'); } catch (e) { return true; }
  };
  let modal = modalNow();
  // The capture's question: `[epoch, whole, URL, node, how, node, how, ...]`
  // (the URL without its fragment, as the frame tree gives it; whole is 2
  // when style sheets of another origin are wanted), and a fresh start.
  // Without `nodes`, the answer stops after the URL (read whole anyway).
  Object.defineProperty(globalThis, Symbol.for('uidelta.dirty'), { value: (nodes) => {
    const s = restyled(dirty.size > 0 || whole);
    const m = modalNow();
    const all = whole || m !== modal || s;
    modal = m;
    const out = [epoch, all ? (restyled.wanting() ? 2 : 1) : 0, document.URL.split('#')[0]];
    if (!all && nodes)
      for (const [n, how] of dirty) {
        if (!n.isConnected) continue;
        let covered = false;
        for (let p = n.parentNode; p && !covered; p = p.parentNode) covered = ((dirty.get(p) || 0) & 4) !== 0;
        if (!covered) out.push(n, how);
      }
    dirty.clear();
    whole = false;
    return out;
  } });
  const options = { childList: true, subtree: true, attributes: true, characterData: true };
  const watch = (root) => {
    try { observer.observe(root, options); } catch (e) {}
    if (root !== document) {
      roots.push(new WeakRef(root));
      try { listen(root); } catch (e) {}
    }
  };
  watch(document);
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init);
    watch(root);
    return root;
  };
  const existing = (root) => {
    for (const el of root.querySelectorAll('*'))
      if (el.shadowRoot) { watch(el.shadowRoot); existing(el.shadowRoot); }
  };
  const watched = new WeakSet();
  function adopt(el) {
    try {
      for (const e of [el, ...el.querySelectorAll('*')])
        if (e.shadowRoot && !watched.has(e.shadowRoot)) {
          watched.add(e.shadowRoot);
          watch(e.shadowRoot);
          existing(e.shadowRoot);
        }
    } catch (e) {}
  }
  if (document.readyState === 'loading')
    document.addEventListener('DOMContentLoaded', () => existing(document));
  else existing(document);
  const events = [['input', 'dom:input'], ['change', 'dom:change'], ['focusin', 'dom:focus'],
                  ['focusout', 'dom:focus'], ['scroll', 'dom:scroll'], ['toggle', 'dom:toggle']];
  for (const [type, kind] of events)
    addEventListener(type, () => note(kind), { capture: true, passive: true });
  // Short timers started by an input, or by such a timer, are waited for.
  let lastInput = -Infinity;
  let inTimer = 0;
  for (const type of ['pointerdown', 'mousedown', 'mouseup', 'click', 'dblclick', 'contextmenu',
                      'keydown', 'keyup', 'input', 'change', 'submit'])
    addEventListener(type, () => { lastInput = performance.now(); }, { capture: true, passive: true });
  const setTimer = window.setTimeout;
  const clearTimer = window.clearTimeout;
  window.setTimeout = function (fn, delay, ...args) {
    const ms = Number(delay) || 0;
    const caused = inTimer > 0 || performance.now() - lastInput < 100;
    if (typeof fn !== 'function' || ms > __SHORT_TIMER_MS__ || !caused)
      return setTimer.call(this, fn, delay, ...args);
    let id = 0;
    const run = function () {
      timers.delete(id);
      inTimer++;
      try { return fn.apply(this, args); } finally { inTimer--; wake(); }
    };
    id = setTimer.call(this, run, delay);
    timers.add(id);
    wake();
    return id;
  };
  window.clearTimeout = function (id) {
    if (timers.delete(id)) wake();
    return clearTimer.call(this, id);
  };
  const clearRepeat = window.clearInterval;
  window.clearInterval = function (id) {
    if (timers.delete(id)) wake();
    return clearRepeat.call(this, id);
  };
  addEventListener('pagehide', () => { timers.clear(); flush(); });
})();"#;

/// The change script with its limits filled in.
pub(crate) fn change_script() -> String {
    CHANGE_SCRIPT
        .replace("__SHORT_TIMER_MS__", &SHORT_TIMER_MS.to_string())
        .replace("__STATE_RULES__", crate::capture::STATE_RULES)
        .replace("__MAX_DIRTY__", &crate::capture::MAX_DIRTY.to_string())
        .replace(
            "__MAX_RESTYLED__",
            &crate::capture::MAX_RESTYLED.to_string(),
        )
}

/// Requests, document loads and short timers in flight.
#[derive(Debug, Default)]
pub(crate) struct Inflight {
    /// Requests by id, with their start.
    requests: HashMap<String, Instant>,
    /// Loading frames by id, with the start of the load.
    loading: HashMap<String, Instant>,
    /// Running short timers per document (execution context), with the
    /// time of the report.
    timers: HashMap<i64, (u32, Instant)>,
}

impl Inflight {
    pub fn request_started(&mut self, id: &str, at: Instant) {
        self.requests.entry(id.to_owned()).or_insert(at);
    }

    pub fn request_ended(&mut self, id: &str) {
        self.requests.remove(id);
    }

    pub fn load_started(&mut self, frame: &str, at: Instant) {
        self.loading.insert(frame.to_owned(), at);
    }

    pub fn load_stopped(&mut self, frame: &str) {
        self.loading.remove(frame);
    }

    /// Records how many short timers a document has running.
    pub fn timers_running(&mut self, context: i64, count: u32, at: Instant) {
        if count == 0 {
            self.timers.remove(&context);
        } else {
            self.timers.insert(context, (count, at));
        }
    }

    /// Forgets what the previous document had in flight: its requests are
    /// cancelled, often without a word, and its timers are gone. The new
    /// document's load is tracked as a loading frame.
    pub fn new_document(&mut self) {
        self.timers.clear();
        self.requests.clear();
    }

    /// Whether a short timer started by an input runs, as last reported
    /// less than [`LONG_REQUEST`] before `now`.
    pub fn timers_pending(&self, now: Instant) -> bool {
        self.timers
            .values()
            .any(|(_, at)| now.saturating_duration_since(*at) < LONG_REQUEST)
    }

    /// Whether something started less than [`LONG_REQUEST`] ago is still
    /// in flight at `now`. Forgets what is far older.
    pub fn pending(&mut self, now: Instant) -> bool {
        let young = |start: &Instant| now.saturating_duration_since(*start) < LONG_REQUEST;
        let forget = |start: &Instant| now.saturating_duration_since(*start) < LONG_REQUEST * 6;
        self.requests.retain(|_, s| forget(s));
        self.loading.retain(|_, s| forget(s));
        self.requests.values().any(young) || self.loading.values().any(young)
    }
}

/// A change report of the script: the kinds of change since the last one,
/// and how many short timers run.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Report {
    pub kinds: Vec<String>,
    pub timers: Option<u32>,
}

/// Reads a change report. Only `dom:` kinds pass: anything else a page
/// might send through the binding is dropped.
pub(crate) fn read_report(payload: &str) -> Report {
    #[derive(serde::Deserialize, Default)]
    struct Raw {
        #[serde(default)]
        k: Vec<String>,
        #[serde(default)]
        t: Option<u32>,
    }
    let raw: Raw = serde_json::from_str(payload).unwrap_or_default();
    let kinds = raw
        .k
        .into_iter()
        .filter(|k| {
            k.len() < 40
                && k.strip_prefix("dom:")
                    .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        })
        .take(16)
        .collect();
    Report {
        kinds,
        timers: raw.t,
    }
}

/// Resource types whose requests never hold settling: they stay open by
/// design.
fn is_long_lived(kind: Option<&ResourceType>) -> bool {
    matches!(
        kind,
        Some(ResourceType::EventSource | ResourceType::WebSocket | ResourceType::Media)
    )
}

/// A protocol event, reduced to what the stream needs.
enum Raw {
    /// A report of the change script, and the document (execution context)
    /// it came from.
    Changes(String, i64),
    Request(String, bool),
    Finished(String),
    Failed(String),
    Navigated(String, bool),
    WithinDocument,
    Load,
    LoadStarted(String),
    LoadStopped(String),
    Dialog,
    DialogClosed,
}

/// Installs the change script in the tab (once per connection) and starts
/// streaming its events.
pub(crate) async fn subscribe(session: &Session) -> Result<EventStream> {
    // Listeners first, so that nothing that happens while installing is lost.
    let streams: Vec<BoxStream<'static, Raw>> = vec![
        session
            .listen::<EventBindingCalled>()
            .await?
            .filter_map(|e| async move {
                (e.name == BINDING)
                    .then(|| Raw::Changes(e.payload.clone(), *e.execution_context_id.inner()))
            })
            .boxed(),
        session
            .listen::<EventRequestWillBeSent>()
            .await?
            .map(|e| {
                Raw::Request(
                    e.request_id.inner().clone(),
                    is_long_lived(e.r#type.as_ref()),
                )
            })
            .boxed(),
        session
            .listen::<EventLoadingFinished>()
            .await?
            .map(|e| Raw::Finished(e.request_id.inner().clone()))
            .boxed(),
        session
            .listen::<EventLoadingFailed>()
            .await?
            .map(|e| Raw::Failed(e.request_id.inner().clone()))
            .boxed(),
        session
            .listen::<EventFrameNavigated>()
            .await?
            .map(|e| {
                Raw::Navigated(
                    e.frame.loader_id.inner().clone(),
                    e.frame.parent_id.is_none(),
                )
            })
            .boxed(),
        session
            .listen::<EventNavigatedWithinDocument>()
            .await?
            .map(|_| Raw::WithinDocument)
            .boxed(),
        session
            .listen::<EventLoadEventFired>()
            .await?
            .map(|_| Raw::Load)
            .boxed(),
        session
            .listen::<EventFrameStartedLoading>()
            .await?
            .map(|e| Raw::LoadStarted(e.frame_id.inner().clone()))
            .boxed(),
        session
            .listen::<EventFrameStoppedLoading>()
            .await?
            .map(|e| Raw::LoadStopped(e.frame_id.inner().clone()))
            .boxed(),
        session
            .listen::<EventJavascriptDialogOpening>()
            .await?
            .map(|_| Raw::Dialog)
            .boxed(),
        session
            .listen::<EventJavascriptDialogClosed>()
            .await?
            .map(|_| Raw::DialogClosed)
            .boxed(),
    ];
    match instrument(session).await {
        Ok(()) => {}
        // A dialog blocks the page: it is instrumented by a later stream,
        // once the dialog is answered; the protocol's own events flow.
        Err(Error::Dialog { .. }) => {
            tracing::debug!("the change script waits: a dialog blocks the page");
        }
        Err(e) => return Err(e),
    }
    let mut streams = streams;
    if let Some(framed) = watch_cross_site_frames(session).await {
        streams.push(framed);
    }
    let (tx, stream) = EventStream::channel();
    // A download of the tab beats as a request does until it ends.
    let shared = std::sync::Arc::clone(&session.shared);
    let tab = session.page.target_id().inner().clone();
    let downloading = Box::new(move || shared.downloads.running(&tab));
    let task = tokio::spawn(forward(
        futures_util::stream::select_all(streams),
        tx,
        downloading,
    ));
    Ok(stream.with_guard(Box::new(AbortOnDrop(task))))
}

/// Adds the binding and the change script to the tab (or to the
/// cross-site frame the session is routed to), unless this connection did
/// so already.
async fn instrument(session: &Session) -> Result<()> {
    let id = match &session.route {
        Some(route) => format!("frame:{}", route.session),
        None => session.page.target_id().inner().clone(),
    };
    let done = session
        .shared
        .instrumented
        .lock()
        .map(|set| set.contains(&id))
        .unwrap_or(false);
    if done {
        return Ok(());
    }
    session
        .call("Runtime.addBinding", json!({"name": BINDING}))
        .await?;
    let added = session
        .call(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": change_script(), "runImmediately": true}),
        )
        .await;
    match added {
        Ok(_) => {}
        // Older browsers lack `runImmediately`: install in the current document by hand.
        Err(Error::Protocol { .. }) => {
            session
                .call(
                    "Page.addScriptToEvaluateOnNewDocument",
                    json!({"source": change_script()}),
                )
                .await?;
            session
                .call("Runtime.evaluate", json!({"expression": change_script()}))
                .await?;
        }
        Err(e) => return Err(e),
    }
    if let Ok(mut set) = session.shared.instrumented.lock() {
        set.insert(id);
    }
    Ok(())
}

/// Installs the binding and the change script in every cross-site frame of
/// the tab, with the Network domain, and returns their events. `None` when
/// the tab has none (or they cannot be reached: the page's own events still
/// flow).
async fn watch_cross_site_frames(session: &Session) -> Option<BoxStream<'static, Raw>> {
    let targets = match session.call("Target.getTargets", json!({})).await {
        Ok(answer) => frames::iframe_targets(&answer),
        Err(e) => {
            tracing::debug!("cross-site frames not watched: {e}");
            return None;
        }
    };
    if targets.is_empty() {
        return None;
    }
    let tree = session.call("Page.getFrameTree", json!({})).await.ok()?;
    let mut ours: HashSet<String> = frames_of(&tree).into_iter().map(|f| f.id).collect();
    // Session -> a small number that keeps its execution contexts apart.
    let mut sessions: HashMap<String, i64> = HashMap::new();
    let mut receiver = None;
    let mut done = vec![false; targets.len()];
    while let Some(k) = frames::next_of_tab(&targets, &done, |f| ours.contains(f)) {
        done[k] = true;
        let target = &targets[k].0;
        let framed = match session.in_frame(target).await {
            Ok(f) => f,
            Err(e) => {
                tracing::debug!("cross-site frame {target} not watched: {e}");
                continue;
            }
        };
        let Some(route) = framed.route.clone() else {
            continue;
        };
        // Subscribed before installing, so that nothing is missed.
        if receiver.is_none() {
            receiver = Some(route.frames.events());
        }
        if let Ok(tree) = framed.call("Page.getFrameTree", json!({})).await {
            ours.extend(frames_of(&tree).into_iter().map(|f| f.id));
        }
        let watched = match instrument(&framed).await {
            Ok(()) => framed.call("Network.enable", json!({})).await.map(|_| ()),
            Err(e) => Err(e),
        };
        match watched {
            Ok(()) => {
                let slot = sessions.len() as i64;
                sessions.insert(route.session.clone(), slot);
            }
            Err(e) => tracing::debug!("cross-site frame {target} not watched: {e}"),
        }
    }
    let receiver = receiver?;
    if sessions.is_empty() {
        return None;
    }
    let events = futures_util::stream::unfold(receiver, |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok(event) => return Some((event, rx)),
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    Some(
        events
            .filter_map(move |e| {
                let raw = e.session.as_ref().and_then(|s| {
                    let slot = *sessions.get(s)?;
                    frame_raw(s, slot, &e.method, &e.params)
                });
                async move { raw }
            })
            .boxed(),
    )
}

/// The stream's reading of an event of a cross-site frame's session
/// (`slot`: its number among the watched sessions), as JSON. Request ids
/// and execution contexts are per process: they are made distinct from the
/// page's and from each other's.
fn frame_raw(session: &str, slot: i64, method: &str, params: &serde_json::Value) -> Option<Raw> {
    let text = |key: &str| params[key].as_str().map(str::to_owned);
    let request = || text("requestId").map(|id| format!("{session}/{id}"));
    match method {
        "Runtime.bindingCalled" if params["name"] == BINDING => {
            let context = params["executionContextId"].as_i64().unwrap_or(0);
            // Contexts of the page are small positive numbers.
            let distinct = (1_i64 << 40) + (slot << 20) + (context & 0xfffff);
            Some(Raw::Changes(text("payload")?, distinct))
        }
        "Network.requestWillBeSent" => {
            let long_lived = matches!(
                params["type"].as_str(),
                Some("EventSource" | "WebSocket" | "Media")
            );
            Some(Raw::Request(request()?, long_lived))
        }
        "Network.loadingFinished" => Some(Raw::Finished(request()?)),
        "Network.loadingFailed" => Some(Raw::Failed(request()?)),
        _ => None,
    }
}

async fn forward(
    mut raw: futures_util::stream::SelectAll<BoxStream<'static, Raw>>,
    tx: EventSender,
    downloading: Box<dyn Fn() -> bool + Send>,
) {
    let mut inflight = Inflight::default();
    let mut ticker = tokio::time::interval(HEARTBEAT);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let events: Vec<(String, Option<String>)> = tokio::select! {
            // What the page reported comes before a beat that would say
            // that nothing is pending.
            biased;
            next = raw.next() => match next {
                Some(r) => translate(r, &mut inflight),
                None => return,
            },
            _ = ticker.tick() => {
                let now = Instant::now();
                let mut beats = Vec::new();
                if inflight.pending(now) {
                    beats.push(("network:pending".to_owned(), None));
                }
                if inflight.timers_pending(now) {
                    beats.push(("dom:timer-pending".to_owned(), None));
                }
                if downloading() {
                    beats.push(("page:downloading".to_owned(), None));
                }
                if beats.is_empty() {
                    beats.push((IDLE.to_owned(), None));
                }
                beats
            }
        };
        let at = Instant::now();
        for (detail, source) in events {
            // Never waits for the reader (see `EventStream`); false when
            // nobody reads any more.
            let kind = event_kind(&detail);
            if !tx.send(Event {
                kind,
                detail,
                source,
                at,
                // Input reaches a page through calls that return once it
                // has been handled: nothing typed lands later.
                inserted: 0,
            }) {
                return;
            }
        }
    }
}

/// What the event named `name` (`dom:input`) tells the engine (see the
/// module's doc).
fn event_kind(name: &str) -> EventKind {
    match name {
        "dom:focus" => EventKind::Focus,
        IDLE => EventKind::Idle,
        _ => EventKind::Change,
    }
}

/// The events one protocol event stands for, updating what is in flight.
fn translate(raw: Raw, inflight: &mut Inflight) -> Vec<(String, Option<String>)> {
    let now = Instant::now();
    let one = |kind: &str| vec![(kind.to_owned(), None)];
    match raw {
        Raw::Changes(payload, context) => {
            let report = read_report(&payload);
            if let Some(count) = report.timers {
                inflight.timers_running(context, count, now);
            }
            report.kinds.into_iter().map(|k| (k, None)).collect()
        }
        Raw::Request(id, long_lived) => {
            if !long_lived {
                inflight.request_started(&id, now);
            }
            one("network:request")
        }
        Raw::Finished(id) => {
            inflight.request_ended(&id);
            one("network:finished")
        }
        Raw::Failed(id) => {
            inflight.request_ended(&id);
            one("network:failed")
        }
        Raw::Navigated(loader, main) => {
            if main {
                inflight.new_document();
            }
            vec![(
                "page:navigated".to_owned(),
                Some(document_identity(&loader)),
            )]
        }
        Raw::WithinDocument => one("page:navigated-within-document"),
        Raw::Load => one("page:load"),
        Raw::LoadStarted(frame) => {
            inflight.load_started(&frame, now);
            one("page:loading-started")
        }
        Raw::LoadStopped(frame) => {
            inflight.load_stopped(&frame);
            one("page:loading-stopped")
        }
        Raw::Dialog => one("page:dialog-opened"),
        Raw::DialogClosed => one("page:dialog-closed"),
    }
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_dom_kinds_pass_from_the_page() {
        assert_eq!(
            read_report(r#"{"k": ["dom:child-inserted", "dom:input"], "t": 2}"#),
            Report {
                kinds: vec!["dom:child-inserted".into(), "dom:input".into()],
                timers: Some(2)
            }
        );
        assert!(read_report(r#"{"k": ["network:pending", "dom:X Y"]}"#)
            .kinds
            .is_empty());
        assert_eq!(read_report("not json"), Report::default());
        assert!(change_script().contains("ms > 1000"));
    }

    #[test]
    fn timers_hold_until_they_end_or_their_document_goes() {
        let t0 = Instant::now();
        let mut f = Inflight::default();
        f.timers_running(7, 2, t0);
        f.timers_running(8, 1, t0);
        assert!(f.timers_pending(t0));
        f.timers_running(7, 0, t0);
        assert!(f.timers_pending(t0));
        assert!(!f.timers_pending(t0 + LONG_REQUEST));
        f.new_document();
        assert!(!f.timers_pending(t0));
        let nav = translate(Raw::Changes(r#"{"k": [], "t": 1}"#.into(), 3), &mut f);
        assert!(nav.is_empty());
        assert!(f.timers_pending(Instant::now()));
        translate(Raw::Navigated("L2".into(), false), &mut f);
        assert!(f.timers_pending(Instant::now()));
        translate(Raw::Request("9".into(), false), &mut f);
        translate(Raw::Navigated("L3".into(), true), &mut f);
        assert!(!f.timers_pending(Instant::now()));
        // The old document's request, cancelled silently, holds nothing.
        assert!(!f.pending(Instant::now()));
    }

    #[test]
    fn in_flight_work_holds_until_it_ends_or_grows_old() {
        let t0 = Instant::now();
        let mut f = Inflight::default();
        assert!(!f.pending(t0));
        f.request_started("1", t0);
        f.load_started("main", t0);
        assert!(f.pending(t0 + Duration::from_millis(500)));
        f.request_ended("1");
        assert!(f.pending(t0 + Duration::from_millis(500)));
        f.load_stopped("main");
        assert!(!f.pending(t0 + Duration::from_millis(500)));
        f.request_started("2", t0);
        assert!(!f.pending(t0 + LONG_REQUEST));
    }

    #[test]
    fn cross_site_frame_events_read_as_the_page_s() {
        let report =
            json!({"name": BINDING, "payload": r#"{"k": ["dom:input"]}"#, "executionContextId": 3});
        let Some(Raw::Changes(payload, context)) =
            frame_raw("S1", 0, "Runtime.bindingCalled", &report)
        else {
            panic!("a change report");
        };
        assert!(payload.contains("dom:input"));
        assert!(context > 1 << 40);
        let Some(Raw::Changes(_, second)) = frame_raw("S2", 1, "Runtime.bindingCalled", &report)
        else {
            panic!("a change report");
        };
        assert_ne!(context, second, "two frames' contexts must stay apart");
        let other = json!({"name": "someone_else", "payload": "{}", "executionContextId": 3});
        assert!(frame_raw("S1", 0, "Runtime.bindingCalled", &other).is_none());
        let sent = json!({"requestId": "77.2", "type": "Fetch"});
        assert!(matches!(
            frame_raw("S1", 0, "Network.requestWillBeSent", &sent),
            Some(Raw::Request(id, false)) if id == "S1/77.2"
        ));
        let stream = json!({"requestId": "77.3", "type": "EventSource"});
        assert!(matches!(
            frame_raw("S1", 0, "Network.requestWillBeSent", &stream),
            Some(Raw::Request(_, true))
        ));
        assert!(matches!(
            frame_raw("S1", 0, "Network.loadingFinished", &json!({"requestId": "77.2"})),
            Some(Raw::Finished(id)) if id == "S1/77.2"
        ));
        assert!(frame_raw("S1", 0, "Page.loadEventFired", &json!({})).is_none());
    }

    #[test]
    fn every_event_of_a_tab_is_a_change_but_focus_moving_and_idle() {
        assert_eq!(event_kind("dom:focus"), EventKind::Focus);
        assert_eq!(event_kind("page:idle"), EventKind::Idle);
        for name in [
            "dom:child-inserted",
            "dom:input",
            "dom:scroll",
            "dom:timer-pending",
            "network:pending",
            "network:finished",
            "page:navigated",
            "page:dialog-opened",
        ] {
            assert_eq!(event_kind(name), EventKind::Change, "{name}");
        }
    }

    #[test]
    fn translation_tracks_requests() {
        let mut f = Inflight::default();
        let kinds =
            |v: Vec<(String, Option<String>)>| v.into_iter().map(|(k, _)| k).collect::<Vec<_>>();
        assert_eq!(
            kinds(translate(Raw::Request("7".into(), false), &mut f)),
            vec!["network:request"]
        );
        assert!(f.pending(Instant::now()));
        assert_eq!(
            kinds(translate(Raw::Finished("7".into()), &mut f)),
            vec!["network:finished"]
        );
        assert!(!f.pending(Instant::now()));
        translate(Raw::Request("8".into(), true), &mut f);
        assert!(!f.pending(Instant::now()));
        let nav = translate(Raw::Navigated("L1".into(), true), &mut f);
        assert_eq!(
            nav,
            vec![("page:navigated".to_owned(), Some("doc:L1".to_owned()))]
        );
    }
}
