//! Settle latency: how long the engine's auto settle takes for actions whose
//! UI responds at once, against terminator's fixed 1500 ms sleep, in the
//! same run; whether every auto-settled diff holds the change; and whether
//! a late, incrementally built dialog is ever captured half-rendered.
//!
//! `cargo run --release -p uidelta-bench --bin settle [-- --runs 30 --dialogs 20]`
//!
//! Starts a private virtual desktop with gtk3-widget-factory and the fixture
//! application (fixtures/uidelta-fixture.py). Four immediate actions, each
//! `--runs` times with auto settle (`ActOptions::default()`) and `--runs`
//! times with `Settle::Fixed(1500 ms)`, interleaved (each round runs every
//! action once in each mode; which mode goes first alternates by round):
//!
//! - the fixture's `Count` button: the label `Count: N` must be modified
//!   to the next count;
//! - the fixture's `Remember me` check box: `checked` must flip;
//! - typing `<i>` into the fixture's `Notes` entry: its value must grow by
//!   the typed text;
//! - the first enabled `checkbutton` of gtk3-widget-factory: `checked` must
//!   flip.
//!
//! The expected state is tracked by this program from the first tree on,
//! not read back from the engine. For every action it records the wall time
//! of `Session::act` (target resolution, the action, settling, the after
//! snapshot and the diff: what the caller waits for), `settled.elapsed`
//! (from the end of the action to the after snapshot), whether the cap was
//! hit, whether the diff holds the expected change, and whether it holds
//! anything else. Then actions that change nothing, `--runs` of each with
//! auto settle and with auto settle deaf to the process saying that
//! nothing is pending (`Quiet { grace: None, .. }`, the rule before),
//! interleaved: a click on the fixture's `Do nothing`, the key `x` on it,
//! and a click on gtk3-widget-factory's label `Inset`, each after one left
//! out of the count (it gives its window the keyboard); no diff may hold
//! a change. Then it clicks the fixture's `Open details` `--dialogs` times
//! with auto settle (the dialog appears 800 ms after the click and fills in
//! over 300 ms), checks that each diff adds the complete dialog (`Field 1`
//! ..`Field 5` and `Close`), and closes it again. Every wait is bounded;
//! the desktop is torn down at the end, also on error. Markdown
//! on stdout, every action on stderr.
//!
//! With `--browser` it measures settling in a page instead (`settle/browser.rs`):
//! actions that change nothing, and a dialog built 800 ms after the click,
//! with auto settle against auto settle deaf to the page's word that nothing
//! is pending.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use uidelta_backend::Action;
use uidelta_diff::{Attr, AttrValue, Change, Diff, Modified};
use uidelta_engine::{ActOptions, ActionOutcome, AppId, Quiet, Session, Settle};
use uidelta_linux::Linux;
use uidelta_model::{Role, State};
use uidelta_testkit::Desktop;

#[path = "settle/browser.rs"]
mod browser;
#[allow(dead_code)]
mod live;

use live::{Fallible, FACTORY, FIXTURE, FIXTURE_NAME};

/// terminator's settle.
const FIXED: Duration = Duration::from_millis(1500);
/// Idle time between two actions, so that each starts from a quiet UI.
const PAUSE: Duration = Duration::from_millis(200);

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("settle benchmark failed: {error}");
            ExitCode::FAILURE
        }
    }
}

struct Options {
    runs: usize,
    dialogs: usize,
    /// Measure in a page instead (`settle/browser.rs`).
    browser: bool,
}

fn options() -> Fallible<Option<Options>> {
    let mut opts = Options {
        runs: 30,
        dialogs: 20,
        browser: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |what: &str| -> Fallible<usize> {
            let text = args
                .next()
                .ok_or_else(|| format!("{what} needs a number"))?;
            let n: usize = text
                .parse()
                .map_err(|_| format!("{what}: `{text}` is not a number"))?;
            if n == 0 {
                return Err(format!("{what} must be at least 1").into());
            }
            Ok(n)
        };
        match arg.as_str() {
            "--runs" => opts.runs = number("--runs")?,
            "--dialogs" => opts.dialogs = number("--dialogs")?,
            "--browser" => opts.browser = true,
            "-h" | "--help" => {
                println!(
                    "usage: settle [--runs N (30, per action and mode)] \
                     [--dialogs N (20, Open details runs, per mode with --browser)] \
                     [--browser (in a page, headless Chromium)]"
                );
                return Ok(None);
            }
            other => return Err(format!("unknown argument `{other}` (try --help)").into()),
        }
    }
    Ok(Some(opts))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Auto,
    Fixed,
    /// Auto settle deaf to the process saying that nothing is pending:
    /// the rule before it was heard.
    Deaf,
}

