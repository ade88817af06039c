//! A busy application and a session that does not read its events: the
//! events it is not reading must never hold up replies on the connection
//! the sessions share, and the next call must see what changed.

mod common;

use std::sync::Arc;
use std::time::Duration;

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, Session};
use uidelta_linux::Linux;
use uidelta_model::NodeId;
use uidelta_testkit::{require_programs, Desktop};

use common::{holds, ref_of};

const FACTORY: &str = "gtk3-widget-factory";
/// The empty entry of the first page.
const ENTRY: &str =
    "role:text && state:editable && state:enabled && !state:hidden && value:\"\" && nth:0";

/// The text typed: 4,000 characters, each of which the entry answers with
/// several events (text inserted, caret moved, ...): twice and more the
/// events a session holds unread (`Events::HELD` of uidelta-atspi).
fn flood_text() -> String {
    "the quick brown fox jumps over the lazy dog "
        .chars()
        .cycle()
        .take(4000)
        .collect()
}

/// Types `text` into the focused element of the application with `pid`,
/// through the X server as a keyboard would (xdotool's XTest input).
fn xdotool_type(desktop: &Desktop, pid: u32, text: &str) -> std::process::Child {
    desktop.focus_window_of(pid);
    desktop
        .command("xdotool")
        .args(["type", "--delay", "2", text])
        .spawn()
        .expect("xdotool type")
}

/// The value of the element with ref `r` in `s`'s latest snapshots.
fn value_of(s: &Session<Linux>, r: &str) -> Option<String> {
    let wanted: uidelta_diff::Ref = r.parse().expect("a ref");
    s.known_apps().iter().find_map(|l| {
        let node: NodeId = l.refs.find(wanted)?;
        l.view.tree().node(node).value.clone()
    })
}

#[test]
fn a_flood_of_unread_events_never_holds_up_other_calls() {
    require_programs(&[("xdotool", "xdotool")]).expect("programs");
    let (desktop, rt) = common::desktop_with(FACTORY, &[], FACTORY, "gtk-3-examples");
    let pid = factory_pid(&desktop);
    rt.block_on(async {
        let linux = Linux::connect(Some(desktop.session_bus_address()), Some(desktop.display()))
            .await
            .expect("connect");
        let linux = Arc::new(linux);
        let mut reader = Session::new(Arc::clone(&linux));
        let mut other = Session::new(Arc::clone(&linux));
        reader.observe(FACTORY).await.expect("read the tree");
        let entry = ref_of(&reader, ENTRY);
        reader
            .act(&entry, &Action::Focus, &ActOptions::default())
            .await
            .expect("focus the entry");

        // The reader now leaves its events unread while the application
        // sends thousands; the other session keeps working meanwhile.
        let text = flood_text();
        let mut typing = xdotool_type(&desktop, pid, &text);
        let mut reads = 0;
        loop {
            let done = typing.try_wait().expect("xdotool type");
            other
                .observe(FACTORY)
                .await
                .unwrap_or_else(|e| panic!("another session's read during the flood: {e}"));
            reads += 1;
            if let Some(status) = done {
                assert!(status.success(), "xdotool type: {status}");
                break;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        assert!(
            reads >= 2,
            "the flood ended before the other session read twice"
        );

        // The reader's next call answers, with the entry's new value. The
        // application may still be working through its input: it is given
        // as long as the value keeps growing (a busy machine takes tens of
        // seconds), up to two minutes.
        let want = Some(text.clone());
        let mut seen = None;
        let mut stalled = 0;
        for _ in 0..240 {
            reader
                .observe(FACTORY)
                .await
                .unwrap_or_else(|e| panic!("the reader's read after the flood: {e}"));
            let now = value_of(&reader, &entry);
            if now == want {
                seen = now;
                break;
            }
            let grew = now.as_ref().map_or(0, String::len) > seen.as_ref().map_or(0, String::len);
            stalled = if grew { 0 } else { stalled + 1 };
            seen = now;
            if stalled >= 6 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        assert_eq!(seen.map(|v| v.len()), Some(text.len()));
        assert_eq!(value_of(&reader, &entry), want);

        // And an action: typing one more character reports the new value.
        let acted = reader
            .act(&entry, &Action::Type("!".into()), &ActOptions::default())
            .await
            .unwrap_or_else(|e| panic!("an action after the flood: {e}"));
        assert!(acted.diff.has_changes(), "typing `!` changed nothing");
        assert_eq!(value_of(&reader, &entry), Some(format!("{text}!")));
    });
}

#[test]
fn events_left_unread_are_let_go_and_the_application_read_in_full_again() {
    require_programs(&[("xdotool", "xdotool")]).expect("programs");
    let (desktop, rt) = common::desktop_with(FACTORY, &[], FACTORY, "gtk-3-examples");
    let pid = factory_pid(&desktop);
    rt.block_on(async {
        let linux = Linux::connect(Some(desktop.session_bus_address()), Some(desktop.display()))
            .await
            .expect("connect");
        let mut s = Session::new(Arc::new(linux)).with_event_idle(Duration::from_secs(2));
        s.observe(FACTORY).await.expect("read the tree");
        let entry = ref_of(&s, ENTRY);
        s.act(&entry, &Action::Focus, &ActOptions::default())
            .await
            .expect("focus the entry");
        assert!(!s.known_apps()[0].lapsed());

        // Typed after the session stopped listening: the first event ends
        // the subscription, and the ones after it are not heard.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let typed = xdotool_type(&desktop, pid, "hello")
            .wait()
            .expect("xdotool type");
        assert!(typed.success(), "xdotool type: {typed}");
        for _ in 0..50 {
            if s.known_apps()[0].lapsed() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(
            s.known_apps()[0].lapsed(),
            "still subscribed after going unread"
        );
        // xdotool is done once its keys are sent, not once the entry has
        // them all: a session of its own, on a connection of its own, reads
        // until it has.
        let probe = Linux::connect(Some(desktop.session_bus_address()), Some(desktop.display()))
            .await
            .expect("connect");
        let mut probe = Session::new(Arc::new(probe));
        let typed: uidelta_engine::selector::Selector =
            "role:text && value:hello".parse().expect("selector");
        for _ in 0..50 {
            probe.observe(FACTORY).await.expect("read the tree");
            if !probe.find(&typed).is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(probe.find(&typed).len(), 1, "the entry never said hello");

        // The next action listens again, and reads the entry in full before
        // acting: its diff starts from what was typed meanwhile.
        let a = s
            .act(&entry, &Action::Type("!".into()), &ActOptions::default())
            .await
            .expect("type after the subscription lapsed");
        assert!(!s.known_apps()[0].lapsed());
        holds(
            &a,
            &format!("~ [{entry}] text | value: \"hello\" -> \"hello!\""),
        );
        assert_eq!(value_of(&s, &entry), Some("hello!".to_owned()));
    });
}

/// The pid of the widget factory running in `desktop`.
fn factory_pid(desktop: &Desktop) -> u32 {
    desktop
        .processes()
        .into_iter()
        .find(|&p| {
            std::fs::read_to_string(format!("/proc/{p}/comm"))
                .is_ok_and(|c| FACTORY.starts_with(c.trim()))
        })
        .expect("the widget factory's pid")
}
