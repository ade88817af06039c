//! GTK 4 (`ToolkitName` `GTK`), as 4.8 (Debian 12) speaks AT-SPI: it
//! leaves `enabled` and `showing` out, names nameless widgets after their
//! type, names buttons after their labels twice, and keeps every page of a
//! stack `visible`.

use uidelta_model::{Rect, Role};

use crate::capture::{is_window_rec, named_by_content, Rec};

/// A name as GTK 4.8 gives it, without its type names (`GtkButton`, and
/// the application's own, which begin with one of `prefixes`: see
/// [`type_prefixes`]) and doubled mnemonics (`_Next Next`).
pub(crate) fn clean_name(name: &mut String, prefixes: &[String]) {
    if name == TOOLTIP_WINDOW {
        // Kept for [`leave_out_tooltips`], which leaves it out.
        return;
    }
    if is_type_name(name, prefixes) {
        name.clear();
    } else if let Some(plain) = mnemonic_doubled(name) {
        *name = plain.to_owned();
    }
}

/// The name GTK 4.8 gives a tooltip's window, after its type (as it names
/// every nameless widget).
const TOOLTIP_WINDOW: &str = "GtkTooltipWindow";

/// GTK 4 puts a tooltip that shows into the tree, as the last child of the
/// window it shows over (4.8: a `filler` named after its type,
/// `GtkTooltipWindow`, holding a panel and a label), where GTK 3's
/// bridge keeps its tooltip windows out. It comes and goes as the
/// pointer rests on a widget, whatever the action was (GNOME Calculator's
/// mode button, pressed by a click that opened a menu, showed
/// `label "Mode selection"` some 500 ms later), and its text is the
/// widget's description already: it is left out, with what is in it, as
/// is anything GTK 4 says is a `tool tip`.
pub(crate) fn leave_out_tooltips(recs: &mut [Rec]) {
    for r in recs.iter_mut() {
        if r.basic.name == TOOLTIP_WINDOW || Role::from_name(&r.basic.raw_role) == Role::ToolTip {
            r.left_out = true;
        }
    }
}

/// Fills in the states GTK 4 (4.8) leaves out, judged on the whole
/// capture: it sets `sensitive` but never `enabled`, and `showing` only on
/// its windows. When no element has `enabled` and some have `sensitive`,
/// `enabled` follows `sensitive`. When no element but a window has
/// `showing` and some have `visible`, an element shows when it is visible,
/// has a size (or no extents at all) and its parent shows (a window keeps
/// its own `showing`, but a dialog never says it: one that is visible
/// shows, as GTK hides a dialog it closes). GTK 3 and
/// Chromium set all four and are left as they are.
pub(crate) fn fill_in_states(recs: &mut [Rec]) {
    use uidelta_model::State;
    let any = |recs: &[Rec], s: State| {
        recs.iter()
            .any(|r| !r.vanished && r.basic.states.contains(s))
    };
    if !any(recs, State::Enabled) && any(recs, State::Sensitive) {
        for r in recs.iter_mut() {
            if r.basic.states.contains(State::Sensitive) {
                r.basic.states.insert(State::Enabled);
            }
        }
    }
    if !showing_left_out(recs) {
        return;
    }
    // GTK 4.8 says `showing` of a window of the role `frame` alone (and
    // `active` with it): its dialogs say `visible` once presented, and lose
    // it when closed.
    for r in recs.iter_mut() {
        let role = Role::from_name(&r.basic.raw_role);
        let dialog = role.is_window() && !matches!(role, Role::Frame | Role::Window);
        if dialog && r.basic.states.contains(State::Visible) {
            r.basic.states.insert(State::Showing);
        }
    }
    // Records come level by level: a parent before its children.
    for i in 0..recs.len() {
        // The application itself shows whatever of it shows; a window
        // (the capture's root included) says for itself.
        let shows = recs[i].basic.states.contains(State::Showing)
            || Role::from_name(&recs[i].basic.raw_role) == Role::Application;
        for c in recs[i].children.clone() {
            if is_window_rec(&recs[c]) {
                continue;
            }
            // GTK 4.8 keeps hidden stack and notebook pages, and the list
            // rows it holds in reserve, `visible`, with no size.
            let sized = recs[c].bounds.is_none_or(|b| b.w > 0 && b.h > 0);
            let visible = recs[c].basic.states.contains(State::Visible);
            let shown = visible && sized && !recs[c].in_reserve && shows;
            recs[c].basic.states.set(State::Showing, shown);
        }
    }
}

/// Whether the toolkit leaves `showing` out (GTK 4.8): no element but a
/// window has it, and some are `visible`.
pub(crate) fn showing_left_out(recs: &[Rec]) -> bool {
    use uidelta_model::State;
    let live = || recs.iter().filter(|r| !r.vanished);
    !live().any(|r| !is_window_rec(r) && r.basic.states.contains(State::Showing))
        && live().any(|r| r.basic.states.contains(State::Visible))
}

