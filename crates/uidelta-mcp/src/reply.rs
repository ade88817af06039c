//! What tools answer: readable text for the agent plus the same facts as
//! structured JSON, and errors that say what was asked and what is there.

use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{json, Value};
use uidelta_backend::{App, ErrorKind};
use uidelta_diff::{Diff, Handle};
use uidelta_engine::{Acted, AppDiff};
use uidelta_render::{answer, count_tokens, diff_text, DiffOptions};

use crate::receipt::Receipt;

/// A tool's failure: an MCP tool error (`isError: true`) whose message the
/// agent can act on. `kind` lets programs react without parsing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolError {
    /// `bad_argument`, `unknown_ref`, `ref_gone`, `no_match`, `ambiguous`,
    /// `bad_selector`, `not_found`, `app_gone`, `timeout`, `unresponsive`, `unsupported`,
    /// `disconnected` (no desktop to reach, or it went away: later calls
    /// connect again), `refs_exhausted`, `backend`, `internal`, `cancelled`
    /// (the client cancelled the call).
    pub kind: &'static str,
    /// What went wrong, and what to do instead.
    pub message: String,
}

impl ToolError {
    /// An argument that is missing, of the wrong type, or out of range.
    pub fn bad_argument(message: impl Into<String>) -> ToolError {
        ToolError {
            kind: "bad_argument",
            message: message.into(),
        }
    }

    /// The answer of a failed call.
    pub fn into_result(self) -> CallToolResult {
        let mut r = CallToolResult::error(vec![ContentBlock::text(format!(
            "error ({}): {}",
            self.kind, self.message
        ))]);
        r.structured_content = Some(json!({
            "error": {"kind": self.kind, "message": self.message}
        }));
        r
    }
}

impl From<uidelta_engine::Error> for ToolError {
    fn from(e: uidelta_engine::Error) -> ToolError {
        use uidelta_engine::Error as E;
        let kind = match &e {
            E::Backend(b) => backend_kind(b.kind),
            E::Selector(_) => "bad_selector",
            E::NoMatch { .. } => "no_match",
            E::Ambiguous { .. } => "ambiguous",
            E::Gone { .. } => "ref_gone",
            E::UnknownRef(_) => "unknown_ref",
            E::NoWindow(_) => "not_found",
            E::TimedOut(_) => "timeout",
            E::Unresponsive { .. } => "unresponsive",
            E::TooLong(_) => "bad_argument",
            E::RefsExhausted { .. } => "refs_exhausted",
        };
        let mut message = e.to_string();
        if let E::NoMatch { hint, .. } = &e {
            if hint.contains("no application has been captured") {
                message.push_str(": pass `app`, or call get_window_tree first");
            }
        }
        ToolError { kind, message }
    }
}

impl From<uidelta_backend::Error> for ToolError {
    fn from(e: uidelta_backend::Error) -> ToolError {
        ToolError {
            kind: backend_kind(e.kind),
            message: e.message,
        }
    }
}

fn backend_kind(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::NotFound => "not_found",
        ErrorKind::Timeout => "timeout",
        ErrorKind::Gone => "app_gone",
        ErrorKind::Unsupported => "unsupported",
        ErrorKind::Disconnected => "disconnected",
        ErrorKind::Other => "backend",
    }
}

/// A successful answer.
#[derive(Clone, Debug)]
pub struct Reply {
    /// What the agent reads.
    pub text: String,
    /// The same facts, for programs.
    pub json: Value,
    /// A PNG, sent as MCP image content.
    pub png: Option<Vec<u8>>,
    /// What an action leaves in the log directory, if there is one.
    pub receipt: Option<Receipt>,
}

impl Reply {
    /// The MCP result: text (then the image, if any) as content, and the
    /// JSON as structured content.
    pub fn into_result(self) -> CallToolResult {
        let mut content = vec![ContentBlock::text(self.text)];
        if let Some(png) = self.png {
            content.push(ContentBlock::image(
                base64::engine::general_purpose::STANDARD.encode(png),
                "image/png",
            ));
        }
        let mut r = CallToolResult::success(content);
        r.structured_content = Some(self.json);
        r
    }
}

