//! xfce4-terminal (GTK 3 and VTE), a terminal: commands typed and run in
//! a shell, each answer the screen's new rows (what the command printed,
//! whole, the rows that stayed cut), a file made by one, a second tab
//! opened, used and closed by its shell exiting. Every tab runs bash
//! without start-up files and with a prompt of `$ ` (the terminal's own
//! setting), so that the screens read the same on every machine.

use uidelta_backend::Action;
use uidelta_engine::ActOptions;

use crate::common::{ref_of, session};
use crate::steps::start;

const TERMINAL: &str = "xfce4-terminal";

#[test]
fn terminal_runs_commands_and_a_second_tab() {
    let run = start(
        "xfce4-terminal",
        &["--disable-server", "--hide-menubar", "--hide-toolbar"],
        TERMINAL,
        "xfce4-terminal",
        &[
            ("Documents/", ""),
            ("notes.txt", "notes\n"),
            // Every tab runs the same shell (the command is a program's
            // path, not a command line; tabs open in this directory).
            (
                "shell",
                "#!/bin/sh\nPS1='$ ' exec bash --norc --noprofile\n",
            ),
            (
                "~/config/xfce4/terminal/terminalrc",
                "[Configuration]\nRunCustomCommand=TRUE\nCustomCommand=./shell\n",
            ),
        ],
        false,
    );
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        // Once the shell's prompt is on the screen.
        let mut shown = None;
        for _ in 0..100 {
            s.observe(TERMINAL).await.expect("observe the terminal");
            let found = s.find(&"role:terminal".parse().expect("selector"));
            shown = found
                .first()
                .and_then(|&(app, node)| s.known_apps()[app].view.tree().node(node).value.clone());
            if shown.as_deref() == Some("$") {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert_eq!(shown.as_deref(), Some("$"), "the shell's prompt");
        let screen = ref_of(&s, "role:terminal");

        // A command typed: the screen's one row.
        let a = s
            .act(&screen, &Action::Type("ls".into()), &opts)
            .await
            .expect("type ls");
        r.check(
            "type ls",
            &a,
            &[
                // Typing gives a window no window manager activated the
                // keyboard.
                "bare: # diff: ~2 modified",
                "bare: ~ [#] frame \"Terminal -\" | active: false -> true",
                "wm: # diff: ~1 modified",
                "~ [#] terminal \"Terminal\" | value: \"$\" -> \"$ ls\"",
            ],
        );

        // Run: what it printed, and the next prompt.
        let a = s.key(TERMINAL, "Return", &opts).await.expect("Return");
        r.check(
            "run ls",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] terminal \"Terminal\" | value: \"$ ls\" -> \"$ ls\\nDocuments  notes.txt  shell\\n$\"",
            ],
        );

        // A command whose output scrolls the screen: its rows, whole.
        let a = s
            .act(
                &screen,
                &Action::Type("seq 1 30 | sed 's/^/row /' > rows.txt; cat rows.txt\n".into()),
                &opts,
            )
            .await
            .expect("run seq");
        let rows: Vec<String> = (8..=30).map(|i| format!("row {i}")).collect();
        let scrolled = format!(
            "~ [#] terminal \"Terminal\" | value: \"$ ls\\nDocuments  notes.txt  shell\\n$\" -> \"{}\\n$\"",
            rows.join("\\n")
        );
        r.check("run seq", &a, &["# diff: ~1 modified", &scrolled]);
        let made = std::fs::read_to_string(run.dir.join("rows.txt")).expect("rows.txt made");
        assert_eq!(made.lines().count(), 30, "{made}");

        // A second tab: its page and its own screen.
        let a = s
            .key(TERMINAL, "ctrl+shift+t", &opts)
            .await
            .expect("new tab");
        r.check(
            "new tab",
            &a,
            &[
                "# diff: +1 added, ~2 modified · focus [#] terminal \"Terminal\" -> [#] terminal \"Terminal\"",
                // (Its Tabs menu, in the menu bar it hides, makes its items
                // anew, one more per tab: left out with the menu bar.)
                "+ [#] page tab \"Untitled\" (selected)",
                "    [#] scroll pane",
                "      [#] terminal \"Terminal\" = \"$\" (focused)",
                "~ [#] page tab list | focusable: false -> true",
                "~ [#] page tab | name: \"\" -> \"Untitled\" | multi line: false -> true | selected: true -> false (hides 2 descendants)",
            ],
        );

        let second = ref_of(&s, "role:terminal && state:focused");
        let a = s
            .act(&second, &Action::Type("pwd\n".into()), &opts)
            .await
            .expect("pwd");
        r.check(
            "pwd",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] terminal \"Terminal\" in [#] page tab \"Untitled\" | value: \"$\" -> \"$ pwd\\n$DIR\\n$\"",
            ],
        );

        // Its shell exits: the tab goes, the first one's screen is back.
        let a = s
            .act(&second, &Action::Type("exit\n".into()), &opts)
            .await
            .expect("exit");
        let back = format!(
            "      [#] terminal \"Terminal\" = \"{}\\n$\" (focused)",
            rows.join("\\n")
        );
        r.check(
            "exit",
            &a,
            &[
                "# diff: -1 removed, ~2 modified · focus [#] terminal \"Terminal\" (gone) -> [#] terminal \"Terminal\"",
                "- [#] page tab \"Untitled\" (and 2 descendants)",
                "~ [#] page tab list | focusable: true -> false",
                "~ [#] page tab | name: \"Untitled\" -> \"\" | multi line: true -> false | selected: false -> true (shows 2 descendants)",
                "    [#] scroll pane",
                &back,
            ],
        );
    });
}
