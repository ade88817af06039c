//! The D-Bus calls one capture of each tool sends to the application,
//! counted by `dbus-monitor --profile` on the accessibility bus.

use super::*;

/// D-Bus traffic of one capture, seen by dbus-monitor.
pub(super) struct CallCount {
    pub(super) tool: Tool,
    pub(super) nodes: usize,
    /// Method calls sent to the application.
    pub(super) calls: usize,
    /// Error replies from the application.
    pub(super) errors: usize,
    /// Calls by member name, most frequent first.
    pub(super) by_method: Vec<(String, usize)>,
    /// Median time from a call to its reply, at the bus, in ms.
    pub(super) median_reply_ms: Option<f64>,
    /// Wall time of the capture while monitored, in ms.
    pub(super) ms: f64,
}

/// For each tool, one capture under `dbus-monitor --profile` on the
/// accessibility bus; counts the calls sent to the application.
pub(super) fn count_calls(
    rt: &tokio::runtime::Runtime,
    bus: &Bus,
    desktop: &Desktop,
    app: &AppInfo,
) -> Fallible<Vec<CallCount>> {
    let address = desktop.a11y_bus_address()?;
    let mut counts = Vec::new();
    for tool in TOOLS {
        let log = desktop
            .runtime_dir()
            .join(format!("monitor-{}.tsv", counts.len()));
        let file = File::create(&log).map_err(|e| format!("creating {}: {e}", log.display()))?;
        let mut monitor = desktop
            .command("dbus-monitor")
            .args(["--address", &address, "--profile"])
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting dbus-monitor: {e}"))?;
        let result = (|| {
            wait_for_monitor(&log)?;
            let captured = one_capture(rt, bus, desktop, app, &[], tool, &mut None)?;
            // Let the last replies reach the monitor's log.
            std::thread::sleep(Duration::from_millis(300));
            Ok::<_, Box<dyn std::error::Error>>(captured)
        })();
        let _ = monitor.kill();
        let _ = monitor.wait();
        let captured = result?;
        let mut count = parse_monitor_log(&log, &app.app.bus_name)?;
        count.tool = tool;
        count.nodes = captured.seen.len();
        count.ms = captured.ms;
        counts.push(count);
    }
    Ok(counts)
}

/// Waits until dbus-monitor has printed something (its own NameAcquired),
/// which it does once it is a monitor.
fn wait_for_monitor(log: &Path) -> Fallible<()> {
    let deadline = Instant::now() + MONITOR_READY;
    loop {
        let lines = std::fs::read_to_string(log)
            .map(|t| t.lines().filter(|l| !l.starts_with('#')).count())
            .unwrap_or(0);
        if lines > 0 {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "dbus-monitor printed nothing within {} s",
                MONITOR_READY.as_secs()
            )
            .into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Reads `dbus-monitor --profile` lines: `mc time serial sender dest path
/// iface member`, `mr|err time serial sender dest reply_serial`.
fn parse_monitor_log(log: &Path, app_bus: &str) -> Fallible<CallCount> {
    let file = File::open(log).map_err(|e| format!("reading {}: {e}", log.display()))?;
    let mut sent: HashMap<(String, String), f64> = HashMap::new();
    let mut by_method: HashMap<String, usize> = HashMap::new();
    let mut latencies = Vec::new();
    let (mut calls, mut errors) = (0, 0);
    for line in BufReader::new(file).lines() {
        let line = line.map_err(|e| format!("reading {}: {e}", log.display()))?;
        let f: Vec<&str> = line.split('\t').collect();
        let time = |s: &str| s.parse::<f64>().ok();
        match f.as_slice() {
            ["mc", t, serial, sender, dest, _path, _iface, member, ..] if *dest == app_bus => {
                calls += 1;
                *by_method.entry((*member).to_owned()).or_default() += 1;
                if let Some(t) = time(t) {
                    sent.insert(((*sender).to_owned(), (*serial).to_owned()), t);
                }
            }
            [kind @ ("mr" | "err"), t, _serial, sender, dest, reply_serial, ..]
                if *sender == app_bus =>
            {
                if *kind == "err" {
                    errors += 1;
                }
                let key = ((*dest).to_owned(), (*reply_serial).to_owned());
                if let (Some(start), Some(end)) = (sent.get(&key), time(t)) {
                    latencies.push((end - start) * 1000.0);
                }
            }
            _ => {}
        }
    }
    let mut by_method: Vec<(String, usize)> = by_method.into_iter().collect();
    by_method.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    latencies.sort_by(f64::total_cmp);
    Ok(CallCount {
        tool: Tool::Uidelta,
        nodes: 0,
        calls,
        errors,
        by_method,
        median_reply_ms: median(&latencies),
        ms: 0.0,
    })
}
