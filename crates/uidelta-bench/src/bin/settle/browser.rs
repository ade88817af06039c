//! `settle --browser`: auto settle in a page, where the page says whether
//! work is pending (`page:idle`, [`uidelta_backend::EventKind::Idle`]).
//!
//! Serves `fixtures/web` (testkit's `web::Server`), launches headless
//! Chromium (`Cdp::launch`, default options) and opens
//! `dialog.html?delay=800` as a tab, observed by one session. Then, in
//! `--runs` rounds, two actions that change nothing, each once with auto
//! settle as it is (`ActOptions::default()`, which ends when the page says
//! nothing is pending) and once with the baseline, auto settle that does not
//! listen to the page's word (`Quiet { grace: None, .. }`, the rule before:
//! wait for a first change up to the 2 s cap); which mode goes first
//! alternates by round, with 200 ms of idle before every action:
//!
//! - a click on the heading `Files` (no handler): `Session::act`;
//! - the key `x` pressed in the page, on the body (no handler):
//!   `Session::key`.
//!
//! Then `--dialogs` clicks on `Open dialog` in each mode, interleaved: the
//! page builds its dialog 800 ms after the click (a `setTimeout`) and fills
//! it in over 210 ms; the diff must add the whole dialog (heading,
//! paragraph, `Cancel`, `Delete` focused), opened, without the cap. Each
//! time it is closed again with `Cancel`.
//!
//! Per action: the wall time of the call (what the caller waits for),
//! `settled.elapsed`, whether the cap ended it, and whether the diff holds
//! any change. Markdown on stdout, every action on stderr.

use std::sync::Arc;
use std::time::{Duration, Instant};

use uidelta_backend::{Action, Backend};
use uidelta_cdp::{Cdp, LaunchOptions, INSTALL_HINT};
use uidelta_diff::Change;
use uidelta_engine::{ActOptions, ActionOutcome, Quiet, Session, Settle};
use uidelta_model::Role;
use uidelta_testkit::web::{fixtures_dir, Server};

use crate::live::{self, Fallible};
use crate::{Options, PAUSE};

/// The page, with its dialog 800 ms after the click.
const PAGE: &str = "dialog.html?delay=800";
/// How long the tab may take to load.
const OPEN_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Auto settle as it is.
    Auto,
    /// Auto settle deaf to the page's word that nothing is pending.
    Deaf,
}

impl Mode {
    fn options(self) -> ActOptions {
        match self {
            Mode::Auto => ActOptions::default(),
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
            Mode::Deaf => "baseline: auto without the page's idle",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Click,
    Key,
    Dialog,
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Click => "no-op click (heading `Files`)",
            Kind::Key => "no-op key `x` on the body",
            Kind::Dialog => "click `Open dialog` (dialog at 800 ms)",
        }
    }
}

struct Sample {
    kind: Kind,
    mode: Mode,
    wall: Duration,
    settle: Duration,
    capped: bool,
    /// A no-op: whether the diff holds a change. The dialog: whether it is
    /// complete.
    flag: bool,
}

/// Runs the browser part and prints its report.
pub fn run(opts: &Options) -> Fallible<()> {
    let machine_start = live::machine();
    let server = Server::start(&fixtures_dir())?;
    // As the MCP server runs: diffing on one thread does not hold up the
    // page's event stream on another.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime: {e}"))?;
    let samples = rt.block_on(measure(&server, opts))?;
    drop(rt);
    print_report(&samples, opts, &machine_start, &live::machine());
    Ok(())
}

async fn measure(server: &Server, opts: &Options) -> Fallible<Vec<Sample>> {
    let cdp = Cdp::launch(LaunchOptions::default())
        .await
        .map_err(|e| format!("launching Chromium (install it with `{INSTALL_HINT}`): {e}"))?;
    let url = server.url(PAGE);
    let app = cdp
        .open(&url, &[], OPEN_TIMEOUT)
        .await
        .map_err(|e| format!("opening {url}: {e}"))?;
    let mut session = Session::new(Arc::new(cdp));
    live::bounded(session.observe(&app.id), "observing the tab")
        .await?
        .map_err(|e| format!("observing {url}: {e}"))?;
    let mut samples = Vec::new();
    for round in 0..opts.runs {
        for kind in [Kind::Click, Kind::Key] {
            for mode in order(round) {
                tokio::time::sleep(PAUSE).await;
                let start = Instant::now();
                let acted = match kind {
                    Kind::Click => act(&mut session, "role:heading && name:Files", mode).await?,
                    _ => {
                        let options = mode.options();
                        live::bounded(session.key(&app.id, "x", &options), "pressing x")
                            .await?
                            .map_err(|e| format!("pressing x: {e}"))?
                    }
                };
                let sample = sample(kind, mode, start.elapsed(), &acted, |a| {
                    a.diff.has_changes()
                });
                eprintln!("round {round}: {}", line(&sample));
                if sample.flag {
                    eprint!("{}", live::diff_text(&acted.diff));
                }
                samples.push(sample);
            }
        }
    }
    for run in 0..opts.dialogs {
        for mode in order(run) {
            tokio::time::sleep(PAUSE).await;
            let start = Instant::now();
            let opened = act(&mut session, "role:push button && name:Open dialog", mode).await?;
            let sample = sample(Kind::Dialog, mode, start.elapsed(), &opened, complete);
            eprintln!("dialog {run}: {}", line(&sample));
            if !sample.flag {
                eprint!("{}", live::diff_text(&opened.diff));
                // Let the dialog finish, so that it can be closed.
                tokio::time::sleep(Duration::from_millis(1500)).await;
            }
            samples.push(sample);
            let closed = act(&mut session, "role:push button && name:Cancel", mode).await?;
            let gone = closed
                .diff
                .changes
                .iter()
                .any(|c| matches!(c, Change::Removed(r) if r.root().role == Role::Dialog));
            if !gone {
                return Err(format!(
                    "dialog {run}: Cancel did not close the dialog:\n{}",
                    live::diff_text(&closed.diff)
                )
                .into());
            }
        }
    }
    Ok(samples)
}

