//! The engine on real Qt 5 applications: the widget gallery and the
//! calculator of Qt's own examples. Qt exports its tree itself (no ATK),
//! answers a text read past the end with nothing, and makes the cells of
//! an item view anew, under new identities, whenever the view is disabled.
//! Diffs must still name exactly what changed.

mod common;

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, ActionOutcome, Session};
use uidelta_linux::Linux;
use uidelta_testkit::{qt5_example, QT5_EXAMPLES};

use common::{holds, ref_of, text};

/// A Qt 5 example program, as a path for the desktop to launch.
fn example(path: &str) -> String {
    qt5_example(path).to_string_lossy().into_owned()
}

/// The value of the one element `selector` matches now.
fn value_of(s: &Session<Linux>, selector: &str) -> Option<String> {
    let hits = s.find(&selector.parse().expect("selector"));
    assert_eq!(hits.len(), 1, "`{selector}` should match one element");
    let (scope, node) = hits[0];
    s.known_apps()[scope].view.tree().node(node).value.clone()
}

/// Asserts that the diff has nothing added, removed or transient.
fn only_modified(a: &ActionOutcome) {
    let t = text(a);
    assert!(
        !t.lines()
            .any(|l| l.starts_with("+ ") || l.starts_with("- ") || l.starts_with("! ")),
        "nothing added, removed or transient:\n{t}"
    );
}

/// The lines of a diff about `element` (that start with its ref).
fn lines_of(a: &ActionOutcome, element: &str) -> Vec<String> {
    let head = format!("[{element}] ");
    text(a)
        .lines()
        .filter(|l| l.get(2..).is_some_and(|rest| rest.starts_with(&head)))
        .map(str::to_owned)
        .collect()
}

