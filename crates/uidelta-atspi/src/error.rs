//! Errors of the AT-SPI adapter. Each says what was being done and to what.

use std::time::Duration;

/// Something went wrong talking to the accessibility bus or an application.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No session bus or no accessibility bus could be reached.
    #[error("connecting to the accessibility bus: {detail}")]
    Connect {
        /// What failed.
        detail: String,
    },
    /// The accessibility bus itself went away (its daemon ended: the
    /// desktop session ended or restarted). The connection is of no more
    /// use; a new one must be made.
    #[error("the accessibility bus at {address} is gone ({detail})")]
    Lost {
        /// The bus's address.
        address: String,
        /// What the connection answered.
        detail: String,
    },
    /// An application did not answer in time (hung, stopped, or busy).
    #[error("{doing} {target}: D-Bus call {method} timed out after {} ms", after.as_millis())]
    Timeout {
        /// What was being done (`capturing`, `clicking`).
        doing: &'static str,
        /// The application, as `name (pid N)`.
        target: String,
        /// The D-Bus method.
        method: &'static str,
        /// The timeout.
        after: Duration,
    },
    /// The application left the bus (exited or crashed).
    #[error("{doing} {target}: the application is gone ({detail})")]
    Gone {
        /// What was being done.
        doing: &'static str,
        /// The application.
        target: String,
        /// The D-Bus error.
        detail: String,
    },
    /// A call failed for another reason.
    #[error("{doing} {target}: D-Bus call {method} failed: {detail}")]
    Call {
        /// What was being done.
        doing: &'static str,
        /// The application.
        target: String,
        /// The D-Bus method.
        method: &'static str,
        /// The D-Bus error.
        detail: String,
    },
    /// No application or window matches.
    #[error("{0}")]
    NotFound(String),
    /// The capture went past its overall deadline.
    #[error("capturing {target}: gave up after {} ms ({nodes} nodes read)", after.as_millis())]
    Deadline {
        /// The application.
        target: String,
        /// The deadline.
        after: Duration,
        /// Nodes read by then.
        nodes: usize,
    },
}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;