/// Where an element is: its extents, else (a notebook's page object has
/// none) those of its first child that has some; `None` when that place
/// is empty.
fn place(recs: &[Rec], i: usize) -> Option<Rect> {
    recs[i]
        .bounds
        .or_else(|| recs[i].children.iter().find_map(|&c| recs[c].bounds))
        .filter(|b| b.w > 0 && b.h > 0)
}

/// Siblings that say they are visible in one and the same place: the
/// pages of a stack or a notebook, of which one shows. Each group with the
/// nearest ancestor that has a place, to ask what shows there.
pub(crate) fn stacked(recs: &[Rec], parent: &[Option<usize>]) -> Vec<(usize, Rect, Vec<usize>)> {
    use uidelta_model::State;
    let mut out = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let mut groups: Vec<(Rect, Vec<usize>)> = Vec::new();
        for &c in &r.children {
            if recs[c].vanished || !recs[c].basic.states.contains(State::Visible) {
                continue;
            }
            let Some(at) = place(recs, c) else { continue };
            match groups.iter_mut().find(|(g, _)| *g == at) {
                Some((_, members)) => members.push(c),
                None => groups.push((at, vec![c])),
            }
        }
        let mut asked = Some(i);
        while let Some(a) = asked {
            if recs[a].bounds.is_some_and(|b| b.w > 0 && b.h > 0) {
                break;
            }
            asked = parent[a];
        }
        let Some(asked) = asked else { continue };
        out.extend(
            groups
                .into_iter()
                .filter(|(_, members)| members.len() > 1)
                .map(|(at, members)| (asked, at, members)),
        );
    }
    out
}

/// The prefixes of the type names of an application named `app_name`
/// besides GTK's and libadwaita's: an application id's last part and
/// each word of it (`org.gnome.Nautilus`: `NautilusToolbar`,
/// `NautilusGridCell`; `org.gnome.TextEditor`: `EditorWindow`), as GNOME
/// applications name their classes; else those of a program's name (see
/// [`program_prefixes`]).
pub(crate) fn type_prefixes(app_name: &str) -> Vec<String> {
    let parts: Vec<&str> = app_name.split('.').collect();
    let Some(last) = parts.last().filter(|_| parts.len() >= 3) else {
        return program_prefixes(app_name);
    };
    if !last.starts_with(|c: char| c.is_ascii_uppercase())
        || !last.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return Vec::new();
    }
    let mut prefixes = vec![(*last).to_owned()];
    let mut word = String::new();
    for c in last.chars() {
        if c.is_ascii_uppercase() && !word.is_empty() {
            prefixes.push(std::mem::take(&mut word));
        }
        word.push(c);
    }
    prefixes.push(word);
    // A word too short to be a namespace (`Tv`) would take ordinary names.
    prefixes.retain(|p| p.len() >= 4);
    prefixes.dedup();
    prefixes
}

/// The prefixes of the type names of an application that gives its
/// program's name (`gnome-text-editor`: `EditorOpenPopover`,
/// `EditorSourceView`): each word of it, and the words after the first
/// together (`TextEditor`), capitalized, of four letters or more. None for
/// a name of one word, or of other than lower-case letters and digits.
fn program_prefixes(app_name: &str) -> Vec<String> {
    let words: Vec<&str> = app_name.split('-').collect();
    let plain = |w: &&str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    };
    if words.len() < 2 || !words.iter().all(plain) {
        return Vec::new();
    }
    let capital = |w: &str| {
        let mut chars = w.chars();
        chars.next().map_or_else(String::new, |c| {
            c.to_ascii_uppercase().to_string() + chars.as_str()
        })
    };
    let mut prefixes: Vec<String> = words.iter().map(|w| capital(w)).collect();
    if words.len() > 2 {
        prefixes.push(words[1..].iter().map(|w| capital(w)).collect());
    }
    prefixes.retain(|p| p.len() >= 4);
    prefixes
}

/// Whether `name` is a GTK or libadwaita type name (`GtkButton`,
/// `AdwHeaderBar`), or one of the application's own (a name beginning with
/// one of `prefixes`, then a capital, in one word): GTK 4.8 names a widget
/// that has no accessible name after its type, which says nothing a role
/// does not.
fn is_type_name(name: &str, prefixes: &[String]) -> bool {
    let own = prefixes.iter().map(String::as_str);
    ["Gtk", "Adw"].into_iter().chain(own).any(|prefix| {
        name.strip_prefix(prefix).is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_uppercase())
                && rest.chars().all(|c| c.is_ascii_alphanumeric())
        })
    })
}

