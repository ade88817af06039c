//! Browser comparison: on the same pages and the same actions, what an agent
//! reads from uidelta (one full tree, then a diff per action) against what
//! Playwright MCP gives it (an aria snapshot after every action), in tokens
//! and in time, in one run.
//!
//! `cargo run --release -p uidelta-bench --bin browser` (or
//! `scripts/bench-browser.sh`, which first installs Node.js 20 and
//! playwright-core when they are missing).
//!
//! Reads the scenarios of `bench/browser-scenarios.json` and serves
//! `fixtures/web` on 127.0.0.1 (testkit's `web::Server`). Every scenario runs
//! `--runs` times on both sides, one after the other, each side with a
//! headless Chromium (`/usr/bin/chromium`) of its own that lives for that
//! scenario run only; which side goes first alternates from one scenario run
//! to the next.
//!
//! - **uidelta**: `Cdp::launch`, the page opened as a tab and observed (its
//!   first full tree), then every step through the engine with default
//!   options: `Session::act` on a selector built from the step (`click`:
//!   `role:<role> && name:"<name>"`; `type`, `check`, `select`, `press`: the
//!   control whose accessible name is the label), `Session::navigate` for
//!   `goto`. Per step: the diff text (`diff_text`, default options) and the
//!   full tree text after it (`tree_text`), the wall time of the whole act
//!   (resolve, action, settle, capture, diff) and its settle time.
//! - **Playwright**: `node bench/playwright/aria.mjs --only <scenario>` as a
//!   child process against the same server: playwright-core with Playwright
//!   MCP's waits and `page.ariaSnapshot({mode: "ai"})` after every step. Per
//!   step: the snapshot text and the action, wait and snapshot times it
//!   reports.
//!
//! Tokens are o200k (`uidelta_render::size`) on both sides. Whether each
//! step's `expect` and `absent` hold is checked on our diff, on our tree and
//! (by aria.mjs) on Playwright's snapshot. Markdown on stdout; progress and
//! every diff on stderr.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use uidelta_backend::{Action, Backend, Navigate};
use uidelta_cdp::{Cdp, LaunchOptions, CHROMIUM, INSTALL_HINT};
use uidelta_engine::selector::Selector;
use uidelta_engine::{ActOptions, ActionOutcome, AppDiff, AppId, Session};
use uidelta_model::Role;
use uidelta_render::{size, Size};
use uidelta_testkit::web::{fixtures_dir, Server};

#[allow(dead_code)]
mod live;

use live::{cell, ms, percentile, Fallible};

#[path = "browser/playwright.rs"]
mod playwright;
#[path = "browser/report.rs"]
mod report;

use playwright::{find_node, run_theirs, Theirs};
use report::print_report;

const USAGE: &str = "usage: browser [--runs N] [--only a,b] [--scenarios FILE] [--node PATH] \
                     [--chromium PATH] [--show]\n\
  --runs N          runs of every scenario on each side (default 5)\n\
  --only a,b        only these scenarios\n\
  --scenarios FILE  default bench/browser-scenarios.json\n\
  --node PATH       Node.js 20 or newer (default $UIDELTA_NODE, else `node` on PATH)\n\
  --chromium PATH   browser for both sides (default /usr/bin/chromium)\n\
  --show            also print our full trees and Playwright's snapshots on stderr";

/// How long a tab may take to load its page.
const OPEN_TIMEOUT: Duration = Duration::from_secs(20);
/// The longest one step (action, settle, capture, diff) may take.
const STEP_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest one scenario may take on the Playwright side, node and the
/// browser's start included.
const PLAYWRIGHT_TIMEOUT: Duration = Duration::from_secs(180);
/// Playwright's default viewport; our headless window gets the same size.
const VIEWPORT: (u32, u32) = (1280, 720);

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

// ---------------------------------------------------------------------------
// Scenarios

