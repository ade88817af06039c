//! The Python package `uidelta`: `uidelta.diff` two accessibility trees
//! captured in any format uidelta reads (its interchange JSON, terminator's
//! compact YAML, OSWorld's XML, mcp-server-macos-use's traversal JSON), from
//! files, strings or dicts, and get the
//! typed changes, the diff text an agent reads, or its JSON.
//!
//! ```python
//! import uidelta
//! d = uidelta.diff("before.json", "after.json")
//! if d.has_changes:
//!     print(d.text)
//!     for m in d.modified:
//!         for c in m.changes:
//!             print(m.element.ref, c.attr, c.old, "->", c.new)
//! ```
//!
//! The reading and the diff run without the GIL. Errors are Python
//! exceptions: `OSError` for a file that cannot be read, `ValueError` for
//! input that is not a snapshot (with its line and column) and for an
//! unknown `keep` rule or format.

use std::path::PathBuf;

use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use uidelta_diff::{
    compare, Added as RsAdded, AttrChange as RsAttrChange, AttrValue, Change, Diff as RsDiff,
    Element as RsElement, Filters, Handle, Modified as RsModified, Removed as RsRemoved, Rule,
};
use uidelta_formats::{InputFormat, MAX_INPUT_MIB};

#[cfg(target_os = "linux")]
mod cli;
#[cfg(target_os = "linux")]
mod session;

/// The native module, `uidelta._uidelta` (the package `uidelta` re-exports it).
#[pymodule]
#[pyo3(name = "_uidelta")]
fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(diff, m)?)?;
    m.add_class::<Diff>()?;
    m.add_class::<Element>()?;
    m.add_class::<Added>()?;
    m.add_class::<Removed>()?;
    m.add_class::<Modified>()?;
    m.add_class::<AttrChange>()?;
    m.add_class::<FocusMove>()?;
    #[cfg(target_os = "linux")]
    {
        m.add_class::<session::Desktop>()?;
        m.add_class::<session::Browser>()?;
        m.add_class::<session::ActionResult>()?;
        m.add_class::<session::Found>()?;
        m.add_class::<session::Waited>()?;
        m.add_function(wrap_pyfunction!(cli::main, m)?)?;
    }
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// What changed from `before` to `after`.
///
/// Each of `before` and `after` is a path (`str` or `os.PathLike`), the
/// text of a capture (`str` or `bytes`: JSON starts with `{`, terminator's
/// YAML with `#` or `-`, OSWorld's XML with `<`), or a `dict` in the
/// interchange JSON. `format` is `"json"`, `"terminator"`, `"osworld"` or
/// `"macos-use"` (default: told from the text). `keep` names
/// noise rules to turn off (`"bounds"`, `"ids"`, ...: the rules of
/// `uidelta filters`).
#[pyfunction]
#[pyo3(signature = (before, after, *, format = None, keep = Vec::new()))]
fn diff(
    py: Python<'_>,
    before: &Bound<'_, PyAny>,
    after: &Bound<'_, PyAny>,
    format: Option<&str>,
    keep: Vec<String>,
) -> PyResult<Diff> {
    let format = format.map(input_format).transpose()?;
    let mut filters = Filters::all();
    for rule in &keep {
        let rule: Rule = rule
            .parse()
            .map_err(|e| PyValueError::new_err(format!("keep: {e}")))?;
        filters = filters.keep(rule);
    }
    let before = Input::from_python(py, before, "before")?;
    let after = Input::from_python(py, after, "after")?;
    let diff = py.detach(move || -> Result<RsDiff, Failure> {
        let before = before.snapshot(format)?;
        let after = after.snapshot(format)?;
        Ok(compare(&before, &after, filters).diff)
    });
    diff.map(|inner| Diff { inner }).map_err(Failure::into_py)
}

fn input_format(name: &str) -> PyResult<InputFormat> {
    match name {
        "json" => Ok(InputFormat::Json),
        "terminator" | "yaml" => Ok(InputFormat::Terminator),
        "osworld" => Ok(InputFormat::Osworld),
        "macos-use" | "macos_use" => Ok(InputFormat::MacosUse),
        other => Err(PyValueError::new_err(format!(
            "format `{other}`: give \"json\", \"terminator\", \"osworld\" or \"macos-use\" \
             (or None to tell from the text)"
        ))),
    }
}

