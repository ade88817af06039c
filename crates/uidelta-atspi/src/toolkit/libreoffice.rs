//! LibreOffice (Writer, Calc, Impress: the program `soffice`). With its
//! gtk3 plugin it says it is GTK (`ToolkitName` `gtk`), through an ATK
//! bridge of its own, and differs from GTK 3 in what its objects answer;
//! its dialogs are GTK 3 widgets, and GTK 3's rules hold for them.

use std::time::Duration;

use uidelta_model::{Rect, Role, State, StateSet};

use super::gtk3;
use crate::capture::{parents, Rec};

/// LibreOffice's name on the accessibility bus, whatever its module
/// (Writer, Calc and Impress are one program).
const PROGRAM: &str = "soffice";

/// Whether the application named `app` on the bus is LibreOffice.
pub(crate) fn is_libreoffice(app: &str) -> bool {
    app == PROGRAM
}

/// LibreOffice brings its tool bars, menus and status bar up to date after
/// a change at its main loop's next wake-up, sending nothing meanwhile:
/// 300 ms later (its bindings' first timer) after an edit (the Undo button
/// a first edit enables, the Cut and Copy a selection enables), but after
/// a move of the text cursor, whose caret then blinks anew, at the caret's
/// next blink, 600 ms later (GTK's blink time, 1200 ms, halved): the
/// paragraph style, the table's buttons and the cell named in the status
/// bar, 630-680 ms after the arrow key that moved into another table
/// cell. A quiet window of 750 ms takes them in with the change.
const QUIET_WINDOW: Duration = Duration::from_millis(750);

/// The quiet window after which the application named `app` may be taken
/// as settled, when it needs a longer one than most: LibreOffice's.
pub fn settle_window(app: &str) -> Option<Duration> {
    is_libreoffice(app).then_some(QUIET_WINDOW)
}

/// What a mirror of LibreOffice reads again at every capture, as it
/// changes without events: its paragraphs, whose text and extent change
/// without an event when Impress's placeholder is typed into (its title
/// reads `""` through the mirror, `"Quarterly review"` through a whole
/// walk); they are few where they show (a document's on screen, a cell
/// being edited). And the cell under Calc's cursor: Calc makes its cells
/// anew at every read but that one, which it keeps, and whose attributes
/// change without an event (`isdropdown` when an AutoFilter is set on its
/// column: the other cells of the row said it at once, the cursor's only
/// at the next whole walk): the cell of a sheet that says it is focused.
pub(crate) fn reads_again(recs: &[Rec]) -> Vec<usize> {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut again: Vec<usize> = (0..recs.len())
        .filter(|&i| role(&recs[i]) == Role::Paragraph)
        .collect();
    for sheet in recs
        .iter()
        .filter(|r| r.basic.states.contains(State::ManagesDescendants))
    {
        again.extend(sheet.children.iter().copied().filter(|&c| {
            role(&recs[c]) == Role::TableCell && recs[c].basic.states.contains(State::Focused)
        }));
    }
    again.sort_unstable();
    again
}

/// Row and column (0-based) of a Calc cell from its name, its address
/// (`A1`, `M42`, `XFD1048576`): how the cells on screen of a sheet are
/// found from its corner cells. Their index does not say it while a
/// formula is written into a cell (and the sheet says it is not
/// editable): `-1` for most cells, `0` for some (`B2`, holding a number).
/// Read by their index, the sheet read as one column of 2^31 children at
/// the first key of a formula, every cell on screen removed. (Their text
/// and states go too while a formula is written: that, Calc says.)
pub(crate) fn cell_address(name: &str) -> Option<(i32, i32)> {
    let digits = name.find(|c: char| c.is_ascii_digit())?;
    let (letters, number) = name.split_at(digits);
    if letters.is_empty() || letters.len() > 3 || !letters.bytes().all(|b| b.is_ascii_uppercase()) {
        return None;
    }
    if number.len() > 7 || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let column = letters
        .bytes()
        .fold(0i32, |n, b| n * 26 + i32::from(b - b'A') + 1);
    let row: i32 = number.parse().ok()?;
    (row >= 1).then_some((row - 1, column - 1))
}

/// Impress's prompts, shown in a placeholder until it is written into
/// (in LibreOffice's English user interface). A placeholder given the
/// focus, or text inserted into it, takes its prompt for text: typing
/// `First` into a subtitle read `Click to add TextFirst`, on screen too.
/// A user enters it with a click, after which it is empty.
const PROMPTS: [&str; 3] = [
    "Click to add Title",
    "Click to add Text",
    "Click to add Notes",
];

/// Whether a paragraph reading `text` is a placeholder's prompt.
pub(crate) fn shows_a_prompt(text: &str) -> bool {
    PROMPTS.contains(&text)
}

/// What LibreOffice lays out again without `bounds-changed`, whose
/// bounds a mirror reads at every capture (and, where they changed, those
/// of everything below): the parts of each window's root pane and what is
/// in them. The document's area shrinks when a tool bar opens below it
/// (the Table bar, once the cursor is in a table), and the status bar's
/// fields change their widths when one's text does (`Table1:A1`). Some
/// thirty objects a window.
pub(crate) fn laid_out_silently(recs: &[Rec]) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        if Role::from_name(&r.basic.raw_role) != Role::RootPane {
            continue;
        }
        out.push(i);
        for &part in &r.children {
            out.push(part);
            out.extend(recs.get(part).map_or(&[][..], |p| &p.children[..]));
        }
    }
    out.retain(|&i| i < recs.len());
    out
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