/// One scenario of bench/browser-scenarios.json.
struct Scenario {
    name: String,
    page: String,
    steps: Vec<Step>,
}

/// One step: what to do and what the state after it must (not) show.
struct Step {
    act: Do,
    /// As aria.mjs names it: `click button Open dialog`.
    text: String,
    expect: Vec<Expect>,
    absent: Vec<Expect>,
}

/// The step vocabulary of the scenario file.
enum Do {
    Click { role: String, name: Option<String> },
    Type { label: String, text: String },
    Press { label: Option<String>, key: String },
    Check(String),
    Uncheck(String),
    Select { label: String, option: String },
    Goto(String),
}

/// `"<role> <name>"` or `"text <words>"`, as written.
struct Expect {
    written: String,
    role: String,
    name: Option<String>,
}

impl Expect {
    fn parse(written: &str) -> Expect {
        let (role, name) = role_and_name(written);
        Expect {
            written: written.to_owned(),
            role,
            name,
        }
    }

    fn is_text(&self) -> bool {
        self.role == "text"
    }
}

/// `"button Open dialog"` -> (`button`, `Open dialog`).
fn role_and_name(target: &str) -> (String, Option<String>) {
    match target.split_once(' ') {
        Some((role, name)) => (role.to_owned(), Some(name.to_owned())),
        None => (target.to_owned(), None),
    }
}

fn parse_scenarios(text: &str, path: &Path) -> Fallible<Vec<Scenario>> {
    let at = path.display();
    let json: Value = serde_json::from_str(text).map_err(|e| format!("{at} is not JSON: {e}"))?;
    let list = json
        .get("scenarios")
        .or(Some(&json))
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{at}: expected {{\"scenarios\": [...]}}"))?;
    let mut scenarios = Vec::new();
    for (i, s) in list.iter().enumerate() {
        let field = |key: &str| {
            s.get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| format!("{at}: scenario {i} needs a string `{key}`"))
        };
        let name = field("name")?;
        let page = field("page")?;
        let steps = s
            .get("steps")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{at}: scenario {name} needs a list `steps`"))?
            .iter()
            .enumerate()
            .map(|(n, step)| {
                parse_step(step).map_err(|e| format!("{at}: {name} step {}: {e}", n + 1))
            })
            .collect::<Result<Vec<_>, _>>()?;
        scenarios.push(Scenario { name, page, steps });
    }
    Ok(scenarios)
}

const KINDS: [&str; 7] = [
    "click", "type", "press", "check", "uncheck", "select", "goto",
];

fn parse_step(step: &Value) -> Result<Step, String> {
    let kinds: Vec<&str> = KINDS
        .iter()
        .copied()
        .filter(|k| step.get(k).is_some())
        .collect();
    let [kind] = kinds.as_slice() else {
        return Err(format!("a step has exactly one of {}", KINDS.join(", ")));
    };
    let arg = &step[kind];
    let bad = || format!("bad argument for {kind}: {arg}");
    let one = || arg.as_str().map(str::to_owned).ok_or_else(bad);
    let pair = || match arg.as_array().map(Vec::as_slice) {
        Some([Value::String(a), Value::String(b)]) => Ok((a.clone(), b.clone())),
        _ => Err(bad()),
    };
    let act = match *kind {
        "click" => {
            let (role, name) = role_and_name(&one()?);
            Do::Click { role, name }
        }
        "type" => {
            let (label, text) = pair()?;
            Do::Type { label, text }
        }
        "press" => match arg {
            Value::String(key) => Do::Press {
                label: None,
                key: key.clone(),
            },
            _ => {
                let (label, key) = pair()?;
                Do::Press {
                    label: Some(label),
                    key,
                }
            }
        },
        "check" => Do::Check(one()?),
        "uncheck" => Do::Uncheck(one()?),
        "select" => {
            let (label, option) = pair()?;
            Do::Select { label, option }
        }
        _ => Do::Goto(one()?),
    };
    // The same wording as aria.mjs: arrays as JSON strings.
    let text = match arg {
        Value::Array(items) => format!(
            "{kind} {}",
            items
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Value::String(s) => format!("{kind} {s}"),
        other => format!("{kind} {other}"),
    };
    let list = |key: &str| -> Result<Vec<Expect>, String> {
        match step.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(Expect::parse)
                        .ok_or_else(|| format!("`{key}` holds strings, not {v}"))
                })
                .collect(),
            Some(other) => Err(format!("`{key}` is a list of strings, not {other}")),
        }
    };
    Ok(Step {
        act,
        text,
        expect: list("expect")?,
        absent: list("absent")?,
    })
}

