//! `--browser`: a page's live mirror against a whole read, on the two big
//! pages of the browser benchmark (`links.html`: 10,000 links in list
//! items; `table.html`: 2,500 rows of a link, a button and a check box),
//! after changes of one item each: one added, one removed, one renamed,
//! one box checked; and on `shop.html` (2,000 products under six menus
//! that style rules show while the pointer is over them), after clicks:
//! a menu opened by the pointer, a product added to the cart (which shows
//! a paragraph by a rule on its button's sibling, closes the menu and
//! changes the cart's generated content).
//!
//! Per change: the change is made by a script in the page or a click, and
//! the page is left 300 ms to render it; the capture after it goes through the page's mirror, and right after it the same
//! connection reads the page whole (`MirrorUse::Strict`: the two trees
//! must be the same node for node, bounds aside, or the run fails). Both
//! are timed as their snapshots say (`capture_ms`), through
//! `set_mirror_times`.

use std::path::Path;

use uidelta_backend::{Action, Backend, Scope};
use uidelta_cdp::{Cdp, LaunchOptions, MirrorUse};
use uidelta_model::Role;
use uidelta_testkit::web::{fixtures_dir, Server};

use super::live::{self, Fallible};

/// Changes of one item per page, each made `ROUNDS` times (at other items).
const ROUNDS: usize = 5;

/// How long the page is left to render a change before the capture. The
/// engine's settling waits at least this long for quiet after an action;
/// right after a change, Chromium's main thread is busy laying out the
/// page (30-60 ms on these pages) and answers nothing else.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(300);

/// How a change is made.
enum Make {
    /// By this script in the page.
    Script(String),
    /// By a click on the element with this role and name.
    Click(Role, String),
}

