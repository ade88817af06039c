//! Starting Chromium with a throw-away profile, and finding the DevTools
//! endpoint of a browser that runs already.
//!
//! A launched browser lives in its own process group, so that dropping it
//! kills every process it started (zygotes, renderers, the GPU and network
//! services) with one signal. Its crash handler leaves the group on purpose;
//! it is found by the profile path on its command line instead.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;

use crate::error::{Error, Result};

/// Where Debian installs Chromium.
pub const CHROMIUM: &str = "/usr/bin/chromium";

/// How to get Chromium on Debian, for messages.
pub const INSTALL_HINT: &str = "apt-get install -y chromium";

/// How to start Chromium.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchOptions {
    /// The browser executable.
    pub executable: PathBuf,
    /// Run without a window (`--headless=new`); no display is needed.
    pub headless: bool,
    /// Window size in CSS pixels: width, height. The viewport is the window
    /// less the bars a browser window has, also when headless.
    pub window: (u32, u32),
    /// More command line switches, after the ones set here.
    pub args: Vec<String>,
    /// How long the browser may take to open its DevTools endpoint.
    pub timeout: Duration,
    /// Where files the pages download are saved (made when missing);
    /// `None`: `$HOME/Downloads`, as a user's browser does.
    pub downloads: Option<PathBuf>,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        LaunchOptions {
            executable: PathBuf::from(CHROMIUM),
            headless: true,
            window: (1280, 1024),
            args: Vec::new(),
            timeout: Duration::from_secs(30),
            downloads: None,
        }
    }
}

impl LaunchOptions {
    /// The command line switches for a browser with its profile in `profile`.
    pub fn switches(&self, profile: &Path) -> Vec<String> {
        let mut args = Vec::new();
        if self.headless {
            args.push("--headless=new".to_owned());
        }
        args.extend(
            [
                // It runs as root in containers, where the sandbox cannot start.
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                // A desktop with a keyring (GNOME's) would otherwise ask for a
                // password to make one for the new profile, in a window of its own.
                "--password-store=basic",
                "--disable-component-update",
                "--disable-sync",
                "--disable-quic",
                "--disable-crash-reporter",
                "--disable-breakpad",
                "--remote-debugging-port=0",
            ]
            .map(str::to_owned),
        );
        args.push(format!("--user-data-dir={}", profile.display()));
        args.push(format!("--window-size={},{}", self.window.0, self.window.1));
        args.extend(self.args.iter().cloned());
        args.push("about:blank".to_owned());
        args
    }
}

/// A browser process started by us, killed with its whole process group and
/// its profile removed when dropped.
#[derive(Debug)]
pub(crate) struct Process {
    child: Child,
    profile: PathBuf,
}

impl Process {
    /// Starts the browser and waits for its DevTools endpoint; returns the
    /// process and the endpoint's WebSocket URL.
    pub async fn start(opts: &LaunchOptions) -> Result<(Process, String)> {
        let launch_error = |detail: String| Error::Launch { detail };
        if !opts.executable.exists() {
            return Err(launch_error(format!(
                "{} does not exist; install Chromium with `{INSTALL_HINT}`",
                opts.executable.display()
            )));
        }
        let profile = fresh_profile_dir()
            .map_err(|e| launch_error(format!("creating a profile directory: {e}")))?;
        let log = std::fs::File::create(profile.join("chromium.log"))
            .map_err(|e| launch_error(format!("creating the browser log: {e}")))?;
        // Chromium's own temporary files (the directory of its singleton
        // socket) go here: a browser that is killed never removes them, and
        // in the system's temporary directory they would pile up, one per
        // launch.
        let tmp = profile.join("tmp");
        if let Err(e) = std::fs::create_dir_all(&tmp) {
            let _ = std::fs::remove_dir_all(&profile);
            return Err(launch_error(format!("creating {}: {e}", tmp.display())));
        }
        let mut command = Command::new(&opts.executable);
        command
            .args(opts.switches(&profile))
            // Keeps the crash database and caches inside the profile too.
            .env("XDG_CONFIG_HOME", profile.join("config"))
            .env("XDG_CACHE_HOME", profile.join("cache"))
            .env("TMPDIR", &tmp)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let child = match command.spawn() {
            Ok(child) => child,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&profile);
                return Err(launch_error(format!(
                    "running {}: {e}; install Chromium with `{INSTALL_HINT}`",
                    opts.executable.display()
                )));
            }
        };
        // From here on, dropping `process` cleans up whatever happens.
        let mut process = Process { child, profile };
        let ws = process.wait_for_endpoint(opts.timeout).await?;
        Ok((process, ws))
    }

    /// The browser's process id (also its process group id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The temporary profile directory.
    pub fn profile(&self) -> &Path {
        &self.profile
    }

    async fn wait_for_endpoint(&mut self, timeout: Duration) -> Result<String> {
        let file = self.profile.join("DevToolsActivePort");
        let started = Instant::now();
        loop {
            if let Ok(text) = std::fs::read_to_string(&file) {
                if let Some(ws) = endpoint_from_active_port(&text) {
                    return Ok(ws);
                }
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(Error::Launch {
                    detail: format!(
                        "it exited at once ({status}); its log ends:\n{}",
                        self.log_tail()
                    ),
                });
            }
            if started.elapsed() >= timeout {
                return Err(Error::Launch {
                    detail: format!(
                        "no DevTools endpoint after {} ms; its log ends:\n{}",
                        timeout.as_millis(),
                        self.log_tail()
                    ),
                });
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(self.profile.join("chromium.log")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(15)..].join("\n")
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let group = self.child.id() as i32;
        signal_group(group);
        let _ = self.child.kill();
        // Members of the group outlive the leader for a moment. The crash
        // handler is in no group of ours but names the profile, and it
        // traces the browser's threads: a traced leader is not reaped while
        // its tracer lives, so the leader is never waited for before the
        // handler is gone.
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let strays = procfs::mentioning(&self.profile);
            for &pid in &strays {
                kill_process(pid);
            }
            let reaped = !matches!(self.child.try_wait(), Ok(None));
            let members = procfs::group_members(group);
            if reaped && strays.is_empty() && members.is_empty() {
                break;
            }
            if Instant::now() >= deadline {
                tracing::warn!(
                    "browser processes still running after being killed: {:?}",
                    [members, strays].concat()
                );
                break;
            }
            signal_group(group);
            std::thread::sleep(Duration::from_millis(10));
        }
        if let Err(e) = std::fs::remove_dir_all(&self.profile) {
            tracing::debug!("removing {}: {e}", self.profile.display());
        }
    }
}

