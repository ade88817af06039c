//! `uidelta.Desktop` and `uidelta.Browser`: the delta loop on the live
//! Linux desktop and in Chromium, from Python. Every action settles and
//! answers with what it changed.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use pyo3::exceptions::{PyLookupError, PyOSError, PyRuntimeError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use uidelta_backend::{Action, Backend, ErrorKind, Navigate};
use uidelta_cdp::{Cdp, LaunchOptions};
use uidelta_engine::selector::Selector;
use uidelta_engine::{ActOptions, ActionOutcome, Condition, DragEnd, Error, Session, WaitOutcome};
use uidelta_linux::Linux;
use uidelta_model::State;
use uidelta_render::TreeOptions;

use crate::{Diff, Element};

/// The live desktop (`DISPLAY` and the session bus from the environment),
/// read through AT-SPI: `apps()`, `tree(app)`, then actions on refs
/// (`e12`) or selectors, each answering with its diff. The GIL is released
/// while the desktop is read and while the UI settles.
#[pyclass(module = "uidelta")]
pub struct Desktop {
    driver: Driver<Linux>,
}

/// A session with one backend: its runtime and the engine's session.
struct Driver<B: Backend> {
    rt: tokio::runtime::Runtime,
    session: Mutex<Session<B>>,
}

/// How long a page may take to open.
const OPEN_TIMEOUT: Duration = Duration::from_secs(30);

/// What an action did: `diff` (a `Diff`), `text` (the answer an agent
/// reads: earlier changes, the diff, an application switch), `method` (how
/// it was done: `Action.click`, `XTest click at 640,287`), `exited` (the
/// application ended, as answering a dialog often does).
#[pyclass(frozen, get_all, module = "uidelta")]
pub struct ActionResult {
    /// What the action changed in its application.
    diff: Py<Diff>,
    /// The answer as an agent reads it.
    text: String,
    /// How the action was performed.
    method: String,
    /// Whether the application exited after it.
    exited: bool,
}

#[pymethods]
impl ActionResult {
    fn __repr__(&self) -> String {
        format!("<uidelta.ActionResult via {}>", self.method)
    }
}

#[pymethods]
impl Desktop {
    /// Connects to the desktop's accessibility bus and X display.
    #[new]
    fn new(py: Python<'_>) -> PyResult<Desktop> {
        let rt = runtime()?;
        let linux = py
            .detach(|| rt.block_on(Linux::connect(None, None)))
            .map_err(|e| {
                let mut e = uidelta_backend::Error::from(e);
                e.message = format!("connecting to the desktop: {}", e.message);
                backend_error(py, &e)
            })?;
        Ok(Desktop {
            driver: Driver::new(rt, linux),
        })
    }

    /// The applications on the accessibility bus: `(name, pid)` pairs,
    /// those with windows first.
    fn apps(&self, py: Python<'_>) -> PyResult<Vec<(String, Option<u32>)>> {
        self.driver.apps(py)
    }

    /// The tree of application `app` as an agent reads it, with the refs
    /// the actions take.
    fn tree(&self, py: Python<'_>, app: &str) -> PyResult<String> {
        self.driver.tree(py, app)
    }

    /// Clicks `target` (a ref such as `e12`, or a selector such as
    /// `role:push button && name:OK`): with `button="right"`, or twice with
    /// `double=True`.
    #[pyo3(signature = (target, *, button = "left", double = false))]
    fn click(
        &self,
        py: Python<'_>,
        target: &str,
        button: &str,
        double: bool,
    ) -> PyResult<ActionResult> {
        let action = click_action(py, button, double)?;
        self.driver.act(py, target, action)
    }

    /// Clicks the point `(x, y)` of the screen (a screenshot's
    /// coordinates), answered with the diff of application `app`: for what
    /// the tree does not show (a canvas), or an application that does not
    /// answer.
    #[pyo3(signature = (app, x, y, *, button = "left", double = false))]
    fn click_at(
        &self,
        py: Python<'_>,
        app: &str,
        x: i32,
        y: i32,
        button: &str,
        double: bool,
    ) -> PyResult<ActionResult> {
        let action = click_action(py, button, double)?;
        self.driver.at_point(py, app, (x, y), action)
    }

    /// Moves the pointer over `target` and leaves it there: what shows on
    /// hover.
    fn hover(&self, py: Python<'_>, target: &str) -> PyResult<ActionResult> {
        self.driver.act(py, target, Action::Hover)
    }