// ---------------------------------------------------------------------------
// Our side

/// A selector value in quotes, so that any name parses.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The selector and the engine action for a step that acts on an element;
/// `None` for `goto` and a `press` without a label.
fn target(act: &Do) -> Option<(String, Action)> {
    // Playwright's getByLabel finds the control a label names; in the
    // accessibility tree that label is the control's name, and the label
    // element itself (role `label`) is left out by the role condition.
    Some(match act {
        Do::Click { role, name } => {
            let mut selector = format!("role:{role}");
            if let Some(name) = name {
                selector.push_str(&format!(" && name:{}", quoted(name)));
            }
            (selector, Action::Click)
        }
        // Playwright's fill replaces the value.
        Do::Type { label, text } => (
            format!("name:{} && state:editable", quoted(label)),
            Action::SetValue(text.clone()),
        ),
        Do::Press {
            label: Some(label),
            key,
        } => (
            format!(
                "name:{} && (state:editable || state:focusable) && !role:label",
                quoted(label)
            ),
            Action::Key(key.clone()),
        ),
        // Playwright's check clicks only when the box is not checked yet;
        // so does SetSelected.
        Do::Check(label) => (
            format!(
                "name:{} && (role:check box || role:radio button)",
                quoted(label)
            ),
            Action::SetSelected(true),
        ),
        Do::Uncheck(label) => (
            format!(
                "name:{} && (role:check box || role:radio button)",
                quoted(label)
            ),
            Action::SetSelected(false),
        ),
        Do::Select { label, option } => (
            format!("name:{} && role:combo box", quoted(label)),
            Action::SetValue(option.clone()),
        ),
        Do::Press { label: None, .. } | Do::Goto(_) => return None,
    })
}

/// What our side measured for one step (step 0: opening the page).
#[derive(Clone)]
struct Ours {
    diff_size: Size,
    tree_size: Size,
    nodes: usize,
    /// Wall time of the act; for step 0, opening the tab and the first capture.
    act_ms: f64,
    /// Step 0 only: the first capture alone (`Session::observe`: the
    /// backend's capture and the engine's view of it).
    first_tree_ms: Option<f64>,
    settle_ms: Option<f64>,
    capped: bool,
    counts: String,
    /// Expectations the diff does not show.
    diff_misses: Vec<String>,
    /// Of those, the ones that the `wait_for_change` diffs before the next
    /// step did not show either.
    late_misses: Vec<String>,
    /// Before this step its target was not in the tree yet: tokens and bytes
    /// of the `wait_for_change` diffs that brought it, and their time.
    catch_up: Option<(Size, f64)>,
    /// Expectations the tree after the step does not show.
    tree_misses: Vec<String>,
    /// The diff leaves added elements out (`+ ... and 197 more list item`,
    /// `... 644 more nodes under [e756]`): an agent that needs them reads
    /// the tree or searches it.
    elides: bool,
}

