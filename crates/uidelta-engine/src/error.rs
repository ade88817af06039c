//! Engine errors: each says what was asked and what is there instead.

use uidelta_diff::Ref;

use crate::selector::SelectorError;

/// Something the engine could not do.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// From the platform backend (timeouts, gone applications, ...).
    #[error(transparent)]
    Backend(#[from] uidelta_backend::Error),
    /// A selector that does not parse.
    #[error(transparent)]
    Selector(#[from] SelectorError),
    /// No element matches.
    #[error("no element matches `{selector}`{hint}{}", near(candidates))]
    NoMatch {
        /// The selector.
        selector: String,
        /// Where was looked, and what to try.
        hint: String,
        /// Elements it may have meant, nearest first, as
        /// `[e12] menu item "Find…"` (see [`crate::selector::Selector::near_misses`]).
        candidates: Vec<String>,
    },
    /// More than one element matches.
    #[error("`{selector}` matches {count} elements; use a ref or narrow it (nth:0, && name:...): {}", candidates.join(", "))]
    Ambiguous {
        /// The selector.
        selector: String,
        /// How many matched.
        count: usize,
        /// The first few, as `[e12] push button "Save"`.
        candidates: Vec<String>,
    },
    /// A ref whose element went away.
    #[error("{gone} is gone: it was {was}{}", replaced_by.as_ref().map(|r| format!("; {r} took its place")).unwrap_or_default())]
    Gone {
        /// The ref.
        gone: Ref,
        /// What it was.
        was: String,
        /// What replaced it, when matching knows.
        replaced_by: Option<String>,
    },
    /// A ref this session never handed out.
    #[error("{0} is not a ref of this session; refs come from trees, diffs and find results")]
    UnknownRef(Ref),
    /// No window where one was asked for: the application shows none,
    /// none has that title, or the element is the application itself.
    #[error("{0}")]
    NoWindow(String),
    /// An argument over its cap (a key chord, a text to type), refused
    /// before anything was done.
    #[error("{0}")]
    TooLong(String),
    /// The session has handed out nearly every ref there is; refs are
    /// never given twice, so it cannot carry on.
    #[error(
        "{doing}: this session has handed out refs up to {next}, and {left} are left, fewer than \
         the {wanted} new elements need; refs are never given twice, so start a new session \
         (restart the MCP server; the command line starts one when its session file is removed)"
    )]
    RefsExhausted {
        /// What was being done.
        doing: String,
        /// The next ref there would be.
        next: Ref,
        /// How many refs are left.
        left: u64,
        /// How many were wanted.
        wanted: usize,
    },
    /// A wait ran out.
    #[error("{0}")]
    TimedOut(String),
    /// The application stopped answering after an action: one of its
    /// handlers is still running.
    #[error("{app} does not answer since {since}: one of its handlers is still running{hint}")]
    Unresponsive {
        /// The application, as `name (pid N)`.
        app: String,
        /// What was done last: `Action.click on [e5] menu item "Ask…"`.
        since: String,
        /// What usually causes it on this platform and how to get out,
        /// from the backend (starts with `; `, or empty).
        hint: String,
    },
}

impl Error {
    /// Its kind for programs, as MCP errors and the Python package's
    /// exceptions give it: `bad_selector`, `no_match`, `ambiguous`,
    /// `ref_gone`, `unknown_ref`, `not_found`, `timeout`, `unresponsive`,
    /// `bad_argument`, `refs_exhausted`, or the backend's
    /// ([`uidelta_backend::ErrorKind::name`]).
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Backend(b) => b.kind.name(),
            Error::Selector(_) => "bad_selector",
            Error::NoMatch { .. } => "no_match",
            Error::Ambiguous { .. } => "ambiguous",
            Error::Gone { .. } => "ref_gone",
            Error::UnknownRef(_) => "unknown_ref",
            Error::NoWindow(_) => "not_found",
            Error::TimedOut(_) => "timeout",
            Error::Unresponsive { .. } => "unresponsive",
            Error::TooLong(_) => "bad_argument",
            Error::RefsExhausted { .. } => "refs_exhausted",
        }
    }
}

fn near(candidates: &[String]) -> String {
    if candidates.is_empty() {
        String::new()
    } else {
        format!("; nearest names: {}", candidates.join(", "))
    }
}

/// Results of the engine.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;
    use uidelta_backend::ErrorKind;

    #[test]
    fn kinds_are_the_names_programs_read() {
        let no_match = Error::NoMatch {
            selector: "name:Save".into(),
            hint: String::new(),
            candidates: Vec::new(),
        };
        assert_eq!(no_match.kind(), "no_match");
        assert_eq!(Error::UnknownRef(Ref(7)).kind(), "unknown_ref");
        assert_eq!(Error::TimedOut("waited".into()).kind(), "timeout");
        assert_eq!(Error::NoWindow("none".into()).kind(), "not_found");
        let gone = uidelta_backend::Error::new(ErrorKind::Gone, "gedit exited");
        assert_eq!(Error::from(gone).kind(), "app_gone");
        let other = uidelta_backend::Error::new(ErrorKind::Other, "odd");
        assert_eq!(Error::from(other).kind(), "backend");
    }
}
