//! Chromium through AT-SPI (`ToolkitName` `Chromium`): its browser window
//! and pages. It exports placeholders nobody sees, restates states and
//! descriptions as attributes, says how each element is laid out in its
//! attributes (left out with Gecko's, [`super::leave_out_layout_attributes`]),
//! and appends a memory readout to its tabs' names.

use uidelta_model::Role;

use crate::capture::Rec;

/// A name as Chromium gives it: a tab's without its memory readout.
pub(crate) fn clean_name(role: Role, name: &mut String) {
    if role == Role::PageTab {
        let kept = without_memory_usage(name).len();
        name.truncate(kept);
    }
}

/// `name` without the ` - Memory usage - 23.4 MB` that Chromium ends a
/// tab's name with (a readout it updates every few seconds).
fn without_memory_usage(name: &str) -> &str {
    const MARK: &str = " - Memory usage - ";
    let Some(at) = name.rfind(MARK) else {
        return name;
    };
    let readout = &name[at + MARK.len()..];
    let amount = readout
        .strip_suffix(" KB")
        .or_else(|| readout.strip_suffix(" MB"))
        .or_else(|| readout.strip_suffix(" GB"));
    let is_number = |a: &str| {
        !a.is_empty()
            && a.chars().any(|c| c.is_ascii_digit())
            && a.chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
    };
    match amount {
        Some(a) if is_number(a) => &name[..at],
        _ => name,
    }
}

/// Whether Chromium's attributes of an element of `role` say anything: not
/// those of a text run (`static`, a DOM text node, which carries no ARIA),
/// which only say how the run is laid out.
pub(crate) fn attributes_say_something(role: Role) -> bool {
    role != Role::Static
}

/// Chromium's placeholders for the page actions of its address bar, two
/// dozen nameless buttons of no size: an object that reports no state at
/// all and that Chromium calls hidden (`hidden:true`). Neither it nor
/// anything in it is in the tree. Attributes that restate what an element
/// says anyway, `hidden` (the absence of `showing`) and `description` (the
/// description), are left out: each would be a second line of every such
/// change.
pub(crate) fn leave_out_placeholders(recs: &mut [Rec]) {
    for r in recs.iter_mut() {
        let hidden = r
            .attributes
            .iter()
            .any(|(k, v)| k == "hidden" && v == "true");
        if hidden && r.basic.states.has_none() {
            r.left_out = true;
        }
        let description = &r.basic.description;
        r.attributes
            .retain(|(k, v)| k != "hidden" && !(k == "description" && v == description));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::assemble;
    use crate::capture::fixtures::recs;
    use uidelta_model::State;

    #[test]
    fn stateless_hidden_placeholders_are_left_out_with_their_subtrees() {
        let mut r = recs(&[
            ("tool bar", &[State::Showing], &[1, 3]),
            ("push button", &[], &[2]),
            ("notification", &[], &[]),
            ("push button", &[State::Showing], &[]),
        ]);
        r[1].attributes = vec![("hidden".into(), "true".into())];
        r[2].attributes = vec![("hidden".into(), "true".into())];
        leave_out_placeholders(&mut r);
        let tree = assemble(r);
        let roles: Vec<Role> = tree.nodes().iter().map(|n| n.role).collect();
        assert_eq!(roles, [Role::ToolBar, Role::PushButton]);
        assert!(tree.nodes()[1].states.contains(State::Showing));
        // Without `hidden:true`, no states say nothing, and it stays.
        let mut kept = recs(&[
            ("tool bar", &[State::Showing], &[1]),
            ("push button", &[], &[]),
        ]);
        leave_out_placeholders(&mut kept);
        let kept = assemble(kept);
        assert_eq!(kept.len(), 2);
    }

    #[test]
    fn attributes_that_restate_states_or_the_description_are_left_out() {
        let attrs = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let mut r = recs(&[
            ("link", &[State::Showing], &[]),
            ("link", &[State::Showing], &[]),
        ]);
        for link in r.iter_mut() {
            link.basic.description = "file:///a.html".into();
        }
        r[0].attributes = attrs(&[
            ("description", "file:///a.html"),
            ("hidden", "true"),
            ("posinset", "2"),
        ]);
        r[1].attributes = attrs(&[("description", "other")]);
        leave_out_placeholders(&mut r);
        assert_eq!(r[0].attributes, attrs(&[("posinset", "2")]));
        assert!(!r[0].left_out, "it has states: no placeholder");
        assert_eq!(r[1].attributes, attrs(&[("description", "other")]));
    }

    #[test]
    fn a_tabs_memory_readout_is_not_part_of_its_name() {
        let clean = |role: Role, name: &str| {
            let mut name = name.to_owned();
            clean_name(role, &mut name);
            name
        };
        assert_eq!(
            clean(Role::PageTab, "Sign up - Memory usage - 22.6 MB"),
            "Sign up"
        );
        assert_eq!(clean(Role::PageTab, "A - Memory usage - 1,024 KB"), "A");
        assert_eq!(clean(Role::PageTab, "Big - Memory usage - 1.2 GB"), "Big");
        for kept in [
            "Notes - Memory usage - lots",
            "Memory usage - 3 MB of 8",
            " - Memory usage -  MB",
        ] {
            assert_eq!(clean(Role::PageTab, kept), kept);
        }
        // Only a tab's.
        assert_eq!(
            clean(Role::Link, "Page - Memory usage - 22.6 MB"),
            "Page - Memory usage - 22.6 MB"
        );
    }
}
