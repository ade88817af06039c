//! Actions on elements of a captured tab.
//!
//! A node's identity is its DOM backend node id, so the element is found
//! directly (`DOM.resolveNode`, `DOM.getContentQuads`) without searching.
//! Clicks, wheel turns and keys are real input events at the element's
//! centre; values and selections go through the element's own JavaScript
//! properties, followed by the `input` and `change` events a user's edit
//! would fire. An element of a cross-site iframe (its identity names the
//! frame's target) is acted on through that frame's own session for every
//! call, input events included: they land in the frame's viewport, where
//! its quads are.

use serde_json::{json, Value};
use uidelta_backend::{Action, Performed};
use uidelta_model::{NodeData, State};

use crate::capture::{backend_id, frame_element};
use crate::error::{Error, Result};
use crate::input::{self, keys::Chord, Button};
use crate::protocol::Session;

/// What a node's identity points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target<'a> {
    /// A DOM node, by backend node id.
    Element(i64),
    /// A DOM node of an out-of-process iframe: its target id and the node's
    /// backend node id in that frame's process.
    FrameElement(&'a str, i64),
    /// A frame's document as a whole.
    Document,
}

fn target_of<'a>(node: &'a NodeData, doing: &str) -> Result<Target<'a>> {
    let identity = node.identity.as_deref().ok_or_else(|| {
        Error::Unsupported(format!(
            "{doing}: the element has no browser identity; it must come from a live capture"
        ))
    })?;
    if identity.starts_with("doc:") {
        return Ok(Target::Document);
    }
    if let Some((frame, id)) = frame_element(identity) {
        return Ok(Target::FrameElement(frame, id));
    }
    backend_id(identity).map(Target::Element).ok_or_else(|| {
        Error::Unsupported(format!(
            "{doing}: the element has no DOM node to act on (identity {identity})"
        ))
    })
}

/// The centre of what shows of `node` in the viewport now, read without
/// scrolling (see [`crate::Cdp::centre_now`]); `None` when none of it
/// shows. An element of a cross-site frame or a document: as the capture
/// placed it.
pub(crate) async fn centre_now(session: &Session, node: &NodeData) -> Result<Option<(i32, i32)>> {
    let Target::Element(id) = target_of(node, &session.doing)? else {
        return Ok(uidelta_backend::centre_of(node));
    };
    let element = Element { session, id };
    Ok(element
        .shown_centre()
        .await?
        .map(|(x, y)| (x.round() as i32, y.round() as i32)))
}