    /// Moves the pointer to the point `(x, y)` of the screen and leaves it
    /// there, answered with the diff of application `app`.
    fn hover_at(&self, py: Python<'_>, app: &str, x: i32, y: i32) -> PyResult<ActionResult> {
        self.driver.at_point(py, app, (x, y), Action::Hover)
    }

    /// Drags `target` with the primary button onto the element `to` (a
    /// ref or selector, dropped at its centre), or to the point `at`
    /// (screen coordinates).
    #[pyo3(signature = (target, to=None, *, at=None))]
    fn drag(
        &self,
        py: Python<'_>,
        target: &str,
        to: Option<&str>,
        at: Option<(i32, i32)>,
    ) -> PyResult<ActionResult> {
        self.driver.drag(py, Dragged::Element(target), to, at)
    }

    /// Drags with the primary button from the point `(x, y)` of the
    /// screen (for what the tree does not show: a selection drawn on a
    /// canvas) onto the element `to`, or to the point `at`, answered with
    /// the diff of application `app`.
    #[pyo3(signature = (app, x, y, to=None, *, at=None))]
    fn drag_at(
        &self,
        py: Python<'_>,
        app: &str,
        x: i32,
        y: i32,
        to: Option<&str>,
        at: Option<(i32, i32)>,
    ) -> PyResult<ActionResult> {
        let from = Dragged::Point { app, at: (x, y) };
        self.driver.drag(py, from, to, at)
    }

    /// Turns the mouse wheel `amount` clicks (at most 50) `direction`
    /// (`"up"`, `"down"`, `"left"`, `"right"`) over `target`; `amount=0`
    /// scrolls it into view instead.
    #[pyo3(signature = (target, direction = "down", amount = 3))]
    fn scroll(
        &self,
        py: Python<'_>,
        target: &str,
        direction: &str,
        amount: i64,
    ) -> PyResult<ActionResult> {
        let action = scroll_action(py, direction, amount)?;
        self.driver.act(py, target, action)
    }

    /// Types `text` into `target`: at its caret when it has the keyboard
    /// focus, else in place of its selected text or at its end;
    /// `set_value` replaces a field's text. A line break is Return and a
    /// tab Tab.
    #[pyo3(name = "type")]
    fn type_text(&self, py: Python<'_>, target: &str, text: &str) -> PyResult<ActionResult> {
        self.driver.act(py, target, Action::Type(text.to_owned()))
    }

    /// Sets the value of `target`: a number, an entry's text, a combo
    /// box's option.
    fn set_value(&self, py: Python<'_>, target: &str, value: &str) -> PyResult<ActionResult> {
        self.driver
            .act(py, target, Action::SetValue(value.to_owned()))
    }

    /// Selects (or, with `selected=False`, deselects) `target`.
    #[pyo3(signature = (target, selected = true))]
    fn select(&self, py: Python<'_>, target: &str, selected: bool) -> PyResult<ActionResult> {
        self.driver.act(py, target, Action::SetSelected(selected))
    }

    /// Presses `chord` (`ctrl+s`, `Return`) in application `app`, on its
    /// focused element.
    fn key(&self, py: Python<'_>, app: &str, chord: &str) -> PyResult<ActionResult> {
        self.driver.key(py, app, chord)
    }

    /// Waits up to `timeout` seconds for `app` to change by itself.
    #[pyo3(signature = (app, timeout = 10.0))]
    fn wait_for_change(&self, py: Python<'_>, app: &str, timeout: f64) -> PyResult<ActionResult> {
        self.driver.wait_for_change(py, app, timeout)
    }

    /// Performs `target`'s accessible action named `action` (`click`,
    /// `activate`, `expand or contract`; case does not matter).
    fn invoke(&self, py: Python<'_>, target: &str, action: &str) -> PyResult<ActionResult> {
        self.driver.invoke(py, target, action)
    }

    /// The elements matching `selector` (`role:check box && state:checked`,
    /// `name~:sav`), as `Found` objects, in the applications read so far
    /// (each read again first), or in `app` only (read now). Nothing
    /// matching is an empty list.
    #[pyo3(signature = (selector, app = None))]
    fn find(&self, py: Python<'_>, selector: &str, app: Option<&str>) -> PyResult<Vec<Found>> {
        self.driver.find(py, selector, app)
    }

