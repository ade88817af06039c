//! Text from applications as it may be printed: names, values and titles
//! are not trusted to be free of characters that act on a terminal.

use std::borrow::Cow;

/// Whether `c` shows as itself rather than act on a terminal or on the
/// text around it: not one of the C0 and C1 control characters and DEL
/// (ESC starts the sequences that move the cursor, recolour or retitle a
/// terminal), nor one of the bidirectional formatting characters
/// (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), which reorder
/// what follows them on the line.
pub fn is_inert(c: char) -> bool {
    !(c.is_control()
        || matches!(
            c,
            '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        ))
}

/// Pushes `c`, written as `\n`, `\r`, `\t` or `\u{1b}` (Rust's escapes,
/// hexadecimal code point) when it is not [`is_inert`].
pub fn push_printable(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if !is_inert(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
        c => out.push(c),
    }
}

/// `text` with line breaks, tabs and the characters that would act on a
/// terminal written as escapes (see [`push_printable`]): one line that
/// shows as what it is. Borrowed when there is nothing to escape.
pub fn printable(text: &str) -> Cow<'_, str> {
    if text.chars().all(|c| is_inert(c) && c != '\t') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_printable(&mut out, c);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn controls_and_bidi_overrides_are_escaped_and_the_rest_kept() {
        assert_eq!(printable("gedit — ünïcode"), "gedit — ünïcode");
        assert_eq!(printable("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(printable("x\u{202e}y\tz\n"), "x\\u{202e}y\\tz\\n");
        assert_eq!(printable("\u{0}\u{7f}\u{9b}"), "\\u{0}\\u{7f}\\u{9b}");
    }
}
