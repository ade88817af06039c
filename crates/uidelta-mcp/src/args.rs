//! What each tool takes. The doc comments become the JSON schemas' field
//! descriptions, which is what an agent reads before calling: they teach the
//! delta loop as much as the tool descriptions do.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::time::Duration;

use rmcp::model::JsonObject;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use uidelta_engine::{Condition, Quiet, Settle};
use uidelta_model::State;

use crate::reply::ToolError;

/// The longest any wait may be asked to last, so that no call can hold a
/// session for longer.
pub const MAX_WAIT: Duration = Duration::from_secs(300);

/// How an action targets an element.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Target {
    /// The element: a ref from a tree, diff or find_elements result (`e12`),
    /// or a selector (`role:push button && name:Save`, `name~:sav`,
    /// `role:dialog >> name:OK`). Refs are cheapest and stay valid across
    /// actions for as long as the element exists.
    pub target: String,
    /// The application (name or unique prefix, as get_applications lists
    /// it). Needed when a selector should look in an application no earlier
    /// call has read (but for the tab the server was started on with
    /// `--url`); refs do not need it.
    #[serde(default)]
    pub app: Option<String>,
}

/// Options every action tool takes.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ActOpts {
    /// Answer with `ui_diff`: what the action changed in the application's
    /// tree, with refs on every line. Default true. Turn it off only for
    /// actions whose effect does not matter.
    #[serde(default = "yes")]
    pub ui_diff_before_after: bool,
    /// Also answer with the whole tree after the action. Default false: the
    /// diff already says what changed, and the tree costs many more tokens.
    #[serde(default)]
    pub include_tree_after_action: bool,
    /// How to wait for the UI after the action before diffing: `auto`
    /// (default: until the application's change events go quiet, at most
    /// 2 s), `fixed:MS` (sleep MS milliseconds, e.g. `fixed:1500`), or `none`.
    #[serde(default)]
    pub settle: Option<String>,
}

fn yes() -> bool {
    true
}

impl ActOpts {
    /// The settle mode asked for.
    pub fn settle(&self) -> Result<Settle, ToolError> {
        parse_settle(self.settle.as_deref().unwrap_or("auto"))
    }
}

/// `auto`, `none` or `fixed:MS`.
pub fn parse_settle(s: &str) -> Result<Settle, ToolError> {
    let s = s.trim();
    match s {
        "auto" => return Ok(Settle::Auto(Quiet::default())),
        "none" => return Ok(Settle::None),
        _ => {}
    }
    s.strip_prefix("fixed:")
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .filter(|&ms| ms <= MAX_WAIT.as_millis() as u64)
        .map(|ms| Settle::Fixed(Duration::from_millis(ms)))
        .ok_or_else(|| {
            ToolError::bad_argument(format!(
                "settle `{s}`: use `auto`, `none` or `fixed:MS` with MS at most {} (fixed:1500)",
                MAX_WAIT.as_millis()
            ))
        })
}

/// `get_applications`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoArgs {}

/// `get_window_tree`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetWindowTree {
    /// The application (name or unique prefix, as get_applications lists it).
    /// Default: the obvious one, when there is one (the tab the server was
    /// started on with `--url`, else the only application read so far).
    #[serde(default)]
    pub app: Option<String>,
    /// Only this window (title, unique title prefix, or its ref). Default:
    /// all of the application's windows.
    #[serde(default)]
    pub window: Option<String>,
    /// Write the tree to this file instead of answering with it, and answer
    /// with its full path: for large trees that are searched with
    /// find_elements or read in parts. A file name only (`gedit.txt`): it is
    /// written in the server's output directory (`uidelta mcp --output-dir`),
    /// replacing a file of that name; other paths are refused.
    #[serde(default)]
    pub output_file: Option<String>,
    /// Show each element's screen bounds as `@x,y wxh`. Default false.
    #[serde(default)]
    pub bounds: bool,
}

/// `find_elements`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindElements {
    /// What to look for: `role:push button && name:Save`, `name~:sav`
    /// (substring, any case), `text~:error` (name or value), `state:checked`,
    /// `role:dialog >> role:push button` (inside), `nth:0`, `||`, `!`, and
    /// parentheses.
    pub selector: String,
    /// Search only this application, read afresh first. Default: every
    /// application read so far, each refreshed (before any, the tab the
    /// server was started on with `--url`).
    #[serde(default)]
    pub app: Option<String>,
    /// Most matches to return. Default 25.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// The mouse button of `click_element` and `click_at`.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Click {
    /// The primary click (default). Uses the element's accessible action
    /// when it has one.
    #[default]
    Left,
    /// A right click (context menus).
    Right,
    /// A double click.
    Double,
}

