//! Tabs as applications, closed tabs and browsers, attaching, screenshots,
//! and what a launched browser leaves behind.

mod common;

use std::time::{Duration, Instant};

use common::{browser, capture, find, fixtures, open, pages, refreshed};
use uidelta_backend::{Action, App, Backend, ErrorKind, Navigate, Scope};
use uidelta_cdp::{Cdp, LaunchOptions};
use uidelta_model::{NodeId, Rect, Role};

/// The apps once every tab's title is known (titles arrive after loading).
async fn apps_with(cdp: &Cdp, names: &[&str]) -> Vec<App> {
    let started = Instant::now();
    loop {
        let apps = cdp.apps().await.expect("listing tabs");
        if names.iter().all(|n| apps.iter().any(|a| a.name == *n)) {
            return apps;
        }
        if started.elapsed() > Duration::from_secs(10) {
            panic!("never listed {names:?}: {apps:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn active(apps: &[App]) -> Vec<&str> {
    apps.iter()
        .filter(|a| a.windows.iter().any(|w| w.active))
        .map(|a| a.name.as_str())
        .collect()
}

#[tokio::test]
async fn tabs_open_list_switch_and_close() {
    let server = fixtures();
    let cdp = browser().await;
    let first = cdp.apps().await.expect("listing tabs");
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(first[0].name, "about:blank");

    let form = open(&cdp, &server.url("form.html")).await;
    let controls = open(&cdp, &server.url("controls.html")).await;
    assert_eq!(
        (form.name.as_str(), controls.name.as_str()),
        ("Sign up", "Preferences")
    );
    let apps = apps_with(&cdp, &["Sign up", "Preferences"]).await;
    // The startup tab went when the first page opened.
    assert_eq!(apps.len(), 2);
    assert_eq!(active(&apps), vec!["Preferences"]);
    let listed = apps.iter().find(|a| a.id == form.id).expect("listed");
    assert_eq!(listed.pid, None);
    assert_eq!(listed.windows.len(), 1);
    assert_eq!(listed.windows[0].role, "document web");
    assert_eq!(listed.windows[0].id, form.id);
    assert!(listed.windows[0].showing);

    let done = cdp
        .activate_window(&form, &document("Sign up"))
        .await
        .expect("switch");
    assert_eq!(done.method, "Target.activateTarget + Page.bringToFront");
    assert_eq!(active(&cdp.apps().await.expect("tabs")), vec!["Sign up"]);
    // Keys without an element go to the tab's focused element.
    let snap = capture(&cdp, &form).await;
    cdp.act(&form, find(&snap, Role::Entry, "Name"), &Action::Focus)
        .await
        .expect("focus");
    cdp.key(&form, "Q").await.expect("key");
    assert_eq!(
        cdp.run_script(&form, "document.getElementById('name').value")
            .await
            .expect("value"),
        "\"Q\""
    );

    // Acting in a tab brings it to the front.
    let other = capture(&cdp, &controls).await;
    cdp.act(
        &controls,
        find(&other, Role::CheckBox, "Subscribe to newsletter"),
        &Action::Focus,
    )
    .await
    .expect("focus in the other tab");
    assert_eq!(
        active(&cdp.apps().await.expect("tabs")),
        vec!["Preferences"]
    );

    // A window of another title is not there.
    let err = cdp
        .capture(&form, &Scope::Window("Elsewhere".into()))
        .await
        .expect_err("no such window");
    assert_eq!(err.kind, ErrorKind::NotFound);
    capture(&cdp, &form).await;
    cdp.capture(&form, &Scope::Window("sign".into()))
        .await
        .expect("title prefix");

    let done = cdp
        .close_window(&form, &document("Sign up"))
        .await
        .expect("close");
    assert_eq!(done.method, "Target.closeTarget");
    let started = Instant::now();
    while cdp
        .apps()
        .await
        .expect("tabs")
        .iter()
        .any(|a| a.id == form.id)
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the tab stays listed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Everything on a closed tab says it is gone.
    let node = snap.tree().node(NodeId::ROOT);
    let errors = [
        cdp.capture(&form, &Scope::App).await.map(|_| ()),
        cdp.act(&form, node, &Action::Click).await.map(|_| ()),
        cdp.events(&form).await.map(|_| ()),
        cdp.navigate(&form, &Navigate::Reload).await.map(|_| ()),
        cdp.run_script(&form, "1").await.map(|_| ()),
        cdp.close_window(&form, &document("")).await.map(|_| ()),
        cdp.activate_window(&form, &document("")).await.map(|_| ()),
    ];
    for e in errors {
        let e = e.expect_err("the tab is closed");
        assert_eq!(e.kind, ErrorKind::Gone, "{}", e.message);
        assert!(e.message.contains("the tab is gone"), "{}", e.message);
    }
    // The other tabs are fine.
    capture(&cdp, &refreshed(&cdp, &controls).await).await;
}

#[tokio::test]
async fn the_first_page_opened_takes_the_place_of_the_startup_tab() {
    let server = fixtures();
    let cdp = browser().await;
    let url = server.url("form.html");
    let form = open(&cdp, &url).await;
    // `uidelta --browser --url X` shows X alone, not X and about:blank.
    let tabs: Vec<(String, String)> = cdp
        .tabs()
        .await
        .expect("listing tabs")
        .into_iter()
        .map(|t| (t.id, t.url))
        .collect();
    assert_eq!(tabs, vec![(form.id.clone(), url)]);
    // Later pages open beside it.
    let controls = open(&cdp, &server.url("controls.html")).await;
    let ids: Vec<String> = cdp
        .tabs()
        .await
        .expect("listing tabs")
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(
        ids.contains(&form.id) && ids.contains(&controls.id),
        "{ids:?}"
    );
}

#[tokio::test]
async fn a_tab_a_page_opens_becomes_active() {
    let server = pages();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("widgets.html")).await;
    let snap = capture(&cdp, &app).await;
    cdp.act(
        &app,
        find(&snap, Role::Link, "Open another"),
        &Action::Click,
    )
    .await
    .expect("click");
    let started = Instant::now();
    loop {
        let apps = cdp.apps().await.expect("tabs");
        let opened = apps
            .iter()
            .find(|a| a.id != app.id && a.name != "about:blank");
        if let Some(opened) = opened {
            if opened.windows[0].active {
                assert!(!apps.iter().any(|a| a.id == app.id && a.windows[0].active));
                break;
            }
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{apps:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn an_exited_browser_is_gone() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("form.html")).await;
    let pid = cdp.pid().expect("a launched browser has a pid");
    std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .expect("kill");
    let started = Instant::now();
    while cdp.is_alive() {
        assert!(started.elapsed() < Duration::from_secs(10), "still alive");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let err = cdp.capture(&app, &Scope::App).await.expect_err("gone");
    assert_eq!(err.kind, ErrorKind::Gone);
    assert!(
        err.message.contains("the browser is gone"),
        "{}",
        err.message
    );
    let err = cdp.apps().await.expect_err("gone");
    assert_eq!(err.kind, ErrorKind::Gone);
}

/// Live processes in process group `group`, or whose command line names
/// `path`.
fn leftovers(group: u32, path: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        if fields.first().is_some_and(|s| *s == "Z" || *s == "X") {
            continue;
        }
        let in_group = fields.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(group);
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let names_profile = String::from_utf8_lossy(&cmdline).contains(path);
        if in_group || names_profile {
            found.push(format!(
                "{pid}: {}",
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            ));
        }
    }
    found
}

#[tokio::test]
async fn a_launched_browser_leaves_nothing_behind() {
    let server = fixtures();
    let cdp = browser().await;
    open(&cdp, &server.url("iframe.html")).await;
    let pid = cdp.pid().expect("pid");
    let profile = cdp.profile_dir().expect("profile").to_path_buf();
    let path = profile.to_string_lossy().into_owned();
    assert!(profile.is_dir());
    assert!(
        leftovers(pid, &path).len() > 2,
        "a browser runs several processes: {:?}",
        leftovers(pid, &path)
    );
    // Chromium's temporary files (its singleton socket's directory) are in
    // the profile, not in the system's temporary directory, where a killed
    // browser would leave them.
    let own_tmp: Vec<String> = std::fs::read_dir(profile.join("tmp"))
        .map(|dir| {
            dir.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        own_tmp
            .iter()
            .any(|n| n.starts_with("org.chromium.Chromium.")),
        "{own_tmp:?}"
    );
    drop(cdp);
    assert_eq!(leftovers(pid, &path), Vec::<String>::new());
    assert!(!profile.exists(), "{} is still there", profile.display());
}

#[tokio::test]
async fn a_missing_browser_says_how_to_install_it() {
    let opts = LaunchOptions {
        executable: "/nonexistent/chromium".into(),
        ..LaunchOptions::default()
    };
    let err = Cdp::launch(opts).await.err().expect("no such browser");
    assert!(
        err.to_string().contains("apt-get install -y chromium"),
        "{err}"
    );
}

#[tokio::test]
async fn attaching_shares_a_running_browser_and_leaves_it_running() {
    let server = fixtures();
    let owner = browser().await;
    let ws = owner.endpoint().to_owned();
    let port = ws
        .split("://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|authority| authority.rsplit(':').next())
        .expect("a port")
        .to_owned();
    for address in [ws.clone(), format!("http://127.0.0.1:{port}"), port.clone()] {
        let guest = Cdp::attach(&address)
            .await
            .unwrap_or_else(|e| panic!("attaching to {address}: {e}"));
        assert_eq!(guest.pid(), None);
        let tab = open(&guest, &server.url("form.html")).await;
        let listed = owner.apps().await.expect("tabs");
        assert!(listed.iter().any(|a| a.id == tab.id), "{listed:?}");
        let snap = capture(&guest, &tab).await;
        find(&snap, Role::PushButton, "Create account");
        drop(guest);
        // The browser outlives the connection.
        assert!(owner.is_alive());
        owner.apps().await.expect("still answers");
    }
    let err = Cdp::attach("127.0.0.1:9")
        .await
        .err()
        .expect("nothing there");
    assert!(err.to_string().contains("127.0.0.1:9"), "{err}");
}

/// A tab whose JavaScript dialog opened before a connection attached holds
/// its page: that connection cannot read it or answer the dialog (Chromium
/// tells a new connection nothing of it), and its error says so.
#[tokio::test]
async fn a_tab_held_by_a_dialog_opened_before_attaching_is_said_to_answer_nothing() {
    let server = fixtures();
    let owner = browser().await;
    let tab = open(&owner, &server.url("form.html")).await;
    owner
        .evaluate(&tab.id, "setTimeout(() => alert('Held'), 0); 1")
        .await
        .expect("a script that opens an alert");
    // The owner holds it open, as a user's browser would.
    let mut held = false;
    for _ in 0..50 {
        if let Err(e) = owner.evaluate(&tab.id, "2").await {
            held = e.to_string().contains("alert");
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(held, "the alert never opened");
    let guest = Cdp::attach(owner.endpoint()).await.expect("attach");
    let err = guest
        .capture(&tab, &Scope::App)
        .await
        .expect_err("a page held by a dialog is not read");
    assert_eq!(err.kind, ErrorKind::Timeout);
    let message = err.to_string();
    assert!(
        message.contains(": the tab answers nothing (")
            && message.contains("most often a JavaScript dialog (alert, confirm, prompt)"),
        "{message}"
    );
}

/// Width and height of a PNG, from its header.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let word = |at: usize| u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]);
    (word(16), word(20))
}

#[tokio::test]
async fn screenshots_of_the_viewport_and_of_an_element() {
    let server = pages();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("widgets.html")).await;
    let snap = capture(&cdp, &app).await;
    let viewport = snap.tree().node(NodeId::ROOT).bounds.expect("viewport");
    let whole = cdp.screenshot(None).await.expect("screenshot");
    assert_eq!(png_size(&whole), (viewport.w as u32, viewport.h as u32));
    let go = find(&snap, Role::PushButton, "Go").bounds.expect("bounds");
    let part = cdp.screenshot(Some(go)).await.expect("area");
    assert_eq!(png_size(&part), (go.w as u32, go.h as u32));
    let _ = Rect::default();
}

/// A tab's document element, as a window operation takes it.
fn document(title: &str) -> uidelta_model::NodeData {
    uidelta_model::NodeData::named(uidelta_model::Role::DocumentWeb, title)
}