/// LibreOffice (its gtk3 plugin) makes a combo box with an entry of three
/// widgets in a box: the entry, a GTK combo box that it keeps hidden and
/// that its label names (`Size:` in Format > Character), and a toggle
/// button that opens the list. The entry is what shows and takes the
/// text: a nameless one takes the hidden combo box's name, and the combo
/// box, which never shows, is left out with its menu and text (`text
/// "Size:" = "12 pt"`, where the label was left out as naming the hidden
/// box, and the size said nothing of what it was). Without an entry (the
/// entry hidden, the toggle button showing: Format > Paragraph's Line
/// spacing), the toggle button is what shows, and takes the name. Which
/// is the face is read from `visible`, which the widgets of a page not
/// shown keep: read from `showing`, the entry took the name while its page
/// was not shown and gave it to the toggle button when it was, two lines
/// for each such box at the page's first showing.
pub(crate) fn name_faces_of_hidden_combo_boxes(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut named = Vec::new();
    for r in recs.iter() {
        let [a, b, c] = r.children[..] else {
            continue;
        };
        let find = |want: fn(Role) -> bool| [a, b, c].into_iter().find(|&k| want(role(&recs[k])));
        let (Some(entry), Some(combo), Some(toggle)) = (
            find(Role::is_text_input),
            find(|r| r == Role::ComboBox),
            find(|r| r == Role::ToggleButton),
        ) else {
            continue;
        };
        let visible = |k: usize| {
            let states = recs[k].basic.states;
            states.contains(State::Visible) || states.contains(State::Showing)
        };
        if !visible(combo) {
            let face = if !visible(entry) && visible(toggle) {
                toggle
            } else {
                entry
            };
            named.push((face, combo));
        }
    }
    for (face, combo) in named {
        let name = recs[combo].basic.name.trim().to_owned();
        if recs[face].basic.name.trim().is_empty() && !name.is_empty() {
            recs[face].basic.name = name;
        }
        recs[combo].left_out = true;
    }
}

/// LibreOffice (its gtk3 plugin) lays the tabs of a dialog that has more
/// than fit in one row out in two notebooks, one row above the other
/// (Format Cells, Format > Paragraph). The row whose tabs are not chosen
/// shows one of its own chosen: a nameless tab, not `sensitive` (though
/// `enabled`, where the real tabs are both), with an empty page, so that
/// none of its real tabs looks chosen. Read as it says, the dialog had two
/// chosen tabs, one nameless. Such a tab is left out. (A nameless tab with
/// something on its page stays: the Font page's one tab of Western fonts,
/// its tabs hidden.)
pub(crate) fn leave_out_tab_row_placeholders(recs: &mut [Rec]) {
    for i in 0..recs.len() {
        let r = &recs[i];
        let states = r.basic.states;
        if Role::from_name(&r.basic.raw_role) == Role::PageTab
            && r.basic.name.trim().is_empty()
            && !states.contains(State::Sensitive)
            && r.children.iter().all(|&c| recs[c].children.is_empty())
        {
            recs[i].left_out = true;
        }
    }
}

/// How long a pointer click on LibreOffice holds its button down: a
/// hand's press (see `Profile::click_hold`).
pub(crate) const CLICK_HOLD: Duration = Duration::from_millis(100);

/// LibreOffice, with a native menu bar (its gtk3 plugin), reports a
/// window's root pane at the top of the window, over the native bar, until
/// the first pointer event in that window: the box the pane is in, below
/// the bar, is in its place (y 75 under a bar 25 high at 50), the pane at
/// 50, and all in the pane higher than it shows by the bar's height (a
/// fresh Calc's cell C3 at y 222 shows at 247; Writer's Bold at 91 at
/// 116). A click at a centre so read lands on what is above it. How far
/// below its reported place such a pane shows, `pane` and `holder` being
/// where the pane and the element that lists it among its children (not
/// the window it names as its parent) are reported: down to the holder's
/// top; 0 for a pane in its holder, or either without a place.
pub(crate) fn root_pane_drop(pane: Rect, holder: Rect) -> i32 {
    let placed = |r: Rect| r.h > 0 && r.y != i32::MIN;
    if placed(pane) && placed(holder) && holder.y > pane.y {
        holder.y.saturating_sub(pane.y)
    } else {
        0
    }
}

/// LibreOffice's GTK widgets welded into its own windows (Calc's Name Box
/// and Input line in the formula bar, the buttons beside its sheet tabs)
/// report where they show, while the window holding each reports with its
/// root pane, higher than it shows (see [`root_pane_drop`]): such a widget
/// fills its holder's width at `down` below the holder's reported top
/// (the Name Box at 155 in its holder at 130, under a bar 25 high). It,
/// and all in it, is in its place: moved with the pane, a click on the
/// sheet tabs' Add button landed on the status bar below it.
pub(crate) fn welded_in_place(holder: Rect, widget: Rect, down: i32) -> bool {
    down > 0
        && widget.x == holder.x
        && widget.w == holder.w
        && widget.y == holder.y.saturating_add(down)
}

