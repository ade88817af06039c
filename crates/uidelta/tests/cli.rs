//! The command line, run as a user runs it: files in, text and exit codes out.

use std::process::{Command, Output, Stdio};

fn uidelta(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_uidelta"))
        .args(args)
        .output()
        .expect("the uidelta binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A test's input files, in a directory of its own that goes with it.
struct Files(tempfile::TempDir);

impl Files {
    fn new() -> Self {
        Files(tempfile::tempdir().expect("temp dir"))
    }

    /// Writes `text` to the file `name`, and answers its path.
    fn write(&self, name: &str, text: &str) -> String {
        let path = self.0.path().join(name);
        std::fs::write(&path, text).expect("write fixture");
        path.to_string_lossy().into_owned()
    }
}

fn window(dx: i32, id: &str, checked: bool, button: &str) -> String {
    let checked = if checked { r#","checked""# } else { "" };
    format!(
        r#"{{"source":"atspi","app":"demo","root":{{"id":"{id}/0","role":"frame","name":"Demo",
        "states":["enabled","showing"],"bounds":[{x0},0,400,300],"children":[
        {{"id":"{id}/1","role":"filler","children":[
          {{"id":"{id}/2","role":"check box","name":"Bold","states":["enabled","focusable","showing"{checked}],"bounds":[{x1},40,80,20]}},
          {{"id":"{id}/3","role":"push button","name":"{button}","states":["enabled","showing"],"bounds":[{x2},80,80,30]}}
        ]}}]}}}}"#,
        x0 = dx,
        x1 = dx + 10,
        x2 = dx + 100,
    )
}

