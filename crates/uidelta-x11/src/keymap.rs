//! The server's keycode -> keysym table, and where to find or put a keysym in it.

use crate::keysym::Keysym;

/// The core keyboard mapping: for each keycode from `min_keycode`, `per_keycode` keysyms
/// (level 1, level 2 with shift, then further groups and levels).
#[derive(Debug, Clone)]
pub(crate) struct Keymap {
    pub(crate) min_keycode: u8,
    pub(crate) per_keycode: u8,
    pub(crate) keysyms: Vec<Keysym>,
}

/// How to produce a keysym with the current mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stroke {
    pub(crate) keycode: u8,
    /// Whether shift must be held: the keysym sits on the keycode's second level.
    pub(crate) shift: bool,
}

impl Keymap {
    fn rows(&self) -> impl Iterator<Item = (u8, &[Keysym])> + '_ {
        let width = usize::from(self.per_keycode.max(1));
        self.keysyms
            .chunks(width)
            .zip(self.min_keycode..=u8::MAX)
            .map(|(row, keycode)| (keycode, row))
    }

    /// The keysyms of one keycode, for restoring it later.
    pub(crate) fn row(&self, keycode: u8) -> Option<&[Keysym]> {
        self.rows()
            .find(|&(code, _)| code == keycode)
            .map(|(_, row)| row)
    }

    /// A keycode that produces `keysym` on its first level, or else with shift.
    /// Further levels need modifiers (AltGr) whose state we do not control; such keysyms are
    /// treated as absent and get a spare keycode instead.
    pub(crate) fn find(&self, keysym: Keysym) -> Option<Stroke> {
        let at_level = |level: usize| {
            self.rows()
                .find(|(_, row)| row.get(level) == Some(&keysym))
                .map(|(keycode, _)| Stroke {
                    keycode,
                    shift: level == 1,
                })
        };
        at_level(0).or_else(|| at_level(1))
    }

    /// Keycodes with no keysym at all, highest first: free to be remapped for a moment.
    pub(crate) fn spare_keycodes(&self) -> Vec<u8> {
        let mut spare: Vec<u8> = self
            .rows()
            .filter(|(_, row)| row.iter().all(|&keysym| keysym == 0))
            .map(|(code, _)| code)
            .collect();
        spare.reverse();
        spare
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keymap() -> Keymap {
        // keycodes 8..=11: `a A`, empty, `Shift_L`, `< >`, and 12 with `|` only on level 3.
        Keymap {
            min_keycode: 8,
            per_keycode: 3,
            keysyms: vec![
                0x61, 0x41, 0, 0, 0, 0, 0xffe1, 0, 0, 0x3c, 0x3e, 0, 0, 0, 0x7c,
            ],
        }
    }

    #[test]
    fn finds_keysyms_on_the_first_two_levels() {
        let keymap = keymap();
        assert_eq!(
            keymap.find(0x61),
            Some(Stroke {
                keycode: 8,
                shift: false
            })
        );
        assert_eq!(
            keymap.find(0x41),
            Some(Stroke {
                keycode: 8,
                shift: true
            })
        );
        assert_eq!(
            keymap.find(0xffe1),
            Some(Stroke {
                keycode: 10,
                shift: false
            })
        );
        assert_eq!(
            keymap.find(0x3e),
            Some(Stroke {
                keycode: 11,
                shift: true
            })
        );
        assert_eq!(keymap.find(0x7c), None, "level 3 needs AltGr");
        assert_eq!(keymap.find(0x20ac), None);
    }

    #[test]
    fn spare_keycodes_are_the_empty_ones_highest_first() {
        let mut keymap = keymap();
        keymap.keysyms.extend([0, 0, 0]);
        assert_eq!(keymap.spare_keycodes(), vec![13, 9]);
        assert_eq!(keymap.row(11), Some(&[0x3c, 0x3e, 0][..]));
        assert_eq!(keymap.row(200), None);
    }
}
