//! A soak of the server on a real desktop: three clients of one backend
//! while gtk3-widget-factory is typed into without pause. An agent acts
//! every 20 s, another client reads the tree, and a third read it once and
//! went away. Every call must be answered, and the process's memory must
//! stay flat once warm.
//!
//! `soak_short` (2 minutes) runs with the other tests. The 30-minute one
//! runs by hand:
//!
//! ```text
//! cargo test -p uidelta-mcp --test soak -- --ignored --nocapture
//! ```
//!
//! (`UIDELTA_SOAK_MINUTES=10` for another length.) Both print the process's
//! resident memory over time and the calls answered.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::Mutex;
use uidelta_linux::Linux;
use uidelta_mcp::Server;
use uidelta_testkit::{require_programs, Desktop};

use common::{args, text};

const FACTORY: &str = "gtk3-widget-factory";
/// How often the agent acts.
const AGENT_EVERY: Duration = Duration::from_secs(20);
/// How often the other client reads.
const READER_EVERY: Duration = Duration::from_secs(5);
/// How often memory is sampled.
const SAMPLE_EVERY: Duration = Duration::from_secs(5);
/// The empty entry of the first page, and the check box the agent toggles.
const ENTRY: &str = "role:text && state:editable && state:enabled && !state:hidden && nth:0";
const CHECK: &str = "role:check box && state:enabled && !state:indeterminate && nth:0";

/// Calls answered, and the failures among them.
#[derive(Default)]
struct Tally {
    answered: usize,
    failed: Vec<String>,
}

impl Tally {
    async fn call(tally: &Mutex<Tally>, client: &str, s: &Server<Linux>, tool: &str, a: Value) {
        let r = s.call(tool, args(a.clone())).await;
        let mut t = tally.lock().await;
        t.answered += 1;
        if r.is_error != Some(false) {
            t.failed.push(format!("{client}: {tool} {a}: {}", text(&r)));
        }
    }
}

/// The resident memory of this process, in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The pid of the widget factory running in `desktop`.
fn factory_pid(desktop: &Desktop) -> u32 {
    desktop
        .processes()
        .into_iter()
        .find(|&p| {
            std::fs::read_to_string(format!("/proc/{p}/comm"))
                .is_ok_and(|c| FACTORY.starts_with(c.trim()))
        })
        .expect("the widget factory's pid")
}

/// Types into the application's focused element without pause until
/// `stop`: bursts of 200 letters, each then selected and deleted so that
/// the text does not grow. Returns how many letters were typed.
fn type_until(desktop: &Desktop, pid: u32, stop: &AtomicBool) -> usize {
    desktop.focus_window_of(pid);
    let run = |args: &[&str]| {
        let status = desktop
            .command("xdotool")
            .args(args)
            .status()
            .expect("xdotool runs");
        assert!(status.success(), "xdotool {args:?}: {status}");
    };
    let burst: String = "abcdefghijklmnopqrstuvwxyz"
        .chars()
        .cycle()
        .take(200)
        .collect();
    let mut typed = 0;
    while !stop.load(Ordering::Relaxed) {
        run(&["type", "--delay", "3", &burst]);
        run(&["key", "ctrl+a", "BackSpace"]);
        typed += burst.len();
    }
    typed
}

