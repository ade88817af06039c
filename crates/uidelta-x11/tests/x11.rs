//! Synthesized input and screenshots on a real Xvfb, checked through a real GTK window
//! (`tests/fixtures/entry.py`) that reports its entry text, button clicks and spin value.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;
use uidelta_testkit::{require_programs, App, Desktop};
use uidelta_x11::{Button, X11Error, X11};
use x11rb::connection::Connection;

const PYTHON: &str = "/usr/bin/python3";
const WAIT: Duration = Duration::from_secs(10);

fn desktop() -> Desktop {
    Desktop::start().expect("starting a virtual desktop")
}

fn connect(desktop: &Desktop) -> X11 {
    X11::connect(desktop.display()).expect("connecting to the desktop's X server")
}

/// Screen rectangle of a widget: x, y, width, height.
#[derive(Debug, Clone, Copy)]
struct Rect(i32, i32, i32, i32);

impl Rect {
    fn center(self) -> (i32, i32) {
        (self.0 + self.2 / 2, self.1 + self.3 / 2)
    }
}

/// The fixture window, with the events it printed.
struct Fixture {
    _app: App,
    events: Receiver<Value>,
    entry: Rect,
    button: Rect,
    spin: Rect,
    window: Rect,
}

impl Fixture {
    fn launch(desktop: &Desktop) -> Fixture {
        require_programs(&[(PYTHON, "python3")]).expect("test prerequisites");
        let gtk = std::process::Command::new(PYTHON)
            .args(["-c", "import gi; gi.require_version('Gtk', '3.0')"])
            .output()
            .expect("running python3");
        assert!(
            gtk.status.success(),
            "GTK 3 for Python not found: install it with `apt-get install -y python3-gi gir1.2-gtk-3.0` ({})",
            String::from_utf8_lossy(&gtk.stderr).trim()
        );
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/entry.py");
        let mut command = desktop.command(PYTHON);
        command
            .arg(script)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped());
        let mut app = desktop.spawn(command).expect("launching the fixture");
        let stdout = app.take_stdout().expect("the fixture's stdout");
        let (sender, events) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let event = serde_json::from_str(&line).unwrap_or(Value::String(line));
                if sender.send(event).is_err() {
                    break;
                }
            }
        });
        let ready = events
            .recv_timeout(Duration::from_secs(20))
            .expect("the fixture's ready line");
        let rect = |name: &str| {
            let numbers: Vec<i32> = ready["ready"][name]
                .as_array()
                .unwrap_or_else(|| panic!("no {name} in {ready}"))
                .iter()
                .map(|n| {
                    n.as_i64()
                        .and_then(|n| i32::try_from(n).ok())
                        .expect("a coordinate")
                })
                .collect();
            Rect(numbers[0], numbers[1], numbers[2], numbers[3])
        };
        Fixture {
            entry: rect("entry"),
            button: rect("button"),
            spin: rect("spin"),
            window: rect("window"),
            _app: app,
            events,
        }
    }

    /// Waits until an event has `key` equal to `wanted`, returning the events seen before it.
    fn wait_for(&self, key: &str, wanted: Value) -> Vec<Value> {
        let deadline = Instant::now() + WAIT;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(event) if event.get(key) == Some(&wanted) => return seen,
                Ok(event) => seen.push(event),
                Err(_) => panic!("no {key} = {wanted} within {WAIT:?}; saw {seen:?}"),
            }
        }
    }

    fn click_entry(&self, x11: &X11) {
        let (x, y) = self.entry.center();
        x11.click(x, y, Button::Left, 1)
            .expect("clicking into the entry");
    }
}

fn png_size(png_bytes: &[u8]) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let reader = decoder.read_info().expect("a valid PNG header");
    let info = reader.info();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    (info.width, info.height)
}

fn keyboard_mapping(display: &str) -> (u8, Vec<u32>) {
    let (conn, _) = x11rb::connect(Some(display)).expect("a second X connection");
    let (min, max) = (conn.setup().min_keycode, conn.setup().max_keycode);
    let reply = x11rb::protocol::xproto::get_keyboard_mapping(&conn, min, max - min + 1)
        .expect("sending GetKeyboardMapping")
        .reply()
        .expect("the keyboard mapping");
    (reply.keysyms_per_keycode, reply.keysyms)
}

#[test]
fn connecting_to_a_missing_display_names_it() {
    let error = X11::connect(":4999").unwrap_err();
    assert!(matches!(error, X11Error::Connect { .. }));
    assert!(
        error
            .to_string()
            .starts_with("connecting to X display `:4999`: "),
        "{error}"
    );
}

