//! The engine on real GTK 4 applications, gtk4-demo and
//! gtk4-widget-factory. GTK 4 exports its
//! accessible tree itself (no ATK bridge): its cache gives the application
//! root no children, and GTK 4.8 sets `sensitive` but not `enabled`, and
//! `showing` only on windows. The tree must still be whole, with the
//! states an agent reads, and actions must report what they changed.

mod common;

use std::time::Duration;

use uidelta_backend::Action;
use uidelta_engine::{ActOptions, Session};
use uidelta_linux::Linux;
use uidelta_testkit::{require_programs, Desktop};

use common::{holds, ref_of, text};

const DEMO: &str = "gtk4-demo";

fn count(s: &Session<Linux>, selector: &str) -> usize {
    s.find(&selector.parse().expect("selector")).len()
}

/// Observes the demo until its window is filled in (after the application
/// registers); the number of items of its list.
async fn observe_whole(s: &mut Session<Linux>) -> usize {
    let mut items = 0;
    for _ in 0..50 {
        s.observe(DEMO).await.expect("observe");
        items = count(s, "role:list item");
        if items > 50 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(items > 50, "the demo list has {items} items");
    items
}

#[test]
fn gtk4_demo_is_read_whole_and_its_actions_are_diffed() {
    let (desktop, rt) = common::desktop_with(DEMO, &[], DEMO, "gtk-4-examples");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        let items = observe_whole(&mut s).await;
        // Enabled, as GTK 3 would say; the Run button of the overview page
        // (nothing to run) is disabled. GTK 4.8 keeps the rows it holds in
        // reserve below the view visible, with no size: the rows in view
        // show, those do not.
        assert_eq!(count(&s, "role:list item && state:enabled"), items);
        let shown = count(&s, "role:list item && state:showing");
        assert!((10..=20).contains(&shown), "{shown} of {items} rows show");
        assert_eq!(count(&s, "role:frame && name:GTK Demo && state:showing"), 1);
        // Of the source notebook's pages (all visible to GTK 4.8), the
        // first shows; the others do not.
        assert_eq!(count(&s, "role:text && name:Info && state:showing"), 1);
        assert_eq!(count(&s, "role:text && state:showing && !name:Info"), 0);
        let opts = ActOptions::default();
        for (tab, shown, hidden) in [(1, "Source", "Info"), (0, "Info", "Source")] {
            let a = s
                .act(
                    &format!("role:page tab && nth:{tab}"),
                    &Action::SetSelected(true),
                    &opts,
                )
                .await
                .expect("switch the notebook's page");
            let pane = |name: &str| {
                let (scope, id) = s.find(
                    &format!("role:text && name:{name}")
                        .parse()
                        .expect("selector"),
                )[0];
                let latest = &s.known_apps()[scope];
                let pane = latest
                    .view
                    .tree()
                    .parent(id)
                    .expect("the text's scroll pane");
                latest.refs.get(pane).to_string()
            };
            holds(
                &a,
                &format!(
                    "~ [{}] scroll pane | showing: false -> true (also 1 descendant)",
                    pane(shown)
                ),
            );
            holds(
                &a,
                &format!(
                    "~ [{}] scroll pane | showing: true -> false (also 1 descendant)",
                    pane(hidden)
                ),
            );
            assert_eq!(
                count(&s, &format!("role:text && name:{shown} && state:showing")),
                1
            );
            assert_eq!(
                count(&s, &format!("role:text && name:{hidden} && state:showing")),
                0
            );
        }
        let run = ref_of(&s, "role:push button && name:Run && !state:enabled");
        let frame = ref_of(&s, "role:frame && name:GTK Demo");

        let a = s
            .act("role:panel && name:Assistant", &Action::Click, &opts)
            .await
            .expect("choose the Assistant demo");
        holds(
            &a,
            &format!("~ [{frame}] frame | name: \"GTK Demo\" -> \"Assistant\""),
        );
        holds(
            &a,
            &format!("~ [{run}] push button \"Run\" | enabled: false -> true"),
        );

        let a = s
            .act(&run, &Action::Click, &opts)
            .await
            .expect("run the demo");
        let t = text(&a);
        assert!(t.starts_with("# diff: +1 added"), "{t}");
        assert!(t.contains(" (modal) (opened)\n"), "{t}");
        let entry = ref_of(&s, "role:text && name~:fill out this entry");
        assert!(
            t.contains(&format!(
                "[{entry}] text \"You must fill out this entry to continue:\" (focused)\n"
            )),
            "{t}"
        );

        let next = ref_of(&s, "role:push button && name:Next");
        let a = s
            .act(&entry, &Action::Type("Ada".into()), &opts)
            .await
            .expect("type");
        assert_eq!(a.done.method, "EditableText.InsertText");
        let t = text(&a);
        assert!(t.starts_with("# diff: ~2 modified"), "{t}");
        // GTK 4.8 gives the Assistant's window the role `filler`; it is a
        // top-level window (a frame), not named as where its elements are,
        // as a GTK 3 one is not.
        holds(
            &a,
            &format!(
                "~ [{entry}] text \"You must fill out this entry to…\" | value: none -> \"Ada\""
            ),
        );
        holds(
            &a,
            &format!("~ [{next}] push button \"Next\" | enabled: false -> true"),
        );

        let a = s.key(DEMO, "Escape", &opts).await.expect("Escape");
        let t = text(&a);
        assert!(t.starts_with("# diff: -1 removed"), "{t}");
        assert!(t.contains(" (closed) (and 11 descendants)\n"), "{t}");
    });
}

