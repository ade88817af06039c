//! Key names, keysyms and chords such as `ctrl+shift+z`.
//!
//! Keysym values are those of the X11 protocol (`keysymdef.h`); Unicode characters outside
//! Latin-1 use the `0x0100_0000 + code point` keysyms that X defines for them.

/// A keysym: the X11 number for a symbol on a key (`Return` is `0xff0d`, `a` is `0x61`).
pub type Keysym = u32;

/// X11 key names and the aliases agents tend to use, matched case-insensitively.
const NAMES: &[(&str, Keysym)] = &[
    ("Return", 0xff0d),
    ("Enter", 0xff0d),
    ("KP_Enter", 0xff8d),
    ("Tab", 0xff09),
    ("ISO_Left_Tab", 0xfe20),
    ("Escape", 0xff1b),
    ("Esc", 0xff1b),
    ("BackSpace", 0xff08),
    ("Delete", 0xffff),
    ("Del", 0xffff),
    ("Insert", 0xff63),
    ("Ins", 0xff63),
    ("Home", 0xff50),
    ("End", 0xff57),
    ("Page_Up", 0xff55),
    ("PageUp", 0xff55),
    ("PgUp", 0xff55),
    ("Prior", 0xff55),
    ("Page_Down", 0xff56),
    ("PageDown", 0xff56),
    ("PgDn", 0xff56),
    ("Next", 0xff56),
    ("Left", 0xff51),
    ("Up", 0xff52),
    ("Right", 0xff53),
    ("Down", 0xff54),
    ("ArrowLeft", 0xff51),
    ("ArrowUp", 0xff52),
    ("ArrowRight", 0xff53),
    ("ArrowDown", 0xff54),
    ("space", 0x20),
    ("Spacebar", 0x20),
    ("Menu", 0xff67),
    ("ContextMenu", 0xff67),
    ("Print", 0xff61),
    ("PrintScreen", 0xff61),
    ("Pause", 0xff13),
    ("Scroll_Lock", 0xff14),
    ("Num_Lock", 0xff7f),
    ("Caps_Lock", 0xffe5),
    ("Shift_L", 0xffe1),
    ("Shift_R", 0xffe2),
    ("Control_L", 0xffe3),
    ("Control_R", 0xffe4),
    ("Meta_L", 0xffe7),
    ("Meta_R", 0xffe8),
    ("Alt_L", 0xffe9),
    ("Alt_R", 0xffea),
    ("Super_L", 0xffeb),
    ("Super_R", 0xffec),
    ("ISO_Level3_Shift", 0xfe03),
    ("plus", 0x2b),
    ("minus", 0x2d),
    ("equal", 0x3d),
    ("comma", 0x2c),
    ("period", 0x2e),
    ("slash", 0x2f),
    ("backslash", 0x5c),
    ("semicolon", 0x3b),
    ("colon", 0x3a),
    ("apostrophe", 0x27),
    ("quotedbl", 0x22),
    ("grave", 0x60),
    ("bracketleft", 0x5b),
    ("bracketright", 0x5d),
    ("braceleft", 0x7b),
    ("braceright", 0x7d),
    ("parenleft", 0x28),
    ("parenright", 0x29),
    ("less", 0x3c),
    ("greater", 0x3e),
    ("question", 0x3f),
    ("exclam", 0x21),
    ("at", 0x40),
    ("numbersign", 0x23),
    ("dollar", 0x24),
    ("percent", 0x25),
    ("asciicircum", 0x5e),
    ("ampersand", 0x26),
    ("asterisk", 0x2a),
    ("underscore", 0x5f),
    ("bar", 0x7c),
    ("asciitilde", 0x7e),
];

/// Modifier names in chords, with the keysym pressed for each.
const MODIFIERS: &[(&str, Keysym)] = &[
    ("ctrl", 0xffe3),
    ("control", 0xffe3),
    ("shift", 0xffe1),
    ("alt", 0xffe9),
    ("option", 0xffe9),
    ("super", 0xffeb),
    ("meta", 0xffeb),
    ("win", 0xffeb),
    ("cmd", 0xffeb),
    ("altgr", 0xfe03),
];

