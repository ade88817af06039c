//! FeatherPad (Qt 5): a file of a directory of known files opened, typed
//! into, a word looked for in its search bar (named after the tooltips of
//! its icon buttons), Match Case ticked, saved as a new file in a
//! subdirectory through Qt's own file dialog; the title names the file.

use uidelta_backend::Action;
use uidelta_engine::ActOptions;

use crate::common::{ref_of, session};
use crate::steps::start;

const FEATHERPAD: &str = "FeatherPad";

#[test]
fn featherpad_types_finds_and_saves_as() {
    let run = start(
        "featherpad",
        &["--standalone", "old.txt"],
        FEATHERPAD,
        "featherpad",
        &[("notes/", ""), ("old.txt", "old\n")],
        false,
    );
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        // The text has the keyboard; the document's tab is not focused
        // (Qt says so of the current tab), its search bar's icon buttons
        // have the names of their tooltips. The tool bar's Edit, Run and
        // Menu buttons, hidden and disabled, report no state at all: they
        // count with what does not show.
        let (_, first) = s.observe(FEATHERPAD).await.expect("observe FeatherPad");
        r.check_diff(
            "first look",
            &first,
            &[
                "# diff: +1 added",
                "+ [#] frame \"$DIR/old.txt\"",
                "    [#] text = \"old\\n\" (focused)",
                "    [#] combo box",
                "      [#] text",
                "    [#] push button \"Next (F3)\"",
                "    [#] push button \"Previous (F4)\"",
                "    [#] check box \"Match Case (F5)\"",
                "    [#] check box \"Whole Word (F6)\"",
                "    [#] check box \"Regular Expression (F7)\"",
                "    [#] page tab list \"old.txt\"",
                "      [#] page tab \"old.txt\" (selected)",
                "    [#] label \"Root Instance\"",
                "    [#] menu bar",
                "      [#] menu item \"File\"",
                "      [#] menu item \"Edit\"",
                "      [#] menu item \"Options\"",
                "      [#] menu item \"Search\"",
                "      [#] menu item \"Help\"",
                "    [#] tool bar",
                "      [#] push button \"New\"",
                "      [#] push button \"Open\"",
                "      [#] push button \"Save\" (disabled)",
                "      [#] push button \"Undo\" (disabled)",
                "      [#] push button \"Redo\" (disabled)",
                "      [#] push button \"Reload\"",
                "      [#] push button \"Find\"",
                "      [#] push button \"Replace\"",
                "      [#] push button \"Jump to\"",
                "      [#] push button \"Side-Pane\"",
                "      [#] push button \"Save/Restore Session\"",
                "    [#] status bar",
                "      [#] label \"Encoding: UTF-8 Lines: 2 Sel. Chars: 0 Words:\"",
                "      [#] push button \"Calculate number of words\"",
                "  ... 138 more nodes under [#] (all hidden)",
            ],
        );
        let document = ref_of(&s, "role:text && state:focused");
        let a = s
            .act(
                &document,
                &Action::Type("hello conformance\n".into()),
                &opts,
            )
            .await
            .expect("type into the document");
        r.check(
            "type",
            &a,
            &[
                "# diff: ~9 modified",
                "~ [#] frame | name: \"$DIR/old.txt\" -> \"*$DIR/old.txt\"",
                "~ [#] text | value: \"old\\n\" -> \"hello conformance\\nold\\n\"",
                "~ [#] page tab list | name: \"old.txt\" -> \"*old.txt\"",
                "~ [#] page tab in [#] page tab list \"*old.txt\" | name: \"old.txt\" -> \"*old.txt\"",
                "~ [#] menu item \"Save\" (hidden) in [#] menu item \"File\" | enabled: false -> true",
                "~ [#] menu item \"Undo\" (hidden) in [#] menu item \"Edit\" | enabled: false -> true",
                "~ [#] push button \"Save\" | enabled: false -> true (same on [#] \"Undo\")",
                "~ [#] label | name: \"Encoding: UTF-8 Lines: 2 Sel. Chars: 0 Words:\" -> \"Encoding: UTF-8 Lines: 3 Sel. Chars: 0 Words:\"",
            ],
        );

        // Text without a line break is inserted (EditableText) where the
        // keyboard's caret is, after the new line: not at the end.
        let a = s
            .act(&document, &Action::Type("first ".into()), &opts)
            .await
            .expect("type at the caret");
        r.check(
            "type at the caret",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] text | value: \"hello conformance\\nold\\n\" -> \"hello conformance\\nfirst old\\n\"",
            ],
        );

        // Ctrl+F gives the search bar's entry the keyboard: the focus
        // line says so (the text's viewport does not come and go with
        // it); the status bar's message goes.
        let a = s.key(FEATHERPAD, "ctrl+f", &opts).await.expect("ctrl+f");
        r.check(
            "ctrl+f",
            &a,
            &[
                "# diff: -1 removed · focus [#] text -> [#] text",
                "- [#] label \"Root Instance\"",
            ],
        );
        let find = ref_of(&s, "role:text && state:focused");
        let a = s
            .act(&find, &Action::Type("conformance".into()), &opts)
            .await
            .expect("type the word to find");
        r.check(
            "find",
            &a,
            &[
                "# diff: ~3 modified",
                "~ [#] combo box | name: \"\" -> \"conformance\"",
                "~ [#] text in [#] combo box \"conformance\" | value: none -> \"conformance\"",
                "~ [#] push button \"Clear text (Ctrl+K)\" in [#] combo box \"conformance\" | showing, visible: false -> true",
            ],
        );
        let case = ref_of(&s, "role:check box && name:Match Case (F5)");
        let a = s
            .act(&case, &Action::Click, &opts)
            .await
            .expect("tick Match Case");
        r.check(
            "match case",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] check box \"Match Case (F5)\" | checked: false -> true",
            ],
        );

        // Save As: Qt's file dialog on the file's directory.
        let a = s
            .key(FEATHERPAD, "ctrl+shift+s", &opts)
            .await
            .expect("ctrl+shift+s");
        r.check(
            "save as",
            &a,
            &[
                "# diff: +1 added · focus [#] text -> [#] text \"File name:\"",
                "+ [#] dialog \"Save as...\" (opened)",
                "    [#] label \"Look in:\"",
                "    [#] combo box \"Look in:\" = \"$DIR\"",
                "    [#] push button \"Back\" (disabled)",
                "    [#] push button \"Forward\" (disabled)",
                "    [#] push button \"Parent Directory\"",
                "    [#] push button \"Create New Folder\"",
                "    [#] push button \"List View\"",
                "    [#] push button \"Detail View\" (pressed)",
                "    [#] tree \"Files\"",
                "      [#] table column header \"Name\"",
                "      [#] table column header \"Size\"",
                "      [#] table column header \"Type\"",
                "      [#] table column header \"Date Modified\"",
                "      [#] table cell \"notes\" (collapsed)",
                "      [#] table cell",
                "      [#] table cell \"Folder\"",
                "      [#] table cell \"1 Mar 2021 12:00:00\"",
                "      [#] table cell \"old.txt\" (selected)",
                "      [#] table cell \"4 bytes\" (selected)",
                "      [#] table cell \"txt File\" (selected)",
                "      [#] table cell \"1 Mar 2021 12:00:00\" (selected)",
                "    [#] list \"Sidebar\"",
                "      [#] list item \"Computer\"",
                "      [#] list item \"user\"",
                "    [#] text \"File name:\" = \"old.txt\" (focused, all selected)",
                "    [#] push button \"Save\"",
                "    [#] push button \"Cancel\"",
                "    [#] label \"Files of type:\"",
                "    [#] combo box \"Files of type:\" = \".txt Files (*.txt)\"",
                "  ... 10 more nodes under [#] (all hidden)",
            ],
        );
        let name = r.ref_on(&a, "    [#] text \"File name:\" = \"old.txt\"");
        let save = r.ref_on(&a, "    [#] push button \"Save\"");
        let path = run.dir.join("notes/new.txt");
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
                "# diff: ~5 modified",
                "~ [#] table cell \"old.txt\" in [#] tree \"Files\" | selected: true -> false (same on [#] \"4 bytes\", [#] \"txt File\", [#] \"1 Mar 2021 12:00:00\")",
                "~ [#] text \"File name:\" in [#] dialog \"Save as...\" | value: \"old.txt\" -> \"$DIR/notes/new.txt\"",
            ],
        );
        let a = s
            .act(&save, &Action::Click, &opts)
            .await
            .expect("click Save");
        r.check(
            "save",
            &a,
            &[
                "bare: # diff: -1 removed, ~5 modified · focus [#] text \"File name:\" (gone) -> none",
                "wm: # diff: -1 removed, ~5 modified · focus [#] text \"File name:\" (gone) -> [#] text",
                "- [#] dialog \"Save as...\" (closed) (and 39 descendants)",
                "~ [#] frame | name: \"*$DIR/old.txt\" -> \"$DIR/notes/new.txt\"",
                "~ [#] page tab list | name: \"*old.txt\" -> \"new.txt\"",
                "~ [#] page tab in [#] page tab list \"new.txt\" | name: \"*old.txt\" -> \"new.txt\" | description: \"<p style='white-space:pre'>$DIR/</p>\" -> \"<p style='white-space:pre'>$DIR/notes/</p>\"",
                "~ [#] menu item \"Save\" (hidden) in [#] menu item \"File\" | enabled: true -> false",
                "~ [#] push button \"Save\" | enabled: true -> false",
            ],
        );
        let saved = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        assert_eq!(saved, "hello conformance\nfirst old\n");
    });
}
