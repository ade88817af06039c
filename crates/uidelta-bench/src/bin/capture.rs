//! Capture time of real applications: uidelta's AT-SPI capture against
//! pyatspi's full walk (`scripts/capture_pyatspi.py`) of the same
//! application, in the same run, on the same private virtual desktop.
//!
//! `cargo run --release -p uidelta-bench --bin capture [-- --runs 10 --rows 300]`
//!
//! Starts a desktop (Xvfb, session bus, accessibility bus), launches
//! gtk3-widget-factory and Debian's chromium showing a generated local page
//! of a few thousand accessible nodes, waits until both trees are complete,
//! then for each application runs `--runs` captures of each tool in rotating
//! order: uidelta (the application's cache plus a pipelined walk), uidelta
//! without the cache (pipelined walk only), and pyatspi (its `capture_ms`,
//! the walk timed inside Python, so interpreter start-up is excluded),
//! uidelta through a live mirror (`uidelta_atspi::Mirror`, started before
//! the first capture: what the Linux backend answers after its first
//! capture of an application), plus
//! two probes that bound a capture taking its structure from the cache
//! (`--no-probes` leaves them out). Each capture also records the CPU time
//! of the application, of the accessibility bus daemon and of this process.
//! Afterwards, with `dbus-monitor` on the accessibility bus, it counts the
//! D-Bus calls each tool sends to the application for one capture and the
//! application's median reply latency (`--no-call-count` skips this).
//! Prints markdown tables on stdout, progress on stderr. Every wait is
//! bounded; the desktop and everything in it is torn down at the end, also
//! on error.
//!
//! `--against osworld` compares with OSWorld's own capture code instead
//! (`scripts/capture_osworld.py`, run by the venv `scripts/osworld-venv.sh`
//! makes, on OSWorld's server module): uidelta's capture written as OSWorld's
//! XML against OSWorld's `_create_atspi_node` of the same application, in
//! rotating order, then the elements each wrote compared and OSWorld's whole
//! `/accessibility` endpoint timed (`--endpoint-runs`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitCode, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use serde_json::Value;
use uidelta_atspi::{capture, find_app, AppInfo, Bus, CaptureOptions, Mirror, Reading};
use uidelta_model::Snapshot;
use uidelta_testkit::{require_programs, Desktop};

type Fallible<T> = Result<T, Box<dyn std::error::Error>>;

#[path = "capture/report.rs"]
mod report;

#[path = "capture/elements.rs"]
mod elements;

#[path = "capture/osworld.rs"]
mod osworld;

#[path = "capture/calls.rs"]
mod calls;

use calls::{count_calls, CallCount};
use report::{median, print_report};

const FACTORY: &str = "gtk3-widget-factory";
const CHROMIUM: &str = "chromium";
const PYTHON: &str = "/usr/bin/python3";
const WALKER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../scripts/capture_pyatspi.py"
);
/// The title of the generated page; the Chromium tree is complete only when
/// a node carries it.
const PAGE_TITLE: &str = "uidelta capture benchmark";
/// Fewest nodes the Chromium tree must have for the benchmark to count.
const MIN_CHROMIUM_NODES: usize = 1000;

/// How long an application may take to reach the accessibility bus.
const APPEAR_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a tree may take to stop growing.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(90);
/// Consecutive captures with the same node count that make a tree settled.
const SETTLE_STABLE: usize = 3;
/// How long one pyatspi walk (interpreter included) may take.
const WALK_TIMEOUT: Duration = Duration::from_secs(180);
/// Idle time before each timed capture.
const PAUSE: Duration = Duration::from_millis(300);
/// How long dbus-monitor may take to start listening.
const MONITOR_READY: Duration = Duration::from_secs(5);

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("capture benchmark failed: {error}");
            ExitCode::FAILURE
        }
    }
}

struct Options {
    runs: usize,
    rows: usize,
    count_calls: bool,
    probes: bool,
    /// Compare with OSWorld's capture instead of pyatspi's full walk.
    against_osworld: bool,
    /// OSWorld's server module (`--osworld-server`).
    osworld_server: Option<std::path::PathBuf>,
    /// Runs of OSWorld's whole endpoint (`--endpoint-runs`).
    endpoint_runs: usize,
}