/// The label of a name GTK 4.8 gives a button with a mnemonic: its label
/// as written, underscore included, then as shown (`_Next Next`); `None`
/// for any other name.
fn mnemonic_doubled(name: &str) -> Option<&str> {
    name.match_indices(' ').find_map(|(i, _)| {
        let (written, shown) = (&name[..i], &name[i + 1..]);
        (written.contains('_') && !shown.is_empty() && written.replace('_', "") == shown)
            .then_some(shown)
    })
}

/// GTK 4.8 leaves a button whose content is a label nameless (so its type
/// name, dropped on reading), and names every notebook tab `Tab`: such an
/// element is named after the labels inside it, in order, as GTK 3 names
/// it. Labels inside another element named by its content (a button in a
/// tab) are that element's. A button whose label takes a mnemonic
/// (`use-underline`) but has none GTK 4.8 names after the label twice, as
/// written and as shown (`"9 9"`, see [`mnemonic_doubled`] for one with a
/// mnemonic): it is named once, when its label says so. A check button
/// GTK 4.8 names after its label as written, mnemonic included (the print
/// dialog's `_All Pages`, holding the label `All Pages`), is named as the
/// label shows it. A nameless list item holding one label (the options of
/// a drop-down's list) is named after it.
pub(crate) fn name_from_content(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut names = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let own = role(r);
        let named = !r.basic.name.trim().is_empty() && own != Role::PageTab;
        let as_written = without_mnemonic(&r.basic.name);
        let item = own == Role::ListItem;
        if !(named_by_content(own) || item)
            || (named && said_twice(&r.basic.name).is_none() && as_written.is_none())
        {
            continue;
        }
        // A menu button's box holds its button: what else it holds is its
        // popover (gnome-text-editor's `No Recent Documents`), no content.
        let holds_a_button = r.children.iter().any(|&c| {
            !recs[c].vanished && matches!(role(&recs[c]), Role::PushButton | Role::ToggleButton)
        });
        if holds_a_button && own == Role::PushButton {
            continue;
        }
        let mut labels = Vec::new();
        let mut stack: Vec<usize> = r.children.iter().rev().copied().collect();
        while let Some(c) = stack.pop() {
            let child = &recs[c];
            // A menu button's open menu is not its content.
            if child.vanished || named_by_content(role(child)) || opens_apart(role(child)) {
                continue;
            }
            let text = child.basic.name.trim();
            if role(child) == Role::Label && !text.is_empty() {
                labels.push((text.to_owned(), has_no_size(child)));
            }
            stack.extend(child.children.iter().rev());
        }
        // A label of no size is the page of a stack not shown (a
        // drop-down's `(None)`, beside the item it shows), unless nothing
        // of the element is laid out.
        if labels.iter().any(|(_, flat)| !flat) {
            labels.retain(|(_, flat)| !flat);
        }
        let labels: Vec<String> = labels.into_iter().map(|(text, _)| text).collect();
        // A list item says one label (a drop-down's option); one of several
        // (a history row's `7×8`, `=`, `56`) says them itself.
        if item && labels.len() != 1 {
            continue;
        }
        let content = labels.join(" ");
        let restates = said_twice(&r.basic.name) == Some(&content)
            || as_written.as_deref() == Some(content.as_str());
        if !labels.is_empty() && (!named || restates) {
            names.push((i, content));
        }
    }
    for (i, name) in names {
        recs[i].basic.name = name;
    }
}

/// Whether `r` has a place of no width or no height: laid out as nothing
/// (GTK 4 gives the pages of a stack that are not shown none).
fn has_no_size(r: &Rec) -> bool {
    r.bounds.is_some_and(|b| b.w == 0 || b.h == 0)
}

/// GTK 4's drop-down is a nameless `combo box` holding the button that
/// opens its list, named by what it shows (the item chosen, on a stack
/// whose other page says `(None)`): `combo box` holding `push button
/// "Degrees"`. The combo box shows the item as its value, and says the
/// focus the button has (`combo box = "Degrees" (focused)`), and that
/// its list is open while the button is pressed (`expanded`); the button,
/// with nothing more to say, is left out with what is in it. Its list, in
/// a popover of the combo box, stays. Run after [`name_from_content`].
pub(crate) fn drop_downs_show_their_choice(recs: &mut [Rec]) {
    use uidelta_model::State;
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut found = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let valueless = r.value.as_deref().is_none_or(|v| v.trim().is_empty());
        if r.vanished || role(r) != Role::ComboBox || !valueless {
            continue;
        }
        // Its button, beside its popover (a `filler`, open or not).
        let buttons: Vec<usize> = r
            .children
            .iter()
            .copied()
            .filter(|&c| {
                !recs[c].vanished && matches!(role(&recs[c]), Role::PushButton | Role::ToggleButton)
            })
            .collect();
        let [only] = buttons[..] else { continue };
        let shown = recs[only].basic.name.trim();
        if !shown.is_empty() {
            found.push((i, only, shown.to_owned()));
        }
    }
    for (i, only, shown) in found {
        recs[i].value = Some(shown);
        let button = recs[only].basic.states;
        let states = &mut recs[i].basic.states;
        states.set(State::Focused, button.contains(State::Focused));
        states.set(State::Expanded, button.contains(State::Pressed));
        recs[only].left_out = true;
    }
}

