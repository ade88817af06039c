//! The `uidelta` command line, as a library: [`run`] takes the arguments
//! and answers with the exit status, so that the `uidelta` binary and the
//! Python package (`python -m uidelta`) are the same command.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use uidelta_diff::{compare, Filters, RefTable, Refs, Rule, View};
use uidelta_formats::InputFormat;
use uidelta_model::{NodeId, Snapshot, State};
use uidelta_render as render;

mod act;
mod backend;
mod carry;
mod live;
mod place;
mod state;

use uidelta_backend::Action;
use uidelta_engine::{DragEnd, WindowAction};

/// What did my last action change? Structural diffs of accessibility trees.
#[derive(Parser, Debug)]
#[command(name = "uidelta", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Render a snapshot: a file (interchange JSON, terminator compact YAML,
    /// OSWorld XML or macos-use traversal JSON), or a live application with `--app`.
    Tree(TreeArgs),
    /// List the applications on the accessibility bus, with their windows (the tabs,
    /// with --browser or --cdp).
    Apps {
        #[command(flatten)]
        place: place::Place,
    },
    /// Save a PNG of the screen, or of an application's window.
    Screenshot(ScreenshotArgs),
    /// Click an element (a ref from `uidelta tree --app`, or a selector), or a
    /// point (`--at X,Y`), and print the diff.
    Click {
        /// Ref (`e12`) or selector (`role:push button && name:Save`).
        #[arg(required_unless_present = "at", conflicts_with = "at")]
        target: Option<String>,
        /// Click at this point of the screen instead (`640,512`, screenshot
        /// coordinates; in a browser, of the tab's viewport), whatever is there.
        /// Needs --app, the application whose diff to print: it also works when
        /// that application does not answer (a modal dialog run inside an
        /// accessible action), and is how such a dialog gets answered.
        #[arg(long, value_name = "X,Y", value_parser = parse_point)]
        at: Option<(i32, i32)>,
        /// Right click.
        #[arg(long, conflicts_with = "double")]
        right: bool,
        /// Double click.
        #[arg(long)]
        double: bool,
        #[command(flatten)]
        common: act::Common,
    },
    /// Move the pointer over an element and leave it there, and print the
    /// diff: what shows while the pointer is over it (a page's menu that opens
    /// on hover, a menu bar's next menu while one is open).
    Hover {
        /// Ref or selector.
        #[arg(required_unless_present = "at", conflicts_with = "at")]
        target: Option<String>,
        /// Move the pointer to this point of the screen instead (`640,512`,
        /// screenshot coordinates; in a browser, of the tab's viewport), for
        /// what the tree does not show (a canvas). Needs --app, the
        /// application whose diff to print.
        #[arg(long, value_name = "X,Y", value_parser = parse_point)]
        at: Option<(i32, i32)>,
        #[command(flatten)]
        common: act::Common,
    },
    /// Drag an element with the primary button onto another (its centre)
    /// or to a point, and print the diff: a card onto another list, a
    /// slider's knob, a file onto a folder. The button is pressed at the
    /// element's centre, the pointer moved there in steps, and released.
    /// With --from-point, pressed at a point instead (a canvas: a
    /// selection drawn, a shape moved), and the diff is --app's.
    Drag {
        /// Ref or selector of the element to drag; with --from-point, of
        /// the element to drop on.
        #[arg(required_unless_present = "from_point")]
        source: Option<String>,
        /// Ref or selector of the element to drop it on (at its centre, as
        /// last read).
        #[arg(
            required_unless_present_any = ["to_point", "from_point"],
            conflicts_with = "to_point"
        )]
        to: Option<String>,
        /// Drop at this point instead (`640,512`, screenshot coordinates;
        /// in a browser, of the tab's viewport).
        #[arg(long, value_name = "X,Y", value_parser = parse_point)]
        to_point: Option<(i32, i32)>,
        /// Press at this point instead of at an element, in the same
        /// coordinates; name the application whose diff to print with
        /// --app.
        #[arg(long, value_name = "X,Y", value_parser = parse_point)]
        from_point: Option<(i32, i32)>,
        #[command(flatten)]
        common: act::Common,
    },
    /// Scroll with the mouse wheel over an element (or, with `--amount 0`,
    /// scroll it into view) and print the diff: what scrolled into or out
    /// of the tree.
    Scroll {
        /// Ref or selector.
        target: String,
        /// Which way.
        #[arg(long, value_enum, default_value_t = ScrollWay::Down)]
        direction: ScrollWay,
        /// Wheel clicks, at most 50; 0 scrolls the element into view
        /// instead.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=50))]
        amount: u32,
        #[command(flatten)]
        common: act::Common,
    },
    /// Type text into an element and print the diff.
    Type {
        /// Ref or selector.
        target: String,
        /// The text. A line break is Return and a tab Tab, as on a
        /// keyboard (a new paragraph, an entry activated, a form sent).
        text: String,
        #[command(flatten)]
        common: act::Common,
    },
    /// Press a key or chord (`ctrl+s`, `Return`, `alt+F4`) and print the diff.
    Key {
        /// The chord.
        chord: String,
        /// Focus this element first (ref or selector); else keys go to the focused element of
        /// the application (--app), whose window gets the keyboard if another has it.
        #[arg(long)]
        target: Option<String>,
        #[command(flatten)]
        common: act::Common,
    },
    /// Set a value (a number, an entry's whole text, or a combo box's option by name) and
    /// print the diff.
    SetValue {
        /// Ref or selector.
        target: String,
        /// The value.
        value: String,
        #[command(flatten)]
        common: act::Common,
    },
    /// Select an option, tab or list item (or deselect it) and print the diff.
    Select {
        /// Ref or selector.
        target: String,
        /// Deselect instead.
        #[arg(long)]
        deselect: bool,
        #[command(flatten)]
        common: act::Common,
    },
    /// Perform one of an element's named actions (`expand or contract`, `activate`) and print
    /// the diff. A click that changes nothing names the element's other actions.
    Invoke {
        /// Ref or selector.
        target: String,
        /// The action's name, as the application gives it (case does not matter).
        action: String,
        #[command(flatten)]
        common: act::Common,
    },
    /// Close a window, as its title bar's close button does, and print the diff (or that the
    /// application exited): the window of TARGET, or --app's window --window (by default the
    /// one that has the keyboard: a modal dialog that shows, else the active window, else the
    /// first shown).
    CloseWindow(WindowArgs),
    /// Raise a window and give it the keyboard, and print the diff: the window of TARGET, or
    /// --app's window --window (by default the one that has the keyboard: a modal dialog that
    /// shows, else the active window, else the first shown).
    ActivateWindow(WindowArgs),
    /// Load a URL in a browser tab (or `back`, `forward`, `reload`) and print the diff:
    /// a new document is one entry, not thousands of changes.
    Navigate {
        /// The URL, or back, forward, reload.
        to: String,
        #[command(flatten)]
        common: act::Common,
    },
    /// Run JavaScript in a browser tab; print its JSON result and the diff.
    Script {
        /// The script; a promise is awaited.
        script: String,
        #[command(flatten)]
        common: act::Common,
    },
    /// Wait until an application changes, then print the diff.
    WaitChange {
        /// The application (in a browser: by default the tab opened with --url, or the
        /// active one).
        #[arg(long)]
        app: Option<String>,
        #[command(flatten)]
        place: place::Place,
        /// Give up after this many milliseconds.
        #[arg(long, default_value_t = 30_000)]
        timeout: u64,
        /// Output format.
        #[arg(long, value_enum, default_value_t = act::Output::Text)]
        format: act::Output,
    },
    /// Print each change of an application as it happens, until interrupted.
    Watch {
        /// The application (in a browser: by default the tab opened with --url, or the
        /// active one).
        #[arg(long)]
        app: Option<String>,
        #[command(flatten)]
        place: place::Place,
    },
    /// Compare two snapshot files. Exit code 0: no changes, 1: changes, 2: trouble.
    Diff(DiffArgs),
    /// List the noise filter rules (all on by default; `--keep RULE` turns one off).
    Filters,
    /// Run the MCP server: on stdio (default), or on streamable HTTP with `--http`.
    Mcp(McpArgs),
    /// Makes one accessible action for another uidelta command and stays
    /// until its handler has returned (internal).
    #[command(name = "__keep-action", hide = true)]
    KeepAction {
        /// The application's unique bus name.
        dest: String,
        /// The element's object path.
        path: String,
        /// The action's index.
        index: i32,
    },
}

