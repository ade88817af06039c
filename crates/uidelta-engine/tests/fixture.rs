//! The engine on the fixture application (fixtures/uidelta-fixture.py):
//! what real applications cannot show on demand — a dialog that opens late
//! and fills in over time, a toast, a button that does nothing.

mod common;

use std::sync::Arc;
use std::time::Duration;

use uidelta_backend::Action;
use uidelta_diff::{Change, Diff};
use uidelta_engine::{ActOptions, DragEnd, Session, Settle, WindowAction};
use uidelta_linux::Linux;
use uidelta_model::Role;
use uidelta_testkit::{require_programs, Desktop};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/uidelta-fixture.py"
);

fn start() -> (Desktop, tokio::runtime::Runtime) {
    start_with(&[])
}

/// [`start`], with extra arguments for the fixture.
fn start_with(args: &[&str]) -> (Desktop, tokio::runtime::Runtime) {
    require_programs(&[("/usr/bin/python3", "python3-gi gir1.2-gtk-3.0")])
        .expect("programs for the fixture tests");
    common::desktop_with(
        FIXTURE,
        args,
        "uidelta-fixture",
        "python3-gi gir1.2-gtk-3.0",
    )
}

async fn session(desktop: &Desktop) -> Session<Linux> {
    let mut s = common::session(desktop).await;
    s.observe("uidelta-fixture").await.expect("observe");
    s
}

fn text(d: &Diff) -> String {
    uidelta_render::diff_text(d, &uidelta_render::DiffOptions::default())
}

#[test]
fn the_late_dialog_is_complete_in_the_diff_twenty_times_out_of_twenty() {
    let (desktop, rt) = start();
    rt.block_on(async {
        let mut s = session(&desktop).await;
        for run in 0..20 {
            let acted = s
                .act(
                    "role:push button && name:Open details",
                    &Action::Click,
                    &ActOptions::default(),
                )
                .await
                .expect("click Open details");
            let added: Vec<&uidelta_diff::Added> = acted
                .diff
                .changes
                .iter()
                .filter_map(|c| match c {
                    Change::Added(a) => Some(a),
                    _ => None,
                })
                .collect();
            let dialog = added
                .iter()
                .find(|a| a.root().name == "Details")
                .unwrap_or_else(|| {
                    panic!("run {run}: no Details dialog in\n{}", text(&acted.diff))
                });
            let names: Vec<&str> = dialog
                .subtree
                .iter()
                .map(|n| n.element.name.as_str())
                .collect();
            for wanted in [
                "Field 1", "Field 2", "Field 3", "Field 4", "Field 5", "Close",
            ] {
                assert!(
                    names.contains(&wanted),
                    "run {run}: {wanted} missing from\n{}",
                    text(&acted.diff)
                );
            }
            assert!(!acted.settled.capped, "run {run}: the cap ended the wait");
            let closed = s
                .act(
                    "role:push button && name:Close",
                    &Action::Click,
                    &ActOptions::default(),
                )
                .await
                .expect("close the dialog");
            assert!(
                closed
                    .diff
                    .changes
                    .iter()
                    .any(|c| matches!(c, Change::Removed(r) if r.root().name == "Details")),
                "run {run}: the dialog did not close:\n{}",
                text(&closed.diff)
            );
        }
    });
}

#[test]
fn the_do_nothing_button_changes_nothing() {
    let (desktop, rt) = start();
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let acted = s
            .act("name:Do nothing", &Action::Click, &ActOptions::default())
            .await
            .expect("click");
        assert!(!acted.diff.has_changes(), "{}", text(&acted.diff));
        assert_eq!(text(&acted.diff), "No UI changes detected\n");
        // Its process said that nothing was pending: the wait for a change
        // ended then, not at the cap.
        assert!(!acted.settled.capped, "{:?}", acted.settled);
        // It was enabled and showing: nothing to say about why.
        assert_eq!(acted.note, None);
        // The pointer clicked it: it took the focus, which the diff does
        // not report back to the agent that clicked.
        assert!(
            acted.done.method.starts_with("XTest click at "),
            "{}",
            acted.done.method
        );
        let view = &s.known_apps()[0].view;
        let focused = view.focus().map(|f| view.tree().node(f).name.clone());
        assert_eq!(focused.as_deref(), Some("Do nothing"));
    });
}

/// Typing into a field without the keyboard focus gives it the focus, as
/// the click into it that a person makes first would, and leaves the caret
/// after the text typed: the key that follows goes to that field, not to
/// what had the focus before.
#[test]
fn a_field_typed_into_takes_the_keyboard_focus_and_the_next_key_goes_to_it() {
    let (desktop, rt) = start();
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let opts = ActOptions::default();
        let notes = "role:text && name:Notes";
        let focused = |s: &Session<Linux>| {
            let view = &s.known_apps()[0].view;
            view.focus().map(|f| view.tree().node(f).name.clone())
        };
        assert_ne!(focused(&s).as_deref(), Some("Notes"));
        let typed = s
            .act(notes, &Action::Type("hello".into()), &opts)
            .await
            .expect("type into Notes");
        assert_eq!(
            typed.done.method,
            "Component.GrabFocus, then EditableText.InsertText"
        );
        let t = text(&typed.diff);
        assert!(t.contains("] text \"Notes\" | value: "), "{t}");
        assert!(t.contains(" -> \"hello\"\n"), "{t}");
        // The focus it took is the typing's own: not reported.
        assert!(!t.contains("focus "), "{t}");
        assert_eq!(focused(&s).as_deref(), Some("Notes"));

        let key = s
            .key("uidelta-fixture", "BackSpace", &opts)
            .await
            .expect("BackSpace");
        let t = text(&key.diff);
        assert!(
            t.contains("] text \"Notes\" | value: \"hello\" -> \"hell\"\n"),
            "{t}"
        );

        // Now focused: at its caret, with no focus to take.
        let more = s
            .act(notes, &Action::Type("o!".into()), &opts)
            .await
            .expect("type into Notes again");
        assert_eq!(more.done.method, "EditableText.InsertText");
        let t = text(&more.diff);
        assert!(
            t.contains("] text \"Notes\" | value: \"hell\" -> \"hello!\"\n"),
            "{t}"
        );
    });
}

