//! `uidelta.Desktop` and `uidelta.Browser`: the delta loop on the live
//! Linux desktop and in Chromium, from Python. Every action settles and
//! answers with what it changed.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use pyo3::exceptions::{PyLookupError, PyRuntimeError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;

use uidelta_backend::{Action, Backend, ErrorKind, Navigate};
use uidelta_cdp::{Cdp, LaunchOptions};
use uidelta_engine::{ActOptions, ActionOutcome, Error, Session};
use uidelta_linux::Linux;
use uidelta_render::TreeOptions;

use crate::Diff;

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
/// it was done: `Action.Click`, `XTest click at 640,287`), `exited` (the
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
            .map_err(|e| PyRuntimeError::new_err(format!("connecting to the desktop: {e}")))?;
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
    /// `role:push button && name:OK`).
    fn click(&self, py: Python<'_>, target: &str) -> PyResult<ActionResult> {
        self.driver.act(py, target, Action::Click)
    }

    /// Types `text` into `target`.
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
        let (browser, tab) = py.detach(|| {
            rt.block_on(async {
                let browser = match cdp {
                    Some(address) => Cdp::attach(address).await,
                    None => Cdp::launch(LaunchOptions::default()).await,
                }
                .map_err(|e| PyRuntimeError::new_err(format!("starting the browser: {e}")))?;
                let tab = browser
                    .open(url, &[], OPEN_TIMEOUT)
                    .await
                    .map_err(|e| PyRuntimeError::new_err(format!("opening {url}: {e}")))?;
                Ok::<_, PyErr>((browser, tab.id))
            })
        })?;
        Ok(Browser {
            driver: Driver::new(rt, browser),
            tab,
        })
    }

    /// The page's tree as an agent reads it, with the refs the actions take.
    fn tree(&self, py: Python<'_>) -> PyResult<String> {
        self.driver.tree(py, &self.tab)
    }

    /// Clicks `target` (a ref such as `e12`, or a selector).
    fn click(&self, py: Python<'_>, target: &str) -> PyResult<ActionResult> {
        self.driver.act(py, target, Action::Click)
    }

    /// Types `text` into `target`.
    #[pyo3(name = "type")]
    fn type_text(&self, py: Python<'_>, target: &str, text: &str) -> PyResult<ActionResult> {
        self.driver.act(py, target, Action::Type(text.to_owned()))
    }

    /// Sets the value of `target` (a field's text, a `<select>`'s option).
    fn set_value(&self, py: Python<'_>, target: &str, value: &str) -> PyResult<ActionResult> {
        self.driver
            .act(py, target, Action::SetValue(value.to_owned()))
    }

    /// Selects (or, with `selected=False`, deselects) `target`.
    #[pyo3(signature = (target, selected = true))]
    fn select(&self, py: Python<'_>, target: &str, selected: bool) -> PyResult<ActionResult> {
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
        result(py, outcome.map_err(engine_error)?)
    }

    /// Waits up to `timeout` seconds for the page to change by itself.
    #[pyo3(signature = (timeout = 10.0))]
    fn wait_for_change(&self, py: Python<'_>, timeout: f64) -> PyResult<ActionResult> {
        self.driver.wait_for_change(py, &self.tab, timeout)
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
        let apps = apps.map_err(|e| backend_error(&e))?;
        Ok(apps.into_iter().map(|a| (a.name, a.pid)).collect())
    }

    fn tree(&self, py: Python<'_>, app: &str) -> PyResult<String> {
        py.detach(|| {
            let mut session = self.lock();
            let (id, _) = self
                .rt
                .block_on(session.observe(app))
                .map_err(engine_error)?;
            let known = &session.known_apps()[id];
            Ok(uidelta_render::tree_text(
                &known.view,
                &known.refs,
                &TreeOptions::default(),
            ))
        })
    }

    fn act(&self, py: Python<'_>, target: &str, action: Action) -> PyResult<ActionResult> {
        let outcome = py.detach(|| {
            let mut session = self.lock();
            self.rt
                .block_on(session.act(target, &action, &ActOptions::default()))
        });
        result(py, outcome.map_err(engine_error)?)
    }

    fn key(&self, py: Python<'_>, app: &str, chord: &str) -> PyResult<ActionResult> {
        let outcome = py.detach(|| {
            let mut session = self.lock();
            self.rt
                .block_on(session.key(app, chord, &ActOptions::default()))
        });
        result(py, outcome.map_err(engine_error)?)
    }

    fn wait_for_change(&self, py: Python<'_>, app: &str, timeout: f64) -> PyResult<ActionResult> {
        let timeout = Duration::try_from_secs_f64(timeout)
            .map_err(|e| PyValueError::new_err(format!("timeout: {e}")))?;
        let outcome = py.detach(|| {
            let mut session = self.lock();
            self.rt.block_on(session.wait_for_change(app, timeout))
        });
        result(py, outcome.map_err(engine_error)?)
    }
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
/// the message says what happened and what to do.
fn engine_error(e: Error) -> PyErr {
    let message = e.to_string();
    match &e {
        Error::Backend(b) => backend_error(b),
        Error::Selector(_) | Error::TooLong(_) => PyValueError::new_err(message),
        Error::NoMatch { .. }
        | Error::Ambiguous { .. }
        | Error::Gone { .. }
        | Error::UnknownRef(_) => PyLookupError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

fn backend_error(e: &uidelta_backend::Error) -> PyErr {
    let message = e.to_string();
    match e.kind {
        ErrorKind::Timeout => PyTimeoutError::new_err(message),
        ErrorKind::NotFound | ErrorKind::Gone => PyLookupError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}
