//! An application whose threads another process traces (Chromium's crash
//! handler does, from a process group of its own) is killed and reaped all
//! the same: a traced process is not reaped while its tracer holds it.

use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use uidelta_testkit::{require_programs, Desktop};

/// Attaches to the process whose pid is its argument, then never waits for
/// it, as a tracer that is busy elsewhere.
const TRACER: &str = r#"
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_SEIZE = 0x4206
if libc.ptrace(ctypes.c_long(PTRACE_SEIZE), ctypes.c_long(int(sys.argv[1])), None, None) != 0:
    sys.exit("ptrace: errno %d" % ctypes.get_errno())
time.sleep(1000)
"#;

/// How long the kill may take before it counts as stuck (a liveness bound:
/// it takes about half a second).
const STUCK: Duration = Duration::from_secs(60);

fn tracer_of(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("TracerPid:"))
        .and_then(|value| value.trim().parse().ok())
        .filter(|&tracer| tracer != 0)
}

#[test]
fn an_app_another_process_traces_is_killed_and_reaped() {
    require_programs(&[
        ("Xvfb", "xvfb"),
        ("dbus-daemon", "dbus"),
        ("/usr/bin/python3", "python3"),
    ])
    .expect("programs");
    let desktop = Desktop::start().expect("a virtual desktop");
    let mut app = desktop
        .launch("sleep", &["1000"])
        .expect("sleep on the desktop");
    let pid = app.pid;
    let mut tracer = Command::new("/usr/bin/python3")
        .args(["-c", TRACER, &pid.to_string()])
        .stdin(Stdio::null())
        .spawn()
        .expect("starting the tracer");
    let attached = Instant::now() + Duration::from_secs(20);
    while tracer_of(pid) != Some(tracer.id()) {
        assert!(
            Instant::now() < attached,
            "the tracer did not attach to {pid}"
        );
        assert!(
            tracer.try_wait().expect("the tracer").is_none(),
            "the tracer exited"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (done, killed) = mpsc::channel();
    std::thread::spawn(move || {
        app.kill();
        let _ = done.send(app.is_running());
    });
    let result = killed.recv_timeout(STUCK);
    let _ = tracer.kill();
    let _ = tracer.wait();
    match result {
        Ok(running) => assert!(!running, "the app still runs after being killed"),
        Err(_) => panic!("killing an app another process traces did not return within {STUCK:?}"),
    }
    drop(desktop);
}
