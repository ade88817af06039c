//! The browser backend of uidelta: Chromium over the DevTools protocol.
//!
//! [`Cdp::launch`] starts a headless Chromium with a throw-away profile (and
//! kills it when dropped); [`Cdp::attach`] connects to one that runs with
//! `--remote-debugging-port`. Each tab is an application with one window,
//! its document. Captures read the accessibility tree Chromium computes for
//! screen readers, with every element identified by its DOM backend node id,
//! so that actions find the element directly. The event stream reports DOM
//! changes, requests and navigations, and beats while a request, a load or
//! a short timer started by an input is still running, so that settling
//! waits for them. A JavaScript dialog, which blocks its page, is held open
//! and shown in the tab's tree, to be answered through its buttons (or
//! answered as it opens: [`DialogPolicy`]). Every DevTools call has a
//! timeout; a closed tab or an exited browser is [`ErrorKind::Gone`].
//!
//! [`ErrorKind::Gone`]: uidelta_backend::ErrorKind::Gone

mod actions;
mod backend;
mod capture;
mod choosers;
mod dialogs;
mod downloads;
mod error;
mod events;
mod frames;
mod input;
mod launch;
mod navigate;
mod protocol;
mod roles;
mod selection;
mod synthetic;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::browser::{
    DownloadProgressState, EventDownloadProgress, EventDownloadWillBegin,
};
use chromiumoxide::cdp::browser_protocol::target::{
    EventTargetCreated, EventTargetDestroyed, TargetId,
};
use chromiumoxide::error::CdpError;
use chromiumoxide::{Browser, Page};
use futures_util::StreamExt;
use serde_json::{json, Value};
use uidelta_backend::{Action, App, EventStream, Navigate, Performed, Scope, Window};
use uidelta_model::{NodeData, Rect, Snapshot};

pub use capture::{
    backend_id, document_identity, frame_element, frame_identity, node_identity, text_identity,
    CaptureOptions, CaptureRead, FrameInfo,
};
pub use choosers::AnsweredChooser;
pub use dialogs::{AnsweredDialog, DialogKind, DialogPolicy, JsDialog};
pub use error::{Error, Result};
pub use events::{BINDING, HEARTBEAT, LONG_REQUEST};
pub use input::keys::{Chord, Key};
pub use launch::{LaunchOptions, CHROMIUM, INSTALL_HINT};
pub use navigate::normalize_url;
pub use protocol::CALL_TIMEOUT;
pub use uidelta_backend::MirrorUse;

use launch::{Endpoint, Process};
use protocol::{browser_call, Session, Shared};

/// How long a new tab may take to appear in the browser's target list.
const ATTACH_TIMEOUT: Duration = Duration::from_secs(10);

/// A tab: a page target of the browser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tab {
    /// The target id, stable for the tab's life.
    pub id: String,
    /// The document's title.
    pub title: String,
    /// The document's URL.
    pub url: String,
    /// Whether it is the tab activated last.
    pub active: bool,
}

impl Tab {
    /// `tab "Inbox" (3F2A19C0)`, for messages.
    pub fn label(&self) -> String {
        tab_label(&self.title, &self.url, &self.id)
    }

    /// Its name as an application: the title, or the URL for untitled pages.
    pub fn name(&self) -> &str {
        if self.title.is_empty() {
            &self.url
        } else {
            &self.title
        }
    }
}

fn tab_label(title: &str, url: &str, id: &str) -> String {
    let name = if title.is_empty() { url } else { title };
    let short: String = id.chars().take(8).collect();
    if name.is_empty() {
        format!("tab {short}")
    } else {
        format!("tab {name:?} ({short})")
    }
}

/// The document a tab shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    /// Its URL.
    pub url: String,
    /// Its title.
    pub title: String,
    /// The main frame's id.
    pub frame_id: String,
    /// The loader id: a new one for every document loaded.
    pub loader_id: String,
}

impl Document {
    /// The identity the snapshot root carries (`doc:<loader id>`).
    pub fn identity(&self) -> String {
        document_identity(&self.loader_id)
    }
}

/// How long a launched browser may take to list the tab it starts with,
/// and to stop listing it once closed.
const STARTUP_TAB_WAIT: Duration = Duration::from_secs(5);

/// A connection to a Chromium browser.
pub struct Cdp {
    browser: Browser,
    shared: Arc<Shared>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    /// The browser process when this connection started it.
    process: Option<Process>,
    /// The blank tab a launched browser starts with, until the first page
    /// opened takes its place.
    startup_tab: std::sync::Mutex<Option<String>>,
    endpoint: String,
    capture: CaptureOptions,
    /// Where the nodes of the last capture came from.
    last_capture: std::sync::Mutex<CaptureRead>,
    /// How captures use the tabs' live mirrors.
    mirror_use: MirrorUse,
    /// The tabs' live mirrors, by tab id, the most recently used last.
    mirrors: std::sync::Mutex<Vec<(String, SharedMirror)>>,
    /// Where checked captures' times go (`UIDELTA_MIRROR_TIMES`).
    mirror_times: Option<std::path::PathBuf>,
    /// The last capture of each tab, the most recent last: what a capture
    /// shows of the page while a JavaScript dialog blocks it.
    last_pages: std::sync::Mutex<Vec<(String, LastPage)>>,
}

/// A tab's last capture, kept for while a dialog blocks its page.
enum LastPage {
    /// The tab's live mirror holds it: it is assembled again from there
    /// when needed (a copy of a page of 20,000 nodes costs some 8 ms, a
    /// fifth of a capture through the mirror).
    Mirrored,
    /// A copy.
    Copy(Snapshot),
}

/// A tab's live mirror, held by one capture at a time.
type SharedMirror = Arc<tokio::sync::Mutex<Option<capture::PageMirror>>>;

/// Most tabs with a live mirror kept; past that the one captured longest
/// ago goes.
const MAX_MIRRORS: usize = 8;

