//! `uidelta mcp` outlives the desktop it serves: started before there is
//! one, and across a restart of the accessibility bus. Driven over stdio
//! with JSON-RPC lines, as an MCP host does.

mod common;

use std::time::Duration;

use serde_json::json;
use uidelta_testkit::{require_programs, Desktop};

use common::{is_error, text, Mcp};

const FACTORY: &str = "gtk3-widget-factory";

fn wait_for_factory(desktop: &Desktop) {
    desktop
        .wait_for_accessible_app(FACTORY, Duration::from_secs(20))
        .expect("the factory on the accessibility bus");
}

#[test]
fn the_server_reads_the_desktop_again_after_its_accessibility_bus_restarted() {
    require_programs(&[("Xvfb", "xvfb"), (FACTORY, "gtk-3-examples")])
        .expect("programs for the live tests");
    let desktop = Desktop::start().expect("a virtual desktop");
    let mut factory = desktop.launch(FACTORY, &[]).expect("launch the factory");
    wait_for_factory(&desktop);
    let mut mcp = Mcp::start(&desktop);
    let first = mcp.call("get_window_tree", json!({"app": FACTORY}));
    assert!(!is_error(&first), "{first}");
    let old_pid = first["structuredContent"]["app"]["pid"].clone();
    assert!(old_pid.is_u64(), "{first}");
    let page2 = "role:radio button && name:Page 2";
    let found = mcp.call("find_elements", json!({"selector": page2}));
    let old_ref = found["structuredContent"]["matches"][0]["ref"].clone();
    assert!(old_ref.is_string(), "{found}");

    factory.kill();
    desktop
        .restart_accessibility_bus()
        .expect("the accessibility bus starts again");
    std::mem::forget(
        desktop
            .launch(FACTORY, &[])
            .expect("launch the factory again"),
    );
    wait_for_factory(&desktop);

    // The call that finds the bus gone says so; it is not the application.
    let after = mcp.call("get_window_tree", json!({"app": FACTORY}));
    if is_error(&after) {
        let error = &after["structuredContent"]["error"];
        assert_eq!(error["kind"], "disconnected", "{after}");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("the accessibility bus at unix:path=")
                && message.contains(" is gone (Broken pipe")
                && message.ends_with("; reconnecting on the next call"),
            "{message}"
        );
        let again = mcp.call("get_window_tree", json!({"app": FACTORY}));
        assert!(!is_error(&again), "{again}");
    }
    let tree = mcp.call("get_window_tree", json!({"app": FACTORY}));
    assert!(!is_error(&tree), "{tree}");
    let new_pid = &tree["structuredContent"]["app"]["pid"];
    assert!(new_pid.is_u64() && *new_pid != old_pid, "{tree}");
    assert!(
        text(&tree).contains("radio button \"Page 2\""),
        "{}",
        text(&tree)
    );
    // The application of the old bus is forgotten, and its refs with it,
    // even where the new bus gave the new one the same unique name.
    let found = mcp.call("find_elements", json!({"selector": page2}));
    assert!(!is_error(&found), "{found}");
    assert_eq!(found["structuredContent"]["total"], 1, "{found}");
    let new_ref = found["structuredContent"]["matches"][0]["ref"].clone();
    assert_ne!(new_ref, old_ref, "{found}");
    let stale = mcp.call("click_element", json!({"target": old_ref}));
    assert_eq!(
        stale["structuredContent"]["error"]["kind"], "ref_gone",
        "{stale}"
    );
    let clicked = mcp.call("click_element", json!({"target": new_ref}));
    assert!(!is_error(&clicked), "{clicked}");
    assert!(
        text(&clicked).contains("radio button \"Page 2\""),
        "{}",
        text(&clicked)
    );
}

