//! `--against osworld`: uidelta's capture written as OSWorld's XML against
//! OSWorld's own capture code (`scripts/capture_osworld.py` running the
//! desktop-env server module's `_create_atspi_node`), on the same
//! applications in the same run, and the elements each writes compared.

use std::path::PathBuf;

use uidelta_diff::{Filters, View};
use uidelta_render::tree_osworld;

use super::elements::{compare, elements, Comparison, Element};
use super::*;

/// The script that runs OSWorld's capture.
const DRIVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../scripts/capture_osworld.py"
);
/// How the venv is made.
const VENV_SCRIPT: &str = "scripts/osworld-venv.sh";

/// Where OSWorld's capture code and the Python that runs it are.
pub(super) struct Osworld {
    python: String,
    server: PathBuf,
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target")))
}

/// Finds the venv's python (`OSWORLD_PYTHON`, or target/osworld-venv) and
/// OSWorld's server module (`server`, `OSWORLD_SERVER`, or
/// target/osworld/main.py), and checks that the one can import what the
/// other needs. Fails saying how to get what is missing.
pub(super) fn locate(server: Option<PathBuf>) -> Fallible<Osworld> {
    let python = std::env::var("OSWORLD_PYTHON").unwrap_or_else(|_| {
        target_dir()
            .join("osworld-venv/bin/python")
            .to_string_lossy()
            .into_owned()
    });
    if !Path::new(&python).is_file() {
        return Err(format!("{python} is missing: make the venv with `{VENV_SCRIPT}`").into());
    }
    let server = server
        .or_else(|| std::env::var_os("OSWORLD_SERVER").map(PathBuf::from))
        .unwrap_or_else(|| target_dir().join("osworld/main.py"));
    if !server.is_file() {
        return Err(format!(
            "OSWorld's server module {} is missing: put desktop_env/server/main.py of OSWorld's \
             repository there (PyPI's desktop-env holds only the client), or name it with \
             --osworld-server or OSWORLD_SERVER; BENCHMARKS.md says which version was measured",
            server.display()
        )
        .into());
    }
    if !Path::new(DRIVER).is_file() {
        return Err(format!("the OSWorld driver {DRIVER} is missing").into());
    }
    let probe = Command::new(&python)
        .args(["-c", "import lxml.etree, gi"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("running {python}: {e}"))?;
    let status = wait_bounded(probe, Duration::from_secs(30), "importing lxml")?;
    if !status.success() {
        return Err(
            format!("{python} cannot import lxml and gi ({status}): run `{VENV_SCRIPT}`").into(),
        );
    }
    Ok(Osworld { python, server })
}

#[derive(Default)]
pub(super) struct Timed {
    ms: Vec<f64>,
    app_cpu: Vec<f64>,
    elements: Vec<usize>,
    errors: Vec<String>,
}

pub(super) struct OsworldReport {
    name: String,
    uidelta: Timed,
    osworld: Timed,
    /// Elements of uidelta's XML with the CLI's default filters (the timed
    /// one), of the last capture.
    filtered: usize,
    /// The last capture of each, unfiltered for uidelta.
    ours: Vec<Element>,
    theirs: Vec<Element>,
    server_sha256: String,
}

/// OSWorld's whole `/accessibility` endpoint, run after the per-application
/// rounds.
pub(super) struct Endpoint {
    ms: Vec<f64>,
    elements: usize,
    /// Elements under each application element of the last run.
    per_app: Vec<(String, usize)>,
    errors: Vec<String>,
}

struct Capture {
    ms: f64,
    elements: usize,
    xml: String,
    sha256: String,
}

/// uidelta's capture as `uidelta tree --format osworld` writes it: the
/// capture, the view with the default filters, the XML. Returns that and,
/// outside the clock, the XML of the unfiltered view.
fn uidelta_capture(rt: &tokio::runtime::Runtime, bus: &Bus, app: &AppInfo) -> Fallible<Capture> {
    let started = Instant::now();
    let snap = rt.block_on(capture(
        bus,
        &app.app,
        None,
        None,
        &CaptureOptions::default(),
    ))?;
    let xml = tree_osworld(&View::new(&snap, Filters::all()));
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let filtered = elements(&xml)?.len();
    Ok(Capture {
        ms,
        elements: filtered,
        xml: tree_osworld(&View::new(&snap, Filters::none())),
        sha256: String::new(),
    })
}

/// One run of the driver: `--app NAME`, or the whole endpoint.
fn osworld_capture(desktop: &Desktop, osworld: &Osworld, app: Option<&str>) -> Fallible<Capture> {
    let dir = desktop.runtime_dir();
    let out = dir.join("osworld.json");
    let err_path = dir.join("osworld.stderr");
    let _ = std::fs::remove_file(&out);
    let stderr =
        File::create(&err_path).map_err(|e| format!("creating {}: {e}", err_path.display()))?;
    let mut command = desktop.command(&osworld.python);
    command.arg(DRIVER).arg("--server").arg(&osworld.server);
    match app {
        Some(name) => command.args(["--app", name]),
        None => command.arg("--desktop"),
    };
    command
        .arg("--out")
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr);
    let child = command
        .spawn()
        .map_err(|e| format!("running {} {DRIVER}: {e}", osworld.python))?;
    let status = wait_bounded(child, WALK_TIMEOUT, "OSWorld's capture")?;
    if !status.success() {
        return Err(format!(
            "OSWorld's capture of {} exited with {status}: {}",
            app.unwrap_or("the desktop"),
            tail(&err_path, 5)
        )
        .into());
    }
    let text =
        std::fs::read_to_string(&out).map_err(|e| format!("reading {}: {e}", out.display()))?;
    let doc: Value = serde_json::from_str(&text)
        .map_err(|e| format!("the OSWorld driver's output does not parse: {e}"))?;
    let field = |key: &str| {
        doc.get(key)
            .ok_or_else(|| format!("the OSWorld driver's output has no {key}"))
    };
    Ok(Capture {
        ms: field("capture_ms")?
            .as_f64()
            .ok_or("capture_ms is not a number")?,
        elements: field("elements")?
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or("elements is not a count")?,
        xml: field("xml")?.as_str().ok_or("xml is not text")?.to_owned(),
        sha256: field("server_sha256")?
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    })
}

