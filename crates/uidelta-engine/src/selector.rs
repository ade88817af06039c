//! Selectors: how an agent names the elements it wants to act on or wait for.
//!
//! A selector is a ref (`e12`) or conditions on role, name, value, states
//! and application, joined with `&&`, `||`, `!` and parentheses, in steps
//! separated by `>>` (each step's matches lie inside the previous step's):
//!
//! ```text
//! selector  = step , { ">>" , step } ;
//! step      = or ;
//! or        = and , { "||" , and } ;
//! and       = unary , { "&&" , unary } ;
//! unary     = { "!" } , primary ;
//! primary   = "(" , or , ")" | condition | ref ;
//! condition = key , [ "~" ] , ":" , value ;       (* "~:" is a substring match *)
//! key       = "role" | "name" | "value" | "desc" | "description" | "text"
//!           | "state" | "app" | "id" | "nth" ;   (* in any case *)
//! value     = quoted | bare ;
//! quoted    = '"' , { char - ( '"' | "\" ) | '\"' | "\\" } , '"' ;
//! bare      = characters up to "&&", "||", ">>", a ")" that closes no "("
//!             opened inside the value, or the end; trimmed ;
//! ref       = "e" , digit , { digit } ;
//! ```
//!
//! Precedence, tightest first: `!`, `&&`, `||`, `>>`. `>>` cannot appear
//! inside parentheses: it separates whole steps.
//!
//! Matching rules:
//! - Text comparisons are case-insensitive and blind to white space at either
//!   end and to its runs (`name:Find` matches `"Find      "`, `name:save as`
//!   matches `"Save  As"`), and `key:value` is an exact match of the whole
//!   text: `name:save` matches `Save` but not `Save As`. Use `name~:save` for
//!   a substring. A missing value counts as empty text.
//! - `role:` normalizes like [`Role::from_name`] (`button`, `Button` and
//!   `push button` are one role). A spelling no platform uses is compared
//!   with the node's raw role instead, so `role:custom-widget` still works.
//! - `state:` takes any [`State::from_name`] spelling, plus `disabled` (not
//!   enabled) and `hidden` (not showing).
//! - `text:` / `text~:` test the name or the value.
//! - `app:` / `app~:` test the application's name. A step made only of
//!   `app` conditions restricts the applications the following steps search, and
//!   must come first; alone it matches each accepted application's root.
//! - `id:e12` and a bare `e12` match the node carrying that ref.
//! - `nth:N` keeps the N-th match of its step, counted from 0 across all
//!   applications in order (`nth:0` first, `nth:-1` last); an index out of range
//!   matches nothing. It must be joined to the step with `&&`, never inside
//!   `||` or `!`.
//!
//! Parsing and matching do no I/O. Matching costs one pass over each application's
//! nodes per step; `>>` walks the preorder ranges of the previous step's
//! matches, so nested matches are not walked twice.

use std::fmt;
use std::str::FromStr;

use crate::AppId;
use uidelta_diff::{Ref, Refs, View};
use uidelta_model::{normalize_space, NodeId, Role, State, Tree};

/// Parentheses nested deeper than this are refused, which keeps parsing and
/// matching within a small, fixed stack.
const MAX_DEPTH: usize = 64;

/// Every key, as listed in error messages.
const KEYS: &str = "role, name, value, desc (or description), text, state, app, id, nth";

/// A parsed selector, ready to be matched against any number of applications' trees.
///
/// Parse once, match many times: [`Selector::find`] does no parsing.
#[derive(Clone, Debug, PartialEq)]
pub struct Selector {
    text: String,
    steps: Vec<Step>,
}

/// Why a selector did not parse, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("selector `{}`: at column {}: {message}", uidelta_backend::echo(.selector), .position + 1)]
pub struct SelectorError {
    /// The selector as written.
    pub selector: String,
    /// Where the problem is: a 0-based offset in characters (not bytes).
    pub position: usize,
    /// What is wrong, and what was expected instead.
    pub message: String,
}

/// One tree a selector searches: an application's view with its refs.
#[derive(Clone, Copy, Debug)]
pub struct AppView<'a> {
    /// The application's name, tested by `app:` conditions.
    pub app_name: &'a str,
    /// The filtered tree to search.
    pub view: &'a View,
    /// The refs of `view`'s nodes. Nodes without a ref are never matched.
    pub refs: &'a Refs,
}

/// One element a selector matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Found {
    /// The application: its place in the slice given to [`Selector::find`].
    pub app: AppId,
    /// The node in that application's view tree.
    pub node: NodeId,
    /// The node's ref.
    pub r#ref: Ref,
}

