//! Arbitrary bytes, as (lossy) UTF-8, into the reader of
//! mcp-server-macos-use's traversal JSON: no panic, and either a flat
//! snapshot (one application node, every element its child) or an error
//! that points into the text.
#![no_main]

mod check;

use libfuzzer_sys::fuzz_target;
use uidelta_formats::{macos_use, parse, InputFormat};
use uidelta_model::NodeId;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let result = macos_use::parse(&text);
    match &result {
        Ok(snap) => {
            check::snapshot(snap, 1);
            assert_eq!(snap.meta.source, "macos-use");
            let tree = snap.tree();
            assert_eq!(tree.children(NodeId::ROOT).len() + 1, tree.len());
            // What is accepted is JSON, as serde_json's own skipper sees it.
            let json = text.strip_prefix('\u{feff}').unwrap_or(&text);
            if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(json) {
                panic!("accepted what serde_json rejects: {err}");
            }
        }
        Err(err) => {
            assert_eq!(err.format, InputFormat::MacosUse);
            check::error(err, &text);
        }
    }
    assert_eq!(parse(&text, Some(InputFormat::MacosUse)), result);
});
