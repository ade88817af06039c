//! Reading snapshots from text.
//!
//! `uidelta diff before.json after.json` compares snapshots that somebody
//! else produced: a script that dumped UIA or AX as the interchange JSON, a
//! snapshot uidelta saved earlier, the compact YAML that terminator prints,
//! the accessibility-tree XML an OSWorld harness records, or the traversal
//! JSON of mcp-server-macos-use. This crate turns such text into a
//! [`Snapshot`]. It is pure (it takes
//! `&str` and does no I/O), and it never panics and never overflows the stack
//! on any input: malformed text of any kind is a [`ParseError`] with a line
//! and a column. The formats are documented in `docs/formats.md`.

use std::fmt;

use uidelta_model::Snapshot;

pub mod json;
pub mod macos_use;
pub mod osworld;
mod position;
pub mod terminator;

/// The deepest tree that is read: at most this many levels of nested nodes
/// (the root is level 1). Deeper input is an error that names the line and
/// column of the first node too deep, never a stack overflow; real
/// accessibility trees stay far below it.
pub const MAX_DEPTH: usize = 1024;

/// The largest tree that is read, in nodes. More is an error: it caps the
/// memory a hostile or runaway input can take (the node records alone are
/// about 200 bytes each, some 400 MB at the cap, before their text).
pub const MAX_NODES: usize = 2_000_000;

/// The largest input text a reader of files should hand to [`parse`] by
/// default, in MiB: this crate does no I/O, but whoever reads the file
/// must stop somewhere, or `/dev/zero` given by mistake takes all of
/// memory before the first character is parsed. Real captures are a few
/// MB (about 300 bytes a node); the `uidelta` command line takes
/// `--max-input-mib` to raise it.
pub const MAX_INPUT_MIB: u64 = 256;

/// The text formats a snapshot can be read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// The interchange JSON: a snapshot object with `root`, or a bare node.
    Json,
    /// terminator's compact YAML: `#1 [Button] Save (bounds: [..], focusable)`.
    Terminator,
    /// OSWorld's accessibility-tree XML: `<push-button name="Save" st:enabled="true" ..>`.
    Osworld,
    /// mcp-server-macos-use's traversal JSON: `{"app_name": .., "elements": [..]}`.
    MacosUse,
}

impl InputFormat {
    /// The name used in error messages and documentation.
    pub const fn label(self) -> &'static str {
        match self {
            InputFormat::Json => "json",
            InputFormat::Terminator => "terminator compact YAML",
            InputFormat::Osworld => "OSWorld XML",
            InputFormat::MacosUse => "macos-use traversal JSON",
        }
    }
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Why a text could not be read as a snapshot, and where.
///
/// The position points at the offending token, or for a problem with a whole
/// node (a missing `role`, a node too deep) at the node's opening `{` or its
/// line. Lines and columns are 1-based; columns count characters, not bytes.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{format} input, line {line}, column {column}: {message}")]
pub struct ParseError {
    /// The format that was being read.
    pub format: InputFormat,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// Guesses the format of `text`, so that callers (the CLI) need no flag for
/// the common case: XML starts with `<`, JSON with `{`, terminator's YAML
/// with neither (its lines start with `#N [` or `- [`). A JSON object whose
/// first telling key is `elements` or `traversal` (rather than `root` or
/// `role`) is macos-use's traversal; only the keys up to that one are read.
pub fn detect(text: &str) -> InputFormat {
    let text = strip_bom(text).trim_start();
    match text.chars().next() {
        Some('<') => InputFormat::Osworld,
        Some('{') if macos_use::looks_like(text) => InputFormat::MacosUse,
        Some('{') => InputFormat::Json,
        _ => InputFormat::Terminator,
    }
}

/// Reads a snapshot in `format`, or in the [`detect`]ed format when `format`
/// is `None`.
pub fn parse(text: &str, format: Option<InputFormat>) -> Result<Snapshot, ParseError> {
    match format.unwrap_or_else(|| detect(text)) {
        InputFormat::Json => json::parse(text),
        InputFormat::Terminator => terminator::parse(text),
        InputFormat::Osworld => osworld::parse(text),
        InputFormat::MacosUse => macos_use::parse(text),
    }
}

/// The caps a parse enforces. Tests lower them to exercise the limits
/// without building two million nodes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) depth: usize,
    pub(crate) nodes: usize,
}

impl Limits {
    pub(crate) const DEFAULT: Limits = Limits {
        depth: MAX_DEPTH,
        nodes: MAX_NODES,
    };
}

/// Editors on Windows (where terminator runs) like to start files with a
/// byte order mark; it is not part of the content.
fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_looks_at_the_first_non_whitespace_character() {
        assert_eq!(detect("  \n {\"role\": \"button\"}"), InputFormat::Json);
        assert_eq!(detect("\u{feff}{}"), InputFormat::Json);
        assert_eq!(detect("#1 [Window] Notepad"), InputFormat::Terminator);
        assert_eq!(detect("- [Pane]"), InputFormat::Terminator);
        assert_eq!(detect(""), InputFormat::Terminator);
        assert_eq!(detect("[1]"), InputFormat::Terminator);
        assert_eq!(detect("\n <desktop-frame/>"), InputFormat::Osworld);
        assert_eq!(
            detect("\u{feff}<?xml version='1.0'?>"),
            InputFormat::Osworld
        );
        assert_eq!(
            detect(r#"{"app_name": "Notes", "elements": []}"#),
            InputFormat::MacosUse
        );
        assert_eq!(
            detect(r#"{"traversalPid": 7, "traversal": {}}"#),
            InputFormat::MacosUse
        );
        assert_eq!(
            detect(r#"{"app": "x", "root": {"role": "frame"}, "elements": []}"#),
            InputFormat::Json
        );
    }

    #[test]
    fn parse_dispatches_on_the_detected_or_given_format() {
        let snap = parse(r#"{"role": "push button", "name": "OK"}"#, None).unwrap();
        assert_eq!(snap.meta.source, "file");
        assert_eq!(snap.tree().node(snap.tree().root()).name, "OK");

        let snap = parse("- [Button] OK", None).unwrap();
        assert_eq!(snap.meta.source, "terminator");
        assert_eq!(snap.tree().node(snap.tree().root()).name, "OK");

        let err = parse("- [Button] OK", Some(InputFormat::Json)).unwrap_err();
        assert_eq!(err.format, InputFormat::Json);
        let err = parse("{}", Some(InputFormat::Terminator)).unwrap_err();
        assert_eq!(err.format, InputFormat::Terminator);

        let snap = parse("<push-button name=\"OK\"/>", None).unwrap();
        assert_eq!(snap.meta.source, "osworld");
        let snap = parse(
            r#"{"elements": [{"role": "AXButton", "text": "OK"}]}"#,
            None,
        )
        .unwrap();
        assert_eq!(snap.meta.source, "macos-use");
        assert_eq!(snap.tree().node(uidelta_model::NodeId(1)).name, "OK");
        let err = parse("{}", Some(InputFormat::MacosUse)).unwrap_err();
        assert_eq!(err.format, InputFormat::MacosUse);
    }

    #[test]
    fn errors_display_format_position_and_message() {
        let err = ParseError {
            format: InputFormat::Terminator,
            line: 3,
            column: 5,
            message: "no elements".into(),
        };
        assert_eq!(
            err.to_string(),
            "terminator compact YAML input, line 3, column 5: no elements"
        );
        let err = ParseError {
            format: InputFormat::Json,
            line: 1,
            column: 2,
            message: "x".into(),
        };
        assert_eq!(err.to_string(), "json input, line 1, column 2: x");
    }
}
