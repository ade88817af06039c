//! How LibreOffice (Writer, Calc, Impress: the program `soffice`) exports
//! its tree, and what the capture does about it. With its gtk3 plugin it
//! says it is GTK (`ToolkitName` `gtk`), through an ATK bridge of its own,
//! and differs from GTK 3 in what its objects answer.

use std::time::Duration;

use uidelta_model::{Rect, Role};

/// LibreOffice's name on the accessibility bus, whatever its module
/// (Writer, Calc and Impress are one program).
const PROGRAM: &str = "soffice";

/// Whether the application named `app` on the bus is LibreOffice.
pub(crate) fn is_libreoffice(app: &str) -> bool {
    app == PROGRAM
}

/// LibreOffice brings its tool bars and menus up to date 300 ms after a
/// change (its bindings' first timer), sending nothing meanwhile: the
/// Undo button a first edit enables, the Cut and Copy a selection
/// enables. A quiet window of 400 ms takes them in with the change.
const QUIET_WINDOW: Duration = Duration::from_millis(400);

/// The quiet window after which the application named `app` may be taken
/// as settled, when it needs a longer one than most: LibreOffice's.
pub fn settle_window(app: &str) -> Option<Duration> {
    is_libreoffice(app).then_some(QUIET_WINDOW)
}

/// Whether an element's text (the `Text` interface) is what it says, to be
/// read as its value, although it is neither a field nor editable: a
/// paragraph or a heading that holds its text itself (LibreOffice's
/// document paragraphs; a childless one, as Chromium's have their text in
/// child runs), and a nameless label with nothing in it (LibreOffice's
/// status bar fields: `2 words, 13 characters`, `Page 1 of 1`). A GTK or
/// Qt label is named after its text, and is not read twice.
pub(crate) fn says_its_text(role: Role, name: &str, child_count: i32) -> bool {
    child_count == 0
        && match role {
            Role::Paragraph | Role::Heading => true,
            Role::Label => name.trim().is_empty(),
            _ => false,
        }
}

/// Whether LibreOffice's `Value` of an element of this role says anything:
/// it gives every button, menu, menu item, separator and tool bar panel
/// the `Value` interface, whose value restates `checked` (`1`, else `0`);
/// a line of every toggle would say it twice, and every button would carry
/// `= "0"`. Spin buttons, sliders, scroll bars and progress bars keep
/// theirs.
pub(crate) fn value_says_something(role: Role) -> bool {
    matches!(
        role,
        Role::SpinButton | Role::Slider | Role::ScrollBar | Role::ProgressBar
    )
}

/// A menu bar that says it shows but has no room (zero width or height)
/// shows nothing: its menus
/// open only from its items, which then cannot be seen or clicked. With a
/// native menu bar (its gtk3 plugin), LibreOffice keeps a second one of its
/// own in the window's root pane, 1166×0 with its 830 menus and items, all
/// saying they are showing: a copy of the one that shows, which doubles
/// Writer's tree and makes every menu item's name ambiguous. Such a bar is
/// left out with all that is in it, in any toolkit but web content (where
/// a box of no height shows what overflows it: floated items). One that
/// does not say it shows stays, as what does not show does: GTK 4 keeps
/// the menu bar of a stack page that is not shown, with no size.
pub(crate) fn is_roomless_menu_bar(role: Role, bounds: Option<Rect>, showing: bool) -> bool {
    showing && role == Role::MenuBar && bounds.is_some_and(|b| b.w == 0 || b.h == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_headings_and_nameless_labels_say_their_text() {
        assert!(says_its_text(Role::Paragraph, "", 0));
        assert!(says_its_text(Role::Heading, "", 0));
        assert!(says_its_text(Role::Label, "", 0));
        // Chromium's paragraph has its text in child runs.
        assert!(!says_its_text(Role::Paragraph, "", 2));
        // A label is named after its text.
        assert!(!says_its_text(Role::Label, "Name", 0));
        assert!(!says_its_text(Role::PushButton, "", 0));
    }

    #[test]
    fn only_a_menu_bar_without_room_is_left_out() {
        let bar = |w, h| Some(Rect::new(57, 50, w, h));
        assert!(is_roomless_menu_bar(Role::MenuBar, bar(1166, 0), true));
        assert!(is_roomless_menu_bar(Role::MenuBar, bar(0, 25), true));
        assert!(!is_roomless_menu_bar(Role::MenuBar, bar(1141, 25), true));
        // No extents: nothing known.
        assert!(!is_roomless_menu_bar(Role::MenuBar, None, true));
        assert!(!is_roomless_menu_bar(Role::ToolBar, bar(1166, 0), true));
        // What does not show (GTK 4's hidden page) stays, as hidden.
        assert!(!is_roomless_menu_bar(Role::MenuBar, bar(0, 0), false));
    }

    #[test]
    fn libreoffice_settles_after_its_tool_bars() {
        assert_eq!(settle_window("soffice"), Some(Duration::from_millis(400)));
        assert_eq!(settle_window("gtk3-widget-factory"), None);
    }

    #[test]
    fn only_value_controls_keep_their_value() {
        assert!(value_says_something(Role::SpinButton));
        assert!(value_says_something(Role::Slider));
        for role in [
            Role::PushButton,
            Role::ToggleButton,
            Role::MenuItem,
            Role::Separator,
            Role::Panel,
        ] {
            assert!(!value_says_something(role), "{role}");
        }
    }
}
