//! Synthesized input and screenshots straight from the X server.
//!
//! This is the fallback path of uidelta's Linux backend: when an element offers no
//! accessibility action, it is clicked, typed into or scrolled with XTest events at its
//! coordinates, and screenshots come from `GetImage` on the root window. Everything speaks the
//! X protocol directly through `x11rb`; no `xdotool` or other program runs.
//!
//! Every request is checked, so an error surfaces in the call that caused it, and every input
//! call returns only after the server has processed its events.

mod image;
mod keymap;
mod keysym;
mod made;
mod windows;

use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

use x11rb::connection::{Connection, RequestConnection};
use x11rb::errors::{ConnectError, ReplyError};
use x11rb::protocol::xproto::{self, ImageFormat, ImageOrder, Window};
use x11rb::protocol::xtest;
use x11rb::rust_connection::RustConnection;

pub use keysym::{char_keysym, keysym, Chord, ChordError, Keysym};
pub use made::MadeWindows;
pub use windows::{Area, TopWindow, WindowAt};

use image::PixelLayout;
use keymap::{Keymap, Stroke};

/// How long a temporarily remapped keycode stays mapped after its last key event.
///
/// Toolkits translate a keycode with the mapping they hold when they process the event, and
/// after a mapping change they fetch the new one lazily; restoring too early would turn the
/// character into nothing. The wait is paid only by text with characters not in the keymap.
const REMAP_SETTLE: Duration = Duration::from_millis(100);

/// How long a click holds its button down, as a hand does. Some widgets
/// miss a press released at the same instant (LibreOffice's buttons beside
/// Calc's sheet tabs did nothing); a click's press and release are that far
/// apart, well within any toolkit's multi-click time. Wheel clicks are not
/// held.
pub const CLICK_HOLD: Duration = Duration::from_millis(20);

/// How long the pointer rests on the pixel beside a click's point before it
/// comes to the point ([`X11::approach`]): more than a frame at 60 Hz, so
/// that a toolkit that handles motion once a frame sees two motions, not
/// one. GTK 4, once a popover that held the pointer closed, takes the first
/// motion it sees to find the pointer again, and ignores a press that comes
/// with no motion after it: the calculator's mode menu, clicked again a
/// second after Escape closed it, opened 116 times of 120 when both motions
/// came at once (44 of 60 when the press came 30 ms after them, 20 of 30
/// with no motion at all), and 120 of 120 with this pause between them.
pub const APPROACH_PAUSE: Duration = Duration::from_millis(30);

/// The most wheel clicks one scroll call sends per axis.
const MAX_SCROLL: u32 = 1000;

const SHIFT_L: Keysym = 0xffe1;

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Button {
    /// The primary button (X button 1).
    Left,
    /// The middle button or wheel press (X button 2).
    Middle,
    /// The secondary button (X button 3).
    Right,
}

impl Button {
    fn number(self) -> u8 {
        match self {
            Button::Left => 1,
            Button::Middle => 2,
            Button::Right => 3,
        }
    }
}

impl fmt::Display for Button {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Button::Left => "left",
            Button::Middle => "middle",
            Button::Right => "right",
        })
    }
}

/// An input or screenshot call that failed, saying what was being done on which display:
/// `pressing ctrl+foo on :7: unknown key `foo``.
#[derive(Debug, thiserror::Error)]
pub enum X11Error {
    /// The X server could not be reached.
    #[error("connecting to X display `{display}`: {reason}")]
    Connect {
        /// The display that was asked for.
        display: String,
        /// Why the connection failed.
        reason: ConnectError,
    },
    /// The server lacks the XTEST extension, so input cannot be synthesized.
    #[error("connecting to X display `{display}`: the server has no XTEST extension, which synthesized input needs")]
    NoXTest {
        /// The display.
        display: String,
    },
    /// A call failed after connecting.
    #[error("{action} on {display}: {reason}")]
    Failed {
        /// What was being done (`pressing ctrl+s`, `typing 12 characters`).
        action: String,
        /// The display.
        display: String,
        /// What went wrong.
        reason: Failure,
    },
}

