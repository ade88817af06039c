//! Whether an application has nothing pending, from what Linux says of its
//! process.
//!
//! The accessibility bus says what changed, never what is still coming: a
//! click that changes nothing and a click whose dialog opens 800 ms later
//! send the same events until the dialog opens, so from the bus alone the
//! engine waits for its cap after every action that changes nothing. A
//! process does say whether work is pending. A toolkit's main loop sleeps
//! in `poll` with the time to its next timer as the timeout (`-1`: none),
//! and `/proc/<pid>/syscall` shows the call it sleeps in, with its
//! arguments; every thread's context switches
//! (`/proc/<pid>/task/<tid>/status`) say whether it ran since the last
//! look. A process whose threads (and its children's) have all been asleep
//! for [`QUIET`], whose main thread waits in `poll` with no timer due before
//! the engine's cap would end the wait ([`HORIZON`] after the action), and
//! none of whose threads is running or blocked on the disk, has nothing
//! pending of its own: what can still change it comes from outside (input,
//! a reply from another process). The engine hears this as [`EventKind::Idle`] and ends
//! the wait of an action that changed nothing a short grace after it
//! (`Quiet::grace`), as it does with a page's word.
//!
//! The other way round, a process whose threads ran or waited to run for
//! half the time since the last look (`/proc/<pid>/task/<tid>/schedstat`),
//! or one of which is on the disk at two looks in a row, is at work
//! ([`EventKind::Working`]): a change that started may not be over (an
//! editor writing a file names its window after it once written), and the
//! engine holds its quiet window off after a change, for a while, as it
//! does for places still moving. Work while its tree is being read (or a
//! tick after) is not said: that is the process answering the engine's own
//! calls (LibreOffice runs for as long as a capture asks), not the action.
//!
//! Only applications whose toolkit does its work in its own process are
//! watched (`Profile::works_in_its_process`): not browsers, whose pages run
//! in other processes. Only the few seconds after an action are watched
//! ([`Stirs`]), twenty looks a second. Where the kernel does not show the
//! call (another user's process without the right, a `ptrace` scope that
//! forbids it, an architecture whose syscall numbers are not known here),
//! nothing is said, and actions that change nothing wait for the cap as
//! before.
//!
//! [`EventKind::Idle`]: uidelta_backend::EventKind::Idle
//! [`EventKind::Working`]: uidelta_backend::EventKind::Working

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use procfs::process::{Process, Syscall};
use procfs::ProcError;

/// How often the process is looked at.
pub(crate) const TICK: Duration = Duration::from_millis(50);

/// How long every thread must have been asleep: longer than the round
/// trips a toolkit makes to the X server or the bus while it handles input.
pub(crate) const QUIET: Duration = Duration::from_millis(100);

/// How long after an action the main loop's next timer must be due: the
/// engine's default cap, so that a timer the action started (a dialog
/// built 800 ms later) is always waited for, and one that fires after the
/// cap would have ended the wait changes nothing the answer holds.
pub(crate) const HORIZON: Duration = Duration::from_millis(2000);

/// How long after an action its application is watched: past the cap.
pub(crate) const WATCH: Duration = Duration::from_millis(3000);

/// When each process was last acted on, so that it is watched only then,
/// and when it was last asked for its tree, so that the work of answering
/// is not taken for the action's.
#[derive(Debug, Default)]
pub(crate) struct Stirs {
    at: Mutex<HashMap<u32, Instant>>,
    asked: Mutex<HashMap<u32, Asked>>,
}

/// The reads of one process's tree: how many are under way, and when the
/// last one ended.
#[derive(Clone, Copy, Debug)]
struct Asked {
    open: usize,
    ended: Instant,
}

/// A read of a process's tree under way (see [`Stirs::ask`]); ends when
/// dropped.
pub(crate) struct Asking<'a> {
    stirs: &'a Stirs,
    pid: Option<u32>,
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        let Some(pid) = self.pid else { return };
        if let Ok(mut asked) = self.stirs.asked.lock() {
            if let Some(a) = asked.get_mut(&pid) {
                a.open = a.open.saturating_sub(1);
                a.ended = Instant::now();
            }
        }
    }
}

