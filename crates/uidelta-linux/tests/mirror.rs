//! Captures through a live mirror of the tree (`UIDELTA_MIRROR`) on the
//! real gtk3-widget-factory and GTK 2's gtk-demo: after every action, a
//! capture that read only what the application's events named equals a
//! whole walk, node for node (the backend's strict check compares them,
//! bounds included, and fails on a difference no later event explains).

use std::time::Duration;

use uidelta_backend::{App, Backend};
use uidelta_linux::{Action, Linux, MirrorUse, Scope};
use uidelta_model::{NodeData, Role, Snapshot, State};
use uidelta_testkit::{require_programs, Desktop};

const FACTORY: &str = "gtk3-widget-factory";

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn find(s: &Snapshot, what: &str, pred: impl Fn(&NodeData) -> bool) -> NodeData {
    s.tree()
        .nodes()
        .iter()
        .find(|n| pred(n))
        .cloned()
        .unwrap_or_else(|| panic!("{what} in the capture"))
}

fn usable(n: &NodeData) -> bool {
    n.states.contains(State::Enabled) && n.states.contains(State::Showing)
}

/// Whether some node of `s` meets `pred`.
fn holds(s: &Snapshot, pred: impl Fn(&NodeData) -> bool) -> bool {
    s.tree().nodes().iter().any(pred)
}

