//! What becomes of a program we started: the last lines it wrote to
//! stderr, kept so that a program that exits (at once, or later) says why,
//! and a thread that reaps it.

use std::collections::VecDeque;
use std::io::Read;
use std::process::{Child, ChildStderr, ExitStatus};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Lines kept from the end of a program's stderr.
const LINES: usize = 8;
/// Characters kept of one line.
const LINE_CHARS: usize = 240;

/// The last lines a program wrote to stderr, read on a thread of its own
/// (a pipe nobody reads would block the program once it is full).
pub(crate) struct StderrTail {
    lines: Arc<Mutex<Tail>>,
    reader: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct Tail {
    lines: VecDeque<String>,
    partial: Vec<u8>,
}

impl Tail {
    fn push_bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b == b'\n' {
                self.end_line();
            } else if self.partial.len() < LINE_CHARS * 4 {
                self.partial.push(b);
            }
        }
    }

    fn end_line(&mut self) {
        let text = String::from_utf8_lossy(&self.partial);
        let line: String = text.trim_end().chars().take(LINE_CHARS).collect();
        self.partial.clear();
        if line.trim().is_empty() {
            return;
        }
        if self.lines.len() == LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }
}

impl StderrTail {
    /// Starts reading `stderr`; `None` (nothing to read) keeps no lines.
    pub(crate) fn start(stderr: Option<ChildStderr>, pid: u32) -> StderrTail {
        let lines = Arc::new(Mutex::new(Tail::default()));
        let reader = stderr.and_then(|mut pipe| {
            let shared = Arc::clone(&lines);
            std::thread::Builder::new()
                .name(format!("stderr-{pid}"))
                .spawn(move || {
                    let mut buf = [0u8; 4096];
                    while let Ok(n) = pipe.read(&mut buf) {
                        if n == 0 {
                            break;
                        }
                        shared
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push_bytes(&buf[..n]);
                    }
                    let mut tail = shared.lock().unwrap_or_else(PoisonError::into_inner);
                    if !tail.partial.is_empty() {
                        tail.end_line();
                    }
                })
                .map_err(|e| tracing::warn!(pid, error = %e, "no thread to read stderr"))
                .ok()
        });
        StderrTail { lines, reader }
    }

    /// The lines so far, after waiting up to `wait` for the pipe to close
    /// (the program exited: its last words may still be in the pipe).
    pub(crate) fn lines(&self, wait: Duration) -> Vec<String> {
        let until = Instant::now() + wait;
        while let Some(reader) = &self.reader {
            if reader.is_finished() || Instant::now() >= until {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .lines
            .iter()
            .cloned()
            .collect()
    }
}

/// `the end of its stderr: "..." | "..."`, or `None` when it wrote nothing.
pub(crate) fn end_of_stderr(lines: &[String]) -> Option<String> {
    (!lines.is_empty()).then(|| {
        let quoted: Vec<String> = lines.iter().map(|l| format!("{l:?}")).collect();
        format!("the end of its stderr: {}", quoted.join(" | "))
    })
}

/// `exit status: 1; the end of its stderr: "..."`, or the status and that
/// it wrote nothing.
pub(crate) fn how_it_ended(status: ExitStatus, lines: &[String]) -> String {
    match end_of_stderr(lines) {
        Some(said) => format!("{status}; {said}"),
        None => format!("{status}; it wrote nothing to stderr"),
    }
}

/// Waits for a program we started on a thread of its own, so that it does
/// not stay a zombie in a long-running server after it exits, and logs how
/// it ended (with the end of its stderr when it failed). The thread sleeps
/// in `waitpid` and costs nothing while the program runs.
pub(crate) fn reap_when_it_exits(mut child: Child, stderr: StderrTail) {
    let pid = child.id();
    let spawned = std::thread::Builder::new()
        .name(format!("reap-{pid}"))
        .spawn(move || match child.wait() {
            Ok(status) if status.success() => {
                tracing::debug!(pid, %status, "an application we opened exited")
            }
            Ok(status) => {
                let ended = how_it_ended(status, &stderr.lines(Duration::from_millis(500)));
                tracing::warn!(pid, "an application we opened exited: {ended}")
            }
            Err(e) => tracing::debug!(pid, error = %e, "waiting for an application we opened"),
        });
    if let Err(e) = spawned {
        tracing::warn!(pid, error = %e, "no thread to reap an opened application");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    #[test]
    fn keeps_the_last_lines_whole_and_bounded() {
        let mut t = Tail::default();
        for k in 0..20 {
            t.push_bytes(format!("line {k}\n\n").as_bytes());
        }
        t.push_bytes(&[b'x'; 5000]);
        t.end_line();
        assert_eq!(t.lines.len(), LINES);
        assert_eq!(t.lines[0], "line 13");
        assert_eq!(t.lines[LINES - 2], "line 19");
        assert_eq!(t.lines[LINES - 1].chars().count(), LINE_CHARS);
    }

    #[test]
    fn a_program_that_fails_says_why() -> std::io::Result<()> {
        let mut child = Command::new("sh")
            .args([
                "-c",
                "echo starting >&2; echo 'cannot open display: :99' >&2; exit 3",
            ])
            .stderr(Stdio::piped())
            .spawn()?;
        let tail = StderrTail::start(child.stderr.take(), child.id());
        let status = child.wait()?;
        let said = how_it_ended(status, &tail.lines(Duration::from_secs(5)));
        assert_eq!(
            said,
            "exit status: 3; the end of its stderr: \"starting\" | \"cannot open display: :99\""
        );
        Ok(())
    }
}