/// `runs` rounds of uidelta and OSWorld on `app`, in rotating order.
pub(super) fn measure(
    rt: &tokio::runtime::Runtime,
    bus: &Bus,
    desktop: &Desktop,
    app: &AppInfo,
    osworld: &Osworld,
    runs: usize,
) -> OsworldReport {
    let name = app.app.name.clone();
    let mut report = OsworldReport {
        name: name.clone(),
        uidelta: Timed::default(),
        osworld: Timed::default(),
        filtered: 0,
        ours: Vec::new(),
        theirs: Vec::new(),
        server_sha256: String::new(),
    };
    let app_pids = app.app.pid.map(group_of).unwrap_or_default();
    // One unrecorded run of each, so that neither pays for first contact.
    let _ = uidelta_capture(rt, bus, app);
    let _ = osworld_capture(desktop, osworld, Some(&name));
    let mut last: [Option<String>; 2] = [None, None];
    for run in 0..runs {
        eprintln!("{name}: run {}/{runs}", run + 1);
        for k in 0..2 {
            let tool = (run + k) % 2;
            std::thread::sleep(PAUSE);
            let before = cpu_ms(&app_pids);
            let result = if tool == 0 {
                uidelta_capture(rt, bus, app)
            } else {
                osworld_capture(desktop, osworld, Some(&name))
            };
            let app_cpu = cpu_ms(&app_pids) - before;
            let (label, series) = if tool == 0 {
                ("uidelta", &mut report.uidelta)
            } else {
                ("OSWorld", &mut report.osworld)
            };
            match result {
                Ok(c) => {
                    eprintln!(
                        "  {:.1} ms, app CPU {app_cpu:.1} ms, {} elements: {label}",
                        c.ms, c.elements
                    );
                    series.ms.push(c.ms);
                    series.app_cpu.push(app_cpu);
                    series.elements.push(c.elements);
                    if !c.sha256.is_empty() {
                        report.server_sha256 = c.sha256;
                    }
                    last[tool] = Some(c.xml);
                }
                Err(e) => {
                    eprintln!("{name}: {label} failed: {e}");
                    series.errors.push(e.to_string());
                }
            }
        }
    }
    report.filtered = report.uidelta.elements.last().copied().unwrap_or(0);
    save(&name, &last);
    for (xml, into, label) in [
        (&last[0], &mut report.ours, "uidelta"),
        (&last[1], &mut report.theirs, "OSWorld"),
    ] {
        if let Some(xml) = xml {
            match elements(xml) {
                Ok(found) => *into = found,
                Err(e) => {
                    let series = if label == "uidelta" {
                        &mut report.uidelta
                    } else {
                        &mut report.osworld
                    };
                    series.errors.push(format!("{label}'s XML: {e}"));
                }
            }
        }
    }
    report
}

