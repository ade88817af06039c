#![allow(dead_code)] // each test crate uses its part
//! What the live engine tests share: a virtual desktop running one real
//! application, a runtime, and a session on the desktop.

use std::sync::Arc;
use std::time::Duration;

use tokio::runtime::Runtime;
use uidelta_engine::{ActionOutcome, Session};
use uidelta_linux::Linux;
use uidelta_testkit::{require_programs, App, Desktop};

/// A private virtual desktop running `program` with `args`, once the
/// application is on the accessibility bus as `app`; `install` says how to
/// get the program (`apt-get install -y ...` packages) when it is missing.
pub fn desktop_with(program: &str, args: &[&str], app: &str, install: &str) -> (Desktop, Runtime) {
    let (desktop, running, rt) = running(program, args, app, install);
    std::mem::forget(running);
    (desktop, rt)
}

/// [`desktop_with`], and the program's process, for a test that ends it.
pub fn running(program: &str, args: &[&str], app: &str, install: &str) -> (Desktop, App, Runtime) {
    require_programs(&[("Xvfb", "xvfb"), (program, install)]).expect("programs");
    let desktop = Desktop::start().expect("a virtual desktop");
    let running = desktop.launch(program, args).expect("launch");
    desktop
        .wait_for_accessible_app(app, Duration::from_secs(30))
        .unwrap_or_else(|e| {
            panic!("{app} on the accessibility bus (apt-get install -y {install}): {e}")
        });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    (desktop, running, rt)
}

/// A session on the desktop's accessibility bus and display.
pub async fn session(desktop: &Desktop) -> Session<Linux> {
    log_if_asked();
    let linux = Linux::connect(Some(desktop.session_bus_address()), Some(desktop.display()))
        .await
        .expect("connect");
    Session::new(Arc::new(linux))
}

/// With `UIDELTA_LOG` set (a filter: `uidelta_engine=trace`), what the
/// library logs goes to standard error, as the command line's does.
pub fn log_if_asked() {
    let Ok(spec) = std::env::var("UIDELTA_LOG") else {
        return;
    };
    match tracing_subscriber::EnvFilter::try_new(&spec) {
        Ok(filter) => {
            // Set once per test binary: the first test's stands.
            let _ = tracing_subscriber::fmt()
                .with_env_filter(filter)
                .with_writer(std::io::stderr)
                .try_init();
        }
        Err(e) => panic!("UIDELTA_LOG={spec:?} is not a filter: {e}"),
    }
}

/// The diff of an action as text.
pub fn text(a: &ActionOutcome) -> String {
    uidelta_render::diff_text(&a.diff, &uidelta_render::DiffOptions::default())
}

/// The ref of the one element `selector` matches now.
pub fn ref_of(s: &Session<Linux>, selector: &str) -> String {
    let hits = s.find(&selector.parse().expect("selector"));
    assert_eq!(hits.len(), 1, "`{selector}` should match one element");
    let (scope, node) = hits[0];
    s.known_apps()[scope].refs.get(node).to_string()
}

/// Asserts that the diff has `line` as one of its lines.
pub fn holds(a: &ActionOutcome, line: &str) {
    let t = text(a);
    assert!(t.lines().any(|l| l == line), "no line {line:?} in:\n{t}");
}

/// The names of the links of `diff` (a diff's text) that start with `menu`
/// (`Women` for `Women 1` ... `Women 8`): the items of a menu of
/// `fixtures/web/shop.html` that the diff shows.
pub fn menu_links(diff: &str, menu: &str) -> Vec<String> {
    diff.lines()
        .filter_map(|l| l.trim_start().split_once("] link \""))
        .map(|(_, name)| name.trim_end_matches('"').to_owned())
        .filter(|name| name.starts_with(&format!("{menu} ")))
        .collect()
}

/// `menu 1` ... `menu 8`: all the items of a menu of `shop.html`.
pub fn eight_links(menu: &str) -> Vec<String> {
    (1..=8).map(|k| format!("{menu} {k}")).collect()
}

/// The `[eN]` of the list that `diff` (a diff's text) adds: the menu of
/// `shop.html` that shows (its list item, which says nothing, is left out
/// as it was while it held the button alone).
pub fn added_list(diff: &str) -> String {
    let line = diff
        .lines()
        .find(|l| l.starts_with("+ [") && l.contains("] list in ["))
        .unwrap_or_else(|| panic!("no list added:\n{diff}"));
    let close = line.find(']').map_or(2, |i| i + 1);
    line[2..close].to_owned()
}

/// Whether `diff` (a diff's text) removes the list `list` (`[e21]`), a
/// menu of eight links.
pub fn removes_menu(diff: &str, list: &str) -> bool {
    diff.lines().any(|l| {
        l.starts_with(&format!("- {list} list in [")) && l.ends_with("(and 8 descendants)")
    })
}