#[test]
fn moved_window_with_new_ids_is_no_change_and_exit_0() {
    let files = Files::new();
    let a = files.write("a.json", &window(0, ":1.5", false, "Apply"));
    let b = files.write("b.json", &window(118, ":1.9", false, "Apply"));
    let o = uidelta(&["diff", &a, &b]);
    assert_eq!(stdout(&o), "No UI changes detected\n", "{}", stderr(&o));
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn toggled_check_box_is_one_line_and_exit_1() {
    let files = Files::new();
    let a = files.write("a.json", &window(0, ":1.5", false, "Apply"));
    let b = files.write("b.json", &window(0, ":1.5", true, "Apply"));
    let o = uidelta(&["diff", &a, &b]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "# diff: ~1 modified");
    assert_eq!(
        lines[1],
        r#"~ [e2] check box "Bold" | checked: false -> true"#
    );
    assert_eq!(lines.len(), 2, "{out}");
}

#[test]
fn renamed_button_keeps_its_ref() {
    let files = Files::new();
    let a = files.write("a.json", &window(0, ":1.5", false, "Apply"));
    let b = files.write("b.json", &window(0, ":1.6", false, "Revert"));
    let o = uidelta(&["diff", &a, &b]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains(r#"~ [e3] push button | name: "Apply" -> "Revert""#),
        "{}",
        stdout(&o)
    );
}

#[test]
fn keep_bounds_reports_the_move() {
    let files = Files::new();
    let a = files.write("a.json", &window(0, ":1.5", false, "Apply"));
    let b = files.write("b.json", &window(118, ":1.5", false, "Apply"));
    let o = uidelta(&["diff", &a, &b, "--keep", "bounds"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("bounds: @0,0 400x300 -> @118,0 400x300"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn json_output_parses_and_counts() {
    let files = Files::new();
    let a = files.write("a.json", &window(0, ":1.5", false, "Apply"));
    let b = files.write("b.json", &window(0, ":1.5", true, "Apply"));
    let o = uidelta(&["diff", &a, &b, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains(r#""has_changes": true"#), "{out}");
    assert!(out.contains(r#""modified": 1"#), "{out}");
}

#[test]
fn tree_renders_refs_and_hides_layout_fillers() {
    let files = Files::new();
    let a = files.write("a.json", &window(0, ":1.5", true, "Apply"));
    let o = uidelta(&["tree", &a]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "[e1] frame \"Demo\"\n  [e2] check box \"Bold\" (checked)\n  [e3] push button \"Apply\"\n"
    );
}

#[test]
fn terminator_yaml_is_read() {
    let files = Files::new();
    let a = files.write("a.yaml",
        "#1 [Window] Notepad (bounds: [0,0,800,600], focusable)\n  #2 [Button] Save (bounds: [10,10,80,20], focusable)\n",
    );
    let b = files.write("b.yaml",
        "#1 [Window] Notepad (bounds: [40,0,800,600], focusable)\n  - [TitleBar]\n  #2 [Button] Save (bounds: [50,10,80,20], disabled, focusable)\n",
    );
    let o = uidelta(&["diff", &a, &b]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(r#"~ [e2] push button "Save" | enabled: true -> false"#),
        "{out}"
    );
}

#[test]
fn malformed_input_is_trouble_with_a_position() {
    let files = Files::new();
    let a = files.write(
        "a.json",
        "{\"root\": {\"role\": \"frame\",\n  \"children\": [ {\"name\": \"x\"} ]}}",
    );
    let b = files.write("b.json", &window(0, ":1.5", false, "Apply"));
    let o = uidelta(&["diff", &a, &b]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.starts_with("uidelta: reading a snapshot from"), "{err}");
    assert!(err.contains("line 2"), "{err}");
}

#[test]
fn missing_file_and_unknown_rule_are_trouble() {
    let files = Files::new();
    let o = uidelta(&["diff", "/nonexistent/a.json", "/nonexistent/b.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/a.json"), "{}", stderr(&o));
    let a = files.write("a.json", &window(0, ":1.5", false, "Apply"));
    let o = uidelta(&["diff", &a, &a, "--keep", "colour"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("volatile-ids"), "{}", stderr(&o));
}

/// `uidelta ARGS` in a shell that caps its address space at 1 GiB, so that
/// reading without a limit fails there instead of taking the machine.
fn uidelta_in_1_gib(args: &str, stdin: Stdio) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 1048576 && exec '{}' {args}",
            env!("CARGO_BIN_EXE_uidelta")
        ))
        .stdin(stdin)
        .output()
        .expect("sh runs uidelta")
}

#[test]
fn an_endless_input_is_refused_at_the_size_limit() {
    let o = uidelta_in_1_gib("tree /dev/zero", Stdio::null());
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert_eq!(
        stderr(&o),
        "uidelta: reading /dev/zero: it is larger than 256 MiB, the most read of an input; \
         raise the limit with --max-input-mib\n"
    );
    let zero = std::fs::File::open("/dev/zero").expect("/dev/zero opens");
    let o = uidelta_in_1_gib("tree - --max-input-mib 1", Stdio::from(zero));
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(
        stderr(&o).starts_with("uidelta: reading standard input: it is larger than 1 MiB"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_file_over_the_size_limit_is_refused_and_one_at_it_is_read() {
    let files = Files::new();
    let snapshot = window(0, ":1.5", false, "Apply");
    let padded = format!("{snapshot}{}", " ".repeat(1024 * 1024 - snapshot.len()));
    let at = files.write("at.json", &padded);
    let over = files.write("over.json", &format!("{padded} "));
    let o = uidelta(&["diff", &at, &over, "--max-input-mib", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "uidelta: reading {over}: it is larger than 1 MiB, the most read of an input; \
             raise the limit with --max-input-mib\n"
        )
    );
    let o = uidelta(&["diff", &at, &at, "--max-input-mib", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn filters_are_listed() {
    let o = uidelta(&["filters"]);
    assert_eq!(o.status.code(), Some(0));
    let names: Vec<String> = stdout(&o)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    assert_eq!(
        names,
        [
            "bounds",
            "volatile-ids",
            "scrollbars",
            "whitespace",
            "empty-containers",
            "empty-cells",
            "volatile-states"
        ]
    );
}

#[test]
fn osworld_xml_and_macos_use_json_are_read_and_osworld_formats_written() {
    let files = Files::new();
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/osworld/");
    let before = format!("{fixtures}widget-factory-01-start.xml");
    let after = format!("{fixtures}widget-factory-02-checked.xml");
    let o = uidelta(&["diff", &before, &after]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "# diff: ~1 modified\n~ [e58] check box \"checkbutton\" | checked: false -> true\n"
    );

    let o = uidelta(&["tree", "--format", "osworld", &before]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let xml = stdout(&o);
    assert!(xml.starts_with("<application xmlns:st="), "{xml}");
    assert!(xml.contains("<check-box name=\"checkbutton\" "), "{xml}");
    let o = uidelta(&["tree", "--format", "osworld-table", &before]);
    let table = stdout(&o);
    assert!(
        table.starts_with("tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)\npush-button\tMinimize\t\"\"\t\t\t(1242, 12)\t(34, 30)\n"),
        "{table}"
    );
    let o = uidelta(&["diff", "--format", "osworld", &before, &after]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("OSWorld's formats hold trees, not diffs"),
        "{}",
        stderr(&o)
    );

    let traversal = files.write("calculator.json",
        r#"{"app_name": "Calculator", "elements": [
            {"role": "AXButton (button)", "text": "7", "x": 112, "y": 300, "width": 40, "height": 40}]}"#,
    );
    let o = uidelta(&["tree", "--bounds", &traversal]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "[e1] application \"Calculator\"\n  [e2] push button \"7\" @112,300 40x40\n"
    );
    let o = uidelta(&["tree", "--input", "json", &traversal]);
    assert_eq!(o.status.code(), Some(2));
}

/// A drag from a point needs the application whose diff to print, and
/// where to drop; both are said before anything is pressed.
#[test]
fn a_drag_from_a_point_names_what_it_lacks() {
    let o = uidelta(&["drag", "--from-point", "10,20", "--to-point", "30,40"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains("drag --from-point: name the application whose diff to print with --app"),
        "{}",
        stderr(&o)
    );
    let o = uidelta(&["drag", "--from-point", "10,20", "--app", "mousepad"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains("drag --from-point: give where to, one element to drop on or --to-point X,Y"),
        "{}",
        stderr(&o)
    );
    // Without it, what to drag and where to are both needed.
    let o = uidelta(&["drag", "e1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("required arguments were not provided"),
        "{}",
        stderr(&o)
    );
}
