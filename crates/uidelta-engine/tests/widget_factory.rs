//! The engine on the real gtk3-widget-factory: each action's diff names
//! exactly the elements that changed, with no bounds or id noise.

mod common;

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, ActionOutcome, DragEnd};

use common::{ref_of, text};

const FACTORY: &str = "gtk3-widget-factory";

/// The diff's lines without the header (whose settle time varies).
fn body(a: &ActionOutcome) -> Vec<String> {
    text(a).lines().skip(1).map(str::to_owned).collect()
}

fn header(a: &ActionOutcome) -> String {
    let t = text(a);
    let first = t.lines().next().unwrap_or_default();
    first
        .split(" · settled")
        .next()
        .unwrap_or_default()
        .to_owned()
}

fn no_noise(a: &ActionOutcome) {
    let t = text(a);
    assert!(
        !t.contains('@') && !t.contains("/org/a11y") && !t.contains("bounds"),
        "noise in:\n{t}"
    );
}

#[test]
fn widget_factory_actions_report_exactly_what_changed() {
    let (desktop, rt) = common::desktop_with(FACTORY, &[], FACTORY, "gtk-3-examples");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        s.observe(FACTORY).await.expect("observe");
        let opts = ActOptions::default();

        // A check button toggles: one line.
        let check =
            "role:check box && state:enabled && !state:checked && !state:indeterminate && nth:0";
        let r = ref_of(&s, check);
        let a = s.act(check, &Action::Click, &opts).await.expect("toggle");
        assert_eq!(header(&a), "# diff: ~1 modified", "{}", text(&a));
        assert_eq!(
            body(&a),
            [format!(
                "~ [{r}] check box \"checkbutton\" | checked: false -> true"
            )]
        );

        // A disabled check box ignores the click, and the answer says why.
        let disabled = "role:check box && !state:enabled && nth:0";
        let r = ref_of(&s, disabled);
        let a = s
            .act(disabled, &Action::Click, &opts)
            .await
            .expect("click a disabled check box");
        assert!(!a.diff.has_changes(), "{}", text(&a));
        // The factory animates all the time (a spinner, a pulsing bar): on
        // a loaded machine its process is at work when the wait ends, which
        // the note says first.
        let why = format!(
            "[{r}] check box \"checkbutton\" is disabled, and applications ignore \
             actions on disabled elements"
        );
        let note = a.note.clone().unwrap_or_default();
        assert!(
            note == why
                || note
                    == format!(
                        "the application was still busy at the settle cap (2000 ms), and \
                         nothing had changed yet: what the action started may still come \
                         (wait_for_change); {why}"
                    ),
            "{note}"
        );

        // Typing into an entry: one line with the new value.
        let entry =
            "role:text && state:editable && state:enabled && !state:hidden && value:\"\" && nth:0";
        let r = ref_of(&s, entry);
        let a = s
            .act(entry, &Action::Type("hello".into()), &opts)
            .await
            .expect("type");
        assert_eq!(header(&a), "# diff: ~1 modified", "{}", text(&a));
        assert_eq!(
            body(&a),
            [format!("~ [{r}] text | value: none -> \"hello\"")]
        );

        // Clicking a field gives it the focus (its accessible action,
        // `activate`, would press Enter in it), and the diff says so: that
        // is where the keys go next. (Typing gave the entry the focus, as
        // a person's click into it does: a spin button takes it, then the
        // entry again.)
        let spin = ref_of(&s, "role:spin button && state:enabled && !state:hidden && nth:0");
        for (field, role) in [(&spin, "spin button"), (&r, "text")] {
            let a = s
                .act(field, &Action::Click, &opts)
                .await
                .expect("click a field");
            assert_eq!(a.done.method, "Component.GrabFocus");
            assert!(
                header(&a).contains(&format!(" -> [{field}] {role}")),
                "{}",
                text(&a)
            );
            // GTK selects an entry's text (a spin button's figures too)
            // as it takes the focus: the next keys replace it, which the
            // answer says.
            let selected = match role {
                "text" => format!("~ [{r}] text | selected text: none -> \"hello\""),
                _ => format!("~ [{spin}] spin button \"label\" | selected text: none -> \"50\""),
            };
            assert_eq!(body(&a), [selected], "{}", text(&a));
        }
        let a = s.key(FACTORY, "x", &opts).await.expect("press x");
        assert_eq!(
            body(&a),
            [format!(
                "~ [{r}] text | value: \"hello\" -> \"x\""
            )],
            "{}",
            text(&a)
        );

        // Keys for an element that cannot take the focus are not sent: they
        // would land in the entry that has it.
        let value = |s: &uidelta_engine::Session<uidelta_linux::Linux>| {
            let hits = s.find(&r.parse().expect("the entry's ref"));
            let (scope, node) = hits[0];
            s.known_apps()[scope].node(node).value.clone()
        };
        let typed = value(&s);
        let err = s
            .act(disabled, &Action::Type("zzz".into()), &opts)
            .await
            .expect_err("typing into a disabled check box");
        assert!(
            err.to_string().ends_with(
                "the element is disabled, so the keys would go to whatever has the keyboard \
                 focus; none were sent (act on an element that takes the focus: an enabled, \
                 showing text field)"
            ),
            "{err}"
        );
        let err = s
            .act(disabled, &Action::Key("a".into()), &opts)
            .await
            .expect_err("a key on a disabled check box");
        assert!(err.to_string().contains("the element is disabled"), "{err}");
        s.observe(FACTORY).await.expect("observe again");
        assert_eq!(value(&s), typed);
        let still = "role:text && state:focused";
        assert_eq!(ref_of(&s, still), r);

        // Text typed where some is selected takes its place, as keys do (a
        // rename dialog selects the old name for what is typed to replace).
        let all = s.key(FACTORY, "ctrl+a", &opts).await.expect("select all");
        assert_eq!(
            body(&all),
            [format!("~ [{r}] text | selected text: none -> \"x\"")],
            "{}",
            text(&all)
        );
        let a = s
            .act(&r, &Action::Type("world".into()), &opts)
            .await
            .expect("type over the selection");
        assert_eq!(
            a.done.method,
            "EditableText.DeleteText of the selection, then InsertText"
        );
        assert_eq!(
            body(&a),
            [format!(
                "~ [{r}] text | value: \"x\" -> \"world\""
            )],
            "{}",
            text(&a)
        );

        // A combo box option is chosen: it is the combo box's value. (The
        // option sits in the combo box's hidden menu; selecting it there
        // would only highlight it.)
        let combo = ref_of(&s, "role:combo box && value:Left");
        let a = s
            .act(
                &format!("{combo} >> role:menu item && name:Right"),
                &Action::SetSelected(true),
                &opts,
            )
            .await
            .expect("choose an option");
        assert_eq!(a.done.method, "Selection.SelectChild");
        assert_eq!(header(&a), "# diff: ~1 modified", "{}", text(&a));
        assert_eq!(
            body(&a),
            [format!(
                "~ [{combo}] combo box | value: \"Left\" -> \"Right\""
            )]
        );

        // Setting a combo box's value chooses the option of that name; an
        // option it does not have is an error that lists those it has.
        let a = s
            .act(&combo, &Action::SetValue("middle".into()), &opts)
            .await
            .expect("set the combo box");
        assert_eq!(
            body(&a),
            [format!("~ [{combo}] combo box | value: \"Right\" -> \"Middle\"")]
        );
        let err = s
            .act(&combo, &Action::SetValue("Nowhere".into()), &opts)
            .await
            .expect_err("no such option");
        assert!(
            err.to_string().ends_with(
                "the combo box has no option \"Nowhere\"; its options: \"Left\", \"Middle\", \"Right\""
            ),
            "{err}"
        );

        // The gear menu opens.
        let menu = "role:toggle button && name:Menu";
        let r = ref_of(&s, menu);
        let a = s.act(menu, &Action::Click, &opts).await.expect("menu");
        no_noise(&a);
        assert!(
            body(&a).contains(&format!(
                "~ [{r}] toggle button \"Menu\" | checked: false -> true"
            )),
            "{}",
            text(&a)
        );

        // The About dialog opens as one subtree and closes as one line.
        let a = s
            .act("name:About Widget Factory", &Action::Click, &opts)
            .await
            .expect("about");
        no_noise(&a);
        let lines = body(&a);
        let opened = lines
            .iter()
            .find(|l| {
                l.starts_with("+ ")
                    && l.contains("dialog \"About GTK Widget Factory\" (modal) (opened)")
            })
            .unwrap_or_else(|| panic!("no dialog in:\n{}", text(&a)));
        let dialog_ref = opened
            .split(']')
            .next()
            .unwrap_or_default()
            .trim_start_matches("+ [")
            .to_owned();
        assert!(
            lines.iter().any(|l| l.contains("push button \"Close\"")),
            "{}",
            text(&a)
        );
        let a = s
            .act(
                "role:dialog >> role:push button && name:Close",
                &Action::Click,
                &opts,
            )
            .await
            .expect("close");
        no_noise(&a);
        assert!(
            body(&a).iter().any(|l| l.starts_with(&format!(
                "- [{dialog_ref}] dialog \"About GTK Widget Factory\" (closed)"
            ))),
            "{}",
            text(&a)
        );

        // Page 2: its radio button is checked, Page 1's is not.
        let (p1, p2) = (
            ref_of(&s, "role:radio button && name:Page 1"),
            ref_of(&s, "role:radio button && name:Page 2"),
        );
        let a = s
            .act("role:radio button && name:Page 2", &Action::Click, &opts)
            .await
            .expect("page 2");
        no_noise(&a);
        let lines = body(&a);
        assert!(
            lines.contains(&format!(
                "~ [{p2}] radio button \"Page 2\" | checked: false -> true"
            )),
            "{}",
            text(&a)
        );
        assert!(
            lines.contains(&format!(
                "~ [{p1}] radio button \"Page 1\" | checked: true -> false"
            )),
            "{}",
            text(&a)
        );

        // Page 2's spin button shows `N is a multiple of 3` and a Reset
        // button in a revealer when its value is one. 42 slides them open;
        // 7 slides them shut, and GTK hides them only when the slide ends,
        // some 280 ms later: the diff of that action has them, not the next
        // one's.
        let spin = ref_of(&s, "role:spin button && state:enabled && state:showing");
        let a = s
            .act(&spin, &Action::SetValue("42".into()), &opts)
            .await
            .expect("set the spin button to 42");
        let t = text(&a);
        assert!(t.contains("\"42 is a multiple of 3\""), "{t}");
        let note = ref_of(&s, "role:label && name:42 is a multiple of 3");
        let a = s
            .act(&spin, &Action::SetValue("7".into()), &opts)
            .await
            .expect("set the spin button to 7");
        no_noise(&a);
        let t = text(&a);
        assert!(
            t.contains(&format!("~ [{spin}] spin button | value: \"42\" -> \"7\"")),
            "{t}"
        );
        assert!(
            t.contains(&format!(
                "~ [{note}] label \"42 is a multiple of 3\" | showing: true -> false\n"
            )),
            "{t}"
        );
        assert!(
            t.contains("] push button \"Reset\" | showing: true -> false"),
            "{t}"
        );
        assert!(a.earlier.is_empty(), "nothing came before");
    });
}