/// LibreOffice's dialogs are GTK 3's widgets laid out in GTK's grids,
/// which list their children last added first: Slide Properties' margins
/// read Bottom, Top, Right, Left, where they show Left, Right, Top, Bottom.
/// GTK 3's rule puts them back in reading order (see
/// [`gtk3::read_grids_in_reading_order`]), inside dialogs only: LibreOffice's
/// document windows are its own toolkit's, in an order of their own.
pub(crate) fn read_dialog_grids_in_reading_order(recs: &mut [Rec]) {
    let mut in_dialog = vec![false; recs.len()];
    let Some(app) = recs.first() else {
        return;
    };
    let mut stack: Vec<usize> = app
        .children
        .iter()
        .copied()
        .filter(|&w| Role::from_name(&recs[w].basic.raw_role) == Role::Dialog)
        .collect();
    while let Some(i) = stack.pop() {
        in_dialog[i] = true;
        stack.extend(&recs[i].children);
    }
    gtk3::read_grids_in_reading_order_where(recs, |i| in_dialog[i]);
}

/// Each root pane of `recs` with the element that lists it among its
/// children, by index.
pub(crate) fn root_panes(recs: &[Rec]) -> Vec<(usize, usize)> {
    let parent = parents(recs);
    recs.iter()
        .enumerate()
        .filter(|(_, r)| Role::from_name(&r.basic.raw_role) == Role::RootPane)
        .filter_map(|(i, _)| parent[i].map(|p| (i, p)))
        .collect()
}

/// The elements of every root pane reported above the top of what it is
/// in (see [`root_pane_drop`]), each with how far below its reported place
/// it shows, and the widgets in their place already among them (see
/// [`welded_in_place`]), which are not moved, nor is anything in them.
fn misplaced(recs: &[Rec]) -> (Vec<(usize, i32)>, Vec<usize>) {
    let (mut moved, mut in_place) = (Vec::new(), Vec::new());
    for (pane, holder) in root_panes(recs) {
        let (Some(at), Some(around)) = (recs[pane].bounds, recs[holder].bounds) else {
            continue;
        };
        let down = root_pane_drop(at, around);
        if down == 0 {
            continue;
        }
        let mut stack = vec![pane];
        while let Some(i) = stack.pop() {
            moved.push((i, down));
            for &c in &recs[i].children {
                match (recs[i].bounds, recs[c].bounds) {
                    (Some(h), Some(w)) if welded_in_place(h, w, down) => in_place.push(c),
                    _ => stack.push(c),
                }
            }
        }
    }
    (moved, in_place)
}

/// Moves every root pane reported above the top of what it is in down to
/// where it shows, with all in it but the widgets in their place already
/// (see [`misplaced`]), which it answers.
pub(crate) fn place_root_panes_in_their_parents(recs: &mut [Rec]) -> Vec<usize> {
    let (moved, in_place) = misplaced(recs);
    for (i, down) in moved {
        if let Some(b) = recs[i].bounds.as_mut() {
            b.y = b.y.saturating_add(down);
        }
    }
    in_place
}

/// Calc's Input line (the paragraph in the formula tool bar's panel,
/// which LibreOffice says is defunct from the start) says it takes the
/// focus whenever a cell is chosen (a click, a move), as it comes to show
/// the cell's content, and never says it lost it: not when the sheet takes
/// the keyboard back (Enter after typing into a cell: the sheet says it is
/// focused again), not when a dialog opens. Read as it says, the focus
/// stayed on the Input line from the first cell chosen on, and no move of
/// the cell cursor said where the keyboard went. What is in an element
/// that says it is defunct loses `focused`: the focus is the cell the
/// cursor is on, which says it is focused, and, while the Input line is
/// written into, the cell's own editor, which says so and shows the same
/// text.
pub(crate) fn unfocus_what_defunct_elements_hold(recs: &mut [Rec]) {
    let mut dropped = Vec::new();
    for r in recs.iter() {
        if r.basic.states.contains(State::Defunct) {
            dropped.extend(
                r.children
                    .iter()
                    .copied()
                    .filter(|&c| recs[c].basic.states.contains(State::Focused)),
            );
        }
    }
    for i in dropped {
        recs[i].basic.states.remove(State::Focused);
    }
}

/// The states a Calc cell drops in the sheet's formula mode, whatever its
/// own: `editable` and `resizable` (which a cell not protected has), and
/// `focusable` (which every cell has).
const DROPPED_IN_FORMULA_MODE: [State; 3] = [State::Editable, State::Resizable, State::Focusable];

/// While a formula is written into a Calc cell (the sheet's formula mode,
/// in which the cells clicked go into the formula), the sheet's cells give
/// no text, though they show theirs still, and say they are neither
/// `editable`, `resizable` nor `focusable` (a cell otherwise always is
/// `focusable`, a protected one too: that tells the mode); `selected` says
/// which cells the formula refers to. Read as they say, every cell with a
/// value was emptied at the first key of `=` and filled again at Enter,
/// and every cell on screen lost three states and got them back. Their
/// values and those states are marked unread: a diff keeps what they had
/// (see [`uidelta_model::NodeData::unread`]).
pub(crate) fn leave_formula_mode_cells_unread(recs: &mut [Rec]) {
    let mut unread = Vec::new();
    for r in recs.iter() {
        if Role::from_name(&r.basic.raw_role) != Role::Table
            || !r.basic.states.contains(State::ManagesDescendants)
        {
            continue;
        }
        unread.extend(r.children.iter().copied().filter(|&c| {
            let cell = &recs[c].basic;
            Role::from_name(&cell.raw_role) == Role::TableCell
                && !cell.states.contains(State::Focusable)
                && !cell.states.contains(State::Defunct)
        }));
    }
    for i in unread {
        recs[i].value = None;
        recs[i].unread = uidelta_model::Unread {
            value: true,
            states: StateSet::of(&DROPPED_IN_FORMULA_MODE),
        };
    }
}

