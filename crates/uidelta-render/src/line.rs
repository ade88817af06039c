//! The one element line shared by the tree and diff text renderers:
//! `[e12] push button "Save" = "text" (focused, disabled) @892,512 80x30`.

use uidelta_diff::{Element, Handle, Ref};
use uidelta_model::{NodeData, Rect, Role, State, StateSet};

use crate::text::{quote_brief, quote_capped, rect_text, role_label};

/// What renderers read of one element, borrowed from a tree node or from a
/// diff element, so that both are formatted by the same code.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Facts<'a> {
    pub role: Role,
    pub raw_role: &'a str,
    pub name: &'a str,
    pub value: Option<&'a str>,
    pub description: &'a str,
    pub states: StateSet,
    pub bounds: Option<Rect>,
    pub attributes: &'a [(String, String)],
}

impl<'a> From<&'a NodeData> for Facts<'a> {
    fn from(n: &'a NodeData) -> Facts<'a> {
        Facts {
            role: n.role,
            raw_role: &n.raw_role,
            name: &n.name,
            value: n.value.as_deref(),
            description: &n.description,
            states: n.states,
            bounds: n.bounds,
            attributes: &n.attributes,
        }
    }
}

impl<'a> From<&'a Element> for Facts<'a> {
    fn from(e: &'a Element) -> Facts<'a> {
        Facts {
            role: e.role,
            raw_role: &e.raw_role,
            name: &e.name,
            value: e.value.as_deref(),
            description: &e.description,
            states: e.states,
            bounds: e.bounds,
            attributes: &e.attributes,
        }
    }
}

impl<'a> Facts<'a> {
    /// The role as rendered.
    pub fn role_label(&self) -> std::borrow::Cow<'a, str> {
        role_label(self.role, self.raw_role)
    }

    /// The text selected in it (see [`uidelta_model::SELECTION`]).
    pub fn selection(&self) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == uidelta_model::SELECTION)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }

    /// The value when there is one worth showing.
    pub fn shown_value(&self) -> Option<&str> {
        self.value.filter(|v| !v.is_empty())
    }
}

/// How much of an element a line shows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Detail {
    /// The value and the state list (left out where a line lists changes).
    pub value_and_states: bool,
    /// Bounds as `@x,y wxh`.
    pub bounds: bool,
    /// Whether the parent is hidden, so that `hidden` is said only at the
    /// top of a hidden subtree.
    pub parent_hidden: bool,
    /// The name cut to a mention's length (an element the agent has read
    /// before: one that changed or went away).
    pub brief_name: bool,
}

/// `[e12] push button "Save"`, the start of every line about an element.
fn head(r: Option<Ref>, role: &str, name: &str, brief: bool) -> String {
    let mut out = match r {
        Some(r) => format!("[{r}] {role}"),
        None => format!("[?] {role}"),
    };
    if !name.is_empty() {
        out.push(' ');
        out.push_str(&if brief {
            quote_brief(name)
        } else {
            quote_capped(name)
        });
    }
    out
}

/// One element as a line of text; `r` is `None` only when a caller's refs
/// do not cover the element, which is shown as `[?]`.
pub(crate) fn element_line(r: Option<Ref>, facts: Facts<'_>, detail: Detail) -> String {
    let mut out = head(r, &facts.role_label(), facts.name, detail.brief_name);
    if detail.value_and_states {
        // A value that only repeats the name (a button whose text is its
        // label) says nothing more.
        if let Some(value) = facts.shown_value().filter(|v| *v != facts.name) {
            out.push_str(" = ");
            out.push_str(&quote_capped(value));
        }
        let mut states: Vec<std::borrow::Cow<'_, str>> =
            state_words(facts.states, detail.parent_hidden)
                .into_iter()
                .map(Into::into)
                .collect();
        // What typing would replace: all of the value, or the part said.
        if let Some(selected) = facts.selection() {
            states.push(match facts.shown_value() == Some(selected) {
                true => "all selected".into(),
                false => format!("selected {}", quote_capped(selected)).into(),
            });
        }
        if !states.is_empty() {
            out.push_str(&format!(" ({})", states.join(", ")));
        }
    }
    if detail.bounds {
        if let Some(b) = facts.bounds {
            out.push(' ');
            out.push_str(&rect_text(b));
        }
    }
    out
}

/// `[e13] "Open"`, or `[e14]` without a name: an element whose role was
/// already said.
pub(crate) fn ref_and_name(r: Ref, name: &str) -> String {
    if name.is_empty() {
        format!("[{r}]")
    } else {
        format!("[{r}] {}", quote_brief(name))
    }
}

