//! LibreOffice (Writer, Calc, Impress: the program `soffice`). With its
//! gtk3 plugin it says it is GTK (`ToolkitName` `gtk`), through an ATK
//! bridge of its own, and differs from GTK 3 in what its objects answer;
//! its dialogs are GTK 3 widgets, and GTK 3's rules hold for them.

use std::time::Duration;

use uidelta_model::Role;

use crate::capture::{parents, Rec};

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

/// Whether a mirror of LibreOffice reads its objects of this role again at
/// every capture: a paragraph's text and extent change without an event
/// when Impress's placeholder is typed into (its title reads `""` through
/// the mirror, `"Quarterly review"` through a whole walk). Paragraphs are
/// few where they show (a document's on screen, a cell being edited).
pub(crate) fn reads_again(role: Role) -> bool {
    role == Role::Paragraph
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

/// LibreOffice, with a native menu bar (its gtk3 plugin), places what is
/// in a window's root pane as if its own menu bar, which it keeps there
/// with no room, stood where the native one is: every element of the pane
/// is reported higher than it shows, by the native bar's height (the tool
/// bar's Bold at y 91 shows at 116, under a bar 25 high), and a click at
/// its centre lands on what is above it. Such a pane, and all in it, is
/// moved down by the height of the native bar that shares the copy's top.
pub(crate) fn place_below_native_bar(recs: &mut [Rec]) {
    let parent = parents(recs);
    let ancestors = |mut i: usize| {
        let mut chain = vec![i];
        while let Some(p) = parent[i] {
            chain.push(p);
            i = p;
        }
        chain
    };
    let mut moves = Vec::new();
    for (copy, r) in recs.iter().enumerate() {
        let (Some(at), true) = (r.bounds, r.left_out) else {
            continue;
        };
        let native = recs.iter().enumerate().find(|(_, n)| {
            Role::from_name(&n.basic.raw_role) == Role::MenuBar
                && !n.left_out
                && n.bounds.is_some_and(|b| b.h > 0 && b.y == at.y)
        });
        let Some((native, bar)) = native else {
            continue;
        };
        let Some(down) = bar.bounds.map(|b| b.h) else {
            continue;
        };
        // The copy's side of the element both are in: the root pane.
        let theirs = ancestors(native);
        let ours = ancestors(copy);
        if let Some(k) = ours
            .iter()
            .position(|a| theirs.contains(a))
            .filter(|&k| k > 0)
        {
            moves.push((ours[k - 1], down));
        }
    }
    for (pane, down) in moves {
        let mut stack = vec![pane];
        while let Some(i) = stack.pop() {
            if let Some(b) = recs[i].bounds.as_mut() {
                b.y += down;
            }
            stack.extend(&recs[i].children);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::fixtures::rec;
    use uidelta_model::Rect;

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

    #[test]
    fn libreoffice_content_moves_below_its_native_menu_bar() {
        let mut r = vec![
            rec("frame", "Writer", &[1, 2]),
            rec("menu bar", "", &[]),
            rec("root pane", "Writer", &[3, 5]),
            rec("filler", "", &[4]),
            rec("menu bar", "", &[]),
            rec("push button", "Bold", &[]),
        ];
        let at = |x, y, w, h| Some(Rect::new(x, y, w, h));
        r[0].bounds = at(57, 50, 1165, 924);
        r[1].bounds = at(57, 50, 1141, 25);
        r[2].bounds = at(57, 50, 1165, 899);
        r[4].bounds = at(57, 50, 1165, 0);
        r[4].left_out = true;
        r[5].bounds = at(648, 91, 33, 35);
        place_below_native_bar(&mut r);
        let ys: Vec<Option<i32>> = r.iter().map(|r| r.bounds.map(|b| b.y)).collect();
        // The window and its native bar stay; the pane and all in it move
        // down by the bar's height.
        assert_eq!(
            ys,
            [Some(50), Some(50), Some(75), None, Some(75), Some(116)]
        );

        // Without a copy of no room (LibreOffice without a native bar), or
        // with none in a native bar's place, nothing moves.
        r[4].left_out = false;
        place_below_native_bar(&mut r);
        assert_eq!(r[5].bounds, at(648, 116, 33, 35));
    }
}
