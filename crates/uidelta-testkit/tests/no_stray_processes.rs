//! Nothing a desktop starts may survive it: not after a normal drop, not after a panic in the
//! test body, not when an app was frozen with SIGSTOP.
//!
//! This file holds a single test, so that no other test of the same binary starts processes
//! while it compares the descendants of this process before and after.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use uidelta_testkit::{require_programs, Desktop};

const DELIBERATE: &str = "a deliberate panic in a test body that owns a desktop";

/// Live (non-zombie) descendants of this process, from the parent links in `/proc/*/stat`.
fn descendants() -> BTreeSet<u32> {
    let mut children: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for entry in std::fs::read_dir("/proc").expect("listing /proc").flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.first() == Some(&"Z") {
            continue;
        }
        if let Some(ppid) = fields.get(1).and_then(|ppid| ppid.parse::<u32>().ok()) {
            children.entry(ppid).or_default().push(pid);
        }
    }
    let mut found = BTreeSet::new();
    let mut stack = vec![std::process::id()];
    while let Some(pid) = stack.pop() {
        for &child in children.get(&pid).into_iter().flatten() {
            if found.insert(child) {
                stack.push(child);
            }
        }
    }
    found
}

/// Whether `pid` still exists in any form, zombies included: a zombie left behind is a leak too.
fn exists(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Starts a desktop with a real application, checks that its processes are found, and returns
/// the desktop and their pids.
fn busy_desktop() -> (Desktop, Vec<u32>) {
    let desktop = Desktop::start().expect("starting a virtual desktop");
    let app = desktop
        .launch("gtk3-widget-factory", &[])
        .expect("launching gtk3-widget-factory");
    desktop
        .wait_for_accessible_app("gtk3-widget-factory", Duration::from_secs(20))
        .expect("gtk3-widget-factory on the accessibility bus");
    let frozen = desktop.launch("sleep", &["600"]).expect("launching sleep");
    frozen.stop();
    let inside = desktop.processes();
    // Xvfb, the session bus, the bus launcher, the accessibility bus, the registry, two apps.
    let names: Vec<String> = inside
        .iter()
        .map(|pid| {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            format!("{pid} {}", comm.trim())
        })
        .collect();
    assert!(
        inside.len() >= 7,
        "expected at least 7 processes in the desktop, found {names:?}"
    );
    assert!(inside.contains(&app.pid) && inside.contains(&frozen.pid));
    (desktop, inside)
}

fn assert_gone(inside: &[u32], before: &BTreeSet<u32>, how: &str) {
    let survivors: Vec<u32> = inside.iter().copied().filter(|&pid| exists(pid)).collect();
    assert!(
        survivors.is_empty(),
        "{how}: processes of the desktop survived: {survivors:?}"
    );
    let after = descendants();
    let new: Vec<&u32> = after.difference(before).collect();
    assert!(
        new.is_empty(),
        "{how}: new descendants of the test process remain: {new:?}"
    );
}

#[test]
fn nothing_started_by_a_desktop_survives_it() {
    require_programs(&[
        ("gtk3-widget-factory", "gtk-3-examples"),
        ("sleep", "coreutils"),
    ])
    .expect("test prerequisites");
    let before = descendants();

    let (desktop, inside) = busy_desktop();
    let dropping = Instant::now();
    drop(desktop);
    eprintln!("teardown took {:?}", dropping.elapsed());
    assert_gone(&inside, &before, "after a normal drop");

    // Keep the deliberate panic's message and backtrace out of the test output.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info
            .payload()
            .downcast_ref::<&str>()
            .is_some_and(|text| text.starts_with(DELIBERATE))
        {
            default_hook(info);
        }
    }));
    let recorded = Mutex::new(Vec::new());
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let (_desktop, inside) = busy_desktop();
        *recorded
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = inside;
        std::panic::panic_any(DELIBERATE);
    }));
    assert!(outcome.is_err(), "the closure was meant to panic");
    let inside = recorded
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    assert!(!inside.is_empty());
    assert_gone(&inside, &before, "after a panic");
}