/// The bearer token of `uidelta mcp --http`, when not given with --token.
const TOKEN_VAR: &str = "UIDELTA_MCP_TOKEN";

/// Longest a `__keep-action` helper stays for one action's handler.
const KEEP_ACTION_LIMIT: std::time::Duration = std::time::Duration::from_secs(3600);

#[derive(Args, Debug)]
struct McpArgs {
    /// Serve streamable HTTP on this address (`127.0.0.1:8931`) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
    /// With --http: require `Authorization: Bearer TOKEN` on every request
    /// (default: $UIDELTA_MCP_TOKEN, which keeps it out of `ps`).
    #[arg(long, requires = "http")]
    token: Option<String>,
    /// With --http: allow a non-loopback address; a token is then required.
    #[arg(long, requires = "http")]
    allow_remote: bool,
    /// With --http: a host name (or address, or NAME:PORT) clients reach the server by,
    /// accepted in the Host header besides localhost and the address listened on
    /// (repeatable; needed with 0.0.0.0). Pages at http://NAME:PORT may send requests.
    #[arg(long = "allow-host", value_name = "NAME", requires = "http")]
    allow_hosts: Vec<String>,
    /// With --http: a browser origin (`https://app.example`) whose pages may send requests
    /// (repeatable). Requests from other pages are refused (403); clients that are not
    /// browsers send no Origin and are not concerned.
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    allow_origins: Vec<String>,
    /// With --http: the most MCP sessions at once; a new one closes the one idle longest.
    #[arg(long, value_name = "N", default_value_t = uidelta_mcp::MAX_SESSIONS, requires = "http")]
    max_sessions: usize,
    /// With --http: close a session unused for this many seconds (its client starts anew,
    /// with new refs).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = uidelta_mcp::SESSION_IDLE.as_secs(),
        requires = "http"
    )]
    session_idle: u64,
    /// Log every action tool call into DIR (created private to the user if missing; one
    /// that others may use is refused): `NNNN-TOOL.txt`, the diff it answered with, and
    /// `NNNN-TOOL.png`, a screenshot with added elements boxed green, modified yellow and
    /// removed red.
    #[arg(long, value_name = "DIR")]
    log_dir: Option<std::path::PathBuf>,
    /// Where get_window_tree writes an `output_file` (a file name in DIR, nothing else);
    /// created private to the user if missing [default: `output` in the state directory,
    /// $XDG_RUNTIME_DIR/uidelta/output]
    #[arg(long, value_name = "DIR")]
    output_dir: Option<std::path::PathBuf>,
    /// Serve a browser instead of the desktop: --browser starts a headless Chromium,
    /// --cdp URL attaches to a running one; every tab is an application.
    #[command(flatten)]
    place: place::Place,
}

