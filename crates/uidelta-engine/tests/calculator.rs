//! The engine on a GTK 4 keypad that switches (fixtures/uidelta-calculator.py):
//! GTK 4.8 names its keys twice (`"7 7"`), and switching replaces every key
//! with another widget, so refs to the old keys go away and other keys take
//! their places.

mod common;

use std::time::Duration;

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, Error, Session};
use uidelta_linux::Linux;
use uidelta_model::Role;

use common::ref_of;

const CALCULATOR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/uidelta-calculator.py"
);
const APP: &str = "uidelta-calculator";

/// The names of the push buttons, in order.
fn buttons(s: &Session<Linux>) -> Vec<String> {
    s.known_apps()
        .iter()
        .flat_map(|scope| scope.view.tree().nodes())
        .filter(|n| n.role == Role::PushButton)
        .map(|n| n.name.clone())
        .collect()
}

#[test]
fn gtk4_keys_read_once_and_a_gone_key_is_succeeded_only_by_its_like() {
    let (desktop, rt) = common::desktop_with(CALCULATOR, &[], APP, "python3-gi gir1.2-gtk-4.0");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        let mut keys = Vec::new();
        for _ in 0..50 {
            s.observe(APP).await.expect("observe");
            keys = buttons(&s);
            if keys.len() == 5 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        // Named once, not `"7 7"` as GTK 4.8 has it; the labels that only
        // repeat the names are left out.
        assert_eq!(keys, ["7", "8", "9", "=", "Advanced"]);
        let labels: Vec<String> = s
            .known_apps()
            .iter()
            .flat_map(|scope| scope.view.tree().nodes())
            .filter(|n| n.role == Role::Label)
            .map(|n| n.name.clone())
            .collect();
        assert_eq!(labels, ["0"]);

        let seven = ref_of(&s, "role:push button && name:7");
        let equals = ref_of(&s, "role:push button && name:\"=\"");
        let opts = ActOptions::default();
        s.act("role:push button && name:Advanced", &Action::Click, &opts)
            .await
            .expect("switch the keypad");
        assert_eq!(buttons(&s), ["C", "sin", "cos", "=", "Basic"]);
        let new_equals = ref_of(&s, "role:push button && name:\"=\"");
        assert_ne!(new_equals, equals);

        // `C` is where `7` was: another key, never offered in its place.
        let err = s
            .act(&seven, &Action::Click, &opts)
            .await
            .map(|_| ())
            .expect_err("the old 7 is gone");
        assert!(
            matches!(
                &err,
                Error::Gone {
                    replaced_by: None,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            format!("{seven} is gone: it was [{seven}] push button \"7\"")
        );
        // The new `=` is the old one's like, and is offered.
        let err = s
            .act(&equals, &Action::Click, &opts)
            .await
            .map(|_| ())
            .expect_err("the old = is gone");
        assert_eq!(
            err.to_string(),
            format!(
                "{equals} is gone: it was [{equals}] push button \"=\"; [{new_equals}] push \
                 button \"=\" took its place"
            )
        );
        // Nothing was clicked on the way: the display still says 0.
        ref_of(&s, "role:label && name:0");
    });
}