/// A `>>`-separated part of a selector.
#[derive(Clone, Debug, PartialEq)]
struct Step {
    expr: Expr,
    /// Keep only this match (0-based, negative from the end).
    nth: Option<i64>,
    /// Made only of `app` conditions: restricts applications instead of nodes.
    apps_only: bool,
}

#[derive(Clone, Debug, PartialEq)]
enum Expr {
    /// What an `nth` leaves in its place once taken out of the step.
    True,
    Cond(Cond),
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    /// Only while parsing: `nth:n` written at character `at`.
    Nth {
        n: i64,
        at: usize,
    },
}

#[derive(Clone, Debug, PartialEq)]
enum Cond {
    Role(Role),
    /// A role no platform spells this way: compared with `raw_role`.
    RawRole(TextTest),
    Name(TextTest),
    Value(TextTest),
    Description(TextTest),
    NameOrValue(TextTest),
    Has(State),
    Lacks(State),
    App(TextTest),
    Ref(Ref),
}

/// A case-insensitive text comparison, blind to runs of white space.
#[derive(Clone, Debug, PartialEq)]
struct TextTest {
    /// Already lowercased and normalized (see [`normalize_space`]).
    needle: String,
    substring: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Role,
    Name,
    Value,
    Description,
    Text,
    State,
    App,
    Id,
    Nth,
}

impl Key {
    fn lookup(lowercase: &str) -> Option<Key> {
        Some(match lowercase {
            "role" => Key::Role,
            "name" => Key::Name,
            "value" => Key::Value,
            "desc" | "description" => Key::Description,
            "text" => Key::Text,
            "state" => Key::State,
            "app" => Key::App,
            "id" => Key::Id,
            "nth" => Key::Nth,
            _ => return None,
        })
    }

    fn has_substring_form(self) -> bool {
        matches!(
            self,
            Key::Name | Key::Value | Key::Description | Key::Text | Key::App
        )
    }
}

impl Selector {
    /// Parses a selector. Errors say where, in characters, and what was
    /// expected there.
    pub fn parse(text: &str) -> Result<Selector, SelectorError> {
        let steps = Parser::new(text).selector()?;
        Ok(Selector {
            text: text.to_owned(),
            steps,
        })
    }

    /// The selector as it was written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The ref when the selector is nothing but a ref (`e12`, `id:e12`):
    /// callers can then resolve it directly and say "element gone" rather
    /// than "no match".
    pub fn as_ref(&self) -> Option<Ref> {
        match self.steps.as_slice() {
            [Step {
                expr: Expr::Cond(Cond::Ref(r)),
                nth: None,
                ..
            }] => Some(*r),
            _ => None,
        }
    }

    /// Whether an `app:` (or `app~:`) condition of the selector, not under
    /// a `!`, takes an application named `name`: when none of those
    /// searched is, and one that exited was, a selector that matched
    /// nothing can say so.
    pub fn asks_for_app(&self, name: &str) -> bool {
        self.steps.iter().any(|s| s.expr.asks_for_app(name))
    }

