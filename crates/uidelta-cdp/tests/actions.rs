//! Actions on elements of real pages, each checked by capturing again.

mod common;

use common::{browser, capture, find, find_text, fixtures, has, has_text, open, pages, until};
use uidelta_backend::{Action, Backend, ErrorKind};
use uidelta_model::{Role, State};

#[tokio::test]
async fn click_runs_the_page_handler() {
    let server = pages();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("widgets.html")).await;
    let before = capture(&cdp, &app).await;
    let go = find(&before, Role::PushButton, "Go");
    let done = cdp.act(&app, go, &Action::Click).await.expect("click");
    assert!(
        done.method.starts_with("CDP Input click at "),
        "{}",
        done.method
    );
    let after = until(&cdp, &app, "the status Clicked", |s| has_text(s, "Clicked")).await;
    assert!(!has_text(&after, "Ready"));
    // The status text node was replaced, yet it is the same element.
    assert_eq!(
        find_text(&before, "Ready").identity,
        find_text(&after, "Clicked").identity
    );
}

#[tokio::test]
async fn right_and_double_clicks_reach_their_handlers() {
    let server = pages();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("widgets.html")).await;
    let snap = capture(&cdp, &app).await;
    let done = cdp
        .act(
            &app,
            find(&snap, Role::PushButton, "Menu"),
            &Action::RightClick,
        )
        .await
        .expect("right click");
    assert!(
        done.method.starts_with("CDP Input right click at "),
        "{}",
        done.method
    );
    until(&cdp, &app, "Context menu", |s| has_text(s, "Context menu")).await;
    let done = cdp
        .act(
            &app,
            find(&snap, Role::PushButton, "Twice"),
            &Action::DoubleClick,
        )
        .await
        .expect("double click");
    assert!(
        done.method.starts_with("CDP Input double click at "),
        "{}",
        done.method
    );
    until(&cdp, &app, "Double clicked", |s| {
        has_text(s, "Double clicked")
    })
    .await;
    // A toggle button's pressed state follows its clicks.
    cdp.act(
        &app,
        find(&snap, Role::ToggleButton, "Bold"),
        &Action::Invoke("click".into()),
    )
    .await
    .expect("invoke click");
    until(&cdp, &app, "Bold pressed", |s| {
        find(s, Role::ToggleButton, "Bold")
            .states
            .contains(State::Pressed)
    })
    .await;
    let err = cdp
        .act(
            &app,
            find(&snap, Role::PushButton, "Go"),
            &Action::Invoke("expand".into()),
        )
        .await
        .expect_err("no such action");
    assert_eq!(err.kind, ErrorKind::Unsupported);
    assert!(err.message.contains("`expand`"), "{}", err.message);
}

#[tokio::test]
async fn typing_fills_a_field_and_enter_submits_its_form() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("form.html")).await;
    let snap = capture(&cdp, &app).await;
    let name = find(&snap, Role::Entry, "Name");
    let done = cdp
        .act(&app, name, &Action::Type("Ada".into()))
        .await
        .expect("typing");
    assert_eq!(done.method, "DOM.focus + Input.insertText");
    // Typing again appends at the end.
    cdp.act(&app, name, &Action::Type(" Lovelace".into()))
        .await
        .expect("typing more");
    let typed = until(&cdp, &app, "the typed name", |s| {
        find(s, Role::Entry, "Name").value.as_deref() == Some("Ada Lovelace")
    })
    .await;
    let field = find(&typed, Role::Entry, "Name");
    assert!(field.states.contains(State::Focused));
    let done = cdp
        .act(&app, field, &Action::Key("Return".into()))
        .await
        .expect("Enter");
    assert_eq!(done.method, "DOM.focus + CDP Input key Return");
    until(&cdp, &app, "the form submitted", |s| {
        has_text(s, "Thanks, Ada Lovelace")
    })
    .await;
    // A line break in typed text presses Enter too.
    let snap = capture(&cdp, &app).await;
    cdp.act(
        &app,
        find(&snap, Role::Entry, "Email"),
        &Action::Type("a@b.c\n".into()),
    )
    .await
    .expect("typing with a newline");
    let after = until(&cdp, &app, "the email", |s| {
        find(s, Role::Entry, "Email").value.as_deref() == Some("a@b.c")
    })
    .await;
    assert!(has_text(&after, "Thanks, Ada Lovelace"));
    // In a text area a line break stays a line break.
    cdp.act(
        &app,
        find(&after, Role::Entry, "Comment"),
        &Action::Type("one\ntwo".into()),
    )
    .await
    .expect("typing two lines");
    until(&cdp, &app, "two lines", |s| {
        find(s, Role::Entry, "Comment").value.as_deref() == Some("one\ntwo")
    })
    .await;
}

