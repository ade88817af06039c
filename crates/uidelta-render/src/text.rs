//! Small text helpers every renderer shares: quoting, capping and shortening.

use std::borrow::Cow;

use uidelta_model::{Rect, Role};

/// Longest name or value shown whole in a line; longer ones are cut and
/// their length is given, so one huge text field cannot flood an agent's
/// context.
pub(crate) const SHOWN_CHARS: usize = 200;

/// Longest name shown whole where an element is mentioned rather than
/// introduced: as the context of a change, in a list of elements, on a
/// line about an element that changed or went away. The agent has read the
/// whole name before; its start and the ref are enough.
pub(crate) const MENTION_CHARS: usize = 40;

/// Characters of unchanged text kept on each side of a change.
const CHANGE_WINDOW: usize = 20;

/// The ellipsis that marks cut text.
const ELLIPSIS: char = '…';

use uidelta_model::push_printable as push_shown;

/// `text` in double quotes, with `"` and `\` escaped, and line breaks,
/// tabs and the characters that would act on a terminal (see [`uidelta_model::is_inert`])
/// written as escapes (`\n`, `\t`, `\u{1b}`, `\u{202e}`), so that every
/// element stays on one line and shows as what it is.
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => push_shown(&mut out, c),
        }
    }
    out.push('"');
    out
}

/// `text` unquoted, with line breaks, tabs and the characters that would
/// act on a terminal written as escapes, as [`quote`] does: for formats
/// that print text unquoted (window titles, application names, platform
/// role names) but still need one element per line.
pub(crate) use uidelta_model::printable as shown;

/// `text` quoted; when it is longer than [`SHOWN_CHARS`], only its start is
/// shown, followed by its total length: `"Lorem ipsum…" (1234 chars)`.
pub(crate) fn quote_capped(text: &str) -> String {
    let total = text.chars().count();
    if total <= SHOWN_CHARS {
        return quote(text);
    }
    let mut start: String = text.chars().take(SHOWN_CHARS).collect();
    start.push(ELLIPSIS);
    format!("{} ({total} chars)", quote(&start))
}

/// `text` quoted, cut to [`MENTION_CHARS`] with `…` when longer; the cut
/// falls between words when a word boundary is in the second half.
pub(crate) fn quote_brief(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= MENTION_CHARS {
        return quote(text);
    }
    let mut end = MENTION_CHARS - 1;
    if !chars[end].is_whitespace() {
        if let Some(space) = chars[MENTION_CHARS / 2..end]
            .iter()
            .rposition(|c| c.is_whitespace())
        {
            end = MENTION_CHARS / 2 + space;
        }
    }
    let mut start: String = chars[..end].iter().collect();
    start.truncate(start.trim_end().len());
    start.push(ELLIPSIS);
    quote(&start)
}

/// The role as rendered: the normalized name, or the platform's own name
/// when the role is not one we know (escaped as [`shown`] does: it comes
/// from the application, or from a file).
pub(crate) fn role_label(role: Role, raw_role: &str) -> Cow<'_, str> {
    if role == Role::Unknown && !raw_role.is_empty() {
        shown(raw_role)
    } else {
        Cow::Borrowed(role.as_str())
    }
}

/// Bounds as `@x,y wxh`.
pub(crate) fn rect_text(r: Rect) -> String {
    format!("@{},{} {}x{}", r.x, r.y, r.w, r.h)
}

