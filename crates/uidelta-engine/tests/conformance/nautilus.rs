//! Nautilus 43 (GTK 4 with libadwaita), the file manager of GNOME and of
//! OSWorld's desktop: a file renamed in its popover, a folder made through
//! its dialog, opened, and left with Back; its main menu opened and closed,
//! and a file clicked while a tooltip shows. GTK 4.8 names nameless widgets
//! after their types (the application's own too: `NautilusToolbar`), gives
//! icon buttons their tooltips alone, says `showing` of no dialog, makes
//! its path bar anew at every folder, puts its tooltips in the tree and
//! types them as menus on X11; each answer must read as the window shows
//! it.

use std::time::Duration;

use uidelta_backend::Action;
use uidelta_engine::ActOptions;

use crate::common::session;
use crate::steps::start;

const NAUTILUS: &str = "org.gnome.Nautilus";

/// What the floating status bar says of a selection comes a moment after
/// the selection itself: waited for, so that each answer is its own step's.
async fn quiet(s: &mut uidelta_engine::Session<uidelta_linux::Linux>) -> Vec<String> {
    let mut late = Vec::new();
    for _ in 0..5 {
        let a = s
            .wait_for_change("nautilus", Duration::from_millis(1500))
            .await
            .expect("wait for Nautilus");
        if !crate::steps::changed(&a) {
            break;
        }
        late.push(crate::steps::answer(&a));
    }
    late
}

