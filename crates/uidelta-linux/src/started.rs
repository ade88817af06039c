//! The programs an application started since an action that may still
//! show windows of their own (see `uidelta_backend::Backend::started`):
//! GIMP runs each plug-in as a process of its own, and on a busy machine
//! the plug-in can take longer to show its dialog than GIMP takes to
//! settle. Linux says what an application's process started
//! (`/proc/<pid>/task/<tid>/children`), when (`stat`'s start time), and
//! whether it draws on the display (the X11, XCB or Wayland client library
//! among what it maps). Browsers, whose pages run in processes of their
//! own that never join the bus, are not asked (see the backend).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use procfs::process::Process;
use procfs::Current;

/// Most processes looked at below an application (a terminal's shells and
/// what runs in them); the rest is not looked at.
const MOST: usize = 256;

/// Slack on when a process started: the kernel counts in ticks (a
/// hundredth of a second) and the uptime in hundredths.
const SLACK: Duration = Duration::from_millis(20);

/// The client libraries of a display server: a process that maps one
/// draws, or will draw, windows.
const DISPLAY_CLIENTS: [&str; 3] = ["libX11.so", "libxcb.so", "libwayland-client.so"];

/// The processes below `pid` that started since `since` and draw on the
/// display. None when Linux does not say (another user's process, no
/// `/proc`).
pub(crate) fn started_since(pid: u32, since: Instant) -> Vec<u32> {
    let Ok(uptime) = procfs::Uptime::current() else {
        return Vec::new();
    };
    // `since`, as time since boot, as the kernel counts when a process
    // started.
    let Some(from) = uptime
        .uptime_duration()
        .checked_sub(since.elapsed() + SLACK)
    else {
        return Vec::new();
    };
    let ticks = procfs::ticks_per_second().max(1) as f64;
    descendants(pid)
        .into_iter()
        .filter(|&child| {
            let Some(p) = process(child) else {
                return false;
            };
            let started = p
                .stat()
                .is_ok_and(|s| Duration::from_secs_f64(s.starttime as f64 / ticks) >= from);
            started && draws(child)
        })
        .collect()
}

fn process(pid: u32) -> Option<Process> {
    Process::new(i32::try_from(pid).ok()?).ok()
}

/// Whether process `pid` maps a display server's client library.
fn draws(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .is_ok_and(|maps| maps_a_display_client(&maps))
}

/// Whether a `maps` listing holds a display server's client library (a
/// file named `libX11.so`, or that with a version after it).
fn maps_a_display_client(maps: &str) -> bool {
    maps.lines().any(|line| {
        let file = line.rsplit('/').next().unwrap_or_default();
        DISPLAY_CLIENTS.iter().any(|lib| {
            file.strip_prefix(lib)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
    })
}

/// Every process below `pid` (children, theirs, ...), at most [`MOST`].
fn descendants(pid: u32) -> Vec<u32> {
    let mut seen: HashSet<u32> = HashSet::from([pid]);
    let mut out = Vec::new();
    let mut next = vec![pid];
    while let Some(p) = next.pop() {
        let Some(process) = process(p) else { continue };
        let Ok(tasks) = process.tasks() else { continue };
        for task in tasks.flatten() {
            for child in task.children().unwrap_or_default() {
                if out.len() >= MOST {
                    return out;
                }
                if seen.insert(child) {
                    out.push(child);
                    next.push(child);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_mapping_a_display_client_draws() {
        let gtk = "7f2a1c000000-7f2a1c02a000 r--p 00000000 08:01 1234 /usr/lib/x86_64-linux-gnu/libX11.so.6.4.0\n";
        let qt = "7f00 r-xp 0 08:01 9 /usr/lib/x86_64-linux-gnu/libxcb.so.1.1.0\n";
        let shell = "55d0 r-xp 0 08:01 7 /usr/bin/bash\n7f00 r-xp 0 08:01 8 /usr/lib/x86_64-linux-gnu/libc.so.6\n";
        assert!(maps_a_display_client(gtk));
        assert!(maps_a_display_client(qt));
        assert!(!maps_a_display_client(shell));
        // A library named like one is not one.
        assert!(!maps_a_display_client(
            "7f00 r-xp 0 08:01 8 /opt/libX11.sock\n"
        ));
    }

    #[test]
    fn a_program_started_after_the_instant_drawing_on_the_display_is_found() {
        // This test's own process runs the test binary; its children run
        // `sleep`, which draws nothing, and Python mapping libX11, which
        // does.
        let libx11 = [
            "/usr/lib/x86_64-linux-gnu/libX11.so.6",
            "/usr/lib/aarch64-linux-gnu/libX11.so.6",
        ]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .expect("libX11 (apt-get install libx11-6)");
        let before = Instant::now();
        std::thread::sleep(Duration::from_millis(50));
        let mut sleeper = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("start sleep");
        let mut drawer = std::process::Command::new("python3")
            .args([
                "-c",
                &format!("import ctypes, time; ctypes.CDLL({libx11:?}); time.sleep(5)"),
            ])
            .spawn()
            .expect("start python3 (apt-get install python3)");
        // Python maps libX11 as it starts, which a loaded machine makes
        // take a while: looked at until it has, for at most 20 s.
        let me = std::process::id();
        let until = Instant::now() + Duration::from_secs(20);
        let mut found = started_since(me, before);
        while found.is_empty() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(50));
            found = started_since(me, before);
        }
        let later = started_since(me, Instant::now());
        let _ = sleeper.kill();
        let _ = sleeper.wait();
        let _ = drawer.kill();
        let _ = drawer.wait();
        assert_eq!(found, [drawer.id()], "not sleep ({})", sleeper.id());
        // Neither started after now.
        assert!(later.is_empty(), "{later:?}");
    }
}
