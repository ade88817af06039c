//! What each toolkit does its own way, in one place per toolkit.
//!
//! AT-SPI is one protocol, but every toolkit speaks it with an accent: GTK
//! 4.8 leaves `showing` out, Qt 5 says `showing` of pages that are not on
//! the screen, Chromium exports placeholders nobody sees. Each such rule
//! lives in the module of its toolkit, as data and small functions, and
//! applies only to applications of that toolkit. An application's
//! [`Profile`] is read once (`Application.ToolkitName` and
//! `ToolkitVersion`, see [`crate::Bus::profile`]); capture, actions and the
//! Linux backend consult it, and nothing else in uidelta names a toolkit.
//! `docs/toolkits.md` lists every rule with the test that pins it.

pub(crate) mod chromium;
pub(crate) mod gecko;
pub(crate) mod gtk2;
pub(crate) mod gtk3;
pub(crate) mod gtk4;
pub(crate) mod libreoffice;
pub(crate) mod qt;

use uidelta_model::Role;

use crate::capture::Rec;

pub(crate) use libreoffice::{root_pane_drop, root_panes};

/// A toolkit with rules of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Toolkit {
    /// GTK 2, through its accessibility module GAIL (`ToolkitName`
    /// `GAIL`): GIMP 2.10.
    Gtk2,
    /// GTK 3, through its ATK bridge (`ToolkitName` `gtk`).
    Gtk3,
    /// GTK 4, which speaks AT-SPI itself (`GTK`).
    Gtk4,
    /// Qt 5 (`Qt`).
    Qt,
    /// Chromium and the Chromium-based browsers (`Chromium`).
    Chromium,
    /// Gecko: Firefox and Thunderbird (`Gecko`).
    Gecko,
    /// LibreOffice, whose widgets (VCL) reach AT-SPI through a GTK 3
    /// bridge of its own: `ToolkitName` says `gtk` (or `VCL` without the
    /// GTK plug-in), the application is `soffice`.
    LibreOffice,
    /// A toolkit without rules here: what it says is taken as it is.
    Other,
}

impl Toolkit {
    /// How it is named in messages and in `docs/toolkits.md`.
    pub const fn label(self) -> &'static str {
        match self {
            Toolkit::Gtk2 => "GTK 2",
            Toolkit::Gtk3 => "GTK 3",
            Toolkit::Gtk4 => "GTK 4",
            Toolkit::Qt => "Qt 5",
            Toolkit::Chromium => "Chromium",
            Toolkit::Gecko => "Gecko",
            Toolkit::LibreOffice => "LibreOffice",
            Toolkit::Other => "other",
        }
    }
}

/// An application's toolkit, as read once per application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// The toolkit whose rules apply.
    pub toolkit: Toolkit,
    /// `Application.ToolkitName` as the application says it (`""` when it
    /// does not).
    pub name: String,
    /// `Application.ToolkitVersion` (`""` when it does not say).
    pub version: String,
    /// GTK 4: what the names of the application's own types begin with
    /// (see [`gtk4::type_prefixes`]).
    type_prefixes: Vec<String>,
}

impl Default for Profile {
    fn default() -> Self {
        Profile {
            toolkit: Toolkit::Other,
            name: String::new(),
            version: String::new(),
            type_prefixes: Vec::new(),
        }
    }
}

impl Profile {
    /// The profile of an application named `app_name` whose toolkit says
    /// `toolkit_name` and `version`.
    pub fn detect(toolkit_name: &str, version: &str, app_name: &str) -> Profile {
        let office = libreoffice::is_libreoffice(app_name);
        let toolkit = match toolkit_name {
            "gtk" | "VCL" if office => Toolkit::LibreOffice,
            "GAIL" => Toolkit::Gtk2,
            "gtk" => Toolkit::Gtk3,
            "GTK" => Toolkit::Gtk4,
            "Qt" => Toolkit::Qt,
            "Chromium" => Toolkit::Chromium,
            "Gecko" => Toolkit::Gecko,
            _ => Toolkit::Other,
        };
        let type_prefixes = match toolkit {
            Toolkit::Gtk4 => gtk4::type_prefixes(app_name),
            _ => Vec::new(),
        };
        Profile {
            toolkit,
            name: toolkit_name.to_owned(),
            version: version.to_owned(),
            type_prefixes,
        }
    }

