//! Arbitrary bytes, as (lossy) UTF-8, into the interchange JSON reader: no
//! panic, no stack overflow, and either a well-formed snapshot or an error
//! that points into the text.
#![no_main]

mod check;

use libfuzzer_sys::fuzz_target;
use uidelta_formats::{json, parse, InputFormat, MAX_DEPTH};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let result = json::parse(&text);
    match &result {
        Ok(snap) => {
            check::snapshot(snap, MAX_DEPTH - 1);
            // What we accept is JSON (after a byte order mark, which the
            // parser skips), as serde_json's own skipper sees it. (Not
            // `serde_json::Value`: it also rejects numbers beyond f64 and lone
            // surrogates, which are valid JSON syntax and which we skip
            // without reading in unknown fields.)
            let json = text.strip_prefix('\u{feff}').unwrap_or(&text);
            if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(json) {
                panic!("accepted what serde_json rejects: {err}");
            }
        }
        Err(err) => {
            assert_eq!(err.format, InputFormat::Json);
            check::error(err, &text);
        }
    }
    assert_eq!(parse(&text, Some(InputFormat::Json)), result);
});