/// GTK 4 reports places within its window, as if the window were at 0,0,
/// its content inside a border: a click goes where the element is on the
/// display, wherever the window is.
#[test]
fn a_gtk4_window_away_from_the_corner_is_clicked_where_its_elements_are() {
    let (desktop, rt) = common::desktop_with(DEMO, &[], DEMO, "gtk-4-examples");
    let x11 = uidelta_x11::X11::connect(desktop.display()).expect("X connection");
    let window = || {
        x11.top_windows()
            .expect("top-level windows")
            .into_iter()
            .find(|w| w.title == "GTK Demo" && w.viewable)
            .expect("the demo's window")
    };
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        observe_whole(&mut s).await;
        x11.move_window(window().id, 200, 150)
            .expect("move the window");
        for _ in 0..50 {
            if window().inner.0 == 200 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let (x, y, w, _) = window().inner;
        assert_eq!((x, y), (200, 150));
        s.observe(DEMO).await.expect("observe");
        let bounds = |selector: &str| {
            let (scope, id) = s.find(&selector.parse().expect("selector"))[0];
            s.known_apps()[scope].node(id).bounds.expect("bounds")
        };
        // GTK 4 reports its window at 0,0; the snapshot has the display's
        // place of its content, inside the window's border.
        let frame = bounds("role:frame && name:GTK Demo");
        let border = (i32::try_from(w).expect("width") - frame.w) / 2;
        assert!(border > 0, "a border around the content: {frame:?}");
        assert_eq!((frame.x, frame.y), (200 + border, 150 + border));
        // A screenshot of the window takes the display's place of it.
        let linux = Linux::connect(Some(desktop.session_bus_address()), Some(desktop.display()))
            .await
            .expect("connect");
        let info = linux.app(DEMO).await.expect("the demo on the bus");
        let shot = linux
            .window_bounds(&info, "GTK Demo")
            .await
            .expect("the window's bounds");
        assert_eq!(
            (shot.x, shot.y, shot.w),
            (200, 150, i32::try_from(w).expect("width"))
        );
        assert_click_lands_on_a_row(&mut s).await;
    });
}