    /// Whether the application's events say every change a capture would
    /// see, so that a [`crate::Mirror`] may read only what they name.
    /// GTK 3 (a mirror's capture equals a whole walk, bounds included,
    /// after every step of the tests on the widget factory, gtk3-demo,
    /// mousepad, gedit, zenity, the file chooser and the fixture), GTK
    /// 2's GAIL (the same after every step on GTK 2's demo and GIMP; a
    /// widget made insensitive says so alone, as in GTK 3), and Gecko
    /// (Firefox's and Thunderbird's tasks; see [`Profile::places_late`]).
    /// Not Qt 5: a view's headers and cells are new objects each time its
    /// children are asked for, so no mirror can hold them. Not
    /// LibreOffice (Writer's, Calc's and Impress's tasks), with the rules it
    /// needs: its cells are made anew at every read, and its paragraphs
    /// read again at every capture (`Profile::reads_again`). Not
    /// Chromium: the browser's own window changes without events (blank
    /// documents come as the first child of its unnamed panels, the reload
    /// button's description turns to `Stop loading this page` and back),
    /// and it sends no `bounds-changed` at all, so that a document's size
    /// changes silently; web content is announced. The others are not
    /// measured, and are walked whole.
    pub fn mirrors(&self) -> bool {
        matches!(
            self.toolkit,
            Toolkit::Gtk3 | Toolkit::Gtk2 | Toolkit::Gecko | Toolkit::LibreOffice
        )
    }

    /// Whether a box gains children without `children-changed`, so that
    /// a mirror reads the children of a box that moved or changed size
    /// again. GTK 3: a grid announces the children added to it as a
    /// container (`gtk_container_add`), not those attached to a cell of it
    /// (`gtk_grid_attach`), which only make it grow (the print dialog's
    /// `File:` and `Output format:` rows, attached when `Print to File` is
    /// chosen, came to no mirrored capture).
    pub(crate) fn boxes_gain_children_silently(&self) -> bool {
        self.toolkit == Toolkit::Gtk3
    }

    /// Whether a `bounds-changed` that carries the rectangle the object's
    /// last one carried says nothing a mirror must read, so that it reads
    /// the places only of what the rectangles say changed. GTK 3: the
    /// rectangle is the widget's allocation, relative to the window it
    /// draws in, sent whenever it is laid out again, changed or not (some
    /// 30 of them on the same 17 objects after every step of
    /// gtk3-widget-factory, and on its spinners and progress bar at every
    /// frame); what moves a window it draws in (a scroll, a stack's or a
    /// revealer's slide) has its own rules in the mirror; a window moved
    /// on the display has its widgets laid out again, restating their
    /// rectangles, so the windows holding restated ones have their places
    /// read again. Others: not measured, every `bounds-changed` is read.
    pub(crate) fn restated_bounds_say_nothing(&self) -> bool {
        self.toolkit == Toolkit::Gtk3
    }

    /// Whether the application gives its objects their places after it
    /// announced them, without a word (Gecko: a page's objects come with
    /// no place, `-1` each, and are laid out later), so that a mirror
    /// reads the bounds of what has no place at every capture.
    pub fn places_late(&self) -> bool {
        self.toolkit == Toolkit::Gecko
    }

    /// Whether what the application first answers of its objects fills in
    /// later without a word (Gecko 153 caches a page's names and states in
    /// its main process by domains, asked for the first time a client
    /// reads them: the first walk of a form read its fields and labels
    /// nameless and not showing, and no event followed when they filled
    /// in; a heading read again 3 ms after its first, empty, name had it).
    /// A whole walk is taken again while names it read empty are given
    /// when asked again (`Profile::names_fill_in`), and a mirror walks
    /// whole until two whole walks in a row read the same tree.
    pub fn fills_in_silently(&self) -> bool {
        self.toolkit == Toolkit::Gecko
    }

    /// Whether an object of `role` read nameless is asked its name again
    /// to tell whether the application was filling in (see
    /// [`Profile::fills_in_silently`]; [`gecko::names_fill_in`]).
    pub(crate) fn names_fill_in(&self, role: Role) -> bool {
        self.toolkit == Toolkit::Gecko && gecko::names_fill_in(role)
    }

    /// How a cell of a huge table is placed by its name, before its index
    /// is asked: LibreOffice's, named by their address, whose index does
    /// not say it while a formula is written (see
    /// [`libreoffice::cell_address`]).
    pub(crate) fn cell_place(&self) -> Option<crate::visible::PlaceByName> {
        (self.toolkit == Toolkit::LibreOffice).then_some(libreoffice::cell_address)
    }

    /// Whether `node` is a placeholder showing its prompt, not yet
    /// written into: LibreOffice's Impress shapes (see
    /// `libreoffice::shows_a_prompt`), which are entered by a click.
    pub fn shows_a_prompt(&self, node: &uidelta_model::NodeData) -> bool {
        self.toolkit == Toolkit::LibreOffice
            && node.role == Role::Paragraph
            && node
                .value
                .as_deref()
                .is_some_and(libreoffice::shows_a_prompt)
    }