impl Mode {
    fn options(self) -> ActOptions {
        match self {
            Mode::Auto => ActOptions::default(),
            Mode::Fixed => ActOptions {
                settle: Settle::Fixed(FIXED),
                ..ActOptions::default()
            },
            Mode::Deaf => ActOptions {
                settle: Settle::Auto(Quiet {
                    grace: None,
                    ..Quiet::default()
                }),
                ..ActOptions::default()
            },
        }
    }

    fn label(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Fixed => "fixed 1500 ms",
            Mode::Deaf => "baseline: auto without the process's idle",
        }
    }
}

/// The actions that change nothing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NoOp {
    /// A click on the fixture's `Do nothing`.
    Click,
    /// The key `x` on it (a button takes no text).
    Key,
    /// A click on gtk3-widget-factory's label `Inset` (a frame's
    /// title), whose spinners and progress bars never let its process
    /// sleep.
    FactoryLabel,
}

const NO_OPS: [NoOp; 3] = [NoOp::Click, NoOp::Key, NoOp::FactoryLabel];

impl NoOp {
    fn label(self) -> &'static str {
        match self {
            NoOp::Click => "fixture: click `Do nothing`",
            NoOp::Key => "fixture: key `x` on `Do nothing`",
            NoOp::FactoryLabel => "widget-factory: click the label `Inset`",
        }
    }
}

/// One measured action that changes nothing.
struct NoOpSample {
    what: NoOp,
    mode: Mode,
    wall: Duration,
    settle: Duration,
    capped: bool,
    /// Whether the diff holds a change (it must not).
    changed: bool,
}

/// The immediate actions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Count,
    Remember,
    Notes,
    FactoryCheck,
}

const KINDS: [Kind; 4] = [Kind::Count, Kind::Remember, Kind::Notes, Kind::FactoryCheck];

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Count => "fixture: click `Count`",
            Kind::Remember => "fixture: toggle `Remember me`",
            Kind::Notes => "fixture: type into `Notes`",
            Kind::FactoryCheck => "widget-factory: toggle a `checkbutton`",
        }
    }

    fn target(self) -> &'static str {
        match self {
            Kind::Count => "app:uidelta-fixture >> role:push button && name:Count",
            Kind::Remember => "app:uidelta-fixture >> role:check box && name:Remember me",
            Kind::Notes => "app:uidelta-fixture >> role:text && name:Notes",
            Kind::FactoryCheck => {
                "app:gtk3-widget-factory >> role:check box && name:checkbutton \
                 && state:enabled && nth:0"
            }
        }
    }
}

/// What the tracked state says the next diff must show.
struct Expected {
    count: u64,
    remember: bool,
    notes_len: usize,
    factory_checked: bool,
}

/// One measured action.
struct Sample {
    kind: Kind,
    mode: Mode,
    wall: Duration,
    settle: Duration,
    capped: bool,
    correct: bool,
    /// Changes in the diff besides the expected one.
    others: usize,
}

/// One `Open details` run.
struct DialogRun {
    wall: Duration,
    settle: Duration,
    capped: bool,
    complete: bool,
    /// What the diff added under the dialog, when not complete.
    found: String,
}

fn run() -> Fallible<()> {
    let Some(opts) = options()? else {
        return Ok(());
    };
    if opts.browser {
        return browser::run(&opts);
    }
    live::require(&[
        (FACTORY, "gtk-3-examples"),
        ("/usr/bin/python3", "python3-gi gir1.2-gtk-3.0"),
    ])?;
    let machine_start = live::machine();
    let desktop = Desktop::start()?;
    eprintln!("desktop {} up", desktop.display());
    let rt = live::runtime()?;
    let (samples, noops, dialogs) = rt.block_on(measure(&desktop, &opts))?;
    drop(rt);
    // Dropping the desktop stops the applications, the buses and Xvfb.
    drop(desktop);
    print_report(
        &samples,
        &noops,
        &dialogs,
        &opts,
        &machine_start,
        &live::machine(),
    );
    Ok(())
}

