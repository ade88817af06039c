//! Key chords (`ctrl+a`, `Return`, `shift+Tab`) as the key events a page
//! sees.
//!
//! `Input.dispatchKeyEvent` must be told everything a real keyboard would
//! say: `key` (what the key means, `a` or `Enter`), `code` (where it is,
//! `KeyA`), the Windows virtual key code that `keyCode` reports, the text it
//! types, and the modifier bits. Names follow both the DOM (`Enter`,
//! `ArrowUp`) and X11 keysyms (`Return`, `Up`, `Page_Down`), so that the same
//! chord works with the desktop backend.

/// Modifier bits of `Input.dispatchKeyEvent`.
pub mod modifier {
    /// Alt.
    pub const ALT: i64 = 1;
    /// Control.
    pub const CTRL: i64 = 2;
    /// Meta (Super, Command).
    pub const META: i64 = 4;
    /// Shift.
    pub const SHIFT: i64 = 8;
}

/// One physical key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// The DOM `key`: `a`, `A`, `Enter`, `ArrowUp`, `Control`.
    pub key: String,
    /// The DOM `code`: `KeyA`, `Enter`, `ControlLeft`; empty when unknown.
    pub code: String,
    /// The Windows virtual key code (`keyCode`); 0 when unknown.
    pub virtual_key: i64,
    /// The text the key types, when it types any.
    pub text: Option<String>,
    /// 1 for the left-hand modifier keys, 0 otherwise.
    pub location: i64,
}

/// A chord: modifiers held while one key is pressed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chord {
    /// The modifier keys, pressed in this order and released in reverse.
    pub modifiers: Vec<Key>,
    /// All modifier bits of the chord.
    pub mask: i64,
    /// The key pressed while they are held; `None` for a lone modifier.
    pub key: Option<Key>,
}

impl Chord {
    /// Parses `ctrl+shift+a`, `Return`, `shift+Tab`, `ctrl++`.
    pub fn parse(chord: &str) -> Result<Chord, String> {
        let chord = chord.trim();
        if chord.is_empty() {
            return Err("an empty key chord".into());
        }
        let (mods, main): (Vec<&str>, &str) = if chord == "+" {
            (Vec::new(), "+")
        } else if let Some(rest) = chord.strip_suffix("++") {
            (rest.split('+').collect(), "+")
        } else {
            let mut parts: Vec<&str> = chord.split('+').collect();
            let main = parts.pop().unwrap_or_default();
            (parts, main)
        };
        let mut out = Chord {
            modifiers: Vec::new(),
            mask: 0,
            key: None,
        };
        for m in mods.iter().map(|m| m.trim()).filter(|m| !m.is_empty()) {
            let (key, bit) = modifier_key(m).ok_or_else(|| {
                format!("`{m}` in `{chord}` is not a modifier (ctrl, shift, alt, meta)")
            })?;
            if out.mask & bit == 0 {
                out.mask |= bit;
                out.modifiers.push(key);
            }
        }
        let main = main.trim();
        if main.is_empty() {
            return Err(format!("`{chord}` names no key"));
        }
        if let Some((key, bit)) = modifier_key(main) {
            // A lone modifier (`shift`), or one more held with the others.
            if out.mask & bit == 0 {
                out.mask |= bit;
                out.modifiers.push(key);
            }
            return Ok(out);
        }
        let mut key = named_key(main)
            .or_else(|| single_char(main))
            .ok_or_else(|| format!("`{main}` in `{chord}` is not a key name"))?;
        if out.mask & modifier::SHIFT != 0 && key.key.chars().count() == 1 {
            key.key = key.key.to_uppercase();
            key.text = key.text.map(|t| t.to_uppercase());
        }
        // Chords with ctrl, alt or meta type nothing; they are commands.
        if out.mask & (modifier::CTRL | modifier::ALT | modifier::META) != 0 {
            key.text = None;
        }
        out.key = Some(key);
        Ok(out)
    }
}

