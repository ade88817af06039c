//! `python -m uidelta`: the command line of the `uidelta` binary, run in
//! this process.

use std::ffi::OsString;
use std::path::PathBuf;

use pyo3::prelude::*;

/// Runs the `uidelta` command line with `argv` (the program's name first)
/// and returns its exit status: the same arguments, output and status as
/// the `uidelta` binary. `helper` is the program whose `__keep-action`
/// command makes accessible actions for a command on the desktop (the
/// package's `uidelta` script; `None`: the command makes them itself).
/// The GIL is released meanwhile. `python -m uidelta` calls it (with
/// Ctrl-C ending the process, as it ends the binary).
#[pyfunction]
#[pyo3(signature = (argv, helper = None))]
pub fn main(py: Python<'_>, argv: Vec<OsString>, helper: Option<PathBuf>) -> u8 {
    py.detach(|| uidelta::run_with_helper(argv, helper).0)
}