impl Stirs {
    /// Notes an action on `pid` now.
    pub fn stir(&self, pid: Option<u32>) {
        let Some(pid) = pid else { return };
        if let Ok(mut at) = self.at.lock() {
            let now = Instant::now();
            at.retain(|_, t| now.duration_since(*t) < WATCH);
            at.insert(pid, now);
        }
    }

    /// Notes a read of `pid`'s tree, under way until the guard is dropped:
    /// a process answering a capture's calls is at work for it, not for
    /// the action.
    pub fn ask(&self, pid: Option<u32>) -> Asking<'_> {
        if let (Some(pid), Ok(mut asked)) = (pid, self.asked.lock()) {
            let now = Instant::now();
            asked.retain(|_, a| a.open > 0 || now.duration_since(a.ended) < WATCH);
            asked
                .entry(pid)
                .and_modify(|a| a.open += 1)
                .or_insert(Asked {
                    open: 1,
                    ended: now,
                });
        }
        Asking { stirs: self, pid }
    }

    /// Whether `pid` was being read at any time since `since`.
    fn asked_since(&self, pid: u32, since: Instant) -> bool {
        self.asked
            .lock()
            .ok()
            .and_then(|asked| asked.get(&pid).copied())
            .is_some_and(|a| a.open > 0 || a.ended >= since)
    }

    /// When `pid` was last acted on, if within [`WATCH`].
    fn watched(&self, pid: u32) -> Option<Instant> {
        self.at
            .lock()
            .ok()
            .and_then(|at| at.get(&pid).copied())
            .filter(|t| t.elapsed() < WATCH)
    }
}

/// What the main thread is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Main {
    /// Waiting in `poll` (or `epoll_wait`) for at most this long; `None`:
    /// for input only.
    Polling(Option<Duration>),
    /// Running, or waiting for something else.
    Other,
}

/// One look at a process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Look {
    pub at: Instant,
    /// Context switches of the main thread so far.
    pub main_switches: u64,
    /// Context switches of every thread of the process and of its
    /// children so far.
    pub switches: u64,
    /// Whether one of those threads is running, ready to run, or blocked
    /// on the disk.
    pub working: bool,
    /// Whether one of those threads is blocked on the disk.
    pub on_disk: bool,
    /// How long those threads have been on a CPU or waiting for one so
    /// far, in nanoseconds (the threads that ended are not counted).
    pub demand: u64,
    pub main: Main,
}

/// Whether the process was at work between two looks at it: its threads
/// on a CPU, or waiting for one, for half the time or more, or one of them
/// on the disk at both. A spinner's or a button's animation takes a
/// millisecond or two a frame, a tenth of the time at most; laying out a
/// window or writing a file takes all of it.
pub(crate) fn at_work(last: &Look, look: &Look) -> bool {
    let between = look.at.saturating_duration_since(last.at).as_nanos();
    let demand = u128::from(look.demand.saturating_sub(last.demand));
    (between > 0 && demand * 2 >= between) || (last.on_disk && look.on_disk)
}

/// Judges a process idle from its looks, one after another.
#[derive(Debug, Default)]
pub(crate) struct Judge {
    last: Option<Look>,
    /// The main thread last went to sleep after this.
    slept_after: Option<Instant>,
    /// Every thread has been asleep since this (none working now).
    quiet_since: Option<Instant>,
}

impl Judge {
    /// Takes `look` in; whether the process has nothing pending before
    /// `deadline` (the cap of the wait after the last action).
    pub fn judge(&mut self, look: Look, deadline: Instant) -> bool {
        if let Some(last) = self.last {
            if look.main_switches != last.main_switches {
                self.slept_after = Some(last.at);
            }
            if look.switches != last.switches || look.working {
                self.quiet_since = None;
            } else if self.quiet_since.is_none() {
                self.quiet_since = Some(last.at);
            }
        }
        self.last = Some(look);
        let quiet = self
            .quiet_since
            .is_some_and(|q| look.at.duration_since(q) >= QUIET);
        let no_timer_due = match look.main {
            Main::Polling(None) => true,
            // The timeout counts from when the main thread went to sleep,
            // which is known only as after a look.
            Main::Polling(Some(timeout)) => {
                self.slept_after.is_some_and(|s| s + timeout >= deadline)
            }
            Main::Other => false,
        };
        quiet && no_timer_due
    }

