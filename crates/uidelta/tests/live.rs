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