impl Click {
    /// The action it asks for.
    pub fn action(self) -> uidelta_backend::Action {
        match self {
            Click::Left => uidelta_backend::Action::Click,
            Click::Right => uidelta_backend::Action::RightClick,
            Click::Double => uidelta_backend::Action::DoubleClick,
        }
    }
}

/// `click_element`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ClickElement {
    /// Which element.
    #[serde(flatten)]
    pub target: Target,
    /// `left` (default), `right` or `double`.
    #[serde(default)]
    pub click: Click,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// `hover_element`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct HoverElement {
    /// The element: a ref from a tree, diff or find_elements result (`e12`),
    /// or a selector. Or give `x` and `y` instead, for what the tree does not
    /// show (a canvas).
    #[serde(default)]
    pub target: Option<String>,
    /// The application (name or unique prefix): needed with `x` and `y`
    /// unless one is the obvious one, and for a selector in an application
    /// no earlier call has read.
    #[serde(default)]
    pub app: Option<String>,
    /// A point instead of an element: horizontal position, in the
    /// coordinates of capture_screenshot's whole-screen image (a browser
    /// tab: of its viewport).
    #[serde(default)]
    pub x: Option<i32>,
    /// Vertical position, likewise.
    #[serde(default)]
    pub y: Option<i32>,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// `drag_element`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DragElement {
    /// The element to drag: a ref from a tree, diff or find_elements result
    /// (`e12`), or a selector. Or give `from_x` and `from_y` instead, to
    /// press at a point the tree does not show (a canvas).
    #[serde(default)]
    pub target: Option<String>,
    /// The application (name or unique prefix): needed with `from_x` and
    /// `from_y` unless one is the obvious one, and for a selector in an
    /// application no earlier call has read.
    #[serde(default)]
    pub app: Option<String>,
    /// A point to press at instead of an element: horizontal position, in
    /// the coordinates of capture_screenshot's whole-screen image (a
    /// browser tab: of its viewport).
    #[serde(default)]
    pub from_x: Option<i32>,
    /// Vertical position, likewise.
    #[serde(default)]
    pub from_y: Option<i32>,
    /// The element to drop it on, at its centre: a ref or selector (in the
    /// same application, unless a ref). Or give `x` and `y` instead.
    #[serde(default)]
    pub to: Option<String>,
    /// Drop at this point instead of on an element: horizontal position,
    /// in the coordinates of capture_screenshot's whole-screen image (a
    /// browser tab: of its viewport).
    #[serde(default)]
    pub x: Option<i32>,
    /// Vertical position, likewise.
    #[serde(default)]
    pub y: Option<i32>,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// `click_at`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ClickAt {
    /// The application whose diff to answer with (name or unique prefix;
    /// its bus name, `:1.42`, while it does not answer).
    /// Default: the obvious one, when there is one (the tab the server was
    /// started on with `--url`, else the only application read so far).
    #[serde(default)]
    pub app: Option<String>,
    /// Horizontal position, in the coordinates of capture_screenshot's
    /// whole-screen image (a browser tab: of its viewport).
    pub x: i32,
    /// Vertical position, likewise.
    pub y: i32,
    /// `left` (default), `right` or `double`.
    #[serde(default)]
    pub click: Click,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// `type_into_element`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TypeIntoElement {
    /// Which element.
    #[serde(flatten)]
    pub target: Target,
    /// The text to type, inserted at the caret, at most 100,000 characters.
    /// A line break is Return and a tab Tab, as on a keyboard (a new
    /// paragraph, an entry activated, a form sent). To replace an entry's
    /// whole text use set_value. Never echoed back: password fields show
    /// bullets.
    pub text: String,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// `press_key`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PressKey {
    /// A key or chord: `Return`, `Escape`, `Tab`, `ctrl+s`, `alt+F4`,
    /// `shift+ctrl+Tab` (at most 200 characters).
    pub key: String,
    /// Focus this element first (ref or selector). Default: the key goes
    /// to the focused element of `app`.
    #[serde(default)]
    pub target: Option<String>,
    /// The application whose diff to answer with (name or unique prefix).
    /// Without `target`, the key goes to its focused element. Default: the
    /// obvious one, when there is one (the tab the server was started on
    /// with `--url`, else the only application read so far).
    #[serde(default)]
    pub app: Option<String>,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// `set_value`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SetValue {
    /// Which element.
    #[serde(flatten)]
    pub target: Target,
    /// The new value: a number for sliders and spin buttons, the whole new
    /// text for entries.
    pub value: String,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// `select_option`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SelectOption {
    /// Which element.
    #[serde(flatten)]
    pub target: Target,
    /// The name of the option to select inside `target` (a combo box, list
    /// or tab list). Default: `target` is the option itself.
    #[serde(default)]
    pub option: Option<String>,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// `set_selected`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SetSelected {
    /// Which element.
    #[serde(flatten)]
    pub target: Target,
    /// Select (true, default) or deselect (false) the element in its
    /// container.
    #[serde(default = "yes")]
    pub selected: bool,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// Where `scroll_element` scrolls.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Towards the top.
    Up,
    /// Towards the bottom.
    Down,
    /// Towards the start of a line.
    Left,
    /// Towards the end of a line.
    Right,
}