fn options() -> Fallible<Options> {
    let mut opts = Options {
        runs: 10,
        rows: 300,
        count_calls: true,
        probes: true,
        against_osworld: false,
        osworld_server: None,
        endpoint_runs: 3,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |what: &str| -> Fallible<usize> {
            let text = args
                .next()
                .ok_or_else(|| format!("{what} needs a number"))?;
            let n: usize = text
                .parse()
                .map_err(|_| format!("{what}: `{text}` is not a number"))?;
            if n == 0 {
                return Err(format!("{what} must be at least 1").into());
            }
            Ok(n)
        };
        match arg.as_str() {
            "--runs" => opts.runs = number("--runs")?,
            "--rows" => opts.rows = number("--rows")?,
            "--no-call-count" => opts.count_calls = false,
            "--no-probes" => opts.probes = false,
            "--endpoint-runs" => opts.endpoint_runs = number("--endpoint-runs")?,
            "--against" => match args.next().as_deref() {
                Some("osworld") => opts.against_osworld = true,
                Some("pyatspi") => opts.against_osworld = false,
                other => {
                    return Err(format!(
                        "--against takes `pyatspi` or `osworld`, not `{}`",
                        other.unwrap_or_default()
                    )
                    .into())
                }
            },
            "--osworld-server" => {
                let path = args.next().ok_or("--osworld-server needs a file")?;
                opts.osworld_server = Some(path.into());
            }
            "-h" | "--help" => {
                println!(
                    "usage: capture [--runs N (10)] [--rows N (300, rows of the Chromium page)] \
                     [--no-call-count] [--no-probes] [--against pyatspi|osworld] \
                     [--osworld-server FILE (target/osworld/main.py)] [--endpoint-runs N (3)]"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}` (try --help)").into()),
        }
    }
    Ok(opts)
}

fn run() -> Fallible<()> {
    let opts = options()?;
    check_programs()?;
    let osworld = if opts.against_osworld {
        Some(osworld::locate(opts.osworld_server.clone())?)
    } else {
        None
    };
    let load_start = load_average();
    let desktop = Desktop::start()?;
    eprintln!(
        "desktop {} up; runtime dir {}",
        desktop.display(),
        desktop.runtime_dir().display()
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the async runtime: {e}"))?;

    let factory = desktop.launch(FACTORY, &[])?;
    let page = desktop.runtime_dir().join("page.html");
    std::fs::write(&page, page_html(opts.rows))
        .map_err(|e| format!("writing {}: {e}", page.display()))?;
    let chromium = launch_chromium(&desktop, &page)?;

    desktop
        .wait_for_accessible_app(FACTORY, APPEAR_TIMEOUT)
        .map_err(|e| format!("{e}; log: {}", tail(factory.log_path(), 5)))?;
    let chromium_name = wait_for_chromium(&desktop, chromium.log_path())?;
    eprintln!("on the accessibility bus: {FACTORY}, {chromium_name}");

    let bus = rt
        .block_on(Bus::connect(Some(desktop.session_bus_address())))
        .map_err(|e| format!("connecting to the accessibility bus: {e}"))?;
    let mut reports = Vec::new();
    let mut osworld_reports = Vec::new();
    for (name, min_nodes, needle) in [
        (FACTORY, 1, None),
        (chromium_name.as_str(), MIN_CHROMIUM_NODES, Some(PAGE_TITLE)),
    ] {
        let app = rt
            .block_on(find_app(&bus, name))
            .map_err(|e| format!("finding {name}: {e}"))?;
        let (nodes, levels, paths) = settle(&rt, &bus, &app, min_nodes, needle)?;
        eprintln!("{name}: tree settled at {nodes} nodes in {levels} levels");
        if let Some(osworld) = &osworld {
            let report = osworld::measure(&rt, &bus, &desktop, &app, osworld, opts.runs);
            osworld_reports.push(report);
            continue;
        }
        let tools: &[Tool] = if opts.probes { &ALL } else { &WITH_MIRROR };
        let mut report = measure(&rt, &bus, &desktop, &app, &paths, tools, opts.runs);
        report.levels = levels;
        report.round_trip_ms = round_trip(&rt, &bus, &app);
        if opts.count_calls {
            report.calls = count_calls(&rt, &bus, &desktop, &app)?;
        }
        reports.push(report);
    }
    drop(bus);
    let endpoint = osworld
        .as_ref()
        .map(|o| osworld::endpoint(&desktop, o, opts.endpoint_runs));
    let machine = format!(
        "machine: {} cores, load average {load_start} at the start and {} at the end",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_average()
    );
    if osworld.is_some() {
        osworld::print_report(&osworld_reports, endpoint.as_ref(), opts.runs, &machine);
    } else {
        print_report(&reports, &opts, &machine);
    }
    // Dropping the desktop stops the apps, the buses and Xvfb.
    drop(desktop);
    Ok(())
}

/// Fails with the apt-get line for whatever is missing.
fn check_programs() -> Fallible<()> {
    require_programs(&[
        (FACTORY, "gtk-3-examples"),
        (CHROMIUM, "chromium"),
        (PYTHON, "python3-pyatspi"),
        ("dbus-monitor", "dbus-bin"),
    ])?;
    let probe = Command::new(PYTHON)
        .args(["-c", "import gi, pyatspi"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("running {PYTHON}: {e}"))?;
    let status = wait_bounded(probe, Duration::from_secs(30), "importing pyatspi")?;
    if !status.success() {
        return Err(format!(
            "{PYTHON} cannot import pyatspi ({status}): install it with \
             `apt-get install -y python3-pyatspi`"
        )
        .into());
    }
    if !Path::new(WALKER).is_file() {
        return Err(format!("the pyatspi walker {WALKER} is missing").into());
    }
    Ok(())
}

fn launch_chromium(desktop: &Desktop, page: &Path) -> Fallible<uidelta_testkit::App> {
    let profile = desktop.runtime_dir().join("chromium-profile");
    std::fs::create_dir_all(&profile)
        .map_err(|e| format!("creating {}: {e}", profile.display()))?;
    let user_data = format!("--user-data-dir={}", profile.display());
    let url = format!("file://{}", page.display());
    let args = [
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--password-store=basic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        user_data.as_str(),
        "--force-renderer-accessibility",
        url.as_str(),
    ];
    // ACCESSIBILITY_ENABLED=1 is part of the desktop's environment.
    desktop
        .launch(CHROMIUM, &args)
        .map_err(|e| format!("{e} (Debian's chromium: `apt-get install -y chromium`)").into())
}

/// Waits for Chromium on the accessibility bus and returns its name there.
fn wait_for_chromium(desktop: &Desktop, log: &Path) -> Fallible<String> {
    let deadline = Instant::now() + APPEAR_TIMEOUT;
    loop {
        let last = match desktop.accessible_apps() {
            Ok(names) => {
                if let Some(name) = names.iter().find(|n| n.to_lowercase().contains("chrom")) {
                    return Ok(name.clone());
                }
                format!("registered: {names:?}")
            }
            Err(e) => e.to_string(),
        };
        if Instant::now() >= deadline {
            return Err(format!(
                "chromium did not appear on the accessibility bus within {} s ({last}); log: {}",
                APPEAR_TIMEOUT.as_secs(),
                tail(log, 8)
            )
            .into());
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// Captures until the node count has been the same `SETTLE_STABLE` times in
/// a row, is at least `min_nodes`, and (if given) some node is named
/// `needle`. Returns the node count, the number of levels of the tree and
/// the object paths of its nodes.
fn settle(
    rt: &tokio::runtime::Runtime,
    bus: &Bus,
    app: &AppInfo,
    min_nodes: usize,
    needle: Option<&str>,
) -> Fallible<(usize, usize, Vec<String>)> {
    let deadline = Instant::now() + SETTLE_TIMEOUT;
    let opts = CaptureOptions::default();
    let mut counts: Vec<usize> = Vec::new();
    let mut last_error = String::new();
    loop {
        match rt.block_on(capture(bus, &app.app, None, None, &opts)) {
            Ok(snap) => {
                let n = snap.node_count();
                let found = needle.is_none_or(|t| snap.tree().nodes().iter().any(|d| d.name == t));
                counts.push(if found { n } else { 0 });
                let recent = &counts[counts.len().saturating_sub(SETTLE_STABLE)..];
                if recent.len() == SETTLE_STABLE && recent.iter().all(|&c| c == n) && n >= min_nodes
                {
                    let tree = snap.tree();
                    let depth = tree.ids().map(|id| tree.depth(id)).max().unwrap_or(0);
                    let paths = tree
                        .nodes()
                        .iter()
                        .filter_map(|d| {
                            let id = d.identity.as_deref()?;
                            Some(id[id.find('/')?..].to_owned())
                        })
                        .collect();
                    return Ok((n, depth + 1, paths));
                }
            }
            Err(e) => last_error = format!("; last error: {e}"),
        }
        if Instant::now() >= deadline {
            let shown = &counts[counts.len().saturating_sub(8)..];
            return Err(format!(
                "the tree of {} did not settle at {min_nodes} nodes or more within {} s \
                 (last node counts {shown:?}, 0 = page not loaded yet{last_error})",
                app.app.label(),
                SETTLE_TIMEOUT.as_secs()
            )
            .into());
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tool {
    Uidelta,
    UideltaNoCache,
    Pyatspi,
    /// `uidelta_atspi::Mirror::capture`, what the Linux backend answers
    /// after its first capture of an application: only what the
    /// application's events named since the last capture is read again,
    /// where its toolkit's profile vouches for its events; else a whole
    /// walk.
    UideltaMirror,
    /// Not a capture: what a capture that takes the structure from the
    /// cache would cost at least. `GetItems`, then `GetExtents` and
    /// `GetAttributes` of every node all at once, over the same bus.
    WaveFull,
    /// The same without `GetAttributes`.
    WaveExtents,
}

/// The tools compared.
const TOOLS: [Tool; 3] = [Tool::Uidelta, Tool::UideltaNoCache, Tool::Pyatspi];
/// The tools with the live mirror, timed in one rotation.
const WITH_MIRROR: [Tool; 4] = [
    Tool::Uidelta,
    Tool::UideltaNoCache,
    Tool::Pyatspi,
    Tool::UideltaMirror,
];
/// The tools, the live mirror and the probes, timed in one rotation.
const ALL: [Tool; 6] = [
    Tool::Uidelta,
    Tool::UideltaNoCache,
    Tool::Pyatspi,
    Tool::UideltaMirror,
    Tool::WaveFull,
    Tool::WaveExtents,
];

impl Tool {
    fn label(self) -> &'static str {
        match self {
            Tool::Uidelta => "uidelta",
            Tool::UideltaNoCache => "uidelta, no cache",
            Tool::Pyatspi => "pyatspi",
            Tool::UideltaMirror => "uidelta, live mirror",
            Tool::WaveFull => "probe: GetItems + one wave of GetExtents, GetAttributes",
            Tool::WaveExtents => "probe: GetItems + one wave of GetExtents",
        }
    }
}

#[derive(Default)]
struct Series {
    ms: Vec<f64>,
    nodes: Vec<usize>,
    errors: Vec<String>,
    truncated: usize,
    /// CPU time of the application's processes during each capture, in ms.
    app_cpu: Vec<f64>,
    /// CPU time of the accessibility bus daemon during each capture, in ms.
    bus_cpu: Vec<f64>,
    /// CPU time of this process during each capture (uidelta only), in ms.
    client_cpu: Vec<f64>,
    /// Captures through the live mirror that read only what events named.
    in_part: usize,
    /// Why the others walked the whole tree, and how often.
    whole: BTreeMap<&'static str, usize>,
}

/// What one capture saw, for comparing the tools node by node.
type Seen = HashMap<String, (String, String)>;

struct AppReport {
    name: String,
    series: BTreeMap<&'static str, Series>,
    /// Identity -> (role, name) of the last successful capture, per tool.
    seen: HashMap<&'static str, Seen>,
    calls: Vec<CallCount>,
    /// Levels of the tree: the rounds of uidelta's level-by-level walk.
    levels: usize,
    /// Median time of one call answered by the application over the bus,
    /// made one after another.
    round_trip_ms: Option<f64>,
}

/// Median round trip of `GetRoleName` on the application's root, 200 calls
/// one after another over the accessibility bus: the fixed cost of every
/// call that a sequential walker pays (plus its own overhead), and of every
/// level of uidelta's walk.
fn round_trip(rt: &tokio::runtime::Runtime, bus: &Bus, app: &AppInfo) -> Option<f64> {
    let conn = bus.connection();
    let mut times = Vec::new();
    for _ in 0..200 {
        let started = Instant::now();
        let call = conn.call_method(
            Some(app.app.bus_name.as_str()),
            uidelta_atspi::ROOT_PATH,
            Some("org.a11y.atspi.Accessible"),
            "GetRoleName",
            &(),
        );
        let ok = rt
            .block_on(async { tokio::time::timeout(Duration::from_secs(2), call).await })
            .is_ok_and(|r| r.is_ok());
        if !ok {
            // A hung application: the captures have said so already.
            break;
        }
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    median(&times)
}

fn measure(
    rt: &tokio::runtime::Runtime,
    bus: &Bus,
    desktop: &Desktop,
    app: &AppInfo,
    paths: &[String],
    tools: &[Tool],
    runs: usize,
) -> AppReport {
    let name = app.app.name.clone();
    let mut report = AppReport {
        name: name.clone(),
        series: BTreeMap::new(),
        seen: HashMap::new(),
        calls: Vec::new(),
        levels: 0,
        round_trip_ms: None,
    };
    let app_pids = app.app.pid.map(group_of).unwrap_or_default();
    let bus_pids = bus_daemon(desktop);
    // The mirror listens from before its first (whole, unrecorded) capture.
    let mut mirror = tools
        .contains(&Tool::UideltaMirror)
        .then(|| rt.block_on(Mirror::start(bus, &app.app, None)));
    // One unrecorded run of each, so that no tool pays for first contact.
    for &tool in tools {
        let _ = one_capture(rt, bus, desktop, app, paths, tool, &mut mirror);
    }
    for run in 0..runs {
        eprintln!("{name}: run {}/{runs}", run + 1);
        for k in 0..tools.len() {
            // Rotating order: each tool takes each place in the order as often.
            let tool = tools[(run + k) % tools.len()];
            let series = report.series.entry(tool.label()).or_default();
            // Lets the application finish whatever the previous capture left
            // it to do, so that the next one does not pay for it.
            std::thread::sleep(PAUSE);
            let before = (cpu_ms(&app_pids), cpu_ms(&bus_pids), self_cpu_ms());
            let result = one_capture(rt, bus, desktop, app, paths, tool, &mut mirror);
            let after = (cpu_ms(&app_pids), cpu_ms(&bus_pids), self_cpu_ms());
            match result {
                Ok(c) => {
                    eprintln!(
                        "  {:.1} ms, app CPU {:.1} ms: {}",
                        c.ms,
                        after.0 - before.0,
                        tool.label()
                    );
                    series.app_cpu.push(after.0 - before.0);
                    series.bus_cpu.push(after.1 - before.1);
                    if tool != Tool::Pyatspi {
                        series.client_cpu.push(after.2 - before.2);
                    }
                    series.ms.push(c.ms);
                    series.nodes.push(c.seen.len());
                    series.truncated += usize::from(c.truncated);
                    match c.reading {
                        Some(Reading::Part { .. }) => series.in_part += 1,
                        Some(Reading::Whole(why)) => *series.whole.entry(why).or_default() += 1,
                        None => {}
                    }
                    if WITH_MIRROR.contains(&tool) {
                        report.seen.insert(tool.label(), c.seen);
                    }
                }
                Err(e) => {
                    eprintln!("{name}: {} failed: {e}", tool.label());
                    series.errors.push(e.to_string());
                }
            }
        }
    }
    report
}

struct Captured {
    ms: f64,
    truncated: bool,
    seen: Seen,
    /// How the live mirror read it (its captures only).
    reading: Option<Reading>,
}

/// The live mirror of the application measured, when one is: `Err` when it
/// could not start.
type LiveMirror = Option<Result<Mirror, uidelta_atspi::Error>>;

fn one_capture(
    rt: &tokio::runtime::Runtime,
    bus: &Bus,
    desktop: &Desktop,
    app: &AppInfo,
    paths: &[String],
    tool: Tool,
    mirror: &mut LiveMirror,
) -> Fallible<Captured> {
    match tool {
        Tool::UideltaMirror => {
            let mirror = match mirror {
                Some(Ok(m)) => m,
                Some(Err(e)) => return Err(format!("starting the live mirror: {e}").into()),
                None => return Err("no live mirror was started".into()),
            };
            let started = Instant::now();
            let (snap, reading) =
                rt.block_on(mirror.capture(bus, None, &CaptureOptions::default()))?;
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            Ok(Captured {
                ms,
                truncated: snap.meta.truncated,
                seen: seen_in_snapshot(&snap),
                reading: Some(reading),
            })
        }
        Tool::Uidelta | Tool::UideltaNoCache => {
            let opts = CaptureOptions {
                use_cache: tool == Tool::Uidelta,
                ..CaptureOptions::default()
            };
            let started = Instant::now();
            let snap = rt.block_on(capture(bus, &app.app, None, None, &opts))?;
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            Ok(Captured {
                ms,
                truncated: snap.meta.truncated,
                seen: seen_in_snapshot(&snap),
                reading: None,
            })
        }
        Tool::Pyatspi => pyatspi_walk(desktop, &app.app.name),
        Tool::WaveFull | Tool::WaveExtents => {
            let started = Instant::now();
            wave(rt, bus, app, paths, tool == Tool::WaveFull)?;
            Ok(Captured {
                ms: started.elapsed().as_secs_f64() * 1000.0,
                truncated: false,
                seen: paths
                    .iter()
                    .map(|p| (p.clone(), Default::default()))
                    .collect(),
                reading: None,
            })
        }
    }
}

/// `GetItems`, then `GetExtents` (and `GetAttributes`) of every path at
/// once: the calls a capture needs when the structure comes from the cache.
/// Replies are received but not decoded; error replies (a node without a
/// Component) are fine.
fn wave(
    rt: &tokio::runtime::Runtime,
    bus: &Bus,
    app: &AppInfo,
    paths: &[String],
    attributes: bool,
) -> Fallible<()> {
    let conn = bus.connection();
    let dest = app.app.bus_name.as_str();
    let work = async {
        conn.call_method(
            Some(dest),
            "/org/a11y/atspi/cache",
            Some("org.a11y.atspi.Cache"),
            "GetItems",
            &(),
        )
        .await
        .map_err(|e| format!("GetItems of {}: {e}", app.app.label()))?;
        let extents = join_all(paths.iter().map(|p| {
            conn.call_method(
                Some(dest),
                p.as_str(),
                Some("org.a11y.atspi.Component"),
                "GetExtents",
                &(0u32,),
            )
        }));
        let attrs = join_all(paths.iter().filter(|_| attributes).map(|p| {
            conn.call_method(
                Some(dest),
                p.as_str(),
                Some("org.a11y.atspi.Accessible"),
                "GetAttributes",
                &(),
            )
        }));
        futures_util::join!(extents, attrs);
        Ok::<_, String>(())
    };
    rt.block_on(async { tokio::time::timeout(Duration::from_secs(30), work).await })
        .map_err(|_| format!("the probe on {} took over 30 s", app.app.label()))??;
    Ok(())
}

fn seen_in_snapshot(snap: &Snapshot) -> Seen {
    snap.tree()
        .nodes()
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let id = n.identity.clone().unwrap_or_else(|| format!("#{i}"));
            (id, (n.raw_role.clone(), n.name.clone()))
        })
        .collect()
}

/// One full pyatspi walk; its time is the walker's own `capture_ms`.
fn pyatspi_walk(desktop: &Desktop, name: &str) -> Fallible<Captured> {
    let dir = desktop.runtime_dir();
    let out = dir.join("pyatspi.json");
    let err_path = dir.join("pyatspi.stderr");
    let _ = std::fs::remove_file(&out);
    let stderr =
        File::create(&err_path).map_err(|e| format!("creating {}: {e}", err_path.display()))?;
    let mut command = desktop.command(PYTHON);
    command
        .args([WALKER, "--app", name, "--out"])
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr);
    let child = command
        .spawn()
        .map_err(|e| format!("running {PYTHON} {WALKER}: {e}"))?;
    let status = wait_bounded(child, WALK_TIMEOUT, "the pyatspi walk")?;
    if !status.success() {
        return Err(format!(
            "the pyatspi walk of {name} exited with {status}: {}",
            tail(&err_path, 5)
        )
        .into());
    }
    let text =
        std::fs::read_to_string(&out).map_err(|e| format!("reading {}: {e}", out.display()))?;
    let doc: Value = serde_json::from_str(&text)
        .map_err(|e| format!("the pyatspi output does not parse: {e}"))?;
    let ms = doc
        .get("capture_ms")
        .and_then(Value::as_f64)
        .ok_or("the pyatspi output has no capture_ms")?;
    let truncated = doc.get("truncated").and_then(Value::as_bool) == Some(true);
    let root = doc.get("root").ok_or("the pyatspi output has no root")?;
    let mut seen = Seen::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let text = |key: &str| {
            node.get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let id = match node.get("id").and_then(Value::as_str) {
            Some(id) => id.to_owned(),
            None => format!("#{}", seen.len()),
        };
        seen.insert(id, (text("role"), text("name")));
        if let Some(children) = node.get("children").and_then(Value::as_array) {
            stack.extend(children.iter());
        }
    }
    Ok(Captured {
        ms,
        truncated,
        seen,
        reading: None,
    })
}

/// Waits for `child` for at most `limit`; kills it past that.
fn wait_bounded(mut child: Child, limit: Duration, what: &str) -> Fallible<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| format!("waiting for {what}: {e}"))?
        {
            return Ok(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{what} took longer than {} s; killed", limit.as_secs()).into());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The pids in the process group of `pid`: an application and its helper
/// processes (Chromium's zygote, renderers, GPU process). Costs a scan of
/// `/proc`.
fn group_of(pid: u32) -> Vec<u32> {
    let Some(group) = stat_field(pid, 2) else {
        return vec![pid];
    };
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return vec![pid];
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&p| stat_field(p, 2) == Some(group))
        .collect()
}

/// Field `index` after the command name of `/proc/PID/stat` (0 = state,
/// 1 = ppid, 2 = process group), as a number.
fn stat_field(pid: u32, index: usize) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(index)?.parse().ok()
}

/// The accessibility bus's dbus-daemon among the desktop's processes.
fn bus_daemon(desktop: &Desktop) -> Vec<u32> {
    desktop
        .processes()
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| {
                    let c = String::from_utf8_lossy(&c);
                    c.contains("dbus-daemon") && c.contains("accessibility")
                })
                .unwrap_or(false)
        })
        .collect()
}

/// CPU time used so far by every thread of `pids`, in ms, from
/// `/proc/PID/task/TID/schedstat` (nanoseconds on CPU).
fn cpu_ms(pids: &[u32]) -> f64 {
    pids.iter()
        .map(|pid| tasks_cpu_ms(&format!("/proc/{pid}/task")))
        .sum()
}

fn self_cpu_ms() -> f64 {
    tasks_cpu_ms("/proc/self/task")
}

fn tasks_cpu_ms(dir: &str) -> f64 {
    let Ok(tasks) = std::fs::read_dir(dir) else {
        return 0.0;
    };
    tasks
        .filter_map(|t| {
            let text = std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok()?;
            text.split_whitespace().next()?.parse::<f64>().ok()
        })
        .sum::<f64>()
        / 1e6
}

/// `/proc/loadavg`'s first three fields.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|t| t.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// The last `lines` lines of a log file, joined with ` | `.
fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let shown = all[all.len().saturating_sub(lines)..].join(" | ");
    if shown.is_empty() {
        format!("{} is empty", path.display())
    } else {
        shown
    }
}

/// A local page with `rows` table rows of text, a link, a button, a check
/// box and a text field each: about ten accessible nodes per row.
fn page_html(rows: usize) -> String {
    let mut html = String::with_capacity(rows * 400 + 1000);
    html.push_str(&format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{PAGE_TITLE}</title></head>\n<body>\n<h1>{PAGE_TITLE}</h1>\n\
         <nav><ul><li><a href=\"#top\">Top</a></li><li><a href=\"#end\">End</a></li></ul></nav>\n\
         <form><table><thead><tr><th>#</th><th>Item</th><th>Link</th><th>Action</th>\
         <th>Done</th><th>Note</th></tr></thead>\n<tbody>\n"
    ));
    for i in 1..=rows {
        html.push_str(&format!(
            "<tr><td>{i}</td><td>Item number {i}, a line of plain text</td>\
             <td><a href=\"#row{i}\">Open item {i}</a></td>\
             <td><button type=\"button\">Edit {i}</button></td>\
             <td><label><input type=\"checkbox\"{}> done {i}</label></td>\
             <td><input type=\"text\" aria-label=\"Note {i}\" value=\"note {i}\"></td></tr>\n",
            if i % 3 == 0 { " checked" } else { "" }
        ));
    }
    html.push_str("</tbody></table></form>\n<p id=\"end\">End of the list.</p>\n</body></html>\n");
    html
}