/// A GTK 3 popover is drawn inside its window and takes the next click
/// anywhere else in the window to close itself. A push button outside an
/// open popover gets its accessible action, so the click does what was
/// asked; a push button inside the popover still gets the pointer.
#[test]
fn a_push_button_outside_an_open_popover_is_pressed_not_clicked_at() {
    let (desktop, rt) = common::desktop_with(FACTORY, &[], FACTORY, "gtk-3-examples");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        s.observe(FACTORY).await.expect("observe");
        let opts = ActOptions::default();
        s.act("role:radio button && name:Page 3", &Action::Click, &opts)
            .await
            .expect("page 3");

        // Page 3's `Open` toggle button opens a popover.
        let open = ref_of(&s, "role:toggle button && name:Open");
        let a = s
            .act(&open, &Action::Click, &opts)
            .await
            .expect("open the popover");
        assert!(
            body(&a).contains(&format!(
                "~ [{open}] toggle button \"Open\" | checked: false -> true"
            )),
            "{}",
            text(&a)
        );

        // `Lock`, outside it, is pressed: it becomes `Unlock` and locks the
        // toggle buttons, which closes the popover.
        let lock = ref_of(&s, "role:push button && name:Lock");
        let a = s.act(&lock, &Action::Click, &opts).await.expect("lock");
        assert_eq!(a.done.method, "Action.click", "{}", text(&a));
        let lines = body(&a);
        assert!(
            lines.contains(&format!(
                "~ [{lock}] push button | name: \"Lock\" -> \"Unlock\""
            )),
            "{}",
            text(&a)
        );
        assert!(
            lines.contains(&format!(
                "~ [{open}] toggle button \"Open\" | checked, enabled: true -> false"
            )),
            "{}",
            text(&a)
        );

        // With no popover open, the pointer presses a push button.
        let a = s.act(&lock, &Action::Click, &opts).await.expect("unlock");
        assert!(
            a.done.method.starts_with("XTest click at "),
            "{}",
            a.done.method
        );
        assert!(
            body(&a).contains(&format!(
                "~ [{lock}] push button | name: \"Unlock\" -> \"Lock\""
            )),
            "{}",
            text(&a)
        );
    });
}

