//! Actions through AT-SPI interfaces: Action, EditableText, Value,
//! Selection and Component. Synthesized input is the caller's fallback when
//! an element offers none of these ([`Outcome::NeedsInput`]).

use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

use crate::bus::{Bus, Target};
use crate::error::{Error, Result};
use crate::interfaces::{
    accessible, action, collection, component, editable_text, selection, table, text, value,
    Method, Property, COMPONENT, EDITABLE_TEXT, SELECTION, TABLE, TEXT, VALUE,
};
use crate::toolkit::Profile;
use uidelta_model::State;

/// Where an element lives on the bus: its application's unique name and its
/// object path. This is what a snapshot node's identity encodes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeAddr {
    /// Unique bus name (`:1.42`).
    pub bus: String,
    /// Object path.
    pub path: String,
}

impl From<(String, OwnedObjectPath)> for NodeAddr {
    /// An object reference as D-Bus gives it: `(so)`.
    fn from((bus, path): (String, OwnedObjectPath)) -> NodeAddr {
        NodeAddr {
            bus,
            path: path.as_str().to_owned(),
        }
    }
}

impl NodeAddr {
    /// Parses a snapshot identity (`:1.42/org/a11y/atspi/accessible/7`).
    pub fn from_identity(identity: &str) -> Option<NodeAddr> {
        let slash = identity.find('/')?;
        let (bus, path) = identity.split_at(slash);
        (!bus.is_empty()).then(|| NodeAddr {
            bus: bus.to_owned(),
            path: path.to_owned(),
        })
    }
}

/// Where typed keys are to land in a field (see [`Actor::typing_place`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypingPlace {
    /// In place of this selected stretch (start, end).
    Selection(i32, i32),
    /// At the end of the text, this many characters long.
    End(i32),
}

/// What an action did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Done through an accessibility interface; says which (`Action.click`).
    Done(String),
    /// The element offers no interface for this; synthesize input instead.
    NeedsInput,
}

/// Performs actions on elements of one application.
pub struct Actor<'a> {
    bus: &'a Bus,
    who: &'a str,
    profile: Profile,
}

/// Action names that mean "the primary click", most preferred first.
/// How long an application whose action's handler has not returned is
/// given to answer a ping, to tell a handler that runs a dialog's loop from
/// an application that hangs.
const STILL_ANSWERS: std::time::Duration = std::time::Duration::from_millis(500);

const CLICK_NAMES: [&str; 6] = ["click", "press", "activate", "toggle", "jump", "select"];
/// Those that mean a click on a table cell (see [`Actor::click_cell`]).
const CELL_CLICK_NAMES: [&str; 4] = ["click", "press", "toggle", "select"];