/// Shortens an old and a new text around the parts that changed, when
/// either is longer than `limit` characters: about [`CHANGE_WINDOW`]
/// unchanged characters stay on each side of a change, cut text is marked
/// with `…`, and a changed part longer than `limit` is itself cut. Texts
/// that changed in two or three places (a title that gained a `*` in front
/// and a new size at its end) keep each change, the long unchanged text
/// between them cut. The old side of a long change (a text replaced by
/// another) is cut sooner, at a quarter of `limit`: the agent has read it
/// before, and its start is enough to recognize it. Texts that both fit
/// come back whole. The new side is kept up to `new_limit` characters: a
/// terminal's new screen is what a command printed, and the reader came
/// for it.
pub(crate) fn shorten_change(
    old: &str,
    new: &str,
    limit: usize,
    new_limit: usize,
) -> (String, String) {
    let old: Vec<char> = old.chars().collect();
    let new: Vec<char> = new.chars().collect();
    if old.len() <= limit && new.len() <= new_limit {
        return (old.iter().collect(), new.iter().collect());
    }
    let mut runs = Vec::new();
    shared_runs(&old, &new, (0, 0), &mut runs);
    let changes = changed_parts(&runs, old.len(), new.len());
    if changes.len() > MOST_CHANGES {
        // Changed all over: one change from the first to the last.
        let prefix = common_prefix(&old, &new);
        let suffix = common_suffix(&old[prefix..], &new[prefix..]);
        runs.clear();
        if prefix > 0 {
            runs.push((0, 0, prefix));
        }
        if suffix > 0 {
            runs.push((old.len() - suffix, new.len() - suffix, suffix));
        }
    }
    let old_changed: usize = changed_parts(&runs, old.len(), new.len())
        .iter()
        .map(|&(o, _)| o)
        .sum();
    let old_limit = if old_changed > limit {
        limit / 4
    } else {
        limit
    };
    // A shared run at the start (or end) of both texts has no change
    // before (or after) it on either side: only its end (or start) shows.
    let sides = |side: fn(&(usize, usize, usize)) -> usize| -> Vec<Shared> {
        runs.iter()
            .map(|r| Shared {
                start: side(r),
                len: r.2,
                first: r.0 == 0 && r.1 == 0,
                last: r.0 + r.2 == old.len() && r.1 + r.2 == new.len(),
            })
            .collect()
    };
    (
        excerpt(&old, &sides(|r| r.0), old_limit),
        excerpt(&new, &sides(|r| r.1), new_limit),
    )
}

/// Most changed places kept apart in one text (see [`shorten_change`]).
const MOST_CHANGES: usize = 3;

/// Shared text inside a changed middle is kept apart only when longer than
/// this: shorter, it would be shown whole anyway.
const LEAST_SHARED: usize = 2 * CHANGE_WINDOW + 1;

/// Most characters of the two changed middles multiplied together for the
/// shared text in them to be looked for (a table of that many cells).
const MOST_COMPARED: usize = 4_000_000;

/// The runs of text `a` and `b` share, in order (start in `a`, start in `b`,
/// length, offsets added): the common prefix and suffix, and in between
/// the longest common run of at least [`LEAST_SHARED`] characters, then
/// again on each side of it.
fn shared_runs(a: &[char], b: &[char], at: (usize, usize), out: &mut Vec<(usize, usize, usize)>) {
    let prefix = common_prefix(a, b);
    let suffix = common_suffix(&a[prefix..], &b[prefix..]);
    if prefix > 0 {
        out.push((at.0, at.1, prefix));
    }
    let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mid_at = (at.0 + prefix, at.1 + prefix);
    // Past more places than are kept apart, the search stops: the text
    // reads as changed all over (see `shorten_change`).
    let searched = out.len() <= 2 * MOST_CHANGES + 2;
    if let Some((i, j, len)) = searched.then(|| longest_common_run(a_mid, b_mid)).flatten() {
        shared_runs(&a_mid[..i], &b_mid[..j], mid_at, out);
        out.push((mid_at.0 + i, mid_at.1 + j, len));
        shared_runs(
            &a_mid[i + len..],
            &b_mid[j + len..],
            (mid_at.0 + i + len, mid_at.1 + j + len),
            out,
        );
    }
    if suffix > 0 {
        out.push((at.0 + a.len() - suffix, at.1 + b.len() - suffix, suffix));
    }
}

/// The longest run of characters `a` and `b` share, when it is at least
/// [`LEAST_SHARED`] long: start in `a`, start in `b`, length.
fn longest_common_run(a: &[char], b: &[char]) -> Option<(usize, usize, usize)> {
    if a.len() < LEAST_SHARED
        || b.len() < LEAST_SHARED
        || a.len().saturating_mul(b.len()) > MOST_COMPARED
    {
        return None;
    }
    let mut best = (0, 0, 0);
    let mut previous = vec![0usize; b.len() + 1];
    let mut current = vec![0usize; b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            current[j + 1] = if x == y { previous[j] + 1 } else { 0 };
            if current[j + 1] > best.2 {
                best = (
                    i + 1 - current[j + 1],
                    j + 1 - current[j + 1],
                    current[j + 1],
                );
            }
        }
        std::mem::swap(&mut previous, &mut current);
    }
    (best.2 >= LEAST_SHARED).then_some(best)
}

/// The lengths of the changed parts between shared runs, old and new side.
fn changed_parts(runs: &[(usize, usize, usize)], old: usize, new: usize) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let mut at = (0, 0);
    for &(o, n, len) in runs.iter().chain([&(old, new, 0)]) {
        if o > at.0 || n > at.1 {
            parts.push((o - at.0, n - at.1));
        }
        at = (o + len, n + len);
    }
    parts
}