#[test]
fn screenshots_are_pngs_of_the_screen_or_a_clipped_area() {
    let desktop = desktop();
    let x11 = connect(&desktop);
    assert_eq!(x11.screen_size(), (1280, 1024));

    let started = Instant::now();
    let full = x11.screenshot(None).expect("a screenshot of the screen");
    eprintln!(
        "full screenshot: {:?}, {} bytes",
        started.elapsed(),
        full.len()
    );
    assert_eq!(png_size(&full), (1280, 1024));
    let area = x11
        .screenshot(Some((10, 20, 100, 50)))
        .expect("a screenshot of an area");
    assert_eq!(png_size(&area), (100, 50));
    let clipped = x11
        .screenshot(Some((1200, 1000, 200, 200)))
        .expect("a clipped screenshot");
    assert_eq!(png_size(&clipped), (80, 24));

    let error = x11.screenshot(Some((2000, 0, 10, 10))).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "taking a screenshot of 10x10 at (2000, 0) on {}: area 10x10 at (2000, 0) does not \
             overlap the 1280x1024 screen",
            desktop.display()
        )
    );
}

#[test]
fn screenshots_show_what_is_on_screen() {
    let desktop = desktop();
    let x11 = connect(&desktop);
    let fixture = Fixture::launch(&desktop);
    let Rect(x, y, w, h) = fixture.window;
    let png_bytes = x11
        .screenshot(Some((x, y, w as u32, h as u32)))
        .expect("a screenshot of the window");
    let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .expect("PNG header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("buffer size")];
    reader.next_frame(&mut pixels).expect("PNG pixels");
    let mut colours: Vec<&[u8]> = pixels.chunks_exact(3).collect();
    colours.sort_unstable();
    colours.dedup();
    // A window with text, borders and a button: anything but a blank rectangle.
    assert!(
        colours.len() > 10,
        "only {} colours in the window",
        colours.len()
    );
}

#[test]
fn typing_into_a_gtk_entry_works_end_to_end() {
    let desktop = desktop();
    let x11 = connect(&desktop);
    let fixture = Fixture::launch(&desktop);
    fixture.click_entry(&x11);

    x11.type_text("Hello, World! 123").expect("typing ASCII");
    fixture.wait_for("text", "Hello, World! 123".into());

    // Not on a US keymap: typed through temporarily remapped keycodes, which are restored.
    let before = keyboard_mapping(desktop.display());
    x11.type_text(" ö€日")
        .expect("typing characters outside the keymap");
    fixture.wait_for("text", "Hello, World! 123 ö€日".into());
    assert_eq!(
        keyboard_mapping(desktop.display()),
        before,
        "the keymap was not restored"
    );
}

#[test]
fn ctrl_a_then_backspace_clears_the_entry() {
    let desktop = desktop();
    let x11 = connect(&desktop);
    let fixture = Fixture::launch(&desktop);
    fixture.click_entry(&x11);
    x11.type_text("some text").expect("typing");
    fixture.wait_for("text", "some text".into());

    x11.key("ctrl+a").expect("selecting all");
    x11.key("BackSpace").expect("deleting the selection");
    fixture.wait_for("text", "".into());

    x11.type_text("ab").expect("typing");
    x11.key("Left").expect("moving left");
    x11.key("shift+x").expect("a shifted chord");
    fixture.wait_for("text", "aXb".into());
}

#[test]
fn clicking_a_gtk_button_clicks_it() {
    let desktop = desktop();
    let x11 = connect(&desktop);
    let fixture = Fixture::launch(&desktop);
    let (x, y) = fixture.button.center();
    x11.click(x, y, Button::Left, 1)
        .expect("clicking the button");
    fixture.wait_for("clicked", 1.into());
    x11.click(x, y, Button::Left, 2)
        .expect("double-clicking the button");
    fixture.wait_for("clicked", 3.into());
    // A press held by the caller: the button clicks when released.
    x11.press_at(x, y, Button::Left)
        .expect("pressing the button");
    std::thread::sleep(std::time::Duration::from_millis(100));
    x11.release(Button::Left).expect("releasing the button");
    fixture.wait_for("clicked", 4.into());
}

#[test]
fn scrolling_turns_a_spin_button() {
    let desktop = desktop();
    let x11 = connect(&desktop);
    let fixture = Fixture::launch(&desktop);
    let (x, y) = fixture.spin.center();
    x11.scroll(x, y, 0, -3).expect("scrolling up");
    fixture.wait_for("value", 3.into());
    x11.scroll(x, y, 0, 1).expect("scrolling down");
    fixture.wait_for("value", 2.into());
}

#[test]
fn bad_input_is_an_error_that_names_the_action() {
    let desktop = desktop();
    let x11 = connect(&desktop);
    let display = desktop.display();
    let error = x11.key("ctrl+foo").unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("pressing ctrl+foo on {display}: unknown key `foo`")
    );
    let error = x11.click(5000, 10, Button::Right, 1).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("clicking right at (5000, 10) on {display}: point (5000, 10) lies outside the 1280x1024 screen")
    );
    let error = x11.press_at(-1, 10, Button::Left).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("pressing left at (-1, 10) on {display}: point (-1, 10) lies outside the 1280x1024 screen")
    );
    let error = x11.type_text("a\u{7}b").unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("typing 3 characters on {display}: cannot type the control character '\\u{{7}}'")
    );
    let error = x11.click(1, 1, Button::Left, 0).unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("a click needs a count of at least 1"),
        "{error}"
    );
    let error = x11.scroll(1, 1, 0, 5000).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("5000 wheel clicks exceed the limit"),
        "{error}"
    );
}

