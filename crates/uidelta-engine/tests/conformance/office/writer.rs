//! LibreOffice Writer: type a sentence, make what follows bold (Ctrl+B)
//! and type it, take bold off with the tool bar's button, open Format >
//! Paragraph from the menu bar and cancel it, set the font size in
//! Format > Character, insert a table, type into a cell and move to the
//! next, type a font that is not installed, and open a second document
//! and click Bold by a selector both windows match, replace a word
//! through Find and Replace, and type a long sentence. Its document paragraphs
//! and status bar fields carry their text, and the copy of its menu bar
//! that LibreOffice keeps with no room is not in the tree.

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, Settle, WindowAction};
use uidelta_model::{Role, State};

use crate::common::ref_of;
use crate::office::{self, diff_has, diff_is, lines, ref_where, APP};

const WINDOW: &str = "Untitled 1 - LibreOffice Writer";

/// A sentence longer than a diff line shows whole (`DiffOptions::text_limit`).
const LONG_SENTENCE: &str =
    " The quick brown fox jumps over the lazy dog, then runs far away into the quiet woods.";

#[test]
fn writer_task() {
    let (_desktop, rt, mut s) = office::start("--writer", WINDOW);
    crate::steps::run_task(&rt, async {
        let opts = ActOptions::default();
        // One menu bar, the one that shows: its items are named once.
        let bars = s.find(&"role:menu bar".parse().expect("selector"));
        assert_eq!(bars.len(), 1, "menu bars: {bars:?}");
        let scope = &s.known_apps()[0];
        let tree = uidelta_render::tree_text(&scope.view, &scope.refs, &Default::default());
        let tokens = uidelta_render::count_tokens(&tree);
        eprintln!("Writer's first tree: {tokens} tokens");
        assert!(tokens < 20_000, "{tokens} tokens:\n{tree}");

        let para = ref_of(&s, "role:paragraph");
        let doc = ref_of(&s, "role:document text");
        let pane = ref_of(&s, "role:root pane");
        let paragraph = |from: &str, to: &str| {
            format!(
                "~ [{para}] paragraph in [{doc}] document text \"Untitled 1 - LibreOffice Document\" | value: {from} -> \"{to}\""
            )
        };
        // 1. A sentence: the paragraph's text, Undo (on the first edit),
        // and the word count.
        let undo = ref_of(&s, "role:tool bar && name:Standard >> name:Undo");
        let standard = ref_of(&s, "role:tool bar && name:Standard");
        let a = s
            .act(&para, &Action::Type("Hello world. ".into()), &opts)
            .await
            .expect("type a sentence");
        let typed = paragraph("none", "Hello world. ");
        let got = lines(&a);
        assert!(got.contains(&typed), "no {typed:?} in:\n{}", got.join("\n"));
        let words = ref_where(&s, |n| n.value.as_deref() == Some("2 words, 13 characters"));
        let count = |from: &str, to: &str| {
            format!("~ [{words}] label in [{pane}] root pane \"{WINDOW}\" | value: \"{from}\" -> \"{to}\"")
        };
        diff_is(
            &a,
            &[
                typed,
                format!(
                    "~ [{undo}] push button \"Undo\" in [{standard}] tool bar \"Standard\" | enabled: false -> true"
                ),
                count("0 words, 0 characters", "2 words, 13 characters"),
            ],
        );

        // 2. Ctrl+B: the tool bar's Bold is on.
        let bold = ref_of(&s, "role:tool bar && name:Formatting >> name:Bold");
        let formatting = ref_of(&s, "role:tool bar && name:Formatting");
        let toggled = |from: bool, to: bool| {
            format!(
                "~ [{bold}] toggle button \"Bold\" in [{formatting}] tool bar \"Formatting\" | checked: {from} -> {to}"
            )
        };
        let a = s.key(APP, "ctrl+b", &opts).await.expect("ctrl+b");
        diff_is(&a, &[toggled(false, true)]);

        // 3. Bold text.
        let a = s
            .act(&para, &Action::Type("Bold".into()), &opts)
            .await
            .expect("type bold");
        diff_is(
            &a,
            &[
                paragraph("\"Hello world. \"", "Hello world. Bold"),
                count("2 words, 13 characters", "3 words, 17 characters"),
            ],
        );

        // 4. The tool bar's Bold, by the ref the diff named: off.
        let a = s
            .act(&bold, &Action::Click, &opts)
            .await
            .expect("click Bold");
        diff_is(&a, &[toggled(true, false)]);

        // 5. The menu bar's Format: the menu opens.
        let format = ref_of(&s, "role:menu bar >> role:menu && name:Format");
        let text_menu = ref_of(&s, "role:menu && name:Format >> role:menu && name:Text");
        let a = s
            .act(&format, &Action::Click, &opts)
            .await
            .expect("click Format");
        // It is selected, and its 30 entries show, listed under it: the
        // first, a submenu, selected.
        let got = lines(&a);
        assert_eq!(
            got[0],
            format!(
                "~ [{format}] menu \"Format\" | selected: false -> true (shows 30 descendants)"
            ),
            "{}",
            got.join("\n")
        );
        assert_eq!(
            got[1],
            format!("    [{text_menu}] menu \"Text\" (selected)"),
            "{}",
            got.join("\n")
        );
        // GTK opens the submenu after a delay of its own, within the diff
        // or after it; opened within, its items are listed under it.
        let text_line = format!(
            "~ [{text_menu}] menu \"Text\" in [{format}] menu \"Format\" | selected: false -> true"
        );
        assert!(
            got[31] == text_line || got[31] == format!("{text_line} (shows 25 descendants)"),
            "{}",
            got.join("\n")
        );
        let listed = if got[31] == text_line {
            0
        } else {
            assert!(
                got[32].ends_with("] check menu item \"Bold\""),
                "{}",
                got.join("\n")
            );
            25
        };
        assert_eq!(got.len(), 32 + listed, "{}", got.join("\n"));

        // 6. Paragraph...: the dialog, with what shows on its first page
        // and its buttons; the other pages counted, not listed. The menu
        // closes.
        let item = ref_of(&s, "role:menu item && name:Paragraph...");
        let a = s
            .act(&item, &Action::Click, &opts)
            .await
            .expect("click Paragraph...");
        let opened = a
            .diff
            .opened()
            .next()
            .unwrap_or_else(|| panic!("no dialog opened:\n{}", lines(&a).join("\n")));
        let dialog = opened.root().r#ref.to_string();
        let button = |name: &str| {
            let b = opened
                .subtree
                .iter()
                .find(|n| n.element.name == name)
                .unwrap_or_else(|| panic!("no {name} in the dialog"));
            format!("    [{}] push button \"{name}\"", b.element.r#ref)
        };
        let got = lines(&a);
        assert_eq!(
            got[0],
            format!("+ [{dialog}] dialog \"Paragraph\" (modal) (opened)")
        );
        diff_has(
            &a,
            34,
            &[
                button("Reset"),
                button("Help"),
                button("Cancel"),
                button("OK"),
                format!("  ... 52 more nodes under [{dialog}] (all hidden)"),
                format!("~ [{format}] menu \"Format\" | selected: true -> false (hides 30 descendants)"),
                format!(
                    "~ [{text_menu}] menu \"Text\" in [{format}] menu \"Format\" | selected: true -> false (hides 25 descendants)"
                ),
            ],
        );
        // Hidden pages: their tabs, not what is on them.
        let text = got.join("\n");
        let hidden: Vec<String> = opened
            .subtree
            .iter()
            .filter(|n| !n.element.states.is_empty() && !n.element.states.contains(State::Showing))
            .map(|n| format!("[{}]", n.element.r#ref))
            .collect();
        assert!(hidden.len() > 20, "{hidden:?}");
        for r in hidden {
            assert!(!text.contains(&r), "{r} does not show, yet:\n{text}");
        }

        // 7. Cancel: the dialog goes (and gives the window back the
        // activation, which its line says).
        let cancel = ref_of(&s, "role:dialog >> role:push button && name:Cancel");
        let a = s
            .act(&cancel, &Action::Click, &opts)
            .await
            .expect("click Cancel");
        diff_is(
            &a,
            &[format!(
                "- [{dialog}] dialog \"Paragraph\" (closed) (and 82 descendants)"
            )],
        );

        // 8. A pointer click at the centre of Bold, where the tree places
        // it: on again. LibreOffice reports its window's content a menu
        // bar's height above where it shows; read as reported, the click
        // would land on the Standard tool bar above.
        let (scope, node) = s.find(&bold.parse().expect("selector"))[0];
        let at = s.known_apps()[scope]
            .view
            .tree()
            .node(node)
            .bounds
            .expect("Bold's bounds");
        let centre = (at.x + at.w / 2, at.y + at.h / 2);
        let a = s
            .click_at(APP, centre, &Action::Click, &opts)
            .await
            .expect("click at Bold");
        diff_is(&a, &[toggled(false, true)]);

        // 9. Format > Character...: the dialog. Its size field is an
        // entry beside a combo box LibreOffice keeps hidden, which its
        // label names: the entry takes the name.
        let a = s
            .act("role:menu item && name:Character...", &Action::Click, &opts)
            .await
            .expect("click Character...");
        let (a, character) = office::until_opened(&mut s, a).await;
        let opened = a.diff.opened().next().expect("opened");
        assert_eq!(opened.root().name, "Character");
        let got = lines(&a);
        let size_line = got
            .iter()
            .filter(|l| l.trim_start().ends_with("] text \"Size:\" = \"12 pt\""))
            .count();
        assert_eq!(size_line, 1, "{}", got.join("\n"));

        // 10. The size, by name: of the three fields so named (the Asian
        // and Complex pages keep theirs, hidden), the one that shows.
        let size = "role:text && name:Size:";
        let scope = &s.known_apps()[0];
        let tree = uidelta_render::tree_text(&scope.view, &scope.refs, &Default::default());
        assert_eq!(s.find(&size.parse().expect("selector")).len(), 3, "{tree}");
        let a = s
            .act(size, &Action::SetValue("14 pt".into()), &opts)
            .await
            .expect("set the size");
        let font = ref_of(&s, "role:dialog >> role:page tab && name:Font");
        let got = lines(&a);
        let [line] = &got[..] else {
            panic!("one line, not:\n{}", got.join("\n"));
        };
        assert!(
            line.starts_with("~ [")
                && line.ends_with(&format!(
                    "] text \"Size:\" in [{font}] page tab \"Font\" | value: \"12 pt\" -> \"14 pt\""
                )),
            "{line}"
        );

        // 11. OK: the dialog goes, and the tool bar's size says 14 pt.
        let font_size = ref_of(&s, "role:panel && name:Font Size >> role:text");
        let sizes = ref_of(&s, "role:panel && name:Font Size");
        let ok = ref_of(&s, "role:dialog >> role:push button && name:OK");
        let a = s.act(&ok, &Action::Click, &opts).await.expect("click OK");
        let got = lines(&a);
        assert!(
            got[0].starts_with(&format!(
                "- [{character}] dialog \"Character\" (closed) (and "
            )),
            "{}",
            got.join("\n")
        );
        let size_line = format!(
            "~ [{font_size}] text in [{sizes}] panel \"Font Size\" | value: \"12 pt\" -> \"14 pt\""
        );
        assert!(
            got.contains(&size_line),
            "no {size_line:?} in:\n{}",
            got.join("\n")
        );
        // (The window active again is said by the dialog's line.)
        assert_eq!(got.len(), 2, "{}", got.join("\n"));

        // 12. Ctrl+F12: the Insert Table dialog, with its fields and its
        // buttons.
        let a = s.key(APP, "ctrl+F12", &opts).await.expect("ctrl+F12");
        let (a, dialog) = office::until_opened(&mut s, a).await;
        let got = lines(&a);
        for want in [
            "] spin button \"Rows:\" = \"2\"",
            "] spin button \"Columns:\" = \"2\"",
            "] push button \"Cancel\"",
            "] push button \"Insert\"",
        ] {
            assert!(
                got.iter().any(|l| l.ends_with(want)),
                "no line ending {want:?} in:\n{}",
                got.join("\n")
            );
        }

        // 13. Insert: the dialog goes, the table comes with its cells, and
        // the status bar names the cell the cursor is in.
        let insert = ref_of(&s, "role:dialog >> role:push button && name:Insert");
        let a = s.act(&insert, &Action::Click, &opts).await.expect("Insert");
        let got = lines(&a);
        let closed = format!("- [{dialog}] dialog \"Insert Table\" (closed) (and ");
        assert!(
            got.iter().any(|l| l.starts_with(&closed)),
            "no {closed:?} in:\n{}",
            got.join("\n")
        );
        let table = got
            .iter()
            .position(|l| l.starts_with("+ [") && l.contains("] table \"Table1-1\" in ["))
            .unwrap_or_else(|| panic!("no table added in:\n{}", got.join("\n")));
        let cells: Vec<&str> = got[table + 1..]
            .iter()
            .take_while(|l| l.starts_with("    "))
            .map(|l| l.trim())
            .filter(|l| l.contains("] table cell "))
            .collect();
        assert_eq!(cells.len(), 4, "{}", got.join("\n"));
        let place = ref_where(&s, |n| n.value.as_deref() == Some("Table1:A1"));
        let added = format!("+ [{place}] label = \"Table1:A1\" in [{pane}] root pane \"{WINDOW}\"");
        assert!(got.contains(&added), "no {added:?} in:\n{}", got.join("\n"));

        // 14. A word in the first cell: its paragraph, the table's
        // Optimize Size (a cell with text), and the word count.
        let cell = ref_of(&s, "role:table cell && name:A1 >> role:paragraph");
        let a1 = ref_of(&s, "role:table cell && name:A1");
        let table_bar = ref_of(&s, "role:tool bar && name:Table");
        let optimize = ref_of(&s, "role:tool bar && name:Table >> name:Optimize Size");
        let split = ref_of(&s, "role:tool bar && name:Table >> name:Split Table");
        let button = |r: &str, name: &str, from: bool| {
            format!(
                "~ [{r}] push button \"{name}\" in [{table_bar}] tool bar \"Table\" | enabled: {from} -> {}",
                !from
            )
        };
        let a = s
            .act(&cell, &Action::Type("Name".into()), &opts)
            .await
            .expect("type into A1");
        diff_is(
            &a,
            &[
                format!(
                    "~ [{cell}] paragraph in [{a1}] table cell \"A1\" | value: none -> \"Name\""
                ),
                button(&optimize, "Optimize Size", false),
                count("3 words, 17 characters", "4 words, 21 characters"),
            ],
        );

        // 15. Down, to the cell below: the table's buttons, and the status
        // bar names the cell.
        let a = s.key(APP, "Down", &opts).await.expect("Down");
        diff_is(
            &a,
            &[
                button(&split, "Split Table", false),
                button(&optimize, "Optimize Size", true),
                format!(
                    "~ [{place}] label in [{pane}] root pane \"{WINDOW}\" | value: \"Table1:A1\" -> \"Table1:A2\""
                ),
            ],
        );
        let below = ref_of(&s, "role:table cell && name:A2 >> role:paragraph");
        let focus = a
            .diff
            .focus
            .as_ref()
            .and_then(|f| f.to.as_ref())
            .map(|h| h.r#ref.to_string());
        assert_eq!(focus.as_deref(), Some(below.as_str()));

        // 16. Ctrl+End, from that empty cell to the table's last: after
        // such a move LibreOffice names the cell at its caret's next
        // blink, 600 ms later, and the answer holds it.
        let a = s.key(APP, "ctrl+End", &opts).await.expect("ctrl+End");
        diff_is(
            &a,
            &[format!(
                "~ [{place}] label in [{pane}] root pane \"{WINDOW}\" | value: \"Table1:A2\" -> \"Table1:B2\""
            )],
        );

        // 17-19. A font that is not installed, typed into Font Name: the
        // field says it is substituted (its box's tooltip, handed to it),
        // and stays the element it was.
        let fonts = ref_of(&s, "role:panel && name:Font Name");
        let font = ref_of(&s, "role:panel && name:Font Name >> role:text");
        s.act(&font, &Action::Click, &opts)
            .await
            .expect("click Font Name");
        s.act(
            &font,
            &Action::SetValue("Uidelta Missing Sans".into()),
            &opts,
        )
        .await
        .expect("set the font");
        let a = s.key(APP, "Return", &opts).await.expect("Return");
        diff_is(
            &a,
            &[format!(
                "~ [{font}] text in [{fonts}] panel \"Font Name\" | description: \"\" -> \"Font Name. The current font is not available and will be substituted.\""
            )],
        );

        // 20. Ctrl+N: a second document, in a window of its own, which
        // takes the keyboard.
        let second = "Untitled 2 - LibreOffice Writer";
        let frame = office::new_document(&mut s, second).await;

        // 21. The new window made the active one (without a window
        // manager the first one goes on saying it is, though the new one
        // has the keyboard).
        let a = s
            .window_action(&frame, WindowAction::Activate, Settle::default())
            .await
            .expect("activate the second window");
        let activated = format!("~ [{frame}] frame \"{second}\" | active: false -> true");
        let got = lines(&a);
        assert!(
            got.contains(&activated),
            "no {activated:?} in:\n{}",
            got.join("\n")
        );

        // 22. Bold, by a selector both windows' tool bars match: the one in
        // the active window, which holds the focus, where keys and clicks
        // go.
        let bars = format!("role:frame && name:\"{second}\" >> role:tool bar && name:Formatting");
        let bold2 = ref_of(&s, &format!("{bars} >> name:Bold"));
        let formatting2 = ref_of(&s, &bars);
        assert_ne!(bold2, bold);
        let a = s
            .act("role:toggle button && name:Bold", &Action::Click, &opts)
            .await
            .expect("click Bold in the window worked in");
        let on = format!(
            "~ [{bold2}] toggle button \"Bold\" in [{formatting2}] tool bar \"Formatting\" | checked: false -> true"
        );
        let got = lines(&a);
        assert!(got.contains(&on), "no {on:?} in:\n{}", got.join("\n"));

        // 23. Two lines typed into the second document: a line break is
        // Return, as from a keyboard: two paragraphs, the second with the
        // focus. (Inserted as text, it was a line break within the first
        // paragraph.) Which lines say it depends on whether LibreOffice
        // had laid out the new document's view by then (it may replace
        // the view's box with the document at the first key): the tree
        // after it is asserted.
        let para2 = ref_of(
            &s,
            &format!("role:frame && name:\"{second}\" >> role:paragraph"),
        );
        let a = s
            .act(&para2, &Action::Type("One.\nTwo.".into()), &opts)
            .await
            .expect("type two lines");
        let got = lines(&a).join("\n");
        let one = ref_where(&s, |n| {
            n.role == Role::Paragraph && n.value.as_deref() == Some("One.")
        });
        let two = ref_where(&s, |n| {
            n.role == Role::Paragraph
                && n.value.as_deref() == Some("Two.")
                && n.states.contains(State::Focused)
        });
        assert_ne!(one, two, "{got}");
        assert!(got.contains(&format!("[{two}] paragraph")), "{got}");

        // 24. Ctrl+H: Find and Replace, its fields and buttons listed. A
        // box of it that neither shows nor is enabled reports no state at
        // all; it is counted with what does not show, not listed as if it
        // showed.
        let a = s.key(APP, "ctrl+h", &opts).await.expect("ctrl+h");
        let (a, dialog) = office::until_opened(&mut s, a).await;
        let got = lines(&a);
        for want in [
            "] text \"Find:\"",
            "] text \"Replace:\"",
            "] push button \"Replace All\" (disabled)",
            "] push button \"Close\"",
        ] {
            assert!(
                got.iter().any(|l| l.contains(want)),
                "no line with {want:?} in:\n{}",
                got.join("\n")
            );
        }
        let shown: Vec<&String> = got
            .iter()
            .filter(|l| l.contains("Component Label"))
            .collect();
        assert!(shown.is_empty(), "{shown:?} in:\n{}", got.join("\n"));

        // 25. What to find: the field's text, the buttons it enables, and
        // that hidden box enabled, saying it does not show.
        let find = ref_of(&s, "role:dialog >> role:text && name:Find:");
        let a = s
            .act(&find, &Action::Type("Two".into()), &opts)
            .await
            .expect("type what to find");
        let search = ref_of(&s, "role:dialog >> role:panel && name:\"Search For\"");
        let (all, prev, next, one, every) = (
            ref_of(&s, "role:dialog >> name:\"Find All\""),
            ref_of(&s, "role:dialog >> name:\"Find Previous\""),
            ref_of(&s, "role:dialog >> name:\"Find Next\""),
            ref_of(&s, "role:dialog >> role:push button && name:Replace"),
            ref_of(&s, "role:dialog >> name:\"Replace All\""),
        );
        let hidden = ref_where(&s, |n| n.role == Role::Panel && n.name == "Component Label");
        diff_is(
            &a,
            &[
                format!("~ [{find}] text \"Find:\" in [{search}] panel \"Search For\" | value: none -> \"Two\""),
                format!("~ [{all}] push button \"Find All\" in [{dialog}] dialog \"Find and Replace\" | enabled: false -> true (same on [{prev}] \"Find Previous\", [{next}] \"Find Next\", [{one}] \"Replace\", [{every}] \"Replace All\")"),
                format!("~ [{hidden}] panel \"Component Label\" (hidden) in [{dialog}] dialog \"Find and Replace\" | enabled: false -> true (also 2 descendants)"),
            ],
        );

        // 26. Replace All, with what to put in its place: the paragraph's
        // new text, and the dialog's report.
        let with = ref_of(&s, "role:dialog >> role:text && name:Replace:");
        s.act(&with, &Action::Type("Three".into()), &opts)
            .await
            .expect("type the replacement");
        let a = s
            .act(&every, &Action::Click, &opts)
            .await
            .expect("Replace All");
        let got = lines(&a);
        let replaced = format!(
            "~ [{two}] paragraph in [{doc2}] document text \"Untitled 2 - LibreOffice Document\" | value: \"Two.\" -> \"Three.\"",
            doc2 = ref_of(&s, &format!("role:frame && name:\"{second}\" >> role:document text")),
        );
        let report = format!(
            "+ [{}] static \"Search key replaced 1 times.\" in [{search}] panel \"Search For\"",
            ref_of(&s, "role:dialog >> role:static")
        );
        for want in [&replaced, &report] {
            assert!(got.contains(want), "no {want:?} in:\n{}", got.join("\n"));
        }

        // 27. Close: the dialog goes.
        let close = ref_of(&s, "role:dialog >> name:Close");
        let a = s.act(&close, &Action::Click, &opts).await.expect("Close");
        let closed = format!("- [{dialog}] dialog \"Find and Replace\" (closed) (and ");
        let got = lines(&a);
        assert!(
            got.iter().any(|l| l.starts_with(&closed)),
            "no {closed:?} in:\n{}",
            got.join("\n")
        );

        // 28. A long sentence at the end of the second document's first
        // paragraph: one line, its new text cut with an ellipsis, and the
        // count. The paragraph takes the focus, as under a click at its
        // end: the word Replace All selected is no longer, and Cut and
        // Copy have nothing to act on.
        let first = ref_where(&s, |n| {
            n.role == Role::Paragraph && n.value.as_deref() == Some("One.")
        });
        let a = s
            .act(&first, &Action::Type(LONG_SENTENCE.into()), &opts)
            .await
            .expect("type a long sentence");
        let doc2 = ref_of(
            &s,
            &format!("role:frame && name:\"{second}\" >> role:document text"),
        );
        let pane2 = ref_of(
            &s,
            &format!("role:frame && name:\"{second}\" >> role:root pane"),
        );
        let words = ref_where(&s, |n| {
            n.value.as_deref() == Some("19 words, 96 characters")
        });
        let in_second =
            |what: &str| ref_of(&s, &format!("role:frame && name:\"{second}\" >> {what}"));
        let standard = in_second("role:tool bar && name:Standard");
        let cut = in_second("role:push button && name:Cut");
        let copy = in_second("role:push button && name:Copy");
        diff_is(
            &a,
            &[
                format!(
                    "~ [{first}] paragraph in [{doc2}] document text \"Untitled 2 - LibreOffice Document\" | value: \"One.\" -> \"One. The quick brown fox jumps over the lazy dog, then runs far away into the quiet …\""
                ),
                format!(
                    "~ [{cut}] push button \"Cut\" in [{standard}] tool bar \"Standard\" | enabled: true -> false (same on [{copy}] \"Copy\")"
                ),
                format!(
                    "~ [{words}] label in [{pane2}] root pane \"{second}\" | value: \"2 words, 10 characters\" -> \"19 words, 96 characters\""
                ),
            ],
        );
    });
}