#[test]
fn qt_gallery_changes_are_diffed_without_remade_cells() {
    let gallery = example("widgets/gallery/gallery");
    let (desktop, rt) = common::desktop_with(&gallery, &[], "gallery", QT5_EXAMPLES);
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        s.observe("gallery").await.expect("observe");
        let disable = ref_of(&s, "role:check box && name:Disable widgets");
        let buttons = ref_of(&s, "role:panel && name:Buttons");
        let first = ref_of(&s, "role:radio button && name:Radio button 1");
        let second = ref_of(&s, "role:radio button && name:Radio button 2");
        let spin = ref_of(&s, "role:spin button && value:50");
        let edit = ref_of(&s, "role:text && value~:Twinkle && state:showing");
        let header = ref_of(&s, "role:table column header && name:Name");
        // The whole text of the text edit, read within its length.
        let poem = value_of(&s, &edit).expect("the text edit's text");
        assert!(poem.starts_with("Twinkle, twinkle, little star,\n"), "{poem:?}");
        let opts = ActOptions::default();

        // Disabling the widgets remakes the tree view's header and cells:
        // they are the same elements, now disabled, with their refs.
        let a = s
            .act(&disable, &Action::Click, &opts)
            .await
            .expect("disable the widgets");
        let t = text(&a);
        assert!(t.starts_with("# diff: ~"), "{t}");
        only_modified(&a);
        let ticked = lines_of(&a, &disable);
        assert_eq!(ticked.len(), 1, "{t}");
        assert!(
            ticked[0].starts_with(&format!("~ [{disable}] check box \"Disable widgets\" in ["))
                && ticked[0].ends_with(" | checked: false -> true"),
            "{t}"
        );
        assert!(
            lines_of(&a, &buttons)
                .iter()
                .any(|l| l.ends_with("| enabled: true -> false (also 10 descendants)")),
            "{t}"
        );
        assert!(
            lines_of(&a, &header).iter().any(|l| l.starts_with(&format!(
                "~ [{header}] table column header \"Name\" in "
            )) && l.contains(" | enabled: true -> false (same on ")),
            "{t}"
        );
        assert_eq!(
            ref_of(&s, "role:table column header && name:Name && !state:enabled"),
            header
        );

        let a = s
            .act(&disable, &Action::Click, &opts)
            .await
            .expect("enable the widgets");
        only_modified(&a);
        assert_eq!(
            ref_of(&s, "role:table column header && name:Name && state:enabled"),
            header
        );

        let a = s
            .act(&second, &Action::Click, &opts)
            .await
            .expect("pick the second radio button");
        holds(
            &a,
            &format!(
                "~ [{first}] radio button \"Radio button 1\" in [{buttons}] panel \"Buttons\" | checked: true -> false"
            ),
        );
        holds(
            &a,
            &format!(
                "~ [{second}] radio button \"Radio button 2\" in [{buttons}] panel \"Buttons\" | checked: false -> true"
            ),
        );

        let a = s
            .act(&spin, &Action::SetValue("73".into()), &opts)
            .await
            .expect("set the spin button");
        let changed = lines_of(&a, &spin);
        assert_eq!(changed.len(), 1, "{}", text(&a));
        assert!(
            changed[0].ends_with(" | value: \"50\" -> \"73\""),
            "{}",
            text(&a)
        );

        // Qt's combo box keeps its items in the tree while its popup is
        // closed, and offers no selection: the popup is opened, then the
        // item clicked in it.
        let combo = ref_of(&s, "role:combo box && value:Fusion");
        let a = s
            .act(
                "role:list item && name:Windows",
                &Action::SetSelected(true),
                &opts,
            )
            .await
            .expect("choose the Windows style");
        assert!(
            a.done
                .method
                .starts_with("Action.Press on the combo box, then XTest click at "),
            "{}",
            a.done.method
        );
        let changed = lines_of(&a, &combo);
        assert_eq!(changed.len(), 1, "{}", text(&a));
        assert!(
            changed[0].ends_with(" | value: \"Fusion\" -> \"Windows\""),
            "{}",
            text(&a)
        );

        let a = s
            .act(&edit, &Action::Type(" world".into()), &opts)
            .await
            .expect("type into the text edit");
        assert_eq!(a.done.method, "EditableText.InsertText");
        let changed = lines_of(&a, &edit);
        assert_eq!(changed.len(), 1, "{}", text(&a));
        assert!(changed[0].contains(" | value: \""), "{}", text(&a));
        let now = value_of(&s, &edit).expect("the text edit's text");
        assert_eq!(now, format!("{poem} world"));

        // Qt gives a password field's length but not its text (the
        // gallery's holds `s3cRe7`): one bullet per character, and typing
        // into it is a change.
        let password = ref_of(&s, "role:password text");
        assert_eq!(value_of(&s, &password).as_deref(), Some("••••••"));
        let a = s
            .act(&password, &Action::Type("abc".into()), &opts)
            .await
            .expect("type into the password field");
        let changed = lines_of(&a, &password);
        assert!(
            changed.len() == 1 && changed[0].ends_with(" | value: \"••••••\" -> \"•••••••••\""),
            "{}",
            text(&a)
        );

        // Qt marks no tab selected but names the tab list after the
        // current tab: the tab named so is the selected one.
        let tree_view = ref_of(&s, "role:page tab && name:Tree View && state:selected");
        let table = ref_of(&s, "role:page tab && name:Table && !state:selected");
        let tabs = ref_of(&s, "role:page tab list");
        let a = s
            .act(&table, &Action::Click, &opts)
            .await
            .expect("show the Table page");
        let ends = |element: &str, end: &str| {
            let changed = lines_of(&a, element);
            assert!(
                changed.len() == 1 && changed[0].ends_with(end),
                "{}",
                text(&a)
            );
        };
        ends(&tabs, " | name: \"Tree View\" -> \"Table\"");
        ends(&tree_view, " | selected: true -> false");
        ends(&table, " | selected: false -> true");
        // The pages: Qt says both item views show, but the one not current
        // is nowhere (0,0, no size); each page is one line. Qt flips its
        // headers' `visible` with them: that is part of the same line, and
        // no header or cell has a line of its own.
        for (view, change) in [("tree", "true -> false"), ("table", "false -> true")] {
            let changed = lines_of(&a, &ref_of(&s, &format!("role:{view}")));
            assert!(
                changed.len() == 1
                    && changed[0].contains(&format!(" | showing, visible: {change} (also ")),
                "{}",
                text(&a)
            );
        }
        let t = text(&a);
        assert!(
            !t.contains(" table cell") && !t.contains(" column header") && !t.contains(" row header"),
            "{t}"
        );
    });
}