/// `scroll_element`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ScrollElement {
    /// Which element.
    #[serde(flatten)]
    pub target: Target,
    /// `up`, `down` (default), `left` or `right`.
    #[serde(default)]
    pub direction: Option<Direction>,
    /// Mouse-wheel clicks, at most 50. Default 3. 0 scrolls the element
    /// into view instead.
    #[serde(default)]
    pub amount: Option<u32>,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// `invoke_element`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct InvokeElement {
    /// Which element.
    #[serde(flatten)]
    pub target: Target,
    /// The accessible action to perform, by name: `click`, `activate`,
    /// `press`, `toggle`, `expand or contract`, ... An unknown name is an
    /// error that lists the element's actions.
    pub action: String,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// `activate_element`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ActivateElement {
    /// Which element.
    #[serde(flatten)]
    pub target: Target,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// `close_window`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CloseWindow {
    /// Any element of the window to close (ref or selector), or the window
    /// itself. Default: the window named by `app` and `window`.
    #[serde(default)]
    pub target: Option<String>,
    /// The application (name or unique prefix). Needed without `target`.
    #[serde(default)]
    pub app: Option<String>,
    /// The window's title (or unique title prefix), or its ref (for
    /// windows that share a title). Default: the application's active
    /// window, or its only window.
    #[serde(default)]
    pub window: Option<String>,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// `open_application`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OpenApplication {
    /// The program to start: a name on PATH (`gedit`) or a path. It is
    /// started directly, never through a shell.
    pub program: String,
    /// Its command-line arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// How long to wait for its first window, in milliseconds. Default
    /// 20000.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// `wait_for_change`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WaitForChange {
    /// The application to watch (name or unique prefix).
    /// Default: the obvious one, when there is one (the tab the server was
    /// started on with `--url`, else the only application read so far).
    #[serde(default)]
    pub app: Option<String>,
    /// Give up after this many milliseconds; the answer then says
    /// `has_ui_changes: false`. Default 10000, at most 300000.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Also answer with the whole tree after the change. Default false.
    #[serde(default)]
    pub include_tree_after_action: bool,
}

/// Where `navigate_browser` goes besides a URL.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum History {
    /// The previous page of the tab's history.
    Back,
    /// The next page of the tab's history.
    Forward,
    /// Load the current page again.
    Reload,
}

/// `navigate_browser`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NavigateBrowser {
    /// The browser tab (its title or a unique prefix, or its id from
    /// get_applications).
    /// Default: the obvious one, when there is one (the tab the server was
    /// started on with `--url`, else the only application read so far).
    #[serde(default)]
    pub app: Option<String>,
    /// Load this URL (`https://...`, `chrome://settings`). Give either `url`
    /// or `go`.
    #[serde(default)]
    pub url: Option<String>,
    /// Or move in the tab's history: `back`, `forward`, `reload`.
    #[serde(default)]
    pub go: Option<History>,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// `execute_browser_script`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExecuteBrowserScript {
    /// The browser tab (its title or a unique prefix, or its id).
    /// Default: the obvious one, when there is one (the tab the server was
    /// started on with `--url`, else the only application read so far).
    #[serde(default)]
    pub app: Option<String>,
    /// JavaScript to evaluate in the page; a promise is awaited. Its value
    /// comes back as JSON; a thrown error is an error.
    pub script: String,
    /// Diff, tree and settle options.
    #[serde(flatten)]
    pub opts: ActOpts,
}

