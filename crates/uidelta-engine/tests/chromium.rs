//! The engine on Chromium as a desktop application, through its AT-SPI
//! tree (`--force-renderer-accessibility`), as a desktop agent meets it.
//! Chromium marks the documents of its hidden pop-up windows `focused` at
//! all times, yet the focus an action reports must be the one in the
//! browser window. A tab's name must leave out the memory readout that
//! Chromium appends to it and updates every few seconds. Its fields take
//! no text accessibly, yet setting a value must replace their text; its
//! `<select>` offers no Selection, yet an option must be chosen by name.
//! Its tree must leave out what says nothing: placeholders, empty
//! announcement regions, text that repeats a heading or makes a label,
//! and the attributes that say how an element is laid out (a page that
//! restyles itself changes them).
//! Its texts must leave out the characters that stand for embedded
//! children (AT-SPI's U+FFFC), which the children say already.

mod common;

use std::time::Duration;

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, Session};
use uidelta_linux::Linux;
use uidelta_testkit::web::fixtures_dir;

use common::{ref_of, text};

const CHROMIUM: &str = "chromium";

/// The `<select>` of controls.html.
const COLOUR: &str = "role:combo box && name:Colour";

/// Runs `test` on Chromium showing the page `page` of fixtures/web, once
/// each of the selectors `ready` matches one element in its tree.
fn on_page(page: &str, ready: &[&str], test: impl AsyncFnOnce(&mut Session<Linux>)) {
    on_file(&fixtures_dir().join(page), ready, test);
}

/// [`on_page`] with the page at `path`.
fn on_file(path: &std::path::Path, ready: &[&str], test: impl AsyncFnOnce(&mut Session<Linux>)) {
    let url = format!("file://{}", path.display());
    // A fresh profile, removed at the end.
    let profile = new_profile_dir();
    let user_data = format!("--user-data-dir={}", profile.display());
    let args = [
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--password-store=basic",
        "--disable-component-update",
        "--disable-sync",
        user_data.as_str(),
        "--force-renderer-accessibility",
        url.as_str(),
    ];
    let (desktop, rt) = common::desktop_with(CHROMIUM, &args, "Chromium", "chromium");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        let mut missing = Vec::new();
        for _ in 0..100 {
            s.observe("Chromium").await.expect("observe");
            missing = ready
                .iter()
                .filter(|r| s.find(&r.parse().expect("selector")).len() != 1)
                .collect();
            if missing.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert!(
            missing.is_empty(),
            "{missing:?} never showed in Chromium's tree"
        );
        test(&mut s).await;
    });
    drop(desktop);
    let _ = std::fs::remove_dir_all(&profile);
}

