//! `uidelta mcp` answers an action after which the application exits
//! (answering a zenity dialog) with `app_exited`, not an error: the agent
//! did what it meant to, and must not retry. Driven over stdio with
//! JSON-RPC lines, as an MCP host does. The command line says so too, and
//! succeeds.

mod common;

use std::time::Duration;

use serde_json::json;
use uidelta_testkit::{output_within, require_programs, Desktop, COMMAND_LIMIT};

use common::Mcp;

#[test]
fn clicking_ok_in_a_zenity_dialog_answers_that_it_exited() {
    require_programs(&[("Xvfb", "xvfb"), ("zenity", "zenity")]).expect("programs");
    let desktop = Desktop::start().expect("a virtual desktop");
    let _zenity = desktop
        .launch("zenity", &["--info", "--text", "Saved."])
        .expect("launch zenity");
    desktop
        .wait_for_accessible_app("zenity", Duration::from_secs(30))
        .expect("zenity on the accessibility bus");
    let mut mcp = Mcp::start(&desktop);
    let clicked = mcp.call(
        "click_element",
        json!({"target": "role:push button && name:OK", "app": "zenity"}),
    );
    assert_eq!(clicked["isError"], false, "{clicked}");
    let answer = &clicked["structuredContent"];
    assert_eq!(answer["app_exited"], true, "{clicked}");
    assert_eq!(answer["has_ui_changes"], true, "{clicked}");
    assert_eq!(answer["settle_capped"], false, "{clicked}");
    assert_eq!(answer["target"]["name"], "OK", "{clicked}");
    let text = clicked["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("# click_element: [e") && text.ends_with(") exited\n"),
        "{text}"
    );
}

#[test]
fn clicking_yes_from_the_command_line_says_that_zenity_exited_and_succeeds() {
    require_programs(&[("Xvfb", "xvfb"), ("zenity", "zenity")]).expect("programs");
    let desktop = Desktop::start().expect("a virtual desktop");
    let _zenity = desktop
        .launch("zenity", &["--question", "--text", "Proceed?"])
        .expect("launch zenity");
    desktop
        .wait_for_accessible_app("zenity", Duration::from_secs(30))
        .expect("zenity on the accessibility bus");
    let mut c = desktop.command(env!("CARGO_BIN_EXE_uidelta"));
    c.args(["click", "--app", "zenity", "role:push button && name:Yes"]);
    let o = output_within(c, COMMAND_LIMIT, "uidelta click").unwrap_or_else(|e| panic!("{e}"));
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.starts_with("# [e"), "{out}");
    assert!(
        out.contains("\n# zenity (pid ") && out.ends_with(") exited\n"),
        "{out}"
    );
}