    /// Forgets the looks so far (the process was not watched for a while).
    pub fn forget(&mut self) {
        *self = Judge::default();
    }
}

/// Why a process cannot be looked at.
#[derive(Debug)]
pub(crate) enum Unseen {
    /// It is gone.
    Gone,
    /// The kernel does not show what it does to this process.
    Hidden(String),
}

/// The syscall numbers of `poll`, `epoll_wait` and `epoll_pwait` here, and
/// which argument holds the timeout in milliseconds.
#[cfg(target_arch = "x86_64")]
fn poll_timeout(number: i64, args: &[u64; 6]) -> Option<Option<Duration>> {
    let ms = match number {
        7 => args[2],
        232 | 281 => args[3],
        _ => return None,
    };
    // An `int`: negative is forever.
    let ms = ms as u32 as i32;
    Some(u64::try_from(ms).ok().map(Duration::from_millis))
}

#[cfg(not(target_arch = "x86_64"))]
fn poll_timeout(_number: i64, _args: &[u64; 6]) -> Option<Option<Duration>> {
    None
}

/// Whether the kernel can show this machine's main loops at all.
const fn known_here() -> bool {
    cfg!(target_arch = "x86_64")
}

/// What the main thread's `/proc/<pid>/syscall` says.
fn main_of(syscall: &Syscall) -> Main {
    match syscall {
        Syscall::Blocked {
            syscall_number,
            argument_registers,
            ..
        } => poll_timeout(*syscall_number, argument_registers).map_or(Main::Other, Main::Polling),
        _ => Main::Other,
    }
}

/// What `/proc/<pid>/syscall` says: `running`; the call the main thread
/// sleeps in, with its six arguments, stack pointer and program counter;
/// or, for a thread that waits for a CPU outside any call (a busy process
/// on a loaded machine), `-1` with the stack pointer and program counter
/// alone. (procfs's own reader takes the last for a bug: a look then
/// failed, and the watch of a process at work ended having said nothing.)
fn syscall_of(pid: u32) -> Result<Syscall, Unseen> {
    let path = format!("/proc/{pid}/syscall");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Unseen::Gone),
        Err(e) => return Err(Unseen::Hidden(format!("{path}: {e}"))),
    };
    parse_syscall(text.trim()).ok_or_else(|| Unseen::Hidden(format!("{path} says {text:?}")))
}

/// [`syscall_of`]'s reading of the file's line.
fn parse_syscall(line: &str) -> Option<Syscall> {
    if line == "running" {
        return Some(Syscall::Running);
    }
    let mut words = line.split_whitespace();
    let syscall_number: i64 = words.next()?.parse().ok()?;
    let hex = |w: Option<&str>| -> Option<u64> {
        let w = w?;
        u64::from_str_radix(w.strip_prefix("0x").unwrap_or(w), 16).ok()
    };
    let mut argument_registers = [0u64; 6];
    if syscall_number >= 0 {
        for register in &mut argument_registers {
            *register = hex(words.next())?;
        }
    }
    let stack_pointer = hex(words.next())?;
    let program_counter = hex(words.next())?;
    Some(Syscall::Blocked {
        syscall_number,
        argument_registers,
        stack_pointer,
        program_counter,
    })
}

fn unseen(pid: u32, e: ProcError) -> Unseen {
    match e {
        ProcError::NotFound(_) => Unseen::Gone,
        e => Unseen::Hidden(format!("process {pid}: {e}")),
    }
}

/// Adds the context switches and working threads of `process` to `look`
/// (its main thread's as the main thread's, when it is the one looked
/// at); the children it lists. A thread that ended meanwhile is left out.
fn add_threads(process: &Process, look: &mut Look, watched: bool) -> Result<Vec<u32>, ProcError> {
    let mut children = Vec::new();
    for task in process.tasks()?.flatten() {
        let Ok(status) = task.status() else { continue };
        let switches = status.voluntary_ctxt_switches.unwrap_or(0)
            + status.nonvoluntary_ctxt_switches.unwrap_or(0);
        look.switches += switches;
        let on_disk = status.state.starts_with('D');
        look.working |= status.state.starts_with('R') || on_disk;
        look.on_disk |= on_disk;
        if let Ok(sched) = task.schedstat() {
            look.demand += sched.sum_exec_runtime + sched.run_delay;
        }
        if watched && task.tid == process.pid {
            look.main_switches = switches;
        }
        if let Ok(kids) = task.children() {
            children.extend(kids);
        }
    }
    Ok(children)
}