/// What [`measure`] measured.
type Measured = (Vec<Sample>, Vec<NoOpSample>, Vec<DialogRun>);

async fn measure(desktop: &Desktop, opts: &Options) -> Fallible<Measured> {
    live::launch(desktop, FACTORY, FACTORY)?;
    live::launch(desktop, FIXTURE, FIXTURE_NAME)?;
    let mut session = live::session(desktop).await?;
    let factory = live::wait_stable(&mut session, FACTORY).await?;
    let fixture = live::wait_stable(&mut session, FIXTURE_NAME).await?;
    let mut expected = initial(&session, fixture, factory)?;
    eprintln!(
        "start: Count: {}, Remember me checked {}, Notes {} characters, checkbutton checked {}",
        expected.count, expected.remember, expected.notes_len, expected.factory_checked
    );

    let mut samples = Vec::new();
    let mut typed = 0usize;
    for round in 0..opts.runs {
        let modes = if round % 2 == 0 {
            [Mode::Auto, Mode::Fixed]
        } else {
            [Mode::Fixed, Mode::Auto]
        };
        for kind in KINDS {
            for mode in modes {
                tokio::time::sleep(PAUSE).await;
                let (action, text) = match kind {
                    Kind::Notes => {
                        typed += 1;
                        let t = format!("<{typed}>");
                        (Action::Type(t.clone()), t)
                    }
                    _ => (Action::Click, String::new()),
                };
                let start = Instant::now();
                let acted =
                    live::act(&mut session, kind.target(), &action, &mode.options()).await?;
                let wall = start.elapsed();
                let (correct, others) = check(kind, &acted.diff, &mut expected, &text);
                eprintln!(
                    "round {round} {} ({}): {:.0} ms, settle {:.0} ms{}, {}{}",
                    kind.label(),
                    mode.label(),
                    live::ms(wall),
                    live::ms(acted.settled.elapsed),
                    if acted.settled.capped { " (cap)" } else { "" },
                    if correct { "ok" } else { "WRONG" },
                    if others > 0 {
                        format!(", {others} other changes")
                    } else {
                        String::new()
                    }
                );
                if !correct || others > 0 {
                    eprint!("{}", live::diff_text(&acted.diff));
                }
                samples.push(Sample {
                    kind,
                    mode,
                    wall,
                    settle: acted.settled.elapsed,
                    capped: acted.settled.capped,
                    correct,
                    others,
                });
            }
        }
    }

    let noops = no_ops(&mut session, opts).await?;

    let mut dialogs = Vec::new();
    for run in 0..opts.dialogs {
        tokio::time::sleep(PAUSE).await;
        let start = Instant::now();
        let acted = live::act(
            &mut session,
            "app:uidelta-fixture >> role:push button && name:Open details",
            &Action::Click,
            &ActOptions::default(),
        )
        .await?;
        let wall = start.elapsed();
        let (complete, found) = dialog_complete(&acted);
        eprintln!(
            "Open details {run}: {:.0} ms, settle {:.0} ms{}, {}",
            live::ms(wall),
            live::ms(acted.settled.elapsed),
            if acted.settled.capped { " (cap)" } else { "" },
            if complete {
                "complete".to_string()
            } else {
                format!("INCOMPLETE: {found}")
            }
        );
        if !complete {
            eprint!("{}", live::diff_text(&acted.diff));
            // Let the dialog finish, so that it can be closed.
            tokio::time::sleep(Duration::from_millis(1500)).await;
        }
        dialogs.push(DialogRun {
            wall,
            settle: acted.settled.elapsed,
            capped: acted.settled.capped,
            complete,
            found,
        });
        let closed = live::act(
            &mut session,
            "app:uidelta-fixture >> role:dialog >> role:push button && name:Close",
            &Action::Click,
            &ActOptions::default(),
        )
        .await?;
        let gone = closed
            .diff
            .changes
            .iter()
            .any(|c| matches!(c, Change::Removed(r) if r.root().name == "Details"));
        if !gone {
            eprintln!(
                "Open details {run}: closing: the diff does not remove the dialog:\n{}",
                live::diff_text(&closed.diff)
            );
        }
    }
    Ok((samples, noops, dialogs))
}

