//! Opening applications: a program started in a process group of its own,
//! with accessibility on, and the application it brought up on the bus.

use std::time::{Duration, Instant};

use uidelta_atspi::{applications, AppInfo};
use uidelta_backend::App;

use crate::backend::to_app;

use crate::{Error, Linux, Result};

mod child;

use child::{end_of_stderr, how_it_ended, reap_when_it_exits, StderrLog};

/// How long a program that exited at once, leaving nothing of its own
/// running, is given for the application it handed over to (one that
/// forked away and left its process group) to show a window on the bus.
const FORKED_AWAY: Duration = Duration::from_secs(10);

/// How long an application whose windows show with no title yet is waited
/// for to name one (LibreOffice shows its frame, then titles it): the
/// answer names the window as the user will see it.
const UNTITLED: Duration = Duration::from_secs(2);

impl Linux {
    /// Starts a program (with `extra_env` added to this process's
    /// environment) and waits until it is on the accessibility bus with a
    /// window, or `timeout` passes.
    ///
    /// The application may run under another pid than the program's: a
    /// launcher (the `libreoffice` shell script, which starts `soffice.bin`)
    /// starts it. The answer is the application with a window whose process
    /// the program started (it, a descendant, or in its process group); once the program
    /// has exited (it handed over, or forked away and left), the one
    /// application that appeared on the bus with a window since the launch,
    /// when exactly one did. A window that shows before it has a title is
    /// given up to 2 s to name itself. A program that failed, or that
    /// exited and left nothing running and no new application within 10 s,
    /// is an error that says how it ended.
    pub async fn open_application(
        &self,
        program: &str,
        args: &[String],
        extra_env: &[(String, String)],
        timeout: Duration,
    ) -> Result<App> {
        Ok(to_app(
            self.launch(program, args, extra_env, timeout).await?,
        ))
    }