/// What went wrong in an [`X11Error::Failed`] call.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// The key chord did not parse.
    #[error("{0}")]
    Chord(ChordError),
    /// The server rejected a request, or the connection broke.
    #[error("X request failed: {0}")]
    Request(ReplyError),
    /// A modifier key has no keycode, so it cannot be pressed.
    #[error("modifier keysym {0:#x} has no keycode in the keymap")]
    NoModifierKeycode(Keysym),
    /// Every unused keycode is taken, so a keysym outside the keymap cannot be mapped.
    #[error("no unused keycode is left to map keysym {0:#x} to")]
    NoSpareKeycode(Keysym),
    /// Control characters other than newline and tab cannot be typed.
    #[error("cannot type the control character {0:?}")]
    ControlCharacter(char),
    /// A point outside the screen.
    #[error("point ({x}, {y}) lies outside the {width}x{height} screen")]
    PointOutsideScreen {
        /// Horizontal coordinate.
        x: i32,
        /// Vertical coordinate.
        y: i32,
        /// Screen width.
        width: u32,
        /// Screen height.
        height: u32,
    },
    /// A screenshot area that does not overlap the screen.
    #[error("area {w}x{h} at ({x}, {y}) does not overlap the {width}x{height} screen")]
    AreaOutsideScreen {
        /// Left edge.
        x: i32,
        /// Top edge.
        y: i32,
        /// Width.
        w: u32,
        /// Height.
        h: u32,
        /// Screen width.
        width: u32,
        /// Screen height.
        height: u32,
    },
    /// A click with a count of zero.
    #[error("a click needs a count of at least 1")]
    ZeroClicks,
    /// A scroll of more wheel clicks than allowed in one call.
    #[error("{0} wheel clicks exceed the limit of {MAX_SCROLL} per call")]
    TooMuchScroll(u32),
    /// The root window's pixel format is not a true-colour format this crate converts.
    #[error("unsupported image format: depth {depth}, {bits_per_pixel} bits per pixel")]
    UnsupportedImage {
        /// Image depth.
        depth: u8,
        /// Bits per pixel of that depth.
        bits_per_pixel: u8,
    },
    /// The server gave this connection no more ids for new resources.
    #[error("the X server has no more resource ids for this connection")]
    IdsExhausted,
    /// A thread could not be started.
    #[error("starting a thread: {0}")]
    Thread(std::io::Error),
    /// PNG encoding failed.
    #[error("encoding the PNG: {0}")]
    Png(png::EncodingError),
}

impl From<ReplyError> for Failure {
    fn from(error: ReplyError) -> Self {
        Failure::Request(error)
    }
}

impl From<x11rb::errors::ReplyOrIdError> for Failure {
    fn from(error: x11rb::errors::ReplyOrIdError) -> Self {
        use x11rb::errors::ReplyOrIdError;
        match error {
            ReplyOrIdError::IdsExhausted => Failure::IdsExhausted,
            ReplyOrIdError::ConnectionError(e) => Failure::Request(e.into()),
            ReplyOrIdError::X11Error(e) => Failure::Request(e.into()),
        }
    }
}

impl From<x11rb::errors::ConnectionError> for Failure {
    fn from(error: x11rb::errors::ConnectionError) -> Self {
        Failure::Request(error.into())
    }
}

/// A connection to one X display for synthesized input (XTest) and screenshots.
///
/// Calls take `&self` and may come from several threads; keyboard calls are serialized
/// because they may remap keycodes for a moment.
pub struct X11 {
    conn: RustConnection,
    display: String,
    root: Window,
    width: u16,
    height: u16,
    /// Held while keys are pressed, so two calls never share a temporarily remapped keycode.
    keyboard: Mutex<()>,
    /// Atoms interned so far: an atom never changes on a connection.
    atoms: Mutex<Vec<(&'static [u8], u32)>>,
}

impl fmt::Debug for X11 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("X11")
            .field("display", &self.display)
            .field("size", &(self.width, self.height))
            .finish_non_exhaustive()
    }
}

