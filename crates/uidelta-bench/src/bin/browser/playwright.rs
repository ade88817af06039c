//! Playwright's side: Node.js with playwright-core, and aria.mjs run as a
//! child process.

use super::*;

/// What aria.mjs reported for one step (step 0: opening the page).
#[derive(Clone)]
pub(super) struct Theirs {
    pub(super) snapshot_size: Size,
    pub(super) lines: usize,
    pub(super) action_ms: f64,
    pub(super) wait_ms: f64,
    pub(super) snapshot_ms: f64,
    /// Expectations the snapshot does not show (`no X`: X still shown).
    pub(super) misses: Vec<String>,
}

impl Theirs {
    pub(super) fn total_ms(&self) -> f64 {
        self.action_ms + self.wait_ms + self.snapshot_ms
    }
}

/// Node.js with playwright-core, checked before anything runs.
pub(super) struct Node {
    pub(super) program: PathBuf,
    pub(super) version: String,
    pub(super) playwright: String,
    pub(super) script: PathBuf,
}

pub(super) const INSTALL: &str =
    "scripts/bench-browser.sh installs Node.js 20 (from the npm registry when \
                       Debian's is older) and playwright-core, then runs this benchmark";

pub(super) fn find_node(explicit: Option<PathBuf>) -> Fallible<Node> {
    let chosen = explicit.or_else(|| std::env::var_os("UIDELTA_NODE").map(PathBuf::from));
    let (program, version, major) = match chosen {
        Some(program) => {
            let (version, major) = node_version(&program)?;
            (program, version, major)
        }
        None => {
            // `node` on PATH, else the one scripts/bench-browser.sh installs
            // under target/node when Debian's is too old.
            let on_path = PathBuf::from("node");
            let installed = ["x64", "arm64"].map(|arch| {
                repo_root().join(format!(
                    "target/node/node_modules/node-linux-{arch}/bin/node"
                ))
            });
            let mut found = node_version(&on_path).map(|(v, m)| (on_path.clone(), v, m));
            for candidate in installed.iter().filter(|p| p.exists()) {
                if found.as_ref().map_or(true, |f| f.2 < 20) {
                    if let Ok((v, m)) = node_version(candidate) {
                        found = Ok((candidate.clone(), v, m));
                    }
                }
            }
            found?
        }
    };
    if major < 20 {
        return Err(format!(
            "playwright-core needs Node.js 20 or newer; `{}` is {version} (Debian 12 ships 18); \
             {INSTALL}, or pass --node PATH",
            program.display()
        )
        .into());
    }
    let root = repo_root();
    let manifest = root.join("bench/playwright/node_modules/playwright-core/package.json");
    let playwright = std::fs::read_to_string(&manifest)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v["version"].as_str().map(str::to_owned))
        .ok_or_else(|| {
            format!(
                "playwright-core is not installed ({} is missing): run `npm ci` in \
                 bench/playwright; {INSTALL}",
                manifest.display()
            )
        })?;
    Ok(Node {
        program,
        version,
        playwright,
        script: root.join("bench/playwright/aria.mjs"),
    })
}

/// `v20.20.2` and 20, from `program --version`.
pub(super) fn node_version(program: &Path) -> Fallible<(String, u32)> {
    let out = Command::new(program)
        .arg("--version")
        .output()
        .map_err(|e| {
            format!(
                "cannot run Node.js (`{}`): {e}; {INSTALL}",
                program.display()
            )
        })?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let major = version
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .ok_or_else(|| {
            format!(
                "`{} --version` said {version:?}, not a Node.js version; {INSTALL}",
                program.display()
            )
        })?;
    Ok((version, major))
}

/// Runs one scenario through aria.mjs; its stderr is passed on.
pub(super) fn run_theirs(
    node: &Node,
    scenarios: &Path,
    base: &str,
    scenario: &Scenario,
    chromium: &Path,
    show: bool,
) -> Fallible<Vec<Theirs>> {
    let what = format!("Playwright, {}", scenario.name);
    let mut child = Command::new(&node.program)
        .arg(&node.script)
        .arg("--base")
        .arg(base)
        .arg("--scenarios")
        .arg(scenarios)
        .arg("--only")
        .arg(&scenario.name)
        .arg("--chromium")
        .arg(chromium)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{what}: starting {}: {e}", node.program.display()))?;
    let out = read_all(&mut child, &what)?;
    for line in out.stderr.lines() {
        eprintln!("   {line}");
    }
    if !out.success {
        return Err(format!(
            "{what}: aria.mjs failed ({}): {}",
            out.status,
            out.stderr.lines().last().unwrap_or("no message")
        )
        .into());
    }
    let mut rows = Vec::new();
    for line in out.stdout.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line)
            .map_err(|e| format!("{what}: a line of aria.mjs is not JSON ({e}): {line}"))?;
        let number = |key: &str| {
            v[key]
                .as_f64()
                .ok_or_else(|| format!("{what}: `{key}` missing in {line}"))
        };
        let strings = |key: &str| -> Vec<String> {
            v[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        let step = v["step"].as_u64().unwrap_or(u64::MAX);
        if step != rows.len() as u64 {
            return Err(format!("{what}: expected step {}, got {line}", rows.len()).into());
        }
        let text = v["snapshot_text"]
            .as_str()
            .ok_or_else(|| format!("{what}: `snapshot_text` missing in step {step}"))?;
        if show {
            eprintln!("-- {what} step {step} snapshot:\n{text}");
        }
        let mut misses = strings("expect_missing");
        misses.extend(
            strings("absent_present")
                .into_iter()
                .map(|a| format!("no {a}")),
        );
        let row = Theirs {
            snapshot_size: size(text),
            lines: text.lines().count(),
            action_ms: number("action_ms")?,
            wait_ms: number("settle_ms")?,
            snapshot_ms: number("snapshot_ms")?,
            misses,
        };
        eprintln!(
            "-- {what} step {step}: {} ms (action {} + wait {} + snapshot {}), snapshot {} tokens{}",
            row.total_ms().round(),
            row.action_ms.round(),
            row.wait_ms.round(),
            row.snapshot_ms.round(),
            row.snapshot_size.tokens,
            if row.misses.is_empty() {
                String::new()
            } else {
                format!("; misses {}", row.misses.join(", "))
            }
        );
        rows.push(row);
    }
    if rows.len() != scenario.steps.len() + 1 {
        return Err(format!(
            "{what}: aria.mjs reported {} steps, the scenario has {} (plus opening the page)",
            rows.len(),
            scenario.steps.len()
        )
        .into());
    }
    Ok(rows)
}

pub(super) struct Output {
    pub(super) success: bool,
    pub(super) status: String,
    pub(super) stdout: String,
    pub(super) stderr: String,
}

/// Waits (bounded) for a child with piped stdout and stderr, reading both.
pub(super) fn read_all(child: &mut Child, what: &str) -> Fallible<Output> {
    fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    }
    let stdout = child.stdout.take().map(drain);
    let stderr = child.stderr.take().map(drain);
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > PLAYWRIGHT_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{what}: aria.mjs did not finish within {} s; stopped it",
                    PLAYWRIGHT_TIMEOUT.as_secs()
                )
                .into());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("{what}: waiting for aria.mjs: {e}").into()),
        }
    };
    let join = |h: Option<std::thread::JoinHandle<String>>| {
        h.map(|h| h.join().unwrap_or_default()).unwrap_or_default()
    };
    Ok(Output {
        success: status.success(),
        status: status.to_string(),
        stdout: join(stdout),
        stderr: join(stderr),
    })
}