impl<'a> Actor<'a> {
    /// An actor; `who` names the application in errors.
    pub fn new(bus: &'a Bus, who: &'a str) -> Actor<'a> {
        Actor {
            bus,
            who,
            profile: Profile::default(),
        }
    }

    /// The same actor, following the rules of the application's toolkit
    /// (see [`crate::toolkit`]): without them, what the application offers
    /// is taken to do what AT-SPI says it does.
    pub fn following(mut self, profile: Profile) -> Actor<'a> {
        self.profile = profile;
        self
    }

    /// The rules it follows.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    fn target(&self, doing: &'static str) -> Target<'_> {
        Target {
            doing,
            who: self.who,
        }
    }

    /// The names of the element's actions, in order: their own names
    /// (`GetName`: `click`, `select`), which are what the click rules look
    /// for. `GetActions` gives names translated to the desktop's language,
    /// which Chromium leaves empty and Gecko gives as `;;`: it is read for
    /// the number of actions, and its name stands only where `GetName`
    /// does not answer.
    pub async fn action_names(&self, node: &NodeAddr) -> Result<Vec<String>> {
        let t = self.target("listing actions of");
        let actions: Vec<(String, String, String)> = self
            .bus
            .call(&t, &node.bus, &node.path, action::GET_ACTIONS, &())
            .await?;
        let own_names = (0..actions.len()).map(|index| {
            let t = &t;
            async move {
                let index = i32::try_from(index).unwrap_or(i32::MAX);
                self.bus
                    .call(t, &node.bus, &node.path, action::GET_NAME, &(index,))
                    .await
            }
        });
        let own_names = futures_util::future::join_all(own_names).await;
        Ok(actions
            .into_iter()
            .zip(own_names)
            .map(|((shown, _, _), own)| match own {
                Ok(name) if !name.is_empty() => name,
                _ => shown,
            })
            .collect())
    }

    /// Performs the named action (`invoke`), case-insensitively.
    pub async fn invoke(&self, node: &NodeAddr, name: &str) -> Result<Outcome> {
        let names = match self.action_names(node).await {
            Ok(n) => n,
            Err(e) if crate::bus::object_vanished(&e) => Vec::new(),
            Err(e) => return Err(e),
        };
        let Some(index) = names.iter().position(|n| n.eq_ignore_ascii_case(name)) else {
            return Err(Error::NotFound(format!(
                "{}: the element has no action `{name}`; it has: {}",
                self.who,
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            )));
        };
        self.do_action(node, index as i32, &names[index]).await
    }

    /// The primary click: the first of click, press, activate, toggle, jump,
    /// select the element offers.
    pub async fn click(&self, node: &NodeAddr) -> Result<Outcome> {
        let names = match self.action_names(node).await {
            Ok(n) => n,
            Err(e) if crate::bus::object_vanished(&e) => return Ok(Outcome::NeedsInput),
            Err(e) => return Err(e),
        };
        for wanted in CLICK_NAMES {
            if let Some(i) = names.iter().position(|n| n.eq_ignore_ascii_case(wanted)) {
                return self.do_action(node, i as i32, &names[i]).await;
            }
        }
        Ok(Outcome::NeedsInput)
    }

    async fn do_action(&self, node: &NodeAddr, index: i32, name: &str) -> Result<Outcome> {
        let t = self.target("acting on");
        let ok = match self.bus.do_action(&t, &node.bus, &node.path, index).await {
            // The handler runs what it opened in a loop of its own (GTK 4's
            // print dialog: `gtk_print_operation_run`), and answers when
            // that closes: an application that answers meanwhile did what
            // it was asked, and goes on with it.
            Err(e @ Error::Timeout { .. }) => {
                return match self.bus.answers(self.who, &node.bus, STILL_ANSWERS).await {
                    Ok(true) => Ok(Outcome::Done(format!(
                        "Action.{name} (its handler runs on: it answers once what it opened closes)"
                    ))),
                    _ => Err(e),
                };
            }
            answer => answer?,
        };
        if ok {
            Ok(Outcome::Done(format!("Action.{name}")))
        } else {
            Err(Error::Call {
                doing: "acting on",
                target: self.who.to_owned(),
                method: "DoAction",
                detail: format!("the application refused action `{name}`"),
            })
        }
    }

    /// Inserts text (EditableText) as typing does: in place of the text
    /// selected when there is some (a rename dialog selects the old name
    /// so that what is typed replaces it), else at the caret of a field
    /// with the keyboard focus, and at the end of one without it, as a
    /// click after its text would put it. As that click would, it gives
    /// such a field the keyboard focus first (where it can take it, in the
    /// window that has the keyboard), and leaves the caret after what it
    /// typed: a key that follows (Return) goes to the field typed into
    /// (the browser backend does the same). Or asks for typing.
    pub async fn type_text(&self, node: &NodeAddr, text: &str) -> Result<Outcome> {
        if !self.profile.edits_text() || !self.has(node, EDITABLE_TEXT).await? {
            return Ok(Outcome::NeedsInput);
        }
        let t = self.target("typing into");
        let count: i32 = self
            .property::<i32>(node, text::CHARACTER_COUNT)
            .await
            .unwrap_or(0);
        // An unfocused field's caret is where its last focus left it (a
        // GTK entry's at 0), and a click into it would move it. A
        // selection stands: a dialog's entry selects the name it offers
        // for typing to replace, in a window that may not be active yet.
        let states = self.states(node).await.unwrap_or_default();
        let focused = states.contains(State::Focused);
        let caret: i32 = if focused {
            self.property::<i32>(node, text::CARET_OFFSET)
                .await
                .unwrap_or(-1)
        } else {
            -1
        };
        let mut at = if caret < 0 || caret > count {
            count
        } else {
            caret
        };
        let mut method = "EditableText.InsertText";
        // Read before the focus moves: a toolkit may select all of a
        // field's text as it takes the focus (GTK's entries do), which
        // is not the selection typing replaces.
        let selected = self.selected_text(node, count).await;
        // Only in the window that has the keyboard: the toolkit raises a
        // window whose field is given the focus (GTK 3 presents it), and
        // typing is not what should move the keyboard to another window.
        let grabbed = !focused
            && [State::Focusable, State::Enabled, State::Showing]
                .iter()
                .all(|s| states.contains(*s))
            && self.in_active_window(node).await
            && matches!(self.focus(node).await, Ok(Outcome::Done(_)));
        if let Some((start, end)) = selected {
            let deleted: bool = self
                .bus
                .call(
                    &t,
                    &node.bus,
                    &node.path,
                    editable_text::DELETE_TEXT,
                    &(start, end),
                )
                .await?;
            if deleted {
                at = start;
                method = "EditableText.DeleteText of the selection, then InsertText";
            }
        }
        let length = text.chars().count() as i32;
        let ok: bool = self
            .bus
            .call(
                &t,
                &node.bus,
                &node.path,
                editable_text::INSERT_TEXT,
                &(at, text.to_owned(), length),
            )
            .await?;
        if !ok {
            return Ok(Outcome::NeedsInput);
        }
        if !grabbed {
            return Ok(Outcome::Done(method.into()));
        }
        // The caret after the text typed, nothing selected, as after keys.
        let _: Result<bool> = self
            .bus
            .call(
                &t,
                &node.bus,
                &node.path,
                text::SET_CARET_OFFSET,
                &(at + length,),
            )
            .await;
        Ok(Outcome::Done(format!("Component.GrabFocus, then {method}")))
    }

    /// Where keys typed into `node` (whose states are `states`) are to
    /// land, read before it is given the keyboard focus to take them: in
    /// place of its selected text when some is, else at the end of its
    /// text, as typing through [`Actor::type_text`] puts it. `None` when it
    /// has the focus already (its caret and selection stand), is not an
    /// editable text, or has no text yet (keys cannot land elsewhere).
    pub async fn typing_place(
        &self,
        node: &NodeAddr,
        states: &uidelta_model::StateSet,
    ) -> Option<TypingPlace> {
        if states.contains(State::Focused)
            || !states.contains(State::Editable)
            || !self.has(node, TEXT).await.ok()?
        {
            return None;
        }
        let count: i32 = self.property(node, text::CHARACTER_COUNT).await.ok()?;
        if count < 1 {
            return None;
        }
        Some(match self.selected_text(node, count).await {
            Some((start, end)) => TypingPlace::Selection(start, end),
            None => TypingPlace::End(count),
        })
    }

    /// Puts `node`'s caret (or selection) where `place` says, once it has
    /// the keyboard focus: a toolkit may have moved it as the field took
    /// the focus (GTK's entries select all of their text, and keys would
    /// replace it), or a click may have put it where it landed. Returns
    /// whether the field did so.
    pub async fn put_typing_place(&self, node: &NodeAddr, place: TypingPlace) -> bool {
        let t = self.target("placing the caret in");
        let (bus, path) = (&node.bus, &node.path);
        let done = match place {
            TypingPlace::End(at) => {
                self.bus
                    .call(&t, bus, path, text::SET_CARET_OFFSET, &(at,))
                    .await
            }
            TypingPlace::Selection(start, end) => {
                self.bus
                    .call(&t, bus, path, text::SET_SELECTION, &(0, start, end))
                    .await
            }
        };
        done.unwrap_or(false)
    }

    /// The first stretch of text selected in a text of `count` characters,
    /// when some is (start before end, both within the text); `None` when
    /// nothing is, or the text does not say.
    async fn selected_text(&self, node: &NodeAddr, count: i32) -> Option<(i32, i32)> {
        let t = self.target("reading the selection of");
        let n: i32 = self
            .bus
            .call(&t, &node.bus, &node.path, text::GET_N_SELECTIONS, &())
            .await
            .ok()?;
        if n < 1 {
            return None;
        }
        let (a, b): (i32, i32) = self
            .bus
            .call(&t, &node.bus, &node.path, text::GET_SELECTION, &(0,))
            .await
            .ok()?;
        let (start, end) = (a.min(b).max(0), a.max(b).min(count));
        (start < end).then_some((start, end))
    }

    /// Sets a value: a number through Value, text through EditableText, a
    /// combo box's option by its name (in its menu or a submenu of it).
    /// [`Outcome::NeedsInput`] for an editable field without EditableText:
    /// its text is replaced with keys.
    pub async fn set_value(&self, node: &NodeAddr, value: &str) -> Result<Outcome> {
        let ifaces = self.interfaces(node).await?;
        let t = self.target("setting the value of");
        if ifaces.iter().any(|i| i == VALUE) {
            if let Ok(number) = value.trim().parse::<f64>() {
                self.bus
                    .set_property(
                        &t,
                        &node.bus,
                        &node.path,
                        value::CURRENT_VALUE,
                        Value::from(number),
                    )
                    .await?;
                return Ok(Outcome::Done("Value.CurrentValue".into()));
            }
        }
        let edits_text = self.profile.edits_text() && ifaces.iter().any(|i| i == EDITABLE_TEXT);
        if edits_text {
            let ok: bool = self
                .bus
                .call(
                    &t,
                    &node.bus,
                    &node.path,
                    editable_text::SET_TEXT_CONTENTS,
                    &(value.to_owned(),),
                )
                .await?;
            if ok {
                return Ok(Outcome::Done("EditableText.SetTextContents".into()));
            }
        }
        if ifaces.iter().any(|i| i == VALUE) {
            return Err(Error::NotFound(format!(
                "{}: the element takes a number (Value interface), and {value:?} is not one",
                self.who
            )));
        }
        let role = self.role(node).await?;
        // A field whose text cannot be set accessibly (Chromium offers no
        // EditableText, Gecko's does nothing) is typed into, as a person
        // would; a terminal's keys are commands, not its text. So is a
        // combo box with a text of its own (Gecko's address bar).
        let typed_into = (role.is_text_input() && role != uidelta_model::Role::Terminal)
            || (role == uidelta_model::Role::ComboBox && ifaces.iter().any(|i| i == EDITABLE_TEXT));
        if typed_into
            && self
                .states(node)
                .await?
                .contains(uidelta_model::State::Editable)
        {
            return Ok(Outcome::NeedsInput);
        }
        if role == uidelta_model::Role::ComboBox {
            let selects = ifaces.iter().any(|i| i == SELECTION);
            return self.choose_option(node, value, selects).await;
        }
        Err(Error::NotFound(format!(
            "{}: the element takes no value (no Value or EditableText interface)",
            self.who
        )))
    }

    /// Chooses the option named `name` of a combo box that keeps its
    /// options in a menu (GTK 3's, Chromium's), as [`Actor::set_selected`]
    /// chooses an option; a combo box that neither `selects` nor has such a
    /// menu takes no value (see [`Actor::option_named`]).
    async fn choose_option(&self, combo: &NodeAddr, name: &str, selects: bool) -> Result<Outcome> {
        match self.option_named(combo, name, selects).await? {
            Some(item) => self.set_selected(&item, true).await,
            None => Err(Error::NotFound(format!(
                "{}: the element takes no value (no Value or EditableText interface, and no \
                 menu of options)",
                self.who
            ))),
        }
    }

    /// The option named `name` in the menu of options a combo box holds
    /// (or a submenu of it), or in its list (Qt's); `None` when it holds
    /// neither and does not `select` (a combo box whose options are its
    /// children). The name is matched exactly, else ignoring case; an error
    /// lists the options when none matches.
    pub async fn option_named(
        &self,
        combo: &NodeAddr,
        name: &str,
        selects: bool,
    ) -> Result<Option<NodeAddr>> {
        use uidelta_model::Role;
        let mut menu = None;
        for child in self.children(combo).await? {
            if matches!(self.role(&child).await?, Role::Menu | Role::List) {
                menu = Some(child);
                break;
            }
        }
        if menu.is_none() && !selects {
            return Ok(None);
        }
        let mut options: Vec<(String, NodeAddr)> = Vec::new();
        if let Some(menu) = menu {
            for item in self.children(&menu).await? {
                if self.role(&item).await? == Role::Menu {
                    for sub in self.children(&item).await? {
                        options.push((self.name(&sub).await?, sub));
                    }
                } else {
                    options.push((self.name(&item).await?, item));
                }
            }
        }
        // Separators have no name, and no name chooses nothing. Names are
        // compared as the tree shows them, runs of white space as one.
        options.retain(|(n, _)| !n.trim().is_empty());
        let wanted = uidelta_model::normalize_space(name);
        let found = options
            .iter()
            .find(|(n, _)| uidelta_model::normalize_space(n) == wanted)
            .or_else(|| {
                options
                    .iter()
                    .find(|(n, _)| uidelta_model::normalize_space(n).eq_ignore_ascii_case(&wanted))
            });
        match found {
            Some((_, item)) => Ok(Some(item.clone())),
            None => {
                let named: Vec<String> = options.iter().map(|(n, _)| format!("{n:?}")).collect();
                Err(Error::NotFound(format!(
                    "{}: the combo box has no option {name:?}; its options: {}",
                    self.who,
                    if named.is_empty() {
                        "none that are named".to_owned()
                    } else {
                        named.join(", ")
                    }
                )))
            }
        }
    }

    /// The element's children.
    pub async fn children(&self, node: &NodeAddr) -> Result<Vec<NodeAddr>> {
        let found: Vec<(String, OwnedObjectPath)> =
            self.accessible(node, accessible::GET_CHILDREN).await?;
        Ok(found.into_iter().map(NodeAddr::from).collect())
    }

    /// Selects (or deselects) the element in its parent (Selection), the way
    /// a list item, tab or combo box option is chosen. A combo box option
    /// sits in the combo box's (hidden) menu, whose own Selection only
    /// highlights it; the option is chosen through the combo box's, and an
    /// option in a submenu of it (which the combo box's Selection does not
    /// reach) through its own click action.
    pub async fn set_selected(&self, node: &NodeAddr, selected: bool) -> Result<Outcome> {
        use uidelta_model::Role;
        /// Submenus looked through, at most.
        const DEPTH: usize = 8;
        let t = self.target("selecting");
        let mut parent = self.parent(node).await?;
        if self.role(&parent).await? == Role::Menu {
            let mut menu = parent.clone();
            let mut submenus = 0;
            let combo = loop {
                let up = self.parent(&menu).await?;
                match self.role(&up).await? {
                    Role::Menu if submenus < DEPTH => {
                        menu = up;
                        submenus += 1;
                    }
                    Role::ComboBox => break Some(up),
                    _ => break None,
                }
            };
            if let Some(combo) = combo {
                if submenus > 0 && selected {
                    return self.click(node).await;
                }
                if submenus == 0 && self.has(&combo, SELECTION).await? {
                    parent = combo;
                } else if submenus == 0
                    && self.profile.combo_menus_choose()
                    && self.has(&parent, SELECTION).await?
                {
                    // Gecko's `<select>`: the menu's own Selection
                    // chooses the option (its `select` action does
                    // nothing while the popup is closed).
                } else if selected {
                    // A combo box that offers no Selection (Chromium's
                    // `<select>`): its closed popup's menu selects nothing,
                    // and the option's place is not on the screen; the
                    // option's own action (`select`) chooses it.
                    return self.click(node).await;
                }
            }
        }
        // A cell inside a cell (GTK's cell holding the renderer cells of a
        // tree view column) is selected through the cell the table holds:
        // the table's Selection counts its own children.
        let mut child = node.clone();
        let mut depth = 0;
        while depth < DEPTH
            && self.role(&parent).await? == Role::TableCell
            && !self.has(&parent, SELECTION).await?
        {
            child = parent.clone();
            parent = self.parent(&parent).await?;
            depth += 1;
        }
        if !self.has(&parent, SELECTION).await? {
            return Ok(Outcome::NeedsInput);
        }
        let index: i32 = self
            .bus
            .call(
                &t,
                &child.bus,
                &child.path,
                accessible::GET_INDEX_IN_PARENT,
                &(),
            )
            .await?;
        let method = if selected {
            selection::SELECT_CHILD
        } else {
            selection::DESELECT_CHILD
        };
        let ok: bool = self
            .bus
            .call(&t, &parent.bus, &parent.path, method, &(index,))
            .await?;
        if ok {
            return Ok(Outcome::Done(format!("Selection.{}", method.name)));
        }
        // A refusal is not always a failure: GTK 3's tree view refuses to
        // select a row that is selected already, and refuses any row of a
        // table of more than one column (its rows are selected, not its
        // cells), where the table's own interface selects the row.
        if matches!(self.child_selected(&parent, index).await, Ok(s) if s == selected) {
            let already = if selected { "selected" } else { "not selected" };
            return Ok(Outcome::Done(format!(
                "Selection.IsChildSelected (already {already})"
            )));
        }
        if self.has(&parent, TABLE).await? {
            let row: i32 = self
                .bus
                .call(
                    &t,
                    &parent.bus,
                    &parent.path,
                    table::GET_ROW_AT_INDEX,
                    &(index,),
                )
                .await?;
            let method = if selected {
                table::ADD_ROW_SELECTION
            } else {
                table::REMOVE_ROW_SELECTION
            };
            if row >= 0 {
                let ok: bool = self
                    .bus
                    .call(&t, &parent.bus, &parent.path, method, &(row,))
                    .await?;
                if ok && matches!(self.child_selected(&parent, index).await, Ok(s) if s == selected)
                {
                    return Ok(Outcome::Done(format!("Table.{}", method.name)));
                }
            }
        }
        Ok(Outcome::NeedsInput)
    }

    /// Whether the child at `index` of `parent` (which offers Selection)
    /// is selected.
    async fn child_selected(&self, parent: &NodeAddr, index: i32) -> Result<bool> {
        let t = self.target("selecting");
        self.bus
            .call(
                &t,
                &parent.bus,
                &parent.path,
                selection::IS_CHILD_SELECTED,
                &(index,),
            )
            .await
    }

    /// A click on a table cell through its own actions: the first of
    /// click, press, toggle, select it offers. A cell's `activate` (GTK's)
    /// runs the row's default action, as a double click or Enter does (a
    /// dialog's list answers the dialog with it), and its `edit` opens an
    /// editor: neither is a click. [`Outcome::NeedsInput`] when it offers
    /// none of these.
    pub async fn click_cell(&self, node: &NodeAddr) -> Result<Outcome> {
        let names = match self.action_names(node).await {
            Ok(n) => n,
            Err(e) if crate::bus::object_vanished(&e) => return Ok(Outcome::NeedsInput),
            Err(e) => return Err(e),
        };
        for wanted in CELL_CLICK_NAMES {
            if let Some(i) = names.iter().position(|n| n.eq_ignore_ascii_case(wanted)) {
                return self.do_action(node, i as i32, &names[i]).await;
            }
        }
        Ok(Outcome::NeedsInput)
    }

    /// Gives the element keyboard focus (Component.GrabFocus).
    pub async fn focus(&self, node: &NodeAddr) -> Result<Outcome> {
        if !self.has(node, COMPONENT).await? {
            return Ok(Outcome::NeedsInput);
        }
        let t = self.target("focusing");
        let ok: bool = self
            .bus
            .call(&t, &node.bus, &node.path, component::GRAB_FOCUS, &())
            .await?;
        Ok(if ok {
            Outcome::Done("Component.GrabFocus".into())
        } else {
            Outcome::NeedsInput
        })
    }

    /// Scrolls the element into view (Component.ScrollTo, anywhere).
    pub async fn scroll_into_view(&self, node: &NodeAddr) -> Result<Outcome> {
        if !self.has(node, COMPONENT).await? {
            return Ok(Outcome::NeedsInput);
        }
        let t = self.target("scrolling to");
        let ok: bool = self
            .bus
            .call(&t, &node.bus, &node.path, component::SCROLL_TO, &(6u32,))
            .await
            .unwrap_or(false);
        Ok(if ok {
            Outcome::Done("Component.ScrollTo".into())
        } else {
            Outcome::NeedsInput
        })
    }

    /// The element's screen extents, read fresh.
    pub async fn extents(&self, node: &NodeAddr) -> Result<(i32, i32, i32, i32)> {
        let t = self.target("locating");
        self.bus
            .call(&t, &node.bus, &node.path, component::GET_EXTENTS, &(0u32,))
            .await
    }

    /// How far below its reported place the element at the start of
    /// `chain` (it, then its ancestors up to its window) shows, in pixels:
    /// 0 but in an application that reports root panes higher than they
    /// show ([`Profile::misplaces_root_panes`]), where the root pane of the
    /// chain (one whose holder a capture noted, see `Bus::note_holders`)
    /// and its holder are read, as a capture reads them; 0 again for an
    /// element in a widget a capture found in its place (see
    /// `Bus::note_in_place`). Whatever cannot be read counts as in its
    /// place.
    pub async fn shown_below_reported(&self, chain: &[NodeAddr]) -> i32 {
        if !self.profile.misplaces_root_panes() {
            return 0;
        }
        // The root pane is near the window: looked for from the top down.
        let held = chain.iter().enumerate().rev().find_map(|(i, at)| {
            let path = self.bus.holder(&at.bus, &at.path)?;
            let holder = NodeAddr {
                bus: at.bus.clone(),
                path,
            };
            Some((i, holder))
        });
        let Some((pane, holder)) = held else {
            return 0;
        };
        if chain[..pane]
            .iter()
            .any(|at| self.bus.is_in_place(&at.bus, &at.path))
        {
            return 0;
        }
        let place = |(x, y, w, h)| uidelta_model::Rect::new(x, y, w, h);
        match (
            self.extents(&chain[pane]).await,
            self.extents(&holder).await,
        ) {
            (Ok(pane), Ok(around)) => crate::toolkit::root_pane_drop(place(pane), place(around)),
            _ => 0,
        }
    }

    /// Whether the window the element is in (its nearest ancestor with a
    /// window's role) is the active one; false when that cannot be read.
    async fn in_active_window(&self, node: &NodeAddr) -> bool {
        /// Deeper than any window's widgets go.
        const MAX_DEPTH: usize = 64;
        let mut at = node.clone();
        for _ in 0..MAX_DEPTH {
            let Ok(parent) = self.parent(&at).await else {
                return false;
            };
            if parent.path.ends_with("/null") || parent.path == at.path {
                return false;
            }
            match self.role(&parent).await {
                Ok(role) if role.is_window() => {
                    return self
                        .states(&parent)
                        .await
                        .is_ok_and(|s| s.contains(State::Active));
                }
                Ok(uidelta_model::Role::Application) | Err(_) => return false,
                Ok(_) => at = parent,
            }
        }
        false
    }

    /// The element's parent.
    pub async fn parent(&self, node: &NodeAddr) -> Result<NodeAddr> {
        let parent: (String, OwnedObjectPath) = self.property(node, accessible::PARENT).await?;
        Ok(parent.into())
    }

    /// Elements in `window` that are showing and modal, up to 8, through
    /// the Collection interface (one call; the application does the
    /// search). GTK 3 draws a popover inside its window as such a panel, and
    /// while one is open a click anywhere else in the window only closes
    /// it. An error when the toolkit offers no Collection.
    pub async fn modal_within(&self, window: &NodeAddr) -> Result<Vec<NodeAddr>> {
        use std::collections::HashMap;
        use uidelta_model::State;
        /// `ATSPI_Collection_MATCH_ALL`: every listed item must match (an
        /// empty list matches all).
        const ALL: i32 = 1;
        /// `ATSPI_Collection_SORT_ORDER_CANONICAL`.
        const CANONICAL: u32 = 1;
        let states = crate::state::words(&[State::Modal, State::Showing, State::Visible]);
        let rule = (
            states.to_vec(),
            ALL,
            HashMap::<String, String>::new(),
            ALL,
            Vec::<i32>::new(),
            ALL,
            Vec::<String>::new(),
            ALL,
            false,
        );
        let t = self.target("looking for popovers in");
        if self.bus.holds_huge(&window.bus) {
            return Err(Error::NotFound(format!(
                "{}: not searched for popovers: it holds a container too big to search",
                t.who
            )));
        }
        let found: Vec<(String, OwnedObjectPath)> = self
            .bus
            .call(
                &t,
                &window.bus,
                &window.path,
                collection::GET_MATCHES,
                &(rule, CANONICAL, 8i32, true),
            )
            .await?;
        Ok(found.into_iter().map(NodeAddr::from).collect())
    }

    /// The element's name, read fresh.
    pub async fn name(&self, node: &NodeAddr) -> Result<String> {
        self.property(node, accessible::NAME).await
    }

    /// The element's role, as the model names it.
    pub async fn role(&self, node: &NodeAddr) -> Result<uidelta_model::Role> {
        let number = self.accessible(node, accessible::GET_ROLE).await?;
        Ok(uidelta_model::Role::from_name(&crate::state::role_name(
            number,
        )))
    }

    /// The element's states, read fresh.
    pub async fn states(&self, node: &NodeAddr) -> Result<uidelta_model::StateSet> {
        let words = self.accessible(node, accessible::GET_STATE).await?;
        Ok(crate::state::states(&words))
    }

    async fn interfaces(&self, node: &NodeAddr) -> Result<Vec<String>> {
        self.accessible(node, accessible::GET_INTERFACES).await
    }

    /// A method of the Accessible interface that takes no arguments.
    async fn accessible<T>(&self, node: &NodeAddr, method: Method<(), T>) -> Result<T>
    where
        T: serde::de::DeserializeOwned + zbus::zvariant::Type,
    {
        let t = self.target("inspecting");
        self.bus.call(&t, &node.bus, &node.path, method, &()).await
    }

    /// Whether the element implements the D-Bus interface `iface`
    /// (`org.a11y.atspi.Selection`).
    pub async fn has(&self, node: &NodeAddr, iface: &str) -> Result<bool> {
        Ok(self.interfaces(node).await?.iter().any(|i| i == iface))
    }

    async fn property<T>(&self, node: &NodeAddr, property: Property) -> Result<T>
    where
        T: TryFrom<OwnedValue>,
    {
        let t = self.target("reading");
        let v = self
            .bus
            .property(&t, &node.bus, &node.path, property)
            .await?;
        T::try_from(v).map_err(|_| Error::Call {
            doing: "reading",
            target: self.who.to_owned(),
            method: "Get",
            detail: format!(
                "{}.{} has an unexpected type",
                property.iface, property.name
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_parses_into_an_address() {
        assert_eq!(
            NodeAddr::from_identity(":1.42/org/a11y/atspi/accessible/7"),
            Some(NodeAddr {
                bus: ":1.42".into(),
                path: "/org/a11y/atspi/accessible/7".into()
            })
        );
        assert_eq!(NodeAddr::from_identity("no-slash"), None);
        assert_eq!(NodeAddr::from_identity("/path/only"), None);
    }
}