/// A path for a new Chromium profile, unique in this run.
fn new_profile_dir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    std::env::temp_dir().join(format!(
        "uidelta-chromium-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

#[test]
fn a_chromium_page_reports_where_the_focus_went_and_takes_values() {
    let ready = [
        "role:entry && name:Name",
        "role:entry && name:Email",
        // The tab is named after its page alone: the memory readout
        // Chromium appends (` - Memory usage - 22.6 MB`) is noise.
        "role:page tab && name:\"Sign up\"",
    ];
    on_page("form.html", &ready, async |s| {
        let name = ref_of(s, "role:entry && name:Name");
        let email = ref_of(s, "role:entry && name:Email");
        let opts = ActOptions::default();

        // Not in the tree: Chromium's placeholders for page actions
        // (nameless buttons that report no state), its empty announcement
        // regions, and the text run that repeats a heading.
        let found = |s: &Session<Linux>, selector: &str| {
            s.find(&selector.parse().expect("selector"))
                .into_iter()
                .map(|(scope, node)| s.known_apps()[scope].view.tree().node(node).clone())
                .collect::<Vec<_>>()
        };
        let stateless = found(s, "role:push button")
            .into_iter()
            .filter(|n| n.states.has_none())
            .count();
        assert_eq!(stateless, 0);
        assert_eq!(found(s, "role:notification").len(), 0);
        assert_eq!(found(s, "role:static && name:\"Sign up\"").len(), 0);
        assert_eq!(found(s, "role:heading && name:\"Sign up\"").len(), 1);
        // A `<label>` is one line, named after its text.
        assert_eq!(found(s, "role:label && name:Email").len(), 1);
        assert_eq!(found(s, "role:static && name:Email").len(), 0);

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
            t.lines().next().is_some_and(|l| l.contains(&format!(
                "focus [{name}] entry \"Name\" -> [{email}] entry \"Email\""
            ))),
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
        let changed = |a: &uidelta_engine::ActionOutcome, to: &str| {
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

        // A value longer than one action types is refused before a key
        // goes down: typed, it would hold the keyboard for minutes.
        let long = "x".repeat(uidelta_backend::MAX_TYPED_CHARS + 1);
        let err = s
            .act(&name, &value(&long), &opts)
            .await
            .expect_err("refused");
        let said = err.to_string();
        assert!(
            said.contains("the element takes its text only as keys, and the value has 100001 characters, more than the 100000 one action types; nothing was done"),
            "{said}"
        );
        assert!(
            matches!(&err, uidelta_engine::Error::Backend(b) if b.kind == uidelta_backend::ErrorKind::Unsupported),
            "{err:?}"
        );
        let (_, diff) = s.observe("Chromium").await.expect("observe");
        assert!(!diff.has_changes(), "{diff:?}");
    });
}

#[test]
fn a_chromium_select_takes_an_option_by_name() {
    let ready = [COLOUR, "role:menu item && name:Blue"];
    on_page("controls.html", &ready, async |s| {
        let opts = ActOptions::default();
        let option =
            |s: &Session<Linux>, name: &str| ref_of(s, &format!("role:menu item && name:{name}"));
        let (red, blue) = (option(s, "Red"), option(s, "Blue"));
        // Chromium's GetActions names no action; GetName does (`select`),
        // and the combo box offers no Selection: the option's action
        // chooses it, the popup staying closed.
        let a = s
            .act(COLOUR, &Action::SetValue("blue".into()), &opts)
            .await
            .expect("set the colour");
        assert_eq!(a.done.method, "Action.select");
        holds_selected(&a, &red, false);
        holds_selected(&a, &blue, true);
        assert!(!text(&a).contains("attr:hidden"), "{}", text(&a));
        let a = s
            .act(&red, &Action::SetSelected(true), &opts)
            .await
            .expect("select Red");
        assert_eq!(a.done.method, "Action.select");
        holds_selected(&a, &red, true);
        let missing = s
            .act(COLOUR, &Action::SetValue("Purple".into()), &opts)
            .await
            .expect_err("no such option");
        assert!(
            missing
                .to_string()
                .contains("its options: \"Red\", \"Green\", \"Blue\""),
            "{missing}"
        );
    });
}

/// An editable section of three paragraphs, and a button that adds one.
const NOTES: &str = r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Notes</title></head>
<body><main>
<h1>Notes</h1>
<div contenteditable="true" aria-label="Notes" id="notes"><p>First</p><p>Second</p><p>Third</p></div>
<button type="button" id="add">Add note</button>
</main>
<script>
  document.getElementById("add").addEventListener("click", () => {
    const p = document.createElement("p");
    p.textContent = "Fourth";
    document.getElementById("notes").append(p);
  });
</script>
</body></html>
"#;

#[test]
fn chromium_texts_leave_out_the_characters_that_stand_for_children() {
    let dir = new_profile_dir();
    std::fs::create_dir_all(&dir).expect("a directory for the page");
    let page = dir.join("notes.html");
    std::fs::write(&page, NOTES).expect("writing the page");
    let ready = ["role:push button && name:\"Add note\""];
    on_file(&page, &ready, async |s| {
        // AT-SPI's Text stands for each embedded child with U+FFFC: the
        // editable section's text is one per paragraph, which the
        // paragraphs in the tree say already.
        let found = |s: &Session<Linux>, selector: &str| {
            s.find(&selector.parse().expect("selector"))
                .into_iter()
                .map(|(scope, node)| s.known_apps()[scope].view.tree().node(node).clone())
                .collect::<Vec<_>>()
        };
        let with_objects: Vec<String> = found(s, "text~:\u{fffc} || role:section")
            .iter()
            .filter(|n| n.value.as_deref().is_some_and(|v| v.contains('\u{fffc}')))
            .map(|n| format!("{} {:?} = {:?}", n.role, n.name, n.value))
            .collect();
        assert_eq!(with_objects, Vec::<String>::new());
        // Nothing but them: no value at all.
        let sections = found(s, "role:section && name:Notes");
        let values: Vec<Option<String>> = sections.iter().map(|n| n.value.clone()).collect();
        assert_eq!(values, vec![None]);
        let notes = ref_of(s, "role:section && name:Notes");
        let a = s
            .act(
                "role:push button && name:\"Add note\"",
                &Action::Click,
                &ActOptions::default(),
            )
            .await
            .expect("click Add note");
        let t = text(&a);
        // A fourth paragraph, and no line about the section's text going
        // from three such characters to four.
        let added = format!("paragraph = \"Fourth\" in [{notes}] section \"Notes\"");
        assert!(
            t.lines()
                .any(|l| l.starts_with("+ [") && l.ends_with(&added)),
            "{t}"
        );
        assert!(!t.contains(&format!("~ [{notes}]")), "{t}");
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// A page that restyles itself: the button toggles its own class, the
/// page's, and the class of a paragraph whose box and alignment change
/// with it, and says so (`aria-pressed`) and in the paragraph's text.
const THEME: &str = r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Theme</title>
<style>
  body.dark { background: #222; color: #eee }
  .on { font-weight: bold }
  p.wide { display: flex; text-align: center; margin-left: 2em }
</style></head>
<body>
<h1>Theme</h1>
<button type="button" id="mode" class="toggle" aria-pressed="false">Dark mode</button>
<p id="note" class="note">Light theme</p>
<script>
  document.getElementById("mode").addEventListener("click", () => {
    const mode = document.getElementById("mode");
    const on = mode.getAttribute("aria-pressed") !== "true";
    mode.setAttribute("aria-pressed", String(on));
    mode.className = on ? "toggle on" : "toggle";
    document.body.className = on ? "dark" : "";
    const note = document.getElementById("note");
    note.className = on ? "note wide" : "note";
    note.textContent = on ? "Dark theme" : "Light theme";
  });
</script>
</body></html>
"#;

#[test]
fn a_chromium_page_that_restyles_itself_changes_only_what_it_says() {
    let dir = new_profile_dir();
    std::fs::create_dir_all(&dir).expect("a directory for the page");
    let page = dir.join("theme.html");
    std::fs::write(&page, THEME).expect("writing the page");
    let ready = ["name:\"Dark mode\"", "role:static && name:\"Light theme\""];
    on_file(&page, &ready, async |s| {
        // How an element is laid out and what made it (its tag, class,
        // box, alignment, where its name came from) is not in the tree.
        let (scope, node) = s.find(&"name:\"Dark mode\"".parse().expect("selector"))[0];
        let button = s.known_apps()[scope].view.tree().node(node).clone();
        let keys: Vec<&str> = button.attributes.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, Vec::<&str>::new(), "{button:?}");
        let mode = ref_of(s, "name:\"Dark mode\"");
        let light = ref_of(s, "role:static && name:\"Light theme\"");
        let doc = ref_of(s, "role:document web && name:Theme");
        let a = s
            .act(&mode, &Action::Click, &ActOptions::default())
            .await
            .expect("click Dark mode");
        // What it says changed, and nothing of its class, box or
        // alignment: the paragraph's text (a text run replaced) and the
        // button's state.
        let t = text(&a);
        let lines: Vec<&str> = t.lines().skip(1).collect();
        let within = format!("in [{doc}] document web \"Theme\"");
        assert_eq!(lines.len(), 3, "{t}");
        assert!(
            lines[0].starts_with("+ [e")
                && lines[0].ends_with(&format!("] static \"Dark theme\" {within}")),
            "{t}"
        );
        assert_eq!(
            lines[1..],
            [
                format!("- [{light}] static \"Light theme\" {within}"),
                format!("~ [{mode}] toggle button \"Dark mode\" {within} | pressed: false -> true"),
            ],
            "{t}"
        );
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// Asserts that the diff selects `option` (or deselects it): Chromium
/// shows the selected option of a closed `<select>`.
fn holds_selected(a: &uidelta_engine::ActionOutcome, option: &str, selected: bool) {
    let t = text(a);
    let change = format!("| selected, showing, visible: {} -> {selected}", !selected);
    assert!(
        t.lines()
            .any(|l| l.starts_with(&format!("~ [{option}] menu item ")) && l.ends_with(&change)),
        "{t}"
    );
}

#[test]
fn hovering_over_a_menu_button_shows_its_menu() {
    use common::{added_list, eight_links, menu_links, removes_menu};
    // shop.html's department menus show by style rules while the pointer
    // is in their item (`li:hover > ul`); the pointer is moved there
    // through the display, as a hand does.
    on_page(
        "shop.html?n=2",
        &["role:push button && name:Women"],
        async |s| {
            let opts = ActOptions::default();
            let hover = async |s: &mut Session<Linux>, target: &str| {
                let a = s
                    .act(target, &Action::Hover, &opts)
                    .await
                    .unwrap_or_else(|e| panic!("hovering over {target}: {e}"));
                assert!(
                    a.done.method.starts_with("XTest pointer moved to "),
                    "{}",
                    a.done.method
                );
                text(&a)
            };
            let t = hover(s, "role:push button && name:Women").await;
            assert_eq!(menu_links(&t, "Women"), eight_links("Women"), "{t}");
            let women = added_list(&t);
            let t = hover(s, "role:push button && name:Men").await;
            assert_eq!(menu_links(&t, "Men"), eight_links("Men"), "{t}");
            assert!(removes_menu(&t, &women), "{t}");
            let men = added_list(&t);
            // Over a link, Chromium shows where it goes at the bottom of
            // its window (an address longer than the bubble is elided by
            // Chromium itself, so only its start is sure).
            let t = hover(s, "role:link && name:\"Men 3\"").await;
            assert!(
                t.lines()
                    .any(|l| l.starts_with("+ [") && l.contains("] static \"file:///")),
                "{t}"
            );
            let t = hover(s, "name:\"Add 1\"").await;
            assert!(removes_menu(&t, &men), "{t}");
        },
    );
}
