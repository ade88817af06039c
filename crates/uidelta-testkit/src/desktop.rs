use std::fs::{self, File};
use std::os::fd::AsRawFd;
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nix::sys::signal::Signal;

use crate::app::{self, App, Process};
use crate::procfs::{self, MARKER_VAR};
use crate::programs::{require_programs, resolve};
use crate::subprocess::{self, POLL};
use crate::TestkitError;

/// How long each piece of the desktop may take to come up.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a single D-Bus query through `gdbus` may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);
/// How long processes get to exit after SIGTERM before they are killed.
const TERM_GRACE: Duration = Duration::from_millis(1500);
/// How long to wait for SIGKILLed processes to disappear before giving up.
const KILL_WAIT: Duration = Duration::from_secs(2);
/// The virtual screen: width x height x depth.
const SCREEN: &str = "1280x1024x24";

/// What the desktop itself needs, with the Debian packages that provide it.
const REQUIRED: &[(&str, &str)] = &[
    ("Xvfb", "xvfb"),
    ("dbus-daemon", "dbus-daemon"),
    ("at-spi-bus-launcher", "at-spi2-core"),
    ("gdbus", "libglib2.0-bin"),
];

/// Variables of the caller's session that would lead a process out of the sandbox.
const REMOVED_VARS: &[&str] = &[
    "AT_SPI_BUS_ADDRESS",
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_STARTER_ADDRESS",
    "DBUS_STARTER_BUS_TYPE",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "DESKTOP_STARTUP_ID",
    "XDG_ACTIVATION_TOKEN",
    "SESSION_MANAGER",
    // An input method daemon of the caller's session is not reachable from inside.
    "GTK_IM_MODULE",
    "QT_IM_MODULE",
    "XMODIFIERS",
];

/// The GTK portal backend (program, Debian package and name on the accessibility bus alike),
/// and its name on the session bus.
const PORTAL: &str = "xdg-desktop-portal-gtk";
const PORTAL_BUS_NAME: &str = "org.freedesktop.impl.portal.desktop.gtk";

const A11Y_BUS_NAME: &str = "org.a11y.Bus";
const REGISTRY: &str = "org.a11y.atspi.Registry";
const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";

/// The variable that gives every desktop a window manager: its program and arguments
/// (`openbox --sm-disable`, `xfwm4`, `mutter --x11`), started once the buses run. Unset,
/// a desktop has none, as an agent's bare Xvfb sandbox; set, tests run as on a desktop
/// that has one, whose frames hold the windows and which gives them the keyboard.
pub const WINDOW_MANAGER_VAR: &str = "UIDELTA_TEST_WM";

/// The window manager [`WINDOW_MANAGER_VAR`] names, if it names one.
fn window_manager_from_env() -> Option<String> {
    std::env::var(WINDOW_MANAGER_VAR)
        .ok()
        .filter(|c| !c.trim().is_empty())
}

/// The name the window manager's log and daemon go by.
const WINDOW_MANAGER: &str = "window-manager";

static DESKTOP_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// An isolated virtual desktop: Xvfb on a free display, a private session bus, the AT-SPI
/// accessibility bus and a private `XDG_RUNTIME_DIR`.
///
/// Nothing is shared with the caller's session or with other desktops, so desktops can run in
/// parallel. Starting one takes a few hundred milliseconds. Dropping it stops every process
/// started inside it (SIGTERM, then SIGKILL after a short grace) and removes its runtime
/// directory, also while unwinding from a panic.
#[derive(Debug)]
pub struct Desktop {
    /// Marks every process of this desktop (see [`Desktop::processes`]).
    token: String,
    runtime_dir: PathBuf,
    display: String,
    session_bus_address: String,
    /// Xvfb, the session bus and the accessibility bus launcher, in start order.
    daemons: Mutex<Vec<Daemon>>,
    apps: Mutex<Vec<Arc<Mutex<Process>>>>,
    launched: AtomicUsize,
    /// The user (uid, gid) every process of the desktop runs as, when not
    /// the caller (see [`Desktop::start_unprivileged`]).
    user: Option<(u32, u32)>,
}

#[derive(Debug)]
struct Daemon {
    name: &'static str,
    process: Process,
    log_path: PathBuf,
}

impl Desktop {
    /// Starts a desktop and waits, for at most 10 s per piece, until its X server, session bus,
    /// accessibility bus and AT-SPI registry answer.
    ///
    /// Fails with [`TestkitError::MissingProgram`] when `Xvfb`, `dbus-daemon`,
    /// `at-spi-bus-launcher` or `gdbus` is not installed. Whatever was started before a failure
    /// is torn down again.
    ///
    /// Makes the calling process a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`): helpers
    /// that D-Bus activation orphans, such as `at-spi2-registryd`, are then reparented to it,
    /// and teardown reaps them instead of leaving zombies under an init that does not reap.
    ///
    /// With [`WINDOW_MANAGER_VAR`] set, the window manager it names runs on the display.
    pub fn start() -> Result<Desktop, TestkitError> {
        Desktop::start_as(None, window_manager_from_env().as_deref())
    }

    /// [`Desktop::start`] with the window manager `command` (a program and its arguments:
    /// `openbox --sm-disable`, `mutter --x11`) on the display, whatever
    /// [`WINDOW_MANAGER_VAR`] says: for a test of what window managers do. Fails with
    /// [`TestkitError::MissingProgram`] when it is not installed, and when it does not say
    /// it manages the display within 10 s.
    pub fn start_with_window_manager(command: &str) -> Result<Desktop, TestkitError> {
        Desktop::start_as(None, Some(command))
    }