#[tokio::test]
async fn keys_for_an_element_that_cannot_take_the_focus_are_not_sent() {
    let server = pages();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("widgets.html")).await;
    let snap = capture(&cdp, &app).await;
    cdp.act(
        &app,
        find(&snap, Role::Entry, "Keys"),
        &Action::Type("abc".into()),
    )
    .await
    .expect("typing into the field");
    let typed = until(&cdp, &app, "the typed text", |s| {
        find(s, Role::Entry, "Keys").value.as_deref() == Some("abc")
    })
    .await;
    let nope = find(&typed, Role::PushButton, "Nope");
    for action in [Action::Type("zzz".into()), Action::Key("BackSpace".into())] {
        let err = cdp
            .act(&app, nope, &action)
            .await
            .expect_err("keys for a disabled button");
        assert_eq!(err.kind, ErrorKind::Unsupported);
        assert!(
            err.message.ends_with(
                "the element is disabled, so the keys would go to whatever has the keyboard \
                 focus; none were sent (act on an element that takes the focus: an enabled text \
                 field)"
            ),
            "{}",
            err.message
        );
    }
    let err = cdp
        .act(
            &app,
            find_text(&typed, "Ready"),
            &Action::Type("zzz".into()),
        )
        .await
        .expect_err("keys for a paragraph");
    assert!(
        err.message.contains(
            "the element cannot take the keyboard focus, and clicking it did not give it"
        ),
        "{}",
        err.message
    );
    let after = capture(&cdp, &app).await;
    assert_eq!(
        find(&after, Role::Entry, "Keys").value.as_deref(),
        Some("abc")
    );
}

#[tokio::test]
async fn keys_arrive_with_key_code_and_modifiers() {
    let server = pages();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("widgets.html")).await;
    let snap = capture(&cdp, &app).await;
    let keys = find(&snap, Role::Entry, "Keys");
    for (chord, seen) in [
        ("Return", "Key Enter Enter 13"),
        ("ctrl+a", "Key a KeyA 65 ctrl"),
        ("shift+Tab", "Key Tab Tab 9 shift"),
    ] {
        // Focus moves away on shift+Tab; each chord starts on the field.
        let snap = capture(&cdp, &app).await;
        cdp.act(
            &app,
            find(&snap, Role::Entry, "Keys"),
            &Action::Key(chord.into()),
        )
        .await
        .unwrap_or_else(|e| panic!("{chord}: {e}"));
        until(&cdp, &app, seen, |s| has_text(s, seen)).await;
    }
    // shift+Tab moved the focus back to the field before it.
    let snap = capture(&cdp, &app).await;
    assert!(find(&snap, Role::Entry, "Name")
        .states
        .contains(State::Focused));
    // ctrl+a selects all, so typing replaces the text.
    cdp.act(&app, keys, &Action::Type("abc".into()))
        .await
        .expect("typing");
    cdp.act(&app, keys, &Action::Key("ctrl+a".into()))
        .await
        .expect("ctrl+a");
    cdp.act(&app, keys, &Action::Type("z".into()))
        .await
        .expect("typing over");
    until(&cdp, &app, "the replaced text", |s| {
        find(s, Role::Entry, "Keys").value.as_deref() == Some("z")
    })
    .await;
    // Keys without an element go to the tab's focused one, even when
    // another tab was opened since and is the active one.
    let other = open(&cdp, &server.url("widgets.html")).await;
    let done = cdp.key(&app, "Tab").await.expect("Tab");
    assert_eq!(done.method, "CDP Input key Tab");
    until(&cdp, &app, "the focus on PIN", |s| {
        find(s, Role::Entry, "PIN").states.contains(State::Focused)
    })
    .await;
    let untouched = capture(&cdp, &other).await;
    for entry in ["Name", "Keys", "PIN"] {
        assert!(
            !find(&untouched, Role::Entry, entry)
                .states
                .contains(State::Focused),
            "the Tab went to the other tab too: {entry} is focused there"
        );
    }
    let err = cdp.key(&app, "hyper+q").await.expect_err("not a chord");
    assert_eq!(err.kind, ErrorKind::Unsupported);
}