/// A click on the demo's Assistant row goes where the row shows: the demo
/// shows the Assistant's page, and says so in its title.
async fn assert_click_lands_on_a_row(s: &mut Session<Linux>) {
    let bounds = |s: &Session<Linux>, selector: &str| {
        let (scope, id) = s.find(&selector.parse().expect("selector"))[0];
        s.known_apps()[scope].node(id).bounds.expect("bounds")
    };
    // The demo's row, named after its label (the label, saying it again,
    // is left out).
    let label = "role:panel && name:Assistant";
    let (cx, cy) = bounds(s, label).center();
    let frame_ref = ref_of(s, "role:frame && name:GTK Demo");
    let a = s
        .act(label, &Action::Click, &ActOptions::default())
        .await
        .expect("click the Assistant demo's row");
    assert_eq!(a.done.method, format!("XTest click at {cx},{cy}"));
    holds(
        &a,
        &format!("~ [{frame_ref}] frame | name: \"GTK Demo\" -> \"Assistant\""),
    );
}

/// Under a window manager that frames windows (mutter: a title bar above,
/// invisible borders around), GTK 4 still reports places within its own
/// window: its content is where the framed window is, not centred in the
/// frame (17 px above where it showed, and clicks missed its menus). A
/// window with a title bar of GTK's own (gtk4-demo's) is not framed.
#[test]
fn a_gtk4_window_in_a_window_managers_frame_is_clicked_where_its_elements_are() {
    const EDITOR: &str = "gtk4-print-editor";
    require_programs(&[(EDITOR, "gtk-4-examples"), ("mutter", "mutter")]).expect("programs");
    let desktop = Desktop::start_with_window_manager("mutter --x11 --sm-disable")
        .expect("a virtual desktop with mutter");
    desktop.launch(EDITOR, &[]).expect("launch the editor");
    desktop
        .wait_for_accessible_app(EDITOR, Duration::from_secs(30))
        .expect("the editor on the accessibility bus");
    let x11 = uidelta_x11::X11::connect(desktop.display()).expect("X connection");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        let mut found = Vec::new();
        for _ in 0..50 {
            s.observe(EDITOR).await.expect("observe");
            found = s.find(&"role:menu item && name:File".parse().expect("selector"));
            if !found.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert_eq!(found.len(), 1, "the editor's File menu");
        let window = x11
            .top_windows()
            .expect("top-level windows")
            .into_iter()
            .find(|w| w.pid == Some(pid_of(&s, EDITOR)) && w.viewable)
            .expect("the editor's window");
        // Framed: the frame is wider than the window, and reaches further
        // above it than below.
        let (_, oy, ow, oh) = window.outer;
        let (ix, iy, iw, ih) = window.inner;
        let below = |y: i32, h: u32| y + i32::try_from(h).expect("height");
        assert!(iy - oy > below(oy, oh) - below(iy, ih), "{window:?}");
        assert!(ow > iw, "{window:?}");
        let (scope, id) = s.find(&"role:frame".parse().expect("selector"))[0];
        let frame = s.known_apps()[scope].node(id).bounds.expect("bounds");
        assert_eq!((frame.x, frame.y), (ix, iy), "{window:?}");
        // The menu opens under the pointer's click, and its item, placed
        // in its popover, opens the file chooser.
        let opts = ActOptions::default();
        let a = s
            .act("role:menu item && name:File", &Action::Click, &opts)
            .await
            .expect("click File");
        assert!(
            a.done.method.starts_with("XTest click at "),
            "{}",
            a.done.method
        );
        assert!(text(&a).contains(" menu item \"Open\"\n"), "{}", text(&a));
        let a = s
            .act("role:menu item && name:Open", &Action::Click, &opts)
            .await
            .expect("click Open");
        assert!(
            a.done.method.starts_with("XTest click at "),
            "{}",
            a.done.method
        );
        assert!(
            text(&a).contains(" frame \"Select file\" (modal) (opened)\n"),
            "{}",
            text(&a)
        );
    });
}

/// The process of `app` as the session read it.
fn pid_of(s: &Session<Linux>, app: &str) -> u32 {
    s.known_apps()
        .iter()
        .find(|k| k.app.name == app)
        .and_then(|k| k.app.pid)
        .expect("the application's process")
}