impl X11 {
    /// Connects to `display` (such as `:7`) and checks that it offers XTEST.
    pub fn connect(display: &str) -> Result<X11, X11Error> {
        let (conn, screen) = x11rb::connect(Some(display)).map_err(|reason| X11Error::Connect {
            display: display.to_string(),
            reason,
        })?;
        let Some(root_screen) = conn.setup().roots.get(screen) else {
            return Err(X11Error::Connect {
                display: display.to_string(),
                reason: ConnectError::InvalidScreen,
            });
        };
        let (root, width, height) = (
            root_screen.root,
            root_screen.width_in_pixels,
            root_screen.height_in_pixels,
        );
        let has_xtest = conn
            .extension_information(xtest::X11_EXTENSION_NAME)
            .map_err(|error| X11Error::Failed {
                action: "connecting".into(),
                display: display.to_string(),
                reason: error.into(),
            })?
            .is_some();
        if !has_xtest {
            return Err(X11Error::NoXTest {
                display: display.to_string(),
            });
        }
        Ok(X11 {
            conn,
            display: display.to_string(),
            root,
            width,
            height,
            keyboard: Mutex::new(()),
            atoms: Mutex::new(Vec::new()),
        })
    }

    /// The display this connection talks to.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// Whether the X server still answers on this connection (one round
    /// trip): an error once the connection is broken, as it is when the
    /// server has ended.
    pub fn check(&self) -> Result<(), X11Error> {
        self.run(
            || "checking the connection".into(),
            || {
                xproto::get_input_focus(&self.conn)?.reply()?;
                Ok(())
            },
        )
    }

    /// Width and height of the screen in pixels.
    pub fn screen_size(&self) -> (u32, u32) {
        (u32::from(self.width), u32::from(self.height))
    }

    /// Moves the pointer to (`x`, `y`) in screen coordinates.
    pub fn move_pointer(&self, x: i32, y: i32) -> Result<(), X11Error> {
        self.run(
            || format!("moving the pointer to ({x}, {y})"),
            || self.fake_motion(x, y),
        )
    }

    /// Brings the pointer to (`x`, `y`) as a hand does ([`X11::approach`], then
    /// [`APPROACH_PAUSE`]) and clicks `button` `count` times (2 for a double click), fast
    /// enough for toolkits to see one multi-click. Each press is held [`CLICK_HOLD`]; the
    /// pauses are slept on the calling thread, and an asynchronous caller approaches with
    /// [`X11::approach`], presses with [`X11::press_at`] and releases with [`X11::release`]
    /// instead, awaiting the pauses.
    pub fn click(&self, x: i32, y: i32, button: Button, count: u32) -> Result<(), X11Error> {
        let action = || match count {
            1 => format!("clicking {button} at ({x}, {y})"),
            n => format!("clicking {button} {n} times at ({x}, {y})"),
        };
        self.run(action, || {
            if count == 0 {
                return Err(Failure::ZeroClicks);
            }
            self.fake_approach(x, y)?;
            std::thread::sleep(APPROACH_PAUSE);
            self.fake_motion(x, y)?;
            for _ in 0..count {
                self.fake_button(button.number(), xproto::BUTTON_PRESS_EVENT)?;
                std::thread::sleep(CLICK_HOLD);
                self.fake_button(button.number(), xproto::BUTTON_RELEASE_EVENT)?;
            }
            Ok(())
        })
    }

    /// Moves the pointer to the pixel beside (`x`, `y`), the first half of a hand's
    /// approach to it: a pointer already at the point sends no motion at all, and a
    /// toolkit that lost track of it ignores a press it did not see the pointer come to
    /// (see [`APPROACH_PAUSE`], the rest before [`X11::press_at`] brings it to the point).
    pub fn approach(&self, x: i32, y: i32) -> Result<(), X11Error> {
        self.run(
            || format!("bringing the pointer to ({x}, {y})"),
            || self.fake_approach(x, y),
        )
    }

