//! Element states as a bit set.
//!
//! The set is the AT-SPI2 state list, which covers what UIA, AX and ARIA
//! report. A bit set makes comparing and hashing states one machine word.

use std::fmt;

macro_rules! states {
    ($($variant:ident => $name:literal),* $(,)?) => {
        /// One element state, named as AT-SPI2 names it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum State {
            $(#[doc = concat!("The `", $name, "` state.")] $variant,)*
        }

        impl State {
            /// Every state, in bit order.
            pub const ALL: &'static [State] = &[$(State::$variant,)*];

            /// The spelling used in every format: `checked`, `read only`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(State::$variant => $name,)*
                }
            }
        }
    };
}

states! {
    Active => "active",
    Animated => "animated",
    Armed => "armed",
    Busy => "busy",
    Checkable => "checkable",
    Checked => "checked",
    Collapsed => "collapsed",
    Defunct => "defunct",
    Editable => "editable",
    Enabled => "enabled",
    Expandable => "expandable",
    Expanded => "expanded",
    Focusable => "focusable",
    Focused => "focused",
    HasPopup => "has popup",
    HasTooltip => "has tooltip",
    Horizontal => "horizontal",
    Iconified => "iconified",
    Indeterminate => "indeterminate",
    InvalidEntry => "invalid entry",
    IsDefault => "is default",
    ManagesDescendants => "manages descendants",
    Modal => "modal",
    MultiLine => "multi line",
    Multiselectable => "multiselectable",
    Opaque => "opaque",
    Pressed => "pressed",
    ReadOnly => "read only",
    Required => "required",
    Resizable => "resizable",
    Selectable => "selectable",
    SelectableText => "selectable text",
    Selected => "selected",
    Sensitive => "sensitive",
    Showing => "showing",
    SingleLine => "single line",
    Stale => "stale",
    SupportsAutocompletion => "supports autocompletion",
    Transient => "transient",
    Truncated => "truncated",
    Vertical => "vertical",
    Visible => "visible",
    Visited => "visited",
}

impl State {
    /// Parses a state name in any common spelling (`read only`, `read_only`,
    /// `READ-ONLY`, `readonly`, `STATE_READ_ONLY`). Aliases from other
    /// platforms map too: `toggled` is `checked`, `invalid` is `invalid entry`.
    pub fn from_name(raw: &str) -> Option<State> {
        let key: String = raw
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        let key = key.strip_prefix("atspistate").unwrap_or(&key);
        let key = key
            .strip_prefix("state")
            .filter(|k| !k.is_empty())
            .unwrap_or(key);
        let alias = match key {
            "toggled" | "on" => Some(State::Checked),
            "invalid" => Some(State::InvalidEntry),
            "multiline" => Some(State::MultiLine),
            "singleline" => Some(State::SingleLine),
            "readonly" => Some(State::ReadOnly),
            "haspopup" => Some(State::HasPopup),
            "default" | "isdefault" => Some(State::IsDefault),
            "keyboardfocusable" => Some(State::Focusable),
            _ => None,
        };
        alias.or_else(|| {
            State::ALL
                .iter()
                .copied()
                .find(|s| s.as_str().replace(' ', "") == key)
        })
    }

