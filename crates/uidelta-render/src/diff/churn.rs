//! Churn: of a group of many same-role siblings added or removed together,
//! only the first few are written, then a summary line, which names the
//! rest of what was added (`+ ... and 75 more table cell: [e261]
//! "file2.txt", ...`): a folder's files, a page's links.

use std::collections::{HashMap, HashSet};

use uidelta_diff::{Added, Ref, Removed, SubtreeNode};

use super::{DiffOptions, CHURN_SHOWN};
use crate::line::{is_hidden, ref_and_name, Facts};

/// Most elements a summary of added siblings names.
const CHURN_NAMED: usize = 20;

/// Siblings that churn together: the same parent and the same root role.
pub(super) type ChurnKey = (Ref, String);

/// An added or removed subtree, as far as churn is concerned.
pub(super) trait Sibling {
    fn churn_key(&self) -> Option<ChurnKey>;
    /// The ref and name a summary names it by: an added element that
    /// shows and has a name, which an agent may act on next. What went
    /// away is only counted.
    fn named(&self) -> Option<(Ref, &str)>;
}

impl Sibling for Added {
    fn churn_key(&self) -> Option<ChurnKey> {
        churn_key(self.parent, &self.subtree)
    }

    fn named(&self) -> Option<(Ref, &str)> {
        let root = &self.subtree.first()?.element;
        let name = root.name.trim();
        (!name.is_empty() && !is_hidden(root.states)).then_some((root.r#ref, root.name.as_str()))
    }
}

impl Sibling for Removed {
    fn churn_key(&self) -> Option<ChurnKey> {
        churn_key(self.parent, &self.subtree)
    }

    fn named(&self) -> Option<(Ref, &str)> {
        None
    }
}

pub(super) fn churn_key(parent: Ref, subtree: &[SubtreeNode]) -> Option<ChurnKey> {
    subtree
        .first()
        .map(|root| (parent, Facts::from(&root.element).role_label().into_owned()))
}

/// Writes each item with `line`, except that of a group of more than
/// `limit` same-role siblings only the first few are written, followed by
/// `<sign> ... and 37 more list item`, and, for added ones, the refs and
/// names of the rest, each name once, at most [`CHURN_NAMED`] of them
/// (`: [e103] "file03.txt", [e104] "file04.txt", ...`).
pub(super) fn lines_with_churn<T: Sibling>(
    out: &mut String,
    items: &[&T],
    sign: char,
    opts: &DiffOptions,
    mut line: impl FnMut(&mut String, &T),
) {
    let mut churn = Churn::new(items.iter().filter_map(|i| i.churn_key()), opts.churn);
    let mut members: HashMap<ChurnKey, Vec<Option<(Ref, &str)>>> = HashMap::new();
    for item in items {
        if let Some(key) = item.churn_key() {
            members.entry(key).or_default().push(item.named());
        }
    }
    let (mut shown, mut hidden) = (0usize, 0usize);
    for item in items {
        let what = churn.next(item.churn_key());
        if matches!(what, Shown::Skipped) {
            continue;
        }
        if shown >= opts.roots {
            hidden += 1;
            if let Shown::LineThenRest(rest, _) = what {
                // The rest of its churn group is skipped without its summary.
                hidden += rest;
            }
            continue;
        }
        shown += 1;
        line(out, item);
        if let Shown::LineThenRest(rest, key) = what {
            out.push_str(&format!("{sign} ... and {rest} more {}", key.1));
            let rest = members
                .get(&key)
                .map_or(&[][..], |m| &m[CHURN_SHOWN.min(m.len())..]);
            out.push_str(&names_of(rest));
            out.push('\n');
        }
    }
    if hidden > 0 {
        let kind = if sign == '+' { "added" } else { "removed" };
        out.push_str(&format!(
            "{sign} ... and {hidden} more {kind} subtrees (read the tree for them)\n"
        ));
    }
}

/// `: [e103] "file03.txt", [e104] "file04.txt", ...` for the named
/// members of `rest`, each name once; nothing when none has a name.
fn names_of(rest: &[Option<(Ref, &str)>]) -> String {
    let mut seen = HashSet::new();
    let mut named = rest.iter().flatten().filter(|(_, name)| seen.insert(*name));
    let listed: Vec<String> = named
        .by_ref()
        .take(CHURN_NAMED)
        .map(|&(r, name)| ref_and_name(r, name))
        .collect();
    if listed.is_empty() {
        return String::new();
    }
    let more = if named.next().is_some() { ", ..." } else { "" };
    format!(": {}{more}", listed.join(", "))
}

/// What to print for one added or removed subtree.
pub(super) enum Shown {
    Line,
    /// The line, then a summary of this many more of its churn group.
    LineThenRest(usize, ChurnKey),
    Skipped,
}

/// Counts same-role siblings so that large groups are summarized.
pub(super) struct Churn {
    pub(super) limit: usize,
    pub(super) totals: HashMap<ChurnKey, usize>,
    pub(super) seen: HashMap<ChurnKey, usize>,
}

impl Churn {
    fn new(keys: impl Iterator<Item = ChurnKey>, limit: usize) -> Churn {
        let mut totals = HashMap::new();
        for key in keys {
            *totals.entry(key).or_insert(0) += 1;
        }
        Churn {
            limit,
            totals,
            seen: HashMap::new(),
        }
    }

    fn next(&mut self, key: Option<ChurnKey>) -> Shown {
        let Some(key) = key else {
            return Shown::Line;
        };
        let total = self.totals.get(&key).copied().unwrap_or(0);
        if total <= self.limit || total <= CHURN_SHOWN {
            return Shown::Line;
        }
        let seen = self.seen.entry(key.clone()).or_insert(0);
        *seen += 1;
        match (*seen).cmp(&CHURN_SHOWN) {
            std::cmp::Ordering::Less => Shown::Line,
            std::cmp::Ordering::Equal => Shown::LineThenRest(total - CHURN_SHOWN, key),
            std::cmp::Ordering::Greater => Shown::Skipped,
        }
    }
}

#[cfg(test)]
mod tests {
    use uidelta_diff::{Added, Element, Ref, SubtreeNode};
    use uidelta_model::{NodeData, Role, State, StateSet};

    use super::{lines_with_churn, DiffOptions};

    fn cell(r: u32, name: &str, shows: bool) -> Added {
        let mut n = NodeData::named(Role::TableCell, name);
        n.states = StateSet::of(&[State::Enabled]);
        n.states.set(State::Showing, shows);
        Added {
            parent: Ref(1),
            index: r as usize,
            opened: None,
            came_back: false,
            context: None,
            group: None,
            subtree: vec![SubtreeNode {
                depth: 0,
                element: Element::new(Ref(r), &n),
            }],
        }
    }

    fn summary(items: &[Added]) -> String {
        let items: Vec<&Added> = items.iter().collect();
        let mut out = String::new();
        lines_with_churn(&mut out, &items, '+', &DiffOptions::default(), |out, a| {
            out.push_str(&format!("line {}\n", a.subtree[0].element.r#ref));
        });
        out
    }

    #[test]
    fn a_summary_of_added_siblings_names_the_rest_once_each_and_only_what_shows() {
        let rows = [
            ("a.txt", true),
            ("2 bytes", true),
            ("", true),
            ("b.txt", true),
            ("2 bytes", true),
            ("", true),
            ("hidden.txt", false),
            ("c.txt", true),
        ];
        let items: Vec<Added> = rows
            .iter()
            .enumerate()
            .map(|(i, (name, shows))| cell(10 + i as u32, name, *shows))
            .collect();
        assert_eq!(
            summary(&items),
            "line e10\nline e11\nline e12\n\
             + ... and 5 more table cell: [e13] \"b.txt\", [e14] \"2 bytes\", [e17] \"c.txt\"\n"
        );
    }

    #[test]
    fn a_summary_names_twenty_then_says_there_are_more() {
        let items: Vec<Added> = (0..30).map(|i| cell(i, &format!("f{i}"), true)).collect();
        let out = summary(&items);
        let last = out.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("+ ... and 27 more table cell: [e3] \"f3\", "),
            "{out}"
        );
        assert!(last.ends_with("[e22] \"f22\", ..."), "{out}");
    }

    #[test]
    fn a_summary_of_nameless_siblings_is_a_count() {
        let items: Vec<Added> = (0..8).map(|i| cell(i, "", true)).collect();
        assert!(summary(&items).ends_with("+ ... and 5 more table cell\n"));
    }
}