/// Actions that change nothing, `--runs` of each in auto mode and in the
/// baseline (auto deaf to the process's word), interleaved. Each kind
/// starts with one action left out of the count: it gives its window the
/// keyboard (a change).
async fn no_ops(session: &mut Session<Linux>, opts: &Options) -> Fallible<Vec<NoOpSample>> {
    let mut samples = Vec::new();
    for what in NO_OPS {
        no_op(session, what, Mode::Deaf).await?;
        for round in 0..opts.runs {
            let modes = if round % 2 == 0 {
                [Mode::Auto, Mode::Deaf]
            } else {
                [Mode::Deaf, Mode::Auto]
            };
            for mode in modes {
                tokio::time::sleep(PAUSE).await;
                let start = Instant::now();
                let acted = no_op(session, what, mode).await?;
                let wall = start.elapsed();
                let changed = acted.diff.has_changes();
                eprintln!(
                    "round {round} {} ({}): {:.0} ms, settle {:.0} ms{}{}",
                    what.label(),
                    mode.label(),
                    live::ms(wall),
                    live::ms(acted.settled.elapsed),
                    if acted.settled.capped { " (cap)" } else { "" },
                    if changed { ", CHANGED" } else { "" },
                );
                if changed {
                    eprint!("{}", live::diff_text(&acted.diff));
                }
                samples.push(NoOpSample {
                    what,
                    mode,
                    wall,
                    settle: acted.settled.elapsed,
                    capped: acted.settled.capped,
                    changed,
                });
            }
        }
    }
    Ok(samples)
}

/// One action that changes nothing.
async fn no_op(session: &mut Session<Linux>, what: NoOp, mode: Mode) -> Fallible<ActionOutcome> {
    Ok(match what {
        NoOp::Click => {
            let target = "app:uidelta-fixture >> role:push button && name:Do nothing";
            live::act(session, target, &Action::Click, &mode.options()).await?
        }
        NoOp::Key => session
            .key(FIXTURE_NAME, "x", &mode.options())
            .await
            .map_err(|e| format!("key x on the fixture: {e}"))?,
        NoOp::FactoryLabel => {
            let target = "app:gtk3-widget-factory >> role:label && name:Inset";
            live::act(session, target, &Action::Click, &mode.options()).await?
        }
    })
}

/// The state the run starts from, read from the first trees.
fn initial(session: &Session<Linux>, fixture: AppId, factory: AppId) -> Fallible<Expected> {
    let f = &session.known_apps()[fixture];
    let t = f.view.tree();
    let mut count = None;
    let mut remember = None;
    let mut notes_len = None;
    for id in t.ids() {
        let n = t.node(id);
        if n.role == Role::Label {
            if let Some(c) = n.name.strip_prefix("Count: ") {
                count = c.parse::<u64>().ok();
            }
        }
        if n.role == Role::CheckBox && n.name == "Remember me" {
            remember = Some(n.states.contains(State::Checked));
        }
        if n.name == "Notes" && n.states.contains(State::Editable) {
            notes_len = Some(n.value.as_deref().unwrap_or("").chars().count());
        }
    }
    let w = &session.known_apps()[factory];
    let t = w.view.tree();
    let factory_checked = t
        .ids()
        .map(|id| t.node(id))
        .find(|n| {
            n.role == Role::CheckBox && n.name == "checkbutton" && n.states.contains(State::Enabled)
        })
        .map(|n| n.states.contains(State::Checked));
    match (count, remember, notes_len, factory_checked) {
        (Some(count), Some(remember), Some(notes_len), Some(factory_checked)) => Ok(Expected {
            count,
            remember,
            notes_len,
            factory_checked,
        }),
        _ => Err(format!(
            "the first trees lack a control: Count label {count:?}, Remember me {remember:?}, \
             Notes {notes_len:?}, enabled checkbutton {factory_checked:?}"
        )
        .into()),
    }
}

