//! The engine on mousepad, a real GTK 3 editor: its Save As dialog is a
//! file chooser with many parts that do not show (icons, eject buttons and
//! spinners of the places list, the path bar's scroll buttons).

mod common;

use uidelta_diff::SubtreeNode;
use uidelta_engine::ActOptions;
use uidelta_model::{Role, State};

use common::text;

const MOUSEPAD: &str = "mousepad";

/// Does not show: its states are known and `showing` is not among them.
fn unseen(n: &SubtreeNode) -> bool {
    !n.element.states.is_empty() && !n.element.states.contains(State::Showing)
}

#[test]
fn save_as_lists_its_buttons_and_nothing_hidden() {
    let (desktop, rt) = common::desktop_with(MOUSEPAD, &[], MOUSEPAD, MOUSEPAD);
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        s.observe(MOUSEPAD).await.expect("observe");
        let a = s
            .key(MOUSEPAD, "ctrl+s", &ActOptions::default())
            .await
            .expect("ctrl+s");
        let t = text(&a);
        let dialog = a
            .diff
            .opened()
            .find(|d| d.root().name == "Save As")
            .unwrap_or_else(|| panic!("no Save As dialog opened:\n{t}"));
        // The diff holds all of it, what does not show included.
        let hidden: Vec<&SubtreeNode> = dialog.subtree.iter().filter(|n| unseen(n)).collect();
        assert!(hidden.len() > 10, "{:?}", dialog.subtree);
        // The text lists the buttons, and none of what does not show, nor
        // anything under it.
        for name in ["Cancel", "Save"] {
            let button = dialog
                .subtree
                .iter()
                .find(|n| n.element.role == Role::PushButton && n.element.name == name)
                .unwrap_or_else(|| panic!("no {name} button in {:?}", dialog.subtree));
            let line = format!("[{}] push button \"{name}\"", button.element.r#ref);
            assert!(
                t.lines().any(|l| l.trim().starts_with(&line)),
                "no {line} in:\n{t}"
            );
        }
        let mut under: Option<usize> = None;
        for n in &dialog.subtree {
            if under.is_some_and(|d| n.depth > d) || unseen(n) {
                under = Some(under.filter(|&d| n.depth > d).unwrap_or(n.depth));
                let r = format!("[{}]", n.element.r#ref);
                assert!(!t.contains(&r), "{r} does not show, yet:\n{t}");
            } else {
                under = None;
            }
        }
        // They are counted.
        let count = format!(" more nodes under [{}] (", dialog.root().r#ref);
        assert!(
            t.lines()
                .any(|l| l.starts_with("  ... ") && l.contains(&count) && l.ends_with("hidden)")),
            "no {count:?} in:\n{t}"
        );
    });
}