#[derive(Args, Debug)]
struct Input {
    /// Input format; by default OSWorld XML when the file starts with `<`, JSON when it
    /// starts with `{` (macos-use's when its first key is `elements` or `traversal`),
    /// else terminator YAML.
    #[arg(long, value_enum)]
    input: Option<InputKind>,
    /// Turn a noise rule off, so what it hides is shown (repeatable; see `uidelta filters`).
    #[arg(long = "keep", value_name = "RULE")]
    keep: Vec<Rule>,
    /// Largest input read, in MiB (a larger file, or endless standard input, is an error).
    #[arg(long, value_name = "MIB", default_value_t = uidelta_formats::MAX_INPUT_MIB)]
    max_input_mib: u64,
}

#[derive(Args, Debug)]
struct TreeArgs {
    /// Snapshot file, or `-` for standard input.
    #[arg(
        required_unless_present_any = ["app", "browser", "cdp"],
        conflicts_with_all = ["app", "browser", "cdp"]
    )]
    file: Option<PathBuf>,
    /// Capture this application from the live desktop instead (name, or a unique prefix;
    /// with --browser or --cdp, a tab).
    #[arg(long)]
    app: Option<String>,
    #[command(flatten)]
    place: place::Place,
    /// With --app: only the window with this title (or a unique prefix of it),
    /// or this ref (`e184`, for windows that share a title).
    #[arg(long, requires = "app", conflicts_with_all = ["browser", "cdp"])]
    window: Option<String>,
    /// With --app: only the active window.
    #[arg(long, requires = "app", conflicts_with_all = ["window", "browser", "cdp"])]
    focused: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Show bounds (`@x,y wxh`) in text output.
    #[arg(long)]
    bounds: bool,
    #[command(flatten)]
    input: Input,
}

