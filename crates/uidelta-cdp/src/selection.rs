//! The text selected in the focused field of a page, which the
//! accessibility tree does not carry: typing replaces it, and an agent must
//! see it to know (ctrl+A in a field would otherwise change nothing it can
//! read). Asked of the page, one `Runtime.evaluate`, only when the tree
//! says a field has the focus: of the frame it is in, for a field of a
//! cross-site frame (which runs in a process of its own).

use serde_json::{json, Value};
use uidelta_model::{Snapshot, State, SELECTION, SELECTION_CHARS};

use crate::capture::frame_element;
use crate::protocol::Session;

/// The script that says what is selected in the focused field (inside open
/// shadow roots and frames of the same origin), or `null`: an `<input>` or
/// `<textarea>` with a selection (not a password), or an editable
/// element's part of its document's selection.
fn script() -> String {
    format!(
        r#"(() => {{
  let e = document.activeElement;
  for (;;) {{
    if (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
    else if (e && e.contentDocument && e.contentDocument.activeElement) e = e.contentDocument.activeElement;
    else break;
  }}
  if (!e) return null;
  let text = null;
  if (typeof e.selectionStart === "number" && e.type !== "password") {{
    const s = e.selectionStart, t = e.selectionEnd;
    if (typeof t === "number" && s < t) text = String(e.value).slice(s, t);
  }} else if (e.isContentEditable) {{
    const root = e.getRootNode();
    const sel = root.getSelection ? root.getSelection() : e.ownerDocument.getSelection();
    if (sel && !sel.isCollapsed && e.contains(sel.anchorNode)) text = sel.toString();
  }}
  if (!text) return null;
  const chars = Array.from(text);
  return chars.length > {SELECTION_CHARS} ? chars.slice(0, {SELECTION_CHARS}).join("") + "\u2026" : text;
}})()"#
    )
}

/// `page` with the text selected in its focused field, when the tree says
/// a field (not a password) has the focus and the page says some of its
/// text is selected. Only the focused field's: a selection that goes with
/// the focus from a field is no change a diff reports (see
/// `uidelta_diff::Diff::handed_over`), and typing goes where the focus is.
/// What the page does not answer leaves it as it is.
pub(crate) async fn with_selection(session: &Session, page: Snapshot) -> Snapshot {
    let tree = page.tree();
    let Some(field) = tree.ids().find(|&id| {
        let n = tree.node(id);
        n.states.contains(State::Focused) && n.is_text_field() && !n.is_secret()
    }) else {
        return page;
    };
    // A cross-site frame's field: asked of its frame, whose document has
    // the focus there.
    let frame = tree
        .node(field)
        .identity
        .as_deref()
        .and_then(frame_element)
        .map(|(target, _)| target.to_owned());
    let framed = match frame {
        Some(target) => match session.in_frame(&target).await {
            Ok(framed) => Some(framed),
            Err(e) => {
                tracing::debug!("the selection of the focused field not read: {e}");
                return page;
            }
        },
        None => None,
    };
    let answer = framed
        .as_ref()
        .unwrap_or(session)
        .call(
            "Runtime.evaluate",
            json!({"expression": script(), "returnByValue": true}),
        )
        .await;
    let selected = match answer {
        Ok(answer) => said(&answer),
        Err(e) => {
            tracing::debug!("the selection of the focused field not read: {e}");
            None
        }
    };
    let Some(selected) = selected else {
        return page;
    };
    let (meta, mut tree) = page.into_parts();
    tree.node_mut(field).set_attribute(SELECTION, selected);
    Snapshot::new(meta, tree)
}

/// The text an answer of [`script`] says is selected.
fn said(answer: &Value) -> Option<String> {
    if answer.get("exceptionDetails").is_some() {
        return None;
    }
    answer["result"]["value"]
        .as_str()
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_says_a_selection_or_none() {
        let value = |v: Value| json!({"result": {"type": "string", "value": v}});
        assert_eq!(said(&value(json!("2024"))).as_deref(), Some("2024"));
        assert_eq!(said(&value(json!(""))), None);
        assert_eq!(
            said(&json!({"result": {"type": "object", "value": null}})),
            None
        );
        assert_eq!(
            said(&json!({"result": {}, "exceptionDetails": {"text": "boom"}})),
            None
        );
    }
}
