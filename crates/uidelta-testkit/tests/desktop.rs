//! A real virtual desktop: Xvfb, private buses and real applications.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use uidelta_testkit::{require_programs, Desktop};

fn start() -> Desktop {
    let started = Instant::now();
    let desktop = Desktop::start().expect("starting a virtual desktop");
    eprintln!(
        "Desktop::start took {:?} ({})",
        started.elapsed(),
        desktop.display()
    );
    desktop
}

fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The state follows the parenthesised command name, which may itself contain spaces.
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

#[test]
fn a_desktop_has_a_display_buses_and_a_private_runtime_dir() {
    let desktop = start();
    assert!(desktop.display().starts_with(':'), "{}", desktop.display());
    let number = &desktop.display()[1..];
    assert!(Path::new(&format!("/tmp/.X11-unix/X{number}")).exists());
    assert!(desktop.session_bus_address().starts_with("unix:path="));
    let a11y = desktop
        .a11y_bus_address()
        .expect("asking for the accessibility bus address");
    assert!(
        a11y.contains(&*desktop.runtime_dir().to_string_lossy()),
        "{a11y}"
    );
    let mode = std::fs::metadata(desktop.runtime_dir())
        .expect("runtime dir")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);

    let output = desktop
        .command("env")
        .output()
        .expect("running env inside the desktop");
    let env = String::from_utf8_lossy(&output.stdout);
    assert!(env
        .lines()
        .any(|line| line == format!("DISPLAY={}", desktop.display())));
    let bus = format!("DBUS_SESSION_BUS_ADDRESS={}", desktop.session_bus_address());
    assert!(env.lines().any(|line| line == bus));
    assert!(!env.contains("AT_SPI_BUS_ADDRESS="));
    assert!(env.lines().any(|line| line == "NO_AT_BRIDGE=0"));
}

#[test]
fn temporary_files_of_programs_in_the_desktop_go_with_it() {
    let desktop = start();
    let tmp = desktop.runtime_dir().join("tmp");
    let output = desktop
        .command("mktemp")
        .arg("-d")
        .output()
        .expect("running mktemp inside the desktop");
    assert!(output.status.success(), "{output:?}");
    let made = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    assert!(
        Path::new(&made).starts_with(&tmp),
        "{made} is not under {}",
        tmp.display()
    );
    assert!(Path::new(&made).is_dir());
    drop(desktop);
    assert!(!Path::new(&made).exists(), "{made} outlived the desktop");
}

