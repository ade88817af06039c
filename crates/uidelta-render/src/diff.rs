//! The diff as text: a header, then `+`, `-`, `~` and `!` lines.

use std::collections::HashMap;

use uidelta_diff::{
    Added, Attr, AttrChange, AttrValue, Change, Diff, Element, FocusMove, Handle, Modified, Ref,
    Removed, SubtreeNode,
};
use uidelta_model::{Role, State};

use crate::line::{element_line, handle_text, is_hidden, ref_and_name, Detail, Facts};
use crate::text::{quote, rect_text, shorten_change, shown};

mod churn;
use churn::lines_with_churn;

/// What a diff without changes renders as, in every text format.
pub(crate) const NO_CHANGES: &str = "No UI changes detected\n";

/// How many siblings of a churning group are shown before the summary line.
const CHURN_SHOWN: usize = 3;

/// Options of [`diff_text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiffOptions {
    /// Show bounds as `@x,y wxh` on element lines. Default off.
    pub bounds: bool,
    /// Name each change's nearest meaningful ancestor:
    /// ` in [e3] dialog "Save As"`. Default on.
    pub context: bool,
    /// Most lines spent on the descendants of all added subtrees together;
    /// the rest is counted (`... 140 more nodes under [e58]`). Elements
    /// that do not show are never listed, only counted
    /// (`... 36 more nodes under [e58] (all hidden)`), and a dialog's push
    /// buttons are always listed, the budget keeping room for them.
    /// Default 60.
    pub budget: usize,
    /// When more than this many same-role siblings are added (or removed)
    /// under one parent, the first three are shown and the rest summarized
    /// (`+ ... and 37 more list item`), added ones with the refs and names
    /// of up to twenty of them (`: [e103] "file03.txt", ...`). More than this many elements only
    /// shown, or only hidden, in one place are one line (`~ 45 elements
    /// hid together ...`). Default 5.
    pub churn: usize,
    /// Old and new texts longer than this are shortened around the change.
    /// Default 80.
    pub text_limit: usize,
    /// Most `+` lines, and most `-` lines, for subtree roots; the rest are
    /// counted in one line (`+ ... and 29 more added subtrees`), as when a
    /// page replaces another. Default 40.
    pub roots: usize,
    /// A group of more than this many subtrees that appeared together in
    /// one new unnamed container (a stack page shown in place of another)
    /// is summarized: a count, then this many members one line each without
    /// their descendants. Smaller groups are listed as any added subtree.
    /// (A group of more than 3 that went away is one line.) Default 10.
    pub group: usize,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            bounds: false,
            context: true,
            budget: 60,
            churn: 5,
            text_limit: 80,
            roots: 40,
            group: 10,
        }
    }
}

/// The diff as text. Without changes it is exactly
/// `No UI changes detected\n`; otherwise a header with the counts, the
/// focus move when there is one, and the settle time
/// (`# diff: +3 added, ~2 modified · focus [e12] entry "Name" -> [e58]
/// push button "Save" · settled in 180 ms`), and then added, removed,
/// modified and transient elements, in that order. Costs one pass over the
/// diff.
pub fn diff_text(diff: &Diff, opts: &DiffOptions) -> String {
    if !diff.has_changes() {
        return NO_CHANGES.to_owned();
    }
    if diff.new_document {
        return new_document(diff, opts);
    }
    let mut out = header(diff);
    // Changes out of sight (see `unseen`): past a few lines, one line for
    // all of them, at the end.
    let (groups, modified) =
        shown_or_hidden_together(diff.changes.iter().filter_map(as_modified), opts.churn);
    let runs = same_change_runs(modified.into_iter());
    let out_of_sight = |run: &Vec<&Modified>| run.iter().all(|m| unseen(m));
    let hidden_added = || {
        diff.changes
            .iter()
            .filter_map(as_added)
            .filter(|a| added_unseen(a))
    };
    let hidden_removed = || {
        diff.changes
            .iter()
            .filter_map(as_removed)
            .filter(|r| removed_unseen(r))
    };
    let fold = runs.iter().filter(|run| out_of_sight(run)).count()
        + hidden_added().count()
        + hidden_removed().count()
        > UNSEEN_LISTED;
    let (added_groups, added) = grouped(
        diff.changes
            .iter()
            .filter_map(as_added)
            .filter(|a| !(fold && added_unseen(a))),
        |a| a.group,
        opts.group,
    );
    for members in &added_groups {
        added_group(&mut out, members, opts);
    }
    let mut budget = opts.budget;
    lines_with_churn(&mut out, &added, '+', opts, |out, a| {
        added_lines(out, a, opts, &mut budget)
    });
    let (removed_groups, removed) = grouped(
        diff.changes
            .iter()
            .filter_map(as_removed)
            .filter(|r| !(fold && removed_unseen(r))),
        |r| r.group,
        CHURN_SHOWN,
    );
    for members in &removed_groups {
        removed_group(&mut out, members, opts);
    }
    lines_with_churn(&mut out, &removed, '-', opts, |out, r| {
        removed_line(out, r, opts)
    });
    for members in &groups {
        flipped_group(&mut out, members, opts);
    }
    for run in &runs {
        if !(fold && out_of_sight(run)) {
            modified_line(&mut out, run, opts, &mut budget);
        }
    }
    if fold {
        unseen_line(
            &mut out,
            runs.iter().flatten().copied().filter(|m| unseen(m)),
            hidden_added().collect(),
            hidden_removed().collect(),
        );
    }
    for e in &diff.transient {
        transient_line(&mut out, e, opts);
    }
    out
}