/// Looks at process `pid`, its threads and its children's.
pub(crate) fn look(pid: u32) -> Result<Look, Unseen> {
    if !known_here() {
        return Err(Unseen::Hidden(
            "the main loop's calls are not known on this architecture".to_owned(),
        ));
    }
    let id = i32::try_from(pid).map_err(|_| Unseen::Gone)?;
    let process = Process::new(id).map_err(|e| unseen(pid, e))?;
    let syscall = syscall_of(pid)?;
    let mut look = Look {
        at: Instant::now(),
        main_switches: 0,
        switches: 0,
        working: false,
        on_disk: false,
        demand: 0,
        main: main_of(&syscall),
    };
    let children = add_threads(&process, &mut look, true).map_err(|e| unseen(pid, e))?;
    // A child that ended meanwhile is not there.
    for child in children {
        if let Some(child) = i32::try_from(child).ok().and_then(|c| Process::new(c).ok()) {
            let _ = add_threads(&child, &mut look, false);
        }
    }
    Ok(look)
}

/// What a look at a process says, when it says anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Said {
    /// Nothing pending (see [`Judge::judge`]).
    Idle,
    /// At work since the last look (see [`at_work`]).
    Working,
}

/// Watches process `pid` while [`Stirs`] says it was acted on, and calls
/// `tell` at every look that finds it idle or at work (false from `tell`
/// ends the watch); ends when the process is gone or cannot be seen.
pub(crate) async fn watch(
    pid: u32,
    stirs: Arc<Stirs>,
    mut tell: impl FnMut(Said, Instant) -> bool + Send,
) {
    let mut judge = Judge::default();
    let mut last: Option<Look> = None;
    let mut ticks = tokio::time::interval(TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(stirred) = stirs.watched(pid) else {
            judge.forget();
            last = None;
            continue;
        };
        match look(pid) {
            Ok(look) => {
                let said = if judge.judge(look, stirred + HORIZON) {
                    Some(Said::Idle)
                } else {
                    // At work since the last look, and not answering a
                    // read of its tree then (or a tick before, the last
                    // answers still going out).
                    let working = last.is_some_and(|last| {
                        at_work(&last, &look)
                            && !last
                                .at
                                .checked_sub(TICK)
                                .is_none_or(|since| stirs.asked_since(pid, since))
                    });
                    working.then_some(Said::Working)
                };
                last = Some(look);
                if said.is_some_and(|said| !tell(said, look.at)) {
                    return;
                }
            }
            Err(Unseen::Gone) => return,
            Err(Unseen::Hidden(why)) => {
                tracing::debug!(pid, %why, "whether the application is idle is not known");
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A look `at` ms after `t0`.
    fn looked(t0: Instant, at: u64, main_switches: u64, others: u64, main: Main) -> Look {
        Look {
            at: t0 + ms(at),
            main_switches,
            switches: main_switches + others,
            working: false,
            on_disk: false,
            demand: 0,
            main,
        }
    }

    #[test]
    fn at_work_is_half_the_time_on_a_cpu_or_waiting_for_one_or_the_disk_twice() {
        let t0 = Instant::now();
        let forever = Main::Polling(None);
        let at = |ms_at: u64, demand_ms: u64, on_disk: bool| Look {
            demand: demand_ms * 1_000_000,
            on_disk,
            ..looked(t0, ms_at, 10, 5, forever)
        };
        // A spinner's frames: 3 ms in 50.
        assert!(!at_work(&at(0, 100, false), &at(50, 103, false)));
        // Laying out a window: 30 ms in 50, or 25 of them waiting.
        assert!(at_work(&at(0, 100, false), &at(50, 130, false)));
        assert!(at_work(&at(0, 100, false), &at(50, 125, false)));
        // Half of a late look's 80 ms is needed.
        assert!(!at_work(&at(0, 100, false), &at(80, 130, false)));
        // A thread that ended takes its time along: not work.
        assert!(!at_work(&at(0, 100, false), &at(50, 60, false)));
        // On the disk at both looks, or at one only.
        assert!(at_work(&at(0, 100, true), &at(50, 100, true)));
        assert!(!at_work(&at(0, 100, true), &at(50, 100, false)));
        // Two looks at once say nothing.
        assert!(!at_work(&at(50, 100, false), &at(50, 100, false)));
    }

    #[test]
    fn a_process_asleep_with_no_timer_is_idle_once_quiet_for_a_while() {
        let t0 = Instant::now();
        let mut j = Judge::default();
        let forever = Main::Polling(None);
        // It handles the action, then sleeps.
        assert!(!j.judge(looked(t0, 0, 10, 5, forever), t0 + HORIZON));
        assert!(!j.judge(looked(t0, 50, 14, 5, forever), t0 + HORIZON));
        // Asleep since 50 ms: not yet quiet long enough.
        assert!(!j.judge(looked(t0, 100, 14, 5, forever), t0 + HORIZON));
        assert!(j.judge(looked(t0, 150, 14, 5, forever), t0 + HORIZON));
        assert!(j.judge(looked(t0, 200, 14, 5, forever), t0 + HORIZON));
        // Another thread ran: quiet starts again.
        assert!(!j.judge(looked(t0, 250, 14, 6, forever), t0 + HORIZON));
        assert!(!j.judge(looked(t0, 300, 14, 6, forever), t0 + HORIZON));
        assert!(j.judge(looked(t0, 350, 14, 6, forever), t0 + HORIZON));
    }

    #[test]
    fn a_timer_due_within_the_horizon_keeps_a_process_busy() {
        let t0 = Instant::now();
        let mut j = Judge::default();
        // The action started an 800 ms timer (a dialog built later).
        let timer = Main::Polling(Some(ms(800)));
        assert!(!j.judge(looked(t0, 0, 10, 5, Main::Other), t0 + HORIZON));
        assert!(!j.judge(looked(t0, 50, 12, 5, timer), t0 + HORIZON));
        for at in [100, 150, 200, 400, 700] {
            assert!(
                !j.judge(looked(t0, at, 12, 5, timer), t0 + HORIZON),
                "{at} ms"
            );
        }
    }

    #[test]
    fn a_timer_counts_from_when_the_main_thread_went_to_sleep() {
        let t0 = Instant::now();
        let cap = t0 + HORIZON;
        // Slept between 0 and 50 ms with a timer 1.9 s off: it may fire
        // before the cap.
        let soon = Main::Polling(Some(ms(1_900)));
        let mut j = Judge::default();
        assert!(!j.judge(looked(t0, 0, 10, 5, soon), cap));
        for at in (50..=1_000).step_by(50) {
            assert!(!j.judge(looked(t0, at, 11, 5, soon), cap), "{at} ms");
        }
        // It fired, and slept again between 1000 and 1050 ms with the
        // next 1.9 s off: after the cap (LibreOffice's timers).
        for at in [1_050, 1_100] {
            assert!(!j.judge(looked(t0, at, 12, 5, soon), cap), "{at} ms");
        }
        assert!(j.judge(looked(t0, 1_150, 12, 5, soon), cap));
        // Never seen going to sleep: when its timer is due is not known.
        let far = Main::Polling(Some(ms(15_000)));
        let mut j = Judge::default();
        for at in [0, 50, 100, 150, 200] {
            assert!(!j.judge(looked(t0, at, 10, 5, far), cap), "{at} ms");
        }
    }

    #[test]
    fn a_working_thread_or_a_main_thread_not_polling_is_never_idle() {
        let t0 = Instant::now();
        let mut j = Judge::default();
        let forever = Main::Polling(None);
        for at in [0, 50, 100, 150, 200] {
            let l = Look {
                working: true,
                ..looked(t0, at, 10, 5, forever)
            };
            assert!(!j.judge(l, t0 + HORIZON), "{at} ms");
        }
        let mut j = Judge::default();
        for at in [0, 50, 100, 150, 200] {
            assert!(
                !j.judge(looked(t0, at, 10, 5, Main::Other), t0 + HORIZON),
                "{at} ms"
            );
        }
        // Forgotten looks are not counted on.
        let mut j = Judge::default();
        for at in [0, 50, 100] {
            j.judge(looked(t0, at, 10, 5, forever), t0 + HORIZON);
        }
        j.forget();
        assert!(!j.judge(looked(t0, 150, 10, 5, forever), t0 + HORIZON));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn poll_and_epoll_timeouts_are_read_from_their_arguments() {
        let args = |a: u64, b: u64, c: u64, d: u64| [a, b, c, d, 0, 0];
        let blocked = |number, argument_registers| Syscall::Blocked {
            syscall_number: number,
            argument_registers,
            stack_pointer: 0,
            program_counter: 0,
        };
        // poll(fds, 4, -1), as /proc shows an int argument.
        assert_eq!(
            main_of(&blocked(7, args(0x55dad71ed700, 4, 0xffff_ffff, 0))),
            Main::Polling(None)
        );
        assert_eq!(
            main_of(&blocked(7, args(0x1eb35bc0, 4, 0x3c9d, 0))),
            Main::Polling(Some(ms(15_517)))
        );
        // epoll_wait(fd, events, n, 250)
        assert_eq!(
            main_of(&blocked(232, args(3, 0x7ff0, 32, 250))),
            Main::Polling(Some(ms(250)))
        );
        // A futex, or a call outside any syscall.
        assert_eq!(main_of(&blocked(202, args(0, 0, 0, 0))), Main::Other);
        assert_eq!(main_of(&blocked(-1, args(0, 0, 0, 0))), Main::Other);
        assert_eq!(main_of(&Syscall::Running), Main::Other);
    }

    #[test]
    fn the_syscall_file_is_read_in_all_three_forms() {
        assert_eq!(parse_syscall("running"), Some(Syscall::Running));
        // Waiting for a CPU outside any call: no arguments.
        assert_eq!(
            parse_syscall("-1 0x7ffd5e5c8a40 0x55d0c0a1b2c3"),
            Some(Syscall::Blocked {
                syscall_number: -1,
                argument_registers: [0; 6],
                stack_pointer: 0x7ffd_5e5c_8a40,
                program_counter: 0x55d0_c0a1_b2c3,
            })
        );
        // poll(fds, 3, 250).
        let polling = parse_syscall("7 0x5581 0x3 0xfa 0x0 0x0 0x0 0x7ffd 0x7f12");
        assert_eq!(
            main_of(&polling.expect("a call")),
            Main::Polling(Some(ms(250)))
        );
        assert_eq!(parse_syscall("7 0x1 0x2"), None);
        assert_eq!(parse_syscall(""), None);
    }

    /// A Python process running `script`.
    fn python(script: &str) -> std::process::Child {
        match std::process::Command::new("/usr/bin/python3")
            .args(["-c", script])
            .spawn()
        {
            Ok(child) => child,
            Err(e) => panic!("python3 is needed for this test ({e}): apt-get install python3"),
        }
    }

    /// What the watch says of a process that works half a second, then
    /// sleeps in poll for good, up to the first idle (within the watch's
    /// three seconds); its tree read for the first `read` of them.
    async fn said_of_half_a_second_of_work(read: Duration) -> Vec<Said> {
        let script = "import select, time\n\
                      end = time.monotonic() + 0.5\n\
                      while time.monotonic() < end: pass\n\
                      select.poll().poll()";
        let mut child = python(script);
        let stirs = Arc::new(Stirs::default());
        stirs.stir(Some(child.id()));
        let said = Arc::new(Mutex::new(Vec::new()));
        let heard = said.clone();
        let pid = child.id();
        let reader = stirs.clone();
        let reading = async move {
            let _asking = reader.ask(Some(pid));
            tokio::time::sleep(read).await;
        };
        // Until the first idle, which ends the story: on a loaded machine
        // the interpreter may take a second to start.
        let watching = watch(pid, stirs, move |what, _| {
            heard.lock().map(|mut h| h.push(what)).is_ok() && what != Said::Idle
        });
        let _ = tokio::time::timeout(WATCH, async {
            tokio::join!(reading, watching);
        })
        .await;
        let _ = child.kill();
        let _ = child.wait();
        let said = said.lock().map(|s| s.clone()).unwrap_or_default();
        said
    }

    #[cfg(target_arch = "x86_64")]
    #[tokio::test]
    async fn a_process_at_work_is_said_at_work_then_idle_once_asleep() {
        let said = said_of_half_a_second_of_work(Duration::ZERO).await;
        let first_idle = said.iter().position(|s| *s == Said::Idle);
        let working = said.iter().filter(|s| **s == Said::Working).count();
        // Some ten looks at work (fifty milliseconds apart), then idle.
        assert!(working >= 4, "{said:?}");
        assert!(first_idle.is_some_and(|i| i >= 4), "{said:?}");
        assert_eq!(said.last(), Some(&Said::Idle), "{said:?}");
    }

    #[cfg(target_arch = "x86_64")]
    #[tokio::test]
    async fn a_process_answering_a_read_of_its_tree_is_not_said_at_work() {
        // The same work, all of it while its tree is read: that is the
        // read's work, not the action's.
        let said = said_of_half_a_second_of_work(ms(1500)).await;
        assert!(!said.contains(&Said::Working), "{said:?}");
        assert_eq!(said.last(), Some(&Said::Idle), "{said:?}");
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_main_thread_counted_is_the_watched_process_s_not_a_child_s() {
        // A parent asleep in poll with a child asleep too.
        let script = "import select, subprocess; subprocess.Popen(['sleep', '30']); \
                      select.poll().poll()";
        let mut parent = python(script);
        let pid = parent.id();
        let mut seen = None;
        for _ in 0..100 {
            std::thread::sleep(ms(50));
            let kids = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
                .unwrap_or_default();
            if let (Ok(l), false) = (look(pid), kids.trim().is_empty()) {
                // Both asleep: a child just forked may not have run yet.
                if l.main == Main::Polling(None) && !l.working {
                    seen = Some(l);
                    break;
                }
            }
        }
        let own = Process::new(pid as i32)
            .and_then(|p| p.task_main_thread())
            .and_then(|t| t.status())
            .map(|s| {
                s.voluntary_ctxt_switches.unwrap_or(0) + s.nonvoluntary_ctxt_switches.unwrap_or(0)
            });
        let _ = std::process::Command::new("pkill")
            .args(["-P", &pid.to_string()])
            .status();
        let _ = parent.kill();
        let _ = parent.wait();
        let Some(l) = seen else {
            panic!("the parent and its child were not seen asleep");
        };
        assert_eq!(Some(l.main_switches), own.ok());
        // The child's switches are counted with the parent's.
        assert!(l.switches > l.main_switches, "{l:?}");
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_process_polling_is_seen_with_its_timeout() {
        // Python's select.poll() sleeps in poll(2), as a main loop does.
        let poller = |timeout: &str| {
            let script = format!("import select; select.poll().poll({timeout})");
            python(&script)
        };
        let mut forever = poller("");
        let mut timed = poller("60000");
        let mut seen = (Err(Unseen::Gone), Err(Unseen::Gone));
        // Until both are asleep in poll (Python takes a while to start).
        for _ in 0..100 {
            std::thread::sleep(ms(50));
            seen = (look(forever.id()), look(timed.id()));
            if matches!(&seen, (Ok(a), Ok(b)) if a.main != Main::Other && b.main != Main::Other) {
                break;
            }
        }
        let (pid_forever, pid_timed) = (forever.id(), timed.id());
        for child in [&mut forever, &mut timed] {
            let _ = child.kill();
            let _ = child.wait();
        }
        match seen {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.main, Main::Polling(None));
                assert_eq!(b.main, Main::Polling(Some(ms(60_000))));
                assert!(!a.working && !b.working);
                assert!(a.main_switches > 0 && a.switches >= a.main_switches);
            }
            other => panic!("the pollers were not seen: {other:?}"),
        }
        assert!(matches!(look(pid_forever), Err(Unseen::Gone)));
        assert!(matches!(look(pid_timed), Err(Unseen::Gone)));
    }
}
