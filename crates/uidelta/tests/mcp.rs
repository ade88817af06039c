//! `uidelta mcp` driven end to end by a client the project did not write:
//! the official MCP Python SDK (`mcp` from PyPI), on a virtual desktop with
//! gtk3-widget-factory and the fixture application. The checks themselves
//! are in `mcp_client.py`, one printed line each.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

use uidelta_testkit::{require_programs, Desktop};

/// The SDK version the checks were written against.
const MCP_SDK: &str = "mcp==2.3.0";
const FACTORY: &str = "gtk3-widget-factory";
const CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_client.py");
const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/uidelta-fixture.py"
);

/// A Python with the MCP SDK: a virtual environment under `target/`,
/// created (and the SDK installed from PyPI) on first use.
fn python_with_mcp() -> PathBuf {
    static INSTALL: Mutex<()> = Mutex::new(());
    let _one_at_a_time = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-venv");
    let python = venv.join("bin/python");
    let has_sdk = |python: &Path| {
        Command::new(python)
            .args(["-c", "import mcp, anyio"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if has_sdk(&python) {
        return python;
    }
    let run = |cmd: &mut Command, what: &str| {
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("{what}: cannot run it: {e}"));
        assert!(
            out.status.success(),
            "{what} failed ({}): {}\nThe MCP end-to-end test needs Python 3.10+ with venv, and \
             PyPI to install `{MCP_SDK}` (or install it yourself into {}).",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            venv.display()
        );
    };
    run(
        Command::new("python3").args(["-m", "venv"]).arg(&venv),
        "creating a Python virtual environment (python3 -m venv)",
    );
    run(
        Command::new(venv.join("bin/pip")).args(["install", "-q", MCP_SDK]),
        &format!("installing the MCP Python SDK (pip install {MCP_SDK})"),
    );
    assert!(
        has_sdk(&python),
        "{MCP_SDK} installed but `import mcp` fails"
    );
    python
}

fn desktop_with_apps() -> Desktop {
    require_programs(&[
        ("Xvfb", "xvfb"),
        (FACTORY, "gtk-3-examples"),
        ("/usr/bin/python3", "python3-gi gir1.2-gtk-3.0"),
    ])
    .expect("programs for the MCP tests");
    let desktop = Desktop::start().expect("a virtual desktop");
    std::mem::forget(desktop.launch(FACTORY, &[]).expect("launch the factory"));
    std::mem::forget(desktop.launch(FIXTURE, &[]).expect("launch the fixture"));
    for app in [FACTORY, "uidelta-fixture"] {
        desktop
            .wait_for_accessible_app(app, Duration::from_secs(20))
            .expect("on the accessibility bus");
    }
    desktop
}

/// Runs the Python client with `args` inside `desktop`; panics with its
/// output unless every check passed.
fn run_client(desktop: &Desktop, python: &Path, args: &[&str]) -> String {
    let mut cmd = desktop.command(&python.to_string_lossy());
    cmd.arg(CLIENT).args(args);
    let out = cmd.output().expect("the Python client runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("all checks passed"),
        "the MCP client failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    stdout
}

#[test]
fn the_python_sdk_drives_uidelta_mcp_over_stdio() {
    let python = python_with_mcp();
    let desktop = desktop_with_apps();
    let log =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mcp-log-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&log);
    let out = run_client(
        &desktop,
        &python,
        &[
            "stdio",
            env!("CARGO_BIN_EXE_uidelta"),
            &log.to_string_lossy(),
        ],
    );
    println!("{out}");
    // --log-dir: per action, the diff text and a PNG receipt; no password.
    let mut names: Vec<String> = std::fs::read_dir(&log)
        .expect("the log directory")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    assert_eq!(
        names.first().map(String::as_str),
        Some("0001-click_element.png"),
        "{names:?}"
    );
    let first = std::fs::read_to_string(log.join("0001-click_element.txt")).expect("a diff");
    assert!(first.contains("checked: false -> true"), "{first}");
    let typed = names
        .iter()
        .find(|n| n.ends_with("-type_into_element.txt"))
        .expect("the password typing is logged");
    for name in &names {
        let bytes = std::fs::read(log.join(name)).expect("a log file");
        if name.ends_with(".png") {
            assert!(bytes.starts_with(b"\x89PNG"), "{name}");
        }
        assert!(
            !String::from_utf8_lossy(&bytes).contains("hunter2-secret"),
            "{name} has the password"
        );
    }
    assert!(
        std::fs::read_to_string(log.join(typed))
            .expect("a diff")
            .contains(['\u{25cf}', '\u{2022}']),
        "{typed}"
    );
    let _ = std::fs::remove_dir_all(&log);
}

/// How many HTTP clients act at once, each on its own fixture instance.
const CLIENTS: usize = 8;

#[test]
fn the_python_sdk_drives_uidelta_mcp_over_http_with_concurrent_clients() {
    let python = python_with_mcp();
    let desktop = desktop_with_apps();
    let names: Vec<String> = (1..=CLIENTS)
        .map(|k| format!("uidelta-fixture-{k}"))
        .collect();
    for name in &names {
        let app = desktop
            .launch(FIXTURE, &["--name", name])
            .expect("launch a named fixture");
        std::mem::forget(app);
    }
    for name in &names {
        desktop
            .wait_for_accessible_app(name, Duration::from_secs(30))
            .expect("the named fixture on the accessibility bus");
    }
    let token = "test-token-0123";
    let mut server = desktop.command(env!("CARGO_BIN_EXE_uidelta"));
    server
        .args(["mcp", "--http", "127.0.0.1:0"])
        .env("UIDELTA_MCP_TOKEN", token)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = server.spawn().expect("uidelta mcp --http starts");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(stderr), &mut line);
        let _ = tx.send(line);
    });
    let line = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("uidelta mcp --http says where it listens");
    let url = line
        .trim()
        .strip_prefix("uidelta: MCP on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_owned();
    let result = std::panic::catch_unwind(|| {
        run_client(
            &desktop,
            &python,
            &["http", &url, token, &CLIENTS.to_string()],
        )
    });
    let _ = child.kill();
    let _ = child.wait();
    match result {
        Ok(out) => println!("{out}"),
        Err(e) => std::panic::resume_unwind(e),
    }
}