#[derive(Args, Debug)]
struct ScreenshotArgs {
    /// Where to write the PNG.
    #[arg(long, short, default_value = "screenshot.png")]
    out: PathBuf,
    /// Only this application's window (its active or first showing one).
    #[arg(long)]
    app: Option<String>,
    /// With --browser or --cdp: the page of the active tab (or of --url).
    #[command(flatten)]
    place: place::Place,
    /// With --app: the window with this title.
    #[arg(long, requires = "app")]
    window: Option<String>,
}

#[derive(Args, Debug)]
struct DiffArgs {
    /// The snapshot before the action (`-` for standard input).
    before: PathBuf,
    /// The snapshot after the action.
    after: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Most lines shown for added subtrees before `... N more nodes under [eN]`.
    #[arg(long, default_value_t = 60)]
    budget: usize,
    /// Leave out the `in [e3] dialog "..."` context on each line.
    #[arg(long)]
    no_context: bool,
    /// Print sizes (bytes and tokens) of the diff and of the full after tree on stderr.
    #[arg(long)]
    stats: bool,
    #[command(flatten)]
    input: Input,
}

/// Which way `scroll` turns the wheel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ScrollWay {
    /// Towards the top.
    Up,
    /// Towards the bottom.
    Down,
    /// Towards the left.
    Left,
    /// Towards the right.
    Right,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Compact text for agents.
    Text,
    /// JSON (schema in docs/formats.md).
    Json,
    /// terminator's compact YAML (and its line-diff style).
    Terminator,
    /// mcp-server-macos-use's flat lines.
    Flat,
    /// OSWorld's accessibility-tree XML (trees only).
    Osworld,
    /// The table OSWorld's agents are prompted with (trees only).
    OsworldTable,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum InputKind {
    Json,
    Terminator,
    Osworld,
    MacosUse,
}

impl From<InputKind> for InputFormat {
    fn from(k: InputKind) -> InputFormat {
        match k {
            InputKind::Json => InputFormat::Json,
            InputKind::Terminator => InputFormat::Terminator,
            InputKind::Osworld => InputFormat::Osworld,
            InputKind::MacosUse => InputFormat::MacosUse,
        }
    }
}

impl Input {
    fn filters(&self) -> Filters {
        self.keep.iter().fold(Filters::all(), |f, r| f.keep(*r))
    }

    fn load(&self, path: &Path) -> Result<Snapshot> {
        let text = read(path, self.max_input_mib)?;
        uidelta_formats::parse(&text, self.input.map(Into::into))
            .with_context(|| format!("reading a snapshot from {}", path.display()))
    }
}

