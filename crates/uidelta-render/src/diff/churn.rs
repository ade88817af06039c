//! Churn: of a group of many same-role siblings added or removed together,
//! only the first few are written, then a summary line.

use std::collections::HashMap;

use uidelta_diff::{Added, Ref, Removed, SubtreeNode};

use super::{DiffOptions, CHURN_SHOWN};
use crate::line::Facts;

/// Siblings that churn together: the same parent and the same root role.
pub(super) type ChurnKey = (Ref, String);

/// An added or removed subtree, as far as churn is concerned.
pub(super) trait Sibling {
    fn churn_key(&self) -> Option<ChurnKey>;
}

impl Sibling for Added {
    fn churn_key(&self) -> Option<ChurnKey> {
        churn_key(self.parent, &self.subtree)
    }
}

impl Sibling for Removed {
    fn churn_key(&self) -> Option<ChurnKey> {
        churn_key(self.parent, &self.subtree)
    }
}

pub(super) fn churn_key(parent: Ref, subtree: &[SubtreeNode]) -> Option<ChurnKey> {
    subtree
        .first()
        .map(|root| (parent, Facts::from(&root.element).role_label().into_owned()))
}

/// Writes each item with `line`, except that of a group of more than
/// `limit` same-role siblings only the first few are written, followed by
/// `<sign> ... and 37 more list item`.
pub(super) fn lines_with_churn<T: Sibling>(
    out: &mut String,
    items: &[&T],
    sign: char,
    opts: &DiffOptions,
    mut line: impl FnMut(&mut String, &T),
) {
    let mut churn = Churn::new(items.iter().filter_map(|i| i.churn_key()), opts.churn);
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
        if let Shown::LineThenRest(rest, role) = what {
            out.push_str(&format!("{sign} ... and {rest} more {role}\n"));
        }
    }
    if hidden > 0 {
        let kind = if sign == '+' { "added" } else { "removed" };
        out.push_str(&format!(
            "{sign} ... and {hidden} more {kind} subtrees (read the tree for them)\n"
        ));
    }
}

/// What to print for one added or removed subtree.
pub(super) enum Shown {
    Line,
    /// The line, then a summary of this many more of this role.
    LineThenRest(usize, String),
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
            std::cmp::Ordering::Equal => Shown::LineThenRest(total - CHURN_SHOWN, key.1),
            std::cmp::Ordering::Greater => Shown::Skipped,
        }
    }
}