async fn run_ours(
    scenario: &Scenario,
    server: &Server,
    chromium: &Path,
    show: bool,
) -> Fallible<Vec<Ours>> {
    let cdp = Cdp::launch(LaunchOptions {
        executable: chromium.to_path_buf(),
        window: VIEWPORT,
        ..LaunchOptions::default()
    })
    .await
    .map_err(|e| format!("starting Chromium for uidelta: {e}"))?;
    let url = server.url(&scenario.page);
    let started = Instant::now();
    let app = bounded(cdp.open(&url, &[], OPEN_TIMEOUT), &format!("opening {url}"))
        .await?
        .map_err(|e| format!("opening {url}: {e}"))?;
    let mut session = Session::new(Arc::new(cdp));
    let observed = Instant::now();
    let (idx, _) = bounded(session.observe(&app.id), "the first capture")
        .await?
        .map_err(|e| format!("capturing {url}: {e}"))?;
    let first_tree_ms = ms(observed.elapsed());
    let open_ms = ms(started.elapsed());
    eprintln!(
        "-- uidelta {}: opened in {} ms, first tree in {} ms",
        scenario.name,
        open_ms.round(),
        first_tree_ms.round()
    );
    let tree = tree_text(&session, idx);
    if show {
        eprintln!("-- {} first tree:\n{tree}", scenario.name);
    }
    let mut rows = vec![Ours {
        diff_size: Size::default(),
        tree_size: size(&tree),
        nodes: session.known_apps()[idx].view.len(),
        act_ms: open_ms,
        first_tree_ms: Some(first_tree_ms),
        settle_ms: None,
        capped: false,
        counts: String::new(),
        diff_misses: Vec::new(),
        late_misses: Vec::new(),
        catch_up: None,
        tree_misses: Vec::new(),
        elides: false,
    }];
    for (n, step) in scenario.steps.iter().enumerate() {
        let what = format!("{} step {} ({})", scenario.name, n + 1, step.text);
        let catch_up = match target(&step.act) {
            Some((selector, _)) => catch_up(&mut session, &app.id, &selector, &what).await?,
            None => None,
        };
        if let (Some((text, _)), Some(last)) = (&catch_up, rows.last_mut()) {
            if n > 0 {
                let previous = &scenario.steps[n - 1];
                last.late_misses =
                    unmet(previous, |e| diff_shows(text, e), |e| diff_drops(text, e))
                        .into_iter()
                        .filter(|m| last.diff_misses.contains(m))
                        .collect();
            }
        }
        let catch_up = catch_up.map(|(text, ms)| (size(&text), ms));
        let started = Instant::now();
        let acted = bounded(perform(&mut session, &app.id, step, server), &what)
            .await?
            .map_err(|e| format!("uidelta, {what}: {e}"))?;
        let act_ms = ms(started.elapsed());
        let idx = session
            .known_id(&app.id)
            .ok_or_else(|| format!("{what}: the tab is no longer in the session"))?;
        let diff = diff_text(&acted);
        let tree = tree_text(&session, idx);
        let c = acted.diff.counts();
        let diff_misses = unmet(step, |e| diff_shows(&diff, e), |e| diff_drops(&diff, e));
        let tree_misses = unmet(step, |e| tree_shows(&tree, e), |e| !tree_shows(&tree, e));
        eprintln!(
            "-- uidelta {what}: {} ms, diff {} tokens, tree {} tokens{}",
            act_ms.round(),
            size(&diff).tokens,
            size(&tree).tokens,
            if diff_misses.is_empty() {
                String::new()
            } else {
                format!("; the diff misses {}", diff_misses.join(", "))
            }
        );
        eprint!("{diff}");
        if show {
            eprintln!("-- tree after it:\n{tree}");
        }
        rows.push(Ours {
            diff_size: size(&diff),
            tree_size: size(&tree),
            nodes: session.known_apps()[idx].view.len(),
            act_ms,
            first_tree_ms: None,
            settle_ms: acted.diff.settle_ms.map(|s| s as f64),
            capped: acted.settled.capped,
            counts: format!("+{} -{} ~{}", c.added, c.removed, c.modified),
            late_misses: diff_misses.clone(),
            diff_misses,
            catch_up,
            tree_misses,
            elides: uidelta_bench::elides_added(&diff),
        });
    }
    // Dropping the session drops the browser, which kills it.
    drop(session);
    Ok(rows)
}

