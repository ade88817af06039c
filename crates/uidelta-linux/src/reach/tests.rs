use super::*;
use uidelta_model::Rect;

fn window(outer: uidelta_x11::Area, inner: uidelta_x11::Area) -> WindowAt {
    WindowAt {
        id: 0x40_0003,
        pid: Some(10),
        title: "Cover".into(),
        override_redirect: false,
        outer,
        inner,
    }
}

#[test]
fn a_window_is_the_element_window_with_or_without_its_frame_and_shadow() {
    // No window manager: the extents are the window.
    let bare = window((391, 282, 500, 500), (391, 282, 500, 500));
    assert!(same_window(Rect::new(391, 282, 500, 500), &bare));
    // A frame with a 19 px title bar: toolkits report the frame...
    let framed = window((390, 263, 502, 521), (391, 282, 500, 500));
    assert!(same_window(Rect::new(390, 263, 502, 521), &framed));
    // ...or the inside.
    assert!(same_window(Rect::new(391, 282, 500, 500), &framed));
    // A client-side shadow of 30 px inside the window, outside the
    // extents.
    let shadowed = window((361, 252, 560, 560), (361, 252, 560, 560));
    assert!(same_window(Rect::new(391, 282, 500, 500), &shadowed));
}

#[test]
fn a_smaller_or_a_larger_window_elsewhere_is_another_window() {
    let dialog = window((457, 185, 454, 392), (457, 185, 454, 392));
    // The main window under a dialog centred on it.
    assert!(!same_window(Rect::new(0, 0, 1366, 741), &dialog));
    // A dialog under a maximized main window.
    let main = window((0, 0, 1366, 741), (0, 0, 1366, 741));
    assert!(!same_window(Rect::new(457, 185, 454, 392), &main));
    // Moved by more than a frame's width.
    assert!(!same_window(Rect::new(460, 185, 454, 392), &dialog));
}

#[test]
fn what_is_on_top_is_named_for_the_error() {
    let mut w = window((0, 0, 10, 10), (0, 0, 10, 10));
    assert_eq!(window_name(&w, Some(10)), "the window \"Cover\"");
    assert_eq!(
        window_name(&w, Some(11)),
        "the window \"Cover\" of another application (pid 10)"
    );
    w.title.clear();
    assert_eq!(window_name(&w, None), "an untitled window (0x400003)");
    w.override_redirect = true;
    assert_eq!(
        window_name(&w, Some(10)),
        "a popup window (a menu, tooltip or the like)"
    );
}