/// Keeps the last XML of each in target/osworld/out (`NAME-uidelta.xml`,
/// unfiltered, and `NAME-osworld.xml`), for a look at what differs.
fn save(name: &str, last: &[Option<String>; 2]) {
    let dir = target_dir().join("osworld/out");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("not keeping the XML: creating {}: {e}", dir.display());
        return;
    }
    for (xml, tool) in last.iter().zip(["uidelta", "osworld"]) {
        let Some(xml) = xml else {
            continue;
        };
        let path = dir.join(format!("{name}-{tool}.xml"));
        match std::fs::write(&path, xml) {
            Ok(()) => eprintln!("{name}: {tool}'s last XML in {}", path.display()),
            Err(e) => eprintln!("not keeping the XML: writing {}: {e}", path.display()),
        }
    }
}

/// `runs` runs of OSWorld's whole endpoint on the desktop as it is.
pub(super) fn endpoint(desktop: &Desktop, osworld: &Osworld, runs: usize) -> Endpoint {
    let mut out = Endpoint {
        ms: Vec::new(),
        elements: 0,
        per_app: Vec::new(),
        errors: Vec::new(),
    };
    let mut last = None;
    for run in 0..runs {
        std::thread::sleep(PAUSE);
        match osworld_capture(desktop, osworld, None) {
            Ok(c) => {
                eprintln!(
                    "endpoint run {}/{runs}: {:.1} ms, {} elements",
                    run + 1,
                    c.ms,
                    c.elements
                );
                out.ms.push(c.ms);
                out.elements = c.elements;
                last = Some(c.xml);
            }
            Err(e) => out.errors.push(e.to_string()),
        }
    }
    if let Some(xml) = last {
        match uidelta_formats::osworld::parse(&xml) {
            Ok(snap) => {
                let tree = snap.tree();
                out.per_app = tree
                    .children(tree.root())
                    .iter()
                    .map(|&id| (tree.node(id).name.clone(), tree.subtree_len(id)))
                    .collect();
            }
            Err(e) => out.errors.push(format!("the endpoint's XML: {e}")),
        }
    }
    out
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

fn counts_text(v: &[usize]) -> String {
    match (v.iter().min(), v.iter().max()) {
        (Some(lo), Some(hi)) if lo == hi => lo.to_string(),
        (Some(lo), Some(hi)) => format!("{lo}-{hi}"),
        _ => "-".into(),
    }
}

/// `12 × table cell, 3 × label`: the roles of `elements`, most frequent first.
fn roles_text(elements: &[&Element]) -> String {
    let mut by_role: BTreeMap<&str, usize> = BTreeMap::new();
    for e in elements {
        *by_role.entry(e.role.as_str()).or_default() += 1;
    }
    let mut by_role: Vec<(&str, usize)> = by_role.into_iter().collect();
    by_role.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    by_role
        .iter()
        .take(8)
        .map(|(role, n)| format!("{n} × {role}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn clip(text: &str) -> String {
    let mut out: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        out.push('…');
    }
    out
}

pub(super) fn print_report(
    reports: &[OsworldReport],
    endpoint: Option<&Endpoint>,
    runs: usize,
    machine: &str,
) {
    println!("{machine}\n");
    if let Some(sha) = reports
        .iter()
        .map(|r| &r.server_sha256)
        .find(|s| !s.is_empty())
    {
        println!("OSWorld's server module: sha256 {sha}\n");
    }
    println!(
        "## Capture time against OSWorld's own capture ({runs} runs each, rotating order; \
         median / p90)\n"
    );
    println!(
        "| app | elements (uidelta raw / uidelta default filters / OSWorld) | uidelta | OSWorld | \
         OSWorld ÷ uidelta | app CPU per capture (uidelta / OSWorld) |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for r in reports {
        let (ours, theirs) = (sorted(&r.uidelta.ms), sorted(&r.osworld.ms));
        let ratio = match (median(&theirs), median(&ours)) {
            (Some(t), Some(o)) if o > 0.0 => format!("{:.1}×", t / o),
            _ => "-".into(),
        };
        println!(
            "| {} | {} / {} / {} | {} / {} | {} / {} | {} | {} / {} |",
            r.name,
            r.ours.len(),
            r.filtered,
            counts_text(&r.osworld.elements),
            report::ms_text(median(&ours)),
            report::ms_text(report::p90(&ours)),
            report::ms_text(median(&theirs)),
            report::ms_text(report::p90(&theirs)),
            ratio,
            report::ms_text(median(&sorted(&r.uidelta.app_cpu))),
            report::ms_text(median(&sorted(&r.osworld.app_cpu))),
        );
    }
    let failures: Vec<String> = reports
        .iter()
        .flat_map(|r| {
            let uidelta = r
                .uidelta
                .errors
                .iter()
                .map(move |e| (&r.name, "uidelta", e));
            let osworld = r
                .osworld
                .errors
                .iter()
                .map(move |e| (&r.name, "OSWorld", e));
            uidelta.chain(osworld)
        })
        .map(|(app, tool, e)| format!("- {app} / {tool}: {e}"))
        .collect();
    println!();
    if failures.is_empty() {
        println!("No capture failed.");
    } else {
        println!("Failures:\n");
        for line in failures {
            println!("{line}");
        }
    }

    println!(
        "\n## Elements compared (last capture of each: uidelta without filters against OSWorld, \
         under the application element, by path of role and rank)\n"
    );
    println!(
        "| app | uidelta | OSWorld | in both | only uidelta | only OSWorld | names differ | \
         texts differ | bounds differ |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut details = Vec::new();
    for r in reports {
        let c: Comparison = compare(&r.ours, &r.theirs);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            r.ours.len(),
            r.theirs.len(),
            c.both,
            c.only_first.len(),
            c.only_second.len(),
            c.renamed.len(),
            c.text_differs.len(),
            c.bounds_differ
        );
        for (who, only) in [("uidelta", &c.only_first), ("OSWorld", &c.only_second)] {
            if only.is_empty() {
                continue;
            }
            let refs: Vec<&Element> = only.iter().collect();
            details.push(format!("- {}: only {who}: {}", r.name, roles_text(&refs)));
            for e in only.iter().take(4) {
                details.push(format!("  - {} {:?}", e.path, clip(&e.name)));
            }
        }
        for (what, pairs) in [("names", &c.renamed), ("texts", &c.text_differs)] {
            if pairs.is_empty() {
                continue;
            }
            let refs: Vec<&Element> = pairs.iter().map(|(a, _)| a).collect();
            details.push(format!(
                "- {}: {what} differ: {}",
                r.name,
                roles_text(&refs)
            ));
            for (ours, theirs) in pairs.iter().take(4) {
                let (a, b) = if what == "names" {
                    (clip(&ours.name), clip(&theirs.name))
                } else {
                    (
                        clip(ours.text.as_deref().unwrap_or("(none)")),
                        clip(theirs.text.as_deref().unwrap_or("(none)")),
                    )
                };
                details.push(format!("  - {}: uidelta {a:?}, OSWorld {b:?}", ours.path));
            }
        }
    }
    if !details.is_empty() {
        println!("\nWhat differs (roles, then at most 4 examples):\n");
        for line in details {
            println!("{line}");
        }
    }

    if let Some(e) = endpoint {
        let ms = sorted(&e.ms);
        println!(
            "\n## OSWorld's whole `/accessibility` endpoint on this desktop ({} runs; median / p90)\n",
            e.ms.len()
        );
        let apps: Vec<String> = e
            .per_app
            .iter()
            .map(|(name, n)| format!("{name} {n}"))
            .collect();
        println!("| time | elements | per application |");
        println!("|---:|---:|---|");
        println!(
            "| {} / {} | {} | {} |",
            report::ms_text(median(&ms)),
            report::ms_text(report::p90(&ms)),
            e.elements,
            apps.join(", ")
        );
        for err in &e.errors {
            println!("- failed: {err}");
        }
    }
    println!(
        "\nuidelta times are wall time around `capture()`, the default filters and \
         `tree_osworld` (what `uidelta tree --format osworld` writes; release build, one \
         current-thread tokio runtime); OSWorld times are measured inside Python around \
         `_create_atspi_node(app, 1)` and the serialization (interpreter start-up, imports and \
         output excluded)."
    );
}