    /// What a mirror reads the bounds of at every capture, as the
    /// application lays it out again without `bounds-changed`: the parts
    /// of LibreOffice's windows (see [`libreoffice::laid_out_silently`]).
    pub(crate) fn laid_out_silently(&self, recs: &[Rec]) -> Vec<usize> {
        if self.toolkit == Toolkit::LibreOffice {
            libreoffice::laid_out_silently(recs)
        } else {
            Vec::new()
        }
    }

    /// Whether an object of `role` changes its name without an event:
    /// GTK 2's menu items (see [`gtk2::renames_silently`]).
    pub(crate) fn renames_silently(&self, role: Role) -> bool {
        self.toolkit == Toolkit::Gtk2 && gtk2::renames_silently(role)
    }

    /// What a mirror reads again at every capture, as it changes without
    /// events: LibreOffice's paragraphs, and the cell under Calc's cursor
    /// (see [`libreoffice::reads_again`]); nothing of other toolkits.
    pub(crate) fn reads_again(&self, recs: &[Rec]) -> Vec<usize> {
        if self.toolkit == Toolkit::LibreOffice {
            libreoffice::reads_again(recs)
        } else {
            Vec::new()
        }
    }

    /// Whether the application does its work in its own process, so that
    /// its process asleep with no timer due says that nothing is pending
    /// (the Linux backend's idle watch). The toolkits whose main loop
    /// runs in the process that draws their windows: GTK 2, 3 and 4,
    /// Qt 5 and LibreOffice. Not Chromium and Gecko, whose pages run in
    /// other processes, and not a toolkit without rules here.
    pub fn works_in_its_process(&self) -> bool {
        matches!(
            self.toolkit,
            Toolkit::Gtk2 | Toolkit::Gtk3 | Toolkit::Gtk4 | Toolkit::Qt | Toolkit::LibreOffice
        )
    }

    /// Whether an element that says `visible` and not `showing` while its
    /// parent shows is one the toolkit has not mapped yet (see
    /// `uidelta_backend::Backend::shows_late`): GTK 3, which maps widgets
    /// it was given at its next frame. Not GTK 4, whose `showing` is
    /// worked out here (its list rows in reserve say `visible`, with no
    /// size, for good), nor toolkits that say `visible` of what is
    /// scrolled out of view (Qt, LibreOffice).
    pub fn shows_late(&self) -> bool {
        self.toolkit == Toolkit::Gtk3
    }

    /// Whether a top-level window whose states are `states` shows, as the
    /// window listing reads it: it says `showing`, or, in GTK 4 (4.8),
    /// which says `showing` of a window of the role `frame` alone, it says
    /// `visible` (its dialogs say that while presented, and lose it when
    /// closed; see `gtk4::fill_in_states`).
    pub fn window_shows(&self, states: uidelta_model::StateSet) -> bool {
        use uidelta_model::State;
        states.contains(State::Showing)
            || (self.toolkit == Toolkit::Gtk4 && states.contains(State::Visible))
    }

    /// Whether the application's cache (`GetItems`: each object's parent
    /// and index) lists the children `GetChildren` answers, in the same
    /// order, so a walk may take a parent's children from it when it holds
    /// all of them. Chromium: the same trees on the capture benchmark and
    /// its tests. Not GTK 3: its indices order a dialog's children
    /// otherwise than `GetChildren` (gedit's Preferences: `GetChildren`
    /// gives `Close` and the title first, the indices put them after the
    /// page tab list); not GTK 4, whose tests' diffs change with it; the
    /// others are not measured.
    pub fn cache_lists_children(&self) -> bool {
        self.toolkit == Toolkit::Chromium
    }

    /// Whether an object's name, description and child count are read in
    /// one `Properties.GetAll` of the Accessible interface, not in three
    /// `Get`s: LibreOffice's, whose objects are read one by one (see
    /// [`Profile::cache_is_safe`]); measured on Writer, 0.6 ms an object
    /// against 1.4 ms, the same answers. Never Qt 5.15's, which crashes on
    /// it (SIGSEGV); the toolkits whose objects come from their cache are
    /// not measured.
    pub fn answers_get_all(&self) -> bool {
        self.toolkit == Toolkit::LibreOffice
    }

