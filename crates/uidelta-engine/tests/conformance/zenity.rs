//! zenity's dialogs (GTK 3), each answered as an agent would: a form filled
//! in and sent, a list's row picked, a question declined, a login, a scale
//! set, a colour chosen in the editor. The answer to the
//! last step says zenity exited; what it printed, and its exit status, are
//! what the agent asked for.

use std::io::Read;
use std::time::{Duration, Instant};

use uidelta_backend::Action;
use uidelta_engine::ActOptions;

use crate::common::{ref_of, session};
use crate::steps::{start, Started};

/// What zenity printed, once it has exited.
fn printed(run: &mut Started) -> String {
    let mut out = String::new();
    if let Some(mut pipe) = run.app.take_stdout() {
        pipe.read_to_string(&mut out).expect("zenity's output");
    }
    out
}

/// zenity's exit code, once it has exited (within a minute).
fn exit_code(run: &mut Started) -> Option<i32> {
    let until = Instant::now() + Duration::from_secs(60);
    while run.app.is_running() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    run.app.exit_status().and_then(|s| s.code())
}

/// A form of two entries and a combo box: its fields are named after the
/// labels before them (GTK 3 grid, no mnemonic), typed into, a choice set,
/// OK sends the values.
#[test]
fn zenity_form_is_filled_in_and_sent() {
    let mut run = start(
        "zenity",
        &[
            "--forms",
            "--title",
            "Visitor",
            "--text",
            "Who are you?",
            "--add-entry",
            "Name",
            "--add-entry",
            "City",
            "--add-combo",
            "Size",
            "--combo-values",
            "Small|Large",
        ],
        "zenity",
        "zenity",
        &[],
        true,
    );
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        let (_, first) = s.observe("zenity").await.expect("observe zenity");
        r.check_diff(
            "first look",
            &first,
            &[
                "# diff: +1 added",
                "+ [#] dialog \"Visitor\"",
                "    [#] panel \"Who are you?\"",
                "      [#] label \"Name\"",
                "      [#] text \"Name\" (focused)",
                "      [#] label \"City\"",
                "      [#] text \"City\"",
                "      [#] label \"Size\"",
                "      [#] combo box \"Size\"",
                "    [#] push button \"Cancel\"",
                "    [#] push button \"OK\"",
                "  ... 3 more nodes under [#] (all hidden)",
            ],
        );
        let name = ref_of(&s, "role:text && name:Name");
        let a = s
            .act(&name, &Action::Type("Ada".into()), &opts)
            .await
            .expect("type the name");
        r.check(
            "name",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] text \"Name\" in [#] panel \"Who are you?\" | value: none -> \"Ada\"",
            ],
        );
        // Clicking a field is for the focus: the answer says where it went.
        let city = ref_of(&s, "role:text && name:City");
        let a = s
            .act(&city, &Action::Click, &opts)
            .await
            .expect("click City");
        r.check(
            "click city",
            &a,
            &["# diff: focus [#] text \"Name\" -> [#] text \"City\""],
        );
        let a = s
            .act(&city, &Action::Type("London".into()), &opts)
            .await
            .expect("type the city");
        r.check(
            "city",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] text \"City\" in [#] panel \"Who are you?\" | value: none -> \"London\"",
            ],
        );
        // The choice is the combo box's value; its name stays its label's.
        let size = ref_of(&s, "role:combo box && name:Size");
        let a = s
            .act(&size, &Action::SetValue("Large".into()), &opts)
            .await
            .expect("choose Large");
        r.check(
            "size",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] combo box \"Size\" in [#] panel \"Who are you?\" | value: none -> \"Large\"",
            ],
        );
        let ok = ref_of(&s, "role:push button && name:OK");
        let a = s.act(&ok, &Action::Click, &opts).await.expect("click OK");
        r.check("OK", &a, &["# zenity (pid $PID) exited"]);
    });
    assert_eq!(printed(&mut run), "Ada|London|Large\n");
    assert_eq!(exit_code(&mut run), Some(0));
}