#[test]
fn keys_typed_into_a_field_given_the_focus_go_at_its_end_not_over_its_text() {
    // A line break is typed as keys. Given the focus, a GTK entry selects
    // all of its text, which keys would replace: they go at its end, as
    // text inserted through accessibility does; into a field that has the
    // focus, at its caret.
    let (desktop, rt) = start();
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let opts = ActOptions::default();
        let notes = "role:text && name:Notes";
        s.act(notes, &Action::Type("hello".into()), &opts)
            .await
            .expect("type into Notes");
        s.act("name:Remember me", &Action::Focus, &opts)
            .await
            .expect("focus the check box");
        let typed = s
            .act(notes, &Action::Type(" world\n".into()), &opts)
            .await
            .expect("type into Notes with keys");
        assert_eq!(typed.done.method, "caret at the end, XTest keys");
        let t = text(&typed.diff);
        assert!(
            t.contains("] text \"Notes\" | value: \"hello\" -> \"hello world\"\n"),
            "{t}"
        );
        // Now focused: at its caret, which a key moved to the start.
        s.key("uidelta-fixture", "Home", &opts).await.expect("Home");
        let typed = s
            .act(notes, &Action::Type("well, \n".into()), &opts)
            .await
            .expect("type into Notes at its caret");
        assert_eq!(typed.done.method, "XTest keys");
        let t = text(&typed.diff);
        assert!(
            t.contains("| value: \"hello world\" -> \"well, hello world\"\n"),
            "{t}"
        );
        // A key pressed on it, given the focus again: at its end too.
        s.act("name:Remember me", &Action::Focus, &opts)
            .await
            .expect("focus the check box");
        let pressed = s
            .act(notes, &Action::Key("BackSpace".into()), &opts)
            .await
            .expect("BackSpace in Notes");
        assert_eq!(pressed.done.method, "caret at the end, XTest BackSpace");
        let t = text(&pressed.diff);
        assert!(
            t.contains("| value: \"well, hello world\" -> \"well, hello worl\"\n"),
            "{t}"
        );
    });
}

#[test]
fn the_toast_is_transient() {
    let (desktop, rt) = start();
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let acted = s
            .act("name:Show toast", &Action::Click, &ActOptions::default())
            .await
            .expect("click");
        let names: Vec<&str> = acted
            .diff
            .transient
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(names, ["Saved"], "{}", text(&acted.diff));
        assert!(
            !acted
                .diff
                .changes
                .iter()
                .any(|c| matches!(c, Change::Added(a) if a.root().name == "Saved")),
            "{}",
            text(&acted.diff)
        );
    });
}

#[test]
fn refs_stay_put_over_twenty_actions_and_a_renamed_label_keeps_its_ref() {
    let (desktop, rt) = start();
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let refs_of = |s: &Session<Linux>| -> Vec<(String, String)> {
            let l = &s.known_apps()[0];
            l.view
                .tree()
                .ids()
                .filter(|&n| !l.view.tree().node(n).name.starts_with("Count"))
                .map(|n| {
                    (
                        l.refs.get(n).to_string(),
                        l.view.tree().node(n).name.clone(),
                    )
                })
                .collect()
        };
        let first = refs_of(&s);
        let label_ref = {
            let l = &s.known_apps()[0];
            let n = l
                .view
                .tree()
                .ids()
                .find(|&n| l.view.tree().node(n).name == "Count: 0")
                .expect("the count label");
            l.refs.get(n)
        };
        for i in 1..=20 {
            let acted = s
                .act(
                    "role:push button && name:Count",
                    &Action::Click,
                    &ActOptions::default(),
                )
                .await
                .expect("click Count");
            let m = acted
                .diff
                .changes
                .iter()
                .find_map(|c| match c {
                    Change::Modified(m) if m.element.role == Role::Label => Some(m),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("click {i}: no label change in\n{}", text(&acted.diff)));
            assert_eq!(m.element.r#ref, label_ref, "click {i}");
            assert_eq!(m.element.name, format!("Count: {i}"));
            assert_eq!(
                refs_of(&s),
                first,
                "click {i}: refs of unchanged elements moved"
            );
        }
    });
}

