//! The engine on Chromium as a desktop application, through its AT-SPI
//! tree (`--force-renderer-accessibility`), as a desktop agent meets it.
//! Chromium marks the documents of its hidden pop-up windows `focused` at
//! all times, yet the focus an action reports must be the one in the
//! browser window. A tab's name must leave out the memory readout that
//! Chromium appends to it and updates every few seconds.

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
fn tab_in_a_chromium_page_reports_where_the_focus_went() {
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
    });
    drop(desktop);
    let _ = std::fs::remove_dir_all(&profile);
}
