//! The rules a walk's records go through before the tree is built (names
//! from labels and text runs, what is left out), and the tree's assembly.

use std::collections::HashMap;

use uidelta_model::{normalize_space, NodeData, Rect, Role, TreeBuilder};

use super::{Basic, Rec};
use crate::toolkit::Profile;

pub(crate) fn is_window_rec(r: &Rec) -> bool {
    let role = Role::from_name(&r.basic.raw_role);
    role.is_window() || role == Role::Application
}

/// An application object is neither a control nor on screen: GTK's and
/// LibreOffice's report no state at all, which says nothing of it (where
/// the same of any other object says it is neither enabled nor showing,
/// see [`uidelta_model::StateSet::REPORTED_NONE`]).
pub(crate) fn application_states_say_nothing(recs: &mut [Rec]) {
    for r in recs.iter_mut() {
        if r.basic.states.has_none() && Role::from_name(&r.basic.raw_role) == Role::Application {
            r.basic.states = uidelta_model::StateSet::EMPTY;
        }
    }
}

/// Roles named after what they show, as GTK 3 (through ATK) and screen
/// readers name them.
pub(crate) fn named_by_content(role: Role) -> bool {
    matches!(
        role,
        Role::PushButton
            | Role::ToggleButton
            | Role::CheckBox
            | Role::RadioButton
            | Role::PageTab
            | Role::Link
            | Role::MenuItem
            | Role::CheckMenuItem
            | Role::RadioMenuItem
    )
}

/// Roles whose name is the text of a label or text run inside them: those
/// named by content, a heading (Chromium's text runs), a status bar,
/// named after its message (GTK 2's, whose label is a child of a box in
/// it), and a panel named after its title (a GTK frame's label, which GTK
/// lists after what the frame holds: LibreOffice's and GIMP's dialogs,
/// zenity's forms), and a list item (GTK 4's, named after its one label).
fn named_after_its_labels(role: Role) -> bool {
    named_by_content(role)
        || matches!(
            role,
            Role::Heading | Role::StatusBar | Role::Panel | Role::ListItem
        )
}

/// A nameless label that holds one text run and nothing else (Chromium's
/// `<label>`) is named after the text, which then says nothing more:
/// `label "Colour"`, one line where it was two.
pub(crate) fn name_labels_after_their_text(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    for i in 0..recs.len() {
        let r = &recs[i];
        if r.vanished || role(r) != Role::Label || !r.basic.name.trim().is_empty() {
            continue;
        }
        let [c] = r.children[..] else {
            continue;
        };
        let text = &recs[c];
        if text.vanished
            || role(text) != Role::Static
            || !text.children.is_empty()
            || text.basic.name.trim().is_empty()
        {
            continue;
        }
        recs[i].basic.name = recs[c].basic.name.clone();
        recs[c].says_again = true;
    }
}

/// A label or text run with nothing in it that only repeats the name of the
/// button, tab, check box, link, menu item or heading it is in, directly or
/// inside nameless boxes (GTK 4 exports a button's label as its child;
/// Chromium's AT-SPI tree a heading's text as its child), says nothing twice,
/// and is left out of the tree, as Chromium's text is (see `uidelta-cdp`).
/// The element it is in is the one to act on. So is the label of a field
/// (`labelled-by`) that gave the field its name: the field says it.
pub(crate) fn leave_out_repeated_labels(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut repeats = Vec::new();
    let bare_label = |r: &Rec| !r.vanished && role(r) == Role::Label && r.children.is_empty();
    let labels: HashMap<(&str, &str), usize> = recs
        .iter()
        .enumerate()
        .filter(|(_, r)| bare_label(r))
        .map(|(i, r)| ((r.bus.as_str(), r.path.as_str()), i))
        .collect();
    for r in recs.iter() {
        let Some((bus, path)) = &r.labelled_by else {
            continue;
        };
        let name = r.basic.name.trim();
        match labels.get(&(bus.as_str(), path.as_str())) {
            Some(&l) if !name.is_empty() && recs[l].basic.name.trim() == name => repeats.push(l),
            _ => {}
        }
    }
    for r in recs.iter() {
        let name = r.basic.name.trim();
        if name.is_empty() || !named_after_its_labels(role(r)) {
            continue;
        }
        let mut stack: Vec<usize> = r.children.clone();
        while let Some(c) = stack.pop() {
            let child = &recs[c];
            let (child_role, childless) = (role(child), child.children.is_empty());
            if says_name_again(role(r), name, child_role, &child.basic.name, childless) {
                repeats.push(c);
            } else if matches!(child_role, Role::Filler | Role::Panel)
                && child.basic.name.trim().is_empty()
            {
                stack.extend(&child.children);
            }
        }
    }
    for c in repeats {
        recs[c].says_again = true;
    }
}

