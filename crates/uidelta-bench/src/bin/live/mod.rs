//! What the live benchmarks (`tokens`, `settle`, `mirror`) share: a
//! private virtual desktop with real applications, an engine session on it,
//! bounded waits, small statistics, and the token study's task.

pub mod task;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use uidelta_backend::Action;
use uidelta_diff::Diff;
use uidelta_engine::{ActOptions, ActionOutcome, AppId, Session};
use uidelta_linux::Linux;
use uidelta_testkit::{App, Desktop};

/// Errors of the live benchmarks: a message saying what failed.
pub type Fallible<T> = Result<T, Box<dyn std::error::Error>>;

/// The fixture application (fixtures/uidelta-fixture.py).
pub const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/uidelta-fixture.py"
);
/// Its name on the accessibility bus.
pub const FIXTURE_NAME: &str = "uidelta-fixture";
/// gtk3-widget-factory (Debian gtk-3-examples), program and bus name.
pub const FACTORY: &str = "gtk3-widget-factory";
/// gtk3-demo (Debian gtk-3-examples), program and bus name.
pub const DEMO: &str = "gtk3-demo";

/// How long an application may take to reach the accessibility bus.
pub const APPEAR_TIMEOUT: Duration = Duration::from_secs(60);
/// How long an application's tree may take to stop growing.
pub const STABLE_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest one action with its settle, snapshot and diff may take.
pub const ACT_TIMEOUT: Duration = Duration::from_secs(60);

/// Fails with the `apt-get install` line for whatever is missing.
pub fn require(programs: &[(&str, &str)]) -> Fallible<()> {
    let mut all = vec![("Xvfb", "xvfb"), ("dbus-daemon", "dbus-daemon")];
    all.extend_from_slice(programs);
    uidelta_testkit::require_programs(&all)?;
    Ok(())
}

/// A single-threaded async runtime, as the engine's tests use.
pub fn runtime() -> Fallible<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the async runtime: {e}").into())
}

/// An engine session on the desktop's accessibility bus and X display.
pub async fn session(desktop: &Desktop) -> Fallible<Session<Linux>> {
    let linux = Linux::connect(Some(desktop.session_bus_address()), Some(desktop.display()))
        .await
        .map_err(|e| format!("connecting to the desktop {}: {e}", desktop.display()))?;
    Ok(Session::new(Arc::new(linux)))
}

/// Launches `program` and waits (bounded) until `bus_name` is on the
/// accessibility bus. The desktop owns the process and stops it when it is
/// dropped.
pub fn launch(desktop: &Desktop, program: &str, bus_name: &str) -> Fallible<App> {
    let app = desktop
        .launch(program, &[])
        .map_err(|e| format!("launching {program}: {e}"))?;
    desktop
        .wait_for_accessible_app(bus_name, APPEAR_TIMEOUT)
        .map_err(|e| format!("{e}; last lines of its log: {}", tail(app.log_path(), 5)))?;
    Ok(app)
}

/// Observes `app` every 300 ms until its node count is the same three times
/// in a row (GTK builds some widgets' accessibles lazily after the window
/// maps). Returns its id. Bounded by [`STABLE_TIMEOUT`].
pub async fn wait_stable(session: &mut Session<Linux>, app: &str) -> Fallible<AppId> {
    let start = Instant::now();
    let mut last = usize::MAX;
    let mut same = 0;
    loop {
        let (idx, _) = bounded(session.observe(app), &format!("capturing {app}"))
            .await?
            .map_err(|e| format!("capturing {app}: {e}"))?;
        let len = session.known_apps()[idx].view.len();
        if len == last {
            same += 1;
            if same >= 2 {
                return Ok(idx);
            }
        } else {
            same = 0;
            last = len;
        }
        if start.elapsed() > STABLE_TIMEOUT {
            return Err(format!(
                "{app}: the tree kept changing size for {} s (last {len} nodes)",
                STABLE_TIMEOUT.as_secs()
            )
            .into());
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Runs `fut` for at most [`ACT_TIMEOUT`].
pub async fn bounded<T>(fut: impl std::future::Future<Output = T>, what: &str) -> Fallible<T> {
    tokio::time::timeout(ACT_TIMEOUT, fut)
        .await
        .map_err(|_| format!("{what}: no answer within {} s", ACT_TIMEOUT.as_secs()).into())
}

/// One action through the engine, bounded; the error names the action.
pub async fn act(
    session: &mut Session<Linux>,
    target: &str,
    action: &Action,
    opts: &ActOptions,
) -> Fallible<ActionOutcome> {
    let what = format!("{} `{target}`", action.doing());
    bounded(session.act(target, action, opts), &what)
        .await?
        .map_err(|e| format!("{what}: {e}").into())
}

/// The id of the application named `app` in the session.
pub fn app_id_of(session: &Session<Linux>, app: &str) -> Fallible<AppId> {
    session
        .known_apps()
        .iter()
        .find(|s| s.app.name == app)
        .and_then(|s| session.known_id(&s.app.id))
        .ok_or_else(|| format!("{app} has not been observed").into())
}

/// The diff as an agent reads it.
pub fn diff_text(d: &Diff) -> String {
    uidelta_render::diff_text(d, &uidelta_render::DiffOptions::default())
}

/// The latest tree of scope `idx` as an agent reads it.
pub fn tree_text(session: &Session<Linux>, idx: AppId) -> String {
    let l = &session.known_apps()[idx];
    uidelta_render::tree_text(&l.view, &l.refs, &uidelta_render::TreeOptions::default())
}

/// The `p`-th percentile (0-100, nearest rank) of `values`; 0 when empty.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// Milliseconds of a duration, with fractions.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The 1, 5 and 15 minute load averages.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|t| t.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// `N cores, Linux x86_64, load average ...`.
pub fn machine() -> String {
    format!(
        "{} cores, {} {}, load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        std::env::consts::OS,
        std::env::consts::ARCH,
        load_average()
    )
}

/// The last `n` lines of a log, on one line.
pub fn tail(path: &Path, n: usize) -> String {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let lines: Vec<&str> = text.lines().collect();
            let tail = lines[lines.len().saturating_sub(n)..].join(" | ");
            if tail.is_empty() {
                "(empty)".into()
            } else {
                tail
            }
        }
        Err(e) => format!("(cannot read {}: {e})", path.display()),
    }
}

/// Escapes `|` for a markdown table cell and keeps it on one line.
pub fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}
