//! The Linux backend on a real virtual desktop: synthesized input, window
//! management, opening applications, screenshots, and the CLI's live
//! commands.

use std::time::Duration;

use uidelta_backend::{App, Backend};
use uidelta_linux::{Action, Linux, Scope};
use uidelta_model::{NodeData, Role, Snapshot, State};
use uidelta_testkit::{require_programs, Desktop};

const FACTORY: &str = "gtk3-widget-factory";

fn desktop() -> Desktop {
    require_programs(&[("Xvfb", "xvfb"), ("gtk3-widget-factory", "gtk-3-examples")])
        .expect("programs for the live tests");
    Desktop::start().expect("a virtual desktop")
}

/// The backend on the desktop's accessibility bus and display.
async fn connect(desktop: &Desktop) -> Linux {
    Linux::connect(Some(desktop.session_bus_address()), Some(desktop.display()))
        .await
        .expect("connect")
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn find(s: &Snapshot, pred: impl Fn(&NodeData) -> bool) -> Option<&NodeData> {
    s.tree().nodes().iter().find(|n| pred(n))
}

async fn until(linux: &Linux, name: &str, done: impl Fn(&Snapshot) -> bool) -> Snapshot {
    let mut last = None;
    for _ in 0..50 {
        let app = linux.app(name).await.expect("app");
        let s = linux.capture(&app, &Scope::App).await.expect("capture");
        if done(&s) {
            return s;
        }
        last = Some(s);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    last.expect("at least one capture")
}

/// Whether process `pid` is gone (reaped) within 10 s.
async fn exits(pid: u32) -> bool {
    let proc_dir = std::path::PathBuf::from(format!("/proc/{pid}"));
    let started = std::time::Instant::now();
    while proc_dir.exists() && started.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    !proc_dir.exists()
}

/// A top-level element titled `title`, as a capture has it, for window
/// management.
fn window(role: Role, title: &str) -> NodeData {
    NodeData::named(role, title)
}

/// The title of an application's showing window.
fn title_of(app: &App) -> String {
    app.windows
        .iter()
        .find(|w| w.showing)
        .map(|w| w.title.clone())
        .expect("a showing window")
}

/// Opens the widget factory, focuses its entry holding `entry`, then opens
/// gtk3-demo over it. Returns both applications and the entry.
async fn factory_then_demo(linux: &Linux, desktop: &Desktop) -> (App, App, NodeData) {
    let env = desktop.env();
    let factory = linux
        .open_application(FACTORY, &[], &env, Duration::from_secs(20))
        .await
        .expect("the widget factory opens");
    let snap = until(linux, FACTORY, |_| true).await;
    let entry = find(&snap, |n| {
        n.value.as_deref() == Some("entry") && n.states.contains(State::Enabled)
    })
    .cloned()
    .expect("the enabled entry holding `entry`");
    linux
        .act(&factory, &entry, &Action::Focus)
        .await
        .expect("focus the entry");
    let demo = linux
        .open_application("gtk3-demo", &[], &env, Duration::from_secs(20))
        .await
        .expect("gtk3-demo opens");
    (factory, demo, entry)
}

/// The value of `entry` once it is `want` (or after 5 s).
async fn value_of(linux: &Linux, entry: &NodeData, want: &str) -> Option<String> {
    let value =
        |s: &Snapshot| find(s, |n| n.identity == entry.identity).and_then(|n| n.value.clone());
    value(&until(linux, FACTORY, |s| value(s).as_deref() == Some(want)).await)
}

#[test]
fn open_type_with_keys_close_and_screenshot() {
    let desktop = desktop();
    rt().block_on(async {
        let linux = connect(&desktop).await;
        // A program that exits before it shows a window says why.
        let args = [
            "-c".to_owned(),
            "echo 'cannot open display: :0' >&2; exit 1".to_owned(),
        ];
        let failed = linux
            .open_application("sh", &args, &desktop.env(), Duration::from_secs(20))
            .await
            .map(|app| app.name)
            .expect_err("sh exits at once");
        assert_eq!(
            failed.to_string(),
            "opening sh: it exited before showing a window (exit status: 1; the end of \
             its stderr: \"cannot open display: :0\")"
        );
        // Its stderr went to a log file, removed once it was read.
        let prefix = format!("uidelta-sh-{}-", std::process::id());
        let left: Vec<String> = std::fs::read_dir(std::env::temp_dir())
            .expect("the temporary directory")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&prefix))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        // Open: the program starts inside the desktop's environment.
        let app = linux
            .open_application(FACTORY, &[], &desktop.env(), Duration::from_secs(20))
            .await
            .expect("the app opens with a window");
        assert!(app.pid.is_some());
        assert!(app.windows.iter().any(|w| w.showing));

        // Keys through XTest: focus an entry, select all, type over it.
        let snap = linux.capture(&app, &Scope::Focused).await.expect("capture");
        let entry = find(&snap, |n| {
            matches!(n.role, Role::Text | Role::Entry)
                && n.states.contains(State::Editable)
                && n.states.contains(State::Showing)
                && n.states.contains(State::Enabled)
        })
        .cloned()
        .expect("an entry");
        linux
            .act(&app, &entry, &Action::Key("ctrl+a".into()))
            .await
            .expect("ctrl+a");
        let done = linux
            .act(&app, &entry, &Action::Key("BackSpace".into()))
            .await
            .expect("BackSpace");
        assert_eq!(done.method, "XTest BackSpace");
        linux.key(&app, "x").await.expect("x");
        let id = entry.identity.clone();
        let after = until(&linux, FACTORY, |s| {
            find(s, |n| n.identity == id).and_then(|n| n.value.as_deref()) == Some("x")
        })
        .await;
        assert_eq!(
            find(&after, |n| n.identity == id).and_then(|n| n.value.as_deref()),
            Some("x")
        );

        // A window screenshot is a PNG of the window's size, clipped to the
        // 1280x1024 screen.
        let title = app
            .windows
            .iter()
            .find(|w| w.showing)
            .map(|w| w.title.clone())
            .expect("window");
        let bounds = linux.window_bounds(&app, &title).await.expect("bounds");
        let png = linux.screenshot(Some(bounds)).await.expect("screenshot");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let width = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
        let height = u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
        let visible = |start: i32, len: i32, screen: i32| (start + len).min(screen) - start.max(0);
        assert_eq!(
            (width as i32, height as i32),
            (
                visible(bounds.x, bounds.w, 1280),
                visible(bounds.y, bounds.h, 1024)
            )
        );

        // Open the About dialog and close it the way a title bar would.
        let snap = until(&linux, FACTORY, |_| true).await;
        let about = find(&snap, |n| n.name == "About Widget Factory")
            .cloned()
            .expect("About item");
        linux
            .act(&app, &about, &Action::Click)
            .await
            .expect("About");
        let open = |s: &Snapshot| find(s, |n| n.role == Role::Dialog).is_some();
        assert!(
            open(&until(&linux, FACTORY, open).await),
            "the dialog opened"
        );
        let app = linux.app(FACTORY).await.expect("app");
        let dialog = app
            .windows
            .iter()
            .find(|w| w.role == "dialog")
            .expect("dialog window")
            .title
            .clone();
        let done = linux
            .close_window(&app, &window(Role::Dialog, &dialog))
            .await
            .expect("close");
        assert!(
            done.method.starts_with("WM_DELETE_WINDOW"),
            "{}",
            done.method
        );
        assert!(
            !open(&until(&linux, FACTORY, |s| !open(s)).await),
            "the dialog closed"
        );

        // A program we opened is reaped when it exits: no zombie is left
        // behind in a long-running server.
        let pid = app.pid.expect("pid");
        let killed = std::process::Command::new("kill")
            .arg(pid.to_string())
            .status()
            .expect("kill");
        assert!(killed.success());
        let gone = exits(pid).await;
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(gone, "pid {pid} still there: {state}");
    });
}