#[tokio::test]
async fn check_boxes_radios_and_lists_change_state() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("controls.html")).await;
    let snap = capture(&cdp, &app).await;
    let check = find(&snap, Role::CheckBox, "Subscribe to newsletter");
    cdp.act(&app, check, &Action::Click).await.expect("click");
    let after = until(&cdp, &app, "the box checked", |s| {
        find(s, Role::CheckBox, "Subscribe to newsletter")
            .states
            .contains(State::Checked)
    })
    .await;
    assert!(has_text(&after, "Newsletter: subscribed"));
    // Selecting what is selected does nothing; deselecting clicks.
    let done = cdp
        .act(&app, check, &Action::SetSelected(true))
        .await
        .expect("set selected");
    assert!(done.method.starts_with("nothing to do"), "{}", done.method);
    cdp.act(&app, check, &Action::SetSelected(false))
        .await
        .expect("set unselected");
    until(&cdp, &app, "the box unchecked", |s| {
        has_text(s, "Newsletter: not subscribed")
            && !find(s, Role::CheckBox, "Subscribe to newsletter")
                .states
                .contains(State::Checked)
    })
    .await;

    cdp.act(
        &app,
        find(&snap, Role::RadioButton, "Large"),
        &Action::SetSelected(true),
    )
    .await
    .expect("radio");
    until(&cdp, &app, "Large checked", |s| {
        find(s, Role::RadioButton, "Large")
            .states
            .contains(State::Checked)
            && !find(s, Role::RadioButton, "Medium")
                .states
                .contains(State::Checked)
    })
    .await;

    // A list's value by option label; then an option selected directly.
    let colour = find(&snap, Role::ComboBox, "Colour");
    let done = cdp
        .act(&app, colour, &Action::SetValue("Green".into()))
        .await
        .expect("set value");
    assert!(
        done.method.contains("select option \"Green\""),
        "{}",
        done.method
    );
    until(&cdp, &app, "Green", |s| {
        find(s, Role::ComboBox, "Colour").value.as_deref() == Some("Green")
            && has_text(s, "Colour: Green")
    })
    .await;
    let err = cdp
        .act(&app, colour, &Action::SetValue("Purple".into()))
        .await
        .expect_err("no such option");
    assert!(
        err.message.contains("\"Red\", \"Green\", \"Blue\""),
        "{}",
        err.message
    );
    cdp.act(
        &app,
        find(&snap, Role::ListItem, "Blue"),
        &Action::SetSelected(true),
    )
    .await
    .expect("option");
    until(&cdp, &app, "Blue", |s| {
        find(s, Role::ComboBox, "Colour").value.as_deref() == Some("Blue")
            && find(s, Role::ListItem, "Blue")
                .states
                .contains(State::Selected)
    })
    .await;

    // A slider takes a value too.
    cdp.act(
        &app,
        find(&snap, Role::Slider, "Volume"),
        &Action::SetValue("70".into()),
    )
    .await
    .expect("slider");
    until(&cdp, &app, "Volume: 70", |s| has_text(s, "Volume: 70")).await;
}