/// One side of a diff, as the caller gave it.
enum Input {
    /// A file to read.
    Path { which: &'static str, path: PathBuf },
    /// The text of a capture.
    Text { which: &'static str, text: String },
}

/// Why a side could not be read.
enum Failure {
    Io(String),
    Parse(String),
}

impl Failure {
    fn into_py(self) -> PyErr {
        match self {
            Failure::Io(message) => PyOSError::new_err(message),
            Failure::Parse(message) => PyValueError::new_err(message),
        }
    }
}

impl Input {
    fn from_python(
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        which: &'static str,
    ) -> PyResult<Input> {
        if let Ok(bytes) = value.cast::<PyBytes>() {
            let text = String::from_utf8(bytes.as_bytes().to_vec())
                .map_err(|e| PyValueError::new_err(format!("{which}: not UTF-8 ({e})")))?;
            return Ok(Input::Text { which, text });
        }
        if let Ok(text) = value.cast::<PyString>() {
            let text = text.to_cow()?;
            return Ok(if looks_like_a_capture(&text) {
                Input::Text {
                    which,
                    text: text.into_owned(),
                }
            } else {
                Input::Path {
                    which,
                    path: PathBuf::from(text.as_ref()),
                }
            });
        }
        if value.cast::<PyDict>().is_ok() || value.cast::<PyList>().is_ok() {
            let json = py.import("json")?.call_method1("dumps", (value,))?;
            return Ok(Input::Text {
                which,
                text: json.extract()?,
            });
        }
        if let Ok(path) = value.extract::<PathBuf>() {
            return Ok(Input::Path { which, path });
        }
        Err(PyTypeError::new_err(format!(
            "{which}: give a path, the text of a capture, or a dict (got {})",
            value.get_type().name()?
        )))
    }

    fn snapshot(self, format: Option<InputFormat>) -> Result<uidelta_model::Snapshot, Failure> {
        let (which, text, place) = match self {
            Input::Text { which, text } => (which, text, String::from("its text")),
            Input::Path { which, path } => {
                let text = read(&path).map_err(Failure::Io)?;
                (which, text, path.display().to_string())
            }
        };
        uidelta_formats::parse(&text, format)
            .map_err(|e| Failure::Parse(format!("{which} ({place}): {e}")))
    }
}

/// Whether a string is the text of a capture rather than a path: JSON
/// starts with `{`, terminator's YAML with `#` or `-`, and both span lines.
fn looks_like_a_capture(text: &str) -> bool {
    let start = text.trim_start_matches('\u{feff}').trim_start();
    start.starts_with(['{', '#', '-', '<']) || text.contains('\n')
}

/// The text of `path`, at most [`MAX_INPUT_MIB`] MiB of it.
fn read(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let limit = MAX_INPUT_MIB * 1024 * 1024;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "{}: larger than {MAX_INPUT_MIB} MiB, too large for a capture",
            path.display()
        ));
    }
    String::from_utf8(bytes).map_err(|e| format!("{}: not UTF-8 ({e})", path.display()))
}

/// What changed between two trees.
#[pyclass(frozen, module = "uidelta")]
struct Diff {
    pub(crate) inner: RsDiff,
}

#[pymethods]
impl Diff {
    /// Whether anything changed.
    #[getter]
    fn has_changes(&self) -> bool {
        self.inner.has_changes()
    }

    /// The diff as an agent reads it (`+`, `-`, `~` lines; `No UI changes
    /// detected` when nothing changed).
    #[getter]
    fn text(&self) -> String {
        uidelta_render::diff_text(&self.inner, &uidelta_render::DiffOptions::default())
    }

    /// The elements added, each with the subtree that came with it.
    #[getter]
    fn added(&self) -> Vec<Added> {
        self.inner
            .changes
            .iter()
            .filter_map(|c| match c {
                Change::Added(a) => Some(Added::from(a)),
                _ => None,
            })
            .collect()
    }

    /// The elements removed.
    #[getter]
    fn removed(&self) -> Vec<Removed> {
        self.inner
            .changes
            .iter()
            .filter_map(|c| match c {
                Change::Removed(r) => Some(Removed::from(r)),
                _ => None,
            })
            .collect()
    }

    /// The elements modified, each with its changes.
    #[getter]
    fn modified(&self) -> Vec<Modified> {
        self.inner
            .changes
            .iter()
            .filter_map(|c| match c {
                Change::Modified(m) => Some(Modified::from(m)),
                _ => None,
            })
            .collect()
    }

    /// Where the keyboard focus went, when it moved; else `None`.
    #[getter]
    fn focus(&self) -> Option<FocusMove> {
        self.inner.focus.as_ref().map(|f| FocusMove {
            from_: f.from.as_ref().map(Element::from),
            to: f.to.as_ref().map(Element::from),
        })
    }

    /// The diff in uidelta's diff JSON (see `docs/diff.md`).
    fn to_json(&self) -> String {
        uidelta_render::diff_json(&self.inner)
    }

    fn __bool__(&self) -> bool {
        self.inner.has_changes()
    }

    fn __str__(&self) -> String {
        self.text()
    }

    fn __repr__(&self) -> String {
        let c = self.inner.counts();
        format!(
            "<uidelta.Diff +{} added, -{} removed, ~{} modified>",
            c.added, c.removed, c.modified
        )
    }
}

/// One element, as a diff names it: its ref (`e12`), role, name, value.
#[pyclass(frozen, get_all, module = "uidelta")]
#[derive(Clone)]
struct Element {
    /// Its ref in the diff: `e12`.
    #[pyo3(name = "ref")]
    ref_: String,
    /// Its role: `push button`.
    role: String,
    /// Its name.
    name: String,
    /// Its value, if it has one.
    value: Option<String>,
}

