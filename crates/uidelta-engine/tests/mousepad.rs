//! The engine on the real mousepad (GTK 3). Its menu items pad their
//! names with spaces to align the accelerators after them (`"Find      "`):
//! names are read, shown and matched without the padding, and a name that
//! matches nothing offers the near ones. Its Save As dialog is a file
//! chooser with many parts that do not show (icons, eject buttons and
//! spinners of the places list, the path bar's scroll buttons).

mod common;

use std::time::Duration;

use uidelta_backend::Action;
use uidelta_diff::SubtreeNode;
use uidelta_engine::{ActOptions, Error};
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

#[test]
fn padded_menu_items_read_and_match_without_their_padding() {
    let (desktop, rt) = common::desktop_with(MOUSEPAD, &[], MOUSEPAD, "mousepad");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        let mut found = 0;
        for _ in 0..50 {
            s.observe(MOUSEPAD).await.expect("observe");
            found = s.find(&"role:menu item".parse().expect("selector")).len();
            if found > 20 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert!(found > 20, "mousepad shows {found} menu items");
        // No name keeps white space at either end or in runs.
        let padded: Vec<String> = s
            .known_apps()
            .iter()
            .flat_map(|scope| scope.view.tree().nodes())
            .filter(|n| n.name != n.name.split_whitespace().collect::<Vec<_>>().join(" "))
            .map(|n| format!("{} {:?}", n.role, n.name))
            .collect();
        assert!(padded.is_empty(), "padded names: {padded:?}");
        let (scope, node) = {
            let hits = s.find(&"role:menu item && name:Find".parse().expect("selector"));
            assert_eq!(hits.len(), 1, "`name:Find` matches {hits:?}");
            hits[0]
        };
        let find = s.known_apps()[scope].view.tree().node(node);
        assert_eq!(find.name, "Find");
        let find_ref = s.known_apps()[scope].refs.get(node);

        // A typo matches nothing and offers the item, with its ref.
        let err = s
            .act(
                "role:menu item && name:Fnd",
                &Action::Click,
                &ActOptions::default(),
            )
            .await
            .map(|_| ())
            .expect_err("`name:Fnd` matches nothing");
        let Error::NoMatch { candidates, .. } = &err else {
            panic!("not a no-match error: {err}");
        };
        // Said with where it is: in its closed menu.
        let first = candidates.first().map(String::as_str).unwrap_or_default();
        let offered = format!("[{find_ref}] menu item \"Find\" (hidden) in [e");
        assert!(
            first.starts_with(&offered) && first.ends_with("] menu \"Search\""),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains(&format!("; nearest names: {first}")),
            "{err}"
        );
    });
}

/// GTK 3's spinner says it is showing whether or not it spins, and one
/// that does not spin draws nothing: the search bar's never spins, so it
/// is neither listed when the bar opens nor said to hide later.
#[test]
fn the_search_bar_opens_without_its_still_spinner() {
    let (desktop, rt) = common::desktop_with(MOUSEPAD, &[], MOUSEPAD, MOUSEPAD);
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        s.observe(MOUSEPAD).await.expect("observe");
        let a = s
            .key(MOUSEPAD, "ctrl+f", &ActOptions::default())
            .await
            .expect("ctrl+f");
        let r = |selector: &str| common::ref_of(&s, selector);
        let (bar, entry) = (
            r("role:tool bar && state:showing"),
            r("role:text && state:focused"),
        );
        let expected = [
            format!("# diff: +1 added, ~1 modified · focus none -> [{entry}] text · settled in"),
            format!("+ [{bar}] tool bar"),
            format!(
                "    [{}] push button \"Close\"",
                r("role:push button && name:Close")
            ),
            format!("    [{}] combo box", r("role:combo box && state:showing")),
            format!("      [{entry}] text (focused)"),
            format!(
                "    [{}] push button \"Up\"",
                r("role:push button && name:Up")
            ),
            format!(
                "    [{}] push button \"Down\"",
                r("role:push button && name:Down")
            ),
            format!(
                "    [{}] check box \"Match case\"",
                r("name:\"Match case\"")
            ),
            format!(
                "    [{}] check box \"Regular expression\"",
                r("name:\"Regular expression\"")
            ),
            format!("  ... 2 more nodes under [{bar}] (all hidden)"),
            format!(
                "~ [{}] frame \"Untitled 1 - Mousepad\" | active: false -> true",
                r("role:frame")
            ),
        ];
        let t = text(&a);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), expected.len(), "{t}");
        assert!(lines[0].starts_with(&expected[0]), "{t}");
        assert_eq!(lines[1..], expected[1..], "{t}");
        // The spinner is there, and does not show.
        let spinner = {
            let hits = s.find(&"role:animation".parse().expect("selector"));
            assert_eq!(hits.len(), 1, "one spinner: {hits:?}");
            let (scope, node) = hits[0];
            s.known_apps()[scope].view.tree().node(node).clone()
        };
        assert_eq!(spinner.name, "Spinner");
        assert!(!spinner.states.contains(State::Showing), "{spinner:?}");

        // A search ends with the spinner hidden: no news.
        let a = s
            .act(&entry, &Action::Type("abc".into()), &ActOptions::default())
            .await
            .expect("type into the search entry");
        let t = text(&a);
        assert!(!t.contains("Spinner") && !t.contains("animation"), "{t}");
        assert!(
            t.lines()
                .any(|l| l == format!("~ [{entry}] text | value: none -> \"abc\"")),
            "{t}"
        );
    });
}