#[test]
fn waits_refs_that_went_away_and_ambiguous_selectors() {
    use uidelta_engine::{Condition, Error, Settle};
    let (desktop, rt) = start();
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let no_wait = ActOptions {
            settle: Settle::None,
            ..ActOptions::default()
        };
        // wait_for_element: the slow counter changes 700 ms after the click.
        s.act("name:Slow count", &Action::Click, &no_wait)
            .await
            .expect("click");
        let waited = s
            .wait_for_element(
                "uidelta-fixture",
                "role:label && name:Count: 1",
                Condition::Appears,
                Duration::from_secs(5),
            )
            .await
            .expect("the label changes");
        assert_eq!(waited.found.map(|h| h.name), Some("Count: 1".to_owned()));
        // What changed while waiting comes with the answer.
        let seen: String = waited.changes.iter().map(|c| text(&c.diff)).collect();
        assert!(
            seen.contains("| name: \"Count: 0\" -> \"Count: 1\""),
            "{seen}"
        );

        // wait_for_change: one call instead of a polling loop.
        s.act("name:Slow count", &Action::Click, &no_wait)
            .await
            .expect("click");
        let changed = s
            .wait_for_change("uidelta-fixture", Duration::from_secs(5))
            .await
            .expect("a change");
        assert!(
            text(&changed.diff).contains("| name: \"Count: 1\" -> \"Count: 2\""),
            "{}",
            text(&changed.diff)
        );

        // Waiting for what never comes is a clear timeout.
        let err = s
            .wait_for_element(
                "uidelta-fixture",
                "name:Never there",
                Condition::Appears,
                Duration::from_millis(600),
            )
            .await
            .expect_err("nothing appears");
        assert!(
            err.to_string().contains("`name:Never there` to appear"),
            "{err}"
        );

        // A ref whose element is gone says so.
        s.act("name:Open details", &Action::Click, &ActOptions::default())
            .await
            .expect("open");
        let close_ref = {
            let hits = s.find(&"role:dialog >> name:Close".parse().expect("selector"));
            let (scope, node) = hits[0];
            s.known_apps()[scope].refs.get(node).to_string()
        };
        s.act(&close_ref, &Action::Click, &ActOptions::default())
            .await
            .expect("close");
        let err = s
            .act(&close_ref, &Action::Click, &ActOptions::default())
            .await
            .expect_err("the Close button is gone");
        assert!(matches!(err, Error::Gone { .. }), "{err}");
        assert!(
            err.to_string().starts_with(&format!(
                "{close_ref} is gone: it was [{close_ref}] push button \"Close\""
            )),
            "{err}"
        );

        // An ambiguous selector lists the candidates with their refs.
        let err = s
            .act("role:push button", &Action::Click, &ActOptions::default())
            .await
            .expect_err("many buttons");
        let message = err.to_string();
        assert!(
            message.starts_with("`role:push button` matches"),
            "{message}"
        );
        assert!(
            message.contains("push button \"Open details\""),
            "{message}"
        );
        // A malformed selector points at the position.
        let err = s
            .act(
                "role:push button &&",
                &Action::Click,
                &ActOptions::default(),
            )
            .await
            .expect_err("dangling operator");
        assert!(err.to_string().contains("at column"), "{err}");
    });
}

#[test]
fn changes_that_came_late_are_reported_with_the_next_action() {
    use uidelta_engine::Settle;
    let (desktop, rt) = start();
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let no_wait = ActOptions {
            settle: Settle::None,
            ..ActOptions::default()
        };
        // The slow counter changes 700 ms later, after this call returned.
        s.act("name:Slow count", &Action::Click, &no_wait)
            .await
            .expect("click");
        tokio::time::sleep(Duration::from_millis(1200)).await;
        let acted = s
            .act("name:Remember me", &Action::Click, &ActOptions::default())
            .await
            .expect("click");
        assert_eq!(acted.earlier.len(), 1, "{:?}", acted.earlier);
        let earlier = text(&acted.earlier[0].diff);
        assert!(
            earlier.contains("| name: \"Count: 0\" -> \"Count: 1\""),
            "{earlier}"
        );
        assert!(
            text(&acted.diff).contains("check box \"Remember me\" | checked: false -> true"),
            "{}",
            text(&acted.diff)
        );
    });
}

#[test]
fn focus_taken_by_an_application_the_action_started_is_an_app_switch() {
    const OTHER: &str = "uidelta-fixture-other";
    let (desktop, rt) = start_with(&["--opens", OTHER]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        // With no window manager nothing has the input focus yet: give it to
        // the fixture's window, as a person clicking into it would.
        let (idx, _) = s
            .observe("uidelta-fixture")
            .await
            .expect("observe the fixture");
        let activated = s
            .window_action(
                "app:uidelta-fixture >> role:frame && name:\"uidelta fixture\"",
                WindowAction::Activate,
                Settle::None,
            )
            .await
            .expect("activate the fixture's window");
        assert!(!activated.exited, "{activated:?}");
        let focused = wait_until(&mut s, |s| s.known_apps()[idx].view.focus().is_some()).await;
        assert!(focused, "the fixture's window has no focused element");

        let acted = s
            .act(
                &format!("role:push button && name:Open {OTHER}"),
                &Action::Click,
                &ActOptions::default(),
            )
            .await
            .expect("click Open");
        // The other instance starts in half a second or more; the click's
        // own settle is usually over by then, and a wait reports the switch.
        let uidelta_engine::AppDiff {
            app: switched_app,
            diff: switched,
        } = match acted.app_switch {
            Some(switch) => switch,
            None => s
                .wait_for_change("uidelta-fixture", Duration::from_secs(20))
                .await
                .expect("wait for the fixture to lose the focus")
                .app_switch
                .expect("an app switch once the fixture lost the focus"),
        };
        assert_eq!(switched_app.name, OTHER);
        let switched = text(&switched);
        // Its whole tree, first seen, with the focus on its first button.
        assert!(switched.starts_with("# diff: +1 added\n+ [e"), "{switched}");
        assert!(
            switched.contains("] frame \"uidelta fixture\"\n"),
            "{switched}"
        );
        assert!(
            switched.contains("] push button \"Open details\" (focused)\n"),
            "{switched}"
        );
        // The fixture itself no longer has a focused element.
        assert!(s.known_apps()[idx].view.focus().is_none());
    });
}