/// Performs `action` on `node`, an element of a capture of the tab.
pub(crate) async fn act(session: &Session, node: &NodeData, action: &Action) -> Result<Performed> {
    let target = target_of(node, &session.doing)?;
    // Every call about an element of a cross-site frame goes to that
    // frame's own session, input events included: they then land in the
    // frame's viewport, at the coordinates its own quads are in.
    let framed;
    let (session, id) = match target {
        Target::Element(id) => (session, id),
        Target::FrameElement(frame, id) => {
            framed = session.in_frame(frame).await?;
            (&framed, id)
        }
        Target::Document => return act_on_document(session, action).await,
    };
    let element = Element { session, id };
    let method = match action {
        Action::Click => element.click(Button::Left, 1).await?,
        Action::RightClick => element.click(Button::Right, 1).await?,
        Action::DoubleClick => element.click(Button::Left, 2).await?,
        Action::Hover => {
            let (x, y) = element.centre().await?;
            input::hover(session, x, y).await?;
            format!("CDP Input mouse moved to {},{}", x.round(), y.round())
        }
        Action::DragTo { x, y } => {
            let from = element.centre().await?;
            let to = (f64::from(*x), f64::from(*y));
            input::drag(session, from, to).await?;
            format!(
                "CDP Input drag from {},{} to {x},{y}",
                from.0.round(),
                from.1.round()
            )
        }
        Action::Type(text) => {
            element.focus_for_typing(true).await?;
            input::type_text(session, text).await?;
            "DOM.focus + Input.insertText".to_owned()
        }
        Action::Key(chord) => {
            let parsed = Chord::parse(chord).map_err(|e| bad_chord(session, &e))?;
            element.focus_for_typing(false).await?;
            input::press(session, &parsed).await?;
            format!("DOM.focus + CDP Input key {chord}")
        }
        // A file input takes files, by their paths.
        Action::SetValue(value) if node.attribute("input-type") == Some("file") => {
            crate::choosers::set_files(session, id, value).await?
        }
        Action::SetValue(value) => element.set_value(value).await?,
        Action::SetSelected(on) => element.set_selected(node, *on).await?,
        Action::Scroll { dx: 0, dy: 0 } => {
            element.scroll_into_view().await?;
            "DOM.scrollIntoViewIfNeeded".to_owned()
        }
        Action::Scroll { dx, dy } => {
            let (x, y) = element.centre().await?;
            input::wheel(session, x, y, *dx, *dy).await?;
            format!("CDP Input wheel {dx},{dy} at {},{}", x.round(), y.round())
        }
        Action::Focus => {
            element.focus().await?;
            "DOM.focus".to_owned()
        }
        Action::Invoke(name) => match invoked(name) {
            Some(Invoked::Click) => element.click(Button::Left, 1).await?,
            Some(Invoked::Focus) => {
                element.focus().await?;
                "DOM.focus".to_owned()
            }
            None => return Err(unknown_invoke(session, name)),
        },
    };
    Ok(Performed { method })
}

enum Invoked {
    Click,
    Focus,
}

/// Accessible action names that mean a click or a focus in the browser.
fn invoked(name: &str) -> Option<Invoked> {
    match name.trim().to_ascii_lowercase().as_str() {
        "click" | "press" | "activate" | "jump" | "default" | "doaction" => Some(Invoked::Click),
        "focus" => Some(Invoked::Focus),
        _ => None,
    }
}

fn unknown_invoke(session: &Session, name: &str) -> Error {
    Error::Unsupported(format!(
        "{}: the browser has no action `{name}`; its actions are click (also press, activate, \
         jump) and focus",
        session.doing
    ))
}

fn bad_chord(session: &Session, detail: &str) -> Error {
    Error::Unsupported(format!("{}: {detail}", session.doing))
}

/// Actions on the document as a whole go to the page: keys to whatever has
/// the focus, the wheel at the middle of the viewport.
async fn act_on_document(session: &Session, action: &Action) -> Result<Performed> {
    let (w, h) = viewport(session).await?;
    let (x, y) = (w / 2.0, h / 2.0);
    let method = match action {
        Action::Type(text) => {
            input::type_text(session, text).await?;
            "Input.insertText".to_owned()
        }
        Action::Key(chord) => {
            let parsed = Chord::parse(chord).map_err(|e| bad_chord(session, &e))?;
            input::press(session, &parsed).await?;
            format!("CDP Input key {chord}")
        }
        Action::Scroll { dx: 0, dy: 0 } | Action::Focus => {
            session.call("Page.bringToFront", json!({})).await?;
            "Page.bringToFront".to_owned()
        }
        Action::Scroll { dx, dy } => {
            input::wheel(session, x, y, *dx, *dy).await?;
            format!("CDP Input wheel {dx},{dy} at {},{}", x.round(), y.round())
        }
        Action::Click | Action::RightClick | Action::DoubleClick => {
            let (button, count) = match action {
                Action::RightClick => (Button::Right, 1),
                Action::DoubleClick => (Button::Left, 2),
                _ => (Button::Left, 1),
            };
            input::click(session, x, y, button, count).await?;
            format!("CDP Input click at {},{}", x.round(), y.round())
        }
        Action::Invoke(name) if matches!(invoked(name), Some(Invoked::Focus)) => {
            session.call("Page.bringToFront", json!({})).await?;
            "Page.bringToFront".to_owned()
        }
        Action::Invoke(name) => return Err(unknown_invoke(session, name)),
        Action::SetValue(_) | Action::SetSelected(_) => {
            return Err(Error::Unsupported(format!(
                "{}: a document has no value or selection of its own; act on an element in it",
                session.doing
            )))
        }
        Action::Hover => {
            return Err(Error::Unsupported(format!(
                "{}: the pointer is over the document wherever it is; hover over an element in \
                 it",
                session.doing
            )))
        }
        Action::DragTo { .. } => {
            return Err(Error::Unsupported(format!(
                "{}: a drag starts on an element: drag the element itself",
                session.doing
            )))
        }
    };
    Ok(Performed { method })
}