    /// Whether the application's cache (`GetItems`) may be read at all.
    /// Not LibreOffice's: the accessibility bridge's cache of its objects
    /// can hold one that LibreOffice has freed while a window is being
    /// built (its Save As file chooser, read as it fills in), and
    /// `GetItems`, which takes a reference to every object in it, then
    /// crashes LibreOffice (SIGSEGV in `g_object_ref` under the bridge's
    /// `GetItems`; LibreOffice aborts). Its objects are read one by one.
    pub fn cache_is_safe(&self) -> bool {
        self.toolkit != Toolkit::LibreOffice
    }

    /// Whether the attributes of an element of `role` are read. Not those
    /// of Chromium's text runs (`static`): a run of text has no attributes
    /// of its own in a page, and Chromium gives it only how it is laid out
    /// (`display`, `text-align`, `name-from`), a call per run for nothing an
    /// agent reads (see [`chromium::attributes_say_something`]).
    pub(crate) fn reads_attributes(&self, role: Role) -> bool {
        self.toolkit != Toolkit::Chromium || chromium::attributes_say_something(role)
    }

    /// Whether `GetText(0, end)` with `end` past the text answers the
    /// whole text. GTK 3's bridge and Chromium do; Qt 5 answers nothing,
    /// so an empty answer is asked again within `CharacterCount`.
    pub(crate) fn texts_whole(&self) -> bool {
        matches!(self.toolkit, Toolkit::Gtk3)
    }

    /// A name as read from the application, without what its toolkit adds
    /// to it (GTK 4's type names and doubled mnemonics, Chromium's memory
    /// readouts, Gecko's `chrome://` addresses).
    pub(crate) fn clean_name(&self, role: Role, name: &mut String) {
        match self.toolkit {
            Toolkit::Gtk4 => gtk4::clean_name(name, &self.type_prefixes),
            Toolkit::Chromium => chromium::clean_name(role, name),
            Toolkit::Gecko => gecko::clean_name(name),
            _ => {}
        }
    }

    /// Whether the `Value` of an element of `role` says anything.
    /// LibreOffice gives every button, menu item and panel one that only
    /// restates `checked` (see [`libreoffice::value_says_something`]).
    pub(crate) fn value_says_something(&self, role: Role) -> bool {
        self.toolkit != Toolkit::LibreOffice || libreoffice::value_says_something(role)
    }

    /// Whether a combo box is named after the option it shows, not after
    /// its label (GTK 2 and 3, LibreOffice's dialogs, Qt 5): the option is
    /// taken as its value, and its label, read for every combo box, names
    /// it (see [`combo_boxes_show_their_choice_as_value`]).
    pub(crate) fn names_combo_boxes_by_choice(&self) -> bool {
        matches!(
            self.toolkit,
            Toolkit::Gtk2 | Toolkit::Gtk3 | Toolkit::LibreOffice | Toolkit::Qt
        )
    }

    /// Whether the application says nothing of which of its menus is open:
    /// GTK 2's menus (GAIL) never set `showing` on what they hold, open or
    /// closed, nor `selected` on the menu that is open, and keep their
    /// entries' places once closed. The Linux backend asks the display: a
    /// menu is open when one of the application's popup windows holds all
    /// of its entries.
    pub fn says_not_which_menu_is_open(&self) -> bool {
        self.toolkit == Toolkit::Gtk2
    }

    /// The toolkit's rules on names, applied before labels name the
    /// fields that have none.
    pub(crate) fn fix_up_names(&self, recs: &mut [Rec]) {
        if self.names_combo_boxes_by_choice() {
            combo_boxes_show_their_choice_as_value(recs);
        }
        if self.toolkit == Toolkit::Gecko {
            gecko::combo_boxes_show_their_choice_as_value(recs);
            gecko::hide_the_options_of_closed_combo_boxes(recs);
            gecko::lift_labels_around_their_fields(recs);
        }
    }

    /// Whether the labels of named fields are read (`labelled-by`), so that
    /// a label that says its field's name again is left out, as a field's
    /// label is in every toolkit once it named the field. Gecko: a page's
    /// `<label for=...>` stands apart from its field, which is named after
    /// it (`entry "Email address*"` and `label "Email address*"`); Qt 5: a
    /// field is named after its buddy label, which stands beside it (`text
    /// "File name:"` and `label "File name:"` in its file dialog). A call
    /// per field.
    pub(crate) fn reads_labels_of_named_fields(&self) -> bool {
        matches!(self.toolkit, Toolkit::Gecko | Toolkit::Qt)
    }

    /// Whether `EditableText` changes the text it is asked to. Gecko's
    /// answers `true` to `InsertText` and `SetTextContents` and changes
    /// nothing, in its pages and its own fields alike: text is typed into
    /// its fields with keys, as a person types.
    pub fn edits_text(&self) -> bool {
        self.toolkit != Toolkit::Gecko
    }

