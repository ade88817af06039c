//! LibreOffice Impress: close the template chooser, hide the sidebar, give
//! the first slide a title, add a slide, go back to the first one in the
//! slide pane, open Slide > Slide Properties and cancel it, open a second
//! presentation and go back to the first, and type its subtitle.

use std::collections::HashMap;

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, Settle, WindowAction};
use uidelta_model::State;

use crate::common::ref_of;
use crate::office::{self, diff_has, diff_is, lines, ref_where, APP};

const WINDOW: &str = "Untitled 1 - LibreOffice Impress";
const PRESENTATION: &str = "document presentation \"Untitled 1 - LibreOffice Presentation\"";

#[test]
fn impress_task() {
    let (_desktop, rt, mut s) = office::start("--impress", WINDOW);
    crate::steps::run_task(&rt, async {
        let opts = ActOptions::default();
        let pane = ref_of(&s, "role:root pane");
        let doc = ref_of(&s, "role:document presentation");
        let slides = ref_of(&s, "role:document frame && name:\"Slides View\"");
        let title_slide = ref_of(&s, "role:list && name:Layouts >> name:\"Title Slide\"");
        let layouts = ref_of(&s, "role:list && name:Layouts");
        let properties = ref_of(&s, "role:root pane >> role:panel && name:Properties");
        let master_background = ref_of(
            &s,
            "role:panel && name:Properties >> role:check box && name:\"Master Background\"",
        );
        // The status bar's fields: which slide, and where the pointer is
        // (its text follows the pointer, so only its line is asserted).
        let slide_of = ref_where(&s, |n| n.value.as_deref() == Some("Slide 1 of 1"));
        let pointer = ref_where(&s, |n| {
            n.value
                .as_deref()
                .is_some_and(|v| v.contains(" / ") && v.contains(" x "))
        });
        let zoom = ref_where(&s, |n| n.value.as_deref().is_some_and(|v| v.ends_with('%')));
        let pointer_line =
            format!("~ [{pointer}] label in [{pane}] root pane \"{WINDOW}\" | value: ");
        let has_pointer_line = |a: &uidelta_engine::ActionOutcome| {
            let got = lines(a);
            assert!(
                got.iter().any(|l| l.starts_with(&pointer_line)),
                "no {pointer_line:?} in:\n{}",
                got.join("\n")
            );
        };

        // 1. Close the template chooser. When the document is first laid
        // out only now (the chooser came first), the zoom, the pointer's
        // place and the sidebar's master page options change with it.
        let chooser = ref_of(&s, "role:dialog && name:\"Select a Template\"");
        let close = ref_of(
            &s,
            "role:dialog && name:\"Select a Template\" >> role:push button && name:Close",
        );
        let zoomed = format!("~ [{zoom}] label in [{pane}] root pane \"{WINDOW}\" | value: \"");
        let a = s
            .act(&close, &Action::Click, &opts)
            .await
            .expect("close the chooser");
        let got = lines(&a);
        let expected = [format!(
            "~ [{title_slide}] list item \"Title Slide\" in [{layouts}] list \"Layouts\" | selected: false -> true"
        )];
        assert!(
            got[0].starts_with(&format!(
                "- [{chooser}] dialog \"Select a Template\" (closed) (and "
            )),
            "{}",
            got.join("\n")
        );
        for (i, line) in got.iter().enumerate().skip(1) {
            let laid_out = line.starts_with(&pointer_line)
                || line.starts_with(&zoomed)
                || line.starts_with(&format!("~ [{master_background}] check box \"Master Background\" in [{properties}] panel \"Properties\" | checked: false -> true"));
            assert!(
                expected.contains(line) || laid_out,
                "line {i} {line:?} is not expected in:\n{}",
                got.join("\n")
            );
        }
        for line in &expected {
            assert!(got.contains(line), "no {line:?} in:\n{}", got.join("\n"));
        }

        // 2. Ctrl+F5 hides the sidebar: one line for all of it; the slide
        // zooms to the room it leaves.
        let sidebar = properties;
        let a = s.key(APP, "ctrl+F5", &opts).await.expect("ctrl+F5");
        let got = lines(&a);
        assert!(
            got[0].starts_with(&format!(
                "- [{sidebar}] panel \"Properties\" in [{pane}] root pane \"{WINDOW}\" (and "
            )),
            "{}",
            got.join("\n")
        );
        has_pointer_line(&a);
        assert!(
            got.iter()
                .any(|l| l.starts_with(&zoomed) && l.ends_with('"')),
            "no {zoomed:?} in:\n{}",
            got.join("\n")
        );
        assert_eq!(got.len(), 3, "{}", got.join("\n"));

        // 3. Click the title placeholder, 4. type into it.
        let title = ref_of(&s, "role:panel && name:PresentationTitle");
        let text = ref_of(&s, "role:panel && name:PresentationTitle >> role:paragraph");
        let (drawing, standard) = (
            ref_of(&s, "role:tool bar && name:Drawing"),
            ref_of(&s, "role:tool bar && name:Standard"),
        );
        let buttons = |bar: &str, names: &[&str]| -> HashMap<String, String> {
            names
                .iter()
                .map(|name| {
                    let selector = format!("role:tool bar && name:{bar} >> name:\"{name}\"");
                    (name.to_string(), ref_of(&s, &selector))
                })
                .collect()
        };
        let in_drawing = buttons(
            "Drawing",
            &[
                "Position and Size",
                "Align Objects",
                "Arrange",
                "Distribution",
                "Text Box",
                "Line Color",
            ],
        );
        let in_standard = buttons(
            "Standard",
            &[
                "Clone",
                "Clear",
                "Interaction",
                "Text Box",
                "Symbol",
                "Undo",
            ],
        );
        let in_drawing = |name: &str| in_drawing[name].clone();
        let in_standard = |name: &str| in_standard[name].clone();
        // A click at its centre, on its text, selects it and edits it at
        // once. (It is the first pointer event in the window, until which
        // LibreOffice reports the window's content a menu bar higher than
        // it shows: a click aimed 25 px too high only selected it.)
        let a = s
            .act(&title, &Action::Click, &opts)
            .await
            .expect("click the title");
        let got = lines(&a);
        let selection = got
            .iter()
            .find_map(|l| {
                l.strip_prefix("+ [")?
                    .split_once("] label = \"TextEdit: Paragraph 1, Row 1, Column 1\"")
            })
            .map(|(r, _)| r.to_owned())
            .unwrap_or_else(|| panic!("no text edit field in:\n{}", got.join("\n")));
        diff_has(
            &a,
            9,
            &[
                format!(
                    "+ [{selection}] label = \"TextEdit: Paragraph 1, Row 1, Column 1\" in [{pane}] root pane \"{WINDOW}\""
                ),
                format!(
                    "~ [{title}] panel \"PresentationTitle\" in [{doc}] {PRESENTATION} | selected: false -> true"
                ),
                format!(
                    "~ [{text}] paragraph in [{title}] panel \"PresentationTitle\" | value: \"Click to add Title\" -> none | active: false -> true"
                ),
                format!(
                    "~ [{}] push button \"Text Box\" (hidden) in [{drawing}] tool bar \"Drawing\" | checked: false -> true",
                    in_drawing("Text Box")
                ),
                format!(
                    "~ [{}] push button \"Line Color\" in [{drawing}] tool bar \"Drawing\" | enabled: true -> false",
                    in_drawing("Line Color")
                ),
                format!(
                    "~ [{}] push button \"Position and Size\" in [{drawing}] tool bar \"Drawing\" | enabled: false -> true (same on [{}] \"Align Objects\", [{}] \"Arrange\", [{}] \"Distribution\")",
                    in_drawing("Position and Size"),
                    in_drawing("Align Objects"),
                    in_drawing("Arrange"),
                    in_drawing("Distribution")
                ),
                format!(
                    "~ [{}] push button \"Clone\" in [{standard}] tool bar \"Standard\" | enabled: false -> true (same on [{}] \"Clear\", [{}] \"Symbol\", [{}] \"Interaction\")",
                    in_standard("Clone"),
                    in_standard("Clear"),
                    in_standard("Symbol"),
                    in_standard("Interaction")
                ),
                format!(
                    "~ [{}] push button \"Text Box\" in [{standard}] tool bar \"Standard\" | checked: false -> true",
                    in_standard("Text Box")
                ),
            ],
        );
        has_pointer_line(&a);

        let a = s
            .act(&text, &Action::Type("Quarterly review".into()), &opts)
            .await
            .expect("type the title");
        diff_is(
            &a,
            &[format!(
                "~ [{text}] paragraph in [{title}] panel \"PresentationTitle\" | value: none -> \"Quarterly review\""
            )],
        );

        // 5. Ctrl+M adds a slide, and shows it; it can be undone, deleted,
        // and gone back from.
        let presentation = ref_of(&s, "role:tool bar && name:Presentation");
        let delete = ref_of(
            &s,
            "role:tool bar && name:Presentation >> name:\"Delete Slide\"",
        );
        let first = ref_of(
            &s,
            "role:tool bar && name:Presentation >> name:\"Go to First Slide\"",
        );
        let previous = ref_of(
            &s,
            "role:tool bar && name:Presentation >> name:\"Go to Previous Slide\"",
        );
        let a = s.key(APP, "ctrl+m", &opts).await.expect("ctrl+m");
        let got = lines(&a);
        let slide1 = ref_of(
            &s,
            "role:document frame && name:\"Slides View\" >> name:\"Slide 1\"",
        );
        let slide2 = ref_of(
            &s,
            "role:document frame && name:\"Slides View\" >> name:\"Slide 2\"",
        );
        diff_has(
            &a,
            19,
            &[
                format!(
                    "~ [{}] push button \"Undo\" in [{standard}] tool bar \"Standard\" | enabled: false -> true",
                    in_standard("Undo")
                ),
                format!(
                    "~ [{delete}] push button \"Delete Slide\" (hidden) in [{presentation}] tool bar \"Presentation\" | enabled: false -> true (same on [{first}] \"Go to First Slide\", [{previous}] \"Go to Previous Slide\")"
                ),
                // The slide pane makes its panels anew: Slide 1 is the same
                // element, no longer selected.
                format!(
                    "~ [{slide1}] panel \"Slide 1\" in [{slides}] document frame \"Slides View\" | selected: true -> false"
                ),
                format!(
                    "+ [{slide2}] panel \"Slide 2\" (selected) in [{slides}] document frame \"Slides View\""
                ),
                format!("- [{title}] panel \"PresentationTitle\" in [{doc}] {PRESENTATION} (and 1 descendant)"),
                format!(
                    "~ [{doc}] {PRESENTATION} in [{pane}] root pane \"{WINDOW}\" | attr:page-name: \"Slide 1\" -> \"Slide 2\" | attr:page-number, attr:total-pages: \"1\" -> \"2\""
                ),
                format!(
                    "~ [{slide_of}] label in [{pane}] root pane \"{WINDOW}\" | value: \"Slide 1 of 1\" -> \"Slide 2 of 2\""
                ),
                format!("- [{selection}] label in [{pane}] root pane \"{WINDOW}\""),
            ],
        );
        assert!(
            got.iter()
                .any(|l| l.ends_with("] paragraph = \"Click to add Title\"")),
            "{}",
            got.join("\n")
        );

        // 6. Slide 1 in the slide pane, by the ref the diff gave: the
        // first slide again, with its title.
        let a = s
            .act(&slide1, &Action::SetSelected(true), &opts)
            .await
            .expect("select Slide 1");
        let got = lines(&a);
        assert!(
            got.iter()
                .any(|l| l.ends_with("] paragraph = \"Quarterly review\"")),
            "{}",
            got.join("\n")
        );
        diff_has(
            &a,
            11,
            &[
                format!(
                    "~ [{doc}] {PRESENTATION} in [{pane}] root pane \"{WINDOW}\" | attr:page-name: \"Slide 2\" -> \"Slide 1\" | attr:page-number: \"2\" -> \"1\""
                ),
                format!(
                    "~ [{slide1}] panel \"Slide 1\" in [{slides}] document frame \"Slides View\" | selected: false -> true"
                ),
                format!(
                    "~ [{slide_of}] label in [{pane}] root pane \"{WINDOW}\" | value: \"Slide 2 of 2\" -> \"Slide 1 of 2\""
                ),
            ],
        );

        // 7. Slide > Slide Properties...: the dialog with its buttons;
        // 8. Cancel: it goes.
        let menu = ref_of(&s, "role:menu bar >> role:menu && name:Slide");
        let a = s
            .act(&menu, &Action::Click, &opts)
            .await
            .expect("click Slide");
        // Its 29 entries show, listed under it.
        diff_has(
            &a,
            32,
            &[format!(
                "~ [{menu}] menu \"Slide\" | selected: false -> true (shows 29 descendants)"
            )],
        );
        let item = ref_of(&s, "role:menu item && name:\"Slide Properties...\"");
        let a = s
            .act(&item, &Action::Click, &opts)
            .await
            .expect("click Slide Properties...");
        let opened = a
            .diff
            .opened()
            .next()
            .unwrap_or_else(|| panic!("no dialog opened:\n{}", lines(&a).join("\n")));
        let dialog = opened.root().r#ref.to_string();
        let got = lines(&a);
        assert_eq!(
            got[0],
            format!("+ [{dialog}] dialog \"Slide Properties\" (modal) (opened)")
        );
        let buttons: Vec<String> = ["Reset", "Help", "Cancel", "OK"]
            .iter()
            .map(|name| {
                let b = opened
                    .subtree
                    .iter()
                    .find(|n| n.element.name == *name)
                    .unwrap_or_else(|| panic!("no {name} in the dialog"));
                format!("    [{}] push button \"{name}\"", b.element.r#ref)
            })
            .collect();
        let mut expected = buttons;
        expected.push(format!("  ... 49 more nodes under [{dialog}] (all hidden)"));
        expected.push(format!(
            "~ [{menu}] menu \"Slide\" | selected: true -> false (hides 29 descendants)"
        ));
        diff_has(&a, 30, &expected);
        // Its margins read as they show, left to right, then top to bottom
        // (GTK's grid lists them last first).
        let margins: Vec<&str> = got
            .iter()
            .filter_map(|l| l.split_once("] spin button \"").map(|(_, rest)| rest))
            .filter_map(|rest| rest.split_once('"').map(|(name, _)| name))
            .filter(|name| ["Left:", "Right:", "Top:", "Bottom:"].contains(name))
            .collect();
        assert_eq!(
            margins,
            ["Left:", "Right:", "Top:", "Bottom:"],
            "{}",
            got.join("\n")
        );

        let cancel = ref_of(&s, "role:dialog >> role:push button && name:Cancel");
        let a = s
            .act(&cancel, &Action::Click, &opts)
            .await
            .expect("click Cancel");
        diff_has(
            &a,
            2,
            &[format!(
                "- [{dialog}] dialog \"Slide Properties\" (closed) (and 75 descendants)"
            )],
        );
        has_pointer_line(&a);

        // 9. Ctrl+N: a second presentation, in a window of its own, whose
        // title placeholder says it is focused; waited for while
        // LibreOffice builds it.
        let second = "Untitled 2 - LibreOffice Impress";
        let frame = office::new_document(&mut s, second).await;

        // 10. The second window made the active one; 11. the first one
        // again: the focus goes back to the first presentation, though the
        // second one's title goes on saying it is focused (without the
        // rule the focus stayed there, the last in document order).
        let a = s
            .window_action(&frame, WindowAction::Activate, Settle::default())
            .await
            .expect("activate the second window");
        // (It may say it is active from the start.)
        let active = ref_where(&s, |n| {
            n.role.is_window() && n.name == second && n.states.contains(State::Active)
        });
        assert_eq!(active, frame, "{}", lines(&a).join("\n"));
        let a = s
            .window_action("e2", WindowAction::Activate, Settle::default())
            .await
            .expect("activate the first window again");
        let got = lines(&a);
        let back = format!("~ [e2] frame \"{WINDOW}\" | active: false -> true");
        assert!(got.contains(&back), "no {back:?} in:\n{}", got.join("\n"));
        let focus = a
            .diff
            .focus
            .as_ref()
            .and_then(|f| f.to.as_ref())
            .map(|h| h.r#ref.to_string());
        assert_eq!(focus.as_deref(), Some(doc.as_str()), "{}", got.join("\n"));

        // 12. The first slide's subtitle typed into, as it shows its
        // prompt: it is entered by a click, as a user enters it, and reads
        // what was typed (given the focus instead, it took the prompt for
        // text: `Click to add TextSecond quarter`).
        let subtitle = ref_of(
            &s,
            &format!("role:frame && name:\"{WINDOW}\" >> role:panel && name:PresentationSubtitle"),
        );
        let prompt = ref_of(&s, &format!("{subtitle} >> role:paragraph"));
        let a = s
            .act(&prompt, &Action::Type("Second quarter".into()), &opts)
            .await
            .expect("type the subtitle");
        let got = lines(&a);
        let typed = format!(
            "~ [{prompt}] paragraph in [{subtitle}] panel \"PresentationSubtitle\" | value: \"Click to add Text\" -> \"Second quarter\""
        );
        assert!(
            got.iter().any(|l| l.starts_with(&typed)),
            "no {typed:?} in:\n{}",
            got.join("\n")
        );
    });
}
