//! Live mirrors against whole walks: what the capture after an action
//! costs when the backend reads again only what the application's events
//! named (`UIDELTA_MIRROR=on`, the default), against a whole walk of the
//! same application at the same moment, over the 79 steps of the token
//! study (`tokens`: 61 on gtk3-widget-factory, 18 on gtk3-demo).
//!
//! `cargo run --release -p uidelta-bench --bin mirror`
//!
//! Per step: the engine acts (`Session::act`, auto settle); the capture it
//! made after the action went through the application's mirror, and its
//! snapshot says how long it took (`capture_ms`: the ping, the reads, the
//! rules, the assembly and the placing on the display). Right after, a
//! second backend with mirrors off walks the same application whole, timed
//! the same way, and the two snapshots are compared node for node (bounds
//! included). Prints markdown on stdout; progress on stderr.

use std::process::ExitCode;

use uidelta_atspi::differences;
use uidelta_backend::Backend;
use uidelta_engine::ActOptions;
use uidelta_linux::{Linux, MirrorUse, Scope};
use uidelta_testkit::Desktop;

#[path = "mirror/browser.rs"]
mod browser;
#[allow(dead_code)]
mod live;
#[path = "mirror/times.rs"]
mod times;

use live::task::TASK;
use live::{Fallible, DEMO, FACTORY};

/// What one step measured.
struct Row {
    app: &'static str,
    what: &'static str,
    nodes: usize,
    mirror_ms: f64,
    whole_ms: f64,
    /// Where the mirrored capture and the whole walk differ, if anywhere.
    differ: Vec<String>,
    /// Whether they still differed a second later (a mirror that missed
    /// a change), rather than only at first (a change still coming in).
    persists: bool,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mirror benchmark failed: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Fallible<()> {
    let mut args = std::env::args().skip(1);
    if let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            println!(
                "usage: mirror            replays the token study (markdown on stdout, progress \
                 on stderr)\n       mirror --browser     one-item changes of the big pages, \
                 through the page's mirror and read whole\n       mirror --times FILE  sums \
                 up the times a run with UIDELTA_MIRROR=check UIDELTA_MIRROR_TIMES=FILE wrote"
            );
            return Ok(());
        }
        if arg == "--browser" {
            return browser::run();
        }
        if arg == "--times" {
            let path = args.next().ok_or("--times needs a file")?;
            return times::report(std::path::Path::new(&path));
        }
        return Err(format!("unknown argument `{arg}` (try --help)").into());
    }
    if std::env::var("UIDELTA_MIRROR").is_ok_and(|v| !v.is_empty() && v != "on") {
        return Err("UIDELTA_MIRROR must be unset or `on` for this benchmark".into());
    }
    live::require(&[(FACTORY, "gtk-3-examples"), (DEMO, "gtk-3-examples")])?;
    let machine_start = live::machine();
    let desktop = Desktop::start()?;
    eprintln!("desktop {} up", desktop.display());
    let rt = live::runtime()?;
    let rows = rt.block_on(task(&desktop))?;
    drop(rt);
    drop(desktop);
    report(&rows, &machine_start, &live::machine());
    Ok(())
}

