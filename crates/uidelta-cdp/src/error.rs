//! Errors of the browser adapter. Each says what was being done and to what.

use std::time::Duration;

use uidelta_backend::ErrorKind;

/// Something went wrong starting, reaching or driving the browser.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Chromium could not be started.
    #[error("starting chromium: {detail}")]
    Launch {
        /// Why.
        detail: String,
    },
    /// No DevTools endpoint could be reached.
    #[error("connecting to the browser at {url}: {detail}")]
    Connect {
        /// The address tried.
        url: String,
        /// Why it failed.
        detail: String,
    },
    /// The browser did not answer in time.
    #[error("{doing}: {method} timed out after {} ms", after.as_millis())]
    Timeout {
        /// What was being done (`capturing tab "Inbox" (3F2A…)`).
        doing: String,
        /// The DevTools method, or what was awaited.
        method: String,
        /// The timeout.
        after: Duration,
    },
    /// The tab answers nothing, from its first use by this connection: a
    /// JavaScript dialog that opened before the connection did holds its
    /// page, and only the browser's window (or the connection it opened
    /// under) can answer it; or a script in it runs without end.
    #[error(
        "{doing}: the tab answers nothing ({method} timed out after {} ms): most often a \
         JavaScript dialog (alert, confirm, prompt) is open in it that opened before uidelta \
         connected, and only the browser's window, or the connection it opened under, can \
         answer it; else a script in it runs without end. Answer the dialog in the browser \
         (or reload the tab), then try again",
        after.as_millis()
    )]
    Blocked {
        /// What was being done.
        doing: String,
        /// What timed out.
        method: String,
        /// The timeout.
        after: Duration,
    },
    /// The tab was closed, or the browser exited.
    #[error("{doing}: {what} is gone ({detail})")]
    Gone {
        /// What was being done.
        doing: String,
        /// `the tab`, `the browser`.
        what: &'static str,
        /// What said so.
        detail: String,
    },
    /// A DevTools call failed for another reason.
    #[error("{doing}: {method} failed: {detail}")]
    Protocol {
        /// What was being done.
        doing: String,
        /// The DevTools method.
        method: String,
        /// The browser's error message.
        detail: String,
    },
    /// A script threw, or a page refused what was asked of it.
    #[error("{doing}: {detail}")]
    Page {
        /// What was being done.
        doing: String,
        /// The exception or the page's answer.
        detail: String,
    },
    /// The page waits for the answer to a JavaScript dialog held open (see
    /// [`crate::DialogPolicy::Hold`]): nothing else in it answers until
    /// then.
    #[error(
        "{doing}: the page waits for the answer to its {dialog}, and nothing else in it \
             can be read or used until then: answer it first ({})",
        how_to_answer(dialog)
    )]
    Dialog {
        /// What was being done.
        doing: String,
        /// The dialog.
        dialog: crate::JsDialog,
    },
    /// No such tab or element.
    #[error("{0}")]
    NotFound(String),
    /// The browser cannot do this to that element.
    #[error("{0}")]
    Unsupported(String),
}

impl Error {
    /// The backend-neutral kind of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Timeout { .. } | Error::Blocked { .. } => ErrorKind::Timeout,
            Error::Gone { .. } => ErrorKind::Gone,
            Error::NotFound(_) => ErrorKind::NotFound,
            Error::Unsupported(_) => ErrorKind::Unsupported,
            Error::Launch { .. }
            | Error::Connect { .. }
            | Error::Protocol { .. }
            | Error::Page { .. }
            | Error::Dialog { .. } => ErrorKind::Other,
        }
    }
}

impl From<Error> for uidelta_backend::Error {
    fn from(e: Error) -> Self {
        uidelta_backend::Error::new(e.kind(), e.to_string())
    }
}

/// How a held dialog is answered, for messages.
fn how_to_answer(dialog: &crate::JsDialog) -> &'static str {
    match dialog.kind {
        crate::DialogKind::Alert => "click its OK button, or press Return",
        crate::DialogKind::Confirm => "click its OK or Cancel button, or press Return or Escape",
        crate::DialogKind::Prompt => {
            "type into its entry, then click its OK button or press Return; Cancel or Escape \
             dismisses it"
        }
    }
}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;