    /// Whether the menu a combo box holds chooses the option its
    /// `Selection` selects. Gecko's `<select>` does; GTK 3's menu only
    /// highlights the item (the combo box's own `Selection` chooses), and
    /// Chromium's selects nothing.
    pub(crate) fn combo_menus_choose(&self) -> bool {
        self.toolkit == Toolkit::Gecko
    }

    /// Whether a combo box's options are chosen with keys in its opened
    /// popup. Gecko's `<select>`: the items of its popup have no place to
    /// click at, and a choice made through `Selection` (see
    /// `Profile::combo_menus_choose`) tells the page nothing (no
    /// `change` event), so the Linux backend presses the keys a person
    /// would; `Selection` serves only where there is no display.
    pub fn picks_combo_options_with_keys(&self) -> bool {
        self.toolkit == Toolkit::Gecko
    }

    /// Whether a menu bar that says it shows but has no room shows
    /// nothing: in every toolkit but web content, where a box of no height
    /// shows what overflows it (floated items).
    pub(crate) fn has_roomless_menu_bars(&self) -> bool {
        self.toolkit != Toolkit::Chromium
    }

    /// Whether the application may report a window's root pane higher
    /// than it shows, and all in it (LibreOffice, see
    /// `libreoffice::root_pane_drop`): where an element is must then be
    /// mended from where its root pane and the element holding the pane
    /// are.
    pub fn misplaces_root_panes(&self) -> bool {
        self.toolkit == Toolkit::LibreOffice
    }

    /// How long a pointer click holds its button down, where the usual
    /// 20 ms of the X11 client is not enough (`None` elsewhere).
    /// LibreOffice takes a press on its welded GTK widgets in its own time
    /// and loses a release that comes before it has: on a busy machine
    /// (two applications starting beside it), 7 clicks of 36 on Calc's Add
    /// button beside its sheet tabs, held 20 ms, added no sheet, ever;
    /// held 100 ms, as a hand holds it, twenty of twenty did (see
    /// `libreoffice::CLICK_HOLD`).
    pub fn click_hold(&self) -> Option<std::time::Duration> {
        (self.toolkit == Toolkit::LibreOffice).then_some(libreoffice::CLICK_HOLD)
    }

    /// Whether a spinner that does not spin says it shows all the same, and
    /// only the screen tells (GTK 3: no `animated` state; it draws nothing
    /// when still). The Linux backend looks at the screen for such
    /// applications.
    pub fn still_spinners_say_they_show(&self) -> bool {
        matches!(self.toolkit, Toolkit::Gtk3 | Toolkit::LibreOffice)
    }

    /// Whether the walk must work out which page of a stack shows
    /// (GTK 4.8 keeps them all `visible` and says nothing of `showing`).
    pub(crate) fn hides_pages(&self, recs: &[Rec]) -> bool {
        self.toolkit == Toolkit::Gtk4 && gtk4::showing_left_out(recs)
    }