/// Whether the diff holds the change `kind` must make (updating the tracked
/// state), and how many other changes it holds.
fn check(kind: Kind, diff: &Diff, e: &mut Expected, typed: &str) -> (bool, usize) {
    let is = |m: &Modified| -> bool {
        match kind {
            Kind::Count => m.element.role == Role::Label && m.element.name.starts_with("Count: "),
            Kind::Remember => m.element.role == Role::CheckBox && m.element.name == "Remember me",
            Kind::Notes => m.element.name == "Notes",
            Kind::FactoryCheck => {
                m.element.role == Role::CheckBox && m.element.name == "checkbutton"
            }
        }
    };
    // The tracked state moves on whatever the diff says: the action was done.
    match kind {
        Kind::Count => e.count += 1,
        Kind::Remember => e.remember = !e.remember,
        Kind::Notes => e.notes_len += typed.chars().count(),
        Kind::FactoryCheck => e.factory_checked = !e.factory_checked,
    }
    let mut correct = false;
    let mut others = 0;
    for c in &diff.changes {
        let Change::Modified(m) = c else {
            others += 1;
            continue;
        };
        if !is(m) {
            others += 1;
            continue;
        }
        correct = m.changes.iter().any(|a| match (kind, &a.attr, &a.new) {
            (Kind::Count, Attr::Name, AttrValue::Text(t)) => *t == format!("Count: {}", e.count),
            (Kind::Remember, Attr::State(State::Checked), AttrValue::Bool(b)) => *b == e.remember,
            (Kind::FactoryCheck, Attr::State(State::Checked), AttrValue::Bool(b)) => {
                *b == e.factory_checked
            }
            (Kind::Notes, Attr::Value, AttrValue::Text(t)) => {
                t.contains(typed) && t.chars().count() == e.notes_len
            }
            _ => false,
        });
    }
    (correct, others)
}

/// Whether the diff adds the `Details` dialog with all its fields and the
/// Close button; otherwise what it added.
fn dialog_complete(acted: &ActionOutcome) -> (bool, String) {
    let dialog = acted.diff.changes.iter().find_map(|c| match c {
        Change::Added(a) if a.root().name == "Details" => Some(a),
        _ => None,
    });
    let Some(dialog) = dialog else {
        return (false, "no Details dialog in the diff".into());
    };
    let names: Vec<&str> = dialog
        .subtree
        .iter()
        .map(|n| n.element.name.as_str())
        .filter(|n| !n.is_empty())
        .collect();
    let wanted = [
        "Field 1", "Field 2", "Field 3", "Field 4", "Field 5", "Close",
    ];
    let complete = wanted.iter().all(|w| names.contains(w))
        && dialog
            .subtree
            .iter()
            .any(|n| n.element.role == Role::PushButton && n.element.name == "Close");
    (complete, names.join(", "))
}

fn stats(values: &[Duration]) -> (f64, f64) {
    let ms: Vec<f64> = values.iter().copied().map(live::ms).collect();
    (live::percentile(&ms, 50.0), live::percentile(&ms, 95.0))
}