#[tokio::test]
async fn set_value_replaces_text_and_focus_moves() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("form.html")).await;
    let snap = capture(&cdp, &app).await;
    let comment = find(&snap, Role::Entry, "Comment");
    cdp.act(&app, comment, &Action::SetValue("first\nsecond".into()))
        .await
        .expect("set value");
    until(&cdp, &app, "the comment", |s| {
        find(s, Role::Entry, "Comment").value.as_deref() == Some("first\nsecond")
    })
    .await;
    let done = cdp
        .act(&app, find(&snap, Role::Entry, "Email"), &Action::Focus)
        .await
        .expect("focus");
    assert_eq!(done.method, "DOM.focus");
    until(&cdp, &app, "the focus on Email", |s| {
        find(s, Role::Entry, "Email")
            .states
            .contains(State::Focused)
    })
    .await;
    let heading = find(&snap, Role::Heading, "Sign up");
    let err = cdp
        .act(&app, heading, &Action::SetValue("x".into()))
        .await
        .expect_err("a heading has no value");
    assert!(err.message.contains("no value to set"), "{}", err.message);
}

#[tokio::test]
async fn scrolling_moves_the_page_and_boxes() {
    let server = pages();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("widgets.html")).await;
    let snap = capture(&cdp, &app).await;
    let root = snap.tree().node(uidelta_model::NodeId::ROOT);
    let done = cdp
        .act(&app, root, &Action::Scroll { dx: 0, dy: 3 })
        .await
        .expect("wheel on the page");
    assert!(
        done.method.starts_with("CDP Input wheel 0,3 at "),
        "{}",
        done.method
    );
    assert_ne!(settled_script(&cdp, &app, "window.scrollY", "0").await, "0");

    // Scrolling to an element brings it into the viewport.
    let bottom = find_text(&snap, "Bottom text");
    let done = cdp
        .act(&app, bottom, &Action::Scroll { dx: 0, dy: 0 })
        .await
        .expect("scroll into view");
    assert_eq!(done.method, "DOM.scrollIntoViewIfNeeded");
    let after = capture(&cdp, &app).await;
    let b = find_text(&after, "Bottom text").bounds.expect("bounds");
    let viewport = after
        .tree()
        .node(uidelta_model::NodeId::ROOT)
        .bounds
        .expect("viewport");
    assert!(b.y >= 0 && b.y + b.h <= viewport.h, "{b:?} in {viewport:?}");

    // The wheel over a scrolling box scrolls the box.
    let scroll_box = find(&after, Role::Landmark, "Scroll box");
    cdp.act(&app, scroll_box, &Action::Scroll { dx: 0, dy: 2 })
        .await
        .expect("wheel on the box");
    let top = "document.getElementById('box').scrollTop";
    assert_ne!(settled_script(&cdp, &app, top, "0").await, "0");
}

