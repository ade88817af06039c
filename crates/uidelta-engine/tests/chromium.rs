//! The engine on Chromium as a desktop application, through its AT-SPI
//! tree (`--force-renderer-accessibility`), as a desktop agent meets it.
//! Chromium marks the documents of its hidden pop-up windows `focused` at
//! all times, yet the focus an action reports must be the one in the
//! browser window. A tab's name must leave out the memory readout that
//! Chromium appends to it and updates every few seconds. Its fields take
//! no text accessibly, yet setting a value must replace their text.

mod common;

use std::time::Duration;

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, Session};
use uidelta_linux::Linux;
use uidelta_testkit::web::fixtures_dir;

use common::{ref_of, text};

const CHROMIUM: &str = "chromium";

/// Observes Chromium until the page's form is in its tree.
async fn observe_form(s: &mut Session<Linux>) {
    for _ in 0..100 {
        s.observe("Chromium").await.expect("observe");
        let ready = ["Name", "Email"].iter().all(|n| {
            s.find(&format!("role:entry && name:{n}").parse().expect("selector"))
                .len()
                == 1
        });
        if ready {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("the form's entries never showed in Chromium's tree");
}

#[test]
fn a_chromium_page_reports_where_the_focus_went_and_takes_values() {
    let page = format!("file://{}", fixtures_dir().join("form.html").display());
    let profile = std::env::temp_dir().join(format!("uidelta-chromium-{}", std::process::id()));
    let user_data = format!("--user-data-dir={}", profile.display());
    let args = [
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        user_data.as_str(),
        "--force-renderer-accessibility",
        page.as_str(),
    ];
    let (desktop, rt) = common::desktop_with(CHROMIUM, &args, "Chromium", "chromium");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        observe_form(&mut s).await;
        let name = ref_of(&s, "role:entry && name:Name");
        let email = ref_of(&s, "role:entry && name:Email");
        // The tab is named after its page alone: the memory readout
        // Chromium appends (` - Memory usage - 22.6 MB`) is noise.
        ref_of(&s, "role:page tab && name:\"Sign up\"");
        let opts = ActOptions::default();

        let a = s
            .act(&name, &Action::Click, &opts)
            .await
            .expect("click Name");
        assert_eq!(
            a.diff
                .focus
                .as_ref()
                .and_then(|f| f.to.as_ref())
                .map(|h| h.r#ref.to_string()),
            Some(name.clone()),
            "{}",
            text(&a)
        );

        let a = s
            .act(&name, &Action::Key("Tab".into()), &opts)
            .await
            .expect("press Tab");
        let t = text(&a);
        assert!(
            t.lines()
                .next()
                .is_some_and(|l| l.contains(&format!("focus {name} -> {email}"))),
            "{t}"
        );

        let a = s
            .act(&email, &Action::Type("ada@example.com".into()), &opts)
            .await
            .expect("type");
        let t = text(&a);
        assert!(
            t.lines()
                .any(|l| l.starts_with(&format!("~ [{email}] entry \"Email\""))
                    && l.ends_with("| value: none -> \"ada@example.com\"")),
            "{t}"
        );

        // Chromium's fields have no EditableText: a new value replaces the
        // text with keys, and an empty one clears it.
        let value = |v: &str| Action::SetValue(v.into());
        let a = s.act(&name, &value("Ada"), &opts).await.expect("set Name");
        assert_eq!(a.done.method, "XTest ctrl+a, then keys");
        let line = format!("~ [{name}] entry \"Name\" in [");
        let changed = |a: &uidelta_engine::Acted, to: &str| {
            let t = text(a);
            assert!(
                t.lines().any(|l| l.starts_with(&line) && l.ends_with(to)),
                "{t}"
            );
        };
        changed(&a, "| value: none -> \"Ada\"");
        let a = s
            .act(&name, &value("Grace Hopper"), &opts)
            .await
            .expect("set Name");
        changed(&a, "| value: \"Ada\" -> \"Grace Hopper\"");
        let a = s.act(&name, &value(""), &opts).await.expect("clear Name");
        changed(&a, "| value: \"Grace Hopper\" -> none");
    });
    drop(desktop);
    let _ = std::fs::remove_dir_all(&profile);
}