#[test]
fn nautilus_renames_makes_a_folder_and_moves_into_it() {
    let run = start(
        "nautilus",
        &["--new-window", "."],
        NAUTILUS,
        "nautilus",
        &[("Documents/", ""), ("notes.txt", "notes\n")],
        false,
    );
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        crate::steps::wait_until_done(&mut s, "nautilus", "role:table cell && name:notes.txt")
            .await;

        // 1. The window as it shows: icon buttons named after their
        //    tooltips, the files as named cells, no type names.
        for selector in [
            "role:push button && name:Back",
            "role:push button && name:Search",
            "role:push button && name:\"Main Menu\"",
            "role:table cell && name:Documents",
            "role:table cell && name:notes.txt",
        ] {
            assert!(
                !s.find(&selector.parse().expect("selector")).is_empty(),
                "{selector} in Nautilus's window"
            );
        }
        assert!(
            s.find(
                &"name~:Nautilus && !role:application"
                    .parse()
                    .expect("selector")
            )
            .is_empty(),
            "no element named after a type of Nautilus's"
        );

        // 2. Select the file: the status bar says so (a moment later at
        //    times: waited for).
        let a = s
            .act("role:table cell && name:notes.txt", &Action::Click, &opts)
            .await
            .expect("select notes.txt");
        let status = [
            "+ [#] label \"“notes.txt” selected\" in [#] filler \"Content View\"",
            "+ [#] label \"(6 bytes)\" in [#] filler \"Content View\"",
        ];
        let with_status = r.check_passing(
            "select",
            &a,
            &[
                "# diff: +2 added, ~1 modified",
                status[0],
                status[1],
                "~ [#] table cell \"notes.txt\" in [#] filler \"Content View\" | selectable, selected: false -> true",
            ],
            &status,
            &["# diff: ~1 modified"],
        );
        if !with_status {
            let late = quiet(&mut s).await;
            assert!(
                late.iter().any(|t| t.contains("“notes.txt” selected")),
                "the selection answered:\n{}\nthen: {late:?}",
                crate::steps::answer(&a)
            );
        }
        quiet(&mut s).await;

        // 3. F2: the rename popover, the name offered; a new name; Return
        //    renames the cell in place.
        let a = s.key("nautilus", "F2", &opts).await.expect("F2");
        r.check(
            "rename popover",
            &a,
            &[
                "# diff: +3 added · focus [#] table cell \"notes.txt\" -> [#] text \"New Filename\"",
                "+ [#] label \"Rename File\" in [#] filler \"Content View\"",
                "+ [#] text \"New Filename\" = \"notes.txt\" (focused, selected \"notes\") in [#] filler \"Content View\"",
                "+ [#] push button \"Rename\" in [#] filler \"Content View\"",
            ],
        );
        let a = s
            .act(
                "role:text && name:\"New Filename\"",
                &Action::SetValue("todo.txt".into()),
                &opts,
            )
            .await
            .expect("new name");
        r.check(
            "new name",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] text \"New Filename\" in [#] filler \"Content View\" | value: \"notes.txt\" -> \"todo.txt\"",
            ],
        );
        let a = s.key("nautilus", "Return", &opts).await.expect("Return");
        let status =
            "~ [#] label in [#] filler \"Content View\" | name: \"“notes.txt” selected\" -> \"“todo.txt” selected\"";
        r.check_passing(
            "renamed",
            &a,
            &[
                "# diff: -3 removed, ~2 modified · focus [#] text \"New Filename\" (gone) -> [#] table cell \"todo.txt\"",
                "- [#] label \"Rename File\" in [#] filler \"Content View\"",
                "- [#] text \"New Filename\" in [#] filler \"Content View\"",
                "- [#] push button \"Rename\" in [#] filler \"Content View\"",
                "~ [#] table cell in [#] filler \"Content View\" | name: \"notes.txt\" -> \"todo.txt\"",
                status,
            ],
            &[status],
            &["# diff: -3 removed, ~1 modified · focus [#] text \"New Filename\" (gone) -> [#] table cell \"todo.txt\""],
        );
        quiet(&mut s).await;

        // 4. A new folder: GTK 4's dialog, with all in it; a name makes
        //    Create sensitive; Return makes the folder, selected.
        let a = s
            .key("nautilus", "ctrl+shift+n", &opts)
            .await
            .expect("new folder");
        r.check(
            "new folder",
            &a,
            &[
                "# diff: +1 added · focus [#] table cell \"todo.txt\" -> [#] text \"Folder name\"",
                "+ [#] dialog \"New Folder\" (modal) (opened)",
                "    [#] label \"Folder name\"",
                "    [#] text \"Folder name\" (focused)",
                "    [#] push button \"Cancel\"",
                "    [#] label \"New Folder\"",
                "    [#] push button \"Create\" (disabled)",
            ],
        );
        let a = s
            .act(
                "role:dialog >> role:text",
                &Action::Type("Archive".into()),
                &opts,
            )
            .await
            .expect("type the name");
        r.check(
            "folder name",
            &a,
            &[
                "# diff: ~2 modified",
                "~ [#] text \"Folder name\" in [#] dialog \"New Folder\" | value: none -> \"Archive\"",
                "~ [#] push button \"Create\" in [#] dialog \"New Folder\" | enabled: false -> true",
            ],
        );
        let a = s.key("nautilus", "Return", &opts).await.expect("create");
        // The status bar follows the selection late, at times after the
        // answer (then waited for below).
        let status = [
            "~ [#] label in [#] filler \"Content View\" | name: \"“todo.txt” selected\" -> \"“Archive” selected\"",
            "~ [#] label in [#] filler \"Content View\" | name: \"(6 bytes)\" -> \"(containing 0 items)\"",
        ];
        r.check_passing(
            "created",
            &a,
            &[
                "# diff: +1 added, -1 removed, ~3 modified · focus [#] text \"Folder name\" (gone) -> [#] table cell \"Archive\"",
                "+ [#] table cell \"Archive\" (focused, selected) in [#] filler \"Content View\"",
                "    [#] image",
                "- [#] dialog \"New Folder\" (closed) (and 5 descendants)",
                "~ [#] table cell \"todo.txt\" in [#] filler \"Content View\" | selected: true -> false",
                status[0],
                status[1],
            ],
            &status,
            &["# diff: +1 added, -1 removed, ~1 modified · focus [#] text \"Folder name\" (gone) -> [#] table cell \"Archive\""],
        );
        quiet(&mut s).await;

        // 5. Open it: the path bar, made anew, gains the folder alone;
        //    the view says it is empty. Back: the files again.
        let a = s.key("nautilus", "Return", &opts).await.expect("open");
        // The status bar's labels go with the files; what they said last
        // is the new folder's selection, or, when Nautilus had not caught
        // up, the file's before it.
        let said = [
            ("“Archive” selected", "(containing 0 items)"),
            ("“todo.txt” selected", "(6 bytes)"),
        ];
        let opened: Vec<Vec<String>> = said
            .iter()
            .map(|(selection, size)| {
                vec![
                    "# diff: +3 added, -6 removed, ~6 modified · focus [#] table cell \"Archive\" (gone) -> [#] scroll pane".to_owned(),
                    "+ [#] label \"/\"".to_owned(),
                    "+ [#] push button \"Archive\"".to_owned(),
                    "+ [#] panel \"Folder is Empty\" in [#] filler \"Content View\"".to_owned(),
                    "    [#] scroll pane (focused)".to_owned(),
                    "      [#] label \"Folder is Empty\"".to_owned(),
                    "- [#] scroll pane in [#] filler \"Content View\"".to_owned(),
                    "- [#] table cell \"Archive\" in [#] filler \"Content View\" (and 1 descendant)".to_owned(),
                    "- [#] table cell \"Documents\" in [#] filler \"Content View\" (and 1 descendant)".to_owned(),
                    "- [#] table cell \"todo.txt\" in [#] filler \"Content View\" (and 1 descendant)".to_owned(),
                    format!("- [#] label \"{selection}\" in [#] filler \"Content View\""),
                    format!("- [#] label \"{size}\" in [#] filler \"Content View\""),
                    "~ [#] frame | name: \"work\" -> \"Archive\"".to_owned(),
                    "~ [#] push button \"Back\" | enabled: false -> true (same on [#] \"Back\")".to_owned(),
                    "~ [#] text (hidden) | value: \"$DIR\" -> \"$DIR/Archive\"".to_owned(),
                    "~ [#] filler (hidden) | description: \"$DIR\" -> \"$DIR/Archive\"".to_owned(),
                    "~ [#] label (hidden) | name: \"work\" -> \"Archive\"".to_owned(),
                ]
            })
            .collect();
        let variants: Vec<Vec<&str>> = opened
            .iter()
            .map(|v| v.iter().map(String::as_str).collect())
            .collect();
        let refs: Vec<&[&str]> = variants.iter().map(Vec::as_slice).collect();
        let (selection, size) = said[r.check_one_of("opened", &a, &refs)];
        quiet(&mut s).await;
        let a = s.key("nautilus", "alt+Left", &opts).await.expect("back");
        let back = [
            "# diff: +5 added, -2 removed, ~9 modified · focus [#] scroll pane -> [#] table cell \"Archive\"".to_owned(),
            format!("+ [#] label \"{selection}\" in [#] filler \"Content View\" (came back as it was when it left)"),
            format!("+ [#] label \"{size}\" in [#] filler \"Content View\" (came back as it was when it left)"),
            "+ [#] table cell \"Archive\" (focused, selected) in [#] filler \"Content View\"".to_owned(),
            "    [#] image".to_owned(),
            "+ [#] table cell \"Documents\" in [#] filler \"Content View\"".to_owned(),
            "    [#] image".to_owned(),
            "+ [#] table cell \"todo.txt\" in [#] filler \"Content View\"".to_owned(),
            "    [#] image".to_owned(),
            "- [#] label \"/\"".to_owned(),
            "- [#] push button \"Archive\"".to_owned(),
            "~ [#] frame | name: \"Archive\" -> \"work\"".to_owned(),
            "~ [#] push button \"Back\" | enabled: true -> false (same on [#] \"Back\")".to_owned(),
            "~ [#] push button \"Forward\" | enabled: false -> true (same on [#] \"Forward\")".to_owned(),
            "~ [#] text (hidden) | value: \"$DIR/Archive\" -> \"$DIR\"".to_owned(),
            "~ [#] filler (hidden) | description: \"$DIR/Archive\" -> \"$DIR\"".to_owned(),
            "~ [#] label (hidden) | name: \"Archive\" -> \"work\"".to_owned(),
            "~ [#] panel \"Folder is Empty\" in [#] filler \"Content View\" | showing: true -> false (also 2 descendants)".to_owned(),
        ];
        let back: Vec<&str> = back.iter().map(String::as_str).collect();
        // The status bar's labels come back late, at times after the
        // answer (as in step 4): then waited for below.
        r.check_passing(
            "back",
            &a,
            &back,
            &back[1..3],
            &["# diff: +3 added, -2 removed, ~9 modified · focus [#] scroll pane -> [#] table cell \"Archive\""],
        );
        quiet(&mut s).await;

        // 6. The main menu: one button, and its menu opens in it. The
        //    button's tooltip shows as the pointer rests on it (GTK 4 puts
        //    it in the tree), and is left out: the answers hold the menu.
        let main_menu = "role:push button && name:\"Main Menu\"";
        assert_eq!(s.find(&main_menu.parse().expect("selector")).len(), 1);
        let a = s
            .act(main_menu, &Action::Click, &opts)
            .await
            .expect("open the main menu");
        r.check(
            "main menu",
            &a,
            &[
                "# diff: +1 added, ~1 modified · focus [#] table cell \"Archive\" -> [#] menu item \"New Window\"",
                "+ [#] menu",
                "    [#] scroll pane",
                "      [#] menu item \"New Window\" (focused)",
                "        [#] label \"Ctrl+N\"",
                "      [#] menu item \"New Tab\"",
                "        [#] label \"Ctrl+T\"",
                "      [#] separator",
                "      [#] label \"Icon Size\"",
                "      [#] push button \"Zoom out\"",
                "      [#] push button \"Zoom in\"",
                "      [#] separator",
                "      [#] menu item \"Undo Create Folder\"",
                "        [#] label \"Ctrl+Z\"",
                "      [#] menu item \"Redo\" (disabled)",
                "        [#] label \"Shift+Ctrl+Z\"",
                "      [#] separator",
                "      [#] check menu item \"Show Hidden Files\"",
                "        [#] label \"Ctrl+H\"",
                "      [#] separator",
                "      [#] menu item \"Preferences\"",
                "      [#] menu item \"Keyboard Shortcuts\"",
                "      [#] menu item \"Help\"",
                "        [#] label \"F1\"",
                "      [#] menu item \"About Files\"",
                "~ [#] push button \"Main Menu\" | pressed: false -> true",
            ],
        );
        // The pointer rests on the button for as long as its tooltip takes
        // to show.
        tokio::time::sleep(Duration::from_secs(1)).await;
        let a = s.key("nautilus", "Escape", &opts).await.expect("close it");
        r.check(
            "main menu closed",
            &a,
            &[
                "# diff: -1 removed, ~1 modified · focus [#] menu item \"New Window\" (gone) -> [#] push button \"Main Menu\"",
                "- [#] menu (and 23 descendants)",
                "~ [#] push button \"Main Menu\" | pressed: true -> false",
            ],
        );

        // 7. The pointer rests on the Search button, whose tooltip shows (a
        //    popup of GTK 4's, typed as a menu, left out of the tree): a
        //    click on a file is still the pointer's, and its answer is the
        //    selection alone.
        let search = {
            let hits = s.find(&"role:push button && name:Search".parse().expect("selector"));
            let (scope, id) = hits[0];
            s.known_apps()[scope]
                .node(id)
                .bounds
                .expect("the Search button's place")
        };
        let x11 = uidelta_x11::X11::connect(run.desktop.display()).expect("X connection");
        let (x, y) = search.center();
        // GTK shows a tooltip after the pointer moved over the widget and
        // then rested: moved onto it in two steps, and again if need be.
        let mut tooltip = false;
        for _ in 0..3 {
            x11.move_pointer(x - 4, y)
                .expect("move the pointer near Search");
            tokio::time::sleep(Duration::from_millis(100)).await;
            x11.move_pointer(x, y).expect("rest the pointer on Search");
            for _ in 0..20 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                tooltip = x11
                    .top_windows()
                    .expect("windows")
                    .iter()
                    .any(|w| w.viewable && w.override_redirect && w.title == NAUTILUS);
                if tooltip {
                    break;
                }
            }
            if tooltip {
                break;
            }
        }
        assert!(tooltip, "Search's tooltip shows");
        quiet(&mut s).await;
        let a = s
            .act("role:table cell && name:Documents", &Action::Click, &opts)
            .await
            .expect("select Documents");
        assert!(
            a.done.method.starts_with("XTest click"),
            "{}",
            a.done.method
        );
        // The floating status bar's word on the new selection comes a
        // moment after it: in the answer when the settle lasts that long
        // (a busy machine), else after it.
        let status = "~ [#] label in [#] filler \"Content View\" | name: \"“Archive” selected\" -> \"“Documents” selected\"";
        r.check_passing(
            "Documents",
            &a,
            &[
                "# diff: ~3 modified",
                "~ [#] table cell \"Archive\" in [#] filler \"Content View\" | selected: true -> false",
                "~ [#] table cell \"Documents\" in [#] filler \"Content View\" | selectable, selected: false -> true",
                status,
            ],
            &[status],
            &["# diff: ~2 modified"],
        );
    });
}
