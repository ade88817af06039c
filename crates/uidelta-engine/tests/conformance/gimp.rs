//! GIMP 2.10 (GTK 2, through GAIL), an image editor: an image scaled
//! through its Image menu and dialog, then exported under a new name. GAIL
//! says nothing of which menu is open; the display does (the menu opens
//! as a list of its entries). The export's options dialog is a plug-in's,
//! a process of its own: the answer follows the focus there, and the
//! plug-in's Export ends it, writing the file. Last, a tool is chosen
//! from the toolbox by its name.

use uidelta_backend::Action;
use uidelta_engine::ActOptions;

use crate::common::session;
use crate::steps::{start, wait_until_done};

/// A picture of 120 × 80 pixels in the PPM text format, which GIMP opens
/// as it is: its left half red, its right half blue.
fn picture() -> String {
    let (w, h) = (120, 80);
    let mut ppm = format!("P3\n{w} {h}\n255\n");
    for _ in 0..h {
        for x in 0..w {
            ppm.push_str(if x < w / 2 {
                "200 40 40\n"
            } else {
                "40 40 200\n"
            });
        }
    }
    ppm
}

#[test]
fn gimp_scales_an_image_and_exports_it() {
    let photo = picture();
    let run = start(
        "gimp",
        &["--no-splash", "--no-fonts", "photo.ppm"],
        "gimp",
        "gimp libgail-common libatk-adaptor",
        &[("photo.ppm", &photo)],
        false,
    );
    // What the status bar holds besides its message says where the
    // pointer is over the image (and the unit combo box beside it is named
    // after that): it follows each pointer click, and is not judged.
    let r = run.reader().leaving_out("in [#] status bar \"");
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        wait_until_done(&mut s, "gimp", "role:frame && name~:\"[photo]\"").await;

        // 1. The Image menu: GAIL says nothing of it opening, the display
        //    does; its entries are listed.
        let image = crate::common::ref_of(&s, "role:menu bar >> role:menu && name:Image");
        let a = s
            .act(&image, &Action::Click, &opts)
            .await
            .expect("open the Image menu");
        r.check(
            "image menu",
            &a,
            &[
                "# diff: ~2 modified · focus [#] page tab -> none",
                "~ [#] menu \"Image\" | selected: false -> true (shows 27 descendants)",
                "    [#] menu item \"Duplicate\"",
                "    [#] separator",
                "    [#] menu \"Mode\"",
                "    [#] menu \"Precision\"",
                "    [#] menu \"Color Management\"",
                "    [#] separator",
                "    [#] menu \"Transform\"",
                "    [#] menu item \"Canvas Size...\"",
                "    [#] menu item \"Fit Canvas to Layers\"",
                "    [#] menu item \"Fit Canvas to Selection\" (disabled)",
                "    [#] menu item \"Print Size...\"",
                "    [#] menu item \"Scale Image...\"",
                "    [#] separator",
                "    [#] menu item \"Crop to Selection\" (disabled)",
                "    [#] menu item \"Crop to Content\"",
                "    [#] menu item \"Slice Using Guides\"",
                "    [#] menu item \"Zealous Crop\"",
                "    [#] separator",
                "    [#] menu item \"Merge Visible Layers...\"",
                "    [#] menu item \"Flatten Image\"",
                "    [#] menu item \"Align Visible Layers...\"",
                "    [#] separator",
                "    [#] menu \"Guides\"",
                "    [#] menu item \"Configure Grid...\"",
                "    [#] separator",
                "    [#] menu item \"Image Properties\"",
                "    [#] menu \"Metadata\"",
                "~ [#] status bar | name: \"photo.ppm (93.0 kB)\" -> \"Create a duplicate of this image\"",
            ],
        );

        // 2. Its Scale Image... opens a dialog.
        let scale = r.ref_on(&a, "    [#] menu item \"Scale Image...\"");
        let a = s
            .act(&scale, &Action::Click, &opts)
            .await
            .expect("Scale Image...");
        r.check(
            "scale image",
            &a,
            &[
                "# diff: +2 added, ~3 modified · focus none -> [#] panel",
                "+ [#] dialog \"Scale Image\" (opened)",
                "    [#] icon",
                "    [#] label \"Scale Image\"",
                "    [#] label \"[photo] (imported)-1\"",
                "    [#] panel \"Image Size\"",
                "      [#] label \"120 × 80 pixels\"",
                "      [#] push button",
                "      [#] spin button \"Width:\" = \"120\" (all selected)",
                "      [#] combo box = \"pixels\"",
                "      [#] spin button \"Height:\" = \"80\"",
                "      [#] push button",
                "      [#] spin button \"X resolution:\" = \"72.000\"",
                "      [#] combo box = \"inches\"",
                "      [#] spin button \"Y resolution:\" = \"72.000\"",
                "    [#] panel \"Quality\"",
                "      [#] combo box \"Interpolation:\" = \"Cubic\"",
                "    [#] push button \"Scale\"",
                "    [#] push button \"Cancel\"",
                "    [#] push button \"Reset\"",
                "    [#] push button \"Help\"",
                "  ... 30 more nodes under [#] (all hidden)",
                "~ [#] menu \"Image\" | selected: true -> false (hides 27 descendants)",
                "~ [#] status bar | name: \"Create a duplicate of this image\" -> \"Click-Drag to draw a crop rectangle\"",
            ],
        );
        let button = r.ref_on(&a, "    [#] push button \"Scale\"");

        // 3. The width, halved: the height follows, chained to it.
        let width = r.ref_on(
            &a,
            "      [#] spin button \"Width:\" = \"120\" (all selected)",
        );
        let a = s
            .act(&width, &Action::SetValue("60".into()), &opts)
            .await
            .expect("set the width");
        r.check(
            "width",
            &a,
            &[
                "# diff: ~3 modified",
                "~ [#] label in [#] panel \"Image Size\" | name: \"120 × 80 pixels\" -> \"60 × 40 pixels\"",
                "~ [#] spin button \"Width:\" in [#] panel \"Image Size\" | value: \"120\" -> \"60\"",
                "~ [#] spin button \"Height:\" in [#] panel \"Image Size\" | value: \"80\" -> \"40\"",
            ],
        );

        // 4. Scale: the dialog goes, the image is 60 × 40.
        let a = s.act(&button, &Action::Click, &opts).await.expect("Scale");
        r.check(
            "scaled",
            &a,
            &[
                "# diff: -1 removed, ~8 modified",
                "- [#] dialog \"Scale Image\" (closed) (and 49 descendants)",
                "~ [#] frame | name: \"[photo] (imported)-1…t-in sRGB, 1 layer) 120x80 – GIMP\" -> \"*[photo] (imported)-1…t-in sRGB, 1 layer) 60x40 – GIMP\"",
                "~ [#] menu item (hidden) in [#] menu \"Edit\" | name: \"Undo\" -> \"Undo Scale Image\" | enabled: false -> true",
                "~ [#] menu item (hidden) in [#] menu \"Zoom (100%)\" | name: \"Revert Zoom\" -> \"Revert Zoom (100%)\"",
                "~ [#] text | value: \"120:80\" -> \"60:40\"",
                "~ [#] push button \"Undo the last operation\" (hidden) | enabled: false -> true (same on [#] \"Remove all operations from the undo…\")",
            ],
        );

        // 5. Export As: GTK 2's file chooser.
        let a = s
            .key("gimp", "shift+ctrl+e", &opts)
            .await
            .expect("Export As");
        r.check(
            "export as",
            &a,
            &[
                "# diff: +1 added, -1 removed, ~2 modified",
                "+ [#] dialog \"Export Image\" (opened)",
                "    [#] toggle button \"work\" (checked)",
                "    [#] toggle button \"$RUN\"",
                "    [#] toggle button \"tmp\"",
                "    [#] toggle button \"File System Root\"",
                "    [#] push button \"Create Folder\"",
                "    [#] label \"Save in folder:\"",
                "    [#] text \"Name:\" = \"photo.ppm\" (selected \"photo\")",
                "    [#] split pane = \"148\"",
                "      [#] scroll pane",
                "        [#] table \"Places\"",
                "          [#] table column header \"Places\"",
                "          [#] table cell \"Search\"",
                "          [#] table cell \"Recently Used\"",
                "          [#] table cell",
                "          [#] table cell \"work\" (selected)",
                "          [#] table cell \"user\"",
                "          [#] table cell \"File System\"",
                "      [#] tool bar",
                "        [#] push button \"Add the selected folder to the Bookmarks\" (disabled)",
                "        [#] push button \"Bookmark 'work' cannot be removed\" (disabled)",
                "      [#] scroll pane",
                "        [#] table \"Files\"",
                "          [#] table column header \"Name\"",
                "          [#] table column header \"Size\"",
                "          [#] table column header \"Modified\"",
                "          [#] table cell \"photo.ppm\"",
                "          [#] table cell \"96.0 kB\"",
                "          [#] table cell \"03/01/21\"",
                "      [#] panel (disabled)",
                "        [#] push button \"Preview\" (disabled)",
                "        [#] label \"No selection\" (disabled)",
                "    [#] check box \"Show All Files\"",
                "    [#] toggle button \"Select File Type (By Extension)\" (collapsed)",
                "    [#] push button \"Help\"",
                "    [#] push button \"Export\"",
                "    [#] push button \"Cancel\"",
                "  ... 4 more nodes under [#] (all hidden)",
                "~ [#] status bar | name: \"Click-Drag to draw a crop rectangle\" -> \"photo.ppm (65.5 kB)\"",
            ],
        );
        let export = r.ref_on(&a, "    [#] push button \"Export\"");

        // 6. A new name for the file.
        let name = r.ref_on(&a, "    [#] text \"Name:\" = \"photo.ppm\"");
        let a = s
            .act(&name, &Action::SetValue("small.ppm".into()), &opts)
            .await
            .expect("name the file");
        r.check(
            "name",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] text \"Name:\" in [#] dialog \"Export Image\" | value: \"photo.ppm\" -> \"small.ppm\"",
            ],
        );

        // 7. Export: the format's options come in a plug-in's dialog, in
        //    a process of its own that takes the focus.
        //    GIMP makes its own dialog insensitive (and Quit with it) while
        //    the plug-in runs, in steps, in no set order: the capture holds
        //    whatever had gone by then (all of it; or the column headers,
        //    or the dialog's Export and Cancel, or Cancel alone first, each
        //    seen), and GIMP's window says it is no longer active only
        //    some of the time (a plug-in's dialog does not take the focus
        //    from it for GAIL). So GIMP's part is judged line by line:
        //    each says that something of its export dialog (or Quit) went
        //    insensitive, or that the window or the dialog is active no
        //    longer or now; the plug-in's part is judged whole.
        let a = s.act(&export, &Action::Click, &opts).await.expect("Export");
        let plugin: &[&str] = &[
            "# focus went to file-pnm (pid $PID)",
            "# diff: +1 added",
            "+ [#] dialog \"Export Image as PNM\"",
            "    [#] panel \"Data formatting\"",
            "      [#] radio button \"Raw\" (focused, checked)",
            "      [#] radio button \"ASCII\"",
            "    [#] push button \"Export\"",
            "    [#] push button \"Cancel\"",
            "    [#] push button \"Help\"",
        ];
        let text = crate::steps::answer(&a);
        let got = r.lines(&text);
        // The plug-in, a process GIMP started, joins the bus later than
        // GIMP settles on a busy machine (a fresh-clone CI run with mirrors
        // on answered after 344 ms with GIMP's part alone): the answer
        // waits for it to show its window.
        let at = got
            .iter()
            .position(|l| l == plugin[0])
            .unwrap_or_else(|| panic!("export: no plug-in's dialog in:\n{text}"));
        let (gimp, rest) = got.split_at(at);
        assert_eq!(rest, plugin, "export: the plug-in's part of:\n{text}");
        let insensitive = |l: &str| {
            let whole =
                "~ [#] menu item \"Quit\" (hidden) in [#] menu \"File\" | enabled: true -> false";
            let of_dialog = [
                "in [#] dialog \"Export Image\"",
                "in [#] table \"Places\"",
                "in [#] table \"Files\"",
            ]
            .iter()
            .any(|d| l.contains(d));
            l == whole || (of_dialog && l.contains(" | enabled: true -> false"))
        };
        let activation = [
            "~ [#] frame \"*[photo] (imported)-1.0 (RGB color…\" | active: true -> false",
            "~ [#] dialog \"Export Image\" | active: false -> true",
        ];
        let (head, lines) = gimp
            .split_first()
            .unwrap_or_else(|| panic!("export: nothing of GIMP's in:\n{text}"));
        let head = head.split(" · ").next().unwrap_or_default();
        let counted = head
            .strip_prefix("# diff: ~")
            .and_then(|h| h.strip_suffix(" modified"))
            .is_some_and(|n| n.parse::<usize>().is_ok_and(|n| n >= lines.len()));
        assert!(counted, "export: GIMP's head {head:?} in:\n{text}");
        for l in lines {
            assert!(
                insensitive(l) || activation.contains(&l.as_str()),
                "export: GIMP's line {l:?} says neither that its dialog went \
                 insensitive nor that a window's activation changed, in:\n{text}"
            );
        }
        assert!(
            lines.iter().any(|l| insensitive(l)),
            "export: nothing of GIMP's dialog went insensitive, in:\n{text}"
        );
        let switched = a.app_switch.as_ref().expect("the plug-in's dialog");
        assert_eq!(switched.app.name, "file-pnm");

        // 8. The plug-in's Export writes the file, and ends the plug-in.
        let a = s
            .act(
                &r.ref_on(&a, "    [#] push button \"Export\""),
                &Action::Click,
                &opts,
            )
            .await
            .expect("the plug-in's Export");
        assert!(a.exited, "{}", crate::steps::answer(&a));

        // 9. Back in GIMP, a tool chosen by name: GTK 2's tool items hold
        //    their tooltips and their buttons nothing; each tool reads as
        //    one named toggle. The answer also holds what changed in GIMP
        //    since its last capture, with the export; only the tool's
        //    lines are judged.
        let brush = crate::common::ref_of(
            &s,
            "app:gimp && role:toggle button && name~:\"Paintbrush Tool\"",
        );
        let a = s
            .act(&brush, &Action::Click, &opts)
            .await
            .expect("Paintbrush");
        let lines = r.lines(&crate::steps::answer(&a));
        for line in [
            "~ [#] toggle button \"Crop Tool: Remove edge areas from image…\" | checked: true -> false",
            "~ [#] toggle button \"Paintbrush Tool: Paint smooth strokes…\" | checked: false -> true",
        ] {
            assert!(
                lines.iter().any(|l| l == line),
                "no line {line:?} in:\n{}",
                lines.join("\n")
            );
        }
    });
    let written = std::fs::read(run.dir.join("small.ppm")).expect("small.ppm written");
    assert!(
        written.starts_with(b"P6\n") && written.windows(6).any(|w| w == b"60 40\n"),
        "small.ppm is not a 60 × 40 picture"
    );
}
