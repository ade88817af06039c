//! Finding and signalling the processes of one desktop through `/proc`.
//!
//! Every process a desktop starts carries a marker variable in its environment, and the
//! environment is inherited by everything those processes start in turn (the bus daemons'
//! activated services included), also when they double-fork away from their parent. Scanning
//! `/proc/<pid>/environ` for the marker therefore finds stragglers that process groups miss.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ::procfs::net::UnixState;
use ::procfs::process::FDTarget;
use nix::sys::signal::{kill, killpg, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

/// The environment variable that marks a process as belonging to a desktop.
pub(crate) const MARKER_VAR: &str = "UIDELTA_TESTKIT_DESKTOP";

/// Pids of live processes (zombies excluded) whose environment carries `MARKER_VAR=token`.
///
/// Costs one small read per process on the machine.
pub(crate) fn marked_processes(token: &str) -> Vec<u32> {
    let own = std::process::id();
    let Ok(processes) = ::procfs::process::all_processes() else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = processes
        .flatten()
        .filter_map(|process| u32::try_from(process.pid).ok().map(|pid| (process, pid)))
        .filter(|(_, pid)| *pid != own)
        .filter(|(process, _)| {
            // Zombies have an empty environ, so they never match.
            process.environ().is_ok_and(|environ| {
                environ
                    .get(std::ffi::OsStr::new(MARKER_VAR))
                    .is_some_and(|value| value == token)
            })
        })
        .map(|(_, pid)| pid)
        .collect();
    pids.sort_unstable();
    pids
}

/// Pids of live processes marked by a desktop whose test process is gone (killed before its
/// desktops were torn down: a run stopped by a signal or a timeout), with their tokens. A
/// token starts with the pid of the process that made it (see `new_token`).
pub(crate) fn orphaned_processes() -> Vec<(u32, String)> {
    let Ok(processes) = ::procfs::process::all_processes() else {
        return Vec::new();
    };
    let owner_gone = |token: &str| {
        token
            .split('-')
            .next()
            .and_then(|pid| pid.parse::<u32>().ok())
            .is_some_and(|pid| !std::path::Path::new(&format!("/proc/{pid}")).exists())
    };
    processes
        .flatten()
        .filter_map(|process| {
            let pid = u32::try_from(process.pid).ok()?;
            let environ = process.environ().ok()?;
            let token = environ.get(std::ffi::OsStr::new(MARKER_VAR))?.to_str()?;
            owner_gone(token).then(|| (pid, token.to_owned()))
        })
        .collect()
}

/// The command line of `pid`, its arguments joined by spaces; empty when it is gone.
pub(crate) fn command_line(pid: u32) -> String {
    i32::try_from(pid)
        .ok()
        .and_then(|pid| ::procfs::process::Process::new(pid).ok())
        .and_then(|process| process.cmdline().ok())
        .map(|args| args.join(" "))
        .unwrap_or_default()
}

/// The processes tracing a thread of `pid` (a debugger, a crash handler).
pub(crate) fn tracers_of(pid: u32) -> Vec<u32> {
    let Ok(process) = i32::try_from(pid)
        .map_err(|_| ())
        .and_then(|pid| ::procfs::process::Process::new(pid).map_err(|_| ()))
    else {
        return Vec::new();
    };
    let Ok(tasks) = process.tasks() else {
        return Vec::new();
    };
    let mut tracers: Vec<u32> = tasks
        .flatten()
        .filter_map(|task| task.status().ok())
        .filter_map(|status| u32::try_from(status.tracerpid).ok())
        .filter(|&tracer| tracer > 0)
        .collect();
    tracers.sort_unstable();
    tracers.dedup();
    tracers
}

/// The Unix sockets directly in `dir` that `pids` listen on. A process killed leaves the
/// socket file it bound (LibreOffice's single-instance pipe, `/tmp/OSL_PIPE_...`, where no
/// setting moves it), and such files would pile up run after run.
pub(crate) fn sockets_bound_in(pids: &[u32], dir: &Path) -> Vec<PathBuf> {
    let inodes: HashSet<u64> = pids
        .iter()
        .filter_map(|&pid| i32::try_from(pid).ok())
        .filter_map(|pid| ::procfs::process::Process::new(pid).ok())
        .filter_map(|process| process.fd().ok())
        .flat_map(|fds| {
            fds.flatten().filter_map(|fd| match fd.target {
                FDTarget::Socket(inode) => Some(inode),
                _ => None,
            })
        })
        .collect();
    if inodes.is_empty() {
        return Vec::new();
    }
    let Ok(entries) = ::procfs::net::unix() else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .into_iter()
        // Listening (or bound and never connected): the accepted ends of
        // another's socket are connected.
        .filter(|e| e.state == UnixState::UNCONNECTED && inodes.contains(&e.inode))
        .filter_map(|e| e.path)
        .filter(|path| path.parent() == Some(dir))
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// Sends `signal` to one process; a process that is already gone is not an error.
pub(crate) fn signal_process(pid: u32, signal: Signal) {
    if let Ok(pid) = i32::try_from(pid) {
        if pid > 0 {
            let _ = kill(Pid::from_raw(pid), signal);
        }
    }
}

/// Sends `signal` to the process group led by `pgid`.
///
/// Callers only pass the pid of a child they have not reaped yet, so the group id cannot have
/// been recycled for somebody else's group.
pub(crate) fn signal_group(pgid: u32, signal: Signal) {
    if let Ok(pgid) = i32::try_from(pgid) {
        if pgid > 1 {
            let _ = killpg(Pid::from_raw(pgid), signal);
        }
    }
}

/// Makes this process the reaper of its orphaned descendants (`PR_SET_CHILD_SUBREAPER`).
///
/// Bus helpers such as `at-spi2-registryd` are started by D-Bus activation and orphaned right
/// away. Without this they are reparented to PID 1, and under an init that does not reap (some
/// containers) every one of them stays behind as a zombie. As their reaper, teardown can
/// collect them with [`reap`]. Idempotent; affects the whole process.
pub(crate) fn become_subreaper() {
    // Without it teardown still works; orphans are then reaped by init.
    let _ = nix::sys::prctl::set_child_subreaper(true);
}

/// Collects `pid` if it is an exited child of ours. True once it is gone for good: reaped now,
/// or absent from `/proc` (its parent reaped it). False while it lives, or while it is a zombie
/// still waiting for a parent that has not reaped it (or for reparenting to us).
pub(crate) fn reap(pid: u32) -> bool {
    let Ok(raw) = i32::try_from(pid) else {
        return true;
    };
    let reaped = match waitpid(Pid::from_raw(raw), Some(WaitPidFlag::WNOHANG)) {
        Ok(WaitStatus::StillAlive) | Err(_) => false,
        Ok(_) => true,
    };
    reaped || !std::path::Path::new(&format!("/proc/{pid}")).exists()
}
