//! Byte offsets to the line and column an error message shows.
//!
//! Lines count `\n`; columns count characters (not bytes), so that a
//! position in a line with non-ASCII names matches what an editor shows.

/// Line and column, both 1-based, of the character that starts at or
/// contains byte `offset`. An offset at or past the end points just after
/// the last character.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = 1 + before.bytes().filter(|&b| b == b'\n').count();
    let column = 1 + before[line_start..].chars().count();
    (line, column)
}

/// Byte offset where 1-based `line` starts; the end of the text when it has
/// fewer lines.
pub(crate) fn line_start(text: &str, line: usize) -> usize {
    if line <= 1 {
        return 0;
    }
    text.match_indices('\n')
        .nth(line - 2)
        .map_or(text.len(), |(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters() {
        let text = "ab\nçé{x\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 2), (1, 3));
        assert_eq!(line_column(text, 3), (2, 1));
        // `{` is the third character of line 2 but its sixth byte.
        assert_eq!(line_column(text, 7), (2, 3));
        // Inside `é`: the character that contains the byte.
        assert_eq!(line_column(text, 6), (2, 2));
        assert_eq!(line_column(text, 100), (3, 1));
    }

    #[test]
    fn line_starts() {
        let text = "ab\ncd\n";
        assert_eq!(line_start(text, 0), 0);
        assert_eq!(line_start(text, 1), 0);
        assert_eq!(line_start(text, 2), 3);
        assert_eq!(line_start(text, 3), 6);
        assert_eq!(line_start(text, 9), 6);
    }
}
