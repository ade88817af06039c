//! Bounded waits on subprocesses and pipes.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::os::fd::OwnedFd;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::TestkitError;

/// How long to sleep between two polls of something that is not ready yet.
pub(crate) const POLL: Duration = Duration::from_millis(10);

/// Reads one line from `reader` on a helper thread and waits for it until `deadline`.
///
/// `Ok(None)` means end of file: the writer exited without writing a line. The helper thread
/// ends when the writer closes the pipe, which teardown guarantees by killing it.
pub(crate) fn read_line_until(
    reader: impl Read + Send + 'static,
    deadline: Instant,
    what: &str,
) -> Result<Option<String>, TestkitError> {
    let (sender, receiver) = mpsc::channel();
    std::thread::Builder::new()
        .name("uidelta-testkit-pipe".into())
        .spawn(move || {
            let mut line = String::new();
            let result = BufReader::new(reader)
                .read_line(&mut line)
                .map(|read| (read > 0).then_some(line));
            // The receiver may have given up already; nothing left to do then.
            let _ = sender.send(result);
        })
        .map_err(|error| {
            TestkitError::io(format!("starting a thread to read from {what}"), error)
        })?;
    let timeout = deadline.saturating_duration_since(Instant::now());
    match receiver.recv_timeout(timeout) {
        Ok(Ok(line)) => Ok(line),
        Ok(Err(error)) => Err(TestkitError::io(format!("reading from {what}"), error)),
        Err(_) => Err(TestkitError::Timeout {
            what: what.to_string(),
            after: timeout,
        }),
    }
}

/// How long a command of the tool under test may take in a test: it
/// answers or fails well within this; one that hangs is killed by
/// [`output_within`] and its test fails saying so.
pub const COMMAND_LIMIT: Duration = Duration::from_secs(180);

/// Runs a command to completion and returns its output, killing it if it
/// outlives `timeout` (then the error says what hung, and for how long).
/// Its output is read while it runs, so that one that writes more than a
/// pipe holds is not mistaken for one that hangs.
pub fn output_within(
    mut command: Command,
    timeout: Duration,
    what: &str,
) -> Result<Output, TestkitError> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|error| TestkitError::io(format!("running {what}"), error))?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                kill_and_reap(&mut child);
                return Err(TestkitError::Timeout {
                    what: what.to_string(),
                    after: timeout,
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(error) => {
                kill_and_reap(&mut child);
                return Err(TestkitError::io(format!("waiting for {what}"), error));
            }
        }
    };
    // The process has exited; its pipes end unless a child it left holds
    // them, which must not hold up its caller either.
    let rest = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(1));
    Ok(Output {
        status,
        stdout: stdout.recv_timeout(rest).unwrap_or_default(),
        stderr: stderr.recv_timeout(rest).unwrap_or_default(),
    })
}

/// Reads `pipe` to its end on a thread of its own; what it read, once it
/// ended.
fn drain(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    let (sender, receiver) = mpsc::channel();
    let Some(mut pipe) = pipe else {
        let _ = sender.send(Vec::new());
        return receiver;
    };
    std::thread::spawn(move || {
        let mut read = Vec::new();
        let _ = pipe.read_to_end(&mut read);
        let _ = sender.send(read);
    });
    receiver
}

fn kill_and_reap(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// A pipe whose ends are both close-on-exec, so that concurrently spawned processes do not
/// inherit them; the end handed to a child is made inheritable in that child only.
pub(crate) fn pipe() -> Result<(File, OwnedFd), TestkitError> {
    let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|errno| TestkitError::io("creating a pipe", errno.into()))?;
    Ok((File::from(read), write))
}

/// Clears close-on-exec on `fd` in a freshly forked child, before `exec`.
///
/// Only async-signal-safe calls are made, as `pre_exec` requires.
pub(crate) fn inherit_fd_in_child(fd: std::os::fd::RawFd) -> std::io::Result<()> {
    // SAFETY: the caller keeps `fd` open until the child execs (it is the pipe end it owns).
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    nix::fcntl::fcntl(
        fd,
        nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::empty()),
    )?;
    Ok(())
}

/// The last `max_lines` lines of a log file, for error messages.
pub(crate) fn log_tail(path: &std::path::Path, max_lines: usize) -> String {
    let Ok(text) = std::fs::read_to_string(path) else {
        return String::new();
    };
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    lines[lines.len().saturating_sub(max_lines)..].join(" | ")
}
