//! The live commands of the CLI on a real virtual desktop.

use std::time::Duration;

use uidelta_testkit::{require_programs, Desktop};

const FACTORY: &str = "gtk3-widget-factory";

fn desktop() -> Desktop {
    require_programs(&[("Xvfb", "xvfb"), ("gtk3-widget-factory", "gtk-3-examples")])
        .expect("programs for the live tests");
    Desktop::start().expect("a virtual desktop")
}

#[test]
fn cli_lists_apps_and_captures_the_live_tree() {
    let desktop = desktop();
    std::mem::forget(desktop.launch(FACTORY, &[]).expect("launch"));
    desktop
        .wait_for_accessible_app(FACTORY, Duration::from_secs(20))
        .expect("on the bus");
    let bin = env!("CARGO_BIN_EXE_uidelta");
    let run = |args: &[&str]| {
        let mut c = desktop.command(bin);
        c.args(args);
        let o = c.output().expect("uidelta runs");
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(&["apps"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("gtk3-widget-factory (pid "), "{out}");
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

    let o = desktop
        .command(bin)
        .args([
            "click",
            "--app",
            "uidelta-fixture",
            "role:push button && name:Count",
        ])
        .output()
        .expect("uidelta click");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
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

    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::time::Instant::now() < deadline {
        match rx.recv_timeout(Duration::from_millis(500)) {
            Ok(line) => {
                let done = line.contains("name: \"Count: 0\" -> \"Count: 1\"");
                seen.push(line);
                if done {
                    break;
                }
            }
            Err(_) => continue,
        }
    }
    let _ = watch.kill();
    let _ = watch.wait();
    assert!(
        seen.iter()
            .any(|l| l.contains("name: \"Count: 0\" -> \"Count: 1\"")),
        "watch printed: {seen:?}"
    );
}