#[test]
fn a_program_the_action_started_that_joins_the_bus_late_is_in_the_answer() {
    // The instance "Open" starts draws at once and joins the bus a second
    // later, as a GIMP plug-in shows its dialog: the fixture has settled
    // long before, and the answer waits for the new program's window.
    const OTHER: &str = "uidelta-fixture-late";
    let (desktop, rt) = start_with(&["--opens", OTHER, "--opens-late"]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        s.observe("uidelta-fixture")
            .await
            .expect("observe the fixture");
        s.window_action(
            "app:uidelta-fixture >> role:frame && name:\"uidelta fixture\"",
            WindowAction::Activate,
            Settle::None,
        )
        .await
        .expect("activate the fixture's window");
        let acted = s
            .act(
                &format!("role:push button && name:Open {OTHER}"),
                &Action::Click,
                &ActOptions::default(),
            )
            .await
            .expect("click Open");
        let switch = acted.app_switch.unwrap_or_else(|| {
            panic!(
                "no window of {OTHER} in the answer (settled in {} ms): {}",
                acted.settled.elapsed.as_millis(),
                text(&acted.diff)
            )
        });
        assert_eq!(switch.app.name, OTHER);
        let switched = text(&switch.diff);
        assert!(switched.starts_with("# diff: +1 added\n+ [e"), "{switched}");
        assert!(
            switched.contains("] frame \"uidelta fixture\"\n"),
            "{switched}"
        );
    });
}

#[test]
fn activating_the_active_window_does_not_wait_for_a_change() {
    let (desktop, rt) = start();
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let (idx, _) = s.observe("uidelta-fixture").await.expect("observe");
        let window = "app:uidelta-fixture >> role:frame && name:\"uidelta fixture\"";
        s.window_action(window, WindowAction::Activate, Settle::None)
            .await
            .expect("activate the fixture's window");
        let active = wait_until(&mut s, |s| {
            let scope = &s.known_apps()[idx];
            scope.main_window().is_some_and(|w| {
                scope
                    .view
                    .tree()
                    .node(w)
                    .states
                    .contains(uidelta_model::State::Active)
            })
        })
        .await;
        assert!(active, "the fixture's window never became active");
        // Raising it again changes nothing: the answer says so without
        // waiting for a change up to the cap.
        let again = s
            .window_action(window, WindowAction::Activate, Settle::default())
            .await
            .expect("activate it again");
        let a = again;
        assert!(!a.exited, "the fixture exited: {a:?}");
        assert!(!a.diff.has_changes(), "{}", text(&a.diff));
        assert!(!a.settled.capped, "{:?}", a.settled);
    });
}

/// Refreshes the session's view of the fixture until `done` holds (true), or
/// 10 s pass (false).
async fn wait_until(s: &mut Session<Linux>, done: impl Fn(&Session<Linux>) -> bool) -> bool {
    let end = std::time::Instant::now() + Duration::from_secs(10);
    while std::time::Instant::now() < end {
        s.look("uidelta-fixture").await.expect("refresh");
        if done(s) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// The diff of `acted`, asserting it holds `line`.
fn holds(acted: &uidelta_engine::ActionOutcome, line: &str) {
    let t = text(&acted.diff);
    assert!(t.contains(line), "no `{line}` in\n{t}");
}

#[test]
fn a_menu_item_whose_handler_runs_a_modal_dialog_is_clicked_with_the_pointer() {
    let (desktop, rt) = start_with(&["--modal"]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let opts = ActOptions::default();

        // The item's menu is closed: it is opened first, as a person would.
        let asked = s
            .act("role:menu item && name:Ask…", &Action::Click, &opts)
            .await
            .expect("click File > Ask… with its menu closed");
        assert!(
            asked
                .done
                .method
                .starts_with("menus opened, then XTest click at "),
            "{}",
            asked.done.method
        );
        holds(&asked, "] alert \"Question\" (modal) (opened)\n");
        holds(&asked, "] label \"Proceed?\"\n");
        holds(&asked, "] push button \"Yes\"\n");
        // A message dialog waits for its answer: no lingering for it to go.
        assert!(asked.diff.transient.is_empty(), "{}", text(&asked.diff));
        assert!(!asked.settled.capped, "{}", text(&asked.diff));

        let yes = s
            .act("role:push button && name:Yes", &Action::Click, &opts)
            .await
            .expect("answer Yes");
        holds(&yes, "- [");
        holds(&yes, "] alert \"Question\" (closed) (and 3 descendants)\n");
        holds(
            &yes,
            "] label | name: \"Answer: none\" -> \"Answer: yes\"\n",
        );

        // With the menu open, the item itself is clicked with the pointer.
        let opened = s
            .act("role:menu && name:File", &Action::Click, &opts)
            .await
            .expect("open File");
        holds(&opened, "] menu item \"Ask…\" in [");
        let asked = s
            .act("role:menu item && name:Ask…", &Action::Click, &opts)
            .await
            .expect("click File > Ask… in the open menu");
        assert!(
            asked.done.method.starts_with("XTest click at "),
            "{}",
            asked.done.method
        );
        holds(&asked, "] alert \"Question\" (modal) (opened)\n");
        let no = s
            .act("role:push button && name:No", &Action::Click, &opts)
            .await
            .expect("answer No");
        holds(&no, "] label | name: \"Answer: yes\" -> \"Answer: no\"\n");
    });
}

#[test]
fn a_disabled_item_of_a_closed_menu_is_an_error_that_says_so_and_opens_no_menu() {
    let (desktop, rt) = start_with(&["--modal"]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let opts = ActOptions::default();
        // GTK gives a disabled menu item no action, and a person would not
        // open its menu to click it: nothing is clicked, and the error says
        // why.
        let err = s
            .act("role:menu item && name:Never", &Action::Click, &opts)
            .await
            .expect_err("File > Never is disabled");
        let msg = err.to_string();
        assert!(
            msg.ends_with(
                ": the element is disabled: it offers no accessible action and is not on view \
                 (applications ignore clicks on disabled elements)"
            ),
            "{msg}"
        );
        // File is still closed: clicking it opens it, its entries listed.
        let opened = s
            .act("role:menu && name:File", &Action::Click, &opts)
            .await
            .expect("open File");
        holds(
            &opened,
            "] menu \"File\" | selected: false -> true (shows 2 descendants)\n",
        );
        holds(&opened, "] menu item \"Never\" (disabled)\n");
    });
}