/// GTK 4.8 names a widget with no accessible name after its type
/// (`GtkButton`), gives a button with a mnemonic its label twice (`_Cancel
/// Cancel`), and names every notebook tab `Tab`. Elements are named after
/// what they show instead, as GTK 3 names them.
#[test]
fn gtk4_widget_factory_is_named_as_it_shows_and_its_pages_switch_in_a_line_each() {
    const FACTORY: &str = "gtk4-widget-factory";
    let (desktop, rt) = common::desktop_with(FACTORY, &[], FACTORY, "gtk-4-examples");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        let mut tabs = 0;
        for _ in 0..50 {
            s.observe(FACTORY).await.expect("observe");
            tabs = count(&s, "role:page tab");
            if tabs >= 11 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert!(tabs >= 11, "the factory shows {tabs} page tabs");
        let typed: Vec<String> = s
            .known_apps()
            .iter()
            .flat_map(|scope| scope.view.tree().nodes())
            .filter(|n| n.name.starts_with("Gtk"))
            .map(|n| format!("{} {:?}", n.role, n.name))
            .collect();
        assert!(typed.is_empty(), "named after their types: {typed:?}");
        // Notebook tabs, named after their labels.
        assert_eq!(count(&s, "role:page tab && name:Tab"), 0);
        for tab in ["Sunset", "NYC", "Beach"] {
            assert_eq!(
                count(&s, &format!("role:page tab && name:{tab}")),
                1,
                "{tab}"
            );
        }
        // The first tree view's column headers, buttons named after their
        // label (another list on Page 2 has a `Name` column too).
        for column in ["Nick", "Icon", "Cool"] {
            assert_eq!(
                count(&s, &format!("role:push button && name:{column}")),
                1,
                "{column}"
            );
            // Its label, which only repeats it, is left out.
            assert_eq!(
                count(&s, &format!("role:label && name:{column}")),
                0,
                "{column}"
            );
        }
        // Nameless, not named after their type: a progress bar.
        let bars: Vec<&str> = s
            .known_apps()
            .iter()
            .flat_map(|scope| scope.view.tree().nodes())
            .filter(|n| n.role == uidelta_model::Role::ProgressBar)
            .map(|n| n.name.as_str())
            .collect();
        assert!(
            bars.len() >= 5 && bars.iter().all(|n| n.is_empty()),
            "{bars:?}"
        );

        // GTK 4 keeps the pages of its stack in the tree and flips what is
        // in them: going to Page 2 hides Page 1's dozens of elements and
        // shows Page 2's, a line for each page.
        // The header's switcher; the notebooks' tab lists are named `Tab list`.
        let tab = "role:page tab list && !name~:tab && state:showing >> name:Page 2";
        assert_eq!(count(&s, tab), 1);
        let a = s
            .act(tab, &Action::Click, &ActOptions::default())
            .await
            .expect("go to Page 2");
        let t = text(&a);
        let lines: Vec<&str> = t.lines().collect();
        let hid = lines
            .iter()
            .filter(|l| l.contains(" hid together (a page or pane hidden as a whole): "))
            .count();
        let showed = lines
            .iter()
            .filter(|l| l.contains(" showed together (a page or pane shown as a whole): "))
            .count();
        assert_eq!((hid, showed), (1, 1), "{t}");
        // Besides those lines, two fillers that came to show, each with its
        // two labels listed under it.
        assert!(lines.len() <= 12, "{t}");
        assert!(
            t.contains("] page tab \"Page 2\" | pressed, selected: false -> true\n"),
            "{t}"
        );
    });
}