    /// Waits up to `timeout` seconds until an element of `app` matching
    /// `selector` meets `condition`: `"appears"` (default),
    /// `"disappears"`, `"has_state"` or `"lacks_state"` (with `state`:
    /// `"enabled"`, `"checked"`, ...). A timeout raises `TimeoutError`
    /// (kind `timeout`) saying how many elements match now.
    #[pyo3(signature = (app, selector, timeout = 10.0, *, condition = "appears", state = None))]
    fn wait_for_element(
        &self,
        py: Python<'_>,
        app: &str,
        selector: &str,
        timeout: f64,
        condition: &str,
        state: Option<&str>,
    ) -> PyResult<Waited> {
        self.driver
            .wait_for_element(py, app, selector, timeout, condition, state)
    }

    /// A PNG of the whole screen (`bytes`), also written to `path` when
    /// given.
    #[pyo3(signature = (path = None))]
    fn screenshot<'py>(
        &self,
        py: Python<'py>,
        path: Option<PathBuf>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.driver.screenshot(py, path)
    }
}

/// A web page in Chromium, read through the DevTools protocol: a headless
/// Chromium started for it (or the one at `cdp`, a DevTools address such
/// as `http://127.0.0.1:9222`), with `url` opened in a tab of its own.
/// The tab is the application of `tree`, `key` and `wait_for_change`.
#[pyclass(module = "uidelta")]
pub struct Browser {
    driver: Driver<Cdp>,
    tab: String,
}

#[pymethods]
impl Browser {
    /// Starts (or attaches to) Chromium and opens `url` (`about:blank` by
    /// default).
    #[new]
    #[pyo3(signature = (url = None, *, cdp = None))]
    fn new(py: Python<'_>, url: Option<&str>, cdp: Option<&str>) -> PyResult<Browser> {
        let rt = runtime()?;
        let url = url.unwrap_or("about:blank");
        let opened = py.detach(|| {
            rt.block_on(async {
                let browser = match cdp {
                    Some(address) => Cdp::attach(address).await,
                    None => Cdp::launch(LaunchOptions::default()).await,
                }
                .map_err(|e| {
                    let mut e = uidelta_backend::Error::from(e);
                    e.message = format!("starting the browser: {}", e.message);
                    e
                })?;
                let tab = browser
                    .open(url, &[], OPEN_TIMEOUT)
                    .await
                    .map_err(|mut e| {
                        e.message = format!("opening {url}: {}", e.message);
                        e
                    })?;
                Ok::<_, uidelta_backend::Error>((browser, tab.id))
            })
        });
        let (browser, tab) = opened.map_err(|e| backend_error(py, &e))?;
        Ok(Browser {
            driver: Driver::new(rt, browser),
            tab,
        })
    }

    /// The page's tree as an agent reads it, with the refs the actions take.
    fn tree(&self, py: Python<'_>) -> PyResult<String> {
        self.driver.tree(py, &self.tab)
    }

    /// Clicks `target` (a ref such as `e12`, or a selector): with
    /// `button="right"`, or twice with `double=True`.
    #[pyo3(signature = (target, *, button = "left", double = false))]
    fn click(
        &self,
        py: Python<'_>,
        target: &str,
        button: &str,
        double: bool,
    ) -> PyResult<ActionResult> {
        let action = click_action(py, button, double)?;
        self.read_first(py)?;
        self.driver.act(py, target, action)
    }

    /// Clicks the point `(x, y)` of the tab's viewport (CSS pixels, a
    /// screenshot's coordinates): for what the tree does not show (a
    /// canvas).
    #[pyo3(signature = (x, y, *, button = "left", double = false))]
    fn click_at(
        &self,
        py: Python<'_>,
        x: i32,
        y: i32,
        button: &str,
        double: bool,
    ) -> PyResult<ActionResult> {
        let action = click_action(py, button, double)?;
        self.read_first(py)?;
        self.driver.at_point(py, &self.tab, (x, y), action)
    }

    /// Moves the pointer over `target` and leaves it there: what shows on
    /// hover (a menu that opens on `:hover`).
    fn hover(&self, py: Python<'_>, target: &str) -> PyResult<ActionResult> {
        self.read_first(py)?;
        self.driver.act(py, target, Action::Hover)
    }

    /// Moves the pointer to the point `(x, y)` of the tab's viewport and
    /// leaves it there.
    fn hover_at(&self, py: Python<'_>, x: i32, y: i32) -> PyResult<ActionResult> {
        self.read_first(py)?;
        self.driver.at_point(py, &self.tab, (x, y), Action::Hover)
    }