/// How long the target of a step may take to appear: Playwright's action
/// timeout, within which its locators wait for their element.
const TARGET_TIMEOUT: Duration = Duration::from_secs(5);

/// When the target of the next step is not in the latest tree (the previous
/// step's diff was taken before the page finished its response), does what
/// an agent has for that: `wait_for_change` until the target is there, at
/// most [`TARGET_TIMEOUT`]. Returns the diffs' text and the time spent, or
/// `None` when the target was there already.
async fn catch_up(
    session: &mut Session<Cdp>,
    tab: &str,
    selector: &str,
    what: &str,
) -> Fallible<Option<(String, f64)>> {
    let parsed: Selector = selector
        .parse()
        .map_err(|e| format!("{what}: bad selector: {e}"))?;
    if !session.find(&parsed).is_empty() {
        return Ok(None);
    }
    let started = Instant::now();
    let mut text = String::new();
    while session.find(&parsed).is_empty() {
        let left = TARGET_TIMEOUT.saturating_sub(started.elapsed());
        if left.is_zero() {
            // The act reports the missing target.
            break;
        }
        let acted = bounded(session.wait_for_change(tab, left), what)
            .await?
            .map_err(|e| format!("uidelta, {what}: waiting for `{selector}`: {e}"))?;
        text.push_str(&diff_text(&acted));
    }
    let spent = ms(started.elapsed());
    eprintln!(
        "-- uidelta {what}: `{selector}` was not in the tree yet; wait_for_change for {} ms:",
        spent.round()
    );
    eprint!("{text}");
    Ok(Some((text, spent)))
}

async fn perform(
    session: &mut Session<Cdp>,
    tab: &str,
    step: &Step,
    server: &Server,
) -> Result<ActionOutcome, String> {
    let opts = ActOptions::default();
    match (&step.act, target(&step.act)) {
        (Do::Goto(url), _) => session
            .navigate(tab, &Navigate::To(server.url(url)), &opts)
            .await
            .map_err(|e| e.to_string()),
        (Do::Press { label: None, key }, _) => session
            .key(tab, key, &opts)
            .await
            .map_err(|e| e.to_string()),
        (_, Some((selector, action))) => session
            .act(&selector, &action, &opts)
            .await
            .map_err(|e| format!("`{selector}`: {e}")),
        (_, None) => Err("the step names no element".into()),
    }
}

async fn bounded<T>(fut: impl std::future::Future<Output = T>, what: &str) -> Fallible<T> {
    tokio::time::timeout(STEP_TIMEOUT, fut)
        .await
        .map_err(|_| format!("{what}: no answer within {} s", STEP_TIMEOUT.as_secs()).into())
}

/// The diff as the action returns it to an agent: changes found before the
/// action first (as the MCP server reports them), then the action's own.
fn diff_text(acted: &ActionOutcome) -> String {
    let opts = uidelta_render::DiffOptions::default();
    let mut text = String::new();
    for AppDiff { app, diff: d } in &acted.earlier {
        text.push_str(&format!("# before this action, in {}:\n", app.name));
        text.push_str(&uidelta_render::diff_text(d, &opts));
    }
    text.push_str(&uidelta_render::diff_text(&acted.diff, &opts));
    if let Some(AppDiff { app, diff: d }) = &acted.app_switch {
        text.push_str(&format!("# app switch: {}\n", app.name));
        text.push_str(&uidelta_render::diff_text(d, &opts));
    }
    text
}

fn tree_text(session: &Session<Cdp>, idx: AppId) -> String {
    let l = &session.known_apps()[idx];
    uidelta_render::tree_text(&l.view, &l.refs, &uidelta_render::TreeOptions::default())
}