/// How many times a check of a mirror reads both ways again when they
/// differ, and how long it waits before each: the page may still be
/// changing.
const CHECK_ROUNDS: usize = 3;
const CHECK_PAUSE: Duration = Duration::from_millis(150);

impl Drop for Cdp {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        if let Ok(tasks) = self.shared.tasks.lock() {
            for task in tasks.iter() {
                task.abort();
            }
        }
        // `process` is dropped after this: it kills the browser.
    }
}

impl Cdp {
    /// Starts Chromium (headless by default) with a fresh temporary profile
    /// and connects to it. Dropping the returned value kills the browser and
    /// every process it started, and removes the profile.
    pub async fn launch(opts: LaunchOptions) -> Result<Cdp> {
        let (process, ws) = Process::start(&opts).await?;
        let mut cdp = Cdp::connect(ws, Some(process)).await?;
        let downloads = match &opts.downloads {
            Some(dir) => Some(dir.clone()),
            None => std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join("Downloads")),
        };
        cdp.watch_downloads(downloads).await;
        // The startup tab may be listed a moment after the endpoint opens.
        let started = Instant::now();
        while started.elapsed() < STARTUP_TAB_WAIT {
            if let Some(tab) = cdp.tabs().await?.into_iter().next() {
                if let Ok(mut startup) = cdp.startup_tab.lock() {
                    *startup = Some(tab.id);
                }
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        Ok(cdp)
    }

    /// Connects to a running browser: `ws://...` as printed by Chromium, or
    /// `http://host:port`, `host:port` or a bare port of its
    /// `--remote-debugging-port`. The browser is left running when dropped.
    pub async fn attach(url: &str) -> Result<Cdp> {
        let connect_error = |detail: String| Error::Connect {
            url: url.to_owned(),
            detail,
        };
        let endpoint = Endpoint::parse(url).map_err(connect_error)?;
        let ws = endpoint
            .resolve(Duration::from_secs(5))
            .await
            .map_err(connect_error)?;
        let mut cdp = Cdp::connect(ws, None).await?;
        cdp.watch_downloads(None).await;
        Ok(cdp)
    }

    async fn connect(ws: String, process: Option<Process>) -> Result<Cdp> {
        let connect_error = |detail: String| Error::Connect {
            url: ws.clone(),
            detail,
        };
        let (browser, mut handler) =
            tokio::time::timeout(CALL_TIMEOUT, Browser::connect(ws.clone()))
                .await
                .map_err(|_| {
                    connect_error(format!("no answer within {} ms", CALL_TIMEOUT.as_millis()))
                })?
                .map_err(|e| connect_error(e.to_string()))?;
        let shared = Shared::new(ws.clone());
        let mut tasks = Vec::new();
        let driver_state = Arc::clone(&shared);
        tasks.push(tokio::spawn(async move {
            while let Some(step) = handler.next().await {
                if let Err(e) = step {
                    tracing::debug!("browser connection ended: {e}");
                    break;
                }
            }
            driver_state.alive.store(false, Ordering::SeqCst);
        }));
        if let Some(p) = &process {
            let watched = Arc::clone(&shared);
            let pid = p.pid() as i32;
            tasks.push(tokio::spawn(async move {
                while watched.is_alive() {
                    if !process_alive(pid) {
                        watched.alive.store(false, Ordering::SeqCst);
                    }
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }));
        }
        let mut cdp = Cdp {
            browser,
            shared,
            tasks,
            startup_tab: std::sync::Mutex::new(None),
            process,
            endpoint: ws,
            capture: CaptureOptions::default(),
            last_capture: std::sync::Mutex::new(CaptureRead::default()),
            mirror_use: MirrorUse::from_env(),
            mirrors: std::sync::Mutex::new(Vec::new()),
            mirror_times: uidelta_backend::mirror::times_file(),
            last_pages: std::sync::Mutex::new(Vec::new()),
        };
        cdp.follow_targets().await;
        Ok(cdp)
    }

    /// Follows the pages' downloads (see the `downloads` module), saved
    /// into `dir` (made when missing), or where the browser saves them.
    async fn watch_downloads(&mut self, dir: Option<std::path::PathBuf>) {
        let listen = async {
            let began = self
                .browser
                .event_listener::<EventDownloadWillBegin>()
                .await;
            let went = self.browser.event_listener::<EventDownloadProgress>().await;
            (began, went)
        };
        let Ok((Ok(mut began), Ok(mut went))) = tokio::time::timeout(CALL_TIMEOUT, listen).await
        else {
            tracing::debug!("downloads not followed");
            return;
        };
        let behavior = match &dir {
            Some(dir) => {
                if let Err(e) = std::fs::create_dir_all(dir) {
                    tracing::warn!("downloads cannot go to {}: {e}", dir.display());
                }
                json!({"behavior": "allow", "downloadPath": dir, "eventsEnabled": true})
            }
            None => json!({"behavior": "default", "eventsEnabled": true}),
        };
        let asked = self
            .browser_call(
                ("following downloads", "the browser"),
                "Browser.setDownloadBehavior",
                behavior,
            )
            .await;
        if let Err(e) = asked {
            tracing::debug!("downloads not followed: {e}");
            return;
        }
        let shared = Arc::clone(&self.shared);
        self.tasks.push(tokio::spawn(async move {
            loop {
                tokio::select! {
                    Some(ev) = began.next() => {
                        // A page's main frame has its tab's id.
                        let frame = ev.frame_id.inner().clone();
                        let tab = match shared.is_tab(&frame) {
                            true => frame,
                            // A frame's: the tab in front.
                            false => shared.active().unwrap_or(frame),
                        };
                        shared.downloads.began(&tab, &ev.guid, &ev.suggested_filename);
                    }
                    Some(ev) = went.next() => {
                        let progress = match ev.state {
                            DownloadProgressState::InProgress => downloads::Progress::Running,
                            DownloadProgressState::Completed => downloads::Progress::Done,
                            DownloadProgressState::Canceled => downloads::Progress::Cancelled,
                        };
                        shared.downloads.progressed(
                            &ev.guid,
                            progress,
                            (ev.received_bytes, ev.total_bytes),
                            ev.file_path.as_deref(),
                        );
                    }
                    else => break,
                }
            }
        }));
    }

    /// Keeps the active tab current: a tab a page opens becomes active (as
    /// in a browser window), and a closed active tab is forgotten.
    async fn follow_targets(&mut self) {
        let listen = async {
            let created = self.browser.event_listener::<EventTargetCreated>().await;
            let destroyed = self.browser.event_listener::<EventTargetDestroyed>().await;
            (created, destroyed)
        };
        let Ok((Ok(mut created), Ok(mut destroyed))) =
            tokio::time::timeout(CALL_TIMEOUT, listen).await
        else {
            tracing::debug!("not following tabs opened by pages");
            return;
        };
        let shared = Arc::clone(&self.shared);
        self.tasks.push(tokio::spawn(async move {
            loop {
                tokio::select! {
                    Some(ev) = created.next() => {
                        let info = &ev.target_info;
                        if info.r#type == "page" && info.opener_id.is_some() {
                            shared.set_active(Some(info.target_id.inner().clone()));
                        }
                    }
                    Some(ev) = destroyed.next() => {
                        if shared.active().as_deref() == Some(ev.target_id.inner().as_str()) {
                            shared.set_active(None);
                        }
                    }
                    else => break,
                }
            }
        }));
    }

    /// What becomes of the tabs' JavaScript dialogs from now on (held
    /// open by default).
    pub fn set_dialog_policy(&self, policy: DialogPolicy) {
        self.shared.dialogs.set_policy(policy);
    }

    /// The dialogs answered as they opened (by a policy other than
    /// [`DialogPolicy::Hold`]) since the last call, oldest first.
    pub fn take_answered_dialogs(&self) -> Vec<AnsweredDialog> {
        self.shared.dialogs.take_answered()
    }

    /// How the tabs' file choosers are answered from now on: held open
    /// (`None`, the default), or given these files as they open (none:
    /// left unanswered).
    pub fn set_file_chooser_answer(&self, files: Option<Vec<String>>) {
        self.shared.choosers.set_answer(files);
    }

    /// The file choosers answered as they opened (see
    /// [`Cdp::set_file_chooser_answer`]) since the last call, oldest first.
    pub fn take_answered_choosers(&self) -> Vec<AnsweredChooser> {
        self.shared.choosers.take_answered()
    }

    /// The JavaScript dialog held open on tab `id`, if one is.
    pub fn held_dialog(&self, id: &str) -> Option<JsDialog> {
        self.shared.dialogs.held(id).map(|h| h.dialog)
    }

    /// Sets the caps of later captures.
    pub fn set_capture_options(&mut self, opts: CaptureOptions) {
        self.capture = opts;
    }

    /// Sets how later captures use the tabs' live mirrors (by default from
    /// `UIDELTA_MIRROR`).
    pub fn set_mirror_use(&mut self, mirror_use: MirrorUse) {
        self.mirror_use = mirror_use;
        if mirror_use == MirrorUse::Off {
            self.mirrors
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clear();
        }
    }

    /// Sets where checked captures' times go (by default
    /// `UIDELTA_MIRROR_TIMES`): one line per capture, see `write_times`.
    pub fn set_mirror_times(&mut self, path: Option<std::path::PathBuf>) {
        self.mirror_times = path;
    }

    /// Where the nodes of the last capture that succeeded came from.
    pub fn last_capture(&self) -> CaptureRead {
        self.last_capture.lock().map(|r| *r).unwrap_or_default()
    }

    /// The process id of a browser this connection started.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(Process::pid)
    }

