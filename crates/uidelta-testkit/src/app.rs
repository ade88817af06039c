use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, ExitStatus};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

use crate::procfs;

/// How long a killed leader may take to be reaped before whatever traces
/// its threads is killed too.
const TRACED_GRACE: Duration = Duration::from_millis(500);

/// How long a killed leader may take to be reaped at all: past it, it is
/// left to be reaped when this process ends.
const KILL_GIVE_UP: Duration = Duration::from_secs(10);

/// A process started inside a [`crate::Desktop`], leading its own process group.
///
/// The desktop keeps a handle to it and kills it at teardown, so dropping an `App` does not stop
/// the process; [`App::kill`] does. Signals go to the whole process group, so a wrapper script
/// and the program it starts are stopped, resumed and killed together.
#[derive(Debug)]
pub struct App {
    /// The process id, which is also the id of its process group.
    pub pid: u32,
    process: Arc<Mutex<Process>>,
    log_path: PathBuf,
}

/// The child together with its exit status once reaped, shared with the desktop.
///
/// Knowing whether the child was reaped keeps group signals safe: an unreaped pid (even a
/// zombie's) cannot be recycled, so its process group id still names our group.
#[derive(Debug)]
pub(crate) struct Process {
    child: Child,
    status: Option<ExitStatus>,
}

impl Process {
    pub(crate) fn new(child: Child) -> Self {
        Process {
            child,
            status: None,
        }
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` to the process group unless the leader has already been reaped.
    pub(crate) fn signal_group(&self, signal: Signal) {
        if self.status.is_none() {
            procfs::signal_group(self.child.id(), signal);
        }
    }

    /// Reaps the child if it has exited; true while it still runs.
    pub(crate) fn is_running(&mut self) -> bool {
        if self.status.is_some() {
            return false;
        }
        match self.child.try_wait() {
            Ok(Some(status)) => {
                self.status = Some(status);
                false
            }
            Ok(None) => true,
            // ECHILD: somebody else reaped it; it is not running either way.
            Err(_) => {
                self.status = Some(ExitStatus::default());
                false
            }
        }
    }

    /// Kills the group with SIGKILL and waits for the leader. A leader whose
    /// threads another process traces (Chromium's crash handler does, from
    /// a group of its own) is not reaped until the tracer lets go: after a
    /// moment the tracers are killed too.
    pub(crate) fn kill(&mut self) {
        if self.status.is_some() {
            return;
        }
        self.signal_group(Signal::SIGKILL);
        let tracers_killed = Instant::now() + TRACED_GRACE;
        let given_up = Instant::now() + KILL_GIVE_UP;
        while self.is_running() {
            if Instant::now() >= given_up {
                // Left to be reaped when this process ends; a teardown never hangs.
                self.status = Some(ExitStatus::default());
                return;
            }
            if Instant::now() >= tracers_killed {
                for tracer in procfs::tracers_of(self.child.id()) {
                    procfs::signal_process(tracer, Signal::SIGKILL);
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub(crate) fn exit_status(&self) -> Option<ExitStatus> {
        self.status
    }

    pub(crate) fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.stdout.take()
    }
}

pub(crate) fn lock(process: &Mutex<Process>) -> MutexGuard<'_, Process> {
    // A panic while holding the lock cannot leave `Process` inconsistent.
    process
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl App {
    pub(crate) fn new(process: Arc<Mutex<Process>>, log_path: PathBuf) -> Self {
        let pid = lock(&process).pid();
        App {
            pid,
            process,
            log_path,
        }
    }

    /// Kills the app's process group with SIGKILL and waits for it; does nothing if it has
    /// already exited.
    pub fn kill(&mut self) {
        lock(&self.process).kill();
    }

    /// Freezes the app's process group with SIGSTOP, to simulate a hung application.
    pub fn stop(&self) {
        lock(&self.process).signal_group(Signal::SIGSTOP);
    }

    /// Resumes a group frozen by [`App::stop`] with SIGCONT.
    pub fn resume(&self) {
        lock(&self.process).signal_group(Signal::SIGCONT);
    }

    /// True while the process has not exited; a stopped process still counts as running.
    /// Reaps it once it has exited.
    pub fn is_running(&mut self) -> bool {
        lock(&self.process).is_running()
    }

    /// The exit status, once [`App::is_running`] or [`App::kill`] has seen the process end.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        lock(&self.process).exit_status()
    }

    /// Takes the app's stdout, when it was started by [`crate::Desktop::spawn`] with
    /// `Stdio::piped()`.
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        lock(&self.process).take_stdout()
    }

    /// The file that receives the app's stdout and stderr when started by
    /// [`crate::Desktop::launch`]; it lives in the desktop's runtime directory and is removed
    /// with it.
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }
}
