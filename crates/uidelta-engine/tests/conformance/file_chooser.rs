//! File choosers. GTK 3's (zenity's `--file-selection`): from Recent to a
//! directory of known files through the places list, into a folder by a
//! double click, a file picked, up through the path bar and back, OK: the
//! answer says zenity exited, and it printed the path of the file. GTK
//! 4.8's (gtk4-print-editor's File > Open): a file opened by its path.

use std::io::Read;

use uidelta_backend::Action;
use uidelta_diff::Change;
use uidelta_engine::{ActOptions, Settle, WindowAction};

use crate::common::{ref_of, session};
use crate::steps::start;

#[test]
fn file_chooser_goes_to_a_folder_and_picks_a_file() {
    let mut run = start(
        "zenity",
        &["--file-selection", "--title", "Pick a report"],
        "zenity",
        "zenity",
        &[
            ("docs/", ""),
            ("docs/a.txt", "a\n"),
            ("docs/b.txt", "bb\n"),
            ("top.txt", "top\n"),
        ],
        true,
    );
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        let (_, first) = s.observe("zenity").await.expect("observe zenity");
        r.check_diff(
            "first look",
            &first,
            &[
                "# diff: +1 added",
                "+ [#] file chooser \"Pick a report\"",
                "    [#] file chooser \"File Chooser Widget\"",
                "      [#] split pane = \"156\"",
                "        [#] scroll pane \"Places\"",
                "          [#] list box",
                "            [#] list item \"Recent\" (selected)",
                "              [#] icon",
                "            [#] list item \"Home\"",
                "              [#] icon",
                "            [#] list item \"Desktop\"",
                "              [#] icon",
                "            [#] list item \"work\"",
                "              [#] icon",
                "            [#] list item \"Other Locations\"",
                "              [#] icon \"Add\"",
                "        [#] panel \"Browse Header Revealer\"",
                "        [#] scroll pane",
                "          [#] table \"Files\" (focused)",
                "            [#] table column header \"Name\"",
                "            [#] table column header \"Location\"",
                "            [#] table column header \"Size\"",
                "            [#] table column header \"Type\"",
                "            [#] table column header \"Accessed\"",
                "    [#] push button \"Cancel\"",
                "    [#] push button \"OK\" (disabled)",
                "  ... 20 more nodes under [#] (all hidden)",
            ],
        );

        // The working directory is in the places list: the path bar and
        // its files show (the first row selected), Recent's Location
        // column goes, and OK is enabled. The cells past the first three
        // are counted and named: `top.txt` is read here.
        let work = ref_of(&s, "role:list item && name:work");
        let a = s
            .act(&work, &Action::Click, &opts)
            .await
            .expect("click work");
        r.check(
            "work",
            &a,
            &[
                "# diff: +11 added, -1 removed, ~9 modified",
                "+ [#] toggle button \"work\" (checked) in [#] filler \"PathBar Layer\"",
                "+ [#] toggle button \"$RUN\" in [#] filler \"PathBar Layer\"",
                "+ [#] toggle button \"tmp\" in [#] filler \"PathBar Layer\"",
                "+ [#] table cell \"docs\" (selected) in [#] table \"Files\"",
                "+ [#] table cell (selected) in [#] table \"Files\"",
                "+ [#] table cell (selected) in [#] table \"Files\"",
                "+ ... and 5 more table cell: [#] \"top.txt\", [#] \"4 bytes\", [#] \"Text\"",
                "- [#] table column header \"Location\" in [#] table \"Files\"",
                "~ [#] list item \"Recent\" in [#] scroll pane \"Places\" | selected: true -> false",
                "~ [#] list item \"work\" in [#] scroll pane \"Places\" | selected: false -> true",
                // The path bar, made anew: its root button is the one it had.
                "~ [#] panel \"Browse Header Stack\" in [#] panel \"Browse Header Revealer\" | showing: false -> true (also 4 descendants)",
                "    [#] filler \"PathBar Layer\"",
                "      [#] toggle button \"File System Root\"",
                "      [#] push button \"Up Path\" (disabled)",
                "      [#] push button \"Down Path\" (disabled)",
                "~ [#] toggle button \"File System Root\" in [#] filler \"PathBar Layer\" | checked: true -> false",
                "~ [#] table column header \"Name\" in [#] table \"Files\" | focusable: false -> true (same on [#] \"Size\", [#] \"Type\")",
                "~ [#] table column header in [#] table \"Files\" | name: \"Accessed\" -> \"Modified\" | focusable: false -> true",
                "~ [#] push button \"OK\" in [#] file chooser \"Pick a report\" | enabled: false -> true",
            ],
        );

        // A double click enters the folder: the path bar is made anew with
        // it (one button more, the others the same), and its files replace
        // the others, the first one focused.
        let docs = ref_of(&s, "role:table cell && name:docs");
        let a = s
            .act(&docs, &Action::DoubleClick, &opts)
            .await
            .expect("double-click docs");
        r.check(
            "docs",
            &a,
            &[
                "# diff: +9 added, -8 removed, ~2 modified · focus [#] table \"Files\" -> [#] table cell \"a.txt\"",
                "+ [#] toggle button \"docs\" (checked) in [#] filler \"PathBar Layer\"",
                "+ [#] table cell \"a.txt\" (focused, selected) in [#] table \"Files\"",
                "+ [#] table cell \"2 bytes\" (selected) in [#] table \"Files\"",
                "+ [#] table cell \"Text\" (selected) in [#] table \"Files\"",
                "+ ... and 5 more table cell: [#] \"b.txt\", [#] \"3 bytes\", [#] \"Text\"",
                "- [#] table cell \"docs\" in [#] table \"Files\"",
                "- [#] table cell in [#] table \"Files\"",
                "- [#] table cell in [#] table \"Files\"",
                "- ... and 5 more table cell",
                "~ [#] list item \"work\" in [#] scroll pane \"Places\" | selected: true -> false",
                "~ [#] toggle button \"work\" in [#] filler \"PathBar Layer\" | checked: true -> false",
            ],
        );
        let up = r.ref_on(
            &a,
            "~ [#] toggle button \"work\" in [#] filler \"PathBar Layer\" | checked: true -> false",
        );

        // A click on the second file's name, its ref taken from the
        // answer's summary of the cells, selects its row.
        let b = r.ref_on(
            &a,
            "+ ... and 5 more table cell: [#] \"b.txt\", [#] \"3 bytes\", [#] \"Text\"",
        );
        let a = s.act(&b, &Action::Click, &opts).await.expect("click b.txt");
        r.check(
            "b.txt",
            &a,
            &[
                "# diff: ~12 modified",
                "~ [#] table cell \"a.txt\" in [#] table \"Files\" | active, selected: true -> false",
                "~ [#] table cell \"2 bytes\" in [#] table \"Files\" | selected: true -> false (same on [#] \"Text\", [#], [#] \"1 Mar 2021\", [#] \"12∶00\")",
                "~ [#] table cell \"b.txt\" in [#] table \"Files\" | active, selected: false -> true",
                "~ [#] table cell \"3 bytes\" in [#] table \"Files\" | selected: false -> true (same on [#] \"Text\", [#], [#] \"1 Mar 2021\", [#] \"12∶00\")",
            ],
        );

        // The path bar's `work` goes back up, where `docs` is selected.
        let a = s
            .act(&up, &Action::Click, &opts)
            .await
            .expect("click work in the path bar");
        r.check(
            "up",
            &a,
            &[
                "# diff: +8 added, -8 removed, ~3 modified · focus [#] table cell \"b.txt\" (gone) -> [#] table cell \"docs\"",
                "+ [#] table cell \"docs\" (focused, selected) in [#] table \"Files\"",
                "+ [#] table cell (selected) in [#] table \"Files\"",
                "+ [#] table cell (selected) in [#] table \"Files\"",
                "+ ... and 5 more table cell: [#] \"top.txt\", [#] \"4 bytes\", [#] \"Text\"",
                "- [#] table cell \"a.txt\" in [#] table \"Files\"",
                "- [#] table cell \"2 bytes\" in [#] table \"Files\"",
                "- [#] table cell \"Text\" in [#] table \"Files\"",
                "- ... and 5 more table cell",
                "~ [#] list item \"work\" in [#] scroll pane \"Places\" | selected: false -> true",
                "~ [#] toggle button \"docs\" in [#] filler \"PathBar Layer\" | checked: true -> false",
                "~ [#] toggle button \"work\" in [#] filler \"PathBar Layer\" | checked: false -> true",
            ],
        );
        let docs = ref_of(&s, "role:table cell && name:docs");
        let a = s
            .act(&docs, &Action::DoubleClick, &opts)
            .await
            .expect("double-click docs again");
        r.check(
            "docs again",
            &a,
            &[
                "# diff: +8 added, -8 removed, ~3 modified · focus [#] table cell \"docs\" (gone) -> [#] table cell \"a.txt\"",
                "+ [#] table cell \"a.txt\" (focused, selected) in [#] table \"Files\"",
                "+ [#] table cell \"2 bytes\" (selected) in [#] table \"Files\"",
                "+ [#] table cell \"Text\" (selected) in [#] table \"Files\"",
                "+ ... and 5 more table cell: [#] \"b.txt\", [#] \"3 bytes\", [#] \"Text\"",
                "- [#] table cell \"docs\" in [#] table \"Files\"",
                "- [#] table cell in [#] table \"Files\"",
                "- [#] table cell in [#] table \"Files\"",
                "- ... and 5 more table cell",
                "~ [#] list item \"work\" in [#] scroll pane \"Places\" | selected: true -> false",
                "~ [#] toggle button \"docs\" in [#] filler \"PathBar Layer\" | checked: false -> true",
                "~ [#] toggle button \"work\" in [#] filler \"PathBar Layer\" | checked: true -> false",
            ],
        );
        let b = ref_of(&s, "role:table cell && name:b.txt");
        let a = s
            .act(&b, &Action::Click, &opts)
            .await
            .expect("click b.txt again");
        r.check(
            "b.txt again",
            &a,
            &[
                "# diff: ~12 modified",
                "~ [#] table cell \"a.txt\" in [#] table \"Files\" | active, selected: true -> false",
                "~ [#] table cell \"2 bytes\" in [#] table \"Files\" | selected: true -> false (same on [#] \"Text\", [#], [#] \"1 Mar 2021\", [#] \"12∶00\")",
                "~ [#] table cell \"b.txt\" in [#] table \"Files\" | active, selected: false -> true",
                "~ [#] table cell \"3 bytes\" in [#] table \"Files\" | selected: false -> true (same on [#] \"Text\", [#], [#] \"1 Mar 2021\", [#] \"12∶00\")",
            ],
        );

        // A file written now joins the folder. GTK draws today's files'
        // `Modified` with two renderers that say the same time, each a
        // cell under a nameless one: that reads as one cell with the time.
        std::fs::write(run.dir.join("docs/c.txt"), "ccc\n").expect("write c.txt");
        let a = s
            .wait_for_change("zenity", std::time::Duration::from_secs(10))
            .await
            .expect("c.txt joins the list");
        // (Said as changed before the wait when it came before it.)
        let cells: Vec<(&str, usize)> = a
            .earlier
            .iter()
            .map(|e| &e.diff)
            .chain([&a.diff])
            .flat_map(|d| &d.changes)
            .filter_map(|c| match c {
                Change::Added(a) => Some((a.root().name.as_str(), a.subtree.len())),
                _ => None,
            })
            .collect();
        let t = crate::steps::answer(&a);
        assert_eq!(cells.len(), 4, "{t}");
        assert_eq!(
            &cells[..3],
            &[("c.txt", 1), ("4 bytes", 1), ("Text", 1)],
            "{t}"
        );
        let (time, held) = cells[3];
        assert!(time.contains(':') || time.contains('∶'), "{t}");
        assert_eq!(held, 1, "{t}");

        let ok = ref_of(&s, "role:push button && name:OK");
        let a = s.act(&ok, &Action::Click, &opts).await.expect("click OK");
        r.check("OK", &a, &["# zenity (pid $PID) exited"]);
    });
    let mut out = String::new();
    if let Some(mut pipe) = run.app.take_stdout() {
        pipe.read_to_string(&mut out).expect("zenity's output");
    }
    assert_eq!(out, format!("{}\n", run.dir.join("docs/b.txt").display()));
}

