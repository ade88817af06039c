//! The Linux desktop adapter of uidelta: AT-SPI2 over D-Bus.
//!
//! [`Bus`] connects to the accessibility bus; [`applications`] lists what is
//! on it; [`capture`] reads an application or a window into a
//! [`uidelta_model::Snapshot`]. Every D-Bus call has a timeout, and every
//! error names the application it concerns.

mod actions;
mod bus;
mod capture;
mod discovery;
mod embedded;
mod error;
mod events;
pub mod interfaces;
mod mirror;
mod state;
pub mod toolkit;
mod visible;

pub use actions::{Actor, NodeAddr, Outcome, TypingPlace};
pub use bus::{keep_action, Bus, CALL_TIMEOUT};
pub use capture::{capture, AppRef, CaptureOptions, ROOT_PATH};
pub use discovery::{app_windows, applications, find_app, AppInfo, WindowInfo};
pub use error::{Error, Result};
pub use events::{subscribe, subscribe_with, Events, Subscription, UiEvent};
pub use mirror::{differences, Difference, Mirror, Reading, MAX_AGE, MAX_MARKS, NOT_TRUSTED};
pub use toolkit::libreoffice::settle_window;
pub use toolkit::{Profile, Toolkit};
