//! A small XML 1.0 scanner: the part of XML that accessibility-tree dumps
//! use, read without recursion and without a DTD.
//!
//! It hands out start tags (with their attributes, entities decoded), end
//! tags and character data, and skips comments, processing instructions and
//! the XML declaration. Anything else (a document type declaration, an
//! entity other than the five predefined ones, a character XML does not
//! allow) is a [`Failure`] at the byte where it starts. Matching end tags to
//! start tags is the caller's job.

use std::borrow::Cow;

/// What went wrong, and at which byte of the text.
#[derive(Debug)]
pub(super) struct Failure {
    pub(super) at: usize,
    pub(super) message: String,
}

pub(super) type Result<T> = std::result::Result<T, Failure>;

pub(super) fn fail<T>(at: usize, message: impl Into<String>) -> Result<T> {
    Err(Failure {
        at,
        message: message.into(),
    })
}

/// One attribute of a start tag.
#[derive(Debug)]
pub(super) struct Attribute<'a> {
    /// The qualified name as written (`st:focused`, `name`).
    pub(super) name: &'a str,
    /// Byte offset of the name.
    pub(super) at: usize,
    /// The value, entities decoded and whitespace normalized.
    pub(super) value: Cow<'a, str>,
    /// Byte offset of the value's first character (after the quote).
    pub(super) value_at: usize,
}

/// One piece of the document.
#[derive(Debug)]
pub(super) enum Event<'a> {
    /// `<name ...>` or `<name .../>` (`empty`).
    Open {
        name: &'a str,
        at: usize,
        attributes: Vec<Attribute<'a>>,
        empty: bool,
    },
    /// `</name>`.
    Close { name: &'a str, at: usize },
    /// Character data or a CDATA section, decoded, line ends as `\n`.
    Text { text: Cow<'a, str>, at: usize },
}

/// Reads a document piece by piece.
pub(super) struct Scanner<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    pub(super) fn new(text: &'a str) -> Scanner<'a> {
        Scanner { text, pos: 0 }
    }

    /// The next piece, or `None` at the end of the text.
    pub(super) fn next_event(&mut self) -> Result<Option<Event<'a>>> {
        loop {
            let rest = &self.text[self.pos..];
            if rest.is_empty() {
                return Ok(None);
            }
            if rest.starts_with("<!--") {
                self.skip_past("-->", "the comment is not closed with `-->`")?;
            } else if rest.starts_with("<?") {
                self.skip_past("?>", "the processing instruction is not closed with `?>`")?;
            } else if let Some(body) = rest.strip_prefix("<![CDATA[") {
                let at = self.pos;
                let Some(end) = body.find("]]>") else {
                    return fail(at, "the CDATA section is not closed with `]]>`");
                };
                let start = at + "<![CDATA[".len();
                self.pos = start + end + "]]>".len();
                let text = check_characters(&body[..end], start)?;
                return Ok(Some(Event::Text {
                    text: normalize_line_ends(text),
                    at,
                }));
            } else if rest.starts_with("<!DOCTYPE") {
                return fail(
                    self.pos,
                    "a document type declaration (`<!DOCTYPE`) is not read",
                );
            } else if rest.starts_with("<!") {
                return fail(self.pos, "expected a comment or a CDATA section after `<!`");
            } else if rest.starts_with("</") {
                return self.close_tag().map(Some);
            } else if rest.starts_with('<') {
                return self.open_tag().map(Some);
            } else {
                let at = self.pos;
                let end = rest.find('<').map_or(self.text.len(), |i| at + i);
                self.pos = end;
                let text = decode(&self.text[at..end], at, false)?;
                return Ok(Some(Event::Text { text, at }));
            }
        }
    }

    fn skip_past(&mut self, end: &str, message: &str) -> Result<()> {
        match self.text[self.pos..].find(end) {
            Some(i) => {
                self.pos += i + end.len();
                Ok(())
            }
            None => fail(self.pos, message),
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    /// Skips XML whitespace; whether there was any.
    fn skip_space(&mut self) -> bool {
        let rest = &self.text[self.pos..];
        let trimmed = rest.trim_start_matches(is_space);
        self.pos += rest.len() - trimmed.len();
        trimmed.len() != rest.len()
    }

    /// A name at the current position (`what` says what was expected).
    fn name(&mut self, what: &str) -> Result<&'a str> {
        let text = self.text;
        let rest = &text[self.pos..];
        let mut end = 0;
        for (i, c) in rest.char_indices() {
            let ok = if i == 0 {
                is_name_start(c)
            } else {
                is_name_char(c)
            };
            if !ok {
                break;
            }
            end = i + c.len_utf8();
        }
        if end == 0 {
            return fail(self.pos, format!("expected {what}"));
        }
        let start = self.pos;
        self.pos += end;
        Ok(&text[start..start + end])
    }

    fn expect(&mut self, c: char, message: &str) -> Result<()> {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            Ok(())
        } else {
            fail(self.pos, message)
        }
    }

    fn close_tag(&mut self) -> Result<Event<'a>> {
        let at = self.pos;
        self.pos += 2;
        let name = self.name("an element name after `</`")?;
        self.skip_space();
        self.expect('>', "expected `>` to end the end tag")?;
        Ok(Event::Close { name, at })
    }

    fn open_tag(&mut self) -> Result<Event<'a>> {
        let at = self.pos;
        self.pos += 1;
        let name = self.name("an element name after `<`")?;
        let mut attributes: Vec<Attribute<'a>> = Vec::new();
        loop {
            let spaced = self.skip_space();
            match self.peek() {
                Some('>') => {
                    self.pos += 1;
                    break;
                }
                Some('/') => {
                    self.pos += 1;
                    self.expect('>', "expected `>` after `/` to end the empty element")?;
                    check_unique(&attributes)?;
                    return Ok(Event::Open {
                        name,
                        at,
                        attributes,
                        empty: true,
                    });
                }
                None => return fail(at, format!("the start tag `<{name}` is not closed")),
                Some(_) if !spaced => {
                    return fail(
                        self.pos,
                        "expected whitespace, `>` or `/>` after the element name or an attribute",
                    )
                }
                Some(_) => attributes.push(self.attribute()?),
            }
        }
        check_unique(&attributes)?;
        Ok(Event::Open {
            name,
            at,
            attributes,
            empty: false,
        })
    }

    fn attribute(&mut self) -> Result<Attribute<'a>> {
        let at = self.pos;
        let name = self.name("an attribute name")?;
        self.skip_space();
        self.expect(
            '=',
            &format!("expected `=` after the attribute name `{name}`"),
        )?;
        self.skip_space();
        let quote = match self.peek() {
            Some(q @ ('"' | '\'')) => q,
            _ => {
                return fail(
                    self.pos,
                    format!("expected the value of `{name}` in quotes"),
                )
            }
        };
        let value_at = self.pos + 1;
        let Some(len) = self.text[value_at..].find(quote) else {
            return fail(
                self.pos,
                format!("the value of `{name}` has no closing quote"),
            );
        };
        let raw = &self.text[value_at..value_at + len];
        if let Some(lt) = raw.find('<') {
            return fail(value_at + lt, "`<` is not allowed in an attribute value");
        }
        self.pos = value_at + len + 1;
        Ok(Attribute {
            name,
            at,
            value: decode(raw, value_at, true)?,
            value_at,
        })
    }
}