/// What `wait_for_element` waits for.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Until {
    /// Until something matches (default).
    #[default]
    Appears,
    /// Until nothing matches.
    Disappears,
    /// Until a match has `state`.
    HasState,
    /// Until a match lacks `state`.
    LacksState,
}

impl Until {
    /// The engine's condition for this and `state` (`disabled` and
    /// `hidden` read as the lack of `enabled` and `showing`).
    pub fn condition(self, state: Option<&str>) -> Result<Condition, ToolError> {
        let state_of = || -> Result<(State, bool), ToolError> {
            let name = state.map(str::trim).unwrap_or_default();
            match name.to_lowercase().as_str() {
                "" => Err(ToolError::bad_argument(
                    "wait_for_element: `has_state` and `lacks_state` need `state` (`enabled`, \
                     `checked`, ...)",
                )),
                "disabled" => Ok((State::Enabled, false)),
                "hidden" => Ok((State::Showing, false)),
                _ => State::from_name(name).map(|s| (s, true)).ok_or_else(|| {
                    let all: Vec<&str> = State::ALL.iter().map(|s| s.as_str()).collect();
                    ToolError::bad_argument(format!(
                        "wait_for_element: no state `{}`; states: {}",
                        uidelta_backend::echo(name),
                        all.join(", ")
                    ))
                }),
            }
        };
        if state.is_some() && matches!(self, Until::Appears | Until::Disappears) {
            return Err(ToolError::bad_argument(
                "wait_for_element: `state` goes with condition `has_state` or `lacks_state`",
            ));
        }
        Ok(match self {
            Until::Appears => Condition::Appears,
            Until::Disappears => Condition::Disappears,
            Until::HasState => match state_of()? {
                (s, true) => Condition::Has(s),
                (s, false) => Condition::Lacks(s),
            },
            Until::LacksState => match state_of()? {
                (s, true) => Condition::Lacks(s),
                (s, false) => Condition::Has(s),
            },
        })
    }
}

/// `wait_for_element`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WaitForElement {
    /// The application to watch (name or unique prefix).
    /// Default: the obvious one, when there is one (the tab the server was
    /// started on with `--url`, else the only application read so far).
    #[serde(default)]
    pub app: Option<String>,
    /// What to wait for, as in find_elements: `role:dialog && name:Save As`.
    pub selector: String,
    /// `appears` (default), `disappears`, `has_state` or `lacks_state`.
    #[serde(default)]
    pub condition: Until,
    /// With `has_state` / `lacks_state`: `enabled`, `checked`, `focused`,
    /// `selected`, `expanded`, `showing`, ...
    #[serde(default)]
    pub state: Option<String>,
    /// Give up after this many milliseconds (an error). Default 10000, at
    /// most 300000.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// `capture_screenshot`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CaptureScreenshot {
    /// Only this application's window (name or unique prefix). Default: the
    /// whole screen.
    #[serde(default)]
    pub app: Option<String>,
    /// With `app`: the window with this title (or unique title prefix).
    /// Default: its active window, or its first one shown.
    #[serde(default)]
    pub window: Option<String>,
}

/// A wait's timeout: `ms` or `default`, capped at [`MAX_WAIT`].
pub fn timeout(ms: Option<u64>, default: Duration) -> Result<Duration, ToolError> {
    match ms {
        None => Ok(default),
        Some(ms) if Duration::from_millis(ms) <= MAX_WAIT => Ok(Duration::from_millis(ms)),
        Some(ms) => Err(ToolError::bad_argument(format!(
            "timeout_ms {ms} is more than the {} ms any wait may take",
            MAX_WAIT.as_millis()
        ))),
    }
}

/// The names of `T`'s arguments, as its schema lists them.
pub fn argument_names<T: JsonSchema + 'static>() -> Vec<String> {
    let schema = rmcp::handler::server::common::schema_for_type::<T>();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// Reads `tool`'s arguments. Unknown names are refused (a misspelt option
