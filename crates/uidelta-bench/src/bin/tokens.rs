//! Token study: what an agent pays to know what its actions changed, on a
//! scripted task over real applications, when it re-reads the full tree
//! after every step ("full loop") against reading one full tree and then
//! only the diff of each step ("delta loop").
//!
//! `cargo run --release -p uidelta-bench --bin tokens`
//!
//! Starts a private virtual desktop (Xvfb, session bus, accessibility bus)
//! and runs a fixed task of 79 real actions through the engine
//! (`Session::act`, auto settle, default options): 61 on
//! gtk3-widget-factory (check boxes, entries, spin buttons, sliders, radio
//! and toggle buttons, notebook tabs, list rows, the gear menu, the About
//! dialog, and four switches of the window's page: the form filled in
//! twice), then 18 on gtk3-demo (look up the Assistant demo, run it and go
//! through its pages; run the Dialogs demo, fill in its entries, use its
//! interactive dialog and its message box). Each application is launched
//! when the task first needs it, so that its window is on top where clicks
//! go. Every target is found by a selector on the latest tree; a failing
//! action stops the run with a message naming the step.
//!
//! Per step it records the tokens (o200k) and bytes of the diff text the
//! action returned and of the full tree text of the application after the
//! step, the settle time, whether the diff contains the change the step is
//! expected to make, and whether any element that was in the tree before
//! and after the step changed its ref. Totals: the full loop is every
//! application's first full tree plus the full tree after every step; the
//! delta loop is the same first trees plus every diff. Prints markdown on
//! stdout; every diff goes to stderr as the task runs.

use std::collections::HashMap;
use std::process::ExitCode;

use uidelta_bench::terminator::{self, Stripper};
use uidelta_engine::{ActOptions, AppId, Session};
use uidelta_linux::Linux;
use uidelta_render::size;
use uidelta_testkit::Desktop;

#[allow(dead_code)]
mod live;

use live::task::TASK;
use live::{Fallible, DEMO, FACTORY};

/// What one step measured.
struct Row {
    app: &'static str,
    what: &'static str,
    act: String,
    target: String,
    diff_tokens: usize,
    diff_bytes: usize,
    full_tokens: usize,
    full_bytes: usize,
    counts: String,
    settle_ms: u64,
    capped: bool,
    seen: bool,
    /// The diff leaves added elements out (`+ ... and 5 more combo box`,
    /// `... 50 more nodes under [e307]`): an agent that needs them reads
    /// the tree.
    elides: bool,
    missing: Vec<&'static str>,
    refs_moved: usize,
    /// Elements that were in an earlier tree, left, and came back in this
    /// step's tree (same platform identity) under a new ref.
    new_refs: usize,
    app_switch: Option<String>,
    /// terminator's approach on the same two captured trees: the changed
    /// lines of its compact YAML after stripping ids and bounds.
    t_diff_tokens: usize,
    /// terminator's compact YAML of the whole captured tree after the step.
    t_full_tokens: usize,
    /// terminator's line diff has no line at all for this step.
    t_blind: bool,
}