/// The script's result once it is no longer `from` (scrolling is smooth
/// and asynchronous), or `from` after 10 s.
async fn settled_script(
    cdp: &uidelta_cdp::Cdp,
    app: &uidelta_backend::App,
    script: &str,
    from: &str,
) -> String {
    let started = std::time::Instant::now();
    loop {
        let now = cdp.run_script(app, script).await.expect("script");
        if now != from || started.elapsed().as_secs() >= 10 {
            return now;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn elements_inside_an_iframe_are_clicked() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("iframe.html")).await;
    let snap = capture(&cdp, &app).await;
    cdp.act(
        &app,
        find(&snap, Role::PushButton, "Inner button"),
        &Action::Click,
    )
    .await
    .expect("click in the frame");
    until(&cdp, &app, "Inner button pressed", |s| {
        has_text(s, "Inner button pressed")
    })
    .await;
}

#[tokio::test]
async fn elements_inside_a_cross_site_iframe_are_clicked_and_typed_into() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("iframe.html?cross-site")).await;
    let before = until(&cdp, &app, "the cross-site frame's button", |s| {
        has(s, Role::PushButton, "Inner button")
    })
    .await;
    let button = find(&before, Role::PushButton, "Inner button");
    assert!(
        button.identity.as_deref().is_some_and(|i| i.contains("/n")),
        "not a cross-site element: {:?}",
        button.identity
    );
    let done = cdp
        .act(&app, button, &Action::Click)
        .await
        .expect("click in the cross-site frame");
    assert!(
        done.method.starts_with("CDP Input click at "),
        "{}",
        done.method
    );
    let clicked = until(&cdp, &app, "Inner button pressed", |s| {
        has_text(s, "Inner button pressed")
    })
    .await;
    let compared = uidelta_diff::compare(&before, &clicked, uidelta_diff::Filters::all());
    let text = uidelta_render::diff_text(&compared.diff, &uidelta_render::DiffOptions::default());
    assert!(
        text.contains("| name: \"\" -> \"Inner button pressed\""),
        "the diff lacks the status:\n{text}"
    );
    assert_eq!(compared.diff.counts().removed, 0, "{text}");

    let note = find(&clicked, Role::Entry, "Note");
    let done = cdp
        .act(&app, note, &Action::Type("hello".into()))
        .await
        .expect("typing in the cross-site frame");
    assert_eq!(done.method, "DOM.focus + Input.insertText");
    let typed = until(&cdp, &app, "the note typed", |s| {
        find(s, Role::Entry, "Note").value.as_deref() == Some("hello")
    })
    .await;
    let after_note = find(&typed, Role::Entry, "Note");
    assert!(
        after_note.states.contains(State::Focused),
        "{:?}",
        after_note.states
    );
    assert_eq!(after_note.identity, note.identity);
    let compared = uidelta_diff::compare(&clicked, &typed, uidelta_diff::Filters::all());
    let text = uidelta_render::diff_text(&compared.diff, &uidelta_render::DiffOptions::default());
    assert!(
        text.contains("entry \"Note\"") && text.contains("\"hello\""),
        "the diff lacks the typed value:\n{text}"
    );
    // A key goes to the frame's focused field too.
    cdp.act(&app, after_note, &Action::Key("End".into()))
        .await
        .expect("a key in the cross-site frame");
    let set = cdp
        .act(&app, after_note, &Action::SetValue("set".into()))
        .await
        .expect("set value in the cross-site frame");
    assert!(
        set.method.starts_with("Runtime.callFunctionOn"),
        "{}",
        set.method
    );
    until(&cdp, &app, "the note set", |s| {
        find(s, Role::Entry, "Note").value.as_deref() == Some("set")
    })
    .await;
}

#[tokio::test]
async fn stale_and_foreign_nodes_are_clear_errors() {
    let server = fixtures();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("form.html")).await;
    let snap = capture(&cdp, &app).await;
    let mut stranger = find(&snap, Role::PushButton, "Create account").clone();
    stranger.identity = Some("n987654".into());
    let err = cdp
        .act(&app, &stranger, &Action::Click)
        .await
        .expect_err("no such node");
    assert_eq!(err.kind, ErrorKind::NotFound, "{}", err.message);
    // An element of a cross-site frame that is not there (any more).
    stranger.identity = Some("0123456789ABCDEF0123456789ABCDEF/n5".into());
    let err = cdp
        .act(&app, &stranger, &Action::Click)
        .await
        .expect_err("no such frame");
    assert_eq!(err.kind, ErrorKind::NotFound, "{}", err.message);
    assert!(err.message.contains("cross-site frame"), "{}", err.message);
    stranger.identity = None;
    let err = cdp
        .act(&app, &stranger, &Action::Click)
        .await
        .expect_err("no identity");
    assert_eq!(err.kind, ErrorKind::Unsupported, "{}", err.message);
    assert!(err.message.contains("live capture"), "{}", err.message);
}

/// With a policy, dialogs are answered as they open and kept for the
/// caller: the page never blocks.
#[tokio::test]
async fn a_policy_answers_javascript_dialogs_as_they_open() {
    let server = pages();
    let cdp = browser().await;
    cdp.set_dialog_policy(uidelta_cdp::DialogPolicy::Dismiss);
    let app = open(&cdp, &server.url("widgets.html")).await;
    let snap = capture(&cdp, &app).await;
    cdp.act(&app, find(&snap, Role::PushButton, "Alert"), &Action::Click)
        .await
        .expect("click");
    until(&cdp, &app, "After alert", |s| has_text(s, "After alert")).await;
    cdp.act(
        &app,
        find(&snap, Role::PushButton, "Confirm"),
        &Action::Click,
    )
    .await
    .expect("click");
    until(&cdp, &app, "Not confirmed", |s| {
        has_text(s, "Not confirmed")
    })
    .await;
    let answered: Vec<String> = cdp
        .take_answered_dialogs()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        answered,
        [
            "the page's JavaScript alert \"Careful\" was closed",
            "the page's JavaScript confirm \"Sure?\" was dismissed"
        ]
    );
    assert!(cdp.take_answered_dialogs().is_empty());
}

