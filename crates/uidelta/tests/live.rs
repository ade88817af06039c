//! The live commands of the CLI on a real virtual desktop.

use std::process::{Command, Output};
use std::time::Duration;

use uidelta_testkit::{output_within, require_programs, Desktop, COMMAND_LIMIT};

const FACTORY: &str = "gtk3-widget-factory";

fn desktop() -> Desktop {
    require_programs(&[("Xvfb", "xvfb"), ("gtk3-widget-factory", "gtk-3-examples")])
        .expect("programs for the live tests");
    Desktop::start().expect("a virtual desktop")
}

#[test]
fn cli_lists_apps_and_captures_the_live_tree() {
    let desktop = desktop();
    // As on a real desktop, the GTK portal is on the bus, and before the
    // application: it has no windows and is listed after it.
    desktop
        .start_portal()
        .expect("xdg-desktop-portal-gtk on the bus");
    std::mem::forget(desktop.launch(FACTORY, &[]).expect("launch"));
    desktop
        .wait_for_accessible_app(FACTORY, Duration::from_secs(20))
        .expect("on the bus");
    let bin = env!("CARGO_BIN_EXE_uidelta");
    let run = |args: &[&str]| {
        let mut c = desktop.command(bin);
        c.args(args);
        let o = output(c, args);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(&["apps"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("gtk3-widget-factory (pid "), "{out}");
    let portal = out.lines().position(|l| {
        l.starts_with("xdg-desktop-portal-gtk (pid ") && l.ends_with(") (no windows)")
    });
    assert!(portal.is_some(), "{out}");
    let (code, out, err) = run(&["tree", "--app", "gtk3-widget"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("[e1] application \"gtk3-widget-factory\"\n"),
        "{out}"
    );
    assert!(out.contains("radio button \"Page 2\""), "{out}");
    let (code, _, err) = run(&["tree", "--app", "nosuch"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no application named `nosuch`"), "{err}");
    // Without --app, an action goes to the only application with a
    // window: the portal has none.
    let (code, out, err) = run(&["key", "Escape"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("# [e1] application \"gtk3-widget-factory\" via XTest Escape\n"),
        "{out}"
    );
    let shot = desktop.runtime_dir().join("s.png");
    let (code, _, err) = run(&["screenshot", "--out", shot.to_str().expect("utf-8 path")]);
    assert_eq!(code, Some(0), "{err}");
    assert!(std::fs::read(&shot).is_ok_and(|b| b.starts_with(b"\x89PNG")));
}

#[test]
fn cli_actions_print_diffs_and_watch_follows_changes() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    require_programs(&[("/usr/bin/python3", "python3-gi gir1.2-gtk-3.0")]).expect("python3-gi");
    let desktop = desktop();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/uidelta-fixture.py"
    );
    std::mem::forget(desktop.launch(fixture, &[]).expect("launch the fixture"));
    desktop
        .wait_for_accessible_app("uidelta-fixture", Duration::from_secs(20))
        .expect("on the bus");
    let bin = env!("CARGO_BIN_EXE_uidelta");
    let mut watch = desktop
        .command(bin)
        .args(["watch", "--app", "uidelta-fixture"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("uidelta watch");
    let stdout = watch.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // The watcher says it is watching before anything happens.
    let first = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("watch starts");
    assert_eq!(first, "# watching uidelta-fixture; Ctrl-C to stop");

    let count = [
        "click",
        "--app",
        "uidelta-fixture",
        "role:push button && name:Count",
    ];
    let (out, _) = uidelta_on(&desktop, None, &count);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("# [e")
            && lines[0].contains("] push button \"Count\" via XTest click at "),
        "{out}"
    );
    assert!(
        lines[1].starts_with("# diff: ~1 modified · settled in "),
        "{out}"
    );
    assert!(lines[2].starts_with("~ [e"), "{out}");
    assert!(
        lines[2].ends_with("] label | name: \"Count: 0\" -> \"Count: 1\""),
        "{out}"
    );

    let label = ref_on_line(&out, "label | name: \"Count: 0\"");
    let mut seen = Vec::new();
    let mut watch_until = |wanted: &str| {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while std::time::Instant::now() < deadline {
            if let Ok(line) = rx.recv_timeout(Duration::from_millis(500)) {
                let done = line.contains(wanted);
                seen.push(line);
                if done {
                    return true;
                }
            }
        }
        false
    };
    let first = watch_until("name: \"Count: 0\" -> \"Count: 1\"");

    // After the click's command saved the session, watch goes on with its
    // refs: the label the click named is the label watch names.
    let (out, _) = uidelta_on(&desktop, None, &count);
    let again = format!("~ [{label}] label | name: \"Count: 1\" -> \"Count: 2\"");
    assert!(out.contains(&again), "{out}");
    let second = watch_until(&again);
    let _ = watch.kill();
    let _ = watch.wait();
    assert!(first && second, "watch printed: {seen:?}");
}

/// What the command `c` (`uidelta` with `args`) printed; a command that
/// hangs is killed (`COMMAND_LIMIT`), and the test fails saying so.
fn output(c: Command, args: &[&str]) -> Output {
    let what = format!("uidelta {}", args.join(" "));
    output_within(c, COMMAND_LIMIT, &what).unwrap_or_else(|e| panic!("{e}"))
}

/// The ref on the line of `out` that names `what` (`table cell "Entry"`).
fn ref_on_line(out: &str, what: &str) -> String {
    let line = out
        .lines()
        .find(|l| l.contains(&format!("] {what}")))
        .unwrap_or_else(|| panic!("no line with {what} in:\n{out}"));
    let start = line.find("[e").expect("a ref") + 1;
    let end = start + line[start..].find(']').expect("the ref's end");
    line[start..end].to_owned()
}

/// A desktop with gtk3-demo on it.
fn demo_desktop() -> Desktop {
    require_programs(&[("gtk3-demo", "gtk-3-examples")]).expect("gtk3-demo");
    let desktop = desktop();
    std::mem::forget(desktop.launch("gtk3-demo", &[]).expect("launch"));
    desktop
        .wait_for_accessible_app("gtk3-demo", Duration::from_secs(20))
        .expect("on the bus");
    desktop
}

/// Runs uidelta on `desktop` (with its session in `state`, when given),
/// which must succeed: its standard output and error.
fn uidelta_on(
    desktop: &Desktop,
    state: Option<&std::path::Path>,
    args: &[&str],
) -> (String, String) {
    let mut c = desktop.command(env!("CARGO_BIN_EXE_uidelta"));
    c.args(args);
    if let Some(dir) = state {
        c.env("UIDELTA_STATE_DIR", dir);
    }
    let o = output(c, args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "uidelta {args:?}: {err}");
    (String::from_utf8_lossy(&o.stdout).into_owned(), err)
}

/// Chooses the demo `name` in gtk3-demo's list and runs it, through the
/// command line: the output of the click on `Run`.
fn run_demo(desktop: &Desktop, name: &str) -> String {
    let run = |args: &[&str]| uidelta_on(desktop, None, args).0;
    let row = format!("role:table cell && name:\"{name}\"");
    run(&["select", "--app", "gtk3-demo", &row]);
    run(&[
        "click",
        "--app",
        "gtk3-demo",
        "role:push button && name:Run",
    ])
}

#[test]
fn refs_a_command_prints_are_the_refs_the_next_command_reads() {
    let desktop = demo_desktop();
    let bin = env!("CARGO_BIN_EXE_uidelta");
    let run_in = |state: Option<&std::path::Path>, args: &[&str]| uidelta_on(&desktop, state, args);
    let run = |args: &[&str]| run_in(None, args).0;

    let tree = run(&["tree", "--app", "gtk3-demo"]);
    let entry = ref_on_line(&tree, "table cell \"Entry\"");
    let expander = ref_on_line(&tree, "table cell \"Expander\"");

    // Expanding `Entry` inserts its demos before `Expander`: a fresh tree
    // in preorder would number them where `Expander` was.
    let out = run(&["invoke", "--app", "gtk3-demo", &entry, "expand or contract"]);
    let buffer = ref_on_line(&out, "table cell \"Entry Buffer\"");
    assert_ne!(buffer, expander);
    let tree = run(&["tree", "--app", "gtk3-demo"]);
    assert_eq!(
        ref_on_line(&tree, "table cell \"Entry Buffer\""),
        buffer,
        "{tree}"
    );
    assert_eq!(
        ref_on_line(&tree, "table cell \"Expander\""),
        expander,
        "{tree}"
    );

    // The ref from the diff names that row in the next command.
    let out = run(&["select", "--app", "gtk3-demo", &buffer]);
    assert!(
        out.starts_with(&format!(
            "# [{buffer}] table cell \"Entry Buffer\" via Selection.SelectChild\n"
        )),
        "{out}"
    );
    assert!(
        out.contains("| name: \"Application Class\" -> \"Entry Buffer\"\n"),
        "{out}"
    );

    // A change made elsewhere (here by a command that keeps its session in
    // another place) comes with the next result.
    let elsewhere = desktop.runtime_dir().join("elsewhere");
    run_in(
        Some(&elsewhere),
        &["invoke", "--app", "gtk3-demo", &entry, "expand or contract"],
    );
    let out = run(&["select", "--app", "gtk3-demo", &expander]);
    let (before, after) = out
        .split_once("# diff: ")
        .and_then(|(_, rest)| rest.split_once("# diff: "))
        .unwrap_or_else(|| panic!("two diffs in:\n{out}"));
    assert!(
        out.contains("# changed before this action, in gtk3-demo (pid "),
        "{out}"
    );
    assert!(before.starts_with("-4 removed"), "{out}");
    let rows = before
        .lines()
        .filter(|l| {
            l.starts_with("- [e") && l.contains("] table cell \"") && !l.contains("descendant")
        })
        .count();
    assert_eq!(rows, 4, "{out}");
    assert!(
        after.contains("| name: \"Entry Buffer\" -> \"Expander\"\n"),
        "{out}"
    );

    // So does wait-change, at once rather than after another change or its
    // timeout.
    run_in(
        Some(&elsewhere),
        &["invoke", "--app", "gtk3-demo", &entry, "expand or contract"],
    );
    let asked = std::time::Instant::now();
    let out = run(&["wait-change", "--app", "gtk3-demo", "--timeout", "60000"]);
    assert!(
        asked.elapsed() < Duration::from_secs(60),
        "it waited for the timeout: {out}"
    );
    assert!(
        out.contains("# changed before this wait, in gtk3-demo (pid "),
        "{out}"
    );
    assert!(out.contains("# diff: +4 added"), "{out}");
    assert!(out.contains("] table cell \"Entry Buffer\"\n"), "{out}");

    // A window can be named by its ref (windows may share a title).
    let tree = run(&["tree", "--app", "gtk3-demo"]);
    let main = ref_on_line(&tree, "frame \"");
    let window = run(&["tree", "--app", "gtk3-demo", "--window", &main]);
    assert!(
        window.starts_with(&format!("[{main}] frame \"")),
        "{window}"
    );
    assert!(
        window.contains("] table cell \"Entry Buffer\"\n"),
        "{window}"
    );
    assert!(window.lines().count() > 60, "{window}");
    let app = ref_on_line(&tree, "application \"gtk3-demo\"");
    let args = ["tree", "--app", "gtk3-demo", "--window", &app];
    let mut c = desktop.command(bin);
    c.args(args);
    let o = output(c, &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{app} is not a window of gtk3-demo (pid ")),
        "{err}"
    );
    assert!(
        err.contains(&format!("; its windows: [{main}] frame \"")),
        "{err}"
    );

    // Where no session file can be written, a command runs on its own.
    let (tree, err) = run_in(
        Some(std::path::Path::new("/proc/no-such-place")),
        &["tree", "--app", "gtk3-demo"],
    );
    assert!(
        tree.starts_with("[e1] application \"gtk3-demo\"\n"),
        "{tree}"
    );
    assert!(
        err.starts_with("uidelta: no session to carry on (creating /proc/no-such-place"),
        "{err}"
    );
    assert!(
        err.contains("refs printed here hold for this command only"),
        "{err}"
    );

    // A damaged session file is set aside with a warning; refs start afresh.
    let dir = desktop.runtime_dir().join("uidelta");
    let file = std::fs::read_dir(&dir)
        .expect("the session directory")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("a session file");
    std::fs::write(&file, "{ not json").expect("damage it");
    let (tree, err) = run_in(None, &["tree", "--app", "gtk3-demo"]);
    assert!(
        err.contains("uidelta: refs start afresh: the saved session "),
        "{err}"
    );
    assert!(err.contains("it is not a session file"), "{err}");
    assert!(
        tree.starts_with("[e1] application \"gtk3-demo\"\n"),
        "{tree}"
    );
    assert!(file.with_extension("bad").exists());
}

/// The CLI ends right after an accessible action whose handler runs a modal
/// dialog; a key pressed while that dialog is open used to hang GTK for
/// good, waiting on the dispatch of the connection the action came over.
#[test]
fn a_key_after_an_action_that_opened_a_dialog_from_the_command_line() {
    let desktop = demo_desktop();
    let run = |args: &[&str]| uidelta_on(&desktop, None, args).0;
    run_demo(&desktop, "Dialogs and Message Boxes");
    // Through the element's accessible action: its handler runs the
    // message box with gtk_dialog_run, and this command ends meanwhile.
    let out = run(&[
        "invoke",
        "--app",
        "gtk3-demo",
        "role:push button && name:\"Message Dialog\"",
        "click",
    ]);
    assert!(
        out.contains("] alert \"Information\" (modal) (opened)\n"),
        "{out}"
    );
    let out = run(&["key", "--app", "gtk3-demo", "Escape"]);
    assert!(out.contains("] alert \"Information\" (closed)"), "{out}");
    let tree = run(&["tree", "--app", "gtk3-demo", "--focused"]);
    assert!(
        tree.contains("] push button \"Message Dialog\" (focused)\n"),
        "{tree}"
    );
}

#[test]
fn windows_are_closed_from_the_command_line_even_when_two_share_a_title() {
    let desktop = demo_desktop();
    let run = |args: &[&str]| uidelta_on(&desktop, None, args).0;
    let out = run_demo(&desktop, "Pickers");
    // The demo's window and the main window are both titled `Pickers`.
    let demo = ref_on_line(&out, "frame \"Pickers\" (modal) (opened)");
    let out = run(&["close-window", "--app", "gtk3-demo", "--window", &demo]);
    assert!(
        out.starts_with(&format!(
            "# [{demo}] frame \"Pickers\" via WM_DELETE_WINDOW to 0x"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("\n- [{demo}] frame \"Pickers\" (closed) (and ")),
        "{out}"
    );
    // Closing the main window ends gtk3-demo.
    let out = run(&["close-window", "--app", "gtk3-demo"]);
    assert!(out.contains(" via WM_DELETE_WINDOW to "), "{out}");
    assert!(out.contains("\n# gtk3-demo (pid "), "{out}");
    assert!(out.ends_with(") exited\n"), "{out}");
    // The same, as JSON, for another application on the desktop.
    std::mem::forget(
        desktop
            .launch("gtk3-widget-factory", &[])
            .expect("launch the widget factory"),
    );
    desktop
        .wait_for_accessible_app("gtk3-widget-factory", Duration::from_secs(20))
        .expect("the widget factory on the bus");
    let out = run(&[
        "close-window",
        "--app",
        "gtk3-widget-factory",
        "--format",
        "json",
    ]);
    let answer: serde_json::Value = serde_json::from_str(&out).expect("one JSON answer");
    assert_eq!(answer["app"], "gtk3-widget-factory", "{out}");
    assert_eq!(answer["exited"], true, "{out}");
    assert!(answer["pid"].as_u64().is_some_and(|p| p > 0), "{out}");
}