/// The changes of one page: what, and how it is made in round `k`.
type Change = (&'static str, fn(usize) -> Make);

const LINKS: &[Change] = &[
    ("a link added", |k| {
        Make::Script(format!(
            "const li = document.createElement('li'); const a = document.createElement('a'); \
             a.href = '#new-{k}'; a.textContent = 'New link {k}'; li.append(a); \
             const list = document.getElementById('links'); \
             list.insertBefore(li, list.children[{}])",
            k * 1999 % 9000
        ))
    }),
    ("a link removed", |k| {
        Make::Script(format!(
            "document.getElementById('links').children[{}].remove()",
            k * 2503 % 9000 + 1
        ))
    }),
    ("a link renamed", |k| {
        Make::Script(format!(
            "document.getElementById('links').children[{}].firstChild.textContent = 'Renamed {k}'",
            k * 3001 % 9000 + 2
        ))
    }),
];

const TABLE: &[Change] = &[
    ("a box checked", |k| {
        Make::Script(format!(
            "document.querySelectorAll('#rows input')[{}].click()",
            k * 499 % 2400
        ))
    }),
    ("a row added", |k| {
        Make::Script(format!(
            "const body = document.getElementById('rows'); \
             const row = body.children[0].cloneNode(true); \
             row.querySelector('a').textContent = 'Order new {k}'; \
             body.insertBefore(row, body.children[{}])",
            k * 613 % 2400
        ))
    }),
    ("an order renamed", |k| {
        Make::Script(format!(
            "document.querySelectorAll('#rows a')[{}].textContent = 'Order renamed {k}'",
            k * 701 % 2400 + 3
        ))
    }),
];

const SHOP: &[Change] = &[
    ("a menu opened by the pointer", |k| {
        let menus = ["Women", "Men", "Children", "Home", "Garden", "Sale"];
        Make::Click(Role::PushButton, menus[k % menus.len()].to_owned())
    }),
    ("a product added to the cart", |k| {
        Make::Click(Role::ToggleButton, format!("Add {}", k * 397 % 1900 + 1))
    }),
];

/// Runs the changes and prints the table.
pub(super) fn run() -> Fallible<()> {
    let server = Server::start(&fixtures_dir())?;
    let times =
        std::env::temp_dir().join(format!("uidelta-mirror-browser-{}.tsv", std::process::id()));
    let _ = std::fs::remove_file(&times);
    let machine_start = live::machine();
    let rt = live::runtime()?;
    let rows = rt.block_on(measure(&server, &times));
    let text = std::fs::read_to_string(&times).unwrap_or_default();
    let _ = std::fs::remove_file(&times);
    let rows = rows?;
    report(&rows, &text, &machine_start, &live::machine())
}

/// Per change: the page, what, and the lines of the times file it wrote.
struct Row {
    page: &'static str,
    what: &'static str,
    lines: std::ops::Range<usize>,
}

async fn measure(server: &Server, times: &Path) -> Fallible<Vec<Row>> {
    let mut cdp = Cdp::launch(LaunchOptions::default())
        .await
        .map_err(|e| format!("starting Chromium: {e}"))?;
    cdp.set_mirror_use(MirrorUse::Strict);
    cdp.set_mirror_times(Some(times.to_owned()));
    let mut rows = Vec::new();
    for (page, changes) in [
        ("links.html", LINKS),
        ("table.html", TABLE),
        ("shop.html", SHOP),
    ] {
        let app = cdp
            .open(&server.url(page), &[], std::time::Duration::from_secs(30))
            .await
            .map_err(|e| format!("opening {page}: {e}"))?;
        let _events = cdp.events(&app).await?;
        let mut last = live::bounded(cdp.capture(&app, &Scope::App), "the first capture").await??;
        eprintln!("{page}: {} nodes", last.node_count());
        for k in 0..ROUNDS {
            for (what, make) in changes {
                let before = lines(times);
                match make(k + 1) {
                    // In a block: the page's own script has globals of its own.
                    Make::Script(script) => {
                        cdp.evaluate(&app.id, &format!("{{ {script} }}"))
                            .await
                            .map_err(|e| format!("{page}, {what}: {e}"))?;
                    }
                    Make::Click(role, name) => {
                        let tree = last.tree();
                        let node = tree
                            .ids()
                            .map(|id| tree.node(id))
                            .find(|n| n.role == role && n.name == name)
                            .ok_or_else(|| format!("{page}: no {role:?} {name:?} to click"))?;
                        cdp.act(&app, node, &Action::Click)
                            .await
                            .map_err(|e| format!("{page}, {what}: {e}"))?;
                    }
                }
                // The page renders the change first, as the engine's
                // settling waits for it to.
                tokio::time::sleep(SETTLE).await;
                let snap = live::bounded(cdp.capture(&app, &Scope::App), "a capture")
                    .await?
                    .map_err(|e| format!("{page}, {what}: {e}"))?;
                let read = cdp.last_capture();
                eprintln!(
                    "{page}, {what}: {} ({} nodes read), {:.1} ms",
                    if read.through_mirror {
                        "through the mirror"
                    } else {
                        read.why_whole
                    },
                    read.read_from_chromium,
                    snap.meta.capture_ms.unwrap_or_default()
                );
                last = snap;
                rows.push(Row {
                    page,
                    what,
                    lines: before..lines(times),
                });
            }
        }
    }
    Ok(rows)
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

fn report(rows: &[Row], times: &str, machine_start: &str, machine_end: &str) -> Fallible<()> {
    let lines: Vec<Vec<&str>> = times.lines().map(|l| l.split('\t').collect()).collect();
    println!("Machine at the start: {machine_start}; at the end: {machine_end}.");
    println!();
    println!(
        "| page | change | captures | read in part | through the mirror, median (max) | \
         whole read, median | whole ÷ mirror (medians) |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|");
    let mut groups: Vec<(&str, &str)> = rows.iter().map(|r| (r.page, r.what)).collect();
    groups.dedup();
    groups.sort();
    groups.dedup();
    for (page, what) in groups {
        let mut mirror = Vec::new();
        let mut whole = Vec::new();
        let mut part = 0;
        for row in rows.iter().filter(|r| r.page == page && r.what == what) {
            for line in &lines[row.lines.clone()] {
                let [_, how, m, w] = line.as_slice() else {
                    return Err(format!(
                        "a line of the times file is not app, how, ms, ms: {line:?}"
                    )
                    .into());
                };
                part += usize::from(*how == "part");
                mirror.push(m.parse::<f64>()?);
                whole.push(w.parse::<f64>()?);
            }
        }
        let (m, w) = (
            live::percentile(&mirror, 50.0),
            live::percentile(&whole, 50.0),
        );
        let max = mirror.iter().copied().fold(0.0, f64::max);
        println!(
            "| {page} | {what} | {} | {part} | {m:.1} ms ({max:.1} ms) | {w:.0} ms | {:.0}× |",
            mirror.len(),
            w / m
        );
    }
    Ok(())
}