/// Viewport width and height in CSS pixels.
async fn viewport(session: &Session) -> Result<(f64, f64)> {
    let metrics = session.call("Page.getLayoutMetrics", json!({})).await?;
    let v = &metrics["cssLayoutViewport"];
    Ok((
        v["clientWidth"].as_f64().unwrap_or(0.0),
        v["clientHeight"].as_f64().unwrap_or(0.0),
    ))
}

/// One DOM element of the tab.
struct Element<'a> {
    session: &'a Session,
    id: i64,
}

impl Element<'_> {
    fn doing(&self) -> &str {
        &self.session.doing
    }

    async fn scroll_into_view(&self) -> Result<()> {
        self.session
            .call(
                "DOM.scrollIntoViewIfNeeded",
                json!({"backendNodeId": self.id}),
            )
            .await?;
        Ok(())
    }

    /// Scrolls the element into view and returns the middle of its first
    /// box, inside the viewport.
    async fn centre(&self) -> Result<(f64, f64)> {
        if let Err(e) = self.scroll_into_view().await {
            // Text nodes and some hidden elements cannot scroll; their quads
            // say whether there is anything to click.
            tracing::debug!("{e}");
        }
        self.shown_centre().await?.ok_or_else(|| self.no_box())
    }

    /// The middle of the element's first box inside the viewport, where it
    /// is now; `None` when no box of it shows there.
    async fn shown_centre(&self) -> Result<Option<(f64, f64)>> {
        let answer = match self
            .session
            .call("DOM.getContentQuads", json!({"backendNodeId": self.id}))
            .await
        {
            Ok(answer) => answer,
            Err(Error::Protocol { detail, .. }) if detail.contains("Could not compute") => {
                return Ok(None)
            }
            Err(e) => return Err(e),
        };
        let (w, h) = viewport(self.session).await?;
        Ok(quad_centre(&answer["quads"], w, h))
    }

    fn no_box(&self) -> Error {
        Error::Unsupported(format!(
            "{}: the element has no box on the page (it is hidden or not rendered)",
            self.doing()
        ))
    }

    async fn click(&self, button: Button, count: u32) -> Result<String> {
        let (x, y) = self.centre().await?;
        input::click(self.session, x, y, button, count).await?;
        let what = match (button, count) {
            (Button::Right, _) => "right click",
            (_, 2) => "double click",
            _ => "click",
        };
        Ok(format!("CDP Input {what} at {},{}", x.round(), y.round()))
    }

    async fn focus(&self) -> Result<()> {
        self.session
            .call("DOM.focus", json!({"backendNodeId": self.id}))
            .await
            .map_err(|e| match e {
                Error::Protocol { detail, .. } if detail.contains("not focusable") => {
                    Error::Unsupported(format!(
                        "{}: the element cannot take the focus",
                        self.doing()
                    ))
                }
                other => other,
            })?;
        Ok(())
    }

    /// Gives the element the focus unless it has it; a text field newly
    /// focused gets its caret at the end when `caret_to_end`. An element
    /// that cannot take the focus is clicked instead, as a user would.
    ///
    /// Keys go where the focus is: an element that is disabled, or that
    /// the focus did not reach (in it, or in the editable text around it),
    /// is an error, and no key is sent, rather than keys landing in
    /// whatever field had the focus.
    async fn focus_for_typing(&self, caret_to_end: bool) -> Result<()> {
        if self.call_js(HAS_FOCUS, Value::Null).await? == Value::Bool(true) {
            return Ok(());
        }
        if self.call_js(IS_DISABLED, Value::Null).await? == Value::Bool(true) {
            return Err(self.no_keys("the element is disabled"));
        }
        let clicked = match self.focus().await {
            Ok(()) => false,
            Err(Error::Unsupported(_)) => {
                self.click(Button::Left, 1).await?;
                true
            }
            Err(e) => return Err(e),
        };
        if self.call_js(KEYS_REACH, Value::Null).await? != Value::Bool(true) {
            return Err(self.no_keys(if clicked {
                "the element cannot take the keyboard focus, and clicking it did not give it"
            } else {
                "the element did not take the keyboard focus (DOM.focus)"
            }));
        }
        if caret_to_end {
            self.call_js(CARET_TO_END, Value::Null).await?;
        }
        Ok(())
    }

    /// Keys refused: `why` the element does not have the focus.
    fn no_keys(&self, why: &str) -> Error {
        Error::Unsupported(format!(
            "{}: {why}, so the keys would go to whatever has the keyboard focus; none were sent \
             (act on an element that takes the focus: an enabled text field)",
            self.doing()
        ))
    }

    async fn set_value(&self, value: &str) -> Result<String> {
        let answer = self.call_js(SET_VALUE, json!(value)).await?;
        self.page_answer(&answer)
    }

    async fn set_selected(&self, node: &NodeData, on: bool) -> Result<String> {
        let answer = self.call_js(SET_SELECTED, json!(on)).await?;
        let must_click = match answer.get("click") {
            Some(Value::Bool(b)) => *b,
            // Nothing on the element says; the capture does.
            Some(Value::Null) => {
                let now =
                    node.states.contains(State::Checked) || node.states.contains(State::Selected);
                now != on
            }
            _ => return self.page_answer(&answer),
        };
        if must_click {
            self.click(Button::Left, 1).await
        } else {
            Ok(format!(
                "nothing to do: already {}",
                if on { "selected" } else { "not selected" }
            ))
        }
    }

    /// Reads `{done}` or `{error}` from one of the scripts below.
    fn page_answer(&self, answer: &Value) -> Result<String> {
        if let Some(error) = answer.get("error").and_then(Value::as_str) {
            return Err(Error::Page {
                doing: self.doing().to_owned(),
                detail: error.to_owned(),
            });
        }
        let done = answer.get("done").and_then(Value::as_str).unwrap_or("done");
        Ok(format!("Runtime.callFunctionOn: {done}"))
    }

    /// Runs `function` with the element as `this` and `arg` as argument;
    /// returns its result by value.
    async fn call_js(&self, function: &str, arg: Value) -> Result<Value> {
        let resolved = self
            .session
            .call("DOM.resolveNode", json!({"backendNodeId": self.id}))
            .await?;
        let object = resolved["object"]["objectId"].as_str().ok_or_else(|| {
            Error::NotFound(format!(
                "{}: the element is no longer in the page",
                self.doing()
            ))
        })?;
        let answer = self
            .session
            .call(
                "Runtime.callFunctionOn",
                json!({
                    "objectId": object,
                    "functionDeclaration": function,
                    "arguments": [{"value": arg}],
                    "returnByValue": true,
                    "awaitPromise": true,
                }),
            )
            .await;
        // Release the handle whatever happened.
        let _ = self
            .session
            .call("Runtime.releaseObject", json!({"objectId": object}))
            .await;
        let answer = answer?;
        if let Some(details) = answer.get("exceptionDetails") {
            return Err(Error::Page {
                doing: self.doing().to_owned(),
                detail: exception_text(details),
            });
        }
        Ok(answer["result"]["value"].clone())
    }
}

