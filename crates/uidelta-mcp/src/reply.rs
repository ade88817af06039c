//! What tools answer: readable text for the agent plus the same facts as
//! structured JSON, and errors that say what was asked and what is there.

use base64::Engine as _;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
use rmcp::ErrorData;
use serde_json::{json, Value};
use uidelta_render::Report;

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

// What a tool of the router answers: the same results as `Server::call`.
impl IntoCallToolResult for ToolError {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        Ok(self.into_result().into())
    }
}

impl IntoCallToolResult for Reply {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        Ok(self.into_result().into())
    }
}

impl From<uidelta_engine::Error> for ToolError {
    fn from(e: uidelta_engine::Error) -> ToolError {
        use uidelta_engine::Error as E;
        let kind = e.kind();
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
            kind: e.kind.name(),
            message: e.message,
        }
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

pub use uidelta_render::report::{app_diffs, app_json, handle_json, handle_text, Shown};

/// The answer of an action tool (and of `wait_for_change`): what
/// [`Report::told`] says, with the receipt the log keeps of it (the diff's
/// changed elements boxed; nothing to box after an exit).
pub fn told(tool: &str, report: &Report, shown: Shown) -> Reply {
    let told = report.told(tool, shown);
    let receipt = if report.exited {
        Receipt {
            text: told.log,
            boxes: Vec::new(),
        }
    } else {
        Receipt::of(report.diff, told.log)
    };
    Reply {
        text: told.text,
        json: told.json,
        png: None,
        receipt: Some(receipt),
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