/// The text of `path` (`-`: standard input), at most `max_mib` MiB of it:
/// more is an error before more is read, so that `/dev/zero` or a runaway
/// pipe cannot take all of memory.
fn read(path: &Path, max_mib: u64) -> Result<String> {
    let limit = max_mib.saturating_mul(1024 * 1024);
    let what = if path == Path::new("-") {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    };
    let too_large = || {
        anyhow::anyhow!(
            "reading {what}: it is larger than {max_mib} MiB, the most read of an input; raise \
             the limit with --max-input-mib"
        )
    };
    let bytes = if path == Path::new("-") {
        read_at_most(io::stdin().lock(), limit)
            .context("reading standard input")?
            .ok_or_else(too_large)?
    } else {
        let file =
            std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
        // A regular file says its size; devices and pipes do not.
        if file
            .metadata()
            .is_ok_and(|m| m.is_file() && m.len() > limit)
        {
            return Err(too_large());
        }
        read_at_most(file, limit)
            .with_context(|| format!("reading {}", path.display()))?
            .ok_or_else(too_large)?
    };
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "reading {}: not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

/// All of `source` when it holds at most `limit` bytes, `None` when it
/// holds more.
fn read_at_most(mut source: impl Read, limit: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    (&mut source).take(limit).read_to_end(&mut bytes)?;
    if (bytes.len() as u64) < limit {
        return Ok(Some(bytes));
    }
    // Exactly `limit` so far: one byte more says whether there is more,
    // without growing the buffer for it.
    let mut more = [0u8; 1];
    loop {
        match source.read(&mut more) {
            Ok(0) => return Ok(Some(bytes)),
            Ok(_) => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Which window `close-window` and `activate-window` act on.
#[derive(Args, Debug)]
struct WindowArgs {
    /// Ref or selector of the window or of any element of it.
    target: Option<String>,
    /// With --app and no TARGET: the window's title (or a unique prefix), or its ref.
    #[arg(long, conflicts_with = "target")]
    window: Option<String>,
    #[command(flatten)]
    common: act::Common,
}

impl WindowArgs {
    fn run(&self, what: WindowAction) -> anyhow::Result<Status> {
        act::window(
            &self.common,
            self.target.as_deref(),
            self.window.as_deref(),
            what,
        )
    }
}

/// How a command ended: its exit status. 0 done, 1 `diff` found changes,
/// 2 trouble (the message is on standard error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status(pub u8);

impl Status {
    /// Done.
    pub const SUCCESS: Status = Status(0);
}

impl From<Status> for std::process::ExitCode {
    fn from(status: Status) -> std::process::ExitCode {
        std::process::ExitCode::from(status.0)
    }
}

/// Runs the command line `args` (the program's name first, as
/// `std::env::args_os` gives them) and answers with its exit status. Help,
/// usage errors and failures are printed as the binary prints them; the
/// process is never ended from here, and standard output is flushed
/// before the answer. Accessible actions are made through this
/// executable's `__keep-action` (see [`run_with_helper`]).
pub fn run<I, T>(args: I) -> Status
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_with_helper(args, std::env::current_exe().ok())
}

/// [`run`], with the program that makes accessible actions for a command
/// on the desktop: `helper __keep-action DEST PATH INDEX` must run this
/// command line's `__keep-action` (the `uidelta` binary, or the Python
/// package's `uidelta` script). The helper stays until the action's
/// handler has returned, after the command has ended (see
/// `uidelta_atspi::Bus::keep_actions_with`). With `None`, actions are made
/// by the command itself.
pub fn run_with_helper<I, T>(args: I, helper: Option<PathBuf>) -> Status
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    *ACTION_HELPER.lock().unwrap_or_else(|e| e.into_inner()) = helper;
    let status = match Cli::try_parse_from(args) {
        Ok(cli) => {
            log_to_stderr();
            match run_command(cli) {
                Ok(status) => status,
                Err(e) => {
                    eprintln!("uidelta: {e:#}");
                    Status(2)
                }
            }
        }
        // `--help` and `--version` too: printed, with their status (0).
        Err(e) => {
            // Nothing better to do when standard output is gone.
            let _ = e.print();
            Status(u8::try_from(e.exit_code()).unwrap_or(2))
        }
    };
    // Not flushed at exit when the caller is not a Rust program.
    let _ = io::stdout().lock().flush();
    status
}

/// The program given to [`run_with_helper`].
static ACTION_HELPER: Mutex<Option<PathBuf>> = Mutex::new(None);

/// The program that makes accessible actions for this command, if any
/// (see [`run_with_helper`]).
pub(crate) fn action_helper() -> Option<PathBuf> {
    ACTION_HELPER
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
}

/// What uidelta's own crates warn of goes to standard error (standard
/// output is the result, or the MCP protocol). `UIDELTA_LOG` takes a filter
/// instead: `debug`, `uidelta_linux=trace`, `off`.
fn log_to_stderr() {
    const DEFAULT: &str = "off,uidelta=warn";
    let filter = match std::env::var("UIDELTA_LOG") {
        Ok(spec) => tracing_subscriber::EnvFilter::try_new(&spec).unwrap_or_else(|e| {
            eprintln!("uidelta: UIDELTA_LOG={spec:?} is not a filter ({e}); logging warnings only");
            tracing_subscriber::EnvFilter::new(DEFAULT)
        }),
        Err(_) => tracing_subscriber::EnvFilter::new(DEFAULT),
    };
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    // Only fails when a subscriber is already set, which nothing here does.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .finish()
        .with(NoClientMessages)
        .try_init();
}

/// Keeps what MCP clients send out of the log, whatever `UIDELTA_LOG`
/// says: rmcp logs whole requests and messages at debug and trace level,
/// tool arguments included (the text typed into a password field).
struct NoClientMessages;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for NoClientMessages {
    fn enabled(
        &self,
        meta: &tracing::Metadata<'_>,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        !(meta.target().starts_with("rmcp") && *meta.level() > tracing::Level::INFO)
    }
}

fn run_command(cli: Cli) -> Result<Status> {
    match cli.command {
        Command::Tree(args) => tree(args),
        Command::Apps { place } => live::apps(&place),
        Command::Screenshot(a) => {
            live::screenshot(&a.out, a.app.as_deref(), a.window.as_deref(), &a.place)
        }
        Command::Click {
            target,
            at,
            right,
            double,
            common,
        } => {
            let action = match (right, double) {
                (true, _) => Action::RightClick,
                (_, true) => Action::DoubleClick,
                _ => Action::Click,
            };
            match (at, target) {
                (Some(point), _) => act::click_at(&common, point, action),
                (None, Some(target)) => act::act(&common, &target, action),
                (None, None) => Err(anyhow::anyhow!("click: give a TARGET or --at X,Y")),
            }
        }
        Command::Hover { target, at, common } => match (at, target) {
            (Some(point), _) => act::click_at(&common, point, Action::Hover),
            (None, Some(target)) => act::act(&common, &target, Action::Hover),
            (None, None) => Err(anyhow::anyhow!("hover: give a TARGET or --at X,Y")),
        },
        Command::Drag {
            source,
            to,
            to_point,
            from_point: Some(from),
            common,
        } => {
            let end = match (source, to, to_point) {
                (None, None, Some((x, y))) => DragEnd::Point(x, y),
                (Some(to), None, None) => DragEnd::Element(to),
                _ => anyhow::bail!(
                    "drag --from-point: give where to, one element to drop on or --to-point X,Y"
                ),
            };
            act::drag_at(&common, from, &end)
        }
        Command::Drag {
            source,
            to,
            to_point,
            from_point: None,
            common,
        } => {
            let end = match (to, to_point) {
                (_, Some((x, y))) => DragEnd::Point(x, y),
                (Some(to), None) => DragEnd::Element(to),
                (None, None) => anyhow::bail!("drag: give where to, TO or --to-point X,Y"),
            };
            let Some(source) = source else {
                anyhow::bail!("drag: give the element to drag, or --from-point X,Y");
            };
            act::drag(&common, &source, &end)
        }
        Command::Scroll {
            target,
            direction,
            amount,
            common,
        } => {
            let n = amount as i32;
            let (dx, dy) = match direction {
                ScrollWay::Up => (0, -n),
                ScrollWay::Down => (0, n),
                ScrollWay::Left => (-n, 0),
                ScrollWay::Right => (n, 0),
            };
            act::act(&common, &target, Action::Scroll { dx, dy })
        }
        Command::Type {
            target,
            text,
            common,
        } => act::act(&common, &target, Action::Type(text)),
        Command::Key {
            chord,
            target,
            common,
        } => act::key(&common, &chord, target.as_deref()),
        Command::SetValue {
            target,
            value,
            common,
        } => act::act(&common, &target, Action::SetValue(value)),
        Command::Select {
            target,
            deselect,
            common,
        } => act::act(&common, &target, Action::SetSelected(!deselect)),
        Command::Invoke {
            target,
            action,
            common,
        } => act::act(&common, &target, Action::Invoke(action)),
        Command::CloseWindow(w) => w.run(WindowAction::Close),
        Command::ActivateWindow(w) => w.run(WindowAction::Activate),
        Command::Navigate { to, common } => act::navigate(&common, &to),
        Command::Script { script, common } => act::script(&common, &script),
        Command::WaitChange {
            app,
            place,
            timeout,
            format,
        } => act::wait_change(
            app.as_deref(),
            &place,
            std::time::Duration::from_millis(timeout),
            format,
        ),
        Command::Watch { app, place } => act::watch(app.as_deref(), &place),
        Command::Diff(args) => diff(args),
        Command::Mcp(args) => mcp(args),
        Command::KeepAction { dest, path, index } => {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .context("starting the async runtime")?
                .block_on(uidelta_atspi::keep_action(
                    &dest,
                    &path,
                    index,
                    KEEP_ACTION_LIMIT,
                ))?;
            Ok(Status::SUCCESS)
        }
        Command::Filters => {
            let mut text = String::new();
            for rule in Rule::ALL {
                text.push_str(&format!("{:<17} {}\n", rule.name(), rule.description()));
            }
            emit(&text)?;
            Ok(Status::SUCCESS)
        }
    }
}

/// `uidelta mcp`: the desktop of this session (`DISPLAY`, `DBUS_SESSION_BUS_ADDRESS`),
/// or a browser (`--browser`, `--cdp URL`), served until the client disconnects (stdio)
/// or the process is stopped (HTTP). A desktop that cannot be reached yet, or goes away,
/// does not stop the server: its calls say so, and each connects again.
fn mcp(mut args: McpArgs) -> Result<Status> {
    // Read once, and gone from the environment before any thread starts:
    // the programs this server starts (applications, a browser) inherit it.
    if let Ok(token) = std::env::var(TOKEN_VAR) {
        if args.http.is_some() {
            args.token.get_or_insert(token);
        }
        std::env::remove_var(TOKEN_VAR);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let log = match &args.log_dir {
            Some(dir) => Some(std::sync::Arc::new(uidelta_mcp::LogDir::open(dir)?)),
            None => None,
        };
        let output = match &args.output_dir {
            Some(dir) => Some(uidelta_mcp::OutputDir::open(dir)?),
            // Made at the first output_file: a server that writes none needs none.
            None => match state::output_dir() {
                Ok(dir) => Some(uidelta_mcp::OutputDir::new(dir)),
                Err(e) => {
                    eprintln!("uidelta: get_window_tree's output_file is off: {e:#}");
                    None
                }
            },
        };
        let output = output.map(std::sync::Arc::new);
        // Checked before connecting: a refused address is never listened on.
        let http = match args.http {
            Some(addr) => {
                let opts = uidelta_mcp::HttpOptions {
                    token: args.token.clone(),
                    allow_remote: args.allow_remote,
                    allow_hosts: args.allow_hosts.clone(),
                    allow_origins: args.allow_origins.clone(),
                    max_sessions: args.max_sessions,
                    session_idle: std::time::Duration::from_secs(args.session_idle),
                    log: log.clone(),
                    output: output.clone(),
                    ..uidelta_mcp::HttpOptions::new(addr)
                };
                opts.check(addr)?;
                Some(opts)
            }
            None => None,
        };
        if let Some(desktop) = args.place.desktop()? {
            // The server starts without a desktop, and outlives one.
            if let Err(e) = desktop.connect().await {
                eprintln!("uidelta: {e}");
            }
            return serve(std::sync::Arc::new(desktop), log, output, http, None).await;
        }
        let connected = args.place.connect().await?;
        // Calls that name no application act on the tab opened with --url.
        let default_app = match &connected {
            place::Connected::Browser(_, tab) if args.place.url.is_some() => Some(tab.clone()),
            _ => None,
        };
        serve(connected.into_backend(), log, output, http, default_app).await
    })?;
    Ok(Status::SUCCESS)
}

/// Serves MCP on `backend`: over HTTP as `http` says, else on stdio.
async fn serve<B: uidelta_backend::Backend + 'static>(
    backend: std::sync::Arc<B>,
    log: Option<std::sync::Arc<uidelta_mcp::LogDir>>,
    output: Option<std::sync::Arc<uidelta_mcp::OutputDir>>,
    http: Option<uidelta_mcp::HttpOptions>,
    default_app: Option<uidelta_backend::App>,
) -> Result<()> {
    match http {
        None => uidelta_mcp::serve_stdio(backend, log, output, default_app).await?,
        Some(mut opts) => {
            opts.default_app = default_app;
            let addr = opts.addr;
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("listening on {addr}"))?;
            // The real port, when 0 was asked for.
            let bound = listener.local_addr().context("reading the bound address")?;
            opts.check(bound)?;
            eprintln!("uidelta: MCP on http://{bound}/mcp");
            uidelta_mcp::serve_listener(backend, listener, opts).await?
        }
    }
    Ok(())
}

