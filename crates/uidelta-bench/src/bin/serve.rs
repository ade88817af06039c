//! Serves the test pages of `fixtures/web` on 127.0.0.1 for browser
//! benchmarks and manual checks, with the testkit's web server.
//!
//! `cargo run -p uidelta-bench --bin serve` prints the base URL
//! (`http://127.0.0.1:PORT/`) on one line and serves until it is killed.
//!
//! `cargo run -p uidelta-bench --bin serve -- -- COMMAND ARGS...` runs the
//! command with `UIDELTA_WEB_BASE` set to that URL, stops serving when it
//! exits and exits with its status; `scripts/bench-browser.sh` runs the
//! Playwright side of the browser benchmark this way.
//!
//! `--root DIR` serves another directory.

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use uidelta_testkit::web::{fixtures_dir, Server};

const USAGE: &str = "usage: serve [--root DIR] [-- COMMAND ARGS...]";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut root = fixtures_dir();
    let mut command: Vec<String> = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--root" => match args.next() {
                Some(dir) => root = PathBuf::from(dir),
                None => return fail("--root needs a directory"),
            },
            "--" => {
                command = args.by_ref().collect();
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => return fail(&format!("unknown argument {other}")),
        }
    }

    let server = match Server::start(&root) {
        Ok(server) => server,
        Err(error) => return fail(&error.to_string()),
    };
    let base = server.url("");

    let Some((program, rest)) = command.split_first() else {
        println!("{base}");
        // A reader waiting for the line must get it now, not at exit.
        let _ = std::io::stdout().flush();
        eprintln!("serving {} (stop with Ctrl-C)", server.root().display());
        loop {
            std::thread::park();
        }
    };

    eprintln!("serving {} at {base}", server.root().display());
    let status = Command::new(program)
        .args(rest)
        .env("UIDELTA_WEB_BASE", &base)
        .status();
    drop(server);
    match status {
        Ok(status) => match (status.code(), status.signal()) {
            (Some(code), _) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            (None, Some(signal)) => ExitCode::from(u8::try_from(128 + signal).unwrap_or(1)),
            (None, None) => ExitCode::FAILURE,
        },
        Err(error) => fail(&format!("running {program}: {error}")),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("serve: {message}\n{USAGE}");
    ExitCode::from(2)
}