fn signal_group(group: i32) {
    if group > 1 {
        // The group is the one we created; a group already gone is no error here.
        let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
    }
}

fn kill_process(pid: i32) {
    if pid > 1 {
        // The process names our profile; one that exited meanwhile is no error here.
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

/// Reading `/proc` to find what is left of a browser.
pub(crate) mod procfs {
    use std::path::Path;

    use procfs::process::{all_processes, Process};

    /// Live (not zombie) processes in process group `group`.
    pub fn group_members(group: i32) -> Vec<i32> {
        live()
            .filter(|(_, pgrp)| *pgrp == group)
            .map(|(process, _)| process.pid)
            .collect()
    }

    /// Live processes whose command line mentions `path`.
    pub fn mentioning(path: &Path) -> Vec<i32> {
        let needle = path.to_string_lossy().into_owned();
        live()
            .filter(|(process, _)| {
                process
                    .cmdline()
                    .is_ok_and(|args| args.iter().any(|arg| arg.contains(&needle)))
            })
            .map(|(process, _)| process.pid)
            .collect()
    }

    /// The processes that are neither zombies nor dead, with their process groups.
    fn live() -> impl Iterator<Item = (Process, i32)> {
        all_processes()
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|process| {
                let stat = process.stat().ok()?;
                (stat.state != 'Z' && stat.state != 'X').then_some((process, stat.pgrp))
            })
    }
}

/// A new empty directory for one browser's profile, with a name nobody can
/// guess in advance.
fn fresh_profile_dir() -> std::io::Result<PathBuf> {
    Ok(tempfile::Builder::new()
        .prefix("uidelta-chromium-")
        .tempdir()?
        .keep())
}

/// The WebSocket URL from a `DevToolsActivePort` file: the port on the first
/// line, the browser's path on the second.
fn endpoint_from_active_port(text: &str) -> Option<String> {
    let mut lines = text.lines();
    let port: u16 = lines.next()?.trim().parse().ok()?;
    let path = lines.next()?.trim();
    path.starts_with('/')
        .then(|| format!("ws://127.0.0.1:{port}{path}"))
}

/// Where a running browser's DevTools are, as the user wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Endpoint {
    /// A WebSocket URL, used as it is.
    WebSocket(String),
    /// An HTTP address whose `/json/version` names the WebSocket URL.
    Http {
        /// Host name or address.
        host: String,
        /// Port.
        port: u16,
    },
}

