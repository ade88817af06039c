//! What the browser tests share: a headless Chromium per test, the web
//! fixtures and this crate's own pages, and ways to find nodes.

#![allow(dead_code)]

use std::path::Path;
use std::time::{Duration, Instant};

use uidelta_backend::{App, Backend, Scope};
use uidelta_cdp::{Cdp, LaunchOptions};
use uidelta_model::{NodeData, NodeId, Role, Snapshot};
use uidelta_testkit::web::{fixtures_dir, Server};

/// A headless Chromium of this test's own. A missing browser fails the
/// test with the command that installs it.
pub async fn browser() -> Cdp {
    match Cdp::launch(LaunchOptions::default()).await {
        Ok(cdp) => cdp,
        Err(e) => panic!("this test needs Chromium: {e}"),
    }
}

/// The workspace's web fixtures (`fixtures/web`).
pub fn fixtures() -> Server {
    Server::start(&fixtures_dir()).expect("serving fixtures/web")
}

/// This crate's own test pages (`tests/pages`).
pub fn pages() -> Server {
    Server::start(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pages"))
        .expect("serving tests/pages")
}

/// Opens `url` in a new tab, as the engine would.
pub async fn open(cdp: &Cdp, url: &str) -> App {
    cdp.open(url, &[], Duration::from_secs(20))
        .await
        .unwrap_or_else(|e| panic!("opening {url}: {e}"))
}

/// A capture of the tab.
pub async fn capture(cdp: &Cdp, app: &App) -> Snapshot {
    cdp.capture(app, &Scope::App)
        .await
        .unwrap_or_else(|e| panic!("capturing {}: {e}", app.label()))
}

/// One line per node: `  role "name" = "value" [identity]`.
pub fn outline(snap: &Snapshot) -> String {
    let t = snap.tree();
    t.ids()
        .map(|id| {
            let n = t.node(id);
            let value = n
                .value
                .as_deref()
                .map(|v| format!(" = {v:?}"))
                .unwrap_or_default();
            format!(
                "{}{} {:?}{value} [{}]\n",
                "  ".repeat(t.depth(id)),
                n.role,
                n.name,
                n.identity.as_deref().unwrap_or("-")
            )
        })
        .collect()
}

/// The nodes with this role and name.
pub fn all<'a>(snap: &'a Snapshot, role: Role, name: &str) -> Vec<(NodeId, &'a NodeData)> {
    let t = snap.tree();
    t.ids()
        .map(|id| (id, t.node(id)))
        .filter(|(_, n)| n.role == role && n.name == name)
        .collect()
}

/// The one node with this role and name; fails the test showing the tree.
pub fn find<'a>(snap: &'a Snapshot, role: Role, name: &str) -> &'a NodeData {
    match all(snap, role, name).as_slice() {
        [(_, one)] => one,
        [] => panic!("no {role} {name:?} in\n{}", outline(snap)),
        many => panic!("{} nodes {role} {name:?} in\n{}", many.len(), outline(snap)),
    }
}

/// The nodes that show this text: a text of their own (`static`), or, for
/// an element holding that one text and nothing else, their name.
pub fn all_text<'a>(snap: &'a Snapshot, text: &str) -> Vec<(NodeId, &'a NodeData)> {
    let t = snap.tree();
    t.ids()
        .map(|id| (id, t.node(id)))
        .filter(|(id, n)| {
            n.name == text
                && (n.role == Role::Static || t.children(*id).is_empty())
                && !n.states.contains(uidelta_model::State::Focusable)
        })
        .collect()
}

/// The one node showing this text (see [`all_text`]).
pub fn find_text<'a>(snap: &'a Snapshot, text: &str) -> &'a NodeData {
    match all_text(snap, text).as_slice() {
        [(_, one)] => one,
        [] => panic!("no text {text:?} in\n{}", outline(snap)),
        many => panic!("{} nodes show {text:?} in\n{}", many.len(), outline(snap)),
    }
}

/// Whether a node shows this text (see [`all_text`]).
pub fn has_text(snap: &Snapshot, text: &str) -> bool {
    !all_text(snap, text).is_empty()
}

/// Whether the snapshot has a node with this role and name.
pub fn has(snap: &Snapshot, role: Role, name: &str) -> bool {
    !all(snap, role, name).is_empty()
}

/// Captures until `ready` holds (the page reacts asynchronously) and
/// returns that capture; fails after 10 s showing the last tree.
pub async fn until(
    cdp: &Cdp,
    app: &App,
    what: &str,
    ready: impl Fn(&Snapshot) -> bool,
) -> Snapshot {
    let started = Instant::now();
    loop {
        let snap = capture(cdp, app).await;
        if ready(&snap) {
            return snap;
        }
        if started.elapsed() > Duration::from_secs(10) {
            panic!("never saw {what}; the last tree:\n{}", outline(&snap));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The tab's current app entry (its title may have changed).
pub async fn refreshed(cdp: &Cdp, app: &App) -> App {
    cdp.apps()
        .await
        .expect("listing tabs")
        .into_iter()
        .find(|a| a.id == app.id)
        .unwrap_or_else(|| panic!("{} is no longer listed", app.label()))
}
