//! AT-SPI state bits and role numbers, mapped onto the model.

use uidelta_model::State;

/// AT-SPI's state numbering (`AtspiStateType`), bit by bit.
const BITS: [Option<State>; 44] = [
    None, // invalid
    Some(State::Active),
    Some(State::Armed),
    Some(State::Busy),
    Some(State::Checked),
    Some(State::Collapsed),
    Some(State::Defunct),
    Some(State::Editable),
    Some(State::Enabled),
    Some(State::Expandable),
    Some(State::Expanded),
    Some(State::Focusable),
    Some(State::Focused),
    Some(State::HasTooltip),
    Some(State::Horizontal),
    Some(State::Iconified),
    Some(State::Modal),
    Some(State::MultiLine),
    Some(State::Multiselectable),
    Some(State::Opaque),
    Some(State::Pressed),
    Some(State::Resizable),
    Some(State::Selectable),
    Some(State::Selected),
    Some(State::Sensitive),
    Some(State::Showing),
    Some(State::SingleLine),
    Some(State::Stale),
    Some(State::Transient),
    Some(State::Vertical),
    Some(State::Visible),
    Some(State::ManagesDescendants),
    Some(State::Indeterminate),
    Some(State::Required),
    Some(State::Truncated),
    Some(State::Animated),
    Some(State::InvalidEntry),
    Some(State::SupportsAutocompletion),
    Some(State::SelectableText),
    Some(State::IsDefault),
    Some(State::Visited),
    Some(State::Checkable),
    Some(State::HasPopup),
    Some(State::ReadOnly),
];

/// Decodes the two 32-bit words of `GetState` / a cache item. AT-SPI
/// reports the states of every object: one with none (a hidden insensitive
/// box) is [`uidelta_model::StateSet::REPORTED_NONE`], not enabled and not
/// showing, where an empty set would say nothing.
pub fn states(words: &[u32]) -> uidelta_model::StateSet {
    let bits = words.first().copied().unwrap_or(0) as u64
        | (words.get(1).copied().unwrap_or(0) as u64) << 32;
    let set: uidelta_model::StateSet = BITS
        .iter()
        .enumerate()
        .filter(|(i, _)| bits & (1u64 << i) != 0)
        .filter_map(|(_, s)| *s)
        .collect();
    if set.is_empty() {
        uidelta_model::StateSet::REPORTED_NONE
    } else {
        set
    }
}

/// Encodes states as the two 32-bit words AT-SPI uses (a match rule's).
pub fn words(set: &[State]) -> [i32; 2] {
    let mut bits = 0u64;
    for (i, s) in BITS.iter().enumerate() {
        if s.is_some_and(|s| set.contains(&s)) {
            bits |= 1u64 << i;
        }
    }
    [bits as u32 as i32, (bits >> 32) as u32 as i32]
}

/// The AT-SPI role name for a role number, spelled as `GetRoleName` spells
/// it (`push button`; the atspi crate says `button`).
pub fn role_name(number: u32) -> String {
    match atspi_common::Role::try_from(number) {
        Ok(r) => match uidelta_model::Role::from_name(r.name()) {
            uidelta_model::Role::Unknown => r.name().to_owned(),
            known => known.as_str().to_owned(),
        },
        Err(_) => format!("role {number}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_both_words() {
        let s = states(&[(1 << 8) | (1 << 25), 1 << (43 - 32)]);
        let names: Vec<&str> = s.iter().map(State::as_str).collect();
        assert_eq!(names, ["enabled", "read only", "showing"]);
        assert_eq!(role_name(43), "push button");
        // No state at all (or only ones no set holds) is said, not unknown.
        assert_eq!(states(&[0, 0]), uidelta_model::StateSet::REPORTED_NONE);
        assert_eq!(states(&[]), uidelta_model::StateSet::REPORTED_NONE);
    }

    #[test]
    fn encodes_what_it_decodes() {
        let w = words(&[State::Modal, State::Showing, State::ReadOnly]);
        assert_eq!(w, [(1 << 16) | (1 << 25), 1 << (43 - 32)]);
        let back = states(&[w[0] as u32, w[1] as u32]);
        let names: Vec<&str> = back.iter().map(State::as_str).collect();
        assert_eq!(names, ["modal", "read only", "showing"]);
    }
}