/// would otherwise be ignored without a word), and the message never
/// repeats a string value: it may be a password.
pub fn parse<T: DeserializeOwned + JsonSchema + 'static>(
    tool: &str,
    args: JsonObject,
) -> Result<T, ToolError> {
    let known = argument_names::<T>();
    if let Some(unknown) = args.keys().find(|k| !known.contains(k)) {
        let takes = if known.is_empty() {
            "it takes no arguments".to_owned()
        } else {
            format!("it takes: {}", known.join(", "))
        };
        return Err(ToolError::bad_argument(format!(
            "{tool}: unknown argument `{}`; {takes}",
            uidelta_backend::echo(unknown)
        )));
    }
    serde_json::from_value(Value::Object(args)).map_err(|e| {
        ToolError::bad_argument(format!(
            "{tool}: bad arguments: {}",
            without_strings(&e.to_string())
        ))
    })
}

/// A tool's arguments as the client sent them, to be read as a `T` by
/// [`Raw::read`] with the server's rules: unknown names refused, no string
/// value repeated in a message, every problem a tool error. Its schema is
/// `T`'s, so that a tool taking `Parameters<Raw<T>>` is listed with `T`'s.
#[derive(Debug)]
pub struct Raw<T> {
    args: JsonObject,
    read_as: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned + JsonSchema + 'static> Raw<T> {
    /// The arguments `args`, unread.
    pub fn new(args: JsonObject) -> Raw<T> {
        Raw {
            args,
            read_as: PhantomData,
        }
    }

    /// The arguments of a call of `tool`, read (see [`parse`]).
    pub fn read(self, tool: &str) -> Result<T, ToolError> {
        parse(tool, self.args)
    }
}

impl<'de, T> Deserialize<'de> for Raw<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Raw<T>, D::Error> {
        Ok(Raw {
            args: JsonObject::deserialize(d)?,
            read_as: PhantomData,
        })
    }
}

impl<T: JsonSchema> JsonSchema for Raw<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

/// `invalid type: string "hunter2", expected u32` without the string.
fn without_strings(message: &str) -> String {
    const MARK: &str = "string \"";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        out.push_str("a string");
        let quoted = &rest[at + MARK.len()..];
        let mut escaped = false;
        let mut end = quoted.len();
        for (i, c) in quoted.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &quoted[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(v: Value) -> JsonObject {
        match v {
            Value::Object(o) => o,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn flattened_arguments_are_all_known() {
        let names = argument_names::<ClickElement>();
        for wanted in [
            "target",
            "app",
            "click",
            "ui_diff_before_after",
            "include_tree_after_action",
            "settle",
        ] {
            assert!(names.iter().any(|n| n == wanted), "{wanted} in {names:?}");
        }
    }

    #[test]
    fn defaults_and_unknown_names() {
        let c: ClickElement =
            parse("click_element", object(serde_json::json!({"target": "e3"}))).expect("parses");
        assert!(c.opts.ui_diff_before_after);
        assert!(!c.opts.include_tree_after_action);
        assert_eq!(
            c.opts.settle().expect("auto"),
            Settle::Auto(Quiet::default())
        );
        let e = parse::<ClickElement>(
            "click_element",
            object(serde_json::json!({"target": "e3", "selector": "x"})),
        )
        .expect_err("unknown");
        assert!(
            e.message.contains("unknown argument `selector`"),
            "{}",
            e.message
        );
        let e = parse::<NoArgs>("get_applications", object(serde_json::json!({"x": 1})))
            .expect_err("unknown");
        assert!(e.message.contains("takes no arguments"), "{}", e.message);
    }

    #[test]
    fn string_values_never_appear_in_messages() {
        let e = parse::<ScrollElement>(
            "scroll_element",
            object(serde_json::json!({"target": "e3", "amount": "hunter2 \"x\" y"})),
        )
        .expect_err("bad amount");
        assert!(!e.message.contains("hunter2"), "{}", e.message);
        assert!(e.message.contains("a string"), "{}", e.message);
        assert_eq!(
            without_strings(r#"a string "one", then string "t\"wo" end"#),
            "a a string, then a string end"
        );
    }

    #[test]
    fn settle_modes() {
        assert_eq!(parse_settle("none").expect("none"), Settle::None);
        assert_eq!(
            parse_settle("fixed:1500").expect("fixed"),
            Settle::Fixed(Duration::from_millis(1500))
        );
        for bad in ["", "fixed:", "fixed:-1", "sometimes", "fixed:99999999"] {
            assert!(parse_settle(bad).is_err(), "{bad}");
        }
    }
}