/// GTK 4.8 gives a widget's tooltip as its description, and icon buttons
/// have no other name (Nautilus's `Back`, `Search`, `Main Menu`): a
/// nameless button, toggle, check box, radio button, spin button, slider
/// or combo box is named after its tooltip's first line, once its content
/// had its chance (see [`super::name_after_tooltip`]).
pub(crate) fn name_controls_after_their_tooltip(recs: &mut [Rec]) {
    super::name_after_tooltip(recs, super::tooltip_names);
}

/// A GTK 4 list or grid view gives each item as a nameless cell (focused
/// and selected as the item is) holding the cell the application made for
/// it, which is named (Nautilus's files: `table cell` holding `table cell
/// "notes.txt"` and its label). The outer cell takes the inner one's name,
/// and the inner one, with nothing more to say, gives its place to what is
/// in it but a label saying the name again (at any depth: GTK 4 lays it
/// out in boxes).
pub(crate) fn name_cells_after_the_cell_they_hold(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut named = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let [only] = r.children[..] else {
            continue;
        };
        let inner = &recs[only];
        let name = inner.basic.name.trim();
        if !r.vanished
            && !inner.vanished
            && role(r) == Role::TableCell
            && role(inner) == Role::TableCell
            && r.basic.name.trim().is_empty()
            && !name.is_empty()
        {
            named.push((i, only, name.to_owned()));
        }
    }
    for (i, only, name) in named {
        // Its label (inside the boxes that lay it out), saying the name
        // again, says nothing more.
        let mut stack = recs[only].children.clone();
        while let Some(c) = stack.pop() {
            if Role::from_name(&recs[c].basic.raw_role) == Role::Label
                && recs[c].basic.name.trim() == name
                && recs[c].children.is_empty()
            {
                recs[c].says_again = true;
            }
            stack.extend(&recs[c].children);
        }
        recs[i].basic.name = name;
        recs[only].lifted = true;
    }
}

/// GTK 4's menu button is a box (a `push button` with no action of its
/// own) around the button that opens its menu, both named after the same
/// tooltip: `push button "Main Menu"` holding `push button "Main Menu"`.
/// The box gives its place to the button, which is clicked, takes the
/// focus and says whether its menu is open. A menu button that shows a
/// label has its tooltip on the box alone, the button named by the label
/// (gnome-calculator's `push button "Mode selection"` holding `push
/// button "Basic"`, gnome-text-editor's `"Open recent document (Ctrl+K)"`
/// holding `"Open"`): the box gives its place to the button too, which
/// keeps the name it shows, and takes the tooltip as its description.
pub(crate) fn lift_menu_button_boxes(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut boxes = Vec::new();
    let buttons = |r: &Rec| matches!(role(r), Role::PushButton | Role::ToggleButton);
    for (i, r) in recs.iter().enumerate() {
        if r.vanished || role(r) != Role::PushButton || r.basic.name.trim().is_empty() {
            continue;
        }
        // Its button, and the menu or popover it holds while open (a
        // `filler` when it is the application's own: gnome-text-editor's
        // `EditorOpenPopover`).
        let (inner, menus): (Vec<usize>, Vec<usize>) = r
            .children
            .iter()
            .copied()
            .filter(|&c| !recs[c].vanished)
            .partition(|&c| buttons(&recs[c]));
        let [only] = inner[..] else {
            continue;
        };
        let button = &recs[only];
        let apart = |&c: &usize| opens_apart(role(&recs[c])) || role(&recs[c]) == Role::Filler;
        if menus.len() > 1 || !menus.iter().all(apart) {
            continue;
        }
        if button.basic.name == r.basic.name {
            boxes.push((i, None));
        } else if named_after_its_tooltip(r)
            && button.basic.description.trim().is_empty()
            && !button.basic.name.trim().is_empty()
        {
            boxes.push((i, Some(only)));
        }
    }
    for (i, labelled) in boxes {
        recs[i].lifted = true;
        if let Some(only) = labelled {
            recs[only].basic.description = recs[i].basic.description.clone();
        }
    }
}

/// Whether `r` is named after its tooltip: its name is its description's
/// first line.
fn named_after_its_tooltip(r: &Rec) -> bool {
    let name = r.basic.name.trim();
    !name.is_empty() && super::tooltip_line(&r.basic.description).is_some_and(|line| line == name)
}