/// The expectations of `step` that do not hold: `expect` entries `shows`
/// rejects and `absent` entries `gone` rejects.
fn unmet(
    step: &Step,
    shows: impl Fn(&Expect) -> bool,
    gone: impl Fn(&Expect) -> bool,
) -> Vec<String> {
    let mut misses: Vec<String> = step
        .expect
        .iter()
        .filter(|e| !shows(e))
        .map(|e| e.written.clone())
        .collect();
    misses.extend(
        step.absent
            .iter()
            .filter(|e| !gone(e))
            .map(|e| format!("no {}", e.written)),
    );
    misses
}

/// How our text formats write an ARIA role: `button` is `push button`.
fn our_role(aria: &str) -> String {
    match Role::from_name(aria) {
        Role::Unknown => aria.to_owned(),
        role => role.to_string(),
    }
}

/// `] push button "Open dialog"`: the start of an element line after its ref.
fn element_key(e: &Expect) -> String {
    match &e.name {
        Some(name) => format!("] {} {}", our_role(&e.role), quoted(name)),
        None => format!("] {}", our_role(&e.role)),
    }
}

/// Whether a tree text shows the element or the text.
fn tree_shows(tree: &str, e: &Expect) -> bool {
    if e.is_text() {
        return tree.contains(e.name.as_deref().unwrap_or_default());
    }
    let key = element_key(e);
    tree.lines().any(|l| ends_word(l, &key))
}

/// Whether `line` contains `key` followed by the end, a space or a `(`.
fn ends_word(line: &str, key: &str) -> bool {
    line.match_indices(key).any(|(at, _)| {
        matches!(
            line[at + key.len()..].chars().next(),
            None | Some(' ') | Some('(') | Some('=')
        )
    })
}

/// Whether a diff shows the element or the text as there after the step:
/// added, or modified to it (a name that changed to it counts).
fn diff_shows(diff: &str, e: &Expect) -> bool {
    if e.is_text() {
        return diff.contains(e.name.as_deref().unwrap_or_default());
    }
    let key = element_key(e);
    let role = format!("] {}", our_role(&e.role));
    diff.lines().filter(|l| !l.starts_with('-')).any(|l| {
        ends_word(l, &key)
            || e.name.as_ref().is_some_and(|name| {
                l.contains(&role) && l.contains(&format!("-> {}", quoted(name)))
            })
    })
}

/// Whether a diff reports the element as gone: removed, or renamed away,
/// or the whole document replaced by a new one.
fn diff_drops(diff: &str, e: &Expect) -> bool {
    if diff.lines().any(|l| l.starts_with("# new document:")) {
        return true;
    }
    if e.is_text() {
        return diff
            .lines()
            .any(|l| l.starts_with('-') && l.contains(e.name.as_deref().unwrap_or_default()));
    }
    let key = element_key(e);
    let role = format!("] {}", our_role(&e.role));
    diff.lines().any(|l| {
        (l.starts_with('-') && ends_word(l, &key))
            || e.name.as_ref().is_some_and(|name| {
                l.starts_with('~')
                    && l.contains(&role)
                    && l.contains(&format!("{} ->", quoted(name)))
            })
    })
}

// ---------------------------------------------------------------------------
// The run

struct Options {
    runs: usize,
    only: Option<Vec<String>>,
    scenarios: PathBuf,
    node: Option<PathBuf>,
    chromium: PathBuf,
    show: bool,
}

