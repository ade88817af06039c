//! A small streaming writer of pretty JSON.
//!
//! Trees can be tens of thousands of levels deep; writing them as we walk,
//! rather than building a `serde_json::Value` and serializing it (both
//! recursive), keeps the stack flat. serde_json is used only to escape
//! strings and print floats.

use serde::Serialize;

/// Writes JSON indented two spaces per level, like `serde_json`'s pretty
/// printer, except that short scalar arrays stay on one line.
#[derive(Debug, Default)]
pub(crate) struct JsonWriter {
    out: String,
    /// One entry per open object or array: whether it has items yet.
    open: Vec<bool>,
    /// A key was just written, so the next value follows it on its line.
    after_key: bool,
}

impl JsonWriter {
    pub fn new() -> JsonWriter {
        JsonWriter::default()
    }

    /// The text, with a final newline.
    pub fn finish(mut self) -> String {
        self.out.push('\n');
        self.out
    }

    pub fn begin_object(&mut self) -> &mut Self {
        self.begin_value();
        self.out.push('{');
        self.open.push(false);
        self
    }

    pub fn end_object(&mut self) -> &mut Self {
        self.close('}')
    }

    pub fn begin_array(&mut self) -> &mut Self {
        self.begin_value();
        self.out.push('[');
        self.open.push(false);
        self
    }

    pub fn end_array(&mut self) -> &mut Self {
        self.close(']')
    }

    /// Writes an object key; the next value written is its value.
    pub fn key(&mut self, key: &str) -> &mut Self {
        self.next_item();
        push_json(&mut self.out, key);
        self.out.push_str(": ");
        self.after_key = true;
        self
    }

    pub fn string(&mut self, s: &str) -> &mut Self {
        self.begin_value();
        push_json(&mut self.out, s);
        self
    }

    pub fn opt_string(&mut self, s: Option<&str>) -> &mut Self {
        match s {
            Some(s) => self.string(s),
            None => self.null(),
        }
    }

    pub fn null(&mut self) -> &mut Self {
        self.raw("null")
    }

    pub fn bool(&mut self, b: bool) -> &mut Self {
        self.raw(if b { "true" } else { "false" })
    }

    pub fn uint(&mut self, n: u64) -> &mut Self {
        self.raw(&n.to_string())
    }

    pub fn opt_uint(&mut self, n: Option<u64>) -> &mut Self {
        match n {
            Some(n) => self.uint(n),
            None => self.null(),
        }
    }

    /// A float as serde_json prints it; not-a-number is `null`.
    pub fn opt_float(&mut self, x: Option<f64>) -> &mut Self {
        self.begin_value();
        match x {
            Some(x) => push_json(&mut self.out, &x),
            None => self.out.push_str("null"),
        }
        self
    }

    /// An array of already formatted scalars on one line: `[1, 2, 3]`.
    pub fn inline_array(&mut self, items: &[String]) -> &mut Self {
        self.raw(&format!("[{}]", items.join(", ")))
    }

    /// An array of strings on one line: `["enabled", "showing"]`.
    pub fn inline_strings<'s>(&mut self, items: impl Iterator<Item = &'s str>) -> &mut Self {
        let quoted: Vec<String> = items
            .map(|s| {
                let mut q = String::new();
                push_json(&mut q, s);
                q
            })
            .collect();
        self.inline_array(&quoted)
    }

    fn raw(&mut self, token: &str) -> &mut Self {
        self.begin_value();
        self.out.push_str(token);
        self
    }

    fn begin_value(&mut self) {
        if self.after_key {
            self.after_key = false;
        } else {
            self.next_item();
        }
    }

    fn next_item(&mut self) {
        if let Some(has_items) = self.open.last_mut() {
            if *has_items {
                self.out.push(',');
            }
            *has_items = true;
            self.out.push('\n');
            self.indent();
        }
    }

    fn close(&mut self, bracket: char) -> &mut Self {
        if self.open.pop() == Some(true) {
            self.out.push('\n');
            self.indent();
        }
        self.out.push(bracket);
        self
    }

    fn indent(&mut self) {
        for _ in 0..self.open.len() {
            self.out.push_str("  ");
        }
    }
}

/// Appends `value` as compact JSON. Strings and floats cannot fail to
/// serialize; should that ever change, `null` keeps the output valid.
fn push_json<T: Serialize + ?Sized>(out: &mut String, value: &T) {
    match serde_json::to_string(value) {
        Ok(text) => out.push_str(&text),
        Err(_) => out.push_str("null"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_pretty_json_that_parses() {
        let mut w = JsonWriter::new();
        w.begin_object();
        w.key("a").string("x\"y");
        w.key("empty").begin_array().end_array();
        w.key("list").begin_array();
        w.uint(1).bool(false).null();
        w.end_array();
        w.key("inline").inline_strings(["p", "q"].into_iter());
        w.key("f").opt_float(Some(2.0));
        w.key("o").begin_object().end_object();
        w.end_object();
        let text = w.finish();
        assert_eq!(
            text,
            "{\n  \"a\": \"x\\\"y\",\n  \"empty\": [],\n  \"list\": [\n    1,\n    false,\n    null\n  ],\n  \"inline\": [\"p\", \"q\"],\n  \"f\": 2.0,\n  \"o\": {}\n}\n"
        );
        assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
    }
}
