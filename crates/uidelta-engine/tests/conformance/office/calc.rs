//! LibreOffice Calc (its GTK 3 plugin): a sheet is a table of 1,048,576 ×
//! 16,384 cells that makes its cells on demand (`manages-descendants`).
//! Its tree arrives, with the cells on screen and their values, Calc is
//! idle afterwards, and an agent's task on it reads one diff per step.
//! The task goes to a cell by giving it the focus (`Component.GrabFocus`,
//! as keys would) or by a pointer click, and saves the sheet in Excel's
//! format through GTK's file chooser.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, ActionOutcome, Session};
use uidelta_linux::Linux;
use uidelta_testkit::{App, Desktop};

use crate::common::{self, ref_of, text};
use crate::office::{self, APP};

const INSTALL: &str = "libreoffice-calc libreoffice-gtk3";

/// A sheet with data (`fixtures/libreoffice/prices.fods`): prices and
/// counts of three items.
const SHEET: &str = include_str!("../../../../../fixtures/libreoffice/prices.fods");

/// A private desktop running Calc on `document` (written into the
/// desktop's runtime directory), in a profile of its own (see
/// [`office::launch_on_bus`]).
fn calc_with(document: &str) -> (Desktop, App, tokio::runtime::Runtime) {
    let desktop = Desktop::start().expect("a virtual desktop");
    let file: PathBuf = desktop.runtime_dir().join("prices.fods");
    std::fs::write(&file, document).expect("document");
    let file = file.to_string_lossy().into_owned();
    let app = office::launch_on_bus(&desktop, &["--calc", file.as_str()], INSTALL);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    (desktop, app, rt)
}

/// CPU time (user and system, in clock ticks) of process `pid` so far.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    // The fields after the command, which is in parentheses.
    let after = stat.rsplit_once(") ").map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime and stime: fields 14 and 15, 12th and 13th after the command.
    fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
}