fn print_report(
    samples: &[Sample],
    noops: &[NoOpSample],
    dialogs: &[DialogRun],
    opts: &Options,
    machine_start: &str,
    machine_end: &str,
) {
    println!("## Settle");
    println!();
    println!(
        "Immediate actions, {} of each per mode, interleaved; times in ms, median / p95. \
         \"act\" is the wall time of `Session::act` (resolve the target, act, settle, after \
         snapshot, diff); \"settle\" is `settled.elapsed` (end of the action to the after \
         snapshot).",
        opts.runs
    );
    println!();
    println!("| action | mode | n | act median | act p95 | settle median | settle p95 | cap hit | diff holds the change | diffs with other changes |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let row = |label: &str, mode: Mode, picked: Vec<&Sample>| {
        let walls: Vec<Duration> = picked.iter().map(|s| s.wall).collect();
        let settles: Vec<Duration> = picked.iter().map(|s| s.settle).collect();
        let (wm, wp) = stats(&walls);
        let (sm, sp) = stats(&settles);
        println!(
            "| {label} | {} | {} | {wm:.0} | {wp:.0} | {sm:.0} | {sp:.0} | {} | {}/{} | {} |",
            mode.label(),
            picked.len(),
            picked.iter().filter(|s| s.capped).count(),
            picked.iter().filter(|s| s.correct).count(),
            picked.len(),
            picked.iter().filter(|s| s.others > 0).count(),
        );
    };
    for kind in KINDS {
        for mode in [Mode::Auto, Mode::Fixed] {
            row(
                kind.label(),
                mode,
                samples
                    .iter()
                    .filter(|s| s.kind == kind && s.mode == mode)
                    .collect(),
            );
        }
    }
    for mode in [Mode::Auto, Mode::Fixed] {
        row(
            "**all immediate actions**",
            mode,
            samples.iter().filter(|s| s.mode == mode).collect(),
        );
    }
    let auto: Vec<Duration> = samples
        .iter()
        .filter(|s| s.mode == Mode::Auto)
        .map(|s| s.wall)
        .collect();
    let fixed: Vec<Duration> = samples
        .iter()
        .filter(|s| s.mode == Mode::Fixed)
        .map(|s| s.wall)
        .collect();
    let (am, ap) = stats(&auto);
    let (fm, _) = stats(&fixed);
    println!();
    println!(
        "Target, median under 250 ms for immediate actions: **{am:.0} ms** (p95 {ap:.0} ms) \
         with auto settle, {}; the fixed sleep takes {fm:.0} ms, {:.1}× as long.",
        if am < 250.0 { "met" } else { "missed" },
        if am > 0.0 { fm / am } else { 0.0 }
    );
    println!();

    println!(
        "Actions that change nothing, {} of each per mode, interleaved, with auto settle as \
         it is (a process that says nothing is pending ends the wait) and the baseline, auto \
         settle deaf to it (a wait for a first change up to the 2 s cap); times in ms.",
        opts.runs
    );
    println!();
    println!("| action | mode | n | act median | act p95 | settle median | settle p95 | cap hit | diffs with changes |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for what in NO_OPS {
        for mode in [Mode::Auto, Mode::Deaf] {
            let picked: Vec<&NoOpSample> = noops
                .iter()
                .filter(|s| s.what == what && s.mode == mode)
                .collect();
            let walls: Vec<Duration> = picked.iter().map(|s| s.wall).collect();
            let settles: Vec<Duration> = picked.iter().map(|s| s.settle).collect();
            let (wm, wp) = stats(&walls);
            let (sm, sp) = stats(&settles);
            println!(
                "| {} | {} | {} | {wm:.0} | {wp:.0} | {sm:.0} | {sp:.0} | {} | {}/{} |",
                what.label(),
                mode.label(),
                picked.len(),
                picked.iter().filter(|s| s.capped).count(),
                picked.iter().filter(|s| s.changed).count(),
                picked.len(),
            );
        }
    }
    println!();

    let complete: Vec<&DialogRun> = dialogs.iter().filter(|d| d.complete).collect();
    let walls: Vec<Duration> = complete.iter().map(|d| d.wall).collect();
    let settles: Vec<Duration> = complete.iter().map(|d| d.settle).collect();
    let (wm, wp) = stats(&walls);
    let (sm, sp) = stats(&settles);
    let max = settles.iter().copied().map(live::ms).fold(0.0, f64::max);
    println!(
        "The fixture's `Open details` (dialog 800 ms after the click, filled in over 300 ms), \
         {} runs with auto settle:",
        dialogs.len()
    );
    println!();
    println!("| runs | complete dialog in the diff (5 fields + Close) | cap hit | act median | act p95 | settle median | settle p95 | settle max |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {}/{} | {} | {wm:.0} | {wp:.0} | {sm:.0} | {sp:.0} | {max:.0} |",
        dialogs.len(),
        complete.len(),
        dialogs.len(),
        dialogs.iter().filter(|d| d.capped).count(),
    );
    for (i, d) in dialogs.iter().enumerate().filter(|(_, d)| !d.complete) {
        println!(
            "\nrun {i}: incomplete after {:.0} ms: {}",
            live::ms(d.settle),
            live::cell(&d.found)
        );
    }
    println!();
    println!("machine: {machine_start} at the start, {machine_end} at the end");
}