/// A new document replaced the old one: a header naming both, the new
/// document's content as added subtrees (within the usual budget), one line
/// for all that went away, and what changed on the root (its URL).
///
/// ```text
/// # new document: [e1] document web "Page B", was "Page A" · 1172 elements · settled in 480 ms
/// ```
fn new_document(diff: &Diff, opts: &DiffOptions) -> String {
    // Nothing below the root was matched: the only modified element is the
    // root.
    let root = diff.changes.iter().find_map(as_modified);
    let added: Vec<&Added> = diff.changes.iter().filter_map(as_added).collect();
    let now: usize = added.iter().map(|a| a.subtree.len()).sum();
    let gone: usize = diff
        .changes
        .iter()
        .filter_map(as_removed)
        .map(|r| r.subtree.len())
        .sum();
    let mut out = String::from("# new document");
    if let Some(m) = root {
        out.push_str(&format!(
            ": [{}] {}",
            m.element.r#ref,
            Facts::from(&m.element).role_label()
        ));
        if !m.element.name.is_empty() {
            out.push_str(&format!(" {}", quote(&m.element.name)));
        }
        if let Some(c) = m.changes.iter().find(|c| c.attr == Attr::Name) {
            out.push_str(&format!(", was {}", value_text(&c.old)));
        }
    }
    out.push_str(&format!(" · {now} elements"));
    for part in settle_parts(diff) {
        out.push_str(" · ");
        out.push_str(&part);
    }
    out.push('\n');
    let mut budget = opts.budget;
    lines_with_churn(&mut out, &added, '+', opts, |out, a| {
        added_lines(out, a, opts, &mut budget)
    });
    if gone > 0 {
        out.push_str(&format!("- the previous document ({gone} elements)\n"));
    }
    if let Some(m) = root {
        let rest: Vec<&AttrChange> = m.changes.iter().filter(|c| c.attr != Attr::Name).collect();
        if !rest.is_empty() {
            out.push_str(&format!(
                "~ [{}] {}",
                m.element.r#ref,
                Facts::from(&m.element).role_label()
            ));
            out.push_str(&changes_text(rest, opts.text_limit, opts.text_limit));
            out.push('\n');
        }
    }
    out
}

/// Splits items into groups of more than `least` members with the same key
/// (in order of their first member) and the rest, smaller groups and items
/// without a key included, in order. Keys are compared, not hashed: there
/// are a handful per diff.
fn grouped<'d, T, K: PartialEq>(
    items: impl Iterator<Item = &'d T>,
    key: impl Fn(&T) -> Option<K>,
    least: usize,
) -> (Vec<Vec<&'d T>>, Vec<&'d T>) {
    let keyed: Vec<(&T, Option<K>)> = items.map(|i| (i, key(i))).collect();
    let mut sizes: Vec<(&K, usize)> = Vec::new();
    for k in keyed.iter().filter_map(|(_, k)| k.as_ref()) {
        match sizes.iter_mut().find(|(known, _)| *known == k) {
            Some((_, n)) => *n += 1,
            None => sizes.push((k, 1)),
        }
    }
    let big = |k: &K| sizes.iter().any(|(known, n)| *known == k && *n > least);
    let mut groups: Vec<(&K, Vec<&T>)> = Vec::new();
    let mut rest = Vec::new();
    for (item, k) in &keyed {
        match k.as_ref().filter(|k| big(k)) {
            Some(k) => match groups.iter_mut().find(|(known, _)| *known == k) {
                Some((_, members)) => members.push(item),
                None => groups.push((k, vec![item])),
            },
            None => rest.push(*item),
        }
    }
    (groups.into_iter().map(|(_, m)| m).collect(), rest)
}

/// `+ 33 elements appeared together (a page or pane shown as a whole) in ...:`,
/// then the first members one line each. Members that came back as they
/// were when they left are one line for all of them, and a group that all
/// came back so is a single line.
fn added_group(out: &mut String, members: &[&Added], opts: &DiffOptions) {
    let Some(first) = members.first() else {
        return;
    };
    let inside: usize = members.iter().map(|a| a.subtree.len() - 1).sum();
    let (back, changed): (Vec<&Added>, Vec<&Added>) = members.iter().partition(|a| a.came_back);
    if changed.is_empty() {
        out.push_str(&format!(
            "+ {} elements{} came back together as they were when they left (a page or pane shown again){}: {}\n",
            members.len(),
            descendants_text(inside),
            context_text(&first.context, opts),
            first_handles(back.iter().map(|a| a.root()))
        ));
        return;
    }
    out.push_str(&format!(
        "+ {} elements{} appeared together (a page or pane shown as a whole){}:\n",
        members.len(),
        descendants_text(inside),
        context_text(&first.context, opts)
    ));
    if !back.is_empty() {
        out.push_str(&format!(
            "+ {} of them came back as they were when they left: {}\n",
            back.len(),
            first_handles(back.iter().map(|a| a.root()))
        ));
    }
    let listed = DiffOptions {
        roots: opts.group,
        ..*opts
    };
    lines_with_churn(out, &changed, '+', &listed, |out, a| {
        if let Some(root) = a.subtree.first() {
            out.push_str("+ ");
            out.push_str(&line_of(&root.element, full(opts, false)));
            let descendants = a.subtree.len() - 1;
            if descendants > 0 {
                out.push_str(&format!(" (and {})", descendants_count(descendants)));
            }
            out.push('\n');
        }
    });
}

