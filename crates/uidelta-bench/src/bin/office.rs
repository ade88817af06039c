//! Capture time, node count and first-tree tokens of LibreOffice Writer,
//! Calc (a sheet with data) and Impress: uidelta's AT-SPI capture against
//! pyatspi's walk (`scripts/capture_pyatspi.py`), in the same run, on one
//! private virtual desktop per application.
//!
//! `cargo run --release -p uidelta-bench --bin office [-- --runs 5]`
//!
//! Each application runs in a profile of its own (no tip of the day), on a
//! desktop of its own, so that no other LibreOffice answers its
//! single-instance pipe. Once its tree has stopped growing (same node count
//! twice in a row), `--runs` captures of each tool alternate, with 300 ms
//! of idle before each. uidelta's time is the wall time around
//! `capture()`; pyatspi's is the walker's own `capture_ms` (interpreter
//! start-up, imports and writing the JSON excluded). The first tree's
//! tokens (o200k) are those of uidelta's tree text and of pyatspi's JSON.
//! Prints a markdown table on stdout, progress on stderr.

use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use uidelta_atspi::{capture, find_app, Bus, CaptureOptions};
use uidelta_render::size;
use uidelta_testkit::{require_programs, App, Desktop};

#[allow(dead_code)]
mod live;

type Fallible<T> = Result<T, Box<dyn std::error::Error>>;

const SOFFICE: &str = "/usr/lib/libreoffice/program/soffice.bin";
const PYTHON: &str = "/usr/bin/python3";
const WALKER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../scripts/capture_pyatspi.py"
);
/// How long LibreOffice may take to reach the accessibility bus.
const APPEAR_TIMEOUT: Duration = Duration::from_secs(120);
/// How long one pyatspi walk may take.
const WALK_TIMEOUT: Duration = Duration::from_secs(180);
/// Idle before each timed capture.
const PAUSE: Duration = Duration::from_millis(300);

/// A sheet with data (`fixtures/libreoffice/prices.fods`): prices and
/// counts of three items.
const SHEET: &str = include_str!("../../../../fixtures/libreoffice/prices.fods");

/// The settings of a fresh LibreOffice profile (`fixtures/libreoffice`): no
/// tip of the day, no first-start wizard or "what's new" bar, no template
/// chooser in Impress.
const SETTINGS: &str = include_str!("../../../../fixtures/libreoffice/registrymodifications.xcu");

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("office benchmark failed: {e}");
            ExitCode::FAILURE
        }
    }
}

struct Row {
    app: &'static str,
    uidelta_ms: Vec<f64>,
    pyatspi_ms: Vec<f64>,
    uidelta_nodes: usize,
    pyatspi_nodes: usize,
    uidelta_tokens: usize,
    pyatspi_tokens: usize,
    truncated: bool,
}

fn run() -> Fallible<()> {
    let runs = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => 5,
        [flag, n] if flag == "--runs" => n.parse()?,
        other => return Err(format!("usage: office [--runs N], not {other:?}").into()),
    };
    require_programs(&[
        ("Xvfb", "xvfb"),
        (
            SOFFICE,
            "libreoffice-writer libreoffice-calc libreoffice-impress libreoffice-gtk3",
        ),
        (PYTHON, "python3-pyatspi"),
    ])?;
    let started_load = live::load_average();
    let mut rows = Vec::new();
    for (app, module) in [
        ("Writer", "--writer"),
        ("Calc", "--calc"),
        ("Impress", "--impress"),
    ] {
        eprintln!("== {app}");
        rows.push(one(app, module, runs)?);
    }
    println!(
        "Machine: {} at the end (load average {started_load} at the start); {runs} captures per tool.\n",
        live::machine()
    );
    println!("| app | nodes (uidelta / pyatspi) | uidelta median / p90 | pyatspi median / p90 | pyatspi ÷ uidelta | first tree tokens (uidelta text / pyatspi JSON) |");
    println!("|---|---:|---:|---:|---:|---:|");
    for r in &rows {
        let (um, up) = (
            live::percentile(&r.uidelta_ms, 50.0),
            live::percentile(&r.uidelta_ms, 90.0),
        );
        let (pm, pp) = (
            live::percentile(&r.pyatspi_ms, 50.0),
            live::percentile(&r.pyatspi_ms, 90.0),
        );
        println!(
            "| {}{} | {} / {} | {um:.0} ms / {up:.0} ms | {pm:.0} ms / {pp:.0} ms | {:.1}× | {} / {} |",
            r.app,
            if r.truncated { " (truncated)" } else { "" },
            r.uidelta_nodes,
            r.pyatspi_nodes,
            pm / um,
            r.uidelta_tokens,
            r.pyatspi_tokens
        );
    }
    Ok(())
}