/// GTK 4.8's file chooser (gtk4-print-editor's File > Open): its dialog
/// (a modal `filler` to GTK 4.8, a window here, as its Assistant is), its
/// location field opened with ctrl+L, a path typed there, and Return: the
/// dialog closes and the file is read. With no window manager, nothing
/// gives the new dialog the keyboard, and the editor's window under it
/// keeps it and swallows keys: the dialog's window is activated first, as
/// a window manager would. GTK 4.8 exposes no rows of the dialog's file
/// list (a `GtkTreeView`), only its column headers: a path is how an agent
/// names a file there.
#[test]
fn gtk4_file_chooser_opens_a_file_named_in_its_location_field() {
    const EDITOR: &str = "gtk4-print-editor";
    let run = start(
        EDITOR,
        &[],
        EDITOR,
        "gtk-4-examples",
        &[
            ("docs/", ""),
            ("docs/a.txt", "alpha\n"),
            ("top.txt", "top\n"),
        ],
        false,
    );
    let r = run.reader();
    let path = run.dir.join("docs/a.txt");
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        crate::steps::wait_until_done(&mut s, EDITOR, "role:menu item && name:File").await;
        s.act("role:menu item && name:File", &Action::Click, &opts)
            .await
            .expect("open File");
        let a = s
            .act("role:menu item && name:Open", &Action::Click, &opts)
            .await
            .expect("File > Open");
        r.check(
            "open",
            &a,
            &[
                "# diff: +1 added, -1 removed, ~1 modified · focus [#] menu item \"New\" (gone) -> [#] filler",
                "+ [#] frame \"Select file\" (modal) (opened)",
                "    [#] filler = \"140\"",
                "      [#] scroll pane",
                "        [#] list",
                "          [#] list item \"Recent\" (selected)",
                "            [#] image",
                "          [#] list item \"Home\"",
                "            [#] image",
                "          [#] list item \"Desktop\"",
                "            [#] image",
                "          [#] list item \"work\"",
                "            [#] image",
                "          [#] list item \"Other Locations\"",
                "            [#] image",
                "          [#] separator",
                "      [#] scroll pane",
                "        [#] filler (focused)",
                "          [#] push button \"Modified\"",
                "          [#] push button \"Type\"",
                "          [#] push button \"Size\"",
                "          [#] push button \"Name\"",
                "    [#] push button \"Cancel\"",
                "    [#] push button \"Open\"",
                "  ... 26 more nodes under [#] (all hidden)",
                "- [#] menu in [#] menu item \"File\" (and 14 descendants)",
                "~ [#] menu item \"File\" | expanded: true -> false",
            ],
        );
        let activated = s
            .window_action(
                &format!("app:{EDITOR} >> role:frame && name:\"Select file\""),
                WindowAction::Activate,
                Settle::None,
            )
            .await
            .expect("activate the dialog");
        r.check(
            "activate",
            &activated,
            &[
                // A window manager gave the dialog the keyboard as it opened.
                "bare: # diff: ~1 modified",
                "bare: ~ [#] frame \"GTK Print Editor — Untitled\" | active: true -> false",
                "wm: No UI changes detected",
            ],
        );
        let a = s.key(EDITOR, "ctrl+l", &opts).await.expect("ctrl+L");
        // The path bar's buttons show in its place.
        r.check(
            "location",
            &a,
            &[
                "# diff: +1 added, ~4 modified · focus [#] filler -> [#] text",
                "+ [#] text (focused)",
                "~ [#] list item \"Recent\" | selected: true -> false",
                "~ [#] push button | enabled: true -> false | showing: false -> true (same on [#])",
                "~ [#] push button | showing: false -> true (also 1 descendant)",
                "    [#] image",
            ],
        );
        let a = s
            .act(
                "role:text && state:focused",
                &Action::Type(path.to_string_lossy().into_owned()),
                &opts,
            )
            .await
            .expect("type the path");
        r.check(
            "path",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] text | value: none -> \"$DIR/docs/a.txt\"",
            ],
        );
        let a = s.key(EDITOR, "Return", &opts).await.expect("Return");
        r.check(
            "Return",
            &a,
            &[
                "bare: # diff: -1 removed, ~3 modified · focus [#] text (gone) -> none",
                "wm: # diff: -1 removed, ~3 modified · focus [#] text (gone) -> [#] menu item \"File\"",
                "- [#] frame \"Select file\" (closed) (and 49 descendants)",
                "~ [#] frame | name: \"GTK Print Editor — Untitled\" -> \"GTK Print Editor — a.txt\"",
                "~ [#] text | value: none -> \"alpha\\n\"",
                "~ [#] label | name: \"0, 0\" -> \"1, 0\"",
            ],
        );
    });
}