/// `- 69 elements with 143 descendants went away together (...) in ...: [e11] combo box, ...`
fn removed_group(out: &mut String, members: &[&Removed], opts: &DiffOptions) {
    let Some(first) = members.first() else {
        return;
    };
    let inside: usize = members.iter().map(|r| r.subtree.len() - 1).sum();
    out.push_str(&format!(
        "- {} elements{} went away together (a page or pane hidden as a whole){}: {}\n",
        members.len(),
        descendants_text(inside),
        context_text(&first.context, opts),
        first_handles(members.iter().map(|r| r.root()))
    ));
}

/// Whether a modified element was only shown (`Some(true)`) or only
/// hidden (`Some(false)`): every change of it, and of the descendants that
/// changed with it, is a `showing` or `visible` flip the same way.
fn only_shown_or_hidden(m: &Modified) -> Option<bool> {
    let flip = |c: &AttrChange| match (&c.attr, &c.new) {
        (Attr::State(State::Showing | State::Visible), AttrValue::Bool(b)) => Some(*b),
        _ => None,
    };
    let mut all = m
        .changes
        .iter()
        .chain(m.descendants.iter().flat_map(|d| &d.changes));
    let first = flip(all.next()?)?;
    all.all(|c| flip(c) == Some(first)).then_some(first)
}

/// Splits modified elements into groups of more than `least` that were
/// only shown, or only hidden, in one place (the same context): a page
/// whose container says nothing (GTK 4 keeps a stack's pages in the tree
/// and flips what is in them) shown or hidden as a whole; and the rest, in
/// order.
fn shown_or_hidden_together<'d>(
    modified: impl Iterator<Item = &'d Modified>,
    least: usize,
) -> (Vec<Vec<&'d Modified>>, Vec<&'d Modified>) {
    grouped(
        modified,
        |m| only_shown_or_hidden(m).map(|shown| (shown, m.context.clone())),
        least,
    )
}

/// `~ 45 elements with 40 descendants hid together (a page or pane hidden
/// as a whole): [e3] combo box, [e6] combo box, [e9] text, ...`, or
/// `showed together (a page or pane shown as a whole)`. They were in the
/// tree all along (as hidden, when shown now): the first few name them.
fn flipped_group(out: &mut String, members: &[&Modified], opts: &DiffOptions) {
    let Some(first) = members.first() else {
        return;
    };
    let inside: usize = members.iter().map(|m| m.descendants.len()).sum();
    let (did, what) = match only_shown_or_hidden(first) {
        Some(true) => ("showed", "shown"),
        _ => ("hid", "hidden"),
    };
    out.push_str(&format!(
        "~ {} elements{} {did} together (a page or pane {what} as a whole){}: {}\n",
        members.len(),
        descendants_text(inside),
        context_text(&first.context, opts),
        first_handles(members.iter().map(|m| &m.element))
    ));
}

/// `[e11] combo box, [e17] combo box, [e20] text, ...`: the first few.
fn first_handles<'e>(elements: impl ExactSizeIterator<Item = &'e Element>) -> String {
    let more = if elements.len() > CHURN_SHOWN {
        ", ..."
    } else {
        ""
    };
    let named: Vec<String> = elements
        .take(CHURN_SHOWN)
        .map(|e| handle_text(&e.handle()))
        .collect();
    format!("{}{more}", named.join(", "))
}

/// `1 descendant`, `143 descendants`.
fn descendants_count(n: usize) -> String {
    match n {
        1 => "1 descendant".to_owned(),
        n => format!("{n} descendants"),
    }
}

/// ` with 143 descendants`, or nothing.
fn descendants_text(n: usize) -> String {
    match n {
        0 => String::new(),
        n => format!(" with {}", descendants_count(n)),
    }
}

fn as_added(c: &Change) -> Option<&Added> {
    match c {
        Change::Added(a) => Some(a),
        _ => None,
    }
}

fn as_removed(c: &Change) -> Option<&Removed> {
    match c {
        Change::Removed(r) => Some(r),
        _ => None,
    }
}

fn as_modified(c: &Change) -> Option<&Modified> {
    match c {
        Change::Modified(m) => Some(m),
        _ => None,
    }
}

/// `# diff: +3 added, -1 removed, ~2 modified · focus [e5] entry "Name" ->
/// [e60] push button "Save" · settled in 180 ms`; counts that are zero are
/// left out (`# diff: ~1 modified · settled in 150 ms`).
fn header(diff: &Diff) -> String {
    format!("# diff: {}\n", summary(diff, true))
}

/// `+3 added, -1 removed, ~2 modified · settled in 180 ms`: what the header
/// of a diff says of it, with the focus move when `focus` is set. A new
/// document is said to be one (`new document, was "Page A" · settled in
/// 480 ms`): its counts would only count the two documents' parts.
pub(crate) fn summary(diff: &Diff, focus: bool) -> String {
    if diff.new_document {
        let mut parts = vec![String::from("new document")];
        let renamed = diff
            .changes
            .iter()
            .filter_map(as_modified)
            .flat_map(|m| &m.changes)
            .find(|c| c.attr == Attr::Name);
        if let Some(c) = renamed {
            parts[0].push_str(&format!(", was {}", value_text(&c.old)));
        }
        parts.extend(settle_parts(diff));
        return parts.join(" · ");
    }
    let counts = diff.counts();
    let counted: Vec<String> = [
        (counts.added, '+', "added"),
        (counts.removed, '-', "removed"),
        (counts.modified, '~', "modified"),
    ]
    .iter()
    .filter(|(n, _, _)| *n > 0)
    .map(|(n, sign, what)| format!("{sign}{n} {what}"))
    .collect();
    let mut parts = Vec::new();
    if !counted.is_empty() {
        parts.push(counted.join(", "));
    }
    if let Some(moved) = diff.focus.as_ref().filter(|_| focus) {
        parts.push(focus_text(moved, diff));
    }
    parts.extend(settle_parts(diff));
    parts.join(" · ")
}

