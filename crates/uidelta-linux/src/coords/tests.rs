use super::*;
use uidelta_model::NodeData;

fn top(outer: uidelta_x11::Area, inner: uidelta_x11::Area) -> TopWindow {
    TopWindow {
        id: 0x80_0004,
        pid: Some(10),
        title: "GTK Demo".into(),
        viewable: true,
        override_redirect: false,
        outer,
        inner,
        transient_for: None,
    }
}

#[test]
fn toolkit_coordinates_are_mapped_to_the_display() {
    // GTK 3 with GDK_SCALE=2 under a window manager: the frame's
    // extents, unscaled.
    let scaled = top((140, 0, 1002, 1023), (141, 20, 1000, 998));
    let m =
        mapping_between(Rect::new(70, 0, 501, 512), scaled.outer, scaled.inner).expect("scale 2");
    assert_eq!((m.scale, m.dx, m.dy), (2.0, 0.0, 0.0));
    assert_eq!(m.point((320, 174)), (640, 348));
    // GTK 4: within the window, whose content sits in a 5 px border.
    let gtk4 = top((480, 424, 800, 600), (480, 424, 800, 600));
    let m = mapping_between(Rect::new(0, 0, 790, 590), gtk4.outer, gtk4.inner)
        .expect("window coordinates");
    assert_eq!((m.scale, m.dx, m.dy), (1.0, 485.0, 429.0));
    assert_eq!(
        m.rect(Rect::new(13, 51, 197, 36)),
        Rect::new(498, 480, 197, 36)
    );
    // Screen coordinates already: nothing to map.
    let plain = top((391, 282, 500, 500), (391, 282, 500, 500));
    let m =
        mapping_between(Rect::new(391, 282, 500, 500), plain.outer, plain.inner).expect("the same");
    assert_eq!(m, Mapping::SAME);
    // Another window: no mapping.
    let other = |e: Rect| mapping_between(e, plain.outer, plain.inner);
    assert_eq!(other(Rect::new(10, 10, 300, 200)), None);
    assert_eq!(other(Rect::new(0, 0, 300, 200)), None);
    // GTK 4 at 0,0 (no window manager): the content within the border.
    let corner = top((0, 0, 800, 600), (0, 0, 800, 600));
    let m = mapping_between(Rect::new(0, 0, 790, 590), corner.outer, corner.inner)
        .expect("window coordinates");
    assert_eq!((m.dx, m.dy), (5.0, 5.0));
    // GTK 4 framed by a window manager (mutter: 10 px of invisible border
    // around, a 35 px title bar above): within its own window, not centred
    // in the frame.
    let framed = top((28, 120, 420, 655), (38, 165, 400, 600));
    let m = mapping_between(Rect::new(0, 0, 400, 600), framed.outer, framed.inner)
        .expect("window coordinates");
    assert_eq!((m.scale, m.dx, m.dy), (1.0, 38.0, 165.0));
    assert_eq!(m.point((8, 4)), (46, 169));
    // GTK 3 reports the frame's extents: the window inside is smaller.
    let m = mapping_between(Rect::new(28, 120, 420, 655), framed.outer, framed.inner)
        .expect("the frame");
    assert_eq!(m, Mapping::SAME);
    // LibreOffice maximized under xfwm4 (a 24 px title bar): at 0,0, where
    // the frame is, the window's size; in place.
    let maximized = top((0, 0, 1280, 1024), (0, 24, 1280, 1000));
    let m = mapping_between(Rect::new(0, 0, 1280, 999), maximized.outer, maximized.inner)
        .expect("in place");
    assert_eq!(m, Mapping::SAME);
}

fn app_tree(title: &str, frame: Rect, button: Rect, menu: Rect) -> Tree {
    let mut b = uidelta_model::TreeBuilder::new(NodeData::named(Role::Application, "app"));
    let mut window = NodeData::named(Role::Frame, title);
    window.bounds = Some(frame);
    b.open(window);
    let mut ok = NodeData::named(Role::PushButton, "OK");
    ok.bounds = Some(button);
    b.leaf(ok);
    b.close();
    let mut popup = NodeData::new(Role::Window);
    popup.bounds = Some(menu);
    b.leaf(popup);
    b.finish()
}

fn all_bounds(tree: &Tree) -> Vec<Option<Rect>> {
    tree.nodes().iter().map(|n| n.bounds).collect()
}

