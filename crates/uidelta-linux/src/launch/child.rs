//! What becomes of a program we started: its stderr goes to a log file, so
//! that a program that exits (at once, or later) can say why, and a thread
//! reaps it.
//!
//! A file, not a pipe: a program outlives the server that opened it, and a
//! pipe without a reader would kill it (`SIGPIPE`) at its next warning. The
//! file is removed when the program exits while this process runs; a
//! program still running when this process ends keeps writing to it.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use procfs::process::{all_processes, Process, Stat};

/// Lines kept from the end of a program's stderr.
const LINES: usize = 8;
/// Characters kept of one line.
const LINE_CHARS: usize = 240;
/// Bytes read from the end of the log.
const TAIL_BYTES: u64 = 8192;

/// The log file a program's stderr goes to.
pub(crate) struct StderrLog {
    path: Option<PathBuf>,
}

impl StderrLog {
    /// A new log for `program` in the temporary directory, and what to give
    /// the program as its stderr. When no file can be made, stderr goes
    /// nowhere and the log stays empty.
    pub(crate) fn create(program: &str) -> (StderrLog, Stdio) {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let base = Path::new(program)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let base: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
        let name = format!(
            "uidelta-{base}-{}-{}.log",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(name);
        match File::options().write(true).create_new(true).open(&path) {
            Ok(file) => (StderrLog { path: Some(path) }, Stdio::from(file)),
            Err(e) => {
                tracing::debug!(path = %path.display(), error = %e, "no log file for stderr");
                (StderrLog { path: None }, Stdio::null())
            }
        }
    }

    /// Where the log is, if there is one.
    pub(crate) fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The last lines in the log (the last few, each cut to a length).
    pub(crate) fn last_lines(&self) -> Vec<String> {
        let Some(path) = &self.path else {
            return Vec::new();
        };
        let mut bytes = Vec::new();
        let read = File::open(path).and_then(|mut f| {
            let len = f.metadata()?.len();
            f.seek(SeekFrom::Start(len.saturating_sub(TAIL_BYTES)))?;
            f.read_to_end(&mut bytes)
        });
        if let Err(e) = read {
            tracing::debug!(path = %path.display(), error = %e, "reading a program's stderr");
        }
        last_lines(&String::from_utf8_lossy(&bytes))
    }

    /// Removes the log (the program has exited).
    pub(crate) fn remove(&self) {
        if let Some(path) = &self.path {
            if let Err(e) = std::fs::remove_file(path) {
                tracing::debug!(path = %path.display(), error = %e, "removing a stderr log");
            }
        }
    }
}

/// The last non-empty lines of `text`, each cut to [`LINE_CHARS`].
fn last_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.chars().take(LINE_CHARS).collect())
        .collect();
    let skip = lines.len().saturating_sub(LINES);
    lines.drain(..skip);
    lines
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
/// not stay a zombie in a long-running server after it exits; logs how it
/// ended (with the end of its stderr when it failed) and removes its log.
/// The thread sleeps in `waitpid` and costs nothing while the program runs.
pub(crate) fn reap_when_it_exits(mut child: Child, log: StderrLog) {
    let pid = child.id();
    let spawned = std::thread::Builder::new()
        .name(format!("reap-{pid}"))
        .spawn(move || {
            match child.wait() {
                Ok(status) if status.success() => {
                    tracing::debug!(pid, %status, "an application we opened exited")
                }
                Ok(status) => {
                    let ended = how_it_ended(status, &log.last_lines());
                    tracing::warn!(pid, "an application we opened exited: {ended}")
                }
                Err(e) => tracing::debug!(pid, error = %e, "waiting for an application we opened"),
            }
            log.remove();
        });
    if let Err(e) = spawned {
        tracing::warn!(pid, error = %e, "no thread to reap an opened application");
    }
}

/// What `/proc/<pid>/stat` says of a process; `None` when it is gone (or
/// there is no `/proc`).
fn stat(pid: u32) -> Option<Stat> {
    Process::new(i32::try_from(pid).ok()?).ok()?.stat().ok()
}

/// Whether process `pid` comes from the program we started as `launched`,
/// the leader of a process group of its own: it is that process, one of
/// its descendants, or in its group (a process whose parent exited is
/// adopted by another, and keeps its group). A launcher (a shell script
/// such as `libreoffice`) starts the application under another pid.
pub(crate) fn started_by(pid: u32, launched: u32) -> bool {
    /// Ancestors looked at, at most.
    const DEPTH: usize = 64;
    let mut at = pid;
    for _ in 0..DEPTH {
        if at == launched {
            return true;
        }
        let Some(s) = stat(at) else {
            return false;
        };
        if u32::try_from(s.pgrp) == Ok(launched) {
            return true;
        }
        match u32::try_from(s.ppid) {
            Ok(parent) if parent > 1 => at = parent,
            _ => return false,
        }
    }
    false
}

/// Whether a process of the process group `group` still runs (a zombie
/// does not).
pub(crate) fn group_runs(group: u32) -> bool {
    let Ok(all) = all_processes() else {
        return false;
    };
    all.filter_map(|p| p.ok()?.stat().ok())
        .any(|s| u32::try_from(s.pgrp) == Ok(group) && s.state != 'Z')
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn a_grandchild_and_its_group_come_from_the_program_started() -> std::io::Result<()> {
        use std::os::unix::process::CommandExt;
        // A shell that starts a sleep in the background, as a launcher
        // starts the application, and waits for it.
        let mut child = Command::new("sh")
            .args(["-c", "sleep 30 & echo $!; wait"])
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()?;
        let launched = child.id();
        let mut line = String::new();
        if let Some(out) = child.stdout.as_mut() {
            use std::io::BufRead;
            std::io::BufReader::new(out).read_line(&mut line)?;
        }
        let sleep: u32 = line.trim().parse().unwrap_or(0);
        let ours = started_by(sleep, launched);
        let runs = group_runs(launched);
        let mine = started_by(std::process::id(), launched);
        Command::new("kill").arg(sleep.to_string()).status()?;
        child.wait()?;
        assert!(sleep > 0, "{line:?}");
        assert!(ours);
        assert!(runs);
        assert!(!mine);
        assert!(!group_runs(launched));
        Ok(())
    }

    #[test]
    fn keeps_the_last_lines_whole_and_bounded() {
        let mut text = String::new();
        for k in 0..20 {
            text.push_str(&format!("line {k}\n\n"));
        }
        text.push_str(&"x".repeat(5000));
        let lines = last_lines(&text);
        assert_eq!(lines.len(), LINES);
        assert_eq!(lines[0], "line 13");
        assert_eq!(lines[LINES - 2], "line 19");
        assert_eq!(lines[LINES - 1].chars().count(), LINE_CHARS);
    }

    #[test]
    fn a_program_that_fails_says_why_and_its_log_goes() -> std::io::Result<()> {
        let (log, stderr) = StderrLog::create("/usr/bin/odd name!");
        let path = log.path().map(Path::to_path_buf).expect("a log file");
        let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        assert!(
            file_name
                .as_deref()
                .is_some_and(|n| n.starts_with("uidelta-odd_name_-")),
            "{path:?}"
        );
        let mut child = Command::new("sh")
            .args([
                "-c",
                "echo starting >&2; echo 'cannot open display: :99' >&2; exit 3",
            ])
            .stderr(stderr)
            .spawn()?;
        let status = child.wait()?;
        assert_eq!(
            how_it_ended(status, &log.last_lines()),
            "exit status: 3; the end of its stderr: \"starting\" | \"cannot open display: :99\""
        );
        log.remove();
        assert!(!path.exists());
        Ok(())
    }
}