#[test]
fn an_accessible_action_whose_handler_runs_a_modal_dialog_leaves_the_application_answering() {
    let (desktop, rt) = start_with(&["--modal"]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let opts = ActOptions::default();
        // A named action is AT-SPI's DoAction, whose handler GTK runs inside
        // the call's dispatch, and so gtk_dialog_run. Made on the
        // application's direct connection, it leaves the bus connection
        // free: the dialog is read while it is open.
        let asked = s
            .act(
                "role:menu item && name:Ask…",
                &Action::Invoke("click".into()),
                &opts,
            )
            .await
            .expect("invoke File > Ask…");
        assert_eq!(asked.done.method, "Action.click");
        holds(&asked, "] alert \"Question\" (modal) (opened)\n");
        holds(&asked, "] push button \"No\" (focused)\n");
        let no = s
            .act("role:push button && name:No", &Action::Click, &opts)
            .await
            .expect("answer No");
        holds(&no, "] alert \"Question\" (closed) (and 3 descendants)\n");
        holds(&no, "] label | name: \"Answer: none\" -> \"Answer: no\"\n");
    });
}

/// Opens the fixture's modal question through its accessible action, over
/// the bus: the dialog's loop holds the application's bus connection, so
/// the action ends in an error, which is returned.
async fn ask_through_the_bus(s: &mut Session<Linux>, opts: &ActOptions) -> uidelta_engine::Error {
    s.act(
        "role:menu item && name:Ask…",
        &Action::Invoke("click".into()),
        opts,
    )
    .await
    .err()
    .unwrap_or_else(|| panic!("the application stops answering"))
}