fn tree(args: TreeArgs) -> Result<Status> {
    let snapshot = match (&args.file, &args.app) {
        (Some(file), _) => args.input.load(file)?,
        // Live trees with every noise rule on come from the session, with
        // the refs actions take; one that shows what a rule hides has refs
        // of its own.
        (None, Some(app)) if args.input.keep.is_empty() => return live_tree(&args, Some(app)),
        (None, Some(app)) => {
            let scope = match (&args.window, args.focused) {
                (Some(title), _) => live::Scope::Window(title.clone()),
                (None, true) => live::Scope::Focused,
                (None, false) => live::Scope::App,
            };
            live::capture(app, scope, &args.place)?
        }
        (None, None) if args.place.is_browser() && args.input.keep.is_empty() => {
            return live_tree(&args, None);
        }
        (None, None) if args.place.is_browser() => live::capture_tab(&args.place)?,
        (None, None) => anyhow::bail!("give a snapshot file or --app NAME"),
    };
    let view = View::new(&snapshot, args.input.filters());
    let refs = RefTable::new().label(view.len());
    emit(&tree_output(&view, &refs, &args))?;
    Ok(Status::SUCCESS)
}

/// `uidelta tree --app`: the session's latest snapshot of the application
/// (of the tab, in a browser), read again now, with the refs the next
/// command takes.
fn live_tree(args: &TreeArgs, app: Option<&str>) -> Result<Status> {
    let text = act::with_latest(&args.place, app, |latest| {
        let part = match (&args.window, args.focused) {
            (Some(title), _) => Some(latest.window_named(title).map_err(anyhow::Error::msg)?),
            (None, true) => {
                let tree = latest.view.tree();
                let active = tree
                    .children(NodeId::ROOT)
                    .iter()
                    .copied()
                    .find(|&w| tree.node(w).states.contains(State::Active));
                Some(
                    active
                        .with_context(|| format!("{} has no active window", latest.app.label()))?,
                )
            }
            (None, false) => None,
        };
        Ok(match part {
            Some(window) => {
                let (view, refs) = latest.subtree(window);
                tree_output(&view, &refs, args)
            }
            None => tree_output(&latest.view, &latest.refs, args),
        })
    })?;
    emit(&text)?;
    Ok(Status::SUCCESS)
}