    /// Drags `target` with the primary button onto the element `to` (a
    /// ref or selector, dropped at its centre), or to the point `at` (the
    /// viewport's CSS pixels): a card onto another list, a slider's knob.
    #[pyo3(signature = (target, to=None, *, at=None))]
    fn drag(
        &self,
        py: Python<'_>,
        target: &str,
        to: Option<&str>,
        at: Option<(i32, i32)>,
    ) -> PyResult<ActionResult> {
        self.read_first(py)?;
        self.driver.drag(py, Dragged::Element(target), to, at)
    }

    /// Drags with the primary button from the point `(x, y)` of the tab's
    /// viewport (a canvas) onto the element `to`, or to the point `at`.
    #[pyo3(signature = (x, y, to=None, *, at=None))]
    fn drag_at(
        &self,
        py: Python<'_>,
        x: i32,
        y: i32,
        to: Option<&str>,
        at: Option<(i32, i32)>,
    ) -> PyResult<ActionResult> {
        self.read_first(py)?;
        let from = Dragged::Point {
            app: &self.tab,
            at: (x, y),
        };
        self.driver.drag(py, from, to, at)
    }

    /// Turns the mouse wheel `amount` clicks (at most 50) `direction`
    /// (`"up"`, `"down"`, `"left"`, `"right"`) over `target`; `amount=0`
    /// scrolls it into view instead.
    #[pyo3(signature = (target, direction = "down", amount = 3))]
    fn scroll(
        &self,
        py: Python<'_>,
        target: &str,
        direction: &str,
        amount: i64,
    ) -> PyResult<ActionResult> {
        let action = scroll_action(py, direction, amount)?;
        self.read_first(py)?;
        self.driver.act(py, target, action)
    }

    /// Types `text` into `target`: at its caret when it has the keyboard
    /// focus, else in place of its selected text or at its end;
    /// `set_value` replaces a field's text. A line break is Return and a
    /// tab Tab.
    #[pyo3(name = "type")]
    fn type_text(&self, py: Python<'_>, target: &str, text: &str) -> PyResult<ActionResult> {
        self.read_first(py)?;
        self.driver.act(py, target, Action::Type(text.to_owned()))
    }

    /// Sets the value of `target` (a field's text, a `<select>`'s option).
    fn set_value(&self, py: Python<'_>, target: &str, value: &str) -> PyResult<ActionResult> {
        self.read_first(py)?;
        self.driver
            .act(py, target, Action::SetValue(value.to_owned()))
    }

    /// Selects (or, with `selected=False`, deselects) `target`.
    #[pyo3(signature = (target, selected = true))]
    fn select(&self, py: Python<'_>, target: &str, selected: bool) -> PyResult<ActionResult> {
        self.read_first(py)?;
        self.driver.act(py, target, Action::SetSelected(selected))
    }

    /// Presses `chord` in the page, on its focused element.
    fn key(&self, py: Python<'_>, chord: &str) -> PyResult<ActionResult> {
        self.driver.key(py, &self.tab, chord)
    }

    /// Loads `url` in the tab; the diff of a new document says so.
    fn navigate(&self, py: Python<'_>, url: &str) -> PyResult<ActionResult> {
        let to = Navigate::To(url.to_owned());
        let outcome = py.detach(|| {
            let mut session = self.driver.lock();
            self.driver
                .rt
                .block_on(session.navigate(&self.tab, &to, &ActOptions::default()))
        });
        result(py, outcome.map_err(|e| engine_error(py, e))?)
    }

    /// Waits up to `timeout` seconds for the page to change by itself.
    #[pyo3(signature = (timeout = 10.0))]
    fn wait_for_change(&self, py: Python<'_>, timeout: f64) -> PyResult<ActionResult> {
        self.driver.wait_for_change(py, &self.tab, timeout)
    }

    /// Performs `action` on `target`: `click` (also `press`, `activate`)
    /// or `focus`, the actions a page has.
    fn invoke(&self, py: Python<'_>, target: &str, action: &str) -> PyResult<ActionResult> {
        self.read_first(py)?;
        self.driver.invoke(py, target, action)
    }

    /// The elements of the page matching `selector`, as `Found` objects
    /// (the page is read again first). Nothing matching is an empty list.
    fn find(&self, py: Python<'_>, selector: &str) -> PyResult<Vec<Found>> {
        self.driver.find(py, selector, Some(&self.tab))
    }