/// `settled in 180 ms (cap hit)` and `truncated`, when they apply: how the
/// header of every diff ends.
fn settle_parts(diff: &Diff) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(ms) = diff.settle_ms {
        let capped = if diff.settle_capped { " (cap hit)" } else { "" };
        parts.push(format!("settled in {ms} ms{capped}"));
    }
    if diff.truncated {
        parts.push("truncated".into());
    }
    parts
}

/// `focus [e5] entry "Name" -> [e60] push button "Save"`: where the keys
/// went from and to, each end named as the element lines name it, so that
/// the agent needs no earlier answer to know what has the focus now. An end
/// that is no element is `none`; an element that went away in this diff
/// says so (`(gone)`).
fn focus_text(FocusMove { from, to }: &FocusMove, diff: &Diff) -> String {
    let gone = |r: Ref| {
        diff.changes
            .iter()
            .filter_map(as_removed)
            .any(|removed| removed.subtree.iter().any(|n| n.element.r#ref == r))
    };
    let end = |h: &Option<Handle>| match h {
        None => "none".to_owned(),
        Some(h) if gone(h.r#ref) => format!("{} (gone)", handle_text(h)),
        Some(h) => handle_text(h),
    };
    format!("focus {} -> {}", end(from), end(to))
}

/// ` in [e3] dialog "Save As"`, when context is wanted and known.
fn context_text(context: &Option<Handle>, opts: &DiffOptions) -> String {
    match context {
        Some(h) if opts.context => format!(" in {}", handle_text(h)),
        _ => String::new(),
    }
}

/// An element of the diff as a line, with its ref.
fn line_of(e: &Element, detail: Detail) -> String {
    element_line(Some(e.r#ref), Facts::from(e), detail)
}

fn full(opts: &DiffOptions, parent_hidden: bool) -> Detail {
    Detail {
        value_and_states: true,
        bounds: opts.bounds,
        parent_hidden,
        brief_name: false,
    }
}

/// The root line, then its descendants ([`subtree_lines`]).
fn added_lines(out: &mut String, a: &Added, opts: &DiffOptions, budget: &mut usize) {
    let Some((root, descendants)) = a.subtree.split_first() else {
        return;
    };
    out.push_str("+ ");
    out.push_str(&line_of(&root.element, full(opts, false)));
    if a.opened.is_some() {
        out.push_str(" (opened)");
    }
    out.push_str(&context_text(&a.context, opts));
    if a.came_back {
        // The agent has seen all of it: no need to list it again.
        out.push_str(" (came back as it was when it left");
        if !descendants.is_empty() {
            out.push_str(&format!(", with {}", descendants_count(descendants.len())));
        }
        out.push_str(")\n");
        return;
    }
    out.push('\n');
    subtree_lines(out, root, descendants, opts, budget);
}

/// The descendants of an added subtree, or of an element that came to
/// show, under its line: indented, while the budget lasts, then a count
/// of the rest. Elements that do not show, with all that is under them,
/// are not listed and spend nothing: they are counted in that last line. A
/// dialog's buttons are listed whatever is left of the budget, which keeps
/// room for them.
fn subtree_lines(
    out: &mut String,
    root: &SubtreeNode,
    descendants: &[SubtreeNode],
    opts: &DiffOptions,
    budget: &mut usize,
) {
    let shown = shown_descendants(root, descendants);
    // A subtree that does not fit what is left of the budget has its long
    // runs of same-role siblings (the rows of a list) cut to their first
    // few first, so that what follows them (a dialog's buttons) is shown.
    let cuts = match shown.len() > *budget {
        true => long_runs(&shown, opts.churn),
        false => vec![Cut::Keep; shown.len()],
    };
    let plan = plan(&cuts, &shown);
    let always = dialog_buttons(root, &shown, &plan);
    let mut reserved = always.iter().filter(|&&b| b).count();
    // Per shown descendant: listed, on its own line or in a summary's.
    let mut listed = vec![false; shown.len()];
    for (i, step) in plan.iter().enumerate() {
        match step {
            Step::Line if always[i] => {
                reserved -= 1;
                *budget = budget.saturating_sub(1);
                descendant_line(out, shown[i], opts);
                listed[i] = true;
            }
            Step::Line if *budget > reserved => {
                *budget -= 1;
                descendant_line(out, shown[i], opts);
                listed[i] = true;
            }
            Step::Summary(rest, role) if *budget > reserved => {
                *budget -= 1;
                out.push_str(&"  ".repeat(shown[i].depth + 1));
                out.push_str(&format!("... and {rest} more {role}\n"));
                listed[i] = true;
            }
            Step::Under(summary) => listed[i] = listed[*summary],
            Step::Line | Step::Summary(..) => {}
        }
    }
    let hidden = descendants.len() - shown.len();
    let rest = listed.iter().filter(|&&l| !l).count() + hidden;
    if rest > 0 {
        let nodes = if rest == 1 { "node" } else { "nodes" };
        out.push_str(&format!(
            "  ... {rest} more {nodes} under [{}]",
            root.element.r#ref
        ));
        match hidden {
            0 => {}
            1 if rest == 1 => out.push_str(" (hidden)"),
            h if h == rest => out.push_str(" (all hidden)"),
            h => out.push_str(&format!(" ({h} hidden)")),
        }
        out.push('\n');
    }
}

/// The descendants of an added subtree that show: those not hidden and
/// under nothing hidden (the root included). Still a preorder walk, as
/// only whole subtrees are left out.
fn shown_descendants<'d>(
    root: &SubtreeNode,
    descendants: &'d [SubtreeNode],
) -> Vec<&'d SubtreeNode> {
    if is_hidden(root.element.states) {
        return Vec::new();
    }
    let mut shown = Vec::with_capacity(descendants.len());
    // The depth of the hidden element being passed over.
    let mut hidden_at: Option<usize> = None;
    for node in descendants {
        if hidden_at.is_some_and(|d| node.depth > d) {
            continue;
        }
        hidden_at = None;
        if is_hidden(node.element.states) {
            hidden_at = Some(node.depth);
            continue;
        }
        shown.push(node);
    }
    shown
}

/// What [`added_lines`] would write for each shown descendant, were the
/// budget to last.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    /// Its line.
    Line,
    /// The summary of its run: `... and 37 more list item`.
    Summary(usize, String),
    /// Nothing: the summary at this index stands for it (a later sibling
    /// of a summarized run, or under a summarized sibling).
    Under(usize),
}

/// The cuts of [`long_runs`] as steps: a cut sibling's subtree goes with it.
fn plan(cuts: &[Cut], nodes: &[&SubtreeNode]) -> Vec<Step> {
    let mut steps = Vec::with_capacity(cuts.len());
    // The summary standing for the subtree being passed over, and its depth.
    let mut under: Option<(usize, usize)> = None;
    for (i, cut) in cuts.iter().enumerate() {
        let depth = nodes[i].depth;
        if let Some((summary, d)) = under {
            if depth > d {
                steps.push(Step::Under(summary));
                continue;
            }
            under = None;
        }
        steps.push(match cut {
            Cut::Keep => Step::Line,
            Cut::Summary(rest, role) => {
                under = Some((i, depth));
                Step::Summary(*rest, role.clone())
            }
            Cut::Skip(summary) => {
                under = Some((*summary, depth));
                Step::Under(*summary)
            }
        });
    }
    steps
}

/// What [`added_lines`] does with one descendant.
#[derive(Clone, Debug, PartialEq)]
enum Cut {
    /// Its line.
    Keep,
    /// In place of it and its subtree: `... and 37 more list item`, for it
    /// and the later siblings of its run.
    Summary(usize, String),
    /// Nothing (a later sibling of a summarized run), nor for its subtree:
    /// the summary at this index stands for it.
    Skip(usize),
}

/// What makes siblings one run: their role, and where the run starts (the
/// index of its first sibling).
type RunKey = (String, usize);

/// For the descendants of an added subtree (in preorder, depth 1 and
/// below): of every run of more than `churn` same-role siblings, one after
/// the other, the first three are kept, and so is any selected, checked or
/// focused one (the font a font list has chosen); the next becomes the
/// run's summary, and the rest are skipped. Siblings of a role with others
/// between them are not one run: a file dialog's tool buttons above its
/// view and its Open and Cancel below it.
fn long_runs(nodes: &[&SubtreeNode], churn: usize) -> Vec<Cut> {
    let role = |i: usize| Facts::from(&nodes[i].element).role_label().into_owned();
    // Per element walked down to, the root first: the last child of it
    // met so far (an index into `nodes`).
    let mut last_child: Vec<Option<usize>> = vec![None];
    let mut keys: Vec<RunKey> = Vec::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        // The root is at depth 0, its children at 1: what is left is the
        // root and the node's ancestors.
        last_child.truncate(n.depth.max(1));
        let role = role(i);
        let key = match last_child.last().copied().flatten() {
            Some(before) if keys[before].0 == role => (role, keys[before].1),
            _ => (role, i),
        };
        if let Some(last) = last_child.last_mut() {
            *last = Some(i);
        }
        keys.push(key);
        last_child.push(None);
    }
    let notable = |i: usize| {
        let states = nodes[i].element.states;
        [State::Selected, State::Checked, State::Focused]
            .into_iter()
            .any(|s| states.contains(s))
    };
    // Per run: its size and how many of it are shown (the first three and
    // the notable others).
    let mut runs: HashMap<&RunKey, (usize, usize)> = HashMap::new();
    for (i, k) in keys.iter().enumerate() {
        let run = runs.entry(k).or_default();
        run.0 += 1;
        if run.0 <= 3 || notable(i) {
            run.1 += 1;
        }
    }
    // Per run: members met so far, and where its summary is, once written.
    let mut met: HashMap<&RunKey, (usize, Option<usize>)> = HashMap::new();
    keys.iter()
        .enumerate()
        .map(|(i, k)| {
            let (size, shown) = runs.get(k).copied().unwrap_or_default();
            if size <= churn {
                return Cut::Keep;
            }
            let at = met.entry(k).or_default();
            at.0 += 1;
            if at.0 <= 3 || notable(i) {
                return Cut::Keep;
            }
            match at.1 {
                Some(summary) => Cut::Skip(summary),
                None => {
                    at.1 = Some(i);
                    Cut::Summary(size - shown, k.0.clone())
                }
            }
        })
        .collect()
}

/// A shown descendant's line, indented by its depth. Its parent shows too:
/// it is not said to be hidden.
fn descendant_line(out: &mut String, node: &SubtreeNode, opts: &DiffOptions) {
    out.push_str(&"  ".repeat(node.depth + 1));
    out.push_str(&line_of(&node.element, full(opts, false)));
    out.push('\n');
}

/// Per shown descendant of an added subtree: whether it is a button of a
/// dialog (in a dialog, the root or a descendant, with no window between)
/// that would have a line of its own, or holds one. Such buttons close the
/// dialog or do what it is for, so they are always listed, under the
/// elements that hold them.
fn dialog_buttons(root: &SubtreeNode, nodes: &[&SubtreeNode], plan: &[Step]) -> Vec<bool> {
    let mut always = vec![false; nodes.len()];
    // The walk down to the current node: each element's index (none for
    // the root) and whether it is in a dialog.
    let mut path: Vec<(Option<usize>, bool)> = vec![(None, is_dialog(&root.element))];
    for (i, node) in nodes.iter().enumerate() {
        path.truncate(node.depth);
        let in_dialog = path.last().is_some_and(|&(_, d)| d);
        let e = &node.element;
        if in_dialog && e.role == Role::PushButton && plan[i] == Step::Line {
            always[i] = true;
            for &(holder, _) in &path {
                if let Some(h) = holder {
                    always[h] = true;
                }
            }
        }
        path.push((Some(i), is_dialog(e) || (in_dialog && !e.role.is_window())));
    }
    always
}

/// A dialog, a chooser or an alert, or anything modal.
fn is_dialog(e: &Element) -> bool {
    matches!(
        e.role,
        Role::Dialog | Role::Alert | Role::FileChooser | Role::ColorChooser | Role::FontChooser
    ) || e.states.contains(State::Modal)
}

/// `- [e20] push button "Old" (closed) in [e3] ... (and 4 descendants)`:
/// what went away is mentioned, not described again (no value or states,
/// a long name cut).
fn removed_line(out: &mut String, r: &Removed, opts: &DiffOptions) {
    let Some(root) = r.subtree.first() else {
        return;
    };
    out.push_str("- ");
    out.push_str(&line_of(
        &root.element,
        Detail {
            value_and_states: false,
            bounds: opts.bounds,
            parent_hidden: false,
            brief_name: true,
        },
    ));
    if r.closed.is_some() {
        out.push_str(" (closed)");
    }
    out.push_str(&context_text(&r.context, opts));
    let descendants = r.subtree.len() - 1;
    if descendants > 0 {
        out.push_str(&format!(" (and {})", descendants_count(descendants)));
    }
    out.push('\n');
}

/// Modified elements in runs that share a line, in order of each run's
/// first element: elements that changed the same way (same role and
/// context, the same attribute changes, nothing inherited, no new name),
/// wherever they are among the others. The cells of a row that got
/// selected are one line, and so are list items that all became
/// selectable around the switch that did it.
fn same_change_runs<'d>(modified: impl Iterator<Item = &'d Modified>) -> Vec<Vec<&'d Modified>> {
    let mut runs: Vec<Vec<&Modified>> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    for m in modified {
        let shareable = m.descendants.is_empty() && !m.changes.iter().any(|c| c.attr == Attr::Name);
        if !shareable {
            runs.push(vec![m]);
            continue;
        }
        let key = format!(
            "{:?}\u{0}{}\u{0}{:?}\u{0}{:?}",
            m.element.role, m.element.raw_role, m.context, m.changes
        );
        match by_key.get(&key) {
            Some(&k) => runs[k].push(m),
            None => {
                by_key.insert(key, runs.len());
                runs.push(vec![m]);
            }
        }
    }
    runs
}