fn tree_output(view: &View, refs: &Refs, args: &TreeArgs) -> String {
    match args.format {
        Format::Text => render::tree_text(
            view,
            refs,
            &render::TreeOptions {
                bounds: args.bounds,
            },
        ),
        Format::Json => render::tree_json(view, refs),
        Format::Terminator => render::tree_terminator(view),
        Format::Flat => render::tree_flat(view),
        Format::Osworld => render::tree_osworld(view),
        Format::OsworldTable => render::tree_osworld_table(view),
    }
}

fn diff(args: DiffArgs) -> Result<Status> {
    let before = args.input.load(&args.before)?;
    let after = args.input.load(&args.after)?;
    let compared = compare(&before, &after, args.input.filters());
    let opts = render::DiffOptions {
        context: !args.no_context,
        budget: args.budget,
        ..render::DiffOptions::default()
    };
    let text = match args.format {
        Format::Text => render::diff_text(&compared.diff, &opts),
        Format::Json => render::diff_json(&compared.diff),
        Format::Terminator => render::diff_terminator(&compared.diff),
        Format::Flat => render::diff_flat(&compared.diff),
        Format::Osworld | Format::OsworldTable => anyhow::bail!(
            "OSWorld's formats hold trees, not diffs: give --format text, json, terminator or flat"
        ),
    };
    emit(&text)?;
    if args.stats {
        let full = render::tree_text(
            &compared.after,
            &compared.after_refs,
            &render::TreeOptions::default(),
        );
        let (d, t) = (render::size(&text), render::size(&full));
        eprintln!(
            "# size: diff {} tokens ({} bytes), full after tree {} tokens ({} bytes)",
            d.tokens, d.bytes, t.tokens, t.bytes
        );
    }
    Ok(if compared.diff.has_changes() {
        Status(1)
    } else {
        Status::SUCCESS
    })
}

/// Writes to stdout; a closed pipe (`| head`) is not an error.
fn emit(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to standard output"),
    }
}

/// `640,512`: a point for `click --at`.
fn parse_point(s: &str) -> Result<(i32, i32), String> {
    let bad = || format!("`{s}`: give the point as X,Y in pixels (`640,512`)");
    let (x, y) = s.split_once(',').ok_or_else(bad)?;
    let x = x.trim().parse::<i32>().map_err(|_| bad())?;
    let y = y.trim().parse::<i32>().map_err(|_| bad())?;
    Ok((x, y))
}
