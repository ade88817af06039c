//! The engine on the real mousepad (GTK 3), whose menu items pad their
//! names with spaces to align the accelerators after them
//! (`"Find      "`): names are read, shown and matched without the
//! padding, and a name that matches nothing offers the near ones.

mod common;

use std::time::Duration;

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, Error};

const MOUSEPAD: &str = "mousepad";

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
            .scopes()
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
        let find = s.scopes()[scope].view.tree().node(node);
        assert_eq!(find.name, "Find");
        let find_ref = s.scopes()[scope].refs.get(node);

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
        assert_eq!(
            candidates.first().map(String::as_str),
            Some(format!("[{find_ref}] menu item \"Find\"").as_str()),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains(&format!("; nearest names: [{find_ref}] menu item \"Find\"")),
            "{err}"
        );
    });
}