    /// Every element that matches, in application order and then in preorder, each
    /// once. Costs one pass over each application's nodes per step.
    pub fn find(&self, apps: &[AppView<'_>]) -> Vec<Found> {
        if let Some(r) = self.as_ref() {
            return find_ref(r, apps);
        }
        // Matches of the previous step per application, and whether it was application-only.
        let mut previous: Option<(Vec<Vec<NodeId>>, bool)> = None;
        for step in &self.steps {
            let mut matched = Vec::with_capacity(apps.len());
            for (i, app) in apps.iter().enumerate() {
                let before = previous
                    .as_ref()
                    .map(|(m, scoped)| (m.get(i).map_or(&[][..], Vec::as_slice), *scoped));
                matched.push(step.matches_in(app, before));
            }
            if let Some(n) = step.nth {
                keep_nth(&mut matched, n);
            }
            previous = Some((matched, step.apps_only));
        }
        let Some((matched, _)) = previous else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for (i, (nodes, app)) in matched.iter().zip(apps).enumerate() {
            for &node in nodes {
                if let Some(&r) = app.refs.as_slice().get(node.index()) {
                    found.push(Found {
                        app: AppId(i),
                        node,
                        r#ref: r,
                    });
                }
            }
        }
        found
    }
}

impl Selector {
    /// Up to `limit` elements the selector may have meant when it matches
    /// nothing: those whose name contains a name it asks for (`name:`,
    /// `text:`), or is a few edits away from one, compared as matching
    /// compares (case and runs of white space aside). Nearest first: names
    /// that contain the asked one, shortest first, then by edits; then in
    /// application order and preorder. Empty when the selector asks for no name.
    /// Costs one pass over every application's nodes.
    pub fn near_misses(&self, apps: &[AppView<'_>], limit: usize) -> Vec<Found> {
        let mut asked = Vec::new();
        for step in &self.steps {
            step.expr.asked_names(&mut asked);
        }
        asked.retain(|n| !n.is_empty());
        if asked.is_empty() || limit == 0 {
            return Vec::new();
        }
        let asked: Vec<Vec<char>> = asked.iter().map(|n| n.chars().collect()).collect();
        let mut near: Vec<((usize, usize), Found)> = Vec::new();
        for (i, app) in apps.iter().enumerate() {
            let tree = app.view.tree();
            for (index, &r) in app.refs.as_slice().iter().enumerate() {
                let node = NodeId(index as u32);
                let Some(data) = tree.get(node) else {
                    break;
                };
                let name: Vec<char> = fold(&normalize_space(&data.name)).chars().collect();
                if name.is_empty() {
                    continue;
                }
                let Some(rank) = asked.iter().filter_map(|a| nearness(&name, a)).min() else {
                    continue;
                };
                near.push((
                    rank,
                    Found {
                        app: AppId(i),
                        node,
                        r#ref: r,
                    },
                ));
            }
        }
        // Stable: equal ranks stay in application order and preorder.
        near.sort_by_key(|(rank, _)| *rank);
        near.into_iter().take(limit).map(|(_, f)| f).collect()
    }
}

/// How near `name` is to `asked` (both folded and normalized): `(0, extra
/// characters)` when it contains it, `(1, edits)` when a few edits (at most
/// a third of the asked name's length, at least one) turn one into the other, and
/// `None` otherwise.
fn nearness(name: &[char], asked: &[char]) -> Option<(usize, usize)> {
    if name.len() >= asked.len() && name.windows(asked.len()).any(|w| w == asked) {
        return Some((0, name.len() - asked.len()));
    }
    let most = (asked.len() / 3).max(1);
    if name.len().abs_diff(asked.len()) > most {
        return None;
    }
    let edits = edit_distance(name, asked);
    (edits <= most).then_some((1, edits))
}

/// Levenshtein distance: insertions, deletions and substitutions.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

impl FromStr for Selector {
    type Err = SelectorError;

