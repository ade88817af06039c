//! gedit (GTK 3, a header bar with popovers): type into the document,
//! find a word, open the main menu's Preferences window and close it, save
//! as a new file in a directory of known files; the title names the file.
//! And print to a PDF file through GTK's print dialog.

use uidelta_backend::Action;
use uidelta_engine::ActOptions;

use crate::common::{ref_of, session};
use crate::steps::start;

#[test]
fn gedit_types_finds_opens_preferences_and_saves_as() {
    let run = start(
        "gedit",
        &["--standalone"],
        "gedit",
        "gedit",
        &[
            ("notes/", ""),
            ("old.txt", "old\n"),
            // GTK's list of recent files is read back at a time of its
            // own after a save: off, for answers that do not depend on it.
            (
                "~/config/gtk-3.0/settings.ini",
                "[Settings]\ngtk-recent-files-enabled=false\n",
            ),
        ],
        false,
    );
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        let (_, first) = s.observe("gedit").await.expect("observe gedit");
        r.check_diff(
            "first look",
            &first,
            &[
                "# diff: +1 added",
                "+ [#] frame \"Untitled Document 1 - gedit\"",
                "    [#] split pane = \"200\"",
                "      [#] separator",
                "      [#] push button \"Minimize\"",
                "      [#] push button \"Maximize\"",
                "      [#] push button \"Close\"",
                "      [#] push button \"Save\"",
                "      [#] toggle button \"Menu\"",
                "      [#] label \"Untitled Document 1\"",
                "      [#] push button \"New\"",
                "      [#] push button \"Open\"",
                "      [#] toggle button \"Menu\"",
                "    [#] split pane = \"200\"",
                "      [#] split pane = \"532\"",
                "        [#] page tab list",
                "          [#] page tab (selected)",
                "            [#] scroll pane",
                "              [#] text (focused)",
                "      [#] status bar",
                "  ... 225 more nodes under [#] (all hidden)",
            ],
        );

        // Typing marks the document modified: the title, the header bar's
        // and the tab's labels.
        let document = ref_of(&s, "role:text && state:focused");
        let a = s
            .act(&document, &Action::Type("hello conformance".into()), &opts)
            .await
            .expect("type into the document");
        r.check(
            "type",
            &a,
            &[
                "# diff: ~3 modified",
                "~ [#] frame | name: \"Untitled Document 1 - gedit\" -> \"*Untitled Document 1 - gedit\"",
                "~ [#] label | name: \"Untitled Document 1\" -> \"*Untitled Document 1\"",
                "~ [#] text | value: none -> \"hello conformance\"",
            ],
        );

        // Ctrl+F reveals the search entry and its buttons, the entry
        // focused.
        let a = s.key("gedit", "ctrl+f", &opts).await.expect("ctrl+f");
        r.check(
            "ctrl+f",
            &a,
            &[
                "# diff: ~3 modified · focus [#] text -> [#] text \"Search\"",
                "~ [#] text \"Search\" | description: \"\" -> \"String you want to search for\" | showing: false -> true (also 1 descendant)",
                "    [#] icon \"edit-find-symbolic\"",
                "~ [#] push button | showing: false -> true (same on [#])",
            ],
        );
        let entry = ref_of(&s, "role:text && name:Search && state:focused");
        let a = s
            .act(&entry, &Action::Type("conformance".into()), &opts)
            .await
            .expect("type the word to find");
        r.check(
            "search",
            &a,
            &[
                "# diff: +1 added, ~4 modified",
                "+ [#] icon \"edit-clear-symbolic\"",
                "~ [#] text | selected text: none -> \"conformance\"",
                "~ [#] text \"Search\" | value: none -> \"conformance\"",
                "~ [#] push button \"Clear Highlight\" (hidden) | enabled: false -> true (same on [#] \"Clear Highlight\")",
            ],
        );
        let a = s.key("gedit", "Escape", &opts).await.expect("Escape");
        r.check(
            "Escape",
            &a,
            &[
                "# diff: ~6 modified · focus [#] text \"Search\" -> [#] text",
                "~ [#] text | selected text: \"conformance\" -> none",
                "~ [#] text \"Search\" | showing: true -> false (also 2 descendants)",
                "~ [#] push button | showing: true -> false (same on [#])",
                "~ [#] push button \"Clear Highlight\" (hidden) | enabled: true -> false (same on [#] \"Clear Highlight\")",
            ],
        );

        // The main menu, a popover, shows; its Preferences opens a window
        // of its own, which its Close button closes.
        let menu = ref_of(&s, "role:toggle button && name:Menu && nth:0");
        let a = s
            .act(&menu, &Action::Click, &opts)
            .await
            .expect("open the menu");
        // The popover's items came to show with it: they are listed, and
        // the agent takes Preferences' ref from the answer. GTK also moves
        // a hidden popover behind the shown one, which no agent can see:
        // not a line.
        r.check(
            "menu",
            &a,
            &[
                "# diff: ~2 modified · focus [#] text -> [#] push button \"Print…\"",
                "~ [#] toggle button \"Menu\" | checked: false -> true",
                "~ [#] panel | showing, visible: false -> true (also 21 descendants)",
                "    [#] push button \"Reload\" (disabled)",
                "    [#] push button \"Print…\" (focused)",
                "    [#] check box \"Fullscreen\"",
                "    [#] push button \"New Window\"",
                "    [#] separator",
                "    [#] push button \"Save As…\"",
                "    [#] push button \"Save All\"",
                "    [#] separator",
                "    [#] push button \"Find…\"",
                "    [#] push button \"Find and Replace…\"",
                "    [#] push button \"Clear Highlight\" (disabled)",
                "    [#] push button \"Go to Line…\"",
                "    [#] separator",
                "    [#] push button \"View\"",
                "    [#] push button \"Tools\"",
                "    [#] separator",
                "    [#] push button \"Preferences\"",
                "    [#] separator",
                "    [#] push button \"Keyboard Shortcuts\"",
                "    [#] push button \"Help\"",
                "    [#] push button \"About gedit\"",
            ],
        );
        let preferences = r.ref_on(&a, "    [#] push button \"Preferences\"");
        let a = s
            .act(&preferences, &Action::Click, &opts)
            .await
            .expect("click Preferences");
        r.check(
            "preferences",
            &a,
            &[
                "bare: # diff: +1 added, ~2 modified · focus [#] push button \"Print…\" -> [#] text",
                "wm: # diff: +1 added, ~2 modified · focus [#] push button \"Print…\" -> [#] page tab list",
                "+ [#] frame \"Preferences\" (opened)",
                "    [#] label \"Preferences\"",
                "    [#] push button \"Close\"",
                "bare:     [#] page tab list",
                "wm:     [#] page tab list (focused)",
                "      [#] page tab \"View\" (selected)",
                "        [#] check box \"Display line numbers\" (checked)",
                "        [#] check box \"Display right margin at column:\"",
                "        [#] spin button = \"80\" (disabled)",
                "        [#] check box \"Display statusbar\" (checked)",
                "        [#] check box \"Display grid pattern\"",
                "        [#] label \"Text Wrapping\"",
                "        [#] check box \"Enable text wrapping\" (checked)",
                "        [#] check box \"Do not split words over two lines\" (checked)",
                "        [#] label \"Highlighting\"",
                "        [#] check box \"Highlight current line\" (checked)",
                "        [#] check box \"Highlight matching brackets\" (checked)",
                "      [#] page tab \"Editor\"",
                "      [#] page tab \"Font & Colors\"",
                "      [#] page tab \"Plugins\"",
                "  ... 54 more nodes under [#] (all hidden)",
                "~ [#] toggle button \"Menu\" | checked: true -> false",
                "~ [#] panel | showing, visible: true -> false (also 21 descendants)",
            ],
        );
        let close = r.ref_on(&a, "    [#] push button \"Close\"");
        let a = s
            .act(&close, &Action::Click, &opts)
            .await
            .expect("close Preferences");
        r.check(
            "close",
            &a,
            &[
                "bare: # diff: -1 removed",
                "wm: # diff: -1 removed · focus [#] page tab list (gone) -> [#] text",
                "- [#] frame \"Preferences\" (closed) (and 72 descendants)",
            ],
        );

        // Save As opens on the (empty) home directory, a name filled in.
        let a = s
            .key("gedit", "ctrl+shift+s", &opts)
            .await
            .expect("ctrl+shift+s");
        r.check(
            "save as",
            &a,
            &[
                "bare: # diff: +1 added",
                "wm: # diff: +1 added · focus [#] text -> [#] text \"Name:\"",
                "+ [#] file chooser \"Save As\" (modal) (opened)",
                "    [#] file chooser \"File Chooser Widget\"",
                "bare:       [#] text \"Name:\" = \"Untitled Document 1\" (all selected)",
                "wm:       [#] text \"Name:\" = \"Untitled Document 1\" (focused, all selected)",
                "      [#] split pane = \"156\"",
                "        [#] scroll pane \"Places\"",
                "          [#] list box",
                "            [#] list item \"Home\" (selected)",
                "              [#] icon",
                "            [#] list item \"Desktop\"",
                "              [#] icon",
                "            [#] list item \"work\"",
                "              [#] icon",
                "            [#] list item \"Other Locations\"",
                "              [#] icon \"Add\"",
                "        [#] panel \"Browse Header Revealer\"",
                "          [#] panel \"Browse Header Stack\"",
                "            [#] filler \"PathBar Layer\"",
                "              [#] toggle button \"user\" (checked)",
                "              [#] push button \"Up Path\"",
                "              [#] push button \"Down Path\" (disabled)",
                "              [#] toggle button \"Create Folder\"",
                "        [#] scroll pane",
                "          [#] table \"Files\"",
                "            [#] table column header \"Name\"",
                "            [#] table column header \"Size\"",
                "            [#] table column header \"Type\"",
                "            [#] table column header \"Modified\"",
                "      [#] combo box \"Character Encoding:\" = \"Current Locale (UTF-8)\"",
                "      [#] combo box \"Line Ending:\" = \"Unix/Linux\"",
                "      [#] combo box \"Select which types of files are shown\" = \"All Text Files\"",
                "    [#] push button \"Cancel\"",
                "    [#] push button \"Save\"",
                "  ... 31 more nodes under [#] (all hidden)",
            ],
        );
        let name = r.ref_on(&a, "      [#] text \"Name:\" = \"Untitled Document 1\"");
        let path = run.dir.join("notes/note.txt");
        let a = s
            .act(
                &name,
                &Action::SetValue(path.to_string_lossy().into_owned()),
                &opts,
            )
            .await
            .expect("name the file");
        r.check(
            "name",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] text \"Name:\" in [#] file chooser \"File Chooser Widget\" | value: \"Untitled Document 1\" -> \"$DIR/notes/note.txt\"",
            ],
        );

        // Save closes the dialog; the title and labels name the file, its
        // directory shows under the title. The status bar says it is saving
        // for three seconds: the answer may come after that.
        let a = s
            // Asked by name, as an agent would: the header bar's `Save`
            // matches too, but takes no input while the modal dialog is
            // open; the dialog's is meant.
            .act("role:push button && name:Save", &Action::Click, &opts)
            .await
            .expect("click Save");
        r.check_passing(
            "save",
            &a,
            &[
                "bare: # diff: +1 added, -1 removed, ~5 modified",
                "wm: # diff: +1 added, -1 removed, ~5 modified · focus [#] text \"Name:\" (gone) -> [#] text",
                "+ [#] label \"$DIR/notes\"",
                "- [#] file chooser \"Save As\" (closed) (and 62 descendants)",
                "~ [#] frame | name: \"*Untitled Document 1 - gedit\" -> \"note.txt ($DIR/notes) - gedit\"",
                "~ [#] label | name: \"*Untitled Document 1\" -> \"note.txt\"",
                "~ [#] status bar | name: \"\" -> \"Saving file “$DIR/notes/note.txt”…\"",
                "~ [#] push button \"Reload\" (hidden) | enabled: false -> true (same on [#] \"Reload\")",
            ],
            &["~ [#] status bar | name: \"\" -> \"Saving file “$DIR/notes/note.txt”…\""],
            &[
                "bare: # diff: +1 added, -1 removed, ~4 modified",
                "wm: # diff: +1 added, -1 removed, ~4 modified · focus [#] text \"Name:\" (gone) -> [#] text",
            ],
        );
        let saved = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        assert_eq!(saved, "hello conformance\n");
    });
}