fn modifier_key(name: &str) -> Option<(Key, i64)> {
    let (key, code, vk, bit) = match name.to_ascii_lowercase().as_str() {
        "ctrl" | "control" | "ctl" | "control_l" => ("Control", "ControlLeft", 17, modifier::CTRL),
        "shift" | "shift_l" => ("Shift", "ShiftLeft", 16, modifier::SHIFT),
        "alt" | "option" | "alt_l" => ("Alt", "AltLeft", 18, modifier::ALT),
        "meta" | "super" | "cmd" | "command" | "win" | "windows" | "logo" | "super_l" => {
            ("Meta", "MetaLeft", 91, modifier::META)
        }
        _ => return None,
    };
    Some((
        Key {
            key: key.into(),
            code: code.into(),
            virtual_key: vk,
            text: None,
            location: 1,
        },
        bit,
    ))
}

fn named_key(name: &str) -> Option<Key> {
    let lower = name.to_ascii_lowercase();
    let (key, code, vk, text): (&str, &str, i64, Option<&str>) = match lower.as_str() {
        "enter" | "return" | "kp_enter" => ("Enter", "Enter", 13, Some("\r")),
        "tab" => ("Tab", "Tab", 9, None),
        "escape" | "esc" => ("Escape", "Escape", 27, None),
        "backspace" | "back_space" => ("Backspace", "Backspace", 8, None),
        "delete" | "del" => ("Delete", "Delete", 46, None),
        "insert" | "ins" => ("Insert", "Insert", 45, None),
        "space" => (" ", "Space", 32, Some(" ")),
        "up" | "arrowup" => ("ArrowUp", "ArrowUp", 38, None),
        "down" | "arrowdown" => ("ArrowDown", "ArrowDown", 40, None),
        "left" | "arrowleft" => ("ArrowLeft", "ArrowLeft", 37, None),
        "right" | "arrowright" => ("ArrowRight", "ArrowRight", 39, None),
        "home" => ("Home", "Home", 36, None),
        "end" => ("End", "End", 35, None),
        "pageup" | "page_up" | "prior" => ("PageUp", "PageUp", 33, None),
        "pagedown" | "page_down" | "next" => ("PageDown", "PageDown", 34, None),
        "menu" | "contextmenu" | "apps" => ("ContextMenu", "ContextMenu", 93, None),
        "plus" => return single_char("+"),
        "minus" => return single_char("-"),
        "comma" => return single_char(","),
        "period" => return single_char("."),
        "slash" => return single_char("/"),
        "backslash" => return single_char("\\"),
        "semicolon" => return single_char(";"),
        "apostrophe" | "quote" => return single_char("'"),
        "grave" | "backquote" => return single_char("`"),
        "equal" | "equals" => return single_char("="),
        "bracketleft" => return single_char("["),
        "bracketright" => return single_char("]"),
        _ => return function_key(&lower),
    };
    Some(Key {
        key: key.into(),
        code: code.into(),
        virtual_key: vk,
        text: text.map(str::to_owned),
        location: 0,
    })
}

fn function_key(lower: &str) -> Option<Key> {
    let n: i64 = lower.strip_prefix('f')?.parse().ok()?;
    if !(1..=24).contains(&n) {
        return None;
    }
    Some(Key {
        key: format!("F{n}"),
        code: format!("F{n}"),
        virtual_key: 111 + n,
        text: None,
        location: 0,
    })
}

