use std::time::Duration;

/// Why the virtual desktop, or something inside it, could not be started or reached.
///
/// Every message says what was being done, so that a failing test explains itself.
#[derive(Debug, thiserror::Error)]
pub enum TestkitError {
    /// A program the desktop or a test needs is not installed.
    #[error("{program} not found: install it with `apt-get install -y {package}`")]
    MissingProgram {
        /// The program (or programs, comma separated) that was looked for.
        program: String,
        /// The Debian package (or packages, space separated) that provides it.
        package: String,
    },
    /// A piece of the desktop or an application failed to start or to answer.
    #[error("starting {what}: {detail}")]
    Start {
        /// What was being started or asked (`Xvfb`, `the accessibility bus`, ...).
        what: String,
        /// What went wrong, with the tail of the process log where there is one.
        detail: String,
    },
    /// A bounded wait ran out.
    #[error("timed out after {} waiting for {what}", seconds(*after))]
    Timeout {
        /// What was being waited for.
        what: String,
        /// How long the wait lasted.
        after: Duration,
    },
    /// An I/O operation on a file, pipe or process failed.
    #[error("{what}: {reason}")]
    Io {
        /// What was being done (`creating the runtime directory /tmp/...`).
        what: String,
        /// The underlying error.
        reason: std::io::Error,
    },
}

impl TestkitError {
    pub(crate) fn io(what: impl Into<String>, reason: std::io::Error) -> Self {
        TestkitError::Io {
            what: what.into(),
            reason,
        }
    }

    pub(crate) fn start(what: impl Into<String>, detail: impl Into<String>) -> Self {
        TestkitError::Start {
            what: what.into(),
            detail: detail.into(),
        }
    }
}

/// `10 s`, `2.5 s`, `0.25 s`: short enough for a one-line message.
fn seconds(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("{secs:.0} s")
    } else {
        let text = format!("{secs:.2}");
        format!("{} s", text.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_message_reads_naturally() {
        let error = TestkitError::Timeout {
            what: "Xvfb".into(),
            after: Duration::from_secs(10),
        };
        assert_eq!(error.to_string(), "timed out after 10 s waiting for Xvfb");
        let error = TestkitError::Timeout {
            what: "x".into(),
            after: Duration::from_millis(2500),
        };
        assert_eq!(error.to_string(), "timed out after 2.5 s waiting for x");
    }
}
