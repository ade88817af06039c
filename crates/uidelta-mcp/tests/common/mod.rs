//! What the server's tests share: building a call's arguments and reading
//! its answer's text.

use rmcp::model::{CallToolResult, JsonObject};
use serde_json::Value;

/// A tool call's arguments from a JSON object (`None` for anything else).
pub fn args(v: Value) -> Option<JsonObject> {
    match v {
        Value::Object(o) => Some(o),
        _ => None,
    }
}

/// The text of a tool's answer.
pub fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}