fn common_prefix(a: &[char], b: &[char]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn common_suffix(a: &[char], b: &[char]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// A run of text shared by the old and the new side, on one side.
struct Shared {
    start: usize,
    len: usize,
    /// Both texts begin with it: nothing changed before it.
    first: bool,
    /// Both texts end with it: nothing changed after it.
    last: bool,
}

/// `text` with its changed parts (between the shared `runs`) kept, each
/// cut at `limit`, and of each shared run a window of [`CHANGE_WINDOW`]
/// characters next to a change.
fn excerpt(text: &[char], runs: &[Shared], limit: usize) -> String {
    let mut out = String::new();
    let mut at = 0;
    for &Shared {
        start,
        len,
        first,
        last,
    } in runs
    {
        changed(&mut out, &text[at..start], limit);
        let shared = &text[start..start + len];
        match (first, last) {
            _ if len <= CHANGE_WINDOW => out.extend(shared),
            (true, true) => out.extend(shared),
            (true, false) => {
                out.push(ELLIPSIS);
                out.extend(&shared[len - CHANGE_WINDOW..]);
            }
            (false, true) => {
                out.extend(&shared[..CHANGE_WINDOW]);
                out.push(ELLIPSIS);
            }
            (false, false) if len <= 2 * CHANGE_WINDOW => out.extend(shared),
            (false, false) => {
                out.extend(&shared[..CHANGE_WINDOW]);
                out.push(ELLIPSIS);
                out.extend(&shared[len - CHANGE_WINDOW..]);
            }
        }
        at = start + len;
    }
    changed(&mut out, &text[at..], limit);
    out
}

/// A changed part, cut at `limit`.
fn changed(out: &mut String, part: &[char], limit: usize) {
    if part.len() > limit {
        out.extend(&part[..limit]);
        out.push(ELLIPSIS);
    } else {
        out.extend(part);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_escapes_quotes_backslashes_and_line_breaks() {
        assert_eq!(quote("Save"), r#""Save""#);
        assert_eq!(quote(""), r#""""#);
        assert_eq!(quote(r#"say "hi""#), r#""say \"hi\"""#);
        assert_eq!(quote(r"C:\temp"), r#""C:\\temp""#);
        assert_eq!(quote("one\ntwo\r\n"), r#""one\ntwo\r\n""#);
        assert_eq!(quote("…ünï"), "\"…ünï\"");
    }

    #[test]
    fn characters_that_act_on_a_terminal_are_escaped() {
        assert_eq!(quote("\u{1b}[31mred\u{0}"), r#""\u{1b}[31mred\u{0}""#);
        assert_eq!(quote("tab\there"), r#""tab\there""#);
        assert_eq!(quote("\u{7f}\u{85}\u{9b}"), r#""\u{7f}\u{85}\u{9b}""#);
        assert_eq!(
            quote("a\u{202e}b\u{2066}c\u{2069}\u{200e}\u{200f}\u{61c}"),
            r#""a\u{202e}b\u{2066}c\u{2069}\u{200e}\u{200f}\u{61c}""#
        );
        // Letters, marks and joiners that only show are kept.
        assert_eq!(quote("ünï 日本 👩\u{200d}💻"), "\"ünï 日本 👩\u{200d}💻\"");
        assert_eq!(shown("AX\u{1b}[2J\nx\ty"), r"AX\u{1b}[2J\nx\ty");
        assert!(matches!(shown("plain"), Cow::Borrowed("plain")));
        // Escaped text is cut like any other; its length is the original's.
        let long = format!("{}\u{1b}", "x".repeat(SHOWN_CHARS));
        assert_eq!(
            quote_capped(&long),
            format!(
                "\"{}…\" ({} chars)",
                "x".repeat(SHOWN_CHARS),
                SHOWN_CHARS + 1
            )
        );
    }

    #[test]
    fn long_texts_are_capped_with_their_length() {
        assert_eq!(quote_capped("short"), r#""short""#);
        let exact = "x".repeat(SHOWN_CHARS);
        assert_eq!(quote_capped(&exact), quote(&exact));
        let long = "é".repeat(1234);
        let shown = quote_capped(&long);
        assert_eq!(
            shown,
            format!("\"{}…\" (1234 chars)", "é".repeat(SHOWN_CHARS))
        );
    }

    #[test]
    fn mentions_cut_long_names() {
        assert_eq!(quote_brief("Save"), "\"Save\"");
        let forty = "a".repeat(40);
        assert_eq!(quote_brief(&forty), format!("\"{forty}\""));
        assert_eq!(
            quote_brief("This is optional data, you may continue even if you do not check this"),
            "\"This is optional data, you may continue…\""
        );
        assert_eq!(
            quote_brief("You must fill out this entry to continue:"),
            "\"You must fill out this entry to…\""
        );
        let word = "x".repeat(50);
        assert_eq!(quote_brief(&word), format!("\"{}…\"", "x".repeat(39)));
        assert_eq!(
            quote_brief("Gear for walking, camping and paddling, tested on our own trips."),
            "\"Gear for walking, camping and paddling,…\""
        );
    }

    #[test]
    fn short_changes_come_back_whole() {
        assert_eq!(
            shorten_change("Save", "Saved", 80, 80),
            ("Save".to_owned(), "Saved".to_owned())
        );
    }

    #[test]
    fn long_changes_keep_a_window_around_the_change() {
        let (a, b) = ("a".repeat(50), "b".repeat(50));
        let (o, n) = shorten_change(&format!("{a}cold{b}"), &format!("{a}warm{b}"), 80, 80);
        let (a20, b20) = ("a".repeat(20), "b".repeat(20));
        assert_eq!(o, format!("…{a20}cold{b20}…"));
        assert_eq!(n, format!("…{a20}warm{b20}…"));
    }

    #[test]
    fn an_insertion_shows_only_the_inserted_part_with_its_window() {
        let (a, b) = ("a".repeat(50), "b".repeat(50));
        let (o, n) = shorten_change(&format!("{a}{b}"), &format!("{a}NEW{b}"), 80, 80);
        let (a20, b20) = ("a".repeat(20), "b".repeat(20));
        assert_eq!(o, format!("…{a20}{b20}…"));
        assert_eq!(n, format!("…{a20}NEW{b20}…"));
    }

    #[test]
    fn a_change_at_the_start_has_no_leading_ellipsis() {
        let tail = "y".repeat(100);
        let (o, n) = shorten_change(&format!("a{tail}"), &format!("b{tail}"), 80, 80);
        assert_eq!(o, format!("a{}…", "y".repeat(20)));
        assert_eq!(n, format!("b{}…", "y".repeat(20)));
    }

    #[test]
    fn a_huge_inserted_text_is_cut_to_the_limit() {
        let huge = "z".repeat(500);
        let (o, n) = shorten_change("", &huge, 80, 80);
        assert_eq!(o, "");
        assert_eq!(n, format!("{}…", "z".repeat(80)));
    }

    #[test]
    fn a_replaced_long_text_shows_less_of_the_old_side() {
        let old = format!("Application Class\n{}", "o".repeat(100));
        let new = format!("Button Boxes\n{}", "n".repeat(100));
        let (o, n) = shorten_change(&old, &new, 80, 80);
        assert_eq!(o, "Application Class\noo…");
        assert_eq!(n, format!("Button Boxes\n{}…", "n".repeat(67)));
    }

    #[test]
    fn a_title_changed_at_both_ends_keeps_both_changes() {
        let middle = "(imported)-1.0 (RGB color 8-bit gamma integer, GIMP built-in sRGB, 1 layer)";
        let old = format!("[photo] {middle} 120x80 – GIMP");
        let new = format!("*[photo] {middle} 60x40 – GIMP");
        let (o, n) = shorten_change(&old, &new, 80, 80);
        assert_eq!(o, "[photo] (imported)-1…t-in sRGB, 1 layer) 120x80 – GIMP");
        assert_eq!(n, "*[photo] (imported)-1…t-in sRGB, 1 layer) 60x40 – GIMP");
    }

    #[test]
    fn a_text_changed_all_over_is_one_change() {
        let shared = "s".repeat(50);
        let (old, new) = (
            format!("a{shared}b{shared}c{shared}d{shared}e"),
            format!("A{shared}B{shared}C{shared}D{shared}E"),
        );
        let (o, n) = shorten_change(&old, &new, 80, 80);
        assert_eq!(o, format!("{}…", &old[..20]));
        assert_eq!(n, format!("{}…", &new[..80]));
    }

    #[test]
    fn unknown_roles_show_the_platform_name() {
        assert_eq!(role_label(Role::PushButton, "Button"), "push button");
        assert_eq!(role_label(Role::Unknown, "AXWeird"), "AXWeird");
        assert_eq!(role_label(Role::Unknown, ""), "unknown");
    }
}
