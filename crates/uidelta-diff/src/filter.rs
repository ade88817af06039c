//! Noise filters, as named rules that can be listed and switched off.
//!
//! A rule says what never counts as a change. Rules act when a snapshot is
//! turned into a [`View`](crate::View), so matching and diffing never see
//! the noise at all.

use std::fmt;
use std::str::FromStr;

use uidelta_model::{State, StateSet};

/// One noise rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// Bounds and position are never compared.
    Bounds,
    /// Id-like attributes (`id`, `index`, `table-cell-index`, `runtime-id`,
    /// ...) are dropped.
    VolatileIds,
    /// Scroll bars and value indicators are dropped with their subtrees.
    Scrollbars,
    /// Whitespace-only text counts as no text; empty text leaves are dropped
    /// (labels, text runs and notifications; an empty entry is a field and
    /// stays).
    Whitespace,
    /// Layout containers with nothing to say are transparent: their children
    /// are shown under the nearest meaningful ancestor. So is a list item
    /// with nothing to say around a single element (a link in a menu).
    EmptyContainers,
    /// States that flicker without meaning (armed, animated, opaque, stale,
    /// defunct, has tooltip, truncated) and `sensitive`, which follows
    /// `enabled`, are not compared.
    VolatileStates,
    /// A table cell that only holds the cells of one column (GTK's icon and
    /// text renderers) is transparent when one of them carries the row, and
    /// an unnamed, empty cell in it that only repeats the row's states is
    /// left out.
    EmptyCells,
}

impl Rule {
    /// Every rule, in the order they are listed.
    pub const ALL: [Rule; 7] = [
        Rule::Bounds,
        Rule::VolatileIds,
        Rule::Scrollbars,
        Rule::Whitespace,
        Rule::EmptyContainers,
        Rule::EmptyCells,
        Rule::VolatileStates,
    ];