const SHIFT_L: Keysym = 0xffe1;
/// `F1`; `F2`..`F35` follow it without gaps.
const F1: Keysym = 0xffbe;

/// The keysym of a key name: X11 names (`Return`, `Page_Down`, `F5`, `BackSpace`), common
/// aliases (`enter`, `esc`, `pgdn`, `del`, `ArrowLeft`), modifiers (`ctrl`, `shift`, `alt`,
/// `super`/`meta`), or a single character (`a`, `A`, `é`, `€`).
///
/// Names are matched case-insensitively; a single character is taken as is, so `A` is the
/// capital letter. Returns `None` for anything else.
pub fn keysym(name: &str) -> Option<Keysym> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return char_keysym(c);
    }
    if let Some(&(_, keysym)) = MODIFIERS
        .iter()
        .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
    {
        return Some(keysym);
    }
    if let Some(&(_, keysym)) = NAMES
        .iter()
        .find(|(known, _)| known.eq_ignore_ascii_case(name))
    {
        return Some(keysym);
    }
    function_key(name)
}

/// `F1`..`F35`, either case.
fn function_key(name: &str) -> Option<Keysym> {
    let number: u32 = name.strip_prefix(['F', 'f'])?.parse().ok()?;
    // `parse` accepts `+5`; key names do not.
    if !name[1..].bytes().all(|b| b.is_ascii_digit()) || !(1..=35).contains(&number) {
        return None;
    }
    Some(F1 + number - 1)
}

/// The keysym that types `c`: Latin-1 characters are their own keysyms, other characters use
/// the Unicode keysym range; newline and tab map to `Return` and `Tab`. Control characters
/// other than those have no keysym.
pub fn char_keysym(c: char) -> Option<Keysym> {
    match c {
        '\n' | '\r' => Some(0xff0d),
        '\t' => Some(0xff09),
        c if c.is_control() => None,
        ' '..='~' | '\u{a0}'..='\u{ff}' => Some(u32::from(c)),
        c => Some(0x0100_0000 + u32::from(c)),
    }
}

/// A parsed key chord: modifiers held down, in order, around one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chord {
    /// Modifier keysyms, pressed in this order and released in reverse.
    pub modifiers: Vec<Keysym>,
    /// The key pressed and released while the modifiers are held.
    pub key: Keysym,
}

/// Why a chord could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChordError {
    /// The chord was empty or only whitespace.
    #[error("empty key chord")]
    Empty,
    /// A part of the chord names no key.
    #[error("unknown key `{0}`")]
    UnknownKey(String),
    /// A part before the last one is not a modifier (`a+b`).
    #[error("`{0}` is not a modifier (ctrl, shift, alt, super, meta, altgr); only the last key of a chord may be another key")]
    NotAModifier(String),
    /// A `+` with nothing on one side (`ctrl+`).
    #[error("missing key in chord `{0}`")]
    MissingKey(String),
}