/// An application's first full tree, read once in both loops.
struct First {
    app: &'static str,
    tokens: usize,
    bytes: usize,
    nodes: usize,
    /// terminator's compact YAML of the same captured tree.
    t_tokens: usize,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("token study failed: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Fallible<()> {
    if let Some(arg) = std::env::args().nth(1) {
        if arg == "-h" || arg == "--help" {
            println!("usage: tokens (no options; markdown on stdout, diffs on stderr)");
            return Ok(());
        }
        return Err(format!("unknown argument `{arg}` (try --help)").into());
    }
    live::require(&[(FACTORY, "gtk-3-examples"), (DEMO, "gtk-3-examples")])?;
    let machine_start = live::machine();
    let desktop = Desktop::start()?;
    eprintln!("desktop {} up", desktop.display());
    let rt = live::runtime()?;
    let (firsts, rows) = rt.block_on(task(&desktop))?;
    drop(rt);
    // Dropping the desktop stops the applications, the buses and Xvfb.
    drop(desktop);
    print_report(&firsts, &rows, &machine_start, &live::machine());
    Ok(())
}

async fn task(desktop: &Desktop) -> Fallible<(Vec<First>, Vec<Row>)> {
    let stripper = &Stripper::new();
    let mut session = live::session(desktop).await?;
    let mut firsts: Vec<First> = Vec::new();
    let mut rows = Vec::new();
    // Platform identity -> the ref it had when last seen.
    let mut known: HashMap<String, String> = HashMap::new();
    for (n, step) in TASK.iter().enumerate() {
        let n = n + 1;
        if !firsts.iter().any(|f| f.app == step.app) {
            live::launch(desktop, step.app, step.app)?;
            let idx = live::wait_stable(&mut session, step.app).await?;
            let text = live::tree_text(&session, idx);
            let s = size(&text);
            eprintln!(
                "== {}: first full tree, {} nodes, {} tokens",
                step.app,
                session.known_apps()[idx].view.len(),
                s.tokens
            );
            known.extend(identities(&session, idx));
            firsts.push(First {
                app: step.app,
                tokens: s.tokens,
                bytes: s.bytes,
                nodes: session.known_apps()[idx].view.len(),
                t_tokens: size(&terminator::render(
                    session.known_apps()[idx].snapshot.tree(),
                ))
                .tokens,
            });
        }
        let idx = live::app_id_of(&session, step.app)?;
        let before = identities(&session, idx);
        let before_tree = session.known_apps()[idx].snapshot.tree().clone();
        let selector = format!("app:{} >> {}", step.app, step.target);
        let acted = live::act(
            &mut session,
            &selector,
            &step.act.action(),
            &ActOptions::default(),
        )
        .await
        .map_err(|e| format!("step {n} ({}): {e}", step.what))?;
        let after = identities(&session, idx);
        let refs_moved = before
            .iter()
            .filter(|(id, r)| after.get(*id).is_some_and(|a| a != *r))
            .count();
        let new_refs = after
            .iter()
            .filter(|(id, r)| !before.contains_key(*id) && known.get(*id).is_some_and(|k| k != *r))
            .count();
        known.extend(after);
        // What changed before the action and an app switch are read too.
        let diff = acted.text(&uidelta_render::DiffOptions::default());
        let app_switch = acted
            .app_switch
            .as_ref()
            .map(|switch| switch.app.name.clone());
        let full = live::tree_text(&session, idx);
        let (d, f) = (size(&diff), size(&full));
        let after_tree = session.known_apps()[idx].snapshot.tree();
        let t_lines = terminator::diff_trees(stripper, &before_tree, after_tree);
        let t_diff: String = t_lines.iter().map(|l| format!("{l}\n")).collect();
        let t_full = size(&terminator::render(after_tree));
        let missing: Vec<&'static str> = step
            .expect
            .iter()
            .copied()
            .filter(|e| !has_line(&diff, e))
            .collect();
        let c = acted.diff.counts();
        eprintln!(
            "== step {n}: {} ({} {}): diff {} tokens, full tree {} tokens{}",
            step.what,
            step.act.label(),
            acted.target.r#ref,
            d.tokens,
            f.tokens,
            if missing.is_empty() {
                String::new()
            } else {
                format!("; EXPECTED BUT MISSING: {missing:?}")
            }
        );
        eprint!("{diff}");
        eprintln!(
            "-- terminator's line diff, {} tokens:",
            size(&t_diff).tokens
        );
        eprint!("{t_diff}");
        rows.push(Row {
            app: step.app,
            what: step.what,
            act: step.act.label(),
            target: if acted.target.name.is_empty() {
                format!("[{}] {}", acted.target.r#ref, acted.target.role)
            } else {
                format!(
                    "[{}] {} {:?}",
                    acted.target.r#ref, acted.target.role, acted.target.name
                )
            },
            diff_tokens: d.tokens,
            diff_bytes: d.bytes,
            full_tokens: f.tokens,
            full_bytes: f.bytes,
            counts: format!("+{} -{} ~{}", c.added, c.removed, c.modified),
            settle_ms: acted.diff.settle_ms.unwrap_or(0),
            capped: acted.settled.capped,
            seen: missing.is_empty(),
            elides: uidelta_bench::elides_added(&diff),
            missing,
            refs_moved,
            new_refs,
            app_switch,
            t_diff_tokens: size(&t_diff).tokens,
            t_full_tokens: t_full.tokens,
            t_blind: t_lines.is_empty(),
        });
    }
    Ok((firsts, rows))
}

/// Whether one line of `text` contains the ` … `-separated pieces of
/// `wanted`, in order.
fn has_line(text: &str, wanted: &str) -> bool {
    text.lines().any(|line| {
        let mut rest = line;
        wanted.split(" … ").all(|piece| match rest.find(piece) {
            Some(at) => {
                rest = &rest[at + piece.len()..];
                true
            }
            None => false,
        })
    })
}

/// Platform identity -> ref of every node of scope `idx` that has one.
fn identities(session: &Session<Linux>, idx: AppId) -> HashMap<String, String> {
    let l = &session.known_apps()[idx];
    let t = l.view.tree();
    t.ids()
        .filter_map(|id| {
            let identity = t.node(id).identity.clone()?;
            Some((identity, l.refs.get(id).to_string()))
        })
        .collect()
}

fn pct(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn print_report(firsts: &[First], rows: &[Row], machine_start: &str, machine_end: &str) {
    let first_tokens: usize = firsts.iter().map(|f| f.tokens).sum();
    let first_bytes: usize = firsts.iter().map(|f| f.bytes).sum();
    let full_tokens: usize = rows.iter().map(|r| r.full_tokens).sum();
    let full_bytes: usize = rows.iter().map(|r| r.full_bytes).sum();
    let diff_tokens: usize = rows.iter().map(|r| r.diff_tokens).sum();
    let diff_bytes: usize = rows.iter().map(|r| r.diff_bytes).sum();
    let full_loop = first_tokens + full_tokens;
    let delta_loop = first_tokens + diff_tokens;
    let full_loop_bytes = first_bytes + full_bytes;
    let delta_loop_bytes = first_bytes + diff_bytes;
    let apps: Vec<&str> = firsts.iter().map(|f| f.app).collect();

    println!("## Tokens");
    println!();
    println!(
        "{} steps over {} (o200k tokens of the text formats).",
        rows.len(),
        apps.join(", ")
    );
    println!();
    println!("| | tokens | bytes |");
    println!("|---|---:|---:|");
    for f in firsts {
        println!(
            "| first full tree of {} ({} nodes) | {} | {} |",
            f.app, f.nodes, f.tokens, f.bytes
        );
    }
    println!(
        "| **full loop**: first trees + the full tree after each of {} steps | {} | {} |",
        rows.len(),
        full_loop,
        full_loop_bytes
    );
    println!(
        "| **delta loop**: first trees + the diff of each step | {} | {} |",
        delta_loop, delta_loop_bytes
    );
    println!(
        "| **delta loop ÷ full loop** (target < 5%) | **{:.1}%** | {:.1}% |",
        pct(delta_loop, full_loop),
        pct(delta_loop_bytes, full_loop_bytes)
    );
    let eliding: Vec<&Row> = rows.iter().filter(|r| r.elides).collect();
    let reread: usize = eliding.iter().map(|r| r.full_tokens).sum();
    let reread_bytes: usize = eliding.iter().map(|r| r.full_bytes).sum();
    println!(
        "| delta loop, plus the full tree after each of the {} diffs that leave added elements \
         out | {} ({:.1}%) | {} ({:.1}%) |",
        eliding.len(),
        delta_loop + reread,
        pct(delta_loop + reread, full_loop),
        delta_loop_bytes + reread_bytes,
        pct(delta_loop_bytes + reread_bytes, full_loop_bytes)
    );
    println!(
        "| diffs ÷ full trees after the steps (first trees left out of both) | {:.1}% | {:.1}% |",
        pct(diff_tokens, full_tokens),
        pct(diff_bytes, full_bytes)
    );
    let per_step: Vec<f64> = rows
        .iter()
        .map(|r| pct(r.diff_tokens, r.full_tokens))
        .collect();
    println!(
        "| median step: diff ÷ full tree | {:.1}% | |",
        live::percentile(&per_step, 50.0)
    );
    // The biggest diffs, as a share of all diff tokens.
    let mut big: Vec<&Row> = rows.iter().collect();
    big.sort_by_key(|r| std::cmp::Reverse(r.diff_tokens));
    let top: Vec<&Row> = big.iter().take(2).copied().collect();
    let top_tokens: usize = top.iter().map(|r| r.diff_tokens).sum();
    let top_full: usize = top.iter().map(|r| r.full_tokens).sum();
    println!(
        "| without the 2 largest diffs ({}): delta ÷ full | {:.1}% | |",
        top.iter().map(|r| r.what).collect::<Vec<_>>().join(", "),
        pct(delta_loop - top_tokens, full_loop - top_full)
    );
    println!();
    println!("Per application:");
    println!();
    println!("| app | steps | first full tree | full loop | delta loop | delta ÷ full |");
    println!("|---|---:|---:|---:|---:|---:|");
    for f in firsts {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.app == f.app).collect();
        let full = f.tokens + mine.iter().map(|r| r.full_tokens).sum::<usize>();
        let delta = f.tokens + mine.iter().map(|r| r.diff_tokens).sum::<usize>();
        println!(
            "| {} | {} | {} | {full} | {delta} | {:.1}% |",
            f.app,
            mine.len(),
            f.tokens,
            pct(delta, full)
        );
    }
    println!();
    print_terminator(firsts, rows, delta_loop);
    println!();
    let seen = rows.iter().filter(|r| r.seen).count();
    let moved: usize = rows.iter().map(|r| r.refs_moved).sum();
    let capped = rows.iter().filter(|r| r.capped).count();
    let new_refs: usize = rows.iter().map(|r| r.new_refs).sum();
    let settle: Vec<f64> = rows.iter().map(|r| r.settle_ms as f64).collect();
    println!(
        "Expected change in the diff: {seen} of {} steps. Elements present before and after a \
         step whose ref changed: {moved}. Elements that left the tree and came back (same \
         platform identity) under a new ref: {new_refs}. Settle (auto): median {:.0} ms, p95 {:.0} ms, max {:.0} \
         ms; cap hit in {capped} steps.",
        rows.len(),
        live::percentile(&settle, 50.0),
        live::percentile(&settle, 95.0),
        live::percentile(&settle, 100.0),
    );
    println!();
    println!("| step | app | action | target | diff | diff tokens | full tree tokens | diff bytes | full tree bytes | terminator diff tokens | settle ms | expected change |");
    println!("|---:|---|---|---|---|---:|---:|---:|---:|---:|---:|---|");
    for (i, r) in rows.iter().enumerate() {
        let mut expected = if r.seen {
            "yes".to_string()
        } else {
            format!("**missing** {}", r.missing.join(", "))
        };
        if r.refs_moved > 0 {
            expected.push_str(&format!("; {} refs moved", r.refs_moved));
        }
        if r.elides {
            expected.push_str("; leaves added elements out");
        }
        if r.new_refs > 0 {
            expected.push_str(&format!("; {} came back under new refs", r.new_refs));
        }
        if let Some(app) = &r.app_switch {
            expected.push_str(&format!("; app switch to {app}"));
        }
        println!(
            "| {} | {} | {}: {} | {} | {} | {} | {} | {} | {} | {} | {}{} | {} |",
            i + 1,
            r.app,
            live::cell(r.what),
            live::cell(&r.act),
            live::cell(&r.target),
            r.counts,
            r.diff_tokens,
            r.full_tokens,
            r.diff_bytes,
            r.full_bytes,
            r.t_diff_tokens,
            r.settle_ms,
            if r.capped { " (cap)" } else { "" },
            live::cell(&expected)
        );
    }
    let t_diff_tokens: usize = rows.iter().map(|r| r.t_diff_tokens).sum();
    println!(
        "| | | | | **total** | **{diff_tokens}** | **{full_tokens}** | {diff_bytes} | {full_bytes} | {t_diff_tokens} | | |"
    );
    println!();
    println!("machine: {machine_start} at the start, {machine_end} at the end");
}

/// The same task as an agent of terminator's kind pays it, on the same
/// captured trees: its compact YAML (ids and bounds included) for a tree,
/// its line diff (ids and bounds stripped) for a change.
fn print_terminator(firsts: &[First], rows: &[Row], delta_loop: usize) {
    let first: usize = firsts.iter().map(|f| f.t_tokens).sum();
    let full_loop = first + rows.iter().map(|r| r.t_full_tokens).sum::<usize>();
    let diff_loop = first + rows.iter().map(|r| r.t_diff_tokens).sum::<usize>();
    let blind: Vec<String> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.t_blind)
        .map(|(i, r)| format!("{} ({})", i + 1, r.what))
        .collect();
    println!(
        "The same steps the way terminator reports them, on the same captured trees (its \
         compact YAML with `#` indices and bounds for a tree; for a change, the lines of a line \
         diff of two such trees after stripping indices and bounds):"
    );
    println!();
    println!("| | tokens | ÷ terminator's full loop |");
    println!("|---|---:|---:|");
    println!(
        "| terminator's full loop: its first trees + its tree after every step | {full_loop} | 100% |"
    );
    println!(
        "| terminator's diff loop: its first trees + its line diff of every step | {diff_loop} | {:.1}% |",
        pct(diff_loop, full_loop)
    );
    println!(
        "| uidelta's delta loop (above) | {delta_loop} | {:.1}% |",
        pct(delta_loop, full_loop)
    );
    println!();
    println!(
        "Steps whose change terminator's line diff does not show at all (no line): {} of {}{}.",
        blind.len(),
        rows.len(),
        if blind.is_empty() {
            String::new()
        } else {
            format!(": {}", blind.join(", "))
        }
    );
}