/// The message of a thrown exception.
pub(crate) fn exception_text(details: &Value) -> String {
    details["exception"]["description"]
        .as_str()
        .or_else(|| details["exception"]["value"].as_str())
        .or_else(|| details["text"].as_str())
        .map(|s| s.lines().next().unwrap_or(s).to_owned())
        .unwrap_or_else(|| "the script threw an exception".to_owned())
}

/// The middle of the first quad with an area, moved inside a `w` x `h`
/// viewport (a box larger than the viewport is clicked where it shows).
fn quad_centre(quads: &Value, w: f64, h: f64) -> Option<(f64, f64)> {
    for quad in quads.as_array()? {
        let points: Vec<f64> = quad.as_array()?.iter().filter_map(Value::as_f64).collect();
        if points.len() < 8 {
            continue;
        }
        let xs = [points[0], points[2], points[4], points[6]];
        let ys = [points[1], points[3], points[5], points[7]];
        let (x0, x1) = (
            xs.iter().cloned().fold(f64::MAX, f64::min),
            xs.iter().cloned().fold(f64::MIN, f64::max),
        );
        let (y0, y1) = (
            ys.iter().cloned().fold(f64::MAX, f64::min),
            ys.iter().cloned().fold(f64::MIN, f64::max),
        );
        if x1 - x0 < 1.0 || y1 - y0 < 1.0 {
            continue;
        }
        // The part of the box inside the viewport.
        let (vx0, vx1) = (x0.max(0.0), if w > 0.0 { x1.min(w) } else { x1 });
        let (vy0, vy1) = (y0.max(0.0), if h > 0.0 { y1.min(h) } else { y1 });
        if vx1 <= vx0 || vy1 <= vy0 {
            continue;
        }
        return Some(((vx0 + vx1) / 2.0, (vy0 + vy1) / 2.0));
    }
    None
}