#[test]
fn sockets_a_program_of_the_desktop_bound_in_tmp_go_with_it() {
    require_programs(&[("python3", "python3")]).expect("test prerequisites");
    let desktop = start();
    // As LibreOffice binds its single-instance pipe: in /tmp, whatever
    // TMPDIR says, and never unlinked when the process is killed.
    let path = format!(
        "/tmp/uidelta-testkit-socket-{}-{}",
        std::process::id(),
        desktop.display().trim_start_matches(':')
    );
    let script = format!(
        "import socket, time\ns = socket.socket(socket.AF_UNIX)\ns.bind({path:?})\ns.listen()\ntime.sleep(600)\n"
    );
    let _app = desktop
        .launch("python3", &["-c", &script])
        .expect("launching python3");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !Path::new(&path).exists() {
        assert!(Instant::now() < deadline, "{path} never bound");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Something the desktop did not bind stays.
    let other = format!("{path}-not-bound");
    std::fs::write(&other, "").expect("a file in /tmp");
    drop(desktop);
    let stayed = Path::new(&other).exists();
    let _ = std::fs::remove_file(&other);
    assert!(!Path::new(&path).exists(), "{path} outlived the desktop");
    assert!(stayed, "{other} went with the desktop");
}

#[test]
fn two_desktops_at_once_are_isolated() {
    let (first, second) = std::thread::scope(|scope| {
        let first = scope.spawn(start);
        let second = scope.spawn(start);
        (
            first.join().expect("first desktop"),
            second.join().expect("second desktop"),
        )
    });
    assert_ne!(first.display(), second.display());
    assert_ne!(first.session_bus_address(), second.session_bus_address());
    assert_ne!(first.runtime_dir(), second.runtime_dir());
    let first_a11y = first.a11y_bus_address().expect("first a11y bus");
    let second_a11y = second.a11y_bus_address().expect("second a11y bus");
    assert_ne!(first_a11y, second_a11y);
    let first_processes = first.processes();
    assert!(second
        .processes()
        .iter()
        .all(|pid| !first_processes.contains(pid)));
}

#[test]
fn gtk3_widget_factory_registers_on_the_accessibility_bus() {
    require_programs(&[("gtk3-widget-factory", "gtk-3-examples")]).expect("test prerequisites");
    let desktop = start();
    assert_eq!(
        desktop.accessible_apps().expect("listing accessible apps"),
        Vec::<String>::new()
    );
    let mut app = desktop
        .launch("gtk3-widget-factory", &[])
        .expect("launching gtk3-widget-factory");
    let started = Instant::now();
    desktop
        .wait_for_accessible_app("gtk3-widget-factory", Duration::from_secs(20))
        .expect("gtk3-widget-factory on the accessibility bus");
    eprintln!(
        "gtk3-widget-factory registered after {:?}",
        started.elapsed()
    );
    assert!(app.is_running());
    assert!(desktop.processes().contains(&app.pid));
}

#[test]
fn apps_can_be_stopped_resumed_and_killed() {
    let desktop = start();
    let mut app = desktop.launch("sleep", &["60"]).expect("launching sleep");
    assert!(app.is_running());
    app.stop();
    wait_for_state(app.pid, 'T');
    assert!(app.is_running(), "a stopped app still counts as running");
    app.resume();
    wait_for_state(app.pid, 'S');
    app.kill();
    assert!(!app.is_running());
    assert_eq!(process_state(app.pid), None);
    assert!(app.exit_status().is_some());
}

#[test]
fn the_accessibility_bus_and_the_x_server_restart_in_place_and_the_buses_can_start_late() {
    let mut desktop = Desktop::start_without_buses().expect("an X server alone");
    let planned = desktop.session_bus_address().to_owned();
    let socket = planned.strip_prefix("unix:path=").expect("a socket path");
    assert!(!Path::new(socket).exists(), "{planned}");
    desktop.start_buses().expect("the buses start");
    assert!(Path::new(socket).exists(), "{planned}");
    let daemons = desktop.processes().len();

    let before = desktop.a11y_bus_address().expect("the accessibility bus");
    desktop
        .restart_accessibility_bus()
        .expect("the accessibility bus restarts");
    let after = desktop
        .a11y_bus_address()
        .expect("the new accessibility bus");
    // Another daemon (its guid), and none of the old one's processes left.
    assert_ne!(before, after);
    assert_eq!(
        desktop.processes().len(),
        daemons,
        "{:?}",
        desktop.processes()
    );
    assert_eq!(
        desktop.accessible_apps().expect("the registry answers"),
        Vec::<String>::new()
    );

    let display = desktop.display().to_owned();
    desktop.restart_display().expect("the X server restarts");
    assert_eq!(desktop.display(), display);
    assert!(Path::new(&format!("/tmp/.X11-unix/X{}", &display[1..])).exists());
}

#[test]
fn launching_an_unknown_program_says_so() {
    let desktop = start();
    let error = desktop.launch("uidelta-no-such-program", &[]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "starting uidelta-no-such-program: not found on PATH"
    );
}

fn wait_for_state(pid: u32, wanted: char) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while process_state(pid) != Some(wanted) {
        assert!(
            Instant::now() < deadline,
            "pid {pid} never reached state {wanted}: {:?}",
            process_state(pid)
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