    /// Moves the pointer to (`x`, `y`) and presses `button`, leaving it down until
    /// [`X11::release`]: a click whose hold the caller decides and waits out.
    pub fn press_at(&self, x: i32, y: i32, button: Button) -> Result<(), X11Error> {
        self.run(
            || format!("pressing {button} at ({x}, {y})"),
            || {
                self.fake_motion(x, y)?;
                self.fake_button(button.number(), xproto::BUTTON_PRESS_EVENT)
            },
        )
    }

    /// Releases `button` where the pointer is (after [`X11::press_at`]).
    pub fn release(&self, button: Button) -> Result<(), X11Error> {
        self.run(
            || format!("releasing {button}"),
            || self.fake_button(button.number(), xproto::BUTTON_RELEASE_EVENT),
        )
    }

    /// Moves the pointer to (`x`, `y`) and turns the wheel: one click per unit, `dy > 0` down,
    /// `dy < 0` up, `dx > 0` right, `dx < 0` left (X buttons 5, 4, 7, 6).
    pub fn scroll(&self, x: i32, y: i32, dx: i32, dy: i32) -> Result<(), X11Error> {
        self.run(
            || format!("scrolling by ({dx}, {dy}) at ({x}, {y})"),
            || {
                let clicks = |delta: i32, negative: u8, positive: u8| {
                    let count = delta.unsigned_abs();
                    if count > MAX_SCROLL {
                        return Err(Failure::TooMuchScroll(count));
                    }
                    Ok((if delta < 0 { negative } else { positive }, count))
                };
                let vertical = clicks(dy, 4, 5)?;
                let horizontal = clicks(dx, 6, 7)?;
                self.fake_motion(x, y)?;
                for (button, count) in [vertical, horizontal] {
                    for _ in 0..count {
                        self.fake_button(button, xproto::BUTTON_PRESS_EVENT)?;
                        self.fake_button(button, xproto::BUTTON_RELEASE_EVENT)?;
                    }
                }
                Ok(())
            },
        )
    }

    /// Presses a key or chord such as `ctrl+s`, `Return`, `shift+Tab`, `alt+F4` or
    /// `ctrl+shift+z` (see [`Chord::parse`]): modifiers down in order, the key down and up,
    /// modifiers up in reverse. A key missing from the keymap is mapped to an unused keycode
    /// for the moment it is pressed.
    pub fn key(&self, chord: &str) -> Result<(), X11Error> {
        self.run(
            || format!("pressing {chord}"),
            || {
                let (chord, _keyboard, keymap) = self.chord_on_keyboard(chord)?;
                let modifiers = chord
                    .modifiers
                    .iter()
                    .map(|&modifier| match keymap.find(modifier) {
                        Some(Stroke {
                            keycode,
                            shift: false,
                        }) => Ok(keycode),
                        _ => Err(Failure::NoModifierKeycode(modifier)),
                    })
                    .collect::<Result<Vec<u8>, Failure>>()?;
                self.with_keysyms(&keymap, &[chord.key], |strokes| {
                    self.press_stroke(&keymap, &modifiers, strokes[0])
                })
            },
        )
    }

