//! Transient elements: toasts and spinners that came and went while the UI
//! settled.

use uidelta_diff::{Element, Filters, RefTable, View};
use uidelta_model::{NodeId, Snapshot, State};

/// Roles whose elements come and go by nature: toasts, alerts, tooltips,
/// spinners.
fn is_ephemeral(role: uidelta_model::Role) -> bool {
    use uidelta_model::Role;
    matches!(
        role,
        Role::Notification | Role::Alert | Role::ToolTip | Role::Animation | Role::InfoBar
    )
}

/// Whether the element `id` of `tree` says nothing: no name, value or
/// description, and nothing in it.
fn says_nothing(tree: &uidelta_model::Tree, id: NodeId) -> bool {
    let n = tree.node(id);
    n.name.trim().is_empty()
        && n.value.as_deref().is_none_or(|v| v.trim().is_empty())
        && n.description.trim().is_empty()
        && tree.children(id).is_empty()
}

/// Whether `after` has an ephemeral element that `before` did not, both
/// as captured: the raw snapshots, so that what the filters leave out of
/// both alike (Chromium's two dozen empty announcement regions, which the
/// whitespace rule drops from the view) is not new in one and missing
/// from the other.
///
/// An alert that is a window of its own (GTK's message dialogs), or modal,
/// waits for an answer and does not go by itself: it is not ephemeral.
/// One that says nothing (no name, value or description, and nothing in
/// it) is no toast to catch either.
pub(super) fn brings_ephemeral(before: &Snapshot, after: &Snapshot) -> bool {
    let old: std::collections::HashSet<&str> = before
        .tree()
        .nodes()
        .iter()
        .filter(|n| is_ephemeral(n.role))
        .filter_map(|n| n.identity.as_deref())
        .collect();
    let tree = after.tree();
    let windows = tree.node(NodeId::ROOT).role == uidelta_model::Role::Application;
    tree.ids().any(|id| {
        let n = tree.node(id);
        let waits = n.states.contains(State::Modal) || (windows && tree.depth(id) == 1);
        is_ephemeral(n.role)
            && !waits
            && !says_nothing(tree, id)
            && n.identity.as_deref().is_none_or(|i| !old.contains(i))
    })
}

/// Elements present in some snapshot taken while settling but neither
/// before nor after: a toast, a spinner. Only the top of each such subtree.
///
/// An element is known by its identity, or by its role and name with its
/// parent's: an application that made an element anew under another
/// identity (Qt's item view cells) did not show a transient one.
///
/// One that says nothing (no name, value or description, nothing in it)
/// is the application's own churn, no news (Firefox shows a nameless,
/// disabled button in its tool bar for a moment as it goes back to a page,
/// on a busy machine), but for a spinner: that one came and went says
/// the application was at work.
///
/// A window that opened with the action, and is there after it, is new
/// to the agent as a whole: what its application made and replaced in it
/// while building it (Thunderbird's message window makes its body's
/// document twice and its tool bar's buttons again, on a busy machine)
/// is not a change to report. In it, only what comes and goes by nature
/// (a toast, an alert, a spinner) is transient; a window that came and
/// went is, whatever it holds.
pub(super) fn transients(
    before: &View,
    after: &View,
    mids: &[Snapshot],
    filters: Filters,
    table: &mut RefTable,
) -> Vec<Element> {
    fn structural(t: &uidelta_model::Tree, id: NodeId) -> String {
        let n = t.node(id);
        let (role, name) = t
            .parent(id)
            .map(|p| t.node(p))
            .map_or(("", ""), |p| (p.role.as_str(), p.name.as_str()));
        format!("{}\u{0}{}\u{0}{role}\u{0}{name}", n.role.as_str(), n.name)
    }
    // Each element of a view, by its identity and by its place.
    let keys = |view: &View| {
        let t = view.tree();
        let mut keys = std::collections::HashSet::new();
        for id in t.ids() {
            if let Some(identity) = &t.node(id).identity {
                keys.insert(identity.clone());
            }
            keys.insert(structural(t, id));
        }
        keys
    };
    let was = keys(before);
    let is = keys(after);
    // Whether `keys` hold the element `id` of `t`.
    let holds = |keys: &std::collections::HashSet<String>, t: &uidelta_model::Tree, id: NodeId| {
        t.node(id)
            .identity
            .as_ref()
            .is_some_and(|i| keys.contains(i))
            || keys.contains(&structural(t, id))
    };
    // Whether the window `id` of `t` (an application's child) opened with
    // the action and stays.
    let opened = |t: &uidelta_model::Tree, id: NodeId| holds(&is, t, id) && !holds(&was, t, id);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for mid in mids {
        // Its list items as they were before, as the view after has them.
        let view = View::following(mid, filters, before);
        let t = view.tree();
        let windows = t.node(NodeId::ROOT).role == uidelta_model::Role::Application;
        let mut skip_until = 0u32;
        for id in t.ids() {
            if id.0 < skip_until {
                continue;
            }
            let n = t.node(id);
            if holds(&was, t, id) || holds(&is, t, id) {
                continue;
            }
            let k = structural(t, id);
            skip_until = id.0 + t.subtree_len(id) as u32;
            let mut window = id;
            while let Some(p) = t.parent(window).filter(|&p| p != NodeId::ROOT) {
                window = p;
            }
            let building = windows && window != id && opened(t, window) && !is_ephemeral(n.role);
            let churn = n.role != uidelta_model::Role::Animation && says_nothing(t, id);
            if !building && !churn && seen.insert(k) {
                out.push(Element::new(table.fresh(), n));
            }
        }
    }
    out
}