#[test]
fn an_application_stuck_in_a_modal_dialog_is_reported_gets_no_key_and_is_answered_with_a_click_at_a_point(
) {
    require_programs(&[
        ("Xvfb", "xvfb"),
        ("/usr/bin/python3", "python3-gi gir1.2-gtk-3.0"),
    ])
    .expect("programs for the fixture tests");
    let desktop = Desktop::start().expect("a virtual desktop");
    // Without its direct connection (no runtime directory for its socket,
    // as with toolkits that offer none) DoAction comes over the bus, and the
    // modal dialog's loop holds the application's bus connection.
    std::mem::forget(
        desktop
            .launch(
                "/usr/bin/env",
                &["XDG_RUNTIME_DIR=/dev/null/none", FIXTURE, "--modal"],
            )
            .expect("launch the fixture"),
    );
    desktop
        .wait_for_accessible_app("uidelta-fixture", Duration::from_secs(20))
        .expect("the fixture on the accessibility bus");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let opts = ActOptions::default();
        // Where the dialog's Yes button is: open it once with the pointer.
        s.act("role:menu item && name:Ask…", &Action::Click, &opts)
            .await
            .expect("click File > Ask…");
        let (idx, yes) = s
            .resolve("role:push button && name:Yes")
            .await
            .expect("Yes");
        let yes = s.known_apps()[idx]
            .node(yes)
            .bounds
            .expect("Yes has bounds")
            .center();
        let (idx, no) = s.resolve("role:push button && name:No").await.expect("No");
        let no = s.known_apps()[idx]
            .node(no)
            .bounds
            .expect("No has bounds")
            .center();
        s.act("role:push button && name:No", &Action::Click, &opts)
            .await
            .expect("answer No");

        let err = ask_through_the_bus(&mut s, &opts).await;
        assert!(
            matches!(err, uidelta_engine::Error::Unresponsive { .. }),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(
            message.starts_with("uidelta-fixture (pid ")
                && message.contains(
                    ") does not answer since Action.click on [e5] menu item \"Ask…\": \
                     one of its handlers is still running; most often a modal dialog"
                ),
            "{message}"
        );
        // Keys could hang it for good: they are not sent, and the error says
        // that it does not answer. Nor is any action on its elements.
        let err = s
            .key("uidelta-fixture", "Escape", &opts)
            .await
            .err()
            .unwrap_or_else(|| panic!("no key for an application that does not answer"));
        let stuck_since = ") does not answer since Action.click on [e5] menu item \"Ask…\"";
        let message = err.to_string();
        assert!(
            matches!(err, uidelta_engine::Error::Unresponsive { .. })
                && message.contains(stuck_since),
            "{message}"
        );
        let err = s
            .act("role:push button && name:Count", &Action::Click, &opts)
            .await
            .err()
            .unwrap_or_else(|| panic!("no action on an application that does not answer"));
        let message = err.to_string();
        assert!(
            matches!(err, uidelta_engine::Error::Unresponsive { .. })
                && message.contains(stuck_since),
            "{message}"
        );

        // A click at a point goes through the display: it answers the
        // dialog, and the application answers again.
        let answered = s
            .click_at("uidelta-fixture", yes, &Action::Click, &opts)
            .await
            .expect("click Yes at its point");
        assert_eq!(
            answered.done.method,
            format!("XTest click at {},{}", yes.0, yes.1)
        );
        holds(
            &answered,
            "] label | name: \"Answer: no\" -> \"Answer: yes\"\n",
        );

        // A session that never saw it (a new `uidelta click --at`) knows it
        // only by its bus name while it does not answer; the answer is its
        // tree as first seen, under its own name again.
        let bus_name = s.known_apps()[0].app.id.clone();
        ask_through_the_bus(&mut s, &opts).await;
        let mut fresh = Session::new(Arc::new(
            Linux::connect(Some(desktop.session_bus_address()), Some(desktop.display()))
                .await
                .expect("connect"),
        ));
        let answered = fresh
            .click_at(&bus_name, no, &Action::Click, &opts)
            .await
            .expect("click No at its point from a new session");
        assert_eq!(answered.app.name, "uidelta-fixture");
        holds(&answered, "+ [e2] frame \"uidelta fixture\"\n");
        holds(&answered, "] label \"Answer: no\"\n");
        assert!(
            !text(&answered.diff).contains("alert \"Question\""),
            "{}",
            text(&answered.diff)
        );

        // Stuck again, then gone: a key for it says it is gone, not that it
        // does not answer.
        ask_through_the_bus(&mut fresh, &opts).await;
        let pid = fresh.known_apps()[0].app.pid.expect("pid");
        let killed = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .expect("kill");
        assert!(killed.success());
        let mut err = None;
        for _ in 0..50 {
            let e = fresh
                .key("uidelta-fixture", "Escape", &opts)
                .await
                .err()
                .unwrap_or_else(|| panic!("no key for an application that is gone"));
            let gone = matches!(&e, uidelta_engine::Error::Backend(b) if b.kind == uidelta_backend::ErrorKind::Gone);
            err = Some(e);
            if gone {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let err = err.expect("an error");
        assert!(
            matches!(&err, uidelta_engine::Error::Backend(b) if b.kind == uidelta_backend::ErrorKind::Gone),
            "{err:?}"
        );
    });
}

#[test]
fn a_window_on_top_of_an_element_gets_no_click_meant_for_the_element() {
    let (desktop, rt) = start_with(&["--cover"]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let opts = ActOptions::default();
        let count = "role:push button && name:Count";
        let label = "role:label && name~:Count: ";

        // Nothing on top: the push button is clicked with the pointer, and
        // the label, which has no accessible action, too.
        let counted = s.act(count, &Action::Click, &opts).await.expect("Count");
        assert!(
            counted.done.method.starts_with("XTest click at "),
            "{}",
            counted.done.method
        );
        holds(&counted, "] label | name: \"Count: 0\" -> \"Count: 1\"\n");
        let clicked = s.act(label, &Action::Click, &opts).await.expect("label");
        assert!(
            clicked.done.method.starts_with("XTest click at "),
            "{}",
            clicked.done.method
        );

        let covered = s
            .act("role:push button && name:Cover", &Action::Click, &opts)
            .await
            .expect("Cover");
        holds(&covered, "] frame \"Cover\" (opened)\n");

        // Under the window Cover, a pointer click would land on Cover: the
        // button's accessible action is used instead.
        let counted = s.act(count, &Action::Click, &opts).await.expect("Count");
        assert_eq!(counted.done.method, "Action.click");
        holds(&counted, "] label | name: \"Count: 1\" -> \"Count: 2\"\n");

        // The label has no accessible action: the click is refused, saying
        // what is on top.
        let refused = s
            .act(label, &Action::Click, &opts)
            .await
            .err()
            .unwrap_or_else(|| panic!("a click through the window Cover"))
            .to_string();
        assert!(
            refused.contains(", the element's centre, the window \"Cover\" is on top of it;"),
            "{refused}"
        );
    });
}