#[test]
fn qt_calculator_adds_with_pointer_clicks() {
    let calculator = example("widgets/widgets/calculator/calculator");
    let (desktop, rt) = common::desktop_with(&calculator, &[], "calculator", QT5_EXAMPLES);
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        s.observe("calculator").await.expect("observe");
        // Qt gives its top-level QWidget the role `filler`: it is the
        // application's window all the same, in the tree and in the list
        // of applications.
        ref_of(&s, "role:frame && name:Calculator");
        let apps = s.apps().await.expect("the applications");
        let windows: Vec<(String, String)> = apps
            .iter()
            .filter(|a| a.name == "calculator")
            .flat_map(|a| &a.windows)
            .map(|w| (w.role.clone(), w.title.clone()))
            .collect();
        assert_eq!(windows, [("frame".to_owned(), "Calculator".to_owned())]);
        let display = ref_of(&s, "role:text && state:read only");
        assert_eq!(value_of(&s, &display).as_deref(), Some("0"));
        let opts = ActOptions::default();
        let mut shown = Vec::new();
        for key in ["7", "+", "8", "="] {
            let button = ref_of(&s, &format!("role:push button && name:{key}"));
            let a = s
                .act(&button, &Action::Click, &opts)
                .await
                .unwrap_or_else(|e| panic!("click {key}: {e}"));
            // A push button is clicked with the pointer, as a person would.
            assert!(
                a.done.method.starts_with("XTest click at "),
                "{}",
                a.done.method
            );
            shown.push(value_of(&s, &display).unwrap_or_default());
            if key == "=" {
                let changed = lines_of(&a, &display);
                assert_eq!(changed.len(), 1, "{}", text(&a));
                // The main window is not named as where the display is.
                assert_eq!(
                    changed[0],
                    format!("~ [{display}] text | value: \"8\" -> \"15\""),
                    "{}",
                    text(&a)
                );
            }
        }
        assert_eq!(shown, ["7", "7", "8", "15"]);
    });
}

#[test]
fn qt_table_cells_are_clicked_with_the_pointer_and_edited() {
    let spinboxes = example("widgets/itemviews/spinboxdelegate/spinboxdelegate");
    let (desktop, rt) = common::desktop_with(&spinboxes, &[], "spinboxdelegate", QT5_EXAMPLES);
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        s.observe("spinboxdelegate").await.expect("observe");
        let opts = ActOptions::default();
        // The table is the application's window: Qt gives it AT-SPI's null
        // object for a parent, and the pointer still finds its way.
        let cell = ref_of(&s, "role:table cell && name:4 && nth:0");
        let a = s
            .act(&cell, &Action::Click, &opts)
            .await
            .expect("click the cell");
        assert!(
            a.done.method.starts_with("XTest click at "),
            "{}",
            a.done.method
        );
        assert_eq!(
            lines_of(&a, &cell),
            [format!(
                "~ [{cell}] table cell \"4\" | selected: false -> true"
            )],
            "{}",
            text(&a)
        );
        // A double click opens the cell's spin box; Up and Return set 5.
        s.act(&cell, &Action::DoubleClick, &opts)
            .await
            .expect("double-click the cell");
        s.key("spinboxdelegate", "Up", &opts).await.expect("Up");
        let a = s
            .key("spinboxdelegate", "Return", &opts)
            .await
            .expect("Return");
        holds(&a, &format!("~ [{cell}] table cell | name: \"4\" -> \"5\""));
    });
}