/// The tool bar that holds Calc's Name Box when it names the cell `name`:
/// a text of a tool bar whose value is the cell's name.
fn name_box_bar(recs: &[Rec], parent: &[Option<usize>], name: &str) -> Option<usize> {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    (0..recs.len())
        .filter(|&i| {
            let r = &recs[i];
            !r.vanished && role(r) == Role::Text && r.value.as_deref().map(str::trim) == Some(name)
        })
        .find_map(|i| {
            let mut up = parent[i];
            while let Some(p) = up {
                if role(&recs[p]) == Role::ToolBar {
                    return Some(p);
                }
                up = parent[p];
            }
            None
        })
}

/// Whether something is being typed into a paragraph (a cell's editor, the
/// Input line, a document): one says it is focused.
fn typing(recs: &[Rec]) -> bool {
    recs.iter().any(|r| {
        !r.vanished
            && Role::from_name(&r.basic.raw_role) == Role::Paragraph
            && r.basic.states.contains(State::Focused)
    })
}

/// Calc keeps one object for the cell under its cursor, and does not bring
/// its text up to date when the cell's content goes without being edited:
/// after Delete (the content cleared) or a row inserted above it, the cell
/// read as it was (`A1 = "alpha"` while it shows nothing) until the cursor
/// moved on, and the change was reported with that move, as if the move
/// had made it. The Input line (the paragraph of the tool bar that holds
/// the Name Box, a text whose value is the cell's name) shows the cell's
/// content, and is brought up to date: when it is empty and nothing is
/// being typed (no paragraph says it is focused), the focused cell of a
/// sheet is empty too. (A cell whose content went for another, as when the
/// row it was in is deleted, still reads as it was: the Input line shows
/// what was typed, not what the cell shows.)
pub(crate) fn empty_the_cursor_cell_with_the_input_line(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let focused = |r: &Rec| !r.vanished && r.basic.states.contains(State::Focused);
    if typing(recs) {
        return;
    }
    let parent = parents(recs);
    let Some(cell) = (0..recs.len()).find(|&i| {
        role(&recs[i]) == Role::TableCell
            && focused(&recs[i])
            && parent[i].is_some_and(|t| recs[t].basic.states.contains(State::ManagesDescendants))
    }) else {
        return;
    };
    let name = recs[cell].basic.name.trim();
    if cell_address(name).is_none() || recs[cell].value.is_none() {
        return;
    }
    let Some(bar) = name_box_bar(recs, &parent, name) else {
        return;
    };
    let mut paragraphs = Vec::new();
    let mut stack = vec![bar];
    while let Some(i) = stack.pop() {
        if role(&recs[i]) == Role::Paragraph && !recs[i].vanished {
            paragraphs.push(i);
        }
        stack.extend(&recs[i].children);
    }
    if let [input] = paragraphs[..] {
        if recs[input].value.as_deref().is_none_or(str::is_empty) {
            recs[cell].value = None;
        }
    }
}

/// LibreOffice leaves an element of a document's window saying it is
/// focused after another of its windows takes the keyboard: an Impress
/// slide's title placeholder goes on saying so when the user goes back to
/// another presentation or to a Writer document, whose paragraph says it
/// is focused too. The focus is the last focused element (in document
/// order), so it read as the stale one of a later window, and no focus
/// move was reported. When one window says it is active and holds a
/// focused element, what the other windows hold loses `focused`. So it
/// does when the active window is a modal dialog, which holds the keyboard
/// even when nothing in it has the focus: Format Cells opens with none,
/// while the sheet goes on saying it is focused (the focus reads as gone
/// to nothing, not to the sheet). (When another active window holds none,
/// as when a new document's window says it is focused while the keyboard,
/// without a window manager, stays in the window that says it is active,
/// nothing is known and nothing changes.)
pub(crate) fn unfocus_windows_not_worked_in(recs: &mut [Rec]) {
    let Some(app) = recs.first() else {
        return;
    };
    if Role::from_name(&app.basic.raw_role) != Role::Application {
        return;
    }
    let windows = app.children.clone();
    let in_window = |recs: &[Rec], window: usize| {
        let mut all = Vec::new();
        let mut stack = vec![window];
        while let Some(i) = stack.pop() {
            all.push(i);
            stack.extend(&recs[i].children);
        }
        all
    };
    let mut active = windows
        .iter()
        .copied()
        .filter(|&w| recs[w].basic.states.contains(State::Active));
    let (Some(working), None) = (active.next(), active.next()) else {
        return;
    };
    let focused = |recs: &[Rec], i: usize| recs[i].basic.states.contains(State::Focused);
    let modal = recs[working].basic.states.contains(State::Modal);
    if !modal
        && !in_window(recs, working)
            .into_iter()
            .any(|i| focused(recs, i))
    {
        return;
    }
    for &window in windows.iter().filter(|&&w| w != working) {
        for i in in_window(recs, window) {
            recs[i].basic.states.remove(State::Focused);
        }
    }
}

