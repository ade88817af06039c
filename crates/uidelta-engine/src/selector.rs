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
//! - `app:` / `app~:` test the scope's application name. A step made only of
//!   `app` conditions restricts the scopes the following steps search, and
//!   must come first; alone it matches each accepted scope's root.
//! - `id:e12` and a bare `e12` match the node carrying that ref.
//! - `nth:N` keeps the N-th match of its step, counted from 0 across all
//!   scopes in order (`nth:0` first, `nth:-1` last); an index out of range
//!   matches nothing. It must be joined to the step with `&&`, never inside
//!   `||` or `!`.
//!
//! Parsing and matching do no I/O. Matching costs one pass over each scope's
//! nodes per step; `>>` walks the preorder ranges of the previous step's
//! matches, so nested matches are not walked twice.

use std::fmt;
use std::str::FromStr;

use uidelta_diff::{Ref, Refs, View};
use uidelta_model::{normalize_space, NodeId, Role, State, Tree};

/// Parentheses nested deeper than this are refused, which keeps parsing and
/// matching within a small, fixed stack.
const MAX_DEPTH: usize = 64;

/// Every key, as listed in error messages.
const KEYS: &str = "role, name, value, desc (or description), text, state, app, id, nth";

/// A parsed selector, ready to be matched against any number of scopes.
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
pub struct Scope<'a> {
    /// The application's name, tested by `app:` conditions.
    pub app: &'a str,
    /// The filtered tree to search.
    pub view: &'a View,
    /// The refs of `view`'s nodes. Nodes without a ref are never matched.
    pub refs: &'a Refs,
}