/// A list of two columns: a row selected by a selector on its first cell,
/// OK prints it.
#[test]
fn zenity_list_row_is_selected_and_chosen() {
    let mut run = start(
        "zenity",
        &[
            "--list", "--title", "Fruit", "--column", "Name", "--column", "Colour", "Apple", "red",
            "Banana", "yellow", "Cherry", "dark red",
        ],
        "zenity",
        "zenity",
        &[],
        true,
    );
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        let (_, first) = s.observe("zenity").await.expect("observe zenity");
        r.check_diff(
            "first look",
            &first,
            &[
                "# diff: +1 added",
                "+ [#] dialog \"Fruit\"",
                "    [#] label \"Select items from the list below.\"",
                "    [#] scroll pane",
                "      [#] table (focused)",
                "        [#] table column header \"Name\"",
                "        [#] table column header \"Colour\"",
                "        [#] table cell \"Apple\"",
                "        [#] table cell \"red\"",
                "        [#] table cell \"Banana\"",
                "        [#] table cell \"yellow\"",
                "        [#] table cell \"Cherry\"",
                "        [#] table cell \"dark red\"",
                "    [#] push button \"Cancel\"",
                "    [#] push button \"OK\"",
            ],
        );
        let banana = ref_of(&s, "role:table cell && name:Banana");
        let a = s
            .act(&banana, &Action::SetSelected(true), &opts)
            .await
            .expect("select Banana");
        r.check(
            "select",
            &a,
            &[
                "# diff: ~2 modified",
                "~ [#] table cell \"Banana\" in [#] dialog \"Fruit\" | selected: false -> true (same on [#] \"yellow\")",
            ],
        );
        let ok = ref_of(&s, "role:push button && name:OK");
        let a = s.act(&ok, &Action::Click, &opts).await.expect("click OK");
        r.check("OK", &a, &["# zenity (pid $PID) exited"]);
    });
    assert_eq!(printed(&mut run), "Banana\n");
    assert_eq!(exit_code(&mut run), Some(0));
}

/// A question answered No: zenity exits with status 1 and prints nothing.
#[test]
fn zenity_question_is_declined() {
    let mut run = start(
        "zenity",
        &["--question", "--text", "Delete the draft?"],
        "zenity",
        "zenity",
        &[],
        true,
    );
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        let (_, first) = s.observe("zenity").await.expect("observe zenity");
        r.check_diff(
            "first look",
            &first,
            &[
                "# diff: +1 added",
                "+ [#] dialog \"Question\"",
                "    [#] icon \"Question\"",
                "    [#] label \"Delete the draft?\"",
                "    [#] push button \"No\"",
                "    [#] push button \"Yes\" (focused)",
            ],
        );
        let no = ref_of(&s, "role:push button && name:No");
        let a = s.act(&no, &Action::Click, &opts).await.expect("click No");
        r.check("No", &a, &["# zenity (pid $PID) exited"]);
    });
    assert_eq!(printed(&mut run), "");
    assert_eq!(exit_code(&mut run), Some(1));
}

/// The first look's text and its lines, the focus left aside: without a
/// window manager, whether X gave a new dialog the keyboard when it is
/// first looked at depends on where the pointer was.
fn focus_aside(r: &crate::steps::Reader, d: &uidelta_diff::Diff) -> (String, Vec<String>) {
    let text = uidelta_render::diff_text(d, &uidelta_render::DiffOptions::default());
    let lines = r.lines(&text.replace(" (focused)", ""));
    (text, lines)
}

/// Asserts that the first look reads `expected`, the focus left aside
/// (see [`focus_aside`]).
fn check_focus_aside(
    r: &crate::steps::Reader,
    step: &str,
    d: &uidelta_diff::Diff,
    expected: &[&str],
) {
    let (text, got) = focus_aside(r, d);
    assert_eq!(got, expected, "{step}: the answer reads:\n{text}");
}

/// Clicks the push button named `button`, which answers the dialog: the
/// answer says zenity exited.
async fn answer_with(
    s: &mut uidelta_engine::Session<uidelta_linux::Linux>,
    r: &crate::steps::Reader,
    button: &str,
) {
    let target = ref_of(s, &format!("role:push button && name:{button}"));
    let a = s
        .act(&target, &Action::Click, &ActOptions::default())
        .await
        .unwrap_or_else(|e| panic!("click {button}: {e}"));
    r.check(button, &a, &["# zenity (pid $PID) exited"]);
}