#[test]
fn a_capture_is_placed_on_the_display() {
    let menu = Rect::new(300, 40, 100, 80);
    // GTK 3 at scale 2: every top-level scaled, the popup menu (which
    // no managed window fits) with the scale of the others.
    let mut t = app_tree(
        "GTK Demo",
        Rect::new(70, 0, 501, 512),
        Rect::new(80, 10, 50, 25),
        menu,
    );
    let windows = [top((140, 0, 1002, 1023), (141, 20, 1000, 998))];
    assert_eq!(
        place_on_display(&mut t, &windows, Some(10)),
        Placed {
            mapped: 2,
            display_places: false
        }
    );
    assert_eq!(
        all_bounds(&t)[1..],
        [
            Some(Rect::new(140, 0, 1002, 1024)),
            Some(Rect::new(160, 20, 100, 50)),
            Some(Rect::new(600, 80, 200, 160)),
        ]
    );
    // GTK 4 away from the corner: its window's content, offset; the
    // popup, whose place is unknown, as it was.
    let mut t = app_tree(
        "GTK Demo",
        Rect::new(0, 0, 790, 590),
        Rect::new(13, 51, 197, 36),
        menu,
    );
    let windows = [top((480, 424, 800, 600), (480, 424, 800, 600))];
    assert_eq!(place_on_display(&mut t, &windows, Some(10)).mapped, 1);
    assert_eq!(
        all_bounds(&t)[1..],
        [
            Some(Rect::new(485, 429, 790, 590)),
            Some(Rect::new(498, 480, 197, 36)),
            Some(menu),
        ]
    );
    // The display's places already (and so known to be the toolkit's
    // way), another process's window, or no window: nothing moves.
    for (windows, pid, display_places) in [
        (
            vec![top((391, 282, 500, 500), (391, 282, 500, 500))],
            Some(10),
            true,
        ),
        (
            vec![top((480, 424, 800, 600), (480, 424, 800, 600))],
            Some(11),
            false,
        ),
        (vec![], Some(10), false),
    ] {
        let mut t = app_tree(
            "GTK Demo",
            Rect::new(391, 282, 500, 500),
            Rect::new(400, 300, 50, 25),
            menu,
        );
        let before = all_bounds(&t);
        assert_eq!(
            place_on_display(&mut t, &windows, pid),
            Placed {
                mapped: 0,
                display_places
            }
        );
        assert_eq!(all_bounds(&t), before);
    }
    // A window at the display's corner that needs no mapping proves
    // nothing: GTK 4 with no border would look the same.
    let mut t = app_tree(
        "GTK Demo",
        Rect::new(0, 0, 800, 600),
        Rect::new(13, 51, 197, 36),
        menu,
    );
    let windows = [top((0, 0, 800, 600), (0, 0, 800, 600))];
    assert_eq!(
        place_on_display(&mut t, &windows, Some(10)),
        Placed {
            mapped: 0,
            display_places: false
        }
    );
    // Two windows fit and neither has the top-level's name: which one
    // it is cannot be told, and nothing moves.
    let mut t = app_tree(
        "Untitled",
        Rect::new(0, 0, 790, 590),
        Rect::new(13, 51, 197, 36),
        menu,
    );
    let windows = [
        top((480, 424, 800, 600), (480, 424, 800, 600)),
        top((10, 20, 800, 600), (10, 20, 800, 600)),
    ];
    let before = all_bounds(&t);
    assert_eq!(place_on_display(&mut t, &windows, Some(10)).mapped, 0);
    assert_eq!(all_bounds(&t), before);
}

#[test]
fn gtk4_popovers_are_placed_in_their_windows() {
    use uidelta_model::TreeBuilder;
    // gnome-calculator (GTK 4) at the display's corner, in a 5 px border:
    // a drop-down's list open below it, and a menu button's menu, each in
    // an override-redirect window of its own that GTK places elsewhere
    // than it says.
    let at = |role: Role, name: &str, r: Rect| {
        let mut n = NodeData::named(role, name);
        n.bounds = Some(r);
        n
    };
    let mut b = TreeBuilder::new(NodeData::named(Role::Application, "gnome-calculator"));
    b.open(at(Role::Frame, "Calculator", Rect::new(0, 0, 670, 578)));
    b.open(at(Role::ComboBox, "", Rect::new(13, 284, 150, 34)));
    b.open(at(Role::ScrollPane, "", Rect::new(37, 312, 148, 114)));
    b.leaf(at(Role::ListItem, "Radians", Rect::new(55, 361, 112, 16)));
    b.close();
    b.close();
    b.open(at(
        Role::PushButton,
        "Mode selection",
        Rect::new(105, 6, 70, 34),
    ));
    b.open(at(Role::Menu, "", Rect::new(279, 6, 277, 232)));
    b.leaf(at(
        Role::RadioMenuItem,
        "Basic",
        Rect::new(303, 40, 229, 30),
    ));
    b.close();
    b.close();
    // A list taller than the pane it scrolls in: no popover.
    b.open(at(Role::ScrollPane, "", Rect::new(13, 60, 644, 100)));
    b.leaf(at(Role::List, "", Rect::new(13, 20, 196, 160)));
    b.close();
    let mut t = b.finish();
    let popup = |outer| TopWindow {
        override_redirect: true,
        title: "gnome-calculator".into(),
        ..top(outer, outer)
    };
    let windows = [
        top((0, 0, 680, 588), (0, 0, 680, 588)),
        popup((-5, 302, 196, 168)),
        popup((202, 24, 277, 232)),
        // Hidden: not where anything is.
        TopWindow {
            viewable: false,
            ..popup((0, 0, 285, 418))
        },
    ];
    assert_eq!(place_on_display(&mut t, &windows, Some(10)).mapped, 1);
    assert_eq!(
        all_bounds(&t)[1..],
        [
            Some(Rect::new(5, 5, 670, 578)),
            Some(Rect::new(18, 289, 150, 34)),
            // The list's box at the middle of its window; the item with it.
            Some(Rect::new(19, 329, 148, 114)),
            Some(Rect::new(37, 378, 112, 16)),
            Some(Rect::new(110, 11, 70, 34)),
            Some(Rect::new(202, 24, 277, 232)),
            Some(Rect::new(226, 58, 229, 30)),
            Some(Rect::new(18, 65, 644, 100)),
            Some(Rect::new(18, 25, 196, 160)),
        ]
    );
}
