//! OSWorld's accessibility-tree XML of a live application, captured through
//! the command line: the diff of two such captures is the diff of the
//! interchange JSON captured with them.

use std::time::Duration;

use uidelta_testkit::{output_within, require_programs, Desktop, COMMAND_LIMIT};

const FACTORY: &str = "gtk3-widget-factory";

#[test]
fn live_captures_diff_the_same_as_osworld_xml_and_as_json() {
    require_programs(&[("Xvfb", "xvfb"), (FACTORY, "gtk-3-examples")])
        .expect("programs for the live tests");
    let desktop = Desktop::start().expect("a virtual desktop");
    std::mem::forget(desktop.launch(FACTORY, &[]).expect("launch"));
    desktop
        .wait_for_accessible_app(FACTORY, Duration::from_secs(20))
        .expect("on the bus");
    let run = |args: &[&str]| {
        let mut c = desktop.command(env!("CARGO_BIN_EXE_uidelta"));
        c.args(args);
        let what = format!("uidelta {}", args.join(" "));
        let o = output_within(c, COMMAND_LIMIT, &what).unwrap_or_else(|e| panic!("{e}"));
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            err,
        )
    };
    let dir = desktop.runtime_dir().to_path_buf();
    let capture = |name: &str| {
        for (format, extension) in [
            ("json", "json"),
            ("osworld", "xml"),
            ("osworld-table", "tsv"),
        ] {
            let (code, out, err) = run(&["tree", "--app", FACTORY, "--format", format]);
            assert_eq!(code, Some(0), "{err}");
            let path = dir.join(format!("{name}.{extension}"));
            std::fs::write(&path, out).expect("write the capture");
        }
    };
    capture("before");
    let (code, _, err) = run(&[
        "click",
        "--app",
        FACTORY,
        "role:check box && name:checkbutton && !state:checked && !state:disabled && nth:0",
    ]);
    assert_eq!(code, Some(0), "{err}");
    capture("after");

    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let (code, from_json, err) = run(&["diff", &path("before.json"), &path("after.json")]);
    assert_eq!(code, Some(1), "{err} {from_json}");
    let (code, from_xml, err) = run(&["diff", &path("before.xml"), &path("after.xml")]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(from_xml, from_json);
    assert!(
        from_xml.contains("check box \"checkbutton\" | checked: false -> true"),
        "{from_xml}"
    );

    let xml = std::fs::read_to_string(dir.join("after.xml")).expect("read the capture");
    assert!(
        xml.starts_with(
            "<application xmlns:st=\"https://accessibility.ubuntu.example.org/ns/state\""
        ),
        "{xml}"
    );
    assert!(
        xml.contains("<check-box name=\"checkbutton\" st:checked=\"true\""),
        "{xml}"
    );
    // OSWorld's table has no states: checking a box changes no row.
    let table = |name: &str| std::fs::read_to_string(dir.join(name)).expect("read the table");
    assert_eq!(table("before.tsv"), table("after.tsv"));
    assert!(
        table("after.tsv").contains("\ncheck-box\tcheckbutton\t\"\"\t\t\t("),
        "{}",
        table("after.tsv")
    );
}