impl Chord {
    /// Parses `ctrl+s`, `shift+Tab`, `ctrl+shift+z`, `alt+F4`, `Return`, `a`, `ctrl++`.
    ///
    /// Parts are joined with `+` and may be surrounded by spaces; `+` itself is written `plus`,
    /// or as the last part (`ctrl++`). A lone modifier (`shift`) is a key of its own. In a chord
    /// with modifiers but without `shift`, a capital letter means the letter key, so `ctrl+S`
    /// is `ctrl+s`; write `ctrl+shift+s` for the shifted one.
    pub fn parse(chord: &str) -> Result<Chord, ChordError> {
        let chord = chord.trim();
        if chord.is_empty() {
            return Err(ChordError::Empty);
        }
        let (rest, last) = match chord.strip_suffix("++") {
            Some(rest) => (rest, "+"),
            None if chord == "+" => ("", "+"),
            None => match chord.rsplit_once('+') {
                Some((rest, last)) => (rest, last.trim()),
                None => ("", chord),
            },
        };
        if last.is_empty() {
            return Err(ChordError::MissingKey(chord.to_string()));
        }
        let mut modifiers = Vec::new();
        if !rest.is_empty() {
            for part in rest.split('+').map(str::trim) {
                if part.is_empty() {
                    return Err(ChordError::MissingKey(chord.to_string()));
                }
                let modifier = MODIFIERS
                    .iter()
                    .find(|(alias, _)| alias.eq_ignore_ascii_case(part));
                match modifier {
                    Some(&(_, keysym)) => modifiers.push(keysym),
                    None if keysym(part).is_some() => {
                        return Err(ChordError::NotAModifier(part.to_string()))
                    }
                    None => return Err(ChordError::UnknownKey(part.to_string())),
                }
            }
        }
        let mut key = keysym(last).ok_or_else(|| ChordError::UnknownKey(last.to_string()))?;
        let is_capital = |key: Keysym| (u32::from(b'A')..=u32::from(b'Z')).contains(&key);
        if !modifiers.is_empty() && !modifiers.contains(&SHIFT_L) && is_capital(key) {
            key += u32::from(b'a' - b'A');
        }
        Ok(Chord { modifiers, key })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTROL_L: Keysym = 0xffe3;
    const ALT_L: Keysym = 0xffe9;
    const SUPER_L: Keysym = 0xffeb;

    fn chord(modifiers: &[Keysym], key: Keysym) -> Chord {
        Chord {
            modifiers: modifiers.to_vec(),
            key,
        }
    }

    #[test]
    fn names_resolve_case_insensitively() {
        assert_eq!(keysym("Return"), Some(0xff0d));
        assert_eq!(keysym("return"), Some(0xff0d));
        assert_eq!(keysym("enter"), Some(0xff0d));
        assert_eq!(keysym("Tab"), Some(0xff09));
        assert_eq!(keysym("ESC"), Some(0xff1b));
        assert_eq!(keysym("BackSpace"), Some(0xff08));
        assert_eq!(keysym("del"), Some(0xffff));
        assert_eq!(keysym("Page_Down"), Some(0xff56));
        assert_eq!(keysym("pgdn"), Some(0xff56));
        assert_eq!(keysym("pgup"), Some(0xff55));
        assert_eq!(keysym("Home"), Some(0xff50));
        assert_eq!(keysym("End"), Some(0xff57));
        assert_eq!(keysym("Insert"), Some(0xff63));
        assert_eq!(keysym("Menu"), Some(0xff67));
        assert_eq!(keysym("space"), Some(0x20));
        assert_eq!(keysym("Left"), Some(0xff51));
        assert_eq!(keysym("up"), Some(0xff52));
        assert_eq!(keysym("Right"), Some(0xff53));
        assert_eq!(keysym("DOWN"), Some(0xff54));
        assert_eq!(keysym("ArrowDown"), Some(0xff54));
    }

    #[test]
    fn function_keys_run_from_f1_to_f24_and_beyond() {
        assert_eq!(keysym("F1"), Some(0xffbe));
        assert_eq!(keysym("f5"), Some(0xffc2));
        assert_eq!(keysym("F12"), Some(0xffc9));
        assert_eq!(keysym("F24"), Some(0xffd5));
        assert_eq!(keysym("F0"), None);
        assert_eq!(keysym("F36"), None);
        assert_eq!(keysym("F+1"), None);
        assert_eq!(keysym("Foo"), None);
    }

    #[test]
    fn modifiers_have_keysyms() {
        assert_eq!(keysym("ctrl"), Some(CONTROL_L));
        assert_eq!(keysym("Control"), Some(CONTROL_L));
        assert_eq!(keysym("shift"), Some(SHIFT_L));
        assert_eq!(keysym("alt"), Some(ALT_L));
        assert_eq!(keysym("super"), Some(SUPER_L));
        assert_eq!(keysym("meta"), Some(SUPER_L));
    }

    #[test]
    fn single_characters_are_case_sensitive() {
        assert_eq!(keysym("a"), Some(0x61));
        assert_eq!(keysym("A"), Some(0x41));
        assert_eq!(keysym("1"), Some(0x31));
        assert_eq!(keysym("+"), Some(0x2b));
        assert_eq!(keysym("é"), Some(0xe9));
        assert_eq!(keysym("€"), Some(0x0100_20ac));
        assert_eq!(keysym("日"), Some(0x0100_65e5));
    }

    #[test]
    fn characters_map_to_keysyms() {
        assert_eq!(char_keysym('\n'), Some(0xff0d));
        assert_eq!(char_keysym('\t'), Some(0xff09));
        assert_eq!(char_keysym('\u{7}'), None);
        assert_eq!(char_keysym('\u{7f}'), None);
        assert_eq!(char_keysym('ÿ'), Some(0xff));
        assert_eq!(char_keysym('😀'), Some(0x0101_f600));
    }

    #[test]
    fn unknown_names_have_no_keysym() {
        assert_eq!(keysym("foo"), None);
        assert_eq!(keysym(""), None);
        assert_eq!(keysym("ctrl+s"), None);
    }

    #[test]
    fn chords_parse() {
        assert_eq!(Chord::parse("ctrl+s"), Ok(chord(&[CONTROL_L], 0x73)));
        assert_eq!(Chord::parse("Return"), Ok(chord(&[], 0xff0d)));
        assert_eq!(Chord::parse("shift+Tab"), Ok(chord(&[SHIFT_L], 0xff09)));
        assert_eq!(Chord::parse("alt+F4"), Ok(chord(&[ALT_L], 0xffc1)));
        assert_eq!(
            Chord::parse("ctrl+shift+z"),
            Ok(chord(&[CONTROL_L, SHIFT_L], 0x7a))
        );
        assert_eq!(
            Chord::parse(" Ctrl + Alt + Delete "),
            Ok(chord(&[CONTROL_L, ALT_L], 0xffff))
        );
        assert_eq!(Chord::parse("a"), Ok(chord(&[], 0x61)));
        assert_eq!(Chord::parse("A"), Ok(chord(&[], 0x41)));
        assert_eq!(Chord::parse("shift"), Ok(chord(&[], SHIFT_L)));
        assert_eq!(Chord::parse("super+e"), Ok(chord(&[SUPER_L], 0x65)));
    }

    #[test]
    fn capital_letters_with_modifiers_mean_the_letter_key() {
        assert_eq!(Chord::parse("ctrl+S"), Chord::parse("ctrl+s"));
        assert_eq!(
            Chord::parse("ctrl+shift+S"),
            Ok(chord(&[CONTROL_L, SHIFT_L], 0x53))
        );
    }

    #[test]
    fn plus_can_be_the_key() {
        assert_eq!(Chord::parse("+"), Ok(chord(&[], 0x2b)));
        assert_eq!(Chord::parse("ctrl++"), Ok(chord(&[CONTROL_L], 0x2b)));
        assert_eq!(Chord::parse("ctrl+plus"), Ok(chord(&[CONTROL_L], 0x2b)));
    }

    #[test]
    fn bad_chords_say_what_is_wrong() {
        assert_eq!(Chord::parse(""), Err(ChordError::Empty));
        assert_eq!(Chord::parse("   "), Err(ChordError::Empty));
        assert_eq!(
            Chord::parse("foo"),
            Err(ChordError::UnknownKey("foo".into()))
        );
        assert_eq!(
            Chord::parse("ctrl+foo"),
            Err(ChordError::UnknownKey("foo".into()))
        );
        assert_eq!(
            Chord::parse("hyper+a"),
            Err(ChordError::UnknownKey("hyper".into()))
        );
        assert_eq!(
            Chord::parse("a+b"),
            Err(ChordError::NotAModifier("a".into()))
        );
        assert_eq!(
            Chord::parse("ctrl+"),
            Err(ChordError::MissingKey("ctrl+".into()))
        );
        assert_eq!(
            Chord::parse("ctrl++s"),
            Err(ChordError::MissingKey("ctrl++s".into()))
        );
        assert_eq!(
            Chord::parse("ctrl+foo").unwrap_err().to_string(),
            "unknown key `foo`"
        );
    }
}