#[test]
fn on_a_scaled_display_the_pointer_clicks_where_the_element_is() {
    // GTK reports places in unscaled pixels: the Count button's centre, as
    // reported, is on the Show toast or Do nothing button on the display.
    // The snapshot has the display's places, and the click goes there.
    let (desktop, rt) = start_with(&["--scale", "2"]);
    let x11 = uidelta_x11::X11::connect(desktop.display()).expect("X connection");
    let window = x11
        .top_windows()
        .expect("top-level windows")
        .into_iter()
        .find(|w| w.title == "uidelta fixture" && w.viewable)
        .expect("the fixture's window");
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let opts = ActOptions::default();
        let bounds = |s: &Session<Linux>, selector: &str| {
            let (scope, id) = s.find(&selector.parse().expect("selector"))[0];
            s.known_apps()[scope].node(id).bounds.expect("bounds")
        };
        let frame = bounds(&s, "role:frame && name:uidelta fixture");
        let (x, y, w, h) = window.inner;
        assert_eq!(
            (frame.x, frame.y, frame.w, frame.h),
            (
                x,
                y,
                i32::try_from(w).expect("width"),
                i32::try_from(h).expect("height")
            ),
            "the window's bounds are the display's"
        );
        let count = "role:push button && name:Count";
        let shown = bounds(&s, count);
        let counted = s.act(count, &Action::Click, &opts).await.expect("Count");
        let at = counted
            .done
            .method
            .strip_prefix("XTest click at ")
            .and_then(|p| p.split_once(','))
            .and_then(|(x, y)| Some((x.parse::<i32>().ok()?, y.parse::<i32>().ok()?)))
            .unwrap_or_else(|| panic!("a pointer click: {}", counted.done.method));
        // The toolkit's centre, scaled, is within a pixel of the scaled
        // bounds' centre (odd sizes round).
        let (cx, cy) = shown.center();
        assert!(
            (at.0 - cx).abs() <= 1 && (at.1 - cy).abs() <= 1,
            "clicked at {at:?}, the button's centre on the display is {cx},{cy}"
        );
        holds(&counted, "] label | name: \"Count: 0\" -> \"Count: 1\"\n");
        assert_eq!(
            counted.diff.changes.len(),
            1,
            "only the label changes: {}",
            text(&counted.diff)
        );
        // An element with no accessible action, clicked at its place too.
        let clicked = s
            .act("role:label && name~:Count: ", &Action::Click, &opts)
            .await
            .expect("the label");
        assert!(
            clicked.done.method.starts_with("XTest click at "),
            "{}",
            clicked.done.method
        );
        assert!(!clicked.diff.has_changes(), "{}", text(&clicked.diff));
    });
}

#[test]
fn work_after_a_change_holds_the_quiet_window_off_until_the_rest_of_it() {
    // `Save`: the status at once, then 300 ms of work in another thread
    // with nothing on the bus (twice the quiet window), then the window
    // renamed. The process at work says the change is not over.
    let (desktop, rt) = start_with(&["--save"]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        for round in 1..=5 {
            let acted = s
                .act("name:Save", &Action::Click, &ActOptions::default())
                .await
                .expect("save");
            let t = text(&acted.diff);
            let was = match round {
                1 => "uidelta fixture".to_owned(),
                n => format!("uidelta fixture (saved {})", n - 1),
            };
            let renamed = format!("| name: \"{was}\" -> \"uidelta fixture (saved {round})\"");
            assert!(
                t.contains(&renamed),
                "round {round}: no {renamed:?} in:\n{t}"
            );
            if round == 1 {
                assert!(
                    t.contains("| name: \"Status: idle\" -> \"Status: saving\""),
                    "{t}"
                );
            }
            assert!(!acted.settled.capped, "{t}");
            assert!(acted.earlier.is_empty(), "{:?}", acted.earlier);
        }
    });
}

#[test]
fn an_application_busy_past_a_call_s_time_is_read_again_once_it_answers() {
    // `Freeze`: the status at once, then the main loop held for 9 s, past
    // the settle and the two seconds a ping and a call may each take. The capture after
    // the click times out; the application answers a ping once free, and
    // is read again: the answer holds the change, not an error an agent
    // would retry.
    let (desktop, rt) = start_with(&["--freeze"]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let acted = s
            .act("name:Freeze", &Action::Click, &ActOptions::default())
            .await
            .expect("the answer, once the application is free again");
        let t = text(&acted.diff);
        assert!(
            t.contains("| name: \"Status: idle\" -> \"Status: frozen\""),
            "{t}"
        );
    });
}

#[test]
fn typing_that_lands_late_is_waited_for_and_a_field_that_takes_part_of_it_ends_the_wait() {
    // `Slow notes` takes each typed character 250 ms after the last (more
    // than the quiet window), as a busy application handles keys late:
    // the answer holds the whole text, typed through accessibility or
    // with keys. `Short notes` takes three of five: the wait ends without
    // the cap, with the three.
    let (desktop, rt) = start_with(&["--typing"]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let opts = ActOptions::default();
        for (round, (typed, was, now)) in [
            ("hello", "none", "\"hello\""),
            // A line break is typed as keys (Return activates the entry).
            (" world\n", "\"hello\"", "\"hello world\""),
        ]
        .into_iter()
        .enumerate()
        {
            let acted = s
                .act("name:Slow notes", &Action::Type(typed.into()), &opts)
                .await
                .expect("type into Slow notes");
            let t = text(&acted.diff);
            let line = format!("] text \"Slow notes\" | value: {was} -> {now}\n");
            assert!(t.contains(&line), "round {round}: no {line:?} in:\n{t}");
            assert!(!acted.settled.capped, "round {round}: {t}");
            assert!(acted.earlier.is_empty(), "{:?}", acted.earlier);
        }
        let acted = s
            .act("name:Short notes", &Action::Type("hello".into()), &opts)
            .await
            .expect("type into Short notes");
        let t = text(&acted.diff);
        assert!(
            t.contains("] text \"Short notes\" | value: none -> \"hel\"\n"),
            "{t}"
        );
        assert!(!acted.settled.capped, "{t}");
    });
}