/// One application on a desktop of its own.
fn one(app: &'static str, module: &str, runs: usize) -> Fallible<Row> {
    let desktop = Desktop::start()?;
    let pid = launch(&desktop, module)?;
    let rt = live::runtime()?;
    let mut session = rt.block_on(live::session(&desktop))?;
    let idx = rt.block_on(live::wait_stable(&mut session, "soffice"))?;
    let text = live::tree_text(&session, idx);
    let uidelta_tokens = size(&text).tokens;
    let bus = rt.block_on(Bus::connect(Some(desktop.session_bus_address())))?;
    let info = rt.block_on(find_app(&bus, "soffice"))?;
    let mut row = Row {
        app,
        uidelta_ms: Vec::new(),
        pyatspi_ms: Vec::new(),
        uidelta_nodes: 0,
        pyatspi_nodes: 0,
        uidelta_tokens,
        pyatspi_tokens: 0,
        truncated: false,
    };
    let opts = CaptureOptions::default();
    for round in 0..runs {
        for tool in if round % 2 == 0 { [0, 1] } else { [1, 0] } {
            std::thread::sleep(PAUSE);
            if tool == 0 {
                let began = Instant::now();
                let snap = rt.block_on(capture(&bus, &info.app, None, None, &opts))?;
                let ms = began.elapsed().as_secs_f64() * 1000.0;
                eprintln!("{app} uidelta: {ms:.0} ms, {} nodes", snap.node_count());
                row.uidelta_ms.push(ms);
                row.uidelta_nodes = snap.node_count();
                row.truncated |= snap.meta.truncated;
            } else {
                let (ms, nodes, tokens) = walk(&desktop, pid)?;
                eprintln!("{app} pyatspi: {ms:.0} ms, {nodes} nodes");
                row.pyatspi_ms.push(ms);
                row.pyatspi_nodes = nodes;
                row.pyatspi_tokens = tokens;
            }
        }
    }
    // Idle afterwards: CPU time of the application over two seconds.
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(2));
    eprintln!(
        "{app}: {} ticks of CPU in the 2 s after the last capture",
        cpu_ticks(pid).saturating_sub(before)
    );
    Ok(row)
}

/// Starts LibreOffice's `module` in a profile of its own; LibreOffice ends
/// its first start in a new profile to start again (exit code 81), and is
/// started again then. Returns its pid once it is on the bus.
fn launch(desktop: &Desktop, module: &str) -> Fallible<u32> {
    let dir = desktop.runtime_dir().to_path_buf();
    let user = dir.join("libreoffice").join("user");
    std::fs::create_dir_all(&user)?;
    std::fs::write(user.join("registrymodifications.xcu"), SETTINGS)?;
    let env = format!(
        "-env:UserInstallation=file://{}",
        dir.join("libreoffice").display()
    );
    let mut args = vec![
        module.to_owned(),
        "--norestore".into(),
        "--nologo".into(),
        env,
    ];
    if module == "--calc" {
        let file = dir.join("prices.fods");
        std::fs::write(&file, SHEET)?;
        args.push(file.to_string_lossy().into_owned());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut app: App = desktop.launch(SOFFICE, &args)?;
    let began = Instant::now();
    while desktop
        .wait_for_accessible_app("soffice", Duration::from_secs(2))
        .is_err()
    {
        if !app.is_running() {
            app = desktop.launch(SOFFICE, &args)?;
        }
        if began.elapsed() > APPEAR_TIMEOUT {
            return Err(format!("LibreOffice {module} never reached the accessibility bus").into());
        }
    }
    let pid = app.pid;
    std::mem::forget(app);
    Ok(pid)
}

/// One pyatspi walk of the application with `pid`: its own time, its node
/// count, and the tokens of its JSON.
fn walk(desktop: &Desktop, pid: u32) -> Fallible<(f64, usize, usize)> {
    let out = desktop.runtime_dir().join("pyatspi.json");
    let _ = std::fs::remove_file(&out);
    let mut command: Command = desktop.command(PYTHON);
    command
        .args([WALKER, "--pid", &pid.to_string(), "--out"])
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = command.spawn()?;
    let began = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            if !status.success() {
                return Err(format!("the pyatspi walk exited with {status}").into());
            }
            break;
        }
        if began.elapsed() > WALK_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err("the pyatspi walk did not end".into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let text = std::fs::read_to_string(&out)?;
    let doc: Value = serde_json::from_str(&text)?;
    let ms = doc
        .get("capture_ms")
        .and_then(Value::as_f64)
        .ok_or("no capture_ms")?;
    Ok((ms, count(doc.get("root")), size(&text).tokens))
}

fn count(node: Option<&Value>) -> usize {
    let Some(node) = node else { return 0 };
    1 + node
        .get("children")
        .and_then(Value::as_array)
        .map_or(0, |c| c.iter().map(|c| count(Some(c))).sum())
}

/// CPU time (user and system, clock ticks) of `pid` so far.
fn cpu_ticks(pid: u32) -> u64 {
    let Ok(stat) = std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat"))
    else {
        return 0;
    };
    let after = stat.rsplit_once(") ").map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(11) + field(12)
}