#[test]
fn a_session_with_no_refs_left_stops_with_an_error() {
    let (desktop, rt) = common::desktop_with(FACTORY, &[], FACTORY, "gtk-3-examples");
    rt.block_on(async {
        let linux = uidelta_linux::Linux::connect(
            Some(desktop.session_bus_address()),
            Some(desktop.display()),
        )
        .await
        .expect("connect");
        // As resumed from a session file whose counter was edited.
        let saved = uidelta_engine::SavedSession {
            next: uidelta_diff::Ref(u32::MAX - 10),
            away: Vec::new(),
            apps: Vec::new(),
            gone: Vec::new(),
        };
        let (mut s, _) = uidelta_engine::Session::resume(
            std::sync::Arc::new(linux),
            uidelta_diff::Filters::all(),
            saved,
        )
        .await;
        let err = s
            .observe(FACTORY)
            .await
            .expect_err("no refs for the application's elements");
        let message = err.to_string();
        assert!(
            matches!(err, uidelta_engine::Error::RefsExhausted { left: 10, .. }),
            "{message}"
        );
        assert!(
            message.contains(
                "this session has handed out refs up to e4294967285, and 10 are left, fewer than"
            ) && message.contains("start a new session"),
            "{message}"
        );
        assert!(s.known_apps().is_empty());
    });
}