    /// [`Linux::open_application`], answering what the bus says of the
    /// application.
    async fn launch(
        &self,
        program: &str,
        args: &[String],
        extra_env: &[(String, String)],
        timeout: Duration,
    ) -> Result<AppInfo> {
        let launch_error = |detail: String| Error::Launch {
            program: program.to_owned(),
            detail,
        };
        self.publish_bus_address();
        let before: std::collections::HashSet<String> = match applications(&self.bus).await {
            Ok(apps) => apps.into_iter().map(|a| a.app.bus_name).collect(),
            Err(e) => {
                tracing::debug!(error = %e, "listing applications before a launch");
                Default::default()
            }
        };
        let (log, stderr) = StderrLog::create(program);
        let mut command = std::process::Command::new(program);
        let asked_modules = extra_env
            .iter()
            .rev()
            .find(|(k, _)| k == GTK2_MODULES)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(GTK2_MODULES).ok());
        command
            .args(args)
            .env("NO_AT_BRIDGE", "0")
            .env("GTK_A11Y", "atspi")
            .env("ACCESSIBILITY_ENABLED", "1")
            // Gecko's (Firefox, Thunderbird) joins the bus when told so.
            .env("GNOME_ACCESSIBILITY", "1")
            .envs(extra_env.iter().map(|(k, v)| (k, v)))
            .env(GTK2_MODULES, gtk2_modules(asked_modules.as_deref()))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(stderr);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => {
                log.remove();
                return Err(launch_error(e.to_string()));
            }
        };
        let pid = child.id();
        let started = Instant::now();
        // When and how the program exited, once it has.
        let mut exited: Option<(Instant, String)> = None;
        // When its window was first seen showing without a title.
        let mut untitled: Option<Instant> = None;
        loop {
            if exited.is_none() {
                if let Ok(Some(status)) = child.try_wait() {
                    let ended = how_it_ended(status, &log.last_lines());
                    if !status.success() {
                        log.remove();
                        return Err(launch_error(format!(
                            "it exited before showing a window ({ended})"
                        )));
                    }
                    tracing::debug!(pid, "the program exited; looking for what it started");
                    exited = Some((Instant::now(), ended));
                }
            }
            if let Ok(apps) = applications(&self.bus).await {
                let shown = |a: &&AppInfo| a.windows.iter().any(|w| w.showing);
                let ours = apps
                    .iter()
                    .filter(shown)
                    .find(|a| a.app.pid.is_some_and(|p| child::started_by(p, pid)));
                let appeared = || {
                    let new: Vec<&AppInfo> = apps
                        .iter()
                        .filter(shown)
                        .filter(|a| !before.contains(&a.app.bus_name))
                        .collect();
                    match new[..] {
                        [one] => Some(one),
                        _ => None,
                    }
                };
                let found = match ours {
                    Some(app) => Some(app),
                    None if exited.is_some() => appeared(),
                    None => None,
                };
                let titled = |a: &AppInfo| {
                    a.windows
                        .iter()
                        .any(|w| w.showing && !w.title.trim().is_empty())
                };
                // Never past the caller's timeout: a window it has is an answer.
                let waits_for_title = found.is_some_and(|app| {
                    !titled(app)
                        && started.elapsed() < timeout
                        && untitled.get_or_insert_with(Instant::now).elapsed() < UNTITLED
                });
                if let Some(app) = found.filter(|_| !waits_for_title) {
                    if app.app.pid != Some(pid) {
                        tracing::debug!(pid, app = %app.app.label(), "the program started it");
                    }
                    if exited.is_some() {
                        log.remove();
                    } else {
                        if let Some(path) = log.path() {
                            tracing::debug!(pid, log = %path.display(), "its stderr goes to a log");
                        }
                        reap_when_it_exits(child, log);
                    }
                    return Ok(app.clone());
                }
            }
            if let Some((at, ended)) = &exited {
                if at.elapsed() >= FORKED_AWAY && !child::group_runs(pid) {
                    log.remove();
                    return Err(launch_error(format!(
                        "it exited before showing a window ({ended}), leaving nothing running, \
                         and no new application showed a window on the accessibility bus \
                         within {} ms",
                        FORKED_AWAY.as_millis()
                    )));
                }
            }
            if started.elapsed() >= timeout {
                let said = end_of_stderr(&log.last_lines())
                    .map(|s| format!("; {s}"))
                    .unwrap_or_default();
                // It may still come up; it is left running, as the caller
                // asked for it, and reaped when it exits.
                if exited.is_some() {
                    log.remove();
                } else {
                    reap_when_it_exits(child, log);
                }
                return Err(launch_error(format!(
                    "no window of pid {pid} or of a process it started on the accessibility bus \
                     after {} ms (is the program accessible? GTK needs at-spi2-core){said}",
                    timeout.as_millis()
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Puts the accessibility bus address on the display (`AT_SPI_BUS` on
    /// the root window) when it is not there, as the bus launcher does at
    /// login. An X server that has reset since (Xvfb does when its last
    /// client leaves, unless started with `-noreset`) has lost it, and a Qt 5
    /// application started then is missing from the bus. Failing to is
    /// logged, not an error: the program may not need it.
    fn publish_bus_address(&self) {
        let Some(x11) = self.x11.as_ref() else {
            return;
        };
        match x11.accessibility_bus() {
            Ok(Some(_)) => {}
            Ok(None) => match x11.publish_accessibility_bus(self.bus.address()) {
                Ok(()) => tracing::info!(
                    display = x11.display(),
                    "published the accessibility bus address on the display (AT_SPI_BUS)"
                ),
                Err(e) => {
                    tracing::warn!("no AT_SPI_BUS on the display, and setting it failed: {e}")
                }
            },
            Err(e) => tracing::warn!("{e}"),
        }
    }
}

/// The variable GTK 2, and only GTK 2, reads the modules to load from.
const GTK2_MODULES: &str = "GTK2_MODULES";

/// GTK 2 loads its accessibility bridge only when asked to: without
/// `gail` and `atk-bridge` among its modules, a GTK 2 application (GIMP
/// 2.10) never joins the accessibility bus. `asked` (the caller's, else
/// this process's) is kept, with those two added when missing. GTK 3 and
/// 4 do not read the variable.
fn gtk2_modules(asked: Option<&str>) -> String {
    let mut modules: Vec<&str> = asked
        .unwrap_or("")
        .split(':')
        .filter(|m| !m.is_empty())
        .collect();
    for bridge in ["gail", "atk-bridge"] {
        if !modules.contains(&bridge) {
            modules.push(bridge);
        }
    }
    modules.join(":")
}

#[cfg(test)]
mod tests {
    use super::gtk2_modules;

    #[test]
    fn gtk2_gets_its_bridge_and_keeps_the_modules_asked_for() {
        assert_eq!(gtk2_modules(None), "gail:atk-bridge");
        assert_eq!(gtk2_modules(Some("")), "gail:atk-bridge");
        assert_eq!(gtk2_modules(Some("canberra")), "canberra:gail:atk-bridge");
        assert_eq!(gtk2_modules(Some("atk-bridge:gail")), "atk-bridge:gail");
        assert_eq!(gtk2_modules(Some("gail::x:")), "gail:x:atk-bridge");
    }
}