    fn from_str(text: &str) -> Result<Selector, SelectorError> {
        Selector::parse(text)
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn find_ref(r: Ref, apps: &[AppView<'_>]) -> Vec<Found> {
    apps.iter()
        .enumerate()
        .filter_map(|(i, app)| {
            app.refs
                .find(r)
                .filter(|node| node.index() < app.view.len())
                .map(|node| Found {
                    app: AppId(i),
                    node,
                    r#ref: r,
                })
        })
        .collect()
}

/// Keeps the `n`-th node over all applications (0-based, negative from the end).
fn keep_nth(matched: &mut [Vec<NodeId>], n: i64) {
    let total: usize = matched.iter().map(Vec::len).sum();
    let wanted = if n >= 0 {
        usize::try_from(n).ok().filter(|&i| i < total)
    } else {
        usize::try_from(n.unsigned_abs())
            .ok()
            .and_then(|back| total.checked_sub(back))
    };
    let mut offset = 0;
    for nodes in matched.iter_mut() {
        let len = nodes.len();
        match wanted {
            Some(w) if (offset..offset + len).contains(&w) => {
                let keep = nodes[w - offset];
                nodes.clear();
                nodes.push(keep);
            }
            _ => nodes.clear(),
        }
        offset += len;
    }
}

/// What a node is tested against.
struct Context<'a> {
    app: &'a str,
    tree: &'a Tree,
    refs: &'a Refs,
}

impl Step {
    /// This step's matches in one application, in preorder. `before` is the
    /// previous step's matches in the same application and whether that step was
    /// application-only; `None` for the first step.
    fn matches_in(&self, app: &AppView<'_>, before: Option<(&[NodeId], bool)>) -> Vec<NodeId> {
        let tree = app.view.tree();
        let cx = Context {
            app: app.app_name,
            tree,
            refs: app.refs,
        };
        // Only nodes with a ref can be reported.
        let reach = tree.len().min(app.refs.len()) as u32;
        let mut out = Vec::new();
        if reach == 0 {
            return out;
        }
        if self.apps_only {
            // Parsing puts application-only steps first, so `before` is application-only too.
            let accepted = before.is_none_or(|(nodes, _)| !nodes.is_empty());
            if accepted && self.expr.matches(&cx, NodeId::ROOT) {
                out.push(NodeId::ROOT);
            }
            return out;
        }
        let mut test = |range: std::ops::Range<u32>| {
            out.extend(range.map(NodeId).filter(|&id| self.expr.matches(&cx, id)));
        };
        match before {
            None => test(0..reach),
            Some((nodes, true)) => {
                if !nodes.is_empty() {
                    test(0..reach);
                }
            }
            Some((nodes, false)) => {
                // Strict descendants of any previous match: preorder ranges,
                // each node visited once even when matches nest.
                let mut covered = 0u32;
                for &m in nodes {
                    let end = (m.0 as usize + tree.subtree_len(m)).min(reach as usize) as u32;
                    let start = (m.0 + 1).max(covered);
                    if start < end {
                        test(start..end);
                    }
                    covered = covered.max(end);
                }
            }
        }
        out
    }
}

impl Expr {
    fn matches(&self, cx: &Context<'_>, id: NodeId) -> bool {
        match self {
            Expr::True | Expr::Nth { .. } => true,
            Expr::Cond(cond) => cond.matches(cx, id),
            Expr::Not(inner) => !inner.matches(cx, id),
            Expr::And(items) => items.iter().all(|e| e.matches(cx, id)),
            Expr::Or(items) => items.iter().any(|e| e.matches(cx, id)),
        }
    }

    /// The names asked for (`name:`, `text:`), folded, outside negations.
    fn asked_names(&self, out: &mut Vec<String>) {
        match self {
            Expr::True | Expr::Nth { .. } | Expr::Not(_) => {}
            Expr::Cond(Cond::Name(t) | Cond::NameOrValue(t)) => out.push(t.needle.clone()),
            Expr::Cond(_) => {}
            Expr::And(items) | Expr::Or(items) => {
                for item in items {
                    item.asked_names(out);
                }
            }
        }
    }

    fn asks_for_app(&self, name: &str) -> bool {
        match self {
            Expr::True | Expr::Nth { .. } | Expr::Not(_) => false,
            Expr::Cond(Cond::App(t)) => t.matches(name),
            Expr::Cond(_) => false,
            Expr::And(items) | Expr::Or(items) => items.iter().any(|i| i.asks_for_app(name)),
        }
    }

    fn for_each_cond(&self, f: &mut impl FnMut(&Cond)) {
        match self {
            Expr::True | Expr::Nth { .. } => {}
            Expr::Cond(cond) => f(cond),
            Expr::Not(inner) => inner.for_each_cond(f),
            Expr::And(items) | Expr::Or(items) => {
                for item in items {
                    item.for_each_cond(f);
                }
            }
        }
    }
}

impl Cond {
    fn matches(&self, cx: &Context<'_>, id: NodeId) -> bool {
        let Some(node) = cx.tree.get(id) else {
            return false;
        };
        let value = node.value.as_deref().unwrap_or("");
        match self {
            Cond::Role(role) => node.role == *role,
            Cond::RawRole(t) => t.matches(&node.raw_role),
            Cond::Name(t) => t.matches(&node.name),
            Cond::Value(t) => t.matches(value),
            Cond::Description(t) => t.matches(&node.description),
            Cond::NameOrValue(t) => t.matches(&node.name) || t.matches(value),
            Cond::Has(state) => node.states.contains(*state),
            Cond::Lacks(state) => !node.states.contains(*state),
            Cond::App(t) => t.matches(cx.app),
            Cond::Ref(r) => cx.refs.as_slice().get(id.index()) == Some(r),
        }
    }
}

impl TextTest {
    fn new(value: &str, substring: bool) -> TextTest {
        TextTest {
            needle: fold(&normalize_space(value)),
            substring,
        }
    }

    fn matches(&self, hay: &str) -> bool {
        let hay = normalize_space(hay);
        if self.substring {
            contains_folded(&hay, &self.needle)
        } else {
            hay.chars()
                .flat_map(char::to_lowercase)
                .eq(self.needle.chars())
        }
    }
}

fn fold(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).collect()
}

/// Whether `hay` contains `needle` (already folded), ignoring case. ASCII,
/// the common case, is compared in place without allocating.
fn contains_folded(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if hay.is_ascii() && needle.is_ascii() {
        let needle = needle.as_bytes();
        return hay
            .as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle));
    }
    fold(hay).contains(needle)
}

mod parse;
use parse::Parser;
#[cfg(test)]
mod tests;