/// Print to a file: GTK's print dialog, its `Print to File` printer
/// chosen, whose `File:` and `Output format:` rows GTK attaches to a grid
/// of the General page without a word (a mirror reads them as the grid
/// grows, or, before the dialog is laid out again, asks its boxes for
/// their children), and Print writes the PDF.
#[test]
fn gedit_prints_to_a_pdf_file() {
    let run = start(
        "gedit",
        &["--standalone"],
        "gedit",
        "gedit",
        &[(
            "~/config/gtk-3.0/settings.ini",
            "[Settings]\ngtk-recent-files-enabled=false\n",
        )],
        false,
    );
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        s.observe("gedit").await.expect("observe gedit");
        let document = ref_of(&s, "role:text && state:focused");
        s.act(&document, &Action::Type("print me".into()), &opts)
            .await
            .expect("type into the document");

        let a = s.key("gedit", "ctrl+p", &opts).await.expect("ctrl+p");
        let got = r.lines(&crate::steps::answer(&a));
        for line in [
            "+ [#] dialog \"Print\" (modal) (opened)",
            "            [#] table cell \"Print to File\"",
            "    [#] push button \"Print\" (disabled)",
        ] {
            assert!(
                got.iter().any(|l| l == line),
                "no {line:?} in:\n{}",
                got.join("\n")
            );
        }
        assert!(
            !got.iter().any(|l| l.contains("Output format")),
            "{}",
            got.join("\n")
        );

        let to_file = ref_of(&s, "role:table cell && name:\"Print to File\"");
        // A compositor starved by a loaded machine holds the dialog's next
        // frame, and with it the layout that grows the grid its new rows
        // are attached to: the answer must hold them all the same (CI's
        // pass under mutter once answered without them).
        run.desktop
            .stall_window_manager(std::time::Duration::from_millis(1500));
        let a = s
            .act(&to_file, &Action::Click, &opts)
            .await
            .expect("choose Print to File");
        let got = r.lines(&crate::steps::answer(&a));
        let in_general = "in [#] page tab \"General\"";
        let rows = [
            format!("+ [#] label \"File:\" {in_general}"),
            format!("+ [#] label \"Output format:\" {in_general}"),
            format!("+ [#] radio button \"PDF\" (checked) {in_general}"),
            format!("+ [#] radio button \"Postscript\" {in_general}"),
            format!("+ [#] radio button \"SVG\" {in_general}"),
            "~ [#] push button \"Print\" in [#] dialog \"Print\" | enabled: false -> true"
                .to_owned(),
        ];
        for line in &rows {
            assert!(got.contains(line), "no {line:?} in:\n{}", got.join("\n"));
        }
        let file = format!("Untitled Document 1.pdf\" {in_general}");
        assert!(
            got.iter()
                .any(|l| l.starts_with("+ [#] push button \"") && l.ends_with(&file)),
            "no button naming the file in:\n{}",
            got.join("\n")
        );

        let print = ref_of(&s, "role:push button && name:Print && state:enabled");
        let a = s.act(&print, &Action::Click, &opts).await.expect("Print");
        let got = r.lines(&crate::steps::answer(&a));
        assert!(
            got.iter()
                .any(|l| l.starts_with("- [#] dialog \"Print\" (closed)")),
            "{}",
            got.join("\n")
        );
    });
    let pdf = run.dir.join("Untitled Document 1.pdf");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut bytes = Vec::new();
    while std::time::Instant::now() < until {
        bytes = std::fs::read(&pdf).unwrap_or_default();
        if bytes.trim_ascii_end().ends_with(b"%%EOF") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(bytes.starts_with(b"%PDF"), "no PDF at {}", pdf.display());
}
