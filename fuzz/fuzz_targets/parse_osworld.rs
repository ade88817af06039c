//! Arbitrary bytes, as (lossy) UTF-8, into the reader of OSWorld's
//! accessibility-tree XML: no panic, no stack overflow, and either a
//! well-formed snapshot or an error that points into the text.
#![no_main]

mod check;

use libfuzzer_sys::fuzz_target;
use uidelta_formats::{osworld, parse, InputFormat, MAX_DEPTH};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let result = osworld::parse(&text);
    match &result {
        Ok(snap) => {
            check::snapshot(snap, MAX_DEPTH);
            assert_eq!(snap.meta.source, "osworld");
            // Every element starts with `<`; a synthetic root may hold them.
            assert!(snap.node_count() <= text.matches('<').count() + 1);
        }
        Err(err) => {
            assert_eq!(err.format, InputFormat::Osworld);
            check::error(err, &text);
        }
    }
    assert_eq!(parse(&text, Some(InputFormat::Osworld)), result);
});