/// One element a selector matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Found {
    /// Index of the scope in the slice given to [`Selector::find`].
    pub scope: usize,
    /// The node in that scope's view tree.
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
    /// Made only of `app` conditions: restricts scopes instead of nodes.
    scope_only: bool,
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

    /// Every element that matches, in scope order and then in preorder, each
    /// once. Costs one pass over each scope's nodes per step.
    pub fn find(&self, scopes: &[Scope<'_>]) -> Vec<Found> {
        if let Some(r) = self.as_ref() {
            return find_ref(r, scopes);
        }
        // Matches of the previous step per scope, and whether it was scope-only.
        let mut previous: Option<(Vec<Vec<NodeId>>, bool)> = None;
        for step in &self.steps {
            let mut matched = Vec::with_capacity(scopes.len());
            for (i, scope) in scopes.iter().enumerate() {
                let before = previous
                    .as_ref()
                    .map(|(m, scoped)| (m.get(i).map_or(&[][..], Vec::as_slice), *scoped));
                matched.push(step.matches_in(scope, before));
            }
            if let Some(n) = step.nth {
                keep_nth(&mut matched, n);
            }
            previous = Some((matched, step.scope_only));
        }
        let Some((matched, _)) = previous else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for (i, (nodes, scope)) in matched.iter().zip(scopes).enumerate() {
            for &node in nodes {
                if let Some(&r) = scope.refs.as_slice().get(node.index()) {
                    found.push(Found {
                        scope: i,
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
    /// scope order and preorder. Empty when the selector asks for no name.
    /// Costs one pass over every scope's nodes.
    pub fn near_misses(&self, scopes: &[Scope<'_>], limit: usize) -> Vec<Found> {
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
        for (i, scope) in scopes.iter().enumerate() {
            let tree = scope.view.tree();
            for (index, &r) in scope.refs.as_slice().iter().enumerate() {
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
                        scope: i,
                        node,
                        r#ref: r,
                    },
                ));
            }
        }
        // Stable: equal ranks stay in scope order and preorder.
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

fn find_ref(r: Ref, scopes: &[Scope<'_>]) -> Vec<Found> {
    scopes
        .iter()
        .enumerate()
        .filter_map(|(i, scope)| {
            scope
                .refs
                .find(r)
                .filter(|node| node.index() < scope.view.len())
                .map(|node| Found {
                    scope: i,
                    node,
                    r#ref: r,
                })
        })
        .collect()
}

/// Keeps the `n`-th node over all scopes (0-based, negative from the end).
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
    /// This step's matches in one scope, in preorder. `before` is the
    /// previous step's matches in the same scope and whether that step was
    /// scope-only; `None` for the first step.
    fn matches_in(&self, scope: &Scope<'_>, before: Option<(&[NodeId], bool)>) -> Vec<NodeId> {
        let tree = scope.view.tree();
        let cx = Context {
            app: scope.app,
            tree,
            refs: scope.refs,
        };
        // Only nodes with a ref can be reported.
        let reach = tree.len().min(scope.refs.len()) as u32;
        let mut out = Vec::new();
        if reach == 0 {
            return out;
        }
        if self.scope_only {
            // Parsing puts scope-only steps first, so `before` is scope-only too.
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

/// A recursive-descent parser over characters, so that positions are
/// character offsets.
struct Parser<'a> {
    text: &'a str,
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        Parser {
            text,
            chars: text.chars().collect(),
            pos: 0,
            depth: 0,
        }
    }

    fn error(&self, at: usize, message: impl Into<String>) -> SelectorError {
        SelectorError {
            selector: self.text.to_owned(),
            position: at,
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn at(&self, s: &str) -> bool {
        (self.pos..)
            .zip(s.chars())
            .all(|(i, c)| self.chars.get(i) == Some(&c))
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn binary_op(&self) -> Option<&'static str> {
        ["&&", "||", ">>"].into_iter().find(|op| self.at(op))
    }

    /// Whether a value or condition ends here.
    fn at_terminator(&self) -> bool {
        self.peek().is_none() || self.peek() == Some(')') || self.binary_op().is_some()
    }

    /// A short excerpt of the text at the current position, for messages.
    fn excerpt(&self) -> String {
        if let Some(op) = self.binary_op() {
            return op.to_owned();
        }
        let word: String = self.chars[self.pos.min(self.chars.len())..]
            .iter()
            .take_while(|c| !c.is_whitespace())
            .take(24)
            .collect();
        word
    }

    fn selector(&mut self) -> Result<Vec<Step>, SelectorError> {
        if self.text.trim().is_empty() {
            return Err(self.error(
                0,
                "empty selector: write a ref like e12 or conditions like `role:button && name:Save`",
            ));
        }
        let mut steps: Vec<Step> = Vec::new();
        let mut after = None;
        loop {
            self.skip_ws();
            let start = self.pos;
            let expr = self.or(after)?;
            let step = self.step(expr)?;
            if step.scope_only && steps.last().is_some_and(|s| !s.scope_only) {
                return Err(self.error(
                    start,
                    "a step of only `app:` conditions chooses applications, so it must come \
                     first: `app:NAME >> ...`",
                ));
            }
            steps.push(step);
            self.skip_ws();
            if self.at(">>") {
                self.pos += 2;
                after = Some(">>");
                continue;
            }
            return match self.peek() {
                None => Ok(steps),
                Some(')') => Err(self.error(self.pos, "unmatched `)`: there is no `(` to close")),
                Some(_) => Err(self.error(
                    self.pos,
                    format!(
                        "expected `&&`, `||`, `>>` or the end, found `{}`",
                        self.excerpt()
                    ),
                )),
            };
        }
    }

    /// Takes the `nth` out of a parsed step, checking where it was written.
    fn step(&self, expr: Expr) -> Result<Step, SelectorError> {
        let mut nth = None;
        let expr = self.take_nth(expr, None, &mut nth)?;
        let (mut apps, mut others) = (0, 0);
        expr.for_each_cond(&mut |c| match c {
            Cond::App(_) => apps += 1,
            _ => others += 1,
        });
        Ok(Step {
            expr,
            nth: nth.map(|(n, _)| n),
            scope_only: apps > 0 && others == 0,
        })
    }

    fn take_nth(
        &self,
        expr: Expr,
        inside: Option<&'static str>,
        nth: &mut Option<(i64, usize)>,
    ) -> Result<Expr, SelectorError> {
        Ok(match expr {
            Expr::Nth { n, at } => {
                if let Some(op) = inside {
                    return Err(self.error(
                        at,
                        format!(
                            "`nth` cannot be used inside `{op}`: join it to the step with `&&`, \
                             as in `role:list item && nth:2`"
                        ),
                    ));
                }
                if nth.is_some() {
                    return Err(self.error(at, "a step takes one `nth`"));
                }
                *nth = Some((n, at));
                Expr::True
            }
            Expr::And(items) => Expr::And(
                items
                    .into_iter()
                    .map(|e| self.take_nth(e, inside, nth))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::Or(items) => Expr::Or(
                items
                    .into_iter()
                    .map(|e| self.take_nth(e, Some("||"), nth))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::Not(inner) => Expr::Not(Box::new(self.take_nth(*inner, Some("!"), nth)?)),
            other => other,
        })
    }

    fn or(&mut self, after: Option<&'static str>) -> Result<Expr, SelectorError> {
        let mut items = vec![self.and(after)?];
        loop {
            self.skip_ws();
            if !self.at("||") {
                break;
            }
            self.pos += 2;
            items.push(self.and(Some("||"))?);
        }
        Ok(if items.len() == 1 {
            items.swap_remove(0)
        } else {
            Expr::Or(items)
        })
    }

    fn and(&mut self, after: Option<&'static str>) -> Result<Expr, SelectorError> {
        let mut items = vec![self.unary(after)?];
        loop {
            self.skip_ws();
            if !self.at("&&") {
                break;
            }
            self.pos += 2;
            items.push(self.unary(Some("&&"))?);
        }
        Ok(if items.len() == 1 {
            items.swap_remove(0)
        } else {
            Expr::And(items)
        })
    }

    fn unary(&mut self, after: Option<&'static str>) -> Result<Expr, SelectorError> {
        // Counted rather than recursed, so `!!!!...` cannot exhaust the stack.
        let mut negations = 0usize;
        let mut after = after;
        loop {
            self.skip_ws();
            if self.peek() != Some('!') {
                break;
            }
            self.pos += 1;
            negations += 1;
            after = Some("!");
        }
        let expr = self.primary(after)?;
        Ok(match negations {
            0 => expr,
            // Kept as two levels so that an `nth` under `!!` is still refused.
            n if n % 2 == 0 => Expr::Not(Box::new(Expr::Not(Box::new(expr)))),
            _ => Expr::Not(Box::new(expr)),
        })
    }

    fn expected_condition(&self, after: Option<&'static str>) -> SelectorError {
        let mut message = match after {
            Some(op) => format!("expected a condition after `{op}`"),
            None => "expected a condition".to_owned(),
        };
        if self.peek().is_some() {
            message.push_str(&format!(", found `{}`", self.excerpt()));
        }
        self.error(self.pos, message)
    }

    fn primary(&mut self, after: Option<&'static str>) -> Result<Expr, SelectorError> {
        self.skip_ws();
        let start = self.pos;
        match self.peek() {
            None | Some(')') => Err(self.expected_condition(after)),
            Some(_) if self.binary_op().is_some() => Err(self.expected_condition(after)),
            Some('(') => {
                if self.depth >= MAX_DEPTH {
                    return Err(
                        self.error(start, format!("parentheses nested deeper than {MAX_DEPTH}"))
                    );
                }
                self.pos += 1;
                self.depth += 1;
                let inner = self.or(Some("("))?;
                self.depth -= 1;
                self.skip_ws();
                match self.peek() {
                    Some(')') => {
                        self.pos += 1;
                        Ok(inner)
                    }
                    None => Err(self.error(start, "unclosed `(`: expected `)` before the end")),
                    Some(_) if self.at(">>") => Err(self.error(
                        self.pos,
                        "`>>` cannot be used inside parentheses: it separates whole steps",
                    )),
                    Some(_) => Err(self.error(
                        self.pos,
                        format!("expected `)`, found `{}`", self.excerpt()),
                    )),
                }
            }
            Some(_) => self.condition(),
        }
    }

    fn condition(&mut self) -> Result<Expr, SelectorError> {
        let start = self.pos;
        let mut p = start;
        while self
            .chars
            .get(p)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
        {
            p += 1;
        }
        let key: String = self.chars[start..p].iter().collect();
        while self.chars.get(p).is_some_and(|c| c.is_whitespace()) {
            p += 1;
        }
        let substring = match (self.chars.get(p), self.chars.get(p + 1)) {
            (Some(':'), _) => false,
            (Some('~'), Some(':')) => true,
            _ => return self.bare(),
        };
        if key.is_empty() {
            return Err(self.error(start, format!("expected a key before `:`; keys are {KEYS}")));
        }
        self.pos = p + if substring { 2 } else { 1 };
        let written = format!("{key}{}:", if substring { "~" } else { "" });
        let Some(kind) = Key::lookup(&key.to_lowercase()) else {
            return Err(self.error(
                start,
                format!(
                    "unknown key `{}`; keys are {KEYS}",
                    uidelta_backend::echo(&key)
                ),
            ));
        };
        if substring && !kind.has_substring_form() {
            return Err(self.error(
                start,
                format!(
                    "`{key}` has no substring form `{key}~:`; keys with one are name~, value~, \
                     desc~, text~ and app~"
                ),
            ));
        }
        let (value, at) = self.value(&written)?;
        let text = || TextTest::new(&value, substring);
        let cond = match kind {
            Key::Role => match Role::from_name(&value) {
                Role::Unknown => Cond::RawRole(text()),
                role => Cond::Role(role),
            },
            Key::Name => Cond::Name(text()),
            Key::Value => Cond::Value(text()),
            Key::Description => Cond::Description(text()),
            Key::Text => Cond::NameOrValue(text()),
            Key::App => Cond::App(text()),
            Key::State => self.state(&value, at)?,
            Key::Id => Cond::Ref(
                value
                    .parse::<Ref>()
                    .map_err(|bad| self.error(at, bad.to_string()))?,
            ),
            Key::Nth => {
                let n = value.parse::<i64>().map_err(|_| {
                    self.error(
                        at,
                        format!(
                            "`nth` takes a whole number, counted from 0 (nth:0 is the first \
                             match, nth:-1 the last); found `{value}`"
                        ),
                    )
                })?;
                return Ok(Expr::Nth { n, at: start });
            }
        };
        Ok(Expr::Cond(cond))
    }

    fn state(&self, value: &str, at: usize) -> Result<Cond, SelectorError> {
        if value.eq_ignore_ascii_case("disabled") {
            return Ok(Cond::Lacks(State::Enabled));
        }
        if value.eq_ignore_ascii_case("hidden") {
            return Ok(Cond::Lacks(State::Showing));
        }
        State::from_name(value).map(Cond::Has).ok_or_else(|| {
            self.error(
                at,
                format!(
                    "unknown state `{value}`; states include checked, enabled, disabled, \
                     focused, selected, expanded, editable, showing and hidden"
                ),
            )
        })
    }

    /// A condition's value, quoted or bare, and where it starts.
    fn value(&mut self, written: &str) -> Result<(String, usize), SelectorError> {
        self.skip_ws();
        let at = self.pos;
        if self.peek() == Some('"') {
            return self.quoted().map(|v| (v, at));
        }
        let value = self.bare_text();
        if value.is_empty() {
            return Err(self.error(at, format!("missing value after `{written}`")));
        }
        Ok((value, at))
    }

    fn quoted(&mut self) -> Result<String, SelectorError> {
        let open = self.pos;
        let unclosed = "unclosed quote: the `\"` here is never closed";
        self.pos += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return Err(self.error(open, unclosed)),
                Some('"') => {
                    self.pos += 1;
                    break;
                }
                Some('\\') => match self.chars.get(self.pos + 1) {
                    Some(&c @ ('"' | '\\')) => {
                        out.push(c);
                        self.pos += 2;
                    }
                    Some(c) => {
                        return Err(self.error(
                            self.pos,
                            format!(
                                "unknown escape `\\{c}`: inside quotes only `\\\"` and `\\\\` \
                                 are escapes"
                            ),
                        ))
                    }
                    None => return Err(self.error(open, unclosed)),
                },
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
        self.skip_ws();
        if !self.at_terminator() {
            return Err(self.error(
                self.pos,
                format!(
                    "unexpected `{}` after the closing quote; join conditions with `&&`, `||` \
                     or `>>`",
                    self.excerpt()
                ),
            ));
        }
        Ok(out)
    }

    /// Text up to the next operator, or a `)` that closes no `(` opened in
    /// the text itself (so `name:Open (recent)` needs no quotes); trimmed.
    fn bare_text(&mut self) -> String {
        let begin = self.pos;
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            if self.binary_op().is_some() {
                break;
            }
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => break,
                ')' => depth -= 1,
                _ => {}
            }
            self.pos += 1;
        }
        self.chars[begin..self.pos]
            .iter()
            .collect::<String>()
            .trim()
            .to_owned()
    }

    /// A primary that is not `key:value`: a ref, or a mistake.
    fn bare(&mut self) -> Result<Expr, SelectorError> {
        let start = self.pos;
        let token = self.bare_text();
        if let Ok(r) = token.parse::<Ref>() {
            return Ok(Expr::Cond(Cond::Ref(r)));
        }
        let mut chars = token.chars();
        let ref_like = matches!(chars.next(), Some('e' | 'E'))
            && chars.next().is_some_and(|c| c.is_ascii_digit());
        let message = if ref_like {
            format!(
                "`{}` is not a ref: refs look like e12",
                uidelta_backend::echo(&token)
            )
        } else {
            let shown: String = token.chars().take(24).collect();
            format!("expected a condition like `role:button` or a ref like `e12`, found `{shown}`")
        };
        Err(self.error(start, message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use uidelta_diff::{Filters, RefTable};
    use uidelta_model::{Meta, NodeData, Snapshot, StateSet, TreeBuilder};

    /// A node that is enabled and showing, as most are.
    fn node(role: Role, name: &str) -> NodeData {
        let mut n = NodeData::named(role, name);
        n.states = StateSet::of(&[State::Enabled, State::Showing]);
        n
    }

    /// gedit: e1..e15, node ids 0..14.
    fn gedit() -> Snapshot {
        let mut b = TreeBuilder::new(node(Role::Frame, "Untitled - gedit")); // 0 e1
        b.leaf(node(Role::PushButton, "Save")); // 1 e2
        let mut save_as = node(Role::PushButton, "Save As…");
        save_as.states.remove(State::Enabled);
        b.leaf(save_as); // 2 e3
        let mut bold = node(Role::CheckBox, "Bold");
        bold.states.insert(State::Checked);
        b.leaf(bold); // 3 e4
        let mut search = node(Role::Entry, "Search");
        search.value = Some("hello world".into());
        b.leaf(search); // 4 e5
        b.open(node(Role::List, "Files")); // 5 e6
        b.leaf(node(Role::ListItem, "a.txt")); // 6 e7
        b.leaf(node(Role::ListItem, "b.txt")); // 7 e8
        b.leaf(node(Role::ListItem, "c.txt")); // 8 e9
        b.close();
        b.open(node(Role::Dialog, "Save changes?")); // 9 e10
        let mut label = node(Role::Label, "Save && Close");
        label.description = "Closes the document".into();
        b.leaf(label); // 10 e11
        b.leaf(node(Role::PushButton, "OK")); // 11 e12
        let mut cancel = node(Role::PushButton, "Cancel");
        cancel.states.remove(State::Showing);
        b.leaf(cancel); // 12 e13
        b.close();
        let mut gauge = node(Role::Unknown, "Gauge");
        gauge.raw_role = "custom-widget".into();
        b.leaf(gauge); // 13 e14
        b.leaf(node(Role::MenuItem, "Open (recent)")); // 14 e15
        Snapshot::new(Meta::default(), b.finish())
    }

    /// gnome-calculator: e16..e20, node ids 0..4.
    fn calculator() -> Snapshot {
        let mut b = TreeBuilder::new(node(Role::Frame, "Calculator")); // 0 e16
        b.open(node(Role::Dialog, "About")); // 1 e17
        b.leaf(node(Role::PushButton, "OK")); // 2 e18
        b.close();
        b.leaf(node(Role::PushButton, "=")); // 3 e19
        b.leaf(node(Role::Label, r#"say "hi" \ bye"#)); // 4 e20
        Snapshot::new(Meta::default(), b.finish())
    }

    struct Fixture {
        scopes: Vec<(&'static str, View, Refs)>,
    }

    impl Fixture {
        fn new() -> Fixture {
            let mut table = RefTable::new();
            let scopes = [("gedit", gedit()), ("gnome-calculator", calculator())]
                .into_iter()
                .map(|(app, snapshot)| {
                    let view = View::new(&snapshot, Filters::none());
                    let refs = table.label(view.len());
                    (app, view, refs)
                })
                .collect();
            Fixture { scopes }
        }

        fn scopes(&self) -> Vec<Scope<'_>> {
            self.scopes
                .iter()
                .map(|(app, view, refs)| Scope { app, view, refs })
                .collect()
        }

        fn find(&self, selector: &str) -> Vec<Found> {
            let parsed = Selector::parse(selector).unwrap_or_else(|e| panic!("{e}"));
            parsed.find(&self.scopes())
        }

        /// Matches as `app/name`, the short form most tests compare.
        fn names(&self, selector: &str) -> Vec<String> {
            self.find(selector)
                .into_iter()
                .map(|f| {
                    let (app, view, _) = &self.scopes[f.scope];
                    format!("{app}/{}", view.tree().node(f.node).name)
                })
                .collect()
        }
    }

    fn names(selector: &str) -> Vec<String> {
        Fixture::new().names(selector)
    }

    fn error(selector: &str) -> String {
        match Selector::parse(selector) {
            Ok(s) => panic!("`{selector}` parsed: {s:?}"),
            Err(e) => e.to_string(),
        }
    }

    const BUTTONS: [&str; 6] = [
        "gedit/Save",
        "gedit/Save As…",
        "gedit/OK",
        "gedit/Cancel",
        "gnome-calculator/OK",
        "gnome-calculator/=",
    ];

    /// mousepad: menu items padded with spaces to align their accelerators.
    fn padded() -> Fixture {
        let mut b = TreeBuilder::new(node(Role::Frame, "mousepad"));
        b.leaf(node(Role::MenuItem, "Find      "));
        b.leaf(node(Role::MenuItem, "Find and  Replace…"));
        b.leaf(node(Role::MenuItem, "  Go to\tline "));
        let view = View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none());
        let refs = RefTable::new().label(view.len());
        Fixture {
            scopes: vec![("mousepad", view, refs)],
        }
    }

    #[test]
    fn names_match_with_white_space_trimmed_and_runs_as_one() {
        let f = padded();
        assert_eq!(f.names("name:Find"), ["mousepad/Find      "]);
        assert_eq!(f.names("name:\"  find \""), ["mousepad/Find      "]);
        assert_eq!(
            f.names("name:find and replace…"),
            ["mousepad/Find and  Replace…"]
        );
        assert_eq!(f.names("name:Go to line"), ["mousepad/  Go to\tline "]);
        assert_eq!(
            f.names("text~:and replace"),
            ["mousepad/Find and  Replace…"]
        );
        assert!(f.names("name:Findand").is_empty());
    }

    fn near(f: &Fixture, selector: &str) -> Vec<String> {
        let parsed = Selector::parse(selector).unwrap_or_else(|e| panic!("{e}"));
        parsed
            .near_misses(&f.scopes(), 5)
            .into_iter()
            .map(|m| {
                let (_, view, _) = &f.scopes[m.scope];
                format!("{} {}", m.r#ref, view.tree().node(m.node).name)
            })
            .collect()
    }

    #[test]
    fn near_misses_contain_the_asked_name_or_are_a_few_edits_away() {
        let f = Fixture::new();
        // Containing it, shortest first, then in order.
        assert_eq!(
            near(&f, "role:button && name:save"),
            [
                "e2 Save",
                "e3 Save As…",
                "e10 Save changes?",
                "e11 Save && Close"
            ]
        );
        // A typo: one edit.
        assert_eq!(near(&f, "name:Cancl"), ["e13 Cancel"]);
        assert_eq!(near(&f, "text:a.tx"), ["e7 a.txt"]);
        // At most five; those containing it come before those a few edits away.
        assert_eq!(
            near(&f, "name:txt || name:b.txx"),
            ["e7 a.txt", "e8 b.txt", "e9 c.txt"]
        );
        assert_eq!(near(&f, "name~:ok"), ["e12 OK", "e18 OK"]);
        // Nothing near, no name asked, or only one not wanted.
        assert!(near(&f, "name:Quit").is_empty());
        assert!(near(&f, "role:slider").is_empty());
        assert!(near(&f, "role:button && !name:Save").is_empty());
        // Padding does not count against a name.
        assert_eq!(near(&padded(), "name:Fnd"), ["e2 Find      "]);
    }

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        let d = |a: &str, b: &str| {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            edit_distance(&a, &b)
        };
        assert_eq!(d("kitten", "sitting"), 3);
        assert_eq!(d("", "abc"), 3);
        assert_eq!(d("abc", "abc"), 0);
        assert_eq!(d("flaw", "lawn"), 2);
    }

    #[test]
    fn role_normalizes_every_spelling() {
        for spelling in [
            "role:button",
            "role:Button",
            "role:push button",
            "role:PUSH_BUTTON",
            "ROLE:  push button  ",
        ] {
            assert_eq!(names(spelling), BUTTONS, "{spelling}");
        }
        assert_eq!(names("role:check box"), ["gedit/Bold"]);
        assert_eq!(names("role:checkbox"), ["gedit/Bold"]);
        assert_eq!(names("role:textbox"), ["gedit/Search"]);
    }

    #[test]
    fn role_unknown_to_every_platform_matches_the_raw_role() {
        assert_eq!(names("role:custom-widget"), ["gedit/Gauge"]);
        assert_eq!(names("role:CUSTOM-Widget"), ["gedit/Gauge"]);
        assert!(names("role:custom").is_empty());
        assert!(names("role:no such role").is_empty());
    }

    #[test]
    fn name_is_exact_and_case_insensitive() {
        assert_eq!(names("name:save"), ["gedit/Save"]);
        assert_eq!(names("name:SAVE AS…"), ["gedit/Save As…"]);
        assert_eq!(names("name:OK"), ["gedit/OK", "gnome-calculator/OK"]);
        assert!(names("name:Sav").is_empty());
    }

    #[test]
    fn substring_forms() {
        assert_eq!(
            names("name~:sav"),
            [
                "gedit/Save",
                "gedit/Save As…",
                "gedit/Save changes?",
                "gedit/Save && Close"
            ]
        );
        assert_eq!(names("value~:WORLD"), ["gedit/Search"]);
        assert_eq!(names("desc~:document"), ["gedit/Save && Close"]);
        assert_eq!(names("description~:CLOSES"), ["gedit/Save && Close"]);
        assert_eq!(
            names("app~:calc && role:label"),
            [r#"gnome-calculator/say "hi" \ bye"#]
        );
        assert_eq!(names("name~:As…"), ["gedit/Save As…"]);
    }

    #[test]
    fn value_description_and_text() {
        assert_eq!(names("value:Hello World"), ["gedit/Search"]);
        assert!(names("value:hello").is_empty());
        assert_eq!(names("desc:closes the document"), ["gedit/Save && Close"]);
        assert_eq!(
            names("description:Closes the document"),
            ["gedit/Save && Close"]
        );
        // text tests the name or the value.
        assert_eq!(names("text~:hello"), ["gedit/Search"]);
        assert_eq!(names("text~:bold"), ["gedit/Bold"]);
        assert_eq!(names("text:hello world"), ["gedit/Search"]);
        assert_eq!(names("text:search"), ["gedit/Search"]);
        // A missing value is empty text.
        assert_eq!(
            names("value:\"\" && role:push button && app:gedit"),
            ["gedit/Save", "gedit/Save As…", "gedit/OK", "gedit/Cancel"]
        );
    }

    #[test]
    fn states_with_disabled_and_hidden() {
        assert_eq!(names("state:checked"), ["gedit/Bold"]);
        assert_eq!(names("state:STATE_CHECKED"), ["gedit/Bold"]);
        assert_eq!(names("state:toggled"), ["gedit/Bold"]);
        assert_eq!(names("state:disabled"), ["gedit/Save As…"]);
        assert_eq!(names("state:Disabled"), ["gedit/Save As…"]);
        assert_eq!(names("state:hidden"), ["gedit/Cancel"]);
        assert_eq!(
            names("role:button && state:enabled && state:showing"),
            [
                "gedit/Save",
                "gedit/OK",
                "gnome-calculator/OK",
                "gnome-calculator/="
            ]
        );
    }

    #[test]
    fn app_alone_matches_the_roots_of_its_scopes() {
        assert_eq!(names("app:GEDIT"), ["gedit/Untitled - gedit"]);
        assert_eq!(names("app~:calc"), ["gnome-calculator/Calculator"]);
        assert_eq!(names("!app:gedit"), ["gnome-calculator/Calculator"]);
        assert!(names("app:calc").is_empty());
        assert_eq!(names("app:gedit && role:label"), ["gedit/Save && Close"]);
        assert_eq!(
            names("app:gedit || role:label"),
            [
                "gedit/Untitled - gedit",
                "gedit/Save",
                "gedit/Save As…",
                "gedit/Bold",
                "gedit/Search",
                "gedit/Files",
                "gedit/a.txt",
                "gedit/b.txt",
                "gedit/c.txt",
                "gedit/Save changes?",
                "gedit/Save && Close",
                "gedit/OK",
                "gedit/Cancel",
                "gedit/Gauge",
                "gedit/Open (recent)",
                r#"gnome-calculator/say "hi" \ bye"#,
            ]
        );
    }

    #[test]
    fn refs_alone_with_id_and_combined() {
        let fx = Fixture::new();
        let save = Found {
            scope: 0,
            node: NodeId(1),
            r#ref: Ref(2),
        };
        assert_eq!(fx.find("e2"), [save]);
        assert_eq!(fx.find("  e2  "), [save]);
        assert_eq!(fx.find("id:e2"), [save]);
        assert_eq!(fx.find("ID:e2"), [save]);
        assert_eq!(
            fx.find("e18"),
            [Found {
                scope: 1,
                node: NodeId(2),
                r#ref: Ref(18),
            }]
        );
        assert!(fx.find("e99").is_empty());
        assert_eq!(fx.names("e2 || e19"), ["gedit/Save", "gnome-calculator/="]);
        assert_eq!(fx.names("e10 >> role:button"), ["gedit/OK", "gedit/Cancel"]);
        assert!(fx.find("e2 && name:OK").is_empty());
        assert_eq!(
            fx.names("!e2 && name~:save && role:button"),
            ["gedit/Save As…"]
        );
    }

    #[test]
    fn as_ref_only_for_a_lone_ref() {
        let r = |s: &str| Selector::parse(s).ok().and_then(|s| s.as_ref());
        assert_eq!(r("e12"), Some(Ref(12)));
        assert_eq!(r(" e12 "), Some(Ref(12)));
        assert_eq!(r("id:e12"), Some(Ref(12)));
        assert_eq!(r("(e12)"), Some(Ref(12)));
        assert_eq!(r("e12 && nth:0"), None);
        assert_eq!(r("e12 || e13"), None);
        assert_eq!(r("!e12"), None);
        assert_eq!(r("e1 >> e12"), None);
        assert_eq!(r("name:e12"), None);
    }

    #[test]
    fn text_is_kept_as_written() {
        let s: Selector = " role:button && name:Save "
            .parse()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.text(), " role:button && name:Save ");
        assert_eq!(s.to_string(), " role:button && name:Save ");
        assert_eq!(Selector::parse("name:OK"), Selector::parse("name:OK"));
    }

    #[test]
    fn operators_and_precedence() {
        // `&&` binds tighter than `||`.
        assert_eq!(
            names("name:OK || name:Save && role:label"),
            ["gedit/OK", "gnome-calculator/OK"]
        );
        assert_eq!(
            names("(name:OK || name:Save) && role:push button && app:gedit"),
            ["gedit/Save", "gedit/OK"]
        );
        // `!` binds tighter than `&&`.
        assert_eq!(
            names("!role:button && name~:save"),
            ["gedit/Save changes?", "gedit/Save && Close"]
        );
        assert_eq!(
            names("!(role:button || role:label) && name~:save"),
            ["gedit/Save changes?"]
        );
        assert_eq!(names("!!name:Save"), ["gedit/Save"]);
        assert_eq!(names("! ! ! !name:save"), ["gedit/Save"]);
        assert_eq!(names("((name:save))"), ["gedit/Save"]);
        // `>>` binds loosest: `a || b >> c` is `(a || b) >> c`.
        assert_eq!(
            names("name:Files || name:About >> role:list item || role:button"),
            [
                "gedit/a.txt",
                "gedit/b.txt",
                "gedit/c.txt",
                "gnome-calculator/OK"
            ]
        );
    }

    #[test]
    fn quoting_and_parentheses_in_values() {
        assert_eq!(names(r#"name:"Save && Close""#), ["gedit/Save && Close"]);
        assert_eq!(
            names(r#"name: "save && close"   && role:label"#),
            ["gedit/Save && Close"]
        );
        assert_eq!(
            names(r#"name:"say \"hi\" \\ bye""#),
            [r#"gnome-calculator/say "hi" \ bye"#]
        );
        assert_eq!(names(r#"(name:"OK") && app:gedit"#), ["gedit/OK"]);
        // A bare value keeps its own balanced parentheses.
        assert_eq!(names("name:Open (recent)"), ["gedit/Open (recent)"]);
        assert_eq!(names("(name:Open (recent))"), ["gedit/Open (recent)"]);
        assert_eq!(names("(name:OK)&&app:gedit"), ["gedit/OK"]);
        // `&`, `|`, `>`, `!` and `:` alone are text.
        assert_eq!(
            Selector::parse("name:a & b | c > d! e:f").map(|_| ()),
            Ok(())
        );
    }

    #[test]
    fn chains_across_two_applications() {
        assert_eq!(names("app:gedit >> role:dialog >> name:OK"), ["gedit/OK"]);
        assert_eq!(
            names("app:gnome-calculator >> role:dialog >> name:OK"),
            ["gnome-calculator/OK"]
        );
        assert_eq!(
            names("role:dialog >> name:OK"),
            ["gedit/OK", "gnome-calculator/OK"]
        );
        assert_eq!(
            names("role:dialog >> role:button"),
            ["gedit/OK", "gedit/Cancel", "gnome-calculator/OK"]
        );
        assert_eq!(
            names("app~:calc >> role:button"),
            ["gnome-calculator/OK", "gnome-calculator/="]
        );
        // The app step accepts the scope; the root itself can match the next step.
        assert_eq!(names("app:gedit >> role:frame"), ["gedit/Untitled - gedit"]);
        assert_eq!(names("app:gedit >> app~:ged >> name:OK"), ["gedit/OK"]);
        assert!(names("app:gedit >> app:gnome-calculator >> name:OK").is_empty());
        assert!(names("app:vim >> name:OK").is_empty());
        // Strict descendants only.
        assert!(names("role:list >> role:list").is_empty());
        assert_eq!(names("name:Files >> role:list item").len(), 3);
        // Nested matches visit each descendant once.
        assert_eq!(
            names("role:frame || role:dialog >> role:button"),
            BUTTONS.map(str::to_owned)
        );
        assert_eq!(
            names("role:frame >> role:dialog >> name:OK && app:gedit"),
            ["gedit/OK"]
        );
    }

    #[test]
    fn nth_counts_from_zero_and_from_the_end() {
        assert_eq!(names("role:list item && nth:0"), ["gedit/a.txt"]);
        assert_eq!(names("role:list item && nth:2"), ["gedit/c.txt"]);
        assert_eq!(names("role:list item && nth:+1"), ["gedit/b.txt"]);
        assert_eq!(names("nth:-1 && role:list item"), ["gedit/c.txt"]);
        assert_eq!(names("role:list item && nth:-3"), ["gedit/a.txt"]);
        assert!(names("role:list item && nth:3").is_empty());
        assert!(names("role:list item && nth:-4").is_empty());
        assert!(names("role:list item && nth:9223372036854775807").is_empty());
        assert!(names("role:list item && nth:-9223372036854775808").is_empty());
        // Counted across scopes, in scope order.
        assert_eq!(names("role:button && nth:4"), ["gnome-calculator/OK"]);
        assert_eq!(names("role:button && nth:-1"), ["gnome-calculator/="]);
        assert_eq!(names("nth:0"), ["gedit/Untitled - gedit"]);
        // Inside parentheses joined with `&&`, and per step in a chain.
        assert_eq!(names("(role:list item && nth:1)"), ["gedit/b.txt"]);
        assert_eq!(
            names("role:dialog >> role:button && nth:1"),
            ["gedit/Cancel"]
        );
        assert_eq!(
            names("role:dialog && nth:-1 >> role:button"),
            ["gnome-calculator/OK"]
        );
        assert!(names("role:dialog && nth:5 >> role:button").is_empty());
        assert_eq!(names("app:gedit && nth:-1"), ["gedit/Untitled - gedit"]);
    }

    #[test]
    fn found_carries_scope_node_and_ref() {
        let fx = Fixture::new();
        assert_eq!(
            fx.find("name:OK"),
            [
                Found {
                    scope: 0,
                    node: NodeId(11),
                    r#ref: Ref(12),
                },
                Found {
                    scope: 1,
                    node: NodeId(2),
                    r#ref: Ref(18),
                },
            ]
        );
        assert!(Selector::parse("name:OK")
            .map(|s| s.find(&[]))
            .is_ok_and(|f| f.is_empty()));
    }

    #[test]
    fn error_messages_point_at_the_column() {
        assert_eq!(
            error("role:button &&"),
            "selector `role:button &&`: at column 15: expected a condition after `&&`"
        );
        assert_eq!(
            error("   "),
            "selector `   `: at column 1: empty selector: write a ref like e12 or conditions \
             like `role:button && name:Save`"
        );
        assert_eq!(
            error("role:button && colour:red"),
            "selector `role:button && colour:red`: at column 16: unknown key `colour`; keys are \
             role, name, value, desc (or description), text, state, app, id, nth"
        );
        assert_eq!(
            error("name: && role:button"),
            "selector `name: && role:button`: at column 7: missing value after `name:`"
        );
        assert_eq!(
            error("name~:"),
            "selector `name~:`: at column 7: missing value after `name~:`"
        );
        assert_eq!(
            error("(role:button || name:OK"),
            "selector `(role:button || name:OK`: at column 1: unclosed `(`: expected `)` before \
             the end"
        );
        assert_eq!(
            error(r#"role:label && name:"Save && Close"#),
            r#"selector `role:label && name:"Save && Close`: at column 20: unclosed quote: the `"` here is never closed"#
        );
        assert_eq!(
            error("id:x12"),
            "selector `id:x12`: at column 4: `x12` is not a ref: refs look like e12"
        );
        assert_eq!(
            error("e12x"),
            "selector `e12x`: at column 1: `e12x` is not a ref: refs look like e12"
        );
        assert_eq!(
            error("role:list item && nth:two"),
            "selector `role:list item && nth:two`: at column 23: `nth` takes a whole number, \
             counted from 0 (nth:0 is the first match, nth:-1 the last); found `two`"
        );
        assert_eq!(
            error("role:button || nth:1"),
            "selector `role:button || nth:1`: at column 16: `nth` cannot be used inside `||`: \
             join it to the step with `&&`, as in `role:list item && nth:2`"
        );
        assert_eq!(
            error("role:button && !nth:1"),
            "selector `role:button && !nth:1`: at column 17: `nth` cannot be used inside `!`: \
             join it to the step with `&&`, as in `role:list item && nth:2`"
        );
        assert_eq!(
            error("nth:1 && (nth:2)"),
            "selector `nth:1 && (nth:2)`: at column 11: a step takes one `nth`"
        );
        assert_eq!(
            error("state:sparkly"),
            "selector `state:sparkly`: at column 7: unknown state `sparkly`; states include \
             checked, enabled, disabled, focused, selected, expanded, editable, showing and \
             hidden"
        );
        assert_eq!(
            error("&& role:button"),
            "selector `&& role:button`: at column 1: expected a condition, found `&&`"
        );
        assert_eq!(
            error("role:button || && name:OK"),
            "selector `role:button || && name:OK`: at column 16: expected a condition after \
             `||`, found `&&`"
        );
        assert_eq!(
            error("role:dialog >>"),
            "selector `role:dialog >>`: at column 15: expected a condition after `>>`"
        );
        assert_eq!(
            error("!"),
            "selector `!`: at column 2: expected a condition after `!`"
        );
        assert_eq!(
            error("()"),
            "selector `()`: at column 2: expected a condition after `(`, found `)`"
        );
        assert_eq!(
            error("name:OK)"),
            "selector `name:OK)`: at column 8: unmatched `)`: there is no `(` to close"
        );
        assert_eq!(
            error("(name:OK) name:Cancel"),
            "selector `(name:OK) name:Cancel`: at column 11: expected `&&`, `||`, `>>` or the \
             end, found `name:Cancel`"
        );
        assert_eq!(
            error("(role:dialog >> name:OK)"),
            "selector `(role:dialog >> name:OK)`: at column 14: `>>` cannot be used inside \
             parentheses: it separates whole steps"
        );
        assert_eq!(
            error("(name:a (b) c"),
            "selector `(name:a (b) c`: at column 1: unclosed `(`: expected `)` before the end"
        );
        assert_eq!(
            error("role:dialog >> app:gedit"),
            "selector `role:dialog >> app:gedit`: at column 16: a step of only `app:` \
             conditions chooses applications, so it must come first: `app:NAME >> ...`"
        );
        assert_eq!(
            error("Save"),
            "selector `Save`: at column 1: expected a condition like `role:button` or a ref \
             like `e12`, found `Save`"
        );
        assert_eq!(
            error(r#"name:"OK" role:button"#),
            r#"selector `name:"OK" role:button`: at column 11: unexpected `role:button` after the closing quote; join conditions with `&&`, `||` or `>>`"#
        );
        assert_eq!(
            error(r#"name:"a\nb""#),
            r#"selector `name:"a\nb"`: at column 8: unknown escape `\n`: inside quotes only `\"` and `\\` are escapes"#
        );
        assert_eq!(
            error("role~:button"),
            "selector `role~:button`: at column 1: `role` has no substring form `role~:`; keys \
             with one are name~, value~, desc~, text~ and app~"
        );
        assert_eq!(
            error(":Save"),
            "selector `:Save`: at column 1: expected a key before `:`; keys are role, name, \
             value, desc (or description), text, state, app, id, nth"
        );
    }

    #[test]
    fn positions_count_characters_not_bytes() {
        let e = Selector::parse("name:Größe && ");
        assert_eq!(
            e.map_err(|e| (e.position, e.message)),
            Err((14, "expected a condition after `&&`".to_owned()))
        );
        let e = Selector::parse("name:日本 || bogus:x");
        assert_eq!(e.map_err(|e| e.position), Err(11));
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = format!("{}name:OK{}", "(".repeat(100), ")".repeat(100));
        let e = Selector::parse(&deep).map_err(|e| (e.position, e.message));
        assert_eq!(e, Err((64, "parentheses nested deeper than 64".to_owned())));
        let fine = format!("{}name:OK{}", "(".repeat(64), ")".repeat(64));
        assert_eq!(names(&fine).len(), 2);
        let bangs = format!("{}name:OK", "!".repeat(100_000));
        assert_eq!(names(&bangs).len(), 2);
    }

    /// 20,000 nested panels: `>>` over nested matches stays linear (a walk
    /// per match would take 200 million steps).
    #[test]
    fn chains_over_nested_matches_are_linear() {
        let depth = 20_000;
        let mut b = TreeBuilder::new(NodeData::new(Role::Frame));
        for _ in 0..depth {
            b.open(NodeData::new(Role::Panel));
        }
        b.leaf(NodeData::named(Role::PushButton, "deep"));
        let view = View::new(&Snapshot::new(Meta::default(), b.finish()), Filters::none());
        let refs = RefTable::new().label(view.len());
        let scopes = [Scope {
            app: "deep",
            view: &view,
            refs: &refs,
        }];
        let find = |s: &str| Selector::parse(s).map(|s| s.find(&scopes).len());
        assert_eq!(
            find("role:panel >> role:panel >> role:panel"),
            Ok(depth - 2)
        );
        assert_eq!(find("role:panel >> role:panel >> name:deep"), Ok(1));
        assert_eq!(find("role:panel && nth:-1 >> role:button"), Ok(1));
    }

    #[test]
    fn refs_shorter_than_the_view_never_panic() {
        let view = View::new(&calculator(), Filters::none());
        let refs = RefTable::new().label(2);
        let scopes = [Scope {
            app: "calc",
            view: &view,
            refs: &refs,
        }];
        let find = |s: &str| Selector::parse(s).map(|s| s.find(&scopes).len());
        assert_eq!(find("name~:\"\""), Ok(2));
        assert_eq!(find("role:dialog >> role:button"), Ok(0));
        assert_eq!(find("e1"), Ok(1));
        assert_eq!(find("e3"), Ok(0));
    }

    /// Checks what must hold for any input, parsed or not.
    fn check_any(fx: &Fixture, text: &str) -> Result<(), TestCaseError> {
        match Selector::parse(text) {
            Ok(s) => {
                prop_assert_eq!(s.text(), text);
                let found = s.find(&fx.scopes());
                let keys: Vec<(usize, NodeId)> = found.iter().map(|f| (f.scope, f.node)).collect();
                prop_assert!(keys.windows(2).all(|w| w[0] < w[1]), "{:?}", keys);
            }
            Err(e) => {
                prop_assert_eq!(&e.selector, text);
                prop_assert!(e.position <= text.chars().count(), "{}", e);
                prop_assert!(!e.message.is_empty());
            }
        }
        Ok(())
    }

    const SOUP: [&str; 34] = [
        "role",
        "name",
        "value",
        "desc",
        "text",
        "state",
        "app",
        "id",
        "nth",
        ":",
        "~:",
        "~",
        "&&",
        "||",
        ">>",
        "&",
        "|",
        ">",
        "!",
        "(",
        ")",
        "\"",
        "\\",
        " ",
        "e1",
        "e12",
        "-1",
        "2",
        "button",
        "checked",
        "gedit",
        "OK",
        "list item",
        "é",
    ];

    /// Well-formed single-step expressions without `nth` or `app`, for the
    /// algebra properties.
    fn expression() -> impl Strategy<Value = String> {
        let leaf = prop::sample::select(vec![
            "role:button",
            "role:label",
            "role:custom-widget",
            "name:OK",
            "name~:save",
            "value~:o",
            "text~:a",
            "desc~:the",
            "state:checked",
            "state:disabled",
            "state:hidden",
            "e2",
            "id:e18",
            "e99",
        ])
        .prop_map(str::to_owned);
        leaf.prop_recursive(4, 24, 3, |inner| {
            prop_oneof![
                inner.clone().prop_map(|e| format!("!{e}")),
                inner.clone().prop_map(|e| format!("({e})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} && {b})")),
                (inner.clone(), inner).prop_map(|(a, b)| format!("({a} || {b})")),
            ]
        })
    }

    fn keys(fx: &Fixture, selector: &str) -> Vec<(usize, NodeId)> {
        fx.find(selector)
            .iter()
            .map(|f| (f.scope, f.node))
            .collect()
    }

    proptest! {
        #[test]
        fn any_text_parses_or_fails_cleanly(text in ".{0,60}") {
            check_any(&Fixture::new(), &text)?;
        }

        #[test]
        fn operator_alphabet_parses_or_fails_cleanly(text in r#"[a-z0-9 :~!&|>()"\\-]{0,40}"#) {
            check_any(&Fixture::new(), &text)?;
        }

        #[test]
        fn token_soup_parses_or_fails_cleanly(
            tokens in prop::collection::vec(prop::sample::select(SOUP.to_vec()), 0..16)
        ) {
            check_any(&Fixture::new(), &tokens.concat())?;
        }

        #[test]
        fn operators_are_set_algebra(a in expression(), b in expression()) {
            let fx = Fixture::new();
            let (left, right) = (keys(&fx, &a), keys(&fx, &b));
            let all = keys(&fx, "name~:\"\"");
            let and: Vec<_> = left.iter().filter(|k| right.contains(k)).copied().collect();
            let or: Vec<_> = all
                .iter()
                .filter(|k| left.contains(k) || right.contains(k))
                .copied()
                .collect();
            let not: Vec<_> = all.iter().filter(|k| !left.contains(k)).copied().collect();
            prop_assert_eq!(keys(&fx, &format!("{a} && {b}")), and);
            prop_assert_eq!(keys(&fx, &format!("{a} || {b}")), or);
            prop_assert_eq!(keys(&fx, &format!("!({a})")), not);
        }

        #[test]
        fn chains_are_strict_descendants(a in expression(), b in expression()) {
            let fx = Fixture::new();
            let (left, right) = (keys(&fx, &a), keys(&fx, &b));
            let expected: Vec<_> = right
                .iter()
                .filter(|(scope, node)| {
                    let tree = fx.scopes[*scope].1.tree();
                    tree.ancestors(*node).any(|up| left.contains(&(*scope, up)))
                })
                .copied()
                .collect();
            prop_assert_eq!(keys(&fx, &format!("{a} >> {b}")), expected);
        }
    }
}
