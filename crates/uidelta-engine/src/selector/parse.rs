//! The selector grammar (see the module documentation of [`super`]), parsed
//! by recursive descent.

use uidelta_diff::Ref;
use uidelta_model::{Role, State};

use super::{Cond, Expr, Key, SelectorError, Step, TextTest, KEYS, MAX_DEPTH};

/// A recursive-descent parser over characters, so that positions are
/// character offsets.
pub(super) struct Parser<'a> {
    text: &'a str,
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    pub(super) fn new(text: &'a str) -> Parser<'a> {
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

    pub(super) fn selector(&mut self) -> Result<Vec<Step>, SelectorError> {
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
            if step.apps_only && steps.last().is_some_and(|s| !s.apps_only) {
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
            apps_only: apps > 0 && others == 0,
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