fn single_char(s: &str) -> Option<Key> {
    let mut chars = s.chars();
    let c = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    let (code, vk) = if c.is_ascii_alphabetic() {
        let upper = c.to_ascii_uppercase();
        (format!("Key{upper}"), upper as i64)
    } else if c.is_ascii_digit() {
        (format!("Digit{c}"), c as i64)
    } else {
        let (code, vk) = match c {
            '`' | '~' => ("Backquote", 192),
            '-' | '_' => ("Minus", 189),
            '=' | '+' => ("Equal", 187),
            '[' | '{' => ("BracketLeft", 219),
            ']' | '}' => ("BracketRight", 221),
            '\\' | '|' => ("Backslash", 220),
            ';' | ':' => ("Semicolon", 186),
            '\'' | '"' => ("Quote", 222),
            ',' | '<' => ("Comma", 188),
            '.' | '>' => ("Period", 190),
            '/' | '?' => ("Slash", 191),
            ' ' => ("Space", 32),
            _ => ("", 0),
        };
        (code.to_owned(), vk)
    };
    Some(Key {
        key: c.to_string(),
        code,
        virtual_key: vk,
        text: Some(c.to_string()),
        location: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_keys_in_dom_and_x11_spelling() {
        for name in ["Return", "Enter", "enter", "KP_Enter"] {
            let c = Chord::parse(name).unwrap();
            let k = c.key.unwrap();
            assert_eq!(
                (k.key.as_str(), k.code.as_str(), k.virtual_key),
                ("Enter", "Enter", 13)
            );
            assert_eq!(k.text.as_deref(), Some("\r"));
            assert_eq!(c.mask, 0);
        }
        let k = Chord::parse("Page_Down").unwrap().key.unwrap();
        assert_eq!((k.key.as_str(), k.virtual_key), ("PageDown", 34));
        let k = Chord::parse("Up").unwrap().key.unwrap();
        assert_eq!(
            (k.key.as_str(), k.code.as_str(), k.virtual_key),
            ("ArrowUp", "ArrowUp", 38)
        );
        let k = Chord::parse("F5").unwrap().key.unwrap();
        assert_eq!((k.key.as_str(), k.virtual_key), ("F5", 116));
        let k = Chord::parse("Escape").unwrap().key.unwrap();
        assert_eq!(
            (k.key.as_str(), k.virtual_key, k.text),
            ("Escape", 27, None)
        );
    }

    #[test]
    fn modifiers_set_bits_and_suppress_text() {
        let c = Chord::parse("ctrl+a").unwrap();
        assert_eq!(c.mask, modifier::CTRL);
        assert_eq!(c.modifiers.len(), 1);
        assert_eq!(c.modifiers[0].key, "Control");
        let k = c.key.unwrap();
        assert_eq!(
            (k.key.as_str(), k.code.as_str(), k.virtual_key),
            ("a", "KeyA", 65)
        );
        assert_eq!(k.text, None);

        let c = Chord::parse("shift+Tab").unwrap();
        assert_eq!(c.mask, modifier::SHIFT);
        assert_eq!(c.key.unwrap().key, "Tab");

        let c = Chord::parse("shift+a").unwrap();
        let k = c.key.unwrap();
        assert_eq!((k.key.as_str(), k.text.as_deref()), ("A", Some("A")));

        let c = Chord::parse("Control+Shift+Alt+Meta+x").unwrap();
        assert_eq!(c.mask, 15);
        let names: Vec<&str> = c.modifiers.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(names, vec!["Control", "Shift", "Alt", "Meta"]);

        let c = Chord::parse("ctrl++").unwrap();
        assert_eq!(c.key.unwrap().key, "+");
        let c = Chord::parse("+").unwrap();
        assert_eq!(c.mask, 0);
        assert_eq!(c.key.unwrap().code, "Equal");

        let c = Chord::parse("shift").unwrap();
        assert_eq!(c.mask, modifier::SHIFT);
        assert_eq!(c.key, None);
    }

    #[test]
    fn single_characters_and_errors() {
        let k = Chord::parse("7").unwrap().key.unwrap();
        assert_eq!(
            (k.code.as_str(), k.virtual_key, k.text.as_deref()),
            ("Digit7", 55, Some("7"))
        );
        let k = Chord::parse("é").unwrap().key.unwrap();
        assert_eq!(
            (k.key.as_str(), k.code.as_str(), k.virtual_key),
            ("é", "", 0)
        );
        let k = Chord::parse("comma").unwrap().key.unwrap();
        assert_eq!((k.key.as_str(), k.virtual_key), (",", 188));
        assert!(Chord::parse("").is_err());
        assert!(Chord::parse("ctrl+").is_err());
        assert!(Chord::parse("hyper+a")
            .unwrap_err()
            .contains("not a modifier"));
        assert!(Chord::parse("Sparkle")
            .unwrap_err()
            .contains("not a key name"));
    }
}