/// An attribute given twice in one tag is not well-formed XML. Sorting
/// keeps a tag with thousands of attributes from costing quadratic time.
fn check_unique(attributes: &[Attribute<'_>]) -> Result<()> {
    let mut names: Vec<(&str, usize)> = attributes.iter().map(|a| (a.name, a.at)).collect();
    names.sort_unstable();
    let repeated = names
        .windows(2)
        .filter(|pair| pair[0].0 == pair[1].0)
        .map(|pair| pair[0].1.max(pair[1].1))
        .min();
    match repeated {
        Some(at) => {
            let name = attributes
                .iter()
                .find(|a| a.at == at)
                .map_or("", |a| a.name);
            fail(at, format!("the attribute `{name}` is given twice"))
        }
        None => Ok(()),
    }
}

/// XML's whitespace: space, tab, line feed, carriage return.
pub(super) fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Whether `text` is empty or XML whitespace only.
pub(super) fn is_blank(text: &str) -> bool {
    text.chars().all(is_space)
}

/// XML 1.0's `NameStartChar`.
fn is_name_start(c: char) -> bool {
    matches!(c,
        ':' | 'A'..='Z' | '_' | 'a'..='z'
        | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}' | '\u{F8}'..='\u{2FF}'
        | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}' | '\u{200C}'..='\u{200D}'
        | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}' | '\u{3001}'..='\u{D7FF}'
        | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}' | '\u{10000}'..='\u{EFFFF}')
}