    /// Waits up to `timeout` seconds until an element of the page matching
    /// `selector` meets `condition` (as `Desktop.wait_for_element`).
    #[pyo3(signature = (selector, timeout = 10.0, *, condition = "appears", state = None))]
    fn wait_for_element(
        &self,
        py: Python<'_>,
        selector: &str,
        timeout: f64,
        condition: &str,
        state: Option<&str>,
    ) -> PyResult<Waited> {
        self.driver
            .wait_for_element(py, &self.tab, selector, timeout, condition, state)
    }

    /// A PNG of the page's viewport (`bytes`), also written to `path` when
    /// given.
    #[pyo3(signature = (path = None))]
    fn screenshot<'py>(
        &self,
        py: Python<'py>,
        path: Option<PathBuf>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.driver.screenshot(py, path)
    }
}

impl Browser {
    /// Reads the page once before the first action, so that an action's
    /// selector has a page to match in without a `tree()` first. What the
    /// read finds is not lost: it comes with the action's answer.
    fn read_first(&self, py: Python<'_>) -> PyResult<()> {
        let read = py.detach(|| {
            let mut session = self.driver.lock();
            if session.known_apps().iter().any(|k| k.app.id == self.tab) {
                return Ok(());
            }
            self.driver.rt.block_on(session.look(&self.tab)).map(|_| ())
        });
        read.map_err(|e| engine_error(py, e))
    }
}

fn runtime() -> PyResult<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("starting a runtime: {e}")))
}

