//! How much a rendering costs an agent: bytes and tokens.

/// The size of a text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Size {
    /// UTF-8 bytes.
    pub bytes: usize,
    /// Tokens, as [`count_tokens`] counts them.
    pub tokens: usize,
}

/// Bytes and tokens of `text`.
pub fn size(text: &str) -> Size {
    Size {
        bytes: text.len(),
        tokens: count_tokens(text),
    }
}

/// Tokens of `text` in OpenAI's `o200k_base` encoding, a fair stand-in for
/// what any current model's context pays. The encoding is built once per
/// process on first use (a few hundred milliseconds in release builds). If
/// it cannot be built, or the crate is built without its `tokens` feature
/// (on by default; it brings the encoding's tables), the count is bytes /
/// 4, rounded up; it never panics.
pub fn count_tokens(text: &str) -> usize {
    match encoding::count(text) {
        Some(tokens) => tokens,
        None => text.len().div_ceil(4),
    }
}

#[cfg(feature = "tokens")]
mod encoding {
    use std::sync::OnceLock;

    use tiktoken_rs::CoreBPE;

    /// Tokens of `text`; `None` when the encoding cannot be built.
    pub fn count(text: &str) -> Option<usize> {
        static ENCODING: OnceLock<Option<CoreBPE>> = OnceLock::new();
        ENCODING
            .get_or_init(|| tiktoken_rs::o200k_base().ok())
            .as_ref()
            .map(|bpe| bpe.count_ordinary(text))
    }
}

#[cfg(not(feature = "tokens"))]
mod encoding {
    /// Without the encoding, no count.
    pub fn count(_text: &str) -> Option<usize> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_bytes_and_tokens() {
        assert_eq!(
            size(""),
            Size {
                bytes: 0,
                tokens: 0
            }
        );
        assert_eq!(
            size("hello world"),
            Size {
                bytes: 11,
                tokens: 2
            }
        );
        let line = "[e12] push button \"Save\" (focused, disabled)\n";
        let s = size(line);
        assert_eq!(s.bytes, line.len());
        assert!(s.tokens > 5 && s.tokens < s.bytes, "{s:?}");
        assert_eq!(count_tokens("é"), size("é").tokens);
    }
}