#[test]
fn keys_for_an_application_reach_it_when_another_has_the_keyboard() {
    let desktop = desktop();
    rt().block_on(async {
        let linux = connect(&desktop).await;
        // A second application, in front, gets the keyboard.
        let (factory, demo, entry) = factory_then_demo(&linux, &desktop).await;
        linux
            .activate_window(&demo, &window(Role::Frame, &title_of(&demo)))
            .await
            .expect("gtk3-demo has the keyboard");

        let done = linux.key(&factory, "x").await.expect("x");
        assert!(
            done.method.starts_with("keyboard focus to window 0x")
                && done.method.ends_with(", then XTest x"),
            "{}",
            done.method
        );
        assert_eq!(value_of(&linux, &entry, "x").await.as_deref(), Some("x"));
        // Now that it has the keyboard, nothing is moved.
        let done = linux.key(&factory, "y").await.expect("y");
        assert_eq!(done.method, "XTest y");
        assert_eq!(value_of(&linux, &entry, "xy").await.as_deref(), Some("xy"));
    });
}

/// Under a reparenting window manager the root's children are its frames;
/// windows are found, raised, given the keyboard and closed through the
/// client windows inside them.
#[test]
fn windows_in_a_window_managers_frames_are_activated_focused_and_closed() {
    require_programs(&[("gtk3-widget-factory", "gtk-3-examples")])
        .expect("programs for the live tests");
    let desktop = Desktop::start_with_window_manager("openbox --sm-disable")
        .expect("a virtual desktop with openbox");
    let x11 = uidelta_x11::X11::connect(desktop.display()).expect("X connection");
    let wm = x11.window_manager().expect("asking for the window manager");
    assert_eq!(wm.as_deref(), Some("Openbox"));
    rt().block_on(async {
        let linux = connect(&desktop).await;
        let (factory, demo, entry) = factory_then_demo(&linux, &desktop).await;
        // Framed: the client windows carry the titles and pids.
        let tops = x11.top_windows().expect("top-level windows");
        let demo_title = title_of(&demo);
        let client = tops
            .iter()
            .find(|w| w.title == demo_title)
            .unwrap_or_else(|| panic!("no window titled {demo_title:?} in {tops:?}"));
        assert_eq!(client.pid, demo.pid);

        let done = linux
            .activate_window(&demo, &window(Role::Frame, &demo_title))
            .await
            .expect("activate gtk3-demo's window");
        assert_eq!(done.method, format!("raise and focus {:#x}", client.id));
        let mut holder = None;
        for _ in 0..100 {
            holder = x11.keyboard_window().expect("the keyboard's window");
            if holder.as_ref().is_some_and(|h| h.pid == demo.pid) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(holder.map(|h| h.id), Some(client.id));

        // Keys for the widget factory go to it, not to gtk3-demo.
        let done = linux.key(&factory, "x").await.expect("x");
        assert!(
            done.method.starts_with("keyboard focus to window 0x"),
            "{}",
            done.method
        );
        assert_eq!(value_of(&linux, &entry, "x").await.as_deref(), Some("x"));

        // Closing goes to the client window: gtk3-demo quits.
        linux
            .close_window(&demo, &window(Role::Frame, &demo_title))
            .await
            .expect("close gtk3-demo's window");
        let pid = demo.pid.expect("pid");
        assert!(exits(pid).await, "gtk3-demo (pid {pid}) is still running");
    });
}

#[test]
fn right_and_double_clicks_are_synthesized_at_the_centre() {
    let desktop = desktop();
    std::mem::forget(desktop.launch(FACTORY, &[]).expect("launch"));
    desktop
        .wait_for_accessible_app(FACTORY, Duration::from_secs(20))
        .expect("on the bus");
    rt().block_on(async {
        let linux = connect(&desktop).await;
        let app = linux.app(FACTORY).await.expect("app");
        let snap = until(&linux, FACTORY, |_| true).await;
        let button = find(&snap, |n| {
            n.role == Role::PushButton && n.states.contains(State::Showing) && n.bounds.is_some()
        })
        .cloned()
        .expect("a button");
        let done = linux
            .act(&app, &button, &Action::DoubleClick)
            .await
            .expect("double click");
        assert!(
            done.method.starts_with("XTest double click at "),
            "{}",
            done.method
        );
        let (x, y) = button.bounds.map(|b| b.center()).expect("bounds");
        assert_eq!(done.method, format!("XTest double click at {x},{y}"));
        let done = linux
            .act(&app, &button, &Action::RightClick)
            .await
            .expect("right click");
        assert_eq!(done.method, format!("XTest right click at {x},{y}"));
    });
}

#[test]
fn a_qt_application_opens_on_a_display_that_lost_the_bus_address() {
    let calculator = uidelta_testkit::qt5_example("widgets/widgets/calculator/calculator");
    let program = calculator.to_string_lossy().into_owned();
    require_programs(&[("Xvfb", "xvfb"), (&program, uidelta_testkit::QT5_EXAMPLES)])
        .expect("programs for the live tests");
    let desktop = Desktop::start().expect("a virtual desktop");
    rt().block_on(async {
        // An X server that reset after the bus launcher published the
        // address has none; an empty one reads the same to Qt.
        let x11 = uidelta_x11::X11::connect(desktop.display()).expect("display");
        x11.publish_accessibility_bus("").expect("clear AT_SPI_BUS");
        assert_eq!(x11.accessibility_bus().expect("read AT_SPI_BUS"), None);
        let linux = connect(&desktop).await;
        let app = linux
            .open_application(&program, &[], &desktop.env(), Duration::from_secs(20))
            .await
            .expect("the Qt calculator opens on the accessibility bus");
        assert_eq!(app.name, "calculator");
        assert_eq!(
            title_of(&app),
            "Calculator",
            "its window: {:?}",
            app.windows
        );
        assert_eq!(
            x11.accessibility_bus().expect("read AT_SPI_BUS").as_deref(),
            Some(linux.bus().address())
        );
    });
}

/// A window that lies wholly off the screen is no window a person sees:
/// xfwm4 keeps a 5 × 5 GTK window at -1000,-1000 that says it is active,
/// and was listed as the window the focus went to whenever a dialog
/// opened. It is listed as an application without windows, as a service.
#[test]
fn a_window_managers_helper_window_off_the_screen_is_not_listed() {
    require_programs(&[("gtk3-widget-factory", "gtk-3-examples")])
        .expect("programs for the live tests");
    let desktop = Desktop::start_with_window_manager("xfwm4 --compositor=off")
        .expect("a virtual desktop with xfwm4");
    let _factory = desktop
        .launch("gtk3-widget-factory", &[])
        .expect("launch gtk3-widget-factory");
    for app in ["xfwm4", "gtk3-widget-factory"] {
        desktop
            .wait_for_accessible_app(app, Duration::from_secs(30))
            .unwrap_or_else(|e| panic!("{app} on the accessibility bus: {e}"));
    }
    rt().block_on(async {
        let linux = connect(&desktop).await;
        // The helper window is in xfwm4's tree, off the screen, active.
        let mut helper = None;
        for _ in 0..100 {
            let apps = linux.apps().await.expect("the applications");
            let wm = apps.iter().find(|a| a.name == "xfwm4").expect("xfwm4");
            let snapshot = Backend::capture(&linux, wm, &Scope::App)
                .await
                .expect("xfwm4's tree");
            helper = find(&snapshot, |n| n.role == Role::Window).cloned();
            let factory_shown = apps
                .iter()
                .any(|a| a.name == "gtk3-widget-factory" && !a.windows.is_empty());
            if helper.is_some() && factory_shown {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let helper = helper.expect("xfwm4's helper window in its tree");
        assert_eq!(helper.role, Role::Window);
        assert!(helper.states.contains(State::Active), "{helper:?}");
        let bounds = helper.bounds.expect("its place");
        assert!(bounds.x + bounds.w <= 0, "{helper:?}");
        let apps = linux.apps().await.expect("the applications");
        let listed: Vec<(String, usize)> = apps
            .iter()
            .map(|a| (a.name.clone(), a.windows.len()))
            .collect();
        assert!(
            listed.contains(&("xfwm4".to_owned(), 0)),
            "xfwm4 with no windows in {listed:?}"
        );
        assert!(
            listed.contains(&("gtk3-widget-factory".to_owned(), 1)),
            "{listed:?}"
        );
    });
}

/// A key a window manager holds on the whole display (xfwm4 switches
/// workspace on ctrl+F5) goes to it, not to the application: the answer
/// says so, where it said only that nothing changed. Other keys, and any
/// key on a display no program holds keys on, are said as before.
#[test]
fn a_key_the_window_manager_holds_is_said_to_go_there() {
    require_programs(&[("gtk3-widget-factory", "gtk-3-examples")])
        .expect("programs for the live tests");
    let desktop = Desktop::start_with_window_manager("xfwm4 --compositor=off")
        .expect("a virtual desktop with xfwm4");
    let x11 = uidelta_x11::X11::connect(desktop.display()).expect("X connection");
    assert_eq!(x11.held_elsewhere("ctrl+F5").ok(), Some(true));
    assert_eq!(x11.held_elsewhere("ctrl+s").ok(), Some(false));
    // Asking took nothing: the same answers again.
    assert_eq!(x11.held_elsewhere("ctrl+F5").ok(), Some(true));
    assert_eq!(x11.held_elsewhere("ctrl+s").ok(), Some(false));
    rt().block_on(async {
        let linux = connect(&desktop).await;
        let (factory, _, _) = factory_then_demo(&linux, &desktop).await;
        let done = linux.key(&factory, "ctrl+F5").await.expect("ctrl+F5");
        assert!(
            done.method.ends_with(
                "XTest ctrl+F5, a shortcut another program holds on the whole display (a window manager's or a desktop's): it went there"
            ),
            "{}",
            done.method
        );
        let done = linux.key(&factory, "F9").await.expect("F9");
        assert!(done.method.ends_with("XTest F9"), "{}", done.method);
    });
    let bare = desktop_bare();
    let x11 = uidelta_x11::X11::connect(bare.display()).expect("X connection");
    assert_eq!(x11.held_elsewhere("ctrl+F5").ok(), Some(false));
}

/// A desktop without a window manager, whatever `UIDELTA_TEST_WM` says.
fn desktop_bare() -> Desktop {
    Desktop::start_without_buses().expect("a virtual display")
}