/// Roles of what opens apart from the element that holds it in the tree:
/// a menu button's menu, a popover, a window.
fn opens_apart(role: Role) -> bool {
    role.is_window() || matches!(role, Role::Menu | Role::PopupMenu)
}

/// `text` when a name is `text`, a space and `text` again; `None` otherwise.
/// A label as written with mnemonics (`_All Pages`, `Save __as`) as it
/// shows (`All Pages`, `Save _as`): an underscore marks the letter after
/// it, two are one shown. `None` for a name with no mnemonic.
fn without_mnemonic(name: &str) -> Option<String> {
    if !name.contains('_') {
        return None;
    }
    let mut shown = String::with_capacity(name.len());
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        match c {
            '_' => shown.extend(chars.next()),
            other => shown.push(other),
        }
    }
    Some(shown)
}

fn said_twice(name: &str) -> Option<&str> {
    let half = name.len().checked_sub(1)? / 2;
    let (first, rest) = name.split_at_checked(half)?;
    rest.strip_prefix(' ')
        .filter(|second| !first.is_empty() && *second == first)
        .map(|_| first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::fixtures::{has, rec, recs};
    use uidelta_model::{State, StateSet};

    #[test]
    fn gtk4_tooltips_are_left_out_with_what_is_in_them() {
        // GNOME Calculator's window as GTK 4.8 gives it with the mode
        // button's tooltip showing: the button says it as its description.
        let mut name = TOOLTIP_WINDOW.to_owned();
        clean_name(&mut name, &[]);
        assert_eq!(name, TOOLTIP_WINDOW, "kept for the rule to know it");
        let mut name = "GtkBox".to_owned();
        clean_name(&mut name, &[]);
        assert_eq!(name, "");
        let mut recs = vec![
            rec("frame", "Calculator", &[1, 2, 4]),
            rec("push button", "Basic", &[]),
            rec("filler", TOOLTIP_WINDOW, &[3]),
            rec("label", "Mode selection", &[]),
            rec("tool tip", "Undo", &[5]),
            rec("label", "Undo", &[]),
        ];
        recs[1].basic.description = "Mode selection".to_owned();
        leave_out_tooltips(&mut recs);
        let out: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].left_out).collect();
        // The tree is built without what is left out and all in it.
        assert_eq!(out, [2, 4], "the tooltips");
    }

    #[test]
    fn gtk4_type_names_and_doubled_mnemonics_are_no_names() {
        for name in [
            "GtkButton",
            "GtkBuiltinIcon",
            "AdwHeaderBar",
            "GtkLevelBar2",
        ] {
            assert!(is_type_name(name, &[]), "{name}");
        }
        for name in [
            "Gtk",
            "Gtkbutton",
            "GtkButton 2",
            "MyGtkButton",
            "Tab",
            "",
            "Gtk Demo",
        ] {
            assert!(!is_type_name(name, &[]), "{name}");
        }
        // The application's own classes, by its id.
        let nautilus = type_prefixes("org.gnome.Nautilus");
        assert_eq!(nautilus, ["Nautilus"]);
        for name in ["NautilusToolbar", "NautilusGridCell", "AdwFlap"] {
            assert!(is_type_name(name, &nautilus), "{name}");
        }
        for name in [
            "Nautilus",
            "Nautilus Toolbar",
            "MyProjects",
            "NautilusFiles.txt",
        ] {
            assert!(!is_type_name(name, &nautilus), "{name}");
        }
        let editor = type_prefixes("org.gnome.TextEditor");
        assert_eq!(editor, ["TextEditor", "Text", "Editor"]);
        assert!(is_type_name("EditorWindow", &editor));
        // By its program's name.
        let program = type_prefixes("gnome-text-editor");
        assert_eq!(program, ["Gnome", "Text", "Editor", "TextEditor"]);
        assert!(is_type_name("EditorOpenPopover", &program));
        assert!(!is_type_name("Editor", &program));
        assert_eq!(type_prefixes("gtk4-demo"), ["Gtk4", "Demo"]);
        assert!(type_prefixes("gtk4demo").is_empty());
        assert!(type_prefixes("Gimp-2.10").is_empty());
        assert!(type_prefixes("org.gnome.tv").is_empty());
        assert_eq!(type_prefixes("org.example.Tv"), Vec::<String>::new());
        assert_eq!(mnemonic_doubled("_Next Next"), Some("Next"));
        assert_eq!(mnemonic_doubled("Save _As Save As"), Some("Save As"));
        assert_eq!(mnemonic_doubled("_Cancel Cancel"), Some("Cancel"));
        for name in ["Next Next", "_Next", "_Next Back", "snake_case name", "_ "] {
            assert_eq!(mnemonic_doubled(name), None, "{name}");
        }
    }

    #[test]
    fn gtk4_item_cells_are_named_after_the_cell_they_hold() {
        let mut recs = vec![
            rec("table", "", &[1, 5, 7]),
            rec("table cell", "", &[2]),
            rec("table cell", "notes.txt", &[3, 4]),
            rec("image", "", &[]),
            rec("label", "notes.txt", &[]),
            // Two cells inside: left as they are.
            rec("table cell", "", &[6, 4]),
            rec("table cell", "a", &[]),
            // A named cell holding a cell: left as it is.
            rec("table cell", "Row", &[8]),
            rec("table cell", "b", &[]),
        ];
        name_cells_after_the_cell_they_hold(&mut recs);
        assert_eq!(recs[1].basic.name, "notes.txt");
        assert!(recs[2].lifted && recs[4].says_again && !recs[3].says_again);
        assert_eq!(recs[5].basic.name, "");
        assert_eq!(recs[7].basic.name, "Row");
        assert!(!recs[6].lifted && !recs[8].lifted);
    }

    #[test]
    fn gtk4_menu_buttons_are_one_button() {
        let mut recs = vec![
            rec("tool bar", "", &[1, 4, 6]),
            rec("push button", "Main Menu", &[2]),
            rec("push button", "Main Menu", &[3]),
            rec("image", "", &[]),
            // A button holding another of another name: both stay.
            rec("push button", "Outer", &[5]),
            rec("push button", "Inner", &[]),
            // A button alone: stays.
            rec("push button", "Back", &[]),
        ];
        lift_menu_button_boxes(&mut recs);
        let lifted: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].lifted).collect();
        assert_eq!(lifted, [1]);

        // One showing a label: its tooltip names the box alone, the label
        // the button, which keeps it and takes the tooltip.
        let mut labelled = vec![
            rec("tool bar", "", &[1]),
            rec("push button", "GtkMenuButton", &[2]),
            rec("push button", "Basic", &[3]),
            rec("label", "Basic", &[]),
        ];
        labelled[1].basic.description = "Mode selection".into();
        let prefixes = type_prefixes("gnome-calculator");
        clean_name(&mut labelled[1].basic.name, &prefixes);
        name_controls_after_their_tooltip(&mut labelled);
        lift_menu_button_boxes(&mut labelled);
        assert!(labelled[1].lifted && !labelled[2].lifted);
        // Open, its own popover (a filler) beside the button names nothing.
        let mut open = labelled.clone();
        open[1].lifted = false;
        open[1].basic.name = String::new();
        open[2].basic.description = String::new();
        open[1].children.push(4);
        open.push(rec("filler", "", &[5]));
        open.push(rec("label", "No Recent Documents", &[]));
        name_from_content(&mut open);
        name_controls_after_their_tooltip(&mut open);
        lift_menu_button_boxes(&mut open);
        assert_eq!(open[1].basic.name, "Mode selection");
        assert!(open[1].lifted && !open[2].lifted);
        assert_eq!(labelled[2].basic.name, "Basic");
        assert_eq!(labelled[2].basic.description, "Mode selection");

        // Open: the box holds its menu too, whose labels name nothing.
        let mut open = vec![
            rec("tool bar", "", &[1]),
            rec("push button", "", &[2, 4]),
            rec("push button", "", &[3]),
            rec("image", "", &[]),
            rec("menu", "", &[5, 6]),
            rec("label", "Icon Size", &[]),
            rec("menu item", "New Window", &[]),
        ];
        open[1].basic.description = "Main Menu".into();
        open[2].basic.description = "Main Menu".into();
        name_from_content(&mut open);
        name_controls_after_their_tooltip(&mut open);
        lift_menu_button_boxes(&mut open);
        assert_eq!(open[1].basic.name, "Main Menu");
        assert!(open[1].lifted && !open[2].lifted);
    }

    #[test]
    fn gtk4_icon_buttons_are_named_after_their_tooltip() {
        let mut recs = vec![
            rec("tool bar", "", &[1, 2, 4]),
            rec("push button", "", &[]),
            rec("push button", "", &[3]),
            rec("label", "Home", &[]),
            rec("push button", "", &[]),
        ];
        recs[1].basic.description = "Back".into();
        recs[2].basic.description = "Open your personal folder".into();
        name_from_content(&mut recs);
        name_controls_after_their_tooltip(&mut recs);
        // A tooltip names an icon button; a label inside names its button
        // first; a button with neither stays nameless.
        assert_eq!(recs[1].basic.name, "Back");
        assert_eq!(recs[2].basic.name, "Home");
        assert_eq!(recs[4].basic.name, "");
    }

    #[test]
    fn gtk4_buttons_and_tabs_are_named_after_their_labels() {
        let mut recs = vec![
            rec("page tab list", "Tab list", &[1, 3]),
            rec("page tab", "Tab", &[2]),
            rec("label", "page 1", &[]),
            rec("page tab", "Tab", &[4]),
            rec("filler", "", &[5, 6, 7]),
            rec("label", "Sans Regular", &[]),
            rec("separator", "", &[]),
            rec("push button", "", &[8]),
            rec("label", "Close", &[]),
        ];
        name_from_content(&mut recs);
        let names: Vec<&str> = recs.iter().map(|r| r.basic.name.as_str()).collect();
        // A tab's labels, those inside a filler too; a button's label is
        // the button's, not the tab's it is in.
        assert_eq!(
            names,
            [
                "Tab list",
                "page 1",
                "page 1",
                "Sans Regular",
                "",
                "Sans Regular",
                "",
                "Close",
                "Close"
            ]
        );
    }

    #[test]
    fn gtk4_drop_downs_show_the_item_they_show_as_their_value() {
        use uidelta_model::{Rect, State};
        // gnome-calculator's angle unit: the button's stack holds a
        // `(None)` page not shown (no size) beside the item chosen; its
        // list open, in a popover of the combo box, has items holding one
        // label (and a check mark).
        let mut recs = vec![
            rec("panel", "", &[1, 15]),
            rec("combo box", "", &[2, 9]),
            rec("push button", "", &[3]),
            rec("panel", "", &[4, 6]),
            rec("panel", "", &[5]),
            rec("label", "(None)", &[]),
            rec("panel", "", &[7]),
            rec("filler", "", &[8]),
            rec("label", "Degrees", &[]),
            rec("filler", "", &[10]),
            rec("list", "", &[11, 13]),
            rec("list item", "", &[12]),
            rec("label", "Degrees", &[]),
            rec("list item", "", &[14, 16]),
            rec("label", "Radians", &[]),
            // A row of several labels is named by none.
            rec("list item", "", &[17, 18]),
            rec("image", "", &[]),
            rec("label", "7×8", &[]),
            rec("label", "56", &[]),
        ];
        recs[5].bounds = Some(Rect::new(23, 246, 0, 0));
        recs[8].bounds = Some(Rect::new(23, 246, 54, 16));
        recs[2].basic.states.insert(State::Focused);
        recs[2].basic.states.insert(State::Pressed);
        name_from_content(&mut recs);
        drop_downs_show_their_choice(&mut recs);
        assert_eq!(recs[2].basic.name, "Degrees");
        assert!(recs[2].left_out && !recs[1].left_out);
        assert_eq!(recs[1].value.as_deref(), Some("Degrees"));
        let states = recs[1].basic.states;
        assert!(states.contains(State::Focused) && states.contains(State::Expanded));
        assert_eq!(recs[11].basic.name, "Degrees");
        assert_eq!(recs[13].basic.name, "Radians");
        assert_eq!(recs[15].basic.name, "");
        // Nothing laid out: every label counts.
        let mut unplaced = vec![
            rec("push button", "", &[1, 2]),
            rec("label", "(None)", &[]),
            rec("label", "Degrees", &[]),
        ];
        unplaced[1].bounds = Some(Rect::new(0, 0, 0, 0));
        unplaced[2].bounds = Some(Rect::new(0, 0, 0, 0));
        name_from_content(&mut unplaced);
        assert_eq!(unplaced[0].basic.name, "(None) Degrees");
    }

    #[test]
    fn gtk4_buttons_named_twice_after_their_labels_are_named_once() {
        let mut recs = vec![
            rec("panel", "", &[1, 3, 5, 7, 9]),
            rec("push button", "9 9", &[2]),
            rec("label", "9", &[]),
            rec("push button", "sin sin", &[4]),
            rec("label", "sin", &[]),
            // Twice over, but not its label twice: it stays.
            rec("push button", "Bora Bora", &[6]),
            rec("label", "Bora Bora", &[]),
            rec("push button", "Ha Ha", &[8]),
            rec("label", "Laugh", &[]),
            // A name of its own.
            rec("push button", "Add", &[10]),
            rec("label", "+", &[]),
        ];
        name_from_content(&mut recs);
        let names: Vec<&str> = recs.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "",
                "9",
                "9",
                "sin",
                "sin",
                "Bora Bora",
                "Bora Bora",
                "Ha Ha",
                "Laugh",
                "Add",
                "+"
            ]
        );
        assert_eq!(said_twice("= ="), Some("="));
        assert_eq!(said_twice("Save As Save As"), Some("Save As"));
        for name in ["", " ", "9", "99", "9  9", "9 8", "a b a", "é é é"] {
            assert_eq!(said_twice(name), None, "{name}");
        }
        assert_eq!(said_twice("é é"), Some("é"));
    }

    #[test]
    fn gtk4_check_buttons_named_as_their_labels_are_written_are_named_as_they_show() {
        let mut recs = vec![
            rec("panel", "", &[1, 3, 5, 7]),
            rec("check box", "_All Pages", &[2]),
            rec("label", "All Pages", &[]),
            rec("check box", "Save __as", &[4]),
            rec("label", "Save _as", &[]),
            // An underscore of the name's own, not its label's mnemonic.
            rec("check box", "snake_case", &[6]),
            rec("label", "Case", &[]),
            rec("radio button", "Pag_es:", &[8]),
            rec("label", "Pages:", &[]),
        ];
        name_from_content(&mut recs);
        let names: Vec<&str> = recs.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "",
                "All Pages",
                "All Pages",
                "Save _as",
                "Save _as",
                "snake_case",
                "Case",
                "Pages:",
                "Pages:"
            ]
        );
        assert_eq!(without_mnemonic("_Open"), Some("Open".to_owned()));
        assert_eq!(without_mnemonic("a__b"), Some("a_b".to_owned()));
        assert_eq!(without_mnemonic("end_"), Some("end".to_owned()));
        assert_eq!(without_mnemonic("Open"), None);
    }

    #[test]
    fn states_gtk4_leaves_out_are_filled_in_from_the_whole_capture() {
        use State::{Enabled, Sensitive, Showing, Visible};
        // GTK 4.8: sensitive, visible; showing only on the shown window.
        let mut gtk4 = recs(&[
            ("application", &[], &[1, 2]),
            ("frame", &[Sensitive, Visible, Showing], &[3]),
            ("dialog", &[Sensitive, Visible], &[4]),
            ("panel", &[Sensitive, Visible], &[5]),
            ("push button", &[Sensitive, Visible], &[]),
            ("push button", &[Visible], &[]),
        ]);
        fill_in_states(&mut gtk4);
        // In the shown window: showing; enabled when sensitive.
        assert!(has(&gtk4[3], Enabled) && has(&gtk4[3], Showing));
        assert!(!has(&gtk4[5], Enabled) && has(&gtk4[5], Showing));
        // A dialog says only that it is visible: it shows, and so does
        // what is in it.
        assert!(has(&gtk4[2], Showing));
        assert!(has(&gtk4[4], Enabled) && has(&gtk4[4], Showing));

        // GTK 4.8 keeps a hidden notebook page visible, with no size; a
        // page object with no extents at all is judged by its parent.
        let mut pages = recs(&[
            ("frame", &[Visible, Showing], &[1, 2]),
            ("panel", &[Visible], &[3]),
            ("panel", &[Visible], &[4]),
            ("text", &[Visible], &[]),
            ("text", &[Visible], &[]),
        ]);
        pages[2].bounds = Some(Rect::new(224, 83, 0, 0));
        pages[3].bounds = Some(Rect::new(224, 83, 566, 507));
        pages[4].bounds = Some(Rect::new(224, 83, 0, 0));
        fill_in_states(&mut pages);
        assert!(has(&pages[1], Showing) && has(&pages[3], Showing));
        assert!(!has(&pages[2], Showing) && !has(&pages[4], Showing));

        // A capture of one window that does not show: a frame that says
        // not, a dialog closed (no longer visible).
        let mut hidden = recs(&[
            ("frame", &[Sensitive, Visible], &[1]),
            ("push button", &[Sensitive, Visible], &[]),
        ]);
        fill_in_states(&mut hidden);
        assert!(!has(&hidden[1], Showing));
        let mut closed = recs(&[
            ("application", &[], &[1, 2]),
            ("frame", &[Sensitive, Visible, Showing], &[]),
            ("dialog", &[Sensitive], &[3]),
            ("push button", &[Sensitive, Visible], &[]),
        ]);
        fill_in_states(&mut closed);
        assert!(!has(&closed[2], Showing) && !has(&closed[3], Showing));
    }

    #[test]
    fn a_toolkit_that_says_every_state_is_left_as_it_is() {
        use State::{Enabled, Sensitive, Showing, Visible};
        // GTK 3 says everything itself: nothing changes.
        let spec: &[(&str, &[State], &[usize])] = &[
            ("application", &[], &[1]),
            ("frame", &[Enabled, Sensitive, Visible, Showing], &[2, 3]),
            ("push button", &[Enabled, Sensitive, Visible, Showing], &[]),
            ("push button", &[Sensitive, Visible], &[]),
        ];
        let mut gtk3 = recs(spec);
        fill_in_states(&mut gtk3);
        for (r, (_, states, _)) in gtk3.iter().zip(spec) {
            assert_eq!(r.basic.states, StateSet::of(states));
        }
    }
}