    /// Whether another program holds `chord` on the whole display: a passive grab of its
    /// key with its modifiers on the root window, as window managers and desktops take
    /// their shortcuts (xfwm4's ctrl+F5 switches to a workspace, alt+F4 closes a window).
    /// The key then goes to that program, not to the focused window. Found by asking for
    /// the same grab, which the server refuses (`BadAccess`) when another client holds it;
    /// one granted is let go at once. A key or modifier the keymap lacks is held by no one
    /// (pressing it maps it anew). Locks (Caps Lock, Num Lock) are taken as off.
    pub fn held_elsewhere(&self, chord: &str) -> Result<bool, X11Error> {
        self.run(
            || format!("asking whether another program holds {chord}"),
            || {
                let (chord, _keyboard, keymap) = self.chord_on_keyboard(chord)?;
                let Some(stroke) = keymap.find(chord.key) else {
                    return Ok(false);
                };
                let mapping = xproto::get_modifier_mapping(&self.conn)?.reply()?;
                let per = usize::from(mapping.keycodes_per_modifier()).max(1);
                let bit_of = |keycode: u8| {
                    mapping
                        .keycodes
                        .chunks(per)
                        .position(|codes| codes.contains(&keycode))
                };
                let mut mask = if stroke.shift {
                    u16::from(xproto::ModMask::SHIFT)
                } else {
                    0
                };
                for &modifier in &chord.modifiers {
                    let Some(bit) = keymap.find(modifier).and_then(|m| bit_of(m.keycode)) else {
                        return Ok(false);
                    };
                    mask |= 1 << bit;
                }
                let mask = xproto::ModMask::from(mask);
                let grabbed = xproto::grab_key(
                    &self.conn,
                    false,
                    self.root,
                    mask,
                    stroke.keycode,
                    xproto::GrabMode::ASYNC,
                    xproto::GrabMode::ASYNC,
                )?
                .check();
                match grabbed {
                    Ok(()) => {
                        xproto::ungrab_key(&self.conn, stroke.keycode, self.root, mask)?.check()?;
                        Ok(false)
                    }
                    Err(ReplyError::X11Error(e))
                        if e.error_kind == x11rb::protocol::ErrorKind::Access =>
                    {
                        Ok(true)
                    }
                    Err(e) => Err(e.into()),
                }
            },
        )
    }

    /// Types `text` character by character. Characters the keymap has (on the first level or
    /// with shift) are typed with their keys; any other character, such as `€` or `日` on a US
    /// keymap, is mapped to an unused keycode for the duration of the call (with
    /// `ChangeKeyboardMapping`) and the keycode is restored afterwards. Newline and tab type
    /// `Return` and `Tab`; carriage returns are skipped, so `\r\n` is one `Return`.
    ///
    /// Error messages give the length of the text, never the text, which may be a password.
    pub fn type_text(&self, text: &str) -> Result<(), X11Error> {
        self.run(
            || format!("typing {} characters", text.chars().count()),
            || {
                let keysyms = text
                    .chars()
                    .filter(|&c| c != '\r')
                    .map(|c| char_keysym(c).ok_or(Failure::ControlCharacter(c)))
                    .collect::<Result<Vec<Keysym>, Failure>>()?;
                let _keyboard = self
                    .keyboard
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                let keymap = self.keymap()?;
                let spare_count = keymap.spare_keycodes().len().max(1);
                // Each chunk needs at most as many remapped keycodes as there are spare ones.
                let mut start = 0;
                while start < keysyms.len() {
                    let mut unmapped: Vec<Keysym> = Vec::new();
                    let mut end = start;
                    while end < keysyms.len() {
                        let keysym = keysyms[end];
                        if keymap.find(keysym).is_none() && !unmapped.contains(&keysym) {
                            if unmapped.len() == spare_count {
                                break;
                            }
                            unmapped.push(keysym);
                        }
                        end += 1;
                    }
                    self.with_keysyms(&keymap, &keysyms[start..end], |strokes| {
                        strokes
                            .iter()
                            .try_for_each(|&stroke| self.press_stroke(&keymap, &[], stroke))
                    })?;
                    start = end;
                }
                Ok(())
            },
        )
    }

    /// A PNG of the whole screen, or of `area` = (x, y, width, height) clipped to the screen.
    /// An area that does not overlap the screen is an error.
    ///
    /// Costs one `GetImage` round trip (5 MB for a 1280x1024 screen) and a fast PNG encode.
    pub fn screenshot(&self, area: Option<(i32, i32, u32, u32)>) -> Result<Vec<u8>, X11Error> {
        let action = || match area {
            None => "taking a screenshot".to_string(),
            Some((x, y, w, h)) => format!("taking a screenshot of {w}x{h} at ({x}, {y})"),
        };
        self.run(action, || {
            let (w, h, rgb) = self.pixels(area)?;
            image::encode_png(w, h, &rgb).map_err(Failure::Png)
        })
    }