/// Captures (each one checked against a whole walk) until `done` holds,
/// at most 50 times.
async fn until(linux: &Linux, app: &App, done: impl Fn(&Snapshot) -> bool) -> Snapshot {
    let mut last = None;
    for _ in 0..50 {
        let s = linux
            .capture(app, &Scope::App)
            .await
            .expect("a capture through the mirror equal to a whole walk");
        if done(&s) {
            return s;
        }
        last = Some(s);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    last.expect("at least one capture")
}

/// A virtual desktop with the widget factory on its accessibility bus.
fn factory_desktop() -> Desktop {
    require_programs(&[("Xvfb", "xvfb"), ("gtk3-widget-factory", "gtk-3-examples")])
        .expect("programs for the live tests");
    let desktop = Desktop::start().expect("a virtual desktop");
    std::mem::forget(desktop.launch(FACTORY, &[]).expect("launch"));
    desktop
        .wait_for_accessible_app(FACTORY, Duration::from_secs(20))
        .expect("the widget factory on the accessibility bus");
    desktop
}

/// The Linux backend on `desktop`, each capture through a mirror checked
/// against a whole walk.
async fn strict(desktop: &Desktop) -> Linux {
    let mut linux = Linux::connect(Some(desktop.session_bus_address()), Some(desktop.display()))
        .await
        .expect("connect");
    linux.set_mirror_use(MirrorUse::Strict, true);
    linux
}

#[test]
fn a_mirrored_capture_equals_a_whole_walk_after_every_action() {
    let desktop = factory_desktop();
    rt().block_on(async {
        let linux = strict(&desktop).await;
        let app = linux.app(FACTORY).await.expect("the app");
        let first = until(&linux, &app, |_| true).await;
        assert_eq!(
            linux.mirror_readings(),
            (1, 0),
            "the first capture walks whole"
        );

        // Tick a check box.
        let check = find(&first, "an enabled check box", |n| {
            n.role == Role::CheckBox && usable(n) && !n.states.contains(State::Checked)
        });
        linux
            .act(&app, &check, &Action::Click)
            .await
            .expect("click the check box");
        let ticked = until(&linux, &app, |s| {
            holds(s, |n| {
                n.identity == check.identity && n.states.contains(State::Checked)
            })
        })
        .await;
        assert!(
            holds(&ticked, |n| n.identity == check.identity
                && n.states.contains(State::Checked)),
            "the mirror shows the check box ticked"
        );

        // Type into an entry.
        let entry = find(&ticked, "an editable entry", |n| {
            n.is_text_field() && usable(n) && n.states.contains(State::Editable)
        });
        linux
            .act(&app, &entry, &Action::Type("mirrored".into()))
            .await
            .expect("type into the entry");
        until(&linux, &app, |s| {
            holds(s, |n| {
                n.identity == entry.identity
                    && n.value.as_deref().is_some_and(|v| v.contains("mirrored"))
            })
        })
        .await;

        let (whole, part) = linux.mirror_readings();
        assert_eq!(whole, 1, "ticking and typing read only what changed");
        assert!(part >= 2, "captures read in part: {part}");

        // Show the second page: a whole page of objects starts showing (the
        // toolkit may make many new objects for it: then the tree is walked
        // whole).
        let page2 = find(&ticked, "Page 2", |n| {
            n.role == Role::RadioButton && n.name == "Page 2" && usable(n)
        });
        linux
            .act(&app, &page2, &Action::Click)
            .await
            .expect("show page 2");
        let shown = until(&linux, &app, |s| {
            holds(s, |n| {
                n.identity == page2.identity && n.states.contains(State::Checked)
            })
        })
        .await;
        assert!(
            holds(&shown, |n| n.identity == page2.identity
                && n.states.contains(State::Checked)),
            "the mirror shows page 2 chosen"
        );
    });
}

/// The node of `s` with this role and name.
fn named(s: &Snapshot, role: Role, name: &str) -> NodeData {
    find(s, name, |n| n.role == role && n.name == name)
}

/// GTK 2's demo (GAIL): a tree view's row activated opens a window, an
/// entry typed into makes a button sensitive, a page turned hides one
/// page and shows the next, a row expanded adds rows, a window closed
/// goes; after each, the mirror equals a whole walk.
#[test]
fn a_mirror_of_a_gtk2_application_equals_a_whole_walk_after_every_action() {
    require_programs(&[("Xvfb", "xvfb"), ("gtk-demo", "gtk2.0-examples")])
        .expect("programs for the live tests");
    let desktop = Desktop::start().expect("a virtual desktop");
    std::mem::forget(desktop.launch("gtk-demo", &[]).expect("launch"));
    desktop
        .wait_for_accessible_app("gtk-demo", Duration::from_secs(20))
        .expect(
            "GTK 2's demo on the accessibility bus (apt-get install libgail-common libatk-adaptor)",
        );
    rt().block_on(async {
        let linux = strict(&desktop).await;
        let app = linux.app("gtk-demo").await.expect("the app");
        let first = until(&linux, &app, |s| {
            holds(s, |n| n.role == Role::TableCell && n.name == "Assistant")
        })
        .await;

        // Open the assistant: a window of its own.
        let cell = named(&first, Role::TableCell, "Assistant");
        linux
            .act(&app, &cell, &Action::Invoke("activate".into()))
            .await
            .expect("activate the Assistant row");
        let opened = until(&linux, &app, |s| {
            holds(s, |n| n.role == Role::PushButton && n.name == "Forward")
        })
        .await;
        let forward = named(&opened, Role::PushButton, "Forward");
        assert!(
            !forward.states.contains(State::Enabled),
            "Forward waits for the entry: {forward:?}"
        );

        // Type into its entry: Forward becomes sensitive.
        let entry = find(&opened, "the assistant's entry", |n| {
            n.is_text_field() && usable(n) && n.states.contains(State::Editable)
        });
        linux
            .act(&app, &entry, &Action::Type("mirrored".into()))
            .await
            .expect("type into the entry");
        until(&linux, &app, |s| {
            holds(s, |n| {
                n.identity == forward.identity && n.states.contains(State::Enabled)
            })
        })
        .await;
        let (whole, part) = linux.mirror_readings();
        assert!(
            part >= 1,
            "captures read in part: {whole} whole, {part} in part"
        );

        // Turn the page: page 1 hides, page 2 shows its check box.
        linux
            .act(&app, &forward, &Action::Click)
            .await
            .expect("click Forward");
        let turned = until(&linux, &app, |s| {
            holds(s, |n| {
                n.role == Role::CheckBox && n.states.contains(State::Showing)
            })
        })
        .await;
        let check = find(&turned, "page 2's check box", |n| {
            n.role == Role::CheckBox && usable(n)
        });
        linux
            .act(&app, &check, &Action::Click)
            .await
            .expect("tick the check box");
        until(&linux, &app, |s| {
            holds(s, |n| {
                n.identity == check.identity && n.states.contains(State::Checked)
            })
        })
        .await;

        // Expand a row of the demo list: its children are added.
        let tree_view = named(&turned, Role::TableCell, "Tree View");
        linux
            .act(
                &app,
                &tree_view,
                &Action::Invoke("expand or contract".into()),
            )
            .await
            .expect("expand the Tree View row");
        let expanded = until(&linux, &app, |s| {
            holds(s, |n| n.role == Role::TableCell && n.name == "Tree Store")
        })
        .await;
        assert!(
            holds(&expanded, |n| n.role == Role::TableCell
                && n.name == "Tree Store"),
            "the mirror lists the rows under Tree View"
        );

        // Cancel the assistant: its window goes.
        let cancel = named(&expanded, Role::PushButton, "Cancel");
        linux
            .act(&app, &cancel, &Action::Click)
            .await
            .expect("click Cancel");
        let closed = until(&linux, &app, |s| {
            !holds(s, |n| n.role == Role::PushButton && n.name == "Forward")
        })
        .await;
        assert!(
            !holds(&closed, |n| n.role == Role::PushButton
                && n.name == "Forward"),
            "the assistant is gone from the mirror"
        );
        let (whole, part) = linux.mirror_readings();
        // A small window that opens or a list that grows is most of the
        // demo's tree: those walk whole.
        assert!(
            part >= 3,
            "typing, turning the page and ticking read in part: {whole} whole, {part} in part"
        );
    });
}

/// A window moved on the display (by a window manager, here by the X
/// server's own request) moves everything in it: GTK 3 says so only by
/// laying its widgets out again, their `bounds-changed` restating their
/// rectangles (relative to the window) as after every layout, and the
/// mirror reads the place of the window holding them for it.
#[test]
fn a_mirror_follows_its_window_moved_on_the_display() {
    let desktop = factory_desktop();
    let x11 = uidelta_x11::X11::connect(desktop.display()).expect("X connection");
    rt().block_on(async {
        let linux = strict(&desktop).await;
        let app = linux.app(FACTORY).await.expect("the app");
        let first = until(&linux, &app, |_| true).await;
        let frame = find(&first, "the window", |n| n.role == Role::Frame);
        let before = frame.bounds.expect("the window's place");
        let window = x11
            .top_windows()
            .expect("top-level windows")
            .into_iter()
            .find(|w| w.viewable && !w.override_redirect && w.pid == app.pid)
            .expect("the widget factory's X window");
        let (x, y) = (before.x + 40, before.y + 30);
        x11.move_window(window.id, x, y).expect("move the window");
        // Each capture is checked against a whole walk (strict); the last
        // must have the window in its new place.
        let moved = until(&linux, &app, |s| {
            holds(s, |n| {
                n.identity == frame.identity && n.bounds.is_some_and(|b| (b.x, b.y) == (x, y))
            })
        })
        .await;
        let after = find(&moved, "the window", |n| n.identity == frame.identity);
        assert_eq!(after.bounds.map(|b| (b.x, b.y)), Some((x, y)), "{before:?}");
        assert!(
            linux.mirror_readings().1 >= 1,
            "captures read in part: {:?}",
            linux.mirror_readings()
        );
    });
}

/// GTK 3 opens a popover (the widget factory's gear menu) over a few
/// frames, laying its buttons out again in place as it goes: captures
/// 100 ms apart while it opens each equal a whole walk, or differ only in
/// what the application was still working on (strict).
#[test]
fn captures_while_a_popover_opens_equal_a_whole_walk() {
    let desktop = factory_desktop();
    rt().block_on(async {
        let linux = strict(&desktop).await;
        let app = linux.app(FACTORY).await.expect("the app");
        let s = until(&linux, &app, |_| true).await;
        let menu = find(&s, "the gear menu's button", |n| {
            n.role == Role::ToggleButton && n.name == "Menu"
        });
        linux
            .act(&app, &menu, &Action::Click)
            .await
            .expect("open the gear menu");
        let opened = until(&linux, &app, |s| {
            holds(s, |n| {
                n.name == "About Widget Factory" && n.states.contains(State::Showing)
            })
        })
        .await;
        assert!(holds(&opened, |n| n.name == "About Widget Factory"
            && n.states.contains(State::Showing)));
        for _ in 0..5 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            linux
                .capture(&app, &Scope::App)
                .await
                .expect("a capture through the mirror equal to a whole walk");
        }
    });
}