    /// [`Desktop::start`], with every process of the desktop (the X server, the buses and
    /// what is launched in it) running as the unprivileged user `nobody`, for applications
    /// that refuse to run as root (VLC). Its runtime directory belongs to that user, and its
    /// session bus lets root in too, so that a test running as root reads and drives it as
    /// it would its own (the accessibility bus lets root in by its own configuration).
    ///
    /// Fails with [`TestkitError::Start`] when the caller is not root (only root can start
    /// processes as another user) or there is no user `nobody`.
    pub fn start_unprivileged() -> Result<Desktop, TestkitError> {
        if !nix::unistd::geteuid().is_root() {
            return Err(TestkitError::start(
                "an unprivileged desktop",
                "only root can start one (it runs its processes as the user nobody)".to_string(),
            ));
        }
        let nobody = nix::unistd::User::from_name("nobody")
            .ok()
            .flatten()
            .ok_or_else(|| {
                TestkitError::start(
                    "an unprivileged desktop",
                    "there is no user nobody (useradd --system nobody)".to_string(),
                )
            })?;
        Desktop::start_as(
            Some((nobody.uid.as_raw(), nobody.gid.as_raw())),
            window_manager_from_env().as_deref(),
        )
    }

    fn start_as(
        user: Option<(u32, u32)>,
        window_manager: Option<&str>,
    ) -> Result<Desktop, TestkitError> {
        require_programs(REQUIRED)?;
        procfs::become_subreaper();
        SWEEP.call_once(sweep_orphans);
        let token = new_token();
        let runtime_dir = create_runtime_dir(&token)?;
        let mut desktop = Desktop {
            token,
            runtime_dir,
            display: String::new(),
            session_bus_address: String::new(),
            daemons: Mutex::new(Vec::new()),
            apps: Mutex::new(Vec::new()),
            launched: AtomicUsize::new(0),
            user,
        };
        // On error `desktop` is dropped here, which tears down the pieces already running.
        desktop.give_to_user(&desktop.runtime_dir)?;
        desktop.start_xvfb()?;
        desktop.start_session_bus()?;
        desktop.start_accessibility_bus()?;
        if let Some(command) = window_manager {
            desktop.start_window_manager(command)?;
        }
        Ok(desktop)
    }

    /// Gives `path`, and all in it, to the user the desktop's processes run as (see
    /// [`Desktop::start_unprivileged`]); nothing to do on a desktop of the caller's own.
    /// What a test writes for an application to read or change there must be its user's.
    pub fn give_to_user(&self, path: &Path) -> Result<(), TestkitError> {
        let Some((uid, gid)) = self.user else {
            return Ok(());
        };
        let mut pending = vec![path.to_path_buf()];
        while let Some(p) = pending.pop() {
            // A link itself, never what it points to.
            std::os::unix::fs::lchown(&p, Some(uid), Some(gid)).map_err(|error| {
                TestkitError::io(
                    format!("giving {} to the desktop's user", p.display()),
                    error,
                )
            })?;
            if p.is_dir() && !p.is_symlink() {
                let entries = fs::read_dir(&p)
                    .map_err(|error| TestkitError::io(format!("listing {}", p.display()), error))?;
                pending.extend(entries.flatten().map(|e| e.path()));
            }
        }
        Ok(())
    }

    /// Starts the X server of a desktop whose buses start later ([`Desktop::start_buses`]):
    /// for what must run before there is a session bus. [`Desktop::session_bus_address`] and
    /// [`Desktop::env`] already give the address the session bus will have; nothing listens
    /// there yet.
    pub fn start_without_buses() -> Result<Desktop, TestkitError> {
        require_programs(REQUIRED)?;
        procfs::become_subreaper();
        let token = new_token();
        let runtime_dir = create_runtime_dir(&token)?;
        let mut desktop = Desktop {
            session_bus_address: format!("unix:path={}", runtime_dir.join("bus").display()),
            token,
            runtime_dir,
            display: String::new(),
            daemons: Mutex::new(Vec::new()),
            apps: Mutex::new(Vec::new()),
            launched: AtomicUsize::new(0),
            user: None,
        };
        desktop.start_xvfb()?;
        Ok(desktop)
    }

    /// Starts the session bus (at the address [`Desktop::session_bus_address`] gave) and the
    /// accessibility bus of a desktop started with [`Desktop::start_without_buses`], and waits
    /// until they answer.
    pub fn start_buses(&mut self) -> Result<(), TestkitError> {
        self.start_session_bus()?;
        self.start_accessibility_bus()
    }

    /// Stops the accessibility bus (its launcher, its bus daemon and the AT-SPI registry) and
    /// starts it again, as a desktop session that restarts it does; the X server and the
    /// session bus stay. Applications lose the old bus: start them again to see them on the
    /// new one. Waits, for at most 10 s, until the new one answers.
    pub fn restart_accessibility_bus(&self) -> Result<(), TestkitError> {
        let launcher = {
            let mut daemons = self.daemons();
            daemons
                .iter()
                .position(|d| d.name == "at-spi-bus-launcher")
                .map(|i| daemons.remove(i))
        };
        // The bus daemon and the registry it activated carry `at-spi` in their command lines
        // (`--config-file=.../at-spi2/accessibility.conf`, `at-spi2-registryd`).
        let mut helpers: Vec<u32> = procfs::marked_processes(&self.token)
            .into_iter()
            .filter(|&pid| procfs::command_line(pid).contains("at-spi"))
            .collect();
        if let Some(launcher) = &launcher {
            launcher.process.signal_group(Signal::SIGTERM);
        }
        for &pid in &helpers {
            procfs::signal_process(pid, Signal::SIGTERM);
        }
        let deadline = Instant::now() + TERM_GRACE;
        let mut launcher = launcher;
        loop {
            helpers.retain(|&pid| !procfs::reap(pid));
            let running = launcher.as_mut().is_some_and(|l| l.process.is_running());
            if (!running && helpers.is_empty()) || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(POLL);
        }
        if let Some(launcher) = launcher.as_mut() {
            launcher.process.kill();
        }
        let deadline = Instant::now() + KILL_WAIT;
        while !helpers.is_empty() && Instant::now() < deadline {
            for &pid in &helpers {
                procfs::signal_process(pid, Signal::SIGKILL);
            }
            std::thread::sleep(POLL);
            helpers.retain(|&pid| !procfs::reap(pid));
        }
        let deadline = Instant::now() + START_TIMEOUT;
        self.poll_until(deadline, "org.a11y.Bus to be released", || {
            Ok(!self.a11y_bus_is_owned()?)
        })?;
        self.start_accessibility_bus()
    }