/// Whether `child`, as the cache says it, only says again the name of
/// `parent`, as the cache says it (see [`says_name_again`]), with the names
/// as a read gives them.
pub(crate) fn repeats_in_cache(profile: &Profile, parent: &Basic, child: &Basic) -> bool {
    let name = |b: &Basic| {
        let role = Role::from_name(&b.raw_role);
        let mut name = normalize_space(&b.name).into_owned();
        profile.clean_name(role, &mut name);
        (role, name)
    };
    let (parent_role, parent_name) = name(parent);
    let (child_role, child_name) = name(child);
    says_name_again(
        parent_role,
        &parent_name,
        child_role,
        &child_name,
        child.child_count == 0,
    )
}

/// Whether a child of an element of `role` named `name` only says that
/// name again: a label or a text run with nothing in it and the same name
/// (Chromium's text run of a heading, a link or a button; GTK 4's label of
/// a button), in an element named by its content or a heading.
pub(crate) fn says_name_again(
    role: Role,
    name: &str,
    child_role: Role,
    child_name: &str,
    childless: bool,
) -> bool {
    let name = name.trim();
    !name.is_empty()
        && named_after_its_labels(role)
        && matches!(child_role, Role::Label | Role::Static)
        && childless
        && child_name.trim() == name
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

/// Leaves out the menu bars that say they show but have no room (see
/// [`is_roomless_menu_bar`]), with all in them.
pub(crate) fn leave_out_roomless_menu_bars(recs: &mut [Rec]) {
    for r in recs.iter_mut() {
        let role = Role::from_name(&r.basic.raw_role);
        let showing = r.basic.states.contains(uidelta_model::State::Showing);
        if is_roomless_menu_bar(role, r.bounds, showing) {
            r.left_out = true;
        }
    }
}

/// Each record's parent.
pub(crate) fn parents(recs: &[Rec]) -> Vec<Option<usize>> {
    let mut parent = vec![None; recs.len()];
    for (i, r) in recs.iter().enumerate() {
        for &c in &r.children {
            parent[c] = Some(i);
        }
    }
    parent
}

/// The role of an application's top-level object: a window. Qt 5 gives a
/// top-level widget that is not a dialog or main window (a plain `QWidget`,
/// as in its calculator) the role of any container, `filler`; it is the
/// application's window all the same (its raw role stays `filler`).
pub(crate) fn as_window(role: Role) -> Role {
    match role {
        Role::Filler | Role::Panel => Role::Frame,
        other => other,
    }
}

/// The role of an object inside a window. AT-SPI's `frame` is a window of
/// its own, with a title bar; Qt 5 gives that role to its frames inside
/// windows too (a `QFrame`, and what is built on one: the stacked pages of
/// its file dialog, a separator line in VLC's preferences), which are
/// boxes like any other (their raw role stays `frame`).
pub(crate) fn as_contained(role: Role) -> Role {
    match role {
        Role::Frame => Role::Panel,
        other => other,
    }
}

/// Builds the tree in preorder from the walk's records.
pub(crate) fn assemble(mut recs: Vec<Rec>) -> uidelta_model::Tree {
    let data = |r: &mut Rec| NodeData {
        role: Role::from_name(&r.basic.raw_role),
        raw_role: std::mem::take(&mut r.basic.raw_role),
        name: std::mem::take(&mut r.basic.name),
        value: r.value.take(),
        unread: r.unread,
        description: std::mem::take(&mut r.basic.description),
        states: r.basic.states,
        bounds: r.bounds,
        attributes: std::mem::take(&mut r.attributes),
        identity: Some(format!("{}{}", r.bus, r.path)),
    };
    let mut root = data(&mut recs[0]);
    let whole_app = root.role == Role::Application;
    if !whole_app {
        root.role = as_window(root.role);
    }
    let mut builder = TreeBuilder::with_capacity(root, recs.len());
    let top_levels: Vec<usize> = if whole_app {
        recs[0].children.clone()
    } else {
        Vec::new()
    };
    let mut stack: Vec<Vec<usize>> = vec![recs[0].children.iter().rev().copied().collect()];
    while let Some(frame) = stack.last_mut() {
        match frame.pop() {
            Some(i) if recs[i].vanished || recs[i].says_again || recs[i].left_out => {}
            Some(i) if recs[i].lifted => frame.extend(recs[i].children.iter().rev().copied()),
            Some(i) => {
                let mut node = data(&mut recs[i]);
                node.role = if top_levels.contains(&i) {
                    as_window(node.role)
                } else {
                    as_contained(node.role)
                };
                builder.open(node);
                let children = recs[i].children.iter().rev().copied().collect();
                stack.push(children);
            }
            None => {
                stack.pop();
                builder.close();
            }
        }
    }
    builder.finish()
}
