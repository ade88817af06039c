//! Modal windows a browser shows and a page's accessibility tree lacks (a
//! JavaScript dialog, a file chooser), made up here: a modal `dialog` at
//! the end of the tab's document with its parts (an entry, `OK` or `Open`,
//! `Cancel`), each with an identity of its own (`<kind>:<serial>:<part>`)
//! that actions on it are told by, and the focus.

use uidelta_backend::Action;
use uidelta_model::{NodeData, NodeId, Role, Snapshot, State, StateSet, TreeBuilder};

/// A part of a made-up modal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// The modal itself.
    Whole,
    /// Its entry (a prompt's text, a chooser's file name).
    Entry,
    /// The button that answers it (`OK`, `Open`).
    Ok,
    /// The button that dismisses it.
    Cancel,
}

impl Part {
    fn suffix(self) -> &'static str {
        match self {
            Part::Whole => "",
            Part::Entry => ":entry",
            Part::Ok => ":ok",
            Part::Cancel => ":cancel",
        }
    }
}

/// The identity of `part` of the modal `serial` of `kind` (`jsdialog`).
pub(crate) fn identity(kind: &str, serial: u64, part: Part) -> String {
    format!("{kind}:{serial}{}", part.suffix())
}

/// The modal and part an identity of `kind` names: `jsdialog:7:ok`.
pub(crate) fn parse(kind: &str, identity: &str) -> Option<(u64, Part)> {
    let rest = identity.strip_prefix(kind)?.strip_prefix(':')?;
    let (serial, part) = match rest.split_once(':') {
        Some((serial, "entry")) => (serial, Part::Entry),
        Some((serial, "ok")) => (serial, Part::Ok),
        Some((serial, "cancel")) => (serial, Part::Cancel),
        Some(_) => return None,
        None => (rest, Part::Whole),
    };
    Some((serial.parse().ok()?, part))
}

/// Whether `node` is part of a modal of `kind`.
pub(crate) fn is_of(kind: &str, node: &NodeData) -> bool {
    node.identity
        .as_deref()
        .is_some_and(|i| parse(kind, i).is_some())
}

/// An element of a modal: shown, enabled, with `identity`.
pub(crate) fn element(role: Role, raw_role: &str, name: &str, identity: String) -> NodeData {
    let mut node = NodeData::named(role, name);
    node.raw_role = raw_role.into();
    node.states = StateSet::of(&[
        State::Enabled,
        State::Sensitive,
        State::Showing,
        State::Visible,
    ]);
    node.identity = Some(identity);
    node
}

/// `page` (a bare document named `title` when there is none) without its
/// focus, with the modal `dialog` and its `parts` at the end of its
/// document. The focus is on the part that says it has it.
pub(crate) fn at_end(
    page: Option<&Snapshot>,
    title: &str,
    mut dialog: NodeData,
    parts: Vec<NodeData>,
) -> Snapshot {
    let (meta, mut builder) = match page {
        Some(page) => {
            let tree = page.tree();
            let mut root = tree.node(NodeId::ROOT).clone();
            root.states.remove(State::Focused);
            let mut builder = TreeBuilder::with_capacity(root, tree.len() + parts.len() + 1);
            tree.copy_children_into(NodeId::ROOT, &mut builder);
            (page.meta.clone(), builder)
        }
        None => {
            let mut root = NodeData::named(Role::DocumentWeb, title);
            root.raw_role = "RootWebArea".into();
            root.states = StateSet::of(&[State::Enabled, State::Showing, State::Visible]);
            let meta = uidelta_model::Meta {
                source: "cdp".into(),
                app: Some(title.to_owned()),
                ..uidelta_model::Meta::default()
            };
            (meta, TreeBuilder::new(root))
        }
    };
    for id in 1..builder.len() {
        builder
            .node_mut(NodeId(id as u32))
            .states
            .remove(State::Focused);
    }
    dialog.states.insert(State::Modal);
    builder.open(dialog);
    for part in parts {
        builder.leaf(part);
    }
    Snapshot::new(meta, builder.finish())
}

/// What an action on a part of a modal comes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Answered: OK (`true`) or Cancel.
    Answered(bool),
    /// The entry now holds this text.
    Text(String),
    /// Nothing to do (the modal has the focus).
    Nothing,
}

