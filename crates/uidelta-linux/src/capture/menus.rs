//! Which menus are open, as the display shows them, for toolkits that do
//! not say (see `Profile::says_not_which_menu_is_open`).

use uidelta_model::{NodeId, Rect, Role, State, Tree};
use uidelta_x11::Area;

/// Says which menus of `tree` are open, given the places of the
/// application's popup windows on the screen (viewable, override-redirect):
/// a menu is open when it shows itself (a menu of a menu bar or a combo
/// box as its toolkit says, a submenu as worked out here from its parent)
/// and one popup holds every entry of it that has a place. The entries of
/// an open menu that are visible show, and those of any other menu do not;
/// the open menu is `selected` (as GTK 3 says of its own), the others are
/// not. A menu never opened has no place for its entries (GAIL gives
/// them `-2147483648`), and one opened before keeps its entries' places:
/// held whole by another menu's popup only if it is that menu, as the
/// popups of two menus begin at their own titles.
pub(crate) fn show_open_menus(tree: &mut Tree, popups: &[Area]) {
    // Preorder: a submenu's entry is settled before its own entries.
    let menus: Vec<NodeId> = tree
        .ids()
        .filter(|&id| tree.node(id).role == Role::Menu)
        .collect();
    for menu in menus {
        let parent = tree.parent(menu).map(|p| tree.node(p).role);
        let entry = parent == Some(Role::Menu);
        let shows = tree.node(menu).states.contains(State::Showing);
        let places: Vec<Rect> = tree
            .children(menu)
            .iter()
            .filter_map(|&c| tree.node(c).bounds)
            .filter(|b| b.w > 0 && b.h > 0 && b.x > i32::MIN / 2 && b.y > i32::MIN / 2)
            .collect();
        let open = shows
            && !places.is_empty()
            && popups
                .iter()
                .any(|&area| places.iter().all(|b| holds(area, b)));
        for c in tree.children(menu).to_vec() {
            let states = &mut tree.node_mut(c).states;
            let visible = states.contains(State::Visible);
            states.set(State::Showing, open && visible);
        }
        if entry || parent == Some(Role::MenuBar) {
            tree.node_mut(menu).states.set(State::Selected, open);
        }
    }
}

/// Whether the screen area holds the box whole.
fn holds((x, y, w, h): Area, b: &Rect) -> bool {
    let (right, bottom) = (i64::from(x) + i64::from(w), i64::from(y) + i64::from(h));
    i64::from(b.x) >= i64::from(x)
        && i64::from(b.y) >= i64::from(y)
        && i64::from(b.x) + i64::from(b.w) <= right
        && i64::from(b.y) + i64::from(b.h) <= bottom
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidelta_model::{NodeData, StateSet, TreeBuilder};

    fn node(role: Role, name: &str, states: &[State], at: Option<Rect>) -> NodeData {
        let mut n = NodeData::named(role, name);
        n.states = StateSet::of(states);
        n.bounds = at;
        n
    }

    const SHOWN: [State; 2] = [State::Visible, State::Showing];
    const VISIBLE: [State; 1] = [State::Visible];

    /// GIMP's menu bar: File (opened before, its entries where its popup
    /// was) with a submenu never opened, and Edit.
    fn gimp() -> Tree {
        let r = |x, y, w, h| Some(Rect { x, y, w, h });
        let nowhere = r(i32::MIN, i32::MIN, 1, 1);
        let mut b = TreeBuilder::new(node(Role::Frame, "GIMP", &SHOWN, r(200, 100, 1024, 768)));
        b.open(node(Role::MenuBar, "", &SHOWN, r(200, 100, 1024, 27)));
        b.open(node(Role::Menu, "File", &SHOWN, r(201, 100, 36, 27)));
        b.leaf(node(
            Role::MenuItem,
            "New...",
            &VISIBLE,
            r(203, 130, 314, 25),
        ));
        b.open(node(Role::Menu, "Create", &VISIBLE, r(203, 155, 314, 25)));
        b.leaf(node(Role::MenuItem, "Screenshot...", &VISIBLE, nowhere));
        b.close();
        b.leaf(node(Role::Separator, "", &VISIBLE, r(203, 180, 314, 8)));
        b.close();
        b.open(node(Role::Menu, "Edit", &SHOWN, r(237, 100, 36, 27)));
        b.leaf(node(Role::MenuItem, "Undo", &VISIBLE, nowhere));
        b.close();
        b.close();
        b.finish()
    }

    fn shown(tree: &Tree) -> Vec<(String, bool, bool)> {
        tree.ids()
            .map(|id| {
                let n = tree.node(id);
                let s = n.states;
                (
                    n.name.clone(),
                    s.contains(State::Showing),
                    s.contains(State::Selected),
                )
            })
            .filter(|(name, ..)| !name.is_empty())
            .collect()
    }

    #[test]
    fn the_menu_whose_popup_holds_its_entries_is_open() {
        let mut tree = gimp();
        show_open_menus(&mut tree, &[(201, 127, 318, 586)]);
        let got = shown(&tree);
        let want = [
            ("GIMP", true, false),
            ("File", true, true),
            ("New...", true, false),
            ("Create", true, false),
            ("Screenshot...", false, false),
            ("Edit", true, false),
            ("Undo", false, false),
        ];
        let want: Vec<(String, bool, bool)> =
            want.iter().map(|&(n, a, b)| (n.to_owned(), a, b)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_closed_menu_keeps_its_places_but_shows_nothing() {
        let mut tree = gimp();
        // Another popup of the application, elsewhere (Edit's, a tooltip).
        show_open_menus(&mut tree, &[(240, 127, 300, 400)]);
        assert!(shown(&tree).iter().all(|(name, showing, selected)| {
            !selected && (*showing == matches!(name.as_str(), "GIMP" | "File" | "Edit"))
        }));
        let mut tree = gimp();
        show_open_menus(&mut tree, &[]);
        assert!(!shown(&tree)
            .iter()
            .any(|(name, s, _)| name == "New..." && *s));
    }
}
