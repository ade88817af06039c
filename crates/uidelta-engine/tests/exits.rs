//! Actions after which the application exits (zenity's dialogs end when
//! answered, an editor left without saving), and waits during which it
//! exits: the answer is that it exited, as soon as it left the bus, not an
//! error after the settle cap.

mod common;

use std::time::Duration;

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, ActionOutcome, Condition, Quiet, Settle};
use uidelta_testkit::{App, Desktop};

use common::{ref_of, session};

/// A settle cap far beyond anything an exit takes: reaching it means the
/// exit went unnoticed.
const CAP: Duration = Duration::from_secs(60);

/// A private desktop showing zenity started with `args`, and a runtime.
fn zenity(args: &[&str]) -> (Desktop, App, tokio::runtime::Runtime) {
    common::running("zenity", args, "zenity", "zenity")
}

/// Settling that would wait [`CAP`] for a change that never comes.
fn patient() -> ActOptions {
    ActOptions {
        settle: Settle::Auto(Quiet {
            cap: CAP,
            ..Quiet::default()
        }),
        ..ActOptions::default()
    }
}

/// Asserts that `acted` says the application exited, and that settling
/// noticed it at once rather than at the cap.
fn exited_at_once(acted: &ActionOutcome) {
    assert!(acted.exited, "{acted:?}");
    assert!(
        !acted.settled.capped,
        "noticed at once: {:?}",
        acted.settled
    );
}

/// Exits `app` once a moment has passed, from another thread, as another
/// program (or the person at the desktop) would.
fn exit_soon(mut app: App) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(1));
        app.kill();
    })
}

#[test]
fn answering_a_question_is_an_exit_not_an_error() {
    let (desktop, _zenity, rt) = zenity(&["--question", "--text", "Proceed?"]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        s.observe("zenity").await.expect("observe zenity");
        let yes = ref_of(&s, "role:push button && name:Yes");
        let acted = s
            .act(&yes, &Action::Click, &patient())
            .await
            .expect("clicking Yes answers");
        exited_at_once(&acted);
        assert!(!acted.diff.has_changes(), "{acted:?}");
        assert_eq!(acted.target.name, "Yes");
        let t = acted.text(&uidelta_render::DiffOptions::default());
        assert!(
            t.starts_with("# zenity (pid ") && t.ends_with(") exited\n"),
            "{t}"
        );
        // The session forgot it: its refs are gone, and say why.
        assert!(s.known_apps().is_empty());
        let again = s.act(&yes, &Action::Click, &patient()).await;
        let e = again.expect_err("the button went with the application");
        assert!(e.to_string().contains("which exited"), "{e}");
        // A selector naming it says it exited, not that nothing matched
        // in no application.
        let by_name = s
            .act("app:zenity && name:Yes", &Action::Click, &patient())
            .await;
        let e = by_name.expect_err("zenity exited");
        let said = e.to_string();
        assert!(
            said.starts_with("no element matches `app:zenity && name:Yes`; zenity (pid ")
                && said.ends_with(") exited, and no other application is captured"),
            "{said}"
        );
    });
}

#[test]
fn invoking_the_action_of_ok_is_an_exit() {
    let (desktop, _zenity, rt) = zenity(&["--info", "--text", "Saved."]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        s.observe("zenity").await.expect("observe zenity");
        let ok = ref_of(&s, "role:push button && name:OK");
        // Through the application's own connection, which the exit breaks.
        let acted = s
            .act(&ok, &Action::Invoke("click".into()), &patient())
            .await
            .expect("invoking OK answers");
        exited_at_once(&acted);
        assert_eq!(acted.done.method, "Action.click");
    });
}

#[test]
fn choosing_from_a_list_with_return_is_an_exit() {
    let (desktop, _zenity, rt) =
        zenity(&["--list", "--column", "Fruit", "Apple", "Banana", "Cherry"]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        s.observe("zenity").await.expect("observe zenity");
        let banana = ref_of(&s, "role:table cell && name:Banana");
        let picked = s
            .act(&banana, &Action::Click, &ActOptions::default())
            .await
            .expect("pick Banana");
        assert!(!picked.exited, "{picked:?}");
        let acted = s
            .key("zenity", "Return", &patient())
            .await
            .expect("Return answers");
        exited_at_once(&acted);
    });
}

#[test]
fn waiting_for_a_dialog_to_disappear_answers_when_its_application_exits() {
    let (desktop, zenity, rt) = zenity(&["--info", "--text", "Done."]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        s.observe("zenity").await.expect("observe zenity");
        let killer = exit_soon(zenity);
        let waited = s
            .wait_for_element(
                "zenity",
                "role:push button && name:OK",
                Condition::Disappears,
                CAP,
            )
            .await
            .expect("the button disappears with zenity");
        assert!(killer.join().is_ok());
        assert!(waited.exited, "{waited:?}");
        assert!(waited.found.is_none(), "{waited:?}");
    });
}

#[test]
fn waiting_for_a_change_answers_when_the_application_exits() {
    let (desktop, zenity, rt) = zenity(&["--info", "--text", "Done."]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        s.observe("zenity").await.expect("observe zenity");
        let killer = exit_soon(zenity);
        let acted = s
            .wait_for_change("zenity", CAP)
            .await
            .expect("the wait ends with zenity");
        assert!(killer.join().is_ok());
        exited_at_once(&acted);
    });
}

#[test]
fn leaving_an_editor_without_saving_is_an_exit() {
    let (desktop, _mousepad, rt) =
        common::running("mousepad", &["--disable-server"], "mousepad", "mousepad");
    rt.block_on(async {
        let mut s = session(&desktop).await;
        s.observe("mousepad").await.expect("observe mousepad");
        let text = ref_of(&s, "role:text");
        let typed = s
            .act(
                &text,
                &Action::Type("unsaved".into()),
                &ActOptions::default(),
            )
            .await
            .expect("type into the document");
        assert!(!typed.exited, "{typed:?}");
        let asked = s
            .key("mousepad", "ctrl+q", &ActOptions::default())
            .await
            .expect("quitting asks first");
        assert!(!asked.exited, "{asked:?}");
        let dont = ref_of(&s, "role:push button && name~:don't save");
        let acted = s
            .act(&dont, &Action::Click, &patient())
            .await
            .expect("Don't Save answers");
        exited_at_once(&acted);
    });
}