/// `[e12] push button "Save"`.
pub fn handle_text(h: &Handle) -> String {
    if h.name.is_empty() {
        format!("[{}] {}", h.r#ref, h.role)
    } else {
        format!("[{}] {} {:?}", h.r#ref, h.role, h.name)
    }
}

/// `{"ref": "e12", "role": "push button", "name": "Save"}`.
pub fn handle_json(h: &Handle) -> Value {
    json!({"ref": h.r#ref.to_string(), "role": h.role.to_string(), "name": h.name})
}

/// `{"name": ..., "pid": ...}`.
pub fn app_json(app: &App) -> Value {
    json!({"name": app.name, "pid": app.pid})
}

/// What the caller asked to see of an action's result.
#[derive(Clone, Copy, Debug)]
pub struct Shown {
    /// Include the diff.
    pub diff: bool,
    /// Include the whole tree after.
    pub tree: bool,
}

/// The answer of an action tool (and of `wait_for_change`): the action, the
/// resolved target, the diff with its counts and settle time, the focus
/// change, an app switch, and the token sizes of the diff against the full
/// tree after, which `tree_after` is. When that tree costs fewer tokens
/// than the diff, the text gives the tree instead, marked as such
/// (`tree_instead` in the JSON, whose `ui_diff` is the diff still).
pub fn acted(tool: &str, acted: &Acted, tree_after: &str, shown: Shown) -> Reply {
    let d = &acted.diff;
    let answered = answer(d, tree_after, &DiffOptions::default());
    let diff = answered.diff;
    let diff_tokens = count_tokens(&diff);
    let receipt = Receipt::of(d, diff.clone());
    let tree_tokens = count_tokens(tree_after);
    let mut text = format!(
        "# {tool}: {} in {} via {}\n",
        handle_text(&acted.target),
        acted.app.label(),
        acted.done.method
    );
    let mut json = json!({
        "tool": tool,
        "method": acted.done.method,
        "target": handle_json(&acted.target),
        "app": app_json(&acted.app),
        "settle_ms": acted.settled.elapsed.as_millis() as u64,
        "settle_capped": acted.settled.capped,
        "tree_tokens": tree_tokens,
    });
    if shown.diff {
        json["earlier_changes"] = app_diffs(&mut text, acted.earlier_heading(), &acted.earlier);
        text.push_str(&answered.text);
        json["tree_instead"] = Value::Bool(answered.tree_instead);
        let counts = d.counts();
        json["ui_diff"] = Value::String(diff);
        json["has_ui_changes"] = Value::Bool(d.has_changes());
        json["counts"] = json!({
            "added": counts.added,
            "removed": counts.removed,
            "modified": counts.modified,
            "transient": d.transient.len(),
        });
        json["focus"] = focus_json(d);
        json["truncated"] = Value::Bool(d.truncated);
        json["diff_tokens"] = Value::from(diff_tokens);
        json["app_switch"] = match &acted.app_switch {
            Some(AppDiff {
                app,
                diff: switched,
            }) => {
                let switched_text = diff_text(switched, &DiffOptions::default());
                text.push_str(&format!("# focus went to {}\n", app.label()));
                text.push_str(&switched_text);
                json!({"app": app_json(app), "ui_diff": switched_text})
            }
            None => Value::Null,
        };
        text.push_str(&format!(
            "# tokens: diff {diff_tokens}, full tree {tree_tokens}\n"
        ));
    } else {
        text.push_str(&format!(
            "# done; settled in {} ms (diff not asked for)\n",
            acted.settled.elapsed.as_millis()
        ));
    }
    if let Some(note) = &acted.note {
        text.push_str(&format!("# note: {note}\n"));
    }
    json["note"] = acted.note.clone().map_or(Value::Null, Value::String);
    if shown.tree {
        // Not twice: the answer may be that tree already.
        if !(shown.diff && answered.tree_instead) {
            text.push_str("# tree after the action:\n");
            text.push_str(tree_after);
        }
        json["tree"] = Value::String(tree_after.to_owned());
    }
    Reply {
        text,
        json,
        png: None,
        receipt: Some(receipt),
    }
}

/// Diffs of other moments than the answer's own (before an action, while
/// waiting), each under a `# {heading}, in {app}:` line of `text`; the same
/// as JSON (`[{"app": ..., "ui_diff": ...}]`).
pub fn app_diffs(text: &mut String, heading: &str, diffs: &[AppDiff]) -> Value {
    let mut json = Vec::new();
    for AppDiff { app, diff: d } in diffs {
        let t = diff_text(d, &DiffOptions::default());
        text.push_str(&format!("# {heading}, in {}:\n{t}", app.label()));
        json.push(json!({"app": app_json(app), "ui_diff": t}));
    }
    Value::Array(json)
}

fn focus_json(d: &Diff) -> Value {
    match &d.focus {
        Some(f) => json!({
            "from": f.from.as_ref().map(handle_json),
            "to": f.to.as_ref().map(handle_json),
        }),
        None => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_tool_errors_with_kind_and_message() {
        let r = ToolError::bad_argument("x: missing field `target`").into_result();
        assert_eq!(r.is_error, Some(true));
        let s = r.structured_content.expect("structured");
        assert_eq!(s["error"]["kind"], "bad_argument");
        let e: ToolError = uidelta_engine::Error::UnknownRef(uidelta_diff::Ref(99)).into();
        assert_eq!(e.kind, "unknown_ref");
        assert!(e.message.starts_with("e99 is not a ref"), "{}", e.message);
    }
}