fn options() -> Fallible<Option<Options>> {
    let mut o = Options {
        runs: 5,
        only: None,
        scenarios: repo_root().join("bench/browser-scenarios.json"),
        node: None,
        chromium: PathBuf::from(CHROMIUM),
        show: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--runs" => {
                let v = value()?;
                o.runs = v
                    .parse()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| format!("--runs needs a whole number >= 1, not {v}"))?;
            }
            "--only" => {
                o.only = Some(value()?.split(',').map(str::to_owned).collect());
            }
            "--scenarios" => o.scenarios = PathBuf::from(value()?),
            "--node" => o.node = Some(PathBuf::from(value()?)),
            "--chromium" => o.chromium = PathBuf::from(value()?),
            "--show" => o.show = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            other => return Err(format!("unknown argument `{other}`\n{USAGE}").into()),
        }
    }
    Ok(Some(o))
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("browser benchmark failed: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Both sides' results of one scenario run.
struct RunResult {
    ours: Vec<Ours>,
    theirs: Vec<Theirs>,
    ours_first: bool,
}

fn run() -> Fallible<()> {
    let Some(opts) = options()? else {
        return Ok(());
    };
    if !opts.chromium.exists() {
        return Err(format!(
            "{} does not exist: install Chromium with `{INSTALL_HINT}`",
            opts.chromium.display()
        )
        .into());
    }
    let node = find_node(opts.node.clone())?;
    let text = std::fs::read_to_string(&opts.scenarios)
        .map_err(|e| format!("reading {}: {e}", opts.scenarios.display()))?;
    let mut scenarios = parse_scenarios(&text, &opts.scenarios)?;
    if let Some(only) = &opts.only {
        if let Some(unknown) = only
            .iter()
            .find(|n| !scenarios.iter().any(|s| &s.name == *n))
        {
            return Err(format!("no scenario named `{unknown}`").into());
        }
        scenarios.retain(|s| only.contains(&s.name));
    }
    let server = Server::start(&fixtures_dir())?;
    let base = server.url("");
    let machine_start = live::machine();
    // Building the tokenizer takes a moment: not inside any timing.
    let _ = uidelta_render::count_tokens("warm up");
    let rt = live::runtime()?;

    // One unrecorded run of the first scenario on each side, so that neither
    // pays for a cold disk cache.
    let Some(first) = scenarios.first() else {
        return Err("no scenarios to run".into());
    };
    eprintln!("== warm-up (not recorded): {}", first.name);
    rt.block_on(run_ours(first, &server, &opts.chromium, false))?;
    run_theirs(&node, &opts.scenarios, &base, first, &opts.chromium, false)?;

    // results[scenario][run]
    let mut results: Vec<Vec<RunResult>> = scenarios.iter().map(|_| Vec::new()).collect();
    let mut turn = 0usize;
    for run in 1..=opts.runs {
        for (i, scenario) in scenarios.iter().enumerate() {
            let ours_first = turn % 2 == 0;
            turn += 1;
            eprintln!(
                "== run {run}, {}: {} first",
                scenario.name,
                if ours_first { "uidelta" } else { "Playwright" }
            );
            let mut ours = None;
            let mut theirs = None;
            for side in 0..2 {
                if (side == 0) == ours_first {
                    ours = Some(rt.block_on(run_ours(
                        scenario,
                        &server,
                        &opts.chromium,
                        opts.show,
                    ))?);
                } else {
                    theirs = Some(run_theirs(
                        &node,
                        &opts.scenarios,
                        &base,
                        scenario,
                        &opts.chromium,
                        opts.show,
                    )?);
                }
            }
            let (Some(ours), Some(theirs)) = (ours, theirs) else {
                return Err("internal: a side did not run".into());
            };
            results[i].push(RunResult {
                ours,
                theirs,
                ours_first,
            });
        }
    }
    drop(rt);
    drop(server);
    let versions = Versions {
        chromium: chromium_version(&opts.chromium),
        node: node.version.clone(),
        playwright: node.playwright.clone(),
    };
    print_report(
        &scenarios,
        &results,
        opts.runs,
        &versions,
        &machine_start,
        &live::machine(),
    );
    Ok(())
}

struct Versions {
    chromium: String,
    node: String,
    playwright: String,
}

fn chromium_version(chromium: &Path) -> String {
    Command::new(chromium)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "unknown version".into())
}
