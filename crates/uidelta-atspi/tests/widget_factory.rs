//! The AT-SPI adapter on the real gtk3-widget-factory and gtk3-demo, each
//! test on its own virtual desktop (Xvfb, session bus, accessibility bus).

use std::time::Duration;

use uidelta_atspi::{
    applications, capture, differences, find_app, subscribe_with, Actor, AppInfo, Bus,
    CaptureOptions, Error, Mirror, NodeAddr, Outcome, Reading,
};
use uidelta_model::{NodeData, Role, Snapshot, State};
use uidelta_testkit::{require_programs, Desktop};

const FACTORY: &str = "gtk3-widget-factory";

fn desktop_with(apps: &[&str]) -> Desktop {
    require_programs(&[
        ("Xvfb", "xvfb"),
        ("dbus-daemon", "dbus"),
        ("gtk3-widget-factory", "gtk-3-examples"),
        ("gtk3-demo", "gtk-3-examples"),
    ])
    .expect("programs for the live tests");
    let desktop = Desktop::start().expect("a virtual desktop");
    for app in apps {
        // The testkit owns the processes; they go when the desktop does.
        std::mem::forget(desktop.launch(app, &[]).expect("launch"));
        desktop
            .wait_for_accessible_app(app, Duration::from_secs(20))
            .expect("the application on the accessibility bus");
    }
    desktop
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

async fn connect(desktop: &Desktop) -> Bus {
    Bus::connect(Some(desktop.session_bus_address()))
        .await
        .expect("the accessibility bus")
}

async fn snap(bus: &Bus, app: &AppInfo) -> Snapshot {
    capture(bus, &app.app, None, None, &CaptureOptions::default())
        .await
        .expect("capture")
}

fn find(s: &Snapshot, pred: impl Fn(&NodeData) -> bool) -> Option<&NodeData> {
    s.tree().nodes().iter().find(|n| pred(n))
}

fn addr(n: &NodeData) -> NodeAddr {
    n.identity
        .as_deref()
        .and_then(NodeAddr::from_identity)
        .expect("an AT-SPI identity")
}

fn usable(n: &NodeData) -> bool {
    n.states.contains(State::Enabled) && n.states.contains(State::Showing)
}

/// Polls fresh snapshots until `done` holds or 5 s pass.
async fn eventually(bus: &Bus, app: &AppInfo, done: impl Fn(&Snapshot) -> bool) -> Snapshot {
    let mut last = snap(bus, app).await;
    for _ in 0..50 {
        if done(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        last = snap(bus, app).await;
    }
    last
}

/// How many nodes of `s` a widget the application hid holds, itself
/// included: one with states that says neither `visible` nor `showing`
/// (nor `modal`: a closed popover), a window and a combo box's menu aside.
fn hidden_by_the_application(s: &Snapshot) -> usize {
    let tree = s.tree();
    let options = |id| {
        tree.node(id).role == Role::Menu
            && tree
                .parent(id)
                .is_some_and(|p| tree.node(p).role == Role::ComboBox)
    };
    let hid = |id| {
        let n: &NodeData = tree.node(id);
        !options(id)
            && !n.states.is_empty()
            && !n.states.contains(State::Visible)
            && !n.states.contains(State::Showing)
            && !n.states.contains(State::Modal)
            && !n.role.is_window()
            && n.role != Role::Application
    };
    tree.ids()
        .filter(|&id| {
            let mut at = Some(id);
            while let Some(i) = at {
                if hid(i) {
                    return true;
                }
                at = tree.parent(i);
            }
            false
        })
        .count()
}

#[test]
fn capture_agrees_with_pyatspi() {
    require_programs(&[("/usr/bin/python3", "python3-pyatspi")]).expect("python3");
    let desktop = desktop_with(&[FACTORY]);
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/capture_pyatspi.py"
    );
    let out = desktop.runtime_dir().join("pyatspi.json");
    let status = desktop
        .command("/usr/bin/python3")
        .args([script, "--app", FACTORY, "--out"])
        .arg(&out)
        .status()
        .expect("run the pyatspi walker (apt-get install -y python3-pyatspi)");
    assert!(
        status.success(),
        "the pyatspi walker failed (apt-get install -y python3-pyatspi)"
    );
    let text = std::fs::read_to_string(&out).expect("pyatspi output");
    let reference = uidelta_formats::json::parse(&text).expect("pyatspi output parses");

    let ours = rt().block_on(async {
        let bus = connect(&desktop).await;
        let app = find_app(&bus, FACTORY).await.expect("the app");
        snap(&bus, &app).await
    });
    // What the application hid (neither visible nor showing) is left out
    // with all it holds (docs/toolkits.md, GTK 3); pyatspi walks it.
    let hidden = hidden_by_the_application(&reference);
    let (n_ours, n_ref) = (
        ours.node_count() as f64,
        (reference.node_count() - hidden) as f64,
    );
    eprintln!("nodes: ours {n_ours}, pyatspi {n_ref} (and {hidden} hidden)");
    assert!(
        (n_ours - n_ref).abs() / n_ref <= 0.03,
        "node counts differ: ours {n_ours}, pyatspi {n_ref} (and {hidden} hidden)"
    );
    let by_path = |s: &Snapshot| -> std::collections::HashMap<String, NodeData> {
        s.tree()
            .nodes()
            .iter()
            .filter_map(|n| {
                let id = n.identity.as_deref()?;
                Some((id[id.find('/')?..].to_owned(), n.clone()))
            })
            .collect()
    };
    let (ours, theirs) = (by_path(&ours), by_path(&reference));
    let mut compared = 0;
    for (path, a) in &ours {
        let Some(b) = theirs.get(path) else { continue };
        compared += 1;
        assert_eq!(a.raw_role, b.raw_role, "role of {path}");
        // A GTK 3 field is named after the label before it on its row,
        // which pyatspi does not do: the spin buttons after "label". A
        // combo box named after its option has it as its value instead.
        let inferred = b.name.is_empty()
            && matches!(
                a.role,
                Role::Text | Role::Entry | Role::PasswordText | Role::SpinButton
            );
        let choice = a.role == Role::ComboBox && a.value.as_deref() == Some(b.name.as_str());
        if choice {
            assert_eq!(a.name, "", "name of {path}, whose option is its value");
        } else if !inferred {
            assert_eq!(a.name, b.name, "name of {path}");
        }
        // Focus and activity can move between the two walks; nothing else may.
        let volatile = uidelta_model::StateSet::of(&[State::Focused, State::Active]);
        assert_eq!(
            a.states.without(volatile),
            b.states.without(volatile),
            "states of {path}"
        );
        let hidden = |r: Option<uidelta_model::Rect>| r.filter(|r| r.x != i32::MIN);
        assert_eq!(a.bounds, hidden(b.bounds), "bounds of {path}");
    }
    assert!(
        compared as f64 >= 0.97 * n_ref,
        "only {compared} nodes in common"
    );
}

#[test]
fn actions_change_what_they_should() {
    let desktop = desktop_with(&[FACTORY]);
    rt().block_on(async {
        let bus = connect(&desktop).await;
        let app = find_app(&bus, FACTORY).await.expect("the app");
        let label = app.app.label();
        let actor = Actor::new(&bus, &label);
        let before = snap(&bus, &app).await;

        // A check button toggles.
        let check = find(&before, |n| {
            n.role == Role::CheckBox
                && usable(n)
                && !n.states.contains(State::Checked)
                && !n.states.contains(State::Indeterminate)
        })
        .expect("an unchecked check box");
        let id = check.identity.clone();
        assert!(matches!(
            actor.click(&addr(check)).await,
            Ok(Outcome::Done(_))
        ));
        let after = eventually(&bus, &app, |s| {
            find(s, |n| n.identity == id).is_some_and(|n| n.states.contains(State::Checked))
        })
        .await;
        assert!(
            find(&after, |n| n.identity == id).is_some_and(|n| n.states.contains(State::Checked))
        );

        // Typing into an entry changes its text; one without the keyboard
        // focus, in the active window, takes it first, as under a click.
        let entry = find(&after, |n| {
            matches!(n.role, Role::Text | Role::Entry)
                && usable(n)
                && n.states.contains(State::Editable)
                && n.value.as_deref().unwrap_or("").is_empty()
        })
        .expect("an empty editable entry");
        let id = entry.identity.clone();
        let typed = actor
            .type_text(&addr(entry), "hello uidelta")
            .await
            .expect("type");
        assert_eq!(
            typed,
            Outcome::Done("Component.GrabFocus, then EditableText.InsertText".into())
        );
        let after = eventually(&bus, &app, |s| {
            find(s, |n| n.identity == id).and_then(|n| n.value.as_deref()) == Some("hello uidelta")
        })
        .await;
        assert_eq!(
            find(&after, |n| n.identity == id)
                .and_then(|n| n.value.clone())
                .as_deref(),
            Some("hello uidelta")
        );

        // Typed into an entry without the keyboard focus, text goes after
        // what it holds, as after a click at its end (GTK keeps such an
        // entry's caret at 0).
        let entry = find(&after, |n| {
            n.role == Role::Text && usable(n) && n.value.as_deref() == Some("entry")
        })
        .expect("the entry holding \"entry\"");
        assert!(!entry.states.contains(State::Focused));
        let id = entry.identity.clone();
        actor
            .type_text(&addr(entry), " more")
            .await
            .expect("type after the text");
        let after = eventually(&bus, &app, |s| {
            find(s, |n| n.identity == id).and_then(|n| n.value.as_deref()) == Some("entry more")
        })
        .await;
        assert_eq!(
            find(&after, |n| n.identity == id)
                .and_then(|n| n.value.clone())
                .as_deref(),
            Some("entry more")
        );

        // Selecting "Page 2" checks it.
        let page2 = find(&after, |n| {
            n.role == Role::RadioButton && n.name == "Page 2"
        })
        .expect("Page 2");
        let id = page2.identity.clone();
        actor.click(&addr(page2)).await.expect("click Page 2");
        let after = eventually(&bus, &app, |s| {
            find(s, |n| n.identity == id).is_some_and(|n| n.states.contains(State::Checked))
        })
        .await;
        assert!(
            find(&after, |n| n.identity == id).is_some_and(|n| n.states.contains(State::Checked))
        );

        // The menu opens: its "About" item shows.
        let menu = find(&after, |n| {
            n.role == Role::ToggleButton && n.name == "Menu" && usable(n)
        })
        .expect("the Menu button");
        actor.click(&addr(menu)).await.expect("open the menu");
        let shown = |s: &Snapshot| {
            find(s, |n| {
                n.name.starts_with("About") && n.states.contains(State::Showing)
            })
            .is_some()
        };
        let after = eventually(&bus, &app, shown).await;
        assert!(shown(&after), "the menu did not open");

        // The About dialog opens, then closes.
        let about = find(&after, |n| {
            n.name.starts_with("About") && n.states.contains(State::Showing)
        })
        .expect("About item");
        actor.click(&addr(about)).await.expect("click About");
        let dialog_open = |s: &Snapshot| {
            find(s, |n| n.role == Role::Dialog && n.name.starts_with("About")).is_some()
        };
        let after = eventually(&bus, &app, dialog_open).await;
        assert!(dialog_open(&after), "no About dialog");
        let windows = applications(&bus).await.expect("apps");
        assert!(windows
            .iter()
            .flat_map(|a| &a.windows)
            .any(|w| w.role == "dialog" && w.title.starts_with("About")));
        let close = {
            let t = after.tree();
            let dialog = t
                .ids()
                .find(|&i| t.node(i).role == Role::Dialog && t.node(i).name.starts_with("About"))
                .expect("dialog");
            t.subtree(dialog)
                .map(|i| t.node(i))
                .find(|n| n.role == Role::PushButton && n.name == "Close")
                .cloned()
                .expect("a Close button in the dialog")
        };
        actor.click(&addr(&close)).await.expect("click Close");
        let after = eventually(&bus, &app, |s| !dialog_open(s)).await;
        assert!(!dialog_open(&after), "the About dialog did not close");
    });
}

#[test]
fn a_stopped_application_is_a_timeout_naming_it_and_others_still_capture() {
    let desktop = desktop_with(&[FACTORY]);
    let demo = desktop.launch("gtk3-demo", &[]).expect("gtk3-demo");
    desktop
        .wait_for_accessible_app("gtk3-demo", Duration::from_secs(20))
        .expect("gtk3-demo on the bus");
    rt().block_on(async {
        let bus = connect(&desktop)
            .await
            .with_timeout(Duration::from_millis(1500));
        let factory = find_app(&bus, FACTORY).await.expect("factory");
        let demo_info = find_app(&bus, "gtk3-demo").await.expect("demo");
        let pid = factory.app.pid.expect("pid");
        // SAFETY-free: signals through the kill command.
        let stop = std::process::Command::new("kill")
            .args(["-STOP", &pid.to_string()])
            .status();
        assert!(stop.is_ok_and(|s| s.success()));
        let err = capture(&bus, &factory.app, None, None, &CaptureOptions::default())
            .await
            .expect_err("a stopped app cannot answer");
        let message = err.to_string();
        assert!(matches!(err, Error::Timeout { .. }), "{message}");
        assert!(
            message.contains(FACTORY) && message.contains(&pid.to_string()),
            "{message}"
        );
        // Listing still works and says which app does not answer.
        let apps = applications(&bus).await.expect("listing");
        let listed = apps
            .iter()
            .find(|a| a.app.bus_name == factory.app.bus_name)
            .expect("listed");
        assert!(listed.error.is_some());
        // The other application is unaffected.
        let other = snap(&bus, &demo_info).await;
        assert!(other.node_count() > 10);
        let _ = std::process::Command::new("kill")
            .args(["-CONT", &pid.to_string()])
            .status();
        assert!(snap(&bus, &factory).await.node_count() > 100);
    });
    drop(demo);
}

#[test]
fn an_application_that_exits_during_capture_is_an_error() {
    let desktop = desktop_with(&[]);
    let mut app = desktop.launch(FACTORY, &[]).expect("launch");
    desktop
        .wait_for_accessible_app(FACTORY, Duration::from_secs(20))
        .expect("on the bus");
    rt().block_on(async {
        let bus = connect(&desktop).await;
        let info = find_app(&bus, FACTORY).await.expect("the app");
        let opts = CaptureOptions {
            use_cache: false,
            ..CaptureOptions::default()
        };
        let captures = async {
            loop {
                match capture(&bus, &info.app, None, None, &opts).await {
                    Ok(_) => continue,
                    Err(e) => return e,
                }
            }
        };
        let killer = async {
            tokio::time::sleep(Duration::from_millis(150)).await;
            app.kill();
        };
        let (err, ()) = tokio::time::timeout(Duration::from_secs(30), async {
            tokio::join!(captures, killer)
        })
        .await
        .expect("capture returns instead of hanging");
        let message = err.to_string();
        assert!(
            matches!(
                err,
                Error::Gone { .. } | Error::Call { .. } | Error::Timeout { .. }
            ),
            "{message}"
        );
        assert!(message.contains(FACTORY), "{message}");
    });
}

#[test]
fn values_selection_and_events() {
    let desktop = desktop_with(&[FACTORY]);
    rt().block_on(async {
        let bus = connect(&desktop).await;
        let app = find_app(&bus, FACTORY).await.expect("the app");
        let label = app.app.label();
        let actor = Actor::new(&bus, &label);
        let mut events = uidelta_atspi::subscribe(&bus, Some(&app.app.bus_name))
            .await
            .expect("subscribe");
        let before = snap(&bus, &app).await;

        // A spin button takes a number through the Value interface.
        let spin =
            find(&before, |n| n.role == Role::SpinButton && usable(n)).expect("a spin button");
        let id = spin.identity.clone();
        let done = actor.set_value(&addr(spin), "42").await.expect("set value");
        assert_eq!(done, Outcome::Done("Value.CurrentValue".into()));
        let after = eventually(&bus, &app, |s| {
            find(s, |n| n.identity == id).and_then(|n| n.value.as_deref()) == Some("42")
        })
        .await;
        assert_eq!(
            find(&after, |n| n.identity == id).and_then(|n| n.value.as_deref()),
            Some("42")
        );

        // A slider takes numbers only: text is a clear error, not a no-op.
        let slider = find(&after, |n| n.role == Role::Slider && usable(n)).expect("a slider");
        let err = actor
            .set_value(&addr(slider), "loud")
            .await
            .expect_err("text on a slider");
        assert_eq!(
            err.to_string(),
            format!(
                "{label}: the element takes a number (Value interface), and \"loud\" is not one"
            )
        );

        // A notebook tab is chosen through its tab list's Selection.
        let tab = find(&after, |n| {
            n.role == Role::PageTab && usable(n) && !n.states.contains(State::Selected)
        })
        .expect("an unselected tab");
        let id = tab.identity.clone();
        let done = actor.set_selected(&addr(tab), true).await.expect("select");
        assert_eq!(done, Outcome::Done("Selection.SelectChild".into()));
        let after = eventually(&bus, &app, |s| {
            find(s, |n| n.identity == id).is_some_and(|n| n.states.contains(State::Selected))
        })
        .await;
        assert!(
            find(&after, |n| n.identity == id).is_some_and(|n| n.states.contains(State::Selected))
        );

        // Both changes arrived as events from the application.
        // Animations keep sending events: read what is queued, for a bounded time.
        let mut kinds = Vec::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        while let Ok(Some(e)) = tokio::time::timeout_at(deadline, events.next()).await {
            assert_eq!(e.source.bus, app.app.bus_name);
            kinds.push(e.kind);
        }
        assert!(
            kinds.iter().any(|k| k == "object:state-changed:selected"),
            "{kinds:?}"
        );
        assert!(
            kinds.iter().any(|k| k.starts_with("object:property-change")
                || k.starts_with("object:value-changed")),
            "{kinds:?}"
        );
    });
}

#[test]
fn a_nameless_entry_takes_the_name_of_its_mnemonic_label_which_is_then_left_out() {
    let desktop = desktop_with(&[]);
    // The Dialogs demo: "_Entry 1" is the mnemonic label of the first
    // entry, which says it once named; the second entry's label points at
    // nothing: the entry is named after it, the label before it on its
    // row, and it stays. The grid's children come in reading order (GTK
    // gives them last added first).
    std::mem::forget(
        desktop
            .launch("gtk3-demo", &["--run=dialog"])
            .expect("gtk3-demo"),
    );
    desktop
        .wait_for_accessible_app("gtk3-demo", Duration::from_secs(20))
        .expect("gtk3-demo on the bus");
    rt().block_on(async {
        let bus = connect(&desktop).await;
        let app = find_app(&bus, "gtk3-demo").await.expect("gtk3-demo");
        let dialogs = |s: &Snapshot| {
            s.tree()
                .nodes()
                .iter()
                .any(|n| n.role == Role::Label && n.name == "Entry 2")
        };
        let s = eventually(&bus, &app, dialogs).await;
        assert!(dialogs(&s), "no Dialogs demo window");
        let t = s.tree();
        let label = t
            .ids()
            .find(|&id| t.node(id).role == Role::Label && t.node(id).name == "Entry 2")
            .expect("the label");
        let grid = t.parent(label).expect("the label's container");
        let texts: Vec<(&str, &str)> = t
            .children(grid)
            .iter()
            .map(|&id| t.node(id))
            .filter(|n| matches!(n.role, Role::Text | Role::Label))
            .map(|n| (n.raw_role.as_str(), n.name.as_str()))
            .collect();
        assert_eq!(
            texts,
            [
                ("text", "Entry 1"),
                ("label", "Entry 2"),
                ("text", "Entry 2")
            ]
        );
    });
}

/// GTK 3 sends `bounds-changed` for a widget laid out again whether it
/// moved or not: after a check box is ticked, some objects restate the
/// rectangle their last event carried. A mirror reads no place for those
/// but their window's (`Profile::restated_bounds_say_nothing`), and still
/// equals a whole walk.
#[test]
fn a_mirror_reads_no_place_for_a_rectangle_restated() {
    let desktop = desktop_with(&[FACTORY]);
    rt().block_on(async {
        let bus = connect(&desktop).await;
        let app = find_app(&bus, FACTORY).await.expect("the app");
        let label = app.app.label();
        let actor = Actor::new(&bus, &label);
        let opts = CaptureOptions::default();
        // What the application says of places, told apart as the mirror
        // does: a rectangle restated, or a new one.
        let said = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = std::sync::Arc::clone(&said);
        let listening = subscribe_with(&bus, Some(&app.app.bus_name), move |e| {
            if e.kind.starts_with("object:bounds-changed") {
                if let (Ok(mut said), Some(rect)) = (sink.lock(), e.rect) {
                    said.push((e.source.path.clone(), rect));
                }
            }
            true
        })
        .await
        .expect("listening to the application");
        let mut mirror = Mirror::start(&bus, &app.app, None).await.expect("a mirror");
        let (first, reading) = mirror.capture(&bus, None, &opts).await.expect("capture");
        assert_eq!(reading, Reading::Whole("first capture"));
        let check = find(&first, |n| {
            n.role == Role::CheckBox
                && usable(n)
                && !n.states.contains(State::Checked)
                && !n.states.contains(State::Indeterminate)
        })
        .expect("an unchecked check box")
        .clone();
        let mut readings = Vec::new();
        // How many events had been said when each round began.
        let mut rounds_from = Vec::new();
        // Ticked and cleared four times; every capture after the first
        // two knows the rectangles the objects restate.
        for round in 0..4 {
            rounds_from.push(said.lock().map(|s| s.len()).unwrap_or_default());
            actor
                .click(&addr(&check))
                .await
                .expect("click the check box");
            let want = round % 2 == 0;
            let mut seen = None;
            for _ in 0..40 {
                tokio::time::sleep(Duration::from_millis(50)).await;
                let (s, reading) = mirror.capture(&bus, None, &opts).await.expect("capture");
                let ticked = find(&s, |n| n.identity == check.identity)
                    .is_some_and(|n| n.states.contains(State::Checked));
                if ticked == want {
                    seen = Some((s, reading));
                    break;
                }
            }
            let (mirrored, reading) = seen.expect("the check box ticked and cleared in turn");
            tokio::time::sleep(Duration::from_millis(300)).await;
            let (settled, later) = mirror.capture(&bus, None, &opts).await.expect("capture");
            let whole = snap(&bus, &app).await;
            let differ = differences(&settled, &whole, 5, true);
            assert!(
                differ.is_empty(),
                "round {round}: the mirror differs: {differ:?} (after {mirrored:?})"
            );
            readings.push((reading, later));
        }
        drop(listening);
        let said = said.lock().map(|s| s.clone()).unwrap_or_default();
        let mut last: std::collections::HashMap<&str, [i32; 4]> = Default::default();
        let restates: Vec<bool> = said
            .iter()
            .map(|(path, rect)| last.insert(path.as_str(), *rect) == Some(*rect))
            .collect();
        let restated = restates.iter().filter(|&&r| r).count();
        assert!(
            restated > 0,
            "GTK 3 restated no rectangle: nothing here measures the rule ({} events: {said:?})",
            said.len()
        );
        // The last two rounds: no place read again but the window's, for
        // what restated its rectangle. Nothing here moves, but on a busy
        // machine something may (a page laid out again late): a capture
        // may read places for a new rectangle, one capture for each.
        let late = &readings[2..];
        let reading_places = late
            .iter()
            .flat_map(|(reading, later)| [reading, later])
            .filter(|r| !matches!(r, Reading::Part { moved: 0 | 1, .. }))
            .count();
        let new_rects = restates[rounds_from[2]..].iter().filter(|&&r| !r).count();
        assert!(
            reading_places <= new_rects,
            "{reading_places} captures read places though {restated} of {} rectangles were \
             restated and {new_rects} new ones said in the last two rounds: {readings:?}",
            said.len()
        );
    });
}