    /// The temporary profile directory of a browser this connection started.
    pub fn profile_dir(&self) -> Option<&std::path::Path> {
        self.process.as_ref().map(Process::profile)
    }

    /// The DevTools WebSocket URL of the browser.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Whether the browser still answers (its connection is up).
    pub fn is_alive(&self) -> bool {
        self.shared.is_alive()
    }

    /// The browser's tabs, the active one marked.
    pub async fn tabs(&self) -> Result<Vec<Tab>> {
        let answer = self
            .browser_call(
                ("listing tabs", "the browser"),
                "Target.getTargets",
                json!({}),
            )
            .await?;
        let mut tabs = tabs_of(&answer);
        let active = self
            .shared
            .active()
            .filter(|id| tabs.iter().any(|t| &t.id == id))
            .or_else(|| tabs.first().map(|t| t.id.clone()));
        for t in &mut tabs {
            t.active = Some(&t.id) == active.as_ref();
        }
        Ok(tabs)
    }

    /// Opens a tab at `url`, makes it active, and waits until its document
    /// has loaded or `timeout` passes (a slow page is returned still
    /// loading).
    pub async fn new_tab(&self, url: &str, timeout: Duration) -> Result<Tab> {
        let url = normalize_url(url);
        let doing = format!("opening a tab at {}", uidelta_backend::echo(&url));
        let answer = self
            .browser_call(
                (&doing, "the browser"),
                "Target.createTarget",
                json!({"url": url}),
            )
            .await?;
        let id = answer["targetId"]
            .as_str()
            .ok_or_else(|| Error::Protocol {
                doing: doing.clone(),
                method: "Target.createTarget".into(),
                detail: "the answer names no target".into(),
            })?
            .to_owned();
        self.shared.set_active(Some(id.clone()));
        let session = self.session(&id, doing.clone()).await?;
        let _ = session.call("Page.bringToFront", json!({})).await;
        // One evaluation reads the state and the URL of the same document:
        // a new tab shows `about:blank` (complete) before the URL commits.
        let started = Instant::now();
        let mut title = String::new();
        loop {
            let state = session
                .call(
                    "Runtime.evaluate",
                    json!({
                        "expression": "[document.readyState, location.href, document.title]",
                        "returnByValue": true,
                    }),
                )
                .await;
            let value = state
                .as_ref()
                .map(|v| v["result"]["value"].clone())
                .unwrap_or(Value::Null);
            let loaded =
                value[0] == "complete" && (value[1] != "about:blank" || url == "about:blank");
            if loaded {
                title = value[2].as_str().unwrap_or_default().to_owned();
            }
            if loaded || started.elapsed() >= timeout {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let mut tab = self.tab(&id).await?;
        if !title.is_empty() {
            tab.title = title;
        }
        self.close_startup_tab(&id).await;
        Ok(tab)
    }

    /// Closes the blank tab a browser launched here starts with, once the
    /// first page (`opened`) is open in a tab of its own: `--browser --url X`
    /// leaves one tab, X. A startup tab that went somewhere meanwhile is
    /// kept.
    async fn close_startup_tab(&self, opened: &str) {
        let Some(startup) = self.startup_tab.lock().ok().and_then(|mut s| s.take()) else {
            return;
        };
        let blank = match self.tabs().await {
            Ok(tabs) => tabs
                .iter()
                .any(|t| t.id == startup && (t.url.is_empty() || t.url == "about:blank")),
            Err(e) => {
                tracing::debug!("not closing the startup tab: {e}");
                false
            }
        };
        if !blank || startup == opened {
            return;
        }
        if let Err(e) = self.close_tab(&startup).await {
            tracing::debug!("closing the startup tab {startup}: {e}");
            return;
        }
        // The target is listed a moment after it closed; the answer
        // waits, so that listing the tabs next shows one.
        let started = Instant::now();
        while started.elapsed() < STARTUP_TAB_WAIT {
            match self.tabs().await {
                Ok(tabs) if tabs.iter().any(|t| t.id == startup) => {}
                _ => return,
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// The tab with target id `id`.
    pub async fn tab(&self, id: &str) -> Result<Tab> {
        self.tabs()
            .await?
            .into_iter()
            .find(|t| t.id == id)
            .ok_or_else(|| self.tab_gone(&format!("finding tab {id}")))
    }

    /// Closes a tab.
    pub async fn close_tab(&self, id: &str) -> Result<Performed> {
        let doing = format!("closing {}", self.label_of(id).await);
        let answer = self
            .browser_call(
                (&doing, "the tab"),
                "Target.closeTarget",
                json!({"targetId": id}),
            )
            .await
            .map_err(|e| match e {
                Error::Protocol { .. } => self.tab_gone(&doing),
                other => other,
            })?;
        if answer["success"] == Value::Bool(false) {
            return Err(self.tab_gone(&doing));
        }
        if self.shared.active().as_deref() == Some(id) {
            self.shared.set_active(None);
        }
        Ok(Performed {
            method: "Target.closeTarget".into(),
        })
    }

    /// Brings a tab to the front and makes it the active one.
    pub async fn switch_tab(&self, id: &str) -> Result<Performed> {
        let doing = format!("switching to {}", self.label_of(id).await);
        self.browser_call(
            (&doing, "the tab"),
            "Target.activateTarget",
            json!({"targetId": id}),
        )
        .await
        .map_err(|e| match e {
            Error::Protocol { .. } => self.tab_gone(&doing),
            other => other,
        })?;
        let session = self.session(id, doing).await?;
        session.call("Page.bringToFront", json!({})).await?;
        self.shared.set_active(Some(id.to_owned()));
        Ok(Performed {
            method: "Target.activateTarget + Page.bringToFront".into(),
        })
    }

    /// The document a tab shows now: URL, title, frame and loader id.
    pub async fn document(&self, id: &str) -> Result<Document> {
        let tab = self.tab(id).await?;
        let session = self
            .session(id, format!("reading the document of {}", tab.label()))
            .await?;
        let tree = session.call("Page.getFrameTree", json!({})).await?;
        let main = capture::frames_of(&tree)
            .into_iter()
            .next()
            .ok_or_else(|| Error::Protocol {
                doing: session.doing.clone(),
                method: "Page.getFrameTree".into(),
                detail: "the answer names no main frame".into(),
            })?;
        Ok(Document {
            url: main.url,
            title: tab.title,
            frame_id: main.id,
            loader_id: main.loader_id,
        })
    }

    /// Captures a tab's accessibility tree. While a JavaScript dialog
    /// blocks the page, that is the page as last read with the dialog at
    /// its end.
    pub async fn capture_tab(&self, id: &str) -> Result<Snapshot> {
        self.capture_tab_again(id, true).await
    }

    /// [`Cdp::capture_tab`]; `again`: once more if a dialog that stopped
    /// the read is answered before it is read.
    async fn capture_tab_again(&self, id: &str, again: bool) -> Result<Snapshot> {
        let tab = self.tab(id).await?;
        let session = self
            .session(id, format!("capturing {}", tab.label()))
            .await?;
        if let Some(held) = self.shared.dialogs.held(id) {
            return Ok(self.page_with_dialog(id, tab.name(), &held).await);
        }
        // Captures of one tab take turns with its mirror: each asks the page
        // what changed since the last one, and the answer is the mirror's.
        let shared = (self.mirror_use != MirrorUse::Off).then(|| self.mirror_of(id));
        let mut guard = match &shared {
            Some(shared) => Some(shared.lock().await),
            None => None,
        };
        let mut slot = guard.as_deref_mut();
        // Checks read every page through its mirror, small ones too.
        let min_nodes = match self.mirror_use {
            MirrorUse::On => capture::MIN_NODES,
            _ => 0,
        };
        let mut result = capture::capture(
            &session,
            tab.name(),
            &self.capture,
            slot.as_deref_mut().map(|s| (s, min_nodes)),
        )
        .await;
        // A document replaced while it was being read fails the read; the
        // next read sees the new one.
        for _ in 0..2 {
            match &result {
                Err(Error::Protocol { detail, .. }) if is_transient(detail) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    result = capture::capture(
                        &session,
                        tab.name(),
                        &self.capture,
                        slot.as_deref_mut().map(|s| (s, min_nodes)),
                    )
                    .await;
                }
                _ => break,
            }
        }
        if self.mirror_use.checks() {
            if let (Ok(first), Some(slot)) = (&result, slot) {
                if first.1.through_mirror {
                    let first = (first.0.clone(), first.1);
                    result = self.check_mirror(&session, tab.name(), first, slot).await;
                } else {
                    let ms = first.0.meta.capture_ms.unwrap_or_default();
                    let how = format!("whole:{}", first.1.why_whole);
                    self.write_times(&first.0, &how, ms, ms);
                }
            }
        }
        let mirrored = guard.as_deref().is_some_and(Option::is_some);
        drop(guard);
        let result = match result {
            Ok((snapshot, read)) => {
                if let Ok(mut last) = self.last_capture.lock() {
                    *last = read;
                }
                self.keep_page(id, &snapshot, mirrored);
                let snapshot = selection::with_selection(&session, snapshot).await;
                let snapshot = downloads::with_downloads(snapshot, &self.shared.downloads.of(id));
                Ok(match self.shared.choosers.held(id) {
                    Some(chooser) => choosers::with_held(&snapshot, &chooser),
                    None => snapshot,
                })
            }
            // A dialog opened while the page was being read.
            Err(Error::Dialog { .. }) => match self.shared.dialogs.held(id) {
                Some(held) => Ok(self.page_with_dialog(id, tab.name(), &held).await),
                None if again => Box::pin(self.capture_tab_again(id, false)).await,
                None => Err(Error::Page {
                    doing: session.doing.clone(),
                    detail: "JavaScript dialogs opened and closed while the page was read; \
                             capture again"
                        .into(),
                }),
            },
            Err(e) => Err(e),
        };
        self.explain(id, result).await
    }

    /// Keeps `snapshot` as tab `id`'s last capture: a copy, unless the
    /// tab's mirror holds it (`mirrored`).
    fn keep_page(&self, id: &str, snapshot: &Snapshot, mirrored: bool) {
        let page = match mirrored {
            true => LastPage::Mirrored,
            false => LastPage::Copy(snapshot.clone()),
        };
        let mut kept = self.last_pages.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(tab, _)| tab != id);
        kept.push((id.to_owned(), page));
        if kept.len() > MAX_MIRRORS {
            kept.remove(0);
        }
    }

    /// Tab `id`'s tree while `held` blocks its page: the page as last
    /// read (a bare document when it never was, or its mirror was let go),
    /// with the dialog.
    async fn page_with_dialog(&self, id: &str, title: &str, held: &dialogs::Held) -> Snapshot {
        let copy = {
            let kept = self.last_pages.lock().unwrap_or_else(|e| e.into_inner());
            match kept.iter().find(|(tab, _)| tab == id).map(|(_, p)| p) {
                Some(LastPage::Copy(s)) => Some(Some(s.clone())),
                Some(LastPage::Mirrored) => None,
                None => Some(None),
            }
        };
        let last = match copy {
            Some(last) => last,
            None => {
                let shared = self.mirror_of(id);
                let mut slot = shared.lock().await;
                slot.as_mut()
                    .map(|m| capture::mirrored_page(m, title, &self.capture))
            }
        };
        let downloads = self.shared.downloads.of(id);
        let last = last.map(|page| downloads::with_downloads(page, &downloads));
        dialogs::with_held(last.as_ref(), title, held)
    }

    /// The live mirror of tab `id` (empty until a whole read starts it),
    /// now the most recently used.
    fn mirror_of(&self, id: &str) -> SharedMirror {
        let mut kept = self.mirrors.lock().unwrap_or_else(|e| e.into_inner());
        let mirror = match kept.iter().position(|(tab, _)| tab == id) {
            Some(at) => kept.remove(at).1,
            None => SharedMirror::default(),
        };
        kept.push((id.to_owned(), Arc::clone(&mirror)));
        if kept.len() > MAX_MIRRORS {
            kept.remove(0);
        }
        mirror
    }

    /// Appends a line to `UIDELTA_MIRROR_TIMES` (when set): the page, how
    /// the capture read it (`part`, `whole:REASON`), the milliseconds of
    /// the capture and of a whole read.
    fn write_times(&self, snapshot: &Snapshot, how: &str, mirror_ms: f64, whole_ms: f64) {
        if let Some(path) = &self.mirror_times {
            let app = snapshot.meta.app.as_deref().unwrap_or_default();
            uidelta_backend::mirror::write_times(path, app, how, mirror_ms, whole_ms);
        }
    }

    /// `UIDELTA_MIRROR=check` or `strict`: compares a capture read through
    /// the mirror with a whole read, bounds aside. The page may change
    /// between the two: on a difference both are read again, up to
    /// [`CHECK_ROUNDS`] times. What still differs is logged and the whole
    /// read answered (`check`), or an error (`strict`).
    async fn check_mirror(
        &self,
        session: &Session,
        title: &str,
        first: (Snapshot, CaptureRead),
        slot: &mut Option<capture::PageMirror>,
    ) -> Result<(Snapshot, CaptureRead)> {
        let mut mirrored = first;
        let mut rounds = 0;
        loop {
            if !mirrored.1.through_mirror {
                return Ok(mirrored);
            }
            let whole = capture::capture(session, title, &self.capture, None).await?;
            if rounds == 0 {
                let ms = |s: &Snapshot| s.meta.capture_ms.unwrap_or_default();
                self.write_times(&mirrored.0, "part", ms(&mirrored.0), ms(&whole.0));
            }
            // Bounds aside: those of nodes not read again are the last
            // whole read's.
            let found = uidelta_model::compare::differences(&mirrored.0, &whole.0, 5, false);
            if found.is_empty() {
                return Ok(mirrored);
            }
            let difference = found
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ");
            if rounds == CHECK_ROUNDS {
                *slot = None;
                let message = format!(
                    "the page's live mirror differs from a whole read after {rounds} more \
                     captures: {difference}"
                );
                if self.mirror_use == MirrorUse::Strict {
                    return Err(Error::Page {
                        doing: session.doing.clone(),
                        detail: message,
                    });
                }
                tracing::warn!("{message}");
                return Ok(whole);
            }
            rounds += 1;
            tokio::time::sleep(CHECK_PAUSE).await;
            mirrored = capture::capture(session, title, &self.capture, Some((slot, 0))).await?;
        }
    }

    /// Performs `action` on `node`, an element of a capture of tab `id`; the
    /// tab becomes the active one.
    pub async fn act_on(&self, id: &str, node: &NodeData, action: &Action) -> Result<Performed> {
        let label = self.label_of(id).await;
        let session = self
            .session(id, format!("{} an element of {label}", action.doing()))
            .await?;
        // The tab acted in is the one in front, as it must be for a user.
        self.shared.set_active(Some(id.to_owned()));
        if dialogs::is_dialog_element(node) {
            return dialogs::act(&session, node, action).await;
        }
        if choosers::is_chooser_element(node) {
            return choosers::act(&session, node, action).await;
        }
        if let Some(e) = session.held_dialog() {
            return Err(e);
        }
        let result = actions::act(&session, node, action).await;
        let result = opened_a_dialog(&session, result, "CDP input");
        self.explain(id, result).await
    }

    /// The centre of what shows of `node` (an element of a capture of tab
    /// `id`) in the viewport now: its box read afresh, without scrolling
    /// (a capture read through the page's mirror keeps the bounds of
    /// elements that moved without changing). An element of a cross-site
    /// frame, a dialog's or a file chooser's: as the capture placed it.
    pub async fn centre_now(&self, id: &str, node: &NodeData) -> Result<Option<(i32, i32)>> {
        if dialogs::is_dialog_element(node) || choosers::is_chooser_element(node) {
            return Ok(uidelta_backend::centre_of(node));
        }
        let label = self.label_of(id).await;
        let session = self
            .session(id, format!("placing an element of {label}"))
            .await?;
        // A page a dialog of its own holds answers nothing until it is
        // answered.
        if let Some(e) = session.held_dialog() {
            return Err(e);
        }
        actions::centre_now(&session, node).await
    }

    /// Clicks (`Action::Click`, `RightClick` or `DoubleClick`), or moves the
    /// mouse (`Action::Hover`), at a point of tab `id`'s viewport, in CSS
    /// pixels (the coordinates of its screenshot), whatever is there.
    pub async fn click_at(&self, id: &str, x: i32, y: i32, action: &Action) -> Result<Performed> {
        let (button, count, what, doing) = match action {
            Action::Click => (input::Button::Left, 1, "click", "clicking"),
            Action::RightClick => (input::Button::Right, 1, "right click", "right-clicking"),
            Action::DoubleClick => (input::Button::Left, 2, "double click", "double-clicking"),
            Action::Hover => (input::Button::Left, 0, "pointer move", "moving the pointer"),
            Action::DragTo { .. } => (input::Button::Left, 1, "drag", "dragging"),
            _ => {
                return Err(Error::Unsupported(format!(
                    "{} a point: only a click, right click or double click, the pointer moved \
                     there, or a drag from there, can be made at a point",
                    action.doing()
                )))
            }
        };
        let label = self.label_of(id).await;
        let session = self
            .session(id, format!("{doing} at {x},{y} in {label}"))
            .await?;
        self.shared.set_active(Some(id.to_owned()));
        if let Some(e) = session.held_dialog() {
            return Err(e);
        }
        let (fx, fy) = (f64::from(x), f64::from(y));
        let (method, moved) = match action {
            Action::DragTo { x: tx, y: ty } => {
                let to = (f64::from(*tx), f64::from(*ty));
                let method = format!("CDP Input {what} from {x},{y} to {tx},{ty}");
                (method, input::drag(&session, (fx, fy), to).await)
            }
            _ if count == 0 => (
                format!("CDP Input {what} at {x},{y}"),
                input::hover(&session, fx, fy).await,
            ),
            _ => (
                format!("CDP Input {what} at {x},{y}"),
                input::click(&session, fx, fy, button, count).await,
            ),
        };
        let result = moved.map(|()| Performed {
            method: method.clone(),
        });
        let result = opened_a_dialog(&session, result, &method);
        self.explain(id, result).await
    }

    /// Presses a key or chord in tab `id`, on its focused element, whichever
    /// tab is the active one. The tab becomes the active one.
    pub async fn press_key(&self, id: &str, chord: &str) -> Result<Performed> {
        let parsed = Chord::parse(chord)
            .map_err(|e| Error::Unsupported(format!("pressing {chord}: {e}")))?;
        let label = self.label_of(id).await;
        let session = self
            .session(id, format!("pressing {chord} in {label}"))
            .await?;
        self.shared.set_active(Some(id.to_owned()));
        // Return and Escape answer a dialog held open.
        if let Some(held) = self.shared.dialogs.held(id) {
            return dialogs::act(
                &session,
                &dialogs::element(&held),
                &Action::Key(chord.into()),
            )
            .await;
        }
        // So do they a file chooser held open.
        let answers = ["return", "enter", "kp_enter", "escape"];
        if let Some(held) = self.shared.choosers.held(id) {
            if answers.contains(&chord.trim().to_ascii_lowercase().as_str()) {
                let key = Action::Key(chord.into());
                return choosers::act(&session, &choosers::element(&held), &key).await;
            }
        }
        let method = format!("CDP Input key {chord}");
        let result = input::press(&session, &parsed).await.map(|()| Performed {
            method: method.clone(),
        });
        let result = opened_a_dialog(&session, result, &method);
        self.explain(id, result).await
    }

    /// Change events of tab `id`; see the `events` module for the kinds.
    pub async fn watch(&self, id: &str) -> Result<EventStream> {
        let label = self.label_of(id).await;
        let session = self.session(id, format!("watching {label}")).await?;
        let result = events::subscribe(&session).await;
        self.explain(id, result).await
    }

    /// Loads a URL in tab `id`, or moves in its history; returns once the
    /// new document is committed. The tab becomes the active one.
    pub async fn navigate_tab(&self, id: &str, to: &Navigate) -> Result<Performed> {
        let label = self.label_of(id).await;
        let session = self
            .session(id, format!("{} in {label}", to.doing()))
            .await?;
        self.shared.set_active(Some(id.to_owned()));
        // Going elsewhere dismisses a dialog held open, as in a browser.
        if let Some(dialog) = dialogs::dismiss_held(&session).await? {
            tracing::info!("dismissed the page's {dialog} to navigate");
        }
        let result = navigate::navigate(&session, to).await;
        self.explain(id, result).await
    }

    /// Runs a script in tab `id`'s main frame; returns its result as JSON.
    pub async fn evaluate(&self, id: &str, script: &str) -> Result<String> {
        let label = self.label_of(id).await;
        let session = self
            .session(id, format!("running a script in {label}"))
            .await?;
        if let Some(e) = session.held_dialog() {
            return Err(e);
        }
        let result = match navigate::run_script(&session, script).await {
            // The script runs on once the dialog is answered; what it
            // returns then is not waited for.
            Err(Error::Dialog { dialog, .. }) => Ok(serde_json::to_string(&format!(
                "(no result yet: the script opened the page's {dialog}, which waits for an \
                 answer)"
            ))
            .unwrap_or_default()),
            other => other,
        };
        self.explain(id, result).await
    }

    /// A PNG of the active tab's viewport, or of an area of it (viewport CSS
    /// pixels, as node bounds are).
    pub async fn screenshot_png(&self, area: Option<Rect>) -> Result<Vec<u8>> {
        let tab = self.active_tab().await?;
        let session = self
            .session(&tab.id, format!("taking a screenshot of {}", tab.label()))
            .await?;
        let result = screenshot(&session, area).await;
        self.explain(&tab.id, result).await
    }

    /// The active tab: the one activated last, or the first there is.
    pub async fn active_tab(&self) -> Result<Tab> {
        let tabs = self.tabs().await?;
        tabs.iter()
            .find(|t| t.active)
            .or(tabs.first())
            .cloned()
            .ok_or_else(|| Error::NotFound("the browser has no tab open".into()))
    }

    async fn label_of(&self, id: &str) -> String {
        match self.tabs().await {
            Ok(tabs) => tabs
                .iter()
                .find(|t| t.id == id)
                .map(Tab::label)
                .unwrap_or_else(|| tab_label("", "", id)),
            Err(_) => tab_label("", "", id),
        }
    }

    fn tab_gone(&self, doing: &str) -> Error {
        if !self.shared.is_alive() {
            return Error::Gone {
                doing: doing.to_owned(),
                what: "the browser",
                detail: "the connection closed".into(),
            };
        }
        Error::Gone {
            doing: doing.to_owned(),
            what: "the tab",
            detail: "no tab has this id any more; it was closed".into(),
        }
    }

    async fn browser_call(
        &self,
        (doing, about): (&str, &'static str),
        method: &'static str,
        params: Value,
    ) -> Result<Value> {
        if !self.shared.is_alive() {
            return Err(Error::Gone {
                doing: doing.to_owned(),
                what: "the browser",
                detail: "the connection closed".into(),
            });
        }
        browser_call(&self.browser, &self.shared, (doing, about), method, params).await
    }

    /// The tab's page, once the connection has attached to it.
    async fn session(&self, id: &str, doing: String) -> Result<Session> {
        let started = Instant::now();
        loop {
            if !self.shared.is_alive() {
                return Err(self.tab_gone(&doing));
            }
            let target = TargetId::from(id.to_owned());
            let found = tokio::time::timeout(CALL_TIMEOUT, self.browser.get_page(target)).await;
            match found {
                Ok(Ok(page)) => {
                    let session = self.wrap(page, doing);
                    return match dialogs::watch(&session).await {
                        Ok(()) => Ok(session),
                        Err(Error::Timeout {
                            doing,
                            method,
                            after,
                        }) if self.shared.is_alive() => Err(Error::Blocked {
                            doing,
                            method,
                            after,
                        }),
                        Err(e) => Err(e),
                    };
                }
                Ok(Err(CdpError::NotFound)) => {
                    let tabs = self.tabs().await?;
                    if !tabs.iter().any(|t| t.id == id) {
                        return Err(self.tab_gone(&doing));
                    }
                    if started.elapsed() >= ATTACH_TIMEOUT {
                        return Err(Error::Timeout {
                            doing,
                            method: "attaching to the tab".into(),
                            after: ATTACH_TIMEOUT,
                        });
                    }
                    tokio::time::sleep(Duration::from_millis(25)).await;
                }
                Ok(Err(e)) => {
                    self.shared.alive.store(false, Ordering::SeqCst);
                    return Err(Error::Gone {
                        doing,
                        what: "the browser",
                        detail: e.to_string(),
                    });
                }
                Err(_) => {
                    return Err(Error::Timeout {
                        doing,
                        method: "finding the tab".into(),
                        after: CALL_TIMEOUT,
                    })
                }
            }
        }
    }

    fn wrap(&self, page: Page, doing: String) -> Session {
        Session {
            page,
            doing,
            shared: Arc::clone(&self.shared),
            route: None,
        }
    }

    /// A timeout on a tab that has meanwhile closed, or on a browser that
    /// has exited, is reported as gone.
    async fn explain<T>(&self, id: &str, result: Result<T>) -> Result<T> {
        match result {
            Err(Error::Timeout {
                doing,
                method,
                after,
            }) => {
                if !self.shared.is_alive() || !self.endpoint_answers().await {
                    self.shared.alive.store(false, Ordering::SeqCst);
                    return Err(self.tab_gone(&doing));
                }
                if let Ok(tabs) = self.tabs().await {
                    if !tabs.iter().any(|t| t.id == id) {
                        return Err(self.tab_gone(&doing));
                    }
                }
                Err(Error::Timeout {
                    doing,
                    method,
                    after,
                })
            }
            other => other,
        }
    }

    /// Whether the browser's DevTools port still accepts connections.
    async fn endpoint_answers(&self) -> bool {
        let Some(authority) = self
            .endpoint
            .split("://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
        else {
            return true;
        };
        let connect = tokio::net::TcpStream::connect(authority.to_owned());
        matches!(
            tokio::time::timeout(Duration::from_secs(2), connect).await,
            Ok(Ok(_))
        )
    }
}

/// An action's result when a JavaScript dialog opened while it was being
/// performed: the page took the input (its handler opened the dialog) and
/// blocks until the dialog is answered, so the call's answer never came.
fn opened_a_dialog(
    session: &Session,
    result: Result<Performed>,
    method: &str,
) -> Result<Performed> {
    match result {
        Err(Error::Dialog { dialog, .. }) => {
            tracing::debug!("{}: the page opened its {dialog}", session.doing);
            Ok(Performed {
                method: format!("{method}; the page opened its {dialog}"),
            })
        }
        other => other,
    }
}

/// Whether a browser's error message means the document changed under the
/// call, so that trying again makes sense.
fn is_transient(detail: &str) -> bool {
    const TRANSIENT: [&str; 5] = [
        "navigated or closed",
        "execution context was destroyed",
        "cannot find context",
        "frame with the given id was not found",
        "no frame for given id",
    ];
    let lower = detail.to_ascii_lowercase();
    TRANSIENT.iter().any(|t| lower.contains(t))
}

/// The page targets of a `Target.getTargets` answer.
fn tabs_of(answer: &Value) -> Vec<Tab> {
    answer["targetInfos"]
        .as_array()
        .map(|infos| {
            infos
                .iter()
                .filter(|t| t["type"] == "page")
                .filter_map(|t| {
                    Some(Tab {
                        id: t["targetId"].as_str()?.to_owned(),
                        title: t["title"].as_str().unwrap_or_default().to_owned(),
                        url: t["url"].as_str().unwrap_or_default().to_owned(),
                        active: false,
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A tab as an application with one window, its document.
pub fn tab_app(tab: &Tab) -> App {
    App {
        name: tab.name().to_owned(),
        pid: None,
        id: tab.id.clone(),
        windows: vec![Window {
            title: tab.name().to_owned(),
            role: "document web".into(),
            id: tab.id.clone(),
            active: tab.active,
            showing: true,
        }],
        error: None,
    }
}

/// Whether `scope` names the tab (its only window is its document).
fn scope_matches(tab: &Tab, scope: &Scope) -> bool {
    match scope {
        Scope::App | Scope::Focused => true,
        Scope::Window(title) => {
            let wanted = title.to_lowercase();
            [tab.name(), tab.title.as_str(), tab.url.as_str()]
                .iter()
                .any(|t| !t.is_empty() && t.to_lowercase().starts_with(&wanted))
        }
    }
}

async fn screenshot(session: &Session, area: Option<Rect>) -> Result<Vec<u8>> {
    let mut params = json!({"format": "png", "captureBeyondViewport": false});
    if let Some(r) = area {
        // Clips are in page coordinates; bounds are in the viewport.
        let metrics = session.call("Page.getLayoutMetrics", json!({})).await?;
        let v = &metrics["cssVisualViewport"];
        let (px, py) = (
            v["pageX"].as_f64().unwrap_or(0.0),
            v["pageY"].as_f64().unwrap_or(0.0),
        );
        params["clip"] = json!({
            "x": f64::from(r.x) + px, "y": f64::from(r.y) + py,
            "width": f64::from(r.w.max(1)), "height": f64::from(r.h.max(1)), "scale": 1,
        });
    }
    let answer = session.call("Page.captureScreenshot", params).await?;
    let data = answer["data"].as_str().unwrap_or_default();
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| Error::Protocol {
            doing: session.doing.clone(),
            method: "Page.captureScreenshot".into(),
            detail: format!("the image is not base64: {e}"),
        })
}

fn process_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().next())
                .unwrap_or("Z");
            state != "Z" && state != "X"
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_are_page_targets_and_apps_with_one_window() {
        let answer = json!({"targetInfos": [
            {"targetId": "AAA111", "type": "page", "title": "Inbox", "url": "http://x/"},
            {"targetId": "BBB222", "type": "service_worker", "title": "sw", "url": "http://x/sw.js"},
            {"targetId": "CCC333", "type": "page", "title": "", "url": "about:blank"},
        ]});
        let tabs = tabs_of(&answer);
        assert_eq!(tabs.len(), 2);
        assert_eq!(tabs[1].name(), "about:blank");
        assert_eq!(tabs[0].label(), "tab \"Inbox\" (AAA111)");
        let app = tab_app(&Tab {
            active: true,
            ..tabs[0].clone()
        });
        assert_eq!(app.name, "Inbox");
        assert_eq!(app.id, "AAA111");
        assert_eq!(app.pid, None);
        assert_eq!(
            app.windows,
            vec![Window {
                title: "Inbox".into(),
                role: "document web".into(),
                id: "AAA111".into(),
                active: true,
                showing: true,
            }]
        );
        assert!(scope_matches(&tabs[0], &Scope::Window("inb".into())));
        assert!(scope_matches(&tabs[0], &Scope::Window("http://x".into())));
        assert!(!scope_matches(&tabs[0], &Scope::Window("Drafts".into())));
        assert!(is_transient("Inspected target navigated or closed"));
        assert!(!is_transient("Element is not focusable"));
    }
}
