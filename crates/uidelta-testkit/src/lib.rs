//! An isolated virtual Linux desktop for tests, the demo and benchmarks.
//!
//! [`Desktop::start`] brings up Xvfb on a free display, a private D-Bus session bus, the AT-SPI
//! accessibility bus (`at-spi-bus-launcher`) and a private `XDG_RUNTIME_DIR`, so that any number
//! of desktops can run side by side, for example in parallel tests. Applications launched in it
//! talk only to its buses and its X server. Dropping the [`Desktop`] stops everything it started,
//! also while unwinding from a panic, and removes its runtime directory. A process killed before
//! dropping its desktops (a run stopped by a signal or a timeout) leaves them running: the next
//! process to start a desktop kills what they left and removes their directories.
//!
//! Everything here is synchronous and uses plain subprocesses (`Xvfb`, `dbus-daemon`, `gdbus`),
//! so a test needs no async runtime. A missing program is an error that names the Debian package
//! to install; tests are expected to fail on it, never to skip.
//!
//! [`web::Server`] serves the test pages of `fixtures/web` on loopback for browser tests.

mod app;
mod desktop;
mod error;
mod procfs;
mod programs;
mod subprocess;
pub mod web;

pub use app::App;
pub use desktop::{Desktop, WINDOW_MANAGER_VAR};
pub use error::TestkitError;
pub use programs::{find_program, qt5_example, require_programs, QT5_EXAMPLES};
pub use subprocess::{output_within, COMMAND_LIMIT};
