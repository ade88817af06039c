//! Thunar (GTK 3), a file manager: the folder's files read in its list
//! view, a folder made through its dialog, then renamed through another,
//! the new name typed over the old one that the dialog selects. The
//! rename sorts the folder first: the list reads as the new name come and
//! the old one gone, not as renames of the rows it passed, and Return,
//! which Thunar answers only once the file is renamed, is waited for.

use uidelta_backend::Action;
use uidelta_engine::ActOptions;

use crate::common::session;
use crate::steps::start;

#[test]
fn thunar_makes_and_renames_a_folder() {
    let run = start(
        "thunar",
        &["."],
        "thunar",
        "thunar",
        &[("Documents/", ""), ("notes.txt", "notes\n")],
        false,
    );
    // Thunar warns root above its views, and its status bar says the free
    // space of the disk, which other programs change.
    let r = run
        .reader()
        .leaving_out("you are using the root account")
        .leaving_out("Free space")
        .with_readout("Free space: ");
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        // Once the folder is read (its status bar said it was loading).
        let loading = "role:status bar && name:\"Loading folder contents...\""
            .parse()
            .expect("selector");
        for _ in 0..50 {
            s.observe("thunar").await.expect("observe thunar");
            if s.find(&loading).is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }

        // Its icon view shows no file to accessibility; the list view
        // (Ctrl+2) is a table of them.
        let a = s.key("thunar", "ctrl+2", &opts).await.expect("list view");
        r.check(
            "list view",
            &a,
            &[
                "bare: # diff: +1 added, -1 removed, ~1 modified · focus none -> [#] table cell \"Documents\"",
                "wm: # diff: +1 added, -1 removed · focus [#] panel (gone) -> [#] table cell \"Documents\"",
                "+ [#] page tab (selected)",
                "    [#] directory pane \"Details view\"",
                "      [#] table (focused)",
                "        [#] table column header \"Name\"",
                "        [#] table column header \"Size\"",
                "        [#] table column header \"Type\"",
                "        [#] table column header \"Date Modified\"",
                "        [#] table cell \"Documents\" (focused)",
                "        [#] table cell \"4.0 KiB\"",
                "        [#] table cell \"folder\"",
                "        [#] table cell \"03/01/21\"",
                "        [#] table cell \"notes.txt\"",
                "        [#] table cell \"6 bytes\"",
                "        [#] table cell \"plain text document\"",
                "        [#] table cell \"03/01/21\"",
                "- [#] page tab (and 2 descendants)",
                "bare: ~ [#] frame \"work - Thunar\" | active: false -> true",
            ],
        );

        // A new folder: its dialog offers a name, selected.
        let a = s
            .key("thunar", "ctrl+shift+n", &opts)
            .await
            .expect("new folder");
        r.check(
            "new folder",
            &a,
            &[
                "bare: # diff: +1 added",
                "wm: # diff: +1 added · focus [#] table cell \"Documents\" -> [#] text",
                "+ [#] dialog \"Create New Folder\" (modal) (opened)",
                "    [#] icon",
                "    [#] label \"Enter the name:\"",
                "bare:     [#] text = \"New Folder\" (all selected)",
                "wm:     [#] text = \"New Folder\" (focused, all selected)",
                "    [#] push button \"Cancel\"",
                "    [#] push button \"Create\"",
            ],
        );
        let name = r.ref_on(&a, "    [#] text = \"New Folder\"");
        let a = s
            .act(&name, &Action::Type("Reports".into()), &opts)
            .await
            .expect("type the name");
        assert_eq!(
            a.done.method,
            "EditableText.DeleteText of the selection, then InsertText"
        );
        r.check(
            "name",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] text in [#] dialog \"Create New Folder\" | value: \"New Folder\" -> \"Reports\"",
            ],
        );
        let a = s.key("thunar", "Return", &opts).await.expect("create");
        // (The trash's Restore is enabled, in the bar Thunar hid, and so is
        // Undo, in a box of the tool bar it hid: neither is in the tree.)
        let selected: &[&str] = &[
            "bare: # diff: +4 added, -1 removed, ~2 modified · focus [#] table cell \"Documents\" -> [#] table cell \"Reports\"",
            // A window manager gave the dialog's field the keyboard (the
            // change counted is the status bar's, left out).
            "wm: # diff: +4 added, -1 removed, ~1 modified · focus [#] text (gone) -> [#] table cell \"Reports\"",
            "+ [#] table cell \"Reports\" (focused, selected) in [#] directory pane \"Details view\"",
            "+ [#] table cell \"4.0 KiB\" (selected) in [#] directory pane \"Details view\"",
            "+ [#] table cell \"folder\" (selected) in [#] directory pane \"Details view\"",
            "+ [#] table cell \"Today\" (selected) in [#] directory pane \"Details view\"",
            "- [#] dialog \"Create New Folder\" (closed) (and 5 descendants)",
            "bare: ~ [#] table cell \"Documents\" in [#] directory pane \"Details view\" | active: true -> false",
        ];
        // Thunar selects a new folder only when its view has listed it by
        // the time the folder is made, which on a loaded machine it has not
        // always (nothing selects it later): then the answer holds the new
        // row alone, and a click selects it.
        let new_row = "+ [#] table cell \"Reports\" in [#] directory pane \"Details view\"";
        let shown: &[&str] = &[
            "bare: # diff: +4 added, -1 removed, ~1 modified",
            "wm: # diff: +4 added, -1 removed, ~1 modified · focus [#] text (gone) -> [#] table cell \"Documents\"",
            new_row,
            "+ [#] table cell \"4.0 KiB\" in [#] directory pane \"Details view\"",
            "+ [#] table cell \"folder\" in [#] directory pane \"Details view\"",
            "+ [#] table cell \"Today\" in [#] directory pane \"Details view\"",
            "- [#] dialog \"Create New Folder\" (closed) (and 5 descendants)",
        ];
        if r.check_one_of("create", &a, &[selected, shown]) == 1 {
            eprintln!("create: Thunar left the new folder unselected; a click selects it");
            let reports = r.ref_on(&a, new_row);
            let c = s
                .act(&reports, &Action::Click, &opts)
                .await
                .expect("select the new folder");
            let t = crate::steps::answer(&c);
            let row = format!("~ [{reports}] table cell \"Reports\" in ");
            assert!(
                t.lines()
                    .any(|l| l.starts_with(&row) && l.contains("selected: false -> true")),
                "{t}"
            );
        }

        // The new folder, selected, is renamed.
        let a = s.key("thunar", "F2", &opts).await.expect("rename");
        r.check(
            "rename",
            &a,
            &[
                "bare: # diff: +1 added",
                "wm: # diff: +1 added · focus [#] table cell \"Reports\" -> [#] text",
                "+ [#] dialog \"Rename \\\"Reports\\\"\" (modal) (opened)",
                "    [#] icon",
                "    [#] label \"Enter the new name:\"",
                "bare:     [#] text = \"Reports\" (all selected)",
                "wm:     [#] text = \"Reports\" (focused, all selected)",
                "    [#] push button \"Cancel\"",
                "    [#] push button \"Rename\"",
            ],
        );
        let name = r.ref_on(&a, "    [#] text = \"Reports\"");
        let a = s
            .act(&name, &Action::Type("Archive".into()), &opts)
            .await
            .expect("type the new name");
        r.check(
            "new name",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] text in [#] dialog \"Rename \\\"Reports\\\"\" | value: \"Reports\" -> \"Archive\"",
            ],
        );
        let a = s.key("thunar", "Return", &opts).await.expect("renamed");
        // Archive sorts first. The cells stay in place showing other
        // rows (GTK's are transient): what they show says which row went
        // where, and the rows it passed moved down.
        let followed: &[&str] = &[
            "bare: # diff: +1 added, -2 removed, ~8 modified · focus [#] table cell \"Reports\" (gone) -> [#] table cell \"Archive\"",
            "wm: # diff: +1 added, -2 removed, ~8 modified · focus [#] text (gone) -> [#] table cell \"Archive\"",
            "+ [#] table cell \"Archive\" (focused, selected) in [#] directory pane \"Details view\"",
            "- [#] table cell \"Reports\" in [#] directory pane \"Details view\"",
            "- [#] dialog \"Rename \\\"Reports\\\"\" (closed) (and 5 descendants)",
            "~ [#] table cell \"4.0 KiB\" in [#] directory pane \"Details view\" | selected: false -> true (same on [#] \"folder\")",
            "~ [#] table cell \"Today\" in [#] directory pane \"Details view\" | position: 11 -> 7",
            "~ [#] table cell \"Documents\" in [#] directory pane \"Details view\" | position: 4 -> 8",
            "~ [#] table cell \"4.0 KiB\" in [#] directory pane \"Details view\" | selected: true -> false (same on [#] \"folder\")",
            "~ [#] table cell \"03/01/21\" in [#] directory pane \"Details view\" | position: 7 -> 11",
            "~ [#] status bar | name: \"\\\"Reports\\\" | folder\" -> \"\\\"Archive\\\" | folder\"",
        ];
        // On a loaded machine Thunar has at times kept the selection on
        // the row's place, not on the folder, when the list sorted again:
        // the file now there (notes.txt) is selected, and the answer says
        // so.
        let stayed: &[&str] = &[
            "# diff: +1 added, -2 removed, ~8 modified · focus [#] table cell \"Reports\" (gone) -> [#] table cell \"notes.txt\"",
            "+ [#] table cell \"Archive\" in [#] directory pane \"Details view\"",
            "- [#] table cell \"Reports\" in [#] directory pane \"Details view\"",
            "- [#] dialog \"Rename \\\"Reports\\\"\" (closed) (and 5 descendants)",
            "~ [#] table cell \"4.0 KiB\" in [#] directory pane \"Details view\" | selected: true -> false | position: 9 -> 5",
            "~ [#] table cell \"folder\" in [#] directory pane \"Details view\" | selected: true -> false | position: 10 -> 6",
            "~ [#] table cell \"Today\" in [#] directory pane \"Details view\" | selected: true -> false | position: 11 -> 7",
            "~ [#] table cell \"notes.txt\" in [#] directory pane \"Details view\" | active, selected: false -> true",
            "~ [#] table cell \"6 bytes\" in [#] directory pane \"Details view\" | selected: false -> true (same on [#] \"plain text document\", [#] \"03/01/21\")",
            "~ [#] status bar | name: \"\\\"Reports\\\" | folder\" -> \"\\\"notes.txt\\\" | 6 bytes | plain text document\"",
        ];
        if r.check_one_of("renamed", &a, &[followed, stayed]) == 1 {
            eprintln!("renamed: Thunar kept the selection on the row's place");
        }
    });
    assert!(run.dir.join("Archive").is_dir(), "no folder Archive");
    assert!(!run.dir.join("Reports").exists(), "Reports is still there");
}