impl<B: Backend + 'static> Driver<B> {
    fn new(rt: tokio::runtime::Runtime, backend: B) -> Driver<B> {
        Driver {
            rt,
            session: Mutex::new(Session::new(Arc::new(backend))),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Session<B>> {
        // A panic while the session was held leaves it as it was.
        self.session.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn apps(&self, py: Python<'_>) -> PyResult<Vec<(String, Option<u32>)>> {
        let apps = py.detach(|| {
            let session = self.lock();
            self.rt.block_on(session.backend().apps())
        });
        let apps = apps.map_err(|e| backend_error(py, &e))?;
        Ok(apps.into_iter().map(|a| (a.name, a.pid)).collect())
    }

    fn tree(&self, py: Python<'_>, app: &str) -> PyResult<String> {
        let tree = py.detach(|| {
            let mut session = self.lock();
            let (id, _) = self.rt.block_on(session.observe(app))?;
            let known = &session.known_apps()[id];
            Ok(uidelta_render::tree_text(
                &known.view,
                &known.refs,
                &TreeOptions::default(),
            ))
        });
        tree.map_err(|e| engine_error(py, e))
    }

    fn act(&self, py: Python<'_>, target: &str, action: Action) -> PyResult<ActionResult> {
        let outcome = py.detach(|| {
            let mut session = self.lock();
            self.rt
                .block_on(session.act(target, &action, &ActOptions::default()))
        });
        result(py, outcome.map_err(|e| engine_error(py, e))?)
    }

    fn at_point(
        &self,
        py: Python<'_>,
        app: &str,
        point: (i32, i32),
        action: Action,
    ) -> PyResult<ActionResult> {
        let outcome = py.detach(|| {
            let mut session = self.lock();
            self.rt
                .block_on(session.click_at(app, point, &action, &ActOptions::default()))
        });
        result(py, outcome.map_err(|e| engine_error(py, e))?)
    }

    /// Drags `from` (an element, or a point of application `app`'s
    /// screen) to `to` or `at`.
    fn drag(
        &self,
        py: Python<'_>,
        from: Dragged<'_>,
        to: Option<&str>,
        at: Option<(i32, i32)>,
    ) -> PyResult<ActionResult> {
        let command = match from {
            Dragged::Element(_) => "drag",
            Dragged::Point { .. } => "drag_at",
        };
        let end = match (to, at) {
            (Some(to), None) => DragEnd::Element(to.to_owned()),
            (None, Some((x, y))) => DragEnd::Point(x, y),
            _ => {
                return Err(with_kind(
                    py,
                    PyValueError::new_err(format!(
                        "{command}: give where to drop, either `to` (a ref or selector) or \
                         `at=(x, y)`"
                    )),
                    "bad_argument",
                ))
            }
        };
        let outcome = py.detach(|| {
            let mut session = self.lock();
            let opts = ActOptions::default();
            match from {
                Dragged::Element(target) => self.rt.block_on(session.drag(target, &end, &opts)),
                Dragged::Point { app, at } => {
                    self.rt.block_on(session.drag_at(app, at, &end, &opts))
                }
            }
        });
        result(py, outcome.map_err(|e| engine_error(py, e))?)
    }

    fn invoke(&self, py: Python<'_>, target: &str, action: &str) -> PyResult<ActionResult> {
        if action.trim().is_empty() {
            return Err(with_kind(
                py,
                PyValueError::new_err(
                    "invoke: `action` is empty; name one of the element's actions (`click`, \
                     `activate`, ...)",
                ),
                "bad_argument",
            ));
        }
        self.act(py, target, Action::Invoke(action.to_owned()))
    }

    fn key(&self, py: Python<'_>, app: &str, chord: &str) -> PyResult<ActionResult> {
        let outcome = py.detach(|| {
            let mut session = self.lock();
            self.rt
                .block_on(session.key(app, chord, &ActOptions::default()))
        });
        result(py, outcome.map_err(|e| engine_error(py, e))?)
    }

    fn wait_for_change(&self, py: Python<'_>, app: &str, timeout: f64) -> PyResult<ActionResult> {
        let timeout = seconds(py, timeout)?;
        let outcome = py.detach(|| {
            let mut session = self.lock();
            self.rt.block_on(session.wait_for_change(app, timeout))
        });
        result(py, outcome.map_err(|e| engine_error(py, e))?)
    }

    /// The matches of `selector` in `app`, or in every application read so
    /// far (each read again; one that went keeps its last snapshot).
    fn find(&self, py: Python<'_>, selector: &str, app: Option<&str>) -> PyResult<Vec<Found>> {
        let parsed: Selector = selector
            .trim()
            .parse()
            .map_err(|e| engine_error(py, Error::from(e)))?;
        let found = py.detach(|| -> Result<Vec<Found>, Error> {
            let mut session = self.lock();
            let only = match app {
                Some(app) => Some(self.rt.block_on(session.look(app))?),
                None => {
                    let names: Vec<String> = session
                        .known_apps()
                        .iter()
                        .map(|k| k.app.name.clone())
                        .collect();
                    for name in names {
                        let _ = self.rt.block_on(session.look(&name));
                    }
                    None
                }
            };
            if session.known_apps().is_empty() {
                return Err(Error::NoMatch {
                    selector: selector.trim().to_owned(),
                    hint: ": no application has been read yet; pass `app`, or read its tree \
                           first"
                        .to_owned(),
                    candidates: Vec::new(),
                });
            }
            let hits = session.find(&parsed);
            Ok(hits
                .into_iter()
                .filter(|(i, _)| only.is_none_or(|o| o == *i))
                .map(|(i, n)| {
                    let known = &session.known_apps()[i];
                    let node = known.view.tree().node(n);
                    Found {
                        ref_: known.refs.get(n).to_string(),
                        role: node.role.as_str().to_owned(),
                        name: node.name.clone(),
                        value: node.value.clone(),
                        states: node.states.iter().map(|s| s.as_str().to_owned()).collect(),
                        bounds: node.bounds.map(|r| (r.x, r.y, r.w, r.h)),
                        app: known.app.name.clone(),
                    }
                })
                .collect())
        });
        found.map_err(|e| engine_error(py, e))
    }

    fn wait_for_element(
        &self,
        py: Python<'_>,
        app: &str,
        selector: &str,
        timeout: f64,
        condition: &str,
        state: Option<&str>,
    ) -> PyResult<Waited> {
        let timeout = seconds(py, timeout)?;
        let condition = parse_condition(py, condition, state)?;
        let waited = py.detach(|| {
            let mut session = self.lock();
            self.rt
                .block_on(session.wait_for_element(app, selector, condition, timeout))
        });
        Waited::new(py, waited.map_err(|e| engine_error(py, e))?)
    }

    fn screenshot<'py>(
        &self,
        py: Python<'py>,
        path: Option<PathBuf>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let png = py.detach(|| {
            let session = self.lock();
            self.rt.block_on(session.backend().screenshot(None))
        });
        let png = png.map_err(|e| backend_error(py, &e))?;
        if let Some(path) = path {
            let written = py.detach(|| std::fs::write(&path, &png));
            written.map_err(|e| {
                PyOSError::new_err(format!("writing the screenshot to {}: {e}", path.display()))
            })?;
        }
        Ok(PyBytes::new(py, &png))
    }
}

/// An element that matches a selector (`Desktop.find`, `Browser.find`):
/// its `ref` (what actions take), `role`, `name`, `value` (or `None`),
/// `states` (`["enabled", "checked", ...]`), `bounds` (`(x, y, w, h)` in
/// the coordinates `click_at` takes, or `None`) and `app`, the application
/// it is in.
#[pyclass(frozen, get_all, module = "uidelta")]
#[derive(Clone)]
pub struct Found {
    /// Its ref: `e12`.
    #[pyo3(name = "ref")]
    ref_: String,
    /// Its role: `check box`.
    role: String,
    /// Its name.
    name: String,
    /// Its value, if it has one.
    value: Option<String>,
    /// Its states, by name.
    states: Vec<String>,
    /// Where it is, `(x, y, w, h)`, in the coordinates `click_at` takes
    /// (the screen's; a page's viewport), or `None` when unknown.
    bounds: Option<(i32, i32, i32, i32)>,
    /// The application it is in.
    app: String,
}

#[pymethods]
impl Found {
    fn __repr__(&self) -> String {
        let mut text = if self.name.is_empty() {
            format!("[{}] {}", self.ref_, self.role)
        } else {
            format!("[{}] {} {:?}", self.ref_, self.role, self.name)
        };
        if let Some(v) = self.value.as_deref().filter(|v| !v.is_empty()) {
            text.push_str(&format!(" = {v:?}"));
        }
        text.push_str(&format!(" in {}", self.app));
        text
    }
}

/// What `wait_for_element` found: `element` (an `Element`: ref, role,
/// name; `None` when waiting for nothing to match), `changes` (what
/// changed while waiting: `(application, Diff)` pairs) and `exited` (the
/// application ended while waiting).
#[pyclass(frozen, get_all, module = "uidelta")]
pub struct Waited {
    /// The element that met the condition.
    element: Option<Element>,
    /// What changed meanwhile, by application.
    changes: Vec<(String, Py<Diff>)>,
    /// Whether the application exited.
    exited: bool,
}

impl Waited {
    fn new(py: Python<'_>, outcome: WaitOutcome) -> PyResult<Waited> {
        let changes = outcome
            .changes
            .into_iter()
            .map(|c| Ok((c.app.name, Py::new(py, Diff { inner: c.diff })?)))
            .collect::<PyResult<_>>()?;
        Ok(Waited {
            element: outcome.found.as_ref().map(Element::from),
            changes,
            exited: outcome.exited,
        })
    }
}

#[pymethods]
impl Waited {
    fn __repr__(&self) -> String {
        match &self.element {
            Some(e) => format!("<uidelta.Waited found {}>", e.__repr__()),
            None => format!("<uidelta.Waited exited={}>", self.exited),
        }
    }
}

/// A `condition` and `state` of `wait_for_element`, as MCP's
/// `wait_for_element` takes them.
fn parse_condition(py: Python<'_>, condition: &str, state: Option<&str>) -> PyResult<Condition> {
    let bad = |message: String| with_kind(py, PyValueError::new_err(message), "bad_argument");
    let state_of = || -> PyResult<(State, bool)> {
        let name = state.map(str::trim).unwrap_or_default();
        match name.to_lowercase().as_str() {
            "" => Err(bad(
                "wait_for_element: `has_state` and `lacks_state` need `state` (`enabled`, \
                 `checked`, ...)"
                    .into(),
            )),
            "disabled" => Ok((State::Enabled, false)),
            "hidden" => Ok((State::Showing, false)),
            _ => State::from_name(name).map(|s| (s, true)).ok_or_else(|| {
                let all: Vec<&str> = State::ALL.iter().map(|s| s.as_str()).collect();
                bad(format!(
                    "wait_for_element: no state `{name}`; states: {}",
                    all.join(", ")
                ))
            }),
        }
    };
    let appears_or_goes = matches!(condition, "appears" | "disappears");
    if state.is_some() && appears_or_goes {
        return Err(bad(
            "wait_for_element: `state` goes with condition \"has_state\" or \"lacks_state\"".into(),
        ));
    }
    Ok(match condition {
        "appears" => Condition::Appears,
        "disappears" => Condition::Disappears,
        "has_state" => match state_of()? {
            (s, true) => Condition::Has(s),
            (s, false) => Condition::Lacks(s),
        },
        "lacks_state" => match state_of()? {
            (s, true) => Condition::Lacks(s),
            (s, false) => Condition::Has(s),
        },
        other => {
            return Err(bad(format!(
                "wait_for_element: condition `{other}`: give \"appears\", \"disappears\", \
                 \"has_state\" or \"lacks_state\""
            )))
        }
    })
}

/// `timeout` seconds as a duration; a negative or unending one is a
/// `ValueError`.
fn seconds(py: Python<'_>, timeout: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(timeout).map_err(|e| {
        with_kind(
            py,
            PyValueError::new_err(format!("timeout: {e}")),
            "bad_argument",
        )
    })
}