async fn task(desktop: &Desktop) -> Fallible<Vec<Row>> {
    let mut session = live::session(desktop).await?;
    let mut whole = Linux::connect(Some(desktop.session_bus_address()), Some(desktop.display()))
        .await
        .map_err(|e| format!("connecting to the desktop {}: {e}", desktop.display()))?;
    whole.set_mirror_use(MirrorUse::Off, true);
    let mut launched: Vec<&str> = Vec::new();
    let mut rows = Vec::new();
    for (n, step) in TASK.iter().enumerate() {
        let n = n + 1;
        if !launched.contains(&step.app) {
            live::launch(desktop, step.app, step.app)?;
            live::wait_stable(&mut session, step.app).await?;
            launched.push(step.app);
        }
        let selector = format!("app:{} >> {}", step.app, step.target);
        live::act(
            &mut session,
            &selector,
            &step.act.action(),
            &ActOptions::default(),
        )
        .await
        .map_err(|e| format!("step {n} ({}): {e}", step.what))?;
        let idx = live::app_id_of(&session, step.app)?;
        let known = &session.known_apps()[idx];
        let mirrored = &known.snapshot;
        let walked = live::bounded(whole.capture(&known.app, &Scope::App), "a whole walk")
            .await?
            .map_err(|e| format!("step {n} ({}): a whole walk: {e}", step.what))?;
        let differ: Vec<String> = differences(mirrored, &walked, 5, true)
            .iter()
            .map(|d| d.to_string())
            .collect();
        // A difference is the mirror's fault only if it stays: a change
        // still coming in when the mirror read (an animation ending) shows
        // in the whole walk first, and in the mirror once its events came.
        let mut persists = false;
        if !differ.is_empty() {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            let again = live::bounded(
                session.backend().capture(&known.app, &Scope::App),
                "a capture through the mirror",
            )
            .await?
            .map_err(|e| format!("step {n} ({}): a capture: {e}", step.what))?;
            let walked = live::bounded(whole.capture(&known.app, &Scope::App), "a whole walk")
                .await?
                .map_err(|e| format!("step {n} ({}): a whole walk: {e}", step.what))?;
            persists = !differences(&again, &walked, 1, true).is_empty();
        }
        let row = Row {
            app: step.app,
            what: step.what,
            nodes: mirrored.node_count(),
            mirror_ms: mirrored.meta.capture_ms.unwrap_or(f64::NAN),
            whole_ms: walked.meta.capture_ms.unwrap_or(f64::NAN),
            differ,
            persists,
        };
        eprintln!(
            "== step {n}: {} ({}): mirror {:.1} ms, whole walk {:.1} ms, {} nodes{}",
            row.what,
            row.app,
            row.mirror_ms,
            row.whole_ms,
            row.nodes,
            if row.differ.is_empty() {
                String::new()
            } else {
                format!(
                    "; DIFFER ({}): {}",
                    if row.persists {
                        "persists"
                    } else {
                        "caught up"
                    },
                    row.differ.join("; ")
                )
            }
        );
        rows.push(row);
    }
    let (walks, parts) = session.backend().mirror_readings();
    eprintln!("captures through mirrors: {walks} whole walks, {parts} read in part");
    Ok(rows)
}

fn report(rows: &[Row], machine_start: &str, machine_end: &str) {
    println!("Machine at the start: {machine_start}; at the end: {machine_end}.");
    println!();
    println!("| app | steps | nodes (median) | mirror, median / p90 | whole walk, median / p90 | whole ÷ mirror (medians) | steps that differ (still a second later) |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for app in [FACTORY, DEMO] {
        let of: Vec<&Row> = rows.iter().filter(|r| r.app == app).collect();
        if of.is_empty() {
            continue;
        }
        let mirror: Vec<f64> = of.iter().map(|r| r.mirror_ms).collect();
        let whole: Vec<f64> = of.iter().map(|r| r.whole_ms).collect();
        let nodes: Vec<f64> = of.iter().map(|r| r.nodes as f64).collect();
        let (m, w) = (
            live::percentile(&mirror, 50.0),
            live::percentile(&whole, 50.0),
        );
        println!(
            "| {app} | {} | {:.0} | {m:.1} ms / {:.1} ms | {w:.1} ms / {:.1} ms | {:.1}× | {} ({}) |",
            of.len(),
            live::percentile(&nodes, 50.0),
            live::percentile(&mirror, 90.0),
            live::percentile(&whole, 90.0),
            w / m,
            of.iter().filter(|r| !r.differ.is_empty()).count(),
            of.iter().filter(|r| r.persists).count(),
        );
    }
    println!();
    println!("| step | app | mirror | whole walk | differs |");
    println!("|---|---|---:|---:|---|");
    for r in rows {
        println!(
            "| {} | {} | {:.1} ms | {:.1} ms | {} |",
            live::cell(r.what),
            r.app,
            r.mirror_ms,
            r.whole_ms,
            if r.differ.is_empty() {
                "no".to_owned()
            } else {
                live::cell(&format!(
                    "{}: {}",
                    if r.persists { "persists" } else { "caught up" },
                    r.differ.join("; ")
                ))
            }
        );
    }
}