    const fn bit(self) -> u64 {
        1u64 << (self as u8)
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of [`State`]s in one `u64`.
///
/// An empty set says nothing: its source reports no states (a terminator
/// YAML node, a format without them). A source that reports states for
/// every element (AT-SPI) says so of an element that has none of them with
/// [`StateSet::REPORTED_NONE`]: not enabled, not visible, not showing (a
/// hidden insensitive box). Adding a state to it makes it a plain set.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateSet(u64);

/// The bit of [`StateSet::REPORTED_NONE`], past every state's.
const REPORTED: u64 = 1 << 63;

impl StateSet {
    /// The empty set: no states, and nothing said about them.
    pub const EMPTY: StateSet = StateSet(0);

    /// No states, as a source that reports them said: the element is
    /// neither enabled nor showing.
    pub const REPORTED_NONE: StateSet = StateSet(REPORTED);

    /// A set of the given states.
    pub fn of(states: &[State]) -> StateSet {
        states.iter().fold(StateSet::EMPTY, |set, &s| set.with(s))
    }

    /// The raw bits, for hashing.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Whether `state` is in the set.
    pub const fn contains(self, state: State) -> bool {
        self.0 & state.bit() != 0
    }

    /// Adds `state`.
    pub fn insert(&mut self, state: State) {
        self.0 = (self.0 & !REPORTED) | state.bit();
    }

    /// Removes `state`.
    pub fn remove(&mut self, state: State) {
        self.0 &= !state.bit();
    }

    /// Sets or clears `state`.
    pub fn set(&mut self, state: State, on: bool) {
        if on {
            self.insert(state)
        } else {
            self.remove(state)
        }
    }

    /// A copy with `state` added.
    pub const fn with(self, state: State) -> StateSet {
        StateSet((self.0 & !REPORTED) | state.bit())
    }

    /// A copy without the states in `mask`: the states of this set not in
    /// the other (empty when there are none, as [`StateSet::intersection`]
    /// is).
    pub const fn without(self, mask: StateSet) -> StateSet {
        StateSet(self.0 & !mask.0 & !REPORTED)
    }

    /// The states in both sets (a set that is only reported holds none).
    pub const fn intersection(self, other: StateSet) -> StateSet {
        StateSet(self.0 & other.0 & !REPORTED)
    }

    /// Whether the set says nothing: no states, and none reported (see
    /// [`StateSet::REPORTED_NONE`]).
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set holds no state, reported or not.
    pub const fn has_none(self) -> bool {
        self.0 & !REPORTED == 0
    }

    /// Whether these states say the element does not show: some were
    /// reported, and `showing` is not among them. An empty set says
    /// nothing (the source reports no states).
    pub const fn says_hidden(self) -> bool {
        !self.is_empty() && !self.contains(State::Showing)
    }

    /// The states in the set, in bit order.
    pub fn iter(self) -> impl Iterator<Item = State> {
        State::ALL
            .iter()
            .copied()
            .filter(move |s| self.contains(*s))
    }

    /// The states in exactly one of the two sets.
    pub const fn symmetric_difference(self, other: StateSet) -> StateSet {
        StateSet((self.0 ^ other.0) & !REPORTED)
    }
}

impl FromIterator<State> for StateSet {
    fn from_iter<I: IntoIterator<Item = State>>(iter: I) -> Self {
        iter.into_iter().fold(StateSet::EMPTY, |set, s| set.with(s))
    }
}

impl fmt::Debug for StateSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(State::as_str))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_aliases_map() {
        for &s in State::ALL {
            assert_eq!(State::from_name(s.as_str()), Some(s));
        }
        assert_eq!(State::from_name("STATE_READ_ONLY"), Some(State::ReadOnly));
        assert_eq!(State::from_name("read-only"), Some(State::ReadOnly));
        assert_eq!(State::from_name("toggled"), Some(State::Checked));
        assert_eq!(State::from_name("invalid"), Some(State::InvalidEntry));
        assert_eq!(State::from_name("sparkly"), None);
        assert!(State::ALL.len() < 64);
    }

    #[test]
    fn set_operations() {
        let mut s = StateSet::of(&[State::Enabled, State::Showing]);
        assert!(s.contains(State::Enabled));
        s.remove(State::Enabled);
        assert!(!s.contains(State::Enabled));
        s.set(State::Checked, true);
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            vec![State::Checked, State::Showing]
        );
    }

    #[test]
    fn a_reported_set_without_states_says_hidden_and_stays_reported() {
        let none = StateSet::REPORTED_NONE;
        assert!(!none.is_empty() && none.has_none() && none.says_hidden());
        assert_eq!(none.iter().count(), 0);
        assert!(!StateSet::EMPTY.says_hidden());
        // A state added makes it a plain set.
        let enabled = none.with(State::Enabled);
        assert_eq!(enabled, StateSet::of(&[State::Enabled]));
        let mut s = none;
        s.insert(State::Enabled);
        assert_eq!(s, enabled);
        s = none;
        s.remove(State::Enabled);
        assert_eq!(s, none);
        // Set differences and intersections hold states only.
        assert!(enabled.without(enabled).is_empty());
        assert!(none.without(enabled).is_empty());
        assert!(none.intersection(none).is_empty());
        assert!(none.symmetric_difference(StateSet::EMPTY).is_empty());
    }
}