/// By default a dialog is held open: the click that opened it is done, a
/// capture shows the page as last read with the dialog at its end, a
/// click elsewhere is refused, and the dialog's OK answers it.
#[tokio::test]
async fn a_javascript_dialog_is_held_open_and_answered_through_its_button() {
    let server = pages();
    let cdp = browser().await;
    let app = open(&cdp, &server.url("widgets.html")).await;
    let snap = capture(&cdp, &app).await;
    let done = cdp
        .act(
            &app,
            find(&snap, Role::PushButton, "Confirm"),
            &Action::Click,
        )
        .await
        .expect("click");
    assert!(
        done.method
            .ends_with("the page opened its JavaScript confirm \"Sure?\""),
        "{}",
        done.method
    );
    let held = capture(&cdp, &app).await;
    assert_eq!(held.node_count(), snap.node_count() + 3);
    let dialog = find(&held, Role::Dialog, "Sure?");
    assert!(dialog.states.contains(uidelta_model::State::Modal));
    let refused = cdp
        .act(&app, find(&snap, Role::PushButton, "Alert"), &Action::Click)
        .await
        .expect_err("a click behind the dialog");
    assert!(
        refused
            .message
            .contains("the page waits for the answer to its JavaScript confirm \"Sure?\""),
        "{}",
        refused.message
    );
    let script = cdp
        .run_script(&app, "1 + 1")
        .await
        .expect_err("a script behind the dialog");
    assert!(
        script.message.contains("answer it first"),
        "{}",
        script.message
    );
    cdp.act(&app, find(&held, Role::PushButton, "OK"), &Action::Click)
        .await
        .expect("OK");
    until(&cdp, &app, "Confirmed", |s| has_text(s, "Confirmed")).await;
    let answered = capture(&cdp, &app).await;
    assert!(
        answered
            .tree()
            .nodes()
            .iter()
            .all(|n| n.role != Role::Dialog),
        "the dialog is still there"
    );
    let stale = cdp
        .act(
            &app,
            find(&held, Role::PushButton, "Cancel"),
            &Action::Click,
        )
        .await
        .expect_err("a button of the answered dialog");
    assert_eq!(stale.kind, ErrorKind::NotFound, "{}", stale.message);
}

/// ctrl+A in a field of a frame, of the page's origin or of another site
/// (its own process): the field says the text selected in it, as one of
/// the page's does.
#[tokio::test]
async fn the_text_selected_in_a_field_of_a_frame_is_said() {
    let server = fixtures();
    let cdp = browser().await;
    for page in ["iframe.html", "iframe.html?cross-site"] {
        let app = open(&cdp, &server.url(page)).await;
        let before = until(&cdp, &app, "the frame's field", |s| {
            has(s, Role::Entry, "Note")
        })
        .await;
        let note = find(&before, Role::Entry, "Note");
        cdp.act(&app, note, &Action::Type("hello".into()))
            .await
            .expect("typing in the frame");
        let typed = until(&cdp, &app, "the note typed", |s| {
            find(s, Role::Entry, "Note").value.as_deref() == Some("hello")
        })
        .await;
        let note = find(&typed, Role::Entry, "Note");
        assert_eq!(note.attribute(uidelta_model::SELECTION), None, "{page}");
        cdp.act(&app, note, &Action::Key("ctrl+a".into()))
            .await
            .expect("ctrl+a in the frame");
        let selected = until(&cdp, &app, "the note all selected", |s| {
            find(s, Role::Entry, "Note").attribute(uidelta_model::SELECTION) == Some("hello")
        })
        .await;
        assert!(
            find(&selected, Role::Entry, "Note")
                .states
                .contains(State::Focused),
            "{page}"
        );
    }
}