    /// The toolkit's rules applied to a whole capture, records in walk
    /// order (a parent before its children).
    pub(crate) fn fix_up(&self, recs: &mut [Rec]) {
        match self.toolkit {
            Toolkit::Gtk4 => {
                gtk4::leave_out_tooltips(recs);
                gtk4::fill_in_states(recs);
                gtk4::name_from_content(recs);
                gtk4::name_controls_after_their_tooltip(recs);
                gtk4::name_cells_after_the_cell_they_hold(recs);
                gtk4::drop_downs_show_their_choice(recs);
                gtk4::lift_menu_button_boxes(recs);
            }
            Toolkit::Qt => {
                qt::select_named_tab(recs);
                qt::hide_unplaced(recs);
                qt::focus_tabs_with_their_bar(recs);
                qt::leave_out_text_viewports(recs);
                qt::name_buttons_after_their_tooltip(recs);
                qt::unmark_read_only_texts(recs);
                qt::leave_out_hidden_windows(recs);
                // A field with no buddy label is laid out as GTK's are.
                gtk3::name_fields_after_the_label_before_them(recs);
            }
            Toolkit::Gtk2 => {
                gtk2::leave_out_hidden_widgets(recs);
                // GTK 3's grids, tool bars and tooltips are GTK 2's.
                gtk3::name_fields_after_the_label_before_them(recs);
                gtk3::name_tool_buttons_after_their_item(recs);
                gtk3::name_controls_after_their_tooltip(recs);
            }
            Toolkit::Chromium => {
                chromium::leave_out_placeholders(recs);
                leave_out_layout_attributes(recs);
            }
            Toolkit::Gecko => {
                gecko::leave_out_closed_popups(recs);
                gecko::enable_the_application(recs);
                leave_out_layout_attributes(recs);
                gecko::leave_out_the_place_of_what_does_not_show(recs);
                gecko::focus_is_innermost(recs);
            }
            // LibreOffice's dialogs are GTK 3's widgets.
            Toolkit::Gtk3 | Toolkit::LibreOffice => {
                // LibreOffice's document windows are its own toolkit's,
                // whose order is its own: only its dialogs are GTK's grids.
                if self.toolkit == Toolkit::Gtk3 {
                    gtk3::leave_out_hidden_widgets(recs);
                    gtk3::read_grids_in_reading_order(recs);
                    gtk3::name_cells_after_the_cells_they_hold(recs);
                } else {
                    libreoffice::read_dialog_grids_in_reading_order(recs);
                }
                gtk3::name_fields_after_the_label_before_them(recs);
                gtk3::name_list_rows_after_their_labels(recs);
                gtk3::name_tool_buttons_after_their_item(recs);
                gtk3::hand_box_tooltips_to_their_first_control(recs);
                gtk3::name_controls_after_their_tooltip(recs);
                gtk3::leave_out_closed_empty_popovers(recs);
                if self.toolkit == Toolkit::LibreOffice {
                    libreoffice::name_faces_of_hidden_combo_boxes(recs);
                    libreoffice::leave_out_tab_row_placeholders(recs);
                    libreoffice::unfocus_what_defunct_elements_hold(recs);
                    libreoffice::unfocus_windows_not_worked_in(recs);
                    libreoffice::leave_formula_mode_cells_unread(recs);
                    libreoffice::empty_the_cursor_cell_with_the_input_line(recs);
                    libreoffice::leave_out_the_caret_line(recs);
                }
            }
            // A toolkit without rules here that leaves `enabled` or
            // `showing` out has them worked out as GTK 4's are (the rule
            // looks at the whole capture first, and leaves a toolkit that
            // says them alone).
            Toolkit::Other => gtk4::fill_in_states(recs),
        }
    }

    /// The toolkit's rules on where elements are, applied once the
    /// elements that show nothing are left out. Answers the elements found
    /// in their place where the rest was moved (LibreOffice's welded
    /// widgets), for the pointer to know.
    pub(crate) fn fix_up_places(&self, recs: &mut [Rec]) -> Vec<usize> {
        if self.toolkit == Toolkit::LibreOffice {
            libreoffice::place_root_panes_in_their_parents(recs)
        } else {
            Vec::new()
        }
    }
}

/// Which records are a combo box's popup menu: GTK hides it while it is
/// closed, and its items are the options an agent chooses by name, so the
/// rules that leave hidden widgets out keep it.
pub(crate) fn combo_box_menus(recs: &[Rec]) -> Vec<bool> {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let mut menus = vec![false; recs.len()];
    for r in recs.iter().filter(|r| role(r) == Role::ComboBox) {
        for &c in &r.children {
            if let Some(child) = recs.get(c) {
                menus[c] = role(child) == Role::Menu;
            }
        }
    }
    menus
}

/// Names each nameless element whose role `named` takes after the first
/// line of its tooltip, which toolkits give as its description and screen
/// readers read, rich text tags left out (Qt's `<p style=...>`, GTK's Pango
/// markup). A tooltip that is a number says the control's value (a GTK 3
/// slider's `50.0`), not what it is for: it names nothing.
pub(crate) fn name_after_tooltip(recs: &mut [Rec], named: impl Fn(Role) -> bool) {
    for r in recs.iter_mut() {
        if !named(Role::from_name(&r.basic.raw_role)) || !r.basic.name.trim().is_empty() {
            continue;
        }
        if let Some(line) = tooltip_line(&r.basic.description) {
            if line.parse::<f64>().is_err() {
                r.basic.name = line;
            }
        }
    }
}

/// The first line of a tooltip given as `description`, without rich text
/// tags and with runs of white space as one; `None` when it has none.
pub(crate) fn tooltip_line(description: &str) -> Option<String> {
    let plain = without_tags(description);
    let line = plain.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(uidelta_model::normalize_space(line).into_owned())
}

/// The controls a toolkit leaves nameless when they show an icon alone,
/// and that its tooltip names (GTK 2's and GTK 4's): buttons, toggles,
/// check boxes, radio buttons, spin buttons, sliders and combo boxes.
pub(crate) fn tooltip_names(role: Role) -> bool {
    matches!(
        role,
        Role::PushButton
            | Role::ToggleButton
            | Role::CheckBox
            | Role::RadioButton
            | Role::SpinButton
            | Role::Slider
            | Role::ComboBox
    )
}