/// A login: its two fields are in a box beside the box of their labels,
/// and are named after them; the password is typed and never shown.
#[test]
fn zenity_password_dialog_names_its_fields_and_hides_the_password() {
    let mut run = start(
        "zenity",
        &["--password", "--username", "--title", "Log in"],
        "zenity",
        "zenity",
        &[],
        true,
    );
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        let (_, first) = s.observe("zenity").await.expect("observe zenity");
        check_focus_aside(
            &r,
            "first look",
            &first,
            &[
                "# diff: +1 added",
                "+ [#] dialog \"Log in\"",
                "    [#] icon",
                "    [#] label \"Type your username and password\"",
                "    [#] label \"Username:\"",
                "    [#] label \"Password:\"",
                "    [#] text \"Username:\"",
                "    [#] password text \"Password:\"",
                "    [#] push button \"Cancel\"",
                "    [#] push button \"OK\"",
            ],
        );
        let user = ref_of(&s, "role:text && name:Username:");
        let a = s
            .act(&user, &Action::Type("ada".into()), &opts)
            .await
            .expect("type the user name");
        r.check(
            "user name",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] text \"Username:\" in [#] dialog \"Log in\" | value: none -> \"ada\"",
            ],
        );
        let password = ref_of(&s, "role:password text && name:Password:");
        let a = s
            .act(&password, &Action::Type("s3cret".into()), &opts)
            .await
            .expect("type the password");
        r.check(
            "password",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] password text \"Password:\" in [#] dialog \"Log in\" | value: none -> \"••••••\"",
            ],
        );
        answer_with(&mut s, &r, "OK").await;
    });
    assert_eq!(printed(&mut run), "ada|s3cret\n");
    assert_eq!(exit_code(&mut run), Some(0));
}

/// A scale: the slider is named after the label above it, and a new value
/// is one transition (GTK 3 gives the slider its value as description
/// too).
#[test]
fn zenity_scale_is_named_after_its_label_and_set() {
    let mut run = start(
        "zenity",
        &["--scale", "--text", "Volume", "--value", "30"],
        "zenity",
        "zenity",
        &[],
        true,
    );
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        let (_, first) = s.observe("zenity").await.expect("observe zenity");
        check_focus_aside(
            &r,
            "first look",
            &first,
            &[
                "# diff: +1 added",
                "+ [#] dialog \"Adjust the scale value\"",
                "    [#] label \"Volume\"",
                "    [#] slider \"Volume\" = \"30\"",
                "    [#] push button \"Cancel\"",
                "    [#] push button \"OK\"",
            ],
        );
        let slider = ref_of(&s, "role:slider && name:Volume");
        let a = s
            .act(&slider, &Action::SetValue("55".into()), &opts)
            .await
            .expect("set the volume");
        let step = "~ [#] slider \"Volume\" in [#] dialog \"Adjust the scale value\" | value, description:";
        r.check(
            "set 55",
            &a,
            &["# diff: ~1 modified", &format!("{step} \"30\" -> \"55\"")],
        );
        // A key goes to the window with the keyboard: the dialog is made
        // active first when it is not (no window manager gave it the
        // keyboard).
        let a = s.key("zenity", "Right", &opts).await.expect("key Right");
        let moved = format!("{step} \"55\" -> \"56\"");
        r.check_one_of(
            "one step right",
            &a,
            &[
                &["# diff: ~1 modified", &moved],
                &[
                    "# diff: ~2 modified · focus none -> [#] slider \"Volume\"",
                    "~ [#] dialog \"Adjust the scale value\" | active: false -> true",
                    &moved,
                ],
            ],
        );
        answer_with(&mut s, &r, "OK").await;
    });
    assert_eq!(printed(&mut run), "56\n");
    assert_eq!(exit_code(&mut run), Some(0));
}