/// Observes Calc until its sheet shows with the data in it, and where its
/// first cell is stays the same twice in a row (its tool bars are laid out
/// after the sheet first shows, and move it down). Returns how long the
/// last capture took.
async fn observe_sheet(s: &mut Session<Linux>) -> Duration {
    let mut last = None;
    for _ in 0..60 {
        let began = Instant::now();
        s.observe(APP).await.expect("observe");
        let took = began.elapsed();
        let a1 = s.find(&"role:table cell && name:A1".parse().expect("selector"));
        if let [(scope, node)] = a1[..] {
            let place = s.known_apps()[scope].node(node).bounds;
            if place.is_some() && place == last {
                return took;
            }
            last = place;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    panic!("Calc's sheet never showed its cells where they stay");
}

/// The line of the one element `selector` matches, as the tree shows it.
fn line_of(s: &Session<Linux>, selector: &str) -> String {
    let hits = s.find(&selector.parse().expect("selector"));
    assert_eq!(hits.len(), 1, "`{selector}` should match one element");
    let (scope, node) = hits[0];
    let opts = uidelta_render::TreeOptions::default();
    s.known_apps()[scope]
        .subtree_text(node, &opts)
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// The diff's header up to how long settling took, and its other lines.
fn split(a: &ActionOutcome) -> (String, Vec<String>) {
    let t = text(a);
    let mut lines = t.lines().map(str::to_owned);
    let header = lines.next().unwrap_or_default();
    let header = header
        .split(" · settled in ")
        .next()
        .unwrap_or_default()
        .to_owned();
    (header, lines.filter(|l| !l.is_empty()).collect())
}

/// Asserts the diff is `header` (up to the settle time) and exactly
/// `lines`, in order.
fn exactly(a: &ActionOutcome, header: &str, lines: &[String]) {
    let (h, got) = split(a);
    assert_eq!(h, header, "{}", text(a));
    assert_eq!(got, lines, "{}", text(a));
}

#[test]
fn calc_reads_the_cells_on_screen_and_a_task_reads_one_diff_per_step() {
    let (desktop, app, rt) = calc_with(SHEET);
    crate::steps::run_task(&rt, async {
        let mut s = common::session(&desktop).await;
        let took = observe_sheet(&mut s).await;
        eprintln!("capture of Calc: {} ms", took.as_millis());

        // The sheet's size and the cells on screen, once, on its line.
        let sheet = line_of(&s, "role:table");
        let shown = format!(
            "[{}] table \"Sheet Prices\" = \"1048576 rows × 16384 columns; rows 1-",
            ref_of(&s, "role:table")
        );
        assert!(sheet.starts_with(&shown), "{sheet}");
        assert!(sheet.contains(" shown: A1 to "), "{sheet}");
        // The cells on screen, every one, with their values; none beyond.
        let cells = s.find(&"role:table cell".parse().expect("selector"));
        assert!(cells.len() > 100, "{} cells", cells.len());
        assert!(cells.len() <= 2_000, "{} cells", cells.len());
        for (cell, value) in [
            ("A1", " = \"Item\""),
            ("B1", " = \"Price\""),
            ("C1", " = \"Count\""),
            ("A2", " = \"Apple\""),
            ("B2", " = \"3\""),
            ("C2", " = \"4\""),
            ("A3", " = \"Pear\""),
            ("B3", " = \"5\""),
            ("C3", ""),
            ("D2", ""),
        ] {
            let selector = format!("role:table cell && name:{cell}");
            let r = ref_of(&s, &selector);
            let line = line_of(&s, &selector);
            let want = format!("[{r}] table cell \"{cell}\"{value}");
            assert!(
                line == want || line == format!("{want} (focused)"),
                "{line} is not {want}"
            );
        }

        // Calc is idle afterwards: its CPU time does not keep growing (a
        // sheet read whole keeps it at 100% for minutes).
        tokio::time::sleep(Duration::from_secs(1)).await;
        let before = cpu_ticks(app.pid);
        tokio::time::sleep(Duration::from_secs(3)).await;
        let used = cpu_ticks(app.pid) - before;
        eprintln!("Calc's CPU over 3 s after the capture: {used} ticks");
        assert!(
            used < 150,
            "Calc used {used} ticks of CPU in 3 s after the capture"
        );

        let opts = ActOptions::default();
        // The Name Box: the text in the formula tool bar that names the
        // cell the cursor is in.
        let name_box = {
            let texts = s.find(
                &"role:tool bar && name:Formula Tool Bar >> role:text"
                    .parse()
                    .expect("selector"),
            );
            let named: Vec<String> = texts
                .iter()
                .filter(|&&(scope, node)| {
                    s.known_apps()[scope].node(node).value.as_deref() == Some("A1")
                })
                .map(|&(scope, node)| s.known_apps()[scope].refs.get(node).to_string())
                .collect();
            assert_eq!(named.len(), 1, "the Name Box: {named:?}");
            named[0].clone()
        };
        let name_box = |from: &str, to: &str| {
            format!(
                "~ [{name_box}] text in [{}] tool bar \"Formula Tool Bar\" | value: \"{from}\" -> \"{to}\"",
                ref_of(&s, "role:tool bar && name:Formula Tool Bar")
            )
        };
        let (a1_moved, c3_typed) = (name_box("A1", "C3"), name_box("C3", "C4"));
        let d2_undone = name_box("D3", "D2");
        let (d2_moved, d2_typed) = (name_box("C4", "D2"), name_box("D2", "D3"));
        let table = ref_of(&s, "role:table");
        let in_sheet = format!("in [{table}] table \"Sheet Prices\"");
        let a1 = ref_of(&s, "role:table cell && name:A1");
        let c3 = ref_of(&s, "role:table cell && name:C3");
        let d2 = ref_of(&s, "role:table cell && name:D2");
        let input = ref_of(&s, "role:panel && name:Input line >> role:paragraph");
        let input_panel = ref_of(&s, "role:panel && name:Input line");
        let row_break = ref_of(&s, "role:push button && name:Insert Row Break");
        let standard = ref_of(&s, "role:tool bar && name:Standard");

        // 1. To cell C3: the focus and the Name Box say so. (Calc's Input
        // line says it takes the focus too, and keeps saying so while the
        // sheet says it has the keyboard, which it has.)
        let a = s
            .act("role:table cell && name:C3", &Action::Focus, &opts)
            .await
            .expect("to C3");
        exactly(
            &a,
            &format!("# diff: ~3 modified · focus [{a1}] table cell \"A1\" -> [{c3}] table cell \"C3\""),
            &[
                a1_moved,
                format!("~ [{input}] paragraph in [{input_panel}] panel \"Input line\" | value: \"Item\" -> none | active, editable: false -> true"),
                format!("~ [{row_break}] push button \"Insert Row Break\" (hidden) in [{standard}] tool bar \"Standard\" | enabled: false -> true"),
            ],
        );

        // 2. A count into C3: its value, and Enter moves on to C4. The
        // first edit of the document also enables Undo and Save All
        // (and, at times, disables Text to Columns).
        let a = s
            .act(&c3, &Action::Type("6\n".into()), &opts)
            .await
            .expect("type into C3");
        let (header, lines) = split(&a);
        assert!(header.starts_with("# diff: ~"), "{}", text(&a));
        let c3_line = format!("~ [{c3}] table cell \"C3\" {in_sheet} | value: none -> \"6\"");
        assert!(lines.contains(&c3_line), "no {c3_line:?} in:\n{}", text(&a));
        assert!(
            lines.contains(&c3_typed),
            "no {c3_typed:?} in:\n{}",
            text(&a)
        );
        for line in &lines {
            let edit = line.contains("menu item \"Save All\"")
                || line.contains("menu item in ")
                || line.contains("menu item \"Text to Columns...\"")
                || line.contains("push button \"Undo\"");
            assert!(
                *line == c3_line || *line == c3_typed || edit,
                "{line:?} in:\n{}",
                text(&a)
            );
        }

        // 3. To cell D2 with the pointer, the first pointer event in
        // Calc's window: one line. (Until then Calc reports its window's
        // content 25 px higher than it shows; a click where it says D2 is
        // lands on D1.)
        let a = s.act(&d2, &Action::Click, &opts).await.expect("to D2");
        exactly(&a, "# diff: ~1 modified", &[d2_moved]);

        // 4. A formula into D2: its value and formula on one line, and
        // Enter moves on to D3. (Edit > Repeat may follow, disabled: it
        // no longer repeats.)
        let a = s
            .act(&d2, &Action::Type("=B2*C2\n".into()), &opts)
            .await
            .expect("type into D2");
        let (_, lines) = split(&a);
        let d2_line = format!("~ [{d2}] table cell \"D2\" {in_sheet} | value: none -> \"12\" | attr:Formula: \"\" -> \"B2*C2\"");
        assert!(lines.contains(&d2_line), "no {d2_line:?} in:\n{}", text(&a));
        assert!(
            lines.contains(&d2_typed),
            "no {d2_typed:?} in:\n{}",
            text(&a)
        );
        for line in &lines {
            let repeat =
                line.contains("menu item \"Repeat") && line.ends_with("enabled: true -> false");
            assert!(
                *line == d2_line || *line == d2_typed || repeat,
                "{line:?} in:\n{}",
                text(&a)
            );
        }

        // 5. The result, read: nothing changed since, and D2 says 12.
        let (_, diff) = s.observe(APP).await.expect("observe");
        assert!(!diff.has_changes(), "{diff:?}");
        assert_eq!(
            line_of(&s, &d2),
            format!("[{d2}] table cell \"D2\" = \"12\"")
        );

        // 6. Format Cells opens, with its buttons.
        let frame = ref_of(&s, "role:frame && name:prices.fods - LibreOffice Calc");
        let a = s.key(APP, "ctrl+1", &opts).await.expect("ctrl+1");
        let t = text(&a);
        let dialog = a
            .diff
            .opened()
            .find(|d| d.root().name == "Format Cells")
            .unwrap_or_else(|| panic!("no Format Cells opened:\n{t}"));
        let dialog = dialog.root().r#ref.to_string();
        let (header, lines) = split(&a);
        // (The keyboard leaves the sheet: LibreOffice says its root pane
        // has it, or an element of the dialog, once it says so. Calc's
        // sheet may say it is focused while the dialog shows, as a new
        // document's does; the dialog, modal, has the keyboard, so the
        // focus is never the sheet's.)
        assert!(header.starts_with("# diff: +1 added · "), "{t}");
        let focus_to = header.split(" -> ").nth(1).unwrap_or_default();
        assert!(!focus_to.contains("table \"Sheet"), "{t}");
        // Nor a moment later.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let (_, later) = s.observe(APP).await.expect("observe");
        assert!(later.focus.is_none(), "{later:?}");
        assert_eq!(
            lines[0],
            format!("+ [{dialog}] dialog \"Format Cells\" (modal) (opened)"),
            "{t}"
        );
        for button in ["Reset", "Help", "Cancel", "OK"] {
            let line = format!(
                "    [{}] push button \"{button}\"",
                ref_of(
                    &s,
                    &format!(
                        "role:dialog && name:Format Cells >> role:push button && name:{button}"
                    )
                )
            );
            assert!(lines.contains(&line), "no {line:?} in:\n{t}");
        }
        // Its tabs in two rows: the row not chosen has no nameless chosen
        // tab of its own (LibreOffice's placeholder).
        assert!(
            lines
                .iter()
                .any(|l| l.ends_with("] page tab \"Numbers\" (selected)")),
            "{t}"
        );
        assert!(
            !lines.iter().any(|l| l.ends_with("] page tab (selected)")),
            "{t}"
        );
        assert!(
            lines
                .iter()
                .all(|l| l.starts_with("    ") || l.starts_with("  ... ") || *l == lines[0]),
            "{t}"
        );
        // Calc's window gave the dialog the activation: said by the
        // dialog, not a line of its own, and still in the diff.
        let handed = |a: &ActionOutcome| -> Vec<(String, String)> {
            a.diff
                .handed_over
                .iter()
                .flat_map(|m| {
                    m.changes
                        .iter()
                        .map(|c| (m.element.r#ref.to_string(), format!("{:?}", c.new)))
                })
                .collect()
        };
        assert_eq!(
            handed(&a),
            [(frame.clone(), "Bool(false)".to_string())],
            "{t}"
        );

        // (Font Effects, a page not shown yet, in the tab row the dialog
        // opened on: the tab lines, and no combo box's name moving from
        // its hidden entry to its button as the page shows.)
        let effects = ref_of(
            &s,
            "role:dialog && name:Format Cells >> role:page tab && name:Font Effects",
        );
        let a = s
            .act(&effects, &Action::Click, &opts)
            .await
            .expect("Font Effects");
        let t = text(&a);
        let (_, lines) = split(&a);
        assert!(
            lines.iter().any(|l| l.starts_with(&format!(
                "~ [{effects}] page tab \"Font Effects\" in [{dialog}] dialog \"Format Cells\" | selected: false -> true (shows "
            ))),
            "{t}"
        );
        assert!(!lines.iter().any(|l| l.contains("| name: ")), "{t}");

        // 7. Cancel closes it: one line for all of it, and Calc's window
        // is active again (said by the closed dialog).
        let cancel = ref_of(
            &s,
            "role:dialog && name:Format Cells >> role:push button && name:Cancel",
        );
        let a = s.act(&cancel, &Action::Click, &opts).await.expect("cancel");
        let (header, lines) = split(&a);
        assert!(
            header == "# diff: -1 removed" || header.starts_with("# diff: -1 removed · "),
            "{}",
            text(&a)
        );
        assert_eq!(lines.len(), 1, "{}", text(&a));
        let closed = format!("- [{dialog}] dialog \"Format Cells\" (closed) (and ");
        assert!(lines[0].starts_with(&closed), "{}", text(&a));
        assert!(lines[0].ends_with(" descendants)"), "{}", text(&a));
        assert_eq!(handed(&a), [(frame.clone(), "Bool(true)".to_string())]);

        // 8. Undo: the formula is gone again, the cursor is back on D2,
        // and Redo can bring it back.
        let redo = ref_of(&s, "role:push button && name:Redo");
        let d3 = ref_of(&s, "role:table cell && name:D3");
        let a = s.key(APP, "ctrl+z", &opts).await.expect("undo");
        exactly(
            &a,
            &format!(
                "# diff: ~3 modified · focus [{d3}] table cell \"D3\" -> [{d2}] table cell \"D2\""
            ),
            &[
                format!("~ [{d2}] table cell \"D2\" {in_sheet} | value: \"12\" -> none | attr:Formula: \"B2*C2\" -> \"\""),
                d2_undone,
                format!("~ [{redo}] push button \"Redo\" in [{standard}] tool bar \"Standard\" | enabled: false -> true"),
            ],
        );

        // 9. Save As (Ctrl+Shift+S): GTK's file chooser, its name field
        // focused with the document's name.
        let a = s
            .key(APP, "ctrl+shift+s", &opts)
            .await
            .expect("ctrl+shift+s");
        let (a, chooser) = office::until_opened(&mut s, a).await;
        let got = split(&a).1;
        assert_eq!(
            got[0],
            format!("+ [{chooser}] file chooser \"Save\" (modal) (opened)"),
            "{}",
            got.join("\n")
        );
        // (With its extension, until the chooser's filter takes it off;
        // what is selected of it changes meanwhile.)
        assert!(
            got.iter().any(|l| {
                l.contains("] text \"Name:\" = \"prices\" (focused")
                    || l.contains("] text \"Name:\" = \"prices.fods\" (focused")
            }),
            "{}",
            got.join("\n")
        );

        // 10. A name of another format: one line.
        let name = ref_of(&s, "role:file chooser >> role:text && name:Name:");
        let widget = ref_of(&s, "role:file chooser && name:File Chooser Widget");
        let target = desktop.runtime_dir().join("prices.xlsx");
        let path = target.to_string_lossy().into_owned();
        let a = s
            .act(&name, &Action::SetValue(path.clone()), &opts)
            .await
            .expect("name the file");
        let (header, got) = split(&a);
        assert_eq!(header, "# diff: ~1 modified", "{}", text(&a));
        let field = format!(
            "~ [{name}] text \"Name:\" in [{widget}] file chooser \"File Chooser Widget\" | value: "
        );
        assert!(
            got[0] == format!("{field}\"prices\" -> {path:?}")
                || got[0] == format!("{field}\"prices.fods\" -> {path:?}"),
            "{}",
            text(&a)
        );

        // 11. Save: the chooser closes, and Calc asks whether to keep the
        // format, its two answers listed.
        let a = s
            .act(
                "role:file chooser && name:Save >> role:push button && name:Save",
                &Action::Click,
                &opts,
            )
            .await
            .expect("click Save");
        let (a, question) = office::until_opened(&mut s, a).await;
        let t = text(&a);
        let got = split(&a).1;
        assert!(
            got.contains(&format!(
                "+ [{question}] alert \"Question\" (modal) (opened)"
            )),
            "{t}"
        );
        assert!(
            got.iter().any(|l| l.starts_with(&format!(
                "- [{chooser}] file chooser \"Save\" (closed) (and "
            ))),
            "{t}"
        );
        for answer in ["Use ODF Format", "Use Excel 2007–365 Format"] {
            let line = format!(
                "    [{}] push button \"{answer}\"",
                ref_of(
                    &s,
                    &format!("role:alert >> role:push button && name:\"{answer}\"")
                )
            );
            assert!(got.contains(&line), "no {line:?} in:\n{t}");
        }

        // 12. Keep Excel's: the question goes, the window is named after
        // the new file, and the file is written.
        let a = s
            .act(
                "role:alert >> role:push button && name:\"Use Excel 2007–365 Format\"",
                &Action::Click,
                &opts,
            )
            .await
            .expect("keep the format");
        let t = text(&a);
        let got = split(&a).1;
        assert!(
            got.contains(&format!(
                "- [{question}] alert \"Question\" (closed) (and 5 descendants)"
            )),
            "{t}"
        );
        let renamed = format!(
            "~ [{frame}] frame | name: \"prices.fods - LibreOffice Calc\" -> \"prices.xlsx - LibreOffice Calc\""
        );
        assert!(
            got.iter().any(|l| l.starts_with(&renamed)),
            "no {renamed:?} in:\n{t}"
        );
        assert!(target.is_file(), "{} not written", target.display());

        // 13. A formula begun in E2 and not entered: the cell's editor
        // comes with the text. While a formula is written, Calc's cells
        // say no index: the sheet keeps its size and the same cells, found
        // by their names, where it read as one column of 2^31 children and
        // every cell as removed. They say no text either, though they
        // show it, and that they are not editable: no cell's value goes
        // (B2's `"3" -> none`, C3's `"6" -> none`, ...), and no cell's
        // `editable, focusable, resizable` (the sheet's `editable` does).
        let a = s
            .act(
                "role:table cell && name:E2",
                &Action::Type("=D2".into()),
                &opts,
            )
            .await
            .expect("a formula begun in E2");
        let t = text(&a);
        let got = split(&a).1;
        assert!(
            got.iter()
                .any(|l| l.ends_with("] paragraph = \"=D2\" (focused)")),
            "{t}"
        );
        let cells_came_or_went = |l: &&String| {
            (l.starts_with("+ ") || l.starts_with("- ")) && l.contains("] table cell ")
        };
        assert!(!got.iter().any(|l| cells_came_or_went(&l)), "{t}");
        let formula_mode_lines = |got: &[String]| -> Vec<String> {
            got.iter()
                .filter(|l| {
                    l.contains("] table cell ")
                        && (l.contains("| value: ") || l.contains("editable, focusable, resizable"))
                })
                .cloned()
                .collect()
        };
        assert_eq!(formula_mode_lines(&got), Vec::<String>::new(), "{t}");
        let table_line = |got: &[String]| {
            got.iter()
                .find(|l| l.contains(&format!("[{table}] table \"Sheet Prices\"")))
                .cloned()
        };
        if let Some(line) = table_line(&got) {
            assert!(!line.contains("items"), "{t}");
        }
        // 14. Escape: the editor goes, the cells are as they were (the
        // same refs: C3 still says its count).
        let a = s.key(APP, "Escape", &opts).await.expect("Escape");
        let t = text(&a);
        let got = split(&a).1;
        assert!(
            got.iter()
                .any(|l| l.starts_with("- [") && l.contains("] panel \"Cell E2\"")),
            "{t}"
        );
        assert!(!got.iter().any(|l| cells_came_or_went(&l)), "{t}");
        assert_eq!(formula_mode_lines(&got), Vec::<String>::new(), "{t}");
        assert_eq!(
            line_of(&s, &c3),
            format!("[{c3}] table cell \"C3\" = \"6\"")
        );

        // 15. Delete on the cell under the cursor: it is emptied, in this
        // step (Calc's object of the cursor's cell keeps its old text; the
        // Input line says what it holds), and Ctrl+Z brings it back.
        let a3 = ref_of(&s, "role:table cell && name:A3");
        s.act(&a3, &Action::Focus, &opts).await.expect("to A3");
        let a = s.key(APP, "Delete", &opts).await.expect("Delete");
        let t = text(&a);
        let got = split(&a).1;
        let emptied = format!("~ [{a3}] table cell \"A3\" {in_sheet} | value: \"Pear\" -> none");
        assert!(got.contains(&emptied), "no {emptied:?} in:\n{t}");
        let a = s.key(APP, "ctrl+z", &opts).await.expect("undo the Delete");
        let t = text(&a);
        let filled = format!("~ [{a3}] table cell \"A3\" {in_sheet} | value: none -> \"Pear\"");
        // (Undo selects the cell it filled again.)
        assert!(
            split(&a).1.iter().any(|l| l.starts_with(&filled)),
            "no {filled:?} in:\n{t}"
        );

        // 16. A row inserted above the cursor's cell through its context
        // menu: the menu's `Insert...` is the one meant (not the menu
        // bar's, in a closed menu), and the cell, now in the new row, is
        // empty at once.
        let a = s
            .act(&a3, &Action::RightClick, &opts)
            .await
            .expect("right-click A3");
        office::until_opened(&mut s, a).await;
        let a = s
            .act("role:menu item && name:Insert...", &Action::Click, &opts)
            .await
            .expect("the context menu's Insert...");
        let (_, dialog) = office::until_opened(&mut s, a).await;
        let row = "role:dialog && name:Insert Cells >> role:radio button && name:Entire row";
        s.act(row, &Action::Click, &opts).await.expect("Entire row");
        let a = s
            .act(
                "role:dialog && name:Insert Cells >> role:push button && name:OK",
                &Action::Click,
                &opts,
            )
            .await
            .expect("OK");
        let t = text(&a);
        let got = split(&a).1;
        assert!(
            got[0].starts_with(&format!("- [{dialog}] dialog \"Insert Cells\" (closed)")),
            "{t}"
        );
        assert!(got.contains(&emptied), "no {emptied:?} in:\n{t}");

        // 17. AutoFilter from A1 (after a question whether the first row
        // holds the headers, when Calc asks it: yes): the header cells get
        // their drop-downs, the one under the cursor too (Calc keeps the
        // object of that cell, and says nothing of its change).
        let a1 = ref_of(&s, "role:table cell && name:A1");
        let a = s.act(&a1, &Action::Click, &opts).await.expect("to A1");
        let t = text(&a);
        assert!(
            split(&a)
                .1
                .iter()
                .any(|l| l.ends_with("| value: \"A3\" -> \"A1\"")),
            "{t}"
        );
        let mut a = s.key(APP, "ctrl+shift+l", &opts).await.expect("AutoFilter");
        if a.diff.opened().next().is_some() {
            let t = text(&a);
            assert!(
                split(&a).1[0].contains("] alert \"Question\" (modal) (opened)"),
                "{t}"
            );
            a = s
                .act(
                    "role:alert && name:Question >> role:push button && name:Yes",
                    &Action::Click,
                    &opts,
                )
                .await
                .expect("Yes: the first row holds the headers");
        }
        let t = text(&a);
        let dropdown = format!(
            "~ [{a1}] table cell \"A1\" {in_sheet} | attr:isdropdown: \"false\" -> \"true\" (same on "
        );
        assert!(
            split(&a)
                .1
                .iter()
                .any(|l| l.starts_with(&dropdown) && l.contains("\"B1\"")),
            "no {dropdown:?}... in:\n{t}"
        );
    });
}

/// The first pointer click in a fresh Calc, on the Add button beside its
/// sheet tabs: a second sheet, its tab selected. The button is a GTK
/// widget welded into LibreOffice's window, reported where it shows while
/// the rest of the window, until its first pointer event, is reported a
/// menu bar's height higher (see `docs/toolkits.md`): the tree places it
/// on the row of the tabs, and the click lands on it (it landed on the
/// status bar below, and then, held for no time, did nothing; held 20 ms
/// on a busy machine, it did nothing one time in five: LibreOffice's
/// clicks are held 100 ms, `Profile::click_hold`).
#[test]
fn calc_adds_a_sheet_with_the_button_beside_its_tabs() {
    const WINDOW: &str = "Untitled 1 - LibreOffice Calc";
    let (_desktop, rt, mut s) = office::start("--calc", WINDOW);
    crate::steps::run_task(&rt, async {
        let top = |s: &Session<Linux>, selector: &str| {
            let found = s.find(&selector.parse().expect("selector"));
            let (scope, node) = found.first().copied().expect(selector);
            let node = s.known_apps()[scope].view.tree().node(node);
            node.bounds.map(|b| b.y)
        };
        let tabs = top(&s, "role:page tab list");
        assert!(tabs.is_some());
        assert_eq!(top(&s, "role:push button && name:Add"), tabs);

        let a = s
            .act(
                "role:push button && name:Add",
                &Action::Click,
                &ActOptions::default(),
            )
            .await
            .expect("click Add");
        assert!(
            a.done.method.starts_with("XTest click at "),
            "{}",
            a.done.method
        );
        let got = office::lines(&a);
        assert!(
            got.iter().any(|l| l.contains("page tab \"Sheet2\"")),
            "no Sheet2 added (clicked by {}):\n{}",
            a.done.method,
            got.join("\n")
        );
        let tab = office::ref_where(&s, |n| {
            n.role == uidelta_model::Role::PageTab && n.name == "Sheet2"
        });
        let pane = ref_of(&s, "role:root pane");
        let added =
            format!("+ [{tab}] page tab \"Sheet2\" (selected) in [{pane}] root pane \"{WINDOW}\"");
        assert!(got.contains(&added), "no {added:?} in:\n{}", got.join("\n"));
    });
}