#[test]
fn a_drag_from_a_point_presses_and_releases_where_it_was_asked() {
    // `Canvas` shows nothing the tree can target; its label says where
    // the last drag on it was pressed and released, in its own pixels.
    let (desktop, rt) = start_with(&["--canvas"]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let opts = ActOptions::default();
        let (idx, canvas) = s.resolve("name:Canvas").await.expect("Canvas");
        let b = s.known_apps()[idx]
            .node(canvas)
            .bounds
            .expect("Canvas has bounds");
        let (from, to) = ((b.x + 20, b.y + 10), (b.x + 150, b.y + 60));
        let acted = s
            .drag_at("uidelta-fixture", from, &DragEnd::Point(to.0, to.1), &opts)
            .await
            .expect("drag on the canvas");
        assert_eq!(
            acted.done.method,
            format!("XTest drag from {},{} to {},{}", from.0, from.1, to.0, to.1)
        );
        let t = text(&acted.diff);
        assert!(
            t.contains(
                "| name: \"Canvas: nothing dragged\" -> \"Canvas: dragged from 20,10 to 150,60\""
            ),
            "{t}"
        );
        // Onto an element: dropped at its centre.
        let acted = s
            .drag_at(
                "uidelta-fixture",
                (b.x + 5, b.y + 5),
                &DragEnd::Element("name:Canvas".into()),
                &opts,
            )
            .await
            .expect("drag onto the canvas's centre");
        let line = format!("-> \"Canvas: dragged from 5,5 to {},{}\"", b.w / 2, b.h / 2);
        let t = text(&acted.diff);
        assert!(t.contains(&line), "no {line:?} in:\n{t}");
        // A point off the screen is refused, and nothing is pressed.
        let err = s
            .drag_at("uidelta-fixture", (-5, 10), &DragEnd::Point(10, 10), &opts)
            .await
            .err()
            .unwrap_or_else(|| panic!("a drag from off the screen"));
        let message = err.to_string();
        assert!(
            message.starts_with("dragging from -5,10 to 10,10: "),
            "{message}"
        );
    });
}

#[test]
fn a_window_made_on_the_display_before_its_accessible_is_waited_for() {
    // `New window`: the status at once, the window made on the display,
    // and its accessible 700 ms later (as Gecko's new windows come): the
    // quiet after the status is not the end of the change.
    let (desktop, rt) = start_with(&["--window-late"]);
    rt.block_on(async {
        let mut s = session(&desktop).await;
        for round in 1..=3 {
            let acted = s
                .act("name:New window", &Action::Click, &ActOptions::default())
                .await
                .expect("new window");
            let t = text(&acted.diff);
            let window = format!("frame \"Later window {round}\"");
            assert!(t.contains(&window), "round {round}: no {window} in:\n{t}");
            if round == 1 {
                assert!(
                    t.contains("| name: \"Status: idle\" -> \"Status: opening\""),
                    "{t}"
                );
            }
            assert!(!acted.settled.capped, "round {round}:\n{t}");
            assert!(acted.earlier.is_empty(), "{:?}", acted.earlier);
        }
    });
}

#[test]
fn the_text_selected_in_a_field_is_said_and_typing_replaces_it() {
    // Ctrl+A in a field selects its text: a change an agent must see,
    // since the next keys replace it.
    let (desktop, rt) = start();
    rt.block_on(async {
        let mut s = session(&desktop).await;
        let opts = ActOptions::default();
        let notes = "role:text && name:Notes";
        s.act(notes, &Action::Type("invoices 2024".into()), &opts)
            .await
            .expect("type into Notes");
        let all = s
            .key("uidelta-fixture", "ctrl+a", &opts)
            .await
            .expect("ctrl+a");
        let t = text(&all.diff);
        assert!(
            t.contains("] text \"Notes\" | selected text: none -> \"invoices 2024\"\n"),
            "{t}"
        );
        // The tree says it too, on the field's line.
        let tree = uidelta_render::tree_text(
            &s.known_apps()[0].view,
            &s.known_apps()[0].refs,
            &uidelta_render::TreeOptions::default(),
        );
        assert!(
            tree.contains("text \"Notes\" = \"invoices 2024\" (focused, all selected)"),
            "{tree}"
        );
        // A part of it: the word before the caret.
        s.key("uidelta-fixture", "End", &opts).await.expect("End");
        let part = s
            .key("uidelta-fixture", "ctrl+shift+Left", &opts)
            .await
            .expect("ctrl+shift+Left");
        let t = text(&part.diff);
        assert!(t.contains("| selected text: none -> \"2024\"\n"), "{t}");
        let typed = s.key("uidelta-fixture", "q", &opts).await.expect("q");
        let t = text(&typed.diff);
        assert!(
            t.contains("| value: \"invoices 2024\" -> \"invoices q\"\n"),
            "{t}"
        );
    });
}