/// A session resumed with one application and the others saved in reserve
/// (as each command of the CLI resumes the one it acts on) takes one of
/// them up from its saved snapshot when it first observes it (an action
/// whose focus goes there): what changed since, under its old refs, not
/// its whole tree under new ones.
#[test]
fn an_application_held_in_reserve_is_taken_up_with_its_refs() {
    const DEMO: &str = "gtk3-demo";
    let (desktop, rt) = common::desktop_with(FACTORY, &[], FACTORY, "gtk-3-examples");
    std::mem::forget(desktop.launch(DEMO, &[]).expect("launch the demo"));
    desktop
        .wait_for_accessible_app(DEMO, std::time::Duration::from_secs(20))
        .expect("the demo on the accessibility bus");
    rt.block_on(async {
        let mut first = common::session(&desktop).await;
        first.observe(FACTORY).await.expect("observe the factory");
        first.observe(DEMO).await.expect("observe the demo");
        let frame = "app:gtk3-demo >> role:frame";
        let demo_frame = ref_of(&first, frame);
        let saved = first.save();
        drop(first);
        let (mine, others): (Vec<_>, Vec<_>) =
            saved.apps.into_iter().partition(|a| a.app.name == FACTORY);
        assert_eq!(others.len(), 1, "the demo saved");
        let linux = uidelta_linux::Linux::connect(
            Some(desktop.session_bus_address()),
            Some(desktop.display()),
        )
        .await
        .expect("connect");
        let (mut s, _) = uidelta_engine::Session::resume(
            std::sync::Arc::new(linux),
            uidelta_diff::Filters::all(),
            uidelta_engine::SavedSession {
                apps: mine,
                ..saved
            },
        )
        .await;
        s.hold_in_reserve(others);
        let (_, d) = s.observe(DEMO).await.expect("observe the demo again");
        assert!(
            !d.has_changes(),
            "{}",
            uidelta_render::diff_text(&d, &uidelta_render::DiffOptions::default())
        );
        assert_eq!(ref_of(&s, frame), demo_frame);
    });
}