    /// Whether every pixel of `area` = (x, y, width, height), clipped to the screen, has
    /// the same colour: nothing is drawn there on a plain background. An area that does
    /// not overlap the screen is an error.
    pub fn is_plain(&self, area: (i32, i32, u32, u32)) -> Result<bool, X11Error> {
        let (x, y, w, h) = area;
        self.run(
            || format!("reading the pixels of {w}x{h} at ({x}, {y})"),
            || {
                let (_, _, rgb) = self.pixels(Some(area))?;
                let mut pixels = rgb.chunks_exact(3);
                let first = pixels.next();
                Ok(pixels.all(|p| Some(p) == first))
            },
        )
    }

    /// The width, height and RGB bytes (row after row) of the whole screen, or of `area`
    /// clipped to the screen.
    fn pixels(&self, area: Option<(i32, i32, u32, u32)>) -> Result<(u32, u32, Vec<u8>), Failure> {
        let (width, height) = self.screen_size();
        let (x, y, w, h) = match area {
            None => (0, 0, width, height),
            Some((x, y, w, h)) => {
                clip(x, y, w, h, width, height).ok_or(Failure::AreaOutsideScreen {
                    x,
                    y,
                    w,
                    h,
                    width,
                    height,
                })?
            }
        };
        // `clip` keeps everything inside the screen, whose sizes are u16.
        let [x, y] = [x, y].map(|v| i16::try_from(v).unwrap_or(i16::MAX));
        let [w, h] = [w, h].map(|v| u16::try_from(v).unwrap_or(u16::MAX));
        let reply = xproto::get_image(
            &self.conn,
            ImageFormat::Z_PIXMAP,
            self.root,
            x,
            y,
            w,
            h,
            u32::MAX,
        )?
        .reply()?;
        let layout = self.pixel_layout(reply.depth, reply.visual);
        let unsupported = || Failure::UnsupportedImage {
            depth: reply.depth,
            bits_per_pixel: layout.map(|layout| layout.bits_per_pixel).unwrap_or(0),
        };
        let rgb = layout
            .and_then(|layout| image::to_rgb(&reply.data, usize::from(w), usize::from(h), layout))
            .ok_or_else(unsupported)?;
        Ok((u32::from(w), u32::from(h), rgb))
    }

    /// Runs `body`, turning its failure into an error that names the action and the display.
    fn run<T>(
        &self,
        action: impl FnOnce() -> String,
        body: impl FnOnce() -> Result<T, Failure>,
    ) -> Result<T, X11Error> {
        body().map_err(|reason| X11Error::Failed {
            action: action(),
            display: self.display.clone(),
            reason,
        })
    }

    /// `chord` parsed, the keyboard held (its lock: keys pressed meanwhile by another call
    /// would share a remapped keycode) and its keymap read.
    fn chord_on_keyboard(
        &self,
        chord: &str,
    ) -> Result<(Chord, std::sync::MutexGuard<'_, ()>, Keymap), Failure> {
        let chord = Chord::parse(chord).map_err(Failure::Chord)?;
        let keyboard = self
            .keyboard
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Ok((chord, keyboard, self.keymap()?))
    }

    fn keymap(&self) -> Result<Keymap, Failure> {
        let setup = self.conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let reply = xproto::get_keyboard_mapping(
            &self.conn,
            min,
            max.saturating_sub(min).saturating_add(1),
        )?
        .reply()?;
        Ok(Keymap {
            min_keycode: min,
            per_keycode: reply.keysyms_per_keycode,
            keysyms: reply.keysyms,
        })
    }