/// `text` without rich text tags (`<p ...>`, `</b>`).
fn without_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// GTK 3 and Qt 5 name a combo box after the option it shows (`combo box
/// "Large"`), where a screen reader, and Chromium, read the field's label
/// as its name and the option as its value (`combo box "Size" =
/// "Large"`): the name then changes with every choice, and the field says
/// nothing of what it is for. A combo box named as one of its options (at
/// any depth: GTK 3's submenus) and holding no other value takes that
/// name as its value, and is left nameless for its label to name
/// (`labelled-by`, read for every combo box of these toolkits, or the
/// label before it on its row).
pub(crate) fn combo_boxes_show_their_choice_as_value(recs: &mut [Rec]) {
    let role = |r: &Rec| Role::from_name(&r.basic.raw_role);
    let option = |r: &Rec| {
        matches!(
            role(r),
            Role::MenuItem
                | Role::CheckMenuItem
                | Role::RadioMenuItem
                | Role::ListItem
                | Role::TableCell
        )
    };
    let mut chosen = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let name = r.basic.name.trim();
        let valueless = r
            .value
            .as_deref()
            .is_none_or(|v| v.trim().is_empty() || v.trim() == name);
        if r.vanished || role(r) != Role::ComboBox || name.is_empty() || !valueless {
            continue;
        }
        let mut stack: Vec<usize> = r.children.clone();
        let mut found = false;
        while let Some(c) = stack.pop() {
            let child = &recs[c];
            if child.vanished {
                continue;
            }
            if option(child) && child.basic.name.trim() == name {
                found = true;
                break;
            }
            stack.extend(&child.children);
        }
        if found {
            chosen.push(i);
        }
    }
    for i in chosen {
        let name = std::mem::take(&mut recs[i].basic.name);
        recs[i].value = Some(name.trim().to_owned());
    }
}

/// Attributes in which the browser engines say how an element is laid out
/// and how its name was found: CSS (`display:block`, `margin-left:8px`,
/// `text-align:left`), the markup that made it (`tag:input`, `class:...`,
/// Chromium's `class` of its own windows' views, `BrowserRootView`), and
/// the engine's bookkeeping (`explicit-name`, `name-from`,
/// `description-from`, Chromium's `text-model`, and `checkable`, which
/// restates the role). Nothing an agent acts on, and a change of CSS class
/// or box on every page that restyles itself; the CDP backend never reads
/// them, so both ways of reading Chromium agree. The others (`level`,
/// `posinset`, `placeholder`, `haspopup`, `text-input-type`, `xml-roles`,
/// ...) stay.
fn says_only_layout(key: &str) -> bool {
    matches!(
        key,
        "display"
            | "tag"
            | "class"
            | "explicit-name"
            | "name-from"
            | "description-from"
            | "text-model"
            | "checkable"
            | "formatting"
            | "text-align"
            | "text-indent"
            | "line-number"
    ) || key.starts_with("margin-")
}