/// XML 1.0's `NameChar`.
fn is_name_char(c: char) -> bool {
    is_name_start(c)
        || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

/// XML 1.0's `Char`: what a document may hold, raw or as a reference.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

fn check_characters(text: &str, at: usize) -> Result<&str> {
    match text.char_indices().find(|&(_, c)| !is_xml_char(c)) {
        Some((i, c)) => fail(
            at + i,
            format!("the character U+{:04X} is not allowed in XML", u32::from(c)),
        ),
        None => Ok(text),
    }
}

/// `\r\n` and a lone `\r` are line ends, read as `\n`.
fn normalize_line_ends(text: &str) -> Cow<'_, str> {
    if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// Decodes character data or an attribute value (`attribute`: literal tabs
/// and line ends become spaces, as XML's attribute-value normalization
/// says; references to them stay what they are).
fn decode(raw: &str, at: usize, attribute: bool) -> Result<Cow<'_, str>> {
    check_characters(raw, at)?;
    let needs_work = raw.contains(['&', '\r']) || (attribute && raw.contains(['\t', '\n']));
    if !needs_work {
        return Ok(Cow::Borrowed(raw));
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    let mut offset = at;
    while let Some(c) = rest.chars().next() {
        match c {
            '&' => {
                let Some(semicolon) = rest.find(';').filter(|&i| i <= 12) else {
                    return fail(
                        offset,
                        "`&` starts no reference: write `&amp;` for an ampersand",
                    );
                };
                out.push(reference(&rest[1..semicolon], offset)?);
                offset += semicolon + 1;
                rest = &rest[semicolon + 1..];
                continue;
            }
            '\r' => {
                out.push(if attribute { ' ' } else { '\n' });
                if rest[1..].starts_with('\n') {
                    offset += 1;
                    rest = &rest[1..];
                }
            }
            '\t' | '\n' if attribute => out.push(' '),
            _ => out.push(c),
        }
        offset += c.len_utf8();
        rest = &rest[c.len_utf8()..];
    }
    Ok(Cow::Owned(out))
}

/// The character a reference (`amp`, `#10`, `#x1F600`) stands for.
fn reference(name: &str, at: usize) -> Result<char> {
    let named = match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => None,
    };
    if let Some(c) = named {
        return Ok(c);
    }
    let code = if let Some(hex) = name.strip_prefix("#x") {
        (!hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(hex, 16).ok())
            .flatten()
    } else if let Some(digits) = name.strip_prefix('#') {
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse::<u32>().ok())
            .flatten()
    } else {
        return fail(
            at,
            format!("unknown entity `&{name};`: only `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;` and character references are read"),
        );
    };
    match code.and_then(char::from_u32).filter(|&c| is_xml_char(c)) {
        Some(c) => Ok(c),
        None => fail(at, format!("`&{name};` is not a character XML allows")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Vec<String> {
        let mut scanner = Scanner::new(text);
        let mut out = Vec::new();
        loop {
            match scanner.next_event() {
                Ok(Some(Event::Open {
                    name,
                    attributes,
                    empty,
                    ..
                })) => {
                    let attrs: Vec<String> = attributes
                        .iter()
                        .map(|a| format!("{}={:?}", a.name, a.value))
                        .collect();
                    out.push(format!(
                        "<{name} {}{}>",
                        attrs.join(" "),
                        if empty { "/" } else { "" }
                    ));
                }
                Ok(Some(Event::Close { name, .. })) => out.push(format!("</{name}>")),
                Ok(Some(Event::Text { text, .. })) => out.push(format!("{text:?}")),
                Ok(None) => return out,
                Err(f) => {
                    out.push(format!("error at {}: {}", f.at, f.message));
                    return out;
                }
            }
        }
    }

    #[test]
    fn scans_tags_attributes_text_and_skips_comments() {
        assert_eq!(
            events("<?xml version=\"1.0\"?><!-- c --><a x='1' y = \"&lt;&#10;&#x41;\"\n>t&amp;u<b/><![CDATA[<raw>]]></a >"),
            vec![
                "<a x=\"1\" y=\"<\\nA\">",
                "\"t&u\"",
                "<b />",
                "\"<raw>\"",
                "</a>",
            ]
        );
    }

    #[test]
    fn normalizes_line_ends_and_attribute_whitespace() {
        assert_eq!(
            events("<a v=\"x\ty\r\nz\">1\r\n2\r3</a>"),
            vec!["<a v=\"x y z\">", "\"1\\n2\\n3\"", "</a>"]
        );
    }

    #[test]
    fn malformed_markup_fails_where_it_starts() {
        let cases: &[(&str, &str)] = &[
            ("<a x=1/>", "error at 5: expected the value of `x` in quotes"),
            ("<a x='1' x='2'/>", "error at 9: the attribute `x` is given twice"),
            ("<a x='1'y='2'/>", "error at 8: expected whitespace, `>` or `/>` after the element name or an attribute"),
            ("<a>&nbsp;</a>", "error at 3: unknown entity `&nbsp;`: only `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;` and character references are read"),
            ("<a>AT&T</a>", "error at 5: `&` starts no reference: write `&amp;` for an ampersand"),
            ("<a>&#0;</a>", "error at 3: `&#0;` is not a character XML allows"),
            ("<a>\u{1}</a>", "error at 3: the character U+0001 is not allowed in XML"),
            ("<!DOCTYPE a><a/>", "error at 0: a document type declaration (`<!DOCTYPE`) is not read"),
            ("<a x='<'/>", "error at 6: `<` is not allowed in an attribute value"),
            ("<a x='1", "error at 5: the value of `x` has no closing quote"),
            ("<a", "error at 0: the start tag `<a` is not closed"),
            ("<1/>", "error at 1: expected an element name after `<`"),
            ("<!-- x", "error at 0: the comment is not closed with `-->`"),
            ("</a", "error at 3: expected `>` to end the end tag"),
        ];
        for (text, expected) in cases {
            assert_eq!(
                events(text).last().map(String::as_str),
                Some(*expected),
                "{text:?}"
            );
        }
    }
}