/// What `action` on `part` comes to, the entry holding `text`: its buttons
/// answer it, Return and Escape answer OK and Cancel (Return and space on
/// Cancel, Cancel), typing into its entry adds to what it holds and
/// setting its value replaces it. `None`: the action does nothing there.
pub(crate) fn answer(action: &Action, part: Part, text: &str) -> Option<Answer> {
    let key = |chord: &str| chord.trim().to_ascii_lowercase();
    Some(match (action, part) {
        (Action::Focus, _) => Answer::Nothing,
        (Action::Key(k), _) if key(k) == "escape" => Answer::Answered(false),
        (Action::Key(k), Part::Cancel)
            if matches!(key(k).as_str(), "return" | "enter" | "space") =>
        {
            Answer::Answered(false)
        }
        (Action::Key(k), _) if matches!(key(k).as_str(), "return" | "enter" | "kp_enter") => {
            Answer::Answered(true)
        }
        (Action::Key(k), Part::Ok) if key(k) == "space" => Answer::Answered(true),
        (Action::Click | Action::DoubleClick | Action::Invoke(_), Part::Ok) => {
            Answer::Answered(true)
        }
        (Action::Click | Action::DoubleClick | Action::Invoke(_), Part::Cancel) => {
            Answer::Answered(false)
        }
        (Action::Type(typed), Part::Entry) => Answer::Text(format!("{text}{typed}")),
        (Action::SetValue(value), Part::Entry) => Answer::Text(value.clone()),
        _ => return None,
    })
}

/// Every node of `snapshot` in preorder as `(role, name, value)`: what
/// the tests of what is put at a tab's end compare.
#[cfg(test)]
pub(crate) fn rows(snapshot: &Snapshot) -> Vec<(&str, &str, Option<&str>)> {
    snapshot
        .tree()
        .nodes()
        .iter()
        .map(|n| (n.role.as_str(), n.name.as_str(), n.value.as_deref()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_name_the_modal_and_its_parts() {
        for part in [Part::Whole, Part::Entry, Part::Ok, Part::Cancel] {
            assert_eq!(
                parse("jsdialog", &identity("jsdialog", 9, part)),
                Some((9, part))
            );
        }
        assert_eq!(parse("jsdialog", "jsdialog:4:ok"), Some((4, Part::Ok)));
        assert_eq!(parse("jsdialog", "jsdialog:x:ok"), None);
        assert_eq!(parse("jsdialog", "jsdialog:4:menu"), None);
        assert_eq!(parse("jsdialog", "filechooser:4"), None);
        assert_eq!(parse("jsdialog", "jsdialogs:4"), None);
        assert_eq!(parse("jsdialog", "n12"), None);
    }

    #[test]
    fn buttons_keys_and_the_entry_answer_as_a_dialog_does() {
        let answered = |action: Action, part| answer(&action, part, "Ann");
        assert_eq!(
            answered(Action::Click, Part::Ok),
            Some(Answer::Answered(true))
        );
        assert_eq!(
            answered(Action::Click, Part::Cancel),
            Some(Answer::Answered(false))
        );
        assert_eq!(
            answered(Action::Key("Return".into()), Part::Entry),
            Some(Answer::Answered(true))
        );
        assert_eq!(
            answered(Action::Key("Return".into()), Part::Cancel),
            Some(Answer::Answered(false))
        );
        assert_eq!(
            answered(Action::Key("escape".into()), Part::Whole),
            Some(Answer::Answered(false))
        );
        assert_eq!(
            answered(Action::Type("e".into()), Part::Entry),
            Some(Answer::Text("Anne".into()))
        );
        assert_eq!(
            answered(Action::SetValue("Bob".into()), Part::Entry),
            Some(Answer::Text("Bob".into()))
        );
        assert_eq!(answered(Action::Focus, Part::Ok), Some(Answer::Nothing));
        assert_eq!(answered(Action::Hover, Part::Ok), None);
        assert_eq!(answered(Action::Type("x".into()), Part::Ok), None);
        assert_eq!(answered(Action::Key("a".into()), Part::Entry), None);
    }
}
