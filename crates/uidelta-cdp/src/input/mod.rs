//! Synthesized input through `Input.dispatchMouseEvent`,
//! `Input.dispatchKeyEvent` and `Input.insertText`: events the page cannot
//! tell from a user's.

pub mod keys;

use serde_json::json;

use crate::error::Result;
use crate::protocol::Session;
use keys::{Chord, Key};

/// Pixels scrolled by one wheel click, as Chromium scrolls on Linux.
pub const WHEEL_CLICK: f64 = 100.0;

/// A mouse button.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Button {
    /// The primary button.
    Left,
    /// The secondary button (context menus).
    Right,
}

impl Button {
    fn name(self) -> &'static str {
        match self {
            Button::Left => "left",
            Button::Right => "right",
        }
    }

    fn bit(self) -> i64 {
        match self {
            Button::Left => 1,
            Button::Right => 2,
        }
    }
}

/// Moves the mouse to (x, y) in viewport CSS pixels and leaves it there:
/// the page sees it enter what is there (`:hover`, `mouseover`).
pub async fn hover(session: &Session, x: f64, y: f64) -> Result<()> {
    session
        .call(
            "Input.dispatchMouseEvent",
            json!({"type": "mouseMoved", "x": x, "y": y}),
        )
        .await?;
    Ok(())
}

/// How many moves a drag makes between where it presses and where it
/// releases, and the pause after each: pages that follow the pointer
/// (sortable lists, sliders) see it travel.
const DRAG_STEPS: u32 = 10;
const DRAG_STEP_PAUSE: std::time::Duration = std::time::Duration::from_millis(15);

/// Presses the primary button at `from`, moves the mouse to `to` in
/// [`DRAG_STEPS`] moves and releases it there (viewport CSS pixels): a
/// page's own dragging and HTML drag and drop (`draggable`, `drop`) alike.
pub async fn drag(session: &Session, from: (f64, f64), to: (f64, f64)) -> Result<()> {
    let mouse = |kind: &str, (x, y): (f64, f64), buttons: i64| {
        let mut event = json!({"type": kind, "x": x, "y": y, "buttons": buttons});
        if kind != "mouseMoved" {
            event["button"] = json!("left");
            event["clickCount"] = json!(1);
        } else if buttons != 0 {
            event["button"] = json!("left");
        }
        event
    };
    session
        .call("Input.dispatchMouseEvent", mouse("mouseMoved", from, 0))
        .await?;
    session
        .call("Input.dispatchMouseEvent", mouse("mousePressed", from, 1))
        .await?;
    for k in 1..=DRAG_STEPS {
        let t = f64::from(k) / f64::from(DRAG_STEPS);
        let at = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
        session
            .call("Input.dispatchMouseEvent", mouse("mouseMoved", at, 1))
            .await?;
        tokio::time::sleep(DRAG_STEP_PAUSE).await;
    }
    session
        .call("Input.dispatchMouseEvent", mouse("mouseReleased", to, 0))
        .await?;
    Ok(())
}

/// Moves the mouse to (x, y) in viewport CSS pixels and clicks `count` times.
pub async fn click(session: &Session, x: f64, y: f64, button: Button, count: u32) -> Result<()> {
    session
        .call(
            "Input.dispatchMouseEvent",
            json!({"type": "mouseMoved", "x": x, "y": y}),
        )
        .await?;
    for n in 1..=count.max(1) {
        let pressed = json!({
            "type": "mousePressed", "x": x, "y": y, "button": button.name(),
            "buttons": button.bit(), "clickCount": n,
        });
        session.call("Input.dispatchMouseEvent", pressed).await?;
        let released = json!({
            "type": "mouseReleased", "x": x, "y": y, "button": button.name(),
            "buttons": 0, "clickCount": n,
        });
        session.call("Input.dispatchMouseEvent", released).await?;
    }
    Ok(())
}

/// Turns the wheel at (x, y): `dx`, `dy` clicks, right and down positive.
pub async fn wheel(session: &Session, x: f64, y: f64, dx: i32, dy: i32) -> Result<()> {
    session
        .call(
            "Input.dispatchMouseEvent",
            json!({"type": "mouseMoved", "x": x, "y": y}),
        )
        .await?;
    let event = json!({
        "type": "mouseWheel", "x": x, "y": y,
        "deltaX": f64::from(dx) * WHEEL_CLICK, "deltaY": f64::from(dy) * WHEEL_CLICK,
    });
    session.call("Input.dispatchMouseEvent", event).await?;
    Ok(())
}

/// Presses and releases a chord: modifiers down in order, the key down and
/// up, modifiers up in reverse.
pub async fn press(session: &Session, chord: &Chord) -> Result<()> {
    let mut held = 0i64;
    let bits = |k: &Key| match k.key.as_str() {
        "Control" => keys::modifier::CTRL,
        "Shift" => keys::modifier::SHIFT,
        "Alt" => keys::modifier::ALT,
        "Meta" => keys::modifier::META,
        _ => 0,
    };
    for m in &chord.modifiers {
        held |= bits(m);
        send_key(session, "rawKeyDown", m, held).await?;
    }
    if let Some(key) = &chord.key {
        let down = if key.text.is_some() {
            "keyDown"
        } else {
            "rawKeyDown"
        };
        send_key(session, down, key, held).await?;
        send_key(session, "keyUp", key, held).await?;
    }
    for m in chord.modifiers.iter().rev() {
        held &= !bits(m);
        send_key(session, "keyUp", m, held).await?;
    }
    Ok(())
}

async fn send_key(session: &Session, kind: &str, key: &Key, modifiers: i64) -> Result<()> {
    let mut event = json!({
        "type": kind,
        "modifiers": modifiers,
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": key.virtual_key,
        "nativeVirtualKeyCode": key.virtual_key,
        "location": key.location,
    });
    if kind == "keyDown" {
        if let Some(text) = &key.text {
            event["text"] = json!(text);
            event["unmodifiedText"] = json!(text);
        }
    }
    session.call("Input.dispatchKeyEvent", event).await?;
    Ok(())
}

/// Types `text` where the focus is: runs of text are inserted at once, and
/// line breaks and tabs are pressed as keys so that forms submit and focus
/// moves as they would.
pub async fn type_text(session: &Session, text: &str) -> Result<()> {
    for piece in split_keys(text) {
        match piece {
            Piece::Text(run) => {
                session
                    .call("Input.insertText", json!({"text": run}))
                    .await?;
            }
            Piece::Key(name) => {
                let chord = Chord::parse(name).map_err(crate::error::Error::Unsupported)?;
                press(session, &chord).await?;
            }
        }
    }
    Ok(())
}

#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Key(&'static str),
}

/// Splits text into runs to insert and keys to press (`\n` is Enter, `\t`
/// is Tab).
fn split_keys(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let key = match c {
            '\n' => "Enter",
            '\t' => "Tab",
            _ => continue,
        };
        if start < i {
            out.push(Piece::Text(&text[start..i]));
        }
        out.push(Piece::Key(key));
        start = i + c.len_utf8();
    }
    if start < text.len() {
        out.push(Piece::Text(&text[start..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_splits_into_runs_and_keys() {
        assert_eq!(split_keys("abc"), vec![Piece::Text("abc")]);
        assert_eq!(
            split_keys("a\nb\tc\n"),
            vec![
                Piece::Text("a"),
                Piece::Key("Enter"),
                Piece::Text("b"),
                Piece::Key("Tab"),
                Piece::Text("c"),
                Piece::Key("Enter"),
            ]
        );
        assert_eq!(split_keys(""), Vec::<Piece>::new());
    }
}