/// Leaves out the attributes that say only how an element is laid out
/// (see [`says_only_layout`]): Gecko's and Chromium's.
pub(crate) fn leave_out_layout_attributes(recs: &mut [Rec]) {
    for r in recs.iter_mut() {
        r.attributes.retain(|(k, _)| !says_only_layout(k));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::fixtures::rec;

    #[test]
    fn gtk4_dialogs_saying_visible_show_and_gtk3_shows_what_it_added_late() {
        use uidelta_model::{State, StateSet};
        let gtk3 = Profile::detect("gtk", "3.24.38", "zenity");
        let gtk4 = Profile::detect("GTK", "4.8.3", "gtk4-print-editor");
        let qt = Profile::detect("Qt", "5.15.8", "vlc");
        // GTK 4.8's file chooser: `visible`, `modal`, never `showing`.
        let presented = StateSet::of(&[State::Visible, State::Modal]);
        assert!(gtk4.window_shows(presented));
        assert!(!gtk3.window_shows(presented));
        assert!(!qt.window_shows(presented));
        assert!(gtk3.window_shows(StateSet::of(&[State::Showing])));
        assert!(!gtk4.window_shows(StateSet::of(&[State::Modal])));
        assert!(gtk3.shows_late());
        assert!(!gtk4.shows_late() && !qt.shows_late());
    }

    #[test]
    fn browser_layout_attributes_are_left_out_and_the_others_stay() {
        let attrs = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let mut gecko = rec("entry", "", &[]);
        gecko.attributes = attrs(&[
            ("display", "block"),
            ("margin-left", "8px"),
            ("tag", "input"),
            ("class", "urlbar focused"),
            ("explicit-name", "true"),
            ("level", "2"),
            ("placeholder-text", "Search"),
        ]);
        // As Chromium reads a page's button and a field, and a view of its
        // own window.
        let mut button = rec("push button", "Go", &[]);
        button.attributes = attrs(&[
            ("class", "btn primary"),
            ("display", "inline-block"),
            ("name-from", "contents"),
            ("tag", "button"),
            ("text-align", "center"),
            ("haspopup", "menu"),
        ]);
        let mut field = rec("entry", "Name", &[]);
        field.attributes = attrs(&[
            ("explicit-name", "true"),
            ("name-from", "related-element"),
            ("placeholder", "Your name"),
            ("text-input-type", "email"),
            ("text-model", "a1"),
            ("checkable", "true"),
            ("description-from", "aria-description"),
        ]);
        let mut view = rec("frame", "", &[]);
        view.attributes = attrs(&[("class", "BrowserRootView"), ("xml-roles", "alertdialog")]);
        let mut r = vec![gecko, button, field, view];
        leave_out_layout_attributes(&mut r);
        let kept: Vec<Vec<&str>> = r
            .iter()
            .map(|r| r.attributes.iter().map(|(k, _)| k.as_str()).collect())
            .collect();
        assert_eq!(
            kept,
            [
                vec!["level", "placeholder-text"],
                vec!["haspopup"],
                vec!["placeholder", "text-input-type"],
                vec!["xml-roles"],
            ]
        );
    }

    #[test]
    fn toolkits_are_told_apart_by_name_and_office_by_its_application() {
        let of = |tk: &str, app: &str| Profile::detect(tk, "1", app).toolkit;
        assert_eq!(of("gtk", "gtk3-widget-factory"), Toolkit::Gtk3);
        assert_eq!(of("GTK", "gtk4-demo"), Toolkit::Gtk4);
        assert_eq!(of("Qt", "calculator"), Toolkit::Qt);
        assert_eq!(of("Chromium", "Chromium"), Toolkit::Chromium);
        assert_eq!(of("Gecko", "Firefox"), Toolkit::Gecko);
        assert_eq!(of("GAIL", "gimp"), Toolkit::Gtk2);
        assert_eq!(of("gtk", "soffice"), Toolkit::LibreOffice);
        assert_eq!(of("VCL", "soffice"), Toolkit::LibreOffice);
        assert_eq!(of("gtk", "libreoffice-helper"), Toolkit::Gtk3);
        assert_eq!(of("VCL", "other"), Toolkit::Other);
        assert_eq!(of("", "xterm"), Toolkit::Other);
        assert_eq!(Profile::detect("GTK", "4.8.3", "x").version, "4.8.3");
    }

    #[test]
    fn only_libreoffice_clicks_are_held_as_a_hand_holds_them() {
        let hold = |tk: &str, app: &str| Profile::detect(tk, "1", app).click_hold();
        assert_eq!(
            hold("gtk", "soffice"),
            Some(std::time::Duration::from_millis(100))
        );
        assert_eq!(hold("gtk", "gedit"), None);
        assert_eq!(hold("Qt", "featherpad"), None);
    }

    #[test]
    fn combo_boxes_named_as_an_option_take_it_as_their_value() {
        let mut recs = vec![
            rec("panel", "", &[1, 5, 7, 9]),
            // GTK 3's places: the option sits in a submenu.
            rec("combo box", "Albany", &[2]),
            rec("menu", "", &[3]),
            rec("menu", "A - B", &[4]),
            rec("menu item", "Albany", &[]),
            // Named otherwise than its options: its own name.
            rec("combo box", "Font", &[6]),
            rec("list item", "Sans", &[]),
            // A value of its own is kept, and so is the name.
            rec("combo box", "Left", &[8]),
            rec("menu item", "Left", &[]),
            // Qt: the option as name and as value.
            rec("combo box", "Fusion", &[10]),
            rec("list item", "Fusion", &[]),
        ];
        recs[7].value = Some("3".into());
        recs[9].value = Some("Fusion".into());
        combo_boxes_show_their_choice_as_value(&mut recs);
        let read = |i: usize| (recs[i].basic.name.as_str(), recs[i].value.as_deref());
        assert_eq!(read(1), ("", Some("Albany")));
        assert_eq!(read(5), ("Font", None));
        assert_eq!(read(7), ("Left", Some("3")));
        assert_eq!(read(9), ("", Some("Fusion")));
    }
}