fn result(py: Python<'_>, outcome: ActionOutcome) -> PyResult<ActionResult> {
    let text = outcome.text(&uidelta_render::DiffOptions::default());
    Ok(ActionResult {
        method: outcome.done.method.clone(),
        exited: outcome.exited,
        text,
        diff: Py::new(
            py,
            Diff {
                inner: outcome.diff,
            },
        )?,
    })
}

/// An engine error as a Python exception: `LookupError` for targets that
/// match nothing, are ambiguous or gone, `TimeoutError` for timeouts,
/// `ValueError` for bad selectors and text, `RuntimeError` for the rest;
/// the message says what happened and what to do, and `kind` names it as
/// MCP's errors do (`no_match`, `timeout`, ...: [`Error::kind`]).
fn engine_error(py: Python<'_>, e: Error) -> PyErr {
    let message = e.to_string();
    let err = match &e {
        Error::Backend(b) => return backend_error(py, b),
        Error::Selector(_) | Error::TooLong(_) => PyValueError::new_err(message),
        Error::NoMatch { .. }
        | Error::Ambiguous { .. }
        | Error::Gone { .. }
        | Error::UnknownRef(_)
        | Error::NoWindow(_) => PyLookupError::new_err(message),
        Error::TimedOut(_) => PyTimeoutError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    };
    with_kind(py, err, e.kind())
}