/// The short mention of an element, `[e3] dialog "Save As"`, as used for
/// context.
pub(crate) fn handle_text(h: &Handle) -> String {
    head(Some(h.r#ref), h.role.as_str(), &h.name, true)
}

/// States an agent acts on, in a fixed order. Everything else (showing,
/// focusable, sensitive...) is the normal case and would only cost tokens.
const SHOWN_STATES: [(State, &str); 10] = [
    (State::Focused, "focused"),
    (State::Checked, "checked"),
    (State::Selected, "selected"),
    (State::Pressed, "pressed"),
    (State::Expanded, "expanded"),
    (State::Indeterminate, "indeterminate"),
    (State::Modal, "modal"),
    (State::Required, "required"),
    (State::InvalidEntry, "invalid"),
    (State::ReadOnly, "read only"),
];

/// The words of a state list: the states above, with `collapsed` after
/// `expanded`, then `busy`, `disabled` and `hidden`.
fn state_words(states: StateSet, parent_hidden: bool) -> Vec<&'static str> {
    let mut words = Vec::new();
    for (state, word) in SHOWN_STATES {
        if states.contains(state) {
            words.push(word);
        }
        if state == State::Expanded && is_collapsed(states) {
            words.push("collapsed");
        }
    }
    if states.contains(State::Busy) {
        words.push("busy");
    }
    if is_disabled(states) {
        words.push("disabled");
    }
    if is_hidden(states) && !parent_hidden {
        words.push("hidden");
    }
    words
}

fn is_collapsed(states: StateSet) -> bool {
    states.contains(State::Expandable) && !states.contains(State::Expanded)
}

/// Disabled: states were reported and `enabled` is not among them. An empty
/// set means the source reports no states at all, which says nothing.
pub(crate) fn is_disabled(states: StateSet) -> bool {
    !states.is_empty() && !states.contains(State::Enabled)
}

/// Hidden: states were reported and `showing` is not among them.
pub(crate) fn is_hidden(states: StateSet) -> bool {
    states.says_hidden()
}

/// Follows a preorder walk by depth and tells, for each node, whether its
/// parent is hidden.
#[derive(Debug, Default)]
pub(crate) struct HiddenParents {
    hidden_by_depth: Vec<bool>,
}

impl HiddenParents {
    /// Records the node at `depth` and returns whether its parent is hidden.
    pub fn visit(&mut self, depth: usize, states: StateSet) -> bool {
        self.hidden_by_depth.truncate(depth);
        let parent_hidden = depth > 0 && self.hidden_by_depth.last().copied().unwrap_or(false);
        self.hidden_by_depth.push(is_hidden(states));
        parent_hidden
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(n: &NodeData) -> Facts<'_> {
        Facts::from(n)
    }

    const FULL: Detail = Detail {
        value_and_states: true,
        bounds: true,
        parent_hidden: false,
        brief_name: false,
    };

    #[test]
    fn a_full_line_has_every_part_in_order() {
        let mut n = NodeData::named(Role::PushButton, "Save");
        n.value = Some("text".into());
        n.states = StateSet::of(&[State::Focused, State::Showing]);
        n.bounds = Some(Rect::new(892, 512, 80, 30));
        assert_eq!(
            element_line(Some(Ref(12)), facts(&n), FULL),
            r#"[e12] push button "Save" = "text" (focused, disabled) @892,512 80x30"#
        );
    }

    #[test]
    fn states_follow_the_fixed_order() {
        let mut n = NodeData::new(Role::TreeItem);
        n.states = StateSet::of(&[
            State::Busy,
            State::ReadOnly,
            State::InvalidEntry,
            State::Required,
            State::Modal,
            State::Indeterminate,
            State::Expandable,
            State::Pressed,
            State::Selected,
            State::Checked,
            State::Focused,
        ]);
        assert_eq!(
            element_line(Some(Ref(1)), facts(&n), FULL),
            "[e1] tree item (focused, checked, selected, pressed, collapsed, indeterminate, \
             modal, required, invalid, read only, busy, disabled, hidden)"
        );
    }

    #[test]
    fn a_value_equal_to_the_name_is_not_repeated() {
        let mut n = NodeData::named(Role::PushButton, "Confirm");
        n.value = Some("Confirm".into());
        assert_eq!(
            element_line(Some(Ref(7)), facts(&n), FULL),
            r#"[e7] push button "Confirm""#
        );
        n.value = Some("Confirm order".into());
        assert_eq!(
            element_line(Some(Ref(7)), facts(&n), FULL),
            r#"[e7] push button "Confirm" = "Confirm order""#
        );
    }

    #[test]
    fn no_states_means_nothing_is_said() {
        let n = NodeData::named(Role::Label, "Ready");
        assert_eq!(
            element_line(Some(Ref(3)), facts(&n), FULL),
            r#"[e3] label "Ready""#
        );
    }

    #[test]
    fn hidden_is_said_once_per_hidden_subtree() {
        let hidden = StateSet::of(&[State::Enabled]);
        let shown = StateSet::of(&[State::Enabled, State::Showing]);
        let mut walk = HiddenParents::default();
        assert!(!walk.visit(0, shown));
        assert!(!walk.visit(1, hidden));
        assert!(walk.visit(2, hidden));
        assert!(walk.visit(2, shown));
        assert!(!walk.visit(1, shown));
    }
}