/// Writer's document names the line its caret is on among its attributes
/// (`line-number`), as a status bar would: it changes when a key moves the
/// caret or text above it wraps, without an event (a mirror kept the old
/// line), and says nothing an agent acts on (the paragraph with the caret
/// says it is focused). It is left out; the page the caret is on
/// (`page-number`, `total-pages`) stays.
pub(crate) fn leave_out_the_caret_line(recs: &mut [Rec]) {
    for r in recs.iter_mut() {
        r.attributes.retain(|(k, _)| k != "line-number");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::fixtures::rec;
    use uidelta_model::Rect;

    #[test]
    fn the_caret_line_of_a_document_is_left_out_and_its_page_stays() {
        let mut r = vec![
            rec("document text", "Untitled 1", &[1]),
            rec("paragraph", "", &[]),
        ];
        let pairs = |p: &[(&str, &str)]| -> Vec<(String, String)> {
            p.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        r[0].attributes = pairs(&[
            ("column-number", "1"),
            ("line-number", "3"),
            ("page-number", "1"),
            ("total-pages", "1"),
        ]);
        r[1].attributes = pairs(&[("level", "")]);
        leave_out_the_caret_line(&mut r);
        assert_eq!(
            r[0].attributes,
            pairs(&[
                ("column-number", "1"),
                ("page-number", "1"),
                ("total-pages", "1")
            ])
        );
        assert_eq!(r[1].attributes, pairs(&[("level", "")]));
    }

    #[test]
    fn libreoffice_settles_after_its_tool_bars() {
        assert_eq!(settle_window("soffice"), Some(Duration::from_millis(750)));
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
    fn a_root_pane_reported_over_the_native_menu_bar_moves_into_its_box() {
        // As a fresh Calc reports its window: the native bar's box at 50,
        // the box below it at 75, the root pane in it at 50.
        let mut r = vec![
            rec("frame", "Calc", &[1]),
            rec("panel", "", &[2, 4]),
            rec("panel", "", &[3]),
            rec("menu bar", "", &[]),
            rec("panel", "", &[5]),
            rec("root pane", "Calc", &[6, 7]),
            rec("menu bar", "", &[]),
            rec("table cell", "C3", &[]),
        ];
        let at = |x, y, w, h| Some(Rect::new(x, y, w, h));
        r[0].bounds = at(57, 50, 1165, 924);
        r[1].bounds = at(57, 50, 1165, 924);
        r[2].bounds = at(57, 50, 1165, 25);
        r[3].bounds = at(57, 50, 1141, 25);
        r[4].bounds = at(57, 75, 1165, 899);
        r[5].bounds = at(57, 50, 1165, 899);
        r[6].bounds = at(57, 50, 1165, 0);
        r[7].bounds = at(262, 222, 82, 17);
        place_root_panes_in_their_parents(&mut r);
        let ys: Vec<Option<i32>> = r.iter().map(|r| r.bounds.map(|b| b.y)).collect();
        // The window, its native bar and the box stay; the pane and all in
        // it move down by the bar's height.
        assert_eq!(ys, [50, 50, 50, 50, 75, 75, 75, 247].map(Some).to_vec());

        // Once LibreOffice reports the pane in its box (after the first
        // pointer event), nothing moves.
        place_root_panes_in_their_parents(&mut r);
        assert_eq!(r[7].bounds, at(262, 247, 82, 17));
    }

    #[test]
    fn grids_read_in_reading_order_in_dialogs_only() {
        // Slide Properties' margins as GTK lists them, last first; and a
        // document window's boxes listed bottom first, as LibreOffice's
        // own toolkit does.
        let mut r = vec![
            rec("application", "soffice", &[1, 4]),
            rec("frame", "Impress", &[2, 3]),
            rec("panel", "", &[]),
            rec("panel", "", &[]),
            rec("dialog", "Slide Properties", &[5]),
            rec("panel", "Margins", &[6, 7, 8, 9]),
            rec("spin button", "Bottom:", &[]),
            rec("spin button", "Top:", &[]),
            rec("spin button", "Right:", &[]),
            rec("spin button", "Left:", &[]),
        ];
        let at = |x, y| Some(Rect::new(x, y, 100, 30));
        r[2].bounds = at(0, 500);
        r[3].bounds = at(0, 100);
        r[6].bounds = at(300, 250);
        r[7].bounds = at(300, 200);
        r[8].bounds = at(300, 150);
        r[9].bounds = at(300, 100);
        read_dialog_grids_in_reading_order(&mut r);
        assert_eq!(r[1].children, [2, 3]);
        let names: Vec<&str> = r[5]
            .children
            .iter()
            .map(|&c| r[c].basic.name.as_str())
            .collect();
        assert_eq!(names, ["Left:", "Right:", "Top:", "Bottom:"]);
    }

    #[test]
    fn widgets_welded_into_a_misplaced_pane_stay_where_they_show() {
        // A fresh Calc's sheet tab bar: its box, reported with the pane
        // (25 too high), holds the GTK box of its buttons, reported where
        // it shows; beside it, the tabs, LibreOffice's own.
        let mut r = vec![
            rec("panel", "", &[1]),
            rec("root pane", "Calc", &[2]),
            rec("panel", "", &[3, 6]),
            rec("panel", "", &[4]),
            rec("panel", "", &[5]),
            rec("push button", "Add", &[]),
            rec("page tab list", "", &[]),
        ];
        let at = |x, y, w, h| Some(Rect::new(x, y, w, h));
        r[0].bounds = at(57, 75, 1165, 899);
        r[1].bounds = at(57, 50, 1165, 899);
        r[2].bounds = at(57, 904, 1092, 23);
        r[3].bounds = at(57, 904, 138, 23);
        r[4].bounds = at(57, 929, 138, 24);
        r[5].bounds = at(165, 929, 24, 24);
        r[6].bounds = at(195, 904, 954, 23);
        assert_eq!(place_root_panes_in_their_parents(&mut r), [4]);
        let ys: Vec<Option<i32>> = r.iter().map(|r| r.bounds.map(|b| b.y)).collect();
        assert_eq!(ys, [75, 75, 929, 929, 929, 929, 929].map(Some).to_vec());
        // Only a widget that fills its holder's width, a bar's height
        // lower, is one.
        let holder = Rect::new(57, 904, 138, 23);
        assert!(welded_in_place(holder, Rect::new(57, 929, 138, 24), 25));
        assert!(!welded_in_place(holder, Rect::new(60, 929, 100, 24), 25));
        assert!(!welded_in_place(holder, Rect::new(57, 904, 138, 23), 25));
        assert!(!welded_in_place(holder, Rect::new(57, 904, 138, 23), 0));
    }

    #[test]
    fn only_a_pane_above_its_parent_drops() {
        let rect = |y, h| Rect::new(57, y, 1165, h);
        assert_eq!(root_pane_drop(rect(50, 899), rect(75, 899)), 25);
        assert_eq!(root_pane_drop(rect(75, 899), rect(75, 899)), 0);
        assert_eq!(root_pane_drop(rect(90, 800), rect(75, 899)), 0);
        // A parent with no room says nothing of where the pane is.
        assert_eq!(root_pane_drop(rect(50, 899), rect(75, 0)), 0);
        // Nor does a pane without a place (AT-SPI's -2^31).
        assert_eq!(root_pane_drop(rect(i32::MIN, 1), rect(75, 899)), 0);
    }

    #[test]
    fn what_a_defunct_element_holds_has_no_focus() {
        let mut recs = vec![
            rec("frame", "prices.fods - LibreOffice Calc", &[1, 3]),
            rec("table", "Sheet Prices", &[2]),
            rec("table cell", "D2", &[]),
            rec("tool bar", "Formula Tool Bar", &[4]),
            rec("panel", "Input line", &[5]),
            rec("paragraph", "", &[]),
        ];
        for i in [1, 2, 5] {
            recs[i].basic.states.insert(State::Focused);
        }
        recs[4].basic.states.insert(State::Defunct);
        unfocus_what_defunct_elements_hold(&mut recs);
        let focused: Vec<usize> = (0..recs.len())
            .filter(|&i| recs[i].basic.states.contains(State::Focused))
            .collect();
        assert_eq!(focused, [1, 2]);
    }

    #[test]
    fn a_cell_is_placed_by_its_address() {
        assert_eq!(cell_address("A1"), Some((0, 0)));
        assert_eq!(cell_address("M42"), Some((41, 12)));
        assert_eq!(cell_address("AA3"), Some((2, 26)));
        assert_eq!(cell_address("XFD1048576"), Some((1_048_575, 16_383)));
        for not in [
            "",
            "A",
            "12",
            "A0",
            "a1",
            "A1B",
            "Sheet1",
            "ABCD1",
            "A12345678",
            "Cell A1",
        ] {
            assert_eq!(cell_address(not), None, "{not:?}");
        }
    }

    #[test]
    fn only_impress_prompts_are_prompts() {
        assert!(shows_a_prompt("Click to add Text"));
        assert!(shows_a_prompt("Click to add Title"));
        for text in [
            "Click to add TextFirst",
            "Quarterly review",
            "",
            "click to add text",
        ] {
            assert!(!shows_a_prompt(text), "{text:?}");
        }
    }

    #[test]
    fn the_parts_of_a_root_pane_and_what_is_in_them_are_laid_out_silently() {
        // Writer's window: the pane's document area, its tool bars' panel
        // and its status bar with two fields; a dialog beside it.
        let recs = vec![
            rec("frame", "Untitled 1 - LibreOffice Writer", &[1]),
            rec("root pane", "Untitled 1 - LibreOffice Writer", &[2, 4, 6]),
            rec("panel", "", &[3]),
            rec("scroll pane", "", &[]),
            rec("panel", "", &[5]),
            rec("tool bar", "Standard", &[9]),
            rec("status bar", "", &[7, 8]),
            rec("label", "", &[]),
            rec("label", "", &[]),
            rec("push button", "Save", &[]),
            rec("dialog", "Insert Table", &[]),
        ];
        assert_eq!(laid_out_silently(&recs), [1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn cells_in_formula_mode_leave_their_values_and_edit_states_unread() {
        // A sheet (managing its cells) in formula mode: its cells say no
        // text and are not focusable; a Writer table's cells, not managed,
        // are left alone.
        let mut recs = vec![
            rec("table", "Sheet Sheet1", &[1, 2, 3]),
            rec("table cell", "A1", &[]),
            rec("table cell", "B1", &[]),
            rec("table cell", "C1", &[]),
            rec("table", "Table1", &[5]),
            rec("table cell", "A1", &[]),
        ];
        recs[0].basic.states.insert(State::ManagesDescendants);
        recs[2].basic.states.insert(State::Focusable);
        recs[3].basic.states.insert(State::Defunct);
        for r in &mut recs {
            r.value = Some("kept".into());
        }
        leave_formula_mode_cells_unread(&mut recs);
        let unread: Vec<usize> = (0..recs.len()).filter(|&i| recs[i].unread.any()).collect();
        assert_eq!(unread, [1]);
        assert!(recs[1].unread.value);
        assert_eq!(
            recs[1].unread.states,
            StateSet::of(&[State::Editable, State::Resizable, State::Focusable])
        );
        assert_eq!(recs[1].value, None);
        assert_eq!(recs[2].value.as_deref(), Some("kept"));
        assert_eq!(recs[5].value.as_deref(), Some("kept"));
    }

    #[test]
    fn paragraphs_and_the_cell_under_the_cursor_are_read_again() {
        let mut recs = vec![
            rec("frame", "Untitled 1 - LibreOffice Calc", &[1, 5]),
            rec("table", "Sheet Sheet1", &[2, 3, 4]),
            rec("table cell", "A1", &[]),
            rec("table cell", "B1", &[]),
            rec("table cell", "C1", &[]),
            rec("tool bar", "Formula Tool Bar", &[6, 7]),
            rec("text", "", &[]),
            rec("paragraph", "", &[]),
        ];
        recs[1].basic.states.insert(State::ManagesDescendants);
        recs[3].basic.states.insert(State::Focused);
        assert_eq!(reads_again(&recs), [3, 7]);
        // A table that makes no cells on demand (a Writer table): its cells
        // say their changes.
        recs[1].basic.states.remove(State::ManagesDescendants);
        assert_eq!(reads_again(&recs), [7]);
    }

    #[test]
    fn the_cursor_cell_is_as_empty_as_the_input_line() {
        // A sheet whose cursor is on A1 (which still says "alpha"), and
        // the formula bar: the Name Box says A1, the Input line nothing.
        let calc = |input: Option<&str>| {
            let mut recs = vec![
                rec("frame", "Untitled 1 - LibreOffice Calc", &[1, 4]),
                rec("table", "Sheet Sheet1", &[2, 3]),
                rec("table cell", "A1", &[]),
                rec("table cell", "A2", &[]),
                rec("tool bar", "Formula Tool Bar", &[5, 6]),
                rec("text", "", &[]),
                rec("panel", "Input line", &[7]),
                rec("paragraph", "", &[]),
            ];
            recs[1].basic.states.insert(State::ManagesDescendants);
            recs[2].basic.states.insert(State::Focused);
            recs[2].value = Some("alpha".into());
            recs[3].value = Some("beta".into());
            recs[5].value = Some("A1".into());
            recs[7].value = input.map(str::to_owned);
            recs
        };
        let mut recs = calc(None);
        empty_the_cursor_cell_with_the_input_line(&mut recs);
        assert_eq!(recs[2].value, None);
        assert_eq!(recs[3].value.as_deref(), Some("beta"));
        // The Input line says what the cell holds: it is left as it says.
        let mut recs = calc(Some("alpha"));
        empty_the_cursor_cell_with_the_input_line(&mut recs);
        assert_eq!(recs[2].value.as_deref(), Some("alpha"));
        // Something being typed (a paragraph focused): left alone.
        let mut recs = calc(Some(""));
        recs[7].basic.states.insert(State::Focused);
        empty_the_cursor_cell_with_the_input_line(&mut recs);
        assert_eq!(recs[2].value.as_deref(), Some("alpha"));
        // The Name Box naming a range (or no cell): left alone.
        let mut recs = calc(None);
        recs[5].value = Some("A1:B2".into());
        empty_the_cursor_cell_with_the_input_line(&mut recs);
        assert_eq!(recs[2].value.as_deref(), Some("alpha"));
        // A table that does not manage its cells (a Writer table): alone.
        let mut recs = calc(None);
        recs[1].basic.states.remove(State::ManagesDescendants);
        empty_the_cursor_cell_with_the_input_line(&mut recs);
        assert_eq!(recs[2].value.as_deref(), Some("alpha"));
    }

    #[test]
    fn only_the_active_window_keeps_its_focus() {
        // Two presentations: the first worked in again, the second's
        // title still saying it is focused.
        let mut recs = vec![
            rec("application", "soffice", &[1, 3]),
            rec("frame", "Untitled 1 - LibreOffice Impress", &[2]),
            rec("panel", "PresentationTitle", &[]),
            rec("frame", "Untitled 2 - LibreOffice Impress", &[4]),
            rec("panel", "PresentationTitle", &[]),
        ];
        for i in [2, 4] {
            recs[i].basic.states.insert(State::Focused);
        }
        let focused = |recs: &[Rec]| -> Vec<usize> {
            (0..recs.len())
                .filter(|&i| recs[i].basic.states.contains(State::Focused))
                .collect()
        };
        // No window says it is active: nothing is known.
        unfocus_windows_not_worked_in(&mut recs);
        assert_eq!(focused(&recs), [2, 4]);
        // The second says it is active but holds nothing focused (a new
        // window said focused while the keyboard stayed in the first).
        recs[2].basic.states.remove(State::Focused);
        recs[3].basic.states.insert(State::Active);
        unfocus_windows_not_worked_in(&mut recs);
        assert_eq!(focused(&recs), [4]);
        // The first is active and holds its title: the second's goes.
        recs[2].basic.states.insert(State::Focused);
        recs[3].basic.states.remove(State::Active);
        recs[1].basic.states.insert(State::Active);
        unfocus_windows_not_worked_in(&mut recs);
        assert_eq!(focused(&recs), [2]);
        // Two windows saying they are active: nothing is known.
        recs[4].basic.states.insert(State::Focused);
        recs[3].basic.states.insert(State::Active);
        unfocus_windows_not_worked_in(&mut recs);
        assert_eq!(focused(&recs), [2, 4]);
        // A modal dialog active, nothing in it focused: the keyboard is in
        // it all the same.
        let mut recs = vec![
            rec("application", "soffice", &[1, 3]),
            rec("frame", "Untitled 1 - LibreOffice Calc", &[2]),
            rec("table", "Sheet Sheet1", &[]),
            rec("dialog", "Format Cells", &[4]),
            rec("page tab list", "", &[]),
        ];
        recs[2].basic.states.insert(State::Focused);
        recs[3].basic.states.insert(State::Active);
        unfocus_windows_not_worked_in(&mut recs);
        assert_eq!(focused(&recs), [2]);
        recs[3].basic.states.insert(State::Modal);
        unfocus_windows_not_worked_in(&mut recs);
        assert!(focused(&recs).is_empty());
    }

    #[test]
    fn a_tab_row_placeholder_is_left_out() {
        // Format Cells: the row not chosen, its placeholder nameless, not
        // sensitive, its page empty; a nameless tab that is sensitive, or
        // whose page holds something, stays.
        let mut r = vec![
            rec("page tab list", "", &[1, 3, 5, 7]),
            rec("page tab", "Alignment", &[2]),
            rec("panel", "", &[]),
            rec("page tab", "", &[4]),
            rec("panel", "", &[]),
            rec("page tab", "", &[6]),
            rec("panel", "", &[]),
            rec("page tab", "", &[8]),
            rec("panel", "", &[9]),
            rec("push button", "OK", &[]),
        ];
        for i in [1, 3, 5, 7] {
            r[i].basic.states.insert(State::Enabled);
        }
        for i in [1, 5] {
            r[i].basic.states.insert(State::Sensitive);
        }
        r[3].basic.states.insert(State::Selected);
        leave_out_tab_row_placeholders(&mut r);
        let left_out: Vec<usize> = (0..r.len()).filter(|&i| r[i].left_out).collect();
        assert_eq!(left_out, [3]);
    }

    #[test]
    fn the_face_of_a_hidden_combo_box_takes_its_name() {
        // Format > Character's Size: a box of an entry, a hidden combo box
        // named by its label, and a toggle button; the tool bar's Font
        // Size, in a named panel, whose combo box has no name.
        let mut r = vec![
            rec("filler", "", &[1, 2, 5]),
            rec("text", "", &[]),
            rec("combo box", "Size:", &[3, 4]),
            rec("menu", "", &[]),
            rec("text", "", &[]),
            rec("toggle button", "", &[]),
            rec("panel", "Font Size", &[7, 8, 9]),
            rec("text", "", &[]),
            rec("combo box", "", &[]),
            rec("toggle button", "", &[]),
        ];
        for i in [0, 1, 5, 6, 7, 9] {
            r[i].basic.states.insert(State::Showing);
        }
        name_faces_of_hidden_combo_boxes(&mut r);
        let names: Vec<&str> = r.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(
            names,
            ["", "Size:", "Size:", "", "", "", "Font Size", "", "", ""]
        );
        let left_out: Vec<usize> = (0..r.len()).filter(|&i| r[i].left_out).collect();
        assert_eq!(left_out, [2, 8]);

        // Without an entry that shows, the toggle button takes the name.
        let mut r = vec![
            rec("filler", "", &[1, 2, 3]),
            rec("text", "", &[]),
            rec("combo box", "Line spacing:", &[]),
            rec("toggle button", "", &[]),
        ];
        r[3].basic.states.insert(State::Showing);
        name_faces_of_hidden_combo_boxes(&mut r);
        let names: Vec<&str> = r.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(names, ["", "", "Line spacing:", "Line spacing:"]);
        assert!(r[2].left_out);

        // On a page not shown nothing shows, and the widgets that would
        // show say they are visible: the same face is named (Font
        // Effects' Underlining, before its page is first shown).
        let mut r = vec![
            rec("filler", "", &[1, 2, 3]),
            rec("text", "", &[]),
            rec("combo box", "Underlining:", &[]),
            rec("toggle button", "", &[]),
        ];
        r[3].basic.states.insert(State::Visible);
        name_faces_of_hidden_combo_boxes(&mut r);
        let names: Vec<&str> = r.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(names, ["", "", "Underlining:", "Underlining:"]);
        // With its entry visible, the entry.
        let mut r = vec![
            rec("filler", "", &[1, 2, 3]),
            rec("text", "", &[]),
            rec("combo box", "Size:", &[]),
            rec("toggle button", "", &[]),
        ];
        for i in [1, 3] {
            r[i].basic.states.insert(State::Visible);
        }
        name_faces_of_hidden_combo_boxes(&mut r);
        let names: Vec<&str> = r.iter().map(|r| r.basic.name.as_str()).collect();
        assert_eq!(names, ["", "Size:", "Size:", ""]);

        // A combo box that shows is the field itself: nothing changes.
        let mut r = vec![
            rec("filler", "", &[1, 2, 3]),
            rec("text", "", &[]),
            rec("combo box", "Size:", &[]),
            rec("toggle button", "", &[]),
        ];
        r[2].basic.states.insert(State::Showing);
        name_faces_of_hidden_combo_boxes(&mut r);
        assert_eq!(r[1].basic.name, "");
        assert!(!r[2].left_out);
    }
}
