//! GNOME Calculator (GTK 4 with libadwaita): a product worked out with
//! the pointer, the Advanced mode chosen from the header bar's menu
//! button that shows the mode, and an angle unit chosen from a drop-down.
//! GTK 4 puts its popovers in windows of their own, and says their places
//! as if they were in the main window: clicks on their items land where
//! they show.

use uidelta_backend::Action;
use uidelta_engine::ActOptions;

use crate::common::{ref_of, session};
use crate::steps::start;

const CALCULATOR: &str = "gnome-calculator";

#[test]
fn calculator_multiplies_and_converts_an_angle() {
    let run = start(
        "gnome-calculator",
        &[],
        CALCULATOR,
        "gnome-calculator",
        &[],
        false,
    );
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        let (_, first) = s.observe(CALCULATOR).await.expect("observe the calculator");
        r.check_diff(
            "first look",
            &first,
            &[
                "# diff: +1 added",
                "+ [#] frame \"Calculator\"",
                "    [#] push button \"Undo\"",
                "    [#] push button \"Basic\"",
                "    [#] push button \"Primary menu\"",
                "    [#] push button \"Minimize\"",
                "    [#] push button \"Maximize\"",
                "    [#] push button \"Close\"",
                "    [#] filler \"HistoryView\"",
                "      [#] scroll pane",
                "    [#] scroll pane",
                "      [#] text (focused)",
                "    [#] text (read only)",
                "    [#] push button \"4\"",
                "    [#] push button \"7\"",
                "    [#] push button \"8\"",
                "    [#] push button \"9\"",
                "    [#] push button \"5\"",
                "    [#] push button \"6\"",
                "    [#] push button \"mod\"",
                "    [#] push button \"÷\"",
                "    [#] push button \"1\"",
                "    [#] push button \"2\"",
                "    [#] push button \"0\"",
                "    [#] push button \".\"",
                "    [#] push button \"3\"",
                "    [#] push button \"×\"",
                "    [#] push button \"−\"",
                "    [#] push button \"+\"",
                "    [#] push button \"π\"",
                "    [#] push button \"√\"",
                "    [#] push button \"x2\"",
                "    [#] push button \"Clear Display [Escape]\"",
                "    [#] push button \"(\"",
                "    [#] push button \")\"",
                "    [#] push button \"%\"",
                "    [#] push button \"=\"",
                "  ... 1 more node under [#] (hidden)",
            ],
        );

        let button = ref_of(&s, "role:push button && name:7");
        let a = s
            .act(&button, &Action::Click, &opts)
            .await
            .expect("click 7");
        r.check(
            "7",
            &a,
            &["# diff: ~1 modified", "~ [#] text | value: none -> \"7\""],
        );
        let button = ref_of(&s, "role:push button && name:×");
        let a = s
            .act(&button, &Action::Click, &opts)
            .await
            .expect("click ×");
        r.check(
            "times",
            &a,
            &["# diff: ~1 modified", "~ [#] text | value: \"7\" -> \"7×\""],
        );
        let button = ref_of(&s, "role:push button && name:8");
        let a = s
            .act(&button, &Action::Click, &opts)
            .await
            .expect("click 8");
        r.check(
            "8",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] text | value: \"7×\" -> \"7×8\"",
            ],
        );
        let button = ref_of(&s, "role:push button && name:=");
        let a = s
            .act(&button, &Action::Click, &opts)
            .await
            .expect("click =");
        r.check(
            "equals",
            &a,
            &[
                "# diff: +1 added, ~2 modified",
                "+ [#] list item in [#] filler \"HistoryView\"",
                "    [#] label \"7×8\"",
                "    [#] label \"=\"",
                "    [#] label \"56\"",
                "~ [#] list in [#] filler \"HistoryView\" | showing: false -> true",
                "~ [#] text | value: \"7×8\" -> \"56\"",
            ],
        );

        // The menu button is named by the mode it shows.
        let mode = ref_of(&s, "role:push button && name:Basic");
        let a = s
            .act(&mode, &Action::Click, &opts)
            .await
            .expect("open the mode menu");
        r.check(
            "mode menu",
            &a,
            &[
                "# diff: +1 added, ~1 modified · focus [#] text -> [#] radio menu item \"Basic\"",
                "+ [#] menu",
                "    [#] scroll pane",
                "      [#] radio menu item \"Basic\" (focused, checked)",
                "        [#] label \"Ctrl+Alt+B\"",
                "      [#] radio menu item \"Advanced\"",
                "        [#] label \"Ctrl+Alt+A\"",
                "      [#] radio menu item \"Financial\"",
                "        [#] label \"Ctrl+Alt+F\"",
                "      [#] radio menu item \"Programming\"",
                "        [#] label \"Ctrl+Alt+P\"",
                "      [#] radio menu item \"Keyboard\"",
                "        [#] label \"Ctrl+Alt+K\"",
                "~ [#] push button \"Basic\" | pressed: false -> true",
            ],
        );
        // The pointer rests on the mode button long enough for its
        // tooltip to show (GTK 4 puts it in the tree; it is left out).
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        let a = s.key(CALCULATOR, "Escape", &opts).await.expect("Escape");
        r.check(
            "menu closed",
            &a,
            &[
                "# diff: -1 removed, ~1 modified · focus [#] radio menu item \"Basic\" (gone) -> [#] push button \"Basic\"",
                "- [#] menu (and 11 descendants)",
                "~ [#] push button \"Basic\" | pressed: true -> false",
            ],
        );
        // Clicked again where the pointer already is, once the menu that
        // held it closed.
        // An agent reads the answer first: GTK 4 forgets the pointer is
        // over its window once the menu has been closed a moment.
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        let a = s
            .act(&mode, &Action::Click, &opts)
            .await
            .expect("open it again");
        assert!(
            a.done.method.starts_with("XTest click"),
            "the menu button clicked with the pointer: {}",
            a.done.method
        );
        r.check(
            "mode menu again",
            &a,
            &[
                "# diff: +1 added, ~1 modified · focus [#] push button \"Basic\" -> [#] radio menu item \"Basic\"",
                "+ [#] menu (came back as it was when it left, with 11 descendants)",
                "~ [#] push button \"Basic\" | pressed: false -> true",
            ],
        );
        let advanced = ref_of(&s, "role:radio menu item && name:Advanced");
        let a = s
            .act(&advanced, &Action::Click, &opts)
            .await
            .expect("choose Advanced");
        r.check(
            "advanced",
            &a,
            &[
                "# diff: +32 added, -1 removed, ~1 modified · focus [#] radio menu item \"Basic\" (gone) -> [#] text",
                "+ 24 elements appeared together (a page or pane shown as a whole):",
                "+ [#] push button \"↓n\"",
                "+ [#] push button \"↑n\"",
                "+ [#] push button \"a×b\"",
                "+ ... and 21 more push button: [#] \"×10y\", [#] \"cos\", [#] \"sin\", [#] \"tan\", [#] \"cosh\", [#] \"sinh\", [#] \"tanh\", [#] \"xy\", [#] \"x−1\", [#] \"e\", [#] \"ln\", [#] \"log\", [#] \"x!\", [#] \"|x|\", [#] \"i\", [#] \"Re\", [#] \"Im\", [#] \"conj\", [#] \"Arg\", [#] \"x\", ...",
                "+ [#] combo box = \"Angle\"",
                "+ [#] combo box = \"Degrees\"",
                "+ [#] push button \"to\"",
                "+ [#] combo box = \"Radians\"",
                "+ [#] push button \"⇆\"",
                "+ [#] label \"56 degrees\"",
                "+ [#] label \"=\"",
                "+ [#] label \"0.9774 radians\"",
                "- [#] menu (and 11 descendants)",
                "~ [#] push button | name: \"Basic\" -> \"Advanced\" | pressed: true -> false",
            ],
        );

        // A drop-down shows its choice as its value; its list opens in a
        // popover of its own.
        let unit = ref_of(&s, "role:combo box && value:Degrees");
        let a = s
            .act(&unit, &Action::Click, &opts)
            .await
            .expect("open the unit list");
        r.check(
            "unit list",
            &a,
            &[
                "# diff: +1 added, ~1 modified · focus [#] text -> [#] list item \"Degrees\"",
                "+ [#] scroll pane",
                "    [#] list",
                "      [#] list item \"Degrees\" (focused, selected)",
                "        [#] image",
                "      [#] list item \"Radians\"",
                "        [#] image",
                "      [#] list item \"Gradians\"",
                "        [#] image",
                "~ [#] combo box | expanded: false -> true",
            ],
        );
        let radians = ref_of(&s, "role:list item && name:Radians");
        let a = s
            .act(&radians, &Action::Click, &opts)
            .await
            .expect("choose Radians");
        r.check(
            "radians",
            &a,
            &[
                "# diff: -1 removed, ~3 modified · focus [#] list item \"Degrees\" (gone) -> [#] combo box",
                "- [#] scroll pane (and 7 descendants)",
                "~ [#] combo box | value: \"Degrees\" -> \"Radians\" | expanded: true -> false",
                "~ [#] label | name: \"56 degrees\" -> \"56 radians\"",
                "~ [#] label | name: \"0.9774 radians\" -> \"56 radians\"",
            ],
        );
    });
}