#[test]
fn keys_outside_the_keymap_are_pressed_through_a_spare_keycode() {
    let desktop = desktop();
    let x11 = connect(&desktop);
    let before = keyboard_mapping(desktop.display());
    x11.key("F35").expect("pressing F35");
    x11.key("ctrl+€").expect("pressing ctrl+€");
    x11.move_pointer(100, 100).expect("moving the pointer");
    assert_eq!(
        keyboard_mapping(desktop.display()),
        before,
        "the keymap was not restored"
    );
}

/// Waits up to [`WAIT`] for `made.since(since)` to be `want`.
fn made_until(made: &uidelta_x11::MadeWindows, since: Instant, want: &[u32]) -> Vec<u32> {
    let end = Instant::now() + WAIT;
    loop {
        let now = made.since(since);
        if now == want || Instant::now() >= end {
            return now;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn windows_made_since_a_moment_are_told_with_their_process_until_withdrawn_or_destroyed() {
    use x11rb::protocol::xproto::{ConnectionExt as _, CreateWindowAux, PropMode, WindowClass};
    use x11rb::wrapper::ConnectionExt as _;

    let desktop = desktop();
    let x11 = connect(&desktop);
    let made = uidelta_x11::MadeWindows::watch(desktop.display()).expect("watching");
    let (conn, screen) = x11rb::connect(Some(desktop.display())).expect("a client");
    let root = conn.setup().roots[screen].root;
    let pid_atom = conn
        .intern_atom(false, b"_NET_WM_PID")
        .expect("intern")
        .reply()
        .expect("atom")
        .atom;
    let make = |override_redirect: bool, pid: Option<u32>| {
        let id = conn.generate_id().expect("an id");
        conn.create_window(
            x11rb::COPY_DEPTH_FROM_PARENT,
            id,
            root,
            0,
            0,
            100,
            100,
            0,
            WindowClass::INPUT_OUTPUT,
            x11rb::COPY_FROM_PARENT,
            &CreateWindowAux::new().override_redirect(u32::from(override_redirect)),
        )
        .expect("create")
        .check()
        .expect("created");
        if let Some(pid) = pid {
            conn.change_property32(
                PropMode::REPLACE,
                id,
                pid_atom,
                x11rb::protocol::xproto::AtomEnum::CARDINAL,
                &[pid],
            )
            .expect("pid")
            .check()
            .expect("pid set");
        }
        id
    };
    let before = make(false, Some(4242));
    std::thread::sleep(Duration::from_millis(50));
    let since = Instant::now();
    assert_eq!(made_until(&made, since, &[]), Vec::<u32>::new());
    let window = make(false, Some(4242));
    let _menu = make(true, Some(4242));
    let other = make(false, Some(7));
    let silent = make(false, None);
    let all = [window, other, silent];
    assert_eq!(made_until(&made, since, &all), all, "made since");
    assert!(made
        .since(Instant::now() + Duration::from_secs(1))
        .is_empty());
    assert!(made_until(
        &made,
        Instant::now() - Duration::from_secs(5),
        &[before, window, other, silent]
    )
    .contains(&before));
    assert_eq!(x11.windows_of(&all, 4242).expect("pids"), 1);
    assert_eq!(x11.windows_of(&all, 7).expect("pids"), 1);
    assert_eq!(x11.windows_of(&all, 1).expect("pids"), 0);
    // Shown, then withdrawn: no longer coming. Destroyed: gone.
    conn.map_window(window)
        .expect("map")
        .check()
        .expect("mapped");
    conn.unmap_window(window)
        .expect("unmap")
        .check()
        .expect("unmapped");
    conn.destroy_window(other)
        .expect("destroy")
        .check()
        .expect("destroyed");
    assert_eq!(made_until(&made, since, &[silent]), vec![silent]);
    // A window destroyed before it is read is no one's.
    assert_eq!(x11.windows_of(&[other], 7).expect("pids"), 0);
    // Dropped, the watch's thread ends (no other test here starts one).
    let watching = || {
        std::fs::read_dir("/proc/self/task")
            .expect("the threads")
            .filter_map(Result::ok)
            .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
            .any(|name| name.trim_end() == "uidelta-window")
    };
    assert!(watching(), "no thread named uidelta-window while watching");
    drop(made);
    let end = Instant::now() + WAIT;
    while watching() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!watching(), "the watch's thread outlived it");
}
