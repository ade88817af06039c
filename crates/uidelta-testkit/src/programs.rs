use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::TestkitError;

/// Where Debian and others keep helpers that are not on `PATH` (`at-spi-bus-launcher`).
const LIBEXEC_DIRS: &[&str] = &[
    "/usr/libexec",
    "/usr/lib/at-spi2-core",
    "/usr/local/libexec",
];

/// Programs this crate knows the Debian package of, for install hints from [`crate::Desktop::launch`].
const KNOWN_PACKAGES: &[(&str, &str)] = &[
    ("Xvfb", "xvfb"),
    ("dbus-daemon", "dbus-daemon"),
    ("at-spi-bus-launcher", "at-spi2-core"),
    ("gdbus", "libglib2.0-bin"),
    ("gtk3-widget-factory", "gtk-3-examples"),
    ("gtk3-demo", "gtk-3-examples"),
    ("python3", "python3"),
    ("mousepad", "mousepad"),
    ("xdg-desktop-portal-gtk", "xdg-desktop-portal-gtk"),
];

/// Finds an executable: a path containing `/` is taken as is, a bare name is searched on `PATH`
/// and then in the usual libexec directories, where `at-spi-bus-launcher` lives.
///
/// Costs one `stat` per candidate directory.
pub fn find_program(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let path = PathBuf::from(program);
        return is_executable(&path).then_some(path);
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path_var)
        .chain(LIBEXEC_DIRS.iter().map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

/// The Debian package of Qt 5's examples, for [`qt5_example`].
pub const QT5_EXAMPLES: &str = "qtbase5-examples";

/// Where Debian keeps one of Qt 5's example programs (`widgets/gallery/gallery`):
/// under the architecture's library directory (`/usr/lib/x86_64-linux-gnu/qt5/examples`).
/// When [`QT5_EXAMPLES`] is not installed, a path that does not exist, for
/// [`require_programs`] to report with the package to install.
pub fn qt5_example(path: &str) -> PathBuf {
    std::fs::read_dir("/usr/lib")
        .into_iter()
        .flatten()
        .flatten()
        .map(|dir| dir.path().join("qt5/examples").join(path))
        .find(|candidate| is_executable(candidate))
        .unwrap_or_else(|| Path::new("/usr/lib/qt5/examples").join(path))
}

/// Checks that every `(program, debian package)` pair is installed.
///
/// Fails with [`TestkitError::MissingProgram`] naming all missing programs and the
/// `apt-get install` line that provides them, so a test that needs them fails with the fix in
/// its message instead of skipping.
pub fn require_programs(programs: &[(&str, &str)]) -> Result<(), TestkitError> {
    let missing: Vec<&(&str, &str)> = programs
        .iter()
        .filter(|(program, _)| find_program(program).is_none())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let program = missing
        .iter()
        .map(|(program, _)| *program)
        .collect::<Vec<_>>()
        .join(", ");
    let mut packages: Vec<&str> = missing.iter().map(|(_, package)| *package).collect();
    packages.dedup();
    Err(TestkitError::MissingProgram {
        program,
        package: packages.join(" "),
    })
}

/// Resolves `program` or explains how to install it (when its package is known).
pub(crate) fn resolve(program: &str) -> Result<PathBuf, TestkitError> {
    if let Some(path) = find_program(program) {
        return Ok(path);
    }
    let name = Path::new(program)
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or(program);
    match KNOWN_PACKAGES.iter().find(|(known, _)| *known == name) {
        Some((_, package)) => Err(TestkitError::MissingProgram {
            program: program.to_string(),
            package: package.to_string(),
        }),
        None => Err(TestkitError::start(program, "not found on PATH")),
    }
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .map(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_programs_on_path_and_in_libexec() {
        assert!(find_program("sh").is_some());
        assert_eq!(find_program("/bin/sh"), Some(PathBuf::from("/bin/sh")));
        assert_eq!(find_program("/nonexistent/uidelta-nothing"), None);
    }

    #[test]
    fn missing_programs_fail_with_the_install_hint() {
        let error = require_programs(&[
            ("sh", "dash"),
            ("uidelta-no-such-program", "uidelta-no-such-package"),
        ])
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "uidelta-no-such-program not found: install it with \
             `apt-get install -y uidelta-no-such-package`"
        );
    }

    #[test]
    fn several_missing_programs_are_named_together() {
        let error = require_programs(&[("uidelta-nope-a", "pkg-a"), ("uidelta-nope-b", "pkg-b")])
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "uidelta-nope-a, uidelta-nope-b not found: install it with `apt-get install -y pkg-a pkg-b`"
        );
    }

    #[test]
    fn unknown_programs_have_no_package_to_suggest() {
        let error = resolve("uidelta-no-such-program").unwrap_err();
        assert_eq!(
            error.to_string(),
            "starting uidelta-no-such-program: not found on PATH"
        );
    }
}