impl Endpoint {
    /// Reads `ws://...`, `http://host:port`, `host:port` or a bare port.
    pub fn parse(target: &str) -> std::result::Result<Endpoint, String> {
        let target = target.trim();
        if target.starts_with("ws://") || target.starts_with("wss://") {
            return Ok(Endpoint::WebSocket(target.to_owned()));
        }
        if target.starts_with("https://") {
            return Err("https DevTools endpoints are not supported; use http:// or ws://".into());
        }
        let rest = target.strip_prefix("http://").unwrap_or(target);
        let authority = rest.split('/').next().unwrap_or_default();
        if let Ok(port) = authority.parse::<u16>() {
            return Ok(Endpoint::Http {
                host: "127.0.0.1".into(),
                port,
            });
        }
        let (host, port) = authority.rsplit_once(':').ok_or_else(|| {
            format!("`{target}` has no port (expected ws://..., http://host:port or a port)")
        })?;
        let port = port
            .parse::<u16>()
            .map_err(|_| format!("`{port}` in `{target}` is not a port number"))?;
        if host.is_empty() {
            return Err(format!("`{target}` has no host"));
        }
        Ok(Endpoint::Http {
            host: host.to_owned(),
            port,
        })
    }

    /// The WebSocket URL, asking the browser's `/json/version` if needed.
    pub async fn resolve(&self, timeout: Duration) -> std::result::Result<String, String> {
        let (host, port) = match self {
            Endpoint::WebSocket(url) => return Ok(url.clone()),
            Endpoint::Http { host, port } => (host, *port),
        };
        let url = format!("http://{host}:{port}/json/version");
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .no_proxy()
            .build()
            .map_err(|e| format!("preparing the request to {url}: {e}"))?;
        let answer = client
            .get(&url)
            .header("Accept", "application/json")
            .send()
            .await
            .map_err(|e| {
                if e.is_timeout() {
                    format!(
                        "/json/version did not answer within {} ms",
                        timeout.as_millis()
                    )
                } else {
                    format!("asking {url}: {e}")
                }
            })?;
        let body = answer
            .bytes()
            .await
            .map_err(|e| format!("reading the answer of {url}: {e}"))?;
        ws_url_from_version(&String::from_utf8_lossy(&body))
    }
}

/// The `webSocketDebuggerUrl` of an answer to `/json/version` (its body,
/// or the whole answer with its head).
fn ws_url_from_version(response: &str) -> std::result::Result<String, String> {
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body)
        .unwrap_or(response);
    let json: serde_json::Value = serde_json::from_str(body.trim())
        .map_err(|e| format!("/json/version did not answer JSON ({e})"))?;
    json.get("webSocketDebuggerUrl")
        .and_then(|v| v.as_str())
        .filter(|s| s.starts_with("ws"))
        .map(str::to_owned)
        .ok_or_else(|| "/json/version names no webSocketDebuggerUrl".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_parse_in_every_spelling() {
        assert_eq!(
            Endpoint::parse("ws://127.0.0.1:9222/devtools/browser/x"),
            Ok(Endpoint::WebSocket(
                "ws://127.0.0.1:9222/devtools/browser/x".into()
            ))
        );
        let local = Endpoint::Http {
            host: "127.0.0.1".into(),
            port: 9222,
        };
        assert_eq!(Endpoint::parse("9222"), Ok(local.clone()));
        assert_eq!(Endpoint::parse("http://127.0.0.1:9222/"), Ok(local.clone()));
        assert_eq!(Endpoint::parse("127.0.0.1:9222"), Ok(local));
        assert_eq!(
            Endpoint::parse("http://localhost:9333"),
            Ok(Endpoint::Http {
                host: "localhost".into(),
                port: 9333
            })
        );
        assert!(Endpoint::parse("localhost").is_err());
        assert!(Endpoint::parse("https://x:1").is_err());
        assert!(Endpoint::parse("host:port").is_err());
    }

    #[test]
    fn active_port_file_and_version_answer_give_the_websocket() {
        assert_eq!(
            endpoint_from_active_port("40123\n/devtools/browser/abc\n"),
            Some("ws://127.0.0.1:40123/devtools/browser/abc".into())
        );
        assert_eq!(endpoint_from_active_port("40123\n"), None);
        let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"Browser\": \"Chrome/156\", \"webSocketDebuggerUrl\": \"ws://127.0.0.1:9222/devtools/browser/x\"}";
        assert_eq!(
            ws_url_from_version(answer),
            Ok("ws://127.0.0.1:9222/devtools/browser/x".into())
        );
        assert!(ws_url_from_version("HTTP/1.1 404 Not Found\r\n\r\nnope").is_err());
    }

    #[test]
    fn switches_name_the_profile_and_the_window() {
        let opts = LaunchOptions::default();
        let args = opts.switches(Path::new("/tmp/p"));
        assert_eq!(args[0], "--headless=new");
        assert!(args.contains(&"--no-sandbox".to_owned()));
        assert!(args.contains(&"--user-data-dir=/tmp/p".to_owned()));
        assert!(args.contains(&"--window-size=1280,1024".to_owned()));
        assert_eq!(args.last().map(String::as_str), Some("about:blank"));
    }
}
