//! Finding and signalling the processes of one desktop through `/proc`.
//!
//! Every process a desktop starts carries a marker variable in its environment, and the
//! environment is inherited by everything those processes start in turn (the bus daemons'
//! activated services included), also when they double-fork away from their parent. Scanning
//! `/proc/<pid>/environ` for the marker therefore finds stragglers that process groups miss.

use std::fs;

/// The environment variable that marks a process as belonging to a desktop.
pub(crate) const MARKER_VAR: &str = "UIDELTA_TESTKIT_DESKTOP";

/// Pids of live processes (zombies excluded) whose environment carries `MARKER_VAR=token`.
///
/// Costs one small read per process on the machine.
pub(crate) fn marked_processes(token: &str) -> Vec<u32> {
    let wanted = format!("{MARKER_VAR}={token}");
    let own = std::process::id();
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != own)
        .filter(|&pid| {
            // Zombies have an empty environ, so they never match.
            fs::read(format!("/proc/{pid}/environ"))
                .map(|environ| {
                    environ
                        .split(|&byte| byte == 0)
                        .any(|var| var == wanted.as_bytes())
                })
                .unwrap_or(false)
        })
        .collect();
    pids.sort_unstable();
    pids
}

/// The command line of `pid`, its arguments joined by spaces; empty when it is gone.
pub(crate) fn command_line(pid: u32) -> String {
    fs::read(format!("/proc/{pid}/cmdline"))
        .map(|raw| {
            raw.split(|&byte| byte == 0)
                .map(String::from_utf8_lossy)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

/// Sends `signal` to one process; a process that is already gone is not an error.
pub(crate) fn signal_process(pid: u32, signal: libc::c_int) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        if pid > 0 {
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe { libc::kill(pid, signal) };
        }
    }
}

/// Sends `signal` to the process group led by `pgid`.
///
/// Callers only pass the pid of a child they have not reaped yet, so the group id cannot have
/// been recycled for somebody else's group.
pub(crate) fn signal_group(pgid: u32, signal: libc::c_int) {
    if let Ok(pgid) = libc::pid_t::try_from(pgid) {
        if pgid > 1 {
            // SAFETY: kill(2) has no memory-safety preconditions; the negative pid names a group.
            unsafe { libc::kill(-pgid, signal) };
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
    // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER takes plain integers.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) };
}

/// Collects `pid` if it is an exited child of ours. True once it is gone for good: reaped now,
/// or absent from `/proc` (its parent reaped it). False while it lives, or while it is a zombie
/// still waiting for a parent that has not reaped it (or for reparenting to us).
pub(crate) fn reap(pid: u32) -> bool {
    let Ok(raw) = libc::pid_t::try_from(pid) else {
        return true;
    };
    let mut status = 0;
    // SAFETY: waitpid(2) writes only to `status`, a valid int.
    let result = unsafe { libc::waitpid(raw, &mut status, libc::WNOHANG) };
    result == raw || !std::path::Path::new(&format!("/proc/{pid}")).exists()
}
