//! The `uidelta` command line (see the library, [`uidelta::run`]).

fn main() -> std::process::ExitCode {
    uidelta::run(std::env::args_os()).into()
}