/// `~ [e12] push button "Save" in [e3] ... | enabled: true -> false (also 4 descendants)`;
/// elements that changed the same way follow as `(same on [e13] "Open", [e14])`,
/// at most [`SAME_ON_SHOWN`] of them, then `and 12 more`.
/// A changed name is said once, in the change. An element that came to
/// show has the descendants that came to show with it listed under it, as
/// an added subtree's (a popover's items): for the agent they are new; at
/// most [`SHOWN_LISTED`] of them, else none.
fn modified_line(out: &mut String, run: &[&Modified], opts: &DiffOptions, budget: &mut usize) {
    let Some((m, same)) = run.split_first() else {
        return;
    };
    let brief = Detail {
        value_and_states: false,
        bounds: opts.bounds,
        parent_hidden: false,
        brief_name: true,
    };
    let mut facts = Facts::from(&m.element);
    if m.changes.iter().any(|c| c.attr == Attr::Name) {
        facts.name = "";
    }
    out.push_str("~ ");
    out.push_str(&element_line(Some(m.element.r#ref), facts, brief));
    // Changes out of sight say so: nothing in them can be acted on.
    if run.iter().all(|m| unseen(m)) {
        out.push_str(" (hidden)");
    }
    out.push_str(&context_text(&m.context, opts));
    out.push_str(&changes_text(
        said_changes(m),
        opts.text_limit,
        new_text_limit(&m.element, opts),
    ));
    out.push_str(&descendants_note(m));
    if !same.is_empty() {
        let mut others: Vec<String> = same
            .iter()
            .take(SAME_ON_SHOWN)
            .map(|o| ref_and_name(o.element.r#ref, &o.element.name))
            .collect();
        if same.len() > SAME_ON_SHOWN {
            others.push(format!("and {} more", same.len() - SAME_ON_SHOWN));
        }
        out.push_str(&format!(" (same on {})", others.join(", ")));
    }
    out.push('\n');
    let shown: Vec<SubtreeNode> = m
        .descendants
        .iter()
        .filter(|d| d.shown())
        .map(|d| SubtreeNode {
            depth: d.depth,
            element: d.element.clone(),
        })
        .collect();
    if !shown.is_empty() && shown.len() <= SHOWN_LISTED && !is_hidden(m.element.states) {
        let root = SubtreeNode {
            depth: 0,
            element: m.element.clone(),
        };
        subtree_lines(out, &root, &shown, opts, budget);
    }
}

/// The changes of `m` a line says: all but the text selected in it going
/// away as its value changed (typing replaced it: the new value says so).
fn said_changes(m: &Modified) -> impl Iterator<Item = &AttrChange> {
    let retyped = m.changes.iter().any(|c| c.attr == Attr::Value);
    m.changes.iter().filter(move |c| {
        !(retyped
            && c.new == AttrValue::Absent
            && matches!(&c.attr, Attr::Attribute(k) if k == uidelta_model::SELECTION))
    })
}

/// Whether a modified element changed out of sight: it does not show, and
/// neither it nor anything that changed with it came to show or went out of
/// sight (the items of a closed menu enabled, a hidden page's fields
/// refilled).
fn unseen(m: &Modified) -> bool {
    let flip = |c: &AttrChange| matches!(c.attr, Attr::State(State::Showing | State::Visible));
    is_hidden(m.element.states)
        && !m.changes.iter().any(flip)
        && !m.descendants.iter().flat_map(|d| &d.changes).any(flip)
}

/// Whether an added subtree came out of sight: its root does not show (a
/// closed menu's items made anew), and it is no window that opened nor
/// part of a page that came as a whole (which is counted as one).
fn added_unseen(a: &Added) -> bool {
    a.opened.is_none() && a.group.is_none() && !a.came_back && is_hidden(a.root().states)
}

/// Whether a removed subtree went out of sight: its root did not show, and
/// it is no window that closed nor part of a page that went as a whole.
fn removed_unseen(r: &Removed) -> bool {
    r.closed.is_none() && r.group.is_none() && is_hidden(r.root().states)
}

/// What happened out of sight, as [`unseen_line`] counts it.
#[derive(PartialEq, Eq)]
enum Unseen {
    /// An attribute changed (its label).
    Changed(String),
    Added,
    Removed,
}

/// Most lines of changes out of sight (see [`unseen`]) listed one by one;
/// more are one line. An image opened in GIMP enables some 400 items of
/// its closed menus, 70 lines where the window's own change is two.
const UNSEEN_LISTED: usize = 5;

/// `~ 397 elements that do not show changed too: enabled on 380,
/// description on 6, checked on 3; in [e302] menu "File", [e375] menu
/// "Edit", [e436] menu "Select", and 21 more places`: the changes out of
/// sight (see [`unseen`], [`added_unseen`], [`removed_unseen`]) counted,
/// by what changed and where, most common first (`8 added`, `7 removed`
/// for a closed menu whose items were made anew). The tree has them,
/// should one matter.
fn unseen_line<'d>(
    out: &mut String,
    members: impl Iterator<Item = &'d Modified>,
    added: Vec<&Added>,
    removed: Vec<&Removed>,
) {
    let mut count = 0;
    let mut kinds: Vec<(Unseen, usize)> = Vec::new();
    let mut places: Vec<String> = Vec::new();
    let mut place = |context: Option<&Handle>| {
        if let Some(place) = context.map(handle_text) {
            if !places.contains(&place) {
                places.push(place);
            }
        }
    };
    let mut tally = |kind: Unseen, n: usize| match kinds.iter_mut().find(|(k, _)| *k == kind) {
        Some((_, m)) => *m += n,
        None => kinds.push((kind, n)),
    };
    for m in members {
        count += 1 + m.descendants.len();
        for change in &m.changes {
            let label = shown(&change.attr.label()).into_owned();
            tally(Unseen::Changed(label), 1 + m.descendants.len());
        }
        place(m.context.as_ref());
    }
    for a in &added {
        count += a.subtree.len();
        tally(Unseen::Added, a.subtree.len());
        place(a.context.as_ref());
    }
    for r in &removed {
        count += r.subtree.len();
        tally(Unseen::Removed, r.subtree.len());
        place(r.context.as_ref());
    }
    // Most common first; ties in order of first appearance.
    kinds.sort_by_key(|k| std::cmp::Reverse(k.1));
    let kinds: Vec<String> = kinds
        .iter()
        .map(|(kind, n)| match kind {
            Unseen::Changed(label) => format!("{label} on {n}"),
            Unseen::Added => format!("{n} added"),
            Unseen::Removed => format!("{n} removed"),
        })
        .collect();
    out.push_str(&format!(
        "~ {count} elements that do not show changed too: {}",
        kinds.join(", ")
    ));
    if !places.is_empty() {
        let more = places.len().saturating_sub(CHURN_SHOWN);
        let named: Vec<&str> = places
            .iter()
            .take(CHURN_SHOWN)
            .map(String::as_str)
            .collect();
        out.push_str(&format!("; in {}", named.join(", ")));
        match more {
            0 => {}
            1 => out.push_str(", and 1 more place"),
            n => out.push_str(&format!(", and {n} more places")),
        }
    }
    out.push('\n');
}

/// Most descendants that came to show with an element for them to be
/// listed under its line: a popover or a menu is, a page of a notebook or a
/// table shown as a whole stays one line (read the tree for it).
const SHOWN_LISTED: usize = 30;

/// Most elements named after `same on`: a change shared by hundreds (every
/// item of a list whose size grew: `setsize: "10" -> "210"`) costs a line,
/// not a line's worth of refs per item.
const SAME_ON_SHOWN: usize = 10;

/// What the descendants that changed with a modified element did:
/// ` (also 4 descendants)` when they changed as it did, ` (hides 6
/// descendants)` or ` (shows 6 descendants)` when they were hidden or shown
/// because it changed (an expander collapsed, a tab left), or nothing.
fn descendants_note(m: &Modified) -> String {
    let n = m.descendants.len();
    if n == 0 {
        return String::new();
    }
    let mut changes = m.descendants.iter().flat_map(|d| &d.changes);
    let shown = |c: &AttrChange| match (&c.attr, &c.new) {
        (Attr::State(State::Showing | State::Visible), AttrValue::Bool(b)) => Some(*b),
        _ => None,
    };
    let inherited = changes.clone().all(|c| m.changes.contains(c));
    let first = changes.next().and_then(shown);
    match first {
        Some(b) if !inherited && changes.all(|c| shown(c) == Some(b)) => {
            format!(
                " ({} {})",
                if b { "shows" } else { "hides" },
                descendants_count(n)
            )
        }
        _ => format!(" (also {})", descendants_count(n)),
    }
}

/// `! [e40] notification "Saved" (transient)`
fn transient_line(out: &mut String, e: &Element, opts: &DiffOptions) {
    out.push_str("! ");
    out.push_str(&line_of(e, full(opts, false)));
    out.push_str(" (transient)\n");
}

/// ` | checked: false -> true | value: "1" -> "2"`: every change of one
/// element. Changes that went the same way share one transition
/// (` | showing, visible: false -> true`): a GTK expander's `checked` and
/// `expanded`, a list row's `active` and `selected` often move together,
/// and a GTK scale's description is its value (` | value, description:
/// "30" -> "55"`); saying the transition twice tells the reader nothing
/// more.
fn changes_text<'c>(
    changes: impl IntoIterator<Item = &'c AttrChange>,
    limit: usize,
    new_limit: usize,
) -> String {
    let mut shared: Vec<(Vec<String>, String, String)> = Vec::new();
    for change in changes {
        let label = shown(&change.attr.label()).into_owned();
        let (old, new) = change_values(change, limit, new_limit);
        match shared.iter_mut().find(|(_, o, n)| *o == old && *n == new) {
            Some((labels, ..)) => labels.push(label),
            None => shared.push((vec![label], old, new)),
        }
    }
    let mut out = String::new();
    for (labels, old, new) in shared {
        out.push_str(&format!(" | {}: {old} -> {new}", labels.join(", ")));
    }
    out
}

/// How long the new side of an element's changed texts may be: a
/// terminal's new screen is what the command the agent ran printed, and
/// is kept up to [`TERMINAL_SCREEN`] characters (the rows on screen, not
/// its scrollback); other texts are shortened at the text limit.
fn new_text_limit(e: &Element, opts: &DiffOptions) -> usize {
    if e.role == Role::Terminal {
        opts.text_limit.max(TERMINAL_SCREEN)
    } else {
        opts.text_limit
    }
}

/// Most characters of a terminal's new screen in a change (see
/// [`new_text_limit`]): 25 full rows of 80 columns.
const TERMINAL_SCREEN: usize = 2_000;

/// Both sides of a change as text; texts are quoted and shortened together
/// around the change when long, the new side at `new_limit`.
fn change_values(change: &AttrChange, limit: usize, new_limit: usize) -> (String, String) {
    let old_text = text_of(&change.old);
    let new_text = text_of(&change.new);
    if old_text.is_none() && new_text.is_none() {
        return (value_text(&change.old), value_text(&change.new));
    }
    let (old_short, new_short) = shorten_change(
        old_text.unwrap_or_default(),
        new_text.unwrap_or_default(),
        limit,
        new_limit,
    );
    let side = |v: &AttrValue, short: String| match v {
        AttrValue::Text(_) => quote(&short),
        other => value_text(other),
    };
    (side(&change.old, old_short), side(&change.new, new_short))
}

fn text_of(v: &AttrValue) -> Option<&str> {
    match v {
        AttrValue::Text(s) => Some(s),
        _ => None,
    }
}

/// A value as the diff text shows it: texts quoted, `true`/`false`,
/// `none`, `@x,y wxh`, a number, or a parent (`[e5] list "To do"`).
fn value_text(v: &AttrValue) -> String {
    match v {
        AttrValue::Absent => "none".to_owned(),
        AttrValue::Text(s) => quote(s),
        AttrValue::Bool(b) => b.to_string(),
        AttrValue::Rect(r) => rect_text(*r),
        AttrValue::Index(i) => i.to_string(),
        AttrValue::Place(p) => handle_text(&p.parent),
    }
}