#[test]
fn the_server_starts_without_a_session_bus_and_connects_once_there_is_one() {
    require_programs(&[("Xvfb", "xvfb"), (FACTORY, "gtk-3-examples")])
        .expect("programs for the live tests");
    let mut desktop = Desktop::start_without_buses().expect("a virtual X server");
    let mut mcp = Mcp::start(&desktop);
    let tools = mcp.request("tools/list", json!({}));
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .expect("a list of tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"get_applications"), "{names:?}");

    let none = mcp.call("get_applications", json!({}));
    assert!(is_error(&none), "{none}");
    let error = &none["structuredContent"]["error"];
    assert_eq!(error["kind"], "disconnected", "{none}");
    let message = error["message"].as_str().unwrap_or_default();
    let tried = format!(
        "cannot reach the session bus at {} (from DBUS_SESSION_BUS_ADDRESS)",
        desktop.session_bus_address()
    );
    assert!(
        message.starts_with("no desktop to work on: connecting to the accessibility bus: ")
            && message.contains(&tried)
            && message.contains("or AT_SPI_BUS_ADDRESS to the accessibility bus's")
            && message.ends_with("; every call tries to connect again"),
        "{message}"
    );

    desktop.start_buses().expect("the buses start");
    std::mem::forget(desktop.launch(FACTORY, &[]).expect("launch the factory"));
    wait_for_factory(&desktop);
    let apps = mcp.call("get_applications", json!({}));
    assert!(!is_error(&apps), "{apps}");
    // Not the only application: a desktop has services (a portal) too.
    let listed = apps["structuredContent"]["applications"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(listed.iter().any(|a| a["name"] == FACTORY), "{apps}");
    let tree = mcp.call("get_window_tree", json!({"app": FACTORY}));
    assert!(!is_error(&tree), "{tree}");
    assert!(
        text(&tree).contains("radio button \"Page 2\""),
        "{}",
        text(&tree)
    );
}

#[test]
fn the_server_works_again_after_the_x_server_restarted() {
    require_programs(&[("Xvfb", "xvfb"), (FACTORY, "gtk-3-examples")])
        .expect("programs for the live tests");
    let mut desktop = Desktop::start().expect("a virtual desktop");
    let mut factory = desktop.launch(FACTORY, &[]).expect("launch the factory");
    wait_for_factory(&desktop);
    let mut mcp = Mcp::start(&desktop);
    let shot = mcp.call("capture_screenshot", json!({}));
    assert!(!is_error(&shot), "{shot}");

    factory.kill();
    desktop
        .restart_display()
        .expect("the X server starts again");
    std::mem::forget(
        desktop
            .launch(FACTORY, &[])
            .expect("launch the factory again"),
    );
    wait_for_factory(&desktop);

    // The call that finds the display gone says so; the next connects again.
    let shot = mcp.call("capture_screenshot", json!({}));
    if is_error(&shot) {
        let error = &shot["structuredContent"]["error"];
        assert_eq!(error["kind"], "disconnected", "{shot}");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with(&format!("the X display {} is gone (", desktop.display()))
                && message.ends_with("; reconnecting on the next call"),
            "{message}"
        );
    }
    let shot = mcp.call("capture_screenshot", json!({}));
    assert!(!is_error(&shot), "{shot}");
    assert_eq!(
        shot["content"][1]["mimeType"],
        "image/png",
        "{}",
        text(&shot)
    );
    let clicked = mcp.call(
        "click_element",
        json!({"app": FACTORY, "target": "role:radio button && name:Page 2"}),
    );
    assert!(!is_error(&clicked), "{clicked}");
    assert!(
        text(&clicked).contains("checked: false -> true"),
        "{}",
        text(&clicked)
    );
}

#[test]
fn the_server_reads_the_accessibility_bus_while_the_x_display_is_missing() {
    require_programs(&[("Xvfb", "xvfb"), (FACTORY, "gtk-3-examples")])
        .expect("programs for the live tests");
    let desktop = Desktop::start().expect("a virtual desktop");
    std::mem::forget(desktop.launch(FACTORY, &[]).expect("launch the factory"));
    wait_for_factory(&desktop);
    // A display no X server serves.
    let missing = (100..1000)
        .map(|n| format!(":{n}"))
        .find(|d| !std::path::Path::new(&format!("/tmp/.X11-unix/X{}", &d[1..])).exists())
        .expect("a free display number");
    let mut mcp = Mcp::start_with(&desktop, &[("DISPLAY", &missing)]);
    let tree = mcp.call("get_window_tree", json!({"app": FACTORY}));
    assert!(!is_error(&tree), "{tree}");
    let shot = mcp.call("capture_screenshot", json!({}));
    let error = &shot["structuredContent"]["error"];
    assert_eq!(error["kind"], "disconnected", "{shot}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(&format!(
            "taking a screenshot: connecting to X display `{missing}`: "
        )) && message.ends_with(
            " (from DISPLAY); start the X server there, or set DISPLAY to its display; every \
             call tries to connect again"
        ),
        "{message}"
    );
}
