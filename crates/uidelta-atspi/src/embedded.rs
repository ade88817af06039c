//! Embedded objects in text read through AT-SPI.
//!
//! AT-SPI's Text interface stands for each child object embedded in a text
//! (a link, an image, a whole paragraph of a document) with one U+FFFC
//! OBJECT REPLACEMENT CHARACTER, in every toolkit that implements it. The
//! children are in the tree themselves; the characters only say that they
//! are there, and a document whose text goes from three of them to four is
//! no change worth a line.

/// What stands for one embedded object in an AT-SPI text.
const OBJECT_REPLACEMENT: char = '\u{fffc}';

/// `value` without object replacement characters; a text that was nothing
/// but them is no value at all. An empty text stays empty (an empty field
/// has a value: nothing).
pub(crate) fn without_embedded_objects(value: Option<String>) -> Option<String> {
    let text = value?;
    if !text.contains(OBJECT_REPLACEMENT) {
        return Some(text);
    }
    let rest: String = text.chars().filter(|&c| c != OBJECT_REPLACEMENT).collect();
    (!rest.is_empty()).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cleaned(text: &str) -> Option<String> {
        without_embedded_objects(Some(text.to_owned()))
    }

    #[test]
    fn object_replacement_characters_are_no_text() {
        assert_eq!(cleaned("\u{fffc}\u{fffc}\u{fffc}"), None);
        assert_eq!(cleaned("\u{fffc}"), None);
        assert_eq!(
            cleaned("See \u{fffc} for \u{fffc}details"),
            Some("See  for details".to_owned())
        );
        assert_eq!(cleaned("plain"), Some("plain".to_owned()));
        assert_eq!(cleaned(""), Some(String::new()));
        assert_eq!(without_embedded_objects(None), None);
    }
}
