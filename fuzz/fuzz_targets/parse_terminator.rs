//! Arbitrary bytes, as (lossy) UTF-8, into the terminator compact YAML
//! reader: no panic, and either a well-formed snapshot or an error that
//! points into the text.
#![no_main]

mod check;

use libfuzzer_sys::fuzz_target;
use uidelta_formats::{parse, terminator, InputFormat, MAX_DEPTH};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let result = terminator::parse(&text);
    match &result {
        Ok(snap) => {
            // A synthetic root can add one level above the input's own.
            check::snapshot(snap, MAX_DEPTH);
            assert_eq!(snap.meta.source, "terminator");
            // At most one node per line, plus a synthetic root.
            assert!(snap.node_count() <= text.split('\n').count() + 1);
        }
        Err(err) => {
            assert_eq!(err.format, InputFormat::Terminator);
            check::error(err, &text);
        }
    }
    assert_eq!(parse(&text, Some(InputFormat::Terminator)), result);
});