#[pymethods]
impl Element {
    fn __repr__(&self) -> String {
        format!("[{}] {} {:?}", self.ref_, self.role, self.name)
    }
}

impl From<&RsElement> for Element {
    fn from(e: &RsElement) -> Element {
        Element {
            ref_: e.r#ref.to_string(),
            role: e.role.as_str().to_owned(),
            name: e.name.clone(),
            value: e.value.clone(),
        }
    }
}

impl From<&Handle> for Element {
    fn from(h: &Handle) -> Element {
        Element {
            ref_: h.r#ref.to_string(),
            role: h.role.as_str().to_owned(),
            name: h.name.clone(),
            value: None,
        }
    }
}

/// An element that appeared, with everything in it.
#[pyclass(frozen, get_all, module = "uidelta")]
#[derive(Clone)]
struct Added {
    /// The element.
    element: Element,
    /// The ref of its parent.
    parent: String,
    /// The elements inside it, in document order (the element first).
    subtree: Vec<Element>,
}

impl From<&RsAdded> for Added {
    fn from(a: &RsAdded) -> Added {
        Added {
            element: Element::from(a.root()),
            parent: a.parent.to_string(),
            subtree: a
                .subtree
                .iter()
                .map(|n| Element::from(&n.element))
                .collect(),
        }
    }
}

/// An element that went, with everything in it.
#[pyclass(frozen, get_all, module = "uidelta")]
#[derive(Clone)]
struct Removed {
    /// The element.
    element: Element,
    /// The ref of its parent.
    parent: String,
}

impl From<&RsRemoved> for Removed {
    fn from(r: &RsRemoved) -> Removed {
        Removed {
            element: Element::from(r.root()),
            parent: r.parent.to_string(),
        }
    }
}

/// An element some of whose attributes changed.
#[pyclass(frozen, get_all, module = "uidelta")]
#[derive(Clone)]
struct Modified {
    /// The element, as it is now.
    element: Element,
    /// What changed: attribute, old value, new value.
    changes: Vec<AttrChange>,
}

impl From<&RsModified> for Modified {
    fn from(m: &RsModified) -> Modified {
        Modified {
            element: Element::from(&m.element),
            changes: m.changes.iter().map(AttrChange::from).collect(),
        }
    }
}

/// One attribute's change: `attr` is `name`, `value`, `description`,
/// `role`, a state (`checked`), `attr:KEY`, `bounds`, `position` or
/// `parent`; `old` and `new` are a `str`, a `bool`, an `int`, `(x, y, w,
/// h)`, an `Element` (the parent), or `None` when absent.
#[pyclass(frozen, get_all, module = "uidelta")]
#[derive(Clone)]
struct AttrChange {
    /// What changed.
    attr: String,
    /// Its value before.
    old: Value,
    /// Its value now.
    new: Value,
}

#[pymethods]
impl AttrChange {
    fn __repr__(&self) -> String {
        format!("{}: {} -> {}", self.attr, self.old.repr(), self.new.repr())
    }
}

impl From<&RsAttrChange> for AttrChange {
    fn from(c: &RsAttrChange) -> AttrChange {
        AttrChange {
            attr: c.attr.label(),
            old: Value::from(&c.old),
            new: Value::from(&c.new),
        }
    }
}

/// An attribute's value, as Python sees it.
#[derive(Clone, IntoPyObject)]
enum Value {
    Text(String),
    Bool(bool),
    Index(usize),
    Rect((i32, i32, i32, i32)),
    /// A parent (an element moved to another): the parent, as an element.
    Parent(Element),
    Absent(Option<()>),
}

impl Value {
    /// As Python would write it: `'Save'`, `True`, `3`, `(0, 0, 10, 10)`,
    /// `None`; a parent as an element's repr.
    fn repr(&self) -> String {
        match self {
            Value::Text(t) => format!("{t:?}"),
            Value::Bool(true) => "True".to_owned(),
            Value::Bool(false) => "False".to_owned(),
            Value::Index(i) => i.to_string(),
            Value::Rect((x, y, w, h)) => format!("({x}, {y}, {w}, {h})"),
            Value::Parent(e) => e.__repr__(),
            Value::Absent(_) => "None".to_owned(),
        }
    }
}

impl From<&AttrValue> for Value {
    fn from(v: &AttrValue) -> Value {
        match v {
            AttrValue::Absent => Value::Absent(None),
            AttrValue::Text(t) => Value::Text(t.clone()),
            AttrValue::Bool(b) => Value::Bool(*b),
            AttrValue::Index(i) => Value::Index(*i),
            AttrValue::Rect(r) => Value::Rect((r.x, r.y, r.w, r.h)),
            AttrValue::Place(p) => Value::Parent(Element::from(&p.parent)),
        }
    }
}

/// Where the keyboard focus went: `from_` and `to`, each an element or
/// `None`.
#[pyclass(frozen, get_all, module = "uidelta")]
#[derive(Clone)]
struct FocusMove {
    /// Focused before (`from` is a Python keyword).
    from_: Option<Element>,
    /// Focused now.
    to: Option<Element>,
}