/// A backend error as a Python exception (see [`engine_error`]).
fn backend_error(py: Python<'_>, e: &uidelta_backend::Error) -> PyErr {
    let message = e.to_string();
    let err = match e.kind {
        ErrorKind::Timeout => PyTimeoutError::new_err(message),
        ErrorKind::NotFound | ErrorKind::Gone => PyLookupError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    };
    with_kind(py, err, e.kind.name())
}

/// `err` with attribute `kind`.
fn with_kind(py: Python<'_>, err: PyErr, kind: &'static str) -> PyErr {
    // Setting an attribute on a built-in exception's instance does not fail.
    let _ = err.value(py).setattr("kind", kind);
    err
}

/// The click `button` and `double` ask for: `left` or `right`, once or
/// (left only) twice.
fn click_action(py: Python<'_>, button: &str, double: bool) -> PyResult<Action> {
    match (button, double) {
        ("left", false) => Ok(Action::Click),
        ("left", true) => Ok(Action::DoubleClick),
        ("right", false) => Ok(Action::RightClick),
        ("right", true) => Err(with_kind(
            py,
            PyValueError::new_err("click: a double click is of the left button"),
            "bad_argument",
        )),
        (other, _) => Err(with_kind(
            py,
            PyValueError::new_err(format!(
                "click: no button {other:?}; give \"left\" or \"right\""
            )),
            "bad_argument",
        )),
    }
}

/// The wheel turned `amount` clicks `direction`, or (0) the element
/// scrolled into view.
fn scroll_action(py: Python<'_>, direction: &str, amount: i64) -> PyResult<Action> {
    let bad = |message: String| with_kind(py, PyValueError::new_err(message), "bad_argument");
    if amount < 0 {
        return Err(bad(format!(
            "scroll: amount {amount} is negative; give the other `direction` instead"
        )));
    }
    if amount > 50 {
        return Err(bad(format!(
            "scroll: amount {amount} is more than 50 wheel clicks"
        )));
    }
    let n = amount as i32;
    let (dx, dy) = match direction {
        "up" => (0, -n),
        "down" => (0, n),
        "left" => (-n, 0),
        "right" => (n, 0),
        other => {
            return Err(bad(format!(
                "scroll: no direction {other:?}; give \"up\", \"down\", \"left\" or \"right\""
            )))
        }
    };
    Ok(Action::Scroll { dx, dy })
}

/// What a drag presses on: an element (a ref or selector), or a point of
/// an application's screen (a tab's viewport).
#[derive(Clone, Copy)]
enum Dragged<'a> {
    Element(&'a str),
    Point { app: &'a str, at: (i32, i32) },
}