/// GTK 3's colour chooser: its palette, then its editor; each keeps the
/// other in boxes it hid, which are not in the tree. A colour typed into
/// the editor is the one chosen.
#[test]
fn zenity_colour_chooser_shows_its_palette_or_its_editor() {
    let mut run = start(
        "zenity",
        &["--color-selection", "--show-palette"],
        "zenity",
        "zenity",
        &[],
        true,
    );
    let r = run.reader();
    crate::steps::run_task(&run.rt, async {
        let mut s = session(&run.desktop).await;
        let opts = ActOptions::default();
        let (_, first) = s.observe("zenity").await.expect("observe zenity");
        let (text, got) = focus_aside(&r, &first);
        // The 45 swatches of the palette (white chosen), the button for a
        // custom colour and the dialog's buttons; nothing of the editor.
        assert_eq!(got.len(), 51, "{text}");
        assert_eq!(got[2], "    [#] radio button \"Black\"", "{text}");
        assert_eq!(
            got[11], "    [#] radio button \"White\" (checked)",
            "{text}"
        );
        assert_eq!(
            got[46..],
            [
                "    [#] radio button \"Very Light Blue\"",
                "    [#] label \"Custom\"",
                "    [#] push button \"Custom color\"",
                "    [#] push button \"Cancel\"",
                "    [#] push button \"Select\"",
            ],
            "{text}"
        );
        assert!(!text.contains("Color Name"), "{text}");
        let custom = ref_of(&s, "role:push button && name:\"Custom color\"");
        let a = s
            .act(&custom, &Action::Click, &opts)
            .await
            .expect("click Custom color");
        // The editor's colour plane, sliders and field come; the palette
        // goes, and the Custom color button, hidden, with it, but for one
        // swatch, which the editor takes over as its swatch of the colour
        // chosen. The click makes the dialog active when no window manager
        // did.
        let editor = [
            "+ [#] color chooser \"Color Plane\"",
            "+ [#] color chooser \"Alpha\" = \"1\"",
            "+ [#] color chooser \"Hue\" = \"0\"",
            "+ [#] text \"Color Name\" = \"#BF4040\"",
            "- 46 elements went away together (a page or pane hidden as a whole): [#] radio button \"Dark Gray 4\", [#] radio button \"Dark Gray 3\", [#] radio button \"Dark Gray 2\", ...",
        ];
        let taken_over = "~ [#] radio button | name: \"Black\" -> \"\" | focusable: true -> false";
        let active = "~ [#] dialog | active: false -> true";
        let with = |head: &'static str, active: Option<&'static str>| -> Vec<&'static str> {
            let mut lines = vec![head];
            lines.extend(editor);
            lines.extend(active);
            lines.push(taken_over);
            lines
        };
        r.check_one_of(
            "editor",
            &a,
            &[
                &with("# diff: +4 added, -46 removed, ~2 modified", Some(active)),
                &with("# diff: +4 added, -46 removed, ~1 modified", None),
                // A window manager gave the dialog the keyboard, and its
                // swatch of the colour chosen the focus, which went with
                // the palette.
                &with(
                    "wm: # diff: +4 added, -46 removed, ~1 modified · focus [#] radio button \"Very Light Blue\" (gone) -> none",
                    None,
                ),
            ],
        );
        // The field's colour replaced (typing would go at its end), then
        // taken with Return.
        let field = ref_of(&s, "role:text && name:\"Color Name\"");
        let a = s
            .act(&field, &Action::SetValue("#336699".into()), &opts)
            .await
            .expect("give a colour");
        r.check(
            "a colour",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] text \"Color Name\" | value: \"#BF4040\" -> \"#336699\"",
            ],
        );
        let a = s
            .act(&field, &Action::Key("Return".into()), &opts)
            .await
            .expect("Return in the colour's field");
        r.check(
            "the colour taken",
            &a,
            &[
                "# diff: ~1 modified",
                "~ [#] color chooser \"Hue\" | value: \"0\" -> \"0.583333333\"",
            ],
        );
        answer_with(&mut s, &r, "Select").await;
    });
    assert_eq!(printed(&mut run), "rgb(51,102,153)\n");
    assert_eq!(exit_code(&mut run), Some(0));
}