/// GTK 4.8 says `showing` of its frames alone: a dialog says only that it
/// is visible. A dialog that opens is listed with what is in it, and its
/// Cancel closes it in one line.
#[test]
fn a_gtk4_dialog_opens_with_its_content_shown() {
    let (desktop, rt) = common::desktop_with(DEMO, &["--run=dialog"], DEMO, "gtk-4-examples");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        for _ in 0..50 {
            s.observe(DEMO).await.expect("observe");
            if count(&s, "role:push button && name:\"Interactive Dialog\"") == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let opts = ActOptions::default();
        let a = s
            .act(
                "role:push button && name:\"Interactive Dialog\"",
                &Action::Click,
                &opts,
            )
            .await
            .expect("open the dialog");
        let dialog = ref_of(&s, "role:dialog");
        let entry = ref_of(&s, "role:dialog >> role:text && name:\"Entry 1\"");
        let t = text(&a);
        let body: Vec<&str> = t.lines().skip(1).collect();
        let r = |selector: &str| ref_of(&s, &format!("role:dialog >> {selector}"));
        assert_eq!(
            body,
            [
                format!("+ [{dialog}] dialog \"Interactive Dialog\" (modal) (opened)"),
                format!(
                    "    [{}] label \"Entry 1\"",
                    r("role:label && name:\"Entry 1\"")
                ),
                format!("    [{entry}] text \"Entry 1\" (focused)"),
                format!(
                    "    [{}] label \"Entry 2\"",
                    r("role:label && name:\"Entry 2\"")
                ),
                format!(
                    "    [{}] text \"Entry 2\"",
                    r("role:text && name:\"Entry 2\"")
                ),
                format!("    [{}] push button \"Cancel\"", r("name:Cancel")),
                format!(
                    "    [{}] label \"Interactive Dialog\"",
                    r("role:label && name:\"Interactive Dialog\"")
                ),
                format!("    [{}] push button \"OK\"", r("name:OK")),
            ],
            "{t}"
        );
        let a = s
            .act("role:dialog >> name:Cancel", &Action::Click, &opts)
            .await
            .expect("cancel the dialog");
        let t = text(&a);
        assert!(
            t.lines().any(|l| l
                == format!(
                    "- [{dialog}] dialog \"Interactive Dialog\" (closed) (and 7 descendants)"
                )),
            "{t}"
        );
    });
}

/// GTK 4's print editor runs its print dialog inside the handler of its
/// File > Print (`gtk_print_operation_run`), so the accessible action's
/// call is answered only once the dialog closes: the action is done, the
/// dialog is in its answer, and the application goes on answering. The
/// dialog's check buttons are named as their labels show (`All Pages`,
/// not GTK 4.8's `_All Pages`).
#[test]
fn a_gtk4_action_whose_handler_runs_a_dialog_answers_with_the_dialog() {
    const EDITOR: &str = "gtk4-print-editor";
    let (desktop, rt) = common::desktop_with(EDITOR, &[], EDITOR, "gtk-4-examples");
    rt.block_on(async {
        let mut s = common::session(&desktop).await;
        for _ in 0..50 {
            s.observe(EDITOR).await.expect("observe");
            if count(&s, "role:menu item && name:File") == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let opts = ActOptions::default();
        s.act("role:menu item && name:File", &Action::Click, &opts)
            .await
            .expect("open the File menu");
        let print = s
            .act(
                "role:menu item && name:Print",
                &Action::Invoke("click".into()),
                &opts,
            )
            .await
            .expect("File > Print");
        assert!(
            print
                .done
                .method
                .starts_with("Action.click (its handler runs on"),
            "{}",
            print.done.method
        );
        let dialog = ref_of(&s, "role:dialog && name:Print");
        holds(
            &print,
            &format!("+ [{dialog}] dialog \"Print\" (modal) (opened)"),
        );
        let all = ref_of(&s, "role:dialog >> role:check box && name:\"All Pages\"");
        holds(
            &print,
            &format!("      [{all}] check box \"All Pages\" (checked)"),
        );
        let t = text(&print);
        assert!(
            !t.contains("_All Pages") && !t.contains("label \"All Pages\""),
            "{t}"
        );

        let cancel = s
            .act("role:dialog >> name:Cancel", &Action::Click, &opts)
            .await
            .expect("cancel the dialog");
        let t = text(&cancel);
        assert!(
            t.lines()
                .any(|l| l.starts_with(&format!("- [{dialog}] dialog \"Print\" (closed)"))),
            "{t}"
        );
        // Its handler returned with the dialog; the editor still answers.
        let typed = s
            .act("role:text", &Action::Type("after".into()), &opts)
            .await
            .expect("type into the editor");
        let page = ref_of(&s, "role:text");
        holds(
            &typed,
            &format!("~ [{page}] text | value: none -> \"after\""),
        );
    });
}