/// The modes in the order of round `round`.
fn order(round: usize) -> [Mode; 2] {
    if round % 2 == 0 {
        [Mode::Auto, Mode::Deaf]
    } else {
        [Mode::Deaf, Mode::Auto]
    }
}

async fn act(session: &mut Session<Cdp>, target: &str, mode: Mode) -> Fallible<ActionOutcome> {
    let what = format!("clicking `{target}`");
    live::bounded(session.act(target, &Action::Click, &mode.options()), &what)
        .await?
        .map_err(|e| format!("{what}: {e}").into())
}

fn sample(
    kind: Kind,
    mode: Mode,
    wall: Duration,
    acted: &ActionOutcome,
    flag: impl Fn(&ActionOutcome) -> bool,
) -> Sample {
    Sample {
        kind,
        mode,
        wall,
        settle: acted.settled.elapsed,
        capped: acted.settled.capped,
        flag: flag(acted),
    }
}

fn line(s: &Sample) -> String {
    format!(
        "{} ({}): {:.0} ms, settle {:.0} ms{}{}",
        s.kind.label(),
        s.mode.label(),
        live::ms(s.wall),
        live::ms(s.settle),
        if s.capped { " (cap)" } else { "" },
        match (s.kind, s.flag) {
            (Kind::Dialog, true) => ", complete",
            (Kind::Dialog, false) => ", INCOMPLETE",
            (_, true) => ", CHANGED",
            (_, false) => "",
        }
    )
}

/// Whether the diff adds the whole dialog, opened, with the focus on
/// `Delete`, and nothing else, without the cap.
fn complete(a: &ActionOutcome) -> bool {
    let text = live::diff_text(&a.diff);
    let dialog = a.diff.changes.iter().find_map(|c| match c {
        Change::Added(added) if added.root().role == Role::Dialog => Some(added),
        _ => None,
    });
    let Some(dialog) = dialog else {
        return false;
    };
    let got: Vec<(Role, &str)> = dialog
        .subtree
        .iter()
        .map(|n| (n.element.role, n.element.name.as_str()))
        .collect();
    got == [
        (Role::Dialog, "Confirm delete"),
        (Role::Heading, "Confirm delete"),
        (Role::Paragraph, "Delete report.pdf? This cannot be undone."),
        (Role::PushButton, "Cancel"),
        (Role::PushButton, "Delete"),
    ] && dialog.opened == Some(Role::Dialog)
        && a.diff.changes.len() == 1
        && text.contains("push button \"Delete\" (focused)")
        && !a.settled.capped
}

fn stats(values: impl Iterator<Item = Duration>) -> (f64, f64) {
    let ms: Vec<f64> = values.map(live::ms).collect();
    (live::percentile(&ms, 50.0), live::percentile(&ms, 95.0))
}

fn print_report(samples: &[Sample], opts: &Options, machine_start: &str, machine_end: &str) {
    println!("## Settle in the browser");
    println!();
    println!(
        "{PAGE} in headless Chromium; {} rounds of the no-op actions, {} dialogs per mode; \
         times in ms.",
        opts.runs, opts.dialogs
    );
    println!();
    println!(
        "| action | mode | n | act median | act p95 | settle median | settle p95 | cap hit | \
         diffs with changes / complete dialogs |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut medians = Vec::new();
    for kind in [Kind::Click, Kind::Key, Kind::Dialog] {
        for mode in [Mode::Auto, Mode::Deaf] {
            let of: Vec<&Sample> = samples
                .iter()
                .filter(|s| s.kind == kind && s.mode == mode)
                .collect();
            if of.is_empty() {
                continue;
            }
            let (act50, act95) = stats(of.iter().map(|s| s.wall));
            let (set50, set95) = stats(of.iter().map(|s| s.settle));
            let capped = of.iter().filter(|s| s.capped).count();
            let flagged = of.iter().filter(|s| s.flag).count();
            medians.push((kind, mode, act50));
            println!(
                "| {} | {} | {} | {act50:.0} | {act95:.0} | {set50:.0} | {set95:.0} | {capped} | \
                 {flagged}/{} |",
                kind.label(),
                mode.label(),
                of.len(),
                of.len()
            );
        }
    }
    println!();
    for kind in [Kind::Click, Kind::Key, Kind::Dialog] {
        let median = |mode| {
            medians
                .iter()
                .find(|(k, m, _)| *k == kind && *m == mode)
                .map(|(_, _, v)| *v)
        };
        if let (Some(auto), Some(deaf)) = (median(Mode::Auto), median(Mode::Deaf)) {
            if deaf > 0.0 {
                println!(
                    "- {}: act median auto / baseline = {:.2}",
                    kind.label(),
                    auto / deaf
                );
            }
        }
    }
    println!();
    println!("machine: {machine_start} at the start, {machine_end} at the end");
}