const HAS_FOCUS: &str = r#"function () {
  let a = this.ownerDocument.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a === this;
}"#;

const IS_DISABLED: &str = r#"function () {
  return this.matches ? this.matches(':disabled') : false;
}"#;

/// Whether keys typed now reach the element: it has the focus, or
/// something in it has, or it is part of the editable text that has it
/// (a paragraph of a contenteditable document, where a click put the caret).
const KEYS_REACH: &str = r#"function () {
  let a = this.ownerDocument.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  if (!a) return false;
  if (a === this || this.contains(a)) return true;
  return a.isContentEditable === true && a.contains(this);
}"#;

const CARET_TO_END: &str = r#"function () {
  if (typeof this.setSelectionRange === 'function' && typeof this.value === 'string') {
    try { const n = this.value.length; this.setSelectionRange(n, n); } catch (e) {}
  } else if (this.isContentEditable) {
    const s = this.ownerDocument.getSelection();
    if (s) { s.selectAllChildren(this); s.collapseToEnd(); }
  }
  return true;
}"#;

const SET_VALUE: &str = r#"function (v) {
  const el = this;
  const text = String(v);
  const fire = (t) => el.dispatchEvent(new Event(t, { bubbles: true }));
  if (el instanceof HTMLSelectElement) {
    const opts = Array.from(el.options);
    const want = text.trim();
    const opt = opts.find(o => o.label === want || o.text.trim() === want)
      || opts.find(o => o.value === text)
      || opts.find(o => o.text.trim().toLowerCase() === want.toLowerCase());
    if (!opt) return { error: 'the list has no option "' + want + '"; its options: ' + opts.map(o => '"' + o.text.trim() + '"').join(', ') };
    opt.selected = true;
    fire('input'); fire('change');
    return { done: 'select option "' + opt.text.trim() + '" + input/change events' };
  }
  const input = el instanceof HTMLInputElement;
  if (input || el instanceof HTMLTextAreaElement) {
    if (input && ['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'image'].includes(el.type))
      return { error: 'a ' + el.type + ' input has no text value; use set_selected or click' };
    if (el.disabled) return { error: 'the field is disabled' };
    const proto = input ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
    setter.call(el, text);
    fire('input'); fire('change');
    if (el.value !== text) return { done: 'value (the field holds "' + el.value + '") + input/change events' };
    return { done: 'value + input/change events' };
  }
  if (el.isContentEditable) {
    el.textContent = text;
    fire('input');
    return { done: 'textContent + input event' };
  }
  return { error: 'the element has no value to set (it is not a text field, a list or editable)' };
}"#;

const SET_SELECTED: &str = r#"function (on) {
  const el = this;
  if (el instanceof HTMLOptionElement) {
    const list = el.closest('select');
    if (!list) return { error: 'the option is in no <select>' };
    if (el.selected === on) return { done: 'nothing to do: already ' + (on ? 'selected' : 'not selected') };
    if (!on && !list.multiple) return { error: 'a single-choice list cannot have no option; select another one' };
    el.selected = on;
    list.dispatchEvent(new Event('input', { bubbles: true }));
    list.dispatchEvent(new Event('change', { bubbles: true }));
    return { done: 'option.selected + input/change events' };
  }
  if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) {
    if (el.type === 'radio' && !on && el.checked) return { error: 'a radio button cannot be unchecked; check another one' };
    return { click: el.checked !== on };
  }
  for (const name of ['aria-checked', 'aria-selected', 'aria-pressed']) {
    const v = el.getAttribute(name);
    if (v !== null) return { click: (v === 'true') !== on };
  }
  return { click: null };
}"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quad_centres_stay_in_the_viewport() {
        let quads = json!([[10.0, 20.0, 30.0, 20.0, 30.0, 40.0, 10.0, 40.0]]);
        assert_eq!(quad_centre(&quads, 800.0, 600.0), Some((20.0, 30.0)));
        // Taller than the viewport: the middle of the visible part.
        let quads = json!([[0.0, -100.0, 100.0, -100.0, 100.0, 900.0, 0.0, 900.0]]);
        assert_eq!(quad_centre(&quads, 800.0, 600.0), Some((50.0, 300.0)));
        // Empty quads are skipped; nothing visible gives none.
        let quads = json!([
            [5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0],
            [0.0, 0.0, 4.0, 0.0, 4.0, 2.0, 0.0, 2.0]
        ]);
        assert_eq!(quad_centre(&quads, 800.0, 600.0), Some((2.0, 1.0)));
        let quads = json!([[0.0, 700.0, 10.0, 700.0, 10.0, 710.0, 0.0, 710.0]]);
        assert_eq!(quad_centre(&quads, 800.0, 600.0), None);
    }

    #[test]
    fn identities_and_invoke_names() {
        let mut n = NodeData::default();
        assert!(target_of(&n, "x").is_err());
        n.identity = Some("n42".into());
        assert_eq!(target_of(&n, "x").unwrap(), Target::Element(42));
        n.identity = Some("doc:ABC".into());
        assert_eq!(target_of(&n, "x").unwrap(), Target::Document);
        n.identity = Some("0A1B/n42:t1".into());
        assert_eq!(
            target_of(&n, "x").unwrap(),
            Target::FrameElement("0A1B", 42)
        );
        n.identity = Some("ax:F:7".into());
        let e = target_of(&n, "clicking").unwrap_err();
        assert!(e.to_string().contains("no DOM node"), "{e}");
        assert!(matches!(invoked("Click"), Some(Invoked::Click)));
        assert!(matches!(invoked("jump"), Some(Invoked::Click)));
        assert!(matches!(invoked("focus"), Some(Invoked::Focus)));
        assert!(invoked("expand").is_none());
        assert_eq!(
            exception_text(
                &json!({"text": "Uncaught", "exception": {"description": "Error: boom\n    at <anonymous>:1:7"}})
            ),
            "Error: boom"
        );
        assert_eq!(exception_text(&json!({"text": "Uncaught"})), "Uncaught");
    }
}