    /// Starts the GTK portal backend, `xdg-desktop-portal-gtk`, as a desktop does: by D-Bus
    /// activation of `org.freedesktop.impl.portal.desktop.gtk` on the session bus. It lives
    /// on most desktops that have GTK applications (any of them may start it, asking the portal
    /// for settings), and is on the accessibility bus as an application without windows.
    /// Waits, for at most 10 s, until it is there.
    ///
    /// Fails with [`TestkitError::MissingProgram`] when it is not installed.
    pub fn start_portal(&self) -> Result<(), TestkitError> {
        require_programs(&[(PORTAL, PORTAL)])?;
        self.gdbus_call(
            &self.session_bus_address,
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.StartServiceByName",
            &[PORTAL_BUS_NAME, "0"],
        )?;
        self.wait_for_accessible_app(PORTAL, START_TIMEOUT)
    }

    /// Stops the X server and starts it again on the same display, as a desktop that
    /// restarts does. What lived on the display goes with it: applications, and the
    /// accessibility bus launcher (restart it with [`Desktop::restart_accessibility_bus`]).
    pub fn restart_display(&mut self) -> Result<(), TestkitError> {
        // The old server's sockets may outlive it for a moment (a child it
        // forked still holding them): the new one on the same display
        // then finds the display taken, and is started again.
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            self.stop_xvfb();
            match self.start_xvfb() {
                Err(e)
                    if Instant::now() < deadline && e.to_string().contains("already running") =>
                {
                    std::thread::sleep(POLL);
                }
                other => return other,
            }
        }
    }

    /// Stops the X server, if it runs, and removes its lock and socket.
    fn stop_xvfb(&mut self) {
        let xvfb = {
            let mut daemons = self.daemons();
            daemons
                .iter()
                .position(|d| d.name == "Xvfb")
                .map(|i| daemons.remove(i))
        };
        if let Some(mut xvfb) = xvfb {
            xvfb.process.signal_group(Signal::SIGTERM);
            let deadline = Instant::now() + TERM_GRACE;
            while xvfb.process.is_running() && Instant::now() < deadline {
                std::thread::sleep(POLL);
            }
            xvfb.process.kill();
            remove_stale_x_lock(&self.display, xvfb.process.pid());
        }
    }

    /// The X display, such as `:7`.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// The address of the private D-Bus session bus.
    pub fn session_bus_address(&self) -> &str {
        &self.session_bus_address
    }

    /// The private runtime directory (mode 0700) that holds the buses' sockets and the logs.
    pub fn runtime_dir(&self) -> &Path {
        &self.runtime_dir
    }

    /// The address of the accessibility bus, asked from `org.a11y.Bus.GetAddress` on the
    /// session bus. Costs one `gdbus` subprocess.
    pub fn a11y_bus_address(&self) -> Result<String, TestkitError> {
        let reply = self.gdbus_call(
            &self.session_bus_address,
            A11Y_BUS_NAME,
            "/org/a11y/bus",
            "org.a11y.Bus.GetAddress",
            &[],
        )?;
        match quoted_strings(&reply).into_iter().next() {
            Some(address) if !address.is_empty() => Ok(address),
            _ => Err(TestkitError::start(
                "the accessibility bus",
                format!(
                    "org.a11y.Bus.GetAddress returned no address: {}",
                    reply.trim()
                ),
            )),
        }
    }

    /// Every environment variable a process inside the desktop needs: the display, the private
    /// session bus and runtime directory, private XDG config, cache, data and state homes (so
    /// the caller's settings do not leak in), a private `TMPDIR` (so that what applications
    /// leave in their temporary directory, such as Chromium's singleton socket directory, goes
    /// with the desktop), the switches that turn accessibility on in GTK 2, 3 and 4, Qt and
    /// Chromium, and the marker that lets teardown find the process.
    pub fn env(&self) -> Vec<(String, String)> {
        let home = self.runtime_dir.join("home");
        let path = |sub: &str| home.join(sub).to_string_lossy().into_owned();
        let mut vars = vec![
            (
                "XDG_RUNTIME_DIR".to_string(),
                self.runtime_dir.to_string_lossy().into_owned(),
            ),
            ("XDG_CONFIG_HOME".to_string(), path("config")),
            ("XDG_CACHE_HOME".to_string(), path("cache")),
            ("XDG_DATA_HOME".to_string(), path("data")),
            ("XDG_STATE_HOME".to_string(), path("state")),
            (
                "TMPDIR".to_string(),
                self.runtime_dir.join("tmp").to_string_lossy().into_owned(),
            ),
            ("XDG_SESSION_TYPE".to_string(), "x11".to_string()),
            ("GDK_BACKEND".to_string(), "x11".to_string()),
            // No GPU here: GTK 4's GL renderer draws through software GL,
            // which keeps gtk4-widget-factory starting at 180% CPU for
            // longer than any test waits. Cairo draws the same widgets.
            ("GSK_RENDERER".to_string(), "cairo".to_string()),
            ("QT_QPA_PLATFORM".to_string(), "xcb".to_string()),
            ("GSETTINGS_BACKEND".to_string(), "memory".to_string()),
            ("NO_AT_BRIDGE".to_string(), "0".to_string()),
            ("GTK_A11Y".to_string(), "atspi".to_string()),
            ("GNOME_ACCESSIBILITY".to_string(), "1".to_string()),
            // GTK 2 loads its accessibility bridge only when asked to.
            ("GTK2_MODULES".to_string(), "gail:atk-bridge".to_string()),
            ("QT_ACCESSIBILITY".to_string(), "1".to_string()),
            (
                "QT_LINUX_ACCESSIBILITY_ALWAYS_ON".to_string(),
                "1".to_string(),
            ),
            ("ACCESSIBILITY_ENABLED".to_string(), "1".to_string()),
            (MARKER_VAR.to_string(), self.token.clone()),
        ];
        // Empty only while the desktop is still starting.
        if !self.display.is_empty() {
            vars.push(("DISPLAY".to_string(), self.display.clone()));
        }
        if !self.session_bus_address.is_empty() {
            vars.push((
                "DBUS_SESSION_BUS_ADDRESS".to_string(),
                self.session_bus_address.clone(),
            ));
        }
        vars
    }

    /// A command for `program` with [`Desktop::env`] applied, the caller's session variables
    /// (`AT_SPI_BUS_ADDRESS`, `WAYLAND_DISPLAY`, ...) removed, and its own process group.
    ///
    /// A process spawned from it is killed, and reaped, at teardown if it is still running
    /// then; prefer [`Desktop::spawn`] to keep an [`App`] handle on it.
    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        for var in REMOVED_VARS {
            command.env_remove(var);
        }
        command.envs(self.env());
        command.process_group(0);
        if let Some((uid, gid)) = self.user {
            // Root drops its supplementary groups with it (std calls setgroups).
            command.uid(uid).gid(gid);
        }
        command
    }

    /// Starts `program` with `args` inside the desktop, in its own process group, with stdout
    /// and stderr going to a log file in the runtime directory (see [`App::log_path`]).
    ///
    /// Does not wait for the app to show a window or to reach the accessibility bus; see
    /// [`Desktop::wait_for_accessible_app`].
    pub fn launch(&self, program: &str, args: &[&str]) -> Result<App, TestkitError> {
        let path = resolve(program)?;
        let number = self.launched.fetch_add(1, Ordering::Relaxed);
        let name = Path::new(program)
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let log_path = self
            .runtime_dir
            .join("logs")
            .join(format!("{name}-{number}.log"));
        let (stdout, stderr) = log_files(&log_path)?;
        let mut command = self.command(&path.to_string_lossy());
        command
            .args(args)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr);
        self.spawn_logged(command, program, log_path)
    }

    /// Spawns a command built by the caller (usually from [`Desktop::command`], with pipes set
    /// up as needed) as an app of this desktop: in its own process group, marked, and killed at
    /// teardown.
    pub fn spawn(&self, mut command: Command) -> Result<App, TestkitError> {
        command.process_group(0).env(MARKER_VAR, &self.token);
        let what = command.get_program().to_string_lossy().into_owned();
        self.spawn_logged(command, &what, PathBuf::new())
    }

    /// Pids of every live process started inside this desktop: the daemons and apps it
    /// started, plus everything they started in turn (bus helpers, double-forked daemons), found
    /// through the marker variable in their environment. Costs a scan of `/proc`.
    pub fn processes(&self) -> Vec<u32> {
        let mut pids = procfs::marked_processes(&self.token);
        // Our own children are listed even in the instant after exec when the kernel does not
        // show their new environment yet.
        let apps = self
            .apps
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for app in apps.iter() {
            let mut process = app::lock(app);
            if process.is_running() {
                pids.push(process.pid());
            }
        }
        for daemon in self.daemons().iter_mut() {
            if daemon.process.is_running() {
                pids.push(daemon.process.pid());
            }
        }
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    /// Names of the applications registered with the AT-SPI registry, in registry order.
    /// Costs one `gdbus` subprocess per application.
    pub fn accessible_apps(&self) -> Result<Vec<String>, TestkitError> {
        let a11y = self.a11y_bus_address()?;
        let children = self.registry_children(&a11y)?;
        let mut names = Vec::with_capacity(children.len());
        for bus_name in children {
            let reply = self.gdbus_call(
                &a11y,
                &bus_name,
                ROOT_PATH,
                "org.freedesktop.DBus.Properties.Get",
                &["org.a11y.atspi.Accessible", "Name"],
            );
            // An app that exits between the two calls is simply not listed.
            if let Ok(reply) = reply {
                names.extend(quoted_strings(&reply).into_iter().next());
            }
        }
        Ok(names)
    }

    /// Gives the keyboard to the window of the process `pid`, through the X
    /// server (`xdotool search --pid`, then `windowfocus`), so that keys
    /// typed with xdotool go to its focused element. Panics when it has no
    /// visible window or xdotool fails: for tests only.
    pub fn focus_window_of(&self, pid: u32) {
        let found = self
            .command("xdotool")
            .args([
                "search",
                "--sync",
                "--onlyvisible",
                "--pid",
                &pid.to_string(),
            ])
            .stderr(std::process::Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("xdotool search (install xdotool): {e}"));
        let window = String::from_utf8_lossy(&found.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned();
        assert!(
            !window.is_empty(),
            "no window of pid {pid} found by xdotool"
        );
        let focused = self
            .command("xdotool")
            .args(["windowfocus", "--sync", &window])
            .status()
            .unwrap_or_else(|e| panic!("xdotool windowfocus: {e}"));
        assert!(focused.success(), "xdotool windowfocus {window}: {focused}");
    }

    /// Stops the window manager (`SIGSTOP` to its process group) and resumes it `span` later,
    /// from a thread of its own: a compositor starved on a loaded machine, on which the
    /// applications wait for their next frame (GTK 3 lays a window out only then). False, and
    /// nothing done, when no window manager runs on this desktop.
    pub fn stall_window_manager(&self, span: Duration) -> bool {
        let Some(pid) = self
            .daemons()
            .iter()
            .find(|d| d.name == WINDOW_MANAGER)
            .map(|d| d.process.pid())
        else {
            return false;
        };
        procfs::signal_group(pid, Signal::SIGSTOP);
        std::thread::spawn(move || {
            std::thread::sleep(span);
            procfs::signal_group(pid, Signal::SIGCONT);
        });
        true
    }

    /// Waits until an application named `name` is registered on the accessibility bus.
    pub fn wait_for_accessible_app(
        &self,
        name: &str,
        timeout: Duration,
    ) -> Result<(), TestkitError> {
        let what = format!(
            "{name} to appear on the accessibility bus of {}",
            self.display
        );
        let deadline = Instant::now() + timeout;
        loop {
            let last = match self.accessible_apps() {
                Ok(names) if names.iter().any(|found| found == name) => return Ok(()),
                Ok(names) => format!("registered: {names:?}"),
                Err(error) => error.to_string(),
            };
            if Instant::now() >= deadline {
                return Err(TestkitError::Timeout {
                    what: format!("{what} ({last})"),
                    after: timeout,
                });
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn spawn_logged(
        &self,
        mut command: Command,
        what: &str,
        log_path: PathBuf,
    ) -> Result<App, TestkitError> {
        let child = command.spawn().map_err(|error| {
            TestkitError::io(format!("launching {what} on {}", self.display), error)
        })?;
        let process = Arc::new(Mutex::new(Process::new(child)));
        self.apps
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(Arc::clone(&process));
        Ok(App::new(process, log_path))
    }

    fn start_xvfb(&mut self) -> Result<(), TestkitError> {
        let deadline = Instant::now() + START_TIMEOUT;
        let (display_reader, display_writer) = subprocess::pipe()?;
        let writer_fd = display_writer.as_raw_fd();
        let mut command = self.daemon_command("Xvfb")?;
        // Started again: on the same display.
        if !self.display.is_empty() {
            command.arg(&self.display);
        }
        command.args(["-displayfd", &writer_fd.to_string(), "-screen", "0", SCREEN]);
        // -noreset: otherwise the server resets when its last client leaves and loses the
        // AT_SPI_BUS root window property set by the bus launcher.
        command.args(["-nolisten", "tcp", "-noreset"]);
        // SAFETY: the closure only calls fcntl(2), which is async-signal-safe.
        unsafe {
            command.pre_exec(move || subprocess::inherit_fd_in_child(writer_fd));
        }
        self.spawn_daemon("Xvfb", command)?;
        // Our copy of the write end must go, or EOF never arrives if Xvfb dies.
        drop(display_writer);
        let line =
            subprocess::read_line_until(display_reader, deadline, "Xvfb to report its display")?;
        match line.map(|line| line.trim().to_string()) {
            Some(number) if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) => {
                self.display = format!(":{number}");
                Ok(())
            }
            other => Err(self.daemon_failure("Xvfb", &format!("reported no display ({other:?})"))),
        }
    }

    fn start_session_bus(&mut self) -> Result<(), TestkitError> {
        let deadline = Instant::now() + START_TIMEOUT;
        let socket = self.runtime_dir.join("bus");
        let mut command = self.daemon_command("dbus-daemon")?;
        match self.user {
            // A bus of another user lets only that user in, unless told.
            Some(_) => command.arg(format!(
                "--config-file={}",
                self.root_allowed_config()?.display()
            )),
            None => command.arg("--session"),
        };
        command
            .args(["--nofork", "--nopidfile", "--print-address=1"])
            .arg(format!("--address=unix:path={}", socket.display()))
            .stdout(Stdio::piped());
        let stdout = self.spawn_daemon("dbus-daemon", command)?;
        let Some(stdout) = stdout else {
            return Err(self.daemon_failure("dbus-daemon", "no stdout pipe"));
        };
        let line =
            subprocess::read_line_until(stdout, deadline, "the session bus to report its address")?;
        match line.map(|line| line.trim().to_string()) {
            Some(address) if address.starts_with("unix:") => {
                self.session_bus_address = address;
                Ok(())
            }
            other => {
                Err(self.daemon_failure("dbus-daemon", &format!("reported no address ({other:?})")))
            }
        }
    }

    /// Starts the window manager `command` (its program and arguments), and waits until it
    /// says it manages the display (`_NET_SUPPORTING_WM_CHECK` on the root window).
    fn start_window_manager(&self, command: &str) -> Result<(), TestkitError> {
        let mut words = command.split_whitespace();
        let Some(program) = words.next() else {
            return Ok(());
        };
        // Debian names the package of each window manager after its program (openbox,
        // xfwm4, mutter, metacity, fluxbox, icewm).
        require_programs(&[(program, program), ("xprop", "x11-utils")])?;
        let path = resolve(program)?;
        let (stdout, stderr) = log_files(&self.daemon_log(WINDOW_MANAGER))?;
        let mut command = self.command(&path.to_string_lossy());
        command
            .args(words)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr);
        self.spawn_daemon(WINDOW_MANAGER, command)?;
        let deadline = Instant::now() + START_TIMEOUT;
        self.poll_until(
            deadline,
            &format!("{program} to manage the display (_NET_SUPPORTING_WM_CHECK)"),
            || self.window_manager_runs(),
        )
    }

    /// Whether a window manager says it manages the display, as EWMH's do: the root
    /// window's `_NET_SUPPORTING_WM_CHECK` names a window of its own.
    fn window_manager_runs(&self) -> Result<bool, TestkitError> {
        let mut command = self.command("xprop");
        command.args(["-root", "-notype", "_NET_SUPPORTING_WM_CHECK"]);
        let output = subprocess::output_within(
            command,
            CALL_TIMEOUT,
            "xprop -root _NET_SUPPORTING_WM_CHECK",
        )?;
        Ok(String::from_utf8_lossy(&output.stdout).contains("window id"))
    }

    /// A session bus configuration that lets root in besides the bus's own user: the
    /// system's session configuration, and a policy allowing root, written in the runtime
    /// directory.
    fn root_allowed_config(&self) -> Result<PathBuf, TestkitError> {
        let path = self.runtime_dir.join("session-bus.conf");
        let config = concat!(
            "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n",
            " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n",
            "<busconfig>\n",
            "  <include>/usr/share/dbus-1/session.conf</include>\n",
            "  <policy context=\"default\">\n",
            "    <allow user=\"root\"/>\n",
            "  </policy>\n",
            "</busconfig>\n"
        );
        fs::write(&path, config)
            .map_err(|error| TestkitError::io(format!("writing {}", path.display()), error))?;
        self.give_to_user(&path)?;
        Ok(path)
    }

    /// Whether someone (the bus launcher) owns `org.a11y.Bus` on the
    /// session bus.
    fn a11y_bus_is_owned(&self) -> Result<bool, TestkitError> {
        let reply = self.gdbus_call(
            &self.session_bus_address,
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
            &[A11Y_BUS_NAME],
        )?;
        Ok(reply.contains("true"))
    }

    fn start_accessibility_bus(&self) -> Result<(), TestkitError> {
        let deadline = Instant::now() + START_TIMEOUT;
        let mut command = self.daemon_command("at-spi-bus-launcher")?;
        command.arg("--launch-immediately");
        self.spawn_daemon("at-spi-bus-launcher", command)?;
        // Calling GetAddress before the launcher owns its name would make the session bus
        // activate a second launcher, so wait for the name first.
        self.poll_until(deadline, "at-spi-bus-launcher to own org.a11y.Bus", || {
            self.a11y_bus_is_owned()
        })?;
        let mut a11y = String::new();
        self.poll_until(deadline, "the accessibility bus address", || {
            a11y = self.a11y_bus_address()?;
            Ok(true)
        })?;
        // The first call activates at-spi2-registryd on the accessibility bus.
        self.poll_until(deadline, "the AT-SPI registry to answer", || {
            self.registry_children(&a11y).map(|_| true)
        })
    }

    /// Polls `ready` every few milliseconds until it says true; errors count as "not yet" until
    /// the deadline, when the last one is reported. Fails early if a daemon has died.
    fn poll_until(
        &self,
        deadline: Instant,
        what: &str,
        mut ready: impl FnMut() -> Result<bool, TestkitError>,
    ) -> Result<(), TestkitError> {
        let started = Instant::now();
        loop {
            let last = match ready() {
                Ok(true) => return Ok(()),
                Ok(false) => String::new(),
                Err(error) => format!(" (last error: {error})"),
            };
            let dead = self
                .daemons()
                .iter_mut()
                .find_map(|d| (!d.process.is_running()).then_some(d.name));
            if let Some(name) = dead {
                return Err(self.daemon_failure(name, &format!("exited while waiting for {what}")));
            }
            if Instant::now() >= deadline {
                return Err(TestkitError::Timeout {
                    what: format!("{what}{last}"),
                    after: started.elapsed(),
                });
            }
            std::thread::sleep(POLL);
        }
    }

    fn registry_children(&self, a11y: &str) -> Result<Vec<String>, TestkitError> {
        let reply = self.gdbus_call(
            a11y,
            REGISTRY,
            ROOT_PATH,
            "org.a11y.atspi.Accessible.GetChildren",
            &[],
        )?;
        // `([(':1.2', objectpath '/org/a11y/atspi/accessible/root')],)`: bus names start with ':'.
        Ok(quoted_strings(&reply)
            .into_iter()
            .filter(|s| s.starts_with(':'))
            .collect())
    }

    fn gdbus_call(
        &self,
        address: &str,
        dest: &str,
        path: &str,
        method: &str,
        args: &[&str],
    ) -> Result<String, TestkitError> {
        let mut command = self.command("gdbus");
        command
            .args([
                "call",
                "--address",
                address,
                "--dest",
                dest,
                "--object-path",
                path,
            ])
            .args([
                "--method",
                method,
                "--timeout",
                &CALL_TIMEOUT.as_secs().to_string(),
            ])
            .args(args);
        let what = format!("gdbus call {method} on {dest}");
        let output =
            subprocess::output_within(command, CALL_TIMEOUT + Duration::from_secs(1), &what)?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(TestkitError::start(what, stderr.trim().to_string()));
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// A command for one of the desktop's own daemons, with its stderr (and stdout unless the
    /// caller pipes it) going to `logs/<name>.log`.
    fn daemon_command(&self, program: &'static str) -> Result<Command, TestkitError> {
        let path = resolve(program)?;
        let (stdout, stderr) = log_files(&self.daemon_log(program))?;
        let mut command = self.command(&path.to_string_lossy());
        command.stdin(Stdio::null()).stdout(stdout).stderr(stderr);
        Ok(command)
    }

    fn spawn_daemon(
        &self,
        name: &'static str,
        mut command: Command,
    ) -> Result<Option<std::process::ChildStdout>, TestkitError> {
        let mut child = command
            .spawn()
            .map_err(|error| TestkitError::start(name, format!("could not spawn it: {error}")))?;
        let stdout = child.stdout.take();
        let daemon = Daemon {
            name,
            process: Process::new(child),
            log_path: self.daemon_log(name),
        };
        self.daemons().push(daemon);
        Ok(stdout)
    }

    fn daemon_log(&self, name: &str) -> PathBuf {
        self.runtime_dir.join("logs").join(format!("{name}.log"))
    }

    fn daemons(&self) -> std::sync::MutexGuard<'_, Vec<Daemon>> {
        self.daemons
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn daemon_failure(&self, name: &str, what: &str) -> TestkitError {
        let mut detail = what.to_string();
        if let Some(daemon) = self.daemons().iter_mut().find(|d| d.name == name) {
            if !daemon.process.is_running() {
                if let Some(status) = daemon.process.exit_status() {
                    detail.push_str(&format!("; it exited with {status}"));
                }
            }
            let tail = subprocess::log_tail(&daemon.log_path, 5);
            if !tail.is_empty() {
                detail.push_str(&format!("; log: {tail}"));
            }
        }
        TestkitError::start(name, detail)
    }

    /// SIGTERM (plus SIGCONT, so that stopped processes can act on it) to every process group
    /// and marked process, a grace period, then SIGKILL to whatever is left; then the runtime
    /// directory goes, and the sockets the processes had bound in /tmp.
    fn teardown(&mut self) {
        let apps: Vec<Arc<Mutex<Process>>> = std::mem::take(
            &mut *self
                .apps
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        let mut daemons = std::mem::take(
            &mut *self
                .daemons
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        let xvfb_pid = daemons
            .iter()
            .find(|d| d.name == "Xvfb")
            .map(|d| d.process.pid());
        // Marked processes that are not our direct children: orphans we may have to reap.
        let children: Vec<u32> = apps
            .iter()
            .map(|app| app::lock(app).pid())
            .chain(daemons.iter().map(|d| d.process.pid()))
            .collect();
        let mut orphans: Vec<u32> = self
            .processes()
            .into_iter()
            .filter(|pid| !children.contains(pid))
            .collect();

        // Programs in the desktop have a temporary directory of their own,
        // but some bind sockets in /tmp whatever it says (LibreOffice).
        let sockets = procfs::sockets_bound_in(&self.processes(), Path::new("/tmp"));

        // Apps first, then the daemons in reverse start order; all get the signal at once.
        for app in &apps {
            let process = app::lock(app);
            process.signal_group(Signal::SIGTERM);
            process.signal_group(Signal::SIGCONT);
        }
        for daemon in daemons.iter().rev() {
            daemon.process.signal_group(Signal::SIGTERM);
        }
        for pid in self.processes() {
            procfs::signal_process(pid, Signal::SIGTERM);
            procfs::signal_process(pid, Signal::SIGCONT);
        }

        let grace_end = Instant::now() + TERM_GRACE;
        while Instant::now() < grace_end {
            let children_running = apps
                .iter()
                .map(|app| app::lock(app).is_running())
                .filter(|&running| running)
                .count()
                + daemons
                    .iter_mut()
                    .map(|d| d.process.is_running())
                    .filter(|&running| running)
                    .count();
            orphans.retain(|&pid| !procfs::reap(pid));
            if children_running == 0 && self.processes().is_empty() {
                break;
            }
            std::thread::sleep(POLL);
        }

        // Every process is killed before any is waited for: one left alive
        // can keep a killed one from being reaped for good (Chromium's crash
        // handler, in a group of its own, traces the browser's threads, and
        // a traced thread stays until its tracer lets it go).
        for app in &apps {
            app::lock(app).signal_group(Signal::SIGKILL);
        }
        for daemon in daemons.iter().rev() {
            daemon.process.signal_group(Signal::SIGKILL);
        }
        for pid in self.processes() {
            procfs::signal_process(pid, Signal::SIGKILL);
        }
        for app in &apps {
            app::lock(app).kill();
        }
        for daemon in daemons.iter_mut().rev() {
            daemon.process.kill();
        }
        let kill_end = Instant::now() + KILL_WAIT;
        loop {
            orphans.retain(|&pid| !procfs::reap(pid));
            let left = self.processes();
            if (left.is_empty() && orphans.is_empty()) || Instant::now() >= kill_end {
                break;
            }
            for pid in left {
                procfs::signal_process(pid, Signal::SIGKILL);
            }
            std::thread::sleep(POLL);
        }

        if let Some(pid) = xvfb_pid {
            remove_stale_x_lock(&self.display, pid);
        }
        // Those sockets, left there by the killed: nothing listens on them now.
        for socket in sockets {
            let is_socket = fs::symlink_metadata(&socket)
                .is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_socket(&m.file_type()));
            if is_socket {
                let _ = fs::remove_file(&socket);
            }
        }
        let _ = fs::remove_dir_all(&self.runtime_dir);
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        self.teardown();
    }
}

/// The desktops of test processes that are gone are swept once per process.
static SWEEP: std::sync::Once = std::sync::Once::new();

/// Kills what desktops of test processes that are gone left running (a run stopped by a signal
/// or a timeout never tears its desktops down: their X servers, buses and applications would
/// stay, one set per test), and removes their runtime directories.
fn sweep_orphans() {
    let orphans = procfs::orphaned_processes();
    for (pid, _) in &orphans {
        procfs::signal_process(*pid, nix::sys::signal::Signal::SIGKILL);
    }
    let mut tokens: Vec<&str> = orphans.iter().map(|(_, token)| token.as_str()).collect();
    tokens.sort_unstable();
    tokens.dedup();
    for token in tokens {
        // A token is made of digits, dashes and hex digits only: nothing that could name
        // another directory.
        if token.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            let _ =
                fs::remove_dir_all(std::env::temp_dir().join(format!("uidelta-desktop-{token}")));
        }
    }
}

/// A token unique across processes and across desktops of this process.
fn new_token() -> String {
    let count = DESKTOP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{}-{count}-{nanos:08x}", std::process::id())
}

fn create_runtime_dir(token: &str) -> Result<PathBuf, TestkitError> {
    let dir = std::env::temp_dir().join(format!("uidelta-desktop-{token}"));
    let mut builder = fs::DirBuilder::new();
    builder.mode(0o700);
    builder.create(&dir).map_err(|error| {
        TestkitError::io(
            format!("creating the runtime directory {}", dir.display()),
            error,
        )
    })?;
    builder.recursive(true);
    for sub in [
        "logs",
        "home/config",
        "home/cache",
        "home/data",
        "home/state",
        "tmp",
    ] {
        let path = dir.join(sub);
        if let Err(error) = builder.create(&path) {
            let _ = fs::remove_dir_all(&dir);
            return Err(TestkitError::io(
                format!("creating {}", path.display()),
                error,
            ));
        }
    }
    Ok(dir)
}

/// One log file opened twice, for a child's stdout and stderr.
fn log_files(path: &Path) -> Result<(File, File), TestkitError> {
    let what = || format!("creating the log file {}", path.display());
    let stdout = File::create(path).map_err(|error| TestkitError::io(what(), error))?;
    let stderr = stdout
        .try_clone()
        .map_err(|error| TestkitError::io(what(), error))?;
    Ok((stdout, stderr))
}

/// Xvfb removes its lock file and socket on SIGTERM, but not when it had to be SIGKILLed;
/// a stale lock would make later servers skip the display number forever.
fn remove_stale_x_lock(display: &str, xvfb_pid: u32) {
    let Some(number) = display.strip_prefix(':') else {
        return;
    };
    let lock = PathBuf::from(format!("/tmp/.X{number}-lock"));
    let owner = fs::read_to_string(&lock)
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok());
    if owner == Some(xvfb_pid) {
        let _ = fs::remove_file(&lock);
        let _ = fs::remove_file(format!("/tmp/.X11-unix/X{number}"));
    }
}

/// The single-quoted strings in a `gdbus` reply, unescaped: `(<'gtk3-demo'>,)` gives `gtk3-demo`.
fn quoted_strings(reply: &str) -> Vec<String> {
    let mut strings = Vec::new();
    let mut chars = reply.chars();
    while let Some(c) = chars.next() {
        if c != '\'' {
            continue;
        }
        let mut text = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => text.extend(chars.next()),
                '\'' => break,
                c => text.push(c),
            }
        }
        strings.push(text);
    }
    strings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_strings_are_extracted_from_gdbus_replies() {
        assert_eq!(
            quoted_strings("(<'gtk3-widget-factory'>,)\n"),
            vec!["gtk3-widget-factory"]
        );
        assert_eq!(
            quoted_strings("([(':1.2', objectpath '/a/b'), (':1.3', objectpath '/c')],)"),
            vec![":1.2", "/a/b", ":1.3", "/c"]
        );
        assert_eq!(quoted_strings("('it\\'s',)"), vec!["it's"]);
        assert!(quoted_strings("([],)").is_empty());
    }

    #[test]
    fn desktops_can_be_shared_between_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Desktop>();
        assert_send_sync::<App>();
    }

    #[test]
    fn tokens_are_unique() {
        assert_ne!(new_token(), new_token());
    }

    #[test]
    fn what_a_gone_test_process_left_running_is_swept() {
        use std::os::unix::process::ExitStatusExt;
        // A pid no process or thread can have: above the kernel's largest.
        // (One that was a process's and is no more can be given again to a
        // thread of another while the suite runs.)
        let max: u64 = fs::read_to_string("/proc/sys/kernel/pid_max")
            .expect("the largest pid")
            .trim()
            .parse()
            .expect("a number");
        let token = format!("{}-0-00000000", max + 1);
        let dir = std::env::temp_dir().join(format!("uidelta-desktop-{token}"));
        fs::create_dir_all(&dir).expect("a runtime directory");
        let mut left = Command::new("sleep")
            .arg("30")
            .env(MARKER_VAR, &token)
            .spawn()
            .expect("sleep");
        // A desktop of a live process is left alone.
        let mut kept = Command::new("sleep")
            .arg("30")
            .env(MARKER_VAR, new_token())
            .spawn()
            .expect("sleep");
        // Every desktop's start sweeps: one sweep that misses the orphan
        // (it reads the process table while other tests change it) is
        // followed by another.
        for _ in 0..20 {
            sweep_orphans();
            if left.try_wait().expect("the orphan's status").is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let status = left.wait().expect("the orphan's status");
        let still = kept.try_wait().expect("the kept process's status");
        let _ = kept.kill();
        let _ = kept.wait();
        assert_eq!(status.signal(), Some(9), "{status:?}");
        assert!(!dir.exists(), "{} is still there", dir.display());
        assert!(
            still.is_none(),
            "a live desktop's process was killed: {still:?}"
        );
    }
}