fn soak(length: Duration) {
    require_programs(&[
        ("Xvfb", "xvfb"),
        (FACTORY, "gtk-3-examples"),
        ("xdotool", "xdotool"),
    ])
    .expect("programs for the soak");
    let desktop = Desktop::start().expect("a virtual desktop");
    std::mem::forget(desktop.launch(FACTORY, &[]).expect("launch the factory"));
    desktop
        .wait_for_accessible_app(FACTORY, Duration::from_secs(30))
        .expect("the factory on the accessibility bus");
    let pid = factory_pid(&desktop);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let linux = rt
        .block_on(Linux::connect(
            Some(desktop.session_bus_address()),
            Some(desktop.display()),
        ))
        .expect("connect");
    let linux = Arc::new(linux);
    let agent = Server::new(Arc::clone(&linux));
    let reader = Server::new(Arc::clone(&linux));
    let abandoned = Server::new(Arc::clone(&linux));
    let tally = Arc::new(Mutex::new(Tally::default()));

    // The abandoned client reads the tree once, and the agent focuses the
    // entry, before the typing starts.
    rt.block_on(async {
        let tree = json!({"app": FACTORY});
        Tally::call(
            &tally,
            "abandoned",
            &abandoned,
            "get_window_tree",
            tree.clone(),
        )
        .await;
        Tally::call(&tally, "agent", &agent, "get_window_tree", tree).await;
        let entry = json!({"target": ENTRY});
        Tally::call(&tally, "agent", &agent, "click_element", entry).await;
    });

    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let mut samples: Vec<(Duration, u64)> = Vec::new();
    let typed = std::thread::scope(|scope| {
        let typist = scope.spawn(|| type_until(&desktop, pid, &stop));
        rt.block_on(async {
            let agent_loop = async {
                while start.elapsed() < length {
                    let check = json!({"target": CHECK});
                    Tally::call(&tally, "agent", &agent, "click_element", check).await;
                    // Back to the entry, for the typing.
                    let entry = json!({"target": ENTRY});
                    Tally::call(&tally, "agent", &agent, "click_element", entry).await;
                    tokio::time::sleep(AGENT_EVERY).await;
                }
            };
            let reader_loop = async {
                while start.elapsed() < length {
                    Tally::call(&tally, "reader", &reader, "get_applications", json!({})).await;
                    let tree = json!({"app": FACTORY});
                    Tally::call(&tally, "reader", &reader, "get_window_tree", tree).await;
                    tokio::time::sleep(READER_EVERY).await;
                }
            };
            let sampler = async {
                while start.elapsed() < length {
                    samples.push((start.elapsed(), rss_kib()));
                    tokio::time::sleep(SAMPLE_EVERY).await;
                }
                samples.push((start.elapsed(), rss_kib()));
            };
            tokio::join!(agent_loop, reader_loop, sampler);
        });
        stop.store(true, Ordering::Relaxed);
        typist.join().expect("the typist")
    });
    drop(abandoned);

    let tally = rt.block_on(async { std::mem::take(&mut *tally.lock().await) });
    println!("soak of {} s: {typed} letters typed", length.as_secs());
    println!(
        "calls answered: {}, failed: {}",
        tally.answered,
        tally.failed.len()
    );
    println!("elapsed_s rss_mib");
    for (at, kib) in &samples {
        println!("{:>9} {:>7.1}", at.as_secs(), *kib as f64 / 1024.0);
    }
    assert!(
        tally.failed.is_empty(),
        "{} of {} calls failed:\n{}",
        tally.failed.len(),
        tally.answered,
        tally.failed.join("\n")
    );
    assert!(typed > 0, "nothing was typed");

    // Flat once warm: after the first quarter, the resident memory grows
    // by no more than a quarter of what it was then (allocator slack).
    let warm = length / 4;
    let at_warm = samples
        .iter()
        .find(|(at, _)| *at >= warm)
        .map_or(0, |&(_, kib)| kib);
    let most = samples
        .iter()
        .filter(|(at, _)| *at >= warm)
        .map(|&(_, kib)| kib)
        .max()
        .unwrap_or(0);
    assert!(
        most <= at_warm + at_warm / 4,
        "resident memory grew from {at_warm} KiB at {} s to {most} KiB",
        warm.as_secs()
    );
}

#[test]
fn soak_short() {
    soak(Duration::from_secs(120));
}

#[test]
#[ignore = "30 minutes; run by hand (see the file's doc)"]
fn soak_long() {
    let minutes = std::env::var("UIDELTA_SOAK_MINUTES")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(30);
    soak(Duration::from_secs(60 * minutes));
}