    /// Resolves `keysyms` to strokes, mapping those absent from `keymap` to spare keycodes,
    /// runs `press` on them, and restores the spare keycodes afterwards (also when `press`
    /// fails). The caller guarantees that there are enough spare keycodes, or gets an error.
    fn with_keysyms(
        &self,
        keymap: &Keymap,
        keysyms: &[Keysym],
        press: impl FnOnce(&[Stroke]) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let mut spares = keymap.spare_keycodes().into_iter();
        let mut remapped: Vec<(Keysym, u8)> = Vec::new();
        let mut strokes = Vec::with_capacity(keysyms.len());
        for &keysym in keysyms {
            let stroke = match keymap.find(keysym) {
                Some(stroke) => stroke,
                None => match remapped.iter().find(|(mapped, _)| *mapped == keysym) {
                    Some(&(_, keycode)) => Stroke {
                        keycode,
                        shift: false,
                    },
                    None => {
                        let keycode = spares.next().ok_or(Failure::NoSpareKeycode(keysym))?;
                        remapped.push((keysym, keycode));
                        Stroke {
                            keycode,
                            shift: false,
                        }
                    }
                },
            };
            strokes.push(stroke);
        }
        if remapped.is_empty() {
            return press(&strokes);
        }
        let width = usize::from(keymap.per_keycode.max(1));
        let mut mapped = Vec::new();
        let mut result = remapped.iter().try_for_each(|&(keysym, keycode)| {
            // The same keysym with and without shift, so held modifiers do not change it.
            let mut row = vec![0; width];
            row[0] = keysym;
            if width > 1 {
                row[1] = keysym;
            }
            self.set_row(keycode, keymap.per_keycode, &row)?;
            mapped.push(keycode);
            Ok(())
        });
        if result.is_ok() {
            result = press(&strokes);
            std::thread::sleep(REMAP_SETTLE);
        }
        for keycode in mapped {
            let original = keymap
                .row(keycode)
                .map(<[Keysym]>::to_vec)
                .unwrap_or_else(|| vec![0; width]);
            let restored = self.set_row(keycode, keymap.per_keycode, &original);
            result = result.and(restored);
        }
        result
    }

    fn set_row(&self, keycode: u8, per_keycode: u8, row: &[Keysym]) -> Result<(), Failure> {
        xproto::change_keyboard_mapping(&self.conn, 1, keycode, per_keycode, row)?.check()?;
        Ok(())
    }

    /// Presses `modifiers` (and shift if the stroke needs it), then the key; releases all in
    /// reverse. Keys already pressed are released even when a later press fails.
    fn press_stroke(
        &self,
        keymap: &Keymap,
        modifiers: &[u8],
        stroke: Stroke,
    ) -> Result<(), Failure> {
        let mut held: Vec<u8> = modifiers.to_vec();
        if stroke.shift {
            let shift = match keymap.find(SHIFT_L) {
                Some(Stroke {
                    keycode,
                    shift: false,
                }) => keycode,
                _ => return Err(Failure::NoModifierKeycode(SHIFT_L)),
            };
            if !held.contains(&shift) {
                held.push(shift);
            }
        }
        held.push(stroke.keycode);
        let mut pressed = Vec::with_capacity(held.len());
        let mut result = Ok(());
        for &keycode in &held {
            result = self.fake_key(xproto::KEY_PRESS_EVENT, keycode);
            if result.is_err() {
                break;
            }
            pressed.push(keycode);
        }
        for &keycode in pressed.iter().rev() {
            let released = self.fake_key(xproto::KEY_RELEASE_EVENT, keycode);
            result = result.and(released);
        }
        result
    }

    fn fake_key(&self, event: u8, keycode: u8) -> Result<(), Failure> {
        xtest::fake_input(
            &self.conn,
            event,
            keycode,
            x11rb::CURRENT_TIME,
            self.root,
            0,
            0,
            0,
        )?
        .check()?;
        Ok(())
    }

    /// Presses (`BUTTON_PRESS_EVENT`) or releases `button`.
    fn fake_button(&self, button: u8, event: u8) -> Result<(), Failure> {
        xtest::fake_input(
            &self.conn,
            event,
            button,
            x11rb::CURRENT_TIME,
            self.root,
            0,
            0,
            0,
        )?
        .check()?;
        Ok(())
    }

    /// Moves the pointer to the pixel beside (`x`, `y`), refusing a point
    /// outside the screen (see [`X11::approach`]); on a screen one pixel
    /// wide there is none, and the pointer stays.
    fn fake_approach(&self, x: i32, y: i32) -> Result<(), Failure> {
        self.check_on_screen(x, y)?;
        let beside = if x > 0 { x - 1 } else { x + 1 };
        if self.check_on_screen(beside, y).is_err() {
            return Ok(());
        }
        self.fake_motion(beside, y)
    }