    /// The name used on the command line (`--keep bounds`).
    pub const fn name(self) -> &'static str {
        match self {
            Rule::Bounds => "bounds",
            Rule::VolatileIds => "volatile-ids",
            Rule::Scrollbars => "scrollbars",
            Rule::Whitespace => "whitespace",
            Rule::EmptyContainers => "empty-containers",
            Rule::VolatileStates => "volatile-states",
            Rule::EmptyCells => "empty-cells",
        }
    }

    /// One line saying what the rule hides.
    pub const fn description(self) -> &'static str {
        match self {
            Rule::Bounds => "bounds and position changes alone are not changes",
            Rule::VolatileIds => {
                "id-like attributes (id, index, runtime-id, backend-node-id, ...) are ignored"
            }
            Rule::Scrollbars => "scroll bars and value indicators are left out",
            Rule::Whitespace => {
                "whitespace-only text counts as empty; empty labels, text runs and notifications are \
                 left out (empty entries stay)"
            }
            Rule::EmptyContainers => {
                "unnamed layout containers, and unnamed list items around a single element, are \
                 transparent: children show under the nearest meaningful ancestor"
            }
            Rule::VolatileStates => {
                "armed, animated, opaque, stale, defunct, has tooltip, truncated and sensitive \
                 (which follows enabled) are not compared"
            }
            Rule::EmptyCells => {
                "unnamed, empty table cells that only repeat their row's states are left out, and \
                 a cell holding one column's cells shows as the one that carries the row"
            }
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a rule; lists the rules there are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRule(pub String);

impl fmt::Display for UnknownRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
        write!(
            f,
            "no filter rule named `{}`; rules are: {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownRule {}

impl FromStr for Rule {
    type Err = UnknownRule;

    fn from_str(s: &str) -> Result<Rule, UnknownRule> {
        let key = s.trim().to_ascii_lowercase().replace('_', "-");
        Rule::ALL
            .iter()
            .copied()
            .find(|r| r.name() == key || (key == "ids" && *r == Rule::VolatileIds))
            .ok_or_else(|| UnknownRule(s.to_owned()))
    }
}

/// Which rules are on. All are on by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Filters {
    /// One bit per rule, set when it is off.
    off: u8,
}

const _: () = assert!(Rule::ALL.len() <= u8::BITS as usize);

impl Default for Filters {
    fn default() -> Self {
        Filters::all()
    }
}

impl Filters {
    /// Every rule on.
    pub const fn all() -> Filters {
        Filters { off: 0 }
    }

    /// Every rule off: the raw tree, every difference reported.
    pub const fn none() -> Filters {
        Filters { off: u8::MAX }
    }

    /// Turns `rule` off, so that what it hides is compared again.
    pub const fn keep(self, rule: Rule) -> Filters {
        Filters {
            off: self.off | (1 << rule as u8),
        }
    }

    /// Whether `rule` is on.
    pub const fn is_on(self, rule: Rule) -> bool {
        self.off & (1 << rule as u8) == 0
    }

    /// The rules that are on.
    pub fn active(self) -> impl Iterator<Item = Rule> {
        Rule::ALL.into_iter().filter(move |r| self.is_on(*r))
    }

    /// The states compared under these filters. `focused` is never among
    /// them: a focus change is reported once, as a focus move.
    pub fn compared_states(self) -> StateSet {
        let mut ignored = StateSet::of(&[State::Focused]);
        if self.is_on(Rule::VolatileStates) {
            ignored = ignored
                .with(State::Armed)
                .with(State::Animated)
                .with(State::Opaque)
                .with(State::Stale)
                .with(State::Defunct)
                .with(State::HasTooltip)
                .with(State::Truncated)
                .with(State::Sensitive);
        }
        State::ALL
            .iter()
            .copied()
            .collect::<StateSet>()
            .without(ignored)
    }

    /// Whether an attribute with this key is dropped as a volatile id.
    pub fn drops_attribute(self, key: &str) -> bool {
        self.is_on(Rule::VolatileIds) && is_volatile_id(key)
    }
}

fn is_volatile_id(key: &str) -> bool {
    let k = key.to_ascii_lowercase().replace('_', "-");
    matches!(
        k.as_str(),
        "id" | "index"
            | "table-cell-index"
            | "runtime-id"
            | "runtimeid"
            | "backend-node-id"
            | "backenddomnodeid"
            | "node-id"
            | "nodeid"
            | "dom-id"
            | "object-path"
            | "ax-id"
            | "axid"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_by_name_and_list_alternatives() {
        for r in Rule::ALL {
            assert_eq!(r.name().parse::<Rule>(), Ok(r));
        }
        assert_eq!("volatile_ids".parse::<Rule>(), Ok(Rule::VolatileIds));
        let err = "colour".parse::<Rule>().unwrap_err().to_string();
        assert!(err.contains("bounds, volatile-ids, scrollbars"), "{err}");
    }

    #[test]
    fn keep_turns_one_rule_off() {
        let f = Filters::all().keep(Rule::Bounds);
        assert!(!f.is_on(Rule::Bounds));
        assert!(f.is_on(Rule::Scrollbars));
        assert_eq!(f.active().count(), 6);
        assert!(!Filters::all().compared_states().contains(State::Focused));
        assert!(Filters::all().compared_states().contains(State::Checked));
        assert!(!Filters::all().compared_states().contains(State::Sensitive));
        assert!(Filters::all()
            .keep(Rule::VolatileStates)
            .compared_states()
            .contains(State::Sensitive));
        assert!(Filters::all().drops_attribute("runtime_id"));
        // Chromium's cell position: every cell below an inserted row's.
        assert!(Filters::all().drops_attribute("table-cell-index"));
        assert!(!Filters::all().drops_attribute("setsize"));
        assert!(!Filters::all().keep(Rule::VolatileIds).drops_attribute("id"));
    }
}