/// A slider's knob dragged past either end of its trough reads the end's
/// value (its adjustment runs from 1 to 100): the pointer pressed on the
/// slider, moved there and released. The sliders that share its
/// adjustment follow, on the same line.
#[test]
fn dragging_a_slider_past_its_ends_sets_its_least_and_greatest_values() {
    let (desktop, rt) = common::desktop_with(FACTORY, &[], FACTORY, "gtk-3-examples");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        s.observe(FACTORY).await.expect("observe");
        let slider = "role:slider && state:enabled && state:horizontal && value:50 && nth:0";
        let r = ref_of(&s, slider);
        let bounds = {
            let hits = s.find(&slider.parse().expect("selector"));
            let (scope, node) = hits[0];
            s.known_apps()[scope].view.tree().node(node).bounds
        }
        .expect("the slider has bounds");
        let middle = bounds.y + bounds.h / 2;
        let opts = ActOptions::default();
        let right = DragEnd::Point(bounds.x + bounds.w + 20, middle);
        let a = s.drag(&r, &right, &opts).await.expect("drag right");
        assert!(
            a.done.method.starts_with("XTest drag from "),
            "{}",
            a.done.method
        );
        assert!(
            body(&a)
                .iter()
                .any(|l| l.starts_with(&format!("~ [{r}] slider | value: \"50\" -> \"100\""))),
            "{}",
            text(&a)
        );
        no_noise(&a);
        let left = DragEnd::Point(bounds.x - 20, middle);
        let a = s.drag(&r, &left, &opts).await.expect("drag left");
        assert!(
            body(&a)
                .iter()
                .any(|l| l.starts_with(&format!("~ [{r}] slider | value: \"100\" -> \"1\""))),
            "{}",
            text(&a)
        );

        // The pointer brought to a point, and refused off the screen.
        let a = s
            .click_at(FACTORY, (bounds.x, middle), &Action::Hover, &opts)
            .await
            .expect("the pointer to a point");
        assert_eq!(
            a.done.method,
            format!("XTest pointer moved to {},{middle}", bounds.x)
        );
        let off = s
            .click_at(FACTORY, (5000, middle), &Action::Hover, &opts)
            .await
            .map(|a| text(&a))
            .expect_err("a point off the screen");
        assert!(off.to_string().contains("off the screen"), "{off}");
    });
}