    /// Refuses a point outside the screen.
    fn check_on_screen(&self, x: i32, y: i32) -> Result<(), Failure> {
        let (width, height) = self.screen_size();
        let inside = |v: i32, size: u32| u32::try_from(v).is_ok_and(|v| v < size);
        if !inside(x, width) || !inside(y, height) {
            return Err(Failure::PointOutsideScreen {
                x,
                y,
                width,
                height,
            });
        }
        Ok(())
    }

    fn fake_motion(&self, x: i32, y: i32) -> Result<(), Failure> {
        self.check_on_screen(x, y)?;
        // Inside a screen whose sizes are u16, so these fit.
        let [x, y] = [x, y].map(|v| i16::try_from(v).unwrap_or(i16::MAX));
        // Detail 0: absolute coordinates on `root`.
        xtest::fake_input(
            &self.conn,
            xproto::MOTION_NOTIFY_EVENT,
            0,
            x11rb::CURRENT_TIME,
            self.root,
            x,
            y,
            0,
        )?
        .check()?;
        Ok(())
    }

    /// The layout of images of `depth` on `visual` (the root visual when the reply names none).
    fn pixel_layout(&self, depth: u8, visual: xproto::Visualid) -> Option<PixelLayout> {
        let setup = self.conn.setup();
        let format = setup
            .pixmap_formats
            .iter()
            .find(|format| format.depth == depth)?;
        let visual_type = setup
            .roots
            .iter()
            .flat_map(|screen| {
                let wanted = if visual == x11rb::NONE {
                    screen.root_visual
                } else {
                    visual
                };
                screen
                    .allowed_depths
                    .iter()
                    .flat_map(|d| &d.visuals)
                    .filter(move |v| v.visual_id == wanted)
            })
            .next()?;
        Some(PixelLayout {
            bits_per_pixel: format.bits_per_pixel,
            scanline_pad: format.scanline_pad,
            big_endian: setup.image_byte_order == ImageOrder::MSB_FIRST,
            red_mask: visual_type.red_mask,
            green_mask: visual_type.green_mask,
            blue_mask: visual_type.blue_mask,
        })
    }
}

/// The part of the rectangle (x, y, w, h) that lies on a `width` x `height` screen.
fn clip(x: i32, y: i32, w: u32, h: u32, width: u32, height: u32) -> Option<(i32, i32, u32, u32)> {
    let span = |start: i32, len: u32, size: u32| {
        let start = i64::from(start);
        let lo = start.max(0);
        let hi = (start + i64::from(len)).min(i64::from(size));
        (hi > lo).then(|| {
            (
                i32::try_from(lo).unwrap_or(0),
                u32::try_from(hi - lo).unwrap_or(0),
            )
        })
    };
    let (x, w) = span(x, w, width)?;
    let (y, h) = span(y, h, height)?;
    Some((x, y, w, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_can_be_shared_between_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<X11>();
    }

    #[test]
    fn areas_are_clipped_to_the_screen() {
        assert_eq!(clip(10, 20, 100, 50, 1280, 1024), Some((10, 20, 100, 50)));
        assert_eq!(clip(-10, -20, 100, 50, 1280, 1024), Some((0, 0, 90, 30)));
        assert_eq!(
            clip(1200, 1000, 100, 50, 1280, 1024),
            Some((1200, 1000, 80, 24))
        );
        assert_eq!(clip(1280, 0, 10, 10, 1280, 1024), None);
        assert_eq!(clip(0, 0, 0, 10, 1280, 1024), None);
        assert_eq!(
            clip(i32::MIN, i32::MIN, u32::MAX, u32::MAX, 1280, 1024),
            Some((0, 0, 1280, 1024))
        );
    }

    #[test]
    fn failures_read_as_one_line() {
        let error = X11Error::Failed {
            action: "pressing ctrl+foo".into(),
            display: ":7".into(),
            reason: Failure::Chord(ChordError::UnknownKey("foo".into())),
        };
        assert_eq!(
            error.to_string(),
            "pressing ctrl+foo on :7: unknown key `foo`"
        );
    }
}
