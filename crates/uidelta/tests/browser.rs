//! The command line in a browser: `--browser --url` starts a headless
//! Chromium for one command. Needs Debian's `chromium`; without it every
//! command fails saying `apt-get install -y chromium`, and so does this test.

use std::process::Command;

use uidelta_testkit::web::{fixtures_dir, Server};

fn uidelta(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_uidelta"))
        .args(args)
        .output()
        .expect("the uidelta binary runs");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        err,
    )
}

#[test]
fn click_navigate_script_and_tree_in_a_headless_browser() {
    let web = Server::start(&fixtures_dir()).expect("serving fixtures/web");

    let (code, out, err) = uidelta(&["tree", "--browser", "--url", &web.url("controls.html")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("[e1] document web \"Preferences\""),
        "{out}"
    );
    assert!(
        out.contains("  [e3] check box \"Subscribe to newsletter\"\n"),
        "{out}"
    );

    let url = web.url("controls.html");
    let (code, out, err) = uidelta(&[
        "click",
        "--browser",
        "--url",
        &url,
        "role:check box && name:Subscribe to newsletter",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[1].starts_with("# diff: ~2 modified · settled in "),
        "{out}"
    );
    assert_eq!(
        lines[2],
        "~ [e3] check box \"Subscribe to newsletter\" | checked: false -> true"
    );
    assert_eq!(
        lines[3],
        "~ [e15] status bar | name: \"No changes yet\" -> \"Newsletter: subscribed\""
    );

    let (code, out, err) = uidelta(&[
        "navigate",
        "--browser",
        "--url",
        &web.url("controls.html"),
        &web.url("form.html"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines().nth(1).is_some_and(|l| l
            .starts_with("# new document: [e1] document web \"Sign up\", was \"Preferences\" · ")),
        "{out}"
    );

    let (code, out, err) = uidelta(&[
        "script",
        "--browser",
        "--url",
        &web.url("form.html"),
        "document.title.length",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("# result: 7\n"), "{out}");

    let (code, _, err) = uidelta(&["navigate", "--app", "x", "back"]);
    assert_eq!(code, 2);
    assert!(err.contains("navigate acts in a browser"), "{err}");
}
